/*
 * test_evq.c — the event queue against an O(n) reference under random push/pop/cancel/
 * reschedule with many equal times: pop order must equal the reference's (time, seq) order
 * exactly (FIFO among equal times), and evq_check must hold after every operation.
 */
#include <stdlib.h>

#include "core/evq.h"
#include "core/rng.h"
#include "testlib.h"

#define M 600 /* events in play: more than fit comfortably, fewer than the initial capacity */

typedef struct ref {
    int queued;
    sim_time time;
    uint64_t seq;
} ref;

static event evs[M];
static ref refs[M];
static uint64_t ref_seq;
static uint32_t ref_n;

static void ref_sched(int k, sim_time t)
{
    if (!refs[k].queued)
        ref_n++;
    refs[k].queued = 1;
    refs[k].time = t;
    refs[k].seq = ref_seq++;
}

static int ref_min(void)
{
    int best = -1;
    for (int k = 0; k < M; k++) {
        if (!refs[k].queued)
            continue;
        if (best < 0 || refs[k].time < refs[best].time ||
            (refs[k].time == refs[best].time && refs[k].seq < refs[best].seq))
            best = k;
    }
    return best;
}

/* Random operations against the reference. `spread` bounds how far ahead of the last pop an
 * event is scheduled (4: ties everywhere; 2^40: times use many bits, so entries move through
 * many buckets); `resched_far` makes every reschedule go far into the future, as RTO timers do,
 * so stale entries pile up and get swept. */
static void random_ops_grain(uint64_t seed, uint64_t spread, uint64_t grain, int resched_far,
                             int ops)
{
    evq q;
    evq_init(&q);
    rng r;
    rng_init(&r, seed, RNG_ID(RNG_KIND_TEST, 1));
    for (int k = 0; k < M; k++) {
        event_init(&evs[k], NULL);
        refs[k].queued = 0;
    }
    ref_seq = 0;
    ref_n = 0;
    sim_time now = 0;
    int bad_order = 0, bad_check = 0, pops = 0;
    for (int op = 0; op < ops; op++) {
        int k = (int)rng_below(&r, M);
        /* Few distinct times: many ties, so FIFO order is exercised constantly. */
        sim_time t = now + rng_below(&r, spread);
        if (grain > 1 && t / grain * grain >= now)
            t = t / grain * grain; /* on a grid: equal times within wide spreads */
        uint64_t what = rng_below(&r, 100);
        /* Drift the mix so the queue both fills up and drains over the run. */
        int fill = (op / 20000) % 2 == 0;
        if (what < (fill ? 40u : 25u)) {
            if (!event_queued(&evs[k])) {
                evq_push(&q, &evs[k], t);
                ref_sched(k, t);
            }
        } else if (what < 70) {
            sim_time pt = 0;
            event *ev = evq_pop(&q, &pt);
            int want = ref_min();
            if (want < 0) {
                if (ev != NULL)
                    bad_order++;
            } else {
                pops++;
                if (ev != &evs[want] || pt != refs[want].time || event_queued(ev))
                    bad_order++;
                refs[want].queued = 0;
                ref_n--;
                now = pt;
            }
        } else if (what < 85) {
            evq_cancel(&q, &evs[k]);
            if (refs[k].queued) {
                refs[k].queued = 0;
                ref_n--;
            }
            if (event_queued(&evs[k]))
                bad_order++;
        } else {
            if (resched_far)
                t = now + (spread << 20) + rng_below(&r, spread);
            evq_reschedule(&q, &evs[k], t);
            ref_sched(k, t);
        }
        if (!evq_check(&q) || evq_size(&q) != ref_n || q.next_seq != ref_seq + 1)
            bad_check++;
        int w = ref_min();
        if (evq_peek_time(&q) != (w < 0 ? SIM_TIME_MAX : refs[w].time))
            bad_check++;
    }
    CHECK_EQ_U64(bad_order, 0);
    CHECK_EQ_U64(bad_check, 0);
    CHECK(pops > ops / 5);
    /* Drain: the rest comes out in reference order too. */
    sim_time pt;
    event *ev;
    while ((ev = evq_pop(&q, &pt)) != NULL) {
        int want = ref_min();
        CHECK(ev == &evs[want]);
        refs[want].queued = 0;
    }
    CHECK_EQ_U64(ref_min(), (uint64_t)-1);
    CHECK(evq_check(&q));
    CHECK_EQ_U64(q.stale, 0); /* the drain skipped every stale entry */
    evq_free(&q);
}

