/*
 * test_rccc.c — UET receiver credits (nic.uet.rccc, transport/uet.h "Receiver credits"). An
 * incast under RCCC: the receiver's switch port never holds more than the senders' unsolicited
 * windows (bound computed from the parameters), nothing is dropped or trimmed, bytes are
 * conserved, the credit pacer never grants faster than the receiver's line, the incast finishes
 * near line rate, the same seed gives the same run; RCCC without UET is refused.
 */
#include <math.h>
#include <string.h>

#include "config/config.h"
#include "core/err.h"
#include "core/sim.h"
#include "lb/lb.h"
#include "net/net.h"
#include "net/packet.h"
#include "testlib.h"
#include "transport/nic.h"
#include "transport/uet.h"
#include "workload/run.h"

#define SENDERS 8
#define INCAST                                                                                     \
    "fabric: {preset: single-switch, servers: 9, gpus_per_server: 1, host_link: 100Gbps,\n"        \
    "         link_latency: 500ns}\n"                                                              \
    "switch: {buffer: 1MiB, trimming: true, pfc: {enabled: false}}\n"                              \
    "nic: {transport: uet, cc: %s, mtu: 4096, uet: {rccc: %s, unsolicited: 64KiB}}\n"              \
    "workload: [{name: in, kind: traffic, pattern: incast, size: 1MB, hosts: all}]\n"

static const run_stats *go(scenario *sc, run **r, const char *yaml)
{
    *r = tl_start(sc, "rccc.yaml", yaml, NULL, 0);
    CHECK(*r != NULL);
    if (!*r)
        return NULL;
    run_execute(*r, NULL, NULL);
    return run_result(*r);
}

static void test_incast_bounded(void)
{
    const char *ccs[] = {"none", "nscc"};
    for (int k = 0; k < 2; k++) {
        char y[1024];
        snprintf(y, sizeof y, INCAST, ccs[k], "true");
        scenario sc;
        run *r;
        const run_stats *st = go(&sc, &r, y);
        if (!st)
            return;
        CHECK(st->jobs[0].completed);
        CHECK_EQ_U64(st->flows_completed, SENDERS);
        for (int d = 0; d < DROP_REASONS; d++)
            CHECK_EQ_U64(st->drops[d], 0);
        CHECK_EQ_U64(st->trimmed, 0);
        CHECK_EQ_U64(st->rto_events, 0);
        CHECK_EQ_U64(st->retransmitted_packets, 0);
        CHECK_EQ_U64(st->delivered_bytes, SENDERS * 1000000ULL);
        CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->trimmed_bytes +
                                         st->inflight_bytes);
        /* the unsolicited window: ⌈64 KiB / 4096⌉ = 16 full packets per sender */
        uint64_t unsol_pkts = (65536 + 4095) / 4096;
        uint64_t full = wire_data_frame(4096, 0), first = wire_data_frame(4096, 1);
        uint64_t maxq = 0;
        for (uint32_t i = 0; i < st->n_ports; i++)
            if (!strcmp(st->ports[i].name, "sw0->h0"))
                maxq = st->ports[i].max_queue_bytes;
        transport *t = run_net_mut(r)->host_ctx;
        const rccc_port *rp = &t->rccc_ports[0 * NIC_PORTS + 0]; /* h0's fabric port */
        /* bound: every sender's unsolicited window (its first packet carries the RETH) plus
         * one frame of credited data (a credited packet that lands while the last one of the
         * burst is still queued); the paced credits bring data no faster than the port drains */
        uint64_t bound = SENDERS * (first + (unsol_pkts - 1) * full) + full;
        fprintf(stderr,
                "  cc %s: receiver queue max %llu B (bound %llu), %llu grants, JCT %.3f us\n",
                ccs[k], (unsigned long long)maxq, (unsigned long long)bound,
                (unsigned long long)rp->grants, (double)st->jobs[0].jct_ps / 1e6);
        /* no connection reopened its window: the bound counts one window per sender */
        for (uint64_t q = 0; q < t->n_qps; q++)
            CHECK_EQ_U64(t->uet_qps[q].unsol_windows, 1);
        CHECK(maxq > 0);
        CHECK(maxq <= bound);
        /* credits: every packet beyond the unsolicited windows was credited exactly once */
        uint64_t pkts = (1000000 + 4095) / 4096;
        CHECK_EQ_U64(rp->grants, SENDERS * (pkts - unsol_pkts));
        /* never faster than the line: n grants span at least n − 1 intervals, and an interval
         * is one full-MTU frame's line time at 100 Gb/s, rounded up */
        uint64_t line_bits = (full + WIRE_LINE_EXTRA) * 8;
        CHECK_EQ_U64(rp->interval_ps, (line_bits * SIM_S + 100000000000ull - 1) / 100000000000ull);
        CHECK(rp->last_ps - rp->first_ps >= (rp->grants - 1) * rp->interval_ps);
        CHECK(rp->min_gap_ps >= rp->interval_ps); /* no two grants closer than one frame */
        /* near line rate: within 5 % of the serialization of every data frame at 100 Gb/s */
        double ideal_ps = 0;
        ideal_ps = (double)SENDERS *
                   ((double)(first + WIRE_LINE_EXTRA) +
                    (double)(pkts - 2) * (double)(full + WIRE_LINE_EXTRA) +
                    (double)(wire_data_frame(1000000 - (uint32_t)(pkts - 1) * 4096, 0) +
                             WIRE_LINE_EXTRA)) *
                   8.0 / 100e9 * 1e12;
        fprintf(stderr, "  cc %s: line-rate ideal %.3f us\n", ccs[k], ideal_ps / 1e6);
        CHECK((double)st->jobs[0].jct_ps <= 1.05 * ideal_ps);
        CHECK((double)st->jobs[0].jct_ps >= ideal_ps);
        run_free(r);
        scenario_free(&sc);
    }
}

