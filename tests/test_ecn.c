/*
 * test_ecn.c — the switch's ECN marking (RED on egress queue depth, DCQCN's congestion point):
 * the probability at and around Kmin/Kmax is exactly the RED line (0 at Kmin, Pmax at Kmax, 1
 * above), and the marking point decides which queue a frame is judged by — the bytes behind it
 * when it leaves (dequeue, the default) or the bytes ahead of it when it arrived (enqueue).
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "net/packet.h"
#include "telemetry/telemetry.h"
#include "testlib.h"
#include "workload/run.h"

static void test_probability(void)
{
    static const char y[] = "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}\n"
                            "switch: {ecn: {kmin: 100KB, kmax: 400KB, pmax: 0.2}}\n"
                            "workload: [{name: t, kind: traffic, pattern: incast, size: 1MB}]\n";
    scenario sc;
    run *r = tl_start(&sc, "ecn.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    const net *n = run_telemetry(r)->net;
    uint64_t pmax = n->ecn_pmax_q32;
    CHECK_EQ_U64(pmax, 858993459); /* round(0.2 * 2^32) */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 0), 0);
    CHECK_EQ_U64(net_ecn_prob_q32(n, 100000), 0);             /* at Kmin: 0 */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 100001), pmax / 300000); /* just above: linear */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 250000), pmax / 2);      /* half way: Pmax/2 */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 325000), pmax * 3 / 4);  /* three quarters */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 400000), pmax);          /* at Kmax: exactly Pmax */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 400001), 1ull << 32);    /* above Kmax: 1 */
    CHECK_EQ_U64(net_ecn_prob_q32(n, 1ull << 40), 1ull << 32);
    run_free(r);
    scenario_free(&sc);

    /* Kmin = Kmax: a step, 0 at the threshold and 1 above it (no division by zero) */
    static const char y2[] = "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}\n"
                             "switch: {ecn: {kmin: 50KB, kmax: 50KB, pmax: 1}}\n"
                             "workload: [{name: t, kind: traffic, pattern: incast, size: 1MB}]\n";
    r = tl_start(&sc, "ecn2.yaml", y2, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    n = run_telemetry(r)->net;
    CHECK_EQ_U64(net_ecn_prob_q32(n, 50000), 0);
    CHECK_EQ_U64(net_ecn_prob_q32(n, 50001), 1ull << 32);
    run_free(r);
    scenario_free(&sc);
}

/* What the tap sees on the bottleneck port: every data frame as it starts on the wire, with the
 * bytes still queued behind it. */
typedef struct mark_stats {
    const port *watch;
    uint64_t k; /* Kmin = Kmax, Pmax = 1: marked exactly when depth > k */
    uint64_t frames, marked;
    uint64_t deep_unmarked;  /* left with more than k behind it, not marked */
    uint64_t shallow_marked; /* left with k or less behind it, marked (a stale mark) */
} mark_stats;

static void mark_tap(void *ctx, const port *p, const packet *pkt, sim_time t)
{
    mark_stats *m = ctx;
    (void)t;
    if (p != m->watch || pkt->kind != PKT_DATA)
        return;
    uint64_t behind = p->cls[pkt->prio].q_bytes - pkt->frame_bytes;
    bool ce = pkt->ecn == ECN_CE;
    m->frames++;
    m->marked += ce;
    m->deep_unmarked += behind > m->k && !ce;
    m->shallow_marked += behind <= m->k && ce;
}

/* Two senders at line rate into one 100G port, no congestion control: the queue builds to
 * about 1 MB while they send and drains after. Kmin = Kmax = 50 KB with Pmax 1 makes marking a
 * deterministic function of the depth the switch looks at. */
static void mark_case(const char *at, mark_stats *m)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: {preset: single-switch, servers: 3, gpus_per_server: 1, host_link: 100Gbps}\n"
             "switch: {ecn: {kmin: 50KB, kmax: 50KB, pmax: 1%s%s}}\n"
             "nic: {cc: none}\n"
             "workload: [{name: in, kind: traffic, pattern: incast, size: 1MB}]\n",
             at ? ", mark_at: " : "", at ? at : "");
    memset(m, 0, sizeof *m);
    m->k = 50000;
    scenario sc;
    run *r = tl_start(&sc, "mark.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    net *n = run_telemetry(r)->net;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        char name[48];
        net_port_name(n->ports[i], name, sizeof name);
        if (!strcmp(name, "sw0->h0"))
            m->watch = n->ports[i];
    }
    CHECK(m->watch != NULL);
    n->tap = mark_tap;
    n->tap_ctx = m;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->flows_completed, 2);
    CHECK_EQ_U64(st->ecn_marked, m->marked); /* only this port marks */
    fprintf(stderr,
            "  mark_at %-8s: %llu frames, %llu marked, %llu left deep unmarked, %llu left "
            "shallow marked\n",
            at ? at : "(default)", (unsigned long long)m->frames, (unsigned long long)m->marked,
            (unsigned long long)m->deep_unmarked, (unsigned long long)m->shallow_marked);
    run_free(r);
    scenario_free(&sc);
}

static void test_mark_point(void)
{
    mark_stats d, dd, e;
    /* dequeue: a frame is marked exactly when more than Kmax is queued behind it as it leaves */
    mark_case("dequeue", &d);
    CHECK(d.frames >= 2 * 244);
    CHECK(d.marked > 0 && d.marked < d.frames);
    CHECK_EQ_U64(d.deep_unmarked, 0);
    CHECK_EQ_U64(d.shallow_marked, 0);
    /* it is the default */
    mark_case(NULL, &dd);
    CHECK_EQ_U64(dd.marked, d.marked);
    CHECK_EQ_U64(dd.frames, d.frames);
    /* enqueue: judged by the queue it joined. Frames that joined a short queue which grew
     * behind them leave deep and unmarked; frames that joined the deep queue at the end of the
     * burst carry their mark out of a queue that has drained — the stale marks that keep
     * senders slowing after the congestion is gone. */
    mark_case("enqueue", &e);
    CHECK(e.marked > 0);
    CHECK(e.deep_unmarked > 0);
    CHECK(e.shallow_marked > 0);
    /* at least the burst's last Kmax of frames (50 KB / 4158 B: 12 frames, less the one
     * frame of rounding), joined behind ~1 MB, leave marked with nearly nothing behind them */
    CHECK(e.shallow_marked >= 11);
}

int main(void)
{
    TEST_RUN(test_probability);
    TEST_RUN(test_mark_point);
    return tl_finish();
}
