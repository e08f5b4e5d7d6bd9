/*
 * test_sharp.c — switch-based in-network all_reduce (algorithm sharp, collective.h and
 * workload/sharp.h): the plan sends each rank's block up its tree once and back once (S out and
 * S in per rank, against ring's 2(n−1)/n·S each way), an aggregation node's chunk waits for
 * every child's same chunk; two ranks on one switch finish at the frame-by-frame time to the
 * picosecond; on a leaf-spine fabric the all_reduce takes S/B plus the pipeline's fill and the
 * hops' latencies (so algbw approaches the link rate, where ring's is (n/2(n−1)) of it); one tree
 * per rail on a rail-optimized fabric, rooted on different spines; bytes are conserved; reruns
 * are identical; bad inputs are refused. nvls_tree (NVLS inside servers, NCCL's double binary
 * tree across them): exact per-GPU NVLink and per-NIC bytes from the plan, and the run between
 * its bytes' line time on the busiest link and 1.3 × that, faster than hierarchical.
 */
#include <string.h>

#include "config/config.h"
#include <stdio.h>

#include "net/net.h"
#include "net/packet.h"
#include "testlib.h"
#include "workload/coll_exec.h"
#include "workload/collective.h"
#include "workload/run.h"

static void check_conservation(const run_stats *st)
{
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    CHECK_EQ_U64(st->inflight_bytes, 0);
    CHECK_EQ_U64(st->dropped_bytes, 0);
}

/* A pure plan over hand-made trees: 4 servers × 2 ranks, one tree per local index. Tree 0
 * (ranks 0, 2, 4, 6): leaf ANs 8 (servers 0, 1) and 9 (servers 2, 3) under root AN 10; tree 1
 * (ranks 1, 3, 5, 7): 11, 12 under 13. Each rank sends its block S/2 up once and receives it
 * once; an AN's send of chunk k waits for its two children's chunk k only; the root's result
 * goes down as it is. */
static void test_plan_shape(void)
{
    enum { NR = 8, NA = 6 };
    uint32_t server[NR] = {0, 0, 1, 1, 2, 2, 3, 3};
    uint32_t parent[NR + NA] = {8, 11, 8, 11, 9, 12, 9, 12, 10, 10, UINT32_MAX, 13, 13, UINT32_MAX};
    uint64_t S = 4ull << 20, chunk = 256u << 10;
    coll_params p = {.op = OP_ALL_REDUCE,
                     .algo = ALGO_SHARP,
                     .n_ranks = NR,
                     .server_of_rank = server,
                     .size_bytes = S,
                     .chunk_bytes = chunk,
                     .n_an = NA,
                     .an_parent = parent};
    arena a;
    arena_init(&a, "test");
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &a, &e);
    CHECK(pl != NULL);
    if (!pl) {
        arena_free(&a);
        return;
    }
    CHECK(coll_plan_check(pl) == NULL);
    CHECK_EQ_U64(pl->n_an, NA);
    uint64_t up[NR + NA] = {0}, down[NR + NA] = {0}, intra_out[NR] = {0}, intra_in[NR] = {0};
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        CHECK(x->bytes <= chunk);
        if (x->src < NR && x->dst < NR) {
            intra_out[x->src] += x->bytes;
            intra_in[x->dst] += x->bytes;
            CHECK_EQ_U64(server[x->src], server[x->dst]); /* only NVLink inside a server */
            continue;
        }
        if (parent[x->src] == x->dst) {
            up[x->src] += x->bytes; /* to its parent */
            /* a leaf AN's chunk waits for its two children's same chunk, nothing else */
            if (x->src >= NR)
                CHECK_EQ_U64(x->n_deps, 2);
            CHECK_EQ_U64(x->reduce_inputs, x->src < NR ? 1 : 0); /* the switch ALU: no GPU time */
        } else {
            CHECK_EQ_U64(parent[x->dst], x->src);
            down[x->dst] += x->bytes; /* from its parent */
        }
    }
    for (uint32_t r = 0; r < NR; r++) {
        CHECK_EQ_U64(up[r], S / 2);    /* its block, once */
        CHECK_EQ_U64(down[r], S / 2);  /* the reduced block, once */
        CHECK_EQ_U64(intra_out[r], S); /* ring reduce_scatter + all_gather of 2: S/2 each */
        CHECK_EQ_U64(intra_in[r], S);
    }
    for (uint32_t k = NR; k < NR + NA; k++) {
        bool root = parent[k] == UINT32_MAX;
        CHECK_EQ_U64(up[k], root ? 0 : S / 2);
        CHECK_EQ_U64(down[k], root ? 0 : S / 2);
    }
    /* bad trees */
    uint32_t bad[NR + NA];
    memcpy(bad, parent, sizeof bad);
    bad[3] = UINT32_MAX;
    p.an_parent = bad;
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    CHECK(strstr(e.msg, "no aggregation node above it") != NULL);
    bad[3] = 5;
    err_clear(&e);
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    CHECK(strstr(e.msg, "not an aggregation node") != NULL);
    bad[3] = 8; /* a local-index-1 rank in tree 0 */
    err_clear(&e);
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    CHECK(strstr(e.msg, "different local indices") != NULL);
    memcpy(bad, parent, sizeof bad);
    bad[10] = 9; /* 9 -> 10 -> 9 */
    err_clear(&e);
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    CHECK(strstr(e.msg, "cycle") != NULL);
    p.an_parent = parent;
    p.op = OP_ALL_GATHER;
    err_clear(&e);
    CHECK(coll_plan_build(&p, &a, &e) == NULL);
    CHECK(strstr(e.msg, "does not implement all_gather") != NULL);
    arena_free(&a);
}

