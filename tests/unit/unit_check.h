/* SPDX-License-Identifier: BSD-3-Clause */
/* The checks of the unit tests (no MPI): CHECK counts each condition as
   passed or failed, and says where and why a failed one failed; each test's
   main prints the counts and sets its exit status from them. */
#ifndef HSPLIT_UNIT_CHECK_H
#define HSPLIT_UNIT_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) passed++;                                                     \
        else {                                                                  \
            failed++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
        }                                                                       \
    } while (0)

#endif /* HSPLIT_UNIT_CHECK_H */
