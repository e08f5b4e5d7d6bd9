/*
 * import_astra.h — ASTRA-sim's network YAML (analytical backend: topology, npus_count,
 * bandwidth in GB/s, latency in ns, one entry per dimension) and system JSON (collective
 * implementations per dimension, active chunks, ...) turned into a wirerate scenario.
 *
 * The mapping (docs/import.md has the reasons):
 *   1 dimension, Switch:  a single switch with npus_count hosts of one GPU each; host_link =
 *                         bandwidth, link_latency = latency (ASTRA-sim's analytical Switch
 *                         charges the latency per link, two links per message), switch_latency 0.
 *   1 dimension, Ring or FullyConnected: one server of npus_count GPUs whose scale-up domain has
 *                         that bandwidth and latency (wirerate's scale-up is a per-GPU domain, as
 *                         an NVSwitch; a Ring's neighbour-only links are not modelled as such —
 *                         the scenario's comment says so).
 *   Several dimensions: the leading Ring/FullyConnected ones (or a leading Switch: the
 *                         server's NVSwitch) are one scale-up domain of their product of GPUs, at
 *                         the smallest bandwidth and largest latency among them; then
 *     one Switch:         servers of that many GPUs on one switch with npus_count[d] servers;
 *                         each GPU has its own NIC at bandwidth[d], latency[d] per link.
 *     two Switches:       rail-optimized: a leaf per rail and dimension-d group (S1 servers),
 *                         spines joining the S2 groups; S1 host ports at bandwidth[d] and S1
 *                         uplinks at bandwidth[d+1] per leaf (each GPU's share of the uplinks is
 *                         dimension d+1's bandwidth), link_latency = latency[d].
 *   Anything else (a Ring or FullyConnected between servers, a third switched dimension) is
 *   refused with an error at its position: wirerate models switched scale-out fabrics, and a
 *   super-spine tier's share of the bandwidth is a claim one figure per dimension does not make.
 * The system JSON, when given, picks the collective job's algorithm (ring, oneRing -> ring,
 * doubleBinaryTree -> tree, halvingDoubling -> halving-doubling, direct -> direct; across two
 * dimensions: hierarchical) and its channels (active-chunks-per-dimension); its other keys are
 * listed in the scenario's comments as not used. The scenario gets one all_reduce job over
 * every GPU of `size` bytes so that it runs as written.
 *
 * Both files are read with the scenario loader's YAML reader (JSON is YAML's flow syntax), so
 * errors carry file:line:col (ERR_INVALID). Library code: writes to the caller's stream only.
 */
#ifndef WR_CONFIG_IMPORT_ASTRA_H
#define WR_CONFIG_IMPORT_ASTRA_H

#include <stdint.h>
#include <stdio.h>

#include "../core/err.h"

/* Write the scenario for `network` (required) and `system` (may be NULL) to f, with an
 * all_reduce of size_bytes. ERR_OK, or ERR_IO / ERR_INVALID with *e. */
int astra_import(FILE *f, const char *network, const char *system, uint64_t size_bytes, err *e);

#endif
