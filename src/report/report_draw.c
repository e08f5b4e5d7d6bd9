/*
 * report_draw.c — the self-contained HTML report (report.h) from what report_read.c loaded:
 * inline CSS and SVG, no script, no network. Every chart has a fixed pixel budget: heat maps
 * draw HEAT_COLS columns and at most HEAT_ROWS rows (more ports are aggregated by switch or
 * host range, and the title says so), lines at most MAX_POINTS points, so a 1,024-host run
 * gives a page a browser draws at once.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "report_int.h"
#include "summary.h"

#define HEAT_COLS 150
#define HEAT_ROWS 40
#define HOT_PORTS 6
#define PFC_PORTS 10
#define MAX_POINTS 1500

static double finite_or0(double v)
{
    return isfinite(v) && v >= 0 ? v : 0;
}

/* A double time back to ps without undefined behaviour: (double)UINT64_MAX rounds up to 2^64,
 * which no uint64 holds. */
static sim_time ps_of(double v)
{
    return !(v > 0) ? 0 : v >= 18446744073709551616.0 ? UINT64_MAX : (sim_time)v;
}

/* ---- HTML and SVG ------------------------------------------------------------------------- */

/* snprintf for labels: a label cut short is fine, so no truncation warning is wanted. */
static void text_printf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void text_printf(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static void html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* html_esc of at most `max` bytes of s, cut on a UTF-8 character boundary, "…" when cut: a
 * label must fit the margin it is drawn in (the full text goes in a <title>). */
static void html_esc_max(FILE *f, const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n <= max) {
        html_esc(f, s);
        return;
    }
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    char buf[128];
    if (max >= sizeof buf)
        max = sizeof buf - 1;
    memcpy(buf, s, max);
    buf[max] = '\0';
    html_esc(f, buf);
    fputs("…", f);
}

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                      "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/* Time axis unit for a span in ps. */
typedef struct tunit {
    double div;
    const char *name;
} tunit;

static tunit time_unit(double span_ps)
{
    if (span_ps >= 1e12)
        return (tunit){1e12, "s"};
    if (span_ps >= 1e9)
        return (tunit){1e9, "ms"};
    if (span_ps >= 1e6)
        return (tunit){1e6, "µs"};
    return (tunit){1e3, "ns"};
}

typedef struct chart {
    FILE *f;
    double W, H, ml, mr, mt, mb;
    double x0, x1, y0, y1;
} chart;

static double cx(const chart *c, double x)
{
    double w = c->W - c->ml - c->mr;
    return c->ml + (c->x1 > c->x0 ? (x - c->x0) / (c->x1 - c->x0) : 0) * w;
}

static double cy(const chart *c, double y)
{
    double h = c->H - c->mt - c->mb;
    return c->mt + h - (c->y1 > c->y0 ? (y - c->y0) / (c->y1 - c->y0) : 0) * h;
}

static double nice_step(double span, int ticks)
{
    if (span <= 0)
        return 1;
    double raw = span / ticks, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void fmt_num(char *b, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(b, n, "%gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(b, n, "%gM", v / 1e6);
    else if (a >= 1e3)
        snprintf(b, n, "%gk", v / 1e3);
    else
        snprintf(b, n, "%g", v);
}

static void chart_open(FILE *f, chart *c, const char *id, double W, double H, const char *title)
{
    c->f = f;
    c->W = W;
    c->H = H;
    if (c->ml == 0)
        c->ml = 64;
    if (c->mr == 0)
        c->mr = 16;
    if (c->mt == 0)
        c->mt = 30;
    if (c->mb == 0)
        c->mb = 40;
    fprintf(f, "<figure><svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
               "viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\">",
            id, W, H, W, H);
    fputs("<text class=\"title\" x=\"8\" y=\"18\">", f);
    html_esc(f, title);
    fputs("</text>", f);
}

/* Axes with ticks; x values are divided by xdiv for labels. */
static void chart_axes(chart *c, double xdiv, const char *xlabel, const char *ylabel)
{
    FILE *f = c->f;
    bool yticks = ylabel && *ylabel;
    double xs = nice_step((c->x1 - c->x0) / xdiv, 6) * xdiv;
    double ys = nice_step(c->y1 - c->y0, 4);
    fputs("<g class=\"grid\">", f);
    for (double y = ceil(c->y0 / ys) * ys; yticks && y <= c->y1 + ys * 1e-9; y += ys) {
        char b[32];
        fmt_num(b, sizeof b, y);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", c->ml,
                c->W - c->mr, cy(c, y), cy(c, y));
        fprintf(f, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>", c->ml - 4, cy(c, y) + 3,
                b);
    }
    for (double x = ceil(c->x0 / xs) * xs; x <= c->x1 + xs * 1e-9; x += xs) {
        char b[32];
        fmt_num(b, sizeof b, x / xdiv);
        fprintf(f, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>", cx(c, x),
                c->H - c->mb + 14, b);
        fprintf(f, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                cx(c, x), cx(c, x), c->H - c->mb, c->H - c->mb + 4);
    }
    fputs("</g>", f);
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", c->ml,
            c->W - c->mr, c->H - c->mb, c->H - c->mb);
    fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", c->ml,
            c->ml, c->mt, c->H - c->mb);
    fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", (c->ml + c->W - c->mr) / 2,
            c->H - 6);
    html_esc(f, xlabel);
    fputs("</text>", f);
    fprintf(f, "<text class=\"yl\" transform=\"translate(12 %.1f) rotate(-90)\">",
            (c->mt + c->H - c->mb) / 2);
    html_esc(f, ylabel);
    fputs("</text>", f);
}

static void chart_close(chart *c, const char *caption)
{
    fputs("</svg>", c->f);
    if (caption) {
        fputs("<figcaption>", c->f);
        html_esc(c->f, caption);
        fputs("</figcaption>", c->f);
    }
    fputs("</figure>\n", c->f);
}

