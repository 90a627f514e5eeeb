/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the compressed rank maps (c/src/rankmap.c), without MPI.
   Expected modes come from a brute-force reading of the mode definitions
   (oracle_mode below, which tries every block length), expected values from
   indexing plain arrays. Usage: test_rankmap [--quick] (smaller exhaustive
   sweeps, for valgrind). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rankmap.h"

static int passed, failed;

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (cond) passed++;                                                          \
        else {                                                                       \
            if (failed++ < 40) {                                                     \
                fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
                fprintf(stderr, __VA_ARGS__);                                        \
                fprintf(stderr, "\n");                                               \
            }                                                                        \
        }                                                                            \
    } while (0)

#define DIRECT HSPLIT_RANKMAP_DIRECT
#define OFFSET HSPLIT_RANKMAP_OFFSET
#define STRIDE HSPLIT_RANKMAP_STRIDE
#define BLOCK HSPLIT_RANKMAP_BLOCK
#define FIRST_SPECIAL HSPLIT_RANKMAP_FIRST_SPECIAL
#define TABLE HSPLIT_RANKMAP_TABLE
enum { NMODES = TABLE + 1 };

/* ---- the oracle: the mode definitions, tried one by one ---- */

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

/* Most compact regular mode of a, or -1. A block o + (i/b)*s + (i%b)*t
   needs 2 <= b < n, s != b*t and separated blocks; its step t is a[1] - a[0],
   its stride s is a[b] - a[0]. */
static int oracle_regular(const int *a, int n)
{
    if (n == 0 || fits(a, n, 0, 1, 1, 1)) return DIRECT;
    if (fits(a, n, a[0], 1, 1, 1)) return OFFSET;
    if (n >= 2 && fits(a, n, a[0], (long long)a[1] - a[0], 1, 1)) return STRIDE;
    for (int b = 2; b < n; b++) {
        long long s = (long long)a[b] - a[0], t = (long long)a[1] - a[0];
        if (s != b * t && separated(n, s, t, b) && fits(a, n, a[0], s, b, t)) return BLOCK;
    }
    return -1;
}

static int oracle_mode(const int *a, int n)
{
    int mode = oracle_regular(a, n);
    if (mode >= 0) return mode;
    if (n >= 3 && oracle_regular(a + 1, n - 1) >= 0) return FIRST_SPECIAL;
    return TABLE;
}

/* ---- checking a map against its array ---- */

typedef struct {
    int value, index;
} entry;

static int compare_entries(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->value != b->value) return (a->value > b->value) - (a->value < b->value);
    return (a->index > b->index) - (a->index < b->index);
}

/* Smallest index of value v among the sorted entries, or -1. */
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

/* lookup reproduces a; inverse gives the smallest index of every value, -1 for
   the values next to them that are not members and for the ends of int. */
static bool map_matches(const hsplit_rankmap *m, const int *a, int n, const char *what)
{
    if (m->n != n) {
        fprintf(stderr, "%s: n %d, expected %d\n", what, m->n, n);
        return false;
    }
    for (int r = 0; r < n; r++)
        if (hsplit_rankmap_lookup(m, r) != a[r]) {
            fprintf(stderr, "%s: lookup(%d) = %d, expected %d\n", what, r,
                    hsplit_rankmap_lookup(m, r), a[r]);
            return false;
        }
    /* ranges: every (first, count) for small maps, else from a few firsts
       to the end (crossing blocks and the special first element) */
    int *got = malloc(((size_t)n + 1) * sizeof *got);
    int firsts[] = {0, 1, n / 3, n / 2 + 1, n - 1};
    for (int i = 0; i < (n <= 8 ? n : 5); i++) {
        int first = n <= 8 ? i : firsts[i];
        if (first < 0 || first >= n) continue;
        for (int count = n <= 8 ? 0 : n - first; count <= n - first; count++) {
            got[0] = 0x5a5a5a5a;
            hsplit_rankmap_lookup_range(m, first, count, got);
            for (int k = 0; k < count; k++)
                if (got[k] != a[first + k]) {
                    fprintf(stderr, "%s: lookup_range(%d, %d)[%d] = %d, expected %d\n", what,
                            first, count, k, got[k], a[first + k]);
                    free(got);
                    return false;
                }
            if (count == 0 && got[0] != 0x5a5a5a5a) {
                fprintf(stderr, "%s: lookup_range of 0 ranks wrote\n", what);
                free(got);
                return false;
            }
        }
    }
    free(got);
    entry *e = malloc(((size_t)n + 1) * sizeof *e);
    for (int r = 0; r < n; r++) e[r] = (entry){a[r], r};
    qsort(e, (size_t)n, sizeof *e, compare_entries);
    bool ok = true;
    for (int r = 0; r < n && ok; r++)
        for (long long w = (long long)a[r] - 1; w <= (long long)a[r] + 1 && ok; w++) {
            if (w < INT_MIN || w > INT_MAX) continue;
            int got = hsplit_rankmap_inverse(m, (int)w), want = first_index(e, n, w);
            if (got != want) {
                fprintf(stderr, "%s: inverse(%lld) = %d, expected %d\n", what, w, got, want);
                ok = false;
            }
        }
    for (int k = 0; k < 2 && ok; k++) {
        int w = k ? INT_MAX : INT_MIN;
        ok = hsplit_rankmap_inverse(m, w) == first_index(e, n, w);
        if (!ok) fprintf(stderr, "%s: inverse(%d) wrong\n", what, w);
    }
    free(e);
    return ok;
}

