/*
 * diagnose.c — what made a run slow, from its run_stats (see diagnose.h and docs/diagnosis.md).
 *
 * Each rule states its evidence and fires only when all of it is present; the thresholds are
 * named constants below, each with the reason for its value. A rule that cannot tell (roles of
 * custom port names, counters a run does not have) stays silent: a printed reason must be true.
 * cost_ps is what the reason plausibly cost the most affected job, never more than that job's
 * JCT − ideal (the time above the fabric's lower bound is all there is to explain).
 */
#include "diagnose.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "../workload/fault.h"

static uint64_t port_drops(const port_record *p)
{
    uint64_t n = 0;
    for (int r = 0; r < DROP_REASONS; r++)
        n += p->drops[r];
    return n;
}

/* "leaf0->spine1#2" → owner "leaf0", peer "spine1". False if the name has no arrow. */
static bool split_port(const char *name, char *owner, char *peer, size_t len)
{
    const char *arrow = strstr(name, "->");
    if (!arrow || (size_t)(arrow - name) >= len)
        return false;
    memcpy(owner, name, (size_t)(arrow - name));
    owner[arrow - name] = '\0';
    size_t k = strcspn(arrow + 2, "#"); /* the peer, without its "#k" (cut to fit) */
    if (k >= len)
        k = len - 1;
    memcpy(peer, arrow + 2, k);
    peer[k] = '\0';
    return true;
}

/* Host index of a preset host name "h<N>", or -1. */
static long host_index(const char *s)
{
    if (s[0] != 'h' || s[1] < '0' || s[1] > '9')
        return -1;
    char *end;
    long v = strtol(s + 1, &end, 10);
    return *end ? -1 : v;
}

/* Tier family of a node name: its letters ("leaf", "spine", "sw", "h", ...). */
static void name_family(const char *s, char *out, size_t len)
{
    size_t i = 0;
    while (s[i] && !(s[i] >= '0' && s[i] <= '9') && i + 1 < len) {
        out[i] = s[i];
        i++;
    }
    out[i] = '\0';
}

/* Did a fault that fired change port p's link (down, flapping, degraded, bit errors) or a
 * switch at one of its ends? Such a port's load says nothing about load balancing. */
static bool fault_touched(const run_stats *st, const char *port_name)
{
    char own[48], peer[48];
    if (!split_port(port_name, own, peer, sizeof own))
        return false;
    for (uint32_t i = 0; i < st->n_faults; i++) {
        const fault_record *r = &st->faults[i];
        if (!r->fired)
            continue;
        switch (r->kind) {
        case FAULT_SWITCH_DOWN:
        case FAULT_SWITCH_DRAIN:
            if (!strcmp(r->target, own) || !strcmp(r->target, peer))
                return true;
            break;
        case FAULT_LINK_DOWN:
        case FAULT_LINK_FLAP:
        case FAULT_LINK_DEGRADED:
        case FAULT_LINK_BER: {
            char t[48];
            snprintf(t, sizeof t, "%s", r->target);
            char *hash = strchr(t, '#');
            if (hash)
                *hash = '\0';
            size_t lo = strlen(own), lp = strlen(peer);
            if ((!strncmp(t, own, lo) && t[lo] == '-' && !strcmp(t + lo + 1, peer)) ||
                (!strncmp(t, peer, lp) && t[lp] == '-' && !strcmp(t + lp + 1, own)))
                return true;
            break;
        }
        default:
            break;
        }
    }
    return false;
}

/* snprintf into a diagnosis line; cutting a long port name short is acceptable there. */
static void diag_line(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diag_line(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, DIAG_TEXT_LEN, fmt, ap);
    va_end(ap);
}

/* Tier of a node from its name family: hosts 0, leaves (and a single switch) 1, spines 2,
 * super-spines 3; -1 for names wirerate's presets do not make (custom fabrics). */
static int family_tier(const char *fam)
{
    if (!strcmp(fam, "h"))
        return 0;
    if (!strcmp(fam, "leaf") || !strcmp(fam, "sw"))
        return 1;
    if (!strcmp(fam, "spine"))
        return 2;
    if (!strcmp(fam, "super"))
        return 3;
    return -1;
}

/* What rule_ecmp_collision reads of an uplink's name, parsed once per port (a port's name is
 * "owner->peer" or "owner->peer#k"): the owner's span and the peer's name family (its letters),
 * and whether a fault touched the link. Parsing each name once instead of at every comparison
 * and in every member's inner loop took the rule from about a second to a tenth of one at
 * 32,768 GPUs (issue #17, eleventh round). */
typedef struct ecmp_port {
    uint64_t key[2];          /* the owner's first 16 bytes, big-endian, zero-padded: most
                               * comparisons of the sort end here, without reading the name */
    uint32_t idx;             /* into st->ports */
    uint8_t own_len;          /* name[0, own_len) is the owner */
    uint8_t fam_off, fam_len; /* name[fam_off, + fam_len) is the peer's family */
    bool faulted;             /* fault_touched */
} ecmp_port;

