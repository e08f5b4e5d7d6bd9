/*
 * test_pool.c — object pools: reuse, live/high-water accounting, zero heap allocations in a
 * steady alloc/free cycle, poisoning of freed objects (WR_POOL_DEBUG; ASan poisoning under
 * ASan), and abort on double free / foreign pointer (checked in a forked child).
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/pool.h"
#include "core/rng.h"
#include "testlib.h"

#if POOL_ASAN
#include <sanitizer/asan_interface.h>
#endif

typedef struct obj {
    pool_hdr hdr;
    uint64_t a, b;
    char payload[40];
} obj;

static void test_sizes(void)
{
    pool p;
    pool_init(&p, "tiny", 1, 0);
    CHECK(p.obj_size >= sizeof(pool_hdr) && p.obj_size % 16 == 0);
    CHECK(p.per_chunk > 0);
    void *x = pool_alloc(&p);
    CHECK(((uintptr_t)x & 15) == 0);
    CHECK(pool_is_live(x));
    pool_free(&p, x);
#ifndef WR_POOL_PASSTHROUGH /* there the object is gone: reading it is a use-after-free */
    CHECK(!pool_is_live(x));
#endif
    pool_destroy(&p);

    pool_init(&p, "obj", sizeof(obj), 3);
    CHECK_EQ_U64(p.obj_size, 80);
    obj *o[10];
    for (int i = 0; i < 10; i++) {
        o[i] = pool_alloc(&p);
        CHECK(((uintptr_t)o[i] & 15) == 0);
        o[i]->a = (uint64_t)i; /* the whole body is writable */
        o[i]->payload[39] = 'x';
    }
    for (int i = 0; i < 10; i++)
        for (int j = i + 1; j < 10; j++)
            CHECK(o[i] != o[j]);
    for (int i = 0; i < 10; i++)
        CHECK_EQ_U64(o[i]->a, i);
    pool_destroy(&p); /* releases live objects too */
}

static void test_reuse_and_counts(void)
{
    pool p;
    pool_init(&p, "obj", sizeof(obj), 4);
    obj *a = pool_alloc(&p), *b = pool_alloc(&p), *c = pool_alloc(&p);
    CHECK_EQ_U64(p.live, 3);
    CHECK_EQ_U64(p.high_water, 3);
    pool_free(&p, b);
    CHECK_EQ_U64(p.live, 2);
    obj *d = pool_alloc(&p);
#ifndef WR_POOL_PASSTHROUGH
    CHECK(d == b); /* LIFO: the freed object comes straight back */
#endif
    pool_free(&p, a);
    pool_free(&p, c);
    pool_free(&p, d);
    CHECK_EQ_U64(p.live, 0);
    CHECK_EQ_U64(p.high_water, 3);
    pool_destroy(&p);
}

static void test_steady_state_no_alloc(void)
{
#ifdef WR_POOL_PASSTHROUGH
    fprintf(stderr, "  (skipped: pass-through pool)\n");
#else
    pool p;
    pool_init(&p, "packets", sizeof(obj), 64);
    rng r;
    rng_init(&r, 5, RNG_ID(RNG_KIND_TEST, 9));
    enum { MAXLIVE = 1000 };
    static obj *held[MAXLIVE];
    int n = 0;
    /* Warm-up: reach the high-water mark once. */
    while (n < MAXLIVE)
        held[n++] = pool_alloc(&p);
    uint64_t hw = p.high_water, before = alloc_count();
    for (int i = 0; i < 200000; i++) {
        if (n == MAXLIVE || (n > 0 && rng_below(&r, 2))) {
            int k = (int)rng_below(&r, (uint64_t)n);
            pool_free(&p, held[k]);
            held[k] = held[--n];
        } else {
            held[n++] = pool_alloc(&p);
        }
    }
    CHECK_EQ_U64(alloc_count(), before);
    CHECK_EQ_U64(p.high_water, hw);
    CHECK_EQ_U64(p.live, n);
    pool_destroy(&p);
#endif
}

