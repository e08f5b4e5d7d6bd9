/*
 * csv.c — flows.csv, transfers.csv, requests.csv, ports.csv, queues.csv (per port and traffic class) and nics.csv (RFC 4180: header row, comma-separated, fields quoted only
 * when they contain a comma, quote or line break). Units are in the column names; integers are
 * exact; ratios use "%.6g" like summary.json so the files are as deterministic as the JSON.
 */
#include <inttypes.h>
#include <string.h>

#include "summary.h"

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int summary_write_flows_csv(FILE *f, const run_stats *st)
{
    fputs("job,src_host,dst_host,size_bytes,delivered_bytes,start_ps,end_ps,fct_ps\n", f);
    for (uint64_t i = 0; i < st->n_flows; i++) {
        const flow_record *r = &st->flows[i];
        csv_field(f, r->job < st->n_jobs ? st->jobs[r->job].name : "");
        fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", r->src_host,
                r->dst_host, r->size_bytes, r->delivered_bytes, r->start_ps);
        if (r->end_ps)
            fprintf(f, "%" PRIu64 ",%" PRIu64 "\n", r->end_ps, r->end_ps - r->start_ps);
        else
            fputs(",\n", f);
    }
    return ferror(f) ? -1 : 0;
}

int summary_write_transfers_csv(FILE *f, const run_stats *st)
{
    fputs("job,iteration,phase,step,src_gpu,dst_gpu,bytes,start_ps,end_ps\n", f);
    for (uint64_t i = 0; i < st->n_transfers; i++) {
        const transfer_record *r = &st->transfers[i];
        csv_field(f, r->job < st->n_jobs ? st->jobs[r->job].name : "");
        fprintf(f, ",%" PRIu32 ",%s,%" PRIu32 ",", r->iteration, r->phase, r->step);
        if (r->src_gpu != TRANSFER_GROUP) /* an nvls transfer from the NVSwitch */
            fprintf(f, "%" PRIu32, r->src_gpu);
        fputc(',', f);
        if (r->dst_gpu != TRANSFER_GROUP)
            fprintf(f, "%" PRIu32, r->dst_gpu);
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", r->bytes, r->start_ps, r->end_ps);
    }
    return ferror(f) ? -1 : 0;
}

int summary_write_requests_csv(FILE *f, const run_stats *st)
{
    fputs("job,request,replica,decode_replica,prompt_tokens,output_tokens,generated,arrival_ps,"
          "first_token_ps,done_ps,ttft_ps,tpot_ps\n",
          f);
    for (uint64_t i = 0; i < st->n_requests; i++) {
        const request_record *r = &st->requests[i];
        csv_field(f, r->job < st->n_jobs ? st->jobs[r->job].name : "");
        fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32
                   ",%" PRIu64 ",",
                r->id, r->replica, r->decode_replica, r->prompt_tokens, r->output_tokens,
                r->generated, r->arrival_ps);
        if (r->first_token_ps)
            fprintf(f, "%" PRIu64, r->first_token_ps);
        fputc(',', f);
        if (r->done_ps)
            fprintf(f, "%" PRIu64, r->done_ps);
        fputc(',', f);
        if (r->first_token_ps)
            fprintf(f, "%" PRIu64, r->first_token_ps - r->arrival_ps);
        fputc(',', f);
        if (r->done_ps && r->output_tokens > 1)
            fprintf(f, "%" PRIu64, (r->done_ps - r->first_token_ps) / (r->output_tokens - 1));
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

int summary_write_ports_csv(FILE *f, const run_stats *st)
{
    fputs("port,tx_bytes,tx_packets,max_queue_bytes,utilization,ecn_marked,pfc_pause_sent,"
          "pfc_paused_ps,drop_buffer_full,drop_link_down,drop_bit_error,drop_no_route,"
          "drop_pfc_watchdog,drop_ttl,pfc_pause_rx,pfc_watchdog_events,rx_bytes,rx_packets,"
          "tx_wire_bytes,drop_pfc_headroom,trimmed,credit_stall_ps,fecn_marked,fcp_sent,"
          "ib_peak_bytes,network\n",
          f);
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        double u = p->utilization == 0.0 ? 0.0 : p->utilization;
        csv_field(f, p->name);
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6g,%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                p->tx_bytes, p->tx_packets, p->max_queue_bytes, u, p->ecn_marked, p->pfc_pause_sent,
                p->pfc_paused_ps);
        for (int r = 0; r <= DROP_TTL; r++)
            fprintf(f, ",%" PRIu64, p->drops[r]);
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                   ",%" PRIu64,
                p->pfc_pause_rx, p->wd_events, p->rx_bytes, p->rx_packets, p->tx_wire_bytes,
                p->drops[DROP_PFC_HEADROOM], p->trimmed);
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s\n", p->credit_stall_ps,
                p->fecn_marked, p->fcp_sent, p->ib_peak_bytes,
                network_name((enum network_id)p->network));
    }
    return ferror(f) ? -1 : 0;
}

int summary_write_queues_csv(FILE *f, const run_stats *st)
{
    fputs("port,priority,tx_bytes,tx_packets,ecn_marked,dropped_packets,pfc_pause_sent,"
          "pfc_pause_rx,pfc_paused_ps\n",
          f);
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        for (int c = 0; c < 8; c++) {
            if (!(p->prio_tx_packets[c] | p->prio_drops[c] | p->prio_pause_sent[c] |
                  p->prio_pause_rx[c]))
                continue; /* a class that never carried or paused anything here */
            csv_field(f, p->name);
            fprintf(f, ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                       ",%" PRIu64 "\n",
                    c, p->prio_tx_bytes[c], p->prio_tx_packets[c], p->prio_ecn_marked[c],
                    p->prio_drops[c], p->prio_pause_sent[c], p->prio_pause_rx[c],
                    p->prio_paused_ps[c]);
        }
    }
    return ferror(f) ? -1 : 0;
}

int summary_write_nics_csv(FILE *f, const run_stats *st)
{
    fputs("host,cnp_sent,cnp_handled,retransmitted_packets,out_of_sequence,rto_events,"
          "naks_sent,naks_received,qps_failed,qps_failed_over,dcqcn_held_ps,trims_received\n",
          f);
    for (uint32_t h = 0; h < st->n_nics; h++) {
        const nic_record *n = &st->nics[h];
        fprintf(f,
                "h%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                h, n->cnp_sent, n->cnp_handled, n->retransmitted_packets, n->out_of_sequence,
                n->rto_events, n->naks_sent, n->naks_received, n->qps_failed, n->qps_failed_over,
                (uint64_t)n->dcqcn_held_ps, n->trims_received);
    }
    return ferror(f) ? -1 : 0;
}

int summary_write_tenants_csv(FILE *f, const run_stats *st)
{
    fputs("tenant,vni,jobs,gpus,hosts,nic_tx_bytes,nic_tx_packets,fabric_tx_bytes,"
          "fabric_tx_packets,delivered_bytes,drops,ecn_marked\n",
          f);
    for (uint32_t k = 0; k < st->n_tenants; k++) {
        const tenant_record *t = &st->tenants[k];
        csv_field(f, t->name);
        fprintf(f,
                ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
                t->vni, t->jobs, t->gpus, t->hosts, t->nic_tx_bytes, t->nic_tx_packets,
                t->fabric_tx_bytes, t->fabric_tx_packets, t->delivered_bytes, t->drops,
                t->ecn_marked);
    }
    return ferror(f) ? -1 : 0;
}
