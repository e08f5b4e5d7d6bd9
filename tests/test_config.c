/*
 * test_config.c — the scenario loader: documented defaults, every key of the spec example,
 * `--set` overrides (positions included), config_locate / config_error_at, cross-field checks.
 * Bad-input messages are covered file by file in tests/bad/ (test_bad_inputs.c).
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <stdlib.h>

#include "config/config.h"
#include "testlib.h"

static int load(scenario *sc, const char *yaml, const cfg_override *ov, int n, err *e)
{
    return config_load_buffer(sc, "t.yaml", yaml, strlen(yaml), ov, n, e);
}

/* The spec's example (spec/scenario.md), verbatim, including the `...` placeholders in the
 * custom section that only a `preset: custom` scenario reads. */
static const char SPEC_EXAMPLE[] =
    "name: rail64-allreduce        # free text\n"
    "seed: 1                       # default 1\n"
    "stop_at: 1s                   # optional cap on simulated time\n"
    "\n"
    "fabric:\n"
    "  preset: rail-optimized      # single-switch | leaf-spine | fat-tree | rail-optimized | "
    "rail-only | custom\n"
    "  servers: 8\n"
    "  gpus_per_server: 8\n"
    "  gpus_per_nic: 1             # 8 = one shared NIC per server (behind a PCIe switch)\n"
    "  nic_ports: 1                # 2 = dual-port NIC, dual-homed to two leaves\n"
    "  rails_per_leaf: 1           # 1 single-rail-per-switch\n"
    "  host_link: 400Gbps\n"
    "  fabric_link: 400Gbps        # leaf\xe2\x86\x94spine and spine\xe2\x86\x94super-spine\n"
    "  oversubscription: 1:1       # leaf downlink:uplink\n"
    "  leaf_radix: 64              # ports per leaf\n"
    "  spine_radix: 64\n"
    "  pods: 1                     # >1 adds a super-spine tier\n"
    "  k: 16                       # fat-tree preset only\n"
    "  link_latency: 1us           # or cable_length: 30m\n"
    "  switch_latency: 600ns       # pipeline latency per switch hop\n"
    "  scale_up: { bandwidth: 450GBps, latency: 1us }   # per GPU\n"
    "  custom:                     # preset: custom only\n"
    "    switches: [ {name: s0}, ... ]\n"
    "    hosts:    [ {name: h0, gpus: 8}, ... ]\n"
    "    links:    [ {a: h0, b: s0, speed: 400Gbps, latency: 500ns}, ... ]\n"
    "\n"
    "switch:\n"
    "  buffer: 64MiB               # shared buffer per switch\n"
    "  alpha: 1                    # dynamic threshold\n"
    "  ecn: { kmin: 100KB, kmax: 400KB, pmax: 0.2 }     # RED-style marking\n"
    "  pfc:\n"
    "    enabled: true\n"
    "    priorities: [3]           # lossless classes\n"
    "    xoff: auto                # or a size\n"
    "    headroom: auto            # or a size\n"
    "    watchdog: { detect: 200ms, restore: 400ms, action: drop }   # drop | forward\n"
    "  scheduler: strict           # strict | dwrr\n"
    "\n"
    "nic:\n"
    "  mtu: 4096                   # RoCE payload MTU (256..4096)\n"
    "  transport: rocev2           # rocev2 | uet\n"
    "  cc: dcqcn                   # dcqcn | none (uet: nscc | none)\n"
    "  profile: connectx-7         # connectx-6 | connectx-7 | bluefield-3 | paper\n"
    "  dcqcn: { rate_reduce_monitor_period: 4us, rpg_time_reset: 300us, rpg_byte_reset: 32767B,\n"
    "           rpg_threshold: 1, rpg_ai_rate: 5Mbps, rpg_hai_rate: 50Mbps, rpg_gd: 11,\n"
    "           rpg_min_dec_fac: 50, rpg_min_rate: 1Mbps, rpg_max_rate: 0bps,\n"
    "           rate_to_set_on_first_cnp: 0bps, dce_tcp_g: 1019, dce_tcp_rtt: 1us,\n"
    "           initial_alpha_value: 1023, clamp_tgt_rate: false,\n"
    "           clamp_tgt_rate_after_time_inc: true, min_time_between_cnps: 4us }\n"
    "  qps_per_connection: 1       # NCCL_IB_QPS_PER_CONNECTION\n"
    "  retransmit: go-back-n       # go-back-n | selective\n"
    "  rto: 4ms\n"
    "\n"
    "loadbalance:\n"
    "  mode: ecmp                  # ecmp | flowlet | spray | adaptive | collective\n"
    "  hash: crc32                 # crc16 | crc32 | xor | random  (SAI families)\n"
    "  fields: [src_ip, dst_ip, src_port, dst_port, protocol]\n"
    "  flowlet_gap: 4us\n"
    "  adaptive: { metric: queue } # queue | utilization\n"
    "\n"
    "workload:                     # a list of jobs; they share the fabric\n"
    "  - name: ar\n"
    "    kind: collective          # collective | training | traffic\n"
    "    op: all_reduce\n"
    "    algorithm: ring\n"
    "    size: 1GiB\n"
    "    ranks: all                # all | [0, 1, ...] | \"0-63\"\n"
    "    channels: 1               # NCCL channels (parallel rings)\n"
    "    iterations: 5\n"
    "    start: 0us\n"
    "  - name: llama\n"
    "    kind: training\n"
    "    model: { preset: llama3-70b }   # or { params: 70e9, layers: 80, hidden: 8192 }\n"
    "    parallelism: { tp: 8, pp: 4, dp: 2 }\n"
    "    micro_batch: 1\n"
    "    global_batch: 64\n"
    "    gpu: { peak_tflops: 989, mfu: 0.45 }\n"
    "    iterations: 3\n"
    "  - name: bg\n"
    "    kind: traffic\n"
    "    pattern: permutation      # permutation | incast | all-to-all | uniform\n"
    "    size: 2MB                 # bytes per flow\n"
    "    hosts: all                # all | [0, 5, ...] | \"0-63\"\n"
    "\n"
    "faults:\n"
    "  - { at: 2ms, kind: link-down, link: \"leaf0-spine1\" }\n"
    "  - { at: 5ms, kind: link-up,   link: \"leaf0-spine1\" }\n"
    "  - { at: 0s,  kind: gpu-slow,  gpu: 17, factor: 1.3 }\n"
    "  - { at: 1ms, kind: pfc-storm, nic: 5, duration: 10ms }\n"
    "\n"
    "telemetry:\n"
    "  sample_interval: 10us\n"
    "  pcap: { max_packets: 100000 }\n"
    "\n"
    "output:\n"
    "  dir: out/rail64             # default out/<name>\n"
    "  formats: [json, csv]        # json | csv | prom | trace | pcap | html | sqlite\n";

