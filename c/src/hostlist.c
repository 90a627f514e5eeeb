/* SPDX-License-Identifier: BSD-3-Clause */
/* Slurm hostlist expressions (see hostlist.h). The expression is checked and
   counted in a first pass, so that nothing is produced from a malformed one;
   the second pass runs an odometer over the bracket groups of each name. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"

enum { MAX_DIGITS = 9 };

typedef struct {
    long lo, hi;
    int width; /* digits of lo: the zero padding of the range */
} range;

/* A number of 1 to MAX_DIGITS digits at *p; advances *p. */
static int parse_number(const char **p, const char *end, long *value, int *digits)
{
    long v = 0;
    int n = 0;
    while (*p < end && isdigit((unsigned char)**p)) {
        if (++n > MAX_DIGITS) return -1;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    if (n == 0) return -1;
    *value = v;
    *digits = n;
    return 0;
}

/* One element of a bracket group, "7" or "01-04", starting at p and ending at
   a comma or at end; *next gets the position after it (at the comma or end). */
static int parse_element(const char *p, const char *end, range *r, const char **next)
{
    int hi_digits;
    if (parse_number(&p, end, &r->lo, &r->width) != 0) return -1;
    r->hi = r->lo;
    if (p < end && *p == '-') {
        p++;
        if (parse_number(&p, end, &r->hi, &hi_digits) != 0 || r->hi < r->lo) return -1;
    }
    if (p < end && *p != ',') return -1;
    *next = p;
    return 0;
}

/* Digits of a non-negative number. */
static int digits_of(long v)
{
    int n = 1;
    for (; v >= 10; v /= 10) n++;
    return n;
}

/* Names in the bracket group [open+1, close) (clamped to HSPLIT_HOSTLIST_MAX
   + 1), or -1 if malformed; *widest gets the most characters one of its
   numbers is written with. Every element is read even past the clamp: a
   malformed one is reported as such. */
static long group_count(const char *open, const char *close, int *widest)
{
    long count = 0;
    const char *p = open + 1;
    *widest = 0;
    for (;;) {
        range r;
        if (parse_element(p, close, &r, &p) != 0) return -1;
        int width = digits_of(r.hi) > r.width ? digits_of(r.hi) : r.width;
        if (width > *widest) *widest = width;
        count += r.hi - r.lo + 1; /* at most 1e9 more: no overflow */
        if (count > HSPLIT_HOSTLIST_MAX) count = HSPLIT_HOSTLIST_MAX + 1L;
        if (p == close) return count;
        p++; /* the comma */
    }
}

static int is_name_char(char c)
{
    return c != '[' && c != ']' && c != ',' && !isspace((unsigned char)c) && c != '\0';
}

/* Names of the name [s, end) (no top-level comma inside; clamped to
   HSPLIT_HOSTLIST_MAX + 1), or -1 if malformed; *ngroups gets its number of
   bracket groups, *longest the length of its longest name (its literal text
   and the widest number of each group). */
static long name_count(const char *s, const char *end, int *ngroups, size_t *longest)
{
    long count = 1;
    *ngroups = 0;
    *longest = 0;
    if (s == end) return -1; /* empty name */
    for (const char *p = s; p < end;) {
        if (*p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            if (close == NULL || memchr(p + 1, '[', (size_t)(close - p - 1)) != NULL) return -1;
            int widest;
            long n = group_count(p, close, &widest);
            if (n < 0) return -1;
            /* clamped: the product of many groups must not overflow */
            count = count > HSPLIT_HOSTLIST_MAX / n ? HSPLIT_HOSTLIST_MAX + 1L : count * n;
            *longest += (size_t)widest;
            (*ngroups)++;
            p = close + 1;
        } else if (is_name_char(*p)) {
            (*longest)++;
            p++;
        } else {
            return -1; /* stray ']' or white space */
        }
    }
    return count;
}

/* End of the name that starts at s: the next comma outside brackets. */
static const char *name_end(const char *s)
{
    int depth = 0;
    for (; *s != '\0'; s++) {
        if (*s == '[') depth++;
        else if (*s == ']') depth--;
        else if (*s == ',' && depth == 0) break;
    }
    return s;
}

int hsplit_hostlist_check(const char *expr, long *count)
{
    if (expr == NULL) return HSPLIT_HOSTLIST_MALFORMED;
    long total = 0;
    size_t longest = 0;
    /* every name is read: a malformed one anywhere wins over the limits */
    for (const char *s = expr;;) {
        const char *end = name_end(s);
        int ngroups;
        size_t len;
        long n = name_count(s, end, &ngroups, &len);
        if (n < 0) return HSPLIT_HOSTLIST_MALFORMED;
        total = total > HSPLIT_HOSTLIST_MAX - n ? HSPLIT_HOSTLIST_MAX + 1L : total + n;
        if (len > longest) longest = len;
        if (*end == '\0') break;
        s = end + 1;
    }
    if (total > HSPLIT_HOSTLIST_MAX) return HSPLIT_HOSTLIST_TOO_LARGE;
    if (longest > HSPLIT_HOSTLIST_MAX_NAME) return HSPLIT_HOSTLIST_NAME_TOO_LONG;
    if (count != NULL) *count = total;
    return HSPLIT_HOSTLIST_OK;
}

long hsplit_hostlist_count(const char *expr)
{
    long count = -1;
    return hsplit_hostlist_check(expr, &count) == HSPLIT_HOSTLIST_OK ? count : -1;
}

/* The odometer state of one bracket group. */
typedef struct {
    const char *open, *close; /* the brackets                         */
    const char *element;      /* start of the current element        */
    range r;
    long value;
    size_t at;                /* where its digits go in the name     */
} group_state;

static void group_reset(group_state *g)
{
    const char *next;
    g->element = g->open + 1;
    parse_element(g->element, g->close, &g->r, &next);
    g->value = g->r.lo;
}

/* Next value of a group; 0 when it wrapped around to its first one. */
static int group_advance(group_state *g)
{
    if (g->value < g->r.hi) {
        g->value++;
        return 1;
    }
    const char *next;
    parse_element(g->element, g->close, &g->r, &next);
    if (next == g->close) {
        group_reset(g);
        return 0;
    }
    g->element = next + 1;
    parse_element(g->element, g->close, &g->r, &next);
    g->value = g->r.lo;
    return 1;
}

/* Every name of one well-formed name [s, end) with ngroups groups. */
static int expand_name(const char *s, const char *end, int ngroups, hsplit_hostlist_fn fn,
                       void *arg)
{
    size_t cap = (size_t)(end - s) + (size_t)ngroups * MAX_DIGITS + 1;
    char *name = malloc(cap), *lits = malloc(cap);
    group_state *groups = calloc((size_t)(ngroups > 0 ? ngroups : 1), sizeof *groups);
    size_t *lit_at = calloc((size_t)ngroups + 1, sizeof *lit_at);  /* literal run starts */
    size_t *lit_len = calloc((size_t)ngroups + 1, sizeof *lit_len);
    int status = name && lits && groups && lit_at && lit_len ? HSPLIT_HOSTLIST_OK
                                                             : HSPLIT_HOSTLIST_NOMEM;
    /* split into literal runs and groups: lit0 [g0] lit1 [g1] ... lit_n */
    size_t nlits = 0;
    int g = 0;
    for (const char *p = s; status == HSPLIT_HOSTLIST_OK && p <= end;) {
        const char *open = p;
        while (open < end && *open != '[') open++;
        lit_at[g] = nlits;
        lit_len[g] = (size_t)(open - p);
        memcpy(lits + nlits, p, lit_len[g]);
        nlits += lit_len[g];
        if (open == end) break;
        groups[g].open = open;
        groups[g].close = memchr(open, ']', (size_t)(end - open));
        group_reset(&groups[g]);
        p = groups[g].close + 1;
        g++;
    }
    while (status == HSPLIT_HOSTLIST_OK) {
        size_t len = 0;
        for (int i = 0; i <= ngroups; i++) {
            memcpy(name + len, lits + lit_at[i], lit_len[i]);
            len += lit_len[i];
            if (i < ngroups)
                len += (size_t)snprintf(name + len, cap - len, "%0*ld", groups[i].r.width,
                                        groups[i].value);
        }
        name[len] = '\0';
        if (fn(name, arg) != 0) status = HSPLIT_HOSTLIST_STOPPED;
        int i = ngroups - 1;
        while (i >= 0 && !group_advance(&groups[i])) i--;
        if (i < 0) break; /* every group wrapped: all combinations done */
    }
    free(name);
    free(lits);
    free(groups);
    free(lit_at);
    free(lit_len);
    return status;
}

int hsplit_hostlist_foreach(const char *expr, hsplit_hostlist_fn fn, void *arg)
{
    if (expr == NULL || fn == NULL) return HSPLIT_HOSTLIST_MALFORMED;
    /* check first: nothing is produced from a bad expression */
    int status = hsplit_hostlist_check(expr, NULL);
    for (const char *s = expr; status == HSPLIT_HOSTLIST_OK;) {
        const char *end = name_end(s);
        int ngroups;
        size_t longest;
        name_count(s, end, &ngroups, &longest);
        status = expand_name(s, end, ngroups, fn, arg);
        if (*end == '\0') break;
        s = end + 1;
    }
    return status;
}
