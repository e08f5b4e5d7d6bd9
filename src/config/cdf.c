/*
 * cdf.c — flow-size distributions (see cdf.h for the model and the sources of the tables).
 */
#include "cdf.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "units.h"

/* DCTCP web search (HPCC artifact's table: bytes, cumulative fraction). */
static const uint64_t WS_B[] = {0,      10000,   20000,   30000,   50000,    80000,
                                200000, 1000000, 2000000, 5000000, 10000000, 30000000};
static const double WS_P[] = {0, 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1};
/* VL2 data mining (Opera artifact's digitization: bytes, cumulative fraction). */
static const uint64_t DM_B[] = {100,      180,      250,       560,       900,       1100,
                                1870,     3160,     10000,     100001,    400000,    1850000,
                                10000000, 30000000, 100000000, 250000000, 1000000000};
static const double DM_P[] = {0,     0.085, 0.14, 0.33, 0.47, 0.55, 0.65,  0.7, 0.8,
                              0.874, 0.9,   0.95, 0.97, 0.98, 0.99, 0.995, 1};

const char *const CDF_BUILTIN_NAMES[] = {"websearch", "datamining", NULL};

bool cdf_builtin(const char *name, cfg_cdf *c)
{
    if (!strcmp(name, "websearch")) {
        *c = (cfg_cdf){"websearch", sizeof WS_B / sizeof WS_B[0], WS_B, WS_P};
        return true;
    }
    if (!strcmp(name, "datamining")) {
        *c = (cfg_cdf){"datamining", sizeof DM_B / sizeof DM_B[0], DM_B, DM_P};
        return true;
    }
    return false;
}

double cdf_mean(const cfg_cdf *c)
{
    if (!c->n)
        return 0;
    double m = c->p[0] * (double)c->bytes[0];
    for (uint32_t i = 1; i < c->n; i++)
        m += (c->p[i] - c->p[i - 1]) * 0.5 * ((double)c->bytes[i - 1] + (double)c->bytes[i]);
    return m;
}

uint64_t cdf_quantile(const cfg_cdf *c, double u)
{
    if (!c->n)
        return 1;
    double x = (double)c->bytes[c->n - 1];
    if (u < c->p[0]) {
        x = (double)c->bytes[0];
    } else {
        /* first point with p > u: u lies in the segment ending there */
        uint32_t lo = 0, hi = c->n - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (c->p[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo > 0 && c->p[lo] > u) {
            double p0 = c->p[lo - 1], p1 = c->p[lo];
            double x0 = (double)c->bytes[lo - 1], x1 = (double)c->bytes[lo];
            x = x0 + (u - p0) / (p1 - p0) * (x1 - x0);
        }
    }
    double r = floor(x + 0.5);
    return r < 1 ? 1 : (uint64_t)r;
}

double cdf_at(const cfg_cdf *c, double bytes)
{
    if (!c->n || bytes < (double)c->bytes[0])
        return 0;
    for (uint32_t i = 1; i < c->n; i++)
        if (bytes < (double)c->bytes[i]) {
            double x0 = (double)c->bytes[i - 1], x1 = (double)c->bytes[i];
            return c->p[i - 1] + (bytes - x0) / (x1 - x0) * (c->p[i] - c->p[i - 1]);
        }
    return 1;
}

/* One field of a CSV line: [*s, end); advances *s past it and one separator. */
static size_t field(const char **s, const char *end, char *buf, size_t cap)
{
    const char *p = *s;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *b = p;
    while (p < end && *p != ',' && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    size_t n = (size_t)(p - b);
    size_t k = n < cap - 1 ? n : cap - 1;
    memcpy(buf, b, k);
    buf[k] = '\0';
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && *p == ',')
        p++;
    *s = p;
    return n;
}

int cdf_parse_csv(const char *text, size_t len, const char *file, arena *a, cfg_cdf *c, err *e)
{
    uint64_t *xb = xmalloc(sizeof(uint64_t) * CDF_MAX_POINTS, "size CDF");
    double *xp = xmalloc(sizeof(double) * CDF_MAX_POINTS, "size CDF");
    uint32_t n = 0;
    int line = 0, rc = ERR_OK, last_line = 0;
    const char *s = text, *end = text + len;
    while (s < end && !rc) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        if (!eol)
            eol = end;
        line++;
        const char *p = s;
        while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == eol || *p == '#') {
            s = eol + (eol < end);
            continue;
        }
        char f1[64], f2[64], why[200];
        const char *q = p;
        field(&q, eol, f1, sizeof f1);
        int col2 = (int)(q - s) + 1;
        field(&q, eol, f2, sizeof f2);
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        uint64_t b = 0;
        char *ep = NULL;
        double pr = strtod(f2, &ep);
        if (!f1[0] || !f2[0] || q != eol)
            rc = err_set(e, ERR_INVALID, file, line, 1,
                         "size_cdf: expected two fields \"bytes,probability\" per line");
        else if (!units_size(f1, &b, why, sizeof why))
            rc = err_set(e, ERR_INVALID, file, line, (int)(p - s) + 1,
                         "size_cdf: expected a flow size in bytes, got \"%s\"", f1);
        else if (!ep || *ep || !isfinite(pr) || pr < 0 || pr > 100)
            rc = err_set(e, ERR_INVALID, file, line, col2,
                         "size_cdf: expected a cumulative probability in [0, 1] (or a "
                         "percentage), got \"%s\"",
                         f2);
        else if (n == CDF_MAX_POINTS)
            rc = err_set(e, ERR_INVALID, file, line, 1, "size_cdf: more than %u points",
                         CDF_MAX_POINTS);
        else if (n && b <= xb[n - 1])
            rc = err_set(e, ERR_INVALID, file, line, (int)(p - s) + 1,
                         "size_cdf: sizes must increase from line to line (%s after %llu)", f1,
                         (unsigned long long)xb[n - 1]);
        else if (n && pr < xp[n - 1])
            rc = err_set(e, ERR_INVALID, file, line, col2,
                         "size_cdf: the cumulative probability must not decrease (%s after %g)", f2,
                         xp[n - 1]);
        else {
            xb[n] = b;
            xp[n++] = pr;
            last_line = line;
        }
        s = eol + (eol < end);
    }
    if (!rc && n == 0)
        rc = err_set(e, ERR_INVALID, file, line ? line : 1, 1,
                     "size_cdf: no points (expected lines \"bytes,probability\")");
    if (!rc) {
        double scale = xp[n - 1] == 100 ? 100 : 1;
        if (xb[n - 1] == 0)
            rc = err_set(e, ERR_INVALID, file, last_line, 1,
                         "size_cdf: the largest size must be at least 1 byte");
        else if (xp[n - 1] != 1 && xp[n - 1] != 100)
            rc = err_set(e, ERR_INVALID, file, last_line, 1,
                         "size_cdf: the last point's cumulative probability must be 1 (or 100 "
                         "for percentages), got %g",
                         xp[n - 1]);
        if (!rc) {
            uint64_t *ob = ARENA_NEW_ARRAY(a, uint64_t, n);
            double *op = ARENA_NEW_ARRAY(a, double, n);
            for (uint32_t i = 0; i < n; i++) {
                ob[i] = xb[i];
                op[i] = xp[i] / scale;
            }
            c->n = n;
            c->bytes = ob;
            c->p = op;
        }
    }
    xfree(xb);
    xfree(xp);
    return rc;
}
