/*
 * plan.c — rack layout, port names, cable lengths and classes, addresses and ASNs of a built
 * fabric (see plan.h). Linear in ports.
 */
#include "plan.h"

#include <string.h>

#include "../core/alloc.h"

/* Layout constants (docs/plan.md). EIA-310 / ANSI/TIA-942 data-centre racks are 600 mm wide;
 * hot/cold-aisle rows repeat every 7 floor tiles of 600 mm (4.2 m, the usual containment
 * pitch); a cable leaves a rack up a 1.5 m riser to the overhead tray at each end; a cable
 * inside one rack is taken as 2 m. */
#define RACK_WIDTH_MM 600u
#define ROW_PITCH_MM 4200u
#define RISER_MM 1500u
#define IN_RACK_MM 2000u

const char *plan_cable_name(enum plan_cable c)
{
    static const char *const names[] = {"DAC", "AEC", "AOC", "SR", "DR", "FR", "LR"};
    return (unsigned)c < CABLE_CLASSES ? names[c] : "?";
}

/*
 * The cheapest class whose reach covers len_mm at this link speed. Reaches: passive copper
 * (DAC) 3 m at 50 Gb/s lanes (IEEE 802.3cd 200GBASE-CR4) and 2 m at 100 Gb/s lanes (IEEE
 * 802.3ck 400GBASE-CR4); active electrical cables (AEC, retimed copper) 7 m (the longest sold,
 * e.g. Credo HiWire); active optical cables (AOC) up to 30 m as sold for 400G/800G; multimode SR
 * 100 m on OM4 (IEEE 802.3cm 400GBASE-SR8, 802.3db 400GBASE-SR4); single-mode DR 500 m (IEEE
 * 802.3bs 400GBASE-DR4); FR 2 km (802.3cu 400GBASE-FR4); LR 10 km (802.3cu 400GBASE-LR4-6).
 * Lanes: links above 200 Gb/s run 100 Gb/s lanes (OSFP / QSFP112), slower links 50 Gb/s.
 */
enum plan_cable plan_cable_class(uint64_t bps, uint32_t len_mm)
{
    uint32_t dac = bps > 200000000000ull ? 2000 : 3000;
    if (len_mm <= dac)
        return CABLE_DAC;
    if (len_mm <= 7000)
        return CABLE_AEC;
    if (len_mm <= 30000)
        return CABLE_AOC;
    if (len_mm <= 100000)
        return CABLE_SR;
    if (len_mm <= 500000)
        return CABLE_DR;
    if (len_mm <= 2000000)
        return CABLE_FR;
    return CABLE_LR;
}

/* Lengths sold (m): LinkX/AEC/AOC catalogues run 0.5 m steps to 3 m, then 5, 7, 10, 15, 20,
 * 30, ...; fibre trunks any length, rounded here to the same steps. */
static uint32_t round_length(uint32_t mm)
{
    static const uint32_t sold[] = {1000,   1500,   2000,   2500,   3000,   5000,    7000,
                                    10000,  15000,  20000,  25000,  30000,  50000,   70000,
                                    100000, 150000, 200000, 300000, 500000, 1000000, 2000000};
    for (size_t i = 0; i < sizeof sold / sizeof sold[0]; i++)
        if (mm <= sold[i])
            return sold[i];
    return (mm + 99999) / 100000 * 100000;
}

void plan_ip4(uint32_t ip, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 255, ip >> 8 & 255, ip & 255);
}

void plan_nic_addr(const plan *p, const port *pt, char *buf, size_t len)
{
    char a4[20];
    if (plan_ib(p)) {
        plan_ip4((10u << 24) + pt->owner->index + 1, a4, sizeof a4);
        snprintf(buf, len, "%s/8", a4);
        return;
    }
    uint32_t ia, ib;
    plan_link_addr(p, pt->id / 2, &ia, &ib);
    plan_ip4(pt->id % 2 ? ib : ia, a4, sizeof a4);
    snprintf(buf, len, "%s/31", a4);
}

void plan_server_name(uint32_t server, char *buf, size_t len)
{
    snprintf(buf, len, "server%u", server);
}