/* qsort by the owning node's name, then by port index (stable and deterministic). */
static const run_stats *sort_ports;
static int by_owner(const void *a, const void *b)
{
    const ecmp_port *x = a, *y = b;
    int c = 0;
    for (int k = 0; k < 2 && !c; k++)
        c = x->key[k] < y->key[k] ? -1 : x->key[k] > y->key[k];
    /* equal keys: the first 16 bytes agree (names hold no NUL), so only two longer owners
     * can differ past them; otherwise the shorter owner is a prefix and sorts first */
    if (!c && x->own_len > 16 && y->own_len > 16)
        c = memcmp(sort_ports->ports[x->idx].name + 16, sort_ports->ports[y->idx].name + 16,
                   (x->own_len < y->own_len ? x->own_len : y->own_len) - 16);
    if (!c)
        c = x->own_len < y->own_len ? -1 : x->own_len > y->own_len;
    return c ? c : (x->idx < y->idx ? -1 : x->idx > y->idx);
}

static bool same_family(const run_stats *st, const ecmp_port *a, const ecmp_port *b)
{
    return a->fam_len == b->fam_len && !memcmp(st->ports[a->idx].name + a->fam_off,
                                               st->ports[b->idx].name + b->fam_off, a->fam_len);
}

/* ---- thresholds ---------------------------------------------------------------------------- */

/* A queue is "real" from 64 KB: 15 frames of 4 KB, several µs at 400G. The false positive this
 * replaces had 12.6 KB (three frames), which is jitter, not collision. */
#define DIAG_REAL_QUEUE_BYTES 64000
/* Incast: a receiver's queue worth more than a few frames (8 × 4 KB). */
#define DIAG_INCAST_QUEUE_BYTES 32000
/* A link "carried the load" when busy at least half of the jobs' active window. */
#define DIAG_BUSY_UTIL 0.5
/* A job "was slowed" at 1.2 × its ideal (ECMP) and "starved" at 1.5 × (DCQCN); below, the
 * chunking and latency terms the bound leaves out explain the gap. */
#define DIAG_SLOWED 1.2
#define DIAG_STARVED 1.5
/* DCQCN acted: at least 10 CNPs handled (one would not hold a rate down). */
#define DIAG_MIN_CNPS 10
/* PFC matters when a port spent ≥ 1 % of the window paused (and ≥ 1 µs). */
#define DIAG_PAUSED_FRACTION 0.01
/* A sender held idle by collapsed DCQCN rates for ≥ 10 % of the slowed job's JCT: long enough
 * to matter to the job, far above the pacing gaps of a QP recovering towards line rate. */
#define DIAG_HELD_FRACTION 0.10
/* A straggler computes ≥ 10 % longer than the busiest rank would at nominal speed. */
#define DIAG_STRAGGLER 1.10

/* ---- evidence helpers ---------------------------------------------------------------------- */

static sim_time window_ps(const run_stats *st)
{
    return st->end_ps > st->active_start_ps ? st->end_ps - st->active_start_ps : 0;
}

/* The completed job furthest above its ideal (NULL when none has an ideal). */
static const job_result *worst_job(const run_stats *st)
{
    const job_result *w = NULL;
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        const job_result *j = &st->jobs[i];
        if (j->completed && j->ideal_jct_ps && (!w || j->jct_over_ideal > w->jct_over_ideal))
            w = j;
    }
    return w;
}

/* JCT − ideal of the worst job: the most any single reason can have cost. */
static sim_time excess_ps(const run_stats *st)
{
    const job_result *w = worst_job(st);
    return w && w->jct_ps > w->ideal_jct_ps ? w->jct_ps - w->ideal_jct_ps : 0;
}

static sim_time capped(const run_stats *st, sim_time c)
{
    sim_time e = excess_ps(st);
    return c < e ? c : e;
}

static diagnosis *add(diagnosis *out, int *n, int max, const char *rule, sim_time cost)
{
    if (*n >= max)
        return NULL;
    diagnosis *d = &out[(*n)++];
    d->rule = rule;
    d->text[0] = '\0';
    d->cost_ps = cost;
    return d;
}

/* ---- rules ---------------------------------------------------------------------------------- */

/* Lossless drops: frames of a PFC-protected class lost for a reason other than a downed link,
 * a bit error, the PFC watchdog, TTL or a missing route — i.e. at admission, which in a lossless
 * class only happens when the headroom overflowed (headroom too small for the cable and speed,
 * or PFC reacting late). Per port: the lossless classes' drops beyond what those reasons can
 * account for. */
static uint64_t lossless_unexplained(const port_record *p, uint8_t lossless)
{
    uint64_t ll = 0;
    for (int c = 0; c < 8; c++)
        if (lossless >> c & 1)
            ll += p->prio_drops[c];
    uint64_t other = p->drops[DROP_LINK_DOWN] + p->drops[DROP_BIT_ERROR] +
                     p->drops[DROP_PFC_WATCHDOG] + p->drops[DROP_TTL] + p->drops[DROP_NO_ROUTE];
    return ll > other ? ll - other : 0;
}

static void rule_lossless_drops(const run_stats *st, diagnosis *out, int *n, int max)
{
    if (!st->lossless_classes)
        return;
    uint64_t total = 0, worst = 0;
    const port_record *wp = NULL;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        uint64_t d = lossless_unexplained(&st->ports[i], st->lossless_classes);
        total += d;
        if (d > worst) {
            worst = d;
            wp = &st->ports[i];
        }
    }
    if (!total)
        return;
    diagnosis *d = add(out, n, max, "lossless_drops", excess_ps(st));
    if (d)
        diag_line(d->text,
                  "MISCONFIGURATION: %" PRIu64 " frames of a lossless (PFC) class were dropped "
                  "(%" PRIu64 " at %s): the PFC headroom overflowed — it is too small for the "
                  "link's speed and cable length; size it as `wirerate check` computes",
                  total, worst, wp->name);
}

