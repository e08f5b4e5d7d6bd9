/*
 * training.c — the training-job model: presets, placement, the 1F1B iteration DAG, the
 * breakdown of an executed iteration and an analytic (unlimited-concurrency) evaluator. See
 * training.h for the model and its sources. Runs at build time (and in tests), never in an
 * event handler, so it allocates freely; the finished plan lives in its own arena.
 *
 * DAG shape (why it looks like this):
 *  - One TP group = the tp ranks of one (stage, replica). They run the same passes; a pass (one
 *    micro-batch forward or backward on the stage) is a list of chunks, each = one compute task
 *    per member followed by one TP all_reduce task for the group. With tp_per_layer a layer is two
 *    chunks (attention, MLP: Megatron's two all_reduces per layer per direction); without it the
 *    whole pass is one chunk and one aggregated TP task (count = 2·layers). TP all_reduces sit on
 *    the critical path either way (the next matmul needs them), so aggregation keeps the total
 *    and only loses the interleaving of α costs, which the count lets an executor restore.
 *  - The last micro-batch's backward is always cut per layer when dp > 1, even when aggregated:
 *    DP buckets become ready as that backward passes their layers (gradients accumulate over
 *    micro-batches, so only the last one releases them), and that is the overlap to model.
 *  - The pass order on each stage is Megatron's non-interleaved 1F1B: min(p−s−1, m) warm-up
 *    forwards, then alternate one forward / one backward, then the cool-down backwards; with
 *    vp > 1 virtual stages, the interleaved schedule over the stage's vp model chunks
 *    (stage_order). Each
 *    member's compute tasks are chained in that order. A forward waits for the activation P2P
 *    from the previous stage, a backward for the gradient P2P from the next: the pipeline bubble
 *    is whatever these dependencies leave idle — nothing hard-codes it.
 *  - P2P: each TP rank sends the full b·s·h·2 bytes to the same-tp-index rank of the neighbour
 *    stage (no scatter/gather optimisation).
 *  - DP: per rank a bucket of `bucket_bytes` (train_bucket_bytes: by default Megatron-Core's,
 *    which grows with dp) of its gradient shard, in backward order (LM head, last layer …
 *    first layer, embedding). A bucket is ready when the compute chunk producing its
 *    last byte ends (a half-layer's chunk produces half the layer's gradients). Bucket k's
 *    collective also depends on bucket k−1's (issue order on one communicator). Sharded:
 *    reduce_scatter per bucket, then (after the last reduce_scatter, i.e. the optimizer step)
 *    all_gather per bucket.
 *  - Layers per stage: layers / pp each; the remainder goes to the middle stages (stage 1, 2, …)
 *    because the first and last stages also hold the embedding and the LM head.
 */
#include "training.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

/* ---- model -------------------------------------------------------------------------------- */

/* Llama 3: Dubey et al., "The Llama 3 Herd of Models" (2024), Table 3 (layers, model dim, FFN
 * dim, heads, KV heads, vocab 128K = 128256 in the released configs, 8K pre-training context),
 * untied embeddings, SwiGLU. GPT-3 175B: Brown et al. (2020), Table 2.1 (96 layers, d_model
 * 12288, 96 heads, context 2048), FFN 4·d_model, vocab 50257 (GPT-2 BPE), tied embeddings. */
static const train_model PRESETS[] = {
    {"llama3-8b", 32, 4096, 8192, 128256, 32, 8, 14336, true, false, 8.03e9},
    {"llama3-70b", 80, 8192, 8192, 128256, 64, 8, 28672, true, false, 70.6e9},
    {"llama3-405b", 126, 16384, 8192, 128256, 128, 8, 53248, true, false, 405.9e9},
    {"gpt3-175b", 96, 12288, 2048, 50257, 96, 96, 49152, false, true, 175e9},
};

bool train_model_preset(const char *name, train_model *m)
{
    for (size_t i = 0; name && i < sizeof PRESETS / sizeof PRESETS[0]; i++) {
        if (!strcmp(PRESETS[i].name, name)) {
            *m = PRESETS[i];
            return true;
        }
    }
    return false;
}

void train_model_from_cfg(const cfg_model *c, train_model *m)
{
    memset(m, 0, sizeof *m);
    if (!(c->preset && train_model_preset(c->preset, m)))
        m->name = "custom";
    m->layers = c->layers;
    m->hidden = c->hidden;
    m->seq_len = c->seq_len;
    m->vocab = c->vocab;
    m->params = c->params;
}

static double embed_params(const train_model *m)
{
    return (double)m->vocab * m->hidden * (m->tied_embeddings ? 1.0 : 2.0);
}

double train_layer_params(const train_model *m)
{
    double h = m->hidden;
    if (m->ffn == 0 && m->params > 0 && m->layers > 0) {
        /* Explicit model: honour the stated size. */
        double per = (m->params - embed_params(m)) / m->layers;
        if (per > 0)
            return per;
    }
    double kv = (m->heads && m->kv_heads) ? h * m->kv_heads / m->heads : h;
    double ffn = m->ffn ? m->ffn : 4.0 * h;
    return 2.0 * h * h + 2.0 * h * kv + (m->gated_ffn ? 3.0 : 2.0) * h * ffn + 2.0 * h;
}

double train_model_params(const train_model *m)
{
    return m->layers * train_layer_params(m) + embed_params(m) + m->hidden;
}

double train_layer_fwd_flops(const train_model *m, uint32_t micro_batch)
{
    double bs = (double)micro_batch * m->seq_len;
    double lin = (m->ffn == 0 && m->params <= 0) ? 12.0 * m->hidden * m->hidden
                                                 : train_layer_params(m) - 2.0 * m->hidden;
    return 2.0 * bs * lin + 4.0 * bs * m->seq_len * m->hidden;
}

sim_time train_flops_ps(double flops, double peak_tflops, double mfu)
{
    double ps = flops / (peak_tflops * mfu); /* flops / (peak·1e12·mfu) s = … · 1e12 ps */
    return ps <= 0 ? 0 : (sim_time)llround(ps);
}

sim_time train_compute_ps(sim_time dur_ps, double factor)
{
    if (factor == 1.0)
        return dur_ps;
    double v = (double)dur_ps * factor;
    return v <= 0 ? 0 : (sim_time)llround(v);
}

/* ---- options ------------------------------------------------------------------------------ */

void train_opts_default(train_opts *o)
{
    memset(o, 0, sizeof *o);
    train_model_preset("llama3-8b", &o->model);
    o->tp = o->pp = o->dp = o->vp = 1;
    o->micro_batch = 1;
    o->global_batch = 1;
    o->peak_tflops = 989; /* H100 SXM dense BF16 */
    o->mfu = 0.45;
    o->n_ranks = 1;
    o->gpus_per_server = 8;
    o->order = TRAIN_ORDER_TP_DP_PP;
    o->placement = TRAIN_PLACE_CONTIGUOUS;
    o->tp_per_layer = true;
    o->bucket_bytes = 0; /* auto: Megatron-Core's default (train_bucket_bytes) */
}

uint64_t train_bucket_bytes(uint64_t bucket_bytes, uint32_t dp)
{
    if (bucket_bytes)
        return bucket_bytes;
    uint64_t params = TRAIN_BUCKET_PARAMS_PER_DP * dp;
    if (params < TRAIN_BUCKET_MIN_PARAMS)
        params = TRAIN_BUCKET_MIN_PARAMS;
    return params * TRAIN_GRAD_BYTES;
}

void train_opts_from_job(train_opts *o, const cfg_job *j, const char *file, uint32_t n_ranks,
                         const uint32_t *gpus, uint32_t gpus_per_server)
{
    train_opts_default(o);
    train_model_from_cfg(&j->model, &o->model);
    o->tp = j->tp;
    o->pp = j->pp;
    o->dp = j->dp;
    o->vp = j->vp ? j->vp : 1;
    o->moe_experts = j->moe_experts;
    o->moe_top_k = j->moe_top_k;
    o->moe_ep = j->moe_ep;
    o->moe_skew = j->moe_skew;
    o->micro_batch = j->micro_batch;
    o->global_batch = j->global_batch;
    o->peak_tflops = j->gpu_peak_tflops;
    o->mfu = j->gpu_mfu;
    o->n_ranks = n_ranks;
    o->gpus = gpus;
    o->gpus_per_server = gpus_per_server;
    o->err_file = file;
    o->err_line = j->line;
    o->err_col = j->col;
}

/* ---- growable arrays (build time only) ---------------------------------------------------- */

typedef struct vec {
    void *v;
    size_t n, cap, elt;
} vec;

static void *vec_push(vec *a)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 1024;
        a->v = xrealloc(a->v, a->cap * a->elt, "training plan builder");
    }
    void *p = (char *)a->v + a->n++ * a->elt;
    memset(p, 0, a->elt);
    return p;
}

typedef struct edge {
    uint32_t from, to;
} edge;

/* ---- placement ---------------------------------------------------------------------------- */

uint32_t train_rank_of(const train_plan *p, uint32_t t, uint32_t s, uint32_t d)
{
    uint32_t q = p->opts.order == TRAIN_ORDER_TP_DP_PP ? t + p->tp * (d + p->dp * s)
                                                       : t + p->tp * (s + p->pp * d);
    if (p->opts.placement == TRAIN_PLACE_SCATTERED) {
        uint32_t servers = p->n_ranks / p->opts.gpus_per_server;
        return (q % servers) * p->opts.gpus_per_server + q / servers;
    }
    return q;
}

