/*
 * test_infer.c — inference jobs (workload/infer_exec.h): on an idle fabric a request's TTFT is
 * exactly its prefill compute plus its collectives (inside a server: the α–β ring; across
 * servers: as long as the same all_reduce run alone as a collective job; between pipeline
 * stages: as long as the same message alone) and its decode steps
 * add up to its last token; Poisson arrivals match their rate and law within statistical bounds
 * for a seeded run; the MoE all_to_all volume per layer and the KV-cache transfer follow their
 * closed forms; continuous batching respects max_batch; the same seed gives identical requests;
 * stop_at ends a run with requests still in flight.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "config/config.h"
#include "testlib.h"
#include "workload/infer_exec.h"
#include "workload/run.h"

typedef struct out {
    bool ok;
    job_result jr;
    uint64_t n_req;
    request_record *req;
    uint64_t delivered, scale_up;
    enum end_reason end;
} out;

static out run_yaml(const char *yaml, const char *name)
{
    out o;
    memset(&o, 0, sizeof o);
    scenario sc;
    err e;
    err_clear(&e);
    if (config_load_buffer(&sc, name, yaml, strlen(yaml), NULL, 0, &e)) {
        fprintf(stderr, "  config: %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        CHECK(0);
        return o;
    }
    run *r = run_new(&sc, &e);
    if (!r) {
        fprintf(stderr, "  run_new: %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        CHECK(0);
        scenario_free(&sc);
        return o;
    }
    run_execute(r, NULL, NULL);
    const run_stats *st = run_result(r);
    o.ok = true;
    o.jr = st->jobs[0];
    o.jr.iterations = NULL;
    o.n_req = st->n_requests;
    o.req = malloc(sizeof(request_record) * (st->n_requests ? st->n_requests : 1));
    memcpy(o.req, st->requests, sizeof(request_record) * st->n_requests);
    o.delivered = st->delivered_bytes;
    o.scale_up = st->scale_up_bytes;
    o.end = st->end_reason;
    run_free(r);
    scenario_free(&sc);
    return o;
}

/* ---- the model, written out independently of the executor --------------------------------- */

/* A GPT-style test model: h 1024, 8 heads (full MHA), FFN 4096 (not gated), vocab 32000. */
enum { H = 1024, FFN = 4096, VOCAB = 32000 };
static const double PEAK = 989, MFU = 0.45, HBM_BPS = 3.35e12 * 0.8; /* the defaults */

static sim_time roof(double flops, double bytes)
{
    double c = flops / (PEAK * MFU), m = bytes / HBM_BPS * 1e12;
    return (sim_time)llround(c > m ? c : m);
}

/* NCCL over NVLink4: 370 of 450 GB/s (the scale_up defaults), in bits/s. */
#define NVL_BPS ((uint64_t)(450e9 * 8 * (370.0 / 450.0) + 0.5))

/* α–β ring all_reduce over g GPUs of one server (defaults: 1 us, NVL_BPS). */
static sim_time ring_ar(uint64_t bytes, uint64_t g, uint64_t bw_bps)
{
    if (g < 2)
        return 0;
    uint64_t pc = (bytes + g - 1) / g;
    return 2 * (g - 1) * (1000000 + sim_ser_time(pc, bw_bps));
}

/* One forward step of one replica on tp GPUs: T tokens, Σ n_i(c_i + (n_i + 1)/2) = attn, KV
 * tokens read kv, seqs sequences (LM head); ar_ps is one all_reduce. */
static sim_time step_ps(uint32_t layers, uint32_t tp, double T, double attn, double kv, double seqs,
                        sim_time ar_ps)
{
    double pa = 2.0 * H * H + 2.0 * H * H, pf = 2.0 * H * FFN;
    double kv_tok_layer = 2.0 * ((H + tp - 1) / tp) * 2.0; /* K and V, bf16, this GPU's share */
    sim_time a = roof((2 * T * pa + 4.0 * H * attn) / tp, pa * 2 / tp + kv * kv_tok_layer);
    sim_time m = roof(2 * T * pf / tp, pf * 2 / tp);
    sim_time head = roof(2 * seqs * H * VOCAB / tp, (double)VOCAB * H * 2 / tp);
    return layers * (a + ar_ps + m + ar_ps) + head;
}