static void print_array(const char *label, const int *a, int n)
{
    fprintf(stderr, "%s [", label);
    for (int i = 0; i < n && i < 24; i++) fprintf(stderr, i ? ", %d" : "%d", a[i]);
    fprintf(stderr, n > 24 ? ", ...] (n=%d)\n" : "] (n=%d)\n", n);
}

/* detect(a): the oracle's mode, the values, the inverses, a copy that agrees. */
static bool detect_ok(const int *a, int n)
{
    hsplit_rankmap m, c;
    if (hsplit_rankmap_detect(a, n, &m) != HSPLIT_RANKMAP_OK) return false;
    bool ok = (int)m.mode == oracle_mode(a, n) && map_matches(&m, a, n, "detect");
    hsplit_rankmap_copy(&m, &c);
    hsplit_rankmap_free(&m);
    ok = ok && map_matches(&c, a, n, "copy");
    hsplit_rankmap_free(&c);
    if (!ok) print_array("detect", a, n);
    return ok;
}

static int coverage[NMODES][NMODES]; /* compositions tried, by parent and child mode */

/* compose(detect(p), detect(c)) against the array p[c[r]]. */
static bool compose_ok(const int *p, int np, const int *c, int nc)
{
    hsplit_rankmap mp, mc, mr;
    int *want = malloc(((size_t)nc + 1) * sizeof *want);
    for (int r = 0; r < nc; r++) want[r] = p[c[r]];
    hsplit_rankmap_detect(p, np, &mp);
    hsplit_rankmap_detect(c, nc, &mc);
    coverage[mp.mode][mc.mode]++;
    bool ok = hsplit_rankmap_compose(&mp, &mc, &mr) == HSPLIT_RANKMAP_OK;
    hsplit_rankmap_free(&mp); /* the result must outlive what it shares */
    hsplit_rankmap_free(&mc);
    if (ok && (int)mr.mode != oracle_mode(want, nc)) {
        fprintf(stderr, "compose: mode %s, expected %s\n", hsplit_rankmap_mode_name(mr.mode),
                hsplit_rankmap_mode_name(oracle_mode(want, nc)));
        ok = false;
    }
    ok = ok && map_matches(&mr, want, nc, "compose");
    if (!ok) {
        print_array("parent", p, np);
        print_array("child", c, nc);
    }
    hsplit_rankmap_free(&mr);
    free(want);
    return ok;
}

/* ---- hand-made arrays ---- */

#define ARRAY(...) ((const int[]){__VA_ARGS__}), (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int))

static void expect_mode(const int *a, int n, int mode)
{
    hsplit_rankmap m;
    CHECK(hsplit_rankmap_detect(a, n, &m) == HSPLIT_RANKMAP_OK, "detect failed");
    CHECK((int)m.mode == mode, "mode %s, expected %s", hsplit_rankmap_mode_name(m.mode),
          hsplit_rankmap_mode_name(mode));
    if ((int)m.mode != mode) print_array("array", a, n);
    CHECK(map_matches(&m, a, n, "hand-made"), "values");
    hsplit_rankmap_free(&m);
}

static void test_detect_modes(void)
{
    expect_mode(NULL, 0, DIRECT);
    expect_mode(ARRAY(0), DIRECT);
    expect_mode(ARRAY(7), OFFSET);
    expect_mode(ARRAY(0, 1), DIRECT);
    expect_mode(ARRAY(1, 0), STRIDE);
    expect_mode(ARRAY(4, 4), STRIDE);
    expect_mode(ARRAY(0, 1, 2, 3), DIRECT);
    expect_mode(ARRAY(5, 6, 7, 8), OFFSET);
    expect_mode(ARRAY(1, 3, 5, 7), STRIDE);
    expect_mode(ARRAY(9, 6, 3, 0), STRIDE);           /* negative stride */
    expect_mode(ARRAY(2, 2, 2), STRIDE);              /* stride 0 */
    expect_mode(ARRAY(0, 1, 4, 5, 8, 9), BLOCK);
    expect_mode(ARRAY(0, 1, 2, 10, 11, 12, 20), BLOCK); /* last block partial */
    expect_mode(ARRAY(8, 9, 4, 5, 0, 1), BLOCK);      /* blocks going down */
    expect_mode(ARRAY(0, 1, 2, 1, 2, 3), TABLE);      /* overlapping blocks: no mode */
    /* roots communicators */
    expect_mode(ARRAY(0, 8, 16, 24), STRIDE);
    expect_mode(ARRAY(5, 8, 16, 24), FIRST_SPECIAL);
    expect_mode(ARRAY(1, 4, 8, 12), FIRST_SPECIAL);   /* a walker's node-roots */
    expect_mode(ARRAY(3, 0, 1, 2), FIRST_SPECIAL);
    expect_mode(ARRAY(9, 0, 1, 4, 5, 8, 9), FIRST_SPECIAL);
    expect_mode(ARRAY(3, 4, 5, 10, 11), BLOCK);       /* x extends the first block */
    expect_mode(ARRAY(3, 4, 5, 10, 11, 16, 17), FIRST_SPECIAL);
    expect_mode(ARRAY(3, 4, 5, 10, 11, 20, 21), TABLE);
    /* the rest an interleaved block (0, 2 | 1) or two blocks of step 8 */
    expect_mode(ARRAY(3, 0, 2, 1), FIRST_SPECIAL);
    expect_mode(ARRAY(5, 8, 16, 25), FIRST_SPECIAL);
    expect_mode(ARRAY(3, 0, 2, 1, 4), TABLE);
    expect_mode(ARRAY(5, 8, 16, 25, 26), TABLE);
    expect_mode(ARRAY(INT_MIN, INT_MAX), STRIDE);     /* stride 2^32 - 1 */
    /* 3 values: never a table; here blocks of 2, interleaved (|t| > |s|) */
    expect_mode(ARRAY(INT_MAX, INT_MIN, 0), BLOCK);
    expect_mode(ARRAY(INT_MAX, INT_MIN, 0, 5), FIRST_SPECIAL);
    expect_mode(ARRAY(INT_MAX, INT_MIN, 0, 5, 1), TABLE);
}

