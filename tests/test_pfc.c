/*
 * test_pfc.c — PFC (IEEE 802.1Qbb) on packet runs: a lossless incast never drops and pauses its
 * senders; a lossy one drops; headroom below the in-flight bytes loses exactly where the model
 * says; the watchdog catches a PFC storm within `detect`; a cyclic buffer dependency deadlocks
 * and is reported with its cycle.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "core/time.h"
#include "net/net.h"
#include "net/packet.h"
#include "report/summary.h"
#include "telemetry/telemetry.h"
#include "testlib.h"
#include "workload/run.h"

static run *start(scenario *sc, const char *yaml)
{
    return tl_start(sc, "pfc.yaml", yaml, NULL, 0);
}

static const port_record *port_named(const run_stats *st, const char *name)
{
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (strcmp(st->ports[i].name, name) == 0)
            return &st->ports[i];
    return NULL;
}

static uint64_t all_drops(const run_stats *st)
{
    uint64_t d = 0;
    for (int r = 0; r < DROP_REASONS; r++)
        d += st->drops[r];
    return d;
}

static void pause_balance(const run_stats *st)
{
    /* every PAUSE sent arrives (links are up): sent by one side = received by the other */
    uint64_t sent = 0, rx = 0;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        sent += st->ports[i].pfc_pause_sent;
        rx += st->ports[i].pfc_pause_rx;
    }
    CHECK_EQ_U64(sent, rx);
    CHECK_EQ_U64(sent, st->pfc_pause_sent);
}

static void test_lossless_incast(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 2MiB}\n"
        "nic: {cc: none}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 4MB}]\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(all_drops(st), 0);
    CHECK_EQ_U64(st->flows_completed, 7);
    CHECK_EQ_U64(st->delivered_bytes, 7ull * 4000000);
    CHECK(st->pfc_pause_sent > 0);
    CHECK(st->pfc_paused_ps > 0);
    pause_balance(st);
    /* the switch paused the senders (its ports towards h1..h7), never the receiver */
    const port_record *to_h1 = port_named(st, "sw0->h1"), *h1 = port_named(st, "h1->sw0");
    CHECK(to_h1 && to_h1->pfc_pause_sent > 0);
    CHECK(h1 && h1->pfc_pause_rx == to_h1->pfc_pause_sent && h1->pfc_paused_ps > 0);
    CHECK(port_named(st, "sw0->h0")->pfc_pause_sent == 0);
    /* lossless and work-conserving: the receiver link stays busy, the job takes the receiver
     * link's serialization of all 7 x 977 frames, plus less than a few microseconds */
    sim_time floor = 7 * (sim_ser_time(4000000 + 977ull * 82 + 16, 100000000000ull));
    CHECK(st->jobs[0].jct_ps >= floor);
    CHECK(st->jobs[0].jct_ps < floor + 10 * SIM_US);
    run_free(r);
    scenario_free(&sc);
}

static void test_lossy_incast_drops(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 2MiB, pfc: {enabled: false}}\n"
        "nic: {cc: none}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 4MB}]\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->drops[DROP_BUFFER_FULL] > 0);
    CHECK(st->retransmitted_packets > 0);
    CHECK_EQ_U64(st->flows_completed, 7);
    CHECK_EQ_U64(st->pfc_pause_sent, 0);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    run_free(r);
    scenario_free(&sc);
}

/*
 * Headroom, worst case. NIC 0 pauses its switch port for good (a PFC storm, watchdog off for the
 * run) while h1 sends to it, so nothing of h1's ever leaves the switch: h1's ingress fills the
 * shared pool up to a fixed XOFF and then the headroom takes exactly what arrives after the
 * XOFF decision — nothing drains it. h2 sends to h1 at the same time, so the switch is sending
 * maximum frames back towards h1 when it decides XOFF (the PAUSE waits for the frame in
 * progress); h1 acknowledges only at the end of the message, so its uplink carries data alone. The
 * largest headroom use over a few XOFF values (different phases) must reach the auto headroom
 * within one maximum frame, never pass it, and a headroom a tenth below it loses lossless frames,
 * counted as pfc_headroom.
 */
typedef struct hdrm_result {
    uint64_t peak, reserved, drops_headroom, drops_other, pauses;
    char text[4096];
} hdrm_result;

