/*
 * port.c — the packet hot path: egress scheduling and serialization, the wire, switch
 * forwarding, buffer admission, ECN marking and PFC (model in net.h; models.md "Switch").
 *
 * Per frame and hop there are two event-queue operations: the port's tx_done (one per frame) and
 * the link's arrive (scheduled only when the in-flight FIFO was empty, otherwise the frame waits
 * behind the head and is picked up when the head is delivered). Time and byte arithmetic are
 * integers; α of the dynamic threshold is 16.16 fixed point.
 *
 * PFC (IEEE 802.1Qbb). Lossless classes are accounted per (ingress port, class) — the
 * ingress priority group of a switch MMU: a frame goes to the shared pool while that ingress
 * holds less than the XOFF threshold (fixed `xoff`, or the dynamic threshold α·(shared −
 * used)), else into the ingress's own headroom; the first frame that needs headroom makes the
 * switch send PAUSE upstream. As any frame of the (ingress, class) leaves, the headroom is
 * released first and the shared pool after it (switch MMUs charge a priority group's usage to
 * its headroom pool before its shared allocation and return it in the opposite order; SONiC's
 * shared-headroom-pool design, Broadcom/NVIDIA buffer models). Accounting is by bytes, not by
 * which frame sat where: the frames that went to headroom are at the back of the queue, and
 * waiting for them to leave would hold the pause until the queue is empty. RESUME (quanta 0)
 * follows SAI's hysteresis (saibuffer.h SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH): when the
 * ingress's total usage is at or below max(xon, XOFF − xon_offset) and its headroom is empty.
 * PAUSE carries quanta 0xFFFF (of 512 bit times) and is refreshed at half that while the
 * condition lasts; a pause that is not refreshed expires. The upstream port takes the PAUSE
 * into account after the response delay IEEE 802.3 Annex 31B allows at its speed and from then
 * stops *starting* frames of the class (one on the wire completes); RESUME acts at once. PFC
 * frames go out ahead of any queued frame (MAC control) and are never paused. A lossless frame
 * that finds its headroom full is dropped with reason pfc_headroom — it happens only when the
 * headroom is smaller than the link needs (net_pfc_headroom_auto is exactly that need).
 *
 * PFC watchdog (as SONiC PFC_WD): a switch queue paused continuously for `detect` is in a storm:
 * the event is counted, the pause is ignored until no PAUSE has arrived for `restore`, and with
 * action drop the queue's frames and new arrivals for it are discarded (reason pfc_watchdog).
 *
 * Deadlock detection: while any port is paused, every `deadlock_detect` the wait-for graph of
 * paused queues is searched for a cycle (queue A→B waits on B's peer, whose bytes from A sit in
 * its own paused queues); a cycle whose queues have all been paused for that long is a PFC
 * deadlock: the run stops and names the cycle.
 */
#include "net.h"
#include "inttel.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "../core/env.h"
#include "../core/err.h"
#include "../core/sim_loop.h"
#include "../core/hotpath.h"

#define CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static const char *const drop_names[DROP_REASONS] = {
    "buffer_full", "link_down", "bit_error", "no_route", "pfc_watchdog", "ttl", "pfc_headroom",
};

const char *drop_reason_name(enum drop_reason r)
{
    return (unsigned)r < DROP_REASONS ? drop_names[r] : "?";
}

static void port_next(net *n, port *p);
static inline __attribute__((always_inline)) void switch_receive(net *n, node *sw, packet *pkt,
                                                                 bool fast);

/* A frame port p has sent (and counted) will not reach the peer (net_port_rx_bytes). */
static inline void wire_lost(port *p, const packet *pkt)
{
    port_cold *c = net_port_cold(p->owner->owner, p);
    c->lost_bytes += pkt->frame_bytes;
    c->lost_packets++;
}

uint64_t net_port_rx_bytes(const port *p, uint64_t *packets)
{
    const port *q = p->peer;
    const port_cold *qc = port_cold_of(q);
    uint64_t bytes = net_port_tx_bytes(q) - qc->lost_bytes;
    uint64_t pk = net_port_tx_packets(q) - qc->lost_packets;
    for (const packet *f = q->fly.head; f; f = f->next) {
        bytes -= f->frame_bytes;
        pk--;
    }
    for (const packet *f = q->ib ? q->ib->fcp_fly.head : NULL; f; f = f->next) {
        bytes -= f->frame_bytes;
        pk--;
    }
    if (packets)
        *packets = pk;
    return bytes;
}

static inline void fifo_push(pkt_fifo *f, packet *p)
{
    p->next = NULL;
    if (f->tail)
        f->tail->next = p;
    else
        f->head = p;
    f->tail = p;
}

/* Put a frame that arrives at `t` on a wire (a FIFO in arrival order): the frame ahead of it
 * learns when it follows (packet.t_next) in the line the link write touches anyway, so the
 * arrival of that frame schedules the next one without reading the next frame's line (issue
 * #17: a miss per hop at 8,192 hosts). True when the wire was empty: the caller schedules the
 * arrival at `t` (otherwise the arrival event of the head is queued already). */
static inline bool wire_push(pkt_fifo *f, packet *p, sim_time t)
{
    p->next = NULL;
    if (f->tail) {
        f->tail->next = p;
        f->tail->t_next = t;
        f->tail = p;
        return false;
    }
    f->head = f->tail = p;
    return true;
}

static inline packet *fifo_pop(pkt_fifo *f)
{
    packet *p = f->head;
    f->head = p->next;
    if (!f->head)
        f->tail = NULL;
    return p;
}

void net_drop(net *n, port *p, packet *pkt, enum drop_reason r)
{
    port_cold *c = net_port_cold(n, p);
    c->drops[r]++;
    c->prio_drops[pkt->prio & (NET_PRIOS - 1)]++;
    net_tenant_ctr *tc = net_tenant_of(n, pkt);
    if (tc)
        tc->drops++;
    if (pkt->kind == PKT_DATA)
        n->dropped_payload_bytes += pkt->payload_bytes;
    pool_free(&n->pkts, pkt);
}

static inline sim_time pause_quanta_ps(uint64_t rate_bps)
{
    return sim_ser_time((uint64_t)PFC_QUANTA_MAX * PFC_QUANTUM_BITS / 8, rate_bps);
}

/* ---- buffer accounting ------------------------------------------------------------------- */

static inline uint64_t dt_limit(const switch_buf *b)
{
    uint64_t free_bytes = b->size_bytes - b->used_bytes;
    return (uint64_t)(((unsigned __int128)free_bytes * b->alpha_q16) >> 16);
}

/* XOFF threshold of a lossless ingress at switch sw. */
static inline uint64_t pfc_threshold(const net *n, const node *sw)
{
    return n->pfc_xoff_bytes ? n->pfc_xoff_bytes : dt_limit(&sw->buf);
}

/* Ask port p to send a PFC frame for `classes` (PAUSE for those in xoff_sent, else RESUME). */
static inline void pfc_request(net *n, port *p, uint8_t classes)
{
    p->pfc_tx_pending |= classes;
    if (!p->tx_busy && p->up)
        port_next(n, p);
}

/* RESUME when the (ingress, class) usage is at or below max(xon, XOFF − xon_offset) — SAI's
 * XON_TH / XON_OFFSET_TH — and its headroom is empty, so that a new pause always starts with
 * the whole headroom free. */
static inline void xon_check(net *n, node *sw, port *ing, int prio)
{
    uint8_t bit = (uint8_t)(1u << prio);
    if (!ing->cls[prio].xoff || ing->cls[prio].ing_hdrm)
        return;
    uint64_t thr = pfc_threshold(n, sw);
    uint64_t lim = thr > n->pfc_xon_offset_bytes ? thr - n->pfc_xon_offset_bytes : 0;
    if (lim < n->pfc_xon_bytes)
        lim = n->pfc_xon_bytes;
    if (ing->cls[prio].ing_shared > lim)
        return;
    ing->xoff_sent &= (uint8_t)~bit;
    ing->cls[prio].xoff = 0;
    pfc_request(n, ing, bit);
}

/* InfiniBand: the receiving port `ing` frees `blocks` of VL vl (a frame left its buffer, or an
 * HCA took it): the new credit limit goes upstream in an FCP as soon as the wire allows. */
static void ib_free(net *n, port *ing, int vl, uint32_t blocks)
{
    if (!ing->peer->ib)
        return;
    ing->ib->freed[vl] += blocks;
    ing->ib->fcp_pending |= (uint8_t)(1u << vl);
    if (!ing->tx_busy && ing->up)
        port_next(n, ing);
}

/* A buffered frame leaves switch sw from port out (sent, or discarded by the watchdog). Inlined:
 * its call cost 1 % of a fat tree's instructions (issue #17, eleventh round). */
