/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Alltoall and HSPLIT_Alltoallv: node-aware aggregation over the
   two-level view (hsplit_node_groups). Every process hands its whole send
   data, packed, to its node leader (a gather in the node); the leaders
   exchange, for every pair of nodes, one message holding everything the one
   node sends to the other (an alltoallv among the leaders); each leader
   deals out to each process of its node what it receives, in source-rank
   order (a scatter in the node), and the process unpacks it. Between nodes
   there are then (nodes - 1) messages per leader instead of one per pair of
   processes. Plain MPI where an aggregated message would exceed an int of
   bytes (the processes agree), and where auto mode measures it faster. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

/* This process's group rank and group size, and whether it leads. */
static void my_group(const hsplit_hierarchy *h, int *grank, int *gsize)
{
    MPI_Comm_rank(h->rsag_group, grank);
    MPI_Comm_size(h->rsag_group, gsize);
}

/* ------------------------------------------------------------ alltoall */

/* A leader's part for blocks of B bytes: gathered holds gsize rows of n
   blocks (one row per member, blocks in destination-rank order); spare is as
   large. Leaves in spare gsize rows of n blocks, one per member, blocks in
   source-rank order. */
static int leader_alltoall(const hsplit_hierarchy *h, char *gathered, char *spare, int gsize,
                           size_t B)
{
    int n = h->size, groups = h->nnodes;
    const int *starts = h->node_starts, *members = h->node_order;
    int *layout = malloc(sizeof(int) * 4 * (size_t)groups);
    if (layout == NULL) return MPI_ERR_NO_MEM;
    int *scounts = layout, *sdispls = layout + groups, *rcounts = layout + 2 * groups,
        *rdispls = layout + 3 * groups;
    /* to each node, one message: [member i of mine][member j of theirs] */
    size_t pos = 0;
    for (int g = 0; g < groups; g++) {
        int ng = starts[g + 1] - starts[g];
        sdispls[g] = (int)pos;
        for (int i = 0; i < gsize; i++)
            for (int j = 0; j < ng; j++, pos += B)
                memcpy(spare + pos, gathered + ((size_t)i * n + members[starts[g] + j]) * B, B);
        scounts[g] = (int)(pos - (size_t)sdispls[g]);
        rcounts[g] = (int)((size_t)ng * gsize * B);
        rdispls[g] = g == 0 ? 0 : rdispls[g - 1] + rcounts[g - 1];
    }
    int rc = MPI_Alltoallv(spare, scounts, sdispls, MPI_BYTE, gathered, rcounts, rdispls,
                           MPI_BYTE, h->rsag_cross);
    /* received from each node [its member i][my member j]: member j's row
       gets block i at the source's rank */
    pos = 0;
    for (int g = 0; rc == MPI_SUCCESS && g < groups; g++)
        for (int i = starts[g]; i < starts[g + 1]; i++)
            for (int j = 0; j < gsize; j++, pos += B)
                memcpy(spare + ((size_t)j * n + members[i]) * B, gathered + pos, B);
    free(layout);
    return rc;
}

/* The schedule for blocks of B > 0 bytes, with gsize * n * B within an int
   on every node. */
static int alltoall_tree(hsplit_hierarchy *h, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int B)
{
    int n = h->size, grank, gsize, row = n * B, pos = 0, rc;
    my_group(h, &grank, &gsize);
    char *mine = malloc((size_t)row);
    if (mine == NULL) return MPI_ERR_NO_MEM;
    /* the whole input first: in place, recvbuf is written only at the end */
    if (sendbuf == MPI_IN_PLACE)
        rc = hsplit_pack(recvbuf, n * recvcount, recvtype, mine, row, &pos, h->base);
    else
        rc = hsplit_pack(sendbuf, n * sendcount, sendtype, mine, row, &pos, h->base);
    if (rc == MPI_SUCCESS && pos != row) rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && grank != 0) {
        rc = MPI_Gather(mine, row, MPI_BYTE, NULL, 0, MPI_BYTE, 0, h->rsag_group);
        if (rc == MPI_SUCCESS)
            rc = MPI_Scatter(NULL, 0, MPI_BYTE, mine, row, MPI_BYTE, 0, h->rsag_group);
    } else if (rc == MPI_SUCCESS) {
        char *gathered = malloc((size_t)gsize * (size_t)row);
        char *spare = malloc((size_t)gsize * (size_t)row);
        rc = gathered != NULL && spare != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        /* every leader allocates before anyone exchanges: a leader that
           cannot would leave the others waiting */
        if (rc == MPI_SUCCESS)
            rc = MPI_Gather(mine, row, MPI_BYTE, gathered, row, MPI_BYTE, 0, h->rsag_group);
        if (rc == MPI_SUCCESS) rc = leader_alltoall(h, gathered, spare, gsize, (size_t)B);
        if (rc == MPI_SUCCESS)
            rc = MPI_Scatter(spare, row, MPI_BYTE, mine, row, MPI_BYTE, 0, h->rsag_group);
        free(gathered);
        free(spare);
    }
    pos = 0;
    if (rc == MPI_SUCCESS)
        rc = hsplit_unpack(mine, row, &pos, recvbuf, n * recvcount, recvtype, h->base);
    free(mine);
    return rc;
}

