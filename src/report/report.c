/*
 * report.c — load a run's output folder and write the self-contained HTML report (report.h).
 *
 * The loader rebuilds a run_stats from summary.json, ports.csv and flows.csv so the report and
 * the terminal summary share one diagnosis (summary_diagnose). Time series are read into dense
 * [port × time] matrices; charts downsample them to a fixed number of columns/points so the
 * file size follows the picture, not the run length.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "jsonr.h"
#include "summary.h"

#define HEAT_COLS 150
#define HEAT_ROWS 40
#define HOT_PORTS 6
#define PFC_PORTS 10
#define SLOW_FLOWS 5
#define MAX_POINTS 1500

typedef struct series {   /* a port's time series */
    char name[48];
    float *q, *util;
    uint8_t *paused;
    double max_q, mean_util;
    uint32_t paused_n;
} series;

struct report {
    char *dir;
    jsonr_doc *doc;
    const jsonr_val *root;
    run_stats st;
    char **job_names;
    bool have_ports, have_flows, have_ts, have_rates;
    uint32_t n_t;
    uint32_t n_show;  /* rows up to the last activity (+1): a trailing idle tail (e.g. a timer
                       * firing long after the last packet) would squeeze every chart */
    sim_time *t;
    uint32_t n_series;
    series *ser;
    /* DCQCN: per flow (first QP seen), rates over rate_t */
    uint32_t n_rt;
    sim_time *rt;
    uint32_t n_rflows;
    uint32_t *rflow_id;
    float *rate; /* [n_rflows][n_rt] */
};

/* ---- files -------------------------------------------------------------------------------- */

static char *read_all(const char *dir, const char *name, size_t *len, bool required, err *e)
{
    size_t pl = strlen(dir) + strlen(name) + 2;
    char *path = xmalloc(pl, "report path");
    snprintf(path, pl, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (required)
            err_set(e, ERR_IO, path, 0, 0, "cannot read %s: %s", name, strerror(errno));
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
        err_set(e, ERR_IO, path, 0, 0, "error reading %s", name);
        xfree(path);
        xfree(buf);
        return NULL;
    }
    xfree(path);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* CSV (RFC 4180 subset: quoted fields without embedded line breaks). Splits `line` in place. */
#define CSV_MAX_FIELDS 40
static int csv_split(char *line, char **fld)
{
    int n = 0;
    char *s = line;
    for (;;) {
        if (n == CSV_MAX_FIELDS)
            return n;
        if (*s == '"') {
            char *o = ++s;
            fld[n++] = o;
            while (*s && !(*s == '"' && s[1] != '"')) {
                if (*s == '"')
                    s++;
                *o++ = *s++;
            }
            if (*s == '"')
                s++;
            char *end = s;
            *o = '\0';
            s = end;
        } else {
            fld[n++] = s;
            while (*s && *s != ',')
                s++;
        }
        if (*s != ',') {
            *s = '\0';
            return n;
        }
        *s++ = '\0';
    }
}

/* Iterate lines of buf (modified); returns the next line or NULL. */
static char *next_line(char **cur)
{
    char *s = *cur;
    if (!s || !*s)
        return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        *cur = nl + 1;
    } else {
        *cur = s + strlen(s);
    }
    size_t l = strlen(s);
    if (l && s[l - 1] == '\r')
        s[l - 1] = '\0';
    return s;
}

static int col(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(hdr[i], name) == 0)
            return i;
    return -1;
}

static uint64_t fu64(char **f, int n, int c) { return c >= 0 && c < n ? strtoull(f[c], NULL, 10) : 0; }
static double fdbl(char **f, int n, int c) { return c >= 0 && c < n ? strtod(f[c], NULL) : 0.0; }

static int bad_csv(err *e, const char *dir, const char *file, uint64_t line, const char *what)
{
    return err_set(e, ERR_INVALID, file, (int)line, 0, "%s/%s:%" PRIu64 ": %s", dir, file, line,
                   what);
}

static const char *const drop_cols[DROP_REASONS] = {
    "drop_buffer_full", "drop_link_down", "drop_bit_error",
    "drop_no_route",    "drop_pfc_watchdog", "drop_ttl", "drop_pfc_headroom",
};

