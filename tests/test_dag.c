/*
 * test_dag.c — the workload engine's dependency release: roots go in index order at the start,
 * a node goes exactly when its last dependency completes, successors in the shape's order,
 * completion of the last node is reported once, a run restarts cleanly, and the three counter
 * widths (none, 16-bit, 32-bit) and implicit shapes behave alike.
 */
#include <string.h>

#include "testlib.h"
#include "workload/dag.h"

typedef struct rlog {
    uint32_t order[256];
    uint32_t n;
} rlog;

static void on_ready(void *ctx, uint32_t i)
{
    rlog *l = ctx;
    if (l->n < 256)
        l->order[l->n++] = i;
}

/* Diamond: 0 → 2, 1 → 2, 2 → 3, 2 → 4, 3 → 5, 4 → 5. */
static const uint32_t D_NDEPS[6] = {0, 0, 2, 1, 1, 2};
static const uint32_t D_FIRST[7] = {0, 1, 2, 4, 5, 6, 6};
static const uint32_t D_SUCC[6] = {2, 2, 3, 4, 5, 5};

static uint32_t d_deps(const void *ctx, uint32_t i)
{
    return ((const uint32_t *)ctx)[i];
}

static void test_diamond(void)
{
    arena a;
    arena_init(&a, "test_dag");
    dag_graph g = {.n = 6,
                   .max_deps = 2,
                   .succ_first = D_FIRST,
                   .succ = D_SUCC,
                   .deps_fn = d_deps,
                   .ctx = D_NDEPS};
    rlog l = {0};
    dag_run r;
    dag_run_init(&r, &a, 6, 2, on_ready, &l);
    CHECK(r.left16 != NULL && r.left32 == NULL);
    for (int round = 0; round < 2; round++) {
        l.n = 0;
        CHECK(!dag_run_start(&r, &g));
        CHECK_EQ_U64(l.n, 2);
        CHECK(l.order[0] == 0 && l.order[1] == 1);
        CHECK(!dag_run_complete(&r, 1));
        CHECK_EQ_U64(l.n, 2); /* 2 still waits for 0 */
        CHECK(!dag_run_complete(&r, 0));
        CHECK(l.n == 3 && l.order[2] == 2);
        CHECK(!dag_run_complete(&r, 2));
        CHECK(l.n == 5 && l.order[3] == 3 && l.order[4] == 4);
        CHECK(!dag_run_complete(&r, 4));
        CHECK(!dag_run_complete(&r, 3));
        CHECK(l.n == 6 && l.order[5] == 5);
        CHECK(dag_run_complete(&r, 5)); /* the last node */
    }
    arena_free(&a);
}

/* One node waiting on 70,000 roots needs 32-bit counters. */
static uint32_t wide_deps(const void *ctx, uint32_t i)
{
    (void)ctx;
    return i == 70000 ? 70000 : 0;
}

static uint32_t wide_succ(const void *ctx, uint32_t i, uint32_t *out)
{
    (void)ctx;
    if (i == 70000)
        return 0;
    out[0] = 70000;
    return 1;
}

static void test_wide(void)
{
    arena a;
    arena_init(&a, "test_dag");
    dag_graph g = {.n = 70001, .max_deps = 70000, .succ_fn = wide_succ, .deps_fn = wide_deps};
    rlog l = {0};
    dag_run r;
    dag_run_init(&r, &a, g.n, g.max_deps, on_ready, &l);
    CHECK(r.left32 != NULL);
    CHECK(!dag_run_start(&r, &g));
    CHECK_EQ_U64(l.n, 256); /* the rlog holds the first 256 of the 70,000 roots */
    CHECK(l.order[0] == 0 && l.order[255] == 255);
    bool released = false;
    for (uint32_t i = 0; i < 70000; i++) {
        l.n = 0;
        CHECK(!dag_run_complete(&r, i));
        if (l.n)
            released = i == 69999 && l.order[0] == 70000;
    }
    CHECK(released);
    CHECK(dag_run_complete(&r, 70000));
    arena_free(&a);
}

/* A fan-out longer than one batch through succ_at_fn: node 0 releases nodes 1..20 (each waits
 * on it alone) in ascending order, across three batches of DAG_SUCC_IMPLICIT_MAX; node 21
 * waits on all twenty. */
static uint32_t fan_deps(const void *ctx, uint32_t i)
{
    (void)ctx;
    return i == 0 ? 0 : i == 21 ? 20 : 1;
}

