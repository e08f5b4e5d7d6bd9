/*
 * flownet.h — the flow-level network (`sim.fidelity: flow`, `--fidelity flow`): the transport's
 * messages as fluid flows on the same topology, routing and load balancing as the packet model,
 * at max-min fair rates (net/fluid.h). docs/fidelity.md describes the model and its
 * cross-validation against the packet model.
 *
 * The executors do not know which fidelity runs: transport_post dispatches a message between
 * two hosts of the fabric here instead of cutting it into packets (nic.c); messages inside a
 * server keep the packet model's own NVLink fluid (nic.h transport_flow_add). Per QP:
 * - A message's piece (the QP's share, as nic.c splits it) is sent as one fluid flow of the line
 *   bits its frames would take (each frame's headers, RETH on the first, preamble and IFG:
 *   wire_data_frame + WIRE_LINE_EXTRA), so link capacity is the line rate and the payload
 *   efficiency is the packet model's exactly. A QP sends its pieces in order, one at a time
 *   (RC); the QPs of a NIC share its line max-min fairly (the NIC's round robin, in fluid).
 * - One event per message: a piece alone on its links at a fast-path rate, its QP's only one,
 *   has its arrival scheduled at its start and no event for its last bit leaving; its fluid flow
 *   is settled lazily (flownet.c stream_lazify), with the same results.
 * - A piece reaches the receiver when its last bit has left the sender plus the latency of its
 *   last frame along its path: every cable's propagation and switch pipeline (port deliver_ps)
 *   and the frame's serialization at every hop after the first (store and forward). On an idle
 *   fabric this is the packet model's time to the picosecond when every frame serializes in
 *   whole picoseconds (docs/fidelity.md).
 * - Path: the QP's packets' own path. ECMP (and collective placement, and the `random` hash once
 *   per flow) asks the switch's balancer with a packet carrying the QP's addresses and UDP
 *   source port, so a flow takes exactly the member its packets would. spray (and UET, whose
 *   every packet takes a fresh entropy) splits the piece evenly over up to FLOWNET_SPRAY_MAX
 *   paths: path k takes member (k's mixed-radix digit) at each hop. adaptive and flowlet take,
 *   at each hop, the member with the least fluid load when the piece starts (ties: the hashed
 *   member first, as lb.c does).
 * - Faults: whenever a link goes down or up, changes speed, or routing changes (net.h
 *   net_changed), every flow's path is walked again: a flow whose path changed moves with what
 *   it had left; one whose path crosses a down link or has no route stalls (rate 0) until a
 *   change gives it a path. A QP stalled for its retry budget, rto × (retry_count + 1), fails
 *   as the packet model's QP does after its retries (on_fail; the job fails).
 * - Not modelled (packet-only): queues, ECN, PFC, drops, congestion control (the rates are the
 *   max-min allocation an ideal congestion control converges to), ACK/CNP frames, per-packet
 *   spray randomness, retransmissions. Counters that only packets make stay 0 and the outputs
 *   say "not modelled" (docs/output.md).
 *
 * Port counters: a link's tx bytes/frames and busy time accumulate the line bits each flow moved
 * over it (counted when the flow ends or moves, in compact per-link sums that reach the ports'
 * counters at the end of the run), so utilization is the fluid's. The sampler's time series
 * (timeseries.csv) therefore has no per-interval port figures at flow level (listed in
 * summary.json sim.flow_level.not_modelled).
 */
#ifndef WR_TRANSPORT_FLOWNET_H
#define WR_TRANSPORT_FLOWNET_H

#include <stdbool.h>
#include <stdint.h>

#include "nic.h"

#define FLOWNET_MAX_HOPS 16  /* links on a path (a 3-tier Clos with rail-only relays has 8) */
#define FLOWNET_SPRAY_MAX 64 /* paths a sprayed piece is split over */

typedef struct flownet flownet;

/* Create the flow-level network for transport t (its QP capacity). */
flownet *flownet_new(transport *t);
void flownet_free(flownet *fn);
/* Send message m (bytes > 0, between two hosts of the fabric) on flow f. */
void flownet_post(flownet *fn, flow *f, msg *m);
/* Flow f was aborted: its fluid flows stop, its queued pieces are flushed. */
void flownet_abort(flownet *fn, flow *f);
/* Walk every live flow's path again (routing or a link changed, or a failover moved flows). */
void flownet_reroute(flownet *fn);
/* End of the run: count the bits still-running flows moved so far into the port counters. */
void flownet_finish(flownet *fn);
/* The same during the run (the time-series sampler's tick): the ports' byte, frame and busy
 * counters become current. O(QPs + links). */
void flownet_sync(flownet *fn);
/* Pieces not yet arrived (sending, queued at their QP, or on their way): the run's drain
 * counter at flow level (the packet pool's live count at packet level). */
const uint64_t *flownet_live(const flownet *fn);
/* Payload of the pieces counted as sent (their last bit has left) that have not arrived. */
uint64_t flownet_inflight_bytes(const flownet *fn);
/* QP q's current sending rate (its streams' sum, bits/s): the telemetry's rate series. */
double flownet_qp_rate(const flownet *fn, uint32_t q);

typedef struct flownet_stats {
    uint64_t fluid_flows; /* fluid flows started (pieces × paths, re-routes included) */
    uint64_t coalesced;   /* pieces that continued their QP's running flow (no new flow) */
    uint64_t solves;      /* max-min recomputations (component solves) */
    uint64_t assignments; /* flow rates assigned by them */
    uint64_t fast;        /* flow starts and ends that needed no recomputation (fluid.c) */
    uint64_t commits;     /* instants at which rates were recomputed */
    uint64_t reroutes;    /* flows moved to another path by a routing change */
    uint64_t max_live;    /* most fluid flows alive at once (a lazy one until it is settled) */
    uint64_t one_event;   /* pieces whose end was not an event (lazy: flownet.c stream_lazify) */
    uint64_t woken;       /* of those, made ordinary again before their end (an event after all) */
    uint64_t reused;      /* fluid flows that were a held lazy flow refilled (no link touched) */
} flownet_stats;
void flownet_get_stats(const flownet *fn, flownet_stats *out);
/* One event per message (on by default): off, every piece's end is an event of its own — the
 * reference the lazy path is tested against (tests/test_flownet.c); the results are the same. */
void flownet_one_event(flownet *fn, bool on);
/* The successor hint (a prefetch of what an arrival's completion will post to: flownet.c
 * flownet_prefetch), on by default only when the connections' state outgrows the cache. It
 * changes no result (tests/test_flownet.c runs it on small scenarios); before the run only.
 * flownet_successor: the flow (and its first QP) that flow `flow_id`'s last completed message
 * posted to; false when it has learned none (or the hint is off). */
void flownet_successor_hint(flownet *fn, bool on);
bool flownet_successor(const flownet *fn, uint32_t flow_id, uint32_t *succ, uint32_t *q);

#endif
