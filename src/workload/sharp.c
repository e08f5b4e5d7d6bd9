/*
 * sharp.c — SHARP aggregation trees (see sharp.h). Built once per job, off the hot path.
 */
#include "sharp.h"

#include <stdlib.h>
#include <string.h>

#include "../core/alloc.h"

typedef struct pair {
    uint32_t key, rank;
} pair;

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* A switch's height in the fabric: its tier (leaf 1, spine 2, super-spine 3), or on a custom
 * fabric its hop rank from the hosts. */
static uint32_t level(const node *s)
{
    return s->hop_rank ? s->hop_rank : (uint32_t)s->tier;
}

/* The distinct up-neighbours of switch s (backend switches of a higher level), ascending by
 * switch index, into up[] (capacity s->n_ports); returns their count. */
static uint32_t ups_of(const node *s, uint32_t *up)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->n_ports; i++) {
        const node *o = s->ports[i].peer->owner;
        if (o->kind != NODE_SWITCH || o->tier == TIER_SCALE_UP || o->network != NETWORK_BACKEND ||
            level(o) <= level(s))
            continue;
        uint32_t j = k;
        bool dup = false;
        for (uint32_t q = 0; q < k; q++)
            dup |= up[q] == o->index;
        if (dup)
            continue;
        while (j > 0 && up[j - 1] > o->index) {
            up[j] = up[j - 1];
            j--;
        }
        up[j] = o->index;
        k++;
    }
    return k;
}

static bool adjacent_up(const net *n, uint32_t s, uint32_t u)
{
    const node *x = n->switches[s];
    for (uint32_t i = 0; i < x->n_ports; i++)
        if (x->ports[i].peer->owner == n->switches[u])
            return true;
    return false;
}