static void legend(chart *c, int i, const char *name)
{
    double x = c->ml + 8 + (i % 3) * ((c->W - c->ml - c->mr) / 3);
    double y = 34 + (i / 3) * 14; /* between the title and the plot (mt leaves the room) */
    fprintf(c->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"3\" fill=\"%s\"/>", x, y - 4,
            palette[i % 8]);
    fprintf(c->f, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", x + 14, y);
    html_esc(c->f, name);
    fputs("</text>", c->f);
}

static void missing(FILE *f, const char *id, const char *title, const char *why)
{
    fprintf(f, "<div class=\"missing\" id=\"%s\"><b>", id);
    html_esc(f, title);
    fputs("</b>: ", f);
    html_esc(f, why);
    fputs("</div>\n", f);
}

/* JCT per job, split into iterations when present. */
static void chart_jct(FILE *f, const report *r)
{
    const run_stats *st = &r->st;
    if (!st->n_jobs) {
        missing(f, "chart-jct", "Job completion time", "no jobs in summary.json");
        return;
    }
    double mx = 0;
    for (uint32_t j = 0; j < st->n_jobs; j++) {
        double v = st->jobs[j].completed ? (double)st->jobs[j].jct_ps : (double)st->end_ps;
        if (v > mx)
            mx = v;
    }
    tunit u = time_unit(mx);
    chart c = {0};
    c.ml = 140;
    c.mt = 30;
    c.mb = 40;
    double H = 70 + 26.0 * st->n_jobs + 4;
    chart_open(f, &c, "chart-jct", 880, H, "Job completion time (per iteration where known)");
    c.x0 = 0;
    c.x1 = mx > 0 ? mx * 1.05 : 1;
    c.y0 = 0;
    c.y1 = 1;
    chart_axes(&c, u.div, u.name, "");
    double bh = 18, plot_h = H - c.mt - c.mb;
    for (uint32_t j = 0; j < st->n_jobs; j++) {
        const job_result *jr = &st->jobs[j];
        double y = c.mt + (plot_h - st->n_jobs * 26.0) / 2 + j * 26.0 + 4;
        fprintf(f, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\"><title>", c.ml - 6, y + 13);
        html_esc(f, jr->name);
        fputs("</title>", f);
        html_esc_max(f, jr->name, 22);
        fputs("</text>", f);
        char jt[32];
        if (jr->n_iterations && jr->completed) {
            double x = 0;
            for (uint32_t k = 0; k < jr->n_iterations; k++) {
                double w = (double)jr->iterations[k].time_ps;
                fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                           "height=\"%.0f\" fill=\"%s\"><title>iteration %u: %s</title></rect>",
                        cx(&c, x), y, cx(&c, x + w) - cx(&c, x), bh, palette[k % 2 ? 0 : 7],
                        k + 1, summary_fmt_time(jt, sizeof jt, jr->iterations[k].time_ps));
                x += w;
            }
        } else {
            double w = jr->completed ? (double)jr->jct_ps : (double)st->end_ps - jr->start_ps;
            fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" "
                       "fill=\"%s\"/>",
                    cx(&c, 0), y, cx(&c, w) - cx(&c, 0), bh,
                    jr->completed ? palette[0] : "#bbb");
        }
        double end = jr->completed ? (double)jr->jct_ps : (double)st->end_ps;
        const char *lbl = jr->completed ? summary_fmt_time(jt, sizeof jt, jr->jct_ps) : "not done";
        double lx = cx(&c, end) + 4;
        bool inside = lx + 7.0 * strlen(lbl) > c.W - 2; /* would run off the chart */
        fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\"%s>%s</text>",
                inside ? cx(&c, end) - 4 : lx, y + 13,
                inside ? " text-anchor=\"end\" fill=\"#fff\"" : "", lbl);
    }
    chart_close(&c, "Bars are job completion times (start to last byte); a split bar shows "
                    "the iterations.");
}

/* Tier pair of a port name: "leaf0->spine3" → "leaf→spine". */
static void tier_pair(const char *name, char *out, size_t len)
{
    char a[24] = "", b[24] = "";
    const char *arrow = strstr(name, "->");
    size_t i = 0, k = 0;
    for (const char *s = name; s < (arrow ? arrow : name + strlen(name)) && i + 1 < sizeof a;
         s++)
        if (!(*s >= '0' && *s <= '9'))
            a[i++] = *s;
    a[i] = '\0';
    if (arrow)
        for (const char *s = arrow + 2; *s && *s != '#' && k + 1 < sizeof b; s++)
            if (!(*s >= '0' && *s <= '9'))
                b[k++] = *s;
    b[k] = '\0';
    snprintf(out, len, "%s→%s", a, b);
}

