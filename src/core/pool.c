/*
 * pool.c — fixed-size object pools for what churns: packets, messages, flows.
 *
 * Objects are carved from chunks of `per_chunk` objects (one xmalloc each) and recycled through a
 * LIFO free list threaded through the objects' own pool_hdr, as in SQLite's lookaside allocator
 * and BIRD's slabs: after warm-up (live never exceeds the high-water mark) alloc and free are a
 * few loads and stores and never touch the heap — the zero-allocation test checks alloc_count().
 * LIFO reuse keeps the hottest objects in cache.
 *
 * Invariants: every object starts with a pool_hdr whose magic is POOL_LIVE while handed out and
 * POOL_FREE while on the free list; pool_free of anything not POOL_LIVE aborts (double free,
 * foreign pointer, corrupted header); pool_alloc asserts the free-list head is POOL_FREE, which
 * catches a use-after-free write that clobbered a header. live counts handed-out objects,
 * high_water is the maximum live ever seen.
 *
 * Debugging aids:
 *  - WR_POOL_DEBUG: a freed object's body (bytes after the header) is filled with 0xDB, so a
 *    stale pointer reads an obviously wrong value (0xDBDB...) that asserts trip over.
 *  - AddressSanitizer (POOL_ASAN): the body of every free object is ASan-poisoned and unpoisoned
 *    by pool_alloc, so ASan reports any access through a stale pointer while the object is free,
 *    without a malloc per object. The header stays addressable for the free list. Reuse is
 *    immediate (no quarantine), so an access after the object was handed out again is invisible:
 *  - WR_POOL_PASSTHROUGH: every object is its own xmalloc (a hidden link before the header keeps
 *    live objects on a list for pool_destroy), so ASan sees each lifetime with its quarantine.
 *    Steady state then allocates; the zero-allocation test is skipped.
 */
#include "pool.h"

#include <string.h>

#include "alloc.h"
#include "err.h"

#if POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_ALIGN 16u
#define POOL_CHUNK_BYTES ((size_t)64 << 10) /* default chunk size when per_chunk is 0 */

_Static_assert(sizeof(pool_hdr) == 16, "pool_hdr must keep object bodies 16-byte aligned");

#ifdef WR_POOL_PASSTHROUGH
/* Hidden prefix of a pass-through object: links of the live list. */
typedef struct pool_pt {
    struct pool_pt *prev, *next;
} pool_pt;
#endif

struct pool_chunk {
    pool_chunk *next;
    uint64_t nobj;
    /* objects follow at the pool's alignment: right after this header when that is 16 (malloc
     * alignment on LP64, the header is 16 bytes), else at the next multiple of it */
};

/* The first object of chunk c. */
static inline unsigned char *chunk_base(const pool *p, pool_chunk *c)
{
    uintptr_t b = (uintptr_t)(c + 1);
    return (unsigned char *)((b + (p->align - 1)) & ~(uintptr_t)(p->align - 1));
}

void pool_init(pool *p, const char *name, size_t obj_size, size_t per_chunk)
{
    pool_init_aligned(p, name, obj_size, per_chunk, POOL_ALIGN);
}

void pool_init_aligned(pool *p, const char *name, size_t obj_size, size_t per_chunk, size_t align)
{
    SIM_ASSERT(align >= POOL_ALIGN && !(align & (align - 1)),
               "pool %s: alignment %zu is not a power of two >= %u", name, align, POOL_ALIGN);
    if (obj_size < sizeof(pool_hdr))
        obj_size = sizeof(pool_hdr);
    p->name = name;
    p->align = align;
    p->obj_size = (obj_size + (align - 1)) & ~(size_t)(align - 1);
    if (!per_chunk)
        per_chunk = POOL_CHUNK_BYTES / p->obj_size ? POOL_CHUNK_BYTES / p->obj_size : 1;
    p->per_chunk = per_chunk;
    p->free_list = NULL;
    p->chunks = NULL;
    p->live = 0;
    p->high_water = 0;
}

static inline void *body(pool_hdr *h) { return h + 1; }

/* Mark h free: magic, debug poison, ASan poison. */
static inline void mark_free(const pool *p, pool_hdr *h)
{
    h->magic = POOL_FREE;
#ifdef WR_POOL_DEBUG
    memset(body(h), 0xDB, p->obj_size - sizeof(pool_hdr));
#endif
    POOL_POISON(body(h), p->obj_size - sizeof(pool_hdr));
}

