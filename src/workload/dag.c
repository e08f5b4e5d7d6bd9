/*
 * dag.c — the workload engine (see dag.h): dependency release over a stored or implicit shape,
 * the connection list, and the packet network behind dag_net (the transport).
 *
 * Cost: a completion touches its successors' counters only; an implicit shape costs a function
 * call that does a few divisions. Starting a run writes every counter once (n words) — the same
 * work every executor did before it used this one.
 */
#include "dag.h"

#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/err.h"
#include "../transport/nic.h"

void dag_run_init(dag_run *r, arena *a, uint32_t cap, uint32_t max_deps, dag_ready_fn ready,
                  void *ctx)
{
    memset(r, 0, sizeof *r);
    r->cap = cap;
    r->ready = ready;
    r->ctx = ctx;
    size_t n = cap ? cap : 1;
    r->owned = !a;
    if (max_deps > UINT16_MAX)
        r->left32 = a ? ARENA_NEW_ARRAY(a, uint32_t, n)
                      : xmalloc(sizeof(uint32_t) * n, "dependency counters");
    else if (max_deps > 1)
        r->left16 = a ? ARENA_NEW_ARRAY(a, uint16_t, n)
                      : xmalloc(sizeof(uint16_t) * n, "dependency counters");
}

void dag_run_free(dag_run *r)
{
    if (r->owned) {
        xfree(r->left16);
        xfree(r->left32);
    }
    r->left16 = NULL;
    r->left32 = NULL;
}

uint32_t dag_conns_add(dag_conns *c, uint32_t src_host, uint32_t dst_host)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->src = xrealloc(c->src, sizeof(uint32_t) * c->cap, "connections");
        c->dst = xrealloc(c->dst, sizeof(uint32_t) * c->cap, "connections");
    }
    c->src[c->n] = src_host;
    c->dst[c->n] = dst_host;
    return c->n++;
}

void dag_conns_free(dag_conns *c)
{
    xfree(c->src);
    xfree(c->dst);
    memset(c, 0, sizeof *c);
}

bool dag_job_gpus(const scenario *sc, uint32_t j, uint32_t gpus, uint32_t n_ranks,
                  uint32_t *gpu_of_rank, err *e)
{
    const cfg_job *job = &sc->jobs[j];
    for (uint32_t r = 0; r < n_ranks; r++) {
        uint32_t g = job->ranks.all ? r : job->ranks.idx[r];
        if (g >= gpus) {
            char key[64];
            snprintf(key, sizeof key, "workload.%u.ranks", j);
            config_error_at(sc, e, key,
                            "workload[%u].ranks: GPU %u does not exist: the fabric has %u GPUs "
                            "(0..%u)",
                            j, g, gpus, gpus ? gpus - 1 : 0);
            return false;
        }
        gpu_of_rank[r] = g;
    }
    return true;
}

static void transport_post_fn(dag_net *n, uint32_t conn, uint64_t bytes, uint64_t cookie);

void dag_net_transport_init(dag_net_transport *d, transport *t, const dag_conns *c, uint32_t job,
                            uint8_t prio)
{
    d->net.post = transport_post_fn;
    d->tp = t;
    d->n = c->n;
    d->job_bits = (uint64_t)job << 40;
    d->flows = NULL;
    for (uint32_t i = 0; i < c->n; i++) {
        flow *f = transport_flow_add(t, job, c->src[i], c->dst[i], 0, prio);
        f->started = true;
        if (!i)
            d->flows = f;
        SIM_ASSERT(f == d->flows + i, "connection %u is not its job's flow %u", i, i);
    }
}

void dag_net_transport_free(dag_net_transport *d)
{
    d->flows = NULL; /* the transport's */
}

#include "../core/hotpath.h"

static void transport_post_fn(dag_net *n, uint32_t conn, uint64_t bytes, uint64_t cookie)
{
    dag_net_transport *d = (dag_net_transport *)n;
    transport_post(d->tp, &d->flows[conn], bytes, d->job_bits | cookie);
}

bool dag_run_start(dag_run *r, const dag_graph *g)
{
    SIM_ASSERT(g->n <= r->cap, "a run of %u nodes in room for %u", g->n, r->cap);
    SIM_ASSERT(g->max_deps <= 1 || r->left16 || r->left32,
               "a shape with %u dependencies per node on a run without counters", g->max_deps);
    SIM_ASSERT(g->max_deps <= UINT16_MAX || r->left32, "%u dependencies in 16-bit counters",
               g->max_deps);
    r->g = g;
    r->done = 0;
    if (!g->n)
        return true;
    if (r->left32)
        for (uint32_t i = 0; i < g->n; i++)
            r->left32[i] = g->deps_fn(g->ctx, i);
    else if (r->left16)
        for (uint32_t i = 0; i < g->n; i++)
            r->left16[i] = (uint16_t)g->deps_fn(g->ctx, i);
    /* counters first, then the roots (by their dependency count, not the counter: a root's owner
     * may complete nodes at once, and a node released that way must not go twice) */
    for (uint32_t i = 0; i < g->n; i++)
        if (!g->deps_fn(g->ctx, i))
            r->ready(r->ctx, i);
    return false;
}

/* Successor s lost one outstanding dependency. */
static inline void release(dag_run *r, uint32_t s)
{
    if (r->left16) {
        if (--r->left16[s] == 0)
            r->ready(r->ctx, s);
    } else if (r->left32) {
        if (--r->left32[s] == 0)
            r->ready(r->ctx, s);
    } else {
        r->ready(r->ctx, s); /* its only dependency */
    }
}

bool dag_run_complete(dag_run *r, uint32_t i)
{
    const dag_graph *g = r->g;
    SIM_ASSERT(g && i < g->n && r->done < g->n, "node %u completes in a run of %u (%u done)", i,
               g ? g->n : 0, r->done);
    r->done++;
    if (r->rec_end)
        r->rec_end[i] = *r->clock;
    if (g->succ_first) {
        for (uint32_t k = g->succ_first[i]; k < g->succ_first[i + 1]; k++)
            release(r, g->succ[k]);
    } else if (g->succ_at_fn) {
        uint32_t out[DAG_SUCC_IMPLICIT_MAX];
        for (uint32_t from = 0;; from += DAG_SUCC_IMPLICIT_MAX) {
            uint32_t m = g->succ_at_fn(g->ctx, i, from, out);
            for (uint32_t k = 0; k < m; k++)
                release(r, out[k]);
            if (m < DAG_SUCC_IMPLICIT_MAX)
                break;
        }
    } else {
        uint32_t out[DAG_SUCC_IMPLICIT_MAX];
        uint32_t m = g->succ_fn(g->ctx, i, out);
        for (uint32_t k = 0; k < m; k++)
            release(r, out[k]);
    }
    return r->done == g->n;
}
