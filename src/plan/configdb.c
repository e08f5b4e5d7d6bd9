/*
 * configdb.c — config_db.json folder verification (see configdb.h).
 */
#include "configdb.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/alloc.h"
#include "../report/jsonr.h"

void cdb_add(cdb_report *r, const char *dev, const char *field, const char *have, const char *fix,
             const char *want_fmt, ...)
{
    /* an entry shared by many ports (a WRED or buffer profile) is reported once: the findings
     * of one switch are contiguous, so look back through them */
    for (uint32_t i = r->n; i-- > 0 && !strcmp(r->f[i].device, dev);)
        if (!strcmp(r->f[i].field, field))
            return;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->f = xrealloc(r->f, sizeof(cdb_finding) * r->cap, "config_db findings");
    }
    cdb_finding *x = &r->f[r->n++];
    snprintf(x->device, sizeof x->device, "%s", dev);
    snprintf(x->field, sizeof x->field, "%s", field);
    snprintf(x->have, sizeof x->have, "%s", have);
    snprintf(x->fix, sizeof x->fix, "%s", fix);
    va_list ap;
    va_start(ap, want_fmt);
    vsnprintf(x->want, sizeof x->want, want_fmt, ap);
    va_end(ap);
}

/* A field as text: strings as they are, numbers printed; NULL when absent. */
static const char *fstr(const jsonr_val *o, const char *field, char *buf, size_t len)
{
    const jsonr_val *v = o ? jsonr_get(o, field) : NULL;
    if (!v)
        return NULL;
    if (v->type == JR_STR)
        return v->str;
    if (v->type == JR_NUM) {
        snprintf(buf, len, "%.17g", v->num);
        return buf;
    }
    return NULL;
}

static bool fnum(const jsonr_val *o, const char *field, uint64_t *out)
{
    char b[40];
    const char *s = fstr(o, field, b, sizeof b);
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = x;
    return true;
}

/* A reference to another table's entry: "NAME" or the older "[TABLE|NAME]". */
static const char *ref_name(const char *s, char *buf, size_t len)
{
    if (!s)
        return NULL;
    if (s[0] == '[') {
        const char *bar = strchr(s, '|');
        snprintf(buf, len, "%s", bar ? bar + 1 : s + 1);
        char *close = strchr(buf, ']');
        if (close)
            *close = 0;
        return buf;
    }
    return s;
}

/* "3,4" / "3-4" -> bitmask; -1 when unparsable. */
static int prio_mask(const char *s)
{
    int m = 0, last = -1;
    bool range = false;
    for (; *s; s++) {
        if (*s >= '0' && *s <= '7') {
            int d = *s - '0';
            if (range && last >= 0)
                for (int i = last; i <= d; i++)
                    m |= 1 << i;
            m |= 1 << d;
            last = d;
            range = false;
        } else if (*s == '-') {
            range = true;
        } else if (*s != ',' && *s != ' ') {
            return -1;
        }
    }
    return m;
}

static uint32_t parse_ip(const char *s)
{
    unsigned a, b, c, d;
    char tail;
    if (sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) < 4 || a > 255 || b > 255 || c > 255 ||
        d > 255)
        return 0;
    return a << 24 | b << 16 | c << 8 | d;
}

/* What one file says about a port, kept for the cross-link checks. */
typedef struct cport {
    bool seen;
    uint64_t mtu, speed;
    int pfc;     /* mask, -1 unknown */
    uint32_t ip; /* 0 unknown */
} cport;

typedef struct bgp_ref {
    uint32_t sw; /* switch index that has the neighbour */
    uint32_t ip;
    uint64_t asn;
} bgp_ref;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *buf = xmalloc(cap, "config_db file");
    while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            buf = xrealloc(buf, cap *= 2, "config_db file");
    }
    fclose(f);
    *len = n;
    return buf;
}

typedef struct ctx {
    const plan *p;
    const scenario *sc;
    cdb_report *r;
    cport *ports;  /* [n_ports] */
    uint64_t *asn; /* [n_switches] 0 = unknown */
    bgp_ref *bgp;
    uint32_t n_bgp, cap_bgp;
} ctx;

