/*
 * arena.h — bump allocator with a named owner. Objects allocated from an arena live until the
 * arena is freed as a whole: the config arena (freed after the network is built) and the sim
 * arena (topology, FIBs; freed at the end of the run). Chunks grow geometrically; allocations are
 * 16-byte aligned and zeroed.
 */
#ifndef WR_CORE_ARENA_H
#define WR_CORE_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;
typedef struct arena {
    const char *name;     /* owner, for OOM messages */
    arena_chunk *chunks;  /* newest first */
    size_t used_bytes;    /* sum of requested sizes (statistics) */
} arena;

void arena_init(arena *a, const char *name);
/* Return zeroed memory of n bytes owned by the arena (abort on OOM). */
void *arena_alloc(arena *a, size_t n);
char *arena_strdup(arena *a, const char *s);
/* Free every chunk; the arena may be reused after arena_init. */
void arena_free(arena *a);

#define ARENA_NEW(a, type) ((type *)arena_alloc((a), sizeof(type)))
#define ARENA_NEW_ARRAY(a, type, n) ((type *)arena_alloc((a), sizeof(type) * (size_t)(n)))

#endif
