/*
 * collective.c — collective plans (DAGs of point-to-point transfers) and nccl-tests bandwidth
 * accounting. See collective.h for the algorithms and their sources; the construction details
 * and the choices made are documented beside each builder below.
 *
 * Every builder runs twice over the same deterministic logic: a counting pass (sizes the arrays,
 * so the arena holds exactly what the plan needs — an arena cannot grow an array) and a filling
 * pass. Transfer indices are handed out in emission order in both passes, so a builder can use
 * the index an emit returns as a dependency of later transfers; deps therefore always point
 * backwards and the transfer array is a topological order of the DAG.
 *
 * Zero-byte transfers are never emitted: when a block or chunk is empty (size smaller than the
 * rank count or the chunk count) its whole dependency chain carries nothing and is dropped, and
 * the generic engine simply has no record for an empty range.
 */
#include "collective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/fastdiv.h"
#include "dag.h"

/* ---- emission ---------------------------------------------------------------------------- */

typedef struct builder {
    coll_plan *pl;
    bool fill;
    uint64_t nx, nd;          /* transfers / dep entries emitted so far (64-bit: overflow test) */
    uint32_t max_step;
    uint64_t total;
    bool overflow;            /* a dep list longer than 16 bits */
} builder;

/* Store a dependency list; returns its first index in deps[]. Lists may be shared. */
static uint32_t b_deps(builder *b, const uint32_t *d, uint32_t n)
{
    uint32_t first = (uint32_t)b->nd;
    if (b->fill)
        memcpy(b->pl->deps + first, d, sizeof(uint32_t) * n);
    b->nd += n;
    return first;
}

static uint32_t b_xfer(builder *b, uint32_t src, uint32_t dst, uint64_t bytes, uint32_t channel,
                       uint32_t step, uint32_t reduce_inputs, uint32_t first_dep, uint32_t n_deps)
{
    uint32_t idx = (uint32_t)b->nx;
    SIM_ASSERT(bytes > 0 && src != dst, "transfer %u: %u -> %u, %llu bytes", idx, src, dst,
               (unsigned long long)bytes);
    if (n_deps > UINT16_MAX)
        b->overflow = true;
    if (b->fill) {
        coll_xfer *x = &b->pl->xfers[idx];
        x->src = src;
        x->dst = dst;
        x->bytes = (uint32_t)bytes;
        x->first_dep = first_dep;
        x->n_deps = (uint16_t)n_deps;
        x->channel = (uint16_t)channel;
        x->step = step;
        x->reduce_inputs = reduce_inputs > 255 ? 255 : reduce_inputs;
    }
    b->nx++;
    b->total += bytes;
    if (step > b->max_step)
        b->max_step = step;
    return idx;
}

/* Part i of `total` split into `parts` near-equal parts (the first total % parts get one more). */
static uint64_t split_len(uint64_t total, uint64_t parts, uint64_t i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}
static uint64_t split_off(uint64_t total, uint64_t parts, uint64_t i)
{
    uint64_t q = total / parts, r = total % parts;
    return i * q + (i < r ? i : r);
}
static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* ---- ranks, servers ---------------------------------------------------------------------- */

/*
 * Servers are numbered densely in the order of their lowest rank; a server's ranks are listed in
 * ascending order and a rank's local index is its place in that list (its GPU, hence its rail on
 * a rail-optimized fabric with one NIC per GPU).
 */
typedef struct topo_info {
    uint32_t n, M;
    uint32_t *server;     /* [n] dense server index */
    uint32_t *local;      /* [n] local index */
    uint32_t *srv_first;  /* [M + 1] offsets into srv_ranks */
    uint32_t *srv_ranks;  /* [n] ranks grouped by server, ascending */
} topo_info;

