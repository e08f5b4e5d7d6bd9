/*
 * infer_exec.h — runs an inference job (`kind: inference`) over the simulated network.
 *
 * The job's GPUs are split into model replicas of tp × pp GPUs (replica r = ranks
 * [r·tp·pp, (r+1)·tp·pp); inside a replica, rank s·tp + t is stage s, TP rank t, so a TP group
 * is consecutive GPUs, as vLLM and TensorRT-LLM place it). With `disaggregated` the first
 * prefill_gpus form the prefill pool and the rest the decode pool (Zhong et al., "DistServe",
 * OSDI'24; Patel et al., "Splitwise", ISCA'24).
 *
 * Requests arrive as a Poisson process (exponential gaps drawn from the job's RNG stream,
 * (seed, job index)) or from a trace, and go to the least-loaded replica of the (prefill) pool
 * (fewest requests waiting + running; ties to the lowest index).
 *
 * Batching (per replica) is vLLM's default scheduler without chunked prefill (Kwon et al.,
 * "PagedAttention", SOSP'23 §4.5; vLLM docs "Scheduler"): continuous batching, one step at a
 * time. At each step boundary, if requests wait and fewer than max_batch run, a *prefill step*
 * admits waiting requests in arrival order while the batch stays within max_batch sequences and
 * max_tokens prompt tokens (the first always fits); otherwise a *decode step* produces one token
 * for every running request. Prefill produces the first token. A request leaves when it has its
 * output tokens. Disaggregated: prefill replicas only prefill; each prefilled request's KV cache
 * goes from every prefill GPU to the GPU of the same (stage, TP rank) of the least-loaded decode
 * replica, and joins that replica's running batch at its next step boundary once all of it has
 * arrived (TTFT is the end of prefill, as DistServe measures it).
 *
 * One step is a forward pass, stage after stage (one batch in flight per replica: no
 * pipelining of successive steps across stages). Per layer, on every GPU of the stage:
 *   attention  FLOPs 2·T·P_attn + 4·h·Σ_i n_i·(c_i + (n_i + 1)/2)   (causal scores; request i
 *              adds n_i tokens to c_i cached ones), bytes P_attn·2 + KV read (c_i + n_i tokens)
 *   TP all_reduce of T·h·2 bytes (Megatron's two per layer: after attention and after the MLP)
 *   MLP        FLOPs 2·T·P_ffn, bytes P_ffn·2 (MoE: the experts the batch touches on the rank)
 * each divided by tp, and the last stage adds the LM head (2·h·V FLOPs per sequence). A
 * compute phase takes max(FLOPs / (peak × mfu), bytes / (HBM bandwidth × efficiency)) — the
 * roofline (Williams et al., CACM 2009): prefill is compute-bound, decode memory-bound. MoE
 * (ep = tp: the experts are spread over the stage's TP ranks, the sequence split over them as
 * in the training model) replaces the MLP's all_reduce by an all_to_all dispatch
 * (⌈T·top_k·h·2 / ep⌉ bytes per rank), the experts, an all_to_all combine of the same size and
 * an all_gather of T·h·2. Between stages each TP rank sends T·h·2 bytes to its peer of the
 * next stage. Activations, weights and KV cache are bf16 (2 bytes).
 *
 * Communication inside one server is the α–β cost of a ring over the scale-up domain (as the
 * training executor's: all_reduce 2(g−1)(α + ⌈S/g⌉/bw), all_gather (g−1)(α + ⌈S/g⌉/bw),
 * all_to_all α + (busiest rank's bytes)/bw); a group spanning servers runs its collective
 * (collective.h: ring, or direct for all_to_all, one chunk per transfer) message by message on
 * the packet network. Pipeline sends and KV-cache transfers are messages on connections between
 * the GPUs' NICs (fluid NVLink transfers inside a server: transport_flow_add). Consecutive
 * phases without network messages are one delay: one event per replica and step when the whole
 * replica sits in one server.
 */
#ifndef WR_WORKLOAD_INFER_EXEC_H
#define WR_WORKLOAD_INFER_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"
#include "../transport/nic.h"
#include "run.h"

typedef struct infer_exec infer_exec;

/* Plan job j (sc->jobs[j], an inference job) on network n: replicas, arrivals, connections.
 * *connections receives the transport flows it needs. NULL + *e (at the job's keys) on invalid
 * input. */
infer_exec *infer_exec_new(net *n, const scenario *sc, uint32_t j, uint64_t *connections, err *e);
/* Create its connections on t (after transport_new). */
void infer_exec_connect(infer_exec *x, transport *t);
/* The job starts now: arrivals begin. */
void infer_exec_start(infer_exec *x);
/* A message of this job completed; `cookie` is the low 40 bits the executor posted with. */
void infer_exec_on_msg(infer_exec *x, uint64_t cookie);
/* The job failed (a QP gave up): nothing more is started. */
void infer_exec_abort(infer_exec *x);
/* Fill jr->infer and the job's JCT (start to the last request's last token). */
void infer_exec_result(const infer_exec *x, job_result *jr);
/* Append one record per request (job index j) to out[*n..); out NULL: only count. */
void infer_exec_requests(const infer_exec *x, uint32_t j, request_record *out, uint64_t *n);
bool infer_exec_finished(const infer_exec *x);
/* Register fn(ctx), called when the last request completes. */
void infer_exec_on_finish(infer_exec *x, void (*fn)(void *ctx), void *ctx);
/* A count that grows with every phase, message and arrival (the run's stall check). */
uint64_t infer_exec_progress(const infer_exec *x);
/* True while the job waits only for its next arrival (idle, not stalled). */
bool infer_exec_waiting(const infer_exec *x);
void infer_exec_free(infer_exec *x);

/* Write its steps into a Chrome trace (telemetry/trace.h; recorded only when the scenario's
 * output has `trace`, the first 2^20): a process for the job, a row per replica, a slice per
 * prefill or decode step. */
struct trace_writer;
void infer_exec_trace(const infer_exec *x, struct trace_writer *tw);

/* KV-cache bytes of one token on one GPU of a stage of `layers` layers under tensor
 * parallelism tp: 2 (K and V) × ⌈kv_heads / tp⌉ × head_dim × 2 bytes × layers (a model
 * without heads: ⌈hidden / tp⌉ for the K/V width). Exposed for tests. */
uint64_t infer_kv_bytes_per_token(const cfg_job *j, uint32_t layers, uint32_t tp);

#endif
