/* SPDX-License-Identifier: BSD-3-Clause */
/* A malformed emulation variable gives every process of the communicator the
   library's error class, through the error handler, and no hang, even when it
   is malformed for some processes only (a HSPLIT_BIND list shorter than the
   node). Usage: test_env_errors TOPOLOGY|NODES|BIND [TEXT]: the expected
   error, and a text that the error string must also hold on every process
   (the offending value, echoed; given where every process's own value is
   wrong). */
#include "test_util.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int expected = -1;
    if (argc > 1 && strcmp(argv[1], "TOPOLOGY") == 0) expected = HSPLIT_ERR_TOPOLOGY;
    if (argc > 1 && strcmp(argv[1], "NODES") == 0) expected = HSPLIT_ERR_NODES;
    if (argc > 1 && strcmp(argv[1], "BIND") == 0) expected = HSPLIT_ERR_BIND;
    if (expected < 0) MPI_Abort(MPI_COMM_WORLD, 2);
    int expected_class, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    HSPLIT_Error_class(expected, &expected_class);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Comm out = MPI_COMM_WORLD, roots = MPI_COMM_WORLD;
    int calls[3], cls, len;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    calls[0] = HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                      MPI_INFO_NULL, &out);
    calls[1] = HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &out, &roots);
    calls[2] = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &rank, type, &len);
    for (int i = 0; i < 3; i++) {
        MPI_Error_class(calls[i], &cls);
        CHECK(cls == expected_class, "call %d: class %d, expected %d", i, cls, expected_class);
        char text[MPI_MAX_ERROR_STRING];
        MPI_Error_string(calls[i], text, &len);
        CHECK(strstr(text, argv[1]) != NULL, "call %d: string \"%s\" does not name HSPLIT_%s",
              i, text, argv[1]);
        if (argc > 2)
            CHECK(strstr(text, argv[2]) != NULL, "call %d: string \"%s\" does not say \"%s\"",
                  i, text, argv[2]);
    }
    CHECK(out == MPI_COMM_WORLD && roots == MPI_COMM_WORLD, "outputs written on error");
    return test_finish();
}
