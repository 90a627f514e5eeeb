/* SPDX-License-Identifier: BSD-3-Clause */
/* A level's own allreduces (coll_level_algo.c), called directly: recursive
   doubling (rd), Rabenseifner's (rab) and the ring, over the first k ranks
   of MPI_COMM_WORLD for every k up to the size (powers of two and not:
   members folded into a neighbour), the level's members in an order that
   is not the rank order (member i is rank (i * 3 + 1) mod k where 3 is
   prime to k, the reverse otherwise), so that "lower member first" means
   the level's order. Counts 0 to 1000, fewer elements than members
   included (empty blocks). Three kinds of element:
   - int with MPI_SUM;
   - a strided vector of 2 ints with a commutative user sum: the gaps
     between and after its ints must stay untouched;
   - a pair (a, b) of unsigned ints, the map x -> a x + b, with composition
     as a non-commutative user operation (rd and rab only: the ring takes
     commutative operations): the result must be the composition in the
     level's order.
   Every result is compared with the one computed here and with MPI's own
   MPI_Allreduce on a communicator ranked in the level's order. */
#include "hsplit_internal.h"
#include "test_util.h"

#define GAP 0x5A
enum { E_INT, E_VECTOR, E_AFFINE };
enum { A_RD, A_RAB, A_RING };
static const char *const algo_names[] = {"rd", "rab", "ring"};
static const int counts[] = {0, 1, 2, 3, 5, 8, 13, 1000};
#define NCOUNTS ((int)(sizeof counts / sizeof counts[0]))

/* the vector: ints 0 and 3 of 4 (extent 16 bytes) */
static void vector_sum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) {
        b[4 * i] += a[4 * i];
        b[4 * i + 3] += a[4 * i + 3];
    }
}

/* (in o inout)(x) = in.a (inout.a x + inout.b) + in.b: in is the lower
   member's, so it applies last */
static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const unsigned *f = in;
    unsigned *g = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = f[2 * i] * g[2 * i], b = f[2 * i] * g[2 * i + 1] + f[2 * i + 1];
        g[2 * i] = a;
        g[2 * i + 1] = b;
    }
}

static int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

/* The base rank of member i of k. */
static int member_rank(int i, int k)
{
    return gcd(3, k) == 1 ? (i * 3 + 1) % k : k - 1 - i;
}

/* Bytes of count elements of kind e. */
static size_t bytes_of(int e, int count)
{
    return (size_t)count * (e == E_VECTOR ? 16 : e == E_AFFINE ? 8 : 4);
}

/* Member i's buffer of count elements (GAP in the vector's gaps). */
static void fill(unsigned char *buf, int e, int count, int i)
{
    memset(buf, GAP, bytes_of(e, count));
    for (int j = 0; j < count; j++) {
        if (e == E_INT) {
            ((int *)(void *)buf)[j] = 1000 * (i + 1) + j;
        } else if (e == E_VECTOR) {
            ((int *)(void *)buf)[4 * j] = i + 7 * j;
            ((int *)(void *)buf)[4 * j + 3] = -3 * i + j;
        } else {
            ((unsigned *)(void *)buf)[2 * j] = 2u * (unsigned)i + 3u + (unsigned)j;
            ((unsigned *)(void *)buf)[2 * j + 1] = 7u * (unsigned)i + (unsigned)j + 1u;
        }
    }
}

/* The reduction over members 0..k-1 in order, from their values alone. */
static void expected(unsigned char *want, int e, int count, int k)
{
    memset(want, GAP, bytes_of(e, count));
    for (int j = 0; j < count; j++) {
        if (e == E_INT) {
            int s = 0;
            for (int i = 0; i < k; i++) s += 1000 * (i + 1) + j;
            ((int *)(void *)want)[j] = s;
        } else if (e == E_VECTOR) {
            int s0 = 0, s3 = 0;
            for (int i = 0; i < k; i++) {
                s0 += i + 7 * j;
                s3 += -3 * i + j;
            }
            ((int *)(void *)want)[4 * j] = s0;
            ((int *)(void *)want)[4 * j + 3] = s3;
        } else {
            /* f_0 o f_1 o ... o f_{k-1}: fold from the last member */
            unsigned a = 1, b = 0;
            for (int i = k - 1; i >= 0; i--) {
                unsigned fa = 2u * (unsigned)i + 3u + (unsigned)j;
                unsigned fb = 7u * (unsigned)i + (unsigned)j + 1u;
                b = fa * b + fb;
                a = fa * a;
            }
            ((unsigned *)(void *)want)[2 * j] = a;
            ((unsigned *)(void *)want)[2 * j + 1] = b;
        }
    }
}

