/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_Comm_split_type as MPI defines MPI_Comm_split_type (MPI-4.1, section
   7.4.2): a collective call in which every process gives the same split type
   or MPI_UNDEFINED, HW_GUIDED's resource named by the info key
   "mpi_hw_resource_type" (the same value everywhere), and the types of the
   MPI in use passed through. */
#include <ctype.h>
#include <limits.h>
#include <string.h>
#include "hsplit_internal.h"

static int is_hsplit_type(int split_type)
{
    return split_type == HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY ||
           split_type == HSPLIT_COMM_TYPE_HW_UNGUIDED || split_type == HSPLIT_COMM_TYPE_HW_GUIDED;
}

/* The value of "mpi_hw_resource_type" in info; 0 if info is MPI_INFO_NULL or
   lacks the key. */
static int guided_value(MPI_Info info, char value[MPI_MAX_INFO_VAL + 1])
{
    int flag = 0;
    value[0] = '\0';
    if (info == MPI_INFO_NULL ||
        MPI_Info_get(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, MPI_MAX_INFO_VAL, value, &flag) !=
            MPI_SUCCESS)
        return 0;
    value[MPI_MAX_INFO_VAL] = '\0';
    return flag;
}

/* A 31-bit fingerprint of the value, case folded like the level names it
   names ("core" and "Core" are the same resource); 0 for no value. */
static int value_fingerprint(int present, const char *value)
{
    if (!present)
        return 0;
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *p = value; *p != '\0'; p++) {
        h ^= (uint32_t)tolower((unsigned char)*p);
        h *= 16777619u;
    }
    return (int)(h % (uint32_t)(INT_MAX - 1)) + 1;
}

/* What the processes of comm agree on before splitting: one MPI_MAX
   allreduce. A process passing MPI_UNDEFINED contributes neutral values. */
typedef struct {
    int arg_error;     /* some process passed newcomm == NULL or a bad type */
    int all_undefined; /* every process passed MPI_UNDEFINED                */
    int some_undefined;
    int types_differ;  /* two processes passed different split types       */
    int type;          /* the split type of the others                      */
    int values_differ; /* HW_GUIDED: different "mpi_hw_resource_type"       */
} split_agreement;

