/*
 * cmd_run.c — `wirerate run SCENARIO.yaml [-o DIR] [--seed N] [--set KEY=VALUE]... [--json]
 * [--quiet]`.
 *
 * Order of work, chosen so that a mistake costs nothing and leaves nothing behind:
 *   1. parse the command line (usage errors: exit 2);
 *   2. load and validate the scenario with the overrides (exit 3, or 4 if unreadable);
 *   3. check that the output folder could be written — before a possibly long run, without
 *      creating anything (exit 4);
 *   4. build the run (topology, routes, jobs; exit 3 on impossible combinations) and simulate;
 *   5. only then write every file into a fresh folder that replaces the previous run's whole
 *      (outdir.h);
 *   6. print the human summary, or with --json the summary JSON and nothing else, on stdout.
 * `--seed N` is the override seed=N and `--set` overrides are applied in command-line order, so
 * the last one given wins. `-o DIR` replaces output.dir after loading: a path is not a YAML
 * scalar (think "yes", "1e3" or "a: b") and must not be parsed as one.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../config/config.h"
#include "../core/alloc.h"
#include "../report/report.h"
#include "../report/resultsdb.h"
#include "../report/summary.h"
#include "../telemetry/prom.h"
#include "../telemetry/telemetry.h"
#include "../workload/run.h"
#include "args.h"
#include "cli.h"
#include "diag.h"
#include "outdir.h"
#include "progress.h"

typedef struct run_opts {
    const char *scenario_path;
    const char *out_dir; /* -o, NULL = output.dir */
    bool json, quiet, isolated;
    uint64_t max_memory; /* --max-memory, 0 = the machine's available memory */
    cli_overrides ov; /* --seed and --set, in command-line order */
} run_opts;

void cmd_run_help(void)
{
    fputs("usage: wirerate run SCENARIO.yaml [-o DIR] [--seed N] [--set KEY=VALUE]... [--json]"
          " [--quiet] [--isolated] [--fidelity packet|flow]\n"
          "\n"
          "Simulate SCENARIO.yaml packet by packet (or, with --fidelity flow, as max-min fair\n"
          "fluid flows on the same paths) and report job completion times, flow completion\n"
          "times and fabric counters.\n"
          "\n"
          "  -o, --output DIR     write results to DIR (default: output.dir, else out/<name>)\n"
          "      --seed N         random seed (same as --set seed=N)\n"
          "      --fidelity F     packet (default) or flow: flow-level, for 10k-100k+ GPU\n"
          "                       what-ifs (same as --set sim.fidelity=F; docs/fidelity.md)\n"
          "      --set KEY=VALUE  override a scenario key by dotted path, e.g.\n"
          "                       --set fabric.host_link=800Gbps  --set workload.0.size=8MB\n"
          "      --json           print summary.json on stdout instead of the text summary\n"
          "  -q, --quiet          no progress line on stderr\n"
          "      --isolated       also simulate each job alone and report its slowdown from\n"
          "                       sharing the fabric (JCT shared / JCT alone)\n"
          "      --max-memory SIZE  refuse (exit 3) a run whose estimated memory exceeds SIZE\n"
          "                       (e.g. 8GiB; default: the memory available on this machine)\n"
          "  -h, --help           this help\n"
          "\n"
          "Files (output.formats): summary.json (json); flows.csv, ports.csv, queues.csv,\n"
          "nics.csv, tenants.csv (with tenants), transfers.csv (collective and training jobs), "
          "timeseries.csv\n"
          "and dcqcn_rates.csv (csv); metrics.prom (prom); trace.json (trace, for Perfetto);\n"
          "capture.pcap (pcap); report.html (html, implies json and csv); results.db (sqlite,\n"
          "the schema of wirerate sweep's database).\n"
          "Exit codes: 0 ok, 1 run failed, 2 usage error, 3 invalid scenario, 4 I/O error.\n",
          stdout);
}

