/*
 * lb.h — load balancing: which member of an ECMP group a packet takes at a switch.
 *
 * One interface (net's lb_pick_fn), several policies (models.md "Load balancing"):
 *  - ecmp: hash of the selected 5-tuple fields (src IP, dst IP, UDP src port, dst port 4791,
 *    protocol 17) with the switch's own seed; member = hash mod group size. Hash families as SAI
 *    names them: CRC32 (IEEE 802.3, reflected, seed as initial value), CRC16 (CCITT 0x1021,
 *    seed as initial value), XOR (fold of the fields, seed mixed in), "random" — a draw from the
 *    switch's stream per packet.
 *  - spray: every packet picks a member independently at random from the switch's stream.
 *  - adaptive: the member with the least egress queue bytes; ties broken by the ECMP hash so
 *    a flow stays put while queues are equal.
 * flowlet and collective-aware policies arrive with the fabric issue and are rejected at build
 * time until then.
 */
#ifndef WR_LB_LB_H
#define WR_LB_LB_H

#include <stdint.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"

/* Install the policy of sc->lb on the network. Returns 0, or ERR_INVALID with *e set. */
int lb_install(net *n, const scenario *sc, err *e);

/* The ECMP hash of pkt at sw under `cfg` (exposed for tests). */
uint32_t lb_hash(const cfg_lb *cfg, const node *sw, const packet *pkt);

uint32_t lb_crc32(uint32_t seed, const uint8_t *buf, uint32_t len);
uint16_t lb_crc16(uint16_t seed, const uint8_t *buf, uint32_t len);

#endif
