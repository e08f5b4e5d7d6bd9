/*
 * goodput.c — Monte Carlo of a long run under failures (goodput.h).
 */
#include "goodput.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "../core/rng.h"

/* Exponential time with rate λ from the stream (1 − u in (0, 1], so the log is finite). */
static double exp_draw(rng *r, double lambda)
{
    return -log(1.0 - rng_unit(r)) / lambda;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[n]. */
static double pct(const double *v, uint32_t n, double p)
{
    uint64_t k = (uint64_t)ceil(p * (double)n);
    if (k < 1)
        k = 1;
    return v[k - 1];
}

double goodput_expected_s(const goodput_in *in)
{
    uint64_t I = in->interval ? in->interval : in->iterations;
    uint64_t full = in->iterations / I, rest = in->iterations % I;
    double L = in->lambda_per_s, T = in->iter_s;
    /* segments: `full` of I iterations, each but the very last followed by a write */
    double total = 0;
    for (int k = 0; k < 2; k++) {
        uint64_t count;
        double s;
        if (k == 0) {
            /* full segments; with no remainder the last one has no write */
            count = rest ? full : (full ? full - 1 : 0);
            s = (double)I * T + (in->interval ? in->write_s : 0);
            if (!count)
                continue;
        } else {
            count = 1;
            s = (double)(rest ? rest : (full ? I : 0)) * T;
        }
        double e = L > 0 ? exp(L * in->restart_s) * expm1(L * s) / L : s;
        total += (double)count * e;
    }
    return total;
}

int goodput_run(const goodput_in *in, double *scratch, goodput_out *out)
{
    if (!in->iterations || !(in->iter_s > 0) || !in->samples)
        return -1;
    uint64_t I = in->interval ? in->interval : in->iterations;
    double L = in->lambda_per_s, T = in->iter_s;
    /* a segment (and its restart) expected to be interrupted e^30 times before it completes:
     * the job cannot make progress, and sampling it would not end */
    double seg = (double)(in->iterations < I ? in->iterations : I) * T + in->write_s;
    if (L * (seg + in->restart_s) > 30)
        return -2;
    double fail_sum = 0, time_sum = 0;
    uint64_t capped = 0;
    for (uint32_t k = 0; k < in->samples; k++) {
        rng r;
        rng_init(&r, in->seed, RNG_ID(RNG_KIND_GOODPUT, k));
        double t = 0;
        uint64_t done = 0, failures = 0;
        /* time from now to the next failure (memoryless: what is left of a draw after a
         * completed segment has the same law as a new one) */
        double next = L > 0 ? exp_draw(&r, L) : INFINITY;
        uint64_t steps = 0;
        double s_std = (double)I * T + (in->interval ? in->write_s : 0);
        while (done < in->iterations) {
            /* whole segments that fit before the next failure, at once (all but the last
             * segment are I iterations and a write) */
            uint64_t segs = (in->iterations - done + I - 1) / I;
            if (segs > 1 && next >= s_std) {
                double fit = floor(next / s_std);
                uint64_t c = fit >= (double)(segs - 1) ? segs - 1 : (uint64_t)fit;
                t += (double)c * s_std;
                next -= (double)c * s_std;
                done += c * I;
                continue;
            }
            uint64_t n = in->iterations - done < I ? in->iterations - done : I;
            bool last = done + n == in->iterations;
            double s = (double)n * T + (last || !in->interval ? 0 : in->write_s);
            if (next >= s) {
                t += s;
                next -= s;
                done += n;
                continue;
            }
            /* interrupted: the segment's work since the last checkpoint is lost */
            t += next;
            failures++;
            next = exp_draw(&r, L);
            while (next < in->restart_s && steps < 100000000ull) {
                t += next; /* a failure during the restart: again */
                failures++;
                steps++;
                next = exp_draw(&r, L);
            }
            t += in->restart_s;
            next -= in->restart_s;
            if (++steps > 100000000ull) { /* the run cannot finish (Λ·s huge): stop */
                capped++;
                break;
            }
        }
        scratch[k] = t;
        time_sum += t;
        fail_sum += (double)failures;
    }
    qsort(scratch, in->samples, sizeof(double), cmp_double);
    double work = (double)in->iterations * T;
    out->mean_s = time_sum / in->samples;
    out->p50_s = pct(scratch, in->samples, 0.50);
    out->p90_s = pct(scratch, in->samples, 0.90);
    out->goodput_mean = work / out->mean_s;
    out->goodput_p50 = work / out->p50_s;
    out->goodput_p90 = work / out->p90_s;
    out->failures_mean = fail_sum / in->samples;
    out->expected_s = goodput_expected_s(in);
    out->segment_cap_hits = capped;
    return 0;
}

double goodput_young_s(double write_s, double lambda_per_s)
{
    if (!(lambda_per_s > 0) || !(write_s > 0))
        return 0;
    return sqrt(2.0 * write_s / lambda_per_s);
}

double goodput_daly_s(double write_s, double lambda_per_s)
{
    if (!(lambda_per_s > 0) || !(write_s > 0))
        return 0;
    double M = 1.0 / lambda_per_s;
    /* Daly (2006), first order: √(2δM) − δ for δ < 2M; beyond, M */
    return write_s < 2 * M ? sqrt(2.0 * write_s * M) - write_s : M;
}

uint32_t goodput_optimize(const goodput_in *in, double *scratch, goodput_out *best)
{
    goodput_in g = *in;
    double daly = goodput_daly_s(in->write_s, in->lambda_per_s);
    double center = in->iter_s > 0 ? daly / in->iter_s : 1;
    if (!(in->write_s > 0))
        center = 1;
    if (center < 1)
        center = 1;
    uint32_t best_i = 0;
    double best_g = -1;
    uint32_t tried[32];
    uint32_t n_tried = 0;
    for (int k = -8; k <= 16; k++) {
        double v = k <= 8 ? center * pow(2.0, k / 4.0) : (double)(k - 8);
        if (!(in->write_s > 0) && k != -8)
            break;
        double cap = (double)in->iterations, x = floor(v + 0.5);
        if (x > cap)
            x = cap;
        if (x > 4e9) /* an interval is a uint32 */
            x = 4e9;
        if (x < 1)
            x = 1;
        uint32_t iv = (uint32_t)x;
        bool seen = false;
        for (uint32_t t = 0; t < n_tried; t++)
            seen |= tried[t] == iv;
        if (seen)
            continue;
        tried[n_tried++] = iv;
        g.interval = iv;
        goodput_out o;
        int rc = goodput_run(&g, scratch, &o);
        if (rc == -2)
            continue; /* this interval cannot complete: others may */
        if (rc)
            return 0;
        if (o.goodput_mean > best_g) {
            best_g = o.goodput_mean;
            best_i = iv;
            *best = o;
        }
    }
    return best_i;
}