#ifndef WR_POOL_PASSTHROUGH
/* Room to align a chunk's first object (none at malloc's alignment, which the header keeps). */
static inline size_t chunk_slack(const pool *p)
{
    return p->align > POOL_ALIGN ? p->align - POOL_ALIGN : 0;
}

static void __attribute__((noinline)) pool_grow(pool *p)
{
    size_t bytes;
    SIM_ASSERT(!__builtin_mul_overflow(p->obj_size, p->per_chunk, &bytes) &&
                   bytes <= SIZE_MAX - sizeof(pool_chunk) - p->align,
               "pool %s: chunk of %zu x %zu bytes overflows", p->name, p->per_chunk, p->obj_size);
    size_t slack = chunk_slack(p);
    pool_chunk *c = xcalloc_huge(sizeof(pool_chunk) + slack + bytes, p->name);
    c->nobj = p->per_chunk;
    c->next = p->chunks;
    p->chunks = c;
    /* Thread in reverse so the free list hands objects out in address order. */
    unsigned char *base = chunk_base(p, c);
    for (size_t i = p->per_chunk; i-- > 0;) {
        pool_hdr *h = (pool_hdr *)(base + i * p->obj_size);
        h->user = 0;
        mark_free(p, h);
        h->next_free = p->free_list;
        p->free_list = h;
    }
    /* The next chunk is twice as large, up to what fills a huge page (2 MiB): a pool that
     * grows large (the packets queued in a big fabric: 9.6 M of them at 32,768 GPUs) then sits
     * in huge pages (alloc.h), while a small scenario's stays one small chunk. */
    size_t fill = (XALLOC_HUGE_PAGE - sizeof(pool_chunk) - slack) / p->obj_size;
    if (p->per_chunk < fill)
        p->per_chunk = p->per_chunk * 2 < fill ? p->per_chunk * 2 : fill;
}
#endif

void *pool_alloc(pool *p)
{
#ifdef WR_POOL_PASSTHROUGH
    pool_pt *pt = xmalloc(sizeof(pool_pt) + p->obj_size, p->name);
    pt->prev = NULL;
    pt->next = (pool_pt *)p->chunks;  /* the live list reuses the chunks field */
    if (pt->next)
        pt->next->prev = pt;
    p->chunks = (pool_chunk *)pt;
    pool_hdr *h = (pool_hdr *)(pt + 1);
    h->user = 0;
    h->next_free = NULL;
#else
    if (__builtin_expect(p->free_list == NULL, 0))
        pool_grow(p);
    pool_hdr *h = p->free_list;
    SIM_ASSERT(h->magic == POOL_FREE, "pool %s: free list corrupted at %p (magic %08x)", p->name,
               (void *)h, h->magic);
    p->free_list = h->next_free;
    h->next_free = NULL;
    POOL_UNPOISON(body(h), p->obj_size - sizeof(pool_hdr));
#endif
    h->magic = POOL_LIVE;
    if (++p->live > p->high_water)
        p->high_water = p->live;
    return h;
}

void pool_free(pool *p, void *obj)
{
    pool_hdr *h = obj;
    SIM_ASSERT(h->magic == POOL_LIVE, "pool %s: %s %p (magic %08x)", p->name,
               h->magic == POOL_FREE ? "double free of" : "free of non-live object", obj,
               h->magic);
    SIM_ASSERT(p->live > 0, "pool %s: free with no live objects", p->name);
    p->live--;
#ifdef WR_POOL_PASSTHROUGH
    pool_pt *pt = (pool_pt *)h - 1;
    if (pt->prev)
        pt->prev->next = pt->next;
    else
        p->chunks = (pool_chunk *)pt->next;
    if (pt->next)
        pt->next->prev = pt->prev;
    h->magic = POOL_FREE;
    xfree(pt);
#else
    mark_free(p, h);
    h->next_free = p->free_list;
    p->free_list = h;
#endif
}

void pool_destroy(pool *p)
{
#ifdef WR_POOL_PASSTHROUGH
    pool_pt *pt = (pool_pt *)p->chunks;
    while (pt) {
        pool_pt *next = pt->next;
        xfree(pt);
        pt = next;
    }
#else
    pool_chunk *c = p->chunks;
    while (c) {
        pool_chunk *next = c->next;
        POOL_UNPOISON(chunk_base(p, c), c->nobj * p->obj_size);
        xfree_huge(c, sizeof(pool_chunk) + chunk_slack(p) + c->nobj * p->obj_size);
        c = next;
    }
#endif
    p->chunks = NULL;
    p->free_list = NULL;
    p->live = 0;
}
