/* SPDX-License-Identifier: BSD-3-Clause */
/* An error handler that counts its calls, and the check that a call failed
   with an error class and went through the handler once: shared by the
   error tests. Include after test_util.h, in one file of a program. */
#ifndef HSPLIT_TEST_ERRHANDLER_H
#define HSPLIT_TEST_ERRHANDLER_H

static int handler_calls;

static void counting_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm; (void)code;
    handler_calls++;
}

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

/* The call returned an error of class cls, and the handler ran once. */
#define CHECK_ERROR(call, cls)                                                   \
    do {                                                                         \
        int before_ = handler_calls;                                             \
        int rc_ = (call);                                                        \
        CHECK(rc_ != MPI_SUCCESS, "%s succeeded", #call);                        \
        CHECK(error_class(rc_) == (cls), "%s: class %d, expected %d", #call,      \
              error_class(rc_), (cls));                                          \
        CHECK(handler_calls == before_ + 1, "%s: handler called %d times", #call, \
              handler_calls - before_);                                          \
    } while (0)

#endif
