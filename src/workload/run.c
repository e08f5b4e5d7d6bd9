/*
 * run.c — one run: build the network and the jobs, simulate, collect the results (run.h).
 *
 * Jobs start from one event each at their `start` time. A traffic job completes when its last
 * flow does; its JCT is from its start to that moment. FCT percentiles are nearest-rank over
 * completed flows (p50 = the ⌈0.50·n⌉-th smallest).
 *
 * The run ends when every job is done and the fabric has drained (the last ACK is home): from
 * then on only timers would remain — DCQCN rate-increase timers climbing back to line rate,
 * retransmission timers of finished QPs, a PFC storm without an end, faults scheduled later —
 * and simulating them would only stretch the denominators of every average. The run stops at
 * the first event after the last job's completion that leaves no packet in the fabric
 * (sim.drain on the packet pool's live count), so the simulated end is the end of the jobs'
 * activity. Link utilization of a port is its serialization time over the jobs' active window,
 * from the first job's start to that end (before it nothing but PFC frames can move).
 */
#include "run.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../core/alloc.h"
#include "../lb/lb.h"
#include "../net/net.h"
#include "../transport/nic.h"
#include "coll_exec.h"
#include "../telemetry/telemetry.h"
#include "fault.h"
#include "ideal.h"
#include "traffic.h"
#include "train_exec.h"

typedef struct job_state {
    event start;
    run *owner;
    uint64_t first_flow, n_flows, done_flows;  /* traffic jobs: flows; collectives: connections */
    sim_time end_ps;
    coll_exec *coll;           /* collective jobs */
    train_exec *train;         /* training jobs */
} job_state;

struct run {
    const scenario *sc;
    int only;                  /* -1, or the one job an isolated baseline runs */
    sim sim;
    net *net;
    transport *tp;
    faults *faults;
    telemetry *tel;
    job_state *jobs;
    uint32_t jobs_left;        /* jobs of this run not finished yet */
    run_stats st;
};

/* A job finished: when it was the last, let the fabric drain and stop (see the top comment). */
static void job_finished(void *ctx)
{
    run *r = ctx;
    if (!r->jobs_left || --r->jobs_left)
        return;
    r->st.jobs_done = true;
    r->sim.drain = &r->net->pkts.live;
    if (r->net->pkts.live == 0)
        sim_stop(&r->sim);
}

static void job_start(void *ctx, event *ev)
{
    job_state *js = (job_state *)((char *)ev - offsetof(job_state, start));
    transport *t = js->owner->tp;
    (void)ctx;
    if (js->coll) {
        coll_exec_start(js->coll);
        return;
    }
    if (js->train) {
        train_exec_start(js->train);
        return;
    }
    for (uint64_t i = 0; i < js->n_flows; i++)
        transport_flow_start(t, &t->flows[js->first_flow + i]);
    if (!js->n_flows)
        job_finished(js->owner);
}

/* A posted message completed: the cookie carries the job in its top 24 bits. */
static void on_msg_done(void *ctx, flow *f, uint64_t cookie)
{
    run *r = ctx;
    (void)f;
    job_state *js = &r->jobs[cookie >> 40];
    if (js->train)
        train_exec_on_msg(js->train, cookie & ((1ull << 40) - 1));
    else
        coll_exec_on_msg(js->coll, cookie & ((1ull << 40) - 1));
}

/* A gpu-slow fault fired: every training job using that GPU computes slower from now. */
static void on_gpu_slow(void *ctx, uint32_t gpu, double factor)
{
    run *r = ctx;
    for (uint32_t j = 0; j < r->sc->n_jobs; j++)
        if (r->jobs[j].train)
            train_exec_gpu_slow(r->jobs[j].train, gpu, factor);
}

static void on_flow_done(void *ctx, flow *f)
{
    run *r = ctx;
    job_state *js = &r->jobs[f->job];
    js->done_flows++;
    if (f->end_ps > js->end_ps)
        js->end_ps = f->end_ps;
    if (js->done_flows == js->n_flows)
        job_finished(r);
}

