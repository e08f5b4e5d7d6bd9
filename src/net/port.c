/*
 * port.c — the packet hot path: egress scheduling and serialization, the wire, switch
 * forwarding and buffer admission (model in net.h; models.md "Switch").
 *
 * Per frame and hop there are two event-queue operations: the port's tx_done (one per frame) and
 * the link's arrive (scheduled only when the in-flight FIFO was empty, otherwise the frame waits
 * behind the head and is picked up when the head is delivered). Time and byte arithmetic are
 * integers; α of the dynamic threshold is 16.16 fixed point.
 */
#include "net.h"

#include <stddef.h>
#include <stdio.h>

#include "../core/err.h"
#include "../core/hotpath.h"

#define CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

static const char *const drop_names[DROP_REASONS] = {
    "buffer_full", "link_down", "bit_error", "no_route", "pfc_watchdog", "ttl",
};

const char *drop_reason_name(enum drop_reason r)
{
    return (unsigned)r < DROP_REASONS ? drop_names[r] : "?";
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
    p->drops[r]++;
    if (pkt->kind == PKT_DATA)
        n->dropped_payload_bytes += pkt->payload_bytes;
    pool_free(&n->pkts, pkt);
}

/* Start serializing `pkt` on p at the current time. */
static inline void port_start_tx(net *n, port *p, packet *pkt)
{
    sim_time ser = sim_ser_time(wire_line_bytes(pkt), p->rate_bps);
    sim_time now = n->sim->now;
    uint64_t halvings = (now - p->dre_last_ps) / NET_DRE_HALF_LIFE_PS;
    p->dre_bytes = (halvings >= 64 ? 0 : p->dre_bytes >> halvings) + wire_line_bytes(pkt);
    p->dre_last_ps += halvings * NET_DRE_HALF_LIFE_PS;
    p->tx_pkt = pkt;
    p->busy_ps += ser;
    sim_at(n->sim, &p->tx_done, n->sim->now + ser);
}

/* Highest non-empty priority (strict priority scheduler). */
static inline int port_pick_prio(const port *p)
{
    return 31 - __builtin_clz((unsigned)p->q_nonempty);
}

/* The port is free: start the next frame, if any. */
static void port_next(net *n, port *p)
{
    node *o = p->owner;
    if (!p->q_nonempty) {
        if (o->kind == NODE_HOST) {
            packet *pkt = n->pull(n->host_ctx, o, p);
            if (pkt)
                port_start_tx(n, p, pkt);
        }
        return;
    }
    int prio = port_pick_prio(p);
    packet *pkt = fifo_pop(&p->q[prio]);
    if (!p->q[prio].head)
        p->q_nonempty &= (uint8_t)~(1u << prio);
    if (o->kind == NODE_HOST) {
        /* relayed frames hold no switch buffer: account them off the queue now */
        p->q_bytes[prio] -= pkt->frame_bytes;
        p->q_total_bytes -= pkt->frame_bytes;
    }
    port_start_tx(n, p, pkt);
}

static void port_tx_done(void *ctx, event *ev)
{
    port *p = CONTAINER_OF(ev, port, tx_done);
    net *n = p->owner->owner;
    packet *pkt = p->tx_pkt;
    (void)ctx;
    p->tx_pkt = NULL;
    p->tx_bytes += wire_line_bytes(pkt);
    p->tx_packets++;
    n->packet_hops++;
    if (p->owner->kind == NODE_SWITCH) {
        /* The frame leaves the buffer when its last bit is out. */
        uint32_t fb = pkt->frame_bytes;
        p->q_bytes[pkt->prio] -= fb;
        p->q_total_bytes -= fb;
        p->owner->buf.used_bytes -= fb;
    }
    if (!p->up) {
        net_drop(n, p, pkt, DROP_LINK_DOWN);
    } else {
        pkt->t_arrive = n->sim->now + p->deliver_ps;
        fifo_push(&p->fly, pkt);
        if (!event_queued(&p->arrive))
            sim_at(n->sim, &p->arrive, pkt->t_arrive);
    }
    port_next(n, p);
}

