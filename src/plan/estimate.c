/*
 * estimate.c — the memory estimate of a run (estimate.h).
 *
 * Counting, not building: every part is a count (ports, flows, transfers, tasks) times the size
 * of the struct that holds one, plus the executor's per-item arrays. Counts follow the planners'
 * own rules (collective.h, training.h) closely enough for a factor-2 estimate; where a planner's
 * exact count would need its whole algorithm (which transfers share a dependency list, how
 * many DP buckets a stage has) the estimate takes the larger, simpler figure. Sizes are
 * sizeof() of the real structs, so the estimate follows the code when a struct grows.
 *
 * Arithmetic is in double: counts of 10^12 transfers (chunk 1B on a huge collective) must give a
 * huge number, not wrap.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */

#include "estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/sim.h"
#include "../net/inttel.h"
#include "../net/net.h"
#include "../telemetry/pcap.h"
#include "../telemetry/sampler.h"
#include "../transport/nic.h"
#include "../workload/collective.h"
#include "../workload/run.h"
#include "../workload/traffic.h"
#include "../workload/training.h"

/* 2.5 MiB: measured, the RSS of a run of a handful of flows (code, libc, libyaml, scenario) */
#define BASE_BYTES ((uint64_t)5 << 19)
/* A plan transfer (24 B) + its share of the dependency array (~2 entries) + the successor lists
 * the executor derives (first + succ) + its `left` counter and connection index. */
#define XFER_BYTES (sizeof(coll_xfer) + 8 + 12 + 2 + 4)

static const char *const PART_NAMES[MEM_PARTS] = {
    "process", "fabric", "packets", "transport", "collective plans", "training tasks", "telemetry",
};

const char *mem_part_name(enum mem_part p)
{
    return p < MEM_PARTS ? PART_NAMES[p] : "?";
}

static double ceil_div(double a, double b)
{
    return b > 0 ? ceil(a / b) : a;
}

static double flow_bytes(const scenario *sc)
{
    uint32_t q = sc->nic.qps_per_connection ? sc->nic.qps_per_connection : 1;
    /* the flow and its QPs, its result record and FCT, the trace lane */
    return (double)sizeof(flow) + q * (double)sizeof(qp) + (double)sizeof(flow_record) + 16.0;
}

/*
 * Transfers and connections of a collective: `slots` (rank, step, channel) sends of
 * `slot_bytes` each, every one cut into ⌈slot_bytes / chunk⌉ transfers.
 */
typedef struct coll_count {
    double xfers, conns;
    double compact_bytes; /* > 0: a compact plan (no per-transfer memory), this many bytes */
    double chains;        /* compact: transfer chains, each with one message posted at a time */
} coll_count;

static void add_slots(coll_count *c, double slots, double slot_bytes, double chunk)
{
    if (slots <= 0)
        return;
    c->xfers += slots * (slot_bytes > 0 ? ceil_div(slot_bytes, chunk) : 1.0);
}

