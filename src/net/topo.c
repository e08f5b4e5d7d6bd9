/*
 * topo.c — topology builders: turn cfg_fabric into nodes, ports and links.
 *
 * Every preset first produces an edge list (node pairs with speed and latency), then one
 * generic pass counts ports per node, allocates them from the sim arena and wires both
 * directions. Hosts are NIC ports (spec: "host = NIC port index") and come first in net->nodes,
 * so a host's node id equals its host index. Errors name the key whose value cannot work and
 * sit at its position in the scenario file (config_error_at).
 *
 * Presets here:
 *  - single-switch: every host on one switch (needs leaf_radix ≥ hosts).
 *  - leaf-spine: 2-tier Clos. A leaf's leaf_radix ports split into D down and U up in the
 *    oversubscription ratio D:U; leaves = ceil(hosts / D); by default one spine per leaf uplink
 *    (each leaf connects once to every spine), or `fabric.spines` spines with U/spines parallel
 *    links each. Needs leaves × (U/spines) ≤ spine_radix.
 *  - fat-tree: k-ary 3-tier fat tree (Al-Fares et al., SIGCOMM'08): k pods of k/2 leaves
 *    (edge) and k/2 spines (aggregation), (k/2)² super-spines (core), k³/4 hosts.
 */
#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"
#include "net.h"

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

/* Hosts (NIC ports) a fabric has. */
static uint64_t fabric_hosts(const cfg_fabric *f)
{
    return (uint64_t)f->servers * (f->gpus_per_server / f->gpus_per_nic) * f->nic_ports;
}

static void name_switch(node *sw, const char *prefix, uint32_t i)
{
    snprintf(sw->name, sizeof sw->name, "%s%u", prefix, i);
}

/* Allocate nodes: n_hosts hosts then n_sw switches. */
static void alloc_nodes(net *n, uint32_t n_hosts, uint32_t n_sw)
{
    n->n_hosts = n_hosts;
    n->n_switches = n_sw;
    n->n_nodes = n_hosts + n_sw;
    n->nodes = ARENA_NEW_ARRAY(&n->mem, node, n->n_nodes);
    n->hosts = ARENA_NEW_ARRAY(&n->mem, node *, n_hosts ? n_hosts : 1);
    n->switches = ARENA_NEW_ARRAY(&n->mem, node *, n_sw ? n_sw : 1);
    const cfg_fabric *f = &n->sc->fabric;
    uint32_t nics_per_server = f->gpus_per_server / f->gpus_per_nic;
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        node *x = &n->nodes[i];
        x->id = i;
        x->owner = n;
        if (i < n_hosts) {
            x->kind = NODE_HOST;
            x->index = i;
            x->ip = 0x0A000000u + 2u * i + 1u; /* 10.0.0.1, 10.0.0.3, ...: /31 per host link */
            uint32_t nic = i / f->nic_ports;
            x->server = nic / nics_per_server;
            x->gpu = x->server * f->gpus_per_server + (nic % nics_per_server) * f->gpus_per_nic;
            snprintf(x->name, sizeof x->name, "h%u", i);
            n->hosts[i] = x;
        } else {
            x->kind = NODE_SWITCH;
            x->index = i - n_hosts;
            n->switches[x->index] = x;
        }
    }
}

static node *sw_at(net *n, uint32_t idx) { return &n->nodes[n->n_hosts + idx]; }

static int build_single_switch(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint64_t hosts = fabric_hosts(f);
    if (hosts > f->leaf_radix)
        return config_error_at(sc, e, "fabric.leaf_radix",
                               "fabric.leaf_radix: single-switch needs a port per host: %llu hosts "
                               "need leaf_radix >= %llu, got %u",
                               (unsigned long long)hosts, (unsigned long long)hosts, f->leaf_radix);
    alloc_nodes(n, (uint32_t)hosts, 1);
    node *sw = sw_at(n, 0);
    sw->tier = TIER_LEAF;
    name_switch(sw, "sw", 0);
    for (uint32_t h = 0; h < hosts; h++)
        edges_add(el, h, sw->id, f->host_link_bps, f->link_latency_ps);
    return 0;
}

