/*
 * import_htsim.c — htsim .topo + .cm -> a wirerate scenario (see import_htsim.h for the formats,
 * the mapping and its sources).
 */
#define _POSIX_C_SOURCE 200809L

#include "import_htsim.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "units.h"

#define MAX_TOKENS 32
#define MAX_FILE (64u << 20) /* an 8192-node permutation is ~0.3 MB; a .cm of 64 MB is a mistake   \
                              */

/* One line cut into tokens, each with its 1-based column. */
typedef struct line {
    const char *file;
    int no;
    uint32_t n;
    char *tok[MAX_TOKENS];
    int col[MAX_TOKENS];
} line;

static int fail(err *e, const line *l, uint32_t t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(err *e, const line *l, uint32_t t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = err_setv(e, ERR_INVALID, l->file, l->no, t < l->n ? l->col[t] : 1, fmt, ap);
    va_end(ap);
    return rc;
}

static char *slurp(const char *path, size_t *len, err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(e, ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 14, n = 0, got;
    char *b = xmalloc(cap + 1, "htsim file");
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= MAX_FILE) {
                fclose(f);
                xfree(b);
                err_set(e, ERR_INVALID, path, 0, 0, "larger than 64 MiB; the right file?");
                return NULL;
            }
            cap *= 2;
            b = xrealloc(b, cap + 1, "htsim file");
        }
    }
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}

/* Cut the next line of *p (modified in place) into l; false at the end of the buffer. A token
 * starting with '#' ends the line (a comment). */
static bool next_line(char **p, line *l, err *e, int *rc)
{
    if (!**p)
        return false;
    char *s = *p, *end = strchr(s, '\n');
    if (end) {
        *end = '\0';
        *p = end + 1;
    } else {
        *p = s + strlen(s);
    }
    l->no++;
    l->n = 0;
    for (char *c = s; *c;) {
        while (*c == ' ' || *c == '\t' || *c == '\r')
            *c++ = '\0';
        if (!*c || *c == '#')
            break;
        if (l->n == MAX_TOKENS) {
            *rc = fail(e, l, MAX_TOKENS - 1, "more than %d words on one line", MAX_TOKENS);
            return false;
        }
        l->tok[l->n] = c;
        l->col[l->n++] = (int)(c - s) + 1;
        while (*c && *c != ' ' && *c != '\t' && *c != '\r')
            c++;
    }
    return true;
}

static bool ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* Token t of l as an unsigned integer in [lo, hi]. */
static int get_uint(err *e, const line *l, uint32_t t, const char *what, uint64_t lo, uint64_t hi,
                    uint64_t *out)
{
    if (t >= l->n)
        return fail(e, l, t, "%s: missing its value", what);
    const char *s = l->tok[t];
    char *end;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
    if (!isdigit((unsigned char)s[0]) || *end || errno || v < lo || v > hi)
        return fail(e, l, t, "%s: expected a whole number %" PRIu64 "..%" PRIu64 ", got \"%s\"",
                    what, lo, hi, s);
    *out = v;
    return ERR_OK;
}

/* ---- topology ---------------------------------------------------------------------------- */

typedef struct topo_cfg {
    uint64_t nodes, tiers, podsize;
    uint64_t speed_gbps[3], radix_down[3], radix_up[3], oversub[3], bundle[3];
    uint64_t link_ns[3], switch_ns[3];
    bool have_link_ns[3], have_switch_ns[3], queues;
    line where[3];       /* each tier's "Tier k" line, for errors */
    line switch_line[3]; /* where each tier's Switch_Latency_ns was */
    line header;         /* the Nodes line */
    /* derived */
    uint64_t pods, tors_per_pod, aggs_per_pod, ntor, nagg, ncore;
} topo_cfg;

