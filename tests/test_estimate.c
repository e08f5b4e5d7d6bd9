/*
 * test_estimate.c — the memory estimate (plan/estimate.h) is honest: for scenarios of several
 * sizes and kinds (traffic, ring and tree collectives, a training job) the estimate is within a
 * factor of 2 of the peak RSS measured when the run is built and simulated to its end. Each run
 * happens in a forked child so that its peak (ru_maxrss from wait4) is its own.
 *
 * Under ASan the RSS is the sanitizer's (shadow memory, redzones, a quarantine of freed blocks),
 * not the program's, so that build only checks the estimate's shape (the parts add up, a larger
 * job needs more, a 1-byte-chunk plan is astronomically large) and prints the figures; the
 * Release build (CI runs both) checks the factor.
 */
#define _DEFAULT_SOURCE /* wait4 */

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "plan/estimate.h"
#include "testlib.h"
#include "transport/nic.h"
#include "workload/run.h"

#define FACTOR 2.0

/* Peak RSS in bytes of building and running `yaml` in a child; 0 on failure. */
static uint64_t measured_peak(const char *yaml)
{
    pid_t pid = fork();
    if (pid == 0) {
        scenario sc;
        err e;
        if (config_load_buffer(&sc, "est.yaml", yaml, strlen(yaml), NULL, 0, &e))
            _exit(2);
        run *r = run_new(&sc, &e);
        if (!r)
            _exit(3);
        run_execute(r, NULL, NULL);
        _exit(0);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024;
}

static uint64_t estimated(const char *yaml, mem_estimate *m)
{
    scenario sc;
    err e;
    err_clear(&e);
    if (config_load_buffer(&sc, "est.yaml", yaml, strlen(yaml), NULL, 0, &e)) {
        fprintf(stderr, "config: %s\n", e.msg);
        return 0;
    }
    int rc = mem_estimate_run(&sc, m, &e);
    scenario_free(&sc);
    CHECK_EQ_U64(rc, 0);
    uint64_t sum = 0;
    for (int i = 0; i < MEM_PARTS; i++)
        sum += m->part[i];
    CHECK_EQ_U64(sum, m->total);
    return m->total;
}

static void compare(const char *what, const char *yaml)
{
    mem_estimate m;
    uint64_t est = estimated(yaml, &m);
    uint64_t rss = measured_peak(yaml);
    CHECK(est > 0);
    CHECK(rss > 0);
    double ratio = rss ? (double)est / (double)rss : 0;
    printf("  %-34s estimate %8.1f MB  measured peak %8.1f MB  ratio %.2f\n", what, est / 1e6,
           rss / 1e6, ratio);
#ifndef WR_SANITIZED
    CHECK(ratio >= 1.0 / FACTOR && ratio <= FACTOR);
#endif
}

static void test_estimate_vs_rss(void)
{
#ifdef WR_SANITIZED
    puts("  skipped under ASan (its RSS is the sanitizer's; the Release build checks this)");
    return;
#endif
    compare("traffic, 32 hosts, 4 MB each",
            "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16}\n"
            "workload: [{kind: traffic, pattern: permutation, size: 4MB}]\n");
    compare("traffic all-to-all, 64 hosts",
            "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
            "workload: [{kind: traffic, pattern: all-to-all, size: 64KB}]\n");
    compare("ring all_reduce, 64 ranks, 256 MiB",
            "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16,\n"
            "         host_link: 800Gbps, fabric_link: 800Gbps}\n"
            "workload: [{kind: collective, op: all_reduce, size: 256MiB, chunk: 64KiB}]\n"
            "stop_at: 300us\n");
    compare("tree all_reduce, 128 ranks, 64 MiB",
            "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 8, leaf_radix: 32}\n"
            "workload: [{kind: collective, op: all_reduce, algorithm: tree, size: 64MiB,\n"
            "            channels: 2, chunk: 32KiB}]\n"
            "stop_at: 300us\n");
    compare("training tp 8 pp 2 dp 2",
            "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16}\n"
            "workload: [{kind: training, model: {params: 1e9, layers: 8, hidden: 2048,\n"
            "            seq_len: 2048, vocab: 32000}, parallelism: {tp: 8, pp: 2, dp: 2},\n"
            "            global_batch: 8}]\n");
    compare("training tp 8 pp 4, 512 micro-batches",
            "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16}\n"
            "workload: [{kind: training, model: {params: 1e9, layers: 32, hidden: 2048,\n"
            "            seq_len: 2048, vocab: 32000}, parallelism: {tp: 8, pp: 4, dp: 1},\n"
            "            global_batch: 512}]\n"
            "stop_at: 50us\n");
}

static void test_estimate_shape(void)
{
    mem_estimate small, big, tiny;
    /* a stored plan (tree) grows with its transfers */
    uint64_t a = estimated("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,"
                           " leaf_radix: 16}\n"
                           "workload: [{kind: collective, algorithm: tree, size: 64MiB}]\n",
                           &small);
    uint64_t b = estimated("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,"
                           " leaf_radix: 16}\n"
                           "workload: [{kind: collective, algorithm: tree, size: 1GiB}]\n",
                           &big);
    CHECK(b > a);
    CHECK(big.part[MEM_COLLECTIVES] > 8 * small.part[MEM_COLLECTIVES]);
    CHECK_EQ_U64(big.biggest_job, 0);
    /* a chunk of one MTU on 1 GiB over 64 ranks: 2·2·63 tree slots × 128 Ki transfers ≈ 33 M */
    estimated("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
              "workload: [{kind: collective, algorithm: tree, size: 1GiB, chunk: 4096B}]\n",
              &tiny);
    CHECK(tiny.part[MEM_COLLECTIVES] > 1000000000ull);
    /* a ring all_reduce is a compact plan (collective.h): the same 33 M transfers cost
     * kilobytes of plan; what remains is the transport's, a message (and a piece on its one QP)
     * for each of the 64 × 4096 chains, posted at once on the first step; and two times per
     * transfer for transfers.csv, up to its 2 M-row cap */
    mem_estimate ring, ring_csv;
    estimated("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
              "workload: [{kind: collective, size: 1GiB, chunk: 4096B}]\n",
              &ring);
    uint64_t posted = 64ull * 4096 * (sizeof(msg) + sizeof(piece));
    CHECK(ring.part[MEM_COLLECTIVES] >= posted);
    CHECK(ring.part[MEM_COLLECTIVES] < posted + 16000000ull);
    estimated("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n"
              "workload: [{kind: collective, size: 1GiB, chunk: 4096B}]\n"
              "output: {formats: [csv]}\n",
              &ring_csv);
    CHECK_EQ_U64(ring_csv.part[MEM_COLLECTIVES] - ring.part[MEM_COLLECTIVES],
                 (uint64_t)TRANSFERS_MAX * 16);
    const char *src = NULL;
    uint64_t avail = mem_available_bytes(&src);
    printf("  available: %.1f MB (%s)\n", avail / 1e6, src ? src : "unknown");
    CHECK(avail > 0 && src != NULL);
}

int main(void)
{
    TEST_RUN(test_estimate_shape);
    TEST_RUN(test_estimate_vs_rss);
    return tl_finish();
}
