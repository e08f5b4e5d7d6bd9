/*
 * test_flownet.c — the flow-level network (sim.fidelity flow, transport/flownet.h) against
 * hand-computed max-min cases, the α–β closed forms on an idle fabric (where the packet model
 * gives the same picosecond), the packet model's own ECMP paths, fault handling and
 * determinism.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "net/net.h"
#include "net/packet.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry.h"
#include "testlib.h"
#include "transport/flownet.h"
#include "transport/nic.h"
#include "workload/run.h"

/* 4 hosts on 2 leaves (2 per leaf) and 2 spines, 100 Gbps, 1 us cables: h0 h1 on leaf0, h2 h3
 * on leaf1. */
#define SMALL                                                                                      \
    "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"                \
    "         host_link: 100Gbps, fabric_link: 100Gbps, link_latency: 1us}\n"                      \
    "nic: {cc: none}\n"

/* The same with one event per message on or off (flownet_one_event: off is the reference),
 * and the successor hint (a prefetch only) on or off. */
static run *go_hint(scenario *sc, const char *yaml, bool one_event, bool hint)
{
    cfg_override ov[1] = {{"sim.fidelity", "flow"}};
    run *r = tl_start(sc, "flownet.yaml", yaml, ov, 1);
    if (r) {
        flownet_one_event(run_transport(r)->fn, one_event);
        flownet_successor_hint(run_transport(r)->fn, hint);
        run_execute(r, NULL, NULL);
    }
    return r;
}

static run *go_mode(scenario *sc, const char *yaml, bool one_event)
{
    return go_hint(sc, yaml, one_event, false);
}

static run *go(scenario *sc, const char *yaml, const char *fid)
{
    cfg_override ov[1] = {{"sim.fidelity", fid}};
    run *r = tl_start(sc, "flownet.yaml", yaml, ov, 1);
    if (r)
        run_execute(r, NULL, NULL);
    return r;
}

static void done(run *r, scenario *sc)
{
    if (!r)
        return;
    run_free(r);
    scenario_free(sc);
}

/* Line bytes of a message of `b` payload bytes at MTU `mtu`: its frames, RETH on the first,
 * preamble/SFD and IFG each. */
static uint64_t line_bytes(uint64_t b, uint32_t mtu)
{
    uint64_t n = (b + mtu - 1) / mtu;
    uint32_t last = (uint32_t)(b - (n - 1) * mtu);
    if (n == 1)
        return wire_data_frame(last, 1) + WIRE_LINE_EXTRA;
    return wire_data_frame(mtu, 1) + (n - 2) * (uint64_t)wire_data_frame(mtu, 0) +
           wire_data_frame(last, 0) + n * (uint64_t)WIRE_LINE_EXTRA;
}

/* Line bytes of its largest frame: on an idle path every switch egress waits for it ahead of
 * the last frame (store and forward). */
static uint32_t max_line(uint64_t b, uint32_t mtu)
{
    uint64_t n = (b + mtu - 1) / mtu;
    if (n > 1)
        return wire_data_frame(mtu, 1) + WIRE_LINE_EXTRA;
    return wire_data_frame((uint32_t)b, 1) + WIRE_LINE_EXTRA;
}

/* One flow on an idle fabric: serialization of its frames at the NIC, every cable's propagation
 * and switch pipeline, and at each switch the serialization of the largest frame (the last one
 * waits behind it: store and forward) — the packet model's time to the picosecond, and the flow
 * level's. */
