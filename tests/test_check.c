/*
 * test_check.c — topology checks: counts, per-tier oversubscription, non-blocking verdict and
 * reachability on built fabrics.
 */
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "plan/check.h"
#include "testlib.h"

static int check_yaml(const char *yaml, check_report *r)
{
    scenario sc;
    sim s;
    err e;
    err_clear(&e);
    if (config_load_buffer(&sc, "check.yaml", yaml, strlen(yaml), NULL, 0, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    if (!n) {
        fprintf(stderr, "%s\n", e.msg);
        sim_free(&s);
        scenario_free(&sc);
        return -1;
    }
    check_fabric(n, r);
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
    return 0;
}

static const check_item *item(const check_report *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_items; i++)
        if (strcmp(r->items[i].name, name) == 0)
            return &r->items[i];
    return NULL;
}

static void test_leaf_spine_non_blocking(void)
{
    check_report r;
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8}\n", &r) == 0);
    CHECK_EQ_U64(r.gpus, 64);
    CHECK_EQ_U64(r.nics, 64);
    CHECK_EQ_U64(r.host_ports, 64);
    CHECK_EQ_U64(r.leaf, 2);
    CHECK_EQ_U64(r.spine, 32);
    CHECK_EQ_U64(r.super_spine, 0);
    CHECK_EQ_U64(r.scale_up, 8);
    CHECK_EQ_U64(r.links_host, 64);
    CHECK_EQ_U64(r.links_leaf_spine, 64);
    CHECK_EQ_U64(r.links_scale_up, 64);
    CHECK_NEAR(r.oversub_leaf, 1.0, 1e-12);
    CHECK(r.passed);
    CHECK(item(&r, "non_blocking") && item(&r, "non_blocking")->status == CHECK_PASS);
    CHECK(item(&r, "reachability") && item(&r, "reachability")->status == CHECK_PASS);
}

static void test_oversubscribed_fails(void)
{
    check_report r;
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                     "         oversubscription: 3:1}\n",
                     &r) == 0);
    CHECK_NEAR(r.oversub_leaf, 3.0, 1e-12);
    CHECK(!r.passed);
    const check_item *it = item(&r, "non_blocking");
    CHECK(it && it->status == CHECK_FAIL);
    CHECK(it && strstr(it->detail, "leaf 3.00:1") != NULL);
    /* the ratio is of bandwidths: 3:1 with 1.6T uplinks is 48 x 400G down : 4 x 1.6T up */
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                     "         oversubscription: 3:1, fabric_link: 1.6Tbps}\n",
                     &r) == 0);
    CHECK_NEAR(r.oversub_leaf, 3.0, 1e-12);
    it = item(&r, "non_blocking");
    CHECK(it && strstr(it->detail, "19200 Gbps down, 6400 Gbps up") != NULL);
    /* 1:1 with 800G uplinks: 42 x 400G : 21 x 800G */
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                     "         fabric_link: 800Gbps}\n",
                     &r) == 0);
    CHECK_NEAR(r.oversub_leaf, 1.0, 1e-12);
    CHECK(r.passed);
}

static void test_three_tier(void)
{
    check_report r;
    CHECK(check_yaml("fabric: {preset: fat-tree, k: 8, gpus_per_server: 8}\n", &r) == 0);
    CHECK_EQ_U64(r.leaf, 32);
    CHECK_EQ_U64(r.spine, 32);
    CHECK_EQ_U64(r.super_spine, 16);
    CHECK_EQ_U64(r.links_spine_super, 128);
    CHECK_NEAR(r.oversub_spine, 1.0, 1e-12);
    CHECK(r.passed);
}

static void test_rail_only_detail(void)
{
    check_report r;
    CHECK(check_yaml("fabric: {preset: rail-only, servers: 8, gpus_per_server: 8}\n", &r) == 0);
    const check_item *it = item(&r, "non_blocking");
    CHECK(it && strstr(it->detail, "rail-only") != NULL);
    CHECK(item(&r, "reachability")->status == CHECK_PASS);
    CHECK_EQ_U64(r.spine, 0);
}

static void test_unreachable_custom(void)
{
    check_report r;
    CHECK(check_yaml("fabric:\n  preset: custom\n  custom:\n"
                     "    switches: [{name: a}, {name: b}]\n"
                     "    hosts: [{name: x}, {name: y}]\n"
                     "    links: [{a: x, b: a}, {a: y, b: b}]\n",
                     &r) == 0);
    const check_item *it = item(&r, "reachability");
    CHECK(it && it->status == CHECK_FAIL);
    CHECK(!r.passed);
    CHECK(it && strstr(it->detail, "2 of 2 host pairs unreachable") != NULL);
}

