/*
 * test_training.c — the training-job planner: FLOPs and times by hand, preset sizes, placement
 * and its errors, the 1F1B bubble emerging from the DAG, DP bucket overlap, a slow GPU, the
 * aggregated-TP equivalence, and the task counts of llama3-70b on 1024 GPUs.
 */
#include <math.h>
#include <stdlib.h>

#include "core/arena.h"
#include "workload/collective.h"

#include "testlib.h"
#include "workload/training.h"

/* A GPT-style model with uniform stages: no embedding / LM head (vocab 0). */
static train_opts small_opts(uint32_t layers, uint32_t tp, uint32_t pp, uint32_t dp, uint32_t m)
{
    train_opts o;
    train_opts_default(&o);
    memset(&o.model, 0, sizeof o.model);
    o.model.name = "tiny";
    o.model.layers = layers;
    o.model.hidden = 1024;
    o.model.seq_len = 512;
    o.tp = tp, o.pp = pp, o.dp = dp;
    o.micro_batch = 2;
    o.global_batch = 2 * dp * m;
    o.peak_tflops = 100;
    o.mfu = 0.5;
    o.n_ranks = tp * pp * dp;
    return o;
}

static train_plan *build(const train_opts *o)
{
    err e;
    err_clear(&e);
    train_plan *p = train_plan_new(o, &e);
    CHECK(p != NULL);
    if (!p)
        fprintf(stderr, "  error: %s\n", e.msg);
    else
        train_plan_check(p);
    return p;
}

static void test_flops_by_hand(void)
{
    train_opts o = small_opts(4, 2, 2, 1, 3);
    /* 24·b·s·h² + 4·b·s²·h with b 2, s 512, h 1024. */
    double f = 24.0 * 2 * 512 * 1024.0 * 1024 + 4.0 * 2 * 512 * 512 * 1024;
    CHECK_NEAR(train_layer_fwd_flops(&o.model, 2), 27917287424.0, 0.5);
    CHECK_NEAR(train_layer_fwd_flops(&o.model, 2), f, 0.5);
    /* Per GPU: half the FLOPs (tp 2) at 100 TFLOPS × 0.5 = 50 FLOP/ps: 279172874.24 ps. */
    train_plan *p = build(&o);
    if (!p)
        return;
    CHECK_EQ_U64(p->layer_fwd_ps, 279172874);
    CHECK_EQ_U64(p->m, 3);
    CHECK_EQ_U64(p->stage_layers[0], 2);
    CHECK_EQ_U64(p->stage_fwd_ps[0], 2 * 279172874ull);
    CHECK_EQ_U64(p->stage_bwd_ps[1], 4 * 279172874ull);
    CHECK_EQ_U64(p->act_bytes, 2ull * 512 * 1024 * 2);
    /* Gradient shard per rank: 2 layers × (12h² + 2h) / tp × 2 bytes. */
    CHECK_EQ_U64(p->stage_grad_bytes[0], 2ull * (12ull * 1024 * 1024 + 2048) / 2 * 2);
    CHECK_EQ_U64(train_flops_ps(1e12, 1000, 1), SIM_MS); /* 1e12 FLOP at 1 PFLOPS */
    CHECK_EQ_U64(train_compute_ps(1000, 1.3), 1300);
    /* Sum of compute durations = m × (fwd + bwd) per rank. */
    uint64_t busy = 0;
    for (uint32_t i = 0; i < p->n_tasks; i++)
        if (p->tasks[i].kind == TRAIN_COMPUTE && p->tasks[i].rank == 0)
            busy += p->tasks[i].dur_ps;
    CHECK_EQ_U64(busy, 3ull * (2 + 4) * 279172874ull);
    train_plan_free(p);
    /* Recompute: backward = 3 × forward. */
    o.recompute = true;
    p = build(&o);
    if (p)
        CHECK_EQ_U64(p->stage_bwd_ps[0], 6 * 279172874ull);
    train_plan_free(p);
}

static void test_presets(void)
{
    static const struct {
        const char *name;
        double params;
    } want[] = {{"llama3-8b", 8.03e9},
                {"llama3-70b", 70.6e9},
                {"llama3-405b", 405.9e9},
                {"gpt3-175b", 175e9}};
    for (size_t i = 0; i < 4; i++) {
        train_model m;
        CHECK(train_model_preset(want[i].name, &m));
        double got = train_model_params(&m);
        CHECK_NEAR(got / want[i].params, 1.0, 0.01);
    }
    train_model m;
    CHECK(!train_model_preset("llama2-7b", &m));
    CHECK(train_model_preset("llama3-70b", &m));
    /* From layers / hidden / ffn / vocab: 80 × (2h² + 2h·1024 + 3·h·28672) + 2·V·h ≈ 70e9. */
    CHECK_NEAR(train_model_params(&m) / 70e9, 1.0, 0.03);
    CHECK_EQ_U64(m.layers, 80);
    CHECK_EQ_U64(m.ffn, 28672);
    /* Explicit model from the config: params decide the per-layer weights. */
    cfg_model c = {NULL, 70e9, 80, 8192, 8192, 128256};
    train_model x;
    train_model_from_cfg(&c, &x);
    CHECK_STR(x.name, "custom");
    CHECK_NEAR(train_model_params(&x) / 70e9, 1.0, 1e-6);
    cfg_model cp = {"llama3-70b", 70.6e9, 80, 8192, 4096, 128256};
    train_model_from_cfg(&cp, &x);
    CHECK_EQ_U64(x.seq_len, 4096);
    CHECK_EQ_U64(x.ffn, 28672);
}

