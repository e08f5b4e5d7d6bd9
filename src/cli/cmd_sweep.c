/*
 * cmd_sweep.c — `wirerate sweep SWEEP.yaml [-j N] [-o results.db] [--retry-failed] [--quiet]`.
 *
 * Order of work, so that a mistake costs nothing:
 *   1. parse the command line (exit 2);
 *   2. load the sweep file and load every run's scenario once, without building anything: a bad
 *      key or value anywhere is reported before the first run, at its file:line:col (exit 3);
 *   3. open (or create) the database; an existing one must hold this same sweep, and its runs
 *      are skipped: a killed sweep resumes where it stopped (exit 4 if it holds another sweep);
 *   4. run the rest in a pool of forked workers (sweep/pool.h), each result inserted in one
 *      transaction as it arrives, so a kill at any moment loses at most the runs in flight;
 *   5. print what the database now holds. Exit 0 when every run is ok, 1 when some run is
 *      invalid or failed (recorded in the database, the others unaffected).
 * Under mpirun (a build with MPI), rank 0 owns the database and the other ranks run the runs
 * (sweep/mpi.h); everything else is the same.
 *
 * SIGINT/SIGTERM: no new run starts, running workers are stopped, the database keeps every run
 * that completed, and the process then dies of the signal (status 130/143); running the same
 * command again resumes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/alloc.h"
#include "../core/err.h"
#include "../report/resultsdb.h"
#include "../sweep/mpi.h"
#include "../sweep/pool.h"
#include "../sweep/sweep.h"
#include "args.h"
#include "cli.h"
#include "diag.h"
#include "progress.h"

void cmd_sweep_help(void)
{
    fputs("usage: wirerate sweep SWEEP.yaml [-j N] [-o results.db] [--retry-failed] [--quiet]\n"
          "\n"
          "Run every combination of a sweep's axes (and seeds) on its base scenario, in N\n"
          "worker processes, and collect the results in one SQLite database. Runs already\n"
          "in the database are skipped, so a killed sweep resumes where it stopped; a run\n"
          "that fails is recorded (runs.status, runs.error) and the others go on.\n"
          "Under mpirun (when built with MPI), rank 0 writes the database and the other\n"
          "ranks run the runs, each with -j workers.\n"
          "\n"
          "  -j, --jobs N       worker processes (default: the number of online CPUs)\n"
          "  -o, --output DB    the database (default: output: in the sweep file, else\n"
          "                     out/<name>.db)\n"
          "      --retry-failed run again the runs recorded as invalid or failed\n"
          "  -q, --quiet        no progress bar on stderr\n"
          "  -h, --help         this help\n"
          "\n"
          "Sweep file and database schema: docs/sweep.md. Compare the runs with\n"
          "'wirerate report results.db'.\n"
          "Exit codes: 0 every run ok, 1 some run invalid or failed, 2 usage error,\n"
          "3 invalid sweep file or scenario, 4 I/O error (or the database holds another sweep).\n",
          stdout);
}

typedef struct sweep_opts {
    const char *file, *db;
    int jobs;
    bool quiet, retry_failed;
} sweep_opts;

static int parse(int argc, char **argv, sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cpus > 0 ? (int)cpus : 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (a[0] != '-' || a[1] == '\0') {
            if (o->file)
                return cli_usage_error("sweep", "more than one sweep file given ('%s')", a);
            o->file = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cmd_sweep_help();
            return -1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(a, "--retry-failed") == 0) {
            o->retry_failed = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "-j", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--jobs", &missing))) {
            if (!cli_is_uint(v) || atol(v) < 1 || atol(v) > 4096)
                return cli_usage_error("sweep", "-j expects a number of workers 1..4096, got '%s'",
                                       v);
            o->jobs = atoi(v);
        } else if (strncmp(a, "-j", 2) == 0 && cli_is_uint(a + 2)) {
            if (atol(a + 2) < 1 || atol(a + 2) > 4096)
                return cli_usage_error("sweep", "-j expects a number of workers 1..4096, got '%s'",
                                       a + 2);
            o->jobs = atoi(a + 2);
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--output", &missing))) {
            if (!*v)
                return cli_usage_error("sweep", "%s needs a database path", a);
            o->db = v;
        } else if (!missing) {
            return cli_usage_error("sweep", "unknown option '%s'", a);
        }
        if (missing)
            return cli_usage_error("sweep", "option '%s' needs a value", a);
    }
    if (!o->file)
        return cli_usage_error("sweep", "missing SWEEP.yaml");
    return ERR_OK;
}

/* ---- signals ------------------------------------------------------------------------- */

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
    if (!stop_sig) {
        stop_sig = sig;
        static const char msg[] = "\nwirerate: interrupted; stopping the workers (the database "
                                  "keeps every finished run; run the same command to resume)\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* ---- the pool's callbacks --------------------------------------------------------------- */

typedef struct sweep_ctx {
    sweep_def *s;
    rdb *db;
    bool *done;       /* per run: in the database */
    uint32_t next_id; /* scan position for the next pending run */
    uint32_t pending, finished, failed_now;
    progress prog;
    bool show;
    double t0;
} sweep_ctx;

static int work(void *user, uint32_t id, int fd)
{
    sweep_ctx *c = user;
    return sweep_work(c->s, id, fd);
}

static bool next(void *user, uint32_t *id)
{
    sweep_ctx *c = user;
    while (c->next_id < c->s->n_runs && c->done[c->next_id])
        c->next_id++;
    if (c->next_id >= c->s->n_runs)
        return false;
    *id = c->next_id++;
    return true;
}

static int done(void *user, const pool_outcome *o, err *e)
{
    sweep_ctx *c = user;
    bool failed = false;
    int rc = sweep_store(c->s, c->db, o, &failed, e);
    c->finished++;
    c->failed_now += failed;
    return rc;
}

static void fmt_secs(char *buf, size_t len, double s)
{
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(buf, len, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, len, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
}

static void tick(void *user)
{
    sweep_ctx *c = user;
    if (!c->show)
        return;
    double el = progress_clock() - c->t0;
    char bar[32], eta[48] = "", els[32];
    int w = 24, fill = c->pending ? (int)((uint64_t)c->finished * (uint64_t)w / c->pending) : w;
    for (int i = 0; i < w; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[w] = '\0';
    fmt_secs(els, sizeof els, el);
    if (c->finished && c->finished < c->pending) {
        char r[32];
        fmt_secs(r, sizeof r, el / c->finished * (c->pending - c->finished));
        snprintf(eta, sizeof eta, " | ETA %s", r);
    }
    char failed[32] = "";
    if (c->failed_now)
        snprintf(failed, sizeof failed, ", %u failed", c->failed_now);
    int n = fprintf(stderr, "\r[%s] %u/%u runs%s | %s%s", bar, c->finished, c->pending, failed, els,
                    eta) -
            1;
    for (int i = n; i < c->prog.width; i++)
        fputc(' ', stderr);
    if (n > c->prog.width)
        c->prog.width = n;
    fflush(stderr);
}

/* mkdir -p of the database's folder. */
static int make_parent(const char *path, err *e)
{
    char *d = xstrdup(path, "database folder");
    for (char *p = d + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(d, 0777) != 0 && errno != EEXIST) {
            err_set(e, ERR_IO, d, 0, 0, "cannot create the folder: %s", strerror(errno));
            xfree(d);
            return ERR_IO;
        }
        *p = '/';
    }
    xfree(d);
    return ERR_OK;
}

/* Print the runs that are not ok (at most 10). */
static void list_problems(FILE *f, const sweep_def *s, rdb *db);

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? ERR_OK : rc;

    int mpi_rank = 0, mpi_size = 1;
    bool mpi = sweep_mpi_init(&argc, &argv, &mpi_rank, &mpi_size);
    if (!mpi && !sweep_mpi_available() && sweep_mpi_launched()) {
        /* every rank would run the whole sweep into the same database */
        diag_msg(stderr, "sweep: started by an MPI launcher, but this wirerate was built without "
                         "MPI; rebuild with Open MPI (sudo apt-get install libopenmpi-dev) or run "
                         "'wirerate sweep -j N' without mpirun");
        return ERR_USAGE;
    }

    err e;
    err_clear(&e);
    sweep_def s;
    if ((rc = sweep_load(&s, o.file, &e)) || (rc = sweep_validate(&s, &e))) {
        if (mpi_rank == 0)
            diag_print(stderr, &e, NULL, 0);
        sweep_free(&s);
        sweep_mpi_finalize(mpi);
        return rc;
    }
    if (mpi && (rc = sweep_mpi_agree(&s, &e))) {
        if (mpi_rank == 0)
            diag_print(stderr, &e, NULL, 0);
        sweep_free(&s);
        sweep_mpi_finalize(mpi);
        return rc;
    }

    install_signals();
    if (mpi && mpi_rank != 0) {
        sweep_ctx c;
        memset(&c, 0, sizeof c);
        c.s = &s;
        rc = sweep_mpi_worker(&s, o.jobs, work, &c, &stop_sig, &e);
        if (rc)
            diag_print(stderr, &e, NULL, 0);
        sweep_free(&s);
        sweep_mpi_finalize(mpi);
        return rc;
    }

    char defpath[1024];
    const char *dbpath = o.db ? o.db : s.output;
    if (!dbpath) {
        snprintf(defpath, sizeof defpath, "out/%s.db", s.name);
        dbpath = defpath;
    }
    const char *keys[s.n_axes ? s.n_axes : 1];
    uint32_t nvals[s.n_axes ? s.n_axes : 1];
    rdb_desc d;
    sweep_desc(&s, &d, keys, nvals);
    sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.s = &s;
    c.done = xcalloc(s.n_runs ? s.n_runs : 1, sizeof *c.done, "runs done");
    if ((rc = make_parent(dbpath, &e)) || !(c.db = rdb_open(dbpath, &d, &e)) ||
        (rc = rdb_done_runs(c.db, c.done, s.n_runs, o.retry_failed, &e))) {
        rc = rc ? rc : e.code;
        diag_print(stderr, &e, NULL, 0);
        goto out;
    }
    uint32_t already = 0;
    for (uint32_t i = 0; i < s.n_runs; i++)
        already += c.done[i];
    c.pending = s.n_runs - already;
    c.show = !o.quiet && isatty(STDERR_FILENO);
    progress_init(&c.prog, c.show);
    c.t0 = progress_clock();

    if (mpi) {
        rc = sweep_mpi_coordinator(&s, c.done, done, &c, tick, &stop_sig, &e);
    } else {
        pool_spec ps = {.workers =
                            o.jobs < (int)c.pending ? o.jobs : (int)(c.pending ? c.pending : 1),
                        .work = work,
                        .next = next,
                        .done = done,
                        .tick = tick,
                        .user = &c,
                        .stop = &stop_sig};
        rc = pool_run(&ps, &e);
    }
    double wall = progress_clock() - c.t0;
    progress_clear(&c.prog);
    if (rc) {
        diag_print(stderr, &e, NULL, 0);
        goto out;
    }

    uint32_t ok = 0, inv = 0, fail = 0;
    if ((rc = rdb_counts(c.db, &ok, &inv, &fail, &e))) {
        diag_print(stderr, &e, NULL, 0);
        goto out;
    }
    uint32_t in_db = ok + inv + fail;
    printf("wirerate sweep \"%s\": %u runs (%s", s.name, s.n_runs,
           s.mode == SWEEP_ZIP ? "zip of " : "");
    for (uint32_t a = 0; a < s.n_axes; a++)
        printf("%s%u %s", a ? (s.mode == SWEEP_ZIP ? ", " : " x ") : "", s.axes[a].n_values,
               s.axes[a].key);
    if (!s.n_axes)
        printf("no axes");
    if (s.n_seeds)
        printf(" x %u seeds", s.n_seeds);
    printf(")\n");
    printf("  ran %u now (%.1f s wall, %.2f runs/s with %s %d)%s", c.finished, wall,
           wall > 0 ? c.finished / wall : 0.0, mpi ? "ranks" : "-j",
           mpi ? mpi_size - 1 : (o.jobs < (int)c.pending ? o.jobs : (int)c.pending),
           already ? "" : "\n");
    if (already)
        printf(", %u were already in the database\n", already);
    printf("  %u ok, %u invalid, %u failed", ok, inv, fail);
    if (in_db < s.n_runs)
        printf(", %u not run (interrupted)", s.n_runs - in_db);
    printf("\n  results: %s\n", dbpath);
    if (inv || fail)
        list_problems(stdout, &s, c.db);
    if (fflush(stdout) != 0) {
        diag_msg(stderr, "<stdout>: error: %s", strerror(errno));
        rc = ERR_IO;
    } else {
        rc = (inv || fail) ? ERR_RUN : ERR_OK;
    }

out:
    rdb_close(c.db);
    xfree(c.done);
    sweep_free(&s);
    sweep_mpi_finalize(mpi);
    if (stop_sig) {
        fflush(NULL);
        signal(stop_sig, SIG_DFL);
        raise(stop_sig);
    }
    return rc;
}

static void print_problem(void *user, uint32_t id, const char *status, const char *error)
{
    const sweep_def *s = user;
    char d[512], first[600];
    snprintf(first, sizeof first, "%s", error ? error : "");
    first[strcspn(first, "\n")] = '\0';
    printf("  run %u (%s) %s: %s\n", id, sweep_describe(s, id, d, sizeof d), status, first);
}

static void list_problems(FILE *f, const sweep_def *s, rdb *db)
{
    (void)f;
    err e;
    err_clear(&e);
    rdb_each_problem(db, 10, print_problem, (void *)s, &e);
}
