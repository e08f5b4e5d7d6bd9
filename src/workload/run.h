/*
 * run.h — one simulation run of a scenario: build the network, start the jobs, run the event
 * loop, collect results. This is the library's top-level entry point; the CLI, tests and
 * benchmarks drive it.
 *
 *   run *r = run_new(sc, &e);          // builds topology, routing, jobs; NULL + err on bad input
 *   run_execute(r, progress, user);    // simulate to completion / stop_at
 *   const run_stats *st = run_result(r);
 *   run_free(r);
 *
 * Byte conservation holds at the end of every run and is checked by run_execute (SIM_ASSERT):
 *   sent_bytes == delivered_bytes + dropped_bytes + inflight_bytes   (payload bytes)
 */
#ifndef WR_WORKLOAD_RUN_H
#define WR_WORKLOAD_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../core/sim.h"
#include "../core/time.h"
#include "../net/drop.h"
#include "goodput.h"

/* Drop reasons (enum drop_reason, drop_reason_name) come from net/drop.h. */

/* Training jobs: one iteration's breakdown (workload/training.h train_breakdown), averaged over
 * the job's ranks. compute + tp + ep + pp + dp + bubble = the iteration time; tp/pp/dp are
 * *exposed* communication (the GPU idle with only that to blame), *_comm_ps the time it was in
 * flight. */
typedef struct train_iter {
    sim_time compute_ps, tp_ps, pp_ps, dp_ps, bubble_ps;
    sim_time tp_comm_ps, pp_comm_ps, dp_comm_ps;
    uint32_t slowest_rank;          /* the rank with the most compute (a straggler) */
    sim_time slowest_compute_ps;    /* its compute time */
    sim_time ep_ps, ep_comm_ps;     /* MoE all_to_all: exposed (part of the sum above), in
                                     * flight */
} train_iter;

typedef struct iter_result {
    sim_time time_ps;
    double algbw_GBps, busbw_GBps;
    train_iter train;               /* training jobs */
} iter_result;

/* A Chakra job's rank, over all its iterations (docs/output.md). Every instant of the job is in
 * exactly one of compute, comm, idle for each rank: compute_ps + comm_ps + idle_ps = jct_ps. */
typedef struct chakra_rank_result {
    uint32_t gpu;
    sim_time compute_ps; /* one of its compute nodes runs (GPU or CPU op) */
    sim_time comm_ps;    /* not computing, a collective or message it takes part in in flight */
    sim_time idle_ps;    /* neither: waiting on dependencies, peers or nothing left to do */
    sim_time done_ps;    /* end of its last operation, from the job's start */
} chakra_rank_result;

/* The last iteration's critical path: from its last-ending operation back through, at each
 * step, the dependency that ended last. compute_ps + comm_ps + wait_ps = that iteration's
 * time; wait_ps is where an operation started later than its last dependency ended (its GPU
 * or its process group was busy with another one). */
typedef struct chakra_path {
    uint32_t ops;                 /* operations on the path */
    sim_time compute_ps, comm_ps, wait_ps;
    uint32_t last_rank;           /* the rank of its last operation */
    char last[96];                /* that operation's node name */
} chakra_path;
/* Inference jobs (infer_exec.h): per-request latencies over the completed requests.
 * TTFT = first token − arrival; TPOT = (last token − first token) / (output tokens − 1), over
 * requests with more than one output token. Percentiles are nearest-rank. Throughput is over
 * the job's window, start to its last completed request. */
typedef struct infer_result {
    uint32_t replicas, prefill_replicas, decode_replicas; /* prefill/decode 0 unless disaggregated */
    uint64_t requests, requests_done;
    uint64_t prompt_tokens, output_tokens; /* of the completed requests */
    sim_time ttft_mean_ps, ttft_p50_ps, ttft_p90_ps, ttft_p99_ps, ttft_max_ps;
    sim_time tpot_mean_ps, tpot_p50_ps, tpot_p90_ps, tpot_p99_ps, tpot_max_ps;
    double tokens_per_s, requests_per_s;
    uint64_t prefill_steps, decode_steps;
    double mean_decode_batch;     /* sequences per decode step */
    uint64_t kv_bytes;            /* KV cache moved prefill → decode (disaggregated) */
    /* bytes posted as messages (on the fabric, or NVLink fluid inside a server) by the TP
     * (all_reduce, all_gather) and EP (all_to_all) collectives of groups spanning servers, and
     * by the pipeline sends; TP groups inside a server are analytic and move none */
    uint64_t tp_net_bytes, ep_net_bytes, pp_net_bytes;
} infer_result;

