/*
 * import_chakra.h — Chakra execution traces (MLCommons Chakra; the `.et` files ASTRA-sim runs
 * and Chakra's converter produces from PyTorch execution traces) read into plain structs.
 *
 * One file per rank: a GlobalMetadata message then Node messages, each preceded by its length
 * as a base-128 varint; the schema is proto/chakra_et.proto (written from Chakra's
 * et_def.proto, wire-compatible), decoded with protobuf-c. Files named PREFIX.N.et are ranked
 * by N (so a shell glob's order, .10 before .2, does not matter); otherwise rank i is the i-th
 * file given.
 *
 * A node keeps what a network simulation needs: its id, name, type (compute, send, receive,
 * collective, memory), its control and data dependencies (node ids of the same rank), its
 * duration (compute, microseconds as Chakra records them) and the communication attributes
 * Chakra's feeder reads — comm_type (collective kind), comm_size (bytes), comm_src / comm_dst /
 * comm_tag (point to point), pg_name (process group), is_cpu_op, num_ops, tensor_size.
 *
 * Checked on load, each an ERR_INVALID naming the file and the node: a truncated or malformed
 * message (with its byte offset), a node id used twice, a dependency on a node the rank does
 * not have, a dependency cycle, a collective without comm_type, a communication node without
 * comm_size, a send/receive without its peer, a peer outside the trace's ranks.
 *
 * Optional at build time (protobuf-c: libprotobuf-c-dev, protobuf-c-compiler); without it
 * chakra_available() is false and chakra_load fails saying so. Library code: nothing prints.
 */
#ifndef WR_CONFIG_IMPORT_CHAKRA_H
#define WR_CONFIG_IMPORT_CHAKRA_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/arena.h"
#include "../core/err.h"

/* Node types, as Chakra numbers them (NodeType). */
enum chakra_type {
    CHAKRA_INVALID = 0,
    CHAKRA_METADATA = 1,
    CHAKRA_MEM_LOAD = 2,
    CHAKRA_MEM_STORE = 3,
    CHAKRA_COMP = 4,
    CHAKRA_SEND = 5,
    CHAKRA_RECV = 6,
    CHAKRA_COLL = 7,
    CHAKRA_TYPES
};
const char *chakra_type_name(enum chakra_type t);
/* Collective kinds (CollectiveCommType): "all_reduce", "reduce", ..., "barrier". */
const char *chakra_coll_name(int comm_type);
#define CHAKRA_COLL_TYPES 10

typedef struct chakra_node {
    uint64_t id;
    const char *name;
    enum chakra_type type;
    uint32_t n_ctrl, n_data;
    uint64_t *ctrl, *data; /* dependency node ids (same rank) */
    uint64_t duration_us;  /* duration_micros */
    int comm_type;         /* -1 when absent */
    uint64_t comm_size;    /* bytes; 0 when absent */
    bool has_size;
    int64_t comm_src, comm_dst, comm_tag; /* -1 when absent */
    const char *pg_name;                  /* NULL when absent */
    bool is_cpu_op;
    uint64_t num_ops, tensor_size;
} chakra_node;

typedef struct chakra_rank {
    const char *file;
    const char *version; /* GlobalMetadata.version */
    uint32_t n_nodes;
    chakra_node *nodes; /* in file order */
    uint64_t n_deps;    /* dependency edges (control + data) */
    uint32_t by_type[CHAKRA_TYPES];
} chakra_rank;

typedef struct chakra_trace {
    arena mem;
    uint32_t n_ranks;
    chakra_rank *ranks; /* by rank */
} chakra_trace;

bool chakra_available(void);

/* Read the traces of `n` files (one per rank). ERR_OK, or ERR_IO (unreadable) / ERR_INVALID
 * (malformed, see above) with *e naming the file; *t is then freed. */
int chakra_load(chakra_trace *t, const char *const *files, int n, err *e);
void chakra_free(chakra_trace *t);

/* Write one rank's trace (the examples and tests generate theirs with it): GlobalMetadata with
 * `version`, then the nodes. ERR_OK or ERR_IO. */
int chakra_write(const char *path, const char *version, const chakra_node *nodes, uint32_t n,
                 err *e);

#endif