static void check_switch(ctx *c, const node *sw, const jsonr_val *root)
{
    const scenario *sc = c->sc;
    const cfg_switch *cs = &sc->sw;
    const plan *p = c->p;
    cdb_report *r = c->r;
    const char *dev = sw->name;
    char field[96], have[96], fix[160], pn[24], b1[40], b2[40], peer[48], ppn[24];
    plan_sw_cfg dc;
    plan_get_switch_cfg(p, sw, &dc);
    int lossless = dc.pfc;
    const jsonr_val *PORT = jsonr_get(root, "PORT"), *QOS = jsonr_get(root, "PORT_QOS_MAP");
    const jsonr_val *DSCP = jsonr_get(root, "DSCP_TO_TC_MAP"), *QUEUE = jsonr_get(root, "QUEUE");
    const jsonr_val *WRED = jsonr_get(root, "WRED_PROFILE"), *PG = jsonr_get(root, "BUFFER_PG");
    const jsonr_val *PROF = jsonr_get(root, "BUFFER_PROFILE"), *WD = jsonr_get(root, "PFC_WD");
    const jsonr_val *INTF = jsonr_get(root, "INTERFACE");
    uint64_t asn;
    if (fnum(jsonr_path(root, "DEVICE_METADATA.localhost"), "bgp_asn", &asn))
        c->asn[sw->index] = asn;
    char dscp_done[64] = "";
    uint32_t data_dscp = plan_data_dscp(sc), cnp_dscp = plan_cnp_dscp(sc);
    for (uint32_t i = 0; i < sw->n_ports; i++) {
        const port *pt = &sw->ports[i];
        cport *cp = &c->ports[pt->id];
        plan_port_name(p, pt, pn, sizeof pn);
        plan_device_name(p, pt->peer->owner, peer, sizeof peer);
        plan_port_name(p, pt->peer, ppn, sizeof ppn);
        const jsonr_val *po = PORT ? jsonr_get(PORT, pn) : NULL;
        cp->pfc = -1;
        if (!po) {
            snprintf(field, sizeof field, "PORT|%s", pn);
            snprintf(fix, sizeof fix, "add PORT|%s (the port to %s:%s)", pn, peer, ppn);
            cdb_add(r, dev, field, "missing", fix, "a port towards %s:%s", peer, ppn);
            continue;
        }
        cp->seen = true;
        uint64_t v;
        if (fnum(po, "mtu", &v)) {
            cp->mtu = v;
            if (v != dc.mtu) {
                snprintf(field, sizeof field, "PORT|%s.mtu", pn);
                snprintf(have, sizeof have, "%llu", (unsigned long long)v);
                snprintf(fix, sizeof fix, "set PORT|%s mtu to %u", pn, dc.mtu);
                cdb_add(r, dev, field, have, fix,
                        "%u (fabric.mtu, jumbo everywhere; the NIC sends %u B RoCE frames)", dc.mtu,
                        p->n->max_frame_bytes);
            }
        }
        if (fnum(po, "speed", &v)) {
            cp->speed = v;
            if (v != pt->rate_bps / 1000000) {
                snprintf(field, sizeof field, "PORT|%s.speed", pn);
                snprintf(have, sizeof have, "%llu", (unsigned long long)v);
                snprintf(fix, sizeof fix, "set PORT|%s speed to %llu", pn,
                         (unsigned long long)(pt->rate_bps / 1000000));
                cdb_add(r, dev, field, have, fix, "%llu (the simulated link to %s:%s)",
                        (unsigned long long)(pt->rate_bps / 1000000), peer, ppn);
            }
        }
        /* PFC classes and the DSCP map */
        const jsonr_val *qm = QOS ? jsonr_get(QOS, pn) : NULL;
        const char *pe = fstr(qm, "pfc_enable", b1, sizeof b1);
        int m = pe ? prio_mask(pe) : 0;
        cp->pfc = m;
        if (m != lossless) {
            char w[24];
            plan_mask_text(lossless, w, sizeof w);
            snprintf(field, sizeof field, "PORT_QOS_MAP|%s.pfc_enable", pn);
            snprintf(have, sizeof have, "%s", pe ? pe : "(absent)");
            snprintf(fix, sizeof fix, "set PORT_QOS_MAP|%s pfc_enable to \"%s\"", pn, w);
            cdb_add(r, dev, field, have, fix,
                    "\"%s\" (switch.pfc.priorities; the NICs send RoCE on priority %u)", w,
                    sc->nic.priority);
        }
        char rb[64];
        const char *map = ref_name(fstr(qm, "dscp_to_tc_map", b2, sizeof b2), rb, sizeof rb);
        if (!map) {
            snprintf(field, sizeof field, "PORT_QOS_MAP|%s.dscp_to_tc_map", pn);
            snprintf(fix, sizeof fix, "set PORT_QOS_MAP|%s dscp_to_tc_map (trust DSCP)", pn);
            cdb_add(r, dev, field, "(absent)", fix,
                    "a DSCP_TO_TC_MAP (the NICs trust DSCP and mark RoCE %u, CNPs %u)", data_dscp,
                    cnp_dscp);
        } else if (strcmp(dscp_done, map) != 0) {
            snprintf(dscp_done, sizeof dscp_done, "%s", map);
            const jsonr_val *dm = DSCP ? jsonr_get(DSCP, map) : NULL;
            struct {
                uint32_t dscp, want;
                const char *what;
            } chk[2] = {{data_dscp, (uint32_t)dc.dscp_to_tc[data_dscp], "RoCE data (nic.priority)"},
                        {cnp_dscp, (uint32_t)dc.dscp_to_tc[cnp_dscp], "CNPs (nic.cnp_priority)"}};
            for (int k = 0; k < 2; k++) {
                char key[8];
                snprintf(key, sizeof key, "%u", chk[k].dscp);
                uint64_t tc;
                bool ok = fnum(dm, key, &tc) && tc == chk[k].want;
                if (!ok) {
                    snprintf(field, sizeof field, "DSCP_TO_TC_MAP|%s.%u", map, chk[k].dscp);
                    if (fnum(dm, key, &tc))
                        snprintf(have, sizeof have, "%llu", (unsigned long long)tc);
                    else
                        snprintf(have, sizeof have, "%s", dm ? "(absent)" : "(no such map)");
                    snprintf(fix, sizeof fix, "map DSCP %u to %u in DSCP_TO_TC_MAP|%s", chk[k].dscp,
                             chk[k].want, map);
                    cdb_add(r, dev, field, have, fix, "%u: DSCP %u carries %s", chk[k].want,
                            chk[k].dscp, chk[k].what);
                }
            }
        }
        /* ECN on the RoCE queue */
        if (dc.ecn) {
            char qk[48];
            snprintf(qk, sizeof qk, "%s|%u", pn, sc->nic.priority);
            const char *wp =
                ref_name(fstr(QUEUE ? jsonr_get(QUEUE, qk) : NULL, "wred_profile", b1, sizeof b1),
                         rb, sizeof rb);
            const jsonr_val *wo = wp && WRED ? jsonr_get(WRED, wp) : NULL;
            if (!wo) {
                snprintf(field, sizeof field, "QUEUE|%s.wred_profile", qk);
                snprintf(have, sizeof have, "%s", wp ? wp : "(absent)");
                snprintf(fix, sizeof fix, "attach an ECN WRED_PROFILE to QUEUE|%s", qk);
                cdb_add(r, dev, field, have, fix,
                        "a WRED_PROFILE marking ECN at Kmin %llu / Kmax %llu B (switch.ecn)",
                        (unsigned long long)dc.kmin_bytes, (unsigned long long)dc.kmax_bytes);
            } else {
                struct {
                    const char *f;
                    uint64_t want;
                    const char *key;
                } w[3] = {{"green_min_threshold", dc.kmin_bytes, "switch.ecn.kmin"},
                          {"green_max_threshold", dc.kmax_bytes, "switch.ecn.kmax"},
                          {"green_drop_probability", (uint64_t)llround(dc.pmax * 100.0),
                           "switch.ecn.pmax, percent"}};
                for (int k = 0; k < 3; k++) {
                    uint64_t x;
                    bool has = fnum(wo, w[k].f, &x);
                    if (has && x == w[k].want)
                        continue;
                    snprintf(field, sizeof field, "WRED_PROFILE|%s.%s", wp, w[k].f);
                    if (has)
                        snprintf(have, sizeof have, "%llu", (unsigned long long)x);
                    else
                        snprintf(have, sizeof have, "(absent)");
                    snprintf(fix, sizeof fix, "set WRED_PROFILE|%s %s to %llu", wp, w[k].f,
                             (unsigned long long)w[k].want);
                    cdb_add(r, dev, field, have, fix, "%llu (%s, as simulated)",
                            (unsigned long long)w[k].want, w[k].key);
                }
                const char *ecn = fstr(wo, "ecn", b2, sizeof b2);
                if (!ecn || strcmp(ecn, "ecn_none") == 0) {
                    snprintf(field, sizeof field, "WRED_PROFILE|%s.ecn", wp);
                    snprintf(fix, sizeof fix, "set WRED_PROFILE|%s ecn to ecn_all", wp);
                    cdb_add(r, dev, field, ecn ? ecn : "(absent)", fix,
                            "ecn_all (mark, do not drop: DCQCN needs the marks)");
                }
            }
        }
        /* headroom per lossless class */
        uint64_t need = net_pfc_headroom_port(pt, p->n->max_frame_bytes);
        for (int q = 0; q < 8; q++) {
            if (!(lossless >> q & 1))
                continue;
            char pk[48];
            snprintf(pk, sizeof pk, "%s|%d", pn, q);
            const jsonr_val *pg = PG ? jsonr_get(PG, pk) : NULL;
            if (!pg) {
                /* SONiC also writes one key for a range of classes, "Ethernet0|3-4" */
                for (const jsonr_val *x = PG ? PG->child : NULL; x && !pg; x = x->next) {
                    size_t l = strlen(pn);
                    if (!strncmp(x->key, pn, l) && x->key[l] == '|' &&
                        prio_mask(x->key + l + 1) > 0 && (prio_mask(x->key + l + 1) >> q & 1))
                        pg = x;
                }
            }
            const char *prof = ref_name(fstr(pg, "profile", b1, sizeof b1), rb, sizeof rb);
            const jsonr_val *po2 = prof && PROF ? jsonr_get(PROF, prof) : NULL;
            uint64_t xoff;
            if (!po2 || !fnum(po2, "xoff", &xoff)) {
                snprintf(field, sizeof field, "BUFFER_PG|%s.profile", pk);
                snprintf(have, sizeof have, "%s", prof ? prof : "(absent)");
                snprintf(fix, sizeof fix,
                         "give BUFFER_PG|%s a lossless BUFFER_PROFILE with xoff >= %llu", pk,
                         (unsigned long long)need);
                cdb_add(r, dev, field, have, fix,
                        "a lossless profile with xoff (headroom) >= %llu B",
                        (unsigned long long)need);
            } else if (xoff < need) {
                snprintf(field, sizeof field, "BUFFER_PROFILE|%s.xoff", prof);
                snprintf(have, sizeof have, "%llu", (unsigned long long)xoff);
                snprintf(fix, sizeof fix, "raise BUFFER_PROFILE|%s xoff to %llu", prof,
                         (unsigned long long)need);
                cdb_add(r, dev, field, have, fix,
                        ">= %llu B: headroom for %s (%.0f Gb/s, %.0f m to %s) at MTU %u, or "
                        "lossless frames drop",
                        (unsigned long long)need, pn, (double)pt->rate_bps / 1e9,
                        (double)pt->prop_ps / 5000.0, peer, sc->nic.mtu);
            }
        }
        /* the port's /31 */
        uint32_t ia, ib, want_ip;
        plan_link_addr(p, pt->id / 2, &ia, &ib);
        want_ip = pt->id % 2 ? ib : ia;
        uint32_t got = 0;
        size_t l = strlen(pn);
        for (const jsonr_val *x = INTF ? INTF->child : NULL; x && !got; x = x->next)
            if (!strncmp(x->key, pn, l) && x->key[l] == '|')
                got = parse_ip(x->key + l + 1);
        cp->ip = got;
        if (got != want_ip) {
            char w4[20], g4[20];
            plan_ip4(want_ip, w4, sizeof w4);
            plan_ip4(got, g4, sizeof g4);
            snprintf(field, sizeof field, "INTERFACE|%s", pn);
            snprintf(have, sizeof have, "%s", got ? g4 : "(no address)");
            snprintf(fix, sizeof fix, "address %s with %s/31", pn, w4);
            cdb_add(r, dev, field, have, fix, "%s/31 (addressing.csv: the link to %s:%s)", w4, peer,
                    ppn);
        }
        /* PFC watchdog */
        if (lossless) {
            const jsonr_val *wd = WD ? jsonr_get(WD, pn) : NULL;
            uint64_t det;
            uint64_t want_det = cs->wd_detect_ps / SIM_MS;
            if (!wd || !fnum(wd, "detection_time", &det) || det != want_det) {
                snprintf(field, sizeof field, "PFC_WD|%s.detection_time", pn);
                if (wd && fnum(wd, "detection_time", &det))
                    snprintf(have, sizeof have, "%llu", (unsigned long long)det);
                else
                    snprintf(have, sizeof have, "(absent)");
                snprintf(fix, sizeof fix, "set PFC_WD|%s detection_time %llu", pn,
                         (unsigned long long)want_det);
                cdb_add(r, dev, field, have, fix, "%llu ms (switch.pfc.watchdog.detect)",
                        (unsigned long long)want_det);
            }
        }
    }
    const jsonr_val *BGP = jsonr_get(root, "BGP_NEIGHBOR");
    for (const jsonr_val *x = BGP ? BGP->child : NULL; x; x = x->next) {
        uint64_t a;
        uint32_t ip = parse_ip(x->key);
        if (!ip || !fnum(x, "asn", &a))
            continue;
        if (c->n_bgp == c->cap_bgp) {
            c->cap_bgp = c->cap_bgp ? 2 * c->cap_bgp : 256;
            c->bgp = xrealloc(c->bgp, sizeof(bgp_ref) * c->cap_bgp, "BGP neighbours");
        }
        c->bgp[c->n_bgp++] = (bgp_ref){sw->index, ip, a};
    }
}

