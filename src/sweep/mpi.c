/*
 * mpi.c — the sweep over MPI ranks (see mpi.h). Compiled with WR_HAVE_MPI when CMake found MPI;
 * otherwise the stubs at the end say "not under MPI" and the local pool runs the sweep.
 *
 * Messages (MPI_COMM_WORLD, all blocking point-to-point; rank 0 polls with MPI_Iprobe so it can
 * update the progress bar and notice a signal):
 *   worker -> 0  TAG_REQ     empty: "a local slot is free, give me a run"
 *   0 -> worker  TAG_TASK    int64 run id, or -1: no more runs (for this rank, ever)
 *   worker -> 0  TAG_RESULT  a header (run id, exited-ok flag, exit status, signal, wall time,
 *                            lengths) then the result rows and the end of the worker's stderr
 *   worker -> 0  TAG_BYE     empty: this rank has reported everything it ran
 * The coordinator stops when every worker said bye.
 */
#define _POSIX_C_SOURCE 200809L

#include "mpi.h"

#include <stdlib.h>
#include <string.h>

/* The launchers' environment: Open MPI's mpirun, MPICH/Hydra (PMI), Slurm srun with PMIx. */
bool sweep_mpi_launched(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v)
        v = getenv("PMI_SIZE");
    if (!v && getenv("PMIX_RANK")) /* PMIx (Slurm srun --mpi=pmix): the job's task count */
        v = getenv("SLURM_NTASKS") ? getenv("SLURM_NTASKS") : "2";
    return v && atoi(v) > 1;
}

#ifdef WR_HAVE_MPI

#include <mpi.h>
#include <time.h>

#include "../core/alloc.h"

enum { TAG_REQ = 1, TAG_TASK, TAG_RESULT, TAG_BYE };

bool sweep_mpi_available(void)
{
    return true;
}

bool sweep_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    if (!sweep_mpi_launched())
        return false;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (*size < 2) {
        MPI_Finalize();
        *rank = 0;
        *size = 1;
        return false;
    }
    return true;
}

void sweep_mpi_finalize(bool mpi)
{
    if (mpi)
        MPI_Finalize();
}

int sweep_mpi_agree(const sweep_def *s, err *e)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long mine = s->hash, root = mine;
    MPI_Bcast(&root, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    int differs = root != mine ? rank : size, first;
    MPI_Allreduce(&differs, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first < size)
        return err_set(e, ERR_INVALID, s->file, 0, 0,
                       "MPI rank %d read a different sweep than rank 0 (the sweep file or its "
                       "base scenario differ between the ranks' file systems)",
                       first);
    return ERR_OK;
}

/* ---- worker rank --------------------------------------------------------------------- */

typedef struct wctx {
    bool exhausted;
} wctx;

static bool w_next(void *user, uint32_t *task)
{
    wctx *w = user;
    if (w->exhausted)
        return false;
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD);
    long long id;
    MPI_Recv(&id, 1, MPI_LONG_LONG, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (id < 0) {
        w->exhausted = true;
        return false;
    }
    *task = (uint32_t)id;
    return true;
}

typedef struct msg_head {
    uint32_t task;
    int32_t ok, exit_status, signal;
    double wall_s;
    uint64_t len;
    uint32_t tail_len;
} msg_head;

static int w_done(void *user, const pool_outcome *o, err *e)
{
    (void)user;
    (void)e;
    size_t tl = strlen(o->stderr_tail ? o->stderr_tail : "");
    msg_head h = {o->task, o->ok, o->exit_status, o->signal, o->wall_s, o->len, (uint32_t)tl};
    size_t n = sizeof h + o->len + tl;
    uint8_t *b = xmalloc(n, "MPI result");
    memcpy(b, &h, sizeof h);
    if (o->len)
        memcpy(b + sizeof h, o->bytes, o->len);
    if (tl)
        memcpy(b + sizeof h + o->len, o->stderr_tail, tl);
    /* results of big fabrics may exceed 2^31 bytes only with millions of ports: not supported */
    MPI_Send(b, (int)n, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
    xfree(b);
    return ERR_OK;
}

/* The pool's work function with the caller's context (the worker's pool passes wctx). */
static pool_work_fn g_work;
static void *g_user;
static int w_work(void *user, uint32_t task, int fd)
{
    (void)user;
    return g_work(g_user, task, fd);
}

int sweep_mpi_worker(const sweep_def *s, int jobs, pool_work_fn work, void *user,
                     volatile sig_atomic_t *stop, err *e)
{
    (void)s;
    wctx w = {false};
    g_work = work;
    g_user = user;
    pool_spec ps = {.workers = jobs,
                    .work = w_work,
                    .next = w_next,
                    .done = w_done,
                    .tick = NULL,
                    .user = &w,
                    .stop = stop};
    int rc = pool_run(&ps, e);
    /* a rank that stopped early (signal, fork failure) still tells rank 0 it will ask no more */
    if (!w.exhausted) {
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_REQ, MPI_COMM_WORLD);
        long long id;
        MPI_Recv(&id, 1, MPI_LONG_LONG, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* a run handed out now is not run: rank 0 does not record it, a resume will */
    }
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_BYE, MPI_COMM_WORLD);
    return rc;
}

