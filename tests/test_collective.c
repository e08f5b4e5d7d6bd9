/*
 * test_collective.c — collective plans move exactly the bytes their definitions say, their
 * dependencies form a DAG whose critical path has the algorithm's step count, chunking splits
 * bytes exactly, bad combinations are refused by name, and the 1024-rank ring footprint is
 * measured and printed.
 */
#include <stdlib.h>
#include <time.h>

#include "testlib.h"
#include "workload/collective.h"
#include "workload/dag.h"

static arena A;

static coll_plan *mk(enum coll_op op, enum coll_algo algo, uint32_t n, uint32_t gps, uint64_t S,
                     uint32_t C, uint64_t chunk)
{
    coll_params p = {.op = op, .algo = algo, .n_ranks = n, .gpus_per_server = gps,
                     .size_bytes = S, .channels = C, .chunk_bytes = chunk};
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &A, &e);
    CHECK(pl != NULL);
    if (!pl) {
        fprintf(stderr, "  build failed: %s\n", e.msg);
        return NULL;
    }
    const char *bad = coll_plan_check(pl);
    CHECK(bad == NULL);
    if (bad)
        fprintf(stderr, "  plan check: %s\n", bad);
    return pl;
}

static void per_rank(const coll_plan *pl, uint64_t *sent, uint64_t *recv)
{
    memset(sent, 0, sizeof(uint64_t) * pl->n_ranks);
    memset(recv, 0, sizeof(uint64_t) * pl->n_ranks);
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        sent[pl->xfers[i].src] += pl->xfers[i].bytes;
        recv[pl->xfers[i].dst] += pl->xfers[i].bytes;
    }
}

static uint64_t reduced_bytes(const coll_plan *pl)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < pl->n_xfers; i++)
        s += (uint64_t)pl->xfers[i].bytes * pl->xfers[i].reduce_inputs;
    return s;
}

static void test_ring_all_reduce(void)
{
    static const uint32_t ns[] = {2, 3, 8, 16};
    uint64_t sent[64], recv[64];
    for (unsigned i = 0; i < 4; i++) {
        uint32_t n = ns[i];
        for (uint32_t C = 1; C <= 3; C += 2) {
            uint64_t S = (uint64_t)n * C * 3 * 65536; /* divisible: exact per-rank figures */
            coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_RING, n, 4, S, C, 65536);
            if (!pl)
                continue;
            CHECK_EQ_U64(pl->total_bytes, 2ull * (n - 1) * S);
            per_rank(pl, sent, recv);
            for (uint32_t r = 0; r < n; r++) {
                CHECK_EQ_U64(sent[r], 2ull * (n - 1) * S / n);
                CHECK_EQ_U64(recv[r], 2ull * (n - 1) * S / n);
            }
            CHECK_EQ_U64(pl->n_steps, 2 * (n - 1));
            CHECK_EQ_U64(coll_plan_critical_path(pl), 2 * (n - 1));
            /* 3 chunks of 64 KiB per block and step, on every rank and channel */
            CHECK_EQ_U64(pl->n_xfers, 2ull * (n - 1) * n * C * 3);
            /* per step every rank sends S/n: S per step */
            uint64_t *step = calloc(pl->n_steps, sizeof(uint64_t));
            for (uint32_t x = 0; x < pl->n_xfers; x++)
                step[pl->xfers[x].step] += pl->xfers[x].bytes;
            for (uint32_t s = 0; s < pl->n_steps; s++)
                CHECK_EQ_U64(step[s], S);
            free(step);
            /* each rank reduces n − 1 blocks of S/n */
            CHECK_EQ_U64(reduced_bytes(pl), (uint64_t)(n - 1) * S);
        }
    }
    /* uneven sizes: still exact totals, never a zero-byte or over-chunk transfer */
    static const uint64_t sizes[] = {1, 5, 1000003, 3 * 65536 + 7};
    for (unsigned i = 0; i < 4; i++) {
        coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_RING, 8, 8, sizes[i], 2, 65536);
        if (pl)
            CHECK_EQ_U64(pl->total_bytes, 14ull * sizes[i]);
    }
    /* size 0 and a single rank: empty plans */
    coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_RING, 8, 8, 0, 1, 0);
    CHECK(pl && pl->n_xfers == 0);
    pl = mk(OP_ALL_REDUCE, ALGO_RING, 1, 8, 1 << 20, 1, 0);
    CHECK(pl && pl->n_xfers == 0);
}

