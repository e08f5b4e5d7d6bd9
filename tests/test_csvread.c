/*
 * test_csvread.c — the RFC 4180 reader of `wirerate report`: quoted fields with commas, doubled
 * quotes, CR LF and LF line ends, quoted line breaks (which must not split the record, and must
 * count toward the line numbers of later records), and malformed input refused with a reason.
 */
#include <string.h>

#include "report/csvread.h"
#include "testlib.h"

/* Read all records of `s`; returns the count, or -1 at the first error. */
static int count_records(const char *s, size_t len)
{
    csv_reader r;
    csv_init(&r, s, len);
    int n = 0, k;
    while ((k = csv_next(&r)) > 0)
        n++;
    csv_free(&r);
    return k < 0 ? -1 : n;
}

static void test_plain_and_crlf(void)
{
    const char s[] = "a,b,c\r\n1,,3\n\nlast";
    csv_reader r;
    csv_init(&r, s, strlen(s));
    CHECK(csv_next(&r) == 3);
    CHECK_STR(csv_field(&r, 0), "a");
    CHECK_STR(csv_field(&r, 2), "c");
    CHECK_EQ_U64(csv_line(&r), 1);
    CHECK(csv_next(&r) == 3);
    CHECK_STR(csv_field(&r, 1), "");
    CHECK_STR(csv_field(&r, 2), "3");
    CHECK_STR(csv_field(&r, 7), ""); /* out of range */
    CHECK_EQ_U64(csv_line(&r), 2);
    CHECK(csv_next(&r) == 1); /* the empty line: one empty field */
    CHECK_STR(csv_field(&r, 0), "");
    CHECK(csv_next(&r) == 1); /* no final line break */
    CHECK_STR(csv_field(&r, 0), "last");
    CHECK_EQ_U64(csv_line(&r), 4);
    CHECK(csv_next(&r) == 0);
    CHECK(csv_next(&r) == 0);
    csv_free(&r);
}

static void test_quotes(void)
{
    /* RFC 4180 §2.6 and §2.7: commas, CR LF and doubled quotes inside quotes */
    const char s[] = "job,src\r\n\"a,b\",1\r\n\"say \"\"hi\"\"\",2\r\n\"two\r\nlines\",3\r\n"
                     "\"\",4\nx,\"tail\"";
    csv_reader r;
    csv_init(&r, s, strlen(s));
    CHECK(csv_next(&r) == 2);
    CHECK(csv_next(&r) == 2);
    CHECK_STR(csv_field(&r, 0), "a,b");
    CHECK_STR(csv_field(&r, 1), "1");
    CHECK(csv_next(&r) == 2);
    CHECK_STR(csv_field(&r, 0), "say \"hi\"");
    CHECK(csv_next(&r) == 2);
    CHECK_STR(csv_field(&r, 0), "two\r\nlines"); /* the line break stays in the field */
    CHECK_STR(csv_field(&r, 1), "3");
    CHECK_EQ_U64(csv_line(&r), 4);
    CHECK(csv_next(&r) == 2);
    CHECK_STR(csv_field(&r, 0), "");
    CHECK_STR(csv_field(&r, 1), "4");
    CHECK_EQ_U64(csv_line(&r), 6); /* the quoted break counted as a physical line */
    CHECK(csv_next(&r) == 2);
    CHECK_STR(csv_field(&r, 1), "tail");
    CHECK(csv_next(&r) == 0);
    csv_free(&r);
}

/* The bug this reader replaces: a quoted newline in a job name shifted every later row. */
static void test_quoted_newline_keeps_rows(void)
{
    const char s[] = "job,start_ps,end_ps\n\"evil\njob,9,9\",10,20\nok,30,40\n";
    csv_reader r;
    csv_init(&r, s, strlen(s));
    CHECK(csv_next(&r) == 3);
    CHECK(csv_next(&r) == 3);
    CHECK_STR(csv_field(&r, 0), "evil\njob,9,9");
    CHECK_STR(csv_field(&r, 1), "10");
    CHECK(csv_next(&r) == 3);
    CHECK_STR(csv_field(&r, 0), "ok");
    CHECK_STR(csv_field(&r, 2), "40");
    CHECK_EQ_U64(csv_line(&r), 4);
    CHECK(csv_next(&r) == 0);
    csv_free(&r);
}

static void test_malformed(void)
{
    csv_reader r;
    const char unterminated[] = "a,\"open\nb";
    csv_init(&r, unterminated, strlen(unterminated));
    CHECK(csv_next(&r) == -1);
    CHECK(strstr(csv_error(&r), "unterminated") != NULL);
    CHECK_EQ_U64(csv_line(&r), 1);
    CHECK(csv_next(&r) == 0); /* stays stopped */
    csv_free(&r);

    CHECK(count_records("\"a\"b,c\n", 7) == -1); /* text after the closing quote */
    const char nul[] = "a,b\nc\0d,e\n";
    CHECK(count_records(nul, sizeof nul - 1) == -1);
    char wide[CSV_MAX_FIELDS * 2 + 8];
    memset(wide, ',', sizeof wide);
    CHECK(count_records(wide, sizeof wide) == -1); /* too many fields */
    /* lenient: a quote inside an unquoted field is text */
    csv_init(&r, "ab\"c,d", 6);
    CHECK(csv_next(&r) == 2);
    CHECK_STR(csv_field(&r, 0), "ab\"c");
    csv_free(&r);
    CHECK(count_records("", 0) == 0);
    CHECK(count_records("\r\n", 2) == 1);
}

int main(void)
{
    TEST_RUN(test_plain_and_crlf);
    TEST_RUN(test_quotes);
    TEST_RUN(test_quoted_newline_keeps_rows);
    TEST_RUN(test_malformed);
    return tl_finish();
}
