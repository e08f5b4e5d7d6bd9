/*
 * hotpath.h — include LAST in files whose functions run inside event handlers. It poisons the
 * heap functions so a malloc/free in the hot path is a compile error (as ROSS does for model
 * code). Growth that must happen (the event heap, pools) lives in core files that do not
 * include this header and happens only before steady state.
 */
#ifndef WR_CORE_HOTPATH_H
#define WR_CORE_HOTPATH_H
#include <stdlib.h>
#include <string.h>
#pragma GCC poison malloc calloc realloc free strdup xmalloc xcalloc xrealloc xfree xstrdup
#endif
