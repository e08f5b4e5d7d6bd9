/*
 * pcap.c — capture table, filter, and frame synthesis for the pcap exporter (pcap.h).
 *
 * The table grows by doubling up to max_packets (capturing every frame of a long run at a fixed
 * cost would otherwise mean preallocating max_packets records up front even for runs that send
 * a handful); growth is amortized O(1) and stops at the cap, after which the tap only counts.
 */
#include "pcap.h"

#include <stdbool.h>
#include <string.h>

#include "../core/alloc.h"

enum { K_DATA = 1, K_ACK = 2, K_NAK = 4, K_CNP = 8, K_PAUSE = 16, K_ALL = 31 };

typedef struct pcap_rec {
    sim_time t;
    uint32_t port;       /* net->ports index of the transmitting port */
    uint32_t src, dst;
    uint32_t psn, payload;
    uint32_t qp;
    uint16_t sport;
    uint8_t kind, prio, ecn, hops, first, last, pfc_vec, pfc_xoff;
} pcap_rec;

struct pcap_capture {
    net *n;
    uint64_t max, len, cap, missed;
    pcap_rec *rec;
    uint8_t kinds;        /* K_* accepted */
    uint8_t *node_ok;     /* NULL = any node; else [n_nodes] */
    uint8_t *port_ok;     /* NULL = any port; else [n_ports] */
};

static uint8_t kind_bit(uint8_t k)
{
    switch (k) {
    case PKT_DATA: return K_DATA;
    case PKT_ACK: return K_ACK;
    case PKT_NAK: return K_NAK;
    case PKT_CNP: return K_CNP;
    default: return K_PAUSE;
    }
}

static void tap(void *ctx, const port *p, const packet *pkt, sim_time t)
{
    pcap_capture *c = ctx;
    if (!(c->kinds & kind_bit(pkt->kind)))
        return;
    if (c->node_ok && !c->node_ok[p->owner->id] && !c->node_ok[p->peer->owner->id])
        return;
    if (c->port_ok && !c->port_ok[p->id])
        return;
    if (c->len == c->max) {
        c->missed++;
        return;
    }
    if (c->len == c->cap) {
        uint64_t nc = c->cap ? c->cap * 2 : 4096;
        if (nc > c->max)
            nc = c->max;
        c->rec = xrealloc(c->rec, nc * sizeof(pcap_rec), "pcap records");
        c->cap = nc;
    }
    pcap_rec *r = &c->rec[c->len++];
    r->t = t;
    r->port = p->id;
    r->src = pkt->src;
    r->dst = pkt->dst;
    r->psn = pkt->psn;
    r->payload = pkt->payload_bytes;
    r->qp = (uint32_t)pkt->flow;
    r->sport = pkt->sport;
    r->kind = pkt->kind;
    r->prio = pkt->prio;
    r->ecn = pkt->ecn;
    r->hops = pkt->hops;
    r->first = pkt->first;
    r->last = pkt->last;
    r->pfc_vec = pkt->pfc_vec;
    r->pfc_xoff = pkt->pfc_xoff;
}

/* ---- filter ------------------------------------------------------------------------------- */

static int filter_value(pcap_capture *c, const char *key, const char *v, size_t vl,
                        const char *filter, err *e)
{
    net *n = c->n;
    char name[64];
    if (vl == 0 || vl >= sizeof name)
        return err_set(e, ERR_INVALID, "", 0, 0,
                       "telemetry.pcap.filter: empty or too long value in \"%s\"", filter);
    memcpy(name, v, vl);
    name[vl] = '\0';
    if (strcmp(key, "kind") == 0) {
        static const struct {
            const char *name;
            uint8_t bits;
        } k[] = {{"data", K_DATA},   {"ack", K_ACK},
                 {"nak", K_NAK},     {"cnp", K_CNP},
                 {"pause", K_PAUSE}, {"pfc", K_PAUSE},
                 {"roce", K_DATA | K_ACK | K_NAK | K_CNP},
                 {"control", K_ALL & ~K_DATA}};
        for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
            if (strcmp(name, k[i].name) == 0) {
                c->kinds |= k[i].bits;
                return 0;
            }
        return err_set(e, ERR_INVALID, "", 0, 0,
                       "telemetry.pcap.filter: unknown kind \"%s\" (expected data, ack, nak, "
                       "cnp, pause, roce or control)",
                       name);
    }
    if (strcmp(key, "node") == 0) {
        for (uint32_t i = 0; i < n->n_nodes; i++)
            if (strcmp(n->nodes[i].name, name) == 0) {
                c->node_ok[i] = 1;
                return 0;
            }
        return err_set(e, ERR_INVALID, "", 0, 0,
                       "telemetry.pcap.filter: no node named \"%s\" in this fabric", name);
    }
    /* port */
    char pn[64];
    for (uint32_t i = 0; i < n->n_ports; i++) {
        net_port_name(n->ports[i], pn, sizeof pn);
        if (strcmp(pn, name) == 0) {
            c->port_ok[i] = 1;
            return 0;
        }
    }
    return err_set(e, ERR_INVALID, "", 0, 0,
                   "telemetry.pcap.filter: no port named \"%s\" (ports are named like "
                   "\"leaf0->spine1\")",
                   name);
}