/* One request of an inference job (requests.csv). first/done are 0 when not reached. */
typedef struct request_record {
    uint32_t job, id, replica, decode_replica; /* decode_replica = replica when colocated */
    uint32_t prompt_tokens, output_tokens, generated;
    sim_time arrival_ps, first_token_ps, done_ps;
} request_record;

typedef struct job_result {
    const char *name;
    enum job_kind kind;
    enum coll_op op;            /* collective jobs */
    enum coll_algo algorithm;   /* collective jobs */
    enum traffic_pattern pattern; /* traffic jobs */
    const char *size_cdf;         /* traffic jobs with size_cdf: its name (size_bytes is then the
                                   * mean of the sizes drawn) */
    uint32_t ranks;             /* ranks (collective/training) or hosts taking part (traffic) */
    uint64_t size_bytes;
    sim_time start_ps, end_ps, jct_ps;  /* end/jct are 0 when the job did not complete */
    bool completed;
    uint32_t n_iterations;
    iter_result *iterations;    /* n_iterations entries */
    double algbw_GBps, busbw_GBps;
    uint64_t flows, flows_completed;
    /* training jobs */
    uint32_t tp, pp, dp, micro_batches;
    uint64_t bucket_bytes;          /* the DP gradient bucket the plan used (`auto` resolved) */
    train_iter train_mean;          /* each field averaged over the completed iterations */
    uint64_t tasks_done, tasks_total; /* progress of an iteration still running (stop_at) */
    sim_time isolated_jct_ps;   /* run_isolated_baselines: the same job alone (0 = not run) */
    double slowdown;            /* jct_ps / isolated_jct_ps */
    /* A failed job: a QP of it exceeded nic.retry_count, or no event could advance it; it
     * stopped all its work at failed_at_ps. `reason` says which QP and why. */
    bool failed;
    sim_time failed_at_ps;
    char reason[256];
    /* training: checkpoint/restart (gpu-fail). ckpt_ps: time every GPU stalled writing
     * checkpoints; lost_ps: work done since the last checkpoint and thrown away by failures;
     * restart_ps: from each failure to the restarted job's first step. JCT includes all three. */
    bool checkpointing;         /* the job has a checkpoint block */
    uint32_t restarts, ckpt_writes;
    sim_time ckpt_ps, lost_ps, restart_ps;
    /* checkpoints / model load over fabric.storage: bytes, and the time from posting the
     * writes (reads) to their last byte (summed over checkpoints) */
    uint64_t ckpt_bytes, load_bytes;
    sim_time ckpt_io_ps, load_ps;
    /* dataset reads (training dataset.sample_bytes): bytes read over the run, the reads' time
     * from posting to last byte (summed over batches), and the time iterations waited for a
     * batch not yet arrived (included in their iteration times and the JCT) */
    uint64_t ds_bytes;
    uint32_t ds_batches;
    sim_time ds_read_ps, ds_stall_ps;
    sim_time ideal_jct_ps;      /* the lower bound this fabric allows (workload/ideal.h) */
    double jct_over_ideal;      /* jct_ps / ideal_jct_ps (0 when either is 0) */
    char ideal_basis[160];      /* what the bound is, in words */
    sim_time nominal_compute_ps; /* training: the busiest rank's compute per iteration at
                                  * nominal speed (the straggler rule's reference) */
    /* chakra jobs */
    uint64_t chakra_nodes;            /* nodes of the trace, all ranks */
    uint32_t chakra_files;            /* .et files (= ranks) */
    chakra_rank_result *rank_results; /* [ranks]; allocated, freed by the run */
    chakra_path path;
    infer_result infer;          /* inference jobs */
} job_result;

/* One flow's record (for flows.csv and FCT statistics). */
typedef struct flow_record {
    uint32_t job;               /* index into jobs */
    uint32_t src_host, dst_host;
    uint64_t size_bytes;
    uint64_t delivered_bytes;
    sim_time start_ps, end_ps;  /* end_ps = 0 when not completed */
} flow_record;

