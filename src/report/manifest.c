/*
 * manifest.c — the content hash of manifest.json (manifest.h). FNV-1a (Fowler–Noll–Vo, 64-bit
 * offset basis 14695981039346656037, prime 1099511628211) is not cryptographic: it tells files
 * of different runs apart, it does not defend against someone forging a folder on purpose.
 */
#include "manifest.h"

uint64_t manifest_fnv1a64(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