typedef struct { uint32_t key, rank; } srv_pair;
static int srv_pair_cmp(const void *a, const void *b)
{
    const srv_pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void topo_build(topo_info *t, const coll_params *p)
{
    uint32_t n = p->n_ranks, gps = p->gpus_per_server ? p->gpus_per_server : 1;
    t->n = n;
    t->server = xcalloc(n, sizeof(uint32_t), "collective plan: server of rank");
    t->local = xcalloc(n, sizeof(uint32_t), "collective plan: local index");
    t->srv_ranks = xcalloc(n, sizeof(uint32_t), "collective plan: ranks by server");
    srv_pair *pr = xcalloc(n, sizeof(srv_pair), "collective plan: sort");
    for (uint32_t r = 0; r < n; r++)
        pr[r] = (srv_pair){p->server_of_rank ? p->server_of_rank[r] : r / gps, r};
    qsort(pr, n, sizeof(srv_pair), srv_pair_cmp);
    /* groups in key order; renumber by lowest rank (each group's first entry) */
    uint32_t M = 0;
    uint32_t *gstart = xcalloc((size_t)n + 1, sizeof(uint32_t), "collective plan: groups");
    for (uint32_t i = 0; i < n; i++)
        if (i == 0 || pr[i].key != pr[i - 1].key)
            gstart[M++] = i;
    gstart[M] = n;
    srv_pair *order = xcalloc(M ? M : 1, sizeof(srv_pair), "collective plan: server order");
    for (uint32_t g = 0; g < M; g++)
        order[g] = (srv_pair){pr[gstart[g]].rank, g};
    qsort(order, M, sizeof(srv_pair), srv_pair_cmp);
    t->M = M;
    t->srv_first = xcalloc((size_t)M + 1, sizeof(uint32_t), "collective plan: server offsets");
    uint32_t at = 0;
    for (uint32_t m = 0; m < M; m++) {
        uint32_t g = order[m].rank;
        t->srv_first[m] = at;
        for (uint32_t i = gstart[g]; i < gstart[g + 1]; i++) {
            uint32_t r = pr[i].rank;
            t->server[r] = m;
            t->local[r] = i - gstart[g];
            t->srv_ranks[at++] = r;
        }
    }
    t->srv_first[M] = at;
    xfree(order);
    xfree(gstart);
    xfree(pr);
}

static void topo_free(topo_info *t)
{
    xfree(t->server);
    xfree(t->local);
    xfree(t->srv_first);
    xfree(t->srv_ranks);
}

static uint32_t srv_size(const topo_info *t, uint32_t m)
{
    return t->srv_first[m + 1] - t->srv_first[m];
}

/*
 * Ring order for channel c: servers in order, each server's GPUs consecutive (only the M server
 * boundaries cross the network — NCCL's ring search puts a node's GPUs together for the same
 * reason), each server's local order rotated by c so the channels enter and leave servers on
 * different GPUs (rails), as NCCL's channels use different NICs. Servers alternate direction
 * (a "snake"): server 2k runs c, c+1, …, c−1 and server 2k+1 runs c−1, …, c, so every boundary
 * hop leaves and enters on the same local GPU index — the same rail, one leaf in a
 * rail-optimized fabric, no spine — and with an even server count the wrap-around does too.
 * (An odd count leaves one cross-rail hop, at the wrap.)
 */
static void ring_order(const topo_info *t, uint32_t c, uint32_t *R)
{
    uint32_t at = 0;
    for (uint32_t m = 0; m < t->M; m++) {
        uint32_t g = srv_size(t, m), f = t->srv_first[m];
        for (uint32_t i = 0; i < g; i++) {
            uint32_t k = m % 2 ? (c + 2 * g - 1 - i) % g : (i + c) % g;
            R[at++] = t->srv_ranks[f + k];
        }
    }
}

/* ---- ring -------------------------------------------------------------------------------- */

/*
 * Ring all_reduce / reduce_scatter / all_gather on channel c (D bytes). The channel's data is
 * split into n blocks; in reduce-scatter step s (0..n−2) ring position p sends block
 * (p − s − 1) mod n to p + 1 and ends owning block p; in all-gather step t position p sends
 * block (p − t) mod n. A block is split into K = ⌈largest block / chunk⌉ chunks and chunk k of
 * a send depends only on the receive of the same chunk of the same block one step earlier (the
 * NCCL pipeline), so each (block, chunk) is an independent chain of 2(n−1) transfers.
 * Reductions: a reduce-scatter send at s ≥ 1 folds in one received buffer; so does the first
 * all-gather send (the last reduce-scatter receive). The reduction of the final receive of a
 * reduce_scatter op has no send to carry it and is not charged.
 */
static void ring_blocks(builder *b, const topo_info *t, uint64_t D, uint32_t c, bool rs, bool ag,
                        uint64_t chunk, uint32_t *R, uint32_t *prev, uint32_t *cur)
{
    uint32_t n = t->n;
    if (D == 0)
        return;
    ring_order(t, c, R);
    uint64_t K = ceil_div(split_len(D, n, 0), chunk);
    uint32_t nsteps = (rs ? n - 1 : 0) + (ag ? n - 1 : 0);
    for (uint64_t i = 0; i < (uint64_t)n * K; i++)
        prev[i] = UINT32_MAX;
    for (uint32_t s = 0; s < nsteps; s++) {
        bool in_rs = rs && s < n - 1;
        uint32_t t_ag = rs ? s - (n - 1) : s;
        for (uint32_t p = 0; p < n; p++) {
            uint32_t blk = in_rs ? (uint32_t)((p + 2u * n - s - 1) % n)
                                 : (uint32_t)((p + 2u * n - t_ag) % n);
            uint64_t bb = split_len(D, n, blk);
            uint32_t red = in_rs ? (s >= 1) : (rs && t_ag == 0);
            uint32_t src = R[p], dst = R[(p + 1) % n];
            uint32_t pp = (p + n - 1) % n;
            for (uint64_t k = 0; k < K; k++) {
                uint64_t cb = split_len(bb, K, k);
                uint32_t idx = UINT32_MAX;
                if (cb) {
                    uint32_t d = prev[(uint64_t)pp * K + k];
                    uint32_t fd = 0, nd = 0;
                    if (d != UINT32_MAX) {
                        fd = b_deps(b, &d, 1);
                        nd = 1;
                    }
                    idx = b_xfer(b, src, dst, cb, c, s, red, fd, nd);
                }
                cur[(uint64_t)p * K + k] = idx;
            }
        }
        memcpy(prev, cur, sizeof(uint32_t) * (size_t)(n * K));
    }
}

/*
 * Ring broadcast / reduce: NCCL's pipelined chain along the channel's ring starting (broadcast)
 * or ending (reduce) at root 0; chunk k of hop q depends on chunk k of hop q − 1.
 */
static void ring_chain(builder *b, const topo_info *t, uint64_t D, uint32_t c, bool to_root,
                       uint64_t chunk, uint32_t *R, uint32_t *prev)
{
    uint32_t n = t->n;
    if (D == 0)
        return;
    ring_order(t, c, R);
    uint32_t p0 = 0;
    while (R[p0] != 0)
        p0++;
    uint64_t K = ceil_div(D, chunk);
    for (uint64_t k = 0; k < K; k++)
        prev[k] = UINT32_MAX;
    for (uint32_t h = 0; h + 1 < n; h++) {
        /* broadcast hop h: chain position h -> h+1; reduce hop h: n−1−h -> n−2−h */
        uint32_t qs = to_root ? n - 1 - h : h, qd = to_root ? n - 2 - h : h + 1;
        uint32_t src = R[(p0 + qs) % n], dst = R[(p0 + qd) % n];
        for (uint64_t k = 0; k < K; k++) {
            uint64_t cb = split_len(D, K, k);
            if (!cb)
                continue;
            uint32_t d = prev[k], fd = 0, nd = 0;
            if (d != UINT32_MAX) {
                fd = b_deps(b, &d, 1);
                nd = 1;
            }
            prev[k] = b_xfer(b, src, dst, cb, c, h, to_root && h > 0, fd, nd);
        }
    }
}

static void build_ring(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels;
    uint64_t S = p->size_bytes;
    uint64_t maxK = ceil_div(split_len(split_len(S, C, 0), n, 0), chunk);
    if (p->op == OP_BROADCAST || p->op == OP_REDUCE)
        maxK = ceil_div(split_len(S, C, 0), chunk);
    if (maxK == 0)
        maxK = 1;
    uint32_t *R = xcalloc(n, sizeof(uint32_t), "collective plan: ring order");
    uint32_t *prev = xcalloc((size_t)(n * maxK), sizeof(uint32_t), "collective plan: ring prev");
    uint32_t *cur = xcalloc((size_t)(n * maxK), sizeof(uint32_t), "collective plan: ring cur");
    for (uint32_t c = 0; c < C; c++) {
        uint64_t D = split_len(S, C, c);
        switch (p->op) {
        case OP_ALL_REDUCE: ring_blocks(b, t, D, c, true, true, chunk, R, prev, cur); break;
        case OP_REDUCE_SCATTER: ring_blocks(b, t, D, c, true, false, chunk, R, prev, cur); break;
        case OP_ALL_GATHER: ring_blocks(b, t, D, c, false, true, chunk, R, prev, cur); break;
        case OP_BROADCAST: ring_chain(b, t, D, c, false, chunk, R, prev); break;
        case OP_REDUCE: ring_chain(b, t, D, c, true, chunk, R, prev); break;
        default: SIM_ASSERT(0, "ring op %d", (int)p->op);
        }
    }
    xfree(R);
    xfree(prev);
    xfree(cur);
}

/* ---- tree -------------------------------------------------------------------------------- */

/*
 * NCCL's binary tree over `nn` nodes (trees.cc ncclGetBtree): node r's lowest set bit `bit`;
 * parent (r ^ bit) | (bit << 1), or r ^ bit when that is out of range; children r − bit/2 and
 * r + bit/2 (the latter shrunk by halving until in range). Node 0 is the root and has one child.
 */
static void btree(int nn, int r, int *up, int *d0, int *d1)
{
    int bit;
    for (bit = 1; bit < nn; bit <<= 1)
        if (bit & r)
            break;
    if (r == 0) {
        *up = -1;
        *d0 = -1;
        *d1 = nn > 1 ? bit >> 1 : -1;
        return;
    }
    int u = (r ^ bit) | (bit << 1);
    if (u >= nn)
        u = r ^ bit;
    *up = u;
    int low = bit >> 1;
    *d0 = low == 0 ? -1 : r - low;
    while (low && r + low >= nn)
        low >>= 1;
    *d1 = low == 0 ? -1 : r + low;
}

/* Tree t of the double binary tree (ncclGetDtree): tree 1 mirrors tree 0 (even nn) or shifts
 * it by one node (odd nn), so a node that is a leaf in one tree is inner in the other. */
static void dtree(int nn, int r, int t, int *up, int *d0, int *d1)
{
    if (t == 0) {
        btree(nn, r, up, d0, d1);
        return;
    }
    int u, a, c;
    if (nn % 2 == 1) {
        btree(nn, (r - 1 + nn) % nn, &u, &a, &c);
        *up = u == -1 ? -1 : (u + 1) % nn;
        *d0 = a == -1 ? -1 : (a + 1) % nn;
        *d1 = c == -1 ? -1 : (c + 1) % nn;
    } else {
        btree(nn, nn - 1 - r, &u, &a, &c);
        *up = u == -1 ? -1 : nn - 1 - u;
        *d0 = a == -1 ? -1 : nn - 1 - a;
        *d1 = c == -1 ? -1 : nn - 1 - c;
    }
}

#define TREE_MAXCH 3 /* chain child + two server-tree children */

typedef struct tree_shape {
    int32_t *parent;                 /* [n], −1 at the root */
    uint32_t *child;                 /* [n × TREE_MAXCH] */
    uint8_t *nchild;                 /* [n] */
    uint32_t *bfs;                   /* [n] root first */
    uint32_t *height, *depth;        /* [n] */
    uint32_t root;
} tree_shape;

/*
 * Rank-level tree: the server tree of tree t over the M servers; inside a server a chain of its
 * GPUs in local order rotated by `rot` (the chain head talks to the network, so different tree
 * channels use different rails, and a parent and child head share a rail); the head's parent is
 * the parent server's head.
 */
static void tree_shape_build(tree_shape *ts, const topo_info *t, int tree, uint32_t rot)
{
    uint32_t n = t->n, M = t->M;
    uint32_t *head = xcalloc(M, sizeof(uint32_t), "collective plan: tree heads");
    for (uint32_t m = 0; m < M; m++)
        head[m] = t->srv_ranks[t->srv_first[m] + rot % srv_size(t, m)];
    for (uint32_t i = 0; i < n; i++)
        ts->nchild[i] = 0;
    for (uint32_t m = 0; m < M; m++) {
        uint32_t g = srv_size(t, m), f = t->srv_first[m];
        for (uint32_t i = 0; i < g; i++) {
            uint32_t r = t->srv_ranks[f + (i + rot) % g];
            if (i + 1 < g) {
                uint32_t nx = t->srv_ranks[f + (i + 1 + rot) % g];
                ts->child[r * TREE_MAXCH + ts->nchild[r]++] = nx;
                ts->parent[nx] = (int32_t)r;
            }
        }
        int up, d0, d1;
        dtree((int)M, (int)m, tree, &up, &d0, &d1);
        uint32_t h = head[m];
        ts->parent[h] = up < 0 ? -1 : (int32_t)head[up];
        if (up < 0)
            ts->root = h;
        if (d0 >= 0)
            ts->child[h * TREE_MAXCH + ts->nchild[h]++] = head[d0];
        if (d1 >= 0)
            ts->child[h * TREE_MAXCH + ts->nchild[h]++] = head[d1];
    }
    uint32_t qh = 0, qt = 0;
    ts->bfs[qt++] = ts->root;
    ts->depth[ts->root] = 0;
    while (qh < qt) {
        uint32_t r = ts->bfs[qh++];
        for (uint32_t j = 0; j < ts->nchild[r]; j++) {
            uint32_t c = ts->child[r * TREE_MAXCH + j];
            ts->depth[c] = ts->depth[r] + 1;
            ts->bfs[qt++] = c;
        }
    }
    SIM_ASSERT(qt == n, "tree reaches %u of %u ranks", qt, n);
    for (uint32_t i = n; i-- > 0;) {
        uint32_t r = ts->bfs[i], h = 0;
        for (uint32_t j = 0; j < ts->nchild[r]; j++) {
            uint32_t hc = ts->height[ts->child[r * TREE_MAXCH + j]] + 1;
            if (hc > h)
                h = hc;
        }
        ts->height[r] = h;
    }
    xfree(head);
}

/*
 * Tree all_reduce (up then down), reduce (up only) or broadcast (down only) of D bytes on one
 * tree channel, chunk-pipelined: chunk k goes up from a rank once the rank has chunk k from all
 * its children (it folds them in: reduce_inputs = children), and goes down from a rank once it
 * has it from its parent; the root starts the broadcast of chunk k when every child's chunk k has
 * arrived. Steps: up = the sender's height, down = root height + the receiver's depth − 1, so
 * the critical path is 2 × height for all_reduce.
 */
static void tree_run(builder *b, const tree_shape *ts, uint32_t n, uint64_t D, uint32_t ch,
                     bool up, bool down, uint64_t chunk, uint32_t *upidx, uint32_t *dnidx)
{
    if (D == 0 || n < 2)
        return;
    uint64_t K = ceil_div(D, chunk);
    uint32_t H = ts->height[ts->root];
    for (uint64_t k = 0; k < K; k++) {
        uint64_t cb = split_len(D, K, k);
        if (up) {
            for (uint32_t i = n; i-- > 0;) {
                uint32_t r = ts->bfs[i];
                if (ts->parent[r] < 0)
                    continue;
                uint32_t d[TREE_MAXCH], nd = 0;
                for (uint32_t j = 0; j < ts->nchild[r]; j++)
                    d[nd++] = upidx[ts->child[r * TREE_MAXCH + j]];
                uint32_t fd = nd ? b_deps(b, d, nd) : 0;
                upidx[r] = b_xfer(b, r, (uint32_t)ts->parent[r], cb, ch, ts->height[r],
                                  ts->nchild[r], fd, nd);
            }
        }
        if (down) {
            uint32_t rootfd = 0, rootnd = 0;
            if (up) {
                uint32_t d[TREE_MAXCH];
                for (uint32_t j = 0; j < ts->nchild[ts->root]; j++)
                    d[rootnd++] = upidx[ts->child[ts->root * TREE_MAXCH + j]];
                rootfd = b_deps(b, d, rootnd);
            }
            for (uint32_t i = 1; i < n; i++) {
                uint32_t r = ts->bfs[i], par = (uint32_t)ts->parent[r];
                uint32_t fd = rootfd, nd = rootnd, red = 0;
                if (par != ts->root) {
                    fd = b_deps(b, &dnidx[par], 1);
                    nd = 1;
                } else if (up) {
                    red = ts->nchild[ts->root];
                }
                uint32_t step = (up ? H : 0) + ts->depth[r] - 1;
                dnidx[r] = b_xfer(b, par, r, cb, ch, step, red, fd, nd);
            }
        }
    }
}

static void build_tree(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels;
    tree_shape ts;
    ts.parent = xcalloc(n, sizeof(int32_t), "collective plan: tree parent");
    ts.child = xcalloc((size_t)n * TREE_MAXCH, sizeof(uint32_t), "collective plan: tree child");
    ts.nchild = xcalloc(n, 1, "collective plan: tree nchild");
    ts.bfs = xcalloc(n, sizeof(uint32_t), "collective plan: tree order");
    ts.height = xcalloc(n, sizeof(uint32_t), "collective plan: tree height");
    ts.depth = xcalloc(n, sizeof(uint32_t), "collective plan: tree depth");
    uint32_t *upidx = xcalloc(n, sizeof(uint32_t), "collective plan: tree up");
    uint32_t *dnidx = xcalloc(n, sizeof(uint32_t), "collective plan: tree down");
    for (uint32_t tc = 0; tc < C; tc++) {
        uint64_t D = split_len(p->size_bytes, C, tc);
        if (p->op == OP_ALL_REDUCE) {
            tree_shape_build(&ts, t, (int)(tc % 2), tc / 2);
            tree_run(b, &ts, n, D, tc, true, true, chunk, upidx, dnidx);
        } else {
            tree_shape_build(&ts, t, 0, 0);
            tree_run(b, &ts, n, D, tc, p->op == OP_REDUCE, p->op == OP_BROADCAST, chunk, upidx,
                     dnidx);
        }
    }
    xfree(ts.parent);
    xfree(ts.child);
    xfree(ts.nchild);
    xfree(ts.bfs);
    xfree(ts.height);
    xfree(ts.depth);
    xfree(upidx);
    xfree(dnidx);
}

/* ---- generic range engine (halving-doubling, hierarchical) ------------------------------- */

/*
 * For algorithms whose steps move byte ranges of varying size (halving-doubling segments,
 * hierarchical sub-blocks), chunks are cut on a global grid: a range [lo, hi) of the channel's
 * data is sent as the pieces [lo, hi) ∩ [j·chunk, (j+1)·chunk). Every receive is recorded at the
 * receiver; a send's chunk depends on every earlier receive of the sender that overlaps it. That
 * is exact data flow: it includes the contribution received (reduce-scatter) or the value
 * received (all-gather) for those bytes, and any older, overwritten receive it adds is already an
 * ancestor of the newer one, so it never delays anything. With the grid, a chunk overlaps one
 * chunk per earlier record (ranges nest), so dependencies stay about one per transfer and round.
 */
typedef struct rng_rec { uint64_t lo, hi; uint32_t first, n; } rng_rec;
typedef struct rng_list { rng_rec *v; uint32_t n, cap; } rng_list;
typedef struct engine {
    builder *b;
    uint64_t chunk;
    uint32_t channel;
    rng_list *recs;                     /* [n ranks] */
    rng_rec *pend;                      /* records of the current step, committed together */
    uint32_t *pend_dst, npend, cap_pend;
    uint32_t *dbuf;
    uint32_t dcap;
} engine;

static void eng_init(engine *g, builder *b, uint32_t n, uint64_t chunk)
{
    memset(g, 0, sizeof *g);
    g->b = b;
    g->chunk = chunk;
    g->recs = xcalloc(n, sizeof(rng_list), "collective plan: receive records");
}

static void eng_reset(engine *g, uint32_t n, uint32_t channel)
{
    for (uint32_t r = 0; r < n; r++)
        g->recs[r].n = 0;
    g->npend = 0;
    g->channel = channel;
}

static void eng_free(engine *g, uint32_t n)
{
    for (uint32_t r = 0; r < n; r++)
        xfree(g->recs[r].v);
    xfree(g->recs);
    xfree(g->pend);
    xfree(g->pend_dst);
    xfree(g->dbuf);
}

static void eng_send(engine *g, uint32_t src, uint32_t dst, uint64_t lo, uint64_t hi,
                     uint32_t step, uint32_t red)
{
    if (lo >= hi)
        return;
    uint64_t ch = g->chunk;
    uint32_t first = (uint32_t)g->b->nx, cnt = 0;
    const rng_list *L = &g->recs[src];
    for (uint64_t a = lo; a < hi;) {
        uint64_t e = (a / ch + 1) * ch;
        if (e > hi)
            e = hi;
        uint32_t nd = 0;
        for (uint32_t i = 0; i < L->n; i++) {
            const rng_rec *rc = &L->v[i];
            uint64_t x = a > rc->lo ? a : rc->lo, y = e < rc->hi ? e : rc->hi;
            if (x >= y)
                continue;
            uint64_t j0 = x / ch - rc->lo / ch, j1 = (y - 1) / ch - rc->lo / ch;
            for (uint64_t j = j0; j <= j1; j++) {
                if (nd == g->dcap) {
                    g->dcap = g->dcap ? 2 * g->dcap : 64;
                    g->dbuf = xrealloc(g->dbuf, sizeof(uint32_t) * g->dcap,
                                       "collective plan: dependency buffer");
                }
                g->dbuf[nd++] = rc->first + (uint32_t)j;
            }
        }
        uint32_t fd = nd ? b_deps(g->b, g->dbuf, nd) : 0;
        b_xfer(g->b, src, dst, e - a, g->channel, step, red, fd, nd);
        cnt++;
        a = e;
    }
    if (g->npend == g->cap_pend) {
        g->cap_pend = g->cap_pend ? 2 * g->cap_pend : 64;
        g->pend = xrealloc(g->pend, sizeof(rng_rec) * g->cap_pend, "collective plan: records");
        g->pend_dst = xrealloc(g->pend_dst, sizeof(uint32_t) * g->cap_pend,
                               "collective plan: records");
    }
    g->pend[g->npend] = (rng_rec){lo, hi, first, cnt};
    g->pend_dst[g->npend++] = dst;
}

/* End of a step: this step's receives become visible to later sends. */
static void eng_commit(engine *g)
{
    for (uint32_t i = 0; i < g->npend; i++) {
        rng_list *L = &g->recs[g->pend_dst[i]];
        if (L->n == L->cap) {
            L->cap = L->cap ? 2 * L->cap : 8;
            L->v = xrealloc(L->v, sizeof(rng_rec) * L->cap, "collective plan: records");
        }
        L->v[L->n++] = g->pend[i];
    }
    g->npend = 0;
}

/*
 * Non-powers of two (MPICH allreduce_intra_recursive_doubling and
 * allreduce_intra_reduce_scatter_allgather; Thakur, Rabenseifner & Gropp, IJHPCA 2005 §4):
 * p2 = the largest power of two ≤ n, rem = n − p2. In a first step each even rank r < 2·rem
 * sends its whole buffer to r + 1, which folds it in, and then sits the algorithm out; the odd
 * ones take part as virtual rank r / 2, ranks r ≥ 2·rem as r − rem. After the power-of-two core
 * among the p2 virtual ranks, each odd r < 2·rem sends the result to r − 1. Two extra steps and
 * 2·rem·D extra bytes; rem = 0 is the plain algorithm.
 */
typedef struct hd_fold {
    uint32_t p2, rem;
    uint32_t *real;  /* [p2] virtual rank -> rank */
    uint32_t *extra; /* [p2] 1 when the virtual rank folded a partner in */
} hd_fold;

static void fold_init(hd_fold *f, uint32_t n)
{
    f->p2 = 1;
    while (f->p2 * 2 <= n)
        f->p2 *= 2;
    f->rem = n - f->p2;
    f->real = xcalloc(f->p2, sizeof(uint32_t), "collective plan: virtual ranks");
    f->extra = xcalloc(f->p2, sizeof(uint32_t), "collective plan: virtual ranks");
    for (uint32_t v = 0; v < f->p2; v++) {
        f->real[v] = v < f->rem ? 2 * v + 1 : v + f->rem;
        f->extra[v] = v < f->rem;
    }
}

static void fold_free(hd_fold *f)
{
    xfree(f->real);
    xfree(f->extra);
}

/* The fold's first step (step 0): even ranks < 2·rem send [0, D) to their odd neighbour. */
static void fold_in(engine *g, const hd_fold *f, uint64_t D)
{
    for (uint32_t k = 0; k < f->rem; k++)
        eng_send(g, 2 * k, 2 * k + 1, 0, D, 0, 0);
    eng_commit(g);
}

/* The fold's last step: odd ranks < 2·rem send the result to their even neighbour; `red` = the
 * received buffer still to fold in before sending (recursive doubling's last round). */
static void fold_out(engine *g, const hd_fold *f, uint64_t D, uint32_t step, uint32_t red)
{
    for (uint32_t k = 0; k < f->rem; k++)
        eng_send(g, 2 * k + 1, 2 * k, 0, D, step, red);
    eng_commit(g);
}

/*
 * Halving-doubling (Rabenseifner) on channel data [0, D) among the fold's p2 = 2^L virtual
 * ranks (rank v is f->real[v]). Reduce-scatter round i (mask p2/2^(i+1)): virtual rank v
 * exchanges with v ^ mask, keeps the lower half of its segment when (v & mask) == 0, sends the
 * other half; after L rounds v owns segment v. All-gather round j (mask 2^j) exchanges whole
 * segments, doubling them. A round-i send folds in the i contributions received so far over
 * those bytes, plus the folded partner's (reduce_inputs = i + extra); the first all-gather send
 * carries L + extra. Steps: s0 + i for reduce-scatter, s0 + L + j for all-gather (s0 = 1 after
 * a fold step, else 0).
 */
static void build_hd_channel(engine *g, const hd_fold *f, uint64_t D, bool rs, bool ag, uint32_t s0,
                             uint64_t *lo, uint64_t *hi)
{
    uint32_t n = f->p2, L = 0;
    const uint32_t *R = f->real;
    while ((1u << L) < n)
        L++;
    for (uint32_t r = 0; r < n; r++) {
        lo[r] = 0;
        hi[r] = D;
    }
    for (uint32_t i = 0; i < L; i++) {
        uint32_t mask = n >> (i + 1);
        for (uint32_t r = 0; r < n; r++) {
            uint64_t mid = lo[r] + (hi[r] - lo[r]) / 2;
            bool keep_low = (r & mask) == 0;
            if (rs)
                eng_send(g, R[r], R[r ^ mask], keep_low ? mid : lo[r], keep_low ? hi[r] : mid,
                         s0 + i, i + f->extra[r]);
            if (keep_low)
                hi[r] = mid;
            else
                lo[r] = mid;
        }
        if (rs)
            eng_commit(g);
    }
    if (!ag)
        return;
    uint32_t base = s0 + (rs ? L : 0);
    for (uint32_t j = 0; j < L; j++) {
        uint32_t mask = 1u << j;
        for (uint32_t r = 0; r < n; r++)
            eng_send(g, R[r], R[r ^ mask], lo[r], hi[r], base + j,
                     (rs && j == 0) ? L + f->extra[r] : 0);
        eng_commit(g);
        /* segments double: the pair's union */
        for (uint32_t r = 0; r < n; r++) {
            uint32_t q = r ^ mask;
            if (q > r) {
                uint64_t l = lo[r] < lo[q] ? lo[r] : lo[q], h = hi[r] > hi[q] ? hi[r] : hi[q];
                lo[r] = lo[q] = l;
                hi[r] = hi[q] = h;
            }
        }
    }
}

static void build_hd(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels;
    engine g;
    eng_init(&g, b, n, chunk);
    hd_fold f;
    fold_init(&f, n); /* reduce_scatter / all_gather: n is a power of two (checked) */
    uint64_t *lo = xcalloc(n, sizeof(uint64_t), "collective plan: segments");
    uint64_t *hi = xcalloc(n, sizeof(uint64_t), "collective plan: segments");
    uint32_t L = 0;
    while ((1u << L) < f.p2)
        L++;
    for (uint32_t c = 0; c < C; c++) {
        eng_reset(&g, n, c);
        uint64_t D = split_len(p->size_bytes, C, c);
        if (f.rem)
            fold_in(&g, &f, D);
        build_hd_channel(&g, &f, D, p->op != OP_ALL_GATHER, p->op != OP_REDUCE_SCATTER,
                         f.rem ? 1 : 0, lo, hi);
        if (f.rem)
            fold_out(&g, &f, D, 2 * L + 1, 0);
    }
    fold_free(&f);
    xfree(lo);
    xfree(hi);
    eng_free(&g, n);
}

/*
 * Recursive doubling (MPICH allreduce_intra_recursive_doubling): in round i (mask 2^i) every
 * virtual rank sends its whole buffer to v ^ mask and folds in what it receives: log2 p2 rounds
 * of D bytes per rank — fewer steps than halving-doubling (latency-bound small messages) at
 * log2(p2)·D bytes per rank instead of 2(p2 − 1)/p2·D. A round-i send carries the reduction of
 * the previous round's receive (reduce_inputs 1 for i ≥ 1; the first adds the fold). With the
 * fold for non-powers of two. all_gather (MPICH allgather_intra_recursive_doubling) is the
 * doubling half of halving-doubling: power-of-two counts.
 */
static void build_rd(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels;
    engine g;
    eng_init(&g, b, n, chunk);
    hd_fold f;
    fold_init(&f, n);
    uint32_t L = 0;
    while ((1u << L) < f.p2)
        L++;
    uint64_t *lo = xcalloc(n, sizeof(uint64_t), "collective plan: segments");
    uint64_t *hi = xcalloc(n, sizeof(uint64_t), "collective plan: segments");
    for (uint32_t c = 0; c < C; c++) {
        eng_reset(&g, n, c);
        uint64_t D = split_len(p->size_bytes, C, c);
        if (p->op == OP_ALL_GATHER) {
            build_hd_channel(&g, &f, D, false, true, 0, lo, hi);
            continue;
        }
        uint32_t s0 = f.rem ? 1 : 0;
        if (f.rem)
            fold_in(&g, &f, D);
        for (uint32_t i = 0; i < L; i++) {
            for (uint32_t v = 0; v < f.p2; v++)
                eng_send(&g, f.real[v], f.real[v ^ (1u << i)], 0, D, s0 + i,
                         (i >= 1) + (i == 0 ? f.extra[v] : 0));
            eng_commit(&g);
        }
        if (f.rem)
            fold_out(&g, &f, D, s0 + L, L >= 1);
    }
    xfree(lo);
    xfree(hi);
    fold_free(&f);
    eng_free(&g, n);
}

/*
 * Binomial tree rooted at rank 0 (MPICH bcast_intra_binomial / reduce_intra_binomial; Open MPI
 * coll/tuned's binomial with segments): relative rank v's parent is v minus its lowest set bit,
 * its children v + m for the powers of two m below that bit (all m < n for the root), the
 * largest subtree first. broadcast: a rank forwards to its children what it received; reduce:
 * a rank sends to its parent once it has folded in every child's contribution
 * (reduce_inputs = children). Whole buffer per edge, ⌈log2 n⌉ steps: the send of mask m is step
 * ⌈log2 n⌉ − 1 − log2 m (broadcast) and log2 m (reduce). Segmented by chunk: chunk k moves on
 * as soon as it has arrived (the engine's data flow); a rank posts its children's sends at once.
 */
static void binomial_channel(engine *g, uint32_t n, uint64_t D, bool to_root)
{
    uint32_t L = 0;
    while ((1u << L) < n)
        L++;
    if (!to_root) {
        for (uint32_t lvl = 0; lvl < L; lvl++) { /* mask n_2/2, ..., 1 */
            uint32_t m = 1u << (L - 1 - lvl);
            for (uint32_t v = 0; v < n; v++)
                if ((v & (2 * m - 1)) == 0 && v + m < n)
                    eng_send(g, v, v + m, 0, D, lvl, 0);
            eng_commit(g);
        }
        return;
    }
    for (uint32_t lvl = 0; lvl < L; lvl++) { /* mask 1, 2, ...: leaves first */
        uint32_t m = 1u << lvl;
        for (uint32_t v = 0; v < n; v++)
            if ((v & (2 * m - 1)) == m) {
                uint32_t kids = 0; /* children v + k, k < m */
                for (uint32_t k = 1; k < m; k <<= 1)
                    kids += v + k < n;
                eng_send(g, v, v - m, 0, D, lvl, kids);
            }
        eng_commit(g);
    }
}

/*
 * Scatter + all_gather broadcast (MPICH bcast_intra_scatter_ring_allgather; van de Geijn,
 * Barnett et al. 1994): the root's buffer is cut into n blocks; a binomial scatter hands each
 * rank its block (rank v receives the blocks of its subtree [v, v + m) from its parent and
 * passes [v + m', …) on to each child v + m'), then a ring all_gather (rank order) completes
 * every rank: ⌈log2 n⌉ + n − 1 steps, (n − 1)/n·D sent by the root in the scatter and
 * (n − 1)/n·D by every rank in the ring — for large messages about 2D against the binomial
 * root's ⌈log2 n⌉·D.
 */
static void scatter_ag_channel(engine *g, uint32_t n, uint64_t D)
{
    uint32_t L = 0;
    while ((1u << L) < n)
        L++;
    for (uint32_t lvl = 0; lvl < L; lvl++) {
        uint32_t m = 1u << (L - 1 - lvl);
        for (uint32_t v = 0; v < n; v++)
            if ((v & (2 * m - 1)) == 0 && v + m < n) {
                uint32_t e = v + 2 * m < n ? v + 2 * m : n;
                eng_send(g, v, v + m, split_off(D, n, v + m), split_off(D, n, e), lvl, 0);
            }
        eng_commit(g);
    }
    for (uint32_t s = 0; s + 1 < n; s++) {
        for (uint32_t v = 0; v < n; v++) {
            uint32_t blk = (v + n - s) % n;
            eng_send(g, v, (v + 1) % n, split_off(D, n, blk), split_off(D, n, blk + 1), L + s, 0);
        }
        eng_commit(g);
    }
}

static void build_tree_mpi(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels;
    engine g;
    eng_init(&g, b, n, chunk);
    for (uint32_t c = 0; c < C; c++) {
        eng_reset(&g, n, c);
        uint64_t D = split_len(p->size_bytes, C, c);
        if (p->algo == ALGO_SCATTER_ALLGATHER)
            scatter_ag_channel(&g, n, D);
        else
            binomial_channel(&g, n, D, p->op == OP_REDUCE);
    }
    eng_free(&g, n);
}

/* The G − 1 steps of a ring inside every server over D bytes in G blocks, from *step on: a
 * reduce-scatter (rs; each step after the first reduces what it receives) or an all-gather (its
 * first step reduces only when ag_reduce_first). */
static void intra_ring(engine *eg, const topo_info *t, uint64_t D, bool rs, bool ag_reduce_first,
                       uint32_t *step)
{
    uint32_t G = srv_size(t, 0), M = t->M;
    for (uint32_t s = 0; s + 1 < G; s++, (*step)++) {
        for (uint32_t m = 0; m < M; m++)
            for (uint32_t l = 0; l < G; l++) {
                uint32_t blk = rs ? (l + 2 * G - s - 1) % G : (l + G - s) % G;
                uint32_t src = t->srv_ranks[t->srv_first[m] + l];
                uint32_t dst = t->srv_ranks[t->srv_first[m] + (l + 1) % G];
                eng_send(eg, src, dst, split_off(D, G, blk), split_off(D, G, blk + 1), *step,
                         rs ? s >= 1 : s == 0 && ag_reduce_first);
            }
        eng_commit(eg);
    }
}

/*
 * Hierarchical (rail-aware) all_reduce on channel data [0, D), g GPUs on each of M servers:
 *  1. intra-server ring reduce-scatter over the g local ranks (g − 1 steps): local rank l ends
 *     with block l (D/g) reduced over its server;
 *  2. per rail l, a ring all_reduce of block l across the M servers (2(M − 1) steps of D/(gM));
 *  3. intra-server ring all-gather (g − 1 steps).
 * Each rank's network traffic is 2(M − 1)/M · D/g; the plan's inter-server total is 2(M − 1)·D.
 * Reductions are charged where the folded data is first sent on (the end of phase 1 on the
 * first phase-2 sends of each sub-block, or on the first phase-3 send when M = 1).
 */
static void build_hier(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels, M = t->M, G = srv_size(t, 0);
    engine eg;
    eng_init(&eg, b, n, chunk);
    for (uint32_t c = 0; c < C; c++) {
        eng_reset(&eg, n, c);
        uint64_t D = split_len(p->size_bytes, C, c);
        if (D == 0)
            continue;
        uint32_t step = 0;
        /* phase 1: intra-server reduce-scatter */
        intra_ring(&eg, t, D, true, false, &step);
        /* phase 2: per-rail ring all_reduce across servers of block l */
        uint32_t p1 = G > 1;
        for (uint32_t s = 0; M > 1 && s < 2 * (M - 1); s++, step++) {
            bool in_rs = s < M - 1;
            uint32_t ta = s - (M - 1);
            for (uint32_t l = 0; l < G; l++) {
                uint64_t bl = split_off(D, G, l), bh = split_off(D, G, l + 1);
                for (uint32_t m = 0; m < M; m++) {
                    uint32_t sub = in_rs ? (m + 2 * M - s - 1) % M : (m + 2 * M - ta) % M;
                    uint32_t red = in_rs ? (s >= 1) + p1 : (ta == 0 ? 1 + p1 : 0);
                    uint32_t src = t->srv_ranks[t->srv_first[m] + l];
                    uint32_t dst = t->srv_ranks[t->srv_first[(m + 1) % M] + l];
                    eng_send(&eg, src, dst, bl + split_off(bh - bl, M, sub),
                             bl + split_off(bh - bl, M, sub + 1), step, red);
                }
            }
            eng_commit(&eg);
        }
        /* phase 3: intra-server all-gather */
        intra_ring(&eg, t, D, false, M == 1, &step);
    }
    eng_free(&eg, n);
}

/* ---- direct ------------------------------------------------------------------------------ */

/*
 * Send `bytes` from src to dst in ⌈bytes / chunk⌉ near-equal chunks spread round-robin over the
 * channels (NCCL spreads a peer's p2p traffic over its p2p channels). With `pxn`, a cross-server
 * send whose endpoints are on different rails first goes over the scale-up domain to the
 * sender-server GPU on the receiver's rail, then over that rail (NCCL PXN): two dependent
 * transfers per chunk, steps 0 and 1. `out` (optional) receives the indices of the final hops.
 */
static uint32_t direct_send(builder *b, const topo_info *t, uint32_t src, uint32_t dst,
                            uint64_t bytes, uint64_t chunk, uint32_t C, bool pxn, uint32_t step,
                            uint32_t red, uint32_t fd, uint32_t nd, uint32_t *out)
{
    uint64_t K = ceil_div(bytes, chunk);
    uint32_t proxy = UINT32_MAX;
    if (pxn && t->server[src] != t->server[dst] && t->local[src] != t->local[dst] &&
        t->local[dst] < srv_size(t, t->server[src]))
        proxy = t->srv_ranks[t->srv_first[t->server[src]] + t->local[dst]];
    for (uint64_t k = 0; k < K; k++) {
        uint64_t cb = split_len(bytes, K, k);
        uint32_t ch = (uint32_t)(k % C), idx;
        if (proxy != UINT32_MAX) {
            uint32_t h = b_xfer(b, src, proxy, cb, ch, step, red, fd, nd);
            uint32_t hd = b_deps(b, &h, 1);
            idx = b_xfer(b, proxy, dst, cb, ch, step + 1, 0, hd, 1);
        } else {
            idx = b_xfer(b, src, dst, cb, ch, step, red, fd, nd);
        }
        if (out)
            out[k] = idx;
    }
    return (uint32_t)K;
}

/*
 * Direct algorithms. all_to_all: rank r sends its slice j (S/n) to every peer j ≠ r (its own
 * slice is a local copy), peers in the order r+1, r+2, … as NCCL's p2p schedule posts them.
 * all_gather: r sends its block (S/n) to every peer. reduce_scatter: r sends block j to j (the
 * owner's reduction has no send to carry it and is not charged). all_reduce: direct
 * reduce_scatter, then the owner of block j sends it, reduced (n − 1 inputs), to every peer;
 * chunk k of that send depends on chunk k of block j from every peer. broadcast: root 0 sends S
 * to every rank; reduce: every rank sends S to root 0.
 */
/* Bytes of an all_to_all send buffer S for peer j: S/n each, or with routing skew the share
 * (j + 1)^−skew / Σ (k + 1)^−skew, cut at floor(S × cumulative share) so the parts add up to S. */
static uint64_t a2a_len(uint64_t S, uint32_t n, uint32_t j, double skew)
{
    if (skew <= 0)
        return split_len(S, n, j);
    double W = 0, lo = 0;
    for (uint32_t k = 0; k < n; k++) {
        double w = pow((double)k + 1, -skew);
        W += w;
        if (k < j)
            lo += w;
    }
    double hi = lo + pow((double)j + 1, -skew);
    uint64_t a = (uint64_t)floor((double)S * lo / W);
    uint64_t z = j + 1 == n ? S : (uint64_t)floor((double)S * hi / W);
    return z > a ? z - a : 0;
}

static void build_direct(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels;
    uint64_t S = p->size_bytes;
    bool pxn = p->pxn;
    switch (p->op) {
    case OP_ALL_TO_ALL:
    case OP_ALL_GATHER:
    case OP_REDUCE_SCATTER:
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t d = 1; d < n; d++) {
                uint32_t j = (r + d) % n;
                uint64_t bytes = p->op == OP_ALL_TO_ALL
                                     ? a2a_len(S, n, j, p->a2a_skew)
                                     : split_len(S, n, p->op == OP_ALL_GATHER ? r : j);
                if (bytes)
                    direct_send(b, t, r, j, bytes, chunk, C, pxn, 0, 0, 0, 0, NULL);
            }
        break;
    case OP_ALL_REDUCE: {
        uint64_t Kmax = ceil_div(split_len(S, n, 0), chunk);
        uint32_t *rsx = xcalloc((size_t)(n * (Kmax ? Kmax : 1)), sizeof(uint32_t),
                                "collective plan: direct all_reduce");
        uint32_t *tmp = xcalloc((size_t)(Kmax ? Kmax : 1), sizeof(uint32_t),
                                "collective plan: direct all_reduce");
        uint32_t *fd = xcalloc((size_t)(n * (Kmax ? Kmax : 1)), sizeof(uint32_t),
                               "collective plan: direct all_reduce");
        for (uint32_t j = 0; j < n; j++) {
            uint64_t bytes = split_len(S, n, j), K = ceil_div(bytes, chunk);
            if (!bytes)
                continue;
            /* rsx[k * n + i]: chunk k of block j from the i-th peer */
            uint32_t np = 0;
            for (uint32_t d = 1; d < n; d++) {
                uint32_t r = (j + n - d) % n;
                direct_send(b, t, r, j, bytes, chunk, C, false, 0, 0, 0, 0, tmp);
                for (uint64_t k = 0; k < K; k++)
                    rsx[k * n + np] = tmp[k];
                np++;
            }
            for (uint64_t k = 0; k < K; k++)
                fd[k] = b_deps(b, &rsx[k * n], np);
            for (uint32_t d = 1; d < n; d++) {
                uint32_t r = (j + d) % n;
                for (uint64_t k = 0; k < K; k++) {
                    uint64_t cb = split_len(bytes, K, k);
                    b_xfer(b, j, r, cb, (uint32_t)(k % C), 1, n - 1, fd[k], np);
                }
            }
        }
        xfree(rsx);
        xfree(tmp);
        xfree(fd);
        break;
    }
    case OP_BROADCAST:
    case OP_REDUCE:
        for (uint32_t r = 1; r < n && S; r++) {
            if (p->op == OP_BROADCAST)
                direct_send(b, t, 0, r, S, chunk, C, false, 0, 0, 0, 0, NULL);
            else
                direct_send(b, t, r, 0, S, chunk, C, false, 0, 0, 0, 0, NULL);
        }
        break;
    }
}

