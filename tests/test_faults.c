/*
 * test_faults.c — link failures: traffic hashed onto a dead link is lost until routing
 * converges, then goes around it; the transport recovers every byte; the link comes back.
 */
#include <math.h>
#include <string.h>

#include "config/config.h"
#include "core/time.h"
#include "net/packet.h"
#include "testlib.h"
#include "workload/fault.h"
#include "workload/run.h"

static const char base[] =
    "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
    "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
    "loadbalance: {mode: spray}\n"
    "nic: {retransmit: selective, rto: 200us}\n"
    "workload: [{name: a2a, kind: traffic, pattern: all-to-all, size: 256KB}]\n";

static uint64_t watched_tx;   /* tx bytes of leaf1->spine2 in the last run_case */
static fault_record last_rec; /* the first fault's record in the last run_case */

static void run_case(const char *fault_yaml, run_stats *out, uint64_t *link_drops)
{
    char y[2048];
    snprintf(y, sizeof y, "%s%s", base, fault_yaml);
    scenario sc;
    run *r = tl_start(&sc, "faults.yaml", y, NULL, 0);
    memset(out, 0, sizeof *out);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    *out = *st;
    *link_drops = st->drops[DROP_LINK_DOWN];
    watched_tx = 0;
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (strcmp(st->ports[i].name, "leaf1->spine2") == 0)
            watched_tx = st->ports[i].tx_bytes;
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    CHECK_EQ_U64(st->flows_completed, st->n_flows);
    memset(&last_rec, 0, sizeof last_rec);
    if (st->n_faults)
        last_rec = st->faults[0];
    run_free(r);
    scenario_free(&sc);
}

static void test_link_down_then_reroute(void)
{
    run_stats healthy, broken, quick;
    uint64_t d0, d1, d2;
    run_case("", &healthy, &d0);
    /* leaf0's first uplink dies 20 us in; the fabric reroutes 100 us later */
    run_case("faults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 50us,\n"
             "          converge: 50us}]\n",
             &broken, &d1);
    /* the same, noticed at once */
    run_case("faults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 0s,\n"
             "          converge: 0s}]\n",
             &quick, &d2);
    fprintf(stderr,
            "  healthy %.1f us; link down: %llu link_down drops, %.1f us; rerouted at "
            "once: %llu drops, %.1f us\n",
            (double)healthy.end_ps / 1e6, (unsigned long long)d1, (double)broken.end_ps / 1e6,
            (unsigned long long)d2, (double)quick.end_ps / 1e6);
    CHECK_EQ_U64(d0, 0);
    CHECK(d1 > 0); /* packets sprayed onto the dead link before convergence */
    CHECK(broken.retransmitted_packets > 0);
    CHECK(broken.end_ps > healthy.end_ps);
    CHECK(d2 < d1); /* faster convergence, fewer losses */
}

static void test_link_flap(void)
{
    run_stats st;
    uint64_t d, d_down, tx_down, tx_flap;
    /* down for good: after the reroute nothing uses the link */
    run_case("faults:\n"
             "  - {at: 10us, kind: link-down, link: leaf1-spine2, detect: 5us, converge: 5us}\n",
             &st, &d_down);
    tx_down = watched_tx;
    /* down, then up again at 60 us: once routing has taken it back it carries traffic again */
    run_case("faults:\n"
             "  - {at: 10us, kind: link-down, link: leaf1-spine2, detect: 5us, converge: 5us}\n"
             "  - {at: 60us, kind: link-up, link: leaf1-spine2, detect: 5us, converge: 5us}\n",
             &st, &d);
    tx_flap = watched_tx;
    fprintf(stderr, "  leaf1->spine2 carried %llu B when it stayed down, %llu B with the flap\n",
            (unsigned long long)tx_down, (unsigned long long)tx_flap);
    CHECK(d > 0 && d_down > 0); /* and every flow still completed (run_case) */
    CHECK(tx_flap > tx_down + 1000000);
}

