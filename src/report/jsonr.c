/*
 * jsonr.c — recursive-descent JSON reader (jsonr.h). Values and strings come from a chunked
 * bump allocator owned by the document, freed at once by jsonr_free.
 */
#include "jsonr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    char data[];
} chunk;

struct jsonr_doc {
    chunk *mem;
    jsonr_val *root;
};

typedef struct parser {
    const char *s;
    size_t len, pos;
    jsonr_doc *d;
    const char *err;
    int depth;
} parser;

static void *bump(jsonr_doc *d, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!d->mem || d->mem->used + n > d->mem->cap) {
        size_t cap = n > 65536 ? n : 65536;
        chunk *c = xmalloc(sizeof(chunk) + cap, "json reader");
        c->next = d->mem;
        c->used = 0;
        c->cap = cap;
        d->mem = c;
    }
    void *p = d->mem->data + d->mem->used;
    d->mem->used += n;
    return p;
}

static void ws(parser *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
}

static int fail(parser *p, const char *msg)
{
    if (!p->err)
        p->err = msg;
    return -1;
}

static int hex4(parser *p, unsigned *out)
{
    if (p->pos + 4 > p->len)
        return fail(p, "truncated \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(p, "bad hex digit in \\u escape");
    }
    *out = v;
    return 0;
}

static char *string(parser *p)
{
    p->pos++; /* opening quote */
    size_t start = p->pos;
    /* unescaped length is at most the raw length */
    size_t end = start;
    while (end < p->len && p->s[end] != '"') {
        if (p->s[end] == '\\')
            end++;
        end++;
    }
    if (end >= p->len) {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = bump(p->d, end - start + 1), *o = out;
    while (p->pos < end) {
        char c = p->s[p->pos++];
        if ((unsigned char)c < 0x20) {
            fail(p, "control character in string");
            return NULL;
        }
        if (c != '\\') {
            *o++ = c;
            continue;
        }
        char e = p->s[p->pos++];
        switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp;
            if (hex4(p, &cp))
                return NULL;
            if (cp >= 0xD800 && cp < 0xDC00 && p->pos + 6 <= end && p->s[p->pos] == '\\' &&
                p->s[p->pos + 1] == 'u') {
                unsigned lo;
                p->pos += 2;
                if (hex4(p, &lo))
                    return NULL;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            /* at most 4 bytes of UTF-8 from 6+ bytes of escape: fits in place */
            if (cp < 0x80) {
                *o++ = (char)cp;
            } else if (cp < 0x800) {
                *o++ = (char)(0xC0 | cp >> 6);
                *o++ = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                *o++ = (char)(0xE0 | cp >> 12);
                *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
                *o++ = (char)(0x80 | (cp & 0x3F));
            } else {
                *o++ = (char)(0xF0 | cp >> 18);
                *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
                *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
                *o++ = (char)(0x80 | (cp & 0x3F));
            }
            break;
        }
        default: fail(p, "bad escape in string"); return NULL;
        }
    }
    *o = '\0';
    p->pos = end + 1;
    return out;
}

static jsonr_val *value(parser *p);

static jsonr_val *container(parser *p, bool obj)
{
    jsonr_val *v = bump(p->d, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = obj ? JR_OBJ : JR_ARR;
    if (++p->depth > JSONR_MAX_DEPTH) {
        fail(p, "nesting too deep");
        return NULL;
    }
    p->pos++;
    ws(p);
    jsonr_val **tail = &v->child;
    if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
        p->pos++;
        p->depth--;
        return v;
    }
    for (;;) {
        char *key = NULL;
        ws(p);
        if (obj) {
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                fail(p, "expected a member name");
                return NULL;
            }
            if (!(key = string(p)))
                return NULL;
            ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                fail(p, "expected ':'");
                return NULL;
            }
            p->pos++;
        }
        jsonr_val *c = value(p);
        if (!c)
            return NULL;
        c->key = key;
        *tail = c;
        tail = &c->next;
        v->n++;
        ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
            p->pos++;
            p->depth--;
            return v;
        }
        fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
    }
}

