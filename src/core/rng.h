/*
 * rng.h — per-component random streams.
 *
 * Every random draw in wirerate comes from a stream derived from (scenario seed, component id):
 * the pair is mixed with SplitMix64 into the 256-bit state of xoshiro256** (Blackman & Vigna).
 * Streams of different components are independent for practical purposes, and adding a
 * component never shifts another's draws. The C library's generators are never used.
 */
#ifndef WR_CORE_RNG_H
#define WR_CORE_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s[4];
} rng;

/* Component ids: a kind in the top 16 bits, an index below, so ids never collide. */
#define RNG_ID(kind, index) (((uint64_t)(kind) << 48) | (uint64_t)(index))
enum { RNG_KIND_SWITCH = 1, RNG_KIND_NIC = 2, RNG_KIND_JOB = 3, RNG_KIND_PORT = 4, RNG_KIND_FAULT = 5, RNG_KIND_GOODPUT = 6,
       RNG_KIND_TEST = 99 };

void rng_init(rng *r, uint64_t seed, uint64_t component_id);
uint64_t rng_next(rng *r);
/* Uniform in [0, n) without modulo bias; n > 0. */
uint64_t rng_below(rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double rng_unit(rng *r);

#endif
