/*
 * test_rng.c — per-component streams: reproducible, distinct per (seed, id), uncorrelated,
 * uniform, unbiased in rng_below, and independent of how draws of two streams interleave.
 * Tolerances are ~6 standard deviations of the statistic at the sample size used, so a correct
 * generator fails with negligible probability and a broken one (constant, modulo-biased,
 * shared state) fails for sure.
 */
#include <math.h>

#include "core/rng.h"
#include "testlib.h"

#define N 100000

static uint64_t ref_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** as in the reference code, for a known-answer test of rng_next. */
static uint64_t ref_next(uint64_t *s)
{
    uint64_t result = ref_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ref_rotl(s[3], 45);
    return result;
}

static void test_known_answer(void)
{
    rng r = {{1, 2, 3, 4}};
    uint64_t s[4] = {1, 2, 3, 4};
    CHECK_EQ_U64(rng_next(&r), 11520); /* rotl(2*5, 7) * 9 */
    ref_next(s);
    int same = 1;
    for (int i = 0; i < 1000; i++)
        same &= rng_next(&r) == ref_next(s);
    CHECK(same);
}

static void test_reproducible(void)
{
    rng a, b;
    rng_init(&a, 12345, RNG_ID(RNG_KIND_NIC, 17));
    rng_init(&b, 12345, RNG_ID(RNG_KIND_NIC, 17));
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= rng_next(&a) == rng_next(&b);
    CHECK(same);
}

static double match_fraction(uint64_t seed_a, uint64_t id_a, uint64_t seed_b, uint64_t id_b)
{
    rng a, b;
    rng_init(&a, seed_a, id_a);
    rng_init(&b, seed_b, id_b);
    uint64_t match = 0, equal_words = 0;
    for (int i = 0; i < N; i++) {
        uint64_t x = rng_next(&a), y = rng_next(&b);
        match += (uint64_t)__builtin_popcountll(~(x ^ y));
        equal_words += x == y;
    }
    CHECK(equal_words == 0);
    return (double)match / (64.0 * N);
}

static void test_distinct_streams(void)
{
    /* sd of the matching-bit fraction over 64N bits is 0.5/sqrt(64N). */
    double tol = 6 * 0.5 / sqrt(64.0 * N);
    CHECK_NEAR(match_fraction(1, RNG_ID(RNG_KIND_PORT, 0), 1, RNG_ID(RNG_KIND_PORT, 1)), 0.5, tol);
    CHECK_NEAR(match_fraction(1, RNG_ID(RNG_KIND_PORT, 0), 2, RNG_ID(RNG_KIND_PORT, 0)), 0.5, tol);
    CHECK_NEAR(match_fraction(0, 0, 0, 1), 0.5, tol);
    CHECK_NEAR(match_fraction(0, 0, 1, 0), 0.5, tol);
    /* Swapping seed and id must not give the same stream. */
    CHECK_NEAR(match_fraction(5, 9, 9, 5), 0.5, tol);
    /* Sequence with a one-step lag is not a shifted copy either. */
    rng a, b;
    rng_init(&a, 1, 1);
    rng_init(&b, 1, 2);
    rng_next(&b);
    int shifted = 1;
    for (int i = 0; i < 64; i++)
        shifted &= rng_next(&a) == rng_next(&b);
    CHECK(!shifted);
    /* First draws of 1000 seeds (same id) and of 1000 ids (same seed) are all distinct: the
     * first output of xoshiro256** depends on s1 only, so s1 must depend on seed and id. */
    static uint64_t first[2000];
    for (int i = 0; i < 1000; i++) {
        rng_init(&a, (uint64_t)i, RNG_ID(RNG_KIND_SWITCH, 3));
        first[i] = rng_next(&a);
        rng_init(&a, 4242, RNG_ID(RNG_KIND_SWITCH, (uint64_t)i));
        first[1000 + i] = rng_next(&a);
    }
    int dup = 0;
    for (int i = 0; i < 2000; i++)
        for (int j = i + 1; j < 2000; j++)
            dup += first[i] == first[j];
    CHECK_EQ_U64(dup, 0);
    /* Never the all-zero state, whatever the inputs. */
    rng z;
    rng_init(&z, 0, 0);
    CHECK((z.s[0] | z.s[1] | z.s[2] | z.s[3]) != 0);
}

