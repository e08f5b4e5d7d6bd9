/*
 * test_dcqcn_run.c — DCQCN in whole runs with the default profile (ConnectX-7 firmware values)
 * and with the paper's: the 400G 7-to-1 incast against its line-rate ideal, the ring all_reduce
 * of examples/lb-collisions.yaml under ECMP against the same run without congestion control,
 * and the paper's two-flow convergence to the fair share. Every run checks byte conservation.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "testlib.h"
#include "workload/run.h"

typedef struct outcome {
    sim_time jct;
    uint64_t drops, pauses, cnps, marks;
    sim_time held_max; /* the longest any NIC port sat idle held back only by DCQCN pacing */
    int ok;
} outcome;

static outcome run_yaml(const char *yaml)
{
    outcome o;
    memset(&o, 0, sizeof o);
    scenario sc;
    run *r = tl_start(&sc, "dcqcn_run.yaml", yaml, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return o;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    CHECK(st->n_jobs >= 1);
    o.ok = st->n_jobs >= 1 && st->jobs[0].completed;
    CHECK(o.ok);
    o.jct = st->n_jobs ? st->jobs[0].jct_ps : 0;
    for (int i = 0; i < DROP_REASONS; i++)
        o.drops += st->drops[i];
    o.pauses = st->pfc_pause_sent;
    o.cnps = st->cnp_sent;
    o.marks = st->ecn_marked;
    for (uint32_t i = 0; i < st->n_nics; i++)
        if (st->nics[i].dcqcn_held_ps > o.held_max)
            o.held_max = st->nics[i].dcqcn_held_ps;
    run_free(r);
    scenario_free(&sc);
    return o;
}

static void test_incast_400g_default_profile(void)
{
    /* 7 senders × 8 MB into one 400G port on one switch, defaults (PFC on, connectx-7). The
     * ideal is the bottleneck at line rate: 56 MB of payload in 4096 B frames (4178 B on the
     * wire with headers, preamble and gap) at 400 Gbps = 1.145 ms, what cc none achieves. */
    static const char base[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 400Gbps}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 8MB}]\n";
    char y[512];
    snprintf(y, sizeof y, "%snic: {cc: none}\n", base);
    outcome none = run_yaml(y);
    outcome dc = run_yaml(base);
    double ideal = 7.0 * 8e6 / 4096 * 4178 * 8 / 400e9 * 1e12;
    fprintf(stderr,
            "  ideal %.3f ms; cc none %.3f ms; dcqcn %.3f ms = %.2f x ideal "
            "(%llu CNPs, %llu marks, %llu PAUSE frames)\n",
            ideal / 1e9, (double)none.jct / 1e9, (double)dc.jct / 1e9, (double)dc.jct / ideal,
            (unsigned long long)dc.cnps, (unsigned long long)dc.marks,
            (unsigned long long)dc.pauses);
    CHECK((double)none.jct <= ideal * 1.01);
    CHECK((double)none.jct >= ideal);
    CHECK_EQ_U64(dc.drops, 0);
    CHECK(dc.cnps > 0);
    /* DCQCN keeps PFC idle here (ECN first) ... */
    CHECK_EQ_U64(dc.pauses, 0);
    /* ... at a cost: the first marks reach the senders after the queueing delay of a queue that
     * grows at 2.4 Tbps, its drain keeps every packet marked and cuts each sender every 4 µs
     * (CNPs spaced per QP) down to rpg_min_rate, and the link idles until the 300 µs
     * rpg_time_reset brings fast recovery (docs/scenario.md, nic.dcqcn). Measured 1.35x against
     * the 1.3x target: a known gap, not tuned away; this bound catches regressions. */
    CHECK((double)dc.jct <= ideal * 1.4);
    /* Spaced per receiving port (cnp_scope: port, the literal reading of NVIDIA's register
     * text), the seven QPs share one CNP per 4 µs: each is cut rarely, the byte counter wins
     * the rate back, and the incast runs at line rate behind a deep queue. */
    snprintf(y, sizeof y, "%snic: {dcqcn: {cnp_scope: port}}\n", base);
    outcome per_port = run_yaml(y);
    fprintf(stderr, "  cnp_scope port: %.3f ms (%llu CNPs)\n", (double)per_port.jct / 1e9,
            (unsigned long long)per_port.cnps);
    CHECK(dc.cnps > per_port.cnps * 2);
    CHECK((double)per_port.jct <= ideal * 1.01);
    /* The spacing itself (min_time_between_cnps 4 us, the first mark always answered): per
     * receiving port at most one CNP per 4 us of the run, per QP at most one per QP. */
    const sim_time gap = 4 * SIM_US;
    CHECK(per_port.cnps <= per_port.jct / gap + 1);
    CHECK(dc.cnps <= 7 * (dc.jct / gap + 1));
}

