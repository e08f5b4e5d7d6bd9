/*
 * fault.h — timed events that change the world (models.md "Faults").
 *
 * Built here: `pfc-storm` — from `at`, NIC port `nic` keeps its leaf paused on every lossless
 * class (a PAUSE refreshed before it expires) until `at + duration`; the PFC watchdog's reason
 * to exist. Fault kinds not built yet (link-down, link-up, gpu-slow) are refused with an error
 * at the fault's position rather than silently ignored.
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

#endif
