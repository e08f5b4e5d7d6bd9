/*
 * summary.c — summary.json and the human summary of a run (see summary.h).
 *
 * summary.json follows spec/scenario.md key for key and in that order; additions (documented in
 * README.md "Output files") come after the spec's keys of the same object so that a reader of
 * the spec finds what it expects where it expects it:
 *   sim.packet_hops, sim.hit_stop_at, sim.interrupted, sim.deadlock{detected, at_ps, cycle};
 *   jobs[].completed, .flows, .flows_completed; drops.ttl, drops.pfc_headroom; fabric.tx_wire_bytes;
 *   sim.end_reason; jobs[].failed, .failed_at_ps, .reason; nics.naks_sent, .naks_received,
 *   .qps_failed, .qps_failed_over, .ooo_placement, .failovers[]; sim.active_start_ps;
 *   jobs[].ideal_jct_ps, .ideal_basis, .jct_over_ideal; the "diagnosis" array (report/diagnose.h);
 *   the "conservation" object (payload bytes: sent = delivered + dropped + trimmed + in flight);
 *   fabric.trimmed, nics.trims_received, conservation.trimmed_bytes (UET packet trimming).
 * Collective jobs carry "op" and "algorithm", traffic jobs "pattern"; training jobs carry "tp",
 * "pp", "dp", "micro_batches", "bucket_bytes", a "breakdown" object in each iteration and one
 * averaged over the iterations after "iterations", and "tasks_done" / "tasks_total" (progress of
 * an iteration cut short by stop_at).
 *
 * The human summary is for a person at a terminal: quantities are scaled to readable units, only
 * non-zero drop reasons are listed, and the five ports with the deepest queues are shown because
 * that is where a network engineer looks first for the cause of a long JCT.
 */
#include "summary.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "../net/packet.h"
#include "../workload/fault.h"

/* JSON names of drop reasons, in enum drop_reason order. Kept here (not drop_reason_name())
 * because these strings are a published contract of summary.json. */
static const char *const drop_keys[DROP_REASONS] = {
    [DROP_BUFFER_FULL] = "buffer_full",   [DROP_LINK_DOWN] = "link_down",
    [DROP_BIT_ERROR] = "bit_error",       [DROP_NO_ROUTE] = "no_route",
    [DROP_PFC_WATCHDOG] = "pfc_watchdog", [DROP_TTL] = "ttl",
    [DROP_PFC_HEADROOM] = "pfc_headroom",
};

static int stream_status(FILE *f)
{
    return ferror(f) ? -1 : 0;
}

static void key_u64(jsonw *w, const char *k, uint64_t v)
{
    jsonw_key(w, k);
    jsonw_u64(w, v);
}

static void key_double(jsonw *w, const char *k, double v)
{
    jsonw_key(w, k);
    jsonw_double(w, v);
}

/* fabric.networks: the port counters of each network apart (ports of its switches and hosts;
 * a link between two networks, as a converged storage leaf's uplink, counts each direction
 * for the network of the port that sends it). Written only when the fabric has a storage or
 * frontend network. */
