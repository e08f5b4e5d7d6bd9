/*
 * test_hotpath_alloc.c — steady-state packet forwarding performs zero heap allocations.
 *
 * A run is warmed up until every pool has reached its working size, then simulated further
 * while alloc_count() (every wirerate allocation goes through core/alloc) must not move.
 * Three workloads: a permutation on a leaf-spine (forwarding through three switches), a lossy
 * incast whose receiver queue sits at its dynamic-threshold limit (drops in steady state), and
 * a lossless incast held back by PFC (PAUSE/RESUME frames in steady state).
 */
#include <string.h>

#include "config/config.h"
#include "core/alloc.h"
#include "core/sim.h"
#include "testlib.h"
#include "workload/run.h"

static void steady_state(const char *yaml, sim_time warm, sim_time until)
{
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "alloc.yaml", yaml, strlen(yaml), NULL, 0, &e) == 0);
    if (e.code) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    run *r = run_new(&sc, &e);
    CHECK(r != NULL);
    if (!r) {
        fprintf(stderr, "%s\n", e.msg);
        scenario_free(&sc);
        return;
    }
    sim *s = run_sim_mut(r);
    s->stop_at = warm;
    sim_run(s);
    uint64_t events0 = s->events, allocs0 = alloc_count();
    s->stop_at = until;
    sim_run(s);
    CHECK(s->events > events0 + 10000); /* it really forwarded packets meanwhile */
    CHECK_EQ_U64(alloc_count(), allocs0);
    fprintf(stderr, "  %llu events, %llu allocations in steady state\n",
            (unsigned long long)(s->events - events0),
            (unsigned long long)(alloc_count() - allocs0));
    run_free(r);
    scenario_free(&sc);
}

static void test_permutation_leaf_spine(void)
{
    steady_state("fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16,\n"
                 "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
                 "loadbalance: {mode: spray}\n"
                 "workload: [{name: p, kind: traffic, pattern: permutation, size: 8MB}]\n",
                 /* the event queue's chunks reach their working size (a slab doubles them)
                  * at about 218 us: 185 us before its redistribution recycled the chunks it
                  * reads (issue #17, tenth round), which lowered the transient peaks */
                 300 * SIM_US, 600 * SIM_US);
}

static void test_incast_at_threshold(void)
{
    steady_state("fabric: {preset: single-switch, servers: 8, gpus_per_server: 1,\n"
                 "         host_link: 100Gbps}\n"
                 "switch: {buffer: 1MiB, pfc: {enabled: false}}\n"
                 "nic: {cc: none}\n"
                 "workload: [{name: i, kind: traffic, pattern: incast, size: 8MB}]\n",
                 200 * SIM_US, 500 * SIM_US);
}

static void test_incast_pfc_pausing(void)
{
    /* Lossless: the receiver's leaf keeps pausing and resuming the senders. */
    steady_state("fabric: {preset: single-switch, servers: 8, gpus_per_server: 1,\n"
                 "         host_link: 100Gbps}\n"
                 "switch: {buffer: 4MiB}\n"
                 "nic: {cc: none}\n"
                 "workload: [{name: i, kind: traffic, pattern: incast, size: 8MB}]\n",
                 500 * SIM_US, 2500 * SIM_US);
}

static void test_uet_incast_trimming(void)
{
    /* UET: sprayed entropies, SACKs, trimmed headers and their NAKs, NSCC */
    steady_state("fabric: {preset: single-switch, servers: 8, gpus_per_server: 1,\n"
                 "         host_link: 100Gbps}\n"
                 "switch: {buffer: 1MiB, trimming: true, pfc: {enabled: false}}\n"
                 "nic: {transport: uet}\n"
                 "workload: [{name: i, kind: traffic, pattern: incast, size: 8MB}]\n",
                 200 * SIM_US, 1200 * SIM_US);
}

static void test_uet_rccc_incast(void)
{
    /* UET receiver credits: the credit pacer's grants and credit frames */
    steady_state("fabric: {preset: single-switch, servers: 8, gpus_per_server: 1,\n"
                 "         host_link: 100Gbps}\n"
                 "switch: {buffer: 1MiB, trimming: true, pfc: {enabled: false}}\n"
                 "nic: {transport: uet, uet: {rccc: true, unsolicited: 64KiB}}\n"
                 "workload: [{name: i, kind: traffic, pattern: incast, size: 8MB}]\n",
                 200 * SIM_US, 1200 * SIM_US);
}

int main(void)
{
    TEST_RUN(test_permutation_leaf_spine);
    TEST_RUN(test_incast_at_threshold);
    TEST_RUN(test_incast_pfc_pausing);
    TEST_RUN(test_uet_incast_trimming);
    TEST_RUN(test_uet_rccc_incast);
    return tl_finish();
}
