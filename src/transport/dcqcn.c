/*
 * dcqcn.c — DCQCN reaction point (Zhu et al. SIGCOMM'15 §3.2; model and variant in dcqcn.h).
 * Runs per CNP, per timer expiry and per sent packet: no allocation.
 */
#include "dcqcn.h"

#include <math.h>

#include "../core/hotpath.h"

void dcqcn_params_init(dcqcn_params *p, const cfg_dcqcn *c, uint64_t line_bps)
{
    p->g = c->g;
    p->rai_bps = (double)c->rai_bps;
    p->rhai_bps = (double)c->rhai_bps;
    p->line_bps = (double)line_bps;
    p->min_bps = (double)c->min_rate_bps < p->line_bps ? (double)c->min_rate_bps : p->line_bps;
    p->timer_ps = c->timer_ps;
    p->byte_counter_bytes = c->byte_counter_bytes;
    p->fast_recovery = c->fast_recovery;
    p->cnp_interval_ps = c->cnp_interval_ps;
}

void dcqcn_rp_init(dcqcn_rp *rp, const dcqcn_params *p)
{
    rp->rc_bps = rp->rt_bps = p->line_bps;
    rp->alpha = 1.0;
    rp->t_stage = rp->bc_stage = 0;
    rp->bytes = 0;
    rp->alpha_ps = 0;
    rp->limited = false;
}

static void clamp(dcqcn_rp *rp, const dcqcn_params *p)
{
    if (rp->rt_bps > p->line_bps)
        rp->rt_bps = p->line_bps;
    if (rp->rc_bps > p->line_bps)
        rp->rc_bps = p->line_bps;
    if (rp->rc_bps < p->min_bps)
        rp->rc_bps = p->min_bps;
    if (rp->rc_bps >= p->line_bps * (1.0 - DCQCN_LINE_EPS) &&
        rp->rt_bps >= p->line_bps * (1.0 - DCQCN_LINE_EPS)) {
        rp->rc_bps = rp->rt_bps = p->line_bps;
        rp->limited = false;
    }
}

/* One rate increase in the stage the counters select. */
static void increase(dcqcn_rp *rp, const dcqcn_params *p)
{
    uint32_t lo = rp->t_stage < rp->bc_stage ? rp->t_stage : rp->bc_stage;
    uint32_t hi = rp->t_stage < rp->bc_stage ? rp->bc_stage : rp->t_stage;
    uint32_t f = p->fast_recovery;
    if (lo >= f)
        rp->rt_bps += p->rhai_bps * (double)(lo - f + 1);
    else if (hi >= f)
        rp->rt_bps += p->rai_bps;
    if (rp->rt_bps > p->line_bps)
        rp->rt_bps = p->line_bps;
    rp->rc_bps = (rp->rt_bps + rp->rc_bps) / 2;
    clamp(rp, p);
}

void dcqcn_on_cnp(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    if (!rp->limited && now > rp->alpha_ps && p->timer_ps) {
        /* the periods the stopped timer did not tick, in closed form */
        uint64_t n = (now - rp->alpha_ps) / p->timer_ps;
        if (n)
            rp->alpha *= pow(1.0 - p->g, (double)n);
    }
    rp->rt_bps = rp->rc_bps;
    rp->rc_bps = rp->rc_bps * (1.0 - rp->alpha / 2);
    rp->alpha = (1.0 - p->g) * rp->alpha + p->g;
    rp->alpha_ps = now;
    rp->t_stage = rp->bc_stage = 0;
    rp->bytes = 0;
    rp->limited = true;
    if (rp->rc_bps < p->min_bps)
        rp->rc_bps = p->min_bps;
}

bool dcqcn_on_timer(dcqcn_rp *rp, const dcqcn_params *p, sim_time now)
{
    rp->alpha *= 1.0 - p->g;
    rp->alpha_ps = now;
    if (rp->limited) {
        rp->t_stage++;
        increase(rp, p);
    }
    return rp->limited;
}

bool dcqcn_on_bytes(dcqcn_rp *rp, const dcqcn_params *p, uint64_t bytes)
{
    if (!rp->limited)
        return false;
    rp->bytes += bytes;
    bool changed = false;
    while (rp->limited && rp->bytes >= p->byte_counter_bytes) {
        rp->bytes -= p->byte_counter_bytes;
        rp->bc_stage++;
        increase(rp, p);
        changed = true;
    }
    return changed;
}
