/*
 * sampler.h — the time-series sampler: one periodic event that records, every
 * `telemetry.sample_interval`, for a bounded set of egress ports:
 *   queue_bytes      q_total_bytes at the tick (all classes; after decimation: the max of the
 *                    merged ticks, so a peak is never averaged away)
 *   utilization      line bytes the port *started* in the interval / (rate × interval); a frame
 *                    is counted in the interval its serialization starts, so a value may exceed
 *                    1 by up to one frame's share (it averages out over consecutive intervals)
 *   pfc_paused_mask  p->paused at the tick (classes the peer holds paused); OR when merged
 * and, when the transport provides a rate callback, the DCQCN pacing rate of each QP.
 *
 * Port selection: every egress port (switch ports first, then host NIC ports) up to
 * SAMPLER_MAX_PORTS; beyond that the switch ports of the highest tiers first (spine and
 * super-spine links carry the fabric-wide story; leaf→host ports are where incast shows, so
 * they come next), host NIC ports last. timeseries.csv then leaves out ports that never queued,
 * paused or sent, so its size follows the activity, not the fabric.
 *
 * Bounded memory whatever the run length: the samples live in a fixed table of `cap_rows` rows
 * sized from a byte budget (SAMPLER_BUDGET_BYTES, 16 MiB, by default) and at most
 * SAMPLER_MAX_ROWS (2048: more points than a chart has pixels, and a CSV that stays readable). When it is full,
 * adjacent rows are merged pairwise (queue: max, utilization and rate: mean, paused: OR), the
 * effective interval doubles and so does the tick period — a long run costs fewer events per
 * simulated second, never more memory. Each row keeps the end time and the length of the
 * interval it covers (merges weight means by length).
 *
 * Idle skip: when a tick finds every sampled port idle (nothing sent in the interval, no queue,
 * no pause, nothing on the wire) and the next pending event lies beyond the next tick, the next
 * tick moves to the first multiple of Δ at or after that event; the row then covers the whole
 * gap. A timer firing long after the traffic (an RTO, a watchdog) costs one row, not thousands
 * of idle ones that would decimate the interesting part away.
 *
 * Termination rule: the sampler must not keep a finished simulation alive. Each tick, after
 * recording, it reschedules itself only if the event queue still holds another event
 * (evq_size(&sim->q) > 0 — its own event was popped before the handler ran). The last tick
 * therefore happens at the first multiple of Δ after the last other event, and the simulated
 * clock ends there (up to one Δ after the model's last event): see the report to the lead on
 * the run's end time. Under stop_at the sampler stops with everything else.
 *
 * No allocation after sampler_new: a tick reads counters and writes into the preallocated table.
 */
#ifndef WR_TELEMETRY_SAMPLER_H
#define WR_TELEMETRY_SAMPLER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/time.h"
#include "../net/net.h"

#define SAMPLER_BUDGET_BYTES ((size_t)16 << 20)
#define SAMPLER_MAX_PORTS 8192u
#define SAMPLER_MAX_QPS 4096u
#define SAMPLER_MIN_ROWS 16u
#define SAMPLER_MAX_ROWS 2048u

typedef struct sampler sampler;

/* The current pacing rate of QP `qp` in bits/s (DCQCN's RC; line rate when unlimited).
 * Provided by the transport; called once per QP per tick; must not change the simulation. */
typedef double (*sampler_rate_fn)(void *ctx, uint32_t qp);

/* Create the sampler for n (borrowed; must outlive it) and schedule its first tick at
 * `interval_ps` on n->sim. `budget_bytes` 0 = SAMPLER_BUDGET_BYTES. Returns new; aborts on OOM.
 * interval_ps must be > 0. */
sampler *sampler_new(net *n, sim_time interval_ps, size_t budget_bytes);
/* Also record the pacing rate of QPs [0, n_qps) (at most SAMPLER_MAX_QPS; the first ones are
 * kept) from `fn`. `qps_per_flow` maps a QP to its flow (flow = qp / qps_per_flow) in the CSV.
 * Call before the first tick (right after sampler_new); re-sizes the table, nothing recorded
 * yet is lost because nothing has been recorded. */
void sampler_set_rates(sampler *s, sampler_rate_fn fn, void *ctx, uint32_t n_qps,
                       uint32_t qps_per_flow);
/* Called at every tick before the ports are read: brings their counters up to now where the
 * model keeps them elsewhere during the run (the flow-level network: transport/flownet.h). */
typedef void (*sampler_sync_fn)(void *ctx);
void sampler_set_sync(sampler *s, sampler_sync_fn fn, void *ctx);
/* Cancel the pending tick (if any) and free. NULL is a no-op. The sim must still be alive. */
void sampler_free(sampler *s);

/* Introspection (tests, trace and report writers). */
uint32_t sampler_rows(const sampler *s);          /* rows recorded */
uint32_t sampler_cap_rows(const sampler *s);
sim_time sampler_interval(const sampler *s);      /* current tick period Δ (doubles on merge) */
uint64_t sampler_ticks(const sampler *s);         /* tick events executed (for event counts) */
size_t sampler_memory_bytes(const sampler *s);    /* heap bytes held, tables included */
uint32_t sampler_n_ports(const sampler *s);
const port *sampler_port(const sampler *s, uint32_t i);
sim_time sampler_row_time(const sampler *s, uint32_t row); /* end of row's interval */
uint64_t sampler_queue(const sampler *s, uint32_t row, uint32_t i);
double sampler_util(const sampler *s, uint32_t row, uint32_t i);
uint8_t sampler_paused(const sampler *s, uint32_t row, uint32_t i);
/* Largest queue of port i over all rows. */
uint64_t sampler_port_max_queue(const sampler *s, uint32_t i);

/* timeseries.csv: time_ps,port,queue_bytes,utilization,pfc_paused_mask — one line per (row,
 * port) for ports that ever queued, paused or sent; rows in time order, ports in net order.
 * Returns 0 or -1 on a stream error. */
int sampler_write_csv(FILE *f, const sampler *s);
/* dcqcn_rates.csv: time_ps,qp,flow,rate_bps (only when rates were recorded; returns 0 and
 * writes the header only otherwise). */
int sampler_write_rates_csv(FILE *f, const sampler *s);
/* True when a rate callback was set. */
int sampler_has_rates(const sampler *s);

#endif
