/*
 * nic.c — RoCEv2 RC transport and the NIC egress scheduler (model in nic.h; DCQCN in dcqcn.h).
 * pull and rx run once per frame, the timers once per period: none of them allocates (all QP
 * state is allocated in transport_new; frames come from the net's packet pool).
 */
#include "nic.h"

#include <stddef.h>

#include "flownet.h"
#include "nic_int.h"

#include "../core/alloc.h"

#define CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define SACK_WORDS NIC_SACK_WORDS

static packet *nic_pull(void *ctx, node *host, port *p);
static void nic_rx(void *ctx, node *host, packet *pkt);
static void nic_pull_prefetch(const void *ctx, const node *host, const port *p, int level);
static void nic_rx_prefetch(const void *ctx, const packet *pkt, int level);
static void qp_rto_fire(void *ctx, event *ev);
static void qp_cc_fire(void *ctx, event *ev);
static void qp_hole_fire(void *ctx, event *ev);
static void nic_wake_fire(void *ctx, event *ev);
static void msg_complete(transport *t, msg *m, sim_time now);

uint16_t nic_qp_sport(uint32_t local_qpn, uint32_t remote_qpn)
{
    /* Linux include/rdma/ib_verbs.h: rdma_calc_flow_label and rdma_flow_label_to_udp_sport */
    uint64_t v = (uint64_t)local_qpn * remote_qpn;
    v ^= v >> 20;
    v ^= v >> 40;
    uint32_t fl = (uint32_t)(v & 0xFFFFF);
    uint32_t lo = fl & 0x03FFF, hi = fl & 0xFC000;
    lo ^= hi >> 14;
    return (uint16_t)(lo | 0xC000);
}

/* The parameter set for NIC ports of `rate`: made at the first port of that rate. The table
 * holds one set per distinct rate, so it is sized for the worst case (every port of another
 * rate) and only its first sets are ever written. */
static const nic_cc_params *cc_params(transport *t, uint64_t rate)
{
    const scenario *sc = t->sc;
    for (uint32_t i = 0; i < t->n_ccp; i++)
        if (t->ccp[i].rate_bps == rate)
            return &t->ccp[i];
    nic_cc_params *c = &t->ccp[t->n_ccp++];
    c->rate_bps = rate;
    dcqcn_params_init(&c->dc, &sc->nic.dcqcn, rate);
    timely_params_init(&c->tp, &sc->nic.timely, rate);
    nscc_params_init(&c->ns, &sc->nic.nscc, rate, sc->nic.mtu);
    hpcc_params_init(&c->hc, &sc->nic.hpcc, rate);
    return c;
}

transport *transport_new(net *n, const scenario *sc, uint64_t max_flows)
{
    transport *t = xcalloc(1, sizeof *t, "transport");
    t->net = n;
    t->sc = sc;
    t->mtu = sc->nic.mtu;
    t->prio = sc->nic.priority;
    t->cnp_prio = sc->nic.cnp_priority;
    t->dcqcn = sc->nic.cc == CC_DCQCN;
    t->timely = sc->nic.cc == CC_TIMELY;
    t->hpcc = sc->nic.cc == CC_HPCC;
    t->ibcc = sc->nic.cc == CC_IB;
    t->selective = sc->nic.retransmit == RETX_SELECTIVE;
    t->uet = sc->nic.transport == TRANSPORT_UET;
    t->nscc = t->uet && sc->nic.cc == CC_NSCC;
    t->ack_every = sc->nic.ack_every ? sc->nic.ack_every : 1;
    t->reorder_tol = sc->nic.reorder_tolerance;
    /* out-of-order placement: on for per-packet balancing (the NICs that support adaptive
     * routing place out-of-order packets), or as set */
    t->ooo = sc->nic.ooo_placement == OOO_ON ||
             (sc->nic.ooo_placement == OOO_AUTO &&
              (sc->lb.mode == LB_SPRAY || sc->lb.mode == LB_ADAPTIVE));
    if (t->ooo)
        t->selective = true; /* the placement bitmap; only NAK'd PSNs are resent */
    if (t->uet) {
        t->ooo = false;      /* UET places out of order by itself (uet.c), with no NAK timer */
        t->selective = true; /* the responder's placement bitmap */
    }
    t->reorder_win_ps = sc->nic.reorder_window_ps;
    t->retry_count = sc->nic.retry_count;
    t->rto_ps = sc->nic.rto_ps;
    t->qps_per_flow = sc->nic.qps_per_connection ? sc->nic.qps_per_connection : 1;
    t->nics = xcalloc_huge((n->n_hosts ? n->n_hosts : 1) * sizeof(nic), "NICs");
    uint64_t ports = 0;
    for (uint32_t h = 0; h < n->n_hosts; h++)
        ports += n->hosts[h]->n_ports;
    t->ccp = xcalloc(ports ? ports : 1, sizeof(nic_cc_params), "NIC rate parameters");
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        nic *c = &t->nics[h];
        node *host = n->hosts[h];
        SIM_ASSERT(host->n_ports <= NIC_PORTS, "host %u has %u ports, the NIC models %d", h,
                   host->n_ports, NIC_PORTS);
        c->host = host;
        c->t = t;
        host->host_ctx = c;
        rng_init(&c->rng, sc->seed, RNG_ID(RNG_KIND_NIC, h));
        /* QPNs 24 bits; 0 and 1 are special in InfiniBand */
        c->next_qpn = 0x100 + (uint32_t)rng_below(&c->rng, 1u << 22);
        /* dual-port NIC: port p of a NIC is host nic × 2 + p (topo.c), the other port h ^ 1 */
        c->sibling = UINT32_MAX;
        if (sc->fabric.nic_ports == 2 && (h ^ 1u) < n->n_hosts) {
            const node *o = n->hosts[h ^ 1u];
            if (o->server == host->server && o->rail == host->rail && o->net_port != UINT32_MAX &&
                host->net_port != UINT32_MAX)
                c->sibling = h ^ 1u;
        }
        for (uint32_t i = 0; i < host->n_ports; i++) {
            nic_port *np = &c->ports[i];
            np->owner = c;
            np->p = &host->ports[i];
            np->nvl = i == host->nvl_port;
            event_init(&np->wake, nic_wake_fire);
            np->cc = cc_params(t, np->p->rate_bps);
        }
    }
    t->cap_flows = max_flows;
    /* aligned to cache lines: a flow's hot fields are one line (nic.h) */
    t->flows = xcalloc_lines(max_flows ? max_flows : 1, sizeof(flow), &t->flows_mem, "flows");
    t->cap_qps = (max_flows ? max_flows : 1) * t->qps_per_flow;
    t->qps = xcalloc_huge(t->cap_qps * sizeof(qp), "QPs");
    if (t->selective)
        t->sack_bits = xcalloc(t->cap_qps * SACK_WORDS, sizeof(uint64_t), "SACK windows");
    if (t->uet) {
        t->uet_qps = xcalloc(t->cap_qps, sizeof(uet_qp), "UET sender states");
        t->uet_bits = xcalloc(t->cap_qps * 2 * SACK_WORDS, sizeof(uint64_t), "UET bitmaps");
        t->rccc = sc->nic.uet.rccc;
        if (t->rccc)
            uet_rccc_init(t);
    }
    if (t->hpcc)
        t->hpcc_st = xcalloc(t->cap_qps, sizeof(hpcc_state), "HPCC state");
    pool_init(&t->msgs, "messages", sizeof(msg), 1024);
    pool_init(&t->pieces, "message pieces", sizeof(piece), 1024);
    t->nvl_free_ps = xcalloc(n->n_hosts ? n->n_hosts : 1, sizeof(sim_time), "NVLink timelines");
    t->nvl_in_free_ps =
        xcalloc(n->n_hosts ? n->n_hosts : 1, sizeof(sim_time), "NVLink ingress timelines");
    t->leaf_paths = xcalloc(n->n_nodes ? n->n_nodes : 1, sizeof(uint32_t), "path counters");
    t->nvl_latency_ps = sc->fabric.scale_up_latency_ps;
    n->pull = nic_pull;
    n->rx = nic_rx;
    n->pull_prefetch = nic_pull_prefetch;
    n->rx_prefetch = nic_rx_prefetch;
    n->host_ctx = t;
    if (sc->fidelity == FIDELITY_FLOW)
        t->fn = flownet_new(t);
    return t;
}

