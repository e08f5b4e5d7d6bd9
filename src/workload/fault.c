/*
 * fault.c — fault events (see fault.h). Each fault owns its event; a storm flips between its
 * start and end phase on the same event.
 */
#include "fault.h"

#include <stddef.h>
#include <stdio.h>

#include "../core/alloc.h"

typedef struct fault_ev {
    event ev;
    faults *owner;
    net *net;
    const cfg_fault *cfg;
    port *link;                /* link faults: the link's port on its first node */
    int phase;                 /* 0 = not started, 1 = active, 2 = over */
} fault_ev;

struct faults {
    uint32_t n;
    fault_ev *f;
    fault_gpu_slow_fn gpu_slow;
    void *gpu_slow_ctx;
    fault_link_fn link;
    void *link_ctx;
};

static void fault_fire(void *ctx, event *ev)
{
    fault_ev *fe = (fault_ev *)((char *)ev - offsetof(fault_ev, ev));
    net *n = fe->net;
    (void)ctx;
    if (fe->cfg->kind == FAULT_GPU_SLOW) {
        /* from now on the GPU's compute phases take factor x longer (training executors) */
        if (fe->owner->gpu_slow)
            fe->owner->gpu_slow(fe->owner->gpu_slow_ctx, fe->cfg->gpu, fe->cfg->factor);
        return;
    }
    if (fe->cfg->kind == FAULT_LINK_DOWN || fe->cfg->kind == FAULT_LINK_UP) {
        if (fe->phase == 0) {
            /* the light goes out (or comes back) now; the fabric notices after `detect` and
             * routing has converged `converge` later: until then ECMP keeps hashing onto a
             * dead link and those packets are lost */
            fe->phase = 1;
            net_link_set(n, fe->link, fe->cfg->kind == FAULT_LINK_UP);
            if (fe->owner->link)
                fe->owner->link(fe->owner->link_ctx, fe->link, fe->cfg->kind == FAULT_LINK_UP);
            sim_at(n->sim, &fe->ev, n->sim->now + fe->cfg->detect_ps + fe->cfg->converge_ps);
        } else if (fe->phase == 1) {
            fe->phase = 2;
            net_route(n); /* control plane: recomputes every FIB over the links that are up */
        }
        return;
    }
    node *h = n->hosts[fe->cfg->nic];
    port *p = &h->ports[h->net_port];
    if (fe->phase == 0) {
        fe->phase = 1;
        net_pfc_storm(n, p, true);
        if (fe->cfg->duration_ps != SIM_TIME_MAX)
            sim_at(n->sim, &fe->ev, n->sim->now + fe->cfg->duration_ps);
    } else if (fe->phase == 1) {
        fe->phase = 2;
        net_pfc_storm(n, p, false);
    }
}

/* Check fault i against the built network (and find a link fault's link): 0, or an error at
 * the offending key. */
static int fault_check(net *n, const scenario *sc, uint32_t i, fault_ev *fe, err *e)
{
    const cfg_fault *c = &sc->faults[i];
    char key[40];
    switch (c->kind) {
    case FAULT_GPU_SLOW:
        if (c->gpu < net_gpus(n))
            return 0;
        snprintf(key, sizeof key, "faults.%u.gpu", i);
        return config_error_at(sc, e, key,
                               "faults[%u].gpu: GPU %u does not exist: the fabric has %u GPUs "
                               "(0..%u)",
                               i, c->gpu, net_gpus(n), net_gpus(n) ? net_gpus(n) - 1 : 0);
    case FAULT_LINK_DOWN:
    case FAULT_LINK_UP:
        fe->link = net_find_link(n, c->link);
        if (fe->link)
            return 0;
        snprintf(key, sizeof key, "faults.%u.link", i);
        return config_error_at(sc, e, key,
                               "faults[%u].link: no link \"%s\" in this fabric (write the two "
                               "node names joined by '-', e.g. leaf0-spine1, and #k for the k-th "
                               "parallel link)",
                               i, c->link);
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
    }
    snprintf(key, sizeof key, "faults.%u.kind", i);
    return config_error_at(sc, e, key, "faults[%u].kind: unknown fault kind", i);
}

faults *faults_new(net *n, const scenario *sc, err *e)
{
    faults *fs = xcalloc(1, sizeof *fs, "faults");
    fs->n = sc->n_faults;
    fs->f = xcalloc(fs->n ? fs->n : 1, sizeof(fault_ev), "fault events");
    /* Check every fault before scheduling any: an event queued in the sim must not be freed
     * with the array when a later fault is refused (found by fuzz_run). */
    for (uint32_t i = 0; i < sc->n_faults; i++) {
        if (fault_check(n, sc, i, &fs->f[i], e)) {
            faults_free(fs);
            return NULL;
        }
    }
    for (uint32_t i = 0; i < sc->n_faults; i++) {
        fault_ev *fe = &fs->f[i];
        fe->owner = fs;
        fe->net = n;
        fe->cfg = &sc->faults[i];
        event_init(&fe->ev, fault_fire);
        sim_at(n->sim, &fe->ev, fe->cfg->at_ps);
    }
    return fs;
}

void faults_on_gpu_slow(faults *f, fault_gpu_slow_fn fn, void *ctx)
{
    f->gpu_slow = fn;
    f->gpu_slow_ctx = ctx;
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
        }
        fe->phase = 2;
    }
}

void faults_free(faults *f)
{
    if (!f)
        return;
    xfree(f->f);
    xfree(f);
}
