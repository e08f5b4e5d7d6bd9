/*
 * summary.h — the results of one run, for people and for scripts:
 *   summary.json  (the stable contract of spec/scenario.md "summary.json", plus additions)
 *   the human summary the CLI prints on stdout
 *   flows.csv and ports.csv (output.formats: csv)
 *
 * Every figure comes from run_stats (workload/run.h); nothing is recomputed here except
 * presentation (unit scaling, ranking ports by queue depth). These functions write to a stream
 * the caller owns and never print anywhere else; they return 0, or -1 when the stream reports an
 * error (errno is left as the failing stdio call set it).
 */
#ifndef WR_REPORT_SUMMARY_H
#define WR_REPORT_SUMMARY_H

#include <stdio.h>

#include "../config/config.h"
#include "../workload/run.h"
#include "diagnose.h"

struct fault_record;
/* "local fast reroute at 20 us; remote detect 1 ms + converge 4 ms, last reconverged at ..."
 * for a routing fault that fired, else "". */
void summary_fault_reroute(char *buf, size_t len, const cfg_fault *c,
                           const struct fault_record *r);

/* summary.json, pretty-printed, key order as in the spec. `sc` and `st` are borrowed. */
int summary_write_json(FILE *f, const scenario *sc, const run_stats *st);

/* The human summary. `files` (n_files paths, may be 0) are listed as the output written. */
int summary_write_text(FILE *f, const scenario *sc, const run_stats *st, const char *const *files,
                       int n_files);


/* flows.csv: job,src_host,dst_host,size_bytes,delivered_bytes,start_ps,end_ps,fct_ps
 * (end_ps and fct_ps empty for flows that did not complete). */
int summary_write_flows_csv(FILE *f, const run_stats *st);
/* transfers.csv: job,iteration,phase,step,src_gpu,dst_gpu,bytes,start_ps,end_ps — every
 * transfer of collective and training jobs (run.h transfer_record; dst_gpu empty for a training
 * group collective, whose src_gpu is the group's first GPU). */
int summary_write_transfers_csv(FILE *f, const run_stats *st);
/* requests.csv: one row per request of the inference jobs (arrival, first token, last token,
 * TTFT, TPOT; empty fields for what did not happen). */
int summary_write_requests_csv(FILE *f, const run_stats *st);

/* ports.csv: port,tx_bytes,tx_packets,max_queue_bytes,utilization,ecn_marked,pfc_pause_sent,
 * pfc_paused_ps,drop_buffer_full,drop_link_down,drop_bit_error,drop_no_route,drop_pfc_watchdog,
 * drop_ttl,pfc_pause_rx,pfc_watchdog_events,rx_bytes,rx_packets,tx_wire_bytes,drop_pfc_headroom,
 * credit_stall_ps,fecn_marked,fcp_sent,ib_peak_bytes (the last four InfiniBand's, 0 on Ethernet)
 * (drops in packets; tx_bytes/rx_bytes are MAC frame octets as ifHCOutOctets/ifHCInOctets,
 * tx_wire_bytes adds preamble/SFD and IPG; utilization = busy time / simulated time, 0..1;
 * columns added after the first release go at the end so that readers by position keep
 * working). */
int summary_write_ports_csv(FILE *f, const run_stats *st);
/* queues.csv: port,priority,tx_bytes,tx_packets,ecn_marked,dropped_packets,pfc_pause_sent,
 * pfc_pause_rx,pfc_paused_ps — one row per (port, class) that carried or paused anything. */
int summary_write_queues_csv(FILE *f, const run_stats *st);
/* nics.csv: host,cnp_sent,cnp_handled,retransmitted_packets,out_of_sequence,rto_events. */
int summary_write_nics_csv(FILE *f, const run_stats *st);
/* tenants.csv (with tenants:): one row per tenant, the counters of tenant_record. */
int summary_write_tenants_csv(FILE *f, const run_stats *st);

/* Human-readable quantities into buf (returns buf): "1.234 ms", "4.19 MB" (10^3), "400 Gbps". */
char *summary_fmt_time(char *buf, size_t len, sim_time ps);
char *summary_fmt_bytes(char *buf, size_t len, uint64_t bytes);

#endif