/* Zero-cost communication, uniform stages: T = (m + p − 1)(t_f + t_b), bubble fraction
 * (p − 1)/(m + p − 1) on every rank — from the DAG, for several p and m. */
static void test_bubble_emerges(void)
{
    static const uint32_t ps[] = {1, 2, 3, 4, 8};
    static const uint32_t ms[] = {1, 2, 3, 4, 7, 8, 16, 32};
    for (size_t a = 0; a < sizeof ps / sizeof ps[0]; a++) {
        for (size_t c = 0; c < sizeof ms / sizeof ms[0]; c++) {
            for (uint32_t tp = 1; tp <= 2; tp++) {
                uint32_t p = ps[a], m = ms[c];
                train_opts o = small_opts(2 * p, tp, p, 1, m);
                train_plan *pl = build(&o);
                if (!pl)
                    continue;
                sim_time tf = pl->stage_fwd_ps[0], tb = pl->stage_bwd_ps[0];
                train_rank_breakdown *br = calloc(pl->n_ranks, sizeof *br);
                train_summary S;
                sim_time T = train_eval_ideal(pl, NULL, NULL, NULL, NULL, NULL, br, &S);
                CHECK_EQ_U64(T, (uint64_t)(m + p - 1) * (tf + tb));
                CHECK_EQ_U64(S.iteration_ps, T);
                for (uint32_t r = 0; r < pl->n_ranks; r++) {
                    CHECK_EQ_U64(br[r].compute_ps, (uint64_t)m * (tf + tb));
                    CHECK_EQ_U64(br[r].bubble_ps, (uint64_t)(p - 1) * (tf + tb));
                    CHECK_EQ_U64(br[r].tp_ps + br[r].pp_ps + br[r].dp_ps, 0);
                }
                CHECK_NEAR((double)S.mean.bubble_ps / T, (double)(p - 1) / (m + p - 1), 1e-9);
                free(br);
                train_plan_free(pl);
            }
        }
    }
}

/* Interleaved 1F1B (vp model chunks per stage; Narayanan et al. SC'21 §2.2.2): with zero-cost
 * communication and uniform chunks, T = (m + (p − 1)/vp)(t_f + t_b) where t_f, t_b are a whole
 * stage's times: the bubble shrinks by vp. Every stage still computes m(t_f + t_b); P2P crosses
 * every virtual-stage boundary, the last stage feeding the first (vp·p − 1 boundaries). */
static void test_interleaved_bubble(void)
{
    static const uint32_t ps[] = {2, 4};
    static const uint32_t vps[] = {2, 3, 4};
    static const uint32_t mults[] = {1, 2, 4};
    for (size_t a = 0; a < 2; a++)
        for (size_t v = 0; v < 3; v++)
            for (size_t c = 0; c < 3; c++) {
                uint32_t p = ps[a], vp = vps[v], m = p * mults[c];
                train_opts o = small_opts(2 * p * vp, 1, p, 1, m);
                o.vp = vp;
                train_plan *pl = build(&o);
                if (!pl)
                    continue;
                sim_time tf = pl->stage_fwd_ps[0], tb = pl->stage_bwd_ps[0];
                CHECK(tf % vp == 0 && tb % vp == 0);
                train_rank_breakdown *br = calloc(pl->n_ranks, sizeof *br);
                train_summary S;
                sim_time T = train_eval_ideal(pl, NULL, NULL, NULL, NULL, NULL, br, &S);
                uint64_t want = (uint64_t)m * (tf + tb) + (uint64_t)(p - 1) * (tf + tb) / vp;
                if (T != want)
                    fprintf(stderr, "  p %u vp %u m %u: T %llu want %llu\n", p, vp, m,
                            (unsigned long long)T, (unsigned long long)want);
                CHECK_EQ_U64(T, want);
                for (uint32_t r = 0; r < pl->n_ranks; r++)
                    CHECK_EQ_U64(br[r].compute_ps, (uint64_t)m * (tf + tb));
                CHECK_EQ_U64(pl->stats.p2p, 2ull * (p * vp - 1) * m);
                CHECK_EQ_U64(pl->stats.compute, 2ull * p * vp * m);
                free(br);
                train_plan_free(pl);
            }
    /* the schedule's requirements */
    train_opts o = small_opts(8, 1, 1, 1, 4);
    o.vp = 2;
    err e;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL && strstr(e.msg, "pp >= 2"));
    o = small_opts(8, 1, 4, 1, 6);
    o.vp = 2;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL && strstr(e.msg, "multiple of pp"));
    o = small_opts(6, 1, 2, 1, 4);
    o.vp = 4;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL && strstr(e.msg, "at least 8"));
}

/* MoE (expert parallelism): per MoE layer and micro-batch, a dispatch and a combine
 * all_to_all forward and both again backward, over each EP group (ep consecutive DP ranks of
 * one (tp, pp)); each rank's send buffer is b·s·top_k·h·2/tp bytes; over the network an EP
 * group moves (ep − 1) × that per all_to_all whatever the skew, and the skew only moves the load
 * onto the hot rank: it receives (ep − 1)·S·share_0. */
