/*
 * bench_check.c — `check` and `plan` at scale: builds a rail-optimized fabric of SERVERS x 8 GPUs
 * (default 12288 servers = 98,304 GPUs: 128-port leaves and spines, 24 pods, super-spines),
 * runs every design and per-device check, lays out the build sheet and generates every plan
 * file (into /dev/null: the figure is the work, not the disk), and prints wall time per phase
 * and peak RSS. Each size runs in its own child process so that peak RSS is its own.
 *
 *   ./build/bench_check [SERVERS:PODS ...]      e.g. 1024:2 4096:8 12288:24
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "plan/check.h"
#include "plan/checkdev.h"
#include "plan/plan.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_one(unsigned servers, unsigned pods)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: bench-check\n"
             "fabric: {preset: rail-optimized, servers: %u, gpus_per_server: 8,\n"
             "         leaf_radix: 128, spine_radix: 128, pods: %u}\n"
             "workload: [{name: ar, kind: collective, op: all_reduce}]\n",
             servers, pods);
    scenario sc;
    err e;
    err_clear(&e);
    double t0 = now_s();
    if (config_load_buffer(&sc, "bench.yaml", yaml, strlen(yaml), NULL, 0, &e)) {
        fprintf(stderr, "error: %s\n", e.msg);
        return 1;
    }
    sim s;
    sim_init(&s, 1);
    net *n = net_build_topology(&sc, &s, &e);
    if (!n) {
        fprintf(stderr, "error: %s\n", e.msg);
        return 1;
    }
    double t1 = now_s();
    check_report r;
    check_fabric(n, &r);
    double t2 = now_s();
    plan p;
    if (plan_build(&p, n, &e)) {
        fprintf(stderr, "error: %s\n", e.msg);
        return 1;
    }
    cdb_report f = {0};
    check_devices(&p, &r, &f);
    double t3 = now_s();
    FILE *null = fopen("/dev/null", "w");
    plan_write_md(null, &p);
    plan_write_bom(null, &p);
    plan_write_racks(null, &p);
    plan_write_addressing(null, &p);
    plan_write_cabling(null, &p);
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (n->switches[i]->tier != TIER_SCALE_UP)
            plan_write_config_db(null, &p, n->switches[i]);
    for (uint32_t sv = 0; sv < n->n_servers; sv++)
        plan_write_nic_script(null, &p, sv);
    plan_write_k8s_pods(null, &p);
    fclose(null);
    double t4 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%6u GPUs  %5u switches  build %6.2f s  check (design) %6.2f s  check (devices, "
           "incl. plan layout) %6.2f s  plan files %6.2f s  total %6.2f s  %s  peak RSS %7.1f MB\n",
           servers * 8, n->n_switches - n->n_servers, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0,
           r.passed ? "passed" : "FAILED", (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    cdb_report_free(&f);
    plan_free(&p);
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const dflt[] = {"1024:2", "4096:8", "12288:24"};
    int n = argc > 1 ? argc - 1 : 3, rc = 0;
    for (int i = 0; i < n; i++) {
        const char *a = argc > 1 ? argv[i + 1] : dflt[i];
        unsigned servers = 0, pods = 1;
        if (sscanf(a, "%u:%u", &servers, &pods) < 1 || !servers) {
            fprintf(stderr, "usage: bench_check [SERVERS:PODS ...]\n");
            return 2;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0)
            _exit(bench_one(servers, pods));
        int st = 0;
        waitpid(pid, &st, 0);
        rc |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    return rc;
}