static void test_round_trips(void)
{
    /* one array per mode, each mode's inverse on members and non-members */
    const int n = 1000;
    int *a = malloc(n * sizeof *a);
    for (int mode = 0; mode < NMODES; mode++) {
        for (int r = 0; r < n; r++) {
            switch (mode) {
            case DIRECT: a[r] = r; break;
            case OFFSET: a[r] = 77 + r; break;
            case STRIDE: a[r] = 5000 - 3 * r; break;
            case BLOCK: a[r] = 100 + (r / 8) * 20 + r % 8; break;
            case FIRST_SPECIAL: a[r] = r == 0 ? 3 : 16 * r; break;
            default: a[r] = (r * 7919) % 1009 + 20; break;
            }
        }
        expect_mode(a, n, mode);
    }
    free(a);
}

static void test_small_sizes(void)
{
    hsplit_rankmap m;
    CHECK(hsplit_rankmap_detect(NULL, 0, &m) == HSPLIT_RANKMAP_OK && m.n == 0, "n = 0");
    CHECK(hsplit_rankmap_inverse(&m, 0) == -1, "empty map has no members");
    CHECK(hsplit_rankmap_bytes(&m) == sizeof m, "empty map bytes");
    hsplit_rankmap_free(&m);
    hsplit_rankmap_free(&m); /* twice is harmless */
    CHECK(hsplit_rankmap_detect(NULL, 3, &m) == HSPLIT_RANKMAP_ERR_ARG, "NULL values");
    CHECK(hsplit_rankmap_detect(ARRAY(1), &m) == HSPLIT_RANKMAP_OK, "n = 1");
    CHECK(m.mode == OFFSET && hsplit_rankmap_lookup(&m, 0) == 1 &&
          hsplit_rankmap_inverse(&m, 1) == 0 && hsplit_rankmap_inverse(&m, 0) == -1, "n = 1");
    int two[][2] = {{0, 1}, {1, 0}, {3, 3}, {-5, 7}, {INT_MAX, INT_MIN}};
    for (int i = 0; i < 5; i++) CHECK(detect_ok(two[i], 2), "n = 2, case %d", i);
    CHECK(hsplit_rankmap_regular(-1, 0, 1, 1, &m) == HSPLIT_RANKMAP_ERR_ARG, "n < 0");
    CHECK(hsplit_rankmap_regular(4, 0, 1, 0, &m) == HSPLIT_RANKMAP_ERR_ARG, "block 0");
    CHECK(hsplit_rankmap_regular(8, 0, 1, 4, &m) == HSPLIT_RANKMAP_ERR_ARG, "overlapping blocks");
    CHECK(hsplit_rankmap_regular(8, 0, 4, 4, &m) == HSPLIT_RANKMAP_OK && m.mode == DIRECT,
          "a block of stride b is a run");
    CHECK(hsplit_rankmap_regular(3, 0, (int64_t)1 << 40, 1, &m) == HSPLIT_RANKMAP_ERR_ARG,
          "stride beyond int");
}

