/*
 * uet.c — the Ultra Ethernet transport on nic.c's QPs (model and sources in uet.h; NSCC in
 * nscc.h). Per data packet: one EV choice, one bitmap update at each end, one ACK; the
 * retransmission scan walks the window's words (NIC_SACK_WINDOW / 64 of them). No allocation:
 * the bitmaps and states were allocated with the QPs in transport_new.
 */
#include "uet.h"

#include "nic.h"
#include "nic_int.h"

#include <stddef.h>

#include "../core/alloc.h"

/* ---- REPS ----------------------------------------------------------------------------------- */

void reps_init(reps_state *r, uint32_t cap)
{
    *r = (reps_state){0};
    r->cap = (uint8_t)(cap > REPS_MAX ? REPS_MAX : cap);
}

uint16_t reps_next(reps_state *r, rng *g, uint16_t base, uint32_t paths)
{
    if (r->count) {
        uint16_t ev = r->ev[r->head];
        r->head = (uint8_t)((r->head + 1) % r->cap);
        r->count--;
        return ev;
    }
    return uet_ev(base, (uint32_t)rng_below(g, paths));
}

void reps_on_ack(reps_state *r, uint16_t ev, bool ecn)
{
    if (ecn || !r->cap)
        return;               /* a congested path's entropy is not recycled */
    if (r->count == r->cap) { /* full: the oldest gives way */
        r->head = (uint8_t)((r->head + 1) % r->cap);
        r->count--;
    }
    r->ev[(r->head + r->count) % r->cap] = ev;
    r->count++;
}

#define CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

static void rccc_tick(void *ctx, event *ev);

/* ---- RCCC setup (before hotpath.h: it allocates) -------------------------------------------- */

/* One full-MTU frame's line time at the port's current rate (a degraded link's too), rounded
 * up so the grants never outrun the line. */
static sim_time rccc_interval(const rccc_port *r)
{
    uint64_t rate = r->p->rate_bps;
    return rate ? (sim_time)((r->line_bytes * 8 * SIM_S + rate - 1) / rate) : 1;
}

void uet_rccc_init(transport *t)
{
    uint32_t hosts = t->net->n_hosts ? t->net->n_hosts : 1;
    t->rccc_ports = xcalloc((uint64_t)hosts * NIC_PORTS, sizeof(rccc_port), "RCCC credit pacers");
    /* one grant per full-MTU frame: its line bytes (preamble and gap included) */
    uint64_t line = (uint64_t)wire_data_frame(t->mtu, 0) + WIRE_LINE_EXTRA;
    for (uint32_t h = 0; h < t->net->n_hosts; h++)
        for (uint32_t i = 0; i < t->net->hosts[h]->n_ports && i < NIC_PORTS; i++) {
            rccc_port *r = &t->rccc_ports[(uint64_t)h * NIC_PORTS + i];
            r->t = t;
            event_init(&r->tick, rccc_tick);
            r->p = &t->net->hosts[h]->ports[i];
            r->line_bytes = line;
            r->interval_ps = rccc_interval(r);
        }
}

#include "../core/hotpath.h"

/* ---- bitmaps ------------------------------------------------------------------------------- */

static inline bool bit_test(const uint64_t *w, uint32_t psn)
{
    uint32_t b = psn % NIC_SACK_WINDOW;
    return (w[b / 64] >> (b % 64)) & 1;
}

static inline void bit_set(uint64_t *w, uint32_t psn)
{
    uint32_t b = psn % NIC_SACK_WINDOW;
    w[b / 64] |= 1ull << (b % 64);
}

static inline void bit_clear(uint64_t *w, uint32_t psn)
{
    uint32_t b = psn % NIC_SACK_WINDOW;
    w[b / 64] &= ~(1ull << (b % 64));
}

static inline uet_qp *uq_of(const transport *t, const qp *q)
{
    return &t->uet_qps[q->id];
}

