/*
 * sharp.h — SHARP aggregation trees for algorithm sharp (collective.h) on a built fabric.
 *
 * NVIDIA SHARP (Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP): A Hardware
 * Architecture for Efficient Data Reduction", COMHPC'16 §3) reduces in the switches: the
 * aggregation manager builds trees whose leaves are the hosts, whose inner nodes are the
 * aggregation nodes (ANs) of the switches — the hosts' leaf switches, then the switches above
 * them — and whose root is one switch that joins them all. NCCL's CollNet Direct (the SHARP
 * plugin, NCCL_ALGO=CollNet) runs one SHARP all_reduce per local GPU index after an intra-server
 * reduce_scatter, so each rail carries its own tree.
 *
 * Trees here: one per local index l (a rank's place among the ranks of its server, ascending:
 * the order collective.c uses), over the ranks of that index. Its leaves are the switches of
 * those ranks' NIC ports (first port). Going up: if some switch is an up-neighbour (a switch of
 * a higher tier, the fabric's backend only) of every current node, the root is one of them —
 * the (l mod k)-th of the k candidates by switch index, so different rails' trees use different
 * spines; otherwise every current node moves to its (l mod k)-th up-neighbour and the search
 * repeats (a leaf to a spine of its pod, the pods' spines to a common super-spine). A set of
 * ranks under one leaf has that leaf as the root. An AN endpoint is one switch in one tree: a
 * switch in two trees has two endpoints (its AN keeps per-tree state and connections).
 */
#ifndef WR_WORKLOAD_SHARP_H
#define WR_WORKLOAD_SHARP_H

#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"
#include "../net/net.h"

typedef struct sharp_trees {
    uint32_t n_an;     /* AN endpoints (n_ranks .. n_ranks + n_an − 1 in the plan) */
    uint32_t *parent;  /* [n_ranks + n_an] coll_params.an_parent */
    uint32_t *an_host; /* [n_an] the AN host (net.an_host0 + k) of each endpoint */
    uint32_t height;   /* switch levels of the tallest tree (1: one switch) */
} sharp_trees;

/*
 * Build the trees of n_ranks ranks whose GPUs are gpu_of_rank[] on n (which must have its ANs:
 * net.an_of_switch). Arrays are new in `a`. Returns 0, or sets *e (ERR_INVALID, no position:
 * the caller re-locates it at the job's key) when a rank's NIC has no switch, a switch has no
 * AN, or no switch joins the ranks' leaves.
 */
int sharp_trees_build(const net *n, const uint32_t *gpu_of_rank, uint32_t n_ranks, arena *a,
                      sharp_trees *out, err *e);

#endif
