/*
 * nic.h — the host NIC and its RoCEv2 reliable-connection (RC) transport with DCQCN.
 * Models: spec models.md "NIC and RoCEv2 reliable connection", IBTA RoCEv2 annex (wire
 * format), InfiniBand RC (PSN, ACK/NAK, sequence-error NAK, local ACK timeout), DCQCN (dcqcn.h).
 *
 * Flows, messages and QPs. A flow is a connection from src to dst carrying RDMA WRITE messages
 * (a traffic flow: one message of size_bytes; a collective: one message per transfer, posted
 * with transport_post). It runs over `nic.qps_per_connection` QPs; each message is cut into that
 * many contiguous pieces (piece i is bytes [i·S/Q, (i+1)·S/Q)), as NCCL spreads a transfer over
 * its QPs, and each QP sends its piece as its own WRITE (its first packet carries the RETH);
 * a QP's pieces follow each other in one PSN space, so its messages arrive in order. A message
 * is complete when all its pieces are. Between two GPUs of one server there are no packets:
 * the message is a fluid transfer over the sender's NVLink (see transport_flow_add). Each QP has
 * its own PSN space (PSNs count packets from 0; 24-bit wrap is not modelled) and its own UDP source
 * port, derived as the Linux RoCE stack does (rdma_calc_flow_label + rdma_flow_label_to_udp_sport)
 * from the local and remote QP numbers; QP numbers are allocated sequentially from a base each NIC
 * draws from its own random stream. One `qp` object holds both halves of the connection: the
 * requester state (used only at src) and the responder state (used only at dst).
 *
 * Requester. Segments its chunk into MTU packets with consecutive PSNs. snd_una = oldest
 * unacknowledged PSN, snd_nxt = next PSN to send, snd_max = one past the highest PSN ever sent;
 * a packet with PSN < snd_max is a retransmission (counted in retransmitted_packets).
 * ACK(psn) and NAK(psn) are cumulative: everything below psn has arrived.
 * - go-back-n: NAK(psn) → snd_nxt = psn (resend everything from there).
 * - selective: NAK(psn) → resend only PSN psn; the responder keeps out-of-order packets in a
 *   window of NIC_SACK_WINDOW packets (a bitmap) and, when the resent packet fills the hole and
 *   more packets are still buffered beyond the next missing PSN, NAKs that one at once. A burst of
 *   k consecutive losses therefore costs k round trips but no duplicate of what arrived. The
 *   requester never runs more than NIC_SACK_WINDOW packets beyond snd_una.
 * - RTO (`nic.rto`, the local ACK timeout) covers lost tails and lost retransmissions: armed when
 *   a packet goes out with nothing outstanding, pushed back on every cumulative progress and on
 *   NAK, re-armed lazily (a deadline field; the event, when it fires early, moves itself to the
 *   deadline — one heap operation per period, not per ACK). On expiry, go back to snd_una (both
 *   modes) and count rto_events. Cancelled when the whole chunk is acknowledged.
 * - Retry limit (`nic.retry_count`, the RC QP's retry_cnt of the IBTA spec vol. 1 ch. 9 /
 *   ibv_modify_qp(3): 3 bits, NCCL_IB_RETRY_CNT defaults to 7): an expiry with no cumulative
 *   progress since the previous one is a retry; the expiry after retry_count retries moves the
 *   QP to the error state (transport_flow_abort for the whole flow): it sends nothing more, its
 *   timers stop, its posted messages never complete (flushed), and on_fail reports the flow.
 *   Bytes already on the wire stay in the fabric's books: they are delivered (and discarded by
 *   the flushed responder) or dropped, so conservation holds unchanged.
 * - Out-of-order placement (`nic.ooo_placement`; NVIDIA "Out-of-Order (OOO) Data Placement",
 *   ConnectX-5 and later, RC QPs, the mode adaptive routing / Spectrum-X runs): the responder
 *   places every packet inside its window directly (the selective bitmap) and sends no NAK for
 *   reordering. A hole at rcv_nxt is declared lost only when it has stayed open for
 *   `nic.reorder_window` since it was first seen (the time-based reordering window of RACK,
 *   RFC 8985 §6.2: a hole is loss only once it outlives the expected reordering in time, not in
 *   a packet count that depends on the rate); then one NAK names it and the requester resends
 *   only that PSN. Each new hole (rcv_nxt advanced, packets still buffered beyond it) waits its
 *   own window; lost tails are left to the RTO. When the NAKed packet then arrives twice (the
 *   original was only late, its resend is a duplicate: the responder's view of a DSACK), the
 *   QP's window doubles, as RACK widens reo_wnd on DSACK (RFC 8985 §6.2), up to the RTO: paths
 *   held back by PFC pauses can lag by milliseconds.
 * Responder. Accepts only PSN == rcv_nxt (selective: also buffers PSNs inside the window).
 * A PSN above rcv_nxt counts out_of_sequence (every such packet); the first one of a gap sends a
 * NAK(rcv_nxt) (sequence error), and no other NAK goes out until rcv_nxt advances. A duplicate
 * (PSN below rcv_nxt) is re-acknowledged once (ACK(rcv_nxt)) until rcv_nxt advances. ACKs are
 * coalesced: one per `nic.ack_every` accepted packets and one when the chunk is complete.
 * A flow's delivered_bytes count bytes accepted in order (goodput); it completes when the last
 * byte is accepted (FCT = start to that arrival).
 *
 * NIC egress. Per host port a round robin over the QPs that can send (data left or a
 * retransmission pending) and whose pacing time has come; control frames (ACK/NAK/CNP) wait in a
 * small per-port, per-class FIFO and go first. With DCQCN a QP's next packet may start at
 * (start of its previous packet) + line bits / RC; when no QP is eligible but some are paced,
 * the port's embedded wake event fires at the earliest allowed time. A class in p->paused (PFC)
 * starts no frame. Wire sizes: data as wire_data_frame; ACK/NAK = Eth+IPv4+UDP+BTH+AETH+ICRC+FCS
 * (66 B); CNP = Eth+IPv4+UDP+BTH+16 reserved+ICRC+FCS (78 B). Data and ACK/NAK travel in class
 * `nic.priority`, CNPs in `nic.cnp_priority`; only data is ECN-capable (ECT(0)).
 *
 * InfiniBand (fabric.link_layer infiniband). The same RC engine over credit-gated links: the
 * port starts a frame (control or data) only when the next hop's VL buffer has credits for it
 * (net_credit_ok); there is no loss to recover from, so go-back-N never triggers unless a fault
 * drops frames. IB congestion control (nic.cc ib; IBTA vol. 1 Annex A10): the responder
 * answers every FECN-marked data packet with a CNP carrying BECN (cnp_sent); the requester's
 * CCTI rises by ccti_increase per BECN (cnp_handled) up to ccti_limit and falls by one at each
 * tick of a free-running CCTI_Timer down to ccti_min (computed lazily: ticks at multiples of
 * the period). The CCT entry at CCTI is an inter-packet delay used as static rate control's
 * IPD (IBTA vol. 1 §9.11: a packet may start (IPD + 1) packet times after the previous one).
 *
 * DCQCN (nic.cc dcqcn). The responder is the notification point: a CE-marked data packet makes
 * it send a CNP to the QP's requester, at most one per QP per `cnp_interval` (cnp_sent). The
 * requester is the reaction point (cnp_handled; dcqcn.h). cc none: line rate, CNPs never sent.
 *
 * HPCC (nic.cc hpcc; hpcc.h). Switches stamp INT into data packets (net/inttel.h); the
 * responder copies the records of the data packet an ACK or NAK answers into it; at each ACK
 * the requester updates the QP's window W (hpcc_on_ack), paces at W/T and sends while fewer
 * than W bytes are in flight ((snd_nxt − snd_una) whole MTUs: a short last packet counts as a
 * full one, erring by less than a packet towards fewer bytes in flight).
 *
 * Dual-port failover (transport_failover; `fabric.nic_ports: 2`): the two ports of a NIC are two
 * hosts of the fabric; when one port's link is down for `nic.failover_delay` (the bond's link
 * monitor, then mlx5 RoCE LAG remaps the QPs' port), every packet flow with an end on that port
 * moves to the other one: the requester sends from it, the responder answers from it, and
 * peers address it. Frames already on the dead link are lost and recovered by NAK/RTO.
 *
 * UET (`nic.transport: uet`): the same flows, messages, pieces and QPs carry the Ultra Ethernet
 * transport instead (uet.h): qp_can_send, the emit in nic_pull, nic_rx and the RTO's recovery
 * dispatch to uet.c; the egress round robin, control-frame FIFOs, timers and completion are
 * shared.
 *
 * Conservation (payload bytes): sent_payload_bytes counts every data payload put on the wire,
 * retransmissions included; delivered_payload_bytes every data payload reaching a receiver NIC,
 * duplicates and discarded out-of-order packets included.
 */
