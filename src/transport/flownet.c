/*
 * flownet.c — the flow-level network (model in flownet.h, docs/fidelity.md).
 *
 * Objects. A stream is one fluid flow of a QP: the QP's current piece (or, sprayed, its share on
 * one path); it owns the event of its last bit leaving the sender. A QP has 1 stream, or up to
 * FLOWNET_SPRAY_MAX when it sprays. A piece (from a pool, with its own arrival event) is the part
 * of a message one QP carries; the QP keeps its pieces in order and sends the head one.
 *
 * One event per message. A piece alone on its links, its QP's only one, has its arrival scheduled
 * at its start and no event for its end: its stream is lazy until something reaches it, and its
 * ended flow is held on its path for the QP's next piece (stream_lazify, stream_settle). Off
 * (flownet_one_event), every end is an event (stream_sent): the reference the tests compare with.
 *
 * Batching. Everything that changes the set of fluid flows (a piece starts or finishes, a flow
 * moves or stalls) only records the change (fluid_defer); one commit event at the same instant
 * solves the union of the touched components once and reschedules the completion of every flow
 * whose rate it changed. A ring step starting 1,000 flows at one picosecond costs one solve.
 */
#include "flownet.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/fastdiv.h"
#include "../lb/lb.h"
#include "../net/fluid.h"
#include "nic_int.h"

#define CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

typedef struct fn_piece fn_piece;
/* Two cache lines (a pool aligned to them: flownet_new). A lazy piece also keeps its stream's
 * lazy record (end_ps, start_ps, start_bits, prev_last): the piece is written at the message's
 * start anyway and read at its end, and the stream's own hot fields then fit its first line. */
struct fn_piece {
    pool_hdr hdr;
    event ev; /* arrival of its last frame at the receiver */
    fn_piece *next;
    msg *m;
    flow *f;
    uint8_t prio; /* its flow's traffic class (kept here: the flow is cold by its end) */
    uint8_t lazy; /* its stream is lazy: its arrival is scheduled, its end is not */
    uint32_t q;   /* its QP */
    /* second line */
    uint64_t bytes;      /* payload */
    uint64_t line_bytes; /* its frames on the wire: frame + preamble/SFD + IFG each */
    uint32_t frames;
    uint32_t last_line; /* line bytes of its last frame */
    sim_time arrive_ps; /* the latest arrival over its streams so far */
    /* lazy (stream_lazify): its last bit leaves the sender at end_ps; its stream's flow was
     * (re)filled with start_bits at start_ps (the stream's `bits` then: a sync of the counters
     * moves those on, flownet_finish); its QP's last_arrive before its arrival was set */
    sim_time end_ps, start_ps, prev_last;
    double start_bits;
};
_Static_assert(sizeof(fn_piece) <= 128, "a piece is two cache lines");

/* Laid out for the one-event path: a message's start and end read and write its first line
 * only (with its QP's line and its piece; the lazy record is the piece's); then the event and
 * the path (read when it is walked, flushed or its end is an event). Its QP is its index
 * (stream_qp). Aligned to cache lines (flownet_new). */
typedef struct fn_stream {
    _Alignas(64) uint32_t fid; /* fluid flow, FLUID_NONE when not sending */
    /* cache: the path walked in routing epoch `epoch` (its links below, whether one is down),
     * and lat_ps for a piece of lat_frames / lat_last */
    uint32_t epoch, lat_frames, lat_last;
    uint8_t n_links;
    bool busy;    /* carries a share of the head piece (sending or stalled) */
    bool stalled; /* its path has no route or crosses a down link */
    bool lazy;    /* one event: its fluid flow is lazy (fluid.h), its piece's arrival is
                   * scheduled and its last bit leaving is not (stream_settle) */
    bool down;
    double bits;     /* bits of its share when its fluid flow was (re)started, or last
                      * counted (flownet_finish) */
    double rate_bps; /* lazy: its fluid flow's rate (unchanged while it is lazy) */
    sim_time lat_ps; /* its piece's last frame from leaving the sender to the receiver */
    /* the transport class's traffic it moved on its current path and not yet added to the
     * links' sums (stream_flush): line bytes and the frames they stand for */
    double acc_line, acc_frames;
    /* second line */
    event ev; /* its fluid flow's last bit leaves the sender */
    flownet *fn;
    double left_bits; /* stalled: what it has left */
    /* of the path (set with it): the links' deliver_ps summed, and their common rate (0 when
     * they differ) — a piece's latency on a uniform path needs nothing else */
    sim_time path_d;
    uint64_t path_rate;
    uint32_t paths; /* spray: the paths its walk met */
    uint32_t links[FLOWNET_MAX_HOPS];
} fn_stream;
_Static_assert(offsetof(fn_stream, ev) == 64, "a stream's hot fields are its first line");

/* A uniform path's latency for one piece shape, less the path's summed deliver_ps (`grid`),
 * and the piece's serialization `fl` (path_latency). */
#define FLOWNET_LAT_MEMO 256
typedef struct fn_lat_memo {
    uint32_t frames, last_line, nl;
    uint64_t rate;
    sim_time grid, fl;
} fn_lat_memo;

/* A link's traffic so far (the transport's class): line bytes, frames, busy ps. */
typedef struct link_sum {
    double wire, frames, busy;
} link_sum;

/* One cache line (aligned: flownet_new). */
typedef struct fn_qp {
    _Alignas(64) fn_piece *head;
    fn_piece *tail;       /* head: the piece being sent */
    sim_time last_arrive; /* its latest piece's arrival: pieces arrive in order (RC) */
    uint8_t busy;         /* streams still sending the head piece */
    uint8_t n_streams;    /* streams the head piece uses */
    sim_time chain_end;   /* lazy and sending: its last piece's end (stream_chain reads it
                           * here, not in that piece's cold second line) */
    event stall;          /* queued while a stream is stalled: its retry budget runs out */
    flownet *fn;
} fn_qp;
_Static_assert(sizeof(fn_qp) == 64, "fn_qp is one cache line");

/* A flow's successor (flownet.succ): where the work its message released posted (last). Kept
 * (and prefetched) only when the connections' flow-level state is larger than this: below it
 * the lines are mostly in cache and the hint's loads cost more than they hide (measured on a
 * machine with an 8 MiB last-level cache, llama3-70b iterations: 1,024 and 4,096 GPUs, 1.1 and
 * 4.3 MB of connections, 5-8 % slower with it; 16,384 GPUs, 17 MB, the same; 131,072 GPUs,
 * 138 MB, 659 s of run without it, 444 s with it). */
#define FLOWNET_SUCC_MIN_BYTES (16.0 * 1024 * 1024)

typedef struct fn_succ {
    uint32_t flow, q;
} fn_succ;
#define FN_SUCC_NONE UINT32_MAX

struct flownet {
    transport *t;
    net *n;
    sim *s;
    fluid *fl;
    uint32_t k;      /* streams per QP */
    uint32_t k_log2; /* k = 2^k_log2 */
    bool spray, adaptive;
    bool one_event;   /* lazy streams allowed (flownet_one_event) */
    bool sticky;      /* a path is kept while it works (its choice is not a function of the flow) */
    bool cache;       /* paths are a function of the routing (not of load or a draw): walk once */
    uint32_t epoch;   /* routing epoch: bumped at every net change */
    fn_qp *qps;       /* [cap_qps], cache-line aligned in qps_mem */
    fn_stream *st;    /* [cap_qps × k], aligned in st_mem */
    void *qps_mem, *st_mem;
    uint32_t *fid_st; /* fluid id -> stream index */
    link_sum *sums;   /* [n_ports] */
    uint64_t cap_st;
    pool pieces;
    event commit;
    uint64_t live;
    uint64_t inflight; /* payload of pieces sent and not arrived */
    flownet_stats stats;
    fastdiv mtu;                /* the transport's MTU as a reciprocal (piece_wire) */
    fluid_finish_memo fin_memo; /* a refilled flow's finish (stream_go) */
    fn_lat_memo lat_memo[FLOWNET_LAT_MEMO]; /* path_latency's, zeroed: empty (rate 0) */
    /* Per flow, what was posted when its last message completed (flownet_prefetch): the
     * flow and first QP that the receiver's work posted to next (a ring's next hop), or
     * FN_SUCC_NONE. Learned by piece_arrive; read only to prefetch. */
    fn_succ *succ; /* [cap_flows], NULL below FLOWNET_SUCC_MIN_BYTES */
    flow *posted;  /* the flow of the last flownet_post */
};

