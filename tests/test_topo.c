/*
 * test_topo.c — topology presets and routing: exact counts against the closed forms, every host
 * pair reachable over every ECMP branch, hop counts as the topology dictates, rail-only
 * cross-rail traffic through the scale-up domain, topology errors at the right key, and the
 * prefetch hook installed by the fabric's size or as WR_PREFETCH forces it.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "testlib.h"

typedef struct built {
    scenario sc;
    sim s;
    net *n;
} built;

static int build(built *b, const char *yaml, err *e)
{
    err_clear(e);
    b->n = NULL;
    if (config_load_buffer(&b->sc, "topo.yaml", yaml, strlen(yaml), NULL, 0, e))
        return e->code;
    sim_init(&b->s, b->sc.seed);
    b->n = net_build(&b->sc, &b->s, e);
    if (!b->n) {
        sim_free(&b->s);
        scenario_free(&b->sc);
        return e->code;
    }
    return 0;
}

static void unbuild(built *b)
{
    net_free(b->n);
    sim_free(&b->s);
    scenario_free(&b->sc);
}

static uint32_t count_tier(const net *n, enum switch_tier t)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n->n_switches; i++)
        c += n->switches[i]->tier == t;
    return c;
}

/* Links (counted once) between a node of kind/tier A and one of B. */
static uint32_t count_links(const net *n, int a_host, enum switch_tier a, enum switch_tier b)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        const node *x = p->owner, *y = p->peer->owner;
        int xa = a_host ? x->kind == NODE_HOST : (x->kind == NODE_SWITCH && x->tier == a);
        int yb = y->kind == NODE_SWITCH && y->tier == b;
        c += xa && yb;
    }
    return c;
}

/*
 * Follow every ECMP branch from node x towards host d, `hops` links so far. Records the minimum
 * and maximum path length in links, whether any branch dead-ends, and whether some path went
 * through a scale-up switch.
 */
typedef struct walk {
    uint32_t min_hops, max_hops;
    int dead_end, via_scale_up, paths;
} walk;

static void walk_from(const net *n, const node *x, uint32_t d, uint32_t hops, walk *w)
{
    if (hops > 16) {
        w->dead_end = 1;
        return;
    }
    if (x->kind == NODE_HOST) {
        if (x->index == d) {
            w->paths++;
            if (hops < w->min_hops)
                w->min_hops = hops;
            if (hops > w->max_hops)
                w->max_hops = hops;
            return;
        }
        if (hops > 0 && !n->hosts_relay) {
            w->dead_end = 1;
            return;
        }
        const port *p = &x->ports[net_host_egress(n, x, d)];
        walk_from(n, p->peer->owner, d, hops + 1, w);
        return;
    }
    if (x->tier == TIER_SCALE_UP)
        w->via_scale_up = 1;
    uint32_t g = net_fib(x, d);
    if (g == UINT32_MAX) {
        w->dead_end = 1;
        return;
    }
    const ecmp_group *grp = &n->groups[g];
    for (uint32_t i = 0; i < grp->n; i++)
        walk_from(n, x->ports[grp->member[i]].peer->owner, d, hops + 1, w);
}

static walk walk_pair(const net *n, uint32_t s, uint32_t d)
{
    walk w = {UINT32_MAX, 0, 0, 0, 0};
    walk_from(n, n->hosts[s], d, 0, &w);
    return w;
}

/* Every ordered pair (or every `step`-th source) reaches its destination on every branch. */
static void check_all_reachable(const net *n, uint32_t step)
{
    int bad = 0;
    for (uint32_t s = 0; s < n->n_hosts; s += step)
        for (uint32_t d = 0; d < n->n_hosts; d++) {
            if (s == d)
                continue;
            walk w = walk_pair(n, s, d);
            if (w.dead_end || !w.paths)
                bad++;
        }
    CHECK(bad == 0);
}