/* ---- entry points ------------------------------------------------------------------------ */

static const char *algo_ops(enum coll_algo a)
{
    switch (a) {
    case ALGO_RING: return "all_reduce, reduce_scatter, all_gather, broadcast, reduce";
    case ALGO_TREE: return "all_reduce, broadcast, reduce";
    case ALGO_HALVING_DOUBLING: return "all_reduce, reduce_scatter, all_gather";
    case ALGO_DIRECT: return "all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce";
    case ALGO_HIERARCHICAL: return "all_reduce";
    case ALGO_RECURSIVE_DOUBLING:
        return "all_reduce, all_gather";
    case ALGO_BINOMIAL:
        return "broadcast, reduce";
    case ALGO_SCATTER_ALLGATHER:
        return "broadcast";
    case ALGO_NVLS:
        return "all_reduce, reduce_scatter, all_gather";
    case ALGO_SHARP:
    case ALGO_NVLS_TREE:
        return "all_reduce";
    }
    return "";
}

static bool algo_supports(enum coll_algo a, enum coll_op op)
{
    switch (a) {
    case ALGO_RING: return op != OP_ALL_TO_ALL;
    case ALGO_TREE: return op == OP_ALL_REDUCE || op == OP_BROADCAST || op == OP_REDUCE;
    case ALGO_HALVING_DOUBLING:
        return op == OP_ALL_REDUCE || op == OP_REDUCE_SCATTER || op == OP_ALL_GATHER;
    case ALGO_DIRECT: return true;
    case ALGO_HIERARCHICAL: return op == OP_ALL_REDUCE;
    case ALGO_RECURSIVE_DOUBLING:
        return op == OP_ALL_REDUCE || op == OP_ALL_GATHER;
    case ALGO_BINOMIAL:
        return op == OP_BROADCAST || op == OP_REDUCE;
    case ALGO_SCATTER_ALLGATHER:
        return op == OP_BROADCAST;
    case ALGO_NVLS:
        return op == OP_ALL_REDUCE || op == OP_REDUCE_SCATTER || op == OP_ALL_GATHER;
    case ALGO_SHARP:
    case ALGO_NVLS_TREE:
        return op == OP_ALL_REDUCE;
    }
    return false;
}