/* The switch or host a port belongs to: "leaf3->spine1" → "leaf3", "leaf0:p33->x" → "leaf0". */
static void owner_of(const char *name, char *out, size_t len)
{
    size_t n = strcspn(name, ":-");
    if (n + 1 > len)
        n = len - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

/* Natural order of port owners ("leaf2" before "leaf10"), then by series index. */
static const report *sort_rep;
static int cmp_owner(const void *a, const void *b)
{
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    char x[48], y[48];
    owner_of(sort_rep->ser[ia].name, x, sizeof x);
    owner_of(sort_rep->ser[ib].name, y, sizeof y);
    size_t px = strcspn(x, "0123456789"), py = strcspn(y, "0123456789");
    int c = px != py ? (px < py ? -1 : 1) : strncmp(x, y, px);
    if (!c) {
        unsigned long nx = strtoul(x + px, NULL, 10), ny = strtoul(y + py, NULL, 10);
        c = nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
    }
    return c ? c : ia < ib ? -1 : ia > ib;
}

static void heat_color(double u, char *out, size_t len)
{
    static const double stops[][4] = {{0.0, 240, 244, 248},  {0.25, 158, 202, 225},
                                      {0.5, 66, 146, 198},   {0.75, 8, 81, 156},
                                      {0.9, 253, 141, 60},   {1.0, 215, 48, 31}};
    if (!(u >= 0)) /* NaN too */
        u = 0;
    if (u > 1)
        u = 1;
    int k = 0;
    while (k < 4 && u > stops[k + 1][0])
        k++;
    double t = (u - stops[k][0]) / (stops[k + 1][0] - stops[k][0]);
    snprintf(out, len, "rgb(%d,%d,%d)", (int)(stops[k][1] + t * (stops[k + 1][1] - stops[k][1])),
             (int)(stops[k][2] + t * (stops[k + 1][2] - stops[k][2])),
             (int)(stops[k][3] + t * (stops[k + 1][3] - stops[k][3])));
}

static int cmp_util_desc(const void *a, const void *b)
{
    const series *x = &sort_rep->ser[*(const uint32_t *)a], *y = &sort_rep->ser[*(const uint32_t *)b];
    if (x->mean_util != y->mean_util)
        return x->mean_util > y->mean_util ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void chart_heat(FILE *f, const report *r)
{
    if (!r->have_ts) {
        missing(f, "chart-heat", "Link utilization heat map",
                "no timeseries.csv (run with output.formats csv and telemetry.sample_interval)");
        return;
    }
    /* groups in order of first appearance */
    char groups[16][48];
    int ng = 0;
    for (uint32_t s = 0; s < r->n_series && ng < 16; s++) {
        char g[48];
        tier_pair(r->ser[s].name, g, sizeof g);
        bool seen = false;
        for (int i = 0; i < ng && !seen; i++)
            seen = strcmp(groups[i], g) == 0;
        if (!seen)
            snprintf(groups[ng++], sizeof groups[0], "%s", g);
    }
    uint32_t *idx = xmalloc(r->n_series * sizeof(uint32_t), "heat rows");
    tunit u = time_unit((double)r->t[r->n_show - 1]);
    uint32_t cols = HEAT_COLS;
    for (int g = 0; g < ng; g++) {
        uint32_t n = 0, total = 0;
        for (uint32_t s = 0; s < r->n_series; s++) {
            char gg[48];
            tier_pair(r->ser[s].name, gg, sizeof gg);
            if (strcmp(gg, groups[g]) == 0)
                idx[n++] = s;
        }
        total = n;
        /* Up to HEAT_ROWS ports: one row each, busiest first. More: rows aggregate the ports
         * of one switch (or host), or of a run of consecutive switches when even those are too
         * many, in the order the topology lists them; a cell is their mean utilization. */
        uint32_t n_rows = n, per = 1;
        uint32_t *row_of = xmalloc((n ? n : 1) * sizeof(uint32_t), "heat row map");
        char (*label)[64] = NULL;
        if (n <= HEAT_ROWS) {
            sort_rep = r;
            qsort(idx, n, sizeof idx[0], cmp_util_desc);
            for (uint32_t k = 0; k < n; k++)
                row_of[k] = k;
        } else {
            sort_rep = r;
            qsort(idx, n, sizeof idx[0], cmp_owner);
            uint32_t n_own = 0;
            char prev[48] = "";
            for (uint32_t k = 0; k < n; k++) { /* owners in order of appearance */
                char o[48];
                owner_of(r->ser[idx[k]].name, o, sizeof o);
                if (k == 0 || strcmp(o, prev) != 0)
                    n_own++;
                snprintf(prev, sizeof prev, "%s", o);
                row_of[k] = n_own - 1;
            }
            per = (n_own + HEAT_ROWS - 1) / HEAT_ROWS;
            n_rows = (n_own + per - 1) / per;
            for (uint32_t k = 0; k < n; k++)
                row_of[k] /= per;
        }
        label = xcalloc(n_rows ? n_rows : 1, sizeof *label, "heat labels");
        uint32_t *members = xcalloc(n_rows ? n_rows : 1, sizeof(uint32_t), "heat members");
        double *cell = xcalloc((size_t)(n_rows ? n_rows : 1) * cols, sizeof(double), "heat cells");
        for (uint32_t k = 0; k < n; k++) {
            uint32_t row = row_of[k];
            const series *se = &r->ser[idx[k]];
            if (n <= HEAT_ROWS) {
                snprintf(label[row], sizeof label[0], "%s", se->name);
            } else {
                char o[48];
                owner_of(se->name, o, sizeof o);
                if (!members[row])
                    snprintf(label[row], sizeof label[0], "%s", o);
                else if (per > 1) {
                    char first[48];
                    snprintf(first, sizeof first, "%s", label[row]);
                    char *dots = strstr(first, "…");
                    if (dots)
                        *dots = '\0';
                    text_printf(label[row], sizeof label[0], "%s…%s", first, o);
                }
            }
            members[row]++;
            /* column b spans time [b, b+1)·T/cols: mean of the samples ending in it, else the
             * sample that covers it (samples may be longer than a column) */
            double x1 = (double)r->t[r->n_show - 1];
            uint32_t j = 0;
            for (uint32_t b = 0; b < cols; b++) {
                double lo = x1 * b / cols, hi = x1 * (b + 1) / cols;
                double sum = 0;
                uint32_t cnt = 0;
                while (j < r->n_show && (double)r->t[j] <= lo)
                    j++;
                for (uint32_t m = j; m < r->n_show && (double)r->t[m] <= hi; m++) {
                    sum += se->util[m];
                    cnt++;
                }
                cell[(size_t)row * cols + b] += cnt ? sum / cnt : j < r->n_show ? se->util[j] : 0;
            }
        }
        double rh = n_rows > 24 ? 9 : 14;
        chart c = {0};
        c.ml = 170;
        c.mt = 30;
        c.mb = 34;
        char id[64], title[200];
        snprintf(id, sizeof id, "chart-heat-%d", g);
        if (n > HEAT_ROWS)
            text_printf(title, sizeof title,
                        per > 1 ? "Link utilization, %s: %u ports in %u rows (each row: the mean "
                                  "of the ports of %u consecutive nodes)"
                                : "Link utilization, %s: %u ports in %u rows (each row: the mean "
                                  "of one node's ports)",
                        groups[g], total, n_rows, per);
        else
            text_printf(title, sizeof title, "Link utilization, %s ports (%u)", groups[g], n);
        chart_open(f, &c, id, 880, c.mt + c.mb + rh * n_rows + 4, title);
        c.x0 = 0;
        c.x1 = (double)r->t[r->n_show - 1];
        c.y0 = 0;
        c.y1 = 1;
        double cw = (c.W - c.ml - c.mr) / cols;
        for (uint32_t k = 0; k < n_rows; k++) {
            double y = c.mt + k * rh;
            fprintf(f, "<text class=\"hl\" x=\"%.1f\" y=\"%.1f\">", c.ml - 4, y + rh - 2);
            html_esc_max(f, label[k], 30);
            if (n > HEAT_ROWS)
                fprintf(f, " (%u)", members[k]);
            fputs("</text>", f);
            for (uint32_t b = 0; b < cols; b++) {
                double v = members[k] ? cell[(size_t)k * cols + b] / members[k] : 0;
                if (v < 0.005)
                    continue;
                char col_[40];
                heat_color(v, col_, sizeof col_);
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                           "fill=\"%s\"/>",
                        c.ml + b * cw, y, cw + 0.3, rh - 1, col_);
            }
        }
        xfree(row_of);
        xfree(label);
        xfree(members);
        xfree(cell);
        /* time ticks */
        double xs = nice_step(c.x1 / u.div, 6) * u.div;
        for (double x = 0; x <= c.x1 + xs * 1e-9 && xs > 0; x += xs) {
            char b[32];
            fmt_num(b, sizeof b, x / u.div);
            fprintf(f, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>", cx(&c, x),
                    c.H - c.mb + 14, b);
        }
        fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%s</text>", (c.ml + c.W) / 2,
                c.H - 6, u.name);
        chart_close(&c, NULL);
    }
    /* legend */
    fputs("<div class=\"legend\">utilization <svg id=\"heat-legend\" width=\"220\" height=\"14\" "
          "xmlns=\"http://www.w3.org/2000/svg\">",
          f);
    for (int i = 0; i < 20; i++) {
        char col_[40];
        heat_color(i / 19.0, col_, sizeof col_);
        fprintf(f, "<rect x=\"%d\" y=\"0\" width=\"11\" height=\"14\" fill=\"%s\"/>", i * 11, col_);
    }
    fputs("</svg> 0 → 100 % (per sample interval; blank = idle)</div>\n", f);
    xfree(idx);
}

