/*
 * bench_telemetry.c — what telemetry costs: the same scenario (bench/leafspine128.yaml unless
 * given) run with output.formats [json] (no sampler, no tap), [csv] (the sampler at
 * telemetry.sample_interval), and [csv, pcap] (sampler + packet capture into the table),
 * best of 3 runs each; prints wall time of the simulation and the overhead against [json].
 * Exporting the files afterwards is not timed (it is proportional to the data kept, not the
 * run). Target: ≤ 10 % for sampling + capture.
 *
 *   ./build/bench_telemetry [SCENARIO.yaml]
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "workload/run.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best-of-3 simulation wall time with the formats override; -1 on error. */
static double time_run(const char *path, const char *formats, uint64_t *events)
{
    double best = -1;
    for (int rep = 0; rep < 3; rep++) {
        char key[] = "output.formats";
        cfg_override ov = {key, formats};
        scenario sc;
        err e;
        err_clear(&e);
        if (config_load(&sc, path, &ov, 1, &e)) {
            fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
            return -1;
        }
        run *r = run_new(&sc, &e);
        if (!r) {
            fprintf(stderr, "%s:%d:%d: error: %s\n", e.file, e.line, e.col, e.msg);
            scenario_free(&sc);
            return -1;
        }
        double t0 = now_s();
        run_execute(r, NULL, NULL);
        double t = now_s() - t0;
        *events = run_result(r)->events;
        run_free(r);
        scenario_free(&sc);
        if (best < 0 || t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : WR_SOURCE_DIR "/bench/leafspine128.yaml";
    static const char *const modes[][2] = {
        {"[json]", "no telemetry"},
        {"[csv]", "sampler (telemetry.sample_interval)"},
        {"[csv, pcap]", "sampler + pcap capture"},
    };
    double base = 0;
    printf("telemetry overhead on %s (best of 3, simulation only)\n", path);
    for (size_t i = 0; i < 3; i++) {
        uint64_t ev = 0;
        double t = time_run(path, modes[i][0], &ev);
        if (t < 0)
            return 1;
        if (i == 0)
            base = t;
        printf("  %-12s %-38s %8.3f s  %10llu events  overhead %+6.1f %%\n", modes[i][0],
               modes[i][1], t, (unsigned long long)ev, base > 0 ? 100.0 * (t / base - 1) : 0.0);
        fflush(stdout);
    }
    return 0;
}
