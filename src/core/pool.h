/*
 * pool.h — fixed-size object pools for what churns (packets, messages, flows).
 *
 * Objects come from chunks owned by the pool and are recycled through a free list threaded
 * through the objects themselves; after warm-up, alloc/free never touch the heap. Every object
 * carries a 32-bit magic word at offset 0 (POOL_LIVE / POOL_FREE): pool_free of a free object or
 * of a foreign pointer aborts. In debug builds (WR_POOL_DEBUG) a freed object is poisoned with
 * 0xDB bytes after the header, so a use-after-free reads garbage that asserts trip over.
 * Under AddressSanitizer the body of every free object is also ASan-poisoned, so a use-after-free
 * is reported while the object sits on the free list, with no per-object malloc.
 * In pass-through builds (WR_POOL_PASSTHROUGH, used with ASan) every object is its own xmalloc
 * so the sanitizer sees each lifetime, even after reuse; the zero-allocation test is skipped.
 */
#ifndef WR_CORE_POOL_H
#define WR_CORE_POOL_H

#include <stddef.h>
#include <stdint.h>

/* POOL_ASAN is 1 when compiled under AddressSanitizer (gcc or clang): free objects' bodies are
 * then poisoned so ASan reports a use-after-free of a pooled object. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ASAN 1
#endif
#endif
#ifndef POOL_ASAN
#define POOL_ASAN 0
#endif

#define POOL_LIVE 0x4C495645u /* "LIVE" */
#define POOL_FREE 0x46524545u /* "FREE" */

/* Header every pooled struct must start with. The pool reads and writes `magic` always and
 * `next_free` only while the object is free (pool_alloc sets it to NULL); `user` is the
 * object's own (the pool zeroes it once, when the object is first carved): a struct may alias
 * both with fields of its own (net/packet.h does, to stay 64 bytes). */
typedef struct pool_hdr {
    uint32_t magic;
    uint32_t user;
    struct pool_hdr *next_free;
} pool_hdr;

typedef struct pool_chunk pool_chunk;
typedef struct pool {
    const char *name;
    size_t obj_size;      /* >= sizeof(pool_hdr), rounded to `align` */
    size_t align;         /* objects' alignment: 16, or what pool_init_aligned asked for */
    size_t per_chunk;     /* objects in the next chunk (doubles up to a 2 MiB huge page) */
    pool_hdr *free_list;
    pool_chunk *chunks;
    uint64_t live;        /* objects handed out and not freed */
    uint64_t high_water;  /* max live */
} pool;

void pool_init(pool *p, const char *name, size_t obj_size, size_t per_chunk);
/* As pool_init, with objects aligned to `align` bytes (a power of two >= 16; 64 = a cache line)
 * and their size rounded up to it. Pass-through builds (WR_POOL_PASSTHROUGH) keep malloc's. */
void pool_init_aligned(pool *p, const char *name, size_t obj_size, size_t per_chunk, size_t align);
/* Return an object (contents other than the header are undefined). Grows when empty. */
void *pool_alloc(pool *p);
/* Return obj to the pool; aborts on double free or a non-live object. */
void pool_free(pool *p, void *obj);
/* Free all chunks (objects still live are released too). */
void pool_destroy(pool *p);
/* True if obj is a live object (magic check only). */
static inline int pool_is_live(const void *obj) { return ((const pool_hdr *)obj)->magic == POOL_LIVE; }

#endif