/* One transfer of a collective or training job (transfers.csv). Collectives: each message of
 * the plan (phase = the op, step = the algorithm's step, src/dst GPUs). Training: each
 * communication task (phase "tp" / "dp" group collectives with src = the group's first GPU and
 * dst = TRANSFER_GROUP, bytes per rank as nccl-tests counts them; "pp" sends src → dst GPU). */
#define TRANSFER_GROUP UINT32_MAX
/* Rows kept per run at most (16 M rows = 768 MB would not be "a CSV"): a job's iterations are
 * recorded while they fit; transfers_dropped counts the rest. */
#define TRANSFERS_MAX (1u << 21)
typedef struct transfer_record {
    uint32_t job, iteration, step;
    const char *phase;          /* static string */
    uint32_t src_gpu, dst_gpu;  /* dst TRANSFER_GROUP for a group collective */
    uint64_t bytes;
    sim_time start_ps, end_ps;  /* post and completion */
} transfer_record;

/* Per-port figures for the human summary's "top congested ports" and ports.csv. */
typedef struct port_record {
    char name[48];              /* "leaf0:p33->spine1" */
    uint64_t tx_bytes, tx_packets;  /* MAC frame octets (ifHCOutOctets) and frames */
    uint64_t tx_wire_bytes;         /* line bytes: + preamble/SFD and IPG per frame */
    uint64_t max_queue_bytes;
    double utilization;         /* busy time / the jobs' active window (run_stats) */
    uint64_t ecn_marked, pfc_pause_sent, pfc_paused_ps;
    uint64_t pfc_pause_rx, wd_events;
    uint64_t rx_bytes, rx_packets;
    uint64_t drops[DROP_REASONS];
    uint64_t trimmed;           /* frames cut to their header instead of dropped (not drops) */
    /* per traffic class 0..7 (see net.h) */
    uint64_t prio_tx_bytes[8], prio_tx_packets[8], prio_ecn_marked[8], prio_drops[8];
    uint64_t prio_pause_sent[8], prio_pause_rx[8], prio_paused_ps[8];
    /* InfiniBand (fabric.link_layer infiniband; 0 on Ethernet) */
    uint64_t credit_stall_ps;    /* summed over VLs: a frame waited for the next hop's credits */
    uint64_t credit_stalls;      /* stalls begun */
    uint64_t fecn_marked;        /* IB CC: data frames this egress marked FECN */
    uint64_t fcp_sent;           /* flow control packets sent (credit updates) */
    uint64_t ib_peak_bytes;      /* most bytes any VL held in this port's receive buffer */
    uint64_t ib_vl_buffer_bytes; /* that buffer's size per VL */
    uint8_t network; /* enum network_id of the port's owner (backend, storage, frontend) */
} port_record;

/* Per host (NIC port) transport counters. */
typedef struct nic_record {
    uint64_t cnp_sent;          /* as notification point (receiver) */
    uint64_t cnp_handled;       /* as reaction point (sender) */
    uint64_t retransmitted_packets, out_of_sequence, rto_events;
    uint64_t naks_sent;         /* as responder: sequence-error NAKs */
    uint64_t naks_received;     /* as requester */
    uint64_t qps_failed;        /* requester QPs that exceeded nic.retry_count */
    uint64_t qps_failed_over;   /* QPs moved from this port to the NIC's other port */
    sim_time dcqcn_held_ps;     /* idle while its data waited only on DCQCN rate limiting */
    uint64_t trims_received;    /* UET: trimmed headers that arrived (each one NAKed) */
} nic_record;

/* Per-tenant figures (scenario tenants:, EVPN-VXLAN; net.h net_tenant_ctr). */
typedef struct tenant_record {
    const char *name; /* borrowed from the scenario */
    uint32_t vni;
    uint32_t jobs, gpus, hosts;            /* its jobs, and the GPUs and NIC ports they hold */
    uint64_t nic_tx_bytes, nic_tx_packets; /* frames its NIC ports sent (MAC octets) */
    uint64_t fabric_tx_bytes, fabric_tx_packets; /* its frames on switch-to-switch links, VXLAN
                                                  * overhead included */
    uint64_t delivered_bytes;   /* payload its flows delivered in order (NVLink included) */
    uint64_t drops, ecn_marked; /* its frames dropped anywhere / CE-marked by a switch */
} tenant_record;

