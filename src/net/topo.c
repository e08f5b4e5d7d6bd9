/*
 * topo.c — topology builders: turn cfg_fabric into nodes, ports and links.
 *
 * Every preset first produces an edge list (node pairs with speed and latency), then one generic
 * pass counts ports per node, allocates them from the sim arena and wires both directions.
 * Hosts are NIC ports (spec: "host = NIC port index") and come first in net->nodes, so a host's
 * node id equals its host index. Host h belongs to server h / (nics_per_server × nic_ports),
 * local NIC (rail) (h / nic_ports) mod nics_per_server, NIC port h mod nic_ports. Errors name the
 * key whose value cannot work, at its position in the scenario (config_error_at).
 *
 * Presets:
 *  - single-switch: every host on one switch (needs leaf_radix ≥ hosts).
 *  - leaf-spine: 2-tier Clos. A leaf's leaf_radix ports split into D down (host_link) and U up
 *    (fabric_link) whose bandwidths stand in the oversubscription ratio, D·host : U·fabric = d:u
 *    (leaf_split); hosts fill leaves in order; leaves = ⌈hosts / D⌉; by default one spine per
 *    leaf uplink (each leaf connects once to every spine), or `fabric.spines` spines with
 *    U/spines parallel links each; needs leaves × (U/spines) ≤ spine_radix.
 *  - rail-optimized: NIC (local rank) r of every server → rail r. A leaf serves rails_per_leaf
 *    rails with D/rails_per_leaf ports each, one per server, so a scalable unit (SU) is
 *    D/rails_per_leaf servers and has (rails / rails_per_leaf) × nic_ports leaves; with
 *    nic_ports = 2 the two ports of a NIC go to two different leaves of the same rail (dual-rail,
 *    MLAG-style dual homing). Spines as in leaf-spine, over all leaves of a pod. pods > 1 splits
 *    the SUs evenly over pods, each with its own spines (1:1 at the spine), and adds
 *    super-spines in planes: spine i of every pod joins plane i (a 3-tier, 5-stage Clos).
 *  - rail-only: the leaves of the rails and no spine; cross-rail traffic relays over the
 *    scale-up domain to the NIC on the destination's rail (PXN). Needs one SU.
 *  - fat-tree: k-ary 3-tier fat tree (Al-Fares et al., SIGCOMM'08): k pods of k/2 leaves (edge)
 *    and k/2 spines (aggregation), (k/2)² super-spines (core), k³/4 hosts (the loader derives
 *    `servers` from k).
 *  - planes: 2 (leaf-spine, rail-optimized; needs nic_ports 2): dual-plane, as Alibaba HPN
 *    builds it (Qian et al., SIGCOMM'24): port q of every NIC (hosts h with h mod 2 = q) on
 *    plane q, each plane its own leaves, spines and super-spines, no link between planes, so
 *    shortest-path routing never leaves a plane.
 *  - custom: the switches, hosts and links listed in fabric.custom; each host is a server of
 *    its own.
 * Every preset but custom adds each server's scale-up domain (NVSwitch) when the server has
 * more than one host and fabric.scale_up.bandwidth > 0, its links at the rate NCCL achieves
 * (bandwidth × scale_up.efficiency).
 */
#define _DEFAULT_SOURCE /* sysconf(_SC_LEVEL2_CACHE_SIZE) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/alloc.h"
#include "../core/env.h"
#include "../core/names.h"
#include "net.h"
#include "inttel.h"

typedef struct edge {
    uint32_t a, b;
    uint64_t bps;
    sim_time lat_ps;
} edge;

typedef struct edge_list {
    edge *e;
    uint32_t n, cap;
} edge_list;

static void edges_add(edge_list *l, uint32_t a, uint32_t b, uint64_t bps, sim_time lat)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->e = xrealloc(l->e, sizeof(edge) * l->cap, "topology edge list");
    }
    l->e[l->n++] = (edge){a, b, bps, lat};
}

/* n->n_nodes zeroed nodes in one block aligned to a cache line (node is 64-byte aligned:
 * forwarding reads its first line, net.h). */
static node *nodes_alloc(net *n)
{
    uintptr_t b = (uintptr_t)arena_alloc(&n->mem, sizeof(node) * (size_t)n->n_nodes + 64);
    return (node *)((b + 63) & ~(uintptr_t)63);
}

typedef struct shape {
    uint32_t nics_per_server;  /* = rails */
    uint32_t hosts_per_server; /* nics × nic_ports */
    uint64_t hosts;
} shape;

static shape fabric_shape(const cfg_fabric *f)
{
    shape s;
    s.nics_per_server = f->gpus_per_server / f->gpus_per_nic;
    s.hosts_per_server = s.nics_per_server * f->nic_ports;
    s.hosts = (uint64_t)f->servers * s.hosts_per_server;
    return s;
}

static void name_node(node *x, const char *prefix, uint32_t i)
{
    snprintf(x->name, sizeof x->name, "%s%u", prefix, i);
}

/* Allocate nodes: n_hosts hosts, then n_sw fabric switches, then one scale-up switch per server
 * when `scale_up`. */
static void alloc_nodes(net *n, uint32_t n_hosts, uint32_t n_sw, bool scale_up)
{
    const cfg_fabric *f = &n->sc->fabric;
    shape sh = fabric_shape(f);
    bool custom = f->preset == PRESET_CUSTOM;
    n->n_servers = custom ? n_hosts : f->servers;
    uint32_t n_nvs = scale_up ? n->n_servers : 0;
    n->n_hosts = n_hosts;
    n->n_switches = n_sw + n_nvs;
    n->n_nodes = n_hosts + n->n_switches;
    n->nodes = nodes_alloc(n);
    n->hosts = ARENA_NEW_ARRAY(&n->mem, node *, n_hosts ? n_hosts : 1);
    n->switches = ARENA_NEW_ARRAY(&n->mem, node *, n->n_switches ? n->n_switches : 1);
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        node *x = &n->nodes[i];
        x->id = i;
        x->owner = n;
        x->net_port = x->nvl_port = UINT32_MAX;
        if (i < n_hosts) {
            x->kind = NODE_HOST;
            x->index = i;
            x->ip = net_host_ip(i);
            if (custom) {
                x->server = i;
                x->rail = 0;
                x->gpu = 0; /* set by the custom builder */
            } else {
                uint32_t nic = i / f->nic_ports;
                x->server = nic / sh.nics_per_server;
                x->rail = nic % sh.nics_per_server;
                x->gpu = x->server * f->gpus_per_server + x->rail * f->gpus_per_nic;
            }
            name_node(x, "h", i);
            n->hosts[i] = x;
        } else {
            x->kind = NODE_SWITCH;
            x->index = i - n_hosts;
            n->switches[x->index] = x;
            if (x->index >= n_sw) {
                x->tier = TIER_SCALE_UP;
                name_node(x, "nvs", x->index - n_sw);
            }
        }
    }
}

static node *sw_at(net *n, uint32_t idx) { return &n->nodes[n->n_hosts + idx]; }

static void set_tier(net *n, uint32_t first, uint32_t count, enum switch_tier t, const char *p)
{
    for (uint32_t i = 0; i < count; i++) {
        node *x = sw_at(n, first + i);
        x->tier = t;
        name_node(x, p, i);
    }
}

static bool want_scale_up(const cfg_fabric *f)
{
    return f->preset != PRESET_CUSTOM && f->scale_up_bps > 0 && fabric_shape(f).hosts_per_server > 1;
}

static uint64_t ull(uint64_t x) { return x; }

