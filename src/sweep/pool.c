/*
 * pool.c — forked workers with result and stderr pipes (see pool.h).
 *
 * The parent keeps at most `workers` children. It never blocks on one child: poll(2) over every
 * child's two pipes with a 100 ms timeout (the tick), reading whatever is there, so a child that
 * writes a large result cannot deadlock against a full pipe. A child is reaped once both its
 * pipes reached end of file; its exit status decides whether its bytes are a result.
 */
#define _POSIX_C_SOURCE 200809L

#include "pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "../core/alloc.h"

#define TAIL_KEEP 4096

typedef struct child {
    pid_t pid;
    uint32_t task;
    int res_fd, err_fd; /* -1 once at end of file */
    uint8_t *res;
    size_t res_len, res_cap;
    char *tail;
    size_t tail_len;
    double t0;
} child;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pool_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

char *pool_describe(const pool_outcome *o, char *buf, size_t len)
{
    if (o->signal) {
        const char *name = o->signal == SIGSEGV   ? " (SIGSEGV)"
                           : o->signal == SIGABRT ? " (SIGABRT)"
                           : o->signal == SIGKILL ? " (SIGKILL)"
                           : o->signal == SIGTERM ? " (SIGTERM)"
                           : o->signal == SIGBUS  ? " (SIGBUS)"
                           : o->signal == SIGFPE  ? " (SIGFPE)"
                                                  : "";
        snprintf(buf, len, "the worker process was killed by signal %d%s", o->signal, name);
    } else {
        snprintf(buf, len, "the worker process exited with status %d", o->exit_status);
    }
    return buf;
}

static void cloexec(int fd)
{
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int spawn(const pool_spec *p, child *c, uint32_t task, err *e)
{
    int rp[2], ep[2];
    if (pipe(rp) != 0)
        return err_set(e, ERR_RUN, "", 0, 0, "cannot create a pipe: %s", strerror(errno));
    if (pipe(ep) != 0) {
        close(rp[0]);
        close(rp[1]);
        return err_set(e, ERR_RUN, "", 0, 0, "cannot create a pipe: %s", strerror(errno));
    }
    cloexec(rp[0]);
    cloexec(ep[0]);
    pid_t parent = getpid();
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(rp[0]);
        close(rp[1]);
        close(ep[0]);
        close(ep[1]);
        return err_set(e, ERR_RUN, "", 0, 0, "cannot start a worker process: %s", strerror(saved));
    }
    if (pid == 0) {
        /* the child: default signal handling (the parent's handlers are about its own state),
         * die with the parent, stderr into the pipe */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGABRT, SIGPIPE};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
            sigaction(sigs[i], &sa, NULL);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != parent)
            _exit(127);
        close(rp[0]);
        close(ep[0]);
        dup2(ep[1], STDERR_FILENO);
        close(ep[1]);
        int rc = p->work(p->user, task, rp[1]);
        close(rp[1]);
        _exit(rc);
    }
    close(rp[1]);
    close(ep[1]);
    memset(c, 0, sizeof *c);
    c->pid = pid;
    c->task = task;
    c->res_fd = rp[0];
    c->err_fd = ep[0];
    c->t0 = mono();
    return ERR_OK;
}

/* Read what is there; close at end of file. */
static void drain(child *c, int *fd, bool is_res)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return;
    }
    if (is_res) {
        if (c->res_len + (size_t)n > c->res_cap) {
            size_t cap = c->res_cap ? c->res_cap : 65536;
            while (cap < c->res_len + (size_t)n)
                cap *= 2;
            c->res = xrealloc(c->res, cap, "worker result");
            c->res_cap = cap;
        }
        memcpy(c->res + c->res_len, buf, (size_t)n);
        c->res_len += (size_t)n;
    } else {
        if (!c->tail)
            c->tail = xmalloc(2 * TAIL_KEEP + sizeof buf + 1, "worker stderr");
        memcpy(c->tail + c->tail_len, buf, (size_t)n);
        c->tail_len += (size_t)n;
        if (c->tail_len > TAIL_KEEP) {
            memmove(c->tail, c->tail + c->tail_len - TAIL_KEEP, TAIL_KEEP);
            c->tail_len = TAIL_KEEP;
        }
    }
}

