/*
 * reqtrace.c — inference request traces (see reqtrace.h for the format).
 */
#include "reqtrace.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "units.h"

/* The next comma-separated field of [*p, eol), spaces trimmed; *p moves past the comma. */
static void field(const char **p, const char *eol, char *out, size_t cap, int *col,
                  const char *line0)
{
    const char *s = *p;
    while (s < eol && (*s == ' ' || *s == '\t'))
        s++;
    *col = (int)(s - line0) + 1;
    const char *e = s;
    while (e < eol && *e != ',')
        e++;
    const char *t = e;
    while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
        t--;
    size_t n = (size_t)(t - s);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    *p = e < eol ? e + 1 : eol;
}

static bool tokens(const char *s, uint32_t *out)
{
    if (!*s)
        return false;
    uint64_t v = 0;
    for (const char *q = s; *q; q++) {
        if (*q < '0' || *q > '9')
            return false;
        v = v * 10 + (uint64_t)(*q - '0');
        if (v > 10000000)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* A time with a unit, or plain seconds. */
static bool arrival(const char *s, sim_time *ps)
{
    char why[160];
    uint64_t v;
    if (units_time(s, &v, why, sizeof why)) {
        *ps = v;
        return true;
    }
    char *end = NULL;
    double x = strtod(s, &end);
    if (!*s || !end || *end || !isfinite(x) || x < 0 || x > 1e6)
        return false;
    *ps = (sim_time)llround(x * 1e12);
    return true;
}

int reqtrace_parse(const char *text, size_t len, const char *file, arena *a, uint32_t *n_out,
                   sim_time **arrival_ps, uint32_t **prompt, uint32_t **output, err *e)
{
    uint32_t n = 0, cap = 1024;
    sim_time *t = xmalloc(sizeof(sim_time) * cap, "request trace");
    uint32_t *pr = xmalloc(sizeof(uint32_t) * cap, "request trace");
    uint32_t *ou = xmalloc(sizeof(uint32_t) * cap, "request trace");
    int line = 0, rc = ERR_OK;
    bool first = true;
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
        if (first && isalpha((unsigned char)*p)) { /* header */
            first = false;
            s = eol + (eol < end);
            continue;
        }
        first = false;
        char f[3][64];
        int col[3];
        const char *q = s;
        for (int k = 0; k < 3; k++)
            field(&q, eol, f[k], sizeof f[k], &col[k], s);
        sim_time at = 0;
        uint32_t np = 0, no = 0;
        if (!f[0][0] || !f[1][0] || !f[2][0] || q != eol)
            rc = err_set(e, ERR_INVALID, file, line, 1,
                         "requests.trace: expected three fields \"arrival,prompt_tokens,"
                         "output_tokens\" per line");
        else if (!arrival(f[0], &at))
            rc = err_set(e, ERR_INVALID, file, line, col[0],
                         "requests.trace: expected an arrival time like \"1.5ms\" or seconds, "
                         "got \"%s\"",
                         f[0]);
        else if (!tokens(f[1], &np) || np == 0)
            rc = err_set(e, ERR_INVALID, file, line, col[1],
                         "requests.trace: expected prompt tokens 1..10000000, got \"%s\"", f[1]);
        else if (!tokens(f[2], &no) || no == 0)
            rc = err_set(e, ERR_INVALID, file, line, col[2],
                         "requests.trace: expected output tokens 1..10000000, got \"%s\"", f[2]);
        else if (n && at < t[n - 1])
            rc = err_set(e, ERR_INVALID, file, line, col[0],
                         "requests.trace: arrivals must be in time order; %s is before the "
                         "previous row's",
                         f[0]);
        else if (n == REQTRACE_MAX_ROWS)
            rc = err_set(e, ERR_INVALID, file, line, 1, "requests.trace: more than %u requests",
                         REQTRACE_MAX_ROWS);
        if (rc)
            break;
        if (n == cap) {
            cap *= 2;
            t = xrealloc(t, sizeof(sim_time) * cap, "request trace");
            pr = xrealloc(pr, sizeof(uint32_t) * cap, "request trace");
            ou = xrealloc(ou, sizeof(uint32_t) * cap, "request trace");
        }
        t[n] = at;
        pr[n] = np;
        ou[n] = no;
        n++;
        s = eol + (eol < end);
    }
    if (!rc && n == 0)
        rc = err_set(e, ERR_INVALID, file, 1, 1, "requests.trace: the file has no requests");
    if (!rc) {
        *n_out = n;
        *arrival_ps = ARENA_NEW_ARRAY(a, sim_time, n);
        *prompt = ARENA_NEW_ARRAY(a, uint32_t, n);
        *output = ARENA_NEW_ARRAY(a, uint32_t, n);
        memcpy(*arrival_ps, t, sizeof(sim_time) * n);
        memcpy(*prompt, pr, sizeof(uint32_t) * n);
        memcpy(*output, ou, sizeof(uint32_t) * n);
    }
    xfree(t);
    xfree(pr);
    xfree(ou);
    return rc;
}
