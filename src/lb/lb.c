/*
 * lb.c — load-balancing policies (see lb.h). Runs once per packet per switch hop: table-driven
 * CRCs over a 13-byte tuple, no allocation.
 */
#include "lb.h"

#include "../core/rng.h"
#include "../core/hotpath.h"

/* crc32_slice[0] is the bytewise table; [k] advances a byte's remainder k more bytes, so four
 * bytes are folded in one step (slicing-by-4, Kounavis and Berry, "A systematic approach to
 * building high performance software-based CRC generators", ISCC 2005): the same CRC. */
static uint32_t crc32_slice[4][256];
#define crc32_table crc32_slice[0]
static uint16_t crc16_table[256];

/* At program start, so that the hash (and lb_crc32, for tests) never tests for them. */
static void __attribute__((constructor)) tables_init(void)
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
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 4; k++)
            crc32_slice[k][i] = (crc32_slice[k - 1][i] >> 8) ^ crc32_table[crc32_slice[k - 1][i] & 0xFF];
}

/* Four message bytes, the first in the low byte, folded into the remainder c. */
static inline uint32_t crc32_word(uint32_t c, uint32_t w)
{
    c ^= w;
    return crc32_slice[3][c & 0xFF] ^ crc32_slice[2][(c >> 8) & 0xFF] ^
           crc32_slice[1][(c >> 16) & 0xFF] ^ crc32_slice[0][c >> 24];
}

/* lb_crc32(seed, b, 13) of the tuple tuple() packs, from its fields: the header's big-endian
 * bytes taken four at a time (test_lb compares it with the bytewise CRC). */
