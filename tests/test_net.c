/*
 * test_net.c — packet-level physics of the network model: exact store-and-forward timing against
 * an independent reference recurrence, byte conservation, lossy drops, link occupancy.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/time.h"
#include "net/net.h"
#include "net/packet.h"
#include "testlib.h"
#include "workload/run.h"

static run *start(scenario *sc, const char *yaml)
{
    return tl_start(sc, "test.yaml", yaml, NULL, 0);
}

/*
 * Reference: n packets through `hops` equal-rate store-and-forward links. Packet i leaves the
 * sender back to back; at each later hop it starts when it has fully arrived (previous hop end +
 * prop + pipeline latency) and the port has finished packet i-1. Returns when the last bit of the
 * last packet reaches the receiver.
 */
static sim_time reference_fct(uint64_t size, uint32_t mtu, uint64_t bps, sim_time prop,
                              sim_time lat, int hops)
{
    uint32_t n = (uint32_t)((size + mtu - 1) / mtu);
    sim_time *done = calloc(n, sizeof(sim_time)); /* end of serialization at the current hop */
    sim_time t = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pl = (uint32_t)(i + 1 < n ? mtu : size - (uint64_t)mtu * (n - 1));
        t += sim_ser_time(wire_data_frame(pl, i == 0) + WIRE_LINE_EXTRA, bps);
        done[i] = t;
    }
    for (int h = 1; h < hops; h++) {
        sim_time port_free = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t pl = (uint32_t)(i + 1 < n ? mtu : size - (uint64_t)mtu * (n - 1));
            sim_time arrive = done[i] + prop + lat;
            sim_time st = arrive > port_free ? arrive : port_free;
            done[i] = st + sim_ser_time(wire_data_frame(pl, i == 0) + WIRE_LINE_EXTRA, bps);
            port_free = done[i];
        }
    }
    sim_time fct = done[n - 1] + prop;
    free(done);
    return fct;
}

static void test_wire_sizes(void)
{
    /* 14 + 20 + 8 + 12 + payload + 4 + 4 (+16 RETH on the first), + 20 of line time */
    CHECK_EQ_U64(wire_data_frame(4096, 0), 4158);
    CHECK_EQ_U64(wire_data_frame(4096, 1), 4174);
    CHECK_EQ_U64(wire_data_frame(1, 0), 64); /* padded to the Ethernet minimum */
    CHECK_EQ_U64(sim_ser_time(4158 + 20, 400000000000ull), 83560);
}

static void test_single_flow_exact(void)
{
    /* One 40960-byte flow h1 -> h0 through one switch: 10 packets of 4096 B. */
    static const char y[] =
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 400Gbps,\n"
        "         link_latency: 1us, switch_latency: 600ns}\n"
        "nic: {mtu: 4096}\n"
        "workload:\n"
        "  - {name: one, kind: traffic, pattern: incast, size: 40960}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->n_flows, 1);
    CHECK_EQ_U64(st->flows_completed, 1);
    /* Closed form: 2 prop + pipeline + 2 x first-packet serialization + 9 x the others.
     * first: (4174 + 20) B x 8 / 400 Gbps = 83880 ps; others 83560 ps. */
    sim_time want = 2 * 1000000 + 600000 + 2 * 83880 + 9 * 83560;
    CHECK_EQ_U64(want, 3519800);
    CHECK_EQ_U64(st->fct_max_ps, want);
    CHECK_EQ_U64(st->flows[0].end_ps - st->flows[0].start_ps, want);
    CHECK_EQ_U64(reference_fct(40960, 4096, 400000000000ull, 1000000, 600000, 2), want);
    CHECK_EQ_U64(st->delivered_bytes, 40960);
    CHECK_EQ_U64(st->dropped_bytes, 0);
    /* 10 data frames and the final (coalesced) ACK, each over two links */
    CHECK_EQ_U64(st->packet_hops, 22);
    /* line bytes: each frame twice (host link, switch egress); an ACK is 66 B + 20 of line */
    CHECK_EQ_U64(st->tx_wire_bytes, 2 * (4194 + 9 * 4178) + 2 * 86);
    /* octets (ifHCOutOctets): the same frames without preamble/SFD and IPG, 20 B each */
    CHECK_EQ_U64(st->tx_bytes, 2 * (4174 + 9 * 4158) + 2 * 66);
    /* per port, both ends of h1's link: the sender's octets are what the switch received */
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        if (strcmp(p->name, "h1->sw0") == 0) {
            CHECK_EQ_U64(p->tx_bytes, 4174 + 9 * 4158);
            CHECK_EQ_U64(p->tx_wire_bytes, 4194 + 9 * 4178);
            CHECK_EQ_U64(p->tx_packets, 10);
            CHECK_EQ_U64(p->rx_bytes, 66); /* the ACK: 14 + 20 + 8 + 12 + AETH 4 + 4 + 4 */
        }
        if (strcmp(p->name, "sw0->h1") == 0) {
            CHECK_EQ_U64(p->rx_bytes, 4174 + 9 * 4158);
            CHECK_EQ_U64(p->tx_bytes, 66);
            CHECK_EQ_U64(p->tx_wire_bytes, 86);
        }
    }
    run_free(r);
    scenario_free(&sc);
}

