/* SPDX-License-Identifier: BSD-3-Clause */
/* Process-wide MPI handles of the library: attribute keyvals and error
   classes. They are created once (pthread_once; under SMPI, see below) and
   never change after: this is the only process-global state of hsplit. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include "hsplit_internal.h"

static const char *const error_strings[HSPLIT_ERR_LAST_KIND + 1] = {
    [HSPLIT_ERR_TOPOLOGY] =
        "hsplit: HSPLIT_TOPOLOGY is neither a readable hwloc XML file nor a valid "
        "hwloc synthetic description",
    [HSPLIT_ERR_NODES] =
        "hsplit: HSPLIT_NODES is malformed: expected K (blocks of K ranks), "
        "cyclic:N, or one non-negative node index per MPI_COMM_WORLD rank, "
        "comma-separated",
    [HSPLIT_ERR_BIND] =
        "hsplit: HSPLIT_BIND is malformed or names no object of the topology: "
        "expected none, an object type, or a ';'-list with one type:index or "
        "cpuset item per process of the node",
    [HSPLIT_ERR_HWLOC] =
        "hsplit: hwloc could not load the topology or read the process binding",
    [HSPLIT_ERR_NOT_HLEVEL] =
        "hsplit: the communicator was not created by an hsplit split",
    [HSPLIT_ERR_RANK_REPEATED] = "hsplit: a rank is listed more than once",
    [HSPLIT_ERR_GUIDED_INFO] =
        "hsplit: HSPLIT_COMM_TYPE_HW_GUIDED with different values of the info key "
        "mpi_hw_resource_type on different processes",
    [HSPLIT_ERR_NETWORK] =
        "hsplit: the network description is invalid: HSPLIT_NETWORK (a Slurm "
        "topology.conf) or SLURM_TOPOLOGY_ADDR is malformed, or the processes do "
        "not describe the network alike",
};

static hsplit_registry registry;
static int registry_ok;

/* The error classes. SMPI implements neither MPI_Add_error_class nor the
   error strings, and its MPI_Error_class returns any code unchanged: there,
   each library error is one fixed code above MPI_ERR_LASTCODE that is also
   its own class. */