void transport_free(transport *t)
{
    if (!t)
        return;
    flownet_free(t->fn);
    pool_destroy(&t->msgs);
    pool_destroy(&t->pieces);
    xfree(t->nvl_free_ps);
    xfree(t->nvl_in_free_ps);
    xfree(t->leaf_paths);
    xfree(t->sack_bits);
    xfree(t->uet_qps);
    xfree(t->rccc_ports);
    xfree(t->uet_bits);
    xfree(t->hpcc_st);
    xfree_huge(t->qps, t->cap_qps * sizeof(qp));
    xfree_lines(t->flows_mem, t->cap_flows ? t->cap_flows : 1, sizeof(flow));
    xfree(t->ccp);
    xfree_huge(t->nics, (t->net->n_hosts ? t->net->n_hosts : 1) * sizeof(nic));
    xfree(t);
}

flow *transport_flow_add(transport *t, uint32_t job, uint32_t src, uint32_t dst, uint64_t size,
                         uint8_t prio)
{
    SIM_ASSERT(t->n_flows < t->cap_flows, "flow capacity %llu exceeded",
               (unsigned long long)t->cap_flows);
    uint32_t planes = t->sc->fabric.planes;
    if (planes > 1 && src % planes != dst % planes)
        src += dst % planes - src % planes; /* dual-plane: the NIC's port on dst's plane */
    sim_time base_rtt = 0; /* HPCC: T of this flow's path, computed for its first QP */
    flow *f = &t->flows[t->n_flows];
    f->id = (uint32_t)t->n_flows++;
    f->job = job;
    f->src = src;
    f->dst = dst;
    f->size_bytes = size;
    f->prio = prio;
    f->tp = t;
    f->n_qps = t->qps_per_flow;
    f->qps = &t->qps[t->n_qps];
    nic *cs = &t->nics[src], *cd = &t->nics[dst];
    uint32_t e = net_host_egress(t->net, cs->host, dst);
    uint32_t re = net_host_egress(t->net, cd->host, src);
    /* between GPUs of one server: the scale-up domain, as a fluid transfer (rail-only relays
     * towards another server still go over NVLink as packets, through the relay host) */
    f->fluid = src == dst || (e == cs->host->nvl_port && cs->host->server == cd->host->server);
    if (!f->fluid && cs->host->net_port != UINT32_MAX) {
        /* collective-aware placement: the connections leaving a leaf are numbered in order,
         * each QP on its own path (lb.c pick_collective) */
        const node *leaf = cs->host->ports[cs->host->net_port].peer->owner;
        f->path = (uint16_t)t->leaf_paths[leaf->id];
        t->leaf_paths[leaf->id] += f->n_qps ? f->n_qps : t->qps_per_flow;
    }
    for (uint32_t i = 0; i < f->n_qps; i++) {
        qp *q = &t->qps[t->n_qps];
        q->id = (uint32_t)t->n_qps++;
        q->f = f;
        q->prio = prio;
        q->src = src;
        q->dst = dst;
        q->path = (uint16_t)(f->path + i);
        uint32_t lqpn = cs->next_qpn++ & 0xFFFFFF, rqpn = cd->next_qpn++ & 0xFFFFFF;
        q->sport = nic_qp_sport(lqpn, rqpn);
        q->egress = (uint8_t)e;
        q->rev_egress = (uint8_t)re;
        q->rate_bps = cs->ports[e].p->rate_bps;
        if (t->timely)
            timely_init(&q->tm, &cs->ports[e].cc->tp);
        else {
            dcqcn_rp_init(&q->rp, &cs->ports[e].cc->dc);
            q->rp_limited = q->rp.limited;
        }
        if (t->hpcc) {
            if (!base_rtt && !f->fluid)
                base_rtt =
                    hpcc_base_rtt(t->net, src, dst, wire_data_frame(t->mtu, 0) + WIRE_LINE_EXTRA,
                                  WIRE_ACK_FRAME + WIRE_LINE_EXTRA);
            hpcc_init(&t->hpcc_st[q->id], &cs->ports[e].cc->hc, base_rtt);
        }
        event_init(&q->rto, qp_rto_fire);
        event_init(&q->cc_timer, qp_cc_fire);
        event_init(&q->hole, qp_hole_fire);
        if (t->sack_bits)
            q->sack = &t->sack_bits[(uint64_t)q->id * SACK_WORDS];
        if (t->uet)
            uet_qp_init(t, q);
    }
    f->sport = f->qps[0].sport;
    return f;
}

#include "../core/hotpath.h"

/* ---- egress: round robin, pacing, control frames ------------------------------------------ */

static inline bool qp_can_send(const transport *t, const qp *q)
{
    if (t->uet)
        return uet_can_send(t, q);
    if (q->error)
        return false;
    if (q->rtx_pending)
        return true;
    if (q->snd_nxt >= q->n_pkts)
        return false;
    if (t->hpcc && (double)(q->snd_nxt - q->snd_una) * t->mtu >= t->hpcc_st[q->id].w)
        return false; /* HPCC's window is full: the next ACK reactivates it */
    return !t->selective || q->snd_nxt - q->snd_una < NIC_SACK_WINDOW;
}

