/*
 * plan_write.c — the files of the build sheet (docs/plan.md): bom.csv, racks.csv,
 * addressing.csv, cabling.csv, sonic/<switch>/config_db.json, nics/<server>.sh, nccl/<job>.env,
 * k8s/rail<r>.yaml, k8s/pod-annotations.yaml, plan.md. Each writer prints one file to a stream it
 * borrows.
 *
 * config_db.json follows the SONiC CONFIG_DB schema (table|key → field strings) with the table
 * and field names of the SONiC YANG models (sonic-port, sonic-interface, sonic-loopback-
 * interface, sonic-bgp-neighbor, sonic-dscp-tc-map, sonic-tc-queue-map, sonic-tc-priority-group-
 * map, sonic-port-qos-map, sonic-wred-profile, sonic-queue, sonic-buffer-pool, sonic-buffer-
 * profile, sonic-buffer-pg, sonic-pfcwd, sonic-device_metadata, sonic-device_neighbor,
 * sonic-cable-length). Values are what the simulation used: Kmin/Kmax/Pmax, the headroom
 * `auto` computed per port (xoff of the port's lossless profile), XON, the dynamic threshold.
 */
#include <math.h>
#include <string.h>

#include "../core/alloc.h"
#include "../report/jsonw.h"
#include "plan.h"

static bool is_scale_up(const node *x)
{
    return x->kind == NODE_SWITCH && x->tier == TIER_SCALE_UP;
}

static const char *tier_name(const node *x)
{
    if (x->kind == NODE_HOST)
        return "server";
    switch (x->tier) {
    case TIER_LEAF:
        return "leaf";
    case TIER_SPINE:
        return "spine";
    case TIER_SUPER_SPINE:
        return "super-spine";
    default:
        return "scale-up";
    }
}

static void gbps(char *buf, size_t len, uint64_t bps)
{
    snprintf(buf, len, "%gG", (double)bps / 1e9);
}

/* Switch model class: radix x fastest port speed, e.g. "64x800G" (the radix the scenario
 * gives the tier; custom fabrics: the ports in use). */
static void switch_class(const plan *p, const node *sw, char *buf, size_t len)
{
    char s[24];
    gbps(s, sizeof s, p->switch_bps[sw->index]);
    snprintf(buf, len, "%ux%s", plan_switch_radix(p, sw), s);
}

/* --- bom.csv ------------------------------------------------------------------------------- */

typedef struct bom_row {
    char category[16], item[128], tier[32];
    uint64_t count;
} bom_row;

typedef struct bom {
    bom_row *r;
    uint32_t n, cap;
} bom;

static void bom_add(bom *b, const char *cat, const char *item, const char *tier, uint64_t count)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (!strcmp(b->r[i].category, cat) && !strcmp(b->r[i].item, item) &&
            !strcmp(b->r[i].tier, tier)) {
            b->r[i].count += count;
            return;
        }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->r = xrealloc(b->r, sizeof(bom_row) * b->cap, "bom rows");
    }
    bom_row *r = &b->r[b->n++];
    snprintf(r->category, sizeof r->category, "%s", cat);
    snprintf(r->item, sizeof r->item, "%s", item);
    snprintf(r->tier, sizeof r->tier, "%s", tier);
    r->count = count;
}

/* Link tier label: "server-leaf", "leaf-spine", "spine-super-spine". */
static void link_tier(const port *a, const port *b, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s", tier_name(a->owner), tier_name(b->owner));
}

static void build_bom(const plan *p, bom *b)
{
    const net *n = p->n;
    char cls[128], t[32], s[24];
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (is_scale_up(x))
            continue;
        switch_class(p, x, cls, sizeof cls);
        bom_add(b, "switch", cls, tier_name(x), 1);
    }
    /* NICs: one per (server, rail); ports per NIC and speed from its first port */
    const cfg_fabric *f = &p->sc->fabric;
    uint32_t np = f->preset == PRESET_CUSTOM ? 1 : f->nic_ports;
    for (uint32_t h = 0; h < n->n_hosts; h += np) {
        gbps(s, sizeof s, n->hosts[h]->ports[n->hosts[h]->net_port].rate_bps);
        snprintf(cls, sizeof cls, "NIC %ux%s", np, s);
        bom_add(b, "nic", cls, "server", 1);
    }
    for (uint32_t i = 0; i < p->n_links; i++) {
        const port *a = n->ports[2 * i], *pb = n->ports[2 * i + 1];
        if (is_scale_up(a->owner) || is_scale_up(pb->owner))
            continue;
        enum plan_cable c = (enum plan_cable)p->link_class[i];
        link_tier(a, pb, t, sizeof t);
        gbps(s, sizeof s, a->rate_bps);
        const port *bk = p->port_ways[a->id] > 1 ? a : p->port_ways[pb->id] > 1 ? pb : NULL;
        if (bk) {
            /* a leg of a breakout cage (plan_build gave every leg the cage's class and, for
             * integrated cables, its longest leg's length): one breakout cable per cage, or
             * one breakout transceiver per cage plus a fiber and a transceiver per leg */
            char big[24];
            uint32_t ways = p->port_ways[bk->id];
            gbps(big, sizeof big, p->switch_bps[bk->owner->index]);
            bool first = p->port_slot[bk->id] % 8 == 0;
            if (c <= CABLE_AOC) {
                snprintf(cls, sizeof cls, "%s to %ux%s breakout %s %gm", big, ways, s,
                         plan_cable_name(c), (double)p->link_len_mm[i] / 1000.0);
                if (first)
                    bom_add(b, "cable", cls, t, 1);
            } else {
                snprintf(cls, sizeof cls, "%s %ux%s %s breakout transceiver", big, ways, s,
                         plan_cable_name(c));
                if (first)
                    bom_add(b, "optic", cls, t, 1);
                snprintf(cls, sizeof cls, "%s %s %gm", s, plan_cable_name(c),
                         (double)p->link_len_mm[i] / 1000.0);
                bom_add(b, "fiber", cls, t, 1);
                snprintf(cls, sizeof cls, "%s %s transceiver", s, plan_cable_name(c));
                bom_add(b, "optic", cls, t, 1);
            }
            continue;
        }
        snprintf(cls, sizeof cls, "%s %s %gm", s, plan_cable_name(c),
                 (double)p->link_len_mm[i] / 1000.0);
        bom_add(b, c <= CABLE_AOC ? "cable" : "fiber", cls, t, 1);
        if (c >= CABLE_SR) {
            snprintf(cls, sizeof cls, "%s %s transceiver", s, plan_cable_name(c));
            bom_add(b, "optic", cls, t, 2);
        }
    }
}

void plan_write_bom(FILE *f, const plan *p)
{
    bom b = {0};
    build_bom(p, &b);
    fputs("category,item,tier,count\n", f);
    uint64_t tot[5] = {0};
    static const char *const cats[] = {"switch", "nic", "cable", "fiber", "optic"};
    for (uint32_t i = 0; i < b.n; i++) {
        fprintf(f, "%s,%s,%s,%llu\n", b.r[i].category, b.r[i].item, b.r[i].tier,
                (unsigned long long)b.r[i].count);
        for (int k = 0; k < 5; k++)
            if (!strcmp(b.r[i].category, cats[k]))
                tot[k] += b.r[i].count;
    }
    fprintf(f, "total,switches,all,%llu\n", (unsigned long long)tot[0]);
    fprintf(f, "total,nics,all,%llu\n", (unsigned long long)tot[1]);
    fprintf(f, "total,cables (copper and active),all,%llu\n", (unsigned long long)tot[2]);
    fprintf(f, "total,fibers,all,%llu\n", (unsigned long long)tot[3]);
    fprintf(f, "total,transceivers,all,%llu\n", (unsigned long long)tot[4]);
    fprintf(f, "total,servers,all,%u\n", p->n->n_servers);
    fprintf(f, "total,racks,all,%u\n", p->n_racks);
    xfree(b.r);
}

