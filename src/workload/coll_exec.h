/*
 * coll_exec.h — runs a collective job (`kind: collective`) over the transport.
 *
 * The job's plan (collective.h: a DAG of point-to-point transfers; compact for ring plans) is
 * built once and runs on the workload engine (dag.h), one dag_run per iteration. Every
 * (src rank, dst rank, channel) pair gets a connection — a transport flow with its own QPs, so
 * channels use distinct QPs and UDP source ports, as NCCL's do — and each transfer is posted on
 * its connection as a message the moment its dependencies have completed (after the sender's
 * reduction time, when the plan has one). The job runs `iterations` times back to back;
 * iteration k starts when k−1 has completed. Rank r is GPU ranks[r] (default: GPU r); its
 * traffic leaves through that GPU's NIC (channel c uses NIC port c mod nic_ports). Transfers
 * between GPUs of one server use the scale-up domain (fluid, see transport_flow_add).
 */
#ifndef WR_WORKLOAD_COLL_EXEC_H
#define WR_WORKLOAD_COLL_EXEC_H

#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"
#include "../transport/nic.h"
#include "collective.h"
#include "run.h"

typedef struct coll_exec coll_exec;

/* Plan job j (sc->jobs[j], a collective) on network n. *connections receives how many transport
 * flows it needs. NULL + *e (at the job's keys) on invalid input. */
coll_exec *coll_exec_new(net *n, const scenario *sc, uint32_t j, uint64_t *connections, err *e);
/* Create its connections on t (after transport_new). */
void coll_exec_connect(coll_exec *x, transport *t);
/* Start the first iteration now (the job's start event). */
void coll_exec_start(coll_exec *x);
/* A message of this job completed: the transfer index is the cookie. */
void coll_exec_on_msg(coll_exec *x, uint64_t xfer);
/* Fill the job's result (iterations, algbw/busbw per nccl-tests, JCT). */
void coll_exec_result(const coll_exec *x, job_result *jr);
/* The plan of one iteration and the GPU of each of its ranks (borrowed; for ideal.c). */
const coll_plan *coll_exec_plan(const coll_exec *x, const uint32_t **gpu_of_rank);
/* algorithm sharp: the AN host of each plan endpoint n_ranks + k (borrowed; *n_an = 0 and NULL
 * otherwise). */
const uint32_t *coll_exec_an_hosts(const coll_exec *x, uint32_t *n_an);
/* Append its recorded transfers (job index j) to out[*n..cap); the rest count in *dropped. out NULL:
 * only count (*n). */
void coll_exec_transfers(const coll_exec *x, uint32_t j, transfer_record *out, uint64_t *n,
                         uint64_t cap, uint64_t *dropped);
void coll_exec_free(coll_exec *x);
/* True once every iteration has completed. */
bool coll_exec_finished(const coll_exec *x);
/* Call fn(ctx) once, at the moment the job's last iteration completes (the run ends when every
 * job has: run.c). */
void coll_exec_on_finish(coll_exec *x, void (*fn)(void *ctx), void *ctx);

/* Write the completed iterations into a Chrome trace (telemetry/trace.h): a process for the
 * job, a row per rank, one slice per iteration per rank (its first send to its last arrival),
 * named after the op and algorithm. */
struct trace_writer;
void coll_exec_trace(const coll_exec *x, struct trace_writer *tw);

#endif