static inline void ring_push(nic_port *np, qp *q)
{
    q->next_active = NULL;
    q->active = true;
    if (np->tail)
        np->tail->next_active = q;
    else
        np->head = q;
    np->tail = q;
    np->n_active++;
}

static inline qp *ring_pop(nic_port *np)
{
    qp *q = np->head;
    np->head = q->next_active;
    if (!np->head)
        np->tail = NULL;
    np->n_active--;
    q->active = false;
    return q;
}

/* Make q eligible for its port's round robin (if it can send) and wake the port. */
static void qp_activate(transport *t, qp *q)
{
    if (q->active || !qp_can_send(t, q))
        return;
    nic_port *np = &t->nics[q->src].ports[q->egress];
    ring_push(np, q);
    net_port_kick(t->net, np->p);
}

/* The port must pull again no later than `when`. */
static void nic_wake_at(transport *t, nic_port *np, sim_time when)
{
    evq *eq = &t->net->sim->q;
    if (!event_queued(&np->wake)) {
        np->wake_ps = when;
        evq_push(eq, &np->wake, when);
    } else if (when < np->wake_ps) {
        np->wake_ps = when;
        evq_reschedule(eq, &np->wake, when);
    }
}

static void nic_wake_fire(void *ctx, event *ev)
{
    nic_port *np = CONTAINER_OF(ev, nic_port, wake);
    (void)ctx;
    net_port_kick(np->owner->t->net, np->p);
}

/* The congestion control set a new rate (`limited` false: line rate, no pacing): recompute the
 * pacing time. The port's wake-up was set for the old pacing time: move it to the new one, or
 * kick the port now when the new time has already passed (a QP paced at a low rate that the
 * timer raised would otherwise wait out its old gap). DCQCN and TIMELY share it. */
static inline void qp_pace(transport *t, qp *q, uint64_t rate_bps, bool limited)
{
    q->rate_bps = rate_bps;
    if (!q->last_line_bytes)
        return;
    if (!limited)
        q->next_send_ps = 0;
    else
        q->next_send_ps = q->last_send_ps + sim_ser_time(q->last_line_bytes, q->rate_bps);
    if (!q->active)
        return;
    nic_port *np = &t->nics[q->f->src].ports[q->egress];
    if (q->next_send_ps > t->net->sim->now)
        nic_wake_at(t, np, q->next_send_ps);
    else
        net_port_kick(t->net, np->p);
}

/* IB CC: the QP's CCTI at `now`, after the CCTI_Timer ticks (multiples of the period) since it
 * was last set, each lowering it by one down to ccti_min. */
static inline uint32_t ibcc_ccti(const transport *t, qp *q, sim_time now)
{
    const cfg_ib *ib = &t->sc->fabric.ib;
    uint64_t ticks = now / ib->ccti_timer_ps - q->ibcc.at / ib->ccti_timer_ps;
    uint32_t c = q->ibcc.ccti;
    if (c > ib->ccti_min)
        c = ticks >= c - ib->ccti_min ? ib->ccti_min : c - (uint32_t)ticks;
    q->ibcc.ccti = c;
    q->ibcc.at = now;
    return c;
}

/* IB CC: the earliest start of the packet after one of `line_bytes` that started at `start`. */
static inline sim_time ibcc_next(const transport *t, const nic_port *np, uint32_t ccti,
                                 sim_time start, uint32_t line_bytes)
{
    uint32_t ipd = t->sc->fabric.ib.cct[ccti];
    return ipd ? start + (sim_time)(ipd + 1) * sim_ser_time(line_bytes, np->p->rate_bps) : 0;
}

/* Frame bytes of the next packet q would send. */
static inline uint32_t qp_next_frame(const transport *t, const qp *q)
{
    uint32_t psn = q->rtx_pending ? q->rtx_psn : q->snd_nxt;
    const piece *pc = qp_piece(q, psn);
    return wire_data_frame(piece_payload(t, pc, psn), psn == pc->first_psn);
}

/* DCQCN: pace at RC while the QP is limited. */
static inline void qp_repace(transport *t, qp *q)
{
    qp_pace(t, q, dcqcn_rate_bps(&q->rp), q->rp.limited);
}

/* A host-based VTEP (fabric.vtep host; net/vxlan.c) sends every frame VXLAN-encapsulated. */
static inline uint32_t host_vxlan_bytes(const transport *t)
{
    return t->net->vxlan == VTEP_HOST + 1 ? WIRE_VXLAN_OVERHEAD : 0;
}

packet *nic_data_packet(transport *t, qp *q, uint32_t psn, sim_time now, bool idle)
{
    const piece *pc = qp_piece(q, psn);
    uint32_t payload = piece_payload(t, pc, psn);
    packet *pkt = pool_alloc(&t->net->pkts);
    pkt->next = NULL;
    pkt->flow = q->id;
    pkt->src = q->src; /* the QP's copies: the flow's line is not read */
    pkt->dst = q->dst;
    pkt->psn = psn;
    pkt->payload_bytes = payload;
    pkt->first = psn == pc->first_psn;
    pkt->last = psn + 1 == pc->first_psn + pc->n_pkts;
    pkt->frame_bytes = wire_data_frame(payload, pkt->first) + host_vxlan_bytes(t);
    pkt->msg_bytes = pc->bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)pc->bytes;
    pkt->sport = q->sport;
    pkt->path = q->path;
    pkt->in_port = 0;
    pkt->kind = PKT_DATA;
    pkt->prio = q->prio;
    pkt->ecn = ECN_ECT0;
    pkt->hops = 0;
    pkt->flags = 0;
    pkt->ts_ns = (uint32_t)(now / 1000);
    t->sent_payload_bytes += payload;
    t->data_packets_sent++;

    /* retransmission timer: lazily re-armed */
    if (!event_queued(&q->rto)) {
        q->rto_deadline = now + t->rto_ps;
        sim_at(t->net->sim, &q->rto, q->rto_deadline);
    } else if (idle) {
        q->rto_deadline = now + t->rto_ps;
    }
    q->last_send_ps = now;
    q->last_line_bytes = wire_line_bytes(pkt);
    return pkt;
}

