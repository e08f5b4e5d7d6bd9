/*
 * trace.c — Chrome trace-event writer (trace.h). Events are fixed-size records with their
 * strings interned in one growing string table (offsets, so the table may move when it grows);
 * processes and threads are small arrays searched linearly by name — there are few of them
 * (jobs, ranks), and lookups happen when a thread is created, not per event.
 */
#include "trace.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "../core/alloc.h"
#include "../report/jsonw.h"

typedef struct tr_ev {
    sim_time t, dur;
    double value;
    uint32_t pid, tid;
    uint32_t name, cat; /* string table offsets; UINT32_MAX = none */
    char ph;            /* X B E i C */
} tr_ev;

typedef struct tr_thread {
    uint32_t pid, tid, name;
} tr_thread;

struct trace_writer {
    char *str;
    size_t str_len, str_cap;
    tr_ev *ev;
    uint64_t n_ev, cap_ev, dropped;
    uint32_t *procs; /* name offsets; pid = index + 1 */
    uint32_t n_procs, cap_procs;
    tr_thread *threads;
    uint32_t n_threads, cap_threads;
};

static uint32_t intern(trace_writer *tw, const char *s)
{
    if (!s)
        return UINT32_MAX;
    size_t l = strlen(s) + 1;
    if (tw->str_len + l > tw->str_cap) {
        size_t nc = tw->str_cap ? tw->str_cap * 2 : 4096;
        while (nc < tw->str_len + l)
            nc *= 2;
        tw->str = xrealloc(tw->str, nc, "trace strings");
        tw->str_cap = nc;
    }
    memcpy(tw->str + tw->str_len, s, l);
    uint32_t off = (uint32_t)tw->str_len;
    tw->str_len += l;
    return off;
}

trace_writer *trace_new(void) { return xcalloc(1, sizeof(trace_writer), "trace writer"); }

void trace_free(trace_writer *tw)
{
    if (!tw)
        return;
    xfree(tw->str);
    xfree(tw->ev);
    xfree(tw->procs);
    xfree(tw->threads);
    xfree(tw);
}

uint32_t trace_process(trace_writer *tw, const char *name)
{
    for (uint32_t i = 0; i < tw->n_procs; i++)
        if (strcmp(tw->str + tw->procs[i], name) == 0)
            return i + 1;
    if (tw->n_procs == tw->cap_procs) {
        tw->cap_procs = tw->cap_procs ? tw->cap_procs * 2 : 16;
        tw->procs = xrealloc(tw->procs, tw->cap_procs * sizeof(uint32_t), "trace processes");
    }
    tw->procs[tw->n_procs] = intern(tw, name);
    return ++tw->n_procs;
}

uint32_t trace_thread(trace_writer *tw, uint32_t pid, const char *name)
{
    uint32_t next = 1;
    for (uint32_t i = 0; i < tw->n_threads; i++) {
        const tr_thread *t = &tw->threads[i];
        if (t->pid != pid)
            continue;
        if (strcmp(tw->str + t->name, name) == 0)
            return t->tid;
        if (t->tid >= next)
            next = t->tid + 1;
    }
    if (tw->n_threads == tw->cap_threads) {
        tw->cap_threads = tw->cap_threads ? tw->cap_threads * 2 : 64;
        tw->threads = xrealloc(tw->threads, tw->cap_threads * sizeof(tr_thread), "trace threads");
    }
    tr_thread *t = &tw->threads[tw->n_threads++];
    t->pid = pid;
    t->tid = next;
    t->name = intern(tw, name);
    return next;
}

static tr_ev *add(trace_writer *tw, char ph, uint32_t pid, uint32_t tid, sim_time t)
{
    if (tw->n_ev >= TRACE_MAX_EVENTS) {
        tw->dropped++;
        return NULL;
    }
    if (tw->n_ev == tw->cap_ev) {
        tw->cap_ev = tw->cap_ev ? tw->cap_ev * 2 : 1024;
        tw->ev = xrealloc(tw->ev, tw->cap_ev * sizeof(tr_ev), "trace events");
    }
    tr_ev *e = &tw->ev[tw->n_ev++];
    memset(e, 0, sizeof *e);
    e->ph = ph;
    e->pid = pid;
    e->tid = tid;
    e->t = t;
    e->name = e->cat = UINT32_MAX;
    return e;
}