static inline uint32_t psn_payload(const transport *t, const qp *q, uint32_t psn)
{
    return piece_payload(t, qp_piece(q, psn), psn);
}

void uet_qp_init(transport *t, qp *q)
{
    uet_qp *u = uq_of(t, q);
    u->acked = &t->uet_bits[(uint64_t)q->id * 2 * NIC_SACK_WORDS];
    u->rtx = u->acked + NIC_SACK_WORDS;
    reps_init(&u->reps, t->sc->nic.uet.reps_buffer);
    nic *c = &t->nics[q->f->src];
    nscc_init(&u->cc, &c->ports[q->egress].cc->ns, t->net->sim->now);
    if (t->rccc) {
        /* default: one BDP at the sender port's line rate and nscc.base_rtt (UE 1.0 sizes the
         * unsolicited window to cover the first round trip) */
        uint64_t b = t->sc->nic.uet.unsolicited ? t->sc->nic.uet.unsolicited
                                                : (uint64_t)c->ports[q->egress].cc->ns.bdp;
        uint64_t pk = (b + t->mtu - 1) / t->mtu;
        u->unsol_pkts = pk < 1 ? 1 : pk > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)pk;
        u->unsol_end = u->grant_end = u->unsol_pkts;
        u->credit_end = 0;
        u->unsol_windows = 1;
        u->in_rr = false;
        u->rr_next = NULL;
    }
}

/* RCCC: may the next new PSN go? (credit or unsolicited window; a connection with nothing
 * outstanding may open a fresh window) */
static inline bool rccc_allows(const qp *q, const uet_qp *u)
{
    uint32_t end = u->unsol_end > u->credit_end ? u->unsol_end : u->credit_end;
    return q->snd_nxt < end || q->snd_una >= q->snd_max;
}

/* ---- sender --------------------------------------------------------------------------------- */

bool uet_can_send(const transport *t, const qp *q)
{
    if (q->error)
        return false;
    const uet_qp *u = uq_of(t, q);
    if (!u->rtx_count && (q->snd_nxt >= q->n_pkts || q->snd_nxt - q->snd_una >= NIC_SACK_WINDOW ||
                          (t->rccc && !rccc_allows(q, u))))
        return false;
    return !t->nscc || !u->inflight_bytes || (double)(u->inflight_bytes + t->mtu) <= u->cc.cwnd;
}

/* The oldest PSN marked for retransmission (rtx_count > 0). */
static uint32_t rtx_first(const qp *q, const uet_qp *u)
{
    /* scan the window from snd_una, a word at a time */
    uint32_t psn = q->snd_una;
    while (psn < q->snd_max) {
        uint32_t b = psn % NIC_SACK_WINDOW, off = b % 64;
        uint64_t w = u->rtx[b / 64] >> off;
        if (w) {
            uint32_t found = psn + (uint32_t)__builtin_ctzll(w);
            if (found < q->snd_max)
                return found;
            break;
        }
        psn += 64 - off;
    }
    SIM_ASSERT(0, "UET QP %u: %u retransmissions marked, none in [%u, %u)", q->id, u->rtx_count,
               q->snd_una, q->snd_max);
    return q->snd_una;
}

packet *uet_emit(transport *t, nic_port *np, qp *q, sim_time now)
{
    uet_qp *u = uq_of(t, q);
    (void)np;
    uint32_t psn;
    bool idle = q->snd_una >= q->snd_max; /* nothing outstanding before this packet */
    if (u->rtx_count) {
        psn = rtx_first(q, u);
        bit_clear(u->rtx, psn);
        u->rtx_count--;
        t->retransmitted_packets++;
        t->nics[q->f->src].retransmitted_packets++;
    } else {
        psn = q->snd_nxt++;
        q->snd_max = q->snd_nxt;
        if (t->rccc && psn >= u->unsol_end && psn >= u->credit_end) {
            u->unsol_end = psn + u->unsol_pkts; /* idle and uncredited: a fresh window */
            u->unsol_windows++;
        }
    }
    packet *pkt = nic_data_packet(t, q, psn, now, idle);
    u->inflight_bytes += pkt->payload_bytes;
    pkt->sport = reps_next(&u->reps, &t->nics[q->f->src].rng, q->sport, t->sc->nic.uet.paths);
    pkt->flags = PKT_F_TRIMMABLE;
    return pkt;
}

