/*
 * bench_scenario.c — whole-scenario benchmark: loads each scenario, builds it, simulates it and
 * prints wall time (build and run), the run's CPU time, events/s, packet-hops/s, CPU nanoseconds
 * per packet hop and peak RSS. With no arguments it runs the scenarios in bench/ (WR_SOURCE_DIR);
 * `htsim` runs the set that matches htsim's published permutation experiments (1,024-host k=16
 * fat tree at 100G, ECMP and sprayed; 8,192-host leaf-spine 128 x 64 at 400G; 2 MB per flow:
 * see docs/performance.md for running htsim beside it); otherwise the given files. Each scenario
 * runs in its own child process so that peak RSS is that scenario's alone.
 *
 *   ./build/bench_scenario [htsim | SCENARIO.yaml ...]
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "config/config.h"
#include "workload/run.h"

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static int bench_one(const char *path)
{
    scenario sc;
    err e;
    err_clear(&e);
    double t0 = now_s();
    if (config_load(&sc, path, NULL, 0, &e)) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
        return 1;
    }
    run *r = run_new(&sc, &e);
    if (!r) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
        scenario_free(&sc);
        return 1;
    }
    double t1 = now_s(), c1 = cpu_s();
    run_execute(r, NULL, NULL);
    double t2 = now_s(), c2 = cpu_s();
    const run_stats *st = run_result(r);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double hops = st->packet_hops ? (double)st->packet_hops : 1.0;
    printf("%-26s build %6.3f s  run %7.3f s  cpu %7.3f s  %9.0f events  %6.2f M events/s  "
           "%9.0f packet-hops  %6.2f M hops/s  %6.3f us/hop  sim %9.3f us  flows %llu/%llu  "
           "peak RSS %6.1f MB\n",
           sc.name, t1 - t0, t2 - t1, c2 - c1, (double)st->events,
           (double)st->events / (t2 - t1) / 1e6, (double)st->packet_hops,
           (double)st->packet_hops / (t2 - t1) / 1e6, (c2 - c1) / hops * 1e6,
           (double)st->end_ps / 1e6, (unsigned long long)st->flows_completed,
           (unsigned long long)st->n_flows, (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    run_free(r);
    scenario_free(&sc);
    return 0;
}

/* Run bench_one in a child so that ru_maxrss is per scenario. */
static int bench_isolated(const char *path)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return bench_one(path);
    if (pid == 0)
        _exit(bench_one(path));
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {
        "leafspine128.yaml",     "fattree128_ecmp.yaml",  "fattree1024_ecmp.yaml",
        "fattree1024_spray.yaml", "fattree1024_uet.yaml",
        "allreduce1024.yaml",    "train_1b_64.yaml",      "train_llama70b_1024.yaml",
    };
    static const char *const htsim[] = {
        "fattree1024_ecmp.yaml", "fattree1024_spray.yaml", "leafspine8192.yaml",
    };
    int rc = 0;
    if (argc == 2 && !strcmp(argv[1], "htsim")) {
        for (size_t i = 0; i < sizeof htsim / sizeof *htsim; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/bench/%s", WR_SOURCE_DIR, htsim[i]);
            rc |= bench_isolated(path);
        }
        return rc;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            rc |= bench_isolated(argv[i]);
        return rc;
    }
    for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bench/%s", WR_SOURCE_DIR, defaults[i]);
        rc |= bench_isolated(path);
    }
    return rc;
}
