/*
 * test_traffic.c — traffic jobs (workload/traffic.h, config/cdf.h): Poisson arrivals at their
 * rate, flow sizes following their CDF (Kolmogorov–Smirnov), the published distributions'
 * closed-form means, CSV CDFs, arrivals honoured to the picosecond by the run, and repeated
 * (iterated) traffic jobs whose iterations follow each other exactly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/cdf.h"
#include "config/config.h"
#include "core/alloc.h"
#include "testlib.h"
#include "workload/run.h"
#include "workload/traffic.h"

typedef struct gen {
    uint64_t n, cap;
    traffic_flow *f;
} gen;

static void collect_flow(void *ctx, const traffic_flow *tf)
{
    gen *g = ctx;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->f = xrealloc(g->f, sizeof *g->f * g->cap, "test flows");
    }
    g->f[g->n++] = *tf;
}

static int load(scenario *sc, const char *y)
{
    err e;
    err_clear(&e);
    int rc = config_load_buffer(sc, "traffic.yaml", y, strlen(y), NULL, 0, &e);
    if (rc)
        fprintf(stderr, "%s: %d:%d: %s\n", tl_current, e.line, e.col, e.msg);
    return rc;
}

/* The tables' means in closed form: Σ Δp × (midpoint of the segment). */
static void test_builtin_means(void)
{
    cfg_cdf c;
    CHECK(cdf_builtin("websearch", &c));
    /* 0.15·5e3 + 0.05·15e3 + 0.1·25e3 + 0.1·40e3 + 0.13·65e3 + 0.07·140e3 + 0.1·600e3
     * + 0.1·1.5e6 + 0.1·3.5e6 + 0.07·7.5e6 + 0.03·20e6 */
    CHECK_NEAR(cdf_mean(&c), 1711250.0, 1e-6);
    CHECK_EQ_U64(cdf_quantile(&c, 0.15), 10000);
    CHECK_EQ_U64(cdf_quantile(&c, 0.95), 8571429); /* 5M + 0.05/0.07 x 5M, rounded */
    CHECK_NEAR(cdf_at(&c, 65000), 0.465, 1e-12);
    CHECK(cdf_builtin("datamining", &c));
    CHECK_NEAR(cdf_mean(&c), 5036535.175, 1e-3);
    CHECK_NEAR(cdf_at(&c, 10000), 0.8, 1e-12);
    CHECK(!cdf_builtin("hadoop", &c));
}

/* A seeded Poisson run: the count matches λT within 4σ, each source's share its binomial
 * bound, the gaps' mean 1/λ, sizes the CDF (KS at α = 0.001), destinations never the source. */