static void test_ring_chunking(void)
{
    /* S/n = 1 MiB + 1 per rank-step: K = 3 chunks of 512 KiB max, summing to the block */
    uint32_t n = 4;
    uint64_t blk = (1u << 20) + 1, S = blk * n;
    coll_plan *pl = mk(OP_REDUCE_SCATTER, ALGO_RING, n, 4, S, 1, 0);
    if (!pl)
        return;
    CHECK_EQ_U64(pl->chunk_bytes, COLL_CHUNK_DEFAULT);
    CHECK_EQ_U64(pl->n_xfers, 3ull * (n - 1) * n);
    uint64_t per_src_step[4][3] = {{0}};
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        CHECK(x->bytes > 0 && x->bytes <= COLL_CHUNK_DEFAULT);
        per_src_step[x->src][x->step] += x->bytes;
    }
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t s = 0; s < n - 1; s++)
            CHECK_EQ_U64(per_src_step[r][s], blk);
    CHECK_EQ_U64(pl->total_bytes, (uint64_t)(n - 1) * S);
    CHECK_EQ_U64(coll_plan_critical_path(pl), n - 1);
    /* chunk k of step s depends on chunk k of step s−1, received from the previous rank */
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        if (x->step == 0) {
            CHECK_EQ_U64(x->n_deps, 0);
            continue;
        }
        CHECK_EQ_U64(x->n_deps, 1);
        const coll_xfer *d = &pl->xfers[pl->deps[x->first_dep]];
        CHECK_EQ_U64(d->dst, x->src);
        CHECK_EQ_U64(d->step + 1, x->step);
        CHECK_EQ_U64(d->bytes, x->bytes);
    }
}

static void test_ring_rs_ag_bcast_reduce(void)
{
    uint64_t sent[16], recv[16];
    uint32_t n = 16;
    uint64_t S = 16ull * 4 * 100000;
    coll_plan *rs = mk(OP_REDUCE_SCATTER, ALGO_RING, n, 8, S, 4, 0);
    coll_plan *ag = mk(OP_ALL_GATHER, ALGO_RING, n, 8, S, 4, 0);
    if (rs && ag) {
        CHECK_EQ_U64(rs->total_bytes, (uint64_t)(n - 1) * S);
        CHECK_EQ_U64(ag->total_bytes, (uint64_t)(n - 1) * S);
        per_rank(rs, sent, recv);
        for (uint32_t r = 0; r < n; r++)
            CHECK_EQ_U64(sent[r], (uint64_t)(n - 1) * S / n);
        per_rank(ag, sent, recv);
        for (uint32_t r = 0; r < n; r++)
            CHECK_EQ_U64(recv[r], (uint64_t)(n - 1) * S / n);
        CHECK_EQ_U64(coll_plan_critical_path(rs), n - 1);
        CHECK_EQ_U64(coll_plan_critical_path(ag), n - 1);
        CHECK_EQ_U64(reduced_bytes(ag), 0);
    }
    coll_plan *bc = mk(OP_BROADCAST, ALGO_RING, n, 8, 3u << 20, 2, 0);
    coll_plan *rd = mk(OP_REDUCE, ALGO_RING, n, 8, 3u << 20, 2, 0);
    if (bc && rd) {
        CHECK_EQ_U64(bc->total_bytes, (uint64_t)(n - 1) * (3u << 20));
        CHECK_EQ_U64(rd->total_bytes, (uint64_t)(n - 1) * (3u << 20));
        per_rank(bc, sent, recv);
        CHECK_EQ_U64(sent[0], 3u << 20);
        CHECK_EQ_U64(recv[0], 0);
        per_rank(rd, sent, recv);
        CHECK_EQ_U64(recv[0], 3u << 20);
        CHECK_EQ_U64(sent[0], 0);
        CHECK_EQ_U64(coll_plan_critical_path(bc), n - 1);
        CHECK_EQ_U64(coll_plan_critical_path(rd), n - 1);
    }
}

static void test_ring_order(void)
{
    /* 4 servers × 4 GPUs: per channel and step only the 4 server boundaries cross the network,
     * and each boundary hop stays on one rail (the snake order): from an even server it leaves
     * local GPU c−1 into local GPU c−1 of the next, from an odd one GPU c into GPU c */
    uint32_t n = 16, g = 4;
    coll_plan *pl = mk(OP_ALL_GATHER, ALGO_RING, n, g, 16 * 4096, 4, 0);
    if (!pl)
        return;
    uint32_t cross[4][15] = {{0}};
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        if (x->src / g == x->dst / g)
            continue;
        cross[x->channel][x->step]++;
        uint32_t rail = (x->src / g) % 2 ? x->channel : (x->channel + g - 1) % g;
        CHECK_EQ_U64(x->src % g, rail);
        CHECK_EQ_U64(x->dst % g, rail);
        CHECK_EQ_U64((x->src / g + 1) % (n / g), x->dst / g);
    }
    for (uint32_t c = 0; c < 4; c++)
        for (uint32_t s = 0; s < 15; s++)
            CHECK_EQ_U64(cross[c][s], n / g);
}

static bool has_edge(const coll_plan *pl, uint32_t ch, uint32_t src, uint32_t dst)
{
    for (uint32_t i = 0; i < pl->n_xfers; i++)
        if (pl->xfers[i].channel == ch && pl->xfers[i].src == src && pl->xfers[i].dst == dst)
            return true;
    return false;
}

