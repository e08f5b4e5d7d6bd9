/*
 * test_dcqcn.c — the DCQCN reaction point stepped through CNPs, timer expiries and byte-counter
 * expiries against values computed here by hand from the model in transport/dcqcn.h: the
 * ConnectX firmware defaults (connectx-7 profile: α 10-bit, g = 5/1024 per 1 µs, rpg_gd 11,
 * rpg_min_dec_fac 50 %, 4 µs monitor period, F = 1, 5/50 Mbps AI/HAI, 300 µs / 32767 B) and the
 * paper (Zhu et al. SIGCOMM'15: g = 1/256, 55 µs, 10 MB, F = 5, 40/200 Mbps), and the
 * notification point's CNP spacing.
 */
#include <math.h>

#include "config/config.h"
#include "testlib.h"
#include "transport/dcqcn.h"

#define NEAR(a, b) CHECK_NEAR((a), (b), fabs((double)(b)) * 1e-12 + 1e-12)

static void init(dcqcn_params *p, dcqcn_rp *rp, const cfg_dcqcn *c, uint64_t line)
{
    dcqcn_params_init(p, c, line);
    dcqcn_rp_init(rp, p);
}

/* ---- the paper ------------------------------------------------------------------------------ */

static const double PG = 1.0 / 256;

static void test_paper_cut_and_f_fast_recovery_steps(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_PAPER);
    dcqcn_params p;
    dcqcn_rp rp;
    init(&p, &rp, &c, 100000000000ULL);
    NEAR(p.g, PG);
    CHECK(!rp.limited);

    /* CNP at t = 0: RT = RC = 100G; RC = 100G·(1 − 1/2); α = (1 − g)·1 + g = 1 */
    dcqcn_on_cnp(&rp, &p, 0);
    CHECK(rp.limited);
    NEAR(rp.rt_bps, 100e9);
    NEAR(rp.rc_bps, 50e9);
    NEAR(rp.alpha, 1.0);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 55 * SIM_US);
    /* a second CNP 1 µs later cuts at once too (the paper has no monitor period): RT = 50G */
    dcqcn_on_cnp(&rp, &p, 1 * SIM_US);
    NEAR(rp.rt_bps, 50e9);
    NEAR(rp.rc_bps, 25e9);
    NEAR(rp.alpha, 1.0);

    /* F = 5 timer expiries are fast recovery (stages 0..4 before each), RT unchanged */
    double rc = 25e9;
    for (uint32_t i = 1; i <= 5; i++) {
        sim_time at = 1 * SIM_US + (sim_time)i * 55 * SIM_US;
        CHECK_EQ_U64(dcqcn_next_ps(&rp), at);
        CHECK(dcqcn_on_timer(&rp, &p, at));
        rc = (50e9 + rc) / 2;
        CHECK_EQ_U64(rp.t_stage, i);
        NEAR(rp.rt_bps, 50e9);
        NEAR(rp.rc_bps, rc);
    }
    NEAR(rc, 49.21875e9); /* 37.5, 43.75, 46.875, 48.4375, 49.21875 */
    /* the 6th is additive increase: T = 5 ≥ F, BC = 0 < F */
    dcqcn_on_timer(&rp, &p, 1 * SIM_US + 6 * 55 * SIM_US);
    double rt = 50e9 + 40e6;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);

    /* byte counter: 5 expiries of 10 MB are additive too (BC 0..4 < F ≤ T = 6) */
    CHECK(!dcqcn_on_bytes(&rp, &p, 10000000ULL - 1)); /* one byte short */
    CHECK(dcqcn_on_bytes(&rp, &p, 1 + 4 * 10000000ULL + 7));
    for (int i = 0; i < 5; i++) {
        rt += 40e6;
        rc = (rt + rc) / 2;
    }
    CHECK_EQ_U64(rp.bc_stage, 5);
    CHECK_EQ_U64(rp.bytes, 7);
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    /* hyper: min(T, BC) = min(6, 5) ≥ F: RT += i·R_HAI, i = min − F + 1 = 1; then the timer
     * sees min(6, 6): i = 2; then the byte counter min(7, 6): i = 2 */
    dcqcn_on_bytes(&rp, &p, 10000000ULL);
    rt += 200e6;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    dcqcn_on_timer(&rp, &p, 1 * SIM_US + 7 * 55 * SIM_US);
    rt += 2 * 200e6;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    dcqcn_on_bytes(&rp, &p, 10000000ULL);
    rt += 2 * 200e6;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);

    /* α decayed once per 55 µs since the last CNP (1 µs), in closed form: (1 − g)^n */
    for (uint32_t n = 0; n < 40; n++) {
        sim_time at = 1 * SIM_US + (sim_time)n * 55 * SIM_US;
        NEAR(dcqcn_alpha_at(&rp, &p, at), pow(1 - PG, n));
        NEAR(dcqcn_alpha_at(&rp, &p, at + 55 * SIM_US - 1), pow(1 - PG, n));
    }
}

