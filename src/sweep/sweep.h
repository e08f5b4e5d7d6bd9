/*
 * sweep.h — a design-space sweep: a base scenario, axes of `--set`-style keys with value lists
 * (grid: every combination; zip: the i-th values together), and repetitions over seeds
 * (spec/scenario.md "sweep"; docs/sweep.md):
 *
 *     name: lb-vs-cc            # default: the file's base name
 *     base: allreduce.yaml      # a scenario; relative paths are from the sweep file's folder
 *     mode: grid                # grid | zip
 *     axes:
 *       loadbalance.mode: [ecmp, spray]
 *       workload.0.size: [1MB, 4MB, 16MB]
 *     seeds: [1, 2]             # or a count: `seeds: 3` = 1, 2, 3; default: the base's seed
 *     output: results.db        # default out/<name>.db; `-o` wins
 *
 * Runs are numbered 0..n-1 in a fixed order: the grid varies the last axis fastest, like nested
 * loops in file order, and the seeds innermost (zip: value index, then seed). A run is the base
 * scenario loaded with the overrides "AXIS=VALUE"... and "seed=SEED" — the same mechanism and the
 * same validation as `wirerate run --set`. Errors in the sweep file, including an axis value the
 * scenario refuses, carry the sweep file's file:line:col (ERR_INVALID), as scenario errors do.
 *
 * Library code: nothing prints. The definition owns everything it points to (its arena).
 */
#ifndef WR_SWEEP_SWEEP_H
#define WR_SWEEP_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../config/tree.h"
#include "../core/arena.h"
#include "../core/err.h"
#include "../report/resultsdb.h"

enum sweep_mode { SWEEP_GRID, SWEEP_ZIP };

typedef struct sweep_axis {
    const char *key;          /* dotted scenario key, as written */
    const cfg_node *key_node; /* for errors */
    uint32_t n_values;
    const char **value_text;     /* override value (YAML text: scalar, or flow for lists/maps) */
    rdb_value *value;            /* as stored in the database (text, quoted) */
    const cfg_node **value_node; /* for errors */
} sweep_axis;

typedef struct sweep_def {
    arena mem;
    const char *file; /* the sweep file as given */
    const char *name;
    const char *base;   /* base scenario path, resolved against the sweep file */
    const char *output; /* output: key, NULL when absent */
    enum sweep_mode mode;
    uint32_t n_axes;
    sweep_axis *axes;
    uint32_t n_points; /* combinations of axis values */
    uint32_t n_seeds;  /* 0 = no seeds key: the base scenario's own seed */
    uint64_t *seeds;
    const cfg_node **seed_node;
    uint32_t n_runs;    /* n_points × max(1, n_seeds) */
    uint64_t *run_seed; /* per run, after sweep_validate */
    uint64_t hash;      /* after sweep_validate: identifies the sweep's runs */
    cfg_tree *tree;
} sweep_def;

/* Most runs a sweep may define (a typo such as 10 axes of 10 values would be 10^10). */
#define SWEEP_MAX_RUNS 1000000u

/* Load and check the sweep file's shape. ERR_OK, or ERR_INVALID / ERR_IO with *e; on failure *s
 * is freed. */
int sweep_load(sweep_def *s, const char *path, err *e);
void sweep_free(sweep_def *s);

/* Run `id`'s value index per axis (n_axes entries into idx) and its seed index (or 0). */
void sweep_point(const sweep_def *s, uint32_t id, uint32_t *idx, uint32_t *seed_idx);

/* Load run `id`'s scenario: the base with the run's overrides. Errors in an override point into
 * the sweep file; other errors name the run. ERR_OK or the error's code with *e (and *sc freed). */
int sweep_load_run(const sweep_def *s, uint32_t id, scenario *sc, err *e);

/* Load every run's scenario once (nothing is built or simulated): the first invalid one is the
 * error. Fills run_seed and hash (over the base file's bytes, every run's overrides, and the bytes
 * of every file a run reads by path: size_cdf CSVs, Chakra traces; scenario.ref_files). */
int sweep_validate(sweep_def *s, err *e);

/* "loadbalance.mode=spray, workload.0.size=4MB, seed=2" for run `id` (into buf; returns buf). */
char *sweep_describe(const sweep_def *s, uint32_t id, char *buf, size_t len);

/* The axis values of run `id` as stored (n_axes entries into out). */
void sweep_values(const sweep_def *s, uint32_t id, rdb_value *out);

/*
 * Simulate run `id` (in a worker process) and fill `rows` with its results: status ok with
 * every table's rows, or status invalid with the error when the scenario cannot be built (e.g. a
 * combination of values the topology refuses). Returns ERR_OK when rows were produced.
 */
int sweep_execute(const sweep_def *s, uint32_t id, rdb_rows *rows);

/* A worker process's task (pool_work_fn body): sweep_execute run `id` and write its rows to fd.
 * Returns the process exit status (0 = complete rows written). */
int sweep_work(const sweep_def *s, uint32_t id, int fd);

/* Store a finished task in the database: its rows when the worker exited 0 with valid rows, else
 * a `failed` row naming the exit status or signal and the end of the worker's stderr (*failed
 * set). ERR_OK, or the database's error (ERR_IO), which should stop the sweep. */
struct pool_outcome;
int sweep_store(const sweep_def *s, rdb *db, const struct pool_outcome *o, bool *failed, err *e);

/* The database description of this sweep (pointers into s and `keys`/`nvals`, n_axes each). */
void sweep_desc(const sweep_def *s, rdb_desc *d, const char **keys, uint32_t *nvals);

#endif
