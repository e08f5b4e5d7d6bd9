/*
 * evq.c — the event queue: a radix heap over (time, seq) with lazy cancellation.
 *
 * Order is (time, seq), a total order: seq comes from q->next_seq++ on every push and every
 * reschedule, so events at equal times fire in scheduling order (FIFO) and a run is reproducible
 * bit for bit — the same order the 4-ary heap this replaces produced, so results did not change.
 *
 * Radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, JACM 1990), with byte digits. `last` is the time
 * of the front: every queued time is >= last except in `early` (below). b0 holds the entries
 * whose time equals `last`, consumed from head0 in seq order; bucket (p, d) holds those whose
 * highest byte differing from `last` is byte p, where their value is d (> last's byte p), in no
 * particular order. Every entry of bucket (p, d) is smaller than every entry of a bucket at a
 * higher byte, or at byte p with a higher value; so when b0 runs dry the front lies in the
 * lowest non-empty bucket (bit masks find it): its minimum (kept per bucket as entries are
 * appended) becomes `last` and its entries are redistributed, each to b0 (equal to the new
 * `last`) or to a bucket at a lower byte. Entries landing in b0 are sorted by seq (usually
 * already in order); new pushes at `last` carry larger seqs than any queued entry, so appending
 * keeps the order. An entry moves at most once per byte in which its time differs from the
 * front's (about three at microsecond horizons), each time by a sequential scan and append: no
 * pointer chasing and no sifting through cache lines that hold other events, which is where a
 * heap spends its time at 10^5+ pending events.
 *
 * The run: when the lowest bucket is of byte 2 (a 65.5 ns window) and holds 65 to 8,192
 * entries, or of byte 1 (256 ps) and holds two or more, it is sorted by time into one array and
 * served from there: in place (evq_front) while its next entry precedes every byte-0 and byte-1
 * bucket (the bound `low_min`), else through b0; entries pushed into its window meanwhile go to
 * byte-1 and byte-0 buckets relative to `last`, and the front is the earlier of the run's next
 * entry and the lowest bucket's minimum. When a byte-2 run's next time enters the 256 ps window
 * of a byte-1 bucket, that bucket is split relative to the new `last` first, so the buckets stay
 * a radix heap around it.
 *
 * `last` may run ahead of the simulation clock: evq_peek_time (or a run that stops at stop_at
 * before popping) settles the front, which moves `last` to the earliest queued time, and the
 * simulation may then schedule an event between its clock and that time. Such entries go to
 * `early`, a small binary heap on (time, seq); they all precede every bucket's entries, so the
 * front is the early heap's root while it has one. In a packet run it stays empty except around
 * a sampler tick or a resumed stop_at.
 *
 * Cancellation is lazy. An event's `stamp` is the seq of its one live entry (0 when it is not
 * queued); cancel and reschedule just change the stamp, and the old entry, now stale, is skipped
 * when it reaches the front. Stale entries are swept when they outnumber the live ones (plus a
 * slack), so memory stays bounded by the live count. Stale entries may take part in choosing a
 * bucket's minimum: that only makes `last` smaller than it could be, never wrong.
 *
 * Measured with bench/bench_evq.c (hold model, exponential increments of mean 1 us, M hold
 * ops/s at 10^3 / 10^4 / 10^5 / 10^6 pending, idle machine): the 4-ary heap with inline keys and
 * prefetching it replaces made 31.1 / 20.1 / 15.1 / 3.3; this queue 40.8 / 24.7 / 27.8 / 17.1
 * when it replaced it; on the development machine of issue #17's tenth round, with the bench's
 * events on huge pages as the simulator's are, 32.1 / 41.2 / 36.5 / 22.5 (17.4 at 10^7). At
 * 10^6 a hold runs about 180 instructions; the redistribution of dense windows writes into the
 * chunks it has just read (settle, below), and an append reads the bucket's line only (its
 * tail chunk's fill is there: evq.h).
 *
 * Radix buckets are lists of 1 KiB chunks from one free list, refilled by slabs that double the
 * total (O(log) allocations in a run, none once the queue has reached its working size); the
 * front FIFO and the early heap grow by doubling while a scenario warms up. The queue never
 * allocates per event (test_hotpath_alloc).
 */