static void test_poisson_rate_and_cdf(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1, host_link: 400Gbps}\n"
        "workload: [{name: bg, kind: traffic, pattern: uniform, load: 0.5, size_cdf: websearch,"
        " duration: 200ms}]\n";
    scenario sc;
    if (load(&sc, y)) {
        CHECK(0);
        return;
    }
    err e;
    err_clear(&e);
    uint64_t n = traffic_flow_count(&sc, 0, 8, &e);
    gen g = {0, 0, NULL};
    traffic_flows(&sc, 0, 8, collect_flow, &g);
    CHECK_EQ_U64(g.n, n);
    double lambda = 8 * 0.5 * 400e9 / (8 * 1711250.0); /* flows per second, whole job */
    CHECK_NEAR(traffic_arrival_rate(&sc.jobs[0], &sc, 8), lambda, 1e-6);
    double expect = lambda * 0.2;
    fprintf(stderr, "  %llu arrivals, expected %.1f (sd %.1f)\n", (unsigned long long)g.n, expect,
            sqrt(expect));
    CHECK(fabs((double)g.n - expect) < 4 * sqrt(expect));
    uint64_t per[8] = {0};
    double gaps = 0;
    sim_time prev = 0;
    bool ordered = true, distinct = true;
    for (uint64_t i = 0; i < g.n; i++) {
        per[g.f[i].src]++;
        distinct &= g.f[i].src != g.f[i].dst && g.f[i].dst < 8;
        ordered &= g.f[i].at_ps >= prev && g.f[i].at_ps < 200 * SIM_MS;
        gaps += (double)(g.f[i].at_ps - prev);
        prev = g.f[i].at_ps;
    }
    CHECK(ordered);
    CHECK(distinct);
    for (int h = 0; h < 8; h++) { /* binomial(n, 1/8) */
        double m = (double)g.n / 8, sd = sqrt((double)g.n * (1.0 / 8) * (7.0 / 8));
        CHECK(fabs((double)per[h] - m) < 4 * sd);
    }
    double mean_gap = gaps / (double)g.n, want = 1e12 / lambda;
    /* the mean of n exponential gaps: sd = mean / sqrt(n) */
    CHECK(fabs(mean_gap - want) < 4 * want / sqrt((double)g.n));
    /* KS: sizes are rounded to bytes, so P(size <= k) = F(k + 0.5) */
    uint64_t *s = xmalloc(sizeof(uint64_t) * g.n, "sizes");
    for (uint64_t i = 0; i < g.n; i++)
        s[i] = g.f[i].bytes;
    int cmp(const void *a, const void *b);
    qsort(s, g.n, sizeof *s, (int (*)(const void *, const void *))cmp);
    double d = 0;
    for (uint64_t i = 0; i < g.n; i++) {
        if (i + 1 < g.n && s[i + 1] == s[i])
            continue;
        double fe = (double)(i + 1) / (double)g.n, ft = cdf_at(&sc.jobs[0].size_cdf, s[i] + 0.5);
        d = fmax(d, fabs(fe - ft));
    }
    double crit = 1.95 / sqrt((double)g.n);
    fprintf(stderr, "  KS D = %.5f (critical %.5f at alpha 0.001)\n", d, crit);
    CHECK(d < crit);
    /* same seed, same flows */
    gen g2 = {0, 0, NULL};
    traffic_flows(&sc, 0, 8, collect_flow, &g2);
    CHECK(g2.n == g.n && !memcmp(g2.f, g.f, sizeof *g.f * g.n));
    xfree(s);
    xfree(g.f);
    xfree(g2.f);
    scenario_free(&sc);
}

int cmp(const void *a, const void *b);
int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* `count` caps the arrivals; a `hosts` set confines sources and destinations. */
static void test_count_and_hosts(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 8, gpus_per_server: 1}\n"
        "workload: [{kind: traffic, pattern: uniform, load: 0.2, size: 10KB, count: 500,"
        " hosts: [2, 5, 6]}]\n";
    scenario sc;
    if (load(&sc, y)) {
        CHECK(0);
        return;
    }
    err e;
    err_clear(&e);
    CHECK_EQ_U64(traffic_flow_count(&sc, 0, 8, &e), 500);
    gen g = {0, 0, NULL};
    traffic_flows(&sc, 0, 8, collect_flow, &g);
    bool in = true;
    for (uint64_t i = 0; i < g.n; i++) {
        uint32_t a = g.f[i].src, b = g.f[i].dst;
        in &= (a == 2 || a == 5 || a == 6) && (b == 2 || b == 5 || b == 6) && a != b &&
              g.f[i].bytes == 10000;
    }
    CHECK(in);
    xfree(g.f);
    scenario_free(&sc);
}

static void test_csv_cdf(void)
{
    cfg_cdf c;
    arena a;
    arena_init(&a, "test cdf");
    err e;
    err_clear(&e);
    static const char ok[] = "# bytes percent\n0 0\n1KB 50\n\n3000,100\n";
    CHECK(cdf_parse_csv(ok, strlen(ok), "x.csv", &a, &c, &e) == 0);
    CHECK_EQ_U64(c.n, 3);
    CHECK_NEAR(cdf_mean(&c), 0.5 * 500 + 0.5 * 2000, 1e-9);
    static const char dec[] = "100,0.5\n50,1\n";
    err_clear(&e);
    CHECK(cdf_parse_csv(dec, strlen(dec), "x.csv", &a, &c, &e) == ERR_INVALID);
    CHECK_EQ_U64(e.line, 2);
    CHECK(strstr(e.msg, "sizes must increase") != NULL);
    static const char last[] = "100,0.5\n200,0.9\n";
    err_clear(&e);
    CHECK(cdf_parse_csv(last, strlen(last), "x.csv", &a, &c, &e) == ERR_INVALID);
    CHECK(strstr(e.msg, "must be 1") != NULL);
    static const char bad[] = "100,0.5\n200,x\n";
    err_clear(&e);
    CHECK(cdf_parse_csv(bad, strlen(bad), "x.csv", &a, &c, &e) == ERR_INVALID);
    CHECK_EQ_U64(e.line, 2);
    CHECK_EQ_U64(e.col, 5);
    static const char zero[] = "0,1\n";
    err_clear(&e);
    CHECK(cdf_parse_csv(zero, strlen(zero), "x.csv", &a, &c, &e) == ERR_INVALID);
    CHECK(strstr(e.msg, "at least 1 byte") != NULL);
    arena_free(&a);
}

