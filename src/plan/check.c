/*
 * check.c — topology design checks (see check.h). Reads the built network only.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../workload/tenant.h"

const char *check_status_name(enum check_status s)
{
    return s == CHECK_PASS ? "pass" : s == CHECK_WARN ? "warn" : "fail";
}

static check_item *add_item(check_report *r, const char *name, enum check_status st)
{
    if (r->n_items == CHECK_MAX_ITEMS)
        return NULL;
    check_item *it = &r->items[r->n_items++];
    it->name = name;
    it->status = st;
    it->detail[0] = 0;
    if (st == CHECK_FAIL)
        r->passed = false;
    return it;
}

static bool is_fabric_switch(const node *x, enum switch_tier t)
{
    return x->kind == NODE_SWITCH && x->tier == t;
}

/* Worst down:up bandwidth ratio over the switches of `tier` (down = towards `down_tier`, or
 * hosts for leaves). Returns 0 when no switch of the tier has uplinks; *worst gets its name. */
static double tier_oversub(const net *n, enum switch_tier tier, const node **worst,
                           uint64_t *w_down, uint64_t *w_up)
{
    double ratio = 0.0;
    *worst = NULL;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (x->tier != tier || x->network != NETWORK_BACKEND) /* the backend's tiers */
            continue;
        uint64_t down = 0, up = 0;
        for (uint32_t p = 0; p < x->n_ports; p++) {
            const node *y = x->ports[p].peer->owner;
            uint64_t bps = x->ports[p].rate_bps;
            if (y->kind == NODE_HOST || (y->kind == NODE_SWITCH && y->tier < tier &&
                                         y->tier != TIER_NONE))
                down += bps;
            else if (y->kind == NODE_SWITCH && y->tier > tier && y->tier != TIER_SCALE_UP)
                up += bps;
        }
        if (!up)
            continue;
        double r = (double)down / (double)up;
        if (!*worst || r > ratio) {
            ratio = r;
            *worst = x;
            *w_down = down;
            *w_up = up;
        }
    }
    return ratio;
}

static bool fabric_switch(const node *x)
{
    return x->kind == NODE_SWITCH && x->tier != TIER_SCALE_UP;
}

/* The switch-graph neighbours of x (up links, fabric switches) as a sorted id list: two
 * destination switches with equal lists are twins (swapping them is an automorphism). */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct sig {
    uint32_t sw, n, off; /* switch index, neighbours, offset in the id pool */
    uint64_t hash;
} sig;

static const uint32_t *sig_pool;
static int cmp_sig(const void *a, const void *b)
{
    const sig *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    int c = memcmp(sig_pool + x->off, sig_pool + y->off, sizeof(uint32_t) * x->n);
    if (c)
        return c;
    return x->sw < y->sw ? -1 : x->sw > y->sw;
}

/*
 * Mark in uses[] every (in, out) port pair of every fabric switch that traffic for destination
 * switch `dst` takes under shortest-path routing over the links that are up (what net_route
 * builds): at switch x at distance D, from a neighbour at D + 1 to a neighbour at D − 1. Host
 * links are left out (a host link never has a predecessor, and into a host nothing follows, so
 * neither can be on a cycle). Returns true when some of this traffic crosses a switch that has
 * hosts between two switch links (transit through a leaf: a valley).
 */
static bool mark_uses(const net *n, uint32_t dst, uint32_t *dist, uint32_t *queue,
                      const uint8_t *has_hosts, uint8_t **uses)
{
    for (uint32_t i = 0; i < n->n_nodes; i++)
        dist[i] = UINT32_MAX;
    uint32_t qh = 0, qt = 0;
    dist[dst] = 0;
    queue[qt++] = dst;
    while (qh < qt) {
        const node *x = &n->nodes[queue[qh++]];
        for (uint32_t p = 0; p < x->n_ports; p++) {
            const port *pp = &x->ports[p];
            const node *y = pp->peer->owner;
            if (!pp->up || !fabric_switch(y) || dist[y->id] != UINT32_MAX)
                continue;
            dist[y->id] = dist[x->id] + 1;
            queue[qt++] = y->id;
        }
    }
    bool valley = false;
    for (uint32_t k = 1; k < qt; k++) {
        const node *x = &n->nodes[queue[k]];
        uint32_t D = dist[x->id];
        for (uint32_t in = 0; in < x->n_ports; in++) {
            const port *ip = &x->ports[in];
            const node *y = ip->peer->owner;
            if (!ip->up || !fabric_switch(y) || dist[y->id] != D + 1)
                continue;
            for (uint32_t out = 0; out < x->n_ports; out++) {
                const port *op = &x->ports[out];
                const node *z = op->peer->owner;
                if (!op->up || !fabric_switch(z) || dist[z->id] + 1 != D)
                    continue;
                uses[x->index][(size_t)in * x->n_ports + out] = 1;
                valley |= has_hosts[x->index] != 0;
            }
        }
    }
    return valley;
}