static int build_single_switch(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint64_t hosts = fabric_shape(f).hosts;
    if (hosts > f->leaf_radix)
        return config_error_at(sc, e, "fabric.leaf_radix",
                               "fabric.leaf_radix: single-switch needs a port per host: %llu hosts "
                               "need leaf_radix >= %llu, got %u",
                               (unsigned long long)ull(hosts), (unsigned long long)ull(hosts),
                               f->leaf_radix);
    alloc_nodes(n, (uint32_t)hosts, 1, want_scale_up(f));
    set_tier(n, 0, 1, TIER_LEAF, "sw");
    for (uint32_t h = 0; h < hosts; h++)
        edges_add(el, h, sw_at(n, 0)->id, f->host_link_bps, f->link_latency_ps);
    return 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/*
 * Split leaf_radix into D downlinks (host_link) and U uplinks (fabric_link) so that the
 * bandwidths stand in the oversubscription ratio d:u — D·host : U·fabric = d : u — as
 * architects state it (ports × speeds). The smallest such split is D0 = fabric·d/g,
 * U0 = host·u/g (g their gcd); the leaf takes as many of these as fit its radix, so the
 * ports that no whole multiple reaches stay unused (64 ports at 2:1 with 400G down and 800G up:
 * D0:U0 = 4:1, 12 of them, 48 × 400G : 12 × 800G = 19.2 : 9.6 Tbps, 4 ports unused).
 */
static int leaf_split(net *n, uint32_t *down, uint32_t *up, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint32_t d = f->oversub_down, u = f->oversub_up;
    uint64_t gs = gcd64(f->host_link_bps, f->fabric_link_bps);
    unsigned __int128 a = (unsigned __int128)(f->fabric_link_bps / gs) * d;
    unsigned __int128 b = (unsigned __int128)(f->host_link_bps / gs) * u;
    unsigned __int128 x = a, y = b;
    while (y) {
        unsigned __int128 t = x % y;
        x = y;
        y = t;
    }
    a /= x;
    b /= x;
    if (a + b > f->leaf_radix)
        return config_error_at(sc, e, "fabric.oversubscription",
                               "fabric.oversubscription: %u:%u with %.0fG host links and %.0fG "
                               "fabric links needs %llu downlink and %llu uplink ports per leaf "
                               "at least, more than leaf_radix %u; use leaf_radix >= %llu or a "
                               "ratio whose ports fit",
                               d, u, (double)f->host_link_bps / 1e9,
                               (double)f->fabric_link_bps / 1e9, (unsigned long long)a,
                               (unsigned long long)b, f->leaf_radix, (unsigned long long)(a + b));
    uint32_t m = (uint32_t)(f->leaf_radix / (uint32_t)(a + b));
    *down = m * (uint32_t)a;
    *up = m * (uint32_t)b;
    return 0;
}

/* The divisors of x, ascending, as text ("1, 2, 4") for error messages. */
static void divisors_text(uint32_t x, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 1; i <= x && k + 12 < len; i++)
        if (x % i == 0)
            k += (size_t)snprintf(buf + k, len - k, "%s%u", k ? ", " : "", i);
}

/*
 * Spines per pod (and plane) and parallel links from each leaf to each spine. Default: as many
 * spines as a leaf has uplinks, each joining every leaf of the pod once — the Clos rule that
 * gives every leaf uplink its own spine and the most spines (ECMP width, failure domains) the
 * leaves allow; spine_radix limits the leaves a pod can hold (rail-optimized adds a super-spine
 * tier with pods > 1). `fabric.spines` sets fewer, fuller spines: up/spines parallel links from
 * every leaf to each (NVIDIA DGX SuperPOD H100: 32 leaves × 32 uplinks on 16 64-port spines,
 * two links per leaf and spine); it must divide up.
 */
static int spine_count(net *n, uint32_t up, uint32_t leaves_per_pod, uint32_t *spines,
                       uint32_t *par, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint32_t mult = f->pods > 1 ? 2 : 1;
    char divs[200];
    if (f->spines && up % f->spines != 0) {
        divisors_text(up, divs, sizeof divs);
        return config_error_at(sc, e, "fabric.spines",
                               "fabric.spines: %u uplinks per leaf cannot be spread evenly over %u "
                               "spines; use one of %s, or 0 for one spine per uplink",
                               up, f->spines, divs);
    }
    *spines = f->spines ? f->spines : up;
    *par = up / *spines;
    uint64_t need = (uint64_t)leaves_per_pod * *par * mult;
    if (need > f->spine_radix) {
        if (f->spines)
            return config_error_at(sc, e, "fabric.spine_radix",
                                   "fabric.spine_radix: %u leaves x %u link(s) to each of %u "
                                   "spines%s need spine_radix >= %llu, got %u; use more spines "
                                   "(spines: %u gives one link each) or a bigger spine_radix",
                                   leaves_per_pod, *par, *spines,
                                   mult > 1 ? ", plus as many uplinks," : "",
                                   (unsigned long long)need, f->spine_radix, up);
        return config_error_at(sc, e, "fabric.spine_radix",
                               "fabric.spine_radix: %u leaves x 1 link to each spine%s need "
                               "spine_radix >= %llu, got %u; use spine_radix >= %llu%s or fewer "
                               "servers",
                               leaves_per_pod, mult > 1 ? ", plus as many uplinks," : "",
                               (unsigned long long)need, f->spine_radix, (unsigned long long)need,
                               f->preset == PRESET_RAIL_OPTIMIZED && mult == 1
                                   ? ", pods > 1 (a super-spine tier)"
                                   : "");
    }
    return 0;
}

static int build_leaf_spine(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint64_t hosts = fabric_shape(f).hosts;
    uint32_t P = f->planes, down, up, spines, par;
    if (f->pods > 1)
        return config_error_at(sc, e, "fabric.pods",
                               "fabric.pods: leaf-spine is 2-tier; use preset rail-optimized or "
                               "fat-tree for a super-spine tier");
    if (leaf_split(n, &down, &up, e))
        return e->code;
    /* plane q holds port q of every NIC (hosts h with h mod P = q), in host order */
    uint64_t per_plane = hosts / P;
    uint32_t lpp = (uint32_t)((per_plane + down - 1) / down);
    if (spine_count(n, up, lpp, &spines, &par, e))
        return e->code;
    uint32_t leaves = lpp * P;
    alloc_nodes(n, (uint32_t)hosts, leaves + spines * P, want_scale_up(f));
    set_tier(n, 0, leaves, TIER_LEAF, "leaf");
    set_tier(n, leaves, spines * P, TIER_SPINE, "spine");
    for (uint32_t h = 0; h < hosts; h++)
        edges_add(el, h, sw_at(n, (h % P) * lpp + (uint32_t)((h / P) / down))->id, f->host_link_bps,
                  f->link_latency_ps);
    for (uint32_t l = 0; l < leaves; l++)
        for (uint32_t s = 0; s < spines; s++)
            for (uint32_t k = 0; k < par; k++)
                edges_add(el, sw_at(n, l)->id, sw_at(n, leaves + (l / lpp) * spines + s)->id,
                          f->fabric_link_bps, f->link_latency_ps);
    return 0;
}

/* The largest divisor of x that is at most cap (≥ 1). */
static uint32_t largest_divisor(uint32_t x, uint32_t cap)
{
    for (uint32_t d = cap < x ? cap : x; d > 1; d--)
        if (x % d == 0)
            return d;
    return 1;
}