static int parse_filter(pcap_capture *c, const char *filter, err *e)
{
    c->kinds = 0;
    bool any_kind = false;
    const char *s = filter ? filter : "";
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *t = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        size_t tl = (size_t)(s - t);
        if (tl == 3 && strncmp(t, "all", 3) == 0)
            continue;
        const char *colon = memchr(t, ':', tl);
        char key[8] = "";
        if (colon && (size_t)(colon - t) < sizeof key) {
            memcpy(key, t, (size_t)(colon - t));
            key[colon - t] = '\0';
        }
        if (strcmp(key, "kind") != 0 && strcmp(key, "node") != 0 && strcmp(key, "port") != 0)
            return err_set(e, ERR_INVALID, "", 0, 0,
                           "telemetry.pcap.filter: expected terms like node:NAME, port:A->B or "
                           "kind:K, got \"%.*s\"",
                           (int)tl, t);
        if (key[0] == 'k')
            any_kind = true;
        else if (key[0] == 'n' && !c->node_ok)
            c->node_ok = xcalloc(c->n->n_nodes ? c->n->n_nodes : 1, 1, "pcap node filter");
        else if (key[0] == 'p' && !c->port_ok)
            c->port_ok = xcalloc(c->n->n_ports ? c->n->n_ports : 1, 1, "pcap port filter");
        const char *v = colon + 1, *end = t + tl;
        while (v <= end) {
            const char *comma = memchr(v, ',', (size_t)(end - v));
            const char *ve = comma ? comma : end;
            if (filter_value(c, key, v, (size_t)(ve - v), filter, e))
                return e->code;
            v = ve + 1;
        }
    }
    if (!any_kind)
        c->kinds = K_ALL;
    return 0;
}

pcap_capture *pcap_capture_new(net *n, uint64_t max_packets, const char *filter, err *e)
{
    pcap_capture *c = xcalloc(1, sizeof *c, "pcap capture");
    c->n = n;
    c->max = max_packets;
    if (parse_filter(c, filter, e)) {
        pcap_capture_free(c);
        return NULL;
    }
    n->tap = tap;
    n->tap_ctx = c;
    return c;
}

void pcap_capture_free(pcap_capture *c)
{
    if (!c)
        return;
    if (c->n->tap_ctx == c) {
        c->n->tap = NULL;
        c->n->tap_ctx = NULL;
    }
    xfree(c->rec);
    xfree(c->node_ok);
    xfree(c->port_ok);
    xfree(c);
}

uint64_t pcap_captured(const pcap_capture *c) { return c->len; }
uint64_t pcap_missed(const pcap_capture *c) { return c->missed; }

/* ---- frames ------------------------------------------------------------------------------- */

/* Bytes beyond `cap` are dropped: the builder writes through put(), which checks the bound. */
typedef struct fbuf {
    uint8_t *b;
    uint32_t cap, len;
} fbuf;

static void put8(fbuf *f, uint32_t v)
{
    if (f->len < f->cap)
        f->b[f->len] = (uint8_t)v;
    f->len++;
}
static void put16(fbuf *f, uint32_t v) { put8(f, v >> 8); put8(f, v); }
static void put24(fbuf *f, uint32_t v) { put8(f, v >> 16); put16(f, v); }
static void put32(fbuf *f, uint32_t v) { put16(f, v >> 16); put16(f, v); }
static void put_zero(fbuf *f, uint32_t n)
{
    for (uint32_t i = 0; i < n && f->len + i < f->cap; i++)
        f->b[f->len + i] = 0;
    f->len += n;
}

static void put_mac(fbuf *f, const port *p)
{
    put8(f, 0x02);
    put8(f, 0x00);
    put16(f, p->owner->id);
    put16(f, p->index);
}

static uint8_t dscp_of(uint8_t prio)
{
    return prio == 3 ? 26 : prio == 6 ? 48 : (uint8_t)(prio * 8);
}

