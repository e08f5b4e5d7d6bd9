/*
 * sim.h — the simulation context: clock, event queue, seed, stop condition.
 *
 * sim_run() pops events in (time, seq) order and calls their handlers until the queue holds
 * nothing but daemon events (periodic observers such as the telemetry sampler, counted in
 * `daemons`, so the simulated end is the model's last event, not the observer's next tick), the
 * stop time is passed, or sim_stop() is called. Components schedule their intrusive events
 * with sim_at()/sim_after(). A progress callback fires every `progress_every` events so the CLI
 * can print a progress line without the library printing anything.
 */
#ifndef WR_CORE_SIM_H
#define WR_CORE_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "evq.h"
#include "time.h"

typedef struct sim sim;
typedef void (*sim_progress_fn)(const sim *s, void *user);
/* Prefetch hook (see sim_run): `far`, `mid` and `near` are the events due to fire four, two
 * and one event after the one about to run, as far as the queue knows (any may be NULL, stale
 * or overtaken later); it may read their owners and issue prefetches, and must change
 * nothing a result depends on (it may keep a memo of a pure function, as net.guess). */
typedef void (*sim_prefetch_fn)(void *ctx, const event *far, const event *mid, const event *near);

struct sim {
    evq q;
    sim_time now;
    sim_time stop_at;      /* SIM_TIME_MAX = no cap */
    uint64_t seed;
    uint64_t events;       /* events executed */
    uint32_t daemons;      /* queued events that do not keep the run alive (samplers): the
                            * run ends when nothing else is queued; their owners count them */
    bool stopped;
    bool interrupted;      /* sim_run returned because sim_interrupt_request() was called */
    const uint64_t *drain;  /* when set, the run stops after the first event that leaves *drain
                             * at 0 (run.c points it at the live packet count once every job
                             * is done: only timers would remain, see run.c) */
    sim_progress_fn progress;
    void *progress_user;
    uint64_t progress_every;  /* events between progress calls (power of two) */
    /* set together by sim_set_prefetch */
    sim_prefetch_fn prefetch; /* NULL = none; the network installs its own (port.c) */
    void *prefetch_ctx;       /* its first argument */
    /* A copy of the loop with `prefetch` inlined (sim_loop.h), which sim_run calls instead of
     * its own; NULL = sim_run's own. */
    uint64_t (*loop)(sim *s);
};

void sim_init(sim *s, uint64_t seed);
void sim_free(sim *s);
static inline void sim_at(sim *s, event *ev, sim_time t) { evq_push(&s->q, ev, t); }
static inline void sim_after(sim *s, event *ev, sim_time dt) { evq_push(&s->q, ev, s->now + dt); }
static inline void sim_stop(sim *s) { s->stopped = true; }
/* Install a prefetch hook (NULL: none) with its context, and the copy of the loop that inlines
 * it (sim_loop.h; NULL: sim_run's own loop, calling the hook through its pointer). One setter,
 * so that a hook is never left beside another hook's loop. */
static inline void sim_set_prefetch(sim *s, sim_prefetch_fn fn, void *ctx, uint64_t (*loop)(sim *s))
{
    s->prefetch = fn;
    s->prefetch_ctx = ctx;
    s->loop = loop;
}
/* Run until empty, stopped, past stop_at or interrupted. Returns the number of events executed. */
uint64_t sim_run(sim *s);

/*
 * Interruption (SIGINT/SIGTERM in the CLI): sim_interrupt_request() is async-signal-safe (it
 * stores a sig_atomic_t). Every sim_run in the process returns before its next event and sets
 * its `interrupted`; the request stays until sim_interrupt_clear(), so a run started after it
 * returns at once. The state is process-wide because a signal handler cannot know which
 * simulation is running.
 */
void sim_interrupt_request(void);
void sim_interrupt_clear(void);
bool sim_interrupt_pending(void);

#endif