/* Whether the plain path moves blocks of B bytes as MPI_BYTE (the same on
   every process: B and the size are). Open MPI 4.1's Bruck MPI_Alltoall,
   its choice for small blocks on a dozen processes and more, corrupts
   memory when processes describe their blocks with different type maps of
   equal signature; bytes it moves right. */
static int plain_in_bytes(long B, int size)
{
    return B > 0 && B <= INT_MAX / size;
}

/* MPI's own alltoall, moving bytes (plain_in_bytes): a buffer whose type is
   as_bytes as it lies, any other packed. */
static int plain_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          long B)
{
    int size;
    MPI_Comm_size(comm, &size);
    if (!plain_in_bytes(B, size))
        return MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    int in_place = sendbuf == MPI_IN_PLACE, block = (int)B, all = size * block, rc = MPI_SUCCESS;
    int raw_in = hsplit_type_dense_named(in_place ? recvtype : sendtype);
    int raw_out = hsplit_type_dense_named(recvtype);
    if (in_place && raw_in)
        return MPI_Alltoall(MPI_IN_PLACE, 0, MPI_BYTE, recvbuf, block, MPI_BYTE, comm);
    char *packed = raw_in ? NULL : malloc((size_t)all);
    char *got = raw_out ? NULL : malloc((size_t)all);
    if ((!raw_in && packed == NULL) || (!raw_out && got == NULL)) rc = MPI_ERR_NO_MEM;
    int pos = 0;
    if (rc == MPI_SUCCESS && !raw_in)
        rc = in_place ? hsplit_pack(recvbuf, size * recvcount, recvtype, packed, all, &pos, comm)
                      : hsplit_pack(sendbuf, size * sendcount, sendtype, packed, all, &pos, comm);
    if (rc == MPI_SUCCESS)
        rc = MPI_Alltoall(raw_in ? sendbuf : packed, block, MPI_BYTE, raw_out ? recvbuf : got,
                          block, MPI_BYTE, comm);
    pos = 0;
    if (rc == MPI_SUCCESS && !raw_out)
        rc = hsplit_unpack(got, all, &pos, recvbuf, size * recvcount, recvtype, comm);
    free(packed);
    free(got);
    return rc;
}

static int alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    /* the block's bytes, the same on every process by MPI's matching rules
       (recvcount and recvtype are significant in place too); negative for
       MPI_UNDEFINED (more than an int of bytes): plain MPI */
    int type_size = 0, rc = MPI_Type_size(recvtype, &type_size);
    long bytes = (long)recvcount * type_size;
    hsplit_hierarchy *h = NULL;
    if (rc == MPI_SUCCESS) rc = hsplit_coll_begin(comm, bytes, -2, &h);
    if (rc == MPI_SUCCESS && h != NULL && bytes > 0) rc = hsplit_node_layout(h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    /* a leader holds its node's rows of size blocks: within an int, else
       plain MPI (the layout and the size are the same everywhere) */
    if (h != NULL && (bytes <= 0 || bytes > INT_MAX / h->size / h->node_largest)) h = NULL;
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_ALLTOALL, bytes, &trial);
    /* no bytes (on every process, by MPI's rules): MPI checks the other
       arguments and returns (Open MPI 4.1 walks elements of size 0 one by
       one) */
    if (bytes == 0) sendcount = recvcount = 0;
    rc = h != NULL ? alltoall_tree(h, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   (int)bytes)
                   : plain_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm, bytes);
    return hsplit_coll_finish(comm, h, &trial, rc);
}

