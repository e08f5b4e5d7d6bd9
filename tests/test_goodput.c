/*
 * test_goodput.c — the Monte Carlo of a long run under failures against its closed form:
 * exact without failures, within sampling bounds of Daly's expected time with exponential
 * failures and a fixed restart; the best interval near the Young/Daly optimum; seeded.
 */
#include <math.h>
#include <stdlib.h>

#include "config/config.h"
#include "testlib.h"
#include "workload/goodput.h"
#include "workload/run.h"

static double scratch[20000];

static void test_no_failures_exact(void)
{
    goodput_in in = {.iter_s = 2.5,
                     .iterations = 1000,
                     .interval = 30,
                     .write_s = 7,
                     .restart_s = 600,
                     .lambda_per_s = 0,
                     .samples = 50,
                     .seed = 1};
    goodput_out o;
    CHECK(goodput_run(&in, scratch, &o) == 0);
    /* 33 checkpoints (after 30, 60, ..., 990), none after the last iteration */
    double want = 1000 * 2.5 + 33 * 7;
    CHECK(o.mean_s == want && o.p50_s == want && o.p90_s == want);
    CHECK(goodput_expected_s(&in) == want);
    CHECK(o.failures_mean == 0);
    in.interval = 0; /* no checkpoint at all */
    CHECK(goodput_run(&in, scratch, &o) == 0);
    CHECK(o.mean_s == 2500);
}

/* Exponential failures, fixed restart: the sample mean is within 5 standard errors of the
 * closed form e^{ΛR}(e^{Λs} − 1)/Λ summed over the segments. */
static void test_matches_daly_closed_form(void)
{
    static const struct {
        double T, W, R, mtbf;
        uint32_t I;
        uint64_t N;
    } c[] = {
        {10, 30, 600, 3600 * 3.1, 100, 20000}, /* 16k GPUs at Llama 3's rate */
        {10, 30, 600, 3600 * 50, 300, 100000}, /* 1k GPUs */
        {1, 5, 60, 300, 20, 5000},             /* failures every 5 min: heavy losses */
        {4, 0, 120, 7200, 1, 3000},            /* free checkpoints every iteration */
        {3, 10, 100, 1000, 0, 200},            /* no checkpoint: all or nothing */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        goodput_in in = {.iter_s = c[k].T,
                         .iterations = c[k].N,
                         .interval = c[k].I,
                         .write_s = c[k].W,
                         .restart_s = c[k].R,
                         .lambda_per_s = 1.0 / c[k].mtbf,
                         .samples = 20000,
                         .seed = 7};
        goodput_out o;
        CHECK(goodput_run(&in, scratch, &o) == 0);
        double var = 0;
        for (uint32_t i = 0; i < in.samples; i++)
            var += (scratch[i] - o.mean_s) * (scratch[i] - o.mean_s);
        double se = sqrt(var / (in.samples - 1) / in.samples);
        fprintf(stderr,
                "  T %g W %g R %g MTBF %gs I %u N %llu: mean %.1f h (closed form %.1f h, se "
                "%.3f h), p50 %.1f h, p90 %.1f h, goodput %.4f, %.2f failures\n",
                c[k].T, c[k].W, c[k].R, c[k].mtbf, c[k].I, (unsigned long long)c[k].N,
                o.mean_s / 3600, o.expected_s / 3600, se / 3600, o.p50_s / 3600, o.p90_s / 3600,
                o.goodput_mean, o.failures_mean);
        CHECK(fabs(o.mean_s - o.expected_s) < 5 * se + 1e-9 * o.expected_s);
        CHECK(o.p50_s <= o.p90_s);
        CHECK(o.segment_cap_hits == 0);
    }
}

/* The best interval found by sampling sits near Daly's first-order optimum, and Daly's interval
 * loses little goodput against it. */
static void test_optimum_near_daly(void)
{
    goodput_in in = {.iter_s = 10,
                     .iterations = 50000,
                     .write_s = 60,
                     .restart_s = 600,
                     .lambda_per_s = 1.0 / (3600 * 10),
                     .samples = 4000,
                     .seed = 3};
    goodput_out best, at_daly;
    uint32_t I = goodput_optimize(&in, scratch, &best);
    double daly = goodput_daly_s(in.write_s, in.lambda_per_s) / in.iter_s;
    double young = goodput_young_s(in.write_s, in.lambda_per_s) / in.iter_s;
    in.interval = (uint32_t)floor(daly + 0.5);
    CHECK(goodput_run(&in, scratch, &at_daly) == 0);
    fprintf(stderr,
            "  best interval %u iterations (goodput %.4f); Daly %.1f (goodput %.4f), Young "
            "%.1f\n",
            I, best.goodput_mean, daly, at_daly.goodput_mean, young);
    CHECK(I > 0);
    CHECK(I >= daly / 2 && I <= daly * 2);
    CHECK(best.goodput_mean >= at_daly.goodput_mean);
    CHECK(at_daly.goodput_mean > best.goodput_mean - 0.01);
    CHECK(young > daly);
}