static void headroom_case(const char *headroom, uint64_t b_start_ns, hdrm_result *o)
{
    char y[1024];
    snprintf(
        y, sizeof y,
        "stop_at: 12us\n"
        "fabric: {preset: single-switch, servers: 3, gpus_per_server: 1, host_link: 400Gbps,\n"
        "         cable_length: 100m, switch_latency: 600ns}\n"
        "switch: {buffer: 16MiB, ecn: {enabled: false},\n"
        "         pfc: {xoff: 100KB, headroom: %s, watchdog: {detect: 1s}}}\n"
        "nic: {cc: none, ack_every: 65536}\n"
        "workload:\n"
        "  - {name: a, kind: traffic, pattern: incast, hosts: [0, 1], size: 8MB}\n"
        "  - {name: b, kind: traffic, pattern: incast, hosts: [1, 2], size: 8MB, start: %lluns}\n"
        "faults: [{at: 0s, kind: pfc-storm, nic: 0}]\n",
        headroom, (unsigned long long)b_start_ns);
    memset(o, 0, sizeof *o);
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const net *n = run_telemetry(r)->net;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        char name[48];
        net_port_name(n->ports[i], name, sizeof name);
        if (strcmp(name, "sw0->h1") == 0) {
            o->peak = n->ports[i]->hdrm_peak_bytes;
            o->reserved = n->ports[i]->hdrm_bytes;
        }
    }
    o->drops_headroom = st->drops[DROP_PFC_HEADROOM];
    o->drops_other = all_drops(st) - o->drops_headroom;
    o->pauses = port_named(st, "sw0->h1")->pfc_pause_sent;
    CHECK_EQ_U64(port_named(st, "sw0->h1")->drops[DROP_PFC_HEADROOM], o->drops_headroom);
    FILE *f = fmemopen(o->text, sizeof o->text - 1, "w");
    if (f) {
        summary_write_text(f, &sc, st, NULL, 0);
        fclose(f);
    }
    run_free(r);
    scenario_free(&sc);
}

static void test_headroom(void)
{
    uint64_t rate = 400000000000ull;
    sim_time prop = 100 * 5 * SIM_NS; /* 100 m at 5 ns/m */
    uint32_t max_frame = 4096 + 62 + 16; /* MTU + RoCEv2 headers + RETH */
    /* auto, term by term: the XOFF frame, the switch's frame in progress and the PAUSE, the
     * round trip (2 cables, the switch's pipeline; a host adds none) and 905 pause quanta of
     * response at line rate, the sender's last frame */
    uint64_t autoh = net_pfc_headroom_auto(rate, 2 * prop + 600 * SIM_NS, max_frame);
    uint64_t rtt_resp_bytes = (2 * 500000ull + 600000 + 1158400) * 50 / 1000; /* ps at 50 B/ns */
    CHECK_EQ_U64(net_pfc_response_ps(rate), 1158400); /* 463,360 bit times at 400G */
    CHECK_EQ_U64(autoh, max_frame + rtt_resp_bytes + 1 + 2 * (max_frame + 20) + 84);
    uint64_t worst = 0;
    /* h2's frames towards h1 start at 42 phases 2 ns apart across one frame time (83.56 ns):
     * the PAUSE waits from nothing to almost a whole frame, and where that wait and h1's frame
     * grid line up worst, one more frame gets in (only a 2.5 ns window of phases does it) */
    for (uint64_t k = 0; k < 42; k++) {
        hdrm_result o;
        headroom_case("auto", k * 2, &o);
        if (o.peak > worst || k == 0)
            fprintf(stderr,
                    "  auto headroom %llu B, reverse frames +%llu ns: peak %llu B "
                    "(auto - peak = %lld), %llu pauses, %llu drops\n",
                    (unsigned long long)o.reserved, (unsigned long long)(k * 2),
                    (unsigned long long)o.peak, (long long)(o.reserved - o.peak),
                    (unsigned long long)o.pauses,
                    (unsigned long long)(o.drops_headroom + o.drops_other));
        CHECK_EQ_U64(o.reserved, autoh);
        CHECK(o.peak <= autoh);
        CHECK_EQ_U64(o.drops_headroom + o.drops_other, 0);
        CHECK(o.pauses > 0);
        if (o.peak > worst)
            worst = o.peak;
    }
    /* auto is not padded: the worst case comes within one frame of it (frames are whole; the
     * buffer holds frame bytes, the formula counts line bytes) */
    CHECK(worst + max_frame + 20 > autoh);

    /* a tenth below auto: lossless frames are lost, under their own reason, and said */
    char h[32];
    snprintf(h, sizeof h, "%llu", (unsigned long long)(autoh * 9 / 10));
    hdrm_result o;
    headroom_case(h, 0, &o);
    fprintf(stderr, "  headroom %s B: %llu pfc_headroom drops\n", h,
            (unsigned long long)o.drops_headroom);
    CHECK(o.drops_headroom > 0);
    CHECK_EQ_U64(o.drops_other, 0);
    CHECK(strstr(o.text, "pfc_headroom") != NULL);
    CHECK(strstr(o.text, "drops      none") == NULL);
}

