/*
 * test_checkdev.c — per-device configuration checks: each passes on the fabric defaults and
 * fails, naming device, field, both values and the fix, on a scenario whose `devices:` entry
 * (or nic/switch key) plants the mismatch; plan writes the per-device values it checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "plan/checkdev.h"
#include "plan/plan.h"
#include "testlib.h"

static const char *BASE = "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8,\n"
                          "  leaf_radix: 16, spines: 4}\n";

typedef struct res {
    check_report r;
    cdb_report f;
} res;

/* BASE + extra; returns 0 and fills *o, or -1 (error message in *emsg). */
static int run_checks(const char *extra, res *o, char *emsg, size_t elen)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, "%s%s", BASE, extra);
    scenario sc;
    sim s;
    err e;
    err_clear(&e);
    memset(o, 0, sizeof *o);
    if (config_load_buffer(&sc, "dev.yaml", yaml, strlen(yaml), NULL, 0, &e)) {
        snprintf(emsg, elen, "%d:%d: %.200s", e.line, e.col, e.msg);
        return -1;
    }
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    plan p;
    int rc = -1;
    if (n && plan_build(&p, n, &e) == 0) {
        o->r.passed = true;
        check_devices(&p, &o->r, &o->f);
        plan_free(&p);
        rc = 0;
    } else {
        snprintf(emsg, elen, "%d:%d: %.200s", e.line, e.col, e.msg);
    }
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
    return rc;
}

static enum check_status status(const res *o, const char *name)
{
    for (uint32_t i = 0; i < o->r.n_items; i++)
        if (!strcmp(o->r.items[i].name, name))
            return o->r.items[i].status;
    return (enum check_status) - 1;
}

static const cdb_finding *finding(const res *o, const char *dev, const char *field)
{
    for (uint32_t i = 0; i < o->f.n; i++)
        if (!strcmp(o->f.f[i].device, dev) && !strcmp(o->f.f[i].field, field))
            return &o->f.f[i];
    return NULL;
}

static void test_defaults_pass(void)
{
    res o;
    char m[256];
    CHECK(run_checks("", &o, m, sizeof m) == 0);
    const char *items[] = {"pfc_nic_switch", "dscp_trust",     "cnp_not_paused",
                           "mtu_end_to_end", "ecn_below_xoff", "failure_domains"};
    for (int i = 0; i < 6; i++)
        CHECK(status(&o, items[i]) == CHECK_PASS);
    CHECK_EQ_U64(o.f.n, 0);
    CHECK(o.r.passed);
    for (uint32_t i = 0; i < o.r.n_items; i++)
        if (!strcmp(o.r.items[i].name, "pfc_nic_switch"))
            CHECK(strstr(o.r.items[i].detail, "RoCE in a lossless class") != NULL);
    cdb_report_free(&o.f);
    /* PFC off everywhere: the NICs agree with their leaves, and no class is lossless */
    CHECK(run_checks("switch: {pfc: {enabled: false}}\n", &o, m, sizeof m) == 0);
    CHECK(status(&o, "pfc_nic_switch") == CHECK_PASS);
    for (uint32_t i = 0; i < o.r.n_items; i++)
        if (!strcmp(o.r.items[i].name, "pfc_nic_switch")) {
            CHECK(strstr(o.r.items[i].detail, "lossless class") != NULL);
            CHECK(strstr(o.r.items[i].detail, "PFC is off") != NULL);
        }
    cdb_report_free(&o.f);
}

static void test_pfc_mismatch(void)
{
    res o;
    char m[256];
    CHECK(run_checks("devices:\n  - {nic: server1, pfc_priorities: [4]}\n"
                     "  - {nic: \"server2:eth3\", priority: 5}\n",
                     &o, m, sizeof m) == 0);
    CHECK(status(&o, "pfc_nic_switch") == CHECK_FAIL);
    CHECK(!o.r.passed);
    const cdb_finding *f = finding(&o, "server1:eth0", "mlnx_qos --pfc");
    CHECK(f && !strcmp(f->have, "4") && strstr(f->want, "3, the pfc_enable of leaf"));
    CHECK(f && strstr(f->fix, "mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0"));
    f = finding(&o, "server2:eth3", "RoCE priority (nic.priority)");
    CHECK(f && !strcmp(f->have, "5") && strstr(f->want, "lossless classes 3"));
    /* the other items are untouched */
    CHECK(status(&o, "mtu_end_to_end") == CHECK_PASS);
    cdb_report_free(&o.f);
}

static void test_dscp_trust(void)
{
    res o;
    char m[256];
    CHECK(run_checks("devices:\n  - {nic: server0, trust: pcp}\n"
                     "  - {switch: spine1, dscp_to_tc: {26: 0}}\n",
                     &o, m, sizeof m) == 0);
    CHECK(status(&o, "dscp_trust") == CHECK_FAIL);
    const cdb_finding *f = finding(&o, "server0:eth0", "mlnx_qos --trust");
    CHECK(f && !strcmp(f->have, "pcp") && strstr(f->want, "no 802.1p tag"));
    f = finding(&o, "spine1", "DSCP_TO_TC_MAP|WIRERATE.26");
    CHECK(f && !strcmp(f->have, "0") && !strncmp(f->want, "3 ", 2));
    CHECK(f && strstr(f->fix, "map DSCP 26 to 3 on spine1"));
    cdb_report_free(&o.f);
}

