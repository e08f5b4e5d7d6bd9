/*
 * test_alloc.c — checked allocation: never NULL (also for zero bytes), the counter counts
 * successful allocations, and out of memory aborts naming the size and purpose.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/env.h"
#include "core/pool.h" /* POOL_ASAN */
#include "testlib.h"

#if POOL_ASAN
/* Let malloc fail with NULL instead of ASan reporting the huge request itself. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

static void test_basic(void)
{
    uint64_t c0 = alloc_count();
    void *z = xmalloc(0, "zero");
    CHECK(z != NULL);
    void *c = xcalloc(0, 8, "zero calloc");
    CHECK(c != NULL);
    unsigned char *p = xcalloc(100, 3, "calloc");
    int zero = 1;
    for (int i = 0; i < 300; i++)
        zero &= p[i] == 0;
    CHECK(zero);
    p = xrealloc(p, 10000, "grow");
    CHECK(p[299] == 0);
    char *s = xstrdup("rail-7", "name");
    CHECK_STR(s, "rail-7");
    CHECK_EQ_U64(alloc_count() - c0, 5);
    xfree(z);
    xfree(c);
    xfree(p);
    xfree(s);
    xfree(NULL);
    CHECK_EQ_U64(alloc_count() - c0, 5); /* frees are not counted */
}

static void test_oom(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        xmalloc(SIZE_MAX / 2, "the flow table");
        _exit(0);
    }
    close(fds[1]);
    char buf[512] = {0};
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    char want[128];
    snprintf(want, sizeof want, "wirerate: out of memory allocating %zu bytes for the flow table\n",
             (size_t)(SIZE_MAX / 2));
    CHECK(strstr(buf, want) != NULL); /* ASan may print its own warning first */
}

/* WR_HUGEPAGES turns huge pages off with the spellings WR_PREFETCH takes (0, off, no, false).
 * The switch is read once per process, so each value is tried in a child forked before this
 * process has read it (main runs this test first). */
static void test_hugepages_env(void)
{
    static const char *off[] = {"0", "off", "no", "false"};
    for (unsigned k = 0; k < 4; k++)
        CHECK(env_value_off(off[k]));
    CHECK(!env_value_off(NULL) && !env_value_off("") && !env_value_off("1") &&
          !env_value_off("on") && !env_value_off("yes") && !env_value_off("offline"));
    for (unsigned k = 0; k < 4; k++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            setenv("WR_HUGEPAGES", off[k], 1);
            _exit(xalloc_huge_used(XALLOC_HUGE_MIN) ? 1 : 0);
        }
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
}

/* xcalloc_huge: zeroed, freeable, 2 MiB-aligned (and advised to huge pages, which only
 * /proc/self/smaps could show) when it maps; small blocks and sanitizer builds take calloc. */
static void test_huge(void)
{
    uint64_t c0 = alloc_count();
    size_t sizes[] = {1000, XALLOC_HUGE_MIN - 1, XALLOC_HUGE_MIN, 3 * XALLOC_HUGE_PAGE + 4096};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        unsigned char *p = xcalloc_huge(n, "huge");
        CHECK(p != NULL);
        int zero = 1;
        for (size_t i = 0; i < n; i += 4093)
            zero &= p[i] == 0;
        CHECK(zero && p[n - 1] == 0);
        if (xalloc_huge_used(n))
            CHECK_EQ_U64((uintptr_t)p % XALLOC_HUGE_PAGE, 0);
        CHECK(!xalloc_huge_used(n) || n >= XALLOC_HUGE_MIN);
        memset(p, 0xA5, n); /* all of it is writable */
        xfree_huge(p, n);
    }
    CHECK_EQ_U64(alloc_count() - c0, 4);
    void *mem = NULL;
    unsigned char *a = xcalloc_lines(40000, 96, &mem, "lines");
    CHECK_EQ_U64((uintptr_t)a % 64, 0);
    CHECK(a[40000 * 96 - 1] == 0);
    memset(a, 1, 40000 * 96);
    xfree_lines(mem, 40000, 96);
    xfree_huge(NULL, XALLOC_HUGE_MIN);
#if POOL_ASAN
    CHECK(!xalloc_huge_used(XALLOC_HUGE_MIN)); /* ASan checks every block's bounds */
#endif
}

int main(void)
{
    TEST_RUN(test_hugepages_env); /* first: before this process reads WR_HUGEPAGES */
    TEST_RUN(test_basic);
    TEST_RUN(test_huge);
    TEST_RUN(test_oom);
    return tl_finish();
}
