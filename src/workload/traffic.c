/*
 * traffic.c — synthetic traffic patterns (see traffic.h). Runs at build time only.
 */
#include "traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

double traffic_mean_bytes(const cfg_job *job)
{
    return job->size_cdf.n ? cdf_mean(&job->size_cdf) : (double)job->size_bytes;
}

double traffic_arrival_rate(const cfg_job *job, const scenario *sc, uint32_t n)
{
    double mean = traffic_mean_bytes(job);
    if (mean <= 0)
        return 0;
    uint64_t bps =
        job->network == NETWORK_FRONTEND ? sc->fabric.frontend.nic_bps : sc->fabric.host_link_bps;
    return (double)n * job->load * (double)bps / (8.0 * mean);
}

static uint64_t flow_bytes(const cfg_job *job, rng *r)
{
    return job->size_cdf.n ? cdf_quantile(&job->size_cdf, rng_unit(r)) : job->size_bytes;
}

/* list: the order flows are handed out in — timed ones by start (ties in file order), then the
 * waiting ones in file order. Returns a new array of the job's n_flows indices. */
static const cfg_job *order_job; /* qsort has no context argument; build time only */
static int cmp_start(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const cfg_flow *x = &order_job->flows[a], *y = &order_job->flows[b];
    sim_time ta = x->n_after ? TRAFFIC_AFTER : x->start_ps,
             tb = y->n_after ? TRAFFIC_AFTER : y->start_ps;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    return a < b ? -1 : a > b;
}

static uint32_t *list_order(const cfg_job *job)
{
    uint32_t *o = xmalloc(sizeof(uint32_t) * (job->n_flows ? job->n_flows : 1), "flow order");
    for (uint32_t i = 0; i < job->n_flows; i++)
        o[i] = i;
    order_job = job;
    qsort(o, job->n_flows, sizeof *o, cmp_start);
    order_job = NULL;
    return o;
}

/* Generate (fn != NULL) or count the flows of job j over host list v[n]; returns the count. */
static uint64_t generate(const scenario *sc, uint32_t j, const uint32_t *v, uint32_t n,
                         uint32_t n_space, traffic_flow_fn fn, void *ctx)
{
    const cfg_job *job = &sc->jobs[j];
    rng r;
    rng_init(&r, sc->seed, RNG_ID(RNG_KIND_JOB, j));
    uint64_t total = 0;
    uint32_t *dst =
        job->pattern == PAT_PERMUTATION ? xmalloc(sizeof(uint32_t) * n, "permutation") : NULL;
    /* uniform: mean inter-arrival time of the whole job's process, in ps */
    double rate = job->pattern == PAT_UNIFORM ? traffic_arrival_rate(job, sc, n) : 0;
    double mean_ps = rate > 0 ? 1e12 / rate : 0;
    uint32_t *order = job->pattern == PAT_LIST ? list_order(job) : NULL;
    for (uint32_t it = 0; it < job->iterations; it++) {
        traffic_flow f = {0, 0, 0, 0, it, 0};
        switch (job->pattern) {
        case PAT_LIST:
            for (uint32_t i = 0; i < job->n_flows; i++, total++) {
                const cfg_flow *c = &job->flows[order[i]];
                f.src = c->src;
                f.dst = c->dst;
                f.bytes = c->bytes;
                f.at_ps = c->n_after ? TRAFFIC_AFTER : c->start_ps;
                f.item = order[i];
                if (fn)
                    fn(ctx, &f);
            }
            break;
        case PAT_PERMUTATION:
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
            for (uint32_t i = 0; i < n; i++, total++) {
                f.src = v[i];
                f.dst = v[dst[i]];
                f.bytes = flow_bytes(job, &r);
                if (fn)
                    fn(ctx, &f);
            }
            break;
        case PAT_INCAST:
            for (uint32_t i = 1; i < n; i++, total++) {
                f.src = v[i];
                f.dst = v[0];
                f.bytes = flow_bytes(job, &r);
                if (fn)
                    fn(ctx, &f);
            }
            break;
        case PAT_ALL_TO_ALL:
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t k = 0; k < n; k++)
                    if (i != k) {
                        f.src = v[i];
                        f.dst = v[k];
                        f.bytes = flow_bytes(job, &r);
                        total++;
                        if (fn)
                            fn(ctx, &f);
                    }
            break;
        case PAT_STORAGE_WRITE:
        case PAT_STORAGE_READ:
            /* client i and storage server i mod S (numbered n_space + k): striped evenly, as a
             * parallel file system spreads its clients over its servers */
            for (uint32_t i = 0; i < n; i++, total++) {
                uint32_t srv = n_space + i % sc->fabric.storage.servers;
                f.src = job->pattern == PAT_STORAGE_WRITE ? v[i] : srv;
                f.dst = job->pattern == PAT_STORAGE_WRITE ? srv : v[i];
                f.bytes = flow_bytes(job, &r);
                if (fn)
                    fn(ctx, &f);
            }
            break;
        case PAT_UNIFORM: {
            double t = 0;
            for (uint64_t k = 0; !job->count || k < job->count; k++) {
                /* exponential gap by inversion; 1 - u in (0, 1] keeps the log finite */
                t += -log(1.0 - rng_unit(&r)) * mean_ps;
                if (job->duration_ps && t >= (double)job->duration_ps)
                    break;
                if (t >= (double)SIM_TIME_INPUT_MAX)
                    break; /* beyond any clock (traffic_flow_count refuses such jobs) */
                uint32_t s = (uint32_t)rng_below(&r, n);
                uint32_t d = (uint32_t)((s + 1 + rng_below(&r, n - 1)) % n);
                f.src = v[s];
                f.dst = v[d];
                f.at_ps = (sim_time)llround(t);
                f.bytes = flow_bytes(job, &r);
                total++;
                if (fn)
                    fn(ctx, &f);
            }
            break;
        }
        }
    }
    xfree(dst);
    xfree(order);
    return total;
}

