/*
 * test_telemetry.c — telemetry on packet runs: the sampler's memory stays bounded on a long run
 * (decimation), it never keeps a finished simulation alive and never perturbs the model;
 * counters cross-check (per switch: frames in = frames out + drops; per link: PAUSE sent =
 * PAUSE received; a tap counting frames agrees with the ports' tx counters); the pcap frames
 * carry a valid IPv4 checksum, UDP 4791, the right BTH opcodes and the packets' ECN bits; the
 * trace writer's JSON reads back; the JSON reader is exact on 64-bit integers.
 *
 * Needs the run's telemetry bundle (run_telemetry(), wired in workload/run.c).
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "report/jsonr.h"
#include "telemetry/telemetry.h"
#include "testlib.h"
#include "workload/run.h"

static run *start(scenario *sc, const char *yaml)
{
    return tl_start(sc, "tel.yaml", yaml, NULL, 0);
}

static telemetry *tel_of(run *r)
{
    return run_telemetry(r);
}

/* One 50 MB flow at 100 Gbps (4 ms) sampled every 100 ns: 40 000 ticks into a table of at most
 * SAMPLER_MAX_ROWS rows — it must decimate, stay within the budget, and cover the whole run. */
static void test_sampler_bounded(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 100Gbps}\n"
        "workload: [{name: big, kind: traffic, pattern: permutation, size: 50MB}]\n"
        "telemetry: {sample_interval: 100ns}\n"
        "output: {formats: [csv]}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    telemetry *t = tel_of(r);
    CHECK(t && t->smp);
    if (!t || !t->smp)
        goto out;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    const sampler *s = t->smp;
    CHECK_EQ_U64(st->flows_completed, st->n_flows);
    CHECK(!st->hit_stop_at); /* the sampler let the run end */
    CHECK(sampler_ticks(s) > sampler_cap_rows(s)); /* more ticks than rows: it merged */
    CHECK(sampler_rows(s) <= sampler_cap_rows(s));
    CHECK(sampler_cap_rows(s) <= SAMPLER_MAX_ROWS);
    CHECK(sampler_memory_bytes(s) <= SAMPLER_BUDGET_BYTES);
    CHECK(sampler_interval(s) > 100 * SIM_NS); /* decimated at least once */
    /* rows cover the run in increasing time, up to at most one tick past the end */
    for (uint32_t i = 1; i < sampler_rows(s); i++)
        CHECK(sampler_row_time(s, i) > sampler_row_time(s, i - 1));
    sim_time last = sampler_row_time(s, sampler_rows(s) - 1);
    CHECK(last >= st->flows[0].end_ps);
    CHECK(last <= st->end_ps);
    /* the sending port was busy: its mean utilization over the flow is near line rate */
    double busy = 0;
    uint32_t nb = 0;
    for (uint32_t i = 0; i < sampler_n_ports(s); i++) {
        const port *p = sampler_port(s, i);
        if (p->owner->kind != NODE_HOST || net_port_tx_bytes(p) < 50000000)
            continue;
        for (uint32_t k = 0; k < sampler_rows(s); k++)
            if (sampler_row_time(s, k) < st->flows[0].end_ps * 9 / 10) {
                busy += sampler_util(s, k, i);
                nb++;
            }
    }
    CHECK(nb > 0);
    if (nb)
        CHECK_NEAR(busy / nb, 1.0, 0.05);
    /* 100 ns samples of 334 ns frames: each sample holds its share of the frames it overlaps,
     * so no sample exceeds 1 (merged rows are means of such samples; 1e-6 for float) */
    float umax = 0.0f;
    for (uint32_t i = 0; i < sampler_n_ports(s); i++)
        for (uint32_t k = 0; k < sampler_rows(s); k++)
            if ((float)sampler_util(s, k, i) > umax)
                umax = (float)sampler_util(s, k, i);
    CHECK(umax <= 1.0f + 1e-6f);
    CHECK(umax > 0.99f);
out:
    run_free(r);
    scenario_free(&sc);
}

/* A sample's utilization is the time on the wire inside its interval, never above 1: with an
 * interval of about 1.5 frame times (4 KB frames at 100 Gbps: 336 ns; samples every 500 ns),
 * counting bytes at frame end would credit two frames to some intervals (1.34). A 2 MB flow
 * keeps the sender's port at line rate: its rows read 1 within float precision. */
