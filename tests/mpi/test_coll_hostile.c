/* SPDX-License-Identifier: BSD-3-Clause */
/* Hostile arguments to the hierarchical collectives: each mode is a probe
   that once went wrong (a crash, an abort through MPI_COMM_SELF, a wrong
   error class, or MPI_SUCCESS with a wrong result), with its exact
   expectation. The counting error handler is set on the communicators used,
   not on MPI_COMM_SELF: an error raised there (fatal) ends the test.

   Usage: test_coll_hostile MODE
     zero     2^30 + 1 elements of size 0 (MPI_Type_contiguous(0, MPI_INT)):
              every collective answers as MPI's own does (MPI_SUCCESS, or
              MPI_ERR_OP for MPI_SUM on that derived type), with MPI_IN_PLACE
              too, and quickly; the hierarchy's segment count overflowed an
              int there and the allreduce returned MPI_ERR_NO_MEM.
     count    negative counts, every process alike: MPI_ERR_COUNT on the
              communicator's handler, once, for each count MPI reads (Reduce
              and Allreduce aborted through MPI_COMM_SELF, Gather and
              Allgather said MPI_ERR_TYPE, Scatter MPI_ERR_NO_MEM); negative
              counts that MPI ignores (another process's, the root's send
              count in place) change nothing: results as MPI's own.
     inplace  MPI_IN_PLACE where MPI does not allow it (Scatter's recvbuf
              on a process other than the root crashed the hierarchy):
              passed for both buffers (a call written alike for every
              process), every process fails at once with MPI_ERR_ARG
              (MPI_ERR_BUFFER for Allreduce, as MPI says); passed only for a
              receive buffer (Scatter on one process other than the root,
              Gather and Reduce at the root, Allreduce and Allgather on one
              process or all), that process fails the same way and the
              others complete with MPI's own results.
     large    1073741825 bytes (1 GiB + 1) with HSPLIT_COLL_SEGMENT_SIZE=
              2147483647: Reduce (MPI_BOR, in place at the root) and Bcast
              exact; the segment count overflowed, the reduce returned the
              root's own input and the broadcast MPI_ERR_NO_MEM. 1 GiB per
              process, and 1 GiB more that Open MPI's in-place reduce takes
              at the root: about 4 GiB on three processes.
   Every mode ends with the collectives working on the communicator. */
#include <limits.h>
#include <stdint.h>
#include "test_util.h"
#include "test_errhandler.h"

enum { N = 5, MAX_PROCS = 16 };