/*
 * Cyclic buffer dependencies (Dally & Seitz; the PFC-deadlock condition of Hu et al., HotNets'16):
 * a graph whose vertices are directed links and whose edges join link a→s to link s→t when
 * some route enters switch s on the first and leaves on the second. Lossless traffic can
 * deadlock only if this graph has a cycle. Up-down routing in a Clos never makes one; routing
 * loops, rings and valley paths after failures can. Returns the cycle length (0 = none) and
 * writes it into buf.
 *
 * Cost. Routes to every host of one switch are the same up to that switch, so destinations are
 * switches with hosts; and twin destination switches (the same switch neighbours, as the leaves
 * of a pod) have routes that are images of each other under the swap of the two, which changes
 * only links into the destination (nothing follows them) and out of it (nothing precedes them)
 * — unless some route crosses a leaf between two switch links. So one breadth-first search per
 * class of twins (a pod, a plane) finds every dependency that can close a cycle: O(classes ×
 * links). If a route crosses a leaf, every destination switch is searched (exact, O(leaves ×
 * links)).
 */
static uint32_t dependency_cycle(const net *n, char *buf, size_t len)
{
    uint8_t **uses =
        xcalloc(n->n_switches ? n->n_switches : 1, sizeof(uint8_t *), "dependency matrices");
    uint8_t *has_hosts = xcalloc(n->n_switches ? n->n_switches : 1, 1, "destination switches");
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *sw = n->switches[i];
        if (!fabric_switch(sw))
            continue;
        uses[i] = xcalloc((size_t)sw->n_ports * sw->n_ports, 1, "dependency matrix");
        for (uint32_t p = 0; p < sw->n_ports; p++)
            has_hosts[i] |= sw->ports[p].up && sw->ports[p].peer->owner->kind == NODE_HOST;
    }
    /* twin classes of destination switches */
    uint32_t n_dst = 0, pool_n = 0;
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (has_hosts[i]) {
            n_dst++;
            pool_n += n->switches[i]->n_ports;
        }
    sig *sg = xmalloc(sizeof(sig) * (n_dst ? n_dst : 1), "twin classes");
    uint32_t *ids = xmalloc(sizeof(uint32_t) * (pool_n ? pool_n : 1), "twin classes");
    uint32_t k = 0, off = 0;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        if (!has_hosts[i])
            continue;
        const node *sw = n->switches[i];
        sig *g = &sg[k++];
        g->sw = i;
        g->off = off;
        g->n = 0;
        for (uint32_t p = 0; p < sw->n_ports; p++)
            if (sw->ports[p].up && fabric_switch(sw->ports[p].peer->owner))
                ids[off + g->n++] = sw->ports[p].peer->owner->id;
        qsort(ids + off, g->n, sizeof(uint32_t), cmp_u32);
        g->hash = 1469598103934665603ull ^ g->n;
        for (uint32_t j = 0; j < g->n; j++)
            g->hash = (g->hash ^ ids[off + j]) * 1099511628211ull;
        off += g->n;
    }
    sig_pool = ids;
    qsort(sg, n_dst, sizeof(sig), cmp_sig);
    uint32_t *dist = xmalloc(sizeof(uint32_t) * n->n_nodes, "dependency distances");
    uint32_t *queue = xmalloc(sizeof(uint32_t) * n->n_nodes, "dependency queue");
    bool valley = false;
    for (uint32_t i = 0; i < n_dst; i++) {
        bool rep = i == 0 || sg[i].hash != sg[i - 1].hash || sg[i].n != sg[i - 1].n ||
                   memcmp(ids + sg[i].off, ids + sg[i - 1].off, sizeof(uint32_t) * sg[i].n);
        /* a switch without switch neighbours reaches nothing: no twins to share routes with */
        if (rep || sg[i].n == 0)
            valley |= mark_uses(n, n->switches[sg[i].sw]->id, dist, queue, has_hosts, uses);
    }
    if (valley) /* a route crosses a leaf: the twin argument does not hold; search them all */
        for (uint32_t i = 0; i < n_dst; i++)
            mark_uses(n, n->switches[sg[i].sw]->id, dist, queue, has_hosts, uses);
    xfree(queue);
    xfree(dist);
    xfree(ids);
    xfree(sg);
    xfree(has_hosts);

    /* iterative DFS over ports (directed links); colour 0 white, 1 on stack, 2 done */
    uint8_t *colour = xcalloc(n->n_ports, 1, "dfs colours");
    uint32_t *stack = xmalloc(sizeof(uint32_t) * n->n_ports, "dfs stack");
    uint32_t *iter = xmalloc(sizeof(uint32_t) * n->n_ports, "dfs iterators");
    uint32_t found = 0;
    for (uint32_t root = 0; root < n->n_ports && !found; root++) {
        if (colour[root])
            continue;
        uint32_t depth = 0;
        stack[depth] = root;
        iter[depth] = 0;
        colour[root] = 1;
        depth = 1;
        while (depth && !found) {
            const port *a = n->ports[stack[depth - 1]];
            const node *s = a->peer->owner;
            bool pushed = false;
            if (fabric_switch(s)) {
                uint32_t in = a->peer->index;
                while (iter[depth - 1] < s->n_ports) {
                    uint32_t out = iter[depth - 1]++;
                    if (!uses[s->index][(size_t)in * s->n_ports + out])
                        continue;
                    uint32_t b = s->ports[out].id;
                    if (colour[b] == 1) {
                        /* cycle: from b's position on the stack to the top */
                        uint32_t from = 0;
                        while (stack[from] != b)
                            from++;
                        size_t kk = 0;
                        for (uint32_t j = from; j <= depth && kk < len; j++) {
                            char name[48];
                            net_port_name(n->ports[j < depth ? stack[j] : b], name, sizeof name);
                            kk += (size_t)snprintf(buf + kk, len - kk, "%s%s",
                                                   j > from ? " -> " : "", name);
                        }
                        found = depth - from;
                        break;
                    }
                    if (colour[b])
                        continue;
                    colour[b] = 1;
                    stack[depth] = b;
                    iter[depth] = 0;
                    depth++;
                    pushed = true;
                    break;
                }
            }
            if (!pushed && !found) {
                colour[stack[depth - 1]] = 2;
                depth--;
            }
        }
    }
    xfree(iter);
    xfree(stack);
    xfree(colour);
    for (uint32_t i = 0; i < n->n_switches; i++)
        xfree(uses[i]);
    xfree(uses);
    return found;
}