static int load_ports(report *r, err *e)
{
    size_t len;
    char *buf = read_all(r->dir, "ports.csv", &len, false, e);
    if (!buf)
        return 0;
    char *cur = buf, *line, *hdr[CSV_MAX_FIELDS], *f[CSV_MAX_FIELDS];
    line = next_line(&cur);
    int nh = line ? csv_split(line, hdr) : 0;
    int c_port = col(hdr, nh, "port");
    if (c_port < 0) {
        xfree(buf);
        return bad_csv(e, r->dir, "ports.csv", 1, "no 'port' column in the header");
    }
    int c_tx = col(hdr, nh, "tx_bytes"), c_pk = col(hdr, nh, "tx_packets"),
        c_q = col(hdr, nh, "max_queue_bytes"), c_u = col(hdr, nh, "utilization"),
        c_ecn = col(hdr, nh, "ecn_marked"), c_ps = col(hdr, nh, "pfc_pause_sent"),
        c_pp = col(hdr, nh, "pfc_paused_ps"), c_pr = col(hdr, nh, "pfc_pause_rx"),
        c_wd = col(hdr, nh, "pfc_watchdog_events");
    int c_d[DROP_REASONS];
    for (int d = 0; d < DROP_REASONS; d++)
        c_d[d] = col(hdr, nh, drop_cols[d]);
    uint32_t cap = 256;
    r->st.ports = xcalloc(cap, sizeof(port_record), "report ports");
    while ((line = next_line(&cur))) {
        if (!*line)
            continue;
        int n = csv_split(line, f);
        if (r->st.n_ports == cap) {
            cap *= 2;
            r->st.ports = xrealloc(r->st.ports, cap * sizeof(port_record), "report ports");
        }
        port_record *p = &r->st.ports[r->st.n_ports++];
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", c_port < n ? f[c_port] : "");
        p->tx_bytes = fu64(f, n, c_tx);
        p->tx_packets = fu64(f, n, c_pk);
        p->max_queue_bytes = fu64(f, n, c_q);
        p->utilization = fdbl(f, n, c_u);
        p->ecn_marked = fu64(f, n, c_ecn);
        p->pfc_pause_sent = fu64(f, n, c_ps);
        p->pfc_paused_ps = fu64(f, n, c_pp);
        p->pfc_pause_rx = fu64(f, n, c_pr);
        p->wd_events = fu64(f, n, c_wd);
        for (int d = 0; d < DROP_REASONS; d++)
            p->drops[d] = fu64(f, n, c_d[d]);
    }
    r->have_ports = true;
    xfree(buf);
    return 0;
}

static int load_flows(report *r, err *e)
{
    size_t len;
    char *buf = read_all(r->dir, "flows.csv", &len, false, e);
    if (!buf)
        return 0;
    char *cur = buf, *line, *hdr[CSV_MAX_FIELDS], *f[CSV_MAX_FIELDS];
    line = next_line(&cur);
    int nh = line ? csv_split(line, hdr) : 0;
    int c_job = col(hdr, nh, "job"), c_s = col(hdr, nh, "src_host"), c_d = col(hdr, nh, "dst_host"),
        c_sz = col(hdr, nh, "size_bytes"), c_dl = col(hdr, nh, "delivered_bytes"),
        c_st = col(hdr, nh, "start_ps"), c_en = col(hdr, nh, "end_ps");
    if (c_st < 0 || c_en < 0) {
        xfree(buf);
        return bad_csv(e, r->dir, "flows.csv", 1, "expected start_ps and end_ps columns");
    }
    uint64_t cap = 1024;
    r->st.flows = xcalloc(cap, sizeof(flow_record), "report flows");
    while ((line = next_line(&cur))) {
        if (!*line)
            continue;
        int n = csv_split(line, f);
        if (r->st.n_flows == cap) {
            cap *= 2;
            r->st.flows = xrealloc(r->st.flows, cap * sizeof(flow_record), "report flows");
        }
        flow_record *fr = &r->st.flows[r->st.n_flows++];
        memset(fr, 0, sizeof *fr);
        fr->job = UINT32_MAX;
        for (uint32_t j = 0; c_job >= 0 && c_job < n && j < r->st.n_jobs; j++)
            if (strcmp(r->st.jobs[j].name, f[c_job]) == 0) {
                fr->job = j;
                break;
            }
        fr->src_host = (uint32_t)fu64(f, n, c_s);
        fr->dst_host = (uint32_t)fu64(f, n, c_d);
        fr->size_bytes = fu64(f, n, c_sz);
        fr->delivered_bytes = fu64(f, n, c_dl);
        fr->start_ps = fu64(f, n, c_st);
        fr->end_ps = fu64(f, n, c_en);
    }
    r->have_flows = true;
    xfree(buf);
    return 0;
}