/* PSN psn (in [snd_una, snd_max)) was acknowledged: returns its payload bytes if that is news. */
static uint32_t mark_acked(transport *t, qp *q, uet_qp *u, uint32_t psn)
{
    if (bit_test(u->acked, psn))
        return 0;
    uint32_t bytes = psn_payload(t, q, psn);
    bit_set(u->acked, psn);
    if (bit_test(u->rtx, psn)) {
        bit_clear(u->rtx, psn); /* arrived after all: no need to resend */
        u->rtx_count--;
    } else {
        u->inflight_bytes -= bytes;
    }
    return bytes;
}

static void sender_ack(transport *t, qp *q, const packet *pkt)
{
    sim_time now = t->net->sim->now;
    uet_qp *u = uq_of(t, q);
    bool ecn = pkt->flags & PKT_F_ECE;
    /* an ACK that answers a trimmed copy (the receiver had the packet already) names an EV
     * that was trimmed: not recycled either */
    reps_on_ack(&u->reps, pkt->sport, ecn || (pkt->flags & PKT_F_TRIM));
    if (q->error)
        return;
    uint64_t newly = 0;
    uint32_t psn = pkt->psn, cum = pkt->msg_bytes < q->snd_max ? pkt->msg_bytes : q->snd_max;
    if (psn >= q->snd_una && psn < q->snd_max)
        newly += mark_acked(t, q, u, psn);
    for (uint32_t p = q->snd_una; p < cum; p++) /* ACKs lost on the way back */
        newly += mark_acked(t, q, u, p);
    uint32_t una = q->snd_una;
    while (q->snd_una < q->snd_max && bit_test(u->acked, q->snd_una)) {
        bit_clear(u->acked, q->snd_una);
        q->snd_una++;
    }
    if (q->snd_una > una) {
        q->retries = 0;
        q->rto_deadline = now + t->rto_ps;
        while (q->head && q->snd_una >= q->head->first_psn + q->head->n_pkts) {
            piece *pc = q->head;
            q->head = pc->next;
            if (!q->head)
                q->tail = NULL;
            pool_free(&t->pieces, pc);
        }
    }
    if (t->nscc && newly) {
        uint32_t rtt_ns = (uint32_t)(now / 1000) - pkt->ts_ns; /* modulo 2^32 */
        nscc_on_ack(&u->cc, &t->nics[q->f->src].ports[q->egress].cc->ns, now, newly, ecn,
                    (sim_time)rtt_ns * 1000, u->inflight_bytes);
    }
    if (q->snd_una >= q->n_pkts) {
        evq_cancel(&t->net->sim->q, &q->rto); /* everything posted is acknowledged */
        return;
    }
    nic_qp_activate(t, q);
}

/* Mark PSN psn for retransmission unless it is acknowledged or already marked; returns the
 * payload bytes taken out of flight. */
static uint32_t mark_rtx(transport *t, qp *q, uet_qp *u, uint32_t psn)
{
    if (bit_test(u->acked, psn) || bit_test(u->rtx, psn))
        return 0;
    uint32_t bytes = psn_payload(t, q, psn);
    bit_set(u->rtx, psn);
    u->rtx_count++;
    u->inflight_bytes -= bytes;
    return bytes;
}

static void sender_nak(transport *t, qp *q, const packet *pkt)
{
    uet_qp *u = uq_of(t, q);
    t->naks_received++;
    t->nics[q->f->src].naks_received++;
    if (q->error || pkt->psn < q->snd_una || pkt->psn >= q->snd_max)
        return;
    uint32_t lost = mark_rtx(t, q, u, pkt->psn);
    if (!lost)
        return;
    if (t->nscc)
        nscc_on_loss(&u->cc, &t->nics[q->f->src].ports[q->egress].cc->ns, t->net->sim->now, lost,
                     u->inflight_bytes);
    nic_qp_activate(t, q);
}

