/*
 * import_astra.c — ASTRA-sim network YAML + system JSON -> a wirerate scenario (see
 * import_astra.h). Formats read from ASTRA-sim's repository (the .yml files of
 * examples/network/analytical, the .json files of examples/system/native_collectives,
 * astra-sim/system/Sys.cc and astraccl/CollectiveImplLookup.cc for the keys and implementation
 * names); no code of theirs.
 */
#define _POSIX_C_SOURCE 200809L

#include "import_astra.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/arena.h"
#include "tree.h"

#define MAX_DIMS 8

static int fail(err *e, const char *file, const cfg_node *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(err *e, const char *file, const cfg_node *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = err_setv(e, ERR_INVALID, file, n ? n->line : 1, n ? n->col : 1, fmt, ap);
    va_end(ap);
    return rc;
}

static int load(arena *a, const char *path, cfg_tree **t, err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(e, ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 14, n = 0, got;
    char *b = xmalloc(cap, "import file");
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            if (cap >= (4u << 20)) {
                fclose(f);
                xfree(b);
                return err_set(e, ERR_INVALID, path, 0, 0, "larger than 4 MiB; the right file?");
            }
            b = xrealloc(b, cap *= 2, "import file");
        }
    }
    fclose(f);
    int rc = cfg_tree_parse(a, arena_strdup(a, path), b, n, t, e);
    xfree(b);
    if (!rc && (!(*t)->root || (*t)->root->kind != CFG_MAP))
        rc = fail(e, path, (*t)->root, "expected a mapping of keys, got %s",
                  (*t)->root ? cfg_kind_name((*t)->root->kind) : "an empty file");
    return rc;
}

/* A list under `key` (required), its items in out[]. */
static int get_list(const cfg_tree *t, const char *key, const cfg_node **items, uint32_t *n, err *e)
{
    cfg_node *k = NULL;
    const cfg_node *v = cfg_map_get(t->root, key, &k);
    if (!v)
        return fail(e, t->file, t->root, "%s: missing (one entry per dimension)", key);
    if (v->kind != CFG_SEQ || v->n == 0)
        return fail(e, t->file, v, "%s: expected a list with one entry per dimension, got %s", key,
                    v->kind == CFG_SEQ ? "an empty list" : cfg_kind_name(v->kind));
    if (v->n > MAX_DIMS)
        return fail(e, t->file, v, "%s: %u dimensions, more than %d", key, v->n, MAX_DIMS);
    for (uint32_t i = 0; i < v->n; i++)
        items[i] = v->vals[i];
    *n = v->n;
    return ERR_OK;
}

static int get_num(const char *file, const cfg_node *n, const char *key, uint32_t i, double *out,
                   err *e)
{
    char *end = NULL;
    if (n->kind == CFG_SCALAR) {
        errno = 0;
        *out = strtod(n->str, &end);
    }
    if (n->kind != CFG_SCALAR || !*n->str || *end || errno || !(*out > 0) || *out > 1e12)
        return fail(e, file, n, "%s[%u]: expected a positive number, got %s%s%s", key, i,
                    n->kind == CFG_SCALAR ? "\"" : cfg_kind_name(n->kind),
                    n->kind == CFG_SCALAR ? n->str : "", n->kind == CFG_SCALAR ? "\"" : "");
    return ERR_OK;
}

/* ASTRA-sim collective implementation name -> wirerate algorithm (NULL: unknown). */
static const char *algo(const char *impl)
{
    if (strcmp(impl, "ring") == 0 || strcmp(impl, "oneRing") == 0)
        return "ring";
    if (strcmp(impl, "doubleBinaryTree") == 0)
        return "tree";
    if (strcmp(impl, "halvingDoubling") == 0 || strcmp(impl, "oneHalvingDoubling") == 0)
        return "halving-doubling";
    if (strncmp(impl, "direct", 6) == 0 || strcmp(impl, "oneDirect") == 0)
        return "direct";
    return NULL;
}

static const char *const sys_used[] = {"all-reduce-implementation", "active-chunks-per-dimension",
                                       NULL};

