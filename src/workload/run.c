/*
 * run.c — one run: build the network and the jobs, simulate, collect the results (run.h).
 *
 * Jobs start from one event each at their `start` time. A traffic job completes when its last
 * flow does; its JCT is from its start to that moment. FCT percentiles are nearest-rank over
 * completed flows (p50 = the ⌈0.50·n⌉-th smallest).
 *
 * Failure. A job fails when one of its QPs exceeds nic.retry_count (the transport aborts that
 * flow and calls on_fail): the run then aborts every other flow of the job, so a collective or
 * training executor waits for messages that never complete and posts nothing more (its QPs are
 * flushed); other jobs go on. A job also fails when nothing could advance it any more: the
 * event queue ran dry with it unfinished, or (with a pfc-storm that has no `duration`, the one
 * event source that never ends by itself) the PFC watchdog's detect time plus a whole retry
 * budget, rto × (retry_count + 1), went by without a data packet sent or delivered, a scale-up
 * transfer or a training task finished.
 * When every job has completed or failed, storms without `duration` stop (they last "until the
 * end" of the jobs) and the run drains. sim.end_reason says which of these ended it.
 *
 * The run ends when every job is over and the fabric has drained (the last ACK is home): from
 * then on only timers would remain — DCQCN rate-increase timers climbing back to line rate,
 * retransmission timers of finished QPs, faults scheduled later — and simulating them would
 * only stretch the denominators of every average. The run stops at the first event after the
 * last job's end that leaves no packet in the fabric (sim.drain on the packet pool's live
 * count), so the simulated end is the end of the jobs' activity. Link utilization of a port is
 * its serialization time over the jobs' active window, from the first job's start to that end
 * (before it nothing but PFC frames can move).
 *
 * Dual-port failover (fabric.nic_ports 2): when a link-down fault takes down a host port's link,
 * after nic.failover_delay, if that link is still down and the NIC's other port is up, the
 * transport moves the port's flows there (transport_failover).
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
#include "../transport/flownet.h"
#include "../transport/nic.h"
#include "coll_exec.h"
#include "dag.h"
#include "../telemetry/telemetry.h"
#include "fault.h"
#include "ideal.h"
#include "traffic.h"
#include "tenant.h"
#include "infer_exec.h"
#include "train_exec.h"

typedef struct job_state {
    event start;
    run *owner;
    uint64_t first_flow, n_flows, done_flows;  /* traffic jobs: flows; collectives: connections */
    sim_time end_ps;
    /* traffic jobs: flow i starts at iter_start_ps + at_ps[i]; iteration k's flows are
     * [iter_end[k-1], iter_end[k]); `arrive` starts the next ones (one event per job) */
    sim_time *at_ps;
    uint64_t *iter_end;
    sim_time *iter_ps; /* each iteration's time, for the job's result */
    uint32_t n_iter, cur_iter;
    uint64_t next_flow; /* relative to first_flow */
    sim_time iter_start_ps;
    event arrive;
    /* pattern list: flow (relative index) -> its entry in the job's `flows`; entry -> its
     * offset in every iteration; per entry the entries waiting for it (CSR: waiters[wait_first[e]
     * .. wait_first[e + 1])), the shape of the DAG the workload engine runs each iteration */
    uint32_t *item_of, *pos, *wait_first, *waiters;
    dag_graph list_shape;
    dag_run list_run;
    coll_exec *coll;           /* collective jobs */
    train_exec *train;         /* training jobs */
    infer_exec *infer;         /* inference jobs */
    bool failed;
    sim_time failed_ps;
    char reason[256];
} job_state;

/* A pending dual-port failover of one host port. */
typedef struct failover_ev {
    event ev;
    run *owner;
    uint32_t host;
} failover_ev;

struct run {
    const scenario *sc;
    int only;                  /* -1, or the one job an isolated baseline runs */
    sim sim;
    net *net;
    transport *tp;
    faults *faults;
    telemetry *tel;
    job_state *jobs;
    run_stats st;
    uint32_t jobs_open;        /* jobs neither completed nor failed */
    bool jobs_over;            /* every job completed or failed */
    failover_ev *failover;     /* per host, with dual-port NICs */
    uint32_t *qp_tenant;       /* [QPs] with tenants: each QP's tenant (net.qp_tenant) */
    tenant_map tenants;        /* with tenants: who owns each GPU and NIC port */
    event stall;               /* with endless storms: the progress check (a daemon) */
    sim_time stall_period_ps;
    uint64_t stall_sig;
    bool stalled;
};

static bool job_finished(const run *r, uint32_t j)
{
    const job_state *js = &r->jobs[j];
    if (js->failed)
        return true;
    if (js->coll)
        return coll_exec_finished(js->coll);
    if (js->train)
        return train_exec_finished(js->train);
    if (js->infer)
        return infer_exec_finished(js->infer);
    return js->done_flows == js->n_flows;
}

/* Recount the open jobs; when none is left, storms "until the end" end now (the fabric then
 * drains what is still on its way, and the run ends when nothing but observers is queued). */
static void jobs_update(run *r)
{
    uint32_t open = 0;
    for (uint32_t j = 0; j < r->sc->n_jobs; j++)
        if ((r->only < 0 || (int)j == r->only) && !job_finished(r, j))
            open++;
    r->jobs_open = open;
    if (!open && !r->jobs_over) {
        r->jobs_over = true;
        /* drain, then stop (the top comment) */
        r->st.jobs_done = true;
        /* flow level: the pieces still on their way (flownet.h) instead of packets */
        r->sim.drain = r->tp->fn ? flownet_live(r->tp->fn) : &r->net->pkts.live;
        if (*r->sim.drain == 0)
            sim_stop(&r->sim);
        if (r->faults)
            faults_end_endless_storms(r->faults);
        for (uint32_t h = 0; r->failover && h < r->net->n_hosts; h++)
            evq_cancel(&r->sim.q, &r->failover[h].ev); /* no flow left to move */
    }
}

/* Fail job j now with `reason`: every flow of it stops (QPs flushed). First reason wins. */
static void job_fail(run *r, uint32_t j, const char *reason)
{
    job_state *js = &r->jobs[j];
    if (js->failed || job_finished(r, j))
        return;
    js->failed = true;
    js->failed_ps = r->sim.now;
    snprintf(js->reason, sizeof js->reason, "%s", reason);
    if (js->infer)
        infer_exec_abort(js->infer);
    for (uint64_t i = 0; i < js->n_flows; i++)
        transport_flow_abort(r->tp, &r->tp->flows[js->first_flow + i]);
}

/* A QP exceeded its retry limit: its job fails, with what is known about why. */
static void on_flow_fail(void *ctx, flow *f, const qp *q)
{
    run *r = ctx;
    const net *n = r->net;
    const node *hs = n->hosts[f->src], *hd = n->hosts[f->dst];
    char why[96] = "";
    const node *ends[2] = {hs, hd};
    for (int k = 0; k < 2 && !why[0]; k++) {
        const node *h = ends[k];
        if (h->net_port != UINT32_MAX && !h->ports[h->net_port].up)
            snprintf(why, sizeof why, "; link %s-%s is down",
                     h->ports[h->net_port].peer->owner->name, h->name);
    }
    if (!why[0] && !net_reaches(n, f->src, f->dst))
        snprintf(why, sizeof why, "; no route from %s to %s", hs->name, hd->name);
    for (int k = 0; k < 2 && !why[0]; k++) {
        const node *h = ends[k];
        if (h->net_port != UINT32_MAX && h->ports[h->net_port].xoff_sent)
            snprintf(why, sizeof why, "; %s's NIC port is holding its link paused (PFC)",
                     h->name);
    }
    char reason[256];
    snprintf(reason, sizeof reason,
             "QP %s->%s exceeded retry_count %u at %.3f ms (%u timeouts of %.3f ms without "
             "progress%s)",
             hs->name, hd->name, r->tp->retry_count, (double)r->sim.now / (double)SIM_MS,
             r->tp->retry_count + 1, (double)r->tp->rto_ps / (double)SIM_MS, why);
    (void)q;
    job_fail(r, f->job, reason);
    jobs_update(r);
}