static inline __attribute__((always_inline)) void release(net *n, node *sw, port *out, packet *pkt)
{
    uint32_t fb = pkt->frame_bytes;
    int prio = pkt->prio;
    out->cls[prio].q_bytes -= fb;
    out->q_total_bytes -= fb;
    if (pkt->pfc_pool == PFC_POOL_IB) {
        port *ing = &sw->ports[pkt->in_port];
        uint32_t b = ib_blocks(fb);
        SIM_ASSERT(ing->ib->used[prio] >= b, "credit accounting: ingress %u VL %d holds %u blocks",
                   ing->index, prio, ing->ib->used[prio]);
        ing->ib->used[prio] -= b;
        ib_free(n, ing, prio, b);
        return;
    }
    if (pkt->pfc_pool == PFC_POOL_LOSSY) {
        sw->buf.used_bytes -= fb;
        return;
    }
    /* lossless: headroom first, then the shared pool (the sum always covers the frame) */
    port *ing = &sw->ports[pkt->in_port];
    uint64_t h = ing->cls[prio].ing_hdrm < fb ? ing->cls[prio].ing_hdrm : fb;
    SIM_ASSERT(ing->cls[prio].ing_shared >= fb - h,
               "PFC accounting: ingress %u class %d holds %llu "
               "shared + %llu headroom bytes, releasing a %u-byte frame",
               ing->index, prio, (unsigned long long)ing->cls[prio].ing_shared,
               (unsigned long long)ing->cls[prio].ing_hdrm, fb);
    ing->cls[prio].ing_hdrm -= h;
    ing->cls[prio].ing_shared -= fb - h;
    sw->buf.used_bytes -= fb - h;
    xon_check(n, sw, ing, prio);
}

/* ---- ECN ---------------------------------------------------------------------------------- */

uint64_t net_ecn_prob_q32(const net *n, uint64_t q)
{
    if (q <= n->ecn_kmin_bytes)
        return 0;
    if (q > n->ecn_kmax_bytes)
        return 1ull << 32;
    /* kmin < q <= kmax here, so kmax > kmin: at q = kmax this is exactly Pmax */
    return (uint64_t)(((unsigned __int128)n->ecn_pmax_q32 * (q - n->ecn_kmin_bytes)) /
                      (n->ecn_kmax_bytes - n->ecn_kmin_bytes));
}

/* RED marking of `pkt` at switch sw for a queue of q bytes (switch's stream; a probability of
 * 1 draws nothing). NVLink/NVSwitch does not mark: only fabric switches are congestion points. */
static inline void ecn_mark(net *n, node *sw, port *out, packet *pkt, uint64_t q)
{
    if (pkt->ecn == ECN_NOT_ECT || sw->tier == TIER_SCALE_UP || q <= n->ecn_kmin_bytes)
        return;
    uint64_t p = net_ecn_prob_q32(n, q);
    if (p < (1ull << 32) && (rng_next(&sw->rng) >> 32) >= p)
        return;
    pkt->ecn = ECN_CE;
    out->ecn_marked++;
    net_port_cold(n, out)->prio_ecn_marked[pkt->prio]++;
    net_tenant_ctr *tc = net_tenant_of(n, pkt);
    if (tc)
        tc->ecn_marked++;
}

/* HPCC's INT (inttel.h): a data packet leaving a fabric switch's egress pushes this port's
 * record — now, line bytes sent including it, bytes queued behind it, the link's rate. */
static inline void int_stamp(net *n, const node *sw, const port *p, packet *pkt)
{
    if (pkt->kind != PKT_DATA || sw->tier == TIER_SCALE_UP)
        return;
    int_rec *r = pkt_int(pkt);
    if (r->n >= INT_MAX_HOPS)
        return;
    int_hop *h = &r->hop[r->n++];
    h->ts_ps = n->sim->now;
    h->tx_bytes = net_port_tx_wire_bytes_of(p, n->tx_classes) + wire_line_bytes(pkt);
    h->qlen_bytes = p->q_total_bytes - pkt->frame_bytes;
    h->rate_bps = p->rate_bps;
    h->node = sw->id;
    h->port = p->index;
}

/* ---- transmission ------------------------------------------------------------------------ */

/*
 * Two copies of the frame path (issue #17, twelfth round). The functions every frame passes
 * (port_start_tx, port_next_inline, tx_done, arrive, switch_receive and the prefetch hook) take
 * a constant `fast`: false, the general path, which tests each feature's flag as it comes;
 * true, the path for the features a run has by default, in which InfiniBand credits, the DRE,
 * a packet tap, INT, DWRR, VXLAN, trimming and tenants are absent and ECN is marked at dequeue,
 * so their tests fold away. net_hot_path_select installs the fast handlers (port_arrive_fast,
 * port_tx_done_fast) and the loop with the fast hook when the run has only those features:
 * 4.7 % of a fat tree's instructions go. Both copies are the same code, so the results are
 * too: test_pin runs every pinned scenario both ways.
 */

/* Start serializing `pkt` on p at the current time. `fast`: the frame path for the common
 * features (net.fast), in which the tests of the others are constants. */
static inline __attribute__((always_inline)) void port_start_tx(net *n, port *p, packet *pkt,
                                                                bool fast)
{
    sim_time ser = sim_ser_time(wire_line_bytes(pkt), p->rate_bps);
    sim_time now = n->sim->now;
    if (!fast && n->dre_on) {
        uint64_t halvings = (now - p->dre_last_ps) / NET_DRE_HALF_LIFE_PS;
        p->dre_bytes = (halvings >= 64 ? 0 : p->dre_bytes >> halvings) + wire_line_bytes(pkt);
        p->dre_last_ps += halvings * NET_DRE_HALF_LIFE_PS;
    }
    if (!fast && n->ib && p->ib && pkt->kind != PKT_FCP && pkt->kind != PKT_PAUSE) {
        uint32_t b = ib_blocks(pkt->frame_bytes);
        SIM_ASSERT(p->ib->cr_limit[pkt->prio] - p->ib->cr_sent[pkt->prio] >= b,
                   "port %u started a %u-byte frame on VL %d without credits", p->id,
                   pkt->frame_bytes, pkt->prio);
        p->ib->cr_sent[pkt->prio] += b;
    }
    p->tx_pkt = pkt;
    p->tx_busy = true;
    p->tx_end_ps = now + ser;
    p->busy_ps += ser;
    sim_at(n->sim, &p->tx_done, now + ser);
    if (!fast && n->tap)
        n->tap(n->tap_ctx, p, pkt, now);
}

static void send_pfc_frame(net *n, port *p)
{
    packet *pkt = pool_alloc(&n->pkts);
    memset((char *)pkt + sizeof(pool_hdr), 0, sizeof *pkt - sizeof(pool_hdr));
    pkt->flow = 0; /* the fields the pool header carries (packet.h) */
    pkt->next = NULL;
    pkt->kind = PKT_PAUSE;
    pkt->frame_bytes = WIRE_PFC_FRAME;
    pkt->pfc_vec = p->pfc_tx_pending;
    pkt->pfc_xoff = p->pfc_tx_pending & p->xoff_sent;
    p->pfc_tx_pending = 0;
    if (pkt->pfc_xoff) {
        port_cold *pc = net_port_cold(n, p);
        for (int c = 0; c < NET_PRIOS; c++)
            pc->prio_pause_sent[c] += pkt->pfc_xoff >> c & 1;
        pc->pfc_pause_sent++;
        if (!event_queued(&pc->pfc_refresh))
            sim_at(n->sim, &pc->pfc_refresh, n->sim->now + pause_quanta_ps(p->peer->rate_bps) / 2);
    }
    port_start_tx(n, p, pkt, false);
}

/* InfiniBand: send the FCP of the lowest VL waiting for one, with the limit as of now. */
static void send_fcp(net *n, port *p)
{
    int vl = __builtin_ctz(p->ib->fcp_pending);
    packet *pkt = pool_alloc(&n->pkts);
    memset((char *)pkt + sizeof(pool_hdr), 0, sizeof *pkt - sizeof(pool_hdr));
    pkt->flow = 0; /* the fields the pool header carries (packet.h) */
    pkt->next = NULL;
    p->ib->fcp_pending &= (uint8_t) ~(1u << vl);
    pkt->kind = PKT_FCP;
    pkt->frame_bytes = WIRE_IB_FCP;
    pkt->prio = (uint8_t)vl;
    pkt->psn = p->ib->cap_blocks + p->ib->freed[vl];
    p->ib->fcp_sent++;
    port_start_tx(n, p, pkt, false);
}

void net_credit_block(net *n, port *p, int vl, uint32_t blocks)
{
    uint8_t bit = (uint8_t)(1u << vl);
    if (p->ib->cr_blocked & bit) {
        if (blocks < p->ib->cr_need[vl])
            p->ib->cr_need[vl] = blocks;
        return;
    }
    p->ib->cr_blocked |= bit;
    p->ib->cr_need[vl] = blocks;
    p->ib->cr_block_start[vl] = n->sim->now;
    p->ib->credit_stalls++;
    if (n->deadlock_ps && !event_queued(&n->deadlock_ev))
        sim_at(n->sim, &n->deadlock_ev, n->sim->now + n->deadlock_ps);
}

static inline void credit_unblock(net *n, port *p, int vl)
{
    p->ib->credit_stall_ps += n->sim->now - p->ib->cr_block_start[vl];
    p->ib->cr_blocked &= (uint8_t) ~(1u << vl);
}