static void test_moe(void)
{
    train_opts o = small_opts(4, 2, 1, 8, 3);
    o.moe_experts = 16;
    o.moe_top_k = 2;
    o.moe_ep = 4;
    train_plan *p = build(&o);
    if (!p)
        return;
    uint64_t S = 2ull * 512 * 1024 * 2 * 2 / 2; /* b 2, s 512, h 1024, bf16, top_k 2, tp 2 */
    CHECK_EQ_U64(p->moe_a2a_bytes, S);
    CHECK_EQ_U64(p->n_ep_groups, 2 * 1 * 8 / 4);
    /* 4 layers × 3 micro-batches × 4 all_to_alls × 4 EP groups */
    CHECK_EQ_U64(p->stats.coll_ep, 4ull * 3 * 4 * 4);
    bool ok = true;
    for (uint32_t i = 0; i < p->n_tasks; i++) {
        const train_task *t = &p->tasks[i];
        if (t->kind != TRAIN_COLL || t->phase != TRAIN_PH_EP)
            continue;
        const train_group *g = &p->groups[t->group];
        ok &= t->op == OP_ALL_TO_ALL && t->bytes == S && g->kind == TRAIN_GROUP_EP && g->n == 4;
        /* members: one (tp, pp), consecutive DP indices */
        for (uint32_t j = 0; j < g->n; j++) {
            const train_rank *a = &p->ranks[p->members[g->off]];
            const train_rank *b = &p->ranks[p->members[g->off + j]];
            ok &= a->tp == b->tp && a->pp == b->pp && b->dp == a->dp + j && a->dp % 4 == 0;
        }
    }
    CHECK(ok);
    /* α–β with EP on 100 Gb/s: uniform, a rank sends and receives 3/4·S; with skew 1 the hot
     * rank receives 3·S·share_0 = 3·S·(1 / (1 + 1/2 + 1/3 + 1/4)) */
    train_ab_cost c = {0, 0, 0, 0, 0, 100000000000ull};
    sim_time T0 = train_eval_ideal(p, train_ab_cost_fn, &c, NULL, NULL, NULL, NULL, NULL);
    const train_task *ep = NULL;
    for (uint32_t i = 0; i < p->n_tasks && !ep; i++)
        if (p->tasks[i].phase == TRAIN_PH_EP)
            ep = &p->tasks[i];
    CHECK(ep && train_ab_cost_fn(&c, p, ep) == sim_ser_time(S * 3 / 4, 100000000000ull));
    train_plan_free(p);
    o.moe_skew = 1.0;
    p = build(&o);
    if (!p)
        return;
    ep = NULL;
    for (uint32_t i = 0; i < p->n_tasks && !ep; i++)
        if (p->tasks[i].phase == TRAIN_PH_EP)
            ep = &p->tasks[i];
    double share0 = 1.0 / (1 + 0.5 + 1.0 / 3 + 0.25);
    CHECK_NEAR(train_moe_share(0, 4, 1.0), share0, 1e-12);
    CHECK(ep && train_ab_cost_fn(&c, p, ep) ==
                    sim_ser_time((uint64_t)ceil(3 * share0 * (double)S), 100000000000ull));
    sim_time T1 = train_eval_ideal(p, train_ab_cost_fn, &c, NULL, NULL, NULL, NULL, NULL);
    train_rank_breakdown *br = calloc(p->n_ranks, sizeof *br);
    train_summary Sm;
    train_eval_ideal(p, train_ab_cost_fn, &c, NULL, NULL, NULL, br, &Sm);
    CHECK(T1 > T0);
    CHECK(Sm.mean.ep_ps > 0 && Sm.mean.ep_comm_ps >= Sm.mean.ep_ps);
    free(br);
    train_plan_free(p);
    /* the skewed all_to_all plan: every byte accounted, the hot rank's share */
    coll_params cp = {.op = OP_ALL_TO_ALL,
                      .algo = ALGO_DIRECT,
                      .n_ranks = 4,
                      .gpus_per_server = 1,
                      .size_bytes = 1000003,
                      .a2a_skew = 1.0};
    arena a;
    arena_init(&a, "moe test");
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&cp, &a, &e);
    CHECK(pl != NULL);
    if (pl) {
        uint64_t recv[4] = {0};
        for (uint32_t i = 0; i < pl->n_xfers; i++)
            recv[pl->xfers[i].dst] += pl->xfers[i].bytes;
        CHECK_EQ_U64(pl->total_bytes, 3ull * 1000003);
        CHECK(fabs((double)recv[0] - 3 * share0 * 1000003) <= 3);
        CHECK(recv[0] > recv[1] && recv[1] > recv[2] && recv[2] > recv[3]);
    }
    arena_free(&a);
    /* with interleaving: pp 2 × vp 2, the plan stays consistent (train_plan_check) and every
     * layer of every model chunk has its 4 all_to_alls per micro-batch */
    o = small_opts(8, 2, 2, 4, 2);
    o.vp = 2, o.moe_experts = 4, o.moe_top_k = 2, o.moe_ep = 2;
    p = build(&o);
    if (p) {
        /* pp 2 × EP groups per stage (tp 2 × dp 4 / ep 2) × layers per stage 4 × m 2 × 4 */
        CHECK_EQ_U64(p->stats.coll_ep, 2ull * 4 * 4 * 2 * 4);
        train_plan_free(p);
    }
    /* errors */
    o = small_opts(4, 1, 1, 6, 2);
    o.moe_experts = 8, o.moe_top_k = 2, o.moe_ep = 4;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL && strstr(e.msg, "must divide dp"));
    o.moe_ep = 3;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL && strstr(e.msg, "spread evenly"));
}

