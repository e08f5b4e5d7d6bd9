/*
 * test_bad_inputs.c — every tests/bad/NAME.yaml must fail to load with exactly the first line
 * held in tests/bad/NAME.err:
 *
 *     NAME.yaml:LINE:COL: error: MESSAGE
 *
 * (the file as its base name, as in jq's .test triples and SQLite's do_test: the expected text
 * lives beside the input). An optional NAME.set holds `--set` overrides, one KEY=VALUE per line;
 * errors in them read `--set:INDEX:COL: error: ...`.
 *
 * Bad inputs that only a later stage can reject (e.g. a leaf radix too small for its rails, found
 * by the topology builder) live in the same directory with the same .err format, and start with
 * the line `# stage: build`; this runner skips them and another runner owns them.
 */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include <dirent.h>
#include <stdlib.h>

#include "config/config.h"
#include "testlib.h"

#define BAD_DIR WR_SOURCE_DIR "/tests/bad"
#define MAX_CASES 512

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(fp);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Returns 1 when checked, 0 when skipped. */
static int run_case(const char *name)
{
    char yaml[1024], errf[1024], setf[1024];
    snprintf(yaml, sizeof yaml, "%s/%s.yaml", BAD_DIR, name);
    snprintf(errf, sizeof errf, "%s/%s.err", BAD_DIR, name);
    snprintf(setf, sizeof setf, "%s/%s.set", BAD_DIR, name);

    char *src = slurp(yaml, NULL);
    if (src && strncmp(src, "# stage: build", 14) == 0) {
        free(src);
        return 0;
    }
    free(src);

    char *want = slurp(errf, NULL);
    tl_checks++;
    if (!want) {
        tl_failures++;
        fprintf(stderr, "FAIL %s: missing %s\n", name, errf);
        return 1;
    }
    want[strcspn(want, "\n")] = '\0';

    cfg_override ov[16];
    int n_ov = 0;
    char *sets = slurp(setf, NULL);
    if (sets) {
        for (char *line = strtok(sets, "\n"); line && n_ov < 16; line = strtok(NULL, "\n")) {
            char *eq = strchr(line, '=');
            if (!eq)
                continue;
            *eq = '\0';
            ov[n_ov].key = line;
            ov[n_ov].value = eq + 1;
            n_ov++;
        }
    }

    scenario sc;
    err e;
    int rc = config_load(&sc, yaml, ov, n_ov, &e);
    char got[2048];
    if (rc == ERR_OK) {
        snprintf(got, sizeof got, "(loaded without error)");
        scenario_free(&sc);
    } else {
        snprintf(got, sizeof got, "%s:%d:%d: error: %s", base(e.file), e.line, e.col, e.msg);
    }
    if (rc != ERR_INVALID || strcmp(got, want) != 0) {
        tl_failures++;
        fprintf(stderr, "FAIL %s (code %d)\n  - %s\n  + %s\n", name, rc, want, got);
    } else if (sc.tree != NULL) {
        tl_failures++;
        fprintf(stderr, "FAIL %s: scenario not freed after the error\n", name);
    }
    free(sets);
    free(want);
    return 1;
}

static void test_bad_dir(void)
{
    DIR *d = opendir(BAD_DIR);
    CHECK(d != NULL);
    if (!d)
        return;
    char *names[MAX_CASES];
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL && n < MAX_CASES) {
        size_t l = strlen(ent->d_name);
        if (l > 5 && strcmp(ent->d_name + l - 5, ".yaml") == 0) {
            names[n] = malloc(l - 4);
            memcpy(names[n], ent->d_name, l - 5);
            names[n][l - 5] = '\0';
            n++;
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        checked += run_case(names[i]);
        free(names[i]);
    }
    fprintf(stderr, "  %d bad inputs checked, %d left to later stages\n", checked, n - checked);
    CHECK(checked >= 25);
}

int main(void)
{
    TEST_RUN(test_bad_dir);
    return tl_finish();
}