/* The classes of `ready` whose head frame has credits on the credit-gated port p. */
static uint8_t credit_ready(net *n, port *p, uint8_t ready)
{
    for (uint8_t r = ready; r; r &= (uint8_t)(r - 1)) {
        int c = __builtin_ctz(r);
        if (!net_credit_ok(n, p, c, p->cls[c].q.head->frame_bytes))
            ready &= (uint8_t) ~(1u << c);
    }
    return ready;
}

/* DWRR among the classes in `ready` (Shreedhar & Varghese): each visit of a class adds its
 * quantum to its deficit; it sends while its head frame fits in the deficit. */
static int drr_pick(net *n, port *p, uint8_t ready)
{
    for (int guard = 0; guard < 4 * NET_PRIOS * 256; guard++) {
        int c = p->drr_cur;
        if (ready & (1u << c)) {
            if (!p->drr_fresh) {
                p->cls[c].drr_deficit += n->drr_quantum[c];
                p->drr_fresh = 1;
            }
            uint32_t sz = p->cls[c].q.head->frame_bytes;
            if (sz <= p->cls[c].drr_deficit) {
                p->cls[c].drr_deficit -= sz;
                return c;
            }
        } else {
            p->cls[c].drr_deficit = 0;
        }
        p->drr_cur = (uint8_t)((c + 1) % NET_PRIOS);
        p->drr_fresh = 0;
    }
    return 31 - __builtin_clz((unsigned)ready); /* unreachable with quanta >= a frame */
}

/* The port is free: send a pending PFC frame, else the next eligible frame, if any. Inlined
 * where every frame passes (a transmission's end, a frame reaching an idle egress); port_next
 * for the rest (issue #17, eleventh round: its call and saved registers were 2 % of a fat
 * tree's instructions). */
static inline __attribute__((always_inline)) void port_next_inline(net *n, port *p, bool fast)
{
    node *o = p->owner;
    if (p->pfc_tx_pending) {
        send_pfc_frame(n, p);
        return;
    }
    if (!fast && n->ib && p->ib && p->ib->fcp_pending) {
        send_fcp(n, p);
        return;
    }
    uint8_t ready = p->q_nonempty & (uint8_t)~p->paused;
    if (!fast && ready && n->ib && p->ib)
        ready = credit_ready(n, p, ready);
    if (!ready) {
        if (o->kind == NODE_HOST) {
            packet *pkt = n->pull(n->host_ctx, o, p);
            if (pkt)
                port_start_tx(n, p, pkt, fast);
        }
        return;
    }
    int prio = !fast && n->dwrr && o->kind == NODE_SWITCH ? drr_pick(n, p, ready)
                                                          : 31 - __builtin_clz((unsigned)ready);
    packet *pkt = fifo_pop(&p->cls[prio].q);
    if (!p->cls[prio].q.head) {
        p->q_nonempty &= (uint8_t)~(1u << prio);
        if (!fast && n->dwrr)
            p->cls[prio].drr_deficit = 0;
    }
    if (o->kind == NODE_HOST) {
        /* relayed frames hold no switch buffer: account them off the queue now */
        p->cls[prio].q_bytes -= pkt->frame_bytes;
        p->q_total_bytes -= pkt->frame_bytes;
    } else {
        if ((fast || n->ecn_at_dequeue) && n->ecn_on)
            /* marking at dequeue: the queue that is still behind this frame (its own bytes
             * stay in q_bytes until its transmission ends) */
            ecn_mark(n, o, p, pkt, p->cls[prio].q_bytes - pkt->frame_bytes);
        if (!fast && n->int_on)
            int_stamp(n, o, p, pkt);
    }
    port_start_tx(n, p, pkt, fast);
}

static void port_next(net *n, port *p)
{
    if (n->fast)
        port_next_inline(n, p, true);
    else
        port_next_inline(n, p, false);
}

/* Per-tenant counters of a frame that port p has sent (net_tenant_ctr). */
static void tenant_count_tx(net_tenant_ctr *c, const port *p, const packet *pkt)
{
    if (p->owner->kind == NODE_HOST) {
        if (p->index == p->owner->net_port) {
            c->nic_tx_bytes += pkt->frame_bytes;
            c->nic_tx_packets++;
        }
    } else if (p->peer->owner->kind == NODE_SWITCH) {
        c->fabric_tx_bytes += pkt->frame_bytes;
        c->fabric_tx_packets++;
    }
}

/* The end of p's transmission (its event: port_tx_done, port_tx_done_fast, or the loops'
 * dispatch). */
static inline __attribute__((always_inline)) void tx_done(port *p, bool fast)
{
    net *n = p->owner->owner;
    packet *pkt = p->tx_pkt;
    if (pkt->kind == PKT_FCP || pkt->kind == PKT_PAUSE) { /* no class counts them */
        p->tx_other_bytes += pkt->frame_bytes;
        p->tx_other_wire_bytes += wire_line_bytes(pkt);
        p->tx_other_packets++;
    }
    if (pkt->kind == PKT_FCP) {
        /* a link packet: read by the peer's link layer after the cable, not its pipeline */
        p->tx_pkt = NULL;
        p->tx_busy = false;
        if (!p->up) {
            wire_lost(p, pkt);
            pool_free(&n->pkts, pkt);
        } else {
            if (wire_push(&p->ib->fcp_fly, pkt, n->sim->now + p->prop_ps))
                sim_at(n->sim, &p->ib->fcp_arrive, n->sim->now + p->prop_ps);
        }
        port_next(n, p);
        return;
    }
    if (pkt->kind != PKT_PAUSE) {
        p->cls[pkt->prio].tx_bytes += pkt->frame_bytes;
        p->cls[pkt->prio].tx_packets++;
        if (__builtin_expect(!(n->tx_classes >> pkt->prio & 1), 0))
            n->tx_classes |= (uint8_t)(1u << pkt->prio);
    }
    n->packet_hops++;
    net_tenant_ctr *tc = fast ? NULL : net_tenant_of(n, pkt);
    if (tc)
        tenant_count_tx(tc, p, pkt);
    /* tx_pkt stays set while the buffer is released, so a RESUME that the release triggers on
     * this very port waits for port_next below instead of starting under the frame. */
    if (p->owner->kind == NODE_SWITCH && pkt->kind != PKT_PAUSE)
        release(n, p->owner, p, pkt);
    p->tx_pkt = NULL;
    p->tx_busy = false;
    if (!p->up) {
        wire_lost(p, pkt);
        net_drop(n, p, pkt, DROP_LINK_DOWN);
    } else {
        if (wire_push(&p->fly, pkt, n->sim->now + p->deliver_ps))
            sim_at(n->sim, &p->arrive, n->sim->now + p->deliver_ps);
    }
    port_next_inline(n, p, fast);
}

/* The transmit-done event's handlers: the general one, and the copy for the common features
 * that net_hot_path_select installs (net.fast). */
static void port_tx_done(void *ctx, event *ev)
{
    (void)ctx;
    tx_done(CONTAINER_OF(ev, port, tx_done), false);
}

static void port_tx_done_fast(void *ctx, event *ev)
{
    (void)ctx;
    tx_done(CONTAINER_OF(ev, port, tx_done), true);
}

static inline void enqueue(port *out, packet *pkt)
{
    uint32_t fb = pkt->frame_bytes;
    out->cls[pkt->prio].q_bytes += fb;
    out->q_total_bytes += fb;
    if (out->q_total_bytes > out->max_q_bytes)
        out->max_q_bytes = out->q_total_bytes;
    fifo_push(&out->cls[pkt->prio].q, pkt);
    out->q_nonempty |= (uint8_t)(1u << pkt->prio);
}

/*
 * A frame for another host reached a host: rail-only PXN, the GPU of the destination's rail
 * forwards what its server's peer GPU handed it over NVLink. It queues in GPU memory (no drop)
 * ahead of the NIC's own traffic. Anything else arriving at the wrong host is a routing bug.
 */
static void host_relay(net *n, node *host, packet *pkt)
{
    SIM_ASSERT(n->hosts_relay, "frame for host %u delivered to host %u", pkt->dst, host->index);
    port *out = &host->ports[net_host_egress(n, host, pkt->dst)];
    enqueue(out, pkt);
    if (!out->tx_busy && out->up)
        port_next(n, out);
}

/* ---- PFC: pause state at the receiving end of a PAUSE ------------------------------------ */

static inline void unpause(port *q, int prio, sim_time now)
{
    port_cold *qc = net_port_cold(q->owner->owner, q);
    qc->pfc_paused_ps += now - qc->pause_start[prio];
    qc->prio_paused_ps[prio] += now - qc->pause_start[prio];
    q->paused &= (uint8_t)~(1u << prio);
}

static void arm_pause_end(net *n, port *q)
{
    port_cold *qc = net_port_cold(n, q);
    sim_time t = SIM_TIME_MAX;
    for (int c = 0; c < NET_PRIOS; c++)
        if ((q->paused >> c & 1) && qc->pause_until[c] < t)
            t = qc->pause_until[c];
    if (t == SIM_TIME_MAX)
        evq_cancel(&n->sim->q, &qc->pause_end);
    else
        evq_reschedule(&n->sim->q, &qc->pause_end, t);
}

