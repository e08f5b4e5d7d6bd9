/*
 * config.c — the scenario schema: walks the YAML node tree (tree.h), fills a `scenario` with
 * every documented default (docs/scenario.md), and rejects unknown keys, wrong types, values
 * out of range and combinations the config alone can decide are impossible.
 *
 * Conventions, so that every message reads the same:
 *  - a message starts with the key's full path; list elements are written `workload[1].size`
 *    (the same form `--set` and config_locate() accept, next to `workload.1.size`);
 *  - bad values are reported at the value's node, unknown keys at the key's node, a missing
 *    required key at the mapping that lacks it;
 *  - the text is "expected <what>, got <found>", with `(did you mean "x"?)` when a close name
 *    exists (edit distance <= 2);
 *  - a key whose value is empty, `~` or `null` takes its default, like an absent key;
 *  - quantities with units may be quoted or not (they are strings to YAML anyway), but plain
 *    integers, numbers and booleans must not be quoted: `seed: "1"` is a string, an error.
 *
 * The first error wins and the walk stops there. Nothing here prints or exits.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/names.h"
#include "tree.h"
#include "reqtrace.h"
#include "units.h"

#define PATHLEN 256
#define MAX_FILE_BYTES (16u << 20)
#define MAX_INDEX 16777215u /* largest rank / host index accepted in a list */
#define MAX_INDEX_COUNT (1u << 20)

#define TRY(x)                                                                                     \
    do {                                                                                           \
        int rc_ = (x);                                                                             \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

typedef struct ld {
    scenario *sc;
    arena *a;
    err *e;
} ld;

/* --- names ---------------------------------------------------------------------------------- */

static const char *const PRESETS[] = {"single-switch", "leaf-spine", "fat-tree", "rail-optimized",
                                      "rail-only",     "custom",     NULL};
static const char *const JOB_KINDS[] = {"collective", "training", "traffic", "chakra", "inference",
                                        NULL};
static const char *const OPS[] = {"all_reduce", "reduce_scatter", "all_gather", "all_to_all",
                                  "broadcast",  "reduce",         NULL};
static const char *const ALGOS[] = {"ring",
                                    "tree",
                                    "halving-doubling",
                                    "direct",
                                    "hierarchical",
                                    "recursive-doubling",
                                    "binomial",
                                    "scatter-allgather",
                                    "nvls",
                                    "sharp",
                                    "nvls_tree",
                                    NULL};
static const char *const PATTERNS[] = {"permutation", "incast",        "all-to-all",   "uniform",
                                       "list",        "storage-write", "storage-read", NULL};
static const char *const NETWORKS[] = {"backend", "storage", "frontend", NULL};
static const char *const STORAGE_NICS[] = {"dedicated", "converged", NULL};
static const char *const CKPT_WRITERS[] = {"all", "shard", NULL};
static const char *const WD_ACTIONS[] = {"drop", "forward", NULL};
static const char *const SCHEDULERS[] = {"strict", "dwrr", NULL};
static const char *const ECN_MARK_POINTS[] = {"dequeue", "enqueue", NULL};
static const char *const CNP_SCOPES[] = {"port", "qp", NULL};
static const char *const TRANSPORTS[] = {"rocev2", "uet", NULL};
static const char *const CCS[] = {"dcqcn", "none", "nscc", "timely", "hpcc", "ib", NULL};
static const char *const RETX[] = {"go-back-n", "selective", NULL};
static const char *const NIC_PROFILES[] = {"connectx-6", "connectx-7", "bluefield-3", "paper", NULL};
static const char *const OOO_MODES[] = {"auto", "on", "off", NULL};
static const char *const LB_MODES[] = {"ecmp", "flowlet", "spray", "adaptive", "collective", NULL};
static const char *const HASHES[] = {"crc16", "crc32", "xor", "random", NULL};
static const char *const HASH_FIELDS[] = {"src_ip",   "dst_ip",   "src_port",
                                          "dst_port", "protocol", NULL};
static const char *const METRICS[] = {"queue", "utilization", NULL};
static const char *const FAULT_KINDS[] = {"link-down",     "link-up",  "gpu-slow",  "pfc-storm",
                                          "link-degraded", "link-ber", "link-flap", "switch-down",
                                          "switch-drain",  "gpu-fail", NULL};
static const char *const BER_POINTS[] = {"post-fec", "pre-fec", NULL};
static const char *const FORMATS[] = {"json", "csv",  "prom",   "trace",
                                      "pcap", "html", "sqlite", NULL};
static const char *const MODEL_PRESETS[] = {"llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b",
                                            NULL};

const char *preset_name(enum fabric_preset p)
{
    return (unsigned)p < sizeof PRESETS / sizeof PRESETS[0] - 1 ? PRESETS[p] : "?";
}
const char *fault_kind_name(enum fault_kind k)
{
    return (unsigned)k < FAULT_KINDS_N ? FAULT_KINDS[k] : "?";
}
const char *job_kind_name(enum job_kind k)
{
    return (unsigned)k < sizeof JOB_KINDS / sizeof JOB_KINDS[0] - 1 ? JOB_KINDS[k] : "?";
}
const char *coll_op_name(enum coll_op o)
{
    return (unsigned)o < sizeof OPS / sizeof OPS[0] - 1 ? OPS[o] : "?";
}
const char *coll_algo_name(enum coll_algo a)
{
    return (unsigned)a < sizeof ALGOS / sizeof ALGOS[0] - 1 ? ALGOS[a] : "?";
}
const char *pattern_name(enum traffic_pattern p)
{
    return (unsigned)p < sizeof PATTERNS / sizeof PATTERNS[0] - 1 ? PATTERNS[p] : "?";
}
const char *network_name(enum network_id w)
{
    return (unsigned)w < NETWORKS_N ? NETWORKS[w] : "?";
}

/* --- allowed keys --------------------------------------------------------------------------- */

static const char *const K_TOP[] = {"name",   "seed",        "stop_at",  "fabric", "switch",
                                    "nic",    "loadbalance", "workload", "faults", "telemetry",
                                    "output", "plan",        "devices",  "goodput", "tenants", "sim",
                                    NULL};
static const char *const K_SIM[] = {"fidelity", NULL};
static const char *const FIDELITIES[] = {"packet", "flow", NULL};
static const char *const K_GOODPUT[] = {"job", "iterations", "samples", "rates", NULL};
static const char *const K_RATES[] = {"gpu", "nic", "link", "switch", "host", "other", NULL};
static const char *const K_FABRIC[] = {"preset",
                                       "servers",
                                       "gpus_per_server",
                                       "gpus_per_nic",
                                       "nic_ports",
                                       "rails_per_leaf",
                                       "host_link",
                                       "fabric_link",
                                       "oversubscription",
                                       "leaf_radix",
                                       "spine_radix",
                                       "spines",
                                       "planes",
                                       "mtu",
                                       "pods",
                                       "k",
                                       "link_latency",
                                       "cable_length",
                                       "switch_latency",
                                       "cut_through",
                                       "scale_up",
                                       "custom",
                                       "vtep",
                                       "link_layer",
                                       "infiniband",
                                       "storage",
                                       "frontend",
                                       NULL};
static const char *const LINK_LAYERS[] = {"ethernet", "infiniband", NULL};
static const char *const K_IB[] = {"vl_buffer", "deadlock_detect", "cc", NULL};
static const char *const K_IBCC[] = {
    "threshold", "marking_rate", "ccti_increase", "ccti_timer", "ccti_limit", "ccti_min", NULL};
static const char *const K_STORAGE[] = {"servers",     "server_link",      "nic",
                                        "nic_speed",   "leaf_radix",       "spine_radix",
                                        "fabric_link", "oversubscription", NULL};
static const char *const K_FRONTEND[] = {"nic_speed",   "leaf_radix",       "spine_radix",
                                         "fabric_link", "oversubscription", NULL};
static const char *const K_SCALE_UP[] = {"bandwidth", "efficiency", "latency", NULL};
static const char *const K_CUSTOM[] = {"switches", "hosts", "links", NULL};
static const char *const K_CSWITCH[] = {"name", NULL};
static const char *const K_CHOST[] = {"name", "gpus", NULL};
static const char *const K_CLINK[] = {"a", "b", "speed", "latency", NULL};
static const char *const K_SWITCH[] = {"buffer",  "alpha",    "ecn",   "pfc", "scheduler",
                                       "weights", "trimming", "sharp", NULL};
static const char *const K_ECN[] = {"enabled", "kmin", "kmax", "pmax", "mark_at", NULL};
static const char *const K_PFC[] = {"enabled", "priorities", "xoff",     "headroom",
                                    "xon",     "xon_offset", "watchdog", "deadlock_detect",
                                    NULL};
static const char *const K_WD[] = {"detect", "restore", "action", NULL};
static const char *const K_NIC[] = {
    "mtu",   "transport", "cc",       "dcqcn",        "qps_per_connection",
    "retransmit", "rto",  "priority", "cnp_priority", "ack_every", "reorder_tolerance", "profile",
    "retry_count", "failover_delay", "ooo_placement", "reorder_window", "timely", "hpcc", "dscp",
    "cnp_dscp", "trust", "netdev_mtu", "uet", "nscc", NULL};
static const char *const K_UET[] = {"paths", "reps_buffer", "rccc", "unsolicited", NULL};
static const char *const K_NSCC[] = {"base_rtt", "target_delay", NULL};
static const char *const K_TIMELY[] = {"t_low",    "t_high", "min_rtt",  "beta",    "ewma",
                                       "add_rate", "min_rate", "hai_n", "segment", NULL};
static const char *const K_HPCC[] = {"eta", "max_stage", "ai_rate", NULL};
static const char *const K_DCQCN[] = {"rate_reduce_monitor_period",
                                      "rpg_time_reset",
                                      "rpg_byte_reset",
                                      "rpg_threshold",
                                      "rpg_ai_rate",
                                      "rpg_hai_rate",
                                      "rpg_gd",
                                      "rpg_min_dec_fac",
                                      "rpg_min_rate",
                                      "rpg_max_rate",
                                      "rate_to_set_on_first_cnp",
                                      "dce_tcp_g",
                                      "dce_tcp_rtt",
                                      "initial_alpha_value",
                                      "clamp_tgt_rate",
                                      "clamp_tgt_rate_after_time_inc",
                                      "min_time_between_cnps",
                                      "cnp_scope",
                                      NULL};
/* The paper-style keys of earlier versions, refused with the ConnectX key that replaces them
 * (an alias would silently change meaning: g was a fraction, dce_tcp_g is the NIC's integer). */
static const char *const K_DCQCN_OLD[][2] = {
    {"g", "dce_tcp_g (the NIC's integer: 1020 is the paper's g = 1/256, 1019 the firmware default)"},
    {"rai", "rpg_ai_rate"},
    {"rhai", "rpg_hai_rate"},
    {"timer", "rpg_time_reset (rate-increase timer) and dce_tcp_rtt (alpha update period)"},
    {"byte_counter", "rpg_byte_reset"},
    {"fast_recovery", "rpg_threshold"},
    {"cnp_interval", "min_time_between_cnps"},
    {"min_rate", "rpg_min_rate"},
};
static const char *const K_LB[] = {"mode", "hash", "fields", "flowlet_gap", "adaptive", NULL};
static const char *const K_ADAPTIVE[] = {"metric", NULL};
static const char *const K_JOB_COLL[] = {"name",      "kind", "start",    "iterations", "op",
                                         "algorithm", "size", "ranks",    "channels",   "priority",
                                         "pxn",       "chunk", "reduce_rate", "tenant", NULL};
static const char *const K_JOB_TRAIN[] = {
    "name",        "kind",         "start",  "iterations", "model",      "parallelism",
    "micro_batch", "global_batch", "gpu",    "ranks",      "priority",   "tp_per_layer",
    "optimizer",   "recompute",    "bucket", "moe",        "checkpoint", "tenant",
    "model_load",  "dataset",      NULL};
static const char *const K_DATASET[] = {"sample_bytes", "prefetch", NULL};
static const char *const K_JOB_INFER[] = {
    "name",     "kind",     "start",    "model",         "parallelism", "moe", "gpu",
    "ranks",    "priority", "requests", "batching",      "disaggregated", "tenant", NULL};
static const char *const K_REQUESTS[] = {"rate", "count", "prompt", "output", "trace", NULL};
static const char *const K_BATCHING[] = {"max_batch", "max_tokens", NULL};
static const char *const K_GPU_INFER[] = {"peak_tflops", "mfu", "hbm_bandwidth",
                                          "hbm_efficiency", NULL};
static const char *const K_PAR_INFER[] = {"tp", "pp", NULL};
static const char *const K_DISAGG[] = {"prefill_gpus", "decode_gpus", NULL};
static const char *const K_MOE[] = {"experts", "top_k", "ep", "skew", NULL};
static const char *const K_CKPT[] = {"interval", "write_time", "size", "restart_time",
                                     "writers",  "async",      NULL};
static const char *const K_JOB_TRAFFIC[] = {"name",     "kind",  "start", "iterations", "pattern",
                                            "size",     "hosts", "load",  "priority",   "size_cdf",
                                            "duration", "count", "tenant", "flows",
                                            "network",  NULL};
static const char *const K_JOB_CHAKRA[] = {"name",  "kind",  "start",  "iterations", "trace",
                                           "priority", "ranks", "tenant", NULL};
static const char *const K_TENANT[] = {"name", "vni", "import", NULL};
static const char *const VTEPS[] = {"leaf", "host", NULL};
static const char *const K_FLOW[] = {"id", "src", "dst", "size", "start", "after", NULL};
static const char *const K_MODEL[] = {"preset", "params", "layers",   "hidden", "seq_len",
                                      "vocab",  "ffn",    "heads",    "kv_heads", NULL};
static const char *const K_PAR[] = {"tp", "pp", "dp", "vp", "order", "placement", NULL};
static const char *const PAR_ORDERS[] = {"tp-dp-pp", "tp-pp-dp", NULL};
static const char *const PAR_PLACEMENTS[] = {"contiguous", "scattered", NULL};
static const char *const OPTIMIZERS[] = {"replicated", "sharded", NULL};
static const char *const K_GPU[] = {"peak_tflops", "mfu", NULL};
static const char *const K_FAULT_LINK[] = {"at",       "kind",         "link", "detect",
                                           "converge", "fast_reroute", NULL};
static const char *const K_FAULT_GPU[] = {"at", "kind", "gpu", "factor", NULL};
static const char *const K_FAULT_STORM[] = {"at", "kind", "nic", "duration", NULL};
static const char *const K_FAULT_DEGRADED[] = {"at",    "kind",     "link", "fraction",
                                               "speed", "duration", NULL};
static const char *const K_FAULT_BER[] = {"at", "kind", "link", "ber", "ber_at", "duration", NULL};
static const char *const K_FAULT_FLAP[] = {"at",       "kind",   "link",     "period",       "down",
                                           "duration", "detect", "converge", "fast_reroute", NULL};
static const char *const K_FAULT_SWITCH[] = {"at",     "kind",     "switch",       "duration",
                                             "detect", "converge", "fast_reroute", NULL};
static const char *const K_FAULT_DRAIN[] = {"at",   "kind",   "switch",   "duration",
                                            "wait", "detect", "converge", NULL};
static const char *const K_FAULT_GPU_FAIL[] = {"at", "kind", "gpu", NULL};
static const char *const K_TELEMETRY[] = {"sample_interval", "pcap", NULL};
static const char *const K_PCAP[] = {"max_packets", "max_bytes", "snaplen", "filter", NULL};
static const char *const K_OUTPUT[] = {"dir", "formats", NULL};
static const char *const K_PLAN[] = {
    "cooling",       "rack_power",        "server_power", "switch_power", "placement",
    "racks_per_row", "switches_per_rack", "ipv6",         "asn_base",     NULL};
static const char *const COOLINGS[] = {"air", "liquid", NULL};
static const char *const PLACEMENTS[] = {"end-of-row", "top-of-rack", "rail-rows", NULL};

/* --- messages ------------------------------------------------------------------------------- */

/* User text for a message: control bytes escaped, cut at 60 bytes. */
static const char *show(char *dst, size_t cap, const char *s)
{
    size_t o = 0;
    for (size_t i = 0; s[i] && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= 60) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        if (c < 0x20 || c == 0x7f) {
            snprintf(dst + o, cap - o, "\\x%02x", c);
            o += 4;
        } else if (c == '"') {
            dst[o++] = '\\';
            dst[o++] = '"';
        } else {
            dst[o++] = (char)c;
        }
    }
    dst[o] = '\0';
    return dst;
}

