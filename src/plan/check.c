/*
 * check.c — topology design checks (see check.h). Reads the built network only.
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

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

/* Follow the first next hop from host s towards d; true if it arrives. */
static bool reaches(const net *n, uint32_t s, uint32_t d)
{
    const node *x = n->hosts[s];
    for (int hops = 0; hops < 32; hops++) {
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
            if (s == d)
                continue;
            pairs++;
            if (!reaches(n, s, d)) {
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
}
