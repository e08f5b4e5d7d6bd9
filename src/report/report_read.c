/*
 * report_read.c — load a run's output folder for the HTML report (report.h, report_int.h).
 *
 * The loader rebuilds a run_stats from summary.json, ports.csv and flows.csv so the report and
 * the terminal summary share one diagnosis (summary_diagnose), reads timeseries.csv into dense
 * [port × time] matrices, and decimates dcqcn_rates.csv to RATE_BUCKETS min/max pairs per drawn
 * flow, so memory and the page follow the picture, not the run length.
 *
 * Every file may be hostile (hand-edited, cut short, from another tool). CSV goes through the
 * RFC 4180 reader (csvread.h); every number is parsed strictly (digits only for integers, finite
 * and non-negative for reals, no overflow) and checked for what the drawing code relies on
 * (end_ps >= start_ps, sample times in order, a dense grid); anything else refuses the folder
 * with ERR_INVALID and "DIR/FILE:LINE: column 'X': …". When manifest.json is present, a file
 * is read only if the manifest lists it with the same size and hash: an unlisted file is
 * ignored (and the page says so), a listed file that differs refuses the folder — it mixes two
 * runs.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "csvread.h"
#include "manifest.h"
#include "report_int.h"
#include "summary.h"

/* ---- files and the manifest --------------------------------------------------------------- */

static char *read_all(const char *dir, const char *name, size_t *len, bool required, err *e)
{
    size_t pl = strlen(dir) + strlen(name) + 2;
    char *path = xmalloc(pl, "report path");
    snprintf(path, pl, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (required)
            err_set(e, ERR_IO, path, 0, 0, "cannot read %s: %s", path, strerror(errno));
        xfree(path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap + 1, "report file");
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap + 1, "report file");
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        err_set(e, ERR_IO, path, 0, 0, "error reading %s", path);
        xfree(path);
        xfree(buf);
        return NULL;
    }
    xfree(path);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void note(report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(report *r, const char *fmt, ...)
{
    if (r->n_notes == REPORT_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->n_notes++], REPORT_NOTE_LEN, fmt, ap);
    va_end(ap);
}

/* Read `name` if it belongs to this run: returns the contents (new), or NULL with *e untouched
 * when it is absent or not listed in the manifest (ignored), or NULL with *e set. */
static char *read_run_file(report *r, const char *name, size_t *len, bool required, err *e)
{
    const jsonr_val *listed = NULL;
    for (const jsonr_val *x = r->manifest_files ? r->manifest_files->child : NULL; x; x = x->next)
        if (strcmp(jsonr_str(x, "name", ""), name) == 0)
            listed = x;
    char *buf = read_all(r->dir, name, len, required, e);
    if (!buf && listed && !e->code)
        note(r, "%s is listed in manifest.json but missing from the folder", name);
    if (!buf || !r->manifest_files)
        return buf;
    if (!listed) {
        note(r, "%s is not listed in manifest.json (left by another run or added later): "
                "ignored",
             name);
        xfree(buf);
        return NULL;
    }
    char hex[24];
    snprintf(hex, sizeof hex, "%016" PRIx64, manifest_fnv1a64(buf, *len, MANIFEST_FNV_SEED));
    if (jsonr_u64(listed, "bytes", UINT64_MAX) != *len ||
        strcmp(jsonr_str(listed, "fnv1a64", ""), hex) != 0) {
        err_set(e, ERR_INVALID, name, 0, 0,
                "%s/%s: does not match manifest.json (size or hash differ): the folder mixes "
                "files of different runs; rerun, or remove manifest.json to report on it as it "
                "is",
                r->dir, name);
        xfree(buf);
        return NULL;
    }
    return buf;
}

/* ---- CSV tables with strict values ------------------------------------------------------- */

typedef struct table {
    report *r;
    err *e;
    const char *file;
    csv_reader c;
    char *buf;
} table;