static void test_unknown_link(void)
{
    char y[1024];
    snprintf(y, sizeof y, "%s%s", base,
             "faults: [{at: 1us, kind: link-down, link: leaf0-spine99}]\n");
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "f.yaml", y, strlen(y), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "no link \"leaf0-spine99\"") != NULL);
    if (r)
        run_free(r);
    else
        scenario_free(&sc);
}

/* A valid fault followed by a refused one: the first must not stay queued in the simulation
 * once the faults are freed (ASan saw a use after free in run_free; found by fuzz_run). */
static void test_refused_after_valid(void)
{
    char y[1024];
    snprintf(y, sizeof y, "%s%s", base,
             "faults: [{at: 1us, kind: link-down, link: leaf0-spine0},\n"
             "         {at: 2us, kind: link-down, link: leaf0-spine99}]\n");
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "f.yaml", y, strlen(y), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "faults[1].link") != NULL);
    if (r)
        run_free(r);
    else
        scenario_free(&sc);
}

static const port_record *find_port(const run_stats *st, const char *name)
{
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (strcmp(st->ports[i].name, name) == 0)
            return &st->ports[i];
    return NULL;
}

/* Reference: n full frames store-and-forward over two links of rates b1 then b2 (prop + pipeline
 * `lat` between); the last bit of the last frame reaches the receiver. */
static sim_time ref_two_hops(uint64_t size, uint64_t b1, uint64_t b2, sim_time prop, sim_time lat)
{
    uint32_t n = (uint32_t)((size + 4095) / 4096);
    sim_time t1 = 0, free2 = 0, end2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t pl = (uint32_t)(i + 1 < n ? 4096 : size - 4096ull * (n - 1));
        uint32_t line = wire_data_frame(pl, i == 0) + WIRE_LINE_EXTRA;
        t1 += sim_ser_time(line, b1);
        sim_time arrive = t1 + prop + lat;
        sim_time st = arrive > free2 ? arrive : free2;
        end2 = st + sim_ser_time(line, b2);
        free2 = end2;
    }
    return end2 + prop;
}

/* link-degraded: the switch's port to the receiver runs at the fraction of its speed, and the
 * flow takes exactly the time of the slower wire (every frame serialized at the new rate). */
static void test_degraded_exact(void)
{
    static const double fr[] = {0.5, 0.75, 0.75};
    for (int k = 0; k < 3; k++) {
        char y[1024], how[64];
        if (k == 2)
            snprintf(how, sizeof how, "speed: 300Gbps"); /* the same as 0.75 of 400G */
        else
            snprintf(how, sizeof how, "fraction: %g", fr[k]);
        snprintf(y, sizeof y,
                 "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1,\n"
                 "         host_link: 400Gbps, link_latency: 1us, switch_latency: 600ns}\n"
                 "nic: {mtu: 4096, cc: none}\n"
                 "workload: [{name: one, kind: traffic, pattern: incast, size: 1MiB}]\n"
                 "faults: [{at: 0s, kind: link-degraded, link: sw0-h0, %s}]\n",
                 how);
        scenario sc;
        run *r = tl_start(&sc, "deg.yaml", y, NULL, 0);
        CHECK(r != NULL);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        uint64_t slow = (uint64_t)(400e9 * fr[k]);
        sim_time want = ref_two_hops(1 << 20, 400000000000ull, slow, 1000000, 600000);
        sim_time healthy = ref_two_hops(1 << 20, 400000000000ull, 400000000000ull, 1000000, 600000);
        fprintf(stderr, "  fraction %.2f: FCT %.3f us (healthy %.3f us, reference %.3f us)\n",
                fr[k], (double)st->fct_max_ps / 1e6, (double)healthy / 1e6, (double)want / 1e6);
        CHECK_EQ_U64(st->flows_completed, 1);
        CHECK_EQ_U64(st->fct_max_ps, want);
        /* the bottleneck wire was busy for exactly its frames at the degraded rate */
        const port_record *p = find_port(st, "sw0->h0");
        CHECK(p != NULL);
        if (p)
            CHECK_EQ_U64(p->tx_packets, 256);
        run_free(r);
        scenario_free(&sc);
    }
}