void plan_device_name(const plan *p, const node *x, char *buf, size_t len)
{
    if (x->kind == NODE_HOST && p->sc->fabric.preset != PRESET_CUSTOM)
        plan_server_name(x->server, buf, len);
    else
        snprintf(buf, len, "%s", x->name);
}

bool plan_ib(const plan *p)
{
    return p->sc->fabric.link_layer == LINK_INFINIBAND;
}

void plan_port_name(const plan *p, const port *pt, char *buf, size_t len)
{
    if (plan_ib(p)) {
        uint32_t slot = p->port_slot[pt->id];
        if (pt->owner->kind == NODE_HOST)
            snprintf(buf, len, "mlx5_%u", slot);
        else if (p->port_ways[pt->id] > 1) /* a split cage: sub-port of 8 / ways lanes */
            snprintf(buf, len, "ib1/%u/%u", slot / 8 + 1,
                     slot % 8 / (8u / p->port_ways[pt->id]) + 1);
        else
            snprintf(buf, len, "ib1/%u", slot / 8 + 1);
        return;
    }
    if (pt->owner->kind == NODE_HOST)
        snprintf(buf, len, "eth%u", p->port_slot[pt->id]);
    else
        snprintf(buf, len, "Ethernet%u", p->port_slot[pt->id]);
}

void plan_mask_text(unsigned m, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < 8 && k + 3 < len; i++)
        if (m >> i & 1)
            k += (size_t)snprintf(buf + k, len - k, "%s%d", k ? "," : "", i);
    if (!k)
        snprintf(buf, len, "(none)");
}

uint32_t plan_data_dscp(const scenario *sc)
{
    return sc->nic.dscp;
}

uint32_t plan_cnp_dscp(const scenario *sc)
{
    return sc->nic.cnp_dscp;
}

void plan_get_switch_cfg(const plan *p, const node *sw, plan_sw_cfg *c)
{
    const scenario *sc = p->sc;
    c->mtu = sc->fabric.mtu;
    c->pfc = sc->sw.pfc_enabled ? sc->sw.pfc_priorities : 0;
    c->ecn = sc->sw.ecn_enabled;
    c->kmin_bytes = sc->sw.ecn_kmin_bytes;
    c->kmax_bytes = sc->sw.ecn_kmax_bytes;
    c->pmax = sc->sw.ecn_pmax;
    /* trust DSCP with class = DSCP / 8: the ConnectX default map, so DSCP 26 -> 3, 48 -> 6 */
    for (int d = 0; d < 64; d++)
        c->dscp_to_tc[d] = (int8_t)(d / 8);
    uint32_t k = p->sw_dev ? p->sw_dev[sw->index] : UINT32_MAX;
    if (k == UINT32_MAX)
        return;
    const cfg_device *d = &sc->devices[k];
    if (d->set & DEV_MTU)
        c->mtu = d->mtu;
    if (d->set & DEV_PFC)
        c->pfc = d->pfc;
    if (d->set & DEV_KMIN)
        c->kmin_bytes = d->kmin_bytes;
    if (d->set & DEV_KMAX)
        c->kmax_bytes = d->kmax_bytes;
    if (d->set & DEV_PMAX)
        c->pmax = d->pmax;
    for (int i = 0; i < 64; i++)
        if (d->dscp_to_tc[i] >= 0)
            c->dscp_to_tc[i] = d->dscp_to_tc[i];
}

void plan_get_nic_cfg(const plan *p, const node *host, plan_nic_cfg *c)
{
    const scenario *sc = p->sc;
    c->netdev_mtu = sc->nic.netdev_mtu;
    c->pfc = sc->sw.pfc_enabled ? sc->sw.pfc_priorities : 0;
    c->priority = sc->nic.priority;
    c->cnp_priority = sc->nic.cnp_priority;
    c->dscp = sc->nic.dscp;
    c->cnp_dscp = sc->nic.cnp_dscp;
    c->trust = sc->nic.trust;
    uint32_t k = p->host_dev ? p->host_dev[host->index] : UINT32_MAX;
    if (k == UINT32_MAX)
        return;
    const cfg_device *d = &sc->devices[k];
    if (d->set & DEV_MTU)
        c->netdev_mtu = d->mtu;
    if (d->set & DEV_PFC)
        c->pfc = d->pfc;
    if (d->set & DEV_PRIO)
        c->priority = d->priority;
    if (d->set & DEV_CNP_PRIO)
        c->cnp_priority = d->cnp_priority;
    if (d->set & DEV_DSCP)
        c->dscp = d->dscp;
    if (d->set & DEV_CNP_DSCP)
        c->cnp_dscp = d->cnp_dscp;
    if (d->set & DEV_TRUST)
        c->trust = d->trust;
}

