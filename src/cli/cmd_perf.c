/*
 * cmd_perf.c — `wirerate perf OP [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [--fabric S.yaml]
 * [--ranks N] [--algo ALGO] [--channels N] [--set KEY=VALUE]...`: nccl-tests on a simulated fabric.
 *
 * For every size from MIN to MAX (×FACTOR each step) the fabric scenario is loaded with one
 * collective job of that size (nccl-tests semantics) and simulated; the mean iteration time
 * gives the row's time, algbw and busbw, printed in nccl-tests' own table layout
 * (report/perf_table.h) so existing parsers read it. The simulator moves no data, so "#wrong"
 * is N/A, as nccl-tests prints it with validation off; out-of-place and in-place are the same
 * transfers and print the same figures. Lines starting with '#' describe the setup, as
 * nccl-tests' do. Defaults: -b 32M -e 32M -f 2 (as nccl-tests), -n 5, every GPU of the fabric,
 * algorithm ring (or NCCL_ALGO=Ring|Tree from the environment), one channel per NIC port of a
 * server so every rail carries a ring.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../config/config.h"
#include "../config/units.h"
#include "../core/alloc.h"
#include "../report/perf_table.h"
#include "../workload/collective.h"
#include "../workload/run.h"
#include "args.h"
#include "cli.h"
#include "diag.h"

void cmd_perf_help(void)
{
    fputs("usage: wirerate perf OP [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [--fabric S.yaml]\n"
          "                     [--ranks N] [--algo ALGO] [--channels N] [--set KEY=VALUE]...\n"
          "\n"
          "nccl-tests for a simulated fabric: simulate collective OP for each size and print\n"
          "nccl-tests' table (size, count, type, redop, root, time, algbw, busbw, #wrong).\n"
          "OP: all_reduce | reduce_scatter | all_gather | all_to_all | broadcast | reduce\n"
          "    (also nccl-tests' names: all_reduce_perf, alltoall, ...)\n"
          "\n"
          "  -b, --minbytes SIZE   smallest size (default 32M; K/M/G = 2^10.., or 4MiB, 1GB)\n"
          "  -e, --maxbytes SIZE   largest size (default 32M)\n"
          "  -f, --stepfactor N    multiply the size by N each step (default 2)\n"
          "  -n, --iters N         simulated iterations per size (default 5)\n"
          "      --fabric S.yaml   the fabric (and switch/nic settings) of a scenario; default:\n"
          "                        the scenario defaults (single switch, 8 servers x 8 GPUs)\n"
          "      --ranks N         use GPUs 0..N-1 (default: every GPU)\n"
          "      --algo ALGO       ring | tree | halving-doubling | direct | hierarchical |\n"
          "                        recursive-doubling | binomial | scatter-allgather | nvls |\n"
          "                        nvls_tree | sharp (default ring, or NCCL_ALGO=Ring|Tree|\n"
          "                        NVLS|NVLSTree|CollNet)\n"
          "      --channels N      parallel rings / trees (default: NIC ports per server)\n"
          "      --set KEY=VALUE   override a key of the fabric scenario\n"
          "      --max-memory SIZE refuse (exit 3) a size whose run would need more memory\n"
          "                        (estimated; default: the memory available on this machine)\n"
          "  -h, --help            this help\n",
          stdout);
}

static const struct {
    const char *name;
    enum coll_op op;
} op_names[] = {
    {"all_reduce", OP_ALL_REDUCE},         {"allreduce", OP_ALL_REDUCE},
    {"reduce_scatter", OP_REDUCE_SCATTER}, {"reducescatter", OP_REDUCE_SCATTER},
    {"all_gather", OP_ALL_GATHER},         {"allgather", OP_ALL_GATHER},
    {"all_to_all", OP_ALL_TO_ALL},         {"alltoall", OP_ALL_TO_ALL},
    {"broadcast", OP_BROADCAST},           {"reduce", OP_REDUCE},
};

static bool parse_op(const char *s, enum coll_op *op)
{
    char buf[64];
    size_t n = strlen(s);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n + 1);
    if (n > 5 && strcmp(buf + n - 5, "_perf") == 0)
        buf[n - 5] = 0;
    for (size_t i = 0; i < sizeof op_names / sizeof *op_names; i++)
        if (strcmp(buf, op_names[i].name) == 0) {
            *op = op_names[i].op;
            return true;
        }
    return false;
}

/* nccl-tests sizes: a number with an optional K, M or G (powers of 1024), or wirerate's units. */
static bool parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mul = 0;
    if (*end == 0)
        mul = 1;
    else if ((*end == 'K' || *end == 'k') && end[1] == 0)
        mul = 1ull << 10;
    else if ((*end == 'M' || *end == 'm') && end[1] == 0)
        mul = 1ull << 20;
    else if ((*end == 'G' || *end == 'g') && end[1] == 0)
        mul = 1ull << 30;
    if (mul) {
        *out = v * mul;
        return true;
    }
    return units_size(s, out, NULL, 0);
}

