/*
 * fuzz_run.c — libFuzzer entry for everything after the loader: the input bytes choose a small
 * scenario (a fabric preset and its sizes, switch and NIC settings, load balancing, one to three
 * jobs of every kind, faults, telemetry), which is built, simulated and written by every exporter
 * (summary.json and text, the CSV files, metrics.prom, trace.json, capture.pcap, then report.html
 * read back from those files) into a temp folder. Whatever the choices: no crash, no sanitizer
 * finding, no leak, byte conservation (run.c asserts it), and every run ends.
 *
 * The generator only writes values inside each key's valid range, and keeps every size small
 * (at most 8 hosts, flows ≤ 64 KB, collectives ≤ 1 MB on ≤ 8 ranks, a tiny training model,
 * stop_at ≤ 2 ms) so that one input runs in milliseconds; combinations the builder refuses
 * (a halving-doubling on 3 ranks, a fault on a link the preset lacks) are simply skipped. The
 * point is the combinations, not the sizes: the loader's own fuzzer covers hostile text.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "report/report.h"
#include "report/summary.h"
#include "telemetry/prom.h"
#include "telemetry/telemetry.h"
#include "workload/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a stream of choices; past its end every choice is 0 (the first option). */
typedef struct chooser {
    const uint8_t *p;
    size_t n, i;
} chooser;

static unsigned pick(chooser *c, unsigned k)
{
    unsigned v = c->i < c->n ? c->p[c->i] : 0;
    c->i++;
    return k ? v % k : 0;
}

typedef struct text {
    char buf[8192];
    size_t n;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
    va_end(ap);
    if (w > 0 && t->n + (size_t)w < sizeof t->buf)
        t->n += (size_t)w;
}

static void gen(chooser *c, text *t)
{
    static const char *const rates[] = {"100Gbps", "200Gbps", "400Gbps", "25Gbps"};
    static const char *const sizes[] = {"4KB", "16KB", "64KB", "1KB", "100B", "9000B"};
    static const char *const csizes[] = {"64KiB", "256KiB", "8KiB", "1MB", "100KB"};
    static const char *const ops[] = {"all_reduce",  "all_gather", "reduce_scatter",
                                      "all_to_all", "broadcast",  "reduce"};
    static const char *const algos[] = {"ring", "tree", "halving-doubling", "direct",
                                        "hierarchical"};
    static const char *const patterns[] = {"permutation", "incast", "all-to-all"};
    static const char *const lbs[] = {"ecmp", "flowlet", "spray", "adaptive", "collective"};

    add(t, "name: fuzz\nseed: %u\nstop_at: %uus\n", pick(c, 256), 50 + pick(c, 8) * 250);
    unsigned preset = pick(c, 3), servers = 1 + pick(c, 4), gps = 1 + pick(c, 2);
    if (preset == 0)
        add(t, "fabric: {preset: single-switch, servers: %u, gpus_per_server: %u", servers, gps);
    else if (preset == 1)
        add(t, "fabric: {preset: leaf-spine, servers: %u, gpus_per_server: %u, leaf_radix: 4",
            servers, gps);
    else
        add(t, "fabric: {preset: rail-optimized, servers: %u, gpus_per_server: 2, "
               "leaf_radix: 8",
            servers);
    add(t, ", host_link: %s, fabric_link: %s, link_latency: %uns}\n", rates[pick(c, 4)],
        rates[pick(c, 4)], 100 + pick(c, 4) * 300);
    add(t, "switch: {buffer: %uKiB, ecn: {enabled: %s, kmin: 10KB, kmax: 40KB, pmax: 0.%u}, "
           "pfc: {enabled: %s}, scheduler: %s}\n",
        1024u << pick(c, 4), pick(c, 4) ? "true" : "false", 1 + pick(c, 9),
        pick(c, 3) ? "true" : "false", pick(c, 2) ? "dwrr" : "strict");
    add(t, "nic: {mtu: %u, cc: %s, retransmit: %s, rto: %uus}\n", 1024u << pick(c, 3),
        pick(c, 4) ? "dcqcn" : "none", pick(c, 2) ? "selective" : "go-back-n",
        50 + pick(c, 4) * 100);
    add(t, "loadbalance: {mode: %s}\n", lbs[pick(c, 5)]);

    unsigned n_jobs = 1 + pick(c, 3);
    add(t, "workload:\n");
    for (unsigned j = 0; j < n_jobs; j++) {
        unsigned kind = pick(c, 4); /* traffic twice as often */
        add(t, "  - {name: j%u, start: %uus, ", j, pick(c, 4) * 5);
        if (kind <= 1) {
            add(t, "kind: traffic, pattern: %s, size: %s}\n", patterns[pick(c, 3)],
                sizes[pick(c, 6)]);
        } else if (kind == 2) {
            add(t, "kind: collective, op: %s, algorithm: %s, size: %s, channels: %u, "
                   "iterations: %u}\n",
                ops[pick(c, 6)], algos[pick(c, 5)], csizes[pick(c, 5)], 1 + pick(c, 2),
                1 + pick(c, 2));
        } else {
            unsigned tp = 1 + pick(c, 2), pp = 1 + pick(c, 2);
            add(t, "kind: training, model: {params: 1e6, layers: %u, hidden: 64, seq_len: 16, "
                   "vocab: 1000}, parallelism: {tp: %u, pp: %u, dp: %u}, ranks: \"0-%u\", "
                   "global_batch: %u}\n",
                2 + pick(c, 3), tp, pp, 1, tp * pp - 1, 1 + pick(c, 4));
        }
    }
    unsigned n_faults = pick(c, 3);
    if (n_faults) {
        add(t, "faults:\n");
        for (unsigned f = 0; f < n_faults; f++) {
            unsigned at = 5 + pick(c, 20) * 10, k = pick(c, 3);
            if (k == 0)
                add(t, "  - {at: %uus, kind: link-down, link: %s, detect: 10us, converge: 20us}\n",
                    at, preset == 0 ? "sw0-h0" : "leaf0-spine0");
            else if (k == 1)
                add(t, "  - {at: %uus, kind: pfc-storm, nic: 0, duration: %uus}\n", at,
                    10 + pick(c, 10) * 10);
            else
                add(t, "  - {at: %uus, kind: gpu-slow, gpu: 0, factor: 1.5}\n", at);
        }
    }
    add(t, "telemetry: {sample_interval: %uus, pcap: {max_packets: %u, max_bytes: 64KiB, "
           "snaplen: %uB}}\n",
        1 + pick(c, 20), 100 + pick(c, 4) * 500, pick(c, 2) ? 128u : 65535u);
    add(t, "output: {formats: [json, csv, prom, trace, pcap]}\n");
}

