/*
 * test_lb.c — load balancing and the shared buffer on real packet runs.
 *
 * Low-entropy traffic (8 elephant flows, one per host, from leaf0's hosts to leaf1's) over 8
 * equal uplinks: 5-tuple ECMP hashes some flows onto the same uplink and leaves others idle,
 * and the job takes as long as the most loaded uplink; spraying, adaptive and flowlet balancing
 * spread the same bytes evenly. The dynamic threshold gives N congested queues
 * α·B / (1 + N·α) each (Choudhury & Hahne).
 */
#include <string.h>

#include "config/config.h"
#include "core/rng.h"
#include "core/time.h"
#include "lb/lb.h"
#include "net/net.h"
#include "net/packet.h"
#include "testlib.h"
#include "workload/run.h"

#define FLOW_BYTES (4u * 1000 * 1000)

static run *start(scenario *sc, const char *yaml)
{
    return tl_start(sc, "lb.yaml", yaml, NULL, 0);
}

/* start()'s run and its network (NULL, and a failed check, when it does not build). */
static net *start_net(scenario *sc, const char *yaml, run **r)
{
    *r = start(sc, yaml);
    CHECK(*r != NULL);
    return *r ? run_net_mut(*r) : NULL;
}

typedef struct spread {
    uint64_t up_bytes[8];
    uint32_t used, crowded;    /* uplinks carrying any bytes / at least two flows' worth */
    uint64_t min_b, max_b;
    sim_time jct;
} spread;

static spread run_pairs(const char *mode)
{
    char y[2048];
    int k = snprintf(y, sizeof y,
                     "seed: 5\n"
                     "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 16,\n"
                     "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
                     "loadbalance: %s\n"
                     "nic: {retransmit: selective}\n"
                     "workload:\n",
                     mode);
    for (int i = 0; i < 8; i++)
        k += snprintf(y + k, sizeof y - (size_t)k,
                      "  - {name: f%d, kind: traffic, pattern: incast, hosts: [%d, %d], size: %u}\n",
                      i, 8 + i, i, FLOW_BYTES);
    spread s;
    memset(&s, 0, sizeof s);
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return s;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK_EQ_U64(st->flows_completed, 8);
    uint64_t goodput = 0;
    for (uint64_t i = 0; i < st->n_flows; i++)
        goodput += st->flows[i].delivered_bytes;
    CHECK_EQ_U64(goodput, 8ull * FLOW_BYTES);
    uint64_t total = 0;
    s.min_b = UINT64_MAX;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        unsigned sp;
        if (sscanf(st->ports[i].name, "leaf0->spine%u", &sp) == 1 && sp < 8) {
            s.up_bytes[sp] = st->ports[i].tx_wire_bytes;
            total += st->ports[i].tx_wire_bytes;
        }
    }
    /* a flow's line bytes: 976 frames of 4096 B and one of 2304 B, 82 B of headers and line
     * overhead each, and the RETH of the first */
    uint64_t flow_line = (uint64_t)FLOW_BYTES + 977ull * 82 + 16;
    /* every byte crossed leaf0's uplinks once; with spraying a few late packets may be resent */
    CHECK(total >= 8 * flow_line);
    CHECK(total - 8 * flow_line <= 8 * flow_line / 100);
    CHECK(st->retransmitted_packets <= 8 * 977 / 100);
    for (int i = 0; i < 8; i++) {
        s.used += s.up_bytes[i] > 0;
        s.crowded += s.up_bytes[i] >= 2 * flow_line;
        if (s.up_bytes[i] < s.min_b)
            s.min_b = s.up_bytes[i];
        if (s.up_bytes[i] > s.max_b)
            s.max_b = s.up_bytes[i];
    }
    s.jct = st->end_ps;
    fprintf(stderr, "  %-22s uplinks used %u/8, crowded %u, bytes min %.2f max %.2f MB, JCT %.1f us\n",
            mode, s.used, s.crowded, (double)s.min_b / 1e6, (double)s.max_b / 1e6,
            (double)s.jct / 1e6);
    run_free(r);
    scenario_free(&sc);
    return s;
}

