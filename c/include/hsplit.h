/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hsplit: hierarchical communicators along the hardware topology.
 *
 * The one public header of the C library. Every function returns an MPI error
 * code and, like an MPI function, invokes the error handler of the communicator
 * it acts on (MPI_COMM_WORLD's for MPI_COMM_NULL) before returning an error.
 */
#ifndef HSPLIT_H
#define HSPLIT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HSPLIT_VERSION_MAJOR, _MINOR, _PATCH and HSPLIT_VERSION_STRING: the version
   of these headers (HSPLIT_Get_version gives the library's). */
#include "hsplit_version.h"

/* The library's public functions; only they are exported from libhsplit. */
#if defined(HSPLIT_BUILDING_LIBRARY) && (defined(__GNUC__) || defined(__clang__))
#define HSPLIT_API __attribute__((visibility("default")))
#else
#define HSPLIT_API
#endif

/* Split types. The values lie far above the MPI_COMM_TYPE_* and OMPI_COMM_TYPE_*
   values of Open MPI and MPICH, so they never collide with the MPI in use. */
#define HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY 0x48530001 /* next strictly smaller level */
#define HSPLIT_COMM_TYPE_HW_UNGUIDED       0x48530002 /* same, and reports the level
                                                          in info key
                                                          "mpi_hw_resource_type"    */
#define HSPLIT_COMM_TYPE_HW_GUIDED         0x48530003 /* the level named by info key
                                                          "mpi_hw_resource_type"    */

/* Size of a level-name buffer, terminating NUL included (like MPI_MAX_OBJECT_NAME). */
#define HSPLIT_MAX_HLEVEL_NAME 32

/* The info key read by HW_GUIDED and written by HW_UNGUIDED (MPI-4.0 name). */
#define HSPLIT_INFO_KEY_HW_RESOURCE_TYPE "mpi_hw_resource_type"

/* Library-specific errors. Each has its own MPI error class, created on first
   use with MPI_Add_error_class; HSPLIT_Error_class() gives its value so that a
   program can compare it with MPI_Error_class() of a returned code. */
enum {
    HSPLIT_ERR_TOPOLOGY = 1, /* HSPLIT_TOPOLOGY is not a readable XML file nor a
                                valid synthetic description                    */
    HSPLIT_ERR_NODES,        /* HSPLIT_NODES is malformed                        */
    HSPLIT_ERR_BIND,         /* HSPLIT_BIND is malformed or names no object      */
    HSPLIT_ERR_HWLOC,        /* hwloc could not load the machine or the binding  */
    HSPLIT_ERR_NOT_HLEVEL,   /* the communicator was not made by an hsplit split */
    HSPLIT_ERR_RANK_REPEATED,/* a rank is listed twice                           */
    HSPLIT_ERR_GUIDED_INFO,  /* HW_GUIDED with different values of info key
                                mpi_hw_resource_type on different processes */
    HSPLIT_ERR_NETWORK,      /* HSPLIT_NETWORK (topology.conf) or
                                SLURM_TOPOLOGY_ADDR is malformed, or the
                                processes do not describe the network alike   */
    HSPLIT_ERR_LAST_KIND = HSPLIT_ERR_NETWORK
};

/* Split comm along the hardware hierarchy (split_type one of the three above;
   any other split type is passed to MPI_Comm_split_type unchanged). Collective;
   as in MPI, a process may pass MPI_UNDEFINED and gets MPI_COMM_NULL. */
HSPLIT_API
int HSPLIT_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                           MPI_Comm *newcomm);

/* MPI_Comm_get_info, plus "mpi_hw_resource_type" = the level's name on a
   communicator made by an hsplit split (the MPI in use may not keep that key
   in MPI_Comm_get_info's answer). Free *info_used with MPI_Info_free. Local. */
HSPLIT_API
int HSPLIT_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);

/* The collectives' settings of comm from the next collective on: each key
   of info named like an HSPLIT_COLL* variable (user guide, section 8)
   overrides that variable, and the key of comm's own info (MPI_Comm_get_info)
   where the MPI keeps one, for comm and for its duplicates; other keys are
   ignored. MPI_INFO_NULL changes nothing. Collective; MPI_ERR_ARG on every
   process for an unknown HSPLIT_COLL* key, a malformed value, or settings
   that differ between processes. */
HSPLIT_API
int HSPLIT_Comm_set_coll_info(MPI_Comm comm, MPI_Info info);

/* Where a setting's value comes from (HSPLIT_Coll_setting_get), lowest
   precedence first. */
