/*
 * compare.c — the comparison page of a results database (see compare.h).
 *
 * A "configuration" is one combination of axis values; its runs are its seeds. Runs are grouped
 * by sorting them on their tuple of axis-value indices (value indices in order of first
 * appearance by run id, which is the sweep file's order), so a zip sweep or an interrupted one
 * groups the same way as a full grid. Means are over the ok runs that have the figure (a
 * figure is NULL in the database when it does not exist, e.g. busbw without a collective job).
 * A configuration is ranked only when every one of its runs is ok: a best configuration whose
 * other seed crashed would be a claim the data does not support.
 */
#include "compare.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "summary.h"

enum { M_JCT, M_BUSBW, M_P99, M_N };
static const char *const m_name[M_N] = {"JCT", "busbw", "p99 FCT"};
static const char *const m_id[M_N] = {"jct", "busbw", "p99"};
static const char *const m_col[M_N] = {"jct_ps", "busbw_GBps", "fct_p99_ps"};
static const char *const m_note[M_N] = {
    "the longest job's completion time (runs.jct_ps); lower is better",
    "the lowest busbw of the collective jobs (runs.busbw_GBps); higher is better",
    "the 99th-percentile flow completion time (runs.fct_p99_ps); lower is better",
};
static const bool m_higher_better[M_N] = {false, true, false};

typedef struct crun {
    uint32_t id;
    bool ok;
    char *status, *error;
    uint32_t *vi;  /* value index per axis */
    double m[M_N]; /* NAN when NULL */
} crun;

typedef struct caxis {
    char *key;
    uint32_t n_values, cap;
    char **values;
} caxis;

typedef struct config {
    uint32_t first, n; /* into order[] */
    uint32_t n_ok;
    bool complete;
    double mean[M_N];
    uint32_t cnt[M_N];
} config;

struct compare {
    char *path, *kind, *source;
    uint32_t runs_total;
    uint32_t n_axes;
    caxis *axes;
    uint32_t n_runs;
    crun *runs;
    uint32_t *order;
    uint32_t n_configs;
    config *cfg;
    int best[M_N];
    bool has[M_N];
    char *best_text;
    uint32_t n_ok, n_invalid, n_failed;
};

bool compare_is_database(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char h[16];
    bool yes = fread(h, 1, 16, f) == 16 && memcmp(h, "SQLite format 3", 16) == 0;
    fclose(f);
    return yes;
}

static char *dup_text(const unsigned char *s)
{
    return xstrdup(s ? (const char *)s : "", "report text");
}

