/*
 * nscc.c — NSCC's window update (see nscc.h for the control law and its sources).
 */
#include "nscc.h"

/* The reference network NSCC's constants are stated for: 100 Gb/s, 12 us base RTT. */
#define NSCC_REF_BPS 100e9
#define NSCC_REF_RTT_PS (12.0 * SIM_US)

void nscc_params_init(nscc_params *p, const cfg_nscc *c, uint64_t line_bps, uint32_t mtu)
{
    p->mtu = (double)mtu;
    p->base_rtt_ps = c->base_rtt_ps;
    p->target_ps = c->target_delay_ps;
    p->bdp = (double)line_bps / 8.0 * (double)c->base_rtt_ps / 1e12;
    if (p->bdp < p->mtu)
        p->bdp = p->mtu;
    p->max_wnd = 1.5 * p->bdp;
    double ref_bdp = NSCC_REF_BPS / 8.0 * NSCC_REF_RTT_PS / 1e12;
    double a = p->bdp / ref_bdp, b = (double)c->target_delay_ps / NSCC_REF_RTT_PS;
    p->alpha = 4.0 * a * b * p->mtu / (double)c->target_delay_ps;
    p->fi = 5.0 * a;
    p->eta = 0.15 * p->mtu * a;
    p->gamma = 0.8;
    p->delay_ewma = 0.0125;
    p->adjust_bytes = 16000.0 * b;
    p->qa_delay_ps = 4 * c->target_delay_ps;
    p->fast_delay_ps = SIM_US;
}

void nscc_init(nscc_state *s, const nscc_params *p, sim_time now)
{
    *s = (nscc_state){0};
    s->cwnd = p->max_wnd;
    s->min_rtt_ps = SIM_TIME_MAX;
    s->last_adjust_ps = s->last_eta_ps = now;
    s->last_dec_ps = 0;
    s->qa_end_ps = now + p->base_rtt_ps + p->target_ps;
}

static void clamp(nscc_state *s, const nscc_params *p)
{
    if (s->cwnd < p->mtu)
        s->cwnd = p->mtu;
    if (s->cwnd > p->max_wnd)
        s->cwnd = p->max_wnd;
}

/* Quick adapt at the end of each measurement window: true when it set the window. */
static bool quick_adapt(nscc_state *s, const nscc_params *p, sim_time now, uint64_t inflight)
{
    if (now < s->qa_end_ps)
        return false;
    bool fire = s->qa_armed || s->avg_delay_ps > (double)p->qa_delay_ps;
    double achieved = s->achieved;
    s->achieved = 0;
    s->qa_end_ps = now + p->base_rtt_ps + p->target_ps;
    if (!fire || achieved >= s->cwnd)
        return false;
    s->cwnd = achieved;
    clamp(s, p);
    s->qa_armed = false;
    s->ignore_bytes = (double)inflight;
    s->inc = 0;
    s->fast = false;
    s->fi_count = 0;
    return true;
}

void nscc_on_ack(nscc_state *s, const nscc_params *p, sim_time now, uint64_t acked, bool ecn,
                 sim_time rtt_ps, uint64_t inflight)
{
    double b = (double)acked;
    if (rtt_ps < s->min_rtt_ps)
        s->min_rtt_ps = rtt_ps;
    double d = (double)(rtt_ps - s->min_rtt_ps), t = (double)p->target_ps;
    s->avg_delay_ps += p->delay_ewma * (d - s->avg_delay_ps);
    s->achieved += b;
    if (s->ignore_bytes > 0) {
        s->ignore_bytes -= b;
        if (ecn)
            return; /* a mark on what was sent before quick adapt cut the window */
    }
    if (quick_adapt(s, p, now, inflight))
        return;
    if (!ecn) {
        if (d < t) {
            /* fast increase: a whole window acknowledged with (almost) no queueing */
            if (d < (double)p->fast_delay_ps) {
                s->fi_count += b;
                if (s->fast || s->fi_count > s->cwnd) {
                    s->fast = true;
                    s->cwnd += b / 2;
                    clamp(s, p);
                    return;
                }
            } else {
                s->fi_count = 0;
                s->fast = false;
            }
            s->inc += p->alpha * (t - d) * b;
        }
        s->inc += p->fi * p->mtu * b; /* fair increase (both no-mark cases) */
    } else {
        s->fast = false;
        s->fi_count = 0;
        if (d >= t && s->avg_delay_ps > t && now - s->last_dec_ps > p->base_rtt_ps) {
            double f = 1.0 - p->gamma * (s->avg_delay_ps - t) / s->avg_delay_ps;
            s->cwnd *= f < 0.5 ? 0.5 : f;
            s->last_dec_ps = now;
        }
        /* marked with a short delay: no change */
    }
    s->acked_since_adjust += b;
    if (s->acked_since_adjust > p->adjust_bytes || now - s->last_adjust_ps > p->base_rtt_ps) {
        double add = s->inc / s->cwnd;
        s->cwnd += add < p->adjust_bytes ? add : p->adjust_bytes;
        s->inc = 0;
        s->acked_since_adjust = 0;
        s->last_adjust_ps = now;
    }
    if (now - s->last_eta_ps > p->base_rtt_ps) {
        s->cwnd += p->eta;
        s->last_eta_ps = now;
    }
    clamp(s, p);
}

void nscc_on_loss(nscc_state *s, const nscc_params *p, sim_time now, uint64_t bytes,
                  uint64_t inflight)
{
    s->cwnd -= (double)bytes;
    clamp(s, p);
    s->fast = false;
    s->fi_count = 0;
    s->qa_armed = true;
    if (s->ignore_bytes <= 0)
        quick_adapt(s, p, now, inflight);
}