static void test_placement(void)
{
    /* 4 servers × 8 GPUs: tp 8 inside servers, pp 2, dp 2 (Megatron order tp, dp, pp). */
    train_opts o = small_opts(4, 8, 2, 2, 2);
    train_plan *p = build(&o);
    if (!p)
        return;
    CHECK_EQ_U64(p->n_tp_groups, 4);
    CHECK_EQ_U64(p->n_dp_groups, 16);
    CHECK_EQ_U64(p->n_groups, 4 + 16 + 16);
    for (uint32_t r = 0; r < 32; r++) {
        const train_rank *k = &p->ranks[r];
        CHECK_EQ_U64(train_rank_of(p, k->tp, k->pp, k->dp), r);
        CHECK_EQ_U64(r, k->tp + 8 * (k->dp + 2 * k->pp));
        const train_group *tg = &p->groups[k->tp_group], *dg = &p->groups[k->dp_group];
        CHECK_EQ_U64(tg->n, 8);
        CHECK_EQ_U64(dg->n, 2);
        for (uint32_t i = 0; i < tg->n; i++)
            CHECK_EQ_U64(p->ranks[p->members[tg->off + i]].server, k->server);
        for (uint32_t i = 0; i < dg->n; i++) {
            uint32_t q = p->members[dg->off + i];
            CHECK(q == r || p->ranks[q].server != k->server);
            CHECK_EQ_U64(p->ranks[q].tp, k->tp);
            CHECK_EQ_U64(p->ranks[q].pp, k->pp);
        }
        CHECK_EQ_U64(k->pp_prev, k->pp == 0 ? TRAIN_NONE : r - 16);
        CHECK_EQ_U64(k->pp_next, k->pp == 1 ? TRAIN_NONE : r + 16);
    }
    train_plan_free(p);

    /* tp-pp-dp order: pipeline neighbours one TP group apart. */
    o.order = TRAIN_ORDER_TP_PP_DP;
    p = build(&o);
    if (p) {
        CHECK_EQ_U64(p->ranks[0].pp_next, 8);
        CHECK_EQ_U64(p->ranks[16].dp, 1);
    }
    train_plan_free(p);

    /* Scattered: consecutive logical ranks on different servers, so TP groups span servers. */
    o.order = TRAIN_ORDER_TP_DP_PP;
    o.placement = TRAIN_PLACE_SCATTERED;
    p = build(&o);
    if (p) {
        const train_group *g = &p->groups[0];
        CHECK(p->ranks[p->members[g->off]].server != p->ranks[p->members[g->off + 1]].server);
    }
    train_plan_free(p);

    /* An explicit GPU list: servers come from the GPU ids. */
    train_opts o2 = small_opts(2, 4, 1, 2, 1);
    uint32_t gpus[8] = {8, 9, 10, 11, 20, 21, 22, 23};
    o2.gpus = gpus;
    p = build(&o2);
    if (p) {
        CHECK_EQ_U64(p->ranks[0].server, 1);
        CHECK_EQ_U64(p->ranks[4].server, 2);
        CHECK_EQ_U64(p->ranks[5].gpu, 21);
    }
    train_plan_free(p);
    uint32_t bad[8] = {6, 7, 8, 9, 20, 21, 22, 23};
    o2.gpus = bad;
    err e;
    err_clear(&e);
    CHECK(train_plan_new(&o2, &e) == NULL);
    CHECK(strstr(e.msg, "spans servers 0 and 1") != NULL);
}

static void test_placement_errors(void)
{
    err e;
    train_opts o = small_opts(4, 4, 2, 2, 1);
    o.n_ranks = 32;
    o.err_file = "job.yaml", o.err_line = 7, o.err_col = 5;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL);
    CHECK_EQ_U64(e.code, ERR_INVALID);
    CHECK_STR(e.msg, "parallelism: tp (4) x pp (2) x dp (2) = 16 ranks, but the job has 32 GPUs");
    CHECK_STR(e.file, "job.yaml");
    CHECK_EQ_U64(e.line, 7);

    o = small_opts(4, 6, 1, 2, 1);
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL);
    CHECK(
        strstr(e.msg, "parallelism.tp: the TP group of ranks 6..11 (tp 6) spans servers 0 and 1") !=
        NULL);
    o.placement = TRAIN_PLACE_SCATTERED; /* 12 GPUs: not whole servers */
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL);
    CHECK(strstr(e.msg, "placement: scattered needs whole servers") != NULL);

    /* tp 16 fills two whole servers: allowed. */
    o = small_opts(4, 16, 1, 2, 1);
    train_plan *p = build(&o);
    train_plan_free(p);

    o = small_opts(2, 1, 4, 1, 1);
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL);
    CHECK_STR(e.msg, "parallelism.pp: 4 pipeline stages need at least 4 layers, the model has 2");

    o = small_opts(4, 1, 1, 4, 1);
    o.global_batch = 10;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL);
    CHECK_STR(e.msg, "global_batch: expected a multiple of micro_batch x dp (8), got 10");
}

