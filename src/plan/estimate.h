/*
 * estimate.h — how much memory a run will take, known before the run is built, so that a
 * scenario that cannot fit is refused in milliseconds (exit 3, with the estimate) instead of
 * dying after minutes by the allocator or the OOM killer.
 *
 * What grows with the scenario, part by part (sizes from the structs that hold them):
 *   fabric       nodes, ports with their 8 class queues, FIBs (one uint32 per switch and host),
 *                ECMP groups — measured from a dry build of the topology (milliseconds; the
 *                fabric is the small part) rather than re-derived per preset
 *   packets      the packet pool at its peak: what the switch buffers and the links can hold,
 *                plus a window per QP
 *   transport    flows (connections) and their QPs, messages and pieces, flow records and FCTs
 *   collectives  plans: ⌈bytes / chunk⌉ transfers for every (rank, step, channel) slot of the
 *                algorithm, ~52 bytes each with the executor's state (collective.h: a 1024-rank
 *                ring all_reduce of 1 GiB on 8 channels is 16.8 M transfers)
 *   training     the iteration DAG (tasks × 64 B, edges, per-task executor state, start/end
 *                times per iteration) and the plans of its cross-server collectives
 *   telemetry    sampler (bounded by SAMPLER_BUDGET_BYTES), trace (≤ 100 000 flows), pcap
 *                (one frame buffer: the capture streams to disk)
 *   base         the process itself (code, libc, libyaml, the scenario): 2.5 MiB
 * The estimate is meant to be within a factor of 2 of the measured peak RSS either way for runs
 * above a few tens of MB (tests/test_estimate.c checks it on several sizes); below that the base
 * dominates and the factor does not matter.
 *
 * Library code: never prints; the CLI formats mem_estimate and decides.
 */
#ifndef WR_PLAN_ESTIMATE_H
#define WR_PLAN_ESTIMATE_H

#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"

enum mem_part {
    MEM_BASE, MEM_FABRIC, MEM_PACKETS, MEM_TRANSPORT, MEM_COLLECTIVES, MEM_TRAINING,
    MEM_TELEMETRY, MEM_PARTS
};

typedef struct mem_estimate {
    uint64_t part[MEM_PARTS];  /* bytes */
    uint64_t total;
    int32_t biggest_job;       /* the job with the largest share, -1 if none */
    uint64_t biggest_job_bytes;
} mem_estimate;

/*
 * Estimate the run of sc (borrowed). Builds the topology once (and frees it) to count ports and
 * routes. Returns ERR_OK, or the error of that build (ERR_INVALID with *e set, as run_new would
 * report it).
 */
int mem_estimate_run(const scenario *sc, mem_estimate *out, err *e);

const char *mem_part_name(enum mem_part p);

/*
 * Memory this process may still use, in bytes: MemAvailable of /proc/meminfo (what the kernel
 * can hand out without swapping, Linux ≥ 3.14), else free pages × page size (sysconf), lowered
 * to what a cgroup v2 memory.max still allows and to RLIMIT_AS / RLIMIT_DATA when one is set.
 * 0 when unknown. *source names where it came from.
 */
uint64_t mem_available_bytes(const char **source);

#endif
