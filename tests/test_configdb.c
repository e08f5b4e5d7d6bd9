/*
 * test_configdb.c — `check --config-db`: the config_db.json files plan writes verify clean
 * against their scenario, and a mismatch planted in one file is found and named (device,
 * field, both values, the fix), on the switch and on its link peer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "plan/configdb.h"
#include "plan/plan.h"
#include "testlib.h"

typedef struct fx {
    scenario sc;
    sim s;
    net *n;
    plan p;
    char dir[64];
} fx;

static const char *YAML = "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                          "  leaf_radix: 16, spines: 4}\n";

static int fx_open(fx *x, const char *yaml)
{
    err e;
    err_clear(&e);
    if (config_load_buffer(&x->sc, "cdb.yaml", yaml, strlen(yaml), NULL, 0, &e))
        return fprintf(stderr, "%s\n", e.msg), -1;
    sim_init(&x->s, 1);
    x->n = net_build(&x->sc, &x->s, &e);
    if (!x->n || plan_build(&x->p, x->n, &e))
        return fprintf(stderr, "%s\n", e.msg), -1;
    snprintf(x->dir, sizeof x->dir, "%s", "/tmp/wr-cdb.XXXXXX");
    if (!mkdtemp(x->dir))
        return -1;
    /* the plan's files, DIR/<switch>/config_db.json */
    for (uint32_t i = 0; i < x->n->n_switches; i++) {
        const node *sw = x->n->switches[i];
        if (sw->tier == TIER_SCALE_UP)
            continue;
        char path[160];
        snprintf(path, sizeof path, "%s/%s", x->dir, sw->name);
        mkdir(path, 0777);
        snprintf(path, sizeof path, "%s/%s/config_db.json", x->dir, sw->name);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        plan_write_config_db(f, &x->p, sw);
        fclose(f);
    }
    return 0;
}

static void fx_close(fx *x)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", x->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", x->dir);
    plan_free(&x->p);
    net_free(x->n);
    sim_free(&x->s);
    scenario_free(&x->sc);
}

/* Replace the first `from` after `anchor` in DIR/<sw>/config_db.json by `to`. */
static int plant(const fx *x, const char *sw, const char *anchor, const char *from, const char *to)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s/config_db.json", x->dir, sw);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *a = strstr(buf, anchor), *p = a ? strstr(a, from) : NULL;
    if (!p)
        return -1;
    f = fopen(path, "wb");
    fwrite(buf, 1, (size_t)(p - buf), f);
    fputs(to, f);
    fputs(p + strlen(from), f);
    fclose(f);
    return 0;
}

static const cdb_finding *find(const cdb_report *r, const char *dev, const char *field)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].device, dev) && !strcmp(r->f[i].field, field))
            return &r->f[i];
    return NULL;
}

static void test_plan_files_verify_clean(void)
{
    fx x;
    CHECK(fx_open(&x, YAML) == 0);
    cdb_report r;
    err e;
    CHECK(cdb_verify(&x.p, x.dir, &r, &e) == ERR_OK);
    CHECK_EQ_U64(r.files, 12); /* 64 NIC ports on 8-port-down leaves: 8 leaves, 4 spines */
    CHECK_EQ_U64(r.n, 0);
    for (uint32_t i = 0; i < r.n; i++)
        fprintf(stderr, "  %s %s = %s (want %s)\n", r.f[i].device, r.f[i].field, r.f[i].have,
                r.f[i].want);
    cdb_report_free(&r);
    fx_close(&x);
}

static void test_planted_mtu(void)
{
    fx x;
    CHECK(fx_open(&x, YAML) == 0);
    /* spine1's first port (to leaf0) at 1500 */
    CHECK(plant(&x, "spine1", "\"PORT\"", "\"mtu\": \"9216\"", "\"mtu\": \"1500\"") == 0);
    cdb_report r;
    err e;
    CHECK(cdb_verify(&x.p, x.dir, &r, &e) == ERR_OK);
    const cdb_finding *f = find(&r, "spine1", "PORT|Ethernet0.mtu");
    CHECK(f != NULL);
    if (f) {
        CHECK_STR(f->have, "1500");
        CHECK(strstr(f->want, "9216 (fabric.mtu") == f->want);
        CHECK_STR(f->fix, "set PORT|Ethernet0 mtu to 9216");
    }
    /* the peer end sees the disagreement too, naming the spine's port */
    const node *sp = NULL;
    for (uint32_t i = 0; i < x.n->n_switches; i++)
        if (!strcmp(x.n->switches[i]->name, "spine1"))
            sp = x.n->switches[i];
    CHECK(sp != NULL);
    if (sp) {
        char pn[24], field[64];
        plan_port_name(&x.p, sp->ports[0].peer, pn, sizeof pn);
        snprintf(field, sizeof field, "PORT|%s.mtu", pn);
        const cdb_finding *g = find(&r, sp->ports[0].peer->owner->name, field);
        CHECK(g != NULL && strstr(g->want, "1500, as the peer spine1 PORT|Ethernet0.mtu"));
    }
    CHECK_EQ_U64(r.n, 2);
    cdb_report_free(&r);
    fx_close(&x);
}

