/*
 * diag.c — error rendering with source excerpt and caret (see diag.h).
 *
 * Columns are 1-based and count characters, as libyaml's marks do: the caret line walks the
 * source line one UTF-8 sequence at a time and copies tabs, so the caret lands under the right
 * character whatever the tab width and even after non-ASCII text such as "µs".
 */
#include "diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#define LINE_MAX_SHOWN 4096

void diag_msg(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("wirerate: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
}

/* Read 1-based line `want` of `path` into buf (without the line break). */
static bool read_line(const char *path, int want, char *buf, size_t len)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return false;
    int line = 1;
    size_t n = 0;
    bool found = false;
    for (int c; (c = fgetc(in)) != EOF;) {
        if (line == want) {
            found = true;
            if (c == '\n')
                break;
            if (n + 1 < len)
                buf[n++] = (char)c;
        } else if (c == '\n') {
            line++;
        }
    }
    /* A position one past the last line (e.g. "unexpected end of file") shows an empty line. */
    if (!found && line == want)
        found = true;
    fclose(in);
    if (n > 0 && buf[n - 1] == '\r')
        n--;
    buf[n] = '\0';
    return found;
}

static void print_excerpt(FILE *f, const char *gutter, const char *text, int col)
{
    fprintf(f, "%5s | %s\n", gutter, text);
    fprintf(f, "%5s | ", "");
    const unsigned char *p = (const unsigned char *)text;
    for (int c = 1; c < col && *p; c++) {
        fputc(*p == '\t' ? '\t' : ' ', f);
        p++;
        while ((*p & 0xC0) == 0x80) /* skip UTF-8 continuation bytes */
            p++;
    }
    fputs("^\n", f);
}

void diag_print(FILE *f, const err *e, const char *const *overrides, int n)
{
    const char *file = e->file[0] ? e->file : "wirerate";
    if (e->line <= 0) {
        fprintf(f, "wirerate: %s: error: %s\n", file, e->msg);
        return;
    }
    fprintf(f, "wirerate: %s:%d:%d: error: %s\n", file, e->line, e->col, e->msg);
    if (strcmp(e->file, "--set") == 0) {
        if (e->line <= n)
            print_excerpt(f, "--set", overrides[e->line - 1], e->col);
        return;
    }
    static char buf[LINE_MAX_SHOWN];
    if (read_line(e->file, e->line, buf, sizeof buf)) {
        char gutter[16];
        snprintf(gutter, sizeof gutter, "%d", e->line);
        print_excerpt(f, gutter, buf, e->col);
    }
}
