/*
 * net.h — the network: nodes (hosts and switches), egress ports with the link direction they
 * drive, switch buffers, forwarding tables.
 *
 * Model (models.md "Switch", DESIGN.md "hot path"):
 * - A `port` is the egress side of one link direction: 8 priority queues, a scheduler, the
 *   packet being serialized, and the packets in flight on the wire to the peer (a FIFO).
 *   It owns at most two events: `tx_done` (serialization of the current frame ends) and
 *   `arrive` (the head of the in-flight FIFO reaches the peer). Packets are not events.
 * - Store-and-forward: a frame is handed to the peer node when its last bit has arrived
 *   (tx end + propagation) plus the peer switch's pipeline latency; hosts add no latency.
 *   The frame occupies no buffer during the pipeline (it enters the egress queue after it).
 * - Output-queued switches with one shared buffer per switch. Admission by dynamic threshold
 *   (Choudhury & Hahne 1998): a queue takes a frame only if its length < α·(B − occupied) and
 *   the buffer has room; otherwise the frame is dropped with reason buffer_full. A frame holds
 *   buffer from enqueue until its transmission ends.
 * - ECN (RED-style, as DCQCN's congestion point; Zhu et al. SIGCOMM'15 §3.1): an ECN-capable
 *   frame is marked CE with probability 0 at or below Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) up to
 *   and including Kmax, 1 above Kmax, where q is the egress queue of its class: by default
 *   when the frame leaves the queue, q = the bytes still queued behind it (as the DCQCN/HPCC
 *   ns-3 switch and htsim's ECN queue do); with `mark_at: enqueue`, when it enters, q = the
 *   bytes ahead of it. The draw comes from the switch's own random stream.
 * - Strict priority between the 8 classes (highest first); FIFO within a class.
 * - Host NIC ports pull: when the port is free it takes the next frame from the host's transport
 *   (`pull`), so packets are created only when the wire can take them. A host port's queues hold
 *   only frames it relays for a peer GPU of its server (rail-only PXN); they go first.
 * - The scale-up domain (NVLink/NVSwitch) of a server is a switch of tier TIER_SCALE_UP joined to
 *   each of the server's hosts at the scale-up bandwidth NCCL achieves (bandwidth × efficiency);
 *   traffic between GPUs of one server takes it, as NCCL does.
 */
#ifndef WR_NET_NET_H
#define WR_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/arena.h"
#include "../core/err.h"
#include "../core/evq.h"
#include "../core/pool.h"
#include "../core/rng.h"
#include "../core/sim.h"
#include "drop.h"
#include "packet.h"

#define NET_PRIOS 8
#define NET_DRE_HALF_LIFE_PS (10 * SIM_US)

typedef struct node node;
typedef struct port port;
typedef struct port_ib port_ib;
typedef struct port_cold port_cold;
typedef struct net net;

enum node_kind { NODE_HOST, NODE_SWITCH };
enum switch_tier { TIER_NONE, TIER_LEAF, TIER_SPINE, TIER_SUPER_SPINE, TIER_SCALE_UP };

/* A link direction that corrupts frames (the link-ber fault): each frame arriving over it fails
 * the receiver's FCS check with probability 1 − exp(units · log_ok), units = its frame bits
 * (post-FEC: log_ok = ln(1 − BER)) or the FEC codewords it spans, 1 + bits/5140 (pre-FEC
 * RS(544,514): log_ok = ln(1 − P(codeword uncorrectable))). Owned by the fault; NULL on a
 * clean link (the port's arrive handler is then the plain one: no per-frame cost). */
typedef struct port_ber {
    rng rng;                   /* the fault's own stream */
    double log_ok;
    bool per_codeword;
    uint64_t corrupted;        /* frames dropped as bit_error */
} port_ber;

typedef struct pkt_fifo {
    packet *head, *tail;
} pkt_fifo;

/* InfiniBand credit-based flow control of one port (see "InfiniBand" below), per VL = class;
 * allocated only on an IB fabric, so Ethernet ports stay as small as they were.
 * Sender side of the port's link direction: FCCL (cr_limit) from the peer's last FCP and FCTBS
 * (cr_sent), both in 64-byte blocks modulo 2^32; a frame starts only when cr_limit − cr_sent
 * covers it. Receiver side (frames the port's owner received from the peer): blocks held
 * (ib_used) and freed so far (ib_freed); the FCP sent back says ib_cap + ib_freed. */
typedef struct port_ib {
    event fcp_arrive;    /* the head of fcp_fly reaches the peer */
    port *port;          /* the port this belongs to */
    uint8_t cr_blocked;  /* VLs whose next frame waits for credits */
    uint8_t fcp_pending; /* VLs whose FCP waits for the wire (receiver side) */
    uint16_t fecn_skip;  /* IB CC marking rate: eligible packets left to skip */
    uint32_t cr_limit[NET_PRIOS], cr_sent[NET_PRIOS], cr_need[NET_PRIOS];
    sim_time cr_block_start[NET_PRIOS];
    uint32_t cap_blocks; /* receive buffer per VL (blocks) */
    uint32_t used[NET_PRIOS], freed[NET_PRIOS];
    uint32_t peak_blocks;     /* most blocks any VL held (never above cap_blocks) */
    pkt_fifo fcp_fly;         /* FCPs on the wire (they skip the peer's pipeline) */
    uint64_t credit_stall_ps; /* sum over VLs of the time a frame waited for credits */
    uint64_t credit_stalls;   /* stalls begun */
    uint64_t fcp_sent, fecn_marked;
} port_ib;