/* --- racks.csv ----------------------------------------------------------------------------- */

void plan_write_racks(FILE *f, const plan *p)
{
    fputs("rack,row,position,kind,servers,switches,power_w,budget_w,over_budget\n", f);
    for (uint32_t r = 0; r < p->n_racks; r++) {
        const plan_rack *k = &p->racks[r];
        fprintf(f, "rack%u,%u,%u,%s,%u,%u,%llu,%llu,%s\n", r, k->row, k->pos,
                k->network ? "network" : "server", k->servers, k->switches,
                (unsigned long long)k->power_w, (unsigned long long)p->rack_budget_w,
                k->power_w > p->rack_budget_w ? "yes" : "no");
    }
    fprintf(f, "total,,,,%u,,%llu,,\n", p->n->n_servers, (unsigned long long)p->total_w);
}

/* --- addressing.csv ------------------------------------------------------------------------ */

/* IPv6 ULA (RFC 4193) /127s: fd00:0:0:<net>::<hi>:<lo>, net 1 host links, 2 fabric links,
 * ff loopbacks (/128). */
static void ip6(char *buf, size_t len, unsigned net6, uint32_t v)
{
    snprintf(buf, len, "fd00:0:0:%x::%x:%x", net6, v >> 16, v & 0xffff);
}

static uint32_t link_ip6_index(const plan *p, uint32_t link, unsigned *net6)
{
    if (p->link_p2p[link] != UINT32_MAX) {
        *net6 = 2;
        return 2u * p->link_p2p[link];
    }
    *net6 = 1;
    const node *a = p->n->ports[2 * link]->owner, *b = p->n->ports[2 * link + 1]->owner;
    const node *h = a->kind == NODE_HOST ? a : b;
    return 2u * h->index;
}

void plan_write_addressing(FILE *f, const plan *p)
{
    const net *n = p->n;
    bool v6 = p->sc->plan.ipv6;
    fputs("kind,device,interface,ipv4,ipv6,peer_device,peer_interface,peer_ipv4,rail,asn\n", f);
    char a4[20], b4[20], a6[48] = "", b6[48] = "", dn[40], pn[40], ifa[24], ifb[24];
    if (plan_ib(p)) {
        /* InfiniBand: the subnet manager assigns LIDs and routes; IP exists only as IPoIB, one
         * subnet for the whole fabric (interface ib<k> of HCA mlx5_<k>) */
        for (uint32_t i = 0; i < p->n_links; i++)
            for (int end = 0; end < 2; end++) {
                const port *x = n->ports[2 * i + end], *y = n->ports[2 * i + !end];
                if (x->owner->kind != NODE_HOST || is_scale_up(y->owner))
                    continue;
                char ad[40];
                plan_device_name(p, x->owner, dn, sizeof dn);
                plan_device_name(p, y->owner, pn, sizeof pn);
                plan_port_name(p, y, ifb, sizeof ifb);
                plan_nic_addr(p, x, ad, sizeof ad);
                fprintf(f, "ipoib,%s,ib%u,%s,,%s,%s,,%u,\n", dn, p->port_slot[x->id], ad, pn, ifb,
                        x->owner->rail);
            }
        return;
    }
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (is_scale_up(x))
            continue;
        plan_ip4(plan_loopback(p, i), a4, sizeof a4);
        if (v6)
            snprintf(a6, sizeof a6, "fd00:0:0:ff::%x/128", i + 1);
        fprintf(f, "loopback,%s,Loopback0,%s/32,%s,,,,,%llu\n", x->name, a4, a6,
                (unsigned long long)p->asn[i]);
    }
    for (uint32_t i = 0; i < p->n_links; i++) {
        const port *a = n->ports[2 * i], *b = n->ports[2 * i + 1];
        if (is_scale_up(a->owner) || is_scale_up(b->owner))
            continue;
        uint32_t ia, ib;
        plan_link_addr(p, i, &ia, &ib);
        plan_ip4(ia, a4, sizeof a4);
        plan_ip4(ib, b4, sizeof b4);
        if (v6) {
            unsigned net6;
            uint32_t v = link_ip6_index(p, i, &net6);
            bool host_a = a->owner->kind == NODE_HOST;
            ip6(a6, sizeof a6, net6, v + host_a);
            ip6(b6, sizeof b6, net6, v + !host_a);
            strcat(a6, "/127");
            strcat(b6, "/127");
        }
        for (int end = 0; end < 2; end++) {
            const port *x = end ? b : a, *y = end ? a : b;
            plan_device_name(p, x->owner, dn, sizeof dn);
            plan_device_name(p, y->owner, pn, sizeof pn);
            plan_port_name(p, x, ifa, sizeof ifa);
            plan_port_name(p, y, ifb, sizeof ifb);
            bool host = x->owner->kind == NODE_HOST;
            char rail[16] = "";
            if (host)
                snprintf(rail, sizeof rail, "%u", x->owner->rail);
            uint64_t asn = host ? 0 : p->asn[x->owner->index];
            char asn_s[24] = "";
            if (asn)
                snprintf(asn_s, sizeof asn_s, "%llu", (unsigned long long)asn);
            fprintf(f, "%s,%s,%s,%s/31,%s,%s,%s,%s,%s,%s\n", host ? "nic" : "p2p", dn, ifa,
                    end ? b4 : a4, end ? b6 : a6, pn, ifb, end ? a4 : b4, rail, asn_s);
        }
    }
}

/* --- cabling.csv --------------------------------------------------------------------------- */

void plan_write_cabling(FILE *f, const plan *p)
{
    const net *n = p->n;
    fputs("cable,a_device,a_port,a_rack,b_device,b_port,b_rack,speed_gbps,type,length_m,"
          "breakout\n",
          f);
    char da[40], db[40], pa[24], pb[24];
    uint32_t id = 0;
    for (uint32_t i = 0; i < p->n_links; i++) {
        const port *a = n->ports[2 * i], *b = n->ports[2 * i + 1];
        if (is_scale_up(a->owner) || is_scale_up(b->owner))
            continue;
        plan_device_name(p, a->owner, da, sizeof da);
        plan_device_name(p, b->owner, db, sizeof db);
        plan_port_name(p, a, pa, sizeof pa);
        plan_port_name(p, b, pb, sizeof pb);
        uint32_t ra = plan_node_rack(p, a->owner), rb = plan_node_rack(p, b->owner);
        char brk[32] = "";
        uint8_t w = p->port_ways[a->id] > 1 ? p->port_ways[a->id] : p->port_ways[b->id];
        if (w > 1) {
            const port *sw = p->port_ways[a->id] > 1 ? a : b;
            snprintf(brk, sizeof brk, "1:%u cage %u", w, p->port_slot[sw->id] / 8);
        }
        fprintf(f, "c%u,%s,%s,rack%u,%s,%s,rack%u,%g,%s,%g,%s\n", id++, da, pa, ra, db, pb, rb,
                (double)a->rate_bps / 1e9, plan_cable_name((enum plan_cable)p->link_class[i]),
                (double)p->link_len_mm[i] / 1000.0, brk);
    }
}

/* --- sonic/<switch>/config_db.json -------------------------------------------------------- */

