/*
 * test_uet.c — the Ultra Ethernet transport (transport/uet.h) and NSCC (transport/nscc.h).
 * NSCC's window update stepped through ACKs against values computed here from the control law;
 * REPS's entropy recycling; whole runs: an incast with switch trimming completes every message
 * exactly once, retransmits exactly the trimmed packets and conserves bytes exactly (sent =
 * delivered + dropped + trimmed + in flight); without trimming the same incast drops and still
 * completes; a sprayed permutation reorders, spreads one connection over several uplinks and
 * finishes with nothing lost; the same seed gives the same run.
 */
#include <math.h>
#include <string.h>

#include "config/config.h"
#include "core/err.h"
#include "lb/lb.h"
#include "plan/check.h"
#include "testlib.h"
#include "transport/nic.h"
#include "transport/nscc.h"
#include "transport/uet.h"
#include "workload/run.h"

#define NEAR(a, b) CHECK_NEAR((a), (b), fabs((double)(b)) * 1e-9 + 1e-9)

static void defaults(cfg_nscc *c)
{
    static const char y[] = "nic: {transport: uet}\n";
    scenario sc;
    err e;
    memset(&sc, 0, sizeof sc);
    CHECK(config_load_buffer(&sc, "u.yaml", y, sizeof y - 1, NULL, 0, &e) == ERR_OK);
    CHECK(sc.nic.transport == TRANSPORT_UET);
    CHECK(sc.nic.cc == CC_NSCC);
    CHECK_EQ_U64(sc.nic.uet.paths, 256);
    CHECK_EQ_U64(sc.nic.uet.reps_buffer, 8);
    CHECK(!sc.sw.trimming);
    *c = sc.nic.nscc;
    scenario_free(&sc);
}

/* At the reference network (100 Gb/s, 12 us, target 6 us) the scale factors are a = 1, b = 1/2:
 * α = 4·0.5·MTU/T, fi = 5, η = 0.15·MTU, adjust every 8000 bytes. */
static void test_nscc_params(void)
{
    cfg_nscc c;
    defaults(&c);
    CHECK_EQ_U64(c.base_rtt_ps, 12 * SIM_US);
    CHECK_EQ_U64(c.target_delay_ps, 6 * SIM_US);
    nscc_params p;
    nscc_params_init(&p, &c, 100000000000ULL, 4096);
    NEAR(p.bdp, 150000.0);
    NEAR(p.max_wnd, 225000.0);
    NEAR(p.alpha, 2.0 * 4096 / 6e6);
    NEAR(p.fi, 5.0);
    NEAR(p.eta, 0.15 * 4096);
    NEAR(p.adjust_bytes, 8000.0);
    nscc_params_init(&p, &c, 400000000000ULL, 4096); /* 400G: a = 4 */
    NEAR(p.bdp, 600000.0);
    NEAR(p.fi, 20.0);
    NEAR(p.alpha, 4.0 * 4 * 0.5 * 4096 / 6e6);
}

/* No mark: the proportional increase grows with the room below the target, the fair increase
 * is the same; both land in the window at the batch boundary, as inc / cwnd. */
static void test_nscc_increase(void)
{
    cfg_nscc c;
    defaults(&c);
    nscc_params p;
    nscc_params_init(&p, &c, 100000000000ULL, 4096);
    nscc_state s;
    nscc_init(&s, &p, 0);
    NEAR(s.cwnd, 225000.0); /* starts at the maximum window */
    s.cwnd = 100000;
    /* first ACK: RTT 10 us is the minimum so far, delay 0 */
    nscc_on_ack(&s, &p, 1 * SIM_US, 4096, false, 10 * SIM_US, 50000);
    double inc = p.alpha * 6e6 * 4096 + 5.0 * 4096 * 4096;
    NEAR(s.inc, inc);
    NEAR(s.cwnd, 100000.0); /* 4096 acked bytes: below the 8000-byte batch */
    CHECK_EQ_U64(s.min_rtt_ps, 10 * SIM_US);
    /* second: RTT 12 us, delay 2 us; 8192 acked bytes pass the batch: cwnd += inc / cwnd */
    nscc_on_ack(&s, &p, 2 * SIM_US, 4096, false, 12 * SIM_US, 50000);
    inc += p.alpha * 4e6 * 4096 + 5.0 * 4096 * 4096;
    NEAR(s.cwnd, 100000.0 + fmin(8000.0, inc / 100000.0));
    NEAR(s.inc, 0.0);
    NEAR(s.avg_delay_ps, 0.0125 * 2e6);
    /* delay at or above the target, no mark: the fair increase only */
    double w = s.cwnd;
    nscc_on_ack(&s, &p, 3 * SIM_US, 4096, false, 17 * SIM_US, 50000);
    NEAR(s.inc, 5.0 * 4096 * 4096);
    NEAR(s.cwnd, w);
}

