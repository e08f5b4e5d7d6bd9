/*
 * alloc.c — checked allocation and the allocation counter.
 *
 * Every heap allocation in wirerate goes through here: failure aborts with the size and the
 * purpose (STYLE.md "Errors": out of memory is not an input error), and alloc_count() lets the
 * steady-state test prove that event handlers never touch the heap (DESIGN.md "hot path").
 * Invariants: the functions never return NULL; a zero-byte request returns a valid, freeable
 * pointer (malloc(0) may legally return NULL, which callers would mistake for failure).
 * The counter is a plain uint64: wirerate is single-threaded per process (sweeps fork).
 *
 * Large blocks (ALLOC_HUGE_MIN and up: the event queue's buckets, the flow-level streams and
 * QPs, the transport's flows, per-task times) are advised to the kernel as transparent huge page
 * candidates (madvise MADV_HUGEPAGE, Linux; where the system's THP policy is `madvise` nothing
 * else gets them). A large run touches such arrays at random, one cache line per message: with
 * 4 KiB pages nearly every touch is also a TLB miss and a page walk (a 16,384-GPU flow-level run
 * keeps ~0.5 GB live, a 131,072-GPU one ~4 GB), with 2 MiB pages the TLB covers the whole of it.
 * Advice only: nothing computed depends on it, and it fails silently where unsupported.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static uint64_t alloc_n;

/* Blocks from this size on are advised as huge page candidates. */
#define ALLOC_HUGE_MIN ((size_t)4 << 20)
#define ALLOC_HUGE_PAGE ((uintptr_t)2 << 20)

/* The 2 MiB-aligned pages inside [p, p + n) may be backed by transparent huge pages. */
static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (n < ALLOC_HUGE_MIN)
        return;
    uintptr_t lo = ((uintptr_t)p + ALLOC_HUGE_PAGE - 1) & ~(ALLOC_HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(ALLOC_HUGE_PAGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

static void oom(size_t n, const char *what) __attribute__((noreturn, cold));
static void oom(size_t n, const char *what)
{
    fflush(stdout);
    fprintf(stderr, "wirerate: out of memory allocating %zu bytes for %s\n", n,
            what ? what : "(unnamed)");
    fflush(stderr);
    abort();
}

void *xmalloc(size_t n, const char *what)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n, what);
    alloc_n++;
    advise_huge(p, n);
    return p;
}

void *xcalloc(size_t count, size_t size, const char *what)
{
    size_t n;
    if (__builtin_mul_overflow(count, size, &n))
        oom(SIZE_MAX, what);
    void *p = calloc(n ? count : 1, n ? size : 1);
    if (!p)
        oom(n, what);
    alloc_n++;
    advise_huge(p, n);
    return p;
}

void *xrealloc(void *p, size_t n, const char *what)
{
    /* realloc(p, 0) may free p and return NULL; keep it an allocation of one byte instead. */
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n, what);
    alloc_n++;
    advise_huge(q, n);
    return q;
}

char *xstrdup(const char *s, const char *what)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n, what);
    memcpy(d, s, n);
    return d;
}

void xfree(void *p) { free(p); }

uint64_t alloc_count(void) { return alloc_n; }
