/*
 * resultsdb.c — results in SQLite (see resultsdb.h; schema documented in docs/sweep.md).
 *
 * The schema lives in the column tables below, once: CREATE TABLE and INSERT statements are
 * generated from them, and the row serializer checks each record against the same column
 * count, so the writer, the reader of a worker's buffer and the documentation cannot drift
 * apart silently (a mismatch is a broken invariant).
 *
 * Row buffer format (rdb_rows): records back to back, each
 *     u8 table, u16 column count, then per column u8 type and its value:
 *     'i' int64 (8 bytes), 'd' double (8 bytes), 't' u32 length + bytes, 'n' null.
 * Native byte order: the processes of one sweep run the same binary on the same architecture
 * (an MPI job of mixed architectures is not supported; docs/sweep.md says so).
 */
#include "resultsdb.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

/* ---------------------------------------------------------------- schema ---------------- */

typedef struct col {
    const char *name, *type;
} col;

/* The figures of a run in `runs`, after run_id, the axis columns and seed. */
static const col runs_cols[] = {
    {"status", "TEXT NOT NULL"},
    {"error", "TEXT"},
    {"end_reason", "TEXT"},
    {"sim_end_ps", "INTEGER"},
    {"events", "INTEGER"},
    {"packet_hops", "INTEGER"},
    {"jobs", "INTEGER"},
    {"jobs_completed", "INTEGER"},
    {"jobs_failed", "INTEGER"},
    {"jct_ps", "INTEGER"},
    {"busbw_GBps", "REAL"},
    {"flows", "INTEGER"},
    {"flows_completed", "INTEGER"},
    {"fct_p50_ps", "INTEGER"},
    {"fct_p99_ps", "INTEGER"},
    {"fct_max_ps", "INTEGER"},
    {"tx_bytes", "INTEGER"},
    {"max_link_utilization", "REAL"},
    {"ecn_marked", "INTEGER"},
    {"pfc_pause_sent", "INTEGER"},
    {"pfc_paused_ps", "INTEGER"},
    {"pfc_watchdog_events", "INTEGER"},
    {"drops", "INTEGER"},
    {"drop_buffer_full", "INTEGER"},
    {"drop_link_down", "INTEGER"},
    {"drop_bit_error", "INTEGER"},
    {"drop_no_route", "INTEGER"},
    {"drop_pfc_watchdog", "INTEGER"},
    {"drop_ttl", "INTEGER"},
    {"drop_pfc_headroom", "INTEGER"},
    {"cnp_sent", "INTEGER"},
    {"cnp_handled", "INTEGER"},
    {"retransmitted_packets", "INTEGER"},
    {"out_of_sequence", "INTEGER"},
    {"rto_events", "INTEGER"},
    {"qps_failed", "INTEGER"},
    {"sent_bytes", "INTEGER"},
    {"delivered_bytes", "INTEGER"},
    {"dropped_bytes", "INTEGER"},
    {"scale_up_bytes", "INTEGER"},
    /* wall clock: the only columns that differ between two runs of the same sweep */
    {"wall_s", "REAL"},
    {"events_per_s", "REAL"},
    {"peak_rss_bytes", "INTEGER"},
};

static const col jobs_cols[] = {
    {"run_id", "INTEGER NOT NULL"},
    {"job", "INTEGER NOT NULL"},
    {"name", "TEXT"},
    {"kind", "TEXT"},
    {"op", "TEXT"},
    {"algorithm", "TEXT"},
    {"pattern", "TEXT"},
    {"ranks", "INTEGER"},
    {"size_bytes", "INTEGER"},
    {"start_ps", "INTEGER"},
    {"end_ps", "INTEGER"},
    {"jct_ps", "INTEGER"},
    {"completed", "INTEGER"},
    {"failed", "INTEGER"},
    {"failed_at_ps", "INTEGER"},
    {"reason", "TEXT"},
    {"algbw_GBps", "REAL"},
    {"busbw_GBps", "REAL"},
    {"flows", "INTEGER"},
    {"flows_completed", "INTEGER"},
    {"ideal_jct_ps", "INTEGER"},
    {"jct_over_ideal", "REAL"},
    {"tp", "INTEGER"},
    {"pp", "INTEGER"},
    {"dp", "INTEGER"},
};

