/*
 * err.h — error values for bad user input, and SIM_ASSERT for broken invariants.
 *
 * Library code never prints or exits. A function that can fail on user input takes an `err *`
 * and fills it: a code (the CLI's exit code), the file:line:col the problem was found at (line 0
 * when there is no position) and a message that names the key, what was expected and what was
 * found. Broken invariants are bugs, not input errors: SIM_ASSERT prints the location, the
 * expression and a formatted explanation, then aborts.
 */
#ifndef WR_CORE_ERR_H
#define WR_CORE_ERR_H

#include <stdarg.h>

/* Codes double as the CLI's exit codes (spec/scenario.md). */
enum {
    ERR_OK = 0,
    ERR_RUN = 1,      /* the run failed: resource limit, internal error */
    ERR_USAGE = 2,    /* bad command line */
    ERR_INVALID = 3,  /* invalid scenario */
    ERR_IO = 4,       /* I/O error */
};

#define ERR_FILE_MAX 256
#define ERR_MSG_MAX 512

typedef struct err {
    int code;                 /* ERR_OK when no error has been set */
    char file[ERR_FILE_MAX];  /* scenario file name, "--set" for overrides, "" if none */
    int line, col;            /* 1-based; 0 when unknown */
    char msg[ERR_MSG_MAX];    /* "fabric.host_link: expected a rate like \"400Gbps\", got \"400\"" */
} err;

void err_clear(err *e);
/* Sets *e (if no error is set yet — the first error wins) and returns code. */
int err_set(err *e, int code, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
int err_setv(err *e, int code, const char *file, int line, int col, const char *fmt, va_list ap);

/* Aborts with file:line, the failed expression and a formatted message. Always on. */
void sim_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#define SIM_ASSERT(cond, ...)                                                              \
    do {                                                                                   \
        if (__builtin_expect(!(cond), 0))                                                  \
            sim_assert_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                       \
    } while (0)

#endif