/* Failures far faster than a restart: refused, not sampled forever (every run ends). */
static void test_hopeless_ends(void)
{
    goodput_in in = {.iter_s = 10,
                     .iterations = 1000,
                     .interval = 10,
                     .write_s = 30,
                     .restart_s = 600,
                     .lambda_per_s = 1.0 / 10,
                     .samples = 10,
                     .seed = 1};
    goodput_out o;
    CHECK(goodput_run(&in, scratch, &o) == -2);
    CHECK(goodput_optimize(&in, scratch, &o) == 0);
}

static void test_seeded(void)
{
    goodput_in in = {.iter_s = 10,
                     .iterations = 5000,
                     .interval = 50,
                     .write_s = 30,
                     .restart_s = 300,
                     .lambda_per_s = 1.0 / 3600,
                     .samples = 500,
                     .seed = 11};
    goodput_out a, b;
    CHECK(goodput_run(&in, scratch, &a) == 0);
    CHECK(goodput_run(&in, scratch, &b) == 0);
    CHECK(a.mean_s == b.mean_s && a.p90_s == b.p90_s);
    in.seed = 12;
    CHECK(goodput_run(&in, scratch, &b) == 0);
    CHECK(a.mean_s != b.mean_s);
}

/* Through a run: the job's footprint and interruption rate, the simulated iteration time. */
static void test_from_run(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"
        "workload:\n"
        "  - kind: training\n"
        "    model: {params: 1e9, layers: 4, hidden: 1024, seq_len: 512}\n"
        "    parallelism: {tp: 8}\n"
        "    global_batch: 2\n"
        "    iterations: 3\n"
        "    checkpoint: {interval: 500, write_time: 2s, restart_time: 300s}\n"
        "goodput: {iterations: 1000000, samples: 200, rates: {gpu: 1e-3, nic: 1e-4, link: 2e-4,\n"
        "          switch: 1e-3, host: 5e-3, other: 0}}\n";
    scenario sc;
    run *r = tl_start(&sc, "gp.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const goodput_result *g = &st->goodput;
    CHECK(g->on && g->ok);
    CHECK_EQ_U64(g->gpus, 8);
    CHECK_EQ_U64(g->nics, 8);
    CHECK_EQ_U64(g->links, 8);
    CHECK_EQ_U64(g->leaves, 1);
    CHECK_EQ_U64(g->servers, 1);
    CHECK(fabs(g->lambda_per_h - (8e-3 + 8e-4 + 16e-4 + 1e-3 + 5e-3)) < 1e-12);
    double T = (double)st->jobs[0].iterations[0].time_ps * 1e-12;
    CHECK(fabs(g->iter_s - T) < 1e-15);
    goodput_in in = {.iter_s = g->iter_s,
                     .iterations = 1000000,
                     .interval = 500,
                     .write_s = 2,
                     .restart_s = 300,
                     .lambda_per_s = g->lambda_per_h / 3600};
    CHECK(fabs(g->at_interval.expected_s - goodput_expected_s(&in)) <
          1e-9 * goodput_expected_s(&in));
    CHECK(g->best.goodput_mean >= g->at_interval.goodput_mean);
    fprintf(stderr,
            "  T %.4g s, %.4g interruptions/h: interval 500 goodput %.4f, best %u: %.4f "
            "(Daly %.1f)\n",
            g->iter_s, g->lambda_per_h, g->at_interval.goodput_mean, g->best_interval,
            g->best.goodput_mean, g->daly_iters);
    run_free(r);
    scenario_free(&sc);
}

int main(void)
{
    TEST_RUN(test_no_failures_exact);
    TEST_RUN(test_matches_daly_closed_form);
    TEST_RUN(test_optimum_near_daly);
    TEST_RUN(test_seeded);
    TEST_RUN(test_hopeless_ends);
    TEST_RUN(test_from_run);
    return tl_finish();
}