static void arm_watchdog(net *n, port *q)
{
    port_cold *qc = net_port_cold(n, q);
    sim_time t = SIM_TIME_MAX;
    for (int c = 0; c < NET_PRIOS; c++) {
        uint8_t bit = (uint8_t)(1u << c);
        sim_time due = SIM_TIME_MAX;
        if (q->wd_storm & bit)
            due = qc->wd_last_rx[c] + n->wd_restore_ps;
        else if (q->paused & bit)
            due = qc->pause_start[c] + n->wd_detect_ps;
        if (due < t)
            t = due;
    }
    if (t == SIM_TIME_MAX)
        evq_cancel(&n->sim->q, &qc->wd_ev);
    else
        evq_reschedule(&n->sim->q, &qc->wd_ev, t);
}

static void arm_pause_apply(net *n, port *q)
{
    port_cold *qc = net_port_cold(n, q);
    sim_time t = SIM_TIME_MAX;
    for (int c = 0; c < NET_PRIOS; c++)
        if ((q->pause_pending >> c & 1) && qc->pause_apply_at[c] < t)
            t = qc->pause_apply_at[c];
    if (t == SIM_TIME_MAX)
        evq_cancel(&n->sim->q, &qc->pause_apply);
    else
        evq_reschedule(&n->sim->q, &qc->pause_apply, t);
}

/* Pauses began on q (some classes entered `paused`): timers, watchdog, deadlock search. */
static void pauses_started(net *n, port *q, bool started)
{
    arm_pause_end(n, q);
    if (q->owner->kind == NODE_SWITCH && n->wd_on && (started || q->wd_storm))
        arm_watchdog(n, q);
    if (started && n->deadlock_ps && !event_queued(&n->deadlock_ev))
        sim_at(n->sim, &n->deadlock_ev, n->sim->now + n->deadlock_ps);
}

/*
 * A PFC frame arrived at q's owner (q is the port that sends towards the frame's origin).
 * PAUSE for a class not yet paused becomes pending and takes effect the response delay later
 * (IEEE 802.3 Annex 31B: a MAC may start frames for that long after receiving PAUSE);
 * the pause timer (quanta × 512 bit times) runs from then. A PAUSE for a class already paused
 * restarts its timer. RESUME (quanta 0) ends a pause, or cancels a pending one, at once.
 */
static void pfc_receive(net *n, port *q, const packet *pkt)
{
    sim_time now = n->sim->now;
    sim_time resp = net_pfc_response_ps(q->rate_bps);
    sim_time quanta = pause_quanta_ps(q->rate_bps);
    bool resumed = false, pending = false;
    port_cold *qc = net_port_cold(n, q);
    if (pkt->pfc_xoff)
        qc->pfc_pause_rx++;
    for (int c = 0; c < NET_PRIOS; c++) {
        uint8_t bit = (uint8_t)(1u << c);
        if (!(pkt->pfc_vec & bit))
            continue;
        if (pkt->pfc_xoff & bit) {
            qc->prio_pause_rx[c]++;
            qc->wd_last_rx[c] = now;
            if (q->wd_storm & bit)
                continue; /* the watchdog ignores this class's pauses */
            if (q->paused & bit) {
                qc->pause_until[c] = now + quanta;
            } else {
                if (!(q->pause_pending & bit)) {
                    q->pause_pending |= bit;
                    qc->pause_apply_at[c] = now + resp;
                    pending = true;
                }
                qc->pause_until[c] = qc->pause_apply_at[c] + quanta;
            }
        } else if (q->pause_pending & bit) {
            q->pause_pending &= (uint8_t)~bit;
            pending = true;
        } else if (q->paused & bit) {
            unpause(q, c, now);
            resumed = true;
        }
    }
    if (pending)
        arm_pause_apply(n, q);
    pauses_started(n, q, false);
    if (resumed && !q->tx_busy && q->up)
        port_next(n, q);
}

/* The response delay of a pending PAUSE ran out: the class stops starting frames now. */
static void pause_apply(void *ctx, event *ev)
{
    port_cold *qc = CONTAINER_OF(ev, port_cold, pause_apply);
    port *q = qc->port;
    net *n = q->owner->owner;
    sim_time now = n->sim->now;
    bool started = false;
    (void)ctx;
    for (int c = 0; c < NET_PRIOS; c++) {
        uint8_t bit = (uint8_t)(1u << c);
        if (!(q->pause_pending & bit) || qc->pause_apply_at[c] > now)
            continue;
        q->pause_pending &= (uint8_t)~bit;
        q->paused |= bit;
        qc->pause_start[c] = now;
        started = true;
    }
    arm_pause_apply(n, q);
    pauses_started(n, q, started);
}

static void pause_end(void *ctx, event *ev)
{
    port_cold *qc = CONTAINER_OF(ev, port_cold, pause_end);
    port *q = qc->port;
    net *n = q->owner->owner;
    sim_time now = n->sim->now;
    (void)ctx;
    for (int c = 0; c < NET_PRIOS; c++)
        if ((q->paused >> c & 1) && qc->pause_until[c] <= now)
            unpause(q, c, now);
    arm_pause_end(n, q);
    if (q->owner->kind == NODE_SWITCH && n->wd_on)
        arm_watchdog(n, q);
    if (!q->tx_busy && q->up)
        port_next(n, q);
}

static void pfc_refresh(void *ctx, event *ev)
{
    port *p = CONTAINER_OF(ev, port_cold, pfc_refresh)->port;
    (void)ctx;
    if (p->xoff_sent)
        pfc_request(p->owner->owner, p, p->xoff_sent);
}

static void watchdog_fire(void *ctx, event *ev)
{
    port_cold *qc = CONTAINER_OF(ev, port_cold, wd_ev);
    port *q = qc->port;
    net *n = q->owner->owner;
    node *sw = q->owner;
    sim_time now = n->sim->now;
    (void)ctx;
    for (int c = 0; c < NET_PRIOS; c++) {
        uint8_t bit = (uint8_t)(1u << c);
        if ((q->wd_storm & bit) && now - qc->wd_last_rx[c] >= n->wd_restore_ps) {
            q->wd_storm &= (uint8_t)~bit; /* quiet for `restore`: honour pauses again */
        } else if (!(q->wd_storm & bit) && (q->paused & bit) &&
                   now - qc->pause_start[c] >= n->wd_detect_ps) {
            q->wd_storm |= bit;
            qc->wd_events++;
            unpause(q, c, now);
            if (!n->wd_forward) {
                while (q->cls[c].q.head) {
                    packet *pkt = fifo_pop(&q->cls[c].q);
                    release(n, sw, q, pkt);
                    net_drop(n, q, pkt, DROP_PFC_WATCHDOG);
                }
                q->q_nonempty &= (uint8_t)~bit;
            }
        }
    }
    arm_pause_end(n, q);
    arm_watchdog(n, q);
    if (!q->tx_busy && q->up)
        port_next(n, q);
}

void net_pfc_storm(net *n, port *p, bool on)
{
    if (on)
        p->xoff_sent |= n->lossless;
    else
        p->xoff_sent &= (uint8_t)~n->lossless;
    for (int c = 0; c < NET_PRIOS; c++)
        p->cls[c].xoff = p->xoff_sent >> c & 1;
    pfc_request(n, p, n->lossless);
}

/* Drop everything waiting at or travelling from port p (its link went down). */
static void link_flush(net *n, port *p)
{
    node *o = p->owner;
    for (int c = 0; c < NET_PRIOS; c++)
        while (p->cls[c].q.head) {
            packet *pkt = fifo_pop(&p->cls[c].q);
            if (o->kind == NODE_SWITCH) {
                release(n, o, p, pkt);
            } else {
                p->cls[c].q_bytes -= pkt->frame_bytes;
                p->q_total_bytes -= pkt->frame_bytes;
            }
            if (pkt->kind == PKT_PAUSE)
                pool_free(&n->pkts, pkt);
            else
                net_drop(n, p, pkt, DROP_LINK_DOWN);
        }
    p->q_nonempty = 0;
    while (p->fly.head) {
        packet *pkt = fifo_pop(&p->fly);
        wire_lost(p, pkt);
        if (pkt->kind == PKT_PAUSE)
            pool_free(&n->pkts, pkt);
        else
            net_drop(n, p, pkt, DROP_LINK_DOWN);
    }
    evq_cancel(&n->sim->q, &p->arrive);
    if (p->ib) {
        while (p->ib->fcp_fly.head) {
            packet *pkt = fifo_pop(&p->ib->fcp_fly);
            wire_lost(p, pkt);
            pool_free(&n->pkts, pkt);
        }
        evq_cancel(&n->sim->q, &p->ib->fcp_arrive);
        p->ib->fcp_pending = 0;
        for (int c = 0; c < NET_PRIOS; c++)
            if (p->ib->cr_blocked >> c & 1)
                credit_unblock(n, p, c);
    }
    /* a dead link carries no pause: whatever it had paused here is over */
    for (int c = 0; c < NET_PRIOS; c++)
        if (p->paused >> c & 1)
            unpause(p, c, n->sim->now);
    if (p->cold) {
        evq_cancel(&n->sim->q, &p->cold->pause_end);
        evq_cancel(&n->sim->q, &p->cold->pause_apply);
    }
    p->pause_pending = 0;
    p->pfc_tx_pending = 0;
}

