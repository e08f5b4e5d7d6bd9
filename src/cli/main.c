/*
 * main.c — `wirerate COMMAND ...`: dispatch, --help, --version.
 *
 * `run`, `check`, `plan`, `perf`, `sweep`, `import` and `report`: every command of
 * spec/scenario.md is built.
 */
#include <stdio.h>
#include <string.h>

#include "../core/err.h"
#include "cli.h"
#include "diag.h"

static void usage(FILE *f)
{
    fputs("wirerate " WR_VERSION " - packet-level (and flow-level) simulator of AI training network"
          " fabrics\n"
          "\n"
          "usage: wirerate run SCENARIO.yaml [-o DIR] [--seed N] [--set KEY=VALUE]... [--json]"
          " [--quiet] [--fidelity packet|flow]\n"
          "       wirerate check SCENARIO.yaml [--json] [--set KEY=VALUE]...\n"
          "       wirerate plan SCENARIO.yaml [-o DIR] [--set KEY=VALUE]...\n"
          "       wirerate perf OP [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [--fabric S.yaml]"
          " [--ranks N]\n"
          "       wirerate sweep SWEEP.yaml [-j N] [-o results.db] [--retry-failed] [--quiet]\n"
          "       wirerate report DIR | results.db\n"
          "       wirerate import chakra TRACE.et...\n"
          "       wirerate import astra-sim --network NET.yml [--system SYS.json] -o S.yaml\n"
          "       wirerate --version | --help | COMMAND --help\n"
          "\n"
          "commands:\n"
          "  run      simulate a scenario; summary on stdout, results in the output folder\n"
          "  check    build the fabric and check its design (counts, oversubscription,\n"
          "           non-blocking, reachability); exit 5 if a check fails\n"
          "  plan     build sheet: bill of materials, racks and power, cabling, addressing,\n"
          "           SONiC config_db.json per switch, NIC settings, Kubernetes networks\n"
          "  perf     nccl-tests for a simulated fabric: the same table, simulated\n"
          "  sweep    a grid of runs (axes x seeds) in parallel processes (or MPI ranks),\n"
          "           results in one SQLite database; resumes where a killed sweep stopped\n"
          "  report   HTML report (DIR/report.html) of a run's output folder, or a page\n"
          "           comparing the runs of a results database\n"
          "  import   read and check Chakra execution traces (.et, one per rank); write a\n"
          "           scenario from ASTRA-sim's network YAML and system JSON\n"
          "\n"
          "exit codes: 0 ok, 1 run failed, 2 usage error, 3 invalid scenario, 4 I/O error,\n"
          "            5 a check failed (check)\n"
          "scenario format: docs/scenario.md\n",
          f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return ERR_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "run") == 0) {
            cmd_run_help();
            return ERR_OK;
        }
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "report") == 0) {
            cmd_report_help();
            return ERR_OK;
        }
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "plan") == 0) {
            cmd_plan_help();
            return ERR_OK;
        }
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "import") == 0) {
            cmd_import_help();
            return ERR_OK;
        }
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "sweep") == 0) {
            cmd_sweep_help();
            return ERR_OK;
        }
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "check") == 0) {
            cmd_check_help();
            return ERR_OK;
        }
        usage(stdout);
        return ERR_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        puts("wirerate " WR_VERSION);
        return ERR_OK;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "plan") == 0)
        return cmd_plan(argc - 1, argv + 1);
    if (strcmp(cmd, "perf") == 0)
        return cmd_perf(argc - 1, argv + 1);
    if (strcmp(cmd, "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0)
        return cmd_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (cmd[0] == '-')
        diag_msg(stderr, "unknown option '%s'", cmd);
    else
        diag_msg(stderr, "unknown command '%s'", cmd);
    fputs("Try 'wirerate --help'.\n", stderr);
    return ERR_USAGE;
}
