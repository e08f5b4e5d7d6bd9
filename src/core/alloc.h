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
 * to xfree. For arrays whose elements are laid out by cache line. */
void *xcalloc_lines(uint64_t n, size_t size, void **mem, const char *what);

/* Number of successful xmalloc/xcalloc/xrealloc/xstrdup calls since start. */
uint64_t alloc_count(void);

#endif
