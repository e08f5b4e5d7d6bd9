/*
 * tree.c — libyaml events folded into a positioned node tree, and `--set` overrides on it.
 *
 * The builder is iterative (an explicit stack, at most CFG_MAX_DEPTH deep) so hostile input
 * cannot exhaust the C stack, and it allocates only from the caller's arena plus libyaml's own
 * state, which is always released before returning. Child arrays grow by doubling inside the
 * arena; the abandoned halves are a bounded waste (under 2x) on a structure that lives only until
 * the network is built.
 */
#include "tree.h"

#include <stdio.h>
#include <string.h>
#include <yaml.h>

#define CFG_MAX_DEPTH 64
#define PATH_MAX_LEN 512

static cfg_node *new_node(arena *a, cfg_kind kind, const char *src, int line, int col)
{
    cfg_node *n = ARENA_NEW(a, cfg_node);
    n->kind = kind;
    n->src = src;
    n->line = line;
    n->col = col;
    if (kind == CFG_SCALAR)
        n->str = "";
    return n;
}

static void grow(arena *a, cfg_node *n)
{
    if (n->n < n->cap)
        return;
    uint32_t cap = n->cap ? n->cap * 2 : 4;
    cfg_node **vals = ARENA_NEW_ARRAY(a, cfg_node *, cap);
    if (n->n)
        memcpy(vals, n->vals, sizeof *vals * n->n);
    n->vals = vals;
    if (n->kind == CFG_MAP) {
        cfg_node **keys = ARENA_NEW_ARRAY(a, cfg_node *, cap);
        if (n->n)
            memcpy(keys, n->keys, sizeof *keys * n->n);
        n->keys = keys;
    }
    n->cap = cap;
}

static void seq_append(arena *a, cfg_node *seq, cfg_node *v)
{
    grow(a, seq);
    seq->vals[seq->n++] = v;
}

static void map_append(arena *a, cfg_node *map, cfg_node *k, cfg_node *v)
{
    grow(a, map);
    map->keys[map->n] = k;
    map->vals[map->n] = v;
    map->n++;
}

static int map_index(const cfg_node *map, const char *key, size_t len)
{
    for (uint32_t i = 0; i < map->n; i++) {
        const cfg_node *k = map->keys[i];
        if (k->len == len && memcmp(k->str, key, len) == 0)
            return (int)i;
    }
    return -1;
}

cfg_node *cfg_map_get(const cfg_node *map, const char *key, cfg_node **key_node)
{
    if (!map || map->kind != CFG_MAP)
        return NULL;
    int i = map_index(map, key, strlen(key));
    if (i < 0)
        return NULL;
    if (key_node)
        *key_node = map->keys[i];
    return map->vals[i];
}

bool cfg_is_null(const cfg_node *n)
{
    if (!n || n->kind != CFG_SCALAR || n->quoted)
        return false;
    return n->len == 0 || strcmp(n->str, "~") == 0 || strcmp(n->str, "null") == 0 ||
           strcmp(n->str, "Null") == 0 || strcmp(n->str, "NULL") == 0;
}

const char *cfg_kind_name(cfg_kind k)
{
    switch (k) {
    case CFG_MAP:
        return "a mapping";
    case CFG_SEQ:
        return "a sequence";
    default:
        return "a scalar";
    }
}

/* --- building from libyaml events ---------------------------------------------------------- */

typedef struct builder {
    arena *a;
    const char *src;
    const char *buf;
    size_t len;
    int line_fixed; /* > 0: every node gets this line (overrides) */
    int col_base;   /* added to columns on the first line (overrides) */
    err *e;
    const char *prefix; /* path of the value being built (the override's key), or NULL */
} builder;

static void mark_pos(const builder *b, size_t line0, size_t col0, int *line, int *col)
{
    if (b->line_fixed > 0) {
        /* An override is one line; a mark past it (end of input) points just after the value. */
        *line = b->line_fixed;
        if (line0 > 0) {
            size_t chars = 0;
            for (size_t i = 0; i < b->len; i++)
                chars += ((unsigned char)b->buf[i] & 0xC0) != 0x80;
            col0 = chars;
        }
        *col = b->col_base + (int)(col0 > 100000000 ? 100000000 : col0) + 1;
    } else {
        *line = (int)(line0 > 100000000 ? 100000000 : line0) + 1;
        *col = (int)(col0 > 100000000 ? 100000000 : col0) + 1;
    }
}

