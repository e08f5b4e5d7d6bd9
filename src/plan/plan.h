/*
 * plan.h — the build sheet of a built fabric (`wirerate plan`): what to buy, where it goes, how
 * it is cabled, addressed and configured. Reads the built topology (net) and the scenario; no
 * simulation (DESIGN.md: plan / check read the built topology and config).
 *
 * Model (docs/plan.md has every default with its source):
 * - Racks. Servers per rack = ⌊plan.rack_power / plan.server_power⌋ (air 15 kW, liquid 130 kW;
 *   an 8-GPU server 10.2 kW). Server racks stand in rows of plan.racks_per_row, 600 mm wide
 *   (EIA-310 enclosures), rows 4.2 m apart (the 7-tile hot/cold-aisle pitch of 600 mm floor
 *   tiles). Switch placement: end-of-row (each leaf in a network rack at the end of the row of
 *   its first server; spines and super-spines in a network row after the last server row,
 *   plan.switches_per_rack per rack) or top-of-rack (each leaf in the rack of its first server).
 * - Cable length between two racks = the Manhattan distance between them along the trays plus
 *   1.5 m at each end (riser from the port to the overhead tray), 2 m inside one rack, rounded up
 *   to the next length sold; the class is the cheapest whose reach covers it at the link's lane
 *   rate (DAC / AEC / AOC / SR / DR / FR / LR).
 * - Ports. A switch's cages run at its fastest port speed; a slower port whose speed divides it
 *   (2, 4 or 8 times) shares a cage with its neighbours (a breakout). SONiC names ports by their
 *   first lane, 8 lanes per cage: Ethernet<8·cage + sub·8/ways>.
 * - Addresses. A /31 per link: host links take 10.0.0.2h (leaf) and 10.0.0.2h+1 (NIC port h,
 *   the address the simulator gives it); switch-to-switch links take 172.16.0.0/12 in link order,
 *   the lower tier the even address; loopbacks 10.255.0.0/16. Optional IPv6 /127s from the
 *   ULA fd00::/8 (RFC 4193). ASNs in the RFC 7938 §5.2.1 style from plan.asn_base (RFC 6996
 *   private 32-bit): the top tier shares one ASN, each spine group (spines joined to the same
 *   leaves: a pod and plane) shares one, every leaf has its own.
 * Memory and time are linear in ports; no host pairs.
 */
#ifndef WR_PLAN_PLAN_H
#define WR_PLAN_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "../net/net.h"

enum plan_cable {
    CABLE_DAC,
    CABLE_AEC,
    CABLE_AOC,
    CABLE_SR,
    CABLE_DR,
    CABLE_FR,
    CABLE_LR,
    CABLE_CLASSES
};

typedef struct plan_rack {
    uint32_t row, pos; /* position: row, slot within the row */
    uint32_t servers, switches;
    uint64_t power_w; /* servers + switches (+ their optics) */
    int network;      /* a network rack (switches only) */
} plan_rack;

typedef struct plan {
    const net *n;       /* borrowed */
    const scenario *sc; /* borrowed */
    uint64_t rack_budget_w, server_w;
    uint32_t servers_per_rack;
    uint32_t server_racks, rows, n_racks; /* racks: server racks first, then network racks */
    plan_rack *racks;
    uint32_t *server_rack;  /* [n_servers] */
    uint32_t *switch_rack;  /* [n_switches]; UINT32_MAX for scale-up domains (in the server) */
    uint32_t *port_slot;    /* [n_ports] switch ports: first lane (Ethernet<slot>); host
                             * ports: the NIC port's local index in its server */
    uint8_t *port_ways;     /* [n_ports] breakout ways of the port's cage (1 = none) */
    uint32_t *switch_cages; /* [n_switches] cages in use */
    uint64_t *switch_bps;   /* [n_switches] cage speed (the fastest port) */
    uint64_t *switch_w;     /* [n_switches] power (without optics) */
    uint32_t n_links;       /* n_ports / 2; link i = ports 2i (A, lower tier) and 2i+1 (B) */
    uint32_t *link_len_mm;  /* [n_links] 0 for scale-up links (inside a server) */
    uint8_t *link_class;    /* [n_links] enum plan_cable */
    uint32_t *link_p2p;     /* [n_links] /31 index among switch-to-switch links, or
                             * UINT32_MAX for host links and scale-up links */
    uint32_t n_fabric_links;
    uint64_t *asn; /* [n_switches] 0 for scale-up domains */
    uint64_t optics_w, switches_w, servers_w, total_w;
    uint32_t *srv_host;   /* [n_servers + 1] first NIC port (host) of each server: the
                           * hosts of a server are contiguous (topo.c) */
    uint32_t *sw_dev;     /* [n_switches] index in sc->devices, UINT32_MAX = defaults */
    uint32_t *host_dev;   /* [n_hosts] (NIC ports) the same */
    uint32_t long_links;  /* cables longer than the simulated link (headroom too small) */
    uint32_t over_budget; /* racks above the power budget (top-of-rack switches) */
} plan;