static void test_fat_tree_counts_and_hops(void)
{
    built b;
    err e;
    CHECK(build(&b, "fabric: {preset: fat-tree, k: 8, servers: 128, gpus_per_server: 1}\n", &e) ==
          0);
    if (!b.n)
        return;
    const net *n = b.n;
    uint32_t k = 8;
    CHECK_EQ_U64(n->n_hosts, k * k * k / 4);
    CHECK_EQ_U64(count_tier(n, TIER_LEAF), k * k / 2);
    CHECK_EQ_U64(count_tier(n, TIER_SPINE), k * k / 2);
    CHECK_EQ_U64(count_tier(n, TIER_SUPER_SPINE), k * k / 4);
    CHECK_EQ_U64(count_tier(n, TIER_SCALE_UP), 0);
    CHECK_EQ_U64(count_links(n, 1, 0, TIER_LEAF), k * k * k / 4);
    CHECK_EQ_U64(count_links(n, 0, TIER_LEAF, TIER_SPINE), k * k * k / 4);
    CHECK_EQ_U64(count_links(n, 0, TIER_SPINE, TIER_SUPER_SPINE), k * k * k / 4);
    check_all_reachable(n, 7);
    /* same leaf: 2 links; same pod: 4 links over k/2 spines; across pods: 6 over (k/2)^2 */
    walk w = walk_pair(n, 0, 1);
    CHECK(w.min_hops == 2 && w.max_hops == 2 && w.paths == 1);
    w = walk_pair(n, 0, 4);
    CHECK(w.min_hops == 4 && w.max_hops == 4 && w.paths == 4);
    w = walk_pair(n, 0, 127);
    CHECK(w.min_hops == 6 && w.max_hops == 6 && w.paths == 16);
    unbuild(&b);
}

/* docs/scenario.md: `servers` is ignored by fat-tree, k sets the size. */
static void test_fat_tree_ignores_servers(void)
{
    built b;
    err e;
    CHECK(build(&b, "fabric: {preset: fat-tree, k: 16}\n", &e) == 0);
    if (!b.n) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    CHECK_EQ_U64(b.n->n_hosts, 16 * 16 * 16 / 4);
    CHECK_EQ_U64(b.n->n_servers, 1024 / 8);
    CHECK_EQ_U64(net_gpus(b.n), 1024);
    unbuild(&b);
    CHECK(build(&b, "fabric: {preset: fat-tree, k: 4, servers: 3, gpus_per_server: 1}\n", &e) == 0);
    if (b.n) {
        CHECK_EQ_U64(b.n->n_hosts, 16);
        CHECK_EQ_U64(b.n->n_servers, 16);
        unbuild(&b);
    }
}

/* Host (index) and uplink ports of the first leaf: its ports towards hosts and towards spines. */
static void leaf_ports(const net *n, uint32_t *down, uint32_t *up, uint64_t *down_bps,
                       uint64_t *up_bps)
{
    const node *leaf = n->hosts[0]->ports[n->hosts[0]->net_port].peer->owner;
    *down = *up = 0;
    *down_bps = *up_bps = 0;
    for (uint32_t p = 0; p < leaf->n_ports; p++) {
        const node *y = leaf->ports[p].peer->owner;
        if (y->kind == NODE_HOST) {
            (*down)++;
            *down_bps += leaf->ports[p].rate_bps;
        } else {
            (*up)++;
            *up_bps += leaf->ports[p].rate_bps;
        }
    }
}

