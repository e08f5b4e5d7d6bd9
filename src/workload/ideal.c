/*
 * ideal.c — lower bounds of job completion times on the run's fabric (see ideal.h).
 *
 * Why bounds and not estimates: JCT/ideal must read ≥ 1 whatever happened, so that the excess
 * is what contention, congestion control, PFC, faults or stragglers cost. Every term below is
 * something the model can only add to: serialization at a link's line rate (frames exactly as
 * packet.h builds them), cable propagation, switch pipelines, store-and-forward of one frame,
 * the scale-up (NVLink) rate and latency, compute at nominal speed.
 */
#include "ideal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"

uint64_t ideal_wire_bytes(uint64_t bytes, uint32_t mtu)
{
    if (!bytes || !mtu)
        return 0;
    uint64_t frames = (bytes + mtu - 1) / mtu, last = bytes - (frames - 1) * mtu;
    if (frames == 1)
        return (uint64_t)wire_data_frame((uint32_t)last, 1) + WIRE_LINE_EXTRA;
    /* the first frame carries the RETH, the others do not */
    return (uint64_t)wire_data_frame(mtu, 1) + WIRE_LINE_EXTRA +
           (frames - 2) * ((uint64_t)wire_data_frame(mtu, 0) + WIRE_LINE_EXTRA) +
           wire_data_frame((uint32_t)last, 0) + WIRE_LINE_EXTRA;
}

/* Line bytes of the last frame of a message (the one whose store-and-forward ends it). */
static uint32_t last_frame_line(uint64_t bytes, uint32_t mtu)
{
    uint64_t frames = (bytes + mtu - 1) / mtu, last = bytes - (frames - 1) * mtu;
    return wire_data_frame((uint32_t)last, frames == 1) + (uint32_t)WIRE_LINE_EXTRA;
}

/* A message as the transport sends it: split into one contiguous piece per QP
 * (nic.qps_per_connection), each its own frames. Returns the line bytes; *min_last receives the
 * smallest last frame among the pieces (the one whose store-and-forward may end the message:
 * a lower bound must not assume a larger one). */
static uint64_t msg_wire(const net *n, uint64_t bytes, uint32_t mtu, uint32_t *min_last)
{
    uint32_t nq = n->sc->nic.qps_per_connection ? n->sc->nic.qps_per_connection : 1;
    uint64_t w = 0;
    uint32_t ml = UINT32_MAX;
    for (uint32_t i = 0; i < nq; i++) {
        uint64_t lo = (uint64_t)((unsigned __int128)bytes * i / nq);
        uint64_t hi = (uint64_t)((unsigned __int128)bytes * (i + 1) / nq);
        if (hi == lo)
            continue;
        w += ideal_wire_bytes(hi - lo, mtu);
        uint32_t l = last_frame_line(hi - lo, mtu);
        ml = l < ml ? l : ml;
    }
    *min_last = ml == UINT32_MAX ? 0 : ml;
    return w;
}

static bool same_server_fluid(const net *n, uint32_t a, uint32_t b)
{
    return n->hosts[a]->server == n->hosts[b]->server && n->hosts[a]->nvl_port != UINT32_MAX;
}

static uint64_t nvl_rate(const net *n, uint32_t h)
{
    const node *x = n->hosts[h];
    return x->nvl_port != UINT32_MAX ? x->ports[x->nvl_port].rate_bps : n->sc->fabric.scale_up_bps;
}

static uint64_t nic_rate(const net *n, uint32_t h)
{
    const node *x = n->hosts[h];
    return x->net_port != UINT32_MAX ? x->ports[x->net_port].rate_bps : 0;
}

/* Rate of the link into host h (its switch's egress towards it). */
static uint64_t nic_in_rate(const net *n, uint32_t h)
{
    const node *x = n->hosts[h];
    return x->net_port != UINT32_MAX ? x->ports[x->net_port].peer->rate_bps : 0;
}

sim_time ideal_flow_alone(const net *n, uint32_t mtu, const flow *f)
{
    if (!f->size_bytes)
        return 0;
    if (same_server_fluid(n, f->src, f->dst))
        return sim_ser_time(f->size_bytes, nvl_rate(n, f->src)) + n->sc->fabric.scale_up_latency_ps;
    uint32_t last;
    uint64_t w = msg_wire(n, f->size_bytes, mtu, &last);
    uint64_t ro = nic_rate(n, f->src), ri = nic_in_rate(n, f->dst);
    uint64_t rr = ro < ri ? ro : ri;
    return (rr ? sim_ser_time(w, rr) : 0) + net_path_latency(n, f->src, f->dst, last);
}

