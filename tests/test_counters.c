/*
 * test_counters.c — the counters agree with each other: per-class counters add up to the port
 * totals, what a port sent its peer received (once the network has drained, minus frames lost
 * on the wire), per-NIC transport counters add up to the run's totals; a port has a cold block
 * (net.h port_cold) exactly when it dropped, marked, paused or lost a frame.
 */
#include <stdbool.h>
#include <string.h>

#include "config/config.h"
#include "net/net.h"
#include "testlib.h"
#include "workload/run.h"

/* some_quiet: some ports neither drop, mark nor pause (so have no cold block) */
static void cross_check(const char *yaml, bool some_quiet)
{
    scenario sc;
    run *r = tl_start(&sc, "counters.yaml", yaml, NULL, 0);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->inflight_bytes, 0);
    int bad_prio = 0, bad_rx = 0;
    uint64_t pause_tx = 0, pause_rx = 0;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        uint64_t pkts = 0, drops = 0, ecn = 0, ps = 0, pr = 0, paused = 0, d = 0;
        for (int c = 0; c < 8; c++) {
            pkts += p->prio_tx_packets[c];
            drops += p->prio_drops[c];
            ecn += p->prio_ecn_marked[c];
            ps += p->prio_pause_sent[c];
            pr += p->prio_pause_rx[c];
            paused += p->prio_paused_ps[c];
        }
        for (int k = 0; k < DROP_REASONS; k++)
            d += p->drops[k];
        /* the port's frames are its classes' frames plus its PFC frames (PAUSE and RESUME,
         * MAC control, in no class); one lossless class here, so a PAUSE names one class */
        uint64_t pfc_frames = p->tx_packets - pkts;
        bad_prio += pkts > p->tx_packets || pfc_frames < p->pfc_pause_sent ||
                    (p->pfc_pause_sent == 0 && pfc_frames != 0);
        bad_prio += drops != d || ecn != p->ecn_marked || ps != p->pfc_pause_sent ||
                    pr != p->pfc_pause_rx || paused != p->pfc_paused_ps;
        pause_tx += p->pfc_pause_sent;
        pause_rx += p->pfc_pause_rx;
    }
    /* every frame a port serialized reached its peer: port i's tx = its peer's rx. Ports come in
     * pairs (a link's two directions are consecutive ids), so compare i with i ^ 1. */
    for (uint32_t i = 0; i + 1 < st->n_ports; i += 2) {
        bad_rx += st->ports[i].tx_packets != st->ports[i + 1].rx_packets;
        bad_rx += st->ports[i + 1].tx_packets != st->ports[i].rx_packets;
        bad_rx += st->ports[i].tx_bytes != st->ports[i + 1].rx_bytes;
    }
    /* A port has a cold block (net.h port_cold) exactly when it dropped, marked, paused,
     * was paused or lost a frame on its wire: the blocks stay lazy, and a port without one
     * has nothing to report there. */
    const net *n = run_net(r);
    uint32_t with_cold = 0, bad_cold = 0;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        const port_record *pr = &st->ports[i];
        uint64_t d = 0;
        for (int k = 0; k < DROP_REASONS; k++)
            d += pr->drops[k];
        bool wrote = d || pr->ecn_marked || pr->pfc_pause_sent || pr->pfc_pause_rx ||
                     port_cold_of(p)->lost_packets;
        with_cold += p->cold != NULL;
        bad_cold += (p->cold != NULL) != wrote;
        /* and a port without one reports no paused time or watchdog event either (what
         * `wrote` does not test: the block's other counters) */
        if (!p->cold)
            bad_cold += pr->pfc_paused_ps != 0 || pr->wd_events != 0;
    }
    CHECK_EQ_U64(bad_cold, 0);
    /* the run drained: its packets went back to the system before the records were built */
    CHECK(n->pkts.live == 0 && n->pkts.chunks == NULL && n->pkts.high_water > 0);
    CHECK_EQ_U64(with_cold, n->n_cold);
    CHECK(with_cold > 0 && (!some_quiet || with_cold < n->n_ports));
    CHECK(bad_prio == 0);
    CHECK(bad_rx == 0);
    CHECK_EQ_U64(pause_tx, pause_rx);
    uint64_t cs = 0, ch = 0, rt = 0, oos = 0, rto = 0;
    for (uint32_t h = 0; h < st->n_nics; h++) {
        cs += st->nics[h].cnp_sent;
        ch += st->nics[h].cnp_handled;
        rt += st->nics[h].retransmitted_packets;
        oos += st->nics[h].out_of_sequence;
        rto += st->nics[h].rto_events;
    }
    CHECK_EQ_U64(cs, st->cnp_sent);
    CHECK_EQ_U64(ch, st->cnp_handled);
    CHECK_EQ_U64(rt, st->retransmitted_packets);
    CHECK_EQ_U64(oos, st->out_of_sequence);
    CHECK_EQ_U64(rto, st->rto_events);
    run_free(r);
    scenario_free(&sc);
}

static void test_lossless_incast_with_dcqcn(void)
{
    cross_check("fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
                "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
                "switch: {buffer: 4MiB}\n"
                "workload: [{name: in, kind: traffic, pattern: incast, size: 1MB}]\n",
                true);
}

static void test_lossy_with_retransmits(void)
{
    cross_check("fabric: {preset: single-switch, servers: 8, gpus_per_server: 1,\n"
                "         host_link: 100Gbps}\n"
                "switch: {buffer: 300KiB, pfc: {enabled: false}}\n"
                "workload:\n"
                "  - {name: in, kind: traffic, pattern: incast, size: 512KB}\n"
                "  - {name: bg, kind: traffic, pattern: permutation, size: 256KB, priority: 1}\n",
                false);
}

static void test_storm(void)
{
    cross_check("fabric: {preset: single-switch, servers: 4, gpus_per_server: 1,\n"
                "         host_link: 100Gbps}\n"
                "switch: {buffer: 4MiB, pfc: {watchdog: {detect: 1ms, restore: 2ms}}}\n"
                "workload: [{name: in, kind: traffic, pattern: incast, size: 1MB}]\n"
                "faults: [{at: 0s, kind: pfc-storm, nic: 0, duration: 3ms}]\n",
                false);
}

int main(void)
{
    TEST_RUN(test_lossless_incast_with_dcqcn);
    TEST_RUN(test_lossy_with_retransmits);
    TEST_RUN(test_storm);
    return tl_finish();
}