static coll_count coll_estimate(enum coll_op op, enum coll_algo algo, double n, double S, double ch,
                                double chunk, double g)
{
    coll_count c = {0, 0, 0, 0};
    if (n < 2 || S <= 0)
        return c;
    double ring_steps = 2 * (n - 1);
    bool chain = op == OP_BROADCAST || op == OP_REDUCE;
    double K0 = ceil_div(chain ? S / ch : S / (n * ch), chunk);
    double steps0 = op == OP_ALL_REDUCE ? ring_steps : n - 1;
    if (algo == ALGO_RING && S / ch >= 1 && (chain || S / (n * ch) >= 1) &&
        ch * (chain ? 1 : n) * steps0 * K0 < 4294967295.0) { /* 32-bit indices (coll_plan) */
        /* described, not listed (collective.h "Memory"): per channel its ring order and
         * connections; the executor keeps nothing per transfer, its reduction delay queue a slot
         * per chain of transfers and the ideal bound a window of (n + 1) chunks (a chain: 1) */
        double K = K0, P = chain ? 1 : n;
        c.conns = chain ? ch * (n - 1) : ch * n;
        c.xfers = ch * P * steps0 * K;
        c.compact_bytes = ch * n * (4 + 12) + ch * P * K * 16 + (P + 2) * K * 8 + 4096;
        c.chains = ch * P * K;
        return c;
    }
    switch (algo) {
    case ALGO_RING:
        if (op == OP_ALL_REDUCE)
            add_slots(&c, ch * n * ring_steps, S / (n * ch), chunk);
        else if (op == OP_REDUCE_SCATTER || op == OP_ALL_GATHER)
            add_slots(&c, ch * n * (n - 1), S / (n * ch), chunk);
        else
            add_slots(&c, ch * (n - 1), S / ch, chunk); /* a pipelined chain */
        c.conns = ch * n;
        break;
    case ALGO_TREE:
        /* two trees per channel, each with half the data; up and down for all_reduce */
        add_slots(&c, 2 * ch * (n - 1) * (op == OP_ALL_REDUCE ? 2 : 1), S / (2 * ch), chunk);
        c.conns = 2 * ch * 2 * (n - 1);
        break;
    case ALGO_HALVING_DOUBLING: {
        double rounds = ceil(log2(n)), phases = op == OP_ALL_REDUCE ? 2 : 1;
        /* round k sends S / 2^k per rank: about S per rank per phase in ⌈·/chunk⌉ pieces;
         * non-powers of two: the fold's whole-buffer steps on top */
        add_slots(&c, phases * n * rounds, S / rounds, chunk);
        add_slots(&c, 2 * (n - exp2(floor(log2(n)))), S, chunk);
        c.conns = n * rounds;
        break;
    }
    case ALGO_DIRECT:
        if (op == OP_BROADCAST || op == OP_REDUCE) {
            add_slots(&c, ch * (n - 1), S / ch, chunk);
            c.conns = ch * (n - 1);
        } else {
            double phases = op == OP_ALL_REDUCE ? 2 : 1;
            add_slots(&c, phases * ch * n * (n - 1), S / (n * ch), chunk);
            c.conns = ch * n * (n - 1);
        }
        break;
    case ALGO_RECURSIVE_DOUBLING: {
        double p2 = exp2(floor(log2(n))), rounds = log2(p2);
        if (op == OP_ALL_GATHER) /* the doubling half of halving-doubling */
            add_slots(&c, n * rounds, S / rounds, chunk);
        else /* every round the whole buffer; the fold's two steps for the extra ranks */
            add_slots(&c, ch * (p2 * rounds + 2 * (n - p2)), S / ch, chunk);
        c.conns = ch * n * (rounds + 1);
        break;
    }
    case ALGO_BINOMIAL:
        add_slots(&c, ch * (n - 1), S / ch, chunk);
        c.conns = ch * (n - 1);
        break;
    case ALGO_SCATTER_ALLGATHER:
        add_slots(&c, ch * (n - 1), S / (2 * ch), chunk);     /* binomial scatter */
        add_slots(&c, ch * n * (n - 1), S / (n * ch), chunk); /* ring all_gather */
        c.conns = ch * 2 * n;
        break;
    case ALGO_NVLS:
        /* per chunk round: n² switch reads, n reduced returns, n stores, n² multicasts */
        add_slots(&c, 2 * n * n + 2 * n, S / n, chunk);
        c.conns = 4 * n;
        break;
    case ALGO_NVLS_TREE: {
        /* per chunk of each slice: g reads, the return, the store, g copies per server; the
         * tree sends (about two per rank, half the slice each, up and down) */
        double gs = g > 1 ? g : 1;
        add_slots(&c, ch * n * (2 * gs + 2), S / (gs * ch), chunk);
        add_slots(&c, 4 * ch * n, S / (2 * gs * ch), chunk);
        c.conns = ch * n * 8;
        break;
    }
    case ALGO_SHARP: {
        /* intra-server RS + AG as hierarchical; each rank's block up and down its tree, and
         * (at most) as many AN hops again */
        double gs = g > 1 ? g : 1;
        add_slots(&c, 2 * ch * n * (gs - 1), S / (gs * ch), chunk);
        add_slots(&c, 4 * ch * n, S / (gs * ch), chunk);
        c.conns = ch * n * 6;
        break;
    }
    case ALGO_HIERARCHICAL: {
        double gs = g > 1 ? g : 1, servers = ceil_div(n, gs);
        add_slots(&c, 2 * ch * n * (gs - 1), S / (gs * ch), chunk); /* intra RS + AG */
        add_slots(&c, ch * n * 2 * (servers - 1), S / (gs * servers * ch), chunk);
        c.conns = ch * n * 2;
        break;
    }
    }
    if (c.conns > c.xfers)
        c.conns = c.xfers;
    return c;
}

