/*
 * infer_exec.c — inference-job executor (see infer_exec.h for the model and its sources).
 *
 * State. Requests live in one array sized at build (arrival, tokens, progress, times); queues
 * are intrusive lists through req.next. Each replica owns a running set and a step batch sized
 * max_batch, a cursor (stage, phase) into the step's forward pass, and for a TP group spanning
 * servers the per-transfer dependency counters of its running collective (sized for its
 * largest plan). Nothing is allocated after build: arrivals are drawn at build, collective
 * plans are built at build with a nominal size and scaled at post time (one chunk per transfer,
 * so a plan's shape does not depend on its size).
 *
 * Events: one arrival event; one delay queue (core/delayq.h) of (end time, replica) for the
 * compute and scale-up phases, at most one entry per replica; the transport's events for the
 * messages.
 *
 * Cookies (low 40 bits; the run puts the job above): bits 38..39 the kind — 0: a pipeline send
 * (replica), 1: a collective transfer ((replica << 20) | transfer), 2: a KV-cache transfer
 * (request).
 */
#include "infer_exec.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/arena.h"
#include "../core/delayq.h"
#include "dag.h"
#include "../core/rng.h"
#include "../telemetry/trace.h"
#include "collective.h"
#include "training.h"

#define NONE UINT32_MAX
#define CK_KIND_SHIFT 38
#define CK_P2P 0ull
#define CK_COLL 1ull
#define CK_KV 2ull
#define XFER_BITS 20
/* Nominal per-rank size the cross-server plans are built with (scaled at post time). */
#define NOMINAL_PIECE ((uint64_t)1 << 20)

/* Phases of one layer (dense: attention, all_reduce, MLP, all_reduce; MoE: attention,
 * all_reduce, dispatch, experts, combine, all_gather). */
enum ph { PH_ATTN, PH_AR, PH_MLP, PH_A2A, PH_AG, PH_HEAD, PH_SEND };
static const uint8_t DENSE[] = {PH_ATTN, PH_AR, PH_MLP, PH_AR};
static const uint8_t MOE[] = {PH_ATTN, PH_AR, PH_A2A, PH_MLP, PH_A2A, PH_AG};

/* One step of one replica, for trace.json. */
typedef struct step_rec {
    sim_time start_ps, end_ps;
    uint32_t replica, seqs;
    uint64_t tokens;
    bool prefill;
} step_rec;
/* Steps kept for the trace at most (32 MB of records); the rest are counted. */
#define STEP_RECS_MAX (1u << 20)

typedef struct ireq {
    sim_time arrival_ps; /* from the job's start */
    sim_time first_ps, done_ps;
    uint32_t prompt, output, generated;
    uint32_t replica, dreplica;
    uint32_t next;
    uint32_t kv_left;
} ireq;

/* A cross-server collective plan of one TP group. */
typedef struct gplan {
    coll_plan *pl;
    dag_graph shape; /* the plan's DAG for the engine */
    uint32_t *conn;  /* [n_xfers] executor connection */
    uint64_t nominal;
} gplan;

typedef struct replica {
    uint32_t rank0;       /* first rank */
    bool prefill, decode; /* roles: colocated both */
    uint32_t wait_head, wait_tail, n_wait;
    uint32_t *running, n_running;
    uint32_t *batch, n_batch;
    uint32_t pending_kv; /* requests bound here whose KV cache is on its way */
    /* current step */
    bool busy, is_prefill;
    sim_time step_start;
    uint64_t tokens;  /* T */
    double attn_term; /* Σ n_i (c_i + (n_i + 1)/2) */
    double kv_tokens; /* Σ (c_i + n_i) */
    uint32_t stage, phase;
    uint32_t msgs_left;
    /* cross-server TP groups: per stage, plans by phase kind (AR, A2A, AG), NULL if local */
    gplan **gp; /* [pp × 3] */
    struct infer_exec *x;
    uint32_t idx;
    uint32_t max_xfers, max_deps;
    dag_run run; /* the running cross-server collective */
    const gplan *cur;
    uint64_t cur_bytes;
    uint8_t cur_ph;
    uint32_t *pp_conn; /* [(pp − 1) × tp] */
} replica;

struct infer_exec {
    net *net;
    const scenario *sc;
    const cfg_job *cfg;
    uint32_t job;
    arena mem;
    uint32_t n_ranks, tp, pp, rsize;
    uint32_t *gpu_of_rank;
    uint32_t n_rep, n_prefill; /* disaggregated: replicas [0, n_prefill) prefill */
    bool disagg;
    replica *rep;
    /* model */
    train_model model;
    double h, p_attn, p_ffn, vocab;
    uint32_t *stage_layers;
    uint64_t *kv_rank_bytes; /* [pp] per token per GPU of the stage */
    bool moe;
    uint32_t ep, top_k, experts;
    double a2a_most; /* busiest rank's share of an all_to_all buffer */
    double peak, mfu, hbm_Bps;
    sim_time su_alpha;
    uint64_t su_bps;
    /* requests */
    uint32_t n_req;
    ireq *req;
    uint32_t next_arrival, done;
    event arrive;
    /* connections */
    dag_conns conns;
    dag_net_transport nett;
    dag_net *nw;
    uint32_t *kv_conn; /* disaggregated: [(p · n_decode + d) × rsize] */
    uint8_t prio;
    delayq delays;
    /* progress */
    bool started, finished, aborted;
    sim_time start_ps, end_ps;
    uint64_t progress, prefill_steps, decode_steps, decode_seqs, kv_bytes;
    uint64_t tp_net_bytes, ep_net_bytes, pp_net_bytes; /* posted on connections */
    void (*on_finish)(void *ctx);
    void *on_finish_ctx;
    /* trace.json: the steps (only with output format trace) */
    step_rec *steps;
    uint32_t n_steps, cap_steps;
    uint64_t steps_dropped;
};

