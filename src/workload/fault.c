/*
 * fault.c — fault events (see fault.h). Each fault owns two events: `ev` steps it through its
 * phases (start, the flap's transitions, the end of its duration...), `route` is the control
 * plane's recomputation of every FIB `detect` + `converge` after the latest topology change it
 * made (one pending at a time: when it fires early it re-arms for the latest change).
 */
#include "fault.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"

typedef struct fault_ev {
    event ev;
    event route;
    faults *owner;
    net *net;
    const cfg_fault *cfg;
    uint32_t index;
    port *link;          /* link faults: the link's port on its first node */
    node *sw;            /* switch faults */
    bool *took_down;     /* switch faults: per port of sw, the link this fault downed */
    int phase;           /* kind-specific; 0 = not started */
    sim_time route_due;  /* latest change + detect + converge */
    sim_time next_cycle; /* link-flap: start of the next cycle */
    port_ber ber[2];     /* link-ber: the two directions */
} fault_ev;

struct faults {
    uint32_t n;
    fault_ev *f;
    fault_record *rec;
    fault_log *log;
    uint32_t n_log;
    uint64_t log_total;
    fault_gpu_slow_fn gpu_slow;
    void *gpu_slow_ctx;
    fault_gpu_fail_fn gpu_fail;
    void *gpu_fail_ctx;
    fault_link_fn link;
    void *link_ctx;
};

void faults_log_add(faults *f, uint32_t fault, const char *fmt, ...)
{
    f->log_total++;
    if (f->n_log >= FAULT_LOG_MAX)
        return;
    fault_log *l = &f->log[f->n_log++];
    l->t_ps = f->f[fault].net->sim->now;
    l->fault = fault;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->what, sizeof l->what, fmt, ap);
    va_end(ap);
}

/* ---- FEC and frame loss --------------------------------------------------------------------- */

double fault_rs544_codeword_loss(double ber)
{
    /* RS(544,514) over GF(2^10): a 10-bit symbol is wrong when any of its bits is; the decoder
     * corrects up to t = (544 − 514)/2 = 15 wrong symbols. P(> 15 of 544) by the binomial sum,
     * in logs so that tiny symbol error rates neither underflow early nor lose precision. */
    double ps = -expm1(10.0 * log1p(-ber));
    if (ps <= 0)
        return 0;
    if (ps >= 1)
        return 1;
    double lp = log(ps), lq = log1p(-ps), sum = 0;
    for (int k = 16; k <= 544; k++) {
        double lc = lgamma(545.0) - lgamma((double)k + 1) - lgamma(545.0 - k);
        double term = exp(lc + k * lp + (544 - k) * lq);
        sum += term;
        if (k > 40 && term < sum * 1e-18)
            break;
    }
    return sum > 1 ? 1 : sum;
}

static double ber_log_ok(double ber, bool pre_fec)
{
    if (!pre_fec)
        return log1p(-ber);
    double pcw = fault_rs544_codeword_loss(ber);
    return pcw >= 1 ? -INFINITY : log1p(-pcw);
}

double fault_frame_loss(double ber, bool pre_fec, uint32_t frame_bytes)
{
    /* the same formula the wire applies (port.c port_arrive_ber) */
    double bits = (double)frame_bytes * 8.0;
    double units = pre_fec ? 1.0 + bits / 5140.0 : bits;
    return -expm1(units * ber_log_ok(ber, pre_fec));
}

/* ---- topology changes ---------------------------------------------------------------------- */

/* Routing notices the change made now after detect + converge. */
static void route_later(fault_ev *fe)
{
    sim *s = fe->net->sim;
    fe->route_due = s->now + fe->cfg->detect_ps + fe->cfg->converge_ps;
    if (!event_queued(&fe->route))
        sim_at(s, &fe->route, fe->route_due);
}

