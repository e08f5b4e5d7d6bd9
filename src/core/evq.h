/*
 * evq.h — the event queue: intrusive events ordered by (time, insertion sequence).
 *
 * An event is embedded in the component that owns it (a port's transmit-done, a link's head
 * arrival, a timer); the queue never allocates per event. Order is total and reproducible: ties
 * in time are broken by the sequence number assigned when the event was (re)scheduled.
 *
 * Implementation: a radix heap over integer picoseconds with byte digits (Ahuja, Mehlhorn, Orlin
 * & Tarjan, "Faster algorithms for the shortest path problem", JACM 1990; the 2^8-ary variant
 * keeps the number of moves per event to the bytes in which event times differ) — event times
 * never precede the current one, which is what makes it apply. Entries at exactly the front time
 * sit in a FIFO in sequence order; the others in buckets named by the highest byte in which
 * they differ from the front time and their value of that byte. Entries are moved by sequential
 * scans, never by pointer chasing, which is what keeps 10^6 pending events fast. Cancel is lazy:
 * the event forgets its stamp and the entry, which still names it, is skipped when it comes up
 * (entries go stale; they are swept once they outnumber the live ones). So an event's memory must
 * stay valid while the queue lives, as it always had to be while queued. evq_check() verifies
 * the invariants; tests call it after every operation.
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

#define EVQ_NOT_QUEUED 0u
#define EVQ_DIGITS 8   /* bytes of a 64-bit time */
#define EVQ_RADIX 256

struct event {
    event_fn fn;
    uint64_t stamp; /* sequence number of its live entry, EVQ_NOT_QUEUED when not scheduled */
};

typedef struct evq_entry {
    sim_time time;
    uint64_t seq;
    event *ev;
} evq_entry;

/* An array of entries (the front FIFO and the early heap). */
typedef struct evq_bucket {
    evq_entry *e;
    uint32_t len, cap;
} evq_bucket;

/* A radix bucket: a list of fixed-size chunks from the queue's free list, so that memory moves
 * between buckets as time advances instead of every bucket growing its own array. */
#define EVQ_CHUNK 42 /* entries: a chunk is 1 KiB */
/* A run's event lines are asked for this many entries ahead of the one served (evq.c, and
 * evq_take_front for a caller that does not ask itself) */
#define EVQ_RUN_AHEAD 16u
/* A byte-2 bucket (a 65.5 ns window) of at most this many entries is sorted whole into the run
 * (evq.c settle; the run and its scratch, 24 bytes an entry each, 768 KiB at most): 8,192 kept
 * them within a 512 KiB L2, but the 8,192-host leaf-spine with 256 KB flows fills its windows
 * with about 10,000 entries, and redistributing them to byte-1 buckets (a fresh chunk per 42
 * entries, then a sort per 256 ps) cost 4-5 % more than one sort from L3 (issue #17, eighth
 * round). A denser window (10^6 events pending within a few microseconds) is redistributed:
 * no faster sorted whole at 131,072 on this machine. Here so that test_evq can tell which
 * path a window takes. */
#define EVQ_RUN2_MAX 32768u
typedef struct evq_chunk evq_chunk;
struct evq_chunk {
    evq_chunk *next;
    uint64_t pad; /* (its count is the bucket's `fill` when it is the tail, else EVQ_CHUNK) */
    evq_entry e[EVQ_CHUNK];
};
typedef struct evq_list {
    evq_chunk *head, *tail;
    sim_time min; /* smallest time appended since the bucket was last emptied */
    uint32_t n;   /* entries appended since then (settle sizes a run without walking the
                   * chunks: issue #17, eighth round; below 2^32: put asserts it) */
    uint32_t fill; /* entries in the tail chunk (0: none); every other chunk is full, and a
                    * chunk keeps no count of its own, so an append reads the bucket's line
                    * only, not the tail chunk's first line (issue #17, tenth round: a dense
                    * window's redistribution appends to 256 tails at once, whose first lines
                    * the L1 does not keep); 32 bytes, two buckets a line */
} evq_list;
/* Entries in chunk c of a bucket (or a list taken from one) whose tail holds `fill`. */
static inline uint32_t evq_chunk_fill(const evq_chunk *c, const evq_chunk *tail, uint32_t fill)
{
    return c == tail ? fill : EVQ_CHUNK;
}