/* Port name → series index: open addressing over a power-of-two table. */
typedef struct name_map {
    uint32_t *slot; /* index + 1; 0 = empty */
    uint32_t mask;
} name_map;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int load_timeseries(report *r, err *e)
{
    size_t len;
    char *buf = read_all(r->dir, "timeseries.csv", &len, false, e);
    if (!buf)
        return 0;
    char *cur = buf, *line, *hdr[CSV_MAX_FIELDS], *f[CSV_MAX_FIELDS];
    line = next_line(&cur);
    int nh = line ? csv_split(line, hdr) : 0;
    int c_t = col(hdr, nh, "time_ps"), c_p = col(hdr, nh, "port"), c_q = col(hdr, nh, "queue_bytes"),
        c_u = col(hdr, nh, "utilization"), c_x = col(hdr, nh, "pfc_paused_mask");
    if (c_t < 0 || c_p < 0) {
        xfree(buf);
        return bad_csv(e, r->dir, "timeseries.csv", 1, "expected time_ps and port columns");
    }
    /* pass 1: cells into flat vectors */
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
    uint64_t lineno = 1;
    while ((line = next_line(&cur))) {
        lineno++;
        if (!*line)
            continue;
        int n = csv_split(line, f);
        if (n <= c_t || n <= c_p) {
            xfree(cells);
            xfree(m.slot);
            xfree(buf);
            return bad_csv(e, r->dir, "timeseries.csv", lineno, "missing fields");
        }
        sim_time t = strtoull(f[c_t], NULL, 10);
        if (!r->n_t || r->t[r->n_t - 1] != t) {
            if (r->n_t && t < r->t[r->n_t - 1]) {
                xfree(cells);
                xfree(m.slot);
                xfree(buf);
                return bad_csv(e, r->dir, "timeseries.csv", lineno, "time_ps goes backwards");
            }
            if (r->n_t == cap_t) {
                cap_t *= 2;
                r->t = xrealloc(r->t, cap_t * sizeof(sim_time), "report times");
            }
            r->t[r->n_t++] = t;
        }
        uint64_t h = hash_str(f[c_p]);
        uint32_t idx;
        for (;;) {
            uint32_t s = m.slot[h & m.mask];
            if (!s) {
                if (r->n_series == cap_s) {
                    cap_s *= 2;
                    r->ser = xrealloc(r->ser, cap_s * sizeof(series), "report series");
                }
                idx = r->n_series++;
                memset(&r->ser[idx], 0, sizeof(series));
                snprintf(r->ser[idx].name, sizeof r->ser[idx].name, "%s", f[c_p]);
                m.slot[h & m.mask] = idx + 1;
                if (r->n_series * 2 > m.mask) { /* grow and rehash */
                    uint32_t nm = m.mask * 2 + 1;
                    uint32_t *ns = xcalloc((size_t)nm + 1, sizeof(uint32_t), "report map");
                    for (uint32_t k = 0; k < r->n_series; k++) {
                        uint64_t hk = hash_str(r->ser[k].name);
                        while (ns[hk & nm])
                            hk++;
                        ns[hk & nm] = k + 1;
                    }
                    xfree(m.slot);
                    m.slot = ns;
                    m.mask = nm;
                }
                break;
            }
            if (strcmp(r->ser[s - 1].name, f[c_p]) == 0) {
                idx = s - 1;
                break;
            }
            h++;
        }
        if (n_cells == cap_cells) {
            cap_cells *= 2;
            cells = xrealloc(cells, cap_cells * sizeof(cell), "report cells");
        }
        cell *c = &cells[n_cells++];
        c->ti = r->n_t - 1;
        c->pi = idx;
        c->q = (float)fdbl(f, n, c_q);
        c->u = (float)fdbl(f, n, c_u);
        c->x = (uint8_t)fu64(f, n, c_x);
    }
    /* pass 2: dense matrices */
    for (uint32_t s = 0; s < r->n_series; s++) {
        series *se = &r->ser[s];
        se->q = xcalloc(r->n_t ? r->n_t : 1, sizeof(float), "report q");
        se->util = xcalloc(r->n_t ? r->n_t : 1, sizeof(float), "report util");
        se->paused = xcalloc(r->n_t ? r->n_t : 1, 1, "report paused");
    }
    for (uint64_t k = 0; k < n_cells; k++) {
        series *se = &r->ser[cells[k].pi];
        se->q[cells[k].ti] = cells[k].q;
        se->util[cells[k].ti] = cells[k].u;
        se->paused[cells[k].ti] = cells[k].x;
    }
    for (uint32_t s = 0; s < r->n_series; s++) {
        series *se = &r->ser[s];
        double sum = 0;
        for (uint32_t t = 0; t < r->n_t; t++) {
            if (se->q[t] > se->max_q)
                se->max_q = se->q[t];
            sum += se->util[t];
            se->paused_n += se->paused[t] != 0;
        }
        se->mean_util = r->n_t ? sum / r->n_t : 0;
    }
    uint32_t last = 0;
    for (uint64_t k = 0; k < n_cells; k++)
        if ((cells[k].q > 0 || cells[k].u > 0.001f || cells[k].x) && cells[k].ti > last)
            last = cells[k].ti;
    r->n_show = last + 2 < r->n_t ? last + 2 : r->n_t;
    xfree(cells);
    xfree(m.slot);
    xfree(buf);
    r->have_ts = r->n_t > 0 && r->n_series > 0;
    return 0;
}

