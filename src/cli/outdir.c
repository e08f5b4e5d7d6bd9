/*
 * outdir.c — whole-folder replacement and temp-file-and-rename output (see outdir.h).
 *
 * The staging folder sits beside the target (same parent, so the same file system and rename
 * is atomic) and starts with '.', so an interrupted run (SIGKILL) leaves only a hidden folder,
 * never a half-written one under the real name. Files are created with O_EXCL; the process id
 * in every temp name keeps two runs writing beside each other apart (the last swap wins, with a
 * complete folder either way).
 */
#define _GNU_SOURCE /* renameat2, RENAME_EXCHANGE (glibc >= 2.28) */

#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/alloc.h"
#include "../report/jsonr.h"
#include "../report/jsonw.h"
#include "../report/manifest.h"

static char *path_join(const char *dir, const char *name, const char *prefix, const char *suffix)
{
    size_t n = strlen(dir) + strlen(name) + strlen(prefix) + strlen(suffix) + 2;
    char *p = xmalloc(n, "output path");
    snprintf(p, n, "%s/%s%s%s", dir, prefix, name, suffix);
    return p;
}

static int io_error(err *e, const char *path, const char *what)
{
    return err_set(e, ERR_IO, path, 0, 0, "%s: %s%s", path, what, strerror(errno));
}

/* Copy of dir without trailing slashes ("/" stays "/"); an existing folder is resolved
 * (".", "..", symlinks) so that its parent and name are real. */
static char *normalize(const char *dir)
{
    char *d = xstrdup(dir, "output dir");
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    char *real = realpath(d, NULL);
    if (real) {
        xfree(d);
        d = xstrdup(real, "output dir");
        free(real);
    }
    return d;
}

/* Names a run writes: a folder without manifest.json (an older release) holding only these is
 * a wirerate folder. */
static const char *const known_names[] = {
    "summary.json", "flows.csv",   "ports.csv",    "queues.csv",  "nics.csv",
    "timeseries.csv", "dcqcn_rates.csv", "transfers.csv", "requests.csv", "metrics.prom",
    "trace.json", "capture.pcap", "report.html", "results.db", "tenants.csv", MANIFEST_NAME,
};

static bool is_known(const char *name)
{
    for (size_t i = 0; i < sizeof known_names / sizeof known_names[0]; i++)
        if (strcmp(name, known_names[i]) == 0)
            return true;
    return false;
}

/* Every entry of `dir` (relative path `rel` below the output folder `top`) is ours: a file the
 * manifest lists, a folder holding only such files (plan's sonic/, nics/, ...), or one of the
 * names a run always may leave. ERR_IO naming the first foreign entry. */
static int check_entries(const char *top, const char *dir, const char *rel, const jsonr_val *files,
                         err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return io_error(e, dir, "");
    int rc = ERR_OK;
    struct dirent *de;
    while (rc == ERR_OK && (de = readdir(d))) {
        const char *n = de->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        char *r = *rel ? path_join(rel, n, "", "") : xstrdup(n, "output name");
        size_t rl = strlen(r);
        bool top_level = !*rel;
        bool ours = top_level && (strcmp(n, MANIFEST_NAME) == 0 || strcmp(n, "report.html") == 0);
        ours = ours || (n[0] == '.' && strstr(n, ".tmp-"));
        bool folder = false;
        for (const jsonr_val *x = files ? files->child : NULL; x && !ours && !folder; x = x->next) {
            const char *fn = jsonr_str(x, "name", "");
            ours = strcmp(fn, r) == 0;
            folder = strncmp(fn, r, rl) == 0 && fn[rl] == '/';
        }
        if (!files && top_level && is_known(n))
            ours = true;
        struct stat st;
        char *p = path_join(dir, n, "", "");
        if (lstat(p, &st) != 0 || (ours && !S_ISREG(st.st_mode)) ||
            (folder && !S_ISDIR(st.st_mode)))
            ours = folder = false;
        if (folder)
            rc = check_entries(top, p, r, files, e);
        else if (!ours)
            rc = err_set(e, ERR_IO, top, 0, 0,
                         "%s: refusing to replace this folder: '%s' was not written by wirerate "
                         "(a run replaces its whole output folder); choose another output "
                         "folder (-o) or move it away",
                         top, r);
        xfree(p);
        xfree(r);
    }
    closedir(d);
    return rc;
}