static void test_single_flow_alpha_beta(void)
{
    static const char y[] = SMALL "workload:\n"
                                  "  - {name: t, kind: traffic, pattern: list,\n"
                                  "     flows: [{id: 1, src: 0, dst: 3, size: 1000000}]}\n";
    scenario sp, sf;
    run *rp = go(&sp, y, "packet"), *rf = go(&sf, y, "flow");
    CHECK(rp && rf);
    if (rp && rf) {
        const run_stats *p = run_result(rp), *f = run_result(rf);
        uint32_t mtu = sf.nic.mtu;
        sim_time want = sim_ser_time(line_bytes(1000000, mtu), 100000000000ull) +
                        net_path_latency(run_net(rf), 0, 3, max_line(1000000, mtu));
        CHECK_EQ_U64(f->flows[0].end_ps, want);
        CHECK_EQ_U64(p->flows[0].end_ps, want);
        CHECK_EQ_U64(f->jobs[0].jct_ps, p->jobs[0].jct_ps);
        CHECK_EQ_U64(f->delivered_bytes, 1000000);
        CHECK_EQ_U64(f->fidelity, FIDELITY_FLOW);
        /* alone on an idle path: its start needs no recomputation (fluid.c), and its end no
         * event (one event per message: its arrival) */
        CHECK(f->fluid_flows == 1 && f->rate_solves == 0 && f->rate_fast == 1);
        CHECK_EQ_U64(f->one_event_pieces, 1);
        /* the frames the flow level counts on the sender's port are the packet model's */
        const node *h0 = run_net(rf)->hosts[0];
        const port *pf = &h0->ports[h0->net_port];
        const port *pp = &run_net(rp)->hosts[0]->ports[h0->net_port];
        CHECK_EQ_U64(net_port_tx_packets(pf), net_port_tx_packets(pp));
        CHECK_EQ_U64(net_port_tx_bytes(pf), net_port_tx_bytes(pp));
    }
    done(rp, &sp);
    done(rf, &sf);
}

/* Max-min fairness with a bottleneck shared by flows of different paths: A1 h0->h3 (across the
 * spines), A2 h0->h1 (leaf0 only), B h2->h3 (leaf1 only). A1 and A2 share h0's NIC, A1 and B
 * h3's host link: all three run at 50 Gbps until A1 and B (1 MiB each) end at 2·L1/C; A2 (3 MiB)
 * then has L3 − L1 left alone at C: it ends at (L1 + L3)/C plus its latency. */
static void test_maxmin_shared_bottleneck(void)
{
    static const char y[] = SMALL "workload:\n"
                                  "  - {name: t, kind: traffic, pattern: list, flows: [\n"
                                  "      {id: 1, src: 0, dst: 3, size: 1MiB},\n"
                                  "      {id: 2, src: 0, dst: 1, size: 3MiB},\n"
                                  "      {id: 3, src: 2, dst: 3, size: 1MiB}]}\n";
    scenario sf;
    run *rf = go(&sf, y, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const run_stats *f = run_result(rf);
        const net *n = run_net(rf);
        uint32_t mtu = sf.nic.mtu;
        uint64_t c = 100000000000ull, l1 = line_bytes(1 << 20, mtu), l3 = line_bytes(3 << 20, mtu);
        CHECK_EQ_U64(f->n_flows, 3);
        sim_time a1 = sim_ser_time(2 * l1, c) + net_path_latency(n, 0, 3, max_line(1 << 20, mtu));
        sim_time b = sim_ser_time(2 * l1, c) + net_path_latency(n, 2, 3, max_line(1 << 20, mtu));
        sim_time a2 = sim_ser_time(l1 + l3, c) + net_path_latency(n, 0, 1, max_line(3 << 20, mtu));
        CHECK_EQ_U64(f->flows[0].end_ps, a1);
        CHECK_EQ_U64(f->flows[1].end_ps, a2);
        CHECK_EQ_U64(f->flows[2].end_ps, b);
    }
    done(rf, &sf);
}

/* Incast: 3 senders on both leaves into h3: one third of its link each. */
static void test_incast_thirds(void)
{
    static const char y[] = SMALL "workload:\n"
                                  "  - {name: t, kind: traffic, pattern: list, flows: [\n"
                                  "      {id: 1, src: 0, dst: 3, size: 3MiB},\n"
                                  "      {id: 2, src: 1, dst: 3, size: 3MiB},\n"
                                  "      {id: 3, src: 2, dst: 3, size: 3MiB}]}\n";
    scenario sf;
    run *rf = go(&sf, y, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const run_stats *f = run_result(rf);
        const net *n = run_net(rf);
        uint32_t mtu = sf.nic.mtu;
        uint64_t l = line_bytes(3 << 20, mtu);
        for (uint32_t i = 0; i < 3; i++) {
            sim_time want = sim_ser_time(3 * l, 100000000000ull) +
                            net_path_latency(n, i, 3, max_line(3 << 20, mtu));
            CHECK_NEAR((double)f->flows[i].end_ps, (double)want, 1.0);
        }
    }
    done(rf, &sf);
}

