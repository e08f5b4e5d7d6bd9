/*
 * csvread.c — RFC 4180 record scanner (csvread.h). One pass over the bytes with a two-state
 * machine per field (unquoted / quoted); field text is copied, unescaped, into one growing
 * buffer per record, so a record costs no allocation once the buffer has grown to the widest
 * record of the file.
 */
#include "csvread.h"

#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"

void csv_init(csv_reader *r, const char *data, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = data;
    r->end = data + len;
    r->line = 1;
}

static void put(csv_reader *r, size_t *n, char c)
{
    if (*n + 1 >= r->text_cap) {
        r->text_cap = r->text_cap ? r->text_cap * 2 : 256;
        r->text = xrealloc(r->text, r->text_cap, "csv field text");
    }
    r->text[(*n)++] = c;
}

static int fail(csv_reader *r, const char *why)
{
    snprintf(r->why, sizeof r->why, "%s", why);
    r->p = r->end; /* stop: every later call returns the end */
    return -1;
}

int csv_next(csv_reader *r)
{
    r->nf = 0;
    r->why[0] = '\0';
    if (r->p >= r->end)
        return 0;
    r->rec_line = r->line;
    size_t n = 0;
    for (;;) { /* one field per iteration */
        if (r->nf == CSV_MAX_FIELDS)
            return fail(r, "more than 256 fields in a record");
        r->off[r->nf++] = n;
        size_t start = n;
        if (r->p < r->end && *r->p == '"') {
            r->p++;
            for (;;) {
                if (r->p >= r->end)
                    return fail(r, "unterminated quoted field");
                char c = *r->p++;
                if (c == '\0')
                    return fail(r, "NUL byte (binary data, not CSV text)");
                if (c == '"') {
                    if (r->p < r->end && *r->p == '"') {
                        r->p++;
                        put(r, &n, '"');
                        continue;
                    }
                    break;
                }
                if (c == '\n')
                    r->line++;
                put(r, &n, c);
                if (n - start > CSV_MAX_FIELD)
                    return fail(r, "field longer than 1 MiB");
            }
            /* after the closing quote: a separator, a line break or the end */
            if (r->p < r->end && *r->p != ',' && *r->p != '\n' &&
                !(*r->p == '\r' && r->p + 1 < r->end && r->p[1] == '\n') &&
                !(*r->p == '\r' && r->p + 1 == r->end))
                return fail(r, "text after a closing quote (a quote inside a quoted field must "
                               "be doubled)");
        } else {
            while (r->p < r->end && *r->p != ',' && *r->p != '\n' &&
                   !(*r->p == '\r' && (r->p + 1 == r->end || r->p[1] == '\n'))) {
                if (*r->p == '\0')
                    return fail(r, "NUL byte (binary data, not CSV text)");
                put(r, &n, *r->p++);
                if (n - start > CSV_MAX_FIELD)
                    return fail(r, "field longer than 1 MiB");
            }
        }
        put(r, &n, '\0');
        if (r->p >= r->end)
            return r->nf;
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (*r->p == '\r')
            r->p++;
        if (r->p < r->end && *r->p == '\n')
            r->p++;
        r->line++;
        return r->nf;
    }
}

const char *csv_field(const csv_reader *r, int i)
{
    return i >= 0 && i < r->nf ? r->text + r->off[i] : "";
}

uint64_t csv_line(const csv_reader *r)
{
    return r->rec_line;
}

const char *csv_error(const csv_reader *r)
{
    return r->why;
}

void csv_free(csv_reader *r)
{
    xfree(r->text);
    r->text = NULL;
    r->text_cap = 0;
}
