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
#include <string.h>

#include "../core/alloc.h"
#include "net.h"

#define NO_DIST UINT32_MAX

typedef struct intern_table {
    uint32_t *slot;            /* group id + 1, 0 = empty */
    uint32_t cap;              /* power of two */
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

/* True when the fabric behind host x's NIC port has a route to dst. */
static bool nic_reaches(const net *n, const node *x, uint32_t dst)
{
    if (x->net_port == UINT32_MAX || !x->ports[x->net_port].up)
        return false;
    const node *leaf = x->ports[x->net_port].peer->owner;
    return leaf->kind == NODE_SWITCH && leaf->fib[dst] != UINT32_MAX;
}

/*
 * A scale-up switch delivers to the GPUs (hosts) of its server; in rail-only fabrics it also
 * carries cross-rail traffic to the relay: the local NIC whose fabric reaches dst, preferring
 * the NIC on dst's rail (PXN), so the frame leaves the server on the destination's rail.
 */
static void route_scale_up(net *n, intern_table *t, node *nvs)
{
    for (uint32_t d = 0; d < n->n_hosts; d++) {
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
            if (best == UINT32_MAX || (x->rail == dst->rail &&
                                       nvs->ports[best].peer->owner->rail != dst->rail))
                best = p;
        }
        nvs->fib[d] = best == UINT32_MAX ? UINT32_MAX : intern(n, t, &best, 1);
    }
}

uint32_t net_host_egress(const net *n, const node *host, uint32_t dst)
{
    if (host->nvl_port != UINT32_MAX && n->hosts[dst]->server == host->server)
        return host->nvl_port;
    if (host->net_port != UINT32_MAX && (nic_reaches(n, host, dst) || !n->hosts_relay ||
                                         host->nvl_port == UINT32_MAX))
        return host->net_port;
    return host->nvl_port != UINT32_MAX ? host->nvl_port : 0;
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
        uint32_t g = x->fib[d];
        if (g == UINT32_MAX)
            return false;
        x = x->ports[n->groups[g].member[0]].peer->owner;
    }
    return false;
}

/* Breadth-first distances to host h over links that are up; drained switches are not entered
 * unless `with_drained`. */
static void bfs(const net *n, uint32_t h, uint32_t *dist, uint32_t *queue, bool with_drained)
{
    for (uint32_t i = 0; i < n->n_nodes; i++)
        dist[i] = NO_DIST;
    uint32_t qh = 0, qt = 0;
    dist[h] = 0;
    queue[qt++] = h;
    while (qh < qt) {
        const node *x = &n->nodes[queue[qh++]];
        if ((x->kind == NODE_HOST && x->id != h) || x->tier == TIER_SCALE_UP)
            continue; /* hosts and scale-up domains are not fabric transit */
        for (uint32_t p = 0; p < x->n_ports; p++) {
            const port *pp = &x->ports[p];
            if (!pp->up)
                continue;
            const node *y = pp->peer->owner;
            uint32_t v = y->id;
            if (dist[v] == NO_DIST && (with_drained || !y->drained)) {
                dist[v] = dist[x->id] + 1;
                queue[qt++] = v;
            }
        }
    }
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
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        uint32_t gid = sw->fib[h];
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
        sw->fib[h] = remap[gid];
    }
    xfree(members);
    xfree(remap);
}

node *net_find_switch(const net *n, const char *name)
{
    for (uint32_t s = 0; s < n->n_switches; s++)
        if (strcmp(n->switches[s]->name, name) == 0)
            return n->switches[s];
    return NULL;
}

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

    bool any_drained = false;
    for (uint32_t s = 0; s < n->n_switches; s++)
        any_drained |= n->switches[s]->drained;
    uint32_t *dist2 =
        any_drained ? xmalloc(sizeof(uint32_t) * n->n_nodes, "routing distances") : NULL;

    for (uint32_t h = 0; h < n->n_hosts; h++) {
        bfs(n, h, dist, queue, false);
        if (any_drained) {
            /* graceful shutdown (switch-drain): paths avoid drained switches; a switch that
             * can reach h only through one keeps the paths over them, as BGP keeps a
             * de-preferred route that is the only one */
            bfs(n, h, dist2, queue, true);
        }
        for (uint32_t s = 0; s < n->n_switches; s++) {
            node *sw = n->switches[s];
            if (sw->tier == TIER_SCALE_UP)
                continue;
            const uint32_t *d = dist;
            if (dist[sw->id] == NO_DIST && any_drained)
                d = dist2;
            if (d[sw->id] == NO_DIST) {
                sw->fib[h] = UINT32_MAX;
                continue;
            }
            uint32_t k = 0;
            for (uint32_t p = 0; p < sw->n_ports; p++) {
                const port *pp = &sw->ports[p];
                const node *v = pp->peer->owner;
                if (!pp->up || d[v->id] == NO_DIST || d[v->id] + 1 != d[sw->id])
                    continue;
                if (v->kind == NODE_HOST && v->id != h)
                    continue;
                members[k++] = p;
            }
            sw->fib[h] = k ? intern(n, &t, members, k) : UINT32_MAX;
        }
    }
    xfree(dist2);
    for (uint32_t s = 0; s < n->n_switches; s++)
        if (n->switches[s]->tier == TIER_SCALE_UP)
            route_scale_up(n, &t, n->switches[s]);
    xfree(t.slot);
    xfree(members);
    xfree(queue);
    xfree(dist);
}