static void test_tree(void)
{
    /* NCCL's trees.cc picture for 12 nodes (one GPU each): tree 0 and its mirror tree 1 */
    coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_TREE, 12, 1, 12 * 1024, 1, 0);
    if (!pl)
        return;
    CHECK_EQ_U64(pl->n_channels, 2);
    static const uint32_t t0[][2] = {{0, 8}, {8, 4}, {8, 10}, {4, 2}, {4, 6}, {2, 1},
                                     {2, 3}, {6, 5}, {6, 7}, {10, 9}, {10, 11}};
    for (unsigned i = 0; i < 11; i++) {
        CHECK(has_edge(pl, 0, t0[i][0], t0[i][1]));            /* down */
        CHECK(has_edge(pl, 0, t0[i][1], t0[i][0]));            /* up */
        CHECK(has_edge(pl, 1, 11 - t0[i][0], 11 - t0[i][1]));  /* mirror */
    }
    /* 2(n−1)·S: every non-root sends its half up and receives it down, in each tree */
    CHECK_EQ_U64(pl->total_bytes, 2ull * 11 * 12 * 1024);
    /* height 4 (0→8→4→2→1): critical path 2 × 4 */
    CHECK_EQ_U64(coll_plan_critical_path(pl), 8);
    CHECK_EQ_U64(pl->n_steps, 8);

    /* 4 servers × 8 GPUs, 4 channels (8 tree channels): totals, chunking, rail-aligned heads */
    uint64_t S = 64u << 20;
    pl = mk(OP_ALL_REDUCE, ALGO_TREE, 32, 8, S, 4, 0);
    if (pl) {
        CHECK_EQ_U64(pl->n_channels, 8);
        CHECK_EQ_U64(pl->total_bytes, 2ull * 31 * S);
        for (uint32_t i = 0; i < pl->n_xfers; i++) {
            const coll_xfer *x = &pl->xfers[i];
            if (x->src / 8 != x->dst / 8) {
                CHECK_EQ_U64(x->src % 8, x->channel / 2);
                CHECK_EQ_U64(x->dst % 8, x->channel / 2);
            }
        }
        /* server tree 0→2→{1,3} has height 2, plus a chain of 8 GPUs: 2·(2 + 7) */
        CHECK_EQ_U64(coll_plan_critical_path(pl), 2 * (2 + 7));
    }
    /* tree broadcast / reduce: every rank but the root receives (sends) S once */
    uint64_t sent[32], recv[32];
    coll_plan *bc = mk(OP_BROADCAST, ALGO_TREE, 32, 8, S, 2, 0);
    coll_plan *rd = mk(OP_REDUCE, ALGO_TREE, 32, 8, S, 2, 0);
    if (bc && rd) {
        per_rank(bc, sent, recv);
        for (uint32_t r = 1; r < 32; r++)
            CHECK_EQ_U64(recv[r], S);
        CHECK_EQ_U64(recv[0], 0);
        per_rank(rd, sent, recv);
        for (uint32_t r = 1; r < 32; r++)
            CHECK_EQ_U64(sent[r], S);
        CHECK_EQ_U64(sent[0], 0);
    }
}

static void test_halving_doubling(void)
{
    uint64_t sent[64], recv[64];
    for (uint32_t n = 2; n <= 64; n *= 2) {
        uint32_t L = 0;
        while ((1u << L) < n)
            L++;
        uint64_t S = (uint64_t)n * 2 * 300000;
        coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_HALVING_DOUBLING, n, 8, S, 2, 65536);
        if (!pl)
            continue;
        CHECK_EQ_U64(pl->total_bytes, 2ull * (n - 1) * S);
        per_rank(pl, sent, recv);
        for (uint32_t r = 0; r < n; r++) {
            CHECK_EQ_U64(sent[r], 2ull * (n - 1) * S / n);
            CHECK_EQ_U64(recv[r], 2ull * (n - 1) * S / n);
        }
        CHECK_EQ_U64(pl->n_steps, 2 * L);
        CHECK_EQ_U64(coll_plan_critical_path(pl), 2 * L);
        CHECK_EQ_U64(reduced_bytes(pl), (uint64_t)(n - 1) * S);
        /* round i moves S/2^(i+1) per rank */
        uint64_t *step = calloc(2 * L, sizeof(uint64_t));
        for (uint32_t x = 0; x < pl->n_xfers; x++)
            step[pl->xfers[x].step] += pl->xfers[x].bytes;
        for (uint32_t i = 0; i < L; i++) {
            CHECK_EQ_U64(step[i], (uint64_t)n * (S >> (i + 1)));
            CHECK_EQ_U64(step[L + i], (uint64_t)n * (S / n << i));
        }
        free(step);
        coll_plan *rs = mk(OP_REDUCE_SCATTER, ALGO_HALVING_DOUBLING, n, 8, S, 1, 0);
        coll_plan *ag = mk(OP_ALL_GATHER, ALGO_HALVING_DOUBLING, n, 8, S, 1, 0);
        if (rs && ag) {
            CHECK_EQ_U64(rs->total_bytes, (uint64_t)(n - 1) * S);
            CHECK_EQ_U64(ag->total_bytes, (uint64_t)(n - 1) * S);
            CHECK_EQ_U64(coll_plan_critical_path(rs), L);
            CHECK_EQ_U64(coll_plan_critical_path(ag), L);
        }
    }
    /* odd sizes still exact */
    coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_HALVING_DOUBLING, 8, 8, 1000003, 1, 4096);
    if (pl)
        CHECK_EQ_U64(pl->total_bytes, 2ull * 7 * 1000003);
}

static uint32_t log2_floor(uint32_t n)
{
    uint32_t L = 0;
    while ((2u << L) <= n)
        L++;
    return L;
}

