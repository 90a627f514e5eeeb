/* SPDX-License-Identifier: BSD-3-Clause */
/* C side of the hsplit_f08 splits and queries: Fortran handles (the MPI_VAL of
   the mpi_f08 types) become C handles through MPI_*_f2c and back through
   MPI_Comm_c2f, never by assuming a C handle is an integer.

   Bad sizes found here (an array shorter than the count it comes with) are
   passed on to the C function as a NULL argument, so that the C function
   reports MPI_ERR_ARG after its collective steps and no process waits for
   one that returned early. */
#include <stdlib.h>
#include <mpi.h>
#include "hsplit.h"
#include "hsplit_f08_glue.h"

int hsplit_f08_c_comm_split_type(MPI_Fint comm, int split_type, int key, MPI_Fint info,
                                 MPI_Fint *newcomm)
{
    MPI_Comm c_newcomm = MPI_COMM_NULL;
    int rc = HSPLIT_Comm_split_type(MPI_Comm_f2c(comm), split_type, key, MPI_Info_f2c(info),
                                    &c_newcomm);
    *newcomm = MPI_Comm_c2f(rc == MPI_SUCCESS ? c_newcomm : MPI_COMM_NULL);
    return rc;
}

int hsplit_f08_c_comm_get_info(MPI_Fint comm, MPI_Fint *info_used)
{
    MPI_Info c_info = MPI_INFO_NULL;
    int rc = HSPLIT_Comm_get_info(MPI_Comm_f2c(comm), &c_info);
    *info_used = MPI_Info_c2f(rc == MPI_SUCCESS ? c_info : MPI_INFO_NULL);
    return rc;
}

int hsplit_f08_c_comm_set_coll_info(MPI_Fint comm, MPI_Fint info)
{
    return HSPLIT_Comm_set_coll_info(MPI_Comm_f2c(comm), MPI_Info_f2c(info));
}

int hsplit_f08_c_coll_setting_get(MPI_Fint comm, int index, char *value, int *value_len,
                                  int *source, int *valid)
{
    return HSPLIT_Coll_setting_get(MPI_Comm_f2c(comm), index, value, value_len, source, valid);
}

int hsplit_f08_c_comm_hsplit_with_roots(MPI_Fint oldcomm, MPI_Fint info, MPI_Fint *newcomm,
                                        MPI_Fint *rootscomm)
{
    MPI_Comm c_newcomm = MPI_COMM_NULL, c_rootscomm = MPI_COMM_NULL;
    int rc = HSPLIT_Comm_hsplit_with_roots(MPI_Comm_f2c(oldcomm), MPI_Info_f2c(info),
                                           &c_newcomm, &c_rootscomm);
    if (rc != MPI_SUCCESS)
        c_newcomm = c_rootscomm = MPI_COMM_NULL;
    *newcomm = MPI_Comm_c2f(c_newcomm);
    *rootscomm = MPI_Comm_c2f(c_rootscomm);
    return rc;
}

int hsplit_f08_c_comm_hsplit_all(MPI_Fint comm, MPI_Fint info, int maxlevels, int *nlevels,
                                 int capacity, MPI_Fint newcomms[], int want_roots,
                                 MPI_Fint rootscomms[])
{
    /* Fortran arrays too short for maxlevels: NULL arrays, MPI_ERR_ARG from C */
    int fits = maxlevels <= capacity;
    size_t n = maxlevels > 0 && fits ? (size_t)maxlevels : 1;
    MPI_Comm *c_newcomms = malloc(n * sizeof(MPI_Comm));
    MPI_Comm *c_rootscomms = want_roots ? malloc(n * sizeof(MPI_Comm)) : NULL;
    MPI_Comm c_comm = MPI_Comm_f2c(comm);
    if (c_newcomms == NULL || (want_roots && c_rootscomms == NULL)) {
        free(c_newcomms);
        free(c_rootscomms);
        return hsplit_f08_raise(c_comm, MPI_ERR_NO_MEM);
    }
    int rc = HSPLIT_Comm_hsplit_all(c_comm, MPI_Info_f2c(info), maxlevels, nlevels,
                                    fits ? c_newcomms : NULL, c_rootscomms);
    for (int i = 0; rc == MPI_SUCCESS && i < maxlevels; i++) {
        newcomms[i] = MPI_Comm_c2f(c_newcomms[i]);
        if (want_roots)
            rootscomms[i] = MPI_Comm_c2f(c_rootscomms[i]);
    }
    free(c_newcomms);
    free(c_rootscomms);
    return rc;
}

int hsplit_f08_c_comm_get_hlevel_info(MPI_Fint comm, int *num_comms, int *index, char *name,
                                      int *resultlen)
{
    return HSPLIT_Comm_get_hlevel_info(MPI_Comm_f2c(comm), num_comms, index, name, resultlen);
}

int hsplit_f08_c_comm_get_min_hlevel(MPI_Fint comm, int nranks, int capacity,
                                     const MPI_Fint ranks[], char *name, int *resultlen)
{
    /* more ranks asked for than the array holds: no name buffer, MPI_ERR_ARG */
    return HSPLIT_Comm_get_min_hlevel(MPI_Comm_f2c(comm), nranks, ranks,
                                      nranks <= capacity ? name : NULL, resultlen);
}

int hsplit_f08_c_error_class(int hsplit_error, int *errorclass)
{
    return HSPLIT_Error_class(hsplit_error, errorclass);
}

int hsplit_f08_raise(MPI_Comm comm, int code)
{
    MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
    return code;
}
