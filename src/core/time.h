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

/* Time to put `bytes` on a wire of `rate_bps` bits/s, in ps, rounded up. rate_bps > 0. */
static inline sim_time sim_ser_time(uint64_t bytes, uint64_t rate_bps)
{
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
