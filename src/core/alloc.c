/*
 * alloc.c — checked allocation and the allocation counter.
 *
 * Every heap allocation in wirerate goes through here: failure aborts with the size and the
 * purpose (STYLE.md "Errors": out of memory is not an input error), and alloc_count() lets the
 * steady-state test prove that event handlers never touch the heap (DESIGN.md "hot path").
 * Invariants: the functions never return NULL; a zero-byte request returns a valid, freeable
 * pointer (malloc(0) may legally return NULL, which callers would mistake for failure).
 * The counter is a plain uint64: wirerate is single-threaded per process (sweeps fork).
 */
#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t alloc_n;

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
    return p;
}

void *xcalloc_lines(uint64_t n, size_t size, void **mem, const char *what)
{
    uint64_t bytes;
    if (__builtin_mul_overflow(n, (uint64_t)size, &bytes) || bytes > SIZE_MAX - 64)
        oom(SIZE_MAX, what);
    char *p = xcalloc(1, (size_t)bytes + 64, what);
    *mem = p;
    return p + (64 - (uintptr_t)p % 64) % 64;
}

void *xrealloc(void *p, size_t n, const char *what)
{
    /* realloc(p, 0) may free p and return NULL; keep it an allocation of one byte instead. */
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n, what);
    alloc_n++;
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
