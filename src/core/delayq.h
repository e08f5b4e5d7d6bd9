/*
 * delayq.h — many timed items, one event: a fixed-capacity binary min-heap of (time, id) whose
 * head is the one event in the simulation's queue. Executors use it for what would otherwise be
 * an event object per task (compute phases, reduction delays): the event set stays small and
 * nothing is allocated after init. Items due at the same time come out in id order, so results
 * do not depend on insertion order. delayq_check() verifies the heap property (tests).
 */
#ifndef WR_CORE_DELAYQ_H
#define WR_CORE_DELAYQ_H

#include <stdbool.h>
#include <stdint.h>

#include "evq.h"
#include "sim.h"
#include "time.h"

/* Called for each item whose time has come, in (time, id) order. */
typedef void (*delayq_fn)(void *ctx, uint32_t id);

typedef struct delayq_item {
    sim_time t;
    uint32_t id;
} delayq_item;

typedef struct delayq {
    event ev;                  /* fires at the head's time */
    sim *sim;
    delayq_item *heap;
    uint32_t n, cap;
    delayq_fn fn;
    void *ctx;
} delayq;

/* Room for `cap` items at once (allocated now; a push beyond it aborts naming the cap). */
void delayq_init(delayq *d, sim *s, uint32_t cap, delayq_fn fn, void *ctx);
/* Cancels the event (if queued) and frees the heap. */
void delayq_free(delayq *d);
/* Item `id` is due at `t` (≥ now). No allocation. */
void delayq_push(delayq *d, sim_time t, uint32_t id);
bool delayq_check(const delayq *d);
/* Drop every item (their time will not come); the event is cancelled. */
void delayq_clear(delayq *d);

#endif