typedef struct res {
    sim_time jct;
    double algbw, busbw;
    uint64_t hash, events;
} res;

static int run_yaml(const char *y, res *o, void (*inspect)(run *r))
{
    scenario sc;
    run *r = tl_start(&sc, "sharp.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return -1;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->jobs[0].completed);
    check_conservation(st);
    o->jct = st->jobs[0].jct_ps;
    o->algbw = st->jobs[0].algbw_GBps;
    o->busbw = st->jobs[0].busbw_GBps;
    o->events = st->events;
    o->hash = st->tx_bytes ^ (st->events << 20);
    if (inspect)
        inspect(r);
    run_free(r);
    scenario_free(&sc);
    return 0;
}

/*
 * Two ranks on one switch, one frame each (4 KiB = one MTU, the frame T at B with its RETH):
 * both frames reach the switch at T + cable + pipeline and cross the internal port to the AN at
 * 2B, T/2 each: the AN has both at U = 2T + cable + pipeline. It posts the two reduced
 * messages at once and sends them at 2B, with its acknowledgement of the second contribution
 * (sent at the same moment: an ACK frame, 66 bytes + preamble and gap) between them; each then
 * crosses the switch (pipeline), its egress at B and the cable. Rank 0's arrives at
 * U + T/2 + pipeline + T + cable, rank 1's at U + T/2 + ack + T/2 + pipeline + T + cable.
 */
static sim_time g_lat, g_pipe;
static void grab_lat(run *r)
{
    g_lat = run_net(r)->sc->fabric.link_latency_ps;
    g_pipe = run_net(r)->sc->fabric.switch_latency_ps;
    const net *n = run_net(r);
    CHECK_EQ_U64(n->n_an, 1);
    CHECK_STR(n->hosts[n->an_host0]->name, "an_sw0");
    /* the internal port runs at the switch's other ports' sum: 2 × 400G */
    const node *an = n->hosts[n->an_host0];
    CHECK_EQ_U64(an->ports[an->net_port].rate_bps, 800000000000ull);
    CHECK_EQ_U64(an->ports[an->net_port].prop_ps, 0);
}

static void test_two_ranks_exact(void)
{
    static const char y[] =
        "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1, host_link: 400Gbps}\n"
        "switch: {sharp: true}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: sharp, size: 4KiB}\n";
    res o;
    if (run_yaml(y, &o, grab_lat))
        return;
    uint64_t B = 400000000000ull;
    sim_time T = sim_ser_time(wire_data_frame(4096, 1) + WIRE_LINE_EXTRA, B);
    sim_time ack = sim_ser_time(WIRE_ROCE_OVERHEAD + WIRE_AETH + WIRE_LINE_EXTRA, 2 * B);
    sim_time U = 2 * T + g_lat + g_pipe;
    sim_time want = U + T / 2 + ack + T / 2 + g_pipe + T + g_lat;
    CHECK_EQ_U64(o.jct, want);
    fprintf(stderr, "  2 ranks, one frame: %llu ps (T = %llu ps)\n", (unsigned long long)o.jct,
            (unsigned long long)T);
}

/*
 * 8 servers × 1 GPU on a leaf-spine (2 leaves of 4 hosts, 4 spines, 400G everywhere): the tree
 * is leaf ANs under one spine AN. Each NIC sends S and receives S, so the all_reduce takes at
 * least S's line bytes at B, and at most that plus the fill and drain of the chunk pipeline —
 * a chunk stored and forwarded by three more message stages (leaf AN up, spine AN down, leaf AN
 * down), each at most a chunk's line time at B — plus four stages' frame-level latencies (two
 * cables, two pipelines and a frame's store and forward each, twice: to and from an AN). Ring
 * moves 2(n−1)/n·S each way: SHARP's algbw is higher by nearly that factor.
 */
#define LS_YAML(algo)                                                                              \
    "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 1, leaf_radix: 8,"                  \
    " host_link: 400Gbps, fabric_link: 400Gbps}\n"                                                 \
    "switch: {sharp: true}\n"                                                                      \
    "nic: {cc: none}\n"                                                                            \
    "workload:\n"                                                                                  \
    "  - {name: ar, kind: collective, op: all_reduce, algorithm: " algo ", size: 64MiB,"           \
    " iterations: 2}\n"

static void tree_shape(run *r)
{
    const net *n = run_net(r);
    CHECK_EQ_U64(n->n_an, 6); /* 2 leaves + 4 spines */
    uint32_t n_an;
    const uint32_t *an = coll_exec_an_hosts(run_coll_exec(r, 0), &n_an);
    CHECK_EQ_U64(n_an, 3); /* one tree: two leaf ANs and a spine AN */
    CHECK(n->hosts[an[0]]->name[3] == 'l' && n->hosts[an[2]]->name[3] == 's');
    g_lat = n->sc->fabric.link_latency_ps;
    g_pipe = n->sc->fabric.switch_latency_ps;
}

static void test_leaf_spine_closed_form(void)
{
    res s, s2, ring;
    if (run_yaml(LS_YAML("sharp"), &s, tree_shape) || run_yaml(LS_YAML("sharp"), &s2, NULL) ||
        run_yaml(LS_YAML("ring"), &ring, NULL))
        return;
    uint64_t B = 400000000000ull, S = 64ull << 20, C = 512u << 10;
    uint64_t chunk_line = (C / 4096) * (wire_data_frame(4096, 0) + WIRE_LINE_EXTRA) + WIRE_RETH;
    sim_time line = sim_ser_time((S / C) * chunk_line, B);
    sim_time frame = sim_ser_time(wire_data_frame(4096, 1) + WIRE_LINE_EXTRA, B);
    sim_time hi = line + 3 * sim_ser_time(chunk_line, B) + 4 * (2 * g_lat + 2 * g_pipe + frame);
    sim_time per_iter = s.jct / 2;
    CHECK(per_iter >= line);
    CHECK(per_iter <= hi);
    /* algbw within 4 % of the link's payload rate; ring's is about n / 2(n − 1) of it */
    double link_GBps = (double)B / 8e9 * 4096.0 /
                       (4096.0 + (double)wire_data_frame(4096, 0) - 4096.0 + WIRE_LINE_EXTRA);
    CHECK(s.algbw > 0.96 * link_GBps && s.algbw <= link_GBps);
    CHECK(s.algbw > 1.6 * ring.algbw);
    CHECK_EQ_U64(s.jct, s2.jct); /* the same seed, the same run */
    CHECK_EQ_U64(s.hash, s2.hash);
    fprintf(stderr,
            "  leaf-spine 8 x 400G, 64 MiB: sharp %.3f us (S/B %.3f, bound %.3f), algbw %.2f "
            "GB/s busbw %.2f; ring algbw %.2f busbw %.2f\n",
            (double)per_iter / 1e6, (double)line / 1e6, (double)hi / 1e6, s.algbw, s.busbw,
            ring.algbw, ring.busbw);
}

/* InfiniBand (Quantum: SHARP by default) with IB congestion control on and off: the chunks
 * that the children send to an AN at the same moment queue for a moment on the switch's
 * internal port, whose downstream buffer is the AN's input (a VL buffer per feeding port): no
 * FECN is marked there, and IB CC leaves the all_reduce's time as it is (within 1 %). (A leaf
 * AN's reduced chunk leaves in one burst into the uplink and may be marked there; its IB CC
 * delay, counted in frame times at the internal port's rate, costs next to nothing.) */
static uint64_t g_fecn;
static void grab_fecn(run *r)
{
    const net *n = run_net(r);
    g_fecn = 0;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        if (p->ib && p->peer->owner->kind == NODE_HOST && p->peer->owner->index >= n->an_host0)
            g_fecn += p->ib->fecn_marked; /* switch -> its AN */
    }
}