/* `devices:` names to switch and NIC-port indices; each device once. */
static int resolve_devices(plan *p, err *e)
{
    const net *n = p->n;
    const scenario *sc = p->sc;
    if (!sc->n_devices)
        return ERR_OK;
    p->sw_dev = xmalloc(sizeof(uint32_t) * (n->n_switches ? n->n_switches : 1), "plan: devices");
    p->host_dev = xmalloc(sizeof(uint32_t) * (n->n_hosts ? n->n_hosts : 1), "plan: devices");
    memset(p->sw_dev, 0xff, sizeof(uint32_t) * n->n_switches);
    memset(p->host_dev, 0xff, sizeof(uint32_t) * n->n_hosts);
    for (uint32_t k = 0; k < sc->n_devices; k++) {
        const cfg_device *d = &sc->devices[k];
        uint32_t hits = 0, dup = 0;
        if (!d->nic) {
            for (uint32_t i = 0; i < n->n_switches; i++)
                if (n->switches[i]->tier != TIER_SCALE_UP &&
                    !strcmp(n->switches[i]->name, d->name)) {
                    dup += p->sw_dev[i] != UINT32_MAX;
                    p->sw_dev[i] = k;
                    hits++;
                }
        } else {
            for (uint32_t h = 0; h < n->n_hosts; h++) {
                const node *x = n->hosts[h];
                char dev[40], full[80];
                plan_device_name(p, x, dev, sizeof dev);
                snprintf(full, sizeof full, "%s:eth%u", dev,
                         x->net_port == UINT32_MAX ? 0 : p->port_slot[x->ports[x->net_port].id]);
                if (!strcmp(dev, d->name) || !strcmp(full, d->name)) {
                    dup += p->host_dev[h] != UINT32_MAX;
                    p->host_dev[h] = k;
                    hits++;
                }
            }
        }
        if (!hits)
            return err_set(e, ERR_INVALID, sc->file, d->line, d->col,
                           "devices[%u].%s: no %s named \"%s\" in this fabric (%s)", k,
                           d->nic ? "nic" : "switch", d->nic ? "NIC" : "switch", d->name,
                           d->nic ? "servers are server0, server1, ...; one NIC port is "
                                    "serverN:ethK"
                                  : "switches are named leaf0, spine0, super0, ... as in "
                                    "addressing.csv");
        if (dup)
            return err_set(e, ERR_INVALID, sc->file, d->line, d->col,
                           "devices[%u].%s: \"%s\" is already listed in devices; give each "
                           "device one entry",
                           k, d->nic ? "nic" : "switch", d->name);
    }
    return ERR_OK;
}

uint32_t plan_rails(const plan *p)
{
    const cfg_fabric *f = &p->sc->fabric;
    return f->preset == PRESET_CUSTOM ? 1 : f->gpus_per_server / f->gpus_per_nic;
}

static bool is_scale_up(const node *x)
{
    return x->kind == NODE_SWITCH && x->tier == TIER_SCALE_UP;
}

/* First lanes of the switch's ports: cages at the fastest speed, slower ports that divide it
 * 2/4/8 ways grouped into shared cages in port order. */