void uet_on_rto(transport *t, qp *q)
{
    uet_qp *u = uq_of(t, q);
    uint64_t lost = 0;
    for (uint32_t p = q->snd_una; p < q->snd_max; p++)
        lost += mark_rtx(t, q, u, p);
    if (t->nscc && lost)
        nscc_on_loss(&u->cc, &t->nics[q->f->src].ports[q->egress].cc->ns, t->net->sim->now, lost,
                     u->inflight_bytes);
    /* the caller re-arms the timer, then activates the QP */
}

/* RCCC: a credit frame raised q's credited PSN limit. */
static void sender_credit(transport *t, qp *q, const packet *pkt)
{
    uet_qp *u = uq_of(t, q);
    if (q->error || pkt->psn <= u->credit_end)
        return;
    u->credit_end = pkt->psn;
    nic_qp_activate(t, q);
}

/* ---- receiver ------------------------------------------------------------------------------- */

/* Queue an ACK or NAK for data packet `d` of q, from its receiver. */
static void send_ctrl(transport *t, qp *q, const packet *d, enum pkt_kind kind, uint8_t flags)
{
    packet *pkt = nic_ctrl_frame(t, q, kind, d->psn, q->f->prio);
    pkt->msg_bytes = q->rcv_nxt; /* the cumulative point */
    pkt->sport = d->sport;       /* the EV comes back to its sender */
    pkt->path = d->path;
    pkt->flags = flags;
    pkt->ts_ns = d->ts_ns;
    if (kind == PKT_ACK) {
        t->acks_sent++;
    } else {
        t->naks_sent++;
        t->nics[q->f->dst].naks_sent++;
    }
    nic_ctrl_send(t, q, pkt);
}

static void rccc_note(transport *t, qp *q, uint32_t psn);

static void receiver_data(transport *t, qp *q, const packet *pkt)
{
    flow *f = q->f;
    if (q->error)
        return; /* flushed: counted as delivered, nothing is answered */
    uint32_t psn = pkt->psn;
    if (t->rccc)
        rccc_note(t, q, psn);
    bool have = psn < q->rcv_nxt || (psn - q->rcv_nxt < NIC_SACK_WINDOW && bit_test(q->sack, psn));
    if (pkt->flags & PKT_F_TRIMMED) {
        t->trims_received++;
        t->nics[f->dst].trims_received++;
        /* the payload was cut off: NAK at once so exactly this packet is resent (a copy that
         * already arrived makes it a plain ACK) */
        send_ctrl(t, q, pkt, have ? PKT_ACK : PKT_NAK, PKT_F_TRIM);
        return;
    }
    uint8_t ece = pkt->ecn == ECN_CE ? PKT_F_ECE : 0;
    if (have) {
        send_ctrl(t, q, pkt, PKT_ACK, ece); /* a duplicate: say again that it arrived */
        return;
    }
    SIM_ASSERT(psn - q->rcv_nxt < NIC_SACK_WINDOW, "UET QP %u: PSN %u beyond the window at %u",
               q->id, psn, q->rcv_nxt);
    f->delivered_bytes += pkt->payload_bytes; /* placed: each byte once */
    /* its piece: complete (and its message with it) when all its packets are placed, whatever
     * the order — a later message of the QP may complete before an earlier one */
    piece *pc = q->rcv_piece;
    while (psn >= pc->first_psn + pc->n_pkts)
        pc = pc->next;
    if (++pc->got == pc->n_pkts && --pc->m->pieces_left == 0)
        nic_msg_complete(t, pc->m, t->net->sim->now);
    if (psn != q->rcv_nxt) {
        bit_set(q->sack, psn);
        q->sacked++;
        t->out_of_sequence++;
        t->nics[f->dst].out_of_sequence++;
    } else {
        q->rcv_nxt++;
        while (q->sacked && bit_test(q->sack, q->rcv_nxt)) {
            bit_clear(q->sack, q->rcv_nxt);
            q->sacked--;
            q->rcv_nxt++;
        }
        /* pieces wholly below rcv_nxt (completed above, as their last packet was placed) */
        while (qp_rcv_piece_done(q))
            qp_rcv_piece_set(q, q->rcv_piece->next);
    }
    send_ctrl(t, q, pkt, PKT_ACK, ece);
}