static int load_rates(report *r, err *e)
{
    size_t len;
    char *buf = read_all(r->dir, "dcqcn_rates.csv", &len, false, e);
    if (!buf)
        return 0;
    char *cur = buf, *line, *hdr[CSV_MAX_FIELDS], *f[CSV_MAX_FIELDS];
    line = next_line(&cur);
    int nh = line ? csv_split(line, hdr) : 0;
    int c_t = col(hdr, nh, "time_ps"), c_f = col(hdr, nh, "flow"), c_r = col(hdr, nh, "rate_bps");
    if (c_t < 0 || c_f < 0 || c_r < 0 || !r->have_flows) {
        xfree(buf);
        return 0;
    }
    /* the slowest flows: incomplete first, then by FCT */
    uint32_t pick[SLOW_FLOWS];
    uint64_t key[SLOW_FLOWS];
    uint32_t np = 0;
    for (uint64_t i = 0; i < r->st.n_flows && i < UINT32_MAX; i++) {
        const flow_record *fr = &r->st.flows[i];
        uint64_t k = fr->end_ps ? fr->end_ps - fr->start_ps : UINT64_MAX;
        uint32_t at = np < SLOW_FLOWS ? np++ : SLOW_FLOWS;
        if (at == SLOW_FLOWS) {
            if (k <= key[SLOW_FLOWS - 1])
                continue;
            at = SLOW_FLOWS - 1;
        }
        while (at > 0 && key[at - 1] < k) {
            pick[at] = pick[at - 1];
            key[at] = key[at - 1];
            at--;
        }
        pick[at] = (uint32_t)i;
        key[at] = k;
    }
    r->n_rflows = np;
    r->rflow_id = xmalloc((np ? np : 1) * sizeof(uint32_t), "report rate flows");
    memcpy(r->rflow_id, pick, np * sizeof(uint32_t));
    uint32_t cap_t = 256;
    r->rt = xmalloc(cap_t * sizeof(sim_time), "report rate times");
    float *vals = xmalloc((size_t)cap_t * (np ? np : 1) * sizeof(float), "report rates");
    uint8_t *got = xcalloc((size_t)cap_t * (np ? np : 1), 1, "report rates seen");
    while ((line = next_line(&cur))) {
        if (!*line)
            continue;
        int n = csv_split(line, f);
        if (n <= c_r)
            continue;
        sim_time t = strtoull(f[c_t], NULL, 10);
        if (!r->n_rt || r->rt[r->n_rt - 1] != t) {
            if (r->n_rt == cap_t) {
                cap_t *= 2;
                r->rt = xrealloc(r->rt, cap_t * sizeof(sim_time), "report rate times");
                vals = xrealloc(vals, (size_t)cap_t * (np ? np : 1) * sizeof(float),
                                "report rates");
                got = xrealloc(got, (size_t)cap_t * (np ? np : 1), "report rates seen");
                memset(got + (size_t)(cap_t / 2) * np, 0, (size_t)(cap_t / 2) * np);
            }
            r->rt[r->n_rt++] = t;
        }
        uint32_t fl = (uint32_t)strtoul(f[c_f], NULL, 10);
        for (uint32_t k = 0; k < np; k++)
            if (pick[k] == fl) {
                size_t c = (size_t)(r->n_rt - 1) * np + k;
                if (!got[c]) { /* first QP of the flow */
                    vals[c] = (float)strtod(f[c_r], NULL);
                    got[c] = 1;
                }
            }
    }
    /* transpose to [flow][time] */
    r->rate = xcalloc((size_t)(np ? np : 1) * (r->n_rt ? r->n_rt : 1), sizeof(float),
                      "report rate series");
    for (uint32_t t = 0; t < r->n_rt; t++)
        for (uint32_t k = 0; k < np; k++)
            r->rate[(size_t)k * r->n_rt + t] = got[(size_t)t * np + k] ? vals[(size_t)t * np + k] : 0;
    xfree(vals);
    xfree(got);
    xfree(buf);
    r->have_rates = np > 0 && r->n_rt > 0;
    return 0;
}

