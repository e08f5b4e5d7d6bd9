/*
 * uet.h — the Ultra Ethernet transport (`nic.transport: uet`): reliable unordered delivery with
 * per-packet spraying, out-of-order placement, selective acknowledgement, retransmission of
 * exactly what was lost, packet trimming and NSCC. Sources: Hoefler et al., "Ultra Ethernet's
 * Design Principles and Architectural Innovations" (arXiv 2508.08906; the UE 1.0 specification
 * by its authors: the packet delivery sublayer's RUD service, entropy values, trimming, NSCC);
 * REPS (Bonato et al., "REPS: Recycled Entropy Packet Spraying for Adaptive Load Balancing and
 * Failure Mitigation", arXiv 2407.21625); NDP's trimming (Handley et al., SIGCOMM'17 §3).
 *
 * It runs on the flows, messages, pieces and QP objects of nic.h (a QP here is a UET packet
 * delivery context: one PSN space between two endpoints); nic.c dispatches to it when
 * transport.uet is set. What differs from RoCE RC:
 *
 * Spraying (REPS). Every data packet carries an entropy value (EV) in its UDP source port, the
 * field the switches' ECMP hash reads (lb.c), so the sender, not the switch, picks the path of
 * each packet while the switches stay on plain `ecmp`. A connection's EV space is `nic.uet.paths`
 * values (a bijection of 0..paths−1 onto 16 bits around the QP's own port). REPS keeps a small
 * FIFO of EVs that came back clean (ACKed without an ECN echo): the next packet reuses the oldest
 * of them; when the FIFO is empty it explores a fresh EV drawn from the NIC's random stream. An
 * EV whose ACK echoes CE, or whose packet was trimmed (NAK), is not recycled: it is used again
 * only if a later random draw picks it. `reps_buffer: 0` is plain oblivious spraying.
 *
 * Receiver. Places every packet at once (the bitmap window of NIC_SACK_WINDOW packets behind
 * rcv_nxt), in any order; a piece — and a message — is complete when all its packets have
 * arrived, whatever their order (a later message of a QP can complete before an earlier one). Each
 * data packet is acknowledged by an ACK naming that PSN (a selective ACK), carrying the cumulative
 * point rcv_nxt (in msg_bytes), its EV (in sport, so the ACK returns on the same path entropy), its
 * send time (ts_ns) and, in PKT_F_ECE, whether it arrived CE-marked. A trimmed header
 * (PKT_F_TRIMMED) is answered at once by a NAK for its PSN with PKT_F_TRIM (an ACK with PKT_F_TRIM
 * if a copy already arrived). A duplicate is ACKed again.
 *
 * Sender. Window: at most NIC_SACK_WINDOW packets beyond snd_una, and with NSCC at most cwnd
 * bytes in flight (a packet goes when in-flight + MTU ≤ cwnd, or nothing is in flight). Bitmaps
 * over the same window record which PSNs are acknowledged and which must be resent; snd_una is
 * the oldest PSN not acknowledged. A NAK marks its PSN for retransmission (only that one); the
 * retransmission timeout (`nic.rto`, re-armed on cumulative progress as in nic.h) marks every
 * outstanding PSN not acknowledged. Retransmissions go before new data, oldest first. In-flight
 * bytes count PSNs sent and neither acknowledged nor marked for resending.
 *
 * Receiver credits (RCCC, `nic.uet.rccc: true`; alone or with NSCC's window, as UE 1.0 allows:
 * arXiv 2508.08906 §congestion control; htsim's UEC model, `UecPullPacer` in uec.cpp, one
 * credit — a "pull" — of one MTU per full packet time at the receiver's link speed). A sender
 * may send the first `unsolicited` bytes of a connection (its unsolicited window, in packets:
 * ⌈bytes / MTU⌉) without credit; beyond that a new PSN goes only when the receiver's credit
 * covers it. Each host port runs a credit pacer: the QPs arriving on it with posted PSNs beyond
 * their credit (the receiver reads the QP's posted PSN count — UET's request header carries the
 * message length) are served round robin, one packet of credit each, one grant per full-MTU
 * frame time at the port's line rate (rounded up, so the credits never exceed the line). A grant
 * is an ACK-sized control frame (PKT_F_CREDIT, the PSN limit in `psn`), queued and serialized with
 * the port's ACKs. The receiver takes the credit a connection already has as at least its
 * unsolicited window and any PSN that arrived beyond it. A connection with nothing outstanding
 * that is blocked on credit (a new message after an idle period) opens a fresh unsolicited
 * window from its next PSN. Retransmissions need no credit (they replace bytes already
 * credited). So an incast's receiver queue holds at most the unsolicited windows plus what
 * the paced credits bring, which arrive no faster than the port drains.
 *
 * Not modelled: UET's ACK coalescing (one ACK per packet here), its header sizes (the RoCEv2
 * sizes of packet.h stand in for the PDS/SES headers), credit piggy-backed on ACKs (a grant is
 * always its own frame).
 *
 * Conservation: every payload byte put on the wire (sent_payload_bytes) is delivered, dropped,
 * trimmed away by a switch (net.trimmed_payload_bytes) or still in the fabric.
 */
