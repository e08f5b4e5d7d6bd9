/*
 * chakra_plan.c — a Chakra trace joined across its ranks into one task graph (see
 * chakra_plan.h). Everything here runs once, before the simulation: node ids are resolved with
 * a sorted index per rank, collectives are matched per process group with a per-rank list
 * sorted by (group, file order), messages by sorting sends and receives on (src, dst, tag,
 * size, file order), edges are deduplicated by sorting, and the joined graph is checked with
 * Kahn's algorithm.
 */
#include "chakra_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

#define NONE UINT32_MAX

typedef struct idref {
    uint64_t id;
    uint32_t idx;
} idref;

static int cmp_idref(const void *a, const void *b)
{
    const idref *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A send or a receive, keyed as the message it belongs to. */
typedef struct msg {
    int64_t src, dst, tag;
    uint64_t size;
    uint32_t rank, node; /* where the node is (rank, index in file order) */
} msg;

static int cmp_msg(const void *a, const void *b)
{
    const msg *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static bool same_msg(const msg *x, const msg *y)
{
    return x->src == y->src && x->dst == y->dst && x->tag == y->tag && x->size == y->size;
}

/* comm_type → operation; false for the kinds without a plan (gather, scatter). */
static bool coll_op_of(int comm_type, enum coll_op *op)
{
    switch (comm_type) {
    case 0:
        *op = OP_ALL_REDUCE;
        return true;
    case 1:
        *op = OP_REDUCE;
        return true;
    case 2:
        *op = OP_ALL_GATHER;
        return true;
    case 5:
        *op = OP_BROADCAST;
        return true;
    case 6:
        *op = OP_ALL_TO_ALL;
        return true;
    case 7: /* reduce_scatter */
    case 8:
        *op = OP_REDUCE_SCATTER;
        return true; /* reduce_scatter_block: equal blocks */
    case 9:
        *op = OP_ALL_REDUCE;
        return true; /* barrier */
    default:
        return false;
    }
}

/* Growable task array. */
typedef struct tvec {
    train_task *v;
    uint32_t *rank0, *node0; /* the task's first node */
    uint32_t n, cap;
} tvec;

static uint32_t tpush(tvec *t, uint32_t rank, uint32_t node)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->v = xrealloc(t->v, sizeof(train_task) * t->cap, "chakra tasks");
        t->rank0 = xrealloc(t->rank0, sizeof(uint32_t) * t->cap, "chakra tasks");
        t->node0 = xrealloc(t->node0, sizeof(uint32_t) * t->cap, "chakra tasks");
    }
    memset(&t->v[t->n], 0, sizeof(train_task));
    t->v[t->n].rank = t->v[t->n].dst = t->v[t->n].group = t->v[t->n].mb = TRAIN_NONE;
    t->v[t->n].count = 1;
    t->rank0[t->n] = rank;
    t->node0[t->n] = node;
    return t->n++;
}

