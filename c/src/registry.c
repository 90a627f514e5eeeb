/* Process-wide MPI handles of the library: attribute keyvals and error
   classes. They are created once, under pthread_once, and never change after:
   this is the only process-global state of hsplit. */
#include <pthread.h>
#include <stddef.h>
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
        "hsplit: HSPLIT_COMM_TYPE_HW_GUIDED needs the info key mpi_hw_resource_type",
    [HSPLIT_ERR_NETWORK] =
        "hsplit: the network description is invalid: HSPLIT_NETWORK (a Slurm "
        "topology.conf) or SLURM_TOPOLOGY_ADDR is malformed, or the processes do "
        "not describe the network alike",
};

static hsplit_registry registry;
static int registry_ok;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static void registry_create(void)
{
    int rc = MPI_Comm_create_keyval(hsplit_hlevel_copy, hsplit_hlevel_delete,
                                    &registry.hlevel_keyval, NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(hsplit_rankmap_attr_copy, hsplit_rankmap_attr_delete,
                                    &registry.rankmap_keyval, NULL);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, hsplit_context_delete,
                                    &registry.context_keyval, NULL);
    /* A duplicate builds its own hierarchy: its collectives must not share
       the internal communicators of the original. */
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, hsplit_hierarchy_delete,
                                    &registry.hierarchy_keyval, NULL);
    /* A code inside each new class: Open MPI reports the wrong class for a bare
       class value, while a code of the class works in both MPIs. */
    for (int k = 1; rc == MPI_SUCCESS && k <= HSPLIT_ERR_LAST_KIND; k++) {
        rc = MPI_Add_error_class(&registry.classes[k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Add_error_code(registry.classes[k], &registry.codes[k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Add_error_string(registry.classes[k], error_strings[k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Add_error_string(registry.codes[k], error_strings[k]);
    }
    registry_ok = (rc == MPI_SUCCESS);
}

const hsplit_registry *hsplit_get_registry(void)
{
    pthread_once(&registry_once, registry_create);
    return registry_ok ? &registry : NULL;
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
    if (kind == HSPLIT_ERR_NETWORK) {
        /* the code saying what is wrong with this process's description
           (file and line); a process whose own description is fine gets
           the class's general code */
        const hsplit_context *ctx = hsplit_get_context();
        if (ctx != NULL && ctx->error_kind == HSPLIT_ERR_NETWORK && ctx->error_code != 0)
            return ctx->error_code;
    }
    return reg->codes[kind];
}

int hsplit_raise_code(MPI_Comm comm, int code)
{
    if (code != MPI_SUCCESS)
        MPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
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
