/*
 * dag.h — the workload engine: every job kind that moves data (collectives, training
 * iterations, Chakra traces, inference steps) lowers to a DAG of nodes — transfers on network
 * connections, compute delays, joins (a node that ends when a sub-DAG ends, e.g. a collective
 * inside a training iteration) — and runs it here. The engine knows three things only:
 *
 *  1. The shape (dag_graph): how many dependencies each node has and its successors, in a
 *     topological order. The shape is immutable and shared by every run of it: stored (CSR
 *     successor lists) or implicit (functions that compute a node's dependencies and successors
 *     by rank arithmetic, e.g. a compact ring collective: collective.h coll_plan_graph).
 *  2. A run (dag_run): the state of one execution of a shape — one outstanding-dependency
 *     counter per node (none at all when no node has more than one dependency: a node is
 *     released by its only predecessor's completion) and the completed count. Starting a run
 *     releases the roots in index order; completing a node releases its successors in the
 *     order the shape lists them (ascending index). The owner decides what a released node
 *     does (dag_ready_fn): post a transfer, wait a compute delay, queue for a lane or a
 *     communicator, start a sub-run. These orders are part of the results (they decide the
 *     order of posts at equal times), so every executor that lowers onto the engine keeps
 *     exactly the order it had.
 *  3. The network (dag_net): "post `bytes` on connection c with a cookie; the completion comes
 *     back with the cookie". The packet implementation (dag_net_transport) is the transport
 *     (transport_post, and run.c routing transport completions by the job id in the cookie's
 *     top bits); a flow-level network sits behind the same transport calls, so nothing here
 *     changes with the fidelity.
 *
 * Connections are declared before the run (dag_conns: a list of (src host, dst host), one
 * transport flow each) and named by index afterwards.
 *
 * Hot path: dag_run_start, dag_run_complete and dag_net_post allocate nothing.
 */
#ifndef WR_WORKLOAD_DAG_H
#define WR_WORKLOAD_DAG_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/arena.h"
#include "../core/err.h"
#include "../core/time.h"

/* Most successors an implicit shape may give one node. */
#define DAG_SUCC_IMPLICIT_MAX 8u

/* The shape of a DAG. Either succ_first/succ are set (stored successors: node i's are
 * succ[succ_first[i] .. succ_first[i + 1]), ascending) or succ_fn is (implicit: writes node i's
 * successors, ascending, to out[] and returns their count, at most DAG_SUCC_IMPLICIT_MAX), or
 * succ_at_fn is (implicit lists of any length: writes node i's successors from the `from`-th on,
 * at most DAG_SUCC_IMPLICIT_MAX, and returns how many; fewer than that ends the list).
 * deps_fn gives node i's dependency count; max_deps bounds it (≤ 1: runs keep no counters). */
typedef struct dag_graph {
    uint32_t n;
    uint32_t max_deps;
    const uint32_t *succ_first, *succ;
    uint32_t (*succ_fn)(const void *ctx, uint32_t i, uint32_t *out);
    uint32_t (*succ_at_fn)(const void *ctx, uint32_t i, uint32_t from, uint32_t *out);
    uint32_t (*deps_fn)(const void *ctx, uint32_t i);
    const void *ctx;
} dag_graph;

/* A released node (all its dependencies have completed) is the owner's to run. */
typedef void (*dag_ready_fn)(void *ctx, uint32_t node);

typedef struct dag_run {
    const dag_graph *g;
    uint32_t cap;     /* nodes the counters hold */
    uint16_t *left16; /* outstanding dependencies (max_deps ≤ 65535) */
    uint32_t *left32; /* (max_deps > 65535) */
    uint32_t done;    /* nodes completed in this run */
    bool owned;       /* the counters are the run's own (dag_run_free) */
    /* recording (optional): node i's start (dag_run_started) and completion times go to
     * rec_start[i] / rec_end[i] when set, read from *clock; owners point them at the current
     * iteration's rows (transfers.csv, traces, breakdowns) or at NULL */
    const sim_time *clock;
    sim_time *rec_start, *rec_end;
    dag_ready_fn ready;
    void *ctx;
} dag_run;