static void random_ops(uint64_t seed, uint64_t spread, int resched_far, int ops)
{
    random_ops_grain(seed, spread, 1, resched_far, ops);
}

static void test_random_ops(void)
{
    /* evq_check walks every bucket after every operation: the ops are sized so that the
     * sanitizer build runs this in seconds */
    random_ops(7, 4, 0, 120000);
    random_ops(8, 1000, 0, 60000);
    random_ops(9, (uint64_t)1 << 40, 0, 60000);
    random_ops(10, 1000, 1, 60000);
    /* dense and close: byte-1 buckets of many entries become the sorted run, and new events
     * land in its 256-ps window (byte-0 buckets that tie or precede the run's next time) */
    random_ops(11, 300, 0, 60000);
    /* 65.5 ns windows of hundreds of entries become byte-2 runs, and pushes land in the run's
     * window, before, between and after its times, in byte-1 and byte-0 buckets */
    random_ops(12, (uint64_t)1 << 17, 0, 25000);
    random_ops(13, (uint64_t)1 << 19, 0, 25000);
    random_ops(14, (uint64_t)1 << 18, 1, 25000);
    /* the same windows with times on a 256 ps grid: byte-2 runs full of equal times, which
     * evq_front serves in place in seq order (evq_check: the run's ties are in seq order) */
    random_ops_grain(15, (uint64_t)1 << 18, 256, 0, 25000);
    random_ops_grain(16, (uint64_t)1 << 17, 1024, 0, 25000);
}

/* Rescheduling without popping leaves a stale entry per reschedule (as a retransmission timer
 * pushed back by every ACK does); once they outnumber the live ones they are swept, and the pop
 * order stays the reference's. */
static void test_stale_sweep(void)
{
    evq q;
    evq_init(&q);
    rng r;
    rng_init(&r, 11, RNG_ID(RNG_KIND_TEST, 3));
    ref_seq = 0;
    ref_n = 0;
    for (int k = 0; k < M; k++) {
        event_init(&evs[k], NULL);
        refs[k].queued = 0;
        sim_time t = rng_below(&r, 1u << 20);
        evq_push(&q, &evs[k], t);
        ref_sched(k, t);
    }
    int sweeps = 0, bad = 0;
    for (int round = 0; round < 20; round++)
        for (int k = 0; k < M; k++) {
            uint64_t before = q.stale;
            sim_time t = rng_below(&r, (uint64_t)1 << (20 + round));
            evq_reschedule(&q, &evs[k], t);
            ref_sched(k, t);
            sweeps += q.stale < before;
            if (!evq_check(&q) || q.stale > (uint64_t)q.n + 4096 + 1)
                bad++;
        }
    CHECK(sweeps > 0);
    CHECK_EQ_U64(bad, 0);
    sim_time t;
    event *ev;
    int order_bad = 0;
    while ((ev = evq_pop(&q, &t)) != NULL) {
        int want = ref_min();
        if (ev != &evs[want] || t != refs[want].time)
            order_bad++;
        refs[want].queued = 0;
    }
    CHECK_EQ_U64(order_bad, 0);
    CHECK_EQ_U64(q.stale, 0);
    evq_free(&q);
}

static void test_fifo_ties(void)
{
    evq q;
    evq_init(&q);
    event e[10];
    for (int k = 0; k < 10; k++) {
        event_init(&e[k], NULL);
        evq_push(&q, &e[k], 5 * SIM_NS);
    }
    evq_reschedule(&q, &e[3], 5 * SIM_NS); /* same time, fresh seq: now last */
    evq_cancel(&q, &e[7]);
    evq_cancel(&q, &e[7]); /* not queued: no-op */
    CHECK(evq_check(&q));
    static const int want[] = {0, 1, 2, 4, 5, 6, 8, 9, 3};
    sim_time t;
    for (int k = 0; k < 9; k++) {
        event *ev = evq_pop(&q, &t);
        CHECK(ev == &e[want[k]]);
        CHECK_EQ_U64(t, 5 * SIM_NS);
        CHECK(!event_queued(ev));
    }
    CHECK(evq_pop(&q, &t) == NULL);
    CHECK_EQ_U64(evq_peek_time(&q), SIM_TIME_MAX);
    evq_free(&q);
}

