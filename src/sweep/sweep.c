/*
 * sweep.c — the sweep file, its expansion into runs and one run's execution (see sweep.h).
 *
 * The sweep file is read with the scenario loader's YAML tree (config/tree.h), so it has the
 * same rules (no anchors or tags, unique keys) and every node keeps its line:column. An axis is
 * applied exactly as `wirerate run --set KEY=VALUE` would apply it: scalars as written (quoted
 * ones stay strings), lists and maps re-emitted as YAML flow text. When the scenario refuses an
 * override, the loader reports it at "--set:INDEX:COL"; here that position is translated back to
 * the axis key or value in the sweep file, so the user sees the line they wrote.
 */
#define _POSIX_C_SOURCE 200809L

#include "sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../core/alloc.h"
#include "../workload/run.h"
#include "pool.h"

#define MAX_SWEEP_BYTES (4u << 20)

static int fail_at(const sweep_def *s, err *e, const cfg_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(const sweep_def *s, err *e, const cfg_node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = err_setv(e, ERR_INVALID, s->file, n ? n->line : 1, n ? n->col : 1, fmt, ap);
    va_end(ap);
    return rc;
}

static char *read_all(const char *path, size_t *len, err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        err_set(e, ERR_IO, path, 0, 0, "cannot open the sweep file: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 14, n = 0;
    char *buf = xmalloc(cap + 1, "sweep file");
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_SWEEP_BYTES) {
                xfree(buf);
                fclose(fp);
                err_set(e, ERR_INVALID, path, 0, 0,
                        "the sweep file is larger than %u MiB; is this the right file?",
                        MAX_SWEEP_BYTES >> 20);
                return NULL;
            }
            cap *= 2;
            buf = xrealloc(buf, cap + 1, "sweep file");
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        err_set(e, ERR_IO, path, 0, 0, "cannot read the sweep file: %s", strerror(errno));
        xfree(buf);
        fclose(fp);
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* ---- YAML flow text of a node (an axis value given as a list or map) ------------------- */

typedef struct tbuf {
    char *s;
    size_t len, cap;
} tbuf;

static void tb_putc(tbuf *b, char c)
{
    if (b->len + 2 > b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->s = xrealloc(b->s, b->cap, "axis value text");
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}

static void tb_puts(tbuf *b, const char *s)
{
    while (*s)
        tb_putc(b, *s++);
}

static void emit(tbuf *b, const cfg_node *n)
{
    switch (n->kind) {
    case CFG_SCALAR:
        if (!n->quoted) {
            tb_puts(b, n->str);
            return;
        }
        tb_putc(b, '"');
        for (const char *p = n->str; *p; p++) {
            if (*p == '"' || *p == '\\')
                tb_putc(b, '\\');
            if (*p == '\n') {
                tb_puts(b, "\\n");
                continue;
            }
            tb_putc(b, *p);
        }
        tb_putc(b, '"');
        return;
    case CFG_SEQ:
        tb_putc(b, '[');
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                tb_puts(b, ", ");
            emit(b, n->vals[i]);
        }
        tb_putc(b, ']');
        return;
    case CFG_MAP:
        tb_putc(b, '{');
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                tb_puts(b, ", ");
            emit(b, n->keys[i]);
            tb_puts(b, ": ");
            emit(b, n->vals[i]);
        }
        tb_putc(b, '}');
        return;
    }
}

static const char *node_text(arena *a, const cfg_node *n)
{
    tbuf b = {0};
    emit(&b, n);
    const char *s = arena_strdup(a, b.s ? b.s : "");
    xfree(b.s);
    return s;
}

/* ---- loading -------------------------------------------------------------------------- */

static const char *const top_keys[] = {"name", "base", "mode", "axes", "seeds", "output", NULL};

static bool is_scalar(const cfg_node *n)
{
    return n && n->kind == CFG_SCALAR && !cfg_is_null(n);
}

static int parse_seeds(sweep_def *s, const cfg_node *v, err *e)
{
    if (is_scalar(v) && !v->quoted) {
        /* a count: seeds 1..N */
        char *end;
        errno = 0;
        unsigned long long n = strtoull(v->str, &end, 10);
        if (*end || errno || n == 0 || n > SWEEP_MAX_RUNS || v->str[0] == '-')
            return fail_at(s, e, v,
                           "seeds: expected a list of seeds like [1, 2, 3] or a count like 3, "
                           "got \"%s\"",
                           v->str);
        s->n_seeds = (uint32_t)n;
        s->seeds = ARENA_NEW_ARRAY(&s->mem, uint64_t, n);
        s->seed_node = ARENA_NEW_ARRAY(&s->mem, const cfg_node *, n);
        for (uint32_t i = 0; i < n; i++) {
            s->seeds[i] = i + 1;
            s->seed_node[i] = v;
        }
        return ERR_OK;
    }
    if (!v || v->kind != CFG_SEQ || v->n == 0)
        return fail_at(
            s, e, v, "seeds: expected a list of seeds like [1, 2, 3] or a count like 3, got %s",
            v ? (v->kind == CFG_SEQ ? "an empty list" : cfg_kind_name(v->kind)) : "nothing");
    s->n_seeds = v->n;
    s->seeds = ARENA_NEW_ARRAY(&s->mem, uint64_t, v->n);
    s->seed_node = ARENA_NEW_ARRAY(&s->mem, const cfg_node *, v->n);
    for (uint32_t i = 0; i < v->n; i++) {
        const cfg_node *x = v->vals[i];
        char *end = NULL;
        errno = 0;
        unsigned long long seed = is_scalar(x) ? strtoull(x->str, &end, 10) : 0;
        if (!is_scalar(x) || x->quoted || *end || errno || x->str[0] == '-' || !x->str[0])
            return fail_at(s, e, x, "seeds[%u]: expected a non-negative integer, got %s%s%s", i,
                           is_scalar(x) ? "\"" : cfg_kind_name(x->kind), is_scalar(x) ? x->str : "",
                           is_scalar(x) ? "\"" : "");
        for (uint32_t j = 0; j < i; j++)
            if (s->seeds[j] == seed)
                return fail_at(s, e, x, "seeds[%u]: seed %llu is already seeds[%u]", i, seed, j);
        s->seeds[i] = seed;
        s->seed_node[i] = x;
    }
    return ERR_OK;
}

static int parse_axes(sweep_def *s, const cfg_node *v, err *e)
{
    if (!v || cfg_is_null(v)) {
        s->n_points = 1;
        return ERR_OK;
    }
    if (v->kind != CFG_MAP)
        return fail_at(s, e, v,
                       "axes: expected a mapping of scenario keys to value lists, like "
                       "\"loadbalance.mode: [ecmp, spray]\", got %s",
                       cfg_kind_name(v->kind));
    s->n_axes = v->n;
    s->axes = ARENA_NEW_ARRAY(&s->mem, sweep_axis, v->n ? v->n : 1);
    uint64_t points = 1;
    for (uint32_t a = 0; a < v->n; a++) {
        const cfg_node *k = v->keys[a], *l = v->vals[a];
        sweep_axis *ax = &s->axes[a];
        ax->key = k->str;
        ax->key_node = k;
        if (!k->str[0])
            return fail_at(s, e, k, "axes: an axis needs a scenario key");
        if (strcmp(k->str, "seed") == 0)
            return fail_at(s, e, k,
                           "axes.seed: seeds are not an axis; list them under \"seeds:\" "
                           "(repetitions of every combination)");
        if (!l || l->kind != CFG_SEQ || l->n == 0)
            return fail_at(s, e, l && !cfg_is_null(l) ? l : k,
                           "axes.%s: expected a non-empty list of values like [a, b], got %s",
                           k->str,
                           !l || cfg_is_null(l) ? "nothing"
                           : l->kind == CFG_SEQ ? "an empty list"
                                                : cfg_kind_name(l->kind));
        ax->n_values = l->n;
        ax->value_text = ARENA_NEW_ARRAY(&s->mem, const char *, l->n);
        ax->value = ARENA_NEW_ARRAY(&s->mem, rdb_value, l->n);
        ax->value_node = ARENA_NEW_ARRAY(&s->mem, const cfg_node *, l->n);
        for (uint32_t i = 0; i < l->n; i++) {
            const cfg_node *x = l->vals[i];
            if (x->kind == CFG_SCALAR && cfg_is_null(x))
                return fail_at(s, e, x, "axes.%s[%u]: expected a value, got nothing", k->str, i);
            ax->value_node[i] = x;
            ax->value_text[i] = node_text(&s->mem, x);
            ax->value[i].text = x->kind == CFG_SCALAR ? x->str : ax->value_text[i];
            ax->value[i].quoted = x->kind != CFG_SCALAR || x->quoted;
            /* zip: one axis may repeat a value (the other axes tell the runs apart); two
             * whole rows that are the same are refused below */
            for (uint32_t j = 0; j < i && s->mode != SWEEP_ZIP; j++)
                if (strcmp(ax->value_text[j], ax->value_text[i]) == 0)
                    return fail_at(s, e, x,
                                   "axes.%s[%u]: value \"%s\" is already axes.%s[%u] (the two "
                                   "runs would be the same)",
                                   k->str, i, ax->value[i].text, k->str, j);
        }
        if (s->mode == SWEEP_ZIP) {
            if (l->n != s->axes[0].n_values)
                return fail_at(s, e, l,
                               "axes.%s: mode zip pairs the i-th values of every axis, so every "
                               "axis needs the same number of values: %s has %u, %s has %u",
                               k->str, k->str, l->n, s->axes[0].key, s->axes[0].n_values);
            points = l->n;
        } else {
            points *= l->n;
        }
        if (points > SWEEP_MAX_RUNS)
            return fail_at(s, e, k, "axes: more than %u combinations; split the sweep",
                           SWEEP_MAX_RUNS);
    }
    if (s->mode == SWEEP_ZIP && v->n)
        for (uint32_t i = 1; i < s->axes[0].n_values; i++)
            for (uint32_t j = 0; j < i; j++) {
                uint32_t a = 0;
                while (a < s->n_axes &&
                       strcmp(s->axes[a].value_text[i], s->axes[a].value_text[j]) == 0)
                    a++;
                if (a == s->n_axes)
                    return fail_at(s, e, s->axes[s->n_axes - 1].value_node[i],
                                   "axes: the values at [%u] are those at [%u] on every axis "
                                   "(the two runs would be the same)",
                                   i, j);
            }
    s->n_points = v->n ? (uint32_t)points : 1;
    return ERR_OK;
}

/* The base scenario's path: as given when absolute, else from the sweep file's folder. */
static const char *resolve_base(sweep_def *s, const char *base)
{
    const char *slash = strrchr(s->file, '/');
    if (base[0] == '/' || !slash)
        return arena_strdup(&s->mem, base);
    size_t dl = (size_t)(slash - s->file) + 1, bl = strlen(base);
    char *p = arena_alloc(&s->mem, dl + bl + 1);
    memcpy(p, s->file, dl);
    memcpy(p + dl, base, bl + 1);
    return p;
}

static int parse_root(sweep_def *s, err *e)
{
    const cfg_node *r = s->tree->root;
    if (!r || cfg_is_null(r))
        return fail_at(s, e, NULL,
                       "the sweep file is empty; it needs at least \"base:\" (a scenario) and "
                       "\"axes:\"");
    if (r->kind != CFG_MAP)
        return fail_at(s, e, r, "expected a mapping with base:, axes: and seeds:, got %s",
                       cfg_kind_name(r->kind));
    for (uint32_t i = 0; i < r->n; i++) {
        bool ok = false;
        for (const char *const *k = top_keys; *k; k++)
            ok |= strcmp(r->keys[i]->str, *k) == 0;
        if (!ok)
            return fail_at(s, e, r->keys[i],
                           "unknown key \"%s\" in a sweep file; expected one of name | base | "
                           "mode | axes | seeds | output",
                           r->keys[i]->str);
    }
    cfg_node *kn = NULL;
    const cfg_node *v = cfg_map_get(r, "mode", &kn);
    if (v && !cfg_is_null(v)) {
        if (is_scalar(v) && strcmp(v->str, "grid") == 0)
            s->mode = SWEEP_GRID;
        else if (is_scalar(v) && strcmp(v->str, "zip") == 0)
            s->mode = SWEEP_ZIP;
        else
            return fail_at(s, e, v, "mode: expected one of grid | zip, got %s%s%s",
                           is_scalar(v) ? "\"" : cfg_kind_name(v->kind), is_scalar(v) ? v->str : "",
                           is_scalar(v) ? "\"" : "");
    }
    v = cfg_map_get(r, "name", &kn);
    if (v && !is_scalar(v))
        return fail_at(s, e, v, "name: expected a text, got %s",
                       cfg_is_null(v) ? "nothing" : cfg_kind_name(v->kind));
    if (v) {
        s->name = v->str;
    } else {
        const char *b = strrchr(s->file, '/');
        b = b ? b + 1 : s->file;
        char *n = arena_strdup(&s->mem, b);
        char *dot = strrchr(n, '.');
        if (dot && dot != n)
            *dot = '\0';
        s->name = n;
    }
    v = cfg_map_get(r, "output", &kn);
    if (v && !is_scalar(v))
        return fail_at(s, e, v, "output: expected a database path like results.db, got %s",
                       cfg_is_null(v) ? "nothing" : cfg_kind_name(v->kind));
    s->output = v ? v->str : NULL;

    v = cfg_map_get(r, "base", &kn);
    if (!v)
        return fail_at(s, e, r,
                       "base: missing; a sweep needs the scenario it varies (base: scenario.yaml)");
    if (!is_scalar(v))
        return fail_at(s, e, v, "base: expected a scenario path, got %s",
                       cfg_is_null(v) ? "nothing" : cfg_kind_name(v->kind));
    s->base = resolve_base(s, v->str);
    FILE *fp = fopen(s->base, "rb");
    if (!fp)
        return fail_at(s, e, v, "base: cannot open the scenario \"%s\"%s: %s", v->str,
                       strcmp(v->str, s->base) ? " (relative to the sweep file's folder)" : "",
                       strerror(errno));
    fclose(fp);

    int rc = parse_axes(s, cfg_map_get(r, "axes", &kn), e);
    if (rc)
        return rc;
    v = cfg_map_get(r, "seeds", &kn);
    if (v && (rc = parse_seeds(s, v, e)))
        return rc;
    uint64_t runs = (uint64_t)s->n_points * (s->n_seeds ? s->n_seeds : 1);
    if (runs > SWEEP_MAX_RUNS)
        return fail_at(s, e, v, "seeds: %" PRIu64 " runs, more than %u; split the sweep", runs,
                       SWEEP_MAX_RUNS);
    s->n_runs = (uint32_t)runs;
    return ERR_OK;
}

int sweep_load(sweep_def *s, const char *path, err *e)
{
    memset(s, 0, sizeof *s);
    err_clear(e);
    arena_init(&s->mem, "sweep");
    s->file = arena_strdup(&s->mem, path);
    size_t len = 0;
    char *buf = read_all(path, &len, e);
    if (!buf) {
        sweep_free(s);
        return e->code;
    }
    int rc = cfg_tree_parse(&s->mem, s->file, buf, len, &s->tree, e);
    xfree(buf);
    if (!rc)
        rc = parse_root(s, e);
    if (rc)
        sweep_free(s);
    return rc;
}

void sweep_free(sweep_def *s)
{
    xfree(s->run_seed);
    arena_free(&s->mem);
    memset(s, 0, sizeof *s);
}

/* ---- runs ----------------------------------------------------------------------------- */

void sweep_point(const sweep_def *s, uint32_t id, uint32_t *idx, uint32_t *seed_idx)
{
    uint32_t ns = s->n_seeds ? s->n_seeds : 1;
    *seed_idx = id % ns;
    uint32_t p = id / ns;
    if (s->mode == SWEEP_ZIP) {
        for (uint32_t a = 0; a < s->n_axes; a++)
            idx[a] = p;
        return;
    }
    for (uint32_t a = s->n_axes; a-- > 0;) {
        idx[a] = p % s->axes[a].n_values;
        p /= s->axes[a].n_values;
    }
}

void sweep_values(const sweep_def *s, uint32_t id, rdb_value *out)
{
    uint32_t idx[s->n_axes ? s->n_axes : 1], si;
    sweep_point(s, id, idx, &si);
    for (uint32_t a = 0; a < s->n_axes; a++)
        out[a] = s->axes[a].value[idx[a]];
}

char *sweep_describe(const sweep_def *s, uint32_t id, char *buf, size_t len)
{
    uint32_t idx[s->n_axes ? s->n_axes : 1], si;
    sweep_point(s, id, idx, &si);
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t a = 0; a < s->n_axes && o < len; a++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", a ? ", " : "", s->axes[a].key,
                              s->axes[a].value_text[idx[a]]);
    if (s->n_seeds && o < len)
        snprintf(buf + o, len - o, "%sseed=%" PRIu64, o ? ", " : "", s->seeds[si]);
    else if (!s->n_seeds && !s->n_axes)
        snprintf(buf, len, "the base scenario");
    return buf;
}

