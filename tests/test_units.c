/*
 * test_units.c — table-driven tests of units.h: every accepted form, exactness of decimal
 * fractions (integer math, no double rounding), and the exact error texts users see.
 */
#include "config/units.h"
#include "testlib.h"

enum kind { RATE, TIME, SIZE, LENGTH };

typedef struct ucase {
    enum kind k;
    const char *in;
    bool ok;
    uint64_t want;   /* when ok */
    const char *why; /* when !ok: exact message, or NULL to only require failure */
} ucase;

#define G 1000000000ULL
#define T 1000000000000ULL

static const ucase CASES[] = {
    /* rate */
    {RATE, "400Gbps", true, 400 * G, NULL},
    {RATE, "800G", true, 800 * G, NULL},
    {RATE, "100Mbps", true, 100000000ULL, NULL},
    {RATE, "1.6Tbps", true, 1600000000000ULL, NULL},
    {RATE, "50GBps", true, 400 * G, NULL},
    {RATE, "450GBps", true, 3600 * G, NULL},
    {RATE, "10Kbps", true, 10000, NULL},
    {RATE, "10kbps", true, 10000, NULL},
    {RATE, "1bps", true, 1, NULL},
    {RATE, "25.78125Gbps", true, 25781250000ULL, NULL},
    {RATE, "400 Gbps", true, 400 * G, NULL},
    {RATE, "  400Gbps  ", true, 400 * G, NULL},
    {RATE, "400Gb/s", true, 400 * G, NULL},
    {RATE, "1T", true, T, NULL},
    {RATE, "1.5TBps", true, 12 * T, NULL},
    {RATE, "100MBps", true, 800000000ULL, NULL},
    {RATE, ".5Gbps", true, 500000000ULL, NULL},
    {RATE, "1.50000000000000000000000Gbps", true, 1500000000ULL, NULL},
    {RATE, "0", true, 0, NULL},
    {RATE, "18446744073709551615bps", true, UINT64_MAX, NULL},
    {RATE, "400", false, 0, "expected a rate like \"400Gbps\", got \"400\""},
    {RATE, "", false, 0, "expected a rate like \"400Gbps\", got \"\""},
    {RATE, "fast", false, 0, "expected a rate like \"400Gbps\", got \"fast\""},
    {RATE, "-5Gbps", false, 0,
     "expected a rate like \"400Gbps\", got \"-5Gbps\" (must not be negative)"},
    {RATE, "18446744073709551616bps", false, 0,
     "expected a rate like \"400Gbps\", got \"18446744073709551616bps\" (too large)"},
    {RATE, "99999999999Tbps", false, 0,
     "expected a rate like \"400Gbps\", got \"99999999999Tbps\" (too large)"},
    {RATE, "1.5bps", false, 0,
     "expected a rate like \"400Gbps\", got \"1.5bps\" (not a whole number of bits/s)"},
    {RATE, "400Gbs", false, 0,
     "expected a rate like \"400Gbps\", got \"400Gbs\" (unknown unit \"Gbs\"; use bps, Kbps, "
     "Mbps, Gbps, Tbps (or K, M, G, T), and Bps, KBps, MBps, GBps, TBps for bytes/s)"},
    {RATE, "400gbps", false, 0, NULL},
    {RATE, "1e9bps", false, 0, NULL},
    {RATE, "Gbps", false, 0, NULL},
    {RATE, "4 00Gbps", false, 0, NULL},
    {RATE, "1.2.3Gbps", false, 0, NULL},
    /* time */
    {TIME, "1ps", true, 1, NULL},
    {TIME, "600ns", true, 600000, NULL},
    {TIME, "2us", true, 2000000, NULL},
    {TIME, "2\xc2\xb5s", true, 2000000, NULL},
    {TIME, "2\xce\xbcs", true, 2000000, NULL},
    {TIME, "1.5ms", true, 1500000000ULL, NULL},
    {TIME, "2s", true, 2 * T, NULL},
    {TIME, "0.001ns", true, 1, NULL},
    {TIME, "0us", true, 0, NULL},
    {TIME, "0", true, 0, NULL},
    {TIME, "55 us", true, 55000000ULL, NULL},
    {TIME, "18446744s", true, 18446744 * T, NULL},
    {TIME, "2", false, 0, "expected a time like \"2us\", got \"2\""},
    {TIME, "0.5ps", false, 0,
     "expected a time like \"2us\", got \"0.5ps\" (not a whole number of ps)"},
    {TIME, "18446745s", false, 0, "expected a time like \"2us\", got \"18446745s\" (too large)"},
    {TIME, "-1us", false, 0, "expected a time like \"2us\", got \"-1us\" (must not be negative)"},
    {TIME, "2 sec", false, 0,
     "expected a time like \"2us\", got \"2 sec\" (unknown unit \"sec\"; use ps, ns, us (or "
     "\xc2\xb5s), ms, s, min, h)"},
    {TIME, "1h", true, 3600000000000000ULL, NULL},
    {TIME, "10min", true, 600000000000000ULL, NULL},
    {TIME, "1.5min", true, 90000000000000ULL, NULL},
    /* size */
    {SIZE, "4096", true, 4096, NULL},
    {SIZE, "4KB", true, 4000, NULL},
    {SIZE, "4KiB", true, 4096, NULL},
    {SIZE, "1MB", true, 1000000, NULL},
    {SIZE, "1MiB", true, 1048576, NULL},
    {SIZE, "1GiB", true, 1073741824ULL, NULL},
    {SIZE, "2GB", true, 2 * G, NULL},
    {SIZE, "1TiB", true, 1ULL << 40, NULL},
    {SIZE, "10B", true, 10, NULL},
    {SIZE, "1.5MiB", true, 1572864, NULL},
    {SIZE, "64MiB", true, 64ULL << 20, NULL},
    {SIZE, "0.5KiB", true, 512, NULL},
    {SIZE, "1.5B", false, 0,
     "expected a size like \"4KiB\", got \"1.5B\" (not a whole number of bytes)"},
    {SIZE, "1.5", false, 0,
     "expected a size like \"4KiB\", got \"1.5\" (not a whole number of bytes)"},
    {SIZE, "4kb", false, 0,
     "expected a size like \"4KiB\", got \"4kb\" (unknown unit \"kb\"; use B, KB, MB, GB, TB "
     "(powers of 10), KiB, MiB, GiB, TiB (powers of 2), or a plain number of bytes)"},
    {SIZE, "4K", false, 0, NULL},
    {SIZE, "-4KB", false, 0, NULL},
    {SIZE, "", false, 0, "expected a size like \"4KiB\", got \"\""},
    {SIZE, "99999999999999999999", false, 0,
     "expected a size like \"4KiB\", got \"99999999999999999999\" (too large)"},
    {SIZE, "16777216TiB", false, 0, NULL},
    /* length */
    {LENGTH, "30m", true, 30000, NULL},
    {LENGTH, "2km", true, 2000000, NULL},
    {LENGTH, "50cm", true, 500, NULL},
    {LENGTH, "3mm", true, 3, NULL},
    {LENGTH, "2.5m", true, 2500, NULL},
    {LENGTH, "0.001km", true, 1000, NULL},
    {LENGTH, "30", false, 0, "expected a length like \"30m\", got \"30\""},
    {LENGTH, "1.5mm", false, 0,
     "expected a length like \"30m\", got \"1.5mm\" (not a whole number of mm)"},
    {LENGTH, "30ft", false, 0,
     "expected a length like \"30m\", got \"30ft\" (unknown unit \"ft\"; use mm, cm, m, km)"},
};

