/*
 * mpi.h — a sweep spread over the ranks of an MPI job (Open MPI: `mpirun -np 64 wirerate sweep
 * SWEEP.yaml`). Optional at build time (CMake finds MPI, or -DWR_MPI=OFF): without it these
 * functions report "not under MPI" and the sweep runs in the local pool.
 *
 * Roles: rank 0 is the coordinator. It owns the results database, hands out run ids one at a
 * time to whichever rank asks (dynamic load balancing: runs differ in length by orders of
 * magnitude) and inserts each result as it arrives, exactly as the local pool's parent does.
 * Every other rank is a worker: it runs a local pool (sweep/pool.h) of -j forked processes whose
 * `next` asks rank 0 for a run id and whose `done` sends the outcome (result rows, or the exit
 * status and stderr of a crashed run) back. Every rank reads the sweep file itself (a shared
 * file system, as under Slurm); they first agree on the sweep's definition hash, so ranks that
 * read different files refuse to start. Results are byte strings in the native layout: all
 * ranks must share one architecture.
 *
 * MPI is used only when the process was started by an MPI launcher with more than one rank
 * (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK set): `wirerate sweep` run directly never
 * initialises MPI.
 */
#ifndef WR_SWEEP_MPI_H
#define WR_SWEEP_MPI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/err.h"
#include "pool.h"
#include "sweep.h"

/* True when built with MPI. */
bool sweep_mpi_available(void);

/* Launched by an MPI launcher with more than one rank (its environment variables)? */
bool sweep_mpi_launched(void);
/* Initialise MPI when launched by mpirun with more than one rank: true with *rank and *size.
 * False otherwise (rank 0, size 1) — also in a build without MPI, where the caller should
 * refuse to run when sweep_mpi_launched() (every rank would run the whole sweep). */
bool sweep_mpi_init(int *argc, char ***argv, int *rank, int *size);
/* All ranks: agree on the definition hash. ERR_OK, or ERR_INVALID with *e on rank 0 naming the
 * first rank whose sweep differs. */
int sweep_mpi_agree(const sweep_def *s, err *e);
/* Finalize MPI when `mpi`. */
void sweep_mpi_finalize(bool mpi);

/* A worker rank: run tasks with `jobs` local processes until rank 0 has none left. */
int sweep_mpi_worker(const sweep_def *s, int jobs, pool_work_fn work, void *user,
                     volatile sig_atomic_t *stop, err *e);

/* Rank 0: hand out every run with done[id] false, report each outcome to `done_fn` (the same
 * callback as the local pool's), call `tick` about ten times a second. Returns when every worker
 * rank has finished. */
int sweep_mpi_coordinator(const sweep_def *s, const bool *done, pool_done_fn done_fn, void *user,
                          pool_tick_fn tick, volatile sig_atomic_t *stop, err *e);

#endif
