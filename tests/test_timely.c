/*
 * test_timely.c — TIMELY's rate update (transport/timely.h, Mittal et al. SIGCOMM'15 Algorithm 1)
 * stepped through RTT samples against values computed here by hand, and whole runs: on an idle
 * path TIMELY never paces (the run equals cc: none to the picosecond); in an incast it holds the
 * receiver's queue below what no congestion control lets build, with no CNP sent and no loss.
 */
#include <math.h>
#include <string.h>

#include "config/config.h"
#include "core/err.h"
#include "report/diagnose.h"
#include "testlib.h"
#include "transport/timely.h"
#include "workload/run.h"

#define NEAR(a, b) CHECK_NEAR((a), (b), fabs((double)(b)) * 1e-12 + 1e-9)

/* nic.timely as a scenario gets it by default */
static void paper(cfg_timely *c)
{
    static const char y[] = "nic: {cc: timely}\n";
    scenario sc;
    err e;
    memset(&sc, 0, sizeof sc);
    int rc = config_load_buffer(&sc, "t.yaml", y, sizeof y - 1, NULL, 0, &e);
    CHECK(rc == ERR_OK);
    CHECK(sc.nic.cc == CC_TIMELY);
    *c = sc.nic.timely;
    scenario_free(&sc);
}

static void test_defaults(void)
{
    cfg_timely c;
    paper(&c);
    timely_params p;
    timely_params_init(&p, &c, 10000000000ULL); /* the paper's 10 Gb/s NIC */
    NEAR(p.add_bps, 10e6);                      /* δ = 10 Mbps */
    NEAR(p.min_bps, 10e6);
    NEAR(p.beta, 0.8);
    NEAR(p.ewma, 0.875);
    CHECK_EQ_U64(p.t_low_ps, 50 * SIM_US);
    CHECK_EQ_U64(p.t_high_ps, 500 * SIM_US);
    CHECK_EQ_U64(p.min_rtt_ps, 20 * SIM_US);
    CHECK_EQ_U64(p.hai_n, 5);
    timely_params_init(&p, &c, 400000000000ULL);
    NEAR(p.add_bps, 400e6); /* the same 0.1 % of a 400G line */
    c.add_rate_bps = 10000000;
    timely_params_init(&p, &c, 400000000000ULL);
    NEAR(p.add_bps, 10e6); /* as set */
}

static void test_algorithm_branches(void)
{
    cfg_timely c;
    paper(&c);
    timely_params p;
    timely_params_init(&p, &c, 10000000000ULL);
    timely_state s;
    timely_init(&s, &p);
    NEAR(s.rate_bps, 10e9);

    /* first sample above T_high: multiplicative decrease by β(1 − T_high/r) */
    CHECK(timely_on_rtt(&s, &p, 1000 * SIM_US));
    double rate = 10e9 * (1 - 0.8 * (1 - 500.0 / 1000.0));
    NEAR(s.rate_bps, rate);
    NEAR(s.rtt_diff_ps, 0); /* no difference from a first sample */

    /* 100 us, between T_low and T_high: new_diff −900 us, rtt_diff = 0.875 · (−900 us) < 0:
     * additive increase, N = 1 (one event with gradient ≤ 0) */
    timely_on_rtt(&s, &p, 100 * SIM_US);
    double diff = 0.875 * -900e6;
    NEAR(s.rtt_diff_ps, diff);
    rate += 10e6;
    NEAR(s.rate_bps, rate);

    /* 120 us: new_diff +20 us; rtt_diff = 0.125 · diff + 0.875 · 20 us, still negative */
    timely_on_rtt(&s, &p, 120 * SIM_US);
    diff = 0.125 * diff + 0.875 * 20e6;
    NEAR(s.rtt_diff_ps, diff);
    CHECK(diff < 0);
    rate += 10e6;
    NEAR(s.rate_bps, rate);

    /* 200 us: new_diff +80 us, rtt_diff > 0: decrease by β · gradient, gradient = rtt_diff /
     * min RTT */
    timely_on_rtt(&s, &p, 200 * SIM_US);
    diff = 0.125 * diff + 0.875 * 80e6;
    CHECK(diff > 0);
    double g = diff / 20e6;
    rate *= 1 - 0.8 * g;
    if (rate < 10e6)
        rate = 10e6;
    NEAR(s.rate_bps, rate);

    /* below T_low: additive increase whatever the gradient */
    timely_init(&s, &p);
    s.rate_bps = 1e9;
    timely_on_rtt(&s, &p, 10 * SIM_US);
    NEAR(s.rate_bps, 1e9 + 10e6);
    timely_on_rtt(&s, &p, 40 * SIM_US); /* rising RTT, but under T_low */
    NEAR(s.rate_bps, 1e9 + 20e6);
}