/* The switch port MTU against the NIC's largest RoCEv2 frame (nic.mtu payload + headers). */
static void check_mtu(const net *n, check_report *r)
{
    const scenario *sc = n->sc;
    uint32_t frame = n->max_frame_bytes, mtu = sc->fabric.mtu;
    bool ok = frame <= mtu;
    check_item *it = add_item(r, "mtu", ok ? CHECK_PASS : CHECK_FAIL);
    /* InfiniBand: the path MTU is the SM's (partitions.conf); frames keep RoCEv2's sizes in
     * the model (docs/network.md "InfiniBand") */
    const char *what = sc->fabric.link_layer == LINK_INFINIBAND ? "IB" : "RoCE";
    if (it)
        snprintf(it->detail, sizeof it->detail,
                 ok ? "%s path MTU %u: %u B frames fit the switch port MTU %u B"
                    : "%s path MTU %u: %u B frames exceed the switch port MTU %u B, so switches "
                      "drop every full-size data frame; raise fabric.mtu or lower nic.mtu",
                 what, sc->nic.mtu, frame, mtu);
}

/* EVPN-VXLAN tenants (workload/tenant.h): no GPU or NIC port in two tenants and no VRF importing
 * another's routes, so no job's flows have an endpoint in another tenant and no route crosses. */