/* Halving-doubling on any count (MPICH's fold, Thakur et al. 2005): p2 = 2^⌊log2 n⌋,
 * rem = n − p2. Bytes: 2·rem·S for the fold plus 2(p2 − 1)·S for the core; steps 2·log2 p2 + 2;
 * the reduction is still (n − 1)·S; a folded-away even rank sends S and receives S. */
static void test_hd_non_pow2(void)
{
    uint64_t sent[64], recv[64];
    static const uint32_t ns[] = {3, 5, 6, 7, 12, 24, 48};
    for (unsigned q = 0; q < sizeof ns / sizeof ns[0]; q++) {
        uint32_t n = ns[q], L = log2_floor(n), p2 = 1u << L, rem = n - p2;
        uint64_t S = (uint64_t)p2 * 3 * 65536;
        coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_HALVING_DOUBLING, n, 8, S, 1, 65536);
        if (!pl)
            continue;
        CHECK_EQ_U64(pl->total_bytes, 2ull * rem * S + 2ull * (p2 - 1) * S);
        CHECK_EQ_U64(pl->n_steps, 2 * L + 2);
        CHECK_EQ_U64(coll_plan_critical_path(pl), 2 * L + 2);
        CHECK_EQ_U64(reduced_bytes(pl), (uint64_t)(n - 1) * S);
        per_rank(pl, sent, recv);
        for (uint32_t r = 0; r < n; r++) {
            uint64_t core = 2ull * (p2 - 1) * S / p2;
            if (r < 2 * rem && r % 2 == 0) { /* folded away */
                CHECK_EQ_U64(sent[r], S);
                CHECK_EQ_U64(recv[r], S);
            } else if (r < 2 * rem) { /* folded in a partner */
                CHECK_EQ_U64(sent[r], core + S);
                CHECK_EQ_U64(recv[r], core + S);
            } else {
                CHECK_EQ_U64(sent[r], core);
                CHECK_EQ_U64(recv[r], core);
            }
        }
    }
}

/* Recursive doubling (MPICH): log2 p2 rounds of the whole buffer per rank, plus the fold. */
static void test_recursive_doubling(void)
{
    uint64_t sent[64], recv[64];
    for (uint32_t n = 2; n <= 40; n += n < 8 ? 1 : 8) {
        uint32_t L = log2_floor(n), p2 = 1u << L, rem = n - p2;
        uint64_t S = 1000003;
        coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_RECURSIVE_DOUBLING, n, 8, S, 1, 0);
        if (!pl)
            continue;
        CHECK_EQ_U64(pl->total_bytes, (uint64_t)p2 * L * S + 2ull * rem * S);
        CHECK_EQ_U64(pl->n_steps, L + (rem ? 2 : 0));
        /* one chunk per send. A chain: fold-in at a folded virtual rank v < rem, then the
         * rounds in increasing order (each flips one bit of the holder), then a fold-out if it
         * ends at a virtual rank < rem. All L rounds from v end at p2 − 1 − v, itself < rem
         * for some v exactly when 2·rem > p2: L + 2; else L + 1 (drop one round or the
         * fold-out). */
        CHECK_EQ_U64(coll_plan_critical_path(pl), L + (rem ? 1 : 0) + (2 * rem > p2));
        per_rank(pl, sent, recv);
        for (uint32_t r = 0; r < n; r++) {
            bool away = r < 2 * rem && r % 2 == 0, extra = r < 2 * rem && r % 2 == 1;
            CHECK_EQ_U64(sent[r], away ? S : (uint64_t)L * S + (extra ? S : 0));
            CHECK_EQ_U64(recv[r], sent[r]);
        }
    }
    /* all_gather: the doubling half of halving-doubling, (n − 1)/n·S per rank in log2 n steps */
    coll_plan *ag = mk(OP_ALL_GATHER, ALGO_RECURSIVE_DOUBLING, 16, 8, 16 * 40000, 2, 0);
    if (ag) {
        per_rank(ag, sent, recv);
        for (uint32_t r = 0; r < 16; r++)
            CHECK_EQ_U64(sent[r], 15 * 40000);
        CHECK_EQ_U64(ag->n_steps, 4);
        CHECK_EQ_U64(coll_plan_critical_path(ag), 4);
    }
}

/* Binomial broadcast / reduce (MPICH): (n − 1)·S in all, the root sends (broadcast) or receives
 * (reduce) ⌈log2 n⌉·S, a leaf nothing / S, ⌈log2 n⌉ steps; the reduction is (n − 1)·S. */
