/*
 * fault.h — timed events that change the world (models.md "Faults"; docs/scenario.md "faults").
 *
 * Link faults (the link "A-B", both directions):
 * - `link-down` / `link-up` — at `at` the link stops or resumes: frames queued for it or on it
 *   are dropped (link_down) and the transport recovers by NAK/RTO. With `fast_reroute` (default)
 *   the two switches at its ends see their port go down at the PHY and withdraw it from their
 *   ECMP groups at once (local repair); every other switch keeps hashing onto paths through
 *   the dead link until `detect` + `converge` (BFD-like detection, then BGP/FIB update;
 *   defaults 1 ms and 4 ms), when routing is recomputed over the links that are up. A link
 *   coming up is used only after `detect` + `converge` (the BGP session must come back).
 * - `link-degraded` — from `at` (for `duration`, default to the end) the link runs at
 *   `fraction` of its speed (a lane down: 400G on 3 of 4 lanes = 0.75); routing is unchanged
 *   (ECMP does not weigh links), as in deployed fabrics.
 * - `link-ber` — from `at` (for `duration`) each frame crossing the link is lost at the
 *   receiver's FCS check with the probability its bits give at `ber` (post-FEC; or pre-FEC
 *   through the RS(544,514) decoder of IEEE 802.3 Clause 119), counted as bit_error.
 * - `link-flap` — from `at`, every `period` the link goes down for `down` (default half the
 *   period) and comes back; cycles start while less than `duration` has passed since `at`, so
 *   the flapping ends with the link up. Each transition is a link-down/link-up as above (local
 *   repair on down; routing recomputed `detect` + `converge` after the latest transition).
 * Switch faults (switch named `switch`):
 * - `switch-down` — at `at` every link of the switch goes down (the neighbours repair locally,
 *   the rest of the fabric reconverges after detect + converge); with `duration` the switch
 *   comes back then (a hard reload) and is used again after detect + converge.
 * - `switch-drain` — graceful shutdown: at `at` the switch announces its routes withdrawn
 *   (BGP graceful shutdown, RFC 8326 / maintenance mode); after `converge` every switch routes
 *   around it wherever another path exists (it keeps forwarding meanwhile); `wait` later it goes
 *   down for `duration` (the upgrade), comes back, and after detect + converge it carries
 *   traffic again.
 * GPU faults: `gpu-slow` (compute phases `factor`x longer from `at`; hook faults_on_gpu_slow),
 * `gpu-fail` (the GPU stops at `at`; hook faults_on_gpu_fail: its training job restarts from
 * its last checkpoint or fails).
 * NIC faults: `pfc-storm` — from `at`, NIC port `nic` keeps its leaf paused on every lossless
 * class until `at + duration` (or the end of the jobs).
 *
 * Every fault keeps a record (what it did and when: local repair, reconvergence, frames
 * corrupted...) and the run's timeline of fault events, for the summary, trace and report.
 */
#ifndef WR_WORKLOAD_FAULT_H
#define WR_WORKLOAD_FAULT_H

#include "../config/config.h"
#include "../core/err.h"
#include "../net/net.h"

typedef struct faults faults;

/* What one fault did (summary.json "faults"). Times are absolute; SIM_TIME_MAX = never. */
typedef struct fault_record {
    enum fault_kind kind;
    char target[48];           /* "leaf0-spine1", "spine0", "gpu 3", "nic 5" */
    sim_time at_ps;
    bool fired;                /* its first action happened during the run */
    sim_time local_reroute_ps; /* link/switch down: when the attached switches repaired locally */
    sim_time converged_ps;     /* the last routing recomputation it caused */
    sim_time end_ps;           /* when its effect ended (back up, restored), or SIM_TIME_MAX */
    uint32_t transitions;      /* link-flap: down/up changes made */
    uint64_t rate_bps, orig_rate_bps; /* link-degraded */
    double frame_loss_4k;      /* link-ber: loss probability of a 4096-byte-payload frame */
    uint64_t corrupted;        /* link-ber: frames dropped as bit_error (both directions) */
} fault_record;

/* One line of the fault timeline (trace instant events, report timeline). */
typedef struct fault_log {
    sim_time t_ps;
    uint32_t fault;            /* index in sc->faults */
    char what[96];
} fault_log;
#define FAULT_LOG_MAX 1024

/* Validate sc->faults against the built network and schedule them. NULL + *e on bad input
 * (a scenario without faults gets an empty, valid object). */
faults *faults_new(net *n, const scenario *sc, err *e);
void faults_free(faults *f);
/* A gpu-slow fault fired: GPU `gpu` computes `factor`x slower from now on. */
typedef void (*fault_gpu_slow_fn)(void *ctx, uint32_t gpu, double factor);
/* Register the gpu-slow hook (one; replaces any earlier). Without one, gpu-slow has no effect. */
void faults_on_gpu_slow(faults *f, fault_gpu_slow_fn fn, void *ctx);
/* A gpu-fail fault fired: GPU `gpu` stopped now (fault index i). */
typedef void (*fault_gpu_fail_fn)(void *ctx, uint32_t gpu, uint32_t fault);
void faults_on_gpu_fail(faults *f, fault_gpu_fail_fn fn, void *ctx);
/* A link fault fired: the link of port p (both directions) just went down (up = false) or up. */
typedef void (*fault_link_fn)(void *ctx, port *p, bool up);
/* Register the link hook (one; replaces any earlier): the run's dual-port failover. */
void faults_on_link(faults *f, fault_link_fn fn, void *ctx);
/* pfc-storms without `duration` ("until the end"): how many the scenario has. */
uint32_t faults_endless_storms(const faults *f);
/* The jobs are over: end every storm without `duration` now (those not started never start),
 * so a storm "until the end" ends with the jobs instead of keeping the run alive. */
void faults_end_endless_storms(faults *f);
/* The run is over: links a link-degraded fault left slow get their speed back, so that what is
 * computed from the fabric afterwards (each job's ideal) is the healthy fabric's. */
void faults_restore_rates(faults *f);
/* Append a line to the fault timeline (the run's hooks use it for what they did). */
void faults_log_add(faults *f, uint32_t fault, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The records (sc->n_faults of them) and the timeline (*n lines; *total = all that happened,
 * the first FAULT_LOG_MAX are kept). */
const fault_record *faults_records(const faults *f);
const fault_log *faults_timeline(const faults *f, uint32_t *n, uint64_t *total);

/* RS(544,514) (IEEE 802.3 Clause 119, 400GBASE-R; 10-bit symbols, corrects 15): the probability
 * that a codeword is uncorrectable when bits are in error independently at pre-FEC `ber`. */
double fault_rs544_codeword_loss(double ber);
/* The probability that a frame of `frame_bytes` (Ethernet header to FCS) fails its FCS check at
 * `ber`, after the FEC when pre_fec. */
double fault_frame_loss(double ber, bool pre_fec, uint32_t frame_bytes);

#endif