/* DP buckets overlap the last backward: exposed DP < DP time, and less than serial. */
static void test_dp_overlap(void)
{
    for (int sharded = 0; sharded < 2; sharded++) {
        train_opts o = small_opts(8, 1, 2, 4, 4);
        o.dp_sharded = sharded;
        o.bucket_bytes = 4000000;
        train_plan *p = build(&o);
        if (!p)
            return;
        /* Each rank's shard: 4 layers × (12h² + 2h) × 2 B ≈ 100.7 MB → 26 buckets. */
        CHECK_EQ_U64(p->stage_buckets[0], 26);
        CHECK_EQ_U64(p->stats.coll_dp, (sharded ? 2 : 1) * 26ull * 2);
        train_ab_cost ab = {0};
        ab.dp_alpha_ps = 5 * SIM_US;
        ab.dp_bw_bps = 400000000000ull;
        train_summary S0, S;
        sim_time T0 = train_eval_ideal(p, NULL, NULL, NULL, NULL, NULL, NULL, &S0);
        sim_time T = train_eval_ideal(p, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, &S);
        /* DP time of one rank: Σ buckets (serialized on the communicator). */
        sim_time dp_total = 0;
        for (uint32_t i = 0; i < p->n_tasks; i++)
            if (p->tasks[i].phase == TRAIN_PH_DP && p->tasks[i].group == p->ranks[0].dp_group)
                dp_total += train_ab_cost_fn(&ab, p, &p->tasks[i]);
        CHECK(S.slowest.dp_comm_ps == dp_total);
        CHECK(S.slowest.dp_ps > 0);
        CHECK(S.slowest.dp_ps < dp_total);
        CHECK(S.mean.dp_ps < S.mean.dp_comm_ps);
        CHECK(T > T0);
        CHECK(T < T0 + dp_total);
        CHECK_EQ_U64(S.slowest.compute_ps + S.slowest.tp_ps + S.slowest.pp_ps + S.slowest.dp_ps +
                         S.slowest.bubble_ps,
                     T);
        train_plan_free(p);
    }
}

/* Aggregated TP tasks (count = 2·layers) give the same iteration time as per-layer tasks. */
static void test_tp_aggregation(void)
{
    train_ab_cost ab = {0};
    ab.tp_alpha_ps = 3 * SIM_US, ab.tp_bw_bps = 3600000000000ull;
    ab.pp_alpha_ps = 2 * SIM_US, ab.pp_bw_bps = 400000000000ull;
    train_opts o = small_opts(8, 4, 4, 1, 8);
    train_plan *a = build(&o);
    o.tp_per_layer = false;
    train_plan *b = build(&o);
    if (!a || !b)
        return;
    CHECK_EQ_U64(a->stats.tp_collectives, b->stats.tp_collectives);
    CHECK_EQ_U64(a->stats.tp_collectives, 4ull * 8 * 8 / 4 * 4 * 4 / 4); /* 2·2·L_s·m·groups */
    CHECK(b->stats.coll_tp < a->stats.coll_tp);
    train_summary Sa, Sb;
    sim_time Ta = train_eval_ideal(a, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, &Sa);
    sim_time Tb = train_eval_ideal(b, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, &Sb);
    CHECK_EQ_U64(Ta, Tb);
    CHECK_EQ_U64(Sa.mean.tp_ps, Sb.mean.tp_ps);
    CHECK(Sa.mean.tp_ps > 0);
    CHECK(Sa.mean.pp_ps > 0);
    train_plan_free(a);
    train_plan_free(b);
}

