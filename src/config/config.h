/*
 * config.h — the scenario as plain structs, loaded from YAML (spec/scenario.md).
 *
 * config_load() parses the file with libyaml into a node tree that keeps line:column for every
 * node, applies `--set KEY=VALUE` overrides to that tree, then validates it against the schema
 * and fills a `scenario` with every key's documented default (docs/scenario.md). Units are parsed
 * by units.h; all quantities are integers in the struct (ps, bits/s, bytes, ppm).
 *
 * Errors: unknown keys, wrong types, out-of-range values and impossible combinations fill the
 * `err` with file:line:col of the offending node and a message of the form
 *     fabric.host_link: expected a rate like "400Gbps", got "400"
 * and the function returns ERR_INVALID (ERR_IO when the file cannot be read).
 *
 * Ownership: everything a scenario points to lives in its arena (sc->mem); scenario_free()
 * releases it. The scenario also keeps the node tree so that later stages (topology builders)
 * can report errors at the position of a key: config_locate().
 */
#ifndef WR_CONFIG_CONFIG_H
#define WR_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../core/time.h"
#include "cdf.h"

enum fabric_preset {
    PRESET_SINGLE_SWITCH,
    PRESET_LEAF_SPINE,
    PRESET_FAT_TREE,
    PRESET_RAIL_OPTIMIZED,
    PRESET_RAIL_ONLY,
    PRESET_CUSTOM,
};

typedef struct cfg_custom_switch { const char *name; } cfg_custom_switch;
typedef struct cfg_custom_host { const char *name; uint32_t gpus; } cfg_custom_host;
typedef struct cfg_custom_link {
    const char *a, *b;
    uint64_t speed_bps;     /* 0 = fabric.fabric_link */
    sim_time latency_ps;    /* SIM_TIME_MAX = fabric.link_latency */
    int line, col;          /* position of this link in the file, for builder errors */
} cfg_custom_link;

/* fabric.link_layer: Ethernet (RoCEv2: shared buffers, ECN, PFC) or InfiniBand (credit-based
 * flow control per virtual lane, IB congestion control; net.h "InfiniBand"). */
enum link_layer { LINK_ETHERNET, LINK_INFINIBAND };

/* fabric.infiniband: the link layer's credits and IB congestion control (IBTA vol. 1 Annex
 * A10). Defaults and their sources in config.c scenario_defaults and docs/scenario.md. */
#define IB_CCT_MAX 128
typedef struct cfg_ib {
    uint64_t vl_buffer_bytes;    /* receive buffer per VL per port (credits), 0 = auto */
    sim_time deadlock_ps;        /* a credit-stalled cycle this long = deadlock */
    uint64_t cc_threshold_bytes; /* a port VL queue above this marks FECN (0 = auto) */
    uint32_t marking_rate;       /* one eligible packet in marking_rate + 1 is marked */
    uint32_t ccti_increase, ccti_limit, ccti_min;
    sim_time ccti_timer_ps; /* CCTI decreases by one per period */
    uint32_t n_cct;
    uint16_t cct[IB_CCT_MAX]; /* inter-packet delay per CCT index */
} cfg_ib;
/* An extra network beside the backend (fabric.storage, fabric.frontend; docs/network.md
 * "Storage and frontend networks"). Built as its own 2-tier Clos of `leaf_radix` leaves and
 * spines; a GPU server gets one extra NIC on it (storage nic: converged uses the backend NICs
 * and puts the storage leaves under the backend spines instead). */
enum network_id { NETWORK_BACKEND, NETWORK_STORAGE, NETWORK_FRONTEND, NETWORKS_N };
const char *network_name(enum network_id w);
typedef struct cfg_xnet {
    bool on;                           /* the section was given */
    bool converged;                    /* storage.nic converged: storage rides the backend */
    uint32_t servers;                  /* storage servers (storage only), required */
    uint64_t server_link_bps;          /* storage server NIC link, default 200 Gbps */
    uint64_t nic_bps;                  /* the GPU server's NIC on this network: storage 200 Gbps,
                                        * frontend 100 Gbps */
    uint64_t fabric_link_bps;          /* leaf-spine links, default fabric.fabric_link */
    uint32_t leaf_radix, spine_radix;  /* default fabric.leaf_radix / spine_radix */
    uint32_t oversub_down, oversub_up; /* default 1:1 */
} cfg_xnet;

