/* SPDX-License-Identifier: BSD-3-Clause */
/* Compressed rank maps: communicator rank -> world process index.

   A communicator of n processes needs, for each rank r in [0, n), the index w
   of its process in the world. Applications make regular layouts (duplicates,
   grid rows and columns, node and roots communicators), so a map stores the
   layout's few parameters instead of an n-element array whenever it can
   (AV-Rankmap modes, plus first-special for roots communicators):

     mode            world index of rank r                    parameters
     direct          r                                        -
     offset          o + r                                    o
     stride          o + r*s           (s != 1; 0, < 0 ok)    o, s
     block           o + (r/b)*s + (r%b)*t                    o, s, b, t
                     (2 <= b < n, t != 0, s != b*t, and the blocks separate:
                     |s| > (b-1)*|t| (blocks one after another, e.g. a
                     package of every node: t = 1), or s != 0 and
                     |t| > (ceil(n/b)-1)*|s| (blocks interleaved, e.g. the
                     tree order of a cyclic placement, (r%b)*k + r/b))
     first-special   rank 0: x; rank r >= 1: a direct, offset, stride or block
                     pattern g(r-1) with g(i) = o + (i/b)*s + (i%b)*t
                     (b == 1: o + i*s)
     table           o + values[r], values shared by reference count

   Every map is canonical: its mode is the most compact of the list above that
   reproduces its n values (direct < offset < stride < block < first-special <
   table), the same mode hsplit_rankmap_detect gives for those values, whether
   the map came from detection, from hsplit_rankmap_regular or
   hsplit_rankmap_blocks, or from a composition. Detection reads the block
   parameters off the values: t = a[1] - a[0], b the length of the first run
   of steps t, s = a[b] - a[0]; the separation rules make the values of a
   block map distinct and its inverse O(1).

   Pure C, no MPI. Maps are plain values the caller stores (at most 64 bytes);
   only a table map owns memory beyond the struct. Reading a map (lookup,
   inverse, bytes) is thread-safe, even on maps sharing a table; a table's
   reference count is atomic, so copies of one map may be made and freed from
   different threads. There is no global state. */
#ifndef HSPLIT_RANKMAP_H
#define HSPLIT_RANKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    HSPLIT_RANKMAP_DIRECT,
    HSPLIT_RANKMAP_OFFSET,
    HSPLIT_RANKMAP_STRIDE,
    HSPLIT_RANKMAP_BLOCK,
    HSPLIT_RANKMAP_FIRST_SPECIAL,
    HSPLIT_RANKMAP_TABLE
} hsplit_rankmap_mode;

enum {
    HSPLIT_RANKMAP_OK = 0,
    HSPLIT_RANKMAP_ERR_ARG,   /* bad argument: n < 0, values out of range */
    HSPLIT_RANKMAP_ERR_NOMEM  /* a table could not be allocated */
};

/* The values of table maps, shared by reference count (opaque). */
typedef struct hsplit_rankmap_table hsplit_rankmap_table;

/* Read the fields, never write them: use the functions below. */
typedef struct {
    uint8_t mode;         /* an hsplit_rankmap_mode */
    uint8_t block_shift;  /* i/b == (i * block_magic) >> block_shift, b > 1 */
    bool owns_table;      /* this map made its table: bytes() counts it */
    int n;                /* number of ranks */
    int block;            /* b of block and first-special, else 1 */
    int special;          /* x of first-special: world index of rank 0 */
    int64_t offset;       /* o (direct: 0) */
    int64_t stride;       /* s (direct, offset: 1); 64-bit: the difference of two ints */
    int64_t inner;        /* t, the step inside a block (b > 1), else 0 */
    union {
        struct {          /* table */
            const int *values;            /* values of ranks 0..n-1, inside table */
            hsplit_rankmap_table *table;
        };
        struct {          /* block > 1 */
            uint64_t block_magic;
            int64_t block_jump;           /* s - b*t: o + r*t + (r/b)*(s - b*t) */
        };
    };
} hsplit_rankmap;

/* --- building maps. Each overwrites *map without freeing what it held. --- */

/* The map of the n world indices world[0..n-1], in its most compact mode,
   found in one linear pass. A table copies the values. Returns OK, ERR_ARG
   (n < 0, world NULL with n > 0) or ERR_NOMEM. */
int hsplit_rankmap_detect(const int *world, int n, hsplit_rankmap *map);

/* The map r -> offset + (r/block)*stride + r%block of n ranks (block 1:
   offset + r*stride), in its canonical mode, in O(1) time and memory: e.g.
   MPI_COMM_WORLD is hsplit_rankmap_regular(size, 0, 1, 1, &map). ERR_ARG if n <
   0, block < 1, a value falls outside int, or the pattern is a block pattern
   with |stride| < block (overlapping blocks, which no mode describes). */
int hsplit_rankmap_regular(int n, int offset, int64_t stride, int block, hsplit_rankmap *map);