/* Progress of every job, as one number: changes whenever anything of a job moves. */
static uint64_t progress_sig(const run *r)
{
    const transport *t = r->tp;
    uint64_t sig = t->data_packets_sent + t->delivered_payload_bytes + t->scale_up_bytes;
    for (uint32_t j = 0; j < r->sc->n_jobs; j++)
        if (r->jobs[j].train)
            sig += train_exec_progress(r->jobs[j].train);
        else if (r->jobs[j].infer)
            sig += infer_exec_progress(r->jobs[j].infer);
        else
            sig += r->jobs[j].next_flow; /* traffic: arrivals */
    return sig;
}

/* With an endless storm: every stall period, fail the open jobs if nothing moved for a period. */
static void stall_fire(void *ctx, event *ev)
{
    run *r = (run *)((char *)ev - offsetof(run, stall));
    (void)ctx;
    r->sim.daemons--;
    jobs_update(r);
    if (!r->jobs_open)
        return;
    uint64_t sig = progress_sig(r);
    bool waiting = false; /* a checkpoint write or a restart is a timer that will move a job */
    for (uint32_t j = 0; j < r->sc->n_jobs; j++)
        waiting |= r->jobs[j].train && !job_finished(r, j) && train_exec_waiting(r->jobs[j].train);
    for (uint32_t j = 0; j < r->sc->n_jobs; j++) /* the next request's arrival will */
        waiting |= r->jobs[j].infer && !job_finished(r, j) && infer_exec_waiting(r->jobs[j].infer);
    if (sig == r->stall_sig && !waiting) {
        char reason[256];
        snprintf(reason, sizeof reason,
                 "stalled: nothing moved for %.3f ms (PFC watchdog detect + rto x (retry_count + "
                 "1)) while a pfc-storm without duration was pausing the fabric",
                 (double)r->stall_period_ps / (double)SIM_MS);
        r->stalled = true;
        for (uint32_t j = 0; j < r->sc->n_jobs; j++)
            if ((r->only < 0 || (int)j == r->only) && !job_finished(r, j))
                job_fail(r, j, reason);
        jobs_update(r);
        return;
    }
    r->stall_sig = sig;
    r->sim.daemons++;
    sim_at(&r->sim, &r->stall, r->sim.now + r->stall_period_ps);
}

/* Dual-port failover: the detection delay has passed. */
static void failover_fire(void *ctx, event *ev)
{
    failover_ev *fo = (failover_ev *)((char *)ev - offsetof(failover_ev, ev));
    run *r = fo->owner;
    (void)ctx;
    const node *h = r->net->hosts[fo->host];
    uint32_t sib = r->tp->nics[fo->host].sibling;
    if (sib == UINT32_MAX || h->ports[h->net_port].up)
        return; /* the link came back within the delay: nothing to move */
    const node *o = r->net->hosts[sib];
    if (!o->ports[o->net_port].up)
        return; /* both ports down: nowhere to go, the QPs' retry limit decides */
    uint32_t moved = transport_failover(r->tp, fo->host, sib);
    if (!moved)
        return; /* no live flow used the port */
    run_stats *st = &r->st;
    if (st->n_failovers < RUN_MAX_FAILOVER_RECORDS) {
        failover_record *fr = &st->failovers[st->n_failovers];
        fr->from_host = fo->host;
        fr->to_host = sib;
        fr->at_ps = r->sim.now;
        fr->qps = moved;
    }
    st->n_failovers++;
}

/* A link went down: a dual-port NIC's port on it fails over after nic.failover_delay. */
static void on_link(void *ctx, port *p, bool up)
{
    run *r = ctx;
    if (up || !r->failover)
        return;
    port *ends[2] = {p, p->peer};
    for (int k = 0; k < 2; k++) {
        const node *h = ends[k]->owner;
        if (h->kind != NODE_HOST || h->net_port != ends[k]->index ||
            r->tp->nics[h->index].sibling == UINT32_MAX)
            continue;
        failover_ev *fo = &r->failover[h->index];
        if (!event_queued(&fo->ev))
            sim_at(&r->sim, &fo->ev, r->sim.now + r->sc->nic.failover_delay_ps);
    }
}

/* Traffic job: start the flows of the current iteration whose time has come; arm `arrive` for
 * the next one. */
static void traffic_pump(job_state *js)
{
    transport *t = js->owner->tp;
    sim *s = &js->owner->sim;
    uint64_t end = js->iter_end[js->cur_iter];
    /* list: the flows that wait for others come last and are started by list_release */
    while (end > js->next_flow && js->at_ps[end - 1] == TRAFFIC_AFTER)
        end--;
    while (!js->failed && js->next_flow < end &&
           js->iter_start_ps + js->at_ps[js->next_flow] <= s->now)
        transport_flow_start(t, &t->flows[js->first_flow + js->next_flow++]);
    if (!js->failed && js->next_flow < end)
        sim_at(s, &js->arrive, js->iter_start_ps + js->at_ps[js->next_flow]);
}

static void traffic_arrive(void *ctx, event *ev)
{
    (void)ctx;
    traffic_pump((job_state *)((char *)ev - offsetof(job_state, arrive)));
}

/* Traffic job: begin iteration cur_iter now (iterations without flows take no time). */
static void traffic_iter_begin(job_state *js)
{
    sim_time now = js->owner->sim.now;
    while (js->cur_iter + 1 < js->n_iter && js->iter_end[js->cur_iter] == js->next_flow) {
        js->iter_ps[js->cur_iter++] = 0;
    }
    js->iter_start_ps = now;
    if (js->item_of)
        dag_run_start(&js->list_run, &js->list_shape);
    traffic_pump(js);
}

static void job_start(void *ctx, event *ev)
{
    job_state *js = (job_state *)((char *)ev - offsetof(job_state, start));
    (void)ctx;
    if (js->coll)
        coll_exec_start(js->coll);
    else if (js->train)
        train_exec_start(js->train);
    else if (js->infer)
        infer_exec_start(js->infer);
    else
        traffic_iter_begin(js);
    if (job_finished(js->owner, (uint32_t)(js - js->owner->jobs)))
        jobs_update(js->owner); /* nothing to do at all (no transfers, no flows) */
}

/* A collective or training job finished its last iteration. */
static void on_exec_finish(void *ctx)
{
    jobs_update(ctx);
}

/* A posted message completed: the cookie carries the job in its top 24 bits. */
static void on_msg_done(void *ctx, flow *f, uint64_t cookie)
{
    run *r = ctx;
    (void)f;
    job_state *js = &r->jobs[cookie >> 40];
    if (js->train)
        train_exec_on_msg(js->train, cookie & ((1ull << 40) - 1));
    else if (js->infer)
        infer_exec_on_msg(js->infer, cookie & ((1ull << 40) - 1));
    else
        coll_exec_on_msg(js->coll, cookie & ((1ull << 40) - 1));
    if (r->jobs_open && job_finished(r, (uint32_t)(cookie >> 40)))
        jobs_update(r);
}

/* A gpu-slow fault fired: every training job using that GPU computes slower from now. */
static void on_gpu_slow(void *ctx, uint32_t gpu, double factor)
{
    run *r = ctx;
    for (uint32_t j = 0; j < r->sc->n_jobs; j++)
        if (r->jobs[j].train)
            train_exec_gpu_slow(r->jobs[j].train, gpu, factor);
}

