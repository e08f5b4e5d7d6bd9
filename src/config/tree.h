/*
 * tree.h — the scenario YAML as a tree of positioned nodes (scalar / mapping / sequence).
 *
 * libyaml's event stream is folded into nodes that remember where they came from: the source
 * name (the scenario file, or "--set" for a node created by an override) and a 1-based line and
 * column (libyaml marks are 0-based). For `--set` nodes, line is the 1-based index of the
 * override and column is the 1-based column in its "KEY=VALUE" text, so an error in an override
 * points into the command line the same way an error in the file points into the file.
 *
 * The tree is deliberately smaller than YAML: anchors, aliases and tags are rejected (a scenario
 * should read the same to a human and to the loader), mapping keys must be unique scalars, and a
 * file holds one document. Every node lives in the caller's arena; nothing here prints.
 */
#ifndef WR_CONFIG_TREE_H
#define WR_CONFIG_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"

typedef enum cfg_kind { CFG_SCALAR, CFG_MAP, CFG_SEQ } cfg_kind;

typedef struct cfg_node cfg_node;
struct cfg_node {
    cfg_kind kind;
    const char *src; /* file name as given, or "--set" */
    int line, col;   /* 1-based */
    /* scalar */
    const char *str; /* NUL-terminated (scalars containing NUL are rejected) */
    size_t len;
    bool quoted; /* single- or double-quoted, or a block literal */
    /* mapping: keys[i] -> vals[i]; sequence: vals[i] */
    uint32_t n, cap;
    cfg_node **keys;
    cfg_node **vals;
};

typedef struct cfg_tree {
    const char *file; /* source name for positions in the file */
    cfg_node *root;   /* NULL for an empty document */
} cfg_tree;

/*
 * Parse `len` bytes of YAML into a tree allocated in `a`. `file` is borrowed for the lifetime of
 * the arena (copy it there first). Returns ERR_OK, or ERR_INVALID with *e at the problem.
 */
int cfg_tree_parse(arena *a, const char *file, const char *buf, size_t len, cfg_tree **out, err *e);

/*
 * Apply one `--set KEY=VALUE` override (index is 0-based; positions report index+1). KEY is a
 * dotted path whose numeric segments index sequences ("workload.0.size", also "workload[0].size");
 * missing mapping keys are created, and index == length appends. VALUE is parsed as YAML (a
 * scalar or a flow collection such as "[3]" or "{a: 1}"). Errors: ERR_INVALID with file "--set".
 */
int cfg_tree_override(arena *a, cfg_tree *t, const char *key, const char *value, int index, err *e);

/* Value of `key` in mapping `map` (NULL if absent or `map` is not a mapping); *key_node gets the
 * key's node when non-NULL. */
cfg_node *cfg_map_get(const cfg_node *map, const char *key, cfg_node **key_node);

/*
 * Follow a dotted path ("fabric.leaf_radix", "workload.1.size" or "workload[1].size") from the
 * root. Returns the value node or NULL; *deepest gets the deepest node that exists on the path
 * (the root when nothing matches), for reporting an absent key near where it would go.
 */
cfg_node *cfg_tree_find(const cfg_tree *t, const char *path, cfg_node **key_node,
                        const cfg_node **deepest);

/* Plain empty, `~`, `null`, `Null` or `NULL`: the key is present but has no value. */
bool cfg_is_null(const cfg_node *n);
/* "a mapping", "a sequence", "a scalar" — for "expected X, got Y" messages. */
const char *cfg_kind_name(cfg_kind k);

#endif