typedef struct add_ctx {
    transport *tp;
    uint32_t job;
    uint64_t size;
    uint8_t prio;
} add_ctx;

static void add_pair(void *ctx, uint32_t src, uint32_t dst)
{
    add_ctx *a = ctx;
    transport_flow_add(a->tp, a->job, src, dst, a->size, a->prio);
}

/* DCQCN rate of QP q for the sampler's rate series. */
static double qp_rate(void *ctx, uint32_t q)
{
    const transport *t = ctx;
    return (double)t->qps[q].rate_bps;
}

/* Build a run; `only` = the index of the one job to run (the others are left out), or -1. */
static run *run_build(const scenario *sc, int only, err *e)
{
    run *r = xcalloc(1, sizeof *r, "run");
    r->sc = sc;
    r->only = only;
    sim_init(&r->sim, sc->seed);
    r->sim.stop_at = sc->stop_at_ps;
    r->net = net_build(sc, &r->sim, e);
    if (!r->net)
        goto fail;
    if (lb_install(r->net, sc, e))
        goto fail;
    /* Parsed and validated, but not simulated yet: refuse rather than run something else. */
    if (sc->fabric.cut_through) {
        config_error_at(sc, e, "fabric.cut_through",
                        "fabric.cut_through: cut-through switching is not available yet in this "
                        "version (switches store and forward)");
        goto fail;
    }
    if (sc->nic.transport == TRANSPORT_UET || sc->nic.cc == CC_NSCC) {
        config_error_at(sc, e, sc->nic.transport == TRANSPORT_UET ? "nic.transport" : "nic.cc",
                        "%s: the UET transport and NSCC are not available yet in this version "
                        "(available: transport rocev2, cc dcqcn or none)",
                        sc->nic.transport == TRANSPORT_UET ? "nic.transport" : "nic.cc");
        goto fail;
    }
    r->faults = faults_new(r->net, sc, e);
    if (!r->faults)
        goto fail;
    uint64_t total = 0;
    r->jobs = xcalloc(sc->n_jobs ? sc->n_jobs : 1, sizeof(job_state), "job states");
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        const cfg_job *job = &sc->jobs[j];
        uint64_t c = 0;
        if (only >= 0 && (int)j != only)
            continue;
        if (job->kind == JOB_COLLECTIVE) {
            r->jobs[j].coll = coll_exec_new(r->net, sc, j, &c, e);
            if (!r->jobs[j].coll)
                goto fail;
        } else if (job->kind == JOB_TRAINING) {
            r->jobs[j].train = train_exec_new(r->net, sc, j, &c, e);
            if (!r->jobs[j].train)
                goto fail;
        } else if (job->kind == JOB_TRAFFIC) {
            if (job->iterations > 1) {
                char key[48];
                snprintf(key, sizeof key, "workload.%u.iterations", j);
                config_error_at(sc, e, key,
                                "workload[%u].iterations: a traffic job runs once (repeat it as "
                                "several jobs with later starts)",
                                j);
                goto fail;
            }
            c = traffic_flow_count(sc, j, r->net->n_hosts, e);
            if (e->code)
                goto fail;
        } else {
            char key[48];
            snprintf(key, sizeof key, "workload.%u.kind", j);
            config_error_at(sc, e, key,
                            "workload[%u].kind: \"%s\" jobs are not available yet in this version "
                            "(available: traffic, collective, training)",
                            j, job_kind_name(job->kind));
            goto fail;
        }
        total += c;
    }
    r->tp = transport_new(r->net, sc, total);
    r->tp->on_done = on_flow_done;
    r->tp->on_done_ctx = r;
    r->tp->on_msg = on_msg_done;
    r->tp->on_msg_ctx = r;
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        job_state *js = &r->jobs[j];
        js->owner = r;
        js->first_flow = r->tp->n_flows;
        if (only >= 0 && (int)j != only)
            continue;
        if (js->coll) {
            coll_exec_connect(js->coll, r->tp);
        } else if (js->train) {
            train_exec_connect(js->train, r->tp);
        } else {
            int prio = sc->jobs[j].priority;
            add_ctx a = {r->tp, j, sc->jobs[j].size_bytes,
                         (uint8_t)(prio < 0 ? sc->nic.priority : prio)};
            traffic_pairs(sc, j, r->net->n_hosts, add_pair, &a);
        }
        js->n_flows = r->tp->n_flows - js->first_flow;
        if (js->coll)
            coll_exec_on_finish(js->coll, job_finished, r);
        else if (js->train)
            train_exec_on_finish(js->train, job_finished, r);
        r->jobs_left++;
        event_init(&js->start, job_start);
        sim_at(&r->sim, &js->start, sc->jobs[j].start_ps);
    }
    faults_on_gpu_slow(r->faults, on_gpu_slow, r);
    r->tel = telemetry_new(r->net, sc, sc->pcap_filter, e);
    if (!r->tel)
        goto fail;
    telemetry_set_rates(r->tel, qp_rate, r->tp, (uint32_t)r->tp->n_qps, r->tp->qps_per_flow);
    return r;
