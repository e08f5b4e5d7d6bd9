/*
 * fuzz_loader.c — libFuzzer entry for the scenario loader. Whatever the bytes, loading must
 * either succeed or return an error with a message, never crash, and never leak: the scenario
 * (or nothing, after an error) is freed every time.
 *
 * Leading lines of the form "#set KEY=VALUE" (up to 4) are also applied as --set overrides, so
 * the override path is fuzzed too; to YAML they are comments.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';

    /* Overrides come from a NUL-terminated copy (keys and values are C strings). */
    char *ovtext = malloc(size + 1);
    if (!ovtext) {
        free(buf);
        return 0;
    }
    memcpy(ovtext, data, size);
    ovtext[size] = '\0';
    cfg_override ov[4];
    int n_ov = 0;
    char *p = ovtext;
    while (n_ov < 4 && strncmp(p, "#set ", 5) == 0) {
        char *eol = strchr(p, '\n');
        if (!eol)
            break;
        *eol = '\0';
        char *eq = strchr(p + 5, '=');
        if (eq) {
            *eq = '\0';
            ov[n_ov].key = p + 5;
            ov[n_ov].value = eq + 1;
            n_ov++;
        }
        p = eol + 1;
    }

    scenario sc;
    err e;
    int rc = config_load_buffer(&sc, "fuzz.yaml", buf, size, ov, n_ov, &e);
    if (rc == ERR_OK) {
        int line, col;
        (void)config_locate(&sc, "fabric.leaf_radix", &line, &col);
        (void)config_locate(&sc, "workload[0].size", &line, &col);
        err e2;
        err_clear(&e2);
        (void)config_error_at(&sc, &e2, "fabric.servers", "check %d", 1);
        scenario_free(&sc);
    } else if (e.msg[0] == '\0') {
        abort(); /* every error carries a message */
    }

    /* The unit parsers on the raw text as well. */
    uint64_t v;
    uint32_t a, b;
    char why[128];
    units_rate(buf, &v, why, sizeof why);
    units_time(buf, &v, why, sizeof why);
    units_size(buf, &v, why, sizeof why);
    units_length(buf, &v, why, sizeof why);
    units_ratio(buf, &a, &b, why, sizeof why);

    free(ovtext);
    free(buf);
    return 0;
}
