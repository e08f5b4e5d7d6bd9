/*
 * tenant.h — which tenant (EVPN-VXLAN VRF, scenario `tenants:`) owns each GPU and NIC port, and
 * the isolation proof `check` prints and `run` relies on.
 *
 * A job's flows only ever join the NIC ports of its own GPUs (collective and training ranks:
 * the GPUs named in `ranks` and every port of their NICs; traffic jobs: the hosts in `hosts`).
 * A tenant's VRF holds routes to exactly its jobs' NIC ports (EVPN type-2/type-5 routes
 * exported with the tenant's route target; RFC 8365, RFC 9136) plus those of the tenants it
 * imports. So when no GPU and no NIC port belongs to two tenants and no tenant imports another,
 * no flow of one tenant has an endpoint in another and no route crosses tenants.
 */
#ifndef WR_WORKLOAD_TENANT_H
#define WR_WORKLOAD_TENANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../config/config.h"
#include "../net/net.h"

typedef struct tenant_map {
    uint32_t n_hosts, n_gpus;
    uint32_t *host_tenant, *host_job; /* [n_hosts]: owner (CFG_NO_TENANT/UINT32_MAX: unused) */
    uint32_t *gpu_tenant, *gpu_job;   /* [n_gpus] */
    uint32_t *hosts_of, *gpus_of;     /* [n_tenants]: NIC ports and GPUs each tenant holds */
    /* the first conflict found (conflict true): a GPU or NIC port two tenants' jobs share */
    bool conflict;
    uint32_t job_a, job_b; /* the job that claimed it first, and the other one */
    char why[320];
} tenant_map;

/* Assign every GPU and NIC port of sc's jobs to their tenants on topology n (borrowed).
 * Returns false (m->conflict, m->why) when two tenants share one. GPUs and hosts outside the
 * topology are skipped (the job's own build reports them). m is filled either way; free it
 * with tenant_map_free. Without tenants: all arrays NULL, returns true. */
bool tenant_map_build(const scenario *sc, const net *n, tenant_map *m);
void tenant_map_free(tenant_map *m);
/* A route leak: the first tenant importing another's routes. False when there is none. */
bool tenant_route_leak(const scenario *sc, char *why, size_t cap);

#endif
