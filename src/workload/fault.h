/*
 * fault.h — timed events that change the world (models.md "Faults").
 *
 * Built here: `pfc-storm` — from `at`, NIC port `nic` keeps its leaf paused on every lossless
 * class (a PAUSE refreshed before it expires) until `at + duration`; the PFC watchdog's reason
 * to exist. `gpu-slow` — from `at`, GPU `gpu` runs its compute phases `factor`x longer: the
 * fault calls the hook registered with faults_on_gpu_slow (the run forwards it to its training
 * jobs; a compute phase already running keeps its duration, the next ones are slowed).
 * `link-down` / `link-up` — at `at` the link "A-B" (both directions) stops or resumes: frames
 * queued for it or on it are dropped (link_down) and the transport recovers by NAK/RTO; after
 * `detect` + `converge` (BFD-like detection, then BGP/FIB update; defaults 1 ms and 4 ms)
 * routing is recomputed over the links that are up. Until then ECMP keeps hashing onto the dead
 * link, as a real fabric does before it converges. After a failure the shortest paths may
 * include valleys (see docs/network.md), which `check` would flag for PFC deadlock.
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
/* A link fault fired: the link of port p (both directions) just went down (up = false) or up. */
typedef void (*fault_link_fn)(void *ctx, port *p, bool up);
/* Register the link hook (one; replaces any earlier): the run's dual-port failover. */
void faults_on_link(faults *f, fault_link_fn fn, void *ctx);
/* pfc-storms without `duration` ("until the end"): how many the scenario has. */
uint32_t faults_endless_storms(const faults *f);
/* The jobs are over: end every storm without `duration` now (those not started never start),
 * so a storm "until the end" ends with the jobs instead of keeping the run alive. */
void faults_end_endless_storms(faults *f);

#endif