static int topo_read(const char *path, topo_cfg *c, err *e)
{
    size_t len;
    char *buf = slurp(path, &len, e);
    if (!buf)
        return e->code;
    memset(c, 0, sizeof *c);
    for (int k = 0; k < 3; k++)
        c->oversub[k] = c->bundle[k] = 1;
    line l = {.file = path};
    char *p = buf;
    int rc = ERR_OK, tier = -1;
    bool seen[3] = {false, false, false};
    while (!rc && next_line(&p, &l, e, &rc)) {
        if (!l.n)
            continue;
        const char *k = l.tok[0];
        uint64_t v = 0;
        if (ieq(k, "Nodes")) {
            rc = get_uint(e, &l, 1, "Nodes", 1, 16777216, &c->nodes);
            c->header = l;
        } else if (ieq(k, "Tiers")) {
            rc = get_uint(e, &l, 1, "Tiers", 2, 3, &c->tiers);
        } else if (ieq(k, "Podsize")) {
            rc = get_uint(e, &l, 1, "Podsize", 1, 16777216, &c->podsize);
        } else if (ieq(k, "Tier")) {
            rc = get_uint(e, &l, 1, "Tier", 0, 2, &v);
            tier = (int)v;
            if (!rc && seen[tier])
                rc = fail(e, &l, 1, "Tier %d is described twice", tier);
            seen[tier] = true;
            c->where[tier] = l;
        } else if (tier < 0) {
            rc = fail(e, &l, 0,
                      "\"%s\" before the first \"Tier\" line (the header has Nodes, "
                      "Tiers, Podsize)",
                      k);
        } else if (ieq(k, "Downlink_speed_Gbps")) {
            rc = get_uint(e, &l, 1, k, 1, 1000000, &c->speed_gbps[tier]);
        } else if (ieq(k, "Radix_Down")) {
            rc = get_uint(e, &l, 1, k, 1, 65536, &c->radix_down[tier]);
        } else if (ieq(k, "Radix_Up")) {
            rc = tier == 2 ? fail(e, &l, 0, "Radix_Up: tier 2 is the top tier, it has no uplinks")
                           : get_uint(e, &l, 1, k, 1, 65536, &c->radix_up[tier]);
        } else if (ieq(k, "Oversubscribed")) {
            rc = get_uint(e, &l, 1, k, 1, 65536, &c->oversub[tier]);
        } else if (ieq(k, "Bundle")) {
            rc = get_uint(e, &l, 1, k, 1, 65536, &c->bundle[tier]);
        } else if (ieq(k, "Downlink_Latency_ns")) {
            rc = get_uint(e, &l, 1, k, 0, 4611686000000000ull, &c->link_ns[tier]);
            c->have_link_ns[tier] = true;
        } else if (ieq(k, "Switch_Latency_ns")) {
            rc = get_uint(e, &l, 1, k, 0, 4611686000000000ull, &c->switch_ns[tier]);
            c->have_switch_ns[tier] = true;
            c->switch_line[tier] = l;
        } else if (ieq(k, "Queue_Up") || ieq(k, "Queue_Down")) {
            rc = get_uint(e, &l, 1, k, 0, UINT64_MAX, &v);
            c->queues = true;
        } else {
            rc = fail(e, &l, 0,
                      "unknown attribute \"%s\" (htsim's are Tier, Downlink_speed_Gbps, "
                      "Radix_Up, Radix_Down, Queue_Up, Queue_Down, Oversubscribed, Bundle, "
                      "Switch_Latency_ns, Downlink_Latency_ns)",
                      k);
        }
    }
    line top = {.file = path, .no = 1};
    if (!rc && (!c->nodes || !c->tiers || !c->podsize))
        rc = fail(e, &top, 0, "the header needs Nodes, Tiers and Podsize");
    for (uint32_t t = 0; !rc && t < c->tiers; t++)
        if (!seen[t])
            rc = fail(e, &top, 0, "no \"Tier %u\" block (Tiers is %" PRIu64 ")", t, c->tiers);
    xfree(buf);
    return rc;
}

