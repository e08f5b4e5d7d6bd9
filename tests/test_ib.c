/*
 * test_ib.c — the InfiniBand link layer (fabric.link_layer infiniband; net.h "InfiniBand"):
 * a sender stalls exactly when the next hop's VL buffer is full and starts again exactly when
 * the credit update (FCP) for the first freed frame arrives, computed by hand; an incast that
 * drops on a lossy Ethernet fabric never drops on IB and never holds more than a VL buffer per
 * input port; bytes are conserved; a rerun is identical; IB congestion control (FECN/BECN)
 * frees the victim of a hot spot and lowers the hot port's queue against CC off; a cyclic
 * route deadlocks on credits and is reported as such; adaptive routing runs lossless on IB.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "core/time.h"
#include "net/net.h"
#include "net/packet.h"
#include "plan/check.h"
#include "report/diagnose.h"
#include "testlib.h"
#include "workload/run.h"

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

/* Every port's receive buffer stayed within its VL size (the switch asserts it per frame too). */
static void peaks_within_buffers(const run_stats *st)
{
    for (uint32_t i = 0; i < st->n_ports; i++)
        CHECK(st->ports[i].ib_peak_bytes <= st->ports[i].ib_vl_buffer_bytes);
}

/*
 * h1 -> sw0 -> h0, 100G, 1 us cables, 500 ns pipeline, one 12 KiB WRITE (3 packets: 4174 B with
 * the RETH = 66 credits, then 4158 B = 65 credits) and VL buffers of exactly 131 credits. The
 * first two frames fill the switch's input buffer; the third waits from the end of the second
 * (s1 + s2) until the FCP for the first arrives: the first frame reaches the switch after s1 +
 * prop + pipeline, leaves it after another s1 (store-and-forward, idle egress), and the FCP
 * then takes its own 6 bytes of serialization and the cable back: T1 = 2 s1 + 2 prop + pipe + f.
 * The third frame starts at T1 and reaches h0 at T1 + 2 s2 + 2 prop + pipe (h0's own credits
 * are back long before).
 */
static void test_stall_timing(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 100Gbps,\n"
        "         link_latency: 1us, switch_latency: 500ns, link_layer: infiniband,\n"
        "         infiniband: {vl_buffer: 8384B}}\n"
        "nic: {cc: none}\n"
        "workload: [{name: w, kind: traffic, pattern: incast, size: 12KiB}]\n";
    scenario sc;
    run *r = tl_start(&sc, "ib.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const uint64_t rate = 100000000000ull;
    const sim_time prop = SIM_US, pipe = 500 * SIM_NS;
    sim_time s1 = sim_ser_time(4174 + WIRE_LINE_EXTRA, rate);
    sim_time s2 = sim_ser_time(4158 + WIRE_LINE_EXTRA, rate);
    sim_time f = sim_ser_time(WIRE_IB_FCP, rate);
    sim_time t1 = 2 * s1 + 2 * prop + pipe + f;
    const port_record *up = port_named(st, "h1->sw0"), *in = port_named(st, "sw0->h1");
    CHECK(up && in);
    if (up && in) {
        CHECK_EQ_U64(up->credit_stalls, 1);
        CHECK_EQ_U64(up->credit_stall_ps, t1 - (s1 + s2));
        /* the switch's input buffer was exactly full: 66 + 65 credits of 131 */
        CHECK_EQ_U64(in->ib_vl_buffer_bytes, 131 * 64);
        CHECK_EQ_U64(in->ib_peak_bytes, 131 * 64);
    }
    CHECK_EQ_U64(st->flows_completed, 1);
    CHECK_EQ_U64(st->fct_max_ps, t1 + 2 * s2 + 2 * prop + pipe);
    CHECK_EQ_U64(all_drops(st), 0);
    run_free(r);
    scenario_free(&sc);
}

/* A frame larger than the buffer would never get credits: refused when the fabric is built. */
static void test_buffer_below_frame_refused(void)
{
    static const char y[] = "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1,\n"
                            "         link_layer: infiniband, infiniband: {vl_buffer: 4KiB}}\n"
                            "workload: [{name: w, kind: traffic, pattern: incast, size: 1MB}]\n";
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "ib.yaml", y, strlen(y), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "fabric.infiniband.vl_buffer") != NULL);
    CHECK(strstr(e.msg, "4224") != NULL);
    if (r)
        run_free(r);
    scenario_free(&sc);
}