/* The QP stream x belongs to (streams are stored QP by QP, k each). */
static inline uint32_t stream_qp(const flownet *fn, const fn_stream *x)
{
    return (uint32_t)((uint64_t)(x - fn->st) >> fn->k_log2);
}

static void stream_sent(void *ctx, event *ev);
static void piece_arrive(void *ctx, event *ev);
static void commit_fire(void *ctx, event *ev);
static void qp_stall_fire(void *ctx, event *ev);
static void on_net_change(void *ctx);
static void lazy_hook(void *ctx, uint32_t fid);
static void stream_settle(flownet *fn, fn_stream *x, bool release);
static void lazy_release(flownet *fn, fn_stream *x);
static void flownet_prefetch(void *ctx, const event *far, const event *mid, const event *near);
static void flownet_prefetch_succ(void *ctx, const event *far, const event *mid,
                                  const event *near);
static bool stream_relazify(flownet *fn, fn_stream *x, uint32_t q, fn_piece *pc, sim_time fin);

flownet *flownet_new(transport *t)
{
    flownet *fn = xcalloc(1, sizeof *fn, "flow-level network");
    const scenario *sc = t->sc;
    fn->t = t;
    fn->n = t->net;
    fn->s = t->net->sim;
    /* UET gives every packet a fresh entropy: over ECMP its packets spread like spray */
    fn->spray = sc->lb.mode == LB_SPRAY || t->uet;
    fn->adaptive = !fn->spray && (sc->lb.mode == LB_ADAPTIVE || sc->lb.mode == LB_FLOWLET);
    fn->k = fn->spray ? FLOWNET_SPRAY_MAX : 1;
    while (1u << fn->k_log2 < fn->k)
        fn->k_log2++;
    fn->sticky = fn->spray || fn->adaptive || sc->lb.hash == HASH_RANDOM;
    fn->cache = !fn->adaptive && (fn->spray || sc->lb.hash != HASH_RANDOM);
    fn->epoch = 1;
    fn->mtu = fastdiv_make(t->mtu);
    double *cap = xmalloc(sizeof(double) * (fn->n->n_ports ? fn->n->n_ports : 1), "link rates");
    for (uint32_t i = 0; i < fn->n->n_ports; i++)
        cap[i] = (double)fn->n->ports[i]->rate_bps;
    fn->fl = fluid_new(fn->n->n_ports, cap);
    xfree(cap);
    fluid_defer(fn->fl, true);
    fluid_fast_paths(fn->fl, !fn->adaptive);
    fn->one_event = fn->k == 1;
    fluid_lazy_hook(fn->fl, lazy_hook, fn);
    uint64_t nq = t->cap_qps ? t->cap_qps : 1;
    fn->qps = xcalloc_lines(nq, sizeof(fn_qp), &fn->qps_mem, "flow-level QPs");
    fn->cap_st = nq * fn->k;
    fn->st = xcalloc_lines(fn->cap_st, sizeof(fn_stream), &fn->st_mem, "flow-level streams");
    fn->fid_st = xmalloc(sizeof(uint32_t) * fn->cap_st, "fluid flow owners");
    fn->sums = xcalloc(fn->n->n_ports ? fn->n->n_ports : 1, sizeof(link_sum), "link sums");
    for (uint64_t q = 0; q < nq; q++) {
        fn->qps[q].fn = fn;
        event_init(&fn->qps[q].stall, qp_stall_fire);
        for (uint32_t k = 0; k < fn->k; k++) {
            fn_stream *x = &fn->st[q * fn->k + k];
            event_init(&x->ev, stream_sent);
            x->fn = fn;
            x->fid = FLUID_NONE;
        }
    }
    pool_init_aligned(&fn->pieces, "flow-level pieces", sizeof(fn_piece), 1024, 64);
    event_init(&fn->commit, commit_fire);
    fn->n->on_change = on_net_change;
    fn->n->change_ctx = fn;
    if (!fn->s->prefetch) /* (topo.c installs the packet model's only at packet fidelity) */
        sim_set_prefetch(fn->s, flownet_prefetch, fn, NULL);
    double conn_bytes = (double)(t->cap_flows ? t->cap_flows : 1) *
                        (double)(sizeof(flow) + sizeof(fn_qp) + fn->k * sizeof(fn_stream));
    flownet_successor_hint(fn, conn_bytes > FLOWNET_SUCC_MIN_BYTES);
    return fn;
}

void flownet_successor_hint(flownet *fn, bool on)
{
    if (on && !fn->succ) {
        uint64_t nf = fn->t->cap_flows ? fn->t->cap_flows : 1;
        fn->succ = xmalloc(sizeof(fn_succ) * nf, "flow successors");
        for (uint64_t i = 0; i < nf; i++)
            fn->succ[i].flow = fn->succ[i].q = FN_SUCC_NONE;
    } else if (!on && fn->succ) {
        xfree(fn->succ);
        fn->succ = NULL;
    }
    if (fn->s->prefetch_ctx == fn)
        sim_set_prefetch(fn->s, fn->succ ? flownet_prefetch_succ : flownet_prefetch, fn, NULL);
}

bool flownet_successor(const flownet *fn, uint32_t flow_id, uint32_t *succ, uint32_t *q)
{
    if (!fn->succ || flow_id >= fn->t->n_flows || fn->succ[flow_id].flow == FN_SUCC_NONE)
        return false;
    *succ = fn->succ[flow_id].flow;
    *q = fn->succ[flow_id].q;
    return true;
}

/*
 * The flow level's prefetch hook (sim.h; the packet model's is net_prefetch). A flow-level run
 * is mostly piece arrivals, each of which reads lines its message last touched long before —
 * its piece's second line, its flow, its message, its QP and its stream — and waits for each in
 * turn; and ends of shared streams (stream_sent), which read their QP, its head piece and the
 * piece behind it. The events due next are known (sim_run), so these are fetched ahead, each
 * level one event later than the line it is read from: the event SIM_PREFETCH_FAR ahead (its
 * own line is in cache by then) gives every line its arrival needs and a stream's QP; the next
 * events the QP's head piece, then the piece behind it. Reads only; what it reads stays valid
 * while the event is queued.
 *
 * An arrival's handler also posts: the receiver's next work (a ring's next step) goes out on
 * another connection, whose flow, QP, stream and last piece were last touched a whole ring
 * round before and are cold. Which connection that is was learned the last time this flow's
 * message completed (fn_succ: the post its completion made), so the far event fetches
 * that record, the middle one what it names, the next one that QP's last piece. At 131,072
 * GPUs this took a 1.22 G-event iteration from 659 to 444 s (docs/performance.md, sixth round).
 * A wrong or stale hint costs a few useless fetches, never a result.
 */
static inline __attribute__((always_inline)) void prefetch_events(const flownet *fn,
                                                                   const event *far,
                                                                   const event *mid,
                                                                   const event *near, bool succ)
{
    const flow *flows = fn->t->flows;
    if (far) {
        if (far->fn == piece_arrive) {
            const fn_piece *pc = CONTAINER_OF(far, fn_piece, ev);
            __builtin_prefetch(&pc->bytes); /* its second line */
            __builtin_prefetch(pc->f);
            __builtin_prefetch(pc->m);
            __builtin_prefetch(&fn->qps[pc->q]);
            __builtin_prefetch(&fn->st[(uint64_t)pc->q << fn->k_log2]);
            if (succ)
                __builtin_prefetch(&fn->succ[pc->f - flows]);
        } else if (far->fn == stream_sent) {
            const fn_stream *x = CONTAINER_OF(far, fn_stream, ev);
            __builtin_prefetch(x);
            __builtin_prefetch(&fn->qps[stream_qp(fn, x)]);
        }
    }
    if (mid) {
        if (succ && mid->fn == piece_arrive) { /* what the receiver's next post will touch */
            const fn_succ *sc = &fn->succ[CONTAINER_OF(mid, fn_piece, ev)->f - flows];
            if (sc->flow != FN_SUCC_NONE) {
                __builtin_prefetch(&flows[sc->flow]);
                __builtin_prefetch(&fn->qps[sc->q]);
                const fn_stream *x = &fn->st[(uint64_t)sc->q << fn->k_log2];
                __builtin_prefetch(x);
                __builtin_prefetch(&x->path_d); /* its path (a new piece shape's latency) */
            }
        } else if (mid->fn == stream_sent) {
            const fn_piece *pc = fn->qps[stream_qp(fn, CONTAINER_OF(mid, fn_stream, ev))].head;
            if (pc) {
                __builtin_prefetch(pc);
                __builtin_prefetch(&pc->bytes);
            }
        }
    }
    if (near) {
        if (succ && near->fn == piece_arrive) { /* the QP's last piece, which the post links to */
            const fn_succ *sc = &fn->succ[CONTAINER_OF(near, fn_piece, ev)->f - flows];
            if (sc->flow != FN_SUCC_NONE && fn->qps[sc->q].tail)
                __builtin_prefetch(fn->qps[sc->q].tail);
        } else if (near->fn == stream_sent) {
            const fn_piece *pc = fn->qps[stream_qp(fn, CONTAINER_OF(near, fn_stream, ev))].head;
            if (pc && pc->next) {
                __builtin_prefetch(pc->next);
                __builtin_prefetch(&pc->next->bytes);
            }
        }
    }
}

