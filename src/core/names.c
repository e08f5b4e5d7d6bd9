/*
 * names.c — string → index map (names.h).
 */
#include "names.h"

#include <string.h>

#include "alloc.h"

static uint32_t hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a, 32 bits */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

void names_init(name_map *m, uint32_t n)
{
    uint32_t cap = 16;
    while (cap < 2ull * n)
        cap *= 2;
    m->mask = cap - 1;
    m->n = 0;
    m->key = xcalloc(cap, sizeof(const char *), "name map");
    m->val = xmalloc(sizeof(uint32_t) * cap, "name map");
}

void names_free(name_map *m)
{
    xfree(m->key);
    xfree(m->val);
    m->key = NULL;
    m->val = NULL;
}

/* The slot of key: where it is, or the empty slot where it would go. */
static uint32_t find(const name_map *m, const char *key)
{
    uint32_t i = hash(key) & m->mask;
    while (m->key[i] && strcmp(m->key[i], key) != 0)
        i = (i + 1) & m->mask;
    return i;
}

uint32_t names_put(name_map *m, const char *key, uint32_t val)
{
    uint32_t i = find(m, key);
    if (m->key[i])
        return m->val[i];
    if (2ull * (m->n + 1) > (uint64_t)m->mask + 1) { /* keep the load at most 1/2 */
        name_map old = *m;
        names_init(m, 2 * (old.mask + 1));
        for (uint32_t k = 0; k <= old.mask; k++)
            if (old.key[k])
                names_put(m, old.key[k], old.val[k]);
        names_free(&old);
        i = find(m, key);
    }
    m->key[i] = key;
    m->val[i] = val;
    m->n++;
    return NAMES_NONE;
}

uint32_t names_get(const name_map *m, const char *key)
{
    uint32_t i = find(m, key);
    return m->key[i] ? m->val[i] : NAMES_NONE;
}
