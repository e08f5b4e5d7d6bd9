/*
 * traffic.c — synthetic traffic patterns (see traffic.h). Runs at build time only.
 */
#include "traffic.h"

#include <stdio.h>

#include "../core/alloc.h"
#include "../core/rng.h"

/* The job's host list: all hosts, or the configured indices. Returns a new array. */
static uint32_t *host_list(const cfg_job *job, uint32_t n_hosts, uint32_t *n_out)
{
    if (job->hosts.all) {
        uint32_t *v = xmalloc(sizeof(uint32_t) * (n_hosts ? n_hosts : 1), "host list");
        for (uint32_t i = 0; i < n_hosts; i++)
            v[i] = i;
        *n_out = n_hosts;
        return v;
    }
    uint32_t *v = xmalloc(sizeof(uint32_t) * (job->hosts.n ? job->hosts.n : 1), "host list");
    for (uint32_t i = 0; i < job->hosts.n; i++)
        v[i] = job->hosts.idx[i];
    *n_out = job->hosts.n;
    return v;
}

static const char *job_path(uint32_t j, char *buf, size_t len)
{
    snprintf(buf, len, "workload[%u]", j);
    return buf;
}

uint64_t traffic_flow_count(const scenario *sc, uint32_t j, uint32_t n_hosts, err *e)
{
    const cfg_job *job = &sc->jobs[j];
    char path[32];
    job_path(j, path, sizeof path);
    if (job->pattern == PAT_UNIFORM) {
        char key[48];
        snprintf(key, sizeof key, "workload.%u.pattern", j);
        config_error_at(sc, e, key,
                        "%s.pattern: \"uniform\" is not available yet in this version "
                        "(available: permutation, incast, all-to-all)",
                        path);
        return 0;
    }
    if (!job->hosts.all)
        for (uint32_t i = 0; i < job->hosts.n; i++)
            if (job->hosts.idx[i] >= n_hosts) {
                char key[48];
                snprintf(key, sizeof key, "workload.%u.hosts", j);
                config_error_at(sc, e, key,
                                "%s.hosts: host %u does not exist: the fabric has %u hosts "
                                "(0..%u)",
                                path, job->hosts.idx[i], n_hosts, n_hosts ? n_hosts - 1 : 0);
                return 0;
            }
    uint32_t n;
    uint32_t *v = host_list(job, n_hosts, &n);
    xfree(v);
    if (n < 2) {
        char key[48];
        snprintf(key, sizeof key, "workload.%u.hosts", j);
        config_error_at(sc, e, key, "%s.hosts: the %s pattern needs at least 2 hosts, got %u", path,
                        pattern_name(job->pattern), n);
        return 0;
    }
    switch (job->pattern) {
    case PAT_PERMUTATION: return n;
    case PAT_INCAST: return n - 1;
    case PAT_ALL_TO_ALL: return (uint64_t)n * (n - 1);
    default: return 0;
    }
}

void traffic_pairs(const scenario *sc, uint32_t j, uint32_t n_hosts, traffic_pair_fn fn, void *ctx)
{
    const cfg_job *job = &sc->jobs[j];
    uint32_t n;
    uint32_t *v = host_list(job, n_hosts, &n);
    switch (job->pattern) {
    case PAT_PERMUTATION: {
        rng r;
        rng_init(&r, sc->seed, RNG_ID(RNG_KIND_JOB, j));
        uint32_t *dst = xmalloc(sizeof(uint32_t) * n, "permutation");
        for (;;) { /* uniform derangement by rejection: ~e tries on average */
            for (uint32_t i = 0; i < n; i++)
                dst[i] = i;
            for (uint32_t i = n - 1; i > 0; i--) {
                uint32_t k = (uint32_t)rng_below(&r, i + 1);
                uint32_t x = dst[i];
                dst[i] = dst[k];
                dst[k] = x;
            }
            uint32_t i = 0;
            while (i < n && dst[i] != i)
                i++;
            if (i == n)
                break;
        }
        for (uint32_t i = 0; i < n; i++)
            fn(ctx, v[i], v[dst[i]]);
        xfree(dst);
        break;
    }
    case PAT_INCAST:
        for (uint32_t i = 1; i < n; i++)
            fn(ctx, v[i], v[0]);
        break;
    case PAT_ALL_TO_ALL:
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < n; k++)
                if (i != k)
                    fn(ctx, v[i], v[k]);
        break;
    default: break;
    }
    xfree(v);
}