/* A mark with the delay above the target cuts the window by γ·(D − T)/D (at most by half),
 * at most once per base RTT; a mark with a short delay changes nothing. */
static void test_nscc_decrease(void)
{
    cfg_nscc c;
    defaults(&c);
    nscc_params p;
    nscc_params_init(&p, &c, 100000000000ULL, 4096);
    nscc_state s;
    nscc_init(&s, &p, 0);
    s.cwnd = 200000;
    s.min_rtt_ps = 10 * SIM_US;
    s.avg_delay_ps = 10e6;
    s.last_adjust_ps = s.last_eta_ps = 20 * SIM_US;
    s.qa_end_ps = 100 * SIM_US;
    /* delay 10 us: D stays 10 us; cut = 1 − 0.8·(10 − 6)/10 = 0.68 */
    nscc_on_ack(&s, &p, 20 * SIM_US, 4096, true, 20 * SIM_US, 100000);
    NEAR(s.cwnd, 200000.0 * 0.68);
    /* another mark within the base RTT: no second cut */
    nscc_on_ack(&s, &p, 25 * SIM_US, 4096, true, 20 * SIM_US, 100000);
    NEAR(s.cwnd, 200000.0 * 0.68);
    /* a mark with a short delay (2 us < T): no change, and no increase either */
    double inc = s.inc;
    s.last_adjust_ps = s.last_eta_ps = 35 * SIM_US; /* no batch or η step due */
    nscc_on_ack(&s, &p, 40 * SIM_US, 64, true, 12 * SIM_US, 100000);
    NEAR(s.cwnd, 200000.0 * 0.68);
    NEAR(s.inc, inc);
    /* a very long delay: the cut is capped at one half */
    s.avg_delay_ps = 60e6;
    s.last_adjust_ps = s.last_eta_ps = 55 * SIM_US;
    nscc_on_ack(&s, &p, 60 * SIM_US, 4096, true, 70 * SIM_US, 100000);
    NEAR(s.cwnd, 200000.0 * 0.68 * 0.5);
}

/* A loss takes its bytes off the window and arms quick adapt: at the end of the measurement
 * window the window becomes what was acknowledged in it. */
static void test_nscc_loss_quick_adapt(void)
{
    cfg_nscc c;
    defaults(&c);
    nscc_params p;
    nscc_params_init(&p, &c, 100000000000ULL, 4096);
    nscc_state s;
    nscc_init(&s, &p, 0); /* window ends at 18 us */
    nscc_on_ack(&s, &p, 5 * SIM_US, 4096, false, 10 * SIM_US, 100000);
    nscc_on_ack(&s, &p, 6 * SIM_US, 4096, false, 10 * SIM_US, 100000);
    double w = s.cwnd;
    nscc_on_loss(&s, &p, 7 * SIM_US, 4096, 90000);
    NEAR(s.cwnd, w - 4096);
    CHECK(s.qa_armed);
    nscc_on_ack(&s, &p, 19 * SIM_US, 4096, false, 10 * SIM_US, 80000);
    NEAR(s.cwnd, 3.0 * 4096); /* 12288 bytes acknowledged in the window */
    CHECK(!s.qa_armed);
    NEAR(s.ignore_bytes, 80000.0);
    /* the marks on what was in flight then are ignored */
    nscc_on_ack(&s, &p, 20 * SIM_US, 4096, true, 40 * SIM_US, 80000);
    NEAR(s.cwnd, 3.0 * 4096);
    /* never below one MTU */
    nscc_on_loss(&s, &p, 21 * SIM_US, 1000000, 0);
    NEAR(s.cwnd, 4096.0);
}

/* REPS: clean EVs come back in the order they returned; a marked one is never recycled (it is
 * used again only if a fresh draw picks it); a full buffer drops its oldest. */