/* oversubscription is downlink bandwidth : uplink bandwidth (ports x speeds). */
static void test_oversubscription_is_bandwidth(void)
{
    static const struct {
        const char *extra;
        uint32_t down, up;
    } cases[] = {
        /* 2:1, 400G down, 800G up, 64 ports: 4 down per up, 12 x (4 + 1) = 60 ports */
        {"oversubscription: 2:1, fabric_link: 800Gbps", 48, 12},
        /* 2:1 at one speed: 2 down per up, 21 x 3 = 63 ports */
        {"oversubscription: 2:1", 42, 21},
        /* 1:1 with 800G up: 2 down per up -> 42 x 400G : 21 x 800G */
        {"fabric_link: 800Gbps", 42, 21},
        {"oversubscription: 3:1", 48, 16},
        {"", 32, 32},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char y[400];
        snprintf(y, sizeof y,
                 "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 8, leaf_radix: 64, "
                 "spine_radix: 64%s%s}\n",
                 cases[c].extra[0] ? ", " : "", cases[c].extra);
        built b;
        err e;
        CHECK(build(&b, y, &e) == 0);
        if (!b.n) {
            fprintf(stderr, "%s: %s\n", y, e.msg);
            continue;
        }
        uint32_t d, u;
        uint64_t dbps, ubps;
        leaf_ports(b.n, &d, &u, &dbps, &ubps);
        CHECK_EQ_U64(d, cases[c].down);
        CHECK_EQ_U64(u, cases[c].up);
        CHECK_EQ_U64(dbps * b.sc.fabric.oversub_up, ubps * b.sc.fabric.oversub_down);
        /* one spine per leaf uplink, each joining every leaf once */
        CHECK_EQ_U64(count_tier(b.n, TIER_SPINE), cases[c].up);
        unbuild(&b);
    }
}

/* Dual-plane (Alibaba HPN): port q of every NIC on plane q; no route ever leaves a plane. */
static void test_dual_plane(void)
{
    static const char *const ys[] = {
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, nic_ports: 2, planes: 2,\n"
        "         leaf_radix: 32}\n",
        "fabric: {preset: rail-optimized, servers: 8, gpus_per_server: 8, nic_ports: 2,\n"
        "         planes: 2, leaf_radix: 16}\n",
        "fabric: {preset: rail-optimized, servers: 16, gpus_per_server: 8, nic_ports: 2,\n"
        "         planes: 2, leaf_radix: 16, spine_radix: 64, pods: 2}\n",
    };
    for (size_t c = 0; c < sizeof ys / sizeof *ys; c++) {
        built b;
        err e;
        CHECK(build(&b, ys[c], &e) == 0);
        if (!b.n) {
            fprintf(stderr, "%s\n", e.msg);
            continue;
        }
        const net *n = b.n;
        /* plane of every fabric switch: that of the hosts below it, spread over links */
        uint32_t *pl = calloc(n->n_nodes, sizeof *pl);
        for (uint32_t h = 0; h < n->n_hosts; h++)
            pl[n->hosts[h]->ports[n->hosts[h]->net_port].peer->owner->id] = 1 + h % 2;
        for (int round = 0; round < 4; round++)
            for (uint32_t i = 0; i < n->n_ports; i++) {
                const node *a = n->ports[i]->owner, *z = n->ports[i]->peer->owner;
                if (a->kind == NODE_SWITCH && z->kind == NODE_SWITCH && a->tier != TIER_SCALE_UP &&
                    z->tier != TIER_SCALE_UP && pl[a->id] && !pl[z->id])
                    pl[z->id] = pl[a->id];
            }
        uint32_t meet = 0, unplaned = 0;
        for (uint32_t i = 0; i < n->n_ports; i++) {
            const node *a = n->ports[i]->owner, *z = n->ports[i]->peer->owner;
            if (a->kind == NODE_SWITCH && z->kind == NODE_SWITCH && a->tier != TIER_SCALE_UP &&
                z->tier != TIER_SCALE_UP)
                meet += pl[a->id] != pl[z->id];
        }
        for (uint32_t i = 0; i < n->n_switches; i++)
            unplaned += n->switches[i]->tier != TIER_SCALE_UP && !pl[n->switches[i]->id];
        CHECK_EQ_U64(meet, 0);
        CHECK_EQ_U64(unplaned, 0);
        /* every ECMP branch from a port-q host to another server's port-q host stays on plane q */
        uint32_t off_plane = 0, dead = 0;
        for (uint32_t s = 0; s < n->n_hosts; s += 3)
            for (uint32_t d = s % 2; d < n->n_hosts; d += 2) {
                if (n->hosts[d]->server == n->hosts[s]->server)
                    continue;
                const node *leaf = n->hosts[s]->ports[n->hosts[s]->net_port].peer->owner;
                /* walk every switch on the way (breadth-first over FIB groups) */
                const node *q[256];
                uint32_t qh = 0, qt = 0;
                q[qt++] = leaf;
                while (qh < qt && qt < 250) {
                    const node *x = q[qh++];
                    if (x->kind == NODE_HOST)
                        continue;
                    off_plane += pl[x->id] != 1 + s % 2;
                    if (net_fib(x, d) == UINT32_MAX) {
                        dead++;
                        continue;
                    }
                    const ecmp_group *g = &n->groups[net_fib(x, d)];
                    for (uint32_t k = 0; k < g->n && qt < 250; k++)
                        q[qt++] = x->ports[g->member[k]].peer->owner;
                }
            }
        CHECK_EQ_U64(off_plane, 0);
        CHECK_EQ_U64(dead, 0);
        free(pl);
        unbuild(&b);
    }
}