static void test_paper_recovers_to_line_and_stops(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_PAPER);
    dcqcn_params p;
    dcqcn_rp rp;
    init(&p, &rp, &c, 100000000000ULL);
    dcqcn_on_cnp(&rp, &p, 0);
    sim_time t = 0;
    int n = 0;
    while (dcqcn_next_ps(&rp) != SIM_TIME_MAX && n < 1000) {
        t = dcqcn_next_ps(&rp);
        dcqcn_on_timer(&rp, &p, t);
        n++;
    }
    /* RT = 100G never moved; fast recovery halves the 50G gap per step until it is within
     * DCQCN_LINE_EPS·100G = 100 kbps: 50e9/2^k < 1e5 → k = 19 steps */
    CHECK_EQ_U64(n, 19);
    CHECK(!rp.limited);
    CHECK_EQ_U64(dcqcn_rate_bps(&rp), 100000000000ULL);
    /* a CNP long after: α decayed over the whole periods since the last update, then the cut */
    sim_time later = t + 10 * 55 * SIM_US + 3;
    double a = dcqcn_alpha_at(&rp, &p, later);
    NEAR(a, pow(1 - PG, 10 + 19));
    dcqcn_on_cnp(&rp, &p, later);
    NEAR(rp.rc_bps, 100e9 * (1 - a / 2));
    NEAR(rp.alpha, (1 - PG) * a + PG);
}

/* ---- ConnectX ------------------------------------------------------------------------------- */

static const double LINE = 400e9, G = 5.0 / 1024, A0 = 1023.0 / 1024;

static void cx_init(dcqcn_params *p, dcqcn_rp *rp, cfg_dcqcn *c)
{
    init(p, rp, c, 400000000000ULL);
}

static void test_cx_defaults(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    NEAR(p.g, G);
    NEAR(p.alpha0, A0);
    NEAR(p.gd_scale, 0.5);
    NEAR(p.max_cut, 0.5);
    CHECK_EQ_U64(p.monitor_ps, 4 * SIM_US);
    CHECK_EQ_U64(p.alpha_period_ps, 1 * SIM_US);
    CHECK_EQ_U64(p.time_reset_ps, 300 * SIM_US);
    CHECK_EQ_U64(p.byte_reset_bytes, 32767);
    CHECK_EQ_U64(p.threshold, 1);
    NEAR(p.ai_bps, 5e6);
    NEAR(p.hai_bps, 50e6);
    NEAR(p.min_bps, 1e6);
    NEAR(p.max_bps, LINE);
    CHECK_EQ_U64(p.cnp_gap_ps, 4 * SIM_US);
    /* the three ConnectX profiles share the firmware defaults */
    cfg_dcqcn c6, bf;
    cfg_dcqcn_profile(&c6, NIC_CONNECTX6);
    cfg_dcqcn_profile(&bf, NIC_BLUEFIELD3);
    CHECK(c6.dce_tcp_g == c.dce_tcp_g && bf.rpg_byte_reset_bytes == c.rpg_byte_reset_bytes &&
          c6.rate_reduce_monitor_period_ps == c.rate_reduce_monitor_period_ps &&
          bf.rpg_time_reset_ps == c.rpg_time_reset_ps);
}

static void test_cx_cut_at_period_boundary(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    /* first CNP at 0: α = 1023/1024, the rate is not cut yet: the cut waits for the boundary */
    dcqcn_on_cnp(&rp, &p, 0);
    CHECK(rp.limited && rp.pending);
    NEAR(rp.rc_bps, LINE);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 4 * SIM_US);
    CHECK(dcqcn_on_timer(&rp, &p, 4 * SIM_US));
    /* four α periods without a CNP flag (the first CNP only initialises α) */
    double a = A0 * pow(1 - G, 4);
    NEAR(rp.alpha, a);
    /* rpg_gd 11: cut α·1024/2048 = α/2; RT stays (no clamp: T = 0) */
    NEAR(rp.rc_bps, LINE * (1 - a / 2));
    NEAR(rp.rt_bps, LINE);
    CHECK(!rp.pending);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 304 * SIM_US); /* the increase timer */
}