static int failv(ld *L, const cfg_node *n, const char *path, const char *fmt, va_list ap)
{
    char msg[ERR_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    const char *src = n ? n->src : L->sc->file;
    int line = n ? n->line : 1, col = n ? n->col : 1;
    if (path && *path)
        return err_set(L->e, ERR_INVALID, src, line, col, "%s: %s", path, msg);
    return err_set(L->e, ERR_INVALID, src, line, col, "%s", msg);
}

static int fail(ld *L, const cfg_node *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(ld *L, const cfg_node *n, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = failv(L, n, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* parent.key, or key at the top; parent[i] for list elements. Long user keys are cut. */
/* snprintf for key paths: a path too long for the buffer is cut, which only shortens a message. */
static void path_printf(char *dst, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void path_printf(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

static void sub(char *dst, const char *parent, const char *key)
{
    char k[80];
    show(k, sizeof k, key);
    if (parent && *parent)
        path_printf(dst, PATHLEN, "%s.%s", parent, k);
    else
        path_printf(dst, PATHLEN, "%s", k);
}

static void subi(char *dst, const char *parent, uint32_t i)
{
    path_printf(dst, PATHLEN, "%s[%u]", parent, i);
}

/* Levenshtein distance, capped inputs (keys are short). */
static unsigned edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    unsigned row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
            unsigned best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The closest name within distance 2 (and closer than the word's own length), or NULL. */
static const char *suggest(const char *word, const char *const *names)
{
    const char *best = NULL;
    unsigned bd = 3;
    size_t wl = strlen(word);
    for (const char *const *n = names; *n; n++) {
        unsigned d = edit_distance(word, *n);
        if (d < bd && d < wl) {
            bd = d;
            best = *n;
        }
    }
    return best;
}

static void join_names(char *dst, size_t cap, const char *const *names, const char *sep)
{
    size_t o = 0;
    dst[0] = '\0';
    for (const char *const *n = names; *n; n++) {
        int w = snprintf(dst + o, cap - o, "%s%s", n == names ? "" : sep, *n);
        if (w < 0 || (size_t)w >= cap - o)
            break;
        o += (size_t)w;
    }
}

/* --- shape checks --------------------------------------------------------------------------- */

static bool present(const cfg_node *n)
{
    return n && !cfg_is_null(n);
}

/* Every key of `map` must be in `allowed`. `what` qualifies the message ("for a traffic job"). */
static int check_keys(ld *L, const cfg_node *map, const char *path, const char *const *allowed,
                      const char *what)
{
    for (uint32_t i = 0; i < map->n; i++) {
        const cfg_node *k = map->keys[i];
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(k->str, *a) == 0;
        if (ok)
            continue;
        char kp[PATHLEN];
        sub(kp, path, k->str);
        const char *s = suggest(k->str, allowed);
        const char *kw = (path && *path) ? "key" : "top-level key";
        const char *sp = what ? " " : "";
        if (s)
            return fail(L, k, kp, "unknown %s%s%s (did you mean \"%s\"?)", kw, sp, what ? what : "",
                        s);
        char list[400];
        join_names(list, sizeof list, allowed, ", ");
        return fail(L, k, kp, "unknown %s%s%s (expected one of: %s)", kw, sp, what ? what : "",
                    list);
    }
    return ERR_OK;
}

/* map[key] as a mapping (NULL when absent or null). */
static int get_map(ld *L, const cfg_node *map, const char *path, const char *key,
                   const char *const *allowed, const cfg_node **out, char *kp)
{
    *out = NULL;
    sub(kp, path, key);
    const cfg_node *v = cfg_map_get(map, key, NULL);
    if (!present(v))
        return ERR_OK;
    if (v->kind != CFG_MAP)
        return fail(L, v, kp, "expected a mapping, got %s", cfg_kind_name(v->kind));
    if (allowed)
        TRY(check_keys(L, v, kp, allowed, NULL));
    *out = v;
    return ERR_OK;
}

/* map[key] as a scalar; *out NULL when absent or null. `what` is the expected-phrase. */
static int get_scalar(ld *L, const cfg_node *map, const char *path, const char *key,
                      const char *what, const cfg_node **out, char *kp)
{
    *out = NULL;
    sub(kp, path, key);
    const cfg_node *v = cfg_map_get(map, key, NULL);
    if (!present(v))
        return ERR_OK;
    if (v->kind != CFG_SCALAR)
        return fail(L, v, kp, "expected %s, got %s", what, cfg_kind_name(v->kind));
    *out = v;
    return ERR_OK;
}

/* A plain (unquoted) scalar for integer/number/boolean values. */
static int want_plain(ld *L, const cfg_node *v, const char *kp, const char *what)
{
    char s[200];
    if (v->quoted)
        return fail(L, v, kp, "expected %s, got the string \"%s\" (remove the quotes)", what,
                    show(s, sizeof s, v->str));
    return ERR_OK;
}

/* --- typed getters: leave *out alone when the key is absent ---------------------------------- */

/* Parse a decimal integer; neg and overflow say why it does not fit. False if not an integer. */
static bool parse_int(const char *s, uint64_t *v, bool *neg, bool *overflow)
{
    *neg = *overflow = false;
    if (*s == '-') {
        *neg = true;
        s++;
    } else if (*s == '+') {
        s++;
    }
    if (!*s)
        return false;
    uint64_t x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINT64_MAX - d) / 10)
            *overflow = true;
        else
            x = x * 10 + d;
    }
    *v = x;
    if (*neg && x == 0)
        *neg = false;
    return true;
}

static int int_node(ld *L, const cfg_node *v, const char *kp, uint64_t lo, uint64_t hi,
                    uint64_t *out)
{
    char s[200];
    TRY(want_plain(L, v, kp, "an integer"));
    uint64_t x = 0;
    bool neg, ovf;
    if (!parse_int(v->str, &x, &neg, &ovf))
        return fail(L, v, kp, "expected an integer, got \"%s\"", show(s, sizeof s, v->str));
    if (neg || ovf || x < lo || x > hi) {
        if (neg && hi == UINT64_MAX)
            return fail(L, v, kp, "expected an integer >= %llu, got %s", (unsigned long long)lo,
                        show(s, sizeof s, v->str));
        if (hi == UINT64_MAX)
            return fail(L, v, kp, "expected an integer <= %llu, got %s",
                        (unsigned long long)UINT64_MAX, show(s, sizeof s, v->str));
        return fail(L, v, kp, "expected %llu..%llu, got %s", (unsigned long long)lo,
                    (unsigned long long)hi, show(s, sizeof s, v->str));
    }
    *out = x;
    return ERR_OK;
}

static int get_u64(ld *L, const cfg_node *map, const char *path, const char *key, uint64_t lo,
                   uint64_t hi, uint64_t *out, const cfg_node **node)
{
    const cfg_node *v;
    char kp[PATHLEN];
    if (node)
        *node = NULL;
    TRY(get_scalar(L, map, path, key, "an integer", &v, kp));
    if (!v)
        return ERR_OK;
    if (node)
        *node = v;
    return int_node(L, v, kp, lo, hi, out);
}

static int get_u32(ld *L, const cfg_node *map, const char *path, const char *key, uint32_t lo,
                   uint32_t hi, uint32_t *out, const cfg_node **node)
{
    uint64_t x = *out;
    TRY(get_u64(L, map, path, key, lo, hi, &x, node));
    *out = (uint32_t)x;
    return ERR_OK;
}

/* A finite decimal number (also "70e9"); range [lo, hi] with open ends as flagged. */
static int num_node(ld *L, const cfg_node *v, const char *kp, double lo, bool lo_open, double hi,
                    bool hi_open, const char *range, double *out)
{
    char s[200];
    TRY(want_plain(L, v, kp, "a number"));
    const char *p = v->str;
    bool ok = *p != '\0';
    for (const char *q = p; *q && ok; q++)
        ok = (*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '-' ||
             *q == '+';
    char *end = NULL;
    double x = ok ? strtod(p, &end) : 0;
    if (!ok || !end || *end || !isfinite(x))
        return fail(L, v, kp, "expected a number, got \"%s\"", show(s, sizeof s, v->str));
    if (x < lo || (lo_open && x == lo) || x > hi || (hi_open && x == hi))
        return fail(L, v, kp, "expected %s, got %s", range, show(s, sizeof s, v->str));
    *out = x;
    return ERR_OK;
}

static int get_num(ld *L, const cfg_node *map, const char *path, const char *key, double lo,
                   bool lo_open, double hi, bool hi_open, const char *range, double *out)
{
    const cfg_node *v;
    char kp[PATHLEN];
    TRY(get_scalar(L, map, path, key, "a number", &v, kp));
    if (!v)
        return ERR_OK;
    return num_node(L, v, kp, lo, lo_open, hi, hi_open, range, out);
}

static int get_bool(ld *L, const cfg_node *map, const char *path, const char *key, bool *out)
{
    const cfg_node *v;
    char kp[PATHLEN], s[200];
    TRY(get_scalar(L, map, path, key, "true or false", &v, kp));
    if (!v)
        return ERR_OK;
    TRY(want_plain(L, v, kp, "true or false"));
    if (!strcmp(v->str, "true") || !strcmp(v->str, "True") || !strcmp(v->str, "TRUE"))
        *out = true;
    else if (!strcmp(v->str, "false") || !strcmp(v->str, "False") || !strcmp(v->str, "FALSE"))
        *out = false;
    else
        return fail(L, v, kp, "expected true or false, got \"%s\"", show(s, sizeof s, v->str));
    return ERR_OK;
}

static int get_str(ld *L, const cfg_node *map, const char *path, const char *key, const char **out,
                   const cfg_node **node)
{
    const cfg_node *v;
    char kp[PATHLEN];
    if (node)
        *node = NULL;
    TRY(get_scalar(L, map, path, key, "a string", &v, kp));
    if (!v)
        return ERR_OK;
    if (v->len == 0)
        return fail(L, v, kp, "expected a non-empty string, got \"\"");
    *out = v->str;
    if (node)
        *node = v;
    return ERR_OK;
}

static int enum_node(ld *L, const cfg_node *v, const char *kp, const char *const *names, int *out)
{
    char s[200], list[300];
    for (int i = 0; names[i]; i++) {
        if (!strcmp(v->str, names[i])) {
            *out = i;
            return ERR_OK;
        }
    }
    join_names(list, sizeof list, names, " | ");
    const char *sg = suggest(v->str, names);
    if (sg)
        return fail(L, v, kp, "expected one of %s, got \"%s\" (did you mean \"%s\"?)", list,
                    show(s, sizeof s, v->str), sg);
    return fail(L, v, kp, "expected one of %s, got \"%s\"", list, show(s, sizeof s, v->str));
}

static int get_enum(ld *L, const cfg_node *map, const char *path, const char *key,
                    const char *const *names, int *out, const cfg_node **node)
{
    const cfg_node *v;
    char kp[PATHLEN], what[320], list[300];
    if (node)
        *node = NULL;
    join_names(list, sizeof list, names, " | ");
    snprintf(what, sizeof what, "one of %s", list);
    TRY(get_scalar(L, map, path, key, what, &v, kp));
    if (!v)
        return ERR_OK;
    if (node)
        *node = v;
    return enum_node(L, v, kp, names, out);
}

typedef bool (*unit_fn)(const char *s, uint64_t *out, char *why, size_t why_len);

static int get_unit(ld *L, const cfg_node *map, const char *path, const char *key, unit_fn fn,
                    const char *what, uint64_t *out, const cfg_node **node)
{
    const cfg_node *v;
    char kp[PATHLEN], why[400];
    if (node)
        *node = NULL;
    TRY(get_scalar(L, map, path, key, what, &v, kp));
    if (!v)
        return ERR_OK;
    if (node)
        *node = v;
    if (!fn(v->str, out, why, sizeof why))
        return fail(L, v, kp, "%s", why);
    if (fn == units_time && *out > SIM_TIME_INPUT_MAX) {
        char s[200];
        return fail(L, v, kp,
                    "\"%s\" is beyond the longest time a scenario may give, 4611686s (2^62 ps, "
                    "about 53 days; longer times would overflow the simulated clock)",
                    show(s, sizeof s, v->str));
    }
    return ERR_OK;
}

#define RATE units_rate, "a rate like \"400Gbps\""
#define TIME units_time, "a time like \"2us\""
#define SIZE units_size, "a size like \"4KiB\""
#define LENGTH units_length, "a length like \"30m\""

/* A quantity that must be positive: 0 is rejected with the key's own wording. */
static int get_unit_pos(ld *L, const cfg_node *map, const char *path, const char *key, unit_fn fn,
                        const char *what, uint64_t *out, const cfg_node **node)
{
    const cfg_node *v;
    uint64_t x = *out;
    TRY(get_unit(L, map, path, key, fn, what, &x, &v));
    if (node)
        *node = v;
    if (v && x == 0) {
        char kp[PATHLEN], s[200];
        sub(kp, path, key);
        char noun[64];
        snprintf(noun, sizeof noun, "%.*s",
                 (int)strcspn(what, " ") + 1 + (int)strcspn(what + strcspn(what, " ") + 1, " "),
                 what);
        return fail(L, v, kp, "expected %s greater than 0, got \"%s\"", noun,
                    show(s, sizeof s, v->str));
    }
    *out = x;
    return ERR_OK;
}

/* A size, or the word `auto` (stored as 0). A bad value's message offers both, so that a
 * reader who wrote 0 or a typo learns that `auto` is the way to ask for the default. */
static int get_size_auto(ld *L, const cfg_node *map, const char *path, const char *key,
                         uint64_t *out)
{
    const cfg_node *v;
    char kp[PATHLEN], why[400], s[200];
    TRY(get_scalar(L, map, path, key, "auto or a size like \"4KiB\"", &v, kp));
    if (!v)
        return ERR_OK;
    if (!strcmp(v->str, "auto")) {
        *out = 0;
        return ERR_OK;
    }
    uint64_t x;
    if (!units_size(v->str, &x, why, sizeof why)) { /* "expected a size like ..., got ..." */
        bool std = !strncmp(why, "expected ", 9);
        return fail(L, v, kp, "%s%s", std ? "expected auto or " : "", std ? why + 9 : why);
    }
    if (x == 0)
        return fail(L, v, kp, "expected auto or a size greater than 0, got \"%s\"",
                    show(s, sizeof s, v->str));
    *out = x;
    return ERR_OK;
}

/* map[key] as a sequence; *out NULL when absent. */
static int get_seq(ld *L, const cfg_node *map, const char *path, const char *key, const char *what,
                   const cfg_node **out, char *kp)
{
    *out = NULL;
    sub(kp, path, key);
    const cfg_node *v = cfg_map_get(map, key, NULL);
    if (!present(v))
        return ERR_OK;
    if (v->kind != CFG_SEQ)
        return fail(L, v, kp, "expected %s, got %s", what, cfg_kind_name(v->kind));
    *out = v;
    return ERR_OK;
}

/* A list of enum names turned into a bitmask; must not be empty. */
static int get_enum_list(ld *L, const cfg_node *map, const char *path, const char *key,
                         const char *const *names, const char *what, uint32_t *mask)
{
    const cfg_node *seq;
    char kp[PATHLEN], ep[PATHLEN];
    TRY(get_seq(L, map, path, key, what, &seq, kp));
    if (!seq)
        return ERR_OK;
    if (seq->n == 0)
        return fail(L, seq, kp, "expected %s, got an empty list", what);
    uint32_t m = 0;
    for (uint32_t i = 0; i < seq->n; i++) {
        const cfg_node *v = seq->vals[i];
        subi(ep, kp, i);
        char list[300];
        join_names(list, sizeof list, names, " | ");
        if (v->kind != CFG_SCALAR)
            return fail(L, v, ep, "expected one of %s, got %s", list, cfg_kind_name(v->kind));
        int x = 0;
        TRY(enum_node(L, v, ep, names, &x));
        m |= 1u << x;
    }
    *mask = m;
    return ERR_OK;
}

/* --- index sets (ranks / hosts) ------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

#define SET_WHAT "all, a list like [0, 1, 2] or a range like \"0-63\""

/* Parse "a-b,c,d-e" (blanks allowed around items) into idx (arena); false when malformed. */
static bool parse_ranges(ld *L, const char *s, uint32_t **idx, uint32_t *n, const char **why)
{
    uint64_t total = 0;
    *why = NULL;
    for (int pass = 0; pass < 2; pass++) {
        const char *p = s;
        uint32_t o = 0;
        for (;;) {
            uint64_t a = 0, b;
            int digits = 0;
            while (*p == ' ')
                p++;
            for (; *p >= '0' && *p <= '9'; p++, digits++)
                if ((a = a * 10 + (uint64_t)(*p - '0')) > MAX_INDEX)
                    return (*why = "index too large"), false;
            if (!digits)
                return false;
            b = a;
            while (*p == ' ')
                p++;
            if (*p == '-') {
                p++;
                while (*p == ' ')
                    p++;
                b = 0;
                digits = 0;
                for (; *p >= '0' && *p <= '9'; p++, digits++)
                    if ((b = b * 10 + (uint64_t)(*p - '0')) > MAX_INDEX)
                        return (*why = "index too large"), false;
                if (!digits)
                    return false;
                if (b < a)
                    return (*why = "the range is backwards"), false;
            }
            if (pass == 0) {
                total += b - a + 1;
                if (total > MAX_INDEX_COUNT)
                    return (*why = "too many indices"), false;
            } else {
                for (uint64_t x = a; x <= b; x++)
                    (*idx)[o++] = (uint32_t)x;
            }
            while (*p == ' ')
                p++;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p)
                return false;
            break;
        }
        if (pass == 0) {
            *idx = ARENA_NEW_ARRAY(L->a, uint32_t, total);
            *n = (uint32_t)total;
        }
    }
    return true;
}

static int get_index_set(ld *L, const cfg_node *map, const char *path, const char *key,
                         cfg_index_set *out)
{
    char kp[PATHLEN], s[200];
    sub(kp, path, key);
    const cfg_node *v = cfg_map_get(map, key, NULL);
    out->all = true;
    out->n = 0;
    out->idx = NULL;
    if (!present(v))
        return ERR_OK;
    out->line = v->line;
    out->col = v->col;
    if (v->kind == CFG_MAP)
        return fail(L, v, kp, "expected %s, got a mapping", SET_WHAT);
    if (v->kind == CFG_SCALAR) {
        if (!strcmp(v->str, "all"))
            return ERR_OK;
        uint64_t x;
        bool neg, ovf;
        if (!v->quoted && parse_int(v->str, &x, &neg, &ovf)) {
            if (neg || ovf || x == 0 || x > MAX_INDEX)
                return fail(L, v, kp, "expected %s, got %s", SET_WHAT, show(s, sizeof s, v->str));
            return fail(L, v, kp,
                        "expected %s, got %llu (one index is written [%llu]; the first %llu "
                        "are \"0-%llu\")",
                        SET_WHAT, (unsigned long long)x, (unsigned long long)x,
                        (unsigned long long)x, (unsigned long long)(x - 1));
        }
        const char *why;
        if (!parse_ranges(L, v->str, &out->idx, &out->n, &why))
            return why ? fail(L, v, kp, "expected %s, got \"%s\" (%s)", SET_WHAT,
                              show(s, sizeof s, v->str), why)
                       : fail(L, v, kp, "expected %s, got \"%s\"", SET_WHAT,
                              show(s, sizeof s, v->str));
        out->all = false;
    } else {
        if (v->n == 0)
            return fail(L, v, kp, "expected %s, got an empty list", SET_WHAT);
        if (v->n > MAX_INDEX_COUNT)
            return fail(L, v, kp, "expected at most %u indices", MAX_INDEX_COUNT);
        out->idx = ARENA_NEW_ARRAY(L->a, uint32_t, v->n);
        out->n = v->n;
        for (uint32_t i = 0; i < v->n; i++) {
            char ep[PATHLEN];
            uint64_t x = 0;
            subi(ep, kp, i);
            const cfg_node *it = v->vals[i];
            if (it->kind != CFG_SCALAR)
                return fail(L, it, ep, "expected an integer, got %s", cfg_kind_name(it->kind));
            TRY(int_node(L, it, ep, 0, MAX_INDEX, &x));
            out->idx[i] = (uint32_t)x;
        }
        out->all = false;
    }
    /* Duplicates are a mistake in any of the three forms. */
    uint32_t *sorted = ARENA_NEW_ARRAY(L->a, uint32_t, out->n);
    memcpy(sorted, out->idx, sizeof *sorted * out->n);
    qsort(sorted, out->n, sizeof *sorted, cmp_u32);
    for (uint32_t i = 1; i < out->n; i++)
        if (sorted[i] == sorted[i - 1])
            return fail(L, v, kp, "index %u is listed twice", sorted[i]);
    return ERR_OK;
}

/* --- sections ------------------------------------------------------------------------------- */

/* fabric.custom's names (unique across switches and hosts) and links (their ends named); m is
 * the name map, filled here. */
static int parse_custom_links(ld *L, const cfg_node *cm, const char *path, const cfg_node *sw,
                              const cfg_node *ho, name_map *m)
{
    cfg_fabric *f = &L->sc->fabric;
    const cfg_node *li;
    char kp[PATHLEN], ep[PATHLEN];
    /* Names are shared by switches and hosts: links refer to either. */
    uint32_t nn = f->n_custom_switches + f->n_custom_hosts;
    for (uint32_t i = 0; i < nn; i++) {
        bool is_sw_i = i < f->n_custom_switches;
        const char *ni =
            is_sw_i ? f->custom_switches[i].name : f->custom_hosts[i - f->n_custom_switches].name;
        if (names_put(m, ni, i) != NAMES_NONE) {
            const cfg_node *list = is_sw_i ? sw : ho;
            uint32_t li_ = is_sw_i ? i : i - f->n_custom_switches;
            char np[PATHLEN], s[200];
            path_printf(np, sizeof np, "%s.%s[%u].name", path, is_sw_i ? "switches" : "hosts",
                        li_);
            return fail(L, cfg_map_get(list->vals[li_], "name", NULL), np,
                        "duplicate node name \"%s\"", show(s, sizeof s, ni));
        }
    }

    TRY(get_seq(L, cm, path, "links",
                "a list of links like [{a: h0, b: s0, speed: 400Gbps, latency: 500ns}]", &li, kp));
    if (!li || li->n == 0)
        return fail(L, li ? li : cm, li ? kp : path, "expected at least one link in %s.links",
                    path);
    f->n_custom_links = li->n;
    f->custom_links = ARENA_NEW_ARRAY(L->a, cfg_custom_link, li->n);
    for (uint32_t i = 0; i < li->n; i++) {
        const cfg_node *it = li->vals[i];
        cfg_custom_link *cl = &f->custom_links[i];
        subi(ep, kp, i);
        if (it->kind != CFG_MAP)
            return fail(L, it, ep, "expected a mapping like {a: h0, b: s0}, got %s",
                        cfg_kind_name(it->kind));
        TRY(check_keys(L, it, ep, K_CLINK, NULL));
        cl->line = it->line;
        cl->col = it->col;
        cl->latency_ps = SIM_TIME_MAX;
        const char *ends[2] = {"a", "b"};
        for (int e = 0; e < 2; e++) {
            const char *nm = NULL;
            const cfg_node *nv;
            TRY(get_str(L, it, ep, ends[e], &nm, &nv));
            if (!nm)
                return fail(L, it, ep, "missing required key \"%s\"", ends[e]);
            if (names_get(m, nm) == NAMES_NONE) {
                char np[PATHLEN], s[200];
                sub(np, ep, ends[e]);
                return fail(L, nv, np, "unknown node \"%s\" (not in %s.switches or %s.hosts)",
                            show(s, sizeof s, nm), path, path);
            }
            if (e == 0)
                cl->a = nm;
            else
                cl->b = nm;
        }
        if (!strcmp(cl->a, cl->b))
            return fail(L, cfg_map_get(it, "b", NULL), ep, "a link needs two different ends");
        TRY(get_unit_pos(L, it, ep, "speed", RATE, &cl->speed_bps, NULL));
        TRY(get_unit(L, it, ep, "latency", TIME, &cl->latency_ps, NULL));
    }
    return ERR_OK;
}

static int parse_custom(ld *L, const cfg_node *cm, const char *path)
{
    cfg_fabric *f = &L->sc->fabric;
    const cfg_node *sw, *ho;
    char kp[PATHLEN], ep[PATHLEN];

    TRY(get_seq(L, cm, path, "switches", "a list of switches like [{name: s0}]", &sw, kp));
    if (!sw || sw->n == 0)
        return fail(L, sw ? sw : cm, sw ? kp : path, "expected at least one switch in %s.switches",
                    path);
    f->n_custom_switches = sw->n;
    f->custom_switches = ARENA_NEW_ARRAY(L->a, cfg_custom_switch, sw->n);
    for (uint32_t i = 0; i < sw->n; i++) {
        const cfg_node *it = sw->vals[i];
        subi(ep, kp, i);
        if (it->kind != CFG_MAP)
            return fail(L, it, ep, "expected a mapping like {name: s0}, got %s",
                        cfg_kind_name(it->kind));
        TRY(check_keys(L, it, ep, K_CSWITCH, NULL));
        TRY(get_str(L, it, ep, "name", &f->custom_switches[i].name, NULL));
        if (!f->custom_switches[i].name)
            return fail(L, it, ep, "missing required key \"name\"");
    }

    TRY(get_seq(L, cm, path, "hosts", "a list of hosts like [{name: h0, gpus: 8}]", &ho, kp));
    if (!ho || ho->n == 0)
        return fail(L, ho ? ho : cm, ho ? kp : path, "expected at least one host in %s.hosts",
                    path);
    f->n_custom_hosts = ho->n;
    f->custom_hosts = ARENA_NEW_ARRAY(L->a, cfg_custom_host, ho->n);
    for (uint32_t i = 0; i < ho->n; i++) {
        const cfg_node *it = ho->vals[i];
        subi(ep, kp, i);
        if (it->kind != CFG_MAP)
            return fail(L, it, ep, "expected a mapping like {name: h0, gpus: 8}, got %s",
                        cfg_kind_name(it->kind));
        TRY(check_keys(L, it, ep, K_CHOST, NULL));
        TRY(get_str(L, it, ep, "name", &f->custom_hosts[i].name, NULL));
        if (!f->custom_hosts[i].name)
            return fail(L, it, ep, "missing required key \"name\"");
        f->custom_hosts[i].gpus = f->gpus_per_server;
        TRY(get_u32(L, it, ep, "gpus", 1, 1024, &f->custom_hosts[i].gpus, NULL));
    }
    name_map m;
    names_init(&m, f->n_custom_switches + f->n_custom_hosts);
    int rc = parse_custom_links(L, cm, path, sw, ho, &m);
    names_free(&m);
    return rc;
}

/* fabric.infiniband (read whatever the link layer, so a sweep can switch it). */
static int parse_ib(ld *L, const cfg_node *m, const char *p, cfg_ib *ib)
{
    const cfg_node *im, *cm;
    char ip[PATHLEN], cp[PATHLEN];
    TRY(get_map(L, m, p, "infiniband", K_IB, &im, ip));
    if (!im)
        return ERR_OK;
    TRY(get_size_auto(L, im, ip, "vl_buffer", &ib->vl_buffer_bytes));
    TRY(get_unit_pos(L, im, ip, "deadlock_detect", TIME, &ib->deadlock_ps, NULL));
    TRY(get_map(L, im, ip, "cc", K_IBCC, &cm, cp));
    if (!cm)
        return ERR_OK;
    TRY(get_size_auto(L, cm, cp, "threshold", &ib->cc_threshold_bytes));
    TRY(get_u32(L, cm, cp, "marking_rate", 0, 65535, &ib->marking_rate, NULL));
    TRY(get_u32(L, cm, cp, "ccti_increase", 1, 255, &ib->ccti_increase, NULL));
    TRY(get_u32(L, cm, cp, "ccti_limit", 0, ib->n_cct - 1, &ib->ccti_limit, NULL));
    TRY(get_u32(L, cm, cp, "ccti_min", 0, ib->n_cct - 1, &ib->ccti_min, NULL));
    TRY(get_unit_pos(L, cm, cp, "ccti_timer", TIME, &ib->ccti_timer_ps, NULL));
    if (ib->ccti_min > ib->ccti_limit) {
        char kp[PATHLEN];
        sub(kp, cp, "ccti_min");
        return fail(L, cfg_map_get(cm, "ccti_min", NULL) ? cfg_map_get(cm, "ccti_min", NULL) : cm,
                    kp, "expected at most ccti_limit (%u), got %u", ib->ccti_limit, ib->ccti_min);
    }
    return ERR_OK;
}

/* fabric.storage / fabric.frontend (docs/scenario.md "fabric.storage, fabric.frontend"). */
static int parse_xnet(ld *L, const cfg_node *m, const char *p, const char *key, cfg_xnet *x)
{
    const cfg_fabric *f = &L->sc->fabric;
    bool storage = !strcmp(key, "storage");
    const cfg_node *xm, *sn;
    char xp[PATHLEN];
    TRY(get_map(L, m, p, key, storage ? K_STORAGE : K_FRONTEND, &xm, xp));
    if (!xm)
        return ERR_OK;
    x->on = true;
    /* NVIDIA DGX SuperPOD (DGX H100) reference architecture: each DGX H100 reaches the storage
     * fabric over a ConnectX-7 port at 200 Gb/s, and the storage appliances (DDN AI400X2,
     * VAST, Weka nodes) attach with 200 Gb/s ports: 200G both sides. The frontend (in-band
     * management, user access, data ingest) is a 100 GbE NIC per server, as in the issue's
     * reference design and Meta's RoCE paper (Gangidi et al., SIGCOMM'24 §2: a separate
     * frontend network for data ingestion, checkpointing and logging). */
    x->nic_bps = storage ? 200000000000ULL : 100000000000ULL;
    x->server_link_bps = 200000000000ULL;
    x->fabric_link_bps = f->fabric_link_bps;
    x->leaf_radix = f->leaf_radix;
    x->spine_radix = f->spine_radix;
    x->oversub_down = x->oversub_up = 1;
    if (storage) {
        int nic = 0;
        TRY(get_u32(L, xm, xp, "servers", 1, 1u << 16, &x->servers, &sn));
        if (!sn)
            return fail(L, xm, xp,
                        "missing required key \"servers\" (how many storage servers, e.g. "
                        "servers: 8)");
        TRY(get_unit_pos(L, xm, xp, "server_link", RATE, &x->server_link_bps, NULL));
        TRY(get_enum(L, xm, xp, "nic", STORAGE_NICS, &nic, NULL));
        x->converged = nic == 1;
    }
    const cfg_node *ns;
    TRY(get_unit_pos(L, xm, xp, "nic_speed", RATE, &x->nic_bps, &ns));
    if (ns && x->converged) {
        char kp[PATHLEN];
        sub(kp, xp, "nic_speed");
        return fail(L, ns, kp,
                    "a converged storage network uses the backend NICs (fabric.host_link); "
                    "remove nic_speed or use nic: dedicated");
    }
    TRY(get_unit_pos(L, xm, xp, "fabric_link", RATE, &x->fabric_link_bps, NULL));
    TRY(get_u32(L, xm, xp, "leaf_radix", 2, 65536, &x->leaf_radix, NULL));
    TRY(get_u32(L, xm, xp, "spine_radix", 2, 65536, &x->spine_radix, NULL));
    const cfg_node *v;
    char kp[PATHLEN], why[400];
    TRY(get_scalar(L, xm, xp, "oversubscription", "a ratio like \"3:1\"", &v, kp));
    if (v && !units_ratio(v->str, &x->oversub_down, &x->oversub_up, why, sizeof why))
        return fail(L, v, kp, "%s", why);
    return ERR_OK;
}

static int parse_fabric(ld *L, const cfg_node *root)
{
    cfg_fabric *f = &L->sc->fabric;
    const cfg_node *m, *n_gpn = NULL, *n_lat = NULL, *n_cable = NULL, *n_preset = NULL;
    char p[PATHLEN];
    TRY(get_map(L, root, "", "fabric", K_FABRIC, &m, p));
    if (!m)
        return ERR_OK;
    int x = (int)f->preset;
    TRY(get_enum(L, m, p, "preset", PRESETS, &x, &n_preset));
    f->preset = (enum fabric_preset)x;
    int ll = (int)f->link_layer;
    TRY(get_enum(L, m, p, "link_layer", LINK_LAYERS, &ll, NULL));
    f->link_layer = (enum link_layer)ll;
    TRY(parse_ib(L, m, p, &f->ib));
    TRY(get_u32(L, m, p, "servers", 1, 1u << 20, &f->servers, NULL));
    TRY(get_u32(L, m, p, "gpus_per_server", 1, 1024, &f->gpus_per_server, NULL));
    TRY(get_u32(L, m, p, "gpus_per_nic", 1, 1024, &f->gpus_per_nic, &n_gpn));
    if (f->gpus_per_server % f->gpus_per_nic != 0) {
        const cfg_node *at = n_gpn;
        char kp[PATHLEN];
        sub(kp, p, at ? "gpus_per_nic" : "gpus_per_server");
        if (!at)
            at = cfg_map_get(m, "gpus_per_server", NULL);
        if (n_gpn)
            return fail(L, at, kp, "expected a divisor of gpus_per_server (%u), got %u",
                        f->gpus_per_server, f->gpus_per_nic);
        return fail(L, at, kp, "expected a multiple of gpus_per_nic (%u), got %u", f->gpus_per_nic,
                    f->gpus_per_server);
    }
    TRY(get_u32(L, m, p, "nic_ports", 1, 2, &f->nic_ports, NULL));
    TRY(get_u32(L, m, p, "rails_per_leaf", 1, 1024, &f->rails_per_leaf, NULL));
    TRY(get_unit_pos(L, m, p, "host_link", RATE, &f->host_link_bps, NULL));
    TRY(get_unit_pos(L, m, p, "fabric_link", RATE, &f->fabric_link_bps, NULL));
    {
        const cfg_node *v;
        char kp[PATHLEN], why[400];
        TRY(get_scalar(L, m, p, "oversubscription", "a ratio like \"3:1\"", &v, kp));
        if (v && !units_ratio(v->str, &f->oversub_down, &f->oversub_up, why, sizeof why))
            return fail(L, v, kp, "%s", why);
    }
    TRY(get_u32(L, m, p, "leaf_radix", 2, 65536, &f->leaf_radix, NULL));
    TRY(get_u32(L, m, p, "spine_radix", 2, 65536, &f->spine_radix, NULL));
    TRY(get_u32(L, m, p, "spines", 0, 65536, &f->spines, NULL));
    {
        const cfg_node *pn;
        TRY(get_u32(L, m, p, "planes", 1, 2, &f->planes, &pn));
        if (pn && f->planes > 1 && f->planes != f->nic_ports) {
            char kp[PATHLEN];
            sub(kp, p, "planes");
            return fail(L, pn, kp,
                        "%u planes put port p of every NIC on plane p, so they need nic_ports: "
                        "%u, got nic_ports %u; set nic_ports: %u or planes: 1",
                        f->planes, f->planes, f->nic_ports, f->planes);
        }
    }
    /* Switch port MTU: the largest frame (Ethernet header through FCS) a port accepts, from the
     * untagged Ethernet maximum (1518, IEEE 802.3) to the largest jumbo frames ASICs take. */
    TRY(get_u32(L, m, p, "mtu", 1518, 16384, &f->mtu, NULL));
    TRY(get_u32(L, m, p, "pods", 1, 65536, &f->pods, NULL));
    {
        const cfg_node *kn;
        TRY(get_u32(L, m, p, "k", 2, 256, &f->k, &kn));
        if (kn && f->k % 2) {
            char kp[PATHLEN];
            sub(kp, p, "k");
            return fail(L, kn, kp, "expected an even number (2..256), got %u", f->k);
        }
        /* A fat tree's size is k³/4 host ports, whatever `servers` says: servers follow from k
         * and the server shape (docs/scenario.md). */
        if (f->preset == PRESET_FAT_TREE) {
            uint64_t ports = (uint64_t)f->k * f->k * f->k / 4;
            uint64_t per = (uint64_t)(f->gpus_per_server / f->gpus_per_nic) * f->nic_ports;
            if (ports % per != 0) {
                char kp[PATHLEN];
                sub(kp, p, kn ? "k" : "preset");
                return fail(L, kn ? kn : n_preset, kp,
                            "a k=%u fat tree has k^3/4 = %llu host ports, not a whole number of "
                            "servers of %llu NIC ports (gpus_per_server / gpus_per_nic x "
                            "nic_ports); use a k whose k^3/4 is a multiple of %llu, or smaller "
                            "servers",
                            f->k, (unsigned long long)ports, (unsigned long long)per,
                            (unsigned long long)per);
            }
            f->servers = (uint32_t)(ports / per);
        }
    }
    TRY(get_unit(L, m, p, "link_latency", TIME, &f->link_latency_ps, &n_lat));
    TRY(get_unit(L, m, p, "cable_length", LENGTH, &f->cable_length_mm, &n_cable));
    if (n_lat && n_cable) {
        char kp[PATHLEN];
        sub(kp, p, "cable_length");
        return fail(L, n_cable, kp,
                    "give either link_latency or cable_length, not both (cable_length sets the "
                    "latency at 5 ns/m)");
    }
    if (n_cable) {
        /* 5 ns per metre = 5 ps per millimetre. */
        if (f->cable_length_mm > UINT64_MAX / 5) {
            char kp[PATHLEN];
            sub(kp, p, "cable_length");
            return fail(L, n_cable, kp, "expected a length like \"30m\", got \"%s\" (too long)",
                        n_cable->str);
        }
        f->link_latency_ps = f->cable_length_mm * 5;
    }
    TRY(get_unit(L, m, p, "switch_latency", TIME, &f->switch_latency_ps, NULL));
    TRY(get_bool(L, m, p, "cut_through", &f->cut_through));
    {
        int vt = VTEP_LEAF;
        TRY(get_enum(L, m, p, "vtep", VTEPS, &vt, NULL));
        L->sc->vtep = (enum vtep_place)vt;
    }
    {
        const cfg_node *su;
        char sp[PATHLEN];
        TRY(get_map(L, m, p, "scale_up", K_SCALE_UP, &su, sp));
        if (su) {
            TRY(get_unit_pos(L, su, sp, "bandwidth", RATE, &f->scale_up_bps, NULL));
            TRY(get_num(L, su, sp, "efficiency", 0, true, 1, false, "a number in (0, 1]",
                        &f->scale_up_efficiency));
            TRY(get_unit(L, su, sp, "latency", TIME, &f->scale_up_latency_ps, NULL));
        }
        f->scale_up_achieved_bps =
            (uint64_t)((double)f->scale_up_bps * f->scale_up_efficiency + 0.5);
    }
    {
        const cfg_node *cm;
        char cp[PATHLEN];
        TRY(get_map(L, m, p, "custom", K_CUSTOM, &cm, cp));
        /* `custom` is ignored by the other presets, like `k`, so a sweep can switch presets. */
        if (cm && f->preset == PRESET_CUSTOM)
            TRY(parse_custom(L, cm, cp));
        if (!cm && f->preset == PRESET_CUSTOM) {
            char kp[PATHLEN];
            sub(kp, p, "preset");
            return fail(L, n_preset, kp,
                        "preset custom needs a fabric.custom section with switches, hosts and "
                        "links");
        }
    }
    TRY(parse_xnet(L, m, p, "storage", &f->storage));
    TRY(parse_xnet(L, m, p, "frontend", &f->frontend));
    return ERR_OK;
}

/* A list of classes 0..7 as a bitmask; *node is the list (NULL when the key is absent, *out
 * then unchanged). */
static int get_prio_mask(ld *L, const cfg_node *m, const char *p, const char *key, uint8_t *out,
                         const cfg_node **node, char *kp)
{
    const cfg_node *pr;
    TRY(get_seq(L, m, p, key, "a list of priorities like [3]", &pr, kp));
    *node = pr;
    if (!pr)
        return ERR_OK;
    uint8_t mask = 0;
    for (uint32_t i = 0; i < pr->n; i++) {
        char ip[PATHLEN];
        uint64_t x = 0;
        subi(ip, kp, i);
        if (pr->vals[i]->kind != CFG_SCALAR)
            return fail(L, pr->vals[i], ip, "expected an integer, got %s",
                        cfg_kind_name(pr->vals[i]->kind));
        TRY(int_node(L, pr->vals[i], ip, 0, 7, &x));
        mask |= (uint8_t)(1u << x);
    }
    *out = mask;
    return ERR_OK;
}

static int parse_switch(ld *L, const cfg_node *root)
{
    cfg_switch *s = &L->sc->sw;
    const cfg_node *m, *ecn, *pfc, *wd, *n_kmin, *n_kmax;
    char p[PATHLEN], ep[PATHLEN], pp[PATHLEN], wp[PATHLEN];
    /* SHARP aggregation nodes ship in every NVIDIA Quantum InfiniBand switch (SHARPv1 in
     * Switch-IB 2, v2 in Quantum HDR, v3 in Quantum-2 NDR: NVIDIA SHARP documentation); an
     * Ethernet switch has none unless it is one that does (Spectrum-X: set it) */
    s->sharp = L->sc->fabric.link_layer == LINK_INFINIBAND;
    TRY(get_map(L, root, "", "switch", K_SWITCH, &m, p));
    if (!m)
        return ERR_OK;
    TRY(get_unit_pos(L, m, p, "buffer", SIZE, &s->buffer_bytes, NULL));
    TRY(get_num(L, m, p, "alpha", 0, true, INFINITY, false, "a number > 0", &s->alpha));
    TRY(get_map(L, m, p, "ecn", K_ECN, &ecn, ep));
    if (ecn && L->sc->fabric.link_layer == LINK_INFINIBAND)
        return fail(L, ecn, ep,
                    "ECN marking is Ethernet's (RoCEv2/DCQCN); with fabric.link_layer infiniband "
                    "switches mark FECN as set in fabric.infiniband.cc: remove switch.ecn");
    if (ecn) {
        TRY(get_bool(L, ecn, ep, "enabled", &s->ecn_enabled));
        TRY(get_unit(L, ecn, ep, "kmin", SIZE, &s->ecn_kmin_bytes, &n_kmin));
        TRY(get_unit_pos(L, ecn, ep, "kmax", SIZE, &s->ecn_kmax_bytes, &n_kmax));
        TRY(get_num(L, ecn, ep, "pmax", 0, false, 1, false, "0..1", &s->ecn_pmax));
        int mk = (int)s->ecn_mark_at;
        TRY(get_enum(L, ecn, ep, "mark_at", ECN_MARK_POINTS, &mk, NULL));
        s->ecn_mark_at = (enum ecn_mark_at)mk;
        if (s->ecn_kmin_bytes > s->ecn_kmax_bytes) {
            char kp[PATHLEN];
            sub(kp, ep, n_kmin ? "kmin" : "kmax");
            return fail(L, n_kmin ? n_kmin : n_kmax, kp,
                        n_kmin ? "expected at most kmax (%llu bytes), got %llu bytes"
                               : "expected at least kmin (%llu bytes), got %llu bytes",
                        (unsigned long long)(n_kmin ? s->ecn_kmax_bytes : s->ecn_kmin_bytes),
                        (unsigned long long)(n_kmin ? s->ecn_kmin_bytes : s->ecn_kmax_bytes));
        }
    }
    TRY(get_map(L, m, p, "pfc", K_PFC, &pfc, pp));
    if (pfc && L->sc->fabric.link_layer == LINK_INFINIBAND)
        return fail(L, pfc, pp,
                    "PFC is Ethernet's; an InfiniBand link is lossless by credit-based flow "
                    "control (fabric.infiniband.vl_buffer, deadlock_detect): remove switch.pfc");
    if (pfc) {
        const cfg_node *pr;
        char kp[PATHLEN];
        uint8_t mask = 0;
        TRY(get_bool(L, pfc, pp, "enabled", &s->pfc_enabled));
        TRY(get_prio_mask(L, pfc, pp, "priorities", &mask, &pr, kp));
        if (pr) {
            if (!mask && s->pfc_enabled)
                return fail(L, pr, kp,
                            "expected at least one lossless priority (or set enabled: false)");
            s->pfc_priorities = mask;
        }
        TRY(get_size_auto(L, pfc, pp, "xoff", &s->pfc_xoff_bytes));
        TRY(get_size_auto(L, pfc, pp, "headroom", &s->pfc_headroom_bytes));
        TRY(get_unit(L, pfc, pp, "xon", SIZE, &s->pfc_xon_bytes, NULL));
        TRY(get_unit(L, pfc, pp, "xon_offset", SIZE, &s->pfc_xon_offset_bytes, NULL));
        TRY(get_unit_pos(L, pfc, pp, "deadlock_detect", TIME, &s->pfc_deadlock_ps, NULL));
        TRY(get_map(L, pfc, pp, "watchdog", K_WD, &wd, wp));
        if (wd) {
            int a = (int)s->wd_action;
            TRY(get_unit_pos(L, wd, wp, "detect", TIME, &s->wd_detect_ps, NULL));
            TRY(get_unit_pos(L, wd, wp, "restore", TIME, &s->wd_restore_ps, NULL));
            TRY(get_enum(L, wd, wp, "action", WD_ACTIONS, &a, NULL));
            s->wd_action = (enum wd_action)a;
        }
    }
    TRY(get_bool(L, m, p, "trimming", &s->trimming));
    TRY(get_bool(L, m, p, "sharp", &s->sharp));
    int sch = (int)s->scheduler;
    TRY(get_enum(L, m, p, "scheduler", SCHEDULERS, &sch, NULL));
    s->scheduler = (enum sched_kind)sch;
    const cfg_node *w;
    char wpath[PATHLEN], ip[PATHLEN];
    TRY(get_seq(L, m, p, "weights", "a list of 8 DWRR weights like [1, 1, 1, 4, 1, 1, 1, 1]", &w,
                wpath));
    if (w) {
        if (w->n != 8)
            return fail(L, w, wpath, "expected 8 weights (one per priority 0..7), got %u", w->n);
        for (uint32_t i = 0; i < 8; i++) {
            uint64_t v;
            subi(ip, wpath, i);
            TRY(int_node(L, w->vals[i], ip, 1, 255, &v));
            s->weights[i] = (uint8_t)v;
        }
    }
    return ERR_OK;
}

/* DCQCN defaults per nic.profile. ConnectX-6, ConnectX-7 and BlueField-3 share one firmware
 * default set: NVIDIA documents one default column for "ConnectX-4 and later" (DOCA "DCQCN CC
 * Parameters"), and mlxconfig on a ConnectX reports the same values (transport/dcqcn.h [N1][N2]).
 * `paper` is Zhu et al. SIGCOMM'15 §3.2/§5 (g = 1/256, 55 us timers, 10 MB byte counter, F = 5,
 * R_AI 40 Mbps, CNP every 50 us, a cut at each CNP, RT <- RC at each cut, hyper i·R_HAI). */
void cfg_dcqcn_profile(cfg_dcqcn *d, enum nic_profile profile)
{
    if (profile == NIC_PAPER) {
        *d = (cfg_dcqcn){.rate_reduce_monitor_period_ps = 0,
                         .rpg_time_reset_ps = 55 * SIM_US,
                         .rpg_byte_reset_bytes = 10000000ULL,
                         .rpg_threshold = 5,
                         .rpg_ai_rate_bps = 40000000ULL,
                         .rpg_hai_rate_bps = 200000000ULL,
                         .rpg_gd = 11,
                         .rpg_min_dec_fac = 100,
                         .rpg_min_rate_bps = 100000000ULL,
                         .rpg_max_rate_bps = 0,
                         .rate_to_set_on_first_cnp_bps = 0,
                         .dce_tcp_g = 1020,
                         .dce_tcp_rtt_ps = 55 * SIM_US,
                         .initial_alpha_value = 1024,
                         .clamp_tgt_rate = true,
                         .clamp_tgt_rate_after_time_inc = true,
                         .hai_scaled = true,
                         .min_time_between_cnps_ps = 50 * SIM_US,
                         .cnp_per_port = false};
        return;
    }
    *d = (cfg_dcqcn){.rate_reduce_monitor_period_ps = 4 * SIM_US,
                     .rpg_time_reset_ps = 300 * SIM_US,
                     .rpg_byte_reset_bytes = 32767,
                     .rpg_threshold = 1,
                     .rpg_ai_rate_bps = 5000000ULL,
                     .rpg_hai_rate_bps = 50000000ULL,
                     .rpg_gd = 11,
                     .rpg_min_dec_fac = 50,
                     .rpg_min_rate_bps = 1000000ULL,
                     .rpg_max_rate_bps = 0,
                     .rate_to_set_on_first_cnp_bps = 0,
                     .dce_tcp_g = 1019,
                     .dce_tcp_rtt_ps = 1 * SIM_US,
                     .initial_alpha_value = 1023,
                     .clamp_tgt_rate = false,
                     .clamp_tgt_rate_after_time_inc = true,
                     .hai_scaled = false,
                     .min_time_between_cnps_ps = 4 * SIM_US,
                     .cnp_per_port = false};
}

/* nic.timely: TIMELY's constants (transport/timely.h); defaults in scenario_defaults. */
static int parse_timely(ld *L, const cfg_node *m, const char *p, cfg_timely *tm)
{
    const cfg_node *tq, *n_lo = NULL, *n_hi = NULL;
    char tp[PATHLEN];
    TRY(get_map(L, m, p, "timely", K_TIMELY, &tq, tp));
    if (!tq)
        return ERR_OK;
    TRY(get_unit_pos(L, tq, tp, "t_low", TIME, &tm->t_low_ps, &n_lo));
    TRY(get_unit_pos(L, tq, tp, "t_high", TIME, &tm->t_high_ps, &n_hi));
    if (tm->t_low_ps >= tm->t_high_ps) {
        char kp[PATHLEN];
        sub(kp, tp, n_lo ? "t_low" : "t_high");
        return fail(L, n_lo ? n_lo : n_hi, kp,
                    "expected t_low below t_high (%.3f us), got %.3f us",
                    (double)tm->t_high_ps / 1e6, (double)tm->t_low_ps / 1e6);
    }
    TRY(get_unit_pos(L, tq, tp, "min_rtt", TIME, &tm->min_rtt_ps, NULL));
    TRY(get_num(L, tq, tp, "beta", 0, true, 1, false, "a number in (0, 1]", &tm->beta));
    TRY(get_num(L, tq, tp, "ewma", 0, true, 1, false, "a number in (0, 1]", &tm->ewma));
    TRY(get_unit_pos(L, tq, tp, "add_rate", RATE, &tm->add_rate_bps, NULL));
    TRY(get_unit_pos(L, tq, tp, "min_rate", RATE, &tm->min_rate_bps, NULL));
    TRY(get_u32(L, tq, tp, "hai_n", 1, 1000, &tm->hai_n, NULL));
    TRY(get_unit_pos(L, tq, tp, "segment", SIZE, &tm->segment_bytes, NULL));
    return ERR_OK;
}

/* nic.uet and nic.nscc: UET's spraying and NSCC's constants (transport/uet.h, nscc.h). */
static int parse_uet(ld *L, const cfg_node *m, const char *p, cfg_nic *n)
{
    const cfg_node *u, *c, *n_tgt = NULL;
    char up[PATHLEN], cp[PATHLEN];
    TRY(get_map(L, m, p, "uet", K_UET, &u, up));
    if (u) {
        TRY(get_u32(L, u, up, "paths", 1, 65536, &n->uet.paths, NULL));
        TRY(get_u32(L, u, up, "reps_buffer", 0, REPS_MAX_CFG, &n->uet.reps_buffer, NULL));
        TRY(get_bool(L, u, up, "rccc", &n->uet.rccc));
        TRY(get_size_auto(L, u, up, "unsolicited", &n->uet.unsolicited));
        const cfg_node *rc = cfg_map_get(u, "rccc", NULL);
        if (n->uet.rccc && n->transport != TRANSPORT_UET) {
            char kp[PATHLEN];
            sub(kp, up, "rccc");
            return fail(L, rc, kp,
                        "receiver credits (RCCC) are UET's: set nic.transport: uet, or drop "
                        "nic.uet.rccc");
        }
    }
    TRY(get_map(L, m, p, "nscc", K_NSCC, &c, cp));
    if (c) {
        TRY(get_unit_pos(L, c, cp, "base_rtt", TIME, &n->nscc.base_rtt_ps, NULL));
        TRY(get_unit_pos(L, c, cp, "target_delay", TIME, &n->nscc.target_delay_ps, &n_tgt));
    }
    return ERR_OK;
}

/* nic.hpcc: HPCC's constants (transport/hpcc.h); defaults in scenario_defaults. */
static int parse_hpcc(ld *L, const cfg_node *m, const char *p, cfg_hpcc *h)
{
    const cfg_node *hq;
    char hp[PATHLEN];
    TRY(get_map(L, m, p, "hpcc", K_HPCC, &hq, hp));
    if (!hq)
        return ERR_OK;
    TRY(get_num(L, hq, hp, "eta", 0, true, 1, false, "a number in (0, 1]", &h->eta));
    TRY(get_u32(L, hq, hp, "max_stage", 0, 1000, &h->max_stage, NULL));
    TRY(get_unit_pos(L, hq, hp, "ai_rate", RATE, &h->ai_rate_bps, NULL));
    return ERR_OK;
}

static int parse_dcqcn(ld *L, const cfg_node *m, const char *p, cfg_dcqcn *d)
{
    const cfg_node *dq, *raw = cfg_map_get(m, "dcqcn", NULL);
    char dp[PATHLEN];
    if (present(raw) && raw->kind == CFG_MAP) {
        for (uint32_t i = 0; i < raw->n; i++) {
            for (size_t k = 0; k < sizeof K_DCQCN_OLD / sizeof K_DCQCN_OLD[0]; k++) {
                if (strcmp(raw->keys[i]->str, K_DCQCN_OLD[k][0]))
                    continue;
                char kp[PATHLEN];
                sub(dp, p, "dcqcn");
                sub(kp, dp, raw->keys[i]->str);
                return fail(L, raw->keys[i], kp,
                            "\"%s\" is no longer a key: DCQCN takes the NIC's parameter names, "
                            "use %s (see docs/scenario.md, nic.dcqcn)",
                            raw->keys[i]->str, K_DCQCN_OLD[k][1]);
            }
        }
    }
    TRY(get_map(L, m, p, "dcqcn", K_DCQCN, &dq, dp));
    if (!dq)
        return ERR_OK;
    TRY(get_unit(L, dq, dp, "rate_reduce_monitor_period", TIME, &d->rate_reduce_monitor_period_ps,
                 NULL));
    TRY(get_unit_pos(L, dq, dp, "rpg_time_reset", TIME, &d->rpg_time_reset_ps, NULL));
    /* 0 disables the byte counter (NVIDIA's register description: "0 == disabled") */
    TRY(get_unit(L, dq, dp, "rpg_byte_reset", SIZE, &d->rpg_byte_reset_bytes, NULL));
    TRY(get_u32(L, dq, dp, "rpg_threshold", 1, 1000, &d->rpg_threshold, NULL));
    TRY(get_unit_pos(L, dq, dp, "rpg_ai_rate", RATE, &d->rpg_ai_rate_bps, NULL));
    TRY(get_unit_pos(L, dq, dp, "rpg_hai_rate", RATE, &d->rpg_hai_rate_bps, NULL));
    TRY(get_u32(L, dq, dp, "rpg_gd", 0, 20, &d->rpg_gd, NULL));
    TRY(get_u32(L, dq, dp, "rpg_min_dec_fac", 0, 100, &d->rpg_min_dec_fac, NULL));
    TRY(get_unit_pos(L, dq, dp, "rpg_min_rate", RATE, &d->rpg_min_rate_bps, NULL));
    TRY(get_unit(L, dq, dp, "rpg_max_rate", RATE, &d->rpg_max_rate_bps, NULL));
    TRY(get_unit(L, dq, dp, "rate_to_set_on_first_cnp", RATE, &d->rate_to_set_on_first_cnp_bps,
                 NULL));
    TRY(get_u32(L, dq, dp, "dce_tcp_g", 0, 1023, &d->dce_tcp_g, NULL));
    TRY(get_unit_pos(L, dq, dp, "dce_tcp_rtt", TIME, &d->dce_tcp_rtt_ps, NULL));
    TRY(get_u32(L, dq, dp, "initial_alpha_value", 1, 1024, &d->initial_alpha_value, NULL));
    TRY(get_bool(L, dq, dp, "clamp_tgt_rate", &d->clamp_tgt_rate));
    TRY(get_bool(L, dq, dp, "clamp_tgt_rate_after_time_inc", &d->clamp_tgt_rate_after_time_inc));
    TRY(get_unit(L, dq, dp, "min_time_between_cnps", TIME, &d->min_time_between_cnps_ps, NULL));
    int scope = d->cnp_per_port ? 0 : 1;
    TRY(get_enum(L, dq, dp, "cnp_scope", CNP_SCOPES, &scope, NULL));
    d->cnp_per_port = scope == 0;
    return ERR_OK;
}

static const char *const TRUSTS[] = {"dscp", "pcp", NULL};

/* nic.dscp / cnp_dscp / trust / netdev_mtu: the host QoS settings check and plan use. */
static int get_nic_qos(ld *L, const cfg_node *m, const char *p, cfg_nic *n)
{
    uint32_t d = n->dscp, cd = n->cnp_dscp;
    int t = n->trust;
    TRY(get_u32(L, m, p, "dscp", 0, 63, &d, NULL));
    TRY(get_u32(L, m, p, "cnp_dscp", 0, 63, &cd, NULL));
    TRY(get_enum(L, m, p, "trust", TRUSTS, &t, NULL));
    TRY(get_u32(L, m, p, "netdev_mtu", 576, 9216, &n->netdev_mtu, NULL));
    n->dscp = (uint8_t)d;
    n->cnp_dscp = (uint8_t)cd;
    n->trust = (uint8_t)t;
    return ERR_OK;
}

static int parse_nic(ld *L, const cfg_node *root)
{
    cfg_nic *n = &L->sc->nic;
    const cfg_node *m, *n_mtu, *n_cc = NULL, *n_tr = NULL;
    char p[PATHLEN];
    TRY(get_map(L, root, "", "nic", K_NIC, &m, p));
    if (L->sc->fabric.link_layer == LINK_INFINIBAND)
        n->cc = CC_IB; /* IB congestion control unless nic.cc says none */
    if (!m)
        return ERR_OK;
    TRY(get_u32(L, m, p, "mtu", 256, 4096, &n->mtu, &n_mtu));
    if (n_mtu && (n->mtu & (n->mtu - 1))) {
        char kp[PATHLEN];
        sub(kp, p, "mtu");
        return fail(L, n_mtu, kp, "expected a RoCE path MTU (256, 512, 1024, 2048 or 4096), got %u",
                    n->mtu);
    }
    int t = (int)n->transport, c = -1, r = (int)n->retransmit;
    TRY(get_enum(L, m, p, "transport", TRANSPORTS, &t, &n_tr));
    n->transport = (enum transport_kind)t;
    TRY(get_enum(L, m, p, "cc", CCS, &c, &n_cc));
    bool ib = L->sc->fabric.link_layer == LINK_INFINIBAND;
    if (ib && n->transport == TRANSPORT_UET) {
        char kp[PATHLEN];
        sub(kp, p, "transport");
        return fail(L, n_tr, kp,
                    "expected rocev2 with fabric.link_layer infiniband (its RC transport runs "
                    "over IB links), got \"uet\" (Ultra Ethernet needs an Ethernet fabric)");
    }
    if (c < 0) {
        n->cc = ib ? CC_IB : n->transport == TRANSPORT_UET ? CC_NSCC : CC_DCQCN;
    } else {
        n->cc = (enum cc_kind)c;
        char kp[PATHLEN];
        sub(kp, p, "cc");
        if (ib && n->cc != CC_IB && n->cc != CC_NONE)
            return fail(L, n_cc, kp,
                        "expected ib | none with fabric.link_layer infiniband, got \"%s\" (%s "
                        "reacts to ECN or delay on Ethernet; IB congestion control is FECN/BECN)",
                        CCS[c], CCS[c]);
        if (!ib && n->cc == CC_IB)
            return fail(L, n_cc, kp,
                        "cc ib (IB congestion control, FECN/BECN) needs fabric.link_layer "
                        "infiniband; on Ethernet use dcqcn, timely or none");
        if (n->transport == TRANSPORT_ROCEV2 && n->cc == CC_NSCC)
            return fail(L, n_cc, kp,
                        "expected dcqcn | timely | hpcc | none for transport rocev2, got "
                        "\"nscc\" (nscc is UET's)");
        if (n->transport == TRANSPORT_UET && (n->cc == CC_TIMELY || n->cc == CC_HPCC))
            return fail(L, n_cc, kp,
                        "expected nscc | none for transport uet, got \"%s\" (%s is RoCEv2's "
                        "here)",
                        CCS[n->cc], CCS[n->cc]);
        if (n->transport == TRANSPORT_UET && n->cc == CC_DCQCN)
            return fail(L, n_cc, kp,
                        "expected nscc | none for transport uet, got \"dcqcn\" (dcqcn is "
                        "RoCEv2's)");
    }
    int prof = (int)n->profile;
    TRY(get_enum(L, m, p, "profile", NIC_PROFILES, &prof, NULL));
    n->profile = (enum nic_profile)prof;
    cfg_dcqcn_profile(&n->dcqcn, n->profile);
    TRY(parse_dcqcn(L, m, p, &n->dcqcn));
    TRY(parse_timely(L, m, p, &n->timely));
    TRY(parse_uet(L, m, p, n));
    TRY(parse_hpcc(L, m, p, &n->hpcc));
    TRY(get_u32(L, m, p, "qps_per_connection", 1, 128, &n->qps_per_connection, NULL));
    TRY(get_enum(L, m, p, "retransmit", RETX, &r, NULL));
    n->retransmit = (enum retx_kind)r;
    TRY(get_unit_pos(L, m, p, "rto", TIME, &n->rto_ps, NULL));
    uint32_t prio = n->priority;
    TRY(get_u32(L, m, p, "priority", 0, 7, &prio, NULL));
    n->priority = (uint8_t)prio;
    uint32_t cnp_prio = n->cnp_priority;
    TRY(get_u32(L, m, p, "cnp_priority", 0, 7, &cnp_prio, NULL));
    n->cnp_priority = (uint8_t)cnp_prio;
    TRY(get_nic_qos(L, m, p, n));
    /* HPCC: an ACK per packet, as its authors' ns-3 artifact runs it (L2_ACK_INTERVAL 1): the
     * window is often below ack_every packets, and a window that waits for a coalesced ACK
     * would stall until the RTO */
    if (n->cc == CC_HPCC)
        n->ack_every = 1;
    TRY(get_u32(L, m, p, "ack_every", 1, 65536, &n->ack_every, NULL));
    TRY(get_u32(L, m, p, "reorder_tolerance", 0, 512, &n->reorder_tolerance, NULL));
    TRY(get_u32(L, m, p, "retry_count", 0, 7, &n->retry_count, NULL));
    TRY(get_unit_pos(L, m, p, "failover_delay", TIME, &n->failover_delay_ps, NULL));
    int oo = (int)n->ooo_placement;
    TRY(get_enum(L, m, p, "ooo_placement", OOO_MODES, &oo, NULL));
    n->ooo_placement = (enum ooo_mode)oo;
    TRY(get_unit_pos(L, m, p, "reorder_window", TIME, &n->reorder_window_ps, NULL));
    return ERR_OK;
}

static int parse_lb(ld *L, const cfg_node *root)
{
    cfg_lb *b = &L->sc->lb;
    const cfg_node *m, *ad;
    char p[PATHLEN], ap[PATHLEN];
    TRY(get_map(L, root, "", "loadbalance", K_LB, &m, p));
    if (!m)
        return ERR_OK;
    int mode = (int)b->mode, h = (int)b->hash, met = (int)b->adaptive_metric;
    TRY(get_enum(L, m, p, "mode", LB_MODES, &mode, NULL));
    b->mode = (enum lb_mode)mode;
    TRY(get_enum(L, m, p, "hash", HASHES, &h, NULL));
    b->hash = (enum hash_kind)h;
    TRY(get_enum_list(L, m, p, "fields", HASH_FIELDS, "a list like [src_ip, dst_ip]", &b->fields));
    TRY(get_unit_pos(L, m, p, "flowlet_gap", TIME, &b->flowlet_gap_ps, NULL));
    TRY(get_map(L, m, p, "adaptive", K_ADAPTIVE, &ad, ap));
    if (ad) {
        TRY(get_enum(L, ad, ap, "metric", METRICS, &met, NULL));
        b->adaptive_metric = (enum adaptive_metric)met;
    }
    return ERR_OK;
}

typedef struct model_preset {
    const char *name;
    double params;
    uint32_t layers, hidden, seq_len, vocab;
} model_preset;

/* Published architectures (Llama 3 herd paper, Table 3; GPT-3 paper, Table 2.1). */
static const model_preset MODELS[] = {
    {"llama3-8b", 8.03e9, 32, 4096, 8192, 128256},
    {"llama3-70b", 70.6e9, 80, 8192, 8192, 128256},
    {"llama3-405b", 405.9e9, 126, 16384, 8192, 128256},
    {"gpt3-175b", 175e9, 96, 12288, 2048, 50257},
};

static int get_job_priority(ld *L, const cfg_node *jm, const char *jp, cfg_job *j);
static int get_moe(ld *L, const cfg_node *jm, const char *jp, cfg_job *j);

/* `model:` of a training or inference job: a preset, refined by explicit fields, or an
 * explicit model. */
static int get_model(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    const cfg_node *mm;
    char mp[PATHLEN];
    TRY(get_map(L, jm, jp, "model", K_MODEL, &mm, mp));
    if (!mm)
        return fail(L, jm, jp,
                    "missing required key \"model\" (e.g. {preset: llama3-70b} or {params: "
                    "70e9, layers: 80, hidden: 8192})");
    int pi = -1;
    const cfg_node *n_preset;
    TRY(get_enum(L, mm, mp, "preset", MODEL_PRESETS, &pi, &n_preset));
    if (pi >= 0) {
        const model_preset *mdl = &MODELS[pi];
        j->model.preset = mdl->name;
        j->model.params = mdl->params;
        j->model.layers = mdl->layers;
        j->model.hidden = mdl->hidden;
        j->model.seq_len = mdl->seq_len;
        j->model.vocab = mdl->vocab;
    } else {
        static const char *const need[] = {"params", "layers", "hidden"};
        for (int i = 0; i < 3; i++)
            if (!present(cfg_map_get(mm, need[i], NULL)))
                return fail(L, mm, mp,
                            "missing required key \"%s\" (give preset: llama3-8b | llama3-70b | "
                            "llama3-405b | gpt3-175b, or params, layers and hidden)",
                            need[i]);
        j->model.seq_len = 4096;
        j->model.vocab = 32000;
    }
    /* Explicit fields refine a preset (e.g. a shorter seq_len). */
    TRY(get_num(L, mm, mp, "params", 0, true, 1e16, false, "a number of parameters > 0",
                &j->model.params));
    TRY(get_u32(L, mm, mp, "layers", 1, 100000, &j->model.layers, NULL));
    TRY(get_u32(L, mm, mp, "hidden", 1, 1u << 20, &j->model.hidden, NULL));
    TRY(get_u32(L, mm, mp, "seq_len", 1, 1u << 24, &j->model.seq_len, NULL));
    TRY(get_u32(L, mm, mp, "vocab", 1, 1u << 24, &j->model.vocab, NULL));
    TRY(get_u32(L, mm, mp, "ffn", 1, 1u << 24, &j->model_ffn, NULL));
    TRY(get_u32(L, mm, mp, "heads", 1, 1u << 20, &j->model_heads, NULL));
    TRY(get_u32(L, mm, mp, "kv_heads", 1, 1u << 20, &j->model_kv_heads, NULL));
    if (j->model_kv_heads && j->model_heads && j->model_kv_heads > j->model_heads) {
        char kp[PATHLEN];
        sub(kp, mp, "kv_heads");
        return fail(L, cfg_map_get(mm, "kv_heads", NULL), kp,
                    "expected at most heads (%u) KV heads, got %u", j->model_heads,
                    j->model_kv_heads);
    }
    return ERR_OK;
}

static int parse_training(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    const cfg_node *par, *gpu, *n_gb = NULL;
    char pp[PATHLEN], gp[PATHLEN];
    TRY(get_model(L, jm, jp, j));
    TRY(get_moe(L, jm, jp, j));
    TRY(get_map(L, jm, jp, "parallelism", K_PAR, &par, pp));
    if (par) {
        TRY(get_u32(L, par, pp, "tp", 1, 1u << 20, &j->tp, NULL));
        TRY(get_u32(L, par, pp, "pp", 1, 1u << 20, &j->pp, NULL));
        TRY(get_u32(L, par, pp, "dp", 1, 1u << 20, &j->dp, NULL));
        j->vp = 1;
        TRY(get_u32(L, par, pp, "vp", 1, 64, &j->vp, NULL));
        int ord = PAR_ORDER_TP_DP_PP, plc = PAR_PLACE_CONTIGUOUS;
        TRY(get_enum(L, par, pp, "order", PAR_ORDERS, &ord, NULL));
        TRY(get_enum(L, par, pp, "placement", PAR_PLACEMENTS, &plc, NULL));
        j->order = (enum par_order)ord;
        j->placement = (enum par_placement)plc;
    }
    j->tp_per_layer = true;
    TRY(get_bool(L, jm, jp, "tp_per_layer", &j->tp_per_layer));
    int opt = 0;
    TRY(get_enum(L, jm, jp, "optimizer", OPTIMIZERS, &opt, NULL));
    j->opt_sharded = opt == 1;
    TRY(get_bool(L, jm, jp, "recompute", &j->recompute));
    /* 0 = auto: Megatron-Core's default, which grows with dp (workload/training.h
     * train_bucket_bytes); a size is taken as given (25MB is PyTorch DDP's bucket_cap_mb) */
    j->bucket_bytes = 0;
    TRY(get_size_auto(L, jm, jp, "bucket", &j->bucket_bytes));
    {
        /* checkpoint/restart (Megatron-LM --save-interval is in iterations) */
        const cfg_node *ck;
        char cp[PATHLEN];
        TRY(get_map(L, jm, jp, "checkpoint", K_CKPT, &ck, cp));
        if (ck) {
            const cfg_node *rt = NULL, *sz = NULL;
            j->ckpt = true;
            TRY(get_u32(L, ck, cp, "interval", 1, UINT32_MAX, &j->ckpt_interval, NULL));
            TRY(get_unit(L, ck, cp, "write_time", TIME, &j->ckpt_write_ps, NULL));
            TRY(get_unit(L, ck, cp, "restart_time", TIME, &j->ckpt_restart_ps, &rt));
            const cfg_node *wt = cfg_map_get(ck, "write_time", NULL);
            TRY(get_unit_pos(L, ck, cp, "size", SIZE, &j->ckpt_bytes, &sz));
            if (sz && !L->sc->fabric.storage.on) {
                char kp[PATHLEN];
                sub(kp, cp, "size");
                return fail(L, sz, kp,
                            "a checkpoint of a given size is written to storage servers, and "
                            "the fabric has none: add fabric.storage (e.g. storage: {servers: "
                            "4}) or give write_time, the time every GPU stalls per checkpoint");
            }
            if (sz && present(wt)) {
                char kp[PATHLEN];
                sub(kp, cp, "write_time");
                return fail(L, wt, kp,
                            "give either size (the checkpoint is written over the storage "
                            "network and takes what the network makes of it) or write_time (a "
                            "fixed stall), not both");
            }
            int wr = 0;
            const cfg_node *wn, *an;
            TRY(get_enum(L, ck, cp, "writers", CKPT_WRITERS, &wr, &wn));
            j->ckpt_shard_writers = wr == 1;
            TRY(get_bool(L, ck, cp, "async", &j->ckpt_async));
            an = cfg_map_get(ck, "async", NULL);
            if (!sz && (wn || present(an))) {
                char kp[PATHLEN];
                sub(kp, cp, wn ? "writers" : "async");
                return fail(L, wn ? wn : an, kp,
                            "only with size (a checkpoint written over the storage network)");
            }
            if (!rt)
                return fail(L, ck, cp,
                            "missing required key \"restart_time\" (from a failure to the "
                            "restarted job's first step, e.g. restart_time: 600s)");
        }
    }
    {
        /* the model's weights read from storage before the first step (each rank its shard) */
        const cfg_node *ml;
        TRY(get_unit_pos(L, jm, jp, "model_load", SIZE, &j->load_bytes, &ml));
        if (ml && !L->sc->fabric.storage.on) {
            char kp[PATHLEN];
            sub(kp, jp, "model_load");
            return fail(L, ml, kp,
                        "the model is read from storage servers, and the fabric has none: add "
                        "fabric.storage (e.g. storage: {servers: 4})");
        }
    }
    {
        /* the training data read from storage every iteration (each reader its samples) */
        const cfg_node *ds;
        char dp[PATHLEN];
        TRY(get_map(L, jm, jp, "dataset", K_DATASET, &ds, dp));
        if (ds) {
            const cfg_node *sb;
            TRY(get_unit_pos(L, ds, dp, "sample_bytes", SIZE, &j->ds_sample_bytes, &sb));
            if (!sb)
                return fail(L, ds, dp,
                            "missing required key \"sample_bytes\" (the bytes of one training "
                            "sample as stored, e.g. sample_bytes: 16KiB for 4096 tokens of "
                            "uint32 ids)");
            if (!L->sc->fabric.storage.on)
                return fail(L, ds, dp,
                            "the dataset is read from storage servers, and the fabric has none: "
                            "add fabric.storage (e.g. storage: {servers: 4})");
            j->ds_prefetch = true;
            TRY(get_bool(L, ds, dp, "prefetch", &j->ds_prefetch));
        }
    }
    TRY(get_index_set(L, jm, jp, "ranks", &j->ranks));
    TRY(get_job_priority(L, jm, jp, j));
    TRY(get_u32(L, jm, jp, "micro_batch", 1, 1u << 20, &j->micro_batch, NULL));
    uint64_t per_step = (uint64_t)j->micro_batch * j->dp;
    uint64_t gb = per_step * j->pp;
    if (gb > UINT32_MAX)
        gb = UINT32_MAX;
    j->global_batch = (uint32_t)gb;
    TRY(get_u32(L, jm, jp, "global_batch", 1, UINT32_MAX, &j->global_batch, &n_gb));
    if (n_gb && j->global_batch % per_step != 0) {
        char kp[PATHLEN];
        sub(kp, jp, "global_batch");
        return fail(L, n_gb, kp, "expected a multiple of micro_batch x dp (%llu), got %u",
                    (unsigned long long)per_step, j->global_batch);
    }
    TRY(get_map(L, jm, jp, "gpu", K_GPU, &gpu, gp));
    if (gpu) {
        TRY(get_num(L, gpu, gp, "peak_tflops", 0, true, 1e9, false, "a number > 0",
                    &j->gpu_peak_tflops));
        TRY(get_num(L, gpu, gp, "mfu", 0, true, 1, false, "a fraction in (0, 1]", &j->gpu_mfu));
    }
    return ERR_OK;
}

/* `moe: {experts, top_k, ep, skew}` of a training job (docs/scenario.md "Mixture of experts"). */
static int get_moe(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    const cfg_node *mm, *en;
    char mp[PATHLEN];
    TRY(get_map(L, jm, jp, "moe", K_MOE, &mm, mp));
    if (!mm)
        return ERR_OK;
    TRY(get_u32(L, mm, mp, "experts", 1, 1u << 16, &j->moe_experts, &en));
    if (!en)
        return fail(L, mm, mp, "missing required key \"experts\" (experts per MoE layer)");
    j->moe_top_k = 2; /* Mixtral 8x7B routes each token to 2 experts (Jiang et al. 2024) */
    j->moe_ep = 1;
    TRY(get_u32(L, mm, mp, "top_k", 1, 1u << 16, &j->moe_top_k, NULL));
    TRY(get_u32(L, mm, mp, "ep", 1, 1u << 16, &j->moe_ep, NULL));
    TRY(get_num(L, mm, mp, "skew", 0, false, 10, false, "a number in [0, 10]", &j->moe_skew));
    return ERR_OK;
}

/* A job's traffic class: `priority: 0..7`; absent = the NIC's data class (nic.priority). */
static int get_job_priority(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    const cfg_node *v = NULL;
    uint32_t prio = 0;
    TRY(get_u32(L, jm, jp, "priority", 0, 7, &prio, &v));
    j->priority = v ? (int)prio : -1;
    return ERR_OK;
}

/* `name` resolved against the scenario's folder (absolute paths as they are), in the arena. */
static char *scenario_path(ld *L, const char *name)
{
    const char *file = L->sc->file ? L->sc->file : "";
    const char *slash = strrchr(file, '/');
    size_t dl = name[0] == '/' || !slash ? 0 : (size_t)(slash - file) + 1;
    char *path = arena_alloc(L->a, dl + strlen(name) + 1);
    memcpy(path, file, dl);
    strcpy(path + dl, name);
    return path;
}

/* Remember a file the scenario reads (scenario.ref_files). */
static void add_ref_file(ld *L, const char *path)
{
    scenario *sc = L->sc;
    for (uint32_t i = 0; i < sc->n_ref_files; i++)
        if (!strcmp(sc->ref_files[i], path))
            return;
    const char **a = ARENA_NEW_ARRAY(L->a, const char *, sc->n_ref_files + 1);
    if (sc->n_ref_files)
        memcpy(a, sc->ref_files, sizeof(const char *) * sc->n_ref_files);
    a[sc->n_ref_files++] = path;
    sc->ref_files = a;
}

/* `size_cdf`: a built-in distribution's name or a CSV file (relative to the scenario's folder). */

/* Reads a CSV input the scenario names (`name`, relative to the scenario's folder) whole, up to
 * MAX_FILE_BYTES, into *buf (xmalloc'd: the caller frees it); *path is the resolved path. The
 * file is recorded for the sweep's definition hash. An unreadable or too large file is an error
 * at node v. */
static int read_input_csv(ld *L, const cfg_node *v, const char *kp, const char *name,
                          const char *what, char **path, char **buf, size_t *n)
{
    *path = scenario_path(L, name);
    FILE *f = fopen(*path, "rb");
    *buf = NULL;
    *n = 0;
    if (f) {
        *buf = xmalloc(MAX_FILE_BYTES + 1, what);
        *n = fread(*buf, 1, MAX_FILE_BYTES + 1, f);
        fclose(f);
    }
    if (!f || *n > MAX_FILE_BYTES) {
        xfree(*buf);
        char s[200];
        return fail(L, v, kp, "cannot read the CSV file \"%s\"%s", show(s, sizeof s, name),
                    f                ? " (larger than 16 MiB)"
                    : name[0] == '/' ? ""
                                     : " (a relative path is read from the scenario's folder)");
    }
    add_ref_file(L, *path);
    return ERR_OK;
}

static int get_size_cdf(ld *L, const cfg_node *jm, const char *jp, cfg_cdf *c)
{
    const cfg_node *v;
    const char *name = NULL;
    char kp[PATHLEN];
    TRY(get_str(L, jm, jp, "size_cdf", &name, &v));
    if (!v)
        return ERR_OK;
    sub(kp, jp, "size_cdf");
    if (cdf_builtin(name, c))
        return ERR_OK;
    if (!strchr(name, '.') && !strchr(name, '/')) {
        char s[200];
        return fail(L, v, kp,
                    "expected websearch | datamining or the path of a CSV file, got \"%s\"",
                    show(s, sizeof s, name));
    }
    char *path, *buf;
    size_t n;
    TRY(read_input_csv(L, v, kp, name, "size CDF file", &path, &buf, &n));
    int rc = cdf_parse_csv(buf, n, path, L->a, c, L->e);
    xfree(buf);
    c->name = name;
    return rc;
}

/* `pattern: list`: the job's `flows`, each {id, src, dst, size, start | after}. `after` names
 * flows by `id` (anywhere in the list); a flow waits for all of them. Refused: an unknown or
 * duplicate id, a flow after itself, `start` with `after`, a dependency cycle (Kahn's algorithm;
 * the error names a flow on the cycle). flow_order gets a dependency order. */
static int parse_flow_list(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    const cfg_node *fl;
    char kp[PATHLEN], ep[PATHLEN], np[PATHLEN];
    TRY(get_seq(L, jm, jp, "flows", "a list of flows like [{src: 0, dst: 1, size: 1MB}]", &fl,
                kp));
    if (j->pattern != PAT_LIST) {
        if (fl)
            return fail(L, fl, kp, "only for pattern list (the %s pattern makes its own flows)",
                        PATTERNS[j->pattern]);
        return ERR_OK;
    }
    if (!fl || fl->n == 0)
        return fail(L, fl ? fl : jm, fl ? kp : jp,
                    "pattern list needs \"flows\": a list like [{src: 0, dst: 1, size: 1MB}]");
    static const char *const other[] = {"hosts", "size_cdf", "load", NULL};
    for (const char *const *o = other; *o; o++) {
        cfg_node *k = NULL;
        if (cfg_map_get(jm, *o, &k)) {
            sub(np, jp, *o);
            return fail(L, k, np,
                        "not used by pattern list (each entry of \"flows\" gives its hosts "
                        "and size)");
        }
    }
    uint32_t n = fl->n;
    j->n_flows = n;
    j->flows = ARENA_NEW_ARRAY(L->a, cfg_flow, n);
    uint64_t *ids = ARENA_NEW_ARRAY(L->a, uint64_t, n);
    const cfg_node **idn = ARENA_NEW_ARRAY(L->a, const cfg_node *, n);
    for (uint32_t i = 0; i < n; i++) {
        const cfg_node *it = fl->vals[i];
        cfg_flow *f = &j->flows[i];
        subi(ep, kp, i);
        if (it->kind != CFG_MAP)
            return fail(L, it, ep, "expected a mapping like {src: 0, dst: 1, size: 1MB}, got %s",
                        cfg_kind_name(it->kind));
        TRY(check_keys(L, it, ep, K_FLOW, "for a flow"));
        f->line = it->line;
        f->col = it->col;
        const cfg_node *sn, *dn, *stn, *an;
        f->src = f->dst = UINT32_MAX;
        TRY(get_u32(L, it, ep, "src", 0, 16777215, &f->src, &sn));
        TRY(get_u32(L, it, ep, "dst", 0, 16777215, &f->dst, &dn));
        if (!sn || !dn)
            return fail(L, it, ep, "missing required key \"%s\"", sn ? "dst" : "src");
        if (f->src == f->dst) {
            sub(np, ep, "dst");
            return fail(L, dn, np, "a flow from host %u to itself", f->src);
        }
        f->bytes = j->size_bytes;
        TRY(get_unit_pos(L, it, ep, "size", SIZE, &f->bytes, NULL));
        TRY(get_unit(L, it, ep, "start", TIME, &f->start_ps, &stn));
        ids[i] = 0;
        TRY(get_u64(L, it, ep, "id", 0, UINT32_MAX, &ids[i], &idn[i]));
        for (uint32_t k = 0; idn[i] && k < i; k++)
            if (idn[k] && ids[k] == ids[i]) {
                sub(np, ep, "id");
                return fail(L, idn[i], np, "id %llu is already used by flows[%u]",
                            (unsigned long long)ids[i], k);
            }
        sub(np, ep, "after");
        an = cfg_map_get(it, "after", NULL);
        if (present(an)) {
            if (an->kind != CFG_SEQ || an->n == 0)
                return fail(L, an, np, "expected a list of flow ids like [1, 2], got %s",
                            an->kind == CFG_SEQ ? "an empty list" : cfg_kind_name(an->kind));
            if (stn)
                return fail(L, stn, np,
                            "a flow starts at \"start\" or \"after\" other flows, not both");
        }
    }
    /* resolve `after` ids to indices, now that every id is known */
    uint32_t *indeg = ARENA_NEW_ARRAY(L->a, uint32_t, n), edges = 0;
    for (uint32_t i = 0; i < n; i++) {
        const cfg_node *an = cfg_map_get(fl->vals[i], "after", NULL);
        if (!present(an))
            continue;
        cfg_flow *f = &j->flows[i];
        subi(ep, kp, i);
        sub(np, ep, "after");
        f->n_after = an->n;
        f->after = ARENA_NEW_ARRAY(L->a, uint32_t, an->n);
        for (uint32_t a = 0; a < an->n; a++) {
            char ap[PATHLEN];
            uint64_t id = 0;
            subi(ap, np, a);
            TRY(int_node(L, an->vals[a], ap, 0, UINT32_MAX, &id));
            uint32_t k = 0;
            while (k < n && !(idn[k] && ids[k] == id))
                k++;
            if (k == n)
                return fail(L, an->vals[a], ap, "no flow of this job has id %llu",
                            (unsigned long long)id);
            if (k == i)
                return fail(L, an->vals[a], ap, "a flow cannot wait for itself (id %llu)",
                            (unsigned long long)id);
            for (uint32_t b = 0; b < a; b++)
                if (f->after[b] == k)
                    return fail(L, an->vals[a], ap, "id %llu is listed twice",
                                (unsigned long long)id);
            f->after[a] = k;
            indeg[i]++;
            edges++;
        }
    }
    /* Kahn: the flows in an order where each comes after the flows it waits for */
    uint32_t *first = ARENA_NEW_ARRAY(L->a, uint32_t, n + 1), *next = NULL;
    uint32_t *dep = ARENA_NEW_ARRAY(L->a, uint32_t, edges ? edges : 1);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t a = 0; a < j->flows[i].n_after; a++)
            first[j->flows[i].after[a] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        first[i + 1] += first[i];
    next = ARENA_NEW_ARRAY(L->a, uint32_t, n);
    memcpy(next, first, sizeof(uint32_t) * n);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t a = 0; a < j->flows[i].n_after; a++)
            dep[next[j->flows[i].after[a]]++] = i;
    j->flow_order = ARENA_NEW_ARRAY(L->a, uint32_t, n);
    uint32_t head = 0, tail = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!indeg[i])
            j->flow_order[tail++] = i;
    while (head < tail) {
        uint32_t x = j->flow_order[head++];
        for (uint32_t e = first[x]; e < first[x + 1]; e++)
            if (--indeg[dep[e]] == 0)
                j->flow_order[tail++] = dep[e];
    }
    if (tail < n) {
        uint32_t i = 0;
        while (!indeg[i])
            i++;
        subi(ep, kp, i);
        sub(np, ep, "after");
        return fail(L, cfg_map_get(fl->vals[i], "after", NULL), np,
                    "flows[%u] can never start: what it waits for leads into a dependency cycle "
                    "(flows that wait for each other)",
                    i);
    }
    return ERR_OK;
}

/* A traffic job's keys (docs/scenario.md "Traffic jobs"). */
static int parse_traffic(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    int pat = PAT_PERMUTATION;
    const cfg_node *dn, *cn;
    TRY(get_enum(L, jm, jp, "pattern", PATTERNS, &pat, NULL));
    j->pattern = (enum traffic_pattern)pat;
    j->size_bytes = 1000000;
    TRY(get_unit_pos(L, jm, jp, "size", SIZE, &j->size_bytes, NULL));
    TRY(get_index_set(L, jm, jp, "hosts", &j->hosts));
    TRY(get_job_priority(L, jm, jp, j));
    TRY(get_num(L, jm, jp, "load", 0, true, 1, false, "a fraction of the host link rate in (0, 1]",
                &j->load));
    TRY(get_size_cdf(L, jm, jp, &j->size_cdf));
    TRY(get_unit_pos(L, jm, jp, "duration", TIME, &j->duration_ps, &dn));
    TRY(get_u64(L, jm, jp, "count", 1, 1ull << 32, &j->count, &cn));
    {
        bool sto = j->pattern == PAT_STORAGE_WRITE || j->pattern == PAT_STORAGE_READ;
        int w = sto ? NETWORK_STORAGE : NETWORK_BACKEND;
        const cfg_node *wn, *pn = cfg_map_get(jm, "pattern", NULL);
        char kp[PATHLEN];
        TRY(get_enum(L, jm, jp, "network", NETWORKS, &w, &wn));
        j->network = (enum network_id)w;
        if (sto && !L->sc->fabric.storage.on) {
            sub(kp, jp, "pattern");
            return fail(L, pn, kp,
                        "pattern %s moves data to or from storage servers, and the fabric has "
                        "none: add fabric.storage (e.g. storage: {servers: 4})",
                        PATTERNS[j->pattern]);
        }
        if (sto && j->network != NETWORK_STORAGE) {
            sub(kp, jp, "network");
            return fail(L, wn, kp,
                        "pattern %s runs on the storage network (its clients are the GPU "
                        "servers' storage NICs, or their backend NICs with storage nic: "
                        "converged); remove network or set it to storage",
                        PATTERNS[j->pattern]);
        }
        if (!sto && j->network == NETWORK_STORAGE) {
            sub(kp, jp, "network");
            return fail(L, wn, kp,
                        "on the storage network GPU servers talk to storage servers: use "
                        "pattern storage-write or storage-read");
        }
        if (j->network == NETWORK_FRONTEND && !L->sc->fabric.frontend.on) {
            sub(kp, jp, "network");
            return fail(L, wn, kp,
                        "the fabric has no frontend network: add fabric.frontend (e.g. "
                        "frontend: {nic_speed: 100Gbps})");
        }
    }
    if (j->pattern == PAT_UNIFORM && !dn && !cn)
        return fail(L, jm, jp,
                    "pattern uniform needs \"duration\" (arrivals during that time) or "
                    "\"count\" (that many flows), so that the job ends");
    if (j->pattern != PAT_UNIFORM && (dn || cn)) {
        char kp[PATHLEN];
        sub(kp, jp, dn ? "duration" : "count");
        return fail(L, dn ? dn : cn, kp,
                    "only for pattern uniform (the %s pattern has a fixed set of flows)",
                    PATTERNS[j->pattern]);
    }
    return parse_flow_list(L, jm, jp, j);
}

static bool file_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* Most ranks a trace prefix may expand to (a guard against a runaway file series). */
#define MAX_TRACE_RANKS (1u << 20)

/* A Chakra job's keys (docs/scenario.md "Chakra jobs"): `trace` is a prefix (PREFIX.N.et for
 * N = 0, 1, ... while the files exist), one .et file, or a list of files in rank order; paths
 * are relative to the scenario's folder. The traces themselves are read when the run is built
 * (workload/chakra_plan.h): a scenario check does not decode megabytes of protobuf. */
static int parse_chakra(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    char kp[PATHLEN], s[200];
    sub(kp, jp, "trace");
    const cfg_node *v = cfg_map_get(jm, "trace", NULL);
    if (!present(v))
        return fail(L, jm, jp,
                    "missing required key \"trace\" (the Chakra trace: a prefix such as "
                    "traces/step for traces/step.0.et, traces/step.1.et, ..., or a list of .et "
                    "files in rank order)");
    TRY(get_index_set(L, jm, jp, "ranks", &j->ranks));
    TRY(get_job_priority(L, jm, jp, j));
    if (v->kind == CFG_SEQ) {
        if (v->n == 0)
            return fail(L, v, kp, "expected at least one .et file, got an empty list");
        j->n_trace_files = v->n;
        j->trace_files = ARENA_NEW_ARRAY(L->a, const char *, v->n);
        for (uint32_t i = 0; i < v->n; i++) {
            const cfg_node *it = v->vals[i];
            char ep[PATHLEN];
            subi(ep, kp, i);
            if (it->kind != CFG_SCALAR)
                return fail(L, it, ep, "expected the path of a .et file, got %s",
                            cfg_kind_name(it->kind));
            const char *path = scenario_path(L, it->str);
            if (!file_exists(path))
                return fail(L, it, ep,
                            "cannot read the trace file \"%s\"%s", show(s, sizeof s, it->str),
                            it->str[0] == '/' ? ""
                                              : " (a relative path is read from the scenario's "
                                                "folder)");
            j->trace_files[i] = path;
            add_ref_file(L, path);
        }
        return ERR_OK;
    }
    if (v->kind != CFG_SCALAR)
        return fail(L, v, kp, "expected a trace prefix or a list of .et files, got %s",
                    cfg_kind_name(v->kind));
    size_t len = strlen(v->str);
    if (len > 3 && !strcmp(v->str + len - 3, ".et")) {
        const char *path = scenario_path(L, v->str);
        if (!file_exists(path))
            return fail(L, v, kp, "cannot read the trace file \"%s\"%s",
                        show(s, sizeof s, v->str),
                        v->str[0] == '/' ? ""
                                         : " (a relative path is read from the scenario's folder)");
        j->n_trace_files = 1;
        j->trace_files = ARENA_NEW_ARRAY(L->a, const char *, 1);
        j->trace_files[0] = path;
        add_ref_file(L, path);
        return ERR_OK;
    }
    const char *prefix = scenario_path(L, v->str);
    size_t pl = strlen(prefix);
    uint32_t n = 0, cap = 8;
    const char **files = xmalloc(sizeof(const char *) * cap, "trace files");
    for (;;) {
        char *path = arena_alloc(L->a, pl + 16);
        snprintf(path, pl + 16, "%s.%u.et", prefix, n);
        if (!file_exists(path) || n == MAX_TRACE_RANKS)
            break;
        if (n == cap)
            files = xrealloc(files, sizeof(const char *) * (cap *= 2), "trace files");
        files[n++] = path;
    }
    if (!n) {
        xfree(files);
        return fail(L, v, kp,
                    "no trace file \"%s.0.et\"%s (a prefix names the files PREFIX.0.et, "
                    "PREFIX.1.et, ..., one per rank)",
                    show(s, sizeof s, v->str),
                    v->str[0] == '/' ? "" : " in the scenario's folder");
    }
    j->n_trace_files = n;
    j->trace_files = ARENA_NEW_ARRAY(L->a, const char *, n);
    memcpy(j->trace_files, files, sizeof(const char *) * n);
    xfree(files);
    for (uint32_t i = 0; i < n; i++)
        add_ref_file(L, j->trace_files[i]);
    return ERR_OK;
}

/* An inference job's keys (docs/scenario.md "Inference jobs"). */
static int parse_inference(ld *L, const cfg_node *jm, const char *jp, cfg_job *j)
{
    const cfg_node *par, *gpu, *rq, *bt, *dg, *rn, *cn, *tn, *pn, *on;
    char pp[PATHLEN], gp[PATHLEN], rp[PATHLEN], bp[PATHLEN], dp[PATHLEN], kp[PATHLEN];
    TRY(get_model(L, jm, jp, j));
    TRY(get_moe(L, jm, jp, j));
    TRY(get_map(L, jm, jp, "parallelism", K_PAR_INFER, &par, pp));
    if (par) {
        TRY(get_u32(L, par, pp, "tp", 1, 1u << 20, &j->tp, NULL));
        TRY(get_u32(L, par, pp, "pp", 1, 1u << 20, &j->pp, NULL));
    }
    TRY(get_index_set(L, jm, jp, "ranks", &j->ranks));
    TRY(get_job_priority(L, jm, jp, j));
    /* H100 SXM: 3.35 TB/s HBM3 (NVIDIA H100 Tensor Core GPU datasheet; B200: 8 TB/s). A
     * decode step streams weights and KV cache: coalesced weight loads measure 78-84% of it
     * (Nsight Compute on Llama-70B TP=8 serving, mikamirai.com/blog/gpu-memory-bandwidth). */
    j->hbm_bps = 3350000000000ull * 8;
    j->hbm_eff = 0.8;
    TRY(get_map(L, jm, jp, "gpu", K_GPU_INFER, &gpu, gp));
    if (gpu) {
        TRY(get_num(L, gpu, gp, "peak_tflops", 0, true, 1e9, false, "a number > 0",
                    &j->gpu_peak_tflops));
        TRY(get_num(L, gpu, gp, "mfu", 0, true, 1, false, "a fraction in (0, 1]", &j->gpu_mfu));
        TRY(get_unit_pos(L, gpu, gp, "hbm_bandwidth", RATE, &j->hbm_bps, NULL));
        TRY(get_num(L, gpu, gp, "hbm_efficiency", 0, true, 1, false, "a fraction in (0, 1]",
                    &j->hbm_eff));
    }
    TRY(get_map(L, jm, jp, "requests", K_REQUESTS, &rq, rp));
    if (!rq)
        return fail(L, jm, jp,
                    "missing required key \"requests\" (e.g. {rate: 20, count: 1000} for Poisson "
                    "arrivals, or {trace: requests.csv})");
    const char *trace = NULL;
    TRY(get_num(L, rq, rp, "rate", 0.001, false, 1e9, false,
                "requests per second in [0.001, 1e9]", &j->req_rate));
    rn = present(cfg_map_get(rq, "rate", NULL)) ? cfg_map_get(rq, "rate", NULL) : NULL;
    TRY(get_u32(L, rq, rp, "count", 1, REQTRACE_MAX_ROWS, &j->req_count, &cn));
    j->req_prompt = 1024;
    j->req_output = 128;
    TRY(get_u32(L, rq, rp, "prompt", 1, 10000000, &j->req_prompt, &pn));
    TRY(get_u32(L, rq, rp, "output", 1, 10000000, &j->req_output, &on));
    TRY(get_str(L, rq, rp, "trace", &trace, &tn));
    if (tn) {
        const cfg_node *other = rn ? rn : cn ? cn : pn ? pn : on;
        if (other) {
            const char *k = rn ? "rate" : cn ? "count" : pn ? "prompt" : "output";
            sub(kp, rp, k);
            return fail(L, other, kp,
                        "not with a trace (the trace gives every request's arrival, prompt and "
                        "output tokens)");
        }
        sub(kp, rp, "trace");
        char *path, *buf;
        size_t n;
        TRY(read_input_csv(L, tn, kp, trace, "request trace file", &path, &buf, &n));
        int rc = reqtrace_parse(buf, n, path, L->a, &j->req_count, &j->trace_arrival_ps,
                                &j->trace_prompt, &j->trace_output, L->e);
        xfree(buf);
        if (rc)
            return rc;
        j->req_trace = trace;
    } else if (!rn || !cn) {
        return fail(L, rq, rp,
                    "missing required key \"%s\" (Poisson arrivals need a rate in requests/s and "
                    "a count, so that the job ends; or give a trace)",
                    rn ? "count" : "rate");
    } else if (j->req_count / j->req_rate > 1e6) {
        sub(kp, rp, "count");
        return fail(L, cn, kp,
                    "%u requests at %g/s arrive over %.3g s; at most 10^6 s (11.6 days) of "
                    "arrivals",
                    j->req_count, j->req_rate, j->req_count / j->req_rate);
    }
    j->max_batch = 256; /* vLLM --max-num-seqs default (vllm/engine/arg_utils.py) */
    /* vLLM without chunked prefill: max_num_batched_tokens = max(max_model_len, 2048) */
    j->max_batch_tokens = j->model.seq_len > 2048 ? j->model.seq_len : 2048;
    TRY(get_map(L, jm, jp, "batching", K_BATCHING, &bt, bp));
    if (bt) {
        TRY(get_u32(L, bt, bp, "max_batch", 1, 1u << 20, &j->max_batch, NULL));
        TRY(get_u32(L, bt, bp, "max_tokens", 1, 1u << 30, &j->max_batch_tokens, NULL));
    }
    TRY(get_map(L, jm, jp, "disaggregated", K_DISAGG, &dg, dp));
    if (dg) {
        const cfg_node *pg, *dgn;
        TRY(get_u32(L, dg, dp, "prefill_gpus", 1, 1u << 24, &j->prefill_gpus, &pg));
        TRY(get_u32(L, dg, dp, "decode_gpus", 1, 1u << 24, &j->decode_gpus, &dgn));
        if (!pg || !dgn)
            return fail(L, dg, dp, "missing required key \"%s\" (GPUs of the %s pool)",
                        pg ? "decode_gpus" : "prefill_gpus", pg ? "decode" : "prefill");
    }
    return ERR_OK;
}

static int parse_job(ld *L, const cfg_node *jm, const char *jp, uint32_t i, cfg_job *j)
{
    const cfg_node *kn;
    int kind = -1;
    TRY(get_enum(L, jm, jp, "kind", JOB_KINDS, &kind, &kn));
    if (kind < 0)
        return fail(L, jm, jp,
                    "missing required key \"kind\" (collective | training | traffic | chakra | "
                    "inference)");
    j->kind = (enum job_kind)kind;
    j->line = jm->line;
    j->col = jm->col;
    static const char *const *allowed[] = {K_JOB_COLL, K_JOB_TRAIN, K_JOB_TRAFFIC, K_JOB_CHAKRA,
                                           K_JOB_INFER};
    static const char *const what[] = {"for a collective job", "for a training job",
                                       "for a traffic job", "for a chakra job",
                                       "for an inference job"};
    for (uint32_t q = 0; q < jm->n; q++) {
        const char *k = jm->keys[q]->str;
        bool mine = false;
        for (const char *const *a = allowed[kind]; *a && !mine; a++)
            mine = !strcmp(*a, k);
        for (int o = 0; o < 4 && !mine; o++) {
            for (const char *const *a = allowed[o]; *a; a++) {
                if (!strcmp(*a, k)) {
                    char kp[PATHLEN];
                    sub(kp, jp, k);
                    return fail(L, jm->keys[q], kp, "not a key %s (%s belongs to %s jobs)",
                                what[kind], k, JOB_KINDS[o]);
                }
            }
        }
    }
    TRY(check_keys(L, jm, jp, allowed[kind], what[kind]));

    char name[32];
    snprintf(name, sizeof name, "job%u", i);
    j->name = arena_strdup(L->a, name);
    TRY(get_str(L, jm, jp, "name", &j->name, NULL));
    TRY(get_unit(L, jm, jp, "start", TIME, &j->start_ps, NULL));
    j->iterations = 1;
    TRY(get_u32(L, jm, jp, "iterations", 1, 1000000, &j->iterations, NULL));
    j->ranks.all = j->hosts.all = true;
    j->priority = -1;
    j->tp = j->pp = j->dp = 1;
    j->micro_batch = 1;
    j->gpu_peak_tflops = 989; /* H100 SXM dense BF16 */
    j->gpu_mfu = 0.45;
    j->load = 0.5;
    j->tenant = CFG_NO_TENANT;
    {
        const char *tn = NULL;
        const cfg_node *tv;
        TRY(get_str(L, jm, jp, "tenant", &tn, &tv));
        if (tv) {
            char kp[PATHLEN], s[200];
            sub(kp, jp, "tenant");
            for (uint32_t t = 0; t < L->sc->n_tenants && j->tenant == CFG_NO_TENANT; t++)
                if (!strcmp(L->sc->tenants[t].name, tn))
                    j->tenant = t;
            if (j->tenant == CFG_NO_TENANT && !L->sc->n_tenants)
                return fail(L, tv, kp, "no tenant \"%s\": the scenario lists no tenants (add tenants: "
                            "[{name: %s, vni: 10010}])",
                            show(s, sizeof s, tn), show(s, sizeof s, tn));
            if (j->tenant == CFG_NO_TENANT) {
                char list[400];
                size_t o = 0;
                list[0] = '\0';
                for (uint32_t t = 0; t < L->sc->n_tenants && o + 64 < sizeof list; t++)
                    o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", t ? ", " : "",
                                          L->sc->tenants[t].name);
                return fail(L, tv, kp, "no tenant \"%s\" (tenants: %s)", show(s, sizeof s, tn),
                            list);
            }
        }
    }
    switch (j->kind) {
    case JOB_COLLECTIVE: {
        int op = OP_ALL_REDUCE, al = ALGO_RING;
        TRY(get_enum(L, jm, jp, "op", OPS, &op, NULL));
        const cfg_node *av = cfg_map_get(jm, "algorithm", NULL);
        if (present(av) && av->kind == CFG_SCALAR && !strcmp(av->str, "collnet"))
            al = ALGO_SHARP; /* NCCL_ALGO=CollNet: the SHARP plugin's in-network all_reduce */
        else if (present(av) && av->kind == CFG_SCALAR && !strcmp(av->str, "nvls-tree"))
            al = ALGO_NVLS_TREE;
        else
            TRY(get_enum(L, jm, jp, "algorithm", ALGOS, &al, NULL));
        if (al == ALGO_SHARP && !L->sc->sw.sharp) {
            char kp[PATHLEN];
            sub(kp, jp, "algorithm");
            return fail(
                L, av, kp,
                "algorithm %s reduces in the fabric's switches, and they have no SHARP "
                "aggregation: switch.sharp is false (the default on Ethernet; NVIDIA "
                "Quantum InfiniBand switches have it, so does Spectrum-X: set switch.sharp: "
                "true for a switch that aggregates)",
                av->str);
        }
        j->op = (enum coll_op)op;
        j->algorithm = (enum coll_algo)al;
        j->size_bytes = 64ull << 20;
        TRY(get_unit_pos(L, jm, jp, "size", SIZE, &j->size_bytes, NULL));
        TRY(get_index_set(L, jm, jp, "ranks", &j->ranks));
        j->channels = 1;
        TRY(get_u32(L, jm, jp, "channels", 1, 64, &j->channels, NULL));
        TRY(get_bool(L, jm, jp, "pxn", &j->pxn));
        const cfg_node *cn;
        TRY(get_unit(L, jm, jp, "chunk", SIZE, &j->chunk_bytes, &cn));
        /* A chunk is the unit a connection moves through NCCL's staging buffer; below one
         * packet's payload it only multiplies transfers (a 1B chunk on 1 GB is 10^9 of them)
         * without changing what the wire sees. */
        if (cn && j->chunk_bytes < L->sc->nic.mtu) {
            char kp[PATHLEN], s[200];
            sub(kp, jp, "chunk");
            return fail(L, cn, kp,
                        "expected at least one packet's payload (nic.mtu = %uB), got \"%s\"",
                        L->sc->nic.mtu, show(s, sizeof s, cn->str));
        }
        TRY(get_unit(L, jm, jp, "reduce_rate", RATE, &j->reduce_bps, NULL));
        TRY(get_job_priority(L, jm, jp, j));
        break;
    }
    case JOB_TRAINING:
        TRY(parse_training(L, jm, jp, j));
        break;
    case JOB_TRAFFIC:
        TRY(parse_traffic(L, jm, jp, j));
        break;
    case JOB_CHAKRA:
        TRY(parse_chakra(L, jm, jp, j));
        break;
    case JOB_INFERENCE:
        TRY(parse_inference(L, jm, jp, j));
        break;
    }
    return ERR_OK;
}

/* tenants: a list of {name, vni, import}. Names and VNIs are unique; import names other
 * tenants. Parsed before the workload, whose jobs name their tenant. */
static int parse_tenants(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    const cfg_node *tl;
    char tp[PATHLEN];
    TRY(get_seq(L, root, "", "tenants", "a list of tenants ({name, vni})", &tl, tp));
    if (!tl)
        return ERR_OK;
    if (tl->n == 0)
        return fail(L, tl, tp, "expected at least one tenant, got an empty list");
    sc->n_tenants = tl->n;
    sc->tenants = ARENA_NEW_ARRAY(L->a, cfg_tenant, tl->n);
    for (uint32_t i = 0; i < tl->n; i++) {
        const cfg_node *tm = tl->vals[i];
        cfg_tenant *t = &sc->tenants[i];
        char ip[PATHLEN], kp[PATHLEN], s[200];
        subi(ip, tp, i);
        if (tm->kind != CFG_MAP)
            return fail(L, tm, ip, "expected a tenant mapping ({name, vni}), got %s",
                        cfg_kind_name(tm->kind));
        TRY(check_keys(L, tm, ip, K_TENANT, "for a tenant"));
        t->line = tm->line;
        t->col = tm->col;
        const cfg_node *nv, *vv;
        TRY(get_str(L, tm, ip, "name", &t->name, &nv));
        if (!nv)
            return fail(L, tm, ip, "missing required key \"name\"");
        /* VXLAN Network Identifier: 24 bits (RFC 7348 §5). */
        TRY(get_u32(L, tm, ip, "vni", 1, 16777215, &t->vni, &vv));
        if (!vv)
            return fail(L, tm, ip, "missing required key \"vni\" (1..16777215)");
        for (uint32_t k = 0; k < i; k++) {
            if (!strcmp(sc->tenants[k].name, t->name)) {
                sub(kp, ip, "name");
                return fail(L, nv, kp, "duplicate tenant name \"%s\" (also tenants[%u], line %d)",
                            show(s, sizeof s, t->name), k, sc->tenants[k].line);
            }
            if (sc->tenants[k].vni == t->vni) {
                sub(kp, ip, "vni");
                return fail(L, vv, kp,
                            "VNI %u is already tenant \"%s\"'s (tenants[%u], line %d): each "
                            "tenant's VRF needs its own L3 VNI",
                            t->vni, sc->tenants[k].name, k, sc->tenants[k].line);
            }
        }
    }
    /* imports name tenants, so they are resolved once every name is known */
    for (uint32_t i = 0; i < tl->n; i++) {
        const cfg_node *tm = tl->vals[i];
        cfg_tenant *t = &sc->tenants[i];
        char ip[PATHLEN], kp[PATHLEN], ep[PATHLEN], s[200];
        subi(ip, tp, i);
        const cfg_node *im;
        TRY(get_seq(L, tm, ip, "import", "a list of tenant names", &im, kp));
        if (!im)
            continue;
        t->n_import = im->n;
        t->import = ARENA_NEW_ARRAY(L->a, uint32_t, im->n ? im->n : 1);
        for (uint32_t q = 0; q < im->n; q++) {
            const cfg_node *v = im->vals[q];
            subi(ep, kp, q);
            if (v->kind != CFG_SCALAR)
                return fail(L, v, ep, "expected a tenant name, got %s", cfg_kind_name(v->kind));
            uint32_t f = CFG_NO_TENANT;
            for (uint32_t k = 0; k < sc->n_tenants; k++)
                if (!strcmp(sc->tenants[k].name, v->str))
                    f = k;
            if (f == CFG_NO_TENANT)
                return fail(L, v, ep, "no tenant \"%s\"", show(s, sizeof s, v->str));
            if (f == i)
                return fail(L, v, ep, "a tenant does not import its own routes (\"%s\")",
                            show(s, sizeof s, v->str));
            t->import[q] = f;
        }
    }
    return ERR_OK;
}

/* With tenants, every job belongs to one (an EVPN fabric carries no traffic outside a VRF). */
static int check_job_tenants(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    if (!sc->n_tenants)
        return ERR_OK;
    const cfg_node *w = cfg_map_get(root, "workload", NULL);
    for (uint32_t i = 0; i < sc->n_jobs; i++) {
        if (sc->jobs[i].tenant != CFG_NO_TENANT)
            continue;
        char jp[PATHLEN];
        subi(jp, "workload", i);
        const cfg_node *jm = present(w) && w->kind == CFG_SEQ && i < w->n ? w->vals[i] : NULL;
        if (!jm) {
            const cfg_node *tl = cfg_map_get(root, "tenants", NULL);
            return fail(L, tl, "tenants",
                        "the default traffic job has no tenant: with tenants, give a workload "
                        "whose jobs each name one (tenant: %s)",
                        sc->tenants[0].name);
        }
        return fail(L, jm, jp,
                    "job \"%s\" has no tenant: when the scenario lists tenants, every job "
                    "belongs to one (add tenant: %s%s)",
                    sc->jobs[i].name, sc->tenants[0].name,
                    sc->n_tenants > 1 ? ", or another tenant's name" : "");
    }
    return ERR_OK;
}

static int parse_workload(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    const cfg_node *w;
    char wp[PATHLEN];
    TRY(get_seq(L, root, "", "workload", "a list of jobs", &w, wp));
    if (!w) {
        /* No workload: one permutation traffic job, so a fabric-only scenario still runs. */
        sc->n_jobs = 1;
        sc->jobs = ARENA_NEW_ARRAY(L->a, cfg_job, 1);
        cfg_job *j = &sc->jobs[0];
        j->name = "traffic";
        j->kind = JOB_TRAFFIC;
        j->line = j->col = 0;
        j->iterations = 1;
        j->pattern = PAT_PERMUTATION;
        j->size_bytes = 1000000;
        j->ranks.all = j->hosts.all = true;
        j->priority = -1;
        j->tenant = CFG_NO_TENANT;
        j->tp = j->pp = j->dp = 1;
        j->micro_batch = j->global_batch = 1;
        j->load = 0.5;
        return ERR_OK;
    }
    if (w->n == 0)
        return fail(L, w, wp,
                    "expected at least one job, got an empty list (omit workload for the default "
                    "traffic job)");
    sc->n_jobs = w->n;
    sc->jobs = ARENA_NEW_ARRAY(L->a, cfg_job, w->n);
    for (uint32_t i = 0; i < w->n; i++) {
        const cfg_node *jm = w->vals[i];
        char jp[PATHLEN];
        subi(jp, wp, i);
        if (jm->kind != CFG_MAP)
            return fail(L, jm, jp, "expected a job mapping (with kind: ...), got %s",
                        cfg_kind_name(jm->kind));
        TRY(parse_job(L, jm, jp, i, &sc->jobs[i]));
        for (uint32_t k = 0; k < i; k++) {
            if (strcmp(sc->jobs[k].name, sc->jobs[i].name) == 0) {
                const cfg_node *nn = cfg_map_get(jm, "name", NULL);
                char np[PATHLEN], s[200];
                sub(np, jp, "name");
                return fail(L, present(nn) ? nn : jm, present(nn) ? np : jp,
                            "duplicate job name \"%s\" (also workload[%u], line %d)",
                            show(s, sizeof s, sc->jobs[i].name), k, sc->jobs[k].line);
            }
        }
    }
    return ERR_OK;
}

static int parse_faults(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    const cfg_node *fl;
    char fp[PATHLEN];
    TRY(get_seq(L, root, "", "faults", "a list of faults", &fl, fp));
    if (!fl)
        return ERR_OK;
    sc->n_faults = fl->n;
    sc->faults = ARENA_NEW_ARRAY(L->a, cfg_fault, fl->n ? fl->n : 1);
    for (uint32_t i = 0; i < fl->n; i++) {
        const cfg_node *fm = fl->vals[i];
        cfg_fault *f = &sc->faults[i];
        char ip[PATHLEN];
        subi(ip, fp, i);
        if (fm->kind != CFG_MAP)
            return fail(L, fm, ip,
                        "expected a fault mapping like {at: 2ms, kind: link-down, "
                        "link: leaf0-spine1}, got %s",
                        cfg_kind_name(fm->kind));
        f->line = fm->line;
        f->col = fm->col;
        int kind = -1;
        TRY(get_enum(L, fm, ip, "kind", FAULT_KINDS, &kind, NULL));
        if (kind < 0)
            return fail(L, fm, ip,
                        "missing required key \"kind\" (link-down | link-up | link-degraded | "
                        "link-ber | link-flap | switch-down | switch-drain | gpu-slow | gpu-fail "
                        "| pfc-storm)");
        f->kind = (enum fault_kind)kind;
        if (f->kind == FAULT_PFC_STORM && L->sc->fabric.link_layer == LINK_INFINIBAND) {
            char kp[PATHLEN];
            sub(kp, ip, "kind");
            return fail(L, cfg_map_get(fm, "kind", NULL), kp,
                        "pfc-storm is an Ethernet fault; an InfiniBand fabric "
                        "(fabric.link_layer infiniband) has no PFC");
        }
        static const char *const *allowed[FAULT_KINDS_N] = {
            K_FAULT_LINK, K_FAULT_LINK, K_FAULT_GPU,    K_FAULT_STORM, K_FAULT_DEGRADED,
            K_FAULT_BER,  K_FAULT_FLAP, K_FAULT_SWITCH, K_FAULT_DRAIN, K_FAULT_GPU_FAIL};
        char what[64];
        snprintf(what, sizeof what, "for a %s fault", FAULT_KINDS[kind]);
        TRY(check_keys(L, fm, ip, allowed[kind], what));
        const cfg_node *at;
        f->at_ps = SIM_TIME_MAX;
        TRY(get_unit(L, fm, ip, "at", TIME, &f->at_ps, &at));
        if (!at)
            return fail(L, fm, ip, "missing required key \"at\" (e.g. at: 2ms)");
        const char *req = NULL;
        /* Detection and convergence of a failure the switches learn about from the control
         * plane: BFD at 300 ms x 3 is common practice, but AI fabrics run it at its fast end
         * (RFC 5880 allows sub-ms intervals; vendors support 3 x 300 us hardware BFD), so a 1 ms
         * detection; then a BGP update and FIB reprogramming across the fabric (a few ms in a
         * two- or three-tier Clos with RFC 7938 eBGP, as Meta's and Alibaba's reports measure
         * convergence in milliseconds). */
        f->detect_ps = 1 * SIM_MS;
        f->converge_ps = 4 * SIM_MS;
        /* Local repair: a switch sees its own port go down at the PHY (loss of signal) and
         * removes it from its ECMP groups in hardware without waiting for routing (Broadcom
         * "ECMP fast failover"/SONiC next-hop-group member removal on oper-down). */
        f->fast_reroute = true;
        f->duration_ps = SIM_TIME_MAX;
        bool has_link = false, has_switch = false, has_route = false;
        switch (f->kind) {
        case FAULT_LINK_DOWN:
        case FAULT_LINK_UP:
            has_link = has_route = true;
            break;
        case FAULT_GPU_SLOW: {
            const cfg_node *g = NULL;
            f->factor = 0;
            TRY(get_u32(L, fm, ip, "gpu", 0, UINT32_MAX, &f->gpu, &g));
            TRY(get_num(L, fm, ip, "factor", 1, false, 1e6, false, "a slowdown factor >= 1",
                        &f->factor));
            if (!g)
                req = "gpu\" (the global GPU index";
            else if (f->factor == 0)
                req = "factor\" (e.g. factor: 1.3 for 30% slower";
            break;
        }
        case FAULT_GPU_FAIL: {
            const cfg_node *g = NULL;
            TRY(get_u32(L, fm, ip, "gpu", 0, UINT32_MAX, &f->gpu, &g));
            if (!g)
                req = "gpu\" (the global GPU index";
            break;
        }
        case FAULT_PFC_STORM: {
            const cfg_node *nn = NULL;
            TRY(get_u32(L, fm, ip, "nic", 0, UINT32_MAX, &f->nic, &nn));
            TRY(get_unit_pos(L, fm, ip, "duration", TIME, &f->duration_ps, NULL));
            if (!nn)
                req = "nic\" (the NIC port index";
            break;
        }
        case FAULT_LINK_DEGRADED: {
            const cfg_node *sp = NULL;
            has_link = true;
            f->fraction = 0;
            TRY(get_num(L, fm, ip, "fraction", 0, true, 1, true,
                        "a share of the link's speed between 0 and 1 (0.75 = 3 of 4 lanes)",
                        &f->fraction));
            TRY(get_unit_pos(L, fm, ip, "speed", RATE, &f->speed_bps, &sp));
            TRY(get_unit_pos(L, fm, ip, "duration", TIME, &f->duration_ps, NULL));
            if (sp && f->fraction != 0) {
                char kp[PATHLEN];
                sub(kp, ip, "speed");
                return fail(L, sp, kp, "give fraction or speed, not both");
            }
            if (f->fraction == 0 && !sp)
                req = "fraction\" or \"speed\" (e.g. fraction: 0.75 for a 400G port on 3 of 4 "
                      "lanes, or speed: 300Gbps";
            break;
        }
        case FAULT_LINK_BER: {
            has_link = true;
            f->ber = 0;
            int at_pt = 0;
            TRY(get_num(L, fm, ip, "ber", 0, true, 0.5, false,
                        "a bit error rate above 0 and at most 0.5 (e.g. 1e-8)", &f->ber));
            TRY(get_enum(L, fm, ip, "ber_at", BER_POINTS, &at_pt, NULL));
            f->ber_pre_fec = at_pt == 1;
            TRY(get_unit_pos(L, fm, ip, "duration", TIME, &f->duration_ps, NULL));
            if (f->ber == 0)
                req = "ber\" (e.g. ber: 1e-8";
            break;
        }
        case FAULT_LINK_FLAP: {
            const cfg_node *pn = NULL, *dn = NULL, *du = NULL;
            has_link = has_route = true;
            f->period_ps = 0;
            TRY(get_unit_pos(L, fm, ip, "period", TIME, &f->period_ps, &pn));
            TRY(get_unit_pos(L, fm, ip, "down", TIME, &f->down_ps, &dn));
            TRY(get_unit_pos(L, fm, ip, "duration", TIME, &f->duration_ps, &du));
            if (!pn) {
                req = "period\" (one down-and-up cycle, e.g. period: 2ms";
            } else if (!du) {
                req = "duration\" (how long it flaps, e.g. duration: 20ms";
            } else if (!dn) {
                f->down_ps = f->period_ps / 2;
                if (!f->down_ps)
                    return fail(L, pn, ip, "faults[%u].period: too short to be halved", i);
            } else if (f->down_ps >= f->period_ps) {
                char kp[PATHLEN];
                sub(kp, ip, "down");
                return fail(L, dn, kp,
                            "expected a time shorter than period (the link must come back "
                            "up in every cycle; use link-down for a link that stays down)");
            }
            break;
        }
        case FAULT_SWITCH_DOWN:
            has_switch = has_route = true;
            TRY(get_unit_pos(L, fm, ip, "duration", TIME, &f->duration_ps, NULL));
            break;
        case FAULT_SWITCH_DRAIN: {
            const cfg_node *du = NULL;
            has_switch = has_route = true;
            /* after the routes moved away, the operator waits for the switch's queues to empty
             * before the reload: 1 ms drains a full 64 MiB buffer at 512 Gb/s and more */
            f->wait_ps = 1 * SIM_MS;
            TRY(get_unit(L, fm, ip, "wait", TIME, &f->wait_ps, NULL));
            TRY(get_unit_pos(L, fm, ip, "duration", TIME, &f->duration_ps, &du));
            if (!du)
                req = "duration\" (how long the switch is down for its upgrade, e.g. "
                      "duration: 5ms";
            break;
        }
        case FAULT_KINDS_N:
            break;
        }
        if (has_link) {
            TRY(get_str(L, fm, ip, "link", &f->link, NULL));
            if (!f->link && !req)
                req = "link\" (e.g. link: leaf0-spine1";
        }
        if (has_switch) {
            TRY(get_str(L, fm, ip, "switch", &f->sw, NULL));
            if (!f->sw && !req)
                req = "switch\" (the switch's name, e.g. switch: spine0";
        }
        if (has_route) {
            TRY(get_unit(L, fm, ip, "detect", TIME, &f->detect_ps, NULL));
            TRY(get_unit(L, fm, ip, "converge", TIME, &f->converge_ps, NULL));
            if (f->kind != FAULT_SWITCH_DRAIN)
                TRY(get_bool(L, fm, ip, "fast_reroute", &f->fast_reroute));
        }
        if (req)
            return fail(L, fm, ip, "missing required key \"%s)", req);
    }
    return ERR_OK;
}

/*
 * goodput. Default interruption rates per component-hour, from the 54-day Llama 3 405B
 * pre-training on 16,384 H100 GPUs in 2,048 servers (Meta, "The Llama 3 Herd of Models", 2024,
 * Table 5: 419 unexpected interruptions; 21.23 M GPU-hours): GPU 262 (faulty GPU 148, HBM3 72,
 * SRAM 19, GSP 17, thermal/sensor 6) / 21.23 M GPU-h = 1.234e-5; NIC 7 / 21.23 M NIC-h (one per
 * GPU) = 3.30e-7; network switch/cable 35, counted per host link (one per GPU; the report does
 * not split switches from cables, so `switch` defaults to 0 and the figure lives in `link`)
 * = 1.65e-6; host 46 (maintenance 32, SSD 3, power 3, chassis 2, IO board 2, CPU 2, memory 2)
 * / 2.654 M server-hours = 1.733e-5; other 69 (software 54, NCCL watchdog 7, silent data
 * corruption 6, dependency 2) per GPU-hour = 3.25e-6. Together: one interruption every 3.1 h
 * at 16k GPUs, as the report says.
 */
const char *fidelity_name(enum fidelity f) { return f == FIDELITY_FLOW ? "flow" : "packet"; }

/* sim: {fidelity: packet | flow} (docs/scenario.md "sim", docs/fidelity.md). */
static int parse_sim(ld *L, const cfg_node *root)
{
    const cfg_node *m;
    char p[PATHLEN];
    L->sc->fidelity = FIDELITY_PACKET;
    TRY(get_map(L, root, "", "sim", K_SIM, &m, p));
    if (!m)
        return ERR_OK;
    int fid = FIDELITY_PACKET;
    TRY(get_enum(L, m, p, "fidelity", FIDELITIES, &fid, NULL));
    L->sc->fidelity = (enum fidelity)fid;
    return ERR_OK;
}

static int parse_goodput(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    cfg_goodput *g = &sc->goodput;
    const cfg_node *m, *rm, *it;
    char p[PATHLEN], rp[PATHLEN];
    g->samples = 1000;
    g->rate_gpu = 1.234e-5;
    g->rate_nic = 3.30e-7;
    g->rate_link = 1.65e-6;
    g->rate_switch = 0;
    g->rate_host = 1.733e-5;
    g->rate_other = 3.25e-6;
    TRY(get_map(L, root, "", "goodput", K_GOODPUT, &m, p));
    if (!m)
        return ERR_OK;
    g->on = true;
    g->line = m->line;
    g->col = m->col;
    TRY(get_str(L, m, p, "job", &g->job, NULL));
    TRY(get_u64(L, m, p, "iterations", 1, 1000000000000ull, &g->iterations, &it));
    if (!it)
        return fail(L, m, p,
                    "missing required key \"iterations\" (how many training iterations the "
                    "run must complete, e.g. iterations: 100000)");
    TRY(get_u32(L, m, p, "samples", 1, 1000000, &g->samples, NULL));
    TRY(get_map(L, m, p, "rates", K_RATES, &rm, rp));
    if (rm) {
        static const char *const what = "interruptions per component and hour, >= 0 (e.g. 1.2e-5)";
        TRY(get_num(L, rm, rp, "gpu", 0, false, 1e3, false, what, &g->rate_gpu));
        TRY(get_num(L, rm, rp, "nic", 0, false, 1e3, false, what, &g->rate_nic));
        TRY(get_num(L, rm, rp, "link", 0, false, 1e3, false, what, &g->rate_link));
        TRY(get_num(L, rm, rp, "switch", 0, false, 1e3, false, what, &g->rate_switch));
        TRY(get_num(L, rm, rp, "host", 0, false, 1e3, false, what, &g->rate_host));
        TRY(get_num(L, rm, rp, "other", 0, false, 1e3, false, what, &g->rate_other));
    }
    return ERR_OK;
}

static int parse_telemetry(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    const cfg_node *m, *pc;
    char p[PATHLEN], pp[PATHLEN];
    TRY(get_map(L, root, "", "telemetry", K_TELEMETRY, &m, p));
    if (!m)
        return ERR_OK;
    TRY(get_unit_pos(L, m, p, "sample_interval", TIME, &sc->sample_interval_ps, NULL));
    TRY(get_map(L, m, p, "pcap", K_PCAP, &pc, pp));
    if (pc) {
        /* A capture is streamed to disk (telemetry/pcap.h); the bounds keep it a file that
         * Wireshark can open: 10^9 records, 64 GiB. A snap length below 64 bytes would cut
         * the BTH, above 65535 is not a pcap snap length. */
        TRY(get_u64(L, pc, pp, "max_packets", 0, 1000000000, &sc->pcap_max_packets, NULL));
        const cfg_node *mb;
        TRY(get_unit(L, pc, pp, "max_bytes", SIZE, &sc->pcap_max_bytes, &mb));
        if (mb && (sc->pcap_max_bytes < 1024 || sc->pcap_max_bytes > (64ull << 30))) {
            char kp[PATHLEN], s[200];
            sub(kp, pp, "max_bytes");
            return fail(L, mb, kp, "expected a size from 1KiB to 64GiB, got \"%s\"",
                        show(s, sizeof s, mb->str));
        }
        uint64_t snap = sc->pcap_snaplen;
        const cfg_node *sn;
        TRY(get_unit(L, pc, pp, "snaplen", SIZE, &snap, &sn));
        if (sn && (snap < 64 || snap > 65535)) {
            char kp[PATHLEN], s[200];
            sub(kp, pp, "snaplen");
            return fail(L, sn, kp,
                        "expected a size from 64B (Ethernet, IPv4, UDP and BTH headers) to "
                        "65535B (whole frames), got \"%s\"",
                        show(s, sizeof s, sn->str));
        }
        sc->pcap_snaplen = (uint32_t)snap;
        TRY(get_str(L, pc, pp, "filter", &sc->pcap_filter, NULL));
    }
    return ERR_OK;
}

static int parse_output(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    const cfg_node *m;
    char p[PATHLEN];
    TRY(get_map(L, root, "", "output", K_OUTPUT, &m, p));
    if (!m)
        return ERR_OK;
    TRY(get_str(L, m, p, "dir", &sc->output_dir, NULL));
    TRY(get_enum_list(L, m, p, "formats", FORMATS, "a list like [json, csv]", &sc->output_formats));
    return ERR_OK;
}

/* --- plan: the build sheet's physical assumptions (plan/plan.h, docs/plan.md) ---------------- */

/* A power like "10.2kW", "700W", "1.2MW" in watts; `auto` = 0 when allowed. */
static int get_power(ld *L, const cfg_node *m, const char *path, const char *key, bool allow_auto,
                     uint64_t *out)
{
    const cfg_node *v;
    char kp[PATHLEN], s[200];
    TRY(get_scalar(L, m, path, key, "a power like \"10.2kW\"", &v, kp));
    if (!v)
        return ERR_OK;
    if (allow_auto && !strcmp(v->str, "auto")) {
        *out = 0;
        return ERR_OK;
    }
    char *end;
    double x = strtod(v->str, &end);
    double mult = !strcmp(end, "W") ? 1 : !strcmp(end, "kW") ? 1e3 : !strcmp(end, "MW") ? 1e6 : 0;
    if (end == v->str || mult == 0 || !(x > 0) || x * mult > 1e9)
        return fail(L, v, kp,
                    "expected %sa power like \"10.2kW\" or \"700W\" (W, kW, MW; "
                    "above 0, at most 1GW), got \"%s\"",
                    allow_auto ? "auto or " : "", show(s, sizeof s, v->str));
    *out = (uint64_t)(x * mult + 0.5);
    return ERR_OK;
}

static const char *const K_DEV_SWITCH[] = {"switch", "mtu",        "pfc_priorities",
                                           "ecn",    "dscp_to_tc", NULL};
static const char *const K_DEV_NIC[] = {"nic",      "netdev_mtu",   "pfc_priorities",
                                        "priority", "cnp_priority", "dscp",
                                        "cnp_dscp", "trust",        NULL};
static const char *const K_DEV_ECN[] = {"kmin", "kmax", "pmax", NULL};

/* devices: a list of { switch: NAME, ... } / { nic: SERVER[:ethK], ... } (config.h cfg_device);
 * names are resolved against the built topology by plan_build. */
static int parse_devices(ld *L, const cfg_node *root)
{
    scenario *sc = L->sc;
    const cfg_node *seq;
    char p[PATHLEN];
    TRY(get_seq(L, root, "", "devices", "a list of devices like [{switch: leaf0, mtu: 1500}]", &seq,
                p));
    if (!seq)
        return ERR_OK;
    sc->n_devices = seq->n;
    sc->devices = ARENA_NEW_ARRAY(L->a, cfg_device, seq->n ? seq->n : 1);
    for (uint32_t i = 0; i < seq->n; i++) {
        const cfg_node *dm = seq->vals[i];
        cfg_device *d = &sc->devices[i];
        char dp[PATHLEN];
        subi(dp, p, i);
        if (dm->kind != CFG_MAP)
            return fail(L, dm, dp, "expected a mapping like {switch: leaf0, mtu: 1500}, got %s",
                        cfg_kind_name(dm->kind));
        const cfg_node *name_n = cfg_map_get(dm, "switch", NULL);
        d->nic = !name_n;
        if (!name_n)
            name_n = cfg_map_get(dm, "nic", NULL);
        if (!name_n)
            return fail(L, dm, dp, "expected `switch: NAME` or `nic: SERVER` (or SERVER:ethK)");
        TRY(check_keys(L, dm, dp, d->nic ? K_DEV_NIC : K_DEV_SWITCH, NULL));
        TRY(get_str(L, dm, dp, d->nic ? "nic" : "switch", &d->name, NULL));
        d->line = name_n->line;
        d->col = name_n->col;
        for (int k = 0; k < 64; k++)
            d->dscp_to_tc[k] = -1;
        const cfg_node *prio;
        char prio_kp[PATHLEN];
        TRY(get_prio_mask(L, dm, dp, "pfc_priorities", &d->pfc, &prio, prio_kp));
        d->set |= prio ? DEV_PFC : 0;
        const cfg_node *v;
        if (d->nic) {
            uint32_t x;
            int t = TRUST_DSCP;
            struct {
                const char *key;
                uint32_t hi, flag;
                uint8_t *out;
            } u8[] = {{"priority", 7, DEV_PRIO, &d->priority},
                      {"cnp_priority", 7, DEV_CNP_PRIO, &d->cnp_priority},
                      {"dscp", 63, DEV_DSCP, &d->dscp},
                      {"cnp_dscp", 63, DEV_CNP_DSCP, &d->cnp_dscp}};
            for (size_t k = 0; k < sizeof u8 / sizeof u8[0]; k++) {
                x = 0;
                TRY(get_u32(L, dm, dp, u8[k].key, 0, u8[k].hi, &x, &v));
                if (v) {
                    *u8[k].out = (uint8_t)x;
                    d->set |= u8[k].flag;
                }
            }
            TRY(get_enum(L, dm, dp, "trust", TRUSTS, &t, &v));
            if (v) {
                d->trust = (uint8_t)t;
                d->set |= DEV_TRUST;
            }
            TRY(get_u32(L, dm, dp, "netdev_mtu", 576, 9216, &d->mtu, &v));
            d->set |= v ? DEV_MTU : 0;
        } else {
            TRY(get_u32(L, dm, dp, "mtu", 576, 9216, &d->mtu, &v));
            d->set |= v ? DEV_MTU : 0;
            const cfg_node *ecn;
            char ep[PATHLEN];
            TRY(get_map(L, dm, dp, "ecn", K_DEV_ECN, &ecn, ep));
            if (ecn) {
                TRY(get_unit(L, ecn, ep, "kmin", SIZE, &d->kmin_bytes, &v));
                d->set |= v ? DEV_KMIN : 0;
                TRY(get_unit_pos(L, ecn, ep, "kmax", SIZE, &d->kmax_bytes, &v));
                d->set |= v ? DEV_KMAX : 0;
                TRY(get_num(L, ecn, ep, "pmax", 0, false, 1, false, "0..1", &d->pmax));
                d->set |= cfg_map_get(ecn, "pmax", NULL) ? DEV_PMAX : 0;
            }
            const cfg_node *map;
            char mp[PATHLEN];
            TRY(get_map(L, dm, dp, "dscp_to_tc", NULL, &map, mp));
            for (uint32_t k = 0; map && k < map->n; k++) {
                uint64_t dscp, tc;
                char kp[PATHLEN];
                sub(kp, mp, map->keys[k]->str);
                TRY(int_node(L, map->keys[k], kp, 0, 63, &dscp));
                if (map->vals[k]->kind != CFG_SCALAR)
                    return fail(L, map->vals[k], kp, "expected a class 0..7");
                TRY(int_node(L, map->vals[k], kp, 0, 7, &tc));
                d->dscp_to_tc[dscp] = (int8_t)tc;
                d->set |= DEV_DSCP_MAP;
            }
        }
    }
    return ERR_OK;
}

static int parse_plan(ld *L, const cfg_node *root)
{
    cfg_plan *pl = &L->sc->plan;
    const cfg_node *m, *asn;
    char p[PATHLEN];
    TRY(get_map(L, root, "", "plan", K_PLAN, &m, p));
    if (!m)
        return ERR_OK;
    int c = (int)pl->cooling, pm = (int)pl->placement;
    TRY(get_enum(L, m, p, "cooling", COOLINGS, &c, NULL));
    pl->cooling = (enum plan_cooling)c;
    TRY(get_power(L, m, p, "rack_power", true, &pl->rack_power_w));
    TRY(get_power(L, m, p, "server_power", false, &pl->server_power_w));
    TRY(get_power(L, m, p, "switch_power", true, &pl->switch_power_w));
    TRY(get_enum(L, m, p, "placement", PLACEMENTS, &pm, NULL));
    pl->placement = (enum plan_placement)pm;
    TRY(get_u32(L, m, p, "racks_per_row", 1, 1000, &pl->racks_per_row, NULL));
    TRY(get_u32(L, m, p, "switches_per_rack", 1, 64, &pl->switches_per_rack, NULL));
    TRY(get_bool(L, m, p, "ipv6", &pl->ipv6));
    /* 32-bit private ASNs (RFC 6996 §5: 4200000000-4294967294); the plan numbers leaves from
     * asn_base + 65536 up, so the base leaves room for 2^24 of them */
    TRY(get_u64(L, m, p, "asn_base", 1, 4294967294ull - (1ull << 24) - 65536, &pl->asn_base, &asn));
    return ERR_OK;
}

/* --- defaults and the whole ----------------------------------------------------------------- */

static void set_defaults(scenario *sc)
{
    sc->seed = 1;
    sc->stop_at_ps = SIM_TIME_MAX;

    cfg_fabric *f = &sc->fabric;
    f->preset = PRESET_SINGLE_SWITCH;
    f->servers = 8;
    f->gpus_per_server = 8;
    f->gpus_per_nic = 1;
    f->nic_ports = 1;
    f->rails_per_leaf = 1;
    f->host_link_bps = 400000000000ULL;
    f->fabric_link_bps = 400000000000ULL;
    f->oversub_down = f->oversub_up = 1;
    f->leaf_radix = 64;
    f->spine_radix = 64;
    f->spines = 0;
    f->pods = 1;
    f->k = 4;
    f->link_latency_ps = 1 * SIM_US;
    f->cable_length_mm = 0;
    f->switch_latency_ps = 600 * SIM_NS;
    f->cut_through = false;
    f->scale_up_bps = 450ULL * 8000000000ULL;
    f->scale_up_latency_ps = 1 * SIM_US;
    /* NCCL reaches ~370 GB/s over NVLink4's 450 GB/s line rate (~20 % protocol overhead), as
     * busbw of non-NVLS collectives on 8 x H100 (S. Jeaugey, NVIDIA, nccl-tests issue #212). */
    f->scale_up_efficiency = 370.0 / 450.0;
    f->scale_up_achieved_bps = (uint64_t)((double)f->scale_up_bps * f->scale_up_efficiency + 0.5);
    f->planes = 1;
    f->link_layer = LINK_ETHERNET;
    /* InfiniBand (fabric.infiniband). NVIDIA publishes no per-port VL buffer size for its
     * Quantum-2 (NDR) switches, so the default is the IB sizing rule instead of a vendor figure:
     * `auto` gives each VL of each receiving port the credit loop's bandwidth-delay product at
     * line rate plus two maximum frames (net.h net_ib_vl_buffer_auto), the least that keeps a
     * link busy with credits alone. Deadlock detection as PFC's. IB congestion control (IBTA
     * vol. 1 Annex A10; parameters as OpenSM writes them, cc_* in opensm.conf): the HCA side as
     * the LLNL IB CC study's base configuration (P. Huang, opensm-cc-conf-gen: ccti_increase 1,
     * ccti_min 0, marking_rate 0x000f, and the 128-entry "Mellanox default" CCT, entry i =
     * floor(7 i^2 / (0.218 * 95^2)) with shift 0); ccti_timer 150 x 1.024 us. The FECN threshold
     * (`auto`) is one VL buffer of queue at the output: more than one input's worth waiting. */
    f->ib.vl_buffer_bytes = 0;
    f->ib.deadlock_ps = 10 * SIM_MS;
    f->ib.cc_threshold_bytes = 0;
    f->ib.marking_rate = 15;
    f->ib.ccti_increase = 1;
    f->ib.ccti_min = 0;
    f->ib.ccti_timer_ps = 150 * 1024 * SIM_NS;
    f->ib.n_cct = IB_CCT_MAX;
    for (uint32_t i = 0; i < IB_CCT_MAX; i++)
        f->ib.cct[i] = (uint16_t)((7.0 * i * i) / (0.218 * 95.0 * 95.0));
    f->ib.ccti_limit = IB_CCT_MAX - 1;
    /* Jumbo frames as AI fabrics deploy them: switch ports at 9216 (NVIDIA Cumulus Linux
     * "Switch Port Attributes": swp ports default to MTU 9216; Huawei CloudEngine: maximum
     * frame size default 9216). */
    f->mtu = 9216;

    /* plan (sources in docs/plan.md): NVIDIA DGX H100 user guide, system power 10.2 kW max;
     * air-cooled racks 7-15 kW (ASHRAE TC 9.9 / Uptime Institute rack-density surveys: the
     * upper end of what air removes), liquid-cooled AI racks 100-200 kW (NVIDIA GB200 NVL72:
     * ~120-132 kW per rack; 130 kW taken); 2U 64-port switches, 16 per network rack leaving
     * room for patch panels in a 42U rack; RFC 6996 private 32-bit ASNs. */
    sc->plan.cooling = COOL_AIR;
    sc->plan.server_power_w = 10200;
    sc->plan.placement = PLACE_END_OF_ROW;
    sc->plan.racks_per_row = 16;
    sc->plan.switches_per_rack = 16;
    sc->plan.asn_base = 4200000000ull;

    cfg_switch *s = &sc->sw;
    s->buffer_bytes = 64ULL << 20;
    s->alpha = 1;
    s->ecn_enabled = true;
    s->ecn_kmin_bytes = 100000;
    s->ecn_kmax_bytes = 400000;
    s->ecn_pmax = 0.2;
    s->pfc_enabled = true;
    s->pfc_priorities = 1u << 3;
    s->pfc_xoff_bytes = 0;
    s->pfc_headroom_bytes = 0;
    /* SAI XON_TH / XON_OFFSET_TH as SONiC's buffer manager writes them for a Broadcom lossless
     * profile (sonic-swss cfgmgr/buffermgr.cpp, pg_lossless_100G_300m_profile: xon 18432,
     * xon_offset 2496) */
    s->pfc_xon_bytes = 18432;
    s->pfc_xon_offset_bytes = 2496;
    /* marking when the frame leaves the queue, as the reference simulators do: the DCQCN/HPCC
     * ns-3 switch (SwitchNode::SwitchNotifyDequeue asks the MMU's ShouldSendCN after the frame
     * left the egress accounting) and htsim's ECNQueue ("marks on dequeue") */
    s->ecn_mark_at = ECN_MARK_DEQUEUE;
    s->wd_detect_ps = 200 * SIM_MS;
    s->wd_restore_ps = 400 * SIM_MS;
    s->wd_action = WD_DROP;
    s->pfc_deadlock_ps = 10 * SIM_MS;
    for (int i = 0; i < 8; i++)
        s->weights[i] = 1;
    s->scheduler = SCHED_STRICT;

    cfg_nic *n = &sc->nic;
    n->mtu = 4096;
    n->transport = TRANSPORT_ROCEV2;
    n->cc = CC_DCQCN;
    /* ConnectX-7: the NIC of 400G AI back ends (docs/scenario.md, nic.profile) */
    n->profile = NIC_CONNECTX7;
    cfg_dcqcn_profile(&n->dcqcn, n->profile);
    /* TIMELY: the paper's constants (Mittal et al. SIGCOMM'15, Table 1: α 0.875, β 0.8,
     * δ 10 Mbps, T_low 50 us, T_high 500 us, minimum RTT 20 us, N = 5; segments 16-64 KB,
     * the upper end here: 400G moves 64 KB in 1.3 us). δ was chosen for 10 Gb/s NICs; left
     * unset (0) it is the same share of the port's line, 0.1 % (400 Mbps at 400G): the
     * paper's 10 Mbps on a 400G port takes 40 000 completion events to climb one line rate,
     * and a 7-to-1 incast then runs at 156 × its ideal. The minimum rate is not in the paper;
     * unset, one δ, so the additive step can always lift a QP off it. */
    n->timely = (cfg_timely){.t_low_ps = 50 * SIM_US,
                             .t_high_ps = 500 * SIM_US,
                             .min_rtt_ps = 20 * SIM_US,
                             .beta = 0.8,
                             .ewma = 0.875,
                             .add_rate_bps = 0,
                             .min_rate_bps = 0,
                             .hai_n = 5,
                             .segment_bytes = 65536};
    /* UET spraying: 256 entropies per connection, htsim's UEC model default
     * (UecSrc::_path_entropy_size, the UEC reference simulator); a REPS buffer of 8 recycled
     * entropies, 16 bytes of 16-bit EVs, inside the < 25 bytes of per-connection state REPS
     * states (Bonato et al., arXiv 2407.21625, abstract and §3) */
    n->uet = (cfg_uet){.paths = 256, .reps_buffer = 8};
    /* NSCC: htsim's reference constants (UecSrc::initNsccParams: the 100 Gb/s, 12 us reference
     * network NSCC's constants are scaled from, target queueing delay 6 us) */
    n->nscc = (cfg_nscc){.base_rtt_ps = 12 * SIM_US, .target_delay_ps = 6 * SIM_US};
    /* HPCC: η = 0.95 and maxStage = 5 (Li et al. SIGCOMM'19, §3.3 and §5.1); W_AI as the
     * authors' ns-3 artifact sets it (alibaba-edu/High-Precision-Congestion-Control, run.py:
     * RATE_AI = 10·bw/25 Mb/s for bw in Gb/s, 160 Mb/s at 400G), left 0 here so that it follows
     * each port's line rate. */
    n->hpcc = (cfg_hpcc){.eta = 0.95, .max_stage = 5, .ai_rate_bps = 0};
    n->qps_per_connection = 1;
    n->retransmit = RETX_GO_BACK_N;
    n->rto_ps = 4 * SIM_MS;
    n->priority = 3;
    n->cnp_priority = 6;
    /* DSCP 26 for RoCE and 48 for CNPs, trust DSCP: NVIDIA's lossless RoCE defaults (ConnectX
     * roce_np cnp_dscp 48; "RoCE ... DSCP 26" in NVIDIA's RoCE configuration guides); netdev
     * MTU 9000, the jumbo host MTU that gives RoCE its 4096 path MTU */
    n->dscp = 26;
    n->cnp_dscp = 48;
    n->trust = TRUST_DSCP;
    n->netdev_mtu = 9000;
    n->ack_every = 16;
    n->reorder_tolerance = 64;
    /* IBTA RC: retry_cnt is 3 bits, at most 7 (ibv_modify_qp(3)); NCCL_IB_RETRY_CNT defaults
     * to 7 */
    n->retry_count = 7;
    /* Linux bonding's link monitor (miimon) polled every 100 ms, the value the bonding
     * documentation suggests; mlx5 RoCE LAG remaps the QPs' port when the bond reports the
     * slave down */
    n->failover_delay_ps = 100 * SIM_MS;
    n->ooo_placement = OOO_AUTO;
    n->reorder_window_ps = 100 * SIM_US;

    cfg_lb *b = &sc->lb;
    b->mode = LB_ECMP;
    b->hash = HASH_CRC32;
    b->fields = HF_SRC_IP | HF_DST_IP | HF_SRC_PORT | HF_DST_PORT | HF_PROTOCOL;
    b->flowlet_gap_ps = 4 * SIM_US;
    b->adaptive_metric = ADAPT_QUEUE;

    sc->sample_interval_ps = 10 * SIM_US;
    sc->pcap_max_packets = 100000;
    sc->pcap_max_bytes = 64ull << 20;
    sc->pcap_snaplen = 128;
    sc->output_formats = OUT_JSON;
}

/* Base name of `path` without its last extension ("dir/rail64.yaml" -> "rail64"). */
static const char *base_name(arena *a, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b)
        n = (size_t)(dot - b);
    if (n == 0)
        return "scenario";
    char *s = arena_alloc(a, n + 1);
    memcpy(s, b, n);
    return s;
}