static void test_odd_size_exact(void)
{
    /* 10000 B = 4096 + 4096 + 1808: the small tail waits behind its predecessor at the switch. */
    static const char y[] =
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 100Gbps,\n"
        "         cable_length: 30m, switch_latency: 450ns}\n"
        "workload:\n"
        "  - {name: one, kind: traffic, pattern: incast, size: 10000}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->flows_completed, 1);
    /* 30 m of cable = 150 ns */
    CHECK_EQ_U64(st->fct_max_ps, reference_fct(10000, 4096, 100000000000ull, 150000, 450000, 2));
    run_free(r);
    scenario_free(&sc);
}

static void test_leaf_spine_exact(void)
{
    /* 2 leaves of 4 downlinks, 4 spines: h0 -> h7 crosses leaf0, a spine, leaf1 (4 links). */
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 1, leaf_radix: 8,\n"
        "         spine_radix: 8, host_link: 400Gbps, fabric_link: 400Gbps,\n"
        "         link_latency: 500ns, switch_latency: 600ns}\n"
        "workload:\n"
        "  - {name: x, kind: traffic, pattern: incast, hosts: [7, 0], size: 1MiB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->flows_completed, 1);
    CHECK_EQ_U64(st->fct_max_ps,
                 reference_fct(1048576, 4096, 400000000000ull, 500000, 600000, 4));
    /* 256 data frames and 16 ACKs (one per 16 packets) over 4 links */
    CHECK_EQ_U64(st->packet_hops, 4 * (256 + 16));
    run_free(r);
    scenario_free(&sc);
}

static void test_incast_lossless_buffer(void)
{
    /* 7 -> 1 incast with a buffer large enough to hold everything: no drops, and the receiver's
     * link is the bottleneck: the job takes the receiver link's serialization of every frame,
     * plus the first frame's path latency (no congestion control: DCQCN would pace the senders
     * and this test is about the switch). */
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps,\n"
        "         link_latency: 1us, switch_latency: 600ns}\n"
        "switch: {buffer: 64MiB}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: in, kind: traffic, pattern: incast, size: 256KiB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->flows_completed, 7);
    CHECK_EQ_U64(st->drops[DROP_BUFFER_FULL], 0);
    CHECK_EQ_U64(st->delivered_bytes, 7 * 262144);
    /* Every frame crosses the receiver link once: 64 per flow, first carries RETH. */
    sim_time per_flow = sim_ser_time(4194, 100000000000ull) + 63 * sim_ser_time(4178, 100000000000ull);
    sim_time first = sim_ser_time(4194, 100000000000ull);
    /* The receiver link starts after the first frame reaches the switch, then never idles. */
    sim_time want = first + 1000000 + 600000 + 7 * per_flow + 1000000;
    CHECK_EQ_U64(st->jobs[0].jct_ps, want);
    CHECK(st->max_link_utilization > 0.95 && st->max_link_utilization <= 1.0);
    /* ECN: the receiver's queue passes Kmax (400 KB) early, so most of its frames are marked,
     * and no other port ever queues. */
    for (uint32_t i = 0; i < st->n_ports; i++) {
        if (strcmp(st->ports[i].name, "sw0->h0") == 0) {
            CHECK(st->ports[i].ecn_marked > st->ports[i].tx_packets / 2);
            CHECK(st->ports[i].ecn_marked < st->ports[i].tx_packets);
            CHECK_EQ_U64(st->ports[i].ecn_marked, st->ecn_marked);
        }
    }
    run_free(r);
    scenario_free(&sc);
}