struct evq {
    evq_bucket b0;      /* entries at time `last`, in seq order */
    evq_list *b;        /* [EVQ_DIGITS * EVQ_RADIX]: bucket (byte p, value d) at p * 256 + d */
    evq_chunk *free;    /* unused chunks */
    void **slabs;       /* chunk allocations, freed by evq_free */
    uint32_t n_slabs, cap_slabs;
    uint64_t chunks;    /* chunks allocated in all */
    evq_bucket early;   /* binary heap of entries before `last` (see evq.c); usually empty */
    evq_bucket run;     /* the byte-2 or byte-1 bucket being served, sorted by time (evq.c
                         * "run") */
    evq_bucket tmp;     /* scratch of the run's radix sort */
    uint32_t run_head;  /* entries of run before this index are consumed */
    uint64_t occ[EVQ_DIGITS][EVQ_RADIX / 64]; /* non-empty buckets */
    uint32_t pos_mask;  /* bit p set when some bucket of byte p is non-empty */
    uint32_t head0;     /* entries of b0 before this index are consumed */
    uint32_t n;         /* live (scheduled) events */
    uint64_t stale;     /* entries whose event was cancelled or rescheduled since */
    sim_time last;      /* the radix heap's reference: at most the front's time, in the run's
                         * window while a run is served (evq.c "run") */
    sim_time low_min;   /* at most the smallest time in a bucket of byte 0 or 1 (SIM_TIME_MAX:
                         * none): a run entry before it is the front (evq_front) */
    bool prefetched_ahead; /* the caller asks for each event's line a few pops ahead (sim_run
                            * with a prefetch hook); else the queue asks for the line of the
                            * run's entry EVQ_RUN_AHEAD places on as it serves one */
    uint64_t next_seq;
};

void evq_init(evq *q);
/* Frees the queue's memory; queued events are dropped without being touched. */
void evq_free(evq *q);
/* Event setup: must be called once before the event is scheduled. */
static inline void event_init(event *ev, event_fn fn) { ev->fn = fn; ev->stamp = EVQ_NOT_QUEUED; }
static inline bool event_queued(const event *ev) { return ev->stamp != EVQ_NOT_QUEUED; }

/* Schedule a not-queued event at `t` (never before the last popped time). Grows a bucket if
 * needed (not in steady state). */
void evq_push_slow(evq *q, event *ev, sim_time t);
static inline void evq_push(evq *q, event *ev, sim_time t)
{
    /* The common case inline (issue #17, seventh round): a time in a later 65.5 ns window
     * than `last` (a bucket of byte 2 or up, which never moves low_min) whose chunk has room;
     * everything else, and the checks' failures, in evq_push_slow. */
    sim_time x = t ^ q->last;
    if (__builtin_expect(t > q->last && x >= (sim_time)EVQ_RADIX * EVQ_RADIX &&
                             ev->stamp == EVQ_NOT_QUEUED && q->n < UINT32_MAX, 1)) {
        unsigned p = (63u - (unsigned)__builtin_clzll(x)) >> 3;
        evq_list *b = &q->b[p * EVQ_RADIX + (unsigned)((t >> (8 * p)) & 0xff)];
        uint32_t slot = b->fill;
        if (__builtin_expect(slot - 1 < EVQ_CHUNK - 1, 1)) { /* a tail with room */
            uint64_t seq = q->next_seq++;
            ev->stamp = seq;
            q->n++;
            b->tail->e[slot] = (evq_entry){t, seq, ev};
            b->fill = slot + 1;
            b->n++;
            if (t < b->min)
                b->min = t;
            return;
        }
    }
    evq_push_slow(q, ev, t);
}
/* Remove a queued event; no-op if not queued. */
void evq_cancel(evq *q, event *ev);
/* Move a queued event to `t` (new sequence number), or push it if not queued. */
void evq_reschedule(evq *q, event *ev, sim_time t);
/* Pop the earliest event; returns NULL if empty. *t receives its time. */
event *evq_pop(evq *q, sim_time *t);
/* Brings the earliest live entry to the front of bucket 0; false when nothing is queued. Changes
 * the layout, never the contents (what pops next and in which order). */