/* Returns ERR_OK or ERR_USAGE; -1 when help was printed. */
static int parse(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    cli_overrides_init(&o->ov, argc);
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (opts_done || a[0] != '-' || a[1] == '\0') {
            if (o->scenario_path)
                return cli_usage_error("run", "more than one scenario given ('%s')", a);
            o->scenario_path = a;
        } else if (strcmp(a, "--") == 0) {
            opts_done = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cmd_run_help();
            return -1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(a, "--isolated") == 0) {
            o->isolated = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--output", &missing))) {
            if (!*v)
                return cli_usage_error("run", "%s needs a directory", a);
            o->out_dir = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--max-memory", &missing))) {
            if (cli_parse_memory("run", v, &o->max_memory))
                return ERR_USAGE;
        } else if ((v = cli_opt_value(argc, argv, &i, "--seed", &missing))) {
            if (!cli_is_uint(v))
                return cli_usage_error("run", "--seed expects a non-negative integer, got '%s'", v);
            size_t n = strlen(v) + 6;
            char *t = xmalloc(n, "--seed override");
            snprintf(t, n, "seed=%s", v);
            cli_overrides_add(&o->ov, t, true);
        } else if ((v = cli_opt_value(argc, argv, &i, "--fidelity", &missing))) {
            /* the override sim.fidelity=V: a bad value is the loader's error (exit 3) */
            size_t n = strlen(v) + 14;
            char *t = xmalloc(n, "--fidelity override");
            snprintf(t, n, "sim.fidelity=%s", v);
            cli_overrides_add(&o->ov, t, true);
        } else if ((v = cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (!cli_is_override(v))
                return cli_usage_error("run", "--set expects KEY=VALUE, got '%s'", v);
            cli_overrides_add(&o->ov, v, false);
        } else if (!missing) {
            return cli_usage_error("run", "unknown option '%s'", a);
        }
        if (missing)
            return cli_usage_error("run", "option '%s' needs a value", a);
    }
    if (!o->scenario_path)
        return cli_usage_error("run", "missing SCENARIO.yaml");
    return ERR_OK;
}

static uint64_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u; /* Linux reports kilobytes */
}

/* Formats named in output.formats that this version cannot write. */
static void warn_unbuilt_formats(uint32_t formats, const telemetry *tel)
{
    if ((formats & OUT_PCAP) && !(tel && tel->pcap))
        diag_msg(stderr, "warning: output format 'pcap' is not available in this build "
                         "(no packet tap); skipped");
}

/* html needs summary.json and the CSV files beside it: it implies json and csv. */
static uint32_t effective_formats(uint32_t formats)
{
    return formats & OUT_HTML ? formats | OUT_JSON | OUT_CSV : formats;
}

typedef int (*write_fn)(FILE *f, const void *a, const void *b);

static int write_one(outdir *od, const char *name, write_fn fn, const void *a, const void *b,
                     err *e)
{
    FILE *f = outdir_begin(od, name, e);
    if (!f)
        return ERR_IO;
    fn(f, a, b);
    return outdir_end(od, f, e);
}

static int w_timeseries(FILE *f, const void *a, const void *b)
{
    (void)b;
    return telemetry_write_timeseries(f, a);
}
static int w_rates(FILE *f, const void *a, const void *b)
{
    (void)b;
    return telemetry_write_rates(f, a);
}
static int w_pcap(FILE *f, const void *a, const void *b)
{
    (void)b;
    return telemetry_write_pcap(f, a);
}
static int w_trace(FILE *f, const void *a, const void *b)
{
    return telemetry_write_trace(f, (telemetry *)a, b);
}
static int w_trace_flows(FILE *f, const void *a, const void *b)
{
    /* no telemetry bundle: a trace of the flows alone */
    telemetry t;
    memset(&t, 0, sizeof t);
    (void)a;
    int rc = telemetry_write_trace(f, &t, b);
    trace_free(t.trace);
    return rc;
}

typedef struct prom_args {
    const scenario *sc;
    const telemetry *tel;
} prom_args;
static int w_prom(FILE *f, const void *a, const void *b)
{
    const prom_args *p = a;
    return prom_write(f, p->sc, b, p->tel);
}

/* report.html, from the files just staged (the same code as `wirerate report DIR`), written
 * into the same folder before it replaces the previous run's; manifest.json first, so the
 * report reads exactly the files of this run. */