static const col iter_cols[] = {
    {"run_id", "INTEGER NOT NULL"}, {"job", "INTEGER NOT NULL"}, {"iteration", "INTEGER NOT NULL"},
    {"time_ps", "INTEGER"},         {"algbw_GBps", "REAL"},      {"busbw_GBps", "REAL"},
    {"compute_ps", "INTEGER"},      {"tp_ps", "INTEGER"},        {"pp_ps", "INTEGER"},
    {"dp_ps", "INTEGER"},           {"bubble_ps", "INTEGER"},
};

static const col flows_cols[] = {
    {"run_id", "INTEGER NOT NULL"}, {"job", "INTEGER NOT NULL"}, {"count", "INTEGER"},
    {"completed", "INTEGER"},       {"fct_p50_ps", "INTEGER"},   {"fct_p90_ps", "INTEGER"},
    {"fct_p99_ps", "INTEGER"},      {"fct_p999_ps", "INTEGER"},  {"fct_max_ps", "INTEGER"},
    {"fct_mean_ps", "REAL"},
};

static const col ports_cols[] = {
    {"run_id", "INTEGER NOT NULL"},
    {"port_id", "INTEGER NOT NULL"},
    {"port", "TEXT"},
    {"tx_bytes", "INTEGER"},
    {"tx_packets", "INTEGER"},
    {"rx_bytes", "INTEGER"},
    {"max_queue_bytes", "INTEGER"},
    {"utilization", "REAL"},
    {"ecn_marked", "INTEGER"},
    {"pfc_pause_sent", "INTEGER"},
    {"pfc_pause_rx", "INTEGER"},
    {"pfc_paused_ps", "INTEGER"},
    {"pfc_watchdog_events", "INTEGER"},
    {"drops", "INTEGER"},
    {"drop_buffer_full", "INTEGER"},
    {"drop_link_down", "INTEGER"},
    {"drop_pfc_watchdog", "INTEGER"},
};

enum tbl { T_RUNS, T_JOBS, T_ITERS, T_FLOWS, T_PORTS, T_COUNT };

#define N(a) (sizeof a / sizeof a[0])
static const struct {
    const char *name;
    const col *cols;
    unsigned n;
    const char *pk;
} tables[T_COUNT] = {
    [T_RUNS] = {"runs", runs_cols, N(runs_cols), NULL},
    [T_JOBS] = {"jobs", jobs_cols, N(jobs_cols), "run_id, job"},
    [T_ITERS] = {"iterations", iter_cols, N(iter_cols), "run_id, job, iteration"},
    [T_FLOWS] = {"flows", flows_cols, N(flows_cols), "run_id, job"},
    [T_PORTS] = {"ports", ports_cols, N(ports_cols), "run_id, port_id"},
};

const char *rdb_status_name(enum rdb_status s)
{
    switch (s) {
    case RDB_OK:
        return "ok";
    case RDB_INVALID:
        return "invalid";
    case RDB_FAILED:
        return "failed";
    }
    return "?";
}

/* ---------------------------------------------------------------- row buffer ------------ */

void rdb_rows_init(rdb_rows *r)
{
    memset(r, 0, sizeof *r);
}

void rdb_rows_free(rdb_rows *r)
{
    xfree(r->buf);
    memset(r, 0, sizeof *r);
}

static void put(rdb_rows *r, const void *p, size_t n)
{
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + n)
            cap *= 2;
        r->buf = xrealloc(r->buf, cap, "result rows");
        r->cap = cap;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
}

void rdb_rows_set(rdb_rows *r, const void *bytes, size_t len)
{
    r->len = 0;
    put(r, bytes, len);
}

/* A record being written: where its column count goes, and how many were put. */
typedef struct rec {
    rdb_rows *r;
    enum tbl t;
    size_t count_at;
    uint16_t n;
} rec;

static rec rec_begin(rdb_rows *r, enum tbl t)
{
    uint8_t tb = (uint8_t)t;
    uint16_t zero = 0;
    put(r, &tb, 1);
    rec x = {r, t, r->len, 0};
    put(r, &zero, 2);
    return x;
}

static void rec_end(rec *x)
{
    unsigned want = tables[x->t].n - (x->t == T_RUNS ? 0 : 1); /* run_id is bound apart */
    SIM_ASSERT(x->n == want, "%s record has %u values, the schema %u", tables[x->t].name,
               (unsigned)x->n, want);
    memcpy(x->r->buf + x->count_at, &x->n, 2);
}