static void test_cx_monitor_period_coalesces_cnps(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    /* CNPs at 1.5, 2.5, 3.5 µs: still one cut, at 4 µs */
    dcqcn_on_cnp(&rp, &p, 1500000);
    dcqcn_on_cnp(&rp, &p, 2500000);
    dcqcn_on_cnp(&rp, &p, 3500000);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 4 * SIM_US);
    NEAR(rp.rc_bps, LINE);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    /* α per 1 µs period, stepped: [0,1) no flag, [1,2) CNP 1.5, [2,3) 2.5, [3,4) 3.5 */
    double a = A0;
    int flag[4] = {0, 1, 1, 1};
    for (int k = 0; k < 4; k++)
        a = (1 - G) * a + G * flag[k];
    NEAR(rp.alpha, a);
    double rc = LINE * (1 - a / 2);
    NEAR(rp.rc_bps, rc);
    /* CNPs at 5 and 7.999 µs: one cut at 8 µs; α stepped through the flagged periods */
    dcqcn_on_cnp(&rp, &p, 5 * SIM_US);
    dcqcn_on_cnp(&rp, &p, 8 * SIM_US - 1);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 8 * SIM_US);
    dcqcn_on_timer(&rp, &p, 8 * SIM_US);
    int flag2[4] = {0, 1, 0, 1}; /* periods [4,5) [5,6) [6,7) [7,8) */
    for (int k = 0; k < 4; k++)
        a = (1 - G) * a + G * flag2[k];
    NEAR(rp.alpha, a);
    /* T = 0 since the last cut: RT keeps the line rate (clamp_tgt_rate 0) */
    NEAR(rp.rt_bps, LINE);
    rc *= 1 - a / 2;
    NEAR(rp.rc_bps, rc);
    /* a CNP exactly on a boundary belongs to the period it opens: cut one period later */
    dcqcn_on_cnp(&rp, &p, 12 * SIM_US);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 16 * SIM_US);
}

static void test_cx_alpha_closed_form_equals_steps(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_cnp(&rp, &p, 2 * SIM_US + 300); /* flags the period [2,3) */
    /* closed form at each whole µs (from the last event on) vs the per-period recursion */
    double a = A0;
    for (int k = 1; k <= 3000; k++) {
        a = (1 - G) * a + (k == 3 ? G : 0); /* the tick ending [2,3) is the 3rd */
        if (k >= 3)
            CHECK_NEAR(dcqcn_alpha_at(&rp, &p, (sim_time)k * SIM_US), a, a * 1e-11);
    }
}

static void test_cx_cut_limits(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    /* rpg_gd 10: the cut is α itself, so rpg_min_dec_fac caps it at 50 % */
    c.rpg_gd = 10;
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    NEAR(p.gd_scale, 1.0);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    NEAR(rp.rc_bps, LINE * 0.5);
    /* rpg_min_dec_fac 20: no cut larger than 20 % */
    c.rpg_min_dec_fac = 20;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    NEAR(rp.rc_bps, LINE * 0.8);
    /* rpg_min_rate: repeated 50 % cuts stop at 1 Gbps */
    c.rpg_min_dec_fac = 50;
    c.rpg_min_rate_bps = 1000000000ULL;
    cx_init(&p, &rp, &c);
    for (int k = 0; k < 12; k++) {
        dcqcn_on_cnp(&rp, &p, (sim_time)k * 4 * SIM_US);
        dcqcn_on_timer(&rp, &p, (sim_time)(k + 1) * 4 * SIM_US);
    }
    NEAR(rp.rc_bps, 1e9); /* 400G / 2^12 < 1G */
}

/* rpg_byte_reset 0 disables the byte counter: bytes sent never raise the rate, and the timer
 * alone walks fast recovery (T < F), then hyper increase. */
static void test_cx_byte_counter_disabled(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    c.rpg_byte_reset_bytes = 0;
    c.clamp_tgt_rate = true;
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    double rt = rp.rt_bps, rc = rp.rc_bps;
    CHECK(rc < rt);
    CHECK(!dcqcn_on_bytes(&rp, &p, 100ULL << 20)); /* 100 MiB sent: no increase */
    NEAR(rp.rc_bps, rc);
    CHECK_EQ_U64(rp.bc_stage, 0);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 304 * SIM_US);
    dcqcn_on_timer(&rp, &p, 304 * SIM_US); /* T = 0 < F = 1: fast recovery */
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    dcqcn_on_timer(&rp, &p, 604 * SIM_US); /* T = 1 ≥ F: hyper, RT += 50 Mbps */
    rt += 50e6;
    if (rt > LINE)
        rt = LINE;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
}