static void route_fire(void *ctx, event *ev)
{
    fault_ev *fe = (fault_ev *)((char *)ev - offsetof(fault_ev, route));
    net *n = fe->net;
    (void)ctx;
    if (fe->cfg->kind == FAULT_SWITCH_DRAIN && fe->phase == 4) {
        fe->sw->drained = false; /* back from the upgrade: maintenance mode off */
        fe->phase = 5;
    }
    net_route(n); /* control plane: recomputes every FIB over the links that are up */
    fe->owner->rec[fe->index].converged_ps = n->sim->now;
    faults_log_add(fe->owner, fe->index, "routing reconverged");
    if (fe->route_due > n->sim->now)
        sim_at(n->sim, &fe->route, fe->route_due); /* a later change is still unseen */
}

/* Local repair at the switch ends of port p's link (fast reroute). */
static void local_repair(fault_ev *fe, port *p)
{
    port *ends[2] = {p, p->peer};
    for (int k = 0; k < 2; k++)
        if (ends[k]->owner->kind == NODE_SWITCH)
            net_route_withdraw(fe->net, ends[k]->owner, ends[k]->index);
}

static void link_change(fault_ev *fe, port *p, bool up, bool repair)
{
    net_link_set(fe->net, p, up);
    if (fe->owner->link)
        fe->owner->link(fe->owner->link_ctx, p, up);
    if (!up && repair && fe->cfg->fast_reroute) {
        local_repair(fe, p);
        if (fe->owner->rec[fe->index].local_reroute_ps == SIM_TIME_MAX)
            fe->owner->rec[fe->index].local_reroute_ps = fe->net->sim->now;
    }
}

static void switch_links(fault_ev *fe, bool up, bool repair)
{
    node *sw = fe->sw;
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        port *p = &sw->ports[i];
        if (!up) {
            fe->took_down[i] = p->up;
            if (p->up)
                link_change(fe, p, false, false);
        } else if (fe->took_down[i]) {
            fe->took_down[i] = false;
            link_change(fe, p, true, false);
        }
    }
    if (!up && repair && fe->cfg->fast_reroute) {
        /* every neighbour sees its port to the switch go dark */
        for (uint32_t i = 0; i < sw->n_ports; i++) {
            port *q = sw->ports[i].peer;
            if (q->owner->kind == NODE_SWITCH)
                net_route_withdraw(fe->net, q->owner, q->index);
        }
        if (fe->owner->rec[fe->index].local_reroute_ps == SIM_TIME_MAX)
            fe->owner->rec[fe->index].local_reroute_ps = fe->net->sim->now;
    }
}

/* ---- the faults ----------------------------------------------------------------------------- */

static void fire_link(fault_ev *fe)
{
    fault_record *rec = &fe->owner->rec[fe->index];
    bool up = fe->cfg->kind == FAULT_LINK_UP;
    fe->phase = 1;
    rec->fired = true;
    link_change(fe, fe->link, up, true);
    faults_log_add(fe->owner, fe->index, "%s %s%s", fe->cfg->link, up ? "up" : "down",
                   !up && fe->cfg->fast_reroute ? ", local fast reroute" : "");
    route_later(fe);
}

static void fire_degraded(fault_ev *fe)
{
    fault_record *rec = &fe->owner->rec[fe->index];
    sim *s = fe->net->sim;
    if (fe->phase == 0) {
        fe->phase = 1;
        rec->fired = true;
        rec->orig_rate_bps = fe->link->rate_bps;
        net_link_rate(fe->net, fe->link, rec->rate_bps);
        faults_log_add(fe->owner, fe->index, "%s degraded to %.6g Gb/s (%.4g of %.6g Gb/s)",
                       fe->cfg->link, (double)rec->rate_bps * 1e-9,
                       (double)rec->rate_bps / (double)rec->orig_rate_bps,
                       (double)rec->orig_rate_bps * 1e-9);
        if (fe->cfg->duration_ps != SIM_TIME_MAX)
            sim_at(s, &fe->ev, s->now + fe->cfg->duration_ps);
    } else if (fe->phase == 1) {
        fe->phase = 2;
        net_link_rate(fe->net, fe->link, rec->orig_rate_bps);
        rec->end_ps = s->now;
        faults_log_add(fe->owner, fe->index, "%s back to full speed", fe->cfg->link);
    }
}

