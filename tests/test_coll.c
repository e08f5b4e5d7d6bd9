/*
 * test_coll.c — collective jobs over the simulated network: ring all_reduce reaches the line
 * rate minus header overhead and matches the α–β cost model; every algorithm delivers exactly
 * the bytes its plan says (fabric + NVLink); collective-aware placement beats ECMP on a ring;
 * two jobs that share uplinks each take longer than alone.
 */
#include <string.h>

#include "config/config.h"
#include "core/time.h"
#include "testlib.h"
#include "report/summary.h"
#include "workload/run.h"

static run *start(scenario *sc, const char *yaml, const cfg_override *ov, int n_ov)
{
    return tl_start(sc, "coll.yaml", yaml, ov, n_ov);
}

static const char rail4[] =
    "fabric: {preset: rail-optimized, servers: 4, gpus_per_server: 8, leaf_radix: 16,\n"
    "         host_link: 400Gbps, fabric_link: 400Gbps, link_latency: 1us}\n"
    "workload:\n"
    "  - {name: ar, kind: collective, op: all_reduce, algorithm: ring, size: 64MiB}\n";

static void test_ring_line_rate(void)
{
    /* One channel: one ring; its 4 server boundaries each cross one 400G NIC (the snake order
     * keeps them on one rail). busbw is bounded by that NIC's goodput: 50 GB/s × 4096/4178. */
    scenario sc;
    run *r = start(&sc, rail4, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const job_result *j = &st->jobs[0];
    CHECK(j->completed);
    double goodput = 50.0 * 4096.0 / 4178.0;
    fprintf(stderr, "  ring, 1 channel: busbw %.2f GB/s (NIC goodput %.2f)\n", j->busbw_GBps,
            goodput);
    CHECK(j->busbw_GBps <= goodput);
    CHECK(j->busbw_GBps >= 0.98 * goodput);
    /* α–β: 2(n−1) steps of S/n each at the NIC's goodput, pipelined in 512 KiB chunks, plus the
     * latency of one chunk's trip around the ring's boundaries */
    double S = 64.0 * 1048576, n = 32;
    double beta_s = 2 * (n - 1) / n * S / (goodput * 1e9);
    double t = (double)j->jct_ps / 1e12;
    CHECK(t >= beta_s);
    CHECK(t <= beta_s * 1.03 + 100e-6);
    CHECK_EQ_U64(st->drops[DROP_BUFFER_FULL], 0);
    CHECK_EQ_U64(st->retransmitted_packets, 0);
    run_free(r);
    scenario_free(&sc);
}

static void test_bytes_per_algorithm(void)
{
    /* The fabric's payload plus NVLink's equals what each algorithm must move (nccl-tests
     * sizes: S per rank for all_reduce, the whole array for the others): all_reduce
     * 2(n−1)/n·S per rank whatever the algorithm; all_gather, reduce_scatter and all_to_all
     * (n−1)/n·S per rank. Where it moves differs: ring crosses the fabric only at server
     * boundaries, halving-doubling at its long-distance rounds. */
    static const struct {
        const char *op, *algo;
        double per_rank; /* × S */
    } cases[] = {
        {"all_reduce", "ring", 2.0 * 31 / 32},
        {"all_reduce", "hierarchical", 2.0 * 31 / 32},
        {"all_reduce", "halving-doubling", 2.0 * 31 / 32},
        {"all_gather", "ring", 31.0 / 32},
        {"all_to_all", "direct", 31.0 / 32},
        {"reduce_scatter", "ring", 31.0 / 32},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cfg_override ov[2] = {{"workload.0.op", cases[c].op}, {"workload.0.algorithm",
                                                                 cases[c].algo}};
        scenario sc;
        run *r = start(&sc, rail4, ov, 2);
        CHECK(r != NULL);
        if (!r)
            continue;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        double S = 64.0 * 1048576;
        double want = cases[c].per_rank * S * 32;
        double got = (double)(st->delivered_bytes + st->scale_up_bytes);
        fprintf(stderr, "  %-14s %-16s moved %.0f B (model %.0f), fabric %.1f%%, busbw %.1f\n",
                cases[c].op, cases[c].algo, got, want,
                100.0 * (double)st->delivered_bytes / got, st->jobs[0].busbw_GBps);
        CHECK(st->jobs[0].completed);
        CHECK_EQ_U64(st->retransmitted_packets, 0);
        CHECK_NEAR(got, want, want * 1e-6 + 64);
        run_free(r);
        scenario_free(&sc);
    }
}

static double lb_busbw(const char *mode)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
        "nic: {retransmit: selective}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: ring, size: 64MiB,\n"
        "     channels: 8}\n";
    cfg_override ov[1] = {{"loadbalance.mode", mode}};
    scenario sc;
    run *r = start(&sc, y, ov, 1);
    CHECK(r != NULL);
    if (!r)
        return 0;
    run_execute(r, NULL, NULL);
    double b = run_result(r)->jobs[0].busbw_GBps;
    fprintf(stderr, "  leaf-spine ring all_reduce, %-10s busbw %6.1f GB/s\n", mode, b);
    run_free(r);
    scenario_free(&sc);
    return b;
}

