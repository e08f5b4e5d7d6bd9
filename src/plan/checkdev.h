/*
 * checkdev.h — configuration checks per device (`wirerate check`): every NIC port against the
 * leaf port it is cabled to, every switch-to-switch link end against the other, each switch's
 * ECN against its own XOFF, and the failure domains of the Clos. Settings are the fabric
 * defaults with the scenario's `devices:` entries applied (plan_get_switch_cfg /
 * plan_get_nic_cfg), so a mismatch written in the scenario is found here.
 *
 * Items (check_report), each with findings naming device, field, both values and the fix:
 *   pfc_nic_switch   the NIC's PFC classes (mlnx_qos --pfc) equal the leaf port's pfc_enable,
 *                    and the NIC's RoCE priority is one of them
 *   dscp_trust       NICs trust DSCP (routed /31 links carry no 802.1p tag), and each switch
 *                    maps the NIC's RoCE DSCP to the NIC's priority and its CNP DSCP to its
 *                    CNP priority
 *   cnp_not_paused   CNPs travel in a class no switch or NIC pauses (a paused CNP waits behind
 *                    the congestion it reports)
 *   mtu_end_to_end   the NIC's RoCE packets fit its netdev MTU (else it negotiates a smaller
 *                    RoCE MTU than simulated), the netdev MTU's frames fit the leaf port MTU
 *                    (NIC <= switch), both ends of every switch link have the same MTU
 *   ecn_below_xoff   per switch: Kmax below the XOFF of one congested ingress in an empty
 *                    buffer (fixed, or alpha x shared / (1 + alpha) with this switch's headroom
 *                    reserved), so DCQCN acts before PFC pauses
 *   failure_domains  what one leaf, one upper switch and one rail take away: NIC ports cut off,
 *                    the largest share of a switch's uplink bandwidth through one upper switch;
 *                    fails when one upper switch carries all uplinks of a switch with hosts
 *                    (its loss cuts those hosts off the rest of the fabric)
 * Linear in ports.
 */
#ifndef WR_PLAN_CHECKDEV_H
#define WR_PLAN_CHECKDEV_H

#include "check.h"
#include "configdb.h"
#include "plan.h"

void check_devices(const plan *p, check_report *r, cdb_report *findings);

#endif