static void test_cnp_paused(void)
{
    res o;
    char m[256];
    CHECK(run_checks("devices:\n  - {nic: server3, cnp_priority: 3, cnp_dscp: 26}\n", &o, m,
                     sizeof m) == 0);
    CHECK(status(&o, "cnp_not_paused") == CHECK_FAIL);
    const cdb_finding *f = finding(&o, "server3:eth0", "roce_np/cnp_802p_prio");
    CHECK(f && !strncmp(f->have, "3 (switch class 3)", 18) && strstr(f->want, "not paused"));
    cdb_report_free(&o.f);
    /* the fabric-wide key too */
    CHECK(run_checks("nic: {cnp_priority: 3, cnp_dscp: 24}\n", &o, m, sizeof m) == 0);
    CHECK(status(&o, "cnp_not_paused") == CHECK_FAIL);
    cdb_report_free(&o.f);
}

static void test_mtu(void)
{
    res o;
    char m[256];
    CHECK(run_checks("devices:\n  - {switch: leaf0, mtu: 1500}\n  - {nic: server3, "
                     "netdev_mtu: 1500}\n",
                     &o, m, sizeof m) == 0);
    CHECK(status(&o, "mtu_end_to_end") == CHECK_FAIL);
    /* a NIC of leaf0 sends 9000 B packets to a 1500 B port */
    const cdb_finding *f = finding(&o, "server0:eth0", "netdev mtu");
    CHECK(f && !strcmp(f->have, "9000") && strstr(f->want, "<= 1478") &&
          strstr(f->want, "NIC <= switch"));
    /* RoCE 4096 does not fit a 1500 netdev */
    f = finding(&o, "server3:eth0", "netdev mtu");
    CHECK(f && !strcmp(f->have, "1500") && strstr(f->want, ">= 4156"));
    /* leaf0's uplinks disagree with the spines */
    f = finding(&o, "leaf0", "PORT|Ethernet64.mtu");
    uint32_t leaf0 = 0;
    for (uint32_t i = 0; i < o.f.n; i++)
        leaf0 += !strcmp(o.f.f[i].device, "leaf0");
    CHECK(leaf0 >= 1);
    cdb_report_free(&o.f);
}

static void test_ecn_xoff(void)
{
    res o;
    char m[256];
    CHECK(run_checks("devices:\n  - {switch: leaf1, ecn: {kmax: 60MB}}\n", &o, m, sizeof m) == 0);
    CHECK(status(&o, "ecn_below_xoff") == CHECK_FAIL);
    const cdb_finding *f = finding(&o, "leaf1", "WRED_PROFILE|WIRERATE_ECN.green_max_threshold");
    CHECK(f && !strcmp(f->have, "60000000"));
    CHECK_EQ_U64(o.f.n, 1);
    cdb_report_free(&o.f);
}

static void test_failure_domains(void)
{
    res o;
    char m[256];
    CHECK(run_checks("", &o, m, sizeof m) == 0);
    CHECK(status(&o, "failure_domains") == CHECK_PASS);
    cdb_report_free(&o.f);
    /* one spine: its loss disconnects every leaf */
    scenario sc;
    const char *y = "fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8,\n"
                    "  leaf_radix: 16, spines: 1}\n";
    err e;
    CHECK(config_load_buffer(&sc, "fd.yaml", y, strlen(y), NULL, 0, &e) == 0);
    sim s;
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    plan p;
    CHECK(n && plan_build(&p, n, &e) == 0);
    memset(&o, 0, sizeof o);
    check_devices(&p, &o.r, &o.f);
    CHECK(status(&o, "failure_domains") == CHECK_FAIL);
    const cdb_finding *f = finding(&o, "leaf0", "uplinks of leaf0");
    CHECK(f && !strcmp(f->have, "all 8 via spine0") &&
          strstr(f->want, "spine0's loss cuts leaf0's 8 NIC ports off"));
    cdb_report_free(&o.f);
    plan_free(&p);
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
}

static void test_unknown_device(void)
{
    res o;
    char m[256];
    CHECK(run_checks("devices:\n  - {switch: leaf9, mtu: 1500}\n", &o, m, sizeof m) == -1);
    CHECK(strstr(m, "4:14: devices[0].switch: no switch named \"leaf9\"") != NULL);
    CHECK(run_checks("devices:\n  - {nic: server0, mtu: 1500}\n", &o, m, sizeof m) == -1);
    CHECK(strstr(m, "mtu") != NULL);
}

static void test_plan_writes_overrides(void)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "%sdevices:\n  - {nic: server0, trust: pcp, netdev_mtu: 4200}\n"
             "  - {switch: spine1, dscp_to_tc: {26: 0}, mtu: 9100}\n",
             BASE);
    scenario sc;
    sim s;
    err e;
    CHECK(config_load_buffer(&sc, "w.yaml", yaml, strlen(yaml), NULL, 0, &e) == 0);
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    plan p;
    CHECK(n && plan_build(&p, n, &e) == 0);
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    plan_write_nic_script(f, &p, 0);
    fclose(f);
    CHECK(strstr(buf, "mlnx_qos -i $IF --trust pcp") && strstr(buf, "mtu 4200"));
    free(buf);
    for (uint32_t i = 0; i < n->n_switches; i++)
        if (!strcmp(n->switches[i]->name, "spine1")) {
            f = open_memstream(&buf, &len);
            plan_write_config_db(f, &p, n->switches[i]);
            fclose(f);
            CHECK(strstr(buf, "\"26\": \"0\"") && strstr(buf, "\"mtu\": \"9100\""));
            free(buf);
        }
    plan_free(&p);
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
}

int main(void)
{
    TEST_RUN(test_defaults_pass);
    TEST_RUN(test_pfc_mismatch);
    TEST_RUN(test_dscp_trust);
    TEST_RUN(test_cnp_paused);
    TEST_RUN(test_mtu);
    TEST_RUN(test_ecn_xoff);
    TEST_RUN(test_failure_domains);
    TEST_RUN(test_unknown_device);
    TEST_RUN(test_plan_writes_overrides);
    return tl_finish();
}
