/*
 * cmd_plan.c — `wirerate plan SCENARIO.yaml -o DIR [--set KEY=VALUE]...`: build the fabric of a
 * scenario (no simulation) and write its build sheet (plan/plan.h, docs/plan.md) into DIR.
 *
 * DIR behaves as a run's output folder (outdir.h): written beside it in a hidden staging folder,
 * swapped in whole with a manifest.json, refused when it holds files wirerate did not write;
 * an invalid scenario (exit 3) or an I/O error (exit 4) leaves DIR as it was. Without -o the
 * folder is output.dir with "-plan" appended (out/<name>-plan), so a plan never replaces the
 * run results of the same scenario. SIGINT/SIGTERM remove the staging folder.
 */
#include <signal.h>
#include <string.h>

#include "../config/config.h"
#include "../core/alloc.h"
#include "../core/sim.h"
#include "../net/net.h"
#include "../plan/plan.h"
#include "args.h"
#include "cli.h"
#include "diag.h"
#include "outdir.h"

void cmd_plan_help(void)
{
    fputs("usage: wirerate plan SCENARIO.yaml [-o DIR] [--set KEY=VALUE]...\n"
          "\n"
          "Build the fabric of SCENARIO.yaml without simulating it and write its build sheet:\n"
          "bom.csv, racks.csv, addressing.csv, cabling.csv, plan.md, plan.html,\n"
          "sonic/<switch>/config_db.json (InfiniBand: subnet/opensm.conf and\n"
          "subnet/partitions.conf), nics/<server>.sh, nccl/<job>.env, k8s/rail<r>.yaml, "
          "k8s/pod-annotations.yaml\n"
          "(docs/plan.md describes each file and every default).\n"
          "\n"
          "  -o, --output DIR     output folder (default: output.dir + \"-plan\"); replaced whole\n"
          "      --set KEY=VALUE  override a scenario key by dotted path\n"
          "  -h, --help           this help\n"
          "\n"
          "Exit codes: 0 ok, 2 usage error, 3 invalid scenario, 4 I/O error.\n",
          stdout);
}

static outdir *volatile plan_od;

