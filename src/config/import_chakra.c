/*
 * import_chakra.c — Chakra .et traces via protobuf-c (see import_chakra.h).
 *
 * The stream framing (a varint length before each message) is decoded here; each message is
 * handed to the protobuf-c code generated from proto/chakra_et.proto, and copied into the
 * trace's arena so the caller never sees protobuf-c types. Dependencies are resolved per rank
 * with a sorted id index; cycles are found with Kahn's algorithm (a node is ready when all its
 * dependencies are done; nodes never ready lie on or behind a cycle).
 */
#define _POSIX_C_SOURCE 200809L

#include "import_chakra.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

const char *chakra_type_name(enum chakra_type t)
{
    static const char *const n[CHAKRA_TYPES] = {"invalid",      "metadata",  "memory load",
                                                "memory store", "compute",   "send",
                                                "receive",      "collective"};
    return (unsigned)t < CHAKRA_TYPES ? n[t] : "unknown";
}

const char *chakra_coll_name(int c)
{
    static const char *const n[CHAKRA_COLL_TYPES] = {
        "all_reduce", "reduce",         "all_gather",           "gather", "scatter", "broadcast",
        "all_to_all", "reduce_scatter", "reduce_scatter_block", "barrier"};
    return c >= 0 && c < CHAKRA_COLL_TYPES ? n[c] : "unknown";
}

void chakra_free(chakra_trace *t)
{
    arena_free(&t->mem);
    memset(t, 0, sizeof *t);
}

#ifdef WR_HAVE_PROTOBUF_C

#include "chakra_et.pb-c.h"

bool chakra_available(void)
{
    return true;
}

static char *slurp(const char *path, size_t *len, err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(e, ERR_IO, path, 0, 0, "cannot open the trace: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = xmalloc(cap, "trace file");
    size_t got;
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            b = xrealloc(b, cap *= 2, "trace file");
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        err_set(e, ERR_IO, path, 0, 0, "cannot read the trace: %s", strerror(errno));
        xfree(b);
        return NULL;
    }
    *len = n;
    return b;
}