static void load_summary(report *r)
{
    const jsonr_val *j = r->root;
    run_stats *st = &r->st;
    st->end_ps = jsonr_u64(j, "sim.end_ps", 0);
    st->events = jsonr_u64(j, "sim.events", 0);
    st->wall_s = jsonr_num(j, "sim.wall_s", 0);
    st->flows_completed = jsonr_u64(j, "flows.completed", 0);
    st->fct_p50_ps = jsonr_u64(j, "flows.fct_ps.p50", 0);
    st->fct_p99_ps = jsonr_u64(j, "flows.fct_ps.p99", 0);
    st->fct_max_ps = jsonr_u64(j, "flows.fct_ps.max", 0);
    st->tx_bytes = jsonr_u64(j, "fabric.tx_bytes", 0);
    st->max_link_utilization = jsonr_num(j, "fabric.max_link_utilization", 0);
    st->ecn_marked = jsonr_u64(j, "fabric.ecn_marked", 0);
    st->pfc_pause_sent = jsonr_u64(j, "fabric.pfc_pause_sent", 0);
    st->pfc_paused_ps = jsonr_u64(j, "fabric.pfc_paused_ps", 0);
    st->pfc_watchdog_events = jsonr_u64(j, "fabric.pfc_watchdog_events", 0);
    static const char *const dk[DROP_REASONS] = {"buffer_full", "link_down", "bit_error",
                                                 "no_route",    "pfc_watchdog", "ttl",
                                                 "pfc_headroom"};
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
    report *r = xcalloc(1, sizeof *r, "report");
    r->dir = xstrdup(dir, "report dir");
    size_t len;
    char *buf = read_all(dir, "summary.json", &len, true, e);
    if (!buf)
        goto fail;
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
    for (uint32_t i = 0; i < r->st.n_jobs; i++)
        xfree(r->st.jobs[i].iterations);
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
    xfree(r->rt);
    xfree(r->rflow_id);
    xfree(r->rate);
    jsonr_free(r->doc);
    xfree(r->dir);
    xfree(r);
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
    double y = c->mt + 10 + (i / 3) * 14;
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
        fprintf(f, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">", c.ml - 6, y + 13);
        html_esc(f, jr->name);
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
        fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%s%s</text>", cx(&c, end) + 4,
                y + 13, jr->completed ? summary_fmt_time(jt, sizeof jt, jr->jct_ps) : "not done",
                "");
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

