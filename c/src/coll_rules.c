/* SPDX-License-Identifier: BSD-3-Clause */
/* The rules file of HSPLIT_COLL_RULES (coll_rules.h): parsed line by line,
   every error with its line number; every step is linear in the text, and
   the limits bound both the work and the memory. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* built alone in the unit test too */
#endif
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_rules.h"
#include "topology_conf.h"

const char *const hsplit_coll_kind_names[HSPLIT_RULES_NKINDS] = {
    "bcast",     "reduce",   "allreduce", "gather",     "scatter",  "allgather",
    "barrier",   "gatherv",  "scatterv",  "allgatherv", "alltoall", "alltoallv",
    "reduce_scatter_block", "reduce_scatter", "scan", "exscan"};

static const char *const path_names[] = {"plain", "tree", "shm"};

static int fail(hsplit_rules_error *err, int line, const char *fmt, ...)
{
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->reason, sizeof err->reason, fmt, ap);
    va_end(ap);
    return -1;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A non-negative decimal integer of exactly n characters: 0, or -1 when it
   is not one, -2 when it exceeds LONG_MAX. */
static int parse_number(const char *s, size_t n, long *out)
{
    if (n == 0) return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        int d = s[i] - '0';
        if (v > (LONG_MAX - d) / 10) return -2;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* A field N, A-B, A-* or * into *r. */
static int parse_range(const char *s, size_t n, const char *what, int line, hsplit_rule_range *r,
                       hsplit_rules_error *err)
{
    if (n == 1 && s[0] == '*') {
        *r = (hsplit_rule_range){0, LONG_MAX};
        return 0;
    }
    const char *dash = memchr(s, '-', n);
    size_t first = dash != NULL ? (size_t)(dash - s) : n;
    int rc = parse_number(s, first, &r->low);
    if (rc == 0 && dash == NULL) {
        r->high = r->low;
    } else if (rc == 0) {
        const char *rest = dash + 1;
        size_t m = n - first - 1;
        if (m == 1 && rest[0] == '*') r->high = LONG_MAX;
        else rc = parse_number(rest, m, &r->high);
    }
    if (rc == -2)
        return fail(err, line, "%s \"%.*s\": a number larger than %ld", what,
                    (int)(n > 40 ? 40 : n), s, LONG_MAX);
    if (rc != 0)
        return fail(err, line, "%s \"%.*s\" is not N, A-B, A-* or * (non-negative decimal "
                    "integers)", what, (int)(n > 40 ? 40 : n), s);
    if (r->low > r->high)
        return fail(err, line, "%s \"%.*s\": an empty range (A > B)", what,
                    (int)(n > 40 ? 40 : n), s);
    return 0;
}

static int same_word(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(s, word, n) == 0;
}

/* One line without its comment: 0 when it is blank or a rule (appended),
   -1 with err filled. */
static int parse_line(const char *s, size_t n, int line, hsplit_coll_rules *rules,
                      hsplit_rules_error *err)
{
    const char *field[5];
    size_t length[5];
    int nfields = 0;
    for (size_t i = 0; i < n;) {
        if (is_blank(s[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < n && !is_blank(s[i])) i++;
        if (nfields == 5)
            return fail(err, line, "more than 5 fields (collective processes depth bytes path)");
        field[nfields] = s + start;
        length[nfields++] = i - start;
    }
    if (nfields == 0) return 0;
    if (nfields < 5)
        return fail(err, line, "%d field%s, expected 5 (collective processes depth bytes path)",
                    nfields, nfields == 1 ? "" : "s");
    if (rules->n == HSPLIT_RULES_MAX_RULES)
        return fail(err, line, "more than %d rules (the limit HSPLIT_RULES_MAX_RULES)",
                    HSPLIT_RULES_MAX_RULES);
    hsplit_coll_rule r = {.kind = -2, .path = -1, .line = line};
    if (same_word(field[0], length[0], "*")) r.kind = -1;
    for (int k = 0; k < HSPLIT_RULES_NKINDS && r.kind == -2; k++)
        if (same_word(field[0], length[0], hsplit_coll_kind_names[k])) r.kind = k;
    if (r.kind == -2)
        return fail(err, line, "unknown collective \"%.*s\" (expected a name such as bcast, "
                    "allreduce or alltoallv, or *)", (int)(length[0] > 40 ? 40 : length[0]),
                    field[0]);
    if (parse_range(field[1], length[1], "processes", line, &r.procs, err) != 0 ||
        parse_range(field[2], length[2], "depth", line, &r.depth, err) != 0 ||
        parse_range(field[3], length[3], "bytes", line, &r.bytes, err) != 0)
        return -1;
    for (int p = 0; p < 3 && r.path < 0; p++)
        if (same_word(field[4], length[4], path_names[p])) r.path = p;
    char text[HSPLIT_SCHEDULE_TEXT];
    if (r.path < 0 && length[4] < sizeof text) {
        memcpy(text, field[4], length[4]);
        text[length[4]] = '\0';
        if (hsplit_schedule_parse(text, &r.schedule) == 0) r.path = HSPLIT_RULE_SCHEDULE;
    }
    if (r.path < 0)
        return fail(err, line, "unknown path \"%.*s\" (expected plain, tree, shm or a "
                    "schedule such as two:mpi or all:binomial)",
                    (int)(length[4] > 40 ? 40 : length[4]), field[4]);
    rules->rules[rules->n++] = r;
    return 0;
}

int hsplit_coll_rules_parse(const char *text, size_t len, hsplit_coll_rules *rules,
                            hsplit_rules_error *err)
{
    rules->rules = NULL;
    rules->n = 0;
    err->line = 0;
    err->reason[0] = '\0';
    if (len > (size_t)HSPLIT_RULES_MAX_BYTES)
        return fail(err, 0, "more than the %ld bytes allowed (the limit HSPLIT_RULES_MAX_BYTES)",
                    HSPLIT_RULES_MAX_BYTES);
    /* room for every rule the limit allows, at most one per line */
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    size_t cap = lines < HSPLIT_RULES_MAX_RULES + 1 ? lines : HSPLIT_RULES_MAX_RULES + 1;
    rules->rules = malloc(sizeof *rules->rules * cap);
    if (rules->rules == NULL) return fail(err, 0, "out of memory");
    int line = 0;
    for (size_t at = 0; at < len;) {
        line++;
        const char *end = memchr(text + at, '\n', len - at);
        size_t n = end != NULL ? (size_t)(end - (text + at)) : len - at;
        const char *s = text + at;
        at += n + (end != NULL);
        if (n > HSPLIT_RULES_MAX_LINE) {
            hsplit_coll_rules_free(rules);
            return fail(err, line, "a line of %zu characters, more than the %d allowed (the "
                        "limit HSPLIT_RULES_MAX_LINE)", n, HSPLIT_RULES_MAX_LINE);
        }
        if (memchr(s, '\0', n) != NULL) {
            hsplit_coll_rules_free(rules);
            return fail(err, line, "a NUL character (not a text file)");
        }
        const char *hash = memchr(s, '#', n);
        if (hash != NULL) n = (size_t)(hash - s);
        if (parse_line(s, n, line, rules, err) != 0) {
            hsplit_coll_rules_free(rules);
            return -1;
        }
    }
    return 0;
}

int hsplit_coll_rules_load(const char *path, hsplit_coll_rules *rules, hsplit_rules_error *err)
{
    rules->rules = NULL;
    rules->n = 0;
    char *text = NULL, msg[sizeof err->reason + 64];
    size_t len = 0;
    if (hsplit_read_regular_file(path, HSPLIT_RULES_MAX_BYTES, "HSPLIT_RULES_MAX_BYTES", &text,
                                 &len, msg, sizeof msg) != HSPLIT_CONF_OK) {
        /* msg is "PATH: what": the caller names the path itself */
        size_t plen = strlen(path);
        const char *what = strncmp(msg, path, plen) == 0 && msg[plen] == ':' ? msg + plen + 2 : msg;
        return fail(err, 0, "%s", what);
    }
    int rc = hsplit_coll_rules_parse(text, len, rules, err);
    free(text);
    return rc;
}

void hsplit_coll_rules_free(hsplit_coll_rules *rules)
{
    free(rules->rules);
    rules->rules = NULL;
    rules->n = 0;
}

static int in_range(const hsplit_rule_range *r, long v)
{
    return v >= r->low && v <= r->high;
}

static int applies(const hsplit_coll_rule *r, int kind, long procs, long depth)
{
    return (r->kind < 0 || r->kind == kind) && in_range(&r->procs, procs) &&
           in_range(&r->depth, depth);
}

const hsplit_coll_rule *hsplit_coll_rules_match(const hsplit_coll_rules *rules, int kind,
                                                long procs, long depth, long bytes)
{
    for (int i = 0; i < rules->n; i++) {
        const hsplit_coll_rule *r = &rules->rules[i];
        if (applies(r, kind, procs, depth) && in_range(&r->bytes, bytes)) return r;
    }
    return NULL;
}

int hsplit_coll_rules_cover(const hsplit_coll_rules *rules, int kind, long procs, long depth,
                            long low, long high, const hsplit_coll_rule **rule)
{
    *rule = NULL;
    for (int i = 0; i < rules->n; i++) {
        const hsplit_coll_rule *r = &rules->rules[i];
        if (!applies(r, kind, procs, depth) || r->bytes.high < low || r->bytes.low > high)
            continue;
        /* the first rule to touch the sizes: all of them, or a part */
        if (r->bytes.low <= low && r->bytes.high >= high) {
            *rule = r;
            return 1;
        }
        return -1;
    }
    return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int b = 0; b < 8; b++) {
        h ^= (v >> (8 * b)) & 0xff;
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t hsplit_coll_rules_checksum(const hsplit_coll_rules *rules)
{
    uint64_t h = mix(14695981039346656037ull, (uint64_t)rules->n);
    for (int i = 0; i < rules->n; i++) {
        const hsplit_coll_rule *r = &rules->rules[i];
        h = mix(h, (uint64_t)(r->kind + 1));
        h = mix(h, (uint64_t)r->procs.low);
        h = mix(h, (uint64_t)r->procs.high);
        h = mix(h, (uint64_t)r->depth.low);
        h = mix(h, (uint64_t)r->depth.high);
        h = mix(h, (uint64_t)r->bytes.low);
        h = mix(h, (uint64_t)r->bytes.high);
        h = mix(h, (uint64_t)r->path);
        if (r->path == HSPLIT_RULE_SCHEDULE) {
            const hsplit_schedule *s = &r->schedule;
            h = mix(h, (uint64_t)s->view);
            h = mix(h, (uint64_t)s->virtual_size);
            h = mix(h, (uint64_t)s->nshapes);
            for (int k = 0; k < s->nshapes; k++) h = mix(h, s->shape[k]);
            h = mix(h, (uint64_t)s->segment);
        }
    }
    /* positive in 63 bits, never 0: the caller agrees on it and on its
       negation, and keeps 0 for "no valid rules" */
    return (h >> 2) | 1;
}