static void test_table(void)
{
    int n = (int)(sizeof CASES / sizeof CASES[0]);
    for (int i = 0; i < n; i++) {
        const ucase *c = &CASES[i];
        uint64_t v = 12345;
        char why[512] = "";
        bool ok = false;
        switch (c->k) {
        case RATE:
            ok = units_rate(c->in, &v, why, sizeof why);
            break;
        case TIME:
            ok = units_time(c->in, &v, why, sizeof why);
            break;
        case SIZE:
            ok = units_size(c->in, &v, why, sizeof why);
            break;
        case LENGTH:
            ok = units_length(c->in, &v, why, sizeof why);
            break;
        }
        tl_checks++;
        if (ok != c->ok) {
            tl_failures++;
            fprintf(stderr, "case %d \"%s\": expected %s, got %s (%s)\n", i, c->in,
                    c->ok ? "success" : "failure", ok ? "success" : "failure", why);
            continue;
        }
        if (ok) {
            CHECK_EQ_U64(v, c->want);
            if (v != c->want)
                fprintf(stderr, "  (case %d \"%s\")\n", i, c->in);
        } else {
            CHECK(why[0] != '\0');
            if (c->why)
                CHECK_STR(why, c->why);
        }
    }
    fprintf(stderr, "  %d unit cases\n", n);
}