/* A regular map of 2^31 - 1 ranks: O(1) memory and time, no n-element array. */
static void test_largest(void)
{
    const int n = INT_MAX, half = 1 << 30;
    hsplit_rankmap m, down, c, r;
    CHECK(hsplit_rankmap_regular(n, 0, 1, 1, &m) == HSPLIT_RANKMAP_OK && m.mode == DIRECT,
          "world of 2^31-1");
    CHECK(hsplit_rankmap_lookup(&m, 0) == 0 && hsplit_rankmap_lookup(&m, n - 1) == n - 1 &&
          hsplit_rankmap_lookup(&m, n / 2) == n / 2, "direct lookups");
    CHECK(hsplit_rankmap_inverse(&m, n - 1) == n - 1 && hsplit_rankmap_inverse(&m, -1) == -1 &&
          hsplit_rankmap_inverse(&m, INT_MIN) == -1, "direct inverses");
    CHECK(hsplit_rankmap_regular(n, n - 1, -1, 1, &down) == HSPLIT_RANKMAP_OK &&
          down.mode == STRIDE, "reversed world");
    CHECK(hsplit_rankmap_lookup(&down, 0) == n - 1 && hsplit_rankmap_lookup(&down, n - 1) == 0 &&
          hsplit_rankmap_lookup(&down, n / 2) == n - 1 - n / 2, "reversed lookups");
    CHECK(hsplit_rankmap_inverse(&down, 0) == n - 1 && hsplit_rankmap_inverse(&down, 12345) ==
          n - 1 - 12345 && hsplit_rankmap_inverse(&down, n) == -1, "reversed inverses");
    CHECK(hsplit_rankmap_regular(n, 0, 2, 1, &c) == HSPLIT_RANKMAP_ERR_ARG, "beyond int");
    /* reversed after reversed is the identity, found in O(1) */
    CHECK(hsplit_rankmap_compose(&down, &down, &r) == HSPLIT_RANKMAP_OK && r.mode == DIRECT &&
          r.n == n && hsplit_rankmap_bytes(&r) == sizeof r, "stride of stride");
    /* two blocks of 2^30 going down: [2^30, 2^31), then [0, 2^30 - 1) */
    hsplit_rankmap blocks;
    CHECK(hsplit_rankmap_regular(n, half, -half, half, &blocks) == HSPLIT_RANKMAP_OK &&
          blocks.mode == BLOCK, "2^31-1 in blocks");
    CHECK(hsplit_rankmap_lookup(&blocks, 0) == half && hsplit_rankmap_lookup(&blocks, half - 1) ==
          INT_MAX && hsplit_rankmap_lookup(&blocks, half) == 0 &&
          hsplit_rankmap_lookup(&blocks, n - 1) == half - 2, "block lookups");
    int run[4];
    hsplit_rankmap_lookup_range(&blocks, half - 2, 4, run);
    CHECK(run[0] == INT_MAX - 1 && run[1] == INT_MAX && run[2] == 0 && run[3] == 1,
          "block range across the blocks at 2^30");
    hsplit_rankmap_lookup_range(&down, n - 4, 4, run);
    CHECK(run[0] == 3 && run[1] == 2 && run[2] == 1 && run[3] == 0, "reversed range at the end");
    CHECK(hsplit_rankmap_inverse(&blocks, INT_MAX) == half - 1 &&
          hsplit_rankmap_inverse(&blocks, 5) == half + 5 &&
          hsplit_rankmap_inverse(&blocks, half - 1) == -1, "block inverses");
    /* the ranks from a block's last element: first-special, in O(1) */
    CHECK(hsplit_rankmap_regular(half, half - 1, 1, 1, &c) == HSPLIT_RANKMAP_OK, "child");
    CHECK(hsplit_rankmap_compose(&blocks, &c, &r) == HSPLIT_RANKMAP_OK &&
          r.mode == FIRST_SPECIAL && r.n == half, "block after offset: %s",
          hsplit_rankmap_mode_name(r.mode));
    CHECK(hsplit_rankmap_lookup(&r, 0) == INT_MAX && hsplit_rankmap_lookup(&r, 1) == 0 &&
          hsplit_rankmap_lookup(&r, half - 1) == half - 2 && hsplit_rankmap_inverse(&r, 0) == 1,
          "first-special lookups");
    /* each block's first element: a stride of 2 elements */
    CHECK(hsplit_rankmap_regular(2, 0, half, 1, &c) == HSPLIT_RANKMAP_OK, "roots child");
    CHECK(hsplit_rankmap_compose(&blocks, &c, &r) == HSPLIT_RANKMAP_OK && r.mode == STRIDE &&
          hsplit_rankmap_lookup(&r, 0) == half && hsplit_rankmap_lookup(&r, 1) == 0, "roots");
    hsplit_rankmap_free(&m);
}

/* Block lookups divide by multiplication: exact for every rank below 2^31,
   checked against division at the ends, around block edges and at random. */
/* hsplit_rankmap_blocks(n, o, s, b, t) over small parameters: the values
   o + (i/b)*s + (i%b)*t computed here; accepted exactly when some regular
   mode describes them (the oracle), then in the oracle's mode with those
   values. */