static const char *MODEL =
    "    model: { params: 1e8, layers: 4, hidden: 1024, ffn: 4096, heads: 8, "
    "vocab: 32000 }\n";

/* One request alone on a 4-GPU server (tp 4, everything over the analytic scale-up domain):
 * TTFT = the prefill step; done − first = the sum of its decode steps, each with a context one
 * token longer. */
static void test_ttft_idle_local(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 1, gpus_per_server: 4 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    parallelism: { tp: 4 }\n"
             "    requests: { rate: 1, count: 1, prompt: 512, output: 5 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    CHECK_EQ_U64(o.n_req, 1);
    const request_record *q = &o.req[0];
    uint64_t bw = NVL_BPS;
    double P = 512;
    sim_time prefill = step_ps(4, 4, P, P * (P + 1) / 2, P, 1, ring_ar((uint64_t)P * H * 2, 4, bw));
    CHECK_EQ_U64(q->first_token_ps - q->arrival_ps, prefill);
    CHECK_EQ_U64(o.jr.infer.ttft_p50_ps, prefill);
    sim_time dec = 0;
    for (uint32_t k = 1; k < 5; k++) { /* token k+1: context prompt + k − 1 before it */
        double c = P + k - 1;
        dec += step_ps(4, 4, 1, c + 1, c + 1, 1, ring_ar(1ull * H * 2, 4, bw));
    }
    CHECK_EQ_U64(q->done_ps - q->first_token_ps, dec);
    CHECK_EQ_U64(o.jr.infer.tpot_p50_ps, dec / 4);
    CHECK_EQ_U64(q->generated, 5);
    CHECK(o.jr.completed);
    CHECK_EQ_U64(o.jr.jct_ps, q->done_ps - o.jr.start_ps);
    CHECK_EQ_U64(o.jr.infer.prefill_steps, 1);
    CHECK_EQ_U64(o.jr.infer.decode_steps, 4);
    CHECK_EQ_U64(o.delivered, 0); /* nothing crossed the fabric */
    free(o.req);
}

/* The JCT of one all_reduce of `bytes` over GPUs 0 and 1 (one per server), alone on the
 * fabric, as one chunk (the inference executor's collectives move one chunk per transfer). */
static sim_time lone_all_reduce(uint64_t bytes)
{
    char y[512];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - { kind: collective, op: all_reduce, size: %lluB, chunk: 1GiB }\n",
             (unsigned long long)bytes);
    out o = run_yaml(y, "coll.yaml");
    free(o.req);
    CHECK(o.jr.completed);
    return o.jr.jct_ps;
}

/* tp 2 across two servers: every all_reduce is a ring over the packet network. On the idle
 * fabric TTFT = the prefill compute + each all_reduce as long as the same all_reduce alone. */
static void test_ttft_idle_network(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    parallelism: { tp: 2 }\n"
             "    requests: { rate: 1, count: 1, prompt: 128, output: 1 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    double P = 128;
    uint64_t ar_bytes = 128ull * H * 2;
    sim_time compute = step_ps(4, 2, P, P * (P + 1) / 2, P, 1, 0);
    sim_time ar = lone_all_reduce(ar_bytes);
    const request_record *q = &o.req[0];
    CHECK(ar > 0);
    CHECK_EQ_U64(q->first_token_ps - q->arrival_ps, compute + 8 * ar); /* 2 per layer */
    CHECK_EQ_U64(q->done_ps, q->first_token_ps); /* one output token: the prefill's */
    /* a ring all_reduce moves 2(n − 1) pieces of S/n per rank: 2 × 2 × S/2 per collective */
    CHECK_EQ_U64(o.jr.infer.tp_net_bytes, 8 * 2 * ar_bytes);
    CHECK_EQ_U64(o.delivered, o.jr.infer.tp_net_bytes); /* all of it on the fabric */
    free(o.req);
}