/* Room for runs of up to `cap` nodes whose nodes have at most `max_deps` dependencies; counters
 * come from arena `a` (none when max_deps ≤ 1), or from the heap when `a` is NULL (then
 * dag_run_free releases them). */
void dag_run_init(dag_run *r, arena *a, uint32_t cap, uint32_t max_deps, dag_ready_fn ready,
                  void *ctx);
void dag_run_free(dag_run *r);
/* Start a run of shape g (g->n ≤ cap, g->max_deps within the init's): counters reset, then every
 * root is released in index order. Returns true when g has no nodes (the run is complete at
 * once; nothing was released). */
bool dag_run_start(dag_run *r, const dag_graph *g);
/* Record where the run keeps its times (see dag_run); NULL arrays record nothing. */
static inline void dag_run_record(dag_run *r, const sim_time *clock, sim_time *start, sim_time *end)
{
    r->clock = clock;
    r->rec_start = start;
    r->rec_end = end;
}
/* Node i starts now (its owner decides when: a post, the start of a compute phase). */
static inline void dag_run_started(dag_run *r, uint32_t i)
{
    if (r->rec_start)
        r->rec_start[i] = *r->clock;
}
/* Node i has completed (its time is recorded first): release each successor whose last dependency
 * it was, in the shape's order. Returns true when this was the run's last node. */
bool dag_run_complete(dag_run *r, uint32_t i);

/* ---- connections and the network -------------------------------------------------------- */

/* The connections a job declares at build: (src host, dst host) pairs, indexed from 0. */
typedef struct dag_conns {
    uint32_t n, cap;
    uint32_t *src, *dst; /* hosts */
} dag_conns;

/* Add a connection; returns its index. Build time only (grows with xrealloc). */
uint32_t dag_conns_add(dag_conns *c, uint32_t src_host, uint32_t dst_host);
void dag_conns_free(dag_conns *c);

/* The network as the engine sees it: post a transfer, its completion comes back (to the job's
 * on_msg) with the low 40 bits of the cookie. */
typedef struct dag_net dag_net;
struct dag_net {
    void (*post)(dag_net *n, uint32_t conn, uint64_t bytes, uint64_t cookie);
};

/* The packet implementation: one transport flow per declared connection, the job's id in the
 * cookie's top 24 bits (run.c routes completions by it). */
struct transport;
struct flow;
typedef struct dag_net_transport {
    dag_net net;
    struct transport *tp;
    struct flow *flows; /* connection i is flows[i]: consecutive in the transport's array, so a
                         * post computes its flow instead of loading a pointer to it */
    uint32_t n;
    uint64_t job_bits;
} dag_net_transport;

/* Create c's connections on t for job `job` at priority `prio` (flows started, size 0: they
 * carry posted messages). */
void dag_net_transport_init(dag_net_transport *d, struct transport *t, const dag_conns *c,
                            uint32_t job, uint8_t prio);
void dag_net_transport_free(dag_net_transport *d);

static inline void dag_net_post(dag_net *n, uint32_t conn, uint64_t bytes, uint64_t cookie)
{
    n->post(n, conn, bytes, cookie);
}

/* ---- jobs ----------------------------------------------------------------------------------- */

/* The GPU of each of the first n_ranks ranks of job j (its `ranks`, or GPU r when `all`) into
 * gpu_of_rank[0 .. n_ranks). False + *e at workload.j.ranks when one is not among the fabric's
 * `gpus`. */
bool dag_job_gpus(const scenario *sc, uint32_t j, uint32_t gpus, uint32_t n_ranks,
                  uint32_t *gpu_of_rank, err *e);

#endif