typedef struct cfg_fabric {
    enum fabric_preset preset;      /* default single-switch */
    enum link_layer link_layer;     /* default ethernet */
    cfg_ib ib;                      /* link_layer infiniband */
    uint32_t servers;               /* default 8 */
    uint32_t gpus_per_server;       /* default 8 */
    uint32_t gpus_per_nic;          /* default 1 */
    uint32_t nic_ports;             /* default 1 (1..2) */
    uint32_t rails_per_leaf;        /* default 1 */
    uint64_t host_link_bps;         /* default 400 Gbps */
    uint64_t fabric_link_bps;       /* default 400 Gbps */
    uint32_t oversub_down, oversub_up;  /* default 1:1 (reduced ratio as given) */
    uint32_t leaf_radix;            /* default 64 */
    uint32_t spine_radix;           /* default 64 */
    uint32_t spines;                /* 0 = one spine per leaf uplink (per pod and plane) */
    uint32_t planes;                /* default 1; 2 = dual-plane (port p of every NIC on plane p) */
    uint32_t mtu;                   /* switch port MTU (largest frame, Ethernet header..FCS), 9216 */
    uint32_t pods;                  /* default 1 */
    uint32_t k;                     /* fat-tree k, default 4 (even, >= 2) */
    sim_time link_latency_ps;       /* default 1 us; or cable_length × 5 ns/m */
    uint64_t cable_length_mm;       /* 0 when link_latency was given / defaulted */
    sim_time switch_latency_ps;     /* default 600 ns */
    bool cut_through;               /* default false (store-and-forward) */
    uint64_t scale_up_bps;          /* default 450 GBps = 3.6 Tbps (NVLink4 per GPU and direction) */
    double scale_up_efficiency;     /* share of scale_up_bps NCCL achieves, default 370/450 */
    uint64_t scale_up_achieved_bps; /* scale_up_bps × efficiency: what transfers move at */
    sim_time scale_up_latency_ps;   /* default 1 us */
    uint32_t n_custom_switches, n_custom_hosts, n_custom_links;
    cfg_custom_switch *custom_switches;
    cfg_custom_host *custom_hosts;
    cfg_custom_link *custom_links;
    cfg_xnet storage, frontend; /* extra networks (off unless their section is given) */
} cfg_fabric;

enum wd_action { WD_DROP, WD_FORWARD };
enum ecn_mark_at { ECN_MARK_DEQUEUE, ECN_MARK_ENQUEUE };
enum sched_kind { SCHED_STRICT, SCHED_DWRR };

typedef struct cfg_switch {
    uint64_t buffer_bytes;          /* default 64 MiB */
    double alpha;                   /* default 1 (dynamic threshold) */
    bool ecn_enabled;               /* default true */
    uint64_t ecn_kmin_bytes;        /* default 100 KB */
    uint64_t ecn_kmax_bytes;        /* default 400 KB */
    double ecn_pmax;                /* default 0.2 */
    enum ecn_mark_at ecn_mark_at;   /* default dequeue (as ns-3 HPCC/DCQCN and htsim) */
    bool pfc_enabled;               /* default true */
    uint8_t pfc_priorities;         /* bitmask of lossless classes, default 1<<3 */
    uint64_t pfc_xoff_bytes;        /* 0 = auto */
    uint64_t pfc_headroom_bytes;    /* 0 = auto */
    uint64_t pfc_xon_bytes;         /* SAI XON_TH, default 18432 (SONiC Broadcom profile) */
    uint64_t pfc_xon_offset_bytes;  /* SAI XON_OFFSET_TH, default 2496 (same profile) */
    sim_time wd_detect_ps;          /* default 200 ms */
    sim_time wd_restore_ps;         /* default 400 ms */
    enum wd_action wd_action;       /* default drop */
    enum sched_kind scheduler;      /* default strict */
    uint8_t weights[8];             /* DWRR weight per priority, 1..255, default all 1 */
    sim_time pfc_deadlock_ps;       /* no progress this long in a paused cycle = deadlock, 10 ms */
    bool trimming;                  /* packet trimming of UET data, default false */
    bool sharp;                     /* switches aggregate (SHARP); default: InfiniBand yes
                                     * (Quantum ships it), Ethernet no */
} cfg_switch;

enum transport_kind { TRANSPORT_ROCEV2, TRANSPORT_UET };
enum cc_kind { CC_DCQCN, CC_NONE, CC_NSCC, CC_TIMELY, CC_HPCC, CC_IB };
enum retx_kind { RETX_GO_BACK_N, RETX_SELECTIVE };
enum ooo_mode { OOO_AUTO, OOO_ON, OOO_OFF };