/* gpu-slow 1.3 on one rank lengthens everyone's iteration; it is the slowest rank. */
static void test_slow_gpu(void)
{
    train_opts o = small_opts(8, 2, 2, 2, 4);
    train_plan *p = build(&o);
    if (!p)
        return;
    train_ab_cost ab = {0};
    ab.tp_alpha_ps = ab.pp_alpha_ps = ab.dp_alpha_ps = 2 * SIM_US;
    ab.tp_bw_bps = 3600000000000ull, ab.pp_bw_bps = ab.dp_bw_bps = 400000000000ull;
    double f[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    train_rank_breakdown b0[8], b1[8];
    train_summary S0, S1;
    sim_time T0 = train_eval_ideal(p, train_ab_cost_fn, &ab, f, NULL, NULL, b0, &S0);
    f[5] = 1.3;
    sim_time T1 = train_eval_ideal(p, train_ab_cost_fn, &ab, f, NULL, NULL, b1, &S1);
    CHECK(T1 > T0);
    CHECK((double)T1 > 1.15 * (double)T0); /* the slow rank is on the critical path */
    CHECK_EQ_U64(S1.slowest_rank, 5);
    CHECK_NEAR((double)b1[5].compute_ps / b0[5].compute_ps, 1.3, 1e-6);
    for (uint32_t r = 0; r < 8; r++) {
        /* Everyone's iteration is longer; the others wait (bubble) for rank 5. */
        if (r != 5) {
            CHECK_EQ_U64(b1[r].compute_ps, b0[r].compute_ps);
            CHECK(b1[r].bubble_ps > b0[r].bubble_ps);
        }
    }
    train_plan_free(p);
}

/* llama3-70b on 1024 GPUs (tp 8, pp 8, dp 16, micro_batch 1): task counts against closed forms,
 * printed for the record, at the scenario default global batch (micro_batch × dp × pp = 128,
 * m = 8) and at Llama 3's 16M-token batch (2048 sequences, m = 128). */
static void test_llama70b_1024_counts(void)
{
    static const uint32_t gbs[] = {128, 2048};
    for (size_t g = 0; g < 2; g++) {
        for (int agg = 0; agg < 2; agg++) {
            if (g == 1 && !agg)
                continue; /* 6.2M tasks: measured by bench_training, not here */
            train_opts o;
            train_opts_default(&o);
            train_model_preset("llama3-70b", &o.model);
            o.tp = 8, o.pp = 8, o.dp = 16;
            o.n_ranks = 1024;
            o.global_batch = gbs[g];
            o.tp_per_layer = !agg;
            train_plan *p = build(&o);
            if (!p)
                return;
            uint64_t m = p->m, L = 10;
            CHECK_EQ_U64(m, gbs[g] / 16);
            /* Per rank per micro-batch: fwd + bwd chunks; the last stage adds the LM head. */
            uint64_t per_mb = agg ? 2 : 4 * L, last_extra = agg ? 0 : 2;
            uint64_t lastb = agg ? L + 0 : 0; /* aggregated: last backward cut per layer */
            uint64_t comp = 1024 * m * per_mb + 128 * m * last_extra;
            if (agg)
                comp += 1024 * (lastb - 1) + 128; /* + LM-head chunk on the last stage */
            CHECK_EQ_U64(p->stats.compute, comp);
            CHECK_EQ_U64(p->stats.p2p, 2ull * 7 * 128 * m);
            uint64_t tpt = agg ? 128 * (2 * m - 1) + 128 * L : 128 * m * 4 * L;
            CHECK_EQ_U64(p->stats.coll_tp, tpt);
            CHECK_EQ_U64(p->stats.tp_collectives, 128 * m * 4 * L);
            uint64_t dpt = 0;
            for (uint32_t s = 0; s < 8; s++)
                dpt += 8ull * p->stage_buckets[s];
            CHECK_EQ_U64(p->stats.coll_dp, dpt);
            /* 10 × 855.6M / 8 × 2 B = 2.14 GB in Megatron-Core's default buckets at dp 16,
             * max(40M, 16M) parameters × 2 B = 80 MB */
            CHECK_EQ_U64(p->opts.bucket_bytes, 80000000);
            CHECK(p->stage_buckets[3] == 27);
            train_ab_cost ab = {0};
            ab.tp_alpha_ps = 5 * SIM_US, ab.tp_bw_bps = 3600000000000ull;
            ab.pp_alpha_ps = ab.dp_alpha_ps = 10 * SIM_US;
            ab.pp_bw_bps = ab.dp_bw_bps = 400000000000ull;
            train_summary S;
            sim_time T = train_eval_ideal(p, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, &S);
            fprintf(stderr,
                    "  llama3-70b 1024 GPUs gb %u m %llu %s: tasks %u (compute %llu, TP %llu "
                    "standing for %llu, P2P %llu, DP %llu), deps %u; α-β iteration %.1f ms, "
                    "mean compute %.1f, tp %.1f, pp %.1f, dp %.1f, bubble %.1f ms\n",
                    gbs[g], (unsigned long long)m, agg ? "aggregated" : "per-layer", p->n_tasks,
                    (unsigned long long)p->stats.compute, (unsigned long long)p->stats.coll_tp,
                    (unsigned long long)p->stats.tp_collectives, (unsigned long long)p->stats.p2p,
                    (unsigned long long)p->stats.coll_dp, p->n_deps, T / 1e9,
                    S.mean.compute_ps / 1e9, S.mean.tp_ps / 1e9, S.mean.pp_ps / 1e9,
                    S.mean.dp_ps / 1e9, S.mean.bubble_ps / 1e9);
            train_plan_free(p);
        }
    }
}

/* The DP bucket: by default (0, `bucket: auto`) Megatron-Core's max(40M, 1M × dp) parameters of
 * 2 bytes, so 80 MB up to dp 40 and 2 MB × dp above; an explicit size is used as given. Each
 * stage's buckets are ceil(stage gradient bytes / bucket), one DP collective each; a compact
 * plan (whose reduced plan has 2 replicas) resolves the bucket with the job's dp, not 2. */
static void test_bucket_default(void)
{
    CHECK_EQ_U64(train_bucket_bytes(0, 1), 80000000);
    CHECK_EQ_U64(train_bucket_bytes(0, 8), 80000000);
    CHECK_EQ_U64(train_bucket_bytes(0, 40), 80000000);
    CHECK_EQ_U64(train_bucket_bytes(0, 41), 82000000);
    CHECK_EQ_U64(train_bucket_bytes(0, 64), 128000000);
    CHECK_EQ_U64(train_bucket_bytes(0, 256), 512000000);
    CHECK_EQ_U64(train_bucket_bytes(25000000, 256), 25000000);
    train_opts d;
    train_opts_default(&d);
    CHECK_EQ_U64(d.bucket_bytes, 0); /* auto */
    static const struct {
        uint32_t dp;
        uint64_t bucket, want; /* bucket 0 = auto */
        bool compact;
    } cs[] = {
        {8, 0, 80000000, false},          {64, 0, 128000000, false},
        {64, 0, 128000000, true},         {8, 25000000, 25000000, false},
        {64, 25000000, 25000000, true},   {64, 300000000, 300000000, false},
    };
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        /* 8 layers of 12h² + 2h parameters (h 1024) on one stage: 201.4 MB of bf16 gradients */
        train_opts o = small_opts(8, 1, 1, cs[c].dp, 1);
        o.bucket_bytes = cs[c].bucket;
        o.compact = cs[c].compact;
        train_plan *p = build(&o);
        if (!p)
            continue;
        uint64_t g = p->stage_grad_bytes[0], B = cs[c].want;
        CHECK_EQ_U64(g, 8ull * (12 * 1024 * 1024 + 2 * 1024) * 2);
        CHECK_EQ_U64(p->opts.bucket_bytes, B);
        CHECK_EQ_U64(p->stage_buckets[0], (g + B - 1) / B);
        CHECK_EQ_U64(p->stats.coll_dp, p->stage_buckets[0]); /* one DP group */
        train_plan_free(p);
    }
    /* the counts that make the cases above distinct: 80 MB → 3, 128 MB → 2, 25 MB → 9 */
    train_opts o = small_opts(8, 1, 1, 64, 1);
    train_plan *p = build(&o);
    if (p)
        CHECK_EQ_U64(p->stage_buckets[0], 2);
    train_plan_free(p);
    o = small_opts(8, 1, 1, 8, 1);
    p = build(&o);
    if (p)
        CHECK_EQ_U64(p->stage_buckets[0], 3);
    train_plan_free(p);
    o.bucket_bytes = 25000000;
    p = build(&o);
    if (p)
        CHECK_EQ_U64(p->stage_buckets[0], 9);
    train_plan_free(p);
}