enum {
    HSPLIT_SOURCE_DEFAULT = 0,     /* given nowhere: its default               */
    HSPLIT_SOURCE_ENVIRONMENT,     /* the environment variable of its name     */
    HSPLIT_SOURCE_COMM_INFO,       /* a key of the communicator's own info
                                      (MPI_Comm_dup_with_info, ...), where the
                                      MPI keeps it                             */
    HSPLIT_SOURCE_SET_COLL_INFO    /* HSPLIT_Comm_set_coll_info                */
};

/* The number of the collectives' settings (HSPLIT_COLL*). Local. */
HSPLIT_API
int HSPLIT_Coll_setting_count(int *count);

/* Setting index (0 <= index < count), as declared: its name (the variable and
   the info key), its default, the values it takes, and what it does. Each
   string is returned as MPI_Info_get_string returns a value: *len gives the
   size of the buffer and gets the size the whole string needs, terminating
   NUL included; a longer string is cut to *len - 1 characters and a NUL;
   *len 0 writes nothing; a NULL len skips that string. Local. */
HSPLIT_API
int HSPLIT_Coll_setting_describe(int index, char *name, int *name_len, char *default_value,
                                 int *default_len, char *allowed, int *allowed_len,
                                 char *description, int *description_len);

/* The value setting index has for comm's collectives (made or to come): its
   HSPLIT_Comm_set_coll_info hint, else the key of comm's own info, else the
   variable, else the default (read at comm's first collective and kept;
   before it, what it would read now). MPI_COMM_NULL: the environment only.
   value as in HSPLIT_Coll_setting_describe; an empty value means the
   default. *source gets HSPLIT_SOURCE_*, *valid 0 when the value is
   malformed (the collectives then return MPI_ERR_ARG), else 1; either may be
   NULL. Local. */
HSPLIT_API
int HSPLIT_Coll_setting_get(MPI_Comm comm, int index, char *value, int *value_len,
                            int *source, int *valid);

/* PHYSICAL_TOPOLOGY split ordered by rank in oldcomm, plus the communicator of
   the rank-0 processes of all new communicators (MPI_COMM_NULL elsewhere). */
HSPLIT_API
int HSPLIT_Comm_hsplit_with_roots(MPI_Comm oldcomm, MPI_Info info,
                                  MPI_Comm *newcomm, MPI_Comm *rootscomm);

/* Level of a communicator made by an hsplit split: how many communicators its
   parent was split into, its index among them, and the level name (type must
   hold HSPLIT_MAX_HLEVEL_NAME characters; resultlen gets strlen). Local. */
HSPLIT_API
int HSPLIT_Comm_get_hlevel_info(MPI_Comm comm, int *num_comms, int *index,
                                char *type, int *resultlen);

/* Name of the deepest level shared by the listed processes of comm: "Unknown"
   if the caller is not listed; on several nodes, "Switch" if they share a
   switch below the top of the network, else "Cluster".
   The first call on a communicator is collective over it (it exchanges the
   locations of its processes once); later calls are local. */
HSPLIT_API
int HSPLIT_Comm_get_min_hlevel(MPI_Comm comm, int nranks, const int ranks[],
                               char *type, int *resultlen);

/* The whole hierarchy at once: repeated HSPLIT_Comm_hsplit_with_roots from comm
   until the bottom or maxlevels. *nlevels gets the number of non-null levels of
   the caller; newcomms[i] / rootscomms[i] for i < maxlevels (rootscomms may be
   NULL when roots communicators are not wanted). Collective. */
HSPLIT_API
int HSPLIT_Comm_hsplit_all(MPI_Comm comm, MPI_Info info, int maxlevels, int *nlevels,
                           MPI_Comm newcomms[], MPI_Comm rootscomms[]);

/* Hierarchical collectives: MPI's signatures and semantics on any
   intracommunicator. The first call on a communicator builds its hierarchy
   (collective, like the call itself) and caches it until MPI_Comm_free; each
   call then runs over the levels, or calls the plain MPI collective where the
   hierarchy cannot help (see the user guide for the selection rules and the
   HSPLIT_COLL_* environment variables). */
HSPLIT_API
int HSPLIT_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Barrier(MPI_Comm comm);
HSPLIT_API
int HSPLIT_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm);
HSPLIT_API
int HSPLIT_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm);
HSPLIT_API
int HSPLIT_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
HSPLIT_API
int HSPLIT_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm);
HSPLIT_API
int HSPLIT_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm);

/* The version of the library linked at run time (the headers' version is
   HSPLIT_VERSION_*). Any argument may be NULL. Local; callable before
   MPI_Init and after MPI_Finalize. */
HSPLIT_API
int HSPLIT_Get_version(int *major, int *minor, int *patch);

/* The MPI error class of a library-specific error (HSPLIT_ERR_*). */
HSPLIT_API
int HSPLIT_Error_class(int hsplit_error, int *errorclass);

#ifdef __cplusplus
}
#endif

#endif /* HSPLIT_H */
