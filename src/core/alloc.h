/*
 * alloc.h — checked allocation. Every heap allocation in wirerate goes through these, so out of
 * memory aborts with the size and purpose, and tests can count allocations (the steady-state
 * zero-allocation test reads alloc_count()).
 */
#ifndef WR_CORE_ALLOC_H
#define WR_CORE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Return new memory (never NULL; abort naming `what` and the size on failure). */
void *xmalloc(size_t n, const char *what);
void *xcalloc(size_t count, size_t size, const char *what);
void *xrealloc(void *p, size_t n, const char *what);
char *xstrdup(const char *s, const char *what);
void xfree(void *p);
/* Zeroed array of n elements of `size` starting on a cache line (64 bytes); *mem gets the block
 * to release with xfree_lines(*mem, n, size). For arrays whose elements are laid out by cache
 * line (the hot path's flows and QPs: large ones go to huge pages, see xcalloc_huge). */
void *xcalloc_lines(uint64_t n, size_t size, void **mem, const char *what);
void xfree_lines(void *mem, uint64_t n, size_t size);

/* Zeroed memory for the large blocks the hot path walks (ports, nodes and FIBs in the arena,
 * packets and other pools, the event queue's chunks, QPs and flows). From XALLOC_HUGE_MIN bytes
 * up, the block is a mapping of its own, aligned to 2 MiB and advised to transparent huge pages
 * (MADV_HUGEPAGE; Debian's default THP mode, "madvise", backs only advised memory), so that one
 * TLB entry covers 2 MiB instead of 4 KiB: at 8,192 hosts and more the hot path touches more
 * pages than the TLB holds, and the prefetches the event loop issues stall on page walks
 * (docs/performance.md, issue #17 sixth round). Smaller blocks, sanitizer builds and
 * WR_HUGEPAGES=0 (or off, no, false: env.h) in the environment get plain calloc. Release with
 * xfree_huge(p, n), the same n. */
#define XALLOC_HUGE_PAGE ((size_t)2 << 20)
#define XALLOC_HUGE_MIN XALLOC_HUGE_PAGE
void *xcalloc_huge(size_t n, const char *what);
void xfree_huge(void *p, size_t n);
/* The bytes xcalloc_huge gives for a request of n: n rounded up to whole huge pages when it
 * maps them (the rest of the last one is the caller's to use), else n. */
size_t xalloc_huge_size(size_t n);
/* Whether xcalloc_huge maps blocks of n bytes to huge pages (false below XALLOC_HUGE_MIN, under
 * sanitizers, with WR_HUGEPAGES off, or where the system has no MADV_HUGEPAGE). */
int xalloc_huge_used(size_t n);

/* Number of successful xmalloc/xcalloc/xrealloc/xstrdup calls since start. */
uint64_t alloc_count(void);

#endif
