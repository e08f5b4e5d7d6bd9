/*
 * test_sweep.c — the sweep file and the results database (sweep/sweep.h, report/resultsdb.h):
 *   - every tests/bad_sweep/NAME.yaml fails sweep_load + sweep_validate with exactly the line in
 *     NAME.err ("NAME.yaml:LINE:COL: error: MESSAGE"), the scenario loader's format; _base.yaml
 *     is the (valid) base scenario they refer to;
 *   - run numbering: the grid varies the last axis fastest and the seeds innermost; zip pairs
 *     the i-th values; `seeds: 3` is 1, 2, 3; the definition hash changes with any value;
 *   - each run's scenario carries its overrides;
 *   - a run's rows inserted into a database read back equal to run_stats (jobs, FCT percentiles
 *     computed again from the flows, every port's counters), and a failure row keeps its error.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/config.h"
#include "report/resultsdb.h"
#include "sweep/sweep.h"
#include "testlib.h"
#include "workload/run.h"

#define BAD_DIR WR_SOURCE_DIR "/tests/bad_sweep"

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void bad_case(const char *name)
{
    char path[1024], errf[1024];
    snprintf(path, sizeof path, "%s/%s.yaml", BAD_DIR, name);
    snprintf(errf, sizeof errf, "%s/%s.err", BAD_DIR, name);
    sweep_def s;
    err e;
    int rc = sweep_load(&s, path, &e);
    if (!rc) {
        rc = sweep_validate(&s, &e);
        sweep_free(&s);
    }
    char got[2048];
    if (!rc) {
        snprintf(got, sizeof got, "(loaded without error)");
    } else {
        const char *b = strrchr(e.file, '/');
        snprintf(got, sizeof got, "%s:%d:%d: error: %s", b ? b + 1 : e.file, e.line, e.col, e.msg);
    }
    if (getenv("WR_UPDATE_BAD")) {
        FILE *f = fopen(errf, "w");
        if (f) {
            fprintf(f, "%s\n", got);
            fclose(f);
        }
    }
    char *want = slurp(errf);
    tl_checks++;
    if (!want) {
        tl_failures++;
        fprintf(stderr, "FAIL %s: missing %s (got: %s)\n", name, errf, got);
        return;
    }
    want[strcspn(want, "\n")] = '\0';
    if (rc != ERR_INVALID || strcmp(want, got) != 0) {
        tl_failures++;
        fprintf(stderr, "FAIL %s (code %d)\n  - %s\n  + %s\n", name, rc, want, got);
    }
    free(want);
}

static void test_bad_sweeps(void)
{
    DIR *d = opendir(BAD_DIR);
    CHECK(d != NULL);
    if (!d)
        return;
    char *names[256];
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL && n < 256) {
        size_t l = strlen(ent->d_name);
        if (ent->d_name[0] != '_' && l > 5 && strcmp(ent->d_name + l - 5, ".yaml") == 0) {
            names[n] = strndup(ent->d_name, l - 5);
            n++;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    for (int i = 0; i < n; i++) {
        bad_case(names[i]);
        free(names[i]);
    }
    CHECK(n >= 15);
}

/* The shipped DCQCN-at-400G sweeps (docs/validation.md) load and validate: 13 runs each, every
 * value accepted by the scenario loader, the first run the defaults. */
static void test_example_dcqcn_sweeps(void)
{
    static const char *const files[] = {WR_SOURCE_DIR "/examples/sweep/dcqcn-400g.yaml",
                                        WR_SOURCE_DIR "/examples/sweep/dcqcn-400g-lb.yaml"};
    for (int i = 0; i < 2; i++) {
        sweep_def s;
        err e;
        CHECK(sweep_load(&s, files[i], &e) == ERR_OK && sweep_validate(&s, &e) == ERR_OK);
        CHECK_EQ_U64(s.n_runs, 13);
        scenario sc;
        CHECK(sweep_load_run(&s, 0, &sc, &e) == ERR_OK);
        CHECK_EQ_U64(sc.nic.cc, CC_DCQCN);
        CHECK_EQ_U64(sc.nic.dcqcn.dce_tcp_g, 1019);
        scenario_free(&sc);
        sweep_free(&s);
    }
}

