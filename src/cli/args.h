/*
 * args.h — command-line pieces shared by the commands: `--opt VALUE` / `--opt=VALUE` values,
 * the `--set KEY=VALUE` override list, and a usage-error printer.
 *
 * Overrides keep, next to the split key/value that config_load takes, the text as the user wrote
 * it ("KEY=VALUE"): an error in an override is reported as `--set:INDEX:COL` with that text and a
 * caret (diag.h), INDEX counting overrides in command-line order.
 */
#ifndef WR_CLI_ARGS_H
#define WR_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"

typedef struct cli_overrides {
    int n;
    cfg_override *over; /* key/value: key is an owned copy, value points into it */
    const char **text;  /* "KEY=VALUE", borrowed from argv or owned (see owned) */
    bool *owned;        /* text[i] was built by us (--seed) and is freed with the list */
} cli_overrides;

/* Room for `max` overrides (argc is always enough). */
void cli_overrides_init(cli_overrides *o, int max);
/* Append "KEY=VALUE" (must contain '=' after a non-empty key). `take` = the list owns text. */
void cli_overrides_add(cli_overrides *o, const char *text, bool take);
void cli_overrides_free(cli_overrides *o);
/* Load the scenario at `path` with the overrides. On bad input print the error (file:line:col,
 * source line, caret), free the overrides and return the exit code; ERR_OK when loaded (the
 * overrides are the caller's to free then). */
int cli_load_scenario(scenario *sc, const char *path, cli_overrides *ov);

/* If argv[*i] is option `name` given as "NAME VALUE" or "NAME=VALUE", return the value (and
 * advance *i past a separate value). NULL if it is another option; NULL with *missing = true
 * if the value is absent. */
const char *cli_opt_value(int argc, char **argv, int *i, const char *name, bool *missing);

/* A `--set` argument is well formed: "KEY=VALUE" with a non-empty KEY. */
bool cli_is_override(const char *s);
/* Decimal digits only, fitting uint64. */
bool cli_is_uint(const char *s);

/* `--max-memory SIZE` (a size like "8GiB", > 0): 0 and *out set, or a usage error printed for
 * CMD and ERR_USAGE. */
int cli_parse_memory(const char *cmd, const char *v, uint64_t *out);
/*
 * Estimate the run's memory (plan/estimate.h) and compare it with `limit` (--max-memory; 0 = the
 * memory available to this process). `isolated`: each job is also built alone while the shared
 * run is still held (run --isolated), so the largest job counts twice. Over it: ERR_INVALID
 * with *e at the job that needs the most (else the file start), the estimate by part and the
 * limit in the message.
 */
int cli_check_memory(const scenario *sc, uint64_t limit, bool isolated, err *e);

/* "wirerate: CMD: MSG\nTry 'wirerate CMD --help'." on stderr; returns ERR_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
