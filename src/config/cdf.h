/*
 * cdf.h — flow-size distributions for traffic jobs (`size_cdf:`): the published data-center
 * workloads built in, or a user's CSV file.
 *
 * A distribution is a piecewise-linear CDF: points (bytes_i, p_i) with bytes strictly increasing,
 * p non-decreasing in [0, 1] and the last p = 1. Between two points the CDF is linear (sizes are
 * uniform inside a segment), as the ns-3/HPCC and pFabric traffic generators read these tables;
 * a first point with p_0 > 0 puts probability p_0 on bytes_0 exactly.
 *
 * Built in (name → source):
 *   websearch   DCTCP web search (Alizadeh et al., SIGCOMM'10, Fig. 4 "background flows"), as the
 *               HPCC artifact (Li et al., SIGCOMM'19, traffic_gen/WebSearch_distribution.txt)
 *               tabulates it: 0..30 MB, mean 1.71 MB.
 *   datamining  VL2 data mining (Greenberg et al., SIGCOMM'09, Fig. 2 flow size CDF), as the Opera
 *               artifact (Mellette et al., NSDI'20, Figure1_traffic/datamining.csv) digitizes
 *               it: 100 B..1 GB, mean 5.04 MB, 80% of flows below 10 KB.
 *
 * CSV: one point per line, `bytes,p` (a comma, or spaces/tabs between the two fields); `bytes`
 * is an integer or a size with a unit ("10KB"); p a fraction in [0, 1], or a percentage when the
 * last line's p is 100 (the HPCC files' convention). Blank lines and lines starting with `#`
 * are ignored. At most CDF_MAX_POINTS points.
 */
#ifndef WR_CONFIG_CDF_H
#define WR_CONFIG_CDF_H

#include <stddef.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"

#define CDF_MAX_POINTS 4096

typedef struct cfg_cdf {
    const char *name;      /* "websearch", "datamining", or the CSV path as given */
    uint32_t n;            /* points; 0 = no distribution (the job's fixed size) */
    const uint64_t *bytes; /* n sizes, strictly increasing */
    const double *p;       /* n probabilities, non-decreasing, p[n-1] = 1 */
} cfg_cdf;

/* Fill *c with built-in distribution `name`; false when there is none by that name. */
_Bool cdf_builtin(const char *name, cfg_cdf *c);
/* The built-in names, NULL-terminated (for messages). */
extern const char *const CDF_BUILTIN_NAMES[];
/* Parse CSV text (see top comment) into *c, arrays in arena a. On bad input sets *e at
 * file:line:col of `file` and returns ERR_INVALID. */
int cdf_parse_csv(const char *text, size_t len, const char *file, arena *a, cfg_cdf *c, err *e);
/* Mean flow size in bytes of the piecewise-linear distribution. */
double cdf_mean(const cfg_cdf *c);
/* The size at quantile u in [0, 1): the inverse of the piecewise-linear CDF, rounded to the
 * nearest byte, at least 1. */
uint64_t cdf_quantile(const cfg_cdf *c, double u);
/* The CDF at `bytes` (for tests: P(size <= bytes)). */
double cdf_at(const cfg_cdf *c, double bytes);

#endif