static int add_error_classes(hsplit_registry *reg)
{
    int rc = MPI_SUCCESS;
    for (int k = 1; rc == MPI_SUCCESS && k <= HSPLIT_ERR_LAST_KIND; k++) {
#if HSPLIT_UNDER_SMPI
        (void)error_strings;
        reg->classes[k] = reg->codes[k] = MPI_ERR_LASTCODE + k;
#else
        /* A code inside each new class: Open MPI reports the wrong class for a
           bare class value, while a code of the class works in both MPIs. */
        rc = MPI_Add_error_class(&reg->classes[k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Add_error_code(reg->classes[k], &reg->codes[k]);
        /* (char *): MPI-2's signature, which SMPI keeps */
        if (rc == MPI_SUCCESS)
            rc = MPI_Add_error_string(reg->classes[k], (char *)error_strings[k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Add_error_string(reg->codes[k], (char *)error_strings[k]);
#endif
    }
    return rc;
}

/* Fills reg; returns 1 if every MPI call succeeded. The context lives on
   MPI_COMM_SELF, which is each rank's own even under SMPI: one keyval for
   all ranks of a process is right there. */
static int registry_fill(hsplit_registry *reg)
{
    int rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, hsplit_context_delete,
                                    &reg->context_keyval, NULL);
    if (rc == MPI_SUCCESS)
        rc = add_error_classes(reg);
    return rc == MPI_SUCCESS;
}

#if HSPLIT_UNDER_SMPI
/* Under SMPI the ranks are user-level threads of one process that switch
   only inside blocking MPI calls, and they share this file's variables
   unless the library is linked statically and privatized. A keyval made by
   one rank is valid in every rank there. pthread_once would block the
   whole simulation if the creating rank were switched out inside it: a rank
   that finds no registry makes one and publishes it unless another rank
   did so meanwhile, with no MPI call between the test and the store. */
static int registry_made;

const hsplit_registry *hsplit_get_registry(void)
{
    if (!registry_made) {
        hsplit_registry mine;
        int ok = registry_fill(&mine);
        if (!registry_made) {
            registry = mine;
            registry_ok = ok;
            registry_made = 1;
        } else if (ok) {
            MPI_Comm_free_keyval(&mine.context_keyval);
        }
    }
    return registry_ok ? &registry : NULL;
}
#else
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static void registry_create(void)
{
    registry_ok = registry_fill(&registry);
}

const hsplit_registry *hsplit_get_registry(void)
{
    pthread_once(&registry_once, registry_create);
    return registry_ok ? &registry : NULL;
}
#endif

int hsplit_mpi_usable(void)
{
    int finalized = 1;
    MPI_Finalized(&finalized);
    return !finalized;
}

int hsplit_kind_code(int kind)
{
    switch (kind) {
    case HSPLIT_KIND_OK: return MPI_SUCCESS;
    case HSPLIT_KIND_ERR_ARG: return MPI_ERR_ARG;
    case HSPLIT_KIND_ERR_RANK: return MPI_ERR_RANK;
    case HSPLIT_KIND_ERR_COMM: return MPI_ERR_COMM;
    case HSPLIT_KIND_ERR_INTERN: return MPI_ERR_INTERN;
    case HSPLIT_KIND_ERR_OTHER: return MPI_ERR_OTHER;
    default: break;
    }
    const hsplit_registry *reg = hsplit_get_registry();
    if (reg == NULL || kind < 1 || kind > HSPLIT_ERR_LAST_KIND)
        return MPI_ERR_OTHER;
    /* the code saying what is wrong with this process's own setting (the
       network file and line, the launcher's variable); a process whose own
       setting is fine gets the class's general code */
    const hsplit_context *ctx = hsplit_get_context();
    if (ctx != NULL && ctx->error_kind == kind && ctx->error_code != 0)
        return ctx->error_code;
    return reg->codes[kind];
}

#if HSPLIT_UNDER_SMPI
/* SMPI 3.32 crashes when MPI_Comm_call_errhandler meets one of the
   predefined handlers: do here what they mean. */
static void call_errhandler(MPI_Comm comm, int code)
{
    MPI_Errhandler handler;
    if (MPI_Comm_get_errhandler(comm, &handler) != MPI_SUCCESS)
        return;
    int returns = handler == MPI_ERRORS_RETURN, fatal = handler == MPI_ERRORS_ARE_FATAL;
    MPI_Errhandler_free(&handler);
    if (fatal) {
        fprintf(stderr, "hsplit: error %d under MPI_ERRORS_ARE_FATAL: aborting\n", code);
        MPI_Abort(comm, code);
    } else if (!returns) {
        MPI_Comm_call_errhandler(comm, code);
    }
}
#else
static void call_errhandler(MPI_Comm comm, int code)
{
    MPI_Comm_call_errhandler(comm, code);
}
#endif

int hsplit_raise_code(MPI_Comm comm, int code)
{
    if (code != MPI_SUCCESS)
        call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
    return code;
}

int hsplit_raise(MPI_Comm comm, int kind)
{
    return hsplit_raise_code(comm, hsplit_kind_code(kind));
}

int HSPLIT_Error_class(int hsplit_error, int *errorclass)
{
    if (errorclass == NULL || hsplit_error < 1 || hsplit_error > HSPLIT_ERR_LAST_KIND)
        return hsplit_raise(MPI_COMM_NULL, HSPLIT_KIND_ERR_ARG);
    const hsplit_registry *reg = hsplit_get_registry();
    if (reg == NULL)
        return hsplit_raise(MPI_COMM_NULL, HSPLIT_KIND_ERR_INTERN);
    *errorclass = reg->classes[hsplit_error];
    return MPI_SUCCESS;
}
