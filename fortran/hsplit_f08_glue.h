/* SPDX-License-Identifier: BSD-3-Clause */
/* The C side of the hsplit_f08 module: the functions its Fortran interfaces
   (hsplit_f08_c.f90) bind to, and the buffer helpers they share. Internal to
   the Fortran library. */
#ifndef HSPLIT_F08_GLUE_H
#define HSPLIT_F08_GLUE_H

#include <ISO_Fortran_binding.h>
#include <mpi.h>

/* ---- splits and queries (hsplit_f08_glue_comm.c) ---- */
int hsplit_f08_c_comm_get_info(MPI_Fint comm, MPI_Fint *info_used);
int hsplit_f08_c_comm_set_coll_info(MPI_Fint comm, MPI_Fint info);
int hsplit_f08_c_coll_setting_get(MPI_Fint comm, int index, char *value, int *value_len,
                                  int *source, int *valid);
int hsplit_f08_c_comm_split_type(MPI_Fint comm, int split_type, int key, MPI_Fint info,
                                 MPI_Fint *newcomm);
int hsplit_f08_c_comm_hsplit_with_roots(MPI_Fint oldcomm, MPI_Fint info, MPI_Fint *newcomm,
                                        MPI_Fint *rootscomm);
int hsplit_f08_c_comm_hsplit_all(MPI_Fint comm, MPI_Fint info, int maxlevels, int *nlevels,
                                 int capacity, MPI_Fint newcomms[], int want_roots,
                                 MPI_Fint rootscomms[]);
int hsplit_f08_c_comm_get_hlevel_info(MPI_Fint comm, int *num_comms, int *index, char *name,
                                      int *resultlen);
int hsplit_f08_c_comm_get_min_hlevel(MPI_Fint comm, int nranks, int capacity,
                                     const MPI_Fint ranks[], char *name, int *resultlen);
int hsplit_f08_c_error_class(int hsplit_error, int *errorclass);

/* ---- collectives (hsplit_f08_glue_coll.c) ---- */
int hsplit_f08_c_bcast(CFI_cdesc_t *buffer, int count, MPI_Fint datatype, int root,
                       MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_reduce(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                        MPI_Fint datatype, MPI_Fint op, int root, MPI_Fint comm,
                        const void *in_place, const void *bottom);
int hsplit_f08_c_allreduce(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                           MPI_Fint datatype, MPI_Fint op, MPI_Fint comm,
                           const void *in_place, const void *bottom);
int hsplit_f08_c_gather(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                        CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int root,
                        MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_scatter(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                         CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, int root,
                         MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_allgather(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                           CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype,
                           MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_barrier(MPI_Fint comm);
int hsplit_f08_c_gatherv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                         CFI_cdesc_t *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Fint recvtype, int root, MPI_Fint comm, const void *in_place,
                         const void *bottom);
int hsplit_f08_c_scatterv(CFI_cdesc_t *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Fint sendtype, CFI_cdesc_t *recvbuf, int recvcount,
                          MPI_Fint recvtype, int root, MPI_Fint comm, const void *in_place,
                          const void *bottom);
int hsplit_f08_c_allgatherv(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                            CFI_cdesc_t *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Fint recvtype, MPI_Fint comm, const void *in_place,
                            const void *bottom);
int hsplit_f08_c_alltoall(CFI_cdesc_t *sendbuf, int sendcount, MPI_Fint sendtype,
                          CFI_cdesc_t *recvbuf, int recvcount, MPI_Fint recvtype, MPI_Fint comm,
                          const void *in_place, const void *bottom);
int hsplit_f08_c_alltoallv(CFI_cdesc_t *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Fint sendtype, CFI_cdesc_t *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Fint recvtype, MPI_Fint comm,
                           const void *in_place, const void *bottom);
int hsplit_f08_c_reduce_scatter_block(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf,
                                      int recvcount, MPI_Fint datatype, MPI_Fint op,
                                      MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_reduce_scatter(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf,
                                const int recvcounts[], MPI_Fint datatype, MPI_Fint op,
                                MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_scan(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count, MPI_Fint datatype,
                      MPI_Fint op, MPI_Fint comm, const void *in_place, const void *bottom);
int hsplit_f08_c_exscan(CFI_cdesc_t *sendbuf, CFI_cdesc_t *recvbuf, int count,
                        MPI_Fint datatype, MPI_Fint op, MPI_Fint comm, const void *in_place,
                        const void *bottom);

/* ---- Fortran buffers (hsplit_f08_buffer.c) ---- */

/* What a C function gets for one Fortran buffer: MPI_IN_PLACE or MPI_BOTTOM
   when the Fortran program passed those, the array itself when it is
   contiguous, else a contiguous copy of its elements in array element order
   (what the compiler would pass to an assumed-size dummy argument). */
typedef struct {
    void *addr;              /* the address the C function gets            */
    void *copy;              /* the copy of a non-contiguous array, or NULL */
    const CFI_cdesc_t *desc; /* the Fortran array                          */
} hsplit_f08_buffer;

/* Fills buf for desc; in_place and bottom are the addresses of the Fortran
   MPI_IN_PLACE and MPI_BOTTOM. Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int hsplit_f08_buffer_open(hsplit_f08_buffer *buf, const CFI_cdesc_t *desc,
                           const void *in_place, const void *bottom);

/* Copies a copy back into the array when copy_out, and frees it. */
void hsplit_f08_buffer_close(hsplit_f08_buffer *buf, int copy_out);

/* Calls comm's error handler (MPI_COMM_WORLD's for MPI_COMM_NULL), as the C
   library does, and returns code. */
int hsplit_f08_raise(MPI_Comm comm, int code);

#endif
