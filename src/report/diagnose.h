/*
 * diagnose.h — why a run was slow: rules over run_stats, each with evidence thresholds
 * (docs/diagnosis.md), each tested where it fires and where it must stay silent. Borrowed
 * inputs, nothing kept, no printing.
 *
 * Rules, most severe first (the `rule` names are a contract of summary.json "diagnosis"):
 *   lossless_drops  frames of a PFC class dropped at admission: headroom overflow, named loudly
 *   link_fault      a downed link lost frames or caused RTOs; the rerouting window
 *   pfc_storm       a host NIC port sent PAUSE frames (a NIC never should)
 *   straggler       a training rank computes ≥ 10 % longer than nominal (gpu-slow)
 *   incast          several flows into one host whose link carried the load and queued
 *   ecmp_collision  a switch's uplinks unequally loaded, the busiest queueing, a job slowed
 *   pfc_spreading   PAUSE crossed switch-to-switch links: victims of another flow's congestion
 *   dcqcn_collapse  rate limiters, not links, held a starved job back
 * Port roles come from the names of the presets ("h<N>" hosts; "owner->peer"); a custom
 * topology with other names gets the diagnoses whose roles can be told.
 */
#ifndef WR_REPORT_DIAGNOSE_H
#define WR_REPORT_DIAGNOSE_H

#include "../workload/run.h"

#define DIAG_TEXT_LEN 240
#define DIAG_MAX 12

typedef struct diagnosis {
    const char *rule;         /* static string, one of the names above */
    char text[DIAG_TEXT_LEN]; /* one line for a person */
    sim_time cost_ps;         /* what it plausibly cost the most affected job (≤ its JCT −
                               * ideal); 0 = not estimated */
} diagnosis;

/* Evaluate every rule; at most `max` diagnoses into out, most severe first. Returns how many. */
int diagnose_run(const run_stats *st, diagnosis *out, int max);

/* The same as one-line texts (the HTML report and older callers). */
#define SUMMARY_DIAG_LEN DIAG_TEXT_LEN
int summary_diagnose(const run_stats *st, char (*lines)[SUMMARY_DIAG_LEN], int max);

#endif
