/*
 * testlib.h — a minimal test harness. Each tests/test_<module>.c defines test functions and a
 * main() that runs them with TEST_RUN; every CHECK failure prints file:line and the values, and
 * the program exits non-zero if any check failed (CTest counts it as failed).
 */
#ifndef WR_TESTLIB_H
#define WR_TESTLIB_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int tl_failures;
extern int tl_checks;
extern const char *tl_current;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        tl_checks++;                                                                       \
        if (!(cond)) {                                                                     \
            tl_failures++;                                                                 \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__, tl_current,\
                    #cond);                                                                \
        }                                                                                  \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                                 \
    do {                                                                                   \
        uint64_t va_ = (uint64_t)(a), vb_ = (uint64_t)(b);                                 \
        tl_checks++;                                                                       \
        if (va_ != vb_) {                                                                  \
            tl_failures++;                                                                 \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s == %s (%" PRIu64 " vs %" PRIu64 ")\n", \
                    __FILE__, __LINE__, tl_current, #a, #b, va_, vb_);                     \
        }                                                                                  \
    } while (0)

#define CHECK_STR(a, b)                                                                    \
    do {                                                                                   \
        const char *sa_ = (a), *sb_ = (b);                                                 \
        tl_checks++;                                                                       \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                       \
            tl_failures++;                                                                 \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s == %s (\"%s\" vs \"%s\")\n",       \
                    __FILE__, __LINE__, tl_current, #a, #b, sa_ ? sa_ : "(null)",          \
                    sb_ ? sb_ : "(null)");                                                 \
        }                                                                                  \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                              \
    do {                                                                                   \
        double va_ = (double)(a), vb_ = (double)(b), t_ = (double)(tol);                   \
        tl_checks++;                                                                       \
        if (!(va_ - vb_ <= t_ && vb_ - va_ <= t_)) {                                       \
            tl_failures++;                                                                 \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s ~ %s (%g vs %g, tol %g)\n",       \
                    __FILE__, __LINE__, tl_current, #a, #b, va_, vb_, t_);                 \
        }                                                                                  \
    } while (0)

#define TEST_RUN(fn)                                                                       \
    do {                                                                                   \
        tl_current = #fn;                                                                  \
        int before_ = tl_failures;                                                         \
        fn();                                                                              \
        fprintf(stderr, "%s %s\n", tl_failures == before_ ? "ok  " : "FAIL", #fn);         \
    } while (0)

/* Print the totals and return the process exit code. */
int tl_finish(void);

/* Load `yaml` (named `name` in error messages) with `n_ov` overrides and build its run. On
 * failure print the error, count a failed check, leave *sc freed and return NULL. The caller
 * frees the run, then the scenario. */
struct scenario;
struct run;
struct cfg_override;
struct run *tl_start(struct scenario *sc, const char *name, const char *yaml,
                     const struct cfg_override *ov, int n_ov);

/* Source tree root (for tests that read examples/ or tests/ files). */
#ifndef WR_SOURCE_DIR
#define WR_SOURCE_DIR "."
#endif

#endif