static void name_ports(plan *p, const node *sw)
{
    uint64_t top = 0;
    for (uint32_t i = 0; i < sw->n_ports; i++)
        if (sw->ports[i].rate_bps > top)
            top = sw->ports[i].rate_bps;
    p->switch_bps[sw->index] = top;
    uint32_t cage = 0;
    uint32_t open_cage[9], open_used[9];
    for (int w = 0; w < 9; w++)
        open_cage[w] = UINT32_MAX, open_used[w] = 0;
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        const port *pt = &sw->ports[i];
        uint32_t ways = 1;
        if (pt->rate_bps && top % pt->rate_bps == 0) {
            uint64_t w = top / pt->rate_bps;
            ways = w == 2 || w == 4 || w == 8 ? (uint32_t)w : 1;
        }
        p->port_ways[pt->id] = (uint8_t)ways;
        if (ways == 1) {
            p->port_slot[pt->id] = 8 * cage++;
            continue;
        }
        if (open_cage[ways] == UINT32_MAX || open_used[ways] == ways) {
            open_cage[ways] = cage++;
            open_used[ways] = 0;
        }
        p->port_slot[pt->id] = 8 * open_cage[ways] + open_used[ways]++ * (8 / ways);
    }
    p->switch_cages[sw->index] = cage;
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

/*
 * ASNs, RFC 7938 §5.2.1: the top tier shares asn_base; the spines of one group (joined to the
 * same leaves: a pod, per plane) share asn_base + 1 + group; each leaf has asn_base + 65536 +
 * leaf. Two-tier fabrics: spines share asn_base + 1 (one group), leaves unique.
 */
static void assign_asns(plan *p)
{
    const net *n = p->n;
    uint64_t base = p->sc->plan.asn_base;
    uint32_t *up = xmalloc(sizeof(uint32_t) * n->n_switches, "ASN groups");
    for (uint32_t i = 0; i < n->n_switches; i++)
        up[i] = i;
    /* spines that share a leaf are one group */
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (x->tier != TIER_LEAF)
            continue;
        uint32_t first = UINT32_MAX;
        for (uint32_t k = 0; k < x->n_ports; k++) {
            const node *y = x->ports[k].peer->owner;
            if (y->kind != NODE_SWITCH || y->tier != TIER_SPINE)
                continue;
            if (first == UINT32_MAX)
                first = y->index;
            else
                up[uf_find(up, y->index)] = uf_find(up, first);
        }
    }
    uint32_t *group = xmalloc(sizeof(uint32_t) * n->n_switches, "ASN group ids");
    uint32_t groups = 0, leaves = 0;
    for (uint32_t i = 0; i < n->n_switches; i++)
        group[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        switch (x->tier) {
        case TIER_SUPER_SPINE:
            p->asn[i] = base;
            break;
        case TIER_SPINE: {
            uint32_t r = uf_find(up, i);
            if (group[r] == UINT32_MAX)
                group[r] = groups++;
            p->asn[i] = base + 1 + group[r];
            break;
        }
        case TIER_LEAF:
            p->asn[i] = base + 65536 + leaves++;
            break;
        default:
            p->asn[i] = 0;
            break;
        }
    }
    xfree(group);
    xfree(up);
}

static uint64_t switch_power(const plan *p, const node *sw);

/* The rail of a leaf: that of its first NIC port. */
static uint32_t switch_rail(const net *n, const node *sw)
{
    (void)n;
    for (uint32_t k = 0; k < sw->n_ports; k++)
        if (sw->ports[k].peer->owner->kind == NODE_HOST)
            return sw->ports[k].peer->owner->rail;
    return 0;
}

