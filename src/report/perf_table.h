/*
 * perf_table.h — the result table of `wirerate perf`, byte for byte in nccl-tests' layout
 * (NVIDIA/nccl-tests src/common.cu, the PRINT-based versions 2.x up to 2.16, whose output is
 * what most published runs show):
 *
 *   #
 *   #                                                              out-of-place                       in-place
 *   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
 *   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
 *      1048576        262144     float     sum      -1    105.9    9.90   17.33      0    105.7    9.92   17.37      0
 *   # Out of bounds values : 0 OK
 *   # Avg bus bandwidth    : 17.35
 *   #
 *
 * (the header and footer lines keep nccl-tests' trailing spaces). Formats: the row prefix
 * "%12li  %12li  %8s  %6s  %6i"; each half "  %7s  %6.2f  %6.2f  %5g" with the wrong-element
 * count, or "%5s" with "N/A" when data is not checked; the time string is "%7.0f" from 10000 us,
 * "%7.1f" from 100 us, else "%7.2f"; the average bus bandwidth is "%g" of the mean of every busbw
 * printed (out-of-place and in-place alike, as nccl-tests sums args->bw over both). Newer
 * nccl-tests (2.17+) widened "#wrong" and adapted the float precision; not reproduced.
 *
 * Library code: writes only to the FILE it is given.
 */
#ifndef WR_REPORT_PERF_TABLE_H
#define WR_REPORT_PERF_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "../config/config.h"

/* Print the three header lines (preceded by nccl-tests' "#" line). */
void perf_table_begin(FILE *out);

/*
 * One row. size: the "size" column (bytes; nccl-tests prints max(send, recv) bytes); count: the
 * element count nccl-tests passes to NCCL (see perf_table_count); type e.g. "float"; redop "sum"
 * or "none"; root −1 when the op has none. Times in microseconds, bandwidths in GB/s. `wrong`:
 * the wrong-element count printed in both halves, or < 0 to print "N/A".
 */
void perf_table_row(FILE *out, uint64_t size_bytes, uint64_t count, const char *type,
                    const char *redop, int root, double oop_time_us, double oop_algbw,
                    double oop_busbw, double ip_time_us, double ip_algbw, double ip_busbw,
                    long wrong);

/* Footer: out-of-bounds count, "# Avg bus bandwidth    : %g " and the closing "#". */
void perf_table_end(FILE *out, double avg_busbw, int out_of_bounds);

/* nccl-tests' time string for a time in microseconds (buf ≥ 32 bytes). */
void perf_table_time_str(char *buf, size_t len, double time_us);

/* What nccl-tests prints for op: redop "sum" for reductions, else "none"; root 0 for broadcast
 * and reduce (its default -r 0), else −1. */
const char *perf_table_redop(enum coll_op op);
int perf_table_root(enum coll_op op);

/*
 * nccl-tests' size and count columns for a requested size (-b/-e) of `bytes`, n ranks and
 * `type_bytes`-byte elements: count = bytes / type_bytes; all_gather, reduce_scatter and
 * all_to_all pass count/n elements per rank and print size (count/n)·n·type_bytes.
 */
void perf_table_size_count(enum coll_op op, uint64_t bytes, uint32_t n, uint32_t type_bytes,
                           uint64_t *size_col, uint64_t *count_col);

#endif