/* Rail-optimized (with spines, pods) and rail-only (no spines). */
static int build_rails(net *n, edge_list *el, err *e, bool rail_only)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    shape sh = fabric_shape(f);
    uint32_t rails = sh.nics_per_server, rpl = f->rails_per_leaf, np = f->nic_ports;
    uint32_t down, up = 0;
    if (rpl > rails || rails % rpl != 0) {
        char divs[200];
        divisors_text(rails, divs, sizeof divs);
        return config_error_at(sc, e, "fabric.rails_per_leaf",
                               "fabric.rails_per_leaf: %u rails per leaf must divide the %u rails "
                               "(NICs per server = gpus_per_server / gpus_per_nic); use one of %s",
                               rpl, rails, divs);
    }
    if (rail_only) {
        down = f->leaf_radix;
    } else if (leaf_split(n, &down, &up, e)) {
        return e->code;
    }
    if (down < rpl)
        return config_error_at(sc, e, "fabric.leaf_radix",
                               "fabric.leaf_radix: %u cannot hold %u rails + %u uplinks (%u "
                               "downlink ports at %u:%u); use leaf_radix >= %u or rails_per_leaf "
                               "%u",
                               f->leaf_radix, rpl, up, down, f->oversub_down, f->oversub_up,
                               f->leaf_radix * ((rpl + down - 1) / down),
                               largest_divisor(rails, down));
    if (down % rpl != 0)
        return config_error_at(sc, e, "fabric.rails_per_leaf",
                               "fabric.rails_per_leaf: %u downlink ports per leaf do not split "
                               "evenly into %u rails; use a rails_per_leaf that divides both %u "
                               "and the %u rails, or a leaf_radix whose downlinks it divides",
                               down, rpl, down, rails);
    uint32_t su_servers = down / rpl;               /* servers per scalable unit */
    uint32_t su_leaves = (rails / rpl) * np;
    uint32_t n_su = (f->servers + su_servers - 1) / su_servers;
    if (rail_only && n_su > 1)
        return config_error_at(sc, e, "fabric.leaf_radix",
                               "fabric.leaf_radix: rail-only has no spine, so each rail must fit on "
                               "one leaf: %u servers x %u rail(s) per leaf need leaf_radix >= %llu, "
                               "got %u",
                               f->servers, rpl, (unsigned long long)f->servers * rpl,
                               f->leaf_radix);
    uint32_t pods = rail_only ? 1 : f->pods;
    if (n_su < pods || n_su % pods != 0)
        return config_error_at(sc, e, "fabric.pods",
                               "fabric.pods: %u scalable unit(s) of %u servers cannot be split "
                               "evenly into %u pods; use servers: %llu (whole SUs in every pod) "
                               "or pods dividing %u",
                               n_su, su_servers, pods,
                               (unsigned long long)((n_su + pods - 1) / pods) * pods * su_servers,
                               n_su);
    uint32_t su_per_pod = n_su / pods;
    uint32_t leaves_per_pod = su_per_pod * su_leaves, leaves = leaves_per_pod * pods;
    /* Dual-plane (planes = nic_ports = 2): leaf l serves NIC port l mod nic_ports, so the
     * leaves of fabric plane q are those with l mod 2 = q; each plane gets its own spines (and
     * super-spines), and no link joins two planes. */
    uint32_t P = f->planes;
    uint32_t spines = 0, par = 0, plane = 0, par2 = 0;
    if (!rail_only) {
        if (spine_count(n, up, leaves_per_pod / P, &spines, &par, e))
            return e->code;
        if (pods > 1) {
            /* Each spine has `sup` uplinks (1:1). Plane i's super-spines each take `par2`
             * parallel links from spine i of every pod; the smallest plane that fits the radix. */
            uint32_t sup = leaves_per_pod / P * par;
            for (plane = 1; plane <= sup; plane++)
                if (sup % plane == 0 && (uint64_t)pods * (sup / plane) <= f->spine_radix)
                    break;
            if (plane > sup)
                return config_error_at(sc, e, "fabric.pods",
                                       "fabric.pods: %u pods need super-spines with at least %u "
                                       "ports, but spine_radix is %u; use spine_radix >= %u or "
                                       "at most %u pods",
                                       pods, pods, f->spine_radix, pods, f->spine_radix);
            par2 = sup / plane;
        }
    }
    spines *= P; /* per pod, over all planes: spine s of a pod belongs to plane s / (spines/P) */
    uint32_t n_spines = spines * pods, n_super = pods > 1 ? spines * plane : 0;
    alloc_nodes(n, (uint32_t)sh.hosts, leaves + n_spines + n_super, want_scale_up(f));
    set_tier(n, 0, leaves, TIER_LEAF, "leaf");
    set_tier(n, leaves, n_spines, TIER_SPINE, "spine");
    set_tier(n, leaves + n_spines, n_super, TIER_SUPER_SPINE, "super");
    for (uint32_t h = 0; h < sh.hosts; h++) {
        const node *x = n->hosts[h];
        uint32_t su = x->server / su_servers;
        uint32_t leaf = su * su_leaves + (x->rail / rpl) * np + h % np;
        edges_add(el, h, sw_at(n, leaf)->id, f->host_link_bps, f->link_latency_ps);
    }
    uint32_t spp = spines / (P ? P : 1); /* spines of one plane in one pod */
    for (uint32_t p = 0; p < pods && !rail_only; p++)
        for (uint32_t l = 0; l < leaves_per_pod; l++)
            for (uint32_t s = 0; s < spp; s++)
                for (uint32_t k = 0; k < par; k++)
                    edges_add(el, sw_at(n, p * leaves_per_pod + l)->id,
                              sw_at(n, leaves + p * spines + (l % P) * spp + s)->id,
                              f->fabric_link_bps, f->link_latency_ps);
    if (n_super)
        for (uint32_t pod = 0; pod < pods; pod++)
            for (uint32_t s = 0; s < spines; s++)
                for (uint32_t q = 0; q < plane; q++)
                    for (uint32_t k = 0; k < par2; k++)
                        edges_add(el, sw_at(n, leaves + pod * spines + s)->id,
                                  sw_at(n, leaves + n_spines + s * plane + q)->id,
                                  f->fabric_link_bps, f->link_latency_ps);
    n->hosts_relay = rail_only;
    return 0;
}

static int build_fat_tree(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint32_t k = f->k, h2 = k / 2;
    uint64_t want = (uint64_t)k * k * k / 4;
    uint64_t hosts = fabric_shape(f).hosts;
    if (hosts != want)
        return config_error_at(sc, e, "fabric.k",
                               "fabric.k: a k=%u fat tree has k^3/4 = %llu hosts, but servers x "
                               "NIC ports give %llu; set servers so they match",
                               k, (unsigned long long)want, (unsigned long long)hosts);
    uint32_t leaves = k * h2, aggs = k * h2, cores = h2 * h2;
    alloc_nodes(n, (uint32_t)hosts, leaves + aggs + cores, want_scale_up(f));
    set_tier(n, 0, leaves, TIER_LEAF, "leaf");
    set_tier(n, leaves, aggs, TIER_SPINE, "spine");
    set_tier(n, leaves + aggs, cores, TIER_SUPER_SPINE, "super");
    for (uint32_t h = 0; h < hosts; h++)
        edges_add(el, h, sw_at(n, h / h2)->id, f->host_link_bps, f->link_latency_ps);
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t a = 0; a < h2; a++) {
            uint32_t agg = pod * h2 + a;
            for (uint32_t l = 0; l < h2; l++)
                edges_add(el, sw_at(n, pod * h2 + l)->id, sw_at(n, leaves + agg)->id,
                          f->fabric_link_bps, f->link_latency_ps);
            /* aggregation switch a of every pod connects to core group a */
            for (uint32_t c = 0; c < h2; c++)
                edges_add(el, sw_at(n, leaves + agg)->id, sw_at(n, leaves + aggs + a * h2 + c)->id,
                          f->fabric_link_bps, f->link_latency_ps);
        }
    return 0;
}

static int build_custom(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    if (f->n_custom_hosts == 0)
        return config_error_at(sc, e, "fabric.custom.hosts",
                               "fabric.custom.hosts: a custom fabric needs at least one host");
    /* node id of a name: hosts first, then switches */
    name_map ids;
    names_init(&ids, f->n_custom_hosts + f->n_custom_switches);
    for (uint32_t i = 0; i < f->n_custom_hosts + f->n_custom_switches; i++) {
        const char *a = i < f->n_custom_hosts ? f->custom_hosts[i].name
                                              : f->custom_switches[i - f->n_custom_hosts].name;
        if (strlen(a) >= sizeof(((node *)0)->name)) {
            names_free(&ids);
            return config_error_at(sc, e, "fabric.custom",
                                   "fabric.custom: name \"%s\" is longer than %zu characters", a,
                                   sizeof(((node *)0)->name) - 1);
        }
        if (names_put(&ids, a, i) != NAMES_NONE) {
            names_free(&ids);
            return config_error_at(sc, e, "fabric.custom",
                                   "fabric.custom: name \"%s\" is used twice", a);
        }
    }
    alloc_nodes(n, f->n_custom_hosts, f->n_custom_switches, false);
    uint32_t gpu = 0;
    for (uint32_t i = 0; i < f->n_custom_hosts; i++) {
        node *x = n->hosts[i];
        snprintf(x->name, sizeof x->name, "%s", f->custom_hosts[i].name);
        x->gpu = gpu;
        gpu += f->custom_hosts[i].gpus;
    }
    for (uint32_t i = 0; i < f->n_custom_switches; i++) {
        node *x = sw_at(n, i);
        x->tier = TIER_LEAF;
        snprintf(x->name, sizeof x->name, "%s", f->custom_switches[i].name);
    }
    int rc = 0;
    for (uint32_t i = 0; i < f->n_custom_links && !rc; i++) {
        const cfg_custom_link *l = &f->custom_links[i];
        uint32_t a = names_get(&ids, l->a), b = names_get(&ids, l->b);
        if (a == NAMES_NONE || b == NAMES_NONE)
            rc = err_set(e, ERR_INVALID, sc->file, l->line, l->col,
                         "fabric.custom.links[%u]: unknown node \"%s\" (not a listed switch or "
                         "host)",
                         i, a == NAMES_NONE ? l->a : l->b);
        else if (a == b)
            rc = err_set(e, ERR_INVALID, sc->file, l->line, l->col,
                         "fabric.custom.links[%u]: a link from \"%s\" to itself", i, l->a);
        else if (a < f->n_custom_hosts && b < f->n_custom_hosts)
            rc = err_set(e, ERR_INVALID, sc->file, l->line, l->col,
                         "fabric.custom.links[%u]: hosts \"%s\" and \"%s\" cannot be linked "
                         "directly; connect each to a switch",
                         i, l->a, l->b);
        else
            edges_add(el, a, b, l->speed_bps ? l->speed_bps : f->fabric_link_bps,
                      l->latency_ps != SIM_TIME_MAX ? l->latency_ps : f->link_latency_ps);
    }
    names_free(&ids);
    return rc;
}