static void write_networks(jsonw *w, const run_stats *st)
{
    jsonw_key(w, "networks");
    jsonw_obj_begin(w);
    for (int k = 0; k < NETWORKS_N; k++) {
        uint64_t tx = 0, wire = 0, ecn = 0, pause = 0, paused = 0, drops = 0, ports = 0;
        double util = 0;
        for (uint32_t i = 0; i < st->n_ports; i++) {
            const port_record *p = &st->ports[i];
            if (p->network != k)
                continue;
            ports++;
            tx += p->tx_bytes;
            wire += p->tx_wire_bytes;
            ecn += p->ecn_marked;
            pause += p->pfc_pause_sent;
            paused += p->pfc_paused_ps;
            for (int r = 0; r < DROP_REASONS; r++)
                drops += p->drops[r];
            util = p->utilization > util ? p->utilization : util;
        }
        if (!ports)
            continue;
        jsonw_key(w, network_name((enum network_id)k));
        jsonw_obj_begin(w);
        key_u64(w, "ports", ports);
        key_u64(w, "tx_bytes", tx);
        key_u64(w, "tx_wire_bytes", wire);
        key_double(w, "max_link_utilization", util);
        key_u64(w, "ecn_marked", ecn);
        key_u64(w, "pfc_pause_sent", pause);
        key_u64(w, "pfc_paused_ps", paused);
        key_u64(w, "drops", drops);
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void key_str(jsonw *w, const char *k, const char *v)
{
    jsonw_key(w, k);
    jsonw_str(w, v);
}

/* Training: where an iteration's time went, averaged over ranks (exposed communication: the GPU
 * idle with only that to blame; *_comm_ps: in flight, exposed or hidden). */
static void write_breakdown(jsonw *w, const train_iter *b)
{
    jsonw_key(w, "breakdown");
    jsonw_obj_begin(w);
    key_u64(w, "compute_ps", b->compute_ps);
    key_u64(w, "exposed_tp_ps", b->tp_ps);
    key_u64(w, "exposed_ep_ps", b->ep_ps);
    key_u64(w, "exposed_pp_ps", b->pp_ps);
    key_u64(w, "exposed_dp_ps", b->dp_ps);
    key_u64(w, "bubble_ps", b->bubble_ps);
    key_u64(w, "tp_comm_ps", b->tp_comm_ps);
    key_u64(w, "ep_comm_ps", b->ep_comm_ps);
    key_u64(w, "pp_comm_ps", b->pp_comm_ps);
    key_u64(w, "dp_comm_ps", b->dp_comm_ps);
    key_u64(w, "slowest_rank", b->slowest_rank);
    key_u64(w, "slowest_rank_compute_ps", b->slowest_compute_ps);
    jsonw_obj_end(w);
}

/* Chakra jobs: the trace's size, each rank's time split (over all iterations) and the last
 * iteration's critical path (run.h chakra_rank_result, chakra_path). */
static void write_chakra(jsonw *w, const job_result *j)
{
    key_u64(w, "trace_files", j->chakra_files);
    key_u64(w, "nodes", j->chakra_nodes);
    key_u64(w, "tasks_done", j->tasks_done);
    key_u64(w, "tasks_total", j->tasks_total);
    jsonw_key(w, "per_rank");
    jsonw_arr_begin(w);
    for (uint32_t r = 0; j->rank_results && r < j->ranks; r++) {
        const chakra_rank_result *R = &j->rank_results[r];
        jsonw_obj_begin(w);
        key_u64(w, "rank", r);
        key_u64(w, "gpu", R->gpu);
        key_u64(w, "compute_ps", R->compute_ps);
        key_u64(w, "exposed_comm_ps", R->comm_ps);
        key_u64(w, "idle_ps", R->idle_ps);
        key_u64(w, "done_ps", R->done_ps);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "critical_path");
    jsonw_obj_begin(w);
    key_u64(w, "ops", j->path.ops);
    key_u64(w, "compute_ps", j->path.compute_ps);
    key_u64(w, "comm_ps", j->path.comm_ps);
    key_u64(w, "wait_ps", j->path.wait_ps);
    key_u64(w, "last_rank", j->path.last_rank);
    key_str(w, "last_op", j->path.last);
    jsonw_obj_end(w);
}

static void write_latency(jsonw *w, const char *k, sim_time mean, sim_time p50, sim_time p90,
                          sim_time p99, sim_time max)
{
    jsonw_key(w, k);
    jsonw_obj_begin(w);
    key_u64(w, "mean", mean);
    key_u64(w, "p50", p50);
    key_u64(w, "p90", p90);
    key_u64(w, "p99", p99);
    key_u64(w, "max", max);
    jsonw_obj_end(w);
}

/* Inference: requests served, their latencies and the throughput (infer_exec.h). */
static void write_inference(jsonw *w, const infer_result *r)
{
    jsonw_key(w, "inference");
    jsonw_obj_begin(w);
    key_u64(w, "replicas", r->replicas);
    key_u64(w, "prefill_replicas", r->prefill_replicas);
    key_u64(w, "decode_replicas", r->decode_replicas);
    key_u64(w, "requests", r->requests);
    key_u64(w, "requests_completed", r->requests_done);
    key_u64(w, "prompt_tokens", r->prompt_tokens);
    key_u64(w, "output_tokens", r->output_tokens);
    write_latency(w, "ttft_ps", r->ttft_mean_ps, r->ttft_p50_ps, r->ttft_p90_ps, r->ttft_p99_ps,
                  r->ttft_max_ps);
    write_latency(w, "tpot_ps", r->tpot_mean_ps, r->tpot_p50_ps, r->tpot_p90_ps, r->tpot_p99_ps,
                  r->tpot_max_ps);
    key_double(w, "output_tokens_per_s", r->tokens_per_s);
    key_double(w, "requests_per_s", r->requests_per_s);
    key_u64(w, "prefill_steps", r->prefill_steps);
    key_u64(w, "decode_steps", r->decode_steps);
    key_double(w, "mean_decode_batch", r->mean_decode_batch);
    key_u64(w, "kv_transfer_bytes", r->kv_bytes);
    key_u64(w, "tp_message_bytes", r->tp_net_bytes);
    key_u64(w, "ep_message_bytes", r->ep_net_bytes);
    key_u64(w, "pp_message_bytes", r->pp_net_bytes);
    jsonw_obj_end(w);
}

static void write_job(jsonw *w, const job_result *j)
{
    jsonw_obj_begin(w);
    key_str(w, "name", j->name);
    key_str(w, "kind", job_kind_name(j->kind));
    if (j->kind == JOB_COLLECTIVE) {
        key_str(w, "op", coll_op_name(j->op));
        key_str(w, "algorithm", coll_algo_name(j->algorithm));
    } else if (j->kind == JOB_TRAFFIC) {
        key_str(w, "pattern", pattern_name(j->pattern));
        if (j->size_cdf)
            key_str(w, "size_cdf", j->size_cdf);
    }
    key_u64(w, "ranks", j->ranks);
    if (j->kind == JOB_TRAINING || j->kind == JOB_INFERENCE) {
        key_u64(w, "tp", j->tp);
        key_u64(w, "pp", j->pp);
        key_u64(w, "dp", j->dp);
        if (j->kind == JOB_TRAINING) {
            key_u64(w, "micro_batches", j->micro_batches);
            key_u64(w, "bucket_bytes", j->bucket_bytes); /* resolved: `auto` depends on dp */
        }
    }
    key_u64(w, "size_bytes", j->size_bytes);
    key_u64(w, "start_ps", j->start_ps);
    key_u64(w, "end_ps", j->end_ps);
    key_u64(w, "jct_ps", j->jct_ps);
    jsonw_key(w, "iterations");
    jsonw_arr_begin(w);
    for (uint32_t i = 0; i < j->n_iterations; i++) {
        const iter_result *it = &j->iterations[i];
        jsonw_obj_begin(w);
        key_u64(w, "time_ps", it->time_ps);
        key_double(w, "algbw_GBps", it->algbw_GBps);
        key_double(w, "busbw_GBps", it->busbw_GBps);
        if (j->kind == JOB_TRAINING)
            write_breakdown(w, &it->train);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    if (j->kind == JOB_TRAINING) {
        write_breakdown(w, &j->train_mean);
        key_u64(w, "tasks_done", j->tasks_done);
        key_u64(w, "tasks_total", j->tasks_total);
    }
    if (j->kind == JOB_CHAKRA)
        write_chakra(w, j);
    if (j->kind == JOB_INFERENCE)
        write_inference(w, &j->infer);
    key_double(w, "algbw_GBps", j->algbw_GBps);
    key_double(w, "busbw_GBps", j->busbw_GBps);
    jsonw_key(w, "completed");
    jsonw_bool(w, j->completed);
    key_u64(w, "flows", j->flows);
    key_u64(w, "flows_completed", j->flows_completed);
    /* `run --isolated`: the same job alone, and the cost of sharing (0 when not measured) */
    key_u64(w, "isolated_jct_ps", j->isolated_jct_ps);
    key_double(w, "slowdown", j->slowdown);
    /* a failed job stopped its work: which QP, when and why */
    jsonw_key(w, "failed");
    jsonw_bool(w, j->failed);
    key_u64(w, "failed_at_ps", j->failed_at_ps);
    key_str(w, "reason", j->reason);
    /* checkpoint/restart (training jobs with a checkpoint block, or hit by a gpu-fail) */
    if (j->checkpointing || j->restarts || j->lost_ps) {
        key_u64(w, "restarts", j->restarts);
        key_u64(w, "checkpoint_writes", j->ckpt_writes);
        key_u64(w, "checkpoint_ps", j->ckpt_ps);
        key_u64(w, "lost_work_ps", j->lost_ps);
        key_u64(w, "restart_ps", j->restart_ps);
    }
    /* storage I/O over fabric.storage: checkpoint writes of `size`, model load */
    if (j->ckpt_bytes) {
        key_u64(w, "checkpoint_bytes", j->ckpt_bytes);
        key_u64(w, "checkpoint_io_ps", j->ckpt_io_ps);
    }
    if (j->load_bytes) {
        key_u64(w, "model_load_bytes", j->load_bytes);
        key_u64(w, "model_load_ps", j->load_ps);
    }
    if (j->ds_bytes) {
        key_u64(w, "dataset_bytes", j->ds_bytes);
        key_u64(w, "dataset_batches", j->ds_batches);
        key_u64(w, "dataset_read_ps", j->ds_read_ps);
        key_u64(w, "dataset_stall_ps", j->ds_stall_ps);
    }
    /* the lower bound this fabric allows (workload/ideal.h) and the JCT against it */
    key_u64(w, "ideal_jct_ps", j->ideal_jct_ps);
    key_str(w, "ideal_basis", j->ideal_basis);
    key_double(w, "jct_over_ideal", j->jct_over_ideal);
    jsonw_obj_end(w);
}

static void key_time_or_null(jsonw *w, const char *k, sim_time t)
{
    jsonw_key(w, k);
    if (t == SIM_TIME_MAX)
        jsonw_null(w);
    else
        jsonw_u64(w, t);
}

void summary_fault_reroute(char *buf, size_t len, const cfg_fault *c, const fault_record *r)
{
    char a[32], b[32], c3[32];
    buf[0] = '\0';
    if (!r->fired)
        return;
    bool routed = c->kind == FAULT_LINK_DOWN || c->kind == FAULT_LINK_FLAP ||
                  c->kind == FAULT_SWITCH_DOWN || c->kind == FAULT_SWITCH_DRAIN ||
                  c->kind == FAULT_LINK_UP;
    if (!routed)
        return;
    size_t k = 0;
    if (r->local_reroute_ps != SIM_TIME_MAX && c->kind != FAULT_SWITCH_DRAIN)
        k += (size_t)snprintf(buf + k, len - k, "local fast reroute at %s; ",
                              summary_fmt_time(a, sizeof a, r->local_reroute_ps));
    if (c->kind == FAULT_SWITCH_DRAIN)
        k += (size_t)snprintf(buf + k, len - k, "drained (graceful shutdown) over %s; ",
                              summary_fmt_time(a, sizeof a, c->converge_ps));
    if (k < len)
        snprintf(buf + k, len - k, "remote detect %s + converge %s%s%s",
                 summary_fmt_time(a, sizeof a, c->detect_ps),
                 summary_fmt_time(b, sizeof b, c->converge_ps),
                 r->converged_ps != SIM_TIME_MAX ? ", last reconverged at " : " (not reached)",
                 r->converged_ps != SIM_TIME_MAX ? summary_fmt_time(c3, sizeof c3, r->converged_ps)
                                                 : "");
}

/* "faults": what each fault did, and the timeline of fault events. */
static void write_faults(jsonw *w, const scenario *sc, const run_stats *st)
{
    jsonw_key(w, "faults");
    jsonw_arr_begin(w);
    for (uint32_t i = 0; i < st->n_faults; i++) {
        const fault_record *r = &st->faults[i];
        const cfg_fault *c = &sc->faults[i];
        char why[256];
        jsonw_obj_begin(w);
        key_str(w, "kind", fault_kind_name(c->kind));
        key_str(w, "target", r->target);
        key_u64(w, "at_ps", r->at_ps);
        jsonw_key(w, "fired");
        jsonw_bool(w, r->fired);
        key_time_or_null(w, "end_ps", r->end_ps);
        switch (c->kind) {
        case FAULT_LINK_DOWN:
        case FAULT_LINK_UP:
        case FAULT_LINK_FLAP:
        case FAULT_SWITCH_DOWN:
        case FAULT_SWITCH_DRAIN:
            key_time_or_null(w, "local_reroute_ps", r->local_reroute_ps);
            key_time_or_null(w, "converged_ps", r->converged_ps);
            summary_fault_reroute(why, sizeof why, c, r);
            key_str(w, "reroute", why);
            if (c->kind == FAULT_LINK_FLAP)
                key_u64(w, "transitions", r->transitions);
            break;
        case FAULT_LINK_DEGRADED:
            key_u64(w, "rate_bps", r->rate_bps);
            key_u64(w, "orig_rate_bps", r->orig_rate_bps);
            break;
        case FAULT_LINK_BER:
            key_double(w, "ber", c->ber);
            key_str(w, "ber_at", c->ber_pre_fec ? "pre-fec" : "post-fec");
            key_double(w, "frame_loss_4k", r->frame_loss_4k);
            key_u64(w, "corrupted_frames", r->corrupted);
            break;
        default:
            break;
        }
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "fault_timeline");
    jsonw_arr_begin(w);
    for (uint32_t i = 0; i < st->n_fault_log; i++) {
        jsonw_obj_begin(w);
        key_u64(w, "t_ps", st->fault_log[i].t_ps);
        key_u64(w, "fault", st->fault_log[i].fault);
        key_str(w, "what", st->fault_log[i].what);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    key_u64(w, "fault_timeline_total", st->fault_log_total);
}

static void write_goodput_out(jsonw *w, const goodput_out *o)
{
    key_double(w, "wall_mean_s", o->mean_s);
    key_double(w, "wall_p50_s", o->p50_s);
    key_double(w, "wall_p90_s", o->p90_s);
    key_double(w, "goodput_mean", o->goodput_mean);
    key_double(w, "goodput_p50", o->goodput_p50);
    key_double(w, "goodput_p90", o->goodput_p90);
    key_double(w, "interruptions_mean", o->failures_mean);
    key_double(w, "expected_wall_s", o->expected_s);
}

static void write_goodput(jsonw *w, const scenario *sc, const run_stats *st)
{
    const goodput_result *g = &st->goodput;
    jsonw_key(w, "goodput");
    jsonw_obj_begin(w);
    key_str(w, "job", sc->jobs[g->job].name);
    jsonw_key(w, "ok");
    jsonw_bool(w, g->ok);
    key_str(w, "why", g->why);
    key_u64(w, "iterations", g->iterations);
    key_u64(w, "samples", g->samples);
    key_double(w, "iteration_s", g->iter_s);
    key_double(w, "checkpoint_write_s", g->write_s);
    key_double(w, "restart_s", g->restart_s);
    jsonw_key(w, "footprint");
    jsonw_obj_begin(w);
    key_u64(w, "gpus", g->gpus);
    key_u64(w, "nics", g->nics);
    key_u64(w, "links", g->links);
    key_u64(w, "leaves", g->leaves);
    key_u64(w, "servers", g->servers);
    jsonw_obj_end(w);
    key_double(w, "interruptions_per_hour", g->lambda_per_h);
    key_u64(w, "interval", g->interval);
    jsonw_key(w, "at_interval");
    jsonw_obj_begin(w);
    if (g->ok)
        write_goodput_out(w, &g->at_interval);
    jsonw_obj_end(w);
    key_u64(w, "best_interval", g->best_interval);
    jsonw_key(w, "at_best");
    jsonw_obj_begin(w);
    if (g->ok)
        write_goodput_out(w, &g->best);
    jsonw_obj_end(w);
    key_double(w, "young_interval", g->young_iters);
    key_double(w, "daly_interval", g->daly_iters);
    jsonw_obj_end(w);
}

/* Flow level (docs/fidelity.md): the fluid's own figures, and the keys of this file that only
 * packets make — they are written as 0 and listed here as not modelled. */
static const char *const NOT_MODELLED[] = {"sim.packet_hops",
                                           "fabric.ecn_marked",
                                           "fabric.pfc_pause_sent",
                                           "fabric.pfc_paused_ps",
                                           "fabric.pfc_watchdog_events",
                                           "fabric.drops",
                                           "fabric.trimmed",
                                           "nics.cnp_sent",
                                           "nics.cnp_handled",
                                           "nics.retransmitted_packets",
                                           "nics.out_of_sequence",
                                           "nics.rto_events",
                                           "nics.naks_sent",
                                           "nics.naks_received",
                                           "nics.trims_received",
                                           "conservation.dropped_bytes",
                                           "conservation.trimmed_bytes",
                                           "conservation.inflight_bytes",
                                           "ports.max_queue_bytes",
                                           "ports.ecn_marked",
                                           "ports.pfc_*",
                                           "ports.drops",
                                           "queues",
                                           "timeseries.queue_bytes",
                                           "timeseries.pfc_paused_mask",
                                           NULL};

static void write_flow_level(jsonw *w, const run_stats *st)
{
    jsonw_key(w, "flow_level");
    jsonw_obj_begin(w);
    key_u64(w, "fluid_flows", st->fluid_flows);
    key_u64(w, "coalesced_pieces", st->coalesced_pieces);
    key_u64(w, "rate_solves", st->rate_solves);
    key_u64(w, "rate_fast_updates", st->rate_fast);
    key_u64(w, "rate_commits", st->rate_commits);
    key_u64(w, "reroutes", st->flow_reroutes);
    key_u64(w, "max_live_flows", st->fluid_max_live);
    key_u64(w, "one_event_pieces", st->one_event_pieces);
    key_u64(w, "reused_flows", st->reused_flows);
    jsonw_key(w, "not_modelled");
    jsonw_arr_begin(w);
    for (int i = 0; NOT_MODELLED[i]; i++)
        jsonw_str(w, NOT_MODELLED[i]);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

int summary_write_json(FILE *f, const scenario *sc, const run_stats *st)
{
    jsonw w;
    jsonw_init(&w, f, true);
    jsonw_obj_begin(&w);
    key_str(&w, "tool", "wirerate");
    key_str(&w, "version", WR_VERSION);
    key_str(&w, "scenario", sc->name);
    key_u64(&w, "seed", sc->seed);

    jsonw_key(&w, "sim");
    jsonw_obj_begin(&w);
    key_u64(&w, "end_ps", st->end_ps);
    key_u64(&w, "events", st->events);
    key_double(&w, "wall_s", st->wall_s);
    key_double(&w, "events_per_s", st->events_per_s);
    key_u64(&w, "peak_rss_bytes", st->peak_rss_bytes);
    /* (after the spec's keys) the wall clock of the set-up before the simulation: wall_s is
     * the simulation's alone */
    key_double(&w, "setup_s", st->setup_s);
    key_u64(&w, "packet_hops", st->packet_hops);
    jsonw_key(&w, "hit_stop_at");
    jsonw_bool(&w, st->hit_stop_at);
    jsonw_key(&w, "interrupted");
    jsonw_bool(&w, st->interrupted);
    jsonw_key(&w, "deadlock");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "detected");
    jsonw_bool(&w, st->deadlock);
    key_u64(&w, "at_ps", st->deadlock_at_ps);
    key_str(&w, "cycle", st->deadlock_cycle);
    jsonw_obj_end(&w);
    key_str(&w, "end_reason", end_reason_name(st->end_reason));
    /* utilizations are over [active_start_ps, end_ps]: the jobs' active window */
    key_u64(&w, "active_start_ps", st->active_start_ps);
    key_str(&w, "fidelity", fidelity_name((enum fidelity)st->fidelity));
    if (st->fidelity == FIDELITY_FLOW)
        write_flow_level(&w, st);
    jsonw_obj_end(&w);

    jsonw_key(&w, "jobs");
    jsonw_arr_begin(&w);
    for (uint32_t i = 0; i < st->n_jobs; i++)
        write_job(&w, &st->jobs[i]);
    jsonw_arr_end(&w);

    jsonw_key(&w, "flows");
    jsonw_obj_begin(&w);
    key_u64(&w, "count", st->n_flows);
    key_u64(&w, "completed", st->flows_completed);
    jsonw_key(&w, "fct_ps");
    jsonw_obj_begin(&w);
    key_u64(&w, "p50", st->fct_p50_ps);
    key_u64(&w, "p99", st->fct_p99_ps);
    key_u64(&w, "max", st->fct_max_ps);
    jsonw_obj_end(&w);
    jsonw_obj_end(&w);

    jsonw_key(&w, "fabric");
    jsonw_obj_begin(&w);
    key_u64(&w, "tx_bytes", st->tx_bytes);
    key_double(&w, "max_link_utilization", st->max_link_utilization);
    key_u64(&w, "ecn_marked", st->ecn_marked);
    key_u64(&w, "pfc_pause_sent", st->pfc_pause_sent);
    key_u64(&w, "pfc_paused_ps", st->pfc_paused_ps);
    key_u64(&w, "pfc_watchdog_events", st->pfc_watchdog_events);
    jsonw_key(&w, "drops");
    jsonw_obj_begin(&w);
    for (int r = 0; r < DROP_REASONS; r++)
        key_u64(&w, drop_keys[r], st->drops[r]);
    jsonw_obj_end(&w);
    key_u64(&w, "trimmed", st->trimmed);
    key_u64(&w, "tx_wire_bytes", st->tx_wire_bytes);
    key_str(&w, "link_layer", st->infiniband ? "infiniband" : "ethernet");
    if (st->infiniband) {
        /* credit-based flow control and IB CC; BECNs are nics.cnp_sent / cnp_handled */
        jsonw_key(&w, "infiniband");
        jsonw_obj_begin(&w);
        key_u64(&w, "credit_stall_ps", st->credit_stall_ps);
        key_u64(&w, "fcp_sent", st->fcp_sent);
        key_u64(&w, "fecn_marked", st->fecn_marked);
        key_u64(&w, "becn_sent", st->cnp_sent);
        key_u64(&w, "becn_handled", st->cnp_handled);
        jsonw_obj_end(&w);
    }
    if (st->networks)
        write_networks(&w, st);
    jsonw_obj_end(&w);

    jsonw_key(&w, "nics");
    jsonw_obj_begin(&w);
    key_u64(&w, "cnp_sent", st->cnp_sent);
    key_u64(&w, "cnp_handled", st->cnp_handled);
    key_u64(&w, "retransmitted_packets", st->retransmitted_packets);
    key_u64(&w, "out_of_sequence", st->out_of_sequence);
    key_u64(&w, "rto_events", st->rto_events);
    key_u64(&w, "naks_sent", st->naks_sent);
    key_u64(&w, "naks_received", st->naks_received);
    key_u64(&w, "qps_failed", st->qps_failed);
    key_u64(&w, "qps_failed_over", st->qps_failed_over);
    key_u64(&w, "trims_received", st->trims_received);
    jsonw_key(&w, "ooo_placement");
    jsonw_bool(&w, st->ooo_placement);
    jsonw_key(&w, "failovers");
    jsonw_arr_begin(&w);
    for (uint32_t i = 0; i < st->n_failovers && i < RUN_MAX_FAILOVER_RECORDS; i++) {
        const failover_record *fr = &st->failovers[i];
        jsonw_obj_begin(&w);
        key_u64(&w, "from_host", fr->from_host);
        key_u64(&w, "to_host", fr->to_host);
        key_u64(&w, "at_ps", fr->at_ps);
        key_u64(&w, "qps", fr->qps);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);

    jsonw_key(&w, "conservation");
    jsonw_obj_begin(&w);
    key_u64(&w, "sent_bytes", st->sent_bytes);
    key_u64(&w, "delivered_bytes", st->delivered_bytes);
    key_u64(&w, "dropped_bytes", st->dropped_bytes);
    key_u64(&w, "trimmed_bytes", st->trimmed_bytes);
    key_u64(&w, "inflight_bytes", st->inflight_bytes);
    key_u64(&w, "scale_up_bytes", st->scale_up_bytes);
    jsonw_obj_end(&w);

    if (st->n_tenants) {
        jsonw_key(&w, "tenants");
        jsonw_obj_begin(&w);
        key_str(&w, "vtep", st->vtep == VTEP_HOST ? "host" : "leaf");
        key_u64(&w, "vxlan_overhead_bytes", WIRE_VXLAN_OVERHEAD);
        jsonw_key(&w, "list");
        jsonw_arr_begin(&w);
        for (uint32_t k = 0; k < st->n_tenants; k++) {
            const tenant_record *t = &st->tenants[k];
            jsonw_obj_begin(&w);
            key_str(&w, "name", t->name);
            key_u64(&w, "vni", t->vni);
            key_u64(&w, "jobs", t->jobs);
            key_u64(&w, "gpus", t->gpus);
            key_u64(&w, "hosts", t->hosts);
            key_u64(&w, "nic_tx_bytes", t->nic_tx_bytes);
            key_u64(&w, "nic_tx_packets", t->nic_tx_packets);
            key_u64(&w, "fabric_tx_bytes", t->fabric_tx_bytes);
            key_u64(&w, "fabric_tx_packets", t->fabric_tx_packets);
            key_u64(&w, "delivered_bytes", t->delivered_bytes);
            key_u64(&w, "drops", t->drops);
            key_u64(&w, "ecn_marked", t->ecn_marked);
            jsonw_obj_end(&w);
        }
        jsonw_arr_end(&w);
        jsonw_obj_end(&w);
    }
    if (st->n_faults)
        write_faults(&w, sc, st);
    if (st->goodput.on)
        write_goodput(&w, sc, st);

    /* report/diagnose.h: the reasons, most severe first (empty when nothing fired) */
    diagnosis diag[DIAG_MAX];
    int nd = diagnose_run(st, diag, DIAG_MAX);
    jsonw_key(&w, "diagnosis");
    jsonw_arr_begin(&w);
    for (int i = 0; i < nd; i++) {
        jsonw_obj_begin(&w);
        key_str(&w, "rule", diag[i].rule);
        key_str(&w, "text", diag[i].text);
        key_u64(&w, "cost_ps", diag[i].cost_ps);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);

    jsonw_obj_end(&w);
    jsonw_end(&w);
    return stream_status(f);
}

/* ---- human summary ------------------------------------------------------------------------ */

char *summary_fmt_time(char *buf, size_t len, sim_time ps)
{
    static const struct {
        sim_time div;
        const char *unit;
    } u[] = {
        {SIM_S, "s"},
        {SIM_MS, "ms"},
        {SIM_US, "us"},
        {SIM_NS, "ns"},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        if (ps >= u[i].div) {
            snprintf(buf, len, "%.3f %s", (double)ps / (double)u[i].div, u[i].unit);
            return buf;
        }
    }
    snprintf(buf, len, "%" PRIu64 " ps", ps);
    return buf;
}

/* Decimal prefixes, as the spec's units (KB = 10^3). */
char *summary_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
    static const char *const unit[] = {"KB", "MB", "GB", "TB", "PB"};
    if (bytes < 1000) {
        snprintf(buf, len, "%" PRIu64 " B", bytes);
        return buf;
    }
    double v = (double)bytes / 1000.0;
    size_t i = 0;
    while (v >= 1000.0 && i + 1 < sizeof unit / sizeof unit[0]) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, len, "%.2f %s", v, unit[i]);
    return buf;
}

/* A count with SI suffix for large magnitudes: 987, 12.3 k, 4.56 M, 7.89 G. */
static char *fmt_count(char *buf, size_t len, double v)
{
    if (v < 1e3)
        snprintf(buf, len, "%.0f", v);
    else if (v < 1e6)
        snprintf(buf, len, "%.1f k", v / 1e3);
    else if (v < 1e9)
        snprintf(buf, len, "%.2f M", v / 1e6);
    else
        snprintf(buf, len, "%.2f G", v / 1e9);
    return buf;
}

/* Wall-clock seconds: milliseconds below one second, so short runs do not print "0.000 s". */
static char *fmt_wall(char *buf, size_t len, double s)
{
    if (s < 1.0)
        snprintf(buf, len, "%.1f ms", s * 1e3);
    else
        snprintf(buf, len, "%.2f s", s);
    return buf;
}

static uint64_t port_drops(const port_record *p)
{
    uint64_t n = 0;
    for (int r = 0; r < DROP_REASONS; r++)
        n += p->drops[r];
    return n;
}

/* Deepest queue first; ties by port index so the listing is deterministic. */
static const port_record *sort_base;
static int cmp_port_queue(const void *a, const void *b)
{
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    uint64_t qa = sort_base[ia].max_queue_bytes, qb = sort_base[ib].max_queue_bytes;
    if (qa != qb)
        return qa > qb ? -1 : 1;
    return ia < ib ? -1 : (ia > ib);
}

#define TOP_PORTS 5

/* Flow level: no queues; the busiest links instead (utilization, then index). */
static int cmp_port_util(const void *a, const void *b)
{
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
    double ua = sort_base[ia].utilization, ub = sort_base[ib].utilization;
    if (ua != ub)
        return ua > ub ? -1 : 1;
    return ia < ib ? -1 : (ia > ib);
}

static void write_busiest_ports(FILE *f, const run_stats *st)
{
    uint32_t top[TOP_PORTS];
    int n = 0;
    sort_base = st->ports;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        if (st->ports[i].tx_bytes == 0)
            continue;
        if (n < TOP_PORTS)
            top[n++] = i;
        else if (cmp_port_util(&i, &top[n - 1]) < 0)
            top[n - 1] = i;
        else
            continue;
        qsort(top, (size_t)n, sizeof top[0], cmp_port_util);
    }
    fprintf(f, "\nports (%" PRIu32 "), busiest (flow-level: no queues)\n", st->n_ports);
    if (n == 0) {
        fputs("  no port carried data\n", f);
        return;
    }
    int wname = 4;
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(st->ports[top[i]].name);
        if (l > wname)
            wname = l;
    }
    char a[32];
    fprintf(f, "  %-*s  %12s  %8s\n", wname, "port", "tx", "util");
    for (int i = 0; i < n; i++) {
        const port_record *p = &st->ports[top[i]];
        fprintf(f, "  %-*s  %12s  %6.1f %%\n", wname, p->name,
                summary_fmt_bytes(a, sizeof a, p->tx_bytes), 100.0 * p->utilization);
    }
}

