/*
 * training.h — the training-job model (`kind: training`) as a pure planning module: a model's
 * compute cost, the placement of tensor/pipeline/data-parallel ranks on GPUs, and one training
 * iteration as a DAG of tasks. No network here: an executor (the packet simulator, or the
 * analytic evaluator below) gives each communication task a duration.
 *
 * Sources: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
 * Megatron-LM", SC'21 (FLOPs §5.1 / Appendix, 1F1B = PipeDream-Flush §2.2.1, placement §3.3);
 * Megatron-LM's schedules (forward_backward_pipelining_without_interleaving, and
 * ..._with_interleaving for virtual pipeline stages, SC'21 §2.2.2) and
 * its rank order "tp-dp-pp" (parallel_state.initialize_model_parallel); model shapes from the
 * Llama 3 herd paper (Dubey et al. 2024, Table 3) and GPT-3 (Brown et al. 2020, Table 2.1).
 *
 * Model (per layer per micro-batch of b sequences of s tokens, hidden h):
 *   forward FLOPs  = 2·b·s·P_layer + 4·b·s²·h         (P_layer = matmul weights of one layer)
 *   backward FLOPs = 2 × forward (3 × with full activation recomputation)
 * With a GPT-style layer (FFN 4h, full multi-head attention) P_layer = 12h² and this is exactly
 * Narayanan's 24·b·s·h² + 4·b·s²·h. For presets P_layer comes from the published architecture
 * (grouped-query attention, SwiGLU FFN); for explicit models from `params` when given
 * ((params − embeddings) / layers), else 12h². Each GPU of a TP group does 1/tp of the FLOPs.
 * Time = FLOPs / (peak_tflops·1e12 × mfu), rounded to the nearest ps, per layer; a stage's time
 * is layers × that (so stage times are exact integer multiples). The LM head (2·b·s·h·V forward)
 * runs on the last stage; the embedding lookup costs no compute. Activations crossing a TP
 * all_reduce or a PP boundary are b·s·h × 2 bytes (bf16). Gradients are bf16: a rank all-reduces
 * its shard, (stage params / tp) × 2 bytes; the stage's params are its layers', plus the input
 * embedding (V·h) on the first stage and the LM head (V·h; for tied embeddings Megatron keeps a
 * copy there) on the last. Not modelled: the vocab-parallel embedding's and cross-entropy's small
 * TP all-reduces, the tied-embedding gradient sync between first and last stage, the optimizer
 * step's compute, sequence parallelism.
 *
 * Invariants of a plan (train_plan_check): tasks form a DAG; each rank's compute tasks are a
 * chain (a GPU runs one compute at a time); every collective's group is a TP or DP group; every
 * dependency index is in range; the rank→task index lists exactly the tasks involving a rank.
 */
#ifndef WR_WORKLOAD_TRAINING_H
#define WR_WORKLOAD_TRAINING_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/arena.h"
#include "../core/err.h"
#include "../core/time.h"

#define TRAIN_NONE UINT32_MAX

typedef struct train_compact train_compact; /* training.c */

/* ---- model -------------------------------------------------------------------------------- */

typedef struct train_model {
    const char *name;                        /* preset name, or "custom" */
    uint32_t layers, hidden, seq_len, vocab; /* vocab 0 = no embedding / LM head */
    uint32_t heads, kv_heads;                /* 0 = unknown (full MHA assumed) */
    uint32_t ffn;                            /* FFN inner size; 0 = 4·hidden */
    bool gated_ffn;                          /* SwiGLU: 3 FFN matrices instead of 2 */
    bool tied_embeddings;                    /* input embedding = LM head (GPT-3) */
    double params;                           /* explicit models: total parameters; 0 = unknown */
} train_model;

/* Published preset by name ("llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b"): returns
 * true and fills *m, false when unknown. */
bool train_model_preset(const char *name, train_model *m);
/* The model a parsed job describes: its preset's architecture with the job's layers, hidden,
 * seq_len and vocab (which may refine it), or an explicit GPT-style model. */
void train_model_from_cfg(const cfg_model *c, train_model *m);
/* Matmul weights of one transformer layer (attention + FFN + norms). */
double train_layer_params(const train_model *m);
/* Total parameters: layers + embedding (+ untied LM head) + final norm. */
double train_model_params(const train_model *m);
/* Forward FLOPs of one layer for one micro-batch of `micro_batch` sequences (whole layer, not
 * divided by tp). */