/* Both ends of every switch-to-switch link agree; BGP neighbours' ASNs are the peers'. */
static void cross_check(ctx *c)
{
    const net *n = c->p->n;
    cdb_report *r = c->r;
    char field[96], have[96], fix[160], an[24], bn[24];
    for (uint32_t i = 0; i + 1 < n->n_ports; i += 2) {
        const port *a = n->ports[i], *b = n->ports[i + 1];
        if (a->owner->kind != NODE_SWITCH || b->owner->kind != NODE_SWITCH ||
            a->owner->tier == TIER_SCALE_UP || b->owner->tier == TIER_SCALE_UP)
            continue;
        const cport *ca = &c->ports[a->id], *cb = &c->ports[b->id];
        if (!ca->seen || !cb->seen)
            continue;
        plan_port_name(c->p, a, an, sizeof an);
        plan_port_name(c->p, b, bn, sizeof bn);
        if (ca->mtu && cb->mtu && ca->mtu != cb->mtu) {
            snprintf(field, sizeof field, "PORT|%s.mtu", an);
            snprintf(have, sizeof have, "%llu", (unsigned long long)ca->mtu);
            snprintf(fix, sizeof fix, "make both ends of %s:%s - %s:%s the same MTU",
                     a->owner->name, an, b->owner->name, bn);
            cdb_add(r, a->owner->name, field, have, fix, "%llu, as the peer %s PORT|%s.mtu",
                    (unsigned long long)cb->mtu, b->owner->name, bn);
        }
        if (ca->pfc >= 0 && cb->pfc >= 0 && ca->pfc != cb->pfc) {
            char ma[24], mb[24];
            plan_mask_text(ca->pfc, ma, sizeof ma);
            plan_mask_text(cb->pfc, mb, sizeof mb);
            snprintf(field, sizeof field, "PORT_QOS_MAP|%s.pfc_enable", an);
            snprintf(fix, sizeof fix,
                     "enable PFC on the same classes at both ends of %s:%s - "
                     "%s:%s",
                     a->owner->name, an, b->owner->name, bn);
            cdb_add(r, a->owner->name, field, ma, fix, "\"%s\", as the peer %s PORT_QOS_MAP|%s", mb,
                    b->owner->name, bn);
        }
        if (ca->ip && cb->ip && (ca->ip ^ 1u) != cb->ip) {
            char g4[20], p4[20];
            plan_ip4(ca->ip, g4, sizeof g4);
            plan_ip4(cb->ip, p4, sizeof p4);
            snprintf(field, sizeof field, "INTERFACE|%s", an);
            snprintf(fix, sizeof fix, "put both ends of %s:%s - %s:%s in one /31", a->owner->name,
                     an, b->owner->name, bn);
            cdb_add(r, a->owner->name, field, g4, fix,
                    "the other address of the /31 of the peer %s "
                    "%s (%s)",
                    b->owner->name, bn, p4);
        }
    }
    /* BGP: the neighbour's address belongs to a switch port; its ASN must be that switch's */
    for (uint32_t k = 0; k < c->n_bgp; k++) {
        const bgp_ref *g = &c->bgp[k];
        const node *sw = n->switches[g->sw];
        for (uint32_t i = 0; i < sw->n_ports; i++) {
            const port *pt = &sw->ports[i];
            const node *y = pt->peer->owner;
            if (y->kind != NODE_SWITCH || c->ports[pt->peer->id].ip != g->ip)
                continue;
            uint64_t real = c->asn[y->index];
            if (real && real != g->asn) {
                char ip[20];
                plan_ip4(g->ip, ip, sizeof ip);
                snprintf(field, sizeof field, "BGP_NEIGHBOR|%s.asn", ip);
                snprintf(have, sizeof have, "%llu", (unsigned long long)g->asn);
                snprintf(fix, sizeof fix, "set BGP_NEIGHBOR|%s asn to %llu", ip,
                         (unsigned long long)real);
                cdb_add(c->r, sw->name, field, have, fix,
                        "%llu, the bgp_asn of %s (DEVICE_METADATA)", (unsigned long long)real,
                        y->name);
            }
            break;
        }
    }
}