#ifndef WR_TRANSPORT_NIC_H
#define WR_TRANSPORT_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/rng.h"
#include "../net/net.h"
#include "dcqcn.h"
#include "hpcc.h"
#include "timely.h"
#include "uet.h"

typedef struct flow flow;
typedef struct qp qp;
typedef struct transport transport;
typedef struct msg msg;
typedef struct piece piece;
/* Called when a flow's last byte has arrived (ctx = the callback's registered context). */
typedef void (*flow_done_fn)(void *ctx, flow *f);
/* Called when a message posted with transport_post has fully arrived at the receiver. */
typedef void (*msg_done_fn)(void *ctx, flow *f, uint64_t cookie);
/* Called when QP q of flow f exceeded its retry limit (the flow is already aborted). */
typedef void (*flow_fail_fn)(void *ctx, flow *f, const qp *q);

#define FLOW_OWN_MSG UINT64_MAX /* cookie of the message transport_flow_start posts */

/* One posted RDMA WRITE. Split over the flow's QPs in contiguous pieces (as NCCL with
 * NCCL_IB_SPLIT_DATA_ON_QPS=1); complete when every piece is. Over the scale-up domain it is a
 * fluid transfer instead, completed by its own event. From a pool: no allocation in steady state.
 */
struct msg {
    pool_hdr hdr;
    event ev; /* fluid (scale-up) completion */
    flow *f;
    uint64_t cookie;
    uint64_t bytes;
    uint32_t pieces_left;
};

