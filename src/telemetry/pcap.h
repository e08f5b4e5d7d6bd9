/*
 * pcap.h — packet capture of the simulated wire: real RoCEv2, CNP and PFC frames in a
 * nanosecond pcap file that Wireshark/tshark decode.
 *
 * Capture: a tap on net (net->tap, called when a port starts putting a frame on the wire)
 * copies the few header fields of each matching frame into a table — the frame's bytes are
 * built only when the file is written, so capturing costs ~48 bytes and no formatting per
 * packet. At most `max_packets` frames are kept (telemetry.pcap.max_packets); later ones are
 * counted in `missed` and not stored. One capture point for the whole fabric: every frame
 * appears once per hop, timestamped at its transmission start, with the MACs of that hop.
 *
 * Frames (IBTA RoCEv2 annex; IEEE 802.1Qbb; models.md "Wire and packets"):
 *   RoCEv2  Ethernet II (0x0800) / IPv4 (DF, TTL 64 − hops, header checksum correct, DSCP from
 *           the class, ECN from the packet: ECT(0), or CE once marked) / UDP (src = the QP's
 *           entropy port, dst 4791, checksum 0 as RoCEv2 allows) / BTH (P_Key 0xFFFF, dest QP =
 *           0x100 + the transport's QP index, PSN, AckReq on a message's last packet)
 *           data:  RDMA WRITE First 0x06 / Middle 0x07 / Last 0x08 / Only 0x0A, RETH on First and
 *                  Only (VA 0, R_Key 0, DMA length = this packet's payload)
 *           ACK:   Acknowledge 0x11 + AETH syndrome 0x1F (ACK), PSN = last PSN received
 *           NAK:   Acknowledge 0x11 + AETH syndrome 0x60 (PSN sequence error), PSN = expected
 *           CNP:   opcode 0x81, BECN set, 16 reserved bytes
 *           then the payload (zero bytes) and a 4-byte ICRC placeholder (zero; not computed).
 *   PFC     MAC control (0x8808) to 01:80:C2:00:00:01, opcode 0x0101, class-enable vector,
 *           8 quanta (0xFFFF for the paused classes named in the vector, 0 = resume), padding.
 * The FCS is not in the file (link type 1, as a capture on a host shows it); orig_len is the
 * frame without FCS. Frames are written whole by default (PCAP_SNAPLEN 65535): Wireshark's
 * InfiniBand dissector flags a RoCE frame cut short as "Malformed (Invalid Packet Length from
 * LRH)", so a headers-only capture (snaplen 128, every header fits) decodes all fields but
 * shows that flag on data packets. The file size is bounded by max_packets × (MTU + 86 + 16).
 * MACs: 02:00:NN:NN:PP:PP (locally administered; NN = node id, PP = port index) — a hop's
 * source MAC is the transmitting port, its destination the port at the other end. IPs are the
 * hosts' addresses from the topology. DSCP: class 3 → 26, class 6 → 48 (the usual RoCE
 * settings), other classes → 8·class.
 *
 * Filter (telemetry.pcap.filter; empty or "all" = everything): space-separated terms that must
 * all match; a term is KEY:VALUE[,VALUE...] and matches when any value does.
 *   node:NAME    frames sent or received by a port of node NAME (a switch or a host)
 *   port:A->B    frames sent by the egress port A->B (as named in ports.csv)
 *   kind:K       K = data | ack | nak | cnp | pause | roce (data, ack, nak, cnp) | control
 *                (everything but data)
 * e.g. "node:leaf0 kind:cnp,pause" captures CNPs and PFC frames in and out of leaf0.
 */
#ifndef WR_TELEMETRY_PCAP_H
#define WR_TELEMETRY_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/err.h"
#include "../net/net.h"

#define PCAP_SNAPLEN 65535u
#define PCAP_MAGIC_NS 0xa1b23c4du

typedef struct pcap_capture pcap_capture;

/* Parse `filter` (NULL = all) against n's names and install the tap on n (n borrowed; must
 * outlive the capture). Returns new, or NULL with *e set (ERR_INVALID, key
 * telemetry.pcap.filter) for a bad filter. Replaces any tap already installed. */
pcap_capture *pcap_capture_new(net *n, uint64_t max_packets, const char *filter, err *e);
/* Remove the tap (if still ours) and free. NULL is a no-op. */
void pcap_capture_free(pcap_capture *c);

uint64_t pcap_captured(const pcap_capture *c); /* frames stored */
uint64_t pcap_missed(const pcap_capture *c);   /* matching frames beyond max_packets */

/* Write the pcap file (nanosecond magic, link type Ethernet) with frames cut at `snaplen`
 * (0 = PCAP_SNAPLEN). Returns 0, or -1 on a stream error. */
int pcap_write(FILE *f, const pcap_capture *c, uint32_t snaplen);

/* Build the bytes of captured frame i into buf (room for `cap` bytes; the rest is cut) and
 * return its full length without FCS. For tests. */
uint32_t pcap_frame(const pcap_capture *c, uint64_t i, uint8_t *buf, uint32_t cap);

#endif