static inline void enqueue(port *out, packet *pkt)
{
    uint32_t fb = pkt->frame_bytes;
    out->q_bytes[pkt->prio] += fb;
    out->q_total_bytes += fb;
    if (out->q_total_bytes > out->max_q_bytes)
        out->max_q_bytes = out->q_total_bytes;
    fifo_push(&out->q[pkt->prio], pkt);
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
    if (!out->tx_pkt && out->up)
        port_next(n, out);
}

static void port_arrive(void *ctx, event *ev)
{
    port *p = CONTAINER_OF(ev, port, arrive);
    net *n = p->owner->owner;
    packet *pkt = fifo_pop(&p->fly);
    (void)ctx;
    if (p->fly.head)
        sim_at(n->sim, &p->arrive, p->fly.head->t_arrive);
    node *peer = p->peer->owner;
    if (peer->kind == NODE_HOST) {
        if (pkt->dst == peer->index)
            n->rx(n->host_ctx, peer, pkt);
        else
            host_relay(n, peer, pkt);
    } else {
        pkt->in_port = (uint16_t)p->peer->index;
        net_switch_receive(n, peer, pkt);
    }
}

void net_port_kick(net *n, port *p)
{
    if (!p->tx_pkt && p->up)
        port_next(n, p);
}

/* RED marking decision for a queue of q bytes (integer probability, switch's stream). */
static inline bool ecn_mark(net *n, node *sw, uint64_t q)
{
    if (q <= n->ecn_kmin_bytes)
        return false;
    if (q >= n->ecn_kmax_bytes)
        return true;
    uint64_t p = (uint64_t)(((unsigned __int128)n->ecn_pmax_q32 * (q - n->ecn_kmin_bytes)) /
                            (n->ecn_kmax_bytes - n->ecn_kmin_bytes));
    return (rng_next(&sw->rng) >> 32) < p;
}

/* Dynamic threshold admission: queue length < α·(B − used), and the frame fits in B. */
static inline bool buf_admit(const switch_buf *b, uint64_t qlen, uint32_t frame)
{
    uint64_t free_bytes = b->size_bytes - b->used_bytes;
    if (frame > free_bytes)
        return false;
    unsigned __int128 limit = ((unsigned __int128)free_bytes * b->alpha_q16) >> 16;
    return (unsigned __int128)qlen < limit;
}

void net_switch_receive(net *n, node *sw, packet *pkt)
{
    uint32_t gid = sw->fib[pkt->dst];
    pkt->hops++;
    if (gid == UINT32_MAX) {
        /* Count it against the ingress port: there is no egress to blame. */
        net_drop(n, &sw->ports[pkt->in_port], pkt, DROP_NO_ROUTE);
        return;
    }
    if (pkt->hops > 64) {
        net_drop(n, &sw->ports[pkt->in_port], pkt, DROP_TTL);
        return;
    }
    const ecmp_group *g = &n->groups[gid];
    uint32_t member = g->n == 1 ? 0 : n->pick(n->pick_ctx, sw, g, pkt);
    port *out = &sw->ports[g->member[member]];
    if (!out->up) {
        net_drop(n, out, pkt, DROP_LINK_DOWN);
        return;
    }
    uint32_t fb = pkt->frame_bytes;
    if (!buf_admit(&sw->buf, out->q_bytes[pkt->prio], fb)) {
        net_drop(n, out, pkt, DROP_BUFFER_FULL);
        return;
    }
    sw->buf.used_bytes += fb;
    if (sw->buf.used_bytes > sw->buf.max_used_bytes)
        sw->buf.max_used_bytes = sw->buf.used_bytes;
    /* NVLink/NVSwitch does not mark: only fabric switches are congestion points. */
    if (n->ecn_on && pkt->ecn != ECN_NOT_ECT && sw->tier != TIER_SCALE_UP &&
        ecn_mark(n, sw, out->q_bytes[pkt->prio])) {
        pkt->ecn = ECN_CE;
        out->ecn_marked++;
    }
    enqueue(out, pkt);
    if (!out->tx_pkt)
        port_next(n, out);
}

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
            for (const packet *q = p->q[pr].head; q; q = q->next)
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
    if (k)
        snprintf(buf, len, "%s->%s#%u", a->name, b->name, k);
    else
        snprintf(buf, len, "%s->%s", a->name, b->name);
}

void net_port_init_events(port *p)
{
    event_init(&p->tx_done, port_tx_done);
    event_init(&p->arrive, port_arrive);
}