/* Place racks and switches; fills racks[], server_rack[], switch_rack[]. */
static int layout(plan *p, err *e)
{
    const net *n = p->n;
    const scenario *sc = p->sc;
    const cfg_plan *c = &sc->plan;
    p->server_w = c->server_power_w;
    p->rack_budget_w = c->rack_power_w             ? c->rack_power_w
                       : c->cooling == COOL_LIQUID ? 130000
                                                   : 15000;
    if (p->server_w > p->rack_budget_w)
        return config_error_at(sc, e, c->rack_power_w ? "plan.rack_power" : "plan.server_power",
                               "plan: a %.1f kW server does not fit a %.1f kW rack; raise "
                               "plan.rack_power, use plan.cooling: liquid, or check "
                               "plan.server_power",
                               (double)p->server_w / 1e3, (double)p->rack_budget_w / 1e3);
    p->servers_per_rack = (uint32_t)(p->rack_budget_w / p->server_w);
    uint32_t S = n->n_servers, rpr = c->racks_per_row;
    p->server_racks = S ? (S + p->servers_per_rack - 1) / p->servers_per_rack : 0;
    p->rows = (p->server_racks + rpr - 1) / rpr;
    p->server_rack = xcalloc(S ? S : 1, sizeof(uint32_t), "plan: server racks");
    p->switch_rack =
        xmalloc(sizeof(uint32_t) * (n->n_switches ? n->n_switches : 1), "plan: switch racks");
    /* network racks: at most one set per row (leaves) plus the spine row; count first */
    uint32_t *row_sw = xcalloc(p->rows + 1, sizeof(uint32_t), "plan: switches per row");
    for (uint32_t s = 0; s < S; s++)
        p->server_rack[s] = s / p->servers_per_rack;
    /* a switch's home server: the server of its first host port (leaves), else none */
    uint32_t *home = xmalloc(sizeof(uint32_t) * (n->n_switches ? n->n_switches : 1), "plan");
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        home[i] = UINT32_MAX;
        for (uint32_t k = 0; k < x->n_ports && !is_scale_up(x); k++) {
            const node *y = x->ports[k].peer->owner;
            if (y->kind == NODE_HOST && y->server < S) { /* not a storage server */
                home[i] = y->server;
                break;
            }
        }
    }
    bool tor = c->placement == PLACE_TOP_OF_RACK, by_rail = c->placement == PLACE_RAIL_ROWS;
    /* rail-rows: every leaf in the network row, the leaves of one rail in racks of their own */
    uint32_t rails = plan_rails(p);
    uint32_t *rail_n = xcalloc(rails + 1, sizeof(uint32_t), "plan: leaves per rail");
    for (uint32_t i = 0; i < n->n_switches; i++) {
        if (is_scale_up(n->switches[i]) || (tor && home[i] != UINT32_MAX))
            continue;
        if (by_rail && home[i] != UINT32_MAX)
            rail_n[switch_rail(n, n->switches[i]) % rails]++;
        else if (by_rail)
            rail_n[rails]++;
        else
            row_sw[home[i] == UINT32_MAX ? p->rows : p->server_rack[home[i]] / rpr]++;
    }
    /* switches per network rack: plan.switches_per_rack, fewer if the rack's power budget
     * cannot feed that many of the most demanding switch */
    uint64_t sw_max = 1;
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (!is_scale_up(n->switches[i]) && switch_power(p, n->switches[i]) > sw_max)
            sw_max = switch_power(p, n->switches[i]);
    uint32_t spr = c->switches_per_rack, net_racks = 0;
    if (p->rack_budget_w / sw_max < spr)
        spr = p->rack_budget_w / sw_max ? (uint32_t)(p->rack_budget_w / sw_max) : 1;
    if (by_rail) /* the network row: per rail, then the spines */
        for (uint32_t r = 0; r <= rails; r++)
            row_sw[p->rows] += (rail_n[r] + spr - 1) / spr * spr;
    for (uint32_t r = 0; r <= p->rows; r++)
        net_racks += (row_sw[r] + spr - 1) / spr;
    p->n_racks = p->server_racks + net_racks;
    p->racks = xcalloc(p->n_racks ? p->n_racks : 1, sizeof(plan_rack), "plan: racks");
    for (uint32_t i = 0; i < p->server_racks; i++) {
        p->racks[i].row = i / rpr;
        p->racks[i].pos = i % rpr;
    }
    /* first network rack of each row, then fill */
    uint32_t *rail_fill = xcalloc(rails + 1, sizeof(uint32_t), "plan: rail racks");
    uint32_t *first = xmalloc(sizeof(uint32_t) * (p->rows + 1), "plan");
    uint32_t *fill = xcalloc(p->rows + 1, sizeof(uint32_t), "plan");
    uint32_t k = p->server_racks;
    for (uint32_t r = 0; r <= p->rows; r++) {
        first[r] = k;
        uint32_t nr = (row_sw[r] + spr - 1) / spr;
        for (uint32_t j = 0; j < nr; j++, k++) {
            p->racks[k].row = r;
            /* at the end of the row (after its last server rack); the network row starts at
             * slot 0 */
            uint32_t in_row = r < p->rows ? (r + 1 < p->rows ? rpr : p->server_racks - r * rpr) : 0;
            p->racks[k].pos = in_row + j;
            p->racks[k].network = 1;
        }
    }
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (is_scale_up(x)) {
            p->switch_rack[i] = UINT32_MAX;
            continue;
        }
        if (tor && home[i] != UINT32_MAX) {
            p->switch_rack[i] = p->server_rack[home[i]];
        } else if (by_rail) {
            /* racks of rail r start after those of the rails before it */
            uint32_t g = home[i] == UINT32_MAX ? rails : switch_rail(n, x) % rails, before = 0;
            for (uint32_t j = 0; j < g; j++)
                before += (rail_n[j] + spr - 1) / spr;
            p->switch_rack[i] = first[p->rows] + before + rail_fill[g]++ / spr;
        } else {
            uint32_t r = home[i] == UINT32_MAX ? p->rows : p->server_rack[home[i]] / rpr;
            p->switch_rack[i] = first[r] + fill[r]++ / spr;
        }
    }
    xfree(rail_fill);
    xfree(rail_n);
    xfree(fill);
    xfree(first);
    xfree(home);
    xfree(row_sw);
    return ERR_OK;
}