static void heat_color(double u, char *out, size_t len)
{
    static const double stops[][4] = {{0.0, 240, 244, 248},  {0.25, 158, 202, 225},
                                      {0.5, 66, 146, 198},   {0.75, 8, 81, 156},
                                      {0.9, 253, 141, 60},   {1.0, 215, 48, 31}};
    if (u < 0)
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

static const report *sort_rep;
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
        sort_rep = r;
        qsort(idx, n, sizeof idx[0], cmp_util_desc);
        if (n > HEAT_ROWS)
            n = HEAT_ROWS;
        double rh = n > 24 ? 8 : 14;
        chart c = {0};
        c.ml = 130;
        c.mt = 30;
        c.mb = 34;
        char id[64], title[160];
        snprintf(id, sizeof id, "chart-heat-%d", g);
        if (total > n)
            text_printf(title, sizeof title, "Link utilization, %s ports (%u busiest of %u)",
                        groups[g], n, total);
        else
            text_printf(title, sizeof title, "Link utilization, %s ports (%u)", groups[g], n);
        chart_open(f, &c, id, 880, c.mt + c.mb + rh * n + 4, title);
        c.x0 = 0;
        c.x1 = (double)r->t[r->n_show - 1];
        c.y0 = 0;
        c.y1 = 1;
        double cw = (c.W - c.ml - c.mr) / cols;
        for (uint32_t k = 0; k < n; k++) {
            const series *se = &r->ser[idx[k]];
            double y = c.mt + k * rh;
            if (rh >= 8) {
                fprintf(f, "<text class=\"hl\" x=\"%.1f\" y=\"%.1f\">", c.ml - 4, y + rh - 1.5);
                html_esc(f, se->name);
                fputs("</text>", f);
            }
            /* column b spans time [b, b+1)·T/cols: mean of the rows ending in it, else the
             * row that covers it (rows may be longer than a column after decimation) */
            uint32_t j = 0;
            for (uint32_t b = 0; b < cols; b++) {
                double lo = c.x1 * b / cols, hi = c.x1 * (b + 1) / cols;
                double sum = 0;
                uint32_t cnt = 0;
                while (j < r->n_show && (double)r->t[j] <= lo)
                    j++;
                for (uint32_t m = j; m < r->n_show && (double)r->t[m] <= hi; m++) {
                    sum += se->util[m];
                    cnt++;
                }
                double v = cnt ? sum / cnt : j < r->n_show ? se->util[j] : 0;
                if (v < 0.005)
                    continue;
                char col_[40];
                heat_color(v, col_, sizeof col_);
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                           "fill=\"%s\"/>",
                        c.ml + b * cw, y, cw + 0.3, rh - 1, col_);
            }
        }
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
            html_esc(f, se->name);
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
        missing(f, "chart-fct", "FCT CDF", "no flow completed");
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
        double x = (double)v[(rank ? rank : 1) - 1];
        char b[32];
        fprintf(f, "<line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
                cx(&c, x), cx(&c, x), cy(&c, 0), cy(&c, 1));
        fprintf(f, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">p%g %s</text>", cx(&c, x) + 3,
                cy(&c, qs[k]) + 12, qs[k] * 100, summary_fmt_time(b, sizeof b, (sim_time)x));
    }
    chart_close(&c, "Completed flows only; start to the last byte at the receiver.");
    xfree(v);
}