static void test_unit(void)
{
    rng r;
    rng_init(&r, 99, RNG_ID(RNG_KIND_TEST, 3));
    double sum = 0, lo = 1, hi = 0;
    int in_range = 1;
    for (int i = 0; i < N; i++) {
        double u = rng_unit(&r);
        in_range &= u >= 0.0 && u < 1.0 && u * 0x1.0p53 == floor(u * 0x1.0p53);
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    CHECK(in_range);
    CHECK_NEAR(sum / N, 0.5, 6 * sqrt(1.0 / 12 / N));
    CHECK(lo < 1e-3 && hi > 1 - 1e-3);
    /* Two streams: correlation of their unit draws ~ 0 (sd 1/sqrt(N)). */
    rng a, b;
    rng_init(&a, 99, 1);
    rng_init(&b, 99, 2);
    double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < N; i++) {
        double x = rng_unit(&a), y = rng_unit(&b);
        sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
    }
    double cov = sxy / N - (sx / N) * (sy / N);
    double corr = cov / sqrt((sxx / N - (sx / N) * (sx / N)) * (syy / N - (sy / N) * (sy / N)));
    CHECK_NEAR(corr, 0.0, 6 / sqrt((double)N));
}

static void test_below(void)
{
    rng r;
    rng_init(&r, 2024, RNG_ID(RNG_KIND_TEST, 4));
    enum { K = 10 };
    uint64_t count[K] = {0};
    int in_range = 1;
    for (int i = 0; i < N; i++) {
        uint64_t x = rng_below(&r, K);
        in_range &= x < K;
        if (x < K)
            count[x]++;
    }
    CHECK(in_range);
    double chi2 = 0, e = (double)N / K;
    for (int k = 0; k < K; k++)
        chi2 += (count[k] - e) * (count[k] - e) / e;
    CHECK(chi2 < 33.7); /* 9 degrees of freedom: P(chi2 > 33.7) ≈ 1e-4 */
    int ones = 1;
    for (int i = 0; i < 1000; i++)
        ones &= rng_below(&r, 1) == 0;
    CHECK(ones);
    /* Modulo bias detector: n = 3·2^62. Uniform gives P(x < 2^62) = 1/3; x mod n would give 1/2
     * (values below 2^64 - n = 2^62 are hit twice). */
    uint64_t n = 3ULL << 62, low = 0;
    in_range = 1;
    for (int i = 0; i < N; i++) {
        uint64_t x = rng_below(&r, n);
        in_range &= x < n;
        low += x < (1ULL << 62);
    }
    CHECK(in_range);
    CHECK_NEAR((double)low / N, 1.0 / 3, 6 * sqrt(2.0 / 9 / N));
}

static void test_interleave(void)
{
    rng a, b, a2, b2;
    rng_init(&a, 7, 100);
    rng_init(&b, 7, 200);
    rng_init(&a2, 7, 100);
    rng_init(&b2, 7, 200);
    uint64_t xa[1000], xb[1000];
    for (int i = 0; i < 1000; i++)
        xa[i] = rng_next(&a);
    for (int i = 0; i < 1000; i++)
        xb[i] = rng_next(&b);
    int same = 1;
    rng *order[2] = {&a2, &b2};
    int ia = 0, ib = 0;
    rng pick;
    rng_init(&pick, 1, 1);
    while (ia < 1000 || ib < 1000) {
        int w = ia == 1000 ? 1 : ib == 1000 ? 0 : (int)rng_below(&pick, 2);
        uint64_t x = rng_next(order[w]);
        same &= w == 0 ? x == xa[ia++] : x == xb[ib++];
    }
    CHECK(same);
}

int main(void)
{
    TEST_RUN(test_known_answer);
    TEST_RUN(test_reproducible);
    TEST_RUN(test_distinct_streams);
    TEST_RUN(test_unit);
    TEST_RUN(test_below);
    TEST_RUN(test_interleave);
    return tl_finish();
}
