/*
 * units.c — exact parsing of the quantities in spec/scenario.md "Units".
 *
 * A quantity is `NUMBER [spaces] UNIT`. NUMBER is a plain decimal (`400`, `1.6`, `.5`; no sign,
 * no exponent) read as an integer mantissa and a count of fraction digits, so `1.6Tbps` is
 * 16 × 10^12 / 10 = 1600000000000 exactly: no double is ever involved and no value is rounded.
 * A result that is not a whole number of the base unit (0.5ps, 1.5B, 1.5mm) is rejected rather
 * than rounded, because a silently rounded scenario is a different scenario.
 *
 * Whitespace: leading and trailing blanks are ignored and blanks between the number and the
 * unit are allowed ("400 Gbps"), since that is how engineers write quantities in prose.
 * A bare `0` is accepted for every quantity (zero is zero in any unit); any other bare number
 * where a unit is required is an error (`expected a rate like "400Gbps", got "400"`).
 *
 * Arithmetic is in unsigned __int128; anything above UINT64_MAX in the base unit is rejected.
 */
#include "units.h"

#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;

/* A unit suffix and how many base units one of it is. */
typedef struct unit_def {
    const char *name;
    uint64_t mult;
} unit_def;

static const unit_def RATE_UNITS[] = {
    {"bps", 1ULL},
    {"Kbps", 1000ULL},
    {"kbps", 1000ULL},
    {"Mbps", 1000000ULL},
    {"Gbps", 1000000000ULL},
    {"Tbps", 1000000000000ULL},
    {"b/s", 1ULL},
    {"Kb/s", 1000ULL},
    {"kb/s", 1000ULL},
    {"Mb/s", 1000000ULL},
    {"Gb/s", 1000000000ULL},
    {"Tb/s", 1000000000000ULL},
    {"K", 1000ULL},
    {"M", 1000000ULL},
    {"G", 1000000000ULL},
    {"T", 1000000000000ULL},
    /* bytes per second, x8 */
    {"Bps", 8ULL},
    {"KBps", 8000ULL},
    {"MBps", 8000000ULL},
    {"GBps", 8000000000ULL},
    {"TBps", 8000000000000ULL},
    {"B/s", 8ULL},
    {"KB/s", 8000ULL},
    {"MB/s", 8000000ULL},
    {"GB/s", 8000000000ULL},
    {"TB/s", 8000000000000ULL},
    {NULL, 0},
};

static const unit_def TIME_UNITS[] = {
    {"ps", 1ULL},
    {"ns", 1000ULL},
    {"us", 1000000ULL},
    {"\xc2\xb5s", 1000000ULL}, /* µs, MICRO SIGN */
    {"\xce\xbcs", 1000000ULL}, /* μs, GREEK SMALL LETTER MU */
    {"ms", 1000000000ULL},
    {"s", 1000000000000ULL},
    /* checkpoint and restart times are minutes (spec/scenario.md: restart_time: 10min) */
    {"min", 60000000000000ULL},
    {"h", 3600000000000000ULL},
    {NULL, 0},
};

static const unit_def SIZE_UNITS[] = {
    {"B", 1ULL},
    {"KB", 1000ULL},
    {"MB", 1000000ULL},
    {"GB", 1000000000ULL},
    {"TB", 1000000000000ULL},
    {"KiB", 1ULL << 10},
    {"MiB", 1ULL << 20},
    {"GiB", 1ULL << 30},
    {"TiB", 1ULL << 40},
    {NULL, 0},
};

static const unit_def LENGTH_UNITS[] = {
    {"mm", 1ULL}, {"cm", 10ULL}, {"m", 1000ULL}, {"km", 1000000ULL}, {NULL, 0},
};

/* What a quantity is called in messages, an example, and the accepted units for the hint. */
typedef struct qty_kind {
    const char *what, *example, *units;
    const unit_def *table;
    bool bare_ok;     /* a bare number means base units (size: bytes) */
    const char *base; /* base unit name for "not a whole number of ..." */
} qty_kind;

static const qty_kind Q_RATE = {"rate",
                                "400Gbps",
                                "bps, Kbps, Mbps, Gbps, Tbps (or K, M, G, T), "
                                "and Bps, KBps, MBps, GBps, TBps for bytes/s",
                                RATE_UNITS,
                                false,
                                "bits/s"};
static const qty_kind Q_TIME = {"time",     "2us", "ps, ns, us (or \xc2\xb5s), ms, s, min, h",
                                TIME_UNITS, false, "ps"};
