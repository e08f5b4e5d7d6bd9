/*
 * fluid.h — the flow-level network's rate engine: max-min fair rates for fluid flows on links.
 *
 * A flow crosses a fixed list of links and has bytes left; every link has a capacity in bits/s.
 * Rates are max-min fair (Bertsekas & Gallager, "Data Networks", 2nd ed., §6.5.2: progressive
 * filling — raise every unfrozen flow's rate equally until a link saturates, freeze the flows
 * crossing it, repeat). They are recomputed only for the flows whose rates can change: when a
 * flow starts or ends, the connected component of the flow–link graph it belongs to (flows
 * that share no link, directly or through other flows, keep their rates — max-min allocations
 * of disjoint components are independent).
 *
 * Time is integer picoseconds; the bits a flow has left are tracked as they
 * advance: at each recomputation every touched flow's remaining bits drop by rate x elapsed
 * time (doubles); a flow completes at the picosecond its last bit leaves at its current rate,
 * bits / rate rounded up. This module knows nothing of events:
 * the flow-level network (issue #13) schedules each flow's completion at fluid_finish_ps and
 * calls fluid_remove when it fires.
 *
 * Batching: with fluid_defer(f, true), fluid_add / fluid_remove / fluid_set_cap only record the
 * links they touch; fluid_commit solves the union of their components once (all the changes of
 * one instant: a collective step starts hundreds of flows at the same picosecond). The
 * flow-level network (transport/flownet.h) drives it this way.
 */
#ifndef WR_NET_FLUID_H
#define WR_NET_FLUID_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/time.h"

typedef struct fluid fluid;

#define FLUID_NONE UINT32_MAX

/* Returns a new engine over `n_links` links of the given capacities (bits/s, > 0; copied). */
fluid *fluid_new(uint32_t n_links, const double *cap_bps);
void fluid_free(fluid *f);

/* Starts a flow of `bytes` (> 0) over `links` (borrowed, copied; may repeat no link) at `now_ps`
 * and recomputes the rates of its component. Returns the flow's id (ids are reused after
 * fluid_remove). */
uint32_t fluid_add(fluid *f, const uint32_t *links, uint32_t n_links, uint64_t bytes,
                   sim_time now_ps);
/* The same with the size in bits (a flow re-added with what it had left). */
uint32_t fluid_add_bits(fluid *f, const uint32_t *links, uint32_t n_links, double bits,
                        sim_time now_ps);
/* Ends flow `id` at `now_ps` (complete or aborted) and recomputes the rates of the flows it
 * shared links with. */
void fluid_remove(fluid *f, uint32_t id, sim_time now_ps);
/* Flow `id` has finished what it had (a residue of rounding is dropped, as fluid_remove would)
 * and gets `bits` to send from now_ps on the same links: what fluid_remove + fluid_add of the
 * same path would give, but the set of flows on every link is unchanged, so no rate changes and
 * nothing is recomputed (read fluid_finish_ps again). A QP's next message behind the one just
 * sent continues its flow this way. */
void fluid_refill(fluid *f, uint32_t id, double bits, sim_time now_ps);

/* Link `l`'s capacity becomes cap_bps (> 0) at now_ps; its component is solved again. */
void fluid_set_cap(fluid *f, uint32_t l, double cap_bps, sim_time now_ps);
double fluid_cap_bps(const fluid *f, uint32_t l);
/* Deferred solving (see the top): on = record changes, fluid_commit solves them (all changes
 * since the last commit must be at its now_ps). fluid_commit returns false when nothing was
 * pending (fluid_changed is then not updated). */
void fluid_defer(fluid *f, bool on);
/* Deferred mode's fast paths (on by default; fluid.c): a flow added on links with room gets its
 * rate at once, without waiting for the commit. Off where a caller reads link loads between the
 * adds of one instant and expects flows of that instant not to show yet (adaptive path choice
 * in the flow-level network: its choices were made against the committed loads). */
void fluid_fast_paths(fluid *f, bool on);
bool fluid_commit(fluid *f, sim_time now_ps);
bool fluid_pending(const fluid *f);

