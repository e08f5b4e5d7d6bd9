/*
 * check.c — topology design checks (see check.h). Reads the built network only.
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"

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
        if (x->tier != tier)
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

/*
 * Cyclic buffer dependencies (Dally & Seitz; the PFC-deadlock condition of Hu et al., HotNets'16):
 * a graph whose vertices are directed links and whose edges join link a→s to link s→t when
 * some route enters switch s on the first and leaves on the second. Lossless traffic can
 * deadlock only if this graph has a cycle. Up-down routing in a Clos never makes one; routing
 * loops, rings and valley paths after failures can. Returns the cycle length (0 = none) and
 * writes it into buf.
 */
static uint32_t dependency_cycle(const net *n, char *buf, size_t len)
{
    /* uses[s][in * ports + out]: some destination's traffic enters s on `in`, leaves on `out` */
    uint8_t **uses = xcalloc(n->n_nodes, sizeof(uint8_t *), "dependency matrices");
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *sw = n->switches[i];
        uses[sw->id] = xcalloc((size_t)sw->n_ports * sw->n_ports, 1, "dependency matrix");
    }
    for (uint32_t d = 0; d < n->n_hosts; d++)
        for (uint32_t i = 0; i < n->n_switches; i++) {
            const node *sw = n->switches[i];
            if (sw->fib[d] == UINT32_MAX)
                continue;
            const ecmp_group *g = &n->groups[sw->fib[d]];
            for (uint32_t in = 0; in < sw->n_ports; in++) {
                const port *ip = &sw->ports[in];
                const node *up = ip->peer->owner;
                /* does traffic for d arrive on `in`? the upstream must send it this way */
                bool arrives;
                if (up->kind == NODE_HOST)
                    arrives = up->index != d && ip->peer->index == net_host_egress(n, up, d);
                else if (up->fib[d] == UINT32_MAX)
                    arrives = false;
                else {
                    const ecmp_group *ug = &n->groups[up->fib[d]];
                    arrives = false;
                    for (uint32_t k = 0; k < ug->n && !arrives; k++)
                        arrives = ug->member[k] == ip->peer->index;
                }
                if (!arrives)
                    continue;
                for (uint32_t k = 0; k < g->n; k++)
                    uses[sw->id][(size_t)in * sw->n_ports + g->member[k]] = 1;
            }
        }
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
            if (s->kind == NODE_SWITCH) {
                uint32_t in = a->peer->index;
                while (iter[depth - 1] < s->n_ports) {
                    uint32_t out = iter[depth - 1]++;
                    if (!uses[s->id][(size_t)in * s->n_ports + out])
                        continue;
                    uint32_t b = s->ports[out].id;
                    if (colour[b] == 1) {
                        /* cycle: from b's position on the stack to the top */
                        uint32_t from = 0;
                        while (stack[from] != b)
                            from++;
                        size_t k = 0;
                        for (uint32_t j = from; j <= depth && k < len; j++) {
                            char name[48];
                            net_port_name(n->ports[j < depth ? stack[j] : b], name, sizeof name);
                            k += (size_t)snprintf(buf + k, len - k, "%s%s", j > from ? " -> " : "",
                                                  name);
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
    for (uint32_t i = 0; i < n->n_nodes; i++)
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
    if (it)
        snprintf(it->detail, sizeof it->detail,
                 ok ? "RoCE path MTU %u: %u B frames fit the switch port MTU %u B"
                    : "RoCE path MTU %u: %u B frames exceed the switch port MTU %u B, so switches "
                      "drop every full-size data frame; raise fabric.mtu or lower nic.mtu",
                 sc->nic.mtu, frame, mtu);
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
    for (uint32_t h = 0; h < n->n_hosts; h++) {
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
    if (!c->pfc_enabled) {
        it = add_item(r, "pfc_lossless_class", CHECK_WARN);
        if (it)
            snprintf(it->detail, sizeof it->detail,
                     "PFC is disabled: RoCEv2 traffic in class %u is lossy, so congestion drops "
                     "packets and go-back-N retransmits",
                     sc->nic.priority);
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

void check_fabric(const net *n, check_report *r)
{
    const cfg_fabric *f = &n->sc->fabric;
    memset(r, 0, sizeof *r);
    r->passed = true;
    r->servers = n->n_servers;
    r->host_ports = n->n_hosts;
    if (f->preset == PRESET_CUSTOM) {
        for (uint32_t i = 0; i < f->n_custom_hosts; i++)
            r->gpus += f->custom_hosts[i].gpus;
        r->nics = n->n_hosts;
    } else {
        r->gpus = f->servers * f->gpus_per_server;
        r->nics = f->servers * (f->gpus_per_server / f->gpus_per_nic);
    }
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        r->leaf += x->tier == TIER_LEAF;
        r->spine += x->tier == TIER_SPINE;
        r->super_spine += x->tier == TIER_SUPER_SPINE;
        r->scale_up += x->tier == TIER_SCALE_UP;
    }
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        const node *a = p->owner, *b = p->peer->owner;
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

    uint64_t bad = 0, pairs = 0;
    uint32_t ex_s = 0, ex_d = 0;
    for (uint32_t s = 0; s < n->n_hosts; s++)
        for (uint32_t d = 0; d < n->n_hosts; d++) {
            /* dual-plane: a NIC reaches another port only on its own plane (the transport
             * sends from the NIC's port on the destination's plane) */
            if (s == d || host_plane(n, s) != host_plane(n, d))
                continue;
            pairs++;
            if (!net_reaches(n, s, d)) {
                if (!bad) {
                    ex_s = s;
                    ex_d = d;
                }
                bad++;
            }
        }
    it = add_item(r, "reachability", bad ? CHECK_FAIL : CHECK_PASS);
    if (it) {
        if (bad)
            snprintf(it->detail, sizeof it->detail,
                     "%llu of %llu host pairs unreachable (e.g. %s -> %s)",
                     (unsigned long long)bad, (unsigned long long)pairs, n->hosts[ex_s]->name,
                     n->hosts[ex_d]->name);
        else
            snprintf(it->detail, sizeof it->detail, "all %llu host pairs routed",
                     (unsigned long long)pairs);
    }
    check_planes(n, r);
    check_mtu(n, r);
    check_pfc(n, r);
    check_failover(n, r);
}
