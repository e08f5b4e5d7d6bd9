/*
 * test_plan.c — the build sheet against the topology it comes from: bom.csv counts equal the
 * fabric's closed forms, every cable's ends exist and no port is used twice, addresses are
 * unique and each /31 pairs the two ends of one link, config_db.json parses and carries the
 * simulated Kmin/Kmax/Pmax and per-port headroom, servers per rack follow the power budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/sim.h"
#include "net/net.h"
#include "plan/plan.h"
#include "report/jsonr.h"
#include "testlib.h"

typedef struct fx {
    scenario sc;
    sim s;
    net *n;
    plan p;
} fx;

static int fx_open(fx *x, const char *yaml)
{
    err e;
    err_clear(&e);
    if (config_load_buffer(&x->sc, "plan.yaml", yaml, strlen(yaml), NULL, 0, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    sim_init(&x->s, 1);
    x->n = net_build(&x->sc, &x->s, &e);
    if (!x->n || plan_build(&x->p, x->n, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        if (x->n)
            net_free(x->n);
        sim_free(&x->s);
        scenario_free(&x->sc);
        return -1;
    }
    return 0;
}

static void fx_close(fx *x)
{
    plan_free(&x->p);
    net_free(x->n);
    sim_free(&x->s);
    scenario_free(&x->sc);
}

/* Whole output of a writer as a string (caller frees). */
#define CAPTURE(buf, call)                                                                         \
    do {                                                                                           \
        size_t len_;                                                                               \
        FILE *f_ = open_memstream(&(buf), &len_);                                                  \
        call;                                                                                      \
        fclose(f_);                                                                                \
    } while (0)

/* Read the CSV row at *s into line (moving *s past it) and split it at its commas into at most
 * max fields f[]; returns how many. */
static int csv_row(const char **s, char *line, size_t cap, char **f, int max)
{
    size_t l = strcspn(*s, "\n");
    snprintf(line, cap, "%.*s", (int)l, *s);
    *s += l + ((*s)[l] == '\n');
    int k = 0;
    for (char *t = line; k < max && t; k++) {
        f[k] = t;
        t = strchr(t, ',');
        if (t)
            *t++ = 0;
    }
    return k;
}

/* Sum of the count column of bom rows with this category and tier ("" = any tier). */
static uint64_t bom_sum(const char *csv, const char *cat, const char *tier)
{
    uint64_t sum = 0;
    char line[512];
    for (const char *s = strchr(csv, '\n') + 1; *s;) {
        char *f[4];
        int k = csv_row(&s, line, sizeof line, f, 4);
        if (k == 4 && !strcmp(f[0], cat) && (!*tier || !strcmp(f[2], tier)))
            sum += strtoull(f[3], NULL, 10);
    }
    return sum;
}

static void test_bom_closed_forms(void)
{
    /* rail-optimized, 64 servers x 8 rails, 400G, radix 64 at 1:1: D = U = 32 per leaf, so
     * 8 rails x 64/32 = 16 leaves, one spine per leaf uplink = 32 spines, 512 NICs,
     * 512 host cables, 16 x 32 leaf-spine cables */
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: rail-optimized, servers: 64, gpus_per_server: 8}\n") == 0);
    char *bom = NULL;
    CAPTURE(bom, plan_write_bom(f_, &x.p));
    CHECK_EQ_U64(bom_sum(bom, "switch", "leaf"), 16);
    CHECK_EQ_U64(bom_sum(bom, "switch", "spine"), 32);
    CHECK_EQ_U64(bom_sum(bom, "nic", ""), 512);
    CHECK_EQ_U64(bom_sum(bom, "cable", "server-leaf") + bom_sum(bom, "fiber", "server-leaf"), 512);
    CHECK_EQ_U64(bom_sum(bom, "cable", "leaf-spine") + bom_sum(bom, "fiber", "leaf-spine"),
                 16 * 32);
    /* optical links carry two transceivers each */
    CHECK_EQ_U64(bom_sum(bom, "optic", ""), 2 * bom_sum(bom, "fiber", ""));
    CHECK(strstr(bom, "total,switches,all,48\n") != NULL);
    CHECK(strstr(bom, "64x400G") != NULL);
    free(bom);
    fx_close(&x);

    /* 400G hosts on 800G leaves: host ports pair up in 800G cages (1:2 breakouts), one
     * breakout cable or transceiver per cage: 64 host links -> 32 cages */
    CHECK(fx_open(&x, "fabric: {preset: rail-optimized, servers: 8, gpus_per_server: 8,\n"
                      "  host_link: 400Gbps, fabric_link: 800Gbps}\n") == 0);
    CAPTURE(bom, plan_write_bom(f_, &x.p));
    uint64_t cages = 0;
    for (const char *s = bom; (s = strstr(s, "breakout")); s++) {
        const char *eol = strchr(s, '\n'), *c = eol;
        while (c[-1] != ',')
            c--;
        cages += strtoull(c, NULL, 10);
        s = eol;
    }
    CHECK_EQ_U64(cages, 32);
    free(bom);
    fx_close(&x);
}

