/*
 * sampler.c — periodic port (and QP rate) sampling into a fixed, decimating table (sampler.h).
 *
 * Layout: per row, three port arrays (queue u32, utilization float, paused u8) and one QP rate
 * array (float), each [cap_rows × n]. Floats halve the table against doubles; the figures are
 * for charts and CSV (6 significant digits), not for arithmetic.
 */
#include "sampler.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/err.h"

struct sampler {
    event tick;
    net *n;
    sim_time last_ps;      /* time of the previous tick (or of sampler_new) */
    sim_time *row_t;       /* [cap_rows] end of each row's interval */
    sim_time *row_dt;      /* [cap_rows] length of each row's interval */
    sim_time dt_ps;        /* current Δ */
    size_t budget;
    uint32_t n_ports;
    port **ports;          /* sampled ports */
    uint64_t *last_busy;   /* serialization time up to the previous tick (net_port_busy_at) */
    uint32_t cap_rows, n_rows;
    uint32_t *q;           /* [cap_rows][n_ports] */
    float *util;
    uint8_t *paused;
    sampler_rate_fn rate_fn;
    void *rate_ctx;
    sampler_sync_fn sync_fn;
    void *sync_ctx;
    uint32_t n_qps, qps_per_flow;
    float *rate;           /* [cap_rows][n_qps] */
    uint64_t ticks;
};

static uint32_t rows_for(size_t budget, uint32_t n_ports, uint32_t n_qps)
{
    size_t row = (size_t)n_ports * (sizeof(uint32_t) + sizeof(float) + 1) +
                 (size_t)n_qps * sizeof(float) + 2 * sizeof(sim_time);
    if (row == 0)
        row = 1;
    size_t rows = budget / row;
    if (rows < SAMPLER_MIN_ROWS)
        rows = SAMPLER_MIN_ROWS;
    if (rows > SAMPLER_MAX_ROWS)
        rows = SAMPLER_MAX_ROWS;
    return (uint32_t)(rows & ~(size_t)1); /* even: rows merge pairwise */
}

static void alloc_table(sampler *s)
{
    xfree(s->q);
    xfree(s->util);
    xfree(s->paused);
    xfree(s->rate);
    xfree(s->row_t);
    xfree(s->row_dt);
    size_t fixed = (size_t)s->n_ports * (sizeof(port *) + sizeof(uint64_t) + sizeof(sim_time));
    size_t budget = s->budget > fixed ? s->budget - fixed : 0;
    s->cap_rows = rows_for(budget, s->n_ports, s->n_qps);
    size_t cells = (size_t)s->cap_rows * s->n_ports;
    s->q = xcalloc(cells ? cells : 1, sizeof(uint32_t), "sampler queues");
    s->util = xcalloc(cells ? cells : 1, sizeof(float), "sampler utilization");
    s->paused = xcalloc(cells ? cells : 1, 1, "sampler pauses");
    s->row_t = xcalloc(s->cap_rows, sizeof(sim_time), "sampler row times");
    s->row_dt = xcalloc(s->cap_rows, sizeof(sim_time), "sampler row lengths");
    size_t rc = (size_t)s->cap_rows * s->n_qps;
    s->rate = rc ? xcalloc(rc, sizeof(float), "sampler QP rates") : NULL;
}

/* Merge rows pairwise: the table keeps covering the whole run at half the resolution. */
static void decimate(sampler *s)
{
    uint32_t P = s->n_ports, Q = s->n_qps, half = s->n_rows / 2;
    for (uint32_t r = 0; r < half; r++) {
        const size_t a = (size_t)(2 * r) * P, b = a + P, d = (size_t)r * P;
        /* means weighted by the intervals' lengths (idle skips make them unequal) */
        double da = (double)s->row_dt[2 * r], db = (double)s->row_dt[2 * r + 1];
        float wa = (float)(da / (da + db)), wb = 1.0f - wa;
        for (uint32_t i = 0; i < P; i++) {
            uint32_t qa = s->q[a + i], qb = s->q[b + i];
            s->q[d + i] = qa > qb ? qa : qb;
            s->util[d + i] = wa * s->util[a + i] + wb * s->util[b + i];
            s->paused[d + i] = (uint8_t)(s->paused[a + i] | s->paused[b + i]);
        }
        const size_t ra = (size_t)(2 * r) * Q, rb = ra + Q, rd = (size_t)r * Q;
        for (uint32_t k = 0; k < Q; k++)
            s->rate[rd + k] = wa * s->rate[ra + k] + wb * s->rate[rb + k];
        s->row_t[r] = s->row_t[2 * r + 1];
        s->row_dt[r] = s->row_dt[2 * r] + s->row_dt[2 * r + 1];
    }
    s->n_rows = half;
    s->dt_ps *= 2;
}