static void test_binomial(void)
{
    uint64_t sent[64], recv[64];
    for (uint32_t n = 2; n <= 33; n++) {
        uint32_t L = log2_floor(n) + ((n & (n - 1)) != 0); /* ⌈log2 n⌉ */
        uint64_t S = 300001;
        coll_plan *bc = mk(OP_BROADCAST, ALGO_BINOMIAL, n, 8, S, 1, 65536);
        coll_plan *rd = mk(OP_REDUCE, ALGO_BINOMIAL, n, 8, S, 1, 65536);
        if (!bc || !rd)
            continue;
        CHECK_EQ_U64(bc->total_bytes, (uint64_t)(n - 1) * S);
        CHECK_EQ_U64(rd->total_bytes, (uint64_t)(n - 1) * S);
        CHECK_EQ_U64(bc->n_steps, L);
        CHECK_EQ_U64(rd->n_steps, L);
        per_rank(bc, sent, recv);
        CHECK_EQ_U64(sent[0], (uint64_t)L * S);
        for (uint32_t r = 1; r < n; r++)
            CHECK_EQ_U64(recv[r], S);
        per_rank(rd, sent, recv);
        CHECK_EQ_U64(recv[0], (uint64_t)L * S);
        CHECK_EQ_U64(reduced_bytes(rd), (uint64_t)(n - 1 - L) * S); /* the root's L unsent */
        /* the deepest rank sits max popcount(v < n) edges below the root */
        uint32_t depth = 0;
        for (uint32_t v = 1; v < n; v++)
            depth =
                (uint32_t)__builtin_popcount(v) > depth ? (uint32_t)__builtin_popcount(v) : depth;
        CHECK_EQ_U64(coll_plan_critical_path(bc), depth);
        CHECK_EQ_U64(coll_plan_critical_path(rd), depth);
    }
}

/* Scatter + ring all_gather broadcast (MPICH, van de Geijn): the root scatters (n − 1)/n·S,
 * every rank sends (n − 1)/n·S in the ring; ⌈log2 n⌉ + n − 1 steps. */
static void test_scatter_allgather(void)
{
    uint64_t sent[64], recv[64];
    for (uint32_t n = 2; n <= 32; n++) {
        uint32_t L = log2_floor(n) + ((n & (n - 1)) != 0);
        uint64_t S = (uint64_t)n * 10007;
        coll_plan *pl = mk(OP_BROADCAST, ALGO_SCATTER_ALLGATHER, n, 8, S, 1, 0);
        if (!pl)
            continue;
        per_rank(pl, sent, recv);
        uint64_t blk = S / n, ring = (uint64_t)(n - 1) * blk;
        CHECK_EQ_U64(sent[0], ring + ring); /* the scatter + its ring share */
        CHECK_EQ_U64(recv[0], ring);
        for (uint32_t r = 1; r < n; r++) {
            /* rank r's subtree: the blocks [r, r + lowbit(r)) that exist */
            uint64_t sub = (r & -r) < n - r ? (r & -r) : n - r;
            CHECK_EQ_U64(recv[r], sub * blk + ring);
            CHECK_EQ_U64(sent[r], (sub - 1) * blk + ring);
        }
        CHECK_EQ_U64(pl->n_steps, L + n - 1);
        /* every rank ends with S: its scatter share (its subtree's blocks, ≥ its own) + ring */
        uint64_t scat = 0;
        for (uint32_t x = 0; x < pl->n_xfers; x++)
            if (pl->xfers[x].step < L)
                scat += pl->xfers[x].bytes;
        CHECK_EQ_U64(pl->total_bytes, scat + (uint64_t)n * ring);
        if ((n & (n - 1)) == 0) /* each level of a full binomial scatter moves S/2 */
            CHECK_EQ_U64(scat, (uint64_t)L * S / 2);
    }
}

static void test_direct(void)
{
    uint64_t sent[16], recv[16];
    uint32_t n = 16;
    uint64_t S = 16ull * 1000000;
    coll_plan *pl = mk(OP_ALL_TO_ALL, ALGO_DIRECT, n, 8, S, 4, 0);
    if (pl) {
        CHECK_EQ_U64(pl->total_bytes, (uint64_t)(n - 1) * S);
        per_rank(pl, sent, recv);
        for (uint32_t r = 0; r < n; r++) {
            CHECK_EQ_U64(sent[r], (uint64_t)(n - 1) * S / n);
            CHECK_EQ_U64(recv[r], (uint64_t)(n - 1) * S / n);
        }
        CHECK_EQ_U64(coll_plan_critical_path(pl), 1);
        CHECK_EQ_U64(pl->n_deps, 0);
    }
    /* PXN: network transfers stay on their rail; cross-rail sends hop over the scale-up domain */
    coll_params p = {.op = OP_ALL_TO_ALL, .algo = ALGO_DIRECT, .pxn = true, .n_ranks = n,
                     .gpus_per_server = 8, .size_bytes = S, .channels = 1};
    err e;
    err_clear(&e);
    pl = coll_plan_build(&p, &A, &e);
    CHECK(pl && coll_plan_check(pl) == NULL);
    if (pl) {
        uint64_t net = 0, nvl = 0;
        for (uint32_t i = 0; i < pl->n_xfers; i++) {
            const coll_xfer *x = &pl->xfers[i];
            if (x->src / 8 != x->dst / 8) {
                CHECK_EQ_U64(x->src % 8, x->dst % 8);
                net += x->bytes;
            } else {
                nvl += x->bytes;
            }
        }
        /* network: every cross-server pair once; scale-up: same-server pairs + 7/8 relayed */
        CHECK_EQ_U64(net, 16ull * 8 * (S / n));
        CHECK_EQ_U64(nvl, 16ull * 7 * (S / n) + 16ull * 7 * (S / n));
        CHECK_EQ_U64(coll_plan_critical_path(pl), 2);
    }
    coll_plan *ag = mk(OP_ALL_GATHER, ALGO_DIRECT, n, 8, S, 2, 0);
    coll_plan *rs = mk(OP_REDUCE_SCATTER, ALGO_DIRECT, n, 8, S, 2, 0);
    coll_plan *ar = mk(OP_ALL_REDUCE, ALGO_DIRECT, n, 8, S, 2, 0);
    if (ag && rs && ar) {
        CHECK_EQ_U64(ag->total_bytes, (uint64_t)(n - 1) * S);
        CHECK_EQ_U64(rs->total_bytes, (uint64_t)(n - 1) * S);
        CHECK_EQ_U64(ar->total_bytes, 2ull * (n - 1) * S);
        CHECK_EQ_U64(coll_plan_critical_path(ar), 2);
    }
}