void uet_rx(transport *t, qp *q, packet *pkt)
{
    switch (pkt->kind) {
    case PKT_DATA:
        receiver_data(t, q, pkt);
        break;
    case PKT_ACK:
        if (pkt->flags & PKT_F_CREDIT)
            sender_credit(t, q, pkt);
        else
            sender_ack(t, q, pkt);
        break;
    case PKT_NAK:
        sender_nak(t, q, pkt);
        break;
    default:
        break;
    }
}

/* ---- RCCC: the receivers' credit pacers ----------------------------------------------------- */

static inline rccc_port *rp_of(const transport *t, const qp *q)
{
    return &t->rccc_ports[(uint64_t)q->f->dst * NIC_PORTS + q->rev_egress];
}

static void rccc_tick(void *ctx, event *ev);

static void rr_push(rccc_port *r, qp *q, uet_qp *u)
{
    u->in_rr = true;
    u->rr_next = NULL;
    if (r->tail)
        r->t->uet_qps[r->tail->id].rr_next = q;
    else
        r->head = q;
    r->tail = q;
}

/* A data packet `psn` of q arrived: what arrived was sent, so it is covered; serve q if it has
 * posted PSNs beyond its credit. */
static void rccc_note(transport *t, qp *q, uint32_t psn)
{
    uet_qp *u = uq_of(t, q);
    if (psn >= u->grant_end)
        u->grant_end = psn + 1; /* sent from a fresh unsolicited window */
    if (u->in_rr || q->n_pkts <= u->grant_end)
        return;
    rccc_port *r = rp_of(t, q);
    rr_push(r, q, u);
    if (!event_queued(&r->tick)) {
        sim_time now = t->net->sim->now;
        sim_at(t->net->sim, &r->tick, r->next_ps > now ? r->next_ps : now);
    }
}

/* Send q's sender a credit frame naming PSN limit `end`. */
static void send_credit(transport *t, qp *q, uint32_t end)
{
    packet *pkt = nic_ctrl_frame(t, q, PKT_ACK, end, q->f->prio);
    pkt->msg_bytes = q->rcv_nxt;
    pkt->flags = PKT_F_CREDIT;
    nic_ctrl_send(t, q, pkt);
}

/* Grant one packet of credit to the QP at the head of the round robin. */
static void rccc_tick(void *ctx, event *ev)
{
    rccc_port *r = CONTAINER_OF(ev, rccc_port, tick);
    transport *t = r->t;
    sim_time now = t->net->sim->now;
    (void)ctx;
    while (r->head) {
        qp *q = r->head;
        uet_qp *u = uq_of(t, q);
        r->head = u->rr_next;
        if (!r->head)
            r->tail = NULL;
        u->in_rr = false;
        if (q->error || q->n_pkts <= u->grant_end)
            continue; /* nothing left to credit */
        u->grant_end++;
        send_credit(t, q, u->grant_end);
        if (!r->grants)
            r->first_ps = now;
        else if (!r->min_gap_ps || now - r->last_ps < r->min_gap_ps)
            r->min_gap_ps = now - r->last_ps;
        r->grants++;
        r->last_ps = now;
        r->interval_ps = rccc_interval(r);
        r->next_ps = now + r->interval_ps;
        if (q->n_pkts > u->grant_end)
            rr_push(r, q, u);
        break;
    }
    if (r->head)
        sim_at(t->net->sim, &r->tick, r->next_ps);
}