static void write_top_ports(FILE *f, const run_stats *st)
{
    if (st->fidelity == FIDELITY_FLOW) {
        write_busiest_ports(f, st);
        return;
    }
    /* Partial selection into a fixed array: at most TOP_PORTS kept, O(ports × 5). A full sort
     * would need an allocation proportional to the port count for five lines of output. */
    uint32_t top[TOP_PORTS];
    int n = 0;
    sort_base = st->ports;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        if (st->ports[i].max_queue_bytes == 0)
            continue;
        if (n < TOP_PORTS) {
            top[n++] = i;
        } else if (cmp_port_queue(&i, &top[n - 1]) < 0) {
            top[n - 1] = i;
        } else {
            continue;
        }
        qsort(top, (size_t)n, sizeof top[0], cmp_port_queue);
    }
    fprintf(f, "\nports (%" PRIu32 "), deepest queues\n", st->n_ports);
    if (n == 0) {
        fputs("  no port ever queued a packet\n", f);
        return;
    }
    int wname = 4;
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(st->ports[top[i]].name);
        if (l > wname)
            wname = l;
    }
    bool ecn = st->ecn_marked != 0;
    bool pfc = st->pfc_pause_sent != 0 || st->pfc_paused_ps != 0;
    bool ib = st->infiniband;
    fprintf(f, "  %-*s  %12s  %10s  %8s%s%s%s\n", wname, "port", "max queue", "drops", "util",
            ecn ? "   ECN marks" : "", pfc ? "  PAUSE rx      paused" : "",
            ib ? "  FECN marks  credit stall" : "");
    for (int i = 0; i < n; i++) {
        const port_record *p = &st->ports[top[i]];
        char q[32];
        fprintf(f, "  %-*s  %12s  %10" PRIu64 "  %6.1f %%", wname, p->name,
                summary_fmt_bytes(q, sizeof q, p->max_queue_bytes), port_drops(p),
                100.0 * p->utilization);
        if (ecn)
            fprintf(f, "  %10" PRIu64, p->ecn_marked);
        if (pfc)
            fprintf(f, "  %8" PRIu64 "  %10s", p->pfc_pause_rx,
                    summary_fmt_time(q, sizeof q, p->pfc_paused_ps));
        if (ib)
            fprintf(f, "  %10" PRIu64 "  %12s", p->fecn_marked,
                    summary_fmt_time(q, sizeof q, p->credit_stall_ps));
        fputc('\n', f);
    }
}

