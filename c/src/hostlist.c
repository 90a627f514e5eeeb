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

/* Names in the bracket group [open+1, close), or -1 if malformed. */
static long group_count(const char *open, const char *close)
{
    long count = 0;
    const char *p = open + 1;
    for (;;) {
        range r;
        if (parse_element(p, close, &r, &p) != 0) return -1;
        count += r.hi - r.lo + 1;
        if (count > HSPLIT_HOSTLIST_MAX) return HSPLIT_HOSTLIST_MAX + 1L;
        if (p == close) return count;
        p++; /* the comma */
    }
}

static int is_name_char(char c)
{
    return c != '[' && c != ']' && c != ',' && !isspace((unsigned char)c) && c != '\0';
}

/* Names of the name [s, end) (no top-level comma inside), or -1 if malformed;
   *ngroups gets its number of bracket groups. */
static long name_count(const char *s, const char *end, int *ngroups)
{
    long count = 1;
    *ngroups = 0;
    if (s == end) return -1; /* empty name */
    for (const char *p = s; p < end;) {
        if (*p == '[') {
            const char *close = memchr(p, ']', (size_t)(end - p));
            if (close == NULL || memchr(p + 1, '[', (size_t)(close - p - 1)) != NULL) return -1;
            long n = group_count(p, close);
            if (n < 0) return -1;
            /* clamped: the product of many groups must not overflow */
            count = count > HSPLIT_HOSTLIST_MAX / n ? HSPLIT_HOSTLIST_MAX + 1L : count * n;
            (*ngroups)++;
            p = close + 1;
        } else if (is_name_char(*p)) {
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

long hsplit_hostlist_count(const char *expr)
{
    if (expr == NULL) return -1;
    long total = 0;
    const char *s = expr;
    for (;;) {
        const char *end = name_end(s);
        int ngroups;
        long n = name_count(s, end, &ngroups);
        if (n < 0) return -1;
        total += n;
        if (total > HSPLIT_HOSTLIST_MAX) return -1;
        if (*end == '\0') return total;
        s = end + 1;
    }
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
    const char *s = expr;
    for (;;) { /* check and count first: nothing is produced from a bad expression */
        const char *end = name_end(s);
        int ngroups;
        if (name_count(s, end, &ngroups) < 0) return HSPLIT_HOSTLIST_MALFORMED;
        if (*end == '\0') break;
        s = end + 1;
    }
    if (hsplit_hostlist_count(expr) < 0) return HSPLIT_HOSTLIST_TOO_LARGE;
    int status = HSPLIT_HOSTLIST_OK;
    for (s = expr; status == HSPLIT_HOSTLIST_OK;) {
        const char *end = name_end(s);
        int ngroups;
        name_count(s, end, &ngroups);
        status = expand_name(s, end, ngroups, fn, arg);
        if (*end == '\0') break;
        s = end + 1;
    }
    return status;
}