/* Why the simulation ended (summary.json sim.end_reason). */
enum end_reason {
    END_COMPLETED,      /* every job completed */
    END_JOBS_FAILED,    /* every job completed or failed, at least one failed */
    END_STALLED,        /* no job could progress (e.g. paused by a pfc-storm without end) */
    END_STOP_AT,        /* stop_at reached */
    END_DEADLOCK,       /* PFC deadlock */
};
const char *end_reason_name(enum end_reason r);

/* One dual-port failover (summary "failovers"). */
typedef struct failover_record {
    uint32_t from_host, to_host;
    sim_time at_ps;
    uint32_t qps;               /* QPs moved (requester and responder sides) */
} failover_record;
#define RUN_MAX_FAILOVER_RECORDS 16

/* The `goodput:` what-if (goodput.h), computed after the simulation from the job's measured
 * mean iteration time. ok false: why says what was missing (e.g. no iteration completed). */
typedef struct goodput_result {
    bool on, ok;
    char why[160];
    uint32_t job;
    uint32_t gpus, nics, links, leaves, servers; /* the job's footprint */
    double lambda_per_h;        /* interruptions per hour of the job */
    double iter_s, write_s, restart_s;
    uint64_t iterations;
    uint32_t samples;
    uint32_t interval;          /* the job's checkpoint interval (0 = none) */
    goodput_out at_interval;    /* the run with it */
    uint32_t best_interval;     /* the sampled optimum */
    goodput_out best;
    double young_iters, daly_iters; /* first-order optima, in iterations */
} goodput_result;

typedef struct run_stats {
    sim_time end_ps;
    uint64_t events;
    double wall_s, events_per_s;
    double setup_s;             /* wall time of run_new: topology, routing, QPs, plans */
    uint64_t peak_rss_bytes;
    uint64_t packet_hops;       /* packets serialized onto any link */
    /* sim.fidelity (enum fidelity); flow level: the fluid's own figures (transport/flownet.h) */
    uint8_t fidelity;
    uint64_t fluid_flows;       /* fluid flows started (message pieces × paths, moves included) */
    uint64_t coalesced_pieces;  /* pieces that continued their QP's running fluid flow */
    uint64_t rate_solves;       /* max-min recomputations (component solves) */
    uint64_t rate_fast;         /* flow starts and ends whose rates needed no recomputation */
    uint64_t rate_commits;      /* instants at which rates were recomputed */
    uint64_t flow_reroutes;     /* fluid flows moved by a routing change */
    uint64_t fluid_max_live;    /* most fluid flows at once */
    uint64_t one_event_pieces;  /* pieces whose end took no event of its own (flownet.c) */
    uint64_t reused_flows;      /* fluid flows that were a held one refilled (no link touched) */

    uint32_t n_jobs;
    job_result *jobs;
    bool networks; /* the fabric has storage/frontend networks (ports say which) */

    uint64_t n_flows;
    flow_record *flows;
    uint64_t flows_completed;
    sim_time fct_p50_ps, fct_p99_ps, fct_max_ps;  /* over completed flows; 0 if none */

    uint32_t n_ports;
    port_record *ports;         /* switch egress ports and host NIC ports */
    uint32_t n_nics;
    nic_record *nics;           /* per host (NIC port) */
    uint32_t n_tenants;         /* scenario tenants (0 without an overlay) */
    tenant_record *tenants;
    uint8_t vtep; /* with tenants: enum vtep_place */
    uint64_t n_transfers, transfers_dropped;
    transfer_record *transfers; /* collective and training jobs' transfers, by job; recorded
                                 * when output.formats has csv or html */

    uint64_t n_requests;
    request_record *requests;   /* inference jobs' requests, by job (requests.csv) */

    /* fabric */
    uint64_t tx_bytes;          /* MAC frame octets sent by all ports (ifHCOutOctets summed) */
    uint64_t tx_wire_bytes;     /* the same frames in line bytes (+ preamble/SFD + IPG each) */
    double max_link_utilization;
    uint64_t ecn_marked, pfc_pause_sent, pfc_paused_ps, pfc_watchdog_events;
    uint64_t drops[DROP_REASONS];       /* packets */
    uint64_t trimmed;                   /* packets trimmed by switches (switch.trimming) */
    bool infiniband;                    /* fabric.link_layer infiniband */
    uint64_t credit_stall_ps, fecn_marked, fcp_sent; /* InfiniBand: the ports' sums */

    /* nics */
    uint64_t cnp_sent, cnp_handled, retransmitted_packets, out_of_sequence, rto_events;
    uint64_t naks_sent, naks_received, qps_failed, qps_failed_over;
    uint64_t trims_received;    /* UET receivers: trimmed headers that arrived */
    bool uet;                   /* nic.transport uet */
    uint32_t n_failovers;       /* all of them; the first RUN_MAX_FAILOVER_RECORDS are kept */
    failover_record failovers[RUN_MAX_FAILOVER_RECORDS];
    bool ooo_placement;         /* the NICs placed out-of-order packets (nic.ooo_placement) */
    uint32_t jobs_failed;
    enum end_reason end_reason;

    /* conservation, payload bytes */
    uint64_t sent_bytes, delivered_bytes, dropped_bytes, inflight_bytes;
    uint64_t trimmed_bytes;     /* payload switches cut off by trimming */
    uint64_t scale_up_bytes;    /* moved inside servers over NVLink (fluid, not packets) */
    bool hit_stop_at;           /* ended by stop_at rather than running out of events */
    bool interrupted;           /* ended by SIGINT/SIGTERM (sim_interrupt_request): the results
                                 * are those at end_ps; set by the CLI */
    bool jobs_done;             /* every job finished; the run ended once the fabric drained */
    sim_time active_start_ps;   /* the first job's start: utilizations are over
                                 * [active_start_ps, end_ps], the jobs' active window */
    uint8_t lossless_classes;   /* PFC-protected traffic classes (bit c), 0 with PFC off */
    uint32_t link_faults;       /* link-down, link-flap and switch-down faults that fired */
    sim_time rto_ps;            /* nic.rto (the cost of a timeout, for the diagnosis) */
    sim_time reroute_ps;        /* Σ over them of the window in which traffic still hashed onto
                                 * the dead link (detect + converge, cut at the end) */
    bool fault_link_local;      /* the first one was repaired locally at once (fast reroute) */
    char fault_link[80];        /* the first: "leaf0-spine1", "switch spine2", "x-y (flapping)" */
    /* every fault of the scenario: what it did (fault.h), and the timeline of fault events;
     * owned by the run (valid until run_free) */
    uint32_t n_faults;
    const struct fault_record *faults;
    uint32_t n_fault_log;
    const struct fault_log *fault_log;
    uint64_t fault_log_total;   /* lines that happened; the first n_fault_log are kept */
    goodput_result goodput;
    bool deadlock;              /* PFC deadlock detected: the run stopped there */
    sim_time deadlock_at_ps;
    char deadlock_cycle[512];   /* the paused cycle, "priority 3: a->b -> b->c -> c->a" */
} run_stats;