static void test_defaults(void)
{
    scenario sc;
    err e;
    int rc = config_load_buffer(&sc, "dir/tiny.yaml", "seed: 7\n", 8, NULL, 0, &e);
    CHECK_EQ_U64(rc, ERR_OK);
    if (rc) {
        fprintf(stderr, "  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        return;
    }
    CHECK_STR(sc.file, "dir/tiny.yaml");
    CHECK_STR(sc.name, "tiny");
    CHECK_STR(sc.output_dir, "out/tiny");
    CHECK_EQ_U64(sc.seed, 7);
    CHECK_EQ_U64(sc.stop_at_ps, SIM_TIME_MAX);
    const cfg_fabric *f = &sc.fabric;
    CHECK(f->preset == PRESET_SINGLE_SWITCH);
    CHECK_EQ_U64(f->servers, 8);
    CHECK_EQ_U64(f->gpus_per_server, 8);
    CHECK_EQ_U64(f->gpus_per_nic, 1);
    CHECK_EQ_U64(f->nic_ports, 1);
    CHECK_EQ_U64(f->rails_per_leaf, 1);
    CHECK_EQ_U64(f->host_link_bps, 400000000000ULL);
    CHECK_EQ_U64(f->fabric_link_bps, 400000000000ULL);
    CHECK_EQ_U64(f->oversub_down, 1);
    CHECK_EQ_U64(f->oversub_up, 1);
    CHECK_EQ_U64(f->leaf_radix, 64);
    CHECK_EQ_U64(f->spine_radix, 64);
    CHECK_EQ_U64(f->spines, 0);
    CHECK_EQ_U64(f->pods, 1);
    CHECK_EQ_U64(f->k, 4);
    CHECK_EQ_U64(f->link_latency_ps, 1000000);
    CHECK_EQ_U64(f->cable_length_mm, 0);
    CHECK_EQ_U64(f->switch_latency_ps, 600000);
    CHECK(!f->cut_through);
    CHECK_EQ_U64(f->scale_up_bps, 3600000000000ULL);
    CHECK_EQ_U64(f->scale_up_latency_ps, 1000000);
    CHECK_EQ_U64(f->n_custom_links, 0);
    const cfg_switch *s = &sc.sw;
    CHECK_EQ_U64(s->buffer_bytes, 64ULL << 20);
    CHECK_NEAR(s->alpha, 1.0, 0);
    CHECK(s->ecn_enabled);
    CHECK_EQ_U64(s->ecn_kmin_bytes, 100000);
    CHECK_EQ_U64(s->ecn_kmax_bytes, 400000);
    CHECK_NEAR(s->ecn_pmax, 0.2, 0);
    CHECK(s->pfc_enabled);
    CHECK_EQ_U64(s->pfc_priorities, 1u << 3);
    CHECK_EQ_U64(s->pfc_xoff_bytes, 0);
    CHECK_EQ_U64(s->pfc_headroom_bytes, 0);
    CHECK_EQ_U64(s->wd_detect_ps, 200 * SIM_MS);
    CHECK_EQ_U64(s->wd_restore_ps, 400 * SIM_MS);
    CHECK(s->wd_action == WD_DROP);
    CHECK(s->scheduler == SCHED_STRICT);
    const cfg_nic *n = &sc.nic;
    CHECK_EQ_U64(n->mtu, 4096);
    CHECK(n->transport == TRANSPORT_ROCEV2);
    CHECK(n->cc == CC_DCQCN);
    /* the file states every connectx-7 value explicitly: the same as the profile's */
    CHECK(n->profile == NIC_CONNECTX7);
    cfg_dcqcn cx;
    cfg_dcqcn_profile(&cx, NIC_CONNECTX7);
    const cfg_dcqcn *d = &n->dcqcn;
    CHECK(d->rate_reduce_monitor_period_ps == cx.rate_reduce_monitor_period_ps &&
          d->rpg_time_reset_ps == cx.rpg_time_reset_ps &&
          d->rpg_byte_reset_bytes == cx.rpg_byte_reset_bytes &&
          d->rpg_threshold == cx.rpg_threshold && d->rpg_ai_rate_bps == cx.rpg_ai_rate_bps &&
          d->rpg_hai_rate_bps == cx.rpg_hai_rate_bps && d->rpg_gd == cx.rpg_gd &&
          d->rpg_min_dec_fac == cx.rpg_min_dec_fac && d->rpg_min_rate_bps == cx.rpg_min_rate_bps &&
          d->rpg_max_rate_bps == cx.rpg_max_rate_bps &&
          d->rate_to_set_on_first_cnp_bps == cx.rate_to_set_on_first_cnp_bps &&
          d->dce_tcp_g == cx.dce_tcp_g && d->dce_tcp_rtt_ps == cx.dce_tcp_rtt_ps &&
          d->initial_alpha_value == cx.initial_alpha_value &&
          d->clamp_tgt_rate == cx.clamp_tgt_rate &&
          d->clamp_tgt_rate_after_time_inc == cx.clamp_tgt_rate_after_time_inc &&
          d->hai_scaled == cx.hai_scaled &&
          d->min_time_between_cnps_ps == cx.min_time_between_cnps_ps);
    CHECK_EQ_U64(d->dce_tcp_g, 1019);
    CHECK_EQ_U64(d->rpg_ai_rate_bps, 5000000);
    CHECK_EQ_U64(d->rpg_hai_rate_bps, 50000000);
    CHECK_EQ_U64(d->rpg_time_reset_ps, 300 * SIM_US);
    CHECK_EQ_U64(d->rpg_byte_reset_bytes, 32767);
    CHECK_EQ_U64(d->rpg_threshold, 1);
    CHECK_EQ_U64(d->min_time_between_cnps_ps, 4 * SIM_US);
    CHECK_EQ_U64(d->rpg_min_rate_bps, 1000000);
    CHECK_EQ_U64(n->qps_per_connection, 1);
    CHECK(n->retransmit == RETX_GO_BACK_N);
    CHECK_EQ_U64(n->rto_ps, 4 * SIM_MS);
    CHECK_EQ_U64(n->priority, 3);
    CHECK(sc.lb.mode == LB_ECMP);
    CHECK(sc.lb.hash == HASH_CRC32);
    CHECK_EQ_U64(sc.lb.fields, 31);
    CHECK_EQ_U64(sc.lb.flowlet_gap_ps, 4 * SIM_US);
    CHECK(sc.lb.adaptive_metric == ADAPT_QUEUE);
    /* No workload: one permutation traffic job of 1 MB over all hosts. */
    CHECK_EQ_U64(sc.n_jobs, 1);
    CHECK_STR(sc.jobs[0].name, "traffic");
    CHECK(sc.jobs[0].kind == JOB_TRAFFIC);
    CHECK(sc.jobs[0].pattern == PAT_PERMUTATION);
    CHECK_EQ_U64(sc.jobs[0].size_bytes, 1000000);
    CHECK(sc.jobs[0].hosts.all);
    CHECK_EQ_U64(sc.jobs[0].iterations, 1);
    CHECK_EQ_U64(sc.n_faults, 0);
    CHECK_EQ_U64(sc.sample_interval_ps, 10 * SIM_US);
    CHECK_EQ_U64(sc.pcap_max_packets, 100000);
    CHECK_EQ_U64(sc.output_formats, OUT_JSON);
    CHECK(sc.tree != NULL);
    scenario_free(&sc);
    CHECK(sc.tree == NULL);
}

static void test_spec_example(void)
{
    scenario sc;
    err e;
    int rc = load(&sc, SPEC_EXAMPLE, NULL, 0, &e);
    CHECK_EQ_U64(rc, ERR_OK);
    if (rc) {
        fprintf(stderr, "  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        return;
    }
    CHECK_STR(sc.name, "rail64-allreduce");
    CHECK_EQ_U64(sc.stop_at_ps, SIM_S);
    CHECK(sc.fabric.preset == PRESET_RAIL_OPTIMIZED);
    CHECK_EQ_U64(sc.fabric.k, 16);
    CHECK_EQ_U64(sc.fabric.scale_up_bps, 3600000000000ULL);
    CHECK_EQ_U64(sc.fabric.n_custom_switches, 0); /* ignored: preset is not custom */
    CHECK_EQ_U64(sc.sw.pfc_priorities, 1u << 3);
    /* default profile connectx-7: the firmware defaults */
    CHECK(sc.nic.profile == NIC_CONNECTX7);
    CHECK_EQ_U64(sc.nic.dcqcn.dce_tcp_g, 1019);
    CHECK_EQ_U64(sc.nic.dcqcn.rate_reduce_monitor_period_ps, 4 * SIM_US);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_byte_reset_bytes, 32767);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_time_reset_ps, 300 * SIM_US);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_threshold, 1);
    CHECK(!sc.nic.dcqcn.clamp_tgt_rate && sc.nic.dcqcn.clamp_tgt_rate_after_time_inc);
    CHECK_EQ_U64(sc.n_jobs, 3);
    const cfg_job *ar = &sc.jobs[0], *ll = &sc.jobs[1], *bg = &sc.jobs[2];
    CHECK_STR(ar->name, "ar");
    CHECK(ar->kind == JOB_COLLECTIVE);
    CHECK(ar->op == OP_ALL_REDUCE);
    CHECK(ar->algorithm == ALGO_RING);
    CHECK_EQ_U64(ar->size_bytes, 1ULL << 30);
    CHECK(ar->ranks.all);
    CHECK_EQ_U64(ar->iterations, 5);
    CHECK_EQ_U64(ar->line, 62);
    CHECK_EQ_U64(ar->col, 5);
    CHECK(ll->kind == JOB_TRAINING);
    CHECK_STR(ll->model.preset, "llama3-70b");
    CHECK_EQ_U64(ll->model.layers, 80);
    CHECK_EQ_U64(ll->model.hidden, 8192);
    CHECK_EQ_U64(ll->tp, 8);
    CHECK_EQ_U64(ll->pp, 4);
    CHECK_EQ_U64(ll->dp, 2);
    CHECK_EQ_U64(ll->global_batch, 64);
    CHECK_NEAR(ll->gpu_mfu, 0.45, 0);
    CHECK(bg->kind == JOB_TRAFFIC);
    CHECK_EQ_U64(bg->size_bytes, 2000000);
    CHECK_EQ_U64(sc.n_faults, 4);
    CHECK(sc.faults[0].kind == FAULT_LINK_DOWN);
    CHECK_STR(sc.faults[0].link, "leaf0-spine1");
    CHECK_EQ_U64(sc.faults[0].at_ps, 2 * SIM_MS);
    CHECK_EQ_U64(sc.faults[0].line, 86);
    CHECK(sc.faults[2].kind == FAULT_GPU_SLOW);
    CHECK_EQ_U64(sc.faults[2].gpu, 17);
    CHECK_NEAR(sc.faults[2].factor, 1.3, 0);
    CHECK(sc.faults[3].kind == FAULT_PFC_STORM);
    CHECK_EQ_U64(sc.faults[3].nic, 5);
    CHECK_EQ_U64(sc.faults[3].duration_ps, 10 * SIM_MS);
    CHECK_STR(sc.output_dir, "out/rail64");
    CHECK_EQ_U64(sc.output_formats, OUT_JSON | OUT_CSV);
    scenario_free(&sc);
}