static void test_rail_optimized_counts(void)
{
    /* 32 servers x 8 GPUs, radix 64 at 1:1 -> 32 down / 32 up per leaf. */
    static const struct {
        uint32_t rpl, leaves;
    } cases[] = {{1, 8}, {2, 8}, {8, 8}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char y[512];
        snprintf(y, sizeof y,
                 "fabric: {preset: rail-optimized, servers: 32, gpus_per_server: 8, "
                 "leaf_radix: 64, spine_radix: 64, rails_per_leaf: %u}\n",
                 cases[c].rpl);
        built b;
        err e;
        CHECK(build(&b, y, &e) == 0);
        if (!b.n) {
            fprintf(stderr, "%s\n", e.msg);
            continue;
        }
        const net *n = b.n;
        CHECK_EQ_U64(n->n_hosts, 256);
        CHECK_EQ_U64(count_tier(n, TIER_LEAF), cases[c].leaves);
        CHECK_EQ_U64(count_tier(n, TIER_SPINE), 32);
        CHECK_EQ_U64(count_tier(n, TIER_SCALE_UP), 32);
        CHECK_EQ_U64(count_links(n, 1, 0, TIER_LEAF), 256);
        CHECK_EQ_U64(count_links(n, 0, TIER_LEAF, TIER_SPINE), cases[c].leaves * 32);
        /* rail r of every server lands on a leaf serving rail r */
        for (uint32_t h = 0; h < n->n_hosts; h++) {
            const node *x = n->hosts[h];
            CHECK_EQ_U64(x->rail, h % 8);
            const node *leaf = x->ports[x->net_port].peer->owner;
            uint32_t want_leaf =
                (x->server / (32 / cases[c].rpl)) * (8 / cases[c].rpl) + x->rail / cases[c].rpl;
            CHECK_EQ_U64(leaf->index, want_leaf);
        }
        check_all_reachable(n, 13);
        if (cases[c].rpl == 1) {
            /* same rail, other server: one leaf, 2 links; other rail: over a spine, 4 links on
             * 32 paths; same server: NVLink, 2 links through the scale-up switch */
            walk w = walk_pair(n, 0, 8);
            CHECK(w.min_hops == 2 && w.max_hops == 2 && !w.via_scale_up);
            w = walk_pair(n, 0, 9);
            CHECK(w.min_hops == 4 && w.max_hops == 4 && w.paths == 32);
            w = walk_pair(n, 0, 1);
            CHECK(w.min_hops == 2 && w.via_scale_up);
        }
        unbuild(&b);
    }
}