static void test_sample_util_at_most_one(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 100Gbps}\n"
        "workload: [{name: one, kind: traffic, pattern: incast, size: 2MB}]\n"
        "telemetry: {sample_interval: 500ns}\n"
        "output: {formats: [csv]}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    telemetry *t = tel_of(r);
    CHECK(t && t->smp);
    if (!t || !t->smp)
        goto out;
    run_execute(r, NULL, NULL);
    const sampler *s = t->smp;
    double max = 0;
    uint32_t full = 0;
    for (uint32_t i = 0; i < sampler_n_ports(s); i++)
        for (uint32_t k = 0; k < sampler_rows(s); k++) {
            double u = sampler_util(s, k, i);
            max = u > max ? u : max;
            full += u > 0.999;
        }
    CHECK(max <= 1.0);
    CHECK(full > 10); /* the sender's port and the receiver's switch port at line rate */
out:
    run_free(r);
    scenario_free(&sc);
}

/* The model's results do not depend on what telemetry records. */
static void test_no_perturbation(void)
{
    static const char base[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 2, host_link: 100Gbps,"
        " fabric_link: 100Gbps, leaf_radix: 4}\n"
        "switch: {buffer: 512KiB}\n"
        "workload: [{name: a2a, kind: traffic, pattern: all-to-all, size: 200KB}]\n"
        "telemetry: {sample_interval: 1us}\n";
    char y1[1024], y2[1024];
    snprintf(y1, sizeof y1, "%soutput: {formats: [json]}\n", base);
    snprintf(y2, sizeof y2, "%soutput: {formats: [json, csv, pcap, trace]}\n", base);
    scenario s1, s2;
    run *a = start(&s1, y1), *b = start(&s2, y2);
    CHECK(a && b);
    if (a && b) {
        CHECK(tel_of(b)->smp && tel_of(b)->pcap && !tel_of(a)->smp && !tel_of(a)->pcap);
        run_execute(a, NULL, NULL);
        run_execute(b, NULL, NULL);
        const run_stats *x = run_result(a), *z = run_result(b);
        CHECK_EQ_U64(x->events, z->events); /* sampler ticks are not counted */
        CHECK_EQ_U64(x->packet_hops, z->packet_hops);
        CHECK_EQ_U64(x->n_flows, z->n_flows);
        for (uint64_t i = 0; i < x->n_flows && i < z->n_flows; i++)
            CHECK_EQ_U64(x->flows[i].end_ps, z->flows[i].end_ps);
        CHECK_EQ_U64(x->ecn_marked, z->ecn_marked);
        CHECK_EQ_U64(x->pfc_pause_sent, z->pfc_pause_sent);
        /* the clock may end at the sampler's last tick, at most one interval later */
        CHECK(z->end_ps >= x->end_ps && z->end_ps - x->end_ps <= SIM_US);
    }
    if (a) {
        run_free(a);
        scenario_free(&s1);
    }
    if (b) {
        run_free(b);
        scenario_free(&s2);
    }
}

/* ---- counter cross-checks with a counting tap ---------------------------------------------- */

typedef struct counts {
    uint64_t *tx, *pause;  /* per port: frames started, PAUSE frames among them */
} counts;

static void count_tap(void *ctx, const port *p, const packet *pkt, sim_time t)
{
    counts *c = ctx;
    (void)t;
    c->tx[p->id]++;
    c->pause[p->id] += pkt->kind == PKT_PAUSE;
}

static void cross_check(const char *yaml, bool expect_drops, bool expect_pauses)
{
    scenario sc;
    run *r = start(&sc, yaml);
    CHECK(r != NULL);
    if (!r)
        return;
    net *n = tel_of(r)->net;
    counts c = {calloc(n->n_ports, 8), calloc(n->n_ports, 8)};
    n->tap = count_tap;
    n->tap_ctx = &c;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    uint64_t drops = 0, pauses = 0;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        CHECK_EQ_U64(c.tx[i], net_port_tx_packets(p)); /* the tap sees every frame the port sends */
        /* per link: XOFF frames sent by one end = PAUSEs received by the other */
        CHECK_EQ_U64(port_cold_of(p)->pfc_pause_sent, port_cold_of(p->peer)->pfc_pause_rx);
        for (int d = 0; d < DROP_REASONS; d++)
            drops += port_cold_of(p)->drops[d];
        pauses += c.pause[i];
    }
    /* per switch: frames in (what its peers sent it, less the PAUSE frames it consumes) =
     * frames out (less the PAUSE frames it made) + drops at its ports + still queued */
    for (uint32_t s = 0; s < n->n_switches; s++) {
        const node *sw = n->switches[s];
        uint64_t in = 0, out = 0, dropped = 0, queued = 0;
        for (uint32_t k = 0; k < sw->n_ports; k++) {
            const port *p = &sw->ports[k];
            in += c.tx[p->peer->id] - c.pause[p->peer->id];
            out += c.tx[p->id] - c.pause[p->id];
            for (int d = 0; d < DROP_REASONS; d++)
                dropped += port_cold_of(p)->drops[d];
            for (int q = 0; q < NET_PRIOS; q++)
                for (const packet *x = p->cls[q].q.head; x; x = x->next)
                    queued++;
            queued += p->tx_pkt != NULL;
        }
        if (in != out + dropped + queued)
            fprintf(stderr, "switch %s: in %llu, out %llu, dropped %llu, queued %llu\n",
                    sw->name, (unsigned long long)in, (unsigned long long)out,
                    (unsigned long long)dropped, (unsigned long long)queued);
        CHECK_EQ_U64(in, out + dropped + queued);
    }
    CHECK(expect_drops ? drops > 0 : drops == 0);
    CHECK(expect_pauses ? pauses > 0 : pauses == 0);
    uint64_t sum = 0;
    for (int d = 0; d < DROP_REASONS; d++)
        sum += st->drops[d];
    CHECK_EQ_U64(sum, drops);
    n->tap = NULL;
    free(c.tx);
    free(c.pause);
    run_free(r);
    scenario_free(&sc);
}

