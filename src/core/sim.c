/*
 * sim.c — the simulation context and THE hot loop.
 *
 * Discrete-event simulation in the classic event-scheduling world view (as in ns-3's
 * DefaultSimulatorImpl and htsim's EventList): pop the earliest (time, seq) event, advance the
 * clock to it, run its handler; handlers schedule further events. Invariants: `now` never
 * decreases (asserted — a handler that schedules into the past is a bug); `events` counts
 * executed handlers; when the next event lies beyond stop_at the clock stops exactly at stop_at
 * and the event stays queued, so raising stop_at and calling sim_run again resumes the run
 * unchanged. sim_stop() is sticky: clear `stopped` to resume after it. An interrupt request
 * (sim.h) is tested before each event: one load of a volatile flag, which the handler of a
 * signal sets.
 *
 * The loop reads the queue's front entry once (evq_front) and takes it (evq_take_front) instead
 * of calling evq_peek_time+evq_pop through the queue's checks twice; the progress test is a
 * mask on the event count (progress_every is a power of two), so the per-event overhead beyond
 * the queue is one indirect call and a few stores, plus, when a network is attached, the
 * prefetch hook's call (below).
 */
#include "sim.h"

#include "err.h"

/* Software-pipelined prefetch (issue #17, fourth round). Positions count from the entry behind
 * the popped one (evq_ahead after the pop: 0 = the next event). Before an event's handler runs,
 * the line of the event at SIM_PREFETCH_LINE is prefetched (the queue also prefetches a run's
 * lines when it sorts a bucket, evq.c), and the network's hook is shown three of the events due
 * next, each one level deeper into what its handler will read: the event at SIM_PREFETCH_FAR,
 * whose own line is in cache by then, to prefetch what that line points to (the frame, the
 * node, the port's other hot lines); the event at SIM_PREFETCH_MID, whose pointed-to lines are
 * in cache by then, to prefetch the next level (the class line, the ingress port, the ECMP
 * group, the QP); and the next event, to prefetch the last (the egress port, the flow, the next
 * queued frame). So the dependent misses of the next events overlap this one's work instead of
 * each stalling in turn. The distances were measured (docs/performance.md, fourth round). */
#define SIM_PREFETCH_LINE 7u
#define SIM_PREFETCH_FAR 3u
#define SIM_PREFETCH_MID 1u
#define SIM_PREFETCH_NEAR 0u
_Static_assert(SIM_PREFETCH_LINE > SIM_PREFETCH_FAR && SIM_PREFETCH_FAR > SIM_PREFETCH_MID &&
                   SIM_PREFETCH_MID > SIM_PREFETCH_NEAR,
               "sim_run's span test covers the farthest place");

static volatile sig_atomic_t interrupt_flag;

void sim_interrupt_request(void) { interrupt_flag = 1; }
void sim_interrupt_clear(void) { interrupt_flag = 0; }
bool sim_interrupt_pending(void) { return interrupt_flag != 0; }

void sim_init(sim *s, uint64_t seed)
{
    evq_init(&s->q);
    s->now = 0;
    s->stop_at = SIM_TIME_MAX;
    s->seed = seed;
    s->events = 0;
    s->daemons = 0;
    s->stopped = false;
    s->interrupted = false;
    s->drain = NULL;
    s->progress = NULL;
    s->progress_user = NULL;
    s->progress_every = (uint64_t)1 << 20;
    s->prefetch = NULL;
    s->prefetch_ctx = NULL;
}

void sim_free(sim *s) { evq_free(&s->q); }

uint64_t sim_run(sim *s)
{
    SIM_ASSERT(!(s->progress_every & (s->progress_every - 1)),
               "progress_every must be a power of two, got %llu",
               (unsigned long long)s->progress_every);
    uint64_t start = s->events;
    evq *q = &s->q;
    q->prefetched_ahead = s->prefetch != NULL; /* the loop below asks for each event's line */
    while (!s->stopped) {
        if (q->n <= s->daemons)
            break; /* empty, or only observers left */
        if (__builtin_expect(interrupt_flag != 0, 0)) {
            s->interrupted = true;
            break;
        }
        const evq_entry *front = evq_front(q);
        sim_time t = front->time;
        if (t > s->stop_at) {
            if (s->stop_at > s->now)
                s->now = s->stop_at;
            break;
        }
        SIM_ASSERT(t >= s->now, "time went backwards: event at %llu ps, now %llu ps",
                   (unsigned long long)t, (unsigned long long)s->now);
        event *ev = evq_take_front(q, front);
        if (s->prefetch) {
            const evq_entry *base;
            if (evq_ahead_span(q, &base) > SIM_PREFETCH_LINE) {
                /* the common case: all four places in one array (the same entries
                 * evq_ahead gives, without its walk) */
                __builtin_prefetch(base[SIM_PREFETCH_LINE].ev);
                s->prefetch(s->prefetch_ctx, base[SIM_PREFETCH_FAR].ev,
                            base[SIM_PREFETCH_MID].ev, base[SIM_PREFETCH_NEAR].ev);
            } else {
                const evq_entry *line = evq_ahead(q, SIM_PREFETCH_LINE);
                if (line)
                    __builtin_prefetch(line->ev);
                const evq_entry *far = evq_ahead(q, SIM_PREFETCH_FAR);
                const evq_entry *mid = evq_ahead(q, SIM_PREFETCH_MID);
                const evq_entry *near = evq_ahead(q, SIM_PREFETCH_NEAR);
                s->prefetch(s->prefetch_ctx, far ? far->ev : NULL, mid ? mid->ev : NULL,
                            near ? near->ev : NULL);
            }
        }
        s->now = t;
        s->events++;
        ev->fn(s, ev);
        if (__builtin_expect(s->drain != NULL, 0) && *s->drain == 0)
            break;
        if (__builtin_expect(s->progress != NULL, 0) &&
            (s->events & (s->progress_every - 1)) == 0)
            s->progress(s, s->progress_user);
    }
    return s->events - start;
}
