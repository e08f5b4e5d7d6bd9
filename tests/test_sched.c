/*
 * test_sched.c — the egress scheduler between traffic classes: strict priority starves the lower
 * class while the higher one has frames; DWRR shares the port in proportion to the weights.
 * Two senders (classes 1 and 2, lossy, no congestion control) into one receiver port.
 */
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "core/time.h"
#include "testlib.h"
#include "workload/run.h"

static void shares(const char *sched, uint64_t *lo, uint64_t *hi, sim_time stop)
{
    char y[1024];
    snprintf(y, sizeof y,
             "stop_at: %lluns\n"
             "fabric: {preset: single-switch, servers: 3, gpus_per_server: 1, host_link: 100Gbps}\n"
             "switch: {buffer: 64MiB, %s}\n"
             "nic: {cc: none}\n"
             "workload:\n"
             "  - {name: low, kind: traffic, pattern: incast, hosts: [0, 1], size: 8MB, "
             "priority: 1}\n"
             "  - {name: high, kind: traffic, pattern: incast, hosts: [0, 2], size: 8MB, "
             "priority: 2}\n",
             (unsigned long long)(stop / SIM_NS), sched);
    scenario sc;
    err e;
    err_clear(&e);
    *lo = *hi = 0;
    if (config_load_buffer(&sc, "sched.yaml", y, strlen(y), NULL, 0, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        CHECK(0);
        return;
    }
    run *r = run_new(&sc, &e);
    CHECK(r != NULL);
    if (!r) {
        scenario_free(&sc);
        return;
    }
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    for (uint64_t i = 0; i < st->n_flows; i++)
        *(st->flows[i].job == 0 ? lo : hi) += st->flows[i].delivered_bytes;
    CHECK_EQ_U64(st->drops[DROP_BUFFER_FULL], 0);
    run_free(r);
    scenario_free(&sc);
}

static void test_strict(void)
{
    uint64_t lo, hi;
    /* 8 MB at 100 Gbps takes ~656 us of the receiver link; at 400 us the high class has had
     * all of it, the low class none (apart from frames that were first in an empty queue) */
    shares("scheduler: strict", &lo, &hi, 400 * SIM_US);
    fprintf(stderr, "  strict: low %llu B, high %llu B\n", (unsigned long long)lo,
            (unsigned long long)hi);
    CHECK(lo <= 2 * 4096);
    CHECK(hi > 4000000);
}

static void test_dwrr(void)
{
    static const struct {
        const char *w;
        double ratio;
    } cases[] = {
        {"[1, 1, 1, 1, 1, 1, 1, 1]", 1.0},
        {"[1, 1, 3, 1, 1, 1, 1, 1]", 3.0},
        {"[1, 2, 1, 1, 1, 1, 1, 1]", 0.5},
    };
    for (int c = 0; c < 3; c++) {
        char s[128];
        uint64_t lo, hi;
        snprintf(s, sizeof s, "scheduler: dwrr, weights: %s", cases[c].w);
        shares(s, &lo, &hi, 400 * SIM_US);
        double got = (double)hi / (double)lo;
        fprintf(stderr, "  dwrr %s: high/low = %.3f (weights say %.3f)\n", cases[c].w, got,
                cases[c].ratio);
        CHECK_NEAR(got, cases[c].ratio, 0.03 * cases[c].ratio);
        /* work conserving: together they filled the receiver link */
        CHECK(lo + hi > 4500000);
    }
}

int main(void)
{
    TEST_RUN(test_strict);
    TEST_RUN(test_dwrr);
    return tl_finish();
}
