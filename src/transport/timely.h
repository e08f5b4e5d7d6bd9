/*
 * timely.h — TIMELY, the RTT-gradient rate control for RDMA (Mittal et al., "TIMELY: RTT-based
 * Congestion Control for the Datacenter", SIGCOMM 2015, §4 Algorithm 1; parameters §5 and
 * Table 1). `nic.cc: timely` on RoCEv2: a delay-based alternative to DCQCN that needs no switch
 * support (no ECN marking, no CNPs), only the NIC's completion timestamps.
 *
 * Per QP, one update per completion event (the acknowledgement of `segment` more bytes, as the
 * paper samples RTT per 16–64 KB segment, not per packet), with RTT sample r:
 *   new_diff  = r − prev_rtt;  prev_rtt = r
 *   rtt_diff  = (1 − α)·rtt_diff + α·new_diff            (EWMA of the RTT difference)
 *   gradient  = rtt_diff / min_rtt                        (normalized)
 *   r < T_low:           rate ← rate + δ                  (additive increase)
 *   r > T_high:          rate ← rate·(1 − β·(1 − T_high/r)) (multiplicative decrease)
 *   gradient ≤ 0:        rate ← rate + N·δ, N = hai_n once the gradient has been ≤ 0 for hai_n
 *                        completion events in a row (hyperactive increase), else N = 1
 *   gradient > 0:        rate ← rate·(1 − β·gradient)
 * then min_rate ≤ rate ≤ line. The first sample only sets prev_rtt (there is no difference yet)
 * and applies the T_low / T_high rules.
 *
 * The paper's constants (Table 1, 10 Gb/s NICs): α 0.875, β 0.8, δ 10 Mbps, T_low 50 µs,
 * T_high 500 µs, min RTT 20 µs, N 5, segments of 16–64 KB. They are `nic.timely`'s defaults:
 * no 400G deployment of TIMELY has published its constants, so the paper's are the only sourced
 * ones; every one is a scenario key. The rate is a real (bits/s), as the paper defines it.
 */
#ifndef WR_TRANSPORT_TIMELY_H
#define WR_TRANSPORT_TIMELY_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/time.h"

typedef struct timely_params {
    double line_bps, min_bps;
    double add_bps; /* δ */
    double beta;    /* β */
    double ewma;    /* α: weight of the new RTT-difference sample */
    sim_time t_low_ps, t_high_ps, min_rtt_ps;
    uint32_t hai_n;         /* N */
    uint64_t segment_bytes; /* acknowledged bytes per completion event */
} timely_params;

typedef struct timely_state {
    double rate_bps;
    double rtt_diff_ps; /* EWMA of RTT differences, signed */
    sim_time prev_rtt_ps;
    uint32_t neg_run; /* completion events in a row with gradient ≤ 0 */
    bool have_prev;
    uint64_t acked_bytes; /* since the last completion event */
} timely_state;

/* Parameters from nic.timely for a NIC port of `line_bps`. */
void timely_params_init(timely_params *p, const cfg_timely *c, uint64_t line_bps);
/* A QP starts at line rate. */
void timely_init(timely_state *s, const timely_params *p);
/* One completion event with RTT sample `rtt_ps` (Algorithm 1). Returns true when the rate
 * changed. */
bool timely_on_rtt(timely_state *s, const timely_params *p, sim_time rtt_ps);
/* `bytes` more were acknowledged; true when that completes a segment (take an RTT sample). */
static inline bool timely_on_acked(timely_state *s, const timely_params *p, uint64_t bytes)
{
    s->acked_bytes += bytes;
    if (s->acked_bytes < p->segment_bytes)
        return false;
    s->acked_bytes %= p->segment_bytes;
    return true;
}

#endif