int HSPLIT_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    /* plain MPI decided (off mode, auto's choice) and nothing unusual:
       MPI's call, which checks its arguments itself */
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    /* (MPI_Type_size of MPI_DATATYPE_NULL would call MPI_COMM_WORLD's
       handler too: such a call takes the full path) */
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE && sendcount >= 0 &&
        recvtype != MPI_DATATYPE_NULL) {
        long n = hsplit_coll_bytes(recvcount, recvtype);
        if (n > 0 && hsplit_coll_plain(s, HSPLIT_COLL_ALLTOALL, n)) {
            /* in bytes, as every process then moves them */
            if (!plain_in_bytes(n, s->size))
                return MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm);
            if (hsplit_type_dense_named(sendtype) && hsplit_type_dense_named(recvtype))
                return MPI_Alltoall(sendbuf, (int)n, MPI_BYTE, recvbuf, (int)n, MPI_BYTE, comm);
        }
    }
    /* comm first: MPI_Comm_size of MPI_COMM_NULL or a bad handle may crash;
       then, before anything communicates, what MPI reads from this process
       (sendcount and sendtype are ignored in place) */
    int rc = hsplit_coll_check_comm(comm);
    int in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && ((!in_place && sendcount < 0) || recvcount < 0))
        rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS &&
        ((!in_place && sendtype == MPI_DATATYPE_NULL) || recvtype == MPI_DATATYPE_NULL))
        rc = MPI_ERR_TYPE;
    /* MPI_IN_PLACE is sendbuf, never recvbuf (MPI_ERR_ARG); both, as a call
       written alike for every process would pass them: fail at once */
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE && in_place) rc = MPI_ERR_ARG;
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (recvbuf != MPI_IN_PLACE)
        return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    /* no receive buffer: the process still gives its blocks, receiving into
       scratch, so that the others complete */
    int size;
    MPI_Comm_size(comm, &size);
    void *base;
    recvbuf = hsplit_temp_buffer((int64_t)size * recvcount, recvtype, &base);
    if (recvbuf == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    rc = alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}

/* ------------------------------------------------------------ alltoallv */

/* Per peer bytes of counts[] elements of type (negative: too many for an
   int, or MPI_Type_size said MPI_UNDEFINED), and their sum. */
static void row_bytes(const int counts[], int n, int type_size, int64_t *row, int64_t *total)
{
    *total = 0;
    for (int i = 0; i < n; i++) {
        row[i] = type_size < 0 ? -1 : (int64_t)counts[i] * type_size;
        *total += row[i] < 0 ? (int64_t)INT_MAX + 1 : row[i];
    }
}

/* The leader's tables: rows[i * n + d] bytes from member i to rank d
   (gathered), and from[s * gsize + j] bytes from rank s to member j
   (exchanged). */
typedef struct {
    int64_t *rows, *from;
    int *gcounts, *gdispls;     /* gatherv of the members' data, gsize each */
    int *scounts, *sdispls, *rcounts, *rdispls; /* among leaders, groups each */
    int *tcounts, *tdispls;     /* scatterv to the members, gsize each      */
} leader_tables;

static void free_tables(leader_tables *t)
{
    free(t->rows);
    free(t->from);
    free(t->gcounts);
}

/* A count in bytes that MPI takes as an int. */
static int fits_int(int64_t bytes)
{
    return bytes >= 0 && bytes <= INT_MAX;
}

/* The leader learns its members' rows, and from the other leaders the bytes
   each of their members sends to each of its own; returns in *overflow
   whether an aggregated message would exceed an int of bytes. */