static void test_counters_lossless(void)
{
    cross_check("fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 2, host_link: 100Gbps,"
                " fabric_link: 100Gbps, leaf_radix: 4}\n"
                "switch: {buffer: 1MiB}\n"
                "workload: [{name: in, kind: traffic, pattern: incast, size: 1MB}]\n",
                false, true);
}

static void test_counters_lossy(void)
{
    cross_check("fabric: {preset: single-switch, servers: 6, gpus_per_server: 1,"
                " host_link: 100Gbps}\n"
                "switch: {buffer: 256KiB, pfc: {enabled: false}}\n"
                "workload: [{name: in, kind: traffic, pattern: incast, size: 400KB}]\n",
                true, false);
}

/* ---- pcap frames --------------------------------------------------------------------------- */

static unsigned be16(const uint8_t *b) { return (unsigned)b[0] << 8 | b[1]; }
static uint32_t le32v(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The capture file as pcap_write writes it, read back record by record. */
typedef struct cap_file {
    char *data;
    size_t len, off;
} cap_file;

static bool cap_open(pcap_capture *c, cap_file *cf, uint32_t want_snaplen)
{
    memset(cf, 0, sizeof *cf);
    FILE *f = open_memstream(&cf->data, &cf->len);
    if (!f)
        return false;
    int rc = pcap_write(f, c);
    fclose(f);
    CHECK_EQ_U64(rc, 0);
    CHECK_EQ_U64(cf->len, pcap_bytes(c));
    if (cf->len < PCAP_FILE_HEADER)
        return false;
    const uint8_t *h = (const uint8_t *)cf->data;
    CHECK_EQ_U64(le32v(h), PCAP_MAGIC_NS);
    CHECK_EQ_U64(le32v(h + 16), want_snaplen);
    cf->off = PCAP_FILE_HEADER;
    return true;
}

static bool cap_next(cap_file *cf, const uint8_t **frame, uint32_t *incl, uint32_t *orig)
{
    if (cf->off + PCAP_RECORD_HEADER > cf->len)
        return false;
    const uint8_t *r = (const uint8_t *)cf->data + cf->off;
    *incl = le32v(r + 8);
    *orig = le32v(r + 12);
    *frame = r + PCAP_RECORD_HEADER;
    cf->off += PCAP_RECORD_HEADER + *incl;
    CHECK(cf->off <= cf->len);
    return cf->off <= cf->len;
}

/* The ICRC of a RoCEv2 CNP captured on a ConnectX-4 Lx (a public capture, also scapy's RoCE
 * regression vector): its last four bytes 82 fd 00 2a are the ICRC, least significant first. */
static void test_pcap_icrc_vector(void)
{
    static const uint8_t cnp[] = {
        0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32, 0x08, 0x00,
        0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61, 0x0a, 0x00,
        0x11, 0x01, 0x0a, 0x00, 0x12, 0x01, 0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
        0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x82, 0xfd, 0x00, 0x2a};
    CHECK_EQ_U64(sizeof cnp, 74);
    CHECK_EQ_U64(pcap_icrc(cnp, sizeof cnp), le32v(cnp + 70));
    /* the variant fields do not enter it: another TOS, TTL, IP checksum, UDP checksum, BECN */
    uint8_t v[sizeof cnp];
    memcpy(v, cnp, sizeof v);
    v[15] = 0x03, v[22] = 0x01, v[24] = 0x12, v[25] = 0x34, v[40] = 0xab, v[41] = 0xcd;
    v[46] = 0x00;
    CHECK_EQ_U64(pcap_icrc(v, sizeof v), le32v(cnp + 70));
    /* an invariant one does: the destination QP */
    v[49] ^= 1;
    CHECK(pcap_icrc(v, sizeof v) != le32v(cnp + 70));
}

static void test_pcap_frames(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 5, gpus_per_server: 1, host_link: 100Gbps}\n"
        "switch: {buffer: 1MiB, ecn: {kmin: 20KB, kmax: 100KB, pmax: 0.5}}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 600KB}]\n"
        "telemetry: {pcap: {max_packets: 20000, snaplen: 65535B, max_bytes: 1GiB}}\n"
        "output: {formats: [pcap]}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    telemetry *t = tel_of(r);
    CHECK(t->pcap != NULL);
    run_execute(r, NULL, NULL);
    uint64_t n = pcap_captured(t->pcap);
    CHECK(n > 100);
    CHECK_EQ_U64(pcap_missed(t->pcap), 0);
    cap_file cf;
    CHECK(cap_open(t->pcap, &cf, 65535));
    const uint8_t *buf;
    uint32_t len, orig;
    uint64_t seen_kind[5] = {0}, ce = 0, bad_sum = 0, bad_icrc = 0, records = 0, reth = 0;
    while (cap_next(&cf, &buf, &len, &orig)) {
        records++;
        CHECK_EQ_U64(len, orig); /* whole frames */
        CHECK(len >= 60);
        unsigned et = be16(buf + 12);
        if (et == 0x8808) {
            seen_kind[PKT_PAUSE]++;
            CHECK_EQ_U64(be16(buf + 14), 0x0101);
            CHECK(buf[0] == 0x01 && buf[1] == 0x80 && buf[2] == 0xC2);
            CHECK_EQ_U64(len, 60);
            continue;
        }
        CHECK_EQ_U64(et, 0x0800);
        uint32_t sum = 0;
        for (int k = 0; k < 20; k += 2)
            sum += be16(buf + 14 + k);
        while (sum >> 16)
            sum = (sum & 0xFFFF) + (sum >> 16);
        bad_sum += sum != 0xFFFF;
        CHECK_EQ_U64(be16(buf + 14 + 2), len - 14); /* IPv4 total length */
        CHECK_EQ_U64(buf[14 + 9], 17);
        CHECK_EQ_U64(be16(buf + 36), 4791);
        bad_icrc += pcap_icrc(buf, len) != le32v(buf + len - 4);
        unsigned op = buf[42], ecn = buf[15] & 3;
        ce += ecn == 3;
        if (op >= 0x06 && op <= 0x0A) {
            seen_kind[PKT_DATA]++;
            CHECK(ecn == 2 || ecn == 3);
            if (op == 0x06 || op == 0x0A) {
                /* RETH DMA length: the incast's whole 600 KB message, not this packet */
                reth++;
                uint32_t dma = (uint32_t)buf[66] << 24 | (uint32_t)buf[67] << 16 |
                               (uint32_t)buf[68] << 8 | buf[69];
                CHECK_EQ_U64(dma, 600000);
            }
        } else if (op == 0x11) {
            seen_kind[buf[54] == 0x60 ? PKT_NAK : PKT_ACK]++;
        } else if (op == 0x81) {
            seen_kind[PKT_CNP]++;
            CHECK_EQ_U64(buf[46], 0x40); /* BECN */
        } else {
            CHECK(!"unexpected BTH opcode");
        }
    }
    CHECK_EQ_U64(records, n);
    CHECK_EQ_U64(bad_sum, 0);
    CHECK_EQ_U64(bad_icrc, 0);
    CHECK(reth > 0);
    CHECK(seen_kind[PKT_DATA] > 0 && seen_kind[PKT_ACK] > 0);
    CHECK(seen_kind[PKT_CNP] > 0 && ce > 0);       /* ECN marked, DCQCN answered */
    CHECK(seen_kind[PKT_PAUSE] > 0);               /* PFC on class 3 by default */
    free(cf.data);
    run_free(r);
    scenario_free(&sc);
}

