/*
 * ideal.h — the lower bound this fabric allows for a job's completion time, so that every JCT
 * is read against what the hardware could have done ("JCT 7.59 ms = 5.6 × the 1.36 ms ideal").
 *
 * Each bound is a true lower bound of the model (a run on an idle fabric cannot beat it) and
 * says what it is in `basis`:
 *   traffic     the busiest host: its bytes on the wire (frames of nic.mtu payload, headers,
 *               preamble and inter-frame gap counted per frame exactly as the model sends them,
 *               a message split into one piece per QP as the transport splits it)
 *               at its link's line rate, plus the latency of one frame along its path (cable
 *               propagation, switch pipelines, store-and-forward at each switch egress);
 *               with arrivals spread in time (pattern uniform), at least the last arrival plus
 *               its own flow alone; repeated jobs add their iterations' bounds.
 *   collective  the larger of two bounds from the job's own transfer plan: (β) the busiest
 *               server's fabric bytes at the line rate of its NICs, or a GPU's NVLink bytes at
 *               the scale-up rate; (α–β) the plan's dependency chain with each transfer at full
 *               rate alone plus its path latency and reduction time. Contention, PFC, DCQCN and
 *               chunk pipelining limits are what the ratio measures.
 *   training    the DAG evaluated with unlimited concurrency (train_eval_ideal): compute at
 *               nominal speed (no straggler), communication at α–β with α = 0 on the
 *               bottleneck: NVLink for groups inside a server, the NIC's goodput otherwise;
 *               plus the storage I/O the steps wait for (model load, synchronous checkpoint
 *               writes, fixed checkpoint stalls) at the storage network's aggregate rate.
 */
#ifndef WR_WORKLOAD_IDEAL_H
#define WR_WORKLOAD_IDEAL_H

#include <stddef.h>
#include <stdint.h>

#include "../net/net.h"
#include "../transport/nic.h"
#include "collective.h"
#include "training.h"

/* Line bytes (frames incl. preamble and IFG) that carry a message of `bytes` payload with
 * `mtu`-byte payload frames: what the model serializes (the first frame carries the RETH). */
uint64_t ideal_wire_bytes(uint64_t bytes, uint32_t mtu);

/* Traffic job: flows[0..n) (borrowed); flow i starts at_ps[i] after its iteration's start
 * (at_ps NULL = all at 0); iteration k holds flows [iter_end[k-1], iter_end[k]) (iter_end NULL
 * = one iteration). Per iteration the larger of the busiest-host bound and, for every flow, its
 * arrival plus its own bytes at the slower of its two host links plus its path latency; the
 * iterations' bounds add up (each starts when the previous one ends). Returns the bound,
 * writes its basis into buf. */
sim_time ideal_traffic(const net *n, uint32_t mtu, const flow *flows, uint64_t n_flows,
                       const sim_time *at_ps, const uint64_t *iter_end, uint32_t n_iter,
                       char *basis, size_t len);

/* One flow alone on an idle fabric: its bytes at the slower of its two host links plus its
 * path latency (0 for a flow without bytes; the scale-up rate for a fluid flow). A `list`
 * flow that waits for others can start no earlier than their ends alone: the run chains these
 * to place it for ideal_traffic. */
sim_time ideal_flow_alone(const net *n, uint32_t mtu, const flow *f);

/* Collective job: plan `pl` of one iteration with rank r on host host_of_rank[r] (borrowed);
 * the bound is for `iterations` iterations. Allocates temporaries only. */
sim_time ideal_collective(const net *n, uint32_t mtu, const coll_plan *pl,
                          const uint32_t *host_of_rank, uint32_t iterations, char *basis,
                          size_t len);

/* Chakra job (chakra_plan.h): plan p with rank r on GPU gpu_of_rank[r], `iterations`
 * iterations. The DAG with unlimited concurrency (a GPU's compute nodes may overlap: a bound),
 * compute at its duration, each collective and message at α = 0 and the bandwidth of where it
 * runs: NIC goodput when every group of that class (collectives; messages) spans servers, the
 * scale-up rate when none does, the faster of the two when some do. */
sim_time ideal_chakra(const net *n, uint32_t mtu, const train_plan *p, const uint32_t *gpu_of_rank,
                      uint32_t iterations, char *basis, size_t len);

/* Training job: plan p, `iterations` iterations. *nominal_compute receives the busiest rank's
 * compute time of one iteration at nominal speed (no gpu-slow factor). */
/* The rate a job's storage I/O (checkpoint writes, model load) can reach: the narrower of the
 * storage servers' links summed and the job's storage clients' links summed (the NICs
 * net_storage_client gives its GPUs); 0 without storage. */
uint64_t ideal_storage_bps(const net *n, const uint32_t *gpus, uint32_t n_gpus);
/* `bytes` as one message (frames of `mtu` payload) on the wire at `bps`; 0 when either is 0. */
sim_time ideal_line_ps(uint64_t bytes, uint32_t mtu, uint64_t bps);
sim_time ideal_training(const net *n, uint32_t mtu, const train_plan *p, uint32_t iterations,
                        sim_time *nominal_compute, char *basis, size_t len);

#endif