static int leader_counts(const hsplit_hierarchy *h, const int64_t *mine, int gsize,
                         leader_tables *t, int *overflow)
{
    int n = h->size, groups = h->nnodes;
    const int *starts = h->node_starts, *members = h->node_order;
    t->rows = malloc(sizeof(int64_t) * (size_t)gsize * (size_t)n);
    t->from = malloc(sizeof(int64_t) * (size_t)gsize * (size_t)n);
    t->gcounts = malloc(sizeof(int) * (4 * (size_t)gsize + 4 * (size_t)groups));
    int64_t *outgoing = malloc(sizeof(int64_t) * (size_t)gsize * (size_t)n);
    int *cnt = malloc(sizeof(int) * 4 * (size_t)groups);
    int rc = t->rows && t->from && t->gcounts && outgoing && cnt ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        t->gdispls = t->gcounts + gsize;
        t->tcounts = t->gcounts + 2 * gsize;
        t->tdispls = t->gcounts + 3 * gsize;
        t->scounts = t->gcounts + 4 * gsize;
        t->sdispls = t->scounts + groups;
        t->rcounts = t->scounts + 2 * groups;
        t->rdispls = t->scounts + 3 * groups;
        rc = MPI_Gather(mine, n, MPI_INT64_T, t->rows, n, MPI_INT64_T, 0, h->rsag_group);
    }
    /* to each node, its part of the rows: [member i of mine][member j of
       theirs]; from each node, [its member i][my member j] */
    if (rc == MPI_SUCCESS) {
        int at = 0;
        for (int g = 0; g < groups; g++) {
            int ng = starts[g + 1] - starts[g];
            cnt[g] = gsize * ng;
            cnt[groups + g] = at;
            for (int i = 0; i < gsize; i++)
                for (int j = 0; j < ng; j++)
                    outgoing[at++] = t->rows[(size_t)i * n + members[starts[g] + j]];
            cnt[2 * groups + g] = ng * gsize;
            cnt[3 * groups + g] = g == 0 ? 0 : cnt[3 * groups + g - 1] + cnt[2 * groups + g - 1];
        }
        /* the exchanged blocks arrive [source node][its member][my member]:
           in source-rank order per node, the nodes in leader order */
        int64_t *arrived = malloc(sizeof(int64_t) * (size_t)gsize * (size_t)n);
        rc = arrived == NULL ? MPI_ERR_NO_MEM
                             : MPI_Alltoallv(outgoing, cnt, cnt + groups, MPI_INT64_T, arrived,
                                             cnt + 2 * groups, cnt + 3 * groups, MPI_INT64_T,
                                             h->rsag_cross);
        if (rc == MPI_SUCCESS) {
            int64_t *p = arrived;
            for (int g = 0; g < groups; g++)
                for (int i = starts[g]; i < starts[g + 1]; i++)
                    for (int j = 0; j < gsize; j++)
                        t->from[(size_t)members[i] * gsize + j] = *p++;
        }
        free(arrived);
    }
    /* the message sizes, each checked against an int */
    int bad = 0;
    if (rc == MPI_SUCCESS) {
        int64_t total = 0;
        for (int i = 0; i < gsize; i++) {
            int64_t sum = 0;
            for (int d = 0; d < n; d++) {
                int64_t b = t->rows[(size_t)i * n + d];
                if (b < 0) bad = 1;
                else sum += b;
            }
            if (!fits_int(sum) || !fits_int(total + sum)) bad = 1;
            t->gcounts[i] = bad ? 0 : (int)sum;
            t->gdispls[i] = bad ? 0 : (int)total;
            total += sum;
        }
        int64_t sent = 0, received = 0;
        for (int g = 0; g < groups && !bad; g++) {
            int64_t out = 0, in = 0;
            for (int i = 0; i < gsize; i++)
                for (int j = starts[g]; j < starts[g + 1]; j++)
                    out += t->rows[(size_t)i * n + members[j]];
            for (int s = starts[g]; s < starts[g + 1]; s++)
                for (int j = 0; j < gsize; j++) {
                    int64_t b = t->from[(size_t)members[s] * gsize + j];
                    if (b < 0) bad = 1;
                    else in += b;
                }
            if (!fits_int(sent + out) || !fits_int(received + in)) bad = 1;
            t->scounts[g] = bad ? 0 : (int)out;
            t->sdispls[g] = bad ? 0 : (int)sent;
            t->rcounts[g] = bad ? 0 : (int)in;
            t->rdispls[g] = bad ? 0 : (int)received;
            sent += out;
            received += in;
        }
        int64_t dealt = 0;
        for (int j = 0; j < gsize && !bad; j++) {
            int64_t sum = 0;
            for (int s = 0; s < n; s++) sum += t->from[(size_t)s * gsize + j];
            if (!fits_int(dealt + sum)) bad = 1;
            t->tcounts[j] = bad ? 0 : (int)sum;
            t->tdispls[j] = bad ? 0 : (int)dealt;
            dealt += sum;
        }
    }
    *overflow = bad;
    free(outgoing);
    free(cnt);
    return rc;
}

