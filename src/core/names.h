/*
 * names.h — a string → index map for names given in a scenario (custom fabric nodes): FNV-1a
 * hashed, open addressing at load ≤ 1/2, so looking up every link's two ends is linear in the
 * links instead of a scan of every node per end. Keys are borrowed (they must outlive the map).
 */
#ifndef WR_CORE_NAMES_H
#define WR_CORE_NAMES_H

#include <stdint.h>

#define NAMES_NONE UINT32_MAX

typedef struct name_map {
    const char **key; /* [mask + 1], NULL = empty */
    uint32_t *val;
    uint32_t mask;
    uint32_t n; /* names in it */
} name_map;

/* A map sized for `n` names (it grows past them). */
void names_init(name_map *m, uint32_t n);
void names_free(name_map *m);
/* Add key -> val; returns the value already under key (and changes nothing), else NAMES_NONE. */
uint32_t names_put(name_map *m, const char *key, uint32_t val);
/* The value under key, NAMES_NONE if none. */
uint32_t names_get(const name_map *m, const char *key);

#endif