static void test_from_job(void)
{
    cfg_job j;
    memset(&j, 0, sizeof j);
    j.kind = JOB_TRAINING;
    j.line = 12, j.col = 3;
    j.model = (cfg_model){"llama3-70b", 70.6e9, 80, 8192, 8192, 128256};
    j.tp = 8, j.pp = 4, j.dp = 2;
    j.micro_batch = 1, j.global_batch = 64;
    j.gpu_peak_tflops = 989, j.gpu_mfu = 0.45;
    train_opts o;
    train_opts_from_job(&o, &j, "s.yaml", 64, NULL, 8);
    train_plan *p = build(&o);
    if (p) {
        CHECK_EQ_U64(p->m, 32);
        /* llama3-70b forward per layer per GPU: (2·8192·(855654400 − 2·8192) + 4·8192²·8192)
         * FLOP / 8 / (989 × 0.45 FLOP/ps) = 4555049014.07 ps. */
        CHECK_EQ_U64(p->layer_fwd_ps, 4555049014ull);
    }
    train_plan_free(p);
    o.tp = 16;
    err e;
    err_clear(&e);
    CHECK(train_plan_new(&o, &e) == NULL);
    CHECK_STR(e.file, "s.yaml");
    CHECK_EQ_U64(e.line, 12);
}

/* Every list of task i (successors or dependencies) of both plans, batch by batch. */
static bool same_lists(const train_plan *a, const train_plan *b, uint32_t i, bool succ)
{
    uint32_t la[TRAIN_LIST_BATCH], lb[TRAIN_LIST_BATCH];
    for (uint32_t k = 0;; k += TRAIN_LIST_BATCH) {
        uint32_t na = succ ? train_plan_succ(a, i, k, la) : train_plan_deps(a, i, k, la);
        uint32_t nb = succ ? train_plan_succ(b, i, k, lb) : train_plan_deps(b, i, k, lb);
        if (na != nb || memcmp(la, lb, sizeof(uint32_t) * na))
            return false;
        if (na < TRAIN_LIST_BATCH)
            return true;
    }
}

/* A compact plan (training.h "Compact plans") against the stored plan of the same job: the same
 * tasks field by field, the same dependency and successor lists in the same order, the same
 * tasks per rank, the same counts; the same analytic run (every task's start and end to the
 * picosecond, every rank's breakdown) with a slow GPU; and far less memory. Over shapes: tp /
 * pp / dp, interleaving, micro-batches, per-layer or aggregated TP, sharded optimizer, recompute,
 * both rank orders, scattered placement, buckets smaller than a chunk, a model with an
 * embedding and LM head. */
