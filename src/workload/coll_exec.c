/*
 * coll_exec.c — collective executor (see coll_exec.h).
 *
 * The plan runs on the workload engine (dag.h): its shape is coll_plan_graph's (stored successor
 * lists, or none at all for a compact ring plan), a dag_run per iteration releases transfers as
 * their dependencies complete, and a released transfer is posted on its connection through the
 * engine's network interface. Per transfer the executor keeps nothing for a compact plan (its
 * connection is computed); a stored plan adds its connection id and a dependency counter.
 * Reduction delays (when the plan has them) wait in a delay queue (core/delayq.h): one event per
 * job, whatever their number.
 */
#include "coll_exec.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/arena.h"
#include "../core/delayq.h"
#include "../telemetry/trace.h"
#include "collective.h"
#include "dag.h"
#include "sharp.h"

struct coll_exec {
    net *net;
    const scenario *sc;
    const cfg_job *cfg;
    uint32_t job;
    arena mem;
    coll_plan *plan;
    uint32_t n_ranks;
    uint32_t *gpu_of_rank; /* [2 n_ranks + 1 (+ n_an)]: endpoints past the ranks have none */
    sharp_trees sharp;     /* sharp (nvls_tree with switch.sharp): the aggregation trees */
    dag_graph shape;   /* the plan's DAG (implicit for compact ring plans) */
    dag_run run;       /* the running iteration */
    coll_conns pconns; /* the plan's connections */
    dag_conns conns;   /* their hosts */
    dag_net_transport nett;
    dag_net *nw;
    uint8_t prio;
    /* progress */
    uint32_t iter; /* current iteration (0-based) */
    sim_time iter_start;
    sim_time *iter_time;        /* [iterations] */
    sim_time start_ps, end_ps;
    void (*finish_fn)(void *ctx);   /* run.c: the job is done */
    void *finish_ctx;
    bool finished;
    delayq delays;              /* reduction delays (plans with a reduction rate) */
    sim_time *x_start, *x_end;  /* [rec_iters × n_xfers] post / completion (transfers.csv) */
    uint32_t rec_iters;         /* iterations recorded: as many as TRANSFERS_MAX rows allow */
};

static void ready(void *ctx, uint32_t i);
static void post_delayed(void *ctx, uint32_t xfer);

/* The host of plan endpoint e on `channel`: a rank's NIC port, or a SHARP AN (after the
 * plan's NVSwitches, if any). */
static uint32_t ep_host(const coll_exec *x, uint32_t e, uint32_t channel)
{
    if (e >= x->n_ranks)
        return x->sharp.an_host[e - x->n_ranks - x->plan->n_nvs];
    return net_gpu_host(x->net, x->gpu_of_rank[e], channel);
}

/* Is plan endpoint e an NVSwitch (nvls, nvls_tree)? */
static bool is_nvs(const coll_plan *pl, uint32_t e)
{
    return e >= pl->n_ranks && e < pl->n_ranks + pl->n_nvs;
}

static const char *job_key(char *buf, size_t len, uint32_t j, const char *k)
{
    snprintf(buf, len, "workload.%u.%s", j, k);
    return buf;
}