static void test_cabling_ports_unique(void)
{
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: rail-optimized, servers: 32, gpus_per_server: 8,\n"
                      "  nic_ports: 2, host_link: 200Gbps, fabric_link: 400Gbps, pods: 2,\n"
                      "  leaf_radix: 32, spine_radix: 32}\n") == 0);
    char *csv = NULL;
    CAPTURE(csv, plan_write_cabling(f_, &x.p));
    /* every (device, port) end at most once; every device is a switch or a server */
    char **ends = NULL;
    size_t n_ends = 0, cables = 0;
    char line[512];
    bool names_ok = true;
    for (const char *s = strchr(csv, '\n') + 1; *s;) {
        char *f[11];
        int k = csv_row(&s, line, sizeof line, f, 11);
        CHECK(k == 11);
        cables++;
        for (int end = 0; end < 2; end++) {
            const char *dev = f[1 + 3 * end], *pt = f[2 + 3 * end];
            bool known = !strncmp(dev, "server", 6);
            for (uint32_t i = 0; i < x.n->n_switches && !known; i++)
                known = !strcmp(x.n->switches[i]->name, dev);
            names_ok = names_ok && known;
            ends = realloc(ends, sizeof(char *) * (n_ends + 1));
            size_t bl = strlen(dev) + strlen(pt) + 2;
            ends[n_ends] = malloc(bl);
            snprintf(ends[n_ends++], bl, "%s:%s", dev, pt);
        }
    }
    CHECK(names_ok);
    /* host links + leaf-spine + spine-super: every link but the scale-up ones */
    uint32_t fabric_links = 0;
    for (uint32_t i = 0; i < x.n->n_ports; i += 2)
        fabric_links += x.n->ports[i]->owner->tier != TIER_SCALE_UP &&
                        x.n->ports[i + 1]->owner->tier != TIER_SCALE_UP;
    CHECK_EQ_U64(cables, fabric_links);
    qsort(ends, n_ends, sizeof(char *), (int (*)(const void *, const void *))strcmp);
    int dup = 0;
    for (size_t i = 1; i < n_ends; i++)
        dup += !strcmp(ends[i - 1], ends[i]);
    CHECK_EQ_U64(dup, 0);
    for (size_t i = 0; i < n_ends; i++)
        free(ends[i]);
    free(ends);
    free(csv);
    fx_close(&x);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t parse_ip(const char *s)
{
    unsigned a, b, c, d;
    if (sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d) != 4)
        return 0;
    return a << 24 | b << 16 | c << 8 | d;
}