#include "evq.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "err.h"

#define EVQ_INIT_CAP 64u
#define EVQ_STALE_SLACK 4096u /* sweep only when stale entries exceed live ones by this much */
#define EVQ_SLAB_MIN 64u       /* chunks in the first slab; each next slab doubles the total */

#define NB (EVQ_DIGITS * EVQ_RADIX)
/* A byte-1 bucket of more entries becomes the run (else: buckets). 1: any two entries; a byte-0
 * bucket per distinct time took a 1 KiB chunk each, and an insertion sort of a few entries is
 * cheaper (issue #17: 2.9 % fewer instructions on the 1,024-host fat tree, +12 % hold
 * operations/s at 10^4 pending; it was 8). */
#define EVQ_RUN_MIN 1u
#define EVQ_RUN_INSERTION 32u /* a run of at most this many entries: insertion sort */
/* A byte-2 bucket of more entries becomes the run, sorted whole (below fewer, the bucket is
 * redistributed to byte-1 buckets as before: two counting passes cost 2 x 256 counters). 16:
 * a chunk and a sort per 256 ps window cost more than the counters from about 16 entries on
 * (issue #17, ninth round: 3 % fewer instructions at 128-256 hosts, where a 65.5 ns window
 * holds a few dozen, 1.7 % on the 1,024-host ECMP fat tree; 23 -> 29 M hold operations/s at
 * 10^3 pending; 4, 8 and 32 in between). */
#define EVQ_RUN2_MIN 16u
/* ... and at most EVQ_RUN2_MAX (evq.h). */

/* Bucket index of t > last: p * 256 + d. */
static inline unsigned bucket_of(sim_time t, sim_time last)
{
    unsigned p = (63u - (unsigned)__builtin_clzll(t ^ last)) >> 3;
    return p * EVQ_RADIX + (unsigned)((t >> (8 * p)) & 0xff);
}

/* The same for an entry of a bucket of byte p being redistributed relative to m, its minimum:
 * the entries share bytes p and up with m, so from a byte-2 bucket (the densest case, a window
 * too large for the run) they differ from it in byte 1 or byte 0 only, without bucket_of's
 * search (3.7 % fewer instructions in bench_evq at 10^6 pending, issue #17 tenth round). */
static inline unsigned bucket_below(sim_time t, sim_time m, unsigned p)
{
    if (p == 2)
        return (t ^ m) >> 8 ? EVQ_RADIX + (unsigned)((t >> 8) & 0xff) : (unsigned)(t & 0xff);
    return bucket_of(t, m);
}

static inline bool live(const evq_entry *e) { return e->ev->stamp == e->seq; }

void evq_init(evq *q)
{
    memset(q, 0, sizeof *q);
    q->b = xcalloc(NB, sizeof *q->b, "event queue buckets");
    for (unsigned i = 0; i < NB; i++)
        q->b[i].min = SIM_TIME_MAX;
    q->next_seq = 1; /* 0 is EVQ_NOT_QUEUED */
    q->low_min = SIM_TIME_MAX;
}