static void test_growth(void)
{
    enum { N = 5000 };
    static event e[N];
    evq q;
    evq_init(&q);
    rng r;
    rng_init(&r, 3, RNG_ID(RNG_KIND_TEST, 2));
    for (int k = 0; k < N; k++) {
        event_init(&e[k], NULL);
        evq_push(&q, &e[k], rng_below(&r, 1000));
    }
    CHECK(evq_check(&q));
    CHECK_EQ_U64(evq_size(&q), N);
    /* Reschedule every third event later, cancel every seventh. */
    for (int k = 0; k < N; k += 3)
        evq_reschedule(&q, &e[k], 500 + rng_below(&r, 1000));
    for (int k = 0; k < N; k += 7)
        evq_cancel(&q, &e[k]);
    CHECK(evq_check(&q));
    sim_time t, last = 0;
    uint64_t last_seq = 0, popped = 0;
    int order_ok = 1;
    while (evq_size(&q)) {
        uint64_t seq = evq_front(&q)->seq;
        event *ev = evq_pop(&q, &t);
        if (t < last || (t == last && popped && seq < last_seq) || event_queued(ev))
            order_ok = 0;
        last = t;
        last_seq = seq;
        popped++;
    }
    CHECK(order_ok);
    CHECK_EQ_U64(popped, N - (N + 6) / 7);
    evq_free(&q);
}

/* A reference for many events: a binary heap of (time, seq, event index) with lazy deletion
 * (an entry whose seq is no longer its event's is skipped), so that tens of thousands of events
 * can be checked against it. */
typedef struct dref {
    sim_time time;
    uint64_t seq;
    uint32_t k;
} dref;

