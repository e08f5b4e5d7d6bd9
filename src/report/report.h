/*
 * report.h — the HTML report of a run's output folder (`wirerate report DIR`, and
 * output.formats: [html] at the end of a run through the same code).
 *
 * Input: the files a run wrote — summary.json (required), ports.csv, flows.csv, timeseries.csv
 * and dcqcn_rates.csv (each optional; a chart whose data is missing says so instead of being
 * drawn). Output: ONE self-contained HTML file — inline CSS and SVG, no script, no network
 * access, readable offline and printable:
 *   headline figures and the one-line diagnoses (summary_diagnose)
 *   per-job JCT bars (split per iteration when the job has iterations)
 *   link-utilization heat maps, one per tier pair ("leaf→spine", "spine→leaf", "h→leaf", ...;
 *     the pair comes from the port names), hottest ports first, time on x
 *   queue depth of the hottest ports over time, and their PFC paused intervals
 *   the FCT CDF over completed flows
 *   the DCQCN pacing rate of the slowest flows (when dcqcn_rates.csv exists)
 *   the top congested ports table
 * Every SVG carries an id (chart-jct, chart-heat-*, chart-queue, chart-pfc, chart-fct,
 * chart-dcqcn) so tests and scripts can find the charts in the DOM.
 */
#ifndef WR_REPORT_REPORT_H
#define WR_REPORT_REPORT_H

#include <stdio.h>

#include "../core/err.h"

typedef struct report report;

/* Read the run's files from `dir`. Returns new, or NULL with *e: ERR_IO when summary.json
 * cannot be read, ERR_INVALID when a file is malformed (the message names the file, line or
 * byte offset, and what was wrong). */
report *report_load(const char *dir, err *e);
/* Write report.html to f (borrowed). Returns 0, or -1 on a stream error. */
int report_write_html(FILE *f, const report *r);
void report_free(report *r);

#endif