static void arrive_fire(void *ctx, event *ev);
static void delay_done(void *ctx, uint32_t r);
static void post_xfer(void *ctx, uint32_t xf);

/* ---- build -------------------------------------------------------------------------------- */

static const char *job_key(char *buf, size_t len, uint32_t j, const char *k)
{
    snprintf(buf, len, "workload.%u.%s", j, k);
    return buf;
}

static uint32_t host_of(const infer_exec *x, uint32_t rank)
{
    return net_gpu_host(x->net, x->gpu_of_rank[rank], 0);
}

static uint32_t server_of(const infer_exec *x, uint32_t rank)
{
    return x->net->hosts[host_of(x, rank)]->server;
}

static uint32_t conn_new(infer_exec *x, uint32_t src_rank, uint32_t dst_rank)
{
    return dag_conns_add(&x->conns, host_of(x, src_rank), host_of(x, dst_rank));
}

uint64_t infer_kv_bytes_per_token(const cfg_job *j, uint32_t layers, uint32_t tp)
{
    train_model m;
    train_model_from_cfg(&j->model, &m);
    if (j->model_heads)
        m.heads = j->model_heads;
    if (j->model_kv_heads)
        m.kv_heads = j->model_kv_heads;
    uint64_t width;
    if (m.heads && m.kv_heads) {
        uint64_t head_dim = m.hidden / m.heads;
        width = (uint64_t)((m.kv_heads + tp - 1) / tp) * head_dim;
    } else {
        width = (m.hidden + tp - 1) / tp;
    }
    return 2ull * width * 2ull * layers;
}

/* The cross-server plan of `op` over the TP group of (replica r, stage s); NULL on error. */
static gplan *group_plan(infer_exec *x, uint32_t r, uint32_t s, enum coll_op op, uint32_t *conn_of,
                         err *e)
{
    uint32_t n = x->tp, base = x->rep[r].rank0 + s * x->tp;
    uint32_t *lay = ARENA_NEW_ARRAY(&x->mem, uint32_t, n);
    uint32_t *seen = ARENA_NEW_ARRAY(&x->mem, uint32_t, n), ns = 0;
    for (uint32_t i = 0; i < n; i++) { /* servers renumbered by first appearance */
        uint32_t sv = server_of(x, base + i), k = 0;
        while (k < ns && seen[k] != sv)
            k++;
        if (k == ns)
            seen[ns++] = sv;
        lay[i] = k;
    }
    gplan *g = ARENA_NEW_ARRAY(&x->mem, gplan, 1);
    g->nominal = (uint64_t)n * NOMINAL_PIECE;
    coll_params cp = {
        .op = op,
        .algo = op == OP_ALL_TO_ALL ? ALGO_DIRECT : ALGO_RING,
        .a2a_skew = op == OP_ALL_TO_ALL ? x->cfg->moe_skew : 0,
        .n_ranks = n,
        .server_of_rank = lay,
        .gpus_per_server = 1,
        .size_bytes = g->nominal,
        .channels = 1,
        .chunk_bytes = COLL_CHUNK_MAX,
    };
    g->pl = coll_plan_build(&cp, &x->mem, e);
    if (!g->pl)
        return NULL;
    coll_plan_graph(g->pl, &x->mem, &g->shape);
    uint32_t nx = g->pl->n_xfers;
    g->conn = ARENA_NEW_ARRAY(&x->mem, uint32_t, nx ? nx : 1);
    for (uint32_t i = 0; i < nx; i++) {
        const coll_xfer *f = &g->pl->xfers[i];
        uint32_t *c = &conn_of[f->src * n + f->dst];
        if (*c == NONE)
            *c = conn_new(x, base + f->src, base + f->dst);
        g->conn[i] = *c;
    }
    return g;
}

/* Poisson arrivals (or the trace's) relative to the job's start. */
static void draw_arrivals(infer_exec *x)
{
    const cfg_job *j = x->cfg;
    if (j->req_trace) {
        for (uint32_t i = 0; i < x->n_req; i++) {
            x->req[i].arrival_ps = j->trace_arrival_ps[i];
            x->req[i].prompt = j->trace_prompt[i];
            x->req[i].output = j->trace_output[i];
        }
        return;
    }
    rng g;
    rng_init(&g, x->sc->seed, RNG_ID(RNG_KIND_JOB, x->job));
    sim_time t = 0;
    for (uint32_t i = 0; i < x->n_req; i++) {
        /* exponential gap with mean 1/rate: −ln(1 − U)/rate seconds, U in [0, 1) */
        double gap_s = -log1p(-rng_unit(&g)) / j->req_rate;
        t += (sim_time)llround(gap_s * 1e12);
        x->req[i].arrival_ps = t;
        x->req[i].prompt = j->req_prompt;
        x->req[i].output = j->req_output;
    }
}