/* Queue depth seen at each frame start on one port, after a warm-up time. */
typedef struct qwatch {
    const port *watch;
    sim_time from;
    uint64_t min_q, max_q, frames;
} qwatch;

static void qwatch_tap(void *ctx, const port *p, const packet *pkt, sim_time t)
{
    qwatch *w = ctx;
    (void)pkt;
    if (p != w->watch || t < w->from)
        return;
    uint64_t q = p->q_total_bytes - (pkt->kind == PKT_PAUSE ? 0 : pkt->frame_bytes);
    if (q < w->min_q)
        w->min_q = q;
    if (q > w->max_q)
        w->max_q = q;
    w->frames++;
}

/*
 * Steady 2-to-1 lossless overload at 100G, no congestion control, a fixed XOFF of 200 KB per
 * ingress, SONiC's xon 18432 / xon_offset 2496. Each ingress pauses when it holds 200 KB in
 * the shared pool; the headroom takes the in-flight bytes and, being released first as the
 * ingress's frames leave (at half the line rate: the port is shared), is empty again after
 * the in-flight bytes have drained, and RESUME goes when the ingress is xon_offset under XOFF.
 * So each ingress swings between about XOFF − (what drains while RESUME travels and the first
 * frame comes back) and XOFF + headroom: the bottleneck queue never empties, and a pause lasts
 * about (headroom used + xon_offset) / (line rate / 2).
 */
static void test_pause_oscillation(void)
{
    static const char y[] =
        "stop_at: 300us\n"
        "fabric: {preset: single-switch, servers: 3, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 16MiB, ecn: {enabled: false}, pfc: {xoff: 200KB}}\n"
        "nic: {cc: none}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 64MB}]\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    net *n = run_telemetry(r)->net;
    qwatch w = {NULL, 50 * SIM_US, UINT64_MAX, 0, 0};
    const port *to_h1 = NULL;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        char name[48];
        net_port_name(n->ports[i], name, sizeof name);
        if (!strcmp(name, "sw0->h0"))
            w.watch = n->ports[i];
        if (!strcmp(name, "sw0->h1"))
            to_h1 = n->ports[i];
    }
    n->tap = qwatch_tap;
    n->tap_ctx = &w;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const port_record *h1 = port_named(st, "h1->sw0"), *s1 = port_named(st, "sw0->h1");
    const port_record *bn = port_named(st, "sw0->h0");
    uint64_t hdrm = to_h1->hdrm_bytes, peak = to_h1->hdrm_peak_bytes;
    double mean_pause_us =
        s1->pfc_pause_sent ? (double)h1->pfc_paused_ps / 1e6 / (double)s1->pfc_pause_sent : 0.0;
    /* h1 is paused from the moment its PAUSE applies until the RESUME reaches it: the last
     * frames it sent land (h1->sw0: 1 us cable + 600 ns pipeline), the ingress drains the
     * headroom they filled plus xon_offset at half of 100G (6.25 B/ns), and the RESUME crosses
     * back (1 us cable, 6.72 ns of PFC frame) */
    double expect_us = 1.6 + (double)(peak + 2496) / 6.25 / 1000.0 + 1.00672;
    fprintf(stderr,
            "  queue after 50 us: %llu..%llu B; h1 paused %llu times, mean %.2f us (headroom "
            "%llu of %llu B used: expected %.2f us); bottleneck util %.4f\n",
            (unsigned long long)w.min_q, (unsigned long long)w.max_q,
            (unsigned long long)s1->pfc_pause_sent, mean_pause_us, (unsigned long long)peak,
            (unsigned long long)hdrm, expect_us, bn->utilization);
    CHECK_EQ_U64(all_drops(st), 0);
    CHECK(s1->pfc_pause_sent > 10); /* it does oscillate */
    /* never empty, never past both ingresses' XOFF + headroom */
    CHECK(w.min_q >= 2 * 200000 - 64000);
    CHECK(w.max_q <= 2 * (200000 + hdrm));
    /* pauses last what the thresholds imply: no longer than with the largest headroom use,
     * and within one frame's drain (4158 B at 6.25 B/ns = 0.67 us) of it */
    CHECK(mean_pause_us <= expect_us + 0.01);
    CHECK(mean_pause_us >= expect_us - 0.7);
    /* work-conserving: the bottleneck serialized for the whole run but its first microseconds */
    CHECK(bn->utilization > 0.99);
    /* stopped under frames in progress: busy time counts only what was serialized by then */
    for (uint32_t i = 0; i < st->n_ports; i++)
        CHECK(st->ports[i].utilization <= 1.0);
    pause_balance(st);
    run_free(r);
    scenario_free(&sc);
}