/* htsim's switch counts (import_htsim.h); every mismatch htsim refuses is refused here. */
static int topo_derive(const char *path, topo_cfg *c, err *e)
{
    const line *h = &c->header, *w = c->where;
    (void)path;
    for (uint32_t t = 0; t < c->tiers; t++) {
        if (!c->speed_gbps[t])
            return fail(e, &w[t], 0, "Tier %u: Downlink_speed_Gbps is missing", t);
        if (!c->radix_down[t])
            return fail(e, &w[t], 0, "Tier %u: Radix_Down is missing", t);
        if (t + 1 < c->tiers && !c->radix_up[t])
            return fail(e, &w[t], 0, "Tier %u: Radix_Up is missing", t);
        if (c->radix_down[t] % c->bundle[t])
            return fail(e, &w[t], 0,
                        "Tier %u: Radix_Down %" PRIu64 " is not a multiple of Bundle %" PRIu64, t,
                        c->radix_down[t], c->bundle[t]);
        if (t + 1 < c->tiers && c->radix_up[t] % c->bundle[t + 1])
            return fail(e, &w[t], 0,
                        "Tier %u: Radix_Up %" PRIu64
                        " is not a multiple of tier %u's Bundle %" PRIu64,
                        t, c->radix_up[t], t + 1, c->bundle[t + 1]);
    }
    if (c->bundle[0] != 1)
        return fail(e, &w[0], 0, "Tier 0: Bundle must be 1 (one link per host)");
    if (c->nodes % c->podsize)
        return fail(e, h, 0, "Nodes %" PRIu64 " is not a multiple of Podsize %" PRIu64, c->nodes,
                    c->podsize);
    c->pods = c->nodes / c->podsize;
    if (c->tiers == 2 && c->pods != 1)
        return fail(e, h, 0, "a 2-tier fat tree is one pod: Podsize must equal Nodes (%" PRIu64 ")",
                    c->nodes);
    if (c->podsize % c->radix_down[0])
        return fail(e, &w[0], 0,
                    "Tier 0: Podsize %" PRIu64 " is not a multiple of Radix_Down %" PRIu64,
                    c->podsize, c->radix_down[0]);
    c->tors_per_pod = c->podsize / c->radix_down[0];
    uint64_t num = c->nodes * c->speed_gbps[0], den = c->speed_gbps[1] * c->oversub[0];
    if (num % den)
        return fail(e, &w[0], 0,
                    "Tier 0: %" PRIu64 " hosts at %" PRIu64 "G with oversubscription %" PRIu64
                    " do not make a whole number of %" PRIu64 "G uplinks",
                    c->nodes, c->speed_gbps[0], c->oversub[0], c->speed_gbps[1]);
    uint64_t tor_up = num / den;
    if (c->radix_down[0] / c->radix_up[0] != c->oversub[0])
        return fail(e, &w[0], 0,
                    "Tier 0: Radix_Down %" PRIu64 " / Radix_Up %" PRIu64
                    " does not match Oversubscribed %" PRIu64,
                    c->radix_down[0], c->radix_up[0], c->oversub[0]);
    if (tor_up % (c->pods * c->radix_down[1]))
        return fail(e, &w[1], 0,
                    "Tier 1: %" PRIu64 " ToR uplinks in %" PRIu64
                    " pods do not fill aggregation switches of Radix_Down %" PRIu64,
                    tor_up, c->pods, c->radix_down[1]);
    c->aggs_per_pod = tor_up / (c->pods * c->radix_down[1]);
    if (c->aggs_per_pod * c->bundle[1] != c->radix_up[0])
        return fail(e, &w[0], 0,
                    "Tier 0: Radix_Up %" PRIu64 " does not match %" PRIu64
                    " aggregation switches per pod with tier 1's Bundle %" PRIu64,
                    c->radix_up[0], c->aggs_per_pod, c->bundle[1]);
    c->ntor = c->tors_per_pod * c->pods;
    c->nagg = c->aggs_per_pod * c->pods;
    if (c->tiers == 3) {
        num = tor_up * c->speed_gbps[1];
        den = c->speed_gbps[2] * c->oversub[1];
        if (num % den)
            return fail(e, &w[1], 0,
                        "Tier 1: the ToR uplinks with oversubscription %" PRIu64
                        " do not make a whole number of %" PRIu64 "G core links",
                        c->oversub[1], c->speed_gbps[2]);
        uint64_t agg_up = num / den;
        if (agg_up % c->radix_down[2])
            return fail(e, &w[2], 0,
                        "Tier 2: %" PRIu64 " aggregation uplinks do not fill core switches of "
                        "Radix_Down %" PRIu64,
                        agg_up, c->radix_down[2]);
        c->ncore = agg_up / c->radix_down[2];
        if (c->ncore % c->aggs_per_pod)
            return fail(e, &w[2], 0,
                        "Tier 2: %" PRIu64 " core switches are not a multiple of the %" PRIu64
                        " aggregation switches per pod",
                        c->ncore, c->aggs_per_pod);
        if (c->ncore * c->bundle[2] / c->aggs_per_pod != c->radix_up[1])
            return fail(e, &w[1], 0,
                        "Tier 1: Radix_Up %" PRIu64 " does not match %" PRIu64
                        " core switches over %" PRIu64 " aggregation switches per pod with "
                        "tier 2's Bundle %" PRIu64,
                        c->radix_up[1], c->ncore, c->aggs_per_pod, c->bundle[2]);
    }
    /* one switch latency for the fabric */
    int first = -1;
    for (uint32_t t = 0; t < c->tiers; t++) {
        if (!c->have_switch_ns[t])
            continue;
        if (first < 0)
            first = (int)t;
        else if (c->switch_ns[t] != c->switch_ns[first])
            return fail(e, &c->switch_line[t], 1,
                        "Switch_Latency_ns %" PRIu64 " differs from tier %d's %" PRIu64
                        ": wirerate has one switch latency for the fabric",
                        c->switch_ns[t], first, c->switch_ns[first]);
    }
    for (uint32_t t = 0; first >= 0 && t < c->tiers; t++)
        if (!c->have_switch_ns[t] && c->switch_ns[first])
            return fail(e, &w[t], 0,
                        "Tier %u has no Switch_Latency_ns (htsim: 0) while tier %d has %" PRIu64
                        ": wirerate has one switch latency for the fabric",
                        t, first, c->switch_ns[first]);
    return ERR_OK;
}

