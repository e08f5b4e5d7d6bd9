/*
 * test_sim.c — the simulation loop: handlers run in (time, seq) order with the clock at the
 * event's time, stop_at stops the clock exactly there and resumes cleanly, sim_stop is honoured
 * at once, and the progress callback fires every progress_every events.
 */
#include "core/sim.h"
#include "testlib.h"

typedef struct tev {
    event ev;
    int id;
    sim_time fired_at;
} tev;

static int order[64], norder;

static void on_fire(void *ctx, event *ev)
{
    sim *s = ctx;
    tev *t = (tev *)ev;
    t->fired_at = s->now;
    order[norder++] = t->id;
}

static void test_order(void)
{
    sim s;
    sim_init(&s, 1);
    CHECK_EQ_U64(s.now, 0);
    CHECK_EQ_U64(s.stop_at, SIM_TIME_MAX);
    tev e[5];
    static const sim_time at[5] = {30, 10, 20, 10, 0};
    for (int k = 0; k < 5; k++) {
        event_init(&e[k].ev, on_fire);
        e[k].id = k;
        sim_at(&s, &e[k].ev, at[k] * SIM_NS);
    }
    norder = 0;
    CHECK_EQ_U64(sim_run(&s), 5);
    static const int want[5] = {4, 1, 3, 2, 0}; /* 1 before 3: same time, scheduled first */
    for (int k = 0; k < 5; k++) {
        CHECK_EQ_U64(order[k], want[k]);
        CHECK_EQ_U64(e[k].fired_at, at[k] * SIM_NS);
    }
    CHECK_EQ_U64(s.now, 30 * SIM_NS);
    CHECK_EQ_U64(s.events, 5);
    sim_free(&s);
}

/* A self-rescheduling ticker: fires every 100 ns. */
static void on_tick(void *ctx, event *ev)
{
    sim *s = ctx;
    ((tev *)ev)->id++;
    sim_after(s, ev, 100 * SIM_NS);
}

static void test_stop_at(void)
{
    sim s;
    sim_init(&s, 1);
    tev t = {.id = 0};
    event_init(&t.ev, on_tick);
    sim_at(&s, &t.ev, 0);
    s.stop_at = 1000 * SIM_NS;
    CHECK_EQ_U64(sim_run(&s), 11); /* 0, 100, ..., 1000 ns: stop_at is inclusive */
    CHECK_EQ_U64(s.now, 1000 * SIM_NS);
    CHECK(event_queued(&t.ev));
    CHECK_EQ_U64(evq_peek_time(&s.q), 1100 * SIM_NS);
    s.stop_at = 1050 * SIM_NS; /* nothing due: the clock still advances to stop_at */
    CHECK_EQ_U64(sim_run(&s), 0);
    CHECK_EQ_U64(s.now, 1050 * SIM_NS);
    s.stop_at = 2000 * SIM_NS; /* resume */
    CHECK_EQ_U64(sim_run(&s), 10);
    CHECK_EQ_U64(t.id, 21);
    CHECK_EQ_U64(s.events, 21);
    CHECK(event_queued(&t.ev)); /* the tick at 2100 ns stays queued past stop_at */
    sim_free(&s); /* drops it without touching the event: its owner may be gone (evq.h) */
}

static void on_stop(void *ctx, event *ev)
{
    sim *s = ctx;
    order[norder++] = ((tev *)ev)->id;
    sim_stop(s);
}

static void test_stop(void)
{
    sim s;
    sim_init(&s, 1);
    tev a = {.id = 1}, b = {.id = 2};
    event_init(&a.ev, on_stop);
    event_init(&b.ev, on_fire);
    sim_at(&s, &a.ev, 5);
    sim_at(&s, &b.ev, 5);
    norder = 0;
    CHECK_EQ_U64(sim_run(&s), 1);
    CHECK_EQ_U64(norder, 1);
    CHECK(s.stopped);
    CHECK_EQ_U64(sim_run(&s), 0); /* sticky */
    s.stopped = false;
    CHECK_EQ_U64(sim_run(&s), 1);
    CHECK_EQ_U64(order[1], 2);
    sim_free(&s);
}

static int progress_calls;
static uint64_t progress_at[16];
static void on_progress(const sim *s, void *user)
{
    CHECK(user == &progress_calls);
    if (progress_calls < 16)
        progress_at[progress_calls] = s->events;
    progress_calls++;
}

static void test_progress(void)
{
    sim s;
    sim_init(&s, 1);
    tev t = {.id = 0};
    event_init(&t.ev, on_tick);
    sim_at(&s, &t.ev, 0);
    s.progress = on_progress;
    s.progress_user = &progress_calls;
    s.progress_every = 64;
    s.stop_at = 999 * 100 * SIM_NS; /* 1000 events */
    CHECK_EQ_U64(sim_run(&s), 1000);
    CHECK_EQ_U64(progress_calls, 1000 / 64);
    CHECK_EQ_U64(progress_at[0], 64);
    CHECK_EQ_U64(progress_at[14], 15 * 64);
    sim_free(&s);
}

/* Daemon events (periodic observers) run while the model has events, and never alone. */
static int dticks;
static event daemon_ev;
static void daemon_tick(void *ctx, event *ev)
{
    sim *s = ctx;
    s->daemons--;
    dticks++;
    sim_at(s, ev, s->now + 10);
    s->daemons++;
}
static void model_ev_fn(void *ctx, event *ev)
{
    (void)ctx;
    (void)ev;
}

static void test_daemons(void)
{
    sim s;
    sim_init(&s, 1);
    event model;
    event_init(&model, model_ev_fn);
    event_init(&daemon_ev, daemon_tick);
    dticks = 0;
    sim_at(&s, &daemon_ev, 10);
    s.daemons++;
    sim_at(&s, &model, 95);
    sim_run(&s);
    CHECK_EQ_U64(s.now, 95);   /* the run ends at the model's last event */
    CHECK_EQ_U64(dticks, 9);    /* ticks at 10..90 ran; the one at 100 is left queued */
    CHECK_EQ_U64(evq_size(&s.q), 1);
    sim_free(&s);
}

int main(void)
{
    TEST_RUN(test_order);
    TEST_RUN(test_stop_at);
    TEST_RUN(test_stop);
    TEST_RUN(test_progress);
    TEST_RUN(test_daemons);
    return tl_finish();
}
