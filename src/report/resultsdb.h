/*
 * resultsdb.h — results in SQLite (libsqlite3): one database per sweep (`wirerate sweep`) or per
 * run (`output.formats: [sqlite]`), with the schema documented in docs/sweep.md:
 *
 *   meta        key/value: tool, version, kind (sweep | run), schema, definition hash, ...
 *   axes        position, key (dotted scenario key), n_values
 *   runs        run_id, one column per axis (named by its dotted key), seed, status, error,
 *               the run's figures (end reason, JCT, busbw, FCT percentiles, fabric and NIC
 *               counters) and the wall-clock columns wall_s, events_per_s, peak_rss_bytes
 *   jobs        (run_id, job): per job of the scenario, as summary.json's jobs[]
 *   iterations  (run_id, job, iteration): per iteration time, algbw, busbw, training breakdown
 *   flows       (run_id, job): FCT percentiles per job; job = -1 is every flow of the run
 *   ports       (run_id, port_id): each switch egress and NIC port's key counters
 *
 * Every figure comes from run_stats (workload/run.h), the structures summary.json is written
 * from; nothing is re-parsed. Rows are keyed by run id (runs is a rowid table keyed by run_id,
 * the others WITHOUT ROWID tables keyed by their primary key), so the content read back does not
 * depend on the order runs finished in: the same sweep gives the same rows whatever -j or MPI
 * layout, except for the wall-clock columns of runs (wall_s, events_per_s, peak_rss_bytes),
 * which measure the machine.
 *
 * Results travel between processes (a forked worker, an MPI rank) as an rdb_rows buffer: a flat
 * byte string of typed rows that the process owning the database inserts in one transaction.
 * Library code: nothing prints; failures fill an err (ERR_IO with the path and SQLite's message).
 */
#ifndef WR_REPORT_RESULTSDB_H
#define WR_REPORT_RESULTSDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../workload/run.h"

/* Schema version stored in meta.schema; bumped when a table changes incompatibly. */
#define RDB_SCHEMA 1

/* A run's status (runs.status). */
enum rdb_status {
    RDB_OK,      /* "ok": simulated (its jobs may still have failed: see end_reason) */
    RDB_INVALID, /* "invalid": refused before simulating (e.g. a leaf radix too small for this
                  * combination of axis values); error holds file:line:col: message */
    RDB_FAILED,  /* "failed": the worker process crashed or exited abnormally; error holds why
                  * (exit status or signal) and the end of what it wrote on stderr */
};
const char *rdb_status_name(enum rdb_status s);

/* Serialized rows of one run (growable byte buffer; owns its memory). */
typedef struct rdb_rows {
    uint8_t *buf;
    size_t len, cap;
} rdb_rows;

void rdb_rows_init(rdb_rows *r);
void rdb_rows_free(rdb_rows *r);
/* Take over `len` bytes received from another process (copied). */
void rdb_rows_set(rdb_rows *r, const void *bytes, size_t len);

/* The rows of a simulated run: its runs figures (status ok), jobs, iterations, flows and ports.
 * `sc` and `st` are borrowed. wall_s/events_per_s/peak_rss_bytes are taken from st. */
void rdb_rows_from_run(rdb_rows *r, const scenario *sc, const run_stats *st);
/* The single runs row of a run that produced no results (status invalid or failed). */
void rdb_rows_failure(rdb_rows *r, enum rdb_status status, const char *error, double wall_s);

/* One axis of a sweep as stored: its dotted key. Values are given per run (rdb_insert). */
typedef struct rdb_desc {
    const char *kind;         /* "sweep" or "run" */
    const char *source;       /* the sweep file or scenario path, for meta */
    const char *base;         /* base scenario (sweep) */
    const char *mode;         /* "grid" / "zip" (sweep), NULL for a run */
    uint64_t definition_hash; /* identifies the sweep: runs, axes, seeds, base file bytes */
    uint32_t runs_total;
    uint32_t n_axes;
    const char *const *axis_keys;
    const uint32_t *axis_n_values;
} rdb_desc;

typedef struct rdb rdb;

/*
 * Open `path` (":memory:" for an in-memory database), creating the tables when it is new. An
 * existing database must hold the same sweep (meta kind and definition hash): anything else is
 * ERR_IO naming what differs, so results of two different sweeps never mix. Returns new or NULL
 * with *e set.
 */
rdb *rdb_open(const char *path, const rdb_desc *d, err *e);
void rdb_close(rdb *db);

/* done[i] = true for each run id i < n already in the database (any status). With
 * `drop_failed`, runs whose status is not ok are first deleted (all their rows), so they run
 * again. ERR_OK or ERR_IO. */
int rdb_done_runs(rdb *db, bool *done, uint32_t n, bool drop_failed, err *e);

/* Axis value as written in the sweep file: stored as INTEGER or REAL when it is a plain number
 * (not quoted), else as TEXT. */
typedef struct rdb_value {
    const char *text;
    bool quoted;
} rdb_value;

/* Insert run `run_id` in one transaction: the runs row (axis values, seed, then the figures of
 * `rows`) and the other tables' rows. `rows` comes from rdb_rows_from_run / rdb_rows_failure,
 * possibly from another process: a malformed buffer is ERR_RUN. */
int rdb_insert(rdb *db, uint32_t run_id, const rdb_value *axis_values, uint64_t seed,
               const rdb_rows *rows, err *e);

/* Count of runs by status in the database (any may be NULL). */
int rdb_counts(rdb *db, uint32_t *ok, uint32_t *invalid, uint32_t *failed, err *e);

/* Call fn for each run whose status is not ok, by run id, at most `limit` of them. */
int rdb_each_problem(rdb *db, int limit,
                     void (*fn)(void *user, uint32_t run_id, const char *status, const char *error),
                     void *user, err *e);

/* Write the whole database (an in-memory one, e.g. for output.formats sqlite) to f as a
 * database file. 0, or -1 with *e set (ERR_IO). */
int rdb_write_file(rdb *db, FILE *f, err *e);

#endif