bool evq_settle(evq *q);
/* The entry evq_pop would return next, or NULL if empty. */
static inline const evq_entry *evq_front(evq *q)
{
    const evq_bucket *b0 = &q->b0;
    if (__builtin_expect(q->early.len == 0, 1)) {
        if (q->head0 < b0->len) {
            const evq_entry *e = &b0->e[q->head0];
            if (e->ev->stamp == e->seq)
                return e;
        } else if (q->run_head < q->run.len) {
            /* Served from the run in place (issue #17, seventh round): b0 is spent, and the
             * run's next entry is before every bucket of byte 0 or 1 (those of byte 2 and up
             * follow the run's window), so it is the front when live. Equal times in the run
             * are in seq order (a bucket keeps equal times in seq order, and the run's sorts
             * are stable; evq_check verifies it). `last` stays where it was: in the run's
             * window and before every entry, which is all pushes need. */
            const evq_entry *e = &q->run.e[q->run_head];
            if (e->time < q->low_min && e->ev->stamp == e->seq)
                return e;
        }
    }
    if (!evq_settle(q))
        return NULL;
    return q->early.len ? &q->early.e[0] : &q->b0.e[q->head0];
}
void evq_take_early(evq *q);
/* Pop the entry evq_front just returned (the caller has read what it needs of it). */
static inline event *evq_take_front(evq *q, const evq_entry *e)
{
    event *ev = e->ev;
    if (__builtin_expect(q->early.len != 0, 0))
        evq_take_early(q); /* evq_front returned the early heap's root */
    else if (q->head0 < q->b0.len)
        q->head0++;
    else {
        q->run_head++; /* evq_front served the run in place */
        /* a caller that does not ask for events' lines ahead (prefetched_ahead) gets the
         * line of the entry EVQ_RUN_AHEAD on: one at a time, as the run is served, where
         * asking for a whole run's lines when it is made filled the miss buffers */
        if (!q->prefetched_ahead && q->run_head + EVQ_RUN_AHEAD < q->run.len)
            __builtin_prefetch(q->run.e[q->run_head + EVQ_RUN_AHEAD].ev);
    }
    ev->stamp = EVQ_NOT_QUEUED;
    q->n--;
    return ev;
}
/* The entry `k` places behind the front (k = 0: the front) among those the queue has put in
 * order already (the rest of the front FIFO, then the run), or NULL when it is not known yet
 * (in a bucket, or the early heap is in use). It may be stale, and an event pushed later may
 * still come before it: a guess at what fires soon, for prefetching what its handler will
 * read (sim.h "prefetch"), never for deciding anything. */
static inline const evq_entry *evq_ahead(const evq *q, uint32_t k)
{
    uint32_t r = q->b0.len - q->head0;
    if (k < r)
        return &q->b0.e[q->head0 + k];
    k -= r;
    r = q->run.len - q->run_head;
    if (k < r)
        return &q->run.e[q->run_head + k];
    k -= r;
    /* Beyond the run: the next 256 ps windows (byte-1 buckets), in time order, their entries
     * in no particular order within each (at 1,024 hosts a window holds one or two events, so
     * the run alone rarely reaches a few events ahead). Only a bucket's first chunk counts. */
    for (unsigned w = 0; w < EVQ_RADIX / 64; w++)
        for (uint64_t bits = q->occ[1][w]; bits; bits &= bits - 1) {
            const evq_list *b = &q->b[EVQ_RADIX + w * 64 + (unsigned)__builtin_ctzll(bits)];
            uint32_t len = evq_chunk_fill(b->head, b->tail, b->fill);
            if (k < len)
                return &b->head->e[k];
            k -= len;
        }
    return NULL;
}
/* The entries evq_ahead(q, 0), (q, 1), ... return while they lie in one array (the rest of the
 * front FIFO, or else the rest of the run): *base is the first, the count is returned (0: none).
 * For a caller that asks for several places ahead at once (sim_run: one bounds check for its
 * four instead of four walks of evq_ahead). */
static inline uint32_t evq_ahead_span(const evq *q, const evq_entry **base)
{
    uint32_t r = q->b0.len - q->head0;
    if (r) {
        *base = &q->b0.e[q->head0];
        return r;
    }
    r = q->run.len - q->run_head;
    *base = r ? &q->run.e[q->run_head] : NULL; /* (no run yet: run.e is NULL) */
    return r;
}
/* Earliest time, or SIM_TIME_MAX if empty. */
static inline sim_time evq_peek_time(evq *q)
{
    const evq_entry *e = evq_front(q);
    return e ? e->time : SIM_TIME_MAX;
}
static inline uint32_t evq_size(const evq *q) { return q->n; }
/* Verify the bucket invariants and the live/stale counts; returns true if consistent. */
bool evq_check(const evq *q);

#endif