static void test_addresses_pair_links(void)
{
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 8}\n"
                      "plan: {ipv6: true}\n") == 0);
    char *csv = NULL;
    CAPTURE(csv, plan_write_addressing(f_, &x.p));
    uint32_t *ips = NULL;
    size_t n = 0, rows = 0, paired = 0;
    char line[512];
    for (const char *s = strchr(csv, '\n') + 1; *s;) {
        char *f[10];
        int k = csv_row(&s, line, sizeof line, f, 10);
        CHECK(k == 10);
        uint32_t ip = parse_ip(f[3]);
        ips = realloc(ips, sizeof(uint32_t) * (n + 1));
        ips[n++] = ip;
        rows++;
        if (!strcmp(f[0], "loopback")) {
            CHECK(strstr(f[3], "/32") != NULL);
            continue;
        }
        /* a /31: the peer is the other address of the same pair */
        CHECK(strstr(f[3], "/31") != NULL && strstr(f[4], "/127") != NULL);
        uint32_t peer = parse_ip(f[7]);
        paired += (ip ^ 1u) == peer;
    }
    /* every address once; every link end paired with its peer */
    qsort(ips, n, sizeof(uint32_t), cmp_u32);
    int dup = 0;
    for (size_t i = 1; i < n; i++)
        dup += ips[i - 1] == ips[i];
    CHECK_EQ_U64(dup, 0);
    uint32_t sw = 0, links = 0;
    for (uint32_t i = 0; i < x.n->n_switches; i++)
        sw += x.n->switches[i]->tier != TIER_SCALE_UP;
    for (uint32_t i = 0; i < x.n->n_ports; i += 2)
        links += x.n->ports[i]->owner->tier != TIER_SCALE_UP &&
                 x.n->ports[i + 1]->owner->tier != TIER_SCALE_UP;
    CHECK_EQ_U64(rows, sw + 2 * links);
    CHECK_EQ_U64(paired, 2 * links);
    /* a NIC port keeps the address the simulator gives it */
    CHECK(strstr(csv, "nic,server0,eth0,10.0.0.1/31,") != NULL);
    free(ips);
    free(csv);
    fx_close(&x);
}

static void test_config_db_values(void)
{
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                      "  cable_length: 30m}\n"
                      "switch: {ecn: {kmin: 150KB, kmax: 1500KB, pmax: 0.1},\n"
                      "         pfc: {priorities: [3, 4]}}\n") == 0);
    const node *leaf = NULL;
    for (uint32_t i = 0; i < x.n->n_switches && !leaf; i++)
        if (x.n->switches[i]->tier == TIER_LEAF)
            leaf = x.n->switches[i];
    CHECK(leaf != NULL);
    if (!leaf) {
        fx_close(&x);
        return;
    }
    char *js = NULL;
    CAPTURE(js, plan_write_config_db(f_, &x.p, leaf));
    size_t off;
    char msg[128];
    jsonr_doc *d = jsonr_parse(js, strlen(js), &off, msg, sizeof msg);
    CHECK(d != NULL);
    if (d) {
        const jsonr_val *r = jsonr_root(d);
        CHECK_STR(jsonr_str(r, "WRED_PROFILE.WIRERATE_ECN.green_min_threshold", ""), "150000");
        CHECK_STR(jsonr_str(r, "WRED_PROFILE.WIRERATE_ECN.green_max_threshold", ""), "1500000");
        CHECK_STR(jsonr_str(r, "WRED_PROFILE.WIRERATE_ECN.green_drop_probability", ""), "10");
        CHECK_STR(jsonr_str(r, "PORT_QOS_MAP.Ethernet0.pfc_enable", ""), "3,4");
        /* each port's lossless profile carries the headroom the simulator reserved there */
        const port *pt = &leaf->ports[0];
        char key[96];
        snprintf(key, sizeof key, "BUFFER_PG.Ethernet0|3.profile");
        const char *prof = jsonr_str(r, key, "");
        CHECK(*prof != 0);
        const jsonr_val *bp = jsonr_get(jsonr_get(r, "BUFFER_PROFILE"), prof);
        CHECK(bp != NULL);
        if (bp) {
            CHECK_EQ_U64(strtoull(jsonr_str(bp, "xoff", "0"), NULL, 10), pt->hdrm_bytes);
            CHECK_EQ_U64(pt->hdrm_bytes, net_pfc_headroom_port(pt, x.n->max_frame_bytes));
            CHECK_STR(jsonr_str(bp, "xon", ""), "18432");
        }
        /* CABLE_LENGTH: the simulated 30 m */
        CHECK_STR(jsonr_str(r, "CABLE_LENGTH.AZURE.Ethernet0", ""), "30m");
        /* a BGP neighbour per spine link, with the spine's ASN */
        const jsonr_val *bgp = jsonr_get(r, "BGP_NEIGHBOR");
        uint32_t up = 0;
        for (uint32_t i = 0; i < leaf->n_ports; i++)
            up += leaf->ports[i].peer->owner->kind == NODE_SWITCH;
        CHECK(bgp && bgp->n == up);
        CHECK_STR(jsonr_str(r, "DEVICE_METADATA.localhost.type", ""), "BackEndToRRouter");
        jsonr_free(d);
    }
    free(js);
    fx_close(&x);
}