static double job_ranks(const cfg_job *j, double gpus)
{
    return j->ranks.all ? gpus : (double)j->ranks.n;
}

static double collective_job(const scenario *sc, const cfg_job *j, double gpus, double *conns)
{
    double chunk = (double)(j->chunk_bytes ? j->chunk_bytes : COLL_CHUNK_DEFAULT);
    double g = sc->fabric.gpus_per_server ? sc->fabric.gpus_per_server : 1;
    coll_count c = coll_estimate(j->op, j->algorithm, job_ranks(j, gpus), (double)j->size_bytes,
                                 j->channels ? j->channels : 1, chunk, g);
    *conns = c.conns;
    if (c.compact_bytes > 0) {
        /* what is left per transfer is the transport's: every chain has a message posted (the
         * first step's all at once), a msg and a piece per QP each */
        uint32_t q = sc->nic.qps_per_connection ? sc->nic.qps_per_connection : 1;
        double posted = c.chains * ((double)sizeof(msg) + q * (double)sizeof(piece));
        /* transfers.csv keeps a start and an end per transfer, up to its row cap */
        double rows = 0;
        if (sc->output_formats & (OUT_CSV | OUT_HTML))
            rows = fmin(c.xfers * (j->iterations ? j->iterations : 1), (double)TRANSFERS_MAX);
        return c.compact_bytes + posted + rows * 16;
    }
    return c.xfers * (double)XFER_BYTES;
}

/* A Chakra job (workload/chakra_plan.h): the decoded trace while the plan is built (nodes with
 * their names and dependency lists, ~12x the protobuf bytes, which pack a node in ~20-40 bytes)
 * and the plan with per-iteration start/end times per node (~72 bytes a node); connections:
 * each rank's ring neighbours per process group and its message peers, bounded here by 4 per
 * rank. */
static double chakra_job(const cfg_job *j, double *conns)
{
    double file_bytes = 0;
    for (uint32_t i = 0; i < j->n_trace_files; i++) {
        struct stat st;
        if (stat(j->trace_files[i], &st) == 0)
            file_bytes += (double)st.st_size;
    }
    double nodes = file_bytes / 24;
    *conns = 4.0 * j->n_trace_files;
    return file_bytes * 12 + nodes * (72 + 16.0 * (j->iterations ? j->iterations : 1));
}

/* The collective plans a training job's cross-server groups run: a ring all_reduce of a
 * bucket over dp ranks, one plan per distinct bucket (plans are shared by the groups); MoE:
 * the direct all_to_all plan of an EP group. */
static double training_plans(const cfg_job *j, double dp, double bucket, double grad,
                             double buckets, double ep, double hidden, double tp)
{
    double plans = 0;
    if (dp > 1) {
        coll_count c = coll_estimate(OP_ALL_REDUCE, ALGO_RING, dp, fmin(bucket, grad), 1,
                                     (double)COLL_CHUNK_DEFAULT, 1);
        plans = (c.compact_bytes > 0 ? c.compact_bytes : c.xfers * (double)XFER_BYTES) *
                fmin(buckets, 4);
    }
    if (j->moe_experts && ep > 1) {
        double S = (double)(j->micro_batch ? j->micro_batch : 1) * (double)j->model.seq_len *
                   hidden * 2 * (j->moe_top_k ? j->moe_top_k : 2) / tp;
        coll_count c =
            coll_estimate(OP_ALL_TO_ALL, ALGO_DIRECT, ep, S, 1, (double)COLL_CHUNK_DEFAULT, 1);
        plans += c.xfers * (double)XFER_BYTES * 2;
    }
    return plans;
}

/* The training DAG of one iteration (training.h): compute chunks per pass (2 per layer with TP
 * per layer, else 1 per pass; the last stage per layer when DP buckets hang on it), a TP
 * all_reduce per chunk when tp > 1, PP sends at stage boundaries, DP bucket collectives. */