/* The part of a message one QP carries: PSNs [first_psn, first_psn + n_pkts). */
struct piece {
    pool_hdr hdr;
    piece *next;
    msg *m;
    uint32_t first_psn, n_pkts;
    uint32_t got; /* UET receiver: its packets placed so far (complete at n_pkts) */
    uint64_t bytes;
};

/* A DCQCN-paced QP counts as collapsed below line rate / this (see nic_pull's hold count). */
#define NIC_COLLAPSED_FRACTION 64
#define NIC_PORTS 2          /* a host's fabric port and its scale-up (NVLink) port */
#define NIC_SACK_WINDOW 512u /* selective retransmit: responder reorder window, packets */
enum {
    WIRE_ACK_FRAME = WIRE_ETH + WIRE_IPV4 + WIRE_UDP + WIRE_BTH + WIRE_AETH + WIRE_ICRC + WIRE_FCS,
    WIRE_CNP_FRAME = WIRE_ETH + WIRE_IPV4 + WIRE_UDP + WIRE_BTH + 16 + WIRE_ICRC + WIRE_FCS,
};

/* A connection from src to dst (its QPs), carrying messages. A traffic flow is a connection
 * with one message of size_bytes, posted by transport_flow_start; collectives post many. */
struct flow {
    /* first line: what a message's post and arrival read (flownet.c, the packet model's
     * receive) — one line instead of two (the array is cache-line aligned: transport_new) */
    _Alignas(64) transport *tp; /* owner (timer handlers reach the transport through it) */
    qp *qps;                    /* n_qps consecutive QPs */
    uint64_t posted_bytes;      /* all messages posted so far */
    uint64_t delivered_bytes;   /* payload accepted in order at the receiver (goodput) */
    uint32_t n_qps;
    uint32_t src, dst; /* host indices */
    uint8_t prio;      /* traffic class of its data and ACK/NAK */
    bool fluid;        /* both ends in one server: the scale-up domain, no packets */
    bool nvl_in;       /* fluid, from the NVSwitch to dst (nvls): takes dst's NVLink ingress,
                        * not src's egress (a flow with src == dst that the switch feeds) */
    bool started, done;
    bool failed;    /* aborted: a QP exceeded its retry limit, or its job failed */
    uint16_t sport; /* UDP source port of its first QP */
    uint16_t path;  /* collective-aware balancing: its place among its leaf's flows */
    uint32_t id;
    uint32_t job;
    /* second line */
    uint64_t size_bytes; /* transport_flow_start: the message to send */
    sim_time start_ps, end_ps;
    sim_time fail_ps;
};
_Static_assert(offsetof(struct flow, size_bytes) == 64, "a flow's hot fields are one line");