static packet *qp_emit(transport *t, nic_port *np, qp *q, sim_time now)
{
    uint32_t psn;
    if (q->rtx_pending) {
        psn = q->rtx_psn;
        q->rtx_pending = false;
    } else {
        psn = q->snd_nxt++;
    }
    bool idle = q->snd_una >= q->snd_max; /* nothing outstanding before this packet */
    if (psn < q->snd_max) {
        t->retransmitted_packets++;
        t->nics[q->f->src].retransmitted_packets++;
    } else
        q->snd_max = psn + 1;
    packet *pkt = nic_data_packet(t, q, psn, now, idle);
    uint32_t payload = pkt->payload_bytes;
    if (t->hpcc)
        pkt_int(pkt)->n = 0; /* the switches on its way push their records */

    /* pacing at RC (DCQCN); line rate needs none: the port itself serializes at line rate */
    if (t->dcqcn && q->rp_limited) {
        if (dcqcn_on_bytes(&q->rp, &np->cc->dc, payload))
            q->rate_bps = dcqcn_rate_bps(&q->rp);
        q->rp_limited = q->rp.limited;
        q->next_send_ps = q->rp_limited ? now + sim_ser_time(q->last_line_bytes, q->rate_bps) : 0;
    } else if (t->timely || t->hpcc) {
        q->next_send_ps =
            q->rate_bps < np->p->rate_bps ? now + sim_ser_time(q->last_line_bytes, q->rate_bps) : 0;
    } else if (t->ibcc) {
        q->next_send_ps = ibcc_next(t, np, ibcc_ccti(t, q, now), now, q->last_line_bytes);
    }
    return pkt;
}

static packet *nic_pull(void *ctx, node *host, port *p)
{
    transport *t = ctx;
    nic *c = host->host_ctx;
    nic_port *np = &c->ports[p->index];
    uint8_t ready = np->ctrl_mask & (uint8_t)~p->paused;
    while (ready) {
        int prio = 31 - __builtin_clz((unsigned)ready);
        pkt_fifo *fq = &np->ctrl[prio];
        packet *pkt = fq->head;
        if (!net_credit_ok(t->net, p, prio, pkt->frame_bytes)) {
            ready &= (uint8_t) ~(1u << prio); /* InfiniBand: no credits for this VL yet */
            continue;
        }
        fq->head = pkt->next;
        if (!fq->head) {
            fq->tail = NULL;
            np->ctrl_mask &= (uint8_t) ~(1u << prio);
        }
        pkt->next = NULL;
        return pkt;
    }
    sim_time now = t->net->sim->now, earliest = SIM_TIME_MAX;
    bool pfc_held = false;
    uint64_t paced_max_bps = 0; /* the fastest of the QPs that pacing holds back */
    /* A GPU's NVLink is one link: frames it relays towards another rail (rail-only) wait while
     * its fluid transfers hold it, and take their line time from it (see transport_post). */
    bool nvl = np->nvl; /* p->index == host->nvl_port, from the line just read */
    if (nvl && t->nvl_free_ps[host->index] > now) {
        if (np->n_active)
            nic_wake_at(t, np, t->nvl_free_ps[host->index]);
        return NULL;
    }
    for (uint32_t n = np->n_active; n; n--) {
        qp *q = ring_pop(np);
        if (!qp_can_send(t, q))
            continue; /* leaves the round robin; qp_activate brings it back */
        if (p->paused >> q->prio & 1) {
            ring_push(np, q); /* its class is paused: the pause's end kicks the port */
            pfc_held = true;
            continue;
        }
        if (q->next_send_ps > now) {
            if (q->next_send_ps < earliest)
                earliest = q->next_send_ps;
            if (q->rate_bps > paced_max_bps)
                paced_max_bps = q->rate_bps;
            ring_push(np, q);
            continue;
        }
        /* InfiniBand only (UET, refused on IB, keeps no RoCE send state for qp_next_frame) */
        if (p->ib && !net_credit_ok(t->net, p, q->prio, qp_next_frame(t, q))) {
            ring_push(np, q); /* InfiniBand: the FCP that covers it kicks the port */
            pfc_held = true;
            continue;
        }
        if (np->held) {
            c->dcqcn_held_ps += now - np->held_since_ps;
            np->held = false;
        }
        packet *pkt = t->uet ? uet_emit(t, np, q, now) : qp_emit(t, np, q, now);
        if (qp_can_send(t, q))
            ring_push(np, q);
        if (nvl)
            t->nvl_free_ps[host->index] = now + sim_ser_time(wire_line_bytes(pkt), p->rate_bps);
        return pkt;
    }
    if (earliest != SIM_TIME_MAX)
        nic_wake_at(t, np, earliest);
    /* The port goes idle and only pacing holds data back, every waiting QP at a collapsed
     * rate (below 1/64 of line: no fair share of a link is that small unless 64 flows share
     * it, so this is not DCQCN sharing a bottleneck but DCQCN starving the sender): from now
     * until data leaves again the rate limiter, not the fabric, is the limit. A paused class,
     * a faster QP, or no data ends the count. */
    bool dcqcn_only = t->dcqcn && earliest != SIM_TIME_MAX && !pfc_held &&
                      paced_max_bps < p->rate_bps / NIC_COLLAPSED_FRACTION;
    if (dcqcn_only && !np->held) {
        np->held = true;
        np->held_since_ps = now;
    } else if (!dcqcn_only && np->held) {
        c->dcqcn_held_ps += now - np->held_since_ps;
        np->held = false;
    }
    return NULL;
}

packet *nic_ctrl_frame(transport *t, qp *q, enum pkt_kind kind, uint32_t psn, uint8_t prio)
{
    flow *f = q->f;
    packet *pkt = pool_alloc(&t->net->pkts);
    pkt->next = NULL;
    pkt->flow = q->id;
    pkt->src = f->dst;
    pkt->dst = f->src;
    pkt->psn = psn;
    pkt->payload_bytes = 0;
    pkt->msg_bytes = 0;
    pkt->first = pkt->last = 0;
    pkt->frame_bytes = (kind == PKT_CNP ? WIRE_CNP_FRAME : WIRE_ACK_FRAME) + host_vxlan_bytes(t);
    pkt->sport = q->sport;
    pkt->path = (uint16_t)(f->path + (q - f->qps));
    pkt->in_port = 0;
    pkt->kind = (uint8_t)kind;
    pkt->prio = prio;
    pkt->ecn = ECN_NOT_ECT;
    pkt->hops = 0;
    pkt->flags = 0;
    pkt->ts_ns = (uint32_t)(t->net->sim->now / 1000);
    return pkt;
}

void nic_ctrl_send(transport *t, qp *q, packet *pkt)
{
    nic_port *np = &t->nics[q->f->dst].ports[q->rev_egress];
    pkt_fifo *fq = &np->ctrl[pkt->prio];
    if (fq->tail)
        fq->tail->next = pkt;
    else
        fq->head = pkt;
    fq->tail = pkt;
    np->ctrl_mask |= (uint8_t)(1u << pkt->prio);
    net_port_kick(t->net, np->p);
}

