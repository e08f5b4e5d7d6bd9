/*
 * test_jsonw.c — the JSON writer: escaping, exact integers, deterministic doubles (null for
 * non-finite), nesting and pretty-printing. Output is captured with tmpfile() and compared byte
 * for byte, because summary.json's bytes are what the golden and determinism tests compare.
 */
#include <math.h>
#include <stdlib.h>

#include "report/jsonw.h"
#include "testlib.h"

static char out[4096];

/* Rewind f, read it into `out`, close it. */
static const char *slurp(FILE *f)
{
    rewind(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    fclose(f);
    return out;
}

static void test_escaping(void)
{
    FILE *f = tmpfile();
    jsonw_escape(f, "a\"b\\c\n\t\r\b\f\x01\x1f\x7f/µs");
    CHECK_STR(slurp(f), "\"a\\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f/µs\"");

    f = tmpfile();
    jsonw_escape(f, "");
    CHECK_STR(slurp(f), "\"\"");
}

static void test_integers(void)
{
    FILE *f = tmpfile();
    jsonw w;
    jsonw_init(&w, f, false);
    jsonw_arr_begin(&w);
    jsonw_u64(&w, 0);
    jsonw_u64(&w, UINT64_MAX);
    jsonw_u64(&w, 9007199254740993ULL); /* 2^53 + 1: not representable as a double */
    jsonw_i64(&w, INT64_MIN);
    jsonw_i64(&w, -1);
    jsonw_arr_end(&w);
    jsonw_end(&w);
    CHECK_STR(slurp(f), "[0,18446744073709551615,9007199254740993,-9223372036854775808,-1]");
}

static void test_doubles(void)
{
    FILE *f = tmpfile();
    jsonw w;
    jsonw_init(&w, f, false);
    jsonw_arr_begin(&w);
    jsonw_double(&w, 0.0);
    jsonw_double(&w, -0.0);
    jsonw_double(&w, 1.5);
    jsonw_double(&w, 123.4567891);
    jsonw_double(&w, 1e6);
    jsonw_double(&w, 2.5e-7);
    jsonw_double(&w, -42.0);
    jsonw_double(&w, NAN);
    jsonw_double(&w, INFINITY);
    jsonw_double(&w, -INFINITY);
    jsonw_arr_end(&w);
    jsonw_end(&w);
    CHECK_STR(slurp(f), "[0,0,1.5,123.457,1e+06,2.5e-07,-42,null,null,null]");
}

static void test_nesting_compact(void)
{
    FILE *f = tmpfile();
    jsonw w;
    jsonw_init(&w, f, false);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "a");
    jsonw_obj_begin(&w);
    jsonw_key(&w, "b");
    jsonw_arr_begin(&w);
    jsonw_arr_begin(&w);
    jsonw_arr_end(&w);
    jsonw_obj_begin(&w);
    jsonw_obj_end(&w);
    jsonw_bool(&w, true);
    jsonw_null(&w);
    jsonw_str(&w, NULL);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    jsonw_key(&w, "k\"q");
    jsonw_str(&w, "v");
    jsonw_obj_end(&w);
    jsonw_end(&w);
    CHECK_STR(slurp(f), "{\"a\":{\"b\":[[],{},true,null,null]},\"k\\\"q\":\"v\"}");
}

static void test_pretty(void)
{
    FILE *f = tmpfile();
    jsonw w;
    jsonw_init(&w, f, true);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "tool");
    jsonw_str(&w, "wirerate");
    jsonw_key(&w, "jobs");
    jsonw_arr_begin(&w);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "n");
    jsonw_u64(&w, 1);
    jsonw_obj_end(&w);
    jsonw_arr_end(&w);
    jsonw_key(&w, "empty");
    jsonw_arr_begin(&w);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    jsonw_end(&w);
    CHECK_STR(slurp(f), "{\n"
                        "  \"tool\": \"wirerate\",\n"
                        "  \"jobs\": [\n"
                        "    {\n"
                        "      \"n\": 1\n"
                        "    }\n"
                        "  ],\n"
                        "  \"empty\": []\n"
                        "}\n");
}

static void test_top_level_scalar(void)
{
    FILE *f = tmpfile();
    jsonw w;
    jsonw_init(&w, f, false);
    jsonw_str(&w, "x");
    jsonw_end(&w);
    CHECK_STR(slurp(f), "\"x\"");
}

int main(void)
{
    TEST_RUN(test_escaping);
    TEST_RUN(test_integers);
    TEST_RUN(test_doubles);
    TEST_RUN(test_nesting_compact);
    TEST_RUN(test_pretty);
    TEST_RUN(test_top_level_scalar);
    return tl_finish();
}
