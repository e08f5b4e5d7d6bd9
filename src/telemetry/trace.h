/*
 * trace.h — Chrome trace-event JSON (the "JSON Array/Object Format" of the Trace Event Format
 * document) that Perfetto (ui.perfetto.dev) and chrome://tracing open: trace.json.
 *
 * Model: a process per job (or per component: "fabric queues"), a thread per rank / GPU / host
 * inside it. Slices are complete events ("ph":"X", begin + duration) or begin/end pairs
 * ("B"/"E", which must nest per thread); counters ("C") draw a track per name inside a process.
 * Timestamps are simulated time: ts/dur are in microseconds with 6 decimals, i.e. exact
 * picoseconds, and displayTimeUnit is "ns".
 *
 * Who writes what:
 *   - the run (today): one slice per flow, start → end, on its source host's row in its job's
 *     process (overlapping flows of one host get extra rows "h3 #2", ...), and a counter track
 *     of queue depth for the hottest sampled ports;
 *   - job executors, at the end of the run: collectives a slice per iteration per rank
 *     (coll_exec_trace), training jobs a slice per task — forward/backward compute, TP/DP
 *     collectives on every member's row, pipeline sends — per rank (train_exec_trace); e.g.
 *         uint32_t pid = trace_process(tw, "llama");             // once per job
 *         uint32_t tid = trace_thread(tw, pid, "rank 17");      // once per rank
 *         trace_complete(tw, pid, tid, "all_reduce ring step 3", "comm", t0, t1 - t0);
 *         trace_begin(tw, pid, tid, "backward", "compute", t);  ... trace_end(tw, pid, tid, t2);
 *     Names are copied (any lifetime). Calls are cheap appends (amortized; the table doubles),
 *     so they may be made from event handlers; past TRACE_MAX_EVENTS events the writer counts
 *     and drops the rest (reported in the file's metadata "dropped_events").
 */
#ifndef WR_TELEMETRY_TRACE_H
#define WR_TELEMETRY_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "../core/time.h"

#define TRACE_MAX_EVENTS 1000000u

typedef struct trace_writer trace_writer;

trace_writer *trace_new(void);
void trace_free(trace_writer *tw);

/* A process (track group) named `name`: returns its pid (1, 2, ...; the same pid for the same
 * name). */
uint32_t trace_process(trace_writer *tw, const char *name);
/* A thread (row) of process pid named `name`: returns its tid (same tid for the same name in
 * the same process). */
uint32_t trace_thread(trace_writer *tw, uint32_t pid, const char *name);

/* A slice [start, start + dur) on (pid, tid). `cat` may be NULL. */
void trace_complete(trace_writer *tw, uint32_t pid, uint32_t tid, const char *name,
                    const char *cat, sim_time start_ps, sim_time dur_ps);
/* Begin/end slices; ends close the innermost open slice of the thread. */
void trace_begin(trace_writer *tw, uint32_t pid, uint32_t tid, const char *name,
                 const char *cat, sim_time t_ps);
void trace_end(trace_writer *tw, uint32_t pid, uint32_t tid, sim_time t_ps);
/* An instant marker on a thread (e.g. a fault, a PFC watchdog event). */
void trace_instant(trace_writer *tw, uint32_t pid, uint32_t tid, const char *name,
                   sim_time t_ps);
/* Counter sample: track `name` of process pid takes `value` from t on. */
void trace_counter(trace_writer *tw, uint32_t pid, const char *name, sim_time t_ps,
                   double value);

uint64_t trace_events(const trace_writer *tw);
uint64_t trace_dropped(const trace_writer *tw);

/* Write the JSON object {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}:
 * metadata (process/thread names) first, then the events in the order they were added.
 * Returns 0, or -1 on a stream error. */
int trace_write_json(FILE *f, const trace_writer *tw);

#endif