/* ---- connection matrix ------------------------------------------------------------------- */

enum trig_kind { TRIG_NONE, TRIG_ONESHOT, TRIG_BARRIER, TRIG_MULTISHOT };

typedef struct cm_flow {
    uint32_t src, dst;
    uint64_t id; /* 0: none given */
    uint64_t size;
    char start[40]; /* as written (microseconds), "" when triggered */
    uint64_t trigger, send_done, recv_done;
    line at; /* for errors: its tokens point into the buffer, which lives until the end */
} cm_flow;

typedef struct cm_trig {
    uint64_t id;
    enum trig_kind kind;
    uint64_t count;
    line at;
    uint32_t n_act; /* flows that activate it */
} cm_trig;

typedef struct cm {
    uint64_t nodes, conns, trigs;
    line conns_line, trigs_line;
    cm_flow *flows;
    uint32_t n_flows;
    cm_trig *trigs_v;
    uint32_t n_trigs;
    bool prio;
    char *buf;
} cm;

static cm_trig *trig_find(cm *m, uint64_t id)
{
    for (uint32_t i = 0; i < m->n_trigs; i++)
        if (m->trigs_v[i].id == id)
            return &m->trigs_v[i];
    return NULL;
}

static int cm_flow_line(cm *m, const line *l, uint32_t nodes, err *e)
{
    cm_flow *f = &m->flows[m->n_flows];
    memset(f, 0, sizeof *f);
    f->at = *l;
    char *arrow = strstr(l->tok[0], "->");
    char *end;
    unsigned long a = strtoul(l->tok[0], &end, 10), b;
    if (!arrow || end != arrow || !isdigit((unsigned char)l->tok[0][0]) ||
        !isdigit((unsigned char)arrow[2]) || (b = strtoul(arrow + 2, &end, 10), *end))
        return fail(e, l, 0, "expected a flow as SRC->DST (e.g. 3->7), got \"%s\"", l->tok[0]);
    if (a >= nodes || b >= nodes)
        return fail(e, l, 0, "node %lu does not exist: the topology has %u nodes (0..%u)",
                    a >= nodes ? a : b, nodes, nodes - 1);
    if (a == b)
        return fail(e, l, 0, "a flow from node %lu to itself", a);
    f->src = (uint32_t)a;
    f->dst = (uint32_t)b;
    bool have_size = false, have_start = false;
    for (uint32_t t = 1; t < l->n; t++) {
        const char *k = l->tok[t];
        int rc = ERR_OK;
        if (!strcmp(k, "start")) {
            if (t + 1 >= l->n)
                return fail(e, l, t, "start: missing its value (microseconds)");
            char us[48], why[200];
            uint64_t ps;
            snprintf(us, sizeof us, "%sus", l->tok[t + 1]);
            if (strlen(l->tok[t + 1]) >= sizeof f->start || !units_time(us, &ps, why, sizeof why))
                return fail(e, l, t + 1, "start: expected microseconds like 0 or 12.5, got \"%s\"",
                            l->tok[t + 1]);
            snprintf(f->start, sizeof f->start, "%s", l->tok[++t]);
            have_start = true;
        } else if (!strcmp(k, "size")) {
            rc = get_uint(e, l, ++t, "size", 1, UINT64_MAX / 2, &f->size);
            have_size = true;
        } else if (!strcmp(k, "id")) {
            rc = get_uint(e, l, ++t, "id", 1, UINT32_MAX, &f->id);
        } else if (!strcmp(k, "trigger")) {
            rc = get_uint(e, l, ++t, "trigger", 1, UINT32_MAX, &f->trigger);
        } else if (!strcmp(k, "send_done_trigger")) {
            rc = get_uint(e, l, ++t, "send_done_trigger", 1, UINT32_MAX, &f->send_done);
        } else if (!strcmp(k, "recv_done_trigger")) {
            rc = get_uint(e, l, ++t, "recv_done_trigger", 1, UINT32_MAX, &f->recv_done);
        } else if (!strcmp(k, "prio")) {
            uint64_t v;
            rc = get_uint(e, l, ++t, "prio", 0, UINT32_MAX, &v);
            m->prio = true;
        } else if (!strcmp(k, "msg")) {
            return fail(e, l, t,
                        "msg (several messages on one reused connection) is not imported: a "
                        "wirerate list flow is its own connection");
        } else {
            return fail(e, l, t,
                        "unknown word \"%s\" (a flow takes id, start, trigger, size, "
                        "send_done_trigger, recv_done_trigger, prio)",
                        k);
        }
        if (rc)
            return rc;
    }
    if (!have_size)
        return fail(e, l, 0, "the flow has no size");
    if (have_start && f->trigger)
        return fail(e, l, 0, "the flow has both a start time and a trigger");
    if (!have_start && !f->trigger)
        return fail(e, l, 0, "the flow has neither a start time nor a trigger");
    if (f->send_done && f->recv_done)
        return fail(e, l, 0,
                    "the flow has both send_done_trigger and recv_done_trigger; wirerate "
                    "completes a flow once");
    m->n_flows++;
    return ERR_OK;
}