/* Rack of a node (host: its server's rack; a storage server: its storage leaf's). */
static uint32_t node_rack(const plan *p, const node *x)
{
    if (x->kind == NODE_HOST && x->server >= p->n->n_servers)
        return p->switch_rack[x->ports[x->net_port].peer->owner->index];
    return x->kind == NODE_HOST ? p->server_rack[x->server] : p->switch_rack[x->index];
}

uint32_t plan_node_rack(const plan *p, const node *x)
{
    return node_rack(p, x);
}

static uint32_t rack_distance_mm(const plan *p, uint32_t a, uint32_t b)
{
    if (a == b)
        return IN_RACK_MM;
    const plan_rack *ra = &p->racks[a], *rb = &p->racks[b];
    uint32_t dx = (ra->pos > rb->pos ? ra->pos - rb->pos : rb->pos - ra->pos) * RACK_WIDTH_MM;
    uint32_t dy = (ra->row > rb->row ? ra->row - rb->row : rb->row - ra->row) * ROW_PITCH_MM;
    return dx + dy + 2 * RISER_MM;
}

/*
 * Switch power without optics when plan.switch_power is auto: 30 W per Tb/s of switching
 * capacity (a 51.2 Tb/s, 64 x 800G switch: ~1.5 kW), an estimate of current 2U 51.2T systems
 * without optics (ASIC, CPU, fans, PSU losses); docs/plan.md says to replace it with the
 * datasheet figure. Optics: 0.02 W per Gb/s per module end (400G ~8 W, 800G ~16 W), AEC/AOC
 * ends the same, DAC none — again estimates of the module classes.
 */
static uint64_t switch_power(const plan *p, const node *sw)
{
    if (p->sc->plan.switch_power_w)
        return p->sc->plan.switch_power_w;
    double bps = (double)plan_switch_radix(p, sw) * (double)p->switch_bps[sw->index];
    return (uint64_t)(bps / 1e12 * 30.0 + 0.5);
}

uint32_t plan_switch_radix(const plan *p, const node *sw)
{
    const cfg_fabric *f = &p->sc->fabric;
    if (f->preset == PRESET_CUSTOM)
        return sw->n_ports;
    uint32_t r = sw->tier == TIER_LEAF ? f->leaf_radix : f->spine_radix;
    if (f->preset == PRESET_FAT_TREE)
        r = f->k;
    return r > sw->n_ports ? r : sw->n_ports;
}

static uint64_t optic_w(enum plan_cable c, uint64_t bps)
{
    return c == CABLE_DAC ? 0 : (uint64_t)((double)bps / 1e9 * 0.02 + 0.5);
}

/* The legs of a breakout cage share one cable or one transceiver: every leg gets the class of
 * the cage's longest leg, and legs of an integrated cable (DAC/AEC/AOC, equal legs) its length. */