static void kv(jsonw *w, const char *k, const char *v)
{
    jsonw_key(w, k);
    jsonw_str(w, v);
}

static void kvu(jsonw *w, const char *k, uint64_t v)
{
    char s[24];
    snprintf(s, sizeof s, "%llu", (unsigned long long)v);
    kv(w, k, s);
}

/* "3" or "3,4": the lossless classes as SONiC's pfc_enable lists them. */
static void prio_list(uint8_t mask, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < 8 && k + 3 < len; i++)
        if (mask >> i & 1)
            k += (size_t)snprintf(buf + k, len - k, "%s%d", k ? "," : "", i);
}

/* The lossless profile name of a port: SONiC's buffer-manager naming pg_lossless_<speed Mb/s>_
 * <cable m>m plus the headroom in bytes, because the headroom also depends on the pipeline
 * latency at the far end (a host link and a switch link of the same speed and length differ);
 * cable = the simulated length (propagation / 5 ns per m). */
static void profile_name(const port *pt, char *buf, size_t len)
{
    snprintf(buf, len, "pg_lossless_%llu_%llum_%llu_profile",
             (unsigned long long)(pt->rate_bps / 1000000),
             (unsigned long long)((pt->prop_ps + 4999) / 5000), (unsigned long long)pt->hdrm_bytes);
}