static void test_collective_aware_balancing(void)
{
    /* Hosts fill leaves in order, so every ring boundary crosses a spine: 8 channels × 8 servers
     * of elephant flows over 8 uplinks per leaf. ECMP collides; collective-aware placement gives
     * each uplink its share and reaches the NICs' limit (8 × 49 GB/s), as adaptive does. */
    double ecmp = lb_busbw("ecmp"), coll = lb_busbw("collective"), spray = lb_busbw("spray");
    double adaptive = lb_busbw("adaptive");
    CHECK(coll > 0.95 * 8 * 50.0 * 4096 / 4178);
    CHECK(coll > 2 * ecmp);
    CHECK(coll >= spray);
    CHECK(coll >= 0.99 * adaptive);
}

static void test_collision_diagnosis(void)
{
    /* The human summary's diagnosis names the collision under ECMP, and nothing once
     * collective-aware placement has spread the rings. */
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, size: 64MiB, channels: 8}\n";
    const char *modes[] = {"ecmp", "collective"};
    for (int m = 0; m < 2; m++) {
        cfg_override ov[1] = {{"loadbalance.mode", modes[m]}};
        scenario sc;
        run *r = start(&sc, y, ov, 1);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        char lines[4][SUMMARY_DIAG_LEN];
        int n = summary_diagnose(run_result(r), lines, 4);
        int collision = 0;
        for (int i = 0; i < n; i++) {
            fprintf(stderr, "  %s: %s\n", modes[m], lines[i]);
            collision += strncmp(lines[i], "ECMP collision: leaf", 20) == 0;
        }
        CHECK(collision == (m == 0));
        run_free(r);
        scenario_free(&sc);
    }
}

/* nccl-tests (common.cu) averages the time over the iterations, then computes algbw = S / t and
 * busbw = algbw × factor from that mean. A competing traffic job slows only the first of three
 * iterations, so the mean of per-iteration bandwidths would differ from the bandwidth of the
 * mean time: the job's figures must be the latter. */
static void test_busbw_from_mean_time(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 4, gpus_per_server: 1, host_link: 100Gbps}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, size: 4MiB, iterations: 3}\n"
        "  - {name: bg, kind: traffic, pattern: incast, size: 1MB, hosts: [1, 0]}\n";
    scenario sc;
    run *r = start(&sc, y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const job_result *j = &run_result(r)->jobs[0];
    CHECK(j->completed);
    CHECK_EQ_U64(j->n_iterations, 3);
    if (j->n_iterations == 3) {
        sim_time sum = 0;
        double mean_of_bw = 0;
        for (int k = 0; k < 3; k++) {
            sum += j->iterations[k].time_ps;
            mean_of_bw += j->iterations[k].algbw_GBps / 3;
        }
        double t = (double)(sum / 3) * 1e-12, S = 4.0 * 1048576;
        fprintf(stderr, "  iterations %.1f / %.1f / %.1f us: algbw %.3f GB/s (mean of per-"
                        "iteration %.3f)\n",
                (double)j->iterations[0].time_ps / 1e6, (double)j->iterations[1].time_ps / 1e6,
                (double)j->iterations[2].time_ps / 1e6, j->algbw_GBps, mean_of_bw);
        CHECK(j->iterations[0].time_ps > j->iterations[2].time_ps * 21 / 20); /* slowed */
        CHECK_NEAR(j->algbw_GBps, S / t / 1e9, 1e-9);
        CHECK_NEAR(j->busbw_GBps, S / t / 1e9 * 2.0 * 3 / 4, 1e-9);
        CHECK(j->algbw_GBps < mean_of_bw - 1e-3); /* the two averages differ here */
    }
    run_free(r);
    scenario_free(&sc);
}