static void check_tenants(const net *n, check_report *r)
{
    const scenario *sc = n->sc;
    if (!sc->n_tenants)
        return;
    tenant_map m;
    char why[320];
    bool ok = tenant_map_build(sc, n, &m);
    check_item *it;
    if (!ok) {
        it = add_item(r, "tenant_isolation", CHECK_FAIL);
        if (it)
            snprintf(it->detail, sizeof it->detail, "%s", m.why);
    } else if (tenant_route_leak(sc, why, sizeof why)) {
        it = add_item(r, "tenant_isolation", CHECK_FAIL);
        if (it)
            snprintf(it->detail, sizeof it->detail, "%s", why);
    } else {
        it = add_item(r, "tenant_isolation", CHECK_PASS);
        if (it) {
            int k = snprintf(it->detail, sizeof it->detail, "%u tenants (", sc->n_tenants);
            for (uint32_t t = 0; t < sc->n_tenants && k < (int)sizeof it->detail; t++)
                k += snprintf(it->detail + k, sizeof it->detail - (size_t)k,
                              "%s%s VNI %u: %u GPUs, %u NIC ports", t ? "; " : "",
                              sc->tenants[t].name, sc->tenants[t].vni, m.gpus_of[t], m.hosts_of[t]);
            if (k < (int)sizeof it->detail)
                snprintf(it->detail + k, sizeof it->detail - (size_t)k,
                         "): no GPU or NIC port in two tenants and no VRF imports another's "
                         "routes, so no flow or route crosses tenants; VTEPs at the %s",
                         sc->vtep == VTEP_HOST ? "hosts" : "leaves");
        }
    }
    tenant_map_free(&m);
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

/* Host h's plane: the NIC port it is (dual-plane fabrics), else 0. */
static uint32_t host_plane(const net *n, uint32_t h)
{
    uint32_t p = n->sc->fabric.planes;
    return p > 1 ? h % p : 0;
}

/*
 * Reachability from the structure, not by host pairs: with shortest-path routing over the links
 * that are up (net_route), a NIC port reaches another exactly when their switches are connected
 * through fabric switches (hosts and scale-up domains are not transit), when both sit in one
 * server with a scale-up domain (NVLink), or — rail-only, PXN — when some NIC of the sender's
 * server is connected to the destination's switch. Connected parts by union-find: O(links);
 * pairs counted per part: O(hosts × NICs per server). Dual-plane: pairs on one plane only.
 */
static void check_reachability(const net *n, check_report *r)
{
    uint32_t P = n->sc->fabric.planes > 1 ? n->sc->fabric.planes : 1;
    uint32_t *up = xmalloc(sizeof(uint32_t) * n->n_nodes, "reachability parts");
    for (uint32_t i = 0; i < n->n_nodes; i++)
        up[i] = i;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *pp = n->ports[i];
        if (pp->up && fabric_switch(pp->owner) && fabric_switch(pp->peer->owner))
            up[uf_find(up, pp->owner->id)] = uf_find(up, pp->peer->owner->id);
    }
    /* comp[h]: the part of host h's fabric switch, UINT32_MAX without one */
    uint32_t *comp =
        xmalloc(sizeof(uint32_t) * (n->n_backend_hosts ? n->n_backend_hosts : 1), "reachability");
    uint32_t *cnt = xcalloc((size_t)n->n_nodes * P, sizeof(uint32_t), "reachability counts");
    uint64_t pairs = 0, bad = 0;
    uint32_t *plane_n = xcalloc(P, sizeof(uint32_t), "reachability planes");
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) {
        const node *x = n->hosts[h];
        comp[h] = UINT32_MAX;
        if (x->net_port != UINT32_MAX && x->ports[x->net_port].up &&
            fabric_switch(x->ports[x->net_port].peer->owner))
            comp[h] = uf_find(up, x->ports[x->net_port].peer->owner->id);
        if (comp[h] != UINT32_MAX)
            cnt[(size_t)comp[h] * P + host_plane(n, h)]++;
        plane_n[host_plane(n, h)]++;
    }
    for (uint32_t q = 0; q < P; q++)
        pairs += (uint64_t)plane_n[q] * (plane_n[q] ? plane_n[q] - 1 : 0);
    /* the hosts of each server are contiguous (topo.c) */
    uint32_t ex_s = UINT32_MAX, ex_d = 0;
    uint32_t C[64];
    for (uint32_t s0 = 0; s0 < n->n_backend_hosts;) {
        uint32_t s1 = s0;
        while (s1 < n->n_backend_hosts && n->hosts[s1]->server == n->hosts[s0]->server)
            s1++;
        /* parts the server's traffic can leave through */
        uint32_t nc = 0;
        if (n->hosts_relay)
            for (uint32_t h = s0; h < s1 && nc < 64; h++) {
                bool seen = comp[h] == UINT32_MAX;
                for (uint32_t j = 0; j < nc && !seen; j++)
                    seen = C[j] == comp[h];
                if (!seen)
                    C[nc++] = comp[h];
            }
        for (uint32_t s = s0; s < s1; s++) {
            uint32_t q = host_plane(n, s), own = comp[s];
            const uint32_t *cs = n->hosts_relay ? C : &own;
            uint32_t ncs = n->hosts_relay ? nc : own != UINT32_MAX;
            uint64_t reach = 0;
            bool self_in = false;
            for (uint32_t j = 0; j < ncs; j++) {
                reach += cnt[(size_t)cs[j] * P + q];
                self_in |= cs[j] == own;
            }
            reach -= self_in; /* s itself */
            bool nvl = n->hosts[s]->nvl_port != UINT32_MAX;
            for (uint32_t d = s0; d < s1 && nvl; d++) {
                if (d == s || host_plane(n, d) != q)
                    continue;
                bool in = false;
                for (uint32_t j = 0; j < ncs && !in; j++)
                    in = comp[d] != UINT32_MAX && cs[j] == comp[d];
                reach += !in;
            }
            uint64_t all = plane_n[q] - 1;
            uint64_t miss = all > reach ? all - reach : 0;
            if (miss && ex_s == UINT32_MAX) {
                ex_s = s;
                for (uint32_t d = 0; d < n->n_backend_hosts; d++) {
                    if (d == s || host_plane(n, d) != q ||
                        (nvl && n->hosts[d]->server == n->hosts[s]->server))
                        continue;
                    bool in = false;
                    for (uint32_t j = 0; j < ncs && !in; j++)
                        in = comp[d] != UINT32_MAX && cs[j] == comp[d];
                    if (!in) {
                        ex_d = d;
                        break;
                    }
                }
            }
            bad += miss;
        }
        s0 = s1;
    }
    xfree(plane_n);
    xfree(cnt);
    xfree(comp);
    xfree(up);
    check_item *it = add_item(r, "reachability", bad ? CHECK_FAIL : CHECK_PASS);
    if (it) {
        if (bad)
            snprintf(it->detail, sizeof it->detail,
                     "%llu of %llu host pairs unreachable (e.g. %s -> %s)", (unsigned long long)bad,
                     (unsigned long long)pairs, n->hosts[ex_s]->name, n->hosts[ex_d]->name);
        else
            snprintf(it->detail, sizeof it->detail, "all %llu host pairs routed",
                     (unsigned long long)pairs);
    }
}

