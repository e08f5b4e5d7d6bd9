/*
 * evq.c — the event queue: an array 4-ary min-heap with the keys inline.
 *
 * Order is (time, seq), a total order: seq comes from q->next_seq++ on every push and every
 * reschedule, so events at equal times fire in scheduling order (FIFO) and a run is reproducible
 * bit for bit. Invariants (evq_check): for every i > 0, key(heap[parent(i)]) < key(heap[i]); for
 * every i < n, heap[i].ev->slot == i; an event not in the heap has slot EVQ_NOT_QUEUED.
 *
 * Choices, each measured with bench/bench_evq.c (hold model, exponential increments, -O3,
 * M hold ops/s at 10^3 / 10^4 / 10^5 / 10^6 pending):
 *  - 4-ary beats binary (half the depth; the four children of a node span two cache lines):
 *    binary 24.9 / 17.1 / 8.7 / 1.3, 4-ary 35 / 23 / 14 / 2.1 (both with the 128-bit compare).
 *  - Comparing (time, seq) as one 128-bit integer compiles to cmp/sbb and lets the min-of-four
 *    selection use cmov; the short-circuit form branches on random data and mispredicts:
 *    15 / 10.6 / 7.9 / 4.0.
 *  - pop uses Floyd's bottom-up deletion (move the hole to a leaf along min children, then sift
 *    the former last entry up): the last entry almost always belongs near the bottom, so this
 *    saves a compare per level. About even with the plain sift-down at small sizes.
 *  - Branch-free selection serialises the cache misses of a large heap (the branchy version
 *    speculates into the next level). Above 64 Ki entries pop therefore prefetches the
 *    grandchildren group (16 entries, 6 lines) while choosing among the children: 10^6 goes
 *    2.1 → 4.1 and 10^5 14 → 19; below that the heap lives in L2 and prefetching only costs.
 *  - Final: 35.7 / 23.4 / 19.0 / 4.1 (hold); through sim_run within a few percent of that.
 * A calendar queue or ladder queue would be O(1) amortised, but needs tuning to the increment
 * distribution and loses the simple total order; DESIGN.md keeps the heap until a measurement in
 * a real scenario says otherwise.
 *
 * Growth doubles the array with xrealloc (initial 1024 entries); it happens while a scenario
 * warms up, never in steady state, and the queue never allocates per event.
 */
#include "evq.h"

#include "alloc.h"
#include "err.h"

#define EVQ_INIT_CAP 1024u
#define EVQ_PREFETCH_MIN (1u << 16) /* entries; below this the heap is cache resident */

#define PARENT(i) (((i) - 1) >> 2)
#define CHILD(i) (((i) << 2) + 1)

static inline unsigned __int128 key(const evq_entry *e)
{
    return ((unsigned __int128)e->time << 64) | e->seq;
}

static inline int less(const evq_entry *a, const evq_entry *b) { return key(a) < key(b); }

/* Index of the smallest of h[c..min(c+4, n)); c < n. */
static inline uint32_t min_child(const evq_entry *h, uint32_t n, uint32_t c)
{
    if (__builtin_expect(c + 3 < n, 1)) {
        uint32_t m1 = less(&h[c + 1], &h[c]) ? c + 1 : c;
        uint32_t m2 = less(&h[c + 3], &h[c + 2]) ? c + 3 : c + 2;
        return less(&h[m2], &h[m1]) ? m2 : m1;
    }
    uint32_t m = c;
    for (uint32_t k = c + 1; k < n; k++)
        if (less(&h[k], &h[m]))
            m = k;
    return m;
}

void evq_init(evq *q)
{
    q->heap = xmalloc(EVQ_INIT_CAP * sizeof *q->heap, "event queue");
    q->n = 0;
    q->cap = EVQ_INIT_CAP;
    q->next_seq = 0;
}