static const qty_kind Q_SIZE = {"size",
                                "4KiB",
                                "B, KB, MB, GB, TB (powers of 10), KiB, MiB, GiB, TiB "
                                "(powers of 2), or a plain number of bytes",
                                SIZE_UNITS,
                                true,
                                "bytes"};
static const qty_kind Q_LENGTH = {"length", "30m", "mm, cm, m, km", LENGTH_UNITS, false, "mm"};

/* Copy `s` into dst for quoting in a message: control bytes escaped, long input cut with "...". */
static void quote_into(char *dst, size_t cap, const char *s)
{
    size_t o = 0, i = 0;
    const size_t keep = 48;
    if (cap == 0)
        return;
    for (; s[i] && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= keep) {
            if (o + 4 < cap) {
                memcpy(dst + o, "...", 3);
                o += 3;
            }
            break;
        }
        if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
            int w = snprintf(dst + o, cap - o,
                             c == '"'    ? "\\\""
                             : c == '\\' ? "\\\\"
                                         : "\\x%02x",
                             c);
            if (w < 0 || (size_t)w >= cap - o)
                break;
            o += (size_t)w;
        } else {
            dst[o++] = (char)c;
        }
    }
    dst[o] = '\0';
}

static bool fail(const qty_kind *q, const char *s, const char *detail, char *why, size_t why_len)
{
    if (why && why_len) {
        char got[200];
        quote_into(got, sizeof got, s);
        if (detail)
            snprintf(why, why_len, "expected a %s like \"%s\", got \"%s\" (%s)", q->what,
                     q->example, got, detail);
        else
            snprintf(why, why_len, "expected a %s like \"%s\", got \"%s\"", q->what, q->example,
                     got);
    }
    return false;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * Parse the decimal at *p: digits with an optional '.' fraction. Returns the mantissa with
 * trailing fraction zeros removed and the number of remaining fraction digits. False when there
 * are no digits or the mantissa exceeds 10^30 (far beyond any uint64 result).
 */
static bool parse_decimal(const char **p, u128 *mant, unsigned *frac)
{
    const char *s = *p;
    u128 m = 0;
    unsigned f = 0, digits = 0, pending_zeros = 0;
    const u128 limit = (u128)1000000000000000ULL * 1000000000000000ULL; /* 10^30 */
    while (*s >= '0' && *s <= '9') {
        if (m > limit)
            return false;
        m = m * 10 + (unsigned)(*s - '0');
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            /* Fraction zeros are held back so "1.50000000000" does not inflate the mantissa. */
            if (*s == '0') {
                pending_zeros++;
            } else {
                for (; pending_zeros; pending_zeros--) {
                    if (m > limit)
                        return false;
                    m *= 10;
                    f++;
                }
                if (m > limit)
                    return false;
                m = m * 10 + (unsigned)(*s - '0');
                f++;
            }
            s++;
            digits++;
        }
    }
    if (digits == 0)
        return false;
    *p = s;
    *mant = m;
    *frac = f;
    return true;
}

static bool parse_qty(const qty_kind *q, const char *s, uint64_t *out, char *why, size_t why_len)
{
    if (!s)
        s = "";
    const char *p = s;
    while (is_blank(*p))
        p++;
    if (*p == '\0')
        return fail(q, s, NULL, why, why_len);
    if (*p == '-')
        return fail(q, s, "must not be negative", why, why_len);
    if (*p == '+')
        p++;
    u128 mant;
    unsigned frac;
    const char *num_start = p;
    if (!parse_decimal(&p, &mant, &frac)) {
        if (*num_start >= '0' && *num_start <= '9')
            return fail(q, s, "too large", why, why_len);
        return fail(q, s, NULL, why, why_len);
    }
    while (is_blank(*p))
        p++;
    /* The unit runs to the end, minus trailing blanks. */
    size_t ulen = strlen(p);
    while (ulen && is_blank(p[ulen - 1]))
        ulen--;
    uint64_t mult = 0;
    if (ulen == 0) {
        if (mant == 0)
            mult = 1; /* bare 0 */
        else if (q->bare_ok)
            mult = 1;
        else
            return fail(q, s, NULL, why, why_len);
    } else {
        for (const unit_def *u = q->table; u->name; u++) {
            if (strlen(u->name) == ulen && memcmp(u->name, p, ulen) == 0) {
                mult = u->mult;
                break;
            }
        }
        if (!mult) {
            char unit[64], detail[400];
            char tmp[64];
            size_t n = ulen < sizeof tmp - 1 ? ulen : sizeof tmp - 1;
            memcpy(tmp, p, n);
            tmp[n] = '\0';
            quote_into(unit, sizeof unit, tmp);
            snprintf(detail, sizeof detail, "unknown unit \"%s\"; use %s", unit, q->units);
            return fail(q, s, detail, why, why_len);
        }
    }
    u128 v = mant * mult;
    if (frac > 0) {
        if (frac > 30)
            return fail(q, s, "too many decimals", why, why_len);
        u128 div = 1;
        for (unsigned i = 0; i < frac; i++)
            div *= 10;
        if (v % div != 0) {
            char detail[64];
            snprintf(detail, sizeof detail, "not a whole number of %s", q->base);
            return fail(q, s, detail, why, why_len);
        }
        v /= div;
    }
    if (v > (u128)UINT64_MAX)
        return fail(q, s, "too large", why, why_len);
    *out = (uint64_t)v;
    return true;
}

