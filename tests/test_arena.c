/*
 * test_arena.c — bump arena: 16-byte alignment, zeroed memory, large requests in their own
 * chunk without abandoning the current one, geometric growth, reuse after arena_free.
 */
#include <stdint.h>

#include "core/alloc.h"
#include "core/arena.h"
#include "testlib.h"

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static void test_align_and_zero(void)
{
    arena a;
    arena_init(&a, "test arena");
    int aligned = 1, zero = 1;
    for (size_t n = 0; n < 200; n++) {
        unsigned char *p = arena_alloc(&a, n);
        aligned &= ((uintptr_t)p & 15) == 0;
        zero &= all_zero(p, n);
        memset(p, 0xFF, n); /* dirty it: the next allocation must still come zeroed */
    }
    CHECK(aligned);
    CHECK(zero);
    size_t sum = 0;
    for (size_t n = 0; n < 200; n++)
        sum += n;
    CHECK_EQ_U64(a.used_bytes, sum);
    char *s = arena_strdup(&a, "leaf-1.rail-3");
    CHECK_STR(s, "leaf-1.rail-3");
    double *d = ARENA_NEW_ARRAY(&a, double, 7);
    CHECK(((uintptr_t)d & 15) == 0 && d[6] == 0.0);
    arena_free(&a);
    CHECK(a.chunks == NULL);
}

static void test_big_own_chunk(void)
{
    arena a;
    arena_init(&a, "test arena");
    uint64_t c0 = alloc_count();
    char *first = arena_alloc(&a, 100);
    CHECK_EQ_U64(alloc_count() - c0, 1); /* first chunk */
    size_t big = (size_t)8 << 20;
    unsigned char *b = arena_alloc(&a, big);
    CHECK(((uintptr_t)b & 15) == 0);
    CHECK(all_zero(b, big));
    memset(b, 1, big);
    CHECK_EQ_U64(alloc_count() - c0, 2); /* its own chunk */
    /* Small requests keep filling the first chunk: no new chunk for them. */
    char *next = arena_alloc(&a, 100);
    CHECK_EQ_U64(alloc_count() - c0, 2);
    CHECK(next == first + 112);
    for (int i = 0; i < 100; i++)
        arena_alloc(&a, 64);
    CHECK_EQ_U64(alloc_count() - c0, 2);
    arena_free(&a);

    /* A big request as the very first allocation works too. */
    arena_init(&a, "test arena");
    b = arena_alloc(&a, (size_t)1 << 20);
    CHECK(all_zero(b, (size_t)1 << 20));
    CHECK(all_zero(arena_alloc(&a, 64), 64));
    arena_free(&a);
}

static void test_geometric(void)
{
    arena a;
    arena_init(&a, "test arena");
    uint64_t c0 = alloc_count();
    /* 32 MiB in 1 KiB pieces: 64K+128K+...+16M covers ~32M in 9 chunks, then 16 MiB chunks. */
    for (int i = 0; i < 32 * 1024; i++)
        arena_alloc(&a, 1024);
    uint64_t chunks = alloc_count() - c0;
    CHECK(chunks >= 9 && chunks <= 11);
    arena_free(&a);
    arena_init(&a, "again");
    CHECK(all_zero(arena_alloc(&a, 32), 32));
    arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_align_and_zero);
    TEST_RUN(test_big_own_chunk);
    TEST_RUN(test_geometric);
    return tl_finish();
}