static double training_job(const scenario *sc, const cfg_job *j, double *conns)
{
    train_model m;
    memset(&m, 0, sizeof m);
    double layers = j->model.layers, hidden = j->model.hidden;
    if (j->model.preset && train_model_preset(j->model.preset, &m)) {
        layers = m.layers;
        hidden = m.hidden;
    }
    double tp = j->tp ? j->tp : 1, pp = j->pp ? j->pp : 1, dp = j->dp ? j->dp : 1;
    double R = tp * pp * dp;
    double mb =
        ceil_div(j->global_batch ? j->global_batch : 1, (j->micro_batch ? j->micro_batch : 1) * dp);
    if (mb < 1)
        mb = 1;
    double Ls = ceil_div(layers > 0 ? layers : 1, pp);
    double vp = j->vp ? j->vp : 1; /* interleaving: vp model chunks per stage, one pass each */
    double chunks = tp > 1 && j->tp_per_layer ? 2 * Ls + vp : dp > 1 ? Ls + vp : vp;
    double compute = R * mb * 2 * chunks;
    double tpc = tp > 1 ? (R / tp) * mb * 2 * chunks : 0;
    double p2p = (pp * vp - 1) * tp * dp * mb * 2;
    double bucket = (double)train_bucket_bytes(j->bucket_bytes, (uint32_t)dp); /* as the plan */
    double grad = 12 * hidden * hidden * Ls * 2 / tp; /* bf16 gradient shard of a stage */
    double buckets = dp > 1 ? ceil_div(grad, bucket) * (j->opt_sharded ? 2 : 1) : 0;
    double dpc = (R / dp) * buckets;
    /* MoE: a dispatch and a combine all_to_all per layer, forward and backward, per EP group
     * (layers run as halves: twice the compute chunks of a dense model without TP) */
    double epg = 0, ep = j->moe_ep ? j->moe_ep : 1;
    if (j->moe_experts) {
        epg = (R / ep) * Ls * mb * 4;
        if (!(tp > 1 && j->tp_per_layer))
            compute = R * mb * 2 * (2 * Ls + vp);
    }
    double tasks = compute + tpc + p2p + dpc + epg;
    double iters = j->iterations ? j->iterations : 1;
    /* a stored plan: the task, its dependency and successor entries (plan and executor), the
     * rank index, the builder's edge; the run's counter, FIFO link and connection; start and
     * end per iteration */
    double plan_task = (double)sizeof(train_task) + 3 * (8 + 4 + 4) + 12;
    double per_task = plan_task + 6 + 16 * iters;
    *conns = R * 4 + (j->moe_experts ? R * (ep - 1) : 0); /* PP neighbours, a ring per DP
                                                           * group, EP peers, per rank */
    double gps = sc->fabric.gpus_per_server ? sc->fabric.gpus_per_server : 8;
    if (!j->moe_experts && dp > 2 && tp <= gps && j->placement != PAR_PLACE_SCATTERED) {
        /* compact (training.h): a reduced plan of two replicas, stored; per task of the full
         * plan only the run's counter and the start and end per iteration; the P2P and DP
         * tasks keep a FIFO link and a connection */
        double reduced = (compute + tpc + p2p) * 2 / dp + dpc;
        return reduced * per_task + tasks * (4 + 16 * iters) + (p2p + dpc) * 8 +
               training_plans(j, dp, bucket, grad, buckets, ep, hidden, tp);
    }
    return tasks * per_task + training_plans(j, dp, bucket, grad, buckets, ep, hidden, tp);
}

static double traffic_job(const scenario *sc, uint32_t j, uint32_t n_hosts, double *conns)
{
    err e;
    err_clear(&e);
    *conns = (double)traffic_flow_count(sc, j, n_hosts, &e);
    return *conns * (double)sizeof(sim_time); /* each flow's arrival time (run.c) */
}

/* Packets at the peak. With ECN on, DCQCN holds a congested egress queue around Kmin..Kmax, so a
 * switch holds at most Kmax per port (and never more than its buffer); without ECN the buffer
 * fills. On top: every link's bandwidth-delay product in flight, and a few packets per QP in
 * the NICs. The pool grows in chunks of 4096 packets. */