/* transfers.csv's rows: every message of every iteration, with its GPUs, bytes and times; the
 * bytes of an iteration add up to what the job moved, and each iteration's transfers lie
 * inside it. */
static void test_transfers_recorded(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 4, leaf_radix: 8}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, size: 1MiB, iterations: 2}\n"
        "output: {formats: [csv]}\n";
    scenario sc;
    run *r = start(&sc, y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const job_result *j = &st->jobs[0];
    CHECK(j->completed);
    CHECK(st->n_transfers > 0 && st->n_transfers % 2 == 0);
    CHECK_EQ_U64(st->transfers_dropped, 0);
    uint64_t bytes[2] = {0, 0};
    sim_time t0 = j->start_ps;
    for (uint64_t i = 0; i < st->n_transfers; i++) {
        const transfer_record *t = &st->transfers[i];
        CHECK(t->iteration < 2);
        if (t->iteration >= 2)
            break;
        bytes[t->iteration] += t->bytes;
        sim_time lo = t0 + (t->iteration ? j->iterations[0].time_ps : 0);
        sim_time hi = lo + j->iterations[t->iteration].time_ps;
        CHECK(t->start_ps >= lo && t->end_ps > t->start_ps && t->end_ps <= hi);
        CHECK(t->src_gpu < 8 && t->dst_gpu < 8 && t->src_gpu != t->dst_gpu);
        CHECK(!strcmp(t->phase, "all_reduce"));
    }
    /* fabric payload + NVLink of the run, split evenly over the two iterations */
    CHECK_EQ_U64(bytes[0], bytes[1]);
    CHECK_EQ_U64(bytes[0] + bytes[1], st->delivered_bytes + st->scale_up_bytes);
    run_free(r);
    scenario_free(&sc);
}