static void test_ecn_thresholds(void)
{
    /* 2 -> 1 at equal rates: the queue grows by one frame per two arrivals. Below Kmin nothing
     * is marked; with Kmax = 1 byte every frame that finds a queue is; with ECN off none is. */
    static const char *const cases[] = {
        "switch: {ecn: {kmin: 10MB, kmax: 20MB}}\n",
        "switch: {ecn: {kmin: 0, kmax: 1}}\n",
        "switch: {ecn: {enabled: false, kmin: 0, kmax: 1}}\n",
    };
    for (int c = 0; c < 3; c++) {
        char y[512];
        snprintf(y, sizeof y,
                 "fabric: {preset: single-switch, servers: 3, gpus_per_server: 1}\n%s"
                 "workload: [{name: i, kind: traffic, pattern: incast, size: 1MB}]\n",
                 cases[c]);
        scenario sc;
        run *r = start(&sc, y);
        CHECK(r != NULL);
        if (!r)
            continue;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        uint64_t frames = 2 * ((1000000 + 4095) / 4096);
        /* kmax = 1 byte: every frame that found a non-empty queue (all but the first two) */
        uint64_t want = c == 1 ? frames - 2 : 0;
        if (c == 1)
            CHECK(st->ecn_marked >= want && st->ecn_marked <= frames);
        else
            CHECK_EQ_U64(st->ecn_marked, 0);
        run_free(r);
        scenario_free(&sc);
    }
}

static void test_incast_drops_and_conservation(void)
{
    /* Same incast, lossy (PFC off, no congestion control), into a 200 KiB buffer: the
     * receiver's queue overflows, frames are dropped with reason buffer_full, go-back-N
     * recovers every byte and bytes are conserved (retransmissions count as sent). */
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 200KiB, alpha: 1, pfc: {enabled: false}}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: in, kind: traffic, pattern: incast, size: 256KiB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->drops[DROP_BUFFER_FULL] > 0);
    CHECK_EQ_U64(st->flows_completed, 7);
    CHECK(st->retransmitted_packets > 0);
    CHECK(st->sent_bytes > 7 * 262144);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    CHECK_EQ_U64(st->inflight_bytes, 0);
    /* Dynamic threshold with α = 1 and one congested queue: the queue settles at B/2. */
    uint64_t maxq = 0;
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (st->ports[i].max_queue_bytes > maxq)
            maxq = st->ports[i].max_queue_bytes;
    CHECK(maxq <= 200 * 1024 / 2 + 4174);
    CHECK(maxq >= 200 * 1024 / 2 - 4174);
    /* The dropped packets are attributed to the port towards h0 and nothing else. */
    uint64_t drops = 0;
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (st->ports[i].drops[DROP_BUFFER_FULL]) {
            CHECK_STR(st->ports[i].name, "sw0->h0");
            drops += st->ports[i].drops[DROP_BUFFER_FULL];
        }
    CHECK_EQ_U64(drops, st->drops[DROP_BUFFER_FULL]);
    run_free(r);
    scenario_free(&sc);
}

static void test_all_to_all_conservation(void)
{
    static const char y[] =
        "seed: 7\n"
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "switch: {buffer: 1MiB}\n"
        "workload:\n"
        "  - {name: a2a, kind: traffic, pattern: all-to-all, size: 64KiB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->n_flows, 16 * 15);
    CHECK_EQ_U64(st->sent_bytes, 16 * 15 * 65536);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    uint64_t dropped_pkts = 0;
    for (int d = 0; d < DROP_REASONS; d++)
        dropped_pkts += st->drops[d];
    /* a flow is complete exactly when none of its packets was dropped */
    if (dropped_pkts == 0)
        CHECK_EQ_U64(st->flows_completed, st->n_flows);
    else
        CHECK(st->flows_completed < st->n_flows);
    run_free(r);
    scenario_free(&sc);
}

static void test_stop_at_inflight(void)
{
    /* Stopping mid-transfer leaves bytes in flight, and conservation still holds. */
    static const char y[] =
        "stop_at: 20us\n"
        "fabric: {preset: single-switch, servers: 4, gpus_per_server: 1, host_link: 100Gbps}\n"
        "workload:\n"
        "  - {name: p, kind: traffic, pattern: permutation, size: 1MB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->hit_stop_at);
    CHECK_EQ_U64(st->end_ps, 20 * SIM_US);
    CHECK(st->inflight_bytes > 0);
    CHECK_EQ_U64(st->flows_completed, 0);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    run_free(r);
    scenario_free(&sc);
}

