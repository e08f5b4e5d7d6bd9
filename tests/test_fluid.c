/*
 * test_fluid.c — the flow-level rate engine: max-min fair rates on hand-computed cases
 * (including a bottleneck shared by flows of different paths), exact completion times, rates
 * that only change inside the touched component, and, on random instances, the max-min
 * characterisation (feasible, and every flow has a saturated link on which no flow is faster)
 * with incremental results equal to a solve from scratch.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/rng.h"
#include "net/fluid.h"
#include "testlib.h"

#define G 1e9

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b))); }

static void test_one_link_shared(void)
{
    const double cap[] = {100 * G};
    fluid *f = fluid_new(1, cap);
    uint32_t l = 0;
    uint32_t a = fluid_add(f, &l, 1, 1000000, 0); /* 1 MB */
    CHECK(near(fluid_rate_bps(f, a), 100 * G));
    CHECK_EQ_U64(fluid_finish_ps(f, a), 80 * SIM_US); /* 8e6 bits at 100 Gbps */
    uint32_t b = fluid_add(f, &l, 1, 2000000, 0);
    CHECK(near(fluid_rate_bps(f, a), 50 * G));
    CHECK(near(fluid_rate_bps(f, b), 50 * G));
    CHECK_EQ_U64(fluid_finish_ps(f, a), 160 * SIM_US);
    fluid_remove(f, a, 160 * SIM_US);
    /* b sent 1 MB in 160 us at 50 Gbps; its last MB alone at 100 Gbps takes 80 us */
    CHECK(near(fluid_rate_bps(f, b), 100 * G));
    CHECK(near(fluid_left_bits(f, b, 160 * SIM_US), 8e6));
    CHECK_EQ_U64(fluid_finish_ps(f, b), 240 * SIM_US);
    fluid_free(f);
}

/* Two links in series, L0 = 1 Gbps, L1 = 2 Gbps. f0 crosses both, f1 only L0, f2 and f3 only
 * L1. L0 is the first bottleneck: f0 = f1 = 0.5; L1 keeps 1.5 for f2 and f3: 0.75 each. */
static void test_two_bottlenecks(void)
{
    const double cap[] = {1 * G, 2 * G};
    fluid *f = fluid_new(2, cap);
    const uint32_t both[] = {0, 1}, l0 = 0, l1 = 1;
    uint32_t f0 = fluid_add(f, both, 2, 1000, 0);
    uint32_t f1 = fluid_add(f, &l0, 1, 1000, 0);
    uint32_t f2 = fluid_add(f, &l1, 1, 1000, 0);
    uint32_t f3 = fluid_add(f, &l1, 1, 1000, 0);
    CHECK(near(fluid_rate_bps(f, f0), 0.5 * G));
    CHECK(near(fluid_rate_bps(f, f1), 0.5 * G));
    CHECK(near(fluid_rate_bps(f, f2), 0.75 * G));
    CHECK(near(fluid_rate_bps(f, f3), 0.75 * G));
    CHECK(near(fluid_link_load_bps(f, 0), 1 * G));
    CHECK(near(fluid_link_load_bps(f, 1), 2 * G));
    fluid_free(f);
}

/* A leaf-spine incast: hosts a and b on leaf 0 send to x on leaf 1 through different spines
 * (a: up0, s0down, xlink; b: up1, s1down, xlink); c on leaf 0 sends over up0 to y. The shared
 * bottleneck is x's host link (100G): a = b = 50; c takes what up0 leaves: 50. */