static void chart_dcqcn(FILE *f, const report *r)
{
    if (!r->have_rates) {
        missing(f, "chart-dcqcn", "DCQCN rate of the slowest flows",
                "no dcqcn_rates.csv (needs the transport's rate series)");
        return;
    }
    uint32_t n_rt = r->n_rt;
    if (r->have_ts)
        while (n_rt > 1 && r->rt[n_rt - 1] > r->t[r->n_show - 1])
            n_rt--;
    tunit u = time_unit((double)r->rt[n_rt - 1]);
    double mx = 0;
    for (size_t i = 0; i < (size_t)r->n_rflows * r->n_rt; i++)
        mx = r->rate[i] > mx ? r->rate[i] : mx;
    chart c = {0};
    c.mt = 30 + 14 * ((r->n_rflows + 2) / 3);
    chart_open(f, &c, "chart-dcqcn", 880, 300 + c.mt - 30,
               "DCQCN pacing rate of the slowest flows (first QP)");
    c.x0 = 0;
    c.x1 = (double)r->rt[n_rt - 1];
    c.y0 = 0;
    c.y1 = mx > 0 ? mx * 1.05 / 1e9 : 1;
    chart_axes(&c, u.div, u.name, "rate (Gbps)");
    uint32_t step = n_rt > MAX_POINTS ? n_rt / MAX_POINTS + 1 : 1;
    for (uint32_t k = 0; k < r->n_rflows; k++) {
        const flow_record *fr = &r->st.flows[r->rflow_id[k]];
        fprintf(f, "<polyline class=\"line\" stroke=\"%s\" points=\"", palette[k % 8]);
        for (uint32_t t = 0; t < n_rt; t += step) {
            if (r->rt[t] < fr->start_ps || (fr->end_ps && r->rt[t] > fr->end_ps + (n_rt > 1 ? r->rt[1] - r->rt[0] : 0)))
                continue;
            fprintf(f, "%.1f,%.1f ", cx(&c, (double)r->rt[t]),
                    cy(&c, r->rate[(size_t)k * r->n_rt + t] / 1e9));
        }
        fputs("\"/>", f);
        char name[64], b[32];
        snprintf(name, sizeof name, "flow %u h%u→h%u (%s)", r->rflow_id[k], fr->src_host,
                 fr->dst_host,
                 fr->end_ps ? summary_fmt_time(b, sizeof b, fr->end_ps - fr->start_ps)
                            : "not done");
        legend(&c, (int)k, name);
    }
    chart_close(&c, "While each flow is active; samples are means over the interval after "
                    "decimation.");
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
    ".card span{color:#666;font-size:12px}"
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
    "#eee;padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
    "@media print{body{max-width:none}}";

static void card(FILE *f, const char *value, const char *label)
{
    fputs("<div class=\"card\"><b>", f);
    html_esc(f, value);
    fputs("</b><span>", f);
    html_esc(f, label);
    fputs("</span></div>", f);
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
            st->deadlock ? " · stopped by a PFC deadlock" : "");

    fputs("<div class=\"cards\" id=\"headline\">", f);
    snprintf(a, sizeof a, "%" PRIu64 " / %" PRIu64, st->flows_completed,
             jsonr_u64(r->root, "flows.count", 0));
    card(f, a, "flows completed");
    card(f, summary_fmt_time(a, sizeof a, st->fct_p50_ps), "FCT p50");
    card(f, summary_fmt_time(a, sizeof a, st->fct_p99_ps), "FCT p99");
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

    char diag[4][SUMMARY_DIAG_LEN];
    int nd = r->have_ports ? summary_diagnose(st, diag, 4) : 0;
    fputs("<div id=\"diagnosis\">", f);
    if (st->deadlock) {
        fputs("<div class=\"diag\">PFC deadlock: ", f);
        html_esc(f, st->deadlock_cycle);
        fputs("</div>", f);
    }
    for (int i = 0; i < nd; i++) {
        fputs("<div class=\"diag\">", f);
        html_esc(f, diag[i]);
        fputs("</div>", f);
    }
    if (!nd && !st->deadlock)
        fputs("<div class=\"ok\">No congestion pattern stood out (incast, ECMP collision, PFC "
              "storm).</div>",
              f);
    fputs("</div>\n", f);

    fputs("<h2>Jobs</h2>\n", f);
    chart_jct(f, r);
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
            "summary.json, ports.csv, flows.csv, timeseries.csv",
            st->wall_s > 0 ? (snprintf(b, sizeof b, "%.2f s", st->wall_s), b) : "?");
    fputs("</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}