/* Laid out by what each side reads (issue #17, eighth round; 320 bytes, the array page-aligned:
 * five lines): line 0 what the requester's send and ACK and the responder both read, line 1 the
 * requester's pacing and retransmission timer, line 2 the responder's receive state, lines 3-4
 * the timers and the congestion control. A send reads lines 0-1, a data packet's receipt lines
 * 0 and 2 (nic_rx_prefetch asks for just those). */
struct qp {
    /* line 0 */
    _Alignas(64) flow *f;
    uint32_t id; /* index in transport->qps; packets carry it in `flow` */
    uint16_t sport;
    uint8_t egress;     /* requester's port index towards dst */
    uint8_t rev_egress; /* responder's port index towards src */
    /* requester */
    piece *head, *tail; /* pieces not yet acknowledged, in PSN order */
    uint32_t n_pkts;    /* PSNs posted so far (one past the last) */
    uint32_t snd_nxt, snd_una, snd_max;
    uint32_t rtx_psn; /* selective: the PSN to resend */
    bool rtx_pending;
    bool active; /* in its port's round robin */
    bool error;  /* QP in the error state: sends and answers nothing (here, in the line every
                  * send and receive reads, not beside the timers: issue #17) */
    uint8_t retries; /* RTO expiries since the last cumulative progress */
    qp *next_active;
    /* line 1: the requester's pacing and retransmission timer */
    sim_time next_send_ps;    /* pacing: earliest start of the next packet */
    sim_time last_send_ps;    /* start of the previous packet */
    uint32_t last_line_bytes; /* its line bytes */
    uint8_t prio;             /* f->prio, here for the pull, which need not read the flow */
    bool rp_limited;          /* rp.limited (DCQCN), here for the send, which need not read
                               * lines 3-4: copied after each change */
    uint16_t path;            /* f->path + its index in the flow: the frames' path */
    uint64_t rate_bps;        /* pacing rate (DCQCN RC), line rate when not limited */
    event rto;
    sim_time rto_deadline;
    uint32_t src, dst; /* f->src, f->dst (the failover moves both), here so that a send and an
                        * ACK's reactivation need not read the flow's line */
    /* line 2: the responder */
    _Alignas(64) piece *rcv_piece; /* the piece holding rcv_nxt */
    uint32_t rcv_end;    /* one past the last PSN of rcv_piece (when set), so the in-order
                          * path tests piece ends without reading the piece (nic_int.h) */
    uint32_t rcv_nxt;
    uint32_t since_ack; /* accepted since the last ACK */
    uint32_t sacked;    /* selective: packets buffered beyond rcv_nxt */
    uint32_t echo_ts_ns; /* the ts_ns of the data packet an ACK answers (TIMELY) */
    uint32_t nak_psn;
    bool nak_sent, dup_acked, cnp_ever;
    bool tail_seen;    /* selective: the chunk's last packet has arrived */
    bool hole_timing;  /* hole_deadline is the current hole's */
    bool nak_live;     /* OOO: nak_psn was NAKed and has not arrived twice */
    uint8_t reo_shift; /* OOO: this QP's window is reorder_window << reo_shift */
    sim_time last_cnp_ps;
    event hole; /* OOO placement: the hole at rcv_nxt has outlived the window */
    /* lines 3-4 */
    _Alignas(64) uint64_t *sack; /* selective: NIC_SACK_WINDOW bits, indexed psn % window */
    sim_time hole_deadline;
    event cc_timer;
    sim_time cc_deadline;
    union {              /* the congestion control's state: nic.cc picks one */
        dcqcn_rp rp;     /* dcqcn (only read when transport.dcqcn) */
        timely_state tm; /* timely (only read when transport.timely) */
        struct {
            uint32_t ccti; /* IB CC: index into the CCT as of `at` */
            sim_time at;
        } ibcc; /* ib (only read when transport.ibcc) */
    };
};
_Static_assert(offsetof(struct qp, next_active) + sizeof(qp *) <= 64 &&
                   offsetof(struct qp, dst) + sizeof(uint32_t) <= 128 &&
                   offsetof(struct qp, rcv_piece) == 128 &&
                   offsetof(struct qp, hole) + sizeof(event) <= 192 &&
                   offsetof(struct qp, sack) == 192 && sizeof(struct qp) == 320,
               "qp: lines 0-4 hold what their comments say");