static void test_planted_qos(void)
{
    fx x;
    CHECK(fx_open(&x, YAML) == 0);
    CHECK(plant(&x, "leaf1", "\"PORT_QOS_MAP\"", "\"pfc_enable\": \"3\"",
                "\"pfc_enable\": \"4\"") == 0);
    CHECK(plant(&x, "leaf0", "\"WRED_PROFILE\"", "\"green_min_threshold\": \"100000\"",
                "\"green_min_threshold\": \"900000\"") == 0);
    CHECK(plant(&x, "spine2", "\"DSCP_TO_TC_MAP\"", "\"48\": \"6\"", "\"48\": \"3\"") == 0);
    CHECK(plant(&x, "spine3", "\"BUFFER_PROFILE\"", "\"xoff\": \"", "\"xoff\": \"1") == 0);
    cdb_report r;
    err e;
    CHECK(cdb_verify(&x.p, x.dir, &r, &e) == ERR_OK);
    const cdb_finding *f = find(&r, "leaf1", "PORT_QOS_MAP|Ethernet0.pfc_enable");
    CHECK(f && !strcmp(f->have, "4") && strstr(f->want, "\"3\" (switch.pfc.priorities"));
    f = find(&r, "leaf0", "WRED_PROFILE|WIRERATE_ECN.green_min_threshold");
    CHECK(f && !strcmp(f->have, "900000") && strstr(f->want, "100000 (switch.ecn.kmin"));
    f = find(&r, "spine2", "DSCP_TO_TC_MAP|WIRERATE.48");
    CHECK(f && !strcmp(f->have, "3") && strstr(f->want, "6: DSCP 48 carries CNPs"));
    /* xoff "1<headroom>" is larger: more headroom than needed is no finding */
    CHECK(find(&r, "spine3", "BUFFER_PROFILE|pg_lossless_400000_200m_230567_profile.xoff") == NULL);
    CHECK_EQ_U64(r.n, 3);
    cdb_report_free(&r);
    fx_close(&x);
}

static void test_headroom_and_files(void)
{
    fx x;
    CHECK(fx_open(&x, YAML) == 0);
    CHECK(plant(&x, "spine0", "\"BUFFER_PROFILE\"", "\"xoff\": \"", "\"xoff\": \"9\", \"x\": \"") ==
          0);
    char path[160];
    snprintf(path, sizeof path, "%s/spine3/config_db.json", x.dir);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/spine2/config_db.json", x.dir);
    FILE *f = fopen(path, "w");
    fputs("{\"PORT\": {", f);
    fclose(f);
    cdb_report r;
    err e;
    CHECK(cdb_verify(&x.p, x.dir, &r, &e) == ERR_OK);
    const cdb_finding *g =
        find(&r, "spine0", "BUFFER_PROFILE|pg_lossless_400000_200m_230567_profile.xoff");
    CHECK(g && !strcmp(g->have, "9") && strstr(g->want, "or lossless frames drop"));
    g = find(&r, "spine3", "config_db.json");
    CHECK(g && !strcmp(g->have, "(no file)"));
    g = find(&r, "spine2", "config_db.json");
    CHECK(g && strstr(g->have, "invalid JSON at byte"));
    CHECK_EQ_U64(r.files, 11);
    cdb_report_free(&r);
    /* not a folder: an I/O error */
    CHECK(cdb_verify(&x.p, "/nonexistent/wr", &r, &e) == ERR_IO);
    fx_close(&x);
}

int main(void)
{
    TEST_RUN(test_plan_files_verify_clean);
    TEST_RUN(test_planted_mtu);
    TEST_RUN(test_planted_qos);
    TEST_RUN(test_headroom_and_files);
    return tl_finish();
}