/* link-ber: the frames lost at the receiver's FCS check are a binomial sample of the frames that
 * crossed, at the per-frame probability the bit error rate gives. */
static void test_ber_binomial(void)
{
    /* per 4158-byte frame: loss 1 − (1 − ber)^(8·4158) ≈ 1 % */
    double ber = -log1p(-0.01) / (8.0 * 4158);
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 400Gbps}\n"
             "nic: {mtu: 4096, retransmit: selective, rto: 100us}\n"
             "workload: [{name: one, kind: traffic, pattern: incast, size: 32MiB}]\n"
             "faults: [{at: 0s, kind: link-ber, link: sw0-h0, ber: %.17g}]\n",
             ber);
    scenario sc;
    run *r = tl_start(&sc, "ber.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const port_record *p = find_port(st, "sw0->h0");
    CHECK(p != NULL);
    CHECK_EQ_U64(st->flows_completed, 1);
    if (p) {
        double nfr = (double)p->tx_packets, pf = fault_frame_loss(ber, false, 4158);
        double mean = nfr * pf, sd = sqrt(nfr * pf * (1 - pf));
        double got = (double)p->drops[DROP_BIT_ERROR];
        fprintf(stderr, "  %llu frames, %llu bit_error drops, expected %.1f +- %.1f\n",
                (unsigned long long)p->tx_packets, (unsigned long long)p->drops[DROP_BIT_ERROR],
                mean, sd);
        /* 5 sigma (and the first/last frames' slightly different sizes, < 1 %% of one frame) */
        CHECK(fabs(got - mean) < 5 * sd + 1);
        CHECK(got > 0);
    }
    /* conservation: every payload byte sent was delivered, dropped or is still in flight */
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    CHECK(st->drops[DROP_BIT_ERROR] > 0 && st->retransmitted_packets > 0);
    run_free(r);
    scenario_free(&sc);
}

/* RS(544,514): the decoder's uncorrectable-codeword probability against an independent sum of
 * the binomial tail; a pre-FEC BER of 2.4e-4 (IEEE 802.3 Clause 124's PMD limit for
 * 400GBASE-DR4) leaves a post-FEC frame loss far below 802.3bs's 1e-13 BER objective per bit. */
static void test_fec(void)
{
    static const double bers[] = {1e-3, 3e-3, 1e-2};
    for (int k = 0; k < 3; k++) {
        double ps = 1 - pow(1 - bers[k], 10), pmf = pow(1 - ps, 544), cdf = 0;
        for (int j = 0; j <= 15; j++) {
            cdf += pmf;
            pmf *= (544.0 - j) / (j + 1.0) * ps / (1 - ps);
        }
        double want = 1 - cdf, got = fault_rs544_codeword_loss(bers[k]);
        fprintf(stderr, "  pre-FEC BER %g: codeword loss %.6g (reference %.6g)\n", bers[k], got,
                want);
        CHECK(fabs(got - want) <= 1e-9 + 1e-6 * want);
    }
    double fl = fault_frame_loss(2.4e-4, true, 4158);
    fprintf(stderr, "  pre-FEC 2.4e-4: 4 KiB frame loss %.3g\n", fl);
    CHECK(fl < 8 * 4158 * 1e-13);
    CHECK(fault_frame_loss(1e-6, false, 4158) > fault_frame_loss(1e-6, false, 64));
}

/* link-flap: down/up every period for the duration; the run ends, the link is back up, every
 * byte arrives. */
static void test_flap_ends(void)
{
    run_stats st;
    uint64_t d;
    run_case("faults: [{at: 10us, kind: link-flap, link: leaf1-spine2, period: 20us,\n"
             "          down: 5us, duration: 60us, detect: 2us, converge: 2us}]\n",
             &st, &d);
    CHECK(d > 0);
    CHECK(st.jobs_done);
}