static char *fmt_rate(char *buf, size_t len, uint64_t bps)
{
    if (bps % 1000000000 == 0)
        snprintf(buf, len, "%" PRIu64 "G", bps / 1000000000);
    else
        snprintf(buf, len, "%.1fG", (double)bps / 1e9);
    return buf;
}

static sim_time traffic_set(const net *n, uint32_t mtu, const flow *flows, uint64_t n_flows,
                            const sim_time *at_ps, char *basis, size_t len)
{
    uint32_t H = n->n_hosts;
    uint64_t *out = xcalloc(H ? 2 * (size_t)H : 1, sizeof(uint64_t), "ideal host bytes");
    uint64_t *in = out + H;
    sim_time *lat_out = xcalloc(H ? 2 * (size_t)H : 1, sizeof(sim_time), "ideal latencies");
    sim_time *lat_in = lat_out + H;
    for (uint32_t h = 0; h < 2 * H; h++)
        lat_out[h] = SIM_TIME_MAX;
    sim_time best = 0;
    char r[32];
    snprintf(basis, len, "no bytes to move");
    /* NVLink flows: the sender's scale-up egress at its rate, then the scale-up latency */
    uint64_t *nvl = xcalloc(H ? H : 1, sizeof(uint64_t), "ideal NVLink bytes");
    for (uint64_t i = 0; i < n_flows; i++) {
        const flow *f = &flows[i];
        if (!f->size_bytes)
            continue;
        if (same_server_fluid(n, f->src, f->dst)) {
            nvl[f->src] += f->size_bytes;
            continue;
        }
        uint32_t last;
        uint64_t w = msg_wire(n, f->size_bytes, mtu, &last);
        out[f->src] += w;
        in[f->dst] += w;
        sim_time l = net_path_latency(n, f->src, f->dst, last);
        if (at_ps && at_ps[i]) { /* a late arrival alone: its start, its bytes, its path */
            uint64_t ro = nic_rate(n, f->src), ri = nic_in_rate(n, f->dst);
            uint64_t rr = ro < ri ? ro : ri;
            sim_time t = rr ? at_ps[i] + sim_ser_time(w, rr) + l : 0;
            if (t > best) {
                best = t;
                snprintf(basis, len, "the last arrival alone at %s line rate",
                         fmt_rate(r, sizeof r, rr));
            }
        }
        lat_out[f->src] = l < lat_out[f->src] ? l : lat_out[f->src];
        lat_in[f->dst] = l < lat_in[f->dst] ? l : lat_in[f->dst];
    }
    for (uint32_t h = 0; h < H; h++) {
        uint64_t ro = nic_rate(n, h), ri = nic_in_rate(n, h);
        if (out[h] && ro) {
            sim_time t = sim_ser_time(out[h], ro) + lat_out[h];
            if (t > best) {
                best = t;
                snprintf(basis, len, "line rate of %s's %s host link, the busiest sender",
                         n->hosts[h]->name, fmt_rate(r, sizeof r, ro));
            }
        }
        if (in[h] && ri) {
            sim_time t = sim_ser_time(in[h], ri) + lat_in[h];
            if (t > best) {
                best = t;
                snprintf(basis, len, "line rate of %s's %s host link, the busiest receiver",
                         n->hosts[h]->name, fmt_rate(r, sizeof r, ri));
            }
        }
        if (nvl[h]) {
            sim_time t = sim_ser_time(nvl[h], nvl_rate(n, h)) + n->sc->fabric.scale_up_latency_ps;
            if (t > best) {
                best = t;
                snprintf(basis, len, "%s's NVLink at %sbps", n->hosts[h]->name,
                         fmt_rate(r, sizeof r, nvl_rate(n, h)));
            }
        }
    }
    xfree(out);
    xfree(lat_out);
    xfree(nvl);
    return best;
}

