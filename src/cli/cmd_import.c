/*
 * cmd_import.c — `wirerate import chakra TRACE.et... [-o S.yaml]`: read and check Chakra
 * execution traces (config/import_chakra.h) and print what they hold: per rank its nodes by
 * type, dependencies and compute time; the collectives by kind, size and process group; whether
 * every send has its receive. With -o, the ranks are also joined as a run would join them
 * (workload/chakra_plan.h: collectives matched per process group, sends with receives, no
 * deadlock) and a scenario with a `kind: chakra` job referencing the traces is written (temp
 * name + rename: never half-written). `wirerate import astra-sim`: see config/import_astra.h.
 * `import htsim`: see config/import_htsim.h. The astra-sim and htsim imports write through
 * write_scenario: a temp name beside the target and a rename, so a failed import leaves nothing
 * half-written.
 * Exit codes: 0 read and consistent, 2 usage (or no protobuf-c in this build), 3 a malformed
 * trace or file, 4 a file that cannot be read.
 */
#define _DEFAULT_SOURCE /* realpath */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/import_astra.h"
#include "../config/import_chakra.h"
#include "../config/import_htsim.h"
#include "../config/units.h"
#include "../core/alloc.h"
#include "../core/err.h"
#include "../report/summary.h"
#include "../workload/chakra_plan.h"
#include "args.h"
#include "cli.h"
#include "diag.h"
#include "outdir.h"

