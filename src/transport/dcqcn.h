/*
 * dcqcn.h — DCQCN congestion control as NVIDIA ConnectX NICs implement it: the reaction point
 * (sender, per QP) and the notification point's CNP pacing (receiver, per QP). One state machine;
 * the paper's algorithm (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015, §3.1–3.2) is one parameterisation of it (nic.profile: paper).
 *
 * Sources (parameter names are the NIC's: /sys/class/net/IF/ecn/roce_rp and roce_np, mlxconfig):
 *  [N1] NVIDIA, "DCQCN CC Parameters" and "DCQCN CC Algorithm", DOCA SDK documentation
 *       (networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters): meaning, unit, range
 *       and default of every parameter, "supported by ConnectX-4 and later".
 *  [N2] mlxconfig query of a ConnectX NIC (firmware defaults RPG_TIME_RESET 300,
 *       RPG_BYTE_RESET 32767, RPG_THRESHOLD 1, RPG_AI_RATE 5, RPG_HAI_RATE 50, RPG_GD 11,
 *       RPG_MIN_DEC_FAC 50, RPG_MIN_RATE 1, DCE_TCP_G 1019, DCE_TCP_RTT 1,
 *       RATE_REDUCE_MONITOR_PERIOD 4, INITIAL_ALPHA_VALUE 1023, MIN_TIME_BETWEEN_CNPS 4,
 *       CLAMP_TGT_RATE 0, CLAMP_TGT_RATE_AFTER_TIME_INC 1), and Linux
 *       drivers/infiniband/hw/mlx5/cong.c (the same rp_* / np_* set).
 *  [H]  Li et al., "HPCC", SIGCOMM 2019, and its ns-3 simulator (alibaba-edu/
 *       High-Precision-Congestion-Control, rdma-hw.cc "mlx" mode, run.py): Mellanox-style DCQCN
 *       with α updated every 1 µs with gain 1/256, rate-decrease check every 4 µs, a 300 µs
 *       increase timer, target-rate clamping only after an increase (it has no byte counter,
 *       so only after a timer one), F stages counted from 0 (stage < F: fast recovery).
 *  [Z]  Zhu et al. SIGCOMM'15 (the `paper` profile: g = 1/256, 55 µs timers, 10 MB byte
 *       counter, F = 5, R_AI 40 Mbps, CNP every 50 µs).
 *
 * Reaction point, per QP (RC current rate, RT target rate, α congestion estimate; bits/s reals):
 *   α:        a 10-bit fixed point in the NIC; here a real, α0 = initial_alpha_value/1024 at the
 *             QP's first CNP. Every dce_tcp_rtt: α ← (1 − g)·α + g·c, c = 1 if a CNP arrived in
 *             that period [N1]. g = (1024 − dce_tcp_g)/1024 (1019 → 5/1024 ≈ 1/205): dce_tcp_g
 *             is the weight kept by the old α, the reading under which the firmware default is
 *             close to the paper's g = 1/256 and which [H] models with g = 1/256 per 1 µs; the
 *             other reading (g = 1019/1024) would make α a 1 µs CNP indicator. Evaluated lazily
 *             in closed form, α·(1 − g)^n, never by per-µs events.
 *   decrease: at most one cut per rate_reduce_monitor_period, at the period boundary after a
 *             CNP [N1]; the periods are counted from the QP's first CNP [H]:
 *               RT ← RC if clamp_tgt_rate, else only at the first cut after an increase: a
 *                       byte-counter one (BC > 0), or a timer one (T > 0) with
 *                       clamp_tgt_rate_after_time_inc [N1][H], so back-to-back cuts keep the
 *                       target the QP recovers toward;
 *               RC ← RC·(1 − min(α·2^10/2^rpg_gd, rpg_min_dec_fac/100))  (rpg_gd 11: α/2);
 *               T, BC, byte count ← 0; the increase timer restarts (next expiry +rpg_time_reset).
 *             rate_reduce_monitor_period 0 (paper): the cut happens at each CNP, then α is
 *             updated at once, α ← (1 − g)·α + g, and the α period restarts at the CNP [Z].
 *   increase: the timer every rpg_time_reset and the byte counter every rpg_byte_reset bytes
 *             sent each run one step, chosen by the stages T, BC counted BEFORE this expiry, so
 *             exactly F = rpg_threshold fast-recovery steps precede additive increase [H][Z]:
 *               fast recovery  max(T, BC) < F:         RC ← (RT + RC)/2
 *               additive       min(T, BC) < F ≤ max:   RT ← RT + rpg_ai_rate, then as above
 *               hyper          min(T, BC) ≥ F:         RT ← RT + rpg_hai_rate (ConnectX [N1]);
 *                              paper: RT ← RT + i·R_HAI, i = min(T, BC) − F + 1.
 *             then the expiring stage counts up.
 *   clamps:   RT ≤ rpg_max_rate (0 = line); rpg_min_rate ≤ RC. First CNP of a QP: RC = RT =
 *             rate_to_set_on_first_cnp (0 = the current rate).
 *   A QP is `limited` from its first CNP until an increase brings RC and RT within
 *   DCQCN_LINE_EPS of the cap; then RC = RT = cap and the QP sends unpaced again (it needs no
 *   events until the next CNP; α keeps decaying in closed form meanwhile).
 *
 * Events: one timer per limited QP (the caller's), due at dcqcn_next_ps(): the pending cut's
 * period boundary or the next increase-timer expiry, whichever is first.
 *
 * Notification point: at most one CNP per min_time_between_cnps (the first CE mark always
 * produces one) [N1], spaced per receiving NIC port for ConnectX — "minimum time between sending
 * cnps from the port" [N3] — or per QP for the paper (one CNP per flow per 50 µs [Z]); the CNP
 * goes to the QP whose marked packet arrived. The per-port state lives in the NIC (nic_port).
 *  [N3] NVIDIA mstflint, tools_open_layouts (roce_np/roce_rp register descriptions).
 *  [N4] NVIDIA's mlxconfig parameter database (mstflint mlxconfig/mlxconfig_dbs/
 *       mlxconfig_host.db, TLVs nv_roce_cc and nv_roce_cc_ecn): rpg_byte_reset "Given in Bytes";
 *       the CNP spacing scope is a firmware setting, ROCE_CC_CNP_MODERATION (PER_PORT or
 *       PER_FLOW), whose default (DEVICE_DEFAULT) is not published per device, hence
 *       cnp_per_port is a key; its dce_tcp_g text is the other reading of α's gain (α =
 *       dceTcpG·cnp + (1 − dceTcpG)·α): the sources disagree, this model keeps the reading
 *       above. Measured consequences of each open reading: docs/validation.md, "DCQCN at 400G".
 */
