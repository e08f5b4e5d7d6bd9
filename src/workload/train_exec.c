/*
 * train_exec.c — training-job executor (see train_exec.h).
 *
 * The iteration runs on the workload engine (dag.h): the plan's tasks are the nodes of one
 * dag_run per iteration, which releases each task as its dependencies end; a released task is
 * run here (a compute delay on its lane, a P2P message, a collective on its communicator) and
 * reported back with dag_run_complete when it ends. Per task and iteration the executor keeps
 * its start and end time (for the breakdown). Compute tasks and analytic (scale-up) collectives
 * wait in one delay queue of (end time, task) served by one event (core/delayq.h): a rank runs
 * one compute at a time (the plan's chain invariant) and a group one collective at a time (its
 * FIFO), so it never holds more than ranks + groups entries and is sized once at build.
 *
 * Cross-server collectives. Each group that spans servers ("xgroup") owns the connections of its
 * ring — one flow per distinct (src, dst, channel) of its plans, created at build — and one
 * engine run (a join: the collective task ends when the run of its plan, repeated `count`
 * times, has). Plans are shared by every group with the same (op, size, bytes, server layout)
 * and compact where regular (collective.h); a (group, plan) binding maps the plan's connections
 * onto the group's flows. Every message goes out through the engine's network interface.
 *
 * Cookies (the low 40 bits of a message's cookie belong to the executor): bit 39 clear: a P2P
 * task, the task index; bit 39 set: a collective transfer, xgroup.cookie_base + transfer index
 * (the bases partition [0, 2^39) by each group's largest plan; the group is found by binary
 * search).
 */
#include "train_exec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/delayq.h"
#include "../telemetry/trace.h"
#include "../core/arena.h"
#include "chakra_plan.h"
#include "collective.h"
#include "dag.h"

#define COOKIE_COLL (1ull << 39)
/* bit 39 clear, bit 38 set: a storage I/O message (checkpoint write, model load), the writer */
#define COOKIE_IO (1ull << 38)
/* bits 39, 38 clear, bit 37 set: a dataset read (dataset.sample_bytes), the reader */
#define COOKIE_DS (1ull << 37)
enum { IO_NONE, IO_CKPT, IO_CKPT_ASYNC, IO_LOAD };
#define NONE UINT32_MAX

/* One cached collective plan and what the executor needs to run it. */
typedef struct cplan {
    enum coll_op op;
    uint32_t n;
    uint64_t bytes;
    uint32_t *layout; /* [n] server of each group rank, renumbered by first appearance */
    coll_plan *pl;
    dag_graph shape; /* the plan's DAG for the engine */
    coll_conns lc;   /* plan-local connections: (src, dst) group ranks, channel */
} cplan;

/* A (group, plan) pair: plan-local connection i is the executor's connection map[i]. */
typedef struct xbind {
    uint32_t cp;
    uint32_t xg;
    uint32_t *map;
    uint32_t next; /* the group's next binding, NONE at the end */
} xbind;

typedef struct xgroup {
    struct train_exec *x;
    uint32_t group;
    uint64_t cookie_base;
    uint32_t max_xfers, max_deps;
    uint32_t binds; /* first binding */
    dag_run run;    /* the running instance of one of its plans */
    uint32_t task, bind, repeats;
} xgroup;

struct train_exec {
    net *net;
    const scenario *sc;
    const cfg_job *cfg;
    uint32_t job;
    arena mem;
    train_plan *plan;
    uint32_t n_ranks;
    uint32_t *gpu_of_rank;
    double *factor; /* [n_ranks] compute slowdown */
    train_ab_cost nvl;
    /* per task */
    dag_graph shape; /* the iteration's task DAG */
    dag_run run;     /* the running iteration */
    uint32_t *aux;   /* [n_tasks − aux0] P2P: connection; COLL: binding (cross-server) or NONE
                      * (scale-up) */
    uint32_t aux0;   /* the first task aux holds (a compact plan's block_end: the tasks of the
                      * replicas' blocks are compute and scale-up TP all_reduces) */
    uint32_t *qnext; /* [n_tasks − aux0] group FIFO link; compute lane FIFO link (a compact
                      * plan's block tasks never wait: a rank's computes and a group's
                      * collectives are chains) */
    /* compute lanes (GPU, CPU) per rank: one task at a time, the rest wait in ready order
     * (training plans' compute chains never queue; Chakra traces may) */
    uint8_t *lbusy;
    uint32_t *lq_head, *lq_tail; /* [2 × n_ranks] */
    bool chakra;                 /* the plan is a Chakra trace's (chakra_plan.h) */
    sim_time *t_start, *t_end;   /* [iterations × n_tasks] */
    /* groups */
    uint32_t *q_head, *q_tail; /* [n_groups] ready collectives waiting for their communicator */
    uint8_t *busy;
    uint32_t *xg_of_group;
    uint32_t n_xg;
    xgroup *xg;
    uint32_t xg_shift; /* > 0: group i's cookies start at i << xg_shift (no search) */
    uint32_t n_cp;
    cplan *cp;
    uint32_t n_bind;
    xbind *bind;
    /* connections */
    dag_conns conns;
    dag_net_transport nett;
    dag_net *nw;
    uint8_t prio;
    /* delays */
    delayq delays; /* compute phases and scale-up collectives in progress */
    uint32_t delay_cap;
    /* progress */
    uint32_t iter;
    sim_time iter_start;
    sim_time *iter_time;
    sim_time start_ps, end_ps;
    bool started, finished;
    /* checkpoint/restart (gpu-fail) */
    event ckpt_ev;        /* a checkpoint write ends, or the restart begins */
    int ckpt_phase;       /* 0 idle, 1 writing, 2 waiting for the restart */
    bool dead;            /* stopped by a failed GPU, not yet restarted */
    bool restart_due;     /* the restart time has passed; waits for stale messages */
    uint32_t last_ckpt;   /* iterations the last checkpoint holds */
    sim_time resume_ps;   /* when the state of last_ckpt was reached (write ended) */
    uint64_t outstanding; /* messages posted and not yet completed */
    uint64_t stale;       /* of them, posted before the failure: discarded */
    uint32_t restarts, ckpt_writes;
    sim_time ckpt_ps, lost_ps, restart_ps, fail_at;
    /* storage I/O over fabric.storage (checkpoint size, model_load): one writer per rank, or
     * per TP x PP shard (writers: shard); writer w's connections to storage server w mod S */
    uint32_t n_io;
    uint32_t *io_wconn, *io_rconn;          /* [n_io] client -> server, server -> client */
    uint64_t io_write_bytes, io_read_bytes; /* per writer (the first ones take the remainder) */
    uint32_t io_write_extra, io_read_extra; /* writers that move one byte more */
    int io_kind;                            /* IO_*: what the running I/O is */
    uint32_t io_left;                       /* its messages not yet arrived */
    uint32_t io_iter;                       /* iterations its checkpoint holds */
    sim_time io_start;
    bool io_blocked;     /* an async checkpoint is due while the previous one is written */
    bool finish_wait;    /* the last iteration is done; the async write is not */
    sim_time load_ps;    /* model_load: from the job's start to its first step */
    sim_time ckpt_io_ps; /* checkpoint writes: posted to last byte on storage (summed) */
    /* dataset reads (dataset.sample_bytes): reader i reads ds_bytes per iteration on its
     * connection ds_conn[i] from storage server i mod S. One batch is read at a time: the batch
     * of iteration ds_batch, in flight (ds_left > 0) or arrived (ds_ready). */
    uint32_t n_ds;
    uint32_t *ds_conn;
    uint64_t ds_bytes;
    uint32_t ds_batch, ds_left;
    bool ds_ready, ds_wait; /* ds_wait: iteration x->iter waits for its batch */
    sim_time ds_start, ds_wait_from;
    sim_time ds_read_ps, ds_stall_ps;
    uint32_t ds_batches;
    void (*on_finish)(void *ctx); /* called once the last iteration has completed */
    void *on_finish_ctx;
};

static void delay_done(void *ctx, uint32_t task);
static void task_ready(void *ctx, uint32_t i);
static void xg_post_ready(void *ctx, uint32_t xf);
static void ckpt_fire(void *ctx, event *ev);
static void io_post(train_exec *x, int kind);