/* Local fast reroute: the switches at the ends of a dead link stop using it at once; without it
 * every switch keeps hashing onto it until detect + converge, and more is lost. */
static void test_fast_reroute(void)
{
    run_stats fast, slow;
    uint64_t d_fast, d_slow;
    run_case("faults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 100us,\n"
             "          converge: 100us}]\n",
             &fast, &d_fast);
    run_case("faults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 100us,\n"
             "          converge: 100us, fast_reroute: false}]\n",
             &slow, &d_slow);
    fprintf(stderr, "  link_down drops: %llu with local fast reroute, %llu without\n",
            (unsigned long long)d_fast, (unsigned long long)d_slow);
    CHECK(d_fast < d_slow);
}

/* switch-down: every link of a spine dies, the fabric routes around it and the job completes;
 * a hard reload (down, then back after `duration`) loses the frames that were in the switch or
 * on its wires, where drain-then-upgrade (routes moved away first, then down for the same time)
 * loses none. */
static void test_switch_down_and_drain(void)
{
    run_stats gone, reload, drain;
    uint64_t d_gone, d_reload, d_drain;
    run_case("faults: [{at: 20us, kind: switch-down, switch: spine1, detect: 10us,\n"
             "          converge: 10us}]\n",
             &gone, &d_gone);
    uint64_t spine1_after = watched_tx;
    run_case("faults: [{at: 60us, kind: switch-down, switch: spine2, duration: 50us,\n"
             "          detect: 10us, converge: 10us}]\n",
             &reload, &d_reload);
    fault_record reload_rec = last_rec;
    run_case("faults: [{at: 20us, kind: switch-drain, switch: spine2, converge: 20us,\n"
             "          wait: 20us, duration: 50us, detect: 10us}]\n",
             &drain, &d_drain);
    fault_record drain_rec = last_rec;
    uint64_t drain_spine_tx = watched_tx;
    fprintf(stderr,
            "  spine1 down for good: %llu link_down drops, %.1f us; spine2 hard reload: %llu "
            "drops, %.1f us; drained first: %llu drops, %.1f us\n",
            (unsigned long long)d_gone, (double)gone.end_ps / 1e6, (unsigned long long)d_reload,
            (double)reload.end_ps / 1e6, (unsigned long long)d_drain, (double)drain.end_ps / 1e6);
    (void)spine1_after;
    CHECK(gone.jobs_done && reload.jobs_done && drain.jobs_done);
    CHECK(d_gone > 0);
    CHECK(d_reload > 0);
    uint64_t all = 0;
    for (int k = 0; k < DROP_REASONS; k++)
        all += drain.drops[k];
    CHECK_EQ_U64(all, 0);
    CHECK_EQ_U64(drain.retransmitted_packets, 0);
    /* both really went down and came back, at the same times */
    CHECK_EQ_U64(reload_rec.end_ps, 110 * SIM_US);
    CHECK_EQ_U64(drain_rec.end_ps, 110 * SIM_US);
    CHECK_EQ_U64(drain_rec.converged_ps, 140 * SIM_US); /* in service again: + detect + converge */
    CHECK_EQ_U64(reload_rec.local_reroute_ps, 60 * SIM_US);
    CHECK(drain_spine_tx > 1000000); /* spine2 carried traffic before and after its upgrade */
}

/* ---- gpu-fail and checkpoint/restart ----------------------------------------------------- */

/* One server, tp 8 over NVLink: every iteration takes the same time, so the JCT after a failure
 * follows a closed form. */
static const char train_base[] = "fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"
                                 "workload:\n"
                                 "  - kind: training\n"
                                 "    model: {params: 1e9, layers: 4, hidden: 1024, seq_len: 512}\n"
                                 "    parallelism: {tp: 8, pp: 1, dp: 1}\n"
                                 "    global_batch: 2\n"
                                 "    iterations: 10\n";