static int write_report(outdir *od, err *e)
{
    int rc = outdir_write_manifest(od, e);
    if (rc)
        return rc;
    report *rep = report_load(outdir_path(od), e);
    if (!rep)
        return e->code ? e->code : ERR_IO;
    FILE *f = outdir_begin(od, "report.html", e);
    if (f) {
        report_write_html(f, rep);
        rc = outdir_end(od, f, e);
    } else {
        rc = ERR_IO;
    }
    report_free(rep);
    return rc;
}

/* results.db: the run as a one-run results database, the schema `wirerate sweep` writes
 * (report/resultsdb.h), built in memory from the same run_stats as summary.json and written
 * through the staging folder like every other file. */
static int write_sqlite(outdir *od, const scenario *sc, const run_stats *st, err *e)
{
    rdb_desc d = {.kind = "run", .source = sc->file, .runs_total = 1};
    rdb *db = rdb_open(":memory:", &d, e);
    if (!db)
        return e->code ? e->code : ERR_IO;
    rdb_rows rows;
    rdb_rows_init(&rows);
    rdb_rows_from_run(&rows, sc, st);
    int rc = rdb_insert(db, 0, NULL, sc->seed, &rows, e);
    rdb_rows_free(&rows);
    FILE *f = rc ? NULL : outdir_begin(od, "results.db", e);
    if (f) {
        rc = rdb_write_file(db, f, e);
        int rc2 = outdir_end(od, f, e);
        rc = rc ? rc : rc2;
    } else if (!rc) {
        rc = ERR_IO;
    }
    rdb_close(db);
    return rc;
}

static int write_outputs(outdir *od, const scenario *sc, const run_stats *st, telemetry *tel,
                         err *e)
{
    int rc = outdir_open(od, sc->output_dir, e);
    if (rc)
        return rc;
    uint32_t fm = effective_formats(sc->output_formats);
    FILE *f;
    if (fm & OUT_JSON) {
        if (!(f = outdir_begin(od, "summary.json", e)))
            return ERR_IO;
        summary_write_json(f, sc, st);
        if ((rc = outdir_end(od, f, e)))
            return rc;
    }
    if (fm & OUT_CSV) {
        if (!(f = outdir_begin(od, "flows.csv", e)))
            return ERR_IO;
        summary_write_flows_csv(f, st);
        if ((rc = outdir_end(od, f, e)))
            return rc;
        if (st->n_transfers) {
            if (!(f = outdir_begin(od, "transfers.csv", e)))
                return ERR_IO;
            summary_write_transfers_csv(f, st);
            if ((rc = outdir_end(od, f, e)))
                return rc;
        }
        if (st->n_requests) {
            if (!(f = outdir_begin(od, "requests.csv", e)))
                return ERR_IO;
            summary_write_requests_csv(f, st);
            if ((rc = outdir_end(od, f, e)))
                return rc;
        }
        if (!(f = outdir_begin(od, "ports.csv", e)))
            return ERR_IO;
        summary_write_ports_csv(f, st);
        if ((rc = outdir_end(od, f, e)))
            return rc;
        if (!(f = outdir_begin(od, "queues.csv", e)))
            return ERR_IO;
        summary_write_queues_csv(f, st);
        if ((rc = outdir_end(od, f, e)))
            return rc;
        if (!(f = outdir_begin(od, "nics.csv", e)))
            return ERR_IO;
        summary_write_nics_csv(f, st);
        if ((rc = outdir_end(od, f, e)))
            return rc;
        if (st->n_tenants) {
            if (!(f = outdir_begin(od, "tenants.csv", e)))
                return ERR_IO;
            summary_write_tenants_csv(f, st);
            if ((rc = outdir_end(od, f, e)))
                return rc;
        }
        if (tel && tel->smp &&
            (rc = write_one(od, "timeseries.csv", w_timeseries, tel, NULL, e)))
            return rc;
        if (tel && tel->smp && sampler_has_rates(tel->smp) &&
            (rc = write_one(od, "dcqcn_rates.csv", w_rates, tel, NULL, e)))
            return rc;
    }
    if (fm & OUT_PROM) {
        prom_args pa = {sc, tel};
        if ((rc = write_one(od, "metrics.prom", w_prom, &pa, st, e)))
            return rc;
    }
    if ((fm & OUT_TRACE) &&
        (rc = write_one(od, "trace.json", tel ? w_trace : w_trace_flows, tel, st, e)))
        return rc;
    if ((fm & OUT_PCAP) && tel && tel->pcap &&
        (rc = write_one(od, "capture.pcap", w_pcap, tel, NULL, e)))
        return rc;
    if ((fm & OUT_SQLITE) && (rc = write_sqlite(od, sc, st, e)))
        return rc;
    if ((fm & OUT_HTML) && (rc = write_report(od, e)))
        return rc;
    return outdir_commit(od, e);
}

