/*
 * jsonw.h — a small streaming JSON writer (RFC 8259) for summary.json and --json output.
 *
 * The writer keeps only a nesting stack; values go straight to a FILE*. Output is deterministic
 * byte for byte, which the determinism and golden tests rely on:
 *   - integers are exact (uint64 via PRIu64, int64 via PRId64);
 *   - doubles use "%.6g" (shortest of %e/%f at 6 significant digits; the C locale is never
 *     changed, so the decimal point is '.'); -0 is written as 0, and NaN/±Inf — which JSON cannot
 *     represent — as null;
 *   - strings are escaped per RFC 8259: '"', '\\' and control characters (\b \f \n \r \t, others
 *     as \u00XX); bytes >= 0x80 pass through (the input is UTF-8).
 * With pretty = true, each member/element goes on its own line indented by two spaces per level;
 * empty containers print as {} and [].
 *
 * Misuse (a value where a key is expected, unbalanced ends, nesting deeper than JSONW_MAX_DEPTH)
 * is a programming error: SIM_ASSERT. I/O errors are sticky in the FILE*; check ferror() after.
 */
#ifndef WR_REPORT_JSONW_H
#define WR_REPORT_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32

typedef struct jsonw {
    FILE *f; /* borrowed */
    bool pretty;
    int depth;                    /* open containers */
    bool is_obj[JSONW_MAX_DEPTH]; /* container kind per level */
    bool has_items[JSONW_MAX_DEPTH];
    bool want_value; /* a key was written; its value comes next */
} jsonw;

void jsonw_init(jsonw *w, FILE *f, bool pretty);
void jsonw_obj_begin(jsonw *w);
void jsonw_obj_end(jsonw *w);
void jsonw_arr_begin(jsonw *w);
void jsonw_arr_end(jsonw *w);
/* Member name inside an object; the next call writes its value. */
void jsonw_key(jsonw *w, const char *key);

void jsonw_str(jsonw *w, const char *s); /* NULL writes null */
void jsonw_u64(jsonw *w, uint64_t v);
void jsonw_i64(jsonw *w, int64_t v);
void jsonw_double(jsonw *w, double v);
void jsonw_bool(jsonw *w, bool v);
void jsonw_null(jsonw *w);

/* Finish the document (a trailing newline when pretty). All containers must be closed. */
void jsonw_end(jsonw *w);

/* Write `s` as a JSON string literal (with quotes) to f; shared with tests and CSV code. */
void jsonw_escape(FILE *f, const char *s);

#endif
