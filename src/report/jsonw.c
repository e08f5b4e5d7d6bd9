/*
 * jsonw.c — streaming JSON writer. See jsonw.h for the formatting rules; they are part of the
 * determinism contract (same run ⇒ same bytes), so any change here changes every golden file.
 */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>

#include "../core/err.h"

void jsonw_init(jsonw *w, FILE *f, bool pretty)
{
    w->f = f;
    w->pretty = pretty;
    w->depth = 0;
    w->want_value = false;
}

static void newline_indent(jsonw *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

/* Called before every value and every key: separators and indentation. */
static void before_item(jsonw *w, bool is_key)
{
    if (w->want_value) {
        SIM_ASSERT(!is_key, "jsonw: key written where a value was expected");
        w->want_value = false;
        return;
    }
    if (w->depth == 0)
        return;
    int d = w->depth - 1;
    SIM_ASSERT(w->is_obj[d] == is_key, "jsonw: %s inside an %s", is_key ? "key" : "bare value",
               w->is_obj[d] ? "object" : "array");
    if (w->has_items[d])
        fputc(',', w->f);
    w->has_items[d] = true;
    newline_indent(w);
}

static void open_container(jsonw *w, bool obj)
{
    before_item(w, false);
    SIM_ASSERT(w->depth < JSONW_MAX_DEPTH, "jsonw: nesting deeper than %d", JSONW_MAX_DEPTH);
    fputc(obj ? '{' : '[', w->f);
    w->is_obj[w->depth] = obj;
    w->has_items[w->depth] = false;
    w->depth++;
}

static void close_container(jsonw *w, bool obj)
{
    SIM_ASSERT(w->depth > 0 && w->is_obj[w->depth - 1] == obj && !w->want_value,
               "jsonw: unbalanced %s end", obj ? "object" : "array");
    bool had = w->has_items[w->depth - 1];
    w->depth--;
    if (had)
        newline_indent(w);
    fputc(obj ? '}' : ']', w->f);
}

void jsonw_obj_begin(jsonw *w)
{
    open_container(w, true);
}
void jsonw_obj_end(jsonw *w)
{
    close_container(w, true);
}
void jsonw_arr_begin(jsonw *w)
{
    open_container(w, false);
}
void jsonw_arr_end(jsonw *w)
{
    close_container(w, false);
}

void jsonw_escape(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\b':
            fputs("\\b", f);
            break;
        case '\f':
            fputs("\\f", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void jsonw_key(jsonw *w, const char *key)
{
    before_item(w, true);
    jsonw_escape(w->f, key);
    fputs(w->pretty ? ": " : ":", w->f);
    w->want_value = true;
}

void jsonw_str(jsonw *w, const char *s)
{
    if (!s) {
        jsonw_null(w);
        return;
    }
    before_item(w, false);
    jsonw_escape(w->f, s);
}

void jsonw_u64(jsonw *w, uint64_t v)
{
    before_item(w, false);
    fprintf(w->f, "%" PRIu64, v);
}

void jsonw_i64(jsonw *w, int64_t v)
{
    before_item(w, false);
    fprintf(w->f, "%" PRId64, v);
}

void jsonw_double(jsonw *w, double v)
{
    if (!isfinite(v)) {
        jsonw_null(w);
        return;
    }
    before_item(w, false);
    if (v == 0.0)
        v = 0.0; /* folds -0 into 0 */
    /* %.6g never yields a form JSON rejects for finite values ("1e+06", "0.5", "-3" are all
     * valid numbers), so no post-processing is needed. */
    fprintf(w->f, "%.6g", v);
}

void jsonw_bool(jsonw *w, bool v)
{
    before_item(w, false);
    fputs(v ? "true" : "false", w->f);
}

void jsonw_null(jsonw *w)
{
    before_item(w, false);
    fputs("null", w->f);
}

void jsonw_end(jsonw *w)
{
    SIM_ASSERT(w->depth == 0 && !w->want_value, "jsonw: document ended with %d open containers",
               w->depth);
    if (w->pretty)
        fputc('\n', w->f);
}
