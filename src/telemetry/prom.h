/*
 * prom.h — Prometheus text exposition format 0.0.4 (metrics.prom) of a run's counters, named
 * after the counters a SONiC switch (SAI port/queue stats, PFC watchdog) and a RoCE NIC
 * (mlx5 hw counters) export, so dashboards built for a real fabric read a simulated one.
 *
 *   metric (prometheus)                             source counter it stands for
 *   wirerate_port_tx_bytes_total                    SAI_PORT_STAT_IF_OUT_OCTETS (MAC frame octets,
 *                                                   DA..FCS: RFC 2863 ifHCOutOctets, RFC 3635)
 *   wirerate_port_tx_wire_bytes_total               (line bytes: + preamble/SFD and IPG; no SAI
 *                                                   counter, the basis of utilization)
 *   wirerate_port_tx_packets_total                  SAI_PORT_STAT_IF_OUT_UCAST_PKTS
 *   wirerate_port_queue_watermark_bytes             SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES
 *   wirerate_port_utilization_ratio                 busy time / simulated time
 *   wirerate_port_ecn_marked_packets_total          SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS
 *   wirerate_port_pfc_tx_pause_frames_total         SAI_PORT_STAT_PFC_<p>_TX_PKTS (XOFF frames)
 *   wirerate_port_pfc_rx_pause_frames_total         SAI_PORT_STAT_PFC_<p>_RX_PKTS
 *   wirerate_port_pfc_paused_seconds_total          SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US
 *   wirerate_port_pfc_watchdog_storms_total         SONiC PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED
 *   wirerate_port_dropped_packets_total{reason=}    SAI_PORT_STAT_IF_OUT_DISCARDS by reason
 *                                                   (reason="pfc_headroom": lossless frames lost
 *                                                   to a full headroom, at the ingress port)
 *   wirerate_nic_cnp_sent_total                     mlx5 np_cnp_sent
 *   wirerate_nic_cnp_handled_total                  mlx5 rp_cnp_handled
 *   wirerate_nic_retransmitted_packets_total        (requester retransmissions)
 *   wirerate_nic_out_of_sequence_total              mlx5 out_of_sequence
 *   wirerate_nic_rto_events_total                   mlx5 local_ack_timeout_err
 *   wirerate_job_completion_seconds{job=}           JCT (completed jobs)
 *   wirerate_flow_completion_seconds (summary)      FCT p50/p99 over completed flows
 *   wirerate_sim_end_seconds, wirerate_sim_events_total
 * Labels: switch="leaf0" for a switch port, host="h3" for a NIC port, port="leaf0->spine1",
 * peer="spine1"; PFC metrics carry priority="3" when exactly one class is lossless (the port
 * counts pauses of all lossless classes together; with several the label is omitted). NIC
 * counters are run-wide totals (no per-host figures exist yet). Times are seconds, as
 * Prometheus names them; the ps-exact figures stay in summary.json.
 */
#ifndef WR_TELEMETRY_PROM_H
#define WR_TELEMETRY_PROM_H

#include <stdio.h>

#include "../config/config.h"
#include "telemetry.h"

struct run_stats;

/* Write metrics.prom. `tel` may be NULL: switch/host labels are then guessed from the port
 * name (owner = the part before "->"; hosts are "h<N>"). Returns 0, or -1 on a stream error. */
int prom_write(FILE *f, const scenario *sc, const struct run_stats *st, const telemetry *tel);

#endif
