/*
 * nic_int.h — what nic.c shares with the transports that run on its QPs (uet.c): not part of the
 * transport's public interface.
 */
#ifndef WR_TRANSPORT_NIC_INT_H
#define WR_TRANSPORT_NIC_INT_H

#include "nic.h"

#define NIC_SACK_WORDS (NIC_SACK_WINDOW / 64)

/* The unacknowledged piece holding `psn` (psn ≥ snd_una, < n_pkts). */
static inline const piece *qp_piece(const qp *q, uint32_t psn)
{
    const piece *pc = q->head;
    while (psn >= pc->first_psn + pc->n_pkts)
        pc = pc->next;
    return pc;
}

/* The responder's current piece is now pc (NULL: none posted beyond rcv_nxt). */
static inline void qp_rcv_piece_set(qp *q, piece *pc)
{
    q->rcv_piece = pc;
    if (pc)
        q->rcv_end = pc->first_psn + pc->n_pkts;
}

/* Is rcv_nxt past the responder's current piece? Reads only the QP. */
static inline bool qp_rcv_piece_done(const qp *q)
{
    return q->rcv_piece && q->rcv_nxt >= q->rcv_end;
}

/* Payload bytes of the packet `psn` of piece pc. */
static inline uint32_t piece_payload(const transport *t, const piece *pc, uint32_t psn)
{
    uint64_t off = (uint64_t)(psn - pc->first_psn) * t->mtu;
    uint64_t left = pc->bytes - off;
    return left < t->mtu ? (uint32_t)left : t->mtu;
}

/* Data packet `psn` of q leaving its sender at `now` (from the packet pool): headers, payload
 * and frame size (with a host VTEP's overhead), q's entropy in sport and no flags — a transport
 * that sprays or marks sets its own —, the sender's counters, the retransmission timer armed
 * (pushed back when nothing was outstanding before it: `idle`) and q's pacing reference
 * (last_send_ps, last_line_bytes). RoCE's qp_emit and UET's uet_emit both build on it. */
packet *nic_data_packet(transport *t, qp *q, uint32_t psn, sim_time now, bool idle);
/* A control frame of q from its responder (the flow's destination) to its requester: kind
 * (ACK, NAK or CNP and its size, with a host VTEP's overhead), psn, class prio, q's entropy and
 * path, no flags, stamped now; the caller changes what its transport carries differently. */
packet *nic_ctrl_frame(transport *t, qp *q, enum pkt_kind kind, uint32_t psn, uint8_t prio);
/* Queue a control frame of q at its responder's port and wake the port. */
void nic_ctrl_send(transport *t, qp *q, packet *pkt);
/* Make q eligible for its port's round robin (if it can send) and wake the port. */
void nic_qp_activate(transport *t, qp *q);
/* Message m has fully arrived at `now`: complete it (frees m). */
void nic_msg_complete(transport *t, msg *m, sim_time now);

#endif