static void test_shared_bottleneck_different_paths(void)
{
    enum { UP0, UP1, S0DOWN, S1DOWN, XLINK, YLINK, N };
    double cap[N];
    for (int i = 0; i < N; i++)
        cap[i] = 100 * G;
    fluid *f = fluid_new(N, cap);
    const uint32_t pa[] = {UP0, S0DOWN, XLINK}, pb[] = {UP1, S1DOWN, XLINK}, pc[] = {UP0, YLINK};
    uint32_t a = fluid_add(f, pa, 3, 1 << 20, 0);
    uint32_t b = fluid_add(f, pb, 3, 1 << 20, 0);
    uint32_t c = fluid_add(f, pc, 2, 1 << 20, 0);
    CHECK(near(fluid_rate_bps(f, a), 50 * G));
    CHECK(near(fluid_rate_bps(f, b), 50 * G));
    CHECK(near(fluid_rate_bps(f, c), 50 * G));
    /* b leaves: a alone on xlink but shares up0 with c: 50 / 50 still */
    fluid_remove(f, b, 10 * SIM_US);
    CHECK(near(fluid_rate_bps(f, a), 50 * G));
    CHECK(near(fluid_rate_bps(f, c), 50 * G));
    /* c leaves: a gets the line rate */
    fluid_remove(f, c, 20 * SIM_US);
    CHECK(near(fluid_rate_bps(f, a), 100 * G));
    fluid_free(f);
}

/* A flow on links no other flow touches is solved alone: the others' rates and update times
 * stay as they were, and only its component is reported as changed. */
static void test_component_only(void)
{
    const double cap[] = {100 * G, 100 * G, 100 * G};
    fluid *f = fluid_new(3, cap);
    const uint32_t l0 = 0, l1 = 1, l12[] = {1, 2};
    uint32_t a = fluid_add(f, &l0, 1, 1000000, 0);
    uint32_t b = fluid_add(f, &l1, 1, 1000000, 0);
    uint64_t solves = fluid_solves(f);
    uint32_t c = fluid_add(f, l12, 2, 1000000, 5 * SIM_US);
    const uint32_t *ids;
    uint32_t n = fluid_changed(f, &ids);
    CHECK_EQ_U64(n, 2);
    int saw_a = 0;
    for (uint32_t i = 0; i < n; i++)
        saw_a |= ids[i] == a;
    CHECK(!saw_a);
    CHECK_EQ_U64(fluid_solves(f), solves + 1);
    CHECK(near(fluid_rate_bps(f, a), 100 * G));
    CHECK_EQ_U64(fluid_finish_ps(f, a), 80 * SIM_US);
    CHECK(near(fluid_rate_bps(f, b), 50 * G));
    CHECK(near(fluid_rate_bps(f, c), 50 * G));
    /* b ran 5 us alone at 100 Gbps (500 kbit), then 50 Gbps for the 7.5 Mbit left: 150 us */
    CHECK_EQ_U64(fluid_finish_ps(f, b), 155 * SIM_US);
    fluid_free(f);
}

/* Max-min characterisation: feasible, and every flow has a link that is saturated and on which
 * no flow's rate exceeds its own. */
static int is_max_min(const fluid *f, uint32_t n_links, const double *cap, uint32_t n_flows,
                      const uint32_t *live, uint32_t paths[][4], const uint32_t *plen)
{
    for (uint32_t l = 0; l < n_links; l++)
        if (fluid_link_load_bps(f, l) > cap[l] * (1 + 1e-9))
            return 0;
    for (uint32_t i = 0; i < n_flows; i++) {
        if (!live[i])
            continue;
        double r = fluid_rate_bps(f, i);
        int has = 0;
        for (uint32_t j = 0; j < plen[i] && !has; j++) {
            uint32_t l = paths[i][j];
            if (!near(fluid_link_load_bps(f, l), cap[l]))
                continue;
            int top = 1;
            for (uint32_t k = 0; k < n_flows; k++) {
                if (!live[k] || k == i)
                    continue;
                for (uint32_t m = 0; m < plen[k]; m++)
                    if (paths[k][m] == l && fluid_rate_bps(f, k) > r * (1 + 1e-9))
                        top = 0;
            }
            has = top;
        }
        if (!has)
            return 0;
    }
    return 1;
}

/* Random flows on random paths, started and ended one at a time: after every change the rates
 * are max-min fair and equal a from-scratch solve. Deferred (with a commit after each change, as
 * the flow-level network drives it), most changes take fluid.c's fast paths: they must give the
 * same rates as a solve. */