static void on_tick(void *ctx, event *ev)
{
    sampler *s = (sampler *)((char *)ev - offsetof(sampler, tick));
    sim *sm = ctx;
    sm->daemons--; /* this tick is no longer queued */
    s->ticks++;
    sim_time elapsed = sm->now - s->last_ps;
    s->last_ps = sm->now;
    const size_t base = (size_t)s->n_rows * s->n_ports;
    bool busy = false;
    if (s->sync_fn)
        s->sync_fn(s->sync_ctx);
    s->row_t[s->n_rows] = sm->now;
    s->row_dt[s->n_rows] = elapsed;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const port *p = s->ports[i];
        /* utilization = time on the wire in the interval (preamble, frame and gap; a frame
         * that straddles a tick counts in both intervals by its share), never above 1 */
        uint64_t b = net_port_busy_at(p, sm->now), db = b - s->last_busy[i];
        busy |= db || p->q_total_bytes || p->paused || p->tx_pkt;
        s->last_busy[i] = b;
        s->util[base + i] = elapsed ? (float)((double)db / (double)elapsed) : 0.0f;
        s->q[base + i] = p->q_total_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)p->q_total_bytes;
        s->paused[base + i] = p->paused;
    }
    if (s->rate_fn) {
        const size_t rb = (size_t)s->n_rows * s->n_qps;
        for (uint32_t k = 0; k < s->n_qps; k++)
            s->rate[rb + k] = (float)s->rate_fn(s->rate_ctx, k);
    }
    s->n_rows++;
    if (s->n_rows == s->cap_rows)
        decimate(s);
    /* The tick is a daemon event (sim.h): it never keeps the simulation alive alone. */
    if (evq_size(&sm->q) == 0)
        return;
    sim_time next = sm->now + s->dt_ps;
    /* Idle skip: nothing moved and nothing happens before the next event: sample again at
     * the first tick at or after that event (one row covers the idle gap). */
    sim_time t_ev = evq_peek_time(&sm->q);
    if (!busy && t_ev > next)
        next = sm->now + (t_ev - sm->now + s->dt_ps - 1) / s->dt_ps * s->dt_ps;
    sim_at(sm, &s->tick, next);
    sm->daemons++;
}

/* Switch ports by tier, highest first; then host ports. Stable within a class. */
static int port_class(const port *p)
{
    if (p->owner->kind != NODE_SWITCH)
        return 9;
    switch (p->owner->tier) {
    case TIER_SUPER_SPINE: return 0;
    case TIER_SPINE: return 1;
    case TIER_LEAF: return 2;
    case TIER_SCALE_UP: return 4;
    default: return 3;
    }
}

sampler *sampler_new(net *n, sim_time interval_ps, size_t budget_bytes)
{
    SIM_ASSERT(interval_ps > 0, "sample interval must be > 0");
    sampler *s = xcalloc(1, sizeof *s, "sampler");
    s->n = n;
    s->dt_ps = interval_ps;
    s->last_ps = n->sim->now;
    s->budget = budget_bytes ? budget_bytes : SAMPLER_BUDGET_BYTES;
    uint32_t np = n->n_ports < SAMPLER_MAX_PORTS ? n->n_ports : SAMPLER_MAX_PORTS;
    s->ports = xcalloc(np ? np : 1, sizeof(port *), "sampled ports");
    /* switch ports first (by tier), host ports last: the cap cuts from the end */
    for (int cls = 0; cls <= 9 && s->n_ports < np; cls++)
        for (uint32_t i = 0; i < n->n_ports && s->n_ports < np; i++)
            if (port_class(n->ports[i]) == cls)
                s->ports[s->n_ports++] = n->ports[i];
    s->last_busy = xcalloc(np ? np : 1, sizeof(uint64_t), "sampler busy time");
    for (uint32_t i = 0; i < s->n_ports; i++)
        s->last_busy[i] = net_port_busy_at(s->ports[i], n->sim->now);
    alloc_table(s);
    event_init(&s->tick, on_tick);
    sim_at(n->sim, &s->tick, n->sim->now + interval_ps);
    n->sim->daemons++;
    return s;
}

void sampler_set_rates(sampler *s, sampler_rate_fn fn, void *ctx, uint32_t n_qps,
                       uint32_t qps_per_flow)
{
    SIM_ASSERT(s->n_rows == 0, "sampler_set_rates after %u rows were recorded", s->n_rows);
    s->rate_fn = fn;
    s->rate_ctx = ctx;
    s->n_qps = fn ? (n_qps < SAMPLER_MAX_QPS ? n_qps : SAMPLER_MAX_QPS) : 0;
    s->qps_per_flow = qps_per_flow ? qps_per_flow : 1;
    alloc_table(s);
}