/* ---- build -------------------------------------------------------------------------------- */

/* Open-addressing map of connection keys (a: group or P2P marker and channel; b: src, dst). */
typedef struct ctab {
    uint64_t *ka, *kb;
    uint32_t *val;
    uint32_t cap;
} ctab;

static void ctab_init(ctab *t, uint64_t want)
{
    t->cap = 1024;
    while (t->cap < 2 * want && t->cap < (1u << 30))
        t->cap <<= 1;
    t->ka = xmalloc(sizeof(uint64_t) * t->cap, "connection table");
    t->kb = xmalloc(sizeof(uint64_t) * t->cap, "connection table");
    t->val = xmalloc(sizeof(uint32_t) * t->cap, "connection table");
    memset(t->ka, 0xFF, sizeof(uint64_t) * t->cap);
}

static void ctab_free(ctab *t)
{
    xfree(t->ka);
    xfree(t->kb);
    xfree(t->val);
}

/* Connection for key (a, b): existing, or a new one from src_host to dst_host. */
static uint32_t conn_get(train_exec *x, ctab *t, uint64_t a, uint64_t b, uint32_t src_host,
                         uint32_t dst_host)
{
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
    uint32_t s = (uint32_t)(h >> 33) & (t->cap - 1);
    while (t->ka[s] != UINT64_MAX && !(t->ka[s] == a && t->kb[s] == b))
        s = (s + 1) & (t->cap - 1);
    if (t->ka[s] != UINT64_MAX)
        return t->val[s];
    SIM_ASSERT(x->conns.n < t->cap / 2, "connection table full (%u)", x->conns.n);
    t->ka[s] = a;
    t->kb[s] = b;
    return t->val[s] = dag_conns_add(&x->conns, src_host, dst_host);
}

static const char *job_key(char *buf, size_t len, uint32_t j, const char *k)
{
    snprintf(buf, len, "workload.%u.%s", j, k);
    return buf;
}

static uint32_t host_server(const train_exec *x, uint32_t rank)
{
    return x->net->hosts[net_gpu_host(x->net, x->gpu_of_rank[rank], 0)]->server;
}

/* The cached plan for (op, bytes) over group g's layout; builds it on first use. */
static uint32_t plan_for(train_exec *x, uint32_t g, enum coll_op op, uint64_t bytes,
                         uint32_t *cap_cp, err *e)
{
    const train_plan *P = x->plan;
    const train_group *G = &P->groups[g];
    uint32_t n = G->n;
    uint32_t *lay = xmalloc(sizeof(uint32_t) * 2 * n, "collective layout");
    uint32_t *seen = lay + n, ns = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = host_server(x, P->members[G->off + i]), k = 0;
        while (k < ns && seen[k] != s)
            k++;
        if (k == ns)
            seen[ns++] = s;
        lay[i] = k;
    }
    for (uint32_t c = 0; c < x->n_cp; c++) {
        const cplan *q = &x->cp[c];
        if (q->op == op && q->n == n && q->bytes == bytes &&
            !memcmp(q->layout, lay, sizeof(uint32_t) * n)) {
            xfree(lay);
            return c;
        }
    }
    if (x->n_cp == *cap_cp) {
        *cap_cp = *cap_cp ? 2 * *cap_cp : 16;
        x->cp = xrealloc(x->cp, sizeof(cplan) * *cap_cp, "collective plans");
    }
    cplan *q = &x->cp[x->n_cp];
    memset(q, 0, sizeof *q);
    q->op = op;
    q->n = n;
    q->bytes = bytes;
    q->layout = ARENA_NEW_ARRAY(&x->mem, uint32_t, n);
    memcpy(q->layout, lay, sizeof(uint32_t) * n);
    xfree(lay);
    coll_params cp = {
        .op = op,
        .algo = op == OP_ALL_TO_ALL ? ALGO_DIRECT : ALGO_RING, /* MoE dispatch / combine */
        .a2a_skew = op == OP_ALL_TO_ALL ? P->opts.moe_skew : 0,
        .n_ranks = n,
        .server_of_rank = q->layout,
        .gpus_per_server = 1,
        .size_bytes = bytes,
        .channels = 1,
        .compact = true,
    };
    q->pl = coll_plan_build(&cp, &x->mem, e);
    if (!q->pl)
        return NONE;
    coll_plan_graph(q->pl, &x->mem, &q->shape);
    coll_plan_conns(q->pl, &x->mem, &q->lc);
    return x->n_cp++;
}

static uint32_t task_deps(const void *ctx, uint32_t i)
{
    return ((const train_plan *)ctx)->tasks[i].n_deps;
}

static uint32_t compact_deps(const void *ctx, uint32_t i)
{
    return train_plan_n_deps(ctx, i);
}

_Static_assert(TRAIN_LIST_BATCH == DAG_SUCC_IMPLICIT_MAX, "successor batches differ");

static uint32_t compact_succ(const void *ctx, uint32_t i, uint32_t from, uint32_t *out)
{
    return train_plan_succ(ctx, i, from, out);
}

static bool use_compact = true;

void train_exec_compact_plans(bool on)
{
    use_compact = on;
}

/* Whether every TP group of plan P sits inside one server of the network (a compact plan's
 * TP all_reduces must be scale-up ones: its blocks have no connections). */
static bool tp_local(const train_exec *x, const train_plan *P)
{
    for (uint32_t g = 0; g < P->n_tp_groups; g++) {
        const train_group *G = &P->groups[g];
        uint32_t s0 = host_server(x, P->members[G->off]);
        for (uint32_t i = 1; i < G->n; i++)
            if (host_server(x, P->members[G->off + i]) != s0)
                return false;
    }
    return true;
}

/* Apply the training keys the planner has but train_opts_from_job does not copy. */
static void opts_extra(train_opts *o, const cfg_job *j)
{
    if (j->model_ffn)
        o->model.ffn = j->model_ffn;
    if (j->model_heads)
        o->model.heads = j->model_heads;
    if (j->model_kv_heads)
        o->model.kv_heads = j->model_kv_heads;
    o->order = j->order == PAR_ORDER_TP_PP_DP ? TRAIN_ORDER_TP_PP_DP : TRAIN_ORDER_TP_DP_PP;
    o->placement =
        j->placement == PAR_PLACE_SCATTERED ? TRAIN_PLACE_SCATTERED : TRAIN_PLACE_CONTIGUOUS;
    o->tp_per_layer = j->tp_per_layer;
    o->dp_sharded = j->opt_sharded;
    o->recompute = j->recompute;
    o->bucket_bytes = j->bucket_bytes; /* 0 = auto, resolved by the plan */
}