/* Hyperactive increase: from the fifth event in a row with gradient ≤ 0, each adds N·δ. */
static void test_hyperactive_increase(void)
{
    cfg_timely c;
    paper(&c);
    timely_params p;
    timely_params_init(&p, &c, 10000000000ULL);
    timely_state s;
    timely_init(&s, &p);
    s.rate_bps = 1e9;
    double rate = 1e9;
    for (int k = 1; k <= 8; k++) {
        timely_on_rtt(&s, &p, 100 * SIM_US); /* constant RTT: gradient 0 */
        rate += (k >= 5 ? 5 : 1) * 10e6;
        NEAR(s.rate_bps, rate);
    }
    /* a rise resets the run */
    timely_on_rtt(&s, &p, 150 * SIM_US);
    CHECK_EQ_U64(s.neg_run, 0);
}

/* Never below min_rate, never above line; segments gate the samples. */
static void test_clamps_and_segments(void)
{
    cfg_timely c;
    paper(&c);
    timely_params p;
    timely_params_init(&p, &c, 10000000000ULL);
    timely_state s;
    timely_init(&s, &p);
    timely_on_rtt(&s, &p, 10 * SIM_US);
    NEAR(s.rate_bps, 10e9); /* at line, additive increase stays at line */
    for (int k = 0; k < 50; k++)
        timely_on_rtt(&s, &p, (sim_time)(100 + 100 * k) * SIM_US); /* rising fast */
    NEAR(s.rate_bps, 10e6);
    CHECK(!timely_on_acked(&s, &p, 65535));
    CHECK(timely_on_acked(&s, &p, 1));
    CHECK(!timely_on_acked(&s, &p, 4096));
    CHECK(timely_on_acked(&s, &p, 3 * 65536)); /* several segments at once: one sample */
}

static const run_stats *go(scenario *sc, run **r, const char *yaml)
{
    *r = tl_start(sc, "timely.yaml", yaml, NULL, 0);
    CHECK(*r != NULL);
    if (!*r)
        return NULL;
    run_execute(*r, NULL, NULL);
    return run_result(*r);
}

/* One flow on an idle path: every RTT sample is under T_low, the rate stays at line and the
 * QP is never paced: the run is cc: none's to the picosecond. */
static void test_idle_path_is_line_rate(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 1, leaf_radix: 4,\n"
        "         host_link: 400Gbps, fabric_link: 400Gbps}\n"
        "nic: {cc: %s}\n"
        "workload: [{name: p, kind: traffic, pattern: permutation, size: 8MB}]\n";
    char buf[512];
    sim_time jct[2];
    for (int k = 0; k < 2; k++) {
        snprintf(buf, sizeof buf, y, k ? "none" : "timely");
        scenario sc;
        run *r;
        const run_stats *st = go(&sc, &r, buf);
        if (!st)
            return;
        CHECK(st->jobs[0].completed);
        jct[k] = st->jobs[0].jct_ps;
        run_free(r);
        scenario_free(&sc);
    }
    CHECK_EQ_U64(jct[0], jct[1]);
}

/* A 7-to-1 incast at 100G (PFC on): TIMELY completes it without a CNP, lossless, bytes
 * conserved, and the receiver's queue peaks well below what it reaches with no congestion
 * control (the RTT gradient cut the senders). */
static void test_incast_reacts(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps}\n"
        "nic: {cc: %s}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 4MB}]\n";
    char buf[512];
    uint64_t peak[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        snprintf(buf, sizeof buf, y, k ? "none" : "timely");
        scenario sc;
        run *r;
        const run_stats *st = go(&sc, &r, buf);
        if (!st)
            return;
        CHECK(st->jobs[0].completed);
        CHECK_EQ_U64(st->cnp_sent, 0);
        for (int d = 0; d < DROP_REASONS; d++) /* lossless: PFC protects the class */
            CHECK_EQ_U64(st->drops[d], 0);
        /* (a QP that TIMELY slows to a few packets per RTO can time out spuriously and resend:
         * the bytes still all arrive, once each) */
        CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes);
        for (uint32_t i = 0; i < st->n_ports; i++)
            if (!strcmp(st->ports[i].name, "sw0->h0"))
                peak[k] = st->ports[i].max_queue_bytes;
        run_free(r);
        scenario_free(&sc);
    }
    CHECK(peak[0] > 0);
    CHECK(peak[0] < peak[1] / 2);
}

int main(void)
{
    TEST_RUN(test_defaults);
    TEST_RUN(test_algorithm_branches);
    TEST_RUN(test_hyperactive_increase);
    TEST_RUN(test_clamps_and_segments);
    TEST_RUN(test_idle_path_is_line_rate);
    TEST_RUN(test_incast_reacts);
    return tl_finish();
}