/* A custom fabric's switches are all tagged leaves; for the ECMP hash offset (lb.c) each gets
 * its hops from the nearest host instead (1 = next to a host, 2 = above those, ...), by a
 * breadth-first walk from the hosts over switch links, scale-up domains left out. */
static void custom_hop_ranks(net *n)
{
    uint32_t *queue = xmalloc(sizeof(uint32_t) * (n->n_switches ? n->n_switches : 1), "hop ranks");
    uint32_t head = 0, tail = 0;
    for (uint32_t h = 0; h < (n->n_an ? n->an_host0 : n->n_hosts); h++) /* not the SHARP ANs */
        for (uint32_t k = 0; k < n->hosts[h]->n_ports; k++) {
            const port *p = &n->hosts[h]->ports[k];
            node *sw = p->peer ? p->peer->owner : NULL;
            if (sw && sw->kind == NODE_SWITCH && sw->tier != TIER_SCALE_UP && !sw->hop_rank) {
                sw->hop_rank = 1;
                queue[tail++] = sw->index;
            }
        }
    while (head < tail) {
        const node *sw = n->switches[queue[head++]];
        for (uint32_t k = 0; k < sw->n_ports; k++) {
            const port *p = &sw->ports[k];
            node *o = p->peer ? p->peer->owner : NULL;
            if (o && o->kind == NODE_SWITCH && o->tier != TIER_SCALE_UP && !o->hop_rank) {
                o->hop_rank = (uint8_t)(sw->hop_rank < 255 ? sw->hop_rank + 1 : 255);
                queue[tail++] = o->index;
            }
        }
    }
    xfree(queue);
}

/*
 * Storage and frontend networks (fabric.storage, fabric.frontend). Each is a separate 2-tier
 * Clos (or one switch when every port fits one leaf) with its own leaves and spines: no link
 * joins it to the backend, so shortest-path routing never crosses from one network to another.
 * A GPU server gets one extra host on it (its storage or frontend NIC, no GPU behind it in the
 * network model); a storage server is a host with no GPUs. Converged storage (storage.nic:
 * converged) builds no storage NICs: the storage servers sit on storage leaves cabled to every
 * backend spine (single-switch: on the switch itself), so storage traffic leaves the GPU servers
 * through their backend NICs and shares the backend fabric with the collectives.
 *
 * Leaf sizing: a leaf of radix R gives U ports to uplinks (one to each of U spines) and R − U
 * to hosts, U the fewest whose bandwidth keeps downlinks : uplinks at or below the network's
 * oversubscription; GPU-server NICs and storage servers fill separate leaves ("storage servers
 * on their own leaves"), in order.
 */
typedef struct xclos {
    uint32_t down;               /* host ports per leaf */
    uint32_t leaves_a, leaves_b; /* leaves of the clients, of the storage servers */
    uint32_t spines;             /* 0 = one switch holds every host */
} xclos;

static int xclos_plan(net *n, const char *key, const cfg_xnet *x, uint32_t n_a, uint64_t bps_a,
                      uint32_t n_b, uint64_t bps_b, xclos *c, err *e)
{
    const scenario *sc = n->sc;
    char k[64];
    memset(c, 0, sizeof *c);
    if ((uint64_t)n_a + n_b <= x->leaf_radix) {
        c->down = x->leaf_radix;
        c->leaves_a = 1;
        return 0;
    }
    uint64_t top = bps_a > bps_b ? bps_a : bps_b;
    uint32_t R = x->leaf_radix, U = 1;
    while (U < R && (unsigned __int128)(R - U) * top * x->oversub_up >
                        (unsigned __int128)U * x->fabric_link_bps * x->oversub_down)
        U++;
    if (U >= R) {
        snprintf(k, sizeof k, "fabric.%s.oversubscription", key);
        return config_error_at(sc, e, k,
                               "fabric.%s.oversubscription: %u:%u cannot be met by a %u-port leaf "
                               "with %.0fG host and %.0fG fabric links; raise the ratio or use "
                               "faster fabric_link",
                               key, x->oversub_down, x->oversub_up, R, (double)top / 1e9,
                               (double)x->fabric_link_bps / 1e9);
    }
    c->down = R - U;
    c->spines = U;
    c->leaves_a = (n_a + c->down - 1) / c->down;
    c->leaves_b = (n_b + c->down - 1) / c->down;
    if (c->leaves_a + c->leaves_b > x->spine_radix) {
        snprintf(k, sizeof k, "fabric.%s.spine_radix", key);
        return config_error_at(sc, e, k,
                               "fabric.%s.spine_radix: %u leaves (%u host ports and %u uplinks "
                               "each) need spine_radix >= %u, got %u",
                               key, c->leaves_a + c->leaves_b, c->down, U,
                               c->leaves_a + c->leaves_b, x->spine_radix);
    }
    return 0;
}

static node *new_switch(net *n, uint32_t idx, enum switch_tier t, const char *p, uint32_t i,
                        enum network_id w)
{
    node *x = sw_at(n, idx);
    x->tier = t;
    x->network = (uint8_t)w;
    name_node(x, p, i);
    return x;
}

/* The edges of one Clos planned by xclos_plan: clients host a0.. on the first leaves, storage
 * servers b0.. on the next, every leaf once to every spine. first_sw = its first switch. */
static void xclos_wire(net *n, edge_list *el, const xclos *c, const cfg_xnet *x, uint32_t first_sw,
                       const char *lp, const char *sp, enum network_id w, uint32_t a0, uint32_t n_a,
                       uint64_t bps_a, uint32_t b0, uint32_t n_b, uint64_t bps_b)
{
    const cfg_fabric *f = &n->sc->fabric;
    uint32_t L = c->leaves_a + c->leaves_b;
    for (uint32_t l = 0; l < L; l++)
        new_switch(n, first_sw + l, TIER_LEAF, lp, l, w);
    for (uint32_t s = 0; s < c->spines; s++)
        new_switch(n, first_sw + L + s, TIER_SPINE, sp, s, w);
    for (uint32_t i = 0; i < n_a; i++)
        edges_add(el, a0 + i, sw_at(n, first_sw + i / c->down)->id, bps_a, f->link_latency_ps);
    for (uint32_t i = 0; i < n_b; i++) {
        uint32_t l = c->spines ? c->leaves_a + i / c->down : 0;
        edges_add(el, b0 + i, sw_at(n, first_sw + l)->id, bps_b, f->link_latency_ps);
    }
    for (uint32_t l = 0; l < L; l++)
        for (uint32_t s = 0; s < c->spines; s++)
            edges_add(el, sw_at(n, first_sw + l)->id, sw_at(n, first_sw + L + s)->id,
                      x->fabric_link_bps, f->link_latency_ps);
}