static void fire_ber(fault_ev *fe)
{
    fault_record *rec = &fe->owner->rec[fe->index];
    sim *s = fe->net->sim;
    if (fe->phase == 0) {
        fe->phase = 1;
        rec->fired = true;
        net_port_ber(fe->net, fe->link, &fe->ber[0]);
        net_port_ber(fe->net, fe->link->peer, &fe->ber[1]);
        faults_log_add(fe->owner, fe->index, "%s bit errors at %.3g (%s)", fe->cfg->link,
                       fe->cfg->ber, fe->cfg->ber_pre_fec ? "pre-FEC" : "post-FEC");
        if (fe->cfg->duration_ps != SIM_TIME_MAX)
            sim_at(s, &fe->ev, s->now + fe->cfg->duration_ps);
    } else if (fe->phase == 1) {
        fe->phase = 2;
        net_port_ber(fe->net, fe->link, NULL);
        net_port_ber(fe->net, fe->link->peer, NULL);
        rec->end_ps = s->now;
        faults_log_add(fe->owner, fe->index, "%s bit errors over", fe->cfg->link);
    }
}

static void fire_flap(fault_ev *fe)
{
    fault_record *rec = &fe->owner->rec[fe->index];
    sim *s = fe->net->sim;
    const cfg_fault *c = fe->cfg;
    if (fe->phase == 0 || fe->phase == 2) {
        /* a cycle starts: down */
        if (fe->phase == 0)
            fe->next_cycle = s->now;
        fe->phase = 1;
        rec->fired = true;
        rec->transitions++;
        link_change(fe, fe->link, false, true);
        faults_log_add(fe->owner, fe->index, "%s down (flap %u)%s", c->link,
                       (rec->transitions + 1) / 2, c->fast_reroute ? ", local fast reroute" : "");
        route_later(fe);
        fe->next_cycle += c->period_ps;
        sim_at(s, &fe->ev, s->now + c->down_ps);
    } else if (fe->phase == 1) {
        rec->transitions++;
        link_change(fe, fe->link, true, false);
        faults_log_add(fe->owner, fe->index, "%s up (flap %u)", c->link, rec->transitions / 2);
        route_later(fe);
        if (fe->next_cycle - c->at_ps < c->duration_ps) {
            fe->phase = 2;
            sim_at(s, &fe->ev, fe->next_cycle);
        } else {
            fe->phase = 3;
            rec->end_ps = s->now;
        }
    }
}

static void fire_switch_down(fault_ev *fe)
{
    fault_record *rec = &fe->owner->rec[fe->index];
    sim *s = fe->net->sim;
    if (fe->phase == 0) {
        fe->phase = 1;
        rec->fired = true;
        switch_links(fe, false, true);
        faults_log_add(fe->owner, fe->index, "%s down%s", fe->cfg->sw,
                       fe->cfg->fast_reroute ? ", neighbours reroute locally" : "");
        route_later(fe);
        if (fe->cfg->duration_ps != SIM_TIME_MAX)
            sim_at(s, &fe->ev, s->now + fe->cfg->duration_ps);
    } else if (fe->phase == 1) {
        fe->phase = 2;
        switch_links(fe, true, false);
        rec->end_ps = s->now;
        faults_log_add(fe->owner, fe->index, "%s back up (reloaded)", fe->cfg->sw);
        route_later(fe);
    }
}

static void fire_drain(fault_ev *fe)
{
    fault_record *rec = &fe->owner->rec[fe->index];
    sim *s = fe->net->sim;
    const cfg_fault *c = fe->cfg;
    switch (fe->phase) {
    case 0: /* maintenance mode: routes withdrawn, the fabric learns it over `converge` */
        fe->phase = 1;
        rec->fired = true;
        fe->sw->drained = true;
        faults_log_add(fe->owner, fe->index, "%s draining (graceful shutdown)", c->sw);
        sim_at(s, &fe->ev, s->now + c->converge_ps);
        break;
    case 1: /* every switch routes around it now */
        fe->phase = 2;
        net_route(fe->net);
        rec->converged_ps = s->now;
        faults_log_add(fe->owner, fe->index, "%s drained: routes moved away", c->sw);
        sim_at(s, &fe->ev, s->now + c->wait_ps);
        break;
    case 2: /* the upgrade: down */
        fe->phase = 3;
        switch_links(fe, false, true);
        faults_log_add(fe->owner, fe->index, "%s down for its upgrade", c->sw);
        sim_at(s, &fe->ev, s->now + c->duration_ps);
        break;
    case 3: /* back; routes come back after detect + converge (route_fire clears drained) */
        fe->phase = 4;
        switch_links(fe, true, false);
        rec->end_ps = s->now;
        faults_log_add(fe->owner, fe->index, "%s back up after its upgrade", c->sw);
        route_later(fe);
        break;
    default:
        break;
    }
}