static void test_rack_power(void)
{
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 30, gpus_per_server: 8}\n") == 0);
    CHECK_EQ_U64(x.p.servers_per_rack, 1); /* 15 kW air / 10.2 kW */
    CHECK_EQ_U64(x.p.server_racks, 30);
    fx_close(&x);
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 30, gpus_per_server: 8}\n"
                      "plan: {cooling: liquid}\n") == 0);
    CHECK_EQ_U64(x.p.servers_per_rack, 12); /* 130 kW / 10.2 kW */
    CHECK_EQ_U64(x.p.server_racks, 3);
    CHECK_EQ_U64(x.p.servers_w, 30 * 10200ull);
    uint64_t sum = 0;
    for (uint32_t r = 0; r < x.p.n_racks; r++)
        sum += x.p.racks[r].power_w;
    CHECK_EQ_U64(sum, x.p.total_w);
    fx_close(&x);
    /* a server above the budget is a scenario error at the key */
    scenario sc;
    sim s;
    err e;
    err_clear(&e);
    const char *y = "fabric: {preset: leaf-spine, servers: 8}\nplan: {rack_power: 7kW}\n";
    CHECK(config_load_buffer(&sc, "p.yaml", y, strlen(y), NULL, 0, &e) == 0);
    sim_init(&s, 1);
    net *n = net_build(&sc, &s, &e);
    plan p;
    CHECK(n && plan_build(&p, n, &e) == ERR_INVALID);
    CHECK(strstr(e.msg, "does not fit a 7.0 kW rack") != NULL);
    CHECK_EQ_U64(e.line, 2);
    net_free(n);
    sim_free(&s);
    scenario_free(&sc);
}

static void test_html_and_warnings(void)
{
    /* simulated cables of 1 m, planned ones longer: plan.md and plan.html say the headroom was
     * computed for a shorter cable */
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8,\n"
                      "  cable_length: 1m}\n") == 0);
    CHECK(x.p.long_links > 0);
    char *md = NULL, *html = NULL;
    CAPTURE(md, plan_write_md(f_, &x.p));
    CAPTURE(html, plan_write_html(f_, &x.p));
    char want[96];
    snprintf(want, sizeof want, "- %u cables are longer than the link the simulation modelled",
             x.p.long_links);
    CHECK(strstr(md, want) != NULL);
    CHECK(strstr(html, "cables are longer than the simulated link") != NULL);
    /* one bar per rack */
    uint32_t bars = 0;
    for (const char *s = html; (s = strstr(s, "<rect ")); s++)
        bars++;
    CHECK_EQ_U64(bars, x.p.n_racks);
    CHECK(strstr(html, "budget 15.0 kW") != NULL);
    free(md);
    free(html);
    fx_close(&x);
    /* 1 us links (200 m) are longer than any planned cable: no warning */
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 8}\n") == 0);
    CHECK_EQ_U64(x.p.long_links, 0);
    fx_close(&x);
}