/* Write a sweep file (and the base scenario beside it) in a temp folder; returns its path. */
static const char *write_sweep(char *dir, const char *body)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/base.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs("fabric: {preset: single-switch, servers: 2, gpus_per_server: 2}\n"
          "workload: [{kind: traffic, pattern: permutation, size: 64KB}]\n",
          f);
    fclose(f);
    snprintf(path, sizeof path, "%s/s.yaml", dir);
    f = fopen(path, "w");
    fputs(body, f);
    fclose(f);
    return path;
}

static void test_numbering(void)
{
    char dir[] = "/tmp/wr-sweep-test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    sweep_def s;
    err e;
    const char *p = write_sweep(dir, "base: base.yaml\n"
                                     "axes:\n"
                                     "  loadbalance.mode: [ecmp, spray]\n"
                                     "  workload.0.size: [1KB, 2KB, 3KB]\n"
                                     "seeds: [7, 9]\n");
    CHECK(sweep_load(&s, p, &e) == ERR_OK);
    CHECK(sweep_validate(&s, &e) == ERR_OK);
    CHECK_EQ_U64(s.n_runs, 12);
    char d[256];
    CHECK_STR(sweep_describe(&s, 0, d, sizeof d),
              "loadbalance.mode=ecmp, workload.0.size=1KB, seed=7");
    CHECK_STR(sweep_describe(&s, 1, d, sizeof d),
              "loadbalance.mode=ecmp, workload.0.size=1KB, seed=9");
    CHECK_STR(sweep_describe(&s, 2, d, sizeof d),
              "loadbalance.mode=ecmp, workload.0.size=2KB, seed=7");
    CHECK_STR(sweep_describe(&s, 11, d, sizeof d),
              "loadbalance.mode=spray, workload.0.size=3KB, seed=9");
    CHECK_EQ_U64(s.run_seed[11], 9);
    scenario sc;
    CHECK(sweep_load_run(&s, 7, &sc, &e) == ERR_OK); /* spray, 1KB, seed 9 */
    CHECK_EQ_U64(sc.lb.mode, LB_SPRAY);
    CHECK_EQ_U64(sc.jobs[0].size_bytes, 1000);
    CHECK_EQ_U64(sc.seed, 9);
    scenario_free(&sc);
    uint64_t h = s.hash;
    sweep_free(&s);

    p = write_sweep(dir, "base: base.yaml\n"
                         "axes:\n"
                         "  loadbalance.mode: [ecmp, spray]\n"
                         "  workload.0.size: [1KB, 2KB, 4KB]\n"
                         "seeds: [7, 9]\n");
    CHECK(sweep_load(&s, p, &e) == ERR_OK && sweep_validate(&s, &e) == ERR_OK);
    CHECK(s.hash != h); /* one value differs: another sweep */
    sweep_free(&s);

    p = write_sweep(dir, "base: base.yaml\nmode: zip\n"
                         "axes:\n"
                         "  loadbalance.mode: [ecmp, spray]\n"
                         "  workload.0.size: [1KB, 2KB]\n"
                         "seeds: 3\n");
    CHECK(sweep_load(&s, p, &e) == ERR_OK && sweep_validate(&s, &e) == ERR_OK);
    CHECK_EQ_U64(s.n_runs, 6);
    CHECK_STR(sweep_describe(&s, 2, d, sizeof d),
              "loadbalance.mode=ecmp, workload.0.size=1KB, seed=3");
    CHECK_STR(sweep_describe(&s, 3, d, sizeof d),
              "loadbalance.mode=spray, workload.0.size=2KB, seed=1");
    sweep_free(&s);

    /* zip: an axis may repeat a value when another axis tells the runs apart */
    p = write_sweep(dir, "base: base.yaml\nmode: zip\n"
                         "axes:\n"
                         "  loadbalance.mode: [ecmp, ecmp, spray]\n"
                         "  workload.0.size: [1KB, 2KB, 1KB]\n");
    CHECK(sweep_load(&s, p, &e) == ERR_OK && sweep_validate(&s, &e) == ERR_OK);
    CHECK_EQ_U64(s.n_runs, 3);
    CHECK_STR(sweep_describe(&s, 1, d, sizeof d), "loadbalance.mode=ecmp, workload.0.size=2KB");
    sweep_free(&s);

    /* no seeds: the base scenario's seed; no axes: one run */
    p = write_sweep(dir, "base: base.yaml\n");
    CHECK(sweep_load(&s, p, &e) == ERR_OK && sweep_validate(&s, &e) == ERR_OK);
    CHECK_EQ_U64(s.n_runs, 1);
    CHECK_EQ_U64(s.run_seed[0], 1);
    sweep_free(&s);

    /* a list value is applied as YAML flow text */
    p = write_sweep(dir, "base: base.yaml\naxes:\n  switch.pfc.priorities: [[3], [3, 4]]\n");
    CHECK(sweep_load(&s, p, &e) == ERR_OK && sweep_validate(&s, &e) == ERR_OK);
    CHECK(sweep_load_run(&s, 1, &sc, &e) == ERR_OK);
    CHECK_EQ_U64(sc.sw.pfc_priorities, (1u << 3) | (1u << 4));
    scenario_free(&sc);
    sweep_free(&s);

    snprintf(d, sizeof d, "%s/base.yaml", dir);
    unlink(d);
    snprintf(d, sizeof d, "%s/s.yaml", dir);
    unlink(d);
    rmdir(dir);
}

