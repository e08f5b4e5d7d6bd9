/*
 * nic.h — the host NIC and its transport for this version: line-rate senders, counting receivers.
 *
 * Each host (NIC port) keeps a round-robin list of active flows per port (its fabric port, and
 * its scale-up port for traffic to GPUs of the same server); whenever a port is free it builds
 * the next frame of the flow at the head of that port's list (one MTU of payload, consecutive
 * PSNs) and moves that flow to the tail, so competing flows share the port packet by packet at
 * line rate. A flow is one RDMA WRITE message: its first packet carries the RETH. Frames are
 * marked ECN-capable (ECT(0)) and sent in traffic class `nic.priority`.
 *
 * The receiver counts payload bytes; a flow completes when all of its bytes have arrived (FCT
 * = start to arrival of the last byte, spec "summary.json"). There is no loss recovery yet: a
 * flow that lost a packet stays incomplete and the loss shows in the drop counters. The RoCEv2
 * reliable connection (PSN checks, ACK/NAK, go-back-N, RTO) and DCQCN replace this in the
 * transport issue.
 */
#ifndef WR_TRANSPORT_NIC_H
#define WR_TRANSPORT_NIC_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/rng.h"
#include "../net/net.h"

typedef struct flow flow;
typedef struct transport transport;
/* Called when a flow's last byte has arrived (ctx = the callback's registered context). */
typedef void (*flow_done_fn)(void *ctx, flow *f);

struct flow {
    uint32_t id;
    uint32_t job;
    uint32_t src, dst;         /* host indices */
    uint16_t sport;            /* UDP source port: the flow's entropy */
    uint64_t size_bytes;
    uint64_t sent_bytes;       /* payload handed to the wire */
    uint64_t delivered_bytes;  /* payload arrived at the receiver */
    uint32_t next_psn;
    uint32_t egress;           /* sender's port index (NIC port, or NVLink inside a server) */
    sim_time start_ps, end_ps;
    bool started, done;
    flow *next_active;
};

#define NIC_PORTS 2 /* a host's fabric port and its scale-up (NVLink) port */

typedef struct nic {
    node *host;
    flow *active_head[NIC_PORTS], *active_tail[NIC_PORTS]; /* round robin per port */
    rng rng;
} nic;

struct transport {
    net *net;
    uint32_t mtu;
    uint8_t prio;
    nic *nics;                 /* one per host */
    flow *flows;
    uint64_t n_flows, cap_flows;
    flow_done_fn on_done;
    void *on_done_ctx;
    uint64_t sent_payload_bytes, delivered_payload_bytes;
};

/* Create the transport for every host of n (installs net's pull/rx hooks). Capacity for
 * `max_flows` flows, allocated now. */
transport *transport_new(net *n, const scenario *sc, uint64_t max_flows);
void transport_free(transport *t);
/* Add a flow (not started). Returns it; its id is its index in t->flows. */
flow *transport_flow_add(transport *t, uint32_t job, uint32_t src, uint32_t dst, uint64_t size);
/* Start a flow now: it joins its NIC's round robin. */
void transport_flow_start(transport *t, flow *f);

#endif
