/*
 * compare.h — the page comparing the runs of a results database (`wirerate report results.db`):
 * one self-contained HTML file (inline CSS and SVG, no script, no network) with
 *   the best configuration named, for each figure the database has: the lowest mean JCT, the
 *     highest mean busbw, the lowest mean p99 FCT (means over the seeds of a configuration; a
 *     configuration with a run that is not ok cannot be best, and the page says why);
 *   per axis and figure, a chart and a table of the mean (and the range over the other axes and
 *     seeds) per axis value — the main effect of each axis;
 *   every configuration in a table, ranked by mean JCT;
 *   the runs that were invalid or failed, with their errors.
 * Figures come from the runs table (report/resultsdb.h): jct_ps, busbw_GBps, fct_p99_ps.
 * Every SVG has an id (chart-AXIS-jct, chart-AXIS-busbw, chart-AXIS-p99, AXIS its position) and
 * the best configuration is in <section id="best">, for tests and scripts.
 */
#ifndef WR_REPORT_COMPARE_H
#define WR_REPORT_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "../core/err.h"

typedef struct compare compare;

/* True when the file at `path` starts with the SQLite header ("SQLite format 3"). */
bool compare_is_database(const char *path);

/* Read the runs of the results database at `path`. NULL with *e: ERR_IO when it cannot be
 * opened, ERR_INVALID when it is not a wirerate results database (no meta/axes/runs tables). */
compare *compare_load(const char *path, err *e);
/* Write the page to f (borrowed). 0, or -1 on a stream error. */
int compare_write_html(FILE *f, const compare *c);
/* The best configuration by mean JCT as "key=value, key=value" (NULL when none could be
 * ranked); valid until compare_free. */
const char *compare_best(const compare *c);
void compare_free(compare *c);

#endif