static void test_rail_rows(void)
{
    /* 64 servers x 8 rails at radix 64: 2 leaves per rail, 16 leaves; rail-rows puts each
     * rail's leaves in racks of their own in the network row */
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: rail-optimized, servers: 64, gpus_per_server: 8}\n"
                      "plan: {placement: rail-rows, switches_per_rack: 4}\n") == 0);
    uint32_t rail_of_rack[256];
    for (uint32_t r = 0; r < 256; r++)
        rail_of_rack[r] = UINT32_MAX;
    bool ok = true;
    for (uint32_t i = 0; i < x.n->n_switches; i++) {
        const node *sw = x.n->switches[i];
        if (sw->tier != TIER_LEAF)
            continue;
        uint32_t rk = x.p.switch_rack[i], rail = UINT32_MAX;
        for (uint32_t k = 0; k < sw->n_ports && rail == UINT32_MAX; k++)
            if (sw->ports[k].peer->owner->kind == NODE_HOST)
                rail = sw->ports[k].peer->owner->rail;
        ok = ok && rk < 256 && x.p.racks[rk].network && x.p.racks[rk].row == x.p.rows;
        if (rk < 256 && rail_of_rack[rk] == UINT32_MAX)
            rail_of_rack[rk] = rail;
        ok = ok && rk < 256 && rail_of_rack[rk] == rail;
    }
    CHECK(ok);
    /* 8 rails x 1 rack (2 leaves each) + 32 spines / 4 per rack */
    CHECK_EQ_U64(x.p.n_racks - x.p.server_racks, 8 + 8);
    fx_close(&x);
}

/* InfiniBand: the build sheet configures a subnet manager and IPoIB, not SONiC, eBGP or RoCE.
 * Every NIC port has one IPoIB address in one subnet; opensm.conf carries the simulated CC
 * parameters (CCTI timer in 1.024 us units, the CCT up to ccti_limit entry by entry); the
 * partition's MTU code is the simulated path MTU's; nothing Ethernet-only is written. */
