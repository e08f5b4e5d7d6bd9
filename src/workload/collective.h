/*
 * collective.h — the collective engine's planning half: turn one NCCL-style collective (op,
 * algorithm, ranks, size) into a DAG of point-to-point transfers, plus nccl-tests bandwidth
 * accounting. Pure: no network, no simulation; the executor (workload/run) starts every transfer
 * whose dependencies have completed and maps it onto a flow (NIC to NIC, or the scale-up domain
 * when both ranks share a server).
 *
 * Sizes follow nccl-tests (models.md "Collectives"): S is the per-rank buffer for all_reduce,
 * broadcast and reduce, and the total array for all_gather, reduce_scatter (each rank holds or
 * gets S/n) and all_to_all (each rank's send buffer; every peer gets S/n — nccl-tests'
 * alltoall.cu sends count/nranks elements to each peer, so it is S/n, not S/n²).
 *
 * Algorithms (NCCL source and nccl-tests semantics; choices named here and in collective.c):
 *  ring              all_reduce = reduce_scatter + all_gather, 2(n−1) steps of S/n per rank;
 *                    reduce_scatter / all_gather n−1 steps; broadcast / reduce a pipelined chain
 *                    from / to root 0. Ring order: a server's GPUs are consecutive (servers by
 *                    their lowest rank), so only server boundaries cross the network; channel c
 *                    rotates every server's local order by c and servers alternate direction
 *                    (a snake), so every boundary hop stays on one rail (odd server counts
 *                    cross rails once, at the wrap), and channels use different rails.
 *  tree              NCCL double binary tree (trees.cc ncclGetBtree/ncclGetDtree) over servers,
 *                    a chain inside each server; two trees each carry half the data (tree
 *                    channel 2c+t); all_reduce = reduce up + broadcast down, chunk-pipelined.
 *                    broadcast / reduce use tree 0 (rooted at rank 0's server) only.
 *  halving-doubling  Rabenseifner: recursive-halving reduce_scatter + recursive-doubling
 *                    all_gather (also each half alone, power-of-two rank counts only);
 *                    all_reduce on any count with MPICH's fold of the extra ranks.
 *  recursive-doubling  MPICH: all_reduce exchanging the whole buffer in log2 rounds (with the
 *                    fold); all_gather = halving-doubling's doubling half.
 *  binomial          MPICH binomial tree broadcast / reduce rooted at rank 0.
 *  scatter-allgather broadcast: binomial scatter, then ring all_gather (MPICH, large messages).
 *  direct            every pair at once: all_to_all, all_gather, reduce_scatter (the owner
 *                    reduces), all_reduce (direct reduce_scatter + direct all_gather),
 *                    broadcast (root to each), reduce (each to root). `pxn` routes cross-rail
 *                    sends of all_to_all / all_gather through the scale-up domain first.
 *  hierarchical      all_reduce only: intra-server ring reduce_scatter, per-rail inter-server
 *                    ring all_reduce on S/g, intra-server ring all_gather (g GPUs per server,
 *                    the same g on every server).
 *  nvls              all_reduce inside one NVSwitch domain (every rank on one server), as
 *                    NCCL's NVLS algorithm does it with NVLink SHARP (Hopper NVSwitch
 *                    multimem instructions): rank r owns slice r (S/n); per chunk k of its
 *                    slice, the switch reads chunk k from every rank (multimem.ld_reduce: one
 *                    transfer g → switch per rank g), reduces it and returns it to r
 *                    (switch → r, only once all n contributions have arrived), then r stores it
 *                    to the multicast address (r → switch) and the switch writes it to every
 *                    rank (switch → g). The switch is endpoint n (COLL_NVSWITCH). Per rank that
 *                    is S + S/n out and S/n + S in over its NVLink, against 2(n−1)/n·S each way
 *                    for ring. A rank keeps NVLS_WINDOW chunk reads in flight per slice. The
 *                    switch reduces at line rate: no time beyond the scale-up latency.
 *                    reduce_scatter (S = the whole array, block r = S/n): the reads and the
 *                    reduced return only (S out, S/n in per rank); all_gather: each rank's
 *                    block stored once to the multicast address and copied to the n − 1
 *                    others (S/n out, (n−1)/n·S in).
 *  sharp             all_reduce with in-network reduction in the scale-out switches (NVIDIA
 *                    SHARP; NCCL's CollNet with the SHARP plugin: NCCL_ALGO=CollNet, alias
 *                    `collnet`), as NCCL's CollNet Direct runs it on g GPUs per server: an
 *                    intra-server ring reduce_scatter leaves rank l of each server with block
 *                    l (S/g); every rank sends its block up its tree (tree l: the ranks of local
 *                    index l, i.e. one rail), to the aggregation node (AN) of its leaf switch;
 *                    an AN waits for chunk k from all its children, sends one reduced chunk k
 *                    to its parent AN (leaf → spine → super-spine); the root's result goes back
 *                    down, each AN replicating it to each child, and an intra-server ring
 *                    all_gather completes it. With one rank per server there are no intra
 *                    phases: each rank sends S and receives S, against 2(n−1)/n·S each way for
 *                    ring. Chunks on a global grid (the range engine below): an AN's chunk
 *                    waits for exactly its children's same chunk, so the tree is pipelined
 *                    chunk by chunk. The ANs reduce at line rate (no reduction time) and hold
 *                    any number of chunks in flight (no OST limit). Endpoints n_ranks + k are
 *                    the ANs (coll_params.an_parent gives the trees).
 *  nvls_tree         all_reduce as NCCL's NVLS_TREE: NVLS inside each server, NCCL's double
 *                    binary tree across servers. Local rank l owns slice l (S/g); per chunk
 *                    every GPU's part of every slice is read by its server's NVSwitch
 *                    (endpoint n + m), reduced and returned to the slice's owner; the owners
 *                    of slice l on all servers all_reduce it over the two trees (alternate chunks:
 *                    up, a node's chunk after its children's, then down); each owner stores the
 *                    result to the multicast address and its switch writes it to every GPU of
 *                    the server. Per GPU over NVLink S + S/g out and S/g + S in; per NIC
 *                    about S/g each way (exactly S/g with 2 servers). The switches reduce at
 *                    line rate; a rank's reads of chunk k wait for its slice's return of chunk
 *                    k − NVLS_WINDOW (the load window, as nvls). Chunk k takes tree k mod 2.
 *                    With SHARP trees (coll_params.an_parent, n_an > 0; the executor gives
 *                    them where switch.sharp is on) the owners' chunks go up their rail's tree
 *                    of aggregation nodes and the result comes down to each owner instead
 *                    (exactly S/g per NIC each way); the ANs are endpoints n + M + k.
 *
 * Memory. A plan is arena-allocated and compact: a transfer is 24 bytes (bytes is 32-bit because
 * every transfer is at most one chunk, ≤ COLL_CHUNK_MAX) and its dependencies are a range in one
 * shared uint32 array, so transfers with the same dependencies share one list. A 1024-rank ring
 * all_reduce of 1 GiB on 8 channels is 16.8 M transfers and 16.8 M dependency entries: 447.5 MiB
 * (24 + 4 bytes a transfer), built in about 0.7 s (test_collective prints the measured figure).
 * With `compact` (what the executors ask for), a ring plan (all_reduce, reduce_scatter,
 * all_gather, and broadcast / reduce's chain) whose chunks are all non-empty is not listed but
 * described — per channel its first transfer index, bytes, chunk count and ring order — and
 * transfer i is computed from (channel, step, ring position, chunk) by coll_plan_xfer, its one
 * dependency and one successor by the same arithmetic: that 1024-rank plan is 32 KiB, numbered
 * exactly as the stored one.
 *
 * compute: coll_xfer_compute_ps() is a delay of that transfer (reduce_inputs × bytes at the
 * reduction rate), not an exclusive use of the GPU: transfers released by the same dependencies
 * with the same compute (a tree root's sends to its children) describe one reduction and wait it
 * out together.
 */