/* nic.profile: a whole DCQCN default set (values and sources in config.c cfg_dcqcn_profile and
 * docs/scenario.md). */
enum nic_profile { NIC_CONNECTX6, NIC_CONNECTX7, NIC_BLUEFIELD3, NIC_PAPER };

/* DCQCN with the NIC's parameter names (roce_rp / roce_np); model in transport/dcqcn.h. */
typedef struct cfg_dcqcn {
    sim_time rate_reduce_monitor_period_ps; /* 0 = cut at each CNP (paper) */
    sim_time rpg_time_reset_ps;             /* rate-increase timer */
    uint64_t rpg_byte_reset_bytes;          /* rate-increase byte counter */
    uint32_t rpg_threshold;                 /* F: fast-recovery steps */
    uint64_t rpg_ai_rate_bps;
    uint64_t rpg_hai_rate_bps;
    uint32_t rpg_gd;                        /* cut = α·2^10 / 2^rpg_gd of RC */
    uint32_t rpg_min_dec_fac;               /* largest cut, percent */
    uint64_t rpg_min_rate_bps;
    uint64_t rpg_max_rate_bps;              /* 0 = line rate */
    uint64_t rate_to_set_on_first_cnp_bps;  /* 0 = the current rate */
    uint32_t dce_tcp_g;                     /* 0..1023: α gain (1024 − g)/1024 */
    sim_time dce_tcp_rtt_ps;                /* α update period */
    uint32_t initial_alpha_value;           /* 1..1024, α = value/1024 */
    bool clamp_tgt_rate;
    bool clamp_tgt_rate_after_time_inc;
    bool hai_scaled;                        /* paper: RT += i·R_HAI (profile only) */
    sim_time min_time_between_cnps_ps;      /* notification point: CNP spacing */
    bool cnp_per_port;                      /* spacing per NIC port (ConnectX), else per QP */
} cfg_dcqcn;

/* The DCQCN parameters `profile` sets (nic.dcqcn keys then override them one by one). */
void cfg_dcqcn_profile(cfg_dcqcn *d, enum nic_profile profile);

/* TIMELY (Mittal et al. SIGCOMM'15), nic.cc: timely; model in transport/timely.h. */
typedef struct cfg_timely {
    sim_time t_low_ps, t_high_ps, min_rtt_ps;
    double beta;                    /* multiplicative decrease factor */
    double ewma;                    /* α: weight of the new RTT-difference sample */
    uint64_t add_rate_bps;          /* δ, additive increase step */
    uint64_t min_rate_bps;
    uint32_t hai_n;                 /* N: hyperactive increase after N events with gradient ≤ 0 */
    uint64_t segment_bytes;         /* acknowledged bytes per RTT sample (completion event) */
} cfg_timely;

/* UET (nic.transport: uet; transport/uet.h): REPS entropy spraying. */
#define REPS_MAX_CFG 16 /* the largest nic.uet.reps_buffer (uet.h REPS_MAX) */
typedef struct cfg_uet {
    uint32_t paths;                 /* distinct entropy values a connection sprays over, 256 */
    uint32_t reps_buffer;           /* REPS: recycled entropies kept, 8 */
    bool rccc;                      /* receiver credits (RCCC, transport/uet.h), off */
    uint64_t unsolicited;           /* RCCC: bytes a sender may send uncredited, 0 = one BDP */
} cfg_uet;

/* NSCC (nic.cc: nscc; transport/nscc.h). */
typedef struct cfg_nscc {
    sim_time base_rtt_ps;           /* unloaded round trip the window is sized for, 12 us */
    sim_time target_delay_ps;       /* queueing delay NSCC aims at, 6 us */
} cfg_nscc;
/* HPCC (Li et al. SIGCOMM'19), nic.cc: hpcc; model in transport/hpcc.h. */
typedef struct cfg_hpcc {
    double eta;                     /* η, target utilization */
    uint32_t max_stage;             /* additive-increase stages before a multiplicative update */
    uint64_t ai_rate_bps;           /* W_AI / T; 0 = the authors' 10·line/25 Mb/s per Gb/s */
} cfg_hpcc;