int astra_import(FILE *f, const char *network, const char *system, uint64_t size_bytes, err *e)
{
    arena a;
    arena_init(&a, "astra-sim import");
    err_clear(e);
    cfg_tree *nt = NULL, *st = NULL;
    int rc = load(&a, network, &nt, e);
    const cfg_node *topo[MAX_DIMS], *npus[MAX_DIMS], *bw[MAX_DIMS], *lat[MAX_DIMS];
    uint32_t nd = 0, n2 = 0, n3 = 0, n4 = 0;
    if (!rc)
        rc = get_list(nt, "topology", topo, &nd, e);
    if (!rc)
        rc = get_list(nt, "npus_count", npus, &n2, e);
    if (!rc)
        rc = get_list(nt, "bandwidth", bw, &n3, e);
    if (!rc)
        rc = get_list(nt, "latency", lat, &n4, e);
    if (!rc && (n2 != nd || n3 != nd || n4 != nd))
        rc = fail(e, network, nt->root,
                  "topology, npus_count, bandwidth and latency need one entry per dimension: "
                  "%u, %u, %u and %u given",
                  nd, n2, n3, n4);
    double count[MAX_DIMS], gbps[MAX_DIMS], ns[MAX_DIMS];
    for (uint32_t i = 0; i < nd && !rc; i++) {
        if (topo[i]->kind != CFG_SCALAR ||
            (strcmp(topo[i]->str, "Ring") != 0 && strcmp(topo[i]->str, "FullyConnected") != 0 &&
             strcmp(topo[i]->str, "Switch") != 0))
            rc = fail(e, network, topo[i],
                      "topology[%u]: expected one of Ring | FullyConnected | Switch, got %s%s%s", i,
                      topo[i]->kind == CFG_SCALAR ? "\"" : cfg_kind_name(topo[i]->kind),
                      topo[i]->kind == CFG_SCALAR ? topo[i]->str : "",
                      topo[i]->kind == CFG_SCALAR ? "\"" : "");
        if (!rc)
            rc = get_num(network, npus[i], "npus_count", i, &count[i], e);
        if (!rc && (count[i] != (double)(uint32_t)count[i] || count[i] > 65536))
            rc = fail(e, network, npus[i],
                      "npus_count[%u]: expected a whole number of NPUs, got %s", i, npus[i]->str);
        if (!rc)
            rc = get_num(network, bw[i], "bandwidth", i, &gbps[i], e);
        if (!rc)
            rc = get_num(network, lat[i], "latency", i, &ns[i], e);
    }
    if (!rc && nd > 2)
        rc = fail(e, network, topo[2],
                  "topology: %u dimensions; wirerate imports one (a switch or a scale-up domain) "
                  "or two (a scale-up domain, then a switch); a multi-tier layout cannot be "
                  "derived from per-dimension bandwidths without guessing",
                  nd);
    if (!rc && nd == 2 && strcmp(topo[1]->str, "Switch") != 0)
        rc = fail(e, network, topo[1],
                  "topology[1]: a %s between servers; wirerate models switched scale-out fabrics "
                  "(use Switch)",
                  topo[1]->str);

    /* system: the all_reduce implementation per dimension and the chunks in flight */
    const char *algorithm = "ring", *impl_text = NULL;
    uint32_t channels = 1;
    char unused[512] = "";
    if (!rc && system && !(rc = load(&a, system, &st, e))) {
        cfg_node *k = NULL;
        const cfg_node *v = cfg_map_get(st->root, "all-reduce-implementation", &k);
        if (v) {
            if (v->kind != CFG_SEQ || v->n == 0 || v->n > MAX_DIMS)
                rc = fail(e, system, v,
                          "all-reduce-implementation: expected a list of implementations per "
                          "dimension like [\"ring\"], got %s",
                          cfg_kind_name(v->kind));
            for (uint32_t i = 0; !rc && i < v->n; i++) {
                const cfg_node *x = v->vals[i];
                if (x->kind != CFG_SCALAR || !algo(x->str))
                    rc = fail(e, system, x,
                              "all-reduce-implementation[%u]: expected one of ring | oneRing | "
                              "doubleBinaryTree | halvingDoubling | direct, got %s%s%s",
                              i, x->kind == CFG_SCALAR ? "\"" : cfg_kind_name(x->kind),
                              x->kind == CFG_SCALAR ? x->str : "",
                              x->kind == CFG_SCALAR ? "\"" : "");
            }
            if (!rc) {
                char t[256];
                size_t o = 0;
                for (uint32_t i = 0; i < v->n && o < sizeof t; i++)
                    o += (size_t)snprintf(t + o, sizeof t - o, "%s%s", i ? ", " : "",
                                          v->vals[i]->str);
                impl_text = arena_strdup(&a, t);
                /* across a scale-up domain and a switch, NCCL-style collectives are
                 * hierarchical; one dimension (or one flat ring over all) keeps its algorithm */
                algorithm = nd == 2 && count[0] > 1 && count[1] > 1 &&
                                    strncmp(v->vals[0]->str, "one", 3) != 0
                                ? "hierarchical"
                                : algo(v->vals[v->n - 1]->str);
            }
        }
        v = cfg_map_get(st->root, "active-chunks-per-dimension", &k);
        if (!rc && v) {
            double c = 0;
            rc = get_num(system, v, "active-chunks-per-dimension", 0, &c, e);
            if (!rc && (c != (double)(uint32_t)c || c > 64))
                rc = fail(e, system, v,
                          "active-chunks-per-dimension: expected a whole number 1..64, got %s",
                          v->str);
            channels = (uint32_t)c;
        }
        size_t o = 0;
        for (uint32_t i = 0; !rc && i < st->root->n && o < sizeof unused; i++) {
            bool used = false;
            for (const char *const *u = sys_used; *u; u++)
                used |= strcmp(st->root->keys[i]->str, *u) == 0;
            if (!used)
                o += (size_t)snprintf(unused + o, sizeof unused - o, "%s%s", o ? ", " : "",
                                      st->root->keys[i]->str);
        }
    }
    if (rc) {
        arena_free(&a);
        return rc;
    }

    const char *b = strrchr(network, '/');
    char name[128];
    snprintf(name, sizeof name, "%s", b ? b + 1 : network);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    fprintf(f, "# Imported by `wirerate import astra-sim` from %s%s%s (docs/import.md).\n", network,
            system ? " and " : "", system ? system : "");
    fprintf(f, "# ASTRA-sim network: topology [");
    for (uint32_t i = 0; i < nd; i++)
        fprintf(f, "%s%s", i ? ", " : "", topo[i]->str);
    fprintf(f, "], npus_count [");
    for (uint32_t i = 0; i < nd; i++)
        fprintf(f, "%s%s", i ? ", " : "", npus[i]->str);
    fprintf(f, "], bandwidth [");
    for (uint32_t i = 0; i < nd; i++)
        fprintf(f, "%s%s", i ? ", " : "", bw[i]->str);
    fprintf(f, "] GB/s, latency [");
    for (uint32_t i = 0; i < nd; i++)
        fprintf(f, "%s%s", i ? ", " : "", lat[i]->str);
    fprintf(f, "] ns\n");
    bool one_switch = nd == 1 && strcmp(topo[0]->str, "Switch") == 0;
    uint32_t servers = one_switch ? (uint32_t)count[0] : nd == 2 ? (uint32_t)count[1] : 1;
    uint32_t gpus = one_switch ? 1 : (uint32_t)count[0];
    if (!one_switch && strcmp(topo[0]->str, "Ring") == 0)
        fprintf(f, "# The Ring of dimension 0 becomes a scale-up domain in which every GPU has "
                   "the\n# bandwidth to any other (an NVSwitch); a ring's neighbour-only links are "
                   "not modelled.\n");
    fprintf(f, "name: %s\n", name);
    fprintf(f,
            "fabric:\n  preset: single-switch\n  servers: %" PRIu32 "\n  gpus_per_server: %" PRIu32
            "\n",
            servers, gpus);
    uint32_t hosts = servers * gpus;
    if (hosts > 64)
        fprintf(f, "  leaf_radix: %" PRIu32 "        # one switch port per NPU\n", hosts);
    if (one_switch || nd == 2) {
        uint32_t d = one_switch ? 0 : 1;
        fprintf(f, "  host_link: %gGBps        # bandwidth[%u]\n", gbps[d], d);
        /* ASTRA-sim's analytical Switch charges its latency on each of a message's two links */
        fprintf(f, "  link_latency: %gns       # latency[%u], per link (NPU-switch, switch-NPU)\n",
                ns[d], d);
        fprintf(f, "  switch_latency: 0ns\n");
    }
    if (!one_switch)
        fprintf(f,
                "  scale_up: {bandwidth: %gGBps, latency: %gns, efficiency: 1}   # dimension 0, "
                "as given\n",
                gbps[0], ns[0]);
    fprintf(f, "workload:\n  - name: all_reduce\n    kind: collective\n    op: all_reduce\n");
    fprintf(f, "    algorithm: %s%s%s%s\n", algorithm,
            impl_text ? "   # system all-reduce-implementation: [" : "", impl_text ? impl_text : "",
            impl_text ? "]" : "");
    fprintf(f, "    size: %" PRIu64 "\n    channels: %" PRIu32 "%s\n", size_bytes, channels,
            system ? "   # active-chunks-per-dimension" : "");
    if (unused[0])
        fprintf(f, "# System keys without a wirerate equivalent (not used): %s\n", unused);
    arena_free(&a);
    return ferror(f) ? err_set(e, ERR_IO, "", 0, 0, "write failed") : ERR_OK;
}