#ifndef WR_WORKLOAD_COLLECTIVE_H
#define WR_WORKLOAD_COLLECTIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/arena.h"
#include "../core/err.h"
#include "../core/time.h"

/*
 * Default chunk: 512 KiB = NCCL_BUFFSIZE (4 MiB) / NCCL_STEPS (8), the granularity at which the
 * Simple protocol moves a ring step through a connection's staging buffer. A step's data is split
 * into ⌈bytes / chunk⌉ near-equal chunks, and a rank forwards chunk k as soon as it has it.
 */
#define COLL_CHUNK_DEFAULT ((uint64_t)512 * 1024)
/* Largest chunk (a transfer's bytes field is 32-bit). */
#define COLL_CHUNK_MAX ((uint64_t)1 << 31)
/* nvls: chunk reads a rank keeps in flight per slice (each a load the switch serves) */
#define NVLS_WINDOW 2u
/* The NVSwitch's endpoint index in an nvls plan (pl->nvswitch). */
#define COLL_NVSWITCH(pl) ((pl)->n_ranks)
/* Largest channel count (tree plans use 2 × channels tree channels, 16-bit). */
#define COLL_CHANNELS_MAX 4096u

/* What to plan. Everything is borrowed for the duration of coll_plan_build only. */
typedef struct coll_params {
    enum coll_op op;
    enum coll_algo algo;
    bool pxn;                        /* direct all_to_all / all_gather: cross-rail via scale-up */
    uint32_t n_ranks;                /* ≥ 1 */
    const uint32_t *server_of_rank;  /* [n_ranks]; NULL: server = rank / gpus_per_server */
    uint32_t gpus_per_server;        /* used when server_of_rank is NULL; 0 means 1 */
    uint64_t size_bytes;             /* nccl-tests semantics (see above) */
    uint32_t channels;               /* parallel rings / tree pairs; 0 means 1 */
    uint64_t chunk_bytes;            /* 0 means COLL_CHUNK_DEFAULT; ≤ COLL_CHUNK_MAX */
    uint64_t reduce_Bps;             /* GPU reduction rate in bytes/s; 0 = negligible */
    double a2a_skew;                 /* direct all_to_all: rank j receives a share ∝
                                      * (j + 1)^−skew of every send buffer (0 = S/n each) */
    bool compact;                    /* describe ring plans instead of listing them
                                      * (coll_plan.ring); readers use coll_plan_xfer */
    /* sharp, nvls_tree: the aggregation trees (workload/sharp.h builds them). Endpoints
     * n_ranks .. n_ranks + n_an − 1 are aggregation nodes (a switch's AN in one tree);
     * an_parent[e], e < n_ranks + n_an, is the endpoint e sends its data up to, UINT32_MAX at
     * a tree's root (an AN). Every rank has a parent. Borrowed. */
    uint32_t n_an;
    const uint32_t *an_parent;
} coll_params;