/* What a frame of one traffic class touches at a port on each hop, in one cache line: the
 * egress queue and its bytes, the PFC ingress accounting of frames received in that class, and
 * the per-class transmit counters (SAI queue counters). */
typedef struct port_tc {
    pkt_fifo q;          /* egress queue (switch ports; host ports: relayed frames only) */
    uint64_t q_bytes;    /* frame bytes in q */
    uint64_t ing_shared; /* PFC ingress: bytes received in this class held in the shared pool */
    uint64_t ing_hdrm;   /* ... and in this ingress's headroom */
    uint64_t tx_bytes;   /* frame octets sent, as SAI_QUEUE_STAT_BYTES */
    uint64_t tx_packets;
    uint32_t drr_deficit; /* DWRR (switch.scheduler dwrr) */
    uint8_t xoff;         /* PFC ingress: this class's bit of the port's xoff_sent, here for
                           * the release of every frame (xon_check) */
    uint8_t pad_[3];
} port_tc;

/* What only pauses, the watchdog, drops, frames lost on the wire and the per-class telemetry
 * counters touch: out of the port (issue #17), in a block a port gets when one of them is
 * first written (net_port_cold), from an array of one block per port that the system maps
 * only where written (calloc of untouched zero pages). In a large fabric most ports never
 * pause, drop or mark (at 8,192 hosts some 15 % do), so 768 bytes a port, 192 MiB of the
 * 384 MiB of ports at 32,768 GPUs, mostly stay unmapped. Read with port_cold_of(p), which
 * gives zeros for a port that has none. */
struct port_cold {
    port *port;                       /* the port this belongs to */
    /* frames sent (counted in net_port_tx_bytes/_tx_packets) that never reached the peer: the
     * link went down under them, or they failed its FCS check (link-ber) */
    uint64_t lost_bytes, lost_packets;
    event pfc_refresh;                /* re-send PAUSE before the peer's pause expires */
    /* PFC, egress side. A PAUSE takes effect pfc_response_ps after it arrived (the response
     * delay IEEE 802.3 Annex 31B allows); until then the class is pending and still sends. */
    sim_time pause_until[NET_PRIOS], pause_start[NET_PRIOS];
    sim_time pause_apply_at[NET_PRIOS];
    event pause_end;
    event pause_apply; /* the earliest pending PAUSE takes effect */
    /* PFC watchdog (switch ports) */
    sim_time wd_last_rx[NET_PRIOS];   /* last PAUSE for the class */
    event wd_ev;

    uint64_t drops[DROP_REASONS];
    uint64_t pfc_pause_sent, pfc_paused_ps;
    uint64_t pfc_pause_rx, wd_events;
    /* per traffic class (SAI queue and PFC-per-priority counters; bytes and packets sent are
     * in cls[]); PFC frames themselves are MAC control and counted only in the port's
     * tx_other_* */
    uint64_t prio_ecn_marked[NET_PRIOS], prio_drops[NET_PRIOS];
    uint64_t prio_pause_sent[NET_PRIOS], prio_pause_rx[NET_PRIOS], prio_paused_ps[NET_PRIOS];
};

/*
 * Laid out for the cache (issue #17): the fields every frame touches in port_tx_done, port_next,
 * port_arrive and switch_receive come first, in three cache lines, then the per-class lines
 * (a frame touches only its own class's). What only PFC pauses, the watchdog, drops, faults
 * and per-class telemetry write is in the port's cold block (port_cold, above), made on first
 * write. A port is 768 bytes; a hop touches about five of its lines instead of about fourteen,
 * which is what keeps 8,192-host fabrics (tens of MB of ports) fast. Keep new per-frame fields
 * in the hot lines, others in the class lines' spare room or port_cold.
 * Ports are 64-byte aligned: only topo.c allocates them (one aligned block).
 */