uint64_t traffic_flow_count(const scenario *sc, uint32_t j, uint32_t n_hosts, err *e)
{
    const cfg_job *job = &sc->jobs[j];
    char path[32], key[48];
    job_path(j, path, sizeof path);
    if (job->pattern == PAT_LIST) {
        for (uint32_t i = 0; i < job->n_flows; i++) {
            const cfg_flow *c = &job->flows[i];
            uint32_t h = c->src >= n_hosts ? c->src : c->dst;
            if (h >= n_hosts) {
                err_set(e, ERR_INVALID, sc->file, c->line, c->col,
                        "%s.flows[%u]: host %u does not exist: the fabric has %u hosts (0..%u)",
                        path, i, h, n_hosts, n_hosts ? n_hosts - 1 : 0);
                return 0;
            }
        }
        if ((double)job->n_flows * job->iterations > (double)TRAFFIC_MAX_FLOWS) {
            snprintf(key, sizeof key, "workload.%u", j);
            config_error_at(sc, e, key,
                            "%s: job \"%s\" would create %.3g flows, more than a run can hold "
                            "(%llu); use fewer iterations",
                            path, job->name, (double)job->n_flows * job->iterations,
                            (unsigned long long)TRAFFIC_MAX_FLOWS);
            return 0;
        }
        return (uint64_t)job->n_flows * job->iterations;
    }
    if (!job->hosts.all)
        for (uint32_t i = 0; i < job->hosts.n; i++)
            if (job->hosts.idx[i] >= n_hosts) {
                snprintf(key, sizeof key, "workload.%u.hosts", j);
                config_error_at(sc, e, key,
                                "%s.hosts: host %u does not exist: the fabric has %u hosts "
                                "(0..%u)",
                                path, job->hosts.idx[i], n_hosts, n_hosts ? n_hosts - 1 : 0);
                if (job->network != NETWORK_BACKEND && n_hosts)
                    snprintf(e->msg + strlen(e->msg), sizeof e->msg - strlen(e->msg),
                             " (on the %s network a host is a GPU server's NIC%s)",
                             network_name(job->network),
                             sc->fabric.storage.converged && job->network == NETWORK_STORAGE
                                 ? " port on the backend"
                                 : ": one per server");
                return 0;
            }
    uint32_t n;
    uint32_t *v = host_list(job, n_hosts, &n);
    bool sto = job->pattern == PAT_STORAGE_WRITE || job->pattern == PAT_STORAGE_READ;
    if (n < (sto ? 1u : 2u)) {
        xfree(v);
        snprintf(key, sizeof key, "workload.%u.hosts", j);
        config_error_at(sc, e, key, "%s.hosts: the %s pattern needs at least 2 hosts, got %u", path,
                        pattern_name(job->pattern), n);
        return 0;
    }
    double per_iter = 0;
    switch (job->pattern) {
    case PAT_PERMUTATION:
        per_iter = n;
        break;
    case PAT_INCAST:
        per_iter = n - 1;
        break;
    case PAT_STORAGE_WRITE:
    case PAT_STORAGE_READ:
        per_iter = n;
        break;
    case PAT_ALL_TO_ALL:
        per_iter = (double)n * (n - 1);
        break;
    case PAT_LIST: /* counted above */
        break;
    case PAT_UNIFORM: {
        double expect = job->duration_ps
                            ? traffic_arrival_rate(job, sc, n) * (double)job->duration_ps / 1e12
                            : (double)job->count;
        per_iter = job->count && (double)job->count < expect ? (double)job->count : expect;
        break;
    }
    }
    if (job->pattern == PAT_UNIFORM && !job->duration_ps) {
        /* `count` arrivals alone: their expected span must fit the simulated clock */
        double rate = traffic_arrival_rate(job, sc, n);
        double span_ps = rate > 0 ? (double)job->count * 1e12 / rate : 0;
        if (span_ps > (double)SIM_TIME_INPUT_MAX / 4) {
            snprintf(key, sizeof key, "workload.%u.count", j);
            config_error_at(sc, e, key,
                            "%s.count: %llu arrivals at this load would span about %.3g s, "
                            "beyond what a run can simulate; raise load or set duration",
                            path, (unsigned long long)job->count, span_ps / 1e12);
            xfree(v);
            return 0;
        }
    }
    double all = per_iter * job->iterations;
    if (all > (double)TRAFFIC_MAX_FLOWS) {
        snprintf(key, sizeof key, "workload.%u", j);
        config_error_at(sc, e, key,
                        "%s: job \"%s\" would create %s%.3g flows, more than a run can hold "
                        "(%llu); %s",
                        path, job->name, job->pattern == PAT_UNIFORM ? "about " : "", all,
                        (unsigned long long)TRAFFIC_MAX_FLOWS,
                        job->pattern == PAT_UNIFORM ? "shorten duration, lower load or set count"
                                                    : "use fewer hosts or iterations");
        xfree(v);
        return 0;
    }
    uint64_t c = generate(sc, j, v, n, n_hosts, NULL, NULL);
    xfree(v);
    return c;
}