/* Queue a control frame from the responder of q (at q's dst) to its requester. */
static void send_ctrl(transport *t, qp *q, enum pkt_kind kind, uint32_t psn)
{
    flow *f = q->f;
    packet *pkt = nic_ctrl_frame(t, q, kind, psn, kind == PKT_CNP ? t->cnp_prio : f->prio);
    pkt->ts_ns = q->echo_ts_ns;
    if (t->hpcc) {
        /* HPCC: an ACK or NAK carries the INT of the data packet it answers */
        int_rec *r = pkt_int(pkt);
        const int_rec *d = t->int_src && kind != PKT_CNP ? pkt_int_c(t->int_src) : NULL;
        r->n = d ? d->n : 0;
        if (d)
            memcpy(r->hop, d->hop, sizeof(int_hop) * d->n);
    }
    if (kind == PKT_ACK)
        t->acks_sent++;
    else if (kind == PKT_NAK) {
        t->naks_sent++;
        t->nics[f->dst].naks_sent++;
    }
    nic_ctrl_send(t, q, pkt);
}

/* ---- responder ------------------------------------------------------------------------------ */

static inline bool sack_test(const qp *q, uint32_t psn)
{
    uint32_t b = psn % NIC_SACK_WINDOW;
    return (q->sack[b / 64] >> (b % 64)) & 1;
}

static inline void sack_flip(qp *q, uint32_t psn)
{
    uint32_t b = psn % NIC_SACK_WINDOW;
    q->sack[b / 64] ^= 1ull << (b % 64);
}

/* OOO placement: q's reordering window, reorder_window << reo_shift, at most the RTO. */
static inline sim_time reo_window(const transport *t, const qp *q)
{
    if (t->reorder_win_ps > (t->rto_ps >> q->reo_shift))
        return t->rto_ps;
    return t->reorder_win_ps << q->reo_shift;
}

/* OOO placement: start timing the hole at rcv_nxt (now) unless it is already timed. The event
 * is re-armed lazily: a pending earlier deadline moves itself on. */
static void hole_open(transport *t, qp *q, sim_time now)
{
    if (q->hole_timing)
        return;
    q->hole_timing = true;
    q->hole_deadline = now + reo_window(t, q);
    if (!event_queued(&q->hole))
        sim_at(t->net->sim, &q->hole, q->hole_deadline);
}

/* OOO placement: the hole at rcv_nxt has been open for the whole reordering window: it is loss,
 * NAK it (once; the requester resends that PSN, its RTO covers a lost retransmission). */
static void qp_hole_fire(void *ctx, event *ev)
{
    qp *q = CONTAINER_OF(ev, qp, hole);
    transport *t = q->f->tp;
    sim *s = t->net->sim;
    (void)ctx;
    if (!q->hole_timing || !q->sacked || q->error)
        return;
    if (q->hole_deadline > s->now) {
        sim_at(s, &q->hole, q->hole_deadline);
        return;
    }
    q->hole_timing = false;
    if (!q->nak_sent) {
        q->nak_sent = true;
        q->nak_live = true;
        q->nak_psn = q->rcv_nxt;
        send_ctrl(t, q, PKT_NAK, q->rcv_nxt);
    }
}

static void responder_data(transport *t, qp *q, packet *pkt)
{
    flow *f = q->f;
    sim_time now = t->net->sim->now;
    if (q->error)
        return; /* flushed: the payload was counted as delivered, nothing is answered */
    q->echo_ts_ns = pkt->ts_ns; /* an ACK or NAK this packet triggers carries its send time */
    if (t->ibcc && pkt->ecn == ECN_CE) {
        /* IB CC: every FECN is answered with a BECN (a CNP) to the requester */
        t->cnp_sent++;
        t->nics[f->dst].cnp_sent++;
        send_ctrl(t, q, PKT_CNP, q->rcv_nxt);
    } else if (t->dcqcn && pkt->ecn == ECN_CE) {
        /* the NP's port state only for a marked packet (its line is not read otherwise) */
        nic_port *np_port = &t->nics[f->dst].ports[q->rev_egress];
        bool per_port = np_port->cc->dc.cnp_per_port;
        if (dcqcn_np_may_send(per_port ? &np_port->last_cnp_ps : &q->last_cnp_ps,
                              per_port ? &np_port->cnp_ever : &q->cnp_ever, now,
                              np_port->cc->dc.cnp_gap_ps)) {
            t->cnp_sent++;
            t->nics[f->dst].cnp_sent++;
            send_ctrl(t, q, PKT_CNP, q->rcv_nxt);
        }
    }
    uint32_t psn = pkt->psn;
    if (psn == q->rcv_nxt) {
        uint64_t bytes = pkt->payload_bytes;
        uint32_t n = 1;
        q->rcv_nxt++;
        if (q->sacked) {
            while (q->rcv_nxt < q->n_pkts && sack_test(q, q->rcv_nxt)) {
                sack_flip(q, q->rcv_nxt);
                q->sacked--;
                bytes += piece_payload(t, qp_piece(q, q->rcv_nxt), q->rcv_nxt);
                q->rcv_nxt++;
                n++;
            }
        }
        q->nak_sent = q->dup_acked = false;
        q->hole_timing = false;
        q->since_ack += n;
        f->delivered_bytes += bytes;
        /* pieces (and with them messages) completed by this advance; ACK at each message end */
        bool piece_end = false;
        while (qp_rcv_piece_done(q)) {
            piece *pc = q->rcv_piece;
            qp_rcv_piece_set(q, pc->next);
            piece_end = true;
            if (--pc->m->pieces_left == 0)
                msg_complete(t, pc->m, now);
        }
        if (q->rcv_nxt == q->n_pkts)
            q->tail_seen = false;
        if (piece_end || q->since_ack >= t->ack_every) {
            q->since_ack = 0;
            send_ctrl(t, q, PKT_ACK, q->rcv_nxt);
        }
        if (t->ooo) {
            if (q->sacked)
                hole_open(t, q, now); /* a new hole: it gets its own reordering window */
            else
                evq_cancel(&t->net->sim->q, &q->hole); /* no hole: its timer must not linger */
        } else if (q->sacked && (q->sacked >= t->reorder_tol || q->tail_seen)) {
            /* selective: the next hole has waited out the reordering tolerance */
            q->nak_sent = true;
            send_ctrl(t, q, PKT_NAK, q->rcv_nxt);
        }
    } else if (psn > q->rcv_nxt) {
        t->out_of_sequence++;
        t->nics[f->dst].out_of_sequence++;
        if (q->sack && psn - q->rcv_nxt < NIC_SACK_WINDOW && !sack_test(q, psn)) {
            sack_flip(q, psn);
            q->sacked++;
        }
        if (psn + 1 == q->n_pkts)
            q->tail_seen = true;
        if (t->ooo) {
            /* placed out of order; reordering is not loss until the hole outlives the window */
            if (psn - q->rcv_nxt < NIC_SACK_WINDOW)
                hole_open(t, q, now);
            return;
        }
        /* go-back-N NAKs a gap at once; selective waits until reorder_tolerance packets have
         * arrived past it (or the chunk's last one), so sprayed packets that are merely late
         * are not retransmitted */
        if (!q->nak_sent && (!t->selective || q->sacked >= t->reorder_tol || q->tail_seen)) {
            q->nak_sent = true;
            send_ctrl(t, q, PKT_NAK, q->rcv_nxt);
        }
    } else {
        if (q->nak_live && psn == q->nak_psn) {
            /* the NAKed packet arrived twice: it was late, not lost; widen the window */
            q->nak_live = false;
            if (reo_window(t, q) < t->rto_ps && q->reo_shift < 63)
                q->reo_shift++;
        }
        if (!q->dup_acked) {
            q->dup_acked = true;
            send_ctrl(t, q, PKT_ACK, q->rcv_nxt);
        }
    }
}

