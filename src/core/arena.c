/*
 * arena.c — bump allocator with a named owner (the config arena, the sim arena).
 *
 * Memory comes in chunks from xcalloc, so every allocation is already zeroed (calloc of a large
 * block gets fresh zero pages from the kernel; no memset pass). Each allocation is rounded up to
 * 16 bytes and starts 16-byte aligned, enough for any scalar and for SSE loads.
 *
 * Invariants: a->chunks is newest first; the head chunk is the one small requests bump from.
 * Normal chunks grow geometrically (64 KiB, 128 KiB, ... capped at 16 MiB) so a build that
 * allocates G bytes makes O(log G) + G/16MiB calls to the heap and wastes at most one chunk's
 * tail per chunk. A request larger than a quarter of the next normal chunk gets a chunk of its
 * own, linked *behind* the head, so the head keeps serving small requests instead of being
 * abandoned half empty (the classic obstack/APR-pool trade-off).
 */
#include "arena.h"

#include <stdint.h>
#include <string.h>

#include "alloc.h"

#define ARENA_ALIGN 16u
#define ARENA_CHUNK_MIN ((size_t)64 << 10)
#define ARENA_CHUNK_MAX ((size_t)16 << 20)

struct arena_chunk {
    arena_chunk *next;
    size_t total;     /* bytes of the block (xfree_huge) */
    size_t cap;       /* usable bytes from base */
    size_t used;      /* bytes bumped so far */
    unsigned char *base; /* first 16-byte aligned byte after this header */
};

static size_t round_up16(size_t n)
{
    size_t r = (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
    return r < n ? SIZE_MAX : r;  /* saturate: a huge request then fails in xcalloc, by name */
}

void arena_init(arena *a, const char *name)
{
    a->name = name;
    a->chunks = NULL;
    a->used_bytes = 0;
}

static arena_chunk *chunk_new(arena *a, size_t cap)
{
    size_t total = sizeof(arena_chunk) + ARENA_ALIGN + cap;
    if (total < cap)
        total = SIZE_MAX;
    else { /* a huge-page block: use all of its last huge page */
        size_t r = xalloc_huge_size(total);
        cap += r - total;
        total = r;
    }
    arena_chunk *c = xcalloc_huge(total, a->name ? a->name : "arena");
    c->total = total;
    uintptr_t b = ((uintptr_t)(c + 1) + (ARENA_ALIGN - 1)) & ~(uintptr_t)(ARENA_ALIGN - 1);
    c->base = (unsigned char *)b;
    c->cap = cap;
    c->used = 0;
    return c;
}

void *arena_alloc(arena *a, size_t n)
{
    size_t need = round_up16(n ? n : 1);
    arena_chunk *head = a->chunks;
    a->used_bytes += n;
    if (head && head->cap - head->used >= need) {
        void *p = head->base + head->used;
        head->used += need;
        return p;
    }
    size_t next = head ? head->cap * 2 : ARENA_CHUNK_MIN;
    if (next > ARENA_CHUNK_MAX)
        next = ARENA_CHUNK_MAX;
    if (next < ARENA_CHUNK_MIN)
        next = ARENA_CHUNK_MIN;
    if (need > next / 4) {
        /* Own chunk, behind the head: the head keeps its free tail for small requests. */
        arena_chunk *c = chunk_new(a, need);
        c->used = need;
        if (head) {
            c->next = head->next;
            head->next = c;
        } else {
            c->next = NULL;
            a->chunks = c;
        }
        return c->base;
    }
    arena_chunk *c = chunk_new(a, next);
    c->next = head;
    a->chunks = c;
    c->used = need;
    return c->base;
}

char *arena_strdup(arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = arena_alloc(a, n);
    memcpy(d, s, n);
    return d;
}

void arena_free(arena *a)
{
    arena_chunk *c = a->chunks;
    while (c) {
        arena_chunk *next = c->next;
        xfree_huge(c, c->total);
        c = next;
    }
    a->chunks = NULL;
    a->used_bytes = 0;
}
