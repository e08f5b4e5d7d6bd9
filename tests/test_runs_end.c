/*
 * test_runs_end.c — every run ends, with the documented outcome: a QP that can never be
 * acknowledged exceeds nic.retry_count and fails its job (other jobs go on); a pfc-storm without
 * duration ends with the jobs; a dual-port NIC fails over to its other port; sprayed RoCE with
 * out-of-order placement retransmits only what was lost; NAKs are counted at both ends. Each run
 * keeps byte conservation exact.
 */
#include <string.h>

#include "config/config.h"
#include "core/time.h"
#include "testlib.h"
#include "workload/run.h"

static const char leafspine[] =
    "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"
    "         host_link: 100Gbps, fabric_link: 100Gbps}\n";

/* Run `yaml` to its end; *out gets the stats (jobs copied), false if it did not build. */
static bool run_yaml(const char *yaml, run_stats *out, job_result *jobs, uint32_t max_jobs)
{
    scenario sc;
    run *r = tl_start(&sc, "runs_end.yaml", yaml, NULL, 0);
    memset(out, 0, sizeof *out);
    if (!r)
        return false;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    *out = *st;
    for (uint32_t j = 0; j < st->n_jobs && j < max_jobs; j++)
        jobs[j] = st->jobs[j];
    out->jobs = NULL;
    out->ports = NULL;
    out->flows = NULL;
    uint64_t naks = 0, naks_rx = 0;
    for (uint32_t h = 0; h < st->n_nics; h++) {
        naks += st->nics[h].naks_sent;
        naks_rx += st->nics[h].naks_received;
    }
    out->nics = NULL;
    CHECK_EQ_U64(naks, st->naks_sent);
    CHECK_EQ_U64(naks_rx, st->naks_received);
    CHECK(st->naks_received <= st->naks_sent);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes + st->dropped_bytes + st->inflight_bytes);
    run_free(r);
    scenario_free(&sc);
    return true;
}

/* A host link taken down and never brought back: the QP sending to it times out 1 + 7 times,
 * goes to error and fails its job, with the link named; the other job completes. */
static void test_host_link_down_forever(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%snic: {rto: 100us}\n"
             "workload:\n"
             "  - {name: cut, kind: traffic, pattern: incast, hosts: [0, 1], size: 4MB}\n"
             "  - {name: fine, kind: traffic, pattern: incast, hosts: [2, 3], size: 1MB}\n"
             "faults: [{at: 10us, kind: link-down, link: leaf0-h0}]\n",
             leafspine);
    run_stats st;
    job_result j[2];
    if (!run_yaml(y, &st, j, 2))
        return;
    fprintf(stderr, "  end %.1f us, %s; cut: %s\n", (double)st.end_ps / 1e6,
            end_reason_name(st.end_reason), j[0].reason);
    CHECK(j[0].failed);
    CHECK(!j[0].completed);
    CHECK(strstr(j[0].reason, "QP h1->h0 exceeded retry_count 7") != NULL);
    CHECK(strstr(j[0].reason, "link leaf0-h0 is down") != NULL);
    CHECK(j[1].completed);
    CHECK(!j[1].failed);
    CHECK_EQ_U64(st.end_reason, END_JOBS_FAILED);
    CHECK_EQ_U64(st.jobs_failed, 1);
    CHECK_EQ_U64(st.qps_failed, 1);
    CHECK_EQ_U64(st.rto_events, 8); /* 7 retries, the 8th expiry errors the QP */
    /* the last acknowledgement came before 10 us; 8 timeouts of 100 us later it failed */
    CHECK(j[0].failed_at_ps >= 800 * SIM_US && j[0].failed_at_ps <= 810 * SIM_US + 10 * SIM_US);
    /* every job is over then: the run ends as soon as the fabric has drained, not at the
     * routing update the link-down's detect (1 ms) + converge (4 ms) would bring at 5.01 ms */
    CHECK(st.end_ps >= j[0].failed_at_ps && st.end_ps <= j[0].failed_at_ps + 10 * SIM_US);
    CHECK(!st.hit_stop_at);
}