void cmd_import_help(void)
{
    fputs("usage: wirerate import chakra TRACE.et... [-o SCENARIO.yaml]\n"
          "       wirerate import astra-sim --network NET.yml [--system SYS.json] [--size SIZE]\n"
          "                                 -o SCENARIO.yaml\n"
          "       wirerate import htsim --topo FILE.topo --cm FILE.cm -o SCENARIO.yaml\n"
          "\n"
          "Read Chakra execution traces (one .et file per rank, as Chakra's PyTorch converter\n"
          "and ASTRA-sim use them; PREFIX.N.et is rank N) and print what they hold: nodes by\n"
          "type, dependencies, compute time, collectives and point-to-point messages, with\n"
          "the checks: dependencies exist and form no cycle, communication nodes are\n"
          "complete, every send has a matching receive. With -o, also match collectives\n"
          "across their process groups and sends with receives as a run does, and write a\n"
          "scenario with a `kind: chakra` job running the traces (one GPU per rank on one\n"
          "switch; edit its fabric), for `wirerate run`.\n"
          "\n"
          "astra-sim: write a scenario from ASTRA-sim's network YAML (topology, npus_count,\n"
          "bandwidth, latency per dimension: a switch, a scale-up domain, or a scale-up\n"
          "domain then a switch) and system JSON (all-reduce implementation, active chunks),\n"
          "with an all_reduce of SIZE (default 64MiB) over every GPU. docs/import.md.\n"
          "\n"
          "htsim: write a scenario from htsim's fat-tree topology file and connection matrix:\n"
          "the fat tree as a custom fabric (every switch and link, speeds and latencies per\n"
          "tier), the flows as a traffic job of pattern list, flows started by triggers\n"
          "waiting for the flows that activate them. docs/import.md.\n"
          "\n"
          "Exit codes: 0 ok, 2 usage error, 3 malformed trace, 4 unreadable file.\n",
          stdout);
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A point-to-point message as both sides name it. */
typedef struct p2p {
    int64_t src, dst, tag;
    uint64_t size;
} p2p;

static int cmp_p2p(const void *pa, const void *pb)
{
    const p2p *a = pa, *b = pb;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return a->size < b->size ? -1 : a->size > b->size;
}

/* Sends and receives matched by (src, dst, tag, size), counting duplicates on both sides:
 * both lists sorted, then walked together. Returns the number of unmatched groups (each
 * reported). */
static uint64_t unmatched_p2p(const chakra_trace *t)
{
    uint64_t ns = 0, nr = 0;
    for (uint32_t r = 0; r < t->n_ranks; r++) {
        ns += t->ranks[r].by_type[CHAKRA_SEND];
        nr += t->ranks[r].by_type[CHAKRA_RECV];
    }
    p2p *s = xmalloc((ns + 1) * sizeof *s, "sends"), *v = xmalloc((nr + 1) * sizeof *v, "recvs");
    uint64_t i = 0, k = 0;
    for (uint32_t r = 0; r < t->n_ranks; r++) {
        const chakra_rank *R = &t->ranks[r];
        for (uint32_t n = 0; n < R->n_nodes; n++) {
            const chakra_node *x = &R->nodes[n];
            if (x->type == CHAKRA_SEND)
                s[i++] = (p2p){r, x->comm_dst, x->comm_tag, x->comm_size};
            else if (x->type == CHAKRA_RECV)
                v[k++] = (p2p){x->comm_src, r, x->comm_tag, x->comm_size};
        }
    }
    qsort(s, ns, sizeof *s, cmp_p2p);
    qsort(v, nr, sizeof *v, cmp_p2p);
    uint64_t bad = 0;
    for (i = 0, k = 0; i < ns || k < nr;) {
        const p2p *key = k >= nr || (i < ns && cmp_p2p(&s[i], &v[k]) <= 0) ? &s[i] : &v[k];
        uint64_t a = 0, b = 0;
        while (i < ns && cmp_p2p(&s[i], key) == 0)
            i++, a++;
        while (k < nr && cmp_p2p(&v[k], key) == 0)
            k++, b++;
        if (a != b) {
            bad++;
            diag_msg(stderr,
                     "warning: rank %" PRId64 " sends %" PRIu64 " bytes with tag %" PRId64
                     " to rank %" PRId64 " %" PRIu64 " times; rank %" PRId64
                     " receives such a message %" PRIu64 " times",
                     key->src, key->size, key->tag, key->dst, a, key->dst, b);
        }
    }
    xfree(s);
    xfree(v);
    return bad;
}

/* `path` as the scenario in folder `dir` (a realpath) should name it: relative when it lies
 * below, else absolute. NULL when it cannot be resolved. Returns new memory. */
static char *trace_ref(const char *dir, const char *path)
{
    char *abs = realpath(path, NULL);
    if (!abs)
        return NULL;
    size_t dl = strlen(dir);
    char *out;
    if (strncmp(abs, dir, dl) == 0 && abs[dl] == '/')
        out = xstrdup(abs + dl + 1, "trace path");
    else
        out = xstrdup(abs, "trace path");
    free(abs);
    return out;
}

/* YAML double-quoted scalar of s. */
static void yaml_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Write the scenario running trace t (checked) to `out`. */
static int write_chakra_scenario(const chakra_trace *t, const char *out, err *e)
{
    const char *slash = strrchr(out, '/');
    char *dir = xstrdup(slash ? out : ".", "scenario folder");
    if (slash)
        dir[slash == out ? 1 : slash - out] = '\0';
    char *rdir = realpath(dir, NULL);
    outdir od;
    memset(&od, 0, sizeof od);
    int rc = rdir ? outdir_open_into(&od, dir, e)
                  : err_set(e, ERR_IO, dir, 0, 0, "cannot open the folder: %s", strerror(errno));
    FILE *f = rc ? NULL : outdir_begin(&od, slash ? slash + 1 : out, e);
    if (f) {
        uint32_t n = t->n_ranks;
        fprintf(f,
                "# Imported by `wirerate import chakra` from %u trace files (docs/import.md).\n"
                "# One GPU per rank, each with its own NIC, all behind one switch: edit the "
                "fabric\n# (and `ranks:`, rank i -> the i-th GPU listed) to place the ranks "
                "where you\n# want to study them.\n",
                n);
        const char *b = base(t->ranks[0].file);
        size_t bl = strcspn(b, ".");
        fprintf(f, "name: %.*s\n", (int)(bl ? bl : 6), bl ? b : "chakra");
        fprintf(f, "fabric:\n  preset: single-switch\n  servers: %u\n  gpus_per_server: 1\n", n);
        if (n > 64)
            fprintf(f, "  leaf_radix: %u        # one switch port per rank\n", n);
        fprintf(f, "workload:\n  - name: trace\n    kind: chakra\n    trace:\n");
        for (uint32_t r = 0; r < n && !rc; r++) {
            char *ref = trace_ref(rdir, t->ranks[r].file);
            if (!ref) {
                rc = err_set(e, ERR_IO, t->ranks[r].file, 0, 0, "cannot resolve the path: %s",
                             strerror(errno));
                break;
            }
            fprintf(f, "      - ");
            yaml_quoted(f, ref);
            fprintf(f, "   # rank %u\n", r);
            xfree(ref);
        }
        if (ferror(f) && !rc)
            rc = err_set(e, ERR_IO, out, 0, 0, "write failed");
        int rc2 = outdir_end(&od, f, e);
        rc = rc ? rc : rc2;
        if (!rc)
            rc = outdir_commit(&od, e);
    } else if (!rc) {
        rc = ERR_IO;
    }
    if (rc)
        outdir_abort(&od);
    else
        printf("%s\n", outdir_files(&od)[0]);
    outdir_free(&od);
    free(rdir);
    xfree(dir);
    return rc;
}

static int import_chakra(int n, char **files, const char *out)
{
    chakra_trace t;
    err e;
    int rc = chakra_load(&t, (const char *const *)files, n, &e);
    if (rc) {
        diag_print(stderr, &e, NULL, 0);
        return rc;
    }
    uint64_t nodes = 0, deps = 0, coll[CHAKRA_COLL_TYPES] = {0},
             coll_bytes[CHAKRA_COLL_TYPES] = {0};
    for (uint32_t r = 0; r < t.n_ranks; r++) {
        nodes += t.ranks[r].n_nodes;
        deps += t.ranks[r].n_deps;
    }
    printf("chakra trace: %u ranks, %" PRIu64 " nodes, %" PRIu64 " dependencies (version %s)\n",
           t.n_ranks, nodes, deps, t.ranks[0].version[0] ? t.ranks[0].version : "?");
    printf("  %-5s %-28s %7s %8s %6s %5s %5s %6s %7s %14s\n", "rank", "file", "nodes", "compute",
           "coll", "send", "recv", "other", "deps", "compute time");
    for (uint32_t r = 0; r < t.n_ranks; r++) {
        const chakra_rank *R = &t.ranks[r];
        uint64_t us = 0;
        for (uint32_t i = 0; i < R->n_nodes; i++) {
            const chakra_node *x = &R->nodes[i];
            if (x->type == CHAKRA_COMP)
                us += x->duration_us;
            if (x->type == CHAKRA_COLL) {
                coll[x->comm_type]++;
                coll_bytes[x->comm_type] += x->comm_size;
            }
        }
        uint32_t other = R->n_nodes - R->by_type[CHAKRA_COMP] - R->by_type[CHAKRA_COLL] -
                         R->by_type[CHAKRA_SEND] - R->by_type[CHAKRA_RECV];
        char ts[32];
        printf("  %-5u %-28s %7u %8u %6u %5u %5u %6u %7" PRIu64 " %14s\n", r, base(R->file),
               R->n_nodes, R->by_type[CHAKRA_COMP], R->by_type[CHAKRA_COLL],
               R->by_type[CHAKRA_SEND], R->by_type[CHAKRA_RECV], other, R->n_deps,
               summary_fmt_time(ts, sizeof ts, us * 1000000u));
    }
    for (int c = 0; c < CHAKRA_COLL_TYPES; c++) {
        if (!coll[c])
            continue;
        char b[32];
        printf("  collectives: %s x %" PRIu64 " over the ranks, %s in total\n", chakra_coll_name(c),
               coll[c], summary_fmt_bytes(b, sizeof b, coll_bytes[c]));
    }
    uint64_t bad = unmatched_p2p(&t);
    if (!bad)
        printf("  every dependency exists, no cycle; every send has its receive\n");
    if (bad || !out) {
        if (!bad)
            printf("  to run it: wirerate import chakra TRACE.et... -o S.yaml, then "
                   "wirerate run S.yaml\n");
        chakra_free(&t);
        return bad ? ERR_INVALID : ERR_OK;
    }
    /* join the ranks as a run will (matching, deadlock), then write the scenario */
    uint32_t *gpu = xmalloc(sizeof(uint32_t) * t.n_ranks, "ranks");
    for (uint32_t r = 0; r < t.n_ranks; r++)
        gpu[r] = r;
    err_clear(&e);
    train_plan *p = chakra_plan_new(&t, gpu, 1, &e);
    xfree(gpu);
    if (!p) {
        diag_print(stderr, &e, NULL, 0);
        chakra_free(&t);
        return ERR_INVALID;
    }
    printf("  joined across ranks: %u operations (%" PRIu64 " compute, %" PRIu64
           " collectives, %" PRIu64 " messages), %u dependencies\n",
           p->n_tasks, p->stats.compute, p->stats.coll_dp, p->stats.p2p, p->n_deps);
    train_plan_free(p);
    rc = write_chakra_scenario(&t, out, &e);
    if (rc)
        diag_print(stderr, &e, NULL, 0);
    chakra_free(&t);
    return rc;
}

/* Write a scenario to `out` via a temp name beside it and a rename: never half-written. The
 * writer fn(f, ctx, e) fills it. */
typedef int (*import_write_fn)(FILE *f, void *ctx, err *e);

static int write_scenario(const char *out, import_write_fn fn, void *ctx)
{
    err e;
    err_clear(&e);
    const char *slash = strrchr(out, '/');
    char *dir = xstrdup(slash ? out : ".", "scenario folder");
    if (slash)
        dir[slash == out ? 1 : slash - out] = '\0';
    outdir od;
    memset(&od, 0, sizeof od);
    int rc = outdir_open_into(&od, dir, &e);
    FILE *f = rc ? NULL : outdir_begin(&od, slash ? slash + 1 : out, &e);
    if (f) {
        rc = fn(f, ctx, &e);
        int rc2 = outdir_end(&od, f, &e);
        rc = rc ? rc : rc2;
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
    }
    outdir_free(&od);
    xfree(dir);
    return rc;
}

typedef struct astra_args {
    const char *net, *sys;
    uint64_t size;
} astra_args;

static int astra_write(FILE *f, void *ctx, err *e)
{
    astra_args *a = ctx;
    return astra_import(f, a->net, a->sys, a->size, e);
}

static int import_astra(int argc, char **argv)
{
    const char *net = NULL, *sys = NULL, *out = NULL;
    uint64_t size = 64ull << 20; /* the scenario's default collective size */
    for (int i = 1; i < argc; i++) {
        const char *v;
        bool missing = false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cmd_import_help();
            return ERR_OK;
        } else if ((v = cli_opt_value(argc, argv, &i, "--network", &missing))) {
            net = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--system", &missing))) {
            sys = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &missing))) {
            out = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--size", &missing))) {
            char why[200];
            if (!units_size(v, &size, why, sizeof why) || !size)
                return cli_usage_error("import", "--size expects a size like 64MiB, got '%s'", v);
        } else if (!missing) {
            return cli_usage_error("import", "unknown option '%s'", argv[i]);
        }
        if (missing)
            return cli_usage_error("import", "option '%s' needs a value", argv[i]);
    }
    if (!net)
        return cli_usage_error("import", "astra-sim needs --network NET.yml");
    if (!out || !*out)
        return cli_usage_error("import", "astra-sim needs -o SCENARIO.yaml");
    astra_args a = {net, sys, size};
    return write_scenario(out, astra_write, &a);
}

