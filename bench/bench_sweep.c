/*
 * bench_sweep.c — sweep throughput: runs per second of a sweep of small scenarios
 * (examples/sweep/lb-cc.yaml unless given: 12 permutations of 16 hosts, 256 KB..4 MB per flow)
 * through the same path as `wirerate sweep` — a forked process per run, its rows back over a
 * pipe, one SQLite transaction per run into a fresh database — with -j 1 and -j 2, best of 3.
 * The overhead per run (fork, loading the scenario, the database) shows against the runs' own
 * simulation time, which is printed beside it (sum of runs.wall_s).
 *
 *   ./build/bench_sweep [SWEEP.yaml]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/resultsdb.h"
#include "sweep/pool.h"
#include "sweep/sweep.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct ctx {
    sweep_def *s;
    rdb *db;
    uint32_t next;
} ctx;

static int work(void *u, uint32_t id, int fd)
{
    return sweep_work(((ctx *)u)->s, id, fd);
}

static bool next(void *u, uint32_t *id)
{
    ctx *c = u;
    if (c->next >= c->s->n_runs)
        return false;
    *id = c->next++;
    return true;
}

static int done(void *u, const pool_outcome *o, err *e)
{
    ctx *c = u;
    bool failed;
    return sweep_store(c->s, c->db, o, &failed, e);
}

/* One sweep into a fresh database; returns the wall time, or -1. */
static double sweep_once(sweep_def *s, int jobs)
{
    char path[] = "/tmp/wr-bench-sweep.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(path);
    const char *keys[s->n_axes ? s->n_axes : 1];
    uint32_t nv[s->n_axes ? s->n_axes : 1];
    rdb_desc d;
    sweep_desc(s, &d, keys, nv);
    err e;
    err_clear(&e);
    ctx c = {s, rdb_open(path, &d, &e), 0};
    if (!c.db) {
        fprintf(stderr, "%s: %s\n", e.file, e.msg);
        return -1;
    }
    pool_spec ps = {.workers = jobs, .work = work, .next = next, .done = done, .user = &c};
    double t0 = now_s();
    int rc = pool_run(&ps, &e);
    double t = now_s() - t0;
    uint32_t ok = 0;
    rdb_counts(c.db, &ok, NULL, NULL, &e);
    rdb_close(c.db);
    unlink(path);
    if (rc || ok != s->n_runs) {
        fprintf(stderr, "sweep failed: %s (%u of %u ok)\n", e.msg, ok, s->n_runs);
        return -1;
    }
    return t;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : WR_SOURCE_DIR "/examples/sweep/lb-cc.yaml";
    sweep_def s;
    err e;
    if (sweep_load(&s, path, &e) || sweep_validate(&s, &e)) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
        return 1;
    }
    printf("sweep %s: %u runs, forked worker per run, SQLite results (best of 3)\n", s.name,
           s.n_runs);
    double base = 0;
    for (int j = 1; j <= 2; j++) {
        double best = -1;
        for (int rep = 0; rep < 3; rep++) {
            double t = sweep_once(&s, j);
            if (t < 0) {
                sweep_free(&s);
                return 1;
            }
            if (best < 0 || t < best)
                best = t;
        }
        if (j == 1)
            base = best;
        printf("  -j %d  %6.3f s  %7.2f runs/s  (%.2fx -j 1)\n", j, best, s.n_runs / best,
               base / best);
    }
    sweep_free(&s);
    return 0;
}
