/*
 * csvread.h — an RFC 4180 CSV reader for the files `wirerate report` reads back (flows.csv,
 * ports.csv, timeseries.csv, dcqcn_rates.csv), which may come from anywhere: hand-edited, cut
 * short, or hostile.
 *
 * RFC 4180 §2: records end with CRLF (LF alone is accepted, as every Unix tool writes it);
 * fields are separated by commas; a field that starts with a double quote runs to the matching
 * closing quote and may contain commas, CR, LF and doubled quotes ("" = one quote). Quotes are
 * parsed while the record is scanned, never after splitting lines, so a quoted line break stays
 * inside its field. Leniencies, each chosen so real producers keep working: a quote inside an
 * unquoted field is literal text; a final record without a line break is a record.
 *
 * Errors (the reader stops at the first): an unterminated quoted field, text after a closing
 * quote other than a comma or line break, a NUL byte (binary data), more than CSV_MAX_FIELDS
 * fields, a field longer than CSV_MAX_FIELD bytes. csv_next returns -1 and csv_error() says
 * which, with the physical line where the record started (csv_line()).
 */
#ifndef WR_REPORT_CSVREAD_H
#define WR_REPORT_CSVREAD_H

#include <stddef.h>
#include <stdint.h>

#define CSV_MAX_FIELDS 256
#define CSV_MAX_FIELD (1u << 20)

typedef struct csv_reader {
    const char *p, *end;    /* borrowed input */
    uint64_t line;          /* physical line (1-based) of the next unread byte */
    uint64_t rec_line;      /* line where the last record returned started */
    char *text;             /* unescaped field text of the current record, NUL-separated */
    size_t text_cap;
    size_t off[CSV_MAX_FIELDS];
    int nf;
    char why[96];
} csv_reader;

/* Start reading data[0..len) (borrowed; need not be NUL-terminated). */
void csv_init(csv_reader *r, const char *data, size_t len);
/* Next record: returns its field count (>= 1; an empty line is one empty field), 0 at the end
 * of the input, -1 on malformed input (csv_error). Fields stay valid until the next call. */
int csv_next(csv_reader *r);
/* Field i of the current record, NUL-terminated; "" when i is out of range. */
const char *csv_field(const csv_reader *r, int i);
uint64_t csv_line(const csv_reader *r);
const char *csv_error(const csv_reader *r);
void csv_free(csv_reader *r);

#endif
