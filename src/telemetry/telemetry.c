/*
 * telemetry.c — the per-run telemetry bundle (telemetry.h) and the trace.json assembly.
 */
#include "telemetry.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../workload/run.h"

#define TRACE_HOT_PORTS 16 /* queue-depth counter tracks in trace.json */

telemetry *telemetry_new(net *n, const scenario *sc, const char *pcap_filter, err *e)
{
    telemetry *t = xcalloc(1, sizeof *t, "telemetry");
    t->net = n;
    t->sc = sc;
    t->lossless = n->lossless;
    t->n_ports = n->n_ports;
    t->meta = xcalloc(n->n_ports ? n->n_ports : 1, sizeof(tel_port_meta), "port metadata");
    for (uint32_t i = 0; i < n->n_ports; i++) {
        const port *p = n->ports[i];
        tel_port_meta *m = &t->meta[i];
        snprintf(m->node, sizeof m->node, "%s", p->owner->name);
        snprintf(m->peer, sizeof m->peer, "%s", p->peer->owner->name);
        m->node_is_switch = p->owner->kind == NODE_SWITCH;
        m->peer_is_switch = p->peer->owner->kind == NODE_SWITCH;
        m->tier = (uint8_t)p->owner->tier;
        m->peer_tier = (uint8_t)p->peer->owner->tier;
    }
    uint32_t fm = sc->output_formats;
    pcap_opts po = {sc->pcap_max_packets, sc->pcap_max_bytes, sc->pcap_snaplen,
                    sc->pcap_staging_dir};
    if ((fm & OUT_PCAP) && !(t->pcap = pcap_capture_new(n, &po, pcap_filter, e))) {
        telemetry_free(t);
        return NULL;
    }
    if ((fm & (OUT_CSV | OUT_HTML | OUT_TRACE)) && sc->sample_interval_ps > 0)
        t->smp = sampler_new(n, sc->sample_interval_ps, 0);
    if (fm & OUT_TRACE)
        t->trace = trace_new();
    return t;
}

void telemetry_set_rates(telemetry *t, sampler_rate_fn fn, void *ctx, uint32_t n_qps,
                         uint32_t qps_per_flow)
{
    if (t && t->smp)
        sampler_set_rates(t->smp, fn, ctx, n_qps, qps_per_flow);
}

void telemetry_set_sync(telemetry *t, sampler_sync_fn fn, void *ctx)
{
    if (t && t->smp)
        sampler_set_sync(t->smp, fn, ctx);
}

uint64_t telemetry_events(const telemetry *t) { return t && t->smp ? sampler_ticks(t->smp) : 0; }
trace_writer *telemetry_trace(telemetry *t) { return t ? t->trace : NULL; }

void telemetry_free(telemetry *t)
{
    if (!t)
        return;
    sampler_free(t->smp);
    pcap_capture_free(t->pcap);
    trace_free(t->trace);
    xfree(t->meta);
    xfree(t);
}

int telemetry_write_timeseries(FILE *f, const telemetry *t)
{
    if (!t->smp) {
        fputs("time_ps,port,queue_bytes,utilization,pfc_paused_mask\n", f);
        return ferror(f) ? -1 : 0;
    }
    return sampler_write_csv(f, t->smp);
}

int telemetry_write_rates(FILE *f, const telemetry *t)
{
    if (!t->smp) {
        fputs("time_ps,qp,flow,rate_bps\n", f);
        return ferror(f) ? -1 : 0;
    }
    return sampler_write_rates_csv(f, t->smp);
}

int telemetry_write_pcap(FILE *f, const telemetry *t)
{
    if (!t->pcap)
        return -1;
    return pcap_write(f, t->pcap);
}

/* Lanes: flows of one (job, source host) that overlap in time go on separate rows. Flows are
 * taken in start order (at most TRACE_MAX_FLOWS: a trace of a million flows opens in no
 * viewer), then grouped by (job, host) so the lane search only scans the group's own lanes. */
#define TRACE_MAX_FLOWS 100000u

static const flow_record *sort_flows;