/* Two instances (flownet_new installs one): without the successor hint, the hook is what it was
 * before the hint existed, with no test for it in each event's path. */
static void flownet_prefetch(void *ctx, const event *far, const event *mid, const event *near)
{
    prefetch_events(ctx, far, mid, near, false);
}

static void flownet_prefetch_succ(void *ctx, const event *far, const event *mid,
                                  const event *near)
{
    prefetch_events(ctx, far, mid, near, true);
}

void flownet_free(flownet *fn)
{
    if (!fn)
        return;
    if (fn->n->change_ctx == fn) {
        fn->n->on_change = NULL;
        fn->n->change_ctx = NULL;
    }
    pool_destroy(&fn->pieces);
    xfree(fn->succ);
    fluid_free(fn->fl);
    xfree(fn->fid_st);
    xfree(fn->sums);
    xfree_lines(fn->st_mem, fn->cap_st, sizeof(fn_stream));
    xfree_lines(fn->qps_mem, fn->cap_st / fn->k, sizeof(fn_qp));
    xfree(fn);
}

/* ---- paths ----------------------------------------------------------------------------------- */

/* Fluid load of a link: the rates of the flows on it (adaptive balancing). */
static double link_load(const flownet *fn, const port *p)
{
    return fluid_link_load_bps(fn->fl, p->id);
}

/* The member an adaptive switch takes: least fluid load, scanning from the hashed member. */
static uint32_t least_loaded(const flownet *fn, const node *sw, const ecmp_group *g, uint32_t start)
{
    uint32_t best = start;
    double best_load = link_load(fn, &sw->ports[g->member[start]]);
    for (uint32_t i = 1; i < g->n; i++) {
        uint32_t k = start + i < g->n ? start + i : start + i - g->n;
        double load = link_load(fn, &sw->ports[g->member[k]]);
        if (load < best_load) {
            best_load = load;
            best = k;
        }
    }
    return best;
}

/* Walk QP q's path (its k-th spray path) from its sender to its receiver: the links (port ids)
 * into `links`. Returns the number of links, 0 when there is no route (a switch without one, or a
 * loop); *down is set when a link on it is down. `paths` (spray) receives the number of distinct
 * paths the walk met (the product of the group sizes along it, capped). */
static uint32_t walk_path(flownet *fn, const qp *q, uint32_t k, uint32_t *links, bool *down,
                          uint32_t *paths)
{
    net *n = fn->n;
    const flow *f = q->f;
    const transport *t = fn->t;
    packet pk;
    memset(&pk, 0, sizeof pk);
    pk.src = f->src;
    pk.dst = f->dst;
    pk.sport = q->sport;
    pk.path = (uint16_t)(f->path + (q - f->qps));
    pk.kind = PKT_DATA;
    pk.prio = f->prio;
    pk.frame_bytes = wire_data_frame(t->mtu, 0);
    uint32_t digit = k, prod = 1, nl = 0;
    *down = false;
    const node *x = t->nics[f->src].host;
    port *p = &((node *)x)->ports[q->egress];
    for (;;) {
        if (nl == FLOWNET_MAX_HOPS)
            return 0;
        links[nl] = p->id;
        if (!p->up)
            *down = true;
        nl++;
        x = p->peer->owner;
        if (x->kind == NODE_HOST) {
            if (x->index == f->dst)
                break;
            /* rail-only PXN: a peer GPU's NIC relays it */
            p = &((node *)x)->ports[net_host_egress(n, x, f->dst)];
            continue;
        }
        uint32_t gid = net_fib(x, f->dst);
        if (gid == UINT32_MAX)
            return 0;
        const ecmp_group *g = &n->groups[gid];
        uint32_t m = 0;
        pk.in_port = (uint16_t)p->peer->index;
        pk.hops++;
        if (g->n > 1) {
            if (fn->spray) {
                m = digit % g->n;
                digit /= g->n;
                prod = prod > FLOWNET_SPRAY_MAX / g->n ? FLOWNET_SPRAY_MAX : prod * g->n;
            } else if (fn->adaptive) {
                m = least_loaded(fn, x, g, lb_hash(&t->sc->lb, x, &pk) % g->n);
            } else {
                m = n->pick(n->pick_ctx, (node *)x, g, &pk);
            }
        }
        p = &((node *)x)->ports[g->member[m]];
    }
    if (paths)
        *paths = prod;
    return nl;
}

/*
 * The latency of piece pc over a path: its time alone on the idle path minus its fluid time
 * alone (line bits / the path's slowest link), so that alone it takes the packet model's time to
 * the picosecond. The packet model's time alone is that of a tandem of store-and-forward
 * servers (the NIC, then every egress on the way), each frame j taking s_h(j) at hop h and every
 * link its deliver_ps: the last frame leaves hop H at the longest monotone path through the
 * (frame × hop) grid of service times (max-plus: D(j,h) = max(D(j−1,h), D(j−1... )) + s). With a
 * piece's frames in three blocks — the first (RETH), n − 2 full ones, the last — the path crosses
 * a block of k equal frames at hops h..h' in Σ s_i + (k − 1)·max s_i, so a dynamic programme over
 * the blocks and hops is exact (O(blocks × hops²)). On a uniform path it is Σ ser(frames) +
 * H · ser(largest frame) + Σ deliver: each switch waits for the largest frame ahead of the last.
 */
static sim_time path_latency(flownet *fn, const fn_stream *x, const fn_piece *pc)
{
    const uint32_t *links = x->links;
    uint32_t nl = x->n_links;
    const transport *t = fn->t;
    uint32_t vx = t->net->vxlan == VTEP_HOST + 1 ? WIRE_VXLAN_OVERHEAD : 0;
    uint64_t n = pc->frames;
    uint32_t fsz[3];
    uint64_t cnt[3];
    uint32_t nb = 0;
    if (n == 1) {
        fsz[nb] = pc->last_line;
        cnt[nb++] = 1;
    } else {
        fsz[nb] = wire_data_frame(t->mtu, 1) + vx + WIRE_LINE_EXTRA;
        cnt[nb++] = 1;
        if (n > 2) {
            fsz[nb] = wire_data_frame(t->mtu, 0) + vx + WIRE_LINE_EXTRA;
            cnt[nb++] = n - 2;
        }
        fsz[nb] = pc->last_line;
        cnt[nb++] = 1;
    }
    sim_time v[FLOWNET_MAX_HOPS], w[FLOWNET_MAX_HOPS], d = x->path_d;
    if (x->path_rate) {
        /* every hop at one rate: the frames once (at the NIC) and, at each later hop, the
         * largest frame (the longest path through the grid) — a function of the piece's shape,
         * the rate and the hop count, which a ring's streams share: looked up first */
        uint64_t r = x->path_rate;
        uint32_t slot = (uint32_t)((pc->frames * 0x9e3779b1u) ^ (pc->last_line * 0x85ebca6bu) ^
                                   (uint32_t)(r >> 20) ^ nl) %
                        FLOWNET_LAT_MEMO;
        fn_lat_memo *e = &fn->lat_memo[slot];
        if (e->frames != pc->frames || e->last_line != pc->last_line || e->rate != r ||
            e->nl != nl) {
            sim_time sum = 0;
            uint32_t fmax = 0;
            for (uint32_t b = 0; b < nb; b++) {
                sum += cnt[b] * sim_ser_time(fsz[b], r);
                fmax = fsz[b] > fmax ? fsz[b] : fmax;
            }
            e->frames = pc->frames;
            e->last_line = pc->last_line;
            e->rate = r;
            e->nl = nl;
            e->grid = sum + (nl - 1) * sim_ser_time(fmax, r);
            e->fl = sim_ser_time(pc->line_bytes, r);
        }
        sim_time alone = e->grid + d;
        return alone > e->fl ? alone - e->fl : 0;
    }
    for (uint32_t b = 0; b < nb; b++) {
        for (uint32_t h2 = 0; h2 < nl; h2++) {
            sim_time best = 0, sum = 0, mx = 0;
            /* enter the block at hop h (from the previous block's last frame at hop h) */
            for (uint32_t h = h2 + 1; h-- > 0;) {
                sim_time s = sim_ser_time(fsz[b], fn->n->ports[links[h]]->rate_bps);
                sum += s;
                if (s > mx)
                    mx = s;
                if (!b && h)
                    continue; /* the first frame starts at the NIC */
                sim_time c = (b ? v[h] : 0) + sum + (cnt[b] - 1) * mx;
                if (c > best)
                    best = c;
            }
            w[h2] = best;
        }
        memcpy(v, w, sizeof(sim_time) * nl);
    }
    uint64_t rmin = UINT64_MAX;
    for (uint32_t h = 0; h < nl; h++)
        if (fn->n->ports[links[h]]->rate_bps < rmin)
            rmin = fn->n->ports[links[h]]->rate_bps;
    sim_time alone = v[nl - 1] + d;
    sim_time fl = sim_ser_time(pc->line_bytes, rmin);
    return alone > fl ? alone - fl : 0;
}

