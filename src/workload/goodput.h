/*
 * goodput.h — the goodput of a long training run under failures (the `goodput:` section).
 *
 * A what-if over days: the simulator measures the iteration time T of a training job; the
 * failure process comes from rates per component. A synchronous job is interrupted by any
 * failure of a component it cannot run without — its GPUs, its NICs, their host links (optics
 * and cables), the leaf switches they hang from, its servers — plus "other" interruptions
 * (software, NCCL timeouts, silent data corruption), per GPU. Interruptions form a Poisson
 * process of rate Λ = Σ count × rate (exponential times between failures, memoryless; the
 * failed part is replaced by a spare). Fabric links and switches above the leaves are not
 * counted: routing goes around them (their cost is the slowdown the packet simulation shows).
 *
 * The run to train N iterations, checkpointing every I iterations (write W each, none after the
 * last) and restarting in R after each interruption, is sampled by Monte Carlo: each segment of
 * I iterations (I·T + W) either completes before the next failure or is lost; a failure during
 * a restart starts the restart again. Goodput = N·T / wall-clock time. Every interval I is
 * evaluated with the same random numbers (common random numbers), so the comparison of
 * intervals is not noise.
 *
 * Closed form (Daly 2006, exact for this model): a segment of length s takes on average
 * e^{ΛR}(e^{Λs} − 1)/Λ; the expected wall-clock time is the sum over segments. First-order
 * optimum of the checkpoint period: Young (1974) τ = √(2WM), Daly τ = √(2WM) − W, M = 1/Λ.
 */
#ifndef WR_WORKLOAD_GOODPUT_H
#define WR_WORKLOAD_GOODPUT_H

#include <stdint.h>

typedef struct goodput_in {
    double iter_s;             /* T, seconds */
    uint64_t iterations;       /* N */
    uint32_t interval;         /* I, iterations (0 = no checkpoint: one segment of N) */
    double write_s, restart_s; /* W, R */
    double lambda_per_s;       /* Λ */
    uint32_t samples;
    uint64_t seed;
} goodput_in;

typedef struct goodput_out {
    double mean_s, p50_s, p90_s;           /* wall-clock time to train N iterations */
    double goodput_mean;                   /* N·T / mean wall-clock */
    double goodput_p50, goodput_p90;       /* N·T / p50 and / p90 (the slow tail) */
    double failures_mean;                  /* interruptions per run, on average */
    double expected_s;                     /* the closed form (Daly) */
    uint64_t segment_cap_hits;             /* samples cut at the step cap (none when sane) */
} goodput_out;

/* Sample the run. `scratch` holds `samples` doubles. Returns 0; -1 if the inputs are not usable
 * (N = 0, T ≤ 0, samples = 0); -2 if the job cannot make progress: a segment and its restart
 * would be interrupted e^30 times on average before one completes (Λ·(I·T + W + R) > 30). */
int goodput_run(const goodput_in *in, double *scratch, goodput_out *out);
/* The checkpoint interval (iterations) with the highest mean goodput among a grid around
 * Daly's optimum (×2^(k/4), k = −8..8) and the intervals 1..8,
 * each sampled with in->samples runs on the same random numbers; *best receives its result.
 * in->interval is ignored. W = 0: every iteration (a free checkpoint is always worth taking).
 * Returns 0 when no interval could be evaluated. */
uint32_t goodput_optimize(const goodput_in *in, double *scratch, goodput_out *best);
/* The closed form of the expected wall-clock time (Daly's exact expression summed over the
 * segments). Λ = 0: N·T + writes. */
double goodput_expected_s(const goodput_in *in);
/* Young's and Daly's first-order optimal checkpoint periods (seconds of work between
 * checkpoints); 0 when Λ = 0 or W = 0. */
double goodput_young_s(double write_s, double lambda_per_s);
double goodput_daly_s(double write_s, double lambda_per_s);

#endif