/* A ring all_gather on one leaf (non-blocking, no ECMP) with one chunk per step: n − 1 steps of
 * S/n, each its frames' serialization plus one switch hop — the α–β closed form, exactly. The
 * packet model is slower by the ACK frames that share each host's uplink with its own data
 * (one per 16 frames by default: under 0.2 %), and by nothing else. A chunked all_reduce (with
 * its reductions) agrees within the same share. */
static void test_ring_closed_form(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps, link_latency: 1us}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: ag, kind: collective, op: all_gather, algorithm: ring, size: 4MiB,\n"
        "     chunk: 1MiB}\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: ring, size: 4MiB,\n"
        "     start: 10ms}\n";
    scenario sp, sf;
    run *rp = go(&sp, y, "packet"), *rf = go(&sf, y, "flow");
    CHECK(rp && rf);
    if (rp && rf) {
        const run_stats *p = run_result(rp), *f = run_result(rf);
        uint32_t mtu = sf.nic.mtu;
        uint64_t chunk = (4u << 20) / 4;
        sim_time step = sim_ser_time(line_bytes(chunk, mtu), 100000000000ull) +
                        net_path_latency(run_net(rf), 0, 1, max_line(chunk, mtu));
        CHECK(f->jobs[0].completed && f->jobs[1].completed);
        CHECK_EQ_U64(f->jobs[0].jct_ps, 3 * step);
        double ack = (double)(WIRE_ACK_FRAME + WIRE_LINE_EXTRA) / (16.0 * 4178.0);
        for (int j = 0; j < 2; j++) {
            CHECK(f->jobs[j].jct_ps <= p->jobs[j].jct_ps);
            CHECK((double)(p->jobs[j].jct_ps - f->jobs[j].jct_ps) <=
                  ack * (double)p->jobs[j].jct_ps);
        }
    }
    done(rp, &sp);
    done(rf, &sf);
}

static void same_results(const run *ra, const run *rb);

/* A chunked ring all_gather on one leaf: every rank's QP always has its next chunk queued
 * (step s's chunk k arrives long before the chunks ahead of it on the QP have left), so each
 * QP sends its 3 steps × 4 chunks back to back: the JCT is 12 chunks' serialization plus one
 * chunk's latency, the pipelined α–β closed form, exactly. Each QP's chunks after the first
 * continue its fluid flow (coalesced): one fluid flow per QP, no recomputation per chunk. */
static void test_chunks_coalesce(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps, link_latency: 1us}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: ag, kind: collective, op: all_gather, algorithm: ring, size: 16MiB,\n"
        "     chunk: 1MiB}\n";
    scenario sp, sf;
    run *rp = go(&sp, y, "packet"), *rf = go(&sf, y, "flow");
    CHECK(rp && rf);
    if (rp && rf) {
        const run_stats *p = run_result(rp), *f = run_result(rf);
        uint32_t mtu = sf.nic.mtu;
        uint64_t chunk = 1u << 20;
        sim_time want = sim_ser_time(12 * line_bytes(chunk, mtu), 100000000000ull) +
                        net_path_latency(run_net(rf), 0, 1, max_line(chunk, mtu));
        CHECK(f->jobs[0].completed);
        CHECK_EQ_U64(f->jobs[0].jct_ps, want);
        CHECK_EQ_U64(f->fluid_flows, 4);
        CHECK_EQ_U64(f->coalesced_pieces, 4 * 11);
        CHECK_EQ_U64(f->delivered_bytes, 3 * (16u << 20));
        /* every chunk ends with one event: each QP's first is alone on its path (lazy), the
         * rest are chained behind it (stream_chain) — 48 arrivals, no end events */
        CHECK_EQ_U64(f->one_event_pieces, 4 * 12);
        /* the packet model: the same but for its ACKs on each host's uplink */
        double ack = (double)(WIRE_ACK_FRAME + WIRE_LINE_EXTRA) / (16.0 * 4178.0);
        CHECK(f->jobs[0].jct_ps <= p->jobs[0].jct_ps);
        CHECK((double)(p->jobs[0].jct_ps - f->jobs[0].jct_ps) <= ack * (double)p->jobs[0].jct_ps);
        /* the reference (every end an event) gives the same, with an event more per chunk */
        scenario s0;
        run *r0 = go_mode(&s0, y, false);
        CHECK(r0);
        if (r0) {
            same_results(rf, r0);
            CHECK_EQ_U64(run_result(r0)->one_event_pieces, 0);
            CHECK(run_result(r0)->events >= f->events + 4 * 12);
        }
        done(r0, &s0);
    }
    done(rp, &sp);
    done(rf, &sf);
}