static inline uint32_t crc32_tuple(uint32_t seed, uint32_t sip, uint32_t dip, uint16_t sp,
                                   uint16_t dp, uint8_t pr)
{
    uint32_t c = ~seed;
    c = crc32_word(c, __builtin_bswap32(sip));
    c = crc32_word(c, __builtin_bswap32(dip));
    c = crc32_word(c, (uint32_t)__builtin_bswap16(sp) | (uint32_t)__builtin_bswap16(dp) << 16);
    c = crc32_table[(c ^ pr) & 0xFF] ^ (c >> 8);
    return ~c;
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

/* The header fields the hash reads (cfg->fields; the others zero). */
typedef struct hash_tuple {
    uint32_t sip, dip;
    uint16_t sp, dp;
    uint8_t pr;
} hash_tuple;

static inline hash_tuple tuple_fields(const cfg_lb *cfg, const node *sw, const packet *pkt)
{
    const net *n = sw->owner;
    uint32_t isip = net_host_ip(pkt->src), idip = net_host_ip(pkt->dst); /* node.ip */
    uint16_t isp = pkt->sport, idp = ROCEV2_UDP_PORT;
    if (n->vxlan) {
        /* EVPN-VXLAN underlay: the outer header (vxlan.c; RFC 7348 §5) */
        isp = net_vxlan_sport(isip, idip, isp);
        idp = VXLAN_UDP_PORT;
        isip = n->vtep_ip[pkt->src];
        idip = n->vtep_ip[pkt->dst];
    }
    hash_tuple t;
    t.sip = cfg->fields & HF_SRC_IP ? isip : 0;
    t.dip = cfg->fields & HF_DST_IP ? idip : 0;
    t.sp = cfg->fields & HF_SRC_PORT ? isp : 0;
    t.dp = cfg->fields & HF_DST_PORT ? idp : 0;
    t.pr = cfg->fields & HF_PROTOCOL ? IP_PROTO_UDP : 0;
    return t;
}

/* Pack the selected fields big-endian, as they sit in the headers. */
static uint32_t tuple(const cfg_lb *cfg, const node *sw, const packet *pkt, uint8_t b[13])
{
    hash_tuple t = tuple_fields(cfg, sw, pkt);
    uint32_t sip = t.sip, dip = t.dip;
    uint16_t sp = t.sp, dp = t.dp;
    uint8_t pr = t.pr;
    b[0] = (uint8_t)(sip >> 24); b[1] = (uint8_t)(sip >> 16); b[2] = (uint8_t)(sip >> 8); b[3] = (uint8_t)sip;
    b[4] = (uint8_t)(dip >> 24); b[5] = (uint8_t)(dip >> 16); b[6] = (uint8_t)(dip >> 8); b[7] = (uint8_t)dip;
    b[8] = (uint8_t)(sp >> 8); b[9] = (uint8_t)sp;
    b[10] = (uint8_t)(dp >> 8); b[11] = (uint8_t)dp;
    b[12] = pr;
    return sip ^ dip ^ ((uint32_t)sp << 16 | dp) ^ pr;
}

/* Rotate the w-bit hash h right by r bits (SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_OFFSET). */
static inline uint32_t rotr(uint32_t h, uint32_t r, uint32_t w)
{
    if (r == 0)
        return h;
    uint32_t mask = w == 32 ? 0xFFFFFFFFu : (1u << w) - 1;
    return ((h >> r) | (h << (w - r))) & mask;
}

uint32_t lb_hash(const cfg_lb *cfg, const node *sw, const packet *pkt)
{
    if (cfg->hash == HASH_CRC32) {
        hash_tuple t = tuple_fields(cfg, sw, pkt);
        return rotr(crc32_tuple(sw->hash_seed, t.sip, t.dip, t.sp, t.dp, t.pr), sw->hash_offset, 32);
    }
    uint8_t b[13];
    uint32_t x = tuple(cfg, sw, pkt, b);
    switch (cfg->hash) {
    case HASH_CRC16:
        return rotr(lb_crc16((uint16_t)sw->hash_seed, b, sizeof b), sw->hash_offset, 16);
    case HASH_XOR: {
        uint32_t h = x ^ sw->hash_seed;
        return rotr((h ^ (h >> 16)) & 0xFFFF, sw->hash_offset, 16);
    }
    case HASH_RANDOM:
        return (uint32_t)rng_next((rng *)&sw->rng);
    case HASH_CRC32:
    default:
        return rotr(lb_crc32(sw->hash_seed, b, sizeof b), sw->hash_offset, 32);
    }
}

/*
 * Per-tier hash offset. CRC-32, CRC-16 and the XOR fold are affine in their input, so a
 * switch's seed only XORs a constant into the hash; with power-of-two groups (member = hash
 * mod n: its low bits) every tier would read the same bits and a packet's choice at a spine
 * would be a fixed function of its choice at the leaf (hash polarization: of the 8 × 4 leaf ×
 * spine member pairs of the leaf-spine in test_lb, one (src, dst) reaches 8). Switch ASICs
 * therefore take the member from a configurable bit window of the hash: SAI rotates the ECMP
 * hash right by SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_OFFSET bits (opencomputeproject/SAI
 * inc/saiswitch.h; SONiC's SWITCH_TABLE `ecmp_hash_offset` next to `ecmp_hash_seed`), and
 * operators give each tier its own offset (Broadcom RTAG7 hash-bit selection; Google's
 * sonic-pins SAI P4 programs give their S2 and S3 switch roles different ECMP hash offsets
 * and algorithms).
 * Here leaves keep SAI's default 0 and each higher tier moves a third of the hash width (32-bit
 * CRC: 0, 10, 20; 16-bit CRC and XOR: 0, 5, 10), so the tiers read disjoint bit windows for
 * groups of up to 1024 (32) members and their choices are independent. Scale-up domains keep
 * offset 0; a custom fabric's switches take the rank of their distance from the hosts.
 */
static void set_offsets(net *n, enum hash_kind hash)
{
    uint32_t w = hash == HASH_CRC32 ? 32 : 16;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        node *sw = n->switches[i];
        uint32_t rank = sw->tier == TIER_SPINE ? 1 : sw->tier == TIER_SUPER_SPINE ? 2 : 0;
        if (sw->tier == TIER_LEAF && sw->hop_rank > 1) /* a custom fabric's switch (topo.c) */
            rank = sw->hop_rank >= 3 ? 2 : 1;
        sw->hash_offset = (uint8_t)(hash == HASH_RANDOM ? 0 : rank * (w / 3));
    }
}