/*
 * nvls (collective.h): rounds k = 0, 1, ... over the chunks of every slice. Per slice r and
 * chunk k: n reads g → SW (the switch's multimem.ld_reduce fetch; each waits for r's reduced
 * chunk k − NVLS_WINDOW, the load window), the reduced chunk SW → r (after all n reads), the
 * multicast store r → SW, and its copies SW → g. Steps: 0 read, 1 reduced, 2 store, 3 copy.
 */
static void build_nvls(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, SW = n;
    uint64_t S = p->size_bytes, m = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint64_t c = ceil_div(split_len(S, n, r), chunk);
        m = c > m ? c : m;
    }
    /* red[k % (W + 1)][r]: the reduced-return transfer of slice r in round k */
    uint32_t *red = xmalloc(sizeof(uint32_t) * (NVLS_WINDOW + 1) * n, "nvls rounds");
    uint32_t *up = xmalloc(sizeof(uint32_t) * n, "nvls reads");
    for (uint64_t k = 0; k < m; k++) {
        for (uint32_t r = 0; r < n; r++) {
            uint64_t len = split_len(S, n, r), parts = ceil_div(len, chunk);
            if (k >= parts)
                continue;
            uint64_t bytes = split_len(len, parts, k);
            uint32_t wait = 0, nw = 0;
            if (k >= NVLS_WINDOW) {
                wait = red[((k - NVLS_WINDOW) % (NVLS_WINDOW + 1)) * n + r];
                nw = 1;
            }
            if (p->op == OP_ALL_GATHER) {
                /* r's own block: one multicast store, its copies to the others */
                uint32_t st = b_xfer(b, r, SW, bytes, 0, 2, 0, 0, 0);
                uint32_t fs = b_deps(b, &st, 1);
                for (uint32_t g = 0; g < n; g++)
                    if (g != r)
                        b_xfer(b, SW, g, bytes, 0, 3, 0, fs, 1);
                continue;
            }
            uint32_t fw = b_deps(b, &wait, nw);
            for (uint32_t g = 0; g < n; g++)
                up[g] = b_xfer(b, g, SW, bytes, 0, 0, 0, fw, nw);
            uint32_t rd = b_xfer(b, SW, r, bytes, 0, 1, 0, b_deps(b, up, n), n);
            red[(k % (NVLS_WINDOW + 1)) * n + r] = rd;
            if (p->op == OP_REDUCE_SCATTER)
                continue; /* r keeps its reduced block */
            uint32_t st = b_xfer(b, r, SW, bytes, 0, 2, 0, b_deps(b, &rd, 1), 1);
            uint32_t fs = b_deps(b, &st, 1);
            for (uint32_t g = 0; g < n; g++)
                b_xfer(b, SW, g, bytes, 0, 3, 0, fs, 1);
        }
    }
    xfree(red);
    xfree(up);
}