static void test_infiniband_cc(void)
{
    static const char y[] =
        "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 1, leaf_radix: 8,"
        " host_link: 400Gbps, fabric_link: 400Gbps, link_layer: infiniband}\n"
        "nic: {cc: %s}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: sharp, size: 16MiB}\n";
    char buf[512];
    res on, off;
    snprintf(buf, sizeof buf, y, "ib");
    if (run_yaml(buf, &on, grab_fecn))
        return;
    uint64_t marks = g_fecn;
    snprintf(buf, sizeof buf, y, "none");
    if (run_yaml(buf, &off, NULL))
        return;
    CHECK_EQ_U64(marks, 0);
    CHECK_NEAR((double)on.jct / (double)off.jct, 1.0, 0.01);
    fprintf(stderr, "  infiniband sharp 16 MiB: IB CC %.3f us, none %.3f us, %llu FECN marks\n",
            (double)on.jct / 1e6, (double)off.jct / 1e6, (unsigned long long)marks);
}

/* Rail-optimized, 16 servers × 8 GPUs in 2 scalable units of 8 (a leaf per rail and SU, 8
 * spines): CollNet Direct runs an intra-server reduce_scatter, one SHARP tree per rail (the
 * rail's two leaves under a spine; the rails' roots spread over the 8 spines), an intra-server
 * all_gather. */
