/*
 * outdir.h — writing a run's output folder without ever leaving half-written files.
 *
 *   outdir_preflight(dir)   before the run: can dir be created / written? (creates nothing)
 *   outdir_open(&o, dir)    after the run: mkdir -p, remembering which directories it created
 *   f = outdir_begin(&o, "summary.json")   a temp file ".summary.json.tmp-PID" in dir
 *   ... write ...; outdir_end(&o, f)       flush, fsync, close, check for errors
 *   outdir_commit(&o)       rename every temp file into place
 *   outdir_abort(&o)        on any failure: remove temp files and the directories it created
 *
 * Every file reaches its final name by rename(2) — atomic within a filesystem — only after all
 * files of the run were written successfully, so a reader sees either the previous complete
 * results or the new complete results. I/O failures fill an err with ERR_IO, the path and
 * strerror(errno).
 */
#ifndef WR_CLI_OUTDIR_H
#define WR_CLI_OUTDIR_H

#include <stdbool.h>
#include <stdio.h>

#include "../core/err.h"

#define OUTDIR_MAX_FILES 32
#define OUTDIR_MAX_CREATED 32

typedef struct outdir {
    char *dir; /* owned copy, no trailing slash */
    int n_created;
    char *created[OUTDIR_MAX_CREATED]; /* directories mkdir'ed by us, parents first */
    int n_files;
    char *tmp[OUTDIR_MAX_FILES];   /* temp paths */
    char *final[OUTDIR_MAX_FILES]; /* final paths */
    bool committed;
} outdir;

int outdir_preflight(const char *dir, err *e);
int outdir_open(outdir *o, const char *dir, err *e);
/* Returns a stream for `name` in the directory, or NULL with *e set. */
FILE *outdir_begin(outdir *o, const char *name, err *e);
/* Closes f (always); ERR_OK or ERR_IO. */
int outdir_end(outdir *o, FILE *f, err *e);
int outdir_commit(outdir *o, err *e);
/* Undo whatever was not committed; safe to call after commit (then does nothing).
 * Async-signal-safe: the CLI calls it from its SIGINT/SIGTERM/SIGABRT handler. */
void outdir_abort(outdir *o);
/* Final paths of the files, in the order they were begun (valid until outdir_free). */
const char *const *outdir_files(const outdir *o);
void outdir_free(outdir *o);

#endif