static uint32_t fan_succ_at(const void *ctx, uint32_t i, uint32_t from, uint32_t *out)
{
    (void)ctx;
    uint32_t n = 0;
    if (i == 0)
        for (uint32_t k = from; k < 20 && n < DAG_SUCC_IMPLICIT_MAX; k++)
            out[n++] = 1 + k;
    else if (i < 21 && from == 0)
        out[n++] = 21;
    return n;
}

static void test_long_fanout(void)
{
    arena a;
    arena_init(&a, "test_dag");
    dag_graph g = {.n = 22, .max_deps = 20, .succ_at_fn = fan_succ_at, .deps_fn = fan_deps};
    rlog l = {0};
    dag_run r;
    dag_run_init(&r, &a, g.n, g.max_deps, on_ready, &l);
    CHECK(!dag_run_start(&r, &g));
    CHECK(l.n == 1 && l.order[0] == 0);
    l.n = 0;
    CHECK(!dag_run_complete(&r, 0));
    CHECK_EQ_U64(l.n, 20);
    bool asc = true;
    for (uint32_t k = 0; k < l.n; k++)
        asc &= l.order[k] == 1 + k;
    CHECK(asc);
    l.n = 0;
    for (uint32_t i = 1; i <= 20; i++)
        CHECK(!dag_run_complete(&r, i));
    CHECK(l.n == 1 && l.order[0] == 21);
    CHECK(dag_run_complete(&r, 21));
    arena_free(&a);
}

/* A chain 0 → 1 → … → 9 described implicitly: no counters at all. */
static uint32_t chain_deps(const void *ctx, uint32_t i)
{
    (void)ctx;
    return i > 0;
}

static uint32_t chain_succ(const void *ctx, uint32_t i, uint32_t *out)
{
    (void)ctx;
    if (i == 9)
        return 0;
    out[0] = i + 1;
    return 1;
}

static void test_chain_and_empty(void)
{
    arena a;
    arena_init(&a, "test_dag");
    dag_graph g = {.n = 10, .max_deps = 1, .succ_fn = chain_succ, .deps_fn = chain_deps};
    rlog l = {0};
    dag_run r;
    dag_run_init(&r, &a, 10, 1, on_ready, &l);
    CHECK(!r.left16 && !r.left32);
    CHECK(!dag_run_start(&r, &g));
    CHECK(l.n == 1 && l.order[0] == 0);
    for (uint32_t i = 0; i < 9; i++) {
        CHECK(!dag_run_complete(&r, i));
        CHECK(l.n == i + 2 && l.order[i + 1] == i + 1);
    }
    CHECK(dag_run_complete(&r, 9));
    dag_graph empty = {.n = 0, .deps_fn = chain_deps, .succ_fn = chain_succ};
    l.n = 0;
    CHECK(dag_run_start(&r, &empty));
    CHECK_EQ_U64(l.n, 0);
    arena_free(&a);
}

/* Recording: a node's start is when its owner says, its end when it completes; NULL records
 * nothing. */
static void test_record(void)
{
    arena a;
    arena_init(&a, "test_dag");
    dag_graph g = {.n = 10, .max_deps = 1, .succ_fn = chain_succ, .deps_fn = chain_deps};
    rlog l = {0};
    dag_run r;
    dag_run_init(&r, &a, 10, 1, on_ready, &l);
    sim_time now = 5, t0[10] = {0}, t1[10] = {0};
    dag_run_record(&r, &now, t0, t1);
    CHECK(!dag_run_start(&r, &g));
    for (uint32_t i = 0; i < 10; i++) {
        now = 100 * i + 7;
        dag_run_started(&r, i);
        now += 50;
        dag_run_complete(&r, i);
        CHECK_EQ_U64(t0[i], 100 * i + 7);
        CHECK_EQ_U64(t1[i], 100 * i + 57);
    }
    dag_run_record(&r, NULL, NULL, NULL);
    CHECK(!dag_run_start(&r, &g));
    dag_run_started(&r, 0);
    dag_run_complete(&r, 0);
    CHECK_EQ_U64(t0[0], 7); /* unchanged */
    arena_free(&a);
}

static void test_conns(void)
{
    dag_conns c;
    memset(&c, 0, sizeof c);
    for (uint32_t i = 0; i < 3000; i++)
        CHECK_EQ_U64(dag_conns_add(&c, i, i + 1), i);
    CHECK(c.n == 3000 && c.src[2999] == 2999 && c.dst[2999] == 3000);
    dag_conns_free(&c);
    CHECK(c.n == 0 && !c.src);
}

int main(void)
{
    TEST_RUN(test_diamond);
    TEST_RUN(test_wide);
    TEST_RUN(test_long_fanout);
    TEST_RUN(test_chain_and_empty);
    TEST_RUN(test_record);
    TEST_RUN(test_conns);
    return tl_finish();
}