/* The leader's buffers, all allocated before the processes agree to go on
   (so that a failed allocation sends every process to plain MPI instead of
   leaving the others waiting). */
typedef struct {
    char *gathered, *out, *in, *dealt;
    int64_t *at, *to;
} leader_buffers;

static size_t end_of(const int *counts, const int *displs, int n)
{
    return n > 0 ? (size_t)displs[n - 1] + (size_t)counts[n - 1] : 0;
}

static int leader_alloc(const hsplit_hierarchy *h, const leader_tables *t, int gsize,
                        leader_buffers *b)
{
    size_t n = (size_t)h->size, groups = (size_t)h->nnodes, one = 1;
    size_t gathered = end_of(t->gcounts, t->gdispls, gsize);
    size_t sent = end_of(t->scounts, t->sdispls, (int)groups);
    size_t received = end_of(t->rcounts, t->rdispls, (int)groups);
    size_t dealt = end_of(t->tcounts, t->tdispls, gsize);
    b->gathered = malloc(gathered > 0 ? gathered : one);
    b->out = malloc(sent > 0 ? sent : one);
    b->in = malloc(received > 0 ? received : one);
    b->dealt = malloc(dealt > 0 ? dealt : one);
    b->at = malloc(sizeof(int64_t) * (size_t)gsize * n);
    b->to = malloc(sizeof(int64_t) * (size_t)gsize * n);
    return b->gathered && b->out && b->in && b->dealt && b->at && b->to ? MPI_SUCCESS
                                                                        : MPI_ERR_NO_MEM;
}

static void leader_free(leader_buffers *b)
{
    free(b->gathered);
    free(b->out);
    free(b->in);
    free(b->dealt);
    free(b->at);
    free(b->to);
}

/* The leader's data movement once the tables are known: b->gathered holds
   its members' packed data (member i at gdispls[i], destinations in rank
   order); leaves in b->dealt what to scatter (member j at tdispls[j],
   sources in rank order). */
static int leader_exchange(const hsplit_hierarchy *h, const leader_tables *t, int gsize,
                           leader_buffers *b)
{
    int n = h->size, groups = h->nnodes;
    const int *starts = h->node_starts, *members = h->node_order;
    /* where each block starts: in the gathered data (per member and
       destination), and in the dealt data (per source and member) */
    for (int i = 0; i < gsize; i++) {
        int64_t p = t->gdispls[i];
        for (int d = 0; d < n; d++) {
            b->at[(size_t)i * n + d] = p;
            p += t->rows[(size_t)i * n + d];
        }
    }
    for (int j = 0; j < gsize; j++) {
        int64_t p = t->tdispls[j];
        for (int s = 0; s < n; s++) {
            b->to[(size_t)s * gsize + j] = p;
            p += t->from[(size_t)s * gsize + j];
        }
    }
    /* to each node [member i of mine][member j of theirs] */
    size_t pos = 0;
    for (int g = 0; g < groups; g++)
        for (int i = 0; i < gsize; i++)
            for (int j = starts[g]; j < starts[g + 1]; j++) {
                size_t k = (size_t)i * n + members[j], bytes = (size_t)t->rows[k];
                if (bytes > 0) memcpy(b->out + pos, b->gathered + b->at[k], bytes);
                pos += bytes;
            }
    int rc = MPI_Alltoallv(b->out, t->scounts, t->sdispls, MPI_BYTE, b->in, t->rcounts,
                           t->rdispls, MPI_BYTE, h->rsag_cross);
    /* from each node [its member s][my member j], to member j's part at the
       source's place */
    pos = 0;
    for (int g = 0; rc == MPI_SUCCESS && g < groups; g++)
        for (int s = starts[g]; s < starts[g + 1]; s++)
            for (int j = 0; j < gsize; j++) {
                size_t k = (size_t)members[s] * gsize + j, bytes = (size_t)t->from[k];
                if (bytes > 0) memcpy(b->dealt + b->to[k], b->in + pos, bytes);
                pos += bytes;
            }
    return rc;
}

/* Pack (or unpack) counts[i] elements at displs[i] for every peer i in rank
   order, into (from) a buffer of total bytes. */