struct port {
    /* ---- hot: line 0 (the arrival event, the wire, and what queueing a frame reads) ---- */
    /* The event queue prefetches an event's line before it fires: port_arrive starts from
     * this line and reads nothing else of the port (issue #17). A switch queueing a frame at a
     * busy egress reads this line and its class's only: the busy bit, the queue total, its peak
     * and the watchdog's storm bits are here, not with the transmitter or the counters. */
    _Alignas(64) event arrive; /* head of `fly` reaches the peer */
    pkt_fifo fly;              /* frames on the wire, in arrival order */
    node *peer_owner;          /* peer->owner: the node frames on this link are delivered to */
    uint16_t peer_index;       /* peer->index: their ingress port there (16-bit, as
                                * packet.in_port: topo.c checks) */
    bool tx_busy;              /* tx_pkt != NULL, here so that queueing a frame and waking a
                                * port read line 0 only while the port is sending */
    bool up;
    uint8_t q_nonempty;        /* bit p set when cls[p].q has frames */
    uint8_t paused;            /* PFC: bit p set while the peer has paused priority p here;
                                * the port starts no new frame of that class (one on the wire
                                * completes). Host ports: the NIC's pull must honour it. */
    uint8_t wd_storm;          /* PFC watchdog: classes in a storm: pause ignored, queue drained */
    uint8_t pfc_tx_pending;    /* classes whose PAUSE/RESUME waits for the wire (port_next reads
                                * it for every frame: here, not in line 2) */
    uint64_t q_total_bytes;
    uint64_t max_q_bytes;
    /* ---- hot: line 1 (the transmitter; its event is the line port_tx_done starts from) ---- */
    event tx_done;             /* serialization of tx_pkt ends */
    node *owner;
    packet *tx_pkt;            /* frame being serialized, or NULL */
    uint64_t rate_bps;
    sim_time deliver_ps;       /* prop + the peer's pipeline latency */
    sim_time tx_end_ps;        /* when the frame being serialized ends */
    uint64_t busy_ps;          /* serialization time (to the end of the current frame) */
    /* ---- line 2: what a frame reads only at a host port (the index, the NIC's pull), with
     * InfiniBand or with the DRE on, and what no class counts ---- */
    /* recent load for adaptive balancing: a discounting rate estimator (CONGA's DRE) of line
     * bytes, halved every NET_DRE_HALF_LIFE_PS, decayed lazily when touched */
    uint64_t dre_bytes;
    sim_time dre_last_ps;
    port_ib *ib; /* InfiniBand: this link's credit state (both directions gated), else NULL */
    /* What the port sent beyond its classes' counters (cls[].tx_bytes, tx_packets): PFC
     * frames, InfiniBand FCPs, and the flow level's fluid bytes. The port's totals are
     * net_port_tx_bytes, _tx_packets and _tx_wire_bytes (below), so a frame of a class writes
     * its class's line only, not this one (issue #17, seventh round). */
    uint64_t tx_other_bytes;
    uint64_t tx_other_wire_bytes;
    uint64_t tx_other_packets;
    port *peer;                /* the port at the other end (its egress towards us) */
    uint32_t index;            /* index within owner->ports */
    uint8_t xoff_sent;         /* PFC ingress: classes we are holding the peer paused for
                                * (each class's bit is mirrored in cls[c].xoff) */
    uint8_t pause_pending;     /* classes whose PAUSE has arrived but not yet applies */
    uint8_t drr_cur;           /* DWRR (switch.scheduler dwrr) */
    /* ---- line 3: what only some frames touch ---- */
    uint8_t drr_fresh;         /* DWRR */
    uint32_t id;               /* index within net->ports */
    uint64_t hdrm_bytes;       /* PFC: headroom reserved per lossless class */
    sim_time prop_ps;          /* propagation delay of the cable */
    port_ber *ber;             /* link-ber fault on this direction, else NULL */
    uint64_t ecn_marked;
    uint64_t hdrm_peak_bytes;  /* most headroom any lossless class held (a gauge) */
    uint64_t trimmed;          /* frames this egress would have dropped (buffer_full) and cut
                                * to their header instead (switch.trimming); not drops */
    port_cold *cold;           /* pauses, watchdog, drops, lost frames, per-class telemetry:
                                * NULL until one is first written (net_port_cold) */
    /* ---- per class: one cache line each (offset 256: topo.c aligns port arrays to 64) ---- */
    _Alignas(64) port_tc cls[NET_PRIOS];

};
_Static_assert(offsetof(struct port, max_q_bytes) < 64 && offsetof(struct port, tx_done) == 64 &&
                   offsetof(struct port, busy_ps) < 128 && offsetof(struct port, drr_cur) < 192 &&
                   offsetof(struct port, cold) < 256,
               "port: lines 0-3 hold what their comments say");
_Static_assert(offsetof(struct port, cls) == 256 && sizeof(port_tc) == 64,
               "port: the hot fields fill lines 0-3, each class its own line");

/* Port p's cold block, made when first asked for (its events initialised): the hot path
 * calls it only where it writes one of the block's fields. */
port_cold *net_port_cold(net *n, port *p);
/* Port p's cold block for reading: zeros (a shared block) when the port has none. */
extern const port_cold net_port_cold_zero;
static inline const port_cold *port_cold_of(const port *p)
{
    return p->cold ? p->cold : &net_port_cold_zero;
}

/* A port's transmit counters. Octet counters follow RFC 2863 ifHCOutOctets as RFC 3635
 * §3.2.5 specialises it for Ethernet and SAI_PORT_STAT_IF_OUT_OCTETS reports it: MAC frame
 * bytes, destination address through FCS, no preamble/SFD and no inter-frame gap, PFC frames
 * included. The wire bytes add those 20 bytes of line time per frame (an FCP, a link packet,
 * none): the figure utilization is made of. The receive counters are not kept: a frame that
 * arrived is one the peer sent that is neither on the wire nor lost on it (net_port_rx_bytes),
 * which saves delivering a frame a write to a cold line. Each sums the port's eight class
 * lines: for reports and telemetry, not for every frame. */
static inline uint64_t net_port_tx_bytes(const port *p)
{
    uint64_t b = p->tx_other_bytes;
    for (int c = 0; c < NET_PRIOS; c++)
        b += p->cls[c].tx_bytes;
    return b;
}
static inline uint64_t net_port_tx_packets(const port *p)
{
    uint64_t k = p->tx_other_packets;
    for (int c = 0; c < NET_PRIOS; c++)
        k += p->cls[c].tx_packets;
    return k;
}
/* ... over the classes in `classes` only (HPCC's INT, per frame: the classes that have sent
 * anything, whose lines are warm, net.tx_classes; the rest count zero). */
static inline uint64_t net_port_tx_wire_bytes_of(const port *p, unsigned classes)
{
    uint64_t b = p->tx_other_wire_bytes;
    for (; classes; classes &= classes - 1) {
        const port_tc *tc = &p->cls[__builtin_ctz(classes)];
        b += tc->tx_bytes + (uint64_t)WIRE_LINE_EXTRA * tc->tx_packets;
    }
    return b;
}
static inline uint64_t net_port_tx_wire_bytes(const port *p)
{
    return net_port_tx_wire_bytes_of(p, (1u << NET_PRIOS) - 1);
}

