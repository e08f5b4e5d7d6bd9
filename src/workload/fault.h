/*
 * fault.h — timed events that change the world (models.md "Faults").
 *
 * Built here: `pfc-storm` — from `at`, NIC port `nic` keeps its leaf paused on every lossless
 * class (a PAUSE refreshed before it expires) until `at + duration`; the PFC watchdog's reason
 * to exist. `gpu-slow` — from `at`, GPU `gpu` runs its compute phases `factor`x longer: the
 * fault calls the hook registered with faults_on_gpu_slow (the run forwards it to its training
 * jobs; a compute phase already running keeps its duration, the next ones are slowed). Fault
 * kinds not built yet (link-down, link-up) are refused with an error at the fault's position
 * rather than silently ignored.
 */
#ifndef WR_WORKLOAD_FAULT_H
#define WR_WORKLOAD_FAULT_H

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"

typedef struct faults faults;

/* Validate sc->faults against the built network and schedule them. NULL + *e on bad input
 * (a scenario without faults gets an empty, valid object). */
faults *faults_new(net *n, const scenario *sc, err *e);
void faults_free(faults *f);
/* A gpu-slow fault fired: GPU `gpu` computes `factor`x slower from now on. */
typedef void (*fault_gpu_slow_fn)(void *ctx, uint32_t gpu, double factor);
/* Register the gpu-slow hook (one; replaces any earlier). Without one, gpu-slow has no effect. */
void faults_on_gpu_slow(faults *f, fault_gpu_slow_fn fn, void *ctx);

#endif
