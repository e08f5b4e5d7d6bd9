/*
 * evq.h — the event queue: intrusive events ordered by (time, insertion sequence).
 *
 * An event is embedded in the component that owns it (a port's transmit-done, a link's head
 * arrival, a timer); the queue never allocates per event. Order is total and reproducible: ties
 * in time are broken by the sequence number assigned when the event was (re)scheduled.
 *
 * Implementation: an array 4-ary min-heap whose entries carry the keys inline (time, seq) next to
 * the event pointer, so sift operations compare without chasing pointers; each event remembers
 * its heap slot for O(log n) cancel and reschedule. evq_check() verifies the heap property and
 * the slot back-pointers — tests call it after every operation.
 */
#ifndef WR_CORE_EVQ_H
#define WR_CORE_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "time.h"

typedef struct event event;
typedef struct evq evq;
/* Handler: called when the event fires; `ctx` is the queue's context (the simulation). */
typedef void (*event_fn)(void *ctx, event *ev);

#define EVQ_NOT_QUEUED UINT32_MAX

struct event {
    event_fn fn;
    uint32_t slot;  /* heap index, EVQ_NOT_QUEUED when not scheduled */
};

typedef struct evq_entry {
    sim_time time;
    uint64_t seq;
    event *ev;
} evq_entry;

struct evq {
    evq_entry *heap;
    uint32_t n, cap;
    uint64_t next_seq;
};

void evq_init(evq *q);
void evq_free(evq *q);
/* Event setup: must be called once before the event is scheduled. */
static inline void event_init(event *ev, event_fn fn) { ev->fn = fn; ev->slot = EVQ_NOT_QUEUED; }
static inline bool event_queued(const event *ev) { return ev->slot != EVQ_NOT_QUEUED; }

/* Schedule a not-queued event at `t`. Grows the heap if needed (not in steady state). */
void evq_push(evq *q, event *ev, sim_time t);
/* Remove a queued event; no-op if not queued. */
void evq_cancel(evq *q, event *ev);
/* Move a queued event to `t` (new sequence number), or push it if not queued. */
void evq_reschedule(evq *q, event *ev, sim_time t);
/* Pop the earliest event; returns NULL if empty. *t receives its time. */
event *evq_pop(evq *q, sim_time *t);
/* Earliest time, or SIM_TIME_MAX if empty. */
static inline sim_time evq_peek_time(const evq *q) { return q->n ? q->heap[0].time : SIM_TIME_MAX; }
static inline uint32_t evq_size(const evq *q) { return q->n; }
/* Verify heap order and slot back-pointers; returns true if consistent. */
bool evq_check(const evq *q);

#endif