static int pack_peers(const void *buf, const int counts[], const int displs[],
                      MPI_Datatype type, int n, char *packed, int total, MPI_Comm comm)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    int pos = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (counts[i] > 0)
            rc = hsplit_pack((const char *)buf + (MPI_Aint)displs[i] * extent, counts[i], type,
                             packed, total, &pos, comm);
    return rc == MPI_SUCCESS && pos != total ? MPI_ERR_INTERN : rc;
}

static int unpack_peers(const char *packed, int total, void *buf, const int counts[],
                        const int displs[], MPI_Datatype type, int n, MPI_Comm comm)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    int pos = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (counts[i] > 0)
            rc = hsplit_unpack(packed, total, &pos, (char *)buf + (MPI_Aint)displs[i] * extent,
                               counts[i], type, comm);
    return rc == MPI_SUCCESS && pos != total ? MPI_ERR_INTERN : rc;
}

/* The schedule. The counts are agreed first (the leaders gather their
   members' rows and exchange them) and the buffers allocated; then every
   process learns, by one allreduce, whether any aggregated message would
   exceed an int of bytes or any allocation failed: *fallback then, and no
   data has moved (the caller runs plain MPI). */
static int alltoallv_tree(hsplit_hierarchy *h, const void *sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          int *fallback)
{
    int n = h->size, grank, gsize, in_place = sendbuf == MPI_IN_PLACE;
    my_group(h, &grank, &gsize);
    *fallback = 0;
    /* in place, the data to send is in recvbuf, as it would be received */
    const int *scounts = in_place ? recvcounts : sendcounts;
    const int *sdisp = in_place ? rdispls : sdispls;
    const void *input = in_place ? recvbuf : sendbuf;
    MPI_Datatype stype = in_place ? recvtype : sendtype;
    int ssize = 0, rsize = 0;
    int rc = MPI_Type_size(stype, &ssize);
    if (rc == MPI_SUCCESS) rc = MPI_Type_size(recvtype, &rsize);
    if (rc != MPI_SUCCESS) return rc;
    int64_t *row = malloc(sizeof(int64_t) * 2 * (size_t)n), send_total = 0, recv_total = 0;
    if (row == NULL) return MPI_ERR_NO_MEM;
    row_bytes(scounts, n, ssize == MPI_UNDEFINED ? -1 : ssize, row, &send_total);
    row_bytes(recvcounts, n, rsize == MPI_UNDEFINED ? -1 : rsize, row + n, &recv_total);
    int give_up = !fits_int(send_total) || !fits_int(recv_total);
    leader_tables t = {0};
    leader_buffers b = {0};
    if (grank == 0) {
        int overflow = 0;
        rc = leader_counts(h, row, gsize, &t, &overflow);
        give_up |= overflow;
        if (rc == MPI_SUCCESS && !give_up && leader_alloc(h, &t, gsize, &b) != MPI_SUCCESS)
            give_up = 1;
    } else {
        rc = MPI_Gather(row, n, MPI_INT64_T, NULL, 0, MPI_INT64_T, 0, h->rsag_group);
    }
    char *mine = NULL, *got = NULL;
    if (!give_up) {
        mine = malloc(send_total > 0 ? (size_t)send_total : 1);
        got = malloc(recv_total > 0 ? (size_t)recv_total : 1);
        give_up = mine == NULL || got == NULL;
    }
    /* every process takes part, whatever happened to it, so that none waits
       alone; an MPI error anywhere fails the call everywhere; and the
       largest send of a process is the size auto mode measures next */
    int64_t verdict[3] = {give_up, rc != MPI_SUCCESS, send_total}, agreed[3] = {0, 0, 0};
    int arc = MPI_Allreduce(verdict, agreed, 3, MPI_INT64_T, MPI_MAX, h->base);
    if (rc == MPI_SUCCESS) rc = arc != MPI_SUCCESS ? arc : agreed[1] ? MPI_ERR_OTHER : rc;
    if (rc == MPI_SUCCESS && agreed[0]) *fallback = 1;
    if (arc == MPI_SUCCESS)
        hsplit_coll_learn_size(h, HSPLIT_COLL_ALLTOALLV, agreed[2] > LONG_MAX ? LONG_MAX
                                                                               : (long)agreed[2]);
    int mine_bytes = (int)send_total, theirs_bytes = (int)recv_total;
    if (rc == MPI_SUCCESS && !*fallback) {
        /* packed in destination-rank order, to the leader, across, and back
           in source-rank order */
        rc = pack_peers(input, scounts, sdisp, stype, n, mine, mine_bytes, h->base);
        /* a failed pack still takes part: the leader waits for it */
        int bytes = rc == MPI_SUCCESS ? mine_bytes : 0, crc;
        if (grank != 0) {
            crc = MPI_Gatherv(mine, bytes, MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0,
                              h->rsag_group);
        } else {
            crc = MPI_Gatherv(mine, bytes, MPI_BYTE, b.gathered, t.gcounts, t.gdispls,
                              MPI_BYTE, 0, h->rsag_group);
            if (crc == MPI_SUCCESS) crc = leader_exchange(h, &t, gsize, &b);
        }
        if (rc == MPI_SUCCESS) rc = crc;
        crc = MPI_Scatterv(b.dealt, t.tcounts, t.tdispls, MPI_BYTE, got, theirs_bytes, MPI_BYTE,
                           0, h->rsag_group);
        if (rc == MPI_SUCCESS) rc = crc;
        if (rc == MPI_SUCCESS)
            rc = unpack_peers(got, theirs_bytes, recvbuf, recvcounts, rdispls, recvtype, n,
                              h->base);
    }
    free(mine);
    free(got);
    leader_free(&b);
    free_tables(&t);
    free(row);
    return rc;
}