static void rule_link_fault(const run_stats *st, diagnosis *out, int *n, int max)
{
    uint64_t lost = st->drops[DROP_LINK_DOWN];
    if (!st->link_faults || (!lost && !st->rto_events))
        return;
    char a[32];
    diagnosis *d = add(out, n, max, "link_fault", capped(st, st->reroute_ps));
    if (d)
        diag_line(d->text,
                  "link fault on %s%s: %" PRIu64 " frames lost on downed links, %" PRIu64
                  " retransmission timeouts, %" PRIu64 " packets retransmitted; %s, the other "
                  "switches could still hash onto it for up to %s (detect + converge)",
                  st->fault_link, st->link_faults > 1 ? " (and others)" : "", lost, st->rto_events,
                  st->retransmitted_packets,
                  st->fault_link_local ? "the switches attached to it rerouted at once"
                                       : "no local fast reroute",
                  summary_fmt_time(a, sizeof a, st->reroute_ps));
}

/* Bit errors: a link-ber fault corrupted frames; each was recovered by a NAK or, at the tail of
 * a message, an RTO. Cost: the timeouts that could be its, each an rto. */
static void rule_bit_errors(const run_stats *st, diagnosis *out, int *n, int max)
{
    uint64_t lost = st->drops[DROP_BIT_ERROR];
    const fault_record *f = NULL;
    uint32_t nber = 0;
    for (uint32_t i = 0; i < st->n_faults; i++)
        if (st->faults[i].kind == FAULT_LINK_BER && st->faults[i].fired &&
            st->faults[i].corrupted && !nber++)
            f = &st->faults[i];
    if (!lost || !f)
        return;
    uint64_t rtos = st->rto_events < lost ? st->rto_events : lost;
    diagnosis *d = add(out, n, max, "bit_errors", capped(st, rtos * st->rto_ps));
    if (d)
        diag_line(d->text,
                  "bit errors on %s%s: %" PRIu64 " frames failed the receiver's FCS check (a 4 "
                  "KiB frame is lost with probability %.3g), recovered by %" PRIu64
                  " retransmitted packets and %" PRIu64 " timeouts",
                  f->target, nber > 1 ? " (and others)" : "", lost, f->frame_loss_4k,
                  st->retransmitted_packets, st->rto_events);
}

/* A degraded link (lanes down) that carried traffic: its frames took 1/fraction as long. Cost:
 * the extra serialization of what it carried (the whole run's bytes: at most that). */
static void rule_degraded_link(const run_stats *st, diagnosis *out, int *n, int max)
{
    const job_result *w = worst_job(st);
    if (!w || w->jct_over_ideal < DIAG_SLOWED)
        return;
    for (uint32_t i = 0; i < st->n_faults; i++) {
        const fault_record *f = &st->faults[i];
        if (f->kind != FAULT_LINK_DEGRADED || !f->fired || !f->rate_bps || !f->orig_rate_bps)
            continue;
        uint64_t bytes = 0;
        for (uint32_t k = 0; k < st->n_ports; k++)
            if (fault_touched(st, st->ports[k].name)) {
                char own[48], peer[48], t[100];
                split_port(st->ports[k].name, own, peer, sizeof own);
                snprintf(t, sizeof t, "%s-%s", own, peer);
                char r2[100];
                snprintf(r2, sizeof r2, "%s-%s", peer, own);
                if (!strcmp(t, f->target) || !strcmp(r2, f->target))
                    bytes = bytes > st->ports[k].tx_wire_bytes ? bytes : st->ports[k].tx_wire_bytes;
            }
        if (!bytes)
            continue;
        double extra_s =
            (double)bytes * 8 * (1.0 / (double)f->rate_bps - 1.0 / (double)f->orig_rate_bps);
        sim_time extra = (sim_time)(extra_s * 1e12);
        char a[32], b[32], c[32];
        diagnosis *d = add(out, n, max, "degraded_link", capped(st, extra));
        if (d)
            diag_line(d->text,
                      "degraded link %s: %.6g of %.6g Gb/s from %s (lanes down); the %s its "
                      "busier direction carried took up to %s longer on the wire",
                      f->target, (double)f->rate_bps * 1e-9, (double)f->orig_rate_bps * 1e-9,
                      summary_fmt_time(a, sizeof a, f->at_ps),
                      summary_fmt_bytes(b, sizeof b, bytes), summary_fmt_time(c, sizeof c, extra));
        return;
    }
}

/* Switch drain (maintenance): a switch-drain fired while a slowed job ran. Nothing is lost (the
 * routes move first), but until the switch is back its share of the paths is carried by its
 * siblings: a fabric with one spine fewer. The run has no measure of what that cost without
 * the switch (it would take a run without the drain: `--isolated` does not remove faults), so
 * the line says what happened and estimates nothing (cost 0). */
