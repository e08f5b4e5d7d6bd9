/*
 * packet.h — the one packet struct: data, ACK, NAK, CNP and PAUSE frames alike.
 *
 * Packets are fixed-size objects from a pool (core/pool.h); exactly one component owns a packet
 * at a time (a NIC building it, an egress queue, the port serializing it, a link carrying it,
 * the receiver consuming it); whoever drops or consumes it returns it to the pool. A packet
 * carries its own entropy (UDP source port) and hop state, never a private route.
 *
 * Wire sizes follow RoCEv2 (IBTA RoCEv2 annex; models.md "Wire and packets"):
 *   Ethernet 14 + IPv4 20 + UDP 8 (dst port 4791) + BTH 12 [+ RETH 16 on the first packet of an
 *   RDMA WRITE] [+ AETH 4 on ACK/NAK] + payload + ICRC 4 + FCS 4, padded to the 64-byte Ethernet
 *   minimum, plus preamble/SFD 8 and inter-frame gap 12 of line time.
 * `frame_bytes` is what a switch buffer holds (Ethernet header through FCS); serialization uses
 * frame_bytes + WIRE_LINE_EXTRA. Goodput counts `payload_bytes` only.
 */
#ifndef WR_NET_PACKET_H
#define WR_NET_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "../core/pool.h"
#include "../core/time.h"

enum {
    WIRE_ETH = 14,
    WIRE_IPV4 = 20,
    WIRE_UDP = 8,
    WIRE_BTH = 12,
    WIRE_RETH = 16,
    WIRE_AETH = 4,
    WIRE_ICRC = 4,
    WIRE_FCS = 4,
    WIRE_PREAMBLE = 8,
    WIRE_IFG = 12,
    WIRE_MIN_FRAME = 64,
    WIRE_LINE_EXTRA = WIRE_PREAMBLE + WIRE_IFG,
    /* Frame bytes of a RoCEv2 packet around its payload (no RETH/AETH). */
    WIRE_ROCE_OVERHEAD = WIRE_ETH + WIRE_IPV4 + WIRE_UDP + WIRE_BTH + WIRE_ICRC + WIRE_FCS,
    ROCEV2_UDP_PORT = 4791,
    /* VXLAN (RFC 7348 §5, Figure 1, IPv4 outer): a VTEP wraps the inner frame (without its FCS)
     * in outer Ethernet 14 + outer IPv4 20 + outer UDP 8 (dst port 4789) + VXLAN header 8 and a
     * new FCS: 50 frame bytes more per frame; preamble/SFD and IPG stay one set per frame. */
    WIRE_VXLAN_HDR = 8,
    WIRE_VXLAN_OVERHEAD = WIRE_ETH + WIRE_IPV4 + WIRE_UDP + WIRE_VXLAN_HDR,
    VXLAN_UDP_PORT = 4789,
    IP_PROTO_UDP = 17,
};

enum pkt_kind { PKT_DATA, PKT_ACK, PKT_NAK, PKT_CNP, PKT_PAUSE, PKT_FCP };

/* ECN field (RFC 3168). */
enum { ECN_NOT_ECT = 0, ECN_ECT1 = 1, ECN_ECT0 = 2, ECN_CE = 3 };

/*
 * One cache line (issue #17): a packet is 64 bytes and the packet pool hands them out 64-byte
 * aligned (net_build), so a hop touches one line of it, not the two an 80-byte packet
 * straddled. The pool header's two spare words carry packet fields: `flow` sits in its padding
 * and `next` is its free-list link (a packet on the free list is on no queue). Frame and payload
 * sizes are 16-bit: an IPv4 datagram's total length is a 16-bit field (RFC 791), so no frame of
 * any fabric wirerate models is longer (the largest is a 16 KiB jumbo; net_build checks it).
 */