typedef struct cfg_nic {
    uint32_t mtu;                   /* default 4096 (256..4096) */
    enum transport_kind transport;  /* default rocev2 */
    enum cc_kind cc;                /* default dcqcn */
    enum nic_profile profile;       /* default connectx-7 */
    cfg_dcqcn dcqcn;
    cfg_timely timely;
    cfg_uet uet;
    cfg_nscc nscc;
    cfg_hpcc hpcc;
    uint32_t qps_per_connection;    /* default 1 */
    enum retx_kind retransmit;      /* default go-back-n */
    sim_time rto_ps;                /* default 4 ms */
    uint8_t priority;               /* traffic class of RoCE data and ACK/NAK, default 3 */
    uint8_t cnp_priority;           /* traffic class of CNPs, default 6 */
    /* host-side QoS as the NIC is configured (check, plan; see cfg_device) */
    uint8_t dscp;                   /* DSCP of RoCE data, default 26 */
    uint8_t cnp_dscp;               /* DSCP of CNPs, default 48 */
    uint8_t trust;                  /* TRUST_DSCP (default) | TRUST_PCP */
    uint32_t netdev_mtu;            /* the port's Ethernet (IP) MTU, default 9000 */
    uint32_t ack_every;             /* responder ACK coalescing (packets), default 16 */
    uint32_t reorder_tolerance;     /* selective: packets past a hole before it is NAKed, 64 */
    uint32_t retry_count;           /* RTO expiries without progress before the QP errors, 7 */
    sim_time failover_delay_ps;     /* dual-port NIC: link down to QPs moved, 100 ms */
    enum ooo_mode ooo_placement;    /* out-of-order placement, default auto (spray/adaptive) */
    sim_time reorder_window_ps;     /* OOO placement: a hole older than this is NAKed, 100 us */
} cfg_nic;

enum lb_mode { LB_ECMP, LB_FLOWLET, LB_SPRAY, LB_ADAPTIVE, LB_COLLECTIVE };
enum hash_kind { HASH_CRC16, HASH_CRC32, HASH_XOR, HASH_RANDOM };
enum {
    HF_SRC_IP = 1 << 0, HF_DST_IP = 1 << 1, HF_SRC_PORT = 1 << 2,
    HF_DST_PORT = 1 << 3, HF_PROTOCOL = 1 << 4,
    HF_ALL = (1 << 5) - 1,
};
enum adaptive_metric { ADAPT_QUEUE, ADAPT_UTILIZATION };

typedef struct cfg_lb {
    enum lb_mode mode;              /* default ecmp */
    enum hash_kind hash;            /* default crc32 */
    uint32_t fields;                /* HF_* bitmask, default all five */
    sim_time flowlet_gap_ps;        /* default 4 us */
    enum adaptive_metric adaptive_metric; /* default queue */
} cfg_lb;

enum job_kind { JOB_COLLECTIVE, JOB_TRAINING, JOB_TRAFFIC, JOB_CHAKRA, JOB_INFERENCE };
enum coll_op { OP_ALL_REDUCE, OP_REDUCE_SCATTER, OP_ALL_GATHER, OP_ALL_TO_ALL, OP_BROADCAST, OP_REDUCE };
enum coll_algo {
    ALGO_RING,
    ALGO_TREE,
    ALGO_HALVING_DOUBLING,
    ALGO_DIRECT,
    ALGO_HIERARCHICAL,
    ALGO_RECURSIVE_DOUBLING,
    ALGO_BINOMIAL,
    ALGO_SCATTER_ALLGATHER,
    ALGO_NVLS,  /* NVLink SHARP: the NVSwitch reduces (collective.h) */
    ALGO_SHARP, /* in-network reduction in the fabric's switches (collective.h, workload/sharp.h) */
    ALGO_NVLS_TREE, /* NVLS inside servers, a double binary tree across (collective.h) */
};
/* How many algorithms (not an enum member, so switches over them stay exhaustive). */
#define COLL_ALGO_COUNT (ALGO_NVLS_TREE + 1)
enum traffic_pattern {
    PAT_PERMUTATION,
    PAT_INCAST,
    PAT_ALL_TO_ALL,
    PAT_UNIFORM,
    PAT_LIST,
    PAT_STORAGE_WRITE,
    PAT_STORAGE_READ /* clients <-> storage servers (fabric.storage) */
};

/* One flow of a `pattern: list` traffic job (its `flows` entries, in file order). It starts at
 * `start` after its iteration's start, or, with `after`, the moment the last of the flows it
 * names has completed (its last byte accepted at the receiver). */