coll_exec *coll_exec_new(net *n, const scenario *sc, uint32_t j, uint64_t *connections, err *e)
{
    const cfg_job *job = &sc->jobs[j];
    coll_exec *x = xcalloc(1, sizeof *x, "collective executor");
    char key[64];
    x->net = n;
    x->sc = sc;
    x->cfg = job;
    x->job = j;
    arena_init(&x->mem, "collective plan");
    uint32_t gpus = net_gpus(n);
    x->n_ranks = job->ranks.all ? gpus : job->ranks.n;
    /* more entries: an nvls plan's NVSwitch endpoint, nvls_tree's one per server (no GPU:
     * TRANSFER_GROUP) */
    x->gpu_of_rank = ARENA_NEW_ARRAY(&x->mem, uint32_t, 2 * (size_t)x->n_ranks + 1);
    for (uint32_t k = x->n_ranks; k < 2 * x->n_ranks + 1; k++)
        x->gpu_of_rank[k] = TRANSFER_GROUP;
    uint32_t *server = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->n_ranks ? x->n_ranks : 1);
    if (!dag_job_gpus(sc, j, gpus, x->n_ranks, x->gpu_of_rank, e)) {
        coll_exec_free(x);
        return NULL;
    }
    for (uint32_t r = 0; r < x->n_ranks; r++)
        server[r] = n->hosts[net_gpu_host(n, x->gpu_of_rank[r], 0)]->server;
    if (x->n_ranks < 2) {
        config_error_at(sc, e, job_key(key, sizeof key, j, "ranks"),
                        "workload[%u].ranks: a collective needs at least 2 ranks, got %u", j,
                        x->n_ranks);
        coll_exec_free(x);
        return NULL;
    }
    if (job->algorithm == ALGO_SHARP || (job->algorithm == ALGO_NVLS_TREE && sc->sw.sharp)) {
        err te;
        err_clear(&te);
        if (sharp_trees_build(n, x->gpu_of_rank, x->n_ranks, &x->mem, &x->sharp, &te)) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "algorithm"), "%s", te.msg);
            coll_exec_free(x);
            return NULL;
        }
        size_t ng = 2 * (size_t)x->n_ranks + 1 + x->sharp.n_an;
        uint32_t *g = ARENA_NEW_ARRAY(&x->mem, uint32_t, ng);
        memcpy(g, x->gpu_of_rank, sizeof(uint32_t) * x->n_ranks);
        for (size_t k = x->n_ranks; k < ng; k++)
            g[k] = TRANSFER_GROUP;
        x->gpu_of_rank = g;
    }
    coll_params p = {
        .op = job->op,
        .algo = job->algorithm,
        .n_ranks = x->n_ranks,
        .server_of_rank = server,
        .gpus_per_server = sc->fabric.gpus_per_server,
        .size_bytes = job->size_bytes,
        .channels = job->channels,
        .pxn = job->pxn,
        .chunk_bytes = job->chunk_bytes,
        .reduce_Bps = job->reduce_bps / 8,
        .compact = true,
        .n_an = x->sharp.n_an,
        .an_parent = x->sharp.parent,
    };
    err pe;
    err_clear(&pe);
    x->plan = coll_plan_build(&p, &x->mem, &pe);
    if (!x->plan) {
        config_error_at(sc, e, job_key(key, sizeof key, j, "algorithm"), "%s", pe.msg);
        coll_exec_free(x);
        return NULL;
    }
    const coll_plan *pl = x->plan;
    coll_plan_graph(pl, &x->mem, &x->shape);
    dag_run_init(&x->run, &x->mem, pl->n_xfers, x->shape.max_deps, ready, x);
    coll_plan_conns(pl, &x->mem, &x->pconns);
    for (uint32_t c = 0; c < x->pconns.n; c++) {
        uint32_t s = x->pconns.src[c], d = x->pconns.dst[c], ch = x->pconns.channel[c];
        if (is_nvs(pl, s) || is_nvs(pl, d)) {
            /* nvls: a fluid flow on the GPU's own host; to the switch it takes the GPU's
             * NVLink egress, from the switch its ingress (coll_exec_connect) */
            uint32_t h = net_gpu_host(n, x->gpu_of_rank[is_nvs(pl, s) ? d : s], ch);
            dag_conns_add(&x->conns, h, h);
        } else {
            dag_conns_add(&x->conns, ep_host(x, s, ch), ep_host(x, d, ch));
        }
    }
    x->iter_time = ARENA_NEW_ARRAY(&x->mem, sim_time, job->iterations ? job->iterations : 1);
    x->prio = (uint8_t)(job->priority < 0 ? sc->nic.priority : job->priority);
    *connections = x->conns.n;
    return x;
}

