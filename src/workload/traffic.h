/*
 * traffic.h — synthetic traffic jobs (`kind: traffic`): the flows of a pattern over a host set.
 *
 *  permutation: every host sends one flow to a distinct other host — a uniformly random
 *               derangement drawn from the job's stream (seed, job index) by rejection.
 *  incast:      every host of the set except the first sends one flow to the first.
 *  all-to-all:  one flow for every ordered pair of distinct hosts.
 *  uniform:     Poisson arrivals (background load as DCTCP, pFabric and HPCC generate it): each
 *               host of the set starts flows at rate λ = load × fabric.host_link / (8 × mean
 *               flow size), to a destination drawn uniformly among the other hosts of the set.
 *               The superposition of those n processes is drawn as one Poisson process of rate
 *               n·λ whose arrivals pick their source uniformly — the same law, one stream.
 *               Arrivals stop at `duration` after the iteration's start or after `count` flows,
 *               whichever comes first, so every job ends. Every flow is its own connection (its
 *               own QP, hence its own UDP source port): ECMP sees one new 5-tuple per flow, the
 *               high-entropy mice a frontend carries.
 *  list:        the job's `flows`, as written: each from src to dst with its size, at its
 *               `start`, or (`after`) when the flows it names have completed. Timed flows come
 *               in start order (ties in file order), then the waiting ones in file order with
 *               at_ps = TRAFFIC_AFTER: the run starts them (workload/run.c), not the clock.
 *  storage-write / storage-read (fabric.storage): every client of the set writes one flow to
 *               (reads one from) storage server i mod S — the servers striped evenly over the
 *               clients. Clients are the GPU servers' storage NICs (index = server), or with
 *               storage nic: converged their backend NIC ports (index = host).
 * Networks: a job with `network: frontend` runs over the frontend NICs (index = server).
 * The patterns work in an index space [0, n_space) of clients, storage servers after them
 * (n_space + k); traffic_host_map turns those indices into hosts of the built network.
 * Sizes: `size` bytes each, or drawn from `size_cdf` (config/cdf.h) per flow.
 * Iterations: iteration k+1 starts when every flow of iteration k has arrived; each iteration
 * draws afresh from the job's stream (a new derangement, new arrivals and sizes); flows carry
 * their arrival offset from their iteration's start (0 for the fixed patterns).
 * All draws come from the job's stream RNG_ID(RNG_KIND_JOB, j), in a fixed order: same seed,
 * same flows.
 */
#ifndef WR_WORKLOAD_TRAFFIC_H
#define WR_WORKLOAD_TRAFFIC_H

#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"

/* Most flows a traffic job may generate (over all its iterations): 64 M flows are several GiB of
 * flow state, beyond any run that could finish. */
#define TRAFFIC_MAX_FLOWS (1ull << 26)

/* at_ps of a `list` flow that starts when the flows it waits for have completed */
#define TRAFFIC_AFTER SIM_TIME_MAX

typedef struct traffic_flow {
    uint32_t src, dst; /* host indices */
    uint64_t bytes;
    sim_time at_ps; /* start, from the start of its iteration (TRAFFIC_AFTER: see above) */
    uint32_t iteration;
    uint32_t item; /* list: its index in the job's `flows`; 0 for the other patterns */
} traffic_flow;

/* Number of flows job j creates over `n_hosts` hosts (all iterations), or 0 with *e set on
 * invalid input. */
uint64_t traffic_flow_count(const scenario *sc, uint32_t j, uint32_t n_hosts, err *e);

/* Callback receiving each flow in a deterministic order: by iteration, then by start. */
typedef void (*traffic_flow_fn)(void *ctx, const traffic_flow *f);

/* Generate the flows of job j (validated by traffic_flow_count first). */
void traffic_flows(const scenario *sc, uint32_t j, uint32_t n_hosts, traffic_flow_fn fn, void *ctx);

/* The hosts of job j's index space (*n_space clients, then the storage servers): a new array,
 * or NULL when the index is the host itself (backend jobs). */
uint32_t *traffic_host_map(const scenario *sc, uint32_t j, const net *n, uint32_t *n_space);

/* uniform: the arrival rate of the whole job (flows per second) over `n` hosts. */
double traffic_arrival_rate(const cfg_job *job, const scenario *sc, uint32_t n);
/* The job's mean flow size (bytes): the CDF's mean, or `size`. */
double traffic_mean_bytes(const cfg_job *job);

#endif