static void test_blocks(void)
{
    int a[12], bad = 0, accepted = 0;
    for (int n = 0; n <= 12; n++)
        for (int o = -3; o <= 5; o += 4)
            for (int st = -6; st <= 6; st++)
                for (int b = 1; b <= 5; b++)
                    for (int t = -4; t <= 4; t++) {
                        for (int i = 0; i < n; i++) a[i] = o + (i / b) * st + (i % b) * t;
                        hsplit_rankmap m;
                        int rc = hsplit_rankmap_blocks(n, o, st, b, t, &m);
                        bool regular = oracle_regular(a, n) >= 0;
                        if (rc == HSPLIT_RANKMAP_OK) {
                            accepted++;
                            if (!regular || (int)m.mode != oracle_mode(a, n) ||
                                !map_matches(&m, a, n, "blocks"))
                                bad++;
                            hsplit_rankmap_free(&m);
                        } else if (rc != HSPLIT_RANKMAP_ERR_ARG || regular) {
                            if (bad++ < 5)
                                fprintf(stderr, "blocks(%d, %d, %d, %d, %d): rc %d\n", n, o, st,
                                        b, t, rc);
                        }
                    }
    CHECK(bad == 0, "%d of the block patterns wrong", bad);
    CHECK(accepted > 1000, "only %d accepted", accepted);
    hsplit_rankmap m;
    CHECK(hsplit_rankmap_blocks(6, 0, 1, 3, 0, &m) == HSPLIT_RANKMAP_ERR_ARG, "inner step 0");
    CHECK(hsplit_rankmap_blocks(6, 0, 1, 2, 2, &m) == HSPLIT_RANKMAP_ERR_ARG,
          "0 2 | 1 3 | 2 4: neither separated nor interleaved");
    CHECK(hsplit_rankmap_blocks(6, 0, 1, 2, 3, &m) == HSPLIT_RANKMAP_OK && m.mode == BLOCK &&
          hsplit_rankmap_lookup(&m, 5) == 5 && hsplit_rankmap_inverse(&m, 3) == 1,
          "0 3 | 1 4 | 2 5: interleaved");
}

static void test_block_division(void)
{
    /* a block map needs 2b - 1 <= INT_MAX: b <= 2^30 */
    const int blocks[] = {2, 3, 7, 10, 1000, 65537, (1 << 20) + 1, (1 << 29) + 3, (1 << 30) - 1,
                          1 << 30};
    unsigned long long seed = 12345;
    for (size_t k = 0; k < 2 * sizeof blocks / sizeof blocks[0]; k++) {
        /* blocks going up by b + 1, or down by b from the top block */
        long long b = blocks[k / 2], s = k % 2 ? -b : b + 1, top = (INT_MAX - b + 1) / llabs(s);
        long long n = (top + 1) * b < INT_MAX ? (top + 1) * b : INT_MAX, o = k % 2 ? top * b : 0;
        hsplit_rankmap m;
        if (n <= b) continue; /* a single block */
        CHECK(hsplit_rankmap_regular((int)n, (int)o, s, (int)b, &m) == HSPLIT_RANKMAP_OK &&
              m.mode == BLOCK, "block %lld stride %lld", b, s);
        int bad = 0;
        for (int t = 0; t < 4000; t++) {
            long long r;
            if (t < 3) r = t == 0 ? 0 : t == 1 ? n - 1 : n / 2;
            else if (t < 2000) r = ((long long)(t / 4) * b + t % 4 - 2 + n) % n; /* block edges */
            else {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                r = (long long)(seed >> 33) % n;
            }
            long long want = o + (r / b) * s + r % b;
            if (hsplit_rankmap_lookup(&m, (int)r) != want || hsplit_rankmap_inverse(&m, (int)want) != r)
                bad++;
        }
        CHECK(bad == 0, "block %lld: %d wrong lookups", b, bad);
    }
}

/* Compositions that must stay regular (the closed forms of rankmap.c). */
typedef struct {
    const char *name;
    int pn, po; int64_t ps; int pb;   /* parent: regular(pn, po, ps, pb) */
    int cn, co; int64_t cs; int cb;   /* child */
    int mode;
} compose_case;