static void on_signal(int sig)
{
    outdir *od = plan_od;
    if (od)
        outdir_abort(od);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Begin a file, let `fn` write it, end it. */
#define WRITE_FILE(od, name, call)                                                                 \
    do {                                                                                           \
        FILE *f_ = outdir_begin(od, name, &e);                                                     \
        if (!f_) {                                                                                 \
            rc = ERR_IO;                                                                           \
            goto done;                                                                             \
        }                                                                                          \
        call;                                                                                      \
        if ((rc = outdir_end(od, f_, &e)))                                                         \
            goto done;                                                                             \
    } while (0)

static int write_plan(const plan *p, const char *dir, err *e_out)
{
    const net *n = p->n;
    const scenario *sc = p->sc;
    outdir od;
    err e;
    err_clear(&e);
    int rc = outdir_open(&od, dir, &e);
    if (rc) {
        *e_out = e;
        outdir_free(&od);
        return rc;
    }
    plan_od = &od;
    char name[160];
    WRITE_FILE(&od, "plan.md", plan_write_md(f_, p));
    WRITE_FILE(&od, "plan.html", plan_write_html(f_, p));
    WRITE_FILE(&od, "bom.csv", plan_write_bom(f_, p));
    WRITE_FILE(&od, "racks.csv", plan_write_racks(f_, p));
    WRITE_FILE(&od, "addressing.csv", plan_write_addressing(f_, p));
    WRITE_FILE(&od, "cabling.csv", plan_write_cabling(f_, p));
    if (plan_ib(p)) { /* InfiniBand: one subnet manager instead of a config per switch */
        WRITE_FILE(&od, "subnet/opensm.conf", plan_write_opensm(f_, p));
        WRITE_FILE(&od, "subnet/partitions.conf", plan_write_partitions(f_, p));
    }
    for (uint32_t i = 0; i < n->n_switches && !plan_ib(p); i++) {
        const node *sw = n->switches[i];
        if (sw->tier == TIER_SCALE_UP)
            continue;
        snprintf(name, sizeof name, "sonic/%s/config_db.json", sw->name);
        WRITE_FILE(&od, name, plan_write_config_db(f_, p, sw));
    }
    for (uint32_t s = 0; s < n->n_servers; s++) {
        char sn[32];
        plan_server_name(s, sn, sizeof sn);
        if (sc->fabric.preset == PRESET_CUSTOM)
            snprintf(sn, sizeof sn, "%s", n->hosts[s]->name);
        snprintf(name, sizeof name, "nics/%s.sh", sn);
        WRITE_FILE(&od, name, plan_write_nic_script(f_, p, s));
    }
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        snprintf(name, sizeof name, "nccl/%s.env", sc->jobs[j].name);
        WRITE_FILE(&od, name, plan_write_nccl_env(f_, p, j));
    }
    for (uint32_t r = 0; r < plan_rails(p); r++) {
        snprintf(name, sizeof name, "k8s/rail%u.yaml", r);
        WRITE_FILE(&od, name, plan_write_k8s_rail(f_, p, r));
    }
    WRITE_FILE(&od, "k8s/pod-annotations.yaml", plan_write_k8s_pods(f_, p));
    rc = outdir_commit(&od, &e);
done:
    plan_od = NULL;
    if (rc) {
        outdir_abort(&od);
        *e_out = e;
    }
    outdir_free(&od);
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    const char *path = NULL, *out = NULL;
    cli_overrides ov;
    cli_overrides_init(&ov, argc);
    int rc = ERR_OK;
    for (int i = 1; i < argc && rc == ERR_OK; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (a[0] != '-' || a[1] == '\0') {
            if (path)
                rc = cli_usage_error("plan", "more than one scenario given ('%s')", a);
            path = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cmd_plan_help();
            cli_overrides_free(&ov);
            return ERR_OK;
        } else if ((v = cli_opt_value(argc, argv, &i, "-o", &missing)) ||
                   (!missing && (v = cli_opt_value(argc, argv, &i, "--output", &missing)))) {
            out = v;
        } else if (!missing && (v = cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (!cli_is_override(v))
                rc = cli_usage_error("plan", "--set expects KEY=VALUE, got '%s'", v);
            else
                cli_overrides_add(&ov, v, false);
        } else if (missing) {
            rc = cli_usage_error("plan", "option '%s' needs a value", a);
        } else {
            rc = cli_usage_error("plan", "unknown option '%s'", a);
        }
    }
    if (rc == ERR_OK && !path)
        rc = cli_usage_error("plan", "missing SCENARIO.yaml");
    if (rc) {
        cli_overrides_free(&ov);
        return rc;
    }

    err e;
    err_clear(&e);
    scenario sc;
    if ((rc = cli_load_scenario(&sc, path, &ov)))
        return rc;
    char *dir = NULL;
    if (out) {
        dir = xstrdup(out, "output dir");
    } else {
        size_t len = strlen(sc.output_dir) + 6;
        dir = xmalloc(len, "output dir");
        snprintf(dir, len, "%s-plan", sc.output_dir);
    }
    sim s;
    sim_init(&s, sc.seed);
    net *n = NULL;
    rc = outdir_preflight(dir, &e);
    if (!rc && !(n = net_build_topology(&sc, &s, &e)))
        rc = e.code ? e.code : ERR_INVALID;
    plan p;
    bool built = false;
    if (!rc && !(rc = plan_build(&p, n, &e)))
        built = true;
    if (built) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        rc = write_plan(&p, dir, &e);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
    }
    if (rc) {
        diag_print(stderr, &e, ov.text, ov.n);
    } else {
        printf("wirerate %s  plan  scenario \"%s\"\n", WR_VERSION, sc.name);
        printf("  %u servers in %u racks (%u per rack), %u network racks, IT power %.1f kW\n",
               n->n_servers, p.server_racks, p.servers_per_rack, p.n_racks - p.server_racks,
               (double)p.total_w / 1e3);
        if (p.long_links)
            printf("  warning: %u cables are longer than the simulated links (plan.md)\n",
                   p.long_links);
        printf("  build sheet in %s/ (plan.md first)\n", dir);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            diag_msg(stderr, "<stdout>: error: write failed");
            rc = ERR_IO;
        }
    }
    if (built)
        plan_free(&p);
    net_free(n);
    sim_free(&s);
    xfree(dir);
    scenario_free(&sc);
    cli_overrides_free(&ov);
    return rc;
}
