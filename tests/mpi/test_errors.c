/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad input gets an MPI error code with a clear string through the error
   handler of the communicator, never a crash or a hang. 4 processes on 2
   emulated nodes of the figure-1 machine (HSPLIT_NODES=2). */
#include "test_util.h"
#include "test_errhandler.h"

static int hsplit_class(int which)
{
    int cls = -2;
    HSPLIT_Error_class(which, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(counting_handler, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);

    MPI_Comm out, roots, comms[4];
    int num, index, len, nlevels;
    char type[HSPLIT_MAX_HLEVEL_NAME];

    /* MPI_COMM_NULL: MPI_ERR_COMM, on MPI_COMM_WORLD's handler */
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_NULL, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                       MPI_INFO_NULL, &out), MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_NULL, MPI_INFO_NULL, &out, &roots),
                MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Comm_hsplit_all(MPI_COMM_NULL, MPI_INFO_NULL, 4, &nlevels, comms, NULL),
                MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Comm_get_hlevel_info(MPI_COMM_NULL, &num, &index, type, &len), MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_NULL, 1, &rank, type, &len), MPI_ERR_COMM);

    /* an intercommunicator between the even and the odd ranks */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 7, &inter);
    MPI_Comm_set_errhandler(inter, handler);
    CHECK_ERROR(HSPLIT_Comm_split_type(inter, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                       MPI_INFO_NULL, &out), MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Comm_hsplit_with_roots(inter, MPI_INFO_NULL, &out, &roots), MPI_ERR_COMM);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(inter, 1, &rank, type, &len), MPI_ERR_COMM);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* get_min_hlevel: bad counts and ranks */
    int bad_high[2] = {0, size}, bad_negative[2] = {0, -1}, repeated[3] = {0, 1, 0};
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, -1, &rank, type, &len), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, bad_high, type, &len), MPI_ERR_RANK);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, bad_negative, type, &len), MPI_ERR_RANK);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 3, repeated, type, &len),
                hsplit_class(HSPLIT_ERR_RANK_REPEATED));
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 2, NULL, type, &len), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &rank, NULL, &len), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &rank, type, NULL), MPI_ERR_ARG);

    /* NULL output pointers, on every process and on one process only: every
       process returns the error, none waits for the others */
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                       MPI_INFO_NULL, NULL), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL,
                                              rank == 1 ? NULL : &out, &roots), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &out,
                                              rank == 2 ? NULL : &roots), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, -1, &nlevels, comms, NULL),
                MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_hsplit_all(MPI_COMM_WORLD, MPI_INFO_NULL, 4, rank == 3 ? NULL : &nlevels,
                                       comms, NULL), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Comm_get_hlevel_info(MPI_COMM_WORLD, NULL, &index, type, &len), MPI_ERR_ARG);
    CHECK_ERROR(HSPLIT_Error_class(HSPLIT_ERR_LAST_KIND + 1, &num), MPI_ERR_ARG);

    /* a communicator not made by a split has no level */
    CHECK_ERROR(HSPLIT_Comm_get_hlevel_info(MPI_COMM_WORLD, &num, &index, type, &len),
                hsplit_class(HSPLIT_ERR_NOT_HLEVEL));
    /* HW_GUIDED without its info key on every process: MPI_COMM_NULL
       everywhere, no error (MPI-4.1 7.4.2); the key on all but one process:
       the values differ, an error on every process */
    MPI_Info info;
    MPI_Info_create(&info);
    if (rank != 0) MPI_Info_set(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, "Core");
    out = MPI_COMM_WORLD;
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0,
                                     MPI_INFO_NULL, &out), MPI_SUCCESS);
    CHECK(out == MPI_COMM_NULL, "HW_GUIDED with MPI_INFO_NULL: not MPI_COMM_NULL");
    CHECK_ERROR(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_HW_GUIDED, 0, info, &out),
                hsplit_class(HSPLIT_ERR_GUIDED_INFO));
    MPI_Info_free(&info);

    /* an unknown split type goes to MPI, which rejects it */
    int before = handler_calls;
    int rc = HSPLIT_Comm_split_type(MPI_COMM_WORLD, 0x7fff0001, 0, MPI_INFO_NULL, &out);
    CHECK(rc != MPI_SUCCESS, "unknown split type accepted");
    CHECK(handler_calls == before + 1, "unknown split type: handler not called");

    /* every library error string is set and says where it comes from */
    for (int k = 1; k <= HSPLIT_ERR_LAST_KIND; k++) {
        int cls = hsplit_class(k);
        char text[MPI_MAX_ERROR_STRING];
        int textlen;
        CHECK(cls > MPI_ERR_LASTCODE, "class %d of error %d is not a new class", cls, k);
        MPI_Error_string(cls, text, &textlen);
        CHECK(strncmp(text, "hsplit: ", 8) == 0, "error %d string \"%s\"", k, text);
    }

    /* after all this, the library still works: one good split */
    CHECK_INT(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &out, &roots), MPI_SUCCESS);
    int expected[2] = {rank - rank % 2, rank - rank % 2 + 1};
    test_check_members(out, expected, 2, "node after errors");
    MPI_Comm_free(&out);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&handler);
    return test_finish();
}