typedef struct packet {
    union {
        pool_hdr hdr; /* pool bookkeeping; must stay first */
        struct {
            uint32_t pool_magic_; /* hdr.magic */
            uint32_t flow;        /* owning QP id (transport's index; QP ids are 32-bit) */
            struct packet *next;  /* queue / link FIFO linkage (hdr.next_free while free) */
        };
    };
    sim_time t_next;    /* while on a link: when the frame behind it on the wire arrives (its
                         * last bit, plus pipeline); set when that frame is put on the wire,
                         * so an arrival schedules the next one without reading its line */
    uint32_t ts_ns;     /* data: when the requester sent it, in ns modulo 2^32 (4.29 s,
                         * far above any RTT); ACK/NAK: the ts_ns of the data packet it
                         * answers — the completion timestamp TIMELY reads */
    uint32_t src, dst;  /* host (NIC port) indices */
    uint32_t psn;       /* sequence number of the first payload byte's packet */
    uint32_t msg_bytes; /* data: length of the whole message (RDMA WRITE) it belongs to,
                         * capped at 2^32-1 — the RETH DMA length; unused otherwise */
    uint16_t payload_bytes;
    uint16_t frame_bytes; /* Ethernet header .. FCS, padded to 64 */
    uint16_t sport;       /* UDP source port: the flow's entropy */
    uint16_t path;        /* collective-aware balancing: the path the flow was placed on */
    uint16_t in_port;     /* ingress port index at the current switch */
    uint8_t kind;         /* enum pkt_kind */
    uint8_t prio;         /* traffic class 0..7 */
    uint8_t ecn;          /* ECN_* */
    uint8_t hops;         /* switches traversed */
    uint8_t first;        /* first packet of a message (carries RETH) */
    uint8_t last;         /* last packet of a message */
    uint8_t pfc_pool;     /* at a switch: PFC_POOL_* the frame's bytes are accounted in */
    uint8_t pfc_vec;      /* PAUSE frames: class-enable vector (classes this frame names) */
    uint8_t pfc_xoff;     /* PAUSE frames: classes paused (quanta 0xFFFF); others resumed */
    uint8_t flags;        /* PKT_F_*: UET's header bits */
} packet;
_Static_assert(sizeof(packet) == 64, "a packet is one cache line");
_Static_assert(offsetof(packet, next) == offsetof(pool_hdr, next_free) &&
                   offsetof(packet, flow) == offsetof(pool_hdr, user),
               "packet: flow and next share the pool header");

/* Largest frame a packet can describe (frame_bytes is 16-bit; see above). */
#define PKT_MAX_FRAME_BYTES UINT16_MAX
/* Alignment of the packet pool's objects: a cache line. */
#define PKT_ALIGN 64

/* packet.flags. UET (transport/uet.h): TRIMMABLE marks a data packet a switch may trim instead
 * of dropping (UET data in a trimming-eligible class); TRIMMED is set by the switch that cut the
 * payload off; on an ACK/NAK, ECE echoes a CE mark of the data packet it answers and TRIM says
 * it answers a trimmed packet (a NAK; an ACK when the receiver already had it). CREDIT marks an
 * ACK-sized RCCC credit frame: `psn` is the PSN the sender may now send up to (exclusive). */
enum { PKT_F_TRIMMABLE = 1, PKT_F_TRIMMED = 2, PKT_F_ECE = 4, PKT_F_TRIM = 8, PKT_F_CREDIT = 16 };

/* Where a switch accounts a buffered frame (PFC, models.md "Switch"). */
enum { PFC_POOL_LOSSY = 0, PFC_POOL_SHARED = 1, PFC_POOL_HEADROOM = 2, PFC_POOL_IB = 3 };

/* InfiniBand flow control packet (IBTA vol. 1 §7.9.4: a 4-byte link packet — Op, FCTBS, VL,
 * FCCL — and its 2-byte LPCRC). It carries FCCL, the receiver's credit limit in 64-byte blocks,
 * in `psn` and the VL in `prio`. No Ethernet preamble or gap: its line time is its 6 bytes. */
enum { WIRE_IB_FCP = 6, IB_CREDIT_BYTES = 64 };

/* 64-byte flow-control blocks a frame occupies in an InfiniBand receive buffer. */
static inline uint32_t ib_blocks(uint32_t frame_bytes)
{
    return (frame_bytes + IB_CREDIT_BYTES - 1) / IB_CREDIT_BYTES;
}

/* A PFC frame (IEEE 802.1Qbb MAC control, 64 bytes on the wire plus preamble and gap). */
enum { WIRE_PFC_FRAME = 64, PFC_QUANTA_MAX = 0xFFFF, PFC_QUANTUM_BITS = 512 };

/* Frame bytes of a RoCEv2 data packet with `payload` bytes. */
static inline uint32_t wire_data_frame(uint32_t payload, int first)
{
    uint32_t f = WIRE_ROCE_OVERHEAD + payload + (first ? WIRE_RETH : 0);
    return f < WIRE_MIN_FRAME ? WIRE_MIN_FRAME : f;
}

/* Bytes of line time a frame occupies (adds preamble/SFD and inter-frame gap). */
static inline uint32_t wire_line_bytes(const packet *p)
{
    return p->frame_bytes + (p->kind == PKT_FCP ? 0 : WIRE_LINE_EXTRA);
}

#endif