static uint32_t pick_ecmp(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    return lb_hash((const cfg_lb *)ctx, sw, pkt) % g->n;
}

/* pick_ecmp for the default hash (CRC-32 of all five fields of the RoCEv2 header, no VXLAN
 * outer header): the same value with the constant fields folded in and no dispatch. Every
 * switch hop asks it, through the prefetch hook's guess or, where no guess applies, in the hop
 * (issue #17, twelfth round: lb_hash and its call were 3 % of a fat tree's instructions).
 * test_lb compares the two. */
static uint32_t pick_ecmp_crc32(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    (void)ctx;
    uint32_t h = crc32_tuple(sw->hash_seed, net_host_ip(pkt->src), net_host_ip(pkt->dst),
                             pkt->sport, ROCEV2_UDP_PORT, IP_PROTO_UDP);
    uint32_t r = sw->hash_offset; /* rotr(h, r, 32) */
    if (r)
        h = h >> r | h << (32 - r);
    return h % g->n;
}

static uint32_t pick_spray(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    (void)ctx;
    (void)pkt;
    return (uint32_t)rng_below(&sw->rng, g->n);
}

/* pick_spray's next choice at sw, drawn from a copy of its stream (net.pick_guess). */
static uint32_t guess_spray(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    (void)ctx;
    (void)pkt;
    rng r = sw->rng;
    return (uint32_t)rng_below(&r, g->n);
}

/* Load of a member port: egress queue bytes (plus one for a frame on the wire, so an idle port
 * beats a busy one with an empty queue), or its recent line bytes. */
static inline uint64_t member_load(const port *p, enum adaptive_metric m, sim_time now)
{
    if (m == ADAPT_UTILIZATION)
        return net_port_dre(p, now);
    return p->q_total_bytes + (p->tx_pkt ? 1 : 0);
}

/* The least-loaded member, scanning from `start` so ties go to the hashed member. */
static uint32_t least_loaded(const node *sw, const ecmp_group *g, uint32_t start,
                             enum adaptive_metric m)
{
    sim_time now = sw->owner->sim->now;
    uint32_t best = start;
    uint64_t best_load = member_load(&sw->ports[g->member[start]], m, now);
    for (uint32_t i = 1; i < g->n; i++) {
        uint32_t k = start + i < g->n ? start + i : start + i - g->n;
        uint64_t load = member_load(&sw->ports[g->member[k]], m, now);
        if (load < best_load) {
            best_load = load;
            best = k;
        }
    }
    return best;
}

static uint32_t pick_adaptive(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    const cfg_lb *cfg = ctx;
    return least_loaded(sw, g, lb_hash(cfg, sw, pkt) % g->n, cfg->adaptive_metric);
}

/*
 * Flowlets (Kandula et al., "Dynamic load balancing without packet reordering", CCR 2007; as in
 * CONGA/LetFlow): a hash-indexed table per switch remembers, per flow hash, when the last packet
 * passed and which member it took. A packet that follows within flowlet_gap keeps the member;
 * after a longer gap the flowlet may move to the least-loaded member (queue bytes). Like switch
 * hardware, the table has a fixed size and colliding flows share an entry.
 */
#define FLOWLET_TABLE 4096u

struct flowlet_entry {
    sim_time last_ps;
    uint32_t group;            /* group id + 1 (0 = empty) */
    uint32_t member;
};