/*
 * One point-to-point transfer: `bytes` from rank `src` to rank `dst` on `channel` (a distinct
 * connection / QP set per channel). It may start when every transfer in
 * deps[first_dep .. first_dep + n_deps) has COMPLETED (all have smaller indices: the array is in
 * topological order); the sender then spends coll_xfer_compute_ps() reducing before sending.
 * `step` is the algorithm step (ring step, tree level, halving-doubling round) for reports and
 * collective-aware load balancing. Transfers on one (src, dst, channel) connection are listed in
 * the order NCCL would post them; keeping a connection FIFO is the executor's choice.
 */
typedef struct coll_xfer {
    uint32_t src, dst;
    uint32_t bytes;                  /* > 0, ≤ chunk */
    uint32_t first_dep;
    uint16_t n_deps;
    uint16_t channel;
    uint32_t step : 24;
    uint32_t reduce_inputs : 8;      /* received buffers folded in before sending (0: none) */
} coll_xfer;

typedef struct coll_plan {
    enum coll_op op;
    enum coll_algo algo;
    bool pxn;
    uint32_t n_ranks;
    uint32_t n_channels;             /* distinct channel values (tree: 2 × channels) */
    uint64_t size_bytes;
    uint64_t chunk_bytes;
    uint64_t reduce_Bps;
    uint32_t n_xfers;
    coll_xfer *xfers;                /* [n_xfers], topological order */
    uint32_t n_deps;
    uint32_t *deps;                  /* [n_deps] transfer indices */
    bool nvswitch;                   /* nvls, nvls_tree: endpoints n_ranks .. are NVSwitches */
    uint32_t n_nvs;                  /* how many: nvls 1, nvls_tree one per server (endpoint
                                      * n_ranks + m is server m's, servers numbered as
                                      * collective.c numbers them: by their lowest rank) */
    uint32_t n_an;                   /* sharp: endpoints n_ranks .. n_ranks + n_an − 1 are
                                      * aggregation nodes in the switches */
    uint32_t n_steps;                /* 1 + largest step */
    uint64_t total_bytes;            /* Σ bytes over transfers */
    uint64_t footprint_bytes;        /* plan struct + transfers + deps (or ring description) */
    const struct coll_ring *ring;    /* compact ring plan: xfers and deps are NULL */
} coll_plan;