/* The byte at 0-based (line, column-in-characters) of the input, or -1. For the tab hint only. */
static int byte_at(const builder *b, size_t line0, size_t col0)
{
    size_t i = 0;
    for (size_t l = 0; l < line0 && i < b->len; i++)
        if (b->buf[i] == '\n')
            l++;
    for (size_t c = 0; c < col0 && i < b->len; c++) {
        i++;
        while (i < b->len && ((unsigned char)b->buf[i] & 0xC0) == 0x80)
            i++;
    }
    return i < b->len ? (unsigned char)b->buf[i] : -1;
}

static int syntax_error(builder *b, yaml_parser_t *p)
{
    int line, col;
    if (p->error == YAML_MEMORY_ERROR)
        return err_set(b->e, ERR_INVALID, b->src, 0, 0, "invalid YAML: out of memory");
    if (p->error == YAML_READER_ERROR) {
        /* problem_offset is a byte offset: turn it into line:col ourselves. */
        size_t off = p->problem_offset < b->len ? p->problem_offset : b->len;
        size_t l = 0, c = 0;
        for (size_t i = 0; i < off; i++) {
            if (b->buf[i] == '\n') {
                l++;
                c = 0;
            } else if (((unsigned char)b->buf[i] & 0xC0) != 0x80) {
                c++;
            }
        }
        mark_pos(b, l, c, &line, &col);
        return err_set(b->e, ERR_INVALID, b->src, line, col, "invalid YAML: %s",
                       p->problem ? p->problem : "unreadable input");
    }
    mark_pos(b, p->problem_mark.line, p->problem_mark.column, &line, &col);
    const char *hint = "";
    if (byte_at(b, p->problem_mark.line, p->problem_mark.column) == '\t')
        hint = " (a tab: YAML indentation must use spaces)";
    if (p->context && (p->context_mark.line != p->problem_mark.line ||
                       p->context_mark.column != p->problem_mark.column)) {
        int cl, cc;
        mark_pos(b, p->context_mark.line, p->context_mark.column, &cl, &cc);
        return err_set(b->e, ERR_INVALID, b->src, line, col, "invalid YAML: %s%s (%s at %d:%d)",
                       p->problem ? p->problem : "syntax error", hint, p->context, cl, cc);
    }
    return err_set(b->e, ERR_INVALID, b->src, line, col, "invalid YAML: %s%s",
                   p->problem ? p->problem : "syntax error", hint);
}

/* The display path ("fabric.host_link", "workload[1].size") of key `k` in the open mapping. */
static void key_path(const builder *b, cfg_node *const *stack, int depth, const cfg_node *k,
                     char *dst, size_t cap)
{
    size_t o = 0;
    dst[0] = '\0';
    if (b->prefix)
        o = (size_t)snprintf(dst, cap, "%s", b->prefix);
    /* Every open container but the innermost is the last child of its parent. */
    for (int i = 0; i < depth - 1 && o < cap; i++) {
        const cfg_node *c = stack[i];
        if (c->kind == CFG_SEQ)
            o += (size_t)snprintf(dst + o, cap - o, "[%u]", c->n - 1);
        else
            o +=
                (size_t)snprintf(dst + o, cap - o, "%s%.60s", o ? "." : "", c->keys[c->n - 1]->str);
    }
    if (o < cap)
        snprintf(dst + o, cap - o, "%s%.60s", o ? "." : "", k->str);
}

/* Attach `n` to the open collection on top of the stack (or make it the root). */
static int attach(builder *b, cfg_node **stack, cfg_node **pending, int depth, cfg_node **root,
                  cfg_node *n)
{
    if (depth == 0) {
        *root = n;
        return ERR_OK;
    }
    cfg_node *top = stack[depth - 1];
    if (top->kind == CFG_SEQ) {
        seq_append(b->a, top, n);
        return ERR_OK;
    }
    cfg_node **key = &pending[depth - 1];
    if (!*key) {
        if (n->kind != CFG_SCALAR)
            return err_set(b->e, ERR_INVALID, n->src, n->line, n->col,
                           "expected a plain key, got %s as a mapping key", cfg_kind_name(n->kind));
        int dup = map_index(top, n->str, n->len);
        if (dup >= 0) {
            char path[320];
            key_path(b, stack, depth, n, path, sizeof path);
            const cfg_node *first = top->keys[dup];
            if (first->src == n->src && b->line_fixed == 0)
                return err_set(b->e, ERR_INVALID, n->src, n->line, n->col,
                               "%s: duplicate key (first at line %d)", path, first->line);
            return err_set(b->e, ERR_INVALID, n->src, n->line, n->col, "%s: duplicate key", path);
        }
        *key = n;
        return ERR_OK;
    }
    map_append(b->a, top, *key, n);
    *key = NULL;
    return ERR_OK;
}

