/*
 * env.h — the environment switches wirerate reads (WR_HUGEPAGES, WR_PREFETCH, WR_FAST_PATH):
 * one spelling of "off" for all of them, so that a user who turns one off the way another is
 * documented gets what they asked for.
 */
#ifndef WR_CORE_ENV_H
#define WR_CORE_ENV_H

#include <stdbool.h>
#include <string.h>

/* Whether a switch's value turns it off: 0, off, no or false. (NULL or empty: not set.) */
static inline bool env_value_off(const char *v)
{
    return v && (strcmp(v, "0") == 0 || strcmp(v, "off") == 0 || strcmp(v, "no") == 0 ||
                 strcmp(v, "false") == 0);
}

#endif