/* ---- requester ------------------------------------------------------------------------------ */

/* TIMELY: `bytes` more were acknowledged by `pkt` (counted in whole MTUs: the last packet of a
 * message may be shorter, which only moves a segment boundary by less than a packet). At each
 * completed segment one RTT sample — now minus the send time of the data packet the ACK answers
 * — updates the rate, and the QP is paced at it. */
static void timely_ack(transport *t, qp *q, const packet *pkt, uint64_t bytes, sim_time now)
{
    nic_port *np = &t->nics[q->f->src].ports[q->egress];
    if (!timely_on_acked(&q->tm, &np->cc->tp, bytes))
        return;
    uint32_t rtt_ns = (uint32_t)(now / 1000) - pkt->ts_ns; /* modulo 2^32 */
    if (!timely_on_rtt(&q->tm, &np->cc->tp, (sim_time)rtt_ns * 1000))
        return;
    uint64_t rate = (uint64_t)q->tm.rate_bps;
    if (!rate)
        rate = 1;
    qp_pace(t, q, rate, rate < np->p->rate_bps);
}

static void requester_ack(transport *t, qp *q, packet *pkt)
{
    sim_time now = t->net->sim->now;
    uint32_t cum = pkt->psn;
    if (pkt->kind == PKT_NAK) {
        t->naks_received++;
        t->nics[q->f->src].naks_received++;
    }
    if (q->error)
        return;
    if (t->timely && cum > q->snd_una)
        timely_ack(t, q, pkt, (uint64_t)(cum - q->snd_una) * t->mtu, now);
    if (t->hpcc) {
        nic_port *np = &t->nics[q->f->src].ports[q->egress];
        hpcc_state *hs = &t->hpcc_st[q->id];
        if (hpcc_on_ack(hs, &np->cc->hc, pkt_int_c(pkt), cum, q->snd_nxt)) {
            uint64_t rate = (uint64_t)hpcc_rate_bps(hs, &np->cc->hc);
            qp_pace(t, q, rate ? rate : 1, rate < np->p->rate_bps);
        }
    }
    if (cum > q->snd_una) {
        q->snd_una = cum;
        q->retries = 0;
        while (q->head && cum >= q->head->first_psn + q->head->n_pkts) {
            piece *pc = q->head;
            q->head = pc->next;
            if (!q->head)
                q->tail = NULL;
            pool_free(&t->pieces, pc);
        }
        q->rto_deadline = now + t->rto_ps;
        if (q->snd_nxt < q->snd_una)
            q->snd_nxt = q->snd_una;
        if (q->rtx_pending && q->rtx_psn < q->snd_una)
            q->rtx_pending = false;
    }
    if (pkt->kind == PKT_NAK && cum < q->snd_max) {
        q->rto_deadline = now + t->rto_ps;
        if (t->selective) {
            q->rtx_pending = true;
            q->rtx_psn = cum;
        } else if (cum < q->snd_nxt) {
            q->snd_nxt = cum; /* go back N */
        }
    }
    if (q->snd_una >= q->n_pkts) {
        /* the whole chunk is acknowledged: this QP's timers are done */
        evq_cancel(&t->net->sim->q, &q->rto);
        evq_cancel(&t->net->sim->q, &q->cc_timer);
        return;
    }
    qp_activate(t, q);
}

/* The DCQCN timer at the state machine's next deadline: re-armed lazily when that is later
 * than the queued event, moved when it is earlier (a CNP's cut is due within one monitor
 * period, before the queued increase timer). */
static void qp_cc_arm(transport *t, qp *q)
{
    sim_time next = dcqcn_next_ps(&q->rp);
    if (next == SIM_TIME_MAX)
        return;
    if (event_queued(&q->cc_timer) && next < q->cc_deadline)
        evq_cancel(&t->net->sim->q, &q->cc_timer);
    q->cc_deadline = next;
    if (!event_queued(&q->cc_timer))
        sim_at(t->net->sim, &q->cc_timer, next);
}

/* A rate-limited QP whose timer was cancelled with its chunk's last ACK: run the expiries it
 * missed, each at its own time, up to now. */
static void qp_cc_catch_up(transport *t, qp *q)
{
    nic_port *np = &t->nics[q->f->src].ports[q->egress];
    sim_time now = t->net->sim->now;
    for (sim_time next = dcqcn_next_ps(&q->rp); next <= now; next = dcqcn_next_ps(&q->rp))
        dcqcn_on_timer(&q->rp, &np->cc->dc, next);
    q->rp_limited = q->rp.limited;
}

/* Such a QP gets work again: catch up, then pace and arm the timer again. */
static void qp_cc_resume(transport *t, qp *q)
{
    qp_cc_catch_up(t, q);
    qp_repace(t, q);
    qp_cc_arm(t, q);
}

static void requester_cnp(transport *t, qp *q)
{
    t->cnp_handled++;
    t->nics[q->f->src].cnp_handled++;
    if (t->ibcc) {
        /* BECN: CCTI up by ccti_increase (at most ccti_limit); the next packet waits the new
         * inter-packet delay after the previous one */
        const cfg_ib *ib = &t->sc->fabric.ib;
        sim_time now = t->net->sim->now;
        uint32_t c = ibcc_ccti(t, q, now) + ib->ccti_increase;
        q->ibcc.ccti = c > ib->ccti_limit ? ib->ccti_limit : c;
        nic_port *np = &t->nics[q->f->src].ports[q->egress];
        if (!q->last_line_bytes)
            return;
        q->next_send_ps = ibcc_next(t, np, q->ibcc.ccti, q->last_send_ps, q->last_line_bytes);
        if (q->active && q->next_send_ps > now)
            nic_wake_at(t, np, q->next_send_ps);
        return;
    }
    if (!t->dcqcn)
        return;
    sim_time now = t->net->sim->now;
    nic_port *np = &t->nics[q->f->src].ports[q->egress];
    if (q->rp.limited && !event_queued(&q->cc_timer))
        qp_cc_catch_up(t, q); /* idle since: its missed expiries come before this CNP */
    dcqcn_on_cnp(&q->rp, &np->cc->dc, now);
    q->rp_limited = q->rp.limited;
    qp_repace(t, q);
    if (q->snd_una >= q->n_pkts)
        return;
    qp_cc_arm(t, q);
}

