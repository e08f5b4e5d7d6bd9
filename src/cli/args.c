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
