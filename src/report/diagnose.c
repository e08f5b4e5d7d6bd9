/*
 * diagnose.c — what made a run slow, from its run_stats (see diagnose.h).
 *
 * Moved out of summary.c unchanged: the rules grow, and the summary's writers change for other
 * reasons (new keys, new counters).
 */
#include "diagnose.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

static uint64_t port_drops(const port_record *p)
{
    uint64_t n = 0;
    for (int r = 0; r < DROP_REASONS; r++)
        n += p->drops[r];
    return n;
}

/* ---------------------------------------------------------------------------- */

/* "leaf0->spine1#2" → owner "leaf0", peer "spine1". False if the name has no arrow. */
static bool split_port(const char *name, char *owner, char *peer, size_t len)
{
    const char *arrow = strstr(name, "->");
    if (!arrow || (size_t)(arrow - name) >= len)
        return false;
    memcpy(owner, name, (size_t)(arrow - name));
    owner[arrow - name] = '\0';
    snprintf(peer, len, "%s", arrow + 2);
    char *hash = strchr(peer, '#');
    if (hash)
        *hash = '\0';
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

/* snprintf into a diagnosis line; cutting a long port name short is acceptable there. */
static void diag_line(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diag_line(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, SUMMARY_DIAG_LEN, fmt, ap);
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

/* qsort by the owning node's name, then by port index (stable and deterministic). */
static const run_stats *sort_ports;
static int by_owner(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const char *px = sort_ports->ports[x].name, *py = sort_ports->ports[y].name;
    size_t lx = strcspn(px, "-"), ly = strcspn(py, "-");
    int c = strncmp(px, py, lx < ly ? lx : ly);
    if (!c)
        c = lx < ly ? -1 : lx > ly;
    return c ? c : (x < y ? -1 : x > y);
}

int summary_diagnose(const run_stats *st, char (*lines)[SUMMARY_DIAG_LEN], int max)
{
    int n = 0;
    char own[48], peer[48], a[32], b[32], c2[32];

    /* PFC storm: a NIC sending PAUSE frames (hosts have no ingress buffer to protect). */
    for (uint32_t i = 0; i < st->n_ports && n < max; i++) {
        const port_record *p = &st->ports[i];
        if (!p->pfc_pause_sent || !split_port(p->name, own, peer, sizeof own) ||
            host_index(own) < 0)
            continue;
        diag_line(lines[n++],
                 "PFC storm from %s: %" PRIu64 " PAUSE frames to %s, fabric paused %s in total, "
                 "%" PRIu64 " watchdog events",
                 own, p->pfc_pause_sent, peer, summary_fmt_time(a, sizeof a, st->pfc_paused_ps),
                 st->pfc_watchdog_events);
        break; /* one storm line; the rest show in the port table */
    }

    /* Incast: the deepest switch->host queue, when several flows end at that host. */
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
    if (inc && n < max) {
        uint64_t into = 0, senders = 0;
        for (uint64_t k = 0; k < st->n_flows; k++)
            into += st->flows[k].dst_host == (uint32_t)inc_host;
        senders = into;
        /* several flows into one host and a queue worth more than a few frames */
        if (senders >= 2 && (inc->max_queue_bytes >= 32000 || port_drops(inc)))
            diag_line(lines[n++],
                     "incast at %s: %" PRIu64 " flows into h%ld, queue peaked at %s, %" PRIu64
                     " drops, %" PRIu64 " PAUSE frames upstream",
                     inc->name, into, inc_host,
                     summary_fmt_bytes(a, sizeof a, inc->max_queue_bytes), port_drops(inc),
                     st->pfc_pause_sent);
    }

    /* ECMP collision: among one switch's ports towards one tier (same name family, not hosts),
     * the busiest far above the idlest. The worst group is reported. Ports are visited in
     * order of their owner's name, so a switch's ports form one run. */
    uint32_t *ord = malloc(sizeof(uint32_t) * (st->n_ports ? st->n_ports : 1));
    if (!ord)
        return n;
    for (uint32_t i = 0; i < st->n_ports; i++)
        ord[i] = i;
    sort_ports = st;
    qsort(ord, st->n_ports, sizeof *ord, by_owner);
    const port_record *hot = NULL, *cold = NULL;
    double gap = 0;
    uint32_t group_n = 0, group_idle = 0;
    for (uint32_t i = 0; i < st->n_ports;) {
        if (!split_port(st->ports[ord[i]].name, own, peer, sizeof own)) {
            i++;
            continue;
        }
        uint32_t end = i + 1;
        char o2[48], p2[48], fam[48], fam2[48];
        while (end < st->n_ports && split_port(st->ports[ord[end]].name, o2, p2, sizeof o2) &&
               strcmp(o2, own) == 0)
            end++;
        if (host_index(own) >= 0) {
            i = end;
            continue;
        }
        for (uint32_t g0 = i; g0 < end; g0++) {
            split_port(st->ports[ord[g0]].name, o2, peer, sizeof o2);
            if (host_index(peer) >= 0)
                continue;
            name_family(peer, fam, sizeof fam);
            char ofam[48];
            name_family(own, ofam, sizeof ofam);
            /* ECMP chooses among uplinks only: towards a higher tier */
            if (family_tier(ofam) < 1 || family_tier(fam) <= family_tier(ofam))
                continue;
            bool seen = false; /* family handled from an earlier member */
            for (uint32_t j = i; j < g0 && !seen; j++) {
                split_port(st->ports[ord[j]].name, o2, p2, sizeof o2);
                name_family(p2, fam2, sizeof fam2);
                seen = host_index(p2) < 0 && strcmp(fam2, fam) == 0;
            }
            if (seen)
                continue;
            const port_record *h = NULL, *c = NULL;
            uint32_t m = 0, idle = 0;
            uint64_t total = 0;
            for (uint32_t j = g0; j < end; j++) {
                const port_record *q = &st->ports[ord[j]];
                split_port(q->name, o2, p2, sizeof o2);
                name_family(p2, fam2, sizeof fam2);
                if (host_index(p2) >= 0 || strcmp(fam2, fam) != 0)
                    continue;
                m++;
                total += q->tx_bytes;
                if (!h || q->tx_bytes > h->tx_bytes)
                    h = q;
                if (!c || q->tx_bytes < c->tx_bytes)
                    c = q;
            }
            /* the bytes each uplink carried over the run: a hashed-together pair carries twice
             * a fair share while a sibling idles (utilization alone misses collisions that
             * DCQCN slowed down) */
            for (uint32_t j = g0; m && j < end; j++) {
                const port_record *q = &st->ports[ord[j]];
                split_port(q->name, o2, p2, sizeof o2);
                name_family(p2, fam2, sizeof fam2);
                if (host_index(p2) < 0 && strcmp(fam2, fam) == 0)
                    idle += q->tx_bytes * 4 * m < total; /* under a quarter of a fair share */
            }
            double g = m && total ? (double)(h->tx_bytes - c->tx_bytes) / (double)total : 0;
            if (m >= 2 && h->tx_bytes >= 1000000 && h->tx_bytes * m >= 3 * total / 2 &&
                h->tx_bytes >= 2 * c->tx_bytes && g > gap) {
                gap = g;
                hot = h;
                cold = c;
                group_n = m;
                group_idle = idle;
            }
        }
        i = end;
    }
    free(ord);
    if (hot && n < max)
        diag_line(lines[n++],
                 "ECMP collision: %s carried %s (queue %s) while %s carried %s; %u of %u "
                 "sibling uplinks under a quarter of a fair share",
                 hot->name, summary_fmt_bytes(a, sizeof a, hot->tx_bytes),
                 summary_fmt_bytes(b, sizeof b, hot->max_queue_bytes), cold->name,
                 summary_fmt_bytes(c2, sizeof c2, cold->tx_bytes), group_idle, group_n);
    return n;
}
