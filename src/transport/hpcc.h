/*
 * hpcc.h — HPCC, High Precision Congestion Control (Li et al., "HPCC: High Precision Congestion
 * Control", SIGCOMM 2019, §3, Algorithm 1; deployed on Alibaba's RDMA fabrics). `nic.cc: hpcc`
 * on RoCEv2: a window-based sender driven by in-band telemetry (INT, net/inttel.h) that every
 * switch on the path stamps into data packets and the receiver echoes in ACKs.
 *
 * Per QP, with T its base RTT (the unloaded round trip of its path: a full data frame out and
 * an ACK back, every link's propagation and serialization and every switch's pipeline) and
 * W_init = line · T (one bandwidth-delay product):
 *   MeasureInflight(ack): for every hop j, against the records L of the previous ACK,
 *     txRate_j = (ack.txBytes_j − L.txBytes_j) / (ack.ts_j − L.ts_j)
 *     u_j      = min(ack.qLen_j, L.qLen_j) / (B_j · T) + txRate_j / B_j
 *   u = max_j u_j, τ = the ts difference of that hop, at most T;
 *   U ← (1 − τ/T)·U + (τ/T)·u                        (an EWMA over about one RTT)
 *   ComputeWind(U, updateWc):
 *     U ≥ η or incStage ≥ maxStage:  W = Wc / (U/η) + W_AI   (multiplicative, to reach η)
 *                                    updateWc: incStage ← 0, Wc ← W
 *     otherwise:                     W = Wc + W_AI            (additive increase)
 *                                    updateWc: incStage ← incStage + 1, Wc ← W
 *   NewAck(ack): updateWc when ack.seq > lastUpdateSeq (then lastUpdateSeq ← snd_nxt): the
 *     reference window Wc moves once per RTT, W at every ACK; the sender is paced at R = W/T
 *     and keeps at most W bytes in flight.
 * The first ACK (no previous records) and an ACK whose records come from other switch ports
 * than the previous one's (a route change, or per-packet load balancing putting two packets
 * on different paths) only store the records: differences across two paths mean nothing. W is
 * capped at W_init (line rate); it never falls below W_AI, which the formula always adds.
 *
 * Constants: η = 0.95 and maxStage = 5 (paper §3.3, §5.1); W_AI = ai_rate · T with ai_rate =
 * 10·bw/25 Mb/s for a line of bw Gb/s (the authors' ns-3 artifact, alibaba-edu/High-Precision-
 * Congestion-Control run.py, RATE_AI; 160 Mb/s at 400G), W_init(1 − η)/N for N ≈ 125 flows,
 * inside the paper's guidance (§3.3: W_AI = W_init(1 − η)/N, N the expected number of flows on
 * a link). The window is a real (bytes), as the paper defines it.
 */
#ifndef WR_TRANSPORT_HPCC_H
#define WR_TRANSPORT_HPCC_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/time.h"
#include "../net/inttel.h"
#include "../net/net.h"

typedef struct hpcc_params {
    double eta;
    uint32_t max_stage;
    double line_bps;
    double ai_bps; /* W_AI / T */
} hpcc_params;

typedef struct hpcc_state {
    sim_time t_ps;       /* T: the QP's base RTT */
    double w_init, w_ai; /* bytes */
    double w, wc;        /* window and reference window, bytes */
    double u;            /* U, the EWMA of the path's bottleneck utilization */
    uint32_t inc_stage;
    uint32_t last_update_psn;
    bool have_prev;
    int_rec prev; /* L: the INT records of the previous ACK */
} hpcc_state;

/* Parameters from nic.hpcc for a NIC port of `line_bps`. */
void hpcc_params_init(hpcc_params *p, const cfg_hpcc *c, uint64_t line_bps);
/* A QP with base RTT t_ps starts at W = Wc = W_init (line rate). */
void hpcc_init(hpcc_state *s, const hpcc_params *p, sim_time t_ps);
/* MeasureInflight: U updated from the ACK's records `r` against the previous ones; returns U.
 * Call only with s->have_prev and the same hop count. */
double hpcc_measure(hpcc_state *s, const int_rec *r);
/* ComputeWind: the window for utilization U; moves Wc when update_wc. */
double hpcc_window(hpcc_state *s, const hpcc_params *p, double u, bool update_wc);
/* NewAck: an ACK cumulative to `ack_psn` carrying records r, the requester's snd_nxt now.
 * Returns true when W changed (the caller re-paces at hpcc_rate_bps). */
bool hpcc_on_ack(hpcc_state *s, const hpcc_params *p, const int_rec *r, uint32_t ack_psn,
                 uint32_t snd_nxt);
/* R = W / T, in bits/s, at most the line. */
static inline double hpcc_rate_bps(const hpcc_state *s, const hpcc_params *p)
{
    double r = s->w * 8.0 * 1e12 / (double)s->t_ps;
    return r < p->line_bps ? r : p->line_bps;
}

/* T of the path src -> dst: a data frame of `data_line` line bytes out and an ACK of
 * `ack_line` back, along the routes' first ECMP members (equal-cost paths have the same hop
 * count; speeds may differ on custom fabrics). */
sim_time hpcc_base_rtt(const net *n, uint32_t src, uint32_t dst, uint32_t data_line,
                       uint32_t ack_line);

#endif
