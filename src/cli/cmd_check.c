/*
 * cmd_check.c — `wirerate check SCENARIO.yaml [--json] [--set KEY=VALUE]...`: build the fabric
 * of a scenario (no simulation) and run the design checks of plan/check.h.
 *
 * Exit codes (spec/scenario.md CLI): 0 when every check passes (warnings included), 5 when one
 * fails; 2, 3, 4 as for `run`. Nothing is written to disk. `--json` prints the spec's
 * "check --json" object on stdout and nothing else there; additions after the spec's keys:
 * topology.switches.scale_up, topology.links.scale_up.
 */
#include <string.h>

#include "../config/config.h"
#include "../core/sim.h"
#include "../net/net.h"
#include "../plan/check.h"
#include "../plan/checkdev.h"
#include "../plan/configdb.h"
#include "../plan/plan.h"
#include "../report/jsonw.h"
#include "args.h"
#include "cli.h"
#include "diag.h"

#define CHECK_EXIT_FAILED 5

void cmd_check_help(void)
{
    fputs("usage: wirerate check SCENARIO.yaml [--json] [--config-db DIR] [--set KEY=VALUE]...\n"
          "\n"
          "Build the fabric of SCENARIO.yaml without simulating it and check the design:\n"
          "switch and link counts per tier, oversubscription per tier, non-blocking, reachability,\n"
          "PFC deadlock freedom, failure domains; and its configuration per device (devices:):\n"
          "PFC classes NIC<->switch, DSCP trust and maps, CNPs outside paused classes, MTU end\n"
          "to end, ECN below XOFF, PFC headroom. Every finding names the device, the field,\n"
          "both values and the fix (docs/check.md).\n"
          "\n"
          "      --json           print the result as JSON on stdout\n"
          "      --config-db DIR  also verify the SONiC config_db.json files in DIR\n"
          "                       (DIR/<switch>/config_db.json, as `plan` writes them under\n"
          "                       sonic/) against each other and against the scenario\n"
          "      --set KEY=VALUE  override a scenario key by dotted path\n"
          "  -h, --help           this help\n"
          "\n"
          "Exit codes: 0 all checks pass, 5 a check failed, 2 usage error, 3 invalid scenario,\n"
          "4 I/O error.\n",
          stdout);
}

static void json_findings(jsonw *w, const cdb_report *cr)
{
    jsonw_key(w, "findings");
    jsonw_arr_begin(w);
    for (uint32_t i = 0; i < cr->n; i++) {
        const cdb_finding *x = &cr->f[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "device");
        jsonw_str(w, x->device);
        jsonw_key(w, "field");
        jsonw_str(w, x->field);
        jsonw_key(w, "have");
        jsonw_str(w, x->have);
        jsonw_key(w, "want");
        jsonw_str(w, x->want);
        jsonw_key(w, "fix");
        jsonw_str(w, x->fix);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

static void write_json(FILE *f, const check_report *r, const cdb_report *dr, const char *cdb_dir,
                       const cdb_report *cr)
{
    jsonw w;
    jsonw_init(&w, f, true);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "topology");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "servers");
    jsonw_u64(&w, r->servers);
    jsonw_key(&w, "gpus");
    jsonw_u64(&w, r->gpus);
    jsonw_key(&w, "nics");
    jsonw_u64(&w, r->nics);
    jsonw_key(&w, "hosts_ports");
    jsonw_u64(&w, r->host_ports);
    jsonw_key(&w, "switches");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "leaf");
    jsonw_u64(&w, r->leaf);
    jsonw_key(&w, "spine");
    jsonw_u64(&w, r->spine);
    jsonw_key(&w, "super_spine");
    jsonw_u64(&w, r->super_spine);
    jsonw_key(&w, "scale_up");
    jsonw_u64(&w, r->scale_up);
    jsonw_obj_end(&w);
    jsonw_key(&w, "links");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "host");
    jsonw_u64(&w, r->links_host);
    jsonw_key(&w, "leaf_spine");
    jsonw_u64(&w, r->links_leaf_spine);
    jsonw_key(&w, "spine_super");
    jsonw_u64(&w, r->links_spine_super);
    jsonw_key(&w, "scale_up");
    jsonw_u64(&w, r->links_scale_up);
    jsonw_obj_end(&w);
    jsonw_key(&w, "oversubscription");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "leaf");
    jsonw_double(&w, r->oversub_leaf);
    jsonw_key(&w, "spine");
    jsonw_double(&w, r->oversub_spine);
    jsonw_obj_end(&w);
    jsonw_obj_end(&w);
    jsonw_key(&w, "checks");
    jsonw_arr_begin(&w);
    for (uint32_t i = 0; i < r->n_items; i++) {
        jsonw_obj_begin(&w);
        jsonw_key(&w, "name");
        jsonw_str(&w, r->items[i].name);
        jsonw_key(&w, "status");
        jsonw_str(&w, check_status_name(r->items[i].status));
        jsonw_key(&w, "detail");
        jsonw_str(&w, r->items[i].detail);
        jsonw_obj_end(&w);
    }
    jsonw_arr_end(&w);
    if (cdb_dir) {
        jsonw_key(&w, "config_db");
        jsonw_obj_begin(&w);
        jsonw_key(&w, "dir");
        jsonw_str(&w, cdb_dir);
        jsonw_key(&w, "files");
        jsonw_u64(&w, cr->files);
        json_findings(&w, cr);
        jsonw_obj_end(&w);
    }
    json_findings(&w, dr);
    jsonw_key(&w, "passed");
    jsonw_bool(&w, r->passed);
    jsonw_obj_end(&w);
    jsonw_end(&w);
}