static void fault_fire(void *ctx, event *ev)
{
    fault_ev *fe = (fault_ev *)((char *)ev - offsetof(fault_ev, ev));
    net *n = fe->net;
    faults *fs = fe->owner;
    (void)ctx;
    switch (fe->cfg->kind) {
    case FAULT_GPU_SLOW:
        /* from now on the GPU's compute phases take factor x longer (training executors) */
        fs->rec[fe->index].fired = true;
        faults_log_add(fs, fe->index, "GPU %u computes %.3gx slower", fe->cfg->gpu,
                       fe->cfg->factor);
        if (fs->gpu_slow)
            fs->gpu_slow(fs->gpu_slow_ctx, fe->cfg->gpu, fe->cfg->factor);
        return;
    case FAULT_GPU_FAIL:
        fs->rec[fe->index].fired = true;
        faults_log_add(fs, fe->index, "GPU %u failed", fe->cfg->gpu);
        if (fs->gpu_fail)
            fs->gpu_fail(fs->gpu_fail_ctx, fe->cfg->gpu, fe->index);
        return;
    case FAULT_LINK_DOWN:
    case FAULT_LINK_UP:
        if (fe->phase == 0)
            fire_link(fe);
        return;
    case FAULT_LINK_DEGRADED:
        fire_degraded(fe);
        return;
    case FAULT_LINK_BER:
        fire_ber(fe);
        return;
    case FAULT_LINK_FLAP:
        fire_flap(fe);
        return;
    case FAULT_SWITCH_DOWN:
        fire_switch_down(fe);
        return;
    case FAULT_SWITCH_DRAIN:
        fire_drain(fe);
        return;
    case FAULT_PFC_STORM:
    case FAULT_KINDS_N:
        break;
    }
    node *h = n->hosts[fe->cfg->nic];
    port *p = &h->ports[h->net_port];
    if (fe->phase == 0) {
        fe->phase = 1;
        fs->rec[fe->index].fired = true;
        faults_log_add(fs, fe->index, "NIC %u starts a PFC storm", fe->cfg->nic);
        net_pfc_storm(n, p, true);
        if (fe->cfg->duration_ps != SIM_TIME_MAX)
            sim_at(n->sim, &fe->ev, n->sim->now + fe->cfg->duration_ps);
    } else if (fe->phase == 1) {
        fe->phase = 2;
        fs->rec[fe->index].end_ps = n->sim->now;
        faults_log_add(fs, fe->index, "NIC %u PFC storm over", fe->cfg->nic);
        net_pfc_storm(n, p, false);
    }
}

/* ---- validation ----------------------------------------------------------------------------- */

static int bad_link(const scenario *sc, uint32_t i, err *e)
{
    char key[40];
    snprintf(key, sizeof key, "faults.%u.link", i);
    return config_error_at(sc, e, key,
                           "faults[%u].link: no link \"%s\" in this fabric (write the two "
                           "node names joined by '-', e.g. leaf0-spine1, and #k for the k-th "
                           "parallel link)",
                           i, sc->faults[i].link);
}

/* Check fault i against the built network (and find its link or switch): 0, or an error at
 * the offending key. */