/* The time series at flow level: each tick brings the ports' counters up to its time
 * (flownet_sync), so a port's utilization per interval is its flows' rates over its capacity —
 * h0's NIC alone at line rate (1), then sharing h3's link with h1 (0.5) — and over the run it
 * adds up to the flow's line bytes at line rate. */
static void test_timeseries(void)
{
    static const char y[] = SMALL "telemetry: {sample_interval: 20us}\n"
                                  "output: {formats: [csv, json]}\n"
                                  "workload:\n"
                                  "  - {name: t, kind: traffic, pattern: list, flows: [\n"
                                  "      {id: 1, src: 0, dst: 3, size: 1MiB},\n"
                                  "      {id: 2, src: 1, dst: 3, size: 1MiB, start: 40us}]}\n";
    scenario sf;
    run *rf = go(&sf, y, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const sampler *sm = run_telemetry(rf)->smp;
        const node *h0 = run_net(rf)->hosts[0];
        const port *h0p = &h0->ports[h0->net_port];
        uint32_t pi = UINT32_MAX;
        for (uint32_t i = 0; sm && i < sampler_n_ports(sm); i++)
            if (sampler_port(sm, i) == h0p)
                pi = i;
        CHECK(sm && pi != UINT32_MAX);
        if (sm && pi != UINT32_MAX) {
            double busy = 0;
            sim_time prev = 0;
            for (uint32_t row = 0; row < sampler_rows(sm); row++) {
                sim_time t = sampler_row_time(sm, row);
                double u = sampler_util(sm, row, pi);
                if (t == 20 * SIM_US || t == 40 * SIM_US)
                    CHECK_NEAR(u, 1.0, 1e-6);
                if (t == 60 * SIM_US)
                    CHECK_NEAR(u, 0.5, 1e-6);
                busy += u * (double)(t - prev);
                prev = t;
            }
            sim_time want = sim_ser_time(line_bytes(1 << 20, sf.nic.mtu), 100000000000ull);
            CHECK_NEAR(busy, (double)want, 2.0);
        }
    }
    done(rf, &sf);
}

/* ECMP at flow level takes the packet model's path: the same switch ports carry the data (more
 * than the ACKs a packet run adds on the reverse paths), for the same seed, with collisions. */
static void test_ecmp_same_paths(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "workload:\n"
        "  - {name: t, kind: traffic, pattern: permutation, size: 1MiB}\n";
    for (int seed = 1; seed <= 3; seed++) {
        char s[8];
        snprintf(s, sizeof s, "%d", seed);
        cfg_override ov[2] = {{"sim.fidelity", "packet"}, {"seed", s}};
        scenario sp, sf;
        run *rp = tl_start(&sp, "p.yaml", y, ov, 2);
        ov[0].value = "flow";
        run *rf = tl_start(&sf, "f.yaml", y, ov, 2);
        CHECK(rp && rf);
        if (!rp || !rf) {
            done(rp, &sp);
            done(rf, &sf);
            return;
        }
        run_execute(rp, NULL, NULL);
        run_execute(rf, NULL, NULL);
        const run_stats *p = run_result(rp), *f = run_result(rf);
        CHECK_EQ_U64(p->n_ports, f->n_ports);
        uint32_t used = 0, collided = 0;
        for (uint32_t i = 0; i < p->n_ports && i < f->n_ports; i++) {
            bool dp = p->ports[i].tx_bytes > (1u << 19), df = f->ports[i].tx_bytes > (1u << 19);
            CHECK(dp == df);
            used += df;
            collided += f->ports[i].tx_bytes > (3u << 19); /* two flows' frames */
        }
        CHECK(used > 0);
        if (seed == 1)
            CHECK(collided > 0); /* the case is about collisions */
        done(rp, &sp);
        done(rf, &sf);
    }
}