static void test_compose_regular(void)
{
    static const compose_case cases[] = {
        {"offset of stride", 100, 10, 1, 1, 20, 5, 3, 1, STRIDE},
        {"stride of offset", 100, 10, 4, 1, 20, 5, 1, 1, STRIDE},
        {"stride of stride", 100, 0, 4, 1, 20, 90, -2, 1, STRIDE},
        {"stride of stride = offset", 100, 99, -1, 1, 20, 90, -1, 1, OFFSET},
        {"offset of block", 100, 3, 1, 1, 20, 0, 10, 4, BLOCK},
        {"block of offset from a block start", 2048, 0, 2048, 512, 1024, 512, 1, 1, BLOCK},
        {"block of offset inside a block", 2048, 0, 2048, 512, 100, 600, 1, 1, OFFSET},
        {"block of offset from a block end", 2048, 0, 2048, 512, 600, 511, 1, 1, FIRST_SPECIAL},
        {"block of stride b (roots)", 2048, 0, 2048, 512, 4, 0, 512, 1, STRIDE},
        {"block of stride 2b", 4096, 7, 3000, 512, 4, 100, 1024, 1, STRIDE},
        {"block of block inside blocks", 4096, 0, 1000, 64, 40, 8, 128, 16, BLOCK},
        {"block of stride within a block", 4096, 0, 1000, 64, 16, 0, 4, 1, STRIDE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const compose_case *k = &cases[i];
        hsplit_rankmap p, c, r;
        CHECK(hsplit_rankmap_regular(k->pn, k->po, k->ps, k->pb, &p) == HSPLIT_RANKMAP_OK &&
              hsplit_rankmap_regular(k->cn, k->co, k->cs, k->cb, &c) == HSPLIT_RANKMAP_OK,
              "%s: maps", k->name);
        CHECK(hsplit_rankmap_compose(&p, &c, &r) == HSPLIT_RANKMAP_OK, "%s", k->name);
        CHECK((int)r.mode == k->mode, "%s: %s", k->name, hsplit_rankmap_mode_name(r.mode));
        int *want = malloc((size_t)k->cn * sizeof *want);
        for (int x = 0; x < k->cn; x++)
            want[x] = hsplit_rankmap_lookup(&p, hsplit_rankmap_lookup(&c, x));
        CHECK(map_matches(&r, want, k->cn, k->name), "%s: values", k->name);
        CHECK((int)r.mode == oracle_mode(want, k->cn), "%s: not canonical", k->name);
        free(want);
        hsplit_rankmap_free(&r);
    }
    /* first-special parents and children: the roots patterns */
    hsplit_rankmap world, workers, roots, r, p, c;
    int node_roots[] = {0, 3, 7, 11};       /* of the workers: world 1, 4, 8, 12 */
    hsplit_rankmap_regular(16, 0, 1, 1, &world);
    hsplit_rankmap_regular(15, 1, 1, 1, &workers);
    hsplit_rankmap_detect(node_roots, 4, &roots);
    CHECK(roots.mode == FIRST_SPECIAL, "node-roots of the workers");
    CHECK(hsplit_rankmap_compose(&workers, &roots, &r) == HSPLIT_RANKMAP_OK &&
          r.mode == FIRST_SPECIAL && hsplit_rankmap_lookup(&r, 0) == 1 &&
          hsplit_rankmap_lookup(&r, 3) == 12, "offset of first-special");
    hsplit_rankmap_free(&r);
    int fs[] = {5, 8, 16, 24, 32, 40, 48, 56};
    hsplit_rankmap_detect(fs, 8, &p);
    hsplit_rankmap_regular(7, 1, 1, 1, &c); /* all but the special */
    CHECK(hsplit_rankmap_compose(&p, &c, &r) == HSPLIT_RANKMAP_OK && r.mode == STRIDE,
          "first-special without its special: %s", hsplit_rankmap_mode_name(r.mode));
    hsplit_rankmap_free(&r);
    hsplit_rankmap_regular(4, 0, 2, 1, &c); /* ranks 0, 2, 4, 6: 5, 16, 32, 48 */
    CHECK(hsplit_rankmap_compose(&p, &c, &r) == HSPLIT_RANKMAP_OK && r.mode == FIRST_SPECIAL &&
          hsplit_rankmap_lookup(&r, 2) == 32, "first-special after a stride from 0");
    hsplit_rankmap_free(&r);
    hsplit_rankmap_regular(4, 0, 1, 1, &c); /* a prefix: 5, 8, 16, 24 */
    CHECK(hsplit_rankmap_compose(&p, &c, &r) == HSPLIT_RANKMAP_OK && r.mode == FIRST_SPECIAL,
          "first-special prefix");
    hsplit_rankmap_free(&r);
    CHECK(hsplit_rankmap_compose(&p, &p, &r) == HSPLIT_RANKMAP_ERR_ARG, "child out of range");
    hsplit_rankmap_free(&p);
    hsplit_rankmap_free(&roots);
    hsplit_rankmap_free(&world);
}

/* Tables are shared, not copied, by copies and by offset compositions, and
   outlive the map that made them. */
static void test_tables(void)
{
    enum { N = 1000 };
    static int perm[N];
    for (int i = 0; i < N; i++) perm[i] = (i * 389) % N;
    hsplit_rankmap t, c, r, off;
    hsplit_rankmap_detect(perm, N, &t);
    size_t owned = hsplit_rankmap_bytes(&t);
    CHECK(t.mode == TABLE && owned >= sizeof t + N * sizeof(int) &&
          owned < sizeof t + N * sizeof(int) + 64, "table bytes %zu", owned);
    hsplit_rankmap_copy(&t, &c);
    CHECK(c.table == t.table && hsplit_rankmap_bytes(&c) == sizeof c, "copy shares");
    CHECK(hsplit_rankmap_inverse(&c, perm[500]) == 500, "inverse through the copy");
    CHECK(hsplit_rankmap_bytes(&t) >= owned + N * sizeof(int), "index counted once built");
    hsplit_rankmap_regular(300, 200, 1, 1, &off);
    CHECK(hsplit_rankmap_compose(&t, &off, &r) == HSPLIT_RANKMAP_OK && r.mode == TABLE &&
          r.table == t.table && hsplit_rankmap_bytes(&r) == sizeof r, "table of offset shares");
    hsplit_rankmap_free(&t);
    hsplit_rankmap_free(&c);
    CHECK(map_matches(&r, perm + 200, 300, "shared after free"), "shared table outlives");
    hsplit_rankmap_regular(N + 50, 50, 1, 1, &off);
    CHECK(hsplit_rankmap_compose(&off, &r, &c) == HSPLIT_RANKMAP_OK && c.mode == TABLE &&
          c.table == r.table && hsplit_rankmap_lookup(&c, 0) == perm[200] + 50,
          "offset of table shares");
    hsplit_rankmap_free(&r);
    hsplit_rankmap_free(&c);
    /* a sub-range that is regular becomes regular */
    int almost[] = {1, 0, 2, 3, 4, 5, 6, 7};
    hsplit_rankmap_detect(almost, 8, &t);
    hsplit_rankmap_regular(6, 2, 1, 1, &off);
    CHECK(hsplit_rankmap_compose(&t, &off, &r) == HSPLIT_RANKMAP_OK && r.mode == OFFSET &&
          hsplit_rankmap_bytes(&r) == sizeof r, "regular part of a table");
    hsplit_rankmap_free(&t);
}

/* Lazy index built by racing threads, table released from several threads. */
typedef struct {
    hsplit_rankmap map;
    const int *values;
    int n, errors;
} thread_job;

static void *inverse_all(void *arg)
{
    thread_job *job = arg;
    for (int r = 0; r < job->n; r++)
        if (hsplit_rankmap_inverse(&job->map, job->values[r]) != r) job->errors++;
    hsplit_rankmap_free(&job->map);
    return NULL;
}

static void test_threads(void)
{
    enum { N = 20000, THREADS = 4 };
    int *values = malloc(N * sizeof *values);
    for (int i = 0; i < N; i++) values[i] = (int)(((long long)i * 7907) % N) * 3;
    hsplit_rankmap t;
    hsplit_rankmap_detect(values, N, &t);
    thread_job jobs[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){.values = values, .n = N};
        hsplit_rankmap_copy(&t, &jobs[i].map);
    }
    hsplit_rankmap_free(&t);
    for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, inverse_all, &jobs[i]);
    int errors = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        errors += jobs[i].errors;
    }
    CHECK(errors == 0, "%d wrong inverses from threads", errors);
    free(values);
}