sim_time ideal_traffic(const net *n, uint32_t mtu, const flow *flows, uint64_t n_flows,
                       const sim_time *at_ps, const uint64_t *iter_end, uint32_t n_iter,
                       char *basis, size_t len)
{
    if (!iter_end || n_iter <= 1)
        return traffic_set(n, mtu, flows, n_flows, at_ps, basis, len);
    sim_time sum = 0;
    uint64_t lo = 0;
    for (uint32_t k = 0; k < n_iter; k++) {
        uint64_t hi = iter_end[k] < n_flows ? iter_end[k] : n_flows;
        char b[112];
        sum += traffic_set(n, mtu, flows + lo, hi - lo, at_ps ? at_ps + lo : NULL, b, sizeof b);
        if (!k)
            snprintf(basis, len, "%u iterations, the first: %s", n_iter, b);
        lo = hi;
    }
    return sum;
}

/* The unit whose line rate bounds a transfer's fabric bytes: the NIC (all its ports) when each
 * rank's traffic leaves through its own NIC; the whole server when traffic may relay through a
 * peer GPU's NIC over NVLink (PXN, rail-only fabrics). */
static uint32_t bound_unit(const net *n, uint32_t h, bool per_server)
{
    const cfg_fabric *f = &n->sc->fabric;
    if (per_server)
        return n->hosts[h]->server;
    return f->preset == PRESET_CUSTOM || !f->nic_ports ? h : h / f->nic_ports;
}

sim_time ideal_collective(const net *n, uint32_t mtu, const coll_plan *pl,
                          const uint32_t *host_of_rank, uint32_t iterations, char *basis,
                          size_t len)
{
    uint32_t H = n->n_hosts, U = H > n->n_servers ? H : n->n_servers;
    bool per_server = pl->pxn || n->hosts_relay;
    U = U ? U : 1;
    uint64_t *ub = xcalloc(4 * (size_t)U, sizeof(uint64_t), "ideal NIC bytes");
    uint64_t *u_out = ub, *u_in = ub + U, *u_rate_out = ub + 2 * U, *u_rate_in = ub + 3 * U;
    uint32_t *u_ports = xcalloc(U, sizeof(uint32_t), "ideal NIC ports");
    uint64_t *nvl = xcalloc(H ? H : 1, sizeof(uint64_t), "ideal NVLink bytes");
    /* finish times: a window reaching back as far as any dependency does (every transfer for a
     * stored plan; two ring steps for a compact one, not its millions of transfers) */
    uint64_t win = (uint64_t)coll_plan_dep_span(pl) + 1;
    if (win > pl->n_xfers)
        win = pl->n_xfers ? pl->n_xfers : 1;
    sim_time *fin = xcalloc(win, sizeof(sim_time), "ideal chain");
    for (uint32_t h = 0; h < H; h++) {
        uint32_t u = bound_unit(n, h, per_server);
        u_rate_out[u] += nic_rate(n, h);
        u_rate_in[u] += nic_in_rate(n, h);
        u_ports[u] += nic_rate(n, h) != 0;
    }
    sim_time chain = 0;
    for (uint32_t i = 0; i < pl->n_xfers; i++) {
        coll_xfer buf;
        const coll_xfer *x = coll_plan_xfer(pl, i, &buf);
        uint32_t a = host_of_rank[x->src], b = host_of_rank[x->dst];
        sim_time t0 = 0;
        for (uint32_t k = 0; k < x->n_deps; k++) {
            sim_time d = fin[coll_plan_dep(pl, x, k) % win];
            t0 = d > t0 ? d : t0;
        }
        t0 += coll_xfer_compute_ps(pl, x);
        sim_time cost;
        if (a == UINT32_MAX || b == UINT32_MAX) {
            /* nvls: to or from the NVSwitch over the GPU's NVLink */
            uint32_t g = a == UINT32_MAX ? b : a;
            if (a != UINT32_MAX)
                nvl[a] += x->bytes;
            cost = sim_ser_time(x->bytes, nvl_rate(n, g)) + n->sc->fabric.scale_up_latency_ps;
        } else if (a == b) {
            cost = 0;
        } else if (same_server_fluid(n, a, b)) {
            nvl[a] += x->bytes;
            cost = sim_ser_time(x->bytes, nvl_rate(n, a)) + n->sc->fabric.scale_up_latency_ps;
        } else {
            uint32_t last;
            uint64_t w = msg_wire(n, x->bytes, mtu, &last);
            u_out[bound_unit(n, a, per_server)] += w;
            u_in[bound_unit(n, b, per_server)] += w;
            uint64_t ra = nic_rate(n, a);
            cost = (ra ? sim_ser_time(w, ra) : 0) + net_path_latency(n, a, b, last);
        }
        fin[i % win] = t0 + cost;
        chain = t0 + cost > chain ? t0 + cost : chain;
    }
    sim_time beta = 0;
    char r[32], what[96] = "";
    for (uint32_t u = 0; u < U; u++) {
        sim_time to = u_rate_out[u] ? sim_ser_time(u_out[u], u_rate_out[u]) : 0;
        sim_time ti = u_rate_in[u] ? sim_ser_time(u_in[u], u_rate_in[u]) : 0;
        sim_time t = to > ti ? to : ti;
        if (t > beta) {
            beta = t;
            uint64_t one = u_ports[u] ? u_rate_out[u] / u_ports[u] : 0;
            if (per_server)
                snprintf(what, sizeof what, "server %u's %u × %s NIC ports", u, u_ports[u],
                         fmt_rate(r, sizeof r, one));
            else
                snprintf(what, sizeof what, "the busiest NIC, %u × %s", u_ports[u],
                         fmt_rate(r, sizeof r, one));
        }
    }
    for (uint32_t h = 0; h < H; h++) {
        sim_time t = nvl[h] ? sim_ser_time(nvl[h], nvl_rate(n, h)) : 0;
        if (t > beta) {
            beta = t;
            snprintf(what, sizeof what, "%s's NVLink at %sbps", n->hosts[h]->name,
                     fmt_rate(r, sizeof r, nvl_rate(n, h)));
        }
    }
    const char *alg = coll_algo_name(pl->algo);
    if (chain > beta)
        snprintf(basis, len, "%s %s: dependency chain of %u transfers at line rate (α–β)",
                 coll_op_name(pl->op), alg, pl->n_xfers);
    else if (beta)
        snprintf(basis, len, "%s %s: bytes at the line rate of %s (β)", coll_op_name(pl->op), alg,
                 what);
    else
        snprintf(basis, len, "no bytes to move");
    xfree(ub);
    xfree(u_ports);
    xfree(nvl);
    xfree(fin);
    return (chain > beta ? chain : beta) * iterations;
}

