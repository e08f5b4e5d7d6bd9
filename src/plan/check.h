/*
 * check.h — design checks of a built fabric (`wirerate check`), no simulation.
 *
 * Topology part: counts per tier (switches, links), per-tier oversubscription — for each leaf
 * the host-facing bandwidth over the spine-facing bandwidth, for each spine the leaf-facing over
 * the super-spine-facing bandwidth, the worst switch of the tier reported — and the checks
 *   non_blocking   every leaf and spine ≤ 1:1 (rail-only: leaves have no uplinks by design)
 *   reachability   every host reaches every other host over the routed fabric (dual-plane:
 *                  every other host on its plane)
 *   planes         dual-plane fabrics: exactly `planes` disjoint parts, NIC port q on plane q
 *   mtu            the NIC's largest RoCEv2 frame fits the switch port MTU (fabric.mtu)
 * PFC part (when PFC is on):
 *   pfc_lossless_class  the NIC's RoCE class is one of the switches' lossless classes
 *   pfc_headroom        configured headroom ≥ what the most demanding link needs (auto: shown)
 *   ecn_before_pfc      ECN Kmax below the XOFF point, so DCQCN acts before PFC pauses
 *   pfc_deadlock_free   no cyclic buffer dependency in the routing (link → link through a
 *                       switch, as some route uses it); a cycle is named
 * Results go into a check_report that the CLI prints as text or as the JSON of the spec.
 */
#ifndef WR_PLAN_CHECK_H
#define WR_PLAN_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "../net/net.h"

enum check_status { CHECK_PASS, CHECK_WARN, CHECK_FAIL };

typedef struct check_item {
    const char *name;          /* "non_blocking", ... (static string) */
    enum check_status status;
    char detail[320];
} check_item;

#define CHECK_MAX_ITEMS 32

typedef struct check_report {
    uint32_t servers, gpus, nics, host_ports;
    uint32_t leaf, spine, super_spine, scale_up;            /* switches per tier */
    uint32_t links_host, links_leaf_spine, links_spine_super, links_scale_up;
    double oversub_leaf, oversub_spine;                     /* worst down:up of the tier */
    uint32_t n_items;
    check_item items[CHECK_MAX_ITEMS];
    bool passed;                                            /* no item failed */
} check_report;

/* Fill *out from the built network n (borrowed; routed or not: net_build_topology is enough).
 * Never fails. Near-linear in links: reachability and cyclic dependencies come from the
 * structure (check.c), not from host pairs. */
void check_fabric(const net *n, check_report *out);

const char *check_status_name(enum check_status s);
/* The `config_db` item of `check --config-db DIR`: pass with no findings, else fail (the
 * findings themselves are in the cdb_report, configdb.h). */
void check_add_config_db(check_report *r, const char *dir, uint32_t files, uint32_t findings);

#endif
