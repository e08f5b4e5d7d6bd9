#include "testlib.h"

#include "config/config.h"
#include "workload/run.h"

int tl_failures = 0;
int tl_checks = 0;
const char *tl_current = "";

int tl_finish(void)
{
    fprintf(stderr, "%d checks, %d failed\n", tl_checks, tl_failures);
    return tl_failures ? 1 : 0;
}

struct run *tl_start(struct scenario *sc, const char *name, const char *yaml,
                     const struct cfg_override *ov, int n_ov)
{
    err e;
    err_clear(&e);
    tl_checks++;
    if (config_load_buffer(sc, name, yaml, strlen(yaml), ov, n_ov, &e)) {
        fprintf(stderr, "%s: config: %d:%d: %s\n", tl_current, e.line, e.col, e.msg);
        tl_failures++;
        return NULL;
    }
    run *r = run_new(sc, &e);
    if (!r) {
        fprintf(stderr, "%s: build: %d:%d: %s\n", tl_current, e.line, e.col, e.msg);
        tl_failures++;
        scenario_free(sc);
    }
    return r;
}
