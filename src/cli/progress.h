/*
 * progress.h — the progress line on stderr during `wirerate run`:
 *
 *     sim 1.234 ms (12.3 %) | wall 3.2 s | 8.41 M events/s | ETA 22 s
 *
 * Shown only when stderr is a terminal and --quiet is absent (spec/scenario.md CLI). Redrawn in
 * place with '\r' at most 4 times per second — the simulator calls back every ~1M events, which
 * can be tens of times per second — and erased before anything else is printed. ETA (and the
 * percentage) only when the scenario has a stop_at, extrapolating simulated time per wall second.
 */
#ifndef WR_CLI_PROGRESS_H
#define WR_CLI_PROGRESS_H

#include <stdbool.h>

#include "../core/sim.h"

typedef struct progress {
    bool enabled;
    double t0_s;   /* monotonic wall clock at start */
    double last_s; /* last redraw */
    int width;     /* characters on screen, to erase */
} progress;

/* Monotonic wall-clock seconds. */
double progress_clock(void);
void progress_init(progress *p, bool enabled);
/* sim_progress_fn; `user` is the progress. */
void progress_update(const sim *s, void *user);
/* Erase the line (no-op if nothing was drawn). */
void progress_clear(progress *p);

#endif