#ifndef WR_TRANSPORT_DCQCN_H
#define WR_TRANSPORT_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/config.h"
#include "../core/time.h"

/* Relative distance to the cap under which RC snaps to it (and the timer stops). At
 * 400 Gbps this is 400 kbps, less than one picosecond of pacing per 4 KiB frame. */
#define DCQCN_LINE_EPS 1e-6

typedef struct dcqcn_params {
    double line_bps;           /* the NIC port's rate */
    double max_bps;            /* RT cap: rpg_max_rate, or line */
    double min_bps;            /* RC floor: rpg_min_rate (≤ max) */
    double first_bps;          /* rate_to_set_on_first_cnp, 0 = keep the current rate */
    double ai_bps, hai_bps;
    double g;                  /* α gain per dce_tcp_rtt */
    double alpha0;             /* initial α */
    double gd_scale;           /* cut fraction = α·gd_scale (rpg_gd 11: 1/2) */
    double max_cut;            /* rpg_min_dec_fac / 100 */
    sim_time monitor_ps;       /* rate_reduce_monitor_period; 0 = cut at each CNP */
    sim_time alpha_period_ps;  /* dce_tcp_rtt */
    sim_time time_reset_ps;    /* rpg_time_reset */
    uint64_t byte_reset_bytes; /* rpg_byte_reset */
    uint32_t threshold;        /* F = rpg_threshold */
    bool clamp_tgt, clamp_after_time_inc, hai_scaled;
    sim_time cnp_gap_ps;       /* NP: min_time_between_cnps */
    bool cnp_per_port;         /* NP: the gap is the receiving NIC port's (ConnectX), else per QP */
} dcqcn_params;

typedef struct dcqcn_rp {
    double rc_bps, rt_bps, alpha;
    uint32_t t_stage, bc_stage;
    uint64_t bytes;            /* sent since the last byte-counter expiry (or cut) */
    sim_time alpha_ps;         /* start of the current α period */
    sim_time anchor_ps;        /* the first CNP: origin of the monitor periods */
    sim_time cut_ps;           /* boundary of the pending cut (when pending) */
    sim_time inc_ps;           /* next increase-timer expiry (when recovering) */
    bool started;              /* a CNP was ever received (α initialised) */
    bool alpha_cnp;            /* a CNP arrived in the current α period */
    bool pending;              /* a CNP arrived: cut at cut_ps */
    bool recovering;           /* cut at least once and RC, RT not back at the cap */
    bool limited;              /* pending or recovering: paced at RC, the timer runs */
} dcqcn_rp;

/* Parameters from the scenario's nic.dcqcn for a NIC port of `line_bps`. */
void dcqcn_params_init(dcqcn_params *p, const cfg_dcqcn *c, uint64_t line_bps);
void dcqcn_rp_init(dcqcn_rp *rp, const dcqcn_params *p);
/* A CNP reached the reaction point at `now` (non-decreasing across calls). */
void dcqcn_on_cnp(dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* The QP's timer fired at `now`: runs the cut and the increase-timer expiry that are due.
 * Returns true while the QP needs its timer (then at dcqcn_next_ps()). */
bool dcqcn_on_timer(dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* When the QP's timer must next fire; SIM_TIME_MAX when it needs none. */
sim_time dcqcn_next_ps(const dcqcn_rp *rp);
/* `bytes` more were sent; runs one increase per byte-counter expiry. No-op unless recovering.
 * Returns true when RC changed. */
bool dcqcn_on_bytes(dcqcn_rp *rp, const dcqcn_params *p, uint64_t bytes);
/* α at `now` (≥ the last event), without changing the state: the closed form of the per-period
 * updates. */
double dcqcn_alpha_at(const dcqcn_rp *rp, const dcqcn_params *p, sim_time now);
/* The pacing rate in integer bits/s (RC rounded down, at least 1). */
static inline uint64_t dcqcn_rate_bps(const dcqcn_rp *rp)
{
    uint64_t r = (uint64_t)rp->rc_bps;
    return r ? r : 1;
}

/* Notification point: may a CNP for this QP go out at `now`? Updates *last_ps when it may. */
static inline bool dcqcn_np_may_send(sim_time *last_ps, bool *ever, sim_time now,
                                     sim_time interval_ps)
{
    if (*ever && now - *last_ps < interval_ps)
        return false;
    *ever = true;
    *last_ps = now;
    return true;
}

#endif