/* The call succeeded and raised nothing. */
#define CHECK_OK(call)                                                           \
    do {                                                                         \
        int before_ = handler_calls;                                             \
        int rc_ = (call);                                                        \
        CHECK(rc_ == MPI_SUCCESS, "%s: class %d", #call, error_class(rc_));      \
        CHECK(handler_calls == before_, "%s: handler called %d times", #call,    \
              handler_calls - before_);                                          \
    } while (0)

/* hsplit's call answers as MPI's own on the same arguments, with class cls,
   and raises once when it fails. */
#define CHECK_AS_MPI(hcall, mcall, cls)                                          \
    do {                                                                         \
        int before_ = handler_calls;                                             \
        int h_ = (hcall);                                                        \
        int raised_ = handler_calls - before_;                                   \
        int m_ = (mcall);                                                        \
        CHECK(error_class(h_) == error_class(m_), "%s: class %d, MPI's %d",      \
              #hcall, error_class(h_), error_class(m_));                         \
        CHECK(error_class(h_) == (cls), "%s: class %d, expected %d", #hcall,    \
              error_class(h_), (cls));                                           \
        CHECK(raised_ == (h_ != MPI_SUCCESS), "%s: handler called %d times",     \
              #hcall, raised_);                                                  \
    } while (0)

/* The call fails with cls (raised once) on this process when bad, else
   succeeds and raises nothing. */
#define CHECK_ERROR_IF(bad, call, cls)                                           \
    do {                                                                         \
        if (bad) CHECK_ERROR(call, cls);                                         \
        else CHECK_OK(call);                                                     \
    } while (0)

static int input(int rank, int i)
{
    return 1000 * rank + i + 1;
}

static void fill_input(int *buf, int rank, int n)
{
    for (int i = 0; i < n; i++) buf[i] = input(rank, i);
}

static void fill(int *buf, int value, int n)
{
    for (int i = 0; i < n; i++) buf[i] = value;
}

static int same_ints(const int *a, const int *b, int n)
{
    return memcmp(a, b, sizeof(int) * (size_t)n) == 0;
}

/* The collectives give exact results on comm (a failed probe must not leave
   the hierarchy or auto mode's state out of step between processes). */
static void check_working(MPI_Comm comm, const char *what)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int in[N], out[N * MAX_PROCS], ref[N * MAX_PROCS];
    fill_input(in, rank, N);
    CHECK_OK(HSPLIT_Allreduce(in, out, N, MPI_INT, MPI_SUM, comm));
    MPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, comm);
    CHECK(same_ints(out, ref, N), "%s: allreduce differs from MPI's", what);
    for (int root = 0; root < size; root += size - 1 > 0 ? size - 1 : 1) {
        fill(out, -1, N * size);
        fill(ref, -1, N * size);
        CHECK_OK(HSPLIT_Gather(in, N, MPI_INT, out, N, MPI_INT, root, comm));
        MPI_Gather(in, N, MPI_INT, ref, N, MPI_INT, root, comm);
        CHECK(same_ints(out, ref, N * size), "%s: gather to %d differs from MPI's", what, root);
        fill(out, -1, N);
        CHECK_OK(HSPLIT_Scatter(ref, N, MPI_INT, out, N, MPI_INT, root, comm));
        CHECK(same_ints(out, in, N), "%s: scatter from %d differs", what, root);
        int value = rank == root ? 42 + root : -1;
        CHECK_OK(HSPLIT_Bcast(&value, 1, MPI_INT, root, comm));
        CHECK(value == 42 + root, "%s: bcast from %d got %d", what, root, value);
        if (size == 1) break;
    }
    CHECK_OK(HSPLIT_Barrier(comm));
}

/* ------------------------------------------------------------------ zero */

static void nothing_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

static void check_zero(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype z;
    MPI_Type_contiguous(0, MPI_INT, &z);
    MPI_Type_commit(&z);
    MPI_Op op;
    MPI_Op_create(nothing_op, 1, &op);
    const int n = (1 << 30) + 1;
    /* not one byte is read or written: a few ints stand for the buffers */
    int in[4] = {0}, out[4] = {0};
    /* MPI's own answer is MPI_SUCCESS for every call below (Open MPI 4.1.4
       and MPICH 4.0.2, measured), but Open MPI takes seconds to minutes
       over several of them (it walks the empty elements one by one), so
       that it is called only where it fails at once, on its checks */
    int roots[2] = {0, size - 1};
    for (int r = 0; r < (size > 1 ? 2 : 1); r++) {
        int root = roots[r], me = rank == root;
        CHECK_OK(HSPLIT_Bcast(in, n, z, root, comm));
        CHECK_OK(HSPLIT_Reduce(in, out, n, z, op, root, comm));
        CHECK_OK(HSPLIT_Reduce(me ? MPI_IN_PLACE : in, out, n, z, op, root, comm));
        CHECK_OK(HSPLIT_Gather(in, n, z, out, n, z, root, comm));
        CHECK_OK(HSPLIT_Gather(me ? MPI_IN_PLACE : in, n, z, out, n, z, root, comm));
        CHECK_OK(HSPLIT_Scatter(in, n, z, out, n, z, root, comm));
        CHECK_OK(HSPLIT_Scatter(in, n, z, me ? MPI_IN_PLACE : out, n, z, root, comm));
        /* the same empty signature, spelt as 0 ints on the other processes */
        CHECK_OK(HSPLIT_Bcast(in, me ? n : 0, me ? z : MPI_INT, root, comm));
        CHECK_OK(HSPLIT_Gather(in, me ? 0 : n, me ? MPI_INT : z, out, n, z, root, comm));
        /* a predefined operation on a derived datatype: MPI_ERR_OP */
        CHECK_AS_MPI(HSPLIT_Reduce(in, out, n, z, MPI_SUM, root, comm),
                     MPI_Reduce(in, out, n, z, MPI_SUM, root, comm), MPI_ERR_OP);
    }
    CHECK_OK(HSPLIT_Allgather(in, n, z, out, n, z, comm));
    CHECK_OK(HSPLIT_Allgather(MPI_IN_PLACE, n, z, out, n, z, comm));
    CHECK_OK(HSPLIT_Allreduce(in, out, n, z, op, comm));
    CHECK_OK(HSPLIT_Allreduce(MPI_IN_PLACE, out, n, z, op, comm));
    CHECK_AS_MPI(HSPLIT_Allreduce(in, out, n, z, MPI_SUM, comm),
                 MPI_Allreduce(in, out, n, z, MPI_SUM, comm), MPI_ERR_OP);
    CHECK(in[0] == 0 && out[0] == 0, "a buffer of no bytes was written");
    MPI_Op_free(&op);
    MPI_Type_free(&z);
}

/* ----------------------------------------------------------------- count */

static void check_count(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int in[N], out[N * MAX_PROCS], ref[N * MAX_PROCS], all[N * MAX_PROCS];
    fill_input(in, rank, N);
    for (int p = 0; p < size; p++) fill_input(all + p * N, p, N);
    const int bad[] = {-1, INT_MIN};
    for (int b = 0; b < 2; b++) {
        int c = bad[b];
        CHECK_ERROR(HSPLIT_Allreduce(in, out, c, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
        CHECK_ERROR(HSPLIT_Allreduce(MPI_IN_PLACE, out, c, MPI_INT, MPI_SUM, comm),
                    MPI_ERR_COUNT);
        CHECK_ERROR(HSPLIT_Allgather(in, c, MPI_INT, out, N, MPI_INT, comm), MPI_ERR_COUNT);
        CHECK_ERROR(HSPLIT_Allgather(in, N, MPI_INT, out, c, MPI_INT, comm), MPI_ERR_COUNT);
        CHECK_ERROR(HSPLIT_Allgather(MPI_IN_PLACE, N, MPI_INT, out, c, MPI_INT, comm),
                    MPI_ERR_COUNT);
        for (int root = 0; root < size; root++) {
            int me = rank == root;
            CHECK_ERROR(HSPLIT_Bcast(out, c, MPI_INT, root, comm), MPI_ERR_COUNT);
            CHECK_ERROR(HSPLIT_Reduce(in, out, c, MPI_INT, MPI_SUM, root, comm), MPI_ERR_COUNT);
            CHECK_ERROR(HSPLIT_Reduce(me ? MPI_IN_PLACE : in, out, c, MPI_INT, MPI_MAX, root,
                                      comm), MPI_ERR_COUNT);
            /* the send count, read everywhere */
            CHECK_ERROR(HSPLIT_Gather(in, c, MPI_INT, out, N, MPI_INT, root, comm),
                        MPI_ERR_COUNT);
            /* the root's receive count (the others' send counts too: every
               process fails, none waits) */
            CHECK_ERROR(HSPLIT_Gather(in, me ? N : c, MPI_INT, out, c, MPI_INT, root, comm),
                        MPI_ERR_COUNT);
            CHECK_ERROR(HSPLIT_Gather(me ? MPI_IN_PLACE : in, c, MPI_INT, out, c, MPI_INT, root,
                                      comm), MPI_ERR_COUNT);
            /* the root's send count; the receive counts */
            CHECK_ERROR(HSPLIT_Scatter(all, c, MPI_INT, out, me ? N : c, MPI_INT, root, comm),
                        MPI_ERR_COUNT);
            CHECK_ERROR(HSPLIT_Scatter(all, N, MPI_INT, out, c, MPI_INT, root, comm),
                        MPI_ERR_COUNT);
        }
    }
    /* counts MPI ignores, negative (with MPI_DATATYPE_NULL): MPI's results */
    for (int root = 0; root < size; root++) {
        int me = rank == root;
        fill(out, -1, N * size);
        fill(ref, -1, N * size);
        CHECK_OK(HSPLIT_Gather(in, N, MPI_INT, out, me ? N : -1, me ? MPI_INT : MPI_DATATYPE_NULL,
                               root, comm));
        MPI_Gather(in, N, MPI_INT, ref, N, MPI_INT, root, comm);
        CHECK(same_ints(out, ref, N * size) && (!me || same_ints(out, all, N * size)),
              "gather to %d, negative recvcount elsewhere: differs from MPI's", root);
        fill(out, -1, N * size);
        memcpy(out + root * N, in, sizeof in); /* in place: the root's block */
        CHECK_OK(HSPLIT_Gather(me ? MPI_IN_PLACE : in, me ? -1 : N,
                               me ? MPI_DATATYPE_NULL : MPI_INT, out, N, MPI_INT, root, comm));
        CHECK(!me || same_ints(out, all, N * size),
              "gather in place to %d, negative sendcount there: wrong blocks", root);
        fill(out, -1, N);
        CHECK_OK(HSPLIT_Scatter(all, me ? N : -1, me ? MPI_INT : MPI_DATATYPE_NULL, out, N,
                                MPI_INT, root, comm));
        fill(ref, -1, N);
        MPI_Scatter(all, N, MPI_INT, ref, N, MPI_INT, root, comm);
        CHECK(same_ints(out, ref, N) && same_ints(out, in, N),
              "scatter from %d, negative sendcount elsewhere: differs from MPI's", root);
        fill(out, -1, N);
        CHECK_OK(HSPLIT_Scatter(all, N, MPI_INT, me ? MPI_IN_PLACE : out, me ? -1 : N,
                                me ? MPI_DATATYPE_NULL : MPI_INT, root, comm));
        CHECK(me || same_ints(out, in, N), "scatter in place from %d: wrong block", root);
    }
    fill(out, -1, N * size);
    memcpy(out + rank * N, in, sizeof in);
    CHECK_OK(HSPLIT_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, out, N, MPI_INT, comm));
    CHECK(same_ints(out, all, N * size), "allgather in place, negative sendcount: wrong");
}

/* --------------------------------------------------------------- inplace */

/* MPI_IN_PLACE for both buffers on every process: each fails at once. */
static void check_inplace_both(MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    void *ip = MPI_IN_PLACE;
    for (int root = 0; root < size; root++) {
        CHECK_ERROR(HSPLIT_Bcast(ip, N, MPI_INT, root, comm), MPI_ERR_ARG);
        CHECK_ERROR(HSPLIT_Reduce(ip, ip, N, MPI_INT, MPI_SUM, root, comm), MPI_ERR_ARG);
        CHECK_ERROR(HSPLIT_Gather(ip, N, MPI_INT, ip, N, MPI_INT, root, comm), MPI_ERR_ARG);
        CHECK_ERROR(HSPLIT_Scatter(ip, N, MPI_INT, ip, N, MPI_INT, root, comm), MPI_ERR_ARG);
    }
    CHECK_ERROR(HSPLIT_Allreduce(ip, ip, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_ERROR(HSPLIT_Allgather(ip, N, MPI_INT, ip, N, MPI_INT, comm), MPI_ERR_ARG);
}

/* MPI_IN_PLACE as a receive buffer only: that process fails after taking its
   part, the others get MPI's results. */
static void check_inplace_receive(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int in[N], out[N * MAX_PROCS], ref[N * MAX_PROCS], all[N * MAX_PROCS];
    fill_input(in, rank, N);
    for (int p = 0; p < size; p++) fill_input(all + p * N, p, N);
    for (int root = 0; root < size; root++) {
        int me = rank == root;
        /* Scatter: one process other than the root at a time (a leader of
           others in the tree or not), then all of them */
        for (int m = 0; m <= size; m++) {
            if (m == root) continue;
            int bad = m == size ? !me : rank == m;
            fill(out, -1, N);
            CHECK_ERROR_IF(bad, HSPLIT_Scatter(all, N, MPI_INT, bad ? MPI_IN_PLACE : out, N,
                                               MPI_INT, root, comm), MPI_ERR_ARG);
            fill(ref, -1, N);
            MPI_Scatter(all, N, MPI_INT, ref, N, MPI_INT, root, comm);
            CHECK(bad || (same_ints(out, ref, N) && same_ints(out, in, N)),
                  "scatter from %d, in place at %d: block differs from MPI's", root, m);
        }
        /* Gather and Reduce: the root */
        fill(out, -1, N * size);
        CHECK_ERROR_IF(me, HSPLIT_Gather(in, N, MPI_INT, me ? MPI_IN_PLACE : out, N, MPI_INT,
                                         root, comm), MPI_ERR_ARG);
        CHECK(out[0] == -1, "gather wrote where no process receives");
        CHECK_ERROR_IF(me, HSPLIT_Reduce(in, me ? MPI_IN_PLACE : out, N, MPI_INT, MPI_SUM, root,
                                         comm), MPI_ERR_ARG);
        CHECK_ERROR_IF(me, HSPLIT_Reduce(in, MPI_IN_PLACE, N, MPI_INT, MPI_SUM, root, comm),
                       MPI_ERR_ARG);
    }
    /* Allreduce and Allgather: one process at a time, then all */
    for (int m = 0; m <= size; m++) {
        int bad = m == size || rank == m;
        fill(out, -1, N * size);
        CHECK_ERROR_IF(bad, HSPLIT_Allreduce(in, bad ? MPI_IN_PLACE : out, N, MPI_INT, MPI_SUM,
                                             comm), MPI_ERR_BUFFER);
        MPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, comm);
        CHECK(bad || same_ints(out, ref, N), "allreduce, in place at %d: differs from MPI's", m);
        fill(out, -1, N * size);
        CHECK_ERROR_IF(bad, HSPLIT_Allgather(in, N, MPI_INT, bad ? MPI_IN_PLACE : out, N,
                                             MPI_INT, comm), MPI_ERR_ARG);
        MPI_Allgather(in, N, MPI_INT, ref, N, MPI_INT, comm);
        CHECK(bad || (same_ints(out, ref, N * size) && same_ints(out, all, N * size)),
              "allgather, in place at %d: differs from MPI's", m);
    }
}

/* ----------------------------------------------------------------- large */

/* Byte i of process p's input: its own bit, and the top bit at every 251st
   byte from p on (so that a missing contribution shows everywhere). */
static unsigned char large_input(int p, size_t i)
{
    return (unsigned char)((1u << (p % 7)) | (i % 251 == (size_t)p ? 0x80u : 0u));
}

static unsigned char large_or(int size, size_t i)
{
    unsigned bits = 0;
    for (int p = 0; p < size && p < 7; p++) bits |= 1u << p;
    return (unsigned char)(bits | (i % 251 < (size_t)size ? 0x80u : 0u));
}

static size_t first_wrong_or(const unsigned char *buf, size_t n, int size)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != large_or(size, i)) return i;
    return n;
}

static void check_large(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = (1 << 30) + 1;
    unsigned char *buf = malloc((size_t)n);
    CHECK(buf != NULL, "no memory for %d bytes", n);
    if (buf == NULL) return;
    /* Reduce in place at the root, which must not keep its own input */
    for (size_t i = 0; i < (size_t)n; i++) buf[i] = large_input(rank, i);
    CHECK_OK(HSPLIT_Reduce(rank == 0 ? MPI_IN_PLACE : buf, rank == 0 ? buf : NULL, n,
                           MPI_UNSIGNED_CHAR, MPI_BOR, 0, comm));
    if (rank == 0) {
        size_t at = first_wrong_or(buf, (size_t)n, size);
        CHECK(at == (size_t)n, "reduce: byte %zu is 0x%02x, expected 0x%02x", at,
              at < (size_t)n ? buf[at] : 0, at < (size_t)n ? large_or(size, at) : 0);
    }
    /* Bcast from the last process */
    for (size_t i = 0; i < (size_t)n; i++)
        buf[i] = rank == size - 1 ? (unsigned char)(i * 7 + 3) : 0;
    CHECK_OK(HSPLIT_Bcast(buf, n, MPI_UNSIGNED_CHAR, size - 1, comm));
    size_t at = 0;
    while (at < (size_t)n && buf[at] == (unsigned char)(at * 7 + 3)) at++;
    CHECK(at == (size_t)n, "bcast: byte %zu is wrong", at);
    /* (an allreduce is these two steps, and Open MPI's own would take the
       memory beyond 4 GiB) */
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Errhandler handler;
    MPI_Comm_create_errhandler(counting_handler, &handler);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAX_PROCS) {
        fprintf(stderr, "test_coll_hostile: at most %d processes\n", MAX_PROCS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argc == 2 ? argv[1] : "";
    /* a duplicate in reversed rank order too: other roots and leaders */
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
    MPI_Comm_set_errhandler(reversed, handler);
    MPI_Comm comms[2] = {MPI_COMM_WORLD, reversed};
    int ncomms = strcmp(mode, "large") == 0 ? 1 : 2;
    for (int c = 0; c < ncomms; c++) {
        MPI_Comm comm = comms[c];
        if (strcmp(mode, "zero") == 0) {
            check_zero(comm);
        } else if (strcmp(mode, "count") == 0) {
            check_count(comm);
        } else if (strcmp(mode, "inplace") == 0) {
            check_inplace_both(comm);
            check_inplace_receive(comm);
        } else if (strcmp(mode, "large") == 0) {
            check_large(comm);
        } else {
            fprintf(stderr, "usage: test_coll_hostile zero | count | inplace | large\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        check_working(comm, c == 0 ? "world" : "reversed");
    }
    MPI_Comm_free(&reversed);
    MPI_Errhandler_free(&handler);
    return test_finish();
}