static void test_reps(void)
{
    rng g;
    rng_init(&g, 1, 7);
    reps_state r;
    reps_init(&r, 3);
    uint16_t base = 0xC123;
    /* the EV space: `paths` distinct values */
    for (uint32_t i = 0; i < 256; i++)
        for (uint32_t j = 0; j < i; j++)
            CHECK(uet_ev(base, i) != uet_ev(base, j));
    /* empty: explore within the space */
    for (int k = 0; k < 100; k++) {
        uint16_t ev = reps_next(&r, &g, base, 4);
        CHECK(ev == uet_ev(base, 0) || ev == uet_ev(base, 1) || ev == uet_ev(base, 2) ||
              ev == uet_ev(base, 3));
    }
    reps_on_ack(&r, 0x1111, false);
    reps_on_ack(&r, 0x2222, true); /* ECN: not recycled */
    reps_on_ack(&r, 0x3333, false);
    CHECK_EQ_U64(r.count, 2);
    CHECK_EQ_U64(reps_next(&r, &g, base, 65536), 0x1111);
    CHECK_EQ_U64(reps_next(&r, &g, base, 65536), 0x3333);
    CHECK_EQ_U64(r.count, 0);
    /* full: the oldest gives way */
    reps_on_ack(&r, 1, false);
    reps_on_ack(&r, 2, false);
    reps_on_ack(&r, 3, false);
    reps_on_ack(&r, 4, false);
    CHECK_EQ_U64(reps_next(&r, &g, base, 65536), 2);
    CHECK_EQ_U64(reps_next(&r, &g, base, 65536), 3);
    CHECK_EQ_U64(reps_next(&r, &g, base, 65536), 4);
    /* reps_buffer 0: plain spraying, nothing is recycled */
    reps_init(&r, 0);
    reps_on_ack(&r, 5, false);
    CHECK_EQ_U64(r.count, 0);
}

#define INCAST                                                                                     \
    "fabric: {preset: single-switch, servers: 9, gpus_per_server: 1, host_link: 100Gbps,\n"        \
    "         link_latency: 500ns}\n"                                                              \
    "switch: {buffer: 1MiB, trimming: %s, pfc: {enabled: false}}\n"                                \
    "nic: {transport: uet, cc: %s}\n"                                                              \
    "workload: [{name: in, kind: traffic, pattern: incast, size: 1MB, hosts: all}]\n"

static void check_conservation(const run_stats *st)
{
    CHECK_EQ_U64(st->sent_bytes,
                 st->delivered_bytes + st->dropped_bytes + st->trimmed_bytes + st->inflight_bytes);
}

static const run_stats *go(scenario *sc, run **r, const char *yaml)
{
    *r = tl_start(sc, "uet.yaml", yaml, NULL, 0);
    CHECK(*r != NULL);
    if (!*r)
        return NULL;
    run_execute(*r, NULL, NULL);
    return run_result(*r);
}

/* Trimming: nothing is dropped, every trimmed header is NAKed and exactly the trimmed packets
 * are resent (no timeout), so each payload byte reaches the receiver exactly once. */
static void test_incast_trimming(void)
{
    const char *ccs[] = {"nscc", "none"};
    for (int k = 0; k < 2; k++) {
        char y[1024];
        snprintf(y, sizeof y, INCAST, "true", ccs[k]);
        scenario sc;
        run *r;
        const run_stats *st = go(&sc, &r, y);
        if (!st)
            return;
        CHECK(st->jobs[0].completed);
        CHECK_EQ_U64(st->flows_completed, 8);
        for (int d = 0; d < DROP_REASONS; d++)
            CHECK_EQ_U64(st->drops[d], 0);
        CHECK(st->trimmed > 0);
        CHECK_EQ_U64(st->rto_events, 0);
        CHECK_EQ_U64(st->trims_received, st->trimmed);
        CHECK_EQ_U64(st->naks_sent, st->trimmed);
        CHECK_EQ_U64(st->naks_received, st->trimmed);
        CHECK_EQ_U64(st->retransmitted_packets, st->trimmed);
        CHECK_EQ_U64(st->delivered_bytes, 8 * 1000000ULL); /* once each */
        CHECK_EQ_U64(st->trimmed_bytes, st->sent_bytes - st->delivered_bytes);
        check_conservation(st);
        /* per port and per NIC, the same counts */
        uint64_t ports = 0, nics = 0, rtx = 0;
        for (uint32_t i = 0; i < st->n_ports; i++) {
            ports += st->ports[i].trimmed;
            if (st->ports[i].trimmed)
                CHECK_STR(st->ports[i].name, "sw0->h0"); /* only the incast's port trims */
        }
        for (uint32_t h = 0; h < st->n_nics; h++) {
            nics += st->nics[h].trims_received;
            rtx += st->nics[h].retransmitted_packets;
        }
        CHECK_EQ_U64(ports, st->trimmed);
        CHECK_EQ_U64(nics, st->trimmed);
        CHECK_EQ_U64(st->nics[0].trims_received, st->trimmed); /* h0 receives */
        CHECK_EQ_U64(rtx, st->trimmed);
        fprintf(stderr, "  cc %s: %llu trimmed, JCT %.3f us\n", ccs[k],
                (unsigned long long)st->trimmed, (double)st->jobs[0].jct_ps / 1e6);
        run_free(r);
        scenario_free(&sc);
    }
}