static void v_i64(rec *x, int64_t v)
{
    uint8_t ty = 'i';
    put(x->r, &ty, 1);
    put(x->r, &v, 8);
    x->n++;
}

/* Unsigned counters: SQLite integers are signed 64-bit; nothing we count reaches 2^63. */
static void v_u64(rec *x, uint64_t v)
{
    v_i64(x, v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v);
}

static void v_f64(rec *x, double v)
{
    uint8_t ty = 'd';
    put(x->r, &ty, 1);
    put(x->r, &v, 8);
    x->n++;
}

static void v_null(rec *x)
{
    uint8_t ty = 'n';
    put(x->r, &ty, 1);
    x->n++;
}

static void v_text(rec *x, const char *s)
{
    if (!s) {
        v_null(x);
        return;
    }
    uint8_t ty = 't';
    uint32_t n = (uint32_t)strlen(s);
    put(x->r, &ty, 1);
    put(x->r, &n, 4);
    put(x->r, s, n);
    x->n++;
}

static int cmp_time(const void *a, const void *b)
{
    sim_time x = *(const sim_time *)a, y = *(const sim_time *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile, as run.c computes fct_p50/p99 for summary.json. */
static sim_time nearest_rank(const sim_time *v, uint64_t n, double q)
{
    uint64_t k = (uint64_t)(q * (double)n + 0.999999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

/* One flows row: the flows of job `job` (-1: every flow). */
static void flows_row(rdb_rows *r, const run_stats *st, int64_t job, sim_time *buf)
{
    uint64_t count = 0, nc = 0;
    double sum = 0;
    for (uint64_t i = 0; i < st->n_flows; i++) {
        const flow_record *f = &st->flows[i];
        if (job >= 0 && f->job != (uint64_t)job)
            continue;
        count++;
        if (f->end_ps) {
            buf[nc++] = f->end_ps - f->start_ps;
            sum += (double)(f->end_ps - f->start_ps);
        }
    }
    qsort(buf, (size_t)nc, sizeof *buf, cmp_time);
    rec x = rec_begin(r, T_FLOWS);
    v_i64(&x, job);
    v_u64(&x, count);
    v_u64(&x, nc);
    if (nc) {
        v_u64(&x, nearest_rank(buf, nc, 0.50));
        v_u64(&x, nearest_rank(buf, nc, 0.90));
        v_u64(&x, nearest_rank(buf, nc, 0.99));
        v_u64(&x, nearest_rank(buf, nc, 0.999));
        v_u64(&x, buf[nc - 1]);
        v_f64(&x, sum / (double)nc);
    } else {
        for (int i = 0; i < 6; i++)
            v_null(&x);
    }
    rec_end(&x);
}

static uint64_t sum_drops(const uint64_t *d)
{
    uint64_t s = 0;
    for (int i = 0; i < DROP_REASONS; i++)
        s += d[i];
    return s;
}

void rdb_rows_from_run(rdb_rows *r, const scenario *sc, const run_stats *st)
{
    (void)sc;
    /* runs: the run's figures. jct_ps = the longest job JCT when every job completed (the
     * figure a sweep compares); busbw = the lowest busbw of the collective jobs. */
    uint32_t completed = 0;
    sim_time jct = 0;
    double busbw = -1;
    for (uint32_t j = 0; j < st->n_jobs; j++) {
        const job_result *jr = &st->jobs[j];
        if (jr->completed) {
            completed++;
            if (jr->jct_ps > jct)
                jct = jr->jct_ps;
        }
        if (jr->kind == JOB_COLLECTIVE && jr->completed && (busbw < 0 || jr->busbw_GBps < busbw))
            busbw = jr->busbw_GBps;
    }
    rec x = rec_begin(r, T_RUNS);
    v_text(&x, rdb_status_name(RDB_OK));
    v_null(&x);
    v_text(&x, end_reason_name(st->end_reason));
    v_u64(&x, st->end_ps);
    v_u64(&x, st->events);
    v_u64(&x, st->packet_hops);
    v_u64(&x, st->n_jobs);
    v_u64(&x, completed);
    v_u64(&x, st->jobs_failed);
    if (completed == st->n_jobs && st->n_jobs)
        v_u64(&x, jct);
    else
        v_null(&x);
    if (busbw >= 0)
        v_f64(&x, busbw);
    else
        v_null(&x);
    v_u64(&x, st->n_flows);
    v_u64(&x, st->flows_completed);
    if (st->flows_completed) {
        v_u64(&x, st->fct_p50_ps);
        v_u64(&x, st->fct_p99_ps);
        v_u64(&x, st->fct_max_ps);
    } else {
        v_null(&x);
        v_null(&x);
        v_null(&x);
    }
    v_u64(&x, st->tx_bytes);
    v_f64(&x, st->max_link_utilization);
    v_u64(&x, st->ecn_marked);
    v_u64(&x, st->pfc_pause_sent);
    v_u64(&x, st->pfc_paused_ps);
    v_u64(&x, st->pfc_watchdog_events);
    v_u64(&x, sum_drops(st->drops));
    for (int i = 0; i < DROP_REASONS; i++)
        v_u64(&x, st->drops[i]);
    v_u64(&x, st->cnp_sent);
    v_u64(&x, st->cnp_handled);
    v_u64(&x, st->retransmitted_packets);
    v_u64(&x, st->out_of_sequence);
    v_u64(&x, st->rto_events);
    v_u64(&x, st->qps_failed);
    v_u64(&x, st->sent_bytes);
    v_u64(&x, st->delivered_bytes);
    v_u64(&x, st->dropped_bytes);
    v_u64(&x, st->scale_up_bytes);
    v_f64(&x, st->wall_s);
    v_f64(&x, st->events_per_s);
    v_u64(&x, st->peak_rss_bytes);
    rec_end(&x);

    for (uint32_t j = 0; j < st->n_jobs; j++) {
        const job_result *jr = &st->jobs[j];
        x = rec_begin(r, T_JOBS);
        v_u64(&x, j);
        v_text(&x, jr->name);
        v_text(&x, job_kind_name(jr->kind));
        v_text(&x, jr->kind == JOB_COLLECTIVE ? coll_op_name(jr->op) : NULL);
        v_text(&x, jr->kind == JOB_COLLECTIVE ? coll_algo_name(jr->algorithm) : NULL);
        v_text(&x, jr->kind == JOB_TRAFFIC ? pattern_name(jr->pattern) : NULL);
        v_u64(&x, jr->ranks);
        v_u64(&x, jr->size_bytes);
        v_u64(&x, jr->start_ps);
        if (jr->completed) {
            v_u64(&x, jr->end_ps);
            v_u64(&x, jr->jct_ps);
        } else {
            v_null(&x);
            v_null(&x);
        }
        v_i64(&x, jr->completed);
        v_i64(&x, jr->failed);
        if (jr->failed)
            v_u64(&x, jr->failed_at_ps);
        else
            v_null(&x);
        v_text(&x, jr->failed ? jr->reason : NULL);
        if (jr->kind != JOB_TRAFFIC && jr->completed) {
            v_f64(&x, jr->algbw_GBps);
            v_f64(&x, jr->busbw_GBps);
        } else {
            v_null(&x);
            v_null(&x);
        }
        v_u64(&x, jr->flows);
        v_u64(&x, jr->flows_completed);
        if (jr->ideal_jct_ps)
            v_u64(&x, jr->ideal_jct_ps);
        else
            v_null(&x);
        if (jr->jct_over_ideal > 0)
            v_f64(&x, jr->jct_over_ideal);
        else
            v_null(&x);
        if (jr->kind == JOB_TRAINING) {
            v_u64(&x, jr->tp);
            v_u64(&x, jr->pp);
            v_u64(&x, jr->dp);
        } else {
            v_null(&x);
            v_null(&x);
            v_null(&x);
        }
        rec_end(&x);

        for (uint32_t i = 0; i < jr->n_iterations; i++) {
            const iter_result *it = &jr->iterations[i];
            x = rec_begin(r, T_ITERS);
            v_u64(&x, j);
            v_u64(&x, i);
            v_u64(&x, it->time_ps);
            if (jr->kind == JOB_TRAFFIC) {
                v_null(&x);
                v_null(&x);
            } else {
                v_f64(&x, it->algbw_GBps);
                v_f64(&x, it->busbw_GBps);
            }
            if (jr->kind == JOB_TRAINING) {
                v_u64(&x, it->train.compute_ps);
                v_u64(&x, it->train.tp_ps);
                v_u64(&x, it->train.pp_ps);
                v_u64(&x, it->train.dp_ps);
                v_u64(&x, it->train.bubble_ps);
            } else {
                for (int k = 0; k < 5; k++)
                    v_null(&x);
            }
            rec_end(&x);
        }
    }

    sim_time *buf = xmalloc((st->n_flows ? st->n_flows : 1) * sizeof *buf, "FCT percentiles");
    flows_row(r, st, -1, buf);
    for (uint32_t j = 0; j < st->n_jobs; j++)
        if (st->jobs[j].flows)
            flows_row(r, st, j, buf);
    xfree(buf);

    for (uint32_t p = 0; p < st->n_ports; p++) {
        const port_record *pr = &st->ports[p];
        x = rec_begin(r, T_PORTS);
        v_u64(&x, p);
        v_text(&x, pr->name);
        v_u64(&x, pr->tx_bytes);
        v_u64(&x, pr->tx_packets);
        v_u64(&x, pr->rx_bytes);
        v_u64(&x, pr->max_queue_bytes);
        v_f64(&x, pr->utilization);
        v_u64(&x, pr->ecn_marked);
        v_u64(&x, pr->pfc_pause_sent);
        v_u64(&x, pr->pfc_pause_rx);
        v_u64(&x, pr->pfc_paused_ps);
        v_u64(&x, pr->wd_events);
        v_u64(&x, sum_drops(pr->drops));
        v_u64(&x, pr->drops[DROP_BUFFER_FULL]);
        v_u64(&x, pr->drops[DROP_LINK_DOWN]);
        v_u64(&x, pr->drops[DROP_PFC_WATCHDOG]);
        rec_end(&x);
    }
}

void rdb_rows_failure(rdb_rows *r, enum rdb_status status, const char *error, double wall_s)
{
    rec x = rec_begin(r, T_RUNS);
    v_text(&x, rdb_status_name(status));
    v_text(&x, error);
    for (unsigned i = 2; i < N(runs_cols) - 3; i++)
        v_null(&x);
    v_f64(&x, wall_s);
    v_null(&x);
    v_null(&x);
    rec_end(&x);
}

/* ---------------------------------------------------------------- database -------------- */

struct rdb {
    sqlite3 *db;
    char *path;
    uint32_t n_axes;
    sqlite3_stmt *ins[T_COUNT];
};

static int db_err(rdb *db, err *e, const char *what)
{
    return err_set(e, ERR_IO, db->path, 0, 0, "%s: %s", what, sqlite3_errmsg(db->db));
}

static int exec(rdb *db, const char *sql, err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = err_set(e, ERR_IO, db->path, 0, 0, "%s", msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return rc;
    }
    return ERR_OK;
}

/* Growable SQL text. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = xrealloc(b->s, b->cap, "SQL text");
        if (b->len == 0)
            b->s[0] = '\0';
    }
}

/* A quoted SQL identifier ("loadbalance.mode"; a '"' doubled). */
static void sb_ident(sbuf *b, const char *name)
{
    sb_add(b, "\"");
    for (const char *p = name; *p; p++)
        sb_add(b, *p == '"' ? "\"\"" : "%c", *p);
    sb_add(b, "\"");
}

static int create_schema(rdb *db, const rdb_desc *d, err *e)
{
    sbuf b = {0};
    sb_add(&b, "CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;\n"
               "CREATE TABLE axes (position INTEGER PRIMARY KEY, key TEXT NOT NULL, "
               "n_values INTEGER NOT NULL);\n"
               "CREATE TABLE runs (run_id INTEGER PRIMARY KEY");
    for (uint32_t a = 0; a < d->n_axes; a++) {
        sb_add(&b, ", ");
        sb_ident(&b, d->axis_keys[a]);
    }
    sb_add(&b, ", seed INTEGER NOT NULL");
    for (unsigned c = 0; c < N(runs_cols); c++)
        sb_add(&b, ", %s %s", runs_cols[c].name, runs_cols[c].type);
    sb_add(&b, ");\n");
    for (int t = T_JOBS; t < T_COUNT; t++) {
        sb_add(&b, "CREATE TABLE %s (", tables[t].name);
        for (unsigned c = 0; c < tables[t].n; c++)
            sb_add(&b, "%s%s %s", c ? ", " : "", tables[t].cols[c].name, tables[t].cols[c].type);
        sb_add(&b, ", PRIMARY KEY (%s)) WITHOUT ROWID;\n", tables[t].pk);
    }
    sb_add(&b, "CREATE INDEX runs_status ON runs(status);\n"
               "CREATE INDEX runs_seed ON runs(seed);\n"
               "CREATE INDEX jobs_name ON jobs(name, run_id);\n"
               "CREATE INDEX ports_port ON ports(port, run_id);\n");
    for (uint32_t a = 0; a < d->n_axes; a++) {
        sb_add(&b, "CREATE INDEX runs_axis%u ON runs(", a);
        sb_ident(&b, d->axis_keys[a]);
        sb_add(&b, ");\n");
    }
    int rc = exec(db, b.s, e);
    xfree(b.s);
    if (rc)
        return rc;

    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO meta VALUES (?, ?)", -1, &st, NULL))
        return db_err(db, e, "meta");
    char hash[24], schema[8], total[16];
    snprintf(hash, sizeof hash, "%016" PRIx64, d->definition_hash);
    snprintf(schema, sizeof schema, "%d", RDB_SCHEMA);
    snprintf(total, sizeof total, "%" PRIu32, d->runs_total);
    const char *kv[][2] = {
        {"tool", "wirerate"}, {"version", WR_VERSION}, {"schema", schema},
        {"kind", d->kind},    {"source", d->source},   {"base", d->base},
        {"mode", d->mode},    {"runs_total", total},   {"definition_hash", hash},
    };
    for (size_t i = 0; i < N(kv) && !rc; i++) {
        if (!kv[i][1])
            continue;
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, kv[i][0], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, kv[i][1], -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_err(db, e, "meta");
    }
    sqlite3_finalize(st);
    if (rc)
        return rc;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO axes VALUES (?, ?, ?)", -1, &st, NULL))
        return db_err(db, e, "axes");
    for (uint32_t a = 0; a < d->n_axes && !rc; a++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, a);
        sqlite3_bind_text(st, 2, d->axis_keys[a], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, d->axis_n_values[a]);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_err(db, e, "axes");
    }
    sqlite3_finalize(st);
    return rc;
}

/* A meta value (returns new, or NULL if absent). */
static char *meta_get(rdb *db, const char *key)
{
    sqlite3_stmt *st;
    char *v = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL))
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = xstrdup((const char *)sqlite3_column_text(st, 0), "meta value");
    sqlite3_finalize(st);
    return v;
}

/* An existing database: the same kind, schema and definition, or refuse. */
static int check_existing(rdb *db, const rdb_desc *d, err *e)
{
    char *kind = meta_get(db, "kind"), *schema = meta_get(db, "schema");
    char *hash = meta_get(db, "definition_hash");
    char want[24];
    snprintf(want, sizeof want, "%016" PRIx64, d->definition_hash);
    int rc = ERR_OK;
    if (!kind || !schema || !hash)
        rc = err_set(e, ERR_IO, db->path, 0, 0,
                     "not a wirerate results database (no meta table); choose another -o");
    else if (strcmp(kind, d->kind) != 0)
        rc = err_set(e, ERR_IO, db->path, 0, 0, "holds the results of a %s, not a %s", kind,
                     d->kind);
    else if (atoi(schema) != RDB_SCHEMA)
        rc = err_set(e, ERR_IO, db->path, 0, 0,
                     "written by another wirerate version (schema %s, this one writes %d); "
                     "choose another -o",
                     schema, RDB_SCHEMA);
    else if (strcmp(hash, want) != 0)
        rc = err_set(e, ERR_IO, db->path, 0, 0,
                     "holds the results of a different sweep (its axes, seeds or base scenario "
                     "changed since those runs); choose another -o, or remove it to start over");
    xfree(kind);
    xfree(schema);
    xfree(hash);
    return rc;
}

static int prepare_inserts(rdb *db, err *e)
{
    for (int t = 0; t < T_COUNT; t++) {
        sbuf b = {0};
        unsigned n = tables[t].n + (t == T_RUNS ? 2 + db->n_axes : 0);
        sb_add(&b, "INSERT INTO %s VALUES (", tables[t].name);
        for (unsigned c = 0; c < n; c++)
            sb_add(&b, c ? ", ?" : "?");
        sb_add(&b, ")");
        int rc = sqlite3_prepare_v2(db->db, b.s, -1, &db->ins[t], NULL);
        xfree(b.s);
        if (rc != SQLITE_OK)
            return db_err(db, e, tables[t].name);
    }
    return ERR_OK;
}

rdb *rdb_open(const char *path, const rdb_desc *d, err *e)
{
    rdb *db = xcalloc(1, sizeof *db, "results database");
    db->path = xstrdup(path, "results database path");
    db->n_axes = d->n_axes;
    if (sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        db_err(db, e, "cannot open");
        rdb_close(db);
        return NULL;
    }
    /* a reader (sqlite3 CLI, pandas) may hold the file briefly while a sweep writes */
    sqlite3_busy_timeout(db->db, 10000);
    sqlite3_stmt *st;
    bool fresh = true;
    if (sqlite3_prepare_v2(db->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL) !=
        SQLITE_OK) {
        db_err(db, e, "not a database");
        rdb_close(db);
        return NULL;
    }
    if (sqlite3_step(st) == SQLITE_ROW)
        fresh = sqlite3_column_int64(st, 0) == 0;
    sqlite3_finalize(st);
    int rc = exec(db, "BEGIN IMMEDIATE", e);
    if (!rc)
        rc = fresh ? create_schema(db, d, e) : check_existing(db, d, e);
    if (!rc)
        rc = exec(db, "COMMIT", e);
    else
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    if (!rc)
        rc = prepare_inserts(db, e);
    if (rc) {
        rdb_close(db);
        return NULL;
    }
    return db;
}

void rdb_close(rdb *db)
{
    if (!db)
        return;
    for (int t = 0; t < T_COUNT; t++)
        sqlite3_finalize(db->ins[t]);
    sqlite3_close(db->db);
    xfree(db->path);
    xfree(db);
}

int rdb_done_runs(rdb *db, bool *done, uint32_t n, bool drop_failed, err *e)
{
    if (drop_failed) {
        int rc =
            exec(db,
                 "BEGIN IMMEDIATE;"
                 "DELETE FROM jobs WHERE run_id IN (SELECT run_id FROM runs WHERE status != 'ok');"
                 "DELETE FROM iterations WHERE run_id IN "
                 "(SELECT run_id FROM runs WHERE status != 'ok');"
                 "DELETE FROM flows WHERE run_id IN (SELECT run_id FROM runs WHERE status != 'ok');"
                 "DELETE FROM ports WHERE run_id IN (SELECT run_id FROM runs WHERE status != 'ok');"
                 "DELETE FROM runs WHERE status != 'ok';"
                 "COMMIT;",
                 e);
        if (rc) {
            sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
    }
    memset(done, 0, n * sizeof *done);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "SELECT run_id FROM runs", -1, &st, NULL) != SQLITE_OK)
        return db_err(db, e, "runs");
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id >= 0 && (uint64_t)id < n)
            done[id] = true;
    }
    sqlite3_finalize(st);
    return s == SQLITE_DONE ? ERR_OK : db_err(db, e, "runs");
}