static int add_networks(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    const cfg_xnet *st = &f->storage, *fe = &f->frontend;
    uint32_t B = n->n_hosts, S = n->n_servers;
    n->n_backend_hosts = B;
    n->stor_nic0 = n->stor_srv0 = n->fe_nic0 = UINT32_MAX;
    n->n_stor_srv = 0;
    if (!st->on && !fe->on)
        return 0;
    const char *key = st->on ? "fabric.storage" : "fabric.frontend";
    if (f->preset == PRESET_CUSTOM)
        return config_error_at(sc, e, key,
                               "%s: a custom fabric lists its own hosts and links; storage and "
                               "frontend networks are built for the presets (list the storage "
                               "servers and their switches in fabric.custom instead)",
                               key);
    uint32_t nsw_old = n->n_switches, nvs = want_scale_up(f) ? S : 0, nsw_pre = nsw_old - nvs;
    /* hosts */
    bool ded = st->on && !st->converged;
    uint32_t xh = 0, snic0 = UINT32_MAX, ssrv0 = UINT32_MAX, fnic0 = UINT32_MAX;
    if (ded) {
        snic0 = B + xh;
        xh += S;
    }
    if (st->on) {
        ssrv0 = B + xh;
        xh += st->servers;
    }
    if (fe->on) {
        fnic0 = B + xh;
        xh += S;
    }
    /* switches */
    xclos cs = {0}, cf = {0};
    uint32_t conv_leaves = 0, conv_down = 0, n_spines = 0;
    uint32_t *spine_ids = NULL;
    if (ded &&
        xclos_plan(n, "storage", st, S, st->nic_bps, st->servers, st->server_link_bps, &cs, e))
        return e->code;
    if (st->on && st->converged) {
        bool single = f->preset == PRESET_SINGLE_SWITCH;
        if (!single && (f->preset == PRESET_FAT_TREE || f->preset == PRESET_RAIL_ONLY ||
                        f->pods > 1 || f->planes > 1))
            return config_error_at(sc, e, "fabric.storage.nic",
                                   "fabric.storage.nic: converged storage puts the storage leaves "
                                   "under the backend spines, built for presets single-switch, "
                                   "leaf-spine and rail-optimized with pods: 1 and planes: 1 (got "
                                   "%s); use nic: dedicated",
                                   preset_name(f->preset));
        uint32_t *deg = xcalloc(nsw_old ? nsw_old : 1, sizeof(uint32_t), "spine ports");
        for (uint32_t i = 0; i < el->n; i++) {
            if (el->e[i].a >= B)
                deg[el->e[i].a - B]++;
            if (el->e[i].b >= B)
                deg[el->e[i].b - B]++;
        }
        if (single) {
            if (deg[0] + st->servers > f->leaf_radix) {
                xfree(deg);
                return config_error_at(sc, e, "fabric.storage.servers",
                                       "fabric.storage.servers: converged storage on a "
                                       "single-switch fabric puts the %u storage servers on the "
                                       "switch, which has %u of its %u ports free; use fewer "
                                       "servers or a bigger leaf_radix",
                                       st->servers, f->leaf_radix - deg[0], f->leaf_radix);
            }
        } else {
            spine_ids = xmalloc(sizeof(uint32_t) * (nsw_pre ? nsw_pre : 1), "spines");
            uint32_t worst = 0;
            for (uint32_t k = 0; k < nsw_pre; k++)
                if (n->nodes[B + k].tier == TIER_SPINE) {
                    spine_ids[n_spines++] = k;
                    worst = deg[k] > worst ? deg[k] : worst;
                }
            uint64_t per = (uint64_t)n_spines * f->fabric_link_bps * st->oversub_down /
                           ((uint64_t)st->server_link_bps * st->oversub_up);
            conv_down = st->leaf_radix > n_spines ? st->leaf_radix - n_spines : 0;
            if (per < conv_down)
                conv_down = (uint32_t)per;
            if (!n_spines || !conv_down) {
                xfree(deg);
                xfree(spine_ids);
                return config_error_at(sc, e, "fabric.storage.leaf_radix",
                                       "fabric.storage.leaf_radix: a storage leaf under the %u "
                                       "backend spines has no port left for a storage server at "
                                       "%u:%u; use a bigger leaf_radix or a higher "
                                       "oversubscription",
                                       n_spines, st->oversub_down, st->oversub_up);
            }
            conv_leaves = (st->servers + conv_down - 1) / conv_down;
            if (worst + conv_leaves > f->spine_radix) {
                xfree(deg);
                xfree(spine_ids);
                return config_error_at(sc, e, "fabric.storage.servers",
                                       "fabric.storage.servers: converged storage needs %u "
                                       "storage leaves under every backend spine, which has %u "
                                       "of its spine_radix %u ports free; use fewer storage "
                                       "servers, a bigger spine_radix or nic: dedicated",
                                       conv_leaves, f->spine_radix - worst, f->spine_radix);
            }
        }
        xfree(deg);
    }
    if (fe->on && xclos_plan(n, "frontend", fe, S, fe->nic_bps, 0, 0, &cf, e)) {
        xfree(spine_ids);
        return e->code;
    }
    uint32_t xs_st = cs.leaves_a + cs.leaves_b + cs.spines + conv_leaves;
    uint32_t xs = xs_st + cf.leaves_a + cf.spines;
    /* re-lay the nodes: hosts (backend, then the new ones), preset switches, the new switches,
     * scale-up domains last (add_scale_up finds them there) */
    uint32_t NH = B + xh, NS = nsw_old + xs;
    node *old = n->nodes;
    n->n_hosts = NH;
    n->n_switches = NS;
    n->n_nodes = NH + NS;
    n->nodes = nodes_alloc(n);
    n->hosts = ARENA_NEW_ARRAY(&n->mem, node *, NH);
    n->switches = ARENA_NEW_ARRAY(&n->mem, node *, NS);
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        node *x = &n->nodes[i];
        if (i < B) {
            *x = old[i];
        } else if (i >= NH) {
            uint32_t k = i - NH;
            if (k < nsw_pre)
                *x = old[B + k];
            else if (k >= nsw_pre + xs)
                *x = old[B + k - xs];
            else
                x->kind = NODE_SWITCH;
            x->index = k;
            n->switches[k] = x;
        } else {
            uint32_t h = i;
            x->kind = NODE_HOST;
            x->index = h;
            x->ip = net_host_ip(h);
            x->rail = 0;
            if (h >= fnic0) {
                x->network = NETWORK_FRONTEND;
                x->server = h - fnic0;
                name_node(x, "fnic", x->server);
            } else if (h >= ssrv0) {
                x->network = NETWORK_STORAGE;
                x->server = S + (h - ssrv0); /* a server of its own, after the GPU servers */
                name_node(x, "stor", h - ssrv0);
            } else {
                x->network = NETWORK_STORAGE;
                x->server = h - snic0;
                name_node(x, "snic", x->server);
            }
            x->gpu = x->server < S ? x->server * f->gpus_per_server : 0;
        }
        if (i < NH)
            n->hosts[i] = x;
        x->id = i;
        x->owner = n;
        if (i >= B && (i < NH || (i - NH >= nsw_pre && i - NH < nsw_pre + xs)))
            x->net_port = x->nvl_port = UINT32_MAX;
    }
    /* the preset's edges, renumbered */
    for (uint32_t i = 0; i < el->n; i++) {
        uint32_t *ends[2] = {&el->e[i].a, &el->e[i].b};
        for (int s = 0; s < 2; s++)
            if (*ends[s] >= B) {
                uint32_t k = *ends[s] - B;
                *ends[s] = NH + (k < nsw_pre ? k : k + xs);
            }
    }
    uint32_t sw0 = nsw_pre;
    if (ded)
        xclos_wire(n, el, &cs, st, sw0, "sleaf", "sspine", NETWORK_STORAGE, snic0, S, st->nic_bps,
                   ssrv0, st->servers, st->server_link_bps);
    if (st->on && st->converged) {
        if (!n_spines) /* single-switch: the storage servers on the switch */
            for (uint32_t i = 0; i < st->servers; i++)
                edges_add(el, ssrv0 + i, sw_at(n, 0)->id, st->server_link_bps, f->link_latency_ps);
        for (uint32_t l = 0; l < conv_leaves; l++) {
            node *leaf = new_switch(n, sw0 + l, TIER_LEAF, "sleaf", l, NETWORK_STORAGE);
            for (uint32_t s = 0; s < n_spines; s++)
                edges_add(el, leaf->id, sw_at(n, spine_ids[s])->id, f->fabric_link_bps,
                          f->link_latency_ps);
        }
        for (uint32_t i = 0; i < st->servers && n_spines; i++)
            edges_add(el, ssrv0 + i, sw_at(n, sw0 + i / conv_down)->id, st->server_link_bps,
                      f->link_latency_ps);
    }
    if (fe->on)
        xclos_wire(n, el, &cf, fe, sw0 + xs_st, "fleaf", "fspine", NETWORK_FRONTEND, fnic0, S,
                   fe->nic_bps, 0, 0, 0);
    xfree(spine_ids);
    n->stor_nic0 = snic0;
    n->stor_srv0 = ssrv0;
    n->n_stor_srv = st->on ? st->servers : 0;
    n->fe_nic0 = fnic0;
    return 0;
}