typedef struct cfg_flow {
    uint32_t src, dst;              /* host indices */
    uint64_t bytes;
    sim_time start_ps;              /* default 0; unused with `after` */
    uint32_t n_after;               /* 0: starts at start_ps */
    uint32_t *after;                /* indices into the job's flows (resolved from `id`s) */
    int line, col;                  /* position of the entry */
} cfg_flow;

/* A list of indices: `all`, an explicit list, or a range string "0-63". */
typedef struct cfg_index_set {
    bool all;                       /* default true */
    uint32_t n;
    uint32_t *idx;                  /* sorted as given; validated against the topology later */
    int line, col;                  /* position of the value, for range errors at build time */
} cfg_index_set;

typedef struct cfg_model {
    const char *preset;             /* NULL when explicit */
    double params;
    uint32_t layers, hidden, seq_len, vocab;
} cfg_model;

/* Training: Megatron rank order and placement of ranks on GPUs (workload/training.h). */
enum par_order { PAR_ORDER_TP_DP_PP, PAR_ORDER_TP_PP_DP };
enum par_placement { PAR_PLACE_CONTIGUOUS, PAR_PLACE_SCATTERED };

typedef struct cfg_job {
    const char *name;               /* default "job<i>" */
    enum job_kind kind;             /* required */
    int line, col;                  /* position of the job in the file */
    sim_time start_ps;              /* default 0 */
    int priority;                   /* traffic class 0..7; -1 (default) = nic.priority */
    uint32_t iterations;            /* default 1 */
    /* collective */
    enum coll_op op;                /* default all_reduce */
    enum coll_algo algorithm;       /* default ring */
    uint64_t size_bytes;            /* collective: default 64 MiB; traffic: default 1 MB */
    cfg_index_set ranks;            /* default all */
    uint32_t channels;              /* default 1 */
    bool pxn;                       /* all_to_all / all_gather (direct): cross-rail via NVLink */
    uint64_t chunk_bytes;           /* pipelining chunk, 0 = 512 KiB (NCCL_BUFFSIZE/NCCL_STEPS) */
    uint64_t reduce_bps;            /* GPU reduction rate (bits/s), 0 = negligible */
    uint32_t tenant;                /* index in scenario.tenants; CFG_NO_TENANT without */
    /* training */
    cfg_model model;
    uint32_t tp, pp, dp;            /* default 1 */
    uint32_t vp;                    /* virtual pipeline stages per stage, default 1 */
    uint32_t moe_experts;           /* MoE: experts per layer, 0 = dense (default) */
    uint32_t moe_top_k;             /* MoE: experts per token, default 2 */
    uint32_t moe_ep;                /* MoE: expert-parallel group size, default 1 */
    double moe_skew;                /* MoE: routing imbalance exponent, default 0 */
    uint32_t micro_batch, global_batch;
    double gpu_peak_tflops, gpu_mfu;
    uint32_t model_ffn, model_heads, model_kv_heads; /* 0 = from the preset (else GPT-style) */
    enum par_order order;           /* default tp-dp-pp */
    enum par_placement placement;   /* default contiguous */
    bool tp_per_layer;              /* default true */
    bool opt_sharded;               /* optimizer: sharded (reduce_scatter + all_gather) */
    bool recompute;                 /* default false */
    uint64_t bucket_bytes;          /* DP gradient bucket; 0 = auto (the default: Megatron-Core's
                                     * max(40M, 1M × dp) bf16 parameters, training.h) */
    /* training: checkpoint/restart (gpu-fail). Without `checkpoint` a failed GPU fails the job. */
    bool ckpt;                      /* a checkpoint block was given */
    uint32_t ckpt_interval;         /* iterations between checkpoints; 0 = none written (a
                                     * restart starts over from iteration 0) */
    sim_time ckpt_write_ps;         /* every GPU stalls this long per checkpoint, default 0 */
    sim_time ckpt_restart_ps;       /* from the failure to the restarted job's first step */
    uint64_t ckpt_bytes;            /* checkpoint size written to fabric.storage, 0 = none
                                     * (then write_time is the stall) */
    bool ckpt_shard_writers;        /* writers: shard (DP rank 0 of each TP x PP shard) instead
                                     * of every rank (Megatron dist-ckpt fully parallel save) */
    bool ckpt_async;                /* the next iteration starts while the write goes on */
    uint64_t load_bytes;            /* model_load: read from storage before the first step */
    uint64_t ds_sample_bytes;       /* dataset.sample_bytes: read from fabric.storage each
                                     * iteration (global_batch samples over the readers), 0 = no
                                     * dataset reads */
    bool ds_prefetch;               /* dataset.prefetch (default true): the next batch is read
                                     * while the current iteration runs */
    /* traffic */
    enum traffic_pattern pattern;   /* default permutation */
    cfg_index_set hosts;            /* default all */
    double load;                    /* uniform: fraction of host link rate, default 0.5 */
    cfg_cdf size_cdf;               /* flow sizes drawn from it (n = 0: every flow `size`) */
    sim_time duration_ps;           /* uniform: arrivals in [start, start + duration), 0 = none */
    uint64_t count;                 /* uniform: at most this many flows, 0 = no cap */
    /* chakra: the trace's files, one per rank in rank order, resolved against the scenario's
     * folder (`trace: PREFIX` = PREFIX.0.et, PREFIX.1.et, ... while they exist) */
    uint32_t n_trace_files;
    const char **trace_files;
    /* inference (workload/inference.h; shares model, parallelism tp/pp, moe, gpu, ranks) */
    double req_rate;                /* requests/s of the Poisson arrivals (0 with a trace) */
    uint32_t req_count;             /* requests served (with a trace: its rows) */
    uint32_t req_prompt, req_output; /* tokens per request without a trace: 1024 / 128 */
    const char *req_trace;          /* CSV of requests, NULL = Poisson */
    sim_time *trace_arrival_ps;     /* [req_count] with a trace */
    uint32_t *trace_prompt, *trace_output;
    uint32_t max_batch;             /* sequences per step, default 256 (vLLM max_num_seqs) */
    uint32_t max_batch_tokens;      /* prompt tokens per prefill step, default max(seq_len, 2048) */
    uint64_t hbm_bps;               /* HBM bandwidth per GPU, bits/s, default 3.35 TB/s (H100) */
    double hbm_eff;                 /* achieved share of it, default 0.8 */
    uint32_t prefill_gpus, decode_gpus; /* disaggregated: GPUs of each pool, 0 = colocated */
    cfg_flow *flows;                /* list: the flows, in file order */
    uint32_t n_flows;
    uint32_t *flow_order;           /* list: the flows in a dependency order (each after the
                                     * flows it waits for), for the ideal's chain */
    enum network_id network;        /* traffic: the network its hosts are on (default backend;
                                     * storage patterns: the storage network) */
} cfg_job;