typedef struct htsim_args {
    const char *topo, *cm;
    htsim_import_stats st;
} htsim_args;

static int htsim_write(FILE *f, void *ctx, err *e)
{
    htsim_args *a = ctx;
    return htsim_import(f, a->topo, a->cm, &a->st, e);
}

static int import_htsim(int argc, char **argv)
{
    htsim_args a;
    memset(&a, 0, sizeof a);
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        bool missing = false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cmd_import_help();
            return ERR_OK;
        } else if ((v = cli_opt_value(argc, argv, &i, "--topo", &missing))) {
            a.topo = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--cm", &missing))) {
            a.cm = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &missing))) {
            out = v;
        } else if (!missing) {
            return cli_usage_error("import", "unknown option '%s'", argv[i]);
        }
        if (missing)
            return cli_usage_error("import", "option '%s' needs a value", argv[i]);
    }
    if (!a.topo)
        return cli_usage_error("import", "htsim needs --topo FILE.topo (a fat-tree topology)");
    if (!a.cm)
        return cli_usage_error("import", "htsim needs --cm FILE.cm (a connection matrix)");
    if (!out || !*out)
        return cli_usage_error("import", "htsim needs -o SCENARIO.yaml");
    int rc = write_scenario(out, htsim_write, &a);
    if (!rc)
        fprintf(stderr,
                "htsim: %u hosts, %u switches, %u links; %u flows, %u of them started by "
                "others' completion\n",
                a.st.hosts, a.st.switches, a.st.links, a.st.flows, a.st.chained);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        if (argc < 2)
            return cli_usage_error("import", "missing the format (chakra, astra-sim, htsim)");
        cmd_import_help();
        return ERR_OK;
    }
    if (strcmp(argv[1], "astra-sim") == 0)
        return import_astra(argc - 1, argv + 1);
    if (strcmp(argv[1], "htsim") == 0)
        return import_htsim(argc - 1, argv + 1);
    if (strcmp(argv[1], "chakra") != 0)
        return cli_usage_error(
            "import", "unknown format '%s'; this version imports: chakra, astra-sim, htsim",
            argv[1]);
    const char *out = NULL;
    char **files = xmalloc(sizeof(char *) * (size_t)argc, "trace files");
    int nf = 0;
    for (int i = 2; i < argc; i++) {
        const char *v;
        bool missing = false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            xfree(files);
            cmd_import_help();
            return ERR_OK;
        }
        if ((v = cli_opt_value(argc, argv, &i, "-o", &missing))) {
            out = v;
            continue;
        }
        if (missing || argv[i][0] == '-') {
            xfree(files);
            return missing ? cli_usage_error("import", "option '%s' needs a value", argv[i])
                           : cli_usage_error("import", "unknown option '%s'", argv[i]);
        }
        files[nf++] = argv[i];
    }
    if (!nf) {
        xfree(files);
        return cli_usage_error("import", "missing TRACE.et (one file per rank)");
    }
    if (out && !*out) {
        xfree(files);
        return cli_usage_error("import", "-o needs a file name");
    }
    if (!chakra_available()) {
        diag_msg(stderr, "import: this wirerate was built without protobuf-c, so it cannot read "
                         "Chakra traces (sudo apt-get install libprotobuf-c-dev "
                         "protobuf-c-compiler, then rebuild)");
        xfree(files);
        return ERR_USAGE;
    }
    int rc = import_chakra(nf, files, out);
    xfree(files);
    return rc;
}