void net_link_set(net *n, port *p, bool up)
{
    port *q = p->peer;
    p->up = q->up = up;
    net_changed(n);
    if (!up) {
        link_flush(n, p);
        link_flush(n, q);
        return;
    }
    /* the link's flow control starts again (IB link training): each sender's credits are what
     * its receiver has free now */
    for (int c = 0; p->ib && c < NET_PRIOS; c++) {
        p->ib->cr_sent[c] = q->ib->freed[c] + q->ib->used[c];
        p->ib->cr_limit[c] = q->ib->cap_blocks + q->ib->freed[c];
        q->ib->cr_sent[c] = p->ib->freed[c] + p->ib->used[c];
        q->ib->cr_limit[c] = p->ib->cap_blocks + p->ib->freed[c];
    }
    if (!p->tx_busy)
        port_next(n, p);
    if (!q->tx_busy)
        port_next(n, q);
}

void net_pfc_finish(net *n)
{
    sim_time now = n->sim->now;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        port *q = n->ports[i];
        /* busy time was counted whole when a frame started: a run stopped under a frame has
         * only serialized part of it (else utilization could pass 1) */
        if (q->tx_pkt && q->tx_end_ps > now) {
            q->busy_ps -= q->tx_end_ps - now;
            q->tx_end_ps = now;
        }
        for (int c = 0; q->ib && c < NET_PRIOS; c++)
            if (q->ib->cr_blocked >> c & 1) {
                q->ib->credit_stall_ps += now - q->ib->cr_block_start[c];
                q->ib->cr_block_start[c] = now;
            }
        for (int c = 0; c < NET_PRIOS; c++)
            if (q->paused >> c & 1) {
                port_cold *qc = net_port_cold(n, q);
                qc->pfc_paused_ps += now - qc->pause_start[c];
                qc->prio_paused_ps[c] += now - qc->pause_start[c];
                qc->pause_start[c] = now;
            }
    }
}

/* ---- arrival and forwarding -------------------------------------------------------------- */

/* The frame at the head of p's wire reaches the peer (its event: port_arrive, port_arrive_fast,
 * or the loops' dispatch). */
static inline __attribute__((always_inline)) void arrive(port *p, bool fast)
{
    node *peer = p->peer_owner; /* p->peer->owner, without reading the receiving port */
    net *n = peer->owner; /* the receiver's node, which the frame needs anyway (not p's) */
    packet *pkt = fifo_pop(&p->fly);
    if (p->fly.head)
        sim_at(n->sim, &p->arrive, pkt->t_next);
    if (pkt->kind == PKT_PAUSE) {
        pfc_receive(n, p->peer, pkt);
        pool_free(&n->pkts, pkt);
        return;
    }
    if (peer->kind == NODE_HOST) {
        if (!fast && n->ib && p->ib)
            ib_free(n, p->peer, pkt->prio, ib_blocks(pkt->frame_bytes)); /* the HCA takes it */
        if (pkt->dst == peer->index)
            n->rx(n->host_ctx, peer, pkt);
        else
            host_relay(n, peer, pkt);
    } else {
        pkt->in_port = (uint16_t)p->peer_index;
        switch_receive(n, peer, pkt, fast);
    }
}

/* The arrival event's handlers, as port_tx_done's. */
static void port_arrive(void *ctx, event *ev)
{
    (void)ctx;
    arrive(CONTAINER_OF(ev, port, arrive), false);
}

static void port_arrive_fast(void *ctx, event *ev)
{
    (void)ctx;
    arrive(CONTAINER_OF(ev, port, arrive), true);
}

/*
 * The network's prefetch hook (sim.h, issue #17 fourth round): reads the hot lines of the ports
 * whose events fire next and prefetches what their handlers will chase, so that those misses
 * overlap the current event's work. Three levels: for `far` (four events ahead) what the
 * event's own line points to, for `mid` (two ahead) what those lines point to in turn, for
 * `near` (the next event) one level deeper still (the egress port, the QP's flow, the next
 * queued frame). It writes nothing, so the results cannot depend on it; an entry that turns out
 * stale or overtaken only costs a useless prefetch. Must read only what cannot be freed while
 * the event is queued: the port, the frames it holds, nodes, QPs. PAUSE frames are skipped
 * (they are consumed by the receiving MAC, and their dst names no host).
 */
static inline __attribute__((always_inline)) void
prefetch_events(void *ctx, const event *far, const event *mid, const event *near, bool fast)
{
    const net *n = ctx;
    const event_fn arrive_fn = fast ? port_arrive_fast : port_arrive;
    const event_fn tx_done_fn = fast ? port_tx_done_fast : port_tx_done;
    if (far) {
        if (far->fn == arrive_fn) {
            const port *p = CONTAINER_OF(far, port, arrive);
            __builtin_prefetch(p->fly.head);
            __builtin_prefetch(p->peer_owner);
        } else if (far->fn == tx_done_fn) {
            const port *p = CONTAINER_OF(far, port, tx_done);
            __builtin_prefetch(p->tx_pkt);
            __builtin_prefetch(&p->arrive);    /* line 0: the wire, the queue total */
            /* line 2 (the port's index, IB credits, the DRE): a frame's start reads it at a
             * host port (the NIC's pull) or with IB or the DRE on, not at an Ethernet switch
             * port otherwise; a host is one of the first n_hosts nodes */
            if ((!fast && (n->dre_on || n->ib)) || (const node *)p->owner < n->nodes + n->n_hosts)
                __builtin_prefetch(&p->dre_bytes);
            __builtin_prefetch(p->owner);
        }
    }
    if (mid) {
        if (mid->fn == arrive_fn) {
            const port *p = CONTAINER_OF(mid, port, arrive);
            const packet *pkt = p->fly.head;
            const node *sw = p->peer_owner;
            if (pkt && sw->kind == NODE_HOST) {
                if (n->rx_prefetch && pkt->kind != PKT_PAUSE && pkt->dst == sw->index)
                    n->rx_prefetch(n->host_ctx, pkt, 0);
            } else if (pkt && pkt->kind != PKT_PAUSE) {
                /* the ingress class line (PFC accounting) and the frame's FIB entry: its
                 * class's (the groups themselves are few and stay in cache) */
                __builtin_prefetch(&sw->ports[p->peer_index].cls[pkt->prio & (NET_PRIOS - 1)]);
                if (sw->fib_cls)
                    __builtin_prefetch(&sw->fib_cls[n->host_cls[pkt->dst]]);
            }
        } else if (mid->fn == tx_done_fn) {
            const port *p = CONTAINER_OF(mid, port, tx_done);
            const packet *pkt = p->tx_pkt;
            if (pkt) {
                int prio = pkt->prio & (NET_PRIOS - 1);
                __builtin_prefetch(&p->cls[prio]);
                __builtin_prefetch(p->fly.tail); /* the frame this one is linked behind */
                /* line 3 (the ECN counter, the cold block) only when the next frame may be
                 * marked as it leaves: its class's queue, a part of this total, is over Kmin */
                if (n->ecn_on && (fast || n->ecn_at_dequeue) &&
                    p->q_total_bytes > n->ecn_kmin_bytes)
                    __builtin_prefetch(&p->cold);
                const node *o = p->owner;
                if (o->kind == NODE_SWITCH) /* the release: the ingress class line */
                    __builtin_prefetch(&o->ports[pkt->in_port].cls[prio]);
                else if (o->owner->pull_prefetch) /* the NIC's pull */
                    o->owner->pull_prefetch(o->owner->host_ctx, o, p, 0);
            }
        }
    }
    if (near && near->fn == tx_done_fn) {
        const port *p = CONTAINER_OF(near, port, tx_done);
        const node *o = p->owner;
        if (!p->tx_pkt)
            return;
        uint8_t ready = p->q_nonempty & (uint8_t)~p->paused;
        if (ready) { /* the frame port_next will start (strict priority's choice) */
            int c = 31 - __builtin_clz((unsigned)ready);
            __builtin_prefetch(p->cls[c].q.head);
            /* a frame marked as it leaves counts in the port's cold block (line 3 points to
             * it; the mid stage asked for that line under the same condition) */
            if (n->ecn_on && (fast || n->ecn_at_dequeue) && p->cls[c].q_bytes > n->ecn_kmin_bytes &&
                p->cold)
                __builtin_prefetch(&p->cold->prio_ecn_marked[c]);
        }
        else if (o->kind == NODE_HOST && o->owner->pull_prefetch)
            o->owner->pull_prefetch(o->owner->host_ctx, o, p, 1);
        return;
    }
    if (near && near->fn == arrive_fn) {
        /* the egress port of an arriving frame, when the choice is known ahead */
        const port *p = CONTAINER_OF(near, port, arrive);
        const packet *pkt = p->fly.head;
        const node *sw = p->peer_owner;
        if (!pkt || pkt->kind == PKT_PAUSE)
            return;
        if (sw->kind == NODE_HOST) {
            if (n->rx_prefetch && pkt->dst == sw->index)
                n->rx_prefetch(n->host_ctx, pkt, 1);
            return;
        }
        uint32_t gid = net_fib(sw, pkt->dst);
        if (gid == UINT32_MAX)
            return;
        const ecmp_group *g = &n->groups[gid];
        uint32_t member;
        if (g->n == 1)
            member = 0;
        else if (n->pick_guess) {
            member = n->pick_guess(n->pick_ctx, (node *)sw, g, pkt);
            if (n->pick_guess == n->pick) { /* exact: switch_receive takes it */
                net *w = ctx;
                w->guess[w->guess_next] = (struct net_guess){
                    .sw = sw, .pkt = pkt, .src = pkt->src, .dst = pkt->dst, .n = g->n,
                    .member = member, .sport = pkt->sport};
                w->guess_next ^= 1;
            }
        } else
            return;
        const port *out = &sw->ports[g->member[member]];
        __builtin_prefetch(&out->arrive);
        __builtin_prefetch(&out->cls[pkt->prio & (NET_PRIOS - 1)]);
        /* an idle egress starts the frame at once: port_next reads and port_start_tx writes
         * the transmitter's line (a switch port's line 2 only with IB or the DRE on) */
        __builtin_prefetch(&out->tx_done);
        if (!fast && (n->dre_on || n->ib))
            __builtin_prefetch(&out->dre_bytes);
    }
}