/* The same scenario and seed twice at flow level: the same results to the picosecond. */
static void test_rerun_identical(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 2, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "workload:\n"
        "  - {name: t, kind: traffic, pattern: permutation, size: 1MiB}\n"
        "  - {name: ar, kind: collective, op: all_reduce, size: 8MiB}\n";
    scenario s1, s2;
    run *r1 = go(&s1, y, "flow"), *r2 = go(&s2, y, "flow");
    CHECK(r1 && r2);
    if (r1 && r2) {
        const run_stats *a = run_result(r1), *b = run_result(r2);
        CHECK_EQ_U64(a->end_ps, b->end_ps);
        CHECK_EQ_U64(a->n_flows, b->n_flows);
        for (uint64_t i = 0; i < a->n_flows && i < b->n_flows; i++)
            CHECK_EQ_U64(a->flows[i].end_ps, b->flows[i].end_ps);
        for (uint32_t i = 0; i < a->n_ports && i < b->n_ports; i++)
            CHECK_EQ_U64(a->ports[i].tx_bytes, b->ports[i].tx_bytes);
        CHECK_EQ_U64(a->jobs[1].jct_ps, b->jobs[1].jct_ps);
        CHECK_EQ_U64(a->rate_solves, b->rate_solves);
    }
    done(r1, &s1);
    done(r2, &s2);
}

/* A link down with no other path for a flow (its sender's host link): the flow stalls; the link
 * comes back: it resumes with what it had left. A link that stays down: the QP fails after its
 * retry budget and the job fails. */
static void test_link_down_stall_resume_fail(void)
{
    static const char y[] = SMALL "workload:\n"
                                  "  - {name: t, kind: traffic, pattern: list,\n"
                                  "     flows: [{id: 1, src: 0, dst: 3, size: 1000000}]}\n"
                                  "faults:\n"
                                  "  - {at: 20us, kind: link-down, link: leaf0-h0}\n"
                                  "  - {at: 520us, kind: link-up, link: leaf0-h0}\n";
    scenario sf;
    run *rf = go(&sf, y, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const run_stats *f = run_result(rf);
        uint32_t mtu = sf.nic.mtu;
        sim_time alone = sim_ser_time(line_bytes(1000000, mtu), 100000000000ull) +
                         net_path_latency(run_net(rf), 0, 3, max_line(1000000, mtu));
        CHECK(f->jobs[0].completed);
        /* 500 us without a path, then the rest; routing may move it to another spine */
        CHECK_NEAR((double)f->flows[0].end_ps, (double)(alone + 500 * SIM_US), 2.0);
    }
    done(rf, &sf);

    static const char z[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps, link_latency: 1us}\n"
        "nic: {cc: none, rto: 100us, retry_count: 3}\n"
        "workload:\n"
        "  - {name: t, kind: traffic, pattern: list,\n"
        "     flows: [{id: 1, src: 0, dst: 3, size: 1000000}]}\n"
        "faults:\n"
        "  - {at: 20us, kind: link-down, link: leaf0-h0}\n";
    rf = go(&sf, z, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const run_stats *f = run_result(rf);
        CHECK(!f->jobs[0].completed);
        CHECK(f->jobs[0].failed);
        CHECK_EQ_U64(f->jobs[0].failed_at_ps, 20 * SIM_US + 400 * SIM_US);
        CHECK_EQ_U64(f->qps_failed, 1);
    }
    done(rf, &sf);
}

/* A spine link down: ECMP flows through it stall until the switches reroute, then take the other
 * spine; the job completes and no byte is lost. */
