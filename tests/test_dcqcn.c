/*
 * test_dcqcn.c — the DCQCN reaction point stepped through CNPs, timer expiries and byte-counter
 * expiries against values computed here from the equations of Zhu et al. SIGCOMM'15 §3.2
 * (g = 1/256, R_AI = 40 Mbps, R_HAI = 200 Mbps, F = 5, line 100 Gbps), and the notification
 * point's CNP spacing.
 */
#include <math.h>

#include "config/config.h"
#include "testlib.h"
#include "transport/dcqcn.h"

static const double G = 1.0 / 256, LINE = 100e9, RAI = 40e6, RHAI = 200e6;

static void params(dcqcn_params *p)
{
    cfg_dcqcn c = {.g = 1.0 / 256,
                   .rai_bps = 40000000ULL,
                   .rhai_bps = 200000000ULL,
                   .timer_ps = 55 * SIM_US,
                   .byte_counter_bytes = 10000000ULL,
                   .fast_recovery = 5,
                   .cnp_interval_ps = 50 * SIM_US,
                   .min_rate_bps = 100000000ULL};
    dcqcn_params_init(p, &c, 100000000000ULL);
}

#define NEAR(a, b) CHECK_NEAR((a), (b), fabs((double)(b)) * 1e-12 + 1e-12)

static void test_cut_and_fast_recovery(void)
{
    dcqcn_params p;
    params(&p);
    dcqcn_rp rp;
    dcqcn_rp_init(&rp, &p);
    CHECK(!rp.limited);
    NEAR(rp.rc_bps, LINE);
    NEAR(rp.alpha, 1.0);

    /* CNP 1 at t = 0: RT = RC = 100G; RC = 100G·(1 − 1/2) = 50G; α = (1 − g)·1 + g = 1 */
    dcqcn_on_cnp(&rp, &p, 0);
    CHECK(rp.limited);
    NEAR(rp.rt_bps, 100e9);
    NEAR(rp.rc_bps, 50e9);
    NEAR(rp.alpha, 1.0);
    CHECK_EQ_U64(dcqcn_rate_bps(&rp), 50000000000ULL);

    /* four timer expiries, fast recovery (T = 1..4 < F): RC ← (RT + RC)/2, α ← (1 − g)·α */
    double rc = 50e9, a = 1.0;
    for (int i = 1; i <= 4; i++) {
        a *= 1 - G;
        rc = (100e9 + rc) / 2;
        CHECK(dcqcn_on_timer(&rp, &p, (sim_time)i * 55 * SIM_US));
        CHECK_EQ_U64(rp.t_stage, i);
        NEAR(rp.rc_bps, rc);
        NEAR(rp.rt_bps, 100e9);
        NEAR(rp.alpha, a);
    }
    NEAR(rc, 96.875e9); /* 75, 87.5, 93.75, 96.875 */

    /* CNP 2 at 4·55 µs + 10 µs: RT = 96.875G, RC = 96.875G·(1 − α/2), α = (1 − g)α + g */
    dcqcn_on_cnp(&rp, &p, 230 * SIM_US);
    double rt = 96.875e9;
    rc = 96.875e9 * (1 - a / 2);
    a = (1 - G) * a + G;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    NEAR(rp.alpha, a);
    CHECK_EQ_U64(rp.t_stage, 0);
    CHECK_EQ_U64(rp.bc_stage, 0);

    /* T = 1..4 fast recovery; T = 5, 6: additive (T ≥ F, BC = 0 < F): RT += R_AI */
    for (int i = 1; i <= 6; i++) {
        a *= 1 - G;
        if (i >= 5)
            rt += RAI;
        rc = (rt + rc) / 2;
        dcqcn_on_timer(&rp, &p, 230 * SIM_US + (sim_time)i * 55 * SIM_US);
        NEAR(rp.rt_bps, rt);
        NEAR(rp.rc_bps, rc);
        NEAR(rp.alpha, a);
    }

    /* byte counter: 5 × 10 MB → BC = 1..5. BC 1..4 with T = 6 ≥ F: additive; BC = 5: both ≥ F,
     * hyper: RT += R_HAI·(min(T, BC) − F + 1) = R_HAI·1 */
    CHECK(dcqcn_on_bytes(&rp, &p, 4 * 10000000ULL + 5));
    for (int i = 1; i <= 4; i++) {
        rt += RAI;
        rc = (rt + rc) / 2;
    }
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    CHECK_EQ_U64(rp.bc_stage, 4);
    CHECK_EQ_U64(rp.bytes, 5);
    CHECK(!dcqcn_on_bytes(&rp, &p, 10000000ULL - 6)); /* one byte short */
    CHECK(dcqcn_on_bytes(&rp, &p, 1));
    rt += RHAI * 1;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    /* next timer: T = 7, BC = 5: min = 5 → still i = 1; then BC 6 and T 8: i = 2, 3 */
    a *= 1 - G;
    rt += RHAI * 1;
    rc = (rt + rc) / 2;
    dcqcn_on_timer(&rp, &p, 230 * SIM_US + 7 * 55 * SIM_US);
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    dcqcn_on_bytes(&rp, &p, 10000000ULL); /* BC = 6, T = 7: i = 6 − 5 + 1 = 2 */
    rt += RHAI * 2;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    a *= 1 - G;
    dcqcn_on_timer(&rp, &p, 230 * SIM_US + 8 * 55 * SIM_US); /* T = 8, BC = 6: i = 2 */
    rt += RHAI * 2;
    rc = (rt + rc) / 2;
    NEAR(rp.rt_bps, rt);
    NEAR(rp.rc_bps, rc);
    NEAR(rp.alpha, a);
    CHECK(rp.limited);
}