/* Frames that arrived on port p from its peer, and their MAC frame octets (ifHCInOctets): what
 * the peer sent less what is still on the wire and what was lost on it (port.c). */
uint64_t net_port_rx_bytes(const port *p, uint64_t *packets);

/* The simulation's prefetch hook for the port events (sim_prefetch_fn; port.c): reads the
 * simulation's state, never writes it; it writes only net.guess, a memo of what pick returns.
 * topo.c installs it in the net's simulation when net_prefetch_pays. */
void net_prefetch(void *ctx, const event *far, const event *mid, const event *near);
/* Chooses the frame path for the run about to start (net.fast): the copy for the common
 * features when the net has none of the others, unless WR_FAST_PATH=0 (or off, no, false) in
 * the environment asks for the general one. Call when the set-up is complete, before
 * sim_run; a run whose features change later must call it again. */
void net_hot_path_select(net *n);
/* Whether net.fast is still what net_hot_path_select would choose (the run's end checks). */
bool net_hot_path_consistent(const net *n);
/* The simulation's loop with net_prefetch inlined (sim.loop; port.c). */
uint64_t net_run_loop(sim *s);
/* Bytes of a port a packet hop touches (lines 0 and 1 and one class line), and the L2 size
 * assumed where sysconf does not give one: net_prefetch_pays compares their product with the
 * number of ports against 5/4 of the L2 (topo.c). */
#define NET_HOT_PORT_BYTES 192u
#define NET_L2_DEFAULT_BYTES (512u * 1024u)
/* Whether the network's simulation should run the prefetch hook: its ports' hot lines exceed
 * 5/4 of the core's L2 cache (or WR_PREFETCH=1/0 in the environment says so). Results are the
 * same either way. */
bool net_prefetch_pays(const net *n);

/* Host hooks, set by the transport. `pull` returns the next frame for `p` or NULL (the NIC is
 * then idle until it calls net_port_kick); it must not return a frame of a priority set in
 * p->paused. net calls net_port_kick itself when a pause ends. `rx` takes ownership of a frame
 * that arrived for this host. */
typedef packet *(*host_pull_fn)(void *ctx, node *host, port *p);
typedef void (*host_rx_fn)(void *ctx, node *host, packet *pkt);
/* The transport's prefetch hooks (net_prefetch, issue #17), for a frame about to be handed to
 * `rx` and a host port about to `pull`: level 0 may read what its arguments point to, level 1
 * (called an event later) also the lines level 0 prefetched. They read, never write; NULL =
 * none. */
typedef void (*host_rx_prefetch_fn)(const void *ctx, const packet *pkt, int level);
typedef void (*host_pull_prefetch_fn)(const void *ctx, const node *host, const port *p, int level);

typedef struct ecmp_group ecmp_group;
/* Packet tap (telemetry: pcap capture): called when port p starts putting pkt on the wire at
 * time t. Must not keep or change the packet. NULL = no tap (the hot path pays one branch). */
typedef void (*net_tap_fn)(void *ctx, const port *p, const packet *pkt, sim_time t);
/* Load balancer hook (lb/ sits above net): choose a member index in [0, g->n) for pkt at sw. */
typedef uint32_t (*lb_pick_fn)(void *ctx, node *sw, const ecmp_group *g, const packet *pkt);

typedef struct switch_buf {
    uint64_t size_bytes;       /* B */
    uint64_t used_bytes;       /* frames held */
    uint64_t alpha_q16;        /* α in 16.16 fixed point */
} switch_buf;

/* Laid out for the cache (issue #17): line 0 holds what forwarding a frame reads of a switch
 * (kind, ports, FIB, buffer, hash seed and offset) and of a host (kind, owner); nodes are
 * 64-byte aligned (topo.c allocates them in one aligned block). */
struct node {
    _Alignas(64) enum node_kind kind;
    enum switch_tier tier;
    port *ports;
    net *owner;
    /* switch: the FIB (route.c; read it with net_fib). fib_cls[c] is the ECMP group towards
     * the hosts of attachment class c (net.host_cls), NET_FIB_LOCAL when the switch is cabled
     * to them (then fib[h - fib_lo] names the group of its own ports to h), UINT32_MAX = no
     * route; NULL on a scale-up domain, which has only the window */
    uint32_t *fib_cls;
    union {
        switch_buf buf; /* switches */
        void *host_ctx; /* hosts: the transport's state of this NIC port (in line 0, which
                         * a host port's pull reads anyway) */
    };
    uint32_t hash_seed;        /* per-switch ECMP seed */
    uint8_t hash_offset;       /* ECMP hash rotated right by this many bits (lb.c) */
    bool drained;              /* switch-drain: routing avoids it as transit where it can */
    uint8_t network;           /* enum network_id: backend, storage or frontend (hosts and
                                * switches; a port's network is its owner's) */
    uint8_t hop_rank;          /* custom fabrics: hops from the nearest host (1 = leaf-like,
                                * capped at 255), 0 elsewhere; lb.c ranks the hash offset by it */
    /* line 1 */
    /* The per-host FIB window: fib[i] for host fib_lo + i, i < fib_n; hosts outside it have no
     * per-host entry. A fabric switch's window spans the hosts cabled to it (a leaf's), none
     * for a spine. A scale-up domain without relays (not rail-only) reaches only its server's
     * GPUs: its window spans them (at 32k GPUs the 4,096 NVSwitch FIBs of n_hosts entries were
     * 537 MB); with relays (rail-only) it spans every host. */
    uint32_t *fib;
    uint32_t fib_lo, fib_n;
    rng rng;                   /* per-switch stream (spray, random hash): in line 1 with the
                                * FIB window, which a frame's forwarding reads */
    uint32_t id;    /* index in net->nodes */
    uint32_t index; /* host index (hosts) or switch index (switches) */
    uint32_t n_ports;
    sim_time pipeline_ps;
    struct flowlet_entry *flowlets; /* flowlet table (loadbalance.mode flowlet), else NULL */
    /* host */
    uint32_t ip;               /* IPv4 address (hashed by ECMP): net_host_ip(index) */
    uint32_t server, gpu;      /* which server and first GPU this NIC port serves */
    uint32_t rail;             /* local NIC index within the server (rail-optimized: the rail) */
    uint32_t net_port;         /* index of the fabric-facing port (UINT32_MAX if none) */
    uint32_t nvl_port;         /* index of the scale-up (NVLink) port (UINT32_MAX if none) */
    char name[24];
};
_Static_assert(offsetof(struct node, fib) == 64 && offsetof(struct node, rng) + sizeof(rng) <= 128,
               "node: what forwarding reads fills line 0, the FIB window and the stream line 1");