static job_result train_case(const char *extra, uint64_t *iter_ps)
{
    char y[2048];
    snprintf(y, sizeof y, "%s%s", extra[0] == '!' ? "" : train_base, extra + (extra[0] == '!'));
    scenario sc;
    job_result jr;
    memset(&jr, 0, sizeof jr);
    run *r = tl_start(&sc, "train.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return jr;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    jr = st->jobs[0];
    if (iter_ps) {
        *iter_ps = jr.n_iterations ? jr.iterations[0].time_ps : 0;
        for (uint32_t k = 1; k < jr.n_iterations; k++)
            CHECK_EQ_U64(jr.iterations[k].time_ps, *iter_ps);
    }
    jr.iterations = NULL;
    run_free(r);
    scenario_free(&sc);
    return jr;
}

static void test_gpu_fail_checkpoint(void)
{
    uint64_t T = 0;
    job_result h = train_case("", &T);
    const uint64_t N = 10, I = 3, W = 100 * SIM_US, R = 1 * SIM_MS;
    CHECK(T > 0);
    CHECK_EQ_U64(h.jct_ps, N * T);
    /* checkpoints after iterations 3, 6, 9: each stalls the job W */
    char y[512];
    snprintf(y, sizeof y, "    checkpoint: {interval: 3, write_time: 100us, restart_time: 1ms}\n");
    job_result c = train_case(y, NULL);
    CHECK_EQ_U64(c.jct_ps, N * T + (N - 1) / I * W);
    CHECK_EQ_U64(c.ckpt_writes, 3);
    /* GPU 5 fails in the middle of iteration 8 (0-based 7): the checkpoint of 6 iterations
     * ended at 6T + 2W; the work since is lost, the job restarts R later from iteration 6 */
    uint64_t tf = 7 * T + 2 * W + T / 2;
    snprintf(y, sizeof y,
             "    checkpoint: {interval: 3, write_time: 100us, restart_time: 1ms}\n"
             "faults: [{at: %llups, kind: gpu-fail, gpu: 5}]\n",
             (unsigned long long)tf);
    job_result f = train_case(y, NULL);
    uint64_t resume = 6 * T + 2 * W;
    uint64_t want = tf + R + (N - 6) * T + 1 * W; /* iterations 7..10 again, checkpoint at 9 */
    fprintf(stderr,
            "  T %.3f us; healthy %.3f us, with checkpoints %.3f us, failure at %.3f us: "
            "JCT %.3f us (formula %.3f us), lost %.3f us\n",
            T / 1e6, h.jct_ps / 1e6, c.jct_ps / 1e6, tf / 1e6, f.jct_ps / 1e6, want / 1e6,
            f.lost_ps / 1e6);
    CHECK(f.completed);
    CHECK_EQ_U64(f.jct_ps, want);
    CHECK_EQ_U64(f.jct_ps, c.jct_ps + (tf - resume) + R); /* = JCT + lost work + restart */
    CHECK_EQ_U64(f.lost_ps, tf - resume);
    CHECK_EQ_U64(f.restart_ps, R);
    CHECK_EQ_U64(f.restarts, 1);
    CHECK_EQ_U64(f.ckpt_writes, 3); /* 3, 6, then 9 again after the restart */
    /* a restart without checkpoints starts over */
    snprintf(y, sizeof y,
             "    checkpoint: {restart_time: 1ms}\n"
             "faults: [{at: %llups, kind: gpu-fail, gpu: 0}]\n",
             (unsigned long long)tf);
    job_result z = train_case(y, NULL);
    CHECK_EQ_U64(z.jct_ps, tf + R + N * T);
    CHECK_EQ_U64(z.lost_ps, tf);
    /* no checkpoint block: the job fails */
    snprintf(y, sizeof y, "faults: [{at: %llups, kind: gpu-fail, gpu: 0}]\n",
             (unsigned long long)tf);
    job_result d = train_case(y, NULL);
    CHECK(d.failed && !d.completed);
    CHECK(strstr(d.reason, "GPU 0 failed") != NULL);
    CHECK_EQ_U64(d.failed_at_ps, tf);
    /* a GPU outside the job changes nothing */
    snprintf(y, sizeof y,
             "!fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"
             "workload:\n"
             "  - {kind: training, ranks: 0-3, parallelism: {tp: 4}, global_batch: 2,\n"
             "     model: {params: 1e9, layers: 4, hidden: 1024, seq_len: 512},\n"
             "     checkpoint: {interval: 3, write_time: 100us, restart_time: 1ms}}\n"
             "faults: [{at: 1us, kind: gpu-fail, gpu: 7}]\n");
    job_result o = train_case(y, NULL);
    CHECK(o.completed);
    CHECK_EQ_U64(o.restarts, 0);
    CHECK_EQ_U64(o.lost_ps, 0);
}

/* A restart longer than the run's stall check (an endless PFC storm elsewhere arms it): the job
 * waiting on its restart timer is not stalled, it restarts and completes. */
static void test_restart_not_stalled(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "    checkpoint: {interval: 3, write_time: 100us, restart_time: 2s}\n"
             "faults: [{at: 5ms, kind: gpu-fail, gpu: 1}, {at: 0s, kind: pfc-storm, nic: 7}]\n");
    job_result f = train_case(y, NULL);
    CHECK(f.completed && !f.failed);
    CHECK_EQ_U64(f.restarts, 1);
    CHECK_EQ_U64(f.restart_ps, 2 * SIM_S);
}