/* 7-to-1 incast of 4 MB per sender at 100G. */
static const char incast_ib[] =
    "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps,\n"
    "         link_layer: infiniband, infiniband: {vl_buffer: 16KiB}}\n"
    "workload: [{name: in, kind: traffic, pattern: incast, size: 4MB}]\n";

static void test_incast_never_drops(void)
{
    /* the same incast on a lossy Ethernet switch with a small buffer overflows */
    static const char eth[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 256KiB, pfc: {enabled: false}}\n"
        "nic: {cc: none}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 4MB}]\n";
    scenario sc;
    run *r = tl_start(&sc, "eth.yaml", eth, NULL, 0);
    CHECK(r != NULL);
    if (r) {
        run_execute(r, NULL, NULL);
        CHECK(run_result(r)->drops[DROP_BUFFER_FULL] > 0);
        run_free(r);
        scenario_free(&sc);
    }
    for (int cc = 0; cc < 2; cc++) {
        const cfg_override o = {"nic.cc", cc ? "ib" : "none"};
        r = tl_start(&sc, "ib.yaml", incast_ib, &o, 1);
        CHECK(r != NULL);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        CHECK(st->infiniband);
        CHECK_EQ_U64(all_drops(st), 0);
        CHECK_EQ_U64(st->flows_completed, 7);
        CHECK_EQ_U64(st->delivered_bytes, 7ull * 4000000);
        CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
        CHECK_EQ_U64(st->retransmitted_packets, 0);
        /* no PFC, no ECN on an IB fabric */
        CHECK_EQ_U64(st->pfc_pause_sent, 0);
        CHECK_EQ_U64(st->ecn_marked, 0);
        peaks_within_buffers(st);
        /* every sender stalled on credits, and when it did its switch input was full: less
         * than a frame (66 credits) left of the 256 */
        for (uint32_t h = 1; h < 8; h++) {
            char a[48], b[48];
            snprintf(a, sizeof a, "h%u->sw0", h);
            snprintf(b, sizeof b, "sw0->h%u", h);
            const port_record *up = port_named(st, a), *in = port_named(st, b);
            CHECK(up && in && up->credit_stall_ps > 0);
            CHECK(in && in->ib_vl_buffer_bytes == 16384 &&
                  in->ib_peak_bytes > in->ib_vl_buffer_bytes - 66 * 64);
        }
        if (cc)
            CHECK(st->fecn_marked > 0 && st->cnp_sent == st->fecn_marked &&
                  st->cnp_handled == st->cnp_sent);
        else
            CHECK(st->fecn_marked == 0 && st->cnp_sent == 0);
        run_free(r);
        scenario_free(&sc);
    }
}

/* Same scenario and seed: identical results (every port counter, every figure). */
static void test_rerun_identical(void)
{
    scenario sa, sb;
    run *a = tl_start(&sa, "ib.yaml", incast_ib, NULL, 0);
    run *b = tl_start(&sb, "ib.yaml", incast_ib, NULL, 0);
    CHECK(a && b);
    if (!a || !b)
        return;
    run_execute(a, NULL, NULL);
    run_execute(b, NULL, NULL);
    const run_stats *x = run_result(a), *z = run_result(b);
    CHECK_EQ_U64(x->events, z->events);
    CHECK_EQ_U64(x->end_ps, z->end_ps);
    CHECK_EQ_U64(x->fct_max_ps, z->fct_max_ps);
    CHECK_EQ_U64(x->credit_stall_ps, z->credit_stall_ps);
    CHECK_EQ_U64(x->fecn_marked, z->fecn_marked);
    CHECK(x->n_ports == z->n_ports &&
          memcmp(x->ports, z->ports, x->n_ports * sizeof *x->ports) == 0);
    run_free(a);
    run_free(b);
    scenario_free(&sa);
    scenario_free(&sb);
}

