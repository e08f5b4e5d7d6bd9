/*
 * outdir.h — one run, one folder: a run's output folder is replaced as a whole, atomically, so
 * a reader (or `wirerate report`) sees either the previous run's complete folder or the new
 * run's complete folder, never a mix of files from two runs.
 *
 *   outdir_preflight(dir)   before the run: can dir be created, or replaced (see below)?
 *   outdir_open(&o, dir)    after the run: a fresh staging folder ".NAME.wr-new-PID" beside dir
 *   f = outdir_begin(&o, "summary.json")   a file in the staging folder
 *   ... write ...; outdir_end(&o, f)       flush, fsync, close, check for errors
 *   outdir_write_manifest(&o)              manifest.json over the files so far (optional: the
 *                                          commit writes it anyway; call it before reading the
 *                                          staged folder back, as report.html does)
 *   outdir_commit(&o)       manifest.json, then swap the staging folder into dir's place
 *   outdir_abort(&o)        on any failure: remove the staging folder and the parents it made
 *
 * The swap: with no folder at dir, one rename(2). With a folder there, renameat2(RENAME_EXCHANGE)
 * exchanges the two atomically (Linux >= 3.15); where the file system cannot, dir is renamed
 * aside and the staging folder renamed in (a reader may then briefly find no folder, never a
 * mixed one). The previous folder is then deleted. A folder is only replaced when everything in
 * it is wirerate's: the files its manifest.json lists (or, without a manifest, the names a run
 * writes), manifest.json, report.html and hidden temp files of an interrupted run. Any other
 * file or folder in it makes outdir_preflight/outdir_open refuse with ERR_IO naming it, before
 * the run, so nobody's notes are deleted by pointing -o at the wrong folder.
 *
 * outdir_open_into(&o, dir) is the other mode, for `wirerate report DIR`: it adds files to an
 * existing folder, each via a hidden temp name and rename(2), leaving the rest as it is.
 * I/O failures fill an err with ERR_IO, the path and strerror(errno).
 */
#ifndef WR_CLI_OUTDIR_H
#define WR_CLI_OUTDIR_H

#include <stdbool.h>
#include <stdio.h>

#include "../core/err.h"

#define OUTDIR_MAX_CREATED 32

typedef struct outdir {
    char *dir;     /* owned copy, no trailing slash (resolved when it exists) */
    char *stage;   /* staging folder (replace mode), NULL in add mode */
    char *old;     /* where the previous folder goes during the swap */
    int n_created;
    char *created[OUTDIR_MAX_CREATED]; /* directories mkdir'ed by us, parents first */
    int n_files, cap_files;
    char **name;  /* file names, relative to the folder ("sonic/leaf0/config_db.json") */
    char **tmp;   /* where they are written */
    char **final; /* final paths */
    int n_subdirs, cap_subdirs;
    char **subdirs;                /* folders made inside the staging folder, parents first */
    int manifest_i;                /* index of manifest.json + 1, 0 before it is written */
    bool committed;
} outdir;

int outdir_preflight(const char *dir, err *e);
int outdir_open(outdir *o, const char *dir, err *e);
int outdir_open_into(outdir *o, const char *dir, err *e);
/* The folder the files are being written to (staging folder in replace mode). */
const char *outdir_path(const outdir *o);
/* Returns a stream for `name` in the directory, or NULL with *e set. In replace mode `name` may
 * contain '/' (files in subfolders, made as needed; `plan` writes sonic/<switch>/...). */
FILE *outdir_begin(outdir *o, const char *name, err *e);
/* Closes f (always); ERR_OK or ERR_IO. */
int outdir_end(outdir *o, FILE *f, err *e);
int outdir_write_manifest(outdir *o, err *e);
int outdir_commit(outdir *o, err *e);
/* Undo whatever was not committed; safe to call after commit (then does nothing).
 * Async-signal-safe: the CLI calls it from its SIGINT/SIGTERM/SIGABRT handler. */
void outdir_abort(outdir *o);
/* Final paths of the files, in the order they were begun (valid until outdir_free). */
const char *const *outdir_files(const outdir *o);
void outdir_free(outdir *o);

#endif