/* A gpu-fail fault fired: a training job on that GPU restarts from its last checkpoint, or fails
 * without one; a collective job on it fails (the collective cannot complete). */
static void on_gpu_fail(void *ctx, uint32_t gpu, uint32_t fault)
{
    run *r = ctx;
    for (uint32_t j = 0; j < r->sc->n_jobs; j++) {
        job_state *js = &r->jobs[j];
        const cfg_job *cj = &r->sc->jobs[j];
        char why[200];
        if (js->failed || job_finished(r, j) || (r->only >= 0 && (int)j != r->only))
            continue;
        if (js->train) {
            bool restarts;
            if (!train_exec_gpu_fail(js->train, gpu, &restarts))
                continue;
            if (restarts) {
                faults_log_add(r->faults, fault, "%s stops; restarts from its last checkpoint",
                               cj->name);
                continue;
            }
            snprintf(why, sizeof why,
                     "GPU %u failed (faults[%u]) and the job has no checkpoint to restart from",
                     gpu, fault);
        } else if (js->coll) {
            bool member = cj->ranks.all && gpu < net_gpus(r->net);
            for (uint32_t k = 0; !cj->ranks.all && k < cj->ranks.n; k++)
                member |= cj->ranks.idx[k] == gpu;
            if (!member)
                continue;
            snprintf(why, sizeof why, "GPU %u failed (faults[%u]) during the collective", gpu,
                     fault);
        } else {
            continue;
        }
        faults_log_add(r->faults, fault, "%s fails", cj->name);
        job_fail(r, j, why);
        jobs_update(r);
    }
}

/* pattern list: entry e of the current iteration has every flow it waits for behind it: start
 * its flow now. Entries that wait for nothing start at their time (traffic_pump). */
static void list_ready(void *ctx, uint32_t e)
{
    job_state *js = ctx;
    run *r = js->owner;
    if (!r->sc->jobs[js - r->jobs].flows[e].n_after || js->failed)
        return;
    uint64_t base = js->cur_iter ? js->iter_end[js->cur_iter - 1] : 0;
    transport_flow_start(r->tp, &r->tp->flows[js->first_flow + base + js->pos[e]]);
}

static uint32_t list_deps(const void *ctx, uint32_t e)
{
    return ((const cfg_job *)ctx)->flows[e].n_after;
}

static void on_flow_done(void *ctx, flow *f)
{
    run *r = ctx;
    job_state *js = &r->jobs[f->job];
    js->done_flows++;
    if (f->end_ps > js->end_ps)
        js->end_ps = f->end_ps;
    if (js->item_of)
        dag_run_complete(&js->list_run, js->item_of[f->id - js->first_flow]);
    if (js->iter_end && js->done_flows == js->iter_end[js->cur_iter]) {
        /* the iteration's last flow has arrived: the next iteration starts now */
        js->iter_ps[js->cur_iter] = js->end_ps - js->iter_start_ps;
        if (js->cur_iter + 1 < js->n_iter) {
            js->cur_iter++;
            js->next_flow = js->iter_end[js->cur_iter - 1]; /* past flows that waited (list) */
            traffic_iter_begin(js);
        }
    }
    if (js->done_flows == js->n_flows)
        jobs_update(r);
}

typedef struct add_ctx {
    transport *tp;
    const cfg_job *cj;
    job_state *js;
    uint32_t job;
    uint8_t prio;
    const uint32_t *map; /* the job's index space -> hosts (traffic_host_map), NULL = same */
} add_ctx;

static void add_flow(void *ctx, const traffic_flow *tf)
{
    add_ctx *a = ctx;
    job_state *js = a->js;
    uint64_t i = a->tp->n_flows - js->first_flow;
    transport_flow_add(a->tp, a->job, a->map ? a->map[tf->src] : tf->src,
                       a->map ? a->map[tf->dst] : tf->dst, tf->bytes, a->prio);
    js->at_ps[i] = tf->at_ps;
    js->iter_end[tf->iteration] = i + 1;
    if (js->item_of) {
        js->item_of[i] = tf->item;
        if (!tf->iteration)
            js->pos[tf->item] = (uint32_t)i;
    }
}

/* DCQCN rate of QP q for the sampler's rate series (flow level: its fluid rate). */
static double qp_rate(void *ctx, uint32_t q)
{
    const transport *t = ctx;
    if (t->fn)
        return flownet_qp_rate(t->fn, q);
    return (double)t->qps[q].rate_bps;
}

/* The training job the goodput section is about, or -1 with *e set. */
static int goodput_job(const scenario *sc, err *e)
{
    const cfg_goodput *g = &sc->goodput;
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        const cfg_job *cj = &sc->jobs[j];
        if (g->job ? strcmp(cj->name, g->job) != 0 : cj->kind != JOB_TRAINING)
            continue;
        if (cj->kind != JOB_TRAINING) {
            config_error_at(sc, e, "goodput.job",
                            "goodput.job: \"%s\" is a %s job; the goodput of a long run is "
                            "about a training job",
                            g->job, job_kind_name(cj->kind));
            return -1;
        }
        if (!cj->ckpt) {
            char key[48];
            snprintf(key, sizeof key, "workload.%u", j);
            config_error_at(sc, e, key,
                            "workload[%u]: the goodput section needs job \"%s\" to say how it "
                            "checkpoints and restarts (checkpoint: {interval, write_time, "
                            "restart_time})",
                            j, cj->name);
            return -1;
        }
        return (int)j;
    }
    if (g->job)
        config_error_at(sc, e, "goodput.job", "goodput.job: no job named \"%s\"", g->job);
    else
        config_error_at(sc, e, "goodput",
                        "goodput: the scenario has no training job to estimate the goodput of");
    return -1;
}

/* The goodput what-if after the run: the job's footprint, its interruption rate, the sampled
 * wall-clock at its checkpoint interval and at the best one. */