double train_layer_fwd_flops(const train_model *m, uint32_t micro_batch);
/* FLOPs / (peak_tflops·1e12 × mfu) in ps, rounded to nearest. */
sim_time train_flops_ps(double flops, double peak_tflops, double mfu);

/* ---- plan --------------------------------------------------------------------------------- */

enum train_order { TRAIN_ORDER_TP_DP_PP, TRAIN_ORDER_TP_PP_DP };
enum train_placement { TRAIN_PLACE_CONTIGUOUS, TRAIN_PLACE_SCATTERED };

typedef struct train_opts {
    train_model model;
    uint32_t tp, pp, dp;
    uint32_t vp;                        /* virtual stages (model chunks) per pipeline stage:
                                         * 1 = 1F1B, > 1 = interleaved 1F1B; 0 means 1 */
    uint32_t micro_batch, global_batch; /* m = global_batch / (micro_batch × dp) */
    double peak_tflops, mfu;            /* per GPU */
    /* Job size and where its ranks sit: rank r is GPU gpus[r] (NULL: GPU r); server = gpu /
     * gpus_per_server. */
    uint32_t n_ranks;
    const uint32_t *gpus;
    uint32_t gpus_per_server;
    enum train_order order;         /* default tp-dp-pp (Megatron) */
    enum train_placement placement; /* default contiguous */
    bool tp_per_layer;              /* true: 4 TP all_reduces per layer; false: aggregated */
    bool dp_sharded;                /* reduce_scatter + all_gather instead of all_reduce */
    bool recompute;                 /* full activation recomputation: backward = 3× fwd */
    bool compact;                   /* describe the DP replicas once (see "Compact plans") */
    uint64_t bucket_bytes;          /* DP gradient bucket; 0 = auto (train_bucket_bytes) */
    /* Mixture of experts (0 experts = dense): every layer's FFN is `experts` experts, each
     * token goes to top_k of them; experts are spread over EP groups of `ep` ranks carved out
     * of each DP group (consecutive DP indices, as Megatron-LM's expert_model_parallel_size);
     * skew ≥ 0 is the routing imbalance: EP-local rank j gets a share ∝ (j + 1)^−skew of every
     * rank's tokens (0 = uniform, 1 = Zipf). */
    uint32_t moe_experts, moe_top_k, moe_ep;
    double moe_skew;
    /* Where errors point (the job in the scenario); may be NULL/0. */
    const char *err_file;
    int err_line, err_col;
} train_opts;

/* Defaults: 1×1×1, micro_batch 1, global_batch = dp, 989 TFLOPS × 0.45, gpus_per_server 8,
 * tp-dp-pp contiguous, tp_per_layer true, all_reduce, auto buckets. */
void train_opts_default(train_opts *o);
/* Megatron-Core's default DP bucket (core/distributed/distributed_data_parallel_config.py,
 * DistributedDataParallelConfig.bucket_size): max(40,000,000, 1,000,000 × dp) parameters, "larger
 * DP sizes need larger buckets to ensure collectives do not become latency-bound"; gradients are
 * reduced in the parameter dtype (grad_reduce_in_fp32 = False: bf16, 2 bytes), so 80 MB up to
 * dp 40 and 2 MB × dp above. (25 MB, the default before, is PyTorch DDP's bucket_cap_mb.) */
#define TRAIN_BUCKET_MIN_PARAMS 40000000ull
#define TRAIN_BUCKET_PARAMS_PER_DP 1000000ull
#define TRAIN_GRAD_BYTES 2ull
/* The DP gradient bucket in bytes of a job with dp replicas: bucket_bytes when given, else (0,
 * `bucket: auto`) Megatron-Core's default above. The one place auto is resolved: the plan
 * builder and the memory estimate (plan/estimate.c) both ask here. */
uint64_t train_bucket_bytes(uint64_t bucket_bytes, uint32_t dp);
/* Options of a parsed training job running on n_ranks GPUs (gpus may be NULL). */
void train_opts_from_job(train_opts *o, const cfg_job *j, const char *file, uint32_t n_ranks,
                         const uint32_t *gpus, uint32_t gpus_per_server);

enum train_task_kind { TRAIN_COMPUTE, TRAIN_COLL, TRAIN_P2P };
enum train_phase { TRAIN_PH_FWD, TRAIN_PH_BWD, TRAIN_PH_TP, TRAIN_PH_PP, TRAIN_PH_DP, TRAIN_PH_EP };
enum train_group_kind { TRAIN_GROUP_TP, TRAIN_GROUP_DP, TRAIN_GROUP_PP, TRAIN_GROUP_EP };

