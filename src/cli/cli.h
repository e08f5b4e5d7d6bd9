/*
 * cli.h — the commands of the `wirerate` executable. Each takes the arguments after its name
 * (argv[0] is the command name) and returns the process exit code (spec/scenario.md CLI):
 * 0 ok, 1 run failed, 2 usage, 3 invalid scenario, 4 I/O error; `check` adds 5 (a check failed).
 */
#ifndef WR_CLI_CLI_H
#define WR_CLI_CLI_H

int cmd_run(int argc, char **argv);
void cmd_run_help(void);
int cmd_check(int argc, char **argv);
void cmd_check_help(void);
int cmd_perf(int argc, char **argv);
void cmd_perf_help(void);
int cmd_plan(int argc, char **argv);
void cmd_plan_help(void);
int cmd_report(int argc, char **argv);
void cmd_report_help(void);
int cmd_sweep(int argc, char **argv);
void cmd_sweep_help(void);
int cmd_import(int argc, char **argv);
void cmd_import_help(void);

#endif
