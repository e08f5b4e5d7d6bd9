/*
 * bench_flow.c — the flow-level network's benchmark (issue #13, docs/fidelity.md): loads each
 * scenario with sim.fidelity=flow (and stop_at=100s, so a packet benchmark's time cap does not
 * cut the iteration short), builds it, simulates it and prints build and run wall time, the run's
 * CPU time, peak RSS, events, fluid flows, rate recomputations (component solves), the instants
 * they were batched into, and the first job's JCT. `compare` also runs the scenario
 * packet-level and prints both CPU times, their ratio and the JCT error (the packet run of a
 * 1,024-GPU iteration takes about 10 CPU minutes). Each run is its own child process, so peak RSS
 * is that run's alone.
 *
 *   ./build/bench_flow                       bench/train_llama70b_1024.yaml,
 * train_llama70b_16k.yaml
 *   ./build/bench_flow SCENARIO.yaml ...
 *   ./build/bench_flow compare SCENARIO.yaml
 *   ./build/bench_flow --eager ...           every piece's end an event (the reference path)
 *
 * SIGINT or SIGTERM stops the simulation before its next event and prints the figures so far,
 * with the simulated time and the first job's tasks done (`timeout -s INT 600 ./build/bench_flow
 * ...` measures how far a run gets in 10 minutes).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "transport/flownet.h"
#include "transport/nic.h"
#include "workload/run.h"

static bool eager; /* --eager: every piece's end an event of its own (flownet_one_event off) */

/* SIGINT/SIGTERM: the parent passes it to the running child; the child (or a run without one)
 * asks its simulation to stop (sim_interrupt_request is async-signal-safe) */
static volatile sig_atomic_t forward_to;

static void on_signal(int sig)
{
    (void)sig;
    if (forward_to > 0)
        kill((pid_t)forward_to, SIGINT);
    else
        sim_interrupt_request();
}

typedef struct result {
    double cpu_s;
    sim_time jct_ps;
    int ok;
} result;

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_one(const char *path, const char *fidelity, result *out)
{
    scenario sc;
    err e;
    err_clear(&e);
    cfg_override ov[2] = {{"sim.fidelity", fidelity}, {"stop_at", "100s"}};
    double t0 = clock_s(CLOCK_MONOTONIC);
    if (config_load(&sc, path, ov, 2, &e)) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
        return 1;
    }
    run *r = run_new(&sc, &e);
    if (!r) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
        scenario_free(&sc);
        return 1;
    }
    if (eager && run_transport(r)->fn)
        flownet_one_event(run_transport(r)->fn, false);
    double t1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    run_execute(r, NULL, NULL);
    double t2 = clock_s(CLOCK_MONOTONIC), c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    const run_stats *st = run_result(r);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    sim_time jct = st->n_jobs && st->jobs[0].completed ? st->jobs[0].jct_ps : 0;
    char why[160] = " (not completed)";
    if (!jct && st->n_jobs)
        snprintf(why, sizeof why, " (not completed: %.6f s simulated, %llu of %llu tasks done)",
                 (double)st->end_ps / 1e12, (unsigned long long)st->jobs[0].tasks_done,
                 (unsigned long long)st->jobs[0].tasks_total);
    printf("%-26s %-6s build %7.2f s  run %8.2f s  cpu %8.2f s  peak RSS %8.1f MB  "
           "%10.0f events  %10.0f fluid flows  %10.0f coalesced  %10.0f one-event  %10.0f reused  "
           "%9.0f rate solves  %9.0f fast  %9.0f commits  JCT %llu ps%s\n",
           sc.name, eager ? "eager" : fidelity, t1 - t0, t2 - t1, c2 - c1,
           (double)ru.ru_maxrss / 1024.0, (double)st->events, (double)st->fluid_flows,
           (double)st->coalesced_pieces, (double)st->one_event_pieces, (double)st->reused_flows,
           (double)st->rate_solves, (double)st->rate_fast, (double)st->rate_commits,
           (unsigned long long)jct, jct ? "" : why);
    fflush(stdout);
    if (out) {
        out->cpu_s = c2 - c1;
        out->jct_ps = jct;
        out->ok = 1;
    }
    run_free(r);
    scenario_free(&sc);
    return 0;
}

/* Run bench_one in a child so that ru_maxrss is per run; the result comes back through a shared
 * page. */
static int bench_isolated(const char *path, const char *fidelity, result *out)
{
    result *shared =
        mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return bench_one(path, fidelity, out);
    memset(shared, 0, sizeof *shared);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        munmap(shared, sizeof *shared);
        return bench_one(path, fidelity, out);
    }
    if (pid == 0) {
        forward_to = 0;
        _exit(bench_one(path, fidelity, shared));
    }
    forward_to = pid;
    int status = 0;
    int rc = waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ? 1 : WEXITSTATUS(status);
    forward_to = 0;
    if (out)
        *out = *shared;
    munmap(shared, sizeof *shared);
    return rc;
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = {"train_llama70b_1024.yaml", "train_llama70b_16k.yaml"};
    int rc = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* the parent's waitpid goes on */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (argc > 1 && !strcmp(argv[1], "--eager")) {
        eager = true;
        argc--;
        argv++;
    }
    if (argc == 3 && !strcmp(argv[1], "compare")) {
        result f = {0}, p = {0};
        rc |= bench_isolated(argv[2], "flow", &f);
        rc |= bench_isolated(argv[2], "packet", &p);
        if (f.ok && p.ok && f.cpu_s > 0 && p.jct_ps)
            printf("flow level: %.1f x less CPU than packet level; JCT %+.2f %%\n",
                   p.cpu_s / f.cpu_s,
                   100.0 * ((double)f.jct_ps - (double)p.jct_ps) / (double)p.jct_ps);
        return rc;
    }
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            rc |= bench_isolated(argv[i], "flow", NULL);
        return rc;
    }
    for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/bench/%s", WR_SOURCE_DIR, defaults[i]);
        rc |= bench_isolated(path, "flow", NULL);
    }
    return rc;
}