static void job_kind_text(char *buf, size_t len, const job_result *j)
{
    if (j->kind == JOB_COLLECTIVE)
        snprintf(buf, len, "%s/%s", coll_op_name(j->op), coll_algo_name(j->algorithm));
    else if (j->kind == JOB_TRAFFIC)
        snprintf(buf, len, "traffic/%s", pattern_name(j->pattern));
    else
        snprintf(buf, len, "%s", job_kind_name(j->kind));
}

/* One line per training job: mean iteration and where it went (percent of the iteration). */
static void write_training_line(FILE *f, const job_result *j)
{
    if (j->kind != JOB_TRAINING)
        return;
    char it[32], a[32], bk[48] = "";
    if (j->dp > 1) /* the DP bucket (no DP collectives at dp 1) */
        snprintf(bk, sizeof bk, ", bucket %s", summary_fmt_bytes(a, sizeof a, j->bucket_bytes));
    if (!j->n_iterations) {
        fprintf(f,
                "  %s: tp %u pp %u dp %u, m %u%s: no iteration finished (%" PRIu64 " of %" PRIu64
                " tasks of iteration 1 done)\n",
                j->name, j->tp, j->pp, j->dp, j->micro_batches, bk, j->tasks_done, j->tasks_total);
        return;
    }
    sim_time sum = 0;
    for (uint32_t k = 0; k < j->n_iterations; k++)
        sum += j->iterations[k].time_ps;
    sim_time mean = sum / j->n_iterations;
    const train_iter *b = &j->train_mean;
    double d = mean ? 100.0 / (double)mean : 0;
    char ep[40] = ""; /* MoE jobs only: their exposed all_to_alls */
    if (b->ep_comm_ps)
        snprintf(ep, sizeof ep, " + EP %.1f %%", d * (double)b->ep_ps);
    fprintf(f,
            "  %s: tp %u pp %u dp %u, m %u%s: iteration %s (%u done) = compute %.1f %% + exposed "
            "TP %.1f %%%s + PP %.1f %% + DP %.1f %% + bubble %.1f %%; slowest rank %u (compute "
            "%s)\n",
            j->name, j->tp, j->pp, j->dp, j->micro_batches, bk,
            summary_fmt_time(it, sizeof it, mean), j->n_iterations, d * (double)b->compute_ps,
            d * (double)b->tp_ps, ep, d * (double)b->pp_ps, d * (double)b->dp_ps,
            d * (double)b->bubble_ps, b->slowest_rank,
            summary_fmt_time(a, sizeof a, b->slowest_compute_ps));
}