/* ---- rank 0 ---------------------------------------------------------------------------- */

int sweep_mpi_coordinator(const sweep_def *s, const bool *done, pool_done_fn done_fn, void *user,
                          pool_tick_fn tick, volatile sig_atomic_t *stop, err *e)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int alive = size - 1, rc = ERR_OK;
    uint32_t next = 0;
    uint8_t *buf = NULL;
    size_t cap = 0;
    struct timespec nap = {0, 1000000}; /* 1 ms between polls when idle */
    int idle = 0;
    while (alive > 0) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (!flag) {
            nanosleep(&nap, NULL);
            if (tick && ++idle % 100 == 0)
                tick(user);
            continue;
        }
        int src = st.MPI_SOURCE;
        if (st.MPI_TAG == TAG_REQ) {
            MPI_Recv(NULL, 0, MPI_BYTE, src, TAG_REQ, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            while (next < s->n_runs && done[next])
                next++;
            long long id = -1;
            if (next < s->n_runs && !(stop && *stop) && rc == ERR_OK)
                id = next++;
            MPI_Send(&id, 1, MPI_LONG_LONG, src, TAG_TASK, MPI_COMM_WORLD);
        } else if (st.MPI_TAG == TAG_RESULT) {
            int n;
            MPI_Get_count(&st, MPI_BYTE, &n);
            if ((size_t)n > cap) {
                cap = (size_t)n;
                buf = xrealloc(buf, cap, "MPI result");
            }
            MPI_Recv(buf, n, MPI_BYTE, src, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            msg_head h;
            if ((size_t)n < sizeof h)
                continue;
            memcpy(&h, buf, sizeof h);
            if (sizeof h + h.len + h.tail_len != (size_t)n || h.task >= s->n_runs)
                continue;
            char *tail = xmalloc(h.tail_len + 1, "worker stderr");
            memcpy(tail, buf + sizeof h + h.len, h.tail_len);
            tail[h.tail_len] = '\0';
            pool_outcome o = {.task = h.task,
                              .ok = h.ok,
                              .exit_status = h.exit_status,
                              .signal = h.signal,
                              .bytes = buf + sizeof h,
                              .len = h.len,
                              .stderr_tail = tail,
                              .wall_s = h.wall_s};
            if (rc == ERR_OK)
                rc = done_fn(user, &o, e);
            xfree(tail);
        } else if (st.MPI_TAG == TAG_BYE) {
            MPI_Recv(NULL, 0, MPI_BYTE, src, TAG_BYE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            alive--;
        } else {
            /* not ours: receive and drop so the loop cannot spin on it */
            int n;
            MPI_Get_count(&st, MPI_BYTE, &n);
            uint8_t *junk = xmalloc(n > 0 ? (size_t)n : 1, "MPI message");
            MPI_Recv(junk, n, MPI_BYTE, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            xfree(junk);
        }
        if (tick && ++idle % 100 == 0)
            tick(user);
    }
    xfree(buf);
    return rc;
}

#else /* no MPI in this build */

bool sweep_mpi_available(void)
{
    return false;
}

bool sweep_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *size = 1;
    return false;
}

int sweep_mpi_agree(const sweep_def *s, err *e)
{
    (void)s;
    (void)e;
    return ERR_OK;
}

void sweep_mpi_finalize(bool mpi)
{
    (void)mpi;
}

int sweep_mpi_worker(const sweep_def *s, int jobs, pool_work_fn work, void *user,
                     volatile sig_atomic_t *stop, err *e)
{
    (void)s;
    (void)jobs;
    (void)work;
    (void)user;
    (void)stop;
    return err_set(e, ERR_RUN, "", 0, 0, "this wirerate was built without MPI");
}

int sweep_mpi_coordinator(const sweep_def *s, const bool *done, pool_done_fn done_fn, void *user,
                          pool_tick_fn tick, volatile sig_atomic_t *stop, err *e)
{
    (void)s;
    (void)done;
    (void)done_fn;
    (void)user;
    (void)tick;
    (void)stop;
    return err_set(e, ERR_RUN, "", 0, 0, "this wirerate was built without MPI");
}

#endif