static int run(int algo, MPI_Comm base, const hsplit_view_level *l, void *buf, int count,
               MPI_Datatype type, MPI_Op op, int noncommutative)
{
    if (algo == A_RD) return hsplit_level_allreduce_rd(base, l, buf, count, type, op, noncommutative);
    if (algo == A_RAB)
        return hsplit_level_allreduce_rab(base, l, buf, count, type, op, noncommutative);
    return hsplit_level_allreduce_ring(base, l, buf, count, type, op);
}

static void one_level(int k, const MPI_Datatype *types, const MPI_Op *ops)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm base;
    MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &base);
    if (base == MPI_COMM_NULL) return;
    int *members = malloc(sizeof(int) * (size_t)k), me = -1;
    for (int i = 0; i < k; i++) {
        members[i] = member_rank(i, k);
        if (members[i] == rank) me = i;
    }
    /* MPI's reference: the same members ranked in the level's order */
    MPI_Comm ordered;
    MPI_Comm_split(base, 0, me, &ordered);
    hsplit_view_level l = {base, k, me, 0, members};
    size_t most = bytes_of(E_VECTOR, 1000);
    unsigned char *got = malloc(most), *want = malloc(most), *mpi = malloc(most);
    for (int algo = A_RD; algo <= A_RING; algo++)
        for (int e = E_INT; e <= E_AFFINE; e++) {
            if (algo == A_RING && e == E_AFFINE) continue; /* commutative only */
            for (int c = 0; c < NCOUNTS; c++) {
                int count = counts[c];
                size_t bytes = bytes_of(e, count);
                fill(got, e, count, me);
                fill(mpi, e, count, me);
                expected(want, e, count, k);
                CHECK_INT(run(algo, base, &l, got, count, types[e], ops[e], e == E_AFFINE),
                          MPI_SUCCESS);
                CHECK(memcmp(got, want, bytes) == 0,
                      "%s, %d members, kind %d, %d elements: differs from the computed",
                      algo_names[algo], k, e, count);
                if (count > 0)
                    CHECK_INT(MPI_Allreduce(MPI_IN_PLACE, mpi, count, types[e], ops[e], ordered),
                              MPI_SUCCESS);
                CHECK(memcmp(got, mpi, bytes) == 0,
                      "%s, %d members, kind %d, %d elements: differs from MPI_Allreduce",
                      algo_names[algo], k, e, count);
            }
        }
    free(got);
    free(want);
    free(mpi);
    free(members);
    MPI_Comm_free(&ordered);
    MPI_Comm_free(&base);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype two, vector, pair;
    MPI_Type_vector(2, 1, 3, MPI_INT, &two);
    MPI_Type_create_resized(two, 0, 16, &vector);
    MPI_Type_free(&two);
    MPI_Type_commit(&vector);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op vector_sum, compose;
    MPI_Op_create(vector_sum_fn, 1, &vector_sum);
    MPI_Op_create(compose_fn, 0, &compose);
    MPI_Datatype types[3] = {MPI_INT, vector, pair};
    MPI_Op ops[3] = {MPI_SUM, vector_sum, compose};
    for (int k = 1; k <= size; k++) one_level(k, types, ops);
    MPI_Op_free(&vector_sum);
    MPI_Op_free(&compose);
    MPI_Type_free(&vector);
    MPI_Type_free(&pair);
    return test_finish();
}
