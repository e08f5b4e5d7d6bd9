/*
 * rng.c — per-component random streams: xoshiro256** (Blackman & Vigna, "Scrambled linear
 * pseudorandom number generators", ACM TOMS 2021; reference code at prng.di.unimi.it) seeded
 * through the SplitMix64 finalizer (Steele, Lea & Flood, OOPSLA'14).
 *
 * Seeding: a = mix(seed + γ), b = mix(id + 2γ); s0 = a, s1 = mix(a ^ b). mix is a bijection on
 * 64 bits, so s0 determines the seed and then s1 the id: distinct (seed, id) pairs always give
 * distinct states. s1 must depend on both, because the first output of xoshiro256** is a function
 * of s1 alone (a first version with s1 = b gave every seed the same first draw for an id; the
 * test now checks it). s2 and s3 mix both words again so that neighbouring streams differ in
 * every state word from the first draw. The all-zero state
 * (the one fixed point of xoshiro) is replaced by a constant. Adding a component never shifts
 * another's draws because nothing is shared between streams.
 *
 * rng_below uses Lemire's multiply-and-reject method ("Fast random integer generation in an
 * interval", ACM TOMS 2019): unbiased, and almost never divides. rng_unit takes the top 53 bits,
 * so every double in [0, 1) it returns is a multiple of 2^-53, exactly as in the reference.
 */
#include "rng.h"

#define RNG_GAMMA 0x9E3779B97F4A7C15ULL

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* SplitMix64 output function (a bijection). */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void rng_init(rng *r, uint64_t seed, uint64_t component_id)
{
    uint64_t a = mix64(seed + RNG_GAMMA);
    uint64_t b = mix64(component_id + 2 * RNG_GAMMA);
    r->s[0] = a;
    r->s[1] = mix64(a ^ b);
    r->s[2] = mix64(a ^ rotl(b, 23) ^ 3 * RNG_GAMMA);
    r->s[3] = mix64(b ^ rotl(a, 41) ^ 4 * RNG_GAMMA);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = RNG_GAMMA;
}

uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t rng_below(rng *r, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t thresh = (0 - n) % n;  /* 2^64 mod n */
        while (lo < thresh) {
            m = (unsigned __int128)rng_next(r) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