infer_exec *infer_exec_new(net *n, const scenario *sc, uint32_t j, uint64_t *connections, err *e)
{
    const cfg_job *job = &sc->jobs[j];
    infer_exec *x = xcalloc(1, sizeof *x, "inference executor");
    char key[64];
    x->net = n;
    x->sc = sc;
    x->cfg = job;
    x->job = j;
    arena_init(&x->mem, "inference executor");
    event_init(&x->arrive, arrive_fire);
    uint32_t gpus = net_gpus(n);
    x->n_ranks = job->ranks.all ? gpus : job->ranks.n;
    x->gpu_of_rank = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->n_ranks ? x->n_ranks : 1);
    if (!dag_job_gpus(sc, j, gpus, x->n_ranks, x->gpu_of_rank, e))
        goto fail;
    x->tp = job->tp;
    x->pp = job->pp;
    x->rsize = x->tp * x->pp;
    if (x->n_ranks == 0 || x->n_ranks % x->rsize != 0) {
        config_error_at(
            sc, e, job_key(key, sizeof key, j, "parallelism"),
            "workload[%u].parallelism: %u GPUs do not split into model replicas of tp x pp = %u "
            "GPUs (give ranks, or a tp and pp whose product divides the GPUs)",
            j, x->n_ranks, x->rsize);
        goto fail;
    }
    x->n_rep = x->n_ranks / x->rsize;
    if (job->prefill_gpus) {
        uint32_t pg = job->prefill_gpus, dg = job->decode_gpus;
        if (pg + dg != x->n_ranks || pg % x->rsize || dg % x->rsize) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "disaggregated"),
                            "workload[%u].disaggregated: prefill_gpus %u + decode_gpus %u must be "
                            "the job's %u GPUs, each a multiple of a replica's tp x pp = %u",
                            j, pg, dg, x->n_ranks, x->rsize);
            goto fail;
        }
        x->disagg = true;
        x->n_prefill = pg / x->rsize;
    }
    if (job->model.layers < x->pp) {
        config_error_at(sc, e, job_key(key, sizeof key, j, "parallelism.pp"),
                        "workload[%u].parallelism.pp: %u stages for a model of %u layers", j, x->pp,
                        job->model.layers);
        goto fail;
    }
    for (uint32_t k = 0; k < sc->n_faults; k++) {
        const cfg_fault *f = &sc->faults[k];
        if (f->kind != FAULT_GPU_SLOW && f->kind != FAULT_GPU_FAIL)
            continue;
        for (uint32_t r = 0; r < x->n_ranks; r++) {
            if (x->gpu_of_rank[r] != f->gpu)
                continue;
            snprintf(key, sizeof key, "faults.%u.gpu", k);
            config_error_at(sc, e, key,
                            "faults[%u].gpu: %s on GPU %u of inference job \"%s\" is not available "
                            "yet in this version (gpu faults act on training jobs)",
                            k, fault_kind_name(f->kind), f->gpu, job->name);
            goto fail;
        }
    }
    /* model (shared with training: presets, layer parameters) */
    train_model_from_cfg(&job->model, &x->model);
    if (job->model_ffn)
        x->model.ffn = job->model_ffn;
    if (job->model_heads)
        x->model.heads = job->model_heads;
    if (job->model_kv_heads)
        x->model.kv_heads = job->model_kv_heads;
    const train_model *m = &x->model;
    x->h = m->hidden;
    double kvw = (m->heads && m->kv_heads) ? x->h * m->kv_heads / m->heads : x->h;
    double layer = train_layer_params(m), mats = layer - 2.0 * x->h;
    x->p_attn = 2.0 * x->h * x->h + 2.0 * x->h * kvw;
    if (x->p_attn > mats) /* an explicit model smaller than its attention: GPT-style 1:2 */
        x->p_attn = mats / 3.0;
    x->p_ffn = mats - x->p_attn;
    x->vocab = m->vocab;
    x->moe = job->moe_experts > 0;
    if (x->moe) {
        x->experts = job->moe_experts;
        x->top_k = job->moe_top_k;
        x->ep = job->moe_ep;
        if (x->ep != 1 && x->ep != x->tp) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "moe.ep"),
                            "workload[%u].moe.ep: an inference replica spreads its experts over "
                            "the TP ranks of a stage: expected 1 or tp (%u), got %u",
                            j, x->tp, x->ep);
            goto fail;
        }
        if (x->experts % x->ep || x->top_k > x->experts) {
            config_error_at(sc, e, job_key(key, sizeof key, j, "moe"),
                            "workload[%u].moe: %u experts with top_k %u over ep %u (expected "
                            "top_k <= experts and experts a multiple of ep)",
                            j, x->experts, x->top_k, x->ep);
            goto fail;
        }
        x->a2a_most = 0;
        for (uint32_t q = 0; q < x->ep; q++) {
            double sh = train_moe_share(q, x->ep, job->moe_skew);
            double out = 1 - sh, in = (double)(x->ep - 1) * sh;
            x->a2a_most = fmax(x->a2a_most, fmax(out, in));
        }
    }
    x->peak = job->gpu_peak_tflops;
    x->mfu = job->gpu_mfu;
    x->hbm_Bps = (double)job->hbm_bps / 8.0 * job->hbm_eff;
    x->su_alpha = sc->fabric.scale_up_latency_ps;
    x->su_bps = sc->fabric.scale_up_achieved_bps;
    x->stage_layers = ARENA_NEW_ARRAY(&x->mem, uint32_t, x->pp);
    x->kv_rank_bytes = ARENA_NEW_ARRAY(&x->mem, uint64_t, x->pp);
    for (uint32_t s = 0; s < x->pp; s++) {
        x->stage_layers[s] = m->layers / x->pp + (s < m->layers % x->pp ? 1 : 0);
        x->kv_rank_bytes[s] = infer_kv_bytes_per_token(job, x->stage_layers[s], x->tp);
    }

    /* requests */
    x->n_req = job->req_count;
    x->req = xcalloc(x->n_req ? x->n_req : 1, sizeof(ireq), "inference requests");
    draw_arrivals(x);

    /* replicas and their connections */
    x->rep = xcalloc(x->n_rep, sizeof(replica), "inference replicas");
    uint32_t mb = job->max_batch;
    uint32_t *conn_of = xmalloc(sizeof(uint32_t) * x->tp * x->tp, "collective connections");
    err pe;
    err_clear(&pe);
    for (uint32_t r = 0; r < x->n_rep; r++) {
        replica *R = &x->rep[r];
        R->rank0 = r * x->rsize;
        R->prefill = !x->disagg || r < x->n_prefill;
        R->decode = !x->disagg || r >= x->n_prefill;
        R->wait_head = R->wait_tail = NONE;
        R->running = ARENA_NEW_ARRAY(&x->mem, uint32_t, mb);
        R->batch = ARENA_NEW_ARRAY(&x->mem, uint32_t, mb);
        R->gp = ARENA_NEW_ARRAY(&x->mem, gplan *, 3 * (size_t)x->pp);
        memset(R->gp, 0, sizeof(gplan *) * 3 * x->pp);
        for (uint32_t s = 0; s < x->pp && x->tp > 1; s++) {
            uint32_t s0 = server_of(x, R->rank0 + s * x->tp);
            bool local = true;
            for (uint32_t t = 1; t < x->tp && local; t++)
                local = server_of(x, R->rank0 + s * x->tp + t) == s0;
            if (local)
                continue;
            for (uint32_t i = 0; i < x->tp * x->tp; i++)
                conn_of[i] = NONE;
            static const enum coll_op OPK[3] = {OP_ALL_REDUCE, OP_ALL_TO_ALL, OP_ALL_GATHER};
            for (int k = 0; k < 3; k++) {
                if (k > 0 && !(x->moe && x->ep > 1))
                    continue;
                gplan *g = group_plan(x, r, s, OPK[k], conn_of, &pe);
                if (!g) {
                    config_error_at(
                        sc, e, job_key(key, sizeof key, j, "parallelism"),
                        "workload[%u].parallelism: the %s of a TP group spanning servers: %s", j,
                        coll_op_name(OPK[k]), pe.msg);
                    xfree(conn_of);
                    goto fail;
                }
                R->gp[3 * s + (uint32_t)k] = g;
                if (g->pl->n_xfers > R->max_xfers)
                    R->max_xfers = g->pl->n_xfers;
                if (g->shape.max_deps > R->max_deps)
                    R->max_deps = g->shape.max_deps;
            }
        }
        SIM_ASSERT(R->max_xfers < (1u << XFER_BITS), "collective of %u transfers", R->max_xfers);
        R->x = x;
        R->idx = r;
        dag_run_init(&R->run, &x->mem, R->max_xfers, R->max_deps, post_xfer, R);
        R->pp_conn = ARENA_NEW_ARRAY(&x->mem, uint32_t, (size_t)x->pp * x->tp);
        for (uint32_t s = 0; s + 1 < x->pp; s++)
            for (uint32_t t = 0; t < x->tp; t++)
                R->pp_conn[s * x->tp + t] =
                    conn_new(x, R->rank0 + s * x->tp + t, R->rank0 + (s + 1) * x->tp + t);
    }
    xfree(conn_of);
    if (x->disagg) {
        uint32_t nd = x->n_rep - x->n_prefill;
        x->kv_conn = ARENA_NEW_ARRAY(&x->mem, uint32_t, (size_t)x->n_prefill * nd * x->rsize);
        for (uint32_t p = 0; p < x->n_prefill; p++)
            for (uint32_t d = 0; d < nd; d++)
                for (uint32_t i = 0; i < x->rsize; i++)
                    x->kv_conn[((size_t)p * nd + d) * x->rsize + i] =
                        conn_new(x, x->rep[p].rank0 + i, x->rep[x->n_prefill + d].rank0 + i);
    }
    SIM_ASSERT(x->n_rep < (1u << (CK_KIND_SHIFT - XFER_BITS)), "%u replicas", x->n_rep);
    if (sc->output_formats & OUT_TRACE) {
        /* at most one prefill step per request and one decode step per output token */
        uint64_t most = x->n_req;
        for (uint32_t i = 0; i < x->n_req; i++)
            most += x->req[i].output;
        x->cap_steps = most < STEP_RECS_MAX ? (uint32_t)most : STEP_RECS_MAX;
        x->steps = xmalloc(sizeof(step_rec) * (x->cap_steps ? x->cap_steps : 1), "step records");
    }
    x->prio = (uint8_t)(job->priority < 0 ? sc->nic.priority : job->priority);
    *connections = x->conns.n;
    return x;
