/*
 * fastdiv.h — exact division of 32-bit integers by a divisor fixed at build time, by a
 * multiplication (Lemire, Kaser, Kurz, "Faster remainder by direct computation: applications to
 * compilers and software libraries", Software: Practice and Experience 49(6), 2019, Theorem 1:
 * with c = ceil(2^64 / d), floor(c · a / 2^64) = floor(a / d) and the remainder is
 * floor((c · a mod 2^64) · d / 2^64), for every a and d below 2^32).
 *
 * Why: the compact collective plans (collective.c) find a transfer's place from its index by
 * dividing by the chunk count and the positions per step, runtime values; a 64-bit `div` costs
 * 40–90 cycles on the machines we measure on, a 64 × 64 → 128-bit multiply 3–4, and a flow-level
 * run does several per message. The quotients are exact, so nothing in the results changes
 * (test_time checks them against `/` and `%`).
 */
#ifndef WR_CORE_FASTDIV_H
#define WR_CORE_FASTDIV_H

#include <stdint.h>

/* Divisor d (1 ≤ d < 2^32) and its reciprocal c = ceil(2^64 / d) (0 for d = 1: handled apart). */
typedef struct fastdiv {
    uint64_t c;
    uint32_t d;
} fastdiv;

static inline fastdiv fastdiv_make(uint32_t d)
{
    fastdiv f;
    f.d = d;
    f.c = d > 1 ? UINT64_MAX / d + 1 : 0; /* = ceil(2^64 / d) for d ≥ 2 */
    return f;
}

/* a / d and a % d, exactly, for every 32-bit a. */
static inline uint32_t fastdiv_div(fastdiv f, uint32_t a)
{
    if (f.d == 1)
        return a;
    return (uint32_t)(((unsigned __int128)f.c * a) >> 64);
}

static inline uint32_t fastdiv_mod(fastdiv f, uint32_t a)
{
    if (f.d == 1)
        return 0;
    uint64_t low = f.c * a;
    return (uint32_t)(((unsigned __int128)low * f.d) >> 64);
}

#endif