/* The whole of a (small) file, NUL-terminated; NULL if unreadable. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap, "manifest");
    size_t k;
    while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            buf = xrealloc(buf, cap *= 2, "manifest");
    }
    fclose(f);
    *len = n;
    return buf;
}

/* May `dir` (an existing folder) be replaced? ERR_OK, or ERR_IO naming the first foreign entry. */
static int check_replaceable(const char *dir, err *e)
{
    jsonr_doc *m = NULL;
    const jsonr_val *files = NULL;
    char *mp = path_join(dir, MANIFEST_NAME, "", "");
    size_t n;
    char *buf = read_all(mp, &n);
    if (buf) {
        size_t off;
        char msg[64];
        m = jsonr_parse(buf, n, &off, msg, sizeof msg);
        files = m ? jsonr_get(jsonr_root(m), "files") : NULL;
        if (files && files->type != JR_ARR)
            files = NULL;
        xfree(buf);
    }
    xfree(mp);
    int rc = check_entries(dir, dir, "", files, e);
    jsonr_free(m);
    return rc;
}

int outdir_preflight(const char *dir, err *e)
{
    if (!dir || !*dir)
        return err_set(e, ERR_IO, "output.dir", 0, 0, "empty output directory");
    char *d = normalize(dir);
    int rc = ERR_OK;
    struct stat st;
    if (stat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = check_replaceable(d, e);
        if (rc) {
            xfree(d);
            return rc;
        }
    }
    /* The parent (or deepest existing ancestor) must be a writable directory: the staging
     * folder is created there. */
    char *slash = strrchr(d, '/');
    if (slash && slash != d)
        *slash = '\0';
    else if (slash)
        d[1] = '\0';
    else
        strcpy(d, ".");
    for (;;) {
        if (stat(d, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                errno = ENOTDIR;
                rc = io_error(e, d, "");
            } else if (access(d, W_OK | X_OK) != 0) {
                rc = io_error(e, d, "");
            }
            break;
        }
        if (errno != ENOENT) {
            rc = io_error(e, d, "");
            break;
        }
        slash = strrchr(d, '/');
        if (!slash)
            strcpy(d, "."); /* relative path: the current directory is the ancestor */
        else if (slash == d)
            d[1] = '\0';
        else
            *slash = '\0';
    }
    xfree(d);
    return rc;
}

/* mkdir -p of `path`, remembering what was made so outdir_abort can take it back. */
static int make_dirs(outdir *o, const char *path, err *e)
{
    char *p = xstrdup(path, "output dir");
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char saved = *s;
        *s = '\0';
        if (mkdir(p, 0777) == 0) {
            if (o->n_created < OUTDIR_MAX_CREATED)
                o->created[o->n_created++] = xstrdup(p, "output dir");
        } else {
            struct stat st;
            if (errno != EEXIST || stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
                if (errno == EEXIST || errno == 0)
                    errno = ENOTDIR;
                int rc = io_error(e, p, "cannot create directory: ");
                xfree(p);
                return rc;
            }
        }
        *s = saved;
        if (!saved)
            break;
    }
    xfree(p);
    return ERR_OK;
}