static inline __attribute__((always_inline)) void
port_prefetch_events(void *ctx, const event *far, const event *mid, const event *near)
{
    prefetch_events(ctx, far, mid, near, false);
}

static inline __attribute__((always_inline)) void
port_prefetch_events_fast(void *ctx, const event *far, const event *mid, const event *near)
{
    prefetch_events(ctx, far, mid, near, true);
}

void net_prefetch(void *ctx, const event *far, const event *mid, const event *near)
{
    port_prefetch_events(ctx, far, mid, near);
}

/* The loops' dispatch (sim_loop_with): the two events of every hop are run by their handlers'
 * bodies inlined into the loop, not through the event's pointer, which saved the calls'
 * prologues and the indirect branch: 2 % of a fat tree's instructions (issue #17, twelfth
 * round). Everything else goes through ev->fn. */
static inline __attribute__((always_inline)) void dispatch(sim *s, event *ev, bool fast)
{
    if (ev->fn == (fast ? port_tx_done_fast : port_tx_done))
        tx_done(CONTAINER_OF(ev, port, tx_done), fast);
    else if (ev->fn == (fast ? port_arrive_fast : port_arrive))
        arrive(CONTAINER_OF(ev, port, arrive), fast);
    else
        ev->fn(s, ev);
}
static inline __attribute__((always_inline)) void dispatch_general(sim *s, event *ev)
{
    dispatch(s, ev, false);
}
static inline __attribute__((always_inline)) void dispatch_fast(sim *s, event *ev)
{
    dispatch(s, ev, true);
}

/* The simulation's loop with the hook above inlined (sim_loop.h): topo.c installs it as
 * sim.loop together with net_prefetch as sim.prefetch. */
uint64_t net_run_loop(sim *s) { return sim_loop_with(s, port_prefetch_events, dispatch_general); }

/* The same for the common features' frame path (net.fast): net_hot_path_select puts these in
 * their place, and the hook then knows the handlers by their fast copies. */
static void net_prefetch_fast(void *ctx, const event *far, const event *mid, const event *near)
{
    port_prefetch_events_fast(ctx, far, mid, near);
}
static uint64_t net_run_loop_fast(sim *s)
{
    return sim_loop_with(s, port_prefetch_events_fast, dispatch_fast);
}

/*
 * Arrival over a link direction with a bit error rate (link-ber): the receiver's MAC checks the
 * FCS of the frame at the head of the wire and discards it when a bit was corrupted (counted as
 * bit_error on the sending port, as an FCS/CRC error). Installed in place of port_arrive only
 * while the fault lasts, so clean links pay nothing per frame.
 */
static void port_arrive_ber(void *ctx, event *ev)
{
    port *p = CONTAINER_OF(ev, port, arrive);
    port_ber *b = p->ber;
    packet *pkt = p->fly.head;
    if (b) {
        double bits = (double)pkt->frame_bytes * 8.0;
        double units = b->per_codeword ? 1.0 + bits / 5140.0 : bits;
        double loss = -expm1(units * b->log_ok);
        if (rng_unit(&b->rng) < loss) {
            net *n = p->owner->owner;
            fifo_pop(&p->fly);
            if (p->fly.head)
                sim_at(n->sim, &p->arrive, pkt->t_next);
            b->corrupted++;
            wire_lost(p, pkt);
            if (p->ib) /* the receiver discards it: its blocks are free again */
                ib_free(n, p->peer, pkt->prio, ib_blocks(pkt->frame_bytes));
            net_drop(n, p, pkt, DROP_BIT_ERROR);
            return;
        }
    }
    port_arrive(ctx, ev);
}

/* An FCP reached the sender of the link direction opposite to p: its new credit limit. */
static void fcp_arrive(void *ctx, event *ev)
{
    port *p = CONTAINER_OF(ev, port_ib, fcp_arrive)->port;
    net *n = p->owner->owner;
    packet *pkt = fifo_pop(&p->ib->fcp_fly);
    port *q = p->peer;
    (void)ctx;
    if (p->ib->fcp_fly.head)
        sim_at(n->sim, &p->ib->fcp_arrive, pkt->t_next);
    int vl = pkt->prio;
    if ((int32_t)(pkt->psn - q->ib->cr_limit[vl]) > 0)
        q->ib->cr_limit[vl] = pkt->psn;
    pool_free(&n->pkts, pkt);
    if ((q->ib->cr_blocked >> vl & 1) &&
        q->ib->cr_limit[vl] - q->ib->cr_sent[vl] >= q->ib->cr_need[vl]) {
        credit_unblock(n, q, vl);
        if (!q->tx_busy && q->up)
            port_next(n, q);
    }
}

void net_port_ber(net *n, port *p, port_ber *b)
{
    (void)n;
    p->ber = b;
    /* the event may be queued: only its handler changes */
    p->arrive.fn = b ? port_arrive_ber : n->fast ? port_arrive_fast : port_arrive;
}

void net_link_rate(net *n, port *p, uint64_t rate_bps)
{
    p->rate_bps = p->peer->rate_bps = rate_bps;
    net_changed(n);
}

/*
 * Packet trimming (switch.trimming; the NDP switch of Handley et al. SIGCOMM'17 §3.1, the
 * trimming UE 1.0 specifies for its transport and Spectrum-4 implements — NVIDIA Cumulus Linux
 * "Packet Trimming"): a trimmable data frame that the lossy admission would drop is cut to its
 * headers (the frame without its payload, at least the 64-byte minimum) and queued in class
 * n->trim_prio, so the receiver learns of the loss one queueing delay later and NAKs it. The
 * header takes the same dynamic-threshold admission in its own class; if even it does not fit,
 * the frame is dropped after all (false). The payload cut off is counted in the port's `trimmed`
 * and the net's trimmed_payload_bytes — not as a drop: nothing the receiver needs is lost.
 */
static bool trim(net *n, node *sw, port *out, packet *pkt)
{
    uint32_t hdr = pkt->frame_bytes - pkt->payload_bytes;
    if (hdr < WIRE_MIN_FRAME)
        hdr = WIRE_MIN_FRAME;
    int tp = n->trim_prio;
    uint64_t free_sh = sw->buf.size_bytes - sw->buf.used_bytes;
    uint64_t limit = (uint64_t)(((unsigned __int128)free_sh * sw->buf.alpha_q16) >> 16);
    if (hdr > free_sh || out->cls[tp].q_bytes >= limit)
        return false;
    out->trimmed++;
    n->trimmed_packets++;
    n->trimmed_payload_bytes += pkt->payload_bytes;
    pkt->payload_bytes = 0;
    pkt->frame_bytes = hdr;
    pkt->flags |= PKT_F_TRIMMED;
    pkt->prio = (uint8_t)tp;
    pkt->ecn = ECN_NOT_ECT; /* a header carries no congestion mark of its own: the NAK is the
                             * signal */
    pkt->pfc_pool = PFC_POOL_LOSSY;
    sw->buf.used_bytes += hdr;
    enqueue(out, pkt);
    if (!out->tx_busy)
        port_next(n, out);
    return true;
}

/* The features the common frame path compiles out (net.fast). */
static bool hot_path_common(const net *n)
{
    return !n->ib && !n->dre_on && !n->tap && !n->int_on && !n->dwrr && !n->vxlan &&
           !n->trimming && !n->qp_tenant && n->ecn_at_dequeue;
}

