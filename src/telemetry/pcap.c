/*
 * pcap.c — capture filter, frame synthesis and the streamed capture file (pcap.h).
 *
 * The tap builds each matching frame's first `snaplen` bytes into one buffer allocated at
 * creation and appends the record to the temp file through stdio's buffer: no allocation per
 * frame, and memory does not grow with the capture (the file does, up to max_bytes). The cost
 * per captured frame is building ~70 header bytes (the zero payload is only written up to the
 * snap length) and, for frames stored whole, one CRC-32 pass for the ICRC.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fileno */

#include "pcap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/alloc.h"

enum { K_DATA = 1, K_ACK = 2, K_NAK = 4, K_CNP = 8, K_PAUSE = 16, K_ALL = 31 };

struct pcap_capture {
    net *n;
    uint64_t max_packets, max_bytes;
    uint64_t len, bytes, missed; /* records stored, file bytes, matching frames not stored */
    uint32_t snaplen;
    enum pcap_stop stop;
    FILE *f;              /* the temp file (unlinked) */
    uint8_t *buf;         /* [snaplen]: the frame being built */
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

static void put_le32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static void tap(void *ctx, const port *p, const packet *pkt, sim_time t)
{
    pcap_capture *c = ctx;
    if (pkt->kind == PKT_FCP)
        return; /* an InfiniBand link packet: no Ethernet frame to write */
    if (!(c->kinds & kind_bit(pkt->kind)))
        return;
    if (c->node_ok && !c->node_ok[p->owner->id] && !c->node_ok[p->peer->owner->id])
        return;
    if (c->port_ok && !c->port_ok[p->id])
        return;
    if (c->stop != PCAP_RUNNING) {
        c->missed++;
        return;
    }
    uint32_t len = pcap_build_frame(c->n, p, pkt, c->buf, c->snaplen);
    uint32_t incl = len < c->snaplen ? len : c->snaplen;
    if (c->len == c->max_packets || c->bytes + PCAP_RECORD_HEADER + incl > c->max_bytes) {
        c->stop = c->len == c->max_packets ? PCAP_FULL_PACKETS : PCAP_FULL_BYTES;
        c->missed++;
        return;
    }
    uint8_t rh[PCAP_RECORD_HEADER];
    uint64_t ns = t / 1000;
    put_le32(rh, (uint32_t)(ns / 1000000000u));
    put_le32(rh + 4, (uint32_t)(ns % 1000000000u));
    put_le32(rh + 8, incl);
    put_le32(rh + 12, len);
    if (fwrite(rh, 1, sizeof rh, c->f) != sizeof rh || fwrite(c->buf, 1, incl, c->f) != incl) {
        c->stop = PCAP_IO_ERROR; /* disk full: stop capturing, pcap_write reports it */
        c->missed++;
        return;
    }
    c->len++;
    c->bytes += PCAP_RECORD_HEADER + incl;
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

/* An unlinked temp file in dir (NULL: tmpfile()). */
static FILE *open_temp(const char *dir)
{
    if (!dir)
        return tmpfile();
    size_t n = strlen(dir) + 32;
    char *path = xmalloc(n, "pcap temp path");
    snprintf(path, n, "%s/.wirerate-capture-XXXXXX", dir);
    int fd = mkstemp(path);
    FILE *f = NULL;
    if (fd >= 0) {
        unlink(path); /* nothing to clean up, whatever ends the process */
        f = fdopen(fd, "w+b");
        if (!f)
            close(fd);
    }
    xfree(path);
    return f;
}

pcap_capture *pcap_capture_new(net *n, const pcap_opts *o, const char *filter, err *e)
{
    pcap_capture *c = xcalloc(1, sizeof *c, "pcap capture");
    c->n = n;
    c->max_packets = o->max_packets;
    c->max_bytes = o->max_bytes;
    c->snaplen = o->snaplen < PCAP_SNAPLEN_MIN ? PCAP_SNAPLEN_MIN
                 : o->snaplen > PCAP_SNAPLEN  ? PCAP_SNAPLEN
                                              : o->snaplen;
    if (parse_filter(c, filter, e)) {
        pcap_capture_free(c);
        return NULL;
    }
    c->buf = xmalloc(c->snaplen, "pcap frame buffer");
    if (!(c->f = open_temp(o->staging_dir))) {
        err_set(e, ERR_IO, o->staging_dir ? o->staging_dir : "tmpfile", 0, 0,
                "cannot create the capture's temp file: %s", strerror(errno));
        pcap_capture_free(c);
        return NULL;
    }
    /* little-endian file; readers detect byte order from the magic */
    uint8_t h[PCAP_FILE_HEADER];
    put_le32(h, PCAP_MAGIC_NS);
    h[4] = 2, h[5] = 0, h[6] = 4, h[7] = 0; /* version 2.4 */
    put_le32(h + 8, 0);                     /* thiszone */
    put_le32(h + 12, 0);                    /* sigfigs */
    put_le32(h + 16, c->snaplen);
    put_le32(h + 20, 1); /* LINKTYPE_ETHERNET */
    if (fwrite(h, 1, sizeof h, c->f) != sizeof h)
        c->stop = PCAP_IO_ERROR;
    c->bytes = sizeof h;
    if (c->max_bytes < c->bytes)
        c->stop = PCAP_FULL_BYTES;
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
    if (c->f)
        fclose(c->f);
    xfree(c->buf);
    xfree(c->node_ok);
    xfree(c->port_ok);
    xfree(c);
}

uint64_t pcap_captured(const pcap_capture *c) { return c->len; }
uint64_t pcap_missed(const pcap_capture *c) { return c->missed; }
uint64_t pcap_bytes(const pcap_capture *c) { return c->bytes; }
enum pcap_stop pcap_stopped(const pcap_capture *c) { return c->stop; }

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
static void put32le(fbuf *f, uint32_t v)
{
    put8(f, v);
    put8(f, v >> 8);
    put8(f, v >> 16);
    put8(f, v >> 24);
}
static void put_zero(fbuf *f, uint32_t n)
{
    for (uint32_t i = 0; i < n && f->len + i < f->cap; i++)
        f->b[f->len + i] = 0;
    f->len += n;
}

/* CRC-32 of IEEE 802.3 (reflected polynomial 0xEDB88320), table built on first use; `crc` is the
 * running register (start 0xFFFFFFFF, final value inverted by the caller). */
static uint32_t crc_table[256];

static uint32_t crc32_update(uint32_t crc, const uint8_t *b, size_t n)
{
    if (!crc_table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t r = i;
            for (int k = 0; k < 8; k++)
                r = r & 1 ? (r >> 1) ^ 0xEDB88320u : r >> 1;
            crc_table[i] = r;
        }
    }
    for (size_t i = 0; i < n; i++)
        crc = crc_table[(crc ^ b[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

/* ICRC over frame[0..len) (no ICRC yet): masks per pcap.h. */
static uint32_t icrc_le(const uint8_t *frame, uint32_t len)
{
    enum { IP = WIRE_ETH, UDP = IP + WIRE_IPV4, BTH = UDP + WIRE_UDP, END = BTH + WIRE_BTH };
    static const uint8_t lrh[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    uint8_t h[END - IP];
    memcpy(h, frame + IP, sizeof h);
    h[1] = 0xFF;                     /* TOS: DSCP and ECN */
    h[8] = 0xFF;                     /* TTL */
    h[10] = h[11] = 0xFF;            /* IPv4 header checksum */
    h[UDP - IP + 6] = h[UDP - IP + 7] = 0xFF; /* UDP checksum */
    h[BTH - IP + 4] = 0xFF;          /* FECN, BECN, reserved */
    uint32_t crc = crc32_update(0xFFFFFFFFu, lrh, sizeof lrh);
    crc = crc32_update(crc, h, sizeof h);
    crc = crc32_update(crc, frame + END, len - END);
    return ~crc;
}

uint32_t pcap_icrc(const uint8_t *frame, uint32_t len)
{
    return icrc_le(frame, len - WIRE_ICRC);
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

uint32_t pcap_build_frame(const net *n, const port *p, const packet *r, uint8_t *buf,
                          uint32_t cap)
{
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
        l4 += (r->first ? WIRE_RETH : 0) + r->payload_bytes;
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
    put24(&f, 0x100 + ((uint32_t)r->flow & 0xFFFFF));   /* dest QP */
    put8(&f, r->kind == PKT_DATA && r->last ? 0x80 : 0); /* AckReq */
    put24(&f, psn & 0xFFFFFF);
    if (r->kind == PKT_DATA) {
        if (r->first) {
            put32(&f, 0);
            put32(&f, 0); /* VA */
            put32(&f, 0); /* R_Key */
            put32(&f, r->msg_bytes); /* DMA length: the whole message */
        }
        put_zero(&f, r->payload_bytes);
    } else if (r->kind == PKT_CNP) {
        put_zero(&f, 16);
    } else {
        put8(&f, r->kind == PKT_ACK ? 0x1F : 0x60);
        put24(&f, r->psn & 0xFFFFFF); /* MSN */
    }
    /* the ICRC, when the whole frame is stored (else it lies beyond the snap length) */
    put32le(&f, f.len + WIRE_ICRC <= cap ? icrc_le(buf, f.len) : 0);
    if (f.len < 60)
        put_zero(&f, 60 - f.len);
    return f.len;
}

int pcap_write(FILE *f, pcap_capture *c)
{
    if (c->stop == PCAP_IO_ERROR || fflush(c->f) != 0 || fseek(c->f, 0, SEEK_SET) != 0)
        return -1;
    uint8_t b[65536];
    size_t got;
    uint64_t left = c->bytes;
    while (left && (got = fread(b, 1, left < sizeof b ? (size_t)left : sizeof b, c->f)) > 0) {
        if (fwrite(b, 1, got, f) != got)
            return -1;
        left -= got;
    }
    fseek(c->f, 0, SEEK_END); /* the capture may go on (a run resumed after an export) */
    return left || ferror(c->f) || ferror(f) ? -1 : 0;
}