/*
 * Congestion spreading and IB CC (the case Annex A10 was made for): h1..h6 send to h0 (the hot
 * spot) and h1 also sends to h7. Without CC, h1's frames for h0 fill its switch input buffer
 * and its flow to the idle h7 waits on credits with them (a victim); with FECN/BECN the senders
 * to h0 slow down, h1's input buffer drains and the victim runs near line rate. The hot port's
 * queue, sampled every 5 us, is lower on average with CC.
 */
static void cc_run(const char *cc, sim_time *victim_jct, double *mean_q)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 400Gbps,\n"
        "         link_layer: infiniband}\n"
        "workload:\n"
        "  - {name: hot, kind: traffic, pattern: incast, hosts: [0, 1, 2, 3, 4, 5, 6], size: 8MB}\n"
        "  - {name: victim, kind: traffic, pattern: incast, hosts: [7, 1], size: 8MB}\n";
    const cfg_override o = {"nic.cc", cc};
    scenario sc;
    run *r = tl_start(&sc, "ibcc.yaml", y, &o, 1);
    CHECK(r != NULL);
    if (!r)
        return;
    sim *s = run_sim_mut(r);
    port *hot = net_find_link(run_net_mut(r), "sw0-h0");
    CHECK(hot != NULL);
    sim_time stop = s->stop_at;
    double sum = 0;
    uint32_t n = 0;
    for (sim_time t = 5 * SIM_US; t <= 1000 * SIM_US && hot; t += 5 * SIM_US) {
        s->stop_at = t;
        sim_run(s);
        sum += (double)hot->q_total_bytes;
        n++;
    }
    s->stop_at = stop;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->flows_completed, 7);
    CHECK_EQ_U64(all_drops(st), 0);
    peaks_within_buffers(st);
    /* with `auto` buffers (the credit loop's bandwidth-delay product) the hot port itself never
     * waits for credits: the HCA frees each frame as it arrives */
    CHECK_EQ_U64(port_named(st, "sw0->h0")->credit_stall_ps, 0);
    /* the diagnosis names the victim's port (h1 sends to h0 and h7), not a port that carries
     * only hot-spot flows, though those waited longer */
    char lines[8][SUMMARY_DIAG_LEN];
    int nd = summary_diagnose(st, lines, 8);
    bool named = false;
    for (int i = 0; i < nd; i++)
        named |= strstr(lines[i], "IB congestion spreading: h1->sw0 waited") != NULL;
    CHECK(named);
    *victim_jct = st->jobs[1].jct_ps;
    *mean_q = n ? sum / n : 0;
    run_free(r);
    scenario_free(&sc);
}

static void test_cc_frees_victim(void)
{
    sim_time v_on = 0, v_off = 0;
    double q_on = 0, q_off = 0;
    cc_run("ib", &v_on, &q_on);
    cc_run("none", &v_off, &q_off);
    fprintf(stderr, "  victim JCT: cc ib %.1f us, cc none %.1f us; hot queue mean %.0f / %.0f B\n",
            (double)v_on / SIM_US, (double)v_off / SIM_US, q_on, q_off);
    /* without CC the victim waits behind the hot spot's credits (h1's input buffer drains at
     * h0's rate / 6); with CC it takes about half the time (measured 511 vs 1004 us) */
    CHECK(v_on > 0 && 2 * v_off > 3 * v_on);
    CHECK(q_on < q_off);
}

/* A ring where every route goes two hops: the credit loop closes and nothing moves. */
static const char ring_yaml[] =
    "fabric:\n"
    "  preset: custom\n"
    "  host_link: 100Gbps\n"
    "  fabric_link: 100Gbps\n"
    "  link_layer: infiniband\n"
    "  infiniband: {deadlock_detect: 1ms}\n"
    "  custom:\n"
    "    switches: [{name: s0}, {name: s1}, {name: s2}, {name: s3}, {name: s4}]\n"
    "    hosts: [{name: h0}, {name: h1}, {name: h2}, {name: h3}, {name: h4}]\n"
    "    links: [{a: h0, b: s0}, {a: h1, b: s1}, {a: h2, b: s2}, {a: h3, b: s3},\n"
    "            {a: h4, b: s4}, {a: s0, b: s1}, {a: s1, b: s2}, {a: s2, b: s3},\n"
    "            {a: s3, b: s4}, {a: s4, b: s0}]\n"
    "workload:\n"
    "  - {name: a, kind: traffic, pattern: incast, hosts: [2, 0], size: 64MB}\n"
    "  - {name: b, kind: traffic, pattern: incast, hosts: [3, 1], size: 64MB}\n"
    "  - {name: c, kind: traffic, pattern: incast, hosts: [4, 2], size: 64MB}\n"
    "  - {name: d, kind: traffic, pattern: incast, hosts: [0, 3], size: 64MB}\n"
    "  - {name: e, kind: traffic, pattern: incast, hosts: [1, 4], size: 64MB}\n";