static void test_hierarchical(void)
{
    uint32_t g = 4, M = 4, n = g * M;
    uint64_t S = (uint64_t)n * 2 * 3 * 65536;
    coll_plan *pl = mk(OP_ALL_REDUCE, ALGO_HIERARCHICAL, n, g, S, 2, 65536);
    if (!pl)
        return;
    uint64_t inter = 0, intra = 0, net_sent[16] = {0};
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        const coll_xfer *x = &pl->xfers[i];
        if (x->src / g != x->dst / g) {
            CHECK_EQ_U64(x->src % g, x->dst % g); /* per rail */
            inter += x->bytes;
            net_sent[x->src] += x->bytes;
        } else {
            intra += x->bytes;
        }
    }
    /* per rail: ring all_reduce of S/g over M servers = 2(M−1)/M · S/g per rank */
    CHECK_EQ_U64(inter, 2ull * (M - 1) * S);
    for (uint32_t r = 0; r < n; r++)
        CHECK_EQ_U64(net_sent[r], 2ull * (M - 1) * S / (M * g));
    /* intra: reduce-scatter + all-gather, (g−1)/g · S each per rank */
    CHECK_EQ_U64(intra, 2ull * n * (g - 1) * S / g);
    CHECK_EQ_U64(pl->n_steps, 2 * (g - 1) + 2 * (M - 1));
    CHECK_EQ_U64(coll_plan_critical_path(pl), 2 * (g - 1) + 2 * (M - 1));
    /* degenerate shapes */
    coll_plan *one = mk(OP_ALL_REDUCE, ALGO_HIERARCHICAL, 8, 8, 1 << 20, 1, 0);
    if (one) {
        CHECK_EQ_U64(one->total_bytes, 2ull * 7 * (1 << 20));
        CHECK_EQ_U64(coll_plan_critical_path(one), 14);
    }
    coll_plan *flat = mk(OP_ALL_REDUCE, ALGO_HIERARCHICAL, 8, 1, 1 << 20, 1, 0);
    if (flat)
        CHECK_EQ_U64(flat->total_bytes, 2ull * 7 * (1 << 20));
}

static void expect_error(enum coll_op op, enum coll_algo algo, uint32_t n, const uint32_t *srv,
                         const char *needle1, const char *needle2)
{
    coll_params p = {.op = op, .algo = algo, .n_ranks = n, .server_of_rank = srv,
                     .gpus_per_server = 8, .size_bytes = 1 << 20};
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &A, &e);
    CHECK(pl == NULL);
    CHECK_EQ_U64(e.code, ERR_INVALID);
    CHECK(strstr(e.msg, needle1) != NULL);
    CHECK(strstr(e.msg, needle2) != NULL);
    if (!strstr(e.msg, needle1) || !strstr(e.msg, needle2))
        fprintf(stderr, "  message: %s\n", e.msg);
}

static void test_errors(void)
{
    expect_error(OP_REDUCE_SCATTER, ALGO_HALVING_DOUBLING, 6, NULL, "power-of-two", "got 6");
    expect_error(OP_ALL_GATHER, ALGO_RECURSIVE_DOUBLING, 12, NULL, "power-of-two", "got 12");
    expect_error(OP_ALL_REDUCE, ALGO_BINOMIAL, 8, NULL, "binomial does not implement all_reduce",
                 "broadcast, reduce");
    expect_error(OP_REDUCE, ALGO_SCATTER_ALLGATHER, 8, NULL, "scatter-allgather", "broadcast");
    expect_error(OP_ALL_TO_ALL, ALGO_RING, 8, NULL, "ring does not implement all_to_all",
                 "use algorithm direct");
    expect_error(OP_REDUCE_SCATTER, ALGO_TREE, 8, NULL, "tree", "all_reduce, broadcast, reduce");
    expect_error(OP_BROADCAST, ALGO_HIERARCHICAL, 8, NULL, "hierarchical", "all_reduce");
    static const uint32_t uneven[6] = {0, 0, 0, 0, 1, 1};
    expect_error(OP_ALL_REDUCE, ALGO_HIERARCHICAL, 6, uneven, "same number of ranks", "has 2");
    expect_error(OP_ALL_REDUCE, ALGO_RING, 0, NULL, "at least 1 rank", "got 0");
}