/* The FCT of one flow of `bytes` from host 0 to host 1 alone on the fabric (an incast onto
 * host 1 from host 0 only). */
static sim_time lone_message(uint64_t bytes)
{
    char y[512];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - { kind: traffic, pattern: incast, hosts: [1, 0], size: %lluB }\n",
             (unsigned long long)bytes);
    out o = run_yaml(y, "p2p.yaml");
    free(o.req);
    CHECK(o.jr.completed);
    return o.jr.jct_ps;
}

/* pp 2 over two servers: the prefill runs stage 0 (2 layers), sends T·h·2 bytes of
 * activations to stage 1 over the fabric, runs stage 1 (2 layers + LM head): TTFT = both
 * stages' compute + the lone message. */
static void test_ttft_idle_pipeline(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    parallelism: { pp: 2 }\n"
             "    requests: { rate: 1, count: 1, prompt: 200, output: 1 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    double P = 200;
    sim_time compute = step_ps(4, 1, P, P * (P + 1) / 2, P, 1, 0);
    sim_time send = lone_message(200ull * H * 2);
    const request_record *q = &o.req[0];
    CHECK(send > 0);
    CHECK_EQ_U64(q->first_token_ps - q->arrival_ps, compute + send);
    CHECK_EQ_U64(o.jr.infer.pp_net_bytes, 200ull * H * 2);
    CHECK_EQ_U64(o.delivered, 200ull * H * 2);
    free(o.req);
}

/* Poisson arrivals of a seeded run: the gaps' mean is 1/rate within 4 standard errors, the
 * share of gaps above the mean is e^−1 within 4 standard errors (the exponential law), counts
 * per 1/rate window have variance ≈ mean (index of dispersion of a Poisson process). */
static void test_poisson_rate(void)
{
    const uint32_t N = 20000;
    const double rate = 50;
    char y[1024];
    snprintf(y, sizeof y,
             "seed: 7\n"
             "fabric: { preset: leaf-spine, servers: 1, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    requests: { rate: %g, count: %u, prompt: 16, output: 1 }\n",
             MODEL, rate, N);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    CHECK_EQ_U64(o.n_req, N);
    CHECK_EQ_U64(o.jr.infer.requests_done, N);
    double sum = 0, above = 0, mean_s = 1.0 / rate;
    sim_time prev = o.jr.start_ps;
    for (uint32_t i = 0; i < N; i++) {
        double g = (double)(o.req[i].arrival_ps - prev) / 1e12;
        prev = o.req[i].arrival_ps;
        sum += g;
        above += g > mean_s;
    }
    double mean = sum / N;
    CHECK(fabs(mean - mean_s) < 4 * mean_s / sqrt(N));
    double p = exp(-1.0);
    CHECK(fabs(above / N - p) < 4 * sqrt(p * (1 - p) / N));
    /* windows of 1/rate: counts with mean ≈ 1 and variance ≈ mean */
    uint32_t W = (uint32_t)((double)(prev - o.jr.start_ps) / 1e12 * rate);
    uint32_t *cnt = calloc(W + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < N; i++) {
        uint64_t w = (uint64_t)((double)(o.req[i].arrival_ps - o.jr.start_ps) / 1e12 * rate);
        if (w < W)
            cnt[w]++;
    }
    double m = 0, v = 0;
    for (uint32_t w = 0; w < W; w++)
        m += cnt[w];
    m /= W;
    for (uint32_t w = 0; w < W; w++)
        v += (cnt[w] - m) * (cnt[w] - m);
    v /= W - 1;
    /* the dispersion index's standard error is about sqrt(2 / W) */
    CHECK(fabs(v / m - 1.0) < 4 * sqrt(2.0 / W));
    CHECK(fabs(m - 1.0) < 0.05);
    free(cnt);
    free(o.req);
}

