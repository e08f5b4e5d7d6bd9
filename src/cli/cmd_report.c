/*
 * cmd_report.c — `wirerate report DIR`: read the files a run wrote in DIR (summary.json, and
 * ports.csv, flows.csv, timeseries.csv, dcqcn_rates.csv when present) and write DIR/report.html,
 * one self-contained file (report.h). Written via temp name + rename, beside the run's files
 * (which stay as they are); when the folder has manifest.json, only the files it lists with
 * their recorded size and hash are read;
 * exit 4 when summary.json cannot be read or the folder cannot be written, 3 when a file is
 * malformed, 2 on usage errors.
 *
 * `wirerate report results.db` (a file that is an SQLite database): the page comparing the runs
 * of a sweep (report/compare.h), written beside the database as results.html (the database's
 * name with .html), also via temp name + rename; [-o FILE] names it instead. Exit 3 when the
 * database is not a wirerate results database, 4 when it cannot be read or the page written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/err.h"
#include "../core/alloc.h"
#include "../report/compare.h"
#include "../report/report.h"
#include "args.h"
#include "cli.h"
#include "diag.h"
#include "outdir.h"

void cmd_report_help(void)
{
    fputs("usage: wirerate report DIR\n"
          "       wirerate report results.db [-o PAGE.html]\n"
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
          "With a results database (wirerate sweep, or output.formats: [sqlite]), write\n"
          "one page comparing its runs instead: the best configuration by mean JCT, busbw\n"
          "and p99 FCT, each figure per axis value, every configuration ranked, and the\n"
          "runs that failed. Written beside the database (results.db -> results.html)\n"
          "unless -o names the page.\n"
          "\n"
          "  -o FILE      (results.db only) where to write the page\n"
          "  -h, --help   this help\n"
          "\n"
          "Exit codes: 0 ok, 2 usage error, 3 malformed input file, 4 I/O error.\n",
          stdout);
}

/* The comparison page of a results database: `page` (or DB's name with .html) via temp name +
 * rename in its folder. */
static int report_database(const char *db, const char *page)
{
    err e;
    err_clear(&e);
    compare *c = compare_load(db, &e);
    if (!c) {
        diag_print(stderr, &e, NULL, 0);
        return e.code ? e.code : ERR_IO;
    }
    char *target = xstrdup(page ? page : db, "page path");
    if (!page) {
        char *slash = strrchr(target, '/'), *dot = strrchr(target, '.');
        if (dot && (!slash || dot > slash + 1))
            *dot = '\0';
        size_t n = strlen(target) + 6;
        target = xrealloc(target, n, "page path");
        strcat(target, ".html");
    }
    char *slash = strrchr(target, '/');
    char *dir = slash ? xstrdup(target, "page folder") : xstrdup(".", "page folder");
    if (slash)
        dir[slash - target == 0 ? 1 : slash - target] = '\0';
    const char *name = slash ? slash + 1 : target;
    outdir od;
    memset(&od, 0, sizeof od);
    int rc = *name ? outdir_open_into(&od, dir, &e)
                   : err_set(&e, ERR_IO, target, 0, 0, "the page needs a file name");
    FILE *f = rc ? NULL : outdir_begin(&od, name, &e);
    if (f) {
        compare_write_html(f, c);
        rc = outdir_end(&od, f, &e);
        if (!rc)
            rc = outdir_commit(&od, &e);
    } else if (!rc) {
        rc = ERR_IO;
    }
    if (rc) {
        outdir_abort(&od);
        diag_print(stderr, &e, NULL, 0);
    } else {
        printf("%s\n", outdir_files(&od)[0]);
        if (compare_best(c))
            printf("best configuration by mean JCT: %s\n", compare_best(c));
    }
    outdir_free(&od);
    xfree(dir);
    xfree(target);
    compare_free(c);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    const char *dir = NULL, *page = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        bool missing = false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cmd_report_help();
            return ERR_OK;
        }
        if ((v = cli_opt_value(argc, argv, &i, "-o", &missing))) {
            if (!*v)
                return cli_usage_error("report", "-o needs a file name");
            page = v;
            continue;
        }
        if (missing)
            return cli_usage_error("report", "option '%s' needs a value", argv[i]);
        if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("report", "unknown option '%s'", argv[i]);
        if (dir)
            return cli_usage_error("report", "more than one folder given ('%s')", argv[i]);
        dir = argv[i];
    }
    if (!dir)
        return cli_usage_error("report", "missing DIR (a run's output folder) or results.db");
    struct stat sb;
    if (stat(dir, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (!compare_is_database(dir)) {
            diag_msg(stderr,
                     "%s: error: not a run's output folder nor a results database "
                     "(an SQLite file)",
                     dir);
            return ERR_INVALID;
        }
        return report_database(dir, page);
    }
    if (page)
        return cli_usage_error("report", "-o is for a results database; a folder's report is "
                                         "DIR/report.html");
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
