/*
 * test_sizing.c — fabrics sized as architects size them, run end to end: in a dual-plane fabric
 * (Alibaba HPN) traffic from NIC port 0 stays on plane 0 and the other plane carries nothing; a
 * flow between ports of different planes leaves from the NIC's port on the destination's plane;
 * a switch MTU smaller than the NIC's frames is refused by `run`.
 */
#include <string.h>

#include "config/config.h"
#include "testlib.h"
#include "workload/run.h"

/* 4 servers x 8 GPUs, dual-port NICs, two planes: 32 host ports per plane on 16-port leaves at
 * 1:1, so plane 0 is leaf0..3 + spine0..7 and plane 1 is leaf4..7 + spine8..15. */
static const char dual[] =
    "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, nic_ports: 2, planes: 2,\n"
    "         leaf_radix: 16}\n";

/* Plane of the switch that owns port record `name` ("leaf5->spine9"), or -1 for a host/NVS. */
static int plane_of(const char *name)
{
    unsigned i;
    if (sscanf(name, "leaf%u", &i) == 1)
        return i >= 4;
    if (sscanf(name, "spine%u", &i) == 1)
        return i >= 8;
    return -1;
}

/* Bytes sent by the switch ports of each plane. */
static void plane_bytes(const run_stats *st, uint64_t out[2])
{
    out[0] = out[1] = 0;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        int p = plane_of(st->ports[i].name);
        if (p >= 0)
            out[p] += st->ports[i].tx_bytes;
    }
}

static void test_port0_stays_on_plane0(void)
{
    char y[1024];
    /* every NIC's port 0 (even hosts) sends one flow to another port 0 */
    snprintf(y, sizeof y,
             "%sworkload:\n"
             "  - {name: p0, kind: traffic, pattern: permutation, size: 256KiB,\n"
             "     hosts: [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, "
             "38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62]}\n",
             dual);
    scenario sc;
    run *r = tl_start(&sc, "planes.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->jobs[0].completed);
    uint64_t b[2];
    plane_bytes(st, b);
    fprintf(stderr, "  port-0 traffic: plane 0 %llu B, plane 1 %llu B\n", (unsigned long long)b[0],
            (unsigned long long)b[1]);
    CHECK(b[0] > 0);
    CHECK_EQ_U64(b[1], 0);
    CHECK_EQ_U64(st->sent_bytes, st->delivered_bytes);
    run_free(r);
    scenario_free(&sc);
}

static void test_cross_plane_uses_destination_plane(void)
{
    /* port 0 of NICs on servers 1..3 send to host 1 (server 0, NIC 0, port 1: plane 1): each
     * flow leaves from its NIC's port 1, so plane 0 carries nothing and every byte arrives */
    char y[1024];
    snprintf(y, sizeof y,
             "%sworkload:\n"
             "  - {name: x, kind: traffic, pattern: incast, size: 64KiB, hosts: [1, 16, 34, 50]}\n",
             dual);
    scenario sc;
    run *r = tl_start(&sc, "planes.yaml", y, NULL, 0);
    CHECK(r != NULL);
    if (!r)
        return;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->jobs[0].completed);
    uint64_t b[2];
    plane_bytes(st, b);
    CHECK_EQ_U64(b[0], 0);
    CHECK(b[1] > 3 * 64 * 1024);
    CHECK_EQ_U64(st->delivered_bytes, 3 * 64 * 1024);
    for (uint64_t i = 0; i < st->n_flows; i++)
        CHECK(st->flows[i].src_host % 2 == 1 && st->flows[i].dst_host == 1);
    run_free(r);
    scenario_free(&sc);
}

static void test_run_refuses_small_switch_mtu(void)
{
    static const char y[] = "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8,\n"
                            "         mtu: 2048}\n";
    scenario sc;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "mtu.yaml", y, strlen(y), NULL, 0, &e) == 0);
    run *r = run_new(&sc, &e);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "fabric.mtu: switch ports take frames up to 2048 B, but nic.mtu 4096 "
                        "makes 4174 B RoCEv2 frames") != NULL);
    CHECK(strstr(e.msg, "or nic.mtu 1024") != NULL);
    CHECK_EQ_U64(e.line, 2);
    if (r)
        run_free(r);
    scenario_free(&sc);
    /* nic.mtu 1024 fits: 1024 + 78 = 1102 B frames */
    static const char ok[] = "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8,\n"
                             "         mtu: 2048}\n"
                             "nic: {mtu: 1024}\n";
    r = tl_start(&sc, "mtu.yaml", ok, NULL, 0);
    CHECK(r != NULL);
    if (r) {
        run_free(r);
        scenario_free(&sc);
    }
}

int main(void)
{
    TEST_RUN(test_port0_stays_on_plane0);
    TEST_RUN(test_cross_plane_uses_destination_plane);
    TEST_RUN(test_run_refuses_small_switch_mtu);
    return tl_finish();
}
