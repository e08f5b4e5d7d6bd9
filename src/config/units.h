/*
 * units.h — parsing of the quantities in spec/scenario.md "Units". Pure functions on strings.
 *
 *  rate:   400Gbps 800G 100Mbps 1.6Tbps 50GBps(bytes/s) 10Kbps 1bps   -> bits/s (uint64)
 *  time:   1ps 600ns 2us 2µs 1.5ms 2s                                 -> ps (uint64)
 *  size:   4096 4KB 4KiB 1MB 1MiB 1GiB 2GB 10B                        -> bytes (uint64)
 *  length: 30m 2km 50cm                                                 -> mm (uint64)
 *  ratio:  1:1 3:1 2.5                                                  -> (num, den) reduced
 * Decimal fractions are exact where the result is an integer in the base unit (1.5ms, 1.6Tbps);
 * a fraction that leaves a remainder below the base unit (0.5ps, 1.5B) is rejected. Values that
 * overflow uint64 are rejected. On failure each returns false and writes a message into why
 * (e.g. `expected a rate like "400Gbps", got "400"`) when why != NULL.
 */
#ifndef WR_CONFIG_UNITS_H
#define WR_CONFIG_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool units_rate(const char *s, uint64_t *bps, char *why, size_t why_len);
bool units_time(const char *s, uint64_t *ps, char *why, size_t why_len);
bool units_size(const char *s, uint64_t *bytes, char *why, size_t why_len);
bool units_length(const char *s, uint64_t *mm, char *why, size_t why_len);
bool units_ratio(const char *s, uint32_t *num, uint32_t *den, char *why, size_t why_len);

#endif