void coll_exec_connect(coll_exec *x, transport *t)
{
    uint64_t nx = x->plan->n_xfers;
    /* transfers.csv is part of the csv output (html implies csv): record only for it */
    bool csv = x->sc->output_formats & (OUT_CSV | OUT_HTML);
    x->rec_iters = nx && csv ? (uint32_t)(TRANSFERS_MAX / nx) : 0;
    if (x->rec_iters > x->cfg->iterations)
        x->rec_iters = x->cfg->iterations;
    if (x->rec_iters) {
        x->x_start = xcalloc((size_t)x->rec_iters * nx, sizeof(sim_time), "transfer times");
        x->x_end = xcalloc((size_t)x->rec_iters * nx, sizeof(sim_time), "transfer times");
    }
    dag_net_transport_init(&x->nett, t, &x->conns, x->job, x->prio);
    x->nw = &x->nett.net;
    if (x->plan->nvswitch)
        for (uint32_t c = 0; c < x->pconns.n; c++)
            if (is_nvs(x->plan, x->pconns.src[c]))
                x->nett.flows[c].nvl_in = true;
    /* room for every transfer waiting on its reduction at once (only if the plan has any) */
    delayq_init(&x->delays, x->net->sim, x->plan->reduce_Bps ? coll_plan_max_ready(x->plan) : 1,
                post_delayed, x);
}

void coll_exec_result(const coll_exec *x, job_result *jr)
{
    const cfg_job *j = x->cfg;
    jr->ranks = x->n_ranks;
    jr->completed = x->finished;
    jr->n_iterations = x->iter < j->iterations ? x->iter : j->iterations;
    jr->iterations = xcalloc(jr->n_iterations ? jr->n_iterations : 1, sizeof(iter_result),
                             "iteration results");
    sim_time sum = 0;
    for (uint32_t k = 0; k < jr->n_iterations; k++) {
        iter_result *it = &jr->iterations[k];
        it->time_ps = x->iter_time[k];
        it->algbw_GBps = coll_algbw_GBps(j->op, j->size_bytes, x->n_ranks, it->time_ps);
        it->busbw_GBps = coll_busbw_GBps(j->op, j->size_bytes, x->n_ranks, it->time_ps);
        sum += it->time_ps;
    }
    /* As nccl-tests reports them: the time averaged over the iterations, then the bandwidths of
     * that mean time (common.cu divides the timed loop by its iteration count before getBw);
     * a mean of per-iteration bandwidths would weigh a fast iteration more than a slow one. */
    if (jr->n_iterations) {
        sim_time mean = sum / jr->n_iterations;
        jr->algbw_GBps = coll_algbw_GBps(j->op, j->size_bytes, x->n_ranks, mean);
        jr->busbw_GBps = coll_busbw_GBps(j->op, j->size_bytes, x->n_ranks, mean);
    }
    if (x->finished) {
        jr->end_ps = x->end_ps;
        jr->jct_ps = x->end_ps - x->start_ps;
    }
}

const uint32_t *coll_exec_an_hosts(const coll_exec *x, uint32_t *n_an)
{
    *n_an = x->sharp.n_an;
    return x->sharp.an_host;
}

const coll_plan *coll_exec_plan(const coll_exec *x, const uint32_t **gpu_of_rank)
{
    *gpu_of_rank = x->gpu_of_rank;
    return x->plan;
}

void coll_exec_transfers(const coll_exec *x, uint32_t j, transfer_record *out, uint64_t *n,
                         uint64_t cap, uint64_t *dropped)
{
    const coll_plan *pl = x->plan;
    uint32_t done = x->finished ? x->cfg->iterations : x->iter;
    for (uint32_t it = 0; it < done; it++) {
        if (it >= x->rec_iters || *n + pl->n_xfers > cap) {
            *dropped += pl->n_xfers;
            continue;
        }
        if (!out) { /* counting pass */
            *n += pl->n_xfers;
            continue;
        }
        for (uint32_t i = 0; i < pl->n_xfers; i++) {
            coll_xfer buf;
            const coll_xfer *t = coll_plan_xfer(pl, i, &buf);
            transfer_record *r = &out[(*n)++];
            r->job = j;
            r->iteration = it;
            r->step = t->step;
            r->phase = coll_op_name(pl->op);
            r->src_gpu = x->gpu_of_rank[t->src];
            r->dst_gpu = x->gpu_of_rank[t->dst];
            r->bytes = t->bytes;
            r->start_ps = x->x_start[(size_t)it * pl->n_xfers + i];
            r->end_ps = x->x_end[(size_t)it * pl->n_xfers + i];
        }
    }
}

