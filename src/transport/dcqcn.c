/*
 * dcqcn.c — DCQCN reaction point as ConnectX NICs run it, the paper as one parameterisation
 * (model, sources and variant choices in dcqcn.h). Runs per CNP, per timer expiry and per sent
 * packet: no allocation, no per-µs events (α in closed form).
 */
#include "dcqcn.h"

#include <math.h>

#include "../core/hotpath.h"

void dcqcn_params_init(dcqcn_params *p, const cfg_dcqcn *c, uint64_t line_bps)
{
    p->line_bps = (double)line_bps;
    p->max_bps = c->rpg_max_rate_bps && (double)c->rpg_max_rate_bps < p->line_bps
                     ? (double)c->rpg_max_rate_bps
                     : p->line_bps;
    p->min_bps =
        (double)c->rpg_min_rate_bps < p->max_bps ? (double)c->rpg_min_rate_bps : p->max_bps;
    p->first_bps = (double)c->rate_to_set_on_first_cnp_bps;
    if (p->first_bps > p->max_bps)
        p->first_bps = p->max_bps;
    p->ai_bps = (double)c->rpg_ai_rate_bps;
    p->hai_bps = (double)c->rpg_hai_rate_bps;
    /* dce_tcp_g is the old α's weight in 1/1024 (see dcqcn.h on the two readings) */
    p->g = (double)(1024 - c->dce_tcp_g) / 1024.0;
    p->alpha0 = (double)c->initial_alpha_value / 1024.0;
    /* α is a 10-bit fraction, the cut α/Gd with Gd = 2^rpg_gd: fraction α·2^10/2^rpg_gd */
    p->gd_scale = ldexp(1.0, 10 - (int)c->rpg_gd);
    p->max_cut = (double)c->rpg_min_dec_fac / 100.0;
    p->monitor_ps = c->rate_reduce_monitor_period_ps;
    p->alpha_period_ps = c->dce_tcp_rtt_ps;
    p->time_reset_ps = c->rpg_time_reset_ps;
    p->byte_reset_bytes = c->rpg_byte_reset_bytes;
    p->threshold = c->rpg_threshold;
    p->clamp_tgt = c->clamp_tgt_rate;
    p->clamp_after_time_inc = c->clamp_tgt_rate_after_time_inc;
    p->hai_scaled = c->hai_scaled;
    p->cnp_gap_ps = c->min_time_between_cnps_ps;
    p->cnp_per_port = c->cnp_per_port;
}

void dcqcn_rp_init(dcqcn_rp *rp, const dcqcn_params *p)
{
    rp->rc_bps = rp->rt_bps = p->line_bps;
    rp->alpha = p->alpha0;
    rp->t_stage = rp->bc_stage = 0;
    rp->bytes = 0;
    rp->alpha_ps = rp->anchor_ps = rp->cut_ps = rp->inc_ps = 0;
    rp->started = rp->alpha_cnp = rp->pending = rp->recovering = rp->limited = false;
}

double dcqcn_alpha_at(const dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    if (!rp->started || !p->alpha_period_ps || now <= rp->alpha_ps)
        return rp->alpha;
    uint64_t n = (now - rp->alpha_ps) / p->alpha_period_ps;
    if (!n)
        return rp->alpha;
    double a = rp->alpha;
    if (rp->alpha_cnp) { /* the period the CNP arrived in ends with the increment */
        a = (1.0 - p->g) * a + p->g;
        n--;
    }
    return n ? a * pow(1.0 - p->g, (double)n) : a;
}

/* Bring α to `now`: apply the whole periods that ended since alpha_ps. */
static void alpha_advance(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    if (!p->alpha_period_ps || now <= rp->alpha_ps)
        return;
    uint64_t n = (now - rp->alpha_ps) / p->alpha_period_ps;
    if (!n)
        return;
    rp->alpha = dcqcn_alpha_at(rp, p, now);
    rp->alpha_ps += n * p->alpha_period_ps;
    rp->alpha_cnp = false;
}

static void cut(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    /* RT ← RC on the first cut after an increase (a byte-counter one, or a timer one with
     * clamp_tgt_rate_after_time_inc), or at every cut with clamp_tgt_rate */
    if (p->clamp_tgt || rp->bc_stage > 0 || (p->clamp_after_time_inc && rp->t_stage > 0))
        rp->rt_bps = rp->rc_bps;
    double f = rp->alpha * p->gd_scale;
    if (f > p->max_cut)
        f = p->max_cut;
    if (f > 1.0)
        f = 1.0;
    rp->rc_bps *= 1.0 - f;
    if (rp->rc_bps < p->min_bps)
        rp->rc_bps = p->min_bps;
    rp->t_stage = rp->bc_stage = 0;
    rp->bytes = 0;
    rp->inc_ps = now + p->time_reset_ps;
    rp->pending = false;
    rp->recovering = rp->limited = true;
}