/* The sender's own link is down before the job starts: nothing is ever in flight, so no retry
 * timer runs; the run ends when the events do and says why the job stalled. With a dual-port
 * NIC the flow starts on the other port once the failover delay has passed. */
static void test_sender_link_down_before_start(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%snic: {rto: 100us}\n"
             "workload: [{name: cut, kind: traffic, pattern: incast, hosts: [0, 1], size: 1MB,\n"
             "            start: 10us}]\n"
             "faults: [{at: 0us, kind: link-down, link: leaf0-h1}]\n",
             leafspine);
    run_stats st;
    job_result j[1];
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  %s: %s\n", end_reason_name(st.end_reason), j[0].reason);
    CHECK(j[0].failed);
    CHECK_EQ_U64(st.end_reason, END_STALLED);
    CHECK(strstr(j[0].reason, "stalled: h1 could not send to h0, its link leaf0-h1 is down") !=
          NULL);
    CHECK_EQ_U64(st.sent_bytes, 0);

    snprintf(y, sizeof y,
             "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 1, nic_ports: 2,\n"
             "         leaf_radix: 4, host_link: 100Gbps, fabric_link: 100Gbps}\n"
             "nic: {failover_delay: 1ms}\n"
             "workload: [{name: pair, kind: traffic, pattern: incast, hosts: [0, 2], size: 1MB,\n"
             "            start: 10us}]\n"
             "faults: [{at: 0us, kind: link-down, link: leaf1-h2}]\n");
    if (!run_yaml(y, &st, j, 1))
        return;
    CHECK(j[0].completed);
    CHECK_EQ_U64(st.n_failovers, 1);
    CHECK_EQ_U64(st.failovers[0].from_host, 2);
    CHECK(j[0].end_ps > SIM_MS);
    CHECK_EQ_U64(st.retransmitted_packets, 0); /* nothing had been sent on the dead port */
}

/* retry_count 0: the first timeout errors the QP. */
static void test_retry_count_zero(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%snic: {rto: 100us, retry_count: 0}\n"
             "workload: [{name: cut, kind: traffic, pattern: incast, hosts: [0, 1], size: 4MB}]\n"
             "faults: [{at: 10us, kind: link-down, link: leaf0-h0}]\n",
             leafspine);
    run_stats st;
    job_result j[1];
    if (!run_yaml(y, &st, j, 1))
        return;
    CHECK(j[0].failed);
    CHECK_EQ_U64(st.rto_events, 1);
    CHECK(strstr(j[0].reason, "exceeded retry_count 0") != NULL);
    CHECK(j[0].failed_at_ps <= 120 * SIM_US);
}

/* A collective whose ring crosses a dead host link: the job fails and posts nothing more. */
static void test_collective_fails_and_stops(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%snic: {rto: 100us}\n"
             "workload: [{name: ar, kind: collective, op: all_reduce, size: 8MB,\n"
             "            iterations: 3}]\n"
             "faults: [{at: 20us, kind: link-down, link: leaf1-h2}]\n",
             leafspine);
    run_stats st;
    job_result j[1];
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  end %.1f us; ar: %s\n", (double)st.end_ps / 1e6, j[0].reason);
    CHECK(j[0].failed);
    CHECK(!j[0].completed);
    CHECK(strstr(j[0].reason, "exceeded retry_count 7") != NULL);
    CHECK_EQ_U64(st.end_reason, END_JOBS_FAILED);
    CHECK(st.end_ps <= 20 * SIM_US + 5 * SIM_MS); /* the routing update is the last event */
}

/* A training job whose DP all_reduce crosses a dead host link fails in its first iteration and
 * runs no further task. */
