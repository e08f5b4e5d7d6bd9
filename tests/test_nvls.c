/*
 * test_nvls.c — NVLink SHARP all_reduce (algorithm nvls, collective.h): inside one 8-GPU
 * NVSwitch domain every GPU moves S + S/n each way over its NVLink (switch reads of its data,
 * the reduced slice back, its multicast store, the copies of every slice), so an iteration takes
 * (n+1)/n·S/B plus the pipeline's fill and drain, against ring's 2(n−1)/n·S/B; the scale-up
 * bytes are exactly iterations × (2n + 2) × S; the switch returns a reduced chunk only after
 * every GPU's contribution to it has arrived; reruns are identical.
 */
#include <string.h>

#include "config/config.h"
#include "testlib.h"
#include "workload/collective.h"
#include "workload/run.h"

#define N 8
#define SIZE (256ull << 20)
#define CHUNK (512ull << 10)
#define YAML(algo)                                                                                 \
    "fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"                            \
    "output: {formats: [json, csv]}\n"                                                             \
    "workload:\n"                                                                                  \
    "  - {name: ar, kind: collective, op: all_reduce, algorithm: " algo ", size: 256MiB,\n"        \
    "     iterations: 2}\n"

typedef struct result {
    sim_time end_ps, iter_ps[2];
    double busbw;
    uint64_t scale_up, n_transfers, hash;
    int deps_ok;
} result;

static int run_one(const char *yaml, result *out)
{
    scenario sc;
    run *r = tl_start(&sc, "nvls.yaml", yaml, NULL, 0);
    if (!r)
        return -1;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const job_result *j = &st->jobs[0];
    CHECK(j->completed);
    memset(out, 0, sizeof *out);
    out->end_ps = st->end_ps;
    out->iter_ps[0] = j->iterations[0].time_ps;
    out->iter_ps[1] = j->iterations[1].time_ps;
    out->busbw = j->busbw_GBps;
    out->scale_up = st->scale_up_bytes;
    out->n_transfers = st->n_transfers;
    out->deps_ok = 1;
    uint64_t h = 1469598103934665603ull;
    for (uint64_t i = 0; i < st->n_transfers; i++) {
        h = (h ^ st->transfers[i].start_ps) * 1099511628211ull;
        h = (h ^ st->transfers[i].end_ps) * 1099511628211ull;
    }
    out->hash = h;
    if (j->algorithm == ALGO_NVLS) {
        /* plan order per (chunk, slice): N reads (step 0), the reduced return (step 1), the
         * store (2), N copies (3). The return must start after every read of its group ended. */
        uint64_t g = 2 * N + 2, groups = 0;
        for (uint64_t i = 0; i + g <= st->n_transfers; i += g) {
            const transfer_record *t = &st->transfers[i];
            if (t[0].iteration != 0)
                break;
            sim_time last = 0;
            for (int k = 0; k < N; k++) {
                out->deps_ok &= t[k].step == 0 && t[k].dst_gpu == TRANSFER_GROUP;
                last = t[k].end_ps > last ? t[k].end_ps : last;
            }
            out->deps_ok &= t[N].step == 1 && t[N].src_gpu == TRANSFER_GROUP;
            out->deps_ok &= t[N].start_ps >= last;
            out->deps_ok &= t[N + 1].step == 2 && t[N + 1].start_ps >= t[N].end_ps;
            groups++;
        }
        CHECK_EQ_U64(groups, (uint64_t)N * (SIZE / N / CHUNK));
    }
    run_free(r);
    scenario_free(&sc);
    return 0;
}

