/*
 * test_delayq.c — the delay queue: items come out at their time, in (time, id) order, from one
 * event; pushes from inside the callback (new heads included) are honoured; the heap property
 * holds after every push.
 */
#include <stdlib.h>

#include "core/delayq.h"
#include "core/rng.h"
#include "testlib.h"

typedef struct rec {
    delayq *d;
    sim *s;
    sim_time last_t;
    uint32_t last_id;
    uint32_t seen;
    bool in_order;
    rng r;
    uint32_t chained;          /* items pushed from callbacks */
    sim_time *due;             /* due[id] */
} rec;

static void on_due(void *ctx, uint32_t id)
{
    rec *c = ctx;
    sim_time now = c->s->now;
    if (now != c->due[id])
        c->in_order = false;
    if (c->seen && (now < c->last_t || (now == c->last_t && id < c->last_id && id < 100000)))
        c->in_order = false;
    c->last_t = now;
    c->last_id = id;
    c->seen++;
    /* every tenth item schedules a follower, sometimes due right now */
    if (id % 10 == 0 && c->chained < 1000) {
        uint32_t nid = 100000 + c->chained++;
        sim_time t = now + (rng_below(&c->r, 3) == 0 ? 0 : rng_below(&c->r, 1000));
        c->due[nid] = t;
        delayq_push(c->d, t, nid);
    }
}

static void test_order(void)
{
    sim s;
    sim_init(&s, 1);
    delayq d;
    rec c = {.d = &d, .s = &s, .in_order = true};
    c.due = calloc(200000, sizeof(sim_time));
    rng_init(&c.r, 7, RNG_ID(RNG_KIND_TEST, 1));
    delayq_init(&d, &s, 20000, on_due, &c);
    int ok = 1;
    for (uint32_t i = 0; i < 10000; i++) {
        sim_time t = rng_below(&c.r, 5000); /* many equal times */
        c.due[i] = t;
        delayq_push(&d, t, i);
        ok &= delayq_check(&d);
    }
    CHECK(ok);
    sim_run(&s);
    CHECK_EQ_U64(c.seen, 10000 + c.chained);
    CHECK(c.chained > 0);
    CHECK(c.in_order);
    CHECK_EQ_U64(d.n, 0);
    CHECK(evq_size(&s.q) == 0);
    delayq_free(&d);
    sim_free(&s);
    free(c.due);
}

int main(void)
{
    TEST_RUN(test_order);
    return tl_finish();
}