static void test_training_fails_and_stops(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%snic: {rto: 100us}\n"
             "workload:\n"
             "  - {name: t, kind: training, iterations: 3, parallelism: {dp: 4},\n"
             "     model: {params: 20e6, layers: 2, hidden: 512, seq_len: 128}}\n"
             "faults: [{at: 50us, kind: link-down, link: leaf1-h2}]\n",
             leafspine);
    run_stats st;
    job_result j[1];
    if (!run_yaml(y, &st, j, 1))
        return;
    CHECK(j[0].failed);
    CHECK(!j[0].completed);
    CHECK(strstr(j[0].reason, "exceeded retry_count 7") != NULL);
    CHECK(j[0].tasks_done < j[0].tasks_total);
    CHECK_EQ_U64(j[0].n_iterations, 0);
    CHECK_EQ_U64(st.end_reason, END_JOBS_FAILED);
}

/* A pfc-storm without duration on a NIC no job uses ends with the jobs; one on the receiver of
 * an incast makes its job fail, and the run still ends. */
static void test_endless_storm(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%snic: {rto: 100us}\n"
             "workload: [{name: pair, kind: traffic, pattern: incast, hosts: [0, 1], size: 1MB}]\n"
             "faults: [{at: 5us, kind: pfc-storm, nic: 3}]\n",
             leafspine);
    run_stats st;
    job_result j[1];
    if (!run_yaml(y, &st, j, 1))
        return;
    CHECK(j[0].completed);
    CHECK_EQ_U64(st.end_reason, END_COMPLETED);
    CHECK(st.pfc_pause_sent > 0);
    /* the storm stopped with the job: what is left is the switch's PFC watchdog timer (200 ms
     * after the first pause), not an endless storm */
    CHECK(st.end_ps <= 5 * SIM_US + 200 * SIM_MS + 10 * SIM_US);

    snprintf(y, sizeof y,
             "%snic: {rto: 100us}\n"
             "workload: [{name: pair, kind: traffic, pattern: incast, hosts: [0, 1], size: 4MB}]\n"
             "faults: [{at: 20us, kind: pfc-storm, nic: 0}]\n",
             leafspine);
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  storm on the receiver: end %.1f us, %s; %s\n", (double)st.end_ps / 1e6,
            end_reason_name(st.end_reason), j[0].reason);
    CHECK(j[0].failed);
    CHECK(strstr(j[0].reason, "h0's NIC port is holding its link paused (PFC)") != NULL);
    CHECK(st.end_reason == END_JOBS_FAILED || st.end_reason == END_STALLED);
    CHECK(st.end_ps <= 20 * SIM_US + 200 * SIM_MS + 10 * SIM_US);
}

/* Dual-port NICs: h0 and h1 are the two ports of one NIC. h0's link dies; after
 * failover_delay its QPs move to h1 and the transfer completes. With a detection delay beyond
 * the QP's retry budget (rto × 8) the QP errors first and the job fails. */