static void test_spine_link_reroute(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "workload:\n"
        "  - {name: t, kind: traffic, pattern: permutation, size: 4MiB}\n"
        "faults:\n"
        "  - {at: 50us, kind: link-down, link: leaf0-spine0}\n";
    scenario sf;
    run *rf = go(&sf, y, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const run_stats *f = run_result(rf);
        CHECK(f->jobs[0].completed);
        CHECK_EQ_U64(f->flows_completed, 16);
        CHECK_EQ_U64(f->delivered_bytes, 16ull * (4 << 20));
    }
    done(rf, &sf);
}

/* stop_at between a message's last bit leaving and its arrival: sent, in flight, not delivered
 * (run.c checks sent = delivered + dropped + in flight at the end of every run). */
static void test_stop_in_flight(void)
{
    static const char y[] = SMALL "stop_at: 82us\n"
                                  "workload:\n"
                                  "  - {name: t, kind: traffic, pattern: list,\n"
                                  "     flows: [{id: 1, src: 0, dst: 3, size: 1000000}]}\n";
    /* its last bit leaves at 81.608 us (1,020,106 line bytes at 100G), arrives at 85.3 us */
    scenario sf;
    run *rf = go(&sf, y, "flow");
    CHECK(rf != NULL);
    if (rf) {
        const run_stats *f = run_result(rf);
        CHECK(!f->jobs[0].completed);
        CHECK_EQ_U64(f->sent_bytes, 1000000);
        CHECK_EQ_U64(f->inflight_bytes, 1000000);
        CHECK_EQ_U64(f->delivered_bytes, 0);
    }
    done(rf, &sf);
}

/* Every result of run a equals run b's: flows, jobs, bytes, and every port's counters. */
static void same_results(const run *ra, const run *rb)
{
    const run_stats *a = run_result(ra), *b = run_result(rb);
    CHECK_EQ_U64(a->end_ps, b->end_ps);
    CHECK_EQ_U64(a->n_flows, b->n_flows);
    for (uint64_t i = 0; i < a->n_flows && i < b->n_flows; i++) {
        CHECK_EQ_U64(a->flows[i].end_ps, b->flows[i].end_ps);
        CHECK_EQ_U64(a->flows[i].delivered_bytes, b->flows[i].delivered_bytes);
    }
    CHECK_EQ_U64(a->n_jobs, b->n_jobs);
    for (uint32_t j = 0; j < a->n_jobs && j < b->n_jobs; j++) {
        CHECK_EQ_U64(a->jobs[j].jct_ps, b->jobs[j].jct_ps);
        CHECK_EQ_U64(a->jobs[j].completed, b->jobs[j].completed);
    }
    CHECK_EQ_U64(a->n_transfers, b->n_transfers);
    for (uint64_t i = 0; i < a->n_transfers && i < b->n_transfers; i++)
        CHECK_EQ_U64(a->transfers[i].end_ps, b->transfers[i].end_ps);
    CHECK_EQ_U64(a->sent_bytes, b->sent_bytes);
    CHECK_EQ_U64(a->delivered_bytes, b->delivered_bytes);
    CHECK_EQ_U64(a->inflight_bytes, b->inflight_bytes);
    CHECK_EQ_U64(a->fluid_flows, b->fluid_flows);
    CHECK_EQ_U64(a->n_ports, b->n_ports);
    for (uint32_t i = 0; i < a->n_ports && i < b->n_ports; i++) {
        CHECK_EQ_U64(a->ports[i].tx_bytes, b->ports[i].tx_bytes);
        CHECK_EQ_U64(a->ports[i].tx_packets, b->ports[i].tx_packets);
        CHECK_EQ_U64(a->ports[i].tx_wire_bytes, b->ports[i].tx_wire_bytes);
        CHECK(a->ports[i].utilization == b->ports[i].utilization);
    }
}

/* One event per message at the edge of its exactness: flow A (h0 -> h1, 1 MiB) starts alone and
 * is lazy (flownet.c stream_lazify); B (h2 -> h1, 3 MiB, over the spines) joins h1's link — the
 * one A is alone on — 1 ns before A's last bit leaves, exactly then, and 1 ns after (before A's
 * arrival). The link never idles while both have bits: before A ends, B's last bit leaves at
 * A's alone-time plus B's alone-time, A's at twice its alone-time minus B's start; after, B
 * runs alone. Both modes give the closed form to the picosecond, and the same counters. */