train_plan *chakra_plan_new(const chakra_trace *t, const uint32_t *gpu_of_rank,
                            uint32_t gpus_per_server, err *e)
{
    uint32_t nr = t->n_ranks;
    uint32_t gps = gpus_per_server ? gpus_per_server : 1;
    train_plan *p = xcalloc(1, sizeof *p, "chakra plan");
    arena_init(&p->mem, "chakra plan");
    p->n_ranks = nr;
    p->tp = p->pp = p->vp = p->m = 1;
    p->dp = nr;
    p->ranks = ARENA_NEW_ARRAY(&p->mem, train_rank, nr ? nr : 1);
    for (uint32_t r = 0; r < nr; r++) {
        train_rank *R = &p->ranks[r];
        memset(R, 0, sizeof *R);
        R->gpu = gpu_of_rank[r];
        R->server = R->gpu / gps;
        R->tp_group = R->dp_group = R->pp_group = R->ep_group = TRAIN_NONE;
        R->pp_prev = R->pp_next = TRAIN_NONE;
    }
    /* node → task, flattened by rank */
    uint64_t *off = xmalloc(sizeof(uint64_t) * (nr + 1), "chakra ranks");
    off[0] = 0;
    for (uint32_t r = 0; r < nr; r++)
        off[r + 1] = off[r] + t->ranks[r].n_nodes;
    uint64_t nn = off[nr];
    p->n_nodes = nn;
    uint32_t *task_of = xmalloc(sizeof(uint32_t) * (nn ? nn : 1), "chakra node tasks");
    for (uint64_t i = 0; i < nn; i++)
        task_of[i] = NONE;
    tvec T = {0};
    uint64_t *edges = NULL;
    msg *sends = NULL, *recvs = NULL;
    uint64_t *cl = NULL;
    const char **pgs = NULL;
    uint32_t *cnt = NULL;
    idref *ids = NULL;
    bool ok = false;

    /* compute, memory, metadata: a task each */
    for (uint32_t r = 0; r < nr; r++) {
        const chakra_rank *R = &t->ranks[r];
        for (uint32_t i = 0; i < R->n_nodes; i++) {
            const chakra_node *x = &R->nodes[i];
            if (x->type == CHAKRA_COLL || x->type == CHAKRA_SEND || x->type == CHAKRA_RECV)
                continue;
            uint32_t k = tpush(&T, r, i);
            train_task *tk = &T.v[k];
            tk->kind = TRAIN_COMPUTE;
            tk->phase = TRAIN_PH_FWD;
            tk->rank = r;
            if (x->type == CHAKRA_COMP) {
                tk->lane = x->is_cpu_op ? TRAIN_LANE_CPU : TRAIN_LANE_GPU;
                tk->dur_ps = x->duration_us * 1000000ull; /* µs → ps */
            } else {
                tk->lane = TRAIN_LANE_NONE;
            }
            task_of[off[r] + i] = k;
        }
    }

    /* collectives: process groups by pg_name (index 0: no pg_name = every rank) */
    uint32_t npg = 1, cap_pg = 8;
    pgs = xmalloc(sizeof(const char *) * cap_pg, "process groups");
    pgs[0] = NULL;
    uint64_t ncl = 0;
    for (uint32_t r = 0; r < nr; r++)
        ncl += t->ranks[r].by_type[CHAKRA_COLL];
    cl = xmalloc(sizeof(uint64_t) * (ncl ? ncl : 1), "chakra collectives");
    uint64_t *cl_off = xmalloc(sizeof(uint64_t) * (nr + 1), "chakra collectives");
    uint64_t c = 0;
    for (uint32_t r = 0; r < nr; r++) {
        const chakra_rank *R = &t->ranks[r];
        cl_off[r] = c;
        for (uint32_t i = 0; i < R->n_nodes; i++) {
            const chakra_node *x = &R->nodes[i];
            if (x->type != CHAKRA_COLL)
                continue;
            uint32_t g = 0;
            if (x->pg_name) {
                for (g = 1; g < npg && strcmp(pgs[g], x->pg_name); g++)
                    ;
                if (g == npg) {
                    if (npg == cap_pg)
                        pgs = xrealloc(pgs, sizeof(const char *) * (cap_pg *= 2), "process groups");
                    pgs[npg++] = x->pg_name;
                }
            }
            cl[c++] = ((uint64_t)g << 32) | i;
        }
        qsort(cl + cl_off[r], c - cl_off[r], sizeof(uint64_t), cmp_u64);
    }
    cl_off[nr] = c;
    /* collectives per (group, rank) */
    cnt = xcalloc((size_t)npg * (nr ? nr : 1), sizeof(uint32_t), "process group members");
    for (uint32_t r = 0; r < nr; r++)
        for (uint64_t q = cl_off[r]; q < cl_off[r + 1]; q++)
            cnt[(size_t)(cl[q] >> 32) * nr + r]++;
    uint32_t *members = xmalloc(sizeof(uint32_t) * (nr ? nr : 1), "group members");
    uint64_t *cursor = xmalloc(sizeof(uint64_t) * (nr ? nr : 1), "group cursors");
    for (uint32_t r = 0; r < nr; r++)
        cursor[r] = cl_off[r];
    uint32_t cap_m = 64, n_members = 0;
    uint32_t *all_members = xmalloc(sizeof(uint32_t) * cap_m, "group members");
    train_group *groups = xmalloc(sizeof(train_group) * npg, "groups");
    uint32_t ng = 0;
    for (uint32_t g = 0; g < npg; g++) {
        uint32_t m = 0, first = NONE;
        for (uint32_t r = 0; r < nr; r++) {
            uint32_t k = cnt[(size_t)g * nr + r];
            if (g == 0 ? 0 : !k)
                continue;
            members[m++] = r;
            if (first == NONE)
                first = r;
        }
        if (g == 0 && !ncl)
            continue;
        uint32_t kmax = 0;
        for (uint32_t q = 0; q < m; q++)
            if (cnt[(size_t)g * nr + members[q]] > kmax)
                kmax = cnt[(size_t)g * nr + members[q]];
        if (!kmax)
            continue;
        /* every member holds as many of the group's collectives */
        for (uint32_t q = 0; q < m; q++) {
            uint32_t r = members[q], k = cnt[(size_t)g * nr + r];
            if (k == kmax)
                continue;
            uint32_t rr = k < kmax ? r : first;
            for (uint32_t s = 0; s < m; s++)
                if (cnt[(size_t)g * nr + members[s]] == kmax) {
                    rr = members[s];
                    break;
                }
            err_set(e, ERR_INVALID, t->ranks[r].file, 0, 0,
                    "rank %u has %u collectives in process group %s%s%s and rank %u (%s) has "
                    "%u: the k-th collective of a group is matched across its ranks, so every "
                    "rank of the group must issue the same collectives",
                    r, k, g ? "\"" : "", g ? pgs[g] : "(none: every rank)", g ? "\"" : "", rr,
                    t->ranks[rr].file, kmax);
            goto out;
        }
        if (n_members + m > cap_m) {
            while (n_members + m > cap_m)
                cap_m *= 2;
            all_members = xrealloc(all_members, sizeof(uint32_t) * cap_m, "group members");
        }
        uint32_t gi = ng++;
        groups[gi].kind = TRAIN_GROUP_DP;
        groups[gi].n = m;
        groups[gi].off = n_members;
        memcpy(all_members + n_members, members, sizeof(uint32_t) * m);
        n_members += m;
        for (uint32_t k = 0; k < kmax; k++) {
            uint32_t r0 = members[0];
            uint32_t i0 = (uint32_t)cl[cursor[r0]];
            const chakra_node *x0 = &t->ranks[r0].nodes[i0];
            enum coll_op op;
            if (!coll_op_of(x0->comm_type, &op)) {
                err_set(e, ERR_INVALID, t->ranks[r0].file, 0, 0,
                        "node %" PRIu64 " \"%s\": a %s collective cannot run on the network in "
                        "this version (available: all_reduce, reduce, all_gather, broadcast, "
                        "all_to_all, reduce_scatter, reduce_scatter_block, barrier)",
                        x0->id, x0->name ? x0->name : "", chakra_coll_name(x0->comm_type));
                goto out;
            }
            uint32_t tk = tpush(&T, r0, i0);
            train_task *K = &T.v[tk];
            K->kind = TRAIN_COLL;
            K->phase = TRAIN_PH_DP;
            K->op = (uint8_t)op;
            K->group = gi;
            K->bytes = x0->comm_type == 9 && !x0->has_size ? 4 : x0->comm_size;
            for (uint32_t q = 0; q < m; q++) {
                uint32_t r = members[q];
                uint32_t i = (uint32_t)cl[cursor[r]++];
                const chakra_node *x = &t->ranks[r].nodes[i];
                if (x->comm_type != x0->comm_type || x->comm_size != x0->comm_size) {
                    err_set(e, ERR_INVALID, t->ranks[r].file, 0, 0,
                            "node %" PRIu64 " \"%s\" is collective %u of process group %s%s%s "
                            "on rank %u, a %s of %" PRIu64 " bytes; on rank %u (%s) that "
                            "collective is node %" PRIu64 " \"%s\", a %s of %" PRIu64 " bytes",
                            x->id, x->name ? x->name : "", k, g ? "\"" : "",
                            g ? pgs[g] : "(none: every rank)", g ? "\"" : "", r,
                            chakra_coll_name(x->comm_type), x->comm_size, r0, t->ranks[r0].file,
                            x0->id, x0->name ? x0->name : "", chakra_coll_name(x0->comm_type),
                            x0->comm_size);
                    goto out;
                }
                task_of[off[r] + i] = tk;
            }
        }
    }
    xfree(members);
    members = NULL;
    xfree(cursor);
    cursor = NULL;

    /* messages */
    uint64_t ns = 0, nv = 0;
    for (uint32_t r = 0; r < nr; r++) {
        ns += t->ranks[r].by_type[CHAKRA_SEND];
        nv += t->ranks[r].by_type[CHAKRA_RECV];
    }
    sends = xmalloc(sizeof(msg) * (ns + 1), "chakra sends");
    recvs = xmalloc(sizeof(msg) * (nv + 1), "chakra receives");
    ns = nv = 0;
    for (uint32_t r = 0; r < nr; r++) {
        const chakra_rank *R = &t->ranks[r];
        for (uint32_t i = 0; i < R->n_nodes; i++) {
            const chakra_node *x = &R->nodes[i];
            if (x->type == CHAKRA_SEND)
                sends[ns++] = (msg){r, x->comm_dst, x->comm_tag, x->comm_size, r, i};
            else if (x->type == CHAKRA_RECV)
                recvs[nv++] = (msg){x->comm_src, r, x->comm_tag, x->comm_size, r, i};
        }
    }
    qsort(sends, ns, sizeof(msg), cmp_msg);
    qsort(recvs, nv, sizeof(msg), cmp_msg);
    for (uint64_t i = 0, k = 0; i < ns || k < nv; i++, k++) {
        if (i >= ns || k >= nv || !same_msg(&sends[i], &recvs[k])) {
            bool send = k >= nv || (i < ns && cmp_msg(&sends[i], &recvs[k]) < 0);
            const msg *m = send ? &sends[i] : &recvs[k];
            const chakra_node *x = &t->ranks[m->rank].nodes[m->node];
            err_set(e, ERR_INVALID, t->ranks[m->rank].file, 0, 0,
                    "node %" PRIu64 " \"%s\": %s of %" PRIu64 " bytes with tag %" PRId64
                    " %s rank %" PRId64 " has no matching %s (same ranks, tag and size) in the "
                    "trace",
                    x->id, x->name ? x->name : "", send ? "a send" : "a receive", m->size, m->tag,
                    send ? "to" : "from", send ? m->dst : m->src, send ? "receive" : "send");
            goto out;
        }
        const msg *s = &sends[i], *v = &recvs[k];
        uint32_t tk = tpush(&T, s->rank, s->node);
        train_task *K = &T.v[tk];
        if (s->src == s->dst) { /* to itself: nothing crosses the network */
            K->kind = TRAIN_COMPUTE;
            K->phase = TRAIN_PH_FWD;
            K->rank = s->rank;
            K->lane = TRAIN_LANE_NONE;
        } else {
            K->kind = TRAIN_P2P;
            K->phase = TRAIN_PH_PP;
            K->rank = (uint32_t)s->src;
            K->dst = (uint32_t)s->dst;
            K->bytes = s->size;
        }
        task_of[off[s->rank] + s->node] = tk;
        task_of[off[v->rank] + v->node] = tk;
    }

    /* edges: every node's ctrl and data dependencies, between tasks */
    uint64_t ne = 0, cap_e = 1024;
    edges = xmalloc(sizeof(uint64_t) * cap_e, "chakra edges");
    uint32_t maxn = 0;
    for (uint32_t r = 0; r < nr; r++)
        if (t->ranks[r].n_nodes > maxn)
            maxn = t->ranks[r].n_nodes;
    ids = xmalloc(sizeof(idref) * (maxn ? maxn : 1), "chakra node ids");
    for (uint32_t r = 0; r < nr; r++) {
        const chakra_rank *R = &t->ranks[r];
        for (uint32_t i = 0; i < R->n_nodes; i++)
            ids[i] = (idref){R->nodes[i].id, i};
        qsort(ids, R->n_nodes, sizeof(idref), cmp_idref);
        for (uint32_t i = 0; i < R->n_nodes; i++) {
            const chakra_node *x = &R->nodes[i];
            uint32_t to = task_of[off[r] + i];
            for (uint32_t d = 0; d < x->n_ctrl + x->n_data; d++) {
                idref key = {d < x->n_ctrl ? x->ctrl[d] : x->data[d - x->n_ctrl], 0};
                const idref *hit = bsearch(&key, ids, R->n_nodes, sizeof(idref), cmp_idref);
                SIM_ASSERT(hit, "chakra_load left a dangling dependency (%" PRIu64 ")", key.id);
                uint32_t from = task_of[off[r] + hit->idx];
                if (from == to)
                    continue;
                if (ne == cap_e)
                    edges = xrealloc(edges, sizeof(uint64_t) * (cap_e *= 2), "chakra edges");
                edges[ne++] = ((uint64_t)from << 32) | to;
            }
        }
    }
    qsort(edges, ne, sizeof(uint64_t), cmp_u64);
    uint64_t nu = 0;
    for (uint64_t i = 0; i < ne; i++)
        if (!nu || edges[i] != edges[nu - 1])
            edges[nu++] = edges[i];
    ne = nu;
    if (ne >= UINT32_MAX) {
        err_set(e, ERR_INVALID, nr ? t->ranks[0].file : "", 0, 0,
                "the trace has %" PRIu64 " dependencies; at most %u are supported", ne,
                UINT32_MAX - 1);
        goto out;
    }

    /* the plan's CSR: successors (edges are sorted by source) and predecessors */
    uint32_t nt = T.n;
    p->n_tasks = nt;
    p->n_deps = (uint32_t)ne;
    p->succ = ARENA_NEW_ARRAY(&p->mem, uint32_t, ne ? ne : 1);
    p->deps = ARENA_NEW_ARRAY(&p->mem, uint32_t, ne ? ne : 1);
    for (uint64_t i = 0; i < ne; i++) {
        uint32_t from = (uint32_t)(edges[i] >> 32), to = (uint32_t)edges[i];
        T.v[from].n_succ++;
        T.v[to].n_deps++;
        p->succ[i] = to;
    }
    uint32_t so = 0, dof = 0;
    for (uint32_t k = 0; k < nt; k++) {
        T.v[k].succ_off = so;
        so += T.v[k].n_succ;
        T.v[k].dep_off = dof;
        dof += T.v[k].n_deps;
        T.v[k].n_deps = 0; /* refilled below */
    }
    for (uint64_t i = 0; i < ne; i++) {
        uint32_t from = (uint32_t)(edges[i] >> 32), to = (uint32_t)edges[i];
        p->deps[T.v[to].dep_off + T.v[to].n_deps++] = from;
    }

    /* Kahn: every task must become ready */
    {
        uint32_t *left = xmalloc(sizeof(uint32_t) * (nt ? nt : 1), "chakra check");
        uint32_t *queue = xmalloc(sizeof(uint32_t) * (nt ? nt : 1), "chakra check");
        uint32_t qh = 0, qt = 0;
        for (uint32_t k = 0; k < nt; k++)
            if (!(left[k] = T.v[k].n_deps))
                queue[qt++] = k;
        while (qh < qt) {
            uint32_t k = queue[qh++];
            for (uint32_t s = 0; s < T.v[k].n_succ; s++) {
                uint32_t j = p->succ[T.v[k].succ_off + s];
                if (--left[j] == 0)
                    queue[qt++] = j;
            }
        }
        uint32_t stuck = NONE;
        for (uint32_t k = 0; k < nt && stuck == NONE; k++)
            if (left[k])
                stuck = k;
        xfree(left);
        xfree(queue);
        if (stuck != NONE) {
            uint32_t r = T.rank0[stuck];
            const chakra_node *x = &t->ranks[r].nodes[T.node0[stuck]];
            err_set(e, ERR_INVALID, t->ranks[r].file, 0, 0,
                    "the ranks deadlock: node %" PRIu64 " \"%s\" of rank %u can never start, "
                    "with %u of the trace's operations; once collectives are matched across "
                    "their process group and sends with receives, they wait on each other "
                    "(two ranks issue them in different orders)",
                    x->id, x->name ? x->name : "", r, nt - qt);
            goto out;
        }
    }

    /* groups, members, names */
    p->n_groups = p->n_dp_groups = ng;
    p->groups = ARENA_NEW_ARRAY(&p->mem, train_group, ng ? ng : 1);
    memcpy(p->groups, groups, sizeof(train_group) * ng);
    p->members = ARENA_NEW_ARRAY(&p->mem, uint32_t, n_members ? n_members : 1);
    memcpy(p->members, all_members, sizeof(uint32_t) * n_members);
    p->task_name = ARENA_NEW_ARRAY(&p->mem, const char *, nt ? nt : 1);
    for (uint32_t k = 0; k < nt; k++) {
        const chakra_node *x = &t->ranks[T.rank0[k]].nodes[T.node0[k]];
        p->task_name[k] = arena_strdup(&p->mem, x->name ? x->name : "");
        switch (T.v[k].kind) {
        case TRAIN_COMPUTE:
            p->stats.compute++;
            break;
        case TRAIN_COLL:
            p->stats.coll_dp++;
            break;
        default:
            p->stats.p2p++;
            break;
        }
    }
    p->stats.deps = ne;
    p->tasks = T.v ? xrealloc(T.v, sizeof(train_task) * (nt ? nt : 1), "chakra tasks")
                   : xcalloc(1, sizeof(train_task), "chakra tasks");
    T.v = NULL;
    ok = true;
out:
    xfree(members);
    xfree(cursor);
    xfree(all_members);
    xfree(groups);
    xfree(cl_off);
    xfree(T.v);
    xfree(T.rank0);
    xfree(T.node0);
    xfree(edges);
    xfree(sends);
    xfree(recvs);
    xfree(cl);
    xfree(pgs);
    xfree(cnt);
    xfree(ids);
    xfree(task_of);
    xfree(off);
    if (!ok) {
        train_plan_free(p);
        return NULL;
    }
    return p;
}