/* sim.fidelity: packet-level (every frame) or flow-level (max-min fair fluid flows on the same
 * topology and routing; transport/flownet.h). */
enum fidelity { FIDELITY_PACKET, FIDELITY_FLOW };
const char *fidelity_name(enum fidelity f);

enum fault_kind {
    FAULT_LINK_DOWN, FAULT_LINK_UP, FAULT_GPU_SLOW, FAULT_PFC_STORM,
    FAULT_LINK_DEGRADED, FAULT_LINK_BER, FAULT_LINK_FLAP, FAULT_SWITCH_DOWN, FAULT_SWITCH_DRAIN,
    FAULT_GPU_FAIL, FAULT_KINDS_N
};
/* "link-down", ... (the scenario's spelling) */
const char *fault_kind_name(enum fault_kind k);
typedef struct cfg_fault {
    sim_time at_ps;
    enum fault_kind kind;
    const char *link;               /* link faults: "leaf0-spine1" */
    const char *sw;                 /* switch faults: the switch's name */
    uint32_t gpu, nic;
    double factor;
    sim_time duration_ps;           /* storm, degraded, ber, flap, switch-down: SIM_TIME_MAX =
                                     * until the end; switch-drain: the time it is down */
    sim_time detect_ps;             /* link/switch faults: until the switches notice (1 ms) */
    sim_time converge_ps;           /* link/switch faults: then until routing is updated (4 ms) */
    bool fast_reroute;              /* link/switch faults: the attached switches withdraw the
                                     * dead ports' next hops at once (default true) */
    double fraction;                /* link-degraded: share of the speed left (0, 1), or 0 ... */
    uint64_t speed_bps;             /* ... the speed left (`speed`), else 0 */
    double ber;                     /* link-ber: bit error rate (0, 1) */
    bool ber_pre_fec;               /* link-ber: `ber` is before RS(544,514) FEC (default: after) */
    sim_time period_ps, down_ps;    /* link-flap: one down+up cycle, and the down part of it */
    sim_time wait_ps;               /* switch-drain: from routes moved to shutdown (1 ms) */
    int line, col;
} cfg_fault;