/* ---- compact ring ------------------------------------------------------------------------ */

/*
 * A ring plan described instead of listed. All_reduce / reduce_scatter / all_gather as
 * ring_blocks emits them: channel c's transfers are indices base[c] + (s·n + p)·K[c] + k for
 * step s, ring position p and chunk k. Broadcast / reduce as ring_chain emits them: one hop per
 * step (P = 1 position), base[c] + s·K[c] + k. Either way exactly the emission order, so a
 * compact plan and a stored one number every transfer alike and an executor runs them
 * identically. Valid when no chunk is empty (every block of every channel holds at least K[c]
 * bytes), which ring_compact checks; otherwise the plan is stored.
 */
/* Channel c's constants, so that decoding a transfer index divides by nothing at run time
 * (a flow-level run decodes several per message): its chunk count K as an exact reciprocal
 * (core/fastdiv.h), and the chunk sizes. Blocks: block b holds D / n + (b < br) bytes, and chunk
 * k of a block of D / n + j bytes holds cq[j] + (k < cr[j]) (split_len twice, precomputed for the
 * two block sizes). A chain: chunk k of the channel's D bytes holds cq[0] + (k < cr[0]). */
typedef struct ring_ch {
    fastdiv K;
    uint32_t br;
    uint32_t cq[2], cr[2];
} ring_ch;

typedef struct coll_ring {
    uint32_t C, n, nsteps;
    uint32_t P;     /* positions sending per step: n (blocks) or 1 (a chain's hop) */
    fastdiv Pd;     /* P as a reciprocal */
    bool rs;        /* blocks: the first n − 1 steps reduce-scatter */
    bool to_root;   /* chain: reduce (towards root 0) rather than broadcast */
    uint64_t *base; /* [C + 1] first transfer of each channel */
    uint64_t *D;    /* [C] channel bytes */
    uint64_t *K;    /* [C] chunks per block (chain: per channel buffer) */
    ring_ch *ch;    /* [C] the decoding constants */
    uint32_t *R;    /* [C × n] ring order of each channel (chain: rotated to start at rank 0) */
} coll_ring;

/* The compact description of *p's ring plan in `a`, or NULL when it has empty chunks. */
static coll_ring *ring_compact(const coll_params *p, const topo_info *t, uint64_t chunk, arena *a)
{
    uint32_t n = t->n, C = p->channels ? p->channels : 1;
    if (p->algo != ALGO_RING || n < 2)
        return NULL;
    bool chain = p->op == OP_BROADCAST || p->op == OP_REDUCE;
    if (!chain && !(p->op == OP_ALL_REDUCE || p->op == OP_REDUCE_SCATTER || p->op == OP_ALL_GATHER))
        return NULL;
    bool rs = p->op == OP_ALL_REDUCE || p->op == OP_REDUCE_SCATTER;
    bool ag = p->op == OP_ALL_REDUCE || p->op == OP_ALL_GATHER;
    uint32_t nsteps = chain ? n - 1 : (rs ? n - 1 : 0) + (ag ? n - 1 : 0), P = chain ? 1 : n;
    uint64_t total = 0;
    for (uint32_t c = 0; c < C; c++) {
        uint64_t D = split_len(p->size_bytes, C, c);
        uint64_t K = ceil_div(chain ? D : split_len(D, n, 0), chunk);
        if (D == 0 || (!chain && D / n < K))
            return NULL; /* an empty block or chunk: the builders skip it */
        total += (uint64_t)nsteps * P * K;
        if (total >= UINT32_MAX)
            return NULL; /* the stored build refuses it with its message */
    }
    coll_ring *g = ARENA_NEW(a, coll_ring);
    g->C = C;
    g->n = n;
    g->nsteps = nsteps;
    g->P = P;
    g->rs = rs;
    g->to_root = p->op == OP_REDUCE;
    g->base = ARENA_NEW_ARRAY(a, uint64_t, (size_t)C + 1);
    g->D = ARENA_NEW_ARRAY(a, uint64_t, C);
    g->K = ARENA_NEW_ARRAY(a, uint64_t, C);
    g->ch = ARENA_NEW_ARRAY(a, ring_ch, C);
    g->R = ARENA_NEW_ARRAY(a, uint32_t, (size_t)C * n);
    g->Pd = fastdiv_make(P);
    uint32_t *R = xcalloc(n, sizeof(uint32_t), "collective plan: ring order");
    g->base[0] = 0;
    for (uint32_t c = 0; c < C; c++) {
        g->D[c] = split_len(p->size_bytes, C, c);
        g->K[c] = ceil_div(chain ? g->D[c] : split_len(g->D[c], n, 0), chunk);
        g->base[c + 1] = g->base[c] + (uint64_t)nsteps * P * g->K[c];
        ring_ch *h = &g->ch[c];
        uint64_t K = g->K[c];
        h->K = fastdiv_make((uint32_t)K); /* K ≤ the transfer count < 2^32 */
        for (uint32_t j = 0; j < 2; j++) {
            /* blocks: one of D / n + j bytes; a chain: the whole channel (j = 0) */
            uint64_t bb = chain ? g->D[c] : g->D[c] / n + j;
            h->cq[j] = (uint32_t)(bb / K); /* ≤ the chunk size */
            h->cr[j] = (uint32_t)(bb % K);
        }
        h->br = chain ? 0 : (uint32_t)(g->D[c] % n);
        ring_order(t, c, R);
        uint32_t p0 = 0;
        while (chain && R[p0] != 0)
            p0++;
        for (uint32_t q = 0; q < n; q++)
            g->R[(size_t)c * n + q] = R[(p0 + q) % n];
    }
    xfree(R);
    return g;
}