/*
 * One task of the iteration DAG. A task starts when all its deps have ended.
 *  COMPUTE: `rank` runs for dur_ps (× that GPU's slow factor).
 *  COLL:    one collective over group `group`, represented once for all its ranks; its deps are
 *           each participating rank's prior task (the compute that produced the data, and for DP
 *           the previous bucket's collective: one NCCL communicator runs its collectives in
 *           issue order). `count` > 1 marks an aggregated task standing for `count` collectives
 *           of bytes/count each (tp_per_layer false); executors should charge the per-collective
 *           latency count times. bytes follow nccl-tests (all_reduce: per-rank buffer;
 *           reduce_scatter / all_gather: the total array).
 *           EP tasks (MoE) are all_to_all over an EP group: the token dispatch before a layer's
 *           experts and the combine after them (forward; their gradients backward); bytes is
 *           each rank's send buffer (nccl-tests all_to_all size), split over the EP ranks by
 *           the routing shares (train_moe_share).
 *  P2P:     `rank` sends `bytes` to `dst` (pipeline activations forward, their gradients backward).
 * Communication runs on its own streams: it overlaps compute unless a compute depends on it.
 */
typedef struct train_task {
    uint8_t kind;        /* enum train_task_kind */
    uint8_t phase;       /* enum train_phase: FWD/BWD compute, TP/PP/DP communication */
    uint8_t op;          /* COLL: enum coll_op */
    uint8_t last_mb_bwd; /* compute in the last micro-batch's backward (DP buckets hang on it) */
    uint8_t lane;        /* COMPUTE: the rank's resource it holds (chakra_plan.h TRAIN_LANE_*;
                          * 0 = the GPU, one compute at a time; training plans use 0 only) */
    uint32_t rank;       /* COMPUTE: GPU rank; P2P: source; COLL: TRAIN_NONE */
    uint32_t dst;        /* P2P: destination rank */
    uint32_t group;      /* COLL: group index */
    uint32_t mb;         /* micro-batch, TRAIN_NONE for DP */
    uint32_t stage;      /* pipeline stage */
    uint32_t count;      /* COLL: collectives represented (1 unless aggregated) */
    uint32_t dep_off, n_deps;  /* into plan->deps */
    uint32_t succ_off, n_succ; /* into plan->succ */
    sim_time dur_ps;           /* COMPUTE */
    uint64_t bytes;            /* COLL / P2P */
} train_task;

typedef struct train_group {
    uint8_t kind; /* enum train_group_kind */
    uint32_t n;   /* ranks */
    uint32_t off; /* into plan->members, ordered by the group's own index (tp, dp, pp) */
} train_group;

typedef struct train_rank {
    uint32_t gpu, server;
    uint32_t tp, pp, dp; /* coordinates */
    uint32_t tp_group, dp_group, pp_group;
    uint32_t ep_group;         /* MoE: its EP group, TRAIN_NONE for dense models */
    uint32_t pp_prev, pp_next; /* ranks of the neighbouring stages, TRAIN_NONE at the ends */
} train_rank;

typedef struct train_stats {
    uint64_t compute, coll_tp, coll_dp, p2p, deps;
    uint64_t tp_collectives; /* collectives the TP tasks stand for (Σ count) */
    uint64_t coll_ep;        /* MoE dispatch / combine all_to_alls */
} train_stats;