uint32_t net_storage_client(const net *n, uint32_t gpu)
{
    if (n->stor_srv0 == UINT32_MAX || gpu >= net_gpus(n))
        return UINT32_MAX;
    if (n->stor_nic0 != UINT32_MAX)
        return n->stor_nic0 + gpu / n->sc->fabric.gpus_per_server;
    return net_gpu_host(n, gpu, 0);
}

/*
 * SHARP (Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP)", COMHPC'16 §3;
 * NVIDIA SHARP documentation). Each backend fabric switch gets an aggregation node (AN): the
 * switch ASIC's reduction engine, an InfiniBand end point behind the switch's internal port
 * (port 0), which terminates the reliable connections of the aggregation trees it belongs to.
 * Modelled as a host (hosts an_host0 + k, after every other host) joined to its switch by an
 * internal link with no cable delay, at the sum of the switch's other ports' rates: the engine
 * aggregates at wire speed on every port at once (SHARPv2 streaming aggregation, Graham et al.,
 * ISC'20), so it is never the bottleneck; a frame to it and the reduced frame from it each
 * cross the switch pipeline (the reduction latency of the ALU is taken as one pipeline). On
 * InfiniBand its input buffer is a VL buffer per port of its switch (ib_setup).
 * Built only for a simulation (`route`) of a scenario with a sharp collective, so `plan` and
 * `check` never count them as cabled ports.
 */
static bool sharp_wanted(const scenario *sc)
{
    for (uint32_t j = 0; j < sc->n_jobs; j++)
        if (sc->jobs[j].kind == JOB_COLLECTIVE &&
            (sc->jobs[j].algorithm == ALGO_SHARP ||
             (sc->jobs[j].algorithm == ALGO_NVLS_TREE && sc->sw.sharp)))
            return true;
    return false;
}

static void add_sharp(net *n, edge_list *el)
{
    uint32_t NH = n->n_hosts, NS = n->n_switches;
    uint64_t *rate = xcalloc(NS ? NS : 1, sizeof(uint64_t), "switch capacities");
    for (uint32_t i = 0; i < el->n; i++) {
        if (el->e[i].a >= NH)
            rate[el->e[i].a - NH] += el->e[i].bps;
        if (el->e[i].b >= NH)
            rate[el->e[i].b - NH] += el->e[i].bps;
    }
    n->an_of_switch = ARENA_NEW_ARRAY(&n->mem, uint32_t, NS ? NS : 1);
    uint32_t na = 0;
    for (uint32_t k = 0; k < NS; k++) {
        const node *s = &n->nodes[NH + k];
        bool has = s->tier != TIER_SCALE_UP && s->network == NETWORK_BACKEND && rate[k];
        n->an_of_switch[k] = has ? NH + na++ : UINT32_MAX;
    }
    node *old = n->nodes;
    n->n_hosts = NH + na;
    n->n_nodes = n->n_hosts + NS;
    n->nodes = nodes_alloc(n);
    n->hosts = ARENA_NEW_ARRAY(&n->mem, node *, n->n_hosts);
    for (uint32_t i = 0; i < NH; i++) {
        n->nodes[i] = old[i];
        n->hosts[i] = &n->nodes[i];
    }
    for (uint32_t k = 0; k < NS; k++) {
        node *x = &n->nodes[NH + na + k];
        *x = old[NH + k];
        x->id = NH + na + k;
        n->switches[k] = x;
    }
    uint32_t srv = n->n_servers + n->n_stor_srv;
    for (uint32_t k = 0; k < NS; k++) {
        uint32_t h = n->an_of_switch[k];
        if (h == UINT32_MAX)
            continue;
        node *x = &n->nodes[h];
        x->kind = NODE_HOST;
        x->id = x->index = h;
        x->owner = n;
        x->ip = 0x0A000000u + 2u * h + 1u;
        x->network = NETWORK_BACKEND;
        x->server = srv + (h - NH); /* a server of its own, as a storage server */
        x->net_port = x->nvl_port = UINT32_MAX;
        /* "an_" + the switch's name, cut to the node name's room */
        snprintf(x->name, sizeof x->name, "an_%.20s", n->switches[k]->name);
        n->hosts[h] = x;
    }
    for (uint32_t i = 0; i < el->n; i++) {
        if (el->e[i].a >= NH)
            el->e[i].a += na;
        if (el->e[i].b >= NH)
            el->e[i].b += na;
    }
    for (uint32_t k = 0; k < NS; k++)
        if (n->an_of_switch[k] != UINT32_MAX)
            edges_add(el, n->an_of_switch[k], n->switches[k]->id, rate[k], 0);
    n->an_host0 = NH;
    n->n_an = na;
    xfree(rate);
}

/* Join each server's hosts to its scale-up switch (the last n_servers switches). */
static void add_scale_up(net *n, edge_list *el)
{
    const cfg_fabric *f = &n->sc->fabric;
    uint32_t first = n->n_switches - n->n_servers;
    /* Half the domain's latency on each side, so GPU to GPU takes scale_up.latency. */
    sim_time lat = f->scale_up_latency_ps / 2;
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) /* not the storage/frontend NICs */
        edges_add(el, h, sw_at(n, first + n->hosts[h]->server)->id,
                  f->scale_up_achieved_bps * f->gpus_per_nic, lat);
}

/* Allocate ports from the edge list and wire both directions of every link. */
static void wire(net *n, const edge_list *el)
{
    const cfg_fabric *f = &n->sc->fabric;
    uint32_t *deg = xcalloc(n->n_nodes, sizeof(uint32_t), "port counts");
    for (uint32_t i = 0; i < el->n; i++) {
        deg[el->e[i].a]++;
        deg[el->e[i].b]++;
    }
    n->n_ports = 2 * el->n;
    n->ports = ARENA_NEW_ARRAY(&n->mem, port *, n->n_ports ? n->n_ports : 1);
    /* the ports' cold blocks (net.h port_cold): calloc, so that the blocks never handed out
     * are zero pages never mapped (a fabric this large gets them by mmap) */
    n->cold = xcalloc(n->n_ports ? n->n_ports : 1, sizeof(port_cold), "port cold blocks");
    n->n_cold = 0;
    /* every port in one block aligned to a cache line, nodes' ports in node order: the hot
     * fields of a port are its first lines (net.h) */
    size_t slots = 0;
    for (uint32_t i = 0; i < n->n_nodes; i++)
        slots += deg[i] ? deg[i] : 1;
    uintptr_t block = (uintptr_t)arena_alloc(&n->mem, sizeof(port) * slots + 64);
    port *next_port = (port *)((block + 63) & ~(uintptr_t)63);
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        node *x = &n->nodes[i];
        x->ports = next_port;
        next_port += deg[i] ? deg[i] : 1;
        if (x->kind == NODE_SWITCH && x->tier != TIER_SCALE_UP)
            x->pipeline_ps = f->switch_latency_ps;
    }
    uint32_t pid = 0;
    for (uint32_t i = 0; i < el->n; i++) {
        const edge *ed = &el->e[i];
        node *a = &n->nodes[ed->a], *b = &n->nodes[ed->b];
        port *pa = &a->ports[a->n_ports], *pb = &b->ports[b->n_ports];
        pa->index = a->n_ports++;
        pb->index = b->n_ports++;
        pa->owner = a;
        pb->owner = b;
        pa->peer = pb;
        pb->peer = pa;
        pa->peer_owner = b;
        pb->peer_owner = a;
        SIM_ASSERT(pa->index <= UINT16_MAX && pb->index <= UINT16_MAX,
                   "a node has more than 65,536 ports (packet.in_port is 16-bit)");
        pa->peer_index = (uint16_t)pb->index;
        pb->peer_index = (uint16_t)pa->index;
        pa->rate_bps = pb->rate_bps = ed->bps;
        pa->prop_ps = pb->prop_ps = ed->lat_ps;
        pa->deliver_ps = ed->lat_ps + b->pipeline_ps;
        pb->deliver_ps = ed->lat_ps + a->pipeline_ps;
        pa->up = pb->up = true;
        net_port_init_events(pa);
        net_port_init_events(pb);
        pa->id = pid;
        n->ports[pid++] = pa;
        pb->id = pid;
        n->ports[pid++] = pb;
        if (a->kind == NODE_HOST)
            *(b->tier == TIER_SCALE_UP ? &a->nvl_port : &a->net_port) = pa->index;
        if (b->kind == NODE_HOST)
            *(a->tier == TIER_SCALE_UP ? &b->nvl_port : &b->net_port) = pb->index;
    }
    xfree(deg);
}