/* Channel of transfer i: the last c with base[c] ≤ i. */
static uint32_t ring_channel(const coll_ring *g, uint64_t i)
{
    uint32_t lo = 0, hi = g->C; /* (one channel: no search) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->base[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Position of transfer i: channel c, step s, ring position p (0 for a chain), chunk k — with
 * the channel's reciprocals, no division. */
static inline void ring_pos(const coll_ring *g, uint32_t i, uint32_t *c, uint32_t *s, uint32_t *p,
                            uint32_t *k)
{
    *c = ring_channel(g, i);
    const ring_ch *h = &g->ch[*c];
    uint32_t rem = (uint32_t)(i - g->base[*c]);
    uint32_t q = fastdiv_div(h->K, rem);
    *k = rem - q * h->K.d;
    *s = fastdiv_div(g->Pd, q);
    *p = q - *s * g->P;
}

/* Index of (c, s, p, k). */
static uint32_t ring_index(const coll_ring *g, uint32_t c, uint32_t s, uint32_t p, uint64_t k)
{
    return (uint32_t)(g->base[c] + ((uint64_t)s * g->P + p) * g->K[c] + k);
}

/* The connection of the transfer at (c, s, p): blocks use every (channel, position) from step 0
 * on, in this order; a chain gives each hop its own. */
static inline uint32_t ring_conn(const coll_ring *g, uint32_t c, uint32_t s, uint32_t p)
{
    return g->P == 1 ? c * (g->n - 1) + s : c * g->n + p;
}

/* v mod n for v < 3n (ring arithmetic below: a position plus 2n minus a step). */
static inline uint32_t mod3(uint32_t v, uint32_t n)
{
    if (v >= n)
        v -= n;
    if (v >= n)
        v -= n;
    return v;
}

uint32_t coll_ring_xfer(const coll_plan *pl, uint32_t i, coll_xfer *x)
{
    const coll_ring *g = pl->ring;
    uint32_t c, s, p, k, n = g->n;
    ring_pos(g, i, &c, &s, &p, &k);
    const ring_ch *h = &g->ch[c];
    const uint32_t *R = g->R + (size_t)c * n;
    x->channel = (uint16_t)c;
    x->step = s;
    /* the one dependency: the same chunk one step earlier, one position back (a chain: the
     * previous hop) */
    x->n_deps = s > 0;
    x->first_dep = s > 0 ? ring_index(g, c, s - 1, g->P == 1 ? 0 : (p ? p - 1 : n - 1), k) : 0;
    if (g->P == 1) { /* as ring_chain: hop s of the chain from (or to) rank 0 */
        uint32_t qs = g->to_root ? n - 1 - s : s, qd = g->to_root ? n - 2 - s : s + 1;
        x->src = R[qs];
        x->dst = R[qd];
        x->bytes = h->cq[0] + (k < h->cr[0]); /* split_len(D, K, k) */
        x->reduce_inputs = g->to_root && s > 0;
        return ring_conn(g, c, s, p);
    }
    /* as ring_blocks */
    bool in_rs = g->rs && s < n - 1;
    uint32_t t_ag = g->rs ? s - (n - 1) : s;
    uint32_t blk = in_rs ? mod3(p + 2u * n - s - 1, n) : mod3(p + 2u * n - t_ag, n);
    uint32_t j = blk < h->br; /* the block holds D / n + j bytes (split_len(D, n, blk)) */
    x->src = R[p];
    x->dst = R[p + 1 < n ? p + 1 : 0];
    x->bytes = h->cq[j] + (k < h->cr[j]); /* split_len(block, K, k) */
    x->reduce_inputs = in_rs ? (s >= 1) : (g->rs && t_ag == 0);
    return ring_conn(g, c, s, p);
}

uint32_t coll_ring_conn(const coll_plan *pl, uint32_t i)
{
    const coll_ring *g = pl->ring;
    uint32_t c, s, p, k;
    ring_pos(g, i, &c, &s, &p, &k);
    return ring_conn(g, c, s, p);
}

static uint32_t ring_deps_fn(const void *ctx, uint32_t i)
{
    const coll_plan *pl = ctx;
    const coll_ring *g = pl->ring;
    uint32_t c = ring_channel(g, i);
    return i - g->base[c] >= (uint64_t)g->P * g->K[c]; /* every step after the first */
}

static uint32_t ring_succ_fn(const void *ctx, uint32_t i, uint32_t *out)
{
    const coll_plan *pl = ctx;
    const coll_ring *g = pl->ring;
    uint32_t c, s, p, k;
    ring_pos(g, i, &c, &s, &p, &k);
    if (s + 1 >= g->nsteps)
        return 0;
    out[0] = ring_index(g, c, s + 1, g->P == 1 ? 0 : (p + 1 < g->n ? p + 1 : 0), k);
    return 1;
}

/*
 * sharp (collective.h): per channel, the range engine over n + n_an endpoints. Heights: a rank
 * is 0, an AN one more than its highest child. Up: level h = 0, 1, ... sends every endpoint of
 * height h's block to its parent (committed per level, so an AN's chunk depends on all its
 * children's same chunk); down: from the root's level, every endpoint whose parent is at level
 * h gets the block from it. The block of a tree is the slice of its ranks' local index (the
 * whole buffer with one rank per server).
 */
static void build_sharp(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels, G = srv_size(t, 0);
    uint32_t E = n + p->n_an;
    const uint32_t *par = p->an_parent;
    uint32_t *ht = xcalloc(E, sizeof(uint32_t), "sharp heights");
    uint32_t *sl = xcalloc(E, sizeof(uint32_t), "sharp slices");
    uint32_t H = 0;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t cur = r, hc = 0;
        while (par[cur] != UINT32_MAX) {
            uint32_t q = par[cur];
            sl[q] = G > 1 ? t->local[r] : 0;
            if (ht[q] >= hc + 1)
                break;
            ht[q] = ++hc;
            H = hc > H ? hc : H;
            cur = q;
        }
        sl[r] = G > 1 ? t->local[r] : 0;
    }
    engine eg;
    eng_init(&eg, b, E, chunk);
    for (uint32_t c = 0; c < C; c++) {
        eng_reset(&eg, E, c);
        uint64_t D = split_len(p->size_bytes, C, c);
        if (D == 0)
            continue;
        uint32_t step = 0;
        /* intra-server reduce-scatter (as hierarchical) */
        intra_ring(&eg, t, D, true, false, &step);
        /* up the trees: ranks (folding in the last block received), then each AN level */
        for (uint32_t h = 0; h < H; h++, step++) {
            for (uint32_t e = 0; e < E; e++)
                if (ht[e] == h && par[e] != UINT32_MAX)
                    eng_send(&eg, e, par[e], split_off(D, G, sl[e]), split_off(D, G, sl[e] + 1),
                             step, e < n && G > 1);
            eng_commit(&eg);
        }
        /* down: the root's result replicated by every AN to its children */
        for (uint32_t h = H; h >= 1; h--, step++) {
            for (uint32_t e = 0; e < E; e++)
                if (par[e] != UINT32_MAX && ht[par[e]] == h)
                    eng_send(&eg, par[e], e, split_off(D, G, sl[e]), split_off(D, G, sl[e] + 1),
                             step, 0);
            eng_commit(&eg);
        }
        /* intra-server all-gather */
        intra_ring(&eg, t, D, false, false, &step);
    }
    eng_free(&eg, E);
    xfree(ht);
    xfree(sl);
}

/*
 * nvls_tree (collective.h): rounds k over the chunks of every slice (slice l of D split into
 * ⌈len/chunk⌉ near-equal chunks, as nvls). Per round, slice and server m: the G reads q → SW_m
 * (each waits for the owner's reduced chunk k − NVLS_WINDOW, the load window: the NVLink
 * egress is a FIFO, and without it the reads would hold it ahead of every store), the return
 * SW_m → owner; then chunk k on tree k mod 2 of NCCL's double binary tree over the servers:
 * each owner's send to its parent's owner after its own return and its children's sends
 * (servers by height), the result down from the root (servers by depth); each owner's
 * multicast store to SW_m after it has the result; SW_m's copies to every GPU of m.
 */
/* nvls_tree across SHARP trees (p->n_an > 0): the AN endpoints of the plan are n + M + k. */
typedef struct nt_sharp {
    uint32_t n_an, H;
    const uint32_t *par; /* coll_params.an_parent (ANs as n + k) */
    uint32_t *ht;        /* [n_an] */
    uint32_t *ofs, *cnt; /* [n_an + 1], [n_an]: arrivals of this chunk at each AN */
    uint32_t *arr, *dn;  /* [children], [n_an]: the down transfer each AN received */
} nt_sharp;

static void nts_init(nt_sharp *s, const coll_params *p, uint32_t n)
{
    s->n_an = p->n_an;
    s->par = p->an_parent;
    s->ht = xcalloc(4 * (size_t)p->n_an + 1, sizeof(uint32_t), "nvls_tree sharp");
    s->ofs = s->ht + p->n_an;
    s->cnt = s->ofs + p->n_an + 1;
    s->dn = s->cnt + p->n_an;
    s->H = 0;
    for (uint32_t e = 0; e < n + p->n_an; e++)
        if (s->par[e] != UINT32_MAX)
            s->ofs[s->par[e] - n + 1]++;
    for (uint32_t k = 0; k < p->n_an; k++)
        s->ofs[k + 1] += s->ofs[k];
    s->arr = xmalloc(sizeof(uint32_t) * (s->ofs[p->n_an] + 1), "nvls_tree sharp");
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t q = s->par[r], h = 1; q != UINT32_MAX; q = s->par[q], h++) {
            if (s->ht[q - n] >= h)
                break;
            s->ht[q - n] = h;
            s->H = h > s->H ? h : s->H;
        }
}

/* Chunk `bytes` of one slice on its SHARP tree: owner[m] (the slice's owner on server m, whose
 * reduced chunk is the transfer ret[m]) sends it to its leaf AN; each AN level sends up after
 * all its children's; the root's result is replicated down; fin[m] gets the transfer that
 * brings the owner the result. */
static void nts_chunk(builder *b, nt_sharp *s, uint32_t n, uint32_t M, const uint32_t *owner,
                      const uint32_t *ret, uint64_t bytes, uint32_t c, uint32_t *fin)
{
    uint32_t A = n + M; /* AN k is endpoint A + k */
    memset(s->cnt, 0, sizeof(uint32_t) * s->n_an);
    for (uint32_t m = 0; m < M; m++) {
        uint32_t a = s->par[owner[m]] - n;
        s->arr[s->ofs[a] + s->cnt[a]++] =
            b_xfer(b, owner[m], A + a, bytes, c, 2, 0, b_deps(b, &ret[m], 1), 1);
    }
    for (uint32_t h = 1; h <= s->H; h++)
        for (uint32_t a = 0; a < s->n_an; a++) {
            if (s->ht[a] != h || !s->cnt[a] || s->par[n + a] == UINT32_MAX)
                continue;
            uint32_t q = s->par[n + a] - n;
            s->arr[s->ofs[q] + s->cnt[q]++] =
                b_xfer(b, A + a, A + q, bytes, c, 2, 0, b_deps(b, s->arr + s->ofs[a], s->cnt[a]),
                       s->cnt[a]);
        }
    for (uint32_t h = s->H; h >= 1; h--)
        for (uint32_t a = 0; a < s->n_an; a++) {
            if (s->ht[a] != h || !s->cnt[a])
                continue;
            uint32_t fd, nd;
            if (s->par[n + a] == UINT32_MAX) {
                fd = b_deps(b, s->arr + s->ofs[a], s->cnt[a]);
                nd = s->cnt[a];
            } else {
                fd = b_deps(b, &s->dn[a], 1);
                nd = 1;
            }
            for (uint32_t m = 0; m < M; m++)
                if (s->par[owner[m]] == n + a)
                    fin[m] = b_xfer(b, A + a, owner[m], bytes, c, 3, 0, fd, nd);
            for (uint32_t q = 0; q < s->n_an; q++)
                if (s->par[n + q] == n + a && s->cnt[q])
                    s->dn[q] = b_xfer(b, A + a, A + q, bytes, c, 3, 0, fd, nd);
        }
}

