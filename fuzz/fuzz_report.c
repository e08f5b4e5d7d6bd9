/*
 * fuzz_report.c — libFuzzer entry for `wirerate report`: a hostile output folder. The input is
 * cut at lines "%%" into up to six files, in this order:
 *   summary.json, flows.csv, ports.csv, timeseries.csv, dcqcn_rates.csv, manifest.json
 * (a missing part is a missing file; an empty part an empty file), written into a private temp
 * folder; then report_load and, when it accepts the folder, report_write_html to /dev/null.
 * Whatever the bytes: no crash, no undefined behaviour (the CI builds this with ASan+UBSan), no
 * leak, and every refusal carries a message.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"summary.json",    "flows.csv",    "ports.csv",
                                    "timeseries.csv", "dcqcn_rates.csv", "manifest.json"};
#define N_FILES (sizeof names / sizeof names[0])

static char dir[64];

static void path_of(char *p, size_t n, const char *name)
{
    snprintf(p, n, "%s/%s", dir, name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s", "/tmp/wr-fuzz-report.XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    const char *p = (const char *)data, *end = p + size;
    for (size_t i = 0; i < N_FILES; i++) {
        char path[128];
        path_of(path, sizeof path, names[i]);
        if (!p) {
            unlink(path);
            continue;
        }
        const char *cut = NULL; /* next "\n%%\n" (or "%%\n" at the start) */
        for (const char *q = p; q + 3 <= end; q++)
            if ((q == p || q[-1] == '\n') && q[0] == '%' && q[1] == '%' && q[2] == '\n') {
                cut = q;
                break;
            }
        const char *stop = cut ? cut : end;
        FILE *f = fopen(path, "wb");
        if (!f)
            abort();
        if (stop > p)
            fwrite(p, 1, (size_t)(stop - p), f);
        fclose(f);
        p = cut ? cut + 3 : NULL;
    }
    err e;
    err_clear(&e);
    report *r = report_load(dir, &e);
    if (r) {
        FILE *out = fopen("/dev/null", "w");
        if (!out)
            abort();
        report_write_html(out, r);
        fclose(out);
        report_free(r);
    } else if (e.msg[0] == '\0') {
        abort(); /* every refusal says why */
    }
    return 0;
}