/* An error found at an override ("--set:INDEX:COL", config/tree.h) points at what the user wrote
 * in the sweep file instead: the axis key, the axis value of this run, or its seed. Any other
 * invalid-input error names the run (its position is in the base scenario). */
static void locate(const sweep_def *s, uint32_t id, err *e)
{
    uint32_t idx[s->n_axes + 1], si;
    sweep_point(s, id, idx, &si);
    uint32_t k = s->n_axes + (s->n_seeds ? 1 : 0);
    if (strcmp(e->file, "--set") == 0 && e->line >= 1 && (uint32_t)e->line <= k) {
        uint32_t i = (uint32_t)e->line - 1;
        const cfg_node *at;
        if (i < s->n_axes)
            at = (size_t)e->col <= strlen(s->axes[i].key) ? s->axes[i].key_node
                                                          : s->axes[i].value_node[idx[i]];
        else
            at = s->seed_node[si];
        snprintf(e->file, sizeof e->file, "%s", s->file);
        e->line = at->line;
        e->col = at->col;
        return;
    }
    if (e->code == ERR_INVALID) {
        char d[200];
        size_t l = strlen(e->msg);
        snprintf(e->msg + l, sizeof e->msg - l, " (sweep run %" PRIu32 ": %s)", id,
                 sweep_describe(s, id, d, sizeof d));
    }
}