/* ---- counters ----------------------------------------------------------------------------------
 */

/* Stream x moved `bits` line bits of piece pc over its path: the ports' counters. */
static void account(flownet *fn, fn_stream *x, const fn_piece *pc, double bits)
{
    if (bits <= 0 || !pc->line_bytes)
        return;
    double line = bits / 8.0;
    /* the whole piece (the common case): its frames, which the division gives exactly too */
    double frames = line == (double)pc->line_bytes
                        ? (double)pc->frames
                        : line * (double)pc->frames / (double)pc->line_bytes;
    int c = pc->prio;
    if (c != fn->t->prio) {
        /* another traffic class (rare): straight into the ports' counters */
        uint64_t wire = (uint64_t)(line + 0.5), fr = (uint64_t)(frames + 0.5);
        uint64_t mac = wire > fr * WIRE_LINE_EXTRA ? wire - fr * WIRE_LINE_EXTRA : 0;
        for (uint32_t j = 0; j < x->n_links; j++) {
            port *p = fn->n->ports[x->links[j]];
            /* the port's totals sum its classes (net_port_tx_bytes); the line bytes not
             * made of a class's frames (rounding) stay beside them, modulo 2^64 */
            p->tx_other_wire_bytes += wire - mac - fr * WIRE_LINE_EXTRA;
            p->cls[c].tx_bytes += mac;
            p->cls[c].tx_packets += fr;
            p->busy_ps += (uint64_t)(bits / fluid_cap_bps(fn->fl, x->links[j]) * 1e12 + 0.5);
        }
        return;
    }
    /* the transport's class: into the stream's own sums, added to its path's links when the
     * path changes or at the end (stream_flush): a piece's end touches no link */
    x->acc_line += line;
    x->acc_frames += frames;
}

/* What stream x moved on its path so far into the links' compact sums (ports are large and a
 * flow's end would touch one cache line per link of them; flushed to them at the end,
 * flush_counters). Busy time is line bits over each link's rate. */
static void stream_flush(flownet *fn, fn_stream *x)
{
    if (x->acc_line <= 0)
        return;
    for (uint32_t j = 0; j < x->n_links; j++) {
        link_sum *ls = &fn->sums[x->links[j]];
        ls->wire += x->acc_line;
        ls->frames += x->acc_frames;
        ls->busy += x->acc_line * 8.0 / fluid_cap_bps(fn->fl, x->links[j]) * 1e12;
    }
    x->acc_line = x->acc_frames = 0;
}

/* The compact sums into the ports' counters (once, at the end). */
static void flush_counters(flownet *fn)
{
    int c = fn->t->prio;
    for (uint32_t l = 0; l < fn->n->n_ports; l++) {
        link_sum *ls = &fn->sums[l];
        if (ls->wire <= 0)
            continue;
        port *p = fn->n->ports[l];
        uint64_t wire = (uint64_t)(ls->wire + 0.5), fr = (uint64_t)(ls->frames + 0.5);
        uint64_t mac = wire > fr * WIRE_LINE_EXTRA ? wire - fr * WIRE_LINE_EXTRA : 0;
        p->tx_other_wire_bytes += wire - mac - fr * WIRE_LINE_EXTRA; /* as in account() */
        p->cls[c].tx_bytes += mac;
        p->cls[c].tx_packets += fr;
        p->busy_ps += (uint64_t)(ls->busy + 0.5);
        ls->wire = ls->frames = ls->busy = 0;
    }
}

/* ---- fluid flows -------------------------------------------------------------------------------
 */

static void want_commit(flownet *fn)
{
    if (!event_queued(&fn->commit))
        sim_at(fn->s, &fn->commit, fn->s->now);
}

static inline fn_stream *stream_of(flownet *fn, uint32_t q, uint32_t k)
{
    return &fn->st[(uint64_t)q * fn->k + k];
}

static bool stream_lazify(flownet *fn, fn_stream *x, sim_time fin, bool held);
static void lazy_fluid_sync(flownet *fn, const fn_stream *x, const fn_piece *pc);

/* Start stream x's fluid flow of `bits` over its path (stalled without one). `may_lazy`: it
 * carries the whole of its QP's head piece, which may end with one event (stream_lazify). */
static void stream_go(flownet *fn, fn_stream *x, double bits, bool down, uint32_t nl, bool may_lazy)
{
    fn_qp *fq = &fn->qps[stream_qp(fn, x)];
    x->busy = true;
    x->bits = bits;
    if (!nl || down) {
        x->stalled = true;
        x->left_bits = bits;
        x->fid = FLUID_NONE;
        if (!event_queued(&fq->stall)) { /* the first of its streams to stall */
            const transport *t = fn->t;
            sim_time budget = t->rto_ps > SIM_TIME_MAX / 512 ? SIM_TIME_MAX / 4
                                                             : t->rto_ps * (t->retry_count + 1ull);
            sim_at(fn->s, &fq->stall, fn->s->now + budget);
        }
        return;
    }
    x->stalled = false;
    if (x->lazy) {
        /* held on this very path (stream_set releases it otherwise): refilled, at the rate an
         * add would give it (see stream_lazify). The fluid's record of it (bits, start) is
         * written only when something reads it (lazy_fluid_sync): the refill touches nothing
         * of the fluid. (Held: its QP had no piece; the head now is the one it carries.) */
        fn_piece *pc = fq->head;
        pc->start_ps = fn->s->now;
        pc->start_bits = bits;
        fn->stats.reused++;
        fn->stats.fluid_flows++;
        if (++fn->live > fn->stats.max_live)
            fn->stats.max_live = fn->live;
        sim_time fin = fluid_finish_memo_at(&fn->fin_memo, pc->start_ps, bits, x->rate_bps);
        x->lazy = false;
        if (!may_lazy || !stream_lazify(fn, x, fin, true)) {
            lazy_fluid_sync(fn, x, pc);
            fluid_unlazy(fn->fl, x->fid);
            sim_at(fn->s, &x->ev, fin);
        }
        return;
    }
    x->fid = fluid_add_bits(fn->fl, x->links, nl, bits, fn->s->now);
    SIM_ASSERT(x->fid < fn->cap_st, "fluid id %u of %llu", x->fid, (unsigned long long)fn->cap_st);
    fn->fid_st[x->fid] = (uint32_t)(x - fn->st);
    if (fluid_rate_bps(fn->fl, x->fid) > 0) {
        /* its rate was written down without a solve (fluid.c's fast path): its finish is
         * known now; a solve at this instant reschedules it if it changes the rate */
        sim_time fin = fluid_finish_ps(fn->fl, x->fid);
        if (!may_lazy || !stream_lazify(fn, x, fin, false)) {
            if (event_queued(&x->ev))
                evq_reschedule(&fn->s->q, &x->ev, fin);
            else
                sim_at(fn->s, &x->ev, fin);
        }
    }
    fn->stats.fluid_flows++;
    if (++fn->live > fn->stats.max_live)
        fn->stats.max_live = fn->live;
    want_commit(fn);
}