typedef struct run run;
typedef struct telemetry telemetry;
/* The run's telemetry (sampler, exporters): what cmd_run writes at the end. */
telemetry *run_telemetry(const run *r);

/* Build everything for `sc` (borrowed; must outlive the run). NULL + *e on invalid input. */
run *run_new(const scenario *sc, err *e);
/* Simulate. `progress` (may be NULL) is called every ~1M events with the sim context. */
void run_execute(run *r, sim_progress_fn progress, void *user);
const run_stats *run_result(const run *r);
/* After run_execute: simulate every job alone (same scenario and seed, the other jobs left out)
 * and fill jobs[].isolated_jct_ps and .slowdown — the cost of sharing the fabric. */
void run_isolated_baselines(run *r);
const sim *run_sim(const run *r);
/* The run's network (borrowed), e.g. to name a flow's hosts. */
const struct net *run_net(const run *r);
/* The run's transport (flow level: its flownet, t->fn), for tests and benchmarks. */
struct transport *run_transport(run *r);
/* The run's simulation context, for tests that step the clock (e.g. run to a time, measure,
 * continue with sim_run). */
sim *run_sim_mut(run *r);
/* The run's network, for tests that look at ports between steps. */
struct net *run_net_mut(run *r);
void run_free(run *r);
/* The executor of job j when it is a training or Chakra job, else NULL (for tests). */
struct train_exec;
const struct train_exec *run_train_exec(const run *r, uint32_t j);
/* The executor of job j when it is a collective job, else NULL (for tests). */
struct coll_exec;
const struct coll_exec *run_coll_exec(const run *r, uint32_t j);

#endif