/* A switch's and a NIC port's configuration: the fabric defaults (switch.*, fabric.mtu, nic.*)
 * with the scenario's `devices:` entry for it applied. */
typedef struct plan_sw_cfg {
    uint32_t mtu; /* port MTU */
    uint8_t pfc;  /* pfc_enable classes (0 = PFC off) */
    uint64_t kmin_bytes, kmax_bytes;
    double pmax;
    bool ecn;
    int8_t dscp_to_tc[64];
} plan_sw_cfg;
typedef struct plan_nic_cfg {
    uint32_t netdev_mtu;
    uint8_t pfc, priority, cnp_priority, dscp, cnp_dscp, trust;
} plan_nic_cfg;
void plan_get_switch_cfg(const plan *p, const node *sw, plan_sw_cfg *c);
void plan_get_nic_cfg(const plan *p, const node *host, plan_nic_cfg *c);

/* Lay out the fabric of n (borrowed; must outlive *p). ERR_INVALID with *e at the plan key that
 * cannot work (a server above the rack budget, more addresses than the pools hold, a `devices`
 * entry naming no switch or NIC of the fabric). */
int plan_build(plan *p, const net *n, err *e);
void plan_free(plan *p);

const char *plan_cable_name(enum plan_cable c);
/* The cheapest cable class whose reach covers len_mm at link speed bps (sources in plan.c). */
enum plan_cable plan_cable_class(uint64_t bps, uint32_t len_mm);
/* The radix of a switch's model: fabric.leaf_radix for leaves, spine_radix above, the ports in
 * use for custom switches. */
uint32_t plan_switch_radix(const plan *p, const node *sw);
/* The fabric is InfiniBand (fabric.link_layer infiniband): the build sheet configures a subnet
 * manager and IPoIB instead of SONiC, eBGP and RoCE (docs/plan.md "InfiniBand"). */
bool plan_ib(const plan *p);
/* Names used in every file: "server3", SONiC "Ethernet8", NIC "eth2" / "mlx5_2"; on
 * InfiniBand switch ports "ib1/5" (cage 5; "ib1/5/2" split) and NIC ports "mlx5_2". */
void plan_server_name(uint32_t server, char *buf, size_t len);
void plan_port_name(const plan *p, const port *pt, char *buf, size_t len);
/* A class mask (bits 0..7) as "3,4", or "(none)". */
void plan_mask_text(unsigned m, char *buf, size_t len);
/* Device of a port: the switch's name, or the server of a NIC port. */
void plan_device_name(const plan *p, const node *x, char *buf, size_t len);
/* The RoCE data and CNP DSCP values the plan configures (trust dscp: priority = DSCP / 8). */
uint32_t plan_data_dscp(const scenario *sc);
uint32_t plan_cnp_dscp(const scenario *sc);
/* IPv4 addresses of link i's A and B ends (host byte order); loopback of switch index s. */
void plan_link_addr(const plan *p, uint32_t link, uint32_t *a, uint32_t *b);
uint32_t plan_loopback(const plan *p, uint32_t switch_index);
/* "10.0.0.1" */
void plan_ip4(uint32_t ip, char *buf, size_t len);
/* A NIC port's address with its prefix: its link's /31 on Ethernet; on InfiniBand its IPoIB
 * address in the subnet's one 10.0.0.0/8 (10.0.0.0 + host index + 1). */
void plan_nic_addr(const plan *p, const port *pt, char *buf, size_t len);

/* Writers: each writes one file of the build sheet to f (borrowed); they never fail (the caller
 * checks the stream). */
void plan_write_bom(FILE *f, const plan *p);
void plan_write_racks(FILE *f, const plan *p);
void plan_write_addressing(FILE *f, const plan *p);
void plan_write_cabling(FILE *f, const plan *p);
void plan_write_config_db(FILE *f, const plan *p, const node *sw);
/* InfiniBand: the subnet manager's settings the simulation assumed (OpenSM option names) and
 * its partition with the IB MTU. */
void plan_write_opensm(FILE *f, const plan *p);
void plan_write_partitions(FILE *f, const plan *p);
void plan_write_nic_script(FILE *f, const plan *p, uint32_t server);
void plan_write_nccl_env(FILE *f, const plan *p, uint32_t job);
void plan_write_k8s_rail(FILE *f, const plan *p, uint32_t rail);
void plan_write_k8s_pods(FILE *f, const plan *p);
void plan_write_md(FILE *f, const plan *p);
/* plan.html: the summary page (as plan.md) with the BOM table and power per rack as SVG. */
void plan_write_html(FILE *f, const plan *p);
/* Rails (NICs per server) and NIC ports of a preset fabric (custom: 1 and 1). */
uint32_t plan_rails(const plan *p);
/* The rack a node sits in: a host its server's, a storage server its storage leaf's, a switch its
 * own. */
uint32_t plan_node_rack(const plan *p, const node *x);

#endif