static void test_nvls_closed_form(void)
{
    result nv, ring;
    if (run_one(YAML("nvls"), &nv) || run_one(YAML("ring"), &ring))
        return;
    /* B: the NVLink rate NCCL achieves, 450 GB/s × 370/450 */
    double B = 370e9, S = (double)SIZE, lat = 1e-6, c = (double)CHUNK;
    double nvls_s = (N + 1.0) / N * S / B, ring_s = 2.0 * (N - 1) / N * S / B;
    for (int k = 0; k < 2; k++) {
        double t = (double)nv.iter_ps[k] * 1e-12;
        CHECK(t >= nvls_s);
        /* fill and drain: at most a round of reads, the reduced chunk, the store and the
         * copies of the last chunk (2n + 2 chunks at B) and four latencies */
        CHECK(t <= nvls_s + (2.0 * N + 2) * c / B + 4 * lat);
    }
    double tr = (double)ring.iter_ps[0] * 1e-12;
    CHECK(tr >= ring_s);
    CHECK(tr < ring_s * 1.05);
    /* busbw as nccl-tests reports it for any algorithm: algbw × 2(n−1)/n; NVLS beats the
     * link rate, ring does not */
    CHECK(nv.busbw > 370.0 * 1.45);
    CHECK(nv.busbw <= 2.0 * (N - 1) / (N + 1) * 370.0 + 1e-9);
    CHECK(ring.busbw <= 370.0 + 1e-9);
    /* bytes over NVLink: per iteration n·S reads + S reduced + S stores + n·S copies */
    CHECK_EQ_U64(nv.scale_up, 2ull * (2 * N + 2) * SIZE);
    CHECK_EQ_U64(ring.scale_up, 2ull * 2 * (N - 1) * SIZE);
    CHECK(nv.deps_ok);
}

static void test_nvls_rerun_identical(void)
{
    result a, b;
    if (run_one(YAML("nvls"), &a) || run_one(YAML("nvls"), &b))
        return;
    CHECK_EQ_U64(a.end_ps, b.end_ps);
    CHECK_EQ_U64(a.n_transfers, b.n_transfers);
    CHECK_EQ_U64(a.hash, b.hash);
}

/* Ranks on two servers: refused (SHARP across the fabric is not modelled). */
static void test_nvls_one_domain_only(void)
{
    coll_params p = {.op = OP_ALL_REDUCE,
                     .algo = ALGO_NVLS,
                     .n_ranks = 16,
                     .gpus_per_server = 8,
                     .size_bytes = 1 << 20};
    arena a;
    arena_init(&a, "t");
    err e;
    err_clear(&e);
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    CHECK(strstr(e.msg, "every rank must be on one server") != NULL);
    p.n_ranks = 8;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &a, &e);
    CHECK(pl && pl->nvswitch && coll_plan_check(pl) == NULL);
    p.op = OP_ALL_TO_ALL;
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    arena_free(&a);
}

/* reduce_scatter and all_gather of a 256 MiB array: per GPU S out (reads) and S/n in (its
 * block), or S/n out (its store) and (n−1)/n·S in (the others' blocks); time at the busier
 * direction, bytes exact. */
static void test_nvls_rs_ag(void)
{
    const char *ops[2] = {"reduce_scatter", "all_gather"};
    double B = 370e9, S = (double)SIZE, lat = 1e-6, c = (double)CHUNK;
    for (int o = 0; o < 2; o++) {
        char y[512];
        snprintf(y, sizeof y,
                 "fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"
                 "workload:\n"
                 "  - {name: x, kind: collective, op: %s, algorithm: nvls, size: 256MiB}\n",
                 ops[o]);
        scenario sc;
        run *r = tl_start(&sc, "nvls.yaml", y, NULL, 0);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        CHECK(st->jobs[0].completed);
        double t = (double)st->jobs[0].iterations[0].time_ps * 1e-12;
        double want = o == 0 ? S / B : (N - 1.0) / N * S / B;
        CHECK(t >= want);
        CHECK(t <= want + (2.0 * N + 2) * c / B + 4 * lat);
        CHECK_EQ_U64(st->scale_up_bytes, o == 0 ? (N + 1) * SIZE : N * SIZE);
        run_free(r);
        scenario_free(&sc);
    }
}

int main(void)
{
    TEST_RUN(test_nvls_rs_ag);
    TEST_RUN(test_nvls_closed_form);
    TEST_RUN(test_nvls_rerun_identical);
    TEST_RUN(test_nvls_one_domain_only);
    return tl_finish();
}
