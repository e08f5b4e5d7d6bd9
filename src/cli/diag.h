/*
 * diag.h — printing errors for people: `wirerate: FILE:LINE:COL: error: MSG`, then the offending
 * source line and a caret under the column, in the gcc/jq style:
 *
 *     wirerate: rail64.yaml:12:14: error: fabric.host_link: expected a rate like "400Gbps", got
 * "400" 12 |   host_link: 400 |              ^
 *
 * Errors in a `--set KEY=VALUE` override carry file "--set", line = 1-based index of the override
 * and col = column within its "KEY=VALUE" text; the override text is shown instead of a file
 * line. Errors without a position (line 0) print as `wirerate: FILE: error: MSG`.
 */
#ifndef WR_CLI_DIAG_H
#define WR_CLI_DIAG_H

#include <stdio.h>

#include "../core/err.h"

/* Print *e to f. `overrides` (n entries, "KEY=VALUE" texts in command-line order) are borrowed;
 * they are used only when e->file is "--set". */
void diag_print(FILE *f, const err *e, const char *const *overrides, int n);

/* `wirerate: MSG` on f, printf-style, for usage and I/O errors without an err value. */
void diag_msg(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
