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

static delayq_item pop(delayq *d)
{
    delayq_item top = d->heap[0], last = d->heap[--d->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= d->n)
            break;
        if (c + 1 < d->n && item_lt(d->heap[c + 1], d->heap[c]))
            c++;
        if (!item_lt(d->heap[c], last))
            break;
        d->heap[i] = d->heap[c];
        i = c;
    }
    if (d->n)
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
    d->heap = xmalloc(sizeof(delayq_item) * d->cap, "delay queue");
    d->fn = fn;
    d->ctx = ctx;
    event_init(&d->ev, fire);
}

void delayq_free(delayq *d)
{
    if (event_queued(&d->ev))
        evq_cancel(&d->sim->q, &d->ev);
    xfree(d->heap);
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
        uint32_t p = (i - 1) / 2;
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
        if (item_lt(d->heap[i], d->heap[(i - 1) / 2]))
            return false;
    return d->n <= d->cap;
}