static void test_compute_and_successors(void)
{
    coll_params p = {.op = OP_ALL_REDUCE, .algo = ALGO_RING, .n_ranks = 4, .gpus_per_server = 4,
                     .size_bytes = 4u << 20, .channels = 1, .reduce_Bps = 1000000000};
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &A, &e);
    if (!pl) {
        CHECK(0);
        return;
    }
    /* 512 KiB folded in at 1 GB/s = 524.288 us */
    sim_time total = 0;
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        sim_time c = coll_xfer_compute_ps(pl, &pl->xfers[i]);
        if (pl->xfers[i].reduce_inputs)
            CHECK_EQ_U64(c, (uint64_t)pl->xfers[i].bytes * 1000);
        else
            CHECK_EQ_U64(c, 0);
        total += c;
    }
    CHECK_EQ_U64(total, 3ull * (4u << 20) * 1000);
    uint32_t *first, *succ;
    coll_plan_successors(pl, &A, &first, &succ);
    uint64_t edges = 0;
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        edges += pl->xfers[i].n_deps;
        for (uint32_t k = first[i]; k < first[i + 1]; k++) {
            const coll_xfer *s = &pl->xfers[succ[k]];
            bool found = false;
            for (uint32_t d = 0; d < s->n_deps; d++)
                found |= pl->deps[s->first_dep + d] == i;
            CHECK(found);
        }
    }
    CHECK_EQ_U64(first[pl->n_xfers], edges);
}

/* A compact ring plan is the stored plan described: the same transfers (every field), the same
 * dependencies and successors, the same connections, in the same order. */
static void compact_vs_stored(enum coll_op op, uint32_t n, uint32_t gps, uint64_t S, uint32_t C,
                              uint64_t chunk, uint32_t *n_compact)
{
    coll_params p = {.op = op,
                     .algo = ALGO_RING,
                     .n_ranks = n,
                     .gpus_per_server = gps,
                     .size_bytes = S,
                     .channels = C,
                     .chunk_bytes = chunk,
                     .reduce_Bps = 1000};
    err e;
    err_clear(&e);
    coll_plan *st = coll_plan_build(&p, &A, &e);
    p.compact = true;
    coll_plan *cp = coll_plan_build(&p, &A, &e);
    CHECK(st && cp);
    if (!st || !cp)
        return;
    CHECK(st->ring == NULL);
    if (!cp->ring) {
        /* refused only when some chunk is empty: a block smaller than its chunk count */
        CHECK(cp->xfers != NULL);
        return;
    }
    ++*n_compact;
    CHECK(cp->xfers == NULL && cp->deps == NULL);
    CHECK(coll_plan_check(cp) == NULL);
    CHECK_EQ_U64(cp->n_xfers, st->n_xfers);
    CHECK_EQ_U64(cp->n_deps, st->n_deps);
    CHECK_EQ_U64(cp->n_steps, st->n_steps);
    CHECK_EQ_U64(cp->n_channels, st->n_channels);
    CHECK_EQ_U64(cp->total_bytes, st->total_bytes);
    if (st->n_xfers > 1000)
        CHECK(cp->footprint_bytes < st->footprint_bytes);
    dag_graph gs, gc;
    coll_plan_graph(st, &A, &gs);
    coll_plan_graph(cp, &A, &gc);
    CHECK(gc.succ_first == NULL && gc.max_deps == 1 && gs.max_deps <= 1);
    coll_conns ks, kc;
    coll_plan_conns(st, &A, &ks);
    coll_plan_conns(cp, &A, &kc);
    CHECK_EQ_U64(kc.n, ks.n);
    for (uint32_t c = 0; c < ks.n && c < kc.n; c++)
        CHECK(ks.src[c] == kc.src[c] && ks.dst[c] == kc.dst[c] && ks.channel[c] == kc.channel[c]);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < st->n_xfers && bad < 5; i++) {
        coll_xfer b;
        const coll_xfer *a = &st->xfers[i], *x = coll_plan_xfer(cp, i, &b);
        bool same = a->src == x->src && a->dst == x->dst && a->bytes == x->bytes &&
                    a->channel == x->channel && a->step == x->step &&
                    a->reduce_inputs == x->reduce_inputs && a->n_deps == x->n_deps &&
                    coll_xfer_compute_ps(st, a) == coll_xfer_compute_ps(cp, x) &&
                    coll_conn_of(st, &ks, i) == coll_conn_of(cp, &kc, i);
        for (uint32_t k = 0; same && k < a->n_deps; k++)
            same = coll_plan_dep(st, a, k) == coll_plan_dep(cp, x, k);
        /* the transfer and its connection decoded at once (the executors' path) */
        coll_xfer b2;
        uint32_t conn = UINT32_MAX;
        const coll_xfer *y = coll_plan_xfer_conn(cp, &kc, i, &b2, &conn);
        same = same && conn == coll_conn_of(st, &ks, i) && y->src == a->src && y->dst == a->dst &&
               y->bytes == a->bytes && y->channel == a->channel && y->step == a->step &&
               y->n_deps == a->n_deps && y->reduce_inputs == a->reduce_inputs &&
               (!a->n_deps || coll_plan_dep(cp, y, 0) == coll_plan_dep(st, a, 0));
        CHECK_EQ_U64(gc.deps_fn(gc.ctx, i), gs.deps_fn(gs.ctx, i));
        if (x->n_deps) /* dependencies lie within the span a windowed pass keeps */
            CHECK(i - coll_plan_dep(cp, x, 0) <= coll_plan_dep_span(cp));
        uint32_t out[DAG_SUCC_IMPLICIT_MAX];
        uint32_t m = gc.succ_fn(gc.ctx, i, out);
        same = same && m == gs.succ_first[i + 1] - gs.succ_first[i];
        for (uint32_t k = 0; same && k < m; k++)
            same = out[k] == gs.succ[gs.succ_first[i] + k];
        if (!same) {
            fprintf(stderr, "  op %d n %u S %llu C %u: transfer %u differs\n", (int)op, n,
                    (unsigned long long)S, C, i);
            bad++;
        }
    }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(coll_plan_critical_path(cp), coll_plan_critical_path(st));
}

