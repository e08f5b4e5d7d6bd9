/*
 * import_htsim.h — htsim's fat-tree topology file (.topo) and connection matrix (.cm) turned
 * into a wirerate scenario, so that the traffic htsim's own experiments use runs on wirerate
 * and the two can be compared. Formats as htsim reads them (UEC htsim, github.com/ultraethernet/
 * uet-htsim: htsim/sim/datacenter/fat_tree_topology.cpp FatTreeTopologyCfg::read_cfg and
 * set_custom_params, connection_matrix.cpp ConnectionMatrix::load, trigger.cpp; example files in
 * datacenter/topologies and datacenter/connection_matrices). No code of theirs.
 *
 * .topo: `Nodes N`, `Tiers 2|3`, `Podsize P`, then per `Tier k` block: Downlink_speed_Gbps,
 * Radix_Down, Radix_Up (not for the top tier), Oversubscribed, Bundle, Downlink_Latency_ns,
 * Switch_Latency_ns, Queue_Up / Queue_Down (bytes). Tier 0 = ToR (its downlinks are the host
 * links), 1 = aggregation, 2 = core. The switch counts follow htsim's arithmetic:
 *   pods = N / P, ToRs per pod = P / Radix_Down[0],
 *   ToR uplinks = N · speed[0] / (speed[1] · oversub[0]),
 *   aggs per pod = ToR uplinks / (pods · Radix_Down[1]), each ToR joined to every agg of its
 *   pod (two tiers: of the fabric) by Bundle[1] links,
 *   agg uplinks = ToR uplinks · speed[1] / (speed[2] · oversub[1]), cores = agg uplinks /
 *   Radix_Down[2]; agg a joins the cores (a mod aggs per pod) + aggs per pod · l for
 *   l < Radix_Up[1] / Bundle[2], by Bundle[2] links each.
 * Every mismatch htsim refuses is refused here, at its file:line:col. The fabric is written as
 * `preset: custom` with every switch, host and link, so speeds and latencies are per tier as in
 * the file. Switch_Latency_ns must be the same on every tier (wirerate has one
 * `fabric.switch_latency`); Queue_Up / Queue_Down have no equivalent (wirerate switches share
 * one buffer) and are listed in a comment as not used.
 *
 * .cm: `Nodes`, `Connections C`, `Triggers T` (optional), then one line per flow
 * `SRC->DST [id I] (start US | trigger T) size BYTES [send_done_trigger T] [recv_done_trigger T]
 * [prio P]` and one per trigger `trigger id T (oneshot | barrier count K | multishot)`. Start
 * times are microseconds (htsim's generators write them so, and main_uec reads them so). Flows
 * become a `pattern: list` traffic job; a flow started by trigger T waits (`after`) for the
 * flows that activate T: a oneshot needs exactly one, a barrier of count K exactly K. wirerate
 * completes a flow when its last byte is accepted at the receiver — htsim's recv_done; its
 * send_done fires when the sender has the last ACK, one ACK's path later. Refused, at their
 * position: multishot triggers (their targets start in the order of activations at run time,
 * which a static list cannot say), a trigger no flow activates or activated more often than it
 * fires, `msg` (messages on a reused connection), `failure` lines (use the scenario's faults),
 * a flow from a node to itself or to a node the topology does not have. `prio` is listed as
 * not used. Library code: writes to the caller's stream only.
 */
#ifndef WR_CONFIG_IMPORT_HTSIM_H
#define WR_CONFIG_IMPORT_HTSIM_H

#include <stdint.h>
#include <stdio.h>

#include "../core/err.h"

/* Counts of an import, for the CLI's summary line. */
typedef struct htsim_import_stats {
    uint32_t hosts, switches, links, flows, chained;
} htsim_import_stats;

/* Write the scenario for topology file `topo` and connection matrix `cm` to f. ERR_OK, or
 * ERR_IO (unreadable) / ERR_INVALID (file:line:col) with *e. st may be NULL. */
int htsim_import(FILE *f, const char *topo, const char *cm, htsim_import_stats *st, err *e);

#endif