/* Every pair of modes, from arrays of each mode chosen to reach each closed
   form (block starts and ends, strides multiple of the block, first-special
   inner ranks from 0 or not) and the fallbacks. */
enum { PAIR_N = 64, PAIR_VARIANTS = 3 };

static int parent_array(int mode, int variant, int *a)
{
    for (int i = 0; i < PAIR_N; i++) {
        int k = i - 1;
        switch (mode) {
        case DIRECT: a[i] = i; break;
        case OFFSET: a[i] = 100 + 13 * variant + i; break;
        case STRIDE: a[i] = variant == 1 ? 3 * i : 900 - 7 * i; break;
        case BLOCK: a[i] = variant == 1 ? 700 - (i / 4) * 9 + i % 4 : 5 + (i / 8) * 20 + i % 8; break;
        case FIRST_SPECIAL:
            a[i] = i == 0 ? 999 : variant == 1 ? k / 4 * 10 + k % 4 : 50 + (variant + 2) * k;
            break;
        default: a[i] = (i * 37 + variant) % PAIR_N * 3; break;
        }
    }
    return PAIR_N;
}

static int child_array(int mode, int variant, int *a)
{
    static const int table[PAIR_VARIANTS][6] = {{5, 3, 9, 1, 60, 2}, {0, 63, 1, 62, 2, 61},
                                                {8, 16, 24, 32, 41, 40}};
    int n = 0;
    switch (mode) {
    case DIRECT: for (; n < 20 + variant; n++) a[n] = n; break;
    case OFFSET: for (; n < 30; n++) a[n] = (variant == 0 ? 7 : variant == 1 ? 8 : 15) + n; break;
    case STRIDE:
        for (; n < 8; n++) a[n] = variant == 0 ? 63 - 3 * n : variant == 1 ? 8 * n : 1 + 2 * n;
        break;
    case BLOCK:
        for (; n < 15; n++)
            a[n] = variant == 0 ? (n / 2) * 8 + n % 2 : variant == 1 ? 1 + (n / 3) * 12 + n % 3
                                                                     : 60 - (n / 3) * 8 + n % 3;
        break;
    case FIRST_SPECIAL:
        for (; n < 12; n++)
            a[n] = n == 0 ? (variant == 0 ? 0 : 9 * variant) : variant == 1 ? 1 + 4 * (n - 1)
                                                                          : 5 + 2 * (n - 1);
        break;
    default: for (; n < 6; n++) a[n] = table[variant][n]; break;
    }
    return n;
}

static void test_compose_mode_pairs(void)
{
    int p[PAIR_N], c[PAIR_N], bad = 0, seen[NMODES][NMODES] = {{0}};
    for (int pm = 0; pm < NMODES; pm++)
        for (int pv = 0; pv < PAIR_VARIANTS; pv++) {
            int np = parent_array(pm, pv, p);
            CHECK(oracle_mode(p, np) == pm, "parent %d/%d is %s", pm, pv,
                  hsplit_rankmap_mode_name(oracle_mode(p, np)));
            for (int cm = 0; cm < NMODES; cm++)
                for (int cv = 0; cv < PAIR_VARIANTS; cv++) {
                    int nc = child_array(cm, cv, c);
                    CHECK(oracle_mode(c, nc) == cm, "child %d/%d is %s", cm, cv,
                          hsplit_rankmap_mode_name(oracle_mode(c, nc)));
                    bad += !compose_ok(p, np, c, nc);
                    seen[pm][cm]++;
                }
        }
    CHECK(bad == 0, "%d compositions of mode pairs failed", bad);
    for (int pm = 0; pm < NMODES; pm++)
        for (int cm = 0; cm < NMODES; cm++)
            CHECK(coverage[pm][cm] > 0 && seen[pm][cm] > 0, "no %s parent with a %s child",
                  hsplit_rankmap_mode_name(pm), hsplit_rankmap_mode_name(cm));
}

