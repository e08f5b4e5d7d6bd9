/*
 * delayq.c — timed items behind one event (see delayq.h).
 */
#include "delayq.h"

#include <stddef.h>

#include "alloc.h"
#include "err.h"

static inline bool item_lt(delayq_item a, delayq_item b)
{
    return a.t < b.t || (a.t == b.t && a.id < b.id);
}

/* A 4-ary heap: a node's children 4i+1..4i+4 are one cache line (delayq_init aligns heap[1]),
 * so a pop reads half as many levels as a binary heap's, each one line; at 131,072 GPUs the
 * training executor's heap is megabytes and every level below the top is a miss. The order is
 * the same: (time, id) is a total order. */
#define DQ_ARITY 4u

static delayq_item pop(delayq *d)
{
    delayq_item top = d->heap[0], last = d->heap[--d->n];
    uint32_t i = 0, n = d->n;
    for (;;) {
        uint32_t c = DQ_ARITY * i + 1;
        if (c >= n)
            break;
        uint32_t end = c + DQ_ARITY < n ? c + DQ_ARITY : n, best = c;
        for (uint32_t k = c + 1; k < end; k++)
            if (item_lt(d->heap[k], d->heap[best]))
                best = k;
        if (!item_lt(d->heap[best], last))
            break;
        d->heap[i] = d->heap[best];
        i = best;
    }
    if (n)
        d->heap[i] = last;
    return top;
}

static void fire(void *ctx, event *ev)
{
    delayq *d = (delayq *)((char *)ev - offsetof(delayq, ev));
    sim_time now = d->sim->now;
    (void)ctx;
    while (d->n && d->heap[0].t <= now)
        d->fn(d->ctx, pop(d).id);
    if (d->n && !event_queued(&d->ev))
        sim_at(d->sim, &d->ev, d->heap[0].t);
}

void delayq_init(delayq *d, sim *s, uint32_t cap, delayq_fn fn, void *ctx)
{
    d->sim = s;
    d->cap = cap ? cap : 1;
    d->n = 0;
    /* heap[1] on a line boundary: each node's four children share one line */
    delayq_item *base = xcalloc_lines((uint64_t)d->cap + DQ_ARITY, sizeof(delayq_item), &d->mem,
                                      "delay queue");
    d->heap = base + (64 / sizeof(delayq_item) - 1);
    d->fn = fn;
    d->ctx = ctx;
    event_init(&d->ev, fire);
}

void delayq_free(delayq *d)
{
    if (event_queued(&d->ev))
        evq_cancel(&d->sim->q, &d->ev);
    xfree(d->mem);
    d->mem = NULL;
    d->heap = NULL;
    d->n = 0;
}

void delayq_clear(delayq *d)
{
    if (event_queued(&d->ev))
        evq_cancel(&d->sim->q, &d->ev);
    d->n = 0;
}

void delayq_push(delayq *d, sim_time t, uint32_t id)
{
    SIM_ASSERT(d->n < d->cap, "delay queue full (%u items)", d->cap);
    uint32_t i = d->n++;
    delayq_item it = {t, id};
    while (i) {
        uint32_t p = (i - 1) / DQ_ARITY;
        if (!item_lt(it, d->heap[p]))
            break;
        d->heap[i] = d->heap[p];
        i = p;
    }
    d->heap[i] = it;
    /* a new head moves the event earlier (handlers running it re-arm it themselves) */
    if (i == 0)
        evq_reschedule(&d->sim->q, &d->ev, t);
}

bool delayq_check(const delayq *d)
{
    for (uint32_t i = 1; i < d->n; i++)
        if (item_lt(d->heap[i], d->heap[(i - 1) / DQ_ARITY]))
            return false;
    return d->n <= d->cap;
}