static void test_compact_matches_stored(void)
{
    struct shape {
        uint32_t layers, tp, pp, dp, m, vp;
        bool per_layer, sharded, recompute, pp_dp, scattered, vocab;
        uint64_t bucket;
    } sh[] = {
        {8, 2, 2, 4, 4, 1, true, false, false, false, false, false, 25000000},
        {8, 1, 4, 3, 6, 1, true, false, false, false, false, false, 4000000},
        {12, 2, 3, 5, 3, 1, false, false, true, false, false, true, 1000000},
        {8, 2, 2, 6, 4, 2, true, true, false, false, false, false, 3000000},
        {16, 4, 2, 3, 8, 4, false, true, false, true, false, true, 50000000},
        {6, 2, 3, 4, 1, 1, true, false, false, false, true, false, 25000000},
        {4, 1, 1, 7, 2, 1, true, true, false, false, false, false, 2000000},
        {10, 2, 4, 3, 8, 2, true, false, true, true, true, true, 8000000},
        /* auto at dp 64: 128 MB buckets (2 per stage), not the 80 MB of the reduced plan's dp */
        {8, 1, 1, 64, 2, 1, true, false, false, false, false, false, 0},
    };
    for (size_t c = 0; c < sizeof sh / sizeof sh[0]; c++) {
        const struct shape *S = &sh[c];
        train_opts o = small_opts(S->layers, S->tp, S->pp, S->dp, S->m);
        o.vp = S->vp;
        o.tp_per_layer = S->per_layer;
        o.dp_sharded = S->sharded;
        o.recompute = S->recompute;
        o.bucket_bytes = S->bucket;
        o.gpus_per_server = 4;
        if (S->pp_dp)
            o.order = TRAIN_ORDER_TP_PP_DP;
        if (S->scattered) {
            o.placement = TRAIN_PLACE_SCATTERED;
            o.gpus_per_server = 2;
        }
        if (S->vocab)
            o.model.vocab = 32000;
        train_plan *a = build(&o);
        o.compact = true;
        train_plan *b = build(&o);
        if (!a || !b) {
            train_plan_free(a);
            train_plan_free(b);
            continue;
        }
        CHECK(a->cx == NULL && b->cx != NULL && b->tasks == NULL);
        CHECK_EQ_U64(a->n_tasks, b->n_tasks);
        CHECK(!memcmp(&a->stats, &b->stats, sizeof a->stats));
        CHECK_EQ_U64(a->n_deps, b->n_deps);
        CHECK_EQ_U64(train_plan_max_deps(a), train_plan_max_deps(b));
        CHECK(train_plan_bytes(b) < train_plan_bytes(a));
        CHECK_EQ_U64(train_plan_max_compute(a), train_plan_max_compute(b));
        CHECK(train_plan_max_compute(a) > 0);
        uint32_t bad = 0;
        for (uint32_t i = 0; i < a->n_tasks && a->n_tasks == b->n_tasks; i++) {
            train_task x = a->tasks[i], yb;
            train_task y = *train_plan_task(b, i, &yb);
            x.dep_off = x.succ_off = y.dep_off = y.succ_off = 0;
            bad += memcmp(&x, &y, sizeof x) != 0 || train_plan_n_deps(b, i) != x.n_deps ||
                   !same_lists(a, b, i, true) || !same_lists(a, b, i, false);
        }
        CHECK_EQ_U64(bad, 0);
        CHECK_EQ_U64(train_plan_rank_max(a), train_plan_rank_max(b));
        uint32_t most = train_plan_rank_max(a);
        uint32_t *ra = malloc(sizeof(uint32_t) * most), *rb = malloc(sizeof(uint32_t) * most);
        for (uint32_t r = 0; r < a->n_ranks; r++) {
            uint32_t na = train_plan_rank_tasks(a, r, ra), nb = train_plan_rank_tasks(b, r, rb);
            bad += na != nb || memcmp(ra, rb, sizeof(uint32_t) * na);
        }
        CHECK_EQ_U64(bad, 0);
        free(ra);
        free(rb);
        /* the same analytic run, a slow GPU included */
        train_ab_cost ab = {0};
        ab.tp_alpha_ps = ab.pp_alpha_ps = ab.dp_alpha_ps = 3 * SIM_US;
        ab.tp_bw_bps = 3600000000000ull, ab.pp_bw_bps = ab.dp_bw_bps = 400000000000ull;
        uint32_t n = a->n_ranks, nt = a->n_tasks;
        double *f = malloc(sizeof(double) * n);
        for (uint32_t r = 0; r < n; r++)
            f[r] = r == n / 2 + 1 ? 1.37 : 1.0;
        sim_time *s0 = malloc(sizeof(sim_time) * 4 * nt), *e0 = s0 + nt, *s1 = e0 + nt,
                 *e1 = s1 + nt;
        train_rank_breakdown *b0 = malloc(sizeof *b0 * 2 * n), *b1 = b0 + n;
        train_summary S0, S1;
        sim_time T0 = train_eval_ideal(a, train_ab_cost_fn, &ab, f, s0, e0, b0, &S0);
        sim_time T1 = train_eval_ideal(b, train_ab_cost_fn, &ab, f, s1, e1, b1, &S1);
        CHECK_EQ_U64(T0, T1);
        CHECK(T0 > 0);
        CHECK(!memcmp(s0, s1, sizeof(sim_time) * nt) && !memcmp(e0, e1, sizeof(sim_time) * nt));
        CHECK(!memcmp(b0, b1, sizeof *b0 * n) && !memcmp(&S0, &S1, sizeof S0));
        /* without rank factors and outputs the compact plan runs its reduced plan only */
        sim_time Ta = train_eval_ideal(a, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, NULL);
        sim_time Tb = train_eval_ideal(b, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, NULL);
        CHECK_EQ_U64(Ta, Tb);
        CHECK(Ta > 0 && Ta <= T0);
        free(f);
        free(s0);
        free(b0);
        train_plan_free(a);
        train_plan_free(b);
    }
    /* dp ≤ 2 and MoE jobs stay stored (nothing to share, or replicas joined by all_to_alls) */
    train_opts o = small_opts(4, 2, 2, 2, 2);
    o.compact = true;
    train_plan *p = build(&o);
    CHECK(p && p->cx == NULL && p->tasks != NULL);
    train_plan_free(p);
}

int main(void)
{
    TEST_RUN(test_flops_by_hand);
    TEST_RUN(test_presets);
    TEST_RUN(test_bubble_emerges);
    TEST_RUN(test_interleaved_bubble);
    TEST_RUN(test_moe);
    TEST_RUN(test_placement);
    TEST_RUN(test_placement_errors);
    TEST_RUN(test_dp_overlap);
    TEST_RUN(test_tp_aggregation);
    TEST_RUN(test_slow_gpu);
    TEST_RUN(test_bucket_default);
    TEST_RUN(test_from_job);
    TEST_RUN(test_llama70b_1024_counts);
    TEST_RUN(test_compact_matches_stored);
    return tl_finish();
}
