/*
 * prom.c — Prometheus text exposition of a run (prom.h). Each metric family is written whole
 * (HELP, TYPE, then every sample), as the format requires; label values are escaped (\\, \",
 * \n). Families whose samples would all be absent are still declared, so a dashboard finds
 * every metric name in every run.
 */
#include "prom.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"
#include "../workload/run.h"

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n') {
            fputs("\\n", f);
            continue;
        }
        fputc(*s, f);
    }
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

typedef struct ctx {
    FILE *f;
    const run_stats *st;
    const telemetry *tel;
    int prio; /* the single lossless class, or -1 */
} ctx;

static bool is_host_name(const char *s)
{
    if (s[0] != 'h' || !isdigit((unsigned char)s[1]))
        return false;
    for (s++; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* {switch="leaf0",port="leaf0->spine1",peer="spine1"[,priority="3"] */
static void port_labels(const ctx *c, uint32_t i, bool prio)
{
    const char *name = c->st->ports[i].name;
    char owner[48], peer[48];
    bool sw;
    if (c->tel && i < c->tel->n_ports) {
        snprintf(owner, sizeof owner, "%s", c->tel->meta[i].node);
        snprintf(peer, sizeof peer, "%s", c->tel->meta[i].peer);
        sw = c->tel->meta[i].node_is_switch;
    } else {
        const char *arrow = strstr(name, "->");
        size_t l = arrow ? (size_t)(arrow - name) : strlen(name);
        if (l >= sizeof owner)
            l = sizeof owner - 1;
        memcpy(owner, name, l);
        owner[l] = 0;
        snprintf(peer, sizeof peer, "%s", arrow ? arrow + 2 : "");
        char *hash = strchr(peer, '#');
        if (hash)
            *hash = '\0';
        sw = !is_host_name(owner);
    }
    fprintf(c->f, "{%s=\"", sw ? "switch" : "host");
    esc(c->f, owner);
    fputs("\",port=\"", c->f);
    esc(c->f, name);
    fputs("\",peer=\"", c->f);
    esc(c->f, peer);
    fputc('"', c->f);
    if (prio && c->prio >= 0)
        fprintf(c->f, ",priority=\"%d\"", c->prio);
}

typedef enum {
    F_TX_BYTES, F_TX_PKTS, F_WM, F_UTIL, F_ECN, F_PFC_TX, F_PFC_RX, F_PAUSED, F_WD,
    F_RX_BYTES, F_RX_PKTS, F_TX_WIRE,
} fld;

static void port_family(const ctx *c, fld which, const char *name, const char *type,
                        const char *help, bool prio)
{
    family(c->f, name, type, help);
    for (uint32_t i = 0; i < c->st->n_ports; i++) {
        const port_record *p = &c->st->ports[i];
        fputs(name, c->f);
        port_labels(c, i, prio);
        fputs("} ", c->f);
        switch (which) {
        case F_TX_BYTES: fprintf(c->f, "%" PRIu64, p->tx_bytes); break;
        case F_TX_PKTS: fprintf(c->f, "%" PRIu64, p->tx_packets); break;
        case F_WM: fprintf(c->f, "%" PRIu64, p->max_queue_bytes); break;
        case F_UTIL: fprintf(c->f, "%.6g", p->utilization); break;
        case F_ECN: fprintf(c->f, "%" PRIu64, p->ecn_marked); break;
        case F_PFC_TX: fprintf(c->f, "%" PRIu64, p->pfc_pause_sent); break;
        case F_PFC_RX: fprintf(c->f, "%" PRIu64, p->pfc_pause_rx); break;
        case F_PAUSED: fprintf(c->f, "%.12g", (double)p->pfc_paused_ps * 1e-12); break;
        case F_WD: fprintf(c->f, "%" PRIu64, p->wd_events); break;
        case F_RX_BYTES: fprintf(c->f, "%" PRIu64, p->rx_bytes); break;
        case F_RX_PKTS: fprintf(c->f, "%" PRIu64, p->rx_packets); break;
        case F_TX_WIRE: fprintf(c->f, "%" PRIu64, p->tx_wire_bytes); break;
        }
        fputc('\n', c->f);
    }
}

static void scalar(FILE *f, const char *name, const char *type, const char *help, double v)
{
    family(f, name, type, help);
    fprintf(f, "%s %.12g\n", name, v);
}

int prom_write(FILE *f, const scenario *sc, const run_stats *st, const telemetry *tel)
{
    ctx c = {f, st, tel, -1};
    uint8_t lossless = tel ? tel->lossless : (sc->sw.pfc_enabled ? sc->sw.pfc_priorities : 0);
    if (lossless && !(lossless & (lossless - 1)))
        c.prio = __builtin_ctz(lossless);

    port_family(&c, F_TX_BYTES, "wirerate_port_tx_bytes_total", "counter",
                "MAC frame octets sent by the egress port, destination address through FCS, "
                "no preamble/SFD or inter-frame gap (SAI_PORT_STAT_IF_OUT_OCTETS, "
                "ifHCOutOctets).",
                false);
    port_family(&c, F_TX_WIRE, "wirerate_port_tx_wire_bytes_total", "counter",
                "Line bytes sent by the egress port: frames plus preamble/SFD (8) and "
                "inter-frame gap (12) each; the time on the wire that utilization measures "
                "(no SAI counter).",
                false);
    port_family(&c, F_TX_PKTS, "wirerate_port_tx_packets_total", "counter",
                "Frames transmitted by the egress port (SAI_PORT_STAT_IF_OUT_UCAST_PKTS).", false);
    port_family(&c, F_WM, "wirerate_port_queue_watermark_bytes", "gauge",
                "Deepest egress queue over the run, all classes "
                "(SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES).",
                false);
    port_family(&c, F_UTIL, "wirerate_port_utilization_ratio", "gauge",
                "Serialization time over simulated time, 0..1.", false);
    port_family(&c, F_ECN, "wirerate_port_ecn_marked_packets_total", "counter",
                "Packets marked CE at enqueue (SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS).", false);
    port_family(&c, F_PFC_TX, "wirerate_port_pfc_tx_pause_frames_total", "counter",
                "PFC PAUSE (XOFF) frames sent by this port to its peer "
                "(SAI_PORT_STAT_PFC_n_TX_PKTS).",
                true);
    port_family(&c, F_PFC_RX, "wirerate_port_pfc_rx_pause_frames_total", "counter",
                "PFC frames received from the peer that paused this egress port "
                "(SAI_PORT_STAT_PFC_n_RX_PKTS).",
                true);
    port_family(&c, F_PAUSED, "wirerate_port_pfc_paused_seconds_total", "counter",
                "Time this egress port was paused by its peer "
                "(SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US, in seconds).",
                true);
    port_family(&c, F_WD, "wirerate_port_pfc_watchdog_storms_total", "counter",
                "PFC storms detected by the watchdog on this port "
                "(SONiC PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED).",
                true);

    family(f, "wirerate_port_dropped_packets_total", "counter",
           "Packets dropped at the egress port, by reason (SAI_PORT_STAT_IF_OUT_DISCARDS).");
    for (uint32_t i = 0; i < st->n_ports; i++)
        for (int r = 0; r < DROP_REASONS; r++) {
            fputs("wirerate_port_dropped_packets_total", f);
            port_labels(&c, i, false);
            fprintf(f, ",reason=\"%s\"} %" PRIu64 "\n", drop_reason_name((enum drop_reason)r),
                    st->ports[i].drops[r]);
        }

    family(f, "wirerate_port_trimmed_packets_total", "counter",
           "Data packets this egress port cut to their header instead of dropping them "
           "(switch.trimming; Spectrum-4 trim counters). Not drops.");
    for (uint32_t i = 0; i < st->n_ports; i++) {
        fputs("wirerate_port_trimmed_packets_total", f);
        port_labels(&c, i, false);
        fprintf(f, "} %" PRIu64 "\n", st->ports[i].trimmed);
    }

    /* per traffic class: SAI queue / PFC-per-priority counters, for the (port, class) pairs
     * that carried or paused anything */
    static const struct {
        const char *name, *help;
        int which;
    } pq[] = {
        {"wirerate_queue_tx_bytes_total", "MAC frame octets sent from this egress queue "
                                          "(class) (SAI_QUEUE_STAT_BYTES).", 0},
        {"wirerate_queue_tx_packets_total", "Frames sent from this egress queue "
                                            "(SAI_QUEUE_STAT_PACKETS).", 1},
        {"wirerate_queue_ecn_marked_packets_total", "Frames of this class marked CE "
                                                    "(SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS).", 2},
        {"wirerate_queue_dropped_packets_total", "Frames of this class dropped, any reason "
                                                 "(SAI_QUEUE_STAT_DROPPED_PACKETS).", 3},
        {"wirerate_pfc_tx_pause_frames_total", "PAUSE frames naming this class sent to the peer "
                                               "(SAI_PORT_STAT_PFC_n_TX_PKTS).", 4},
        {"wirerate_pfc_rx_pause_frames_total", "PAUSE frames naming this class received "
                                               "(SAI_PORT_STAT_PFC_n_RX_PKTS).", 5},
        {"wirerate_pfc_paused_seconds_total", "Time this class was paused at this egress "
                                              "(SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US, s).", 6},
    };
    for (size_t k = 0; k < sizeof pq / sizeof *pq; k++) {
        family(f, pq[k].name, "counter", pq[k].help);
        for (uint32_t i = 0; i < st->n_ports; i++) {
            const port_record *p = &st->ports[i];
            for (int q = 0; q < 8; q++) {
                if (!(p->prio_tx_packets[q] | p->prio_drops[q] | p->prio_pause_sent[q] |
                      p->prio_pause_rx[q]))
                    continue;
                fputs(pq[k].name, f);
                port_labels(&c, i, false);
                fprintf(f, ",priority=\"%d\"} ", q);
                switch (pq[k].which) {
                case 0: fprintf(f, "%" PRIu64 "\n", p->prio_tx_bytes[q]); break;
                case 1: fprintf(f, "%" PRIu64 "\n", p->prio_tx_packets[q]); break;
                case 2: fprintf(f, "%" PRIu64 "\n", p->prio_ecn_marked[q]); break;
                case 3: fprintf(f, "%" PRIu64 "\n", p->prio_drops[q]); break;
                case 4: fprintf(f, "%" PRIu64 "\n", p->prio_pause_sent[q]); break;
                case 5: fprintf(f, "%" PRIu64 "\n", p->prio_pause_rx[q]); break;
                default: fprintf(f, "%.12g\n", (double)p->prio_paused_ps[q] * 1e-12); break;
                }
            }
        }
    }
    port_family(&c, F_RX_BYTES, "wirerate_port_rx_bytes_total", "counter",
                "MAC frame octets received from the peer, destination address through FCS "
                "(SAI_PORT_STAT_IF_IN_OCTETS, ifHCInOctets).",
                false);
    port_family(&c, F_RX_PKTS, "wirerate_port_rx_packets_total", "counter",
                "Frames received from the peer (SAI_PORT_STAT_IF_IN_UCAST_PKTS).", false);

    /* per NIC port (host) */
    static const struct {
        const char *name, *help;
        int which;
    } nq[] = {
        {"wirerate_nic_port_cnp_sent_total", "CNPs this NIC sent as notification point "
                                             "(mlx5 np_cnp_sent).", 0},
        {"wirerate_nic_port_cnp_handled_total", "CNPs this NIC handled as reaction point "
                                                "(mlx5 rp_cnp_handled).", 1},
        {"wirerate_nic_port_retransmitted_packets_total", "Data packets this NIC sent again.", 2},
        {"wirerate_nic_port_out_of_sequence_total", "Packets this NIC received above the "
                                                    "expected PSN (mlx5 out_of_sequence).", 3},
        {"wirerate_nic_port_rto_events_total", "Retransmission timeouts at this NIC "
                                               "(mlx5 local_ack_timeout_err).", 4},
        {"wirerate_nic_port_naks_sent_total", "Sequence-error NAKs this NIC sent as responder.",
         5},
        {"wirerate_nic_port_naks_received_total", "Sequence-error NAKs this NIC received as "
                                                  "requester (mlx5 packet_seq_err).", 6},
        {"wirerate_nic_port_qps_failed_total", "QPs of this NIC that exceeded nic.retry_count "
                                               "and went to the error state.", 7},
        {"wirerate_nic_port_trims_received_total", "Trimmed headers that reached this NIC as "
                                                   "UET receiver (each NAKed).", 8},
    };
    for (size_t k = 0; k < sizeof nq / sizeof *nq; k++) {
        family(f, nq[k].name, "counter", nq[k].help);
        for (uint32_t h = 0; h < st->n_nics; h++) {
            const nic_record *n = &st->nics[h];
            uint64_t v = nq[k].which == 0   ? n->cnp_sent
                         : nq[k].which == 1 ? n->cnp_handled
                         : nq[k].which == 2 ? n->retransmitted_packets
                         : nq[k].which == 3 ? n->out_of_sequence
                         : nq[k].which == 4 ? n->rto_events
                         : nq[k].which == 5 ? n->naks_sent
                         : nq[k].which == 6 ? n->naks_received
                         : nq[k].which == 7 ? n->qps_failed
                                            : n->trims_received;
            fprintf(f, "%s{host=\"h%" PRIu32 "\"} %" PRIu64 "\n", nq[k].name, h, v);
        }
    }

    scalar(f, "wirerate_nic_cnp_sent_total", "counter",
           "CNPs sent by notification points, all NICs (mlx5 np_cnp_sent).", (double)st->cnp_sent);
    scalar(f, "wirerate_nic_cnp_handled_total", "counter",
           "CNPs handled by reaction points, all NICs (mlx5 rp_cnp_handled).",
           (double)st->cnp_handled);
    scalar(f, "wirerate_nic_retransmitted_packets_total", "counter",
           "Data packets sent again (go-back-N or selective), all NICs.",
           (double)st->retransmitted_packets);
    scalar(f, "wirerate_nic_out_of_sequence_total", "counter",
           "Packets that arrived with a PSN above the expected one, all NICs "
           "(mlx5 out_of_sequence).",
           (double)st->out_of_sequence);
    scalar(f, "wirerate_nic_rto_events_total", "counter",
           "Retransmission timeouts, all NICs (mlx5 local_ack_timeout_err).",
           (double)st->rto_events);

    family(f, "wirerate_job_completion_seconds", "gauge",
           "Job completion time (start to last byte), completed jobs only.");
    for (uint32_t j = 0; j < st->n_jobs; j++) {
        if (!st->jobs[j].completed)
            continue;
        fputs("wirerate_job_completion_seconds{job=\"", f);
        esc(f, st->jobs[j].name);
        fprintf(f, "\"} %.12g\n", (double)st->jobs[j].jct_ps * 1e-12);
    }

    double sum = 0;
    for (uint64_t i = 0; i < st->n_flows; i++)
        if (st->flows[i].end_ps)
            sum += (double)(st->flows[i].end_ps - st->flows[i].start_ps) * 1e-12;
    family(f, "wirerate_flow_completion_seconds", "summary",
           "Flow completion time, start to the last byte at the receiver (nearest-rank).");
    fprintf(f, "wirerate_flow_completion_seconds{quantile=\"0.5\"} %.12g\n",
            (double)st->fct_p50_ps * 1e-12);
    fprintf(f, "wirerate_flow_completion_seconds{quantile=\"0.99\"} %.12g\n",
            (double)st->fct_p99_ps * 1e-12);
    fprintf(f, "wirerate_flow_completion_seconds{quantile=\"1\"} %.12g\n",
            (double)st->fct_max_ps * 1e-12);
    fprintf(f, "wirerate_flow_completion_seconds_sum %.12g\n", sum);
    fprintf(f, "wirerate_flow_completion_seconds_count %" PRIu64 "\n", st->flows_completed);

    scalar(f, "wirerate_sim_end_seconds", "gauge", "Simulated time at the end of the run.",
           (double)st->end_ps * 1e-12);
    scalar(f, "wirerate_sim_events_total", "counter", "Events the simulation executed.",
           (double)st->events);
    return ferror(f) ? -1 : 0;
}