static int agree_split_type(MPI_Comm comm, int split_type, int local_error, MPI_Info info,
                            split_agreement *a)
{
    int undefined = split_type == MPI_UNDEFINED;
    if (split_type == INT_MIN) /* its negation would overflow; no MPI uses it */
        local_error = 1;
    int fingerprint = -1;
    if (!undefined && split_type == HSPLIT_COMM_TYPE_HW_GUIDED) {
        char value[MPI_MAX_INFO_VAL + 1];
        fingerprint = value_fingerprint(guided_value(info, value), value);
    }
    int in[6] = {local_error != 0,
                 undefined || local_error ? INT_MIN : split_type,
                 undefined || local_error ? INT_MIN : -split_type,
                 undefined,
                 fingerprint,
                 fingerprint < 0 ? INT_MIN : -fingerprint};
    int out[6];
    int rc = MPI_Allreduce(in, out, 6, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    a->arg_error = out[0] != 0;
    a->all_undefined = out[1] == INT_MIN;
    a->some_undefined = out[3] != 0;
    a->types_differ = !a->all_undefined && out[1] != -out[2];
    a->type = out[1];
    a->values_differ = out[4] >= 0 && out[4] != -out[5];
    return MPI_SUCCESS;
}

/* HW_GUIDED's resource: *known 0 when the key is missing or names no
   resource hsplit knows (MPI: MPI_COMM_NULL everywhere, not an error).
   "mpi_shared_memory" is MPI_COMM_TYPE_SHARED: the node. */
static void guided_resource(MPI_Info info, hwloc_obj_type_t *type, int *known)
{
    char value[MPI_MAX_INFO_VAL + 1];
    *known = 0;
    if (!guided_value(info, value))
        return;
    if (strcmp(value, "mpi_shared_memory") == 0) {
        *type = HWLOC_OBJ_MACHINE;
        *known = 1;
    } else {
        *known = hsplit_parse_type(value, type) == 0;
    }
}

/* The hsplit split types on an intracommunicator whose processes all give
   split_type (none MPI_UNDEFINED). */
static int split_participants(MPI_Comm comm, int split_type, int key, MPI_Info info,
                              MPI_Comm *out)
{
    int mode = HSPLIT_SPLIT_PHYSICAL, known = 0;
    hwloc_obj_type_t type = HWLOC_OBJ_MACHINE;
    if (split_type == HSPLIT_COMM_TYPE_HW_GUIDED) {
        mode = HSPLIT_SPLIT_GUIDED;
        guided_resource(info, &type, &known);
    }
    int num_comms;
    char name[HSPLIT_MAX_HLEVEL_NAME];
    int kind = hsplit_split(comm, mode, type, known, key, HSPLIT_KIND_OK, out, &num_comms, name);
    if (kind != HSPLIT_KIND_OK || *out == MPI_COMM_NULL)
        return kind;
    /* MPI-4.1: HW_UNGUIDED reports the level it chose in the info key. */
    if (split_type == HSPLIT_COMM_TYPE_HW_UNGUIDED && info != MPI_INFO_NULL &&
        MPI_Info_set(info, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE, name) != MPI_SUCCESS) {
        MPI_Comm_free(out);
        return HSPLIT_KIND_ERR_OTHER;
    }
    return HSPLIT_KIND_OK;
}

int HSPLIT_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                           MPI_Comm *newcomm)
{
    int ours = is_hsplit_type(split_type);
    if (comm == MPI_COMM_NULL)
        return hsplit_raise(comm, HSPLIT_KIND_ERR_COMM);
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return hsplit_raise(comm, HSPLIT_KIND_ERR_COMM);
    if (inter) /* hsplit's types are for intracommunicators; MPI's own decide */
        return ours ? hsplit_raise(comm, HSPLIT_KIND_ERR_COMM)
                    : MPI_Comm_split_type(comm, split_type, key, info, newcomm);

    split_agreement a;
    int rc = agree_split_type(comm, split_type, newcomm == NULL, info, &a);
    if (rc != MPI_SUCCESS)
        return hsplit_raise_code(comm, rc);
    if (a.arg_error || a.types_differ)
        return hsplit_raise(comm, HSPLIT_KIND_ERR_ARG);
    if (a.all_undefined) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!is_hsplit_type(a.type)) /* every process calls MPI, with its own type */
        return MPI_Comm_split_type(comm, split_type, key, info, newcomm);
    if (a.type == HSPLIT_COMM_TYPE_HW_GUIDED && a.values_differ)
        return hsplit_raise(comm, HSPLIT_ERR_GUIDED_INFO);

    /* *newcomm is written on success only */
    MPI_Comm out = MPI_COMM_NULL;
    int kind;
    if (!a.some_undefined) {
        kind = split_participants(comm, split_type, key, info, &out);
        if (kind == HSPLIT_KIND_OK)
            *newcomm = out;
        return hsplit_raise(comm, kind);
    }
    /* Some processes passed MPI_UNDEFINED: the others split among
       themselves (ties of key still broken by rank in comm), then every
       process learns the outcome so that all return the same error. */
    MPI_Comm participants;
    rc = MPI_Comm_split(comm, ours ? 0 : MPI_UNDEFINED, 0, &participants);
    kind = rc == MPI_SUCCESS ? HSPLIT_KIND_OK : HSPLIT_KIND_ERR_OTHER;
    if (kind == HSPLIT_KIND_OK && participants != MPI_COMM_NULL) {
        kind = split_participants(participants, split_type, key, info, &out);
        MPI_Comm_free(&participants);
    }
    int agreed;
    if (MPI_Allreduce(&kind, &agreed, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        agreed = HSPLIT_KIND_ERR_OTHER;
    if (agreed != HSPLIT_KIND_OK && out != MPI_COMM_NULL)
        MPI_Comm_free(&out);
    if (agreed == HSPLIT_KIND_OK)
        *newcomm = out;
    return hsplit_raise(comm, agreed);
}

int HSPLIT_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int kind = hsplit_check_intracomm(comm);
    if (kind == HSPLIT_KIND_OK && info_used == NULL)
        kind = HSPLIT_KIND_ERR_ARG;
    const hsplit_context *ctx = kind == HSPLIT_KIND_OK ? hsplit_get_context() : NULL;
    if (kind == HSPLIT_KIND_OK && ctx == NULL)
        kind = HSPLIT_KIND_ERR_INTERN;
    if (kind != HSPLIT_KIND_OK)
        return hsplit_raise(comm, kind);
    int rc = MPI_Comm_get_info(comm, info_used);
    if (rc != MPI_SUCCESS)
        return rc; /* MPI has called comm's handler */
    hsplit_hlevel *level = NULL;
    int found = 0;
    MPI_Comm_get_attr(comm, ctx->hlevel_keyval, &level, &found);
    if (found && (rc = MPI_Info_set(*info_used, HSPLIT_INFO_KEY_HW_RESOURCE_TYPE,
                                    level->type)) != MPI_SUCCESS) {
        MPI_Info_free(info_used);
        return hsplit_raise_code(comm, rc);
    }
    return MPI_SUCCESS;
}
