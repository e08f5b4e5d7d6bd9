/*
 * progress.c — the '\r'-redrawn progress line (see progress.h). Erasing uses spaces rather than
 * an ANSI "erase line" sequence so it also works on dumb terminals and serial consoles.
 */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <stdio.h>
#include <time.h>

#include "../report/summary.h"

#define REDRAW_INTERVAL_S 0.25

double progress_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_init(progress *p, bool enabled)
{
    p->enabled = enabled;
    p->t0_s = progress_clock();
    p->last_s = p->t0_s;
    p->width = 0;
}

static void fmt_seconds(char *buf, size_t len, double s)
{
    long t = (long)(s + 0.5);
    if (t < 60)
        snprintf(buf, len, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, len, "%ld min %02ld s", t / 60, t % 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
}

void progress_update(const sim *s, void *user)
{
    progress *p = user;
    if (!p->enabled)
        return;
    double now = progress_clock();
    if (now - p->last_s < REDRAW_INTERVAL_S)
        return;
    p->last_s = now;
    double wall = now - p->t0_s;

    char simt[32], line[160], eta[48] = "";
    summary_fmt_time(simt, sizeof simt, s->now);
    if (s->stop_at != SIM_TIME_MAX && s->stop_at > 0 && s->now > 0) {
        double frac = (double)s->now / (double)s->stop_at;
        char rest[32];
        fmt_seconds(rest, sizeof rest, wall * (1.0 - frac) / frac);
        snprintf(eta, sizeof eta, " (%.1f %%)", 100.0 * frac);
        snprintf(line, sizeof line, "sim %s%s | wall %.1f s | %.2f M events/s | ETA %s", simt, eta,
                 wall, (double)s->events / wall / 1e6, rest);
    } else {
        snprintf(line, sizeof line, "sim %s | wall %.1f s | %.2f M events/s", simt, wall,
                 (double)s->events / wall / 1e6);
    }
    int n = fprintf(stderr, "\r%s", line) - 1;
    for (int i = n; i < p->width; i++) /* blank out the rest of a longer previous line */
        fputc(' ', stderr);
    if (n > p->width)
        p->width = n;
    fflush(stderr);
}

void progress_clear(progress *p)
{
    if (!p->enabled || p->width == 0)
        return;
    fprintf(stderr, "\r%*s\r", p->width, "");
    fflush(stderr);
    p->width = 0;
}