#define NET_FIB_LOCAL (UINT32_MAX - 1) /* node.fib_cls: see the switch's own window */

/* The IPv4 address of host `h` (NIC port): 10.0.0.1, 10.0.0.3, ...: a /31 per host link. */
static inline uint32_t net_host_ip(uint32_t h)
{
    return 0x0A000000u + 2u * h + 1u;
}

/* An ECMP group: the egress ports (indices within the switch) on shortest paths. */
struct ecmp_group {
    uint32_t n;
    uint32_t *member;          /* egress port indices within the switch, ascending */
};

/* Per-tenant counters (EVPN-VXLAN `tenants:`), indexed by tenant. A frame's tenant is its
 * QP's (net.qp_tenant[pkt->flow]): the packet carries no tenant field. PAUSE frames belong to
 * no tenant. */
typedef struct net_tenant_ctr {
    uint64_t nic_tx_bytes, nic_tx_packets; /* frames its NIC ports sent (data, ACK/NAK, CNP) */
    uint64_t fabric_tx_bytes;              /* its frame octets on switch-to-switch links (with
                                            * the VXLAN overhead: the underlay's bytes) */
    uint64_t fabric_tx_packets;
    uint64_t drops, ecn_marked;
} net_tenant_ctr;

struct net {
    sim *sim;
    const scenario *sc;
    arena mem;                 /* topology, FIBs, groups: the sim arena */
    pool pkts;                 /* the packet pool */
    uint32_t n_nodes, n_hosts, n_switches, n_ports;
    node *nodes;               /* hosts first (index == host index), then switches */
    node **hosts;
    node **switches;
    port **ports;              /* every egress port (host NIC ports and switch ports) */
    port_cold *cold;           /* [n_ports] cold blocks, handed out in first-write order
                                * (net_port_cold); untouched ones are never mapped */
    uint32_t n_cold;           /* blocks handed out */
    uint32_t n_groups, cap_groups;
    ecmp_group *groups;
    lb_pick_fn pick;
    lb_pick_fn pick_guess; /* what pick would choose for the frame at the switch now,
                            * changing nothing, for the prefetch hook only (never for a
                            * decision, except through net.guess when it is pick itself):
                            * pick itself when its choice depends on the frame and the
                            * switch only (ECMP, hash not random); spraying's next draw
                            * from the switch's stream, right unless another frame draws
                            * first; else NULL */
    void *pick_ctx;
    /* The prefetch hook's last two exact guesses (pick_guess == pick: a function of the
     * switch, the frame's src, dst and sport and the group's size only), for the event about
     * to run and the next: switch_receive takes a guess's member instead of hashing the
     * frame again when all of these match (issue #17, eighth round). Never a decision of its
     * own: a match is what pick would return. */
    struct net_guess {
        const node *sw;
        const packet *pkt;
        uint32_t src, dst, n, member;
        uint16_t sport;
    } guess[2];
    uint8_t guess_next; /* the slot the hook writes next */
    /* The frame path compiled for the common features (net_hot_path_select): none of IB, the
     * DRE, a packet tap, INT, DWRR, VXLAN, trimming and tenants, ECN marked at dequeue. Its
     * ports' events then run the copy of the handlers in which those tests are constants
     * (port.c), and port_next, called from elsewhere, picks its copy by this flag; the results
     * are the same either way (test_pin runs both). */
    bool fast;
    bool dre_on;               /* some policy reads the ports' DRE load (net_port_dre): kept
                                * up to date only then (lb_install) */
    net_tap_fn tap;
    void *tap_ctx;
    uint32_t lb_leaf_up;       /* collective-aware balancing: uplinks per leaf */
    /* host transport hooks */
    host_pull_fn pull;
    host_rx_fn rx;
    host_pull_prefetch_fn pull_prefetch;
    host_rx_prefetch_fn rx_prefetch;
    void *host_ctx;
    /* ECN marking (RED on egress queue depth, DCQCN's congestion point) */
    bool ecn_on;
    uint64_t ecn_kmin_bytes, ecn_kmax_bytes;
    uint64_t ecn_pmax_q32;     /* Pmax in 0.32 fixed point */
    bool ecn_at_dequeue;       /* mark when the frame leaves the queue (else when it enters) */
    /* packet trimming (switch.trimming): a trimmable data frame that would be dropped for
     * want of buffer is cut to its header and queued in class trim_prio */
    bool trimming;
    uint8_t trim_prio;
    bool int_on;               /* HPCC: switches stamp INT into data packets (inttel.h) */
    uint8_t tx_classes;        /* bit c: some port has sent a frame of class c (INT sums
                                * these classes' counters) */
    /* PFC (IEEE 802.1Qbb) */
    uint8_t lossless;          /* lossless classes (0 when PFC is off) */
    uint64_t pfc_xoff_bytes;   /* fixed XOFF per ingress and class, 0 = dynamic threshold */
    uint64_t pfc_xon_bytes;    /* SAI XON_TH: RESUME at or below this usage ... */
    uint64_t pfc_xon_offset_bytes; /* ... or at or below XOFF − this (SAI XON_OFFSET_TH) */
    uint32_t max_frame_bytes;  /* largest data frame (MTU + headers) */
    bool wd_on;
    bool wd_forward;           /* action forward (else drop) */
    sim_time wd_detect_ps, wd_restore_ps;
    sim_time deadlock_ps;
    event deadlock_ev;
    bool deadlock;             /* a paused cycle made no progress: the run stopped */
    sim_time deadlock_at_ps;
    char deadlock_cycle[512];  /* "leaf0->spine1 -> spine1->leaf1 -> ..." */
    uint32_t *dl_path, *dl_iter; /* deadlock search scratch, n_ports each */
    uint8_t *dl_mark;
    uint8_t dwrr;              /* scheduler is DWRR */
    uint32_t drr_quantum[NET_PRIOS];
    /* InfiniBand (fabric.link_layer infiniband) */
    bool ib;
    bool ib_cc;                 /* switches mark FECN */
    uint64_t ib_fecn_thr_bytes; /* 0 = the egress port's downstream VL buffer */
    uint32_t ib_marking_rate;
    bool hosts_relay;          /* rail-only: cross-rail traffic relays through a peer NIC (PXN) */
    uint32_t n_servers;
    /* EVPN-VXLAN overlay (scenario tenants:). vxlan: 0 none, VTEP_LEAF + 1 (the ingress leaf
     * encapsulates a frame arriving from a host that it forwards to another switch, the egress
     * leaf decapsulates one from a switch that it forwards to a host: frame_bytes changes by
     * WIRE_VXLAN_OVERHEAD there) or VTEP_HOST + 1 (the NIC sends encapsulated frames: the
     * transport adds the overhead). ECMP in the fabric then hashes the outer header:
     * vtep_ip[src], vtep_ip[dst], the outer UDP source port (lb.c), 4789, 17. */
    uint8_t vxlan;
    uint32_t *vtep_ip;         /* [n_hosts] the outer IP of the VTEP serving each host */
    const uint32_t *qp_tenant; /* [n_qp_tenant] tenant of each QP (run sets it), or NULL */
    uint32_t n_qp_tenant;
    uint32_t n_tenants;
    net_tenant_ctr *tenant_ctr; /* [n_tenants], or NULL without tenants */
    /* Extra networks (fabric.storage, fabric.frontend; topo.c "Storage and frontend"). Hosts
     * [0, n_backend_hosts) are the backend NIC ports; then, when configured, one storage NIC
     * per GPU server (stor_nic0 + server; dedicated storage only), the storage servers
     * (stor_srv0 + i, i < n_stor_srv) and one frontend NIC per GPU server (fe_nic0 + server).
     * UINT32_MAX = absent. Without extra networks n_backend_hosts == n_hosts. */
    uint32_t n_backend_hosts;
    uint32_t stor_nic0, stor_srv0, n_stor_srv, fe_nic0;
    /* the flow-level network (transport/flownet.h) walks its flows' paths again whenever a
     * link goes down or up or changes speed, or routing changes: net_changed calls this */
    void (*on_change)(void *ctx);
    void *change_ctx;
    /* Routing by attachment class (route.c): hosts cabled to the same set of fabric switches (a
     * leaf's) have the same route from every switch not in that set, so a switch's FIB holds a
     * group per class (node.fib_cls) and per-host entries only for its own hosts: memory grows
     * with switches x leaves, not switches x hosts. NULL before routing. */
    uint32_t *host_cls; /* [n_hosts] */
    uint32_t n_fib_cls;
    /* SHARP aggregation nodes (topo.c "SHARP"; built only for a run with a collective job of
     * algorithm sharp): hosts [an_host0, an_host0 + n_an), after every other host, one per
     * backend fabric switch, each joined to its switch by an internal link (the switch's
     * port 0 to its aggregation node). an_of_switch[switch index] = its AN host, UINT32_MAX
     * for switches without one; NULL without SHARP. */
    uint32_t an_host0, n_an;
    uint32_t *an_of_switch;
    /* run-wide counters */
    uint64_t packet_hops;
    uint64_t dropped_payload_bytes;
    uint64_t trimmed_payload_bytes; /* payload cut off by trimming (its header went on) */
    uint64_t trimmed_packets;
};