bool units_rate(const char *s, uint64_t *bps, char *why, size_t why_len)
{
    return parse_qty(&Q_RATE, s, bps, why, why_len);
}

bool units_time(const char *s, uint64_t *ps, char *why, size_t why_len)
{
    return parse_qty(&Q_TIME, s, ps, why, why_len);
}

bool units_size(const char *s, uint64_t *bytes, char *why, size_t why_len)
{
    return parse_qty(&Q_SIZE, s, bytes, why, why_len);
}

bool units_length(const char *s, uint64_t *mm, char *why, size_t why_len)
{
    return parse_qty(&Q_LENGTH, s, mm, why, why_len);
}

static u128 gcd128(u128 a, u128 b)
{
    while (b) {
        u128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static bool ratio_fail(const char *s, const char *detail, char *why, size_t why_len)
{
    if (why && why_len) {
        char got[200];
        quote_into(got, sizeof got, s ? s : "");
        snprintf(why, why_len,
                 "expected a ratio like \"3:1\" or a number like 2.5, got \"%s\"%s%s%s", got,
                 detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
    }
    return false;
}

/*
 * "A:B" (each a decimal, e.g. "1.5:1") or a single decimal X meaning X:1. The result is reduced
 * to lowest terms (6:2 -> 3:1, 2.5 -> 5:2); both parts must be positive and fit in uint32.
 */
bool units_ratio(const char *s, uint32_t *num, uint32_t *den, char *why, size_t why_len)
{
    const char *p = s ? s : "";
    while (is_blank(*p))
        p++;
    if (*p == '-')
        return ratio_fail(s, "must not be negative", why, why_len);
    u128 a, b = 1;
    unsigned fa, fb = 0;
    if (!parse_decimal(&p, &a, &fa))
        return ratio_fail(s, NULL, why, why_len);
    while (is_blank(*p))
        p++;
    if (*p == ':') {
        p++;
        while (is_blank(*p))
            p++;
        if (*p == '-')
            return ratio_fail(s, "must not be negative", why, why_len);
        if (!parse_decimal(&p, &b, &fb))
            return ratio_fail(s, NULL, why, why_len);
        while (is_blank(*p))
            p++;
    }
    if (*p != '\0')
        return ratio_fail(s, NULL, why, why_len);
    if (fa > 30 || fb > 30)
        return ratio_fail(s, "too many decimals", why, why_len);
    /* a/10^fa : b/10^fb  ==  a*10^fb : b*10^fa. Mantissas are < 10^31, so scale carefully. */
    unsigned scale_a = fb, scale_b = fa;
    unsigned common = scale_a < scale_b ? scale_a : scale_b;
    scale_a -= common;
    scale_b -= common;
    for (; scale_a; scale_a--) {
        if (a > (u128)UINT64_MAX * 1000)
            return ratio_fail(s, "too large", why, why_len);
        a *= 10;
    }
    for (; scale_b; scale_b--) {
        if (b > (u128)UINT64_MAX * 1000)
            return ratio_fail(s, "too large", why, why_len);
        b *= 10;
    }
    if (a == 0 || b == 0)
        return ratio_fail(s, "both parts must be positive", why, why_len);
    u128 g = gcd128(a, b);
    a /= g;
    b /= g;
    if (a > UINT32_MAX || b > UINT32_MAX)
        return ratio_fail(s, "too large", why, why_len);
    *num = (uint32_t)a;
    *den = (uint32_t)b;
    return true;
}