void trace_complete(trace_writer *tw, uint32_t pid, uint32_t tid, const char *name,
                    const char *cat, sim_time start_ps, sim_time dur_ps)
{
    tr_ev *e = add(tw, 'X', pid, tid, start_ps);
    if (!e)
        return;
    e->dur = dur_ps;
    e->name = intern(tw, name);
    e->cat = intern(tw, cat);
}

void trace_begin(trace_writer *tw, uint32_t pid, uint32_t tid, const char *name,
                 const char *cat, sim_time t_ps)
{
    tr_ev *e = add(tw, 'B', pid, tid, t_ps);
    if (!e)
        return;
    e->name = intern(tw, name);
    e->cat = intern(tw, cat);
}

void trace_end(trace_writer *tw, uint32_t pid, uint32_t tid, sim_time t_ps)
{
    add(tw, 'E', pid, tid, t_ps);
}

void trace_instant(trace_writer *tw, uint32_t pid, uint32_t tid, const char *name,
                   sim_time t_ps)
{
    tr_ev *e = add(tw, 'i', pid, tid, t_ps);
    if (e)
        e->name = intern(tw, name);
}

void trace_counter(trace_writer *tw, uint32_t pid, const char *name, sim_time t_ps,
                   double value)
{
    tr_ev *e = add(tw, 'C', pid, 0, t_ps);
    if (!e)
        return;
    e->name = intern(tw, name);
    e->value = value;
}

uint64_t trace_events(const trace_writer *tw) { return tw->n_ev; }
uint64_t trace_dropped(const trace_writer *tw) { return tw->dropped; }

/* Microseconds with 6 decimals: exact picoseconds, no floating point on the way. */
static void put_us(FILE *f, sim_time ps)
{
    fprintf(f, "%" PRIu64 ".%06" PRIu64, ps / 1000000u, ps % 1000000u);
}

static void meta(FILE *f, bool *first, const char *what, uint32_t pid, uint32_t tid,
                 const char *name)
{
    fputs(*first ? "\n" : ",\n", f);
    *first = false;
    fprintf(f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
               ",\"args\":{\"name\":",
            what, pid, tid);
    jsonw_escape(f, name);
    fputs("}}", f);
}

int trace_write_json(FILE *f, const trace_writer *tw)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
    bool first = true;
    for (uint32_t i = 0; i < tw->n_procs; i++)
        meta(f, &first, "process_name", i + 1, 0, tw->str + tw->procs[i]);
    for (uint32_t i = 0; i < tw->n_threads; i++)
        meta(f, &first, "thread_name", tw->threads[i].pid, tw->threads[i].tid,
             tw->str + tw->threads[i].name);
    for (uint64_t i = 0; i < tw->n_ev; i++) {
        const tr_ev *e = &tw->ev[i];
        fputs(first ? "\n" : ",\n", f);
        first = false;
        fprintf(f, "{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", e->ph,
                e->pid, e->tid);
        put_us(f, e->t);
        if (e->ph == 'X') {
            fputs(",\"dur\":", f);
            put_us(f, e->dur);
        }
        if (e->name != UINT32_MAX) {
            fputs(",\"name\":", f);
            jsonw_escape(f, tw->str + e->name);
        }
        if (e->cat != UINT32_MAX) {
            fputs(",\"cat\":", f);
            jsonw_escape(f, tw->str + e->cat);
        }
        if (e->ph == 'i')
            fputs(",\"s\":\"t\"", f);
        if (e->ph == 'C')
            fprintf(f, ",\"args\":{\"value\":%.6g}", e->value);
        fputc('}', f);
    }
    fprintf(f, "\n],\"otherData\":{\"tool\":\"wirerate\",\"version\":\"%s\",\"dropped_events\":"
               "%" PRIu64 "}}\n",
            WR_VERSION, tw->dropped);
    return ferror(f) ? -1 : 0;
}