/* One line per Chakra job: the last iteration's critical path and the rank that ended last. */
static void write_chakra_line(FILE *f, const job_result *j)
{
    if (j->kind != JOB_CHAKRA)
        return;
    char a[32], b[32], c[32], d[32];
    if (!j->n_iterations) {
        fprintf(f,
                "  %s: chakra trace of %u ranks, %" PRIu64 " nodes: no iteration finished (%" PRIu64
                " of %" PRIu64 " operations done)\n",
                j->name, j->ranks, j->chakra_nodes, j->tasks_done, j->tasks_total);
        return;
    }
    uint32_t last = 0;
    for (uint32_t r = 0; j->rank_results && r < j->ranks; r++)
        if (j->rank_results[r].done_ps > j->rank_results[last].done_ps)
            last = r;
    fprintf(f,
            "  %s: chakra trace of %u ranks, %" PRIu64 " nodes; critical path (last iteration, %u "
            "ops, ends with \"%s\" on rank %u) = compute %s + communication %s + waiting %s; "
            "rank %u ends last (at %s)\n",
            j->name, j->ranks, j->chakra_nodes, j->path.ops, j->path.last, j->path.last_rank,
            summary_fmt_time(a, sizeof a, j->path.compute_ps),
            summary_fmt_time(b, sizeof b, j->path.comm_ps),
            summary_fmt_time(c, sizeof c, j->path.wait_ps), last,
            summary_fmt_time(d, sizeof d, j->rank_results ? j->rank_results[last].done_ps : 0));
}