static int plan_err(const train_opts *o, err *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int plan_err(const train_opts *o, err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = err_setv(e, ERR_INVALID, o->err_file, o->err_line, o->err_col, fmt, ap);
    va_end(ap);
    return rc;
}

static int validate(const train_opts *o, err *e)
{
    uint64_t prod = (uint64_t)o->tp * o->pp * o->dp;
    if (o->tp == 0 || o->pp == 0 || o->dp == 0)
        return plan_err(o, e, "parallelism: tp, pp and dp must be >= 1, got tp %u, pp %u, dp %u",
                        o->tp, o->pp, o->dp);
    if (prod != o->n_ranks)
        return plan_err(o, e,
                        "parallelism: tp (%u) x pp (%u) x dp (%u) = %llu ranks, but the job has "
                        "%u GPUs",
                        o->tp, o->pp, o->dp, (unsigned long long)prod, o->n_ranks);
    if (o->model.layers < o->pp)
        return plan_err(o, e,
                        "parallelism.pp: %u pipeline stages need at least %u layers, the model "
                        "has %u",
                        o->pp, o->pp, o->model.layers);
    if (o->model.hidden == 0 || o->model.seq_len == 0)
        return plan_err(o, e, "model: hidden and seq_len must be >= 1, got %u and %u",
                        o->model.hidden, o->model.seq_len);
    if (o->micro_batch == 0)
        return plan_err(o, e, "micro_batch: expected >= 1, got 0");
    uint32_t vp = o->vp ? o->vp : 1;
    if (vp > 1 && o->pp < 2)
        return plan_err(o, e,
                        "parallelism.vp: virtual pipeline stages (vp %u) need pipeline "
                        "parallelism (pp >= 2), got pp %u",
                        vp, o->pp);
    if ((uint64_t)o->pp * vp > o->model.layers)
        return plan_err(o, e,
                        "parallelism.vp: %u stages x %u virtual stages need at least %llu "
                        "layers, the model has %u",
                        o->pp, vp, (unsigned long long)o->pp * vp, o->model.layers);
    if (vp > 1 && o->micro_batch && o->dp &&
        (o->global_batch / ((uint64_t)o->micro_batch * o->dp)) % o->pp != 0)
        return plan_err(o, e,
                        "parallelism.vp: the interleaved schedule runs micro-batches in groups "
                        "of pp (%u), but there are %llu per iteration (global_batch / "
                        "(micro_batch x dp)); Megatron-LM requires a multiple of pp",
                        o->pp,
                        (unsigned long long)(o->global_batch / ((uint64_t)o->micro_batch * o->dp)));
    uint64_t step = (uint64_t)o->micro_batch * o->dp;
    if (o->global_batch == 0 || o->global_batch % step != 0)
        return plan_err(o, e,
                        "global_batch: expected a multiple of micro_batch x dp (%llu), got %u",
                        (unsigned long long)step, o->global_batch);
    if (!(o->peak_tflops > 0) || !(o->mfu > 0 && o->mfu <= 1))
        return plan_err(o, e, "gpu: expected peak_tflops > 0 and mfu in (0, 1], got %g and %g",
                        o->peak_tflops, o->mfu);
    if (o->gpus_per_server == 0)
        return plan_err(o, e, "fabric.gpus_per_server: expected >= 1, got 0");
    if (o->placement == TRAIN_PLACE_SCATTERED && o->n_ranks % o->gpus_per_server != 0)
        return plan_err(o, e,
                        "placement: scattered needs whole servers, but %u GPUs are not a multiple "
                        "of gpus_per_server (%u)",
                        o->n_ranks, o->gpus_per_server);
    if (o->moe_experts) {
        uint32_t ep = o->moe_ep ? o->moe_ep : 1;
        if (o->dp % ep != 0)
            return plan_err(o, e,
                            "moe.ep: expert-parallel groups are carved out of the data-parallel "
                            "groups, so ep (%u) must divide dp (%u)",
                            ep, o->dp);
        if (o->moe_experts % ep != 0)
            return plan_err(o, e, "moe.ep: %u experts do not spread evenly over ep %u ranks",
                            o->moe_experts, ep);
        if (o->moe_top_k == 0 || o->moe_top_k > o->moe_experts)
            return plan_err(o, e, "moe.top_k: expected 1..%u (the experts), got %u", o->moe_experts,
                            o->moe_top_k);
    }
    return ERR_OK;
}

static int place(train_plan *p, const uint32_t *gpus, err *e)
{
    const train_opts *o = &p->opts;
    uint32_t n = p->n_ranks, tp = p->tp, pp = p->pp, dp = p->dp;
    p->ranks = ARENA_NEW_ARRAY(&p->mem, train_rank, n);
    p->n_tp_groups = pp * dp;
    p->n_dp_groups = tp * pp;
    uint32_t ep = p->ep;
    p->n_ep_groups = o->moe_experts ? tp * pp * (dp / ep) : 0;
    uint32_t ep0 = p->n_tp_groups + p->n_dp_groups + tp * dp; /* first EP group */
    p->n_groups = ep0 + p->n_ep_groups;
    p->groups = ARENA_NEW_ARRAY(&p->mem, train_group, p->n_groups);
    p->members = ARENA_NEW_ARRAY(&p->mem, uint32_t, 4 * (size_t)n);
    for (uint32_t r = 0; r < n; r++)
        p->ranks[r].gpu = TRAIN_NONE;
    for (uint32_t s = 0; s < pp; s++) {
        for (uint32_t d = 0; d < dp; d++) {
            for (uint32_t t = 0; t < tp; t++) {
                uint32_t r = train_rank_of(p, t, s, d);
                SIM_ASSERT(r < n && p->ranks[r].gpu == TRAIN_NONE, "rank %u placed twice", r);
                train_rank *k = &p->ranks[r];
                k->gpu = gpus ? gpus[r] : r;
                k->server = k->gpu / o->gpus_per_server;
                k->tp = t;
                k->pp = s;
                k->dp = d;
                k->tp_group = d + dp * s;
                k->dp_group = p->n_tp_groups + t + tp * s;
                k->pp_group = p->n_tp_groups + p->n_dp_groups + t + tp * d;
                k->pp_prev = s > 0 ? train_rank_of(p, t, s - 1, d) : TRAIN_NONE;
                k->pp_next = s + 1 < pp ? train_rank_of(p, t, s + 1, d) : TRAIN_NONE;
                /* Members: TP groups in [0, n), DP groups in [n, 2n), PP groups in [2n, 3n). */
                train_group *g = &p->groups[k->tp_group];
                g->kind = TRAIN_GROUP_TP;
                g->n = tp;
                g->off = k->tp_group * tp;
                p->members[g->off + t] = r;
                g = &p->groups[k->dp_group];
                g->kind = TRAIN_GROUP_DP;
                g->n = dp;
                g->off = n + (k->dp_group - p->n_tp_groups) * dp;
                p->members[g->off + d] = r;
                g = &p->groups[k->pp_group];
                g->kind = TRAIN_GROUP_PP;
                g->n = pp;
                g->off = 2 * n + (k->pp_group - p->n_tp_groups - p->n_dp_groups) * pp;
                p->members[g->off + s] = r;
                /* EP groups: ep consecutive DP indices of one (tp, pp), members in [3n, 4n) */
                k->ep_group = TRAIN_NONE;
                if (p->n_ep_groups) {
                    uint32_t ei = t + tp * (s + pp * (d / ep));
                    k->ep_group = ep0 + ei;
                    g = &p->groups[k->ep_group];
                    g->kind = TRAIN_GROUP_EP;
                    g->n = ep;
                    g->off = 3 * n + ei * ep;
                    p->members[g->off + d % ep] = r;
                }
            }
        }
    }
    if (o->placement != TRAIN_PLACE_CONTIGUOUS)
        return ERR_OK;
    /* TP groups must sit inside a server (tp <= gpus_per_server) or fill whole servers. */
    uint32_t gps = o->gpus_per_server;
    for (uint32_t g = 0; g < p->n_tp_groups; g++) {
        const uint32_t *mem = &p->members[p->groups[g].off];
        for (uint32_t t = 0; t < tp; t++) {
            uint32_t lead = tp <= gps ? 0 : t - t % gps;
            uint32_t a = p->ranks[mem[lead]].server, b = p->ranks[mem[t]].server;
            bool ok = a == b && (tp <= gps || tp % gps == 0);
            if (!ok)
                return plan_err(o, e,
                                "parallelism.tp: the TP group of ranks %u..%u (tp %u) spans "
                                "servers %u and %u; with gpus_per_server %u a TP group must sit "
                                "inside one server (tp dividing %u) or fill whole servers",
                                mem[0], mem[tp - 1], tp, a, b, gps, gps);
        }
    }
    return ERR_OK;
}

/* ---- schedule ----------------------------------------------------------------------------- */

typedef struct chunk {
    sim_time dur_ps;
    uint64_t tp_bytes;
    uint32_t tp_count;   /* TP all_reduces after this chunk (0: none) */
    uint64_t grad_bytes; /* gradient bytes this chunk produces (backward) */
    uint64_t ep_bytes;   /* MoE: the experts' chunk, an EP all_to_all before and after */
} chunk;

enum { GRAIN_PASS, GRAIN_LAYER, GRAIN_HALF };

typedef struct stage_shape {
    chunk *fwd, *bwd, *bwd_last;
    uint32_t n_fwd, n_bwd, n_bwd_last;
} stage_shape;

/* Chunks of one pass of virtual stage s (= the stage without interleaving). dir 0 forward, 1
 * backward. */
static chunk *make_chunks(train_plan *p, uint32_t s, int dir, int grain, uint32_t *n_out)
{
    uint32_t L = p->vstage_layers[s];
    bool first = s == 0, last = s + 1 == p->pp * p->vp;
    uint32_t k = dir ? (p->opts.recompute ? 3 : 2) : 1;
    sim_time lay = p->layer_fwd_ps * k, head = last ? p->head_fwd_ps * k : 0;
    uint64_t shard = (uint64_t)ceil(train_layer_params(&p->model) / p->tp) * 2;
    uint64_t vshard = (uint64_t)ceil((double)p->model.vocab * p->model.hidden / p->tp) * 2;
    uint64_t head_grad = last ? vshard : 0, emb_grad = first ? vshard : 0;
    uint64_t ar = p->tp > 1 ? p->act_bytes : 0;
    uint32_t cnt = p->tp > 1 ? 1 : 0;
    chunk *c = ARENA_NEW_ARRAY(&p->mem, chunk, 2 * (size_t)L + 2);
    uint32_t n = 0;
    if (grain == GRAIN_PASS) {
        c[0] =
            (chunk){L * lay + head, ar * 2 * L, cnt * 2 * L, L * shard + head_grad + emb_grad, 0};
        *n_out = 1;
        return c;
    }
    bool has_head = last && p->model.vocab > 0;
    if (dir && has_head)
        c[n++] = (chunk){head, 0, 0, head_grad, 0};
    for (uint32_t l = 0; l < L; l++) {
        if (grain == GRAIN_LAYER) {
            c[n++] = (chunk){lay, 2 * ar, 2 * cnt, shard, 0};
        } else {
            /* attention then MLP forward; the MLP's backward first. With MoE the MLP chunk is
             * the experts': dispatch before it, combine after (their gradients backward). */
            uint64_t a2a = p->moe_a2a_bytes;
            c[n++] = (chunk){lay / 2, ar, cnt, shard / 2, dir ? a2a : 0};
            c[n++] = (chunk){lay - lay / 2, ar, cnt, shard - shard / 2, dir ? 0 : a2a};
        }
    }
    if (!dir && has_head)
        c[n++] = (chunk){head, 0, 0, 0, 0};
    if (dir)
        c[n - 1].grad_bytes += emb_grad;
    *n_out = n;
    return c;
}

typedef struct builder {
    train_plan *p;
    vec tasks, edges;
    stage_shape *shape;        /* [pp × vp] per virtual stage c·pp + s */
    uint32_t *pass_first;      /* [PASS(r, c, mb, dir)] first compute of the pass */
    uint32_t *pass_last;       /* … last task of the pass (compute or TP all_reduce) */
    uint32_t *lb_off, *lb_ids; /* per rank: compute task of each last-backward chunk, model
                                * chunks vp−1 … 0 (the order their last backward runs) */
} builder;

/* Index of the pass (rank r, model chunk c, micro-batch mb, direction dir). */
static size_t pass_idx(const train_plan *p, uint32_t r, uint32_t c, uint32_t mb, int dir)
{
    return (((size_t)r * p->vp + c) * p->m + mb) * 2 + (size_t)dir;
}

/* Offset of model chunk c's last-backward tasks in a rank's lb list (chunks vp−1 … 0). */
static uint32_t lb_chunk_off(const builder *b, uint32_t s, uint32_t c)
{
    const train_plan *p = b->p;
    uint32_t o = 0;
    for (uint32_t k = p->vp - 1; k > c; k--)
        o += b->shape[k * p->pp + s].n_bwd_last;
    return o;
}

/*
 * The passes of stage s in execution order: out[i] = (model chunk, micro-batch, dir) for
 * i < 2·m·vp. vp = 1: Megatron's non-interleaved 1F1B (min(p−s−1, m) warm-up forwards, then one
 * forward / one backward, then the cool-down backwards). vp > 1: Megatron's interleaved
 * schedule (forward_backward_pipelining_with_interleaving; Narayanan et al. SC'21 §2.2.2):
 * micro-batches go through the model chunks in groups of pp; the k-th forward is chunk
 * (k mod pp·vp) / pp of micro-batch (k / (pp·vp))·pp + k mod pp, the k-th backward the same
 * with the chunk order reversed; (p − s − 1)·2 + (vp − 1)·pp warm-up forwards (at most m·vp),
 * then one forward / one backward, then the cool-down backwards.
 */
static void stage_order(const train_plan *p, uint32_t s, uint32_t *oc, uint32_t *omb, int *odir)
{
    uint32_t m = p->m, pp = p->pp, vp = p->vp, n = 0;
    if (vp == 1) {
        uint32_t warm = pp - s - 1 < m ? pp - s - 1 : m;
        for (uint32_t step = 0; step < 2 * m; step++, n++) {
            oc[n] = 0;
            if (step < warm) {
                omb[n] = step, odir[n] = 0;
            } else if (step < warm + 2 * (m - warm)) {
                uint32_t i = step - warm;
                odir[n] = (int)(i & 1);
                omb[n] = odir[n] ? i / 2 : warm + i / 2;
            } else {
                omb[n] = step - m, odir[n] = 1;
            }
        }
        return;
    }
    uint32_t total = m * vp, G = pp * vp;
    uint64_t w = (uint64_t)(pp - s - 1) * 2 + (uint64_t)(vp - 1) * pp;
    uint32_t warm = w < total ? (uint32_t)w : total;
    uint32_t f = 0, bk = 0;
    for (uint32_t i = 0; i < 2 * total; i++, n++) {
        /* forward while warming up; then alternate (forward first); then backwards */
        bool fwd = f < warm || (f < total && f - warm == bk);
        uint32_t k = fwd ? f++ : bk++;
        uint32_t c = (k % G) / pp;
        oc[n] = fwd ? c : vp - 1 - c;
        omb[n] = (k / G) * pp + k % pp;
        odir[n] = fwd ? 0 : 1;
    }
}

static uint32_t new_task(builder *b, uint8_t kind, uint8_t phase)
{
    train_task *t = vec_push(&b->tasks);
    t->kind = kind;
    t->phase = phase;
    t->rank = t->dst = t->group = t->mb = TRAIN_NONE;
    t->count = 1;
    SIM_ASSERT(b->tasks.n < TRAIN_NONE, "too many training tasks (%zu)", b->tasks.n);
    return (uint32_t)(b->tasks.n - 1);
}

static train_task *task(builder *b, uint32_t id)
{
    return &((train_task *)b->tasks.v)[id];
}

static void add_edge(builder *b, uint32_t from, uint32_t to)
{
    if (from == TRAIN_NONE)
        return;
    edge *e = vec_push(&b->edges);
    e->from = from;
    e->to = to;
}

/* An EP all_to_all over EP group g after each member's prior task; the members' next task
 * waits on it. `prev` is indexed by EP-local index × tp + t. */
static void emit_ep(builder *b, uint32_t g, uint32_t t, uint32_t mb, uint32_t s, uint64_t bytes,
                    uint32_t *prev)
{
    train_plan *p = b->p;
    uint32_t id = new_task(b, TRAIN_COLL, TRAIN_PH_EP);
    train_task *k = task(b, id);
    k->op = OP_ALL_TO_ALL;
    k->group = g;
    k->mb = mb;
    k->stage = s;
    k->bytes = bytes;
    for (uint32_t j = 0; j < p->groups[g].n; j++) {
        add_edge(b, prev[j * p->tp + t], id);
        prev[j * p->tp + t] = id;
    }
}

/* All passes of the TP groups (s, d0 .. d0 + nd − 1) in schedule order (stage_order). Their
 * schedules are identical, so they are emitted in lock step: a MoE all_to_all joins the nd
 * replicas of one EP group (nd = ep; 1 for dense models). */
static void emit_block(builder *b, uint32_t s, uint32_t d0, uint32_t nd)
{
    train_plan *p = b->p;
    uint32_t tp = p->tp, m = p->m, n = 2 * m * p->vp, R = nd * tp;
    uint32_t *prev = xmalloc(sizeof(uint32_t) * 2 * R, "training plan builder");
    uint32_t *cur = prev + R;
    uint32_t *oc = xmalloc(sizeof(uint32_t) * 2 * (size_t)n, "training plan builder");
    uint32_t *omb = oc + n;
    int *odir = xmalloc(sizeof(int) * n, "training plan builder");
    stage_order(p, s, oc, omb, odir);
    for (uint32_t i = 0; i < R; i++)
        prev[i] = TRAIN_NONE;
    for (uint32_t step = 0; step < n; step++) {
        uint32_t mb = omb[step], vc = oc[step];
        int dir = odir[step];
        const stage_shape *sh = &b->shape[vc * p->pp + s];
        bool lastb = dir && mb + 1 == m;
        const chunk *ch = !dir ? sh->fwd : lastb ? sh->bwd_last : sh->bwd;
        uint32_t nch = !dir ? sh->n_fwd : lastb ? sh->n_bwd_last : sh->n_bwd;
        uint32_t lbo = lastb ? lb_chunk_off(b, s, vc) : 0;
        for (uint32_t c = 0; c < nch; c++) {
            if (ch[c].ep_bytes) /* dispatch (its gradient backward) */
                for (uint32_t t = 0; t < tp; t++)
                    emit_ep(b, p->ranks[train_rank_of(p, t, s, d0)].ep_group, t, mb, s,
                            ch[c].ep_bytes, prev);
            for (uint32_t j = 0; j < nd; j++) {
                uint32_t d = d0 + j;
                uint32_t *mem = &p->members[p->groups[d + p->dp * s].off];
                uint32_t *pv = prev + j * tp, *cu = cur + j * tp;
                for (uint32_t t = 0; t < tp; t++) {
                    uint32_t id = new_task(b, TRAIN_COMPUTE, dir ? TRAIN_PH_BWD : TRAIN_PH_FWD);
                    train_task *k = task(b, id);
                    k->rank = mem[t];
                    k->mb = mb;
                    k->stage = s;
                    k->dur_ps = ch[c].dur_ps;
                    k->last_mb_bwd = lastb;
                    add_edge(b, pv[t], id);
                    cu[t] = id;
                    if (c == 0)
                        b->pass_first[pass_idx(p, mem[t], vc, mb, dir)] = id;
                    if (lastb)
                        b->lb_ids[b->lb_off[mem[t]] + lbo + c] = id;
                }
                if (tp > 1 && ch[c].tp_count > 0) {
                    uint32_t id = new_task(b, TRAIN_COLL, TRAIN_PH_TP);
                    train_task *k = task(b, id);
                    k->op = OP_ALL_REDUCE;
                    k->group = d + p->dp * s;
                    k->mb = mb;
                    k->stage = s;
                    k->bytes = ch[c].tp_bytes;
                    k->count = ch[c].tp_count;
                    for (uint32_t t = 0; t < tp; t++) {
                        add_edge(b, cu[t], id);
                        pv[t] = id;
                    }
                } else {
                    for (uint32_t t = 0; t < tp; t++)
                        pv[t] = cu[t];
                }
            }
            if (ch[c].ep_bytes) /* combine (its gradient backward) */
                for (uint32_t t = 0; t < tp; t++)
                    emit_ep(b, p->ranks[train_rank_of(p, t, s, d0)].ep_group, t, mb, s,
                            ch[c].ep_bytes, prev);
        }
        for (uint32_t j = 0; j < nd; j++) {
            uint32_t *mem = &p->members[p->groups[d0 + j + p->dp * s].off];
            for (uint32_t t = 0; t < tp; t++)
                b->pass_last[pass_idx(p, mem[t], vc, mb, dir)] = prev[j * tp + t];
        }
    }
    xfree(prev);
    xfree(oc);
    xfree(odir);
}

/* Activations (forward) and their gradients (backward) across every boundary between virtual
 * stages v and v + 1 (stage v mod pp, model chunk v / pp): with interleaving the last stage
 * also sends to the first (chunk c → c + 1). */
static void emit_p2p(builder *b)
{
    train_plan *p = b->p;
    uint32_t V = p->pp * p->vp;
    for (uint32_t d = 0; d < p->dp; d++)
        for (uint32_t t = 0; t < p->tp; t++)
            for (uint32_t v = 0; v + 1 < V; v++)
                for (uint32_t mb = 0; mb < p->m; mb++)
                    for (int dir = 0; dir < 2; dir++) {
                        uint32_t sa = v % p->pp, ca = v / p->pp;
                        uint32_t sb = (v + 1) % p->pp, cb = (v + 1) / p->pp;
                        uint32_t a = train_rank_of(p, t, sa, d), z = train_rank_of(p, t, sb, d);
                        uint32_t src = dir ? z : a, dst = dir ? a : z;
                        uint32_t cs = dir ? cb : ca, cd = dir ? ca : cb;
                        uint32_t id = new_task(b, TRAIN_P2P, TRAIN_PH_PP);
                        train_task *k = task(b, id);
                        k->rank = src;
                        k->dst = dst;
                        k->mb = mb;
                        k->stage = dir ? sb : sa;
                        k->bytes = p->act_bytes;
                        add_edge(b, b->pass_last[pass_idx(p, src, cs, mb, dir)], id);
                        add_edge(b, id, b->pass_first[pass_idx(p, dst, cd, mb, dir)]);
                    }
}

static void emit_dp(builder *b)
{
    train_plan *p = b->p;
    if (p->dp < 2)
        return;
    for (uint32_t s = 0; s < p->pp; s++) {
        /* the stage's last-backward chunks in the order they run: model chunks vp−1 … 0 */
        uint32_t nl = 0;
        for (uint32_t vc = 0; vc < p->vp; vc++)
            nl += b->shape[vc * p->pp + s].n_bwd_last;
        uint64_t *gb = xmalloc(sizeof(uint64_t) * (nl ? nl : 1), "training plan builder");
        nl = 0;
        for (uint32_t vc = p->vp; vc-- > 0;) {
            const stage_shape *sh = &b->shape[vc * p->pp + s];
            for (uint32_t c = 0; c < sh->n_bwd_last; c++)
                gb[nl++] = sh->bwd_last[c].grad_bytes;
        }
        uint64_t total = p->stage_grad_bytes[s], B = p->opts.bucket_bytes;
        uint32_t nb = p->stage_buckets[s];
        for (uint32_t t = 0; t < p->tp; t++) {
            uint32_t g = p->n_tp_groups + t + p->tp * s;
            const uint32_t *mem = &p->members[p->groups[g].off];
            uint32_t prev = TRAIN_NONE, c = 0;
            uint64_t cum = nl ? gb[0] : 0;
            uint32_t *rs = xmalloc(sizeof(uint32_t) * (nb ? nb : 1), "training plan builder");
            for (uint32_t k = 0; k < nb; k++) {
                uint64_t lo = (uint64_t)k * B, hi = lo + B < total ? lo + B : total;
                while (cum < hi && c + 1 < nl)
                    cum += gb[++c];
                uint32_t id = new_task(b, TRAIN_COLL, TRAIN_PH_DP);
                train_task *x = task(b, id);
                x->op = p->opts.dp_sharded ? OP_REDUCE_SCATTER : OP_ALL_REDUCE;
                x->group = g;
                x->stage = s;
                x->bytes = hi - lo;
                for (uint32_t d = 0; d < p->dp; d++)
                    add_edge(b, b->lb_ids[b->lb_off[mem[d]] + c], id);
                add_edge(b, prev, id);
                prev = rs[k] = id;
            }
            if (p->opts.dp_sharded) {
                uint32_t last_rs = prev;
                prev = TRAIN_NONE;
                for (uint32_t k = 0; k < nb; k++) {
                    uint32_t id = new_task(b, TRAIN_COLL, TRAIN_PH_DP);
                    train_task *x = task(b, id);
                    x->op = OP_ALL_GATHER;
                    x->group = g;
                    x->stage = s;
                    x->bytes = task(b, rs[k])->bytes;
                    add_edge(b, last_rs, id);
                    add_edge(b, prev, id);
                    prev = id;
                }
            }
            xfree(rs);
        }
        xfree(gb);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void finish(builder *b)
{
    train_plan *p = b->p;
    uint32_t nt = (uint32_t)b->tasks.n;
    size_t ne = b->edges.n;
    SIM_ASSERT(ne < TRAIN_NONE, "too many training dependencies (%zu)", ne);
    /* The builder's array becomes the plan's (no copy: it is the largest structure). */
    p->n_tasks = nt;
    p->tasks = xrealloc(b->tasks.v, sizeof(train_task) * (nt ? nt : 1), "training plan tasks");
    b->tasks.v = NULL;
    p->n_deps = (uint32_t)ne;
    p->deps = ARENA_NEW_ARRAY(&p->mem, uint32_t, ne ? ne : 1);
    p->succ = ARENA_NEW_ARRAY(&p->mem, uint32_t, ne ? ne : 1);
    const edge *E = b->edges.v;
    for (size_t i = 0; i < ne; i++) {
        p->tasks[E[i].to].n_deps++;
        p->tasks[E[i].from].n_succ++;
    }
    uint32_t od = 0, os = 0;
    for (uint32_t i = 0; i < nt; i++) {
        p->tasks[i].dep_off = od, od += p->tasks[i].n_deps, p->tasks[i].n_deps = 0;
        p->tasks[i].succ_off = os, os += p->tasks[i].n_succ, p->tasks[i].n_succ = 0;
    }
    for (size_t i = 0; i < ne; i++) {
        train_task *to = &p->tasks[E[i].to], *fr = &p->tasks[E[i].from];
        p->deps[to->dep_off + to->n_deps++] = E[i].from;
        p->succ[fr->succ_off + fr->n_succ++] = E[i].to;
    }
    /* Rank → tasks involving it (compute: its rank; COLL: each member; P2P: src and dst). */
    p->rank_task_off = ARENA_NEW_ARRAY(&p->mem, uint32_t, (size_t)p->n_ranks + 1);
    uint64_t tot = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t *fill = NULL;
        if (pass == 1) {
            fill = xcalloc(p->n_ranks, sizeof(uint32_t), "training plan builder");
            p->rank_tasks = ARENA_NEW_ARRAY(&p->mem, uint32_t, tot ? tot : 1);
        }
        for (uint32_t i = 0; i < nt; i++) {
            const train_task *t = &p->tasks[i];
            uint32_t one[2] = {t->rank, t->dst};
            const uint32_t *rs = one;
            uint32_t n = t->kind == TRAIN_P2P ? 2 : 1;
            if (t->kind == TRAIN_COLL)
                rs = &p->members[p->groups[t->group].off], n = p->groups[t->group].n;
            for (uint32_t j = 0; j < n; j++) {
                if (pass == 0)
                    p->rank_task_off[rs[j] + 1]++;
                else
                    p->rank_tasks[p->rank_task_off[rs[j]] + fill[rs[j]]++] = i;
            }
        }
        if (pass == 0) {
            for (uint32_t r = 0; r < p->n_ranks; r++)
                p->rank_task_off[r + 1] += p->rank_task_off[r];
            tot = p->rank_task_off[p->n_ranks];
            SIM_ASSERT(tot < TRAIN_NONE, "rank task index too large (%llu)",
                       (unsigned long long)tot);
        }
        xfree(fill);
    }
    for (uint32_t i = 0; i < nt; i++) {
        const train_task *t = &p->tasks[i];
        if (t->kind == TRAIN_COMPUTE)
            p->stats.compute++;
        else if (t->kind == TRAIN_P2P)
            p->stats.p2p++;
        else if (t->phase == TRAIN_PH_TP)
            p->stats.coll_tp++, p->stats.tp_collectives += t->count;
        else if (t->phase == TRAIN_PH_EP)
            p->stats.coll_ep++;
        else
            p->stats.coll_dp++;
    }
    p->stats.deps = ne;
    for (uint32_t i = 0; i < nt; i++)
        qsort(&p->deps[p->tasks[i].dep_off], p->tasks[i].n_deps, sizeof(uint32_t), cmp_u32);
}

/* ---- compact plans (training.h) -------------------------------------------------------- */

struct train_compact {
    train_plan *r;         /* the reduced plan: the same job with R_DP replicas, stored */
    uint32_t *fbase;       /* [pp + 1] first task of stage s's blocks; fbase[pp] = fp0 */
    uint32_t *rbase;       /* [pp + 1] the same in the reduced plan (its stage_task0) */
    uint32_t *T;           /* [pp] tasks of one block (one replica of stage s) */
    uint32_t fp0, rp0, pd; /* P2P tasks: first one, in the reduced plan; per replica */
    uint32_t fd0, rd0;     /* DP collectives: first one, in the reduced plan */
    uint32_t rank_max;
};

#define R_DP 2u

/* Largest s with base[s] <= i (base ascending, s < n). */
static uint32_t stage_of(const uint32_t *base, uint32_t n, uint32_t i)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (base[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Full task i → the reduced plan's task standing for it, and its replica (0 for DP tasks). */
static uint32_t cx_unmap(const train_compact *c, uint32_t pp, uint32_t i, uint32_t *d)
{
    if (i < c->fp0) {
        uint32_t s = stage_of(c->fbase, pp, i), off = i - c->fbase[s];
        *d = off / c->T[s];
        return c->rbase[s] + off % c->T[s];
    }
    if (i < c->fd0) {
        uint32_t off = i - c->fp0;
        *d = off / c->pd;
        return c->rp0 + off % c->pd;
    }
    *d = 0;
    return c->rd0 + (i - c->fd0);
}

/* A reduced-plan task of replica 0 (or a DP collective) → the full task of replica d. */
static uint32_t cx_map(const train_compact *c, uint32_t pp, uint32_t rid, uint32_t d)
{
    if (rid < c->rp0) {
        uint32_t s = stage_of(c->rbase, pp, rid), j = rid - c->rbase[s];
        return c->fbase[s] + d * c->T[s] + j;
    }
    if (rid < c->rd0)
        return c->fp0 + d * c->pd + (rid - c->rp0);
    return c->fd0 + (rid - c->rd0);
}

/* Whether reduced-plan task rid belongs to replica 0 (or is a DP collective). */
static bool cx_first_replica(const train_compact *c, uint32_t pp, uint32_t rid)
{
    if (rid < c->rp0) {
        uint32_t s = stage_of(c->rbase, pp, rid);
        return rid - c->rbase[s] < c->T[s];
    }
    if (rid < c->rd0)
        return rid - c->rp0 < c->pd;
    return true;
}

/* Dependencies of the reduced plan's task rid on the replicas' blocks (a DP bucket's on the
 * last-backward chunks: one per replica; 0 for every other task). */
static uint32_t cx_block_deps(const train_compact *c, uint32_t rid)
{
    const train_plan *R = c->r;
    const train_task *t = &R->tasks[rid];
    if (rid < c->rd0)
        return 0;
    uint32_t n = 0;
    while (n < t->n_deps && R->deps[t->dep_off + n] < c->rp0)
        n++;
    return n;
}

static uint32_t cx_n_deps(const train_plan *p, uint32_t rid)
{
    const train_compact *c = p->cx;
    uint32_t nb = cx_block_deps(c, rid);
    return c->r->tasks[rid].n_deps + (nb ? p->dp - nb : 0);
}

const train_task *train_compact_task(const train_plan *p, uint32_t i, train_task *buf)
{
    const train_compact *c = p->cx;
    const train_plan *R = c->r;
    uint32_t d, rid = cx_unmap(c, p->pp, i, &d);
    *buf = R->tasks[rid];
    buf->dep_off = buf->succ_off = TRAIN_NONE;
    const train_rank *k;
    switch (buf->kind) {
    case TRAIN_COMPUTE:
        k = &R->ranks[buf->rank];
        buf->rank = train_rank_of(p, k->tp, k->pp, d);
        break;
    case TRAIN_P2P:
        k = &R->ranks[buf->rank];
        buf->rank = train_rank_of(p, k->tp, k->pp, d);
        k = &R->ranks[buf->dst];
        buf->dst = train_rank_of(p, k->tp, k->pp, d);
        break;
    default:
        if (buf->phase == TRAIN_PH_TP) {
            buf->group = d + p->dp * buf->stage;
        } else {
            buf->group = p->n_tp_groups + (buf->group - R->n_tp_groups);
            buf->n_deps = cx_n_deps(p, rid);
        }
        break;
    }
    return buf;
}

uint32_t train_plan_n_deps(const train_plan *p, uint32_t i)
{
    if (p->tasks)
        return p->tasks[i].n_deps;
    uint32_t d, rid = cx_unmap(p->cx, p->pp, i, &d);
    return rid < p->cx->rd0 ? p->cx->r->tasks[rid].n_deps : cx_n_deps(p, rid);
}

uint32_t train_plan_max_deps(const train_plan *p)
{
    uint32_t most = 0;
    if (p->tasks) {
        for (uint32_t i = 0; i < p->n_tasks; i++)
            if (p->tasks[i].n_deps > most)
                most = p->tasks[i].n_deps;
        return most;
    }
    for (uint32_t rid = 0; rid < p->cx->r->n_tasks; rid++) {
        uint32_t n = cx_n_deps(p, rid);
        if (n > most)
            most = n;
    }
    return most;
}

uint32_t train_plan_succ(const train_plan *p, uint32_t i, uint32_t from, uint32_t *out)
{
    uint32_t n = 0;
    if (p->tasks) {
        const train_task *t = &p->tasks[i];
        for (uint32_t k = from; k < t->n_succ && n < TRAIN_LIST_BATCH; k++)
            out[n++] = p->succ[t->succ_off + k];
        return n;
    }
    const train_compact *c = p->cx;
    const train_plan *R = c->r;
    uint32_t d, rid = cx_unmap(c, p->pp, i, &d);
    const train_task *t = &R->tasks[rid];
    for (uint32_t k = from; k < t->n_succ && n < TRAIN_LIST_BATCH; k++)
        out[n++] = cx_map(c, p->pp, R->succ[t->succ_off + k], d);
    return n;
}

uint32_t train_plan_deps(const train_plan *p, uint32_t i, uint32_t from, uint32_t *out)
{
    uint32_t n = 0;
    if (p->tasks) {
        const train_task *t = &p->tasks[i];
        for (uint32_t k = from; k < t->n_deps && n < TRAIN_LIST_BATCH; k++)
            out[n++] = p->deps[t->dep_off + k];
        return n;
    }
    const train_compact *c = p->cx;
    const train_plan *R = c->r;
    uint32_t d, rid = cx_unmap(c, p->pp, i, &d);
    const train_task *t = &R->tasks[rid];
    uint32_t nb = cx_block_deps(c, rid);
    uint32_t total = t->n_deps + (nb ? p->dp - nb : 0);
    for (uint32_t k = from; k < total && n < TRAIN_LIST_BATCH; k++) {
        if (nb && k < p->dp) /* the bucket's chunk in replica k */
            out[n++] = cx_map(c, p->pp, R->deps[t->dep_off], k);
        else
            out[n++] = cx_map(c, p->pp, R->deps[t->dep_off + (nb ? k - p->dp + nb : k)], d);
    }
    return n;
}

uint32_t train_plan_rank_tasks(const train_plan *p, uint32_t r, uint32_t *out)
{
    if (p->tasks) {
        uint32_t n = p->rank_task_off[r + 1] - p->rank_task_off[r];
        memcpy(out, p->rank_tasks + p->rank_task_off[r], sizeof(uint32_t) * n);
        return n;
    }
    const train_compact *c = p->cx;
    const train_plan *R = c->r;
    const train_rank *k = &p->ranks[r];
    uint32_t r0 = train_rank_of(R, k->tp, k->pp, 0), n = 0;
    for (uint32_t q = R->rank_task_off[r0]; q < R->rank_task_off[r0 + 1]; q++)
        out[n++] = cx_map(c, p->pp, R->rank_tasks[q], k->dp);
    return n;
}

uint32_t train_plan_rank_max(const train_plan *p)
{
    if (p->cx)
        return p->cx->rank_max;
    uint32_t most = 0;
    for (uint32_t r = 0; r < p->n_ranks; r++)
        if (p->rank_task_off[r + 1] - p->rank_task_off[r] > most)
            most = p->rank_task_off[r + 1] - p->rank_task_off[r];
    return most;
}

sim_time train_plan_max_compute(const train_plan *p)
{
    /* a compact plan: every replica's rank (t, s, d) computes what replica 0's does */
    const train_plan *q = p->cx ? p->cx->r : p;
    sim_time *busy = xcalloc(q->n_ranks ? q->n_ranks : 1, sizeof(sim_time), "training compute");
    sim_time most = 0;
    uint32_t n = p->cx ? p->cx->rp0 : q->n_tasks;
    for (uint32_t i = 0; i < n; i++) {
        const train_task *t = &q->tasks[i];
        if (t->kind != TRAIN_COMPUTE || t->rank >= q->n_ranks)
            continue;
        busy[t->rank] += train_compute_ps(t->dur_ps, 1.0);
        if (busy[t->rank] > most)
            most = busy[t->rank];
    }
    xfree(busy);
    return most;
}

uint64_t train_plan_bytes(const train_plan *p)
{
    uint64_t b =
        sizeof *p + p->mem.used_bytes + (uint64_t)(p->tasks ? p->n_tasks : 0) * sizeof(train_task);
    return b + (p->cx ? train_plan_bytes(p->cx->r) : 0);
}

/* Lay p out as a compact plan over a reduced plan of R_DP replicas (p: placed, stage figures
 * set). */
static int compact_build(train_plan *p, const train_opts *o, err *e)
{
    train_opts ro = *o;
    ro.compact = false;
    ro.dp = R_DP;
    ro.n_ranks = p->tp * p->pp * R_DP;
    ro.gpus = NULL;
    /* the reduced plan's placement is not used (ranks are renumbered into p's): one server,
     * Megatron's order */
    ro.gpus_per_server = ro.n_ranks;
    ro.order = TRAIN_ORDER_TP_DP_PP;
    ro.placement = TRAIN_PLACE_CONTIGUOUS;
    ro.global_batch = p->m * o->micro_batch * R_DP;
    ro.bucket_bytes = p->opts.bucket_bytes; /* the full job's: auto depends on dp */
    train_plan *R = train_plan_new(&ro, e);
    if (!R)
        return e->code ? e->code : ERR_INVALID;
    SIM_ASSERT(R->m == p->m && R->dp == R_DP, "reduced training plan: m %u (want %u)", R->m, p->m);
    uint32_t pp = p->pp;
    train_compact *c = ARENA_NEW(&p->mem, train_compact);
    memset(c, 0, sizeof *c);
    c->r = R;
    c->fbase = ARENA_NEW_ARRAY(&p->mem, uint32_t, (size_t)pp + 1);
    c->rbase = R->stage_task0;
    c->T = ARENA_NEW_ARRAY(&p->mem, uint32_t, pp);
    uint64_t at = 0;
    for (uint32_t s = 0; s < pp; s++) {
        uint32_t span = R->stage_task0[s + 1] - R->stage_task0[s];
        SIM_ASSERT(span % R_DP == 0, "reduced training plan: stage %u has %u tasks", s, span);
        c->T[s] = span / R_DP;
        c->fbase[s] = (uint32_t)at;
        at += (uint64_t)p->dp * c->T[s];
        SIM_ASSERT(at < TRAIN_NONE, "too many training tasks (%llu)", (unsigned long long)at);
    }
    c->fbase[pp] = c->fp0 = (uint32_t)at;
    c->rp0 = R->stage_task0[pp];
    c->rd0 = R->dp_task0;
    SIM_ASSERT((c->rd0 - c->rp0) % R_DP == 0, "reduced training plan: %u P2P tasks",
               c->rd0 - c->rp0);
    c->pd = (c->rd0 - c->rp0) / R_DP;
    at += (uint64_t)p->dp * c->pd;
    c->fd0 = (uint32_t)at;
    at += R->n_tasks - c->rd0;
    SIM_ASSERT(at < TRAIN_NONE, "too many training tasks (%llu)", (unsigned long long)at);
    p->cx = c;
    p->n_tasks = (uint32_t)at;
    p->block_end = c->fp0;
    p->dp_task0 = c->fd0;
    /* counts: replica 0's tasks stand for dp, a DP collective for itself */
    uint64_t deps = 0;
    for (uint32_t rid = 0; rid < R->n_tasks; rid++) {
        if (!cx_first_replica(c, pp, rid))
            continue;
        const train_task *t = &R->tasks[rid];
        uint64_t mult = rid < c->rd0 ? p->dp : 1;
        deps += mult * cx_n_deps(p, rid);
        if (t->kind == TRAIN_COMPUTE)
            p->stats.compute += mult;
        else if (t->kind == TRAIN_P2P)
            p->stats.p2p += mult;
        else if (t->phase == TRAIN_PH_TP)
            p->stats.coll_tp += mult, p->stats.tp_collectives += mult * t->count;
        else
            p->stats.coll_dp += mult;
    }
    SIM_ASSERT(deps < TRAIN_NONE, "too many training dependencies (%llu)",
               (unsigned long long)deps);
    p->stats.deps = deps;
    p->n_deps = (uint32_t)deps;
    for (uint32_t r = 0; r < R->n_ranks; r++)
        if (R->ranks[r].dp == 0 && R->rank_task_off[r + 1] - R->rank_task_off[r] > c->rank_max)
            c->rank_max = R->rank_task_off[r + 1] - R->rank_task_off[r];
    return ERR_OK;
}

train_plan *train_plan_new(const train_opts *o, err *e)
{
    if (validate(o, e))
        return NULL;
    train_plan *p = xcalloc(1, sizeof *p, "training plan");
    arena_init(&p->mem, "training plan");
    p->opts = *o;
    p->opts.gpus = NULL;
    p->opts.bucket_bytes = train_bucket_bytes(o->bucket_bytes, o->dp);
    p->model = o->model;
    p->n_ranks = o->n_ranks;
    p->tp = o->tp, p->pp = o->pp, p->dp = o->dp;
    p->vp = o->vp ? o->vp : 1;
    p->ep = o->moe_experts && o->moe_ep ? o->moe_ep : 1;
    p->m = o->global_batch / (o->micro_batch * o->dp);
    if (place(p, o->gpus, e)) {
        train_plan_free(p);
        return NULL;
    }
    const train_model *md = &p->model;
    uint32_t pp = p->pp;
    p->layer_fwd_ps =
        train_flops_ps(train_layer_fwd_flops(md, o->micro_batch) / p->tp, o->peak_tflops, o->mfu);
    p->head_fwd_ps =
        train_flops_ps(2.0 * o->micro_batch * md->seq_len * md->hidden * md->vocab / p->tp,
                       o->peak_tflops, o->mfu);
    p->act_bytes = (uint64_t)o->micro_batch * md->seq_len * md->hidden * 2;
    /* MoE: each rank dispatches its b·s tokens (1/tp of them: the TP ranks split the sequence,
     * as Megatron-LM's all_to_all token dispatcher with sequence parallelism) top_k times */
    if (o->moe_experts)
        p->moe_a2a_bytes = p->act_bytes * o->moe_top_k / p->tp;
    /* layers per virtual stage (= per stage without interleaving), then per stage */
    uint32_t V = pp * p->vp;
    p->vstage_layers = ARENA_NEW_ARRAY(&p->mem, uint32_t, V);
    uint32_t base = md->layers / V, rem = md->layers % V;
    for (uint32_t v = 0; v < V; v++)
        p->vstage_layers[v] = base;
    for (uint32_t i = 0; i < rem; i++)
        p->vstage_layers[rem + 2 <= V ? 1 + i : i]++;
    p->stage_layers = ARENA_NEW_ARRAY(&p->mem, uint32_t, pp);
    for (uint32_t v = 0; v < V; v++)
        p->stage_layers[v % pp] += p->vstage_layers[v];

    builder b = {.p = p};
    b.tasks.elt = sizeof(train_task);
    b.edges.elt = sizeof(edge);
    b.shape = ARENA_NEW_ARRAY(&p->mem, stage_shape, V);
    p->stage_fwd_ps = ARENA_NEW_ARRAY(&p->mem, sim_time, pp);
    p->stage_bwd_ps = ARENA_NEW_ARRAY(&p->mem, sim_time, pp);
    p->stage_grad_bytes = ARENA_NEW_ARRAY(&p->mem, uint64_t, pp);
    p->stage_buckets = ARENA_NEW_ARRAY(&p->mem, uint32_t, pp);
    int grain = (p->tp > 1 && o->tp_per_layer) || o->moe_experts ? GRAIN_HALF : GRAIN_PASS;
    int grain_last = grain == GRAIN_PASS && p->dp > 1 ? GRAIN_LAYER : grain;
    for (uint32_t v = 0; v < V; v++) {
        stage_shape *sh = &b.shape[v];
        uint32_t s = v % pp;
        sh->fwd = make_chunks(p, v, 0, grain, &sh->n_fwd);
        sh->bwd = make_chunks(p, v, 1, grain, &sh->n_bwd);
        sh->bwd_last = make_chunks(p, v, 1, grain_last, &sh->n_bwd_last);
        for (uint32_t c = 0; c < sh->n_fwd; c++)
            p->stage_fwd_ps[s] += sh->fwd[c].dur_ps;
        for (uint32_t c = 0; c < sh->n_bwd; c++)
            p->stage_bwd_ps[s] += sh->bwd[c].dur_ps;
        for (uint32_t c = 0; c < sh->n_bwd_last; c++)
            p->stage_grad_bytes[s] += sh->bwd_last[c].grad_bytes;
    }
    for (uint32_t s = 0; s < pp; s++) {
        uint64_t B = p->opts.bucket_bytes;
        uint64_t nb = (p->stage_grad_bytes[s] + B - 1) / B;
        p->stage_buckets[s] = p->dp > 1 ? (uint32_t)nb : 0;
    }
    if (o->compact && !o->moe_experts && p->dp > 2) {
        if (compact_build(p, o, e)) {
            train_plan_free(p);
            return NULL;
        }
        return p;
    }
    size_t npass = (size_t)p->n_ranks * p->vp * p->m * 2;
    b.pass_first = xmalloc(sizeof(uint32_t) * npass, "training plan builder");
    b.pass_last = xmalloc(sizeof(uint32_t) * npass, "training plan builder");
    b.lb_off = xmalloc(sizeof(uint32_t) * ((size_t)p->n_ranks + 1), "training plan builder");
    size_t lbn = 0;
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        b.lb_off[r] = (uint32_t)lbn;
        for (uint32_t vc = 0; vc < p->vp; vc++)
            lbn += b.shape[vc * pp + p->ranks[r].pp].n_bwd_last;
    }
    b.lb_ids = xmalloc(sizeof(uint32_t) * (lbn ? lbn : 1), "training plan builder");
    p->stage_task0 = ARENA_NEW_ARRAY(&p->mem, uint32_t, (size_t)pp + 1);
    for (uint32_t s = 0; s < pp; s++) {
        p->stage_task0[s] = (uint32_t)b.tasks.n;
        for (uint32_t d = 0; d < p->dp; d += p->ep)
            emit_block(&b, s, d, p->ep);
    }
    p->stage_task0[pp] = (uint32_t)b.tasks.n;
    emit_p2p(&b);
    p->dp_task0 = (uint32_t)b.tasks.n;
    emit_dp(&b);
    finish(&b);
    xfree(b.pass_first);
    xfree(b.pass_last);
    xfree(b.lb_off);
    xfree(b.lb_ids);
    xfree(b.tasks.v);
    xfree(b.edges.v);
    return p;
}

void train_plan_free(train_plan *p)
{
    if (!p)
        return;
    if (p->cx)
        train_plan_free(p->cx->r);
    arena_free(&p->mem);
    xfree(p->tasks);
    xfree(p);
}

static bool in_group(const train_plan *p, uint32_t g, uint32_t r)
{
    const train_group *G = &p->groups[g];
    for (uint32_t i = 0; i < G->n; i++)
        if (p->members[G->off + i] == r)
            return true;
    return false;
}

void train_plan_check(const train_plan *p)
{
    uint32_t nt = p->n_tasks;
    uint32_t lst[TRAIN_LIST_BATCH];
    train_task buf, dbuf;
    for (uint32_t i = 0; i < nt; i++) {
        const train_task *t = train_plan_task(p, i, &buf);
        if (p->tasks)
            SIM_ASSERT(t->dep_off + t->n_deps <= p->n_deps && t->succ_off + t->n_succ <= p->n_deps,
                       "task %u: dependency range out of bounds", i);
        SIM_ASSERT(train_plan_n_deps(p, i) == t->n_deps, "task %u: dependency count", i);
        for (uint32_t k = 0, m; (m = train_plan_deps(p, i, k, lst)) > 0; k += m) {
            for (uint32_t q = 0; q < m; q++)
                SIM_ASSERT(lst[q] < nt && (q == 0 || lst[q] >= lst[q - 1]),
                           "task %u: dep %u out of range or order", i, lst[q]);
            if (m < TRAIN_LIST_BATCH)
                break;
        }
        switch (t->kind) {
        case TRAIN_COMPUTE:
            SIM_ASSERT(t->rank < p->n_ranks, "compute task %u on rank %u", i, t->rank);
            break;
        case TRAIN_P2P:
            SIM_ASSERT(t->rank < p->n_ranks && t->dst < p->n_ranks && t->rank != t->dst,
                       "p2p task %u: %u -> %u", i, t->rank, t->dst);
            break;
        case TRAIN_COLL: {
            SIM_ASSERT(t->group < p->n_groups, "coll task %u: group %u", i, t->group);
            uint8_t want = t->phase == TRAIN_PH_TP   ? TRAIN_GROUP_TP
                           : t->phase == TRAIN_PH_EP ? TRAIN_GROUP_EP
                                                     : TRAIN_GROUP_DP;
            SIM_ASSERT(p->groups[t->group].kind == want, "coll task %u: group kind %u", i,
                       p->groups[t->group].kind);
            break;
        }
        default:
            SIM_ASSERT(0, "task %u: kind %u", i, t->kind);
        }
    }
    /* Chain: a compute task waits on its rank's previous compute, directly or through the
     * rank's TP all_reduce; exactly one compute per rank has no such predecessor. */
    uint32_t *heads = xcalloc(p->n_ranks, sizeof(uint32_t), "training plan check");
    for (uint32_t i = 0; i < nt; i++) {
        const train_task *t = train_plan_task(p, i, &buf);
        if (t->kind != TRAIN_COMPUTE)
            continue;
        bool chained = false;
        for (uint32_t k = 0, m; !chained && (m = train_plan_deps(p, i, k, lst)) > 0; k += m) {
            for (uint32_t q = 0; q < m && !chained; q++) {
                const train_task *d = train_plan_task(p, lst[q], &dbuf);
                chained = (d->kind == TRAIN_COMPUTE && d->rank == t->rank) ||
                          (d->kind == TRAIN_COLL &&
                           (d->phase == TRAIN_PH_TP || d->phase == TRAIN_PH_EP) &&
                           in_group(p, d->group, t->rank));
            }
            if (m < TRAIN_LIST_BATCH)
                break;
        }
        heads[t->rank] += !chained;
    }
    for (uint32_t r = 0; r < p->n_ranks; r++)
        SIM_ASSERT(heads[r] == 1, "rank %u: %u compute chains (want 1)", r, heads[r]);
    xfree(heads);
    /* Acyclic (Kahn), and each successor list ascending and matching the dependency lists'
     * total. */
    uint32_t *indeg = xmalloc(sizeof(uint32_t) * (nt ? nt : 1), "training plan check");
    uint32_t *q = xmalloc(sizeof(uint32_t) * (nt ? nt : 1), "training plan check");
    uint32_t qh = 0, qt = 0;
    uint64_t edges = 0;
    for (uint32_t i = 0; i < nt; i++) {
        edges += indeg[i] = train_plan_n_deps(p, i);
        if (!indeg[i])
            q[qt++] = i;
    }
    SIM_ASSERT(edges == p->stats.deps, "dependencies: %llu counted, %llu in the stats",
               (unsigned long long)edges, (unsigned long long)p->stats.deps);
    while (qh < qt) {
        uint32_t i = q[qh++];
        for (uint32_t k = 0, m; (m = train_plan_succ(p, i, k, lst)) > 0; k += m) {
            for (uint32_t j = 0; j < m; j++) {
                SIM_ASSERT(lst[j] < nt && (j == 0 || lst[j] >= lst[j - 1]),
                           "task %u: successor %u out of range or order", i, lst[j]);
                SIM_ASSERT(indeg[lst[j]] > 0, "task %u: successor %u released twice", i, lst[j]);
                if (--indeg[lst[j]] == 0)
                    q[qt++] = lst[j];
            }
            if (m < TRAIN_LIST_BATCH)
                break;
        }
    }
    SIM_ASSERT(qt == nt, "training DAG has a cycle (%u of %u tasks ordered)", qt, nt);
    xfree(indeg);
    xfree(q);
    uint64_t listed = 0;
    uint32_t most = train_plan_rank_max(p);
    uint32_t *rt = xmalloc(sizeof(uint32_t) * (most ? most : 1), "training plan check");
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        uint32_t n = train_plan_rank_tasks(p, r, rt);
        SIM_ASSERT(n <= most, "rank %u: %u tasks, at most %u", r, n, most);
        for (uint32_t k = 0; k < n; k++) {
            const train_task *t = train_plan_task(p, rt[k], &buf);
            bool involved = t->kind == TRAIN_COLL
                                ? in_group(p, t->group, r)
                                : t->rank == r || (t->kind == TRAIN_P2P && t->dst == r);
            SIM_ASSERT(involved, "rank %u: task %u listed but not its", r, rt[k]);
            listed += t->kind == TRAIN_COMPUTE;
        }
    }
    xfree(rt);
    SIM_ASSERT(listed == p->stats.compute, "rank index lost tasks");
}

/* ---- breakdown ---------------------------------------------------------------------------- */

typedef struct bevent {
    sim_time t;
    int8_t cls;   /* 0 compute, 1 tp, 2 pp, 3 dp, 4 ep */
    int8_t delta; /* +1 start, −1 end */
} bevent;

static int cmp_bevent(const void *a, const void *b)
{
    const bevent *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

void train_breakdown(const train_plan *p, const sim_time *start, const sim_time *end,
                     train_rank_breakdown *per_rank, train_summary *out)
{
    sim_time t0 = SIM_TIME_MAX, t1 = 0;
    for (uint32_t i = 0; i < p->n_tasks; i++) {
        if (start[i] < t0)
            t0 = start[i];
        if (end[i] > t1)
            t1 = end[i];
    }
    if (p->n_tasks == 0)
        t0 = 0;
    size_t maxn = train_plan_rank_max(p);
    bevent *ev = xmalloc(sizeof(bevent) * 2 * (maxn ? maxn : 1), "training breakdown");
    uint32_t *rt = xmalloc(sizeof(uint32_t) * (maxn ? maxn : 1), "training breakdown");
    train_task buf;
    train_summary S;
    memset(&S, 0, sizeof S);
    S.iteration_ps = t1 - t0;
    uint64_t sum[11] = {0};
    sim_time best_compute = 0, best_done = 0;
    for (uint32_t r = 0; r < p->n_ranks; r++) {
        train_rank_breakdown B;
        memset(&B, 0, sizeof B);
        size_t n = 0;
        uint32_t nr = train_plan_rank_tasks(p, r, rt);
        for (uint32_t k = 0; k < nr; k++) {
            uint32_t i = rt[k];
            const train_task *t = train_plan_task(p, i, &buf);
            if (end[i] - t0 > B.done_ps)
                B.done_ps = end[i] - t0;
            int cls = t->kind == TRAIN_COMPUTE  ? 0
                      : t->kind == TRAIN_P2P    ? (t->dst == r ? 2 : -1)
                      : t->phase == TRAIN_PH_TP ? 1
                      : t->phase == TRAIN_PH_EP ? 4
                                                : 3;
            if (cls < 0 || end[i] <= start[i])
                continue;
            ev[n++] = (bevent){start[i], (int8_t)cls, 1};
            ev[n++] = (bevent){end[i], (int8_t)cls, -1};
        }
        qsort(ev, n, sizeof *ev, cmp_bevent);
        int cnt[5] = {0};
        sim_time prev = t0;
        for (size_t i = 0; i <= n; i++) {
            sim_time now = i < n ? ev[i].t : t1;
            if (now > prev) {
                sim_time d = now - prev;
                if (cnt[0])
                    B.compute_ps += d;
                else if (cnt[1])
                    B.tp_ps += d;
                else if (cnt[4])
                    B.ep_ps += d;
                else if (cnt[2])
                    B.pp_ps += d;
                else if (cnt[3])
                    B.dp_ps += d;
                else
                    B.bubble_ps += d;
                B.tp_comm_ps += cnt[1] ? d : 0;
                B.pp_comm_ps += cnt[2] ? d : 0;
                B.dp_comm_ps += cnt[3] ? d : 0;
                B.ep_comm_ps += cnt[4] ? d : 0;
                prev = now;
            }
            if (i < n)
                cnt[ev[i].cls] += ev[i].delta;
        }
        SIM_ASSERT(B.compute_ps + B.tp_ps + B.ep_ps + B.pp_ps + B.dp_ps + B.bubble_ps ==
                       S.iteration_ps,
                   "rank %u: breakdown does not add up", r);
        if (per_rank)
            per_rank[r] = B;
        sim_time v[11] = {B.compute_ps, B.tp_ps,      B.pp_ps,   B.dp_ps, B.bubble_ps, B.tp_comm_ps,
                          B.pp_comm_ps, B.dp_comm_ps, B.done_ps, B.ep_ps, B.ep_comm_ps};
        for (int k = 0; k < 11; k++)
            sum[k] += v[k];
        if (r == 0 || B.compute_ps > best_compute) {
            best_compute = B.compute_ps;
            S.slowest_rank = r;
            S.slowest = B;
        }
        if (r == 0 || B.done_ps > best_done) {
            best_done = B.done_ps;
            S.last_rank = r;
        }
    }
    xfree(ev);
    xfree(rt);
    uint64_t n = p->n_ranks ? p->n_ranks : 1;
    S.mean = (train_rank_breakdown){sum[0] / n, sum[1] / n, sum[2] / n, sum[3] / n,
                                    sum[4] / n, sum[5] / n, sum[6] / n, sum[7] / n,
                                    sum[8] / n, sum[9] / n, sum[10] / n};
    if (out)
        *out = S;
}

/* ---- analytic evaluation ------------------------------------------------------------------ */

double train_moe_share(uint32_t j, uint32_t n, double skew)
{
    if (skew <= 0)
        return 1.0 / n;
    double W = 0;
    for (uint32_t k = 0; k < n; k++)
        W += pow((double)k + 1, -skew);
    return pow((double)j + 1, -skew) / W;
}

sim_time train_ab_cost_fn(void *ctx, const train_plan *p, const train_task *t)
{
    const train_ab_cost *c = ctx;
    sim_time alpha;
    uint64_t bw;
    uint64_t n = 2;
    if (t->kind == TRAIN_P2P) {
        alpha = c->pp_alpha_ps, bw = c->pp_bw_bps;
        return alpha + (bw ? sim_ser_time(t->bytes, bw) : 0);
    }
    if (t->phase == TRAIN_PH_TP)
        alpha = c->tp_alpha_ps, bw = c->tp_bw_bps;
    else
        alpha = c->dp_alpha_ps, bw = c->dp_bw_bps;
    n = p->groups[t->group].n;
    if (n < 2 || t->count == 0)
        return 0;
    if (t->op == OP_ALL_TO_ALL) {
        /* every rank's shares leave at once: the busiest sender (all but its own share) or
         * receiver (its share of every other rank's buffer) sets the time */
        double skew = p->opts.moe_skew, most = 0;
        for (uint32_t j = 0; j < n; j++) {
            double sh = train_moe_share(j, (uint32_t)n, skew);
            double out = 1 - sh, in = (double)(n - 1) * sh;
            most = fmax(most, fmax(out, in));
        }
        uint64_t bytes = (uint64_t)ceil(most * (double)t->bytes);
        return alpha + (bw ? sim_ser_time(bytes, bw) : 0);
    }
    uint64_t per = t->bytes / t->count;
    uint64_t steps = t->op == OP_ALL_REDUCE ? 2 * (n - 1) : n - 1;
    uint64_t piece = (per + n - 1) / n;
    sim_time one = steps * (alpha + (bw ? sim_ser_time(piece, bw) : 0));
    return one * t->count;
}

/* The cost of a reduced-plan task, as the full plan's replica-0 task it stands for. */
typedef struct reduced_cost {
    const train_plan *p;
    train_cost_fn cost;
    void *ctx;
} reduced_cost;

static sim_time reduced_cost_fn(void *ctx, const train_plan *r, const train_task *t)
{
    const reduced_cost *c = ctx;
    train_task full = *t;
    if (t->kind == TRAIN_COLL && t->phase != TRAIN_PH_TP)
        full.group = c->p->n_tp_groups + (t->group - r->n_tp_groups);
    else if (t->kind == TRAIN_COLL)
        full.group = c->p->dp * t->stage;
    else if (t->kind == TRAIN_P2P) {
        full.rank = train_rank_of(c->p, r->ranks[t->rank].tp, r->ranks[t->rank].pp, 0);
        full.dst = train_rank_of(c->p, r->ranks[t->dst].tp, r->ranks[t->dst].pp, 0);
    }
    return c->cost ? c->cost(c->ctx, c->p, &full) : 0;
}

sim_time train_eval_ideal(const train_plan *p, train_cost_fn cost, void *ctx,
                          const double *rank_factor, sim_time *start, sim_time *end,
                          train_rank_breakdown *per_rank, train_summary *out)
{
    if (p->cx && !rank_factor && !start && !end && !per_rank && !out) {
        /* Every replica runs alike (the same compute, the same costs: groups of one kind have
         * one size), so each task of replica d starts and ends when replica 0's does, and a DP
         * bucket waits for replica 0's chunk: the reduced plan's run, with its tasks costed as
         * the full plan's, ends at the same time. */
        reduced_cost rc = {p, cost, ctx};
        return train_eval_ideal(p->cx->r, reduced_cost_fn, &rc, NULL, NULL, NULL, NULL, NULL);
    }
    uint32_t nt = p->n_tasks;
    size_t sz = nt ? nt : 1;
    sim_time *st = start ? start : xmalloc(sizeof(sim_time) * sz, "training evaluation");
    sim_time *en = end ? end : xmalloc(sizeof(sim_time) * sz, "training evaluation");
    uint32_t *indeg = xmalloc(sizeof(uint32_t) * sz, "training evaluation");
    uint32_t *q = xmalloc(sizeof(uint32_t) * sz, "training evaluation");
    uint32_t qh = 0, qt = 0;
    for (uint32_t i = 0; i < nt; i++) {
        st[i] = 0;
        if (!(indeg[i] = train_plan_n_deps(p, i)))
            q[qt++] = i;
    }
    sim_time t1 = 0;
    train_task buf;
    uint32_t lst[TRAIN_LIST_BATCH];
    while (qh < qt) {
        uint32_t i = q[qh++];
        const train_task *t = train_plan_task(p, i, &buf);
        sim_time d;
        if (t->kind == TRAIN_COMPUTE)
            d = train_compute_ps(t->dur_ps, rank_factor ? rank_factor[t->rank] : 1.0);
        else
            d = cost ? cost(ctx, p, t) : 0;
        en[i] = st[i] + d;
        if (en[i] > t1)
            t1 = en[i];
        for (uint32_t k = 0, m; (m = train_plan_succ(p, i, k, lst)) > 0; k += m) {
            for (uint32_t a = 0; a < m; a++) {
                uint32_t j = lst[a];
                if (en[i] > st[j])
                    st[j] = en[i];
                if (--indeg[j] == 0)
                    q[qt++] = j;
            }
            if (m < TRAIN_LIST_BATCH)
                break;
        }
    }
    SIM_ASSERT(qt == nt, "training DAG has a cycle (%u of %u tasks evaluated)", qt, nt);
    if (per_rank || out)
        train_breakdown(p, st, en, per_rank, out);
    xfree(indeg);
    xfree(q);
    if (!start)
        xfree(st);
    if (!end)
        xfree(en);
    return t1;
}