/* "1.00:1", or "no uplinks" for a tier whose switches have none (0 in the report). */
static const char *ratio_text(char *buf, size_t len, double r)
{
    if (r <= 0.0)
        snprintf(buf, len, "no uplinks");
    else
        snprintf(buf, len, "%.2f:1", r);
    return buf;
}

static void text_findings(FILE *f, const cdb_report *cr)
{
    for (uint32_t i = 0; i < cr->n; i++) {
        const cdb_finding *x = &cr->f[i];
        fprintf(f, "  %s  %s = %s\n      want %s\n      fix: %s\n", x->device, x->field, x->have,
                x->want, x->fix);
    }
}

static void write_text(FILE *f, const scenario *sc, const check_report *r, const cdb_report *dr,
                       const char *cdb_dir, const cdb_report *cr)
{
    char a[32], b[32];
    fprintf(f, "wirerate %s  check  scenario \"%s\"\n", WR_VERSION, sc->name);
    fprintf(f, "  hosts      %u servers, %u GPUs, %u NICs, %u host ports\n", r->servers, r->gpus,
            r->nics, r->host_ports);
    fprintf(f, "  switches   leaf %u, spine %u, super-spine %u", r->leaf, r->spine, r->super_spine);
    if (r->scale_up)
        fprintf(f, ", scale-up %u", r->scale_up);
    fprintf(f, "\n  links      host %u, leaf-spine %u, spine-super %u", r->links_host,
            r->links_leaf_spine, r->links_spine_super);
    if (r->links_scale_up)
        fprintf(f, ", scale-up %u", r->links_scale_up);
    fprintf(f, "\n  oversubscription  leaf %s, spine %s (worst switch of the tier)\n",
            ratio_text(a, sizeof a, r->oversub_leaf), ratio_text(b, sizeof b, r->oversub_spine));

    int wname = 4, failed = 0, warned = 0;
    for (uint32_t i = 0; i < r->n_items; i++) {
        int l = (int)strlen(r->items[i].name);
        wname = l > wname ? l : wname;
        failed += r->items[i].status == CHECK_FAIL;
        warned += r->items[i].status == CHECK_WARN;
    }
    fputs("\nchecks\n", f);
    for (uint32_t i = 0; i < r->n_items; i++)
        fprintf(f, "  %-4s  %-*s  %s\n", check_status_name(r->items[i].status), wname,
                r->items[i].name, r->items[i].detail);
    if (dr->n) {
        fputs("\nfindings (per device)\n", f);
        text_findings(f, dr);
    }
    if (cdb_dir && cr->n) {
        fprintf(f, "\nconfig_db findings (%s)\n", cdb_dir);
        text_findings(f, cr);
    }
    if (failed)
        fprintf(f, "\n%d of %u checks failed\n", failed, r->n_items);
    else
        fprintf(f, "\nall %u checks passed%s\n", r->n_items, warned ? " (with warnings)" : "");
}

