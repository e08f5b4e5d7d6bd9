/*
 * diagnose.h — why a run was slow: rules over run_stats, each with evidence thresholds
 * (docs/diagnosis.md). Borrowed inputs, no allocation kept, no printing.
 */
#ifndef WR_REPORT_DIAGNOSE_H
#define WR_REPORT_DIAGNOSE_H

#include "../workload/run.h"

/* One-line diagnoses of what made the run congested, most severe first (at most `max` lines of
 * SUMMARY_DIAG_LEN bytes each); returns how many. Recognised, from the port records and flows:
 *   "PFC storm from h5: ..."          a host NIC port sent PAUSE frames (a NIC never should)
 *   "incast at sw0->h0: ..."           the deepest switch->host queue, with several flows in
 *   "ECMP collision: ..."              a switch's uplinks to one tier carry very unequal load
 * Port roles come from the names of the presets ("h<N>" hosts; "owner->peer"); a custom
 * topology with other names gets the diagnoses whose roles can be told. */
#define SUMMARY_DIAG_LEN 200
int summary_diagnose(const run_stats *st, char (*lines)[SUMMARY_DIAG_LEN], int max);

#endif
