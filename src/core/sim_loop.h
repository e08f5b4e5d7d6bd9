/*
 * sim_loop.h — THE hot loop (sim_run), as an inline template over the prefetch hook and the
 * dispatch.
 *
 * sim.c's sim_run instantiates it with the hook the simulation holds (a call through a pointer,
 * or none). A model whose hook is fixed instantiates it with that function (port.c's
 * net_run_loop with net_prefetch) and installs the copy as sim.loop: the hook is then inlined
 * into the loop, which saves its call, its frame and the reloads around it on every event
 * (issue #17, ninth round). Such a model may also give a dispatch (sim_loop_with) that runs
 * the handlers it knows inlined and ev->fn for the rest (issue #17, twelfth round). All copies
 * run the same events in the same order; only the compiler's view of the hook and handlers
 * differs. Include only where a loop is instantiated.
 */
#ifndef WR_CORE_SIM_LOOP_H
#define WR_CORE_SIM_LOOP_H

#include "err.h"
#include "sim.h"

/* sim_interrupt_request's flag (sim.c) */
extern volatile sig_atomic_t sim_interrupt_flag;

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

/* A model's own dispatch (sim_loop_with): runs the event, calling the handlers it knows
 * directly (inlined into the loop) and ev->fn for the rest. */
typedef void (*sim_dispatch_fn)(sim *s, event *ev);

static inline __attribute__((always_inline)) uint64_t sim_loop_with(sim *s, sim_prefetch_fn pf,
                                                                    sim_dispatch_fn dispatch)
{
    SIM_ASSERT(!(s->progress_every & (s->progress_every - 1)),
               "progress_every must be a power of two, got %llu",
               (unsigned long long)s->progress_every);
    uint64_t start = s->events;
    evq *q = &s->q;
    q->prefetched_ahead = pf != NULL; /* the loop below asks for each event's line */
    while (!s->stopped) {
        if (q->n <= s->daemons)
            break; /* empty, or only observers left */
        if (__builtin_expect(sim_interrupt_flag != 0, 0)) {
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
        if (pf) {
            const evq_entry *base;
            if (evq_ahead_span(q, &base) > SIM_PREFETCH_LINE) {
                /* the common case: all four places in one array (the same entries
                 * evq_ahead gives, without its walk) */
                __builtin_prefetch(base[SIM_PREFETCH_LINE].ev);
                pf(s->prefetch_ctx, base[SIM_PREFETCH_FAR].ev, base[SIM_PREFETCH_MID].ev,
                   base[SIM_PREFETCH_NEAR].ev);
            } else {
                const evq_entry *line = evq_ahead(q, SIM_PREFETCH_LINE);
                if (line)
                    __builtin_prefetch(line->ev);
                const evq_entry *far = evq_ahead(q, SIM_PREFETCH_FAR);
                const evq_entry *mid = evq_ahead(q, SIM_PREFETCH_MID);
                const evq_entry *near = evq_ahead(q, SIM_PREFETCH_NEAR);
                pf(s->prefetch_ctx, far ? far->ev : NULL, mid ? mid->ev : NULL,
                   near ? near->ev : NULL);
            }
        }
        s->now = t;
        s->events++;
        if (dispatch)
            dispatch(s, ev);
        else
            ev->fn(s, ev);
        if (__builtin_expect(s->drain != NULL, 0) && *s->drain == 0)
            break;
        if (__builtin_expect(s->progress != NULL, 0) &&
            (s->events & (s->progress_every - 1)) == 0)
            s->progress(s, s->progress_user);
    }
    return s->events - start;
}

static inline __attribute__((always_inline)) uint64_t sim_loop(sim *s, sim_prefetch_fn pf)
{
    return sim_loop_with(s, pf, NULL);
}

#endif
