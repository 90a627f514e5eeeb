/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target of the rank maps (c/src/rankmap.c): the input bytes make a
   parent array P and a child array C of parent ranks; the target checks
     - detect(P) reproduces P by lookup, its inverse gives the smallest rank of
       every value and -1 next to them, and its mode is the most compact one
       (brute force over the block lengths, for short arrays);
     - compose(detect(P), detect(C)) reproduces P[C[r]] and is canonical: the
       mode detection gives for the array P[C[r]];
   and aborts on any mismatch. Bytes: [how to decode][where P ends] then the
   arrays, as raw int32, as int8 steps, or as patterns with one changed value
   (how regular layouts and first-special ones are reached quickly). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rankmap.h"

enum { MAX_N = 4096, ORACLE_MAX_N = 64 };

static void fail(const char *what, int n)
{
    fprintf(stderr, "fuzz_rankmap: %s (n = %d)\n", what, n);
    abort();
}

/* ---- decoding ---- */

static int decode_raw(const uint8_t *b, size_t len, int *a)
{
    int n = 0;
    for (size_t i = 0; i + 4 <= len && n < MAX_N; i += 4) {
        uint32_t u = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 |
                     (uint32_t)b[i + 3] << 24;
        int32_t v;
        memcpy(&v, &u, sizeof v);
        a[n++] = v;
    }
    return n;
}

static int decode_steps(const uint8_t *b, size_t len, int *a)
{
    int n = 0;
    long long v = 0;
    for (size_t i = 0; i < len && n < MAX_N; i++) {
        v += (int8_t)b[i];
        a[n++] = (int)v;
    }
    return n;
}

/* [o lo][o hi][s][b][n lo][n hi][special?][changed index][changed value] */
static int decode_pattern(const uint8_t *b, size_t len, int *a)
{
    if (len < 9) return 0;
    long long o = (int16_t)(b[0] | b[1] << 8), s = (int8_t)b[2], blk = 1 + b[3] % 16;
    int n = (b[4] | b[5] << 8) % (MAX_N + 1);
    for (int i = 0; i < n; i++) {
        int k = b[6] & 1 ? i - 1 : i; /* first-special: the pattern starts at rank 1 */
        a[i] = k < 0 ? (int8_t)b[7] : (int)(o + (k / blk) * s + k % blk);
    }
    if (n > 0 && b[6] & 2) a[b[7] % n] = (int8_t)b[8];
    return n;
}

static int decode(int how, const uint8_t *b, size_t len, int *a)
{
    if (how == 0) return decode_raw(b, len, a);
    if (how == 1) return decode_steps(b, len, a);
    return decode_pattern(b, len, a);
}

/* ---- checks ---- */

static bool fits(const int *a, int n, long long o, long long s, long long b, long long t)
{
    for (long long i = 0; i < n; i++)
        if (a[i] != o + (i / b) * s + (i % b) * t) return false;
    return true;
}

/* The blocks of o + (i/b)*s + (i%b)*t separate (rankmap.h): one after
   another, or interleaved. */
static bool separated(int n, long long s, long long t, long long b)
{
    long long nb = (n + b - 1) / b;
    return t != 0 && (llabs(s) > (b - 1) * llabs(t) || (s != 0 && llabs(t) > (nb - 1) * llabs(s)));
}

static int oracle_regular(const int *a, int n)
{
    if (n == 0 || fits(a, n, 0, 1, 1, 1)) return HSPLIT_RANKMAP_DIRECT;
    if (fits(a, n, a[0], 1, 1, 1)) return HSPLIT_RANKMAP_OFFSET;
    if (n >= 2 && fits(a, n, a[0], (long long)a[1] - a[0], 1, 1)) return HSPLIT_RANKMAP_STRIDE;
    for (int b = 2; b < n; b++) {
        long long s = (long long)a[b] - a[0], t = (long long)a[1] - a[0];
        if (s != b * t && separated(n, s, t, b) && fits(a, n, a[0], s, b, t)) return HSPLIT_RANKMAP_BLOCK;
    }
    return -1;
}

static int oracle_mode(const int *a, int n)
{
    int mode = oracle_regular(a, n);
    if (mode >= 0) return mode;
    if (n >= 3 && oracle_regular(a + 1, n - 1) >= 0) return HSPLIT_RANKMAP_FIRST_SPECIAL;
    return HSPLIT_RANKMAP_TABLE;
}

typedef struct {
    int value, index;
} entry;

static int compare_entries(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->value != b->value) return (a->value > b->value) - (a->value < b->value);
    return (a->index > b->index) - (a->index < b->index);
}

static int first_index(const entry *e, int n, long long v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (e[mid].value < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && e[lo].value == v ? e[lo].index : -1;
}

static void check_map(const hsplit_rankmap *m, const int *a, int n)
{
    static entry e[MAX_N];
    if (m->n != n) fail("size", n);
    static int got[MAX_N];
    for (int r = 0; r < n; r++)
        if (hsplit_rankmap_lookup(m, r) != a[r]) fail("lookup", n);
    for (int first = 0; first < n && first < 3; first++) {
        hsplit_rankmap_lookup_range(m, first, n - first, got);
        for (int r = first; r < n; r++)
            if (got[r - first] != a[r]) fail("lookup_range", n);
    }
    for (int r = 0; r < n; r++) e[r] = (entry){a[r], r};
    qsort(e, (size_t)n, sizeof *e, compare_entries);
    for (int r = 0; r < n; r++)
        for (long long w = (long long)a[r] - 1; w <= (long long)a[r] + 1; w++)
            if (w >= INT_MIN && w <= INT_MAX &&
                hsplit_rankmap_inverse(m, (int)w) != first_index(e, n, w))
                fail("inverse", n);
    if (n <= ORACLE_MAX_N && (int)m->mode != oracle_mode(a, n)) fail("not the most compact mode", n);
}

static void check_compose(const hsplit_rankmap *mp, const int *p, const int *c, int nc)
{
    static int want[MAX_N];
    hsplit_rankmap mc, mr, md;
    for (int r = 0; r < nc; r++) want[r] = p[c[r]];
    if (hsplit_rankmap_detect(c, nc, &mc) != HSPLIT_RANKMAP_OK) fail("detect child", nc);
    if (hsplit_rankmap_compose(mp, &mc, &mr) != HSPLIT_RANKMAP_OK) fail("compose", nc);
    hsplit_rankmap_free(&mc);
    check_map(&mr, want, nc);
    if (hsplit_rankmap_detect(want, nc, &md) != HSPLIT_RANKMAP_OK) fail("detect", nc);
    if (md.mode != mr.mode) fail("composition not canonical", nc);
    hsplit_rankmap_free(&md);
    hsplit_rankmap_free(&mr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int p[MAX_N], c[MAX_N];
    if (size < 2) return 0;
    int how = data[0] % 3, child_how = data[0] / 3 % 3;
    size_t split = 2 + (size - 2) * data[1] / 255;
    int np = decode(how, data + 2, split - 2, p);
    int nc = decode(child_how, data + split, size - split, c);

    hsplit_rankmap mp;
    if (hsplit_rankmap_detect(p, np, &mp) != HSPLIT_RANKMAP_OK) fail("detect", np);
    check_map(&mp, p, np);
    if (np > 0) {
        for (int r = 0; r < nc; r++) c[r] = (int)(((long long)c[r] % np + np) % np);
        check_compose(&mp, p, c, nc);
    }
    hsplit_rankmap_free(&mp);
    return 0;
}
