/* SPDX-License-Identifier: BSD-3-Clause */
/* The collectives with MPI_BOTTOM as the user buffer and datatypes of
   absolute addresses (MPI_Get_address): a broadcast of two separate
   variables, a gather and an allgather sending from them, a scatter
   receiving into them. Values: process p's int is 100 p + 1, its double
   p / 2. Run on several emulated nodes so that the hierarchical paths (which
   pack and unpack the user data) run. */
#include <stddef.h>
#include "test_util.h"

/* A datatype for one int and one double at absolute addresses. */
static MPI_Datatype absolute_pair(int *i, double *d)
{
    MPI_Aint addr[2];
    int lengths[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, pair;
    MPI_Get_address(i, &addr[0]);
    MPI_Get_address(d, &addr[1]);
    MPI_Type_create_struct(2, lengths, addr, types, &pair);
    MPI_Type_commit(&pair);
    return pair;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int ival;
    double dval;
    MPI_Datatype pair = absolute_pair(&ival, &dval);
    /* the same pair as it lies in a buffer: int at 0, double at 8 */
    struct packed { int i; double d; };
    MPI_Datatype rel, rel_resized;
    {
        int lengths[2] = {1, 1};
        MPI_Aint displs[2] = {offsetof(struct packed, i), offsetof(struct packed, d)};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, lengths, displs, types, &rel);
        MPI_Type_create_resized(rel, 0, sizeof(struct packed), &rel_resized);
        MPI_Type_commit(&rel_resized);
        MPI_Type_free(&rel);
    }
    struct packed *table = malloc(sizeof(struct packed) * (size_t)n);

    for (int root = 0; root < n; root += n - 1) {
        ival = me == root ? 100 * root + 1 : -1;
        dval = me == root ? root / 2.0 : -1.0;
        CHECK_INT(HSPLIT_Bcast(MPI_BOTTOM, 1, pair, root, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK(ival == 100 * root + 1 && dval == root / 2.0, "bcast from root %d: %d %g", root,
              ival, dval);

        ival = 100 * me + 1;
        dval = me / 2.0;
        for (int p = 0; p < n; p++) table[p] = (struct packed){-1, -1.0};
        CHECK_INT(HSPLIT_Gather(MPI_BOTTOM, 1, pair, table, 1, rel_resized, root, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        for (int p = 0; me == root && p < n; p++)
            CHECK(table[p].i == 100 * p + 1 && table[p].d == p / 2.0, "gather block %d", p);

        for (int p = 0; p < n; p++) table[p] = (struct packed){100 * p + 1, p / 2.0};
        ival = -1;
        dval = -1.0;
        CHECK_INT(HSPLIT_Scatter(table, 1, rel_resized, MPI_BOTTOM, 1, pair, root, MPI_COMM_WORLD),
                  MPI_SUCCESS);
        CHECK(ival == 100 * me + 1 && dval == me / 2.0, "scatter from root %d", root);
    }
    ival = 100 * me + 1;
    dval = me / 2.0;
    for (int p = 0; p < n; p++) table[p] = (struct packed){-1, -1.0};
    CHECK_INT(HSPLIT_Allgather(MPI_BOTTOM, 1, pair, table, 1, rel_resized, MPI_COMM_WORLD),
              MPI_SUCCESS);
    for (int p = 0; p < n; p++)
        CHECK(table[p].i == 100 * p + 1 && table[p].d == p / 2.0, "allgather block %d", p);

    free(table);
    MPI_Type_free(&pair);
    MPI_Type_free(&rel_resized);
    return test_finish();
}