/* "out/<name>" with characters unsafe in a directory name replaced by '_'. */
static const char *default_dir(arena *a, const char *name)
{
    size_t n = strlen(name);
    char *d = arena_alloc(a, n + 5);
    memcpy(d, "out/", 4);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || (c == '.' && i > 0);
        d[4 + i] = ok ? c : '_';
    }
    return d;
}

/*
 * Sums of times that the engine schedules as one absolute time: a link fault's at + detect +
 * converge (routing is recomputed then), a storm's at + duration. Each term is already at most
 * SIM_TIME_INPUT_MAX (get_unit), so the sums cannot wrap here; they must themselves stay within
 * SIM_TIME_INPUT_MAX for the same reason as the terms (time.h). The error points at the fault's
 * `at`, the term that places the sum.
 */
static int check_time_sums(ld *L)
{
    scenario *sc = L->sc;
    for (uint32_t i = 0; i < sc->n_faults; i++) {
        const cfg_fault *f = &sc->faults[i];
        /* up to six terms of at most 2^62 each: summed in 128 bits, never wraps */
        unsigned __int128 sum = f->at_ps;
        const char *terms = NULL;
        unsigned __int128 route = (unsigned __int128)f->detect_ps + f->converge_ps;
        bool until_end = f->duration_ps == SIM_TIME_MAX;
        switch (f->kind) {
        case FAULT_LINK_DOWN:
        case FAULT_LINK_UP:
            sum += route;
            terms = "at + detect + converge";
            break;
        case FAULT_PFC_STORM:
        case FAULT_LINK_DEGRADED:
        case FAULT_LINK_BER:
            if (!until_end) {
                sum += f->duration_ps;
                terms = "at + duration";
            }
            break;
        case FAULT_LINK_FLAP:
            sum += (unsigned __int128)f->duration_ps + f->period_ps + route;
            terms = "at + duration + period + detect + converge";
            break;
        case FAULT_SWITCH_DOWN:
            sum += (until_end ? 0 : f->duration_ps) + route;
            terms = until_end ? "at + detect + converge" : "at + duration + detect + converge";
            break;
        case FAULT_SWITCH_DRAIN:
            sum += (unsigned __int128)f->converge_ps + f->wait_ps + f->duration_ps + route;
            terms = "at + converge + wait + duration + detect + converge";
            break;
        default:
            break;
        }
        if (!terms || sum <= SIM_TIME_INPUT_MAX)
            continue;
        char key[48];
        snprintf(key, sizeof key, "faults.%u.at", i);
        return config_error_at(sc, L->e, key,
                               "faults[%u].at: %s = %.3fs is beyond the longest time a "
                               "scenario may give, 4611686s (2^62 ps, about 53 days)",
                               i, terms, (double)sum * 1e-12);
    }
    return ERR_OK;
}