typedef struct train_plan {
    arena mem;       /* owns everything below except tasks (heap, plan-owned) */
    train_opts opts; /* as given (gpus pointer not kept), bucket_bytes resolved */
    train_model model;
    uint32_t n_ranks, tp, pp, dp, m; /* m = micro-batches per iteration */
    uint32_t vp;                     /* model chunks per stage (interleaving), ≥ 1 */
    train_rank *ranks;
    uint32_t n_groups, n_tp_groups, n_dp_groups; /* TP groups first, then DP, then PP, then EP */
    uint32_t n_ep_groups, ep;                    /* MoE: EP groups (after the PP groups), size */
    uint64_t moe_a2a_bytes;                      /* MoE: one dispatch (or combine) all_to_all's
                                                  * send buffer per rank: b·s·top_k·h·2 / tp */
    train_group *groups;
    uint32_t *members;
    uint32_t *stage_layers;                /* [pp] layers per stage (all its model chunks) */
    uint32_t *vstage_layers;               /* [pp × vp] per virtual stage c·pp + s */
    sim_time layer_fwd_ps;                 /* per GPU (FLOPs / tp) */
    sim_time head_fwd_ps;                  /* LM head on the last stage, per GPU */
    sim_time *stage_fwd_ps, *stage_bwd_ps; /* [pp] one micro-batch, per GPU, slow factor 1 */
    uint64_t act_bytes;                    /* b·s·h·2 */
    uint64_t *stage_grad_bytes;            /* [pp] per rank (its 1/tp shard) */
    uint32_t *stage_buckets;               /* [pp] DP buckets per rank of that stage, of
                                            * opts.bucket_bytes (resolved: never 0) */
    uint32_t n_tasks;
    train_task *tasks; /* stored plans; NULL when compact (use train_plan_task) */
    uint32_t n_deps;
    uint32_t *deps, *succ;                /* stored plans only */
    uint32_t *rank_task_off, *rank_tasks; /* CSR: tasks involving each rank (stored only) */
    train_stats stats;
    /* Where the builder put things (stored plans; a compact plan's reduced plan): stage s's
     * blocks (its DP replicas' compute and TP tasks, replica after replica) start at
     * stage_task0[s], the P2P tasks at stage_task0[pp], the DP collectives at dp_task0. */
    uint32_t *stage_task0;
    uint32_t dp_task0;
    /* Compact plans: the description shared by the DP replicas (training.c), NULL when
     * stored; block_end is the first task outside the replicas' blocks (0 when stored). */
    train_compact *cx;
    uint32_t block_end;
    /* Chakra plans (chakra_plan.h) only, NULL otherwise: each task's node name (its first
     * node's, for a matched collective or message) and the trace's node count. */
    const char **task_name;
    uint64_t n_nodes;
} train_plan;

/*
 * Compact plans (opts.compact, dense models with dp > 2). The dp replicas of a stage run the
 * same block of tasks (the same passes, chunks and TP all_reduces on their own ranks), so a
 * compact plan keeps one *reduced* plan — the same job with two replicas, built by the very
 * builder that lays out stored plans — and computes task i of the full plan from it: its block,
 * its replica d and its place in the block (or in the P2P tasks, laid out replica after replica,
 * or among the DP collectives), then the reduced plan's task with its ranks and group moved to
 * replica d. A DP bucket's dependencies on the replicas' last-backward chunks are the reduced
 * task's first one repeated over the dp replicas. The numbering, every field, the dependency
 * and successor lists (and their order) are exactly the stored plan's (tests/test_training.c
 * compares them), so an executor runs a compact plan identically; what it costs is the reduced
 * plan (2/dp of the stored one) and a few arrays per stage.
 */

/* Task i: a pointer into the stored array, or *buf filled from the compact description (its
 * dep_off and succ_off are then TRAIN_NONE; n_deps and n_succ are right). */
const train_task *train_compact_task(const train_plan *p, uint32_t i, train_task *buf);
static inline const train_task *train_plan_task(const train_plan *p, uint32_t i, train_task *buf)
{
    return p->tasks ? &p->tasks[i] : train_compact_task(p, i, buf);
}
/* Task i's dependency count. */
uint32_t train_plan_n_deps(const train_plan *p, uint32_t i);
/* The most dependencies of one task. O(tasks) stored, O(reduced plan) compact. */
uint32_t train_plan_max_deps(const train_plan *p);
#define TRAIN_LIST_BATCH 8u
/* Task i's successors (ascending) from the `from`-th on: at most TRAIN_LIST_BATCH written to
 * out; returns how many (fewer than TRAIN_LIST_BATCH: the list has ended). */
uint32_t train_plan_succ(const train_plan *p, uint32_t i, uint32_t from, uint32_t *out);
/* Task i's dependencies (ascending), the same way. */
uint32_t train_plan_deps(const train_plan *p, uint32_t i, uint32_t from, uint32_t *out);
/* The tasks involving rank r (compute on it, collectives of its groups, P2P from or to it), at
 * most train_plan_rank_max(p) of them, into out; returns their count. */
uint32_t train_plan_rank_tasks(const train_plan *p, uint32_t r, uint32_t *out);
uint32_t train_plan_rank_max(const train_plan *p);
/* The most compute time (slow factor 1) of one rank in an iteration. */
sim_time train_plan_max_compute(const train_plan *p);
/* Bytes the plan holds (its arenas and arrays; a compact plan's reduced plan included). */
uint64_t train_plan_bytes(const train_plan *p);

/* Build the plan. Returns a new plan (free with train_plan_free) or NULL with *e set
 * (ERR_INVALID) when the numbers do not fit: tp·pp·dp ≠ ranks, a TP group straddling servers,
 * fewer layers than stages, global_batch not a multiple of micro_batch × dp, … */