/*
 * PFC and scheduler set-up: lossless classes, XOFF, per-ingress headroom (configured, or `auto`
 * from the link's speed, cable and the receiving switch's pipeline), the shared pool that is
 * left once headroom is reserved, watchdog and deadlock parameters, DWRR quanta.
 */
static int pfc_setup(net *n, err *e)
{
    const scenario *sc = n->sc;
    const cfg_switch *c = &sc->sw;
    /* the largest frame on any link: with tenants, the VXLAN-encapsulated one (RFC 7348) */
    n->max_frame_bytes =
        wire_data_frame(sc->nic.mtu, 1) + (sc->n_tenants ? WIRE_VXLAN_OVERHEAD : 0);
    SIM_ASSERT(n->max_frame_bytes <= PKT_MAX_FRAME_BYTES, "a %u-byte frame does not fit a packet",
               n->max_frame_bytes);
    /* InfiniBand links are lossless by credits: no PFC (ib_setup) */
    n->lossless =
        c->pfc_enabled && sc->fabric.link_layer != LINK_INFINIBAND ? c->pfc_priorities : 0;
    n->pfc_xoff_bytes = c->pfc_xoff_bytes;
    n->pfc_xon_bytes = c->pfc_xon_bytes;
    n->pfc_xon_offset_bytes = c->pfc_xon_offset_bytes;
    n->wd_on = n->lossless != 0;
    n->wd_forward = c->wd_action == WD_FORWARD;
    n->wd_detect_ps = c->wd_detect_ps;
    n->wd_restore_ps = c->wd_restore_ps;
    n->deadlock_ps = n->lossless ? c->pfc_deadlock_ps : 0;
    n->dwrr = c->scheduler == SCHED_DWRR;
    for (int i = 0; i < NET_PRIOS; i++)
        n->drr_quantum[i] = (uint32_t)c->weights[i] * n->max_frame_bytes;
    n->dl_path = ARENA_NEW_ARRAY(&n->mem, uint32_t, n->n_ports + 1);
    n->dl_iter = ARENA_NEW_ARRAY(&n->mem, uint32_t, n->n_ports + 1);
    n->dl_mark = ARENA_NEW_ARRAY(&n->mem, uint8_t, n->n_ports + 1);
    net_init_events(n);
    uint32_t classes = (uint32_t)__builtin_popcount(n->lossless);
    for (uint32_t i = 0; i < n->n_switches; i++) {
        node *sw = n->switches[i];
        if (sw->tier == TIER_SCALE_UP || !classes)
            continue;
        uint64_t reserved = 0;
        for (uint32_t p = 0; p < sw->n_ports; p++) {
            port *ing = &sw->ports[p];
            ing->hdrm_bytes = c->pfc_headroom_bytes
                                  ? c->pfc_headroom_bytes
                                  : net_pfc_headroom_port(ing, n->max_frame_bytes);
            reserved += ing->hdrm_bytes * classes;
        }
        if (reserved >= sw->buf.size_bytes)
            return config_error_at(sc, e, "switch.buffer",
                                   "switch.buffer: %llu bytes cannot hold the PFC headroom of %s "
                                   "(%u ports x %u lossless class(es) = %llu bytes); use a bigger "
                                   "buffer or fewer lossless classes",
                                   (unsigned long long)sw->buf.size_bytes, sw->name, sw->n_ports,
                                   classes, (unsigned long long)reserved);
        sw->buf.size_bytes -= reserved;
    }
    return 0;
}

/*
 * InfiniBand set-up (net.h "InfiniBand"): credit gating on every link direction outside the
 * scale-up domain, each receiving port's VL buffer (fabric.infiniband.vl_buffer, or the credit
 * loop's need), the senders' initial credits, and IB CC marking. ECN and PFC stay off.
 */
static int ib_setup(net *n, err *e)
{
    const scenario *sc = n->sc;
    const cfg_ib *ib = &sc->fabric.ib;
    if (sc->fabric.link_layer != LINK_INFINIBAND)
        return 0;
    n->ib = true;
    n->ecn_on = false;
    n->ib_cc = sc->nic.cc == CC_IB; /* nic.cc none: no FECN marking either */
    n->ib_fecn_thr_bytes = ib->cc_threshold_bytes;
    n->ib_marking_rate = ib->marking_rate;
    n->deadlock_ps = ib->deadlock_ps;
    uint32_t need = ib_blocks(n->max_frame_bytes);
    if (ib->vl_buffer_bytes && ib->vl_buffer_bytes / IB_CREDIT_BYTES < need)
        return config_error_at(sc, e, "fabric.infiniband.vl_buffer",
                               "fabric.infiniband.vl_buffer: %llu bytes cannot hold one "
                               "maximum frame (%u bytes = %u credits of 64 bytes); use at least "
                               "%u bytes, or auto",
                               (unsigned long long)ib->vl_buffer_bytes, n->max_frame_bytes, need,
                               need * IB_CREDIT_BYTES);
    for (uint32_t i = 0; i < n->n_ports; i++) {
        port *p = n->ports[i];
        if (p->owner->tier != TIER_SCALE_UP && p->peer->owner->tier != TIER_SCALE_UP)
            net_port_ib_init(p, ARENA_NEW(&n->mem, port_ib));
    }
    for (uint32_t i = 0; i < n->n_ports; i++) {
        port *p = n->ports[i];
        if (!p->ib)
            continue;
        p->peer->ib->cap_blocks = ib->vl_buffer_bytes
                                      ? (uint32_t)(ib->vl_buffer_bytes / IB_CREDIT_BYTES)
                                      : net_ib_vl_blocks_auto(p, n->max_frame_bytes);
    }
    /* SHARP: an aggregation node takes frames from every port of its switch at once, so its
     * input buffer holds a VL buffer for each of them. One internal link's own credit loop (a
     * few frames, no cable) would be overrun by the children's synchronized chunks the moment
     * they arrive, and IB CC would mark FECN on a queue that is the engine's input, not a
     * congested link. */
    for (uint32_t k = 0; k < n->n_an; k++) {
        node *an = n->hosts[n->an_host0 + k];
        port *in = &an->ports[an->net_port];
        in->ib->cap_blocks *= in->peer->owner->n_ports - 1;
    }
    for (uint32_t i = 0; i < n->n_ports; i++) {
        port *p = n->ports[i];
        for (int c = 0; c < NET_PRIOS; c++)
            if (p->ib)
                p->ib->cr_limit[c] = p->peer->ib->cap_blocks;
    }
    return 0;
}

