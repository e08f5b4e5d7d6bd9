/*
 * test_names.c — the name map used for custom fabrics: every name added is found with its
 * value, through the map's growth past its initial size; a second put of a name keeps and
 * returns the first value; names never added are not found (including prefixes and the empty
 * string).
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/names.h"
#include "testlib.h"

static void test_put_get_grow(void)
{
    enum { N = 20000 };
    char(*key)[16] = xmalloc(sizeof(*key) * N, "keys");
    name_map m;
    names_init(&m, 1); /* grows many times */
    uint32_t fresh = 0, found = 0;
    for (uint32_t i = 0; i < N; i++) {
        snprintf(key[i], sizeof key[i], "sw%u", i);
        fresh += names_put(&m, key[i], i) == NAMES_NONE;
    }
    CHECK_EQ_U64(fresh, N);
    CHECK_EQ_U64(m.n, N);
    CHECK(2ull * m.n <= (uint64_t)m.mask + 1); /* load at most 1/2 */
    for (uint32_t i = 0; i < N; i++)
        found += names_get(&m, key[i]) == i;
    CHECK_EQ_U64(found, N);
    /* duplicates: the first value stays */
    CHECK_EQ_U64(names_put(&m, "sw7", 12345), 7);
    CHECK_EQ_U64(names_get(&m, "sw7"), 7);
    CHECK_EQ_U64(m.n, N);
    /* absent names */
    CHECK_EQ_U64(names_get(&m, "sw"), NAMES_NONE);
    CHECK_EQ_U64(names_get(&m, ""), NAMES_NONE);
    CHECK_EQ_U64(names_get(&m, "sw20000"), NAMES_NONE);
    CHECK_EQ_U64(names_get(&m, "sw00"), NAMES_NONE);
    names_free(&m);
    xfree(key);
}

int main(void)
{
    TEST_RUN(test_put_get_grow);
    return tl_finish();
}