train_exec *train_exec_new(net *n, const scenario *sc, uint32_t j, uint64_t *connections, err *e)
{
    const cfg_job *job = &sc->jobs[j];
    train_exec *x = xcalloc(1, sizeof *x, "training executor");
    char key[64];
    x->net = n;
    x->sc = sc;
    x->cfg = job;
    x->job = j;
    event_init(&x->ckpt_ev, ckpt_fire);
    arena_init(&x->mem, "training executor");
    uint32_t gpus = net_gpus(n);
    x->n_ranks = job->ranks.all ? gpus : job->ranks.n;
    chakra_trace tr;
    memset(&tr, 0, sizeof tr);
    if (job->kind == JOB_CHAKRA) {
        /* the trace decides the job's size: ranks: all = GPUs 0..n-1 */
        err ce;
        err_clear(&ce);
        if (chakra_load(&tr, job->trace_files, (int)job->n_trace_files, &ce)) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "trace"),
                            "workload[%u].trace: %s: %s", j, ce.file, ce.msg);
            train_exec_free(x);
            return NULL;
        }
        if (job->ranks.all && tr.n_ranks > gpus) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "trace"),
                            "workload[%u].trace: the trace has %u ranks and the fabric %u GPUs", j,
                            tr.n_ranks, gpus);
            chakra_free(&tr);
            train_exec_free(x);
            return NULL;
        }
        if (!job->ranks.all && job->ranks.n != tr.n_ranks) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "ranks"),
                            "workload[%u].ranks: %u GPUs for a trace of %u ranks (one GPU per "
                            "rank, rank i on the i-th GPU listed)",
                            j, job->ranks.n, tr.n_ranks);
            chakra_free(&tr);
            train_exec_free(x);
            return NULL;
        }
        x->n_ranks = tr.n_ranks;
    }
    x->gpu_of_rank = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->n_ranks ? x->n_ranks : 1);
    if (!dag_job_gpus(sc, j, gpus, x->n_ranks, x->gpu_of_rank, e)) {
        chakra_free(&tr);
        train_exec_free(x);
        return NULL;
    }
    if (job->kind == JOB_CHAKRA) {
        x->chakra = true;
        err ce;
        err_clear(&ce);
        x->plan = chakra_plan_new(&tr, x->gpu_of_rank, sc->fabric.gpus_per_server, &ce);
        chakra_free(&tr);
        if (!x->plan)
            config_error_at(sc, e, job_key(key, sizeof key, j, "trace"),
                            "workload[%u].trace: %s: %s", j, ce.file, ce.msg);
    } else {
        train_opts o;
        train_opts_from_job(&o, job, sc->file, x->n_ranks, x->gpu_of_rank,
                            sc->fabric.gpus_per_server);
        opts_extra(&o, job);
        o.compact = use_compact;
        x->plan = train_plan_new(&o, e);
        if (x->plan && x->plan->cx && !tp_local(x, x->plan)) {
            train_plan_free(x->plan);
            o.compact = false;
            x->plan = train_plan_new(&o, e);
        }
    }
    if (!x->plan) {
        train_exec_free(x);
        return NULL;
    }
    const train_plan *P = x->plan;
    uint32_t nt = P->n_tasks, ng = P->n_groups;
    size_t szt = nt ? nt : 1;
    x->factor = ARENA_NEW_ARRAY(&x->mem, double, x->n_ranks ? x->n_ranks : 1);
    for (uint32_t r = 0; r < x->n_ranks; r++)
        x->factor[r] = 1.0;
    x->nvl = (train_ab_cost){
        .tp_alpha_ps = sc->fabric.scale_up_latency_ps,
        .pp_alpha_ps = sc->fabric.scale_up_latency_ps,
        .dp_alpha_ps = sc->fabric.scale_up_latency_ps,
        .tp_bw_bps = sc->fabric.scale_up_achieved_bps,
        .pp_bw_bps = sc->fabric.scale_up_achieved_bps,
        .dp_bw_bps = sc->fabric.scale_up_achieved_bps,
    };
    uint32_t max_deps = train_plan_max_deps(P);
    if (P->cx) {
        /* the iteration's DAG for the engine: the compact plan's own arithmetic */
        x->shape = (dag_graph){.n = nt,
                               .max_deps = max_deps,
                               .succ_at_fn = compact_succ,
                               .deps_fn = compact_deps,
                               .ctx = P};
    } else {
        /* the plan's successor lists as one CSR */
        uint32_t *first = ARENA_NEW_ARRAY(&x->mem, uint32_t, szt + 1), edges = 0;
        for (uint32_t i = 0; i < nt; i++) {
            first[i] = edges;
            edges += P->tasks[i].n_succ;
        }
        first[nt] = edges;
        uint32_t *succ = ARENA_NEW_ARRAY(&x->mem, uint32_t, edges ? edges : 1);
        for (uint32_t i = 0; i < nt; i++)
            memcpy(succ + first[i], P->succ + P->tasks[i].succ_off,
                   sizeof(uint32_t) * P->tasks[i].n_succ);
        x->shape = (dag_graph){.n = nt,
                               .max_deps = max_deps,
                               .succ_first = first,
                               .succ = succ,
                               .deps_fn = task_deps,
                               .ctx = P};
    }
    dag_run_init(&x->run, &x->mem, nt, max_deps, task_ready, x);
    x->aux0 = P->block_end;
    x->aux = ARENA_NEW_ARRAY(&x->mem, uint32_t, nt - x->aux0 ? nt - x->aux0 : 1);
    x->qnext = ARENA_NEW_ARRAY(&x->mem, uint32_t, nt - x->aux0 ? nt - x->aux0 : 1);
    uint32_t iters = job->iterations ? job->iterations : 1;
    x->t_start = xmalloc(sizeof(sim_time) * szt * iters, "training task times");
    x->t_end = xmalloc(sizeof(sim_time) * szt * iters, "training task times");
    x->iter_time = ARENA_NEW_ARRAY(&x->mem, sim_time, iters);
    x->q_head = ARENA_NEW_ARRAY(&x->mem, uint32_t, ng ? ng : 1);
    x->q_tail = ARENA_NEW_ARRAY(&x->mem, uint32_t, ng ? ng : 1);
    x->busy = ARENA_NEW_ARRAY(&x->mem, uint8_t, ng ? ng : 1);
    x->xg_of_group = ARENA_NEW_ARRAY(&x->mem, uint32_t, ng ? ng : 1);
    memset(x->busy, 0, ng ? ng : 1);

    /* which groups span servers */
    x->xg = xcalloc(ng ? ng : 1, sizeof(xgroup), "cross-server groups");
    for (uint32_t g = 0; g < ng; g++) {
        const train_group *G = &P->groups[g];
        x->q_head[g] = x->q_tail[g] = NONE;
        x->xg_of_group[g] = NONE;
        if (G->kind == TRAIN_GROUP_PP)
            continue;
        uint32_t s0 = host_server(x, P->members[G->off]);
        bool local = true;
        for (uint32_t i = 1; i < G->n && local; i++)
            local = host_server(x, P->members[G->off + i]) == s0;
        if (local)
            continue;
        xgroup *xg = &x->xg[x->n_xg];
        xg->group = g;
        xg->binds = NONE;
        xg->task = NONE;
        x->xg_of_group[g] = x->n_xg++;
    }

    /* connections: P2P pairs, then each cross-server collective's plan and binding */
    ctab t;
    ctab_init(&t, (uint64_t)P->stats.p2p + 4ull * x->n_ranks);
    uint32_t cap_cp = 0, cap_bind = 0;
    err pe;
    err_clear(&pe);
    train_task kbuf;
    for (uint32_t i = x->aux0; i < nt; i++) {
        const train_task *k = train_plan_task(P, i, &kbuf);
        uint32_t *aux = &x->aux[i - x->aux0];
        *aux = NONE;
        if (k->kind == TRAIN_P2P) {
            uint32_t sh = net_gpu_host(n, x->gpu_of_rank[k->rank], 0);
            uint32_t dh = net_gpu_host(n, x->gpu_of_rank[k->dst], 0);
            *aux = conn_get(x, &t, UINT64_MAX - 1, ((uint64_t)k->rank << 32) | k->dst, sh, dh);
            continue;
        }
        if (k->kind != TRAIN_COLL || x->xg_of_group[k->group] == NONE)
            continue;
        uint32_t xi = x->xg_of_group[k->group];
        xgroup *xg = &x->xg[xi];
        uint64_t per = k->count > 1 ? k->bytes / k->count : k->bytes;
        uint32_t c = plan_for(x, k->group, (enum coll_op)k->op, per, &cap_cp, &pe);
        if (c == NONE) {
            config_error_at(sc, e, job_key(key, sizeof key, j, x->chakra ? "trace" : "parallelism"),
                            "workload[%u]: the %s collective of a group spanning servers: %s", j,
                            coll_op_name((enum coll_op)k->op), pe.msg);
            ctab_free(&t);
            train_exec_free(x);
            return NULL;
        }
        uint32_t b = xg->binds;
        while (b != NONE && x->bind[b].cp != c)
            b = x->bind[b].next;
        if (b == NONE) {
            if (x->n_bind == cap_bind) {
                cap_bind = cap_bind ? 2 * cap_bind : 64;
                x->bind = xrealloc(x->bind, sizeof(xbind) * cap_bind, "collective bindings");
            }
            b = x->n_bind++;
            const cplan *q = &x->cp[c];
            xbind *B = &x->bind[b];
            B->cp = c;
            B->xg = xi;
            B->next = xg->binds;
            xg->binds = b;
            B->map = ARENA_NEW_ARRAY(&x->mem, uint32_t, q->lc.n ? q->lc.n : 1);
            const train_group *G = &P->groups[k->group];
            for (uint32_t l = 0; l < q->lc.n; l++) {
                uint32_t s = q->lc.src[l], d = q->lc.dst[l], ch = q->lc.channel[l];
                uint32_t rs = P->members[G->off + s], rd = P->members[G->off + d];
                B->map[l] = conn_get(x, &t, ((uint64_t)xi << 32) | ch, ((uint64_t)s << 32) | d,
                                     net_gpu_host(n, x->gpu_of_rank[rs], ch),
                                     net_gpu_host(n, x->gpu_of_rank[rd], ch));
            }
            if (q->pl->n_xfers > xg->max_xfers)
                xg->max_xfers = q->pl->n_xfers;
            if (q->shape.max_deps > xg->max_deps)
                xg->max_deps = q->shape.max_deps;
        }
        *aux = b;
    }
    ctab_free(&t);
    if (job->ckpt_bytes || job->load_bytes) {
        /* Writers. Megatron-LM's distributed checkpoint with a fully parallel save
         * (megatron/core/dist_checkpointing/strategies/fully_parallel.py) and PyTorch DCP
         * (torch.distributed.checkpoint: every rank writes its own shards, replicated tensors
         * deduplicated across ranks) spread the write over every rank: `all`. Megatron's legacy
         * format (megatron/training/checkpointing.py) saves from data-parallel rank 0 of each
         * (TP, PP) shard only: `shard`. The model is read by every rank: its shard of
         * size / (tp x pp), each DP replica reading its own copy. */
        uint32_t S = n->n_stor_srv, w = 0;
        x->io_wconn = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->n_ranks);
        x->io_rconn = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->n_ranks);
        for (uint32_t r = 0; r < x->n_ranks; r++) {
            if (job->ckpt_shard_writers && P->ranks[r].dp != 0)
                continue;
            uint32_t c = net_storage_client(n, x->gpu_of_rank[r]), srv = n->stor_srv0 + w % S;
            for (int d = 0; d < 2; d++)
                (d ? x->io_rconn : x->io_wconn)[w] =
                    dag_conns_add(&x->conns, d ? srv : c, d ? c : srv);
            w++;
        }
        x->n_io = w;
        x->io_write_bytes = job->ckpt_bytes / w;
        x->io_write_extra = (uint32_t)(job->ckpt_bytes % w);
        /* model load: each rank its shard; shard writers read the whole model between them */
        uint64_t shards = (uint64_t)P->tp * P->pp;
        uint64_t per = job->ckpt_shard_writers ? job->load_bytes / w : job->load_bytes / shards;
        x->io_read_bytes = per;
        x->io_read_extra = job->ckpt_shard_writers ? (uint32_t)(job->load_bytes % w) : 0;
    }
    if (job->ds_sample_bytes) {
        /* Readers, as Megatron-LM's get_batch reads data: tensor-parallel rank 0 of the first
         * pipeline stage (tokens) and of the last (labels) call next(data_iterator) and
         * broadcast the batch to their TP group over the scale-up domain (not modelled: it is
         * a few MB on NVLink); middle stages read nothing. Each reader reads its data-parallel
         * replica's samples, global_batch / dp of them, from storage server i mod S. */
        uint32_t S = n->n_stor_srv;
        x->ds_conn = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->n_ranks);
        for (uint32_t r = 0; r < x->n_ranks; r++) {
            const train_rank *R = &P->ranks[r];
            if (R->tp != 0 || (R->pp != 0 && R->pp != P->pp - 1))
                continue;
            x->ds_conn[x->n_ds] = dag_conns_add(&x->conns, n->stor_srv0 + x->n_ds % S,
                                                net_storage_client(n, x->gpu_of_rank[r]));
            x->n_ds++;
        }
        x->ds_bytes = (uint64_t)(job->global_batch / P->dp) * job->ds_sample_bytes;
        x->ds_batch = NONE;
    }
    /* cookie ranges: group i at i << shift when every group's transfers fit in 2^shift and all
     * groups in the cookie space (a completion finds its group by a shift), else packed one
     * after the other (found by a binary search) */
    uint64_t most = 1;
    for (uint32_t i = 0; i < x->n_xg; i++)
        if (x->xg[i].max_xfers > most)
            most = x->xg[i].max_xfers;
    uint32_t shift = 1;
    while (((uint64_t)1 << shift) < most)
        shift++;
    x->xg_shift = (uint64_t)x->n_xg << shift < COOKIE_COLL ? shift : 0;
    uint64_t base = 0;
    for (uint32_t i = 0; i < x->n_xg; i++) {
        xgroup *xg = &x->xg[i];
        xg->cookie_base = x->xg_shift ? (uint64_t)i << x->xg_shift : base;
        base = xg->cookie_base + (xg->max_xfers ? xg->max_xfers : 1);
        xg->x = x;
        dag_run_init(&xg->run, &x->mem, xg->max_xfers, xg->max_deps, xg_post_ready, xg);
    }
    SIM_ASSERT(base < COOKIE_COLL, "collective cookie space exhausted (%llu transfers)",
               (unsigned long long)base);
    /* in progress at once: one compute per rank and lane, one collective per group, and (Chakra)
     * any number of zero-time tasks */
    x->delay_cap = 2 * x->n_ranks + ng + 1 + (x->chakra ? nt : 0);
    x->lbusy = ARENA_NEW_ARRAY(&x->mem, uint8_t, 2 * (size_t)x->n_ranks + 1);
    x->lq_head = ARENA_NEW_ARRAY(&x->mem, uint32_t, 2 * (size_t)x->n_ranks + 1);
    x->lq_tail = ARENA_NEW_ARRAY(&x->mem, uint32_t, 2 * (size_t)x->n_ranks + 1);
    for (uint32_t l = 0; l < 2 * x->n_ranks; l++) {
        x->lbusy[l] = 0;
        x->lq_head[l] = x->lq_tail[l] = NONE;
    }
    x->prio = (uint8_t)(job->priority < 0 ? sc->nic.priority : job->priority);
    *connections = x->conns.n;
    return x;
}