sim_time ideal_training(const net *n, uint32_t mtu, const train_plan *p, uint32_t iterations,
                        sim_time *nominal_compute, char *basis, size_t len)
{
    *nominal_compute = train_plan_max_compute(p);
    /* goodput of the fastest NIC (a bound must not assume a slower one): payload share of a
     * full frame on the wire */
    uint64_t nic_bps = 0;
    for (uint32_t h = 0; h < n->n_hosts; h++)
        nic_bps = nic_rate(n, h) > nic_bps ? nic_rate(n, h) : nic_bps;
    /* a dual-port NIC may carry a rank's traffic on both ports */
    if (n->sc->fabric.preset != PRESET_CUSTOM && n->sc->fabric.nic_ports > 1)
        nic_bps *= n->sc->fabric.nic_ports;
    uint64_t frame = (uint64_t)wire_data_frame(mtu, 0) + WIRE_LINE_EXTRA;
    uint64_t good = (uint64_t)((unsigned __int128)nic_bps * mtu / frame);
    uint64_t nvl = n->n_hosts ? nvl_rate(n, 0) : n->sc->fabric.scale_up_bps;
    /* a DP / PP class crosses servers when any of its groups does */
    bool cross[3] = {false, false, false};
    for (uint32_t g = 0; g < p->n_groups; g++) {
        const train_group *G = &p->groups[g];
        for (uint32_t k = 1; k < G->n; k++)
            if (p->ranks[p->members[G->off + k]].server != p->ranks[p->members[G->off]].server)
                cross[G->kind == TRAIN_GROUP_TP   ? 0
                      : G->kind == TRAIN_GROUP_PP ? 2
                                                  : 1] = true; /* EP: the DP class (α–β) */
    }
    train_ab_cost c = {
        0, 0, 0, cross[0] ? good : nvl, cross[2] ? good : nvl, cross[1] ? good : nvl};
    sim_time it = train_eval_ideal(p, train_ab_cost_fn, &c, NULL, NULL, NULL, NULL, NULL);
    char r[32];
    snprintf(basis, len,
             "compute critical path + α–β communication: NVLink inside a server, %s NIC "
             "goodput across",
             fmt_rate(r, sizeof r, nic_bps));
    return it * iterations;
}