int outdir_open(outdir *o, const char *dir, err *e)
{
    memset(o, 0, sizeof *o);
    o->dir = normalize(dir);
    struct stat st;
    if (stat(o->dir, &st) == 0) {
        int rc = !S_ISDIR(st.st_mode) ? (errno = ENOTDIR, io_error(e, o->dir, ""))
                                      : check_replaceable(o->dir, e);
        if (rc) {
            o->committed = true;
            return rc;
        }
    }
    /* parent and name */
    char *parent = xstrdup(o->dir, "output dir");
    char *slash = strrchr(parent, '/');
    const char *base = slash ? o->dir + (slash - parent) + 1 : o->dir;
    if (slash && slash != parent)
        *slash = '\0';
    else if (slash)
        parent[1] = '\0';
    else
        strcpy(parent, ".");
    char suffix[40];
    snprintf(suffix, sizeof suffix, ".wr-new-%ld", (long)getpid());
    o->stage = path_join(parent, base, ".", suffix);
    snprintf(suffix, sizeof suffix, ".wr-old-%ld", (long)getpid());
    o->old = path_join(parent, base, ".", suffix);
    int rc = strcmp(parent, ".") == 0 ? ERR_OK : make_dirs(o, parent, e);
    xfree(parent);
    if (!rc && mkdir(o->stage, 0777) != 0)
        rc = io_error(e, o->stage, "cannot create directory: ");
    if (rc) {
        xfree(o->stage);
        o->stage = NULL; /* not ours: never removed */
        outdir_abort(o);
        return rc;
    }
    return ERR_OK;
}

int outdir_open_into(outdir *o, const char *dir, err *e)
{
    memset(o, 0, sizeof *o);
    o->dir = normalize(dir);
    int rc = make_dirs(o, o->dir, e);
    if (rc)
        outdir_abort(o);
    return rc;
}

const char *outdir_path(const outdir *o)
{
    return o->stage ? o->stage : o->dir;
}

/* Grow a pointer array: the new one is filled before it replaces the old, so a signal handler
 * (outdir_abort) always walks a complete array. */
static char **grow(char **old, int n, int cap)
{
    char **a = xcalloc((size_t)cap, sizeof(char *), "output file list");
    if (n)
        memcpy(a, old, sizeof(char *) * (size_t)n);
    return a;
}

/* Make the folders of `name` (relative, with '/') inside the staging folder. */
static int make_subdirs(outdir *o, const char *name, err *e)
{
    char *rel = xstrdup(name, "output name");
    for (char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        char *p = path_join(o->stage, rel, "", "");
        *s = '/';
        if (mkdir(p, 0777) == 0) {
            if (o->n_subdirs == o->cap_subdirs) {
                int cap = o->cap_subdirs ? 2 * o->cap_subdirs : 64;
                char **a = grow(o->subdirs, o->n_subdirs, cap), **old = o->subdirs;
                o->subdirs = a;
                o->cap_subdirs = cap;
                xfree(old);
            }
            o->subdirs[o->n_subdirs++] = p;
        } else {
            xfree(p);
            if (errno != EEXIST) {
                int rc = io_error(e, o->stage, "cannot create a folder in: ");
                xfree(rel);
                return rc;
            }
        }
    }
    xfree(rel);
    return ERR_OK;
}

FILE *outdir_begin(outdir *o, const char *name, err *e)
{
    if (o->n_files == o->cap_files) {
        int cap = o->cap_files ? 2 * o->cap_files : 32;
        char **nn = grow(o->name, o->n_files, cap), **nt = grow(o->tmp, o->n_files, cap);
        char **nf = grow(o->final, o->n_files, cap);
        char **on = o->name, **ot = o->tmp, **of = o->final;
        o->name = nn;
        o->tmp = nt;
        o->final = nf;
        o->cap_files = cap;
        xfree(on);
        xfree(ot);
        xfree(of);
    }
    if (strchr(name, '/') && (!o->stage || make_subdirs(o, name, e)))
        return NULL;
    char *tmp;
    if (o->stage) {
        tmp = path_join(o->stage, name, "", "");
    } else {
        char suffix[32];
        snprintf(suffix, sizeof suffix, ".tmp-%ld", (long)getpid());
        tmp = path_join(o->dir, name, ".", suffix);
    }
    /* Recorded before the file exists, so a signal arriving in between still removes it. */
    o->tmp[o->n_files] = tmp;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        io_error(e, tmp, "");
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        o->tmp[o->n_files] = NULL;
        xfree(tmp);
        return NULL;
    }
    o->name[o->n_files] = xstrdup(name, "output name");
    o->final[o->n_files] = path_join(o->dir, name, "", "");
    o->n_files++;
    return f;
}