int cdb_verify(const plan *p, const char *dir, cdb_report *r, err *e)
{
    memset(r, 0, sizeof *r);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (!errno)
            errno = ENOTDIR;
        return err_set(e, ERR_IO, dir, 0, 0,
                       "%s: --config-db needs a folder of config_db.json "
                       "files: %s",
                       dir, strerror(errno ? errno : ENOTDIR));
    }
    const net *n = p->n;
    ctx c = {0};
    c.p = p;
    c.sc = p->sc;
    c.r = r;
    c.ports = xcalloc(n->n_ports ? n->n_ports : 1, sizeof(cport), "config_db ports");
    c.asn = xcalloc(n->n_switches ? n->n_switches : 1, sizeof(uint64_t), "config_db ASNs");
    size_t dl = strlen(dir) + 64;
    char *path = xmalloc(dl + 64, "config_db path");
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *sw = n->switches[i];
        if (sw->tier == TIER_SCALE_UP)
            continue;
        size_t len = 0;
        snprintf(path, dl + 64, "%s/%s/config_db.json", dir, sw->name);
        char *text = read_file(path, &len);
        if (!text) {
            snprintf(path, dl + 64, "%s/%s.json", dir, sw->name);
            text = read_file(path, &len);
        }
        if (!text) {
            char fix[160];
            snprintf(fix, sizeof fix,
                     "put its config_db.json in %s/%s/ (wirerate plan writes "
                     "one)",
                     dir, sw->name);
            cdb_add(r, sw->name, "config_db.json", "(no file)", fix, "a config_db.json for %s",
                    sw->name);
            continue;
        }
        r->files++;
        size_t off = 0;
        char msg[128];
        jsonr_doc *d = jsonr_parse(text, len, &off, msg, sizeof msg);
        if (!d) {
            char have[96];
            snprintf(have, sizeof have, "invalid JSON at byte %zu: %.60s", off, msg);
            cdb_add(r, sw->name, "config_db.json", have, "fix the JSON syntax",
                    "a JSON object of CONFIG_DB tables");
        } else {
            check_switch(&c, sw, jsonr_root(d));
            jsonr_free(d);
        }
        xfree(text);
    }
    cross_check(&c);
    xfree(path);
    xfree(c.bgp);
    xfree(c.asn);
    xfree(c.ports);
    return ERR_OK;
}

void cdb_report_free(cdb_report *r)
{
    xfree(r->f);
    memset(r, 0, sizeof *r);
}
