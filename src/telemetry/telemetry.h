/*
 * telemetry.h — what a run records beyond its counters, and the exporters that need the live
 * network: one bundle per run, created by the run after the network and transport exist.
 *
 *   telemetry *tel = telemetry_new(net, sc, pcap_filter, &e);   // NULL + e on a bad filter
 *   telemetry_set_rates(tel, rate_fn, ctx, n_qps, qps_per_flow); // optional: DCQCN series
 *   ... simulate ...
 *   telemetry_write_timeseries / _rates / _prom / _trace / _pcap   (the CLI, after the run)
 *   telemetry_free(tel);                                         // before or after sim_free
 *
 * What is switched on follows output.formats, so a run that asks for none of these pays
 * nothing (no sampler event, no tap):
 *   sampler (timeseries.csv, dcqcn_rates.csv)  csv, html or trace, and sample_interval > 0
 *   pcap capture (capture.pcap)                 pcap
 *   trace writer (trace.json)                   trace
 * Prometheus (metrics.prom) needs only the run's counters plus the port metadata kept here
 * (which node owns a port, switch or host), so it is always available.
 *
 * Layering: telemetry sits above workload (DESIGN.md). The parts the run creates (sampler.h,
 * pcap.h, trace.h, this bundle) depend only on net; the exporters that read run_stats
 * (prom.h, telemetry_write_trace) live here too but the run never calls them.
 */
#ifndef WR_TELEMETRY_TELEMETRY_H
#define WR_TELEMETRY_TELEMETRY_H

#include <stdio.h>

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"
#include "pcap.h"
#include "sampler.h"
#include "trace.h"

struct run_stats;

/* Static facts about a port, copied at creation (the net may be gone when exporters run). */
typedef struct tel_port_meta {
    char node[24], peer[24];
    uint8_t node_is_switch, peer_is_switch;
    uint8_t tier, peer_tier;         /* enum switch_tier */
} tel_port_meta;

typedef struct telemetry {
    net *net;                        /* borrowed; only while the run lives */
    const scenario *sc;              /* borrowed */
    uint32_t n_ports;
    tel_port_meta *meta;             /* [n_ports], net->ports order (= run_stats.ports order) */
    uint8_t lossless;                /* PFC lossless classes */
    sampler *smp;                    /* NULL when not sampling */
    pcap_capture *pcap;              /* NULL when not capturing */
    trace_writer *trace;             /* NULL unless output.formats has trace */
} telemetry;

/* Create what sc->output_formats needs for the run on n (both borrowed). `pcap_filter` is
 * telemetry.pcap.filter (NULL = all; syntax in pcap.h). NULL + *e (ERR_INVALID) on a bad
 * filter. Call after the transport exists (it may install its own hooks; ours is the tap). */
telemetry *telemetry_new(net *n, const scenario *sc, const char *pcap_filter, err *e);
/* Record per-QP pacing rates too (no-op when not sampling). Before the simulation starts. */
/* The sampler's sync hook (sampler_set_sync); no-op without a sampler. */
void telemetry_set_sync(telemetry *t, sampler_sync_fn fn, void *ctx);
void telemetry_set_rates(telemetry *t, sampler_rate_fn fn, void *ctx, uint32_t n_qps,
                         uint32_t qps_per_flow);
/* Tick events the sampler executed — part of sim.events, not of the model. */
uint64_t telemetry_events(const telemetry *t);
/* The trace writer job executors add slices to (NULL when trace output is off). */
trace_writer *telemetry_trace(telemetry *t);
void telemetry_free(telemetry *t);

/* Exporters. Each returns 0, or -1 on a stream error. `st` borrowed. */
int telemetry_write_timeseries(FILE *f, const telemetry *t);
int telemetry_write_rates(FILE *f, const telemetry *t);
int telemetry_write_pcap(FILE *f, const telemetry *t);
/* trace.json: the executors' events plus one slice per flow and queue-depth counters. */
int telemetry_write_trace(FILE *f, telemetry *t, const struct run_stats *st);

#endif