/* Retransmission timer (local ACK timeout), re-armed lazily: see nic.h. */
static void qp_rto_fire(void *ctx, event *ev)
{
    qp *q = CONTAINER_OF(ev, qp, rto);
    transport *t = q->f->tp;
    sim *s = t->net->sim;
    (void)ctx;
    if (q->snd_una >= q->snd_max)
        return; /* nothing outstanding: the next packet re-arms it */
    if (q->rto_deadline > s->now) {
        sim_at(s, &q->rto, q->rto_deadline);
        return;
    }
    t->rto_events++;
    t->nics[q->f->src].rto_events++;
    if (q->retries >= t->retry_count) {
        /* retry limit exceeded: the QP goes to the error state, and with it its flow */
        flow *f = q->f;
        t->qps_failed++;
        t->nics[f->src].qps_failed++;
        transport_flow_abort(t, f);
        if (t->on_fail)
            t->on_fail(t->on_fail_ctx, f, q);
        return;
    }
    q->retries++;
    if (t->uet) {
        uet_on_rto(t, q); /* resend exactly what is outstanding */
    } else {
        q->snd_nxt = q->snd_una; /* go back to the oldest unacknowledged PSN */
        q->rtx_pending = false;
    }
    q->rto_deadline = s->now + t->rto_ps;
    sim_at(s, &q->rto, q->rto_deadline);
    qp_activate(t, q);
}

/* DCQCN timer (the pending cut, the rate-increase timer), re-armed lazily like the RTO. */
static void qp_cc_fire(void *ctx, event *ev)
{
    qp *q = CONTAINER_OF(ev, qp, cc_timer);
    transport *t = q->f->tp;
    sim *s = t->net->sim;
    (void)ctx;
    if (q->cc_deadline > s->now) {
        sim_at(s, &q->cc_timer, q->cc_deadline);
        return;
    }
    nic_port *np = &t->nics[q->f->src].ports[q->egress];
    dcqcn_on_timer(&q->rp, &np->cc->dc, s->now);
    q->rp_limited = q->rp.limited;
    qp_cc_arm(t, q);
    qp_repace(t, q);
}

/* The lines of a QP a frame's handling reads (nic.h: the QP's lines): a send lines 0-1, a data
 * packet's receipt lines 0 and 2, an ACK or NAK lines 0-1 (TIMELY's state in lines 3-4 too), a
 * CNP lines 0-1 and 3-4. Asking for all five lines each time (the QP was 304 bytes, not
 * aligned: up to six) cost the misses of lines nothing read (issue #17, eighth round). */
static inline void qp_prefetch_send(const qp *q)
{
    __builtin_prefetch(q);
    __builtin_prefetch(&q->next_send_ps);
}

/* Prefetch hooks (net.h host_rx_prefetch_fn, issue #17 fourth round): a frame about to reach
 * its NIC: level 0 its QP's lines that the frame's kind reads, level 1 the QP's flow (its
 * first line holds all a receive reads). */
static void nic_rx_prefetch(const void *ctx, const packet *pkt, int level)
{
    const transport *t = ctx;
    if (pkt->flow >= t->n_qps)
        return;
    const qp *q = &t->qps[pkt->flow];
    if (level == 0) {
        __builtin_prefetch(q);
        if (pkt->kind == PKT_DATA) {
            __builtin_prefetch(&q->rcv_piece);
        } else {
            __builtin_prefetch(&q->next_send_ps);
            if (pkt->kind == PKT_CNP || t->timely) {
                __builtin_prefetch(&q->sack);
                __builtin_prefetch(&q->rp.limited);
            }
        }
    } else {
        __builtin_prefetch(q->f); /* its hot line (nic.h) */
        if (pkt->ecn == ECN_CE && pkt->kind == PKT_DATA && (t->dcqcn || t->ibcc)) {
            /* a marked packet: the host's CNP counter, and DCQCN's CNP state at its port (IB
             * CC answers every FECN and reads none) */
            const nic *c = &t->nics[pkt->dst];
            if (t->dcqcn)
                __builtin_prefetch(&c->ports[q->rev_egress & (NIC_PORTS - 1)].cc);
            __builtin_prefetch(&c->cnp_sent);
        }
    }
}

/* A host port about to pull: level 0 the NIC port's first line (the round robin), level 1 the
 * QP at the head of the round robin. */
static void nic_pull_prefetch(const void *ctx, const node *host, const port *p, int level)
{
    (void)ctx;
    const nic *c = host->host_ctx;
    if (!c || p->index >= NIC_PORTS)
        return;
    const nic_port *np = &c->ports[p->index];
    if (level == 0) {
        __builtin_prefetch(np);
        __builtin_prefetch(&np->ctrl_mask);
    } else if (np->head) {
        qp_prefetch_send(np->head);
    }
}

static void nic_rx(void *ctx, node *host, packet *pkt)
{
    transport *t = ctx;
    (void)host;
    qp *q = &t->qps[pkt->flow];
    if (t->uet && pkt->kind != PKT_CNP) {
        if (pkt->kind == PKT_DATA)
            t->delivered_payload_bytes += pkt->payload_bytes;
        uet_rx(t, q, pkt);
        pool_free(&t->net->pkts, pkt);
        return;
    }
    switch (pkt->kind) {
    case PKT_DATA:
        t->delivered_payload_bytes += pkt->payload_bytes;
        t->int_src = pkt; /* HPCC: ACKs and NAKs it triggers echo its INT */
        responder_data(t, q, pkt);
        t->int_src = NULL;
        break;
    case PKT_ACK:
    case PKT_NAK:
        requester_ack(t, q, pkt);
        break;
    case PKT_CNP:
        requester_cnp(t, q);
        break;
    default:
        break;
    }
    pool_free(&t->net->pkts, pkt);
}

/* A message has fully arrived: the flow's own (traffic) message completes the flow; others are
 * reported to the poster. */