static int cm_trig_line(cm *m, const line *l, err *e)
{
    cm_trig *t = &m->trigs_v[m->n_trigs];
    memset(t, 0, sizeof *t);
    t->at = *l;
    for (uint32_t i = 1; i < l->n; i++) {
        const char *k = l->tok[i];
        int rc = ERR_OK;
        enum trig_kind kind = TRIG_NONE;
        if (!strcmp(k, "id"))
            rc = get_uint(e, l, ++i, "id", 1, UINT32_MAX, &t->id);
        else if (!strcmp(k, "count"))
            rc = get_uint(e, l, ++i, "count", 1, UINT32_MAX, &t->count);
        else if (!strcmp(k, "oneshot"))
            kind = TRIG_ONESHOT;
        else if (!strcmp(k, "barrier"))
            kind = TRIG_BARRIER;
        else if (!strcmp(k, "multishot"))
            return fail(e, l, i,
                        "multishot triggers are not imported: each activation starts the next "
                        "of its flows in the order they happen at run time, which a list of "
                        "flows with fixed dependencies cannot express");
        else
            return fail(e, l, i,
                        "unknown word \"%s\" (a trigger takes id, oneshot, barrier, count)", k);
        if (rc)
            return rc;
        if (kind != TRIG_NONE) {
            if (t->kind != TRIG_NONE)
                return fail(e, l, i, "the trigger has two types");
            t->kind = kind;
        }
    }
    if (!t->id)
        return fail(e, l, 0, "the trigger has no id");
    if (t->kind == TRIG_NONE)
        return fail(e, l, 0, "the trigger has no type (oneshot or barrier)");
    if (t->kind == TRIG_BARRIER && !t->count)
        return fail(e, l, 0, "a barrier trigger needs its count");
    if (trig_find(m, t->id))
        return fail(e, l, 0, "trigger %" PRIu64 " is described twice", t->id);
    m->n_trigs++;
    return ERR_OK;
}

