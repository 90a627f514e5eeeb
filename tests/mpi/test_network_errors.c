/* SPDX-License-Identifier: BSD-3-Clause */
/* A bad network description (HSPLIT_NETWORK or SLURM_TOPOLOGY_ADDR) gives every
   process the class of HSPLIT_ERR_NETWORK from every collective entry point,
   through the error handler, without a hang, and an error string holding
   each fragment given on the command line (the file, the line, what is
   wrong). Usage: test_network_errors FRAGMENT... */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* the collective builds its hierarchy (and meets the error) even on
       fewer than HSPLIT_COLL_MIN_PROCS processes */
    setenv("HSPLIT_COLL", "on", 1);
    int expected_class, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    HSPLIT_Error_class(HSPLIT_ERR_NETWORK, &expected_class);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm out = MPI_COMM_WORLD, roots = MPI_COMM_WORLD;
    int calls[4], cls, len, value = 7;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    calls[0] = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                      MPI_INFO_NULL, &out);
    calls[1] = HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &out, &roots);
    calls[2] = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &rank, type, &len);
    calls[3] = HSPLIT_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        MPI_Error_class(calls[i], &cls);
        CHECK(cls == expected_class, "call %d: class %d, expected %d", i, cls, expected_class);
        char text[MPI_MAX_ERROR_STRING];
        MPI_Error_string(calls[i], text, &len);
        for (int f = 1; f < argc; f++)
            CHECK(strstr(text, argv[f]) != NULL, "call %d: string \"%s\" lacks \"%s\"", i, text,
                  argv[f]);
    }
    CHECK(out == MPI_COMM_WORLD && roots == MPI_COMM_WORLD, "outputs written on error");
    CHECK(argc > 1, "no fragment to look for");
    return test_finish();
}