/*
 * Signals. A broken invariant (SIM_ASSERT) or an out-of-memory abort in the library ends in
 * abort(); the spec wants exit code 1 for a failed run, and whatever temp files or folders the
 * output stage had made must go. SIGHUP cleans up the same way and then dies of the signal.
 *
 * SIGINT/SIGTERM interrupt the run without losing it: the first one asks the simulation to stop
 * before its next event (sim_interrupt_request), and the run then writes every file as usual,
 * marked sim.interrupted, through the same temp+rename steps (so a reader sees the previous
 * complete results or the new complete, marked ones) — and at the end the process dies of that
 * signal, so a shell or script sees the interruption (exit status 130 / 143). A second
 * SIGINT/SIGTERM exits at once: temp files removed, nothing half-written left. Only
 * async-signal-safe calls here.
 */
static outdir *volatile cleanup_od;
static volatile sig_atomic_t interrupt_sig;

static void die_of(int sig)
{
    outdir *od = cleanup_od;
    if (od)
        outdir_abort(od);
    if (sig == SIGABRT) {
        static const char msg[] = "wirerate: the run failed (internal error; see above)\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        _exit(ERR_RUN);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_signal(int sig)
{
    if ((sig == SIGINT || sig == SIGTERM) && !interrupt_sig) {
        interrupt_sig = sig;
        sim_interrupt_request();
        static const char msg[] = "\nwirerate: interrupted; stopping the simulation and writing "
                                  "the results (signal again to quit at once)\n";
        ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)ignored;
        return;
    }
    die_of(sig);
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* The capture streams to a temp file while the run goes on (telemetry/pcap.h); put it on the
 * filesystem the results go to: the output folder if it exists, else its nearest existing
 * ancestor (preflight checked that one is writable). Returns new. */
static char *capture_staging_dir(const char *out)
{
    char *d = xstrdup(out, "capture staging dir");
    for (;;) {
        struct stat st;
        if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
            return d;
        char *slash = strrchr(d, '/');
        if (!slash) {
            xfree(d);
            return xstrdup(".", "capture staging dir");
        }
        if (slash == d) {
            d[1] = '\0';
            return d;
        }
        *slash = '\0';
    }
}

/* A capture that stopped early says so (its budgets are in telemetry.pcap). */
static void warn_capture(const scenario *sc, const telemetry *tel)
{
    if (!tel || !tel->pcap || pcap_stopped(tel->pcap) == PCAP_RUNNING)
        return;
    const pcap_capture *c = tel->pcap;
    unsigned long long kept = (unsigned long long)pcap_captured(c),
                       missed = (unsigned long long)pcap_missed(c);
    switch (pcap_stopped(c)) {
    case PCAP_FULL_PACKETS:
        diag_msg(stderr,
                 "warning: capture.pcap stopped at telemetry.pcap.max_packets (%llu frames); "
                 "%llu later frames not captured",
                 kept, missed);
        break;
    case PCAP_FULL_BYTES:
        diag_msg(stderr,
                 "warning: capture.pcap stopped at telemetry.pcap.max_bytes (%llu bytes, %llu "
                 "frames); %llu later frames not captured",
                 (unsigned long long)sc->pcap_max_bytes, kept, missed);
        break;
    default:
        break; /* an I/O error fails the write (exit 4) */
    }
}

static bool wants_files(uint32_t formats)
{
    return (formats &
            (OUT_JSON | OUT_CSV | OUT_PROM | OUT_TRACE | OUT_PCAP | OUT_HTML | OUT_SQLITE)) != 0;
}

int cmd_run(int argc, char **argv)
{
    run_opts o;
    int rc = parse(argc, argv, &o);
    if (rc) {
        rc = rc < 0 ? ERR_OK : rc;
        goto out_opts;
    }

    install_signal_handlers();
    err e;
    err_clear(&e);
    scenario sc;
    char *staging = NULL; /* the capture's temp folder */
    rc = config_load(&sc, o.scenario_path, o.ov.over, o.ov.n, &e);
    if (rc) {
        if (!e.code)
            e.code = rc;
        diag_print(stderr, &e, o.ov.text, o.ov.n);
        goto out_opts;
    }
    if (o.out_dir)
        sc.output_dir = o.out_dir;
    if (sc.n_devices)
        diag_msg(stderr,
                 "warning: devices: %u per-device setting(s) are verified by `check` and "
                 "written by `plan`; the simulation runs the fabric defaults",
                 sc.n_devices);
    if (wants_files(sc.output_formats) && (rc = outdir_preflight(sc.output_dir, &e))) {
        diag_print(stderr, &e, NULL, 0);
        goto out_scenario;
    }

    if ((rc = cli_check_memory(&sc, o.max_memory, o.isolated, &e))) {
        diag_print(stderr, &e, o.ov.text, o.ov.n);
        goto out_scenario;
    }
    if (sc.output_formats & OUT_PCAP)
        sc.pcap_staging_dir = staging = capture_staging_dir(sc.output_dir);
    run *r = run_new(&sc, &e);
    if (!r) {
        rc = e.code ? e.code : ERR_INVALID;
        diag_print(stderr, &e, o.ov.text, o.ov.n);
        goto out_scenario;
    }

    progress prog;
    progress_init(&prog, !o.quiet && isatty(STDERR_FILENO));
    double t0 = progress_clock();
    run_execute(r, progress_update, &prog);
    double wall = progress_clock() - t0;
    progress_clear(&prog);
    if (o.isolated)
        run_isolated_baselines(r);

    /* run.c measures what it can; fill what only the process knows (peak RSS), and the wall
     * figures if the library left them 0. A copy, because run_result is read-only. */
    run_stats st = *run_result(r);
    if (st.wall_s <= 0.0)
        st.wall_s = wall;
    if (st.events_per_s <= 0.0 && st.wall_s > 0.0)
        st.events_per_s = (double)st.events / st.wall_s;
    if (st.peak_rss_bytes == 0)
        st.peak_rss_bytes = peak_rss_bytes();
    if (run_sim(r)->interrupted) {
        st.interrupted = true;
        st.hit_stop_at = false; /* events were left because of the signal, not stop_at */
    }

    telemetry *tel = run_telemetry(r);
    warn_unbuilt_formats(sc.output_formats, tel);
    warn_capture(&sc, tel);
    outdir od;
    memset(&od, 0, sizeof od);
    cleanup_od = &od;
    if (wants_files(sc.output_formats) && (rc = write_outputs(&od, &sc, &st, tel, &e))) {
        outdir_abort(&od);
        cleanup_od = NULL;
        diag_print(stderr, &e, NULL, 0);
        goto out_run;
    }
    cleanup_od = NULL;

    if (o.json) {
        summary_write_json(stdout, &sc, &st);
    } else {
        summary_write_text(stdout, &sc, &st, outdir_files(&od), od.n_files);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_msg(stderr, "<stdout>: error: %s", strerror(errno));
        rc = ERR_IO;
    }

out_run:
    outdir_free(&od);
    run_free(r);
out_scenario:
    xfree(staging);
    scenario_free(&sc);
out_opts:
    cli_overrides_free(&o.ov);
    if (interrupt_sig) {
        /* the results are written (or the failure reported): now die of the signal */
        fflush(NULL);
        signal(interrupt_sig, SIG_DFL);
        raise(interrupt_sig);
    }
    return rc;
}