static uint32_t build(const pcap_capture *c, const pcap_rec *r, uint8_t *buf, uint32_t cap)
{
    const net *n = c->n;
    const port *p = n->ports[r->port];
    fbuf f = {buf, cap, 0};
    if (r->kind == PKT_PAUSE) {
        static const uint8_t pfc_dst[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
        for (int i = 0; i < 6; i++)
            put8(&f, pfc_dst[i]);
        put_mac(&f, p);
        put16(&f, 0x8808);
        put16(&f, 0x0101);
        put16(&f, r->pfc_vec);
        for (int k = 0; k < 8; k++)
            put16(&f, (r->pfc_vec >> k & 1) && (r->pfc_xoff >> k & 1) ? PFC_QUANTA_MAX : 0);
        put_zero(&f, 60 - f.len); /* to the 64-byte minimum, FCS excluded */
        return f.len;
    }
    uint32_t l4 = WIRE_BTH;
    if (r->kind == PKT_DATA)
        l4 += (r->first ? WIRE_RETH : 0) + r->payload;
    else if (r->kind == PKT_CNP)
        l4 += 16;
    else
        l4 += WIRE_AETH;
    l4 += WIRE_ICRC;
    uint32_t ip_len = WIRE_IPV4 + WIRE_UDP + l4;

    put_mac(&f, p->peer);
    put_mac(&f, p);
    put16(&f, 0x0800);
    /* IPv4 header, checksum over the 20 bytes computed below */
    uint32_t src_ip = r->src < n->n_hosts ? n->hosts[r->src]->ip : 0;
    uint32_t dst_ip = r->dst < n->n_hosts ? n->hosts[r->dst]->ip : 0;
    uint32_t ttl = r->hops < 64 ? 64u - r->hops : 1u;
    uint32_t h[10] = {
        0x4500u | (uint32_t)(dscp_of(r->prio) << 2 | (r->ecn & 3)),
        ip_len,
        r->psn & 0xFFFFu,
        0x4000u, /* DF */
        ttl << 8 | IP_PROTO_UDP,
        0,
        src_ip >> 16, src_ip & 0xFFFFu,
        dst_ip >> 16, dst_ip & 0xFFFFu,
    };
    uint32_t sum = 0;
    for (int i = 0; i < 10; i++)
        sum += h[i];
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    h[5] = ~sum & 0xFFFFu;
    for (int i = 0; i < 10; i++)
        put16(&f, h[i]);
    /* UDP */
    put16(&f, r->sport);
    put16(&f, ROCEV2_UDP_PORT);
    put16(&f, WIRE_UDP + l4);
    put16(&f, 0);
    /* BTH */
    uint32_t op, psn = r->psn;
    if (r->kind == PKT_DATA)
        op = r->first && r->last ? 0x0A : r->first ? 0x06 : r->last ? 0x08 : 0x07;
    else if (r->kind == PKT_CNP)
        op = 0x81;
    else
        op = 0x11;
    if (r->kind == PKT_ACK)
        psn = r->psn - 1; /* our ACK(psn) acknowledges everything below psn */
    if (r->kind == PKT_CNP)
        psn = 0;
    put8(&f, op);
    put8(&f, 0x40);                         /* SE 0, MigReq 1, pad 0, TVer 0 */
    put16(&f, 0xFFFF);                      /* P_Key */
    put8(&f, r->kind == PKT_CNP ? 0x40 : 0); /* FECN 0, BECN (CNP) */
    put24(&f, 0x100 + (r->qp & 0xFFFFF));   /* dest QP */
    put8(&f, r->kind == PKT_DATA && r->last ? 0x80 : 0); /* AckReq */
    put24(&f, psn & 0xFFFFFF);
    if (r->kind == PKT_DATA) {
        if (r->first) {
            put32(&f, 0);
            put32(&f, 0); /* VA */
            put32(&f, 0); /* R_Key */
            put32(&f, r->payload);
        }
        put_zero(&f, r->payload);
    } else if (r->kind == PKT_CNP) {
        put_zero(&f, 16);
    } else {
        put8(&f, r->kind == PKT_ACK ? 0x1F : 0x60);
        put24(&f, r->psn & 0xFFFFFF); /* MSN */
    }
    put32(&f, 0); /* ICRC placeholder */
    if (f.len < 60)
        put_zero(&f, 60 - f.len);
    return f.len;
}

uint32_t pcap_frame(const pcap_capture *c, uint64_t i, uint8_t *buf, uint32_t cap)
{
    return build(c, &c->rec[i], buf, cap);
}

static void le32(FILE *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}
static void le16(FILE *f, uint32_t v)
{
    uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    fwrite(b, 1, 2, f);
}

int pcap_write(FILE *f, const pcap_capture *c, uint32_t snaplen)
{
    if (!snaplen)
        snaplen = PCAP_SNAPLEN;
    /* little-endian file; readers detect byte order from the magic */
    le32(f, PCAP_MAGIC_NS);
    le16(f, 2);
    le16(f, 4);
    le32(f, 0); /* thiszone */
    le32(f, 0); /* sigfigs */
    le32(f, snaplen);
    le32(f, 1); /* LINKTYPE_ETHERNET */
    uint8_t *buf = xmalloc(snaplen, "pcap frame");
    for (uint64_t i = 0; i < c->len; i++) {
        uint32_t len = build(c, &c->rec[i], buf, snaplen);
        uint32_t incl = len < snaplen ? len : snaplen;
        uint64_t ns = c->rec[i].t / 1000;
        le32(f, (uint32_t)(ns / 1000000000u));
        le32(f, (uint32_t)(ns % 1000000000u));
        le32(f, incl);
        le32(f, len);
        fwrite(buf, 1, incl, f);
    }
    xfree(buf);
    return ferror(f) ? -1 : 0;
}