static void goodput_collect(run *r)
{
    const scenario *sc = r->sc;
    const cfg_goodput *g = &sc->goodput;
    goodput_result *gr = &r->st.goodput;
    err e;
    err_clear(&e);
    int jj = goodput_job(sc, &e);
    if (jj < 0)
        return;
    uint32_t j = (uint32_t)jj;
    const cfg_job *cj = &sc->jobs[j];
    const job_result *jr = &r->st.jobs[j];
    net *n = r->net;
    gr->on = true;
    gr->job = j;
    /* footprint: GPUs, their NIC ports and host links, leaves and servers */
    uint32_t gpus = net_gpus(n);
    uint8_t *host = xcalloc(n->n_hosts ? n->n_hosts : 1, 1, "goodput hosts");
    uint8_t *node_seen = xcalloc(n->n_nodes ? n->n_nodes : 1, 1, "goodput nodes");
    uint8_t *server = xcalloc(n->n_servers ? n->n_servers : 1, 1, "goodput servers");
    uint32_t ranks = cj->ranks.all ? gpus : cj->ranks.n;
    for (uint32_t k = 0; k < ranks; k++) {
        uint32_t gpu = cj->ranks.all ? k : cj->ranks.idx[k];
        gr->gpus++;
        for (uint32_t p = 0; p < sc->fabric.nic_ports; p++) {
            uint32_t h = net_gpu_host(n, gpu, p);
            if (h == UINT32_MAX || host[h])
                continue;
            host[h] = 1;
            const node *x = n->hosts[h];
            gr->nics++;
            if (x->server < n->n_servers && !server[x->server]) {
                server[x->server] = 1;
                gr->servers++;
            }
            if (x->net_port == UINT32_MAX)
                continue;
            gr->links++;
            const node *leaf = x->ports[x->net_port].peer->owner;
            if (leaf->kind == NODE_SWITCH && !node_seen[leaf->id]) {
                node_seen[leaf->id] = 1;
                gr->leaves++;
            }
        }
    }
    xfree(server);
    xfree(node_seen);
    xfree(host);
    gr->lambda_per_h = gr->gpus * (g->rate_gpu + g->rate_other) + gr->nics * g->rate_nic +
                       gr->links * g->rate_link + gr->leaves * g->rate_switch +
                       gr->servers * g->rate_host;
    gr->iterations = g->iterations;
    gr->samples = g->samples;
    gr->interval = cj->ckpt_interval;
    gr->write_s = (double)cj->ckpt_write_ps * 1e-12;
    if (cj->ckpt_bytes) {
        /* a checkpoint of a size: the stall the simulation measured per write (0 when async) */
        if (!jr->ckpt_writes) {
            snprintf(gr->why, sizeof gr->why,
                     "job \"%s\" wrote no checkpoint in the simulation: no write time to build "
                     "on (run at least checkpoint.interval + 1 iterations)",
                     cj->name);
            return;
        }
        gr->write_s = (double)jr->ckpt_ps * 1e-12 / jr->ckpt_writes;
    }
    gr->restart_s = (double)cj->ckpt_restart_ps * 1e-12;
    /* the measured iteration: the mean over the completed iterations */
    if (!jr->n_iterations) {
        snprintf(gr->why, sizeof gr->why,
                 "job \"%s\" completed no iteration in the simulation: no iteration time to "
                 "build on",
                 cj->name);
        return;
    }
    sim_time sum = 0;
    for (uint32_t k = 0; k < jr->n_iterations; k++)
        sum += jr->iterations[k].time_ps;
    gr->iter_s = (double)sum / jr->n_iterations * 1e-12;
    goodput_in in = {.iter_s = gr->iter_s,
                     .iterations = g->iterations,
                     .interval = cj->ckpt_interval,
                     .write_s = gr->write_s,
                     .restart_s = gr->restart_s,
                     .lambda_per_s = gr->lambda_per_h / 3600.0,
                     .samples = g->samples,
                     .seed = sc->seed};
    double *scratch = xmalloc(sizeof(double) * g->samples, "goodput samples");
    int rc = goodput_run(&in, scratch, &gr->at_interval);
    if (rc == 0) {
        gr->best_interval = goodput_optimize(&in, scratch, &gr->best);
        gr->ok = gr->best_interval > 0;
    }
    xfree(scratch);
    gr->young_iters = goodput_young_s(gr->write_s, in.lambda_per_s) / gr->iter_s;
    gr->daly_iters = goodput_daly_s(gr->write_s, in.lambda_per_s) / gr->iter_s;
    if (rc == -2)
        snprintf(gr->why, sizeof gr->why,
                 "at %.3g interruptions/h the job cannot make progress: a checkpoint interval "
                 "plus its restart is interrupted e^30 times before it completes",
                 gr->lambda_per_h);
    else if (!gr->ok)
        snprintf(gr->why, sizeof gr->why, "the Monte Carlo could not run");
}

/* Build a run; `only` = the index of the one job to run (the others are left out), or -1. */
/* Tenants (tenant.h): refuse two tenants on one GPU or NIC port (their VRFs would overlap: the
 * traffic could not be kept apart), then give each QP its job's tenant for the counters. */
static int tenants_setup(run *r, err *e)
{
    const scenario *sc = r->sc;
    if (!tenant_map_build(sc, r->net, &r->tenants)) {
        char key[48];
        snprintf(key, sizeof key, "workload.%u.tenant", r->tenants.job_b);
        return config_error_at(sc, e, key, "workload[%u].tenant: %s", r->tenants.job_b,
                               r->tenants.why);
    }
    transport *t = r->tp;
    r->qp_tenant = xmalloc(sizeof(uint32_t) * (t->n_qps ? t->n_qps : 1), "tenant of each QP");
    for (uint64_t q = 0; q < t->n_qps; q++) {
        uint32_t tn = sc->jobs[t->qps[q].f->job].tenant;
        r->qp_tenant[q] = tn < sc->n_tenants ? tn : 0;
    }
    r->net->qp_tenant = r->qp_tenant;
    r->net->n_qp_tenant = (uint32_t)t->n_qps;
    return 0;
}

/* The sampler's tick at flow level: the fluid's traffic so far into the ports' counters. */
static void flow_sync(void *ctx)
{
    flownet_sync(ctx);
}

/* Flow level (transport/flownet.h): what only packets can show is refused, not faked — a
 * capture of frames that do not exist, a PAUSE storm, bit errors (their cost is retransmitted
 * packets). */
static int flow_refuse(const scenario *sc, err *e)
{
    if (sc->output_formats & OUT_PCAP)
        return config_error_at(sc, e, "output.formats",
                               "output.formats: pcap needs packets; a flow-level run "
                               "(sim.fidelity: flow) has none (drop pcap, or run packet-level)");
    for (uint32_t k = 0; k < sc->n_faults; k++) {
        enum fault_kind kd = sc->faults[k].kind;
        if (kd != FAULT_PFC_STORM && kd != FAULT_LINK_BER)
            continue;
        char key[48];
        snprintf(key, sizeof key, "faults.%u.kind", k);
        return config_error_at(sc, e, key,
                               "faults[%u].kind: a %s acts on packets (%s), which a flow-level "
                               "run (sim.fidelity: flow) does not model; run it packet-level",
                               k, fault_kind_name(kd),
                               kd == FAULT_PFC_STORM ? "PAUSE frames" : "corrupted frames");
    }
    return 0;
}