static inline bool key_less(const evq_entry *a, const evq_entry *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void early_sift_down(evq_bucket *h, uint32_t i)
{
    evq_entry x = h->e[i];
    for (uint32_t c; (c = 2 * i + 1) < h->len; i = c) {
        if (c + 1 < h->len && key_less(&h->e[c + 1], &h->e[c]))
            c++;
        if (!key_less(&h->e[c], &x))
            break;
        h->e[i] = h->e[c];
    }
    h->e[i] = x;
}

static void early_push(evq_bucket *h, evq_entry x)
{
    uint32_t i = h->len++;
    for (; i > 0 && key_less(&x, &h->e[(i - 1) / 2]); i = (i - 1) / 2)
        h->e[i] = h->e[(i - 1) / 2];
    h->e[i] = x;
}

static void early_pop_root(evq_bucket *h)
{
    h->e[0] = h->e[--h->len];
    if (h->len > 1)
        early_sift_down(h, 0);
}

void evq_take_early(evq *q) { early_pop_root(&q->early); }

void evq_free(evq *q)
{
    /* The events are not touched: their owners may be gone already (a stale entry still names
     * an event whose owner cancelled it and was freed before the simulation). */
    xfree(q->early.e);
    xfree(q->run.e);
    xfree(q->tmp.e);
    xfree(q->b0.e);
    xfree(q->b);
    for (uint64_t i = 0, total = 0; i < q->n_slabs; i++) {
        uint64_t n = total ? total : EVQ_SLAB_MIN; /* add_slab's sizes */
        xfree_huge(q->slabs[i], (size_t)n * sizeof(evq_chunk));
        total += n;
    }
    xfree(q->slabs);
    memset(q, 0, sizeof *q);
}

static void __attribute__((noinline, cold)) grow(evq_bucket *b)
{
    SIM_ASSERT(b->cap <= UINT32_MAX / 2, "event queue array full (%u entries)", b->len);
    b->cap = b->cap ? b->cap * 2 : EVQ_INIT_CAP;
    b->e = xrealloc(b->e, (size_t)b->cap * sizeof *b->e, "event queue");
}

/* More chunks: a slab as large as all before it, so there are O(log) allocations in a run and
 * none once the queue has reached its working size. */
static void __attribute__((noinline, cold)) add_slab(evq *q)
{
    uint64_t n = q->chunks ? q->chunks : EVQ_SLAB_MIN;
    evq_chunk *s = xcalloc_huge((size_t)n * sizeof *s, "event queue chunks");
    if (q->n_slabs == q->cap_slabs) {
        q->cap_slabs = q->cap_slabs ? 2 * q->cap_slabs : 16;
        q->slabs = xrealloc(q->slabs, q->cap_slabs * sizeof *q->slabs, "event queue slabs");
    }
    q->slabs[q->n_slabs++] = s;
    for (uint64_t i = n; i-- > 0;) {
        s[i].next = q->free;
        q->free = &s[i];
    }
    q->chunks += n;
}

static inline void put_b0(evq *q, evq_entry e)
{
    evq_bucket *b = &q->b0;
    if (__builtin_expect(b->len == b->cap, 0))
        grow(b);
    b->e[b->len++] = e;
}

static inline void put(evq *q, unsigned i, evq_entry e)
{
    evq_list *b = &q->b[i];
    evq_chunk *c = b->tail;
    uint32_t slot = b->fill;
    if (__builtin_expect(slot == 0 || slot == EVQ_CHUNK, 0)) { /* no tail, or a full one */
        SIM_ASSERT(b->n <= UINT32_MAX - EVQ_CHUNK, "event queue bucket full (%u entries)", b->n);
        if (!q->free)
            add_slab(q);
        evq_chunk *n = q->free;
        q->free = n->next;
        n->next = NULL;
        if (c)
            c->next = n;
        else {
            b->head = n;
            unsigned p = i / EVQ_RADIX, d = i % EVQ_RADIX;
            q->occ[p][d / 64] |= 1ull << (d % 64);
            q->pos_mask |= 1u << p;
        }
        b->tail = c = n;
        slot = 0;
    }
    c->e[slot] = e;
    b->fill = slot + 1;
    b->n++;
    if (e.time < b->min)
        b->min = e.time;
}

/* Ask for all 16 lines of a chunk (NULL: none): a bucket's chunks lie anywhere, so the
 * hardware's stream prefetch stops at each chunk's end; asked for one chunk ahead, a bucket
 * filled long ago (a byte-2 bucket at 10^6 pending: out of the L3) streams in while the chunk
 * before it is read. */
static inline void prefetch_chunk(const evq_chunk *c)
{
    if (c)
        for (unsigned l = 0; l < sizeof *c; l += 64)
            __builtin_prefetch((const char *)c + l);
}

static uint32_t keep_live(evq_entry *e, uint32_t n)
{
    uint32_t w = 0;
    for (uint32_t k = 0; k < n; k++)
        if (live(&e[k]))
            e[w++] = e[k];
    return w;
}

static inline void mark_empty(evq *q, unsigned i)
{
    unsigned p = i / EVQ_RADIX, d = i % EVQ_RADIX;
    q->occ[p][d / 64] &= ~(1ull << (d % 64));
    if (!(q->occ[p][0] | q->occ[p][1] | q->occ[p][2] | q->occ[p][3]))
        q->pos_mask &= ~(1u << p);
}

/* Index of the lowest non-empty bucket of byte p (pos_mask has bit p). */
static inline unsigned lowest_bucket(const evq *q, unsigned p)
{
    unsigned w = 0;
    while (!q->occ[p][w])
        w++;
    return p * EVQ_RADIX + w * 64 + (unsigned)__builtin_ctzll(q->occ[p][w]);
}

/* The smallest time in a bucket of byte 0 or 1 (a bound: a bucket's min may be a stale entry's),
 * SIM_TIME_MAX when there is none. The lowest such bucket holds it: byte-0 buckets lie in
 * last's 256 ps window, byte-1 buckets in later ones. */
static sim_time low_min_of(const evq *q)
{
    if (!(q->pos_mask & 3u))
        return SIM_TIME_MAX;
    return q->b[lowest_bucket(q, (unsigned)__builtin_ctz(q->pos_mask))].min;
}

/* Drop every stale entry, keeping the order of the rest (b0's order is seq order). Each bucket is
 * detached and its live entries put back chunk by chunk; a chunk is released as soon as it has
 * been read, so the put never needs more chunks than were released. */
static void __attribute__((noinline)) sweep(evq *q)
{
    evq_bucket *a = &q->b0;
    if (a->len > q->head0)
        memmove(a->e, a->e + q->head0, (a->len - q->head0) * sizeof *a->e);
    a->len = keep_live(a->e, a->len - q->head0);
    q->head0 = 0;
    for (unsigned i = 0; i < NB; i++) {
        evq_list *b = &q->b[i];
        evq_chunk *c = b->head, *tail = b->tail;
        if (!c)
            continue;
        uint32_t fill = b->fill;
        b->head = b->tail = NULL;
        b->min = SIM_TIME_MAX;
        b->n = b->fill = 0;
        mark_empty(q, i);
        while (c) {
            evq_entry tmp[EVQ_CHUNK];
            uint32_t n = 0, len = evq_chunk_fill(c, tail, fill);
            for (uint32_t k = 0; k < len; k++)
                if (live(&c->e[k]))
                    tmp[n++] = c->e[k];
            evq_chunk *next = c->next;
            c->next = q->free;
            q->free = c;
            for (uint32_t k = 0; k < n; k++)
                put(q, i, tmp[k]);
            c = next;
        }
    }
    evq_bucket *r = &q->run;
    if (r->len > q->run_head)
        memmove(r->e, r->e + q->run_head, (r->len - q->run_head) * sizeof *r->e);
    r->len = keep_live(r->e, r->len - q->run_head);
    q->run_head = 0;
    evq_bucket *h = &q->early;
    h->len = keep_live(h->e, h->len);
    for (uint32_t i = h->len / 2; i-- > 0;)
        early_sift_down(h, i);
    q->stale = 0;
    q->low_min = low_min_of(q);
}

static inline void forget(evq *q, event *ev)
{
    ev->stamp = EVQ_NOT_QUEUED;
    q->n--;
    if (++q->stale > (uint64_t)q->n + EVQ_STALE_SLACK)
        sweep(q);
}

void evq_push_slow(evq *q, event *ev, sim_time t)
{
    SIM_ASSERT(ev->stamp == EVQ_NOT_QUEUED, "event %p pushed while queued (stamp %llu)",
               (void *)ev, (unsigned long long)ev->stamp);
    SIM_ASSERT(q->n < UINT32_MAX, "event queue full (%u events)", q->n);
    evq_entry e = {t, q->next_seq++, ev};
    ev->stamp = e.seq;
    q->n++;
    if (t == q->last)
        put_b0(q, e);
    else if (__builtin_expect(t > q->last, 1)) {
        unsigned i = bucket_of(t, q->last);
        if (i < 2 * EVQ_RADIX && t < q->low_min)
            q->low_min = t; /* a bucket of byte 0 or 1: evq_front's bound */
        put(q, i, e);
    }
    else {
        if (q->early.len == q->early.cap)
            grow(&q->early);
        early_push(&q->early, e);
    }
}

static int by_seq(const void *a, const void *b)
{
    uint64_t x = ((const evq_entry *)a)->seq, y = ((const evq_entry *)b)->seq;
    return (x > y) - (x < y);
}

/* b0 was refilled by a redistribution: put it in seq order. */
static void order_b0(evq_bucket *b0)
{
    evq_entry *e = b0->e;
    uint32_t n = b0->len, k = 1;
    while (k < n && e[k - 1].seq < e[k].seq)
        k++;
    if (k >= n)
        return; /* already in order: the common case */
    if (n <= 32) {
        for (uint32_t i = k; i < n; i++) {
            evq_entry x = e[i];
            uint32_t j = i;
            for (; j > 0 && e[j - 1].seq > x.seq; j--)
                e[j] = e[j - 1];
            e[j] = x;
        }
        return;
    }
    qsort(e, n, sizeof *e, by_seq); /* seqs are unique: the result is deterministic */
}

/* A bucket (chunks c .. tail) was just sorted into the run: its chunks go back to the free
 * list, the lines of the run's first EVQ_RUN_AHEAD events are asked for (the rest as the run
 * is served), and the entries at the new front time m go to b0, in seq order. */
static void run_begin(evq *q, evq_chunk *c, evq_chunk *tail, sim_time m)
{
    const evq_bucket *r = &q->run;
    tail->next = q->free;
    q->free = c;
    for (uint32_t k = 0; k < r->len && k < EVQ_RUN_AHEAD; k++)
        __builtin_prefetch(r->e[k].ev);
    while (q->run_head < r->len && r->e[q->run_head].time == m)
        put_b0(q, r->e[q->run_head++]);
    if (q->b0.len > 1)
        order_b0(&q->b0);
}

/* Entries e[0 .. len) of a bucket of byte p, relative to its minimum m: to b0 or a lower
 * bucket. */
static inline __attribute__((always_inline)) void redistribute(evq *q, const evq_entry *e,
                                                               uint32_t len, sim_time m,
                                                               unsigned p)
{
    for (uint32_t k = 0; k < len; k++) {
        if (e[k].time == m)
            put_b0(q, e[k]);
        else
            put(q, bucket_below(e[k].time, m, p), e[k]);
    }
}

static bool settle(evq *q);
bool evq_settle(evq *q)
{
    bool r = settle(q);
    q->low_min = low_min_of(q);
    return r;
}

static bool settle(evq *q)
{
    while (q->early.len) {
        if (live(&q->early.e[0]))
            return true;
        early_pop_root(&q->early);
        q->stale--;
    }
    evq_bucket *b0 = &q->b0;
    for (;;) {
        while (q->head0 < b0->len) {
            if (live(&b0->e[q->head0]))
                return true;
            q->head0++;
            q->stale--;
        }
        b0->len = 0;
        q->head0 = 0;
        bool have_run = q->run_head < q->run.len;
        if (!q->pos_mask && !have_run) {
            SIM_ASSERT(q->n == 0 && q->stale == 0, "event queue lost %u events (%llu stale)",
                       q->n, (unsigned long long)q->stale);
            return false;
        }
        unsigned p = q->pos_mask ? (unsigned)__builtin_ctz(q->pos_mask) : EVQ_DIGITS;
        unsigned i = p < EVQ_DIGITS ? lowest_bucket(q, p) : 0;
        bool split = false;
        if (have_run) {
            /* The run's entries lie in last's 65.5 ns window (a byte-2 run) or 256 ps window
             * (a byte-1 run): they precede every bucket of byte 2 and up. A bucket of byte 1
             * or 0 (pushed since the run was made, into the same window) may come first or
             * tie: the earliest time goes to b0, from both. */
            sim_time t = q->run.e[q->run_head].time;
            bool bucket_too = p <= 1 && q->b[i].min <= t;
            /* A byte-2 run's next time may enter the 256 ps window of the lowest byte-1
             * bucket (1, d) (entries later than it there): relative to that new `last` the
             * bucket's entries differ in byte 0 only, so it is split now, else a byte-0 bucket
             * pushed later could be served before them. */
            split = p == 1 && !bucket_too && (q->b[i].min >> 8) == (t >> 8);
            if (bucket_too)
                t = q->b[i].min;
            q->last = t;
            /* a byte-2 run is too long to ask for all its events' lines when it is made (the
             * byte-1 path below does): ask for them EVQ_RUN_AHEAD entries ahead instead (here,
             * when an entry goes through b0; entries served in place are asked for by the
             * simulation's loop, sim.c) */
            if (q->run_head + EVQ_RUN_AHEAD < q->run.len)
                __builtin_prefetch(q->run.e[q->run_head + EVQ_RUN_AHEAD].ev);
            while (q->run_head < q->run.len && q->run.e[q->run_head].time == t)
                put_b0(q, q->run.e[q->run_head++]);
            if (!bucket_too && !split) {
                if (b0->len > 1)
                    order_b0(b0);
                continue;
            }
        }
        evq_list *b = &q->b[i];
        sim_time m = split ? q->last : b->min; /* split: relative to the run's next time */
        q->last = m;
        evq_chunk *c = b->head, *tail = b->tail;
        uint64_t nb = b->n; /* its entries, stale ones included */
        uint32_t fill = b->fill;
        b->head = b->tail = NULL;
        b->min = SIM_TIME_MAX;
        b->n = b->fill = 0;
        mark_empty(q, i);
        bool run_free = q->run_head >= q->run.len;
        if (p == 2 && run_free && nb > EVQ_RUN2_MIN && nb <= EVQ_RUN2_MAX) {
            uint32_t n2 = (uint32_t)nb;
            /* A byte-2 bucket spans 65.5 ns, about the time a frame takes to cross a link: at
             * 1,024 hosts and up it holds hundreds to thousands of entries. Sorting it whole by
             * its two low bytes (two stable counting passes) into the run serves them from one
             * array, where redistributing it made a byte-1 bucket, a 1 KiB chunk and a sort per
             * 256 ps window, most of which hold one or two entries (issue #17, sixth round). */
            evq_bucket *r = &q->run, *tb = &q->tmp;
            r->len = q->run_head = 0;
            while (r->cap < n2)
                grow(r);
            while (tb->cap < n2)
                grow(tb);
            uint32_t c0[EVQ_RADIX + 1] = {0}, c1[EVQ_RADIX + 1] = {0};
            for (evq_chunk *x = c; x; x = x->next) {
                prefetch_chunk(x->next);
                for (uint32_t k = 0, len = evq_chunk_fill(x, tail, fill); k < len; k++) {
                    c0[(x->e[k].time & 0xff) + 1]++;
                    c1[((x->e[k].time >> 8) & 0xff) + 1]++;
                }
            }
            for (unsigned d = 0; d < EVQ_RADIX; d++) {
                c0[d + 1] += c0[d];
                c1[d + 1] += c1[d];
            }
            for (evq_chunk *x = c; x; x = x->next)
                for (uint32_t k = 0, len = evq_chunk_fill(x, tail, fill); k < len; k++)
                    tb->e[c0[x->e[k].time & 0xff]++] = x->e[k];
            for (uint32_t k = 0; k < n2; k++)
                r->e[c1[(tb->e[k].time >> 8) & 0xff]++] = tb->e[k];
            r->len = n2;
            run_begin(q, c, tail, m);
            continue;
        }
        if (p == 1 && run_free && nb > EVQ_RUN_MIN) {
            /* A byte-1 bucket spans 256 ps: when it holds more than one entry, sort it by its
             * last byte into the run (stable: equal times keep their order, which order_b0
             * completes), so its times are served from one array instead
             * of up to 256 byte-0 buckets of a 1 KiB chunk each (at 10^6 pending the chunk
             * churn cost more than the sort). The run is empty here: its entries would precede
             * this bucket. Its events are about to be popped one after another: the lines of
             * the first EVQ_RUN_AHEAD are asked for once it is sorted, the rest as it is served
             * (evq_take_front, or the caller's own look-ahead: evq.prefetched_ahead). Asking
             * for all of them at once filled the core's miss buffers and stalled here: 26 % of
             * settle's samples at 8,192 hosts (about 100 a bucket; issue #17, seventh round),
             * a third at 10^6 pending (about 256; eighth round). */
            uint32_t len = (uint32_t)nb; /* at most 2^32-1 entries are queued */
            evq_bucket *r = &q->run;
            r->len = q->run_head = 0;
            while (r->cap < len)
                grow(r);
            if (len <= EVQ_RUN_INSERTION) {
                /* a few entries (a sparse queue): a stable insertion sort */
                for (evq_chunk *x = c; x; x = x->next)
                    for (uint32_t k = 0, xl = evq_chunk_fill(x, tail, fill); k < xl; k++) {
                        uint32_t j = r->len++;
                        for (; j > 0 && r->e[j - 1].time > x->e[k].time; j--)
                            r->e[j] = r->e[j - 1];
                        r->e[j] = x->e[k];
                    }
            } else {
                uint32_t cnt[EVQ_RADIX + 1] = {0};
                for (evq_chunk *x = c; x; x = x->next) {
                    prefetch_chunk(x->next);
                    for (uint32_t k = 0, xl = evq_chunk_fill(x, tail, fill); k < xl; k++)
                        cnt[(x->e[k].time & 0xff) + 1]++;
                }
                for (unsigned d = 0; d < EVQ_RADIX; d++)
                    cnt[d + 1] += cnt[d];
                for (evq_chunk *x = c; x; x = x->next)
                    for (uint32_t k = 0, xl = evq_chunk_fill(x, tail, fill); k < xl; k++)
                        r->e[cnt[x->e[k].time & 0xff]++] = x->e[k];
                r->len = len;
            }
            run_begin(q, c, tail, m);
            continue;
        }
        for (evq_chunk *x = c, *nx; x; x = nx) {
            const evq_entry *e = x->e;
            const uint32_t len = evq_chunk_fill(x, tail, fill);
            prefetch_chunk(x->next);
            /* A bucket of byte 0 or a small one of byte 1: its events are about to be popped
             * one after another, so ask for their cache lines now, all at once, instead of
             * missing on each in turn (the event sits in the component its handler works on). */
            if (p <= 1)
                for (uint32_t k = 0; k < len; k++)
                    __builtin_prefetch(e[k].ev);
            if (p == 2) /* (bucket_below's shortcut, compiled in for the densest case) */
                redistribute(q, e, len, m, 2);
            else
                redistribute(q, e, len, m, p);
            /* the chunk just read goes back to the free list at once, so the next put that
             * needs a chunk takes it while its lines are still in the cache (returning the
             * bucket's chunks after the loop made a dense window's redistribution stream
             * through twice its size) */
            nx = x->next;
            x->next = q->free;
            q->free = x;
        }
        if (b0->len > 1)
            order_b0(b0);
    }
}

event *evq_pop(evq *q, sim_time *t)
{
    const evq_entry *e = evq_front(q);
    if (!e)
        return NULL;
    *t = e->time;
    return evq_take_front(q, e);
}

void evq_cancel(evq *q, event *ev)
{
    if (ev->stamp != EVQ_NOT_QUEUED)
        forget(q, ev);
}

void evq_reschedule(evq *q, event *ev, sim_time t)
{
    if (ev->stamp != EVQ_NOT_QUEUED)
        forget(q, ev);
    evq_push(q, ev, t);
}

static bool count_entry(const evq *q, const evq_entry *e, uint64_t *n_live, uint64_t *n_stale)
{
    if (!e->ev || e->seq == 0 || e->seq >= q->next_seq)
        return false;
    if (e->ev->stamp == e->seq)
        (*n_live)++;
    else if (e->ev->stamp > e->seq || e->ev->stamp == EVQ_NOT_QUEUED)
        (*n_stale)++;
    else
        return false; /* an event's stamp names an older entry than a queued one */
    return true;
}

bool evq_check(const evq *q)
{
    uint64_t n_live = 0, n_stale = 0, chunks = 0;
    const evq_bucket *h = &q->early;
    if (h->len > h->cap)
        return false;
    for (uint32_t k = 0; k < h->len; k++) {
        if (!count_entry(q, &h->e[k], &n_live, &n_stale) || h->e[k].time >= q->last)
            return false;
        if (k && key_less(&h->e[k], &h->e[(k - 1) / 2]))
            return false;
    }
    h = &q->run;
    if (h->len > h->cap || q->run_head > h->len)
        return false;
    for (uint32_t k = q->run_head; k < h->len; k++) {
        const evq_entry *e = &h->e[k];
        /* after `last`, within its byte-2 window (65.5 ns), in time order, equal times in seq
         * order (evq_front serves the run in place) */
        if (!count_entry(q, e, &n_live, &n_stale) || e->time <= q->last ||
            (e->time ^ q->last) >= EVQ_RADIX * EVQ_RADIX ||
            (k > q->run_head && (e->time < e[-1].time ||
                                 (e->time == e[-1].time && e->seq <= e[-1].seq))))
            return false;
    }
    h = &q->b0;
    if (h->len > h->cap || q->head0 > h->len)
        return false;
    for (uint32_t k = q->head0; k < h->len; k++) {
        const evq_entry *e = &h->e[k];
        if (!count_entry(q, e, &n_live, &n_stale) || e->time != q->last)
            return false;
        if (k > q->head0 && e->seq <= e[-1].seq)
            return false;
    }
    for (unsigned i = 0; i < NB; i++) {
        const evq_list *b = &q->b[i];
        unsigned p = i / EVQ_RADIX, d = i % EVQ_RADIX;
        bool occ = (q->occ[p][d / 64] >> (d % 64)) & 1;
        if (occ != (b->head != NULL) || (b->head == NULL) != (b->tail == NULL))
            return false;
        if (occ && !((q->pos_mask >> p) & 1))
            return false;
        sim_time m = SIM_TIME_MAX;
        uint64_t n_b = 0;
        /* every chunk full but the tail, which holds the rest of the bucket's n (1 to a chunk) */
        if (b->head ? b->fill == 0 || b->fill > EVQ_CHUNK : b->fill != 0)
            return false;
        for (const evq_chunk *c = b->head; c; c = c->next) {
            chunks++;
            if ((!c->next && c != b->tail) || (c->next && c == b->tail))
                return false;
            uint32_t len = evq_chunk_fill(c, b->tail, b->fill);
            n_b += len;
            for (uint32_t k = 0; k < len; k++) {
                const evq_entry *e = &c->e[k];
                if (!count_entry(q, e, &n_live, &n_stale) || e->time <= q->last ||
                    bucket_of(e->time, q->last) != i)
                    return false;
                if (e->time < m)
                    m = e->time;
            }
        }
        if (b->head && b->min != m)
            return false;
        if (b->n != n_b)
            return false;
        if (b->head && p <= 1 && q->low_min > m)
            return false; /* evq_front's bound */
    }
    for (unsigned p = 0; p < EVQ_DIGITS; p++)
        if (((q->pos_mask >> p) & 1) != !!(q->occ[p][0] | q->occ[p][1] | q->occ[p][2] | q->occ[p][3]))
            return false;
    for (const evq_chunk *c = q->free; c; c = c->next)
        chunks++;
    return chunks == q->chunks && n_live == q->n && n_stale == q->stale;
}