void traffic_flows(const scenario *sc, uint32_t j, uint32_t n_hosts, traffic_flow_fn fn, void *ctx)
{
    uint32_t n;
    uint32_t *v = host_list(&sc->jobs[j], n_hosts, &n);
    generate(sc, j, v, n, n_hosts, fn, ctx);
    xfree(v);
}

uint32_t *traffic_host_map(const scenario *sc, uint32_t j, const net *n, uint32_t *n_space)
{
    const cfg_job *job = &sc->jobs[j];
    bool sto = job->pattern == PAT_STORAGE_WRITE || job->pattern == PAT_STORAGE_READ;
    if (job->network == NETWORK_FRONTEND) {
        *n_space = n->n_servers;
        uint32_t *m = xmalloc(sizeof(uint32_t) * (n->n_servers ? n->n_servers : 1), "host map");
        for (uint32_t i = 0; i < n->n_servers; i++)
            m[i] = n->fe_nic0 + i;
        return m;
    }
    if (!sto) {
        *n_space = n->n_backend_hosts;
        return NULL;
    }
    bool ded = n->stor_nic0 != UINT32_MAX;
    uint32_t c = ded ? n->n_servers : n->n_backend_hosts;
    *n_space = c;
    uint32_t *m = xmalloc(sizeof(uint32_t) * (c + n->n_stor_srv), "host map");
    for (uint32_t i = 0; i < c; i++)
        m[i] = ded ? n->stor_nic0 + i : i;
    for (uint32_t k = 0; k < n->n_stor_srv; k++)
        m[c + k] = n->stor_srv0 + k;
    return m;
}