/* The structural reachability count (union-find over the fabric) equals the routed answer,
 * net_reaches over every host pair, on fabrics where they could differ: rail-only (PXN relays),
 * dual-plane, custom with an isolated part, and a leaf-spine with links taken down and rerouted.
 * The cycle check agrees with itself on the unrouted topology (net_build_topology). */
static void reach_matches(const char *yaml, const char *down1, const char *down2)
{
    scenario sc;
    sim s;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "r.yaml", yaml, strlen(yaml), NULL, 0, &e) == 0);
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    CHECK(n != NULL);
    if (!n) {
        sim_free(&s);
        scenario_free(&sc);
        return;
    }
    const char *downs[2] = {down1, down2};
    for (int i = 0; i < 2; i++)
        if (downs[i]) {
            port *pt = net_find_link(n, downs[i]);
            CHECK(pt != NULL);
            if (pt)
                net_link_set(n, pt, false);
        }
    if (down1)
        net_route(n);
    uint64_t bad = 0, pairs = 0;
    uint32_t P = sc.fabric.planes > 1 ? sc.fabric.planes : 1;
    for (uint32_t a = 0; a < n->n_hosts; a++)
        for (uint32_t b = 0; b < n->n_hosts; b++) {
            if (a == b || a % P != b % P)
                continue;
            pairs++;
            bad += !net_reaches(n, a, b);
        }
    check_report r;
    check_fabric(n, &r);
    const check_item *it = item(&r, "reachability");
    char want[128];
    if (bad)
        snprintf(want, sizeof want, "%llu of %llu host pairs unreachable", (unsigned long long)bad,
                 (unsigned long long)pairs);
    else
        snprintf(want, sizeof want, "all %llu host pairs routed", (unsigned long long)pairs);
    CHECK(it && strstr(it->detail, want) == it->detail);
    if (it && strstr(it->detail, want) != it->detail)
        fprintf(stderr, "  got \"%s\", want \"%s\"\n", it->detail, want);
    const check_item *cy = item(&r, "pfc_deadlock_free");
    enum check_status routed = cy ? cy->status : CHECK_PASS;
    net_free(n);
    n = net_build_topology(&sc, &s, &e);
    CHECK(n != NULL);
    if (n && !down1) {
        check_fabric(n, &r);
        cy = item(&r, "pfc_deadlock_free");
        CHECK(!cy || cy->status == routed);
        CHECK(item(&r, "reachability") && strstr(item(&r, "reachability")->detail, want));
    }
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
}

static void test_structural_reachability(void)
{
    reach_matches("fabric: {preset: rail-only, servers: 4, gpus_per_server: 8}\n", NULL, NULL);
    reach_matches("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8, nic_ports: 2,\n"
                  "  planes: 2, leaf_radix: 16}\n",
                  NULL, NULL);
    reach_matches("fabric: {preset: rail-optimized, servers: 16, gpus_per_server: 4, pods: 2,\n"
                  "  leaf_radix: 16, spine_radix: 16}\n",
                  NULL, NULL);
    reach_matches("fabric:\n  preset: custom\n  custom:\n"
                  "    switches: [{name: a}, {name: b}, {name: c}]\n"
                  "    hosts: [{name: x}, {name: y}, {name: z}, {name: w}]\n"
                  "    links: [{a: x, b: a}, {a: y, b: b}, {a: z, b: c}, {a: w, b: c},\n"
                  "            {a: a, b: b}]\n",
                  NULL, NULL);
    /* leaf1 loses both uplinks: its hosts are cut off, NVLink still joins each server */
    reach_matches("fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 4, leaf_radix: 4}\n",
                  "leaf1-spine0", "leaf1-spine1");
}

/* nic.mtu's frame (payload + RoCEv2 headers) against the switch port MTU. */
static void test_mtu(void)
{
    check_report r;
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8}\n", &r) == 0);
    const check_item *it = item(&r, "mtu");
    CHECK(it && it->status == CHECK_PASS);
    CHECK(it && strstr(it->detail, "4174 B frames fit the switch port MTU 9216 B") != NULL);
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8, mtu: 4000}\n",
                     &r) == 0);
    it = item(&r, "mtu");
    CHECK(it && it->status == CHECK_FAIL);
    CHECK(!r.passed);
    /* one byte is enough: the largest frame carries RETH, 4096 + 78 */
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8, mtu: 4174}\n",
                     &r) == 0);
    CHECK(item(&r, "mtu")->status == CHECK_PASS);
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8, mtu: 4173}\n",
                     &r) == 0);
    CHECK(item(&r, "mtu")->status == CHECK_FAIL);
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8, mtu: 1518}\n"
                     "nic: {mtu: 1024}\n",
                     &r) == 0);
    CHECK(item(&r, "mtu")->status == CHECK_PASS);
}

