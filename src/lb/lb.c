/*
 * lb.c — load-balancing policies (see lb.h). Runs once per packet per switch hop: table-driven
 * CRCs over a 13-byte tuple, no allocation.
 */
#include "lb.h"

#include "../core/rng.h"
#include "../core/hotpath.h"

static uint32_t crc32_table[256];
static uint16_t crc16_table[256];
static int tables_ready;

static void tables_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc32_table[i] = c;
        uint16_t d = (uint16_t)(i << 8);
        for (int k = 0; k < 8; k++)
            d = (uint16_t)(d & 0x8000 ? (d << 1) ^ 0x1021 : d << 1);
        crc16_table[i] = d;
    }
    tables_ready = 1;
}

uint32_t lb_crc32(uint32_t seed, const uint8_t *buf, uint32_t len)
{
    uint32_t c = ~seed;
    for (uint32_t i = 0; i < len; i++)
        c = crc32_table[(c ^ buf[i]) & 0xFF] ^ (c >> 8);
    return ~c;
}

uint16_t lb_crc16(uint16_t seed, const uint8_t *buf, uint32_t len)
{
    uint16_t c = seed;
    for (uint32_t i = 0; i < len; i++)
        c = (uint16_t)((c << 8) ^ crc16_table[((c >> 8) ^ buf[i]) & 0xFF]);
    return c;
}

/* Pack the selected fields big-endian, as they sit in the headers. */
static uint32_t tuple(const cfg_lb *cfg, const node *sw, const packet *pkt, uint8_t b[13])
{
    const net *n = sw->owner;
    uint32_t sip = cfg->fields & HF_SRC_IP ? n->hosts[pkt->src]->ip : 0;
    uint32_t dip = cfg->fields & HF_DST_IP ? n->hosts[pkt->dst]->ip : 0;
    uint16_t sp = cfg->fields & HF_SRC_PORT ? pkt->sport : 0;
    uint16_t dp = cfg->fields & HF_DST_PORT ? ROCEV2_UDP_PORT : 0;
    uint8_t pr = cfg->fields & HF_PROTOCOL ? IP_PROTO_UDP : 0;
    b[0] = (uint8_t)(sip >> 24); b[1] = (uint8_t)(sip >> 16); b[2] = (uint8_t)(sip >> 8); b[3] = (uint8_t)sip;
    b[4] = (uint8_t)(dip >> 24); b[5] = (uint8_t)(dip >> 16); b[6] = (uint8_t)(dip >> 8); b[7] = (uint8_t)dip;
    b[8] = (uint8_t)(sp >> 8); b[9] = (uint8_t)sp;
    b[10] = (uint8_t)(dp >> 8); b[11] = (uint8_t)dp;
    b[12] = pr;
    return sip ^ dip ^ ((uint32_t)sp << 16 | dp) ^ pr;
}

uint32_t lb_hash(const cfg_lb *cfg, const node *sw, const packet *pkt)
{
    uint8_t b[13];
    uint32_t x = tuple(cfg, sw, pkt, b);
    switch (cfg->hash) {
    case HASH_CRC16: return lb_crc16((uint16_t)sw->hash_seed, b, sizeof b);
    case HASH_XOR: {
        uint32_t h = x ^ sw->hash_seed;
        return (h ^ (h >> 16)) & 0xFFFF;
    }
    case HASH_RANDOM: return (uint32_t)rng_next((rng *)&sw->rng);
    case HASH_CRC32:
    default: return lb_crc32(sw->hash_seed, b, sizeof b);
    }
}

static uint32_t pick_ecmp(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    return lb_hash((const cfg_lb *)ctx, sw, pkt) % g->n;
}

static uint32_t pick_spray(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    (void)ctx;
    (void)pkt;
    return (uint32_t)rng_below(&sw->rng, g->n);
}

static uint32_t pick_adaptive(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    const cfg_lb *cfg = ctx;
    uint32_t start = lb_hash(cfg, sw, pkt) % g->n;
    uint32_t best = start;
    uint64_t best_q = sw->ports[g->member[start]].q_total_bytes +
                      (sw->ports[g->member[start]].tx_pkt ? 1 : 0);
    for (uint32_t i = 1; i < g->n; i++) {
        uint32_t m = (start + i) % g->n;
        const port *p = &sw->ports[g->member[m]];
        uint64_t q = p->q_total_bytes + (p->tx_pkt ? 1 : 0);
        if (q < best_q) {
            best_q = q;
            best = m;
        }
    }
    return best;
}

int lb_install(net *n, const scenario *sc, err *e)
{
    if (!tables_ready)
        tables_init();
    n->pick_ctx = (void *)&sc->lb;
    switch (sc->lb.mode) {
    case LB_ECMP: n->pick = pick_ecmp; return 0;
    case LB_SPRAY: n->pick = pick_spray; return 0;
    case LB_ADAPTIVE:
        if (sc->lb.adaptive_metric != ADAPT_QUEUE)
            return config_error_at(sc, e, "loadbalance.adaptive.metric",
                                   "loadbalance.adaptive.metric: \"utilization\" is not available "
                                   "yet in this version (available: queue)");
        n->pick = pick_adaptive;
        return 0;
    default:
        return config_error_at(sc, e, "loadbalance.mode",
                               "loadbalance.mode: this mode is not available yet in this version "
                               "(available: ecmp, spray, adaptive)");
    }
}
