/*
 * test_vxlan.c — EVPN-VXLAN tenants (net/vxlan.c, workload/tenant.c): the encapsulation's 50
 * bytes (RFC 7348: outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8; the inner FCS is not carried)
 * appear exactly in the tx byte counters of the links that carry encapsulated frames and nowhere
 * else; per-tenant counters add up to the port counters; the outer UDP source port is a
 * deterministic hash in 49152..65535; `check` proves isolation and finds shared GPUs and route
 * leaks; runs are byte-identical.
 */
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "plan/check.h"
#include "testlib.h"
#include "workload/run.h"

/* Two leaves of two hosts, two spines; host 2 sends 1 MB to host 0 (leaf1 -> spine -> leaf0). */
#define BASE                                                                                       \
    "seed: 7\n"                                                                                    \
    "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"                \
    "         host_link: 100Gbps, fabric_link: 100Gbps}\n"
#define FLOW "{name: f, kind: traffic, pattern: incast, hosts: [0, 2], size: 1MB"

/* A port record's two ends are switches ("leaf0->spine1"), not a host ("h0->leaf0"). */
static int end_is_host(const char *s)
{
    return s[0] == 'h' && s[1] >= '0' && s[1] <= '9';
}
static int fabric_link(const port_record *p)
{
    const char *arrow = strstr(p->name, "->");
    return arrow && !end_is_host(p->name) && !end_is_host(arrow + 2);
}

typedef struct sums {
    uint64_t fab_bytes, fab_wire, fab_pkts, host_bytes, host_wire, host_pkts, pause;
} sums;

static sums totals(const run_stats *st)
{
    sums s = {0};
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        s.pause += p->pfc_pause_sent;
        if (fabric_link(p)) {
            s.fab_bytes += p->tx_bytes;
            s.fab_wire += p->tx_wire_bytes;
            s.fab_pkts += p->tx_packets;
        } else {
            s.host_bytes += p->tx_bytes;
            s.host_wire += p->tx_wire_bytes;
            s.host_pkts += p->tx_packets;
        }
    }
    return s;
}

static int run_one(const char *yaml, sums *out, run_stats *copy_tenant0, uint64_t *delivered)
{
    scenario sc;
    run *r = tl_start(&sc, "vxlan.yaml", yaml, NULL, 0);
    if (!r)
        return -1;
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    CHECK(st->jobs[0].completed);
    CHECK_EQ_U64(st->inflight_bytes, 0);
    *out = totals(st);
    *delivered = st->delivered_bytes;
    if (copy_tenant0) {
        memset(copy_tenant0, 0, sizeof *copy_tenant0);
        if (st->n_tenants) {
            uint64_t nic_b = 0, nic_p = 0, fab_b = 0, fab_p = 0;
            for (uint32_t k = 0; k < st->n_tenants; k++) {
                nic_b += st->tenants[k].nic_tx_bytes;
                nic_p += st->tenants[k].nic_tx_packets;
                fab_b += st->tenants[k].fabric_tx_bytes;
                fab_p += st->tenants[k].fabric_tx_packets;
            }
            /* no PFC frames here: every frame on a fabric link is a tenant's */
            CHECK_EQ_U64(out->pause, 0);
            CHECK_EQ_U64(fab_b, out->fab_bytes);
            CHECK_EQ_U64(fab_p, out->fab_pkts);
            /* the NICs' frames are the host links' frames in the host->leaf direction: half of
             * the host-link frames of a flow and its ACKs, counted here from the ports */
            uint64_t nic_ports_b = 0, nic_ports_p = 0;
            for (uint32_t i = 0; i < st->n_ports; i++)
                if (end_is_host(st->ports[i].name)) {
                    nic_ports_b += st->ports[i].tx_bytes;
                    nic_ports_p += st->ports[i].tx_packets;
                }
            CHECK_EQ_U64(nic_b, nic_ports_b);
            CHECK_EQ_U64(nic_p, nic_ports_p);
            CHECK_EQ_U64(st->tenants[0].delivered_bytes, 1000000);
        }
    }
    run_free(r);
    scenario_free(&sc);
    return 0;
}

/* Leaf VTEPs: +50 B on every leaf-spine frame, nothing on host links; host VTEPs: +50 B on every
 * frame of every link. Frame counts do not change, nor do preamble/IPG (one per frame). */