static void test_lazy_join_closed_form(void)
{
    const int64_t offs[] = {-1000, 0, 1000};
    for (int k = 0; k < 3; k++) {
        uint32_t mtu = 4096;
        uint64_t la = line_bytes(1 << 20, mtu), lb = line_bytes(3 << 20, mtu);
        sim_time fa = sim_ser_time(la, 100000000000ull), fb = sim_ser_time(lb, 100000000000ull);
        sim_time tb = (sim_time)((int64_t)fa + offs[k]);
        char y[1024];
        snprintf(y, sizeof y,
                 "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"
                 "         host_link: 100Gbps, fabric_link: 100Gbps, link_latency: 1us}\n"
                 "nic: {cc: none, mtu: %u}\n"
                 "workload:\n"
                 "  - {name: t, kind: traffic, pattern: list, flows: [\n"
                 "      {id: 1, src: 0, dst: 1, size: 1MiB},\n"
                 "      {id: 2, src: 2, dst: 1, size: 3MiB, start: %llups}]}\n",
                 mtu, (unsigned long long)tb);
        scenario s1, s0;
        run *r1 = go_mode(&s1, y, true), *r0 = go_mode(&s0, y, false);
        CHECK(r1 && r0);
        if (r1 && r0) {
            const run_stats *f = run_result(r1);
            const net *n = run_net(r1);
            sim_time lat_a = net_path_latency(n, 0, 1, max_line(1 << 20, mtu));
            sim_time lat_b = net_path_latency(n, 2, 1, max_line(3 << 20, mtu));
            sim_time end_a = tb < fa ? 2 * fa - tb : fa;
            sim_time end_b = tb < fa ? fa + fb : tb + fb;
            CHECK_EQ_U64(f->flows[0].end_ps, end_a + lat_a);
            CHECK_EQ_U64(f->flows[1].end_ps, end_b + lat_b);
            /* A was lazy; made ordinary when B joined before its end */
            CHECK(f->one_event_pieces == (tb < fa ? 0u : 2u));
            same_results(r1, r0);
            const node *h1 = n->hosts[1];
            const port *down = h1->ports[h1->net_port].peer; /* leaf0 -> h1 */
            CHECK_EQ_U64(net_port_tx_wire_bytes(down), la + lb);
        }
        done(r1, &s1);
        done(r0, &s0);
    }
}

/* Flows of t that have learned a successor. */
static uint32_t successors(const transport *t)
{
    uint32_t n = 0, succ, q;
    for (uint32_t i = 0; i < t->n_flows; i++)
        n += flownet_successor(t->fn, i, &succ, &q);
    return n;
}

/* The successor hint names the receiver's next connection: in a ring all_reduce a message
 * that reaches rank r releases r's next step, sent on r's connection to its own neighbour —
 * a flow from the arriving flow's receiver, whose first QP is the one recorded. Every
 * connection but those whose last message released nothing learns one. */
static void test_successor_is_ring_next(void)
{
    static const char y[] = SMALL "workload:\n"
                                  "  - {name: ar, kind: collective, op: all_reduce, algorithm: ring,\n"
                                  "     size: 1MiB, chunk: 64KiB}\n";
    scenario sc;
    run *r = go_hint(&sc, y, true, true);
    CHECK(r != NULL);
    if (r) {
        const transport *t = run_transport(r);
        CHECK(run_result(r)->jobs[0].completed);
        uint32_t learned = 0, succ, q;
        for (uint32_t i = 0; i < t->n_flows; i++) {
            if (!flownet_successor(t->fn, i, &succ, &q))
                continue;
            learned++;
            CHECK(succ < t->n_flows && succ != i);
            if (succ < t->n_flows) {
                CHECK_EQ_U64(t->flows[succ].src, t->flows[i].dst);
                CHECK_EQ_U64(q, (uint64_t)(t->flows[succ].qps - t->qps));
            }
        }
        CHECK_EQ_U64(learned, 4); /* the ring's four network connections */
    }
    done(r, &sc);
}