static void rail_trees(run *r)
{
    const net *n = run_net(r);
    uint32_t n_an;
    const uint32_t *an = coll_exec_an_hosts(run_coll_exec(r, 0), &n_an);
    CHECK_EQ_U64(n_an, 24); /* 8 trees: two leaf ANs and a spine AN each */
    uint32_t roots = 0;
    for (uint32_t k = 0; k < n_an; k++)
        roots += n->hosts[an[k]]->name[3] == 's';
    CHECK_EQ_U64(roots, 8);
    /* distinct spines */
    for (uint32_t a = 0; a < n_an; a++)
        for (uint32_t b = a + 1; b < n_an; b++)
            CHECK(an[a] != an[b]);
}

static void test_rail_optimized(void)
{
    static const char y[] =
        "fabric: {preset: rail-optimized, servers: 16, gpus_per_server: 8, leaf_radix: 16}\n"
        "switch: {sharp: true}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: collnet, size: 16MiB}\n";
    res o;
    run_yaml(y, &o, rail_trees);
    fprintf(stderr, "  rail-optimized 16 x 8 GPUs, 16 MiB: sharp (CollNet) algbw %.2f GB/s\n",
            o.algbw);
}

/* Refusals: the default Ethernet switch has no SHARP; every rank on one server. */
static void test_refusals(void)
{
    scenario sc;
    err e;
    err_clear(&e);
    static const char eth[] = "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1}\n"
                              "workload:\n"
                              "  - {kind: collective, op: all_reduce, algorithm: sharp}\n";
    CHECK(config_load_buffer(&sc, "s.yaml", eth, strlen(eth), NULL, 0, &e) != 0);
    CHECK(strstr(e.msg, "switch.sharp is false") != NULL);
    static const char ib[] =
        "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, link_layer: infiniband}\n"
        "workload:\n"
        "  - {kind: collective, op: all_reduce, algorithm: sharp}\n";
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "s.yaml", ib, strlen(ib), NULL, 0, &e) == 0);
    CHECK(sc.sw.sharp); /* Quantum ships SHARP */
    scenario_free(&sc);
    static const char one[] = "fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}\n"
                              "switch: {sharp: true}\n"
                              "workload:\n"
                              "  - {kind: collective, op: all_reduce, algorithm: sharp}\n";
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "s.yaml", one, strlen(one), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "every rank is on one server") != NULL);
    if (r)
        run_free(r);
    scenario_free(&sc);
}

/* nvls_tree on 2 servers × 8 GPUs: per GPU S + S/8 to its NVSwitch and S/8 + S from it, per
 * NIC exactly S/8 each way (each rank is its slice's root in one tree and a child in the
 * other; chunks alternate trees), only between the owners of one slice. */
