/*
 * args.c — shared command-line helpers (see args.h).
 */
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../core/err.h"
#include "../config/units.h"
#include "../plan/estimate.h"
#include "diag.h"
#include "../report/summary.h"

void cli_overrides_init(cli_overrides *o, int max)
{
    size_t n = max > 0 ? (size_t)max : 1;
    o->n = 0;
    o->over = xcalloc(n, sizeof *o->over, "overrides");
    o->text = xcalloc(n, sizeof *o->text, "override texts");
    o->owned = xcalloc(n, sizeof *o->owned, "override ownership");
}

void cli_overrides_add(cli_overrides *o, const char *text, bool take)
{
    char *key = xstrdup(text, "--set override");
    char *eq = strchr(key, '=');
    *eq = '\0';
    o->over[o->n].key = key;
    o->over[o->n].value = eq + 1;
    o->text[o->n] = text;
    o->owned[o->n] = take;
    o->n++;
}

void cli_overrides_free(cli_overrides *o)
{
    for (int i = 0; i < o->n; i++) {
        xfree((char *)o->over[i].key);
        if (o->owned[i])
            xfree((char *)o->text[i]);
    }
    xfree(o->over);
    xfree(o->text);
    xfree(o->owned);
    o->n = 0;
}

int cli_load_scenario(scenario *sc, const char *path, cli_overrides *ov)
{
    err e;
    err_clear(&e);
    int rc = config_load(sc, path, ov->over, ov->n, &e);
    if (!rc)
        return ERR_OK;
    if (!e.code)
        e.code = rc;
    diag_print(stderr, &e, ov->text, ov->n);
    cli_overrides_free(ov);
    return e.code;
}

const char *cli_opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

bool cli_is_override(const char *s)
{
    const char *eq = strchr(s, '=');
    return eq && eq != s;
}

bool cli_is_uint(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    errno = 0;
    (void)strtoull(s, NULL, 10);
    return errno == 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "wirerate: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'wirerate %s --help'.\n", cmd);
    va_end(ap);
    return ERR_USAGE;
}

int cli_parse_memory(const char *cmd, const char *v, uint64_t *out)
{
    char why[200];
    if (!units_size(v, out, why, sizeof why) || *out == 0)
        return cli_usage_error(cmd, "--max-memory expects a size like 8GiB or 512MB, got '%s'", v);
    return ERR_OK;
}

int cli_check_memory(const scenario *sc, uint64_t limit, bool isolated, err *e)
{
    mem_estimate m;
    int rc = mem_estimate_run(sc, &m, e);
    if (rc)
        return rc;
    if (isolated && sc->n_jobs > 1)
        m.total =
            m.total + m.biggest_job_bytes < m.total ? UINT64_MAX : m.total + m.biggest_job_bytes;
    const char *src = "--max-memory";
    if (!limit)
        limit = mem_available_bytes(&src);
    if (!limit || m.total <= limit)
        return ERR_OK;
    char parts[400] = "", a[32], b[32];
    size_t o = 0;
    for (int i = 0; i < MEM_PARTS; i++) {
        /* the parts that matter: at least 1% of the total */
        if (m.part[i] < m.total / 100 || o >= sizeof parts)
            continue;
        o += (size_t)snprintf(parts + o, sizeof parts - o, "%s%s %s", o ? ", " : "",
                              mem_part_name((enum mem_part)i),
                              summary_fmt_bytes(a, sizeof a, m.part[i]));
    }
    if (isolated && sc->n_jobs > 1 && o < sizeof parts)
        snprintf(parts + o, sizeof parts - o, "; with --isolated the largest job twice");
    summary_fmt_bytes(a, sizeof a, m.total);
    summary_fmt_bytes(b, sizeof b, limit);
    if (m.biggest_job >= 0 && m.biggest_job_bytes >= m.total / 2) {
        char key[32], shown[32];
        snprintf(key, sizeof key, "workload.%d", m.biggest_job);
        snprintf(shown, sizeof shown, "workload[%d]", m.biggest_job);
        static const char *const hint[] = {
            [JOB_COLLECTIVE] = "fewer ranks or channels, a smaller size or a larger chunk",
            [JOB_TRAINING] = "fewer ranks, micro-batches or iterations",
            [JOB_TRAFFIC] = "fewer hosts or another pattern",
            [JOB_CHAKRA] = "a trace of fewer ranks or fewer iterations",
            [JOB_INFERENCE] = "fewer requests or GPUs",
        };
        return config_error_at(sc, e, key,
                               "%s: this run needs about %s of memory (%s), more than the %s "
                               "allowed by %s; make this job smaller: %s",
                               shown, a, parts, b, src, hint[sc->jobs[m.biggest_job].kind]);
    }
    return err_set(e, ERR_INVALID, sc->file, 1, 1,
                   "this run needs about %s of memory (%s), more than the %s allowed by %s", a,
                   parts, b, src);
}