static void test_dual_port_failover(void)
{
    static const char dual[] =
        "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 1, nic_ports: 2,\n"
        "         leaf_radix: 4, host_link: 100Gbps, fabric_link: 100Gbps}\n";
    char y[2048];
    run_stats st;
    job_result j[1];
    snprintf(y, sizeof y,
             "%snic: {rto: 200us, failover_delay: 1ms}\n"
             "workload: [{name: pair, kind: traffic, pattern: incast, hosts: [0, 2], size: 4MB}]\n"
             "faults: [{at: 20us, kind: link-down, link: leaf0-h0}]\n",
             dual);
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  failover: %u, JCT %.1f us, retransmitted %llu\n", st.n_failovers,
            (double)j[0].jct_ps / 1e6, (unsigned long long)st.retransmitted_packets);
    CHECK(j[0].completed);
    CHECK(!j[0].failed);
    CHECK_EQ_U64(st.n_failovers, 1);
    CHECK_EQ_U64(st.failovers[0].from_host, 0);
    CHECK_EQ_U64(st.failovers[0].to_host, 1);
    CHECK_EQ_U64(st.failovers[0].at_ps, 20 * SIM_US + SIM_MS);
    CHECK(st.failovers[0].qps >= 1);
    CHECK(st.qps_failed_over >= 1);
    CHECK(st.retransmitted_packets > 0);
    CHECK(j[0].end_ps > 20 * SIM_US + SIM_MS);

    /* the same with the sender's port down: the requester moves */
    snprintf(y, sizeof y,
             "%snic: {rto: 200us, failover_delay: 1ms}\n"
             "workload: [{name: pair, kind: traffic, pattern: incast, hosts: [0, 2], size: 4MB}]\n"
             "faults: [{at: 20us, kind: link-down, link: leaf1-h2}]\n",
             dual);
    if (!run_yaml(y, &st, j, 1))
        return;
    CHECK(j[0].completed);
    CHECK_EQ_U64(st.n_failovers, 1);
    CHECK_EQ_U64(st.failovers[0].from_host, 2);
    CHECK_EQ_U64(st.failovers[0].to_host, 3);

    snprintf(y, sizeof y,
             "%snic: {rto: 200us, failover_delay: 100ms}\n"
             "workload: [{name: pair, kind: traffic, pattern: incast, hosts: [0, 2], size: 4MB}]\n"
             "faults: [{at: 20us, kind: link-down, link: leaf0-h0}]\n",
             dual);
    if (!run_yaml(y, &st, j, 1))
        return;
    CHECK(j[0].failed);
    CHECK(strstr(j[0].reason, "link leaf0-h0 is down") != NULL);
    CHECK_EQ_U64(st.n_failovers, 0); /* the QP failed before the bond noticed */
    CHECK(j[0].failed_at_ps <= 20 * SIM_US + 8 * 200 * SIM_US + 20 * SIM_US);
}

/* Sprayed traffic with zero drops: out-of-order placement retransmits nothing and sends no NAK;
 * the same run without it NAKs reordering as loss. */
static void test_spray_no_false_retransmissions(void)
{
    static const char spray[] =
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "workload: [{name: a2a, kind: traffic, pattern: all-to-all, size: 256KB},\n"
        "           {name: ar, kind: collective, op: all_reduce, size: 4MB, channels: 2}]\n";
    const char *modes[] = {"spray", "adaptive"};
    for (int m = 0; m < 2; m++) {
        char y[2048];
        run_stats st;
        job_result j[2];
        snprintf(y, sizeof y, "%sloadbalance: {mode: %s}\n", spray, modes[m]);
        if (!run_yaml(y, &st, j, 2))
            return;
        uint64_t drops = 0;
        for (int d = 0; d < DROP_REASONS; d++)
            drops += st.drops[d];
        fprintf(stderr, "  %s: drops %llu, out-of-sequence %llu, retransmitted %llu, NAKs %llu\n",
                modes[m], (unsigned long long)drops, (unsigned long long)st.out_of_sequence,
                (unsigned long long)st.retransmitted_packets, (unsigned long long)st.naks_sent);
        CHECK(st.ooo_placement);
        CHECK(j[0].completed && j[1].completed);
        CHECK_EQ_U64(drops, 0);
        CHECK(m == 1 || st.out_of_sequence > 0); /* spraying did reorder */
        CHECK_EQ_U64(st.retransmitted_packets, 0);
        CHECK_EQ_U64(st.naks_sent, 0);
        CHECK_EQ_U64(st.rto_events, 0);
    }
    char y[2048];
    run_stats st;
    job_result j[2];
    snprintf(y, sizeof y, "%sloadbalance: {mode: spray}\nnic: {ooo_placement: off}\n", spray);
    if (!run_yaml(y, &st, j, 2))
        return;
    fprintf(stderr, "  spray without OOO placement: retransmitted %llu, NAKs %llu\n",
            (unsigned long long)st.retransmitted_packets, (unsigned long long)st.naks_sent);
    CHECK(!st.ooo_placement);
    CHECK(st.naks_sent > 0);
    CHECK(st.retransmitted_packets > 0);
}

