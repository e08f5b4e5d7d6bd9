/*
 * inttel.h — in-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High Precision
 * Congestion Control", SIGCOMM 2019, §3.2 and Fig. 4): each switch a data packet leaves through
 * pushes one record for that egress port — the time the packet leaves (ts), the bytes the port
 * has transmitted so far (txBytes, this packet included), the bytes still queued on the port
 * (qLen) and the link's rate (B) — and the receiver copies the records of the data packet an
 * ACK answers into that ACK, so the sender sees every hop of its path.
 *
 * Where the records live. A packet stays the 64-byte struct of packet.h; when `nic.cc: hpcc`
 * the packet pool's objects are sizeof(packet) + sizeof(int_rec), rounded to 64 (pkt_obj_bytes),
 * and the record is the tail of the pool object (pkt_int). Nothing is allocated per packet and
 * other runs pay nothing: the pool's object size is chosen once, at net_build, by whether INT is
 * on (net->int_on).
 *
 * What is stamped: data packets (PKT_DATA) at every fabric switch's egress as they start on
 * the wire (the egress pipeline stage, after the queue), up to INT_MAX_HOPS records; the NIC
 * starts the record empty. The scale-up domain (NVLink switches) does not stamp. txBytes count
 * line bytes (frame + preamble + inter-frame gap), so a link that is busy all the time shows a
 * transmit rate of exactly B. qLen counts every class's queued bytes behind this packet.
 */
#ifndef WR_NET_INTTEL_H
#define WR_NET_INTTEL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/time.h"
#include "packet.h"

/* A 5-hop path is the longest of a 3-tier Clos (ToR, aggregation, core, aggregation, ToR) and
 * of rail-optimized fabrics with super-spines; 8 leaves room for custom fabrics. Hops beyond
 * it are not recorded. */
#define INT_MAX_HOPS 8

typedef struct int_hop {
    sim_time ts_ps;      /* when the packet left the egress port */
    uint64_t tx_bytes;   /* line bytes the port has sent, this packet included */
    uint64_t qlen_bytes; /* bytes queued on the port behind this packet */
    uint64_t rate_bps;   /* the link's rate */
    uint32_t node, port; /* the switch and its port: the sender tells a path change by them */
} int_hop;

typedef struct int_rec {
    uint32_t n; /* records pushed */
    uint32_t pad_;
    int_hop hop[INT_MAX_HOPS];
} int_rec;

/* Bytes of one packet pool object: the packet, with INT (HPCC) the record after it, rounded to
 * the pool's 64-byte alignment (PKT_ALIGN). */
static inline size_t pkt_obj_bytes(int int_on)
{
    size_t b = sizeof(packet) + (int_on ? sizeof(int_rec) : 0);
    return (b + PKT_ALIGN - 1) & ~(size_t)(PKT_ALIGN - 1);
}

/* The INT record of a packet from a pool sized for INT (net->int_on). */
static inline int_rec *pkt_int(packet *p)
{
    return (int_rec *)(void *)(p + 1);
}
static inline const int_rec *pkt_int_c(const packet *p)
{
    return (const int_rec *)(const void *)(p + 1);
}

#endif