/* Switch sw's ECMP group for host h, or UINT32_MAX (no route): by h's attachment class, and
 * for the hosts cabled to sw by host. */
static inline uint32_t net_fib(const node *sw, uint32_t h)
{
    if (sw->fib_cls) {
        uint32_t g = sw->fib_cls[sw->owner->host_cls[h]];
        if (g != NET_FIB_LOCAL)
            return g;
    }
    uint32_t i = h - sw->fib_lo;
    return i < sw->fib_n ? sw->fib[i] : UINT32_MAX;
}

/* Build the topology of sc->fabric (sc borrowed, must outlive the net) and its routing.
 * Returns NULL and sets *e (at the offending key's position) when the numbers cannot work. */
net *net_build(const scenario *sc, sim *s, err *e);
/* The same topology without routing (no FIBs: net_fib says no route), for `check` and `plan`,
 * which read the structure only: building the FIBs costs O(classes x links + hosts x switches)
 * time, too much at 100k GPUs. Not for simulation (the memory estimate uses it too and
 * adds the FIBs' size). */
net *net_build_topology(const scenario *sc, sim *s, err *e);
void net_free(net *n);
/* Refuse a fabric whose switch ports (fabric.mtu) cannot take the NIC's largest RoCEv2 frame
 * (nic.mtu payload + headers): every full-size data frame would be dropped and, RoCE having no
 * path-MTU discovery, retransmitted forever. Returns 0, or sets *e at fabric.mtu and returns its
 * code. `run` calls it after net_build; `check` reports the same comparison as its `mtu` item. */