/*
 * Dual-plane fabrics: the fabric switches fall into exactly `planes` connected parts, plane q
 * holding the leaf of every NIC's port q and no other host; reported with its switch counts.
 */
static void check_planes(const net *n, check_report *r)
{
    uint32_t P = n->sc->fabric.planes;
    if (P < 2)
        return;
    uint32_t *up = xmalloc(sizeof(uint32_t) * n->n_nodes, "plane labels");
    for (uint32_t i = 0; i < n->n_nodes; i++)
        up[i] = i;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const node *a = n->ports[i]->owner, *b = n->ports[i]->peer->owner;
        if (a->kind == NODE_SWITCH && b->kind == NODE_SWITCH && a->tier != TIER_SCALE_UP &&
            b->tier != TIER_SCALE_UP)
            up[uf_find(up, a->id)] = uf_find(up, b->id);
    }
    uint32_t label[2] = {UINT32_MAX, UINT32_MAX}, bad = 0;
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) {
        const node *x = n->hosts[h];
        uint32_t c = uf_find(up, x->ports[x->net_port].peer->owner->id), q = host_plane(n, h);
        if (label[q] == UINT32_MAX)
            label[q] = c;
        bad += label[q] != c;
    }
    uint32_t cnt[2][3] = {{0}}, parts = 0;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (x->tier == TIER_SCALE_UP)
            continue;
        uint32_t c = uf_find(up, x->id);
        parts += c == x->id;
        for (uint32_t q = 0; q < P; q++)
            if (c == label[q] && x->tier >= TIER_LEAF && x->tier <= TIER_SUPER_SPINE)
                cnt[q][x->tier - TIER_LEAF]++;
    }
    bool ok = !bad && parts == P && label[0] != label[1];
    check_item *it = add_item(r, "planes", ok ? CHECK_PASS : CHECK_FAIL);
    if (it) {
        int k = snprintf(it->detail, sizeof it->detail, "%u %s planes", P,
                         ok ? "independent" : "fabric parts for");
        for (uint32_t q = 0; q < P && k < (int)sizeof it->detail; q++)
            k += snprintf(it->detail + k, sizeof it->detail - (size_t)k,
                          "%s plane %u: NIC port %u, %u leaves, %u spines%s", q ? ";" : ":", q, q,
                          cnt[q][0], cnt[q][1], cnt[q][2] ? " and super-spines" : "");
        if (k < (int)sizeof it->detail)
            snprintf(it->detail + k, sizeof it->detail - (size_t)k, "%s",
                     ok ? "; no link joins two planes"
                        : "; the planes meet or a NIC port is on the wrong plane");
    }
    xfree(up);
}

/* PFC configuration checks: headroom vs what each link needs, ECN marking before XOFF, the
 * NIC's data class lossless, and routing free of cyclic buffer dependencies. */
