/*
 * vxlan.c — the EVPN-VXLAN overlay of a multi-tenant fabric (scenario `tenants:`).
 *
 * Model (RFC 7348 VXLAN; RFC 8365 EVPN network virtualization overlay; RFC 9135/9136
 * symmetric IRB and IP-prefix routes):
 * - Each tenant is a VRF with its own L3 VNI. The VTEPs are the leaf switches (fabric.vtep
 *   leaf, the usual EVPN-VXLAN fabric: a leaf's loopback is the VTEP address) or the hosts'
 *   NICs/DPUs (fabric.vtep host, a host-based VTEP such as BlueField's OVS/DOCA offload: the
 *   NIC's own address).
 * - Encapsulation adds WIRE_VXLAN_OVERHEAD = 50 frame bytes (outer Ethernet 14, IPv4 20,
 *   UDP 8, VXLAN 8; the inner FCS is not carried, the outer frame has its own). With leaf VTEPs
 *   the ingress leaf adds them when it forwards a frame from a host to another switch and the
 *   egress leaf removes them when it forwards a frame from a switch to a host (port.c), so host
 *   links carry plain RoCEv2 and leaf-spine links carry the overhead; a frame between two hosts
 *   of one leaf is bridged/routed locally and never encapsulated. With host VTEPs the NIC builds
 *   encapsulated frames (nic.c) and every link carries them.
 * - The underlay hashes the outer header: source and destination VTEP addresses, the outer UDP
 *   source port and destination port 4789. RFC 7348 §5 recommends the source port be a hash of
 *   the inner headers in the dynamic/private range 49152–65535, so the inner flow's entropy
 *   (the QP's UDP source port) survives encapsulation — except that hosts behind one leaf share
 *   its VTEP address.
 * - The tenant of a frame is its QP's (net.qp_tenant); the packet struct carries none.
 */
#include "net.h"

#include "../core/arena.h"

/* CRC-32 (IEEE 802.3, reflected), bitwise: 13 bytes per call. */
static uint32_t crc32_bytes(const uint8_t *b, uint32_t len)
{
    uint32_t c = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < len; i++) {
        c ^= b[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

uint16_t net_vxlan_sport(uint32_t inner_sip, uint32_t inner_dip, uint16_t inner_sport)
{
    uint8_t b[13] = {(uint8_t)(inner_sip >> 24),
                     (uint8_t)(inner_sip >> 16),
                     (uint8_t)(inner_sip >> 8),
                     (uint8_t)inner_sip,
                     (uint8_t)(inner_dip >> 24),
                     (uint8_t)(inner_dip >> 16),
                     (uint8_t)(inner_dip >> 8),
                     (uint8_t)inner_dip,
                     (uint8_t)(inner_sport >> 8),
                     (uint8_t)inner_sport,
                     (uint8_t)(ROCEV2_UDP_PORT >> 8),
                     (uint8_t)ROCEV2_UDP_PORT,
                     IP_PROTO_UDP};
    uint32_t h = crc32_bytes(b, sizeof b);
    return (uint16_t)(49152u + (h ^ (h >> 16)) % 16384u);
}

void net_vxlan_setup(net *n, const scenario *sc)
{
    if (!sc->n_tenants)
        return;
    n->vxlan = (uint8_t)(sc->vtep + 1);
    n->n_tenants = sc->n_tenants;
    n->tenant_ctr = ARENA_NEW_ARRAY(&n->mem, net_tenant_ctr, sc->n_tenants);
    n->vtep_ip = ARENA_NEW_ARRAY(&n->mem, uint32_t, n->n_hosts ? n->n_hosts : 1);
    for (uint32_t h = 0; h < n->n_hosts; h++) {
        const node *x = n->hosts[h];
        n->vtep_ip[h] = x->ip;
        if (sc->vtep == VTEP_LEAF && x->net_port != UINT32_MAX) {
            const node *leaf = x->ports[x->net_port].peer->owner;
            /* the leaf's loopback, as plan numbers them (10.255.0.0/16, plan_loopback) */
            if (leaf->kind == NODE_SWITCH)
                n->vtep_ip[h] = 0x0AFF0000u + leaf->index + 1;
        }
    }
}