/* Transfer i of the plan (stored plans: a pointer into xfers; compact plans: computed into *buf,
 * which the pointer then names). coll_ring_xfer (compact plans only) returns the transfer's
 * connection as well (coll_ring_conn). */
uint32_t coll_ring_xfer(const coll_plan *pl, uint32_t i, coll_xfer *buf);
static inline const coll_xfer *coll_plan_xfer(const coll_plan *pl, uint32_t i, coll_xfer *buf)
{
    if (pl->xfers)
        return &pl->xfers[i];
    coll_ring_xfer(pl, i, buf);
    return buf;
}
/* Dependency k (< x->n_deps) of transfer x (from coll_plan_xfer of the same plan). */
static inline uint32_t coll_plan_dep(const coll_plan *pl, const coll_xfer *x, uint32_t k)
{
    return pl->deps ? pl->deps[x->first_dep + k] : x->first_dep; /* compact: the one dep */
}

/*
 * Build the plan for *p into arena `a` (returns new, owned by the arena). On bad input (an
 * algorithm that does not implement the op, halving-doubling on a non-power-of-two count,
 * hierarchical with unequal servers, zero ranks, a chunk above COLL_CHUNK_MAX) sets *e
 * (ERR_INVALID, no position: the caller re-locates it at the job's key) and returns NULL. A
 * single rank, or size 0, gives a plan with no transfers.
 */
coll_plan *coll_plan_build(const coll_params *p, arena *a, err *e);

/* Reduction time the sender spends before sending x, in ps (rounded up); 0 when negligible. */
static inline sim_time coll_xfer_compute_ps(const coll_plan *pl, const coll_xfer *x)
{
    if (!pl->reduce_Bps || !x->reduce_inputs)
        return 0;
    unsigned __int128 num = (unsigned __int128)x->bytes * x->reduce_inputs * 1000000000000ULL;
    return (sim_time)((num + pl->reduce_Bps - 1) / pl->reduce_Bps);
}

/*
 * Consistency checker: every transfer has 0 < bytes, src ≠ dst, ranks and channel in range,
 * its dependency range inside deps[], and every dependency index below its own (so the DAG is
 * acyclic and already topologically sorted). Returns NULL when consistent, else a static
 * description of the first violation.
 */