static run *run_build(const scenario *sc, int only, err *e)
{
    run *r = xcalloc(1, sizeof *r, "run");
    r->sc = sc;
    r->only = only;
    sim_init(&r->sim, sc->seed);
    r->sim.stop_at = sc->stop_at_ps;
    r->net = net_build(sc, &r->sim, e);
    if (!r->net || net_mtu_check(r->net, e))
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
    if (sc->fidelity == FIDELITY_FLOW && flow_refuse(sc, e))
        goto fail;
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
        } else if (job->kind == JOB_TRAINING || job->kind == JOB_CHAKRA) {
            r->jobs[j].train = train_exec_new(r->net, sc, j, &c, e);
            if (!r->jobs[j].train)
                goto fail;
        } else if (job->kind == JOB_INFERENCE) {
            r->jobs[j].infer = infer_exec_new(r->net, sc, j, &c, e);
            if (!r->jobs[j].infer)
                goto fail;
        } else if (job->kind == JOB_TRAFFIC) {
            uint32_t space;
            xfree(traffic_host_map(sc, j, r->net, &space));
            c = traffic_flow_count(sc, j, space, e);
            if (e->code)
                goto fail;
            job_state *js = &r->jobs[j];
            js->n_iter = job->iterations;
            js->at_ps = xmalloc(sizeof(sim_time) * (c ? c : 1), "traffic arrivals");
            js->iter_end = xcalloc(js->n_iter, sizeof(uint64_t), "traffic iterations");
            js->iter_ps = xcalloc(js->n_iter, sizeof(sim_time), "traffic iterations");
        } else {
            char key[48];
            snprintf(key, sizeof key, "workload.%u.kind", j);
            config_error_at(sc, e, key,
                            "workload[%u].kind: \"%s\" jobs are not available yet in this version "
                            "(available: traffic, collective, training, chakra, inference)",
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
    r->tp->on_fail = on_flow_fail;
    r->tp->on_fail_ctx = r;
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
            train_exec_on_finish(js->train, on_exec_finish, r);
        } else if (js->infer) {
            infer_exec_connect(js->infer, r->tp);
            infer_exec_on_finish(js->infer, on_exec_finish, r);
        } else {
            int prio = sc->jobs[j].priority;
            const cfg_job *cj = &sc->jobs[j];
            uint32_t space;
            uint32_t *map = traffic_host_map(sc, j, r->net, &space);
            add_ctx a = {r->tp, cj, js, j, (uint8_t)(prio < 0 ? sc->nic.priority : prio), map};
            if (cj->pattern == PAT_LIST) {
                uint64_t nf = (uint64_t)cj->n_flows * cj->iterations, edges = 0;
                js->item_of = xmalloc(sizeof(uint32_t) * nf, "list flows");
                js->pos = xmalloc(sizeof(uint32_t) * cj->n_flows, "list flows");
                js->wait_first = xcalloc(cj->n_flows + 1, sizeof(uint32_t), "list flows");
                for (uint32_t i = 0; i < cj->n_flows; i++)
                    for (uint32_t k = 0; k < cj->flows[i].n_after; k++, edges++)
                        js->wait_first[cj->flows[i].after[k] + 1]++;
                for (uint32_t i = 0; i < cj->n_flows; i++)
                    js->wait_first[i + 1] += js->wait_first[i];
                js->waiters = xmalloc(sizeof(uint32_t) * (edges ? edges : 1), "list flows");
                uint32_t *fill = xmalloc(sizeof(uint32_t) * cj->n_flows, "list flows");
                memcpy(fill, js->wait_first, sizeof(uint32_t) * cj->n_flows);
                for (uint32_t i = 0; i < cj->n_flows; i++)
                    for (uint32_t k = 0; k < cj->flows[i].n_after; k++)
                        js->waiters[fill[cj->flows[i].after[k]]++] = i;
                xfree(fill);
                uint32_t max_after = 0;
                for (uint32_t i = 0; i < cj->n_flows; i++)
                    if (cj->flows[i].n_after > max_after)
                        max_after = cj->flows[i].n_after;
                js->list_shape = (dag_graph){.n = cj->n_flows,
                                             .max_deps = max_after,
                                             .succ_first = js->wait_first,
                                             .succ = js->waiters,
                                             .deps_fn = list_deps,
                                             .ctx = cj};
                dag_run_init(&js->list_run, NULL, cj->n_flows, max_after, list_ready, js);
            }
            traffic_flows(sc, j, space, add_flow, &a);
            xfree(map);
            /* an iteration without flows ends where the previous one did */
            for (uint32_t k = 1; k < js->n_iter; k++)
                if (js->iter_end[k] < js->iter_end[k - 1])
                    js->iter_end[k] = js->iter_end[k - 1];
            event_init(&js->arrive, traffic_arrive);
        }
        js->n_flows = r->tp->n_flows - js->first_flow;
        /* refuse endpoints the routing cannot connect: the job could never complete */
        for (uint64_t i = 0; i < js->n_flows; i++) {
            const flow *f = &r->tp->flows[js->first_flow + i];
            if (f->fluid || net_reaches(r->net, f->src, f->dst))
                continue;
            char key[48];
            snprintf(key, sizeof key, "workload.%u", j);
            config_error_at(sc, e, key,
                            "workload[%u]: job \"%s\" needs host %s to reach host %s, and the "
                            "fabric has no route between them (`wirerate check` lists the "
                            "unreachable pairs)",
                            j, sc->jobs[j].name, r->net->hosts[f->src]->name,
                            r->net->hosts[f->dst]->name);
            goto fail;
        }
        if (js->coll)
            coll_exec_on_finish(js->coll, on_exec_finish, r);
        event_init(&js->start, job_start);
        sim_at(&r->sim, &js->start, sc->jobs[j].start_ps);
        r->jobs_open++;
    }
    if (sc->n_tenants && tenants_setup(r, e))
        goto fail;
    faults_on_gpu_slow(r->faults, on_gpu_slow, r);
    faults_on_gpu_fail(r->faults, on_gpu_fail, r);
    if (sc->goodput.on && goodput_job(sc, e) < 0)
        goto fail;
    if (sc->fabric.nic_ports == 2) {
        r->failover = xcalloc(r->net->n_hosts ? r->net->n_hosts : 1, sizeof(failover_ev),
                              "failover events");
        for (uint32_t h = 0; h < r->net->n_hosts; h++) {
            event_init(&r->failover[h].ev, failover_fire);
            r->failover[h].owner = r;
            r->failover[h].host = h;
        }
        faults_on_link(r->faults, on_link, r);
    }
    event_init(&r->stall, stall_fire);
    if (faults_endless_storms(r->faults) && r->jobs_open) {
        /* the switches' PFC watchdog gets its chance to break the storm (detect), then a QP
         * with data outstanding gets its whole retry budget before anything is called stuck */
        sim_time cap = SIM_TIME_MAX / 16;
        sim_time budget =
            sc->nic.rto_ps > cap / 8 ? cap : sc->nic.rto_ps * (sc->nic.retry_count + 1ull);
        sim_time wd = sc->sw.wd_detect_ps > cap ? cap : sc->sw.wd_detect_ps;
        r->stall_period_ps = budget + wd > cap ? cap : budget + wd;
        r->sim.daemons++;
        sim_at(&r->sim, &r->stall, r->stall_period_ps);
    }
    r->tel = telemetry_new(r->net, sc, sc->pcap_filter, e);
    if (!r->tel)
        goto fail;
    telemetry_set_rates(r->tel, qp_rate, r->tp, (uint32_t)r->tp->n_qps, r->tp->qps_per_flow);
    if (r->tp->fn) /* flow level: the fluid's traffic reaches the ports' counters at each tick */
        telemetry_set_sync(r->tel, flow_sync, r->tp->fn);
    return r;
fail:
    run_free(r);
    return NULL;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