static uint32_t pick_flowlet(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    const cfg_lb *cfg = ctx;
    const net *n = sw->owner;
    sim_time now = n->sim->now;
    hash_tuple t = tuple_fields(cfg, sw, pkt);
    uint32_t h = crc32_tuple(sw->hash_seed, t.sip, t.dip, t.sp, t.dp, t.pr);
    uint32_t hm = rotr(h, sw->hash_offset, 32); /* the member window (set_offsets) */
    uint32_t gid = (uint32_t)(g - n->groups) + 1;
    struct flowlet_entry *e = &sw->flowlets[h & (FLOWLET_TABLE - 1)];
    /* (a reroute renumbers groups: an entry whose member no longer exists is re-chosen) */
    if (e->group != gid || now - e->last_ps > cfg->flowlet_gap_ps || e->member >= g->n) {
        e->group = gid;
        e->member = least_loaded(sw, g, hm % g->n, ADAPT_QUEUE);
    }
    e->last_ps = now;
    return e->member;
}

/*
 * Collective-aware placement (the "cluster load balancing" idea): the transport numbers the
 * connections leaving each leaf 0, 1, 2, … as they are set up (a collective's flows are known
 * before it starts), and the packet carries that path number. A leaf sends path p up member
 * p mod n, so a leaf's connections share its uplinks equally — no two on one uplink until every
 * uplink has one; a spine going up uses the next digit, (p / leaf uplinks) mod n. Going down
 * there is one member. The path is a placement, not a hash: equal shares by construction.
 */
static uint32_t pick_collective(void *ctx, node *sw, const ecmp_group *g, const packet *pkt)
{
    const net *n = sw->owner;
    (void)ctx;
    uint32_t p = pkt->path;
    if (sw->tier == TIER_SPINE)
        p /= n->lb_leaf_up ? n->lb_leaf_up : 1;
    return p % g->n;
}

int lb_install(net *n, const scenario *sc, err *e)
{
    n->pick_ctx = (void *)&sc->lb;
    /* the ports' DRE is read only by adaptive balancing on utilization (member_load) */
    n->dre_on = sc->lb.mode == LB_ADAPTIVE && sc->lb.adaptive_metric == ADAPT_UTILIZATION;
    set_offsets(n, sc->lb.mode == LB_FLOWLET ? HASH_CRC32 : sc->lb.hash);
    switch (sc->lb.mode) {
    case LB_ECMP:
        n->pick = sc->lb.hash == HASH_CRC32 && sc->lb.fields == HF_ALL && !n->vxlan
                      ? pick_ecmp_crc32
                      : pick_ecmp;
        n->pick_guess = sc->lb.hash == HASH_RANDOM ? NULL : n->pick;
        return 0;
    case LB_SPRAY:
        n->pick = pick_spray;
        n->pick_guess = guess_spray;
        return 0;
    case LB_ADAPTIVE: n->pick = pick_adaptive; return 0;
    case LB_FLOWLET:
        for (uint32_t i = 0; i < n->n_switches; i++)
            n->switches[i]->flowlets =
                ARENA_NEW_ARRAY(&n->mem, struct flowlet_entry, FLOWLET_TABLE);
        n->pick = pick_flowlet;
        return 0;
    case LB_COLLECTIVE:
        /* the widest leaf uplink group: the radix of the first digit of a path */
        for (uint32_t i = 0; i < n->n_switches; i++) {
            const node *sw = n->switches[i];
            if (sw->tier != TIER_LEAF)
                continue;
            uint32_t up = 0;
            for (uint32_t p = 0; p < sw->n_ports; p++)
                up += sw->ports[p].peer->owner->kind == NODE_SWITCH &&
                      sw->ports[p].peer->owner->tier == TIER_SPINE;
            if (up > n->lb_leaf_up)
                n->lb_leaf_up = up;
        }
        n->pick = pick_collective;
        return 0;
    default:
        return config_error_at(sc, e, "loadbalance.mode", "loadbalance.mode: unknown mode");
    }
}
