/*
 * report_int.h — what report_read.c hands to report_draw.c (internal to src/report). The
 * reader validates every value it keeps (finite, non-negative, end >= start, times in order),
 * so the drawing code may scale and cast without checking again.
 */
#ifndef WR_REPORT_REPORT_INT_H
#define WR_REPORT_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../workload/run.h"
#include "jsonr.h"
#include "report.h"

#define REPORT_MAX_NOTES 8
#define REPORT_NOTE_LEN 200
#define RATE_SERIES 6     /* DCQCN chart: series drawn (most throttled first) */
#define RATE_BUCKETS 1000 /* ...each decimated to min and max per bucket: <= 2,000 points */

typedef struct series { /* a port's time series */
    char name[48];
    float *q, *util;
    uint8_t *paused;
    double max_q, mean_util;
    uint32_t paused_n;
} series;

typedef struct rate_series { /* one flow's DCQCN pacing rate, decimated */
    uint32_t flow;           /* the `flow` column */
    uint64_t flow_rec;       /* index into st.flows, or UINT64_MAX when flows.csv lacks it */
    double mean_bps;
    float lo[RATE_BUCKETS], hi[RATE_BUCKETS]; /* min / max per bucket (bps) */
    uint8_t has[RATE_BUCKETS];
} rate_series;

struct report {
    char *dir;
    jsonr_doc *doc, *mdoc;        /* summary.json, manifest.json */
    const jsonr_val *manifest_files; /* manifest.json "files", NULL without a manifest */
    const jsonr_val *root;
    run_stats st;
    bool have_ports, have_flows, have_ts, have_rates, have_manifest;
    int n_notes; /* what the reader ignored or could not check, shown on the page */
    char notes[REPORT_MAX_NOTES][REPORT_NOTE_LEN];
    uint32_t n_t;
    uint32_t n_show; /* rows up to the last activity (+1): a trailing idle tail (e.g. a timer
                      * firing long after the last packet) would squeeze every chart */
    sim_time *t;
    uint32_t n_series;
    series *ser;
    /* DCQCN */
    sim_time rt0, rt1;       /* first and last sample time */
    uint32_t n_qps;          /* distinct flows/QPs in dcqcn_rates.csv */
    uint32_t n_rflows;
    rate_series *rflows;     /* n_rflows */
};

#endif
