/*
 * dcqcn.h — DCQCN congestion control: the reaction point (sender, per QP) and the notification
 * point's CNP pacing (receiver, per QP). Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015, §3.1–3.2 and the parameters of §5 (as in the Mellanox firmware
 * description the paper follows).
 *
 * Reaction point, per QP (rates are reals in bits/s: the paper's control law):
 *   on CNP:         RT ← RC;  RC ← RC·(1 − α/2);  α ← (1 − g)·α + g   (α updated after the cut);
 *                   the timer and byte-counter stages reset to 0, the byte count to 0, and the
 *                   period timer restarts (its next expiry one `timer` after the CNP).
 *   timer expiry:   α ← (1 − g)·α (no CNP in the last period), then T ← T + 1 and one increase.
 *   byte counter:   every `byte_counter` bytes sent, BC ← BC + 1 and one increase.
 *   increase:       fast recovery  if max(T, BC) < F:  RC ← (RT + RC)/2
 *                   additive       if max(T, BC) ≥ F > min(T, BC):  RT ← RT + R_AI, then as above
 *                   hyper          if min(T, BC) ≥ F:  RT ← RT + R_HAI·(min(T, BC) − F + 1),
 *                                  then as above (variant: the paper's "i·R_HAI" with i counting
 *                                  hyper steps, i = 1 at the first one)
 *   clamps:         RT ≤ line rate;  min_rate ≤ RC ≤ line rate.
 * Variant choices (documented in docs/scenario.md):
 * - The α timer (K) and the rate-increase timer (T) share the period `timer` (55 µs, the
 *   paper's value for both) and the phase (both restart at a CNP), so one event serves both.
 * - Initial state: α = 1, RC = RT = line rate, not limited (the paper starts the rate limiter
 *   at the first CNP). A QP runs its timer only while limited (RC < line). When an increase
 *   brings RC within DCQCN_LINE_EPS of the line rate, RC = RT = line and the timer stops; the α
 *   decay it would have applied meanwhile is applied in closed form at the next CNP,
 *   α·(1 − g)^n with n whole periods since the last α update — the same value the ticking timer
 *   would reach, without events for QPs that are not congested (so idle runs end).
 *
 * Notification point: at most one CNP per QP per `cnp_interval` (the first CE mark always
 * produces one).
 */
#ifndef WR_TRANSPORT_DCQCN_H
#define WR_TRANSPORT_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/time.h"

/* Relative distance to the line rate under which RC snaps to it (and the timer stops). At
 * 400 Gbps this is 400 kbps, less than one picosecond of pacing per 4 KiB frame. */
#define DCQCN_LINE_EPS 1e-6

typedef struct dcqcn_params {
    double g;
    double rai_bps, rhai_bps;
    double line_bps, min_bps;
    sim_time timer_ps;
    uint64_t byte_counter_bytes;
    uint32_t fast_recovery;    /* F */
    sim_time cnp_interval_ps;
} dcqcn_params;

typedef struct dcqcn_rp {
    double rc_bps, rt_bps, alpha;
    uint32_t t_stage, bc_stage;
    uint64_t bytes;            /* sent since the last byte-counter expiry (or CNP) */
    sim_time alpha_ps;         /* time of the last α update (decay or CNP) */
    bool limited;              /* RC below line: the period timer runs */
} dcqcn_rp;

/* Parameters from the scenario's nic.dcqcn for a NIC port of `line_bps`. */
void dcqcn_params_init(dcqcn_params *p, const cfg_dcqcn *c, uint64_t line_bps);
void dcqcn_rp_init(dcqcn_rp *rp, const dcqcn_params *p);
/* A CNP reached the reaction point at `now`. Afterwards the timer must expire at
 * now + p->timer_ps (the caller owns the event). */
void dcqcn_on_cnp(dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* The period timer expired at `now`: α decay, T stage, one increase. Returns rp->limited (the
 * timer keeps running while limited). */
bool dcqcn_on_timer(dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* `bytes` more were sent; runs one increase per byte-counter expiry. No-op when not limited.
 * Returns true when RC changed. */
bool dcqcn_on_bytes(dcqcn_rp *rp, const dcqcn_params *p, uint64_t bytes);
/* The pacing rate in integer bits/s (RC rounded down, at least 1). */
static inline uint64_t dcqcn_rate_bps(const dcqcn_rp *rp)
{
    uint64_t r = (uint64_t)rp->rc_bps;
    return r ? r : 1;
}

/* Notification point: may a CNP for this QP go out at `now`? Updates *last_ps when it may. */
static inline bool dcqcn_np_may_send(sim_time *last_ps, bool *ever, sim_time now,
                                     sim_time interval_ps)
{
    if (*ever && now - *last_ps < interval_ps)
        return false;
    *ever = true;
    *last_ps = now;
    return true;
}

#endif