static char *meta(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = dup_text(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

static uint32_t value_index(caxis *a, const char *v)
{
    for (uint32_t i = 0; i < a->n_values; i++)
        if (strcmp(a->values[i], v) == 0)
            return i;
    if (a->n_values == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 8;
        a->values = xrealloc(a->values, a->cap * sizeof *a->values, "axis values");
    }
    a->values[a->n_values] = xstrdup(v, "axis value");
    return a->n_values++;
}

static const compare *sort_ctx;
static int cmp_config(const void *pa, const void *pb)
{
    const crun *a = &sort_ctx->runs[*(const uint32_t *)pa],
               *b = &sort_ctx->runs[*(const uint32_t *)pb];
    for (uint32_t k = 0; k < sort_ctx->n_axes; k++)
        if (a->vi[k] != b->vi[k])
            return a->vi[k] < b->vi[k] ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static void group(compare *c)
{
    c->order = xcalloc(c->n_runs ? c->n_runs : 1, sizeof *c->order, "run order");
    for (uint32_t i = 0; i < c->n_runs; i++)
        c->order[i] = i;
    sort_ctx = c;
    qsort(c->order, c->n_runs, sizeof *c->order, cmp_config);
    sort_ctx = NULL;
    c->cfg = xcalloc(c->n_runs ? c->n_runs : 1, sizeof *c->cfg, "configurations");
    for (uint32_t i = 0; i < c->n_runs;) {
        config *g = &c->cfg[c->n_configs++];
        g->first = i;
        g->complete = true;
        double sum[M_N] = {0};
        uint32_t j = i;
        for (; j < c->n_runs; j++) {
            const crun *r = &c->runs[c->order[j]];
            if (j > i && memcmp(r->vi, c->runs[c->order[i]].vi, c->n_axes * sizeof *r->vi) != 0)
                break;
            g->complete &= r->ok;
            g->n_ok += r->ok;
            for (int m = 0; m < M_N; m++)
                if (r->ok && !isnan(r->m[m])) {
                    sum[m] += r->m[m];
                    g->cnt[m]++;
                }
        }
        g->n = j - i;
        for (int m = 0; m < M_N; m++)
            g->mean[m] = g->cnt[m] ? sum[m] / g->cnt[m] : NAN;
        i = j;
    }
    for (int m = 0; m < M_N; m++) {
        c->best[m] = -1;
        for (uint32_t g = 0; g < c->n_configs; g++) {
            const config *x = &c->cfg[g];
            /* ranked only when every run is ok and each has the figure */
            if (!x->complete || x->cnt[m] != x->n)
                continue;
            c->has[m] = true;
            if (c->best[m] < 0 || (m_higher_better[m] ? x->mean[m] > c->cfg[c->best[m]].mean[m]
                                                      : x->mean[m] < c->cfg[c->best[m]].mean[m]))
                c->best[m] = (int)g;
        }
    }
}

/* "key=value, key=value" of configuration g (returns new). */
static char *config_text(const compare *c, const config *g)
{
    const crun *r = &c->runs[c->order[g->first]];
    size_t len = 1;
    for (uint32_t k = 0; k < c->n_axes; k++)
        len += strlen(c->axes[k].key) + strlen(c->axes[k].values[r->vi[k]]) + 3;
    char *s = xmalloc(len + 32, "configuration text");
    size_t o = 0;
    s[0] = '\0';
    for (uint32_t k = 0; k < c->n_axes; k++)
        o += (size_t)snprintf(s + o, len + 32 - o, "%s%s=%s", k ? ", " : "", c->axes[k].key,
                              c->axes[k].values[r->vi[k]]);
    if (!c->n_axes)
        snprintf(s, len + 32, "the base scenario");
    return s;
}

compare *compare_load(const char *path, err *e)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        err_set(e, ERR_IO, path, 0, 0, "cannot open the database: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_busy_timeout(db, 10000);
    compare *c = xcalloc(1, sizeof *c, "comparison");
    c->path = xstrdup(path, "database path");
    char *tool = meta(db, "tool");
    c->kind = meta(db, "kind");
    c->source = meta(db, "source");
    char *total = meta(db, "runs_total");
    c->runs_total = total ? (uint32_t)strtoul(total, NULL, 10) : 0;
    bool ours = tool && strcmp(tool, "wirerate") == 0 && c->kind;
    xfree(tool);
    xfree(total);
    sqlite3_stmt *st = NULL;
    if (!ours || sqlite3_prepare_v2(db, "SELECT key FROM axes ORDER BY position", -1, &st, NULL)) {
        err_set(e, ERR_INVALID, path, 0, 0,
                "not a wirerate results database (written by `wirerate sweep` or "
                "output.formats: [sqlite]): %s",
                ours ? sqlite3_errmsg(db) : "no meta table naming wirerate");
        goto fail;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        c->axes = xrealloc(c->axes, (c->n_axes + 1) * sizeof *c->axes, "axes");
        memset(&c->axes[c->n_axes], 0, sizeof *c->axes);
        c->axes[c->n_axes++].key = dup_text(sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);

    /* SELECT run_id, status, error, jct_ps, busbw_GBps, fct_p99_ps, "axis"... */
    size_t len = 128;
    for (uint32_t k = 0; k < c->n_axes; k++)
        len += 2 * strlen(c->axes[k].key) + 4;
    char *sql = xmalloc(len, "query");
    size_t o = (size_t)snprintf(sql, len, "SELECT run_id, status, error, %s, %s, %s", m_col[0],
                                m_col[1], m_col[2]);
    for (uint32_t k = 0; k < c->n_axes; k++) {
        o += (size_t)snprintf(sql + o, len - o, ", \"");
        for (const char *p = c->axes[k].key; *p; p++)
            o += (size_t)snprintf(sql + o, len - o, *p == '"' ? "\"\"" : "%c", *p);
        o += (size_t)snprintf(sql + o, len - o, "\"");
    }
    snprintf(sql + o, len - o, " FROM runs ORDER BY run_id");
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    xfree(sql);
    if (rc != SQLITE_OK) {
        err_set(e, ERR_INVALID, path, 0, 0, "not a wirerate results database: %s",
                sqlite3_errmsg(db));
        goto fail;
    }
    uint32_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (c->n_runs == cap) {
            cap = cap ? cap * 2 : 64;
            c->runs = xrealloc(c->runs, cap * sizeof *c->runs, "runs");
        }
        crun *r = &c->runs[c->n_runs++];
        r->id = (uint32_t)sqlite3_column_int64(st, 0);
        r->status = dup_text(sqlite3_column_text(st, 1));
        r->error = dup_text(sqlite3_column_text(st, 2));
        r->ok = strcmp(r->status, "ok") == 0;
        c->n_ok += r->ok;
        c->n_invalid += strcmp(r->status, "invalid") == 0;
        c->n_failed += !r->ok && strcmp(r->status, "invalid") != 0;
        for (int m = 0; m < M_N; m++)
            r->m[m] = sqlite3_column_type(st, 3 + m) == SQLITE_NULL
                          ? NAN
                          : sqlite3_column_double(st, 3 + m);
        r->vi = xcalloc(c->n_axes ? c->n_axes : 1, sizeof *r->vi, "axis value indices");
        for (uint32_t k = 0; k < c->n_axes; k++) {
            const unsigned char *v = sqlite3_column_text(st, 6 + (int)k);
            r->vi[k] = value_index(&c->axes[k], v ? (const char *)v : "NULL");
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    group(c);
    if (c->best[M_JCT] >= 0)
        c->best_text = config_text(c, &c->cfg[c->best[M_JCT]]);
    return c;
fail:
    sqlite3_close(db);
    compare_free(c);
    return NULL;
}

const char *compare_best(const compare *c)
{
    return c->best_text;
}

void compare_free(compare *c)
{
    if (!c)
        return;
    for (uint32_t k = 0; k < c->n_axes; k++) {
        for (uint32_t i = 0; i < c->axes[k].n_values; i++)
            xfree(c->axes[k].values[i]);
        xfree(c->axes[k].values);
        xfree(c->axes[k].key);
    }
    for (uint32_t i = 0; i < c->n_runs; i++) {
        xfree(c->runs[i].status);
        xfree(c->runs[i].error);
        xfree(c->runs[i].vi);
    }
    xfree(c->axes);
    xfree(c->runs);
    xfree(c->order);
    xfree(c->cfg);
    xfree(c->best_text);
    xfree(c->path);
    xfree(c->kind);
    xfree(c->source);
    xfree(c);
}

/* ---- HTML -------------------------------------------------------------------------------- */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static char *fmt(char *buf, size_t len, int m, double v)
{
    if (isnan(v))
        snprintf(buf, len, "—");
    else if (m == M_BUSBW)
        snprintf(buf, len, "%.2f GB/s", v);
    else
        summary_fmt_time(buf, len, (sim_time)llround(v));
    return buf;
}

typedef struct vstat {
    double sum, min, max;
    uint32_t n, runs, bad;
} vstat;

/* Per value of axis k: the figure over the ok runs with that value. */
static void axis_stats(const compare *c, uint32_t k, int m, vstat *vs)
{
    memset(vs, 0, c->axes[k].n_values * sizeof *vs);
    for (uint32_t i = 0; i < c->n_runs; i++) {
        const crun *r = &c->runs[i];
        vstat *s = &vs[r->vi[k]];
        s->runs++;
        if (!r->ok) {
            s->bad++;
            continue;
        }
        if (isnan(r->m[m]))
            continue;
        if (!s->n || r->m[m] < s->min)
            s->min = r->m[m];
        if (!s->n || r->m[m] > s->max)
            s->max = r->m[m];
        s->sum += r->m[m];
        s->n++;
    }
}

/* One horizontal bar per axis value: the mean, a whisker over min..max. */
static void axis_chart(FILE *f, const compare *c, uint32_t k, int m, const vstat *vs)
{
    const caxis *a = &c->axes[k];
    double top = 0;
    int best = -1;
    for (uint32_t i = 0; i < a->n_values; i++) {
        if (!vs[i].n)
            continue;
        double mean = vs[i].sum / vs[i].n;
        if (vs[i].max > top)
            top = vs[i].max;
        if (best < 0 || (m_higher_better[m] ? mean > vs[best].sum / vs[best].n
                                            : mean < vs[best].sum / vs[best].n))
            best = (int)i;
    }
    if (top <= 0)
        top = 1;
    const int lw = 160, bw = 420, rh = 26, h = 20 + rh * (int)a->n_values;
    fprintf(f, "<svg id=\"chart-%u-%s\" width=\"%d\" height=\"%d\" role=\"img\">", k, m_id[m],
            lw + bw + 130, h);
    for (uint32_t i = 0; i < a->n_values; i++) {
        int y = 10 + rh * (int)i;
        char v[64];
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", lw - 8, y + 16);
        esc(f, a->values[i]);
        fputs("</text>", f);
        if (!vs[i].n) {
            fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"muted\">no figure</text>", lw + 4, y + 16);
            continue;
        }
        double mean = vs[i].sum / vs[i].n;
        int w = (int)(bw * mean / top + 0.5), x0 = lw + (int)(bw * vs[i].min / top + 0.5),
            x1 = lw + (int)(bw * vs[i].max / top + 0.5);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"%s\"/>", lw, y + 3,
                w > 1 ? w : 1, rh - 8, (int)i == best ? "bar best" : "bar");
        fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" class=\"range\"/>", x0, x1,
                y + rh / 2, y + rh / 2);
        fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>", lw + bw + 6, y + 16,
                fmt(v, sizeof v, m, mean));
    }
    fputs("</svg>\n", f);
}

static void axis_section(FILE *f, const compare *c, uint32_t k)
{
    const caxis *a = &c->axes[k];
    fputs("<section class=\"axis\"><h2>", f);
    esc(f, a->key);
    fprintf(f,
            "</h2><p class=\"muted\">%u values; each figure is the mean over every ok run with "
            "that value (all other axes and seeds); the line spans their minimum to maximum.</p>\n",
            a->n_values);
    vstat *vs = xcalloc(a->n_values ? a->n_values : 1, sizeof *vs, "axis statistics");
    for (int m = 0; m < M_N; m++) {
        axis_stats(c, k, m, vs);
        uint32_t any = 0;
        for (uint32_t i = 0; i < a->n_values; i++)
            any += vs[i].n;
        if (!any)
            continue;
        fprintf(f, "<h3>%s</h3><p class=\"muted\">%s</p>", m_name[m], m_note[m]);
        axis_chart(f, c, k, m, vs);
        fprintf(f, "<table><tr><th>");
        esc(f, a->key);
        fprintf(f, "</th><th>runs</th><th>mean %s</th><th>min</th><th>max</th></tr>\n", m_name[m]);
        for (uint32_t i = 0; i < a->n_values; i++) {
            char x[64], y[64], z[64];
            fputs("<tr><td>", f);
            esc(f, a->values[i]);
            fprintf(f, "</td><td>%u%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", vs[i].n,
                    vs[i].bad ? " (+ not ok)" : "",
                    fmt(x, sizeof x, m, vs[i].n ? vs[i].sum / vs[i].n : NAN),
                    fmt(y, sizeof y, m, vs[i].n ? vs[i].min : NAN),
                    fmt(z, sizeof z, m, vs[i].n ? vs[i].max : NAN));
        }
        fputs("</table>\n", f);
    }
    xfree(vs);
    fputs("</section>\n", f);
}

static const compare *rank_ctx;
static int cmp_rank(const void *pa, const void *pb)
{
    const config *a = &rank_ctx->cfg[*(const uint32_t *)pa],
                 *b = &rank_ctx->cfg[*(const uint32_t *)pb];
    /* ranked configurations by mean JCT first, then the rest in sweep order */
    bool ra = a->complete && a->cnt[M_JCT] == a->n, rb = b->complete && b->cnt[M_JCT] == b->n;
    if (ra != rb)
        return ra ? -1 : 1;
    if (ra && a->mean[M_JCT] != b->mean[M_JCT])
        return a->mean[M_JCT] < b->mean[M_JCT] ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

#define MAX_CONFIG_ROWS 500

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ddd}"
    "h3{font-size:15px;margin:14px 0 2px}.muted{color:#777}"
    "table{border-collapse:collapse;margin:6px 0 12px}td,th{padding:2px 10px;text-align:right;"
    "border-bottom:1px solid #eee}td:first-child,th:first-child{text-align:left}"
    "tr.best td{background:#e7f5e7;font-weight:600}"
    ".cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;"
    "padding:8px 12px}.card b{display:block;font-size:18px}"
    "#best{background:#f3faf3;border:1px solid #bcdcbc;border-radius:6px;padding:8px 14px}"
    "svg text{font-size:12px}.bar{fill:#8fb3d9}.bar.best{fill:#4c9a4c}"
    ".range{stroke:#333;stroke-width:1.5}pre{white-space:pre-wrap;margin:0}";

int compare_write_html(FILE *f, const compare *c)
{
    fputs("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>wirerate: ", f);
    esc(f, c->source ? c->source : c->path);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>wirerate %s comparison: ", css,
            c->kind ? c->kind : "");
    esc(f, c->source ? c->source : c->path);
    fputs("</h1>\n<div class=\"cards\">", f);
    fprintf(f, "<div class=\"card\"><b>%u</b>runs in the database%s</div>", c->n_runs,
            c->runs_total > c->n_runs ? " (sweep not finished)" : "");
    if (c->runs_total > c->n_runs)
        fprintf(f, "<div class=\"card\"><b>%u</b>runs not run yet</div>",
                c->runs_total - c->n_runs);
    fprintf(f, "<div class=\"card\"><b>%u</b>configurations</div>", c->n_configs);
    fprintf(f, "<div class=\"card\"><b>%u</b>ok</div>", c->n_ok);
    if (c->n_invalid)
        fprintf(f, "<div class=\"card\"><b>%u</b>invalid</div>", c->n_invalid);
    if (c->n_failed)
        fprintf(f, "<div class=\"card\"><b>%u</b>failed</div>", c->n_failed);
    fputs("</div>\n", f);

    fputs("<section id=\"best\"><h2>Best configuration</h2>\n", f);
    bool any = false;
    for (int m = 0; m < M_N; m++) {
        if (c->best[m] < 0)
            continue;
        any = true;
        const config *g = &c->cfg[c->best[m]];
        char *t = config_text(c, g), v[64];
        fprintf(f, "<p id=\"best-%s\"><b>%s %s</b>: ", m_id[m],
                m_higher_better[m] ? "highest" : "lowest", m_name[m]);
        esc(f, t);
        fprintf(f, " — %s (mean of %u run%s)</p>\n", fmt(v, sizeof v, m, g->mean[m]), g->cnt[m],
                g->cnt[m] == 1 ? "" : "s");
        xfree(t);
    }
    if (!any)
        fputs("<p>No configuration can be ranked: none has every run ok with a JCT, busbw or "
              "p99 FCT.</p>\n",
              f);
    else
        fputs("<p class=\"muted\">A configuration is ranked only when all its runs are ok; means "
              "are over its seeds.</p>\n",
              f);
    fputs("</section>\n", f);

    for (uint32_t k = 0; k < c->n_axes; k++)
        axis_section(f, c, k);

    fputs("<section><h2>Every configuration</h2>\n<table id=\"configs\"><tr>", f);
    for (uint32_t k = 0; k < c->n_axes; k++) {
        fputs("<th>", f);
        esc(f, c->axes[k].key);
        fputs("</th>", f);
    }
    fputs("<th>runs ok</th><th>mean JCT</th><th>mean busbw</th><th>mean p99 FCT</th></tr>\n", f);
    uint32_t *rank = xcalloc(c->n_configs ? c->n_configs : 1, sizeof *rank, "ranking");
    for (uint32_t g = 0; g < c->n_configs; g++)
        rank[g] = g;
    rank_ctx = c;
    qsort(rank, c->n_configs, sizeof *rank, cmp_rank);
    rank_ctx = NULL;
    for (uint32_t i = 0; i < c->n_configs && i < MAX_CONFIG_ROWS; i++) {
        const config *g = &c->cfg[rank[i]];
        const crun *r = &c->runs[c->order[g->first]];
        fprintf(f, "<tr%s>", (int)rank[i] == c->best[M_JCT] ? " class=\"best\"" : "");
        for (uint32_t k = 0; k < c->n_axes; k++) {
            fputs("<td>", f);
            esc(f, c->axes[k].values[r->vi[k]]);
            fputs("</td>", f);
        }
        char a[64], b[64], d[64];
        fprintf(f, "<td>%u / %u</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", g->n_ok, g->n,
                fmt(a, sizeof a, M_JCT, g->mean[M_JCT]),
                fmt(b, sizeof b, M_BUSBW, g->mean[M_BUSBW]),
                fmt(d, sizeof d, M_P99, g->mean[M_P99]));
    }
    fputs("</table>\n", f);
    if (c->n_configs > MAX_CONFIG_ROWS)
        fprintf(f, "<p class=\"muted\">%u more configurations: query the database.</p>\n",
                c->n_configs - MAX_CONFIG_ROWS);
    xfree(rank);
    fputs("</section>\n", f);

    if (c->n_invalid || c->n_failed) {
        fputs("<section><h2>Runs that are not ok</h2>\n<table id=\"problems\"><tr><th>run</th>"
              "<th>status</th><th style=\"text-align:left\">error</th></tr>\n",
              f);
        for (uint32_t i = 0; i < c->n_runs; i++) {
            const crun *r = &c->runs[i];
            if (r->ok)
                continue;
            fprintf(f, "<tr><td>%u</td><td>", r->id);
            esc(f, r->status);
            fputs("</td><td style=\"text-align:left\"><pre>", f);
            esc(f, r->error);
            fputs("</pre></td></tr>\n", f);
        }
        fputs("</table></section>\n", f);
    }
    fputs("<p class=\"muted\">Written by wirerate " WR_VERSION " from ", f);
    esc(f, c->path);
    fputs(". Query it with the sqlite3 shell or pandas (docs/sweep.md).</p></body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