static int alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    hsplit_hierarchy *h = NULL;
    int rc = hsplit_coll_begin(comm, HSPLIT_COLL_ANY_SIZE, -2, &h);
    if (rc == MPI_SUCCESS && h != NULL) rc = hsplit_node_layout(h);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    hsplit_coll_trial trial;
    hsplit_coll_choose(&h, HSPLIT_COLL_ALLTOALLV, HSPLIT_COLL_ANY_SIZE, &trial);
    int fallback = 0;
    if (h != NULL)
        rc = alltoallv_tree(h, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                            rdispls, recvtype, &fallback);
    /* too large for the hierarchy, agreed by every process before any data
       moved: MPI's own */
    if (h == NULL || fallback) {
        h = NULL;
        rc = MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm);
    }
    return hsplit_coll_finish(comm, h, &trial, rc);
}

/* Any negative count among n. */
static int any_negative(const int counts[], int n)
{
    for (int i = 0; i < n; i++)
        if (counts[i] < 0) return 1;
    return 0;
}

int HSPLIT_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    hsplit_coll_state *s = hsplit_coll_state_find(comm);
    if (s != NULL && sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE &&
        hsplit_coll_plain(s, HSPLIT_COLL_ALLTOALLV, HSPLIT_COLL_ANY_SIZE))
        return MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, comm);
    int rc = hsplit_coll_check_comm(comm);
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    int size;
    MPI_Comm_size(comm, &size);
    /* before anything communicates: what MPI reads from this process */
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((!in_place && any_negative(sendcounts, size)) || any_negative(recvcounts, size))
        rc = MPI_ERR_COUNT;
    else if ((!in_place && sendtype == MPI_DATATYPE_NULL) || recvtype == MPI_DATATYPE_NULL)
        rc = MPI_ERR_TYPE;
    else if (recvbuf == MPI_IN_PLACE && in_place)
        rc = MPI_ERR_ARG; /* as in HSPLIT_Alltoall */
    if (rc != MPI_SUCCESS) return hsplit_raise_code(comm, rc);
    if (recvbuf != MPI_IN_PLACE)
        return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm);
    /* no receive buffer: the process still gives its data, receiving into
       scratch that spans every displacement it was given */
    int64_t low = 0, high = 0;
    for (int i = 0, any = 0; i < size; i++)
        if (recvcounts[i] > 0) {
            int64_t from = rdispls[i], to = from + recvcounts[i];
            low = any && low < from ? low : from;
            high = any && high > to ? high : to;
            any = 1;
        }
    MPI_Aint lb, extent;
    MPI_Type_get_extent(recvtype, &lb, &extent);
    void *base;
    char *scratch = hsplit_temp_buffer(high - low, recvtype, &base);
    if (scratch == NULL) return hsplit_raise_code(comm, MPI_ERR_ARG);
    recvbuf = scratch - (MPI_Aint)low * extent;
    rc = alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                   recvtype, comm);
    return hsplit_coll_misused(comm, base, rc, MPI_ERR_ARG);
}