fail:
    infer_exec_free(x);
    return NULL;
}

void infer_exec_connect(infer_exec *x, transport *t)
{
    dag_net_transport_init(&x->nett, t, &x->conns, x->job, x->prio);
    x->nw = &x->nett.net;
    delayq_init(&x->delays, x->net->sim, x->n_rep, delay_done, x);
}

void infer_exec_free(infer_exec *x)
{
    if (!x)
        return;
    if (x->delays.heap)
        delayq_free(&x->delays);
    if (event_queued(&x->arrive))
        evq_cancel(&x->net->sim->q, &x->arrive);
    arena_free(&x->mem);
    xfree(x->req);
    xfree(x->rep);
    dag_conns_free(&x->conns);
    dag_net_transport_free(&x->nett);
    xfree(x->steps);
    xfree(x);
}

/* ---- results ------------------------------------------------------------------------------ */

static int cmp_time(const void *a, const void *b)
{
    sim_time x = *(const sim_time *)a, y = *(const sim_time *)b;
    return x < y ? -1 : x > y;
}

static sim_time nearest_rank(const sim_time *v, uint64_t n, double q)
{
    if (!n)
        return 0;
    uint64_t k = (uint64_t)ceil(q * (double)n - 1e-9);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

void infer_exec_result(const infer_exec *x, job_result *jr)
{
    infer_result *o = &jr->infer;
    memset(o, 0, sizeof *o);
    o->replicas = x->n_rep;
    o->prefill_replicas = x->disagg ? x->n_prefill : 0;
    o->decode_replicas = x->disagg ? x->n_rep - x->n_prefill : 0;
    o->requests = x->n_req;
    o->prefill_steps = x->prefill_steps;
    o->decode_steps = x->decode_steps;
    o->mean_decode_batch = x->decode_steps ? (double)x->decode_seqs / (double)x->decode_steps : 0.0;
    o->kv_bytes = x->kv_bytes;
    o->tp_net_bytes = x->tp_net_bytes;
    o->ep_net_bytes = x->ep_net_bytes;
    o->pp_net_bytes = x->pp_net_bytes;
    jr->ranks = x->n_ranks;
    jr->tp = x->tp;
    jr->pp = x->pp;
    jr->dp = x->n_rep;
    jr->completed = x->finished;
    sim_time *tt = xmalloc(sizeof(sim_time) * (x->n_req ? x->n_req : 1), "latencies");
    sim_time *tp = xmalloc(sizeof(sim_time) * (x->n_req ? x->n_req : 1), "latencies");
    uint64_t nt = 0, np = 0;
    double st = 0, sp = 0;
    sim_time last = 0;
    for (uint32_t i = 0; i < x->n_req; i++) {
        const ireq *q = &x->req[i];
        if (!q->done_ps)
            continue;
        o->requests_done++;
        o->prompt_tokens += q->prompt;
        o->output_tokens += q->output;
        if (q->done_ps > last)
            last = q->done_ps;
        sim_time at = x->start_ps + q->arrival_ps;
        tt[nt++] = q->first_ps - at;
        st += (double)(q->first_ps - at);
        if (q->output > 1) {
            sim_time v = (q->done_ps - q->first_ps) / (q->output - 1);
            tp[np++] = v;
            sp += (double)v;
        }
    }
    qsort(tt, nt, sizeof(sim_time), cmp_time);
    qsort(tp, np, sizeof(sim_time), cmp_time);
    o->ttft_mean_ps = nt ? (sim_time)llround(st / (double)nt) : 0;
    o->ttft_p50_ps = nearest_rank(tt, nt, 0.50);
    o->ttft_p90_ps = nearest_rank(tt, nt, 0.90);
    o->ttft_p99_ps = nearest_rank(tt, nt, 0.99);
    o->ttft_max_ps = nt ? tt[nt - 1] : 0;
    o->tpot_mean_ps = np ? (sim_time)llround(sp / (double)np) : 0;
    o->tpot_p50_ps = nearest_rank(tp, np, 0.50);
    o->tpot_p90_ps = nearest_rank(tp, np, 0.90);
    o->tpot_p99_ps = nearest_rank(tp, np, 0.99);
    o->tpot_max_ps = np ? tp[np - 1] : 0;
    xfree(tt);
    xfree(tp);
    if (last > x->start_ps) {
        double w = (double)(last - x->start_ps) / 1e12;
        o->tokens_per_s = (double)o->output_tokens / w;
        o->requests_per_s = (double)o->requests_done / w;
    }
    if (x->finished) {
        jr->end_ps = x->end_ps;
        jr->jct_ps = x->end_ps - x->start_ps;
    }
}

void infer_exec_requests(const infer_exec *x, uint32_t j, request_record *out, uint64_t *n)
{
    for (uint32_t i = 0; i < x->n_req; i++) {
        if (out) {
            const ireq *q = &x->req[i];
            request_record *r = &out[*n];
            r->job = j;
            r->id = i;
            r->replica = q->replica;
            r->decode_replica = q->dreplica;
            r->prompt_tokens = q->prompt;
            r->output_tokens = q->output;
            r->generated = q->generated;
            r->arrival_ps = x->start_ps + q->arrival_ps;
            r->first_token_ps = q->first_ps;
            r->done_ps = q->done_ps;
        }
        (*n)++;
    }
}

bool infer_exec_finished(const infer_exec *x)
{
    return x->finished;
}

void infer_exec_on_finish(infer_exec *x, void (*fn)(void *ctx), void *ctx)
{
    x->on_finish = fn;
    x->on_finish_ctx = ctx;
}

uint64_t infer_exec_progress(const infer_exec *x)
{
    return x->progress;
}

bool infer_exec_waiting(const infer_exec *x)
{
    if (!event_queued(&x->arrive))
        return false;
    for (uint32_t r = 0; r < x->n_rep; r++)
        if (x->rep[r].busy || x->rep[r].pending_kv)
            return false;
    return true;
}

void infer_exec_trace(const infer_exec *x, trace_writer *tw)
{
    uint32_t pid = trace_process(tw, x->cfg->name);
    uint32_t *tid = xmalloc(sizeof(uint32_t) * x->n_rep, "trace rows");
    for (uint32_t r = 0; r < x->n_rep; r++) {
        char row[64];
        snprintf(row, sizeof row, "replica %u (GPUs %u..%u)%s", r, x->gpu_of_rank[x->rep[r].rank0],
                 x->gpu_of_rank[x->rep[r].rank0 + x->rsize - 1],
                 !x->disagg          ? ""
                 : x->rep[r].prefill ? " prefill"
                                     : " decode");
        tid[r] = trace_thread(tw, pid, row);
    }
    for (uint32_t i = 0; i < x->n_steps; i++) {
        const step_rec *k = &x->steps[i];
        char name[80];
        if (k->prefill)
            snprintf(name, sizeof name, "prefill %u seqs, %llu tokens", k->seqs,
                     (unsigned long long)k->tokens);
        else
            snprintf(name, sizeof name, "decode %u seqs", k->seqs);
        trace_complete(tw, pid, tid[k->replica], name, k->prefill ? "prefill" : "decode",
                       k->start_ps, k->end_ps - k->start_ps);
    }
    xfree(tid);
}

void infer_exec_abort(infer_exec *x)
{
    x->aborted = true;
    if (event_queued(&x->arrive))
        evq_cancel(&x->net->sim->q, &x->arrive);
    if (x->delays.heap)
        delayq_clear(&x->delays);
}

#include "../core/hotpath.h"

/* ---- run ---------------------------------------------------------------------------------- */

static void rep_schedule(infer_exec *x, uint32_t r);
static void rep_advance(infer_exec *x, uint32_t r);

/* Roofline time of a phase on one GPU: FLOPs at peak × mfu, or bytes at the HBM rate. */
static sim_time roofline_ps(const infer_exec *x, double flops, double bytes)
{
    double c = flops / (x->peak * x->mfu); /* ps: FLOPs / (TFLOPS · 1e12) s */
    double m = bytes / x->hbm_Bps * 1e12;
    double v = c > m ? c : m;
    return v <= 0 ? 0 : (sim_time)llround(v);
}

/* Experts a batch of T tokens touches on one EP rank (uniform routing, expectation):
 * E_local · (1 − (1 − top_k/E)^T). */
static double experts_touched(const infer_exec *x, uint64_t T)
{
    double el = (double)x->experts / x->ep;
    return el * (1.0 - pow(1.0 - (double)x->top_k / x->experts, (double)T));
}

static uint32_t layer_phases(const infer_exec *x)
{
    return x->moe && x->ep > 1 ? 6 : 4;
}

static uint32_t stage_phases(const infer_exec *x, uint32_t s)
{
    return x->stage_layers[s] * layer_phases(x) + 1; /* + LM head (last) or the send */
}

static uint8_t phase_at(const infer_exec *x, uint32_t s, uint32_t i)
{
    uint32_t k = layer_phases(x), n = x->stage_layers[s] * k;
    if (i == n)
        return s + 1 == x->pp ? PH_HEAD : PH_SEND;
    return k == 6 ? MOE[i % k] : DENSE[i % k];
}

/* Bytes of a collective phase (nccl-tests semantics). */
static uint64_t coll_bytes(const infer_exec *x, uint8_t ph, uint64_t T)
{
    uint64_t act = T * (uint64_t)x->h * 2;
    if (ph == PH_A2A)
        return (uint64_t)ceil((double)act * x->top_k / x->ep);
    return act;
}

/* α–β cost over the scale-up domain of a collective of `bytes` over g ranks. */
static sim_time local_coll_ps(const infer_exec *x, uint8_t ph, uint64_t bytes)
{
    uint64_t g = x->tp;
    if (g < 2)
        return 0;
    if (ph == PH_A2A) {
        uint64_t most = (uint64_t)ceil(x->a2a_most * (double)bytes);
        return x->su_alpha + (x->su_bps ? sim_ser_time(most, x->su_bps) : 0);
    }
    uint64_t steps = ph == PH_AR ? 2 * (g - 1) : g - 1;
    uint64_t pc = (bytes + g - 1) / g;
    return steps * (x->su_alpha + (x->su_bps ? sim_ser_time(pc, x->su_bps) : 0));
}

/* Duration of an analytic phase of the current step (compute, or a collective inside one
 * server). */
static sim_time phase_ps(const infer_exec *x, const replica *R, uint8_t ph)
{
    double T = (double)R->tokens, tp = x->tp;
    switch (ph) {
    case PH_ATTN: {
        /* per GPU: its 1/tp of the matmuls and scores, its heads' share of the KV cache */
        double kv_layer = (double)x->kv_rank_bytes[R->stage] / x->stage_layers[R->stage];
        double fl = (2.0 * T * x->p_attn + 4.0 * x->h * R->attn_term) / tp;
        double by = x->p_attn * 2.0 / tp + R->kv_tokens * kv_layer;
        return roofline_ps(x, fl, by);
    }
    case PH_MLP: {
        double fl = 2.0 * T * x->p_ffn / tp;
        double by = x->p_ffn * 2.0 / tp;
        /* MoE: the experts the batch touches, each P_ffn / top_k parameters; with ep = tp a
         * rank holds whole experts, with ep 1 every rank a 1/tp slice of each */
        if (x->moe)
            by = experts_touched(x, R->tokens) * x->p_ffn / x->top_k * 2.0 / (x->ep > 1 ? 1.0 : tp);
        return roofline_ps(x, fl, by);
    }
    case PH_HEAD: {
        double seqs = R->n_batch;
        return roofline_ps(x, 2.0 * seqs * x->h * x->vocab / tp, x->vocab * x->h * 2.0 / tp);
    }
    default:
        return local_coll_ps(x, ph, coll_bytes(x, ph, R->tokens));
    }
}

static void kick_finish(infer_exec *x)
{
    if (x->done < x->n_req || x->finished)
        return;
    x->finished = true;
    x->end_ps = x->net->sim->now;
    if (x->on_finish)
        x->on_finish(x->on_finish_ctx);
}

/* The replica of `pool` (prefill: 1, decode: 0) with the fewest requests. */
static uint32_t least_loaded(const infer_exec *x, bool prefill_pool)
{
    uint32_t lo = prefill_pool || !x->disagg ? 0 : x->n_prefill;
    uint32_t hi = x->disagg && prefill_pool ? x->n_prefill : x->n_rep;
    uint32_t best = lo;
    uint64_t bl = UINT64_MAX;
    for (uint32_t r = lo; r < hi; r++) {
        const replica *R = &x->rep[r];
        uint64_t l = (uint64_t)R->n_wait + R->n_running + R->pending_kv +
                     (R->busy && R->is_prefill ? R->n_batch : 0);
        if (l < bl)
            bl = l, best = r;
    }
    return best;
}

static void wait_push(replica *R, ireq *req, uint32_t i)
{
    req[i].next = NONE;
    if (R->wait_tail == NONE)
        R->wait_head = i;
    else
        req[R->wait_tail].next = i;
    R->wait_tail = i;
    R->n_wait++;
}

static uint32_t wait_pop(replica *R, ireq *req)
{
    uint32_t i = R->wait_head;
    R->wait_head = req[i].next;
    if (R->wait_head == NONE)
        R->wait_tail = NONE;
    R->n_wait--;
    return i;
}

/* A request's KV cache has fully arrived at its decode replica. */
static void kv_arrived(infer_exec *x, uint32_t i)
{
    replica *D = &x->rep[x->req[i].dreplica];
    D->pending_kv--;
    wait_push(D, x->req, i);
    rep_schedule(x, x->req[i].dreplica);
}

/* Prefill of request i ended on replica p: send its KV cache to the least-loaded decode
 * replica, every prefill GPU to its peer. */
static void kv_send(infer_exec *x, uint32_t p, uint32_t i)
{
    ireq *q = &x->req[i];
    uint32_t d = least_loaded(x, false), nd = x->n_rep - x->n_prefill;
    q->dreplica = d;
    x->rep[d].pending_kv++;
    q->kv_left = x->rsize;
    for (uint32_t k = 0; k < x->rsize; k++) {
        uint64_t bytes = (uint64_t)q->prompt * x->kv_rank_bytes[k / x->tp];
        x->kv_bytes += bytes;
        dag_net_post(x->nw, x->kv_conn[((size_t)p * nd + (d - x->n_prefill)) * x->rsize + k],
                     bytes ? bytes : 1, (CK_KV << CK_KIND_SHIFT) | i);
    }
}

/* The step of replica r has ended now. */
static void step_done(infer_exec *x, uint32_t r)
{
    replica *R = &x->rep[r];
    sim_time now = x->net->sim->now;
    R->busy = false;
    x->progress++;
    if (x->steps && x->n_steps < x->cap_steps)
        x->steps[x->n_steps++] =
            (step_rec){R->step_start, now, r, R->n_batch, R->tokens, R->is_prefill};
    else if (x->steps)
        x->steps_dropped++;
    if (R->is_prefill) {
        for (uint32_t b = 0; b < R->n_batch; b++) {
            uint32_t i = R->batch[b];
            ireq *q = &x->req[i];
            q->first_ps = now;
            q->generated = 1;
            if (q->generated == q->output) {
                q->done_ps = now;
                x->done++;
            } else if (x->disagg) {
                kv_send(x, r, i);
            } else {
                R->running[R->n_running++] = i;
            }
        }
    } else {
        uint32_t keep = 0;
        for (uint32_t b = 0; b < R->n_running; b++) {
            uint32_t i = R->running[b];
            ireq *q = &x->req[i];
            if (++q->generated == q->output) {
                q->done_ps = now;
                x->done++;
            } else {
                R->running[keep++] = i;
            }
        }
        R->n_running = keep;
    }
    R->n_batch = 0;
    kick_finish(x);
    if (!x->finished)
        rep_schedule(x, r);
}

/* Start a step on replica r (idle) if it has work: a prefill when requests wait and a slot is
 * free, else a decode of its running requests. */
static void rep_schedule(infer_exec *x, uint32_t r)
{
    replica *R = &x->rep[r];
    if (R->busy || x->aborted)
        return;
    uint32_t mb = x->cfg->max_batch;
    R->tokens = 0;
    R->attn_term = R->kv_tokens = 0;
    R->n_batch = 0;
    if (R->prefill && R->n_wait && (x->disagg || R->n_running < mb)) {
        uint32_t room = x->disagg ? mb : mb - R->n_running;
        while (R->n_wait && R->n_batch < room) {
            uint32_t i = R->wait_head;
            uint32_t s = x->req[i].prompt;
            if (R->n_batch && R->tokens + s > x->cfg->max_batch_tokens)
                break;
            wait_pop(R, x->req);
            R->batch[R->n_batch++] = i;
            x->req[i].replica = r;
            x->req[i].dreplica = r;
            R->tokens += s;
            R->attn_term += (double)s * ((double)s + 1) / 2.0;
            R->kv_tokens += s;
        }
        R->is_prefill = true;
        x->prefill_steps++;
    } else {
        /* decode pool: admit arrived KV caches into the running batch */
        while (x->disagg && R->n_wait && R->n_running < mb)
            R->running[R->n_running++] = wait_pop(R, x->req);
        if (!R->n_running)
            return;
        for (uint32_t b = 0; b < R->n_running; b++) {
            const ireq *q = &x->req[R->running[b]];
            double c = (double)q->prompt + q->generated - 1; /* cached before this token */
            R->attn_term += c + 1.0;
            R->kv_tokens += c + 1.0;
        }
        R->tokens = R->n_running;
        R->n_batch = R->n_running;
        R->is_prefill = false;
        x->decode_steps++;
        x->decode_seqs += R->n_running;
    }
    R->busy = true;
    R->step_start = x->net->sim->now;
    R->stage = 0;
    R->phase = 0;
    rep_advance(x, r);
}

/* Transfer xf of the replica's running collective is released: post it. */
static void post_xfer(void *ctx, uint32_t xf)
{
    replica *R = ctx;
    infer_exec *x = R->x;
    uint32_t r = R->idx;
    const gplan *g = R->cur;
    coll_xfer buf;
    /* the plan's transfer scaled from its nominal size to this collective's */
    uint64_t b = (uint64_t)ceil((double)coll_plan_xfer(g->pl, xf, &buf)->bytes *
                                (double)R->cur_bytes / (double)g->nominal);
    b = b ? b : 1;
    if (R->cur_ph == PH_A2A)
        x->ep_net_bytes += b;
    else
        x->tp_net_bytes += b;
    dag_net_post(x->nw, g->conn[xf], b,
                 (CK_COLL << CK_KIND_SHIFT) | ((uint64_t)r << XFER_BITS) | xf);
}

static void next_phase(infer_exec *x, replica *R)
{
    if (++R->phase == stage_phases(x, R->stage)) {
        R->stage++;
        R->phase = 0;
    }
}

/* Run the step's phases from the cursor: analytic ones add up into one delay; a network phase
 * (a cross-server collective, a pipeline send) starts once the delay before it has passed. */
static void rep_advance(infer_exec *x, uint32_t r)
{
    replica *R = &x->rep[r];
    sim_time acc = 0;
    for (;;) {
        if (R->stage == x->pp) {
            if (acc) {
                delayq_push(&x->delays, x->net->sim->now + acc, r);
                return;
            }
            step_done(x, r);
            return;
        }
        uint8_t ph = phase_at(x, R->stage, R->phase);
        const gplan *g = NULL;
        if (ph == PH_AR || ph == PH_A2A || ph == PH_AG)
            g = R->gp[3 * R->stage + (ph == PH_AR ? 0u : ph == PH_A2A ? 1u : 2u)];
        if (ph != PH_SEND && !g) {
            acc += phase_ps(x, R, ph);
            next_phase(x, R);
            continue;
        }
        if (acc) {
            delayq_push(&x->delays, x->net->sim->now + acc, r);
            return;
        }
        x->progress++;
        if (ph == PH_SEND) {
            uint64_t b = R->tokens * (uint64_t)x->h * 2;
            R->msgs_left = x->tp;
            x->pp_net_bytes += b * x->tp;
            for (uint32_t t = 0; t < x->tp; t++)
                dag_net_post(x->nw, R->pp_conn[R->stage * x->tp + t], b,
                             (CK_P2P << CK_KIND_SHIFT) | r);
            return;
        }
        R->cur = g;
        R->cur_ph = ph;
        R->cur_bytes = coll_bytes(x, ph, R->tokens);
        if (dag_run_start(&R->run, &g->shape)) { /* no transfers */
            next_phase(x, R);
            continue;
        }
        return;
    }
}

static void delay_done(void *ctx, uint32_t r)
{
    infer_exec *x = ctx;
    if (x->aborted)
        return;
    x->progress++;
    rep_advance(x, r);
}

void infer_exec_on_msg(infer_exec *x, uint64_t cookie)
{
    if (x->aborted)
        return;
    x->progress++;
    uint64_t kind = cookie >> CK_KIND_SHIFT, v = cookie & ((1ull << CK_KIND_SHIFT) - 1);
    if (kind == CK_KV) {
        uint32_t i = (uint32_t)v;
        if (--x->req[i].kv_left == 0)
            kv_arrived(x, i);
        return;
    }
    if (kind == CK_P2P) {
        replica *R = &x->rep[v];
        if (--R->msgs_left)
            return;
        next_phase(x, R);
        rep_advance(x, (uint32_t)v);
        return;
    }
    uint32_t r = (uint32_t)(v >> XFER_BITS), xf = (uint32_t)(v & ((1u << XFER_BITS) - 1));
    replica *R = &x->rep[r];
    const gplan *g = R->cur;
    SIM_ASSERT(g && xf < g->pl->n_xfers, "stray inference collective message %u", xf);
    if (!dag_run_complete(&R->run, xf))
        return;
    R->cur = NULL;
    next_phase(x, R);
    rep_advance(x, r);
}

/* Arrivals: every request due now goes to its replica; the event re-arms for the next. */
static void arrive_fire(void *ctx, event *ev)
{
    infer_exec *x = (infer_exec *)((char *)ev - offsetof(infer_exec, arrive));
    (void)ctx;
    sim_time now = x->net->sim->now;
    while (x->next_arrival < x->n_req && x->start_ps + x->req[x->next_arrival].arrival_ps <= now) {
        uint32_t i = x->next_arrival++;
        uint32_t r = least_loaded(x, true);
        x->req[i].replica = x->req[i].dreplica = r;
        wait_push(&x->rep[r], x->req, i);
        x->progress++;
        rep_schedule(x, r);
    }
    if (x->next_arrival < x->n_req)
        sim_at(x->net->sim, &x->arrive, x->start_ps + x->req[x->next_arrival].arrival_ps);
}

void infer_exec_start(infer_exec *x)
{
    x->started = true;
    x->start_ps = x->net->sim->now;
    if (!x->n_req) {
        kick_finish(x);
        return;
    }
    sim_at(x->net->sim, &x->arrive, x->start_ps + x->req[0].arrival_ps);
}