static void test_planes(void)
{
    check_report r;
    CHECK(check_yaml("fabric: {preset: rail-optimized, servers: 8, gpus_per_server: 8,\n"
                     "         nic_ports: 2, planes: 2, leaf_radix: 16}\n",
                     &r) == 0);
    const check_item *it = item(&r, "planes");
    CHECK(it && it->status == CHECK_PASS);
    CHECK(it && strstr(it->detail, "2 independent planes: plane 0: NIC port 0, 8 leaves, 8 spines;"
                                   " plane 1: NIC port 1, 8 leaves, 8 spines; no link joins two "
                                   "planes") != NULL);
    CHECK(item(&r, "reachability")->status == CHECK_PASS);
    CHECK(r.passed);
    /* dual-homed on shared spines is one plane: no planes item */
    static const char shared[] =
        "fabric: {preset: rail-optimized, servers: 8, gpus_per_server: 8,\n"
        "         nic_ports: 2, leaf_radix: 16}\n";
    CHECK(check_yaml(shared, &r) == 0);
    CHECK(item(&r, "planes") == NULL);
    /* ... and checked as if it were meant to be dual-plane, the planes meet at the spines */
    scenario sc;
    sim s;
    err e;
    err_clear(&e);
    CHECK(config_load_buffer(&sc, "check.yaml", shared, strlen(shared), NULL, 0, &e) == 0);
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    CHECK(n != NULL);
    if (n) {
        sc.fabric.planes = 2;
        check_fabric(n, &r);
        it = item(&r, "planes");
        CHECK(it && it->status == CHECK_FAIL);
        CHECK(it && strstr(it->detail, "the planes meet") != NULL);
        CHECK(!r.passed);
        net_free(n);
    }
    sim_free(&s);
    scenario_free(&sc);
}

static void test_pfc_checks(void)
{
    check_report r;
    /* defaults: lossless class 3, auto headroom, Kmax 400 KB far below XOFF, Clos: no cycle */
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8}\n", &r) == 0);
    CHECK(item(&r, "pfc_lossless_class")->status == CHECK_PASS);
    CHECK(item(&r, "pfc_headroom")->status == CHECK_PASS);
    CHECK(item(&r, "ecn_before_pfc")->status == CHECK_PASS);
    CHECK(item(&r, "pfc_deadlock_free")->status == CHECK_PASS);
    CHECK(r.passed);
    /* 2 km of fibre at 400G needs ~1 MB of headroom; 100 KB is not enough */
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                     "         cable_length: 2km}\n"
                     "switch: {pfc: {headroom: 100KB}}\n",
                     &r) == 0);
    CHECK(item(&r, "pfc_headroom")->status == CHECK_WARN);
    CHECK(strstr(item(&r, "pfc_headroom")->detail, "will be dropped") != NULL);
    /* check's need is the simulated link's exact worst case (the figure `auto` reserves and
     * test_pfc reaches): 400G, 100 m cables, a 600 ns switch and a host: 150,567 B. One byte
     * less warns, that figure passes. */
    static const char hb[] = "fabric: {preset: single-switch, servers: 2, gpus_per_server: 1,\n"
                             "         host_link: 400Gbps, cable_length: 100m}\n"
                             "switch: {pfc: {headroom: %s}}\n";
    char y[512];
    snprintf(y, sizeof y, hb, "auto");
    CHECK(check_yaml(y, &r) == 0);
    CHECK(strstr(item(&r, "pfc_headroom")->detail, "up to 150567 B") != NULL);
    snprintf(y, sizeof y, hb, "150566");
    CHECK(check_yaml(y, &r) == 0);
    CHECK(item(&r, "pfc_headroom")->status == CHECK_WARN);
    snprintf(y, sizeof y, hb, "150567");
    CHECK(check_yaml(y, &r) == 0);
    CHECK(item(&r, "pfc_headroom")->status == CHECK_PASS);
    /* data in class 4 while only 3 is lossless */
    CHECK(check_yaml("fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}\n"
                     "nic: {priority: 4}\n",
                     &r) == 0);
    CHECK(item(&r, "pfc_lossless_class")->status == CHECK_FAIL);
    CHECK(!r.passed);
    /* PFC off: the detail names the retransmission the NICs actually run */
    CHECK(check_yaml("fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}\n"
                     "switch: {pfc: {enabled: false}}\n",
                     &r) == 0);
    CHECK(item(&r, "pfc_lossless_class")->status == CHECK_WARN);
    CHECK(strstr(item(&r, "pfc_lossless_class")->detail, "go-back-N") != NULL);
    CHECK(check_yaml("fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}\n"
                     "switch: {pfc: {enabled: false}}\nnic: {retransmit: selective}\n",
                     &r) == 0);
    const check_item *lc = item(&r, "pfc_lossless_class");
    CHECK(lc && strstr(lc->detail, "selective repeat") && !strstr(lc->detail, "go-back-N"));
    /* Kmax above a fixed XOFF */
    CHECK(check_yaml("fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}\n"
                     "switch: {ecn: {kmin: 100KB, kmax: 400KB}, pfc: {xoff: 200KB}}\n",
                     &r) == 0);
    CHECK(item(&r, "ecn_before_pfc")->status == CHECK_WARN);
}

