/* SPDX-License-Identifier: BSD-3-Clause */
/* The pipeline's segment size (user guide, section 8.1): with
   HSPLIT_COLL_SEGMENT_SIZE unset, no segmentation below 256 KiB, then
   segments of at least 64 KiB, doubled until there are at most 16; set, the
   variable's value whatever the size. Expectations are the documented rule,
   written out, and its invariants over a sweep of sizes. Then the number of
   segments and the size of temporary buffers, computed without overflow up
   to the largest counts. One process. */
#include <limits.h>
#include <stdint.h>
#include "hsplit_internal.h"
#include "test_util.h"

#define KIB 1024L
#define MIB (1024L * 1024L)

static long segments(long bytes, long segment)
{
    return (bytes + segment - 1) / segment;
}

static void check_rule(void)
{
    hsplit_hierarchy h;
    memset(&h, 0, sizeof h);
    h.config.segment_bytes = 0; /* unset: chosen by size */
    static const struct {
        long bytes, segment;
    } cases[] = {
        {0, 1},           {1, 1},           {4000, 4000},    {64 * KIB, 64 * KIB},
        {256 * KIB - 1, 256 * KIB - 1},     {256 * KIB, 64 * KIB}, {MIB, 64 * KIB},
        {MIB + 1, 128 * KIB},               {2 * MIB, 128 * KIB},  {2 * MIB + 4, 256 * KIB},
        {64 * MIB, 4 * MIB},                {64 * MIB + 1, 8 * MIB},
        {2047L * MIB, 128 * MIB},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long got = hsplit_segment_bytes(&h, cases[i].bytes);
        CHECK(got == cases[i].segment, "%ld bytes: segment %ld, expected %ld", cases[i].bytes,
              got, cases[i].segment);
    }
    /* invariants: powers of two from 64 KiB, at most 16 segments, and a
       segment above 64 KiB only when half of it would make more than 16 */
    for (long bytes = 256 * KIB; bytes < (1L << 40); bytes = bytes * 13 / 10 + 7) {
        long s = hsplit_segment_bytes(&h, bytes);
        CHECK(s >= 64 * KIB && (s & (s - 1)) == 0, "%ld bytes: segment %ld", bytes, s);
        CHECK(segments(bytes, s) <= 16, "%ld bytes: %ld segments", bytes, segments(bytes, s));
        CHECK(s == 64 * KIB || segments(bytes, s / 2) > 16, "%ld bytes: segment %ld too large",
              bytes, s);
    }
    /* set: the value, whatever the size */
    h.config.segment_bytes = 1024;
    CHECK_INT(hsplit_segment_bytes(&h, 10), 1024);
    CHECK_INT(hsplit_segment_bytes(&h, 64 * MIB), 1024);
}

/* Elements per segment: whole elements of a contiguous type, the whole
   count for other types and for elements larger than a segment. */
static void check_elements(void)
{
    hsplit_hierarchy h;
    memset(&h, 0, sizeof h);
    CHECK_INT(hsplit_segment_elements(&h, 1000, MPI_INT), 1000);
    CHECK_INT(hsplit_segment_elements(&h, 0, MPI_INT), 1);
    CHECK_INT(hsplit_segment_elements(&h, 262144 / 4, MPI_INT), 16384);
    CHECK_INT(hsplit_segment_elements(&h, 300000, MPI_INT), 32768); /* 1.2 MB: 128 KiB */
    CHECK_INT(hsplit_segment_elements(&h, 300000, MPI_DOUBLE), 32768); /* 2.4 MB: 256 KiB */
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK_INT(hsplit_segment_elements(&h, 300000, vec), 300000);
    MPI_Type_free(&vec);
    h.config.segment_bytes = 1024;
    CHECK_INT(hsplit_segment_elements(&h, 1000, MPI_INT), 256);
    CHECK_INT(hsplit_segment_elements(&h, 100, MPI_INT), 100);
    MPI_Datatype big;
    MPI_Type_contiguous(512, MPI_INT, &big); /* 2 KiB elements: not cut */
    MPI_Type_commit(&big);
    CHECK_INT(hsplit_segment_elements(&h, 10, big), 10);
    MPI_Type_free(&big);
}