/* goodput: the Monte Carlo of a long run under failures (workload/goodput.h). Rates are
 * interruptions per component and hour; defaults from Meta's Llama 3 report (config.c). */
typedef struct cfg_goodput {
    bool on;                        /* the section was given */
    const char *job;                /* training job name; NULL = the first training job */
    uint64_t iterations;            /* N to train (required) */
    uint32_t samples;               /* default 1000 */
    double rate_gpu, rate_nic, rate_link, rate_switch, rate_host, rate_other;
    int line, col;
} cfg_goodput;

enum {
    OUT_JSON = 1 << 0, OUT_CSV = 1 << 1, OUT_PROM = 1 << 2, OUT_TRACE = 1 << 3,
    OUT_PCAP = 1 << 4, OUT_HTML = 1 << 5, OUT_SQLITE = 1 << 6,
};

/* plan: the build sheet's physical assumptions (plan/plan.h; defaults and their sources in
 * config.c set_defaults and docs/plan.md). Powers in watts, lengths in millimetres. */
enum plan_cooling { COOL_AIR, COOL_LIQUID };
enum { TRUST_DSCP, TRUST_PCP };

/* devices: one switch or NIC whose configuration differs from the fabric default (check and
 * plan verify and write per-device settings; `run` simulates the fabric defaults). */
enum {
    DEV_MTU = 1 << 0,
    DEV_PFC = 1 << 1,
    DEV_PRIO = 1 << 2,
    DEV_CNP_PRIO = 1 << 3,
    DEV_DSCP = 1 << 4,
    DEV_CNP_DSCP = 1 << 5,
    DEV_TRUST = 1 << 6,
    DEV_KMIN = 1 << 7,
    DEV_KMAX = 1 << 8,
    DEV_PMAX = 1 << 9,
    DEV_DSCP_MAP = 1 << 10,
};
typedef struct cfg_device {
    const char *name; /* switch name, "serverN" (all its NIC ports) or "serverN:ethK" */
    bool nic;         /* `nic:` (else `switch:`) */
    int line, col;    /* position of the name, for errors at build time */
    uint32_t set;     /* DEV_* fields given */
    uint32_t mtu;     /* switch: port MTU; nic: netdev MTU */
    uint8_t pfc;      /* lossless classes (pfc_enable / mlnx_qos --pfc) */
    uint8_t priority, cnp_priority, dscp, cnp_dscp, trust; /* nic */
    uint64_t kmin_bytes, kmax_bytes;                       /* switch ECN */
    double pmax;
    int8_t dscp_to_tc[64]; /* switch: -1 = the default map (DSCP / 8) */
} cfg_device;
enum plan_placement { PLACE_END_OF_ROW, PLACE_TOP_OF_RACK, PLACE_RAIL_ROWS };
typedef struct cfg_plan {
    enum plan_cooling cooling;     /* default air */
    uint64_t rack_power_w;         /* 0 = by cooling: 15 kW air, 130 kW liquid */
    uint64_t server_power_w;       /* default 10200 (8-GPU H100 server) */
    uint64_t switch_power_w;       /* 0 = by switching capacity (plan.c) */
    enum plan_placement placement; /* default end-of-row */
    uint32_t racks_per_row;        /* server racks per row, default 16 */
    uint32_t switches_per_rack;    /* switches per network rack, default 16 */
    bool ipv6;                     /* also an IPv6 /127 per link, default false */
    uint64_t asn_base;             /* default 4200000000 (RFC 6996 private 32-bit) */
} cfg_plan;

/* An EVPN-VXLAN tenant (`tenants:`): a VRF with its own L3 VNI (RFC 7348 24-bit VNI; RFC 8365
 * EVPN network virtualization overlay). Jobs name it with `tenant:`. `import` lists the tenants
 * whose routes this VRF imports (route-target import: a route leak, which `check` reports). */
#define CFG_NO_TENANT UINT32_MAX
typedef struct cfg_tenant {
    const char *name;
    uint32_t vni;                   /* 1..16777215 */
    uint32_t n_import;
    uint32_t *import;               /* tenant indices */
    int line, col;
} cfg_tenant;