static void test_watchdog_storm(void)
{
    /* NIC 0 pauses its leaf from t = 0 while hosts 1..3 send to it: the PAUSE (84 B of line at
     * 100G, 6.72 ns) crosses the 1 us cable and the leaf's queue towards h0 stops starting
     * frames 802.3's response delay later (394 quanta = 201,728 bit times = 2.01728 us at
     * 100G), at 3.024 us, and stays paused; the watchdog declares a storm `detect` later and
     * drains it. */
    const sim_time paused_from = 6720 + SIM_US + 600 * SIM_NS + 2017280; /* + pipeline */
    CHECK_EQ_U64(net_pfc_response_ps(100000000000ull), 2017280);
    static const char base[] =
        "stop_at: %s\n"
        "fabric: {preset: single-switch, servers: 4, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 4MiB, pfc: {watchdog: {detect: 1ms, restore: 2ms}}}\n"
        "nic: {cc: none}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 4MB}]\n"
        "faults: [{at: 0s, kind: pfc-storm, nic: 0, duration: 5ms}]\n";
    const char *stops[] = {"1000us", "1004us", "20ms"};
    for (int k = 0; k < 3; k++) {
        char y[1024];
        snprintf(y, sizeof y, base, stops[k]);
        scenario sc;
        run *r = start(&sc, y);
        CHECK(r != NULL);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        const port_record *q = port_named(st, "sw0->h0");
        fprintf(stderr, "  stop %s: watchdog events %llu, wd drops %llu, paused %.3f ms\n",
                stops[k], (unsigned long long)st->pfc_watchdog_events,
                (unsigned long long)st->drops[DROP_PFC_WATCHDOG], (double)q->pfc_paused_ps / 1e9);
        if (k == 0) {
            CHECK_EQ_U64(st->pfc_watchdog_events, 0); /* not before detect */
            CHECK_EQ_U64(q->pfc_paused_ps, 1000 * SIM_US - paused_from);
        } else {
            CHECK_EQ_U64(st->pfc_watchdog_events, 1); /* once, at detect */
            CHECK_EQ_U64(q->wd_events, 1);
            CHECK(st->drops[DROP_PFC_WATCHDOG] > 0);
            CHECK(q->drops[DROP_PFC_WATCHDOG] == st->drops[DROP_PFC_WATCHDOG]);
            /* paused only until the watchdog stepped in */
            CHECK_EQ_U64(q->pfc_paused_ps, 1000 * SIM_US);
        }
        if (k == 2) {
            /* the storm ended at 5 ms: the network drained, nothing is queued any more */
            CHECK_EQ_U64(st->inflight_bytes, 0);
            CHECK_EQ_U64(st->sent_bytes,
                         st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
        }
        run_free(r);
        scenario_free(&sc);
    }
}

static void test_ring_deadlock(void)
{
    /* Five switches in a ring, a host on each; every host sends to the host two switches
     * clockwise, so each ring link carries two flows and each switch's ring egress holds frames
     * that wait for the next switch's: a cyclic buffer dependency. Under PFC it freezes. */
    static const char y[] =
        "fabric:\n"
        "  preset: custom\n"
        "  host_link: 100Gbps\n"
        "  fabric_link: 100Gbps\n"
        "  custom:\n"
        "    switches: [{name: s0}, {name: s1}, {name: s2}, {name: s3}, {name: s4}]\n"
        "    hosts: [{name: h0}, {name: h1}, {name: h2}, {name: h3}, {name: h4}]\n"
        "    links:\n"
        "      - {a: h0, b: s0}\n      - {a: h1, b: s1}\n      - {a: h2, b: s2}\n"
        "      - {a: h3, b: s3}\n      - {a: h4, b: s4}\n"
        "      - {a: s0, b: s1}\n      - {a: s1, b: s2}\n      - {a: s2, b: s3}\n"
        "      - {a: s3, b: s4}\n      - {a: s4, b: s0}\n"
        "switch: {buffer: 1MiB, ecn: {enabled: false}, pfc: {deadlock_detect: 1ms}}\n"
        "workload:\n"
        "  - {name: a, kind: traffic, pattern: incast, hosts: [2, 0], size: 64MB}\n"
        "  - {name: b, kind: traffic, pattern: incast, hosts: [3, 1], size: 64MB}\n"
        "  - {name: c, kind: traffic, pattern: incast, hosts: [4, 2], size: 64MB}\n"
        "  - {name: d, kind: traffic, pattern: incast, hosts: [0, 3], size: 64MB}\n"
        "  - {name: e, kind: traffic, pattern: incast, hosts: [1, 4], size: 64MB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    fprintf(stderr, "  deadlock %d at %.3f ms: %s\n", st->deadlock, (double)st->deadlock_at_ps / 1e9,
            st->deadlock_cycle);
    CHECK(st->deadlock);
    CHECK(strstr(st->deadlock_cycle, "priority 3: ") == st->deadlock_cycle);
    /* the cycle runs around the ring: every ring hop appears */
    int hops = 0;
    const char *ring[] = {"s0->s1", "s1->s2", "s2->s3", "s3->s4", "s4->s0"};
    for (int i = 0; i < 5; i++)
        hops += strstr(st->deadlock_cycle, ring[i]) != NULL;
    CHECK(hops == 5);
    CHECK(st->flows_completed < 5);
    CHECK_EQ_U64(all_drops(st), 0); /* lossless to the end: frozen, not dropping */
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    run_free(r);
    scenario_free(&sc);
}