static void rule_switch_drain(const run_stats *st, diagnosis *out, int *n, int max)
{
    const job_result *w = worst_job(st);
    if (!w || w->jct_over_ideal < DIAG_SLOWED)
        return;
    for (uint32_t i = 0; i < st->n_faults; i++) {
        const fault_record *f = &st->faults[i];
        if (f->kind != FAULT_SWITCH_DRAIN || !f->fired || f->at_ps >= st->end_ps)
            continue;
        /* only while the slowed job ran: a drain over before it started is not its reason */
        if ((f->end_ps != SIM_TIME_MAX && f->end_ps <= w->start_ps) ||
            (w->end_ps && f->at_ps >= w->end_ps))
            continue;
        char a[32], b[32], back[48], jct[32];
        uint64_t lost = st->drops[DROP_LINK_DOWN];
        if (f->end_ps == SIM_TIME_MAX)
            snprintf(back, sizeof back, "not back by the end");
        else
            snprintf(back, sizeof back, "back at %s", summary_fmt_time(b, sizeof b, f->end_ps));
        diagnosis *d = add(out, n, max, "switch_drain", 0);
        if (d)
            diag_line(d->text,
                      "switch drain of %s from %s (%s): the rest of its tier carried its "
                      "paths; %" PRIu64 " frames lost on downed links; %s took %s = %.2f × its "
                      "ideal (the drain's share is not estimated)",
                      f->target, summary_fmt_time(a, sizeof a, f->at_ps), back, lost, w->name,
                      summary_fmt_time(jct, sizeof jct, w->jct_ps), w->jct_over_ideal);
        return;
    }
}

/* GPU failure: a training job restarted from its checkpoint (lost work + restart, exact) or a
 * job failed because its GPU died. */
static void rule_gpu_failure(const run_stats *st, diagnosis *out, int *n, int max)
{
    bool any = false;
    for (uint32_t i = 0; i < st->n_faults && !any; i++)
        any = st->faults[i].kind == FAULT_GPU_FAIL && st->faults[i].fired;
    if (!any)
        return;
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        const job_result *j = &st->jobs[i];
        char a[32], b[32], c[32];
        if (j->restarts) {
            sim_time cost = j->lost_ps + j->restart_ps;
            sim_time room = j->jct_ps > j->ideal_jct_ps ? j->jct_ps - j->ideal_jct_ps : 0;
            diagnosis *d = add(out, n, max, "gpu_failure", cost < room ? cost : room);
            if (d)
                diag_line(d->text,
                          "GPU failure in %s: %u restart%s from the last checkpoint: %s of work "
                          "lost, %s restarting; checkpoint writes took %s",
                          j->name, j->restarts, j->restarts == 1 ? "" : "s",
                          summary_fmt_time(a, sizeof a, j->lost_ps),
                          summary_fmt_time(b, sizeof b, j->restart_ps),
                          summary_fmt_time(c, sizeof c, j->ckpt_ps));
            return;
        }
        if (j->failed && strstr(j->reason, "GPU ") && strstr(j->reason, " failed (faults[")) {
            diagnosis *d = add(out, n, max, "gpu_failure", 0);
            if (d)
                diag_line(d->text, "%s failed: %s", j->name, j->reason);
            return;
        }
    }
}

/* PFC storm: a NIC sending PAUSE frames (hosts have no ingress buffer to protect). */
static void rule_pfc_storm(const run_stats *st, diagnosis *out, int *n, int max)
{
    char own[48], peer[48], a[32];
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        if (!p->pfc_pause_sent || !split_port(p->name, own, peer, sizeof own) ||
            host_index(own) < 0)
            continue;
        /* The storm's victim is the switch port towards the NIC: the time it was paused, and
         * the frames its watchdog discarded (action drop) while the NIC kept pausing. */
        sim_time paused = 0;
        uint64_t wd_drops = 0;
        char rev[100];
        snprintf(rev, sizeof rev, "%s->%s", peer, own);
        for (uint32_t k = 0; k < st->n_ports; k++)
            if (!strcmp(st->ports[k].name, rev)) {
                paused = st->ports[k].pfc_paused_ps;
                wd_drops = st->ports[k].drops[DROP_PFC_WATCHDOG];
            }
        /* Cost: the pause alone when nothing was discarded. Once the watchdog discarded frames
         * towards the storming NIC, their recovery (NAKs, retransmission timeouts, the restart
         * of every flow behind them) is the storm's doing as well, and it has no separate
         * measure: the whole excess over the bound is what the storm plausibly cost (the
         * pfc-storm example: paused 1 ms, then 6,840 frames discarded and 14 RTOs, 8.7 ms above
         * the bound; the pause alone would claim 1 ms of it). */
        sim_time cost = wd_drops ? excess_ps(st) : capped(st, paused);
        diagnosis *d = add(out, n, max, "pfc_storm", cost);
        if (d && wd_drops)
            diag_line(d->text,
                      "PFC storm from %s: %" PRIu64 " PAUSE frames to %s, fabric paused %s in "
                      "total, %" PRIu64 " watchdog events; the watchdog discarded %" PRIu64
                      " frames towards %s, recovered by %" PRIu64 " retransmission timeouts",
                      own, p->pfc_pause_sent, peer,
                      summary_fmt_time(a, sizeof a, st->pfc_paused_ps), st->pfc_watchdog_events,
                      wd_drops, own, st->rto_events);
        else if (d)
            diag_line(d->text,
                      "PFC storm from %s: %" PRIu64 " PAUSE frames to %s, fabric paused %s in "
                      "total, %" PRIu64 " watchdog events",
                      own, p->pfc_pause_sent, peer,
                      summary_fmt_time(a, sizeof a, st->pfc_paused_ps), st->pfc_watchdog_events);
        return; /* one storm line; the rest show in the port table */
    }
}

