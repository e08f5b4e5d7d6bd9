/*
 * bench_training.c — size and cost of the training planner's DAG for llama3-70b on 1024 GPUs
 * (tp 8, pp 8, dp 16, micro_batch 1): task and dependency counts, plan memory, wall time to build
 * the plan and to evaluate it analytically (α–β costs), per-layer vs aggregated TP tasks, at the
 * scenario default global batch (micro_batch × dp × pp = 128, m = 8) and at Llama 3's 16M-token
 * batch (2048 sequences, m = 128). The executor simulates every communication task, so these
 * counts bound its work.
 *
 * Output, one line per case:
 *   gb m mode tasks compute tp(coll represented) p2p dp deps plan_MB build_s eval_s iter_ms
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#include "workload/training.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    static const uint32_t gbs[] = {128, 2048};
    printf("gb     m  mode        tasks     compute   tp(represents)      p2p     dp    deps"
           "      plan_MB build_s eval_s iter_ms\n");
    for (int g = 0; g < 2; g++) {
        for (int agg = 0; agg < 2; agg++) {
            train_opts o;
            train_opts_default(&o);
            train_model_preset("llama3-70b", &o.model);
            o.tp = 8, o.pp = 8, o.dp = 16;
            o.n_ranks = 1024;
            o.global_batch = gbs[g];
            o.tp_per_layer = !agg;
            err e;
            err_clear(&e);
            double t0 = now_s();
            train_plan *p = train_plan_new(&o, &e);
            double t1 = now_s();
            if (!p) {
                fprintf(stderr, "bench_training: %s\n", e.msg);
                return 1;
            }
            train_ab_cost ab = {0};
            ab.tp_alpha_ps = 5 * SIM_US, ab.tp_bw_bps = 3600000000000ull;
            ab.pp_alpha_ps = ab.dp_alpha_ps = 10 * SIM_US;
            ab.pp_bw_bps = ab.dp_bw_bps = 400000000000ull;
            train_summary S;
            sim_time T = train_eval_ideal(p, train_ab_cost_fn, &ab, NULL, NULL, NULL, NULL, &S);
            double t2 = now_s();
            double mb = (p->mem.used_bytes + (double)p->n_tasks * sizeof(train_task)) / 1e6;
            printf("%-5u %4u  %-10s %8u %10llu %7llu(%7llu) %8llu %6llu %9u %8.1f %7.3f %6.3f "
                   "%8.1f\n",
                   gbs[g], p->m, agg ? "aggregated" : "per-layer", p->n_tasks,
                   (unsigned long long)p->stats.compute, (unsigned long long)p->stats.coll_tp,
                   (unsigned long long)p->stats.tp_collectives, (unsigned long long)p->stats.p2p,
                   (unsigned long long)p->stats.coll_dp, p->n_deps, mb, t1 - t0, t2 - t1, T / 1e9);
            train_plan_free(p);
        }
    }
    return 0;
}
