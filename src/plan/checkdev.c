/*
 * checkdev.c — per-device configuration checks (see checkdev.h).
 */
#include "checkdev.h"

#include <string.h>

#include "../core/alloc.h"
#include "../net/packet.h"

/* mlnx_qos --pfc argument for a mask: "0,0,0,1,0,0,0,0" */
static void pfc_arg(uint8_t m, char *buf, size_t len)
{
    size_t k = 0;
    for (int i = 0; i < 8; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", m >> i & 1);
}

/* An item: pass with `ok` detail, or fail with the count and the first finding. */
static void item(check_report *r, const char *name, uint32_t bad, const cdb_report *f,
                 uint32_t first, const char *ok)
{
    check_item it;
    memset(&it, 0, sizeof it);
    it.name = name;
    it.status = bad ? CHECK_FAIL : CHECK_PASS;
    if (!bad) {
        snprintf(it.detail, sizeof it.detail, "%s", ok);
    } else {
        const cdb_finding *x = &f->f[first < f->n ? first : f->n - 1];
        snprintf(it.detail, sizeof it.detail,
                 "%u mismatch(es), e.g. %.30s %.60s = %.40s, want "
                 "%.120s (findings below)",
                 bad, x->device, x->field, x->have, x->want);
    }
    if (r->n_items < CHECK_MAX_ITEMS) {
        r->items[r->n_items++] = it;
        if (bad)
            r->passed = false;
    }
}

static void nic_name(const plan *p, const node *h, char *buf, size_t len)
{
    char dev[40];
    plan_device_name(p, h, dev, sizeof dev);
    snprintf(buf, len, "%s:eth%u", dev,
             h->net_port == UINT32_MAX ? 0 : p->port_slot[h->ports[h->net_port].id]);
}

/* Host x's fabric link: the switch port at its other end, both ends' settings and names.
 * False for a host without a fabric port. */
static bool nic_link(const plan *p, const node *x, const port **lp, plan_nic_cfg *nc,
                     plan_sw_cfg *sw, char *nn, size_t nn_len, char *spn, size_t spn_len)
{
    if (x->net_port == UINT32_MAX)
        return false;
    *lp = x->ports[x->net_port].peer;
    plan_get_nic_cfg(p, x, nc);
    plan_get_switch_cfg(p, (*lp)->owner, sw);
    nic_name(p, x, nn, nn_len);
    plan_port_name(p, *lp, spn, spn_len);
    return true;
}

void check_devices(const plan *p, check_report *r, cdb_report *F)
{
    const net *n = p->n;
    const scenario *sc = p->sc;
    char nn[64], spn[24], field[96], have[96], fix[400], a[24], b[24];
    /* one pass per item keeps each item's findings together */
    uint32_t first = F->n, bad = 0;

    /* --- pfc_nic_switch --- */
    bool any_lossless = false; /* PFC enabled on some NIC's leaf port */
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) {
        const node *x = n->hosts[h];
        const port *lp;
        plan_nic_cfg nc;
        plan_sw_cfg sw;
        if (!nic_link(p, x, &lp, &nc, &sw, nn, sizeof nn, spn, sizeof spn))
            continue;
        any_lossless |= sw.pfc != 0;
        if (nc.pfc != sw.pfc) {
            plan_mask_text(nc.pfc, a, sizeof a);
            plan_mask_text(sw.pfc, b, sizeof b);
            pfc_arg(sw.pfc, have, sizeof have);
            snprintf(fix, sizeof fix,
                     "mlnx_qos -i eth%u --pfc %s on the NIC, or pfc_enable "
                     "\"%s\" on %s:%s",
                     p->port_slot[x->ports[x->net_port].id], have, a, lp->owner->name, spn);
            cdb_add(F, nn, "mlnx_qos --pfc", a, fix, "%s, the pfc_enable of %s:%s", b,
                    lp->owner->name, spn);
            bad++;
        }
        if (!(sw.pfc >> nc.priority & 1) && sw.pfc) {
            snprintf(have, sizeof have, "%u", nc.priority);
            plan_mask_text(sw.pfc, b, sizeof b);
            snprintf(fix, sizeof fix,
                     "send RoCE on a lossless class (%s) or add %u to "
                     "pfc_enable of %s",
                     b, nc.priority, lp->owner->name);
            cdb_add(F, nn, "RoCE priority (nic.priority)", have, fix,
                    "one of %s:%s's lossless classes %s: RoCE is lossy there", lp->owner->name, spn,
                    b);
            bad++;
        }
    }
    char ok[200];
    if (any_lossless)
        snprintf(ok, sizeof ok,
                 "%u NIC ports: PFC classes agree with their leaf port, RoCE in a "
                 "lossless class",
                 n->n_backend_hosts);
    else
        snprintf(ok, sizeof ok,
                 "%u NIC ports: PFC is off on the NICs and their leaf ports alike (no "
                 "lossless class)",
                 n->n_backend_hosts);
    item(r, "pfc_nic_switch", bad, F, first, ok);

    /* --- dscp_trust --- */
    first = F->n;
    bad = 0;
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) {
        const node *x = n->hosts[h];
        const port *lp;
        plan_nic_cfg nc;
        plan_sw_cfg sw;
        if (!nic_link(p, x, &lp, &nc, &sw, nn, sizeof nn, spn, sizeof spn))
            continue;
        if (nc.trust != TRUST_DSCP) {
            snprintf(fix, sizeof fix, "mlnx_qos -i eth%u --trust dscp",
                     p->port_slot[x->ports[x->net_port].id]);
            cdb_add(F, nn, "mlnx_qos --trust", "pcp", fix,
                    "dscp: the routed /31 link to %s carries no 802.1p tag, so PCP trust puts "
                    "every RoCE frame in class 0",
                    lp->owner->name);
            bad++;
        }
        /* every switch on the way classifies by DSCP: the leaf here, the others below */
        struct {
            uint8_t dscp, prio;
            const char *what;
        } k[2] = {{nc.dscp, nc.priority, "RoCE"}, {nc.cnp_dscp, nc.cnp_priority, "CNPs"}};
        for (int i = 0; i < 2; i++) {
            if (sw.dscp_to_tc[k[i].dscp] == k[i].prio)
                continue;
            snprintf(field, sizeof field, "DSCP_TO_TC_MAP|WIRERATE.%u", k[i].dscp);
            snprintf(have, sizeof have, "%d", sw.dscp_to_tc[k[i].dscp]);
            snprintf(fix, sizeof fix,
                     "map DSCP %u to %u on %s (or mark %s with a DSCP that maps "
                     "there)",
                     k[i].dscp, k[i].prio, lp->owner->name, k[i].what);
            cdb_add(F, lp->owner->name, field, have, fix,
                    "%u: %s marks %s DSCP %u and sends them on priority %u", k[i].prio, nn,
                    k[i].what, k[i].dscp, k[i].prio);
            bad++;
        }
    }
    /* switches without hosts map the fabric's DSCPs to the fabric's classes */
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *s = n->switches[i];
        if (s->tier == TIER_SCALE_UP)
            continue;
        plan_sw_cfg sw;
        plan_get_switch_cfg(p, s, &sw);
        struct {
            uint8_t dscp, prio;
            const char *what;
        } k[2] = {{sc->nic.dscp, sc->nic.priority, "nic.dscp"},
                  {sc->nic.cnp_dscp, sc->nic.cnp_priority, "nic.cnp_dscp"}};
        for (int j = 0; j < 2; j++) {
            if (sw.dscp_to_tc[k[j].dscp] == k[j].prio)
                continue;
            snprintf(field, sizeof field, "DSCP_TO_TC_MAP|WIRERATE.%u", k[j].dscp);
            snprintf(have, sizeof have, "%d", sw.dscp_to_tc[k[j].dscp]);
            snprintf(fix, sizeof fix, "map DSCP %u to %u on %s", k[j].dscp, k[j].prio, s->name);
            size_t before = F->n;
            cdb_add(F, s->name, field, have, fix, "%u (%s %u is sent on priority %u)", k[j].prio,
                    k[j].what, k[j].dscp, k[j].prio);
            bad += F->n > before;
        }
    }
    snprintf(ok, sizeof ok,
             "NICs trust DSCP; every switch maps RoCE DSCP %u to class %u and CNP "
             "DSCP %u to class %u",
             sc->nic.dscp, sc->nic.priority, sc->nic.cnp_dscp, sc->nic.cnp_priority);
    item(r, "dscp_trust", bad, F, first, ok);

    /* --- cnp_not_paused --- */
    first = F->n;
    bad = 0;
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) {
        const node *x = n->hosts[h];
        const port *lp;
        plan_nic_cfg nc;
        plan_sw_cfg sw;
        if (!nic_link(p, x, &lp, &nc, &sw, nn, sizeof nn, spn, sizeof spn))
            continue;
        int sw_cls = sw.dscp_to_tc[nc.cnp_dscp];
        if ((nc.pfc | sw.pfc) >> nc.cnp_priority & 1 || (sw_cls >= 0 && sw.pfc >> sw_cls & 1)) {
            plan_mask_text(sw.pfc | nc.pfc, b, sizeof b);
            snprintf(have, sizeof have, "%u (switch class %d)", nc.cnp_priority, sw_cls);
            snprintf(fix, sizeof fix,
                     "send CNPs on a class outside %s (ConnectX default 6: "
                     "roce_np/cnp_802p_prio and cnp_dscp 48)",
                     b);
            cdb_add(F, nn, "roce_np/cnp_802p_prio", have, fix,
                    "a class not paused (pfc %s on %s): paused CNPs wait behind the congestion "
                    "they report",
                    b, lp->owner->name);
            bad++;
        }
    }
    snprintf(ok, sizeof ok, "CNPs (priority %u) travel in a class no device pauses",
             sc->nic.cnp_priority);
    item(r, "cnp_not_paused", bad, F, first, ok);

    /* --- mtu_end_to_end --- */
    first = F->n;
    bad = 0;
    /* a RoCE packet's IP length: the data frame without Ethernet header and FCS */
    uint32_t roce_ip = wire_data_frame(sc->nic.mtu, 1) - 18;
    for (uint32_t h = 0; h < n->n_backend_hosts; h++) {
        const node *x = n->hosts[h];
        const port *lp;
        plan_nic_cfg nc;
        plan_sw_cfg sw;
        if (!nic_link(p, x, &lp, &nc, &sw, nn, sizeof nn, spn, sizeof spn))
            continue;
        uint32_t slot = p->port_slot[x->ports[x->net_port].id];
        if (nc.netdev_mtu < roce_ip) {
            snprintf(have, sizeof have, "%u", nc.netdev_mtu);
            snprintf(fix, sizeof fix, "ip link set dev eth%u mtu 9000", slot);
            cdb_add(F, nn, "netdev mtu", have, fix,
                    ">= %u: RoCE MTU %u packets are %u B; below it the NIC negotiates a smaller "
                    "RoCE MTU than the simulated %u",
                    roce_ip, sc->nic.mtu, roce_ip, sc->nic.mtu);
            bad++;
        }
        /* the frame of a full netdev-MTU packet: + 14 B header, 4 B VLAN tag, 4 B FCS */
        if (nc.netdev_mtu + 22 > sw.mtu) {
            snprintf(have, sizeof have, "%u", nc.netdev_mtu);
            snprintf(fix, sizeof fix,
                     "raise PORT|%s mtu on %s to >= %u, or lower the NIC's "
                     "MTU",
                     spn, lp->owner->name, nc.netdev_mtu + 22);
            cdb_add(F, nn, "netdev mtu", have, fix,
                    "<= %u: %s:%s takes frames up to %u B and drops larger ones (NIC <= switch)",
                    sw.mtu - 22, lp->owner->name, spn, sw.mtu);
            bad++;
        }
    }
    for (uint32_t i = 0; i + 1 < n->n_ports; i += 2) {
        const port *pa = n->ports[i], *pb = n->ports[i + 1];
        if (pa->owner->kind != NODE_SWITCH || pb->owner->kind != NODE_SWITCH ||
            pa->owner->tier == TIER_SCALE_UP || pb->owner->tier == TIER_SCALE_UP)
            continue;
        plan_sw_cfg ca, cb;
        plan_get_switch_cfg(p, pa->owner, &ca);
        plan_get_switch_cfg(p, pb->owner, &cb);
        if (ca.mtu == cb.mtu && ca.mtu >= n->max_frame_bytes)
            continue;
        plan_port_name(p, pa, a, sizeof a);
        plan_port_name(p, pb, b, sizeof b);
        const port *lo = ca.mtu <= cb.mtu ? pa : pb;
        const plan_sw_cfg *cl = ca.mtu <= cb.mtu ? &ca : &cb, *ch = ca.mtu <= cb.mtu ? &cb : &ca;
        snprintf(field, sizeof field, "PORT|%s.mtu", lo == pa ? a : b);
        snprintf(have, sizeof have, "%u", cl->mtu);
        uint32_t want = ch->mtu > n->max_frame_bytes ? ch->mtu : sc->fabric.mtu;
        snprintf(fix, sizeof fix, "set PORT|%s mtu to %u on %s", lo == pa ? a : b, want,
                 lo->owner->name);
        cdb_add(F, lo->owner->name, field, have, fix,
                "%u, as %s:%s (jumbo everywhere: RoCE frames are %u B)", want,
                (lo == pa ? pb : pa)->owner->name, lo == pa ? b : a, n->max_frame_bytes);
        bad++;
    }
    snprintf(ok, sizeof ok,
             "RoCE MTU %u (%u B packets) fits every NIC's netdev MTU, NIC frames "
             "fit their leaf port, switch links agree",
             sc->nic.mtu, roce_ip);
    item(r, "mtu_end_to_end", bad, F, first, ok);

    /* --- ecn_below_xoff --- */
    first = F->n;
    bad = 0;
    double worst_margin = -1;
    const char *worst = "";
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *s = n->switches[i];
        if (s->tier == TIER_SCALE_UP)
            continue;
        plan_sw_cfg sw;
        plan_get_switch_cfg(p, s, &sw);
        if (!sw.ecn || !sw.pfc)
            continue;
        /* buf.size_bytes is the shared pool left once this switch's headroom is reserved */
        double xoff = sc->sw.pfc_xoff_bytes
                          ? (double)sc->sw.pfc_xoff_bytes
                          : sc->sw.alpha * (double)s->buf.size_bytes / (1.0 + sc->sw.alpha);
        double margin = xoff - (double)sw.kmax_bytes;
        if (worst_margin < 0 || margin < worst_margin) {
            worst_margin = margin;
            worst = s->name;
        }
        if ((double)sw.kmax_bytes < xoff)
            continue;
        snprintf(have, sizeof have, "%llu", (unsigned long long)sw.kmax_bytes);
        snprintf(fix, sizeof fix,
                 "lower WRED_PROFILE green_max_threshold on %s below %.0f, or "
                 "raise the XOFF point",
                 s->name, xoff);
        cdb_add(F, s->name, "WRED_PROFILE|WIRERATE_ECN.green_max_threshold", have, fix,
                "< %.0f B, the XOFF of one congested ingress (%s): else PFC pauses before ECN "
                "marks every packet",
                xoff,
                sc->sw.pfc_xoff_bytes ? "switch.pfc.xoff" : "alpha x shared pool / (1 + alpha)");
        bad++;
    }
    snprintf(ok, sizeof ok,
             "every switch marks ECN (Kmax) below its XOFF; the least margin is "
             "%.0f B on %s",
             worst_margin < 0 ? 0.0 : worst_margin, worst);
    item(r, "ecn_below_xoff", bad, F, first, ok);

    /* --- failure_domains --- */
    first = F->n;
    bad = 0;
    uint32_t max_ports = 0, rails = plan_rails(p);
    const node *worst_leaf = NULL;
    double worst_share = 0;
    const node *share_sw = NULL, *share_up = NULL;
    uint32_t *cnt = xcalloc(n->n_nodes, sizeof(uint32_t), "failure domains");
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *s = n->switches[i];
        if (s->tier == TIER_SCALE_UP)
            continue;
        uint32_t hosts = 0, up = 0;
        for (uint32_t k = 0; k < s->n_ports; k++) {
            const node *y = s->ports[k].peer->owner;
            if (y->kind == NODE_HOST)
                hosts++;
            else if (y->tier > s->tier && y->tier != TIER_SCALE_UP) {
                up++;
                cnt[y->id]++;
            }
        }
        if (hosts > max_ports) {
            max_ports = hosts;
            worst_leaf = s;
        }
        for (uint32_t k = 0; k < s->n_ports && up; k++) {
            const node *y = s->ports[k].peer->owner;
            if (y->kind != NODE_SWITCH || y->tier <= s->tier || y->tier == TIER_SCALE_UP ||
                !cnt[y->id])
                continue;
            double share = (double)cnt[y->id] / up;
            if (share > worst_share) {
                worst_share = share;
                share_sw = s;
                share_up = y;
            }
            /* a switch with hosts whose uplinks all go to one upper switch: that switch's
             * loss cuts the hosts off the rest of the fabric (a spine in the same position
             * only loses its way up; its leaves keep their other spines) */
            if (cnt[y->id] == up && hosts) {
                snprintf(field, sizeof field, "uplinks of %s", s->name);
                snprintf(have, sizeof have, "all %u via %s", up, y->name);
                snprintf(fix, sizeof fix,
                         "spread %s's uplinks over more %s switches "
                         "(fabric.spines)",
                         s->name, y->tier == TIER_SPINE ? "spine" : "super-spine");
                cdb_add(F, s->name, field, have, fix,
                        "uplinks over 2 or more upper switches: %s's loss cuts %s's %u NIC "
                        "ports off the rest of the fabric",
                        y->name, s->name, hosts);
                bad++;
            }
            cnt[y->id] = 0;
        }
    }
    xfree(cnt);
    int k = 0;
    char det[320];
    if (worst_leaf)
        k = snprintf(det, sizeof det, "a leaf loss cuts %u NIC ports off (e.g. %s)%s", max_ports,
                     worst_leaf->name,
                     sc->fabric.nic_ports > 1 ? "; dual-port NICs keep their other port" : "");
    if (share_sw && k < (int)sizeof det)
        k += snprintf(det + k, sizeof det - (size_t)k,
                      "; one upper switch carries at most %.0f%% of a switch's uplinks (%s via "
                      "%s)",
                      100.0 * worst_share, share_sw->name, share_up->name);
    if (rails > 1 && sc->fabric.preset == PRESET_RAIL_OPTIMIZED && k < (int)sizeof det)
        snprintf(det + k, sizeof det - (size_t)k,
                 "; a rail's loss takes 1/%u of every server's scale-out bandwidth", rails);
    item(r, "failure_domains", bad, F, first, det);
}