static void build_nvls_tree(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    uint32_t n = t->n, C = b->pl->n_channels, M = t->M, G = srv_size(t, 0);
    const uint32_t W = NVLS_WINDOW;
    int *up = xmalloc(sizeof(int) * 6 * M, "nvls_tree trees"), *d0 = up + 2 * M, *d1 = up + 4 * M;
    uint32_t *ht = xcalloc(4 * (size_t)M, sizeof(uint32_t), "nvls_tree trees");
    uint32_t *order = ht + 2 * M; /* [2 × M] servers by increasing height */
    uint32_t H[2] = {0, 0};
    for (uint32_t tr = 0; tr < 2; tr++) {
        int *u = up + tr * M, *a = d0 + tr * M, *c = d1 + tr * M;
        uint32_t *h = ht + tr * M;
        for (uint32_t m = 0; m < M; m++)
            dtree((int)M, (int)m, (int)tr, &u[m], &a[m], &c[m]);
        for (uint32_t m = 0; m < M; m++)
            for (uint32_t cur = m, hc = 0; u[cur] >= 0; cur = (uint32_t)u[cur]) {
                uint32_t q = (uint32_t)u[cur];
                if (h[q] >= ++hc)
                    break;
                h[q] = hc;
                H[tr] = hc > H[tr] ? hc : H[tr];
            }
        uint32_t k = 0;
        for (uint32_t lv = 0; lv <= H[tr]; lv++)
            for (uint32_t m = 0; m < M; m++)
                if (h[m] == lv)
                    order[tr * M + k++] = m;
    }
    /* ret[(k % (W + 1)) × M × G + m × G + l]: the return of round k */
    uint32_t *ret = xmalloc(sizeof(uint32_t) * (W + 1) * M * G, "nvls_tree rounds");
    uint32_t *rd = xmalloc(sizeof(uint32_t) * (G + 2), "nvls_tree deps");
    uint32_t *upx = xmalloc(sizeof(uint32_t) * 5 * M, "nvls_tree tree sends");
    uint32_t *dnx = upx + M, *own = upx + 2 * M, *fin = upx + 3 * M, *rt = upx + 4 * M;
    nt_sharp ns = {0};
    if (p->n_an)
        nts_init(&ns, p, n);
    for (uint32_t c = 0; c < C; c++) {
        uint64_t D = split_len(p->size_bytes, C, c), R = 0;
        for (uint32_t l = 0; l < G; l++) {
            uint64_t r = ceil_div(split_len(D, G, l), chunk);
            R = r > R ? r : R;
        }
        for (uint64_t k = 0; k < R; k++)
            for (uint32_t l = 0; l < G; l++) {
                uint64_t len = split_len(D, G, l), parts = ceil_div(len, chunk);
                if (k >= parts)
                    continue;
                uint64_t bytes = split_len(len, parts, k);
                uint32_t tr = (uint32_t)(k % 2);
                const int *u = up + tr * M, *a = d0 + tr * M, *cc = d1 + tr * M;
#define OWNER(m) (t->srv_ranks[t->srv_first[m] + l])
                for (uint32_t m = 0; m < M; m++) {
                    uint32_t nw = k >= W, wait = 0;
                    if (nw)
                        wait = ret[((k - W) % (W + 1)) * M * G + m * G + l];
                    uint32_t fw = b_deps(b, &wait, nw);
                    for (uint32_t q = 0; q < G; q++)
                        rd[q] = b_xfer(b, t->srv_ranks[t->srv_first[m] + q], n + m, bytes, c, 0, 0,
                                       fw, nw);
                    ret[(k % (W + 1)) * M * G + m * G + l] =
                        b_xfer(b, n + m, OWNER(m), bytes, c, 1, 0, b_deps(b, rd, G), G);
                }
                const uint32_t *cur = ret + (k % (W + 1)) * M * G;
                if (p->n_an) {
                    /* across servers on the slice's SHARP tree, then store and copies */
                    for (uint32_t m = 0; m < M; m++) {
                        own[m] = OWNER(m);
                        rt[m] = cur[m * G + l];
                    }
                    nts_chunk(b, &ns, n, M, own, rt, bytes, c, fin);
                    for (uint32_t m = 0; m < M; m++) {
                        uint32_t st =
                            b_xfer(b, own[m], n + m, bytes, c, 4, 0, b_deps(b, &fin[m], 1), 1);
                        uint32_t fs = b_deps(b, &st, 1);
                        for (uint32_t q = 0; q < G; q++)
                            b_xfer(b, n + m, t->srv_ranks[t->srv_first[m] + q], bytes, c, 5, 0, fs,
                                   1);
                    }
                    continue;
                }
                uint32_t root_fd = 0, root_nd = 0;
                /* up, children first; a node's send (or the root's value) needs its return and
                 * its children's sends */
                for (uint32_t i = 0; i < M; i++) {
                    uint32_t m = order[tr * M + i], nd = 0;
                    rd[nd++] = cur[m * G + l];
                    if (a[m] >= 0)
                        rd[nd++] = upx[a[m]];
                    if (cc[m] >= 0)
                        rd[nd++] = upx[cc[m]];
                    dnx[m] = UINT32_MAX;
                    if (u[m] >= 0)
                        upx[m] = b_xfer(b, OWNER(m), OWNER(u[m]), bytes, c, 2, nd - 1,
                                        b_deps(b, rd, nd), nd);
                    else { /* the root has the result once these are in */
                        root_fd = b_deps(b, rd, nd);
                        root_nd = nd;
                    }
                }
                /* down, root first: the reverse order */
                for (uint32_t i = M; i-- > 0;) {
                    uint32_t m = order[tr * M + i];
                    uint32_t fd, nd;
                    if (u[m] < 0) {
                        fd = root_fd;
                        nd = root_nd;
                    } else {
                        fd = b_deps(b, &dnx[m], 1);
                        nd = 1;
                    }
                    int kids[2] = {a[m], cc[m]};
                    for (int j = 0; j < 2; j++)
                        if (kids[j] >= 0)
                            dnx[kids[j]] = b_xfer(b, OWNER(m), OWNER(kids[j]), bytes, c, 3,
                                                  u[m] < 0 ? nd - 1 : 0, fd, nd);
                    /* the owner has the result: its store, then the copies */
                    uint32_t st = b_xfer(b, OWNER(m), n + m, bytes, c, 4, 0, fd, nd);
                    uint32_t fs = b_deps(b, &st, 1);
                    for (uint32_t q = 0; q < G; q++)
                        b_xfer(b, n + m, t->srv_ranks[t->srv_first[m] + q], bytes, c, 5, 0, fs, 1);
                }
#undef OWNER
            }
    }
    xfree(up);
    xfree(ht);
    xfree(ret);
    xfree(rd);
    xfree(upx);
    if (p->n_an) {
        xfree(ns.ht);
        xfree(ns.arr);
    }
}

static void run_builder(builder *b, const coll_params *p, const topo_info *t, uint64_t chunk)
{
    if (t->n < 2 || p->size_bytes == 0)
        return;
    switch (p->algo) {
    case ALGO_RING: build_ring(b, p, t, chunk); break;
    case ALGO_TREE: build_tree(b, p, t, chunk); break;
    case ALGO_HALVING_DOUBLING: build_hd(b, p, t, chunk); break;
    case ALGO_DIRECT: build_direct(b, p, t, chunk); break;
    case ALGO_HIERARCHICAL: build_hier(b, p, t, chunk); break;
    case ALGO_RECURSIVE_DOUBLING:
        build_rd(b, p, t, chunk);
        break;
    case ALGO_BINOMIAL:
    case ALGO_SCATTER_ALLGATHER:
        build_tree_mpi(b, p, t, chunk);
        break;
    case ALGO_NVLS:
        build_nvls(b, p, t, chunk);
        break;
    case ALGO_SHARP:
        build_sharp(b, p, t, chunk);
        break;
    case ALGO_NVLS_TREE:
        build_nvls_tree(b, p, t, chunk);
        break;
    }
}

coll_plan *coll_plan_build(const coll_params *p, arena *a, err *e)
{
    const char *on = coll_op_name(p->op), *an = coll_algo_name(p->algo);
    uint32_t C = p->channels ? p->channels : 1;
    uint64_t chunk = p->chunk_bytes ? p->chunk_bytes : COLL_CHUNK_DEFAULT;
    if (p->n_ranks == 0) {
        err_set(e, ERR_INVALID, "", 0, 0, "collective %s: expected at least 1 rank, got 0", on);
        return NULL;
    }
    if (!algo_supports(p->algo, p->op)) {
        err_set(e, ERR_INVALID, "", 0, 0,
                "algorithm %s does not implement %s (it implements %s)%s", an, on,
                algo_ops(p->algo),
                p->op == OP_ALL_TO_ALL ? "; use algorithm direct for all_to_all" : "");
        return NULL;
    }
    if (p->pxn && !(p->algo == ALGO_DIRECT &&
                    (p->op == OP_ALL_TO_ALL || p->op == OP_ALL_GATHER))) {
        err_set(e, ERR_INVALID, "", 0, 0,
                "pxn applies to algorithm direct with all_to_all or all_gather, got %s with %s",
                an, on);
        return NULL;
    }
    if ((p->algo == ALGO_HALVING_DOUBLING || p->algo == ALGO_RECURSIVE_DOUBLING) &&
        p->op != OP_ALL_REDUCE && (p->n_ranks & (p->n_ranks - 1))) {
        err_set(e, ERR_INVALID, "", 0, 0,
                "algorithm %s does %s on a power-of-two number of ranks only (1, 2, 4, 8, "
                "...), got %u (all_reduce takes any count); use ring or direct",
                an, on, p->n_ranks);
        return NULL;
    }
    if (C > COLL_CHANNELS_MAX) {
        err_set(e, ERR_INVALID, "", 0, 0, "channels: expected 1..%u, got %u", COLL_CHANNELS_MAX,
                C);
        return NULL;
    }
    if (chunk > COLL_CHUNK_MAX) {
        err_set(e, ERR_INVALID, "", 0, 0, "chunk: expected at most %llu bytes, got %llu",
                (unsigned long long)COLL_CHUNK_MAX, (unsigned long long)chunk);
        return NULL;
    }
    topo_info t;
    topo_build(&t, p);
    if (p->algo == ALGO_SHARP && t.M < 2) {
        err_set(e, ERR_INVALID, "", 0, 0,
                "algorithm sharp reduces in the fabric's switches across servers, and every "
                "rank is on one server; use nvls (the NVSwitch reduces) or ring");
        topo_free(&t);
        return NULL;
    }
    if (p->algo == ALGO_SHARP || (p->algo == ALGO_NVLS_TREE && p->n_an)) {
        const char *why = NULL;
        for (uint32_t r = 0; r < p->n_ranks + p->n_an && !why; r++) {
            uint32_t q = p->an_parent ? p->an_parent[r] : UINT32_MAX;
            if (r < p->n_ranks && q == UINT32_MAX)
                why = "a rank has no aggregation node above it";
            else if (q != UINT32_MAX && (q < p->n_ranks || q >= p->n_ranks + p->n_an))
                why = "a parent is not an aggregation node";
        }
        /* one tree per local index: an AN's ranks all carry the same block */
        uint32_t *sl = why ? NULL : xmalloc(sizeof(uint32_t) * p->n_an, "sharp slices");
        for (uint32_t k = 0; !why && k < p->n_an; k++)
            sl[k] = UINT32_MAX;
        for (uint32_t r = 0; !why && r < p->n_ranks; r++)
            for (uint32_t q = p->an_parent[r], hops = 0; q != UINT32_MAX && !why;
                 q = p->an_parent[q]) {
                if (++hops > p->n_an) {
                    why = "a cycle of aggregation nodes";
                    break;
                }
                uint32_t *s = &sl[q - p->n_ranks];
                if (*s != UINT32_MAX && *s != t.local[r])
                    why = "an aggregation node serves ranks of different local indices (one "
                          "tree per local index)";
                *s = t.local[r];
            }
        xfree(sl);
        if (why) {
            err_set(e, ERR_INVALID, "", 0, 0, "algorithm sharp: bad aggregation tree (%s)", why);
            topo_free(&t);
            return NULL;
        }
    }
    if (p->algo == ALGO_HIERARCHICAL || p->algo == ALGO_SHARP || p->algo == ALGO_NVLS_TREE) {
        for (uint32_t m = 1; m < t.M; m++)
            if (srv_size(&t, m) != srv_size(&t, 0)) {
                err_set(e, ERR_INVALID, "", 0, 0,
                        "algorithm %s needs the same number of ranks on every server: "
                        "server of rank %u has %u, server of rank %u has %u",
                        an, t.srv_ranks[0], srv_size(&t, 0), t.srv_ranks[t.srv_first[m]],
                        srv_size(&t, m));
                topo_free(&t);
                return NULL;
            }
    }

    if (p->algo == ALGO_NVLS && t.M > 1) {
        err_set(e, ERR_INVALID, "", 0, 0,
                "algorithm nvls reduces in one server's NVSwitch: every rank must be on one "
                "server, got ranks on %u servers (across servers use nvls_tree, NVLS inside each "
                "server with a tree across, or sharp where the switches aggregate)",
                t.M);
        topo_free(&t);
        return NULL;
    }
    coll_plan *pl = ARENA_NEW(a, coll_plan);
    pl->op = p->op;
    pl->nvswitch = p->algo == ALGO_NVLS || p->algo == ALGO_NVLS_TREE;
    pl->n_nvs = p->algo == ALGO_NVLS ? 1 : p->algo == ALGO_NVLS_TREE ? t.M : 0;
    pl->n_an = p->algo == ALGO_SHARP || p->algo == ALGO_NVLS_TREE ? p->n_an : 0;
    pl->algo = p->algo;
    pl->pxn = p->pxn;
    pl->n_ranks = p->n_ranks;
    pl->n_channels = p->algo == ALGO_TREE && p->op == OP_ALL_REDUCE ? 2 * C : C;
    pl->size_bytes = p->size_bytes;
    pl->chunk_bytes = chunk;
    pl->reduce_Bps = p->reduce_Bps;

    if (p->compact && p->size_bytes && (pl->ring = ring_compact(p, &t, chunk, a))) {
        const coll_ring *g = pl->ring;
        pl->n_xfers = (uint32_t)g->base[g->C];
        pl->n_steps = g->nsteps;
        for (uint32_t c = 0; c < g->C; c++) {
            pl->n_deps += (uint32_t)((uint64_t)(g->nsteps - 1) * g->P * g->K[c]);
            pl->total_bytes += (uint64_t)g->nsteps * g->D[c]; /* a step moves every byte */
        }
        pl->footprint_bytes =
            sizeof(coll_plan) + sizeof(coll_ring) + (uint64_t)(3 * g->C + 1) * sizeof(uint64_t) +
            (uint64_t)g->C * sizeof(ring_ch) + (uint64_t)g->C * g->n * sizeof(uint32_t);
        topo_free(&t);
        return pl;
    }
    builder cnt = {.pl = pl};
    run_builder(&cnt, p, &t, chunk);
    if (cnt.nx >= UINT32_MAX || cnt.nd >= UINT32_MAX || cnt.overflow) {
        err_set(e, ERR_INVALID, "", 0, 0,
                "collective %s/%s on %u ranks of %llu bytes needs %llu transfers and %llu "
                "dependencies, beyond a plan's 32-bit indices (or a 16-bit dependency list); "
                "use a larger chunk or fewer channels", on, an, p->n_ranks,
                (unsigned long long)p->size_bytes, (unsigned long long)cnt.nx,
                (unsigned long long)cnt.nd);
        topo_free(&t);
        return NULL;
    }
    pl->n_xfers = (uint32_t)cnt.nx;
    pl->n_deps = (uint32_t)cnt.nd;
    pl->xfers = ARENA_NEW_ARRAY(a, coll_xfer, pl->n_xfers ? pl->n_xfers : 1);
    pl->deps = ARENA_NEW_ARRAY(a, uint32_t, pl->n_deps ? pl->n_deps : 1);
    builder fill = {.pl = pl, .fill = true};
    run_builder(&fill, p, &t, chunk);
    SIM_ASSERT(fill.nx == cnt.nx && fill.nd == cnt.nd, "passes disagree: %llu/%llu vs %llu/%llu",
               (unsigned long long)fill.nx, (unsigned long long)fill.nd,
               (unsigned long long)cnt.nx, (unsigned long long)cnt.nd);
    pl->n_steps = pl->n_xfers ? fill.max_step + 1 : 0;
    pl->total_bytes = fill.total;
    pl->footprint_bytes = sizeof(coll_plan) + (uint64_t)pl->n_xfers * sizeof(coll_xfer) +
                          (uint64_t)pl->n_deps * sizeof(uint32_t);
    topo_free(&t);
    return pl;
}