static void test_ecmp_collides_spray_spreads(void)
{
    spread ecmp = run_pairs("{mode: ecmp}");
    spread spray = run_pairs("{mode: spray}");
    spread adapt = run_pairs("{mode: adaptive}");
    spread flowlet = run_pairs("{mode: flowlet}");
    /* one line-rate flow alone: ~FLOW_BYTES x 8 / 100 Gbps = 320 us (+ overhead) */
    sim_time alone = sim_ser_time((uint64_t)FLOW_BYTES * 4198 / 4096, 100000000000ull);
    /* ECMP: whole flows per uplink. Each crowded uplink carries >= 2 flows, the job takes about
     * (flows on the busiest uplink) x alone. */
    CHECK(ecmp.used < 8);
    CHECK(ecmp.crowded >= 1);
    CHECK(ecmp.jct >= 2 * alone);
    /* Spray: every uplink carries about 1/8 of the bytes, the job about as fast as one flow
     * (random per-packet choices make short queues that DCQCN reacts to, hence the slack). */
    CHECK(spray.used == 8);
    CHECK(spray.min_b * 10 >= spray.max_b * 8);
    CHECK(spray.jct < alone * 13 / 10);
    CHECK(spray.jct < ecmp.jct);
    /* Adaptive (least queue) and flowlet (first packets see each other's queues): no uplink
     * ends up with two flows. */
    CHECK(adapt.used == 8);
    CHECK(adapt.jct < alone * 12 / 10);
    CHECK(flowlet.used == 8);
    CHECK(flowlet.crowded == 0);
    CHECK(flowlet.jct < alone * 12 / 10);
}

static void test_utilization_metric(void)
{
    /* Least recent line bytes: the flows' first packets arrive together, so each later one sees
     * the bytes the earlier ones just put on their uplinks and takes another. */
    spread u = run_pairs("{mode: adaptive, adaptive: {metric: utilization}}");
    CHECK(u.used == 8);
    CHECK(u.crowded == 0);
}

/* N congested egress queues of a lossy class sharing one buffer each settle at
 * α·B / (1 + N·α). */
static void dt_case(unsigned n_queues, const char *alpha, double a)
{
    char y[2048];
    uint64_t B = 1u << 20;
    int k = snprintf(y, sizeof y,
                     "fabric: {preset: single-switch, servers: %u, gpus_per_server: 1,\n"
                     "         host_link: 100Gbps}\n"
                     "switch: {buffer: 1MiB, alpha: %s, pfc: {enabled: false}}\n"
                     "nic: {cc: none}\n"
                     "workload:\n",
                     3 * n_queues, alpha);
    for (unsigned q = 0; q < n_queues; q++)
        k += snprintf(y + k, sizeof y - (size_t)k,
                      "  - {name: q%u, kind: traffic, pattern: incast, hosts: [%u, %u, %u], "
                      "size: 2MB}\n",
                      q, q, n_queues + 2 * q, n_queues + 2 * q + 1);
    scenario sc;
    run *r = start(&sc, y);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    double want = a * (double)B / (1.0 + n_queues * a);
    for (unsigned q = 0; q < n_queues; q++) {
        char name[32];
        snprintf(name, sizeof name, "sw0->h%u", q);
        for (uint32_t i = 0; i < st->n_ports; i++)
            if (strcmp(st->ports[i].name, name) == 0) {
                fprintf(stderr, "  N=%u alpha=%s %s max queue %llu B (model %.0f)\n", n_queues,
                        alpha, name, (unsigned long long)st->ports[i].max_queue_bytes, want);
                CHECK_NEAR((double)st->ports[i].max_queue_bytes, want, 2 * 4174.0);
                CHECK(st->ports[i].drops[DROP_BUFFER_FULL] > 0);
            }
    }
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    run_free(r);
    scenario_free(&sc);
}

static void test_dynamic_threshold_steady_state(void)
{
    dt_case(1, "1", 1.0);
    dt_case(3, "1", 1.0);
    dt_case(2, "2", 2.0);
    dt_case(4, "0.5", 0.5);
}

/*
 * Tier independence (no hash polarization). One (src, dst) pair, every UDP source port: the
 * member a packet takes at its leaf and the one it takes at the next switch must be
 * independent, so that every (first-hop member, second-hop member) pair is reached, about
 * equally often. With an affine hash (CRC, XOR) and a seed alone, member = hash mod n of
 * power-of-two groups reads the same low bits at both tiers and the second choice is a fixed
 * function of the first (8 of 32 pairs on the leaf-spine below); the per-tier hash offset
 * (SAI_SWITCH_ATTR_ECMP_DEFAULT_HASH_OFFSET) reads a different bit window at each tier.
 * Chi-square with 31, 15 or 7 degrees of freedom: 0.1 % critical values 61.1, 37.7, 24.3.
 */
