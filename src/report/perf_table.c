/*
 * perf_table.c — nccl-tests' result table (formats copied from NVIDIA/nccl-tests src/common.cu;
 * see perf_table.h for the version reproduced and the layout).
 */
#include "perf_table.h"

void perf_table_begin(FILE *out)
{
    fprintf(out, "#\n");
    fprintf(out,
            "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place"
            "          \n",
            "", "", "", "", "");
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size",
            "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
            "busbw", "#wrong");
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)",
            "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
            "");
}

void perf_table_time_str(char *buf, size_t len, double time_us)
{
    if (time_us >= 10000.0)
        snprintf(buf, len, "%7.0f", time_us);
    else if (time_us >= 100.0)
        snprintf(buf, len, "%7.1f", time_us);
    else
        snprintf(buf, len, "%7.2f", time_us);
}

static void half(FILE *out, double time_us, double algbw, double busbw, long wrong)
{
    char ts[64];
    perf_table_time_str(ts, sizeof ts, time_us);
    if (wrong >= 0)
        fprintf(out, "  %7s  %6.2f  %6.2f  %5g", ts, algbw, busbw, (double)wrong);
    else
        fprintf(out, "  %7s  %6.2f  %6.2f  %5s", ts, algbw, busbw, "N/A");
}

void perf_table_row(FILE *out, uint64_t size_bytes, uint64_t count, const char *type,
                    const char *redop, int root, double oop_time_us, double oop_algbw,
                    double oop_busbw, double ip_time_us, double ip_algbw, double ip_busbw,
                    long wrong)
{
    fprintf(out, "%12li  %12li  %8s  %6s  %6i", (long)size_bytes, (long)count, type, redop,
            root);
    half(out, oop_time_us, oop_algbw, oop_busbw, wrong);
    half(out, ip_time_us, ip_algbw, ip_busbw, wrong);
    fprintf(out, "\n");
}

void perf_table_end(FILE *out, double avg_busbw, int out_of_bounds)
{
    fprintf(out, "# Out of bounds values : %d %s\n", out_of_bounds,
            out_of_bounds ? "FAILED" : "OK");
    fprintf(out, "# Avg bus bandwidth    : %g %s\n", avg_busbw, "");
    fprintf(out, "#\n");
}

const char *perf_table_redop(enum coll_op op)
{
    switch (op) {
    case OP_ALL_REDUCE:
    case OP_REDUCE_SCATTER:
    case OP_REDUCE: return "sum";
    case OP_ALL_GATHER:
    case OP_ALL_TO_ALL:
    case OP_BROADCAST: return "none";
    }
    return "none";
}

int perf_table_root(enum coll_op op)
{
    return op == OP_BROADCAST || op == OP_REDUCE ? 0 : -1;
}

void perf_table_size_count(enum coll_op op, uint64_t bytes, uint32_t n, uint32_t type_bytes,
                           uint64_t *size_col, uint64_t *count_col)
{
    uint64_t count = bytes / type_bytes;
    if (op == OP_ALL_GATHER || op == OP_REDUCE_SCATTER || op == OP_ALL_TO_ALL) {
        *count_col = count / n;
        *size_col = (count / n) * n * type_bytes;
    } else {
        *count_col = count;
        *size_col = count * type_bytes;
    }
}