static void check_pfc(const net *n, check_report *r)
{
    const scenario *sc = n->sc;
    const cfg_switch *c = &sc->sw;
    check_item *it;
    if (!c->pfc_enabled && sc->nic.transport == TRANSPORT_UET) {
        /* UET is built for a lossy class: trimming turns its drops into immediate NAKs */
        it = add_item(r, "pfc_lossless_class", c->trimming ? CHECK_PASS : CHECK_WARN);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     c->trimming ? "PFC is disabled: UET traffic in class %u is lossy, as UET "
                                   "expects; switches trim what they cannot buffer and the "
                                   "receivers NAK it at once"
                                 : "PFC is disabled and switch.trimming is off: UET traffic in "
                                   "class %u is lossy and every congestion drop waits for nic.rto",
                     sc->nic.priority);
        return;
    }
    if (!c->pfc_enabled) {
        it = add_item(r, "pfc_lossless_class", CHECK_WARN);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     "PFC is disabled: RoCEv2 traffic in class %u is lossy, so congestion drops "
                     "packets and %s",
                     sc->nic.priority,
                     sc->nic.retransmit == RETX_SELECTIVE
                         ? "the NICs retransmit what was lost (selective repeat)"
                         : "go-back-N resends everything after each loss");
        return;
    }
    bool data_lossless = c->pfc_priorities >> sc->nic.priority & 1;
    it = add_item(r, "pfc_lossless_class", data_lossless ? CHECK_PASS : CHECK_FAIL);
    if (it)
        snprintf(it->detail, sizeof it->detail,
                 data_lossless ? "NIC data class %u is lossless on the switches (pfc_enable)"
                               : "NIC data class %u is not in switch.pfc.priorities: RoCE traffic "
                                 "would be lossy while PFC protects other classes",
                 sc->nic.priority);

    /* headroom: configured value vs auto, worst port */
    uint64_t worst_need = 0;
    const port *wp = NULL;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *sw = n->switches[i];
        if (sw->tier == TIER_SCALE_UP)
            continue;
        for (uint32_t p = 0; p < sw->n_ports; p++) {
            const port *ing = &sw->ports[p];
            /* the same figure `auto` reserves and the simulated link needs at worst */
            uint64_t need = net_pfc_headroom_port(ing, n->max_frame_bytes);
            if (need > worst_need) {
                worst_need = need;
                wp = ing;
            }
        }
    }
    char wname[48] = "";
    if (wp)
        net_port_name(wp, wname, sizeof wname);
    if (c->pfc_headroom_bytes) {
        bool ok = c->pfc_headroom_bytes >= worst_need;
        it = add_item(r, "pfc_headroom", ok ? CHECK_PASS : CHECK_WARN);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     "headroom %llu B per port and class; the longest/fastest link (%s, %.0f Gbps, "
                     "%.0f ns) needs %llu B%s",
                     (unsigned long long)c->pfc_headroom_bytes, wname,
                     wp ? (double)wp->rate_bps / 1e9 : 0.0, wp ? (double)wp->prop_ps / 1e3 : 0.0,
                     (unsigned long long)worst_need,
                     ok ? "" : ": frames in flight after XOFF will be dropped");
    } else {
        it = add_item(r, "pfc_headroom", CHECK_PASS);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     "headroom auto: up to %llu B per port and class (%s)",
                     (unsigned long long)worst_need, wname);
    }

    /* ECN must mark before PFC pauses: Kmax below a fixed XOFF; with the dynamic threshold the
     * XOFF of one congested ingress in an empty buffer is α·shared/(1+α). */
    if (c->ecn_enabled) {
        uint64_t shared = UINT64_MAX;
        for (uint32_t i = 0; i < n->n_switches; i++)
            if (n->switches[i]->tier != TIER_SCALE_UP && n->switches[i]->buf.size_bytes < shared)
                shared = n->switches[i]->buf.size_bytes;
        double xoff = c->pfc_xoff_bytes ? (double)c->pfc_xoff_bytes
                                        : c->alpha * (double)shared / (1.0 + c->alpha);
        bool ok = (double)c->ecn_kmax_bytes < xoff;
        it = add_item(r, "ecn_before_pfc", ok ? CHECK_PASS : CHECK_WARN);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     "ECN Kmax %llu B %s XOFF %.0f B%s",
                     (unsigned long long)c->ecn_kmax_bytes, ok ? "<" : ">=", xoff,
                     ok ? ": DCQCN slows senders before PFC pauses them"
                        : ": PFC would pause before ECN marks fully; lower kmax or raise xoff");
    } else {
        it = add_item(r, "ecn_before_pfc", CHECK_WARN);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     "ECN is disabled: only PFC limits queues, and pauses will spread");
    }

    char cyc[300];
    uint32_t len = dependency_cycle(n, cyc, sizeof cyc);
    it = add_item(r, "pfc_deadlock_free", len ? CHECK_FAIL : CHECK_PASS);
    if (it) {
        if (len)
            snprintf(it->detail, sizeof it->detail,
                     "cyclic buffer dependency over %u links: %.250s", len, cyc);
        else
            snprintf(it->detail, sizeof it->detail,
                     "no cyclic buffer dependency in the routing: PFC cannot deadlock");
    }
}

/* InfiniBand (fabric.link_layer infiniband): no PFC or ECN to check. The VL buffers against the
 * credit loop of the most demanding link (a buffer below it makes a lone flow wait for credits),
 * and credit-deadlock freedom: credit loops deadlock on the same cyclic buffer dependencies as
 * PFC. */
static void check_ib(const net *n, check_report *r)
{
    const cfg_ib *ib = &n->sc->fabric.ib;
    uint32_t worst = 0;
    const port *wp = NULL;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        if (!p->ib)
            continue;
        uint32_t need = net_ib_vl_blocks_auto(p, n->max_frame_bytes);
        if (need > worst) {
            worst = need;
            wp = p;
        }
    }
    char wname[48] = "";
    if (wp)
        net_port_name(wp, wname, sizeof wname);
    uint64_t need_b = (uint64_t)worst * IB_CREDIT_BYTES;
    bool ok = !ib->vl_buffer_bytes || ib->vl_buffer_bytes >= need_b;
    check_item *it = add_item(r, "ib_vl_buffer", ok ? CHECK_PASS : CHECK_WARN);
    if (it) {
        if (!ib->vl_buffer_bytes)
            snprintf(it->detail, sizeof it->detail,
                     "vl_buffer auto: up to %llu B per VL and port (link %s), the credit loop "
                     "at line rate",
                     (unsigned long long)need_b, wname);
        else
            snprintf(it->detail, sizeof it->detail,
                     "vl_buffer %llu B per VL and port; the longest credit loop (link %s) needs "
                     "%llu B%s",
                     (unsigned long long)ib->vl_buffer_bytes, wname, (unsigned long long)need_b,
                     ok ? "" : ": senders on it wait for credits even without congestion");
    }
    char cyc[300];
    uint32_t len = dependency_cycle(n, cyc, sizeof cyc);
    it = add_item(r, "credit_deadlock_free", len ? CHECK_FAIL : CHECK_PASS);
    if (it) {
        if (len)
            snprintf(it->detail, sizeof it->detail,
                     "cyclic buffer dependency over %u links: %.250s", len, cyc);
        else
            snprintf(it->detail, sizeof it->detail,
                     "no cyclic buffer dependency in the routing: credits cannot deadlock");
    }
}