typedef struct nic nic;
/* The congestion controls' parameters at one line rate: they follow from the scenario and the
 * rate alone, so ports of a rate share one set (352 bytes a port before; 22 MiB at 32,768 GPUs,
 * issue #17). */
typedef struct nic_cc_params {
    uint64_t rate_bps;
    dcqcn_params dc;  /* DCQCN */
    timely_params tp; /* TIMELY */
    nscc_params ns;   /* NSCC (UET) */
    hpcc_params hc;   /* HPCC */
} nic_cc_params;
typedef struct nic_port {
    event wake; /* a paced QP may send: pull again */
    sim_time wake_ps;
    nic *owner;
    port *p;
    qp *head, *tail; /* round robin of QPs that can send */
    uint32_t n_active;
    /* what every pull reads sits in the first line with the round robin (issue #17): the
     * control frames' mask and the hold flag, not after the parameter blocks */
    uint8_t ctrl_mask; /* bit p set when ctrl[p] is not empty */
    /* DCQCN hold: the port went idle while data waited only on its QPs' DCQCN pacing (no QP
     * ready, none held by a PFC pause); closed when data leaves again (see nic_pull). */
    bool held;
    bool nvl; /* the host's scale-up (NVLink) port: port index == host->nvl_port */
    pkt_fifo ctrl[NET_PRIOS]; /* ACK/NAK/CNP waiting for the wire */
    const nic_cc_params *cc;  /* the congestion controls' parameters at this port's line
                               * rate, shared by every port of that rate (transport.ccp) */
    sim_time last_cnp_ps;     /* NP with cnp_scope port: the last CNP this port sent */
    bool cnp_ever;
    sim_time held_since_ps; /* when `held` began */
} nic_port;

struct nic {
    node *host;
    transport *t;
    nic_port ports[NIC_PORTS];
    uint32_t next_qpn; /* QP numbers are allocated sequentially */
    /* this host's share of the transport counters (the totals are in transport) */
    uint64_t cnp_sent, cnp_handled, retransmitted_packets, out_of_sequence, rto_events;
    uint64_t naks_sent, naks_received;    /* as responder / as requester */
    uint64_t qps_failed, qps_failed_over; /* requester QPs that errored / moved away */
    uint64_t trims_received;              /* UET: trimmed headers that reached this NIC */
    sim_time dcqcn_held_ps; /* time a port of this NIC sat idle with data held back only by
                             * DCQCN rate limiting (summed over its ports) */
    uint32_t sibling;       /* the other port of this dual-port NIC, or UINT32_MAX */
    rng rng;
};