/* MoE with ep = tp = 2 across two servers: each layer dispatches and combines with all_to_alls
 * of ⌈T·top_k·h·2 / ep⌉ bytes per rank, of which (ep − 1)/ep leave each rank: per layer
 * 2 × ep × (ep − 1) × ⌈B / ep⌉ bytes; the TP traffic is the attention all_reduce and the
 * all_gather after the combine. */
static void test_moe_a2a_volume(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    parallelism: { tp: 2 }\n"
             "    moe: { experts: 8, top_k: 2, ep: 2 }\n"
             "    requests: { rate: 1, count: 1, prompt: 100, output: 1 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    uint64_t T = 100, ep = 2, layers = 4;
    uint64_t B = (T * 2 * H * 2 + ep - 1) / ep; /* per-rank send buffer */
    uint64_t per_layer = 2 * ep * (ep - 1) * ((B + ep - 1) / ep);
    CHECK_EQ_U64(o.jr.infer.ep_net_bytes, layers * per_layer);
    uint64_t S = T * H * 2; /* all_reduce: 2(n−1) pieces per rank; all_gather: n − 1 */
    CHECK_EQ_U64(o.jr.infer.tp_net_bytes, layers * (2 * 2 * (S / 2) + 2 * 1 * (S / 2)));
    CHECK_EQ_U64(o.delivered, o.jr.infer.ep_net_bytes + o.jr.infer.tp_net_bytes);
    CHECK(o.jr.completed);
    free(o.req);
}

/* Disaggregated: a prefill server and a decode server (tp 2 each). The request's KV cache,
 * 2·layers·kv_heads·head_dim·2 bytes per prompt token, crosses the fabric; TTFT is the prefill
 * alone; the first decode token waits for the cache. */
static void test_kv_transfer(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 2 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    parallelism: { tp: 2 }\n"
             "    requests: { rate: 1, count: 1, prompt: 300, output: 3 }\n"
             "    disaggregated: { prefill_gpus: 2, decode_gpus: 2 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    const request_record *q = &o.req[0];
    uint64_t kv = 2ull * 4 * 8 * (H / 8) * 2 * 300;
    CHECK_EQ_U64(o.jr.infer.kv_bytes, kv);
    CHECK_EQ_U64(o.delivered, kv);
    uint64_t bw = NVL_BPS;
    double P = 300;
    sim_time prefill = step_ps(4, 2, P, P * (P + 1) / 2, P, 1, ring_ar((uint64_t)P * H * 2, 2, bw));
    CHECK_EQ_U64(q->first_token_ps - q->arrival_ps, prefill);
    CHECK_EQ_U64(q->replica, 0);
    CHECK_EQ_U64(q->decode_replica, 1);
    sim_time dec = 0;
    for (uint32_t k = 1; k < 3; k++) {
        double c = P + k - 1;
        dec += step_ps(4, 2, 1, c + 1, c + 1, 1, ring_ar(1ull * H * 2, 2, bw));
    }
    /* decode = the transfer of kv/2 bytes per GPU over 400G links, then the steps */
    sim_time wire = sim_ser_time(kv / 2, 400000000000ull);
    CHECK(q->done_ps - q->first_token_ps > dec + wire);
    CHECK(q->done_ps - q->first_token_ps < dec + 2 * wire);
    CHECK_EQ_U64(o.jr.infer.requests_done, 1);
    free(o.req);
}

/* Continuous batching: a burst of 40 requests on one replica with max_batch 16 never runs more
 * than 16 at once (mean decode batch ≤ 16), and every request completes. */