static void test_rail_optimized_pods(void)
{
    built b;
    err e;
    CHECK(
        build(&b,
              "fabric: {preset: rail-optimized, servers: 64, gpus_per_server: 8, leaf_radix: 64,\n"
              "         spine_radix: 64, pods: 2}\n",
              &e) == 0);
    if (!b.n) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    const net *n = b.n;
    CHECK_EQ_U64(n->n_hosts, 512);
    CHECK_EQ_U64(count_tier(n, TIER_LEAF), 16);
    CHECK_EQ_U64(count_tier(n, TIER_SPINE), 64);
    /* each spine: 8 leaf links down and 8 up (1:1); 32 planes of one super-spine each */
    CHECK_EQ_U64(count_tier(n, TIER_SUPER_SPINE), 32);
    CHECK_EQ_U64(count_links(n, 0, TIER_SPINE, TIER_SUPER_SPINE), 64 * 8);
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (x->tier == TIER_SPINE)
            CHECK_EQ_U64(x->n_ports, 16);
        if (x->tier == TIER_SUPER_SPINE)
            CHECK(x->n_ports <= 64);
    }
    check_all_reachable(n, 61);
    /* across pods: leaf, spine, super-spine, spine, leaf: 6 links */
    walk w = walk_pair(n, 0, 511);
    CHECK(w.min_hops == 6 && w.max_hops == 6);
    unbuild(&b);
}

static void test_dual_homed(void)
{
    built b;
    err e;
    CHECK(build(&b,
                "fabric: {preset: rail-optimized, servers: 4, gpus_per_server: 8, nic_ports: 2,\n"
                "         leaf_radix: 16, spine_radix: 64}\n",
                &e) == 0);
    if (!b.n) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    const net *n = b.n;
    CHECK_EQ_U64(n->n_hosts, 64);
    /* the two ports of a NIC reach two different leaves */
    for (uint32_t h = 0; h < n->n_hosts; h += 2) {
        const node *a = n->hosts[h], *c = n->hosts[h + 1];
        CHECK(a->rail == c->rail && a->server == c->server);
        CHECK(a->ports[a->net_port].peer->owner != c->ports[c->net_port].peer->owner);
    }
    CHECK_EQ_U64(count_tier(n, TIER_LEAF), 16);
    check_all_reachable(n, 5);
    unbuild(&b);
}

static void test_rail_only_pxn(void)
{
    built b;
    err e;
    CHECK(build(&b, "fabric: {preset: rail-only, servers: 8, gpus_per_server: 8, leaf_radix: 64}\n",
                &e) == 0);
    if (!b.n) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    const net *n = b.n;
    CHECK_EQ_U64(count_tier(n, TIER_LEAF), 8);
    CHECK_EQ_U64(count_tier(n, TIER_SPINE), 0);
    check_all_reachable(n, 1);
    /* same rail: one leaf; cross-rail: NVLink to the peer GPU on the destination's rail, then
     * that rail's leaf: host - nvs - host - leaf - host = 4 links */
    walk w = walk_pair(n, 0, 8);
    CHECK(w.min_hops == 2 && !w.via_scale_up);
    w = walk_pair(n, 0, 8 + 3);
    CHECK(w.min_hops == 4 && w.max_hops == 4 && w.via_scale_up);
    /* the leaf of rail 0 has no route to a rail-3 host: only the scale-up path exists */
    const node *leaf0 = n->hosts[0]->ports[n->hosts[0]->net_port].peer->owner;
    CHECK(net_fib(leaf0, 11) == UINT32_MAX);
    unbuild(&b);
}

static void test_custom(void)
{
    built b;
    err e;
    CHECK(build(&b,
                "fabric:\n"
                "  preset: custom\n"
                "  custom:\n"
                "    switches: [{name: a}, {name: b}, {name: c}]\n"
                "    hosts: [{name: x, gpus: 8}, {name: y, gpus: 8}]\n"
                "    links:\n"
                "      - {a: x, b: a, speed: 100Gbps}\n"
                "      - {a: a, b: b}\n"
                "      - {a: a, b: c}\n"
                "      - {a: b, b: c}\n"
                "      - {a: c, b: y, speed: 100Gbps, latency: 2us}\n",
                &e) == 0);
    if (!b.n) {
        fprintf(stderr, "%d:%d %s\n", e.line, e.col, e.msg);
        return;
    }
    const net *n = b.n;
    CHECK_EQ_U64(n->n_hosts, 2);
    CHECK_EQ_U64(n->n_switches, 3);
    CHECK_STR(n->hosts[1]->name, "y");
    walk w = walk_pair(n, 0, 1);
    CHECK(w.min_hops == 3 && w.max_hops == 3 && w.paths == 1); /* x-a-c-y, not via b */
    CHECK_EQ_U64(n->hosts[1]->ports[0].prop_ps, 2 * SIM_US);
    unbuild(&b);
}

