/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm hostlist expressions: "tux[01-04,07],login1" stands for tux01, tux02,
   tux03, tux04, tux07, login1. Pure C, no MPI: unit-tested on its own.

   Grammar: a comma-separated list of names (commas inside brackets belong to
   the brackets); a name is literal text with any number of bracket groups,
   each a comma-separated list of numbers and ranges lo-hi (lo <= hi, at most
   9 digits). A range is padded with zeros to the width of its low bound
   ("01-10": 01 ... 10). Several groups in one name give every combination,
   the leftmost group varying slowest ("r[1-2]n[1-2]": r1n1 r1n2 r2n1 r2n2).
   An expression expands to at most HSPLIT_HOSTLIST_MAX names of at most
   HSPLIT_HOSTLIST_MAX_NAME characters each, checked before anything is
   expanded: its cost is bounded by its length and these two limits. */
#ifndef HSPLIT_HOSTLIST_H
#define HSPLIT_HOSTLIST_H

#include <stddef.h>

enum {
    HSPLIT_HOSTLIST_OK = 0,
    HSPLIT_HOSTLIST_MALFORMED,    /* not a hostlist expression                */
    HSPLIT_HOSTLIST_TOO_LARGE,    /* expands to more than HSPLIT_HOSTLIST_MAX */
    HSPLIT_HOSTLIST_NOMEM,
    HSPLIT_HOSTLIST_STOPPED,      /* the callback asked to stop                */
    HSPLIT_HOSTLIST_NAME_TOO_LONG /* a name longer than HSPLIT_HOSTLIST_MAX_NAME */
};

/* Most names one expression may expand to: a typing mistake such as
   "n[0-999999999]" is refused instead of exhausting memory. */
#define HSPLIT_HOSTLIST_MAX 1000000

/* Most characters of one name (DNS host names have at most 253): with
   HSPLIT_HOSTLIST_MAX, bounds the memory of an expansion whatever the
   length of the literal text around the brackets. */
#define HSPLIT_HOSTLIST_MAX_NAME 255

/* Called with each name in order; a non-zero return stops the expansion. */
typedef int (*hsplit_hostlist_fn)(const char *name, void *arg);

/* Check the whole expression, then call fn on each name in order (fn is never
   called for a malformed or too large expression, nor for one with a name
   that is too long). Returns an HSPLIT_HOSTLIST_* status. */
int hsplit_hostlist_foreach(const char *expr, hsplit_hostlist_fn fn, void *arg);

/* Number of names of a well-formed expression, or -1 (malformed / too large /
   a name too long). */
long hsplit_hostlist_count(const char *expr);

/* Check the expression without expanding it: HSPLIT_HOSTLIST_OK (and *count
   gets its number of names), HSPLIT_HOSTLIST_MALFORMED (a malformed name
   anywhere comes first), HSPLIT_HOSTLIST_TOO_LARGE or
   HSPLIT_HOSTLIST_NAME_TOO_LONG. Time linear in the length of expr. */
int hsplit_hostlist_check(const char *expr, long *count);

#endif /* HSPLIT_HOSTLIST_H */
