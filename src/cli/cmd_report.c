/*
 * cmd_report.c — `wirerate report DIR`: read the files a run wrote in DIR (summary.json, and
 * ports.csv, flows.csv, timeseries.csv, dcqcn_rates.csv when present) and write DIR/report.html,
 * one self-contained file (report.h). Written via temp name + rename, beside the run's files
 * (which stay as they are); when the folder has manifest.json, only the files it lists with
 * their recorded size and hash are read;
 * exit 4 when summary.json cannot be read or the folder cannot be written, 3 when a file is
 * malformed, 2 on usage errors.
 */
#include <stdio.h>
#include <string.h>

#include "../core/err.h"
#include "../report/report.h"
#include "args.h"
#include "cli.h"
#include "diag.h"
#include "outdir.h"

void cmd_report_help(void)
{
    fputs("usage: wirerate report DIR\n"
          "\n"
          "Write DIR/report.html from the results of a run in DIR: job completion times,\n"
          "link-utilization heat maps per tier, queue depth and PFC pause timelines of the\n"
          "hottest ports, the FCT CDF and the DCQCN rates of the slowest flows, with the\n"
          "run's diagnosis. One self-contained file (inline CSS and SVG, no network).\n"
          "Needs summary.json; the charts use ports.csv, flows.csv and timeseries.csv\n"
          "(output.formats: [json, csv]) when they are there. When DIR has manifest.json\n"
          "(written by every run), files it does not list are ignored and a listed file\n"
          "that changed since the run is refused (exit 3): a page never mixes two runs.\n"
          "\n"
          "  -h, --help   this help\n"
          "\n"
          "Exit codes: 0 ok, 2 usage error, 3 malformed input file, 4 I/O error.\n",
          stdout);
}

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cmd_report_help();
            return ERR_OK;
        }
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("report", "unknown option '%s'", argv[i]);
        if (dir)
            return cli_usage_error("report", "more than one folder given ('%s')", argv[i]);
        dir = argv[i];
    }
    if (!dir)
        return cli_usage_error("report", "missing DIR (a run's output folder)");
    err e;
    err_clear(&e);
    report *r = report_load(dir, &e);
    if (!r) {
        diag_msg(stderr, "%s", e.msg);
        return e.code ? e.code : ERR_IO;
    }
    outdir od;
    memset(&od, 0, sizeof od);
    int rc = outdir_open_into(&od, dir, &e);
    FILE *f = rc ? NULL : outdir_begin(&od, "report.html", &e);
    if (f) {
        report_write_html(f, r);
        rc = outdir_end(&od, f, &e);
        if (!rc)
            rc = outdir_commit(&od, &e);
    } else if (!rc) {
        rc = ERR_IO;
    }
    report_free(r);
    if (rc) {
        outdir_abort(&od);
        diag_print(stderr, &e, NULL, 0);
    } else {
        printf("%s\n", outdir_files(&od)[0]);
    }
    outdir_free(&od);
    return rc;
}