static void tiers_case(const char *fabric, const char *hash, uint32_t src, uint32_t dst,
                       uint32_t n1, uint32_t n2)
{
    char y[1024];
    snprintf(y, sizeof y,
             "seed: 3\n"
             "fabric: %s\n"
             "loadbalance: {mode: ecmp, hash: %s}\n"
             "workload:\n"
             "  - {kind: traffic, pattern: incast, hosts: [%u, %u], size: 4KB}\n",
             fabric, hash, src, dst);
    scenario sc;
    run *r;
    net *n = start_net(&sc, y, &r);
    if (!n)
        return;
    const node *h = n->hosts[src];
    node *leaf = h->ports[h->net_port].peer->owner;
    const ecmp_group *g1 = &n->groups[net_fib(leaf, dst)];
    CHECK_EQ_U64(g1->n, n1);
    uint64_t cnt[64] = {0};
    packet pkt;
    memset(&pkt, 0, sizeof pkt);
    pkt.src = src;
    pkt.dst = dst;
    const uint32_t ports = 65536;
    uint32_t bad = 0;
    for (uint32_t sp = 0; sp < ports; sp++) {
        pkt.sport = (uint16_t)sp;
        uint32_t m1 = n->pick(n->pick_ctx, leaf, g1, &pkt);
        node *next = leaf->ports[g1->member[m1]].peer->owner;
        const ecmp_group *g2 = &n->groups[net_fib(next, dst)];
        if (g2->n != n2 || n1 * n2 > 64) {
            bad++;
            continue;
        }
        uint32_t m2 = n->pick(n->pick_ctx, next, g2, &pkt);
        cnt[m1 * n2 + m2]++;
    }
    CHECK_EQ_U64(bad, 0);
    uint32_t cells = n1 * n2, reached = 0;
    double e = (double)ports / cells, chi2 = 0;
    for (uint32_t c = 0; c < cells; c++) {
        reached += cnt[c] > 0;
        chi2 += ((double)cnt[c] - e) * ((double)cnt[c] - e) / e;
    }
    const double crit = cells == 32 ? 61.1 : cells == 16 ? 37.7 : 24.3; /* 31, 15, 7 df */
    if (reached != cells || chi2 > crit)
        printf("  %s %s: %u of %u pairs reached, chi2 %.1f\n", fabric, hash, reached, cells, chi2);
    CHECK_EQ_U64(reached, cells);
    CHECK(chi2 < crit);
    run_free(r);
    scenario_free(&sc);
}

static void test_tiers_independent(void)
{
    /* leaf-spine: 8 uplinks per leaf, 4 parallel links to each of 2 spines (leaf 8-way, spine
     * down to the destination leaf 4-way) */
    const char *ls = "{preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 16, "
                     "spines: 2}";
    /* k = 8 fat tree, hosts in different pods: leaf 4-way up, aggregation 4-way up to a core */
    const char *ft = "{preset: fat-tree, k: 8, gpus_per_server: 1}";
    /* a custom fabric (as import htsim writes them): its switches are all tagged leaves, so the
     * tier comes from the hops to the hosts; 2 parallel links from each leaf to each spine
     * (leaf 4-way, spine down 2-way) */
    const char *cu = "{preset: custom, custom: {switches: [{name: l0}, {name: l1}, {name: s0}, "
                     "{name: s1}], hosts: [{name: h0, gpus: 1}, {name: h1, gpus: 1}], links: "
                     "[{a: h0, b: l0}, {a: h1, b: l1}, {a: l0, b: s0}, {a: l0, b: s0}, {a: l0, "
                     "b: s1}, {a: l0, b: s1}, {a: l1, b: s0}, {a: l1, b: s0}, {a: l1, b: s1}, "
                     "{a: l1, b: s1}]}}";
    const char *fam[] = {"crc32", "crc16", "xor"};
    for (int i = 0; i < 3; i++) {
        tiers_case(ls, fam[i], 0, 8, 8, 4);
        tiers_case(ft, fam[i], 0, 127, 4, 4);
        tiers_case(cu, fam[i], 0, 1, 4, 2);
    }
}

/* ECMP's pick (with the default hash a specialised copy, lb.c pick_ecmp_crc32) is lb_hash
 * modulo the group's size, at every switch of a three-tier fat tree, for every hash family,
 * with the default fields and a subset (the generic path), and under leaf VTEPs. */