static int parse_root(ld *L)
{
    scenario *sc = L->sc;
    const cfg_node *root = sc->tree->root;
    if (!root || cfg_is_null(root))
        return err_set(L->e, ERR_INVALID, sc->file, 1, 1,
                       "empty scenario (give at least one key, e.g. fabric: {preset: "
                       "leaf-spine}; {} runs every default)");
    if (root->kind != CFG_MAP)
        return fail(L, root, "", "expected a mapping of scenario keys at the top level, got %s",
                    cfg_kind_name(root->kind));
    TRY(check_keys(L, root, "", K_TOP, NULL));

    const cfg_node *nv;
    TRY(get_str(L, root, "", "name", &sc->name, &nv));
    TRY(get_u64(L, root, "", "seed", 0, UINT64_MAX, &sc->seed, NULL));
    TRY(get_unit_pos(L, root, "", "stop_at", TIME, &sc->stop_at_ps, NULL));
    TRY(parse_sim(L, root));
    TRY(parse_fabric(L, root));
    TRY(parse_switch(L, root));
    TRY(parse_nic(L, root));
    TRY(parse_lb(L, root));
    TRY(parse_tenants(L, root));
    TRY(parse_workload(L, root));
    TRY(check_job_tenants(L, root));
    TRY(parse_faults(L, root));
    TRY(parse_goodput(L, root));
    TRY(parse_telemetry(L, root));
    TRY(parse_output(L, root));
    TRY(parse_plan(L, root));
    TRY(parse_devices(L, root));
    TRY(check_time_sums(L));
    if (!sc->output_dir)
        sc->output_dir = default_dir(L->a, sc->name);
    return ERR_OK;
}