/* No trimming: the overflow is dropped and recovered by timeouts; everything still arrives. */
static void test_incast_drops_recovered(void)
{
    char y[1024];
    snprintf(y, sizeof y, INCAST, "false", "none");
    scenario sc;
    run *r;
    const run_stats *st = go(&sc, &r, y);
    if (!st)
        return;
    CHECK(st->jobs[0].completed);
    CHECK(st->drops[DROP_BUFFER_FULL] > 0);
    CHECK_EQ_U64(st->trimmed, 0);
    CHECK_EQ_U64(st->trimmed_bytes, 0);
    CHECK(st->rto_events > 0);
    CHECK(st->delivered_bytes >= 8 * 1000000ULL);
    check_conservation(st);
    run_free(r);
    scenario_free(&sc);
}

/* Messages posted on the transport directly: many, of odd sizes, on 4 QPs per connection into
 * one receiver with trimming; each completes exactly once. */
static uint32_t done_count[64];
static void on_msg(void *ctx, flow *f, uint64_t cookie)
{
    (void)ctx;
    (void)f;
    if (cookie < 64)
        done_count[cookie]++;
}

static void test_messages_exactly_once(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 5, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 512KiB, trimming: true, pfc: {enabled: false}}\n"
        "nic: {transport: uet, qps_per_connection: 4}\n";
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "msgs.yaml", y, strlen(y), NULL, 0, &e) == 0);
    sim s;
    sim_init(&s, sc.seed);
    net *n = net_build(&sc, &s, &e);
    CHECK(n != NULL);
    if (!n) {
        sim_free(&s);
        scenario_free(&sc);
        return;
    }
    CHECK(lb_install(n, &sc, &e) == 0);
    transport *t = transport_new(n, &sc, 4);
    t->on_msg = on_msg;
    memset(done_count, 0, sizeof done_count);
    flow *f[4];
    for (uint32_t i = 0; i < 4; i++)
        f[i] = transport_flow_add(t, 0, i + 1, 0, 0, sc.nic.priority);
    uint64_t posted = 0;
    for (uint64_t c = 0; c < 64; c++) {
        uint64_t bytes = 1 + (c * 7919 * 13) % 300000;
        transport_post(t, f[c % 4], bytes, c);
        posted += bytes;
    }
    sim_run(&s);
    for (int c = 0; c < 64; c++)
        CHECK_EQ_U64(done_count[c], 1);
    uint64_t got = 0;
    for (int i = 0; i < 4; i++)
        got += f[i]->delivered_bytes;
    CHECK_EQ_U64(got, posted);
    CHECK(n->trimmed_packets > 0);
    CHECK_EQ_U64(t->sent_payload_bytes, t->delivered_payload_bytes + n->dropped_payload_bytes +
                                            n->trimmed_payload_bytes +
                                            net_inflight_payload(n, NULL));
    fprintf(stderr, "  64 messages, %llu trimmed, %llu retransmitted\n",
            (unsigned long long)n->trimmed_packets, (unsigned long long)t->retransmitted_packets);
    sim_free(&s);
    transport_free(t);
    net_free(n);
    scenario_free(&sc);
}

/* A permutation on a leaf-spine under ECMP: each packet's entropy picks its path, so one
 * connection uses several uplinks and packets arrive out of order; all complete, nothing lost. */