/* The run starts every flow at its job's start plus its arrival offset, to the picosecond. */
static void test_run_arrivals(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 4, gpus_per_server: 1}\n"
        "workload: [{kind: traffic, pattern: uniform, load: 0.3, size: 64KB, count: 40,"
        " start: 3us}]\n";
    scenario sc;
    run *r = tl_start(&sc, "traffic.yaml", y, NULL, 0);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    gen g = {0, 0, NULL};
    traffic_flows(&sc, 0, 4, collect_flow, &g);
    CHECK_EQ_U64(st->n_flows, 40);
    CHECK_EQ_U64(st->flows_completed, 40);
    bool exact = g.n == st->n_flows;
    for (uint64_t i = 0; exact && i < g.n; i++)
        exact = st->flows[i].start_ps == 3 * SIM_US + g.f[i].at_ps &&
                st->flows[i].src_host == g.f[i].src && st->flows[i].dst_host == g.f[i].dst;
    CHECK(exact);
    const job_result *j = &st->jobs[0];
    CHECK(j->completed && j->jct_ps >= j->ideal_jct_ps);
    /* the last arrival alone bounds the job */
    CHECK(j->ideal_jct_ps > g.f[g.n - 1].at_ps);
    xfree(g.f);
    run_free(r);
    scenario_free(&sc);
}

/* iterations: 3 — each iteration's flows start when the previous iteration's last flow has
 * arrived; the iterations' times add up to the JCT. */
static void test_repeated_job(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 4, gpus_per_server: 1}\n"
        "nic: {cc: none}\n"
        "workload: [{kind: traffic, pattern: incast, size: 100KB, iterations: 3, start: 1us}]\n";
    scenario sc;
    run *r = tl_start(&sc, "traffic.yaml", y, NULL, 0);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const job_result *j = &st->jobs[0];
    CHECK_EQ_U64(st->n_flows, 9);
    CHECK(j->completed);
    CHECK_EQ_U64(j->n_iterations, 3);
    sim_time sum = 0, prev_end = 1 * SIM_US;
    for (uint32_t k = 0; k < j->n_iterations; k++) {
        sim_time end = 0;
        for (uint32_t i = 3 * k; i < 3 * k + 3; i++) {
            CHECK_EQ_U64(st->flows[i].start_ps, prev_end);
            end = st->flows[i].end_ps > end ? st->flows[i].end_ps : end;
        }
        CHECK_EQ_U64(j->iterations[k].time_ps, end - prev_end);
        sum += j->iterations[k].time_ps;
        prev_end = end;
    }
    CHECK_EQ_U64(sum, j->jct_ps);
    /* idle fabric, no CC: the same incast takes the same time each iteration */
    CHECK_EQ_U64(j->iterations[0].time_ps, j->iterations[2].time_ps);
    CHECK(j->jct_ps >= j->ideal_jct_ps);
    run_free(r);
    scenario_free(&sc);
}

/* pattern list: flows in flows.csv order (timed ones by start, then the waiting ones in file
 * order), each timed flow at its start after its iteration's, each waiting flow started at
 * exactly the end of the last flow it waits for (a barrier of two, and a chain), in both
 * iterations; the second iteration begins when the first's last flow ends. The ideal never
 * exceeds the JCT. */