static void pick_case(const char *lb, bool vxlan)
{
    char y[1024];
    snprintf(y, sizeof y,
             "seed: 7\n"
             "fabric: {preset: fat-tree, k: 8, gpus_per_server: 1%s}\n"
             "loadbalance: %s\n%s"
             "workload:\n"
             "  - {kind: traffic, pattern: incast, hosts: [0, 100], size: 4KB%s}\n",
             vxlan ? ", vtep: leaf" : "", lb, vxlan ? "tenants: [{name: blue, vni: 10010}]\n" : "",
             vxlan ? ", tenant: blue" : "");
    scenario sc;
    run *r;
    net *n = start_net(&sc, y, &r);
    if (!n)
        return;
    rng g;
    rng_init(&g, 11, RNG_ID(RNG_KIND_TEST, 12));
    packet pkt;
    memset(&pkt, 0, sizeof pkt);
    uint64_t bad = 0, tried = 0;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        node *sw = n->switches[i];
        for (int k = 0; k < 64; k++) {
            pkt.src = (uint32_t)rng_below(&g, n->n_hosts);
            pkt.dst = (uint32_t)rng_below(&g, n->n_hosts);
            pkt.sport = (uint16_t)rng_next(&g);
            uint32_t gid = net_fib(sw, pkt.dst);
            if (gid == UINT32_MAX)
                continue;
            const ecmp_group *grp = &n->groups[gid];
            tried++;
            bad += n->pick(n->pick_ctx, sw, grp, &pkt) != lb_hash(&sc.lb, sw, &pkt) % grp->n;
        }
    }
    if (bad)
        printf("  %s%s: %llu of %llu picks differ\n", lb, vxlan ? " (VXLAN)" : "",
               (unsigned long long)bad, (unsigned long long)tried);
    CHECK_EQ_U64(bad, 0);
    CHECK(tried > 1000);
    run_free(r);
    scenario_free(&sc);
}

static void test_pick_is_the_hash(void)
{
    pick_case("{mode: ecmp}", false);
    pick_case("{mode: ecmp, hash: crc16}", false);
    pick_case("{mode: ecmp, hash: xor}", false);
    pick_case("{mode: ecmp, fields: [src_ip, dst_ip, src_port]}", false);
    pick_case("{mode: ecmp}", true);
}

/* The CRC-32 hash, folded four bytes at a time from the header fields (lb.c), equals the
 * bytewise CRC-32 of the 13 big-endian tuple bytes, with the seed and the tier's rotation, for
 * any seed, offset, field mask, addresses and source port. */
static void test_crc32_fields_equal_bytewise(void)
{
    static net nt; /* no VXLAN */
    node sw;
    memset(&sw, 0, sizeof sw);
    sw.owner = &nt;
    packet pkt;
    memset(&pkt, 0, sizeof pkt);
    rng r;
    rng_init(&r, 5, RNG_ID(RNG_KIND_TEST, 9));
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        cfg_lb cfg = {.mode = LB_ECMP, .hash = HASH_CRC32};
        cfg.fields = i < 10000 ? 0x1F : (uint32_t)rng_below(&r, 32);
        sw.hash_seed = (uint32_t)rng_next(&r);
        sw.hash_offset = (uint8_t)(i % 3 * 10);
        pkt.src = (uint32_t)rng_below(&r, 1u << 20);
        pkt.dst = (uint32_t)rng_below(&r, 1u << 20);
        pkt.sport = (uint16_t)rng_next(&r);
        uint32_t sip = cfg.fields & HF_SRC_IP ? net_host_ip(pkt.src) : 0;
        uint32_t dip = cfg.fields & HF_DST_IP ? net_host_ip(pkt.dst) : 0;
        uint16_t sp = cfg.fields & HF_SRC_PORT ? pkt.sport : 0;
        uint16_t dp = cfg.fields & HF_DST_PORT ? ROCEV2_UDP_PORT : 0;
        uint8_t b[13] = {(uint8_t)(sip >> 24), (uint8_t)(sip >> 16), (uint8_t)(sip >> 8), (uint8_t)sip,
                         (uint8_t)(dip >> 24), (uint8_t)(dip >> 16), (uint8_t)(dip >> 8), (uint8_t)dip,
                         (uint8_t)(sp >> 8),   (uint8_t)sp,         (uint8_t)(dp >> 8),  (uint8_t)dp,
                         cfg.fields & HF_PROTOCOL ? IP_PROTO_UDP : 0};
        uint32_t h = lb_crc32(sw.hash_seed, b, sizeof b), o = sw.hash_offset;
        uint32_t want = o ? h >> o | h << (32 - o) : h;
        bad += lb_hash(&cfg, &sw, &pkt) != want;
    }
    CHECK_EQ_U64(bad, 0);
    /* and the bytewise CRC is CRC-32 itself: the standard check value of "123456789" */
    CHECK_EQ_U64(lb_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
}

int main(void)
{
    TEST_RUN(test_crc32_fields_equal_bytewise);
    TEST_RUN(test_ecmp_collides_spray_spreads);
    TEST_RUN(test_utilization_metric);
    TEST_RUN(test_dynamic_threshold_steady_state);
    TEST_RUN(test_tiers_independent);
    TEST_RUN(test_pick_is_the_hash);
    return tl_finish();
}