void plan_write_config_db(FILE *f, const plan *p, const node *sw)
{
    const scenario *sc = p->sc;
    const cfg_switch *c = &sc->sw;
    jsonw jw, *w = &jw;
    jsonw_init(w, f, true);
    char name[40], peer[40], pport[24], a4[20], b4[20], buf[96];
    plan_sw_cfg dc;
    plan_get_switch_cfg(p, sw, &dc);
    uint8_t lossless = dc.pfc;
    char pfc[24];
    prio_list(lossless, pfc, sizeof pfc);
    jsonw_obj_begin(w);

    jsonw_key(w, "DEVICE_METADATA");
    jsonw_obj_begin(w);
    jsonw_key(w, "localhost");
    jsonw_obj_begin(w);
    kv(w, "hostname", sw->name);
    kvu(w, "bgp_asn", p->asn[sw->index]);
    /* SONiC device types of a back-end (AI) fabric: T0 BackEndToRRouter, T1 BackEndLeafRouter,
     * T2 SpineRouter */
    kv(w, "type",
       sw->tier == TIER_LEAF    ? "BackEndToRRouter"
       : sw->tier == TIER_SPINE ? "BackEndLeafRouter"
                                : "SpineRouter");
    kv(w, "docker_routing_config_mode", "separated");
    jsonw_obj_end(w);
    jsonw_obj_end(w);

    jsonw_key(w, "PORT");
    jsonw_obj_begin(w);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        const port *pt = &sw->ports[i];
        uint32_t slot = p->port_slot[pt->id], lanes = 8u / p->port_ways[pt->id];
        plan_port_name(p, pt, name, sizeof name);
        jsonw_key(w, name);
        jsonw_obj_begin(w);
        size_t k = 0;
        for (uint32_t l = 0; l < lanes; l++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%u", l ? "," : "", slot + l);
        kv(w, "lanes", buf);
        kvu(w, "speed", pt->rate_bps / 1000000);
        kvu(w, "mtu", dc.mtu);
        /* RS(544,514) FEC is mandatory for PAM4 lanes (IEEE 802.3 Clause 91/119) */
        kv(w, "fec", "rs");
        kv(w, "admin_status", "up");
        plan_device_name(p, pt->peer->owner, peer, sizeof peer);
        plan_port_name(p, pt->peer, pport, sizeof pport);
        snprintf(buf, sizeof buf, "%s:%s", peer, pport);
        kv(w, "description", buf);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);

    jsonw_key(w, "DEVICE_NEIGHBOR");
    jsonw_obj_begin(w);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        const port *pt = &sw->ports[i];
        plan_port_name(p, pt, name, sizeof name);
        plan_device_name(p, pt->peer->owner, peer, sizeof peer);
        plan_port_name(p, pt->peer, pport, sizeof pport);
        jsonw_key(w, name);
        jsonw_obj_begin(w);
        kv(w, "name", peer);
        kv(w, "port", pport);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);

    jsonw_key(w, "LOOPBACK_INTERFACE");
    jsonw_obj_begin(w);
    jsonw_key(w, "Loopback0");
    jsonw_obj_begin(w);
    jsonw_obj_end(w);
    plan_ip4(plan_loopback(p, sw->index), a4, sizeof a4);
    snprintf(buf, sizeof buf, "Loopback0|%s/32", a4);
    jsonw_key(w, buf);
    jsonw_obj_begin(w);
    jsonw_obj_end(w);
    jsonw_obj_end(w);

    /* INTERFACE and BGP_NEIGHBOR: each port's /31; eBGP to every switch neighbour */
    jsonw_key(w, "INTERFACE");
    jsonw_obj_begin(w);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        const port *pt = &sw->ports[i];
        uint32_t link = pt->id / 2, ia, ib;
        plan_link_addr(p, link, &ia, &ib);
        plan_ip4(pt->id % 2 ? ib : ia, a4, sizeof a4);
        plan_port_name(p, pt, name, sizeof name);
        jsonw_key(w, name);
        jsonw_obj_begin(w);
        jsonw_obj_end(w);
        snprintf(buf, sizeof buf, "%s|%s/31", name, a4);
        jsonw_key(w, buf);
        jsonw_obj_begin(w);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "BGP_NEIGHBOR");
    jsonw_obj_begin(w);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        const port *pt = &sw->ports[i];
        const node *y = pt->peer->owner;
        if (y->kind != NODE_SWITCH)
            continue;
        uint32_t link = pt->id / 2, ia, ib;
        plan_link_addr(p, link, &ia, &ib);
        plan_ip4(pt->id % 2 ? ib : ia, a4, sizeof a4);
        plan_ip4(pt->id % 2 ? ia : ib, b4, sizeof b4);
        jsonw_key(w, b4);
        jsonw_obj_begin(w);
        kvu(w, "asn", p->asn[y->index]);
        kv(w, "name", y->name);
        kv(w, "local_addr", a4);
        kv(w, "admin_status", "up");
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);

    /* QoS maps: trust DSCP, class = DSCP / 8 (the ConnectX trust-dscp default, so DSCP 26 ->
     * 3 and 48 -> 6); TC = queue = priority group */
    jsonw_key(w, "DSCP_TO_TC_MAP");
    jsonw_obj_begin(w);
    jsonw_key(w, "WIRERATE");
    jsonw_obj_begin(w);
    for (int d = 0; d < 64; d++) {
        snprintf(buf, sizeof buf, "%d", d);
        kvu(w, buf, (uint64_t)dc.dscp_to_tc[d]);
    }
    jsonw_obj_end(w);
    jsonw_obj_end(w);
    const char *ident_maps[] = {"TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP"};
    for (int m = 0; m < 2; m++) {
        jsonw_key(w, ident_maps[m]);
        jsonw_obj_begin(w);
        jsonw_key(w, "WIRERATE");
        jsonw_obj_begin(w);
        for (int t = 0; t < 8; t++) {
            snprintf(buf, sizeof buf, "%d", t);
            kvu(w, buf, (uint64_t)t);
        }
        jsonw_obj_end(w);
        jsonw_obj_end(w);
    }
    jsonw_key(w, "PORT_QOS_MAP");
    jsonw_obj_begin(w);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        plan_port_name(p, &sw->ports[i], name, sizeof name);
        jsonw_key(w, name);
        jsonw_obj_begin(w);
        kv(w, "dscp_to_tc_map", "WIRERATE");
        kv(w, "tc_to_queue_map", "WIRERATE");
        kv(w, "tc_to_pg_map", "WIRERATE");
        if (lossless)
            kv(w, "pfc_enable", pfc);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);

    /* ECN: RED on the RoCE data queue, green = every ECN-capable packet; the thresholds and
     * Pmax (percent) the simulation used */
    if (dc.ecn) {
        jsonw_key(w, "WRED_PROFILE");
        jsonw_obj_begin(w);
        jsonw_key(w, "WIRERATE_ECN");
        jsonw_obj_begin(w);
        kv(w, "wred_green_enable", "true");
        kv(w, "ecn", "ecn_all");
        kvu(w, "green_min_threshold", dc.kmin_bytes);
        kvu(w, "green_max_threshold", dc.kmax_bytes);
        kvu(w, "green_drop_probability", (uint64_t)llround(dc.pmax * 100.0));
        jsonw_obj_end(w);
        jsonw_obj_end(w);
    }
    jsonw_key(w, "SCHEDULER");
    jsonw_obj_begin(w);
    for (int q = 0; q < 8; q++) {
        snprintf(buf, sizeof buf, "scheduler.%d", q);
        jsonw_key(w, buf);
        jsonw_obj_begin(w);
        kv(w, "type", c->scheduler == SCHED_DWRR ? "DWRR" : "STRICT");
        if (c->scheduler == SCHED_DWRR)
            kvu(w, "weight", c->weights[q]);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
    jsonw_key(w, "QUEUE");
    jsonw_obj_begin(w);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        plan_port_name(p, &sw->ports[i], name, sizeof name);
        for (int q = 0; q < 8; q++) {
            snprintf(buf, sizeof buf, "%s|%d", name, q);
            jsonw_key(w, buf);
            jsonw_obj_begin(w);
            snprintf(buf, sizeof buf, "scheduler.%d", q);
            kv(w, "scheduler", buf);
            if (dc.ecn && q == sc->nic.priority)
                kv(w, "wred_profile", "WIRERATE_ECN");
            jsonw_obj_end(w);
        }
    }
    jsonw_obj_end(w);

    if (lossless) {
        /* buffers: the headroom `auto` computed for each ingress (or the configured one) is the
         * xoff of its lossless profile; the shared pool is what is left (as the simulator's
         * pfc_setup reserves it); dynamic_th = log2(alpha) (SAI: alpha = 2^dynamic_th) */
        uint32_t classes = (uint32_t)__builtin_popcount(lossless);
        uint64_t reserved = 0;
        for (uint32_t i = 0; i < sw->n_ports; i++)
            reserved += sw->ports[i].hdrm_bytes * classes;
        jsonw_key(w, "BUFFER_POOL");
        jsonw_obj_begin(w);
        jsonw_key(w, "ingress_lossless_pool");
        jsonw_obj_begin(w);
        kv(w, "type", "ingress");
        kv(w, "mode", c->pfc_xoff_bytes ? "static" : "dynamic");
        kvu(w, "size", c->buffer_bytes - reserved);
        kvu(w, "xoff", reserved);
        jsonw_obj_end(w);
        jsonw_key(w, "egress_lossless_pool");
        jsonw_obj_begin(w);
        kv(w, "type", "egress");
        kv(w, "mode", c->pfc_xoff_bytes ? "static" : "dynamic");
        kvu(w, "size", c->buffer_bytes);
        jsonw_obj_end(w);
        jsonw_obj_end(w);

        jsonw_key(w, "BUFFER_PROFILE");
        jsonw_obj_begin(w);
        char done[64][96];
        int nd = 0;
        for (uint32_t i = 0; i < sw->n_ports; i++) {
            const port *pt = &sw->ports[i];
            profile_name(pt, buf, sizeof buf);
            bool seen = false;
            for (int k = 0; k < nd && !seen; k++)
                seen = !strcmp(done[k], buf);
            if (seen)
                continue;
            if (nd < 64)
                snprintf(done[nd++], sizeof done[0], "%s", buf);
            jsonw_key(w, buf);
            jsonw_obj_begin(w);
            kv(w, "pool", "ingress_lossless_pool");
            kvu(w, "xon", c->pfc_xon_bytes);
            kvu(w, "xon_offset", c->pfc_xon_offset_bytes);
            kvu(w, "xoff", pt->hdrm_bytes);
            kvu(w, "size", c->pfc_xon_bytes + pt->hdrm_bytes);
            if (c->pfc_xoff_bytes) {
                kvu(w, "static_th", c->pfc_xoff_bytes + pt->hdrm_bytes);
            } else {
                snprintf(buf, sizeof buf, "%d", (int)lround(log2(c->alpha)));
                kv(w, "dynamic_th", buf);
            }
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
        jsonw_key(w, "BUFFER_PG");
        jsonw_obj_begin(w);
        for (uint32_t i = 0; i < sw->n_ports; i++) {
            const port *pt = &sw->ports[i];
            plan_port_name(p, pt, name, sizeof name);
            for (int q = 0; q < 8; q++) {
                if (!(lossless >> q & 1))
                    continue;
                snprintf(buf, sizeof buf, "%s|%d", name, q);
                jsonw_key(w, buf);
                jsonw_obj_begin(w);
                profile_name(pt, buf, sizeof buf);
                kv(w, "profile", buf);
                jsonw_obj_end(w);
            }
        }
        jsonw_obj_end(w);
        jsonw_key(w, "CABLE_LENGTH");
        jsonw_obj_begin(w);
        jsonw_key(w, "AZURE");
        jsonw_obj_begin(w);
        for (uint32_t i = 0; i < sw->n_ports; i++) {
            const port *pt = &sw->ports[i];
            plan_port_name(p, pt, name, sizeof name);
            snprintf(buf, sizeof buf, "%llum", (unsigned long long)((pt->prop_ps + 4999) / 5000));
            kv(w, name, buf);
        }
        jsonw_obj_end(w);
        jsonw_obj_end(w);
        /* PFC watchdog (SONiC PFC_WD: times in ms) */
        jsonw_key(w, "PFC_WD");
        jsonw_obj_begin(w);
        for (uint32_t i = 0; i < sw->n_ports; i++) {
            plan_port_name(p, &sw->ports[i], name, sizeof name);
            jsonw_key(w, name);
            jsonw_obj_begin(w);
            kv(w, "action", c->wd_action == WD_FORWARD ? "forward" : "drop");
            kvu(w, "detection_time", c->wd_detect_ps / SIM_MS);
            kvu(w, "restoration_time", c->wd_restore_ps / SIM_MS);
            jsonw_obj_end(w);
        }
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
    jsonw_end(w);
}

/* --- nics/<server>.sh ------------------------------------------------------------------------ */

/* The DCQCN parameters as ConnectX exposes them in /sys/class/net/IF/ecn/roce_rp (rates in
 * Mb/s, times in microseconds; NVIDIA "DCQCN Parameters" / mlx5 ecn sysfs). */
static void write_rp(FILE *f, const cfg_dcqcn *d)
{
    struct {
        const char *name;
        unsigned long long v;
    } rp[] = {
        {"rpg_time_reset", d->rpg_time_reset_ps / SIM_US},
        {"rpg_byte_reset", d->rpg_byte_reset_bytes},
        {"rpg_threshold", d->rpg_threshold},
        {"rpg_ai_rate", d->rpg_ai_rate_bps / 1000000},
        {"rpg_hai_rate", d->rpg_hai_rate_bps / 1000000},
        {"rpg_gd", d->rpg_gd},
        {"rpg_min_dec_fac", d->rpg_min_dec_fac},
        {"rpg_min_rate", d->rpg_min_rate_bps / 1000000},
        {"rate_to_set_on_first_cnp", d->rate_to_set_on_first_cnp_bps / 1000000},
        {"dce_tcp_g", d->dce_tcp_g},
        {"dce_tcp_rtt", d->dce_tcp_rtt_ps / SIM_US},
        {"rate_reduce_monitor_period", d->rate_reduce_monitor_period_ps / SIM_US},
        {"initial_alpha_value", d->initial_alpha_value},
        {"clamp_tgt_rate", d->clamp_tgt_rate},
        {"clamp_tgt_rate_after_time_inc", d->clamp_tgt_rate_after_time_inc},
    };
    for (size_t i = 0; i < sizeof rp / sizeof rp[0]; i++)
        fprintf(f, "  echo %llu > /sys/class/net/$IF/ecn/roce_rp/%s\n", rp[i].v, rp[i].name);
    if (d->rpg_max_rate_bps)
        fprintf(f, "  echo %llu > /sys/class/net/$IF/ecn/roce_rp/rpg_max_rate\n",
                (unsigned long long)(d->rpg_max_rate_bps / 1000000));
    fprintf(f, "  echo %llu > /sys/class/net/$IF/ecn/roce_np/min_time_between_cnps\n",
            (unsigned long long)(d->min_time_between_cnps_ps / SIM_US));
}

/* Ethernet (IP) MTU of the NIC ports: nic.netdev_mtu. */
static uint32_t host_mtu(const scenario *sc)
{
    return sc->nic.netdev_mtu;
}

/* InfiniBand hosts: nothing of RoCE's QoS, ECN or PFC exists; the SM sets the MTU, SL-to-VL map
 * and congestion control (subnet/opensm.conf). The script checks that each HCA port came up as
 * the fabric simulated it and gives it its IPoIB address. */
static void write_nic_script_ib(FILE *f, const plan *p, uint32_t server)
{
    const net *n = p->n;
    const scenario *sc = p->sc;
    char sname[32], ad[40], peer[24];
    plan_server_name(server, sname, sizeof sname);
    fprintf(f,
            "#!/bin/sh\n# %s: host-side InfiniBand checks and IPoIB addresses (wirerate plan, "
            "scenario \"%s\").\n"
            "# HCA names are the plan's (mlx5_<k>, IPoIB ib<k>); map them to this host's names "
            "before use.\n# The subnet manager sets the MTU, SL-to-VL map and congestion control "
            "(subnet/opensm.conf).\nset -e\n\n",
            sname, sc->name);
    fputs("fail() { echo \"$1\" >&2; exit 1; }\n\n", f);
    for (uint32_t h = p->srv_host[server]; h < p->srv_host[server + 1]; h++) {
        const node *x = n->hosts[h];
        if (x->server != server || x->net_port == UINT32_MAX)
            continue;
        const port *pt = &x->ports[x->net_port];
        uint32_t k = p->port_slot[pt->id];
        plan_port_name(p, pt->peer, peer, sizeof peer);
        plan_nic_addr(p, pt, ad, sizeof ad);
        fprintf(f, "# rail %u: mlx5_%u port 1 -> %s %s\n", x->rail, k, pt->peer->owner->name, peer);
        fprintf(f,
                "ibstat mlx5_%u 1 | grep -q 'State: Active' || fail \"mlx5_%u: port not Active "
                "(cabled? subnet manager running?)\"\n",
                k, k);
        fprintf(f,
                "ibstat mlx5_%u 1 | grep -q 'Rate: %llu$' || fail \"mlx5_%u: not at %llu Gb/s "
                "as simulated\"\n",
                k, (unsigned long long)(pt->rate_bps / 1000000000ull), k,
                (unsigned long long)(pt->rate_bps / 1000000000ull));
        fprintf(f,
                "ibv_devinfo -d mlx5_%u | grep -q 'active_mtu:[[:space:]]*%u ' || fail "
                "\"mlx5_%u: active MTU is not %u as simulated (subnet/partitions.conf)\"\n",
                k, sc->nic.mtu, k, sc->nic.mtu);
        fprintf(f, "ip addr replace %s dev ib%u\nip link set dev ib%u up\n\n", ad, k, k);
    }
}

void plan_write_nic_script(FILE *f, const plan *p, uint32_t server)
{
    const net *n = p->n;
    const scenario *sc = p->sc;
    char sname[32], a4[20];
    if (plan_ib(p)) {
        write_nic_script_ib(f, p, server);
        return;
    }
    plan_server_name(server, sname, sizeof sname);
    fprintf(f,
            "#!/bin/sh\n# %s: host-side RoCE settings that must agree with the switches "
            "(wirerate plan, scenario \"%s\").\n"
            "# Interface and HCA names are the plan's (eth<k> = mlx5_<k>); map them to this "
            "host's names before use.\nset -e\n\n",
            sname, sc->name);
    for (uint32_t h = p->srv_host[server]; h < p->srv_host[server + 1]; h++) {
        const node *x = n->hosts[h];
        if (x->server != server || x->net_port == UINT32_MAX)
            continue;
        const port *pt = &x->ports[x->net_port];
        plan_nic_cfg nc;
        plan_get_nic_cfg(p, x, &nc);
        char pfc[32];
        size_t k = 0;
        for (int i = 0; i < 8; i++)
            k += (size_t)snprintf(pfc + k, sizeof pfc - k, "%s%d", i ? "," : "", nc.pfc >> i & 1);
        uint32_t local = p->port_slot[pt->id], ia, ib;
        plan_link_addr(p, pt->id / 2, &ia, &ib);
        plan_ip4(pt->id % 2 ? ib : ia, a4, sizeof a4);
        fprintf(f, "# rail %u: eth%u (mlx5_%u) -> %s\nIF=eth%u\n", x->rail, local, local,
                pt->peer->owner->name, local);
        fprintf(f, "ip link set dev $IF mtu %u\n", nc.netdev_mtu);
        fprintf(f, "ip addr replace %s/31 dev $IF\n", a4);
        fprintf(f, "mlnx_qos -i $IF --trust %s\n", nc.trust == TRUST_PCP ? "pcp" : "dscp");
        fprintf(f, "mlnx_qos -i $IF --pfc %s\n", pfc);
        /* the ToS RDMA-CM connections use: DSCP << 2 (ECN bits set by the NIC) */
        fprintf(f, "cma_roce_tos -d mlx5_%u -t %u\n", local, (unsigned)nc.dscp << 2);
        fprintf(f, "echo %u > /sys/class/net/$IF/ecn/roce_np/cnp_dscp\n", nc.cnp_dscp);
        fprintf(f, "echo %u > /sys/class/net/$IF/ecn/roce_np/cnp_802p_prio\n", nc.cnp_priority);
        if (sc->nic.cc == CC_DCQCN) {
            fprintf(f, "echo 1 > /sys/class/net/$IF/ecn/roce_np/enable/%u\n", nc.priority);
            fprintf(f, "echo 1 > /sys/class/net/$IF/ecn/roce_rp/enable/%u\n", nc.priority);
            fputs("{\n", f);
            write_rp(f, &sc->nic.dcqcn);
            fputs("}\n", f);
        } else {
            fprintf(f, "echo 0 > /sys/class/net/$IF/ecn/roce_rp/enable/%u\n", nc.priority);
        }
        fputc('\n', f);
    }
}

/* --- nccl/<job>.env ------------------------------------------------------------------------ */

void plan_write_nccl_env(FILE *f, const plan *p, uint32_t job)
{
    const scenario *sc = p->sc;
    const cfg_job *j = &sc->jobs[job];
    uint32_t hosts =
        plan_rails(p) * (sc->fabric.preset == PRESET_CUSTOM ? 1 : sc->fabric.nic_ports);
    if (plan_ib(p))
        /* InfiniBand: LID-routed, no GID index or traffic class; the service level selects
         * the VL the simulation used (SL n -> VL n in subnet/opensm.conf) */
        fprintf(f,
                "# NCCL environment for job \"%s\" (wirerate plan): one HCA per rail, the\n"
                "# simulated service level, the simulated QPs per connection.\n",
                j->name);
    else
        fprintf(f,
                "# NCCL environment for job \"%s\" (wirerate plan): one HCA per rail, RoCEv2 "
                "GID,\n# the lossless traffic class, the simulated QPs per connection.\n",
                j->name);
    fputs("NCCL_IB_HCA=", f);
    for (uint32_t k = 0; k < hosts; k++)
        fprintf(f, "%smlx5_%u", k ? "," : "", k);
    fputs("\n", f);
    if (plan_ib(p)) {
        fprintf(f, "NCCL_IB_SL=%u\n", sc->nic.priority);
    } else {
        /* GID index 3 is RoCEv2 over IPv4 on a ConnectX port with its default GID table */
        fputs("NCCL_IB_GID_INDEX=3\n", f);
        fprintf(f, "NCCL_IB_TC=%u\n", plan_data_dscp(sc) << 2);
    }
    fprintf(f, "NCCL_IB_QPS_PER_CONNECTION=%u\n", sc->nic.qps_per_connection);
    if (j->kind == JOB_COLLECTIVE && (j->algorithm == ALGO_RING || j->algorithm == ALGO_TREE))
        fprintf(f, "NCCL_ALGO=%s\n", j->algorithm == ALGO_RING ? "Ring" : "Tree");
    else if (j->kind == JOB_COLLECTIVE && j->algorithm == ALGO_NVLS)
        fputs("NCCL_NVLS_ENABLE=1\nNCCL_ALGO=NVLS\n", f);
    else if (j->kind == JOB_COLLECTIVE && j->algorithm == ALGO_NVLS_TREE)
        fputs("NCCL_NVLS_ENABLE=1\nNCCL_ALGO=NVLSTree\n", f);
    else if (j->kind == JOB_COLLECTIVE && j->algorithm == ALGO_SHARP)
        /* CollNet needs the SHARP plugin (nccl-rdma-sharp-plugins) loaded as well */
        fputs("NCCL_COLLNET_ENABLE=1\nNCCL_ALGO=CollNet\n", f);
    else if (j->kind == JOB_COLLECTIVE)
        fprintf(f, "# NCCL_ALGO not set: \"%s\" is not an NCCL algorithm name\n",
                coll_algo_name(j->algorithm));
}

/* --- k8s ----------------------------------------------------------------------------------- */

void plan_write_k8s_rail(FILE *f, const plan *p, uint32_t rail)
{
    /* Multus NetworkAttachmentDefinition (k8s.cni.cncf.io/v1) for the rail's VF pool, exposed
     * by the SR-IOV network device plugin as resource nvidia.com/rail<r>; addresses are given
     * per pod (static IPAM, "ips" capability) from addressing.csv. Ethernet: the SR-IOV CNI
     * with the host MTU; InfiniBand: the IB SR-IOV CNI (ib-sriov) in the default partition
     * (subnet/partitions.conf), IPoIB addresses. */
    char cni[64];
    if (plan_ib(p))
        snprintf(cni, sizeof cni, "\"ib-sriov\", \"pkey\": \"0x7fff\"");
    else
        snprintf(cni, sizeof cni, "\"sriov\", \"mtu\": %u", host_mtu(p->sc));
    fprintf(f,
            "apiVersion: k8s.cni.cncf.io/v1\n"
            "kind: NetworkAttachmentDefinition\n"
            "metadata:\n"
            "  name: rail%u\n"
            "  annotations:\n"
            "    k8s.v1.cni.cncf.io/resourceName: nvidia.com/rail%u\n"
            "spec:\n"
            "  config: '{\"cniVersion\": \"0.3.1\", \"name\": \"rail%u\", \"type\": %s, "
            "\"capabilities\": {\"ips\": true}, \"ipam\": {\"type\": \"static\"}}'\n",
            rail, rail, rail, cni);
}

void plan_write_k8s_pods(FILE *f, const plan *p)
{
    const net *n = p->n;
    char s[32], ad[40];
    fputs("# The pod annotation that attaches every rail, per server (k8s.v1.cni.cncf.io/networks,"
          "\n# Multus); addresses from addressing.csv.\n",
          f);
    for (uint32_t sv = 0; sv < n->n_servers; sv++) {
        plan_server_name(sv, s, sizeof s);
        fprintf(f, "%s:\n  k8s.v1.cni.cncf.io/networks: '[", s);
        bool first = true;
        for (uint32_t h = p->srv_host[sv]; h < p->srv_host[sv + 1]; h++) {
            const node *x = n->hosts[h];
            if (x->server != sv || x->net_port == UINT32_MAX)
                continue;
            const port *pt = &x->ports[x->net_port];
            plan_nic_addr(p, pt, ad, sizeof ad);
            fprintf(f, "%s{\"name\": \"rail%u\", \"ips\": [\"%s\"]}", first ? "" : ", ", x->rail,
                    ad);
            first = false;
        }
        fputs("]'\n", f);
    }
}

/* --- subnet/ (InfiniBand) ------------------------------------------------------------------ */

/* IB MTU code of a path MTU (IBTA vol. 1 §14.2.5.6 / OpenSM partitions.conf mtu=): 256 -> 1 ..
 * 4096 -> 5 (config.c allows only those five). */
static unsigned ib_mtu_code(uint32_t mtu)
{
    unsigned c = 1;
    while (c < 5 && (256u << (c - 1)) < mtu)
        c++;
    return c;
}

void plan_write_opensm(FILE *f, const plan *p)
{
    const scenario *sc = p->sc;
    const cfg_ib *ib = &sc->fabric.ib;
    bool cc = sc->nic.cc == CC_IB;
    fprintf(f,
            "# OpenSM settings the simulation assumed (wirerate plan, scenario \"%s\"): merge "
            "them\n# into the subnet manager's opensm.conf (option names of OpenSM's "
            "opensm.conf).\n\n",
            sc->name);
    /* The presets are up-down Clos fabrics: fat-tree is OpenSM's ftree engine; leaf-spine,
     * rail and custom fabrics are not symmetric fat trees, and updn is credit-loop free on any
     * ranked Clos (OpenSM doc/current-routing.txt). */
    const char *eng = sc->fabric.preset == PRESET_FAT_TREE ? "ftree" : "updn";
    fprintf(f,
            "# routing: up-down, loop free (the simulated paths are up-down)\nrouting_engine %s\n",
            eng);
    if (sc->lb.mode == LB_ADAPTIVE)
        fputs("# loadbalance.mode adaptive was simulated: adaptive routing is configured in "
              "NVIDIA's\n# subnet manager (UFM / MLNX OpenSM), which stock OpenSM lacks\n",
              f);
    else
        fputs("# the simulation spread flows by a per-QP hash over equal-cost paths; an SM's "
              "linear\n# forwarding tables give one path per destination LID (raise lmc for "
              "more)\n",
              f);
    fputs("lmc 0\n\n", f);
    /* QoS: the simulated traffic class is the VL; SL n -> VL n for n < 8 */
    fprintf(f,
            "# QoS: data on SL %u (nccl/<job>.env NCCL_IB_SL) maps to VL %u, the simulated "
            "class\nqos TRUE\nqos_max_vls 8\nqos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n\n",
            sc->nic.priority, sc->nic.priority);
    fprintf(f, "# congestion control (IBTA Annex A10): %s as simulated (nic.cc %s)\n",
            cc ? "on" : "off", cc ? "ib" : "none");
    fprintf(f, "congestion_control %s\n", cc ? "TRUE" : "FALSE");
    if (!cc)
        return;
    /* switches: the marking rate (control map bit 4); the victim mask stays empty — the model
     * marks only at a root of congestion (a port with credits), never a victim's. The
     * threshold's depth per level is the switch's own, so it is left to the switch. */
    fputs("cc_sw_cong_setting_control_map 0x10\n", f);
    fprintf(f, "cc_sw_cong_setting_marking_rate %u\n", ib->marking_rate);
    if (ib->cc_threshold_bytes)
        fprintf(f,
                "# simulated FECN threshold: an egress VL queue above %llu bytes. OpenSM's "
                "cc_sw_cong_setting_threshold\n# is a level 0x1 (loose) .. 0xF (aggressive) whose "
                "queue depth the switch defines:\n# choose the level of that depth from your "
                "switch's documentation\n",
                (unsigned long long)ib->cc_threshold_bytes);
    else
        fputs("# simulated FECN threshold: auto (docs/network.md \"InfiniBand\"); OpenSM's "
              "cc_sw_cong_setting_threshold\n# is a level 0x1 (loose) .. 0xF (aggressive) whose "
              "queue depth the switch defines\n",
              f);
    fprintf(f,
            "\n# HCAs: SL-based CC on the data SL\ncc_ca_cong_setting_port_control 0x0001\n"
            "cc_ca_cong_setting_control_map 0x%04X\n",
            1u << sc->nic.priority);
    /* CCTI_Timer in units of 1.024 us */
    fprintf(f, "cc_ca_cong_setting_ccti_timer %u %llu\n", sc->nic.priority,
            (unsigned long long)(ib->ccti_timer_ps / (1024 * SIM_NS)));
    fprintf(f, "cc_ca_cong_setting_ccti_increase %u %u\n", sc->nic.priority, ib->ccti_increase);
    fprintf(f, "cc_ca_cong_setting_ccti_min %u %u\n", sc->nic.priority, ib->ccti_min);
    /* the table up to ccti_limit (its last index): shift 0, the multiplier the delay */
    fputs("cc_cct ", f);
    for (uint32_t i = 0; i <= ib->ccti_limit && i < ib->n_cct; i++)
        fprintf(f, "%s0:%u", i ? "," : "", ib->cct[i]);
    fputs("\n", f);
}

void plan_write_partitions(FILE *f, const plan *p)
{
    const scenario *sc = p->sc;
    fprintf(f,
            "# OpenSM partitions.conf (wirerate plan, scenario \"%s\"): the default partition "
            "with\n# IPoIB and the simulated path MTU %u (mtu=%u), every port a full member.\n",
            sc->name, sc->nic.mtu, ib_mtu_code(sc->nic.mtu));
    fprintf(f,
            "Default=0x7fff, ipoib, mtu=%u, defmember=full : ALL, ALL_SWITCHES=full, "
            "SELF=full;\n",
            ib_mtu_code(sc->nic.mtu));
}

/* --- plan.md ------------------------------------------------------------------------------- */

void plan_write_md(FILE *f, const plan *p)
{
    const scenario *sc = p->sc;
    const net *n = p->n;
    fprintf(f, "# Build sheet: %s\n\n", sc->name);
    fprintf(f, "Generated by `wirerate plan` from the fabric the scenario simulates. Every "
               "figure below is in the CSV files beside this one.\n\n");
    fprintf(f, "## Summary\n\n| item | value |\n|---|---|\n");
    fprintf(f, "| servers | %u (%u GPUs) |\n", n->n_servers, net_gpus(n));
    fprintf(f,
            "| racks | %u server racks (%u server%s per rack, %s-cooled, %.1f kW budget) + "
            "%u network racks |\n",
            p->server_racks, p->servers_per_rack, p->servers_per_rack == 1 ? "" : "s",
            sc->plan.cooling == COOL_LIQUID ? "liquid" : "air", (double)p->rack_budget_w / 1e3,
            p->n_racks - p->server_racks);
    fprintf(f, "| switch placement | %s |\n",
            sc->plan.placement == PLACE_TOP_OF_RACK ? "top-of-rack"
            : sc->plan.placement == PLACE_RAIL_ROWS ? "rail-rows"
                                                    : "end-of-row");
    fprintf(f, "| IT power | %.1f kW (servers %.1f kW, switches %.1f kW, optics %.1f kW) |\n\n",
            (double)p->total_w / 1e3, (double)p->servers_w / 1e3, (double)p->switches_w / 1e3,
            (double)p->optics_w / 1e3);
    fprintf(f, "## Bill of materials\n\n| category | item | tier | count |\n|---|---|---|---|\n");
    bom b = {0};
    build_bom(p, &b);
    for (uint32_t i = 0; i < b.n; i++)
        fprintf(f, "| %s | %s | %s | %llu |\n", b.r[i].category, b.r[i].item, b.r[i].tier,
                (unsigned long long)b.r[i].count);
    xfree(b.r);
    if (plan_ib(p)) {
        const cfg_ib *ib = &sc->fabric.ib;
        fprintf(
            f,
            "\n## Addressing and routing (InfiniBand)\n\n"
            "- LIDs and routes from the subnet manager: routing_engine %s (subnet/opensm.conf)\n"
            "- IPoIB: one subnet, 10.0.0.0/8, interface ib<k> of HCA mlx5_<k> "
            "(addressing.csv)\n\n",
            sc->fabric.preset == PRESET_FAT_TREE ? "ftree" : "updn");
        fprintf(f,
                "## InfiniBand configuration (as simulated)\n\n"
                "- data on SL %u -> VL %u; credit-based flow control per VL, no PFC or ECN\n"
                "- congestion control %s",
                sc->nic.priority, sc->nic.priority, sc->nic.cc == CC_IB ? "on" : "off");
        if (sc->nic.cc == CC_IB)
            fprintf(f, ": marking rate %u, CCTI increase %u, CCTI timer %.1f us, CCTI min %u",
                    ib->marking_rate, ib->ccti_increase, (double)ib->ccti_timer_ps / 1e6,
                    ib->ccti_min);
        fprintf(f, "\n- path MTU %u (partitions.conf mtu=%u)\n\n", sc->nic.mtu,
                ib_mtu_code(sc->nic.mtu));
    } else {
        fprintf(f,
                "\n## Addressing and routing\n\n"
                "- a /31 per link: host links 10.0.0.0/8 (leaf even, NIC odd), switch links "
                "172.16.0.0/12, loopbacks 10.255.0.0/16%s\n"
                "- eBGP, RFC 7938 style, private 32-bit ASNs from %llu (RFC 6996): "
                "super-spines share %llu, each spine group (pod/plane) shares one, every leaf "
                "its own from %llu\n\n",
                sc->plan.ipv6 ? "; IPv6 /127s from fd00::/8 (RFC 4193)" : "",
                (unsigned long long)sc->plan.asn_base, (unsigned long long)sc->plan.asn_base,
                (unsigned long long)sc->plan.asn_base + 65536);
        fprintf(f,
                "## Lossless configuration (as simulated)\n\n"
                "- RoCE data DSCP %u -> priority %u%s; CNPs DSCP %u -> priority %u\n"
                "- ECN: Kmin %llu B, Kmax %llu B, Pmax %.0f %%%s\n"
                "- switch port MTU %u, host MTU %u, RoCE MTU %u\n\n",
                plan_data_dscp(sc), sc->nic.priority,
                sc->sw.pfc_enabled && (sc->sw.pfc_priorities >> sc->nic.priority & 1)
                    ? " (lossless)"
                    : "",
                plan_cnp_dscp(sc), sc->nic.cnp_priority, (unsigned long long)sc->sw.ecn_kmin_bytes,
                (unsigned long long)sc->sw.ecn_kmax_bytes, sc->sw.ecn_pmax * 100.0,
                sc->sw.ecn_enabled ? "" : " (ECN off)", sc->fabric.mtu, host_mtu(sc), sc->nic.mtu);
    }
    fprintf(f, "## Warnings\n\n");
    int warned = 0;
    if (p->long_links) {
        fprintf(f,
                "- %u cables are longer than the link the simulation modelled "
                "(fabric.link_latency / cable_length): their %s was computed for "
                "a shorter cable; set fabric.cable_length to the planned length and re-run\n",
                p->long_links, plan_ib(p) ? "credit loop (VL buffer)" : "PFC headroom");
        warned = 1;
    }
    if (p->over_budget) {
        fprintf(f,
                "- %u racks exceed the %.1f kW power budget (top-of-rack switches beside "
                "the servers, or switches and optics above it)\n",
                p->over_budget, (double)p->rack_budget_w / 1e3);
        warned = 1;
    }
    if (!warned)
        fputs("- none\n", f);
    fprintf(f,
            "\n## Files\n\nbom.csv, racks.csv, addressing.csv, cabling.csv, %s, "
            "nics/<server>.sh, nccl/<job>.env, k8s/rail<r>.yaml, k8s/pod-annotations.yaml "
            "(docs/plan.md describes each).\n",
            plan_ib(p) ? "subnet/opensm.conf, subnet/partitions.conf"
                       : "sonic/<switch>/config_db.json");
}

/* --- plan.html ----------------------------------------------------------------------------- */

static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

void plan_write_html(FILE *f, const plan *p)
{
    const scenario *sc = p->sc;
    const net *n = p->n;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>wirerate plan: ", f);
    html_text(f, sc->name);
    fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:70em}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em "
          ".6em;text-align:left}th{background:#eee}td.n{text-align:right}.warn{color:#a40}"
          "</style></head><body>\n<h1>Build sheet: ",
          f);
    html_text(f, sc->name);
    fprintf(f,
            "</h1>\n<table><tr><th>servers</th><td class=n>%u (%u GPUs)</td></tr>"
            "<tr><th>racks</th><td class=n>%u server racks (%u server%s each, %.1f kW "
            "%s-cooled budget) + %u network racks</td></tr><tr><th>IT power</th><td class=n>"
            "%.1f kW (servers %.1f, switches %.1f, optics %.1f)</td></tr></table>\n",
            n->n_servers, net_gpus(n), p->server_racks, p->servers_per_rack,
            p->servers_per_rack == 1 ? "" : "s", (double)p->rack_budget_w / 1e3,
            sc->plan.cooling == COOL_LIQUID ? "liquid" : "air", p->n_racks - p->server_racks,
            (double)p->total_w / 1e3, (double)p->servers_w / 1e3, (double)p->switches_w / 1e3,
            (double)p->optics_w / 1e3);
    fputs("<h2>Bill of materials</h2>\n<table><tr><th>category</th><th>item</th><th>tier</th>"
          "<th>count</th></tr>\n",
          f);
    bom b = {0};
    build_bom(p, &b);
    for (uint32_t i = 0; i < b.n; i++) {
        fputs("<tr><td>", f);
        html_text(f, b.r[i].category);
        fputs("</td><td>", f);
        html_text(f, b.r[i].item);
        fputs("</td><td>", f);
        html_text(f, b.r[i].tier);
        fprintf(f, "</td><td class=n>%llu</td></tr>\n", (unsigned long long)b.r[i].count);
    }
    xfree(b.r);
    fputs("</table>\n<h2>Power per rack</h2>\n", f);
    /* one bar per rack (at most 400 drawn), the budget as a line */
    uint32_t shown = p->n_racks < 400 ? p->n_racks : 400;
    uint64_t top = p->rack_budget_w;
    for (uint32_t r = 0; r < shown; r++)
        if (p->racks[r].power_w > top)
            top = p->racks[r].power_w;
    double W = 800, H = 200, bw = shown ? W / shown : W;
    fprintf(f,
            "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            W, H + 20, W, H + 20);
    for (uint32_t r = 0; r < shown; r++) {
        double h = top ? H * (double)p->racks[r].power_w / (double)top : 0;
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                "<title>rack%u: %.1f kW, %u servers, %u switches</title></rect>\n",
                r * bw, H - h, bw > 2 ? bw - 1 : bw, h,
                p->racks[r].power_w > p->rack_budget_w ? "#c33"
                : p->racks[r].network                  ? "#68a"
                                                       : "#4a4",
                r, (double)p->racks[r].power_w / 1e3, p->racks[r].servers, p->racks[r].switches);
        if (bw >= 28) /* room for a label: the rack under its bar, its kW above it */
            fprintf(f,
                    "<text x=\"%.2f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">"
                    "rack%u</text><text x=\"%.2f\" y=\"%.2f\" font-size=\"11\" "
                    "text-anchor=\"middle\">%.1f</text>\n",
                    r * bw + bw / 2, H + 14, r, r * bw + bw / 2, H - h - 3 > 11 ? H - h - 3 : 11.0,
                    (double)p->racks[r].power_w / 1e3);
    }
    double by = top ? H - H * (double)p->rack_budget_w / (double)top : 0;
    fprintf(f,
            "<line x1=\"0\" x2=\"%.0f\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#000\" "
            "stroke-dasharray=\"4\"/><text x=\"4\" y=\"%.2f\" font-size=\"12\">budget %.1f "
            "kW</text>\n</svg>\n",
            W, by, by, by > 14 ? by - 3 : by + 12, (double)p->rack_budget_w / 1e3);
    fputs("<p>kW per rack: green server racks, blue network racks, red over the budget (hover a "
          "bar for its servers and switches)</p>\n",
          f);
    if (shown < p->n_racks)
        fprintf(f, "<p>first %u of %u racks shown; all in racks.csv</p>\n", shown, p->n_racks);
    fputs("<h2>Warnings</h2>\n<ul>", f);
    if (p->long_links)
        fprintf(f,
                "<li class=warn>%u cables are longer than the simulated link: the %s "
                "was computed for a shorter cable (set fabric.cable_length)</li>",
                p->long_links, plan_ib(p) ? "credit loop (VL buffer)" : "PFC headroom");
    if (p->over_budget)
        fprintf(f, "<li class=warn>%u racks exceed the %.1f kW power budget</li>", p->over_budget,
                (double)p->rack_budget_w / 1e3);
    if (!p->long_links && !p->over_budget)
        fputs("<li>none</li>", f);
    fprintf(f,
            "</ul>\n<p>Files: plan.md, bom.csv, racks.csv, addressing.csv, cabling.csv, %s, "
            "nics/&lt;server&gt;.sh, nccl/&lt;job&gt;.env, k8s/.</p>\n</body></html>\n",
            plan_ib(p) ? "subnet/opensm.conf, subnet/partitions.conf"
                       : "sonic/&lt;switch&gt;/config_db.json");
}
