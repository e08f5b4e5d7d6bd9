/*
 * test_perf_table.c — nccl-tests bandwidth accounting (each test's GetBw) and the result table,
 * byte for byte against lines built from nccl-tests' printf formats (src/common.cu) and rows as
 * nccl-tests prints them.
 */
#include <stdlib.h>

#include "testlib.h"
#include "report/perf_table.h"
#include "workload/collective.h"

static void test_busbw_factors(void)
{
    static const uint32_t ns[] = {1, 2, 3, 8, 16, 1024};
    for (unsigned i = 0; i < 6; i++) {
        double n = ns[i];
        CHECK_NEAR(coll_busbw_factor(OP_ALL_REDUCE, ns[i]), 2.0 * (n - 1) / n, 1e-15);
        CHECK_NEAR(coll_busbw_factor(OP_REDUCE_SCATTER, ns[i]), (n - 1) / n, 1e-15);
        CHECK_NEAR(coll_busbw_factor(OP_ALL_GATHER, ns[i]), (n - 1) / n, 1e-15);
        CHECK_NEAR(coll_busbw_factor(OP_ALL_TO_ALL, ns[i]), (n - 1) / n, 1e-15);
        CHECK_NEAR(coll_busbw_factor(OP_BROADCAST, ns[i]), 1.0, 0);
        CHECK_NEAR(coll_busbw_factor(OP_REDUCE, ns[i]), 1.0, 0);
    }
    /* 1 GiB in 10 ms = 107.37 GB/s algbw; all_reduce on 8 ranks: × 1.75 */
    sim_time t = 10 * SIM_MS;
    CHECK_NEAR(coll_algbw_GBps(OP_ALL_REDUCE, 1ull << 30, 8, t), 107.3741824, 1e-9);
    CHECK_NEAR(coll_busbw_GBps(OP_ALL_REDUCE, 1ull << 30, 8, t), 107.3741824 * 1.75, 1e-9);
    CHECK_NEAR(coll_busbw_GBps(OP_ALL_GATHER, 1ull << 30, 8, t), 107.3741824 * 0.875, 1e-9);
    CHECK_NEAR(coll_busbw_GBps(OP_BROADCAST, 1ull << 30, 8, t), 107.3741824, 1e-9);
    CHECK_NEAR(coll_algbw_GBps(OP_ALL_REDUCE, 1, 8, 0), 0.0, 0);
}

static char *render(void (*fn)(FILE *, void *), void *ctx)
{
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    fn(f, ctx);
    fclose(f);
    return buf;
}

static void do_begin(FILE *f, void *ctx)
{
    (void)ctx;
    perf_table_begin(f);
}

static void test_header(void)
{
    /* nccl-tests output, copied (trailing spaces included) */
    const char *want =
        "#\n"
        "#                                                              out-of-place         "
        "              in-place          \n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)       "
        "     (us)  (GB/s)  (GB/s)       \n";
    CHECK_STR(render(do_begin, NULL), want);
}

typedef struct row_args {
    enum coll_op op;
    uint64_t bytes;
    uint32_t n;
    double t_oop, t_ip;
    long wrong;
} row_args;

static void do_row(FILE *f, void *ctx)
{
    row_args *a = ctx;
    uint64_t size, count;
    perf_table_size_count(a->op, a->bytes, a->n, 4, &size, &count);
    sim_time to = (sim_time)(a->t_oop * 1e6 + 0.5), ti = (sim_time)(a->t_ip * 1e6 + 0.5);
    perf_table_row(f, size, count, "float", perf_table_redop(a->op), perf_table_root(a->op),
                   a->t_oop, coll_algbw_GBps(a->op, size, a->n, to),
                   coll_busbw_GBps(a->op, size, a->n, to), a->t_ip,
                   coll_algbw_GBps(a->op, size, a->n, ti), coll_busbw_GBps(a->op, size, a->n, ti),
                   a->wrong);
}

typedef struct raw_row {
    uint64_t size, count;
    const char *redop;
    int root;
    double t0, a0, b0, t1, a1, b1;
    long wrong;
} raw_row;

static void do_raw(FILE *f, void *ctx)
{
    raw_row *r = ctx;
    perf_table_row(f, r->size, r->count, "float", r->redop, r->root, r->t0, r->a0, r->b0, r->t1,
                   r->a1, r->b1, r->wrong);
}