static void test_reroute_after_link_down(void)
{
    /* Take one leaf0-spine link down (both directions) and rebuild routing: leaf0 stops using
     * that spine, everything stays reachable with one path fewer. */
    built b;
    err e;
    CHECK(build(&b,
                "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8}\n",
                &e) == 0);
    if (!b.n)
        return;
    net *n = b.n;
    walk w = walk_pair(n, 0, 15);
    CHECK(w.paths == 4);
    const node *leaf0 = n->hosts[0]->ports[0].peer->owner;
    port *up = NULL;
    for (uint32_t p = 0; p < leaf0->n_ports; p++)
        if (leaf0->ports[p].peer->owner->tier == TIER_SPINE) {
            up = &leaf0->ports[p];
            break;
        }
    CHECK(up != NULL);
    if (!up) {
        unbuild(&b);
        return;
    }
    up->up = up->peer->up = false;
    net_route(n);
    w = walk_pair(n, 0, 15);
    CHECK(w.paths == 3 && !w.dead_end);
    check_all_reachable(n, 1);
    /* The spine that lost its link to leaf0 still reaches h0, but only over a valley path
     * (down to another leaf, up to another spine, down to leaf0): shortest-path routing allows
     * it, as eBGP does when spines have distinct ASNs. Such detours are what can close a cyclic
     * buffer dependency under PFC; `check` will look for them. */
    const node *spine = up->peer->owner;
    CHECK(net_fib(spine, 0) != UINT32_MAX);
    const ecmp_group *g = &n->groups[net_fib(spine, 0)];
    for (uint32_t i = 0; i < g->n; i++)
        CHECK(spine->ports[g->member[i]].peer->owner != leaf0);
    up->up = up->peer->up = true;
    net_route(n);
    CHECK(walk_pair(n, 0, 15).paths == 4);
    unbuild(&b);
}

/* The oracle: the routing as defined (route.c's header) by one plain BFS per destination host,
 * avoiding drained switches where possible. Every fabric switch's FIB entry for every host must
 * hold exactly these next hops, whatever shortcut net_route takes (one BFS per attachment
 * class). */
static void bfs_from(const net *n, uint32_t h, uint32_t *dist, uint32_t *queue, bool drained_ok)
{
    for (uint32_t i = 0; i < n->n_nodes; i++)
        dist[i] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    dist[h] = 0;
    queue[qt++] = h;
    while (qh < qt) {
        const node *x = &n->nodes[queue[qh++]];
        if ((x->kind == NODE_HOST && x->id != h) || x->tier == TIER_SCALE_UP)
            continue;
        for (uint32_t p = 0; p < x->n_ports; p++) {
            const node *y = x->ports[p].peer->owner;
            if (x->ports[p].up && dist[y->id] == UINT32_MAX && (drained_ok || !y->drained)) {
                dist[y->id] = dist[x->id] + 1;
                queue[qt++] = y->id;
            }
        }
    }
}