#ifndef WR_TRANSPORT_UET_H
#define WR_TRANSPORT_UET_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/evq.h"
#include "../core/rng.h"
#include "../core/time.h"
#include "nscc.h"

#define REPS_MAX REPS_MAX_CFG /* the largest nic.uet.reps_buffer */

/* REPS: the recycled EVs (a FIFO of at most `cap`). */
typedef struct reps_state {
    uint16_t ev[REPS_MAX];
    uint8_t head, count, cap;
} reps_state;

/* Start with an empty buffer of `cap` (≤ REPS_MAX) entries. */
void reps_init(reps_state *r, uint32_t cap);
/* The EV for the next packet: the oldest recycled one, else a fresh one — the EV space index
 * drawn from `rng` mapped by uet_ev(base, ·, paths). */
uint16_t reps_next(reps_state *r, rng *g, uint16_t base, uint32_t paths);
/* An ACK came back on `ev`; `ecn` its CE echo. Clean EVs are recycled (the oldest is overwritten
 * when the buffer is full), marked ones are forgotten. */
void reps_on_ack(reps_state *r, uint16_t ev, bool ecn);
/* The k-th EV (k < paths) of a connection whose own source port is `base`. */
static inline uint16_t uet_ev(uint16_t base, uint32_t k)
{
    return (uint16_t)(base ^ (uint16_t)(k * 40503u)); /* 40503 odd: a bijection of 16 bits */
}

typedef struct transport transport;
typedef struct qp qp;
typedef struct nic_port nic_port;
typedef struct node node;
typedef struct packet packet;

/* The sender's UET state of one QP (transport->uet_qps[q->id]). */
typedef struct uet_qp {
    uint64_t *acked, *rtx;   /* NIC_SACK_WINDOW bits each, indexed psn % window */
    uint32_t rtx_count;      /* PSNs marked for retransmission */
    uint64_t inflight_bytes; /* sent, not acknowledged, not marked for retransmission */
    reps_state reps;
    nscc_state cc;
    /* RCCC (transport.rccc): sender */
    uint32_t unsol_pkts;    /* the unsolicited window, packets */
    uint32_t unsol_end;     /* PSNs below this may go without credit */
    uint32_t credit_end;    /* PSNs below this are credited (the newest grant) */
    uint32_t unsol_windows; /* unsolicited windows opened (1 + fresh ones after idling) */
    /* RCCC: receiver */
    uint32_t grant_end; /* PSNs below this are credited or unsolicited */
    bool in_rr;         /* in its receiver port's credit round robin */
    qp *rr_next;
} uet_qp;

/* RCCC: the credit pacer of one host port (transport->rccc_ports[host * NIC_PORTS + port]). */
typedef struct rccc_port {
    event tick; /* the next grant */
    transport *t;
    qp *head, *tail;      /* QPs with posted PSNs beyond their credit */
    const struct port *p; /* the host port whose line paces the grants */
    uint64_t line_bytes;  /* a full-MTU data frame's line bytes */
    sim_time interval_ps; /* one such frame at the port's line rate, rounded up (the latest) */
    sim_time next_ps;     /* earliest next grant */
    uint64_t grants;      /* credits granted (one packet each) */
    sim_time first_ps, last_ps; /* the first and the latest grant */
    sim_time min_gap_ps;        /* the shortest time between two grants (0 before two) */
} rccc_port;

/* Allocate and start the credit pacers (transport.rccc). */
void uet_rccc_init(transport *t);

/* nic.c's hooks (transport.uet set). */
void uet_qp_init(transport *t, qp *q);
bool uet_can_send(const transport *t, const qp *q);
packet *uet_emit(transport *t, nic_port *np, qp *q, sim_time now);
void uet_rx(transport *t, qp *q, packet *pkt);
/* The retransmission timer expired with no cumulative progress: mark what is outstanding for
 * resending (the caller re-arms the timer and activates the QP). */
void uet_on_rto(transport *t, qp *q);

#endif