fail:
    run_free(r);
    return NULL;
}

run *run_new(const scenario *sc, err *e)
{
    return run_build(sc, -1, e);
}

void run_isolated_baselines(run *r)
{
    const scenario *sc = r->sc;
    if (sc->n_jobs < 2)
        return;
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        err e;
        err_clear(&e);
        run *alone = run_build(sc, (int)j, &e);
        if (!alone)
            continue; /* cannot happen: the shared run built */
        sim_run(&alone->sim);
        job_result jr;
        memset(&jr, 0, sizeof jr);
        job_state *js = &alone->jobs[j];
        if (js->coll || js->train) {
            if (js->coll)
                coll_exec_result(js->coll, &jr);
            else
                train_exec_result(js->train, &jr);
            xfree(jr.iterations);
        } else {
            jr.completed = js->done_flows == js->n_flows;
            jr.jct_ps = jr.completed ? js->end_ps - sc->jobs[j].start_ps : 0;
        }
        job_result *mine = &r->st.jobs[j];
        if (jr.completed && mine->completed && jr.jct_ps) {
            mine->isolated_jct_ps = jr.jct_ps;
            mine->slowdown = (double)mine->jct_ps / (double)jr.jct_ps;
        }
        run_free(alone);
    }
}

static int cmp_time(const void *a, const void *b)
{
    sim_time x = *(const sim_time *)a, y = *(const sim_time *)b;
    return x < y ? -1 : x > y;
}

