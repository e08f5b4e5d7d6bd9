/*
 * configdb.h — verify a folder of SONiC config_db.json files (the ones `wirerate plan` writes,
 * or real ones with the same tables) against each other and against the scenario
 * (`wirerate check S.yaml --config-db DIR`).
 *
 * For every fabric switch of the built topology the file DIR/<switch>/config_db.json (or
 * DIR/<switch>.json) is read; its ports are matched to the topology by the plan's port names
 * (plan.h: Ethernet<first lane>). Checked, per port:
 *   PORT            exists; mtu = fabric.mtu; speed = the link's rate
 *   PORT_QOS_MAP    pfc_enable = switch.pfc.priorities; the DSCP_TO_TC_MAP it names maps the
 *                   RoCE data DSCP to nic.priority and the CNP DSCP to nic.cnp_priority
 *   QUEUE           the RoCE queue has a WRED_PROFILE with ecn on, green_min/max_threshold =
 *                   Kmin/Kmax and green_drop_probability = Pmax (percent)
 *   BUFFER_PG       each lossless class has a BUFFER_PROFILE whose xoff (headroom) covers what
 *                   the port's link needs (speed, length, MTU: net_pfc_headroom_port)
 *   INTERFACE       the port's /31 is the plan's
 *   PFC_WD          present when PFC is on, with switch.pfc.watchdog's times and action
 * and across each switch-to-switch link: both ends' mtu, speed and pfc_enable agree, their
 * addresses form one /31, and each BGP_NEIGHBOR's asn is the peer's DEVICE_METADATA bgp_asn.
 * Each finding names the device, the field (TABLE|key.field), what the file has, what it should
 * have (and why) and the fix. Linear in ports (each file is parsed once and dropped).
 */
#ifndef WR_PLAN_CONFIGDB_H
#define WR_PLAN_CONFIGDB_H

#include <stdint.h>

#include "plan.h"

typedef struct cdb_finding {
    char device[32];
    char field[96]; /* "PORT|Ethernet8.mtu" */
    char have[96];  /* what the file says */
    char want[160]; /* what it should be, and according to what */
    char fix[200];
} cdb_finding;

typedef struct cdb_report {
    uint32_t files; /* config_db files read */
    uint32_t n, cap;
    cdb_finding *f; /* owned */
} cdb_report;

/* Verify DIR (borrowed path) against the plan p of the built fabric. ERR_OK with findings in
 * *r (possibly none), or ERR_IO with *e when DIR is not a readable folder. A missing or
 * unparsable file is a finding, not an error. */
int cdb_verify(const plan *p, const char *dir, cdb_report *r, err *e);
void cdb_report_free(cdb_report *r);
/* Append a finding (the check of per-device settings adds its own). A finding with the same
 * device and field as one of that device's previous findings is dropped (a shared entry). */
void cdb_add(cdb_report *r, const char *dev, const char *field, const char *have, const char *fix,
             const char *want_fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