/* QP q has no stalled stream any more: its retry budget stops. */
static void qp_unstall(flownet *fn, uint32_t q)
{
    fn_qp *fq = &fn->qps[q];
    for (uint32_t k = 0; k < fq->n_streams; k++)
        if (stream_of(fn, q, k)->stalled)
            return;
    evq_cancel(&fn->s->q, &fq->stall);
}

/* Stream x (path k of QP qq): its path into *links — its own (x->links) from the cache when
 * it was walked in this routing epoch, else walked into buf (walk_path's results). */
static uint32_t stream_path(flownet *fn, fn_stream *x, const qp *qq, uint32_t k, uint32_t *buf,
                            const uint32_t **links, bool *down, uint32_t *paths)
{
    if (fn->cache && x->epoch == fn->epoch && x->n_links) {
        *links = x->links;
        *down = x->down;
        if (paths)
            *paths = x->paths;
        return x->n_links;
    }
    uint32_t p = 1;
    uint32_t nl = walk_path(fn, qq, k, buf, down, &p);
    *links = buf;
    if (paths)
        *paths = p;
    x->paths = p;
    return nl;
}

/* Give stream x the path `links` (walked in the current epoch) for piece pc, and its latency
 * (computed once per piece shape and path). */
static void stream_set(flownet *fn, fn_stream *x, const uint32_t *links, uint32_t nl, bool down,
                       const fn_piece *pc)
{
    /* the same path as its last (a walk without the cache — adaptive, random hash — may pick
     * another of the same length) */
    bool same = x->epoch == fn->epoch && x->n_links == nl &&
                (links == x->links || memcmp(links, x->links, sizeof(uint32_t) * nl) == 0);
    if (!same) {
        stream_flush(fn, x); /* its traffic so far belongs to its old path */
        if (x->lazy)
            lazy_release(fn, x); /* held on its old path */
    }
    if (links != x->links)
        memcpy(x->links, links, sizeof(uint32_t) * nl);
    x->n_links = (uint8_t)nl;
    x->down = down;
    if (!nl) {
        x->lat_ps = 0;
        x->epoch = 0;
        return;
    }
    if (!same) {
        sim_time d = 0;
        uint64_t r = fn->n->ports[links[0]]->rate_bps;
        for (uint32_t h = 0; h < nl; h++) {
            const port *p = fn->n->ports[links[h]];
            d += p->deliver_ps;
            if (p->rate_bps != r)
                r = 0;
        }
        x->path_d = d;
        x->path_rate = r;
    }
    if (!same || x->lat_frames != pc->frames || x->lat_last != pc->last_line) {
        x->lat_ps = path_latency(fn, x, pc);
        x->lat_frames = pc->frames;
        x->lat_last = pc->last_line;
    }
    x->epoch = fn->epoch;
}

/* Start sending QP q's head piece. */
static void piece_start(flownet *fn, uint32_t q)
{
    fn_qp *fq = &fn->qps[q];
    const qp *qq = &fn->t->qps[q];
    fn_piece *pc = fq->head;
    uint32_t buf[FLOWNET_MAX_HOPS];
    const uint32_t *links;
    bool down;
    uint32_t paths = 1;
    fn_stream *x0 = stream_of(fn, q, 0);
    uint32_t nl = stream_path(fn, x0, qq, 0, buf, &links, &down, fn->spray ? &paths : NULL);
    uint32_t ns = 1;
    if (fn->spray) {
        ns = nl ? paths : 1;
        if (ns > pc->frames)
            ns = pc->frames; /* a frame takes one path */
    }
    fq->n_streams = (uint8_t)ns;
    fq->busy = 0;
    pc->arrive_ps = 0;
    for (uint32_t k = 0; k < ns; k++) {
        fn_stream *x = stream_of(fn, q, k);
        if (k) /* spray: path k */
            nl = stream_path(fn, x, qq, k, buf, &links, &down, NULL);
        stream_set(fn, x, links, nl, down, pc);
        /* spray: the piece's line bytes split evenly (the first shares take the remainder) */
        uint64_t lo = 0, hi = pc->line_bytes; /* one path (the common case): no division */
        if (ns > 1) {
            lo = pc->line_bytes * k / ns;
            hi = pc->line_bytes * (k + 1) / ns;
        }
        fq->busy++;
        stream_go(fn, x, (double)(hi - lo) * 8.0, down, nl, ns == 1);
    }
}

/* Stream x's fluid flow ends now (done, moved or aborted): count what it moved. */
static void stream_stop(flownet *fn, fn_stream *x, const fn_piece *pc)
{
    if (x->fid == FLUID_NONE)
        return;
    double left = fluid_left_bits(fn->fl, x->fid, fn->s->now);
    fluid_remove(fn->fl, x->fid, fn->s->now);
    x->fid = FLUID_NONE;
    fn->live--;
    evq_cancel(&fn->s->q, &x->ev);
    account(fn, x, pc, x->bits - left);
    x->bits = left;
    want_commit(fn);
}

/* Every share of QP q's head piece has left the sender: it arrives after its last frame's
 * latency. The next piece becomes the head (its sending is the caller's: piece_start). */
static fn_piece *piece_pop(flownet *fn, uint32_t q)
{
    fn_qp *fq = &fn->qps[q];
    transport *t = fn->t;
    fn_piece *pc = fq->head;
    fq->head = pc->next;
    if (!fq->head)
        fq->tail = NULL;
    t->data_packets_sent += pc->frames;
    t->sent_payload_bytes += pc->bytes;
    fn->inflight += pc->bytes;
    return pc;
}

static void piece_done(flownet *fn, uint32_t q)
{
    fn_qp *fq = &fn->qps[q];
    fn_piece *pc = piece_pop(fn, q);
    /* a QP's frames leave in order and keep it on its path: a short piece behind a long one
     * does not overtake it */
    if (pc->arrive_ps < fq->last_arrive)
        pc->arrive_ps = fq->last_arrive;
    fq->last_arrive = pc->arrive_ps;
    sim_at(fn->s, &pc->ev, pc->arrive_ps);
}

/* ... and the next piece starts now. */
static void piece_sent(flownet *fn, uint32_t q)
{
    piece_done(fn, q);
    if (fn->qps[q].head)
        piece_start(fn, q);
}

/* Lazy piece pc of QP q leaves the sender at fin (its stream's rate fixed, alone on its path):
 * the QP's chain ends there, and its arrival — piece_done's, as of fin: its latency later, in
 * order behind the QP's previous one — is scheduled now. */
static void piece_lazy_arrival(flownet *fn, fn_qp *fq, uint32_t q, fn_piece *pc, sim_time fin,
                               sim_time lat_ps)
{
    pc->end_ps = fin;
    fq->chain_end = fin;
    pc->prev_last = fq->last_arrive;
    sim_time arrive = fin + lat_ps;
    if (arrive < fq->last_arrive)
        arrive = fq->last_arrive;
    fq->last_arrive = arrive;
    pc->arrive_ps = arrive;
    pc->lazy = 1;
    pc->q = q;
    sim_at(fn->s, &pc->ev, arrive);
}

/*
 * One event per message. Stream x, alone on every link of its path at a rate written down at
 * its start (fluid.c's fast path), carries its QP's only piece: nothing can change its rate
 * while it stays alone, and its end frees nobody (it is alone), so the picosecond its last bit
 * leaves (fin) and its arrival are known now. Its arrival is scheduled at once and its end gets
 * no event: the fluid flow is marked lazy (fluid.h). What stream_sent would do at fin is done
 * later (lazy_piece_done): at the piece's arrival, or when anything reaches its QP, one of its
 * links or the counters first — all of which is as of fin, since nothing else happened on its
 * links meanwhile. The fluid flow itself stays on its links after that (held, rate unchanged,
 * as if removed: it is alone and has ended) until something reaches one of them (fluid.c calls
 * lazy_hook: it is removed then, exactly as at fin) or its QP's next piece takes the same path:
 * that piece refills it (stream_go), which is what removing it and adding the next one would
 * give — the links are empty but for it, so the fast path would give it the same rate, its
 * slowest link's capacity. A ring's steps on one connection touch no link at all.
 * Returns false (the caller schedules stream_sent) when x cannot be lazy.
 */
