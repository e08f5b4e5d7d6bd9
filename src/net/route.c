/*
 * route.c — shortest-path ECMP routing, built once and shared.
 *
 * For every destination host h, a breadth-first search from h over links that are up gives each
 * switch its distance to h; a switch's next hops towards h are the ports whose peer is one hop
 * closer (another switch, or h itself — hosts never forward). In a Clos these are exactly the
 * up-down shortest paths. Next-hop sets are interned into ECMP groups shared by every switch and
 * destination that has the same member list, so a FIB entry is one uint32 (group id) per
 * (switch, host). Cost: O(hosts × links) per (re)build, done at start and after topology changes,
 * never per packet.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "net.h"

#define NO_DIST UINT32_MAX

typedef struct intern_table {
    uint32_t *slot; /* group id + 1, 0 = empty */
    uint32_t cap;   /* power of two */
} intern_table;

static uint64_t members_hash(const uint32_t *m, uint32_t k)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ k;
    for (uint32_t i = 0; i < k; i++) {
        h ^= m[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return h;
}

static void intern_grow(net *n, intern_table *t)
{
    uint32_t cap = t->cap ? t->cap * 2 : 1024;
    uint32_t *slot = xcalloc(cap, sizeof(uint32_t), "ECMP group table");
    for (uint32_t i = 0; i < t->cap; i++)
        if (t->slot[i]) {
            const ecmp_group *g = &n->groups[t->slot[i] - 1];
            uint32_t j = (uint32_t)members_hash(g->member, g->n) & (cap - 1);
            while (slot[j])
                j = (j + 1) & (cap - 1);
            slot[j] = t->slot[i];
        }
    xfree(t->slot);
    t->slot = slot;
    t->cap = cap;
}

static uint32_t intern(net *n, intern_table *t, const uint32_t *m, uint32_t k)
{
    if ((n->n_groups + 1) * 2 > t->cap)
        intern_grow(n, t);
    uint32_t j = (uint32_t)members_hash(m, k) & (t->cap - 1);
    while (t->slot[j]) {
        const ecmp_group *g = &n->groups[t->slot[j] - 1];
        if (g->n == k && memcmp(g->member, m, k * sizeof(uint32_t)) == 0)
            return t->slot[j] - 1;
        j = (j + 1) & (t->cap - 1);
    }
    if (n->n_groups == n->cap_groups) {
        n->cap_groups = n->cap_groups ? n->cap_groups * 2 : 256;
        n->groups = xrealloc(n->groups, sizeof(ecmp_group) * n->cap_groups, "ECMP groups");
    }
    ecmp_group *g = &n->groups[n->n_groups];
    g->n = k;
    g->member = ARENA_NEW_ARRAY(&n->mem, uint32_t, k);
    memcpy(g->member, m, k * sizeof(uint32_t));
    t->slot[j] = ++n->n_groups;
    return n->n_groups - 1;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* True when the fabric behind host x's NIC port has a route to dst. */
static bool nic_reaches(const net *n, const node *x, uint32_t dst)
{
    if (x->net_port == UINT32_MAX || !x->ports[x->net_port].up)
        return false;
    const node *leaf = x->ports[x->net_port].peer->owner;
    return leaf->kind == NODE_SWITCH && net_fib(leaf, dst) != UINT32_MAX;
}

/*
 * A scale-up switch delivers to the GPUs (hosts) of its server; in rail-only fabrics it also
 * carries cross-rail traffic to the relay: the local NIC whose fabric reaches dst, preferring
 * the NIC on dst's rail (PXN), so the frame leaves the server on the destination's rail.
 */
static void route_scale_up(net *n, intern_table *t, node *nvs)
{
    if (!n->hosts_relay) {
        /* no relays: only the server's own GPUs are reachable, each on its port (its FIB is
         * a window over them, topo.c); interned in destination order as the loop below does,
         * so group ids are the same */
        uint32_t *fib = nvs->fib, lo = nvs->fib_lo;
        for (uint32_t i = 0; i < nvs->fib_n; i++)
            fib[i] = UINT32_MAX;
        uint32_t local[64], nl = 0;
        for (uint32_t p = 0; p < nvs->n_ports && nl < 64; p++) {
            const port *pp = &nvs->ports[p];
            const node *x = pp->peer->owner;
            if (pp->up && x->kind == NODE_HOST && fib[x->id - lo] == UINT32_MAX) {
                fib[x->id - lo] = p; /* the first port to it, as the loop's `break` takes */
                local[nl++] = x->id;
            }
        }
        if (nl < 64 || nvs->n_ports <= 64) {
            qsort(local, nl, sizeof(uint32_t), cmp_u32);
            for (uint32_t i = 0; i < nl; i++) {
                uint32_t port_ix = fib[local[i] - lo];
                fib[local[i] - lo] = intern(n, t, &port_ix, 1);
            }
            return;
        }
        /* (a scale-up switch of more than 64 ports: the general loop below) */
    }
    for (uint32_t d = nvs->fib_lo; d < nvs->fib_lo + nvs->fib_n; d++) {
        const node *dst = n->hosts[d];
        uint32_t best = UINT32_MAX;
        for (uint32_t p = 0; p < nvs->n_ports; p++) {
            const port *pp = &nvs->ports[p];
            const node *x = pp->peer->owner;
            if (!pp->up)
                continue;
            if (x->id == d) {
                best = p;
                break;
            }
            if (!n->hosts_relay || dst->server == x->server || !nic_reaches(n, x, d))
                continue;
            if (best == UINT32_MAX ||
                (x->rail == dst->rail && nvs->ports[best].peer->owner->rail != dst->rail))
                best = p;
        }
        nvs->fib[d - nvs->fib_lo] = best == UINT32_MAX ? UINT32_MAX : intern(n, t, &best, 1);
    }
}

uint32_t net_host_egress(const net *n, const node *host, uint32_t dst)
{
    if (host->nvl_port != UINT32_MAX && n->hosts[dst]->server == host->server)
        return host->nvl_port;
    if (host->net_port != UINT32_MAX &&
        (nic_reaches(n, host, dst) || !n->hosts_relay || host->nvl_port == UINT32_MAX))
        return host->net_port;
    return host->nvl_port != UINT32_MAX ? host->nvl_port : 0;
}

sim_time net_path_latency(const net *n, uint32_t a, uint32_t b, uint32_t line_bytes)
{
    const node *h = n->hosts[a];
    const port *p = &h->ports[net_host_egress(n, h, b)];
    sim_time lat = p->prop_ps;
    const node *cur = p->peer->owner;
    for (int hop = 0; hop < 16 && cur->kind == NODE_SWITCH && cur->fib; hop++) {
        uint32_t g = net_fib(cur, b);
        if (g == UINT32_MAX || !n->groups[g].n)
            break;
        const port *e = &cur->ports[n->groups[g].member[0]];
        lat += cur->pipeline_ps + sim_ser_time(line_bytes, e->rate_bps) + e->prop_ps;
        cur = e->peer->owner;
    }
    return lat;
}

bool net_reaches(const net *n, uint32_t s, uint32_t d)
{
    /* follow the first next hop: every member of an ECMP group is on a shortest path, so one
     * arriving proves them all; a relay through another GPU's NIC counts (rail-only PXN) */
    const node *x = n->hosts[s];
    for (int hops = 0; hops < 64; hops++) {
        if (x->kind == NODE_HOST) {
            if (x->index == d)
                return true;
            if (hops > 0 && !n->hosts_relay)
                return false;
            x = x->ports[net_host_egress(n, x, d)].peer->owner;
            continue;
        }
        uint32_t g = net_fib(x, d);
        if (g == UINT32_MAX)
            return false;
        x = x->ports[n->groups[g].member[0]].peer->owner;
    }
    return false;
}

void net_route_withdraw(net *n, node *sw, uint32_t port_index)
{
    if (sw->kind != NODE_SWITCH)
        return;
    uint32_t n_old = n->n_groups;
    uint32_t *remap = xmalloc(sizeof(uint32_t) * (n_old ? n_old : 1), "withdraw map");
    uint32_t *members =
        xmalloc(sizeof(uint32_t) * (sw->n_ports ? sw->n_ports : 1), "next-hop scratch");
    for (uint32_t g = 0; g < n_old; g++)
        remap[g] = UINT32_MAX;
    /* in host order, so new groups get the ids a per-host FIB would give them; a class entry
     * is remapped at its first host (later ones find an id >= n_old or an unchanged one) */
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        uint32_t *entry = NULL;
        if (sw->fib_cls && sw->fib_cls[n->host_cls[h]] != NET_FIB_LOCAL)
            entry = &sw->fib_cls[n->host_cls[h]];
        else if (h - sw->fib_lo < sw->fib_n)
            entry = &sw->fib[h - sw->fib_lo];
        uint32_t gid = entry ? *entry : UINT32_MAX;
        if (gid == UINT32_MAX || gid >= n_old)
            continue;
        if (remap[gid] == UINT32_MAX) {
            const ecmp_group *g = &n->groups[gid];
            uint32_t k = 0;
            for (uint32_t i = 0; i < g->n; i++)
                if (g->member[i] != port_index)
                    members[k++] = g->member[i];
            if (k == g->n || k == 0) {
                remap[gid] = gid; /* not a member, or the only way: unchanged */
            } else {
                if (n->n_groups == n->cap_groups) {
                    n->cap_groups = n->cap_groups ? n->cap_groups * 2 : 256;
                    n->groups =
                        xrealloc(n->groups, sizeof(ecmp_group) * n->cap_groups, "ECMP groups");
                }
                ecmp_group *ng = &n->groups[n->n_groups];
                ng->n = k;
                ng->member = ARENA_NEW_ARRAY(&n->mem, uint32_t, k);
                memcpy(ng->member, members, k * sizeof(uint32_t));
                remap[gid] = n->n_groups++;
            }
        }
        *entry = remap[gid];
    }
    xfree(members);
    xfree(remap);
    net_changed(n);
}

node *net_find_switch(const net *n, const char *name)
{
    for (uint32_t s = 0; s < n->n_switches; s++)
        if (strcmp(n->switches[s]->name, name) == 0)
            return n->switches[s];
    return NULL;
}

/*
 * Attachment classes. The BFS from a destination host h reaches every switch through the fabric
 * switches h is cabled to (its up links; hosts and scale-up domains are not transit), so every
 * switch's distance to h depends only on that set A(h), not on h: hosts on the same leaf share
 * it. A switch outside A(h) takes its next hops from switch peers one hop closer, the same for
 * every host of the class; a switch in A(h) forwards on its own ports to h. So the routing runs
 * one multi-source BFS per class (a leaf-spine: one per leaf) instead of one per host, and a
 * switch's next hops per class are computed once: O(classes × links + hosts × switches) instead
 * of O(hosts × links). ECMP groups are still interned in the order the per-host loop visits
 * (host, switch), so their ids — and every result — are those of the per-host BFS.
 */
typedef struct route_class {
    uint32_t first; /* first index into att[] of its switch set */
    uint32_t n;     /* switches in A (sorted node ids) */
    uint64_t hash;
    bool done; /* its per-switch groups are computed */
} route_class;

void net_route(net *n)
{
    uint32_t *dist = xmalloc(sizeof(uint32_t) * n->n_nodes, "routing distances");
    uint32_t *queue = xmalloc(sizeof(uint32_t) * n->n_nodes, "routing queue");
    uint32_t max_ports = 1;
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (n->switches[i]->n_ports > max_ports)
            max_ports = n->switches[i]->n_ports;
    uint32_t *members = xmalloc(sizeof(uint32_t) * max_ports, "next-hop scratch");
    intern_table t = {0};
    n->n_groups = 0; /* old groups' member arrays stay in the arena until the run ends */

    /* 1. each host's class: the sorted set of fabric switches its up links reach */
    uint32_t nh = n->n_hosts, cap_att = 16, n_att = 0, n_cls = 0;
    uint32_t *att = xmalloc(sizeof(uint32_t) * cap_att, "attachment sets");
    /* (in the arena: the FIBs read it; a reroute's leaves the old one there until the end) */
    uint32_t *host_cls = ARENA_NEW_ARRAY(&n->mem, uint32_t, nh ? nh : 1);
    route_class *cls = xmalloc(sizeof(route_class) * (nh ? nh : 1), "route classes");
    uint32_t cls_cap = 16;
    while (cls_cap < 2 * nh)
        cls_cap *= 2;
    uint32_t *cls_slot = xcalloc(cls_cap, sizeof(uint32_t), "route class table");
    for (uint32_t h = 0; h < nh; h++) {
        const node *x = n->hosts[h];
        uint32_t first = n_att;
        for (uint32_t p = 0; p < x->n_ports; p++) {
            const port *pp = &x->ports[p];
            const node *v = pp->peer->owner;
            if (!pp->up || v->kind != NODE_SWITCH || v->tier == TIER_SCALE_UP)
                continue;
            if (n_att == cap_att) {
                cap_att *= 2;
                att = xrealloc(att, sizeof(uint32_t) * cap_att, "attachment sets");
            }
            att[n_att++] = v->id;
        }
        uint32_t k = n_att - first;
        qsort(att + first, k, sizeof(uint32_t), cmp_u32);
        uint32_t u = 0; /* unique */
        for (uint32_t i = 0; i < k; i++)
            if (!u || att[first + u - 1] != att[first + i])
                att[first + u++] = att[first + i];
        n_att = first + u;
        uint64_t hh = members_hash(att + first, u);
        uint32_t j = (uint32_t)hh & (cls_cap - 1), c = UINT32_MAX;
        while (cls_slot[j]) {
            const route_class *rc = &cls[cls_slot[j] - 1];
            if (rc->hash == hh && rc->n == u &&
                !memcmp(att + rc->first, att + first, u * sizeof(uint32_t))) {
                c = cls_slot[j] - 1;
                break;
            }
            j = (j + 1) & (cls_cap - 1);
        }
        if (c == UINT32_MAX) {
            c = n_cls++;
            cls[c] = (route_class){.first = first, .n = u, .hash = hh, .done = false};
            cls_slot[j] = c + 1;
        } else {
            n_att = first; /* a known set: drop the copy */
        }
        host_cls[h] = c;
    }
    n->host_cls = host_cls;
    n->n_fib_cls = n_cls;
    /* Each fabric switch's FIB: a group per class, and a window over the hosts cabled to it
     * (those whose class's set holds it); UINT32_MAX until routed. */
    uint32_t *win_lo = xmalloc(sizeof(uint32_t) * n->n_nodes, "FIB windows");
    uint32_t *win_hi = xcalloc(n->n_nodes, sizeof(uint32_t), "FIB windows");
    for (uint32_t i = 0; i < n->n_nodes; i++)
        win_lo[i] = UINT32_MAX;
    for (uint32_t h = 0; h < nh; h++) {
        const route_class *rc = &cls[host_cls[h]];
        for (uint32_t i = 0; i < rc->n; i++) {
            uint32_t a = att[rc->first + i];
            win_lo[a] = h < win_lo[a] ? h : win_lo[a];
            win_hi[a] = h + 1 > win_hi[a] ? h + 1 : win_hi[a];
        }
    }
    for (uint32_t s = 0; s < n->n_switches; s++) {
        node *sw = n->switches[s];
        if (sw->tier == TIER_SCALE_UP)
            continue;
        sw->fib_cls = ARENA_NEW_ARRAY(&n->mem, uint32_t, n_cls ? n_cls : 1);
        for (uint32_t c = 0; c < n_cls; c++)
            sw->fib_cls[c] = UINT32_MAX;
        sw->fib_lo = win_lo[sw->id] == UINT32_MAX ? 0 : win_lo[sw->id];
        sw->fib_n = win_lo[sw->id] == UINT32_MAX ? 0 : win_hi[sw->id] - win_lo[sw->id];
        sw->fib = ARENA_NEW_ARRAY(&n->mem, uint32_t, sw->fib_n ? sw->fib_n : 1);
        for (uint32_t i = 0; i < sw->fib_n; i++)
            sw->fib[i] = UINT32_MAX;
    }
    xfree(win_hi);
    xfree(win_lo);
    bool *in_att = xcalloc(n->n_nodes ? n->n_nodes : 1, sizeof(bool), "attachment marks");

    /* The fabric as a compact adjacency (CSR over nodes: the peer node of every up port, or
     * NO_DIST for a down one): the BFS and the next-hop scans walk 4-byte entries instead of
     * port structs of a kilobyte and more. */
    uint32_t *adj_first = xmalloc(sizeof(uint32_t) * (n->n_nodes + 1), "routing adjacency");
    uint32_t n_adj = 0;
    for (uint32_t i = 0; i < n->n_nodes; i++)
        n_adj += n->nodes[i].n_ports;
    uint32_t *adj = xmalloc(sizeof(uint32_t) * (n_adj ? n_adj : 1), "routing adjacency");
    uint8_t *adj_host = xmalloc(n_adj ? n_adj : 1, "routing adjacency");
    n_adj = 0;
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        const node *x = &n->nodes[i];
        adj_first[i] = n_adj;
        for (uint32_t p = 0; p < x->n_ports; p++) {
            const port *pp = &x->ports[p];
            const node *v = pp->peer->owner;
            adj[n_adj] = pp->up ? v->id : NO_DIST;
            adj_host[n_adj++] = v->kind == NODE_HOST;
        }
    }
    adj_first[n->n_nodes] = n_adj;
    bool *transit = xmalloc(n->n_nodes ? n->n_nodes : 1, "routing transit marks");
    for (uint32_t i = 0; i < n->n_nodes; i++) /* hosts and scale-up domains are not transit */
        transit[i] = n->nodes[i].kind != NODE_HOST && n->nodes[i].tier != TIER_SCALE_UP;
    /* The BFS's own adjacency: each transit node's up links to nodes other than hosts (a host's
     * distance is never read: step 3 skips host peers, and hosts are not transit). A leaf's
     * host ports are most of the fabric's links, and each class's BFS scanned them all. */
    uint32_t *badj_first = xmalloc(sizeof(uint32_t) * (n->n_nodes + 1), "routing adjacency");
    uint32_t n_badj = 0;
    for (uint32_t i = 0; i < n->n_nodes; i++)
        for (uint32_t e = adj_first[i]; transit[i] && e < adj_first[i + 1]; e++)
            n_badj += adj[e] != NO_DIST && !adj_host[e];
    uint32_t *badj = xmalloc(sizeof(uint32_t) * (n_badj ? n_badj : 1), "routing adjacency");
    n_badj = 0;
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        badj_first[i] = n_badj;
        for (uint32_t e = adj_first[i]; transit[i] && e < adj_first[i + 1]; e++)
            if (adj[e] != NO_DIST && !adj_host[e])
                badj[n_badj++] = adj[e];
    }
    badj_first[n->n_nodes] = n_badj;
    /* graceful shutdown (switch-drain): paths avoid drained switches; a switch that can reach
     * the destination only through one keeps the paths over them (a second BFS that enters
     * drained switches), as BGP keeps a de-preferred route that is the only one */
    bool *drained = xcalloc(n->n_nodes ? n->n_nodes : 1, sizeof(bool), "drain marks");
    bool any_drained = false;
    for (uint32_t s = 0; s < n->n_switches; s++)
        if (n->switches[s]->drained)
            any_drained = drained[n->switches[s]->id] = true;
    uint32_t *dist2 =
        any_drained ? xmalloc(sizeof(uint32_t) * n->n_nodes, "routing distances") : NULL;

    bool sw_ordered = true; /* switch ids increase with the switch index (step 3) */
    for (uint32_t s = 1; s < n->n_switches; s++)
        if (n->switches[s]->id <= n->switches[s - 1]->id)
            sw_ordered = false;
    for (uint32_t h = 0; h < nh; h++) {
        uint32_t c = host_cls[h];
        route_class *rc = &cls[c];
        const uint32_t *a = att + rc->first;
        for (uint32_t i = 0; i < rc->n; i++)
            in_att[a[i]] = true;
        if (!rc->done) {
            /* 2. the class's multi-source BFS: A at distance 1 (h at 0 behind them); with a
             * drain, once avoiding drained switches (dist) and once through them (dist2) */
            for (int pass = 0; pass < (any_drained ? 2 : 1); pass++) {
                uint32_t *d = pass ? dist2 : dist;
                bool avoid = any_drained && !pass;
                for (uint32_t i = 0; i < n->n_nodes; i++)
                    d[i] = NO_DIST;
                uint32_t qh = 0, qt = 0;
                for (uint32_t i = 0; i < rc->n; i++)
                    if (!avoid || !drained[a[i]]) {
                        d[a[i]] = 1;
                        queue[qt++] = a[i];
                    }
                while (qh < qt) {
                    uint32_t x = queue[qh++];
                    for (uint32_t e = badj_first[x]; e < badj_first[x + 1]; e++) {
                        uint32_t v = badj[e];
                        if (d[v] == NO_DIST && (!avoid || !drained[v])) {
                            d[v] = d[x] + 1;
                            queue[qt++] = v;
                        }
                    }
                }
            }
        }
        /* 3. in the per-host order (host, switch), so group ids come out as before. A class
         * already done has its groups: only the switches cabled to h have work (their own
         * ports to h), and those are its attachment set, in node order — the switches' order
         * when switch ids increase with their index (sw_ordered), so the interning order is
         * the loop's: O(hosts × attachments) instead of O(hosts × switches) */
        if (rc->done && sw_ordered) {
            for (uint32_t i = 0; i < rc->n; i++) {
                node *sw = &n->nodes[a[i]];
                uint32_t k = 0, base = adj_first[sw->id], np = adj_first[sw->id + 1] - base;
                for (uint32_t p = 0; p < np; p++)
                    if (adj[base + p] == h)
                        members[k++] = p;
                sw->fib[h - sw->fib_lo] = k ? intern(n, &t, members, k) : UINT32_MAX;
                sw->fib_cls[c] = NET_FIB_LOCAL;
                in_att[a[i]] = false;
            }
            continue;
        }
        for (uint32_t s = 0; s < n->n_switches; s++) {
            node *sw = n->switches[s];
            if (sw->tier == TIER_SCALE_UP)
                continue;
            uint32_t k = 0, base = adj_first[sw->id], np = adj_first[sw->id + 1] - base;
            if (in_att[sw->id]) { /* cabled to h: its own ports to h */
                for (uint32_t p = 0; p < np; p++)
                    if (adj[base + p] == h)
                        members[k++] = p;
                sw->fib[h - sw->fib_lo] = k ? intern(n, &t, members, k) : UINT32_MAX;
                sw->fib_cls[c] = NET_FIB_LOCAL;
                continue;
            }
            if (rc->done)
                continue; /* fib_cls[c] is set */
            const uint32_t *d = dist;
            if (dist[sw->id] == NO_DIST && any_drained)
                d = dist2; /* reachable only through a drained switch */
            uint32_t ds = d[sw->id];
            if (ds == NO_DIST) {
                sw->fib_cls[c] = UINT32_MAX;
                continue;
            }
            for (uint32_t p = 0; p < np; p++) {
                uint32_t v = adj[base + p];
                if (v == NO_DIST || adj_host[base + p] || d[v] == NO_DIST || d[v] + 1 != ds)
                    continue;
                members[k++] = p;
            }
            sw->fib_cls[c] = k ? intern(n, &t, members, k) : UINT32_MAX;
        }
        rc->done = true;
        for (uint32_t i = 0; i < rc->n; i++)
            in_att[a[i]] = false;
    }
    xfree(dist2);
    xfree(drained);
    xfree(transit);
    xfree(badj);
    xfree(badj_first);
    xfree(adj_host);
    xfree(adj);
    xfree(adj_first);
    for (uint32_t s = 0; s < n->n_switches; s++)
        if (n->switches[s]->tier == TIER_SCALE_UP)
            route_scale_up(n, &t, n->switches[s]);
    xfree(in_att);
    xfree(cls_slot);
    xfree(cls);
    xfree(att);
    xfree(t.slot);
    xfree(members);
    xfree(queue);
    xfree(dist);
    net_changed(n);
}