static void rule_straggler(const run_stats *st, diagnosis *out, int *n, int max)
{
    for (uint32_t i = 0; i < st->n_jobs; i++) {
        const job_result *j = &st->jobs[i];
        const train_iter *m = &j->train_mean;
        if (j->kind != JOB_TRAINING || !j->n_iterations || !j->nominal_compute_ps ||
            (double)m->slowest_compute_ps < DIAG_STRAGGLER * (double)j->nominal_compute_ps)
            continue;
        sim_time extra = (m->slowest_compute_ps - j->nominal_compute_ps) * j->n_iterations;
        sim_time room = j->jct_ps > j->ideal_jct_ps ? j->jct_ps - j->ideal_jct_ps : 0;
        char a[32], b[32];
        diagnosis *d = add(out, n, max, "straggler", extra < room ? extra : room);
        if (d)
            diag_line(d->text,
                      "straggler GPU in %s: rank %u computes %s per iteration where the busiest "
                      "rank needs %s at nominal speed (%.2f×); every synchronisation waits for it",
                      j->name, m->slowest_rank,
                      summary_fmt_time(a, sizeof a, m->slowest_compute_ps),
                      summary_fmt_time(b, sizeof b, j->nominal_compute_ps),
                      (double)m->slowest_compute_ps / (double)j->nominal_compute_ps);
        return;
    }
}

/* Incast: the deepest switch->host queue, with several flows into that host (fan-in), and that link
 * carrying the load (busy half the window, or dropping): a receiver link at 12 % is not what
 * held the job back, whatever its queue (DCQCN collapse says what did). */
static void rule_incast(const run_stats *st, diagnosis *out, int *n, int max)
{
    char own[48], peer[48], a[32];
    const port_record *inc = NULL;
    long inc_host = -1;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        if (!split_port(p->name, own, peer, sizeof own) || host_index(own) >= 0)
            continue;
        long h = host_index(peer);
        if (h < 0 || (!p->max_queue_bytes && !port_drops(p)))
            continue;
        if (!inc || p->max_queue_bytes > inc->max_queue_bytes) {
            inc = p;
            inc_host = h;
        }
    }
    if (!inc)
        return;
    uint64_t into = 0, out_of = 0;
    for (uint64_t k = 0; k < st->n_flows; k++) {
        into += st->flows[k].dst_host == (uint32_t)inc_host;
        out_of += st->flows[k].src_host == (uint32_t)inc_host;
    }
    uint64_t drops = inc->drops[DROP_BUFFER_FULL]; /* overflow, not a watchdog or a fault */
    /* fan-in: at least twice as many flows in as out (an all-to-all receiver sends as many as
     * it takes: its busy link is the pattern, not an incast) */
    if (into < 2 || into < 2 * out_of ||
        (inc->max_queue_bytes < DIAG_INCAST_QUEUE_BYTES && !drops) ||
        (inc->utilization < DIAG_BUSY_UTIL && !drops))
        return;
    diagnosis *d = add(out, n, max, "incast", drops ? excess_ps(st) : 0);
    if (!d)
        return;
    if (drops)
        diag_line(d->text,
                  "incast at %s: %" PRIu64 " flows into h%ld, link busy %.0f %% of the jobs' "
                  "time, queue peaked at %s, %" PRIu64 " drops recovered by %" PRIu64
                  " retransmitted packets and %" PRIu64 " timeouts",
                  inc->name, into, inc_host, 100.0 * inc->utilization,
                  summary_fmt_bytes(a, sizeof a, inc->max_queue_bytes), drops,
                  st->retransmitted_packets, st->rto_events);
    else if (inc->trimmed) /* trimmed, not dropped: each header was NAKed and resent */
        diag_line(d->text,
                  "incast at %s: %" PRIu64 " flows into h%ld, link busy %.0f %% of the jobs' "
                  "time, queue peaked at %s, %" PRIu64 " packets trimmed to their header there "
                  "(none dropped; %" PRIu64 " packets retransmitted)",
                  inc->name, into, inc_host, 100.0 * inc->utilization,
                  summary_fmt_bytes(a, sizeof a, inc->max_queue_bytes), inc->trimmed,
                  st->retransmitted_packets);
    else
        diag_line(d->text,
                  "incast at %s: %" PRIu64 " flows into h%ld, link busy %.0f %% of the jobs' "
                  "time, queue peaked at %s%s",
                  inc->name, into, inc_host, 100.0 * inc->utilization,
                  summary_fmt_bytes(a, sizeof a, inc->max_queue_bytes),
                  st->pfc_pause_sent ? ", held lossless by PFC" : "");
}

/* ECMP collision: among one switch's ports towards one higher tier, the busiest far above a
 * fair share and the idlest (bytes carried over the run: a hashed-together pair carries twice
 * a fair share while a sibling idles; utilization alone misses collisions that DCQCN slowed),
 * AND real queueing on the busiest, AND a job slowed above its ideal. The worst group is
 * reported. Ports are visited in order of their owner's name, so a switch's ports form one run. */