static bool stream_lazify(flownet *fn, fn_stream *x, sim_time fin, bool held)
{
    uint32_t q = stream_qp(fn, x);
    fn_qp *fq = &fn->qps[q];
    fn_piece *pc = fq->head;
    if (!fn->one_event || pc->next || fq->n_streams != 1 || fin >= SIM_TIME_MAX / 2)
        return false;
    if (!held) {
        if (!fluid_lazy(fn->fl, x->fid))
            return false;
        x->rate_bps = fluid_rate_bps(fn->fl, x->fid);
        pc->start_ps = fn->s->now;
        pc->start_bits = x->bits;
        /* (a held stream's end is no event: it was cancelled when it became lazy, and a lazy
         * stream schedules none; its second line stays untouched) */
        if (event_queued(&x->ev))
            evq_cancel(&fn->s->q, &x->ev);
    }
    x->lazy = true;
    piece_lazy_arrival(fn, fq, q, pc, fin, x->lat_ps);
    fn->stats.one_event++;
    return true;
}

/* The fluid's record of lazy stream x's flow (carrying piece pc) as an add (or refill) at its
 * start would have left it — nothing but a read needs it (fluid_left_bits), or a lazy flow made
 * ordinary. */
static void lazy_fluid_sync(flownet *fn, const fn_stream *x, const fn_piece *pc)
{
    fluid_refill(fn->fl, x->fid, pc->start_bits, pc->start_ps);
}

/* Stream x's bits as of its head piece pc: a chained piece's own start_bits until something
 * counts them (lazy_piece_done leaves x->bits < 0 rather than read the piece's cold line). */
static inline void stream_own_bits(fn_stream *x, const fn_piece *pc)
{
    if (x->bits < 0)
        x->bits = pc->start_bits;
}

/* Lazy stream x's piece has left (its end_ps ≤ now): stream_sent's work as of end_ps, but for
 * scheduling the arrival (done) and removing the fluid flow (held: lazy_release). */
static void lazy_piece_done(flownet *fn, fn_stream *x)
{
    uint32_t q = stream_qp(fn, x);
    fn_qp *fq = &fn->qps[q];
    fn_piece *pc = fq->head;
    SIM_ASSERT(x->lazy && x->busy && pc && pc->lazy && pc->end_ps <= fn->s->now,
               "flow level: QP %u has no lazy piece that has left", q);
    pc->lazy = 0;
    stream_own_bits(x, pc);
    account(fn, x, pc, x->bits);
    piece_pop(fn, q);
    if (fq->head) {
        /* a chained piece (stream_chain) started at pc's end: the flow goes on with its bits,
         * which are its start_bits until a sync counts some (x->bits < 0 says so: the piece
         * is not read here, it is cold until its own arrival) */
        x->bits = -1;
        return;
    }
    x->bits = 0;
    x->busy = false;
    fq->busy = 0;
    fn->live--;
}

/* Held stream x's fluid flow leaves its links (as it would have at its last piece's end_ps). */
static void lazy_release(flownet *fn, fn_stream *x)
{
    fluid_remove(fn->fl, x->fid, fn->s->now);
    x->fid = FLUID_NONE;
    x->lazy = false;
    if (fluid_pending(fn->fl))
        want_commit(fn);
}

/* Lazy stream x is reached. Sending: when its last bit has left it is done (lazy_piece_done),
 * else it becomes an ordinary stream — its arrival taken back, its end scheduled, as if it had
 * never been lazy. Then with `release` its fluid flow leaves its links (lazy_release). */
static void stream_settle(flownet *fn, fn_stream *x, bool release)
{
    if (!x->lazy)
        return;
    fn_qp *fq = &fn->qps[stream_qp(fn, x)];
    while (x->busy && fq->head->end_ps <= fn->s->now)
        lazy_piece_done(fn, x); /* the lazy piece, and the chained ones, that have left */
    if (x->busy) {
        fn_piece *pc = fq->head; /* the lazy piece being sent */
        stream_own_bits(x, pc);
        x->lazy = false;
        pc->lazy = 0;
        lazy_fluid_sync(fn, x, pc);
        fluid_unlazy(fn->fl, x->fid);
        evq_cancel(&fn->s->q, &pc->ev);
        pc->arrive_ps = 0;
        fq->last_arrive = pc->prev_last;
        /* the pieces chained behind it are queued ones again: they coalesce at its end
         * (stream_sent), or not, as if they had never been chained */
        for (fn_piece *nx = pc->next; nx; nx = nx->next) {
            nx->lazy = 0;
            evq_cancel(&fn->s->q, &nx->ev);
            nx->arrive_ps = 0;
            fn->stats.coalesced--;
            fn->stats.one_event--;
        }
        if (pc->next) /* its latency (the stream's cache is the last chained piece's) */
            stream_set(fn, x, x->links, x->n_links, false, pc);
        sim_at(fn->s, &x->ev, pc->end_ps);
        fn->stats.woken++;
        return;
    }
    if (release)
        lazy_release(fn, x);
}

/* fluid.c: a change is about to reach a link lazy flow `fid` is alone on. */
static void lazy_hook(void *ctx, uint32_t fid)
{
    flownet *fn = ctx;
    stream_settle(fn, &fn->st[fn->fid_st[fid]], true);
}

/* Every lazy stream settled and released (a fault: paths and capacities change); with
 * `ended_only`, only the pieces that have left are done (the sampler, the end of the run:
 * counters become current; nothing moves). */
static void settle_all(flownet *fn, bool ended_only)
{
    for (uint64_t q = 0; q < fn->t->n_qps; q++) {
        fn_stream *x = stream_of(fn, (uint32_t)q, 0);
        if (!x->lazy)
            continue;
        if (!ended_only)
            stream_settle(fn, x, true);
        else
            while (x->busy && fn->qps[q].head->end_ps <= fn->s->now)
                lazy_piece_done(fn, x);
    }
}

static void stream_sent(void *ctx, event *ev)
{
    fn_stream *x = CONTAINER_OF(ev, fn_stream, ev);
    flownet *fn = x->fn;
    uint32_t q = stream_qp(fn, x);
    fn_qp *fq = &fn->qps[q];
    (void)ctx;
    fn_piece *pc = fq->head;
    sim_time now = fn->s->now;
    account(fn, x, pc, x->bits);
    if (now + x->lat_ps > pc->arrive_ps)
        pc->arrive_ps = now + x->lat_ps;
    fn_piece *nx = pc->next;
    if (fq->busy == 1 && nx && fn->k == 1 && fn->cache && x->epoch == fn->epoch && !x->down) {
        /* Coalescing: the next piece is queued behind this one and takes the same path (a
         * function of the routing, walked in this epoch): its fluid flow would be this one
         * removed and added again at this picosecond — the same flows on every link, the same
         * rates. It continues this flow instead, with no recomputation (the cost at scale is
         * the number of flows: a ring's chunks follow each other on a QP). */
        piece_done(fn, q);
        stream_set(fn, x, x->links, x->n_links, false, nx);
        nx->arrive_ps = 0;
        fq->n_streams = 1;
        x->bits = (double)nx->line_bytes * 8.0;
        fluid_refill(fn->fl, x->fid, x->bits, now);
        fn->stats.coalesced++;
        sim_time fin = fluid_finish_ps(fn->fl, x->fid);
        if (!stream_relazify(fn, x, q, nx, fin))
            sim_at(fn->s, &x->ev, fin);
        return;
    }
    fluid_remove(fn->fl, x->fid, now);
    x->fid = FLUID_NONE;
    fn->live--;
    x->bits = 0;
    x->busy = false;
    want_commit(fn);
    if (--fq->busy == 0)
        piece_sent(fn, q);
}

