/*
 * test_err.c — error values (first error wins, formatting, truncation) and SIM_ASSERT's
 * message and abort (checked in a forked child).
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "testlib.h"

static void test_err_set(void)
{
    err e;
    err_clear(&e);
    CHECK_EQ_U64(e.code, ERR_OK);
    CHECK_STR(e.msg, "");
    int rc = err_set(&e, ERR_INVALID, "s.yaml", 12, 5, "fabric.host_link: expected a rate like "
                     "\"400Gbps\", got \"%s\"", "400");
    CHECK_EQ_U64(rc, ERR_INVALID);
    CHECK_EQ_U64(e.code, ERR_INVALID);
    CHECK_STR(e.file, "s.yaml");
    CHECK_EQ_U64(e.line, 12);
    CHECK_EQ_U64(e.col, 5);
    CHECK_STR(e.msg, "fabric.host_link: expected a rate like \"400Gbps\", got \"400\"");
    /* First error wins. */
    rc = err_set(&e, ERR_IO, "other", 1, 1, "later");
    CHECK_EQ_U64(rc, ERR_IO);
    CHECK_EQ_U64(e.code, ERR_INVALID);
    CHECK_STR(e.file, "s.yaml");
    CHECK(strstr(e.msg, "host_link") != NULL);
    /* Long messages and file names are truncated, NUL-terminated. */
    err_clear(&e);
    char long_s[2000];
    memset(long_s, 'x', sizeof long_s - 1);
    long_s[sizeof long_s - 1] = '\0';
    err_set(&e, ERR_RUN, long_s, 0, 0, "%s", long_s);
    CHECK_EQ_U64(strlen(e.msg), ERR_MSG_MAX - 1);
    CHECK_EQ_U64(strlen(e.file), ERR_FILE_MAX - 1);
    err_clear(&e);
    err_set(&e, ERR_USAGE, NULL, 0, 0, "no file");
    CHECK_STR(e.file, "");
    CHECK_EQ_U64(err_set(NULL, ERR_RUN, NULL, 0, 0, "ignored"), ERR_RUN);
}

static void test_assert_aborts(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        int queued = 3;
        SIM_ASSERT(queued == 4, "queue depth %d", queued);
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
    CHECK(strstr(buf, "test_err.c:") != NULL);
    CHECK(strstr(buf, ": assertion failed: queued == 4: queue depth 3\n") != NULL);
}

int main(void)
{
    TEST_RUN(test_err_set);
    TEST_RUN(test_assert_aborts);
    return tl_finish();
}