int config_load_buffer(scenario *sc, const char *name, const char *buf, size_t len,
                       const cfg_override *over, int n_over, err *e)
{
    memset(sc, 0, sizeof *sc);
    arena_init(&sc->mem, "config");
    err_clear(e);
    ld L = {sc, &sc->mem, e};
    sc->file = arena_strdup(&sc->mem, name ? name : "scenario");
    sc->name = base_name(&sc->mem, sc->file);
    set_defaults(sc);

    int rc = cfg_tree_parse(&sc->mem, sc->file, buf ? buf : "", buf ? len : 0, &sc->tree, e);
    if (!rc && (!sc->tree->root || cfg_is_null(sc->tree->root)))
        rc = parse_root(&L); /* the empty-scenario error comes before any override */
    for (int i = 0; !rc && i < n_over; i++)
        rc = cfg_tree_override(&sc->mem, sc->tree, over[i].key, over[i].value, i, e);
    if (!rc)
        rc = parse_root(&L);
    if (rc) {
        scenario_free(sc);
        return rc;
    }
    return ERR_OK;
}

int config_load(scenario *sc, const char *path, const cfg_override *over, int n_over, err *e)
{
    memset(sc, 0, sizeof *sc);
    err_clear(e);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return err_set(e, ERR_IO, path, 0, 0, "cannot open the scenario: %s", strerror(errno));
    size_t cap = 1 << 14, len = 0;
    char *buf = xmalloc(cap, "scenario file");
    for (;;) {
        if (len == cap) {
            if (cap >= MAX_FILE_BYTES) {
                xfree(buf);
                fclose(fp);
                return err_set(e, ERR_INVALID, path, 0, 0,
                               "the scenario is larger than %u MiB; is this the right file?",
                               MAX_FILE_BYTES >> 20);
            }
            cap *= 2;
            buf = xrealloc(buf, cap, "scenario file");
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(fp);
    int saved = errno;
    fclose(fp);
    if (bad) {
        xfree(buf);
        return err_set(e, ERR_IO, path, 0, 0, "cannot read the scenario: %s", strerror(saved));
    }
    int rc = config_load_buffer(sc, path, buf, len, over, n_over, e);
    xfree(buf);
    return rc;
}

void scenario_free(scenario *sc)
{
    if (!sc)
        return;
    arena_free(&sc->mem);
    memset(sc, 0, sizeof *sc);
}

/* --- positions for later stages ------------------------------------------------------------- */

bool config_locate_at(const scenario *sc, const char *dotted, const char **file, int *line,
                      int *col)
{
    const cfg_node *deepest = NULL;
    const cfg_node *n = sc && sc->tree ? cfg_tree_find(sc->tree, dotted, NULL, &deepest) : NULL;
    if (!n)
        return false;
    if (file)
        *file = n->src;
    if (line)
        *line = n->line;
    if (col)
        *col = n->col;
    return true;
}

bool config_locate(const scenario *sc, const char *dotted, int *line, int *col)
{
    return config_locate_at(sc, dotted, NULL, line, col);
}

/* "workload.1.size" -> "workload[1].size", the form messages use. */
static void display_path(const char *dotted, char *dst, size_t cap)
{
    size_t o = 0;
    const char *p = dotted;
    while (*p && o + 4 < cap) {
        const char *seg = p;
        size_t n = strcspn(seg, ".");
        bool numeric = n > 0;
        for (size_t i = 0; i < n; i++)
            numeric = numeric && seg[i] >= '0' && seg[i] <= '9';
        if (numeric && o > 0) {
            if (o && dst[o - 1] == '.')
                o--;
            int w = snprintf(dst + o, cap - o, "[%.*s]", (int)n, seg);
            o += (w > 0 && (size_t)w < cap - o) ? (size_t)w : 0;
        } else {
            for (size_t i = 0; i < n && o + 2 < cap; i++)
                dst[o++] = seg[i];
        }
        p = seg + n;
        if (*p == '.') {
            if (o + 2 < cap)
                dst[o++] = '.';
            p++;
        }
    }
    dst[o] = '\0';
}

int config_error_at(const scenario *sc, err *e, const char *dotted, const char *fmt, ...)
{
    char msg[ERR_MSG_MAX], shown[PATHLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!dotted)
        dotted = "";
    display_path(dotted, shown, sizeof shown);

    const char *file = sc && sc->file ? sc->file : "";
    int line = 1, col = 1;
    const cfg_node *deepest = NULL;
    const cfg_node *n = sc && sc->tree ? cfg_tree_find(sc->tree, dotted, NULL, &deepest) : NULL;
    if (!n)
        n = deepest; /* absent: point at the closest enclosing section that exists */
    if (n) {
        file = n->src;
        line = n->line;
        col = n->col;
    }
    size_t dl = strlen(dotted), sl = strlen(shown);
    bool has_prefix = (dl && !strncmp(msg, dotted, dl) && msg[dl] == ':') ||
                      (sl && !strncmp(msg, shown, sl) && msg[sl] == ':');
    if (!*shown || has_prefix)
        return err_set(e, ERR_INVALID, file, line, col, "%s", msg);
    return err_set(e, ERR_INVALID, file, line, col, "%s: %s", shown, msg);
}