/* Without RCCC the same incast builds a deeper queue (it overflows and trims): the bound above is
 * the credits' doing. */
static void test_without_rccc_deeper(void)
{
    char z[1024];
    snprintf(z, sizeof z, INCAST, "none", "false");
    scenario sc;
    run *r;
    const run_stats *st = go(&sc, &r, z);
    if (!st)
        return;
    CHECK(st->jobs[0].completed);
    CHECK(st->trimmed > 0);
    run_free(r);
    scenario_free(&sc);
}

/* Messages posted on the transport directly, 4 QPs per connection, odd sizes, in two rounds: the
 * second round is posted after everything went idle, so blocked connections open fresh
 * unsolicited windows; every message completes exactly once and no QP is credited beyond what
 * it posted. */
static uint32_t done_count[64];
static void on_msg(void *ctx, flow *f, uint64_t cookie)
{
    (void)ctx;
    (void)f;
    if (cookie < 64)
        done_count[cookie]++;
}

static void test_messages_two_rounds(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 5, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 512KiB, trimming: true, pfc: {enabled: false}}\n"
        "nic: {transport: uet, qps_per_connection: 4, uet: {rccc: true, unsolicited: 10KB}}\n";
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
    for (int round = 0; round < 2; round++) {
        for (uint64_t c = (uint64_t)round * 32; c < (uint64_t)round * 32 + 32; c++) {
            uint64_t bytes = 1 + (c * 7919 * 13) % 300000;
            transport_post(t, f[c % 4], bytes, c);
            posted += bytes;
        }
        sim_run(&s);
    }
    for (int c = 0; c < 64; c++)
        CHECK_EQ_U64(done_count[c], 1);
    uint64_t got = 0, reopened = 0;
    for (int i = 0; i < 4; i++)
        got += f[i]->delivered_bytes;
    CHECK_EQ_U64(got, posted);
    for (uint64_t q = 0; q < t->n_qps; q++) {
        const uet_qp *u = &t->uet_qps[q];
        CHECK(u->grant_end <= t->qps[q].n_pkts + u->unsol_pkts);
        CHECK(u->credit_end <= t->qps[q].n_pkts);
        reopened += u->unsol_windows > 1;
    }
    CHECK(reopened > 0);
    CHECK_EQ_U64(t->sent_payload_bytes, t->delivered_payload_bytes + n->dropped_payload_bytes +
                                            n->trimmed_payload_bytes +
                                            net_inflight_payload(n, NULL));
    fprintf(stderr, "  64 messages in 2 rounds: %llu QPs reopened an unsolicited window\n",
            (unsigned long long)reopened);
    sim_free(&s);
    transport_free(t);
    net_free(n);
    scenario_free(&sc);
}

static void test_determinism(void)
{
    char y[1024];
    snprintf(y, sizeof y, INCAST, "nscc", "true");
    run_stats a, b;
    sim_time fa[SENDERS], fb[SENDERS];
    for (int k = 0; k < 2; k++) {
        scenario sc;
        run *r;
        const run_stats *st = go(&sc, &r, y);
        if (!st)
            return;
        *(k ? &b : &a) = *st;
        for (int i = 0; i < SENDERS; i++)
            (k ? fb : fa)[i] = st->flows[i].end_ps;
        run_free(r);
        scenario_free(&sc);
    }
    CHECK_EQ_U64(a.events, b.events);
    CHECK_EQ_U64(a.end_ps, b.end_ps);
    CHECK(memcmp(fa, fb, sizeof fa) == 0);
}

int main(void)
{
    TEST_RUN(test_incast_bounded);
    TEST_RUN(test_without_rccc_deeper);
    TEST_RUN(test_messages_two_rounds);
    TEST_RUN(test_determinism);
    return tl_finish();
}