static void test_ring_has_cycle(void)
{
    check_report r;
    CHECK(check_yaml("fabric:\n  preset: custom\n  custom:\n"
                     "    switches: [{name: s0}, {name: s1}, {name: s2}, {name: s3}, {name: s4}]\n"
                     "    hosts: [{name: h0}, {name: h1}, {name: h2}, {name: h3}, {name: h4}]\n"
                     "    links: [{a: h0, b: s0}, {a: h1, b: s1}, {a: h2, b: s2}, {a: h3, b: s3},\n"
                     "            {a: h4, b: s4}, {a: s0, b: s1}, {a: s1, b: s2}, {a: s2, b: s3},\n"
                     "            {a: s3, b: s4}, {a: s4, b: s0}]\n",
                     &r) == 0);
    const check_item *it = item(&r, "pfc_deadlock_free");
    CHECK(it && it->status == CHECK_FAIL);
    CHECK(it && strstr(it->detail, "cyclic buffer dependency over 5 links") != NULL);
    if (it)
        fprintf(stderr, "  %s\n", it->detail);
    /* a 4-ring: 2-hop pairs split both ways, still a cycle; a line of switches has none */
    CHECK(check_yaml("fabric:\n  preset: custom\n  custom:\n"
                     "    switches: [{name: s0}, {name: s1}, {name: s2}]\n"
                     "    hosts: [{name: h0}, {name: h1}, {name: h2}]\n"
                     "    links: [{a: h0, b: s0}, {a: h1, b: s1}, {a: h2, b: s2},\n"
                     "            {a: s0, b: s1}, {a: s1, b: s2}]\n",
                     &r) == 0);
    CHECK(item(&r, "pfc_deadlock_free")->status == CHECK_PASS);
}

/* Dual-port NICs: warn when the QPs' retry budget (rto x (retry_count + 1)) is shorter than the
 * failover delay, pass when it is longer; single-port fabrics have no such item. */
static void test_dual_port_failover_budget(void)
{
    check_report r;
    static const char dual[] = "fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 1, "
                               "nic_ports: 2, leaf_radix: 4}\n";
    char y[512];
    CHECK(check_yaml(dual, &r) == 0); /* defaults: 4 ms x 8 = 32 ms < 100 ms */
    const check_item *it = item(&r, "dual_port_failover");
    CHECK(it && it->status == CHECK_WARN);
    CHECK(it && strstr(it->detail, "retry budget 32.000 ms") != NULL);
    snprintf(y, sizeof y, "%snic: {rto: 20ms}\n", dual); /* 160 ms > 100 ms */
    CHECK(check_yaml(y, &r) == 0);
    it = item(&r, "dual_port_failover");
    CHECK(it && it->status == CHECK_PASS);
    CHECK(check_yaml("fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 1}\n", &r) == 0);
    CHECK(item(&r, "dual_port_failover") == NULL);
}

int main(void)
{
    TEST_RUN(test_leaf_spine_non_blocking);
    TEST_RUN(test_oversubscribed_fails);
    TEST_RUN(test_three_tier);
    TEST_RUN(test_rail_only_detail);
    TEST_RUN(test_unreachable_custom);
    TEST_RUN(test_structural_reachability);
    TEST_RUN(test_mtu);
    TEST_RUN(test_planes);
    TEST_RUN(test_dual_port_failover_budget);
    TEST_RUN(test_pfc_checks);
    TEST_RUN(test_ring_has_cycle);
    return tl_finish();
}