/* One line per inference job: requests served, TTFT and TPOT percentiles, throughput. */
static void write_inference_line(FILE *f, const job_result *j)
{
    if (j->kind != JOB_INFERENCE)
        return;
    const infer_result *r = &j->infer;
    char a[32], b[32], c[32], d[32], e[32], g[32], pools[64];
    if (r->prefill_replicas)
        snprintf(pools, sizeof pools, "%u prefill + %u decode replicas", r->prefill_replicas,
                 r->decode_replicas);
    else
        snprintf(pools, sizeof pools, "%u replica%s", r->replicas, r->replicas == 1 ? "" : "s");
    fprintf(f, "  %s: %s of tp %u pp %u: %" PRIu64 "/%" PRIu64 " requests", j->name, pools, j->tp,
            j->pp, r->requests_done, r->requests);
    if (!r->requests_done) {
        fputs(" completed\n", f);
        return;
    }
    fprintf(f,
            "; TTFT p50 %s p90 %s p99 %s; TPOT p50 %s p90 %s p99 %s; %.0f output tokens/s, %.2f "
            "requests/s; mean decode batch %.1f\n",
            summary_fmt_time(a, sizeof a, r->ttft_p50_ps),
            summary_fmt_time(b, sizeof b, r->ttft_p90_ps),
            summary_fmt_time(c, sizeof c, r->ttft_p99_ps),
            summary_fmt_time(d, sizeof d, r->tpot_p50_ps),
            summary_fmt_time(e, sizeof e, r->tpot_p90_ps),
            summary_fmt_time(g, sizeof g, r->tpot_p99_ps), r->tokens_per_s, r->requests_per_s,
            r->mean_decode_batch);
}

static void write_jobs(FILE *f, const run_stats *st)
{
    fprintf(f, "\njobs (%" PRIu32 ")\n", st->n_jobs);
    if (st->n_jobs == 0)
        return;
    int wname = 4, wkind = 4;
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        char k[64];
        job_kind_text(k, sizeof k, &st->jobs[i]);
        int ln = (int)strlen(st->jobs[i].name), lk = (int)strlen(k);
        wname = ln > wname ? ln : wname;
        wkind = lk > wkind ? lk : wkind;
    }
    fprintf(f, "  %-*s  %-*s  %6s  %8s  %12s  %15s  %10s  %10s\n", wname, "name", wkind, "kind",
            "ranks", "size", "JCT", "flows done", "algbw", "busbw");
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        const job_result *j = &st->jobs[i];
        char k[64], sz[32], jct[32], fl[48], alg[32], bus[32];
        job_kind_text(k, sizeof k, j);
        summary_fmt_bytes(sz, sizeof sz, j->size_bytes);
        if (j->completed)
            summary_fmt_time(jct, sizeof jct, j->jct_ps);
        else
            snprintf(jct, sizeof jct, j->failed ? "FAILED" : "not done");
        snprintf(fl, sizeof fl, "%" PRIu64 "/%" PRIu64, j->flows_completed, j->flows);
        if (j->kind == JOB_COLLECTIVE && j->completed) {
            snprintf(alg, sizeof alg, "%.2f GB/s", j->algbw_GBps);
            snprintf(bus, sizeof bus, "%.2f GB/s", j->busbw_GBps);
        } else {
            snprintf(alg, sizeof alg, "-");
            snprintf(bus, sizeof bus, "-");
        }
        fprintf(f, "  %-*s  %-*s  %6" PRIu32 "  %8s  %12s  %15s  %10s  %10s\n", wname, j->name,
                wkind, k, j->ranks, sz, jct, fl, alg, bus);
    }
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        const job_result *j = &st->jobs[i];
        char t1[32], t2[32];
        if (j->completed && j->ideal_jct_ps)
            fprintf(f, "  %s: JCT %s = %.2f × the %s ideal (%s)\n", j->name,
                    summary_fmt_time(t1, sizeof t1, j->jct_ps), j->jct_over_ideal,
                    summary_fmt_time(t2, sizeof t2, j->ideal_jct_ps), j->ideal_basis);
    }
    for (uint32_t i = 0; i < st->n_jobs; i++)
        if (st->jobs[i].failed)
            fprintf(f, "  %s FAILED: %s\n", st->jobs[i].name, st->jobs[i].reason);
    for (uint32_t i = 0; i < st->n_jobs; i++)
        write_training_line(f, &st->jobs[i]);
    for (uint32_t i = 0; i < st->n_jobs; i++)
        write_chakra_line(f, &st->jobs[i]);
    for (uint32_t i = 0; i < st->n_jobs; i++)
        write_inference_line(f, &st->jobs[i]);
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        const job_result *j = &st->jobs[i];
        char alone[32];
        /* "1.67× slower" / "1.25× faster": a ratio below 1 is read as its inverse */
        if (j->isolated_jct_ps && j->slowdown >= 1.0)
            fprintf(f, "  %s: %.2f× slower than alone (%s)\n", j->name, j->slowdown,
                    summary_fmt_time(alone, sizeof alone, j->isolated_jct_ps));
        else if (j->isolated_jct_ps && j->slowdown > 0)
            fprintf(f, "  %s: %.2f× faster than alone (%s)\n", j->name, 1.0 / j->slowdown,
                    summary_fmt_time(alone, sizeof alone, j->isolated_jct_ps));
    }
}

