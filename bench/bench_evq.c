/*
 * bench_evq.c — the classic "hold" benchmark for the event queue (Jones, "An empirical
 * comparison of priority-queue and event-set implementations", CACM 1986): fill the queue with
 * `pending` events, then repeat hold = pop the minimum + push the same event at the popped time
 * plus a random increment. The queue size stays constant, so the figure is the cost of one
 * pop/push pair at that size.
 *
 * Increments are exponential with mean 1 µs (in integer ps, so many equal times do not occur
 * except by chance), drawn with core/rng into a precomputed table of 2^16 values before timing
 * starts, so RNG and log() cost stay out of the loop. A second line per size measures the same
 * workload through sim_run (handler re-schedules its own event with sim_after), i.e. the real hot
 * loop including the indirect call.
 *
 * The events sit in one xcalloc_huge block, as the simulator's do (they are embedded in ports,
 * QPs and pools, all on 2 MiB pages from 2 MiB up): on 4 KiB pages the 16 MB of events at 10^6
 * pending outgrew the TLB, and a page walk per hold cost a fifth of the figure (13.7 against
 * 17.3 M hold ops/s) for a cost the simulator does not have.
 *
 * Usage: bench_evq [hold_ops [pending]] (pending: that size only, for profiling).
 *
 * Output, one line per size and mode:  mode pending hold_ops wall_s cpu_s M_hold_ops/s (per
 * CPU second: on a shared machine the CPU figure is the steadier one) and the peak RSS at exit.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "core/alloc.h"
#include "core/evq.h"
#include "core/rng.h"
#include "core/sim.h"

#define INC_N (1u << 16)
static sim_time inc[INC_N];

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

static void bench_hold(uint32_t pending, uint64_t ops)
{
    evq q;
    evq_init(&q);
    event *evs = xcalloc_huge((size_t)pending * sizeof *evs, "bench events");
    for (uint32_t i = 0; i < pending; i++) {
        event_init(&evs[i], NULL);
        evq_push(&q, &evs[i], inc[i & (INC_N - 1)]);
    }
    sim_time t = 0;
    for (uint64_t i = 0; i < pending; i++) {  /* warm-up: reach the steady-state shape */
        event *ev = evq_pop(&q, &t);
        evq_push(&q, ev, t + inc[(i * 7) & (INC_N - 1)]);
    }
    double t0 = now_s(), c0 = cpu_s();
    for (uint64_t i = 0; i < ops; i++) {
        event *ev = evq_pop(&q, &t);
        evq_push(&q, ev, t + inc[i & (INC_N - 1)]);
    }
    double dt = now_s() - t0, dc = cpu_s() - c0;
    printf("hold    %8u %10llu %8.3f %8.3f %8.2f   (t_end %llu)\n", pending,
           (unsigned long long)ops, dt, dc, (double)ops / dc * 1e-6, (unsigned long long)t);
    evq_free(&q);
    xfree_huge(evs, (size_t)pending * sizeof *evs);
}

static uint64_t sim_k, sim_ops;
static void on_hold(void *ctx, event *ev)
{
    sim *s = ctx;
    sim_after(s, ev, inc[sim_k & (INC_N - 1)]);
    if (++sim_k == sim_ops)
        sim_stop(s);
}

static void bench_sim(uint32_t pending, uint64_t ops)
{
    sim s;
    sim_init(&s, 1);
    event *evs = xcalloc_huge((size_t)pending * sizeof *evs, "bench events");
    for (uint32_t i = 0; i < pending; i++) {
        event_init(&evs[i], on_hold);
        sim_at(&s, &evs[i], inc[i & (INC_N - 1)]);
    }
    sim_k = 0;
    sim_ops = pending;  /* warm-up */
    sim_run(&s);
    s.stopped = false;
    sim_k = 0;
    sim_ops = ops;
    double t0 = now_s(), c0 = cpu_s();
    uint64_t done = sim_run(&s);
    double dt = now_s() - t0, dc = cpu_s() - c0;
    printf("sim_run %8u %10llu %8.3f %8.3f %8.2f   (t_end %llu)\n", pending,
           (unsigned long long)done, dt, dc, (double)done / dc * 1e-6, (unsigned long long)s.now);
    sim_free(&s);
    xfree_huge(evs, (size_t)pending * sizeof *evs);
}

int main(int argc, char **argv)
{
    uint64_t ops = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000ULL;
    rng r;
    rng_init(&r, 42, RNG_ID(RNG_KIND_TEST, 1));
    for (uint32_t i = 0; i < INC_N; i++)
        inc[i] = (sim_time)(-log(1.0 - rng_unit(&r)) * 1e6) + 1;
    static uint32_t sizes[] = {1000, 10000, 100000, 1000000};
    unsigned n_sizes = sizeof sizes / sizeof sizes[0];
    if (argc > 2) { /* one size only (for profiling) */
        char *end;
        unsigned long n = strtoul(argv[2], &end, 10);
        if (*end || n == 0 || n > UINT32_MAX) {
            fprintf(stderr, "usage: bench_evq [hold_ops [pending]]: pending is 1 to %u\n",
                    UINT32_MAX);
            return 2;
        }
        sizes[0] = (uint32_t)n;
        n_sizes = 1;
    }
    printf("mode     pending   hold_ops   wall_s    cpu_s  M_hold_ops/cpu_s\n");
    for (unsigned k = 0; k < n_sizes; k++) {
        bench_hold(sizes[k], ops);
        bench_sim(sizes[k], ops);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
