/*
 * nscc.h — NSCC, Ultra Ethernet's sender congestion control (Network-Signal-based CC): a
 * congestion window in bytes driven by two signals, the ECN mark an ACK echoes and the queueing
 * delay its RTT sample shows. Sources: the UE 1.0 specification's NSCC as its authors summarize
 * it (Hoefler et al., "Ultra Ethernet's Design Principles and Architectural Innovations", arXiv
 * 2508.08906, §congestion control), the SMaRTT-REPS / FASTFLOW control law it derives from, and
 * htsim's UEC model (uec.cpp, UecSrc::updateCwndOnAck_NSCC and initNsccParams), the reference
 * simulator of the UEC transport working group; re-derived here, not copied.
 *
 * Per ACK of `acked` newly acknowledged bytes, with ECN echo e and queueing delay d = RTT −
 * (the QP's smallest RTT so far) against the target T:
 *   !e, d <  T   proportional increase: inc += α·(T − d)·acked, plus the fair increase
 *                (and fast increase: after a whole window of ACKs with d < 1 µs, cwnd grows by
 *                acked/2 per ACK until a sample says otherwise)
 *   !e, d >= T   fair increase: inc += fi·MTU·acked (a few MTUs per RTT, whatever the share)
 *    e, d >= T   multiplicative decrease, at most once per base RTT:
 *                cwnd ·= max(1 − γ·(D − T)/D, 1/2), D the delay's moving average (weight 1/80)
 *    e, d <  T   no change: the mark is from a queue that is draining, or a path's, not the
 *                connection's — the entropy is not recycled (REPS, uet.h) and that is enough
 * Increases are applied in batches: once `adjust_bytes` more bytes were acknowledged or a base
 * RTT has passed, cwnd += min(adjust_bytes, inc / cwnd) and inc = 0; and every base RTT cwnd
 * also grows by η. A NACK (a trimmed packet) or a retransmission timeout takes the lost bytes off
 * cwnd and arms quick adapt: at the end of the current measurement window (base RTT + T) cwnd is
 * set to the bytes acknowledged in that window — what the path really delivered — and the marks
 * of the bytes then in flight are ignored (they were sent under the old window). Quick adapt also
 * fires when D exceeds 4·T. cwnd stays within [MTU, 1.5·BDP]; a connection starts at 1.5·BDP.
 *
 * Constants scale from the reference network NSCC's constants were set for (100 Gb/s, 12 µs):
 * a = BDP / (100 Gb/s × 12 µs), b = T / 12 µs; α = 4·a·b·MTU / T, fi = 5·a, η = 0.15·MTU·a,
 * γ = 0.8, adjust_bytes = 16000·b — htsim's initNsccParams. BDP = line rate × base_rtt.
 * The window is a real (bytes) as the control law defines it.
 */
#ifndef WR_TRANSPORT_NSCC_H
#define WR_TRANSPORT_NSCC_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/time.h"

typedef struct nscc_params {
    double mtu;          /* bytes of payload per full packet */
    double bdp, max_wnd; /* bytes */
    double alpha;        /* proportional increase, per ps of delay below target */
    double fi;           /* fair increase, MTUs per window of ACKs */
    double eta;          /* bytes added every base RTT */
    double gamma;        /* multiplicative decrease gain */
    double delay_ewma;   /* weight of a new delay sample in D */
    double adjust_bytes; /* batch size of increases */
    sim_time target_ps, base_rtt_ps, qa_delay_ps, fast_delay_ps;
} nscc_params;

typedef struct nscc_state {
    double cwnd, inc;
    double avg_delay_ps;       /* D */
    double acked_since_adjust; /* bytes */
    double fi_count;           /* bytes acknowledged with d < fast_delay in a row */
    double achieved;           /* bytes acknowledged in the current quick-adapt window */
    double ignore_bytes;       /* quick adapt: marks on this many more acked bytes ignored */
    sim_time min_rtt_ps;       /* smallest RTT sample: the base the delay is measured from */
    sim_time last_dec_ps, last_adjust_ps, last_eta_ps, qa_end_ps;
    bool fast, qa_armed;
} nscc_state;

/* Parameters from nic.nscc for a NIC port of `line_bps` and a payload MTU of `mtu` bytes. */
void nscc_params_init(nscc_params *p, const cfg_nscc *c, uint64_t line_bps, uint32_t mtu);
/* A connection starts with the maximum window at time `now`. */
void nscc_init(nscc_state *s, const nscc_params *p, sim_time now);
/* An ACK acknowledged `acked` new bytes; `ecn` its CE echo, `rtt_ps` its RTT sample, at `now`;
 * `inflight` the bytes still outstanding after it. */
void nscc_on_ack(nscc_state *s, const nscc_params *p, sim_time now, uint64_t acked, bool ecn,
                 sim_time rtt_ps, uint64_t inflight);
/* `bytes` were lost (a NACK for a trimmed packet, or a retransmission timeout) at `now`;
 * `inflight` as above. */
void nscc_on_loss(nscc_state *s, const nscc_params *p, sim_time now, uint64_t bytes,
                  uint64_t inflight);

#endif