int outdir_end(outdir *o, FILE *f, err *e)
{
    /* Check each step: a full disk often shows only at fflush/fsync/fclose. */
    int bad = ferror(f) ? (errno ? errno : EIO) : 0;
    if (!bad && fflush(f) != 0)
        bad = errno;
    if (!bad && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
        bad = errno; /* EINVAL/EROFS: the file system cannot sync; the data is still written */
    if (fclose(f) != 0 && !bad)
        bad = errno;
    if (bad) {
        errno = bad;
        return io_error(e, o->n_files ? o->final[o->n_files - 1] : o->dir, "write failed: ");
    }
    return ERR_OK;
}

/* Size and FNV-1a 64 of a written file. */
static int hash_file(const char *path, uint64_t *bytes, uint64_t *h, err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return io_error(e, path, "");
    char buf[1 << 16];
    size_t n;
    *bytes = 0;
    *h = MANIFEST_FNV_SEED;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        *h = manifest_fnv1a64(buf, n, *h);
        *bytes += n;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        errno = EIO;
        return io_error(e, path, "");
    }
    return ERR_OK;
}

int outdir_write_manifest(outdir *o, err *e)
{
    if (!o->stage)
        return ERR_OK; /* add mode: the folder's manifest stays the run's */
    if (o->manifest_i) { /* rewritten over every file so far */
        unlink(o->tmp[o->manifest_i - 1]);
        int i = o->manifest_i - 1;
        xfree(o->name[i]);
        xfree(o->tmp[i]);
        xfree(o->final[i]);
        for (int k = i; k + 1 < o->n_files; k++) {
            o->name[k] = o->name[k + 1];
            o->tmp[k] = o->tmp[k + 1];
            o->final[k] = o->final[k + 1];
        }
        o->n_files--;
        o->name[o->n_files] = o->tmp[o->n_files] = o->final[o->n_files] = NULL;
        o->manifest_i = 0;
    }
    int n = o->n_files;
    uint64_t *bytes = xmalloc(sizeof(uint64_t) * (size_t)(n + 1), "manifest sizes");
    uint64_t *h = xmalloc(sizeof(uint64_t) * (size_t)(n + 1), "manifest hashes");
    uint64_t id = MANIFEST_FNV_SEED;
    for (int i = 0; i < n; i++) {
        int rc = hash_file(o->tmp[i], &bytes[i], &h[i], e);
        if (rc) {
            xfree(bytes);
            xfree(h);
            return rc;
        }
        id = manifest_fnv1a64(o->name[i], strlen(o->name[i]) + 1, id);
        id = manifest_fnv1a64(&h[i], sizeof h[i], id);
    }
    FILE *f = outdir_begin(o, MANIFEST_NAME, e);
    if (!f) {
        xfree(bytes);
        xfree(h);
        return ERR_IO;
    }
    o->manifest_i = o->n_files;
    jsonw jw, *w = &jw;
    jsonw_init(w, f, true);
    char hex[24];
    jsonw_obj_begin(w);
    jsonw_key(w, "tool");
    jsonw_str(w, "wirerate");
    jsonw_key(w, "version");
    jsonw_str(w, WR_VERSION);
    snprintf(hex, sizeof hex, "%016" PRIx64, id);
    jsonw_key(w, "run_id");
    jsonw_str(w, hex);
    jsonw_key(w, "files");
    jsonw_arr_begin(w);
    for (int i = 0; i < n; i++) {
        jsonw_obj_begin(w);
        jsonw_key(w, "name");
        jsonw_str(w, o->name[i]);
        jsonw_key(w, "bytes");
        jsonw_u64(w, bytes[i]);
        snprintf(hex, sizeof hex, "%016" PRIx64, h[i]);
        jsonw_key(w, "fnv1a64");
        jsonw_str(w, hex);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
    jsonw_obj_end(w);
    jsonw_end(w);
    xfree(bytes);
    xfree(h);
    return outdir_end(o, f, e);
}

/* Remove a folder we verified holds only files of ours (the previous run's), with the
 * subfolders they are in. */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = path_join(dir, de->d_name, "", "");
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_folder(p);
        else
            unlink(p);
        xfree(p);
    }
    closedir(d);
    rmdir(dir);
}