static int cmp_start(const void *a, const void *b)
{
    uint64_t ia = *(const uint64_t *)a, ib = *(const uint64_t *)b;
    const flow_record *x = &sort_flows[ia], *y = &sort_flows[ib];
    if (x->start_ps != y->start_ps)
        return x->start_ps < y->start_ps ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

static int cmp_group(const void *a, const void *b)
{
    uint64_t ia = *(const uint64_t *)a, ib = *(const uint64_t *)b;
    const flow_record *x = &sort_flows[ia], *y = &sort_flows[ib];
    if (x->job != y->job)
        return x->job < y->job ? -1 : 1;
    if (x->src_host != y->src_host)
        return x->src_host < y->src_host ? -1 : 1;
    return cmp_start(a, b);
}

int telemetry_write_trace(FILE *f, telemetry *t, const run_stats *st)
{
    if (!t->trace)
        t->trace = trace_new();
    trace_writer *tw = t->trace;
    uint64_t n = st->n_flows;
    uint64_t *idx = xmalloc((n ? n : 1) * sizeof(uint64_t), "trace flow order");
    for (uint64_t i = 0; i < n; i++)
        idx[i] = i;
    sort_flows = st->flows;
    qsort(idx, n, sizeof idx[0], cmp_start);
    if (n > TRACE_MAX_FLOWS)
        n = TRACE_MAX_FLOWS;
    qsort(idx, n, sizeof idx[0], cmp_group);
    sim_time *lane_end = xmalloc((n ? n : 1) * sizeof(sim_time), "trace lanes");
    uint32_t n_lanes = 0;
    for (uint64_t k = 0; k < n; k++) {
        const flow_record *fr = &st->flows[idx[k]];
        if (k == 0 || fr->job != st->flows[idx[k - 1]].job ||
            fr->src_host != st->flows[idx[k - 1]].src_host)
            n_lanes = 0; /* a new (job, host) group */
        const char *job = fr->job < st->n_jobs ? st->jobs[fr->job].name : "flows";
        sim_time end = fr->end_ps ? fr->end_ps : st->end_ps;
        uint32_t lane = 0;
        while (lane < n_lanes && lane_end[lane] > fr->start_ps)
            lane++;
        if (lane == n_lanes)
            n_lanes++;
        lane_end[lane] = end;
        char thread[48], name[80];
        if (lane)
            snprintf(thread, sizeof thread, "h%u #%u", fr->src_host, lane + 1);
        else
            snprintf(thread, sizeof thread, "h%u", fr->src_host);
        snprintf(name, sizeof name, "flow %" PRIu64 " h%u->h%u%s", idx[k], fr->src_host,
                 fr->dst_host, fr->end_ps ? "" : " (not done)");
        uint32_t pid = trace_process(tw, job);
        uint32_t tid = trace_thread(tw, pid, thread);
        trace_complete(tw, pid, tid, name, "flow", fr->start_ps, end - fr->start_ps);
    }
    xfree(lane_end);
    xfree(idx);
    /* queue depth of the hottest sampled ports */
    if (t->smp) {
        const sampler *s = t->smp;
        uint32_t hot[TRACE_HOT_PORTS];
        uint64_t hotq[TRACE_HOT_PORTS];
        int nh = 0;
        for (uint32_t i = 0; i < sampler_n_ports(s); i++) {
            uint64_t q = sampler_port_max_queue(s, i);
            if (!q)
                continue;
            int at = nh < TRACE_HOT_PORTS ? nh++ : TRACE_HOT_PORTS;
            if (at == TRACE_HOT_PORTS && q <= hotq[TRACE_HOT_PORTS - 1])
                continue;
            if (at == TRACE_HOT_PORTS)
                at = TRACE_HOT_PORTS - 1;
            while (at > 0 && hotq[at - 1] < q) {
                hot[at] = hot[at - 1];
                hotq[at] = hotq[at - 1];
                at--;
            }
            hot[at] = i;
            hotq[at] = q;
        }
        uint32_t pid = trace_process(tw, "fabric queues");
        for (int h = 0; h < nh; h++) {
            char name[80], pn[64];
            net_port_name(sampler_port(s, hot[h]), pn, sizeof pn);
            snprintf(name, sizeof name, "queue_bytes %s", pn);
            trace_counter(tw, pid, name, 0, 0.0);
            for (uint32_t r = 0; r < sampler_rows(s); r++)
                trace_counter(tw, pid, name, sampler_row_time(s, r),
                              (double)sampler_queue(s, r, hot[h]));
        }
    }
    return trace_write_json(f, tw);
}