static void test_infiniband(void)
{
    fx x;
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 8, "
                      "link_layer: infiniband}\n"
                      "workload: [{name: j, kind: collective, op: all_reduce, size: 1MB}]\n") == 0);
    CHECK(plan_ib(&x.p));
    char *csv = NULL, *cab = NULL, *sm = NULL, *part = NULL, *env = NULL, *sh = NULL, *md = NULL;
    CAPTURE(csv, plan_write_addressing(f_, &x.p));
    CAPTURE(cab, plan_write_cabling(f_, &x.p));
    CAPTURE(sm, plan_write_opensm(f_, &x.p));
    CAPTURE(part, plan_write_partitions(f_, &x.p));
    CAPTURE(env, plan_write_nccl_env(f_, &x.p, 0));
    CAPTURE(sh, plan_write_nic_script(f_, &x.p, 0));
    CAPTURE(md, plan_write_md(f_, &x.p));
    /* addressing: one ipoib row per NIC port, unique, all in 10.0.0.0/8, no ASN */
    uint32_t nics = 0;
    for (uint32_t h = 0; h < x.n->n_hosts; h++)
        nics += x.n->hosts[h]->net_port != UINT32_MAX;
    uint32_t *ips = calloc(nics + 1, sizeof(uint32_t));
    size_t n = 0;
    char line[512];
    for (const char *s = strchr(csv, '\n') + 1; *s;) {
        char *f[10];
        int k = csv_row(&s, line, sizeof line, f, 10);
        CHECK(k == 10 && !strcmp(f[0], "ipoib") && !strcmp(f[9], "")); /* no ASN */
        CHECK(strstr(f[3], "/8") != NULL);
        if (n <= nics) {
            ips[n] = parse_ip(f[3]);
            CHECK(ips[n] >> 24 == 10);
        }
        n++;
    }
    CHECK_EQ_U64(n, nics);
    qsort(ips, n, sizeof(uint32_t), cmp_u32);
    int dup = 0;
    for (size_t i = 1; i < n; i++)
        dup += ips[i - 1] == ips[i];
    CHECK_EQ_U64(dup, 0);
    /* names: HCAs and IB switch ports, no Ethernet interface anywhere */
    CHECK(strstr(cab, "mlx5_0") && strstr(cab, "ib1/1"));
    CHECK(!strstr(cab, "Ethernet") && !strstr(cab, ",eth"));
    /* the subnet manager's settings as simulated */
    CHECK(strstr(sm, "routing_engine updn\n") != NULL);
    CHECK(strstr(sm, "congestion_control TRUE\n") != NULL);
    CHECK(strstr(sm, "qos_sl2vl 0,1,2,3,4,5,6,7,") != NULL);
    const cfg_ib *ib = &x.sc.fabric.ib;
    char want[96];
    snprintf(want, sizeof want, "cc_ca_cong_setting_ccti_timer %u %llu\n", x.sc.nic.priority,
             (unsigned long long)(ib->ccti_timer_ps / (1024 * SIM_NS)));
    CHECK(strstr(sm, want) != NULL);
    CHECK_EQ_U64(ib->ccti_timer_ps % (1024 * SIM_NS), 0);
    snprintf(want, sizeof want, "cc_sw_cong_setting_marking_rate %u\n", ib->marking_rate);
    CHECK(strstr(sm, want) != NULL);
    const char *cct = strstr(sm, "cc_cct ");
    CHECK(cct != NULL);
    if (cct) {
        cct += 7;
        uint32_t i = 0;
        int same = 1;
        while (*cct && *cct != '\n') {
            unsigned sh_, mul;
            int used = 0;
            if (sscanf(cct, "%u:%u%n", &sh_, &mul, &used) != 2)
                break;
            same &= sh_ == 0 && i < ib->n_cct && mul == ib->cct[i];
            i++;
            cct += used;
            if (*cct == ',')
                cct++;
        }
        CHECK(same);
        CHECK_EQ_U64(i, ib->ccti_limit + 1);
    }
    CHECK(strstr(part, "mtu=5,") != NULL); /* 4096 */
    /* NCCL: the service level, no RoCE GID or traffic class */
    snprintf(want, sizeof want, "NCCL_IB_SL=%u\n", x.sc.nic.priority);
    CHECK(strstr(env, want) != NULL);
    CHECK(!strstr(env, "GID_INDEX") && !strstr(env, "NCCL_IB_TC"));
    /* hosts: IB checks and IPoIB, nothing of RoCE */
    CHECK(strstr(sh, "ibstat mlx5_0 1") != NULL && strstr(sh, "dev ib0") != NULL);
    CHECK(!strstr(sh, "mlnx_qos") && !strstr(sh, "roce") && !strstr(sh, "/31"));
    CHECK(!strstr(md, "DSCP") && !strstr(md, "eBGP") && !strstr(md, "sonic/"));
    CHECK(strstr(md, "subnet/opensm.conf") != NULL);
    free(ips);
    free(csv), free(cab), free(sm), free(part), free(env), free(sh), free(md);
    fx_close(&x);

    /* nic.cc none: CC off in the SM too; a 2048-byte path MTU is code 4; fat tree: ftree */
    CHECK(fx_open(&x, "fabric: {preset: fat-tree, k: 4, link_layer: infiniband}\n"
                      "nic: {cc: none, mtu: 2048}\n") == 0);
    CAPTURE(sm, plan_write_opensm(f_, &x.p));
    CAPTURE(part, plan_write_partitions(f_, &x.p));
    CHECK(strstr(sm, "congestion_control FALSE\n") != NULL && !strstr(sm, "cc_cct"));
    CHECK(strstr(sm, "routing_engine ftree\n") != NULL);
    CHECK(strstr(part, "mtu=4,") != NULL);
    free(sm), free(part);
    fx_close(&x);

    /* Ethernet keeps RoCE's NCCL settings */
    CHECK(fx_open(&x, "fabric: {preset: leaf-spine, servers: 4}\n"
                      "workload: [{name: j, kind: collective, op: all_reduce, size: 1MB}]\n") == 0);
    CHECK(!plan_ib(&x.p));
    CAPTURE(env, plan_write_nccl_env(f_, &x.p, 0));
    CHECK(strstr(env, "NCCL_IB_GID_INDEX=3\n") != NULL && !strstr(env, "NCCL_IB_SL"));
    free(env);
    fx_close(&x);
}

int main(void)
{
    TEST_RUN(test_infiniband);
    TEST_RUN(test_rail_rows);
    TEST_RUN(test_html_and_warnings);
    TEST_RUN(test_bom_closed_forms);
    TEST_RUN(test_cabling_ports_unique);
    TEST_RUN(test_addresses_pair_links);
    TEST_RUN(test_config_db_values);
    TEST_RUN(test_rack_power);
    return tl_finish();
}