void evq_free(evq *q)
{
    for (uint32_t i = 0; i < q->n; i++)
        q->heap[i].ev->slot = EVQ_NOT_QUEUED;
    xfree(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}

static void __attribute__((noinline, cold)) grow(evq *q)
{
    SIM_ASSERT(q->cap <= EVQ_NOT_QUEUED / 4, "event queue full (%u events)", q->n);
    q->cap = q->cap ? q->cap * 2 : EVQ_INIT_CAP;
    q->heap = xrealloc(q->heap, (size_t)q->cap * sizeof *q->heap, "event queue");
}

/* Put e at hole i, moving it towards the root while it is smaller than its parent. */
static inline void sift_up(evq_entry *h, uint32_t i, evq_entry e)
{
    while (i > 0) {
        uint32_t p = PARENT(i);
        if (!less(&e, &h[p]))
            break;
        h[i] = h[p];
        h[i].ev->slot = i;
        i = p;
    }
    h[i] = e;
    e.ev->slot = i;
}

/* Put e at hole i of a heap of n entries, moving it down while a child is smaller. */
static inline void sift_down(evq_entry *h, uint32_t n, uint32_t i, evq_entry e)
{
    for (uint32_t c; (c = CHILD(i)) < n;) {
        uint32_t m = min_child(h, n, c);
        if (!less(&h[m], &e))
            break;
        h[i] = h[m];
        h[i].ev->slot = i;
        i = m;
    }
    h[i] = e;
    e.ev->slot = i;
}

/* Put e at hole i: up if it is smaller than its parent, else down. */
static inline void place(evq *q, uint32_t i, evq_entry e)
{
    if (i > 0 && less(&e, &q->heap[PARENT(i)]))
        sift_up(q->heap, i, e);
    else
        sift_down(q->heap, q->n, i, e);
}

void evq_push(evq *q, event *ev, sim_time t)
{
    SIM_ASSERT(ev->slot == EVQ_NOT_QUEUED, "event %p pushed while queued (slot %u)", (void *)ev,
               ev->slot);
    if (__builtin_expect(q->n == q->cap, 0))
        grow(q);
    evq_entry e = {t, q->next_seq++, ev};
    sift_up(q->heap, q->n++, e);
}

event *evq_pop(evq *q, sim_time *t)
{
    if (q->n == 0)
        return NULL;
    evq_entry *h = q->heap;
    evq_entry top = h[0];
    uint32_t n = --q->n;
    if (n > 0) {
        /* Floyd: the hole walks down along min children to a leaf; the last entry fills it. */
        const int pf = n >= EVQ_PREFETCH_MIN;
        uint32_t i = 0;
        for (uint32_t c; (c = CHILD(i)) < n;) {
            if (pf && CHILD(c) < n) {
                const char *g = (const char *)&h[CHILD(c)];
                for (unsigned k = 0; k < 16 * sizeof *h; k += 64)
                    __builtin_prefetch(g + k);
            }
            uint32_t m = min_child(h, n, c);
            h[i] = h[m];
            h[i].ev->slot = i;
            i = m;
        }
        sift_up(h, i, h[n]);
    }
    top.ev->slot = EVQ_NOT_QUEUED;
    *t = top.time;
    return top.ev;
}

void evq_cancel(evq *q, event *ev)
{
    uint32_t i = ev->slot;
    if (i == EVQ_NOT_QUEUED)
        return;
    SIM_ASSERT(i < q->n && q->heap[i].ev == ev, "event %p has stale slot %u (n %u)", (void *)ev,
               i, q->n);
    ev->slot = EVQ_NOT_QUEUED;
    uint32_t n = --q->n;
    if (i != n)
        place(q, i, q->heap[n]);
}

void evq_reschedule(evq *q, event *ev, sim_time t)
{
    uint32_t i = ev->slot;
    if (i == EVQ_NOT_QUEUED) {
        evq_push(q, ev, t);
        return;
    }
    SIM_ASSERT(i < q->n && q->heap[i].ev == ev, "event %p has stale slot %u (n %u)", (void *)ev,
               i, q->n);
    evq_entry e = {t, q->next_seq++, ev};
    place(q, i, e);
}

bool evq_check(const evq *q)
{
    if (q->n > q->cap)
        return false;
    for (uint32_t i = 0; i < q->n; i++) {
        const evq_entry *e = &q->heap[i];
        if (!e->ev || e->ev->slot != i || e->seq >= q->next_seq)
            return false;
        if (i > 0 && !less(&q->heap[PARENT(i)], e))
            return false;
    }
    return true;
}