static void test_permutation_sprays(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "switch: {trimming: true, pfc: {enabled: false}}\n"
        "nic: {transport: uet}\n"
        "workload: [{name: p, kind: traffic, pattern: permutation, size: 2MB}]\n";
    scenario sc;
    run *r;
    const run_stats *st = go(&sc, &r, y);
    if (!st)
        return;
    CHECK(st->jobs[0].completed);
    CHECK_EQ_U64(st->flows_completed, 16);
    for (int d = 0; d < DROP_REASONS; d++)
        CHECK_EQ_U64(st->drops[d], 0);
    CHECK_EQ_U64(st->retransmitted_packets, st->trimmed);
    CHECK(st->out_of_sequence > 0);
    check_conservation(st);
    uint32_t used = 0;
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (!strncmp(st->ports[i].name, "leaf0->spine", 12) && st->ports[i].tx_bytes > 100000)
            used++;
    CHECK(used >= 3);
    fprintf(stderr, "  permutation: JCT %.3f us, %u uplinks of leaf0 used, %llu reordered\n",
            (double)st->jobs[0].jct_ps / 1e6, used, (unsigned long long)st->out_of_sequence);
    run_free(r);
    scenario_free(&sc);
}

static void test_determinism(void)
{
    char y[1024];
    snprintf(y, sizeof y, INCAST, "true", "nscc");
    run_stats a, b;
    sim_time fa[8], fb[8];
    for (int k = 0; k < 2; k++) {
        scenario sc;
        run *r;
        const run_stats *st = go(&sc, &r, y);
        if (!st)
            return;
        run_stats *dst = k ? &b : &a;
        *dst = *st;
        for (int i = 0; i < 8; i++)
            (k ? fb : fa)[i] = st->flows[i].end_ps;
        run_free(r);
        scenario_free(&sc);
    }
    CHECK_EQ_U64(a.events, b.events);
    CHECK_EQ_U64(a.end_ps, b.end_ps);
    CHECK_EQ_U64(a.trimmed, b.trimmed);
    CHECK_EQ_U64(a.ecn_marked, b.ecn_marked);
    CHECK_EQ_U64(a.out_of_sequence, b.out_of_sequence);
    CHECK(memcmp(fa, fb, sizeof fa) == 0);
}

/* `check` under UET: PFC off is UET's design (pass with trimming, warn without: drops then wait
 * for the RTO), not RoCE's lossy misconfiguration. */
static enum check_status pfc_item(const char *yaml)
{
    scenario sc;
    sim s;
    err e;
    err_clear(&e);
    enum check_status st = CHECK_FAIL;
    CHECK(config_load_buffer(&sc, "c.yaml", yaml, strlen(yaml), NULL, 0, &e) == 0);
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    CHECK(n != NULL);
    if (n) {
        check_report r;
        check_fabric(n, &r);
        bool found = false;
        for (uint32_t i = 0; i < r.n_items; i++)
            if (!strcmp(r.items[i].name, "pfc_lossless_class")) {
                st = r.items[i].status;
                found = true;
                if (sc.nic.transport == TRANSPORT_UET)
                    CHECK(strstr(r.items[i].detail, "UET") != NULL);
            }
        CHECK(found);
        net_free(n);
    }
    sim_free(&s);
    scenario_free(&sc);
    return st;
}

static void test_check_lossy_uet(void)
{
    static const char fab[] = "fabric: {preset: single-switch, servers: 4, gpus_per_server: 1}\n";
    char y[512];
    snprintf(y, sizeof y,
             "%sswitch: {trimming: true, pfc: {enabled: false}}\n"
             "nic: {transport: uet}\n",
             fab);
    CHECK(pfc_item(y) == CHECK_PASS);
    snprintf(y, sizeof y, "%sswitch: {pfc: {enabled: false}}\nnic: {transport: uet}\n", fab);
    CHECK(pfc_item(y) == CHECK_WARN);
    snprintf(y, sizeof y, "%sswitch: {pfc: {enabled: false}}\n", fab); /* RoCEv2: as before */
    CHECK(pfc_item(y) == CHECK_WARN);
}

int main(void)
{
    TEST_RUN(test_nscc_params);
    TEST_RUN(test_nscc_increase);
    TEST_RUN(test_nscc_decrease);
    TEST_RUN(test_nscc_loss_quick_adapt);
    TEST_RUN(test_reps);
    TEST_RUN(test_incast_trimming);
    TEST_RUN(test_incast_drops_recovered);
    TEST_RUN(test_messages_exactly_once);
    TEST_RUN(test_permutation_sprays);
    TEST_RUN(test_determinism);
    TEST_RUN(test_check_lossy_uet);
    return tl_finish();
}