int outdir_commit(outdir *o, err *e)
{
    if (!o->stage) { /* add mode: rename each file into place */
        for (int i = 0; i < o->n_files; i++) {
            if (rename(o->tmp[i], o->final[i]) != 0) {
                int rc = io_error(e, o->final[i], "cannot rename into place: ");
                for (int j = i; j < o->n_files; j++)
                    unlink(o->tmp[j]);
                o->committed = true;
                return rc;
            }
        }
        o->committed = true;
        return ERR_OK;
    }
    int rc = outdir_write_manifest(o, e);
    if (rc)
        return rc;
    struct stat st;
    if (stat(o->dir, &st) != 0) {
        if (rename(o->stage, o->dir) != 0)
            return io_error(e, o->dir, "cannot rename into place: ");
        o->committed = true;
        return ERR_OK;
    }
    /* Checked again: a file may have been added to the folder while the run was simulating. */
    if ((rc = check_replaceable(o->dir, e)))
        return rc;
    if (renameat2(AT_FDCWD, o->stage, AT_FDCWD, o->dir, RENAME_EXCHANGE) == 0) {
        o->committed = true;
        remove_folder(o->stage); /* now the previous run's folder */
        return ERR_OK;
    }
    /* No atomic exchange here (old kernel, some file systems): the previous folder goes aside,
     * then the new one takes its name. */
    if (rename(o->dir, o->old) != 0)
        return io_error(e, o->dir, "cannot move the previous results aside: ");
    if (rename(o->stage, o->dir) != 0) {
        rc = io_error(e, o->dir, "cannot rename into place: ");
        rename(o->old, o->dir); /* put the previous results back */
        return rc;
    }
    o->committed = true;
    remove_folder(o->old);
    return ERR_OK;
}

void outdir_abort(outdir *o)
{
    /* Only unlink/rmdir and plain stores: this also runs from a signal handler. */
    if (!o->committed) {
        char **tmp = o->tmp;
        for (int i = 0; tmp && i < o->cap_files; i++)
            if (tmp[i])
                unlink(tmp[i]);
        char **sub = o->subdirs;
        for (int i = o->n_subdirs - 1; sub && i >= 0; i--)
            rmdir(sub[i]);
        if (o->stage)
            rmdir(o->stage);
        for (int i = o->n_created - 1; i >= 0; i--)
            rmdir(o->created[i]); /* fails harmlessly if someone else put files there */
    }
    o->committed = true;
}

const char *const *outdir_files(const outdir *o)
{
    return (const char *const *)o->final;
}

void outdir_free(outdir *o)
{
    for (int i = 0; i < o->n_files; i++) {
        xfree(o->name[i]);
        xfree(o->tmp[i]);
        xfree(o->final[i]);
    }
    xfree(o->name);
    xfree(o->tmp);
    xfree(o->final);
    for (int i = 0; i < o->n_subdirs; i++)
        xfree(o->subdirs[i]);
    xfree(o->subdirs);
    for (int i = 0; i < o->n_created; i++)
        xfree(o->created[i]);
    xfree(o->stage);
    xfree(o->old);
    xfree(o->dir);
    memset(o, 0, sizeof *o);
}