/* Default snap length: headers stored, the real length in orig_len; and the byte budget holds:
 * the file never exceeds max_bytes and capturing stops (and counts what it missed) when full. */
static void test_pcap_snaplen_budget(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 5, gpus_per_server: 1, host_link: 100Gbps}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 600KB}]\n"
        "telemetry: {pcap: {max_bytes: 100KiB}}\n"
        "output: {formats: [pcap]}\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    telemetry *t = tel_of(r);
    run_execute(r, NULL, NULL);
    CHECK(pcap_bytes(t->pcap) <= 100 * 1024);
    CHECK(pcap_bytes(t->pcap) > 100 * 1024 - PCAP_RECORD_HEADER - PCAP_SNAPLEN_DEFAULT);
    CHECK_EQ_U64(pcap_stopped(t->pcap), PCAP_FULL_BYTES);
    CHECK(pcap_missed(t->pcap) > 0);
    cap_file cf;
    CHECK(cap_open(t->pcap, &cf, PCAP_SNAPLEN_DEFAULT));
    const uint8_t *buf;
    uint32_t len, orig;
    uint64_t cut = 0, records = 0;
    while (cap_next(&cf, &buf, &len, &orig)) {
        records++;
        CHECK(len <= PCAP_SNAPLEN_DEFAULT && len <= orig);
        if (be16(buf + 12) == 0x0800)
            CHECK_EQ_U64(be16(buf + 16), orig - 14); /* IPv4 total length: the real frame */
        cut += len < orig;
    }
    CHECK_EQ_U64(records, pcap_captured(t->pcap));
    CHECK(cut > 0);
    free(cf.data);
    run_free(r);
    scenario_free(&sc);
}