void train_exec_connect(train_exec *x, transport *t)
{
    dag_net_transport_init(&x->nett, t, &x->conns, x->job, x->prio);
    x->nw = &x->nett.net;
    delayq_init(&x->delays, x->net->sim, x->delay_cap, delay_done, x);
}

const uint32_t *train_exec_gpus(const train_exec *x)
{
    return x->gpu_of_rank;
}

const train_plan *train_exec_plan(const train_exec *x)
{
    return x->plan;
}

static void fill_iter(train_iter *o, const train_summary *S)
{
    o->compute_ps = S->mean.compute_ps;
    o->tp_ps = S->mean.tp_ps;
    o->pp_ps = S->mean.pp_ps;
    o->dp_ps = S->mean.dp_ps;
    o->bubble_ps = S->mean.bubble_ps;
    o->tp_comm_ps = S->mean.tp_comm_ps;
    o->pp_comm_ps = S->mean.pp_comm_ps;
    o->dp_comm_ps = S->mean.dp_comm_ps;
    o->ep_ps = S->mean.ep_ps;
    o->ep_comm_ps = S->mean.ep_comm_ps;
    o->slowest_rank = S->slowest_rank;
    o->slowest_compute_ps = S->slowest.compute_ps;
}

/* ---- Chakra results (after the run; allocation is fine here) ---------------------------- */

typedef struct ival {
    sim_time a, b;
} ival;

static int cmp_ival(const void *p, const void *q)
{
    const ival *x = p, *y = q;
    return x->a < y->a ? -1 : x->a > y->a ? 1 : (x->b > y->b) - (x->b < y->b);
}