static int fault_check(net *n, const scenario *sc, uint32_t i, fault_ev *fe, err *e)
{
    const cfg_fault *c = &sc->faults[i];
    char key[40];
    switch (c->kind) {
    case FAULT_GPU_SLOW:
    case FAULT_GPU_FAIL:
        if (c->gpu < net_gpus(n))
            return 0;
        snprintf(key, sizeof key, "faults.%u.gpu", i);
        return config_error_at(sc, e, key,
                               "faults[%u].gpu: GPU %u does not exist: the fabric has %u GPUs "
                               "(0..%u)",
                               i, c->gpu, net_gpus(n), net_gpus(n) ? net_gpus(n) - 1 : 0);
    case FAULT_LINK_DOWN:
    case FAULT_LINK_UP:
    case FAULT_LINK_FLAP:
    case FAULT_LINK_BER:
        fe->link = net_find_link(n, c->link);
        return fe->link ? 0 : bad_link(sc, i, e);
    case FAULT_LINK_DEGRADED: {
        fe->link = net_find_link(n, c->link);
        if (!fe->link)
            return bad_link(sc, i, e);
        if (c->speed_bps) {
            if (c->speed_bps < fe->link->rate_bps)
                return 0;
            snprintf(key, sizeof key, "faults.%u.speed", i);
            return config_error_at(sc, e, key,
                                   "faults[%u].speed: %.6g Gb/s is not below the link's %.6g "
                                   "Gb/s (a degraded link runs slower)",
                                   i, (double)c->speed_bps * 1e-9,
                                   (double)fe->link->rate_bps * 1e-9);
        }
        double r = floor((double)fe->link->rate_bps * c->fraction + 0.5);
        if (r >= 1)
            return 0;
        snprintf(key, sizeof key, "faults.%u.fraction", i);
        return config_error_at(sc, e, key,
                               "faults[%u].fraction: %g of the link's %llu bps leaves no speed", i,
                               c->fraction, (unsigned long long)fe->link->rate_bps);
    }
    case FAULT_SWITCH_DOWN:
    case FAULT_SWITCH_DRAIN:
        fe->sw = net_find_switch(n, c->sw);
        if (fe->sw && fe->sw->tier != TIER_SCALE_UP)
            return 0;
        snprintf(key, sizeof key, "faults.%u.switch", i);
        return config_error_at(sc, e, key,
                               "faults[%u].switch: no fabric switch \"%s\" (the names are those "
                               "of `wirerate plan` and the port names: leaf0, spine1, ...)",
                               i, c->sw);
    case FAULT_PFC_STORM:
        if (c->nic >= n->n_hosts || n->hosts[c->nic]->net_port == UINT32_MAX) {
            snprintf(key, sizeof key, "faults.%u.nic", i);
            return config_error_at(sc, e, key,
                                   "faults[%u].nic: NIC port %u does not exist: the fabric has %u "
                                   "(0..%u)",
                                   i, c->nic, n->n_hosts, n->n_hosts ? n->n_hosts - 1 : 0);
        }
        if (n->lossless)
            return 0;
        snprintf(key, sizeof key, "faults.%u.kind", i);
        return config_error_at(sc, e, key,
                               "faults[%u].kind: a pfc-storm needs PFC (switch.pfc.enabled is "
                               "false)",
                               i);
    case FAULT_KINDS_N:
        break;
    }
    snprintf(key, sizeof key, "faults.%u.kind", i);
    return config_error_at(sc, e, key, "faults[%u].kind: unknown fault kind", i);
}