static void test_two_jobs_share_uplinks(void)
{
    /* Two all_reduce jobs on disjoint GPUs whose rings both cross leaf0's and leaf1's 4
     * uplinks (leaf-spine at 4:1): alone, a job's 4 channels take one uplink each; together
     * two flows share each uplink and both jobs slow down. */
    static const char base[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 20,\n"
        "         oversubscription: 4:1}\n"
        "loadbalance: {mode: collective}\n"
        "workload:\n"
        "  - {name: a, kind: collective, op: all_reduce, size: 32MiB, channels: 4,\n"
        "     ranks: [0, 1, 2, 3, 16, 17, 18, 19]}\n"
        "  - {name: b, kind: collective, op: all_reduce, size: 32MiB, channels: 4,\n"
        "     ranks: [8, 9, 10, 11, 24, 25, 26, 27]%s}\n";
    sim_time both[2] = {0, 0}, alone[2] = {0, 0}, iso[2] = {0, 0};
    for (int mode = 0; mode < 3; mode++) {
        char y[1024];
        /* mode 0: both; 1: a alone (b starts after a would be long done); 2: b alone */
        snprintf(y, sizeof y, base, mode == 1 ? ", start: 1s" : "");
        if (mode == 2) {
            char *p = strstr(y, "  - {name: a");
            memmove(p, strstr(y, "  - {name: b"), strlen(strstr(y, "  - {name: b")) + 1);
        }
        scenario sc;
        run *r = start(&sc, y, NULL, 0);
        CHECK(r != NULL);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        if (mode == 0) {
            both[0] = st->jobs[0].jct_ps;
            both[1] = st->jobs[1].jct_ps;
            run_isolated_baselines(r); /* what `run --isolated` reports */
            iso[0] = st->jobs[0].isolated_jct_ps;
            iso[1] = st->jobs[1].isolated_jct_ps;
            CHECK_NEAR(st->jobs[0].slowdown, (double)both[0] / (double)iso[0], 1e-9);
        } else {
            alone[mode - 1] = st->jobs[0].jct_ps;
        }
        run_free(r);
        scenario_free(&sc);
    }
    fprintf(stderr, "  job a: %.1f us alone, %.1f us shared; job b: %.1f us alone, %.1f us shared\n",
            (double)alone[0] / 1e6, (double)both[0] / 1e6, (double)alone[1] / 1e6,
            (double)both[1] / 1e6);
    CHECK(both[0] > alone[0] * 11 / 10);
    CHECK(both[1] > alone[1] * 11 / 10);
    /* the isolated baseline is the job simulated alone: the same as scheduling it apart */
    CHECK_EQ_U64(iso[0], alone[0]);
    CHECK_EQ_U64(iso[1], alone[1]);
}

/*
 * Inside one server a ring all_reduce moves 2(n−1)/n·S per GPU over its NVLink at the rate NCCL
 * achieves (scale_up.bandwidth × efficiency; default 450 GB/s × 370/450): busbw is that rate,
 * less only the α–β pipeline fill (2(n−1) hops of scale_up.latency, a chunk's serialization).
 */
static void test_nvlink_busbw(void)
{
    static const struct {
        const char *bw, *eff;
        double B; /* GB/s NCCL reaches */
    } cases[] = {{NULL, NULL, 370.0}, {NULL, "1", 450.0}, {"900GBps", "0.5", 450.0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cfg_override ov[2];
        int n_ov = 0;
        if (cases[c].bw)
            ov[n_ov++] = (cfg_override){"fabric.scale_up.bandwidth", cases[c].bw};
        if (cases[c].eff)
            ov[n_ov++] = (cfg_override){"fabric.scale_up.efficiency", cases[c].eff};
        scenario sc;
        run *r = start(&sc,
                       "fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"
                       "workload:\n"
                       "  - {name: ar, kind: collective, op: all_reduce, size: 64MiB}\n",
                       ov, n_ov);
        CHECK(r != NULL);
        if (!r)
            continue;
        run_execute(r, NULL, NULL);
        const job_result *j = &run_result(r)->jobs[0];
        CHECK(j->completed);
        double n = 8, S = 64.0 * 1048576, B = cases[c].B * 1e9, alpha = 1e-6, chunk = 524288;
        double beta = 2 * (n - 1) / n * S / B;
        double fill = 2 * (n - 1) * alpha + 2 * chunk / B; /* latency per hop, one chunk */
        double lo = cases[c].B * beta / (beta + fill);
        fprintf(stderr, "  NVLink %.0f GB/s achievable: busbw %.2f GB/s (α–β floor %.2f)\n",
                cases[c].B, j->busbw_GBps, lo);
        CHECK(j->busbw_GBps <= cases[c].B * (1 + 1e-9));
        CHECK(j->busbw_GBps >= lo);
        run_free(r);
        scenario_free(&sc);
    }
}

/*
 * Rail-only: a cross-rail send crosses the sender's NVLink to the GPU on the destination's rail
 * before that GPU's NIC relays it (PXN). The relayed bytes share the sender's NVLink with its
 * intra-server sends, so an all_to_all takes at least the NVLink time of both: per GPU, 7 peers
 * in its server and 7 cross-rail peers in the other, S/16 each, at 25 GB/s × 370/450.
 */
static void test_rail_only_relay_costs_nvlink(void)
{
    for (int pxn = 0; pxn < 2; pxn++) {
        cfg_override ov[1] = {{"workload.0.pxn", pxn ? "true" : "false"}};
        scenario sc;
        run *r = start(&sc,
                       "fabric: {preset: rail-only, servers: 2, gpus_per_server: 8, leaf_radix: 8,"
                       "\n         scale_up: {bandwidth: 25GBps}}\n"
                       "workload:\n"
                       "  - {name: a2a, kind: collective, op: all_to_all, algorithm: direct,\n"
                       "     size: 16MiB}\n",
                       ov, 1);
        CHECK(r != NULL);
        if (!r)
            continue;
        run_execute(r, NULL, NULL);
        const job_result *j = &run_result(r)->jobs[0];
        CHECK(j->completed);
        double B = 25e9 * 370.0 / 450.0, slice = 16.0 * 1048576 / 16;
        double t_nvl = 14 * slice / B, t = (double)j->jct_ps / 1e12;
        fprintf(stderr, "  rail-only all_to_all (pxn %d): %.1f us, NVLink time %.1f us\n", pxn,
                t * 1e6, t_nvl * 1e6);
        CHECK(t >= t_nvl);
        CHECK(t <= t_nvl * 1.1);
        run_free(r);
        scenario_free(&sc);
    }
}

int main(void)
{
    TEST_RUN(test_ring_line_rate);
    TEST_RUN(test_bytes_per_algorithm);
    TEST_RUN(test_collective_aware_balancing);
    TEST_RUN(test_collision_diagnosis);
    TEST_RUN(test_two_jobs_share_uplinks);
    TEST_RUN(test_nvlink_busbw);
    TEST_RUN(test_rail_only_relay_costs_nvlink);
    TEST_RUN(test_busbw_from_mean_time);
    TEST_RUN(test_transfers_recorded);
    return tl_finish();
}