/* Across the fabric (pipeline sends in flight when the GPU fails): the messages already posted
 * complete and are discarded, the job restarts and completes; a collective on the GPU fails. */
static void test_gpu_fail_fabric(void)
{
    static const char pp[] = "!fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8}\n"
                             "workload:\n"
                             "  - kind: training\n"
                             "    model: {params: 2e9, layers: 8, hidden: 2048, seq_len: 1024}\n"
                             "    parallelism: {tp: 8, pp: 2, dp: 1}\n"
                             "    global_batch: 8\n"
                             "    iterations: 3\n";
    char y[2048];
    uint64_t T = 0;
    job_result h = train_case(pp, NULL);
    T = h.jct_ps / 3;
    snprintf(y, sizeof y,
             "%s    checkpoint: {interval: 1, write_time: 10us, restart_time: 100us}\n"
             "faults: [{at: %llups, kind: gpu-fail, gpu: 12}]\n",
             pp, (unsigned long long)(T + T / 3));
    job_result f = train_case(y, NULL);
    fprintf(stderr,
            "  pp2 over the fabric: healthy %.3f us; GPU 12 fails at %.3f us: JCT %.3f us, "
            "lost %.3f us\n",
            h.jct_ps / 1e6, (T + T / 3) / 1e6, f.jct_ps / 1e6, f.lost_ps / 1e6);
    CHECK(f.completed);
    CHECK_EQ_U64(f.restarts, 1);
    CHECK(f.jct_ps > h.jct_ps + f.lost_ps);
    snprintf(y, sizeof y,
             "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8}\n"
             "workload: [{kind: collective, op: all_reduce, size: 64MiB}]\n"
             "faults: [{at: 5us, kind: gpu-fail, gpu: 3}]\n");
    scenario sc;
    run *r = tl_start(&sc, "coll.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->jobs[0].failed);
    CHECK(strstr(st->jobs[0].reason, "GPU 3 failed") != NULL);
    run_free(r);
    scenario_free(&sc);
}

int main(void)
{
    TEST_RUN(test_link_down_then_reroute);
    TEST_RUN(test_link_flap);
    TEST_RUN(test_unknown_link);
    TEST_RUN(test_refused_after_valid);
    TEST_RUN(test_degraded_exact);
    TEST_RUN(test_ber_binomial);
    TEST_RUN(test_fec);
    TEST_RUN(test_flap_ends);
    TEST_RUN(test_fast_reroute);
    TEST_RUN(test_switch_down_and_drain);
    TEST_RUN(test_gpu_fail_checkpoint);
    TEST_RUN(test_gpu_fail_fabric);
    TEST_RUN(test_restart_not_stalled);
    return tl_finish();
}
