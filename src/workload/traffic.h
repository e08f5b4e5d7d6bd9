/*
 * traffic.h — synthetic traffic jobs (`kind: traffic`): the flows of a pattern over a host set.
 *
 *  permutation: every host sends one flow to a distinct other host — a uniformly random
 *               derangement drawn from the job's stream (seed, job index) by rejection.
 *  incast:      every host of the set except the first sends one flow to the first.
 *  all-to-all:  one flow for every ordered pair of distinct hosts.
 * Every flow has `size` bytes and starts at the job's `start`.
 */
#ifndef WR_WORKLOAD_TRAFFIC_H
#define WR_WORKLOAD_TRAFFIC_H

#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"

/* Number of flows job j creates over `n_hosts` hosts, or 0 with *e set on invalid input. */
uint64_t traffic_flow_count(const scenario *sc, uint32_t j, uint32_t n_hosts, err *e);

/* Callback receiving each (src, dst) pair in a deterministic order. */
typedef void (*traffic_pair_fn)(void *ctx, uint32_t src, uint32_t dst);

/* Generate the pairs of job j (validated by traffic_flow_count first). */
void traffic_pairs(const scenario *sc, uint32_t j, uint32_t n_hosts, traffic_pair_fn fn,
                   void *ctx);

#endif