static void random_instances(bool deferred)
{
    enum { NL = 12, NF = 40 };
    rng r;
    rng_init(&r, 5, RNG_ID(RNG_KIND_TEST, 9));
    int bad = 0, mismatch = 0;
    uint64_t fast = 0;
    for (int round = 0; round < 30; round++) {
        double cap[NL];
        for (int l = 0; l < NL; l++)
            cap[l] = (double)(1 + rng_below(&r, 8)) * 25 * G;
        fluid *f = fluid_new(NL, cap);
        fluid_defer(f, deferred);
        uint32_t paths[NF][4], plen[NF], live[NF] = {0}, id[NF];
        for (int i = 0; i < NF; i++) {
            plen[i] = 1 + (uint32_t)rng_below(&r, 4);
            for (uint32_t j = 0; j < plen[i]; j++) {
                uint32_t l;
                int dup;
                do {
                    l = (uint32_t)rng_below(&r, NL);
                    dup = 0;
                    for (uint32_t k = 0; k < j; k++)
                        dup |= paths[i][k] == l;
                } while (dup);
                paths[i][j] = l;
            }
        }
        sim_time now = 0;
        for (int step = 0; step < 3 * NF; step++) {
            int i = (int)rng_below(&r, NF);
            now += rng_below(&r, 1000);
            if (!live[i]) {
                id[i] = fluid_add(f, paths[i], plen[i], 1 + rng_below(&r, 1 << 20), now);
                live[i] = 1;
            } else {
                fluid_remove(f, id[i], now);
                live[i] = 0;
            }
            if (deferred)
                fluid_commit(f, now);
            /* ids are reused: map them back by position for the check */
            uint32_t byid[NF][4], lenid[NF], liveid[NF] = {0};
            for (int k = 0; k < NF; k++)
                if (live[k]) {
                    liveid[id[k]] = 1;
                    lenid[id[k]] = plen[k];
                    for (uint32_t j = 0; j < plen[k]; j++)
                        byid[id[k]][j] = paths[k][j];
                }
            if (!is_max_min(f, NL, cap, NF, liveid, byid, lenid))
                bad++;
        }
        /* from scratch, the same live flows get the same (unique) max-min rates */
        fluid *g = fluid_new(NL, cap);
        uint32_t gid[NF];
        for (int k = 0; k < NF; k++)
            if (live[k])
                gid[k] = fluid_add(g, paths[k], plen[k], 1000, now);
        for (int k = 0; k < NF; k++)
            if (live[k] && !near(fluid_rate_bps(f, id[k]), fluid_rate_bps(g, gid[k])))
                mismatch++;
        fluid_free(g);
        fast += fluid_fast(f);
        fluid_free(f);
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(mismatch, 0);
    if (deferred)
        CHECK(fast > 100); /* the fast paths were taken (out of 3,600 changes) */
    else
        CHECK_EQ_U64(fast, 0);
}

/* A removal recorded for the commit (another change of the instant is pending) whose component
 * has no flow left is never solved: its link must still read empty. X (1 MB) runs at 30 Gbps,
 * the capacity of link 1, on link 0 (100 Gbps) and link 1; at t = 1 us link 2's capacity
 * changes (pending) and X ends (deferred too); the commit finds no flow to solve. A flow Z
 * alone on link 0 at t = 2 us gets its 100 Gbps (before the fix: the 70 X's stale load left). */
static void test_empty_link_reads_empty(void)
{
    const double cap[] = {100 * G, 30 * G, 10 * G};
    fluid *f = fluid_new(3, cap);
    fluid_defer(f, true);
    const uint32_t x_links[] = {0, 1}, l0 = 0;
    uint32_t x = fluid_add(f, x_links, 2, 1000000, 0);
    fluid_commit(f, 0);
    CHECK(near(fluid_rate_bps(f, x), 30 * G));
    fluid_set_cap(f, 2, 20 * G, SIM_US);
    fluid_remove(f, x, SIM_US);
    CHECK(fluid_commit(f, SIM_US));
    uint32_t z = fluid_add(f, &l0, 1, 1000000, 2 * SIM_US);
    fluid_commit(f, 2 * SIM_US);
    CHECK(near(fluid_rate_bps(f, z), 100 * G));
    CHECK_EQ_U64(fluid_finish_ps(f, z), 2 * SIM_US + 80 * SIM_US);
    fluid_free(f);
}

/* Lazy flows (fluid.h): a flow alone on its links may be marked lazy; a change reaching one of
 * its links calls the hook first, which must settle it. */
typedef struct lazy_log {
    fluid *f;
    uint32_t calls, last;
    sim_time now;
    bool remove; /* the hook removes (its finish has passed), else makes it ordinary */
} lazy_log;

static void lazy_settle(void *ctx, uint32_t id)
{
    lazy_log *lg = ctx;
    lg->calls++;
    lg->last = id;
    if (lg->remove)
        fluid_remove(lg->f, id, lg->now);
    else
        fluid_unlazy(lg->f, id);
}

static void test_lazy_hook(void)
{
    const double cap[] = {100 * G, 40 * G, 100 * G};
    fluid *f = fluid_new(3, cap);
    lazy_log lg = {f, 0, 0, 0, false};
    fluid_defer(f, true);
    fluid_lazy_hook(f, lazy_settle, &lg);
    const uint32_t a_links[] = {0, 1}, l1 = 1, l2 = 2;
    uint32_t a = fluid_add(f, a_links, 2, 1000000, 0);
    CHECK(near(fluid_rate_bps(f, a), 40 * G)); /* fast path: its slowest link */
    CHECK(fluid_lazy(f, a) && fluid_is_lazy(f, a));
    /* a flow elsewhere does not reach it */
    uint32_t c = fluid_add(f, &l2, 1, 1000, 0);
    CHECK_EQ_U64(lg.calls, 0);
    CHECK(!fluid_lazy(f, c) || fluid_is_lazy(f, c));
    /* a flow joining link 1 at 100 us (a ends at 200 us): a is made ordinary, then shares */
    lg.now = 100 * SIM_US;
    uint32_t b = fluid_add(f, &l1, 1, 1000000, 100 * SIM_US);
    CHECK_EQ_U64(lg.calls, 1);
    CHECK_EQ_U64(lg.last, a);
    CHECK(!fluid_is_lazy(f, a));
    fluid_commit(f, 100 * SIM_US);
    CHECK(near(fluid_rate_bps(f, a), 20 * G) && near(fluid_rate_bps(f, b), 20 * G));
    /* 4e6 bits left at 20 Gbps: 200 us more */
    CHECK_EQ_U64(fluid_finish_ps(f, a), 300 * SIM_US);
    /* shared: it cannot be lazy */
    CHECK(!fluid_lazy(f, a));
    fluid_remove(f, b, 100 * SIM_US);
    fluid_commit(f, 100 * SIM_US);
    CHECK(fluid_lazy(f, a));
    /* ended lazy a is removed by the hook at 500 us: z alone on link 0 gets all of it */
    lg.remove = true;
    lg.now = 500 * SIM_US;
    const uint32_t l0 = 0;
    uint32_t z = fluid_add(f, &l0, 1, 1000000, 500 * SIM_US);
    CHECK_EQ_U64(lg.calls, 2);
    CHECK(near(fluid_rate_bps(f, z), 100 * G));
    CHECK(near(fluid_link_load_bps(f, 1), 0));
    /* a capacity change reaches a lazy flow too */
    CHECK(fluid_lazy(f, z));
    lg.remove = false;
    fluid_set_cap(f, 0, 50 * G, 510 * SIM_US);
    CHECK_EQ_U64(lg.calls, 3);
    fluid_commit(f, 510 * SIM_US);
    CHECK(near(fluid_rate_bps(f, z), 50 * G));
    fluid_free(f);
}

/* Changes pending at an instant (deferred, before the commit): a flow added alone on links they
 * did not touch gets its slowest link's capacity at once — exactly what the commit's solve
 * would give it, which a second fluid without the pending change (so solved) confirms — and a
 * flow on a touched link, or sharing one, waits for the commit. */
static void test_alone_while_pending(void)
{
    const double cap[] = {100 * G, 40 * G, 100 * G, 30 * G, 100 * G};
    fluid *f = fluid_new(5, cap), *g = fluid_new(5, cap);
    fluid_defer(f, true);
    fluid_defer(g, true);
    const uint32_t l0 = 0, x_links[] = {1, 3}, y_links[] = {0, 2}, l4 = 4;
    uint32_t a = fluid_add(f, &l0, 1, 1000000, 0); /* fast: nothing pending */
    uint32_t b = fluid_add(f, &l0, 1, 1000000, 0); /* shares link 0: pending */
    CHECK(fluid_pending(f) && fluid_rate_bps(f, b) == 0);
    uint32_t x = fluid_add(f, x_links, 2, 1000000, 0); /* alone, untouched links */
    CHECK(fluid_rate_bps(f, x) == 30 * G);
    uint32_t gx = fluid_add(g, x_links, 2, 1000000, 0);
    uint32_t gz = fluid_add(g, &l4, 1, 1000000, 0);
    uint32_t gw = fluid_add(g, &l4, 1, 1000000, 0); /* g: pending, so its x is solved */
    (void)gz;
    (void)gw;
    fluid_commit(g, 0);
    CHECK(fluid_rate_bps(f, x) == fluid_rate_bps(g, gx));
    CHECK(fluid_finish_ps(f, x) == fluid_finish_ps(g, gx));
    uint32_t y = fluid_add(f, y_links, 2, 1000000, 0); /* link 0 is touched: waits */
    CHECK(fluid_rate_bps(f, y) == 0);
    fluid_commit(f, 0);
    CHECK(near(fluid_rate_bps(f, a), 100 * G / 3) && near(fluid_rate_bps(f, y), 100 * G / 3));
    CHECK(fluid_rate_bps(f, x) == 30 * G);
    fluid_free(f);
    fluid_free(g);
}

static void test_random_instances(void) { random_instances(false); }
static void test_random_instances_fast_paths(void) { random_instances(true); }

/* fluid_finish_memo_at is fluid_finish_at, whatever the order of the pairs it is asked: a few
 * sizes repeated (the memo's hits), sizes colliding in a slot, rates changing under a size, the
 * edge cases (nothing left, rate 0, huge sizes, a start near the end of time). */
static void test_finish_memo(void)
{
    fluid_finish_memo m;
    memset(&m, 0, sizeof m);
    rng r;
    rng_init(&r, 17, RNG_ID(RNG_KIND_TEST, 10));
    const double rates[] = {400e9, 100e9, 3e9 + 7, 1.5, 0};
    uint64_t bad = 0, n = 0;
    for (uint32_t k = 0; k < 200000; k++) {
        uint64_t u = rng_next(&r);
        /* mostly a few neighbouring sizes (a ring's chunks), now and then any size */
        double bits = u % 8 ? (double)((98304 + u % 5 + 4 * (u >> 60)) * 8)
                            : (double)(u >> (u % 64)) / (u % 3 ? 1 : 1024);
        double rate = rates[(u >> 8) % 8 < 5 ? (u >> 8) % 8 : 0];
        sim_time t = (u >> 16) % 4 ? (u >> 24) : SIM_TIME_MAX - (u >> 40);
        bad += fluid_finish_memo_at(&m, t, bits, rate) != fluid_finish_at(t, bits, rate);
        n++;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(n == 200000);
}

int main(void)
{
    TEST_RUN(test_empty_link_reads_empty);
    TEST_RUN(test_lazy_hook);
    TEST_RUN(test_alone_while_pending);
    TEST_RUN(test_one_link_shared);
    TEST_RUN(test_two_bottlenecks);
    TEST_RUN(test_shared_bottleneck_different_paths);
    TEST_RUN(test_component_only);
    TEST_RUN(test_random_instances);
    TEST_RUN(test_random_instances_fast_paths);
    TEST_RUN(test_finish_memo);
    return tl_finish();
}
