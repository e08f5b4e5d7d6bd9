/*
 * train_exec.h — runs a training job (`kind: training`) over the simulated network.
 *
 * The job's iteration is the planner's DAG (training.h: compute, TP/DP collectives, pipeline
 * P2P). The executor starts each task the moment its dependencies have ended and gives it a
 * duration from the simulation:
 *  - COMPUTE: a delay of dur × the GPU's slow factor (gpu-slow fault; 1 nominal).
 *  - P2P: a message on a connection from the source GPU's NIC port to the destination's (a
 *    fluid NVLink transfer when both GPUs share a server: see transport_flow_add).
 *  - COLL whose group sits inside one server (TP, usually): analytic over the scale-up domain,
 *    the α–β cost of a ring — all_reduce 2(g−1)·(latency + ⌈S/g⌉/bw), reduce_scatter and
 *    all_gather (g−1)·(latency + ⌈S/g⌉/bw), S in nccl-tests semantics, bw and latency from
 *    fabric.scale_up (train_ab_cost_fn with those figures). Why analytic: the packet model is for
 *    the scale-out fabric; NVLink has no queues, ECN or PFC to model, and a TP all_reduce per
 *    half-layer would otherwise cost as many events as the whole fabric traffic. Not modelled:
 *    contention between a TP collective and an NVLink P2P of the same GPU.
 *  - COLL whose group spans servers (DP; TP or a group crossing servers): a real collective over
 *    the network — the group's coll_plan (ring, one channel; plans are cached by operation,
 *    group size, bytes and the group's server layout) executed transfer by transfer as
 *    coll_exec does. Aggregated tasks (count > 1) run their plan count times back to back.
 * Each group is one NCCL communicator: its collectives run one at a time in the order they
 * become ready; different groups' collectives run concurrently.
 *
 * The plan is compact where it can be (training.h "Compact plans": dense models, dp > 2, TP
 * groups inside a server): the DP replicas share one description, and per task the executor
 * keeps only the run's counter and the start/end times (plus a connection or plan binding and
 * a FIFO link for the P2P and DP tasks); otherwise stored.
 * Iterations run back to back: k starts when every task of k−1 has ended. Per iteration the
 * executor keeps every task's start and end time, and the result is train_breakdown over them
 * (computed after the run, never in an event handler). JCT = end of the last iteration − start.
 *
 * Chakra jobs (`kind: chakra`) run here too, on the plan chakra_plan.h builds from their trace:
 * the same tasks, groups and dependencies, with a compute task holding its rank's lane (the GPU
 * or the CPU) — a rank runs one task per lane at a time, the others wait in ready order (a
 * training plan's compute chain never waits) — and zero-time memory/metadata tasks that hold
 * nothing. Their result is per rank (compute / exposed communication / idle) and the last
 * iteration's critical path instead of the training breakdown (run.h chakra_rank_result).
 *
 * Rank r of the plan is GPU ranks[r] of the job (default: GPU r, all GPUs of the fabric; a
 * Chakra job: GPU r for its trace's ranks).
 * Events: one per job for all compute and analytic delays (a heap of (end time, task)); the
 * transport's own events for messages.
 */
#ifndef WR_WORKLOAD_TRAIN_EXEC_H
#define WR_WORKLOAD_TRAIN_EXEC_H

#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"
#include "../transport/nic.h"
#include "run.h"
#include "training.h"

typedef struct train_exec train_exec;

/* Plan job j (sc->jobs[j], a training job) on network n. *connections receives the transport
 * flows it needs (P2P pairs and the cross-server groups' collective connections). NULL + *e (at
 * the job's keys) on invalid input. */
train_exec *train_exec_new(net *n, const scenario *sc, uint32_t j, uint64_t *connections, err *e);
/* Create its connections on t (after transport_new). */
void train_exec_connect(train_exec *x, transport *t);
/* Start the first iteration now (the job's start event). */
void train_exec_start(train_exec *x);
/* A message of this job completed; `cookie` is the low 40 bits the executor posted with. */
void train_exec_on_msg(train_exec *x, uint64_t cookie);
/* GPU `gpu` computes `factor`× slower from now (no effect when the GPU is not in the job). */
void train_exec_gpu_slow(train_exec *x, uint32_t gpu, double factor);
/* GPU `gpu` failed now (gpu-fail). Returns false when the GPU is not in the job or the job is not
 * running. Otherwise the job stops: nothing new is posted, compute in progress is abandoned,
 * completions of messages already handed to the NICs are discarded; with a checkpoint block the
 * job restarts from its last checkpoint `restart_time` later (the failed GPU replaced by a
 * spare, as a cluster scheduler does), and *restarts is true; without one it cannot go on
 * (*restarts false: the caller fails the job). */
bool train_exec_gpu_fail(train_exec *x, uint32_t gpu, bool *restarts);
/* True while the job waits on its own timer (a checkpoint write, a restart): not stalled. */
bool train_exec_waiting(const train_exec *x);
/* Fill the job's result: iterations with their breakdown, averages, JCT. Allocates
 * jr->iterations (freed by the run). */
void train_exec_result(const train_exec *x, job_result *jr);
/* GPU of each rank of the plan (borrowed). */
const uint32_t *train_exec_gpus(const train_exec *x);
/* The plan (borrowed; for tests and reports). */
const train_plan *train_exec_plan(const train_exec *x);
/* Append its communication tasks of every completed iteration (job index j) to
 * out[*n..cap); the rest count in *dropped. out NULL:
 * only count (*n). */
void train_exec_transfers(const train_exec *x, uint32_t j, transfer_record *out, uint64_t *n,
                          uint64_t cap, uint64_t *dropped);
void train_exec_free(train_exec *x);
/* Start and end times (absolute ps, indexed like the plan's tasks) of completed iteration
 * `iter`; false when it has not completed. Borrowed. */
bool train_exec_times(const train_exec *x, uint32_t iter, const sim_time **start,
                      const sim_time **end);
/* True once every iteration has completed. */
bool train_exec_finished(const train_exec *x);
/* Register fn(ctx), called when the job's last iteration completes (the run ends when every job
 * has finished). */
void train_exec_on_finish(train_exec *x, void (*fn)(void *ctx), void *ctx);
/* A count that grows with every task the job completes (compute or communication): the run's
 * stall check compares it over time. */
uint64_t train_exec_progress(const train_exec *x);

/* Tests: whether training jobs built from now on use compact plans where they can (training.h;
 * default true). A compact plan runs exactly as the stored one; this lets a test prove it. */
void train_exec_compact_plans(bool on);

/* Write the completed iterations into a Chrome trace (telemetry/trace.h): a process for the
 * job, a row per rank, a slice per task — forward/backward compute, TP/DP collectives on every
 * member's row, pipeline sends on the sender's row. */
struct trace_writer;
void train_exec_trace(const train_exec *x, struct trace_writer *tw);

#endif