typedef int (*writer_fn)(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel);

static int w_json(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)tel;
    return summary_write_json(f, sc, st);
}
static int w_flows(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)tel;
    return summary_write_flows_csv(f, st);
}
static int w_ports(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)tel;
    return summary_write_ports_csv(f, st);
}
static int w_queues(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)tel;
    return summary_write_queues_csv(f, st);
}
static int w_nics(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)tel;
    return summary_write_nics_csv(f, st);
}
static int w_ts(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)st;
    return telemetry_write_timeseries(f, tel);
}
static int w_rates(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)st;
    return telemetry_write_rates(f, tel);
}
static int w_prom(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    return prom_write(f, sc, st, tel);
}
static int w_trace(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc;
    return telemetry_write_trace(f, tel, st);
}
static int w_pcap(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)sc, (void)st;
    return telemetry_write_pcap(f, tel);
}
static int w_text(FILE *f, const scenario *sc, const run_stats *st, telemetry *tel)
{
    (void)tel;
    return summary_write_text(f, sc, st, NULL, 0);
}

static char dir[64];

static void write_file(const char *name, writer_fn fn, const scenario *sc, const run_stats *st,
                       telemetry *tel)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort(); /* the temp folder is ours: failing to write there is a harness bug */
    fn(f, sc, st, tel);
    fclose(f);
}

static const char *const NAMES[] = {
    "summary.json", "flows.csv",    "ports.csv",  "queues.csv",   "nics.csv",    "timeseries.csv",
    "dcqcn_rates.csv", "metrics.prom", "trace.json", "capture.pcap", "summary.txt", "report.html",
};

static void remove_dir(void)
{
    char path[128];
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, NAMES[i]);
        unlink(path);
    }
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/wr-fuzz-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
    }
    chooser c = {data, size, 0};
    text t;
    t.n = 0;
    t.buf[0] = '\0';
    gen(&c, &t);

    /* WR_FUZZ_VERBOSE=1 shows each scenario and whether it ran (to tune seeds) */
    bool verbose = getenv("WR_FUZZ_VERBOSE") != NULL;
    if (verbose)
        fprintf(stderr, "---\n%s", t.buf);
    scenario sc;
    err e;
    if (config_load_buffer(&sc, "fuzz.yaml", t.buf, t.n, NULL, 0, &e)) {
        if (verbose)
            fprintf(stderr, "=> refused by the loader: %d:%d: %s\n", e.line, e.col, e.msg);
        return 0; /* a combination the loader refuses (e.g. a radix too small) */
    }
    sc.pcap_staging_dir = dir;
    run *r = run_new(&sc, &e);
    if (!r) {
        if (verbose)
            fprintf(stderr, "=> refused by the builder: %d:%d: %s\n", e.line, e.col, e.msg);
        scenario_free(&sc);
        return 0;
    }
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    if (verbose)
        fprintf(stderr, "=> ran: %llu events, %llu of %llu flows completed\n",
                (unsigned long long)st->events, (unsigned long long)st->flows_completed,
                (unsigned long long)st->n_flows);
    telemetry *tel = run_telemetry(r);
    static const struct {
        const char *name;
        writer_fn fn;
    } files[] = {
        {"summary.json", w_json},   {"flows.csv", w_flows}, {"ports.csv", w_ports},
        {"queues.csv", w_queues},   {"nics.csv", w_nics},   {"timeseries.csv", w_ts},
        {"dcqcn_rates.csv", w_rates}, {"metrics.prom", w_prom}, {"trace.json", w_trace},
        {"capture.pcap", w_pcap},   {"summary.txt", w_text},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        write_file(files[i].name, files[i].fn, &sc, st, tel);
    /* report.html from the files just written, as `wirerate report DIR` does */
    err re;
    err_clear(&re);
    report *rep = report_load(dir, &re);
    if (rep) {
        char path[128];
        snprintf(path, sizeof path, "%s/report.html", dir);
        FILE *f = fopen(path, "wb");
        if (f) {
            report_write_html(f, rep);
            fclose(f);
        }
        report_free(rep);
    }
    run_free(r);
    scenario_free(&sc);
    return 0;
}
