/*
 * outdir.c — temp-file-and-rename output (see outdir.h).
 *
 * Temp files are created with O_EXCL and the process id in their name, so two runs writing to
 * the same folder never write into each other's temp files; the last rename wins, with complete
 * files either way. They start with '.' so an interrupted run (SIGKILL) leaves only hidden
 * debris, never a truncated summary.json under its real name.
 */
#define _POSIX_C_SOURCE 200809L

#include "outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/alloc.h"

static char *path_join(const char *dir, const char *name, const char *prefix, const char *suffix)
{
    size_t n = strlen(dir) + strlen(name) + strlen(prefix) + strlen(suffix) + 2;
    char *p = xmalloc(n, "output path");
    snprintf(p, n, "%s/%s%s%s", dir, prefix, name, suffix);
    return p;
}

static int io_error(err *e, const char *path, const char *what)
{
    return err_set(e, ERR_IO, path, 0, 0, "%s%s", what, strerror(errno));
}

/* Copy of dir without trailing slashes ("/" stays "/"). */
static char *normalize(const char *dir)
{
    char *d = xstrdup(dir, "output dir");
    size_t n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    return d;
}

int outdir_preflight(const char *dir, err *e)
{
    if (!dir || !*dir)
        return err_set(e, ERR_IO, "output.dir", 0, 0, "empty output directory");
    char *d = normalize(dir);
    int rc = ERR_OK;
    /* Find the deepest existing ancestor; it must be a writable directory. */
    for (;;) {
        struct stat st;
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
        char *slash = strrchr(d, '/');
        if (!slash) {
            strcpy(d, "."); /* relative path: the current directory is the ancestor */
        } else if (slash == d) {
            d[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    xfree(d);
    return rc;
}

int outdir_open(outdir *o, const char *dir, err *e)
{
    memset(o, 0, sizeof *o);
    o->dir = normalize(dir);
    /* mkdir -p, remembering what we made so outdir_abort can take it back. */
    char *p = xstrdup(o->dir, "output dir");
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char saved = *s;
        *s = '\0';
        if (mkdir(p, 0777) == 0) {
            if (o->n_created < OUTDIR_MAX_CREATED)
                o->created[o->n_created++] = xstrdup(p, "output dir");
        } else if (errno != EEXIST) {
            int rc = io_error(e, p, "cannot create directory: ");
            xfree(p);
            outdir_abort(o);
            return rc;
        } else {
            struct stat st;
            if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
                errno = ENOTDIR;
                int rc = io_error(e, p, "cannot create directory: ");
                xfree(p);
                outdir_abort(o);
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

FILE *outdir_begin(outdir *o, const char *name, err *e)
{
    if (o->n_files >= OUTDIR_MAX_FILES) {
        errno = EMFILE;
        io_error(e, name, "");
        return NULL;
    }
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp-%ld", (long)getpid());
    char *tmp = path_join(o->dir, name, ".", suffix);
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
    o->final[o->n_files] = path_join(o->dir, name, "", "");
    o->n_files++;
    return f;
}

int outdir_end(outdir *o, FILE *f, err *e)
{
    const char *path = o->n_files ? o->tmp[o->n_files - 1] : o->dir;
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
        return io_error(e, o->n_files ? o->final[o->n_files - 1] : path, "write failed: ");
    }
    return ERR_OK;
}

int outdir_commit(outdir *o, err *e)
{
    for (int i = 0; i < o->n_files; i++) {
        if (rename(o->tmp[i], o->final[i]) != 0) {
            int rc = io_error(e, o->final[i], "cannot rename into place: ");
            /* Files renamed already are complete; remove the rest of the temps. */
            for (int j = i; j < o->n_files; j++)
                unlink(o->tmp[j]);
            o->committed = true;
            return rc;
        }
    }
    o->committed = true;
    return ERR_OK;
}

void outdir_abort(outdir *o)
{
    /* Only unlink/rmdir and plain stores: this also runs from a signal handler. */
    if (!o->committed) {
        for (int i = 0; i < OUTDIR_MAX_FILES; i++)
            if (o->tmp[i])
                unlink(o->tmp[i]);
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
        xfree(o->tmp[i]);
        xfree(o->final[i]);
    }
    for (int i = 0; i < o->n_created; i++)
        xfree(o->created[i]);
    xfree(o->dir);
    memset(o, 0, sizeof *o);
}