train_plan *train_plan_new(const train_opts *o, err *e);
void train_plan_free(train_plan *p);
/* Verify the invariants above (SIM_ASSERT on failure). O(tasks + deps). */
void train_plan_check(const train_plan *p);
/* Rank index of coordinates (tp, pp, dp). */
uint32_t train_rank_of(const train_plan *p, uint32_t tp, uint32_t pp, uint32_t dp);

/* Duration of a compute task on a GPU slowed by `factor` (gpu-slow fault; 1 = nominal). */
sim_time train_compute_ps(sim_time dur_ps, double factor);

/* ---- breakdown and analytic evaluation ------------------------------------------------------ */

/*
 * Per-rank breakdown of one iteration [t0, t1), t0 = earliest task start, t1 = latest task end
 * (the iteration time is t1 − t0, the same for every rank). Every instant of a rank's timeline
 * is put in exactly one class, in this priority:
 *   compute    one of the rank's compute tasks runs;
 *   tp         the rank waits while a TP collective it belongs to is in flight;
 *   ep         … while a MoE dispatch / combine all_to_all of its EP group is in flight;
 *   pp         … while a P2P transfer *to* it is in flight (its sends are asynchronous);
 *   dp         … while a DP collective it belongs to is in flight;
 *   bubble     none of these: pipeline fill/drain, and waiting for slower peers' compute.
 * So compute + tp + ep + pp + dp + bubble = iteration time, and exposed communication is the time a
 * GPU sits idle with only that communication to blame. *_comm_ps is the union of the in-flight
 * intervals of that class (exposed or hidden), so exposed ≤ comm.
 */
typedef struct train_rank_breakdown {
    sim_time compute_ps, tp_ps, pp_ps, dp_ps, bubble_ps;
    sim_time tp_comm_ps, pp_comm_ps, dp_comm_ps;
    sim_time done_ps;           /* end of the rank's last task, relative to t0 */
    sim_time ep_ps, ep_comm_ps; /* MoE all_to_all: exposed (after tp, before pp), in flight */
} train_rank_breakdown;

typedef struct train_summary {
    sim_time iteration_ps;
    uint32_t slowest_rank;        /* most compute time (a straggler); ties: lowest index */
    uint32_t last_rank;           /* whose last task ends last; ties: lowest index */
    train_rank_breakdown slowest; /* slowest_rank's breakdown */
    train_rank_breakdown mean;    /* every field averaged over ranks (rounded down) */
} train_summary;

/* Breakdown from per-task start/end times (absolute ps, indexed like plan->tasks). per_rank
 * (n_ranks entries) may be NULL. Borrows everything; allocates temporaries only. */
void train_breakdown(const train_plan *p, const sim_time *start, const sim_time *end,
                     train_rank_breakdown *per_rank, train_summary *out);

/* MoE routing: the share of a rank's dispatched tokens that EP-local rank j receives, among
 * n ranks with skew s: (j + 1)^−s / Σ_k (k + 1)^−s. */
double train_moe_share(uint32_t j, uint32_t n, double skew);

/* Duration of a communication task (COLL or P2P). */
typedef sim_time (*train_cost_fn)(void *ctx, const train_plan *p, const train_task *t);

/* α–β costs for tests: ring all_reduce 2(n−1)(α + S/n/B), reduce_scatter / all_gather
 * (n−1)(α + S/n/B), P2P α + S/B; per class (TP / PP / DP); aggregated tasks pay count × the
 * cost of bytes/count; a MoE all_to_all (DP class: an EP group is a slice of a DP group) α plus
 * its busiest rank's bytes (sent or received, by the routing shares) / B. bw_bps 0 = infinite. */
typedef struct train_ab_cost {
    sim_time tp_alpha_ps, pp_alpha_ps, dp_alpha_ps;
    uint64_t tp_bw_bps, pp_bw_bps, dp_bw_bps;
} train_ab_cost;
sim_time train_ab_cost_fn(void *ctx, const train_plan *p, const train_task *t);

/* Evaluate the DAG with unlimited concurrency: each task starts when its deps end; compute
 * lasts dur × rank_factor[rank] (NULL: 1), communication cost(ctx, …). Fills start/end
 * (n_tasks each; may be NULL) and *out (may be NULL), per_rank as train_breakdown. Returns the
 * iteration time. */
sim_time train_eval_ideal(const train_plan *p, train_cost_fn cost, void *ctx,
                          const double *rank_factor, sim_time *start, sim_time *end,
                          train_rank_breakdown *per_rank, train_summary *out);

#endif