static void piece_arrive(void *ctx, event *ev)
{
    fn_piece *pc = CONTAINER_OF(ev, fn_piece, ev);
    transport *t = pc->f->tp;
    flownet *fn = t->fn;
    msg *m = pc->m;
    (void)ctx;
    if (pc->lazy) { /* its last bit left at its end_ps */
        SIM_ASSERT(fn->qps[pc->q].head == pc,
                   "flow level: QP %u: a lazy piece arrives out of order", pc->q);
        lazy_piece_done(fn, stream_of(fn, pc->q, 0));
    }
    flow *f = pc->f;
    uint64_t bytes = pc->bytes;
    pool_free(&fn->pieces, pc);
    fn->inflight -= bytes;
    f->delivered_bytes += bytes;
    t->delivered_payload_bytes += bytes; /* it reached the receiving NIC */
    if (f->failed) {                     /* flushed: moved, but never reported complete */
        if (--m->pieces_left == 0)
            pool_free(&t->msgs, m);
        return;
    }
    if (--m->pieces_left == 0) {
        fn->posted = NULL;
        nic_msg_complete(t, m, fn->s->now);
        if (fn->succ && fn->posted) { /* what its completion posted (last) is its successor */
            fn_succ *sc = &fn->succ[f - t->flows];
            sc->flow = (uint32_t)(fn->posted - t->flows);
            sc->q = (uint32_t)(fn->posted->qps - t->qps);
        }
    }
}

static void commit_fire(void *ctx, event *ev)
{
    flownet *fn = CONTAINER_OF(ev, flownet, commit);
    (void)ctx;
    sim_time now = fn->s->now;
    if (!fluid_commit(fn->fl, now))
        return;
    fn->stats.commits++;
    const uint32_t *ids;
    uint32_t nc = fluid_changed(fn->fl, &ids);
    for (uint32_t i = 0; i < nc; i++) {
        fn_stream *x = &fn->st[fn->fid_st[ids[i]]];
        sim_time fin = fluid_finish_ps(fn->fl, ids[i]);
        if (fin == SIM_TIME_MAX) {
            evq_cancel(&fn->s->q, &x->ev);
            continue;
        }
        if (fin < now)
            fin = now;
        if (event_queued(&x->ev))
            evq_reschedule(&fn->s->q, &x->ev, fin);
        else
            sim_at(fn->s, &x->ev, fin);
    }
}

/* ---- the transport's interface -----------------------------------------------------------------
 */

/* Line bytes of a piece of `bytes` payload at MTU `mtu`: its frames, the first with the RETH. */
static void piece_wire(const flownet *fn, fn_piece *pc)
{
    const transport *t = fn->t;
    uint64_t mtu = t->mtu, b = pc->bytes;
    uint32_t vx = t->net->vxlan == VTEP_HOST + 1 ? WIRE_VXLAN_OVERHEAD : 0;
    /* frames: by the reciprocal when the dividend fits 32 bits (every message short of 4 GB) */
    uint64_t n = b + mtu - 1 <= UINT32_MAX ? fastdiv_div(fn->mtu, (uint32_t)(b + mtu - 1))
                                           : (b + mtu - 1) / mtu;
    uint32_t last = (uint32_t)(b - (n - 1) * mtu);
    uint64_t full = wire_data_frame((uint32_t)mtu, 0) + vx + WIRE_LINE_EXTRA;
    uint64_t last_line = wire_data_frame(last, n == 1) + vx + WIRE_LINE_EXTRA;
    pc->frames = (uint32_t)n;
    pc->last_line = (uint32_t)last_line;
    if (n == 1)
        pc->line_bytes = last_line;
    else
        pc->line_bytes =
            wire_data_frame((uint32_t)mtu, 1) + vx + WIRE_LINE_EXTRA + (n - 2) * full + last_line;
}

/* Piece pc (not yet started, behind the last of lazy stream x's QP q, which ends at the QP's
 * chain_end) chained: its end and arrival as of its start then, at the stream's rate, its
 * arrival scheduled. */
static void piece_chain(flownet *fn, uint32_t q, fn_stream *x, fn_piece *pc)
{
    fn_qp *fq = &fn->qps[q];
    stream_set(fn, x, x->links, x->n_links, false, pc); /* its latency */
    pc->start_ps = fq->chain_end; /* the end of the piece it follows */
    pc->start_bits = (double)pc->line_bytes * 8.0;
    sim_time fin = fluid_finish_memo_at(&fn->fin_memo, pc->start_ps, pc->start_bits, x->rate_bps);
    piece_lazy_arrival(fn, fq, q, pc, fin, x->lat_ps);
    fn->stats.coalesced++;
    fn->stats.one_event++;
}

/*
 * One event per message, for a QP that always has its next message: piece pc is posted to QP q
 * whose lazy stream (stream_lazify) is still sending its last piece. That piece's end is when
 * stream_sent would coalesce pc into its fluid flow (the same path, walked in this epoch, one
 * stream): the same flows on every link, so the same rate, which nothing can change while the
 * stream stays alone — pc's end and arrival are known now. pc is chained: its arrival is
 * scheduled, it gets no event for its end, and the stream stays lazy; its start (the previous
 * piece's end) and bits are its lazy record, which lazy_piece_done moves the stream on to.
 * Anything that reaches the stream before the chain's end unchains what has not left
 * (stream_settle). Returns false (the caller settles the stream) when pc cannot be chained.
 */
static bool stream_chain(flownet *fn, uint32_t q, fn_piece *pc)
{
    fn_qp *fq = &fn->qps[q];
    fn_stream *x = stream_of(fn, q, 0);
    fn_piece *tl = fq->tail;
    if (!x->lazy || !x->busy || !tl || fq->chain_end <= fn->s->now || !fn->cache ||
        x->epoch != fn->epoch || x->down || fq->chain_end >= SIM_TIME_MAX / 4 ||
        (double)pc->line_bytes * 8.0 >= x->rate_bps * 1e3)
        return false; /* (the last two: an end past 2^62 ps, where time could wrap) */
    piece_chain(fn, q, x, pc);
    tl->next = pc;
    fq->tail = pc;
    return true;
}

/*
 * Stream x of QP q has just coalesced its QP's next piece pc (stream_sent) and may be alone on
 * its links again (a flow that shared one has left): then, nothing pending at this instant (the
 * last commit's rates stand), its rate is the one an add would give it and nothing can change
 * it while it stays alone — pc's end is known (fin), pc is made lazy as stream_lazify makes a
 * QP's only piece, and the pieces queued behind it are chained. Without this a QP that was
 * reached once stays ordinary (an event per piece) as long as its queue never empties, which a
 * bandwidth-bound ring's never does. Returns false (the caller schedules stream_sent).
 */
static bool stream_relazify(flownet *fn, fn_stream *x, uint32_t q, fn_piece *pc, sim_time fin)
{
    fn_qp *fq = &fn->qps[q];
    if (!fn->one_event || fin >= SIM_TIME_MAX / 4 || fluid_pending(fn->fl))
        return false;
    double rate = fluid_rate_bps(fn->fl, x->fid);
    double bits = 0;
    for (const fn_piece *p = pc->next; p; p = p->next)
        bits += (double)p->line_bytes * 8.0;
    if (!(rate > 0) || bits >= rate * 1e3 || !fluid_lazy(fn->fl, x->fid))
        return false; /* (the queue's end past 2^62 ps: as stream_chain) */
    x->rate_bps = rate;
    x->lazy = true;
    pc->start_ps = fn->s->now;
    pc->start_bits = x->bits;
    piece_lazy_arrival(fn, fq, q, pc, fin, x->lat_ps);
    fn->stats.one_event++;
    for (fn_piece *p = pc->next; p; p = p->next)
        piece_chain(fn, q, x, p);
    if (pc->next) /* the stream's latency cache back to the head's */
        stream_set(fn, x, x->links, x->n_links, false, pc);
    return true;
}