static void test_credit_deadlock(void)
{
    scenario sc;
    run *r = tl_start(&sc, "ring.yaml", ring_yaml, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->deadlock);
    CHECK(strstr(st->deadlock_cycle, "credits") != NULL);
    CHECK(strstr(st->deadlock_cycle, "s0->s1") != NULL);
    CHECK_EQ_U64(all_drops(st), 0);
    CHECK_EQ_U64(st->pfc_pause_sent, 0);
    peaks_within_buffers(st);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    run_free(r);
    scenario_free(&sc);
}

/* `check` on IB: the credit items instead of PFC/ECN; the ring's cycle found statically; a
 * configured buffer below the credit loop warned. */
static const check_item *item(const check_report *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_items; i++)
        if (strcmp(r->items[i].name, name) == 0)
            return &r->items[i];
    return NULL;
}

static void check_yaml(const char *y, const cfg_override *o, int n_o, check_report *r)
{
    scenario sc;
    err e;
    sim s;
    err_clear(&e);
    memset(r, 0, sizeof *r);
    CHECK(config_load_buffer(&sc, "chk.yaml", y, strlen(y), o, n_o, &e) == 0);
    sim_init(&s, 1);
    net *n = net_build_topology(&sc, &s, &e);
    CHECK(n != NULL);
    if (n) {
        check_fabric(n, r);
        net_free(n);
    }
    sim_free(&s);
    scenario_free(&sc);
}

static void test_check(void)
{
    check_report r;
    check_yaml(ring_yaml, NULL, 0, &r);
    const check_item *dl = item(&r, "credit_deadlock_free");
    CHECK(dl && dl->status == CHECK_FAIL && strstr(dl->detail, "s0->s1") != NULL);
    CHECK(item(&r, "pfc_deadlock_free") == NULL && item(&r, "pfc_headroom") == NULL &&
          item(&r, "ecn_before_pfc") == NULL && item(&r, "pfc_lossless_class") == NULL);
    const check_item *vb = item(&r, "ib_vl_buffer");
    CHECK(vb && vb->status == CHECK_PASS);
    /* 100G, 1 us cables, 600 ns pipeline: the loop needs 2.6 us x 12.5 B/ns + 3 x 4194 + 6
     * + 1 = 45089 B = 705 credits = 45120 B; 32 KiB warns */
    const cfg_override o = {"fabric.infiniband.vl_buffer", "32KiB"};
    check_yaml(ring_yaml, &o, 1, &r);
    vb = item(&r, "ib_vl_buffer");
    CHECK(vb && vb->status == CHECK_WARN && strstr(vb->detail, "needs 45120 B") != NULL);
}

/* IB adaptive routing = loadbalance.mode adaptive (least-loaded eligible output), lossless. */
static void test_adaptive_routing(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps, link_layer: infiniband}\n"
        "loadbalance: {mode: adaptive}\n"
        "workload: [{name: p, kind: traffic, pattern: permutation, size: 2MB}]\n";
    scenario sc;
    run *r = tl_start(&sc, "ar.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(all_drops(st), 0);
    CHECK_EQ_U64(st->flows_completed, st->n_flows);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes);
    peaks_within_buffers(st);
    run_free(r);
    scenario_free(&sc);
}

int main(void)
{
    TEST_RUN(test_stall_timing);
    TEST_RUN(test_buffer_below_frame_refused);
    TEST_RUN(test_incast_never_drops);
    TEST_RUN(test_rerun_identical);
    TEST_RUN(test_cc_frees_victim);
    TEST_RUN(test_credit_deadlock);
    TEST_RUN(test_adaptive_routing);
    TEST_RUN(test_check);
    return tl_finish();
}