static void write_faults_text(FILE *f, const scenario *sc, const run_stats *st)
{
    char a[32], why[256];
    fprintf(f, "\nfaults (%u)\n", st->n_faults);
    for (uint32_t i = 0; i < st->n_faults; i++) {
        const fault_record *r = &st->faults[i];
        const cfg_fault *c = &sc->faults[i];
        fprintf(f, "  %-13s %-16s at %-11s", fault_kind_name(c->kind), r->target,
                summary_fmt_time(a, sizeof a, r->at_ps));
        if (!r->fired) {
            fputs("  did not fire (the jobs ended first)\n", f);
            continue;
        }
        summary_fault_reroute(why, sizeof why, c, r);
        if (why[0])
            fprintf(f, "  %s", why);
        if (c->kind == FAULT_LINK_FLAP)
            fprintf(f, "; %u transitions", r->transitions);
        if (c->kind == FAULT_LINK_DEGRADED)
            fprintf(f, "  %.6g -> %.6g Gb/s", (double)r->orig_rate_bps * 1e-9,
                    (double)r->rate_bps * 1e-9);
        if (c->kind == FAULT_LINK_BER)
            fprintf(f, "  BER %.3g %s: 4 KiB frame loss %.3g, %" PRIu64 " frames corrupted", c->ber,
                    c->ber_pre_fec ? "pre-FEC (RS(544,514))" : "post-FEC", r->frame_loss_4k,
                    r->corrupted);
        if (c->kind == FAULT_GPU_FAIL)
            fputs("  the GPU stopped (its jobs below)", f);
        if (c->kind == FAULT_GPU_SLOW)
            fprintf(f, "  compute %.3gx slower", c->factor);
        if (c->kind == FAULT_PFC_STORM)
            fprintf(f, "  PAUSE storm%s%s", r->end_ps != SIM_TIME_MAX ? " until " : "",
                    r->end_ps != SIM_TIME_MAX ? summary_fmt_time(a, sizeof a, r->end_ps) : "");
        fputc('\n', f);
    }
    for (uint32_t j = 0; j < st->n_jobs; j++) {
        const job_result *jr = &st->jobs[j];
        if (!jr->restarts && !jr->lost_ps)
            continue;
        char b[32], c2[32], d[32];
        fprintf(f, "  %s: %u restart%s: lost work %s, restart %s, checkpoint writes %s (%u)\n",
                jr->name, jr->restarts, jr->restarts == 1 ? "" : "s",
                summary_fmt_time(b, sizeof b, jr->lost_ps),
                summary_fmt_time(c2, sizeof c2, jr->restart_ps),
                summary_fmt_time(d, sizeof d, jr->ckpt_ps), jr->ckpt_writes);
    }
}

static void write_goodput_text(FILE *f, const scenario *sc, const run_stats *st)
{
    const goodput_result *g = &st->goodput;
    fprintf(f, "\ngoodput    job %s, %" PRIu64 " iterations, %u samples\n", sc->jobs[g->job].name,
            g->iterations, g->samples);
    if (!g->ok) {
        fprintf(f, "           not estimated: %s\n", g->why);
        return;
    }
    fprintf(f,
            "           %u GPUs, %u NICs, %u host links, %u leaves, %u servers: %.4g "
            "interruptions/h (MTBF %.3g h)\n",
            g->gpus, g->nics, g->links, g->leaves, g->servers, g->lambda_per_h,
            g->lambda_per_h > 0 ? 1 / g->lambda_per_h : 0);
    fprintf(f, "           iteration %.4g s (simulated), checkpoint write %.4g s, restart %.4g s\n",
            g->iter_s, g->write_s, g->restart_s);
    const goodput_out *o = &g->at_interval;
    fprintf(f,
            "           interval %u: wall-clock p50 %.4g h, p90 %.4g h (mean %.4g h, closed form "
            "%.4g h); goodput p50 %.1f %%, p90 %.1f %%\n",
            g->interval, o->p50_s / 3600, o->p90_s / 3600, o->mean_s / 3600, o->expected_s / 3600,
            100 * o->goodput_p50, 100 * o->goodput_p90);
    o = &g->best;
    fprintf(f,
            "           best interval %u%s: p50 %.4g h, p90 %.4g h; goodput p50 %.1f %%, p90 "
            "%.1f %% (Young/Daly first-order optimum: %.1f / %.1f iterations)\n",
            g->best_interval,
            g->best_interval >= g->iterations ? " (never: the run is short against the MTBF)" : "",
            o->p50_s / 3600, o->p90_s / 3600, 100 * o->goodput_p50, 100 * o->goodput_p90,
            g->young_iters, g->daly_iters);
}