static double packets_bytes(const scenario *sc, const net *n, double qps)
{
    double frame = (double)n->max_frame_bytes > 0 ? n->max_frame_bytes : 4200;
    double per_switch = (double)sc->sw.buffer_bytes;
    if (sc->sw.ecn_enabled) {
        double ports = n->n_switches ? (double)(n->n_ports - n->n_hosts) / n->n_switches : 0;
        double kmax = ports * (double)sc->sw.ecn_kmax_bytes;
        if (kmax < per_switch)
            per_switch = kmax;
    }
    double in_bufs = (double)n->n_switches * (per_switch / frame);
    double rate = (double)sc->fabric.host_link_bps > (double)sc->fabric.fabric_link_bps
                      ? (double)sc->fabric.host_link_bps
                      : (double)sc->fabric.fabric_link_bps;
    double bdp = rate / 8 * (double)sc->fabric.link_latency_ps * 1e-12;
    double on_links = (double)n->n_ports * ceil_div(bdp, frame);
    double in_nics = qps * 4;
    double pkts = ceil_div(in_bufs + on_links + in_nics, 4096) * 4096;
    /* the pool's objects carry the INT record after the packet under HPCC (net/inttel.h) */
    return pkts * (double)pkt_obj_bytes(n->int_on);
}

static double telemetry_bytes(const scenario *sc, const net *n, double flows)
{
    double b = 0;
    uint32_t fm = sc->output_formats;
    if (fm & OUT_HTML)
        fm |= OUT_JSON | OUT_CSV;
    if ((fm & (OUT_CSV | OUT_TRACE)) && sc->sample_interval_ps > 0)
        b += (double)SAMPLER_BUDGET_BYTES;
    if (fm & OUT_TRACE)
        b += fmin(flows, 100000) * 96;
    if (fm & OUT_PCAP)
        b += (double)sc->pcap_snaplen + 8192;
    (void)n;
    return b;
}

int mem_estimate_run(const scenario *sc, mem_estimate *out, err *e)
{
    memset(out, 0, sizeof *out);
    out->biggest_job = -1;
    sim s;
    sim_init(&s, sc->seed);
    /* unrouted: routing would double the set-up time of a large fabric just to count ECMP
     * groups; the FIBs (a uint32 per host each fabric switch routes to, net.h fib_n) are
     * added below */
    net *n = net_build_topology(sc, &s, e);
    if (!n) {
        sim_free(&s);
        return e->code ? e->code : ERR_INVALID;
    }
    double part[MEM_PARTS] = {0};
    part[MEM_BASE] = (double)BASE_BYTES;
    /* the arena holds nodes, ports, FIBs; ECMP groups (distinct next-hop sets, shared by
     * every switch and destination with the same member list: a few per switch, counted here
     * as two) and the deadlock scratch are beside it */
    /* FIBs (route.c): a scale-up domain's window (set here already); a fabric switch's group
     * per attachment class (about one per switch cabled to hosts: a leaf) and its window over
     * the hosts cabled to it, the host-class map */
    double fib_entries = n->n_hosts, leaves = 0, windows = 0, fabric_sw = 0;
    for (uint32_t i = 0; i < n->n_switches; i++) {
        const node *sw = n->switches[i];
        if (sw->tier == TIER_SCALE_UP) {
            fib_entries += sw->fib_n ? sw->fib_n : 1;
            continue;
        }
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint32_t p = 0; p < sw->n_ports; p++) {
            const node *x = sw->ports[p].peer->owner;
            if (x->kind == NODE_HOST) {
                lo = x->index < lo ? x->index : lo;
                hi = x->index + 1 > hi ? x->index + 1 : hi;
            }
        }
        fabric_sw++;
        leaves += lo != UINT32_MAX;
        windows += lo != UINT32_MAX ? hi - lo : 1;
    }
    fib_entries += windows + (leaves ? leaves : 1) * fabric_sw;
    /* the ports' cold blocks (net.h port_cold) are mapped only for ports that pause, drop or
     * mark: about 15 % of them in the 8,192-host permutation; a quarter is counted */
    part[MEM_FABRIC] = ((double)n->mem.used_bytes + fib_entries * 4) * 1.25 +
                       (double)n->n_ports * (12 + 0.25 * sizeof(port_cold)) +
                       (double)n->n_switches * 2 * 64;
    double gpus = net_gpus(n), flows = 0;
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        const cfg_job *job = &sc->jobs[j];
        double conns = 0, bytes = 0;
        enum mem_part where = MEM_TRANSPORT;
        if (job->kind == JOB_COLLECTIVE) {
            bytes = collective_job(sc, job, gpus, &conns);
            where = MEM_COLLECTIVES;
        } else if (job->kind == JOB_TRAINING) {
            bytes = training_job(sc, job, &conns);
            where = MEM_TRAINING;
        } else if (job->kind == JOB_CHAKRA) {
            bytes = chakra_job(job, &conns);
            where = MEM_TRAINING;
        } else if (job->kind == JOB_INFERENCE) {
            /* per request its state and its requests.csv record; connections: a TP group's
             * ring or all_to_all pairs, the pipeline sends, and disaggregated the KV pairs */
            double g = job->ranks.all ? gpus : job->ranks.n, rs = (double)job->tp * job->pp;
            double reps = rs > 0 ? g / rs : 0, dec = (double)job->decode_gpus / (rs ? rs : 1);
            conns = g * (job->tp > 1 ? job->tp : 1) + g + (g - job->decode_gpus) * dec;
            bytes = (double)job->req_count * 112 + reps * job->max_batch * 8;
        } else {
            bytes = traffic_job(sc, j, n->n_hosts, &conns);
        }
        double tbytes = conns * flow_bytes(sc);
        part[where] += bytes;
        part[MEM_TRANSPORT] += tbytes;
        flows += conns;
        double mine = bytes + tbytes;
        if (mine > (double)out->biggest_job_bytes) {
            out->biggest_job = (int32_t)j;
            out->biggest_job_bytes = mine > 1.8e19 ? UINT64_MAX : (uint64_t)mine;
        }
    }
    double qps = flows * (sc->nic.qps_per_connection ? sc->nic.qps_per_connection : 1);
    if (sc->fidelity == FIDELITY_FLOW) {
        /* flow level (transport/flownet.c): no packet pool; per QP its streams (one, or up to
         * 64 sprayed: about 128 bytes each) and its queue head (64), per connection its
         * successor hint (8), per link the fluid's arrays and sums (about 80 bytes) */
        bool spray = sc->lb.mode == LB_SPRAY || sc->nic.transport == TRANSPORT_UET;
        part[MEM_TRANSPORT] +=
            qps * ((spray ? 64.0 : 1.0) * 128 + 64) + flows * 8 + (double)n->n_ports * 80;
    } else {
        part[MEM_PACKETS] = packets_bytes(sc, n, qps);
    }
    part[MEM_TELEMETRY] = telemetry_bytes(sc, n, flows);
    net_free(n);
    sim_free(&s);
    double total = 0;
    for (int i = 0; i < MEM_PARTS; i++) {
        part[i] = floor(part[i]);
        out->part[i] = part[i] > 1.8e19 ? UINT64_MAX : (uint64_t)part[i];
        total += part[i];
    }
    out->total = total > 1.8e19 ? UINT64_MAX : (uint64_t)total;
    return ERR_OK;
}