/* Dual-port NICs: the QPs of a dead port survive to be moved only if their retry budget,
 * rto × (retry_count + 1), outlasts the failover delay; otherwise they error first. */
static void check_failover(const net *n, check_report *r)
{
    const scenario *sc = n->sc;
    if (sc->fabric.nic_ports != 2)
        return;
    sim_time budget = sc->nic.rto_ps * (sc->nic.retry_count + 1ull);
    if (sc->nic.rto_ps > SIM_TIME_MAX / 8)
        budget = SIM_TIME_MAX;
    bool ok = budget > sc->nic.failover_delay_ps;
    check_item *it = add_item(r, "dual_port_failover", ok ? CHECK_PASS : CHECK_WARN);
    if (it)
        snprintf(it->detail, sizeof it->detail,
                 ok ? "QPs outlast the failover: retry budget %.3f ms (nic.rto x (retry_count + "
                      "1)) > nic.failover_delay %.3f ms"
                    : "QPs on a dead port error before they fail over: retry budget %.3f ms "
                      "(nic.rto x (retry_count + 1)) <= nic.failover_delay %.3f ms; raise nic.rto "
                      "or lower nic.failover_delay",
                 (double)budget / (double)SIM_MS,
                 (double)sc->nic.failover_delay_ps / (double)SIM_MS);
}

void check_add_config_db(check_report *r, const char *dir, uint32_t files, uint32_t findings)
{
    check_item *it = add_item(r, "config_db", findings ? CHECK_FAIL : CHECK_PASS);
    if (it)
        snprintf(it->detail, sizeof it->detail,
                 findings ? "%u finding(s) in %u config_db.json file(s) of %.200s (listed below)"
                          : "%u finding(s): the %u config_db.json file(s) of %.200s agree with "
                            "each other and with the scenario",
                 findings, files, dir);
}

/*
 * Storage and frontend networks (fabric.storage, fabric.frontend): the fabric switches fall
 * into connected parts; a dedicated storage network and a frontend network must each be one
 * part of their own, holding all of their hosts and no backend NIC — so no backend route can
 * cross one of their switches and no storage or frontend route a backend switch (routing is
 * shortest paths over the links, and no link leaves the part) — while converged storage servers
 * must share the backend's part. Reports each network's hosts and switches.
 */
static void check_networks(const net *n, check_report *r)
{
    if (n->n_hosts == n->n_backend_hosts)
        return;
    uint32_t *up = xmalloc(sizeof(uint32_t) * n->n_nodes, "network parts");
    for (uint32_t i = 0; i < n->n_nodes; i++)
        up[i] = i;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const node *a = n->ports[i]->owner, *b = n->ports[i]->peer->owner;
        if (fabric_switch(a) && fabric_switch(b))
            up[uf_find(up, a->id)] = uf_find(up, b->id);
    }
    /* the part of each network's hosts (UINT32_MAX: none yet; UINT32_MAX - 1: split) */
    uint32_t part[NETWORKS_N] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    uint32_t hosts[NETWORKS_N] = {0}, sw[NETWORKS_N] = {0};
    uint32_t stor_srv_part = UINT32_MAX;
    bool ok = true;
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        const node *x = n->hosts[h];
        if (x->net_port == UINT32_MAX)
            continue;
        uint32_t c = uf_find(up, x->ports[x->net_port].peer->owner->id);
        bool srv =
            n->stor_srv0 != UINT32_MAX && h >= n->stor_srv0 && h < n->stor_srv0 + n->n_stor_srv;
        /* converged: the storage servers are reached over the backend */
        uint32_t w = srv && n->stor_nic0 == UINT32_MAX ? NETWORK_BACKEND : x->network;
        hosts[x->network]++;
        if (part[w] == UINT32_MAX)
            part[w] = c;
        else if (part[w] != c && !(w == NETWORK_BACKEND && n->sc->fabric.planes > 1))
            ok = false; /* a network in pieces (dual-plane backends are checked by `planes`) */
        if (srv)
            stor_srv_part = c;
    }
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (fabric_switch(n->switches[i]))
            sw[n->switches[i]->network]++;
    /* no part shared by two networks */
    for (int a = 0; a < NETWORKS_N; a++)
        for (int b = a + 1; b < NETWORKS_N; b++)
            if (part[a] != UINT32_MAX && part[a] == part[b])
                ok = false;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (!fabric_switch(x) || x->network == NETWORK_BACKEND)
            continue;
        uint32_t c = uf_find(up, x->id);
        uint32_t want = n->stor_nic0 == UINT32_MAX && x->network == NETWORK_STORAGE
                            ? part[NETWORK_BACKEND]
                            : part[x->network];
        ok &= c == want;
    }
    xfree(up);
    check_item *it = add_item(r, "networks", ok ? CHECK_PASS : CHECK_FAIL);
    if (!it)
        return;
    int k = 0;
    for (int w = NETWORK_STORAGE; w < NETWORKS_N && k < (int)sizeof it->detail; w++) {
        if (!hosts[w])
            continue;
        bool conv = w == NETWORK_STORAGE && n->stor_nic0 == UINT32_MAX;
        k += snprintf(it->detail + k, sizeof it->detail - (size_t)k,
                      "%s%s: %u host ports, %u switches, %s", k ? "; " : "", network_name(w),
                      hosts[w], sw[w],
                      conv ? (stor_srv_part == part[NETWORK_BACKEND]
                                  ? "converged (storage servers reached over the backend)"
                                  : "converged but cut off from the backend")
                           : "separate from the backend (no link joins them)");
    }
    if (!ok && k < (int)sizeof it->detail)
        snprintf(it->detail + k, sizeof it->detail - (size_t)k,
                 "; a network is in pieces or meets another");
}

