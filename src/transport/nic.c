/*
 * nic.c — line-rate NIC transport (see nic.h). pull and rx run once per frame.
 */
#include "nic.h"

#include "../core/alloc.h"

static packet *nic_pull(void *ctx, node *host, port *p);
static void nic_rx(void *ctx, node *host, packet *pkt);

transport *transport_new(net *n, const scenario *sc, uint64_t max_flows)
{
    transport *t = xcalloc(1, sizeof *t, "transport");
    t->net = n;
    t->mtu = sc->nic.mtu;
    t->prio = sc->nic.priority;
    t->nics = xcalloc(n->n_hosts ? n->n_hosts : 1, sizeof(nic), "NICs");
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        t->nics[h].host = n->hosts[h];
        n->hosts[h]->host_ctx = &t->nics[h];
        rng_init(&t->nics[h].rng, sc->seed, RNG_ID(RNG_KIND_NIC, h));
    }
    t->cap_flows = max_flows;
    t->flows = xcalloc(max_flows ? max_flows : 1, sizeof(flow), "flows");
    n->pull = nic_pull;
    n->rx = nic_rx;
    n->host_ctx = t;
    return t;
}

void transport_free(transport *t)
{
    if (!t)
        return;
    xfree(t->flows);
    xfree(t->nics);
    xfree(t);
}

flow *transport_flow_add(transport *t, uint32_t job, uint32_t src, uint32_t dst, uint64_t size)
{
    SIM_ASSERT(t->n_flows < t->cap_flows, "flow capacity %llu exceeded",
               (unsigned long long)t->cap_flows);
    flow *f = &t->flows[t->n_flows];
    f->id = (uint32_t)t->n_flows++;
    f->job = job;
    f->src = src;
    f->dst = dst;
    f->size_bytes = size;
    /* NCCL-style entropy: an ephemeral UDP source port per QP, from the sender's stream. */
    f->sport = (uint16_t)(49152 + rng_below(&t->nics[src].rng, 16384));
    return f;
}

#include "../core/hotpath.h"

void transport_flow_start(transport *t, flow *f)
{
    nic *c = &t->nics[f->src];
    f->started = true;
    f->start_ps = t->net->sim->now;
    if (f->size_bytes == 0) {
        f->done = true;
        f->end_ps = f->start_ps;
        if (t->on_done)
            t->on_done(t->on_done_ctx, f);
        return;
    }
    uint32_t e = f->egress = net_host_egress(t->net, c->host, f->dst);
    f->next_active = NULL;
    if (c->active_tail[e])
        c->active_tail[e]->next_active = f;
    else
        c->active_head[e] = f;
    c->active_tail[e] = f;
    net_port_kick(t->net, &c->host->ports[e]);
}

static packet *nic_pull(void *ctx, node *host, port *p)
{
    transport *t = ctx;
    nic *c = host->host_ctx;
    uint32_t e = p->index;
    flow *f = c->active_head[e];
    if (!f || (p->paused >> t->prio & 1))
        return NULL;
    uint64_t left = f->size_bytes - f->sent_bytes;
    uint32_t payload = left < t->mtu ? (uint32_t)left : t->mtu;
    packet *pkt = pool_alloc(&t->net->pkts);
    pkt->next = NULL;
    pkt->flow = f->id;
    pkt->src = f->src;
    pkt->dst = f->dst;
    pkt->psn = f->next_psn++;
    pkt->payload_bytes = payload;
    pkt->first = f->sent_bytes == 0;
    pkt->last = payload == left;
    pkt->frame_bytes = wire_data_frame(payload, pkt->first);
    pkt->sport = f->sport;
    pkt->in_port = 0;
    pkt->kind = PKT_DATA;
    pkt->prio = t->prio;
    pkt->ecn = ECN_ECT0;
    pkt->hops = 0;
    f->sent_bytes += payload;
    t->sent_payload_bytes += payload;
    /* Round robin: the flow goes to the tail, or leaves when all its bytes are out. */
    c->active_head[e] = f->next_active;
    if (!c->active_head[e])
        c->active_tail[e] = NULL;
    if (f->sent_bytes < f->size_bytes) {
        f->next_active = NULL;
        if (c->active_tail[e])
            c->active_tail[e]->next_active = f;
        else
            c->active_head[e] = f;
        c->active_tail[e] = f;
    }
    return pkt;
}

static void nic_rx(void *ctx, node *host, packet *pkt)
{
    transport *t = ctx;
    (void)host;
    if (pkt->kind == PKT_DATA) {
        flow *f = &t->flows[pkt->flow];
        f->delivered_bytes += pkt->payload_bytes;
        t->delivered_payload_bytes += pkt->payload_bytes;
        if (f->delivered_bytes == f->size_bytes) {
            f->done = true;
            f->end_ps = t->net->sim->now;
            if (t->on_done)
                t->on_done(t->on_done_ctx, f);
        }
    }
    pool_free(&t->net->pkts, pkt);
}
