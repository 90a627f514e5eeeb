/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressed rank maps: detection, canonical forms, inverse, composition and
   shared tables. See rankmap.h for the modes. */
#include "rankmap.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(hsplit_rankmap) <= 64, "a regular map must stay within 64 bytes");

struct hsplit_rankmap_table {
    atomic_int refs;
    int n;
    int min, max;          /* of values[]: range checks of compose in O(1) */
    _Atomic(int *) index;  /* positions sorted by (value, position), built lazily */
    int values[];
};

/* ---- patterns: g(i) = o + (i/b)*s + (i%b)*t, b == 1 giving o + i*s ---- */

typedef struct {
    int64_t o, s, b, t; /* t: only when b > 1 (1 otherwise) */
} pattern;

/* A map's values before canonicalisation: g(0..n-1), or, first-special,
   x then g(0..n-2). */
typedef struct {
    int64_t n;
    bool first_special;
    int64_t x;
    pattern g;
} shape;

static const pattern identity = {0, 1, 1, 1};

static pattern stride_pattern(int64_t o, int64_t s)
{
    return (pattern){o, s, 1, 1};
}

static int64_t pattern_at(pattern g, int64_t i)
{
    if (g.b == 1) return g.o + i * g.s;
    return g.o + (i / g.b) * g.s + (i % g.b) * g.t;
}

static int64_t floor_div(int64_t a, int64_t d)
{
    int64_t q = a / d;
    return (a % d != 0 && (a < 0) != (d < 0)) ? q - 1 : q;
}