void coll_exec_on_finish(coll_exec *x, void (*fn)(void *ctx), void *ctx)
{
    x->finish_fn = fn;
    x->finish_ctx = ctx;
}

void coll_exec_free(coll_exec *x)
{
    if (!x)
        return;
    arena_free(&x->mem);
    xfree(x->x_start);
    xfree(x->x_end);
    dag_conns_free(&x->conns);
    dag_net_transport_free(&x->nett);
    if (x->delays.heap)
        delayq_free(&x->delays);
    xfree(x);
}

void coll_exec_trace(const coll_exec *x, trace_writer *tw)
{
    const cfg_job *j = x->cfg;
    uint32_t pid = trace_process(tw, j->name);
    char name[64];
    snprintf(name, sizeof name, "%s %s", coll_op_name(j->op), coll_algo_name(j->algorithm));
    uint32_t done = x->finished ? j->iterations : x->iter;
    for (uint32_t r = 0; r < x->n_ranks; r++) {
        char row[48];
        snprintf(row, sizeof row, "rank %u (GPU %u)", r, x->gpu_of_rank[r]);
        uint32_t tid = trace_thread(tw, pid, row);
        sim_time t = x->start_ps;
        for (uint32_t k = 0; k < done; k++) {
            char it[80];
            snprintf(it, sizeof it, "%s #%u", name, k);
            trace_complete(tw, pid, tid, it, "collective", t, x->iter_time[k]);
            t += x->iter_time[k];
        }
    }
}

#include "../core/hotpath.h"

static void post(coll_exec *x, uint32_t i)
{
    coll_xfer buf;
    uint32_t conn;
    const coll_xfer *t = coll_plan_xfer_conn(x->plan, &x->pconns, i, &buf, &conn);
    dag_run_started(&x->run, i);
    dag_net_post(x->nw, conn, t->bytes, i);
}

/* Transfer i may go: after the sender's reduction time, if any. */
static void ready(void *ctx, uint32_t i)
{
    coll_exec *x = ctx;
    coll_xfer buf;
    sim_time d = coll_xfer_compute_ps(x->plan, coll_plan_xfer(x->plan, i, &buf));
    if (d)
        delayq_push(&x->delays, x->net->sim->now + d, i);
    else
        post(x, i);
}

static void post_delayed(void *ctx, uint32_t xfer)
{
    post(ctx, xfer);
}

static void start_iteration(coll_exec *x)
{
    x->iter_start = x->net->sim->now;
    size_t row = (size_t)x->iter * x->plan->n_xfers;
    if (x->iter < x->rec_iters)
        dag_run_record(&x->run, &x->net->sim->now, x->x_start + row, x->x_end + row);
    else
        dag_run_record(&x->run, NULL, NULL, NULL);
    if (dag_run_start(&x->run, &x->shape))
        coll_exec_on_msg(x, UINT64_MAX);
}

void coll_exec_start(coll_exec *x)
{
    x->start_ps = x->net->sim->now;
    x->iter = 0;
    start_iteration(x);
}

void coll_exec_on_msg(coll_exec *x, uint64_t xfer)
{
    if (xfer != UINT64_MAX) {
        uint32_t i = (uint32_t)xfer;
        if (!dag_run_complete(&x->run, i))
            return;
    }
    sim_time now = x->net->sim->now;
    x->iter_time[x->iter] = now - x->iter_start;
    if (++x->iter < x->cfg->iterations) {
        start_iteration(x);
        return;
    }
    x->finished = true;
    x->end_ps = now;
    if (x->finish_fn)
        x->finish_fn(x->finish_ctx);
}

bool coll_exec_finished(const coll_exec *x) { return x->finished; }