static int cm_read(const char *path, uint32_t nodes, cm *m, err *e)
{
    size_t len;
    memset(m, 0, sizeof *m);
    m->buf = slurp(path, &len, e);
    if (!m->buf)
        return e->code;
    /* every flow and trigger is one line: the number of lines bounds both */
    uint32_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += m->buf[i] == '\n';
    m->flows = xcalloc(lines, sizeof(cm_flow), "htsim flows");
    m->trigs_v = xcalloc(lines, sizeof(cm_trig), "htsim triggers");
    line l = {.file = path};
    char *p = m->buf;
    int rc = ERR_OK;
    bool have_nodes = false, have_conns = false;
    while (!rc && next_line(&p, &l, e, &rc)) {
        if (!l.n)
            continue;
        const char *k = l.tok[0];
        if (!strcmp(k, "Nodes")) {
            rc = get_uint(e, &l, 1, "Nodes", 1, 16777216, &m->nodes);
            have_nodes = true;
        } else if (!strcmp(k, "Connections")) {
            rc = get_uint(e, &l, 1, "Connections", 0, UINT32_MAX, &m->conns);
            m->conns_line = l;
            have_conns = true;
        } else if (!strcmp(k, "Triggers")) {
            rc = get_uint(e, &l, 1, "Triggers", 0, UINT32_MAX, &m->trigs);
            m->trigs_line = l;
        } else if (!strcmp(k, "Failures")) {
            uint64_t v;
            rc = get_uint(e, &l, 1, "Failures", 0, UINT32_MAX, &v);
            if (!rc && v)
                rc = fail(e, &l, 1,
                          "failures are not imported: write them as the scenario's faults "
                          "(docs/scenario.md, faults)");
        } else if (!strcmp(k, "failure")) {
            rc = fail(e, &l, 0,
                      "failures are not imported: write them as the scenario's faults "
                      "(docs/scenario.md, faults)");
        } else if (!strcmp(k, "trigger")) {
            rc = cm_trig_line(m, &l, e);
        } else if (strstr(k, "->")) {
            rc = cm_flow_line(m, &l, nodes, e);
        } else {
            rc = fail(e, &l, 0,
                      "unknown line \"%s\" (expected Nodes, Connections, Triggers, a flow "
                      "SRC->DST ... or a trigger)",
                      k);
        }
    }
    line top = {.file = path, .no = 1};
    if (!rc && (!have_nodes || !have_conns))
        rc = fail(e, &top, 0, "the header needs Nodes and Connections");
    if (!rc && m->nodes > nodes)
        rc = fail(e, &top, 0, "the connection matrix is for %" PRIu64 " nodes, the topology has %u",
                  m->nodes, nodes);
    if (!rc && m->conns != m->n_flows)
        rc = fail(e, &m->conns_line, 1, "Connections says %" PRIu64 ", the file has %u flows",
                  m->conns, m->n_flows);
    if (!rc && m->trigs != m->n_trigs)
        rc = fail(e, m->trigs_line.no ? &m->trigs_line : &top, 1,
                  "Triggers says %" PRIu64 ", the file has %u trigger lines", m->trigs, m->n_trigs);
    return rc;
}

static void cm_free(cm *m)
{
    xfree(m->flows);
    xfree(m->trigs_v);
    xfree(m->buf);
}

/* Resolve triggers: every trigger a flow waits for exists, and fires exactly once after all of
 * its activators (oneshot: one; barrier: count). Flows that activate a trigger and have no id
 * get one above the file's largest (ids[i]); returns the number of chained flows. */
static int cm_resolve(cm *m, uint64_t *ids, uint32_t *chained, err *e)
{
    uint64_t max_id = 0;
    for (uint32_t i = 0; i < m->n_flows; i++) {
        const cm_flow *f = &m->flows[i];
        max_id = f->id > max_id ? f->id : max_id;
        for (uint32_t k = 0; f->id && k < i; k++)
            if (m->flows[k].id == f->id)
                return fail(e, &f->at, 0, "flow id %" PRIu64 " is already used on line %d", f->id,
                            m->flows[k].at.no);
    }
    *chained = 0;
    for (uint32_t i = 0; i < m->n_flows; i++) {
        cm_flow *f = &m->flows[i];
        ids[i] = f->id;
        uint64_t act = f->send_done ? f->send_done : f->recv_done;
        if (act) {
            cm_trig *t = trig_find(m, act);
            if (!t)
                return fail(e, &f->at, 0,
                            "trigger %" PRIu64 " has no \"trigger id %" PRIu64 " ...\" line", act,
                            act);
            t->n_act++;
            if (!ids[i])
                ids[i] = ++max_id;
        }
        if (f->trigger) {
            if (!trig_find(m, f->trigger))
                return fail(e, &f->at, 0,
                            "trigger %" PRIu64 " has no \"trigger id %" PRIu64 " ...\" line",
                            f->trigger, f->trigger);
            (*chained)++;
        }
    }
    for (uint32_t i = 0; i < m->n_trigs; i++) {
        const cm_trig *t = &m->trigs_v[i];
        uint64_t need = t->kind == TRIG_ONESHOT ? 1 : t->count;
        if (t->n_act == 0)
            return fail(e, &t->at, 0,
                        "trigger %" PRIu64 ": no flow activates it (send_done_trigger or "
                        "recv_done_trigger), so its flows would never start",
                        t->id);
        if (t->n_act != need)
            return fail(e, &t->at, 0,
                        "trigger %" PRIu64 " fires after %" PRIu64 " activation%s but %u flows "
                        "activate it; wirerate starts a waiting flow after all the flows it "
                        "names",
                        t->id, need, need == 1 ? "" : "s", t->n_act);
    }
    return ERR_OK;
}