void sampler_set_sync(sampler *s, sampler_sync_fn fn, void *ctx)
{
    s->sync_fn = fn;
    s->sync_ctx = ctx;
}

void sampler_free(sampler *s)
{
    if (!s)
        return;
    if (event_queued(&s->tick)) {
        evq_cancel(&s->n->sim->q, &s->tick);
        s->n->sim->daemons--;
    }
    xfree(s->ports);
    xfree(s->last_busy);
    xfree(s->q);
    xfree(s->util);
    xfree(s->paused);
    xfree(s->rate);
    xfree(s->row_t);
    xfree(s->row_dt);
    xfree(s);
}

uint32_t sampler_rows(const sampler *s) { return s->n_rows; }
uint32_t sampler_cap_rows(const sampler *s) { return s->cap_rows; }
sim_time sampler_interval(const sampler *s) { return s->dt_ps; }
uint64_t sampler_ticks(const sampler *s) { return s->ticks; }
uint32_t sampler_n_ports(const sampler *s) { return s->n_ports; }
const port *sampler_port(const sampler *s, uint32_t i) { return s->ports[i]; }
int sampler_has_rates(const sampler *s) { return s->rate_fn != NULL; }

size_t sampler_memory_bytes(const sampler *s)
{
    size_t cells = (size_t)s->cap_rows * s->n_ports;
    return sizeof *s + (size_t)s->n_ports * (sizeof(port *) + sizeof(uint64_t)) +
           cells * (sizeof(uint32_t) + sizeof(float) + 1) +
           (size_t)s->cap_rows * (s->n_qps * sizeof(float) + 2 * sizeof(sim_time));
}

sim_time sampler_row_time(const sampler *s, uint32_t row) { return s->row_t[row]; }

uint64_t sampler_queue(const sampler *s, uint32_t row, uint32_t i)
{
    return s->q[(size_t)row * s->n_ports + i];
}

double sampler_util(const sampler *s, uint32_t row, uint32_t i)
{
    return s->util[(size_t)row * s->n_ports + i];
}

uint8_t sampler_paused(const sampler *s, uint32_t row, uint32_t i)
{
    return s->paused[(size_t)row * s->n_ports + i];
}

uint64_t sampler_port_max_queue(const sampler *s, uint32_t i)
{
    uint64_t m = 0;
    for (uint32_t r = 0; r < s->n_rows; r++)
        if (sampler_queue(s, r, i) > m)
            m = sampler_queue(s, r, i);
    return m;
}

static bool port_active(const sampler *s, uint32_t i)
{
    for (uint32_t r = 0; r < s->n_rows; r++) {
        size_t c = (size_t)r * s->n_ports + i;
        if (s->q[c] || s->paused[c] || s->util[c] > 0.0f)
            return true;
    }
    return false;
}

int sampler_write_csv(FILE *f, const sampler *s)
{
    fputs("time_ps,port,queue_bytes,utilization,pfc_paused_mask\n", f);
    bool *act = xcalloc(s->n_ports ? s->n_ports : 1, sizeof(bool), "active ports");
    char (*names)[64] = xcalloc(s->n_ports ? s->n_ports : 1, 64, "port names");
    for (uint32_t i = 0; i < s->n_ports; i++) {
        act[i] = port_active(s, i);
        if (act[i])
            net_port_name(s->ports[i], names[i], 64);
    }
    for (uint32_t r = 0; r < s->n_rows; r++) {
        sim_time t = sampler_row_time(s, r);
        for (uint32_t i = 0; i < s->n_ports; i++) {
            if (!act[i])
                continue;
            size_t c = (size_t)r * s->n_ports + i;
            fprintf(f, "%" PRIu64 ",%s,%" PRIu32 ",%.6g,%u\n", t, names[i], s->q[c],
                    (double)s->util[c], (unsigned)s->paused[c]);
        }
    }
    xfree(names);
    xfree(act);
    return ferror(f) ? -1 : 0;
}

int sampler_write_rates_csv(FILE *f, const sampler *s)
{
    fputs("time_ps,qp,flow,rate_bps\n", f);
    for (uint32_t r = 0; r < s->n_rows && s->rate_fn; r++) {
        sim_time t = sampler_row_time(s, r);
        for (uint32_t k = 0; k < s->n_qps; k++)
            fprintf(f, "%" PRIu64 ",%" PRIu32 ",%" PRIu32 ",%.6g\n", t, k, k / s->qps_per_flow,
                    (double)s->rate[(size_t)r * s->n_qps + k]);
    }
    return ferror(f) ? -1 : 0;
}
