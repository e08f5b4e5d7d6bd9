/*
 * test_faults.c — link failures: traffic hashed onto a dead link is lost until routing
 * converges, then goes around it; the transport recovers every byte; the link comes back.
 */
#include <string.h>

#include "config/config.h"
#include "testlib.h"
#include "workload/run.h"

static const char base[] =
    "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
    "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
    "loadbalance: {mode: spray}\n"
    "nic: {retransmit: selective, rto: 200us}\n"
    "workload: [{name: a2a, kind: traffic, pattern: all-to-all, size: 256KB}]\n";

static uint64_t watched_tx; /* tx bytes of leaf1->spine2 in the last run_case */

static void run_case(const char *faults, run_stats *out, uint64_t *link_drops)
{
    char y[2048];
    snprintf(y, sizeof y, "%s%s", base, faults);
    scenario sc;
    run *r = tl_start(&sc, "faults.yaml", y, NULL, 0);
    memset(out, 0, sizeof *out);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    *out = *st;
    *link_drops = st->drops[DROP_LINK_DOWN];
    watched_tx = 0;
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (strcmp(st->ports[i].name, "leaf1->spine2") == 0)
            watched_tx = st->ports[i].tx_bytes;
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    CHECK_EQ_U64(st->flows_completed, st->n_flows);
    run_free(r);
    scenario_free(&sc);
}

static void test_link_down_then_reroute(void)
{
    run_stats healthy, broken, quick;
    uint64_t d0, d1, d2;
    run_case("", &healthy, &d0);
    /* leaf0's first uplink dies 20 us in; the fabric reroutes 100 us later */
    run_case("faults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 50us,\n"
             "          converge: 50us}]\n",
             &broken, &d1);
    /* the same, noticed at once */
    run_case("faults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 0s,\n"
             "          converge: 0s}]\n",
             &quick, &d2);
    fprintf(stderr, "  healthy %.1f us; link down: %llu link_down drops, %.1f us; rerouted at "
                    "once: %llu drops, %.1f us\n",
            (double)healthy.end_ps / 1e6, (unsigned long long)d1, (double)broken.end_ps / 1e6,
            (unsigned long long)d2, (double)quick.end_ps / 1e6);
    CHECK_EQ_U64(d0, 0);
    CHECK(d1 > 0);                 /* packets sprayed onto the dead link before convergence */
    CHECK(broken.retransmitted_packets > 0);
    CHECK(broken.end_ps > healthy.end_ps);
    CHECK(d2 < d1);                /* faster convergence, fewer losses */
}

static void test_link_flap(void)
{
    run_stats st;
    uint64_t d, d_down, tx_down, tx_flap;
    /* down for good: after the reroute nothing uses the link */
    run_case("faults:\n"
             "  - {at: 10us, kind: link-down, link: leaf1-spine2, detect: 5us, converge: 5us}\n",
             &st, &d_down);
    tx_down = watched_tx;
    /* down, then up again at 60 us: once routing has taken it back it carries traffic again */
    run_case("faults:\n"
             "  - {at: 10us, kind: link-down, link: leaf1-spine2, detect: 5us, converge: 5us}\n"
             "  - {at: 60us, kind: link-up, link: leaf1-spine2, detect: 5us, converge: 5us}\n",
             &st, &d);
    tx_flap = watched_tx;
    fprintf(stderr, "  leaf1->spine2 carried %llu B when it stayed down, %llu B with the flap\n",
            (unsigned long long)tx_down, (unsigned long long)tx_flap);
    CHECK(d > 0 && d_down > 0); /* and every flow still completed (run_case) */
    CHECK(tx_flap > tx_down + 1000000);
}

static void test_unknown_link(void)
{
    char y[1024];
    snprintf(y, sizeof y, "%s%s", base, "faults: [{at: 1us, kind: link-down, link: leaf0-spine99}]\n");
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "f.yaml", y, strlen(y), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "no link \"leaf0-spine99\"") != NULL);
    if (r)
        run_free(r);
    else
        scenario_free(&sc);
}

/* A valid fault followed by a refused one: the first must not stay queued in the simulation
 * once the faults are freed (ASan saw a use after free in run_free; found by fuzz_run). */
static void test_refused_after_valid(void)
{
    char y[1024];
    snprintf(y, sizeof y, "%s%s", base,
             "faults: [{at: 1us, kind: link-down, link: leaf0-spine0},\n"
             "         {at: 2us, kind: link-down, link: leaf0-spine99}]\n");
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "f.yaml", y, strlen(y), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "faults[1].link") != NULL);
    if (r)
        run_free(r);
    else
        scenario_free(&sc);
}

int main(void)
{
    TEST_RUN(test_link_down_then_reroute);
    TEST_RUN(test_link_flap);
    TEST_RUN(test_unknown_link);
    TEST_RUN(test_refused_after_valid);
    return tl_finish();
}