static void test_batching(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "fabric: { preset: leaf-spine, servers: 1, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    requests: { rate: 100000, count: 40, prompt: 64, output: 20 }\n"
             "    batching: { max_batch: 16, max_tokens: 256 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    CHECK_EQ_U64(o.jr.infer.requests_done, 40);
    CHECK(o.jr.infer.mean_decode_batch <= 16.0);
    CHECK(o.jr.infer.mean_decode_batch > 4.0);
    /* prefill steps take at most 256 / 64 = 4 prompts each */
    CHECK(o.jr.infer.prefill_steps >= 10);
    CHECK_EQ_U64(o.jr.infer.output_tokens, 40 * 20);
    /* at any time at most 16 requests have their first token and not their last */
    for (uint64_t i = 0; i < o.n_req; i++) {
        uint32_t live = 0;
        sim_time t = o.req[i].first_token_ps;
        for (uint64_t k = 0; k < o.n_req; k++)
            live += o.req[k].first_token_ps <= t && o.req[k].done_ps > t;
        CHECK(live <= 16);
    }
    free(o.req);
}

/* Field by field: the record has padding after its 32-bit fields, which memcmp would read. */
static int same_requests(const request_record *a, const request_record *b, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (a[i].job != b[i].job || a[i].id != b[i].id || a[i].replica != b[i].replica ||
            a[i].decode_replica != b[i].decode_replica ||
            a[i].prompt_tokens != b[i].prompt_tokens ||
            a[i].output_tokens != b[i].output_tokens || a[i].generated != b[i].generated ||
            a[i].arrival_ps != b[i].arrival_ps || a[i].first_token_ps != b[i].first_token_ps ||
            a[i].done_ps != b[i].done_ps)
            return 0;
    return 1;
}

/* The same seed: identical request timelines; another seed: other arrivals. */
static void test_determinism(void)
{
    char y[1024];
    const char *fmt = "seed: %d\n"
                      "fabric: { preset: leaf-spine, servers: 2, gpus_per_server: 2 }\n"
                      "workload:\n"
                      "  - kind: inference\n%s"
                      "    parallelism: { tp: 2 }\n"
                      "    requests: { rate: 2000, count: 30, prompt: 200, output: 8 }\n"
                      "    disaggregated: { prefill_gpus: 2, decode_gpus: 2 }\n";
    snprintf(y, sizeof y, fmt, 3, MODEL);
    out a = run_yaml(y, "infer.yaml");
    out b = run_yaml(y, "infer.yaml");
    snprintf(y, sizeof y, fmt, 4, MODEL);
    out c = run_yaml(y, "infer.yaml");
    if (a.ok && b.ok && c.ok) {
        CHECK_EQ_U64(a.n_req, b.n_req);
        CHECK(same_requests(a.req, b.req, a.n_req));
        CHECK(!memcmp(&a.jr.infer, &b.jr.infer, sizeof a.jr.infer));
        CHECK(a.req[0].arrival_ps != c.req[0].arrival_ps);
    }
    free(a.req);
    free(b.req);
    free(c.req);
}

/* stop_at before the last request: the run ends there, the served ones are counted, the others
 * are listed without a last token, the job is not completed. */
static void test_stop_at(void)
{
    char y[1024];
    snprintf(y, sizeof y,
             "stop_at: 200ms\n"
             "fabric: { preset: leaf-spine, servers: 1, gpus_per_server: 1 }\n"
             "workload:\n"
             "  - kind: inference\n%s"
             "    requests: { rate: 20, count: 100, prompt: 64, output: 4 }\n",
             MODEL);
    out o = run_yaml(y, "infer.yaml");
    if (!o.ok)
        return;
    CHECK(!o.jr.completed);
    CHECK_EQ_U64(o.end, END_STOP_AT);
    CHECK_EQ_U64(o.n_req, 100);
    CHECK(o.jr.infer.requests_done > 0 && o.jr.infer.requests_done < 100);
    uint64_t done = 0;
    for (uint64_t i = 0; i < o.n_req; i++)
        done += o.req[i].done_ps != 0;
    CHECK_EQ_U64(done, o.jr.infer.requests_done);
    free(o.req);
}