static void test_incast_collapse_waits_for_timer(void)
{
    /* Where the 400G incast's time goes with the ConnectX values (docs/validation.md, DCQCN
     * at 400G): the drain of the overshoot marks every packet, each sender is cut every 4 us
     * (rate_reduce_monitor_period) to rpg_min_rate, and from the floor only the rpg_time_reset
     * timer lifts it (32 KB of byte counter takes 262 ms at 1 Mbps). So the senders' idle time
     * follows the timer: 200 us less timer must cost at least 180 us less idle (measured:
     * 234 us less idle, JCT 1.35x -> 1.14x ideal). A byte counter or a cut that stopped
     * short of the floor would break this. */
    static const char base[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 400Gbps}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 8MB}]\n";
    char y[512];
    outcome t300 = run_yaml(base);
    snprintf(y, sizeof y, "%snic: {dcqcn: {rpg_time_reset: 100us}}\n", base);
    outcome t100 = run_yaml(y);
    fprintf(stderr,
            "  rpg_time_reset 300 us: JCT %.3f ms, held %.1f us; 100 us: JCT %.3f ms, held "
            "%.1f us\n",
            (double)t300.jct / 1e9, (double)t300.held_max / 1e6, (double)t100.jct / 1e9,
            (double)t100.held_max / 1e6);
    CHECK(t300.held_max >= 300 * SIM_US * 9 / 10); /* at least one timer wait */
    CHECK(t300.held_max >= t100.held_max + 180 * SIM_US);
    CHECK(t300.jct >= t100.jct + 180 * SIM_US);
}

static void test_lb_collisions_ecmp(void)
{
    /* examples/lb-collisions.yaml (ring all_reduce of 64 MiB over 8 channels, 8 servers × 8
     * GPUs, leaf-spine, ECMP): DCQCN against the same run without congestion control. */
    static const char base[] =
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
        "nic: {retransmit: selective, cc: %s}\n"
        "loadbalance: {mode: ecmp}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: ring, size: 64MiB, "
        "channels: 8}\n";
    char y[1024];
    snprintf(y, sizeof y, base, "none");
    outcome none = run_yaml(y);
    snprintf(y, sizeof y, base, "dcqcn");
    outcome dc = run_yaml(y);
    fprintf(stderr, "  cc none %.3f ms, dcqcn %.3f ms = %.2f x (%llu CNPs, %llu PAUSE frames)\n",
            (double)none.jct / 1e9, (double)dc.jct / 1e9, (double)dc.jct / (double)none.jct,
            (unsigned long long)dc.cnps, (unsigned long long)dc.pauses);
    CHECK_EQ_U64(dc.drops, 0);
    CHECK(dc.cnps > 0);
    /* The paper's parameters made this 5.6x; the ConnectX values give 1.33x against the issue's
     * 1.2x target: a known gap, kept rather than tuned away (docs/scenario.md nic.dcqcn: each
     * colliding QP is alone at its receiving port, so it is cut every 4 µs while the collided
     * queue drains — the 400G behaviour Meta reports turning DCQCN off for, SIGCOMM'24). This
     * bound catches a regression beyond the measured figure. */
    CHECK(dc.jct * 100 <= none.jct * 136);
}

static void test_paper_two_flow_convergence(void)
{
    /* Zhu et al. §4 (fluid model) and §5: two flows into one 40 Gbps port converge to the fair
     * share, 20 Gbps each, with the paper's parameters. Measured over the last 10 ms of a
     * 30 ms run: each flow within 10% of the other, the pair above 90% of the link. */
    static const char y[] =
        "stop_at: 30ms\n"
        "fabric: {preset: single-switch, servers: 3, gpus_per_server: 1, host_link: 40Gbps}\n"
        "switch: {pfc: {enabled: false}, ecn: {kmin: 5KB, kmax: 200KB, pmax: 0.01}}\n"
        "nic: {profile: paper}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 1GB}]\n";
    uint64_t at20[2] = {0, 0}, at30[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        char yy[1024];
        snprintf(yy, sizeof yy, "%s", y);
        if (!pass)
            memcpy(yy, "stop_at: 20ms", 13);
        scenario sc;
        run *r = tl_start(&sc, "paper.yaml", yy, NULL, 0);
        CHECK(r != NULL);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        CHECK(st->hit_stop_at);
        CHECK_EQ_U64(st->drops[DROP_BUFFER_FULL], 0);
        uint64_t *d = pass ? at30 : at20;
        d[0] = st->flows[0].delivered_bytes;
        d[1] = st->flows[1].delivered_bytes;
        run_free(r);
        scenario_free(&sc);
    }
    double a = (double)(at30[0] - at20[0]), b = (double)(at30[1] - at20[1]);
    double link = 40e9 / 8 * 10e-3 * 4096 / 4178;
    fprintf(stderr, "  last 10 ms: %.2f / %.2f Gbps (link payload %.2f Gbps)\n",
            a * 8 / 10e-3 / 1e9, b * 8 / 10e-3 / 1e9, link * 8 / 10e-3 / 1e9);
    CHECK(a * 10 >= b * 9 && b * 10 >= a * 9);
    CHECK((a + b) >= 0.9 * link);
}

int main(void)
{
    TEST_RUN(test_incast_400g_default_profile);
    TEST_RUN(test_incast_collapse_waits_for_timer);
    TEST_RUN(test_lb_collisions_ecmp);
    TEST_RUN(test_paper_two_flow_convergence);
    return tl_finish();
}