const char *coll_plan_check(const coll_plan *pl)
{
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        coll_xfer buf;
        const coll_xfer *x = coll_plan_xfer(pl, i, &buf);
        if (x->bytes == 0)
            return "zero-byte transfer";
        if (x->src == x->dst)
            return "transfer to itself";
        uint32_t top = pl->n_ranks + pl->n_nvs + pl->n_an;
        if (x->src >= top || x->dst >= top)
            return "rank out of range";
        if (pl->algo == ALGO_NVLS && x->src != COLL_NVSWITCH(pl) && x->dst != COLL_NVSWITCH(pl))
            return "nvls transfer between two ranks (every one has the switch at an end)";
        if (x->channel >= pl->n_channels)
            return "channel out of range";
        if (x->bytes > pl->chunk_bytes)
            return "transfer larger than a chunk";
        if (pl->deps && (uint64_t)x->first_dep + x->n_deps > pl->n_deps)
            return "dependency range outside deps[]";
        for (uint32_t k = 0; k < x->n_deps; k++)
            if (coll_plan_dep(pl, x, k) >= i)
                return "dependency not before its dependent (cycle or bad order)";
    }
    return NULL;
}

uint32_t coll_plan_critical_path(const coll_plan *pl)
{
    if (!pl->n_xfers)
        return 0;
    uint32_t *len = xcalloc(pl->n_xfers, sizeof(uint32_t), "collective plan: critical path");
    uint32_t best = 0;
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        coll_xfer buf;
        const coll_xfer *x = coll_plan_xfer(pl, i, &buf);
        uint32_t l = 0;
        for (uint32_t k = 0; k < x->n_deps; k++) {
            uint32_t d = len[coll_plan_dep(pl, x, k)];
            if (d > l)
                l = d;
        }
        len[i] = l + 1;
        if (len[i] > best)
            best = len[i];
    }
    xfree(len);
    return best;
}

void coll_plan_successors(const coll_plan *pl, arena *a, uint32_t **first, uint32_t **succ)
{
    uint32_t n = pl->n_xfers;
    uint32_t *f = ARENA_NEW_ARRAY(a, uint32_t, (size_t)n + 1);
    uint64_t edges = 0;
    for (uint32_t i = 0; i < n; i++) {
        coll_xfer buf;
        const coll_xfer *x = coll_plan_xfer(pl, i, &buf);
        for (uint32_t k = 0; k < x->n_deps; k++)
            f[coll_plan_dep(pl, x, k) + 1]++;
        edges += x->n_deps;
    }
    SIM_ASSERT(edges < UINT32_MAX, "%llu dependency edges", (unsigned long long)edges);
    for (uint32_t i = 0; i < n; i++)
        f[i + 1] += f[i];
    uint32_t *s = ARENA_NEW_ARRAY(a, uint32_t, edges ? edges : 1);
    uint32_t *fill = xcalloc((size_t)n + 1, sizeof(uint32_t), "collective plan: successors");
    for (uint32_t i = 0; i < n; i++) {
        coll_xfer buf;
        const coll_xfer *x = coll_plan_xfer(pl, i, &buf);
        for (uint32_t k = 0; k < x->n_deps; k++) {
            uint32_t d = coll_plan_dep(pl, x, k);
            s[f[d] + fill[d]++] = i;
        }
    }
    xfree(fill);
    *first = f;
    *succ = s;
}

static uint32_t stored_deps_fn(const void *ctx, uint32_t i)
{
    return ((const coll_plan *)ctx)->xfers[i].n_deps;
}

void coll_plan_graph(const coll_plan *pl, arena *a, dag_graph *g)
{
    memset(g, 0, sizeof *g);
    g->n = pl->n_xfers;
    g->ctx = pl;
    if (pl->ring) {
        g->max_deps = 1;
        g->deps_fn = ring_deps_fn;
        g->succ_fn = ring_succ_fn;
        return;
    }
    g->deps_fn = stored_deps_fn;
    for (uint32_t i = 0; i < pl->n_xfers; i++)
        if (pl->xfers[i].n_deps > g->max_deps)
            g->max_deps = pl->xfers[i].n_deps;
    uint32_t *first, *succ;
    coll_plan_successors(pl, a, &first, &succ);
    g->succ_first = first;
    g->succ = succ;
}

void coll_plan_conns(const coll_plan *pl, arena *a, coll_conns *cn)
{
    memset(cn, 0, sizeof *cn);
    if (pl->ring) {
        const coll_ring *g = pl->ring;
        uint32_t per = g->P == 1 ? g->n - 1 : g->n; /* a chain's hops, or a ring's positions */
        cn->n = g->C * per;
        cn->src = ARENA_NEW_ARRAY(a, uint32_t, cn->n);
        cn->dst = ARENA_NEW_ARRAY(a, uint32_t, cn->n);
        cn->channel = ARENA_NEW_ARRAY(a, uint32_t, cn->n);
        for (uint32_t c = 0; c < g->C; c++)
            for (uint32_t q = 0; q < per; q++) {
                /* the first transfer on the connection tells its ends */
                coll_xfer x;
                coll_ring_xfer(pl, ring_index(g, c, g->P == 1 ? q : 0, g->P == 1 ? 0 : q, 0), &x);
                cn->src[c * per + q] = x.src;
                cn->dst[c * per + q] = x.dst;
                cn->channel[c * per + q] = c;
            }
        return;
    }
    uint32_t nx = pl->n_xfers;
    cn->of = ARENA_NEW_ARRAY(a, uint32_t, nx ? nx : 1);
    /* distinct (src, dst, channel) by open addressing; triples in order of first use */
    uint32_t cap = 1024;
    while (cap < 2 * (uint64_t)nx && cap < (1u << 30))
        cap <<= 1;
    uint64_t *keys = xmalloc(sizeof(uint64_t) * cap, "connection table");
    uint32_t *vals = xmalloc(sizeof(uint32_t) * cap, "connection table");
    memset(keys, 0xFF, sizeof(uint64_t) * cap);
    uint32_t n = 0, tcap = 64;
    uint32_t *tri = xmalloc(sizeof(uint32_t) * 3 * tcap, "plan connections");
    for (uint32_t i = 0; i < nx; i++) {
        const coll_xfer *t = &pl->xfers[i];
        uint64_t k = ((uint64_t)t->src << 40) ^ ((uint64_t)t->dst << 16) ^ t->channel;
        uint64_t h = k * 0x9E3779B97F4A7C15ull;
        uint32_t s = (uint32_t)(h >> 34) & (cap - 1);
        while (keys[s] != UINT64_MAX && keys[s] != k)
            s = (s + 1) & (cap - 1);
        if (keys[s] == UINT64_MAX) {
            keys[s] = k;
            if (n == tcap) {
                tcap *= 2;
                tri = xrealloc(tri, sizeof(uint32_t) * 3 * tcap, "plan connections");
            }
            tri[3 * n] = t->src;
            tri[3 * n + 1] = t->dst;
            tri[3 * n + 2] = t->channel;
            vals[s] = n++;
        }
        cn->of[i] = vals[s];
    }
    xfree(keys);
    xfree(vals);
    cn->n = n;
    cn->src = ARENA_NEW_ARRAY(a, uint32_t, n ? n : 1);
    cn->dst = ARENA_NEW_ARRAY(a, uint32_t, n ? n : 1);
    cn->channel = ARENA_NEW_ARRAY(a, uint32_t, n ? n : 1);
    for (uint32_t c = 0; c < n; c++) {
        cn->src[c] = tri[3 * c];
        cn->dst[c] = tri[3 * c + 1];
        cn->channel[c] = tri[3 * c + 2];
    }
    xfree(tri);
}

uint32_t coll_plan_dep_span(const coll_plan *pl)
{
    if (!pl->ring)
        return pl->n_xfers;
    uint64_t K = 0;
    for (uint32_t c = 0; c < pl->ring->C; c++)
        K = pl->ring->K[c] > K ? pl->ring->K[c] : K;
    /* a ring position 1..n−1 reaches back (n + 1)·K, a chain's hop K */
    uint64_t span = pl->ring->P == 1 ? K : ((uint64_t)pl->ring->n + 1) * K;
    return span < pl->n_xfers ? (uint32_t)span : pl->n_xfers;
}

uint32_t coll_plan_max_ready(const coll_plan *pl)
{
    if (pl->ring)
        return pl->n_xfers / pl->ring->nsteps; /* one per chain */
    return pl->n_xfers;
}

/* ---- bandwidth --------------------------------------------------------------------------- */

double coll_busbw_factor(enum coll_op op, uint32_t n)
{
    double dn = (double)n;
    switch (op) {
    case OP_ALL_REDUCE: return 2.0 * (dn - 1.0) / dn;   /* all_reduce.cu */
    case OP_REDUCE_SCATTER:                             /* reduce_scatter.cu */
    case OP_ALL_GATHER:                                 /* all_gather.cu */
    case OP_ALL_TO_ALL: return (dn - 1.0) / dn;         /* alltoall.cu */
    case OP_BROADCAST:                                  /* broadcast.cu */
    case OP_REDUCE: return 1.0;                         /* reduce.cu */
    }
    return 1.0;
}

double coll_algbw_GBps(enum coll_op op, uint64_t size_bytes, uint32_t n, sim_time time_ps)
{
    (void)op;
    (void)n;
    if (time_ps == 0)
        return 0.0;
    /* nccl-tests: (double)(count * typesize) / 1.0E9 / sec, with count·typesize = the size column */
    return (double)size_bytes / 1.0E9 / ((double)time_ps * 1e-12);
}

double coll_busbw_GBps(enum coll_op op, uint64_t size_bytes, uint32_t n, sim_time time_ps)
{
    return coll_algbw_GBps(op, size_bytes, n, time_ps) * coll_busbw_factor(op, n);
}