uint64_t ideal_storage_bps(const net *n, const uint32_t *gpus, uint32_t n_gpus)
{
    if (!n->n_stor_srv)
        return 0;
    uint64_t srv = 0, cli = 0;
    for (uint32_t i = 0; i < n->n_stor_srv; i++)
        srv += nic_rate(n, n->stor_srv0 + i);
    /* each distinct client NIC once (a server's GPUs share its storage NIC when dedicated) */
    uint8_t *seen = xcalloc(n->n_hosts ? n->n_hosts : 1, 1, "ideal storage");
    for (uint32_t g = 0; g < n_gpus; g++) {
        uint32_t c = net_storage_client(n, gpus[g]);
        if (c < n->n_hosts && !seen[c]) {
            seen[c] = 1;
            cli += nic_rate(n, c);
        }
    }
    xfree(seen);
    return srv < cli ? srv : cli;
}

sim_time ideal_line_ps(uint64_t bytes, uint32_t mtu, uint64_t bps)
{
    if (!bytes || !bps)
        return 0;
    /* the bytes as one message: the fewest frames (a lower bound of any split) */
    return (sim_time)((unsigned __int128)ideal_wire_bytes(bytes, mtu) * 8 * SIM_S / bps);
}

sim_time ideal_chakra(const net *n, uint32_t mtu, const train_plan *p, const uint32_t *gpu_of_rank,
                      uint32_t iterations, char *basis, size_t len)
{
    uint64_t nic_bps = 0;
    for (uint32_t h = 0; h < n->n_hosts; h++)
        nic_bps = nic_rate(n, h) > nic_bps ? nic_rate(n, h) : nic_bps;
    if (n->sc->fabric.preset != PRESET_CUSTOM && n->sc->fabric.nic_ports > 1)
        nic_bps *= n->sc->fabric.nic_ports;
    uint64_t frame = (uint64_t)wire_data_frame(mtu, 0) + WIRE_LINE_EXTRA;
    uint64_t good = (uint64_t)((unsigned __int128)nic_bps * mtu / frame);
    uint64_t nvl = n->n_hosts ? nvl_rate(n, 0) : n->sc->fabric.scale_up_bps;
    /* [0] collectives, [1] messages: how many span servers, how many do not */
    uint32_t across[2] = {0, 0}, inside[2] = {0, 0};
    for (uint32_t g = 0; g < p->n_groups; g++) {
        const train_group *G = &p->groups[g];
        uint32_t s0 = n->hosts[net_gpu_host(n, gpu_of_rank[p->members[G->off]], 0)]->server;
        bool x = false;
        for (uint32_t k = 1; k < G->n && !x; k++)
            x = n->hosts[net_gpu_host(n, gpu_of_rank[p->members[G->off + k]], 0)]->server != s0;
        if (G->n > 1)
            (x ? across : inside)[0]++;
    }
    for (uint32_t i = 0; i < p->n_tasks; i++) {
        const train_task *t = &p->tasks[i];
        if (t->kind != TRAIN_P2P)
            continue;
        bool x = n->hosts[net_gpu_host(n, gpu_of_rank[t->rank], 0)]->server !=
                 n->hosts[net_gpu_host(n, gpu_of_rank[t->dst], 0)]->server;
        (x ? across : inside)[1]++;
    }
    uint64_t bw[2];
    for (int c = 0; c < 2; c++)
        bw[c] = !inside[c] ? good : !across[c] ? nvl : good > nvl ? good : nvl;
    train_ab_cost cost = {0, 0, 0, bw[0], bw[1], bw[0]};
    sim_time it = train_eval_ideal(p, train_ab_cost_fn, &cost, NULL, NULL, NULL, NULL, NULL);
    char r[32];
    snprintf(basis, len,
             "trace's critical path, communication at α = 0 (%s NIC goodput across "
             "servers, NVLink inside)",
             fmt_rate(r, sizeof r, nic_bps));
    return it * iterations;
}