static int check_props(builder *b, const yaml_char_t *anchor, const yaml_char_t *tag, int line,
                       int col)
{
    if (anchor)
        return err_set(b->e, ERR_INVALID, b->src, line, col,
                       "YAML anchors and aliases are not supported; write the value out");
    if (tag)
        return err_set(b->e, ERR_INVALID, b->src, line, col,
                       "YAML tags (!...) are not supported; write the plain value");
    return ERR_OK;
}

/* Fold the event stream of buf into *root (NULL when there is no document). */
static int build(builder *b, cfg_node **root)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    cfg_node *stack[CFG_MAX_DEPTH];
    cfg_node *pending[CFG_MAX_DEPTH];
    int depth = 0, docs = 0, rc = ERR_OK;
    bool done = false;

    *root = NULL;
    if (!yaml_parser_initialize(&parser))
        return err_set(b->e, ERR_INVALID, b->src, 0, 0, "invalid YAML: out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)b->buf, b->len);

    while (!done && rc == ERR_OK) {
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = syntax_error(b, &parser);
            break;
        }
        int line, col;
        mark_pos(b, ev.start_mark.line, ev.start_mark.column, &line, &col);
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc = err_set(b->e, ERR_INVALID, b->src, line, col,
                             "a scenario is a single YAML document; found a second one here");
            break;
        case YAML_ALIAS_EVENT:
            rc = err_set(b->e, ERR_INVALID, b->src, line, col,
                         "YAML anchors and aliases are not supported; write the value out");
            break;
        case YAML_SCALAR_EVENT: {
            rc = check_props(b, ev.data.scalar.anchor, ev.data.scalar.tag, line, col);
            if (rc)
                break;
            size_t n = ev.data.scalar.length;
            if (memchr(ev.data.scalar.value, '\0', n)) {
                rc = err_set(b->e, ERR_INVALID, b->src, line, col,
                             "a NUL character is not allowed in a value");
                break;
            }
            cfg_node *s = new_node(b->a, CFG_SCALAR, b->src, line, col);
            char *str = arena_alloc(b->a, n + 1);
            memcpy(str, ev.data.scalar.value, n);
            s->str = str;
            s->len = n;
            s->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            rc = attach(b, stack, pending, depth, root, s);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            bool is_map = ev.type == YAML_MAPPING_START_EVENT;
            rc = check_props(
                b, is_map ? ev.data.mapping_start.anchor : ev.data.sequence_start.anchor,
                is_map ? ev.data.mapping_start.tag : ev.data.sequence_start.tag, line, col);
            if (rc)
                break;
            if (depth == CFG_MAX_DEPTH) {
                rc = err_set(b->e, ERR_INVALID, b->src, line, col, "nesting deeper than %d levels",
                             CFG_MAX_DEPTH);
                break;
            }
            cfg_node *c = new_node(b->a, is_map ? CFG_MAP : CFG_SEQ, b->src, line, col);
            rc = attach(b, stack, pending, depth, root, c);
            if (rc)
                break;
            stack[depth] = c;
            pending[depth] = NULL;
            depth++;
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0)
                depth--;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int cfg_tree_parse(arena *a, const char *file, const char *buf, size_t len, cfg_tree **out, err *e)
{
    builder b = {a, file, buf, len, 0, 0, e, NULL};
    cfg_tree *t = ARENA_NEW(a, cfg_tree);
    t->file = file;
    int rc = build(&b, &t->root);
    if (rc)
        return rc;
    *out = t;
    return ERR_OK;
}

/* --- paths ---------------------------------------------------------------------------------- */

/* "workload[1].size" -> "workload.1.size" into dst; false if it does not fit or is malformed. */
static bool normalize_path(const char *path, char *dst, size_t cap)
{
    size_t o = 0;
    for (const char *p = path; *p; p++) {
        char c = *p;
        if (c == '[') {
            c = '.';
        } else if (c == ']') {
            if (p[1] && p[1] != '.' && p[1] != '[')
                return false;
            continue;
        }
        if (o + 1 >= cap)
            return false;
        dst[o++] = c;
    }
    dst[o] = '\0';
    return true;
}

/* Split the normalized path in place into segments; false on an empty segment. */
static int split_path(char *p, char **segs, int max)
{
    int n = 0;
    if (!*p)
        return -1;
    for (;;) {
        if (n == max)
            return -1;
        segs[n++] = p;
        char *dot = strchr(p, '.');
        if (!dot)
            break;
        *dot = '\0';
        p = dot + 1;
    }
    for (int i = 0; i < n; i++)
        if (!*segs[i])
            return -1;
    return n;
}

/* A sequence index: decimal digits only, no sign, fits in uint32. */
static bool seg_index(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return true;
}

cfg_node *cfg_tree_find(const cfg_tree *t, const char *path, cfg_node **key_node,
                        const cfg_node **deepest)
{
    char buf[PATH_MAX_LEN];
    char *segs[64];
    if (deepest)
        *deepest = t ? t->root : NULL;
    if (!t || !t->root || !path || !normalize_path(path, buf, sizeof buf))
        return NULL;
    int n = split_path(buf, segs, 64);
    if (n < 0)
        return NULL;
    cfg_node *cur = t->root, *k = NULL;
    for (int i = 0; i < n; i++) {
        cfg_node *next = NULL;
        if (cur->kind == CFG_MAP) {
            next = cfg_map_get(cur, segs[i], &k);
        } else if (cur->kind == CFG_SEQ) {
            uint32_t idx;
            if (seg_index(segs[i], &idx) && idx < cur->n) {
                next = cur->vals[idx];
                k = NULL;
            }
        }
        if (!next || cfg_is_null(next))
            return NULL;
        cur = next;
        if (deepest)
            *deepest = cur;
    }
    if (key_node)
        *key_node = k;
    return cur;
}

/* --- overrides ------------------------------------------------------------------------------ */

int cfg_tree_override(arena *a, cfg_tree *t, const char *key, const char *value, int index, err *e)
{
    const char *src = "--set";
    int line = index + 1;
    char buf[PATH_MAX_LEN];
    char *segs[64];
    int nseg = -1;
    if (!key)
        key = "";
    if (!value)
        value = "";
    if (normalize_path(key, buf, sizeof buf))
        nseg = split_path(buf, segs, 64);
    if (nseg < 0)
        return err_set(e, ERR_INVALID, src, line, 1,
                       "expected KEY=VALUE with a dotted KEY like fabric.host_link, got \"%.100s\"",
                       key);

    /* Parse the value first: its errors point at its own column. */
    builder b = {a, src, value, strlen(value), line, (int)strlen(key) + 1, e, key};
    cfg_node *v;
    int rc = build(&b, &v);
    if (rc)
        return rc;
    if (!v) /* an empty value: a null scalar, i.e. "use the default" */
        v = new_node(a, CFG_SCALAR, src, line, (int)strlen(key) + 2);

    if (!t->root || cfg_is_null(t->root))
        t->root = new_node(a, CFG_MAP, src, line, 1);
    cfg_node *cur = t->root;
    for (int i = 0; i < nseg; i++) {
        bool last = i == nseg - 1;
        const char *seg = segs[i];
        uint32_t idx = 0;
        bool numeric = !last && seg_index(segs[i + 1], &idx);
        cfg_node *next_fresh = last ? v : new_node(a, numeric ? CFG_SEQ : CFG_MAP, src, line, 1);
        if (cur->kind == CFG_MAP) {
            int at = map_index(cur, seg, strlen(seg));
            if (at >= 0) {
                cfg_node *old = cur->vals[at];
                if (last || cfg_is_null(old))
                    cur->vals[at] = next_fresh;
                else if (old->kind == CFG_SCALAR)
                    return err_set(e, ERR_INVALID, src, line, 1,
                                   "%.200s: cannot set \"%.100s\" inside a scalar value", key,
                                   segs[i + 1]);
            } else {
                cfg_node *kn = new_node(a, CFG_SCALAR, src, line, 1);
                kn->str = arena_strdup(a, seg);
                kn->len = strlen(seg);
                map_append(a, cur, kn, next_fresh);
                at = (int)cur->n - 1;
            }
            cur = cur->vals[at];
        } else if (cur->kind == CFG_SEQ) {
            if (!seg_index(seg, &idx))
                return err_set(e, ERR_INVALID, src, line, 1,
                               "%.200s: expected a list index at \"%.100s\"", key, seg);
            if (idx > cur->n)
                return err_set(e, ERR_INVALID, src, line, 1,
                               "%.200s: index %u is out of range (the list has %u item%s)", key,
                               idx, cur->n, cur->n == 1 ? "" : "s");
            if (idx == cur->n) {
                seq_append(a, cur, next_fresh);
            } else {
                cfg_node *old = cur->vals[idx];
                if (last || cfg_is_null(old))
                    cur->vals[idx] = next_fresh;
                else if (old->kind == CFG_SCALAR)
                    return err_set(e, ERR_INVALID, src, line, 1,
                                   "%.200s: cannot set \"%.100s\" inside a scalar value", key,
                                   segs[i + 1]);
            }
            cur = cur->vals[idx];
        } else {
            return err_set(e, ERR_INVALID, src, line, 1,
                           "%.200s: cannot set \"%.100s\" inside a scalar value", key, seg);
        }
    }
    return ERR_OK;
}
