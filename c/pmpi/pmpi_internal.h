/* SPDX-License-Identifier: BSD-3-Clause */
/* Interfaces between the files of libhsplit_pmpi, the library that gives
   unmodified MPI programs hsplit's collectives and split types: it defines
   MPI_Bcast, ..., MPI_Comm_split_type (and, with Open MPI, the Fortran entry
   points that bypass them) and routes them to the HSPLIT_ functions. The
   hsplit core inside it is compiled with every intercepted MPI_ name renamed
   to its PMPI_ name (c/CMakeLists.txt), so that the core's own MPI calls go
   to the MPI library, never back here. Not installed. */
#ifndef HSPLIT_PMPI_INTERNAL_H
#define HSPLIT_PMPI_INTERNAL_H

#include <stdint.h>
#include <mpi.h>
#include "hsplit.h"

/* The MPI entry points the library defines leave it, and so does the
   public HSPLIT_ API of its copy of the core (HSPLIT_API): a program that
   also links libhsplit.so then runs the preloaded copy of every HSPLIT_
   function, one copy with one state. The core's internals are hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define HSPLIT_PMPI_EXPORT __attribute__((visibility("default")))
#else
#define HSPLIT_PMPI_EXPORT
#endif

/* The rows of the report: the collectives hsplit implements, in the order of
   the core's HSPLIT_COLL_* kinds, then the split type. */
enum {
    HSPLIT_PMPI_BCAST, HSPLIT_PMPI_REDUCE, HSPLIT_PMPI_ALLREDUCE, HSPLIT_PMPI_GATHER,
    HSPLIT_PMPI_SCATTER, HSPLIT_PMPI_ALLGATHER, HSPLIT_PMPI_BARRIER, HSPLIT_PMPI_GATHERV,
    HSPLIT_PMPI_SCATTERV, HSPLIT_PMPI_ALLGATHERV, HSPLIT_PMPI_ALLTOALL, HSPLIT_PMPI_ALLTOALLV,
    HSPLIT_PMPI_REDUCE_SCATTER_BLOCK, HSPLIT_PMPI_REDUCE_SCATTER, HSPLIT_PMPI_SCAN,
    HSPLIT_PMPI_EXSCAN, HSPLIT_PMPI_SPLIT_TYPE, HSPLIT_PMPI_NROWS
};

/* What HSPLIT_PMPI and HSPLIT_PMPI_REPORT say, read once per process. */
typedef struct {
    int enabled;   /* HSPLIT_PMPI: 1 on (default), 0 off                   */
    int report;    /* HSPLIT_PMPI_REPORT: 1 print the table at finalize      */
    int bad;       /* one of them is malformed: intercepted calls fail with
                      MPI_ERR_ARG (said once on stderr)                      */
} hsplit_pmpi_settings;

/* The settings (the first call reads the environment; thread-safe). */
const hsplit_pmpi_settings *hsplit_pmpi_get_settings(void);

/* Parse the two variables' values (NULL: unset) into *s; pure, for the
   unit test. Returns 0, or -1 when one is malformed (s->bad set). */
int hsplit_pmpi_parse_settings(const char *pmpi, const char *report, hsplit_pmpi_settings *s);

/* One intercepted call's part in the report: hsplit_pmpi_begin before the
   call (comm may be MPI_COMM_NULL or invalid), hsplit_pmpi_end after it,
   with the bytes this process gives to the call and whether the hierarchy
   (or hsplit's split) served it. Only when the report is on. */
typedef struct {
    double start;
    unsigned long hierarchy_before;
} hsplit_pmpi_probe;

void hsplit_pmpi_begin(MPI_Comm comm, hsplit_pmpi_probe *p);
void hsplit_pmpi_end(int row, MPI_Comm comm, const hsplit_pmpi_probe *p, uint64_t bytes);
/* The split type's row: hsplit's split served it or the MPI did. */
void hsplit_pmpi_count_split(const hsplit_pmpi_probe *p, int by_hsplit);

/* Bytes of count elements of datatype (0 when MPI cannot say). */
uint64_t hsplit_pmpi_bytes(int64_t count, MPI_Datatype datatype);

#endif