int net_mtu_check(const net *n, err *e);

/* Routing: (re)compute every switch's FIB over the links that are up (route.c). */
void net_route(net *n);
/* The port a host sends a frame for `dst` on: NVLink inside the server, the NIC port when the
 * fabric reaches dst, else (rail-only) NVLink towards the relay NIC on dst's rail. */
uint32_t net_host_egress(const net *n, const node *host, uint32_t dst);
/* From the moment the last bit of a frame of `line_bytes` left host a until host b has it, on
 * an idle fabric: each cable's propagation, each switch's pipeline, and the frame's
 * serialization at each switch egress (store-and-forward), along the first member of each
 * ECMP group. */
sim_time net_path_latency(const net *n, uint32_t a, uint32_t b, uint32_t line_bytes);
/* True when host s's packets for host d arrive over the current FIBs (first next hop followed;
 * all members of a group are on shortest paths). Cost: one step per hop. */
bool net_reaches(const net *n, uint32_t s, uint32_t d);

/* A link or routing changed (net_link_set, net_link_rate, net_route, net_route_withdraw). */
static inline void net_changed(net *n)
{
    if (n->on_change)
        n->on_change(n->change_ctx);
}

/* Hot path (port.c). */
/* Wake a host port whose transport has new data: starts serialization if the port is idle. */
void net_port_kick(net *n, port *p);

/* A port's recent line bytes (DRE), decayed to `now` without changing the port; kept only
 * while net.dre_on. */
static inline uint64_t net_port_dre(const port *p, sim_time now)
{
    uint64_t halvings = (now - p->dre_last_ps) / NET_DRE_HALF_LIFE_PS;
    return halvings >= 64 ? 0 : p->dre_bytes >> halvings;
}

/* A port's serialization time up to `now`: busy_ps without the part of the frame on the wire
 * that lies after `now`. Never grows faster than the clock, so Δbusy/Δt ≤ 1. */
static inline uint64_t net_port_busy_at(const port *p, sim_time now)
{
    return p->busy_ps - (p->tx_pkt && p->tx_end_ps > now ? p->tx_end_ps - now : 0);
}

/* GPUs of the cluster, and the host (NIC port) that serves GPU `gpu`; with dual-port NICs,
 * `port_sel` picks the port (mod nic_ports). UINT32_MAX when the GPU does not exist. */
uint32_t net_gpus(const net *n);
uint32_t net_gpu_host(const net *n, uint32_t gpu, uint32_t port_sel);

/* Frames (and their payload bytes) still inside the network: queues, wires, serializers. */
uint64_t net_inflight_payload(const net *n, uint64_t *packets);
/* Set up the EVPN-VXLAN overlay of sc->tenants on n (no-op without tenants): each host's VTEP
 * address and the per-tenant counters. net_build and net_build_topology call it; the run sets
 * qp_tenant once its QPs exist. */
void net_vxlan_setup(net *n, const scenario *sc);
/* The outer UDP source port a VTEP gives a frame (RFC 7348 §5: a hash of the inner headers,
 * in the dynamic/private range 49152-65535): CRC-32 of the inner 5-tuple. */
uint16_t net_vxlan_sport(uint32_t inner_sip, uint32_t inner_dip, uint16_t inner_sport);
/* The counters of pkt's tenant, or NULL (no tenants, a PAUSE frame, a QP without one). */
static inline net_tenant_ctr *net_tenant_of(const net *n, const packet *pkt)
{
    if (!n->qp_tenant || pkt->kind == PKT_PAUSE || pkt->flow >= n->n_qp_tenant)
        return NULL;
    return &n->tenant_ctr[n->qp_tenant[pkt->flow]];
}
/* Drop a frame at port p with reason r: counts it and returns it to the pool. */
void net_drop(net *n, port *p, packet *pkt, enum drop_reason r);

/* The PAUSE response delay IEEE 802.3 allows a MAC at `rate_bps` (Annex 31B, Table 31B-1, in
 * bit times), and the same as time at that rate (ps, rounded up). The simulated sender keeps
 * starting frames for exactly this long after a PAUSE arrives. */
uint64_t net_pfc_response_bits(uint64_t rate_bps);
sim_time net_pfc_response_ps(uint64_t rate_bps);
/* PFC headroom `auto` (models.md; IEEE 802.1Qbb Annex N's delay budget): the most bytes that
 * can reach an ingress of a link at `rate_bps` after it decided XOFF, with `rtt_ps` = both
 * directions' propagation plus both ends' pipelines (the two ports' deliver_ps). It is the
 * worst case of the simulated link, term by term: the frame that crossed XOFF, a maximum
 * frame the switch is sending on the reverse direction when it decides (the PAUSE waits for
 * it), the PAUSE frame, the round trip, the sender's response delay (net_pfc_response_bits)
 * and the maximum frame the sender started just before that delay ran out; frames in line
 * bytes. */
