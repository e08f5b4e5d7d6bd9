/*
 * pcap.h — packet capture of the simulated wire: real RoCEv2, CNP and PFC frames in a
 * nanosecond pcap file that Wireshark/tshark decode.
 *
 * Capture: a tap on net (net->tap, called when a port starts putting a frame on the wire)
 * builds the first `snaplen` bytes of each matching frame and appends the record (header, those
 * bytes, the real frame length as orig_len) to a temp file while the run goes on, so a capture
 * costs no memory that grows with the run. The temp file lives in a staging folder the caller
 * names (the CLI: the output folder's nearest existing ancestor, the filesystem the results go
 * to) and is unlinked at once, so a killed run leaves nothing behind; pcap_write() copies it
 * into the final file. Capturing stops at the first of two budgets, and later matching frames
 * are only counted (`missed`):
 *   max_packets  records (telemetry.pcap.max_packets, default 100000)
 *   max_bytes    file size, global header and record headers included (telemetry.pcap.max_bytes,
 *                default 64 MiB): the file never exceeds it.
 * One capture point for the whole fabric: every frame appears once per hop, timestamped at its
 * transmission start, with the MACs of that hop.
 *
 * Frames (IBTA RoCEv2 annex; IEEE 802.1Qbb; models.md "Wire and packets"):
 *   RoCEv2  Ethernet II (0x0800) / IPv4 (DF, TTL 64 − hops, header checksum correct, DSCP from
 *           the class, ECN from the packet: ECT(0), or CE once marked) / UDP (src = the QP's
 *           entropy port, dst 4791, checksum 0 as RoCEv2 allows) / BTH (P_Key 0xFFFF, dest QP =
 *           0x100 + the transport's QP index, PSN, AckReq on a message's last packet)
 *           data:  RDMA WRITE First 0x06 / Middle 0x07 / Last 0x08 / Only 0x0A, RETH on First and
 *                  Only (VA 0, R_Key 0, DMA length = the whole message, below)
 *           ACK:   Acknowledge 0x11 + AETH syndrome 0x1F (ACK), PSN = last PSN received
 *           NAK:   Acknowledge 0x11 + AETH syndrome 0x60 (PSN sequence error), PSN = expected
 *           CNP:   opcode 0x81, BECN set, 16 reserved bytes
 *           then the payload (zero bytes) and the ICRC.
 *   PFC     MAC control (0x8808) to 01:80:C2:00:00:01, opcode 0x0101, class-enable vector,
 *           8 quanta (0xFFFF for the paused classes named in the vector, 0 = resume), padding.
 * RETH DMA length: the length of the whole RDMA WRITE (the message on that QP), as a requester
 * puts it in the first packet, not that packet's payload (IBA vol. 1, RETH: the length of the
 * whole RDMA operation; Wireshark's "DMA Length"); messages beyond 2^32−1 bytes, which do not fit
 * the 32-bit field, are recorded as 2^32−1.
 * ICRC: CRC-32 (the Ethernet polynomial, reflected, init and final XOR 0xFFFFFFFF) over the
 * invariant fields — 8 bytes of 0xFF standing for the absent LRH, then IPv4 .. payload with the
 * fields routers change replaced by ones: IPv4 TOS (DSCP+ECN), TTL and header checksum, UDP
 * checksum, BTH byte 4 (FECN, BECN, reserved) — as the RoCEv2 annex (IBA vol. 1 Annex A17)
 * defines and the Linux rxe driver computes it; sent least significant byte first. Checked
 * against a CNP captured on a ConnectX-4 Lx (tests/test_telemetry.c). It is computed only for
 * frames stored whole (a cut frame has no ICRC in the file).
 * The FCS is not in the file (link type 1, as a capture on a host shows it); orig_len is the
 * frame without FCS. Snap length (telemetry.pcap.snaplen, default PCAP_SNAPLEN_DEFAULT = 128):
 * every header fits (Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 = 70, an ACK is 62 and a
 * CNP 74 bytes whole, a PFC frame 60), so Wireshark decodes every field and shows data frames as
 * cut short by the capture; 65535 stores whole frames.
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

#define PCAP_SNAPLEN 65535u         /* largest snap length (whole frames) */
#define PCAP_SNAPLEN_MIN 64u         /* every RoCEv2 header but RETH, and a whole PFC frame */
#define PCAP_SNAPLEN_DEFAULT 128u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_FILE_HEADER 24u
#define PCAP_RECORD_HEADER 16u

typedef struct pcap_capture pcap_capture;

typedef struct pcap_opts {
    uint64_t max_packets;     /* records to store */
    uint64_t max_bytes;       /* file size budget, headers included (>= PCAP_FILE_HEADER) */
    uint32_t snaplen;         /* PCAP_SNAPLEN_MIN..PCAP_SNAPLEN */
    const char *staging_dir;  /* folder of the temp file; NULL = tmpfile() */
} pcap_opts;

/* Why capturing stopped before the run ended. */
enum pcap_stop { PCAP_RUNNING, PCAP_FULL_PACKETS, PCAP_FULL_BYTES, PCAP_IO_ERROR };

/* Parse `filter` (NULL = all) against n's names, open the temp file and install the tap on n
 * (n borrowed; must outlive the capture). Returns new, or NULL with *e set: ERR_INVALID (key
 * telemetry.pcap.filter) for a bad filter, ERR_IO when the temp file cannot be made. Replaces any
 * tap already installed. */
pcap_capture *pcap_capture_new(net *n, const pcap_opts *o, const char *filter, err *e);
/* Remove the tap (if still ours), close the temp file and free. NULL is a no-op. */
void pcap_capture_free(pcap_capture *c);

uint64_t pcap_captured(const pcap_capture *c); /* frames stored */
uint64_t pcap_missed(const pcap_capture *c);   /* matching frames not stored (budgets) */
uint64_t pcap_bytes(const pcap_capture *c);    /* file size so far */
enum pcap_stop pcap_stopped(const pcap_capture *c);

/* Copy the capture (nanosecond magic, link type Ethernet) to f. Returns 0, or -1 on a stream
 * error (reading the temp file or writing f). */
int pcap_write(FILE *f, pcap_capture *c);

/* Build the frame of packet `pkt` leaving port p at time t, as the tap does, into buf (room for
 * `cap` bytes; the rest is cut) and return its full length without FCS. For tests. */
uint32_t pcap_build_frame(const net *n, const port *p, const packet *pkt, uint8_t *buf,
                          uint32_t cap);
/* The ICRC of a whole RoCEv2 frame `len` bytes long (Ethernet header first, ICRC last), as the
 * 32-bit value whose least significant byte is sent first. */
uint32_t pcap_icrc(const uint8_t *frame, uint32_t len);

#endif
