/*
 * test_time.c — integer line-rate arithmetic: exact serialization times, rounding up, no
 * overflow at extreme values, and sim_bytes_in as its inverse (rounding down); the exact division
 * by a reciprocal (core/fastdiv.h) against `/` and `%`.
 */
#include "core/fastdiv.h"
#include "core/time.h"
#include "testlib.h"

static void test_ser_time(void)
{
    const uint64_t G = 1000000000ULL;
    CHECK_EQ_U64(sim_ser_time(4178, 400 * G), 83560);       /* 4178 B at 400 Gbps */
    CHECK_EQ_U64(sim_ser_time(1500, 100 * G), 120 * SIM_NS); /* 1500 B at 100 Gbps */
    CHECK_EQ_U64(sim_ser_time(64, 800 * G), 640);
    CHECK_EQ_U64(sim_ser_time(1, 8), SIM_S);                 /* 1 B at 8 bps = 1 s */
    CHECK_EQ_U64(sim_ser_time(1, 3), 2666666666667ULL);      /* 8/3 s, rounded up */
    CHECK_EQ_U64(sim_ser_time(3, 3), 8 * SIM_S);             /* exact: no spurious +1 */
    CHECK_EQ_U64(sim_ser_time(0, 400 * G), 0);
    CHECK_EQ_U64(sim_ser_time(1, 1000 * G), 8);
    CHECK_EQ_U64(sim_ser_time(1, 3 * G), 2667);              /* 2666.67 ps → 2667 */
    /* Huge values: 2^40 bytes (1 TiB) at 1 bps would overflow 64-bit intermediates. */
    CHECK_EQ_U64(sim_ser_time(1ULL << 40, 1ULL << 40), 8 * SIM_S);
    CHECK_EQ_U64(sim_ser_time(UINT64_MAX / 8000000000000ULL, 1),
                 (UINT64_MAX / 8000000000000ULL) * 8000000000000ULL);
    /* 2^63·10^12/(2^64-1) is a hair above 5·10^11: rounds up to the next ps. */
    CHECK_EQ_U64(sim_ser_time(1ULL << 60, UINT64_MAX), 500000000001ULL);
    /* The 64-bit branch (below 2 MiB, below 2^50 bit/s) against the 128-bit formula, on both
     * sides of its bounds and at rates that round */
    static const uint64_t rates[] = {1,         3,           8,           100 * G,
                                     400 * G,   3 * G + 7,   (1ULL << 50) - 1, 1ULL << 50,
                                     UINT64_MAX};
    static const uint64_t sizes[] = {0,     1,          4178,           (1u << 21) - 1,
                                     1u << 21, (1u << 21) + 1, 1ULL << 40, 999999};
    int same = 1;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            unsigned __int128 num = (unsigned __int128)sizes[j] * 8000000000000ULL;
            uint64_t want = (uint64_t)((num + rates[i] - 1) / rates[i]);
            if (sim_ser_time(sizes[j], rates[i]) != want)
                same = 0;
        }
    CHECK(same);
}

static void test_bytes_in(void)
{
    const uint64_t G = 1000000000ULL;
    CHECK_EQ_U64(sim_bytes_in(83560, 400 * G), 4178);
    CHECK_EQ_U64(sim_bytes_in(83559, 400 * G), 4177); /* rounds down */
    CHECK_EQ_U64(sim_bytes_in(SIM_S, 400 * G), 50 * G);
    CHECK_EQ_U64(sim_bytes_in(SIM_US, 8), 0);
    CHECK_EQ_U64(sim_bytes_in(SIM_TIME_MAX, 800 * G), UINT64_MAX / 10); /* no overflow */
    /* Inverse: bytes_in(ser_time(b)) == b for every b at an awkward rate. */
    int inverse = 1;
    for (uint64_t b = 0; b < 20000; b++)
        inverse &= sim_bytes_in(sim_ser_time(b, 3 * G + 7), 3 * G + 7) == b;
    CHECK(inverse);
}

/* fastdiv: every divisor form (1, powers of two and their neighbours, small, large, the top of the
 * range) against `/` and `%` at the dividends where a reciprocal is likeliest to be off by one:
 * 0, multiples of d and their neighbours, the top of the range, and a pseudo-random spread. */
static void test_fastdiv(void)
{
    uint32_t ds[64];
    uint32_t nd = 0;
    ds[nd++] = 1;
    ds[nd++] = 2;
    ds[nd++] = 3;
    ds[nd++] = 7;
    ds[nd++] = 255;
    ds[nd++] = 256;
    ds[nd++] = 257;
    ds[nd++] = 1000003;
    ds[nd++] = 0x7FFFFFFFu;
    ds[nd++] = 0x80000000u;
    ds[nd++] = 0x80000001u;
    ds[nd++] = UINT32_MAX - 1;
    ds[nd++] = UINT32_MAX;
    uint64_t r = 0x9E3779B97F4A7C15ull;
    while (nd < 64) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        uint32_t d = (uint32_t)(r >> (r % 31)); /* spread over the magnitudes */
        ds[nd++] = d ? d : 6;
    }
    uint64_t bad = 0;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t d = ds[i];
        fastdiv f = fastdiv_make(d);
        uint32_t as[12] = {0,
                           1,
                           d - 1,
                           d,
                           d + 1,
                           2 * d - 1,
                           2 * d,
                           UINT32_MAX,
                           UINT32_MAX - 1,
                           UINT32_MAX / d * d,
                           UINT32_MAX / d * d - 1,
                           12345};
        for (uint32_t k = 0; k < 12; k++)
            bad += fastdiv_div(f, as[k]) != as[k] / d || fastdiv_mod(f, as[k]) != as[k] % d;
        for (uint32_t k = 0; k < 20000; k++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            uint32_t a = (uint32_t)(r >> (r % 33 < 32 ? r % 33 : 0));
            bad += fastdiv_div(f, a) != a / d || fastdiv_mod(f, a) != a % d;
        }
    }
    /* every dividend for a few small divisors */
    for (uint32_t d = 1; d <= 5; d++) {
        fastdiv f = fastdiv_make(d);
        for (uint32_t a = 0; a < 3000000; a++)
            bad += fastdiv_div(f, a) != a / d || fastdiv_mod(f, a) != a % d;
    }
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    TEST_RUN(test_ser_time);
    TEST_RUN(test_bytes_in);
    TEST_RUN(test_fastdiv);
    return tl_finish();
}