static int64_t q_i64(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void test_rows(void)
{
    /* a real run: 8 hosts, a permutation, and an incast job beside it */
    const char *yaml =
        "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 4, leaf_radix: 8}\n"
        "workload:\n"
        "  - {name: perm, kind: traffic, pattern: permutation, size: 200KB}\n"
        "  - {name: inc, kind: traffic, pattern: incast, size: 100KB, hosts: \"0-4\"}\n"
        "  - {name: ar, kind: collective, size: 1MB, ranks: \"0-3\", iterations: 2}\n";
    scenario sc;
    run *r = tl_start(&sc, "rows.yaml", yaml, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    rdb_rows rows;
    rdb_rows_init(&rows);
    rdb_rows_from_run(&rows, &sc, st);

    /* through a file, as the sweep writes it */
    char path[] = "/tmp/wr-rdb-test.XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    const char *keys[1] = {"loadbalance.mode"};
    uint32_t nv[1] = {2};
    rdb_desc d = {.kind = "sweep",
                  .source = "s.yaml",
                  .base = "b.yaml",
                  .mode = "grid",
                  .definition_hash = 42,
                  .runs_total = 3,
                  .n_axes = 1,
                  .axis_keys = keys,
                  .axis_n_values = nv};
    err e;
    err_clear(&e);
    rdb *db = rdb_open(path, &d, &e);
    CHECK(db != NULL);
    rdb_value v = {"ecmp", false};
    CHECK(rdb_insert(db, 2, &v, 5, &rows, &e) == ERR_OK);
    rdb_rows fr;
    rdb_rows_init(&fr);
    rdb_rows_failure(&fr, RDB_INVALID, "s.yaml:3:4: nope", 0.5);
    rdb_value v2 = {"spray", false};
    CHECK(rdb_insert(db, 0, &v2, 1, &fr, &e) == ERR_OK);
    /* a truncated buffer is refused and leaves nothing */
    rdb_rows cut = {rows.buf, rows.len - 3, rows.cap};
    CHECK(rdb_insert(db, 1, &v2, 1, &cut, &e) == ERR_RUN);
    bool done[3];
    CHECK(rdb_done_runs(db, done, 3, false, &e) == ERR_OK);
    CHECK(done[0] && !done[1] && done[2]);
    rdb_close(db);

    /* the same sweep reopens; another is refused */
    CHECK((db = rdb_open(path, &d, &e)) != NULL);
    rdb_close(db);
    d.definition_hash = 43;
    err_clear(&e);
    CHECK(rdb_open(path, &d, &e) == NULL && e.code == ERR_IO);

    sqlite3 *q;
    CHECK(sqlite3_open_v2(path, &q, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK_EQ_U64(q_i64(q, "SELECT count(*) FROM runs"), 2);
    CHECK_EQ_U64(q_i64(q, "SELECT seed FROM runs WHERE run_id = 2"), 5);
    CHECK_EQ_U64(
        q_i64(q, "SELECT count(*) FROM runs WHERE run_id = 2 AND \"loadbalance.mode\" = 'ecmp'"),
        1);
    CHECK_EQ_U64(q_i64(q, "SELECT count(*) FROM runs WHERE status = 'invalid' AND error = "
                          "'s.yaml:3:4: nope' AND jct_ps IS NULL"),
                 1);
    CHECK_EQ_U64(q_i64(q, "SELECT jobs FROM runs WHERE run_id = 2"), st->n_jobs);
    uint64_t jct = 0;
    for (uint32_t j = 0; j < st->n_jobs; j++) {
        CHECK(st->jobs[j].completed);
        jct = st->jobs[j].jct_ps > jct ? st->jobs[j].jct_ps : jct;
    }
    CHECK_EQ_U64(q_i64(q, "SELECT jct_ps FROM runs WHERE run_id = 2"), jct);
    CHECK_EQ_U64(q_i64(q, "SELECT jct_ps FROM jobs WHERE run_id = 2 AND job = 1"),
                 st->jobs[1].jct_ps);
    CHECK_EQ_U64(q_i64(q, "SELECT flows FROM runs WHERE run_id = 2"), st->n_flows);
    /* percentiles computed again from the flows agree with the run's own */
    CHECK_EQ_U64(q_i64(q, "SELECT fct_p50_ps FROM flows WHERE run_id = 2 AND job = -1"),
                 st->fct_p50_ps);
    CHECK_EQ_U64(q_i64(q, "SELECT fct_p99_ps FROM flows WHERE run_id = 2 AND job = -1"),
                 st->fct_p99_ps);
    CHECK_EQ_U64(q_i64(q, "SELECT fct_max_ps FROM flows WHERE run_id = 2 AND job = -1"),
                 st->fct_max_ps);
    CHECK_EQ_U64(q_i64(q, "SELECT fct_p99_ps FROM runs WHERE run_id = 2"), st->fct_p99_ps);
    /* per job: the counts add up to the whole */
    CHECK_EQ_U64(q_i64(q, "SELECT sum(count) FROM flows WHERE run_id = 2 AND job >= 0"),
                 st->n_flows);
    CHECK_EQ_U64(q_i64(q, "SELECT count FROM flows WHERE run_id = 2 AND job = 1"), 4); /* incast */
    /* ports: every port, and the counters sum to the fabric's */
    CHECK_EQ_U64(q_i64(q, "SELECT count(*) FROM ports WHERE run_id = 2"), st->n_ports);
    CHECK_EQ_U64(q_i64(q, "SELECT sum(tx_bytes) FROM ports WHERE run_id = 2"), st->tx_bytes);
    CHECK_EQ_U64(q_i64(q, "SELECT tx_bytes FROM runs WHERE run_id = 2"), st->tx_bytes);
    CHECK_EQ_U64(q_i64(q, "SELECT sum(ecn_marked) FROM ports WHERE run_id = 2"), st->ecn_marked);
    CHECK_EQ_U64(q_i64(q, "SELECT count(*) FROM iterations WHERE run_id = 2"), 2);
    CHECK_EQ_U64(q_i64(q, "SELECT time_ps FROM iterations WHERE run_id = 2 AND job = 2 AND "
                          "iteration = 1"),
                 st->jobs[2].iterations[1].time_ps);
    CHECK_EQ_U64(q_i64(q, "SELECT busbw_GBps = (SELECT busbw_GBps FROM jobs WHERE run_id = 2 AND "
                          "job = 2) FROM runs WHERE run_id = 2"),
                 1); /* the only collective job */
    CHECK_EQ_U64(q_i64(q, "SELECT delivered_bytes FROM runs WHERE run_id = 2"),
                 st->delivered_bytes);
    sqlite3_close(q);
    unlink(path);
    rdb_rows_free(&rows);
    rdb_rows_free(&fr);
    run_free(r);
    scenario_free(&sc);
}

int main(void)
{
    TEST_RUN(test_bad_sweeps);
    TEST_RUN(test_example_dcqcn_sweeps);
    TEST_RUN(test_numbering);
    TEST_RUN(test_rows);
    return tl_finish();
}