/* ---- the scenario ------------------------------------------------------------------------ */

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void link_out(FILE *f, const char *a, uint64_t ai, const char *b, uint64_t bi, uint64_t gbps,
                     bool have_ns, uint64_t ns)
{
    fprintf(f, "      - {a: %s%" PRIu64 ", b: %s%" PRIu64 ", speed: %" PRIu64 "Gbps", a, ai, b, bi,
            gbps);
    if (have_ns)
        fprintf(f, ", latency: %" PRIu64 "ns", ns);
    fprintf(f, "}\n");
}

int htsim_import(FILE *f, const char *topo, const char *cmf, htsim_import_stats *st, err *e)
{
    topo_cfg c = {0};
    int rc = topo_read(topo, &c, e);
    if (!rc)
        rc = topo_derive(topo, &c, e);
    if (rc)
        return rc;
    cm m;
    rc = cm_read(cmf, (uint32_t)c.nodes, &m, e);
    uint64_t *ids = NULL;
    uint32_t chained = 0;
    if (!rc) {
        ids = xcalloc(m.n_flows ? m.n_flows : 1, sizeof(uint64_t), "htsim ids");
        rc = cm_resolve(&m, ids, &chained, e);
    }
    if (!rc && !m.n_flows) {
        line top = {.file = cmf, .no = 1};
        rc = fail(e, &top, 0, "the connection matrix has no flows");
    }
    if (rc) {
        xfree(ids);
        cm_free(&m);
        return rc;
    }
    char name[128];
    snprintf(name, sizeof name, "%s", base(cmf));
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    static const char *tiername[3] = {"ToR", "aggregation", "core"};
    fprintf(f, "# Imported by `wirerate import htsim` from %s and %s (docs/import.md).\n", topo,
            cmf);
    fprintf(f,
            "# htsim fat tree: %" PRIu64 " nodes, %" PRIu64 " tiers, pods of %" PRIu64
            " nodes: %" PRIu64 " ToRs, %" PRIu64 " aggregation, %" PRIu64 " core switches\n",
            c.nodes, c.tiers, c.podsize, c.ntor, c.nagg, c.ncore);
    for (uint32_t t = 0; t < c.tiers; t++) {
        fprintf(f, "#   tier %u (%s): downlinks %" PRIu64 "G", t, tiername[t], c.speed_gbps[t]);
        if (c.have_link_ns[t])
            fprintf(f, ", %" PRIu64 " ns", c.link_ns[t]);
        fprintf(f, ", radix down %" PRIu64, c.radix_down[t]);
        if (t + 1 < c.tiers)
            fprintf(f, " up %" PRIu64, c.radix_up[t]);
        fprintf(f, ", oversubscribed %" PRIu64 ", bundle %" PRIu64 "\n", c.oversub[t], c.bundle[t]);
    }
    if (c.queues)
        fprintf(f, "# Queue_Up / Queue_Down are not used: wirerate's switches share one buffer "
                   "(switch.buffer).\n");
    if (m.prio)
        fprintf(f, "# The flows' prio values are not used: every flow is in nic.priority's "
                   "class.\n");
    fprintf(f, "# A flow wirerate completes when its last byte is accepted at the receiver "
               "(htsim's recv_done);\n# a flow started by another's send_done starts here one "
               "ACK's path earlier than in htsim.\n");
    fprintf(f, "# Transport: wirerate's RoCEv2 with the scenario's nic.cc; htsim's runs "
               "depend on its binary (main_roce, main_uec, ...).\n");
    fprintf(f, "name: %s\n", name);
    fprintf(f, "fabric:\n  preset: custom\n  gpus_per_server: 1\n");
    int sw = -1;
    for (uint32_t t = 0; t < c.tiers; t++)
        if (c.have_switch_ns[t])
            sw = (int)t;
    fprintf(f, "  switch_latency: %" PRIu64 "ns%s\n", sw >= 0 ? c.switch_ns[sw] : 0,
            sw >= 0 ? "" : "   # Switch_Latency_ns not given: htsim's default, 0");
    if (!c.have_link_ns[0] || !c.have_link_ns[1] || (c.tiers == 3 && !c.have_link_ns[2]))
        fprintf(f, "  link_latency: 1us   # tiers without Downlink_Latency_ns: htsim's default "
                   "hop latency\n");
    fprintf(f, "  custom:\n    switches:\n");
    for (uint64_t i = 0; i < c.ntor; i++)
        fprintf(f, "      - {name: tor%" PRIu64 "}\n", i);
    for (uint64_t i = 0; i < c.nagg; i++)
        fprintf(f, "      - {name: agg%" PRIu64 "}\n", i);
    for (uint64_t i = 0; i < c.ncore; i++)
        fprintf(f, "      - {name: core%" PRIu64 "}\n", i);
    fprintf(f, "    hosts:\n");
    for (uint64_t i = 0; i < c.nodes; i++)
        fprintf(f, "      - {name: h%" PRIu64 "}\n", i);
    fprintf(f, "    links:\n");
    uint64_t links = 0;
    for (uint64_t h = 0; h < c.nodes; h++, links++)
        link_out(f, "h", h, "tor", h / c.radix_down[0], c.speed_gbps[0], c.have_link_ns[0],
                 c.link_ns[0]);
    for (uint64_t t = 0; t < c.ntor; t++) {
        uint64_t pod = t / c.tors_per_pod;
        uint64_t lo = c.tiers == 3 ? pod * c.aggs_per_pod : 0;
        uint64_t hi = c.tiers == 3 ? lo + c.aggs_per_pod : c.nagg;
        for (uint64_t a = lo; a < hi; a++)
            for (uint64_t b = 0; b < c.bundle[1]; b++, links++)
                link_out(f, "tor", t, "agg", a, c.speed_gbps[1], c.have_link_ns[1], c.link_ns[1]);
    }
    if (c.tiers == 3)
        for (uint64_t a = 0; a < c.nagg; a++) {
            uint64_t podpos = a % c.aggs_per_pod;
            for (uint64_t l = 0; l < c.radix_up[1] / c.bundle[2]; l++)
                for (uint64_t b = 0; b < c.bundle[2]; b++, links++)
                    link_out(f, "agg", a, "core", podpos + c.aggs_per_pod * l, c.speed_gbps[2],
                             c.have_link_ns[2], c.link_ns[2]);
        }
    fprintf(f, "workload:\n  - name: %s\n    kind: traffic\n    pattern: list\n    flows:\n", name);
    for (uint32_t i = 0; i < m.n_flows; i++) {
        const cm_flow *x = &m.flows[i];
        fprintf(f, "      - {");
        if (ids[i])
            fprintf(f, "id: %" PRIu64 ", ", ids[i]);
        fprintf(f, "src: %u, dst: %u, size: %" PRIu64, x->src, x->dst, x->size);
        if (x->trigger) {
            fprintf(f, ", after: [");
            bool any = false;
            for (uint32_t k = 0; k < m.n_flows; k++) {
                const cm_flow *y = &m.flows[k];
                if ((y->send_done ? y->send_done : y->recv_done) == x->trigger) {
                    fprintf(f, "%s%" PRIu64, any ? ", " : "", ids[k]);
                    any = true;
                }
            }
            fprintf(f, "]}");
        } else {
            fprintf(f, ", start: %sus}", x->start);
        }
        fprintf(f, "   # %s:%d\n", base(cmf), x->at.no);
    }
    if (st) {
        st->hosts = (uint32_t)c.nodes;
        st->switches = (uint32_t)(c.ntor + c.nagg + c.ncore);
        st->links = (uint32_t)links;
        st->flows = m.n_flows;
        st->chained = chained;
    }
    xfree(ids);
    cm_free(&m);
    return ferror(f) ? err_set(e, ERR_IO, "", 0, 0, "write failed") : ERR_OK;
}
