/*
 * chakra_plan.h — a Chakra execution trace (config/import_chakra.h) as the training executor's
 * task graph (training.h train_plan), so that `kind: chakra` jobs run on the packet network with
 * the executor that runs training jobs (train_exec.h) rather than a third dependency engine.
 *
 * Mapping, node by node (each rank's DAG, then the ranks joined where they communicate):
 *  - compute (COMP_NODE): a COMPUTE task of its rank lasting duration_micros. A rank runs one
 *    GPU compute at a time and one CPU op (is_cpu_op) at a time, in the order they become
 *    ready, as ASTRA-sim's HardwareResource does (workload/HardwareResource.cc: one in-flight
 *    GPU compute and one CPU op per NPU).
 *  - memory load/store, metadata, invalid: zero-time tasks that occupy nothing (ASTRA-sim
 *    charges memory nodes only with a local-memory model wirerate does not have); they keep
 *    their place in the dependency graph.
 *  - collective (COMM_COLL_NODE): matched across the ranks of its process group. The group of
 *    a pg_name is the set of ranks whose traces hold collectives with that pg_name (a trace
 *    carries no membership list; ASTRA-sim reads one from a separate comm-group file); a
 *    collective without pg_name belongs to the group of every rank. The k-th collective of a
 *    group on each member rank (in file order) is one COLL task of the group: same comm_type
 *    and comm_size on every member, or an error. Its dependencies are every member node's.
 *    comm_type → operation: all_reduce, reduce, all_gather, broadcast, all_to_all,
 *    reduce_scatter as named; reduce_scatter_block as reduce_scatter; barrier as an all_reduce
 *    of comm_size bytes (4 when absent: PyTorch's ProcessGroupNCCL::barrier all-reduces a
 *    one-element tensor); gather and scatter are refused (no plan for them yet). comm_size has
 *    nccl-tests semantics (all_reduce: the per-rank buffer; all_gather: the gathered output;
 *    reduce_scatter: the input), as ASTRA-sim uses it.
 *  - send / receive: the k-th send of rank s to rank d with (tag, size) is matched with the
 *    k-th receive on d from s with the same tag and size: one P2P task (a message s → d) that
 *    starts when both nodes' dependencies have ended (NCCL's send/recv rendezvous) and ends when
 *    its last byte is delivered; successors of either node wait for that. A rank sending to
 *    itself moves nothing over the network: a zero-time task.
 * Dependencies are ctrl_deps ∪ data_deps. The joined graph is checked for cycles (matching
 * collectives or messages in an order two ranks disagree on deadlocks): an error names a node
 * on the cycle.
 */
#ifndef WR_WORKLOAD_CHAKRA_PLAN_H
#define WR_WORKLOAD_CHAKRA_PLAN_H

#include <stdint.h>

#include "../config/import_chakra.h"
#include "../core/err.h"
#include "training.h"

/* Task lanes (train_task.lane): which per-rank resource a COMPUTE task holds. */
enum { TRAIN_LANE_GPU = 0, TRAIN_LANE_CPU = 1, TRAIN_LANE_NONE = 2 };

/* Build the plan of trace t whose rank r runs on GPU gpu_of_rank[r] (server = gpu /
 * gpus_per_server). Returns a new plan (train_plan_free) with task_name and task_node filled,
 * or NULL with *e (ERR_INVALID, naming the file and node; no position). Borrows t. */
train_plan *chakra_plan_new(const chakra_trace *t, const uint32_t *gpu_of_rank,
                            uint32_t gpus_per_server, err *e);

#endif