/* Sprayed traffic with real loss (a spine link dies; a lossy class on small buffers): out-of-
 * order placement still recovers every byte. */
static void test_spray_recovers_real_loss(void)
{
    static const char spray[] =
        "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
        "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
        "loadbalance: {mode: spray}\n"
        "nic: {rto: 500us}\n"
        "workload: [{name: a2a, kind: traffic, pattern: all-to-all, size: 256KB}]\n";
    char y[2048];
    run_stats st;
    job_result j[1];
    snprintf(y, sizeof y,
             "%sfaults: [{at: 20us, kind: link-down, link: leaf0-spine0, detect: 50us,\n"
             "           converge: 50us}]\n",
             spray);
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  spray + link down: %llu link_down drops, %llu retransmitted, %llu NAKs\n",
            (unsigned long long)st.drops[DROP_LINK_DOWN],
            (unsigned long long)st.retransmitted_packets, (unsigned long long)st.naks_sent);
    CHECK(j[0].completed);
    CHECK(st.drops[DROP_LINK_DOWN] > 0);
    CHECK(st.retransmitted_packets > 0);
    CHECK_EQ_U64(st.inflight_bytes, 0);

    /* lossy: no PFC, no congestion control and a small buffer under a 15-to-1 incast */
    snprintf(y, sizeof y,
             "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,\n"
             "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
             "loadbalance: {mode: spray}\n"
             "nic: {rto: 500us, cc: none}\n"
             "switch: {buffer: 300KB, pfc: {enabled: false}, ecn: {enabled: false}}\n"
             "workload: [{name: in, kind: traffic, pattern: incast, size: 512KB}]\n");
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  spray lossy: %llu buffer drops, %llu retransmitted, %llu NAKs\n",
            (unsigned long long)st.drops[DROP_BUFFER_FULL],
            (unsigned long long)st.retransmitted_packets, (unsigned long long)st.naks_sent);
    CHECK(j[0].completed);
    CHECK(st.drops[DROP_BUFFER_FULL] > 0);
    CHECK(st.retransmitted_packets > 0);
    CHECK(st.naks_sent > 0);
}

/* Go-back-N under ECMP with a lossy incast: NAKs are counted where they are sent and received. */
static void test_nak_counter(void)
{
    char y[2048];
    snprintf(y, sizeof y,
             "%sswitch: {buffer: 200KB, pfc: {enabled: false}, ecn: {enabled: false}}\n"
             "nic: {cc: none}\n"
             "workload: [{name: in, kind: traffic, pattern: incast, size: 2MB}]\n",
             leafspine);
    run_stats st;
    job_result j[1];
    if (!run_yaml(y, &st, j, 1))
        return;
    fprintf(stderr, "  incast: %llu drops, NAKs sent %llu received %llu\n",
            (unsigned long long)st.drops[DROP_BUFFER_FULL], (unsigned long long)st.naks_sent,
            (unsigned long long)st.naks_received);
    CHECK(j[0].completed);
    CHECK(st.drops[DROP_BUFFER_FULL] > 0);
    CHECK(st.naks_sent > 0);
    CHECK(st.naks_received > 0);
}

int main(void)
{
    TEST_RUN(test_host_link_down_forever);
    TEST_RUN(test_retry_count_zero);
    TEST_RUN(test_sender_link_down_before_start);
    TEST_RUN(test_collective_fails_and_stops);
    TEST_RUN(test_training_fails_and_stops);
    TEST_RUN(test_endless_storm);
    TEST_RUN(test_dual_port_failover);
    TEST_RUN(test_spray_no_false_retransmissions);
    TEST_RUN(test_spray_recovers_real_loss);
    TEST_RUN(test_nak_counter);
    return tl_finish();
}