static int64_t abs64(int64_t x)
{
    return x < 0 ? -x : x;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Smallest and largest of g(0..m-1), m >= 1: blocks 0..Q-1 whole, block Q
   (the last) up to its index J; each block is a run of step t. */
static void pattern_range(pattern g, int64_t m, int64_t *lo, int64_t *hi)
{
    if (g.b == 1) {
        int64_t last = g.o + (m - 1) * g.s;
        *lo = min64(g.o, last);
        *hi = max64(g.o, last);
        return;
    }
    int64_t q = (m - 1) / g.b, j = (m - 1) % g.b;
    *lo = g.o + q * g.s + min64(0, j * g.t);
    *hi = g.o + q * g.s + max64(0, j * g.t);
    if (q > 0) {
        int64_t across = (q - 1) * g.s, inside = (g.b - 1) * g.t; /* blocks 0..q-1 */
        *lo = min64(*lo, g.o + min64(0, across) + min64(0, inside));
        *hi = max64(*hi, g.o + max64(0, across) + max64(0, inside));
    }
}

/* How the blocks of a block pattern of m values separate (see rankmap.h):
   1 one after another (|s| > (b-1)|t|), 2 interleaved (|t| > (nb-1)|s|, s
   != 0, nb = ceil(m/b) blocks), 0 neither (no mode: equal or irregularly
   mixed values). */
static int block_separation(pattern g, int64_t m)
{
    if (g.t == 0) return 0;
    int64_t s = abs64(g.s), t = abs64(g.t), nb = (m + g.b - 1) / g.b;
    if (s > (g.b - 1) * t) return 1;
    if (s != 0 && t > (nb - 1) * s) return 2;
    return 0;
}

/* The i in [0, n) with base + i*step == d, or -1 (step != 0). */
static int64_t progression_index(int64_t d, int64_t step, int64_t n)
{
    if (d % step != 0) return -1;
    int64_t i = d / step;
    return i >= 0 && i < n ? i : -1;
}

/* Smallest i in [0, m) with g(i) == w, or -1; O(1). Block patterns have
   separated blocks, so w - o falls in at most one block (one after another:
   each block spans less than |s|) or one column (interleaved: each column
   j, the j-th elements of the blocks, spans less than |t|). */
static int64_t pattern_find(pattern g, int64_t m, int64_t w)
{
    int64_t d = w - g.o;
    if (m <= 0) return -1;
    if (g.b == 1) {
        if (g.s == 0) return d == 0 ? 0 : -1;
        return progression_index(d, g.s, m);
    }
    int64_t nb = (m + g.b - 1) / g.b, q, j;
    if (block_separation(g, m) == 1) { /* block q: [q*s + low, q*s + low + (b-1)|t|] */
        int64_t e = d - min64(0, (g.b - 1) * g.t);
        q = g.s > 0 ? floor_div(e, g.s) : -floor_div(e, -g.s);
        j = progression_index(d - q * g.s, g.t, g.b);
    } else { /* column j: [j*t + low, j*t + low + (nb-1)|s|] */
        int64_t e = d - min64(0, (nb - 1) * g.s);
        j = g.t > 0 ? floor_div(e, g.t) : -floor_div(e, -g.t);
        if (j < 0 || j >= g.b) return -1;
        q = progression_index(d - j * g.t, g.s, nb);
    }
    if (q < 0 || j < 0) return -1;
    int64_t i = q * g.b + j;
    return i < m ? i : -1;
}

/* ---- canonical forms ---- */

static void set_empty(hsplit_rankmap *map)
{
    memset(map, 0, sizeof *map);
    map->mode = HSPLIT_RANKMAP_DIRECT;
    map->block = 1;
    map->stride = 1;
}

/* A stride s from o (direct, offset or stride). */
static void set_stride(hsplit_rankmap *map, int64_t n, int64_t o, int64_t s)
{
    set_empty(map);
    map->n = (int)n;
    map->mode = s != 1 ? HSPLIT_RANKMAP_STRIDE
                : o == 0 ? HSPLIT_RANKMAP_DIRECT : HSPLIT_RANKMAP_OFFSET;
    map->offset = o;
    map->stride = s;
}

/* i/b for every 0 <= i < 2^31 as (i*m) >> (31 + l), with 2^(l-1) < b <= 2^l and
   m = ceil(2^(31+l) / b): m*b = 2^(31+l) + e with 0 <= e < b, so i*m / 2^(31+l)
   exceeds i/b by less than i*e / (b*2^(31+l)) < 1/b, too little to reach the
   next integer; m <= 2^32, so i*m < 2^63. */
static void set_block_division(hsplit_rankmap *map)
{
    int l = 0;
    while (((int64_t)1 << l) < map->block) l++;
    uint64_t power = (uint64_t)1 << (31 + l);
    map->block_shift = (uint8_t)(31 + l);
    map->block_magic = (power + (uint64_t)map->block - 1) / (uint64_t)map->block;
    map->block_jump = map->stride - (int64_t)map->block * map->inner;
}

/* The pattern's parameters into a map whose mode is set (block or
   first-special). */
static void set_pattern_fields(hsplit_rankmap *map, pattern g)
{
    map->offset = g.o;
    map->stride = g.s;
    map->block = (int)g.b;
    map->inner = g.b > 1 ? g.t : 0;
    if (g.b > 1) set_block_division(map);
}

/* The canonical map of g(0..n-1), as detection would find it. False when g
   is a block pattern whose blocks do not separate (no mode describes its
   values: the caller must look at them). */
static bool set_regular(hsplit_rankmap *map, int64_t n, pattern g)
{
    if (n == 0) {
        set_empty(map);
        return true;
    }
    if (n == 1) {
        set_stride(map, n, g.o, 1);
        return true;
    }
    if (g.b == 1) {
        set_stride(map, n, g.o, g.s);
        return true;
    }
    if (g.b >= n || g.s == g.b * g.t) { /* one run of step t */
        set_stride(map, n, g.o, g.t);
        return true;
    }
    if (block_separation(g, n) == 0) return false;
    set_empty(map);
    map->n = (int)n;
    map->mode = HSPLIT_RANKMAP_BLOCK;
    set_pattern_fields(map, g);
    return true;
}

/* The pattern of a canonical map's values (the inner one for first-special). */
static pattern map_pattern(const hsplit_rankmap *map)
{
    if (map->mode == HSPLIT_RANKMAP_DIRECT) return identity;
    if (map->mode == HSPLIT_RANKMAP_OFFSET) return stride_pattern(map->offset, 1);
    if (map->block == 1) return stride_pattern(map->offset, map->stride);
    return (pattern){map->offset, map->stride, map->block, map->inner};
}

static bool is_regular(const hsplit_rankmap *map)
{
    return map->mode <= HSPLIT_RANKMAP_BLOCK;
}

/* A first-special shape [x, c(0..m-1)] (c canonical, m = n - 1 >= 2) that may
   be regular as a whole: detection's reading of the whole, t' = c(0) - x,
   the run of steps t' from x, then s' = the value after the run minus x,
   checked against c:
   - c one run of step t (a stride): t' == t continues it backwards (a
     stride); otherwise the run [x, c(0)] breaks at c(1), and [x, c(0), c(1)]
     (m == 2) is a block of 2 with s' = c(1) - x; more values break it;
   - c blocks (b, s, t): t' == t lengthens the first block to b + 1 (s' = s +
     t), which describes the whole only if c has at most two blocks (m <=
     2b); otherwise the run [x, c(0)] breaks at c(1) and the whole is pairs:
     [x, c(0)], [c(1), c(2)], ... which c's values follow only when b == 2 and
     t' == s - t (then s' = s).
   The candidate is a mode only if its blocks separate: the caller checks. */
static bool whole_pattern(int64_t n, int64_t x, pattern c, pattern *whole)
{
    int64_t m = n - 1, step = c.b == 1 ? c.s : c.t, t = c.o - x;
    if (c.b == 1 && t == step) *whole = stride_pattern(x, t);
    else if (c.b == 1 && m == 2) *whole = (pattern){x, c.o + step - x, 2, t};
    else if (c.b > 1 && t == c.t && m <= 2 * c.b) *whole = (pattern){x, c.s + t, c.b + 1, t};
    else if (c.b == 2 && t == c.s - c.t) *whole = (pattern){x, c.s, 2, t};
    else return false;
    return true;
}

/* The canonical map of [x, g(0..n-2)]: regular if the whole is, else
   first-special with g canonical. False when g itself has no canonical form. */
static bool set_first_special(hsplit_rankmap *map, int64_t n, int64_t x, pattern g)
{
    hsplit_rankmap inner;
    pattern whole;
    if (n <= 2) return set_regular(map, n, stride_pattern(x, n == 2 ? g.o - x : 1));
    if (!set_regular(&inner, n - 1, g)) return false;
    pattern c = map_pattern(&inner);
    if (whole_pattern(n, x, c, &whole) && set_regular(map, n, whole)) return true;
    set_empty(map);
    map->mode = HSPLIT_RANKMAP_FIRST_SPECIAL;
    map->n = (int)n;
    map->special = (int)x;
    set_pattern_fields(map, c);
    return true;
}

static bool set_shape(hsplit_rankmap *map, const shape *s)
{
    return s->first_special ? set_first_special(map, s->n, s->x, s->g)
                            : set_regular(map, s->n, s->g);
}

/* ---- detection: one pass over the values ----
   A reader reads values in order: the first two give the step t, the
   initial run o, o+t, o+2t, ... gives the block length b, the first value
   after it the stride s, and every later value is checked against
   o + (i/b)*s + (i%b)*t with tight loops (an expected value advanced by t),
   no division. The whole reader reads every value (regular modes). The tail
   reader, all values but the first (first-special), needs no loop of its own
   while the whole reader matches: its state is then a function of the
   whole's pattern (tail_of), so it is built where the whole reader stops and
   reads on from there. */

typedef struct {
    int64_t first, step;          /* o, and t once two values are read */
    int64_t stride, block;        /* block 0: still in the initial run */
    int64_t count;                /* values read and matched */
    int64_t base, j;              /* after the run: current block's first value, index in it */
    bool alive;
} reader;

typedef struct {
    reader whole, tail; /* tail: meaningful once whole has stopped */
} detector;

/* a[i..) against expect, expect + step, ...: how far they match. */
static int64_t match_run(const int *a, int64_t i, int64_t stop, int64_t expect, int64_t step)
{
    while (i < stop && a[i] == expect) {
        expect += step;
        i++;
    }
    return i;
}

static int64_t scan_run(reader *r, const int *a, int64_t i, int64_t len)
{
    int64_t k = match_run(a, i, len, r->first + r->count * r->step, r->step);
    r->count += k - i;
    if (k < len) { /* the run has ended at a[k]: it starts block 1 */
        r->block = r->count;
        r->stride = a[k] - r->first;
        r->base = a[k];
        r->j = 1;
        r->count++;
        k++;
    }
    return k;
}

static int64_t scan_blocks(reader *r, const int *a, int64_t i, int64_t len)
{
    while (i < len) {
        int64_t stop = i + (r->block - r->j < len - i ? r->block - r->j : len - i);
        int64_t k = match_run(a, i, stop, r->base + r->j * r->step, r->step);
        r->j += k - i;
        r->count += k - i;
        i = k;
        if (k < stop) break;
        if (r->j == r->block) {
            r->j = 0;
            r->base += r->stride;
        }
    }
    return i;
}

/* Reads a[0..len) after the values already read; stops at the first value
   that does not match (the reader dies) and returns how many it read. */
static int64_t reader_scan(reader *r, const int *a, int64_t len)
{
    int64_t i = 0;
    if (len == 0) return 0;
    if (r->count == 0) {
        r->first = a[0];
        r->count = i = 1;
    }
    if (r->count == 1 && i < len) {
        r->step = (int64_t)a[i] - r->first;
        r->count = 2;
        i++;
    }
    if (r->block == 0 && r->count >= 2) i = scan_run(r, a, i, len);
    if (r->block > 0) i = scan_blocks(r, a, i, len);
    if (i < len) r->alive = false;
    return i;
}

/* The tail reader after values 1..f-1, given that the whole reader matched
   values 0..f-1 of o + (i/b)*s + (i%b)*t (or of its run, block still 0):
   - the whole still in its run: the tail is the run from o + t;
   - blocks of b >= 3: a run of b-1 from o + t, then blocks of b-1 and stride
     s - t, which the whole's second block breaks at value 2b-1 (as s != b*t);
   - blocks of 2: pairs [o+t, o+s], [o+s+t, o+2s], ...: a run of step s - t
     broken at value 3 (as s != 2t), blocks of 2 and stride s for ever. */
static reader tail_of(const reader *w)
{
    reader t = {.alive = true};
    int64_t c = w->count - 1, b = w->block;
    if (c <= 0) return t;
    t.first = w->first + w->step;
    t.count = c;
    if (c == 1) return t;
    t.step = b == 2 ? w->stride - w->step : w->step;
    if (b == 0 || (b == 2 && c == 2) || (b > 2 && c <= b - 1)) return t; /* still in its run */
    if (b == 2) {
        t.block = 2;
        t.stride = w->stride;
    } else if (c > 2 * b - 2) {
        t.alive = false;
        return t;
    } else {
        t.block = b - 1;
        t.stride = w->stride - w->step;
    }
    t.base = t.first + c / t.block * t.stride;
    t.j = c % t.block;
    return t;
}

static pattern reader_pattern(const reader *r)
{
    if (r->block == 0) return stride_pattern(r->first, r->count >= 2 ? r->step : 1);
    return (pattern){r->first, r->stride, r->block, r->step};
}

static detector detector_new(void)
{
    detector d;
    memset(&d, 0, sizeof d);
    d.whole.alive = d.tail.alive = true;
    return d;
}

static bool detector_alive(const detector *d)
{
    return d->whole.alive || d->tail.alive;
}

/* Reads the next len values. */
static void detector_scan(detector *d, const int *a, int64_t len)
{
    int64_t i = 0;
    if (d->whole.alive) {
        i = reader_scan(&d->whole, a, len);
        if (d->whole.alive) return;
        d->tail = tail_of(&d->whole);
    }
    if (d->tail.alive && i < len) reader_scan(&d->tail, a + i, len - i);
}

/* The canonical regular or first-special map of the n values read, or false
   (a table is needed). */
static bool detector_result(const detector *d, int64_t n, hsplit_rankmap *map)
{
    if (n == 0) {
        set_empty(map);
        return true;
    }
    if (d->whole.alive && set_regular(map, n, reader_pattern(&d->whole))) return true;
    reader tail = d->whole.alive ? tail_of(&d->whole) : d->tail;
    return n >= 2 && tail.alive &&
           set_first_special(map, n, d->whole.first, reader_pattern(&tail));
}

/* ---- shared tables ---- */

static hsplit_rankmap_table *table_new(int n)
{
    hsplit_rankmap_table *t = malloc(sizeof *t + (size_t)n * sizeof(int));
    if (!t) return NULL;
    atomic_init(&t->refs, 1);
    atomic_init(&t->index, NULL);
    t->n = n;
    t->min = t->max = 0;
    return t;
}

static void table_set_range(hsplit_rankmap_table *t)
{
    int lo = t->values[0], hi = t->values[0];
    for (int i = 1; i < t->n; i++) {
        lo = t->values[i] < lo ? t->values[i] : lo;
        hi = t->values[i] > hi ? t->values[i] : hi;
    }
    t->min = lo;
    t->max = hi;
}

static void table_retain(hsplit_rankmap_table *t)
{
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

static void table_release(hsplit_rankmap_table *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1) return;
    free(atomic_load_explicit(&t->index, memory_order_acquire));
    free(t);
}

static size_t table_bytes(hsplit_rankmap_table *t)
{
    size_t values = (size_t)t->n * sizeof(int);
    bool indexed = atomic_load_explicit(&t->index, memory_order_acquire) != NULL;
    return sizeof *t + values + (indexed ? values : 0);
}

/* A table map of n values starting at start in t, each plus offset; takes one
   reference to t. */
static void set_table(hsplit_rankmap *map, hsplit_rankmap_table *t, int start, int n,
                      int64_t offset, bool owns)
{
    set_empty(map);
    map->mode = HSPLIT_RANKMAP_TABLE;
    map->n = n;
    map->offset = offset;
    map->values = t->values + start;
    map->table = t;
    map->owns_table = owns;
}

/* Sort keys: value (order-preserving as unsigned) then position. */
static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t index_key(int value, int position)
{
    return (uint64_t)((uint32_t)value ^ 0x80000000u) << 32 | (uint32_t)position;
}

static int *index_build(const hsplit_rankmap_table *t)
{
    uint64_t *keys = malloc((size_t)t->n * sizeof *keys);
    int *index = malloc((size_t)t->n * sizeof *index);
    if (keys && index) {
        for (int i = 0; i < t->n; i++) keys[i] = index_key(t->values[i], i);
        qsort(keys, (size_t)t->n, sizeof *keys, compare_keys);
        for (int i = 0; i < t->n; i++) index[i] = (int)(uint32_t)keys[i];
    } else {
        free(index);
        index = NULL;
    }
    free(keys);
    return index;
}

/* The table's sorted index, built by the first caller; racing builders keep
   the first one published and free theirs. NULL if memory is short. */
static const int *table_index(hsplit_rankmap_table *t)
{
    int *index = atomic_load_explicit(&t->index, memory_order_acquire);
    if (index) return index;
    int *built = index_build(t);
    if (!built) return NULL;
    if (atomic_compare_exchange_strong_explicit(&t->index, &index, built, memory_order_acq_rel,
                                                memory_order_acquire))
        return built;
    free(built);
    return index;
}

/* Smallest rank of a table map with value v (the world index minus offset). */
static int table_find(const hsplit_rankmap *map, int64_t v)
{
    hsplit_rankmap_table *t = map->table;
    int start = (int)(map->values - t->values);
    if (v < t->min || v > t->max) return -1;
    const int *index = table_index(t);
    if (!index) {
        for (int r = 0; r < map->n; r++)
            if (map->values[r] == v) return r;
        return -1;
    }
    /* first entry not below (v, start) */
    uint64_t key = index_key((int)v, start);
    int lo = 0, hi = t->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (index_key(t->values[index[mid]], index[mid]) < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo == t->n || t->values[index[lo]] != v || index[lo] - start >= map->n) return -1;
    return index[lo] - start;
}

/* ---- public: building ---- */

int hsplit_rankmap_detect(const int *world, int n, hsplit_rankmap *map)
{
    if (!map || n < 0 || (n > 0 && !world)) return HSPLIT_RANKMAP_ERR_ARG;
    detector d = detector_new();
    detector_scan(&d, world, n);
    if (detector_result(&d, n, map)) return HSPLIT_RANKMAP_OK;
    hsplit_rankmap_table *t = table_new(n);
    if (!t) return HSPLIT_RANKMAP_ERR_NOMEM;
    memcpy(t->values, world, (size_t)n * sizeof(int));
    table_set_range(t);
    set_table(map, t, 0, n, 0, true);
    return HSPLIT_RANKMAP_OK;
}

/* |a*b| <= 2^34 (a product the pattern arithmetic can add without
   overflow), without computing it. */
static bool small_product(int64_t a, int64_t b)
{
    const int64_t limit = (int64_t)1 << 34;
    return a == 0 || abs64(b) <= limit / abs64(a);
}

int hsplit_rankmap_blocks(int n, int offset, int64_t stride, int block, int64_t inner,
                          hsplit_rankmap *map)
{
    int64_t lo, hi;
    if (!map || n < 0 || block < 1) return HSPLIT_RANKMAP_ERR_ARG;
    /* the parameters that matter must keep every value near int (checked
       first so that the arithmetic below cannot overflow) */
    bool blocks = block > 1 && block < n;
    if ((blocks || block == 1) && !small_product((n - 1) / block, stride))
        return HSPLIT_RANKMAP_ERR_ARG;
    if (block > 1 && !small_product(block - 1 < n - 1 ? block - 1 : n - 1, inner))
        return HSPLIT_RANKMAP_ERR_ARG;
    pattern g = block == 1 ? stride_pattern(offset, stride)
                           : (pattern){offset, blocks ? stride : 0, block, inner};
    if (!set_regular(map, n, g)) {
        set_empty(map);
        return HSPLIT_RANKMAP_ERR_ARG;
    }
    if (n == 0) return HSPLIT_RANKMAP_OK;
    pattern_range(map_pattern(map), n, &lo, &hi);
    if (lo >= INT_MIN && hi <= INT_MAX) return HSPLIT_RANKMAP_OK;
    set_empty(map);
    return HSPLIT_RANKMAP_ERR_ARG;
}

int hsplit_rankmap_regular(int n, int offset, int64_t stride, int block, hsplit_rankmap *map)
{
    return hsplit_rankmap_blocks(n, offset, stride, block, 1, map);
}

void hsplit_rankmap_copy(const hsplit_rankmap *src, hsplit_rankmap *dst)
{
    *dst = *src;
    dst->owns_table = false;
    if (dst->mode == HSPLIT_RANKMAP_TABLE) table_retain(dst->table);
}

void hsplit_rankmap_free(hsplit_rankmap *map)
{
    if (!map) return;
    if (map->mode == HSPLIT_RANKMAP_TABLE) table_release(map->table);
    set_empty(map);
}

/* ---- public: using ---- */

/* Wider vectors where the processor has them, chosen once at load time
   (GCC's function multiversioning; the default build targets SSE2 only). */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define HSPLIT_WIDE_VECTORS_ __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define HSPLIT_WIDE_VECTORS_
#endif

/* out[i] = base + i*step, i < count: wrapping unsigned arithmetic, exact
   because every result is an int (the map's values are). A loop the
   compiler vectorizes. */
HSPLIT_WIDE_VECTORS_
static void stride_run(int base, int step, int count, int *out)
{
    /* an added induction, not i*step: SSE2 has no 32-bit vector multiply */
    unsigned v = (unsigned)base;
    for (int i = 0; i < count; i++, v += (unsigned)step) out[i] = (int)v;
}

/* out[i] = values[i] + offset (exact in wrapping arithmetic, as above). */
HSPLIT_WIDE_VECTORS_
static void shifted_copy(const int *values, int offset, int count, int *out)
{
    for (int i = 0; i < count; i++) out[i] = (int)((unsigned)values[i] + (unsigned)offset);
}

/* g(i) = o + (i/b)*s + (i%b)*t for i = from..from+count-1, block by block:
   each block is a run of step t. */
static void block_range(const hsplit_rankmap *map, int from, int count, int *out)
{
    int b = map->block, step = (int)(uint32_t)map->inner;
    int q = from / b, within = from % b;
    while (count > 0) {
        int len = b - within < count ? b - within : count;
        int64_t base = map->offset + (int64_t)q * map->stride + (int64_t)within * map->inner;
        stride_run((int)(uint32_t)base, step, len, out);
        out += len;
        count -= len;
        q++;
        within = 0;
    }
}

/* The regular pattern of a map (first-special: the ranks after the first),
   from its index `from` on. */
static void regular_range(const hsplit_rankmap *map, int from, int count, int *out)
{
    if (map->block > 1)
        block_range(map, from, count, out);
    else
        stride_run((int)(uint32_t)(map->offset + (int64_t)from * map->stride),
                   (int)(uint32_t)map->stride, count, out);
}

void hsplit_rankmap_lookup_range(const hsplit_rankmap *map, int first, int count, int *out)
{
    if (count <= 0) return;
    switch (map->mode) {
    case HSPLIT_RANKMAP_TABLE:
        shifted_copy(map->values + first, (int)map->offset, count, out);
        return;
    case HSPLIT_RANKMAP_FIRST_SPECIAL:
        if (first == 0 && map->block == 1) {
            /* the stride run from out[0] (the value rank 0 would have), then
               the special value over it: aligned stores, unlike a run from
               out[1] */
            stride_run((int)(uint32_t)((uint64_t)map->offset - (uint64_t)map->stride),
                       (int)(uint32_t)map->stride, count, out);
            out[0] = map->special;
            return;
        }
        if (first == 0) {
            *out++ = map->special;
            count--;
            first++;
        }
        regular_range(map, first - 1, count, out);
        return;
    default:
        regular_range(map, first, count, out);
    }
}

int hsplit_rankmap_inverse(const hsplit_rankmap *map, int w)
{
    if (map->mode == HSPLIT_RANKMAP_TABLE) return table_find(map, (int64_t)w - map->offset);
    if (map->mode != HSPLIT_RANKMAP_FIRST_SPECIAL)
        return (int)pattern_find(map_pattern(map), map->n, w);
    if (w == map->special) return 0;
    int64_t r = pattern_find(map_pattern(map), map->n - 1, w);
    return r < 0 ? -1 : (int)r + 1;
}

size_t hsplit_rankmap_bytes(const hsplit_rankmap *map)
{
    size_t bytes = sizeof *map;
    if (map->mode == HSPLIT_RANKMAP_TABLE && map->owns_table) bytes += table_bytes(map->table);
    return bytes;
}

const char *hsplit_rankmap_mode_name(hsplit_rankmap_mode mode)
{
    static const char *const names[] = {"direct", "offset",        "stride",
                                        "block",  "first-special", "table"};
    return (unsigned)mode <= HSPLIT_RANKMAP_TABLE ? names[mode] : "invalid";
}

/* ---- composition ---- */

/* Smallest and largest value of a map with n >= 1. */
static void map_range(const hsplit_rankmap *map, int64_t *lo, int64_t *hi)
{
    if (map->mode == HSPLIT_RANKMAP_TABLE) {
        const hsplit_rankmap_table *t = map->table;
        if (map->n == t->n) {
            *lo = t->min + map->offset;
            *hi = t->max + map->offset;
            return;
        }
        int min = map->values[0], max = map->values[0];
        for (int r = 1; r < map->n; r++) {
            min = map->values[r] < min ? map->values[r] : min;
            max = map->values[r] > max ? map->values[r] : max;
        }
        *lo = min + map->offset;
        *hi = max + map->offset;
        return;
    }
    if (map->mode != HSPLIT_RANKMAP_FIRST_SPECIAL) {
        pattern_range(map_pattern(map), map->n, lo, hi);
        return;
    }
    *lo = *hi = map->special;
    if (map->n == 1) return;
    int64_t glo, ghi;
    pattern_range(map_pattern(map), map->n - 1, &glo, &ghi);
    *lo = glo < *lo ? glo : *lo;
    *hi = ghi > *hi ? ghi : *hi;
}

static shape regular_shape(int64_t n, pattern g)
{
    return (shape){n, false, 0, g};
}

/* Parent pattern p applied to child pattern c, m >= 1 values all in p's
   domain. The closed forms (else false; the caller then reads the values):
   - p a run or a stride (b == 1), or c's values within one block of p, where p
     is a stride t: a stride k after any pattern c multiplies c's s and t by k
     (stride of stride, offset of stride, stride of block: a block whose
     inner step is k*t_c...);
   - p a block (b_p, s_p, t_p) over several of its blocks:
     c a stride whose s_c is a multiple of b_p: every value at the same place
       in its block, a stride (s_c/b_p)*s_p (roots of a block communicator);
     c a block whose blocks each fall inside one block of p at the same
       place (s_c a multiple of b_p): a block of b_c, stride (s_c/b_p)*s_p,
       inner step t_c*t_p;
     c a run from a block's start: p's blocks from there, a block;
     c a run from a block's last element: that element, then p's blocks: a
       first-special.
   The shapes found are checked by set_shape (a block whose blocks do not
   separate has no mode: the caller then reads the values). */
static bool compose_patterns(pattern p, pattern c, int64_t m, shape *out)
{
    int64_t lo, hi;
    pattern_range(c, m, &lo, &hi);
    bool one_block = p.b > 1 && lo / p.b == hi / p.b;
    if (p.b == 1 || one_block) {
        int64_t q = lo / p.b; /* p restricted to block q: o + q*(s - b*t) + i*t */
        pattern run = p.b == 1 ? p : stride_pattern(p.o + q * (p.s - p.b * p.t), p.t);
        int64_t o = run.o + run.s * c.o;
        *out = regular_shape(m, c.b == 1 ? stride_pattern(o, run.s * c.s)
                                         : (pattern){o, run.s * c.s, c.b, run.s * c.t});
        return true;
    }
    int64_t first = pattern_at(p, c.o), place = c.o % p.b;
    if (c.s % p.b == 0 && c.b == 1) {
        *out = regular_shape(m, stride_pattern(first, c.s / p.b * p.s));
        return true;
    }
    int64_t last = place + (c.b - 1) * c.t; /* place of each c block's last value */
    if (c.s % p.b == 0 && last >= 0 && last < p.b) {
        *out = regular_shape(m, (pattern){first, c.s / p.b * p.s, c.b, c.t * p.t});
        return true;
    }
    if (c.b != 1 || c.s != 1) return false;
    if (place == 0) {
        *out = regular_shape(m, (pattern){first, p.s, p.b, p.t});
        return true;
    }
    if (place != p.b - 1) return false;
    *out = (shape){m, true, first, (pattern){pattern_at(p, c.o + 1), p.s, p.b, p.t}};
    return true;
}

/* A regular parent p after a first-special child [x, c(..)]: p(x), then p
   after c, which must stay regular (a second special has no mode). */
static bool compose_after_first_special(const hsplit_rankmap *parent, pattern p, int64_t x,
                                        pattern c, int64_t n, shape *out)
{
    shape inner;
    if (n == 1) inner = regular_shape(0, identity);
    else if (!compose_patterns(p, c, n - 1, &inner) || inner.first_special) return false;
    *out = (shape){n, true, hsplit_rankmap_lookup(parent, (int)x), inner.g};
    return true;
}

static pattern shifted_down(pattern c)
{
    return (pattern){c.o - 1, c.s, c.b, c.t};
}

/* Parent first-special [x_p, p(..)]: parent rank i >= 1 is p(i - 1).
   - child never at rank 0: p after (child - 1);
   - child a stride s >= 1 from rank 0 (a prefix of the parent when s == 1):
     x_p, then p after the stride (s - 1) + i*s;
   - child first-special whose inner ranks are >= 1: parent(x_c), then p
     after (inner - 1). */
static bool compose_first_special_parent(const hsplit_rankmap *parent,
                                         const hsplit_rankmap *child, shape *out)
{
    pattern p = map_pattern(parent), c = map_pattern(child);
    int64_t n = child->n, lo, hi;
    if (child->mode == HSPLIT_RANKMAP_FIRST_SPECIAL) {
        if (n > 1) {
            pattern_range(c, n - 1, &lo, &hi);
            if (lo < 1) return false;
        }
        return compose_after_first_special(parent, p, child->special, shifted_down(c), n, out);
    }
    pattern_range(c, n, &lo, &hi);
    if (lo >= 1) return compose_patterns(p, shifted_down(c), n, out);
    if (c.o != 0 || c.b != 1 || (n > 1 && c.s < 1)) return false;
    return compose_after_first_special(parent, p, 0, stride_pattern(c.s - 1, c.s), n, out);
}

/* The O(1) shape of parent after child, or false when there is none (a table
   is involved, or the composition is no closed form above). */
static bool compose_closed(const hsplit_rankmap *parent, const hsplit_rankmap *child,
                           shape *out)
{
    if (parent->mode == HSPLIT_RANKMAP_TABLE || child->mode == HSPLIT_RANKMAP_TABLE) return false;
    if (parent->mode == HSPLIT_RANKMAP_FIRST_SPECIAL)
        return compose_first_special_parent(parent, child, out);
    pattern p = map_pattern(parent), c = map_pattern(child);
    if (is_regular(child)) return compose_patterns(p, c, child->n, out);
    return compose_after_first_special(parent, p, child->special, c, child->n, out);
}

/* A table map sharing parent's or child's table: an offset after a table
   adds to the table's offset; a table after an offset starts further in. */
static bool share_table(const hsplit_rankmap *parent, const hsplit_rankmap *child,
                        hsplit_rankmap *out)
{
    if (child->mode == HSPLIT_RANKMAP_TABLE && parent->mode == HSPLIT_RANKMAP_OFFSET) {
        hsplit_rankmap_copy(child, out);
        out->offset += parent->offset;
        return true;
    }
    bool run = child->mode == HSPLIT_RANKMAP_DIRECT || child->mode == HSPLIT_RANKMAP_OFFSET;
    if (parent->mode != HSPLIT_RANKMAP_TABLE || !run) return false;
    hsplit_rankmap_copy(parent, out);
    out->n = child->n;
    out->values += child->offset;
    return true;
}

static int compose_values(const hsplit_rankmap *parent, const hsplit_rankmap *child,
                          hsplit_rankmap *out)
{
    enum { CHUNK = 256 };
    int n = child->n, chunk[CHUNK];
    detector d = detector_new();
    for (int r = 0; r < n && detector_alive(&d); r += CHUNK) {
        int len = n - r < CHUNK ? n - r : CHUNK;
        hsplit_rankmap_lookup_range(child, r, len, chunk);
        for (int k = 0; k < len; k++) chunk[k] = hsplit_rankmap_lookup(parent, chunk[k]);
        detector_scan(&d, chunk, len);
    }
    if (detector_result(&d, n, out) || share_table(parent, child, out)) return HSPLIT_RANKMAP_OK;
    hsplit_rankmap_table *t = table_new(n);
    if (!t) return HSPLIT_RANKMAP_ERR_NOMEM;
    for (int r = 0; r < n; r++)
        t->values[r] = hsplit_rankmap_lookup(parent, hsplit_rankmap_lookup(child, r));
    table_set_range(t);
    set_table(out, t, 0, n, 0, true);
    return HSPLIT_RANKMAP_OK;
}

int hsplit_rankmap_compose(const hsplit_rankmap *parent, const hsplit_rankmap *child,
                           hsplit_rankmap *result)
{
    int64_t lo, hi;
    shape s;
    if (!parent || !child || !result) return HSPLIT_RANKMAP_ERR_ARG;
    if (child->n == 0) {
        set_empty(result);
        return HSPLIT_RANKMAP_OK;
    }
    map_range(child, &lo, &hi);
    if (lo < 0 || hi >= parent->n) return HSPLIT_RANKMAP_ERR_ARG;
    if (parent->mode == HSPLIT_RANKMAP_DIRECT) {
        hsplit_rankmap_copy(child, result);
        return HSPLIT_RANKMAP_OK;
    }
    if (compose_closed(parent, child, &s) && set_shape(result, &s)) return HSPLIT_RANKMAP_OK;
    return compose_values(parent, child, result);
}