/* Where VXLAN encapsulation happens (fabric.vtep): at the leaf switches (the EVPN-VXLAN fabric
 * default: the overhead is on leaf-spine links only) or in the host NIC/DPU (host-based VTEP,
 * e.g. BlueField: on host links too). */
enum vtep_place { VTEP_LEAF, VTEP_HOST };

typedef struct scenario {
    arena mem;                      /* owns every string and array below */
    const char *file;               /* path as given */
    const char *name;               /* default: file's base name without extension */
    uint64_t seed;                  /* default 1 */
    sim_time stop_at_ps;            /* SIM_TIME_MAX when absent */
    enum fidelity fidelity;         /* sim.fidelity: packet (default) or flow (docs/fidelity.md) */
    cfg_fabric fabric;
    cfg_switch sw;
    cfg_nic nic;
    cfg_lb lb;
    cfg_plan plan;
    uint32_t n_devices;
    cfg_device *devices;
    uint32_t n_jobs;
    cfg_job *jobs;
    uint32_t n_faults;
    cfg_fault *faults;
    uint32_t n_tenants;             /* 0: no overlay (plain routed RoCEv2) */
    cfg_tenant *tenants;
    enum vtep_place vtep;           /* fabric.vtep, default leaf */
    cfg_goodput goodput;
    sim_time sample_interval_ps;    /* default 10 us */
    uint64_t pcap_max_packets;      /* default 100000, at most 10^9 */
    uint64_t pcap_max_bytes;        /* capture file budget, default 64 MiB, 1 KiB..64 GiB */
    uint32_t pcap_snaplen;          /* bytes stored per frame, default 128, 64..65535 */
    const char *pcap_staging_dir;   /* folder for the capture's temp file (the CLI sets it; NULL
                                     * = the system's temp folder); not a scenario key */
    const char *pcap_filter;        /* telemetry.pcap.filter, NULL = every frame */
    const char *output_dir;         /* default "out/<name>" */
    uint32_t output_formats;        /* OUT_* mask, default OUT_JSON */
    struct cfg_tree *tree;          /* parsed YAML kept for config_locate() */
    /* Every file the scenario reads by path (size_cdf CSVs, Chakra traces), resolved: whoever
     * must notice a change of the inputs (the sweep's resume hash) reads these too. */
    uint32_t n_ref_files;
    const char **ref_files;
} scenario;

/* One `--set KEY=VALUE` override; the value is parsed as a YAML scalar or flow collection. */
typedef struct cfg_override {
    const char *key;                /* dotted path, e.g. "fabric.host_link" or "workload.0.size" */
    const char *value;
} cfg_override;

/*
 * Load and validate `path`, apply `n_over` overrides, fill *sc. On failure returns the error
 * code (ERR_INVALID / ERR_IO), sets *e and leaves *sc freed. Never prints.
 */
int config_load(scenario *sc, const char *path, const cfg_override *over, int n_over, err *e);
/* Same, from a buffer (used by the fuzzer and tests); `name` stands in for the file name. */
int config_load_buffer(scenario *sc, const char *name, const char *buf, size_t len,
                       const cfg_override *over, int n_over, err *e);
/*
 * Find the line/col of a dotted key (e.g. "fabric.leaf_radix"; list elements as "workload.1.size"
 * or "workload[1].size"); returns false if absent or null. The position is the key's *value*
 * (where config errors about a bad value point), or the element's node for list elements.
 */
bool config_locate(const scenario *sc, const char *dotted, int *line, int *col);
/* Same, also giving the source name: the scenario file, or "--set" when the value came from an
 * override (then line is the override's 1-based index and col the column in "KEY=VALUE"). */
bool config_locate_at(const scenario *sc, const char *dotted, const char **file, int *line,
                      int *col);
/*
 * Set *e at the position of `dotted` with ERR_INVALID and return ERR_INVALID. If the key is
 * absent, the position is that of its closest enclosing section present in the file (e.g.
 * `fabric:`), else the file start (line 1, col 1). The message is prefixed with "KEY: " (KEY in
 * the display form "workload[1].size") unless it already starts with the key.
 */
int config_error_at(const scenario *sc, err *e, const char *dotted, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void scenario_free(scenario *sc);

const char *preset_name(enum fabric_preset p);
const char *job_kind_name(enum job_kind k);
const char *coll_op_name(enum coll_op o);
const char *coll_algo_name(enum coll_algo a);
const char *pattern_name(enum traffic_pattern p);

#endif