/* Sort v[0..n) and merge it in place into disjoint intervals; returns their count. */
static uint32_t ival_union(ival *v, uint32_t n)
{
    qsort(v, n, sizeof(ival), cmp_ival);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].b <= v[i].a)
            continue;
        if (m && v[i].a <= v[m - 1].b) {
            if (v[i].b > v[m - 1].b)
                v[m - 1].b = v[i].b;
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

static sim_time ival_len(const ival *v, uint32_t n)
{
    sim_time s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += v[i].b - v[i].a;
    return s;
}

/* Total overlap of two disjoint sorted interval lists. */
static sim_time ival_overlap(const ival *x, uint32_t nx, const ival *y, uint32_t ny)
{
    sim_time s = 0;
    for (uint32_t i = 0, k = 0; i < nx && k < ny;) {
        sim_time a = x[i].a > y[k].a ? x[i].a : y[k].a, b = x[i].b < y[k].b ? x[i].b : y[k].b;
        if (b > a)
            s += b - a;
        if (x[i].b < y[k].b)
            i++;
        else
            k++;
    }
    return s;
}

/* Per rank: compute, exposed communication, idle, over every completed iteration; and the last
 * iteration's critical path (run.h chakra_rank_result, chakra_path). */
static void chakra_result(const train_exec *x, job_result *jr)
{
    const train_plan *P = x->plan;
    uint32_t nr = x->n_ranks, nt = P->n_tasks;
    jr->chakra_nodes = P->n_nodes;
    jr->chakra_files = x->cfg->n_trace_files;
    jr->rank_results = xcalloc(nr ? nr : 1, sizeof(chakra_rank_result), "chakra rank results");
    /* rank → tasks it takes part in (CSR) */
    uint32_t *cnt = xcalloc((size_t)nr + 1, sizeof(uint32_t), "chakra rank tasks");
    for (uint32_t i = 0; i < nt; i++) {
        const train_task *k = &P->tasks[i];
        if (k->kind == TRAIN_COLL) {
            const train_group *g = &P->groups[k->group];
            for (uint32_t m = 0; m < g->n; m++)
                cnt[P->members[g->off + m] + 1]++;
        } else {
            cnt[k->rank + 1]++;
            if (k->kind == TRAIN_P2P)
                cnt[k->dst + 1]++;
        }
    }
    for (uint32_t r = 0; r < nr; r++)
        cnt[r + 1] += cnt[r];
    uint32_t tot = cnt[nr];
    uint32_t *list = xmalloc(sizeof(uint32_t) * (tot ? tot : 1), "chakra rank tasks");
    uint32_t *fill = xmalloc(sizeof(uint32_t) * (nr ? nr : 1), "chakra rank tasks");
    memcpy(fill, cnt, sizeof(uint32_t) * nr);
    for (uint32_t i = 0; i < nt; i++) {
        const train_task *k = &P->tasks[i];
        if (k->kind == TRAIN_COLL) {
            const train_group *g = &P->groups[k->group];
            for (uint32_t m = 0; m < g->n; m++)
                list[fill[P->members[g->off + m]]++] = i;
        } else {
            list[fill[k->rank]++] = i;
            if (k->kind == TRAIN_P2P)
                list[fill[k->dst]++] = i;
        }
    }
    ival *cv = xmalloc(sizeof(ival) * (tot ? tot : 1), "chakra intervals");
    ival *mv = xmalloc(sizeof(ival) * (tot ? tot : 1), "chakra intervals");
    for (uint32_t it = 0; it < jr->n_iterations; it++) {
        const sim_time *t0 = x->t_start + (size_t)it * nt, *t1 = x->t_end + (size_t)it * nt;
        sim_time iter_ps = x->iter_time[it];
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t nc = 0, nm = 0;
            sim_time last = 0;
            for (uint32_t q = cnt[r]; q < cnt[r + 1]; q++) {
                uint32_t i = list[q];
                if (P->tasks[i].kind == TRAIN_COMPUTE)
                    cv[nc++] = (ival){t0[i], t1[i]};
                else
                    mv[nm++] = (ival){t0[i], t1[i]};
                if (t1[i] > last)
                    last = t1[i];
            }
            nc = ival_union(cv, nc);
            nm = ival_union(mv, nm);
            chakra_rank_result *R = &jr->rank_results[r];
            sim_time comp = ival_len(cv, nc);
            sim_time comm = ival_len(mv, nm) - ival_overlap(cv, nc, mv, nm);
            R->compute_ps += comp;
            R->comm_ps += comm;
            R->idle_ps += iter_ps - comp - comm;
            if (last)
                R->done_ps = last - x->start_ps;
        }
    }
    for (uint32_t r = 0; r < nr; r++)
        jr->rank_results[r].gpu = x->gpu_of_rank[r];
    xfree(cv);
    xfree(mv);
    xfree(list);
    xfree(fill);
    xfree(cnt);
    if (!jr->n_iterations || !nt)
        return;
    /* critical path of the last completed iteration */
    uint32_t it = jr->n_iterations - 1;
    const sim_time *t0 = x->t_start + (size_t)it * nt, *t1 = x->t_end + (size_t)it * nt;
    sim_time begin = t0[0];
    uint32_t cur = 0;
    for (uint32_t i = 0; i < nt; i++) {
        if (t1[i] > t1[cur])
            cur = i;
        if (t0[i] < begin)
            begin = t0[i];
    }
    chakra_path *cp = &jr->path;
    const train_task *lk = &P->tasks[cur];
    cp->last_rank = lk->kind == TRAIN_COLL ? P->members[P->groups[lk->group].off] : lk->rank;
    snprintf(cp->last, sizeof cp->last, "%s", P->task_name[cur]);
    for (;;) {
        const train_task *k = &P->tasks[cur];
        cp->ops++;
        if (k->kind == TRAIN_COMPUTE)
            cp->compute_ps += t1[cur] - t0[cur];
        else
            cp->comm_ps += t1[cur] - t0[cur];
        uint32_t best = NONE;
        for (uint32_t d = 0; d < k->n_deps; d++) {
            uint32_t q = P->deps[k->dep_off + d];
            if (best == NONE || t1[q] > t1[best])
                best = q;
        }
        cp->wait_ps += t0[cur] - (best == NONE ? begin : t1[best]);
        if (best == NONE)
            break;
        cur = best;
    }
}

void train_exec_result(const train_exec *x, job_result *jr)
{
    const cfg_job *j = x->cfg;
    const train_plan *P = x->plan;
    jr->ranks = x->n_ranks;
    jr->tp = P->tp;
    jr->pp = P->pp;
    jr->dp = P->dp;
    jr->micro_batches = P->m;
    jr->bucket_bytes = P->opts.bucket_bytes;
    jr->completed = x->finished;
    jr->n_iterations = x->iter < j->iterations ? x->iter : j->iterations;
    jr->iterations =
        xcalloc(jr->n_iterations ? jr->n_iterations : 1, sizeof(iter_result), "iteration results");
    jr->tasks_total = P->n_tasks;
    jr->tasks_done = x->finished ? P->n_tasks : x->run.done;
    uint64_t sum[12] = {0};
    for (uint32_t k = 0; k < jr->n_iterations; k++) {
        iter_result *it = &jr->iterations[k];
        it->time_ps = x->iter_time[k];
        if (x->chakra)
            continue;
        train_summary S;
        train_breakdown(P, x->t_start + (size_t)k * P->n_tasks, x->t_end + (size_t)k * P->n_tasks,
                        NULL, &S);
        fill_iter(&it->train, &S);
        const train_iter *ti = &it->train;
        sim_time v[12] = {ti->compute_ps,
                          ti->tp_ps,
                          ti->pp_ps,
                          ti->dp_ps,
                          ti->bubble_ps,
                          ti->tp_comm_ps,
                          ti->pp_comm_ps,
                          ti->dp_comm_ps,
                          ti->slowest_compute_ps,
                          0,
                          ti->ep_ps,
                          ti->ep_comm_ps};
        for (int f = 0; f < 12; f++)
            sum[f] += v[f];
    }
    if (x->chakra)
        chakra_result(x, jr);
    else if (jr->n_iterations) {
        uint64_t n = jr->n_iterations;
        train_iter *m = &jr->train_mean;
        m->compute_ps = sum[0] / n;
        m->tp_ps = sum[1] / n;
        m->pp_ps = sum[2] / n;
        m->dp_ps = sum[3] / n;
        m->bubble_ps = sum[4] / n;
        m->tp_comm_ps = sum[5] / n;
        m->pp_comm_ps = sum[6] / n;
        m->dp_comm_ps = sum[7] / n;
        m->slowest_compute_ps = sum[8] / n;
        m->ep_ps = sum[10] / n;
        m->ep_comm_ps = sum[11] / n;
        m->slowest_rank = jr->iterations[n - 1].train.slowest_rank;
    }
    if (x->finished) {
        jr->end_ps = x->end_ps;
        jr->jct_ps = x->end_ps - x->start_ps;
    }
    jr->checkpointing = j->ckpt;
    jr->restarts = x->restarts;
    jr->ckpt_writes = x->ckpt_writes;
    jr->ckpt_ps = x->ckpt_ps;
    jr->ckpt_io_ps = x->ckpt_io_ps;
    jr->ckpt_bytes = j->ckpt_bytes;
    jr->load_ps = x->load_ps;
    jr->load_bytes = j->load_bytes;
    jr->ds_bytes = (uint64_t)x->ds_batches * x->n_ds * x->ds_bytes;
    jr->ds_batches = x->ds_batches;
    jr->ds_read_ps = x->ds_read_ps;
    jr->ds_stall_ps = x->ds_stall_ps;
    jr->lost_ps = x->lost_ps;
    jr->restart_ps = x->restart_ps + (x->dead ? x->net->sim->now - x->fail_at : 0);
}