uint64_t mem_available_bytes(const char **source)
{
    uint64_t avail = 0;
    const char *src = NULL;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                avail = (uint64_t)kb * 1024;
                src = "MemAvailable in /proc/meminfo";
                break;
            }
        fclose(f);
    }
    if (!avail) {
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0) {
            avail = (uint64_t)pages * (uint64_t)size;
            src = "free memory (sysconf)";
        }
    }
    /* a container's memory limit (cgroup v2): what it still allows */
    FILE *cg = fopen("/sys/fs/cgroup/memory.max", "r");
    if (cg) {
        unsigned long long max = 0, cur = 0;
        if (fscanf(cg, "%llu", &max) == 1) { /* "max" (no limit) does not scan */
            FILE *cc = fopen("/sys/fs/cgroup/memory.current", "r");
            if (cc) {
                if (fscanf(cc, "%llu", &cur) != 1)
                    cur = 0;
                fclose(cc);
            }
            uint64_t left = max > cur ? (uint64_t)(max - cur) : 0;
            if (!avail || left < avail) {
                avail = left;
                src = "the container's memory limit (cgroup memory.max)";
            }
        }
        fclose(cg);
    }
    static const struct {
        int res;
        const char *name;
    } lim[] = {{RLIMIT_AS, "the address-space limit (ulimit -v)"},
               {RLIMIT_DATA, "the data-segment limit (ulimit -d)"}};
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        struct rlimit rl;
        if (getrlimit(lim[i].res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            (!avail || (uint64_t)rl.rlim_cur < avail)) {
            avail = (uint64_t)rl.rlim_cur;
            src = lim[i].name;
        }
    }
    if (source)
        *source = src;
    return avail;
}