static void test_list_chains(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 5, gpus_per_server: 1}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - kind: traffic\n"
        "    pattern: list\n"
        "    iterations: 2\n"
        "    start: 2us\n"
        "    flows:\n"
        "      - {id: 5, src: 3, dst: 4, size: 20KB, after: [1, 2]}\n"
        "      - {id: 1, src: 0, dst: 1, size: 300KB, start: 1us}\n"
        "      - {id: 2, src: 2, dst: 1, size: 100KB}\n"
        "      - {id: 6, src: 4, dst: 0, size: 10KB, after: [5]}\n";
    scenario sc;
    run *r = tl_start(&sc, "traffic.yaml", y, NULL, 0);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const job_result *j = &st->jobs[0];
    CHECK_EQ_U64(st->n_flows, 8);
    CHECK(j->completed);
    CHECK_EQ_U64(j->size_bytes, (20000 + 300000 + 100000 + 10000) / 4);
    sim_time it0 = 2 * SIM_US;
    for (uint32_t k = 0; k < 2 && st->n_flows == 8; k++) {
        const flow_record *f = &st->flows[4 * k];
        /* order: 2->1 (start 0), 0->1 (start 1 us), 3->4 (after 1, 2), 4->0 (after 5) */
        CHECK(f[0].src_host == 2 && f[1].src_host == 0 && f[2].src_host == 3 &&
              f[3].src_host == 4);
        CHECK_EQ_U64(f[0].start_ps, it0);
        CHECK_EQ_U64(f[1].start_ps, it0 + 1 * SIM_US);
        sim_time last = f[0].end_ps > f[1].end_ps ? f[0].end_ps : f[1].end_ps;
        CHECK(f[0].end_ps != f[1].end_ps);
        CHECK_EQ_U64(f[2].start_ps, last);
        CHECK_EQ_U64(f[3].start_ps, f[2].end_ps);
        CHECK_EQ_U64(j->iterations[k].time_ps, f[3].end_ps - it0);
        it0 = f[3].end_ps;
    }
    CHECK(j->ideal_jct_ps > 0 && j->ideal_jct_ps <= j->jct_ps);
    run_free(r);
    scenario_free(&sc);
}

/* The keys this file's features add parse into the scenario (and bad values are refused). */
static void test_config_keys(void)
{
    static const char y[] =
        "workload:\n"
        "  - {kind: traffic, pattern: uniform, load: 0.25, size_cdf: datamining, duration: 2ms,"
        " count: 7, iterations: 2}\n"
        "  - kind: training\n"
        "    model: {params: 1e9, layers: 8, hidden: 1024}\n"
        "    parallelism: {tp: 2, pp: 2, dp: 2, vp: 2}\n"
        "    moe: {experts: 8, top_k: 1, ep: 2, skew: 0.7}\n";
    scenario sc;
    if (load(&sc, y)) {
        CHECK(0);
        return;
    }
    const cfg_job *t = &sc.jobs[0], *m = &sc.jobs[1];
    CHECK(t->pattern == PAT_UNIFORM && t->load == 0.25 && t->count == 7);
    CHECK_EQ_U64(t->duration_ps, 2 * SIM_MS);
    CHECK_STR(t->size_cdf.name, "datamining");
    CHECK_EQ_U64(t->size_cdf.n, 17);
    CHECK_EQ_U64(t->iterations, 2);
    CHECK_EQ_U64(m->vp, 2);
    CHECK(m->moe_experts == 8 && m->moe_top_k == 1 && m->moe_ep == 2 && m->moe_skew == 0.7);
    scenario_free(&sc);
    static const char bad[] = "workload:\n"
                              "  - kind: training\n"
                              "    model: {params: 1e9, layers: 8, hidden: 1024}\n"
                              "    moe: {top_k: 2}\n";
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "t.yaml", bad, strlen(bad), NULL, 0, &e) == ERR_INVALID);
    CHECK(strstr(e.msg, "experts") != NULL);
}

int main(void)
{
    TEST_RUN(test_config_keys);
    TEST_RUN(test_builtin_means);
    TEST_RUN(test_poisson_rate_and_cdf);
    TEST_RUN(test_count_and_hosts);
    TEST_RUN(test_csv_cdf);
    TEST_RUN(test_run_arrivals);
    TEST_RUN(test_repeated_job);
    TEST_RUN(test_list_chains);
    return tl_finish();
}