static void breakout_cages(plan *p)
{
    const net *n = p->n;
    uint32_t *cage_len = xcalloc(n->n_ports ? n->n_ports : 1, sizeof(uint32_t), "plan: cages");
    uint32_t *first = xmalloc(sizeof(uint32_t) * (n->n_ports ? n->n_ports : 1), "plan: cages");
    for (uint32_t s = 0; s < n->n_switches; s++) {
        const node *sw = n->switches[s];
        if (is_scale_up(sw))
            continue;
        /* cage -> its first port, through a per-switch table */
        uint32_t cages = p->switch_cages[s];
        uint32_t *head = xmalloc(sizeof(uint32_t) * (cages ? cages : 1), "plan: cages");
        for (uint32_t k = 0; k < sw->n_ports; k++) {
            uint32_t id = sw->ports[k].id;
            if (p->port_slot[id] % 8 == 0)
                head[p->port_slot[id] / 8] = id;
        }
        for (uint32_t k = 0; k < sw->n_ports; k++) {
            uint32_t id = sw->ports[k].id;
            first[id] = head[p->port_slot[id] / 8];
        }
        xfree(head);
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < p->n_links; i++)
            for (int end = 0; end < 2; end++) {
                const port *x = n->ports[2 * i + end];
                if (x->owner->kind != NODE_SWITCH || p->port_ways[x->id] < 2)
                    continue;
                uint32_t *m = &cage_len[first[x->id]];
                if (pass == 0) {
                    if (p->link_len_mm[i] > *m)
                        *m = p->link_len_mm[i];
                } else {
                    enum plan_cable c = plan_cable_class(x->rate_bps, *m);
                    p->link_class[i] = (uint8_t)c;
                    if (c <= CABLE_AOC)
                        p->link_len_mm[i] = *m;
                }
            }
    xfree(first);
    xfree(cage_len);
}

int plan_build(plan *p, const net *n, err *e)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->sc = n->sc;
    const scenario *sc = n->sc;
    /* address pools: host /31s below 10.255.0.0 (loopbacks), fabric /31s in 172.16.0.0/12 */
    if ((uint64_t)n->n_hosts * 2 > 0xFF0000ull || n->n_switches >= 65535)
        return config_error_at(sc, e, "fabric.servers",
                               "plan: %u NIC ports and %u switches exceed the address plan "
                               "(10.0.0.0/8 below 10.255.0.0 for host /31s, 10.255.0.0/16 for "
                               "loopbacks)",
                               n->n_hosts, n->n_switches);
    uint32_t NP = n->n_ports ? n->n_ports : 1, NS = n->n_switches ? n->n_switches : 1;
    p->port_slot = xcalloc(NP, sizeof(uint32_t), "plan: port names");
    p->port_ways = xcalloc(NP, 1, "plan: breakouts");
    p->switch_cages = xcalloc(NS, sizeof(uint32_t), "plan: cages");
    p->switch_bps = xcalloc(NS, sizeof(uint64_t), "plan: cage speed");
    p->switch_w = xcalloc(NS, sizeof(uint64_t), "plan: switch power");
    p->asn = xcalloc(NS, sizeof(uint64_t), "plan: ASNs");
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (!is_scale_up(n->switches[i]))
            name_ports(p, n->switches[i]);
    /* NIC ports: their index within the server (eth<k>, mlx5_<k>) */
    const cfg_fabric *f = &sc->fabric;
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        const node *x = n->hosts[h];
        uint32_t local = f->preset == PRESET_CUSTOM ? 0 : h % (plan_rails(p) * f->nic_ports);
        for (uint32_t k = 0; k < x->n_ports; k++) {
            p->port_slot[x->ports[k].id] = local;
            p->port_ways[x->ports[k].id] = 1;
        }
    }
    assign_asns(p);
    p->srv_host = xcalloc((size_t)n->n_servers + 1, sizeof(uint32_t), "plan: server hosts");
    /* the GPU servers' backend NIC ports (storage and frontend networks: docs/plan.md) */
    for (uint32_t h = n->n_backend_hosts; h-- > 0;)
        p->srv_host[n->hosts[h]->server] = h;
    p->srv_host[n->n_servers] = n->n_backend_hosts;
    int rc = resolve_devices(p, e);
    if (!rc)
        rc = layout(p, e);
    if (rc) {
        plan_free(p);
        return rc;
    }

    p->n_links = n->n_ports / 2;
    p->link_len_mm = xcalloc(p->n_links ? p->n_links : 1, sizeof(uint32_t), "plan: lengths");
    p->link_class = xcalloc(p->n_links ? p->n_links : 1, 1, "plan: cable classes");
    p->link_p2p = xmalloc(sizeof(uint32_t) * (p->n_links ? p->n_links : 1), "plan: /31s");
    for (uint32_t i = 0; i < p->n_links; i++) {
        const port *a = n->ports[2 * i], *b = n->ports[2 * i + 1];
        p->link_p2p[i] = UINT32_MAX;
        if (is_scale_up(a->owner) || is_scale_up(b->owner))
            continue;
        if (a->owner->kind == NODE_SWITCH && b->owner->kind == NODE_SWITCH)
            p->link_p2p[i] = p->n_fabric_links++;
        uint32_t len =
            round_length(rack_distance_mm(p, node_rack(p, a->owner), node_rack(p, b->owner)));
        p->link_len_mm[i] = len;
        p->link_class[i] = (uint8_t)plan_cable_class(a->rate_bps, len);
    }
    breakout_cages(p);
    for (uint32_t i = 0; i < p->n_links; i++) {
        const port *a = n->ports[2 * i], *b = n->ports[2 * i + 1];
        if (is_scale_up(a->owner) || is_scale_up(b->owner))
            continue;
        /* the simulator's link: propagation 5 ns/m; a longer cable needs more headroom */
        if ((uint64_t)p->link_len_mm[i] * 5 > a->prop_ps)
            p->long_links++;
        uint64_t ow = optic_w((enum plan_cable)p->link_class[i], a->rate_bps);
        p->optics_w += 2 * ow;
        for (int end = 0; end < 2; end++) {
            const node *x = (end ? b : a)->owner;
            uint32_t r = node_rack(p, x);
            p->racks[r].power_w += ow;
        }
    }
    if (p->n_fabric_links > (1u << 19))
        return plan_free(p),
               config_error_at(sc, e, "fabric.servers",
                               "plan: %u switch-to-switch links exceed 172.16.0.0/12 (%u /31s)",
                               p->n_fabric_links, 1u << 19);
    for (uint32_t s = 0; s < n->n_servers; s++) {
        p->racks[p->server_rack[s]].servers++;
        p->racks[p->server_rack[s]].power_w += p->server_w;
        p->servers_w += p->server_w;
    }
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *x = n->switches[i];
        if (is_scale_up(x))
            continue;
        p->switch_w[i] = switch_power(p, x);
        p->switches_w += p->switch_w[i];
        p->racks[p->switch_rack[i]].switches++;
        p->racks[p->switch_rack[i]].power_w += p->switch_w[i];
    }
    for (uint32_t r = 0; r < p->n_racks; r++)
        p->over_budget += p->racks[r].power_w > p->rack_budget_w;
    p->total_w = p->servers_w + p->switches_w + p->optics_w;
    return ERR_OK;
}