/* ---- exhaustive sweeps ---- */

/* Next array of length n over values lo..hi (odometer); false after the last. */
static bool next_array(int *a, int n, int lo, int hi)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] < hi) {
            a[i]++;
            return true;
        }
        a[i] = lo;
    }
    return false;
}

static void test_exhaustive_detect(int max_n, int lo, int hi)
{
    int a[8] = {0}, bad = 0, count = 0;
    for (int n = 0; n <= max_n; n++) {
        for (int i = 0; i < n; i++) a[i] = lo;
        do {
            count++;
            if (!detect_ok(a, n) && bad++ > 5) break;
        } while (next_array(a, n, lo, hi));
    }
    CHECK(bad == 0, "%d of %d arrays of length <= %d over %d..%d", bad, count, max_n, lo, hi);
}

static void test_exhaustive_compose(int max_n, int hi)
{
    int p[8] = {0}, c[8] = {0}, bad = 0, count = 0;
    for (int np = 0; np <= max_n; np++) {
        for (int i = 0; i < np; i++) p[i] = 0;
        do {
            for (int nc = 0; nc <= max_n && (np > 0 || nc == 0); nc++) {
                for (int i = 0; i < nc; i++) c[i] = 0;
                do {
                    count++;
                    if (!compose_ok(p, np, c, nc) && bad++ > 5) goto done;
                } while (next_array(c, nc, 0, np - 1));
            }
        } while (next_array(p, np, 0, hi));
    }
done:
    CHECK(bad == 0, "%d of %d compositions of length <= %d", bad, count, max_n);
}

/* ---- random structured arrays: regular, first-special, perturbed, tables ---- */

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static long long rnd(long long lo, long long hi) /* uniform in [lo, hi] */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return lo + (long long)(rng_state % (unsigned long long)(hi - lo + 1));
}

/* n values of a random pattern kind, before being moved into range. */
static void random_pattern(long long *v, int n, int kind)
{
    long long s = rnd(-6, 6), b = rnd(2, 7);
    if (kind == 3 && llabs(s) < b) s = s < 0 ? -b - rnd(0, 5) : b + rnd(0, 5);
    for (int i = 0; i < n; i++) {
        switch (kind) {
        case 0: v[i] = i; break;                          /* run */
        case 1: v[i] = i * s; break;                      /* stride */
        case 2: v[i] = rnd(0, 3 * n); break;              /* anything, repeats */
        default: v[i] = (i / b) * s + i % b; break;       /* block */
        }
    }
}

/* A random array of up to max_n values in [0, bound), or n = 0. */
static int random_array(int *a, int max_n, int bound)
{
    long long v[400];
    int n = (int)rnd(0, max_n), kind = (int)rnd(0, 6);
    int first_special = kind == 4, table = kind == 5, perturb = kind == 6;
    if (table) {
        if (n > bound) n = bound;
        for (int i = 0; i < n; i++) v[i] = rnd(0, bound - 1);
    } else {
        random_pattern(v, n, first_special || perturb ? (int)rnd(0, 3) : kind);
    }
    long long lo = 0, hi = 0;
    for (int i = first_special; i < n; i++) {
        lo = i == first_special || v[i] < lo ? v[i] : lo;
        hi = i == first_special || v[i] > hi ? v[i] : hi;
    }
    if (hi - lo >= bound) return 0;
    long long shift = rnd(-lo, bound - 1 - hi);
    for (int i = 0; i < n; i++) a[i] = (int)(v[i] + shift);
    if (n > 0 && first_special) a[0] = (int)rnd(0, bound - 1);
    if (n > 0 && perturb) a[rnd(0, n - 1)] = (int)rnd(0, bound - 1);
    return n;
}

static void test_random(int rounds)
{
    static int p[400], c[400];
    int bad = 0;
    for (int k = 0; k < rounds && bad < 5; k++) {
        int np = random_array(p, 300, 5000);
        if (!detect_ok(p, np)) bad++;
        if (np == 0) continue;
        int nc = random_array(c, 300, np);
        if (!compose_ok(p, np, c, nc)) bad++;
    }
    CHECK(bad == 0, "%d random cases failed", bad);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    CHECK(sizeof(hsplit_rankmap) <= 64, "struct of %zu bytes", sizeof(hsplit_rankmap));
    test_detect_modes();
    test_round_trips();
    test_small_sizes();
    test_largest();
    test_blocks();
    test_block_division();
    test_compose_regular();
    test_tables();
    test_compose_mode_pairs();
    test_threads();
    test_exhaustive_detect(quick ? 5 : 6, 0, 5);
    test_exhaustive_detect(quick ? 4 : 5, -3, 3);
    test_exhaustive_compose(quick ? 3 : 4, 5);
    test_random(quick ? 3000 : 30000);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
