/*
 * manifest.h — manifest.json, the list of files one run wrote into its output folder:
 *
 *   {"tool": "wirerate", "version": "0.1.0", "run_id": "5f0c…",
 *    "files": [{"name": "summary.json", "bytes": 5123, "fnv1a64": "…"}, …]}
 *
 * run_id is the FNV-1a 64 hash over the names and hashes of the files, so two runs that wrote
 * the same bytes carry the same id (results are deterministic) and any other run differs.
 * The CLI writes it last, into the run's fresh folder (src/cli/outdir.c); `wirerate report`
 * reads only files listed in it whose size and hash match, so a file left by another run, or
 * copied in later, never mixes into the page (report_read.c).
 */
#ifndef WR_REPORT_MANIFEST_H
#define WR_REPORT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#define MANIFEST_NAME "manifest.json"
#define MANIFEST_FNV_SEED 1469598103934665603ull

/* FNV-1a 64 of data[0..n), continuing from h (start with MANIFEST_FNV_SEED). */
uint64_t manifest_fnv1a64(const void *data, size_t n, uint64_t h);

#endif