static void test_pcap_filter(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 5, gpus_per_server: 1, host_link: 100Gbps}\n"
        "workload: [{name: in, kind: traffic, pattern: incast, size: 300KB}]\n";
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    net *n = tel_of(r)->net;
    err e;
    err_clear(&e);
    pcap_opts po = {1000000, 1ull << 30, 128, NULL};
    pcap_capture *c = pcap_capture_new(n, &po, "node:h1 kind:data", &e);
    CHECK(c != NULL);
    run_execute(r, NULL, NULL);
    uint64_t k = c ? pcap_captured(c) : 0;
    CHECK(k > 0);
    cap_file cf;
    if (c && cap_open(c, &cf, 128)) {
        const uint8_t *buf;
        uint32_t len, orig;
        while (cap_next(&cf, &buf, &len, &orig))
            CHECK(buf[42] >= 0x06 && buf[42] <= 0x0A); /* data only */
        free(cf.data);
    }
    pcap_capture_free(c);
    CHECK(n->tap == NULL);
    static const char *const bad[] = {"node:nosuch", "kind:bogus", "vlan:3", "port:h1->h9"};
    for (size_t i = 0; i < 4; i++) {
        err_clear(&e);
        CHECK(pcap_capture_new(n, &po, bad[i], &e) == NULL);
        CHECK_EQ_U64(e.code, ERR_INVALID);
        CHECK(strstr(e.msg, "telemetry.pcap.filter") != NULL);
    }
    run_free(r);
    scenario_free(&sc);
}