static void test_permutation_is_derangement(void)
{
    static const char y[] =
        "seed: 3\n"
        "fabric: {preset: single-switch, servers: 32, gpus_per_server: 1}\n"
        "workload:\n"
        "  - {name: p, kind: traffic, pattern: permutation, size: 4KiB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->n_flows, 32);
    int src_seen[32] = {0}, dst_seen[32] = {0}, fixed = 0;
    for (uint64_t i = 0; i < st->n_flows; i++) {
        src_seen[st->flows[i].src_host]++;
        dst_seen[st->flows[i].dst_host]++;
        fixed += st->flows[i].src_host == st->flows[i].dst_host;
    }
    for (int i = 0; i < 32; i++) {
        CHECK(src_seen[i] == 1);
        CHECK(dst_seen[i] == 1);
    }
    CHECK(fixed == 0);
    /* non-blocking single switch, one flow per port: every flow sees an idle path */
    CHECK_EQ_U64(st->flows_completed, 32);
    CHECK_EQ_U64(st->fct_p50_ps, st->fct_max_ps);
    run_free(r);
    scenario_free(&sc);
}

static void test_busy_time_at_stop(void)
{
    /* A sender at line rate stopped in the middle of a frame (frames take 83.56 ns; 10 us is
     * not a multiple): its port was busy for exactly the whole run, not for the whole of the
     * frame still on the wire. */
    static const char y[] =
        "stop_at: 10us\n"
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 400Gbps}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: one, kind: traffic, pattern: incast, size: 4MB}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->hit_stop_at);
    for (uint32_t i = 0; i < st->n_ports; i++) {
        CHECK(st->ports[i].utilization <= 1.0);
        if (strcmp(st->ports[i].name, "h1->sw0") == 0)
            CHECK_NEAR(st->ports[i].utilization, 1.0, 1e-12);
    }
    run_free(r);
    scenario_free(&sc);
}

/* The frame path compiled for the default features (port.c, net.fast) is taken exactly when a
 * run has none of the others, and WR_FAST_PATH=0 turns it off. (test_pin checks that both
 * paths give the same results.) */
static bool fast_case(const char *extra, bool execute)
{
    char y[1024];
    bool tenants = strstr(extra, "tenants") != NULL, ib = strstr(extra, "infiniband") != NULL;
    snprintf(y, sizeof y,
             "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 2, leaf_radix: 8%s}\n"
             "%s"
             "workload:\n"
             "  - {name: p, kind: traffic, pattern: permutation, size: 64KB%s}\n",
             tenants ? ", vtep: leaf" : ib ? ", link_layer: infiniband" : "", ib ? "" : extra,
             tenants ? ", tenant: blue" : "");
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return false;
    net *n = run_net_mut(r);
    bool fast;
    if (execute) {
        run_execute(r, NULL, NULL);
        CHECK(run_result(r)->flows_completed == run_result(r)->n_flows);
        fast = n->fast;
    } else {
        net_hot_path_select(n);
        fast = n->fast;
    }
    CHECK(net_hot_path_consistent(n));
    run_free(r);
    scenario_free(&sc);
    return fast;
}

static void test_fast_path_selection(void)
{
    CHECK(fast_case("", true));
    CHECK(!fast_case("switch: {scheduler: dwrr}\n", true));
    CHECK(!fast_case("switch: {ecn: {mark_at: enqueue}}\n", true));
    CHECK(!fast_case("switch: {trimming: true}\n", false));
    CHECK(!fast_case("nic: {cc: hpcc}\n", false));
    CHECK(!fast_case("loadbalance: {mode: adaptive, adaptive: {metric: utilization}}\n", false));
    CHECK(!fast_case("tenants: [{name: blue, vni: 10010}]\n", false));
    CHECK(!fast_case("infiniband", true));
    setenv("WR_FAST_PATH", "off", 1);
    CHECK(!fast_case("", true));
    unsetenv("WR_FAST_PATH");
    CHECK(fast_case("", false));
}

int main(void)
{
    TEST_RUN(test_wire_sizes);
    TEST_RUN(test_single_flow_exact);
    TEST_RUN(test_busy_time_at_stop);
    TEST_RUN(test_odd_size_exact);
    TEST_RUN(test_leaf_spine_exact);
    TEST_RUN(test_incast_lossless_buffer);
    TEST_RUN(test_ecn_thresholds);
    TEST_RUN(test_incast_drops_and_conservation);
    TEST_RUN(test_all_to_all_conservation);
    TEST_RUN(test_stop_at_inflight);
    TEST_RUN(test_permutation_is_derangement);
    TEST_RUN(test_fast_path_selection);
    return tl_finish();
}