/* Next length-delimited message: false at the end; ERR_INVALID in *e when malformed. */
static bool next_msg(const uint8_t *b, size_t len, size_t *pos, const uint8_t **msg, size_t *n,
                     const char *file, err *e)
{
    if (*pos >= len)
        return false;
    uint64_t v = 0;
    size_t at = *pos;
    for (int shift = 0;; shift += 7) {
        if (*pos >= len || shift > 28) {
            err_set(e, ERR_INVALID, file, 0, 0,
                    "byte %zu: a truncated or oversized message length (not a Chakra .et file?)",
                    at);
            return false;
        }
        uint8_t c = b[(*pos)++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            break;
    }
    if (v > len - *pos) {
        err_set(e, ERR_INVALID, file, 0, 0,
                "byte %zu: a message of %" PRIu64 " bytes but only %zu remain (truncated file?)",
                at, v, len - *pos);
        return false;
    }
    *msg = b + *pos;
    *n = (size_t)v;
    *pos += (size_t)v;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* Index of node id in the sorted (id, index) pairs, or -1. */
static int64_t find(const uint64_t *pairs, uint32_t n, uint64_t id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pairs[2 * mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && pairs[2 * lo] == id ? (int64_t)pairs[2 * lo + 1] : -1;
}

static void copy_attrs(chakra_node *d, const ChakraProtoMsg__Node *s, arena *a)
{
    for (size_t i = 0; i < s->n_attr; i++) {
        const ChakraProtoMsg__AttributeProto *at = s->attr[i];
        int64_t iv = 0;
        bool is_int = true;
        switch (at->value_case) {
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
            iv = at->int32_val;
            break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
            iv = at->int64_val;
            break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
            iv = at->uint32_val;
            break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
            iv = at->uint64_val > INT64_MAX ? INT64_MAX : (int64_t)at->uint64_val;
            break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
            iv = at->sint32_val;
            break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
            iv = at->sint64_val;
            break;
        case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
            iv = at->bool_val;
            break;
        default:
            is_int = false;
        }
        const char *n = at->name;
        if (strcmp(n, "pg_name") == 0 &&
            at->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
            d->pg_name = arena_strdup(a, at->string_val);
            continue;
        }
        if (!is_int)
            continue; /* other attributes are not needed to run the trace */
        if (strcmp(n, "comm_type") == 0)
            d->comm_type = (int)iv;
        else if (strcmp(n, "comm_size") == 0) {
            d->comm_size = iv < 0 ? 0 : (uint64_t)iv;
            d->has_size = true;
        } else if (strcmp(n, "comm_src") == 0)
            d->comm_src = iv;
        else if (strcmp(n, "comm_dst") == 0)
            d->comm_dst = iv;
        else if (strcmp(n, "comm_tag") == 0)
            d->comm_tag = iv;
        else if (strcmp(n, "is_cpu_op") == 0)
            d->is_cpu_op = iv != 0;
        else if (strcmp(n, "num_ops") == 0)
            d->num_ops = iv < 0 ? 0 : (uint64_t)iv;
        else if (strcmp(n, "tensor_size") == 0)
            d->tensor_size = iv < 0 ? 0 : (uint64_t)iv;
    }
}

static int load_rank(chakra_trace *t, uint32_t r, const char *file, err *e)
{
    chakra_rank *R = &t->ranks[r];
    R->file = arena_strdup(&t->mem, file);
    size_t len = 0;
    char *buf = slurp(file, &len, e);
    if (!buf)
        return e->code;
    const uint8_t *b = (const uint8_t *)buf, *m;
    size_t pos = 0, n;
    int rc = ERR_OK;
    if (!next_msg(b, len, &pos, &m, &n, file, e)) {
        rc = e->code ? e->code
                     : err_set(e, ERR_INVALID, file, 0, 0,
                               "empty file: a Chakra trace starts with its GlobalMetadata");
        goto out;
    }
    ChakraProtoMsg__GlobalMetadata *gm = chakra_proto_msg__global_metadata__unpack(NULL, n, m);
    if (!gm) {
        rc = err_set(e, ERR_INVALID, file, 0, 0,
                     "byte 0: the first message is not a Chakra GlobalMetadata");
        goto out;
    }
    R->version = arena_strdup(&t->mem, gm->version);
    chakra_proto_msg__global_metadata__free_unpacked(gm, NULL);
    uint32_t cap = 0;
    for (;;) {
        size_t at = pos;
        if (!next_msg(b, len, &pos, &m, &n, file, e)) {
            rc = e->code;
            break;
        }
        ChakraProtoMsg__Node *s = chakra_proto_msg__node__unpack(NULL, n, m);
        if (!s) {
            rc = err_set(e, ERR_INVALID, file, 0, 0, "byte %zu: not a Chakra Node message", at);
            break;
        }
        if (R->n_nodes == cap) {
            cap = cap ? cap * 2 : 256;
            chakra_node *nn = arena_alloc(&t->mem, cap * sizeof *nn);
            if (R->n_nodes)
                memcpy(nn, R->nodes, R->n_nodes * sizeof *nn);
            R->nodes = nn;
        }
        chakra_node *d = &R->nodes[R->n_nodes++];
        memset(d, 0, sizeof *d);
        d->id = s->id;
        d->name = arena_strdup(&t->mem, s->name);
        d->type = (unsigned)s->type < CHAKRA_TYPES ? (enum chakra_type)s->type : CHAKRA_INVALID;
        d->duration_us = s->duration_micros;
        d->comm_type = -1;
        d->comm_src = d->comm_dst = d->comm_tag = -1;
        d->n_ctrl = (uint32_t)s->n_ctrl_deps;
        d->n_data = (uint32_t)s->n_data_deps;
        d->ctrl = arena_alloc(&t->mem, (d->n_ctrl + 1) * sizeof *d->ctrl);
        d->data = arena_alloc(&t->mem, (d->n_data + 1) * sizeof *d->data);
        if (d->n_ctrl)
            memcpy(d->ctrl, s->ctrl_deps, d->n_ctrl * sizeof *d->ctrl);
        if (d->n_data)
            memcpy(d->data, s->data_deps, d->n_data * sizeof *d->data);
        copy_attrs(d, s, &t->mem);
        chakra_proto_msg__node__free_unpacked(s, NULL);
        R->n_deps += d->n_ctrl + d->n_data;
        R->by_type[d->type]++;
    }
out:
    xfree(buf);
    return rc;
}

/* Per rank: unique ids, known dependencies, no cycle, well-formed communication nodes. */
static int check_rank(const chakra_trace *t, uint32_t r, err *e)
{
    const chakra_rank *R = &t->ranks[r];
    uint64_t *pairs = xmalloc((R->n_nodes + 1) * 2 * sizeof *pairs, "trace index");
    for (uint32_t i = 0; i < R->n_nodes; i++) {
        pairs[2 * i] = R->nodes[i].id;
        pairs[2 * i + 1] = i;
    }
    qsort(pairs, R->n_nodes, 2 * sizeof *pairs, cmp_u64);
    int rc = ERR_OK;
    for (uint32_t i = 1; i < R->n_nodes && !rc; i++)
        if (pairs[2 * i] == pairs[2 * i - 2])
            rc = err_set(e, ERR_INVALID, R->file, 0, 0, "node id %" PRIu64 " is used twice",
                         pairs[2 * i]);
    uint32_t *missing = xcalloc(R->n_nodes + 1, sizeof *missing, "trace in-degrees");
    uint32_t *succ_n = xcalloc(R->n_nodes + 1, sizeof *succ_n, "trace successors");
    for (uint32_t i = 0; i < R->n_nodes && !rc; i++) {
        const chakra_node *d = &R->nodes[i];
        for (uint32_t k = 0; k < d->n_ctrl + d->n_data && !rc; k++) {
            uint64_t dep = k < d->n_ctrl ? d->ctrl[k] : d->data[k - d->n_ctrl];
            int64_t j = find(pairs, R->n_nodes, dep);
            if (j < 0)
                rc = err_set(e, ERR_INVALID, R->file, 0, 0,
                             "node %" PRIu64 " (\"%s\") depends on node %" PRIu64
                             ", which this rank's trace does not have",
                             d->id, d->name, dep);
            else
                succ_n[j]++;
            missing[i]++;
        }
        if (rc)
            break;
        const char *what = NULL;
        if (d->type == CHAKRA_INVALID)
            what = "has no valid type";
        else if (d->type == CHAKRA_COLL && (d->comm_type < 0 || d->comm_type >= CHAKRA_COLL_TYPES))
            what = "is a collective without a known comm_type";
        else if ((d->type == CHAKRA_COLL || d->type == CHAKRA_SEND || d->type == CHAKRA_RECV) &&
                 !d->has_size)
            what = "is a communication node without comm_size";
        else if (d->type == CHAKRA_SEND && (d->comm_dst < 0 || d->comm_dst >= t->n_ranks))
            what = "is a send whose comm_dst is not a rank of the trace";
        else if (d->type == CHAKRA_RECV && (d->comm_src < 0 || d->comm_src >= t->n_ranks))
            what = "is a receive whose comm_src is not a rank of the trace";
        if (what)
            rc = err_set(e, ERR_INVALID, R->file, 0, 0, "node %" PRIu64 " (\"%s\") %s", d->id,
                         d->name, what);
    }
    if (!rc) {
        /* Kahn: successor lists, then release nodes whose dependencies are all done */
        uint32_t *off = xcalloc(R->n_nodes + 1, sizeof *off, "trace successors");
        for (uint32_t i = 0; i < R->n_nodes; i++)
            off[i + 1] = off[i] + succ_n[i];
        uint32_t *succ = xmalloc((off[R->n_nodes] + 1) * sizeof *succ, "trace successors");
        memset(succ_n, 0, R->n_nodes * sizeof *succ_n);
        for (uint32_t i = 0; i < R->n_nodes; i++) {
            const chakra_node *d = &R->nodes[i];
            for (uint32_t k = 0; k < d->n_ctrl + d->n_data; k++) {
                uint64_t dep = k < d->n_ctrl ? d->ctrl[k] : d->data[k - d->n_ctrl];
                uint32_t j = (uint32_t)find(pairs, R->n_nodes, dep);
                succ[off[j] + succ_n[j]++] = i;
            }
        }
        uint32_t *ready = xmalloc((R->n_nodes + 1) * sizeof *ready, "trace queue");
        uint32_t head = 0, tail = 0;
        for (uint32_t i = 0; i < R->n_nodes; i++)
            if (!missing[i])
                ready[tail++] = i;
        while (head < tail) {
            uint32_t i = ready[head++];
            for (uint32_t k = off[i]; k < off[i + 1]; k++)
                if (--missing[succ[k]] == 0)
                    ready[tail++] = succ[k];
        }
        if (tail < R->n_nodes) {
            uint32_t i = 0;
            while (!missing[i])
                i++;
            rc = err_set(e, ERR_INVALID, R->file, 0, 0,
                         "the dependencies form a cycle: %u nodes can never run, e.g. node "
                         "%" PRIu64 " (\"%s\")",
                         R->n_nodes - tail, R->nodes[i].id, R->nodes[i].name);
        }
        xfree(ready);
        xfree(succ);
        xfree(off);
    }
    xfree(succ_n);
    xfree(missing);
    xfree(pairs);
    return rc;
}

/* N of "PREFIX.N.et", or -1. */
static long rank_in_name(const char *f)
{
    size_t l = strlen(f);
    if (l < 5 || strcmp(f + l - 3, ".et") != 0)
        return -1;
    size_t end = l - 3, i = end;
    while (i > 0 && f[i - 1] >= '0' && f[i - 1] <= '9')
        i--;
    if (i == end || i == 0 || f[i - 1] != '.' || end - i > 9)
        return -1;
    return strtol(f + i, NULL, 10);
}

int chakra_load(chakra_trace *t, const char *const *files, int n, err *e)
{
    memset(t, 0, sizeof *t);
    arena_init(&t->mem, "chakra trace");
    err_clear(e);
    if (n <= 0)
        return err_set(e, ERR_INVALID, "", 0, 0, "no trace files");
    /* rank by the N of PREFIX.N.et when every file has one and they are 0..n-1 */
    int *order = xmalloc((size_t)n * sizeof *order, "trace order");
    bool by_name = true;
    for (int i = 0; i < n; i++)
        order[i] = -1;
    for (int i = 0; i < n && by_name; i++) {
        long k = rank_in_name(files[i]);
        if (k < 0 || k >= n || order[k] >= 0)
            by_name = false;
        else
            order[k] = i;
    }
    for (int i = 0; i < n && !by_name; i++)
        order[i] = i;
    t->n_ranks = (uint32_t)n;
    t->ranks = arena_alloc(&t->mem, (size_t)n * sizeof *t->ranks);
    int rc = ERR_OK;
    for (int r = 0; r < n && !rc; r++)
        rc = load_rank(t, (uint32_t)r, files[order[r]], e);
    for (uint32_t r = 0; r < t->n_ranks && !rc; r++)
        rc = check_rank(t, r, e);
    xfree(order);
    if (rc)
        chakra_free(t);
    return rc;
}

static ChakraProtoMsg__AttributeProto *attr_i64(ChakraProtoMsg__AttributeProto *a, const char *name,
                                                int64_t v)
{
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
    a->int64_val = v;
    return a;
}

static bool put_msg(FILE *f, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *b = xmalloc(n + 10, "trace message");
    size_t h = 0;
    for (uint64_t v = n;; v >>= 7) {
        b[h++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80)
            break;
    }
    protobuf_c_message_pack(m, b + h);
    bool ok = fwrite(b, 1, h + n, f) == h + n;
    xfree(b);
    return ok;
}

int chakra_write(const char *path, const char *version, const chakra_node *nodes, uint32_t n,
                 err *e)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return err_set(e, ERR_IO, path, 0, 0, "cannot create: %s", strerror(errno));
    ChakraProtoMsg__GlobalMetadata gm = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    gm.version = (char *)version;
    bool ok = put_msg(f, &gm.base);
    for (uint32_t i = 0; i < n && ok; i++) {
        const chakra_node *d = &nodes[i];
        ChakraProtoMsg__Node s = CHAKRA_PROTO_MSG__NODE__INIT;
        ChakraProtoMsg__AttributeProto a[8], *ap[8], pg;
        size_t na = 0;
        s.id = d->id;
        s.name = (char *)(d->name ? d->name : "");
        s.type = (ChakraProtoMsg__NodeType)d->type;
        s.n_ctrl_deps = d->n_ctrl;
        s.ctrl_deps = d->ctrl;
        s.n_data_deps = d->n_data;
        s.data_deps = d->data;
        s.duration_micros = d->duration_us;
        if (d->comm_type >= 0)
            ap[na] = attr_i64(&a[na], "comm_type", d->comm_type), na++;
        if (d->has_size)
            ap[na] = attr_i64(&a[na], "comm_size", (int64_t)d->comm_size), na++;
        if (d->comm_src >= 0)
            ap[na] = attr_i64(&a[na], "comm_src", d->comm_src), na++;
        if (d->comm_dst >= 0)
            ap[na] = attr_i64(&a[na], "comm_dst", d->comm_dst), na++;
        if (d->comm_tag >= 0)
            ap[na] = attr_i64(&a[na], "comm_tag", d->comm_tag), na++;
        if (d->pg_name) {
            chakra_proto_msg__attribute_proto__init(&pg);
            pg.name = (char *)"pg_name";
            pg.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
            pg.string_val = (char *)d->pg_name;
            ap[na++] = &pg;
        }
        chakra_proto_msg__attribute_proto__init(&a[na]);
        a[na].name = (char *)"is_cpu_op";
        a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
        a[na].bool_val = d->is_cpu_op;
        ap[na] = &a[na];
        na++;
        s.n_attr = na;
        s.attr = ap;
        ok = put_msg(f, &s.base);
    }
    if (fclose(f) != 0)
        ok = false;
    if (!ok) {
        remove(path);
        return err_set(e, ERR_IO, path, 0, 0, "cannot write the trace");
    }
    return ERR_OK;
}

#else /* built without protobuf-c */

bool chakra_available(void)
{
    return false;
}

int chakra_load(chakra_trace *t, const char *const *files, int n, err *e)
{
    (void)files;
    (void)n;
    memset(t, 0, sizeof *t);
    return err_set(e, ERR_USAGE, "", 0, 0,
                   "this wirerate was built without protobuf-c, so it cannot read Chakra traces "
                   "(sudo apt-get install libprotobuf-c-dev protobuf-c-compiler, then rebuild)");
}

int chakra_write(const char *path, const char *version, const chakra_node *nodes, uint32_t n,
                 err *e)
{
    (void)version;
    (void)nodes;
    (void)n;
    return err_set(e, ERR_USAGE, path, 0, 0, "this wirerate was built without protobuf-c");
}

#endif