/* Segment counts without overflow: (count + seg - 1) / seg, as the
   pipelines computed it, exceeds an int from count + seg > 2^31 on, that
   is from 2^30 + 1 elements in one segment (HSPLIT_COLL_SEGMENT_SIZE of
   2^31 - 1) and from 2013265921 bytes in default segments of 128 MiB. */
static void check_counts(void)
{
    CHECK_INT(hsplit_segment_count(1, 1), 1);
    CHECK_INT(hsplit_segment_count(10, 3), 4);
    CHECK_INT(hsplit_segment_count(12, 3), 4);
    CHECK_INT(hsplit_segment_count(1073741825, 1073741825), 1);
    CHECK_INT(hsplit_segment_count(INT_MAX, INT_MAX), 1);
    CHECK_INT(hsplit_segment_count(INT_MAX, INT_MAX - 1), 2);
    CHECK_INT(hsplit_segment_count(INT_MAX, 1), INT_MAX);
    CHECK_INT(hsplit_segment_count(INT_MAX, 2), 1073741824);
    hsplit_hierarchy h;
    memset(&h, 0, sizeof h);
    /* the probe: 1073741825 bytes, one segment of 2^31 - 1 bytes */
    h.config.segment_bytes = 2147483647;
    int seg = hsplit_segment_elements(&h, 1073741825, MPI_UNSIGNED_CHAR);
    CHECK_INT(seg, 1073741825);
    CHECK_INT(hsplit_segment_count(1073741825, seg), 1);
    /* default segments up to the largest int message */
    h.config.segment_bytes = 0;
    const int counts[] = {2013265920, 2013265921, 2147483000, INT_MAX};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        int c = counts[i], s = hsplit_segment_elements(&h, c, MPI_BYTE);
        int n = hsplit_segment_count(c, s);
        CHECK(s == 128 * MIB && n == 15 + (c > 15 * 128 * MIB),
              "%d bytes: %d segments of %d", c, n, s);
    }
}

/* Temporary buffers: count x extent in 64 bits, checked; negative extents. */
static void check_temp_buffers(void)
{
    void *base, *p;
    MPI_Datatype huge, neg;
    MPI_Type_create_resized(MPI_BYTE, 0, (MPI_Aint)1 << 62, &huge);
    MPI_Type_commit(&huge);
    p = hsplit_temp_buffer(5, huge, &base); /* 2^64 bytes and more */
    CHECK(p == NULL && base == NULL, "5 elements of extent 2^62: a buffer");
    p = hsplit_temp_buffer((int64_t)INT_MAX * INT_MAX, MPI_INT, &base);
    CHECK(p == NULL && base == NULL, "2^62 ints: a buffer");
    p = hsplit_temp_buffer(-1, MPI_INT, &base);
    CHECK(p == NULL && base == NULL, "-1 ints: a buffer");
    p = hsplit_temp_buffer(1, huge, &base); /* one byte: the true extent */
    CHECK(p != NULL && p == base, "1 element of extent 2^62: no buffer");
    free(base);
    /* extent -8, 4 bytes each: elements at p, p - 8, p - 16 */
    MPI_Type_create_resized(MPI_INT, 0, -8, &neg);
    MPI_Type_commit(&neg);
    p = hsplit_temp_buffer(3, neg, &base);
    CHECK(p != NULL && (char *)p - 16 == (char *)base, "negative extent: element 2 at %td",
          p != NULL ? (char *)p - 16 - (char *)base : 0);
    if (p != NULL)
        for (int i = 0; i < 3; i++) memset((char *)p - 8 * i, i, sizeof(int)); /* valgrind */
    free(base);
    MPI_Type_free(&neg);
    MPI_Type_free(&huge);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_rule();
    check_elements();
    check_counts();
    check_temp_buffers();
    return test_finish();
}