void check_fabric(const net *n, check_report *r)
{
    const cfg_fabric *f = &n->sc->fabric;
    memset(r, 0, sizeof *r);
    r->passed = true;
    r->servers = n->n_servers;
    r->host_ports = n->n_backend_hosts;
    if (f->preset == PRESET_CUSTOM) {
        for (uint32_t i = 0; i < f->n_custom_hosts; i++)
            r->gpus += f->custom_hosts[i].gpus;
        r->nics = n->n_backend_hosts;
    } else {
        r->gpus = f->servers * f->gpus_per_server;
        r->nics = f->servers * (f->gpus_per_server / f->gpus_per_nic);
    }
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (x->network != NETWORK_BACKEND)
            continue; /* storage and frontend switches: the `networks` item */
        r->leaf += x->tier == TIER_LEAF;
        r->spine += x->tier == TIER_SPINE;
        r->super_spine += x->tier == TIER_SUPER_SPINE;
        r->scale_up += x->tier == TIER_SCALE_UP;
    }
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        const node *a = p->owner, *b = p->peer->owner;
        if (a->network != NETWORK_BACKEND || b->network != NETWORK_BACKEND)
            continue;
        if (a->kind == NODE_HOST)
            *(b->tier == TIER_SCALE_UP ? &r->links_scale_up : &r->links_host) += 1;
        else if (is_fabric_switch(a, TIER_LEAF) && is_fabric_switch(b, TIER_SPINE))
            r->links_leaf_spine++;
        else if (is_fabric_switch(a, TIER_SPINE) && is_fabric_switch(b, TIER_SUPER_SPINE))
            r->links_spine_super++;
    }

    const node *wl, *ws;
    uint64_t ld = 0, lu = 0, sd = 0, su = 0;
    double ol = tier_oversub(n, TIER_LEAF, &wl, &ld, &lu);
    double os = tier_oversub(n, TIER_SPINE, &ws, &sd, &su);
    r->oversub_leaf = wl ? ol : 1.0;
    r->oversub_spine = ws ? os : 1.0;

    bool nb = r->oversub_leaf <= 1.0 + 1e-9 && r->oversub_spine <= 1.0 + 1e-9;
    check_item *it = add_item(r, "non_blocking", nb ? CHECK_PASS : CHECK_FAIL);
    if (it) {
        int k = 0;
        if (wl)
            k += snprintf(it->detail, sizeof it->detail, "leaf %.2f:1 (worst %s: %.0f Gbps down, "
                          "%.0f Gbps up)", r->oversub_leaf, wl->name, (double)ld / 1e9,
                          (double)lu / 1e9);
        else if (r->leaf)
            k += snprintf(it->detail, sizeof it->detail, "leaves have no uplinks%s",
                          n->hosts_relay ? " (rail-only: cross-rail traffic crosses the scale-up "
                                           "domain)" : "");
        else
            k += snprintf(it->detail, sizeof it->detail, "no leaf tier");
        if (ws && k < (int)sizeof it->detail)
            snprintf(it->detail + k, sizeof it->detail - (size_t)k,
                     "; spine %.2f:1 (worst %s: %.0f Gbps down, %.0f Gbps up)", r->oversub_spine,
                     ws->name, (double)sd / 1e9, (double)su / 1e9);
    }

    check_reachability(n, r);
    check_networks(n, r);
    check_planes(n, r);
    check_mtu(n, r);
    if (n->sc->fabric.link_layer == LINK_INFINIBAND)
        check_ib(n, r);
    else
        check_pfc(n, r);
    check_failover(n, r);
    check_tenants(n, r);
}