struct transport {
    net *net;
    nic_cc_params *ccp; /* one per distinct NIC port rate (nic_port.cc) */
    uint32_t n_ccp;
    const scenario *sc;
    struct flownet *fn; /* sim.fidelity flow: the flow-level network carries the fabric's
                         * messages (flownet.h), else NULL */
    uint32_t mtu;
    uint8_t prio, cnp_prio;
    bool dcqcn, timely, selective;
    bool uet, nscc;      /* nic.transport uet (uet.h), its cc nscc */
    uet_qp *uet_qps;     /* UET: per QP, indexed by QP id */
    uint64_t *uet_bits;  /* UET: the senders' acknowledged / resend bitmaps */
    bool rccc;           /* UET receiver credits (nic.uet.rccc, uet.h) */
    struct rccc_port *rccc_ports; /* rccc: per host port (host × NIC_PORTS + port) */
    bool hpcc;             /* nic.cc hpcc: INT-driven window (hpcc.h) */
    hpcc_state *hpcc_st;   /* hpcc: per QP (indexed by QP id), else NULL */
    const packet *int_src; /* hpcc: the data packet the responder is answering (its INT) */
    bool ibcc; /* nic.cc ib: InfiniBand congestion control (FECN/BECN, CCT) */
    uint32_t ack_every;
    uint32_t reorder_tol; /* selective: NAK a hole after this many packets past it */
    bool ooo;             /* out-of-order placement: NAK a hole only after reorder_win */
    sim_time reorder_win_ps;
    uint32_t retry_count;
    sim_time rto_ps;
    nic *nics; /* one per host */
    flow *flows;     /* cache-line aligned in flows_mem */
    void *flows_mem;
    uint64_t n_flows, cap_flows;
    qp *qps;
    uint64_t n_qps, cap_qps;
    uint32_t qps_per_flow;
    uint64_t *sack_bits; /* selective: the QPs' windows */
    flow_done_fn on_done;
    void *on_done_ctx;
    msg_done_fn on_msg;
    void *on_msg_ctx;
    flow_fail_fn on_fail;
    void *on_fail_ctx;
    pool msgs, pieces;
    sim_time *nvl_free_ps; /* per host: when its scale-up egress is next free (fluid) */
    sim_time *nvl_in_free_ps; /* per host: when its scale-up ingress is next free (nvl_in) */
    uint32_t *leaf_paths;  /* per node: connections placed from that leaf so far */
    sim_time nvl_latency_ps;
    uint64_t scale_up_bytes; /* delivered over the scale-up domain (fluid, not packets) */
    uint64_t sent_payload_bytes, delivered_payload_bytes;
    /* NIC counters (summary.json "nics") */
    uint64_t cnp_sent, cnp_handled, retransmitted_packets, out_of_sequence, rto_events;
    uint64_t acks_sent, naks_sent, data_packets_sent;
    uint64_t naks_received, qps_failed, qps_failed_over;
    uint64_t trims_received;
};

/* Create the transport for every host of n (installs net's pull/rx hooks); sc borrowed. Capacity
 * for `max_flows` flows and their QPs, allocated now (nothing is allocated per packet). */
transport *transport_new(net *n, const scenario *sc, uint64_t max_flows);
void transport_free(transport *t);
/* Add a flow (not started) and its QPs, in traffic class `prio`. Returns it; its id is its index
 * in t->flows. Between two hosts of one server (with a scale-up domain) the flow is fluid: its
 * messages take bytes / (scale_up bandwidth × efficiency) on the sender's NVLink (one after the
 * other, and after any rail-only relay frame on it) plus scale_up.latency, and make no packets —
 * the packet model is for the scale-out fabric. Dual-plane fabrics: a flow between ports of
 * different planes leaves from the sending NIC's port on dst's plane (src is moved). */
flow *transport_flow_add(transport *t, uint32_t job, uint32_t src, uint32_t dst, uint64_t size,
                         uint8_t prio);
/* Start a flow now: post its size_bytes as one message; on_done fires when it has arrived. */
void transport_flow_start(transport *t, flow *f);
/* Post a message of `bytes` on flow f now (RC: messages of a QP are delivered in order);
 * on_msg(ctx, f, cookie) fires when its last byte has arrived at the receiver. */
void transport_post(transport *t, flow *f, uint64_t bytes, uint64_t cookie);

/* Abort flow f now (its QPs to the error state, as on a fatal completion error): nothing more
 * is sent or acknowledged for it, its timers stop, messages posted to it are flushed (never
 * complete). Idempotent; a completed flow is left alone. on_fail is not called. */
void transport_flow_abort(transport *t, flow *f);
/* Move every packet flow with an end on host port `from` to the other port of the same NIC
 * (`to`): the dual-port failover. Returns the number of QPs moved (requester or responder). */
uint32_t transport_failover(transport *t, uint32_t from, uint32_t to);

/* The UDP source port the Linux RoCE stack derives from a QP pair (rdma_calc_flow_label, then
 * rdma_flow_label_to_udp_sport): in 0xC000..0xFFFF. */
uint16_t nic_qp_sport(uint32_t local_qpn, uint32_t remote_qpn);

#endif