static const char *algo_name_for(const char *s)
{
    char low[32];
    size_t n = strlen(s);
    if (n >= sizeof low)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    /* NCCL_ALGO's names for the in-network algorithms */
    if (strcmp(low, "collnet") == 0)
        return "sharp";
    if (strcmp(low, "nvlstree") == 0 || strcmp(low, "nvls-tree") == 0)
        return "nvls_tree";
    for (int a = 0; a < COLL_ALGO_COUNT; a++) /* the scenario's algorithm names */
        if (strcmp(low, coll_algo_name((enum coll_algo)a)) == 0)
            return coll_algo_name((enum coll_algo)a);
    return NULL;
}

/* Simulate one size; returns 0 and the mean iteration time in ps, or an exit code. */
/* --max-memory (0 = the machine's available memory), checked before each size's run. */
static uint64_t perf_max_memory;

static int run_size(const char *path, cli_overrides *ov, enum coll_op op, const char *algo,
                    uint64_t bytes, uint32_t ranks, uint32_t channels, uint32_t iters,
                    sim_time *mean_ps, uint32_t *n_ranks)
{
    char wl[512];
    char ranks_txt[48] = "all";
    if (ranks)
        snprintf(ranks_txt, sizeof ranks_txt, "\"0-%u\"", ranks - 1);
    snprintf(wl, sizeof wl,
             "workload=[{name: perf, kind: collective, op: %s, algorithm: %s, size: %llu, "
             "iterations: %u, channels: %u, ranks: %s}]",
             coll_op_name(op), algo, (unsigned long long)bytes, iters, channels, ranks_txt);
    cli_overrides_add(ov, wl, false);
    err e;
    err_clear(&e);
    scenario sc;
    int rc;
    if (path) {
        rc = config_load(&sc, path, ov->over, ov->n, &e);
    } else {
        static const char empty[] = "{}\n";
        rc = config_load_buffer(&sc, "defaults", empty, sizeof empty - 1, ov->over, ov->n, &e);
    }
    ov->n--; /* the workload override is per size */
    xfree((char *)ov->over[ov->n].key);
    if (rc) {
        diag_print(stderr, &e, ov->text, ov->n);
        return e.code ? e.code : rc;
    }
    if ((rc = cli_check_memory(&sc, perf_max_memory, false, &e))) {
        diag_print(stderr, &e, ov->text, ov->n);
        scenario_free(&sc);
        return rc;
    }
    run *r = run_new(&sc, &e);
    if (!r) {
        diag_print(stderr, &e, ov->text, ov->n);
        scenario_free(&sc);
        return e.code ? e.code : ERR_INVALID;
    }
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const job_result *jr = &st->jobs[0];
    rc = ERR_OK;
    if (!jr->completed || !jr->n_iterations) {
        diag_msg(stderr, "perf: the %llu-byte %s did not complete (%s)", (unsigned long long)bytes,
                 coll_op_name(op),
                 st->deadlock ? (st->infiniband ? "credit deadlock" : "PFC deadlock")
                              : "stopped early");
        rc = ERR_RUN;
    } else {
        unsigned __int128 sum = 0;
        for (uint32_t k = 0; k < jr->n_iterations; k++)
            sum += jr->iterations[k].time_ps;
        *mean_ps = (sim_time)(sum / jr->n_iterations);
        *n_ranks = jr->ranks;
    }
    run_free(r);
    scenario_free(&sc);
    return rc;
}