static void check_routes_against_bfs(const net *n)
{
    uint32_t *d1 = malloc(sizeof(uint32_t) * n->n_nodes),
             *d2 = malloc(sizeof(uint32_t) * n->n_nodes);
    uint32_t *q = malloc(sizeof(uint32_t) * n->n_nodes);
    uint32_t bad = 0;
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        bfs_from(n, h, d1, q, false);
        bfs_from(n, h, d2, q, true);
        for (uint32_t s = 0; s < n->n_switches; s++) {
            const node *sw = n->switches[s];
            if (sw->tier == TIER_SCALE_UP)
                continue;
            const uint32_t *d = d1[sw->id] == UINT32_MAX ? d2 : d1;
            uint32_t want[256], k = 0;
            if (d[sw->id] != UINT32_MAX)
                for (uint32_t p = 0; p < sw->n_ports && k < 256; p++) {
                    const node *v = sw->ports[p].peer->owner;
                    if (!sw->ports[p].up || d[v->id] == UINT32_MAX || d[v->id] + 1 != d[sw->id])
                        continue;
                    if (v->kind == NODE_HOST && v->id != h)
                        continue;
                    want[k++] = p;
                }
            uint32_t g = net_fib(sw, h);
            bool same = k ? g != UINT32_MAX && n->groups[g].n == k &&
                                !memcmp(n->groups[g].member, want, k * sizeof(uint32_t))
                          : g == UINT32_MAX;
            bad += !same;
        }
    }
    CHECK_EQ_U64(bad, 0);
    free(q);
    free(d2);
    free(d1);
}

static void test_routes_equal_per_host_bfs(void)
{
    static const char *const fabrics[] = {
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 2, leaf_radix: 8}\n",
        "fabric: {preset: fat-tree, k: 4}\n",
        "fabric: {preset: rail-optimized, servers: 8, gpus_per_server: 8, leaf_radix: 16}\n",
        ("fabric: {preset: rail-optimized, servers: 4, gpus_per_server: 8, nic_ports: 2,\n"
         "         leaf_radix: 16}\n"),
        "fabric: {preset: rail-only, servers: 4, gpus_per_server: 4, leaf_radix: 8}\n",
    };
    for (size_t f = 0; f < sizeof fabrics / sizeof *fabrics; f++) {
        built b;
        err e;
        CHECK(build(&b, fabrics[f], &e) == 0);
        if (!b.n)
            continue;
        net *n = b.n;
        check_routes_against_bfs(n);
        /* a leaf-spine link down: valley paths appear, classes still share them */
        port *up = NULL;
        for (uint32_t i = 0; i < n->n_ports && !up; i++)
            if (n->ports[i]->owner->kind == NODE_SWITCH &&
                n->ports[i]->peer->owner->kind == NODE_SWITCH)
                up = n->ports[i];
        if (up) {
            up->up = up->peer->up = false;
            net_route(n);
            check_routes_against_bfs(n);
            /* and the switch above it drained (graceful shutdown) */
            node *upper = up->peer->owner;
            upper->drained = true;
            net_route(n);
            check_routes_against_bfs(n);
            upper->drained = false;
            up->up = up->peer->up = true;
        }
        /* a host link down: that host's class changes */
        const node *h0 = n->hosts[0];
        if (h0->net_port != UINT32_MAX) {
            port *hp = &n->hosts[0]->ports[h0->net_port];
            hp->up = hp->peer->up = false;
            net_route(n);
            check_routes_against_bfs(n);
        }
        unbuild(&b);
    }
}

static void expect_error(const char *yaml, const char *needle, int line)
{
    built b;
    err e;
    int rc = build(&b, yaml, &e);
    CHECK(rc == ERR_INVALID);
    if (rc == 0) {
        unbuild(&b);
        return;
    }
    if (!strstr(e.msg, needle))
        fprintf(stderr, "  got \"%s\", expected it to contain \"%s\"\n", e.msg, needle);
    CHECK(strstr(e.msg, needle) != NULL);
    CHECK(e.line == line);
}