void train_exec_transfers(const train_exec *x, uint32_t j, transfer_record *out, uint64_t *n,
                          uint64_t cap, uint64_t *dropped)
{
    const train_plan *P = x->plan;
    uint32_t iters = x->finished ? x->cfg->iterations : x->iter;
    for (uint32_t it = 0; it < iters; it++) {
        const sim_time *t0 = x->t_start + (size_t)it * P->n_tasks;
        const sim_time *t1 = x->t_end + (size_t)it * P->n_tasks;
        for (uint32_t i = 0; i < P->n_tasks; i++) {
            train_task kbuf;
            const train_task *k = train_plan_task(P, i, &kbuf);
            if (k->kind == TRAIN_COMPUTE)
                continue;
            if (*n >= cap) {
                (*dropped)++;
                continue;
            }
            if (!out) { /* counting pass */
                (*n)++;
                continue;
            }
            transfer_record *r = &out[(*n)++];
            r->job = j;
            r->iteration = it;
            r->step = i;
            r->bytes = k->bytes;
            r->start_ps = t0[i];
            r->end_ps = t1[i];
            if (k->kind == TRAIN_P2P) {
                r->phase = x->chakra ? "send" : "pp";
                r->src_gpu = P->ranks[k->rank].gpu;
                r->dst_gpu = P->ranks[k->dst].gpu;
            } else {
                const train_group *g = &P->groups[k->group];
                r->phase = x->chakra                 ? coll_op_name((enum coll_op)k->op)
                           : k->phase == TRAIN_PH_TP ? "tp"
                           : k->phase == TRAIN_PH_EP ? "ep"
                                                     : "dp";
                r->src_gpu = P->ranks[P->members[g->off]].gpu;
                r->dst_gpu = TRANSFER_GROUP;
            }
        }
    }
}

bool train_exec_times(const train_exec *x, uint32_t iter, const sim_time **start,
                      const sim_time **end)
{
    uint32_t done = x->finished ? x->cfg->iterations : x->iter;
    if (iter >= done)
        return false;
    *start = x->t_start + (size_t)iter * x->plan->n_tasks;
    *end = x->t_end + (size_t)iter * x->plan->n_tasks;
    return true;
}

void train_exec_free(train_exec *x)
{
    if (!x)
        return;
    train_plan_free(x->plan);
    arena_free(&x->mem);
    xfree(x->t_start);
    xfree(x->t_end);
    xfree(x->xg);
    xfree(x->cp);
    xfree(x->bind);
    dag_conns_free(&x->conns);
    dag_net_transport_free(&x->nett);
    if (x->delays.heap)
        delayq_free(&x->delays);
    if (event_queued(&x->ckpt_ev))
        evq_cancel(&x->net->sim->q, &x->ckpt_ev);
    xfree(x);
}

void train_exec_trace(const train_exec *x, trace_writer *tw)
{
    static const char *const phase[] = {"forward", "backward", "TP", "PP", "DP"};
    static const char *const cat[] = {"compute", "compute", "tp", "pp", "dp"};
    const train_plan *P = x->plan;
    uint32_t pid = trace_process(tw, x->cfg->name);
    uint32_t *tid = xmalloc(sizeof(uint32_t) * (P->n_ranks ? P->n_ranks : 1), "trace rows");
    for (uint32_t r = 0; r < P->n_ranks; r++) {
        char row[48];
        snprintf(row, sizeof row, "rank %u (GPU %u)", r, P->ranks[r].gpu);
        tid[r] = trace_thread(tw, pid, row);
    }
    uint32_t iters = x->finished ? x->cfg->iterations : x->iter;
    for (uint32_t it = 0; it < iters; it++) {
        const sim_time *t0 = x->t_start + (size_t)it * P->n_tasks;
        const sim_time *t1 = x->t_end + (size_t)it * P->n_tasks;
        for (uint32_t i = 0; i < P->n_tasks; i++) {
            train_task kbuf;
            const train_task *k = train_plan_task(P, i, &kbuf);
            char name[64];
            uint8_t ph = k->phase < 5 ? k->phase : 0;
            if (x->chakra)
                snprintf(name, sizeof name, "%s", P->task_name[i]);
            else if (k->mb != TRAIN_NONE)
                snprintf(name, sizeof name, "%s mb %u", phase[ph], k->mb);
            else
                snprintf(name, sizeof name, "%s %s", phase[ph],
                         k->kind == TRAIN_COLL ? coll_op_name((enum coll_op)k->op) : "");
            if (k->kind == TRAIN_COLL) {
                const train_group *g = &P->groups[k->group];
                for (uint32_t m = 0; m < g->n; m++)
                    trace_complete(tw, pid, tid[P->members[g->off + m]], name, cat[ph], t0[i],
                                   t1[i] - t0[i]);
            } else {
                trace_complete(tw, pid, tid[k->rank], name, cat[ph], t0[i], t1[i] - t0[i]);
            }
        }
    }
    xfree(tid);
}

#include "../core/hotpath.h"

/* ---- run ---------------------------------------------------------------------------------- */

static sim_time *cur_start(train_exec *x)
{
    return x->t_start + (size_t)x->iter * x->plan->n_tasks;
}

static sim_time *cur_end(train_exec *x)
{
    return x->t_end + (size_t)x->iter * x->plan->n_tasks;
}

static void start_iteration(train_exec *x);

/* Task i's link in the FIFO it waits in. */
static uint32_t *qlink(train_exec *x, uint32_t i)
{
    SIM_ASSERT(i >= x->aux0, "task %u of a compact plan's blocks waits for its lane or group", i);
    return &x->qnext[i - x->aux0];
}

/* Task i has ended now: release its successors; the iteration ends with its last task. */
static void task_done(train_exec *x, uint32_t i)
{
    if (!dag_run_complete(&x->run, i))
        return;
    sim_time now = x->net->sim->now;
    x->iter_time[x->iter] = now - x->iter_start;
    if (++x->iter < x->cfg->iterations) {
        if (x->cfg->ckpt_interval && x->iter % x->cfg->ckpt_interval == 0 && x->n_io &&
            x->cfg->ckpt_bytes) {
            if (x->io_kind != IO_NONE) {
                /* the previous (async) checkpoint is still being written: as Megatron's async
                 * save finalizes the previous save before starting the next, wait for it */
                x->io_blocked = true;
                return;
            }
            io_post(x, x->cfg->ckpt_async ? IO_CKPT_ASYNC : IO_CKPT);
            if (x->cfg->ckpt_async)
                start_iteration(x);
            return;
        }
        if (x->cfg->ckpt_interval && x->iter % x->cfg->ckpt_interval == 0) {
            /* a synchronous checkpoint: every GPU stalls for the write */
            x->ckpt_phase = 1;
            sim_at(x->net->sim, &x->ckpt_ev, now + x->cfg->ckpt_write_ps);
            return;
        }
        start_iteration(x);
        return;
    }
    if (x->io_kind == IO_CKPT_ASYNC) {
        /* the job ends once its last async checkpoint is on storage (the trainer finalizes
         * pending async saves before it exits) */
        x->finish_wait = true;
        return;
    }
    x->finished = true;
    x->end_ps = now;
    if (x->on_finish)
        x->on_finish(x->on_finish_ctx);
}