/* Bind an axis value: a plain (unquoted) number as INTEGER or REAL, anything else as TEXT. */
static void bind_axis(sqlite3_stmt *st, int i, const rdb_value *v)
{
    const char *s = v->text;
    if (!v->quoted && *s) {
        char *end;
        errno = 0;
        long long ll = strtoll(s, &end, 10);
        if (!*end && errno == 0) {
            sqlite3_bind_int64(st, i, ll);
            return;
        }
        double d = strtod(s, &end);
        if (!*end && errno == 0 && (s[0] == '-' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) {
            sqlite3_bind_double(st, i, d);
            return;
        }
    }
    sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* Reader over a row buffer. */
typedef struct rd {
    const uint8_t *p, *end;
} rd;

static bool rd_get(rd *r, void *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return false;
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}

/* Bind `n` values from the buffer starting at parameter `first`. */
static bool bind_values(sqlite3_stmt *st, int first, unsigned n, rd *r)
{
    for (unsigned c = 0; c < n; c++) {
        uint8_t ty;
        if (!rd_get(r, &ty, 1))
            return false;
        int i = first + (int)c;
        int64_t iv;
        double dv;
        uint32_t len;
        switch (ty) {
        case 'i':
            if (!rd_get(r, &iv, 8))
                return false;
            sqlite3_bind_int64(st, i, iv);
            break;
        case 'd':
            if (!rd_get(r, &dv, 8))
                return false;
            sqlite3_bind_double(st, i, dv);
            break;
        case 'n':
            sqlite3_bind_null(st, i);
            break;
        case 't':
            if (!rd_get(r, &len, 4) || (size_t)(r->end - r->p) < len)
                return false;
            sqlite3_bind_text(st, i, (const char *)r->p, (int)len, SQLITE_TRANSIENT);
            r->p += len;
            break;
        default:
            return false;
        }
    }
    return true;
}

int rdb_insert(rdb *db, uint32_t run_id, const rdb_value *axis_values, uint64_t seed,
               const rdb_rows *rows, err *e)
{
    int rc = exec(db, "BEGIN IMMEDIATE", e);
    if (rc)
        return rc;
    rd r = {rows->buf, rows->buf + rows->len};
    bool first = true;
    while (r.p < r.end && !rc) {
        uint8_t t;
        uint16_t n;
        if (!rd_get(&r, &t, 1) || !rd_get(&r, &n, 2) || t >= T_COUNT || (first && t != T_RUNS) ||
            (!first && t == T_RUNS) || n != tables[t].n - (t == T_RUNS ? 0 : 1)) {
            rc = err_set(e, ERR_RUN, db->path, 0, 0, "run %" PRIu32 ": malformed result rows",
                         run_id);
            break;
        }
        sqlite3_stmt *st = db->ins[t];
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        sqlite3_bind_int64(st, 1, run_id);
        int at = 2;
        if (t == T_RUNS) {
            for (uint32_t a = 0; a < db->n_axes; a++)
                bind_axis(st, at++, &axis_values[a]);
            sqlite3_bind_int64(st, at++, seed > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)seed);
        }
        if (!bind_values(st, at, n, &r)) {
            rc = err_set(e, ERR_RUN, db->path, 0, 0, "run %" PRIu32 ": malformed result rows",
                         run_id);
            break;
        }
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_err(db, e, tables[t].name);
        first = false;
    }
    if (!rc && first)
        rc = err_set(e, ERR_RUN, db->path, 0, 0, "run %" PRIu32 ": no result rows", run_id);
    if (!rc)
        return exec(db, "COMMIT", e);
    sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int rdb_counts(rdb *db, uint32_t *ok, uint32_t *invalid, uint32_t *failed, err *e)
{
    uint32_t *out[3] = {ok, invalid, failed};
    for (int s = 0; s < 3; s++) {
        if (!out[s])
            continue;
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db->db, "SELECT count(*) FROM runs WHERE status = ?", -1, &st,
                               NULL) != SQLITE_OK)
            return db_err(db, e, "runs");
        sqlite3_bind_text(st, 1, rdb_status_name((enum rdb_status)s), -1, SQLITE_STATIC);
        *out[s] = sqlite3_step(st) == SQLITE_ROW ? (uint32_t)sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
    }
    return ERR_OK;
}

int rdb_each_problem(rdb *db, int limit,
                     void (*fn)(void *user, uint32_t run_id, const char *status, const char *error),
                     void *user, err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "SELECT run_id, status, error FROM runs WHERE status != 'ok' "
                           "ORDER BY run_id LIMIT ?",
                           -1, &st, NULL) != SQLITE_OK)
        return db_err(db, e, "runs");
    sqlite3_bind_int(st, 1, limit);
    while (sqlite3_step(st) == SQLITE_ROW)
        fn(user, (uint32_t)sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
           (const char *)sqlite3_column_text(st, 2));
    sqlite3_finalize(st);
    return ERR_OK;
}

int rdb_write_file(rdb *db, FILE *f, err *e)
{
    sqlite3_int64 n = 0;
    unsigned char *bytes = sqlite3_serialize(db->db, "main", &n, 0);
    if (!bytes)
        return db_err(db, e, "serialize");
    size_t w = fwrite(bytes, 1, (size_t)n, f);
    sqlite3_free(bytes);
    if (w != (size_t)n)
        return err_set(e, ERR_IO, db->path, 0, 0, "write failed");
    return ERR_OK;
}