static void test_overhead_exact(void)
{
    sums plain, leaf, host;
    uint64_t d0, d1, d2;
    run_stats t;
    if (run_one(BASE "workload: [" FLOW "}]\n", &plain, NULL, &d0))
        return;
    if (run_one(BASE "tenants: [{name: blue, vni: 10010}]\n"
                     "workload: [" FLOW ", tenant: blue}]\n",
                &leaf, &t, &d1))
        return;
    if (run_one("seed: 7\n"
                "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"
                "         host_link: 100Gbps, fabric_link: 100Gbps, vtep: host}\n"
                "tenants: [{name: blue, vni: 10010}]\n"
                "workload: [" FLOW ", tenant: blue}]\n",
                &host, &t, &d2))
        return;
    CHECK(plain.fab_pkts > 2 * 244); /* 1 MB = 245 data frames, twice over fabric links */
    CHECK_EQ_U64(leaf.fab_pkts, plain.fab_pkts);
    CHECK_EQ_U64(leaf.host_pkts, plain.host_pkts);
    CHECK_EQ_U64(leaf.fab_bytes, plain.fab_bytes + 50 * plain.fab_pkts);
    CHECK_EQ_U64(leaf.fab_wire, plain.fab_wire + 50 * plain.fab_pkts);
    CHECK_EQ_U64(leaf.host_bytes, plain.host_bytes);
    CHECK_EQ_U64(leaf.host_wire, plain.host_wire);
    CHECK_EQ_U64(host.fab_pkts, plain.fab_pkts);
    CHECK_EQ_U64(host.fab_bytes, plain.fab_bytes + 50 * plain.fab_pkts);
    CHECK_EQ_U64(host.host_bytes, plain.host_bytes + 50 * plain.host_pkts);
    CHECK_EQ_U64(host.host_wire, plain.host_wire + 50 * plain.host_pkts);
    /* goodput is payload: the same */
    CHECK_EQ_U64(d0, d1);
    CHECK_EQ_U64(d0, d2);
}

/* A host VTEP encapsulates every frame the NIC sends, whichever transport built it: UET's data
 * frames and ACKs carry the 50 B as RoCE's do (they come from the same frame builders). */
static void test_overhead_uet_host_vtep(void)
{
    sums plain, host;
    uint64_t d0, d1;
    run_stats t;
#define UET_FABRIC                                                                                 \
    "seed: 7\n"                                                                                    \
    "nic: {transport: uet}\n"                                                                      \
    "switch: {trimming: true, pfc: {enabled: false}}\n"                                            \
    "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4,\n"                \
    "         host_link: 100Gbps, fabric_link: 100Gbps"
    if (run_one(UET_FABRIC "}\nworkload: [" FLOW "}]\n", &plain, NULL, &d0))
        return;
    if (run_one(UET_FABRIC ", vtep: host}\n"
                           "tenants: [{name: blue, vni: 10010}]\n"
                           "workload: [" FLOW ", tenant: blue}]\n",
                &host, &t, &d1))
        return;
#undef UET_FABRIC
    CHECK(plain.host_pkts > 2 * 244); /* 245 data frames and their ACKs on host links */
    CHECK_EQ_U64(host.host_pkts, plain.host_pkts);
    CHECK_EQ_U64(host.fab_pkts, plain.fab_pkts);
    CHECK_EQ_U64(host.host_bytes, plain.host_bytes + 50 * plain.host_pkts);
    CHECK_EQ_U64(host.fab_bytes, plain.fab_bytes + 50 * plain.fab_pkts);
    CHECK_EQ_U64(d0, d1);
}

/* RFC 7348 §5: the outer source port hashes the inner headers into 49152..65535; one inner flow
 * always gets one port, and the inner source port moves it. */
static void test_outer_sport(void)
{
    uint32_t distinct = 0;
    uint16_t prev = 0;
    int in_range = 1;
    for (uint32_t sp = 49152; sp < 49152 + 64; sp++) {
        uint16_t o = net_vxlan_sport(0x0A000001u, 0x0A000005u, (uint16_t)sp);
        in_range &= o >= 49152;
        distinct += o != prev;
        prev = o;
        CHECK_EQ_U64(o, net_vxlan_sport(0x0A000001u, 0x0A000005u, (uint16_t)sp));
    }
    CHECK(in_range);
    CHECK(distinct > 56);
}

static const check_item *find_item(const check_report *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_items; i++)
        if (!strcmp(r->items[i].name, name))
            return &r->items[i];
    return NULL;
}