static int cmp_maxq_desc(const void *a, const void *b)
{
    const series *x = &sort_rep->ser[*(const uint32_t *)a], *y = &sort_rep->ser[*(const uint32_t *)b];
    if (x->max_q != y->max_q)
        return x->max_q > y->max_q ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_paused_desc(const void *a, const void *b)
{
    const series *x = &sort_rep->ser[*(const uint32_t *)a], *y = &sort_rep->ser[*(const uint32_t *)b];
    if (x->paused_n != y->paused_n)
        return x->paused_n > y->paused_n ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void chart_queue(FILE *f, const report *r)
{
    if (!r->have_ts) {
        missing(f, "chart-queue", "Queue depth", "no timeseries.csv");
        missing(f, "chart-pfc", "PFC pauses", "no timeseries.csv");
        return;
    }
    uint32_t *idx = xmalloc(r->n_series * sizeof(uint32_t), "queue rows");
    for (uint32_t s = 0; s < r->n_series; s++)
        idx[s] = s;
    sort_rep = r;
    qsort(idx, r->n_series, sizeof idx[0], cmp_maxq_desc);
    uint32_t n = 0;
    while (n < HOT_PORTS && n < r->n_series && r->ser[idx[n]].max_q > 0)
        n++;
    tunit u = time_unit((double)r->t[r->n_show - 1]);
    if (!n) {
        missing(f, "chart-queue", "Queue depth", "no port ever queued at a sample instant");
    } else {
        chart c = {0};
        c.mt = 30 + 14 * ((n + 2) / 3);
        chart_open(f, &c, "chart-queue", 880, 300 + c.mt - 30, "Queue depth, hottest ports");
        c.x0 = 0;
        c.x1 = (double)r->t[r->n_show - 1];
        c.y0 = 0;
        c.y1 = r->ser[idx[0]].max_q * 1.05 / 1e3;
        chart_axes(&c, u.div, u.name, "queue (KB)");
        uint32_t step = r->n_show > MAX_POINTS ? r->n_show / MAX_POINTS + 1 : 1;
        for (uint32_t k = 0; k < n; k++) {
            const series *se = &r->ser[idx[k]];
            fprintf(f, "<polyline class=\"line\" stroke=\"%s\" points=\"", palette[k]);
            for (uint32_t t = 0; t < r->n_show; t += step) {
                double v = 0; /* max over the step keeps peaks */
                for (uint32_t j = t; j < t + step && j < r->n_show; j++)
                    v = se->q[j] > v ? se->q[j] : v;
                fprintf(f, "%.1f,%.1f ", cx(&c, (double)r->t[t]), cy(&c, v / 1e3));
            }
            fputs("\"/>", f);
            legend(&c, (int)k, se->name);
        }
        chart_close(&c, "Egress queue bytes (all classes) at each sample instant.");
    }
    /* PFC: ports paused at some sample, most paused first */
    qsort(idx, r->n_series, sizeof idx[0], cmp_paused_desc);
    n = 0;
    while (n < PFC_PORTS && n < r->n_series && r->ser[idx[n]].paused_n > 0)
        n++;
    if (!n) {
        missing(f, "chart-pfc", "PFC pauses", "no port was paused at a sample instant");
    } else {
        chart c = {0};
        c.ml = 130;
        c.mt = 30;
        c.mb = 40;
        double rh = 16;
        chart_open(f, &c, "chart-pfc", 880, c.mt + c.mb + rh * n + 4,
                   "PFC paused intervals (egress ports held by their peer)");
        c.x0 = 0;
        c.x1 = (double)r->t[r->n_show - 1];
        c.y0 = 0;
        c.y1 = 1;
        double dt = r->n_show > 1 ? (double)(r->t[1] - r->t[0]) : (double)r->t[0];
        for (uint32_t k = 0; k < n; k++) {
            const series *se = &r->ser[idx[k]];
            double y = c.mt + k * rh;
            fprintf(f, "<text class=\"hl\" x=\"%.1f\" y=\"%.1f\">", c.ml - 4, y + rh - 4);
            html_esc_max(f, se->name, 24);
            fputs("</text>", f);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                       "fill=\"#f3f3f3\"/>",
                    c.ml, y, c.W - c.ml - c.mr, rh - 3);
            for (uint32_t t = 0; t < r->n_show;) {
                if (!se->paused[t]) {
                    t++;
                    continue;
                }
                uint32_t t1 = t;
                while (t1 < r->n_show && se->paused[t1])
                    t1++;
                double xa = (double)r->t[t] - dt, xb = (double)r->t[t1 - 1];
                fprintf(f, "<rect class=\"pause\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" "
                           "height=\"%.1f\"/>",
                        cx(&c, xa < 0 ? 0 : xa), y, cx(&c, xb) - cx(&c, xa < 0 ? 0 : xa) + 0.5,
                        rh - 3);
                t = t1;
            }
        }
        double xs = nice_step(c.x1 / u.div, 6) * u.div;
        for (double x = 0; x <= c.x1 + xs * 1e-9 && xs > 0; x += xs) {
            char b[32];
            fmt_num(b, sizeof b, x / u.div);
            fprintf(f, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>", cx(&c, x),
                    c.H - c.mb + 14, b);
        }
        fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%s</text>", (c.ml + c.W) / 2,
                c.H - 6, u.name);
        chart_close(&c, "Red: the port was paused (some class) at the sample instant.");
    }
    xfree(idx);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void chart_fct(FILE *f, const report *r)
{
    if (!r->have_flows) {
        missing(f, "chart-fct", "FCT CDF", "no flows.csv");
        return;
    }
    uint64_t n = 0;
    uint64_t *v = xmalloc((r->st.n_flows ? r->st.n_flows : 1) * sizeof(uint64_t), "fct");
    for (uint64_t i = 0; i < r->st.n_flows; i++)
        if (r->st.flows[i].end_ps)
            v[n++] = r->st.flows[i].end_ps - r->st.flows[i].start_ps;
    if (!n) {
        missing(f, "chart-fct", "FCT CDF",
                r->st.n_flows ? "no flow completed"
                              : "no traffic-job flows (collective and training transfers are "
                                "summarised in the jobs table)");
        xfree(v);
        return;
    }
    qsort(v, n, sizeof v[0], cmp_u64);
    tunit u = time_unit((double)v[n - 1]);
    chart c = {0};
    char title[96];
    snprintf(title, sizeof title, "Flow completion time CDF (%" PRIu64 " of %" PRIu64
                                  " flows completed)",
             n, r->st.n_flows);
    chart_open(f, &c, "chart-fct", 880, 300, title);
    c.x0 = 0;
    c.x1 = (double)v[n - 1] * 1.05;
    c.y0 = 0;
    c.y1 = 1;
    chart_axes(&c, u.div, u.name, "fraction of flows");
    uint64_t step = n > MAX_POINTS ? n / MAX_POINTS + 1 : 1;
    fprintf(f, "<polyline class=\"line\" stroke=\"%s\" points=\"%.1f,%.1f ", palette[0],
            cx(&c, (double)v[0]), cy(&c, 0));
    for (uint64_t i = 0; i < n; i += step)
        fprintf(f, "%.1f,%.1f %.1f,%.1f ", cx(&c, (double)v[i]), cy(&c, (double)i / n),
                cx(&c, (double)v[i]), cy(&c, (double)(i + 1) / n));
    fprintf(f, "%.1f,%.1f\"/>", cx(&c, (double)v[n - 1]), cy(&c, 1));
    const double qs[2] = {0.5, 0.99};
    for (int k = 0; k < 2; k++) {
        uint64_t rank = (uint64_t)ceil(qs[k] * n);
        uint64_t xv = v[(rank ? rank : 1) - 1]; /* kept as an integer: no float→int cast */
        double x = (double)xv;
        char b[32];
        fprintf(f, "<line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                cx(&c, x), cx(&c, x), cy(&c, 0), cy(&c, 1));
        /* right of the marker, or left of it when the label would leave the chart */
        bool left = cx(&c, x) + 110 > c.W - c.mr;
        fprintf(f, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\"%s>p%g %s</text>",
                cx(&c, x) + (left ? -3 : 3), cy(&c, qs[k]) + 12,
                left ? " text-anchor=\"end\"" : "", qs[k] * 100,
                summary_fmt_time(b, sizeof b, xv));
    }
    chart_close(&c, "Completed flows only; start to the last byte at the receiver.");
    xfree(v);
}

static void chart_dcqcn(FILE *f, const report *r)
{
    if (!r->have_rates || !r->n_rflows) {
        missing(f, "chart-dcqcn", "DCQCN pacing rates",
                "no dcqcn_rates.csv (needs output.formats csv, telemetry.sample_interval and "
                "a DCQCN transport)");
        return;
    }
    double mx = 0;
    for (uint32_t k = 0; k < r->n_rflows; k++)
        for (int b = 0; b < RATE_BUCKETS; b++)
            if (r->rflows[k].has[b] && r->rflows[k].hi[b] > mx)
                mx = r->rflows[k].hi[b];
    double span = (double)(r->rt1 - r->rt0) + 1;
    tunit u = time_unit((double)r->rt1);
    uint32_t n_leg = r->n_rflows;
    chart c = {0};
    c.mt = 30 + 14 * ((n_leg + 2) / 3);
    char title[128];
    bool by_fct = r->rflows[0].flow_rec != UINT64_MAX;
    text_printf(title, sizeof title, "DCQCN pacing rate: %s (%u of %u flows)",
                by_fct ? "the slowest flows" : "the flows with the lowest mean rate",
                r->n_rflows, r->n_qps);
    chart_open(f, &c, "chart-dcqcn", 880, 300 + c.mt - 30, title);
    c.x0 = (double)r->rt0;
    c.x1 = (double)r->rt1;
    c.y0 = 0;
    c.y1 = mx > 0 ? mx * 1.05 / 1e9 : 1;
    chart_axes(&c, u.div, u.name, "rate (Gbps)");
    /* each bucket contributes its min and max: <= 2 × RATE_BUCKETS points per series */
    for (uint32_t k = 0; k < r->n_rflows; k++) {
        const rate_series *rs = &r->rflows[k];
        fprintf(f, "<polyline class=\"line\" stroke=\"%s\" points=\"", palette[k % 8]);
        for (int b = 0; b < RATE_BUCKETS; b++) {
            if (!rs->has[b])
                continue;
            double x = (double)r->rt0 + span * (b + 0.5) / RATE_BUCKETS;
            fprintf(f, "%.1f,%.1f ", cx(&c, x), cy(&c, rs->lo[b] / 1e9));
            if (rs->hi[b] != rs->lo[b])
                fprintf(f, "%.1f,%.1f ", cx(&c, x), cy(&c, rs->hi[b] / 1e9));
        }
        fputs("\"/>", f);
        char name[96], b[32], m[32];
        text_printf(m, sizeof m, "%.3g Gbps", rs->mean_bps / 1e9);
        if (rs->flow_rec != UINT64_MAX) {
            const flow_record *fr = &r->st.flows[rs->flow_rec];
            text_printf(name, sizeof name, "flow %u h%u→h%u (%s)", rs->flow, fr->src_host,
                        fr->dst_host,
                        fr->end_ps ? summary_fmt_time(b, sizeof b, fr->end_ps - fr->start_ps)
                                   : "not done");
        } else {
            text_printf(name, sizeof name, "flow %u (mean %s)", rs->flow, m);
        }
        legend(&c, (int)k, name);
    }
    chart_close(&c, "Each line is decimated to the minimum and maximum rate per 1/1000 of the "
                    "time axis, so every dip and peak stays visible; a flow is drawn while it is "
                    "active.");
}

/* Faults (summary.json "faults", "fault_timeline") and the goodput what-if, when present: a
 * table of what each fault did and the timeline of fault events, in simulated time. */
static void faults_section(FILE *f, const report *r)
{
    char a[32];
    const jsonr_val *fj = jsonr_get(r->root, "faults");
    if (fj && fj->type == JR_ARR && fj->child) {
        fputs("<h2>Faults</h2>\n<table><tr><th>kind</th><th>target</th><th>at</th><th>what it "
              "did</th></tr>\n",
              f);
        for (const jsonr_val *x = fj->child; x; x = x->next) {
            fputs("<tr><td>", f);
            html_esc(f, jsonr_str(x, "kind", "?"));
            fputs("</td><td>", f);
            html_esc(f, jsonr_str(x, "target", "?"));
            fprintf(f, "</td><td>%s</td><td>",
                    summary_fmt_time(a, sizeof a, jsonr_u64(x, "at_ps", 0)));
            const jsonr_val *fired = jsonr_get(x, "fired");
            if (fired && fired->type == JR_BOOL && !fired->b)
                fputs("did not fire (the jobs ended first)", f);
            else
                html_esc(f, jsonr_str(x, "reroute", ""));
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
        const jsonr_val *tl = jsonr_get(r->root, "fault_timeline");
        if (tl && tl->type == JR_ARR && tl->child) {
            fputs("<h3>Fault timeline</h3>\n<table><tr><th>time</th><th>event</th></tr>\n", f);
            for (const jsonr_val *x = tl->child; x; x = x->next) {
                fprintf(f, "<tr><td>%s</td><td>",
                        summary_fmt_time(a, sizeof a, jsonr_u64(x, "t_ps", 0)));
                html_esc(f, jsonr_str(x, "what", ""));
                fputs("</td></tr>\n", f);
            }
            fputs("</table>\n", f);
        }
    }
    const jsonr_val *g = jsonr_get(r->root, "goodput");
    if (g && g->type == JR_OBJ) {
        fputs("<h2>Goodput of a long run</h2>\n<div class=\"note\">", f);
        const jsonr_val *ok = jsonr_get(g, "ok");
        if (ok && ok->type == JR_BOOL && !ok->b) {
            fputs("Not estimated: ", f);
            html_esc(f, jsonr_str(g, "why", ""));
        } else {
            fputs("Job ", f);
            html_esc(f, jsonr_str(g, "job", "?"));
            fprintf(f,
                    ": %.4g interruptions/h; iteration %.4g s. Checkpoint every %" PRIu64
                    " iterations: wall-clock p50 %.4g h, p90 %.4g h, goodput p50 %.1f %%, p90 "
                    "%.1f %%. Best interval %" PRIu64 ": goodput p50 %.1f %% (Young %.1f, Daly "
                    "%.1f iterations).",
                    jsonr_num(g, "interruptions_per_hour", 0), jsonr_num(g, "iteration_s", 0),
                    jsonr_u64(g, "interval", 0), jsonr_num(g, "at_interval.wall_p50_s", 0) / 3600,
                    jsonr_num(g, "at_interval.wall_p90_s", 0) / 3600,
                    100 * jsonr_num(g, "at_interval.goodput_p50", 0),
                    100 * jsonr_num(g, "at_interval.goodput_p90", 0),
                    jsonr_u64(g, "best_interval", 0), 100 * jsonr_num(g, "at_best.goodput_p50", 0),
                    jsonr_num(g, "young_interval", 0), jsonr_num(g, "daly_interval", 0));
        }
        fputs("</div>\n", f);
    }
}

static void top_ports_table(FILE *f, const report *r)
{
    if (!r->have_ports)
        return;
    uint32_t top[10];
    int n = 0;
    for (uint32_t i = 0; i < r->st.n_ports; i++) {
        const port_record *p = &r->st.ports[i];
        if (!p->max_queue_bytes)
            continue;
        int at = n < 10 ? n++ : 10;
        if (at == 10) {
            if (p->max_queue_bytes <= r->st.ports[top[9]].max_queue_bytes)
                continue;
            at = 9;
        }
        while (at > 0 && r->st.ports[top[at - 1]].max_queue_bytes < p->max_queue_bytes) {
            top[at] = top[at - 1];
            at--;
        }
        top[at] = i;
    }
    fputs("<h2>Top congested ports</h2>\n", f);
    if (!n) {
        fputs("<p>No port ever queued a packet.</p>\n", f);
        return;
    }
    fputs("<table id=\"top-ports\"><tr><th>port</th><th>max queue</th><th>utilization</th>"
          "<th>ECN marked</th><th>PAUSE sent</th><th>PAUSE rx</th><th>paused</th>"
          "<th>drops</th></tr>\n",
          f);
    for (int k = 0; k < n; k++) {
        const port_record *p = &r->st.ports[top[k]];
        char q[32], t[32];
        uint64_t d = 0;
        for (int x = 0; x < DROP_REASONS; x++)
            d += p->drops[x];
        fputs("<tr><td>", f);
        html_esc(f, p->name);
        fprintf(f, "</td><td>%s</td><td>%.1f %%</td><td>%" PRIu64 "</td><td>%" PRIu64
                   "</td><td>%" PRIu64 "</td><td>%s</td><td>%" PRIu64 "</td></tr>\n",
                summary_fmt_bytes(q, sizeof q, p->max_queue_bytes), 100 * p->utilization,
                p->ecn_marked, p->pfc_pause_sent, p->pfc_pause_rx,
                summary_fmt_time(t, sizeof t, p->pfc_paused_ps), d);
    }
    fputs("</table>\n", f);
}

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222;"
    "max-width:920px;margin:24px auto;padding:0 16px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid "
    "#ddd;padding-bottom:4px}.sub{color:#666}"
    ".cards{display:flex;flex-wrap:wrap;gap:8px;margin:14px 0}.card{border:1px solid #ddd;"
    "border-radius:6px;padding:8px 12px;min-width:120px}.card b{display:block;font-size:18px}"
    ".card span{color:#666;font-size:12px;display:block;max-width:230px;overflow:hidden;"
    "text-overflow:ellipsis;white-space:nowrap}"
    ".diag{background:#fff4e5;border-left:4px solid #ff7f0e;padding:8px 12px;margin:10px 0}"
    ".ok{background:#eef7ee;border-left:4px solid #2ca02c;padding:8px 12px}"
    "figure{margin:8px 0 18px}figcaption{color:#666;font-size:12px}"
    "svg.chart{max-width:100%;height:auto;background:#fff}"
    ".title{font-size:13px;font-weight:600}.grid line{stroke:#eee}.axis{stroke:#888}"
    ".tick{stroke:#888}.xt{font-size:10px;text-anchor:middle;fill:#555}"
    ".yt{font-size:10px;text-anchor:end;fill:#555}.xl,.yl{font-size:11px;text-anchor:middle;"
    "fill:#444}.hl{font-size:9px;text-anchor:end;fill:#444}.lg{font-size:10px;fill:#333}"
    ".val{font-size:11px;fill:#333}.line{fill:none;stroke-width:1.5}"
    ".mark{stroke:#999;stroke-dasharray:3 3}.pause{fill:#d62728}"
    ".missing{color:#777;border:1px dashed #ccc;padding:8px 12px;margin:8px 0}"
    ".legend{font-size:12px;color:#555;display:flex;align-items:center;gap:6px}"
    "table{border-collapse:collapse;font-size:12px;width:100%}td,th{border-bottom:1px solid "
    "#eee;padding:3px 6px;text-align:right;white-space:nowrap}td:first-child,th:first-child"
    "{text-align:left;white-space:normal}#jobs td:nth-child(2){white-space:normal}"
    ".note{background:#f3f6fb;border-left:4px solid #7f9fcf;padding:6px 12px;margin:6px 0;"
    "font-size:12px}.card.bad{border-color:#d62728}.card.bad b{color:#d62728}"
    ".mean{stroke-dasharray:4 3}.swatch{display:inline-block;width:10px;height:10px;"
    "margin:0 4px 0 12px}"
    "@media print{body{max-width:none}}";

static void card(FILE *f, const char *value, const char *label)
{
    fputs("<div class=\"card\" title=\"", f);
    html_esc(f, label);
    fputs("\"><b>", f);
    html_esc(f, value);
    fputs("</b><span>", f);
    html_esc(f, label);
    fputs("</span></div>", f);
}


static void card_cls(FILE *f, const char *cls, const char *value, const char *label)
{
    fprintf(f, "<div class=\"card %s\" title=\"", cls);
    html_esc(f, label);
    fputs("\"><b>", f);
    html_esc(f, value);
    fputs("</b><span>", f);
    html_esc(f, label);
    fputs("</span></div>", f);
}

/* Mean iteration time of a job (0 without iterations). */
static sim_time mean_iter(const job_result *jr)
{
    if (!jr->n_iterations)
        return 0;
    double s = 0;
    for (uint32_t k = 0; k < jr->n_iterations; k++)
        s += (double)jr->iterations[k].time_ps;
    return ps_of(s / jr->n_iterations);
}

#define JOB_CARDS 4 /* jobs with headline cards; the table below lists every job */

/* Headline cards per job: JCT (and ×ideal), busbw/algbw, mean iteration, or FAILED + reason. */
static void job_cards(FILE *f, const report *r)
{
    const jsonr_val *jobs = jsonr_get(r->root, "jobs");
    const jsonr_val *x = jobs && jobs->type == JR_ARR ? jobs->child : NULL;
    for (uint32_t j = 0; j < r->st.n_jobs && x; j++, x = x->next) {
        if (j == JOB_CARDS)
            break;
        const job_result *jr = &r->st.jobs[j];
        const char *kind = jsonr_str(x, "kind", "");
        bool traffic = strcmp(kind, "traffic") == 0;
        char v[64], l[160], t1[32];
        const jsonr_val *fl = jsonr_get(x, "failed");
        if (fl && fl->type == JR_BOOL && fl->b) {
            text_printf(l, sizeof l, "%s · %s", jsonr_str(x, "reason", "?"), jr->name);
            card_cls(f, "bad", "FAILED", l);
            continue;
        }
        if (traffic && !jr->completed && r->st.n_jobs > 1)
            continue; /* background traffic that runs to the end: its flows are above */
        double ratio = finite_or0(jsonr_num(x, "jct_over_ideal", 0));
        uint64_t ideal = jsonr_u64(x, "ideal_jct_ps", 0);
        if (jr->completed) {
            summary_fmt_time(v, sizeof v, jr->jct_ps);
            if (ratio > 0 && ideal)
                text_printf(l, sizeof l, "JCT = %.2f × the %s ideal · %s", ratio,
                            summary_fmt_time(t1, sizeof t1, ideal), jr->name);
            else
                text_printf(l, sizeof l, "JCT · %s", jr->name);
            card(f, v, l);
        } else {
            text_printf(l, sizeof l, "not completed · %s", jr->name);
            card_cls(f, "bad", "not done", l);
        }
        double busbw = finite_or0(jsonr_num(x, "busbw_GBps", 0)),
               algbw = finite_or0(jsonr_num(x, "algbw_GBps", 0));
        if (busbw > 0 || algbw > 0) {
            text_printf(v, sizeof v, "%.4g GB/s", busbw);
            text_printf(l, sizeof l, "busbw (algbw %.4g GB/s) · %s", algbw, jr->name);
            card(f, v, l);
        }
        const jsonr_val *inf = jsonr_get(x, "inference");
        if (inf && jsonr_u64(inf, "requests_completed", 0)) {
            const jsonr_val *tt = jsonr_get(inf, "ttft_ps"), *to = jsonr_get(inf, "tpot_ps");
            char t2[32];
            summary_fmt_time(v, sizeof v, jsonr_u64(tt, "p99", 0));
            text_printf(l, sizeof l, "p99 time to first token (p50 %s) · %s",
                        summary_fmt_time(t1, sizeof t1, jsonr_u64(tt, "p50", 0)), jr->name);
            card(f, v, l);
            summary_fmt_time(v, sizeof v, jsonr_u64(to, "p99", 0));
            text_printf(l, sizeof l, "p99 time per output token (p50 %s) · %s",
                        summary_fmt_time(t2, sizeof t2, jsonr_u64(to, "p50", 0)), jr->name);
            card(f, v, l);
            text_printf(v, sizeof v, "%.4g tok/s",
                        finite_or0(jsonr_num(inf, "output_tokens_per_s", 0)));
            text_printf(l, sizeof l, "output tokens per second (%.3g requests/s) · %s",
                        finite_or0(jsonr_num(inf, "requests_per_s", 0)), jr->name);
            card(f, v, l);
        }
        if (!traffic && jr->n_iterations) {
            summary_fmt_time(v, sizeof v, mean_iter(jr));
            text_printf(l, sizeof l, "mean iteration (%u done) · %s", jr->n_iterations,
                        jr->name);
            card(f, v, l);
        }
    }
}

/* Every job: kind, JCT, ideal and efficiency, bandwidth, iterations, status. */
static void jobs_table(FILE *f, const report *r)
{
    const jsonr_val *jobs = jsonr_get(r->root, "jobs");
    if (!jobs || jobs->type != JR_ARR || !jobs->n)
        return;
    fputs("<table id=\"jobs\"><tr><th>job</th><th>kind</th><th>JCT</th><th>ideal</th>"
          "<th>× ideal</th><th>busbw</th><th>algbw</th><th>iterations</th><th>status</th></tr>\n",
          f);
    uint32_t j = 0;
    for (const jsonr_val *x = jobs->child; x && j < r->st.n_jobs; x = x->next, j++) {
        const job_result *jr = &r->st.jobs[j];
        char b[64], kind[96];
        const char *k = jsonr_str(x, "kind", "?");
        if (strcmp(k, "collective") == 0)
            text_printf(kind, sizeof kind, "%s %s, %" PRIu64 " ranks",
                        jsonr_str(x, "op", "?"), jsonr_str(x, "algorithm", "?"),
                        jsonr_u64(x, "ranks", 0));
        else if (strcmp(k, "training") == 0 && jsonr_u64(x, "dp", 0) > 1 &&
                 jsonr_u64(x, "bucket_bytes", 0)) /* the DP bucket, auto resolved */
            text_printf(kind, sizeof kind,
                        "training tp %" PRIu64 " pp %" PRIu64 " dp %" PRIu64 ", bucket %.0f MB",
                        jsonr_u64(x, "tp", 0), jsonr_u64(x, "pp", 0), jsonr_u64(x, "dp", 0),
                        (double)jsonr_u64(x, "bucket_bytes", 0) / 1e6);
        else if (strcmp(k, "training") == 0)
            text_printf(kind, sizeof kind, "training tp %" PRIu64 " pp %" PRIu64 " dp %" PRIu64,
                        jsonr_u64(x, "tp", 0), jsonr_u64(x, "pp", 0), jsonr_u64(x, "dp", 0));
        else if (strcmp(k, "chakra") == 0)
            text_printf(kind, sizeof kind, "chakra trace, %" PRIu64 " ranks, %" PRIu64 " nodes",
                        jsonr_u64(x, "ranks", 0), jsonr_u64(x, "nodes", 0));
        else if (strcmp(k, "inference") == 0)
            text_printf(kind, sizeof kind,
                        "inference tp %" PRIu64 " pp %" PRIu64 ", %" PRIu64 " replicas",
                        jsonr_u64(x, "tp", 0), jsonr_u64(x, "pp", 0), jsonr_u64(x, "dp", 0));
        else
            text_printf(kind, sizeof kind, "%s %s", k, jsonr_str(x, "pattern", ""));
        fputs("<tr><td>", f);
        html_esc(f, jr->name);
        fputs("</td><td>", f);
        html_esc(f, kind);
        fprintf(f, "</td><td>%s</td>",
                jr->completed ? summary_fmt_time(b, sizeof b, jr->jct_ps) : "—");
        uint64_t ideal = jsonr_u64(x, "ideal_jct_ps", 0);
        fprintf(f, "<td>%s", ideal ? summary_fmt_time(b, sizeof b, ideal) : "—");
        const char *basis = jsonr_str(x, "ideal_basis", NULL);
        if (basis) {
            fputs(" <span class=\"sub\">(", f);
            html_esc(f, basis);
            fputs(")</span>", f);
        }
        double ratio = finite_or0(jsonr_num(x, "jct_over_ideal", 0));
        if (ratio > 0)
            fprintf(f, "</td><td>%.2f ×</td>", ratio);
        else
            fputs("</td><td>—</td>", f);
        double busbw = finite_or0(jsonr_num(x, "busbw_GBps", 0)),
               algbw = finite_or0(jsonr_num(x, "algbw_GBps", 0));
        if (busbw > 0 || algbw > 0)
            fprintf(f, "<td>%.4g GB/s</td><td>%.4g GB/s</td>", busbw, algbw);
        else
            fputs("<td>—</td><td>—</td>", f);
        if (jr->n_iterations)
            fprintf(f, "<td>%u × %s</td>", jr->n_iterations,
                    summary_fmt_time(b, sizeof b, mean_iter(jr)));
        else
            fputs("<td>—</td>", f);
        const jsonr_val *fl = jsonr_get(x, "failed");
        fputs("<td>", f);
        if (fl && fl->type == JR_BOOL && fl->b) {
            fputs("failed: ", f);
            html_esc(f, jsonr_str(x, "reason", "?"));
        } else {
            fputs(jr->completed ? "completed" : "not completed", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Training jobs: where the mean iteration went, as one stacked bar per job. */
static void chart_breakdown(FILE *f, const report *r)
{
    enum { NK = 6 };
    static const char *const keys[NK] = {"compute_ps",    "exposed_tp_ps", "exposed_ep_ps",
                                         "exposed_pp_ps", "exposed_dp_ps", "bubble_ps"};
    static const char *const names[NK] = {
        "compute",         "exposed TP comm", "exposed MoE all_to_all",
        "exposed PP comm", "exposed DP comm", "pipeline bubble"};
    static const char *const colors[NK] = {"#2ca02c", "#d62728", "#8c564b",
                                           "#ff7f0e", "#9467bd", "#bbb"};
    const jsonr_val *jobs = jsonr_get(r->root, "jobs");
    uint32_t n = 0;
    for (const jsonr_val *x = jobs && jobs->type == JR_ARR ? jobs->child : NULL; x; x = x->next)
        n += jsonr_get(x, "breakdown") != NULL;
    if (!n)
        return;
    chart c = {0};
    c.ml = 140;
    c.mt = 44;
    c.mb = 40;
    double rh = 28;
    chart_open(f, &c, "chart-breakdown", 880, c.mt + c.mb + rh * n,
               "Training: where the mean iteration went (mean over ranks)");
    c.x0 = 0;
    c.x1 = 1;
    double x0 = c.ml;
    for (int k = 0; k < NK; k++) { /* legend on one row */
        fprintf(f, "<rect x=\"%.1f\" y=\"26\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text class=\"lg\" x=\"%.1f\" y=\"35\">%s</text>",
                x0, colors[k], x0 + 14, names[k]);
        x0 += 26 + 6.2 * strlen(names[k]);
    }
    uint32_t i = 0;
    for (const jsonr_val *x = jobs->child; x; x = x->next) {
        const jsonr_val *bd = jsonr_get(x, "breakdown");
        if (!bd)
            continue;
        double v[NK], tot = 0;
        for (int k = 0; k < NK; k++)
            tot += v[k] = (double)jsonr_u64(bd, keys[k], 0);
        double y = c.mt + i * rh + 4;
        fprintf(f, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">", c.ml - 6, y + 14);
        html_esc_max(f, jsonr_str(x, "name", "?"), 22);
        fputs("</text>", f);
        double at = 0;
        for (int k = 0; k < NK && tot > 0; k++) {
            double w = v[k] / tot;
            char t[32];
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"20\" fill=\"%s\">"
                       "<title>%s: %s (%.1f %%)</title></rect>",
                    cx(&c, at), y, cx(&c, at + w) - cx(&c, at), colors[k], names[k],
                    summary_fmt_time(t, sizeof t, ps_of(v[k])), 100 * w);
            if (w >= 0.06)
                fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" fill=\"#fff\" "
                           "text-anchor=\"middle\">%.0f %%</text>",
                        (cx(&c, at) + cx(&c, at + w)) / 2, y + 14, 100 * w);
            at += w;
        }
        i++;
    }
    for (int k = 0; k <= 4; k++)
        fprintf(f, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%d %%</text>", cx(&c, k / 4.0),
                c.H - c.mb + 14, k * 25);
    chart_close(&c, "Exposed communication: time the GPU waited with only that transfer to "
                    "blame; communication hidden behind compute is not counted. Percent of "
                    "the mean iteration.");
}

int report_write_html(FILE *f, const report *r)
{
    const run_stats *st = &r->st;
    const char *name = jsonr_str(r->root, "scenario", "run");
    char a[48], b[48];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
          "<meta name=\"generator\" content=\"wirerate\"><title>wirerate report: ",
          f);
    html_esc(f, name);
    fprintf(f, "</title><style>%s</style></head><body>\n", css);
    fputs("<h1>wirerate report: ", f);
    html_esc(f, name);
    fprintf(f, "</h1><div class=\"sub\">wirerate %s · seed %" PRIu64 " · simulated %s%s</div>\n",
            jsonr_str(r->root, "version", "?"), jsonr_u64(r->root, "seed", 0),
            summary_fmt_time(a, sizeof a, st->end_ps),
            st->deadlock ? (st->infiniband ? " · stopped by a credit deadlock"
                                           : " · stopped by a PFC deadlock")
                         : "");

    fputs("<div class=\"cards\" id=\"headline\">", f);
    uint64_t n_flows = jsonr_u64(r->root, "flows.count", 0);
    if (n_flows) { /* traffic jobs: flow figures */
        snprintf(a, sizeof a, "%" PRIu64 " / %" PRIu64, st->flows_completed, n_flows);
        card(f, a, "flows completed");
        /* percentiles over completed flows: none completed, no figure */
        card(f, st->flows_completed ? summary_fmt_time(a, sizeof a, st->fct_p50_ps) : "—",
             "FCT p50");
        card(f, st->flows_completed ? summary_fmt_time(a, sizeof a, st->fct_p99_ps) : "—",
             "FCT p99");
    }
    job_cards(f, r);
    snprintf(a, sizeof a, "%.1f %%", 100 * st->max_link_utilization);
    card(f, a, "max link utilization");
    snprintf(a, sizeof a, "%" PRIu64, st->ecn_marked);
    card(f, a, "ECN marked");
    snprintf(a, sizeof a, "%" PRIu64, st->pfc_pause_sent);
    card(f, a, "PFC pauses sent");
    uint64_t drops = 0;
    for (int d = 0; d < DROP_REASONS; d++)
        drops += st->drops[d];
    snprintf(a, sizeof a, "%" PRIu64, drops);
    card(f, a, "drops");
    snprintf(a, sizeof a, "%" PRIu64 " / %" PRIu64, st->cnp_sent, st->retransmitted_packets);
    card(f, a, "CNPs / retransmits");
    fputs("</div>\n", f);
    for (int i = 0; i < r->n_notes; i++) {
        fputs("<div class=\"note\">", f);
        html_esc(f, r->notes[i]);
        fputs("</div>\n", f);
    }

    fputs("<div id=\"diagnosis\">", f);
    if (st->deadlock) {
        fputs(st->infiniband ? "<div class=\"diag\">Credit deadlock: "
                             : "<div class=\"diag\">PFC deadlock: ",
              f);
        html_esc(f, st->deadlock_cycle);
        fputs("</div>", f);
    }
    /* summary.json's own diagnosis (rules with evidence and cost) when the run wrote one;
     * otherwise the one the terminal summary derives from the port records. */
    const jsonr_val *dj = jsonr_get(r->root, "diagnosis");
    int nd = 0;
    if (dj && dj->type == JR_ARR) {
        for (const jsonr_val *x = dj->child; x; x = x->next) {
            const char *text = jsonr_str(x, "text", NULL);
            if (!text)
                continue;
            fputs("<div class=\"diag\">", f);
            const char *rule = jsonr_str(x, "rule", NULL);
            if (rule) {
                fputs("<b>", f);
                html_esc(f, rule);
                fputs("</b>: ", f);
            }
            html_esc(f, text);
            uint64_t cost = jsonr_u64(x, "cost_ps", 0);
            if (cost)
                fprintf(f, " <span class=\"sub\">(cost %s)</span>",
                        summary_fmt_time(a, sizeof a, cost));
            fputs("</div>", f);
            nd++;
        }
    } else {
        char diag[4][SUMMARY_DIAG_LEN];
        nd = r->have_ports ? summary_diagnose(st, diag, 4) : 0;
        for (int i = 0; i < nd; i++) {
            fputs("<div class=\"diag\">", f);
            html_esc(f, diag[i]);
            fputs("</div>", f);
        }
    }
    if (!nd && !st->deadlock)
        fputs("<div class=\"ok\">No congestion pattern stood out.</div>", f);
    fputs("</div>\n", f);

    faults_section(f, r);

    fputs("<h2>Jobs</h2>\n", f);
    jobs_table(f, r);
    chart_jct(f, r);
    chart_breakdown(f, r);
    fputs("<h2>Link utilization</h2>\n", f);
    chart_heat(f, r);
    fputs("<h2>Queues and PFC</h2>\n", f);
    chart_queue(f, r);
    fputs("<h2>Flows</h2>\n", f);
    chart_fct(f, r);
    fputs("<h2>Congestion control</h2>\n", f);
    chart_dcqcn(f, r);
    top_ports_table(f, r);
    fprintf(f, "<p class=\"sub\">Generated by wirerate %s from %s (%s wall).</p>\n", WR_VERSION,
            r->have_manifest ? "the files listed in manifest.json"
                             : "summary.json and the CSV files beside it",
            st->wall_s > 0 ? (snprintf(b, sizeof b, "%.2f s", st->wall_s), b) : "?");
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