/* Post the storage I/O of `kind` now: every writer's share on its connection. */
static void io_post(train_exec *x, int kind)
{
    bool rd = kind == IO_LOAD;
    x->io_kind = kind;
    x->io_left = x->n_io;
    x->io_iter = x->iter;
    x->io_start = x->net->sim->now;
    for (uint32_t w = 0; w < x->n_io; w++) {
        uint64_t b = rd ? x->io_read_bytes + (w < x->io_read_extra)
                        : x->io_write_bytes + (w < x->io_write_extra);
        x->outstanding++;
        if (b)
            dag_net_post(x->nw, rd ? x->io_rconn[w] : x->io_wconn[w], b, COOKIE_IO | w);
        else
            x->io_left--, x->outstanding--;
    }
}

/* The running storage I/O has fully arrived. */
static void io_done(train_exec *x)
{
    sim_time now = x->net->sim->now;
    int kind = x->io_kind;
    x->io_kind = IO_NONE;
    if (kind == IO_LOAD) {
        x->load_ps = now - x->io_start;
        x->resume_ps = now;
        start_iteration(x);
        return;
    }
    /* the checkpoint of io_iter iterations is on storage */
    x->ckpt_writes++;
    x->ckpt_io_ps += now - x->io_start;
    x->last_ckpt = x->io_iter;
    if (kind == IO_CKPT) {
        x->ckpt_ps += now - x->io_start; /* every GPU stalled for it */
        x->ckpt_phase = 0;
        x->resume_ps = now;
        start_iteration(x);
    } else if (x->io_blocked) {
        x->io_blocked = false;
        io_post(x, IO_CKPT_ASYNC);
        start_iteration(x);
    } else if (x->finish_wait) {
        x->finish_wait = false;
        x->finished = true;
        x->end_ps = now;
        if (x->on_finish)
            x->on_finish(x->on_finish_ctx);
    }
}

/* Transfer xf of the group's running collective is released: post it. */
static void xg_post_ready(void *ctx, uint32_t xf)
{
    xgroup *xg = ctx;
    train_exec *x = xg->x;
    const xbind *B = &x->bind[xg->bind];
    const cplan *q = &x->cp[B->cp];
    coll_xfer buf;
    uint32_t conn;
    const coll_xfer *t = coll_plan_xfer_conn(q->pl, &q->lc, xf, &buf, &conn);
    x->outstanding++;
    dag_net_post(x->nw, B->map[conn], t->bytes, COOKIE_COLL | (xg->cookie_base + xf));
}

/* (Re)start the group's running collective: every transfer without dependencies goes. */
static void xg_run(train_exec *x, xgroup *xg)
{
    dag_run_start(&xg->run, &x->cp[x->bind[xg->bind].cp].shape);
}

static void coll_finished(train_exec *x, uint32_t i);

/* Start collective task i on its communicator (which is free). */
static void coll_start(train_exec *x, uint32_t i)
{
    const train_plan *P = x->plan;
    train_task kbuf;
    const train_task *k = train_plan_task(P, i, &kbuf);
    x->busy[k->group] = 1;
    dag_run_started(&x->run, i);
    uint32_t xi = x->xg_of_group[k->group];
    if (xi == NONE) {
        /* inside one server: α–β over the scale-up domain */
        delayq_push(&x->delays, x->net->sim->now + train_ab_cost_fn(&x->nvl, P, k), i);
        return;
    }
    xgroup *xg = &x->xg[xi];
    xg->task = i;
    xg->bind = x->aux[i - x->aux0];
    xg->repeats = k->count ? k->count : 1;
    if (x->cp[x->bind[xg->bind].cp].pl->n_xfers == 0) {
        delayq_push(&x->delays, x->net->sim->now, i);
        return;
    }
    xg_run(x, xg);
}

/* Collective task i has ended: free its communicator for the next ready one. */
static void coll_finished(train_exec *x, uint32_t i)
{
    train_task kbuf;
    uint32_t g = train_plan_task(x->plan, i, &kbuf)->group;
    x->busy[g] = 0;
    uint32_t xi = x->xg_of_group[g];
    if (xi != NONE)
        x->xg[xi].task = NONE;
    uint32_t nxt = x->q_head[g];
    if (nxt != NONE) {
        x->q_head[g] = *qlink(x, nxt);
        if (x->q_head[g] == NONE)
            x->q_tail[g] = NONE;
        coll_start(x, nxt);
    }
    task_done(x, i);
}

/* Compute task i starts now (its lane is held). */
static void compute_start(train_exec *x, uint32_t i)
{
    train_task kbuf;
    const train_task *k = train_plan_task(x->plan, i, &kbuf);
    sim_time now = x->net->sim->now;
    dag_run_started(&x->run, i);
    delayq_push(&x->delays, now + train_compute_ps(k->dur_ps, x->factor[k->rank]), i);
}

static void task_ready(void *ctx, uint32_t i)
{
    train_exec *x = ctx;
    train_task kbuf;
    const train_task *k = train_plan_task(x->plan, i, &kbuf);
    sim_time now = x->net->sim->now;
    switch (k->kind) {
    case TRAIN_COMPUTE:
        if (k->lane < TRAIN_LANE_NONE) {
            uint32_t l = 2 * k->rank + k->lane;
            if (x->lbusy[l]) { /* the rank's GPU (or CPU) is busy: wait in ready order */
                *qlink(x, i) = NONE;
                if (x->lq_tail[l] == NONE)
                    x->lq_head[l] = i;
                else
                    *qlink(x, x->lq_tail[l]) = i;
                x->lq_tail[l] = i;
                break;
            }
            x->lbusy[l] = 1;
        }
        compute_start(x, i);
        break;
    case TRAIN_P2P:
        dag_run_started(&x->run, i);
        if (k->bytes == 0)
            delayq_push(&x->delays, now, i);
        else {
            x->outstanding++;
            dag_net_post(x->nw, x->aux[i - x->aux0], k->bytes, i);
        }
        break;
    default: /* TRAIN_COLL: one at a time per communicator, in ready order */
        if (x->busy[k->group]) {
            *qlink(x, i) = NONE;
            if (x->q_tail[k->group] == NONE)
                x->q_head[k->group] = i;
            else
                *qlink(x, x->q_tail[k->group]) = i;
            x->q_tail[k->group] = i;
        } else {
            coll_start(x, i);
        }
        break;
    }
}

/* A compute phase or a scale-up collective has ended. */
static void delay_done(void *ctx, uint32_t i)
{
    train_exec *x = ctx;
    if (x->dead)
        return;
    train_task kbuf;
    const train_task *k = train_plan_task(x->plan, i, &kbuf);
    if (k->kind == TRAIN_COLL) {
        coll_finished(x, i);
        return;
    }
    if (k->kind == TRAIN_COMPUTE && k->lane < TRAIN_LANE_NONE) {
        /* the lane passes to the next ready task, which starts now */
        uint32_t l = 2 * k->rank + k->lane, nxt = x->lq_head[l];
        if (nxt != NONE) {
            x->lq_head[l] = *qlink(x, nxt);
            if (x->lq_head[l] == NONE)
                x->lq_tail[l] = NONE;
            compute_start(x, nxt);
        } else {
            x->lbusy[l] = 0;
        }
    }
    task_done(x, i);
}

/* Post the reads of iteration `it`'s batch now. */
static void ds_post(train_exec *x, uint32_t it)
{
    x->ds_batch = it;
    x->ds_ready = false;
    x->ds_left = x->n_ds;
    x->ds_start = x->net->sim->now;
    for (uint32_t i = 0; i < x->n_ds; i++) {
        x->outstanding++;
        dag_net_post(x->nw, x->ds_conn[i], x->ds_bytes, COOKIE_DS | i);
    }
}

