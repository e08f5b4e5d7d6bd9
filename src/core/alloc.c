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
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE, MAP_ANONYMOUS */
#include "alloc.h"
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Sanitizer builds keep every block a malloc block, so that ASan checks its bounds. */
#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_ASAN 1
#endif
#endif
#if defined(MADV_HUGEPAGE) && !defined(ALLOC_ASAN)
#define ALLOC_HUGE 1
#else
#define ALLOC_HUGE 0
#endif

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
    char *p = xcalloc_huge((size_t)bytes + 64, what);
    *mem = p;
    return p + (64 - (uintptr_t)p % 64) % 64;
}

void xfree_lines(void *mem, uint64_t n, size_t size)
{
    xfree_huge(mem, (size_t)(n * size) + 64);
}

static size_t huge_len(size_t n)
{
    return (n + (XALLOC_HUGE_PAGE - 1)) & ~(XALLOC_HUGE_PAGE - 1);
}

#if ALLOC_HUGE
static int huge_off = -1; /* WR_HUGEPAGES off (env.h): -1 not read yet */

static int huge_enabled(void)
{
    if (huge_off < 0) {
        huge_off = env_value_off(getenv("WR_HUGEPAGES")); /* 0, off, no, false */
    }
    return !huge_off;
}
#endif

int xalloc_huge_used(size_t n)
{
#if ALLOC_HUGE
    return n >= XALLOC_HUGE_MIN && n <= SIZE_MAX - 2 * XALLOC_HUGE_PAGE && huge_enabled();
#else
    (void)n;
    return 0;
#endif
}

size_t xalloc_huge_size(size_t n)
{
    return xalloc_huge_used(n) ? huge_len(n) : n;
}

void *xcalloc_huge(size_t n, const char *what)
{
#if ALLOC_HUGE
    if (xalloc_huge_used(n)) {
        /* Map one huge page more than needed, keep the 2 MiB-aligned part: the kernel backs
         * an advised range with huge pages only where a whole aligned 2 MiB lies inside it.
         * Anonymous mappings are zeroed. A refused advice (THP "never") leaves small pages. */
        size_t len = huge_len(n), map = len + XALLOC_HUGE_PAGE;
        char *base = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED)
            oom(n, what);
        char *a = (char *)(((uintptr_t)base + (XALLOC_HUGE_PAGE - 1)) & ~(uintptr_t)(XALLOC_HUGE_PAGE - 1));
        if (a > base)
            munmap(base, (size_t)(a - base));
        if (base + map > a + len)
            munmap(a + len, (size_t)(base + map - (a + len)));
        (void)madvise(a, len, MADV_HUGEPAGE);
        alloc_n++;
        return a;
    }
#endif
    return xcalloc(1, n, what);
}

void xfree_huge(void *p, size_t n)
{
    if (!p)
        return;
#if ALLOC_HUGE
    if (xalloc_huge_used(n)) {
        munmap(p, huge_len(n));
        return;
    }
#endif
    free(p);
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