/* ---- trace writer and JSON reader ---------------------------------------------------------- */

static void test_trace_roundtrip(void)
{
    trace_writer *tw = trace_new();
    uint32_t p = trace_process(tw, "llama \"70b\"");
    CHECK_EQ_U64(trace_process(tw, "llama \"70b\""), p);
    uint32_t t0 = trace_thread(tw, p, "rank 0"), t1 = trace_thread(tw, p, "rank 1");
    CHECK(t0 != t1);
    CHECK_EQ_U64(trace_thread(tw, p, "rank 1"), t1);
    trace_complete(tw, p, t0, "all_reduce step 1", "comm", 1500000, 2500001);
    trace_begin(tw, p, t1, "backward", "compute", 10);
    trace_end(tw, p, t1, 20);
    trace_counter(tw, p, "queue", 5, 42);
    trace_instant(tw, p, t0, "fault", 7);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_EQ_U64(trace_write_json(f, tw), 0);
    fclose(f);
    char msg[64];
    size_t off;
    jsonr_doc *d = jsonr_parse(buf, len, &off, msg, sizeof msg);
    CHECK(d != NULL);
    if (d) {
        const jsonr_val *ev = jsonr_get(jsonr_root(d), "traceEvents");
        CHECK(ev && ev->type == JR_ARR);
        CHECK_EQ_U64(ev ? ev->n : 0, 3 + 5); /* 1 process + 2 thread names, 5 events */
        const jsonr_val *x = NULL;
        for (const jsonr_val *e = ev ? ev->child : NULL; e; e = e->next)
            if (strcmp(jsonr_str(e, "ph", ""), "X") == 0)
                x = e;
        CHECK(x != NULL);
        CHECK_NEAR(jsonr_num(x, "ts", 0), 1.5, 1e-12);       /* µs, exact ps */
        CHECK_NEAR(jsonr_num(x, "dur", 0), 2.500001, 1e-12);
        jsonr_free(d);
    }
    free(buf);
    trace_free(tw);
}

static void test_jsonr(void)
{
    static const char doc[] =
        "{\"a\": {\"b\": 18446744073709551615, \"c\": -1.5e3, \"s\": \"x\\u00e9\\ud83d\\ude00\\n\"},"
        " \"arr\": [1, 2, {\"k\": true}], \"n\": null}";
    char msg[64];
    size_t off;
    jsonr_doc *d = jsonr_parse(doc, sizeof doc - 1, &off, msg, sizeof msg);
    CHECK(d != NULL);
    if (d) {
        const jsonr_val *r = jsonr_root(d);
        CHECK_EQ_U64(jsonr_u64(r, "a.b", 0), UINT64_MAX);
        CHECK_NEAR(jsonr_num(r, "a.c", 0), -1500, 0);
        CHECK_STR(jsonr_str(r, "a.s", ""), "x\xc3\xa9\xf0\x9f\x98\x80\n");
        CHECK_EQ_U64(jsonr_get(r, "arr")->n, 3);
        CHECK(jsonr_get(r, "n")->type == JR_NULL);
        jsonr_free(d);
    }
    static const char *const bad[] = {"{", "[1,]", "{\"a\" 1}", "01", "\"x", "1 2", "tru"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(jsonr_parse(bad[i], strlen(bad[i]), &off, msg, sizeof msg) == NULL);
}

int main(void)
{
    TEST_RUN(test_sampler_bounded);
    TEST_RUN(test_sample_util_at_most_one);
    TEST_RUN(test_no_perturbation);
    TEST_RUN(test_counters_lossless);
    TEST_RUN(test_counters_lossy);
    TEST_RUN(test_pcap_icrc_vector);
    TEST_RUN(test_pcap_frames);
    TEST_RUN(test_pcap_snaplen_budget);
    TEST_RUN(test_pcap_filter);
    TEST_RUN(test_trace_roundtrip);
    TEST_RUN(test_jsonr);
    return tl_finish();
}
