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
 * The loop itself is sim_loop.h's, an inline template over the prefetch hook: sim_run runs
 * the copy a model installed (sim.loop: the network's, its hook inlined) or instantiates it
 * with the hook it holds. It reads the queue's front entry once (evq_front) and takes it
 * (evq_take_front) instead of calling evq_peek_time+evq_pop through the queue's checks twice;
 * the progress test is a mask on the event count (progress_every is a power of two), so the
 * per-event overhead beyond the queue is one indirect call and a few stores, plus the hook.
 */
#include "sim.h"

#include "err.h"
#include "sim_loop.h"

volatile sig_atomic_t sim_interrupt_flag;

void sim_interrupt_request(void) { sim_interrupt_flag = 1; }
void sim_interrupt_clear(void) { sim_interrupt_flag = 0; }
bool sim_interrupt_pending(void) { return sim_interrupt_flag != 0; }

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
    sim_set_prefetch(s, NULL, NULL, NULL);
}

void sim_free(sim *s) { evq_free(&s->q); }

uint64_t sim_run(sim *s)
{
    if (s->loop)
        return s->loop(s); /* the model's copy, its hook inlined (sim_loop.h) */
    return sim_loop(s, s->prefetch);
}