static void release(child *c)
{
    if (c->res_fd >= 0)
        close(c->res_fd);
    if (c->err_fd >= 0)
        close(c->err_fd);
    xfree(c->res);
    xfree(c->tail);
    memset(c, 0, sizeof *c);
    c->res_fd = c->err_fd = -1;
}

/* Reap a child whose pipes are closed and report it (unless it was stopped by us). */
static int finish(const pool_spec *p, child *c, bool stopping, err *e)
{
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    pool_outcome o;
    memset(&o, 0, sizeof o);
    o.task = c->task;
    o.wall_s = mono() - c->t0;
    if (WIFEXITED(status)) {
        o.exit_status = WEXITSTATUS(status);
        o.ok = o.exit_status == 0;
    } else {
        o.exit_status = -1;
        o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    o.bytes = c->res;
    o.len = c->res_len;
    if (c->tail)
        c->tail[c->tail_len] = '\0';
    o.stderr_tail = c->tail ? c->tail : "";
    int rc = ERR_OK;
    /* while stopping, a child that did not complete was stopped by us or by the same signal:
     * not a result, and not a failure of the run either */
    if (o.ok || !stopping)
        rc = p->done(p->user, &o, e);
    release(c);
    return rc;
}

int pool_run(const pool_spec *p, err *e)
{
    int nw = p->workers > 0 ? p->workers : 1;
    child *kids = xcalloc((size_t)nw, sizeof *kids, "worker slots");
    struct pollfd *pfd = xcalloc((size_t)nw * 2, sizeof *pfd, "worker pipes");
    for (int i = 0; i < nw; i++)
        kids[i].res_fd = kids[i].err_fd = -1;
    int active = 0, rc = ERR_OK;
    bool exhausted = false, terminated = false;
    double last_tick = 0;
    for (;;) {
        bool stopping = (p->stop && *p->stop) || rc != ERR_OK;
        for (int i = 0; i < nw && !stopping && !exhausted; i++) {
            if (kids[i].pid)
                continue;
            uint32_t task;
            if (!p->next(p->user, &task)) {
                exhausted = true;
                break;
            }
            int r = spawn(p, &kids[i], task, e);
            if (r) {
                rc = r;
                stopping = true;
                break;
            }
            active++;
        }
        if (active == 0)
            break;
        if (stopping && !terminated) {
            for (int i = 0; i < nw; i++)
                if (kids[i].pid)
                    kill(kids[i].pid, SIGTERM);
            terminated = true;
        }
        int n = 0;
        for (int i = 0; i < nw; i++) {
            pfd[2 * i] = (struct pollfd){.fd = kids[i].res_fd, .events = POLLIN};
            pfd[2 * i + 1] = (struct pollfd){.fd = kids[i].err_fd, .events = POLLIN};
            n += (kids[i].res_fd >= 0) + (kids[i].err_fd >= 0);
        }
        if (n && poll(pfd, (nfds_t)nw * 2, 100) < 0 && errno != EINTR) {
            rc = rc ? rc : err_set(e, ERR_RUN, "", 0, 0, "poll: %s", strerror(errno));
        }
        for (int i = 0; i < nw; i++) {
            child *c = &kids[i];
            if (!c->pid)
                continue;
            if (c->res_fd >= 0 && (pfd[2 * i].revents & (POLLIN | POLLHUP | POLLERR)))
                drain(c, &c->res_fd, true);
            if (c->err_fd >= 0 && (pfd[2 * i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                drain(c, &c->err_fd, false);
            if (c->res_fd < 0 && c->err_fd < 0) {
                int r = finish(p, c, (p->stop && *p->stop) || rc != ERR_OK, e);
                if (r && !rc)
                    rc = r;
                active--;
            }
        }
        double now = mono();
        if (p->tick && now - last_tick >= 0.1) {
            last_tick = now;
            p->tick(p->user);
        }
    }
    xfree(pfd);
    xfree(kids);
    return rc;
}