int cmd_check(int argc, char **argv)
{
    const char *path = NULL, *cdb_dir = NULL;
    bool json = false;
    cli_overrides ov;
    cli_overrides_init(&ov, argc);
    int rc = ERR_OK;
    for (int i = 1; i < argc && rc == ERR_OK; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (a[0] != '-' || a[1] == '\0') {
            if (path)
                rc = cli_usage_error("check", "more than one scenario given ('%s')", a);
            path = a;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cmd_check_help();
            cli_overrides_free(&ov);
            return ERR_OK;
        } else if (strcmp(a, "--json") == 0) {
            json = true;
        } else if ((v = cli_opt_value(argc, argv, &i, "--config-db", &missing))) {
            cdb_dir = v;
        } else if (!missing && (v = cli_opt_value(argc, argv, &i, "--set", &missing))) {
            if (!cli_is_override(v))
                rc = cli_usage_error("check", "--set expects KEY=VALUE, got '%s'", v);
            else
                cli_overrides_add(&ov, v, false);
        } else if (missing) {
            rc = cli_usage_error("check", "option '%s' needs a value", a);
        } else {
            rc = cli_usage_error("check", "unknown option '%s'", a);
        }
    }
    if (rc == ERR_OK && !path)
        rc = cli_usage_error("check", "missing SCENARIO.yaml");
    if (rc) {
        cli_overrides_free(&ov);
        return rc;
    }

    err e;
    err_clear(&e);
    scenario sc;
    if ((rc = cli_load_scenario(&sc, path, &ov)))
        return rc;
    if (cdb_dir && sc.fabric.link_layer == LINK_INFINIBAND) {
        rc = cli_usage_error("check",
                             "--config-db verifies SONiC config_db.json files, and an InfiniBand "
                             "fabric (fabric.link_layer infiniband) has no SONiC switches: its "
                             "subnet manager settings are `wirerate plan`'s subnet/opensm.conf");
        scenario_free(&sc);
        cli_overrides_free(&ov);
        return rc;
    }
    sim s;
    sim_init(&s, sc.seed);
    net *n = net_build_topology(&sc, &s, &e);
    if (!n) {
        rc = e.code ? e.code : ERR_INVALID;
        diag_print(stderr, &e, ov.text, ov.n);
    } else {
        check_report r;
        check_fabric(n, &r);
        cdb_report cr = {0}, dr = {0};
        plan p;
        rc = plan_build(&p, n, &e);
        if (!rc) {
            /* the device checks are Ethernet QoS (PFC classes, DSCP, ECN): not on InfiniBand */
            if (sc.fabric.link_layer != LINK_INFINIBAND)
                check_devices(&p, &r, &dr);
            if (cdb_dir) {
                rc = cdb_verify(&p, cdb_dir, &cr, &e);
                if (!rc)
                    check_add_config_db(&r, cdb_dir, cr.files, cr.n);
            }
            plan_free(&p);
        }
        if (rc) {
            diag_print(stderr, &e, ov.text, ov.n);
        } else {
            if (json)
                write_json(stdout, &r, &dr, cdb_dir, &cr);
            else
                write_text(stdout, &sc, &r, &dr, cdb_dir, &cr);
            rc = r.passed ? ERR_OK : CHECK_EXIT_FAILED;
        }
        cdb_report_free(&cr);
        cdb_report_free(&dr);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            diag_msg(stderr, "<stdout>: error: write failed");
            rc = ERR_IO;
        }
        net_free(n);
    }
    sim_free(&s);
    scenario_free(&sc);
    cli_overrides_free(&ov);
    return rc;
}