const char *coll_plan_check(const coll_plan *pl);

/*
 * Longest dependency chain, counted in transfers (ring all_reduce: 2(n−1); halving-doubling:
 * 2·log2 n; tree all_reduce: 2 × tree height). Uses a temporary array of n_xfers words.
 */
uint32_t coll_plan_critical_path(const coll_plan *pl);

/*
 * Reverse the dependencies for an executor: on return (*first)[i] .. (*first)[i+1] index
 * (*succ), the transfers that list i among their deps. Both arrays are new in `a`.
 */
void coll_plan_successors(const coll_plan *pl, arena *a, uint32_t **first, uint32_t **succ);

/*
 * The plan's shape for the workload engine (dag.h) in *g: a stored plan's successor lists are
 * built in `a` (coll_plan_successors); a compact plan's shape is implicit (rank arithmetic, no
 * memory). g->ctx borrows pl.
 */
struct dag_graph;
void coll_plan_graph(const coll_plan *pl, arena *a, struct dag_graph *g);

/*
 * The plan's connections: its distinct (src, dst, channel) triples in order of first use (so
 * the flows an executor creates for them, and their ids, do not depend on how they were found).
 * `of` maps each transfer to its connection ([n_xfers] in `a`; NULL for a compact plan, whose
 * transfers' connections are computed: coll_conn_of).
 */
typedef struct coll_conns {
    uint32_t n;
    uint32_t *src, *dst, *channel; /* [n] */
    uint32_t *of;                  /* [n_xfers] or NULL */
} coll_conns;
void coll_plan_conns(const coll_plan *pl, arena *a, coll_conns *c);
uint32_t coll_ring_conn(const coll_plan *pl, uint32_t i);
static inline uint32_t coll_conn_of(const coll_plan *pl, const coll_conns *c, uint32_t i)
{
    return c->of ? c->of[i] : coll_ring_conn(pl, i);
}
/* Transfer i (coll_plan_xfer) and its connection (coll_conn_of) at once: a compact plan decodes
 * the index once for both. */
static inline const coll_xfer *coll_plan_xfer_conn(const coll_plan *pl, const coll_conns *c,
                                                   uint32_t i, coll_xfer *buf, uint32_t *conn)
{
    if (pl->xfers) {
        *conn = coll_conn_of(pl, c, i);
        return &pl->xfers[i];
    }
    uint32_t k = coll_ring_xfer(pl, i, buf);
    *conn = c->of ? c->of[i] : k;
    return buf;
}

/* Largest distance i − d from a transfer i back to one of its dependencies d: a stored plan
 * says n_xfers (no bound kept), a compact ring (n + 1) × its largest chunk count (a chain: the
 * chunk count). Lets a pass in
 * index order keep per-transfer values in a window of span + 1 entries. */
uint32_t coll_plan_dep_span(const coll_plan *pl);

/* Most transfers of the plan that can be released and not yet complete at once, bounded from
 * the plan's structure (a compact ring: one per chain (channel, block position, chunk); else
 * every transfer). Sizes an executor's delay queue. */
uint32_t coll_plan_max_ready(const coll_plan *pl);

/* ---- nccl-tests bandwidth accounting (src/common.cu and each test's GetBw) ---------------- */

/* busbw = algbw × factor: all_reduce 2(n−1)/n; reduce_scatter, all_gather, all_to_all (n−1)/n;
 * broadcast, reduce 1. n ≥ 1. */
double coll_busbw_factor(enum coll_op op, uint32_t n);
/* algbw in GB/s (10^9 bytes/s) for nccl-tests size S (the table's "size" column) in time_ps. */
double coll_algbw_GBps(enum coll_op op, uint64_t size_bytes, uint32_t n, sim_time time_ps);
/* algbw × coll_busbw_factor. */
double coll_busbw_GBps(enum coll_op op, uint64_t size_bytes, uint32_t n, sim_time time_ps);

#endif