static enum check_status check_of(const char *yaml, char *detail, size_t cap)
{
    scenario sc;
    err e;
    err_clear(&e);
    enum check_status s = CHECK_WARN;
    if (config_load_buffer(&sc, "t.yaml", yaml, strlen(yaml), NULL, 0, &e)) {
        fprintf(stderr, "config: %s\n", e.msg);
        tl_failures++;
        return s;
    }
    sim sm;
    sim_init(&sm, sc.seed);
    net *n = net_build_topology(&sc, &sm, &e);
    if (n) {
        check_report r;
        check_fabric(n, &r);
        const check_item *it = find_item(&r, "tenant_isolation");
        CHECK(it != NULL);
        if (it) {
            s = it->status;
            snprintf(detail, cap, "%s", it->detail);
        }
        net_free(n);
    }
    sim_free(&sm);
    scenario_free(&sc);
    return s;
}

#define TWO "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16}\n"

static void test_check_isolation(void)
{
    char d[320];
    CHECK(check_of(TWO "tenants: [{name: blue, vni: 10010}, {name: red, vni: 10020}]\n"
                       "workload: [{name: a, kind: collective, tenant: blue, ranks: 0-15},\n"
                       "           {name: b, kind: collective, tenant: red, ranks: 16-31}]\n",
                   d, sizeof d) == CHECK_PASS);
    CHECK(strstr(d, "blue VNI 10010: 16 GPUs, 16 NIC ports") != NULL);
    /* a shared GPU */
    CHECK(check_of(TWO "tenants: [{name: blue, vni: 10010}, {name: red, vni: 10020}]\n"
                       "workload: [{name: a, kind: collective, tenant: blue, ranks: 0-15},\n"
                       "           {name: b, kind: collective, tenant: red, ranks: 15-31}]\n",
                   d, sizeof d) == CHECK_FAIL);
    CHECK(strstr(d, "GPU 15 is used by job \"a\"") != NULL);
    /* a traffic job reaching into the other tenant's NIC ports */
    CHECK(check_of(TWO "tenants: [{name: blue, vni: 10010}, {name: red, vni: 10020}]\n"
                       "workload: [{name: a, kind: collective, tenant: blue, ranks: 0-15},\n"
                       "           {name: b, kind: traffic, tenant: red, hosts: [16, 3]}]\n",
                   d, sizeof d) == CHECK_FAIL);
    CHECK(strstr(d, "job \"b\" (tenant red") != NULL);
    /* a route leak */
    CHECK(check_of(TWO "tenants: [{name: blue, vni: 10010}, {name: red, vni: 10020, import: "
                       "[blue]}]\n"
                       "workload: [{name: a, kind: collective, tenant: blue, ranks: 0-15},\n"
                       "           {name: b, kind: collective, tenant: red, ranks: 16-31}]\n",
                   d, sizeof d) == CHECK_FAIL);
    CHECK(strstr(d, "tenant red (VNI 10020) imports the routes of tenant blue") != NULL);
}

/* Two tenants sharing the fabric: the counters are the tenants', and a rerun is identical. */
static void test_two_tenants_rerun(void)
{
    const char *y = TWO "tenants: [{name: blue, vni: 10010}, {name: red, vni: 10020}]\n"
                        "workload: [{name: a, kind: collective, tenant: blue, ranks: 0-15,"
                        " size: 8MiB},\n"
                        "           {name: b, kind: collective, tenant: red, ranks: 16-31,"
                        " size: 8MiB}]\n";
    uint64_t v[2][6];
    for (int k = 0; k < 2; k++) {
        scenario sc;
        run *r = tl_start(&sc, "t.yaml", y, NULL, 0);
        if (!r)
            return;
        run_execute(r, NULL, NULL);
        const run_stats *st = run_result(r);
        CHECK_EQ_U64(st->n_tenants, 2);
        CHECK(st->tenants[0].fabric_tx_bytes > 0 && st->tenants[1].fabric_tx_bytes > 0);
        CHECK_EQ_U64(st->tenants[0].jobs, 1);
        v[k][0] = st->tenants[0].fabric_tx_bytes;
        v[k][1] = st->tenants[1].fabric_tx_bytes;
        v[k][2] = st->tenants[0].ecn_marked;
        v[k][3] = st->tenants[1].nic_tx_packets;
        v[k][4] = st->end_ps;
        v[k][5] = st->tx_bytes;
        run_free(r);
        scenario_free(&sc);
    }
    for (int i = 0; i < 6; i++)
        CHECK_EQ_U64(v[0][i], v[1][i]);
}

int main(void)
{
    TEST_RUN(test_overhead_exact);
    TEST_RUN(test_overhead_uet_host_vtep);
    TEST_RUN(test_outer_sport);
    TEST_RUN(test_check_isolation);
    TEST_RUN(test_two_tenants_rerun);
    return tl_finish();
}
