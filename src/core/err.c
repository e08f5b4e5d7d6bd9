/*
 * err.c — error values for bad user input, and the SIM_ASSERT failure path.
 *
 * Invariants: an err with code ERR_OK has empty file and msg; once a code is set, later
 * err_set calls leave it alone (the first error is the one that explains the others, as in
 * jq's and Lua's loaders). Messages are always NUL-terminated, truncated to ERR_MSG_MAX - 1.
 * sim_assert_fail is the only place in the library that writes to stderr: a broken invariant is
 * a bug, and the location, expression and values are what a bug report needs (STYLE.md
 * "Errors").
 */
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void err_clear(err *e)
{
    e->code = ERR_OK;
    e->file[0] = '\0';
    e->line = e->col = 0;
    e->msg[0] = '\0';
}

int err_setv(err *e, int code, const char *file, int line, int col, const char *fmt, va_list ap)
{
    if (!e || e->code != ERR_OK)
        return code;
    e->code = code;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    e->col = col;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return code;
}

int err_set(err *e, int code, const char *file, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_setv(e, code, file, line, col, fmt, ap);
    va_end(ap);
    return code;
}

void sim_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s:%d: assertion failed: %s: ", file, line, expr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}