static jsonr_val *value(parser *p)
{
    ws(p);
    if (p->pos >= p->len) {
        fail(p, "unexpected end of input");
        return NULL;
    }
    char c = p->s[p->pos];
    if (c == '{' || c == '[')
        return container(p, c == '{');
    jsonr_val *v = bump(p->d, sizeof *v);
    memset(v, 0, sizeof *v);
    if (c == '"') {
        v->type = JR_STR;
        v->str = string(p);
        return v->str ? v : NULL;
    }
    static const struct {
        const char *lit;
        enum jsonr_type t;
        bool b;
    } lits[] = {{"true", JR_BOOL, true}, {"false", JR_BOOL, false}, {"null", JR_NULL, false}};
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(lits[i].lit);
        if (p->len - p->pos >= l && memcmp(p->s + p->pos, lits[i].lit, l) == 0) {
            p->pos += l;
            v->type = lits[i].t;
            v->b = lits[i].b;
            return v;
        }
    }
    /* number: validate the RFC 8259 grammar, then convert */
    size_t st = p->pos, q = p->pos;
    bool integer = true;
    if (q < p->len && p->s[q] == '-')
        q++;
    if (q >= p->len || p->s[q] < '0' || p->s[q] > '9') {
        fail(p, "unexpected character");
        return NULL;
    }
    if (p->s[q] == '0')
        q++;
    else
        while (q < p->len && p->s[q] >= '0' && p->s[q] <= '9')
            q++;
    if (q < p->len && p->s[q] == '.') {
        integer = false;
        q++;
        if (q >= p->len || p->s[q] < '0' || p->s[q] > '9') {
            fail(p, "digit expected after '.'");
            return NULL;
        }
        while (q < p->len && p->s[q] >= '0' && p->s[q] <= '9')
            q++;
    }
    if (q < p->len && (p->s[q] == 'e' || p->s[q] == 'E')) {
        integer = false;
        q++;
        if (q < p->len && (p->s[q] == '+' || p->s[q] == '-'))
            q++;
        if (q >= p->len || p->s[q] < '0' || p->s[q] > '9') {
            fail(p, "digit expected in exponent");
            return NULL;
        }
        while (q < p->len && p->s[q] >= '0' && p->s[q] <= '9')
            q++;
    }
    char buf[64];
    size_t l = q - st < sizeof buf - 1 ? q - st : sizeof buf - 1;
    memcpy(buf, p->s + st, l);
    buf[l] = '\0';
    v->type = JR_NUM;
    v->num = strtod(buf, NULL);
    if (integer && buf[0] != '-') {
        uint64_t u = 0;
        bool ok = true;
        for (size_t i = 0; i < l; i++) {
            uint64_t d = (uint64_t)(buf[i] - '0');
            if (u > (UINT64_MAX - d) / 10) {
                ok = false;
                break;
            }
            u = u * 10 + d;
        }
        v->is_u64 = ok;
        v->u64 = ok ? u : 0;
    }
    p->pos = q;
    return v;
}

jsonr_doc *jsonr_parse(const char *text, size_t len, size_t *err_off, char *err_msg,
                       size_t msg_len)
{
    jsonr_doc *d = xcalloc(1, sizeof *d, "json document");
    parser p = {text, len, 0, d, NULL, 0};
    d->root = value(&p);
    if (d->root) {
        ws(&p);
        if (p.pos != len)
            fail(&p, "trailing characters after the document");
    }
    if (p.err) {
        if (err_off)
            *err_off = p.pos;
        if (err_msg && msg_len)
            snprintf(err_msg, msg_len, "%s", p.err);
        jsonr_free(d);
        return NULL;
    }
    return d;
}

const jsonr_val *jsonr_root(const jsonr_doc *d) { return d->root; }

void jsonr_free(jsonr_doc *d)
{
    if (!d)
        return;
    for (chunk *c = d->mem, *n; c; c = n) {
        n = c->next;
        xfree(c);
    }
    xfree(d);
}

const jsonr_val *jsonr_get(const jsonr_val *v, const char *key)
{
    if (!v || v->type != JR_OBJ)
        return NULL;
    for (const jsonr_val *c = v->child; c; c = c->next)
        if (strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

const jsonr_val *jsonr_path(const jsonr_val *v, const char *path)
{
    char part[64];
    while (v && *path) {
        const char *dot = strchr(path, '.');
        size_t l = dot ? (size_t)(dot - path) : strlen(path);
        if (l >= sizeof part)
            return NULL;
        memcpy(part, path, l);
        part[l] = '\0';
        v = jsonr_get(v, part);
        path += l + (dot ? 1 : 0);
    }
    return v;
}

double jsonr_num(const jsonr_val *v, const char *path, double dflt)
{
    const jsonr_val *x = jsonr_path(v, path);
    return x && x->type == JR_NUM ? x->num : dflt;
}

uint64_t jsonr_u64(const jsonr_val *v, const char *path, uint64_t dflt)
{
    const jsonr_val *x = jsonr_path(v, path);
    if (!x || x->type != JR_NUM)
        return dflt;
    /* A double at or above 2^64 (or NaN) has no uint64 value: casting it would be undefined. */
    return x->is_u64                                        ? x->u64
           : x->num > 0 && x->num < 18446744073709551616.0 ? (uint64_t)x->num
                                                            : 0;
}

const char *jsonr_str(const jsonr_val *v, const char *path, const char *dflt)
{
    const jsonr_val *x = jsonr_path(v, path);
    return x && x->type == JR_STR ? x->str : dflt;
}