uint64_t net_pfc_headroom_auto(uint64_t rate_bps, sim_time rtt_ps, uint32_t max_frame_bytes);
/* The same for the ingress port `ing` of a switch (rate and both deliver delays of its link). */
uint64_t net_pfc_headroom_port(const port *ing, uint32_t max_frame_bytes);
/* RED marking probability for an egress queue of `q_bytes` (0.32 fixed point, 2^32 = 1):
 * 0 at or below Kmin, Pmax·(q − Kmin)/(Kmax − Kmin) up to and including Kmax (so exactly Pmax
 * at Kmax), 1 above Kmax. */
uint64_t net_ecn_prob_q32(const net *n, uint64_t q_bytes);
/* Start (at `now`) or stop a NIC's PAUSE storm on host port p: it keeps its peer paused for
 * every lossless class until stopped (the pfc-storm fault). */
void net_pfc_storm(net *n, port *p, bool on);
/* Take the link of port p (both directions) down or up. Down: frames queued for it or on the
 * wire are dropped (reason link_down), the frame being sent is lost when it ends; routing is
 * not changed (net_route does that when the fabric has noticed). Up: both ends may send again. */
void net_link_set(net *n, port *p, bool up);
/* Change the speed of the link of port p (both directions) to rate_bps (link-degraded): frames
 * that start serializing from now on take the new rate; the one on the wire keeps its time. */
void net_link_rate(net *n, port *p, uint64_t rate_bps);
/* Make the link direction of port p corrupt frames per `b` (link-ber), or clean again (NULL). */
void net_port_ber(net *n, port *p, port_ber *b);
/* Local repair (fast reroute): switch sw removes its port `port_index` from every ECMP group it
 * uses that has another member, at once; groups with no other member are left as they are
 * (the destination has no other path from sw: frames go on being lost there until routing
 * converges). Other switches are not changed. Cost: O(hosts) for sw. */
void net_route_withdraw(net *n, node *sw, uint32_t port_index);
/* The switch named `name`, or NULL. */
node *net_find_switch(const net *n, const char *name);
/* The port of the link "A-B" (or "A-B#k" for the k-th parallel link, k ≥ 1) on A's side, or
 * NULL: node names may contain '-', every split is tried. */
port *net_find_link(const net *n, const char *spec);

/*
 * InfiniBand (fabric.link_layer infiniband; IBTA vol. 1 §7.9 link-level flow control). Every
 * fabric link direction is credit-gated per VL (the traffic class is the VL): the receiving port
 * has ib_cap_blocks 64-byte blocks of buffer per VL, and the sender starts a frame only when
 * the credit limit the receiver last advertised covers it — a switch port and the HCA's
 * transmit alike. A switch holds a frame in its input port's VL buffer from arrival until its
 * transmission from the egress ends; then the input port sends an FCP upstream with the new
 * limit (one per VL, coalesced while the wire is busy, ahead of data, after the frame on the
 * wire), which acts after its serialization and the cable's propagation. An HCA frees a frame
 * as it arrives. Nothing is ever dropped for lack of buffer, and PFC/ECN are off. Links to
 * the scale-up domain keep its own model. IB congestion control (Annex A10): a switch marks
 * FECN on a data frame entering an egress VL queue above the threshold, one in marking_rate + 1
 * eligible frames, when that port has credits for the VL (a root of congestion, not a victim
 * waiting on the next hop); the HCAs answer with BECN (transport/nic.h).
 */
/* Credit gate: can port p start a frame of `frame_bytes` on VL `vl` now? If not, the VL is
 * recorded as stalled (net_credit_block) and the port is kicked when an FCP covers it. */
void net_credit_block(net *n, port *p, int vl, uint32_t blocks);
static inline bool net_credit_ok(net *n, port *p, int vl, uint32_t frame_bytes)
{
    if (!n->ib || !p->ib) /* the net's flag first: an Ethernet port's line 2 stays unread */
        return true;
    uint32_t b = ib_blocks(frame_bytes);
    if (p->ib->cr_limit[vl] - p->ib->cr_sent[vl] >= b)
        return true;
    net_credit_block(n, p, vl, b);
    return false;
}
/* `vl_buffer: auto` for the link direction of sender p: the credit loop at line rate — both
 * propagations, the receiver's pipeline, a maximum frame on each side and one forwarded, and the
 * FCP — so a lone flow never waits for credits. In 64-byte blocks. */
uint32_t net_ib_vl_blocks_auto(const port *p, uint32_t max_frame_bytes);

/* At the end of a run: close open pause intervals into pfc_paused_ps, and count only the part
 * of a frame still being serialized that is behind `now` in busy_ps. */
void net_pfc_finish(net *n);

/* Set up a port's events (topology builders call it once per port), and the network's own. */
void net_port_init_events(port *p);
/* Give port p its InfiniBand credit state `ib` (zeroed, owned by the caller's arena). */
void net_port_ib_init(port *p, port_ib *ib);
void net_init_events(net *n);

/* The host a GPU server's traffic to storage leaves from: its storage NIC (dedicated), or the
 * backend NIC port of `gpu` (converged). UINT32_MAX without a storage network. */
uint32_t net_storage_client(const net *n, uint32_t gpu);

/* Name of a port for reports: "leaf0->spine3" (with "#k" for the k-th parallel link). */
void net_port_name(const port *p, char *buf, size_t len);

#endif
