/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Comm_split_type: hsplit's split types, and the MPI's own
   MPI_COMM_TYPE_HW_UNGUIDED and MPI_COMM_TYPE_HW_GUIDED where its mpi.h
   defines them (MPI-4.0: MPICH 4.0; Open MPI 4.1 has neither), go to
   HSPLIT_Comm_split_type (binding-aware, network levels, MPI-4.0's rules);
   every other split type reaches the MPI unchanged (the core, built with
   the PMPI_ names, forwards it). */
#include "pmpi_internal.h"
#include "hsplit_internal.h"

/* The hsplit split type a program's split type stands for, or 0. */
static int hsplit_type_of(int split_type)
{
    if (split_type == HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY ||
        split_type == HSPLIT_COMM_TYPE_HW_UNGUIDED || split_type == HSPLIT_COMM_TYPE_HW_GUIDED)
        return split_type;
#ifdef MPI_COMM_TYPE_HW_UNGUIDED
    if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) return HSPLIT_COMM_TYPE_HW_UNGUIDED;
#endif
#ifdef MPI_COMM_TYPE_HW_GUIDED
    if (split_type == MPI_COMM_TYPE_HW_GUIDED) return HSPLIT_COMM_TYPE_HW_GUIDED;
#endif
    return 0;
}

HSPLIT_PMPI_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                           MPI_Comm *newcomm)
{
    const hsplit_pmpi_settings *s = hsplit_pmpi_get_settings();
    if (!s->enabled) return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (s->bad) return hsplit_raise_code(comm, MPI_ERR_ARG);
    int mapped = hsplit_type_of(split_type);
    /* MPI_UNDEFINED on some processes goes with the others' type, which
       HSPLIT_Comm_split_type agrees on: the same function on every process */
    hsplit_pmpi_probe p;
    if (s->report) hsplit_pmpi_begin(MPI_COMM_NULL, &p);
    int rc = HSPLIT_Comm_split_type(comm, mapped != 0 ? mapped : split_type, key, info, newcomm);
    if (s->report) hsplit_pmpi_count_split(&p, mapped != 0);
    return rc;
}