static int dref_less(const dref *a, const dref *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void dheap_push(dref *h, uint32_t *n, dref x)
{
    uint32_t i = (*n)++;
    for (; i > 0 && dref_less(&x, &h[(i - 1) / 2]); i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = x;
}

static dref dheap_pop(dref *h, uint32_t *n)
{
    dref top = h[0], x = h[--*n];
    uint32_t i = 0;
    for (uint32_t c; (c = 2 * i + 1) < *n; i = c) {
        if (c + 1 < *n && dref_less(&h[c + 1], &h[c]))
            c++;
        if (!dref_less(&h[c], &x))
            break;
        h[i] = h[c];
    }
    if (*n)
        h[i] = x;
    return top;
}

/* Drop the reference's stale entries (seq[k]: event k's live seq). */
static void dheap_compact(dref *h, uint32_t *n, const uint64_t *seq)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (seq[h[i].k] == h[i].seq)
            h[w++] = h[i];
    *n = 0;
    for (uint32_t i = 0; i < w; i++)
        dheap_push(h, n, h[i]);
}

/* Dense 65.5 ns windows: tens of thousands of events within one byte-2 bucket, more than the
 * run takes whole (EVQ_RUN2_MAX), so the queue takes the path bench_evq's 10^6 pending and the
 * 32,768-GPU fabrics take. Pops are checked against the reference one by one while popped
 * events are pushed back into the window being served (before, between and after the times
 * still queued, and on a grid, so that equal times abound), cancelled and rescheduled. */
static void dense_window(uint64_t seed, uint32_t n, uint64_t grain, int churn)
{
    event *e = calloc(n, sizeof *e);
    uint64_t *seq = calloc(n, sizeof *seq); /* the reference's live seq per event, 0: none */
    dref *h = calloc((size_t)n * 4, sizeof *h);
    uint32_t hn = 0, live = 0;
    uint64_t next = 1;
    evq q;
    evq_init(&q);
    rng r;
    rng_init(&r, seed, RNG_ID(RNG_KIND_TEST, 4));
    sim_time now = 0, base = (sim_time)1 << 16; /* the window [2^16, 2^17) */
    for (uint32_t k = 0; k < n; k++) {
        event_init(&e[k], NULL);
        sim_time t = base + rng_below(&r, 1u << 16) / grain * grain;
        evq_push(&q, &e[k], t);
        seq[k] = next++;
        dheap_push(h, &hn, (dref){t, seq[k], k});
        live++;
    }
    /* The path the window takes, so that the test cannot drift off the one it is for: above
     * EVQ_RUN2_MAX the window is redistributed into byte-1 buckets, below it sorted whole
     * into the run. (Settling moves nothing in the order: evq_settle.) */
    CHECK(evq_settle(&q));
    if (n > EVQ_RUN2_MAX)
        CHECK((q.pos_mask & 2u) && q.run.len < n);
    else
        CHECK(!(q.pos_mask & 2u) && q.run.len == n);
    int bad_order = 0, bad_check = 0;
    uint64_t pops = 0;
    for (uint64_t op = 0; live > 0 && op < 4 * (uint64_t)n; op++) {
        uint64_t what = rng_below(&r, 100);
        if (what < 70) {
            while (hn && seq[h[0].k] != h[0].seq)
                dheap_pop(h, &hn); /* cancelled or rescheduled since */
            dref want = dheap_pop(h, &hn);
            sim_time t = 0;
            event *ev = evq_pop(&q, &t);
            if (ev != &e[want.k] || t != want.time)
                bad_order++;
            seq[want.k] = 0;
            live--;
            now = t;
            pops++;
            if (what < 50) { /* back into the window, mostly near its front */
                sim_time nt = now + (what < 40 ? rng_below(&r, 1024) : rng_below(&r, 1u << 16));
                nt = nt / grain * grain < now ? now : nt / grain * grain;
                evq_push(&q, ev, nt);
                seq[want.k] = next++;
                dheap_push(h, &hn, (dref){nt, seq[want.k], want.k});
                live++;
            }
        } else {
            uint32_t k = (uint32_t)rng_below(&r, n);
            if (what < 85) {
                evq_cancel(&q, &e[k]);
                live -= seq[k] != 0;
                seq[k] = 0;
            } else {
                sim_time nt = now + rng_below(&r, 1u << 17) / grain * grain;
                evq_reschedule(&q, &e[k], nt);
                live += seq[k] == 0;
                seq[k] = next++;
                dheap_push(h, &hn, (dref){nt, seq[k], k});
            }
        }
        if (churn && pops == 1) {
            /* every event rescheduled twice within the window being served: the stale
             * entries outnumber the live ones, and the queue sweeps them from the window */
            uint64_t before = q.stale;
            for (int round = 0; round < 2; round++)
                for (uint32_t k = 0; k < n; k++) {
                    sim_time nt = now + rng_below(&r, 1u << 16) / grain * grain;
                    evq_reschedule(&q, &e[k], nt < now ? now : nt);
                    live += seq[k] == 0;
                    seq[k] = next++;
                    dheap_push(h, &hn, (dref){nt < now ? now : nt, seq[k], k});
                    if (hn + 8 > (size_t)n * 4)
                        dheap_compact(h, &hn, seq);
                }
            CHECK(q.stale < before + 2 * (uint64_t)n); /* swept */
            CHECK(evq_check(&q));
        }
        if (hn + 8 > (size_t)n * 4)
            dheap_compact(h, &hn, seq);
        if (op % 4096 == 0 && (!evq_check(&q) || evq_size(&q) != live))
            bad_check++;
    }
    CHECK_EQ_U64(bad_order, 0);
    CHECK_EQ_U64(bad_check, 0);
    CHECK(pops > n);
    CHECK(evq_check(&q));
    evq_free(&q);
    free(h);
    free(seq);
    free(e);
}

static void test_dense_windows(void)
{
    _Static_assert(EVQ_RUN2_MAX < 40000 && EVQ_RUN2_MAX > 20000,
                   "the dense windows below straddle EVQ_RUN2_MAX");
    dense_window(21, 40000, 1, 0);
    dense_window(22, 50000, 64, 0); /* ties: 1,024 distinct times in the window */
    dense_window(24, 40000, 1, 1);  /* stale entries swept while the window is served */
    dense_window(23, 20000, 1, 0);  /* (a window the run takes whole, for comparison) */
}

int main(void)
{
    TEST_RUN(test_fifo_ties);
    TEST_RUN(test_growth);
    TEST_RUN(test_random_ops);
    TEST_RUN(test_stale_sweep);
    TEST_RUN(test_dense_windows);
    return tl_finish();
}