faults *faults_new(net *n, const scenario *sc, err *e)
{
    faults *fs = xcalloc(1, sizeof *fs, "faults");
    fs->n = sc->n_faults;
    fs->f = xcalloc(fs->n ? fs->n : 1, sizeof(fault_ev), "fault events");
    fs->rec = xcalloc(fs->n ? fs->n : 1, sizeof(fault_record), "fault records");
    /* Check every fault before scheduling any: an event queued in the sim must not be freed
     * with the array when a later fault is refused (found by fuzz_run). */
    for (uint32_t i = 0; i < sc->n_faults; i++) {
        if (fault_check(n, sc, i, &fs->f[i], e)) {
            faults_free(fs);
            return NULL;
        }
    }
    fs->log = xcalloc(fs->n ? FAULT_LOG_MAX : 1, sizeof(fault_log), "fault timeline");
    for (uint32_t i = 0; i < sc->n_faults; i++) {
        fault_ev *fe = &fs->f[i];
        const cfg_fault *c = &sc->faults[i];
        fault_record *rec = &fs->rec[i];
        fe->owner = fs;
        fe->net = n;
        fe->cfg = c;
        fe->index = i;
        rec->kind = c->kind;
        rec->at_ps = c->at_ps;
        rec->local_reroute_ps = rec->converged_ps = rec->end_ps = SIM_TIME_MAX;
        if (fe->link)
            snprintf(rec->target, sizeof rec->target, "%s", c->link);
        else if (fe->sw)
            snprintf(rec->target, sizeof rec->target, "%s", c->sw);
        else if (c->kind == FAULT_PFC_STORM)
            snprintf(rec->target, sizeof rec->target, "nic %u", c->nic);
        else
            snprintf(rec->target, sizeof rec->target, "gpu %u", c->gpu);
        if (fe->sw)
            fe->took_down = xcalloc(fe->sw->n_ports, sizeof(bool), "switch fault ports");
        if (c->kind == FAULT_LINK_DEGRADED)
            rec->rate_bps = c->speed_bps
                                ? c->speed_bps
                                : (uint64_t)floor((double)fe->link->rate_bps * c->fraction + 0.5);
        if (c->kind == FAULT_LINK_BER) {
            for (int d = 0; d < 2; d++) {
                rng_init(&fe->ber[d].rng, sc->seed, RNG_ID(RNG_KIND_FAULT, 2ull * i + d));
                fe->ber[d].log_ok = ber_log_ok(c->ber, c->ber_pre_fec);
                fe->ber[d].per_codeword = c->ber_pre_fec;
            }
            rec->frame_loss_4k = fault_frame_loss(c->ber, c->ber_pre_fec, wire_data_frame(4096, 0));
        }
        event_init(&fe->ev, fault_fire);
        event_init(&fe->route, route_fire);
        sim_at(n->sim, &fe->ev, c->at_ps);
    }
    return fs;
}

void faults_on_gpu_slow(faults *f, fault_gpu_slow_fn fn, void *ctx)
{
    f->gpu_slow = fn;
    f->gpu_slow_ctx = ctx;
}

void faults_on_gpu_fail(faults *f, fault_gpu_fail_fn fn, void *ctx)
{
    f->gpu_fail = fn;
    f->gpu_fail_ctx = ctx;
}

void faults_on_link(faults *f, fault_link_fn fn, void *ctx)
{
    f->link = fn;
    f->link_ctx = ctx;
}

uint32_t faults_endless_storms(const faults *f)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->n; i++)
        k += f->f[i].cfg->kind == FAULT_PFC_STORM && f->f[i].cfg->duration_ps == SIM_TIME_MAX;
    return k;
}

void faults_end_endless_storms(faults *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        fault_ev *fe = &f->f[i];
        if (fe->cfg->kind != FAULT_PFC_STORM || fe->cfg->duration_ps != SIM_TIME_MAX)
            continue;
        if (fe->phase == 0) {
            evq_cancel(&fe->net->sim->q, &fe->ev);
        } else if (fe->phase == 1) {
            node *h = fe->net->hosts[fe->cfg->nic];
            net_pfc_storm(fe->net, &h->ports[h->net_port], false);
            f->rec[i].end_ps = fe->net->sim->now;
        }
        fe->phase = 2;
    }
}

void faults_restore_rates(faults *f)
{
    /* latest first, so a link degraded twice ends at its first original rate */
    for (uint32_t i = f->n; i-- > 0;) {
        fault_ev *fe = &f->f[i];
        if (fe->cfg->kind == FAULT_LINK_DEGRADED && fe->phase == 1)
            net_link_rate(fe->net, fe->link, f->rec[i].orig_rate_bps);
    }
}

const fault_record *faults_records(const faults *f)
{
    for (uint32_t i = 0; i < f->n; i++)
        if (f->f[i].cfg && f->f[i].cfg->kind == FAULT_LINK_BER)
            f->rec[i].corrupted = f->f[i].ber[0].corrupted + f->f[i].ber[1].corrupted;
    return f->rec;
}

const fault_log *faults_timeline(const faults *f, uint32_t *n, uint64_t *total)
{
    *n = f->n_log;
    if (total)
        *total = f->log_total;
    return f->log;
}

void faults_free(faults *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->n; i++)
        xfree(f->f[i].took_down);
    xfree(f->log);
    xfree(f->rec);
    xfree(f->f);
    xfree(f);
}