/* The map r -> offset + (r/block)*stride + (r%block)*inner of n ranks, in
   its canonical mode, in O(1) time and memory (hsplit_rankmap_regular is
   inner == 1). ERR_ARG as for hsplit_rankmap_regular, and for a block pattern
   whose blocks do not separate (see the modes above: overlapping or
   irregularly interleaved blocks, or inner == 0). */
int hsplit_rankmap_blocks(int n, int offset, int64_t stride, int block, int64_t inner,
                          hsplit_rankmap *map);

/* The map of a child communicator: child maps child rank -> parent rank,
   parent maps parent rank -> world index; result maps child rank -> world
   index, parent's lookup of child's lookup. Regular compositions are found in
   O(1) (see rankmap.c for each case); any other is computed value by value
   and detected, so the result is regular whenever the composition is, and a
   table otherwise, sharing parent's or child's table when one of them is a
   table and the other an offset. result must not be parent or child. Returns
   OK, ERR_ARG (a child value outside [0, parent->n)) or ERR_NOMEM. */
int hsplit_rankmap_compose(const hsplit_rankmap *parent, const hsplit_rankmap *child,
                           hsplit_rankmap *result);

/* A copy of src sharing its table (O(1), never fails). The copy does not own
   the table for hsplit_rankmap_bytes. */
void hsplit_rankmap_copy(const hsplit_rankmap *src, hsplit_rankmap *dst);

/* Releases the map's share of its table (freed with its last map) and leaves
   *map an empty direct map, so freeing twice is harmless. */
void hsplit_rankmap_free(hsplit_rankmap *map);

/* --- using maps --- */

/* The world index of rank 0 <= r < map->n; O(1) in every mode. */
static inline int hsplit_rankmap_lookup(const hsplit_rankmap *map, int r);

/* The world indices of ranks first..first+count-1 into out[0..count-1]
   (0 <= first, first + count <= map->n): one pass in rank order, a loop the
   compiler vectorizes for every regular mode (a run per block for block
   maps), so translating many ranks costs about what copying them from an
   array does. */
void hsplit_rankmap_lookup_range(const hsplit_rankmap *map, int first, int count, int *out);

/* The smallest rank whose world index is w, or -1 when w is not a member.
   O(1) arithmetic for every mode but table; O(log n) for a table, through a
   sorted index kept with the shared table (4 bytes per value), built on the
   first inverse of any map sharing it (thread-safe; linear search if it cannot
   be allocated). */
int hsplit_rankmap_inverse(const hsplit_rankmap *map, int w);

/* Memory attributable to the map: sizeof(hsplit_rankmap), plus, for the map
   that made a table (by detection or composition), the whole table: its
   header, its values and its inverse index once built. Copies and maps
   composed to share a table count the struct only, so summing over maps
   counts each table once (a table outliving the map that made it is then
   counted by none). */
size_t hsplit_rankmap_bytes(const hsplit_rankmap *map);

/* "direct", "offset", "stride", "block", "first-special", "table". */
const char *hsplit_rankmap_mode_name(hsplit_rankmap_mode mode);

/* ---- inline lookup: on the hot path of every rank translation ---- */

/* Regular strides laid out as the straight-line path (no taken branch). */
#if defined(__GNUC__)
#define HSPLIT_RANKMAP_LIKELY_(c) __builtin_expect(!!(c), 1)
#else
#define HSPLIT_RANKMAP_LIKELY_(c) (c)
#endif

/* g(i) = o + i*t + (i/b)*(s - b*t) = o + (i/b)*s + (i%b)*t, 0 <= i < 2^31,
   b > 1: the quotient by a multiplication and a shift instead of a division
   (exact, see rankmap.c), two independent multiply-adds after it. */
static inline int hsplit_rankmap_block_at_(const hsplit_rankmap *map, int i)
{
    uint64_t q = ((uint64_t)(uint32_t)i * map->block_magic) >> map->block_shift;
    return (int)((uint64_t)map->offset + (uint64_t)(int64_t)i * (uint64_t)map->inner +
                 q * (uint64_t)map->block_jump);
}

static inline int hsplit_rankmap_lookup(const hsplit_rankmap *map, int r)
{
    /* direct and offset are strides of 1: one predictable branch, no table jump */
    if (HSPLIT_RANKMAP_LIKELY_(map->mode <= HSPLIT_RANKMAP_STRIDE))
        return (int)(map->offset + r * map->stride);
    /* first-special strides next (roots communicators): a select, no branch on r */
    if (map->mode == HSPLIT_RANKMAP_FIRST_SPECIAL && map->block == 1) {
        int regular = (int)(map->offset + (int64_t)(r - 1) * map->stride);
        return r == 0 ? map->special : regular;
    }
    if (map->mode == HSPLIT_RANKMAP_TABLE) return (int)(map->offset + map->values[r]);
    if (map->mode == HSPLIT_RANKMAP_BLOCK) return hsplit_rankmap_block_at_(map, r);
    int regular = hsplit_rankmap_block_at_(map, r - 1);
    return r == 0 ? map->special : regular;
}

#endif