static void test_poison(void)
{
    pool p;
    pool_init(&p, "obj", sizeof(obj), 8);
    obj *o = pool_alloc(&p);
    memset(o->payload, 'A', sizeof o->payload);
    pool_free(&p, o);
#if defined(WR_POOL_PASSTHROUGH)
    fprintf(stderr, "  (pass-through: freed objects go back to malloc, ASan watches them)\n");
#elif POOL_ASAN
    CHECK_EQ_U64(o->hdr.magic, POOL_FREE);
    CHECK(__asan_address_is_poisoned(&o->a));
    CHECK(__asan_address_is_poisoned(&o->payload[39]));
    CHECK(!__asan_address_is_poisoned(&o->hdr));
    o = pool_alloc(&p);
    CHECK(!__asan_address_is_poisoned(&o->payload[39]));
    pool_free(&p, o);
#elif defined(WR_POOL_DEBUG)
    CHECK_EQ_U64(o->hdr.magic, POOL_FREE);
    const unsigned char *bytes = (const unsigned char *)o;
    int poisoned = 1;
    for (size_t i = sizeof(pool_hdr); i < p.obj_size; i++)
        poisoned &= bytes[i] == 0xDB;
    CHECK(poisoned);
#else
    fprintf(stderr, "  (no poisoning in this build)\n");
#endif
    pool_destroy(&p);
}

/* Run fn in a child with stderr silenced; true if it died of SIGABRT. */
static int aborts(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        fn();
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 0;
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

#if !defined(WR_POOL_PASSTHROUGH)
/* (In a pass-through build the second free reads freed memory: ASan reports it, not us.) */
static void double_free(void)
{
    pool p;
    pool_init(&p, "obj", sizeof(obj), 8);
    obj *o = pool_alloc(&p);
    pool_free(&p, o);
    pool_free(&p, o);
}
#endif

static void foreign_free(void)
{
    pool p;
    pool_init(&p, "obj", sizeof(obj), 8);
    static obj stranger; /* magic 0: never came from a pool */
    pool_free(&p, &stranger);
}

static void test_misuse_aborts(void)
{
#if !defined(WR_POOL_PASSTHROUGH)
    CHECK(aborts(double_free));
#endif
    CHECK(aborts(foreign_free));
}

#ifndef WR_POOL_PASSTHROUGH
static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(unsigned char *const *)a, y = (uintptr_t)*(unsigned char *const *)b;
    return (x > y) - (x < y);
}
#endif

/* Chunks double up to what fills a 2 MiB huge page: 64-byte objects from 4,096 a chunk go
 * 4,096, 8,192, 16,384, then 32,767 (2 MiB less the chunk header and alignment slack); every
 * object distinct, line-aligned and handed out once. */
static void test_chunk_growth(void)
{
#ifdef WR_POOL_PASSTHROUGH
    fprintf(stderr, "  (skipped: pass-through pool)\n");
#else
    pool p;
    pool_init_aligned(&p, "packets", 64, 4096, 64);
    enum { N = 120000 };
    static unsigned char *o[N];
    uint64_t before = alloc_count();
    for (int i = 0; i < N; i++) {
        o[i] = pool_alloc(&p);
        CHECK(((uintptr_t)o[i] & 63) == 0);
        o[i][20] = 1; /* the body is writable */
    }
    /* 4096 + 8192 + 16384 + 3 x 32767 = 126,973 >= N: six chunks */
    CHECK_EQ_U64(alloc_count() - before, 6);
    CHECK_EQ_U64(p.per_chunk, (XALLOC_HUGE_PAGE - 64) / 64);
    int ascending = 1; /* within a chunk the free list hands objects out in address order */
    for (int i = 1; i < 4096; i++)
        ascending &= o[i] == o[i - 1] + 64;
    CHECK(ascending);
    static unsigned char *sorted[N];
    memcpy(sorted, o, sizeof o);
    qsort(sorted, N, sizeof *sorted, by_address);
    int distinct = 1;
    for (int i = 1; i < N; i++)
        distinct &= sorted[i] != sorted[i - 1];
    CHECK(distinct);
    CHECK_EQ_U64(p.live, N);
    for (int i = 0; i < N; i++)
        pool_free(&p, o[i]);
    pool_destroy(&p);
#endif
}

int main(void)
{
    TEST_RUN(test_chunk_growth);
    TEST_RUN(test_sizes);
    TEST_RUN(test_reuse_and_counts);
    TEST_RUN(test_steady_state_no_alloc);
    TEST_RUN(test_poison);
    TEST_RUN(test_misuse_aborts);
    return tl_finish();
}