typedef struct rcase {
    const char *in;
    bool ok;
    uint32_t num, den;
} rcase;

static const rcase RCASES[] = {
    {"1:1", true, 1, 1},
    {"3:1", true, 3, 1},
    {"6:2", true, 3, 1},
    {"2.5", true, 5, 2},
    {"1", true, 1, 1},
    {"1.5:1", true, 3, 2},
    {"3 : 1", true, 3, 1},
    {"0.25", true, 1, 4},
    {"4:3", true, 4, 3},
    {"0:1", false, 0, 0},
    {"1:0", false, 0, 0},
    {"-3:1", false, 0, 0},
    {"3:", false, 0, 0},
    {"a:b", false, 0, 0},
    {"", false, 0, 0},
    {"3:1:1", false, 0, 0},
    {"99999999999:1", false, 0, 0},
};

static void test_ratio(void)
{
    int n = (int)(sizeof RCASES / sizeof RCASES[0]);
    for (int i = 0; i < n; i++) {
        uint32_t a = 0, b = 0;
        char why[256] = "";
        bool ok = units_ratio(RCASES[i].in, &a, &b, why, sizeof why);
        tl_checks++;
        if (ok != RCASES[i].ok) {
            tl_failures++;
            fprintf(stderr, "ratio case \"%s\": expected %s (%s)\n", RCASES[i].in,
                    RCASES[i].ok ? "success" : "failure", why);
            continue;
        }
        if (ok) {
            CHECK_EQ_U64(a, RCASES[i].num);
            CHECK_EQ_U64(b, RCASES[i].den);
        }
    }
    char why[256];
    uint32_t a, b;
    CHECK(!units_ratio("x", &a, &b, why, sizeof why));
    CHECK_STR(why, "expected a ratio like \"3:1\" or a number like 2.5, got \"x\"");
    CHECK(!units_ratio("0", &a, &b, why, sizeof why));
    CHECK_STR(why, "expected a ratio like \"3:1\" or a number like 2.5, got \"0\" (both parts "
                   "must be positive)");
    fprintf(stderr, "  %d ratio cases\n", n);
}

static void test_why_optional_and_truncation(void)
{
    uint64_t v;
    /* why may be NULL. */
    CHECK(!units_rate("400", &v, NULL, 0));
    /* A tiny buffer is truncated, never overrun. */
    char small[8];
    memset(small, 'x', sizeof small);
    CHECK(!units_rate("400", &v, small, sizeof small));
    CHECK(strlen(small) == 7);
    /* Control bytes and very long input are escaped / cut in the message. */
    char why[512];
    CHECK(!units_time("1\x01s", &v, why, sizeof why));
    CHECK(strstr(why, "\\x01") != NULL);
    char longs[300];
    memset(longs, '9', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    CHECK(!units_size(longs, &v, why, sizeof why));
    CHECK(strstr(why, "...") != NULL);
    CHECK(strlen(why) < 200);
}

int main(void)
{
    TEST_RUN(test_table);
    TEST_RUN(test_ratio);
    TEST_RUN(test_why_optional_and_truncation);
    return tl_finish();
}