/* One rate increase in the phase the stages select (counted before this expiry), then the
 * expiring stage counts up. */
static void increase(dcqcn_rp *rp, const dcqcn_params *p, bool timer)
{
    /* A disabled byte counter (rpg_byte_reset 0) neither holds the state machine back nor
     * advances it: the timer stage alone selects the phase, as in models of ConnectX DCQCN
     * without a byte counter [H] (there T == F is additive increase; here, with both stages
     * equal to T, it is hyper increase — the paper's rule min(T, BC) ≥ F). */
    uint32_t bc = p->byte_reset_bytes ? rp->bc_stage : rp->t_stage;
    uint32_t lo = rp->t_stage < bc ? rp->t_stage : bc;
    uint32_t hi = rp->t_stage < bc ? bc : rp->t_stage;
    uint32_t f = p->threshold;
    if (lo >= f)
        rp->rt_bps += p->hai_scaled ? p->hai_bps * (double)(lo - f + 1) : p->hai_bps;
    else if (hi >= f)
        rp->rt_bps += p->ai_bps;
    if (rp->rt_bps > p->max_bps)
        rp->rt_bps = p->max_bps;
    rp->rc_bps = (rp->rt_bps + rp->rc_bps) / 2;
    if (timer)
        rp->t_stage++;
    else
        rp->bc_stage++;
    if (rp->rc_bps >= p->max_bps * (1.0 - DCQCN_LINE_EPS) &&
        rp->rt_bps >= p->max_bps * (1.0 - DCQCN_LINE_EPS)) {
        rp->rc_bps = rp->rt_bps = p->max_bps;
        if (p->max_bps >= p->line_bps) { /* the rate limiter is released */
            rp->recovering = false;
            rp->limited = rp->pending;
        }
    }
}

void dcqcn_on_cnp(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    bool first = !rp->started;
    if (first) {
        rp->started = true;
        rp->alpha = p->alpha0;
        rp->alpha_ps = rp->anchor_ps = now;
        rp->alpha_cnp = false;
        if (p->first_bps > 0)
            rp->rc_bps = rp->rt_bps = p->first_bps;
    } else {
        alpha_advance(rp, p, now);
    }
    rp->limited = true;
    if (!p->monitor_ps) {
        /* the paper: cut at once with the current α, then the α update, whose period restarts */
        cut(rp, p, now);
        rp->alpha = (1.0 - p->g) * rp->alpha + p->g;
        rp->alpha_ps = now;
        rp->alpha_cnp = false;
        return;
    }
    if (!first)
        rp->alpha_cnp = true;
    if (!rp->pending) {
        rp->pending = true;
        rp->cut_ps = rp->anchor_ps + ((now - rp->anchor_ps) / p->monitor_ps + 1) * p->monitor_ps;
    }
}

bool dcqcn_on_timer(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    if (rp->pending && now >= rp->cut_ps) {
        alpha_advance(rp, p, now);
        cut(rp, p, now);
    }
    if (rp->recovering && now >= rp->inc_ps) {
        increase(rp, p, true);
        rp->inc_ps += p->time_reset_ps;
    }
    rp->limited = rp->pending || rp->recovering;
    return rp->limited;
}

sim_time dcqcn_next_ps(const dcqcn_rp *rp)
{
    sim_time t = SIM_TIME_MAX;
    if (rp->pending)
        t = rp->cut_ps;
    if (rp->recovering && rp->inc_ps < t)
        t = rp->inc_ps;
    return t;
}

bool dcqcn_on_bytes(dcqcn_rp *rp, const dcqcn_params *p, uint64_t bytes)
{
    if (!rp->recovering || !p->byte_reset_bytes) /* idle, or the byte counter is disabled */
        return false;
    rp->bytes += bytes;
    bool changed = false;
    while (rp->recovering && rp->bytes >= p->byte_reset_bytes) {
        rp->bytes -= p->byte_reset_bytes;
        increase(rp, p, false);
        changed = true;
    }
    if (!rp->recovering)
        rp->bytes = 0;
    rp->limited = rp->pending || rp->recovering;
    return changed;
}
