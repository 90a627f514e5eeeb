/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: any text as a Slurm hostlist expression (c/src/hostlist.c).
   The parser must never crash, leak or overrun, and its answers must agree:
   - hsplit_hostlist_check, hsplit_hostlist_count and hsplit_hostlist_foreach
     give the same verdict, and nothing is produced from a refused expression;
   - an accepted expression expands to exactly the counted number of names,
     each non-empty, of at most HSPLIT_HOSTLIST_MAX_NAME characters, with no
     bracket, comma or white space;
   - each name is itself an expression that expands to exactly that name;
   - a callback that asks to stop after k names gets exactly k (and the
     status says it stopped, even at the last name).
   Inputs whose expansion is long are only checked, not expanded (time).
   Built with clang (tests/input_limits.cmake). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"

enum { EXPAND_AT_MOST = 4096 };

typedef struct {
    long count, stop_after;
} walk;

/* The only name of a single-name expression, compared with the expected one. */
typedef struct {
    const char *expected;
    int count, same;
} echo;

static int echo_name(const char *name, void *arg)
{
    echo *e = arg;
    e->count++;
    e->same = strcmp(name, e->expected) == 0;
    return 0;
}

static int check_name(const char *name, void *arg)
{
    walk *w = arg;
    size_t len = strlen(name);
    if (len == 0 || len > HSPLIT_HOSTLIST_MAX_NAME) abort();
    for (size_t i = 0; i < len; i++)
        if (name[i] == '[' || name[i] == ']' || name[i] == ',' ||
            isspace((unsigned char)name[i]))
            abort();
    echo e = {name, 0, 0};
    long n = -1;
    if (hsplit_hostlist_check(name, &n) != HSPLIT_HOSTLIST_OK || n != 1 ||
        hsplit_hostlist_foreach(name, echo_name, &e) != HSPLIT_HOSTLIST_OK || e.count != 1 ||
        !e.same)
        abort();
    w->count++;
    return w->stop_after > 0 && w->count == w->stop_after;
}

static int never_called(const char *name, void *arg)
{
    (void)name;
    (void)arg;
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *expr = malloc(size + 1);
    if (expr == NULL) return 0;
    memcpy(expr, data, size);
    expr[size] = '\0'; /* an embedded NUL ends the expression early: fine */

    long count = -1;
    int status = hsplit_hostlist_check(expr, &count);
    if (status != HSPLIT_HOSTLIST_OK && status != HSPLIT_HOSTLIST_MALFORMED &&
        status != HSPLIT_HOSTLIST_TOO_LARGE && status != HSPLIT_HOSTLIST_NAME_TOO_LONG)
        abort();
    if (status == HSPLIT_HOSTLIST_OK && (count < 1 || count > HSPLIT_HOSTLIST_MAX)) abort();
    if ((status == HSPLIT_HOSTLIST_OK ? count : -1) != hsplit_hostlist_count(expr)) abort();

    if (status != HSPLIT_HOSTLIST_OK) {
        if (hsplit_hostlist_foreach(expr, never_called, NULL) != status) abort();
    } else if (count <= EXPAND_AT_MOST) {
        walk w = {0, 0};
        if (hsplit_hostlist_foreach(expr, check_name, &w) != HSPLIT_HOSTLIST_OK ||
            w.count != count)
            abort();
        walk stop = {0, 1 + (long)(size % (size_t)count)};
        int rc = hsplit_hostlist_foreach(expr, check_name, &stop);
        if (stop.count != stop.stop_after || rc != HSPLIT_HOSTLIST_STOPPED) abort();
    }
    free(expr);
    return 0;
}