static sim_time nearest_rank(const sim_time *v, uint64_t n, double q)
{
    if (!n)
        return 0;
    uint64_t k = (uint64_t)(q * (double)n + 0.999999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

/* The job's lower bound (ideal.h) and JCT over it. */
static void job_ideal(run *r, uint32_t j, job_result *jr)
{
    const job_state *js = &r->jobs[j];
    const cfg_job *cj = &r->sc->jobs[j];
    uint32_t mtu = r->sc->nic.mtu;
    if (r->only >= 0 && (int)j != r->only)
        return;
    if (js->coll) {
        const uint32_t *gpu;
        const coll_plan *pl = coll_exec_plan(js->coll, &gpu);
        uint32_t *host = xmalloc(sizeof(uint32_t) * (pl->n_ranks ? pl->n_ranks : 1), "ranks");
        for (uint32_t k = 0; k < pl->n_ranks; k++)
            host[k] = net_gpu_host(r->net, gpu[k], 0);
        jr->ideal_jct_ps = ideal_collective(r->net, mtu, pl, host, cj->iterations,
                                            jr->ideal_basis, sizeof jr->ideal_basis);
        xfree(host);
    } else if (js->train) {
        jr->ideal_jct_ps =
            ideal_training(r->net, mtu, train_exec_plan(js->train), cj->iterations,
                           &jr->nominal_compute_ps, jr->ideal_basis, sizeof jr->ideal_basis);
    } else {
        jr->ideal_jct_ps = ideal_traffic(r->net, mtu, &r->tp->flows[js->first_flow], js->n_flows,
                                         jr->ideal_basis, sizeof jr->ideal_basis);
    }
    if (jr->completed && jr->ideal_jct_ps)
        jr->jct_over_ideal = (double)jr->jct_ps / (double)jr->ideal_jct_ps;
}

static void collect(run *r)
{
    run_stats *st = &r->st;
    const scenario *sc = r->sc;
    net *n = r->net;
    transport *t = r->tp;
    net_pfc_finish(n);
    trace_writer *tw = r->tel ? telemetry_trace(r->tel) : NULL;
    for (uint32_t j = 0; tw && j < sc->n_jobs; j++) {
        if (r->jobs[j].coll)
            coll_exec_trace(r->jobs[j].coll, tw);
        else if (r->jobs[j].train)
            train_exec_trace(r->jobs[j].train, tw);
    }
    st->end_ps = r->sim.now;
    st->active_start_ps = st->end_ps;
    for (uint32_t j = 0; j < sc->n_jobs; j++)
        if ((r->only < 0 || (int)j == r->only) && sc->jobs[j].start_ps < st->active_start_ps)
            st->active_start_ps = sc->jobs[j].start_ps;
    if (!sc->n_jobs)
        st->active_start_ps = 0;
    sim_time window = st->end_ps - st->active_start_ps;
    st->deadlock = n->deadlock;
    st->deadlock_at_ps = n->deadlock_at_ps;
    snprintf(st->deadlock_cycle, sizeof st->deadlock_cycle, "%s", n->deadlock_cycle);
    st->events = r->sim.events - telemetry_events(r->tel); /* model events, not sampler ticks */
    st->packet_hops = n->packet_hops;

    st->lossless_classes = n->lossless;
    for (uint32_t k = 0; k < sc->n_faults; k++) {
        const cfg_fault *fl = &sc->faults[k];
        if (fl->kind != FAULT_LINK_DOWN || fl->at_ps >= st->end_ps)
            continue;
        sim_time w = fl->detect_ps + fl->converge_ps, left = st->end_ps - fl->at_ps;
        st->reroute_ps += w < left ? w : left;
        if (!st->link_faults++)
            snprintf(st->fault_link, sizeof st->fault_link, "%s", fl->link ? fl->link : "?");
    }
    st->n_jobs = sc->n_jobs;
    st->jobs = xcalloc(sc->n_jobs ? sc->n_jobs : 1, sizeof(job_result), "job results");
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        const cfg_job *cj = &sc->jobs[j];
        const job_state *js = &r->jobs[j];
        job_result *jr = &st->jobs[j];
        jr->name = cj->name;
        jr->kind = cj->kind;
        jr->op = cj->op;
        jr->algorithm = cj->algorithm;
        jr->pattern = cj->pattern;
        jr->size_bytes = cj->size_bytes;
        jr->start_ps = cj->start_ps;
        if (js->coll) {
            coll_exec_result(js->coll, jr);
            continue;
        }
        if (js->train) {
            train_exec_result(js->train, jr);
            continue;
        }
        jr->flows = js->n_flows;
        jr->flows_completed = js->done_flows;
        jr->completed = js->done_flows == js->n_flows;
        if (jr->completed) {
            jr->end_ps = js->n_flows ? js->end_ps : cj->start_ps;
            jr->jct_ps = jr->end_ps - jr->start_ps;
        }
        /* hosts taking part */
        uint8_t *seen = xcalloc(n->n_hosts ? n->n_hosts : 1, 1, "job hosts");
        for (uint64_t i = 0; i < js->n_flows; i++) {
            const flow *f = &t->flows[js->first_flow + i];
            jr->ranks += !seen[f->src] + (!seen[f->dst] && f->dst != f->src);
            seen[f->src] = seen[f->dst] = 1;
        }
        xfree(seen);
    }

    for (uint32_t j = 0; j < sc->n_jobs; j++)
        job_ideal(r, j, &st->jobs[j]);

    /* transfers.csv rows (csv or html output only): count, then fill exactly that many */
    for (int pass = 0; pass < 2 && (sc->output_formats & (OUT_CSV | OUT_HTML)); pass++) {
        uint64_t dropped = 0;
        if (pass) {
            size_t rows = st->n_transfers ? st->n_transfers : 1;
            st->transfers = xmalloc(sizeof(transfer_record) * rows, "transfer records");
            st->n_transfers = 0;
        }
        for (uint32_t j = 0; j < sc->n_jobs; j++) {
            if (r->jobs[j].coll)
                coll_exec_transfers(r->jobs[j].coll, j, pass ? st->transfers : NULL,
                                    &st->n_transfers, TRANSFERS_MAX, &dropped);
            else if (r->jobs[j].train)
                train_exec_transfers(r->jobs[j].train, j, pass ? st->transfers : NULL,
                                     &st->n_transfers, TRANSFERS_MAX, &dropped);
        }
        st->transfers_dropped = dropped;
    }

    /* flows are the traffic jobs' flows; a collective's connections are not flows */
    st->flows = xcalloc(t->n_flows ? t->n_flows : 1, sizeof(flow_record), "flow records");
    sim_time *fct = xmalloc(sizeof(sim_time) * (t->n_flows ? t->n_flows : 1), "FCTs");
    uint64_t nc = 0;
    st->n_flows = 0;
    for (uint64_t i = 0; i < t->n_flows; i++) {
        const flow *f = &t->flows[i];
        if (r->jobs[f->job].coll || r->jobs[f->job].train)
            continue;
        flow_record *fr = &st->flows[st->n_flows++];
        fr->job = f->job;
        fr->src_host = f->src;
        fr->dst_host = f->dst;
        fr->size_bytes = f->size_bytes;
        fr->delivered_bytes = f->delivered_bytes;
        fr->start_ps = f->start_ps;
        if (f->done) {
            fr->end_ps = f->end_ps;
            fct[nc++] = f->end_ps - f->start_ps;
        }
    }
    qsort(fct, nc, sizeof(sim_time), cmp_time);
    st->flows_completed = nc;
    st->fct_p50_ps = nearest_rank(fct, nc, 0.50);
    st->fct_p99_ps = nearest_rank(fct, nc, 0.99);
    st->fct_max_ps = nc ? fct[nc - 1] : 0;
    xfree(fct);

    st->n_ports = n->n_ports;
    st->ports = xcalloc(n->n_ports ? n->n_ports : 1, sizeof(port_record), "port records");
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        port_record *pr = &st->ports[i];
        net_port_name(p, pr->name, sizeof pr->name);
        pr->tx_bytes = p->tx_bytes;
        pr->tx_packets = p->tx_packets;
        pr->max_queue_bytes = p->max_q_bytes;
        /* busy_ps includes the whole of a frame still on the wire at the end: clamp */
        pr->utilization = window ? (double)p->busy_ps / (double)window : 0.0;
        if (pr->utilization > 1.0)
            pr->utilization = 1.0;
        pr->ecn_marked = p->ecn_marked;
        pr->pfc_pause_sent = p->pfc_pause_sent;
        pr->pfc_paused_ps = p->pfc_paused_ps;
        st->tx_bytes += p->tx_bytes;
        if (pr->utilization > st->max_link_utilization)
            st->max_link_utilization = pr->utilization;
        st->ecn_marked += p->ecn_marked;
        st->pfc_watchdog_events += p->wd_events;
        pr->pfc_pause_rx = p->pfc_pause_rx;
        pr->wd_events = p->wd_events;
        pr->rx_bytes = p->rx_bytes;
        pr->rx_packets = p->rx_packets;
        for (int c = 0; c < NET_PRIOS; c++) {
            pr->prio_tx_bytes[c] = p->prio_tx_bytes[c];
            pr->prio_tx_packets[c] = p->prio_tx_packets[c];
            pr->prio_ecn_marked[c] = p->prio_ecn_marked[c];
            pr->prio_drops[c] = p->prio_drops[c];
            pr->prio_pause_sent[c] = p->prio_pause_sent[c];
            pr->prio_pause_rx[c] = p->prio_pause_rx[c];
            pr->prio_paused_ps[c] = p->prio_paused_ps[c];
        }
        st->pfc_pause_sent += p->pfc_pause_sent;
        st->pfc_paused_ps += p->pfc_paused_ps;
        for (int d = 0; d < DROP_REASONS; d++) {
            pr->drops[d] = p->drops[d];
            st->drops[d] += p->drops[d];
        }
    }

    st->cnp_sent = t->cnp_sent;
    st->cnp_handled = t->cnp_handled;
    st->retransmitted_packets = t->retransmitted_packets;
    st->out_of_sequence = t->out_of_sequence;
    st->rto_events = t->rto_events;

    st->n_nics = n->n_hosts;
    st->nics = xcalloc(n->n_hosts ? n->n_hosts : 1, sizeof(nic_record), "NIC records");
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        const nic *c = &t->nics[h];
        nic_record *nr = &st->nics[h];
        nr->cnp_sent = c->cnp_sent;
        nr->cnp_handled = c->cnp_handled;
        nr->retransmitted_packets = c->retransmitted_packets;
        nr->out_of_sequence = c->out_of_sequence;
        nr->rto_events = c->rto_events;
    }
    st->sent_bytes = t->sent_payload_bytes;
    st->delivered_bytes = t->delivered_payload_bytes;
    st->dropped_bytes = n->dropped_payload_bytes;
    st->inflight_bytes = net_inflight_payload(n, NULL);
    st->scale_up_bytes = t->scale_up_bytes;
    SIM_ASSERT(st->sent_bytes == st->delivered_bytes + st->dropped_bytes + st->inflight_bytes,
               "byte conservation: sent %llu != delivered %llu + dropped %llu + in flight %llu",
               (unsigned long long)st->sent_bytes, (unsigned long long)st->delivered_bytes,
               (unsigned long long)st->dropped_bytes, (unsigned long long)st->inflight_bytes);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void run_execute(run *r, sim_progress_fn progress, void *user)
{
    r->sim.progress = progress;
    r->sim.progress_user = user;
    double t0 = wall_now();
    sim_run(&r->sim);
    double wall = wall_now() - t0;
    r->st.hit_stop_at =
        evq_size(&r->sim.q) > r->sim.daemons && !r->net->deadlock && !r->st.jobs_done;
    collect(r);
    r->st.wall_s = wall;
    r->st.events_per_s = wall > 0 ? (double)r->st.events / wall : 0.0;
}