int sharp_trees_build(const net *n, const uint32_t *gpu_of_rank, uint32_t n_ranks, arena *a,
                      sharp_trees *out, err *e)
{
    memset(out, 0, sizeof *out);
    uint32_t NS = n->n_switches;
    if (!n->an_of_switch)
        return err_set(e, ERR_INVALID, "", 0, 0,
                       "algorithm sharp: the fabric was built without aggregation nodes");
    /* local index of each rank: its place among its server's ranks, ascending */
    pair *pr = xcalloc(n_ranks ? n_ranks : 1, sizeof(pair), "sharp ranks");
    uint32_t *leaf = xcalloc(n_ranks ? n_ranks : 1, sizeof(uint32_t), "sharp leaves");
    for (uint32_t r = 0; r < n_ranks; r++) {
        uint32_t h = net_gpu_host(n, gpu_of_rank[r], 0);
        const node *x = n->hosts[h];
        const node *s = x->net_port != UINT32_MAX ? x->ports[x->net_port].peer->owner : NULL;
        if (!s || s->kind != NODE_SWITCH || n->an_of_switch[s->index] == UINT32_MAX) {
            xfree(pr);
            xfree(leaf);
            return err_set(e, ERR_INVALID, "", 0, 0,
                           "algorithm sharp: GPU %u's NIC %s has no fabric switch with an "
                           "aggregation node",
                           gpu_of_rank[r], x->name);
        }
        leaf[r] = s->index;
        pr[r] = (pair){x->server, r};
    }
    qsort(pr, n_ranks, sizeof(pair), pair_cmp);
    uint32_t *local = xcalloc(n_ranks ? n_ranks : 1, sizeof(uint32_t), "sharp local index");
    uint32_t L = 0;
    for (uint32_t i = 0, at = 0; i < n_ranks; i++) {
        at = i && pr[i].key == pr[i - 1].key ? at + 1 : 0;
        local[pr[i].rank] = at;
        L = at + 1 > L ? at + 1 : L;
    }
    /* endpoints: at most one per (tree, switch) */
    uint32_t cap = 64, ne = 0;
    uint32_t *par = xmalloc(sizeof(uint32_t) * ((size_t)n_ranks + cap), "sharp parents");
    uint32_t *host = xmalloc(sizeof(uint32_t) * cap, "sharp AN hosts");
    uint32_t *ep = xmalloc(sizeof(uint32_t) * (NS ? NS : 1), "sharp endpoint map");
    uint32_t *cur = xmalloc(sizeof(uint32_t) * (NS ? NS : 1), "sharp level");
    uint32_t *nxt = xmalloc(sizeof(uint32_t) * (NS ? NS : 1), "sharp level");
    uint32_t maxp = 1;
    for (uint32_t s = 0; s < NS; s++)
        maxp = n->switches[s]->n_ports > maxp ? n->switches[s]->n_ports : maxp;
    uint32_t *up = xmalloc(sizeof(uint32_t) * maxp, "sharp up-neighbours");
    uint32_t *cand = xmalloc(sizeof(uint32_t) * maxp, "sharp candidates");
    int rc = 0;
    for (uint32_t l = 0; l < L && !rc; l++) {
        for (uint32_t s = 0; s < NS; s++)
            ep[s] = UINT32_MAX;
#define EP_OF(sw)                                                                                  \
    do {                                                                                           \
        if (ep[sw] == UINT32_MAX) {                                                                \
            if (ne == cap) {                                                                       \
                cap *= 2;                                                                          \
                par = xrealloc(par, sizeof(uint32_t) * ((size_t)n_ranks + cap), "sharp parents");  \
                host = xrealloc(host, sizeof(uint32_t) * cap, "sharp AN hosts");                   \
            }                                                                                      \
            host[ne] = n->an_of_switch[sw];                                                        \
            par[n_ranks + ne] = UINT32_MAX;                                                        \
            ep[sw] = n_ranks + ne++;                                                               \
        }                                                                                          \
    } while (0)
        uint32_t nc = 0;
        for (uint32_t r = 0; r < n_ranks; r++) {
            if (local[r] != l)
                continue;
            uint32_t s = leaf[r];
            if (ep[s] == UINT32_MAX)
                cur[nc++] = s;
            EP_OF(s);
            par[r] = ep[s];
        }
        uint32_t height = 1;
        for (uint32_t guard = 0; nc > 1; guard++) {
            if (guard > 8) {
                rc = err_set(e, ERR_INVALID, "", 0, 0,
                             "algorithm sharp: no switch joins the leaves of the ranks (tree "
                             "%u)",
                             l);
                break;
            }
            uint32_t k = ups_of(n->switches[cur[0]], up), nk = 0;
            for (uint32_t i = 0; i < k; i++) {
                bool all = true;
                for (uint32_t c = 1; c < nc && all; c++)
                    all = adjacent_up(n, cur[c], up[i]);
                if (all && n->an_of_switch[up[i]] != UINT32_MAX)
                    cand[nk++] = up[i];
            }
            height++;
            if (nk) {
                uint32_t root = cand[l % nk];
                EP_OF(root);
                for (uint32_t c = 0; c < nc; c++)
                    par[ep[cur[c]]] = ep[root];
                nc = 0;
                break;
            }
            uint32_t nn = 0;
            for (uint32_t c = 0; c < nc && !rc; c++) {
                uint32_t ku = ups_of(n->switches[cur[c]], up);
                if (!ku || n->an_of_switch[up[l % ku]] == UINT32_MAX) {
                    rc = err_set(e, ERR_INVALID, "", 0, 0,
                                 "algorithm sharp: switch %s has no switch above it to join the "
                                 "ranks' leaves (ranks under different leaves need a spine)",
                                 n->switches[cur[c]]->name);
                    break;
                }
                uint32_t u = up[l % ku];
                if (ep[u] == UINT32_MAX)
                    nxt[nn++] = u;
                EP_OF(u);
                par[ep[cur[c]]] = ep[u];
            }
            memcpy(cur, nxt, sizeof(uint32_t) * nn);
            nc = nn;
        }
#undef EP_OF
        out->height = height > out->height ? height : out->height;
    }
    if (!rc) {
        out->n_an = ne;
        out->parent = ARENA_NEW_ARRAY(a, uint32_t, (size_t)n_ranks + ne);
        memcpy(out->parent, par, sizeof(uint32_t) * ((size_t)n_ranks + ne));
        out->an_host = ARENA_NEW_ARRAY(a, uint32_t, ne ? ne : 1);
        memcpy(out->an_host, host, sizeof(uint32_t) * ne);
    }
    xfree(pr);
    xfree(leaf);
    xfree(local);
    xfree(par);
    xfree(host);
    xfree(ep);
    xfree(cur);
    xfree(nxt);
    xfree(up);
    xfree(cand);
    return rc;
}
