/*
 * tenant.c — tenant ownership of GPUs and NIC ports, and the isolation checks (tenant.h).
 */
#include "tenant.h"

#include <stdio.h>
#include <string.h>

#include "../core/alloc.h"

static uint32_t *filled(uint32_t n, uint32_t v, const char *what)
{
    uint32_t *a = xmalloc(sizeof(uint32_t) * (n ? n : 1), what);
    for (uint32_t i = 0; i < n; i++)
        a[i] = v;
    return a;
}

/* Claim GPU g (when gpu) or NIC port h for job j of tenant t; records the first conflict. */
static void claim(const scenario *sc, const net *n, tenant_map *m, bool gpu, uint32_t x, uint32_t j,
                  uint32_t t)
{
    uint32_t *owner = gpu ? m->gpu_tenant : m->host_tenant;
    uint32_t *by = gpu ? m->gpu_job : m->host_job;
    if (owner[x] == CFG_NO_TENANT) {
        owner[x] = t;
        by[x] = j;
        (gpu ? m->gpus_of : m->hosts_of)[t]++;
        return;
    }
    if (owner[x] == t || m->conflict)
        return;
    m->conflict = true;
    m->job_a = by[x];
    m->job_b = j;
    char what[64];
    if (gpu)
        snprintf(what, sizeof what, "GPU %u", x);
    else
        snprintf(what, sizeof what, "NIC port %s", n->hosts[x]->name);
    snprintf(m->why, sizeof m->why,
             "%s is used by job \"%s\" (tenant %s, VNI %u) and job \"%s\" (tenant %s, VNI %u): "
             "one %s cannot sit in two tenants' VRFs",
             what, sc->jobs[by[x]].name, sc->tenants[owner[x]].name, sc->tenants[owner[x]].vni,
             sc->jobs[j].name, sc->tenants[t].name, sc->tenants[t].vni, gpu ? "GPU" : "NIC port");
}

/* A GPU and every port of its NIC. */
static void claim_gpu(const scenario *sc, const net *n, tenant_map *m, uint32_t g, uint32_t j,
                      uint32_t t)
{
    if (g >= m->n_gpus)
        return;
    claim(sc, n, m, true, g, j, t);
    uint32_t ports = sc->fabric.nic_ports ? sc->fabric.nic_ports : 1;
    for (uint32_t p = 0; p < ports; p++) {
        uint32_t h = net_gpu_host(n, g, p);
        if (h < m->n_hosts)
            claim(sc, n, m, false, h, j, t);
    }
}

bool tenant_map_build(const scenario *sc, const net *n, tenant_map *m)
{
    memset(m, 0, sizeof *m);
    if (!sc->n_tenants)
        return true;
    m->n_hosts = n->n_hosts;
    m->n_gpus = net_gpus(n);
    m->host_tenant = filled(m->n_hosts, CFG_NO_TENANT, "tenant of each host");
    m->host_job = filled(m->n_hosts, UINT32_MAX, "job of each host");
    m->gpu_tenant = filled(m->n_gpus, CFG_NO_TENANT, "tenant of each GPU");
    m->gpu_job = filled(m->n_gpus, UINT32_MAX, "job of each GPU");
    m->hosts_of = filled(sc->n_tenants, 0, "hosts per tenant");
    m->gpus_of = filled(sc->n_tenants, 0, "GPUs per tenant");
    for (uint32_t j = 0; j < sc->n_jobs; j++) {
        const cfg_job *job = &sc->jobs[j];
        uint32_t t = job->tenant;
        if (t >= sc->n_tenants)
            continue;
        if (job->kind == JOB_TRAFFIC) {
            uint32_t k = job->hosts.all ? m->n_hosts : job->hosts.n;
            for (uint32_t i = 0; i < k; i++) {
                uint32_t h = job->hosts.all ? i : job->hosts.idx[i];
                if (h >= m->n_hosts)
                    continue;
                claim(sc, n, m, false, h, j, t);
                /* the GPUs that NIC port serves */
                uint32_t per = sc->fabric.gpus_per_nic ? sc->fabric.gpus_per_nic : 1;
                for (uint32_t g = n->hosts[h]->gpu; g < n->hosts[h]->gpu + per && g < m->n_gpus;
                     g++)
                    claim(sc, n, m, true, g, j, t);
            }
        } else {
            uint32_t k = job->ranks.all ? m->n_gpus : job->ranks.n;
            for (uint32_t r = 0; r < k; r++)
                claim_gpu(sc, n, m, job->ranks.all ? r : job->ranks.idx[r], j, t);
        }
    }
    return !m->conflict;
}

void tenant_map_free(tenant_map *m)
{
    xfree(m->host_tenant);
    xfree(m->host_job);
    xfree(m->gpu_tenant);
    xfree(m->gpu_job);
    xfree(m->hosts_of);
    xfree(m->gpus_of);
    memset(m, 0, sizeof *m);
}

bool tenant_route_leak(const scenario *sc, char *why, size_t cap)
{
    for (uint32_t i = 0; i < sc->n_tenants; i++) {
        const cfg_tenant *t = &sc->tenants[i];
        if (!t->n_import)
            continue;
        const cfg_tenant *o = &sc->tenants[t->import[0]];
        snprintf(why, cap,
                 "tenant %s (VNI %u) imports the routes of tenant %s (VNI %u): its VRF reaches "
                 "%s's hosts (a route leak across tenants; remove tenants[%u].import)",
                 t->name, t->vni, o->name, o->vni, o->name, i);
        return true;
    }
    return false;
}