/* Random instances: one event per message against the reference (every piece's end an event)
 * on random flows, back-to-back messages on one connection (a ring all_reduce, whose steps
 * refill held flows; with 16 KiB chunks up to 8 chunks a step, chained behind a lazy one and
 * unchained when a flow joins), ECMP collisions on a leaf-spine, the sampler's ticks (flownet_sync), and
 * a spine link going down and up (every lazy flow settled): every result is the same, to the
 * picosecond and the byte. */
static void test_one_event_random(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int inst = 0; inst < 12; inst++) {
        char y[4096];
        int o = snprintf(y, sizeof y,
                         "seed: %d\n"
                         "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 2,\n"
                         "         leaf_radix: 8, host_link: 100Gbps, fabric_link: 100Gbps}\n"
                         "nic: {cc: none}\n"
                         "%s"
                         "workload:\n"
                         "  - {name: ar, kind: collective, op: all_reduce, size: %dKiB,\n"
                         "     chunk: %dKiB, iterations: 2}\n"
                         "  - {name: t, kind: traffic, pattern: list, flows: [\n",
                         inst + 1, inst % 3 == 1 ? "telemetry: {sample_interval: 7us}\n" : "",
                         256 << (inst % 4), inst % 2 ? 16 : 64);
        for (int i = 0; i < 14; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t r = (uint32_t)(seed >> 33);
            uint32_t src = r % 16, dst = (src + 1 + (r >> 4) % 15) % 16;
            uint32_t kb = 4u << ((r >> 8) % 10);
            uint32_t start = (r >> 12) % 300;
            if (i > 2 && (r >> 20) % 3 == 0)
                o += snprintf(y + o, sizeof y - (size_t)o,
                              "      {id: %d, src: %u, dst: %u, size: %uKiB, after: [%d]},\n",
                              i + 1, src, dst, kb, (int)((r >> 22) % (uint32_t)i) + 1);
            else
                o += snprintf(y + o, sizeof y - (size_t)o,
                              "      {id: %d, src: %u, dst: %u, size: %uKiB, start: %uus},\n",
                              i + 1, src, dst, kb, start);
        }
        o += snprintf(y + o, sizeof y - (size_t)o, "    ]}\n");
        if (inst % 4 == 2)
            snprintf(y + o, sizeof y - (size_t)o,
                     "faults:\n"
                     "  - {at: %dus, kind: link-down, link: leaf0-spine%d}\n"
                     "  - {at: %dus, kind: link-up, link: leaf0-spine%d}\n",
                     40 + inst, inst % 2, 90 + inst, inst % 2);
        scenario s1, s0;
        /* every other instance with the successor hint on (it is off at this size): a prefetch,
         * so the same results, and learned (not vacuous) */
        run *r1 = go_hint(&s1, y, true, inst % 2 == 0), *r0 = go_mode(&s0, y, false);
        CHECK(r1 && r0);
        if (r1 && r0) {
            const run_stats *a = run_result(r1);
            CHECK(a->jobs[0].completed && a->jobs[1].completed);
            /* not vacuous: messages ended with one event, and held flows were refilled */
            CHECK(a->one_event_pieces > 0 && a->reused_flows > 0);
            CHECK_EQ_U64(run_result(r0)->one_event_pieces, 0);
            CHECK(inst % 2 ? successors(run_transport(r1)) == 0
                           : successors(run_transport(r1)) > 0);
            same_results(r1, r0);
        }
        done(r1, &s1);
        done(r0, &s0);
    }
}

int main(void)
{
    TEST_RUN(test_lazy_join_closed_form);
    TEST_RUN(test_one_event_random);
    TEST_RUN(test_successor_is_ring_next);
    TEST_RUN(test_single_flow_alpha_beta);
    TEST_RUN(test_maxmin_shared_bottleneck);
    TEST_RUN(test_incast_thirds);
    TEST_RUN(test_ring_closed_form);
    TEST_RUN(test_chunks_coalesce);
    TEST_RUN(test_timeseries);
    TEST_RUN(test_ecmp_same_paths);
    TEST_RUN(test_rerun_identical);
    TEST_RUN(test_link_down_stall_resume_fail);
    TEST_RUN(test_spine_link_reroute);
    TEST_RUN(test_stop_in_flight);
    return tl_finish();
}