static net *build(const scenario *sc, sim *s, err *e, bool route)
{
    net *n = xcalloc(1, sizeof *n, "network");
    arena_init(&n->mem, "sim arena (topology, FIBs)");
    n->sc = sc;
    n->sim = s;
    /* HPCC: each packet carries its INT record after the struct (inttel.h); packets are
     * cache-line aligned (packet.h) */
    n->int_on = sc->nic.cc == CC_HPCC;
    pool_init_aligned(&n->pkts, "packets", pkt_obj_bytes(n->int_on), 4096, PKT_ALIGN);
    edge_list el = {0};
    int rc;
    if (sc->fabric.planes > 1 && sc->fabric.preset != PRESET_LEAF_SPINE &&
        sc->fabric.preset != PRESET_RAIL_OPTIMIZED) {
        config_error_at(sc, e, "fabric.planes",
                        "fabric.planes: %u independent planes are built for presets leaf-spine "
                        "and rail-optimized, not %s; use one of those or planes: 1",
                        sc->fabric.planes, preset_name(sc->fabric.preset));
        net_free(n);
        return NULL;
    }
    switch (sc->fabric.preset) {
    case PRESET_SINGLE_SWITCH: rc = build_single_switch(n, &el, e); break;
    case PRESET_LEAF_SPINE: rc = build_leaf_spine(n, &el, e); break;
    case PRESET_RAIL_OPTIMIZED: rc = build_rails(n, &el, e, false); break;
    case PRESET_RAIL_ONLY: rc = build_rails(n, &el, e, true); break;
    case PRESET_FAT_TREE: rc = build_fat_tree(n, &el, e); break;
    case PRESET_CUSTOM: rc = build_custom(n, &el, e); break;
    default: rc = err_set(e, ERR_INVALID, sc->file, 0, 0, "fabric.preset: unknown preset"); break;
    }
    if (!rc)
        rc = add_networks(n, &el, e);
    if (rc) {
        xfree(el.e);
        net_free(n);
        return NULL;
    }
    if (route && sharp_wanted(sc))
        add_sharp(n, &el);
    if (want_scale_up(&sc->fabric))
        add_scale_up(n, &el);
    wire(n, &el);
    xfree(el.e);
    for (uint32_t i = 0; i < n->n_hosts; i++) {
        const node *x = n->hosts[i];
        if (x->n_ports == 1 + (x->nvl_port != UINT32_MAX) && x->net_port != UINT32_MAX)
            continue;
        config_error_at(sc, e, "fabric.custom.links",
                        "fabric.custom.links: host \"%s\" must have exactly one link to a switch, "
                        "has %u",
                        x->name, x->n_ports);
        net_free(n);
        return NULL;
    }
    for (uint32_t i = 0; i < n->n_switches; i++) {
        node *sw = n->switches[i];
        /* NVLink is credit-based and never drops: a scale-up domain gets an effectively
         * unbounded buffer (1 TiB), so only the fabric's buffers decide losses. */
        sw->buf.size_bytes = sw->tier == TIER_SCALE_UP ? (1ull << 40) : sc->sw.buffer_bytes;
        sw->buf.alpha_q16 = (uint64_t)(sc->sw.alpha * 65536.0 + 0.5);
        rng_init(&sw->rng, sc->seed, RNG_ID(RNG_KIND_SWITCH, sw->index));
        sw->hash_seed = (uint32_t)rng_next(&sw->rng);
        sw->fib_lo = 0;
        sw->fib_n = n->n_hosts;
        if (sw->tier == TIER_SCALE_UP && !n->hosts_relay) {
            /* only its server's GPUs are reachable through it (route.c): a window over them */
            uint32_t lo = UINT32_MAX, hi = 0;
            for (uint32_t p = 0; p < sw->n_ports; p++) {
                const node *x = sw->ports[p].peer->owner;
                if (x->kind == NODE_HOST) {
                    lo = x->index < lo ? x->index : lo;
                    hi = x->index + 1 > hi ? x->index + 1 : hi;
                }
            }
            sw->fib_lo = lo == UINT32_MAX ? 0 : lo;
            sw->fib_n = lo == UINT32_MAX ? 0 : hi - lo;
        }
        if (sw->tier != TIER_SCALE_UP)
            sw->fib_n = 0; /* its window and classes: net_route */
        else if (route)
            sw->fib = ARENA_NEW_ARRAY(&n->mem, uint32_t, sw->fib_n ? sw->fib_n : 1);
    }
    if (pfc_setup(n, e)) {
        net_free(n);
        return NULL;
    }
    n->ecn_on = sc->sw.ecn_enabled;
    n->ecn_kmin_bytes = sc->sw.ecn_kmin_bytes;
    n->ecn_kmax_bytes = sc->sw.ecn_kmax_bytes;
    n->ecn_pmax_q32 = (uint64_t)(sc->sw.ecn_pmax * 4294967296.0 + 0.5);
    n->ecn_at_dequeue = sc->sw.ecn_mark_at == ECN_MARK_DEQUEUE;
    net_vxlan_setup(n, sc);
    if (sc->fabric.preset == PRESET_CUSTOM)
        custom_hop_ranks(n);
    /* packet trimming (switch.trimming): trimmed headers go in the class CNPs use, the
     * high-priority class the fabric already keeps for congestion signals */
    n->trimming = sc->sw.trimming;
    n->trim_prio = sc->nic.cnp_priority;
    if (ib_setup(n, e)) {
        net_free(n);
        return NULL;
    }
    if (route)
        net_route(n);
    /* the prefetch hook knows only the packet model's events: a flow-level run's events are
     * its pieces and fluid commits, and looking ahead for them would cost every event a walk */
    if (s && sc->fidelity != FIDELITY_FLOW && net_prefetch_pays(n))
        sim_set_prefetch(s, net_prefetch, n, net_run_loop);
    return n;
}

/*
 * Whether the prefetch hook pays for itself (issue #17, ninth round). It hides the misses of a
 * fabric whose hot lines do not fit the core's L2, at the price of reading three events ahead
 * for every event: a quarter of the run's time when nothing misses. Measured on a 512 KiB L2
 * (docs/performance.md, ninth round), us a hop without / with it, 2 MB permutations, scale-up
 * ports counted: 128-host fat tree (1,024 ports) 0.283 / 0.395, 256-host leaf-spine (1,536)
 * 0.31 / 0.41, 512-host leaf-spine (3,072) 0.375 / 0.402, 432-host fat tree (3,456) 0.365 /
 * 0.374, 1,024-host fat tree (8,192) 1.6-2 times slower without. So the hook goes in when the
 * ports' hot lines (NET_HOT_PORT_BYTES each: lines 0 and 1 and the class line a hop touches)
 * exceed 5/4 of the L2 (sysconf's size, or NET_L2_DEFAULT_BYTES where the system does not
 * say): 192, 288, 576, 648 and 1,536 KiB against 640 KiB here. The results never depend
 * on it (the hook writes nothing a handler decides on but the ECMP guess, which is checked
 * before use); WR_PREFETCH=1 or 0 in the environment forces it on or off (tests/test_pin.sh
 * runs both).
 */
bool net_prefetch_pays(const net *n)
{
    const char *force = getenv("WR_PREFETCH");
    if (force && *force) /* 0 (or off, no, false): off; any other value: on */
        return !env_value_off(force);
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    uint64_t cache = l2 > 0 ? (uint64_t)l2 : NET_L2_DEFAULT_BYTES;
    return (uint64_t)n->n_ports * NET_HOT_PORT_BYTES * 4 > cache * 5;
}

net *net_build(const scenario *sc, sim *s, err *e)
{
    return build(sc, s, e, true);
}

net *net_build_topology(const scenario *sc, sim *s, err *e)
{
    return build(sc, s, e, false);
}

int net_mtu_check(const net *n, err *e)
{
    const scenario *sc = n->sc;
    uint32_t frame = n->max_frame_bytes, mtu = sc->fabric.mtu;
    if (frame <= mtu)
        return 0;
    /* largest RoCE path MTU whose frames the switches take */
    uint32_t vx = sc->n_tenants ? WIRE_VXLAN_OVERHEAD : 0;
    uint32_t fit = 4096;
    while (fit > 256 && wire_data_frame(fit, 1) + vx > mtu)
        fit /= 2;
    return config_error_at(sc, e, "fabric.mtu",
                           "fabric.mtu: switch ports take frames up to %u B, but nic.mtu %u makes "
                           "%u B RoCEv2 frames (payload + %u B of headers%s), which every switch "
                           "would drop; use fabric.mtu >= %u (9216 is the jumbo default) or "
                           "nic.mtu %u",
                           mtu, sc->nic.mtu, frame, frame - sc->nic.mtu,
                           vx ? ", VXLAN's 50 included" : "", frame, fit);
}

void net_free(net *n)
{
    if (!n)
        return;
    pool_destroy(&n->pkts);
    xfree(n->cold);
    arena_free(&n->mem);
    xfree(n->groups);
    xfree(n);
}

uint32_t net_gpus(const net *n)
{
    const cfg_fabric *f = &n->sc->fabric;
    if (f->preset == PRESET_CUSTOM) {
        uint32_t g = 0;
        for (uint32_t i = 0; i < f->n_custom_hosts; i++)
            g += f->custom_hosts[i].gpus;
        return g;
    }
    return f->servers * f->gpus_per_server;
}

uint32_t net_gpu_host(const net *n, uint32_t gpu, uint32_t port_sel)
{
    const cfg_fabric *f = &n->sc->fabric;
    if (gpu >= net_gpus(n))
        return UINT32_MAX;
    if (f->preset == PRESET_CUSTOM) {
        for (uint32_t h = 0; h < n->n_hosts; h++)
            if (gpu < n->hosts[h]->gpu + f->custom_hosts[h].gpus)
                return h;
        return UINT32_MAX;
    }
    uint32_t nics = f->gpus_per_server / f->gpus_per_nic;
    uint32_t server = gpu / f->gpus_per_server, local = gpu % f->gpus_per_server;
    uint32_t nic = server * nics + local / f->gpus_per_nic;
    return nic * f->nic_ports + port_sel % f->nic_ports;
}