void net_hot_path_select(net *n)
{
    bool fast = hot_path_common(n) && !env_value_off(getenv("WR_FAST_PATH"));
    n->fast = fast;
    /* the handlers (a fault's own, port_arrive_ber, stays), then the loop with its hook */
    for (uint32_t i = 0; i < n->n_ports; i++) {
        port *p = n->ports[i];
        if (p->arrive.fn == port_arrive || p->arrive.fn == port_arrive_fast)
            p->arrive.fn = fast ? port_arrive_fast : port_arrive;
        if (p->tx_done.fn == port_tx_done || p->tx_done.fn == port_tx_done_fast)
            p->tx_done.fn = fast ? port_tx_done_fast : port_tx_done;
    }
    sim *s = n->sim;
    if (s && (s->prefetch == net_prefetch || s->prefetch == net_prefetch_fast))
        sim_set_prefetch(s, fast ? net_prefetch_fast : net_prefetch, n,
                         fast ? net_run_loop_fast : net_run_loop);
}

bool net_hot_path_consistent(const net *n)
{
    return !n->fast || hot_path_common(n);
}

void net_port_kick(net *n, port *p)
{
    if (!p->tx_busy && p->up)
        port_next(n, p);
}

/* Is m the prefetch hook's guess for pkt at sw (net.guess)? */
static inline bool guess_matches(const struct net_guess *m, const node *sw, const ecmp_group *g,
                                 const packet *pkt)
{
    return m->pkt == pkt && m->sw == sw && m->src == pkt->src && m->dst == pkt->dst &&
           m->sport == pkt->sport && m->n == g->n;
}

/* Take a frame that has fully arrived at switch `sw` through ingress port index pkt->in_port.
 * Inlined into port_arrive, where every switch hop comes from (issue #17, eleventh round). */
static inline __attribute__((always_inline)) void switch_receive(net *n, node *sw, packet *pkt,
                                                                 bool fast)
{
    uint32_t gid = net_fib(sw, pkt->dst);
    pkt->hops++;
    port *in = &sw->ports[pkt->in_port];
    if (gid == UINT32_MAX || pkt->hops > 64) {
        /* Count it against the ingress port: there is no egress to blame. */
        ib_free(n, in, pkt->prio, ib_blocks(pkt->frame_bytes));
        net_drop(n, in, pkt, gid == UINT32_MAX ? DROP_NO_ROUTE : DROP_TTL);
        return;
    }
    const ecmp_group *g = &n->groups[gid];
    uint32_t member;
    if (g->n == 1)
        member = 0;
    else if (guess_matches(&n->guess[0], sw, g, pkt))
        member = n->guess[0].member; /* the hook's exact guess: what pick returns */
    else if (guess_matches(&n->guess[1], sw, g, pkt))
        member = n->guess[1].member;
    else
        member = n->pick(n->pick_ctx, sw, g, pkt);
    port *out = &sw->ports[g->member[member]];
    if (!out->up) {
        ib_free(n, in, pkt->prio, ib_blocks(pkt->frame_bytes));
        net_drop(n, out, pkt, DROP_LINK_DOWN);
        return;
    }
    if (!fast && n->vxlan == VTEP_LEAF + 1 && sw->tier != TIER_SCALE_UP) {
        /* leaf VTEP (vxlan.c): encapsulate what comes from a host and goes on to a switch,
         * decapsulate what comes from a switch and goes to a host; the buffer holds the frame
         * as it will leave */
        bool from_sw = sw->ports[pkt->in_port].peer->owner->kind == NODE_SWITCH;
        bool to_sw = out->peer->owner->kind == NODE_SWITCH;
        if (!from_sw && to_sw)
            pkt->frame_bytes += WIRE_VXLAN_OVERHEAD;
        else if (from_sw && !to_sw)
            pkt->frame_bytes -= WIRE_VXLAN_OVERHEAD;
    }
    if (!fast && n->ib && in->ib) {
        /* InfiniBand (in->ib is set exactly when in->peer->ib is: ib_setup gates both
         * directions of a link): the frame holds its input port's VL buffer, which the
         * upstream's credits guarantee has room; FECN (IB CC) when the egress VL queue is over
         * the threshold and the port is a root of congestion (it has credits: not a victim of
         * the next hop) */
        uint32_t b = ib_blocks(pkt->frame_bytes);
        int vl = pkt->prio;
        in->ib->used[vl] += b;
        SIM_ASSERT(in->ib->used[vl] <= in->ib->cap_blocks,
                   "credit overrun at %s port %u VL %d: %u of %u blocks", sw->name, in->index, vl,
                   in->ib->used[vl], in->ib->cap_blocks);
        if (in->ib->used[vl] > in->ib->peak_blocks)
            in->ib->peak_blocks = in->ib->used[vl];
        pkt->pfc_pool = PFC_POOL_IB;
        if (n->ib_cc && pkt->kind == PKT_DATA && out->ib && !(out->ib->cr_blocked >> vl & 1)) {
            uint64_t thr = n->ib_fecn_thr_bytes
                               ? n->ib_fecn_thr_bytes
                               : (uint64_t)out->peer->ib->cap_blocks * IB_CREDIT_BYTES;
            if (out->cls[vl].q_bytes > thr) {
                if (!out->ib->fecn_skip) {
                    pkt->ecn = ECN_CE; /* the BTH FECN bit */
                    out->ib->fecn_marked++;
                    out->ib->fecn_skip = (uint16_t)n->ib_marking_rate; /* 0..65535 */
                } else {
                    out->ib->fecn_skip--;
                }
            }
        }
        enqueue(out, pkt);
        if (!out->tx_busy)
            port_next(n, out);
        return;
    }
    int prio = pkt->prio;
    uint8_t bit = (uint8_t)(1u << prio);
    if ((out->wd_storm & bit) && !n->wd_forward) {
        net_drop(n, out, pkt, DROP_PFC_WATCHDOG);
        return;
    }
    uint32_t fb = pkt->frame_bytes;
    uint64_t free_sh = sw->buf.size_bytes - sw->buf.used_bytes;
    if (n->lossless & bit) {
        port *ing = &sw->ports[pkt->in_port];
        if (ing->cls[prio].ing_shared < pfc_threshold(n, sw) && fb <= free_sh) {
            pkt->pfc_pool = PFC_POOL_SHARED;
            ing->cls[prio].ing_shared += fb;
            sw->buf.used_bytes += fb;
        } else if (ing->cls[prio].ing_hdrm + fb <= ing->hdrm_bytes) {
            pkt->pfc_pool = PFC_POOL_HEADROOM;
            ing->cls[prio].ing_hdrm += fb;
            if (ing->cls[prio].ing_hdrm > ing->hdrm_peak_bytes)
                ing->hdrm_peak_bytes = ing->cls[prio].ing_hdrm;
            if (!(ing->xoff_sent & bit)) {
                ing->xoff_sent |= bit;
                ing->cls[prio].xoff = 1;
                pfc_request(n, ing, bit);
            }
        } else {
            /* headroom exhausted: the configured headroom is below what the link needs */
            net_drop(n, ing, pkt, DROP_PFC_HEADROOM);
            return;
        }
    } else {
        /* lossy: dynamic threshold on the egress queue, and the frame must fit */
        uint64_t limit = (uint64_t)(((unsigned __int128)free_sh * sw->buf.alpha_q16) >> 16);
        if (fb > free_sh || out->cls[prio].q_bytes >= limit) {
            if (!fast && n->trimming && (pkt->flags & PKT_F_TRIMMABLE) && trim(n, sw, out, pkt))
                return;
            net_drop(n, out, pkt, DROP_BUFFER_FULL);
            return;
        }
        pkt->pfc_pool = PFC_POOL_LOSSY;
        sw->buf.used_bytes += fb;
    }
    if (!fast && n->ecn_on && !n->ecn_at_dequeue)
        ecn_mark(n, sw, out, pkt, out->cls[prio].q_bytes); /* the bytes ahead of it */
    enqueue(out, pkt);
    if (!out->tx_busy)
        port_next_inline(n, out, fast);
}

/* ---- deadlock detection ------------------------------------------------------------------ */

/* Does paused queue (a, c) wait on paused queue (b, c)? b belongs to a's peer switch and holds
 * frames of class c that entered through a's peer port. */
static bool waits_on(const port *a, const port *b, int c)
{
    if (!((b->paused | (b->ib ? b->ib->cr_blocked : 0)) >> c & 1) || !b->cls[c].q.head)
        return false;
    uint32_t in = a->peer->index;
    for (const packet *f = b->cls[c].q.head; f; f = f->next)
        if (f->in_port == in)
            return true;
    return false;
}

static bool stuck(const net *n, const port *q, int c, sim_time now)
{
    if (q->owner->kind != NODE_SWITCH || !q->cls[c].q.head)
        return false;
    /* held by PFC, or (InfiniBand) waiting for credits, for the detection time */
    return ((q->paused >> c & 1) && now - port_cold_of(q)->pause_start[c] >= n->deadlock_ps) ||
           (q->ib && (q->ib->cr_blocked >> c & 1) &&
            now - q->ib->cr_block_start[c] >= n->deadlock_ps);
}

