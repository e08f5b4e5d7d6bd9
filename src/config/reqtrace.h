/*
 * reqtrace.h — an inference job's request trace (`requests: {trace: FILE.csv}`).
 *
 * One request per line: `arrival,prompt_tokens,output_tokens`. arrival is a time with a unit
 * ("1.5ms", "2s") or a plain number of seconds, measured from the job's start; rows must be in
 * arrival order (as a production log is). Blank lines and lines starting with '#' are skipped;
 * a first line whose first field starts with a letter is a header and is skipped. The format is
 * that of the public Azure LLM inference traces (Patel et al., "Splitwise", ISCA'24:
 * TIMESTAMP,ContextTokens,GeneratedTokens) with the timestamp made relative.
 */
#ifndef WR_CONFIG_REQTRACE_H
#define WR_CONFIG_REQTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../core/time.h"

#define REQTRACE_MAX_ROWS 10000000u

/* Parse `text` (len bytes) read from `file`. On success fills *n and the three arrays (in arena
 * a) and returns ERR_OK; else ERR_INVALID with *e at file:line:col of the bad field. */
int reqtrace_parse(const char *text, size_t len, const char *file, arena *a, uint32_t *n,
                   sim_time **arrival_ps, uint32_t **prompt, uint32_t **output, err *e);

#endif