static void test_no_deadlock_in_clos(void)
{
    /* The same load on an up-down Clos never forms a cycle. */
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "switch: {buffer: 1MiB, ecn: {enabled: false}, pfc: {deadlock_detect: 200us}}\n"
        "workload: [{name: a, kind: traffic, pattern: all-to-all, size: 256KB}]\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(!st->deadlock);
    CHECK(st->pfc_pause_sent > 0);
    CHECK_EQ_U64(all_drops(st), 0);
    CHECK_EQ_U64(st->flows_completed, st->n_flows);
    pause_balance(st);
    run_free(r);
    scenario_free(&sc);
}

static void ecn_pfc_case(const char *cc, uint64_t *pauses, uint64_t *paused_ps, uint64_t *marks)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps}\n"
             "switch: {buffer: 16MiB}\n"
             "nic: {cc: %s}\n"
             "workload: [{name: in, kind: traffic, pattern: incast, size: 16MB}]\n",
             cc);
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(all_drops(st), 0);
    CHECK_EQ_U64(st->flows_completed, 7);
    *pauses = st->pfc_pause_sent;
    *paused_ps = st->pfc_paused_ps;
    *marks = st->ecn_marked;
    fprintf(stderr, "  cc %-5s: %llu PAUSE frames, %.1f us paused, %llu ECN marks, JCT %.3f ms\n",
            cc, (unsigned long long)*pauses, (double)*paused_ps / 1e6,
            (unsigned long long)*marks, (double)st->jobs[0].jct_ps / 1e9);
    run_free(r);
    scenario_free(&sc);
}

static void test_ecn_before_pfc(void)
{
    /* With sane thresholds (Kmax 400 KB far below XOFF) DCQCN holds the incast's queue down, so
     * PFC stays an emergency brake; without congestion control PFC does all the work. */
    uint64_t p_dc, t_dc, m_dc, p_none, t_none, m_none;
    ecn_pfc_case("dcqcn", &p_dc, &t_dc, &m_dc);
    ecn_pfc_case("none", &p_none, &t_none, &m_none);
    CHECK(m_dc > 0);
    CHECK(p_none > 0);
    CHECK(p_dc * 10 <= p_none);
    CHECK(t_dc * 10 <= t_none);
}

int main(void)
{
    TEST_RUN(test_lossless_incast);
    TEST_RUN(test_lossy_incast_drops);
    TEST_RUN(test_headroom);
    TEST_RUN(test_pause_oscillation);
    TEST_RUN(test_watchdog_storm);
    TEST_RUN(test_ecn_before_pfc);
    TEST_RUN(test_ring_deadlock);
    TEST_RUN(test_no_deadlock_in_clos);
    return tl_finish();
}