static void test_topology_errors(void)
{
    expect_error("fabric: {preset: single-switch, servers: 16, gpus_per_server: 8}\n",
                 "single-switch needs a port per host", 1);
    expect_error("fabric:\n  preset: rail-optimized\n  leaf_radix: 64\n  rails_per_leaf: 3\n",
                 "rails_per_leaf: 3 rails per leaf must divide", 4);
    expect_error("fabric:\n  preset: leaf-spine\n  host_link: 400Gbps\n  fabric_link: 100Gbps\n"
                 "  leaf_radix: 4\n  oversubscription: 1:1\n",
                 "needs 1 downlink and 4 uplink ports per leaf at least, more than leaf_radix 4; "
                 "use leaf_radix >= 5",
                 6);
    expect_error("fabric:\n  preset: rail-optimized\n  leaf_radix: 8\n  rails_per_leaf: 8\n",
                 "leaf_radix: 8 cannot hold 8 rails + 4 uplinks (4 downlink ports at 1:1); use "
                 "leaf_radix >= 16 or rails_per_leaf 4",
                 3);
    expect_error("fabric:\n  preset: leaf-spine\n  servers: 64\n  spines: 5\n",
                 "use one of 1, 2, 4, 8, 16, 32, or 0", 4);
    expect_error("fabric:\n  preset: fat-tree\n  nic_ports: 2\n  planes: 2\n",
                 "planes are built for presets leaf-spine and rail-optimized, not fat-tree", 4);
    expect_error("fabric:\n  preset: leaf-spine\n  servers: 64\n  spine_radix: 8\n",
                 "spine_radix >= 16", 4);
    expect_error("fabric:\n  preset: rail-only\n  servers: 128\n  leaf_radix: 64\n",
                 "rail-only has no spine", 4);
    expect_error("fabric:\n  preset: rail-optimized\n  servers: 96\n  pods: 2\n",
                 "cannot be split evenly into 2 pods", 4);
    expect_error("fabric:\n  preset: custom\n  custom:\n    switches: [{name: s}]\n"
                 "    hosts: [{name: h}]\n    links:\n      - {a: h, b: t}\n",
                 "unknown node \"t\"", 7);
}

/* net_prefetch_pays: the hook for a fabric whose ports' hot lines outgrow any L2, none for one
 * port, and WR_PREFETCH overriding both ways; net_build installs the hook and its inlined loop
 * together, or neither (test_pin's forced pass relies on this to run the hook at all). */
static void test_prefetch_hook_choice(void)
{
    static net x; /* only n_ports is read */
    unsetenv("WR_PREFETCH");
    x.n_ports = 1;
    CHECK(!net_prefetch_pays(&x));
    x.n_ports = UINT32_MAX; /* 768 GiB of hot lines */
    CHECK(net_prefetch_pays(&x));
    static const char *const off[] = {"0", "off", "no", "false"};
    for (unsigned i = 0; i < sizeof off / sizeof off[0]; i++) {
        setenv("WR_PREFETCH", off[i], 1);
        CHECK(!net_prefetch_pays(&x));
    }
    x.n_ports = 1;
    setenv("WR_PREFETCH", "1", 1);
    CHECK(net_prefetch_pays(&x));

    static const char *const fab = "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 4}\n";
    built b;
    err e;
    CHECK(build(&b, fab, &e) == 0);
    if (b.n) {
        CHECK(b.s.prefetch == net_prefetch && b.s.loop == net_run_loop &&
              b.s.prefetch_ctx == b.n);
        unbuild(&b);
    }
    setenv("WR_PREFETCH", "0", 1);
    CHECK(build(&b, fab, &e) == 0);
    if (b.n) {
        CHECK(b.s.prefetch == NULL && b.s.loop == NULL);
        unbuild(&b);
    }
    unsetenv("WR_PREFETCH");
}

int main(void)
{
    TEST_RUN(test_routes_equal_per_host_bfs);
    TEST_RUN(test_fat_tree_counts_and_hops);
    TEST_RUN(test_fat_tree_ignores_servers);
    TEST_RUN(test_oversubscription_is_bandwidth);
    TEST_RUN(test_dual_plane);
    TEST_RUN(test_rail_optimized_counts);
    TEST_RUN(test_rail_optimized_pods);
    TEST_RUN(test_dual_homed);
    TEST_RUN(test_rail_only_pxn);
    TEST_RUN(test_custom);
    TEST_RUN(test_reroute_after_link_down);
    TEST_RUN(test_topology_errors);
    TEST_RUN(test_prefetch_hook_choice);
    return tl_finish();
}