static void rule_ecmp_collision(const run_stats *st, diagnosis *out, int *n, int max)
{
    char own[48], peer[48], a[32], b[32], c2[32];
    const job_result *w = worst_job(st);
    if (w && w->jct_over_ideal < DIAG_SLOWED)
        return;
    ecmp_port *ord = malloc(sizeof *ord * (st->n_ports ? st->n_ports : 1));
    if (!ord)
        return;
    /* ECMP chooses among uplinks only: a switch's ports towards a higher tier, the only ones
     * the rule judges (names that say no role are left out) */
    uint32_t np = 0;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const char *name = st->ports[i].name;
        char fam[48], ofam[48];
        if (!split_port(name, own, peer, sizeof own) || host_index(own) >= 0 ||
            host_index(peer) >= 0)
            continue;
        name_family(own, ofam, sizeof ofam);
        name_family(peer, fam, sizeof fam);
        int own_tier = family_tier(ofam);
        if (own_tier < 1 || family_tier(fam) <= own_tier)
            continue;
        size_t ol = strlen(own);
        uint64_t key[2] = {0, 0};
        for (size_t k = 0; k < ol && k < 16; k++)
            key[k / 8] |= (uint64_t)(unsigned char)own[k] << (56 - 8 * (k % 8));
        ord[np++] = (ecmp_port){.key = {key[0], key[1]},
                                .idx = i,
                                .own_len = (uint8_t)ol,
                                .fam_off = (uint8_t)(ol + 2),
                                .fam_len = (uint8_t)strlen(fam),
                                .faulted = st->n_faults && fault_touched(st, name)};
    }
    sort_ports = st;
    qsort(ord, np, sizeof *ord, by_owner);
    const port_record *hot = NULL, *cold = NULL;
    double gap = 0;
    uint32_t group_n = 0, group_idle = 0;
    for (uint32_t i = 0, end; i < np; i = end) {
        const char *gname = st->ports[ord[i].idx].name;
        for (end = i + 1; end < np && ord[end].own_len == ord[i].own_len &&
                          !memcmp(st->ports[ord[end].idx].name, gname, ord[i].own_len);
             end++)
            ;
        /* a switch's uplinks towards each tier family, from that family's first member */
        for (uint32_t g0 = i; g0 < end; g0++) {
            const ecmp_port *f = &ord[g0];
            bool seen = false;
            for (uint32_t j = i; j < g0 && !seen; j++)
                seen = same_family(st, &ord[j], f);
            if (seen)
                continue;
            const port_record *h = NULL, *c = NULL;
            uint32_t m = 0, idle = 0;
            uint64_t total = 0;
            for (uint32_t j = g0; j < end; j++) {
                const ecmp_port *e = &ord[j];
                if (e->faulted || !same_family(st, e, f))
                    continue;
                const port_record *q = &st->ports[e->idx];
                m++;
                total += q->tx_bytes;
                if (!h || q->tx_bytes > h->tx_bytes)
                    h = q;
                if (!c || q->tx_bytes < c->tx_bytes)
                    c = q;
            }
            for (uint32_t j = g0; m && j < end; j++) {
                const ecmp_port *e = &ord[j];
                /* under a quarter of a fair share */
                if (!e->faulted && same_family(st, e, f))
                    idle += st->ports[e->idx].tx_bytes * 4 * m < total;
            }
            double gg = m && total ? (double)(h->tx_bytes - c->tx_bytes) / (double)total : 0;
            if (m >= 2 && h->tx_bytes >= 1000000 && h->tx_bytes * m >= 3 * total / 2 &&
                h->tx_bytes >= 2 * c->tx_bytes && h->max_queue_bytes >= DIAG_REAL_QUEUE_BYTES &&
                gg > gap) {
                gap = gg;
                hot = h;
                cold = c;
                group_n = m;
                group_idle = idle;
            }
        }
    }
    free(ord);
    if (!hot)
        return;
    diagnosis *d = add(out, n, max, "ecmp_collision", excess_ps(st));
    if (d)
        diag_line(d->text,
                  "ECMP collision: %s carried %s (queue %s) while %s carried %s; %u of %u "
                  "sibling uplinks under a quarter of a fair share",
                  hot->name, summary_fmt_bytes(a, sizeof a, hot->tx_bytes),
                  summary_fmt_bytes(b, sizeof b, hot->max_queue_bytes), cold->name,
                  summary_fmt_bytes(c2, sizeof c2, cold->tx_bytes), group_idle, group_n);
}

/* PFC congestion spreading: PAUSE crossed a switch-to-switch link (a fabric port spent ≥ 1 % of
 * the window paused), so the congestion behind it stalls every flow through that link, not
 * only those heading for the congested port — when the run has flows to several destinations
 * (or collective/training jobs, whose many connections share those links). */