static void test_ring_compact(void)
{
    const enum coll_op ops[] = {OP_ALL_REDUCE, OP_REDUCE_SCATTER, OP_ALL_GATHER, OP_BROADCAST,
                                OP_REDUCE};
    const uint32_t ns[][2] = {{2, 1}, {3, 1}, {8, 8}, {12, 4}, {16, 8}, {24, 8}, {5, 2}};
    const uint64_t sizes[] = {1, 97, 4096, (1u << 20) + 7, 8u << 20};
    const uint64_t chunks[] = {0, 4096};
    const uint32_t chans[] = {1, 3, 8};
    uint32_t compact = 0;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
            for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++)
                for (size_t c = 0; c < 2; c++)
                    for (size_t d = 0; d < 3; d++)
                        compact_vs_stored(ops[o], ns[a][0], ns[a][1], sizes[b], chans[d], chunks[c],
                                          &compact);
    CHECK(compact > 150); /* most of the grid is regular */
    /* not a ring: always stored */
    coll_params p = {.op = OP_BROADCAST,
                     .algo = ALGO_TREE,
                     .n_ranks = 8,
                     .size_bytes = 1 << 20,
                     .compact = true};
    err e;
    err_clear(&e);
    coll_plan *pl = coll_plan_build(&p, &A, &e);
    CHECK(pl && !pl->ring && pl->xfers);
}

static void test_footprint_1024(void)
{
    /* 1024 ranks (128 servers × 8), 1 GiB, 8 channels: 16.8 M transfers of 128 KiB */
    arena big;
    arena_init(&big, "test: 1024-rank plan");
    coll_params p = {.op = OP_ALL_REDUCE, .algo = ALGO_RING, .n_ranks = 1024,
                     .gpus_per_server = 8, .size_bytes = 1ull << 30, .channels = 8};
    err e;
    err_clear(&e);
    clock_t t0 = clock();
    coll_plan *pl = coll_plan_build(&p, &big, &e);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(pl != NULL);
    if (pl) {
        CHECK_EQ_U64(pl->n_xfers, 1024ull * 2046 * 8);
        CHECK_EQ_U64(pl->total_bytes, 2ull * 1023 * (1ull << 30));
        CHECK(coll_plan_check(pl) == NULL);
        CHECK(pl->footprint_bytes < 512ull << 20);
        fprintf(stderr,
                "  footprint: 1024-rank ring all_reduce, 1 GiB, 8 channels: %u transfers "
                "(%zu B each), %u deps, plan %.1f MiB (arena %.1f MiB), built in %.2f s\n",
                pl->n_xfers, sizeof(coll_xfer), pl->n_deps,
                (double)pl->footprint_bytes / 1048576.0, (double)big.used_bytes / 1048576.0,
                secs);
    }
    /* the same plan, compact (what the collective executor builds) */
    p.compact = true;
    t0 = clock();
    coll_plan *cp = coll_plan_build(&p, &big, &e);
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(cp && cp->ring);
    if (cp && pl) {
        CHECK_EQ_U64(cp->n_xfers, pl->n_xfers);
        CHECK_EQ_U64(cp->total_bytes, pl->total_bytes);
        CHECK(cp->footprint_bytes < 1u << 20);
        CHECK_EQ_U64(coll_plan_max_ready(cp), 1024ull * 8);
        fprintf(stderr, "  footprint: the same plan compact: %.1f KiB, built in %.3f s\n",
                (double)cp->footprint_bytes / 1024.0, secs);
    }
    arena_free(&big);
}

int main(void)
{
    arena_init(&A, "test_collective");
    TEST_RUN(test_ring_all_reduce);
    TEST_RUN(test_ring_chunking);
    TEST_RUN(test_ring_rs_ag_bcast_reduce);
    TEST_RUN(test_ring_order);
    TEST_RUN(test_tree);
    TEST_RUN(test_halving_doubling);
    TEST_RUN(test_hd_non_pow2);
    TEST_RUN(test_recursive_doubling);
    TEST_RUN(test_binomial);
    TEST_RUN(test_scatter_allgather);
    TEST_RUN(test_direct);
    TEST_RUN(test_hierarchical);
    TEST_RUN(test_errors);
    TEST_RUN(test_compute_and_successors);
    TEST_RUN(test_ring_compact);
    TEST_RUN(test_footprint_1024);
    arena_free(&A);
    return tl_finish();
}