const run_stats *run_result(const run *r) { return &r->st; }
telemetry *run_telemetry(const run *r) { return r->tel; }
const sim *run_sim(const run *r) { return &r->sim; }
sim *run_sim_mut(run *r) { return &r->sim; }

static iter_result *st_iters(run_stats *st, uint32_t j)
{
    return st->jobs && j < st->n_jobs ? st->jobs[j].iterations : NULL;
}

void run_free(run *r)
{
    if (!r)
        return;
    for (uint32_t j = 0; r->jobs && j < r->sc->n_jobs; j++)
        xfree(st_iters(&r->st, j));
    xfree(r->st.jobs);
    xfree(r->st.flows);
    xfree(r->st.transfers);
    xfree(r->st.ports);
    xfree(r->st.nics);
    /* The telemetry cancels its sampler event; then the queue, which may still hold events
     * embedded in jobs and ports, goes before their owners. */
    telemetry_free(r->tel);
    sim_free(&r->sim);
    faults_free(r->faults);
    for (uint32_t j = 0; r->jobs && j < r->sc->n_jobs; j++) {
        coll_exec_free(r->jobs[j].coll);
        train_exec_free(r->jobs[j].train);
    }
    xfree(r->jobs);
    transport_free(r->tp);
    net_free(r->net);
    xfree(r);
}