static void test_rows_real(void)
{
    /* rows copied from real all_reduce_perf output (NVIDIA/nccl-tests issues and docs) */
    struct {
        raw_row r;
        const char *want;
    } cases[] = {
        {{1048576, 262144, "sum", -1, 105.9, 9.90, 17.33, 105.7, 9.92, 17.37, 0},
         "     1048576        262144     float     sum      -1    105.9    9.90   17.33      0"
         "    105.7    9.92   17.37      0\n"},
        {{8, 2, "sum", -1, 5.63, 0.00, 0.00, 0.20, 0.04, 0.00, 0},
         "           8             2     float     sum      -1     5.63    0.00    0.00      0"
         "     0.20    0.04    0.00      0\n"},
        {{134217728, 33554432, "sum", -1, 857.6, 156.51, 156.51, 819.6, 163.76, 163.76, 0},
         "   134217728      33554432     float     sum      -1    857.6  156.51  156.51      0"
         "    819.6  163.76  163.76      0\n"},
        {{10737418240ull, 2684354560ull, "sum", -1, 90330, 118.87, 222.88, 91945, 116.78,
          218.96, 0},
         " 10737418240    2684354560     float     sum      -1    90330  118.87  222.88      0"
         "    91945  116.78  218.96      0\n"},
        /* -c 0 (no data check): nccl-tests prints N/A */
        {{8, 2, "sum", -1, 87.96, 0.00, 0.00, 78.05, 0.00, 0.00, -1},
         "           8             2     float     sum      -1    87.96    0.00    0.00    N/A"
         "    78.05    0.00    0.00    N/A\n"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_STR(render(do_raw, &cases[i].r), cases[i].want);
}

static void test_rows_per_op(void)
{
    /* one simulated row per op: size/count columns, redop, root, GetBw, formats */
    struct {
        row_args a;
        const char *want;
    } cases[] = {
        {{OP_ALL_REDUCE, 1048576, 8, 105.9, 105.7, 0},
         "     1048576        262144     float     sum      -1    105.9    9.90   17.33      0"
         "    105.7    9.92   17.36      0\n"},
        {{OP_ALL_GATHER, 1000000, 16, 20.0, 19.5, 0},
         "     1000000         15625     float    none      -1    20.00   50.00   46.88      0"
         "    19.50   51.28   48.08      0\n"},
        {{OP_ALL_GATHER, 1000060, 16, 20.0, 19.5, 0}, /* rounded down to n·4 bytes */
         "     1000000         15625     float    none      -1    20.00   50.00   46.88      0"
         "    19.50   51.28   48.08      0\n"},
        {{OP_REDUCE_SCATTER, 134217728, 8, 857.6, 819.6, 0},
         "   134217728       4194304     float     sum      -1    857.6  156.50  136.94      0"
         "    819.6  163.76  143.29      0\n"},
        {{OP_ALL_TO_ALL, 536870912, 16, 12345.6, 12000.4, 0},
         "   536870912       8388608     float    none      -1    12346   43.49   40.77      0"
         "    12000   44.74   41.94      0\n"},
        {{OP_BROADCAST, 33554432, 8, 631.1, 640.2, 0},
         "    33554432       8388608     float    none       0    631.1   53.17   53.17      0"
         "    640.2   52.41   52.41      0\n"},
        {{OP_REDUCE, 8, 8, 5.63, 0.2, -1},
         "           8             2     float     sum       0     5.63    0.00    0.00    N/A"
         "     0.20    0.04    0.04    N/A\n"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_STR(render(do_row, &cases[i].a), cases[i].want);
}

static void do_end(FILE *f, void *ctx)
{
    perf_table_end(f, *(double *)ctx, 0);
}

static void test_footer_and_helpers(void)
{
    double avg = 220.921;
    CHECK_STR(render(do_end, &avg),
              "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 220.921 \n#\n");
    char ts[32];
    perf_table_time_str(ts, sizeof ts, 99.994);
    CHECK_STR(ts, "  99.99");
    perf_table_time_str(ts, sizeof ts, 100.0);
    CHECK_STR(ts, "  100.0");
    perf_table_time_str(ts, sizeof ts, 10000.0);
    CHECK_STR(ts, "  10000");
    perf_table_time_str(ts, sizeof ts, 1234567.0);
    CHECK_STR(ts, "1234567");
    CHECK_STR(perf_table_redop(OP_ALL_REDUCE), "sum");
    CHECK_STR(perf_table_redop(OP_ALL_TO_ALL), "none");
    CHECK(perf_table_root(OP_BROADCAST) == 0 && perf_table_root(OP_ALL_GATHER) == -1);
}

int main(void)
{
    TEST_RUN(test_busbw_factors);
    TEST_RUN(test_header);
    TEST_RUN(test_rows_real);
    TEST_RUN(test_rows_per_op);
    TEST_RUN(test_footer_and_helpers);
    return tl_finish();
}