int sweep_load_run(const sweep_def *s, uint32_t id, scenario *sc, err *e)
{
    uint32_t n = s->n_axes + 1;
    uint32_t idx[n], si;
    sweep_point(s, id, idx, &si);
    cfg_override ov[n];
    char seed[32];
    uint32_t k = 0;
    for (uint32_t a = 0; a < s->n_axes; a++, k++) {
        ov[k].key = s->axes[a].key;
        ov[k].value = s->axes[a].value_text[idx[a]];
    }
    if (s->n_seeds) {
        snprintf(seed, sizeof seed, "%" PRIu64, s->seeds[si]);
        ov[k].key = "seed";
        ov[k].value = seed;
        k++;
    }
    int rc = config_load(sc, s->base, ov, (int)k, e);
    if (rc)
        locate(s, id, e);
    return rc;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Hash a file's bytes, whatever its size, into *h. ERR_OK or ERR_IO with *e. */
static int fnv_file(uint64_t *h, const char *path, err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return err_set(e, ERR_IO, path, 0, 0, "cannot open a file the base scenario reads: %s",
                       strerror(errno));
    char *buf = xmalloc(1 << 16, "sweep input file");
    size_t got;
    while ((got = fread(buf, 1, 1 << 16, fp)) > 0)
        *h = fnv(*h, buf, got);
    int bad = ferror(fp), saved = errno;
    fclose(fp);
    xfree(buf);
    if (bad)
        return err_set(e, ERR_IO, path, 0, 0, "cannot read a file the base scenario reads: %s",
                       strerror(saved));
    return ERR_OK;
}

int sweep_validate(sweep_def *s, err *e)
{
    xfree(s->run_seed);
    s->run_seed = xcalloc(s->n_runs ? s->n_runs : 1, sizeof *s->run_seed, "sweep seeds");
    uint64_t h = 0xcbf29ce484222325ull;
    size_t len = 0;
    char *base = read_all(s->base, &len, e);
    if (!base)
        return e->code;
    h = fnv(h, base, len);
    xfree(base);
    char d[4096];
    /* files the runs read by path (size_cdf CSVs, Chakra traces): their bytes are part of the
     * definition, so that editing one reruns the sweep instead of skipping its runs as done.
     * Each distinct path is hashed once, in first-seen order. */
    const char **seen = NULL;
    uint32_t n_seen = 0, cap_seen = 0;
    int rc = ERR_OK;
    for (uint32_t id = 0; id < s->n_runs && !rc; id++) {
        scenario sc;
        rc = sweep_load_run(s, id, &sc, e);
        if (rc)
            break;
        s->run_seed[id] = sc.seed;
        for (uint32_t k = 0; k < sc.n_ref_files && !rc; k++) {
            const char *path = sc.ref_files[k];
            uint32_t q = 0;
            while (q < n_seen && strcmp(seen[q], path))
                q++;
            if (q < n_seen)
                continue;
            if (n_seen == cap_seen) {
                cap_seen = cap_seen ? 2 * cap_seen : 16;
                seen = xrealloc(seen, sizeof(const char *) * cap_seen, "sweep input files");
            }
            seen[n_seen++] = arena_strdup(&s->mem, path);
            h = fnv(h, path, strlen(path) + 1);
            rc = fnv_file(&h, path, e);
        }
        scenario_free(&sc);
        if (rc)
            break;
        sweep_describe(s, id, d, sizeof d);
        h = fnv(h, d, strlen(d) + 1);
        h = fnv(h, &s->run_seed[id], sizeof s->run_seed[id]);
    }
    xfree(seen);
    if (rc)
        return rc;
    h = fnv(h, s->mode == SWEEP_ZIP ? "zip" : "grid", 4);
    s->hash = h;
    return ERR_OK;
}

void sweep_desc(const sweep_def *s, rdb_desc *d, const char **keys, uint32_t *nvals)
{
    for (uint32_t a = 0; a < s->n_axes; a++) {
        keys[a] = s->axes[a].key;
        nvals[a] = s->axes[a].n_values;
    }
    memset(d, 0, sizeof *d);
    d->kind = "sweep";
    d->source = s->file;
    d->base = s->base;
    d->mode = s->mode == SWEEP_ZIP ? "zip" : "grid";
    d->definition_hash = s->hash;
    d->runs_total = s->n_runs;
    d->n_axes = s->n_axes;
    d->axis_keys = keys;
    d->axis_n_values = nvals;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int sweep_execute(const sweep_def *s, uint32_t id, rdb_rows *rows)
{
    double t0 = now_s();
    scenario sc;
    err e;
    err_clear(&e);
    char msg[ERR_FILE_MAX + ERR_MSG_MAX + 64];
    int rc = sweep_load_run(s, id, &sc, &e);
    if (rc) {
        snprintf(msg, sizeof msg, "%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
        rdb_rows_failure(rows, RDB_INVALID, msg, now_s() - t0);
        return ERR_OK;
    }
    /* A sweep run writes only its rows: no files, no time series, no transfer records. */
    sc.output_formats = OUT_SQLITE;
    run *r = run_new(&sc, &e);
    if (!r) {
        if (!e.code)
            e.code = ERR_INVALID;
        locate(s, id, &e);
        if (e.line > 0)
            snprintf(msg, sizeof msg, "%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
        else
            snprintf(msg, sizeof msg, "%s%s%s", e.file, e.file[0] ? ": " : "", e.msg);
        rdb_rows_failure(rows, RDB_INVALID, msg, now_s() - t0);
        scenario_free(&sc);
        return ERR_OK;
    }
    double t1 = now_s();
    run_execute(r, NULL, NULL);
    run_stats st = *run_result(r);
    if (st.wall_s <= 0.0)
        st.wall_s = now_s() - t1;
    if (st.events_per_s <= 0.0 && st.wall_s > 0.0)
        st.events_per_s = (double)st.events / st.wall_s;
    struct rusage ru;
    if (st.peak_rss_bytes == 0 && getrusage(RUSAGE_SELF, &ru) == 0)
        st.peak_rss_bytes = (uint64_t)ru.ru_maxrss * 1024u;
    rdb_rows_from_run(rows, &sc, &st);
    run_free(r);
    scenario_free(&sc);
    return ERR_OK;
}

int sweep_work(const sweep_def *s, uint32_t id, int fd)
{
    rdb_rows rows;
    rdb_rows_init(&rows);
    int rc = sweep_execute(s, id, &rows);
    if (!rc && pool_write_all(fd, rows.buf, rows.len) != 0)
        rc = ERR_IO;
    rdb_rows_free(&rows);
    return rc;
}

/* The worker's stderr, trimmed to its last lines, after the cause. */
static void failure_text(char *buf, size_t len, const char *cause, const char *tail)
{
    while (*tail == '\n' || *tail == ' ')
        tail++;
    size_t tl = strlen(tail);
    while (tl && (tail[tl - 1] == '\n' || tail[tl - 1] == ' '))
        tl--;
    if (tl > 1500) {
        tail += tl - 1500;
        tl = 1500;
    }
    if (tl)
        snprintf(buf, len, "%s; its stderr ended with:\n%.*s", cause, (int)tl, tail);
    else
        snprintf(buf, len, "%s", cause);
}

static int insert(const sweep_def *s, rdb *db, uint32_t id, const rdb_rows *rows, err *e)
{
    rdb_value vals[s->n_axes ? s->n_axes : 1];
    sweep_values(s, id, vals);
    return rdb_insert(db, id, vals, s->run_seed[id], rows, e);
}

int sweep_store(const sweep_def *s, rdb *db, const pool_outcome *o, bool *failed, err *e)
{
    rdb_rows rows;
    rdb_rows_init(&rows);
    int rc = ERR_RUN;
    *failed = false;
    if (o->task >= s->n_runs)
        return err_set(e, ERR_RUN, s->file, 0, 0, "a worker reported run %u of %u", o->task,
                       s->n_runs);
    if (o->ok && o->len) {
        rdb_rows_set(&rows, o->bytes, o->len);
        err e2;
        err_clear(&e2);
        rc = insert(s, db, o->task, &rows, &e2);
        if (rc && rc != ERR_RUN) { /* the database itself failed */
            *e = e2;
            rdb_rows_free(&rows);
            return rc;
        }
    }
    if (rc) {
        char cause[200], text[2048];
        if (o->ok)
            snprintf(cause, sizeof cause, "the worker process returned no valid results");
        else
            pool_describe(o, cause, sizeof cause);
        failure_text(text, sizeof text, cause, o->stderr_tail ? o->stderr_tail : "");
        rows.len = 0;
        rdb_rows_failure(&rows, RDB_FAILED, text, o->wall_s);
        rc = insert(s, db, o->task, &rows, e);
        *failed = true;
    }
    rdb_rows_free(&rows);
    return rc;
}