/* A trace: each request arrives at its row's time with its row's tokens (a relative path is
 * read from the scenario's folder). */
static void test_trace(void)
{
    char dir[] = "/tmp/wr-infer-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char path[64], tr[64];
    snprintf(tr, sizeof tr, "%s/reqs.csv", dir);
    snprintf(path, sizeof path, "%s/s.yaml", dir);
    FILE *f = fopen(tr, "w");
    fputs("arrival,prompt_tokens,output_tokens\n0.001,100,3\n2ms,50,1\n2ms,70,2\n", f);
    fclose(f);
    f = fopen(path, "w");
    fprintf(f,
            "fabric: { preset: leaf-spine, servers: 1, gpus_per_server: 1 }\n"
            "workload:\n"
            "  - kind: inference\n%s"
            "    start: 1ms\n"
            "    requests: { trace: reqs.csv }\n",
            MODEL);
    fclose(f);
    scenario sc;
    err e;
    err_clear(&e);
    if (config_load(&sc, path, NULL, 0, &e)) {
        fprintf(stderr, "  config: %s:%d:%d: %s\n", e.file, e.line, e.col, e.msg);
        CHECK(0);
    } else {
        run *r = run_new(&sc, &e);
        CHECK(r != NULL);
        if (r) {
            run_execute(r, NULL, NULL);
            const run_stats *st = run_result(r);
            CHECK_EQ_U64(st->n_requests, 3);
            static const sim_time at[3] = {2000000000, 3000000000, 3000000000};
            static const uint32_t pr[3] = {100, 50, 70}, ou[3] = {3, 1, 2};
            for (uint32_t i = 0; i < 3 && i < st->n_requests; i++) {
                CHECK_EQ_U64(st->requests[i].arrival_ps, at[i]);
                CHECK_EQ_U64(st->requests[i].prompt_tokens, pr[i]);
                CHECK_EQ_U64(st->requests[i].output_tokens, ou[i]);
                CHECK_EQ_U64(st->requests[i].generated, ou[i]);
            }
            CHECK_EQ_U64(st->jobs[0].infer.output_tokens, 6);
            CHECK(st->jobs[0].completed);
            run_free(r);
        }
        scenario_free(&sc);
    }
    remove(tr);
    remove(path);
    remove(dir);
}

/* The KV bytes per token: Llama 3 70B (80 layers, 8 KV heads of 128) is 320 KiB per token;
 * under tp 16 each GPU keeps one KV head (replicated, as vLLM does when tp > kv_heads). */
static void test_kv_formula(void)
{
    cfg_job j;
    memset(&j, 0, sizeof j);
    j.model.preset = "llama3-70b";
    j.model.hidden = 8192;
    j.model.layers = 80;
    CHECK_EQ_U64(infer_kv_bytes_per_token(&j, 80, 1), 2ull * 80 * 8 * 128 * 2);
    CHECK_EQ_U64(infer_kv_bytes_per_token(&j, 80, 8), 2ull * 80 * 1 * 128 * 2);
    CHECK_EQ_U64(infer_kv_bytes_per_token(&j, 80, 16), 2ull * 80 * 1 * 128 * 2);
}

int main(void)
{
    TEST_RUN(test_kv_formula);
    TEST_RUN(test_ttft_idle_local);
    TEST_RUN(test_ttft_idle_network);
    TEST_RUN(test_ttft_idle_pipeline);
    TEST_RUN(test_poisson_rate);
    TEST_RUN(test_moe_a2a_volume);
    TEST_RUN(test_kv_transfer);
    TEST_RUN(test_batching);
    TEST_RUN(test_determinism);
    TEST_RUN(test_stop_at);
    TEST_RUN(test_trace);
    return tl_finish();
}