static int table_fail(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int table_fail(table *t, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    uint64_t line = csv_line(&t->c);
    if (line)
        err_set(t->e, ERR_INVALID, t->file, line > INT32_MAX ? 0 : (int)line, 0,
                "%s/%s:%" PRIu64 ": %s", t->r->dir, t->file, line, what);
    else /* nothing read: the file as a whole */
        err_set(t->e, ERR_INVALID, t->file, 0, 0, "%s/%s: %s", t->r->dir, t->file, what);
    return -1;
}

/* A field for messages: at most 40 bytes, non-printable bytes as '?'. */
static const char *shown(const char *s, char *b, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 4 < n && i < 40; i++)
        b[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (s[i])
        b[i++] = '.', b[i++] = '.', b[i++] = '.';
    b[i] = '\0';
    return b;
}

static void table_close(table *t)
{
    csv_free(&t->c);
    xfree(t->buf);
    t->buf = NULL;
}

/* Open `file`: 1 with the header read, 0 when absent or ignored, -1 on error (then nothing is
 * left open). */
static int table_open(table *t, report *r, const char *file, err *e)
{
    memset(t, 0, sizeof *t);
    t->r = r;
    t->e = e;
    t->file = file;
    size_t len;
    t->buf = read_run_file(r, file, &len, false, e);
    if (!t->buf)
        return e->code ? -1 : 0;
    csv_init(&t->c, t->buf, len);
    int n = csv_next(&t->c);
    if (n <= 0) { /* the table is closed again: the caller only closes what opened */
        table_fail(t, "%s", n < 0 ? csv_error(&t->c) : "empty file (expected a header row)");
        table_close(t);
        return -1;
    }
    return 1;
}


/* Index of header column `name`, or -1. Call right after table_open. */
static int col(const table *t, const char *name)
{
    for (int i = 0; i < t->c.nf; i++)
        if (strcmp(csv_field(&t->c, i), name) == 0)
            return i;
    return -1;
}

/* Next data row: 1, 0 at the end, -1 on error. Blank lines are skipped. */
static int table_row(table *t)
{
    for (;;) {
        int n = csv_next(&t->c);
        if (n < 0)
            return table_fail(t, "%s", csv_error(&t->c));
        if (n == 0)
            return 0;
        if (n > 1 || csv_field(&t->c, 0)[0])
            return 1;
    }
}

/* Column c as an unsigned integer (digits only, no overflow). An absent column (c < 0) or, when
 * !required, an empty field reads as 0. 0, or -1 with the error set. */
static int get_u64(table *t, int c, const char *name, bool required, uint64_t *v)
{
    *v = 0;
    if (c < 0)
        return 0;
    const char *s = csv_field(&t->c, c);
    char b[48];
    if (c >= t->c.nf)
        return table_fail(t, "column '%s' missing in this row", name);
    if (!*s) {
        if (!required)
            return 0;
        return table_fail(t, "column '%s' is empty", name);
    }
    uint64_t x = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return table_fail(t, "column '%s': expected a non-negative integer, got \"%s\"", name,
                              shown(s, b, sizeof b));
        unsigned d = (unsigned)(*p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return table_fail(t, "column '%s': %s does not fit in 64 bits", name,
                              shown(s, b, sizeof b));
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* Column c as a finite real in [0, max]; absent column or empty field read as 0. */
static int get_num(table *t, int c, const char *name, double max, double *v)
{
    *v = 0;
    if (c < 0)
        return 0;
    if (c >= t->c.nf)
        return table_fail(t, "column '%s' missing in this row", name);
    const char *s = csv_field(&t->c, c);
    if (!*s)
        return 0;
    char *end, b[48];
    errno = 0;
    double x = strtod(s, &end);
    if (*end || end == s || !isfinite(x) || x < 0 || x > max)
        return table_fail(t, "column '%s': expected a finite number in [0, %g], got \"%s\"",
                          name, max, shown(s, b, sizeof b));
    *v = x;
    return 0;
}

static const char *const drop_cols[DROP_REASONS] = {
    "drop_buffer_full", "drop_link_down", "drop_bit_error",
    "drop_no_route",    "drop_pfc_watchdog", "drop_ttl", "drop_pfc_headroom",
};

static int load_ports(report *r, err *e)
{
    table t;
    int o = table_open(&t, r, "ports.csv", e);
    if (o <= 0)
        return o;
    int c_port = col(&t, "port");
    if (c_port < 0) {
        table_fail(&t, "no 'port' column in the header");
        table_close(&t);
        return -1;
    }
    static const char *const ucols[] = {"tx_bytes",       "tx_packets",     "max_queue_bytes",
                                        "ecn_marked",     "pfc_pause_sent", "pfc_paused_ps",
                                        "pfc_pause_rx",   "pfc_watchdog_events"};
    int cu[8], c_util = col(&t, "utilization"), c_d[DROP_REASONS];
    for (int k = 0; k < 8; k++)
        cu[k] = col(&t, ucols[k]);
    for (int d = 0; d < DROP_REASONS; d++)
        c_d[d] = col(&t, drop_cols[d]);
    uint32_t cap = 256;
    r->st.ports = xcalloc(cap, sizeof(port_record), "report ports");
    int rc;
    while ((rc = table_row(&t)) > 0) {
        if (r->st.n_ports == UINT32_MAX - 1) {
            rc = table_fail(&t, "too many ports");
            break;
        }
        if (r->st.n_ports == cap) {
            cap *= 2;
            r->st.ports = xrealloc(r->st.ports, cap * sizeof(port_record), "report ports");
        }
        port_record *p = &r->st.ports[r->st.n_ports];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", csv_field(&t.c, c_port));
        uint64_t *dst[8] = {&p->tx_bytes,     &p->tx_packets,     &p->max_queue_bytes,
                            &p->ecn_marked,   &p->pfc_pause_sent, &p->pfc_paused_ps,
                            &p->pfc_pause_rx, &p->wd_events};
        rc = 0;
        for (int k = 0; k < 8 && !rc; k++)
            rc = get_u64(&t, cu[k], ucols[k], false, dst[k]);
        for (int d = 0; d < DROP_REASONS && !rc; d++)
            rc = get_u64(&t, c_d[d], drop_cols[d], false, &p->drops[d]);
        if (!rc)
            rc = get_num(&t, c_util, "utilization", 1e6, &p->utilization);
        if (rc)
            break;
        r->st.n_ports++;
    }
    table_close(&t);
    if (rc < 0)
        return -1;
    r->have_ports = true;
    return 0;
}

static int load_flows(report *r, err *e)
{
    table t;
    int o = table_open(&t, r, "flows.csv", e);
    if (o <= 0)
        return o;
    int c_job = col(&t, "job"), c_s = col(&t, "src_host"), c_d = col(&t, "dst_host"),
        c_sz = col(&t, "size_bytes"), c_dl = col(&t, "delivered_bytes"),
        c_st = col(&t, "start_ps"), c_en = col(&t, "end_ps");
    if (c_st < 0 || c_en < 0) {
        table_fail(&t, "expected start_ps and end_ps columns in the header");
        table_close(&t);
        return -1;
    }
    uint64_t cap = 1024;
    r->st.flows = xcalloc(cap, sizeof(flow_record), "report flows");
    int rc;
    while ((rc = table_row(&t)) > 0) {
        if (r->st.n_flows == cap) {
            cap *= 2;
            r->st.flows = xrealloc(r->st.flows, cap * sizeof(flow_record), "report flows");
        }
        flow_record *fr = &r->st.flows[r->st.n_flows];
        memset(fr, 0, sizeof *fr);
        fr->job = UINT32_MAX;
        const char *job = csv_field(&t.c, c_job);
        for (uint32_t j = 0; c_job >= 0 && j < r->st.n_jobs; j++)
            if (strcmp(r->st.jobs[j].name, job) == 0) {
                fr->job = j;
                break;
            }
        uint64_t src, dst;
        if (get_u64(&t, c_s, "src_host", false, &src) ||
            get_u64(&t, c_d, "dst_host", false, &dst) ||
            get_u64(&t, c_sz, "size_bytes", false, &fr->size_bytes) ||
            get_u64(&t, c_dl, "delivered_bytes", false, &fr->delivered_bytes) ||
            get_u64(&t, c_st, "start_ps", true, &fr->start_ps) ||
            get_u64(&t, c_en, "end_ps", false, &fr->end_ps)) {
            rc = -1;
            break;
        }
        if (src > UINT32_MAX || dst > UINT32_MAX) {
            rc = table_fail(&t, "host index above 2^32-1");
            break;
        }
        fr->src_host = (uint32_t)src;
        fr->dst_host = (uint32_t)dst;
        /* An empty end_ps is a flow that did not complete; a flow cannot end before it began
         * (the FCT would wrap around to 2^64). */
        if (fr->end_ps && fr->end_ps < fr->start_ps) {
            rc = table_fail(&t, "end_ps %" PRIu64 " is before start_ps %" PRIu64, fr->end_ps,
                            fr->start_ps);
            break;
        }
        r->st.n_flows++;
    }
    table_close(&t);
    if (rc < 0)
        return -1;
    r->have_flows = true;
    return 0;
}

/* Name → index: open addressing over a power-of-two table of (index + 1). */
typedef struct name_map {
    uint32_t *slot;
    uint32_t mask;
} name_map;

static uint64_t hash_str(const char *s)
{
    return manifest_fnv1a64(s, strlen(s), MANIFEST_FNV_SEED);
}

/* The series of port `name`, added when new. */
static uint32_t series_of(report *r, name_map *m, uint32_t *cap_s, const char *name)
{
    char key[48];
    snprintf(key, sizeof key, "%s", name); /* names are kept to 47 bytes; compare the same */
    for (uint64_t h = hash_str(key);; h++) {
        uint32_t s = m->slot[h & m->mask];
        if (s && strcmp(r->ser[s - 1].name, key) == 0)
            return s - 1;
        if (s)
            continue;
        if (r->n_series == *cap_s) {
            *cap_s *= 2;
            r->ser = xrealloc(r->ser, *cap_s * sizeof(series), "report series");
        }
        uint32_t idx = r->n_series++;
        memset(&r->ser[idx], 0, sizeof(series));
        snprintf(r->ser[idx].name, sizeof r->ser[idx].name, "%s", key);
        m->slot[h & m->mask] = idx + 1;
        if (r->n_series * 2 > m->mask) { /* grow and rehash */
            uint32_t nm = m->mask * 2 + 1;
            uint32_t *ns = xcalloc((size_t)nm + 1, sizeof(uint32_t), "report map");
            for (uint32_t k = 0; k < r->n_series; k++) {
                uint64_t hk = hash_str(r->ser[k].name);
                while (ns[hk & nm])
                    hk++;
                ns[hk & nm] = k + 1;
            }
            xfree(m->slot);
            m->slot = ns;
            m->mask = nm;
        }
        return idx;
    }
}

static int load_timeseries(report *r, err *e)
{
    table t;
    int o = table_open(&t, r, "timeseries.csv", e);
    if (o <= 0)
        return o;
    int c_t = col(&t, "time_ps"), c_p = col(&t, "port"), c_q = col(&t, "queue_bytes"),
        c_u = col(&t, "utilization"), c_x = col(&t, "pfc_paused_mask");
    if (c_t < 0 || c_p < 0) {
        table_fail(&t, "expected time_ps and port columns in the header");
        table_close(&t);
        return -1;
    }
    typedef struct cell {
        uint32_t ti, pi;
        float q, u;
        uint8_t x;
    } cell;
    uint64_t n_cells = 0, cap_cells = 4096;
    cell *cells = xmalloc(cap_cells * sizeof(cell), "report cells");
    uint32_t cap_t = 256, cap_s = 64;
    r->t = xmalloc(cap_t * sizeof(sim_time), "report times");
    r->ser = xcalloc(cap_s, sizeof(series), "report series");
    name_map m = {xcalloc(1024, sizeof(uint32_t), "report map"), 1023};
    int rc;
    while ((rc = table_row(&t)) > 0) {
        uint64_t tm, mask;
        double q, u;
        if (get_u64(&t, c_t, "time_ps", true, &tm) || get_num(&t, c_q, "queue_bytes", 1e18, &q) ||
            get_num(&t, c_u, "utilization", 1e6, &u) ||
            get_u64(&t, c_x, "pfc_paused_mask", false, &mask)) {
            rc = -1;
            break;
        }
        if (mask > 255) {
            rc = table_fail(&t, "column 'pfc_paused_mask': %" PRIu64 " is not an 8-class mask",
                            mask);
            break;
        }
        if (!csv_field(&t.c, c_p)[0]) {
            rc = table_fail(&t, "column 'port' is empty");
            break;
        }
        if (!r->n_t || r->t[r->n_t - 1] != tm) {
            if (r->n_t && tm < r->t[r->n_t - 1]) {
                rc = table_fail(&t, "time_ps goes backwards (%" PRIu64 " after %" PRIu64 ")", tm,
                                r->t[r->n_t - 1]);
                break;
            }
            if (r->n_t == UINT32_MAX - 1) {
                rc = table_fail(&t, "too many sample times");
                break;
            }
            if (r->n_t == cap_t) {
                cap_t *= 2;
                r->t = xrealloc(r->t, cap_t * sizeof(sim_time), "report times");
            }
            r->t[r->n_t++] = tm;
        }
        uint32_t idx = series_of(r, &m, &cap_s, csv_field(&t.c, c_p));
        if (n_cells == cap_cells) {
            cap_cells *= 2;
            cells = xrealloc(cells, cap_cells * sizeof(cell), "report cells");
        }
        cells[n_cells++] = (cell){r->n_t - 1, idx, (float)q, (float)u, (uint8_t)mask};
    }
    table_close(&t);
    xfree(m.slot);
    /* wirerate writes every port at every sample instant; a sparse file (many ports, many
     * instants, few rows) would make the dense matrices explode, so it is refused. */
    if (rc == 0 && (uint64_t)r->n_series * r->n_t > 2 * n_cells + 65536) {
        err_set(e, ERR_INVALID, "timeseries.csv", 0, 0,
                "%s/timeseries.csv: %u ports × %u sample instants but only %" PRIu64
                " rows: not the port × time grid wirerate writes",
                r->dir, r->n_series, r->n_t, n_cells);
        rc = -1;
    }
    if (rc < 0) {
        xfree(cells);
        return -1;
    }
    size_t nt = r->n_t ? r->n_t : 1;
    for (uint32_t s = 0; s < r->n_series; s++) {
        series *se = &r->ser[s];
        se->q = xcalloc(nt, sizeof(float), "report q");
        se->util = xcalloc(nt, sizeof(float), "report util");
        se->paused = xcalloc(nt, 1, "report paused");
    }
    uint32_t last = 0;
    for (uint64_t k = 0; k < n_cells; k++) {
        series *se = &r->ser[cells[k].pi];
        se->q[cells[k].ti] = cells[k].q;
        se->util[cells[k].ti] = cells[k].u;
        se->paused[cells[k].ti] = cells[k].x;
        if ((cells[k].q > 0 || cells[k].u > 0.001f || cells[k].x) && cells[k].ti > last)
            last = cells[k].ti;
    }
    for (uint32_t s = 0; s < r->n_series; s++) {
        series *se = &r->ser[s];
        double sum = 0;
        for (uint32_t i = 0; i < r->n_t; i++) {
            if (se->q[i] > se->max_q)
                se->max_q = se->q[i];
            sum += se->util[i];
            se->paused_n += se->paused[i] != 0;
        }
        se->mean_util = r->n_t ? sum / r->n_t : 0;
    }
    r->n_show = last + 2 < r->n_t ? last + 2 : r->n_t;
    xfree(cells);
    r->have_ts = r->n_t > 0 && r->n_series > 0;
    return 0;
}

/* Flow id → slot, open addressing over (id + 1) keys. */
typedef struct u32_map {
    uint64_t *key; /* id + 1; 0 = empty */
    uint32_t *val;
    uint32_t mask, n;
} u32_map;

static uint32_t *u32_slot(u32_map *m, uint32_t id, bool *fresh)
{
    if ((m->n + 1) * 2 > m->mask) {
        u32_map g = {xcalloc((size_t)m->mask * 2 + 2, sizeof(uint64_t), "flow map"),
                     xcalloc((size_t)m->mask * 2 + 2, sizeof(uint32_t), "flow map"),
                     m->mask * 2 + 1, m->n};
        for (uint32_t i = 0; i <= m->mask; i++) {
            if (!m->key[i])
                continue;
            uint64_t h = (m->key[i] * 0x9e3779b97f4a7c15ull) >> 20;
            while (g.key[h & g.mask])
                h++;
            g.key[h & g.mask] = m->key[i];
            g.val[h & g.mask] = m->val[i];
        }
        xfree(m->key);
        xfree(m->val);
        *m = g;
    }
    uint64_t k = (uint64_t)id + 1;
    for (uint64_t h = (k * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
        if (m->key[h & m->mask] == k) {
            *fresh = false;
            return &m->val[h & m->mask];
        }
        if (!m->key[h & m->mask]) {
            m->key[h & m->mask] = k;
            m->n++;
            *fresh = true;
            return &m->val[h & m->mask];
        }
    }
}

static bool u32_has(const u32_map *m, uint32_t id)
{
    uint64_t k = (uint64_t)id + 1;
    for (uint64_t h = (k * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
        if (m->key[h & m->mask] == k)
            return true;
        if (!m->key[h & m->mask])
            return false;
    }
}

typedef struct rate_acc {
    uint32_t flow;
    double sum;
    uint64_t n;
} rate_acc;

static int cmp_acc_mean(const void *a, const void *b)
{
    const rate_acc *x = a, *y = b;
    double mx = x->sum / (double)x->n, my = y->sum / (double)y->n;
    if (mx != my)
        return mx < my ? -1 : 1;
    return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/* One row of dcqcn_rates.csv: 1 with the values, 0 at the end, -1 on error. */
static int rate_row(table *t, const int *c, uint64_t *tm, uint32_t *flow, double *bps)
{
    int rc = table_row(t);
    if (rc <= 0)
        return rc;
    uint64_t fl;
    if (get_u64(t, c[0], "time_ps", true, tm) || get_u64(t, c[1], "flow", true, &fl) ||
        get_num(t, c[2], "rate_bps", 1e16, bps))
        return -1;
    if (fl > UINT32_MAX)
        return table_fail(t, "column 'flow': %" PRIu64 " is above 2^32-1", fl);
    *flow = (uint32_t)fl;
    return 1;
}

/* The flows to draw: with flows.csv, its slowest flows (not completed first, then by FCT) that
 * have rate samples; without (collective and training jobs), the flows with the lowest mean
 * rate — the ones DCQCN held back most. */
static void pick_rate_flows(report *r, rate_acc *acc, uint32_t n_acc, const u32_map *m)
{
    uint32_t np = 0;
    uint64_t pick_rec[RATE_SERIES], key[RATE_SERIES];
    uint32_t pick_flow[RATE_SERIES];
    for (uint64_t i = 0; r->have_flows && i < r->st.n_flows && i <= UINT32_MAX; i++) {
        if (!u32_has(m, (uint32_t)i)) /* no rate samples for this flow */
            continue;
        const flow_record *fr = &r->st.flows[i];
        uint64_t k = fr->end_ps ? fr->end_ps - fr->start_ps : UINT64_MAX;
        uint32_t at = np < RATE_SERIES ? np++ : RATE_SERIES;
        if (at == RATE_SERIES) {
            if (k <= key[RATE_SERIES - 1])
                continue;
            at = RATE_SERIES - 1;
        }
        while (at > 0 && key[at - 1] < k) {
            pick_rec[at] = pick_rec[at - 1];
            pick_flow[at] = pick_flow[at - 1];
            key[at] = key[at - 1];
            at--;
        }
        pick_rec[at] = i;
        pick_flow[at] = (uint32_t)i;
        key[at] = k;
    }
    if (!np) {
        qsort(acc, n_acc, sizeof *acc, cmp_acc_mean);
        for (uint32_t k = 0; k < n_acc && np < RATE_SERIES; k++) {
            pick_flow[np] = acc[k].flow;
            pick_rec[np++] = UINT64_MAX;
        }
    }
    r->n_rflows = np;
    r->rflows = xcalloc(np ? np : 1, sizeof(rate_series), "report rate series");
    for (uint32_t k = 0; k < np; k++) {
        r->rflows[k].flow = pick_flow[k];
        r->rflows[k].flow_rec = pick_rec[k];
    }
}

static int load_rates(report *r, err *e)
{
    table t;
    int o = table_open(&t, r, "dcqcn_rates.csv", e);
    if (o <= 0)
        return o;
    int c[3] = {col(&t, "time_ps"), col(&t, "flow"), col(&t, "rate_bps")};
    if (c[0] < 0 || c[1] < 0 || c[2] < 0) {
        table_fail(&t, "expected time_ps, flow and rate_bps columns in the header");
        table_close(&t);
        return -1;
    }
    /* pass 1: time range, per-flow mean */
    u32_map m = {xcalloc(1024, sizeof(uint64_t), "flow map"),
                 xcalloc(1024, sizeof(uint32_t), "flow map"), 1023, 0};
    uint32_t n_acc = 0, cap_acc = 256;
    rate_acc *acc = xmalloc(cap_acc * sizeof *acc, "rate flows");
    uint64_t tm, prev = 0, rows = 0;
    uint32_t fl;
    double bps;
    int rc;
    while ((rc = rate_row(&t, c, &tm, &fl, &bps)) > 0) {
        if (rows && tm < prev) {
            rc = table_fail(&t, "time_ps goes backwards (%" PRIu64 " after %" PRIu64 ")", tm,
                            prev);
            break;
        }
        if (!rows++)
            r->rt0 = tm;
        prev = tm;
        bool fresh;
        uint32_t *slot = u32_slot(&m, fl, &fresh);
        if (fresh) {
            if (n_acc == cap_acc) {
                cap_acc *= 2;
                acc = xrealloc(acc, cap_acc * sizeof *acc, "rate flows");
            }
            *slot = n_acc;
            acc[n_acc++] = (rate_acc){fl, 0, 0};
        }
        acc[*slot].sum += bps;
        acc[*slot].n++;
    }
    table_close(&t);
    if (rc < 0 || !rows) {
        xfree(m.key);
        xfree(m.val);
        xfree(acc);
        return rc < 0 ? -1 : 0;
    }
    r->rt1 = prev;
    /* The charts end where the activity ends (a timer tail would squeeze them). */
    if (r->have_ts && r->t[r->n_show - 1] < r->rt1 && r->t[r->n_show - 1] > r->rt0)
        r->rt1 = r->t[r->n_show - 1];
    r->n_qps = n_acc;
    pick_rate_flows(r, acc, n_acc, &m);
    for (uint32_t k = 0; k < r->n_rflows; k++)
        for (uint32_t i = 0; i < n_acc; i++)
            if (acc[i].flow == r->rflows[k].flow)
                r->rflows[k].mean_bps = acc[i].sum / (double)acc[i].n;
    xfree(m.key);
    xfree(m.val);
    xfree(acc);
    /* pass 2: decimate into buckets: min and max per bucket keep every dip and peak */
    table_open(&t, r, "dcqcn_rates.csv", e);
    double span = (double)(r->rt1 - r->rt0) + 1;
    while ((rc = rate_row(&t, c, &tm, &fl, &bps)) > 0) {
        if (tm > r->rt1)
            break;
        double pos = (double)(tm - r->rt0) / span * RATE_BUCKETS;
        uint32_t b = pos < RATE_BUCKETS - 1 ? (uint32_t)pos : RATE_BUCKETS - 1;
        for (uint32_t k = 0; k < r->n_rflows; k++) {
            rate_series *rs = &r->rflows[k];
            if (rs->flow != fl)
                continue;
            if (rs->flow_rec != UINT64_MAX) { /* only while the flow is active */
                const flow_record *fr = &r->st.flows[rs->flow_rec];
                if (tm < fr->start_ps || (fr->end_ps && tm > fr->end_ps))
                    continue;
            }
            float v = (float)bps;
            if (!rs->has[b] || v < rs->lo[b])
                rs->lo[b] = v;
            if (!rs->has[b] || v > rs->hi[b])
                rs->hi[b] = v;
            rs->has[b] = 1;
        }
    }
    table_close(&t);
    r->have_rates = true;
    return rc < 0 ? -1 : 0;
}

/* manifest.json: absent is allowed (older releases, hand-made folders: the page says the files
 * could not be checked); present, it must parse and list files. */
static int load_manifest(report *r, err *e)
{
    size_t len;
    char *buf = read_all(r->dir, MANIFEST_NAME, &len, false, e);
    if (!buf) {
        if (e->code)
            return -1;
        note(r, "no manifest.json: the files could not be checked to come from one run");
        return 0;
    }
    size_t off = 0;
    char msg[128];
    r->mdoc = jsonr_parse(buf, len, &off, msg, sizeof msg);
    xfree(buf);
    const jsonr_val *files = r->mdoc ? jsonr_get(jsonr_root(r->mdoc), "files") : NULL;
    if (!r->mdoc || !files || files->type != JR_ARR) {
        err_set(e, ERR_INVALID, MANIFEST_NAME, 0, 0,
                "%s/manifest.json: %s%s", r->dir, r->mdoc ? "no \"files\" array" : msg,
                r->mdoc ? "" : " (malformed JSON)");
        return -1;
    }
    r->manifest_files = files;
    r->have_manifest = true;
    return 0;
}

static double finite_or0(double v)
{
    return isfinite(v) && v >= 0 ? v : 0;
}

static void load_summary(report *r)
{
    const jsonr_val *j = r->root;
    run_stats *st = &r->st;
    st->end_ps = jsonr_u64(j, "sim.end_ps", 0);
    st->events = jsonr_u64(j, "sim.events", 0);
    st->wall_s = finite_or0(jsonr_num(j, "sim.wall_s", 0));
    st->flows_completed = jsonr_u64(j, "flows.completed", 0);
    st->fct_p50_ps = jsonr_u64(j, "flows.fct_ps.p50", 0);
    st->fct_p99_ps = jsonr_u64(j, "flows.fct_ps.p99", 0);
    st->fct_max_ps = jsonr_u64(j, "flows.fct_ps.max", 0);
    st->tx_bytes = jsonr_u64(j, "fabric.tx_bytes", 0);
    st->max_link_utilization = finite_or0(jsonr_num(j, "fabric.max_link_utilization", 0));
    st->ecn_marked = jsonr_u64(j, "fabric.ecn_marked", 0);
    st->pfc_pause_sent = jsonr_u64(j, "fabric.pfc_pause_sent", 0);
    st->pfc_paused_ps = jsonr_u64(j, "fabric.pfc_paused_ps", 0);
    st->pfc_watchdog_events = jsonr_u64(j, "fabric.pfc_watchdog_events", 0);
    static const char *const dk[DROP_REASONS] = {"buffer_full", "link_down", "bit_error",
                                                 "no_route",    "pfc_watchdog", "ttl", "pfc_headroom"};
    for (int d = 0; d < DROP_REASONS; d++) {
        char path[64];
        snprintf(path, sizeof path, "fabric.drops.%s", dk[d]);
        st->drops[d] = jsonr_u64(j, path, 0);
    }
    st->cnp_sent = jsonr_u64(j, "nics.cnp_sent", 0);
    st->cnp_handled = jsonr_u64(j, "nics.cnp_handled", 0);
    st->retransmitted_packets = jsonr_u64(j, "nics.retransmitted_packets", 0);
    st->out_of_sequence = jsonr_u64(j, "nics.out_of_sequence", 0);
    st->rto_events = jsonr_u64(j, "nics.rto_events", 0);
    st->pfc_watchdog_events = jsonr_u64(j, "fabric.pfc_watchdog_events", 0);
    const jsonr_val *d = jsonr_path(j, "sim.deadlock");
    st->deadlock = d && jsonr_get(d, "detected") && jsonr_get(d, "detected")->b;
    st->infiniband = strcmp(jsonr_str(j, "fabric.link_layer", "ethernet"), "infiniband") == 0;
    snprintf(st->deadlock_cycle, sizeof st->deadlock_cycle, "%s",
             jsonr_str(j, "sim.deadlock.cycle", ""));
    const jsonr_val *jobs = jsonr_get(j, "jobs");
    uint32_t nj = jobs && jobs->type == JR_ARR ? (uint32_t)jobs->n : 0;
    st->n_jobs = nj;
    st->jobs = xcalloc(nj ? nj : 1, sizeof(job_result), "report jobs");
    uint32_t i = 0;
    for (const jsonr_val *x = nj ? jobs->child : NULL; x; x = x->next, i++) {
        job_result *jr = &st->jobs[i];
        jr->name = jsonr_str(x, "name", "?");
        jr->start_ps = jsonr_u64(x, "start_ps", 0);
        jr->end_ps = jsonr_u64(x, "end_ps", 0);
        jr->jct_ps = jsonr_u64(x, "jct_ps", 0);
        if (jr->end_ps && jr->end_ps < jr->start_ps)
            jr->end_ps = jr->start_ps; /* hostile input: the bars start at 0 either way */
        const jsonr_val *c = jsonr_get(x, "completed");
        jr->completed = c ? c->b : jr->jct_ps > 0;
        jr->flows = jsonr_u64(x, "flows", 0);
        jr->flows_completed = jsonr_u64(x, "flows_completed", 0);
        const jsonr_val *it = jsonr_get(x, "iterations");
        if (it && it->type == JR_ARR && it->n) {
            jr->n_iterations = (uint32_t)it->n;
            jr->iterations = xcalloc(it->n, sizeof(iter_result), "report iterations");
            uint32_t k = 0;
            for (const jsonr_val *y = it->child; y; y = y->next, k++)
                jr->iterations[k].time_ps = jsonr_u64(y, "time_ps", 0);
        }
    }
}

report *report_load(const char *dir, err *e)
{
    err_clear(e); /* the readers below tell "absent" from "failed" by e->code */
    report *r = xcalloc(1, sizeof *r, "report");
    r->dir = xstrdup(dir, "report dir");
    size_t len;
    if (load_manifest(r, e))
        goto fail;
    char *buf = read_run_file(r, "summary.json", &len, true, e);
    if (!buf) {
        if (!e->code)
            err_set(e, ERR_INVALID, "summary.json", 0, 0,
                    "%s/summary.json: not listed in manifest.json: not this run's summary", dir);
        goto fail;
    }
    size_t off = 0;
    char msg[128];
    r->doc = jsonr_parse(buf, len, &off, msg, sizeof msg);
    xfree(buf);
    if (!r->doc) {
        err_set(e, ERR_INVALID, "summary.json", 0, 0, "%s/summary.json: byte %zu: %s", dir, off,
                msg);
        goto fail;
    }
    r->root = jsonr_root(r->doc);
    if (r->root->type != JR_OBJ || !jsonr_get(r->root, "sim")) {
        err_set(e, ERR_INVALID, "summary.json", 0, 0,
                "%s/summary.json: not a wirerate summary (no \"sim\" object)", dir);
        goto fail;
    }
    load_summary(r);
    if (load_ports(r, e) || load_flows(r, e) || load_timeseries(r, e) || load_rates(r, e))
        goto fail;
    return r;
fail:
    report_free(r);
    return NULL;
}

void report_free(report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->st.n_jobs; i++) {
        xfree(r->st.jobs[i].iterations);
        xfree(r->st.jobs[i].rank_results);
    }
    xfree(r->st.jobs);
    xfree(r->st.ports);
    xfree(r->st.flows);
    for (uint32_t s = 0; s < r->n_series; s++) {
        xfree(r->ser[s].q);
        xfree(r->ser[s].util);
        xfree(r->ser[s].paused);
    }
    xfree(r->ser);
    xfree(r->t);
    xfree(r->rflows);
    jsonr_free(r->doc);
    jsonr_free(r->mdoc);
    xfree(r->dir);
    xfree(r);
}
