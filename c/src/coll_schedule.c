/* SPDX-License-Identifier: BSD-3-Clause */
/* The text form of the engine's schedules (coll_schedule.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coll_schedule.h"

const char *const hsplit_shape_names[HSPLIT_NSHAPES] = {"mpi",    "flat", "chain", "binomial",
                                                        "binary", "rd",   "ring", "rab"};
static const char *const view_names[HSPLIT_NVIEWS] = {"all", "two", "ml", "net", "mlall", "mlnet"};

/* A decimal integer in [min, max] at *p, which moves past it. */
static int parse_number(const char **p, long min, long max, long *out)
{
    if (**p < '0' || **p > '9') return -1;
    char *end;
    errno = 0;
    long v = strtol(*p, &end, 10);
    if (errno != 0 || v < min || v > max) return -1;
    *p = end;
    *out = v;
    return 0;
}

/* The word at *p (letters only) among names[0..n): its index, or -1. */
static int parse_word(const char **p, const char *const *names, int n)
{
    size_t len = 0;
    while (((*p)[len] >= 'a' && (*p)[len] <= 'z')) len++;
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncmp(*p, names[i], len) == 0) {
            *p += len;
            return i;
        }
    return -1;
}

int hsplit_schedule_parse(const char *text, hsplit_schedule *s)
{
    memset(s, 0, sizeof *s);
    if (text == NULL) return -1;
    const char *p = text;
    s->view = parse_word(&p, view_names, HSPLIT_NVIEWS);
    if (s->view < 0) return -1;
    if (hsplit_view_is_ml(s->view)) {
        /* ml[:SHAPE]: the algorithm of the step across the nodes */
        if (*p == '\0') return 0;
        if (*p++ != ':') return -1;
        int shape = parse_word(&p, hsplit_shape_names, HSPLIT_NSHAPES);
        if (shape != HSPLIT_SHAPE_MPI && shape != HSPLIT_SHAPE_RD && shape != HSPLIT_SHAPE_RING &&
            shape != HSPLIT_SHAPE_RAB)
            return -1;
        s->shape[0] = (unsigned char)shape;
        s->nshapes = 1;
        return *p == '\0' ? 0 : -1;
    }
    if (strncmp(p, "+v", 2) == 0) {
        long k;
        p += 2;
        if (parse_number(&p, 2, HSPLIT_SCHEDULE_MAX_VIRTUAL, &k) != 0) return -1;
        s->virtual_size = (int)k;
    }
    if (*p++ != ':') return -1;
    for (;;) {
        if (s->nshapes == HSPLIT_SCHEDULE_MAX_SHAPES) return -1;
        int shape = parse_word(&p, hsplit_shape_names, HSPLIT_NSHAPES);
        if (shape < 0) return -1;
        s->shape[s->nshapes++] = (unsigned char)shape;
        if (*p != ',') break;
        p++;
    }
    if (*p == '/') {
        p++;
        if (parse_number(&p, 1, HSPLIT_SCHEDULE_MAX_SEGMENT, &s->segment) != 0) return -1;
    }
    return *p == '\0' ? 0 : -1;
}

void hsplit_schedule_format(const hsplit_schedule *s, char *out, size_t size)
{
    size_t at = 0;
#define PUT(...)                                                                   \
    do {                                                                           \
        int n_ = snprintf(out + at, at < size ? size - at : 0, __VA_ARGS__);       \
        if (n_ > 0) at += (size_t)n_;                                              \
    } while (0)
    if (size == 0) return;
    out[0] = '\0';
    PUT("%s", view_names[s->view]);
    if (hsplit_view_is_ml(s->view)) {
        if (s->nshapes > 0) PUT(":%s", hsplit_shape_names[s->shape[0]]);
        return;
    }
    if (s->virtual_size > 0) PUT("+v%d", s->virtual_size);
    for (int i = 0; i < s->nshapes; i++) PUT("%c%s", i == 0 ? ':' : ',', hsplit_shape_names[s->shape[i]]);
    if (s->segment > 0) PUT("/%ld", s->segment);
#undef PUT
}

int hsplit_schedule_all_p2p(const hsplit_schedule *s)
{
    if (hsplit_view_is_ml(s->view)) return 0;
    for (int i = 0; i < s->nshapes; i++)
        if (s->shape[i] == HSPLIT_SHAPE_MPI) return 0;
    return 1;
}

int hsplit_schedule_list_parse(const char *text, hsplit_engine_candidate *out, int *n)
{
    *n = 0;
    if (text == NULL || text[0] == '\0' || strcmp(text, "auto") == 0) return 1;
    if (strcmp(text, "none") == 0) return 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ') p++;
        if (*p == '\0') break;
        const char *end = strchr(p, ' ');
        size_t len = end == NULL ? strlen(p) : (size_t)(end - p);
        char word[HSPLIT_SCHEDULE_TEXT];
        if (*n == HSPLIT_ENGINE_CANDIDATES || len >= sizeof word) return -1;
        memcpy(word, p, len);
        word[len] = '\0';
        if (hsplit_schedule_parse(word, &out[*n].schedule) != 0) return -1;
        (*n)++;
        p += len;
    }
    return *n > 0 ? 0 : -1;
}