/* Iteration x->iter may start only with its batch: true when it has it (the batch is then
 * consumed and, with prefetch, the next one's read posted); false when it must wait (the read
 * is posted if it was not, and ds_done starts the iteration). */
static bool ds_have_batch(train_exec *x)
{
    if (!(x->ds_ready && x->ds_batch == x->iter)) {
        if (x->ds_batch != x->iter || x->ds_ready)
            ds_post(x, x->iter);
        if (!x->ds_wait) {
            x->ds_wait = true;
            x->ds_wait_from = x->net->sim->now;
        }
        return false;
    }
    x->ds_ready = false;
    x->ds_batch = NONE;
    if (x->cfg->ds_prefetch && x->iter + 1 < x->cfg->iterations)
        ds_post(x, x->iter + 1);
    return true;
}

/* A dataset read message has arrived; the last one completes the batch. */
static void ds_done(train_exec *x)
{
    if (--x->ds_left)
        return;
    sim_time now = x->net->sim->now;
    x->ds_read_ps += now - x->ds_start;
    x->ds_batches++;
    x->ds_ready = true;
    if (x->ds_wait)
        start_iteration(x);
}

static void start_iteration(train_exec *x)
{
    sim_time waited_from = x->net->sim->now;
    if (x->n_ds) {
        bool waited = x->ds_wait;
        if (!ds_have_batch(x))
            return;
        if (waited) {
            /* the step waited for its data: the stall is part of the iteration (Megatron's
             * per-iteration time includes get_batch) */
            x->ds_wait = false;
            x->ds_stall_ps += x->net->sim->now - x->ds_wait_from;
            waited_from = x->ds_wait_from;
        }
    }
    x->iter_start = waited_from;
    dag_run_record(&x->run, &x->net->sim->now, cur_start(x), cur_end(x));
    if (!dag_run_start(&x->run, &x->shape))
        return;
    /* a plan without tasks */
    x->iter_time[x->iter] = 0;
    if (++x->iter < x->cfg->iterations) {
        start_iteration(x);
        return;
    }
    x->finished = true;
    x->end_ps = x->net->sim->now;
    if (x->on_finish)
        x->on_finish(x->on_finish_ctx);
}

/* Back from the last checkpoint: its iterations are kept, the rest are done again. */
static void restart(train_exec *x)
{
    const train_plan *P = x->plan;
    sim_time now = x->net->sim->now;
    x->restart_due = false;
    x->dead = false;
    x->restarts++;
    x->restart_ps += now - x->fail_at;
    for (uint32_t g = 0; g < P->n_groups; g++) {
        x->busy[g] = 0;
        x->q_head[g] = x->q_tail[g] = NONE;
    }
    for (uint32_t k = 0; k < x->n_xg; k++)
        x->xg[k].task = NONE;
    for (uint32_t l = 0; l < 2 * x->n_ranks; l++) {
        x->lbusy[l] = 0;
        x->lq_head[l] = x->lq_tail[l] = NONE;
    }
    x->iter = x->last_ckpt;
    x->resume_ps = now;
    x->io_kind = IO_NONE; /* a write in progress was lost with the failure */
    x->ds_batch = NONE;   /* so was a batch being read or read ahead */
    x->ds_ready = x->ds_wait = false;
    x->io_blocked = x->finish_wait = false;
    start_iteration(x);
}

static void ckpt_fire(void *ctx, event *ev)
{
    train_exec *x = (train_exec *)((char *)ev - offsetof(train_exec, ckpt_ev));
    (void)ctx;
    if (x->ckpt_phase == 1) {
        /* the checkpoint of x->iter iterations is on storage */
        x->ckpt_phase = 0;
        x->ckpt_writes++;
        x->ckpt_ps += x->cfg->ckpt_write_ps;
        x->last_ckpt = x->iter;
        x->resume_ps = x->net->sim->now;
        start_iteration(x);
    } else if (x->ckpt_phase == 2) {
        x->ckpt_phase = 0;
        if (x->stale)
            x->restart_due = true; /* the last stale completion restarts it */
        else
            restart(x);
    }
}

bool train_exec_gpu_fail(train_exec *x, uint32_t gpu, bool *restarts)
{
    *restarts = false;
    bool member = false;
    for (uint32_t r = 0; r < x->n_ranks; r++)
        member |= x->gpu_of_rank[r] == gpu;
    if (!member || !x->started || x->finished)
        return false;
    sim_time now = x->net->sim->now;
    if (x->dead) {
        /* already down (a second failure during the restart): the restart starts over */
        *restarts = x->cfg->ckpt;
        if (x->cfg->ckpt && x->ckpt_phase == 2) {
            x->restart_ps += now - x->fail_at;
            x->fail_at = now;
            evq_reschedule(&x->net->sim->q, &x->ckpt_ev, now + x->cfg->ckpt_restart_ps);
        }
        return true;
    }
    x->dead = true;
    x->fail_at = now;
    x->stale = x->outstanding;
    /* compute in progress is abandoned; a checkpoint being written is lost */
    delayq_clear(&x->delays);
    if (event_queued(&x->ckpt_ev))
        evq_cancel(&x->net->sim->q, &x->ckpt_ev);
    x->lost_ps += now - x->resume_ps;
    if (!x->cfg->ckpt)
        return true;
    *restarts = true;
    x->ckpt_phase = 2;
    sim_at(x->net->sim, &x->ckpt_ev, now + x->cfg->ckpt_restart_ps);
    return true;
}

void train_exec_start(train_exec *x)
{
    x->resume_ps = x->net->sim->now;
    x->start_ps = x->net->sim->now;
    x->started = true;
    x->iter = 0;
    if (x->cfg->load_bytes && x->n_io) {
        io_post(x, IO_LOAD); /* the first step waits for the model */
        return;
    }
    start_iteration(x);
}

void train_exec_gpu_slow(train_exec *x, uint32_t gpu, double factor)
{
    for (uint32_t r = 0; r < x->n_ranks; r++)
        if (x->gpu_of_rank[r] == gpu)
            x->factor[r] = factor;
}

static void restart(train_exec *x);

void train_exec_on_msg(train_exec *x, uint64_t cookie)
{
    x->outstanding--;
    if (x->stale) {
        /* posted before the GPU failed: the work it belonged to is lost */
        if (--x->stale == 0 && x->restart_due)
            restart(x);
        return;
    }
    if (x->dead)
        return;
    if (!(cookie & (COOKIE_COLL | COOKIE_IO)) && (cookie & COOKIE_DS)) {
        ds_done(x);
        return;
    }
    if (!(cookie & COOKIE_COLL) && (cookie & COOKIE_IO)) {
        if (--x->io_left == 0)
            io_done(x);
        return;
    }
    if (!(cookie & COOKIE_COLL)) {
        task_done(x, (uint32_t)cookie);
        return;
    }
    uint64_t v = cookie & (COOKIE_COLL - 1);
    uint32_t lo = 0, hi = x->n_xg; /* last group with cookie_base <= v */
    if (x->xg_shift)
        lo = hi = (uint32_t)(v >> x->xg_shift);
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (x->xg[mid].cookie_base <= v)
            lo = mid;
        else
            hi = mid;
    }
    xgroup *xg = &x->xg[lo];
    uint32_t xf = (uint32_t)(v - xg->cookie_base);
    const cplan *q = &x->cp[x->bind[xg->bind].cp];
    SIM_ASSERT(xg->task != NONE && xf < q->pl->n_xfers, "stray collective message %llu",
               (unsigned long long)v);
    if (!dag_run_complete(&xg->run, xf))
        return;
    if (--xg->repeats > 0) {
        xg_run(x, xg);
        return;
    }
    coll_finished(x, xg->task);
}

bool train_exec_finished(const train_exec *x)
{
    return x->finished;
}

bool train_exec_waiting(const train_exec *x)
{
    return event_queued(&x->ckpt_ev) || x->restart_due;
}

uint64_t train_exec_progress(const train_exec *x)
{
    return ((uint64_t)x->iter << 32) | x->run.done;
}

void train_exec_on_finish(train_exec *x, void (*fn)(void *ctx), void *ctx)
{
    x->on_finish = fn;
    x->on_finish_ctx = ctx;
}