static void test_nvls_tree_plan(void)
{
    enum { NR = 16, G = 8 };
    uint32_t server[NR];
    for (uint32_t r = 0; r < NR; r++)
        server[r] = r / G;
    uint64_t S = 64ull << 20;
    coll_params p = {.op = OP_ALL_REDUCE,
                     .algo = ALGO_NVLS_TREE,
                     .n_ranks = NR,
                     .server_of_rank = server,
                     .size_bytes = S};
    arena a;
    arena_init(&a, "test");
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &a, &e);
    CHECK(pl != NULL);
    if (!pl) {
        arena_free(&a);
        return;
    }
    CHECK(coll_plan_check(pl) == NULL);
    CHECK_EQ_U64(pl->n_nvs, 2);
    uint64_t to_sw[NR] = {0}, from_sw[NR] = {0}, net_out[NR] = {0}, net_in[NR] = {0};
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        if (x->dst >= NR) {
            CHECK_EQ_U64(x->dst - NR, server[x->src]); /* its own server's switch */
            to_sw[x->src] += x->bytes;
        } else if (x->src >= NR) {
            CHECK_EQ_U64(x->src - NR, server[x->dst]);
            from_sw[x->dst] += x->bytes;
        } else {
            CHECK(server[x->src] != server[x->dst]);
            CHECK_EQ_U64(x->src % G, x->dst % G); /* one slice's owners, one rail */
            net_out[x->src] += x->bytes;
            net_in[x->dst] += x->bytes;
        }
    }
    for (uint32_t r = 0; r < NR; r++) {
        CHECK_EQ_U64(to_sw[r], S + S / G);
        CHECK_EQ_U64(from_sw[r], S / G + S);
        CHECK_EQ_U64(net_out[r], S / G);
        CHECK_EQ_U64(net_in[r], S / G);
    }
    arena_free(&a);
}

#define NT_YAML(algo)                                                                              \
    "fabric: {preset: rail-optimized, servers: 2, gpus_per_server: 8, leaf_radix: 16}\n"           \
    "nic: {cc: none}\n"                                                                            \
    "workload:\n"                                                                                  \
    "  - {name: ar, kind: collective, op: all_reduce, algorithm: " algo ", size: 64MiB}\n"

static uint64_t g_nvl_bps;
static void grab_nvl(run *r)
{
    const net *n = run_net(r);
    const node *h = n->hosts[0];
    g_nvl_bps = h->ports[h->nvl_port].rate_bps;
}

/* The run: each GPU's NVLink carries S + S/8 each way, its NIC S/8 each way: the busiest is
 * the NVLink, (S + S/8)/B_nvl. The pipeline's fill and drain (a load window of 2 chunks per
 * slice, each chunk's round trip over the network before its multicast) add to it, under
 * 30 % here; hierarchical (ring phases inside, ring across) is slower. */
static void test_nvls_tree_run(void)
{
    res t, t2, h;
    if (run_yaml(NT_YAML("nvls_tree"), &t, grab_nvl) || run_yaml(NT_YAML("nvls-tree"), &t2, NULL) ||
        run_yaml(NT_YAML("hierarchical"), &h, NULL))
        return;
    uint64_t S = 64ull << 20;
    sim_time lo = sim_ser_time(S + S / 8, g_nvl_bps);
    CHECK(t.jct >= lo);
    CHECK(t.jct <= lo + lo * 3 / 10);
    CHECK(t.jct < h.jct);
    CHECK_EQ_U64(t.jct, t2.jct);
    CHECK_EQ_U64(t.hash, t2.hash);
    fprintf(stderr,
            "  nvls_tree 2 x 8 GPUs, 64 MiB: %.3f us ((S + S/8)/B_nvl %.3f us), algbw %.2f "
            "GB/s; hierarchical %.3f us\n",
            (double)t.jct / 1e6, (double)lo / 1e6, t.algbw, (double)h.jct / 1e6);
}

/* nvls_tree with SHARP across servers (switch.sharp): the plan over hand-made trees (4 servers
 * × 2 GPUs, one tree per local index as in test_plan_shape): per GPU S + S/2 to its NVSwitch and
 * S/2 + S from it, exactly S/2 to its leaf AN and S/2 back, nothing rank to rank; the ANs are
 * the endpoints after the 4 NVSwitches. */
