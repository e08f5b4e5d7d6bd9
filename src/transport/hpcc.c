/*
 * hpcc.c — HPCC's window update (see hpcc.h for the algorithm and its sources) and the base RTT
 * of a path.
 */
#include "hpcc.h"

#include <string.h>

void hpcc_params_init(hpcc_params *p, const cfg_hpcc *c, uint64_t line_bps)
{
    p->eta = c->eta;
    p->max_stage = c->max_stage;
    p->line_bps = (double)line_bps;
    /* unset (0): the artifact's RATE_AI = 10·bw/25 Mb/s for bw in Gb/s, i.e. line × 4e-4 */
    p->ai_bps = c->ai_rate_bps ? (double)c->ai_rate_bps : p->line_bps * 4e-4;
    if (p->ai_bps > p->line_bps)
        p->ai_bps = p->line_bps;
}

void hpcc_init(hpcc_state *s, const hpcc_params *p, sim_time t_ps)
{
    memset(s, 0, sizeof *s);
    s->t_ps = t_ps ? t_ps : 1;
    s->w_init = p->line_bps * (double)s->t_ps * 1e-12 / 8.0;
    s->w_ai = p->ai_bps * (double)s->t_ps * 1e-12 / 8.0;
    s->w = s->wc = s->w_init;
}

double hpcc_measure(hpcc_state *s, const int_rec *r)
{
    double T = (double)s->t_ps, u = 0, tau = T;
    for (uint32_t j = 0; j < r->n; j++) {
        const int_hop *a = &r->hop[j], *l = &s->prev.hop[j];
        if (a->ts_ps <= l->ts_ps || !a->rate_bps)
            continue; /* no packet of this QP crossed the hop since: nothing to measure */
        double dt = (double)(a->ts_ps - l->ts_ps);
        double b = (double)a->rate_bps;
        double tx_rate = (double)(a->tx_bytes - l->tx_bytes) * 8.0 * 1e12 / dt; /* bits/s */
        uint64_t q = a->qlen_bytes < l->qlen_bytes ? a->qlen_bytes : l->qlen_bytes;
        double uj = (double)q * 8.0 / (b * T * 1e-12) + tx_rate / b;
        if (uj > u) {
            u = uj;
            tau = dt;
        }
    }
    if (tau > T)
        tau = T;
    s->u = (1.0 - tau / T) * s->u + tau / T * u;
    return s->u;
}

double hpcc_window(hpcc_state *s, const hpcc_params *p, double u, bool update_wc)
{
    double w;
    if (u >= p->eta || s->inc_stage >= p->max_stage) {
        /* U = 0 (an idle path after maxStage additive steps): Wc·η/U grows without bound, and
         * the cap below is its limit */
        w = u > 0 ? s->wc / (u / p->eta) + s->w_ai : s->w_init;
        if (update_wc) {
            s->inc_stage = 0;
            s->wc = w > s->w_init ? s->w_init : w;
        }
    } else {
        w = s->wc + s->w_ai;
        if (update_wc) {
            s->inc_stage++;
            s->wc = w > s->w_init ? s->w_init : w;
        }
    }
    return w > s->w_init ? s->w_init : w;
}

bool hpcc_on_ack(hpcc_state *s, const hpcc_params *p, const int_rec *r, uint32_t ack_psn,
                 uint32_t snd_nxt)
{
    if (!r->n)
        return false;
    double old = s->w;
    bool same = s->have_prev && s->prev.n == r->n;
    for (uint32_t j = 0; same && j < r->n; j++)
        same = s->prev.hop[j].node == r->hop[j].node && s->prev.hop[j].port == r->hop[j].port;
    if (same) {
        double u = hpcc_measure(s, r);
        bool update = ack_psn > s->last_update_psn;
        s->w = hpcc_window(s, p, u, update);
        if (update)
            s->last_update_psn = snd_nxt;
    }
    s->prev.n = r->n;
    memcpy(s->prev.hop, r->hop, sizeof(int_hop) * r->n);
    s->have_prev = true;
    return s->w != old;
}

sim_time hpcc_base_rtt(const net *n, uint32_t src, uint32_t dst, uint32_t data_line,
                       uint32_t ack_line)
{
    sim_time t = 0;
    for (int dir = 0; dir < 2; dir++) {
        uint32_t a = dir ? dst : src, b = dir ? src : dst, line = dir ? ack_line : data_line;
        const node *h = n->hosts[a];
        const port *p = &h->ports[net_host_egress(n, h, b)];
        t += sim_ser_time(line, p->rate_bps) + net_path_latency(n, a, b, line);
    }
    return t;
}
