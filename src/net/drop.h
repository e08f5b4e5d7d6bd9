/*
 * drop.h — why a packet was dropped. Counted per egress port; the names are the keys of
 * summary.json "fabric.drops" and the CSV/Prometheus exporters.
 */
#ifndef WR_NET_DROP_H
#define WR_NET_DROP_H

enum drop_reason {
    DROP_BUFFER_FULL,  /* lossy class over its dynamic threshold, or the buffer is full */
    DROP_LINK_DOWN,    /* queued for, or on, a link that went down */
    DROP_BIT_ERROR,    /* corrupted on a degraded link */
    DROP_NO_ROUTE,     /* no FIB entry for the destination */
    DROP_PFC_WATCHDOG, /* discarded by the PFC watchdog */
    DROP_TTL,          /* hop limit exceeded (routing loop) */
    DROP_PFC_HEADROOM, /* lossless frame that found its ingress headroom full: the configured
                        * headroom is below what the link needs (a misconfiguration; PFC's
                        * guarantee is broken) */
    DROP_REASONS
};

/* "buffer_full", "link_down", ..., "pfc_headroom" */
const char *drop_reason_name(enum drop_reason r);

#endif