static void test_nvls_tree_sharp_plan(void)
{
    enum { NR = 8, NA = 6, M = 4, G = 2 };
    uint32_t server[NR] = {0, 0, 1, 1, 2, 2, 3, 3};
    uint32_t parent[NR + NA] = {8, 11, 8, 11, 9, 12, 9, 12, 10, 10, UINT32_MAX, 13, 13, UINT32_MAX};
    uint64_t S = 4ull << 20;
    coll_params p = {.op = OP_ALL_REDUCE,
                     .algo = ALGO_NVLS_TREE,
                     .n_ranks = NR,
                     .server_of_rank = server,
                     .size_bytes = S,
                     .chunk_bytes = 256u << 10,
                     .n_an = NA,
                     .an_parent = parent};
    arena a;
    arena_init(&a, "test");
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &a, &e);
    CHECK(pl != NULL);
    if (!pl) {
        arena_free(&a);
        return;
    }
    CHECK(coll_plan_check(pl) == NULL);
    uint64_t to_sw[NR] = {0}, from_sw[NR] = {0}, to_an[NR] = {0}, from_an[NR] = {0}, rr = 0;
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        bool s_nv = x->src >= NR && x->src < NR + M, d_nv = x->dst >= NR && x->dst < NR + M;
        if (x->src < NR && d_nv)
            to_sw[x->src] += x->bytes;
        else if (s_nv && x->dst < NR)
            from_sw[x->dst] += x->bytes;
        else if (x->src < NR && x->dst >= NR + M) {
            CHECK_EQ_U64(x->dst - M, parent[x->src]); /* to its own leaf AN */
            to_an[x->src] += x->bytes;
        } else if (x->src >= NR + M && x->dst < NR) {
            CHECK_EQ_U64(x->src - M, parent[x->dst]);
            from_an[x->dst] += x->bytes;
        } else if (x->src < NR && x->dst < NR)
            rr += x->bytes;
    }
    CHECK_EQ_U64(rr, 0);
    for (uint32_t r = 0; r < NR; r++) {
        CHECK_EQ_U64(to_sw[r], S + S / G);
        CHECK_EQ_U64(from_sw[r], S / G + S);
        CHECK_EQ_U64(to_an[r], S / G);
        CHECK_EQ_U64(from_an[r], S / G);
    }
    arena_free(&a);
}

/* 4 servers × 8 GPUs, rail-optimized (a leaf per rail): the double binary tree moves more than
 * S/8 through the busiest NIC, SHARP exactly S/8 each way, so with switch.sharp the NVLink is
 * the bottleneck again: between (S + S/8)/B_nvl and 1.3 × it, and faster than the tree. */
static void test_nvls_tree_sharp_run(void)
{
    static const char y[] =
        "fabric: {preset: rail-optimized, servers: 4, gpus_per_server: 8, leaf_radix: 16}\n"
        "switch: {sharp: %s}\n"
        "nic: {cc: none}\n"
        "workload:\n"
        "  - {name: ar, kind: collective, op: all_reduce, algorithm: nvls_tree, size: 64MiB}\n";
    char buf[512];
    res tree, sh;
    snprintf(buf, sizeof buf, y, "false");
    if (run_yaml(buf, &tree, NULL))
        return;
    snprintf(buf, sizeof buf, y, "true");
    if (run_yaml(buf, &sh, grab_nvl))
        return;
    uint64_t S = 64ull << 20;
    sim_time lo = sim_ser_time(S + S / 8, g_nvl_bps);
    CHECK(sh.jct >= lo);
    CHECK(sh.jct <= lo + lo * 3 / 10);
    CHECK(sh.jct < tree.jct);
    fprintf(stderr, "  nvls_tree 4 x 8 GPUs, 64 MiB: tree %.3f us, SHARP %.3f us (line %.3f us)\n",
            (double)tree.jct / 1e6, (double)sh.jct / 1e6, (double)lo / 1e6);
}

int main(void)
{
    TEST_RUN(test_plan_shape);
    TEST_RUN(test_two_ranks_exact);
    TEST_RUN(test_leaf_spine_closed_form);
    TEST_RUN(test_infiniband_cc);
    TEST_RUN(test_rail_optimized);
    TEST_RUN(test_refusals);
    TEST_RUN(test_nvls_tree_plan);
    TEST_RUN(test_nvls_tree_run);
    TEST_RUN(test_nvls_tree_sharp_plan);
    TEST_RUN(test_nvls_tree_sharp_run);
    return tl_finish();
}
