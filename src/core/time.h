/*
 * time.h — simulated time and integer line-rate arithmetic.
 *
 * Simulated time is uint64 picoseconds (2^64 ps ≈ 213 days). Rates are integer bits per
 * second. Serialization time is computed once per packet per hop with 128-bit integer math and
 * rounded *up* to the next picosecond, so a frame never leaves earlier than the wire allows and
 * results do not depend on floating point (DESIGN.md "hot path").
 */
#ifndef WR_CORE_TIME_H
#define WR_CORE_TIME_H

#include <stdint.h>

typedef uint64_t sim_time;

#define SIM_PS ((sim_time)1)
#define SIM_NS ((sim_time)1000)
#define SIM_US ((sim_time)1000000)
#define SIM_MS ((sim_time)1000000000)
#define SIM_S  ((sim_time)1000000000000ULL)
#define SIM_TIME_MAX UINT64_MAX
/*
 * The largest time a scenario may give (any time key, and any sum of them such as a fault's
 * at + detect + converge): 2^62 ps, about 53.4 days. Internal schedules add durations to `now`
 * (now + RTO, pause start + watchdog detect ...); with every input and every input sum at most
 * 2^62, such a sum stays below 2^64 for runs shorter than 2^63 ps, so time never wraps. The
 * loader refuses larger values (exit 3 at the key) instead of letting them overflow mid-run.
 */
#define SIM_TIME_INPUT_MAX ((sim_time)1 << 62)

/* Time to put `bytes` on a wire of `rate_bps` bits/s, in ps, rounded up. rate_bps > 0. */
static inline sim_time sim_ser_time(uint64_t bytes, uint64_t rate_bps)
{
    /* below 2 MiB at under 2^50 bit/s the numerator fits 64 bits: a 64-bit division, not the
     * 128-bit library call (every flow-level NVLink message, every path latency) — the same
     * value */
    if (bytes < (1u << 21) && rate_bps < (1ull << 50))
        return (bytes * 8000000000000ULL + rate_bps - 1) / rate_bps;
    unsigned __int128 num = (unsigned __int128)bytes * 8u * 1000000000000ULL;
    return (sim_time)((num + rate_bps - 1) / rate_bps);
}

/* Bytes a wire of `rate_bps` carries in `t` ps, rounded down. */
static inline uint64_t sim_bytes_in(sim_time t, uint64_t rate_bps)
{
    unsigned __int128 num = (unsigned __int128)t * rate_bps;
    return (uint64_t)(num / (8u * 1000000000000ULL));
}

#endif