static void test_reaches_line_and_stops(void)
{
    dcqcn_params p;
    params(&p);
    dcqcn_rp rp;
    dcqcn_rp_init(&rp, &p);
    dcqcn_on_cnp(&rp, &p, 0);
    /* RT = line: each fast-recovery step halves the gap 50G; within 1e-6·line after
     * log2(50e9 / 1e5) < 19 steps, then RC = RT = line and the timer stops */
    int steps = 0;
    sim_time t = 0;
    while (rp.limited && steps < 100) {
        t += 55 * SIM_US;
        dcqcn_on_timer(&rp, &p, t);
        steps++;
    }
    CHECK_EQ_U64(steps, 19);
    CHECK(!rp.limited);
    CHECK_EQ_U64(dcqcn_rate_bps(&rp), 100000000000ULL);
    double a = pow(1 - G, 19);
    NEAR(rp.alpha, a);
    /* 1 ms + 20 µs later a CNP: the stopped timer's 18 periods of decay are applied first */
    sim_time later = t + 1000 * SIM_US + 20 * SIM_US;
    dcqcn_on_cnp(&rp, &p, later);
    a *= pow(1 - G, 18);
    NEAR(rp.rc_bps, 100e9 * (1 - a / 2));
    a = (1 - G) * a + G;
    CHECK_NEAR(rp.alpha, a, 1e-12);
    CHECK(rp.limited);
}

static void test_min_rate_clamp(void)
{
    dcqcn_params p;
    params(&p);
    dcqcn_rp rp;
    dcqcn_rp_init(&rp, &p);
    /* α stays ≈ 1 under back-to-back CNPs: each cut halves RC; 100G / 2^10 < 100 Mbps */
    double rc = 100e9, a = 1.0;
    for (int i = 0; i < 12; i++) {
        dcqcn_on_cnp(&rp, &p, (sim_time)i * 50 * SIM_US);
        rc = rc * (1 - a / 2);
        a = (1 - G) * a + G;
        if (rc < 100e6)
            rc = 100e6;
        NEAR(rp.rc_bps, rc);
    }
    NEAR(rp.rc_bps, 100e6);
    CHECK_EQ_U64(dcqcn_rate_bps(&rp), 100000000ULL);
    /* an increase never goes below the floor either, and RT is never above line */
    dcqcn_on_timer(&rp, &p, 12 * 50 * SIM_US);
    CHECK(rp.rc_bps >= 100e6);
    CHECK(rp.rt_bps <= 100e9);
}

static void test_alpha_decay(void)
{
    dcqcn_params p;
    params(&p);
    dcqcn_rp rp;
    dcqcn_rp_init(&rp, &p);
    dcqcn_on_cnp(&rp, &p, 0);
    /* 256 periods without CNP: α = (255/256)^256 ≈ e^-1 (0.3672) */
    for (int i = 1; i <= 256; i++)
        dcqcn_on_timer(&rp, &p, (sim_time)i * 55 * SIM_US);
    CHECK_NEAR(rp.alpha, pow(255.0 / 256, 256), 1e-12);
    CHECK_NEAR(rp.alpha, 0.3672, 1e-4);
}

static void test_np_interval(void)
{
    sim_time last = 0;
    bool ever = false;
    const sim_time iv = 50 * SIM_US;
    CHECK(dcqcn_np_may_send(&last, &ever, 7 * SIM_US, iv)); /* first mark: a CNP */
    CHECK(!dcqcn_np_may_send(&last, &ever, 8 * SIM_US, iv));
    CHECK(!dcqcn_np_may_send(&last, &ever, 56999999, iv));
    CHECK(dcqcn_np_may_send(&last, &ever, 57 * SIM_US, iv)); /* exactly one interval later */
    CHECK(!dcqcn_np_may_send(&last, &ever, 106 * SIM_US, iv));
    CHECK(dcqcn_np_may_send(&last, &ever, 200 * SIM_US, iv));
    /* marks every 1 µs for 1 ms: CNPs at 0, 50, ..., 950 µs = 20 */
    last = 0;
    ever = false;
    int n = 0;
    for (sim_time t = 0; t < 1000 * SIM_US; t += SIM_US)
        n += dcqcn_np_may_send(&last, &ever, t, iv);
    CHECK_EQ_U64(n, 20);
}

int main(void)
{
    TEST_RUN(test_cut_and_fast_recovery);
    TEST_RUN(test_reaches_line_and_stops);
    TEST_RUN(test_min_rate_clamp);
    TEST_RUN(test_alpha_decay);
    TEST_RUN(test_np_interval);
    return tl_finish();
}
