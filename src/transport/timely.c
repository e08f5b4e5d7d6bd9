/*
 * timely.c — TIMELY's rate update (see timely.h for the algorithm and its sources).
 */
#include "timely.h"

void timely_params_init(timely_params *p, const cfg_timely *c, uint64_t line_bps)
{
    p->line_bps = (double)line_bps;
    /* unset (0): the paper's 10 Mbps at its 10 Gb/s line, as a share of this line (0.1 %) */
    p->min_bps = c->min_rate_bps ? (double)c->min_rate_bps : p->line_bps / 1000.0;
    if (p->min_bps > p->line_bps)
        p->min_bps = p->line_bps;
    p->add_bps = c->add_rate_bps ? (double)c->add_rate_bps : p->line_bps / 1000.0;
    p->beta = c->beta;
    p->ewma = c->ewma;
    p->t_low_ps = c->t_low_ps;
    p->t_high_ps = c->t_high_ps;
    p->min_rtt_ps = c->min_rtt_ps;
    p->hai_n = c->hai_n;
    p->segment_bytes = c->segment_bytes;
}

void timely_init(timely_state *s, const timely_params *p)
{
    s->rate_bps = p->line_bps;
    s->rtt_diff_ps = 0;
    s->prev_rtt_ps = 0;
    s->neg_run = 0;
    s->have_prev = false;
    s->acked_bytes = 0;
}

bool timely_on_rtt(timely_state *s, const timely_params *p, sim_time rtt_ps)
{
    double old = s->rate_bps, r = (double)rtt_ps;
    double gradient = 0;
    if (s->have_prev) {
        double new_diff = r - (double)s->prev_rtt_ps;
        s->rtt_diff_ps = (1.0 - p->ewma) * s->rtt_diff_ps + p->ewma * new_diff;
        gradient = s->rtt_diff_ps / (double)p->min_rtt_ps;
    }
    s->prev_rtt_ps = rtt_ps;
    s->have_prev = true;
    if (rtt_ps < p->t_low_ps) {
        s->rate_bps += p->add_bps;
        s->neg_run = 0;
    } else if (rtt_ps > p->t_high_ps) {
        s->rate_bps *= 1.0 - p->beta * (1.0 - (double)p->t_high_ps / r);
        s->neg_run = 0;
    } else if (gradient <= 0) {
        if (s->neg_run < p->hai_n)
            s->neg_run++;
        double n = s->neg_run >= p->hai_n ? (double)p->hai_n : 1.0;
        s->rate_bps += n * p->add_bps;
    } else {
        s->rate_bps *= 1.0 - p->beta * gradient;
        s->neg_run = 0;
    }
    if (s->rate_bps < p->min_bps)
        s->rate_bps = p->min_bps;
    if (s->rate_bps > p->line_bps)
        s->rate_bps = p->line_bps;
    return s->rate_bps != old;
}