static void rule_pfc_spreading(const run_stats *st, diagnosis *out, int *n, int max)
{
    char own[48], peer[48], a[32];
    sim_time w = window_ps(st);
    const port_record *pp = NULL;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        char fo[48], fp[48];
        if (!p->pfc_paused_ps || !split_port(p->name, own, peer, sizeof own))
            continue;
        name_family(own, fo, sizeof fo);
        name_family(peer, fp, sizeof fp);
        if (family_tier(fo) < 1 || family_tier(fp) < 1) /* switch to switch, roles known */
            continue;
        if (!pp || p->pfc_paused_ps > pp->pfc_paused_ps)
            pp = p;
    }
    if (!pp || pp->pfc_paused_ps < SIM_US ||
        (double)pp->pfc_paused_ps < DIAG_PAUSED_FRACTION * (double)w)
        return;
    bool many = false;
    for (uint32_t i = 0; i < st->n_jobs && !many; i++)
        many = st->jobs[i].kind != JOB_TRAFFIC;
    for (uint64_t k = 1; k < st->n_flows && !many; k++)
        many = st->flows[k].dst_host != st->flows[0].dst_host;
    if (!many)
        return;
    split_port(pp->name, own, peer, sizeof own);
    diagnosis *d = add(out, n, max, "pfc_spreading", capped(st, pp->pfc_paused_ps));
    if (d)
        diag_line(d->text,
                  "PFC congestion spreading: %s was paused %s (%.1f %% of the jobs' time) by "
                  "%" PRIu64 " PAUSE frames from %s; flows through it to uncongested hosts "
                  "waited behind another flow's congestion",
                  pp->name, summary_fmt_time(a, sizeof a, pp->pfc_paused_ps),
                  w ? 100.0 * (double)pp->pfc_paused_ps / (double)w : 0.0, pp->pfc_pause_rx, peer);
}

/* Does port `name` carry flows to more than one destination? A host's port: the flows it
 * sends (flow records; collective/training jobs count, their connections fan out); a
 * switch-to-switch port (roles known): the run has several destinations, as pfc_spreading
 * assumes. Ports towards hosts do not qualify. */
static bool carries_several(const run_stats *st, const char *name)
{
    char own[48], peer[48], fo[48], fp[48];
    if (!split_port(name, own, peer, sizeof own))
        return false;
    name_family(own, fo, sizeof fo);
    name_family(peer, fp, sizeof fp);
    bool jobs = false;
    for (uint32_t i = 0; i < st->n_jobs && !jobs; i++)
        jobs = st->jobs[i].kind != JOB_TRAFFIC;
    if (family_tier(fo) == 0 && !strcmp(own, fo)) /* no digits: not a numbered host */
        return false;
    if (family_tier(fo) == 0) {
        uint32_t h = (uint32_t)strtoul(own + strlen(fo), NULL, 10), dst = UINT32_MAX;
        for (uint64_t k = 0; k < st->n_flows; k++) {
            if (st->flows[k].src_host != h)
                continue;
            if (dst != UINT32_MAX && st->flows[k].dst_host != dst)
                return true;
            dst = st->flows[k].dst_host;
        }
        return jobs;
    }
    if (family_tier(fo) < 1 || family_tier(fp) < 1)
        return false;
    for (uint64_t k = 1; k < st->n_flows && !jobs; k++)
        jobs = st->flows[k].dst_host != st->flows[0].dst_host;
    return jobs;
}

/* InfiniBand congestion spreading: a port that carries flows to several destinations waited
 * for credits for ≥ 1 % of the window (the next hop's input buffer for the VL stayed full:
 * the frames in it could not leave), so flows through it to uncongested hosts waited with the
 * congested ones. The credit counterpart of pfc_spreading. */
static void rule_credit_spreading(const run_stats *st, diagnosis *out, int *n, int max)
{
    char own[48], peer[48], a[32];
    sim_time w = window_ps(st);
    const port_record *pp = NULL;
    if (!st->infiniband)
        return;
    for (uint32_t i = 0; i < st->n_ports; i++) {
        const port_record *p = &st->ports[i];
        if (p->credit_stall_ps && (!pp || p->credit_stall_ps > pp->credit_stall_ps) &&
            carries_several(st, p->name))
            pp = p;
    }
    if (!pp || pp->credit_stall_ps < SIM_US ||
        (double)pp->credit_stall_ps < DIAG_PAUSED_FRACTION * (double)w ||
        !split_port(pp->name, own, peer, sizeof own))
        return;
    diagnosis *d = add(out, n, max, "credit_spreading", capped(st, pp->credit_stall_ps));
    if (d)
        diag_line(d->text,
                  "IB congestion spreading: %s waited %s for credits (%.1f %% of the jobs' "
                  "time): %s's input buffer stayed full, so flows to uncongested hosts waited "
                  "behind another flow's congestion",
                  pp->name, summary_fmt_time(a, sizeof a, pp->credit_stall_ps),
                  w ? 100.0 * (double)pp->credit_stall_ps / (double)w : 0.0, peer);
}

/* DCQCN rate collapse: the senders' reaction points cut their rates (CNPs handled) while no link
 * carried even half its line rate over the jobs' time, a job took ≥ 1.5 × its ideal, and
 * neither drops nor PFC pauses explain the gap: the rate limiters, not the fabric, held the
 * traffic back. */
