#include "testlib.h"

int tl_failures = 0;
int tl_checks = 0;
const char *tl_current = "";

int tl_finish(void)
{
    fprintf(stderr, "%d checks, %d failed\n", tl_checks, tl_failures);
    return tl_failures ? 1 : 0;
}