static void test_values(void)
{
    static const char Y[] =
        "fabric:\n"
        "  preset: leaf-spine\n"
        "  gpus_per_nic: 8\n"
        "  cable_length: 30m\n"
        "  oversubscription: 2.5\n"
        "switch:\n"
        "  pfc: { priorities: [3, 4], xoff: 256KiB }\n"
        "nic: { transport: uet, profile: paper, dcqcn: { dce_tcp_g: 512 } }\n"
        "loadbalance: { fields: [dst_ip, protocol] }\n"
        "workload:\n"
        "  - { kind: collective, op: all_to_all, ranks: \"0-3,8, 10-11\" }\n"
        "  - { kind: traffic, pattern: uniform, load: 0.3, hosts: [5, 1, 3], duration: 1ms }\n"
        "  - { kind: training, model: { preset: gpt3-175b, seq_len: 4096 } }\n"
        "  - { kind: training, model: { params: 7e9, layers: 32, hidden: 4096 },\n"
        "      parallelism: { dp: 4 }, micro_batch: 2 }\n"
        "  - { kind: training, model: { preset: llama3-8b }, bucket: auto }\n"
        "  - { kind: training, model: { preset: llama3-8b }, bucket: 25MB }\n";
    scenario sc;
    err e;
    int rc = load(&sc, Y, NULL, 0, &e);
    CHECK_EQ_U64(rc, ERR_OK);
    if (rc) {
        fprintf(stderr, "  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        return;
    }
    CHECK_EQ_U64(sc.fabric.cable_length_mm, 30000);
    CHECK_EQ_U64(sc.fabric.link_latency_ps, 150 * SIM_NS);
    CHECK_EQ_U64(sc.fabric.oversub_down, 5);
    CHECK_EQ_U64(sc.fabric.oversub_up, 2);
    CHECK_EQ_U64(sc.sw.pfc_priorities, (1u << 3) | (1u << 4));
    CHECK_EQ_U64(sc.sw.pfc_xoff_bytes, 262144);
    CHECK(sc.nic.transport == TRANSPORT_UET);
    CHECK(sc.nic.cc == CC_NSCC); /* cc defaults by transport */
    /* the paper's set, one key overridden */
    CHECK(sc.nic.profile == NIC_PAPER);
    CHECK_EQ_U64(sc.nic.dcqcn.dce_tcp_g, 512);
    CHECK_EQ_U64(sc.nic.dcqcn.rate_reduce_monitor_period_ps, 0);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_time_reset_ps, 55 * SIM_US);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_byte_reset_bytes, 10000000);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_threshold, 5);
    CHECK_EQ_U64(sc.nic.dcqcn.rpg_ai_rate_bps, 40000000);
    CHECK_EQ_U64(sc.nic.dcqcn.min_time_between_cnps_ps, 50 * SIM_US);
    CHECK(sc.nic.dcqcn.clamp_tgt_rate && sc.nic.dcqcn.hai_scaled);
    CHECK_EQ_U64(sc.lb.fields, HF_DST_IP | HF_PROTOCOL);
    const cfg_job *j = sc.jobs;
    CHECK_STR(j[0].name, "job0");
    CHECK_STR(j[3].name, "job3");
    CHECK_EQ_U64(j[0].size_bytes, 64ULL << 20); /* collective default */
    CHECK(!j[0].ranks.all);
    CHECK_EQ_U64(j[0].ranks.n, 7);
    if (j[0].ranks.n == 7) {
        CHECK_EQ_U64(j[0].ranks.idx[0], 0);
        CHECK_EQ_U64(j[0].ranks.idx[4], 8);
        CHECK_EQ_U64(j[0].ranks.idx[6], 11);
    }
    CHECK_EQ_U64(j[0].ranks.line, 11);
    CHECK_EQ_U64(j[1].size_bytes, 1000000); /* traffic default */
    CHECK_NEAR(j[1].load, 0.3, 0);
    CHECK_EQ_U64(j[1].hosts.n, 3);
    CHECK_EQ_U64(j[1].hosts.idx[0], 5); /* as given */
    CHECK_EQ_U64(j[2].model.seq_len, 4096);
    CHECK_EQ_U64(j[2].model.layers, 96);
    CHECK_NEAR(j[3].model.params, 7e9, 0);
    CHECK(j[3].model.preset == NULL);
    CHECK_EQ_U64(j[3].global_batch, 8); /* micro_batch x dp x pp */
    /* DP bucket: absent and `auto` are both 0 (Megatron-Core's default, resolved with dp by
     * train_bucket_bytes); a size is kept as given */
    CHECK_EQ_U64(j[2].bucket_bytes, 0);
    CHECK_EQ_U64(j[4].bucket_bytes, 0);
    CHECK_EQ_U64(j[5].bucket_bytes, 25000000);
    scenario_free(&sc);
}