void flownet_post(flownet *fn, flow *f, msg *m)
{
    transport *t = fn->t;
    fn->posted = f; /* piece_arrive's successor hint */
    for (uint32_t i = 0; i < f->n_qps; i++) {
        uint64_t lo = 0, hi = m->bytes; /* one QP (the common case): no 128-bit division */
        if (f->n_qps > 1) {
            lo = (uint64_t)((unsigned __int128)m->bytes * i / f->n_qps);
            hi = (uint64_t)((unsigned __int128)m->bytes * (i + 1) / f->n_qps);
        }
        if (hi == lo)
            continue;
        uint32_t q = (uint32_t)(&f->qps[i] - t->qps);
        fn_qp *fq = &fn->qps[q];
        fn_piece *pc = pool_alloc(&fn->pieces);
        event_init(&pc->ev, piece_arrive);
        pc->next = NULL;
        pc->lazy = 0;
        pc->m = m;
        pc->f = f;
        pc->bytes = hi - lo;
        pc->prio = f->prio;
        piece_wire(fn, pc);
        m->pieces_left++;
        if (fq->head) {
            if (stream_chain(fn, q, pc))
                continue; /* behind a lazy piece still sending: its arrival is scheduled */
            /* a lazy head: done, or made ordinary so this piece follows it */
            stream_settle(fn, stream_of(fn, q, 0), false);
        }
        if (fq->tail) {
            fq->tail->next = pc;
            fq->tail = pc;
        } else {
            fq->head = fq->tail = pc;
            piece_start(fn, q);
        }
    }
}

void flownet_abort(flownet *fn, flow *f)
{
    transport *t = fn->t;
    for (uint32_t i = 0; i < f->n_qps; i++) {
        uint32_t q = (uint32_t)(&f->qps[i] - t->qps);
        fn_qp *fq = &fn->qps[q];
        stream_settle(fn, stream_of(fn, q, 0), true);
        for (uint32_t k = 0; fq->head && k < fq->n_streams; k++) {
            fn_stream *x = stream_of(fn, q, k);
            stream_stop(fn, x, fq->head);
            x->busy = x->stalled = false;
        }
        fq->busy = 0;
        evq_cancel(&fn->s->q, &fq->stall);
        while (fq->head) { /* flushed: never complete */
            fn_piece *pc = fq->head;
            fq->head = pc->next;
            if (--pc->m->pieces_left == 0)
                pool_free(&t->msgs, pc->m);
            pool_free(&fn->pieces, pc);
        }
        fq->tail = NULL;
    }
}

/* A stalled QP used up its retry budget: it fails as the packet model's QP does when its
 * retransmissions exceed retry_count (nic.c qp_rto_fire). */
static void qp_stall_fire(void *ctx, event *ev)
{
    fn_qp *fq = CONTAINER_OF(ev, fn_qp, stall);
    flownet *fn = fq->fn;
    transport *t = fn->t;
    (void)ctx;
    qp *q = &t->qps[fq - fn->qps];
    flow *f = q->f;
    if (f->failed || f->done)
        return;
    t->qps_failed++;
    t->nics[f->src].qps_failed++;
    transport_flow_abort(t, f);
    if (t->on_fail)
        t->on_fail(t->on_fail_ctx, f, q);
}

/* Stream x's current path still works: every link up and each hop a member of its switch's
 * current group towards dst (adaptive, spray and the random hash keep such a path). */
static bool path_valid(const flownet *fn, const fn_stream *x, uint32_t dst)
{
    const net *n = fn->n;
    for (uint32_t j = 0; j < x->n_links; j++) {
        const port *p = n->ports[x->links[j]];
        if (!p->up)
            return false;
        const node *sw = p->owner;
        if (!j || sw->kind != NODE_SWITCH)
            continue;
        uint32_t gid = net_fib(sw, dst);
        if (gid == UINT32_MAX)
            return false;
        const ecmp_group *g = &n->groups[gid];
        bool member = false;
        for (uint32_t m = 0; m < g->n && !member; m++)
            member = g->member[m] == p->index;
        if (!member)
            return false;
    }
    return true;
}

void flownet_reroute(flownet *fn)
{
    transport *t = fn->t;
    settle_all(fn, false);
    fn->epoch++; /* every cached path is walked again */
    if (!fn->epoch)
        fn->epoch = 1;
    sim_time now = fn->s->now;
    uint32_t links[FLOWNET_MAX_HOPS];
    for (uint64_t q = 0; q < t->n_qps; q++) {
        fn_qp *fq = &fn->qps[q];
        if (!fq->head)
            continue;
        const qp *qq = &t->qps[q];
        for (uint32_t k = 0; k < fq->n_streams; k++) {
            fn_stream *x = stream_of(fn, (uint32_t)q, k);
            if (!x->busy)
                continue;
            if (fn->sticky && !x->stalled && path_valid(fn, x, qq->f->dst))
                continue; /* adaptive, sprayed, randomly hashed: it stays while its path works */
            bool down;
            uint32_t nl = walk_path(fn, qq, k, links, &down, NULL);
            bool same = !x->stalled && nl == x->n_links && !down &&
                        memcmp(links, x->links, sizeof(uint32_t) * nl) == 0;
            if (same)
                continue;
            if (x->stalled && (!nl || down))
                continue; /* still nowhere to go */
            double left;
            if (x->stalled) {
                left = x->left_bits;
            } else {
                stream_stop(fn, x, fq->head);
                left = x->bits;
                fn->stats.reroutes++;
            }
            x->epoch = 0; /* a new path: its latency is computed again */
            stream_set(fn, x, links, nl, down, fq->head);
            if (left <= 0) {
                /* nothing left to send: it completes now */
                x->stalled = false;
                x->fid = FLUID_NONE;
                x->busy = false;
                if (now + x->lat_ps > fq->head->arrive_ps)
                    fq->head->arrive_ps = now + x->lat_ps;
                if (--fq->busy == 0) {
                    piece_sent(fn, (uint32_t)q);
                    break;
                }
                continue;
            }
            stream_go(fn, x, left, down, nl, false);
        }
        if (event_queued(&fq->stall))
            qp_unstall(fn, (uint32_t)q);
    }
}

/* Every stream's traffic so far into the links' sums. */
static void flush_streams(flownet *fn)
{
    for (uint64_t i = 0; i < fn->t->n_qps * fn->k; i++)
        stream_flush(fn, &fn->st[i]);
}

static void on_net_change(void *ctx)
{
    flownet *fn = ctx;
    settle_all(fn, false); /* lazy streams end or become ordinary before anything moves */
    flush_streams(fn);     /* busy time so far at the rates it was moved at */
    /* link speeds: the fluid's capacities follow the ports' */
    for (uint32_t i = 0; i < fn->n->n_ports; i++) {
        double r = (double)fn->n->ports[i]->rate_bps;
        if (r != fluid_cap_bps(fn->fl, i))
            fluid_set_cap(fn->fl, i, r, fn->s->now);
    }
    want_commit(fn);
    flownet_reroute(fn);
}

void flownet_sync(flownet *fn)
{
    flownet_finish(fn); /* what every flow moved so far: counted, and its bits left kept */
}

void flownet_finish(flownet *fn)
{
    sim_time now = fn->s->now;
    settle_all(fn, true); /* what has left by now is counted as sent */
    for (uint64_t q = 0; q < fn->t->n_qps; q++) {
        fn_qp *fq = &fn->qps[q];
        for (uint32_t k = 0; fq->head && k < fq->n_streams; k++) {
            fn_stream *x = stream_of(fn, (uint32_t)q, k);
            if (x->fid == FLUID_NONE)
                continue;
            if (x->lazy)
                lazy_fluid_sync(fn, x, fq->head);
            stream_own_bits(x, fq->head);
            double left = fluid_left_bits(fn->fl, x->fid, now);
            account(fn, x, fq->head, x->bits - left);
            x->bits = left;
        }
    }
    flush_streams(fn);
    flush_counters(fn);
}

double flownet_qp_rate(const flownet *fn, uint32_t q)
{
    const fn_qp *fq = &fn->qps[q];
    double r = 0;
    for (uint32_t k = 0; fq->head && k < fq->n_streams; k++) {
        const fn_stream *x = &fn->st[(uint64_t)q * fn->k + k];
        if (x->fid != FLUID_NONE && !(x->lazy && (!x->busy || fq->chain_end <= fn->s->now)))
            r += fluid_rate_bps(fn->fl, x->fid);
    }
    return r;
}

const uint64_t *flownet_live(const flownet *fn)
{
    return &fn->pieces.live;
}

uint64_t flownet_inflight_bytes(const flownet *fn)
{
    return fn->inflight;
}

void flownet_get_stats(const flownet *fn, flownet_stats *out)
{
    *out = fn->stats;
    out->solves = fluid_solves(fn->fl);
    out->assignments = fluid_assignments(fn->fl);
    out->fast = fluid_fast(fn->fl);
}

void flownet_one_event(flownet *fn, bool on)
{
    fn->one_event = on && fn->k == 1;
}