static void msg_complete(transport *t, msg *m, sim_time now)
{
    flow *f = m->f;
    uint64_t cookie = m->cookie;
    pool_free(&t->msgs, m);
    if (cookie == FLOW_OWN_MSG) {
        f->done = true;
        f->end_ps = now;
        if (t->on_done)
            t->on_done(t->on_done_ctx, f);
    } else if (t->on_msg) {
        t->on_msg(t->on_msg_ctx, f, cookie);
    }
}

void nic_qp_activate(transport *t, qp *q)
{
    qp_activate(t, q);
}

void nic_msg_complete(transport *t, msg *m, sim_time now)
{
    msg_complete(t, m, now);
}

/* A fluid (scale-up) message reached its receiver. */
static void fluid_done(void *ctx, event *ev)
{
    msg *m = CONTAINER_OF(ev, msg, ev);
    transport *t = m->f->tp;
    (void)ctx;
    m->f->delivered_bytes += m->bytes;
    t->scale_up_bytes += m->bytes;
    if (m->f->failed) {
        pool_free(&t->msgs, m); /* flushed: moved, but never reported complete */
        return;
    }
    msg_complete(t, m, t->net->sim->now);
}

void transport_post(transport *t, flow *f, uint64_t bytes, uint64_t cookie)
{
    sim_time now = t->net->sim->now;
    if (f->failed)
        return; /* a work request on a QP in error is flushed: it never completes */
    msg *m = pool_alloc(&t->msgs);
    m->f = f;
    m->cookie = cookie;
    m->bytes = bytes;
    m->pieces_left = 0;
    f->posted_bytes += bytes;
    if (bytes == 0) {
        msg_complete(t, m, now);
        return;
    }
    if (f->fluid) {
        /* NVLink: the sender's scale-up egress moves its messages one after the other at the
         * scale-up rate; the receiver has them scale_up.latency later */
        const node *h = t->nics[f->src].host;
        uint64_t rate = h->nvl_port != UINT32_MAX ? h->ports[h->nvl_port].rate_bps
                                                  : t->sc->fabric.scale_up_achieved_bps;
        /* nvls: what the NVSwitch sends a GPU queues on that GPU's NVLink ingress instead */
        sim_time *busy = f->nvl_in ? &t->nvl_in_free_ps[f->dst] : &t->nvl_free_ps[f->src];
        sim_time start = *busy > now ? *busy : now;
        *busy = start + sim_ser_time(bytes, rate);
        event_init(&m->ev, fluid_done);
        sim_at(t->net->sim, &m->ev, *busy + t->nvl_latency_ps);
        return;
    }
    if (t->fn) {
        flownet_post(t->fn, f, m); /* flow level: fluid flows, no packets */
        return;
    }
    /* contiguous pieces, one per QP (empty pieces are skipped) */
    for (uint32_t i = 0; i < f->n_qps; i++) {
        uint64_t lo = (uint64_t)((unsigned __int128)bytes * i / f->n_qps);
        uint64_t hi = (uint64_t)((unsigned __int128)bytes * (i + 1) / f->n_qps);
        if (hi == lo)
            continue;
        qp *q = &f->qps[i];
        piece *pc = pool_alloc(&t->pieces);
        pc->next = NULL;
        pc->m = m;
        pc->bytes = hi - lo;
        pc->first_psn = q->n_pkts;
        pc->got = 0;
        pc->n_pkts = (uint32_t)((pc->bytes + t->mtu - 1) / t->mtu);
        q->n_pkts += pc->n_pkts;
        if (q->tail)
            q->tail->next = pc;
        else
            q->head = pc;
        q->tail = pc;
        if (!q->rcv_piece)
            qp_rcv_piece_set(q, pc);
        m->pieces_left++;
        if (t->dcqcn && q->rp.limited && !event_queued(&q->cc_timer))
            qp_cc_resume(t, q);
        qp_activate(t, q);
    }
}

void transport_flow_start(transport *t, flow *f)
{
    f->started = true;
    f->start_ps = t->net->sim->now;
    transport_post(t, f, f->size_bytes, FLOW_OWN_MSG);
}

void transport_flow_abort(transport *t, flow *f)
{
    if (f->done || f->failed)
        return;
    evq *eq = &t->net->sim->q;
    f->failed = true;
    f->fail_ps = t->net->sim->now;
    for (uint32_t i = 0; i < f->n_qps; i++) {
        qp *q = &f->qps[i];
        q->error = true;
        q->rtx_pending = false;
        evq_cancel(eq, &q->rto);
        evq_cancel(eq, &q->cc_timer);
        evq_cancel(eq, &q->hole);
        /* an active QP leaves its port's round robin at its next turn (qp_can_send) */
    }
    if (t->fn && !f->fluid)
        flownet_abort(t->fn, f);
}

/* Take the QPs that no longer send from `from` out of its port's round robin, keeping the order
 * of those that stay. */
static void ring_drop_moved(nic_port *np, uint32_t from)
{
    for (uint32_t n = np->n_active; n; n--) {
        qp *q = ring_pop(np);
        if (q->f->src == from)
            ring_push(np, q);
    }
}

uint32_t transport_failover(transport *t, uint32_t from, uint32_t to)
{
    nic *cf = &t->nics[from];
    uint32_t moved = 0;
    for (uint64_t k = 0; k < t->n_flows; k++) {
        flow *f = &t->flows[k];
        if (f->fluid || f->done || f->failed || (f->src != from && f->dst != from) ||
            f->src == to || f->dst == to)
            continue; /* finished flows stay where they ended; none may end up on one port */
        if (f->src == from)
            f->src = to;
        if (f->dst == from)
            f->dst = to;
        for (uint32_t i = 0; i < f->n_qps; i++) {
            qp *q = &f->qps[i];
            q->src = f->src;
            q->dst = f->dst;
            q->egress = (uint8_t)net_host_egress(t->net, t->nics[f->src].host, f->dst);
            q->rev_egress = (uint8_t)net_host_egress(t->net, t->nics[f->dst].host, f->src);
            moved++;
        }
    }
    /* requester QPs now sending from `to` leave `from`'s round robin and join `to`'s; what they
     * had on the dead link is recovered by NAK or RTO as any loss */
    for (uint32_t i = 0; i < cf->host->n_ports; i++)
        ring_drop_moved(&cf->ports[i], from);
    for (uint64_t k = 0; k < t->n_flows; k++) {
        flow *f = &t->flows[k];
        if (f->fluid || f->src != to)
            continue;
        for (uint32_t i = 0; i < f->n_qps; i++)
            qp_activate(t, &f->qps[i]);
    }
    cf->qps_failed_over += moved;
    t->qps_failed_over += moved;
    if (t->fn && moved)
        flownet_reroute(t->fn);
    return moved;
}