static int build_leaf_spine(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint64_t hosts = fabric_hosts(f);
    uint32_t d = f->oversub_down, u = f->oversub_up;
    if (((uint64_t)f->leaf_radix * d) % (d + u) != 0)
        return config_error_at(sc, e, "fabric.oversubscription",
                               "fabric.oversubscription: %u:%u does not divide leaf_radix %u into "
                               "whole downlink and uplink port counts",
                               d, u, f->leaf_radix);
    uint32_t down = (uint32_t)((uint64_t)f->leaf_radix * d / (d + u));
    uint32_t up = f->leaf_radix - down;
    if (down == 0 || up == 0)
        return config_error_at(sc, e, "fabric.leaf_radix",
                               "fabric.leaf_radix: %u ports leave no %s ports at %u:%u",
                               f->leaf_radix, down == 0 ? "downlink" : "uplink", d, u);
    uint32_t leaves = (uint32_t)((hosts + down - 1) / down);
    uint32_t spines = f->spines ? f->spines : up;
    if (up % spines != 0)
        return config_error_at(sc, e, "fabric.spines",
                               "fabric.spines: %u uplinks per leaf cannot be spread evenly over %u "
                               "spines",
                               up, spines);
    uint32_t par = up / spines;
    if ((uint64_t)leaves * par > f->spine_radix)
        return config_error_at(sc, e, "fabric.spine_radix",
                               "fabric.spine_radix: %u leaves x %u link(s) to each spine need "
                               "spine_radix >= %llu, got %u (use pods > 1 or a fat-tree for more)",
                               leaves, par, (unsigned long long)leaves * par, f->spine_radix);
    alloc_nodes(n, (uint32_t)hosts, leaves + spines);
    for (uint32_t l = 0; l < leaves; l++) {
        node *x = sw_at(n, l);
        x->tier = TIER_LEAF;
        name_switch(x, "leaf", l);
    }
    for (uint32_t s = 0; s < spines; s++) {
        node *x = sw_at(n, leaves + s);
        x->tier = TIER_SPINE;
        name_switch(x, "spine", s);
    }
    for (uint32_t h = 0; h < hosts; h++)
        edges_add(el, h, sw_at(n, h / down)->id, f->host_link_bps, f->link_latency_ps);
    for (uint32_t l = 0; l < leaves; l++)
        for (uint32_t s = 0; s < spines; s++)
            for (uint32_t k = 0; k < par; k++)
                edges_add(el, sw_at(n, l)->id, sw_at(n, leaves + s)->id, f->fabric_link_bps,
                          f->link_latency_ps);
    return 0;
}

static int build_fat_tree(net *n, edge_list *el, err *e)
{
    const scenario *sc = n->sc;
    const cfg_fabric *f = &sc->fabric;
    uint32_t k = f->k, h2 = k / 2;
    uint64_t want = (uint64_t)k * k * k / 4;
    uint64_t hosts = fabric_hosts(f);
    if (hosts != want)
        return config_error_at(sc, e, "fabric.k",
                               "fabric.k: a k=%u fat tree has k^3/4 = %llu hosts, but servers x "
                               "NIC ports give %llu; set servers so they match",
                               k, (unsigned long long)want, (unsigned long long)hosts);
    uint32_t leaves = k * h2, aggs = k * h2, cores = h2 * h2;
    alloc_nodes(n, (uint32_t)hosts, leaves + aggs + cores);
    for (uint32_t i = 0; i < leaves; i++) {
        sw_at(n, i)->tier = TIER_LEAF;
        name_switch(sw_at(n, i), "leaf", i);
    }
    for (uint32_t i = 0; i < aggs; i++) {
        sw_at(n, leaves + i)->tier = TIER_SPINE;
        name_switch(sw_at(n, leaves + i), "spine", i);
    }
    for (uint32_t i = 0; i < cores; i++) {
        sw_at(n, leaves + aggs + i)->tier = TIER_SUPER_SPINE;
        name_switch(sw_at(n, leaves + aggs + i), "super", i);
    }
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
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        node *x = &n->nodes[i];
        x->ports = ARENA_NEW_ARRAY(&n->mem, port, deg[i] ? deg[i] : 1);
        if (x->kind == NODE_SWITCH)
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
    }
    xfree(deg);
}

net *net_build(const scenario *sc, sim *s, err *e)
{
    net *n = xcalloc(1, sizeof *n, "network");
    arena_init(&n->mem, "sim arena (topology, FIBs)");
    n->sc = sc;
    n->sim = s;
    pool_init(&n->pkts, "packets", sizeof(packet), 4096);
    edge_list el = {0};
    int rc;
    switch (sc->fabric.preset) {
    case PRESET_SINGLE_SWITCH: rc = build_single_switch(n, &el, e); break;
    case PRESET_LEAF_SPINE: rc = build_leaf_spine(n, &el, e); break;
    case PRESET_FAT_TREE: rc = build_fat_tree(n, &el, e); break;
    default:
        rc = config_error_at(sc, e, "fabric.preset",
                             "fabric.preset: \"%s\" is not available yet in this version "
                             "(available: single-switch, leaf-spine, fat-tree)",
                             preset_name(sc->fabric.preset));
        break;
    }
    if (rc) {
        xfree(el.e);
        net_free(n);
        return NULL;
    }
    wire(n, &el);
    xfree(el.e);
    for (uint32_t i = 0; i < n->n_switches; i++) {
        node *sw = n->switches[i];
        n->tiers[sw->tier]++;
        sw->buf.size_bytes = sc->sw.buffer_bytes;
        sw->buf.alpha_q16 = (uint64_t)(sc->sw.alpha * 65536.0 + 0.5);
        rng_init(&sw->rng, sc->seed, RNG_ID(RNG_KIND_SWITCH, sw->index));
        sw->hash_seed = (uint32_t)rng_next(&sw->rng);
        sw->fib = ARENA_NEW_ARRAY(&n->mem, uint32_t, n->n_hosts ? n->n_hosts : 1);
    }
    net_route(n);
    return n;
}

void net_free(net *n)
{
    if (!n)
        return;
    pool_destroy(&n->pkts);
    arena_free(&n->mem);
    xfree(n->groups);
    xfree(n);
}