run *run_new(const scenario *sc, err *e)
{
    /* set-up (topology, routing, QPs, plans) is timed apart from the simulation: sim.setup_s */
    double t0 = wall_now();
    run *r = run_build(sc, -1, e);
    if (r)
        r->st.setup_s = wall_now() - t0;
    return r;
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
        net_hot_path_select(alone->net);
        sim_run(&alone->sim);
        job_result jr;
        memset(&jr, 0, sizeof jr);
        job_state *js = &alone->jobs[j];
        if (js->coll || js->train || js->infer) {
            if (js->coll)
                coll_exec_result(js->coll, &jr);
            else if (js->train)
                train_exec_result(js->train, &jr);
            else
                infer_exec_result(js->infer, &jr);
            xfree(jr.iterations);
            xfree(jr.rank_results);
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
        uint32_t n_an;
        const uint32_t *an = coll_exec_an_hosts(js->coll, &n_an);
        uint32_t *host =
            xmalloc(sizeof(uint32_t) * ((size_t)pl->n_ranks + 1 + pl->n_nvs + n_an), "ranks");
        for (uint32_t k = 0; k < pl->n_ranks; k++)
            host[k] = net_gpu_host(r->net, gpu[k], 0);
        for (uint32_t k = 0; k <= pl->n_nvs; k++)
            host[pl->n_ranks + k] = UINT32_MAX; /* nvls, nvls_tree: the NVSwitches */
        for (uint32_t k = 0; k < n_an; k++)
            host[pl->n_ranks + pl->n_nvs + k] = an[k]; /* sharp: the aggregation nodes */
        jr->ideal_jct_ps = ideal_collective(r->net, mtu, pl, host, cj->iterations,
                                            jr->ideal_basis, sizeof jr->ideal_basis);
        xfree(host);
    } else if (js->train && cj->kind == JOB_CHAKRA) {
        jr->ideal_jct_ps = ideal_chakra(r->net, mtu, train_exec_plan(js->train),
                                        train_exec_gpus(js->train), cj->iterations,
                                        jr->ideal_basis, sizeof jr->ideal_basis);
    } else if (js->train) {
        const train_plan *tp = train_exec_plan(js->train);
        jr->ideal_jct_ps = ideal_training(r->net, mtu, tp, cj->iterations, &jr->nominal_compute_ps,
                                          jr->ideal_basis, sizeof jr->ideal_basis);
        /* the storage I/O its steps wait for, one after the other: the model load before the
         * first step (every rank its shard of size / (tp x pp), each DP replica its own copy;
         * shard writers read the model once), then each checkpoint after every `interval`
         * iterations but the last: a synchronous write, or the fixed stall without bytes. An
         * async write overlaps the steps: it adds nothing to the bound. */
        uint64_t load = cj->ckpt_shard_writers
                            ? cj->load_bytes
                            : cj->load_bytes / ((uint64_t)tp->tp * tp->pp) * tp->n_ranks;
        uint32_t n_ckpt = cj->ckpt && cj->ckpt_interval && cj->iterations
                              ? (cj->iterations - 1) / cj->ckpt_interval
                              : 0;
        uint64_t bps = ideal_storage_bps(r->net, train_exec_gpus(js->train), tp->n_ranks);
        sim_time io = ideal_line_ps(load, mtu, bps), stall = 0;
        if (n_ckpt && !cj->ckpt_bytes)
            stall = n_ckpt * cj->ckpt_write_ps;
        else if (n_ckpt && !cj->ckpt_async)
            io += n_ckpt * ideal_line_ps(cj->ckpt_bytes, mtu, bps);
        jr->ideal_jct_ps += io + stall;
        size_t l = strlen(jr->ideal_basis);
        snprintf(jr->ideal_basis + l, sizeof jr->ideal_basis - l, "%s%s",
                 io ? " + storage I/O" : "", stall ? " + checkpoint stalls" : "");
    } else if (js->infer) {
        return; /* no lower bound for a served load: its arrivals set the pace */
    } else {
        /* pattern list: a flow that waits starts, at best, when what it waits for would end
         * alone on an idle fabric (chained in dependency order) */
        sim_time *at = js->at_ps;
        if (js->item_of && js->n_flows) {
            at = xmalloc(sizeof(sim_time) * js->n_flows, "ideal starts");
            memcpy(at, js->at_ps, sizeof(sim_time) * js->n_flows);
            for (uint32_t k = 0; k < js->n_iter; k++) {
                uint64_t base = k ? js->iter_end[k - 1] : 0;
                for (uint32_t o = 0; o < cj->n_flows; o++) {
                    const cfg_flow *c = &cj->flows[cj->flow_order[o]];
                    uint64_t i = base + js->pos[cj->flow_order[o]];
                    if (!c->n_after || i >= js->n_flows)
                        continue;
                    sim_time t0 = 0;
                    for (uint32_t d = 0; d < c->n_after; d++) {
                        uint64_t w = base + js->pos[c->after[d]];
                        sim_time e = at[w] + ideal_flow_alone(r->net, mtu,
                                                              &r->tp->flows[js->first_flow + w]);
                        t0 = e > t0 ? e : t0;
                    }
                    at[i] = t0;
                }
            }
        }
        jr->ideal_jct_ps =
            ideal_traffic(r->net, mtu, &r->tp->flows[js->first_flow], js->n_flows, at,
                          js->iter_end, js->n_iter, jr->ideal_basis, sizeof jr->ideal_basis);
        if (at != js->at_ps)
            xfree(at);
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
    st->fidelity = (uint8_t)sc->fidelity;
    if (t->fn) {
        flownet_stats fs;
        flownet_finish(t->fn);
        flownet_get_stats(t->fn, &fs);
        st->fluid_flows = fs.fluid_flows;
        st->coalesced_pieces = fs.coalesced;
        st->rate_solves = fs.solves;
        st->rate_fast = fs.fast;
        st->rate_commits = fs.commits;
        st->flow_reroutes = fs.reroutes;
        st->fluid_max_live = fs.max_live;
        st->one_event_pieces = fs.one_event - fs.woken;
        st->reused_flows = fs.reused;
    }
    trace_writer *tw = r->tel ? telemetry_trace(r->tel) : NULL;
    for (uint32_t j = 0; tw && j < sc->n_jobs; j++) {
        if (r->jobs[j].coll)
            coll_exec_trace(r->jobs[j].coll, tw);
        else if (r->jobs[j].train)
            train_exec_trace(r->jobs[j].train, tw);
        else if (r->jobs[j].infer)
            infer_exec_trace(r->jobs[j].infer, tw);
    }
    if (tw && sc->n_faults) {
        /* a "faults" process: a row per fault, its active span as a slice, each of its events
         * (went down, local reroute, reconverged, restarted...) as an instant */
        uint32_t pid = trace_process(tw, "faults");
        const fault_record *fr = faults_records(r->faults);
        uint32_t n_log;
        const fault_log *fl = faults_timeline(r->faults, &n_log, NULL);
        for (uint32_t k = 0; k < sc->n_faults; k++) {
            char row[80];
            snprintf(row, sizeof row, "%s %s", fault_kind_name(sc->faults[k].kind), fr[k].target);
            uint32_t tid = trace_thread(tw, pid, row);
            if (fr[k].fired) {
                sim_time end = fr[k].end_ps != SIM_TIME_MAX ? fr[k].end_ps : r->sim.now;
                if (end > fr[k].at_ps)
                    trace_complete(tw, pid, tid, row, "fault", fr[k].at_ps, end - fr[k].at_ps);
            }
        }
        for (uint32_t i = 0; i < n_log; i++) {
            char row[80];
            snprintf(row, sizeof row, "%s %s", fault_kind_name(sc->faults[fl[i].fault].kind),
                     fr[fl[i].fault].target);
            trace_instant(tw, pid, trace_thread(tw, pid, row), fl[i].what, fl[i].t_ps);
        }
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
    st->n_faults = sc->n_faults;
    st->faults = faults_records(r->faults);
    st->fault_log = faults_timeline(r->faults, &st->n_fault_log, &st->fault_log_total);
    st->rto_ps = sc->nic.rto_ps;
    for (uint32_t k = 0; k < sc->n_faults; k++) {
        /* the windows in which switches away from a dead link still hashed onto it: detect +
         * converge after each loss (a flap: each down, no longer than it stayed down), cut at
         * the end of the run */
        const cfg_fault *fl = &sc->faults[k];
        const fault_record *fr = &st->faults[k];
        if (!fr->fired || (fl->kind != FAULT_LINK_DOWN && fl->kind != FAULT_LINK_FLAP &&
                           fl->kind != FAULT_SWITCH_DOWN))
            continue;
        sim_time w = fl->detect_ps + fl->converge_ps, left = st->end_ps - fl->at_ps;
        if (fl->kind == FAULT_LINK_FLAP) {
            sim_time per = w < fl->down_ps ? w : fl->down_ps;
            sim_time sum = per * ((fr->transitions + 1) / 2);
            st->reroute_ps += sum < left ? sum : left;
        } else {
            st->reroute_ps += w < left ? w : left;
        }
        if (!st->link_faults)
            st->fault_link_local = fr->local_reroute_ps != SIM_TIME_MAX;
        if (!st->link_faults++)
            snprintf(st->fault_link, sizeof st->fault_link, "%s%s%s",
                     fl->kind == FAULT_SWITCH_DOWN ? "switch " : "", fr->target,
                     fl->kind == FAULT_LINK_FLAP ? " (flapping)" : "");
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
        if (js->failed) {
            jr->failed = true;
            jr->failed_at_ps = js->failed_ps;
            snprintf(jr->reason, sizeof jr->reason, "%s", js->reason);
            st->jobs_failed++;
        }
        if (js->coll) {
            coll_exec_result(js->coll, jr);
            continue;
        }
        if (js->train) {
            train_exec_result(js->train, jr);
            continue;
        }
        if (js->infer) {
            infer_exec_result(js->infer, jr);
            continue;
        }
        jr->flows = js->n_flows;
        jr->flows_completed = js->done_flows;
        if (cj->size_cdf.n || cj->pattern == PAT_LIST) {
            /* sizes drawn, or listed: the job's size is the mean flow size */
            uint64_t bytes = 0;
            for (uint64_t i = 0; i < js->n_flows; i++)
                bytes += t->flows[js->first_flow + i].size_bytes;
            if (cj->size_cdf.n)
                jr->size_cdf = cj->size_cdf.name;
            jr->size_bytes = js->n_flows ? bytes / js->n_flows : 0;
        }
        jr->completed = js->done_flows == js->n_flows;
        if (jr->completed) {
            jr->end_ps = js->n_flows ? js->end_ps : cj->start_ps;
            jr->jct_ps = jr->end_ps - jr->start_ps;
        }
        if (js->n_iter > 1) { /* repeated: each iteration's time, the ones that completed */
            uint32_t ni = js->cur_iter + (js->done_flows == js->iter_end[js->cur_iter]);
            jr->iterations = xcalloc(ni ? ni : 1, sizeof(iter_result), "iteration results");
            for (uint32_t k = 0; k < ni; k++)
                jr->iterations[k].time_ps = js->iter_ps[k];
            jr->n_iterations = ni;
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

    faults_restore_rates(r->faults); /* the ideal is the healthy fabric's */
    for (uint32_t j = 0; j < sc->n_jobs; j++)
        job_ideal(r, j, &st->jobs[j]);
    if (sc->goodput.on && r->only < 0)
        goodput_collect(r);

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

    /* requests.csv rows: every request of the inference jobs */
    st->n_requests = 0;
    for (uint32_t j = 0; j < sc->n_jobs; j++)
        if (r->jobs[j].infer)
            infer_exec_requests(r->jobs[j].infer, j, NULL, &st->n_requests);
    st->requests = xmalloc(sizeof(request_record) * (st->n_requests ? st->n_requests : 1),
                           "request records");
    st->n_requests = 0;
    for (uint32_t j = 0; j < sc->n_jobs; j++)
        if (r->jobs[j].infer)
            infer_exec_requests(r->jobs[j].infer, j, st->requests, &st->n_requests);

    /* flows are the traffic jobs' flows; a collective's connections are not flows */
    st->flows = xcalloc(t->n_flows ? t->n_flows : 1, sizeof(flow_record), "flow records");
    sim_time *fct = xmalloc(sizeof(sim_time) * (t->n_flows ? t->n_flows : 1), "FCTs");
    uint64_t nc = 0;
    st->n_flows = 0;
    for (uint64_t i = 0; i < t->n_flows; i++) {
        const flow *f = &t->flows[i];
        if (r->jobs[f->job].coll || r->jobs[f->job].train || r->jobs[f->job].infer)
            continue;
        if (!f->started)
            continue; /* its arrival never came (the run ended first): no flow on the wire */
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
        const port_cold *pc = port_cold_of(p);
        net_port_name(p, pr->name, sizeof pr->name);
        pr->network = p->owner->network;
        st->networks |= p->owner->network != NETWORK_BACKEND;
        pr->tx_bytes = net_port_tx_bytes(p);
        pr->tx_wire_bytes = net_port_tx_wire_bytes(p);
        pr->tx_packets = net_port_tx_packets(p);
        pr->max_queue_bytes = p->max_q_bytes;
        /* busy_ps includes the whole of a frame still on the wire at the end: clamp */
        pr->utilization = window ? (double)p->busy_ps / (double)window : 0.0;
        if (pr->utilization > 1.0)
            pr->utilization = 1.0;
        pr->ecn_marked = p->ecn_marked;
        pr->pfc_pause_sent = pc->pfc_pause_sent;
        pr->pfc_paused_ps = pc->pfc_paused_ps;
        st->tx_bytes += pr->tx_bytes;
        st->tx_wire_bytes += pr->tx_wire_bytes;
        if (pr->utilization > st->max_link_utilization)
            st->max_link_utilization = pr->utilization;
        st->ecn_marked += p->ecn_marked;
        st->pfc_watchdog_events += pc->wd_events;
        pr->pfc_pause_rx = pc->pfc_pause_rx;
        pr->wd_events = pc->wd_events;
        pr->rx_bytes = net_port_rx_bytes(p, &pr->rx_packets);
        for (int c = 0; c < NET_PRIOS; c++) {
            pr->prio_tx_bytes[c] = p->cls[c].tx_bytes;
            pr->prio_tx_packets[c] = p->cls[c].tx_packets;
            pr->prio_ecn_marked[c] = pc->prio_ecn_marked[c];
            pr->prio_drops[c] = pc->prio_drops[c];
            pr->prio_pause_sent[c] = pc->prio_pause_sent[c];
            pr->prio_pause_rx[c] = pc->prio_pause_rx[c];
            pr->prio_paused_ps[c] = pc->prio_paused_ps[c];
        }
        st->pfc_pause_sent += pc->pfc_pause_sent;
        st->pfc_paused_ps += pc->pfc_paused_ps;
        if (p->ib) {
            pr->credit_stall_ps = p->ib->credit_stall_ps;
            pr->credit_stalls = p->ib->credit_stalls;
            pr->fecn_marked = p->ib->fecn_marked;
            pr->fcp_sent = p->ib->fcp_sent;
            pr->ib_peak_bytes = (uint64_t)p->ib->peak_blocks * IB_CREDIT_BYTES;
            pr->ib_vl_buffer_bytes = (uint64_t)p->ib->cap_blocks * IB_CREDIT_BYTES;
            st->credit_stall_ps += p->ib->credit_stall_ps;
            st->fecn_marked += p->ib->fecn_marked;
            st->fcp_sent += p->ib->fcp_sent;
        }
        for (int d = 0; d < DROP_REASONS; d++) {
            pr->drops[d] = pc->drops[d];
            st->drops[d] += pc->drops[d];
        }
        pr->trimmed = p->trimmed;
        st->trimmed += p->trimmed;
    }

    st->infiniband = n->ib;
    st->cnp_sent = t->cnp_sent;
    st->cnp_handled = t->cnp_handled;
    st->retransmitted_packets = t->retransmitted_packets;
    st->out_of_sequence = t->out_of_sequence;
    st->rto_events = t->rto_events;
    st->naks_sent = t->naks_sent;
    st->naks_received = t->naks_received;
    st->qps_failed = t->qps_failed;
    st->qps_failed_over = t->qps_failed_over;
    st->trims_received = t->trims_received;
    st->uet = t->uet;
    st->ooo_placement = t->ooo || t->uet; /* UET always places out of order */
    if (st->deadlock)
        st->end_reason = END_DEADLOCK;
    else if (st->hit_stop_at)
        st->end_reason = END_STOP_AT;
    else if (r->stalled)
        st->end_reason = END_STALLED;
    else
        st->end_reason = st->jobs_failed ? END_JOBS_FAILED : END_COMPLETED;

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
        nr->naks_sent = c->naks_sent;
        nr->naks_received = c->naks_received;
        nr->qps_failed = c->qps_failed;
        nr->qps_failed_over = c->qps_failed_over;
        nr->dcqcn_held_ps = c->dcqcn_held_ps;
        nr->trims_received = c->trims_received;
        for (int k = 0; k < NIC_PORTS; k++) /* a hold still open when the run ended */
            if (c->ports[k].held && st->end_ps > c->ports[k].held_since_ps)
                nr->dcqcn_held_ps += st->end_ps - c->ports[k].held_since_ps;
    }
    if (sc->n_tenants) {
        st->vtep = (uint8_t)sc->vtep;
        st->n_tenants = sc->n_tenants;
        st->tenants = xcalloc(sc->n_tenants, sizeof(tenant_record), "tenant records");
        for (uint32_t k = 0; k < sc->n_tenants; k++) {
            tenant_record *tr = &st->tenants[k];
            const net_tenant_ctr *c = &n->tenant_ctr[k];
            tr->name = sc->tenants[k].name;
            tr->vni = sc->tenants[k].vni;
            tr->gpus = r->tenants.gpus_of ? r->tenants.gpus_of[k] : 0;
            tr->hosts = r->tenants.hosts_of ? r->tenants.hosts_of[k] : 0;
            tr->nic_tx_bytes = c->nic_tx_bytes;
            tr->nic_tx_packets = c->nic_tx_packets;
            tr->fabric_tx_bytes = c->fabric_tx_bytes;
            tr->fabric_tx_packets = c->fabric_tx_packets;
            tr->drops = c->drops;
            tr->ecn_marked = c->ecn_marked;
        }
        for (uint32_t j = 0; j < sc->n_jobs; j++) {
            uint32_t k = sc->jobs[j].tenant;
            if (k >= sc->n_tenants)
                continue;
            st->tenants[k].jobs++;
            const job_state *js = &r->jobs[j];
            for (uint64_t i = 0; i < js->n_flows; i++)
                st->tenants[k].delivered_bytes += t->flows[js->first_flow + i].delivered_bytes;
        }
    }
    st->sent_bytes = t->sent_payload_bytes;
    st->delivered_bytes = t->delivered_payload_bytes;
    st->dropped_bytes = n->dropped_payload_bytes;
    st->inflight_bytes =
        net_inflight_payload(n, NULL) + (t->fn ? flownet_inflight_bytes(t->fn) : 0);
    st->trimmed_bytes = n->trimmed_payload_bytes;
    st->scale_up_bytes = t->scale_up_bytes;
    SIM_ASSERT(st->sent_bytes ==
                   st->delivered_bytes + st->dropped_bytes + st->trimmed_bytes + st->inflight_bytes,
               "byte conservation: sent %llu != delivered %llu + dropped %llu + trimmed %llu + in "
               "flight %llu",
               (unsigned long long)st->sent_bytes, (unsigned long long)st->delivered_bytes,
               (unsigned long long)st->dropped_bytes, (unsigned long long)st->trimmed_bytes,
               (unsigned long long)st->inflight_bytes);
}

/* Why job j, unfinished, has nothing left that could move it: a flow that could not send at
 * all because its sender's link is down (nothing in flight, so no retry timer ran), or else
 * just that the events ran out. */
static void stall_reason(const run *r, uint32_t j, char *buf, size_t len)
{
    const job_state *js = &r->jobs[j];
    for (uint64_t i = 0; i < js->n_flows; i++) {
        const flow *f = &r->tp->flows[js->first_flow + i];
        const node *h = r->net->hosts[f->src];
        if (f->done || f->fluid || h->net_port == UINT32_MAX || h->ports[h->net_port].up)
            continue;
        snprintf(buf, len,
                 "stalled: %s could not send to %s, its link %s-%s is down (nothing was in flight, "
                 "so no retry timer ran)",
                 h->name, r->net->hosts[f->dst]->name, h->ports[h->net_port].peer->owner->name,
                 h->name);
        return;
    }
    snprintf(buf, len, "stalled: the simulation ran out of events with the job unfinished");
}

void run_execute(run *r, sim_progress_fn progress, void *user)
{
    r->sim.progress = progress;
    r->sim.progress_user = user;
    double t0 = wall_now();
    net_hot_path_select(r->net); /* the set-up (telemetry, tenants) is complete */
    sim_run(&r->sim);
    SIM_ASSERT(net_hot_path_consistent(r->net),
               "a feature of the frame path changed during the run (net_hot_path_select)");
    double wall = wall_now() - t0;
    /* Packets the run no longer holds go back to the system before the records are built
     * (collect): at 32,768 GPUs the pool's 590 MiB and the 200 MiB of port records would
     * otherwise add up to the peak. A resumed run (raised stop_at) grows it again. */
    if (r->net && r->net->pkts.live == 0)
        pool_destroy(&r->net->pkts);
    r->st.hit_stop_at =
        evq_size(&r->sim.q) > r->sim.daemons && !r->net->deadlock && !r->st.jobs_done;
    if (!r->st.hit_stop_at && !r->net->deadlock)
        for (uint32_t j = 0; j < r->sc->n_jobs; j++)
            if ((r->only < 0 || (int)j == r->only) && !job_finished(r, j)) {
                char reason[256];
                stall_reason(r, j, reason, sizeof reason);
                job_fail(r, j, reason);
                r->stalled = true;
            }
    collect(r);
    r->st.wall_s = wall;
    r->st.events_per_s = wall > 0 ? (double)r->st.events / wall : 0.0;
}

const char *end_reason_name(enum end_reason e)
{
    switch (e) {
    case END_COMPLETED:
        return "completed";
    case END_JOBS_FAILED:
        return "jobs_failed";
    case END_STALLED:
        return "stalled";
    case END_STOP_AT:
        return "stop_at";
    case END_DEADLOCK:
        return "pfc_deadlock";
    }
    return "?";
}

const run_stats *run_result(const run *r) { return &r->st; }
telemetry *run_telemetry(const run *r) { return r->tel; }
transport *run_transport(run *r)
{
    return r->tp;
}

const net *run_net(const run *r)
{
    return r->net;
}

const sim *run_sim(const run *r) { return &r->sim; }
sim *run_sim_mut(run *r) { return &r->sim; }
struct net *run_net_mut(run *r)
{
    return r->net;
}

static iter_result *st_iters(run_stats *st, uint32_t j)
{
    return st->jobs && j < st->n_jobs ? st->jobs[j].iterations : NULL;
}

const train_exec *run_train_exec(const run *r, uint32_t j)
{
    return r->jobs && j < r->sc->n_jobs ? r->jobs[j].train : NULL;
}

const coll_exec *run_coll_exec(const run *r, uint32_t j)
{
    return r->jobs && j < r->sc->n_jobs ? r->jobs[j].coll : NULL;
}

void run_free(run *r)
{
    if (!r)
        return;
    for (uint32_t j = 0; r->jobs && j < r->sc->n_jobs; j++) {
        xfree(st_iters(&r->st, j));
        if (r->st.jobs && j < r->st.n_jobs)
            xfree(r->st.jobs[j].rank_results);
    }
    xfree(r->st.jobs);
    xfree(r->st.flows);
    xfree(r->st.transfers);
    xfree(r->st.requests);
    xfree(r->st.ports);
    xfree(r->st.nics);
    xfree(r->st.tenants);
    xfree(r->qp_tenant);
    tenant_map_free(&r->tenants);
    /* The telemetry cancels its sampler event; then the queue, which may still hold events
     * embedded in jobs and ports, goes before their owners. */
    telemetry_free(r->tel);
    sim_free(&r->sim);
    faults_free(r->faults);
    for (uint32_t j = 0; r->jobs && j < r->sc->n_jobs; j++) {
        coll_exec_free(r->jobs[j].coll);
        train_exec_free(r->jobs[j].train);
        infer_exec_free(r->jobs[j].infer);
        xfree(r->jobs[j].at_ps);
        xfree(r->jobs[j].item_of);
        xfree(r->jobs[j].pos);
        dag_run_free(&r->jobs[j].list_run);
        xfree(r->jobs[j].wait_first);
        xfree(r->jobs[j].waiters);
        xfree(r->jobs[j].iter_end);
        xfree(r->jobs[j].iter_ps);
    }
    xfree(r->jobs);
    xfree(r->failover);
    transport_free(r->tp);
    net_free(r->net);
    xfree(r);
}
