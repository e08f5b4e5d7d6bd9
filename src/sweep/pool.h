/*
 * pool.h — run tasks in forked worker processes, at most N at a time, and hand their output
 * back to the parent.
 *
 * Each task runs in a fresh child process (fork per task): a run that crashes, aborts on a
 * broken invariant or is killed takes nothing else down, and no run can leave state behind for
 * the next. The child writes its result bytes to a pipe and exits 0; the parent collects them
 * with poll(2), together with the end of what the child wrote on stderr (kept to name the cause
 * of a failure), and reports every task exactly once through `done`, in completion order.
 * Ordering the results is the caller's business (the results database keys rows by run id).
 *
 * Children die with the parent (PR_SET_PDEATHSIG on Linux, and a closed pipe everywhere), so a
 * killed sweep leaves no orphans still simulating. Library code: nothing prints.
 */
#ifndef WR_SWEEP_POOL_H
#define WR_SWEEP_POOL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/err.h"

/* Runs in the child: produce the task's result and write it with pool_write_all to fd. The
 * return value is the child's exit status (0 = the result is complete). */
typedef int (*pool_work_fn)(void *user, uint32_t task, int fd);
/* The next task to start: true and *task, or false when there is none (now or ever). */
typedef bool (*pool_next_fn)(void *user, uint32_t *task);

typedef struct pool_outcome {
    uint32_t task;
    bool ok;              /* exited 0 */
    int exit_status;      /* exit status when it exited, else -1 */
    int signal;           /* the signal that killed it, else 0 */
    const uint8_t *bytes; /* what it wrote to its result pipe (borrowed until done returns) */
    size_t len;
    const char *stderr_tail; /* the last few KB it wrote on stderr ("" if nothing) */
    double wall_s;           /* fork to exit */
} pool_outcome;

/* The parent's handling of a finished task; a nonzero return stops the pool with that code
 * (e.g. the database cannot be written). */
typedef int (*pool_done_fn)(void *user, const pool_outcome *o, err *e);
/* Called about ten times a second while tasks run (progress display); may be NULL. */
typedef void (*pool_tick_fn)(void *user);

typedef struct pool_spec {
    int workers; /* at most this many children at a time (>= 1) */
    pool_work_fn work;
    pool_next_fn next;
    pool_done_fn done;
    pool_tick_fn tick;
    void *user;
    /* Set (by a signal handler) to stop: no new task starts, running children get SIGTERM, and
     * tasks they did not finish are not reported. */
    volatile sig_atomic_t *stop;
} pool_spec;

/* Run tasks until `next` has none and every child has been reported. ERR_OK; ERR_RUN when a
 * fork or pipe fails (with *e); the `done` return code when it stopped the pool. */
int pool_run(const pool_spec *p, err *e);

/* write(2) everything, retrying short writes; 0 or -1. */
int pool_write_all(int fd, const void *buf, size_t len);

/* "killed by signal 11 (SIGSEGV)" / "exited with status 3" into buf. */
char *pool_describe(const pool_outcome *o, char *buf, size_t len);

#endif