/* Depth-first search for a cycle of stuck queues of class c starting at `start`. The path is
 * kept in n->dl_path (port ids); returns its length when a cycle back to start is found. */
static uint32_t find_cycle(net *n, port *start, int c, sim_time now)
{
    uint32_t depth = 0;
    n->dl_path[depth] = start->id;
    n->dl_iter[depth] = 0;
    n->dl_mark[start->id] = 1;
    depth = 1;
    while (depth) {
        port *a = n->ports[n->dl_path[depth - 1]];
        node *t = a->peer->owner;
        bool pushed = false;
        if (t->kind == NODE_SWITCH) {
            while (n->dl_iter[depth - 1] < t->n_ports) {
                port *b = &t->ports[n->dl_iter[depth - 1]++];
                if (!stuck(n, b, c, now) || !waits_on(a, b, c))
                    continue;
                if (b == start)
                    return depth;
                if (n->dl_mark[b->id])
                    continue;
                n->dl_mark[b->id] = 1;
                n->dl_path[depth] = b->id;
                n->dl_iter[depth] = 0;
                depth++;
                pushed = true;
                break;
            }
        }
        if (!pushed)
            depth--;
    }
    return 0;
}

static void deadlock_check(void *ctx, event *ev)
{
    net *n = CONTAINER_OF(ev, net, deadlock_ev);
    sim_time now = n->sim->now;
    bool any_paused = false;
    (void)ctx;
    for (int c = 0; c < NET_PRIOS; c++) {
        if (!((n->ib ? 0xFF : n->lossless) >> c & 1))
            continue;
        memset(n->dl_mark, 0, n->n_ports);
        for (uint32_t i = 0; i < n->n_ports; i++) {
            port *q = n->ports[i];
            any_paused |= q->paused != 0 || (q->ib && q->ib->cr_blocked != 0);
            if (!stuck(n, q, c, now) || n->dl_mark[q->id])
                continue;
            uint32_t len = find_cycle(n, q, c, now);
            if (!len)
                continue;
            n->deadlock = true;
            n->deadlock_at_ps = now;
            size_t k = 0;
            k += (size_t)snprintf(n->deadlock_cycle, sizeof n->deadlock_cycle,
                                  n->ib ? "VL %d credits: " : "priority %d: ", c);
            for (uint32_t j = 0; j <= len && k < sizeof n->deadlock_cycle; j++) {
                char name[48];
                net_port_name(n->ports[n->dl_path[j % len]], name, sizeof name);
                k += (size_t)snprintf(n->deadlock_cycle + k, sizeof n->deadlock_cycle - k, "%s%s",
                                      j ? " -> " : "", name);
            }
            sim_stop(n->sim);
            return;
        }
    }
    if (any_paused)
        sim_at(n->sim, &n->deadlock_ev, now + n->deadlock_ps);
}

/* ---- bookkeeping ------------------------------------------------------------------------- */

uint64_t net_inflight_payload(const net *n, uint64_t *packets)
{
    uint64_t bytes = 0, pk = 0;
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        if (p->tx_pkt && p->tx_pkt->kind == PKT_DATA) {
            bytes += p->tx_pkt->payload_bytes;
            pk++;
        }
        for (const packet *q = p->fly.head; q; q = q->next)
            if (q->kind == PKT_DATA) {
                bytes += q->payload_bytes;
                pk++;
            }
        for (int pr = 0; pr < NET_PRIOS; pr++)
            for (const packet *q = p->cls[pr].q.head; q; q = q->next)
                if (q->kind == PKT_DATA) {
                    bytes += q->payload_bytes;
                    pk++;
                }
    }
    if (packets)
        *packets = pk;
    return bytes;
}

void net_port_name(const port *p, char *buf, size_t len)
{
    const node *a = p->owner, *b = p->peer->owner;
    /* k-th parallel link between the same pair of nodes */
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->index; i++)
        if (a->ports[i].peer->owner == b)
            k++;
    /* callers pass 48-byte buffers: names are cut at 20 characters to fit */
    if (k)
        snprintf(buf, len, "%.20s->%.20s#%u", a->name, b->name, k % 1000u);
    else
        snprintf(buf, len, "%.20s->%.20s", a->name, b->name);
}

void net_port_ib_init(port *p, port_ib *ib)
{
    p->ib = ib;
    ib->port = p;
    event_init(&ib->fcp_arrive, fcp_arrive);
}

void net_port_init_events(port *p)
{
    event_init(&p->tx_done, port_tx_done);
    event_init(&p->arrive, port_arrive);
}

const port_cold net_port_cold_zero;

port_cold *net_port_cold(net *n, port *p)
{
    if (__builtin_expect(p->cold != NULL, 1))
        return p->cold;
    SIM_ASSERT(n->n_cold < n->n_ports, "port cold blocks: %u of %u handed out", n->n_cold,
               n->n_ports);
    port_cold *c = &n->cold[n->n_cold++];
    c->port = p;
    event_init(&c->pfc_refresh, pfc_refresh);
    event_init(&c->pause_end, pause_end);
    event_init(&c->pause_apply, pause_apply);
    event_init(&c->wd_ev, watchdog_fire);
    p->cold = c;
    return c;
}

void net_init_events(net *n)
{
    event_init(&n->deadlock_ev, deadlock_check);
}

uint64_t net_pfc_response_bits(uint64_t rate_bps)
{
    /* IEEE 802.3 Annex 31B, Table 31B-1 (and the clauses that added each speed): the most
     * pause_quanta (512 bit times) a MAC may go on starting frames after a PAUSE arrived —
     * 10 Gb/s 60, 25 Gb/s 80, 40 Gb/s 118, 100 Gb/s 394, 200/400 Gb/s 905. Faster ports are
     * given the 400G figure (no larger one is published for them). */
    uint64_t quanta = rate_bps <= 10000000000ull    ? 60
                      : rate_bps <= 25000000000ull  ? 80
                      : rate_bps <= 40000000000ull  ? 118
                      : rate_bps <= 100000000000ull ? 394
                                                    : 905;
    return quanta * PFC_QUANTUM_BITS;
}

sim_time net_pfc_response_ps(uint64_t rate_bps)
{
    return sim_ser_time(net_pfc_response_bits(rate_bps) / 8, rate_bps);
}

uint64_t net_pfc_headroom_auto(uint64_t rate_bps, sim_time rtt_ps, uint32_t max_frame_bytes)
{
    uint64_t max_line = max_frame_bytes + WIRE_LINE_EXTRA;
    /* what the sender puts on the wire from the end of the XOFF frame's arrival until it stops:
     * the round trip and its response delay at line rate (+1: integer-ps rounding), the frame
     * the switch finishes before its PAUSE, the PAUSE, the sender's last frame */
    uint64_t after = sim_bytes_in(rtt_ps + net_pfc_response_ps(rate_bps), rate_bps) + 1 + max_line +
                     WIRE_PFC_FRAME + WIRE_LINE_EXTRA + max_line;
    return max_frame_bytes + after; /* + the frame that crossed XOFF itself */
}

uint64_t net_pfc_headroom_port(const port *ing, uint32_t max_frame_bytes)
{
    return net_pfc_headroom_auto(ing->rate_bps, ing->deliver_ps + ing->peer->deliver_ps,
                                 max_frame_bytes);
}

uint32_t net_ib_vl_blocks_auto(const port *p, uint32_t max_frame_bytes)
{
    uint64_t max_line = max_frame_bytes + WIRE_LINE_EXTRA;
    uint64_t loop = sim_bytes_in(p->deliver_ps + p->peer->prop_ps, p->rate_bps) + 1 + 3 * max_line +
                    WIRE_IB_FCP;
    return (uint32_t)((loop + IB_CREDIT_BYTES - 1) / IB_CREDIT_BYTES);
}

port *net_find_link(const net *n, const char *spec)
{
    char buf[128];
    size_t len = strlen(spec);
    if (len >= sizeof buf)
        return NULL;
    memcpy(buf, spec, len + 1);
    uint32_t k = 0;
    char *hash = strrchr(buf, '#');
    if (hash) {
        char *end;
        unsigned long v = strtoul(hash + 1, &end, 10);
        if (*end || v == 0 || end == hash + 1)
            return NULL;
        k = (uint32_t)v;
        *hash = '\0';
    }
    for (char *dash = strchr(buf, '-'); dash; dash = strchr(dash + 1, '-')) {
        *dash = '\0';
        const node *a = NULL, *b = NULL;
        for (uint32_t i = 0; i < n->n_nodes; i++) {
            if (!strcmp(n->nodes[i].name, buf))
                a = &n->nodes[i];
            if (!strcmp(n->nodes[i].name, dash + 1))
                b = &n->nodes[i];
        }
        *dash = '-';
        if (!a || !b)
            continue;
        uint32_t seen = 0;
        for (uint32_t p = 0; p < a->n_ports; p++)
            if (a->ports[p].peer->owner == b && seen++ == k)
                return &a->ports[p];
    }
    return NULL;
}