static void test_cx_increase_phases(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    c.clamp_tgt_rate = true; /* RT ← RC at the cut, so AI and HAI are visible below the line */
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    double a = A0 * pow(1 - G, 4);
    double rt = LINE, rc = LINE * (1 - a / 2);
    NEAR(rp.rt_bps, rt);
    dcqcn_on_cnp(&rp, &p, 5 * SIM_US);
    dcqcn_on_timer(&rp, &p, 8 * SIM_US);
    /* α periods [4,5) plain, [5,6) flagged by the CNP, [6,7) and [7,8) plain */
    a = ((a * (1 - G)) * (1 - G) + G) * (1 - G) * (1 - G);
    NEAR(rp.alpha, a);
    rt = rc;
    rc *= 1 - a / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    /* F = 1: the first expiry (byte counter) is fast recovery */
    CHECK(!dcqcn_on_bytes(&rp, &p, 32766));
    CHECK(dcqcn_on_bytes(&rp, &p, 1));
    rc = (rt + rc) / 2;
    NEAR(rp.rc_bps, rc);
    NEAR(rp.rt_bps, rt);
    /* BC = 1 ≥ F, T = 0 < F: additive, RT += 5 Mbps, for byte counter and timer alike */
    dcqcn_on_bytes(&rp, &p, 32767);
    rt += 5e6;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 308 * SIM_US);
    dcqcn_on_timer(&rp, &p, 308 * SIM_US);
    rt += 5e6;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    CHECK_EQ_U64(rp.t_stage, 1);
    /* both ≥ F: hyper, RT += 50 Mbps each time (the firmware's constant step) */
    dcqcn_on_bytes(&rp, &p, 3 * 32767);
    for (int k = 0; k < 3; k++) {
        rt += 50e6;
        rc = (rt + rc) / 2;
    }
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 608 * SIM_US);
}

/* The 400G incast's overshoot (docs/validation.md, "DCQCN at 400G"): with the firmware defaults a
 * cut is mostly won back by the byte counter before the next monitor period can cut again. At
 * 400G the first cut halves RC (RT stays at the line, nothing was increased yet); the next three
 * byte-counter expiries (one fast recovery, then additive steps whose RT stays capped at the
 * line) each halve the distance to RT, so RC is back at RT − (RT − RC)/8, and the 3 × 32,767
 * bytes that take it there leave in less than one 4 us period even at the cut rate. */
static void test_cx_byte_counter_undoes_cut_within_period(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    double cut = rp.rc_bps;
    NEAR(cut, LINE * (1 - A0 * pow(1 - G, 4) / 2));
    NEAR(rp.rt_bps, LINE);
    CHECK(3.0 * 32767 * 8 / cut * 1e12 < (double)p.monitor_ps);
    CHECK(dcqcn_on_bytes(&rp, &p, 3 * 32767));
    NEAR(rp.rt_bps, LINE);
    NEAR(rp.rc_bps, LINE - (LINE - cut) / 8);
    CHECK_EQ_U64(rp.bc_stage, 3);
    CHECK_EQ_U64(rp.t_stage, 0);
}

static void test_cx_target_rate_clamping(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    double rc = rp.rc_bps;
    /* back-to-back cuts with no increase between: RT keeps the pre-congestion rate */
    dcqcn_on_cnp(&rp, &p, 5 * SIM_US);
    dcqcn_on_timer(&rp, &p, 8 * SIM_US);
    rc *= 1 - rp.alpha / 2;
    NEAR(rp.rt_bps, LINE);
    NEAR(rp.rc_bps, rc);
    /* a byte-counter increase, then a cut: the first cut after an increase sets RT ← RC */
    dcqcn_on_bytes(&rp, &p, 32767);
    rc = (LINE + rc) / 2;
    NEAR(rp.rc_bps, rc);
    dcqcn_on_cnp(&rp, &p, 10 * SIM_US);
    dcqcn_on_timer(&rp, &p, 12 * SIM_US);
    NEAR(rp.rt_bps, rc);
    rc *= 1 - rp.alpha / 2;
    NEAR(rp.rc_bps, rc);
    double rt = rp.rt_bps;
    /* a timer increase (FR: T = BC = 0) then a cut: clamped too (clamp_tgt_rate_after_time_inc) */
    CHECK_EQ_U64(dcqcn_next_ps(&rp), 312 * SIM_US);
    dcqcn_on_timer(&rp, &p, 312 * SIM_US);
    rc = (rt + rc) / 2;
    NEAR(rp.rc_bps, rc);
    dcqcn_on_cnp(&rp, &p, 313 * SIM_US);
    dcqcn_on_timer(&rp, &p, 316 * SIM_US);
    NEAR(rp.rt_bps, rc);
    NEAR(rp.rc_bps, rc * (1 - rp.alpha / 2));

    /* without clamp_tgt_rate_after_time_inc a timer-only increase leaves RT */
    c.clamp_tgt_rate_after_time_inc = false;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    dcqcn_on_timer(&rp, &p, 304 * SIM_US);
    rc = rp.rc_bps;
    dcqcn_on_cnp(&rp, &p, 305 * SIM_US);
    dcqcn_on_timer(&rp, &p, 308 * SIM_US);
    NEAR(rp.rt_bps, LINE);
    NEAR(rp.rc_bps, rc * (1 - rp.alpha / 2));
    /* clamp_tgt_rate: every cut sets RT ← RC */
    c.clamp_tgt_rate = true;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    rc = rp.rc_bps;
    dcqcn_on_cnp(&rp, &p, 5 * SIM_US);
    dcqcn_on_timer(&rp, &p, 8 * SIM_US);
    NEAR(rp.rt_bps, rc);
}