int cmd_perf(int argc, char **argv)
{
    const char *path = NULL, *algo = NULL;
    bool have_op = false;
    enum coll_op op = OP_ALL_REDUCE;
    uint64_t minb = 32ull << 20, maxb = 32ull << 20, factor = 2, iters = 5, ranks = 0, channels = 0;
    cli_overrides ov;
    cli_overrides_init(&ov, argc + 1);
    int rc = ERR_OK;
    for (int i = 1; i < argc && rc == ERR_OK; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (a[0] != '-') {
            if (have_op)
                rc = cli_usage_error("perf", "more than one operation given ('%s')", a);
            else if (!parse_op(a, &op))
                rc = cli_usage_error("perf",
                                     "unknown operation '%s' (all_reduce, "
                                     "reduce_scatter, all_gather, all_to_all, "
                                     "broadcast, reduce)",
                                     a);
            have_op = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cmd_perf_help();
            cli_overrides_free(&ov);
            return ERR_OK;
        } else if ((v = cli_opt_value(argc, argv, &i, "-b", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--minbytes", &missing))) {
            if (!parse_bytes(v, &minb) || !minb)
                rc = cli_usage_error("perf", "-b expects a size like 8, 1K, 32M or 1GiB, got '%s'",
                                     v);
        } else if ((v = cli_opt_value(argc, argv, &i, "-e", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--maxbytes", &missing))) {
            if (!parse_bytes(v, &maxb) || !maxb)
                rc = cli_usage_error("perf", "-e expects a size like 8, 1K, 32M or 1GiB, got '%s'",
                                     v);
        } else if ((v = cli_opt_value(argc, argv, &i, "-f", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--stepfactor", &missing))) {
            if (!cli_is_uint(v) || (factor = strtoull(v, NULL, 10)) < 2)
                rc = cli_usage_error("perf", "-f expects an integer >= 2, got '%s'", v);
        } else if ((v = cli_opt_value(argc, argv, &i, "-n", &missing)) ||
                   (v = cli_opt_value(argc, argv, &i, "--iters", &missing))) {
            if (!cli_is_uint(v) || (iters = strtoull(v, NULL, 10)) < 1 || iters > 1000000)
                rc = cli_usage_error("perf", "-n expects 1..1000000, got '%s'", v);
        } else if ((v = cli_opt_value(argc, argv, &i, "--fabric", &missing))) {
            path = v;
        } else if ((v = cli_opt_value(argc, argv, &i, "--ranks", &missing))) {
            if (!cli_is_uint(v) || (ranks = strtoull(v, NULL, 10)) < 2 || ranks > (1u << 24))
                rc = cli_usage_error("perf", "--ranks expects an integer >= 2, got '%s'", v);
        } else if ((v = cli_opt_value(argc, argv, &i, "--channels", &missing))) {
            if (!cli_is_uint(v) || (channels = strtoull(v, NULL, 10)) < 1 || channels > 64)
                rc = cli_usage_error("perf", "--channels expects 1..64, got '%s'", v);
        } else if ((v = cli_opt_value(argc, argv, &i, "--algo", &missing))) {
            if (!(algo = algo_name_for(v)))
                rc = cli_usage_error("perf",
                                     "unknown algorithm '%s' (ring, tree, "
                                     "halving-doubling, direct, hierarchical, "
                                     "recursive-doubling, binomial, scatter-allgather, nvls)",
                                     v);
        } else if ((v = cli_opt_value(argc, argv, &i, "--max-memory", &missing))) {
            rc = cli_parse_memory("perf", v, &perf_max_memory);
        } else if ((v = cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (!cli_is_override(v))
                rc = cli_usage_error("perf", "--set expects KEY=VALUE, got '%s'", v);
            else
                cli_overrides_add(&ov, v, false);
        } else if (missing) {
            rc = cli_usage_error("perf", "option '%s' needs a value", a);
        } else {
            rc = cli_usage_error("perf", "unknown option '%s'", a);
        }
    }
    if (rc == ERR_OK && !have_op)
        rc = cli_usage_error("perf", "missing OP (e.g. all_reduce)");
    if (rc == ERR_OK && minb > maxb)
        rc = cli_usage_error("perf", "-b (%llu) is larger than -e (%llu)", (unsigned long long)minb,
                             (unsigned long long)maxb);
    if (rc) {
        cli_overrides_free(&ov);
        return rc;
    }
    if (!algo) {
        const char *env = getenv("NCCL_ALGO");
        algo = env && algo_name_for(env) ? algo_name_for(env) : "ring";
        if (op == OP_ALL_TO_ALL && !env)
            algo = "direct";
    }
    if (!channels) {
        /* one ring per NIC port of a server, so every rail carries one */
        scenario sc;
        err e;
        err_clear(&e);
        int lrc = path ? config_load(&sc, path, ov.over, ov.n, &e)
                       : config_load_buffer(&sc, "defaults", "{}\n", 3, ov.over, ov.n, &e);
        if (lrc) {
            diag_print(stderr, &e, ov.text, ov.n);
            cli_overrides_free(&ov);
            return e.code ? e.code : lrc;
        }
        const cfg_fabric *f = &sc.fabric;
        channels =
            f->preset == PRESET_CUSTOM ? 1 : (f->gpus_per_server / f->gpus_per_nic) * f->nic_ports;
        if (channels > 64)
            channels = 64;
        scenario_free(&sc);
    }

    printf("# wirerate %s perf: %s, algorithm %s, %llu channel(s), fabric %s\n", WR_VERSION,
           coll_op_name(op), algo, (unsigned long long)channels, path ? path : "(defaults)");
    printf("# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(factor) warmup iters: 0 "
           "iters: %llu agg iters: 1 validation: 0 graph: 0\n",
           (unsigned long long)minb, (unsigned long long)maxb, (unsigned long long)factor,
           (unsigned long long)iters);
    perf_table_begin(stdout);
    double bus_sum = 0;
    int rows = 0;
    for (uint64_t b = minb; b <= maxb; b *= factor) {
        sim_time t = 0;
        uint32_t n = 0;
        rc = run_size(path, &ov, op, algo, b, (uint32_t)ranks, (uint32_t)channels, (uint32_t)iters,
                      &t, &n);
        if (rc)
            break;
        uint64_t size_col, count_col;
        perf_table_size_count(op, b, n, 4, &size_col, &count_col);
        double us = (double)t / 1e6;
        double alg = coll_algbw_GBps(op, size_col, n, t);
        double bus = coll_busbw_GBps(op, size_col, n, t);
        perf_table_row(stdout, size_col, count_col, "float", perf_table_redop(op),
                       perf_table_root(op), us, alg, bus, us, alg, bus, -1);
        fflush(stdout);
        bus_sum += 2 * bus;
        rows += 2;
        if (b > UINT64_MAX / factor)
            break;
    }
    if (rc == ERR_OK)
        perf_table_end(stdout, rows ? bus_sum / rows : 0.0, 0);
    cli_overrides_free(&ov);
    return rc;
}