void plan_link_addr(const plan *p, uint32_t link, uint32_t *a, uint32_t *b)
{
    const port *pa = p->n->ports[2 * link];
    uint32_t base;
    if (p->link_p2p[link] != UINT32_MAX) {
        base = 0xAC100000u + 2u * p->link_p2p[link]; /* 172.16.0.0/12 */
    } else {
        const node *h = pa->owner->kind == NODE_HOST ? pa->owner : p->n->ports[2 * link + 1]->owner;
        base = h->ip - 1; /* the simulator's host address is the odd end */
        if (pa->owner->kind == NODE_HOST) {
            *a = base + 1;
            *b = base;
            return;
        }
    }
    *a = base;
    *b = base + 1;
}

uint32_t plan_loopback(const plan *p, uint32_t switch_index)
{
    (void)p;
    return 0x0AFF0000u + switch_index + 1; /* 10.255.0.0/16 */
}

void plan_free(plan *p)
{
    xfree(p->racks);
    xfree(p->server_rack);
    xfree(p->switch_rack);
    xfree(p->port_slot);
    xfree(p->port_ways);
    xfree(p->switch_cages);
    xfree(p->switch_bps);
    xfree(p->switch_w);
    xfree(p->link_len_mm);
    xfree(p->link_class);
    xfree(p->link_p2p);
    xfree(p->asn);
    xfree(p->srv_host);
    xfree(p->sw_dev);
    xfree(p->host_dev);
    memset(p, 0, sizeof *p);
}