static void rule_dcqcn_collapse(const run_stats *st, diagnosis *out, int *n, int max)
{
    const job_result *w = worst_job(st);
    if (!w || st->cnp_handled < DIAG_MIN_CNPS || st->drops[DROP_BUFFER_FULL])
        return;
    /* The measured evidence: the NIC whose port sat idle longest with data held back only by
     * collapsed DCQCN rates (nic_record.dcqcn_held_ps). */
    sim_time held = 0;
    uint32_t held_host = 0;
    for (uint32_t h = 0; h < st->n_nics; h++)
        if (st->nics[h].dcqcn_held_ps > held) {
            held = st->nics[h].dcqcn_held_ps;
            held_host = h;
        }
    /* (a) the whole fabric under-used while a job starved, drops and PFC not the cause */
    bool starved = w->jct_over_ideal >= DIAG_STARVED && st->max_link_utilization < DIAG_BUSY_UTIL;
    sim_time win = window_ps(st);
    for (uint32_t i = 0; starved && i < st->n_ports; i++)
        if ((double)(st->ports[i].pfc_paused_ps + st->ports[i].credit_stall_ps) >=
            0.1 * (double)win)
            starved = false;
    /* (b) a sender held idle by a collapsed rate for a tenth of the slowed job's time, even
     * where some link was busy (an ECMP collision elsewhere, say) */
    bool held_long =
        w->jct_over_ideal >= DIAG_SLOWED && (double)held >= DIAG_HELD_FRACTION * (double)w->jct_ps;
    if (!starved && !held_long)
        return;
    char a[32], b[32], q[32], hh[32];
    const port_record *deep = NULL; /* where the congestion that sent the CNPs was */
    for (uint32_t i = 0; i < st->n_ports; i++)
        if (!deep || st->ports[i].max_queue_bytes > deep->max_queue_bytes)
            deep = &st->ports[i];
    /* cost: the measured hold of the most-held sender (what its rate limiter kept it from
     * sending for), else the whole excess */
    diagnosis *d = add(out, n, max, st->infiniband ? "ibcc_throttle" : "dcqcn_collapse",
                       held ? capped(st, held) : excess_ps(st));
    if (!d)
        return;
    if (st->infiniband) /* (a) only: IB CC has no DCQCN hold count */
        diag_line(d->text,
                  "IB congestion control throttled the senders: %" PRIu64 " BECNs raised their "
                  "CCT index (inter-packet delays; deepest queue %s at %s) while the busiest link "
                  "ran at %.0f %% of line rate; %s took %s = %.2f × its %s ideal",
                  st->cnp_handled, summary_fmt_bytes(q, sizeof q, deep ? deep->max_queue_bytes : 0),
                  deep ? deep->name : "-", 100.0 * st->max_link_utilization, w->name,
                  summary_fmt_time(a, sizeof a, w->jct_ps), w->jct_over_ideal,
                  summary_fmt_time(b, sizeof b, w->ideal_jct_ps));
    else if (held_long)
        diag_line(d->text,
                  "DCQCN rate collapse: h%" PRIu32 "'s port sat idle %s with data held back "
                  "by rates under 1/64 of line; %" PRIu64 " CNPs (deepest queue %s at %s); %s "
                  "took %s = %.2f × its %s ideal",
                  held_host, summary_fmt_time(hh, sizeof hh, held), st->cnp_handled,
                  summary_fmt_bytes(q, sizeof q, deep ? deep->max_queue_bytes : 0),
                  deep ? deep->name : "-", w->name, summary_fmt_time(a, sizeof a, w->jct_ps),
                  w->jct_over_ideal, summary_fmt_time(b, sizeof b, w->ideal_jct_ps));
    else
        diag_line(d->text,
                  "DCQCN rate collapse: senders cut their rates on %" PRIu64 " CNPs (deepest "
                  "queue %s at %s) while the busiest link ran at %.0f %% of line rate; %s took "
                  "%s = %.2f × its %s ideal",
                  st->cnp_handled, summary_fmt_bytes(q, sizeof q, deep ? deep->max_queue_bytes : 0),
                  deep ? deep->name : "-", 100.0 * st->max_link_utilization, w->name,
                  summary_fmt_time(a, sizeof a, w->jct_ps), w->jct_over_ideal,
                  summary_fmt_time(b, sizeof b, w->ideal_jct_ps));
}

int diagnose_run(const run_stats *st, diagnosis *out, int max)
{
    int n = 0;
    if (st->fidelity == FIDELITY_FLOW) {
        /* flow level (docs/fidelity.md): no queues, marks, pauses, drops or rate limiters to
         * read; only the rules that rest on compute, faults and bytes carried can be true */
        rule_gpu_failure(st, out, &n, max);
        rule_switch_drain(st, out, &n, max);
        rule_degraded_link(st, out, &n, max);
        rule_straggler(st, out, &n, max);
        return n;
    }
    rule_lossless_drops(st, out, &n, max);
    rule_link_fault(st, out, &n, max);
    rule_gpu_failure(st, out, &n, max);
    rule_switch_drain(st, out, &n, max);
    rule_bit_errors(st, out, &n, max);
    rule_degraded_link(st, out, &n, max);
    rule_pfc_storm(st, out, &n, max);
    rule_straggler(st, out, &n, max);
    rule_incast(st, out, &n, max);
    rule_ecmp_collision(st, out, &n, max);
    rule_pfc_spreading(st, out, &n, max);
    rule_dcqcn_collapse(st, out, &n, max);
    rule_credit_spreading(st, out, &n, max);
    return n;
}

int summary_diagnose(const run_stats *st, char (*lines)[SUMMARY_DIAG_LEN], int max)
{
    diagnosis d[DIAG_MAX];
    int n = diagnose_run(st, d, max < DIAG_MAX ? max : DIAG_MAX);
    for (int i = 0; i < n; i++)
        snprintf(lines[i], SUMMARY_DIAG_LEN, "%s", d[i].text);
    return n;
}
