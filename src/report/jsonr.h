/*
 * jsonr.h — a small JSON reader (RFC 8259) for reading back our own output (summary.json) in
 * `wirerate report`. Parses a whole document into a tree of values in one allocation pool;
 * lookups by key are linear (objects are small). Numbers are kept as double and, when they are
 * non-negative integers that fit, exactly as uint64 too (ps counters exceed 2^53). Strings are
 * unescaped (\uXXXX to UTF-8, surrogate pairs included).
 *
 * Not a general-purpose parser: depth is limited to JSONR_MAX_DEPTH; on malformed input
 * jsonr_parse returns NULL and says where (byte offset) and what.
 */
#ifndef WR_REPORT_JSONR_H
#define WR_REPORT_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONR_MAX_DEPTH 64

enum jsonr_type { JR_NULL, JR_BOOL, JR_NUM, JR_STR, JR_ARR, JR_OBJ };

typedef struct jsonr_val jsonr_val;
struct jsonr_val {
    enum jsonr_type type;
    bool b;
    double num;
    uint64_t u64;    /* exact value of a non-negative integer literal (else 0) */
    bool is_u64;
    char *str;       /* JR_STR: the string; in an object member: also its key via `key` */
    char *key;       /* member name when this value is inside an object */
    jsonr_val *child, *next; /* first element/member, next sibling */
    size_t n;        /* elements/members */
};

typedef struct jsonr_doc jsonr_doc;

/* Parse `len` bytes. Returns a new document or NULL; on NULL, *err_off and err_msg (room for
 * `msg_len` bytes) say where and why. */
jsonr_doc *jsonr_parse(const char *text, size_t len, size_t *err_off, char *err_msg,
                       size_t msg_len);
const jsonr_val *jsonr_root(const jsonr_doc *d);
void jsonr_free(jsonr_doc *d);

/* Member `key` of an object (NULL if v is not an object or has no such member). */
const jsonr_val *jsonr_get(const jsonr_val *v, const char *key);
/* Dotted path lookup: "fabric.drops.buffer_full". */
const jsonr_val *jsonr_path(const jsonr_val *v, const char *path);
/* Conveniences with a default when absent or of another type. */
double jsonr_num(const jsonr_val *v, const char *path, double dflt);
uint64_t jsonr_u64(const jsonr_val *v, const char *path, uint64_t dflt);
const char *jsonr_str(const jsonr_val *v, const char *path, const char *dflt);

#endif