static void test_custom(void)
{
    static const char Y[] = "fabric:\n"
                            "  preset: custom\n"
                            "  custom:\n"
                            "    switches: [{name: s0}, {name: s1}]\n"
                            "    hosts: [{name: h0, gpus: 4}, {name: h1}]\n"
                            "    links:\n"
                            "      - {a: h0, b: s0, speed: 200Gbps, latency: 500ns}\n"
                            "      - {a: h1, b: s1}\n";
    scenario sc;
    err e;
    int rc = load(&sc, Y, NULL, 0, &e);
    CHECK_EQ_U64(rc, ERR_OK);
    if (rc) {
        fprintf(stderr, "  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        return;
    }
    CHECK_EQ_U64(sc.fabric.n_custom_switches, 2);
    CHECK_EQ_U64(sc.fabric.n_custom_hosts, 2);
    CHECK_EQ_U64(sc.fabric.custom_hosts[0].gpus, 4);
    CHECK_EQ_U64(sc.fabric.custom_hosts[1].gpus, 8);
    CHECK_EQ_U64(sc.fabric.n_custom_links, 2);
    CHECK_STR(sc.fabric.custom_links[0].b, "s0");
    CHECK_EQ_U64(sc.fabric.custom_links[0].speed_bps, 200000000000ULL);
    CHECK_EQ_U64(sc.fabric.custom_links[0].latency_ps, 500000);
    CHECK_EQ_U64(sc.fabric.custom_links[1].speed_bps, 0);
    CHECK_EQ_U64(sc.fabric.custom_links[1].latency_ps, SIM_TIME_MAX);
    CHECK_EQ_U64(sc.fabric.custom_links[1].line, 8);
    CHECK_EQ_U64(sc.fabric.custom_links[1].col, 9);
    scenario_free(&sc);

    CHECK(load(&sc, "fabric:\n  preset: custom\n", NULL, 0, &e) == ERR_INVALID);
    CHECK_STR(e.msg, "fabric.preset: preset custom needs a fabric.custom section with switches, "
                     "hosts and links");
    CHECK_EQ_U64(e.line, 2);
    CHECK_EQ_U64(e.col, 11);
}

static void test_overrides(void)
{
    static const char Y[] = "fabric:\n"
                            "  host_link: 400Gbps\n"
                            "workload:\n"
                            "  - { name: a, kind: collective, size: 1MB }\n"
                            "  - { name: b, kind: traffic }\n";
    cfg_override ov[] = {
        {"fabric.host_link", "800Gbps"},
        {"workload.0.size", "2MB"},
        {"workload[1].hosts", "[1, 2]"},
        {"nic.dcqcn.dce_tcp_g", "1016"},                             /* creates nic and nic.dcqcn */
        {"switch.ecn", "{kmin: 50KB, kmax: 200KB}"},                 /* flow mapping */
        {"workload.2", "{name: c, kind: traffic, pattern: incast}"}, /* appends */
        {"seed", "42"},
        {"name", "\"quoted name\""},
    };
    scenario sc;
    err e;
    int rc = load(&sc, Y, ov, (int)(sizeof ov / sizeof ov[0]), &e);
    CHECK_EQ_U64(rc, ERR_OK);
    if (rc) {
        fprintf(stderr, "  %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        return;
    }
    CHECK_EQ_U64(sc.fabric.host_link_bps, 800000000000ULL);
    CHECK_EQ_U64(sc.jobs[0].size_bytes, 2000000);
    CHECK_EQ_U64(sc.jobs[1].hosts.n, 2);
    CHECK_EQ_U64(sc.nic.dcqcn.dce_tcp_g, 1016);
    CHECK_EQ_U64(sc.sw.ecn_kmin_bytes, 50000);
    CHECK_EQ_U64(sc.sw.ecn_kmax_bytes, 200000);
    CHECK_EQ_U64(sc.n_jobs, 3);
    CHECK(sc.jobs[2].pattern == PAT_INCAST);
    CHECK_EQ_U64(sc.seed, 42);
    CHECK_STR(sc.name, "quoted name");
    CHECK_STR(sc.output_dir, "out/quoted_name");
    /* A located override value reports "--set", its index and the value's column. */
    const char *file = NULL;
    int line = 0, col = 0;
    CHECK(config_locate_at(&sc, "fabric.host_link", &file, &line, &col));
    CHECK_STR(file, "--set");
    CHECK_EQ_U64(line, 1);
    CHECK_EQ_U64(col, 18);
    CHECK(config_locate_at(&sc, "workload.0.name", &file, &line, &col));
    CHECK_STR(file, "t.yaml");
    CHECK_EQ_U64(line, 4);
    CHECK_EQ_U64(col, 13);
    scenario_free(&sc);

    /* An empty value means "default". */
    cfg_override unset[] = {{"fabric.host_link", ""}};
    CHECK_EQ_U64(load(&sc, Y, unset, 1, &e), ERR_OK);
    CHECK_EQ_U64(sc.fabric.host_link_bps, 400000000000ULL);
    scenario_free(&sc);
}

typedef struct ovbad {
    const char *key, *value;
    int line, col;
    const char *msg;
} ovbad;

static void test_override_errors(void)
{
    static const char Y[] = "fabric: { host_link: 400Gbps }\n"
                            "workload: [ { kind: traffic } ]\n";
    static const ovbad CASES[] = {
        {"fabric.hots_link", "800Gbps", 2, 1,
         "fabric.hots_link: unknown key (did you mean \"host_link\"?)"},
        {"fabric.host_link", "800", 2, 18,
         "fabric.host_link: expected a rate like \"400Gbps\", got \"800\""},
        {"nic.mtu", "9000", 2, 9, "nic.mtu: expected 256..4096, got 9000"},
        {"fabrik.servers", "4", 2, 1, "fabrik: unknown top-level key (did you mean \"fabric\"?)"},
        {"workload.0.size", "[1]", 2, 17,
         "workload[0].size: expected a size like \"4KiB\", got a sequence"},
        {"switch.ecn", "{kmin: 1KB, kmax: x}", 2, 30,
         "switch.ecn.kmax: expected a size like \"4KiB\", got \"x\""},
        {"workload.5.size", "1MB", 2, 1,
         "workload.5.size: index 5 is out of range (the list has 1 item)"},
        {"fabric.host_link.x", "1", 2, 1,
         "fabric.host_link.x: cannot set \"x\" inside a scalar value"},
        {"fabric..x", "1", 2, 1,
         "expected KEY=VALUE with a dotted KEY like fabric.host_link, got \"fabric..x\""},
        {"workload.x", "1", 2, 1, "workload.x: expected a list index at \"x\""},
        {"seed", "[1, 2", 2, 11, NULL}, /* YAML syntax error at the end of the value */
        {"workload.1", "{size: 1MB}", 2, 12,
         "workload[1]: missing required key \"kind\" (collective | training | traffic | chakra | inference)"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const ovbad *c = &CASES[i];
        /* Put the bad override second to check the index is reported 1-based. */
        cfg_override ov[2] = {{"seed", "3"}, {c->key, c->value}};
        scenario sc;
        err e;
        int rc = load(&sc, Y, ov, 2, &e);
        CHECK_EQ_U64(rc, ERR_INVALID);
        if (rc != ERR_INVALID)
            continue;
        CHECK_STR(e.file, "--set");
        CHECK_EQ_U64(e.line, c->line);
        CHECK_EQ_U64(e.col, c->col);
        if (c->msg)
            CHECK_STR(e.msg, c->msg);
        if (e.col != c->col || (c->msg && strcmp(e.msg, c->msg)))
            fprintf(stderr, "  case %zu: --set %s=%s -> %d:%d %s\n", i, c->key, c->value, e.line,
                    e.col, e.msg);
        CHECK(sc.tree == NULL); /* freed on failure */
    }
}

static void test_locate(void)
{
    static const char Y[] = "name: x\n"
                            "fabric:\n"
                            "  leaf_radix: 32\n"
                            "workload:\n"
                            "  - kind: traffic\n"
                            "    size: 4KB\n";
    scenario sc;
    err e;
    CHECK_EQ_U64(load(&sc, Y, NULL, 0, &e), ERR_OK);
    int line = 0, col = 0;
    CHECK(config_locate(&sc, "fabric.leaf_radix", &line, &col));
    CHECK_EQ_U64(line, 3);
    CHECK_EQ_U64(col, 15);
    CHECK(config_locate(&sc, "workload.0.size", &line, &col));
    CHECK_EQ_U64(line, 6);
    CHECK_EQ_U64(col, 11);
    CHECK(config_locate(&sc, "workload[0].size", &line, &col));
    CHECK_EQ_U64(line, 6);
    CHECK(config_locate(&sc, "workload.0", &line, &col));
    CHECK_EQ_U64(line, 5);
    CHECK_EQ_U64(col, 5);
    CHECK(!config_locate(&sc, "fabric.spine_radix", &line, &col));
    CHECK(!config_locate(&sc, "workload.1.size", &line, &col));
    CHECK(!config_locate(&sc, "", &line, &col));

    err_clear(&e);
    CHECK_EQ_U64(
        config_error_at(&sc, &e, "fabric.leaf_radix", "%u ports cannot hold %u rails", 32u, 64u),
        ERR_INVALID);
    CHECK_STR(e.file, "t.yaml");
    CHECK_EQ_U64(e.line, 3);
    CHECK_EQ_U64(e.col, 15);
    CHECK_STR(e.msg, "fabric.leaf_radix: 32 ports cannot hold 64 rails");
    /* Absent key: the closest enclosing section present. */
    err_clear(&e);
    config_error_at(&sc, &e, "fabric.spine_radix", "too small");
    CHECK_EQ_U64(e.line, 3);
    CHECK_EQ_U64(e.col, 3);
    CHECK_STR(e.msg, "fabric.spine_radix: too small");
    /* Nothing on the path: the file start. The key prefix is not doubled. */
    err_clear(&e);
    config_error_at(&sc, &e, "switch.buffer", "switch.buffer: too small");
    CHECK_EQ_U64(e.line, 1);
    CHECK_EQ_U64(e.col, 1);
    CHECK_STR(e.msg, "switch.buffer: too small");
    err_clear(&e);
    config_error_at(&sc, &e, "workload.0.size", "too big");
    CHECK_STR(e.msg, "workload[0].size: too big");
    scenario_free(&sc);
}

static void test_misc(void)
{
    scenario sc;
    err e;
    /* {} is a valid scenario with every default; the name comes from the buffer name. */
    CHECK_EQ_U64(config_load_buffer(&sc, "x/y/run.v2.yaml", "{}", 2, NULL, 0, &e), ERR_OK);
    CHECK_STR(sc.name, "run.v2");
    scenario_free(&sc);
    /* null values take the default */
    CHECK_EQ_U64(load(&sc, "fabric:\nswitch: ~\nseed: null\n", NULL, 0, &e), ERR_OK);
    CHECK_EQ_U64(sc.seed, 1);
    scenario_free(&sc);
    /* Missing file: ERR_IO, no position. */
    CHECK_EQ_U64(config_load(&sc, "/nonexistent/x.yaml", NULL, 0, &e), ERR_IO);
    CHECK_EQ_U64(e.line, 0);
    CHECK_STR(e.file, "/nonexistent/x.yaml");
    /* A quoted unit quantity is fine; a quoted integer is not. */
    CHECK_EQ_U64(load(&sc, "fabric: { host_link: \"800Gbps\" }\n", NULL, 0, &e), ERR_OK);
    CHECK_EQ_U64(sc.fabric.host_link_bps, 800000000000ULL);
    scenario_free(&sc);
    CHECK_EQ_U64(load(&sc, "seed: \"1\"\n", NULL, 0, &e), ERR_INVALID);
    CHECK_STR(e.msg, "seed: expected an integer, got the string \"1\" (remove the quotes)");
    /* The names of enums used in reports. */
    CHECK_STR(preset_name(PRESET_RAIL_ONLY), "rail-only");
    CHECK_STR(job_kind_name(JOB_TRAINING), "training");
    CHECK_STR(job_kind_name(JOB_CHAKRA), "chakra");
    CHECK_STR(job_kind_name(JOB_INFERENCE), "inference"); /* was "?" in summary.json */
    CHECK_STR(coll_op_name(OP_REDUCE_SCATTER), "reduce_scatter");
    CHECK_STR(coll_algo_name(ALGO_HALVING_DOUBLING), "halving-doubling");
    CHECK_STR(pattern_name(PAT_ALL_TO_ALL), "all-to-all");
    /* Loading a file from disk works end to end. */
    char path[] = "/tmp/wr_test_config_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *fp = fdopen(fd, "w");
        fputs(SPEC_EXAMPLE, fp);
        fclose(fp);
        CHECK_EQ_U64(config_load(&sc, path, NULL, 0, &e), ERR_OK);
        CHECK_EQ_U64(sc.n_jobs, 3);
        scenario_free(&sc);
        remove(path);
    }
}

int main(void)
{
    TEST_RUN(test_defaults);
    TEST_RUN(test_spec_example);
    TEST_RUN(test_values);
    TEST_RUN(test_custom);
    TEST_RUN(test_overrides);
    TEST_RUN(test_override_errors);
    TEST_RUN(test_locate);
    TEST_RUN(test_misc);
    return tl_finish();
}
