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
    /* The leading Ring/FullyConnected dimensions are the scale-up domain inside a server (with
     * two or more dimensions, a leading Switch is the server's NVSwitch); the dimensions after
     * it are switched tiers between servers: one = a switch, two = rail leaves per dimension-1
     * group and spines joining the dimension-2 groups. */
    uint32_t nsu = 0;
    while (!rc && nsu < nd && strcmp(topo[nsu]->str, "Switch") != 0)
        nsu++;
    if (!rc && nsu == 0 && nd >= 2)
        nsu = 1;
    for (uint32_t i = nsu; !rc && i < nd; i++)
        if (strcmp(topo[i]->str, "Switch") != 0)
            rc = fail(e, network, topo[i],
                      "topology[%u]: a %s between servers; wirerate models switched scale-out "
                      "fabrics (use Switch)",
                      i, topo[i]->str);
    if (!rc && nd - nsu > 2)
        rc = fail(e, network, topo[nsu + 2],
                  "topology[%u]: a third switched dimension; wirerate maps two (a leaf tier per "
                  "dimension-%u group, then a spine tier joining them); a super-spine tier's "
                  "share of the bandwidth cannot be derived from one figure per dimension",
                  nsu + 2, nsu);

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
                algorithm = nd >= 2 && count[0] > 1 && count[nd - 1] > 1 &&
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
    uint32_t nsw = one_switch ? 1 : nd - nsu; /* switched dimensions between servers */
    uint32_t d1 = one_switch ? 0 : nsu;       /* the first of them */
    /* the scale-up domain: the product of its dimensions, at the smallest bandwidth and the
     * largest latency among them (wirerate's scale-up domain has one figure per GPU) */
    uint32_t gpus = 1;
    double su_gbps = 0, su_ns = 0;
    for (uint32_t i = 0; !one_switch && i < nsu; i++) {
        gpus *= (uint32_t)count[i];
        su_gbps = i == 0 || gbps[i] < su_gbps ? gbps[i] : su_gbps;
        su_ns = ns[i] > su_ns ? ns[i] : su_ns;
    }
    uint32_t servers = 1;
    for (uint32_t i = d1; i < nd; i++)
        servers *= (uint32_t)count[i];
    for (uint32_t i = 0; !one_switch && i < nsu; i++)
        if (strcmp(topo[i]->str, "Ring") == 0) {
            fprintf(f,
                    "# The Ring of dimension %u becomes part of a scale-up domain in which every "
                    "GPU has the\n# bandwidth to any other (an NVSwitch); a ring's "
                    "neighbour-only links are not modelled.\n",
                    i);
            break;
        }
    if (!one_switch && nsu > 1)
        fprintf(f,
                "# Dimensions 0..%u form one scale-up domain of %u GPUs per server, at the "
                "smallest\n# bandwidth and the largest latency among them.\n",
                nsu - 1, gpus);
    if (nsw == 2) {
        /* rail-optimized: a leaf per rail and dimension-1 group (S1 servers = a scalable unit),
         * spines over all leaves; each leaf has S1 host ports at bandwidth[d1] and S1 uplinks
         * at bandwidth[d1+1]: a GPU's share of the uplinks is bandwidth[d1+1], as dimension
         * d1+1 gives it in ASTRA-sim */
        uint32_t s1 = (uint32_t)count[d1], s2 = (uint32_t)count[d1 + 1];
        fprintf(f,
                "# Dimension %u (%u servers) shares a leaf per rail; dimension %u (%u groups) "
                "joins the\n# leaves through spines. ASTRA-sim gives dimension %u its own %g ns "
                "per link; here every\n# link has latency[%u], and a message across dimension "
                "%u crosses 4 links and 3 switches.\n",
                d1, s1, d1 + 1, s2, d1 + 1, ns[d1 + 1], d1, d1 + 1);
        fprintf(f, "name: %s\n", name);
        fprintf(f,
                "fabric:\n  preset: rail-optimized\n  servers: %" PRIu32
                "\n  gpus_per_server: %" PRIu32 "\n  rails_per_leaf: 1\n  leaf_radix: %" PRIu32
                "        # %u host ports + %u uplinks\n",
                servers, gpus, 2 * s1, s1, s1);
        if (gpus * s2 > 64)
            fprintf(f, "  spine_radix: %" PRIu32 "        # one port per leaf\n", gpus * s2);
        fprintf(f, "  host_link: %gGBps        # bandwidth[%u]\n", gbps[d1], d1);
        fprintf(f,
                "  fabric_link: %gGBps      # bandwidth[%u]: each GPU's share of its leaf's "
                "uplinks\n",
                gbps[d1 + 1], d1 + 1);
        fprintf(f, "  oversubscription: \"%g:%g\"       # bandwidth[%u] : bandwidth[%u]\n",
                gbps[d1], gbps[d1 + 1], d1, d1 + 1);
        fprintf(f, "  link_latency: %gns       # latency[%u], per link\n", ns[d1], d1);
        fprintf(f, "  switch_latency: 0ns\n");
    } else {
        fprintf(f, "name: %s\n", name);
        fprintf(f,
                "fabric:\n  preset: single-switch\n  servers: %" PRIu32
                "\n  gpus_per_server: %" PRIu32 "\n",
                servers, gpus);
        uint32_t hosts = servers * gpus;
        if (hosts > 64)
            fprintf(f, "  leaf_radix: %" PRIu32 "        # one switch port per NPU\n", hosts);
    }
    if (nsw == 1) {
        uint32_t d = d1;
        fprintf(f, "  host_link: %gGBps        # bandwidth[%u]\n", gbps[d], d);
        /* ASTRA-sim's analytical Switch charges its latency on each of a message's two links */
        fprintf(f, "  link_latency: %gns       # latency[%u], per link (NPU-switch, switch-NPU)\n",
                ns[d], d);
        fprintf(f, "  switch_latency: 0ns\n");
    }
    if (!one_switch)
        fprintf(f,
                "  scale_up: {bandwidth: %gGBps, latency: %gns, efficiency: 1}   # dimension%s "
                "0%s%.0u, as given\n",
                su_gbps, su_ns, nsu > 1 ? "s" : "", nsu > 1 ? ".." : "", nsu > 1 ? nsu - 1 : 0);
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