/*
 * Lazy flows (one event per message in the flow-level network). A flow alone on every one of
 * its links, running at a rate nothing can change while it stays alone, ends at
 * fluid_finish_ps exactly as it would if removed then: its removal frees nobody (fluid_remove's
 * fast path) and no rate depends on it. fluid_lazy marks it so (true) when that holds now; its
 * owner need not remove it at its finish but may do it any time later (fluid_remove at a later
 * now_ps leaves the engine as a removal at the finish would: the links it was alone on become
 * empty). Before any change reaches one of its links — a flow added over it, a capacity change
 * — the engine calls the hook with its id, and the hook must settle it: fluid_remove when its
 * finish has passed, or fluid_unlazy (an ordinary flow again: its owner schedules its finish).
 * A solve never reaches a lazy flow (asserted): every change to its links settles it first.
 */
typedef void fluid_lazy_fn(void *ctx, uint32_t id);
void fluid_lazy_hook(fluid *f, fluid_lazy_fn *fn, void *ctx);
/* Marks flow `id` lazy when it is alone on each of its links at a rate > 0 (deferred mode with
 * fast paths on, a hook set); returns whether it did. */
bool fluid_lazy(fluid *f, uint32_t id);
void fluid_unlazy(fluid *f, uint32_t id);
bool fluid_is_lazy(const fluid *f, uint32_t id);

/* The flow's current rate (bits/s) and the bits it had left at its last update. */
double fluid_rate_bps(const fluid *f, uint32_t id);
double fluid_left_bits(const fluid *f, uint32_t id, sim_time now_ps);
/* The picosecond at which the flow completes at its current rate (SIM_TIME_MAX at rate 0). */
sim_time fluid_finish_ps(const fluid *f, uint32_t id);
/* The same for `bits` left at t_ps at rate_bps (what fluid_finish_ps computes): the picosecond
 * the last bit leaves, bits / rate rounded up, with a thousandth of a picosecond of slack so
 * that an exact quotient (8e6 bits at 100 Gbps = 80 us) is not pushed one picosecond late by
 * the division's rounding. */
static inline double fluid_finish_dt(double bits, double rate_bps)
{
    return ceil(bits / rate_bps * 1e12 - 1e-3);
}
static inline sim_time fluid_finish_at(sim_time t_ps, double bits, double rate_bps)
{
    if (bits <= 1e-6)
        return t_ps;
    if (rate_bps <= 0)
        return SIM_TIME_MAX;
    double dt = fluid_finish_dt(bits, rate_bps);
    if (dt >= (double)(SIM_TIME_MAX - t_ps))
        return SIM_TIME_MAX;
    return t_ps + (sim_time)dt;
}

/* fluid_finish_at through a memo of its last quotients (zeroed: empty), for a caller that asks
 * for the same few (bits, rate) pairs over and over — a ring's messages on an empty path repeat
 * a few sizes at one rate. The quotient is a pure function of the pair, so the value is
 * fluid_finish_at's exactly (test_fluid compares them); what is saved is a division and a
 * rounding per message. Slot: the line bytes mod 4 (a ring's sizes differ by a byte). */
#define FLUID_MEMO 4
typedef struct fluid_finish_memo {
    double bits[FLUID_MEMO], rate[FLUID_MEMO], dt[FLUID_MEMO];
} fluid_finish_memo;
static inline sim_time fluid_finish_memo_at(fluid_finish_memo *m, sim_time t_ps, double bits,
                                            double rate_bps)
{
    if (bits <= 1e-6 || rate_bps <= 0 || bits >= 0x1p62)
        return fluid_finish_at(t_ps, bits, rate_bps);
    uint32_t i = (uint32_t)((uint64_t)bits >> 3) % FLUID_MEMO;
    if (m->bits[i] != bits || m->rate[i] != rate_bps) {
        m->bits[i] = bits;
        m->rate[i] = rate_bps;
        m->dt[i] = fluid_finish_dt(bits, rate_bps);
    }
    double dt = m->dt[i];
    if (dt >= (double)(SIM_TIME_MAX - t_ps))
        return SIM_TIME_MAX;
    return t_ps + (sim_time)dt;
}

/* Flows whose rates the last solve changed (new flows included), and their ids: the caller
 * reschedules their completions. A flow of the solved component whose rate came out the same
 * is not listed: its finish is unchanged. Valid until the next call. */
uint32_t fluid_changed(const fluid *f, const uint32_t **ids);

/* Statistics: rate recomputations (component solves) and flow-rate assignments in all. */
uint64_t fluid_solves(const fluid *f);
uint64_t fluid_assignments(const fluid *f);
/* Adds and removes whose rates were written down without a solve (fluid.c's fast paths). */
uint64_t fluid_fast(const fluid *f);
/* Sum of the rates on link `l` (bits/s). */
double fluid_link_load_bps(const fluid *f, uint32_t l);

#endif