static void test_cx_first_cnp_rate_and_max_rate(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    c.rate_to_set_on_first_cnp_bps = 100000000000ULL;
    c.rpg_max_rate_bps = 200000000000ULL;
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    NEAR(rp.rc_bps, 100e9); /* at once, before the cut */
    NEAR(rp.rt_bps, 100e9);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    /* recovery stops at rpg_max_rate: RT never above 200G */
    for (int k = 0; k < 40000; k++)
        dcqcn_on_bytes(&rp, &p, 32767);
    NEAR(rp.rt_bps, 200e9);
    NEAR(rp.rc_bps, 200e9);
    CHECK(rp.limited); /* still paced below the line */
}

static void test_cx_release_at_line(void)
{
    cfg_dcqcn c;
    cfg_dcqcn_profile(&c, NIC_CONNECTX7);
    dcqcn_params p;
    dcqcn_rp rp;
    cx_init(&p, &rp, &c);
    dcqcn_on_cnp(&rp, &p, 0);
    dcqcn_on_timer(&rp, &p, 4 * SIM_US);
    double gap = LINE - rp.rc_bps;
    int k = 0;
    while (rp.limited && k < 100) {
        dcqcn_on_bytes(&rp, &p, 32767);
        k++;
    }
    /* fast recovery then additive steps toward RT = line: the gap halves per step until it
     * is under DCQCN_LINE_EPS·line = 400 kbps */
    int want = (int)ceil(log2(gap / (LINE * DCQCN_LINE_EPS)));
    CHECK(k == want || k == want + 1);
    CHECK(!rp.limited);
    CHECK_EQ_U64(dcqcn_next_ps(&rp), SIM_TIME_MAX);
    CHECK_EQ_U64(dcqcn_rate_bps(&rp), 400000000000ULL);
}

static void test_np_min_time_between_cnps(void)
{
    sim_time last = 0, iv = 4 * SIM_US;
    bool ever = false;
    CHECK(dcqcn_np_may_send(&last, &ever, 7 * SIM_US, iv)); /* first mark: a CNP */
    CHECK(!dcqcn_np_may_send(&last, &ever, 8 * SIM_US, iv));
    CHECK(!dcqcn_np_may_send(&last, &ever, 11 * SIM_US - 1, iv));
    CHECK(dcqcn_np_may_send(&last, &ever, 11 * SIM_US, iv)); /* exactly one interval later */
    CHECK(!dcqcn_np_may_send(&last, &ever, 14 * SIM_US, iv));
    CHECK(dcqcn_np_may_send(&last, &ever, 200 * SIM_US, iv));
    /* 0: every marked packet */
    CHECK(dcqcn_np_may_send(&last, &ever, 200 * SIM_US, 0));
}

int main(void)
{
    TEST_RUN(test_paper_cut_and_f_fast_recovery_steps);
    TEST_RUN(test_paper_recovers_to_line_and_stops);
    TEST_RUN(test_cx_defaults);
    TEST_RUN(test_cx_cut_at_period_boundary);
    TEST_RUN(test_cx_monitor_period_coalesces_cnps);
    TEST_RUN(test_cx_alpha_closed_form_equals_steps);
    TEST_RUN(test_cx_cut_limits);
    TEST_RUN(test_cx_increase_phases);
    TEST_RUN(test_cx_target_rate_clamping);
    TEST_RUN(test_cx_byte_counter_undoes_cut_within_period);
    TEST_RUN(test_cx_first_cnp_rate_and_max_rate);
    TEST_RUN(test_cx_release_at_line);
    TEST_RUN(test_np_min_time_between_cnps);
    TEST_RUN(test_cx_byte_counter_disabled);
    return tl_finish();
}