int summary_write_text(FILE *f, const scenario *sc, const run_stats *st, const char *const *files,
                       int n_files)
{
    char a[32], b[32], c[32], d[32];

    fprintf(f, "wirerate %s  scenario \"%s\"  seed %" PRIu64 "\n", WR_VERSION, sc->name, sc->seed);
    fprintf(f, "  simulated  %s  (%s)\n", summary_fmt_time(a, sizeof a, st->end_ps),
            st->interrupted ? "INTERRUPTED by a signal: the results up to this time"
            : st->deadlock && st->infiniband    ? "stopped: credit deadlock"
            : st->deadlock                      ? "stopped: PFC deadlock"
            : st->hit_stop_at                   ? "stopped at stop_at"
            : st->end_reason == END_STALLED     ? "ended: no job could make progress"
            : st->end_reason == END_JOBS_FAILED ? "ended: every job completed or failed"
                                                : "all jobs completed, fabric drained");
    if (st->deadlock)
        fprintf(f, "  DEADLOCK   at %s, %s cycle with no progress: %s\n",
                summary_fmt_time(a, sizeof a, st->deadlock_at_ps),
                st->infiniband ? "credit-stalled" : "paused", st->deadlock_cycle);
    char w[32];
    char su[32];
    fprintf(f, "  set-up     %s wall (topology, routing, QPs, plans)\n",
            fmt_wall(su, sizeof su, st->setup_s));
    if (st->fidelity == FIDELITY_FLOW) {
        char e[32];
        fprintf(f, "  fidelity   flow-level: max-min fair fluid flows on the packet model's paths "
                   "(queues, ECN, PFC, drops, congestion control not modelled)\n");
        fprintf(f,
                "  events     %s in %s wall, %s events/s, %s fluid flows, %s rate "
                "recomputations, peak RSS %s\n",
                fmt_count(a, sizeof a, (double)st->events), fmt_wall(w, sizeof w, st->wall_s),
                fmt_count(b, sizeof b, st->events_per_s),
                fmt_count(c, sizeof c, (double)st->fluid_flows),
                fmt_count(e, sizeof e, (double)st->rate_solves),
                summary_fmt_bytes(d, sizeof d, st->peak_rss_bytes));
    } else {
        fprintf(f, "  events     %s in %s wall, %s events/s, %s packet hops, peak RSS %s\n",
                fmt_count(a, sizeof a, (double)st->events), fmt_wall(w, sizeof w, st->wall_s),
                fmt_count(b, sizeof b, st->events_per_s),
                fmt_count(c, sizeof c, (double)st->packet_hops),
                summary_fmt_bytes(d, sizeof d, st->peak_rss_bytes));
    }

    write_jobs(f, st);

    fprintf(f, "\nflows      %" PRIu64 " of %" PRIu64 " completed", st->flows_completed,
            st->n_flows);
    if (st->flows_completed)
        fprintf(f, "; FCT p50 %s, p99 %s, max %s", summary_fmt_time(a, sizeof a, st->fct_p50_ps),
                summary_fmt_time(b, sizeof b, st->fct_p99_ps),
                summary_fmt_time(c, sizeof c, st->fct_max_ps));
    fputc('\n', f);

    fprintf(f, "fabric     tx %s of frames, max link utilization %.1f %%\n",
            summary_fmt_bytes(a, sizeof a, st->tx_bytes), 100.0 * st->max_link_utilization);
    for (int k = 0; st->networks && k < NETWORKS_N; k++) {
        /* each network apart (fabric.networks in summary.json) */
        uint64_t tx = 0, n = 0;
        double u = 0;
        for (uint32_t i = 0; i < st->n_ports; i++)
            if (st->ports[i].network == k) {
                n++;
                tx += st->ports[i].tx_bytes;
                u = st->ports[i].utilization > u ? st->ports[i].utilization : u;
            }
        if (n)
            fprintf(f, "           %-9s tx %s, max link utilization %.1f %%\n",
                    network_name((enum network_id)k), summary_fmt_bytes(a, sizeof a, tx),
                    100.0 * u);
    }
    /* Counter lines that are all zero are left out of the text (summary.json keeps every key):
     * a row of zeros reads as a measurement, and would also show for mechanisms a scenario
     * does not exercise. */
    if (st->ecn_marked || st->pfc_pause_sent || st->pfc_paused_ps || st->pfc_watchdog_events)
        fprintf(f,
                "           ECN marked %" PRIu64 " packets, PFC pauses sent %" PRIu64
                " (%s paused), watchdog events %" PRIu64 "\n",
                st->ecn_marked, st->pfc_pause_sent,
                summary_fmt_time(a, sizeof a, st->pfc_paused_ps), st->pfc_watchdog_events);
    for (uint32_t k = 0; k < st->n_tenants; k++) {
        const tenant_record *t = &st->tenants[k];
        fprintf(f,
                "tenant     %s (VNI %" PRIu32 "): NIC tx %s in %" PRIu64
                " frames, fabric links %s (VXLAN %s, %s VTEP), delivered %s",
                t->name, t->vni, summary_fmt_bytes(a, sizeof a, t->nic_tx_bytes), t->nic_tx_packets,
                summary_fmt_bytes(b, sizeof b, t->fabric_tx_bytes),
                st->vtep == VTEP_HOST ? "+50 B a frame on every link" : "+50 B a frame",
                st->vtep == VTEP_HOST ? "host" : "leaf",
                summary_fmt_bytes(c, sizeof c, t->delivered_bytes));
        if (t->drops || t->ecn_marked)
            fprintf(f, ", drops %" PRIu64 ", ECN marked %" PRIu64, t->drops, t->ecn_marked);
        fputc('\n', f);
    }
    if (st->infiniband)
        fprintf(f,
                "           InfiniBand: credit stalls %s (summed over ports and VLs), %" PRIu64
                " credit updates (FCPs), FECN marked %" PRIu64 " packets, BECNs %" PRIu64 "\n",
                summary_fmt_time(a, sizeof a, st->credit_stall_ps), st->fcp_sent, st->fecn_marked,
                st->cnp_sent);
    fputs("drops      ", f);
    int shown = 0;
    for (int r = 0; r < DROP_REASONS; r++) {
        if (!st->drops[r])
            continue;
        fprintf(f, "%s%s %" PRIu64, shown ? ", " : "", drop_keys[r], st->drops[r]);
        shown++;
    }
    fputs(shown                           ? " packets\n"
          : st->fidelity == FIDELITY_FLOW ? "not modelled (flow-level)\n"
                                          : "none\n",
          f);
    if (st->trimmed)
        fprintf(f,
                "trimmed    %" PRIu64 " packets cut to their header by switches (not dropped: "
                "%" PRIu64 " headers reached their receivers)\n",
                st->trimmed, st->trims_received);
    if (st->cnp_sent || st->cnp_handled || st->retransmitted_packets || st->out_of_sequence ||
        st->rto_events || st->naks_sent)
        fprintf(f,
                "nics       %s sent %" PRIu64 " / handled %" PRIu64 ", retransmitted %" PRIu64
                " packets, out-of-sequence %" PRIu64 ", NAKs %" PRIu64 ", RTO %" PRIu64 "\n",
                st->infiniband ? "BECNs (CNPs)" : "CNPs", st->cnp_sent, st->cnp_handled,
                st->retransmitted_packets, st->out_of_sequence, st->naks_sent, st->rto_events);
    if (st->qps_failed)
        fprintf(f, "           %" PRIu64 " QPs exceeded retry_count (error state)\n",
                st->qps_failed);
    for (uint32_t i = 0; i < st->n_failovers && i < RUN_MAX_FAILOVER_RECORDS; i++)
        fprintf(f,
                "failover   h%" PRIu32 " -> h%" PRIu32 " at %s: %" PRIu32
                " QPs moved to the NIC's other port\n",
                st->failovers[i].from_host, st->failovers[i].to_host,
                summary_fmt_time(a, sizeof a, st->failovers[i].at_ps), st->failovers[i].qps);
    if (st->trimmed_bytes) {
        char e[32];
        fprintf(f, "bytes      sent %s = delivered %s + dropped %s + trimmed %s + in flight %s\n",
                summary_fmt_bytes(a, sizeof a, st->sent_bytes),
                summary_fmt_bytes(b, sizeof b, st->delivered_bytes),
                summary_fmt_bytes(c, sizeof c, st->dropped_bytes),
                summary_fmt_bytes(e, sizeof e, st->trimmed_bytes),
                summary_fmt_bytes(d, sizeof d, st->inflight_bytes));
    } else {
        fprintf(f, "bytes      sent %s = delivered %s + dropped %s + in flight %s\n",
                summary_fmt_bytes(a, sizeof a, st->sent_bytes),
                summary_fmt_bytes(b, sizeof b, st->delivered_bytes),
                summary_fmt_bytes(c, sizeof c, st->dropped_bytes),
                summary_fmt_bytes(d, sizeof d, st->inflight_bytes));
    }
    if (st->scale_up_bytes)
        fprintf(f, "           and %s between GPUs of a server over NVLink\n",
                summary_fmt_bytes(a, sizeof a, st->scale_up_bytes));

    write_top_ports(f, st);
    if (st->n_faults)
        write_faults_text(f, sc, st);
    if (st->goodput.on)
        write_goodput_text(f, sc, st);

    diagnosis diag[DIAG_MAX];
    int nd = diagnose_run(st, diag, DIAG_MAX);
    if (nd) {
        fputs("\ndiagnosis\n", f);
        for (int i = 0; i < nd; i++) {
            fprintf(f, "  %s", diag[i].text);
            if (diag[i].cost_ps)
                fprintf(f, " [cost up to %s]", summary_fmt_time(a, sizeof a, diag[i].cost_ps));
            fputc('\n', f);
        }
    }

    if (n_files > 0) {
        fputs("\noutput\n", f);
        for (int i = 0; i < n_files; i++)
            fprintf(f, "  %s\n", files[i]);
    }
    return stream_status(f);
}
