/* SPDX-License-Identifier: BSD-3-Clause */
/* hsplit-info: build the whole hierarchy of MPI_COMM_WORLD with repeated
   HSPLIT_Comm_hsplit_with_roots and print it once, from rank 0: as a readable
   tree (default) or as JSON (--json). With --min-hlevel r1,r2,... print what
   HSPLIT_Comm_get_min_hlevel returns on MPI_COMM_WORLD to rank r1. With
   --settings, the collectives' settings and their values (--csv: as CSV). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "hsplit.h"

typedef struct {
    char type[HSPLIT_MAX_HLEVEL_NAME];
    char name[MPI_MAX_OBJECT_NAME]; /* the switch or node, "" for other levels */
    int index, num_comms, size;
    int *ranks; /* world ranks in communicator rank order */
} comm_entry;

typedef struct {
    comm_entry *comms;
    int ncomms;
    int **roots; /* each: size, then world ranks */
    int nroots;
} step_entry;

typedef struct {
    const char *topology, *nodes, *bind, *network, *min_hlevel;
    int json, settings, csv;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpiexec -n N hsplit-info [--topology T] [--nodes S] [--bind B]\n"
            "                                [--network F] [--json] [--min-hlevel r1,r2,...]\n"
            "       mpiexec -n N hsplit-info --settings [--csv]\n"
            "  --topology T   hwloc XML file or synthetic string (sets HSPLIT_TOPOLOGY)\n"
            "  --nodes S      K, cyclic:N or a node index per rank (sets HSPLIT_NODES)\n"
            "  --bind B       none, a type, or a ;-list of type:index / cpusets (HSPLIT_BIND)\n"
            "  --network F    Slurm topology.conf with the switches (HSPLIT_NETWORK)\n"
            "  --json         print the hierarchy as JSON\n"
            "  --min-hlevel L print the deepest level shared by the listed world ranks,\n"
            "                 as seen by the first of them\n"
            "  --settings     list the collectives' settings (HSPLIT_COLL*): value, where it\n"
            "                 comes from, default, allowed values, description; exit status 1\n"
            "                 when a value is malformed\n"
            "  --csv          with --settings: the same as CSV\n"
            "  --version      print the versions of hsplit and of the MPI library\n");
}

/* The library's version (that of the headers too, when they differ) and the
   first line of the MPI's. */
static void print_version(void)
{
    int major, minor, patch, len;
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    HSPLIT_Get_version(&major, &minor, &patch);
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, "\n")] = '\0';
    printf("hsplit-info (hsplit) %d.%d.%d", major, minor, patch);
    if (major != HSPLIT_VERSION_MAJOR || minor != HSPLIT_VERSION_MINOR ||
        patch != HSPLIT_VERSION_PATCH)
        printf(" (compiled with the headers of %s)", HSPLIT_VERSION_STRING);
    printf("\nMPI: %s\n", mpi);
}

static int parse_options(int argc, char **argv, options *opt)
{
    memset(opt, 0, sizeof *opt);
    for (int i = 1; i < argc; i++) {
        const char **target = NULL;
        if (strcmp(argv[i], "--json") == 0) { opt->json = 1; continue; }
        if (strcmp(argv[i], "--settings") == 0) { opt->settings = 1; continue; }
        if (strcmp(argv[i], "--csv") == 0) { opt->csv = 1; continue; }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
        if (strcmp(argv[i], "--version") == 0) return 2;
        if (strcmp(argv[i], "--topology") == 0) target = &opt->topology;
        else if (strcmp(argv[i], "--nodes") == 0) target = &opt->nodes;
        else if (strcmp(argv[i], "--bind") == 0) target = &opt->bind;
        else if (strcmp(argv[i], "--network") == 0) target = &opt->network;
        else if (strcmp(argv[i], "--min-hlevel") == 0) target = &opt->min_hlevel;
        if (target == NULL || i + 1 >= argc) return -1;
        *target = argv[++i];
    }
    return opt->csv && !opt->settings ? -1 : 0;
}

/* ---- gathering the communicators of one step on rank 0 ---- */

static int *world_ranks_of(MPI_Comm comm, int *size)
{
    MPI_Group group, world;
    MPI_Comm_size(comm, size);
    int *in = malloc(sizeof(int) * (size_t)*size), *out = malloc(sizeof(int) * (size_t)*size);
    for (int i = 0; i < *size; i++) in[i] = i;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, *size, in, world, out);
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    free(in);
    return out;
}

/* Record of this process for one step, as ints: a communicator it leads
   [1, index, num_comms, size, ranks..., type length, type chars..., name
   length, name chars...] and a roots communicator it leads [2, size,
   ranks...]. Strings are sent one char per int; the name is the
   communicator's MPI name (hsplit names switch and node communicators). */
static int *step_record(MPI_Comm level, MPI_Comm roots, int *len)
{
    int cap = 8, n = 0;
    int *rec = malloc(sizeof(int) * (size_t)cap);
#define PUSH(v) do { if (n == cap) rec = realloc(rec, sizeof(int) * (size_t)(cap *= 2)); rec[n++] = (v); } while (0)
    int rank;
    if (level != MPI_COMM_NULL && (MPI_Comm_rank(level, &rank), rank == 0)) {
        int num, index, namelen, size;
        char name[HSPLIT_MAX_HLEVEL_NAME];
        HSPLIT_Comm_get_hlevel_info(level, &num, &index, name, &namelen);
        int *ranks = world_ranks_of(level, &size);
        PUSH(1); PUSH(index); PUSH(num); PUSH(size);
        for (int i = 0; i < size; i++) PUSH(ranks[i]);
        PUSH(namelen);
        for (int i = 0; i < namelen; i++) PUSH(name[i]);
        char object[MPI_MAX_OBJECT_NAME] = "";
        int objlen = 0;
        MPI_Comm_get_name(level, object, &objlen);
        PUSH(objlen);
        for (int i = 0; i < objlen; i++) PUSH(object[i]);
        free(ranks);
    }
    if (roots != MPI_COMM_NULL && (MPI_Comm_rank(roots, &rank), rank == 0)) {
        int size;
        int *ranks = world_ranks_of(roots, &size);
        PUSH(2); PUSH(size);
        for (int i = 0; i < size; i++) PUSH(ranks[i]);
        free(ranks);
    }
#undef PUSH
    *len = n;
    return rec;
}

static int compare_comms(const void *a, const void *b)
{
    const comm_entry *x = a, *y = b;
    return (x->ranks[0] > y->ranks[0]) - (x->ranks[0] < y->ranks[0]);
}

static int compare_roots(const void *a, const void *b)
{
    const int *x = *(int *const *)a, *y = *(int *const *)b;
    for (int i = 1; i <= x[0] && i <= y[0]; i++)
        if (x[i] != y[i]) return (x[i] > y[i]) - (x[i] < y[i]);
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Rank 0 decodes the gathered records of one step. */
static void decode_step(const int *all, int total, step_entry *step)
{
    memset(step, 0, sizeof *step);
    for (int pos = 0; pos < total;) {
        if (all[pos] == 1) {
            comm_entry *c;
            step->comms = realloc(step->comms, sizeof *c * (size_t)(step->ncomms + 1));
            c = &step->comms[step->ncomms++];
            c->index = all[pos + 1];
            c->num_comms = all[pos + 2];
            c->size = all[pos + 3];
            c->ranks = malloc(sizeof(int) * (size_t)c->size);
            memcpy(c->ranks, all + pos + 4, sizeof(int) * (size_t)c->size);
            pos += 4 + c->size;
            int namelen = all[pos++];
            for (int i = 0; i < namelen; i++) c->type[i] = (char)all[pos + i];
            c->type[namelen] = '\0';
            pos += namelen;
            int objlen = all[pos++];
            for (int i = 0; i < objlen; i++) c->name[i] = (char)all[pos + i];
            c->name[objlen] = '\0';
            pos += objlen;
        } else {
            int size = all[pos + 1];
            step->roots = realloc(step->roots, sizeof(int *) * (size_t)(step->nroots + 1));
            int *r = malloc(sizeof(int) * (size_t)(size + 1));
            memcpy(r, all + pos + 1, sizeof(int) * (size_t)(size + 1));
            step->roots[step->nroots++] = r;
            pos += 2 + size;
        }
    }
    qsort(step->comms, (size_t)step->ncomms, sizeof(comm_entry), compare_comms);
    qsort(step->roots, (size_t)step->nroots, sizeof(int *), compare_roots);
}

static int gather_step(MPI_Comm level, MPI_Comm roots, int world_rank, int world_size,
                       step_entry *step)
{
    int len;
    int *rec = step_record(level, roots, &len);
    int *lens = world_rank == 0 ? malloc(sizeof(int) * (size_t)world_size) : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int *displs = NULL, *all = NULL, total = 0;
    if (world_rank == 0) {
        displs = malloc(sizeof(int) * (size_t)world_size);
        for (int i = 0; i < world_size; i++) { displs[i] = total; total += lens[i]; }
        all = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    }
    int rc = MPI_Gatherv(rec, len, MPI_INT, all, lens, displs, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        decode_step(all, total, step);
    free(rec); free(lens); free(displs); free(all);
    return rc;
}

/* ---- printing ---- */

static void print_rank_list(const int *ranks, int n)
{
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1) j++;
        printf("%s%d", i > 0 ? "," : "", ranks[i]);
        if (j > i) printf("%s%d", j > i + 1 ? "-" : ",", ranks[j]);
        i = j + 1;
    }
}

static void print_json(const step_entry *steps, int nsteps, int nprocs)
{
    printf("{\"nprocs\": %d,\n \"steps\": [", nprocs);
    for (int s = 0; s < nsteps; s++) {
        printf("%s\n  {\"comms\": [", s > 0 ? "," : "");
        for (int c = 0; c < steps[s].ncomms; c++) {
            const comm_entry *e = &steps[s].comms[c];
            printf("%s\n    {\"type\": \"%s\", \"index\": %d, \"num_comms\": %d, \"ranks\": [",
                   c > 0 ? "," : "", e->type, e->index, e->num_comms);
            for (int i = 0; i < e->size; i++) printf("%s%d", i > 0 ? "," : "", e->ranks[i]);
            printf("]}");
        }
        printf("],\n   \"roots_comms\": [");
        for (int r = 0; r < steps[s].nroots; r++) {
            const int *roots = steps[s].roots[r];
            printf("%s[", r > 0 ? ", " : "");
            for (int i = 1; i <= roots[0]; i++) printf("%s%d", i > 1 ? "," : "", roots[i]);
            printf("]");
        }
        printf("]}");
    }
    printf("\n ]}\n");
}

/* Does communicator b (a later step) lie inside a (its parent candidate)? */
static int contains(const comm_entry *a, const comm_entry *b)
{
    for (int i = 0; i < a->size; i++)
        if (a->ranks[i] == b->ranks[0]) return 1;
    return 0;
}

static void print_subtree(const step_entry *steps, int nsteps, int s, const comm_entry *parent,
                          char *prefix)
{
    if (s >= nsteps) return;
    int nchildren = 0, seen = 0;
    for (int c = 0; c < steps[s].ncomms; c++)
        nchildren += parent == NULL || contains(parent, &steps[s].comms[c]);
    for (int c = 0; c < steps[s].ncomms; c++) {
        const comm_entry *e = &steps[s].comms[c];
        if (parent != NULL && !contains(parent, e)) continue;
        int last = ++seen == nchildren;
        printf("%s%s %s %d/%d", prefix, last ? "`--" : "|--", e->type, e->index, e->num_comms);
        if (e->name[0] != '\0') printf(" (%s)", e->name);
        printf(", %d process%s: ", e->size, e->size == 1 ? "" : "es");
        print_rank_list(e->ranks, e->size);
        printf("\n");
        size_t len = strlen(prefix);
        strcat(prefix, last ? "    " : "|   ");
        print_subtree(steps, nsteps, s + 1, e, prefix);
        prefix[len] = '\0';
    }
}

static void print_tree(const step_entry *steps, int nsteps, int nprocs)
{
    printf("hsplit hierarchy of MPI_COMM_WORLD, %d process%s, %d step%s\n\n", nprocs,
           nprocs == 1 ? "" : "es", nsteps, nsteps == 1 ? "" : "s");
    if (nsteps == 0) /* one node, and no level below it: why, and what to do */
        printf("No level below MPI_COMM_WORLD: its processes are on one node and are not\n"
               "bound, or all bound alike (an unbound process never goes below Machine).\n"
               "Bind them, e.g. mpiexec --bind-to core (Open MPI) or -bind-to core (MPICH),\n"
               "or emulate bindings with --bind core.\n\n");
    printf("%-5s %-24s %-8s %-16s %s\n", "step", "levels", "comms", "sizes", "roots comms (sizes)");
    for (int s = 0; s < nsteps; s++) {
        char levels[256] = "", sizes[64] = "", roots[64] = "";
        int min = nprocs, max = 0, rmin = nprocs, rmax = 0;
        for (int c = 0; c < steps[s].ncomms; c++) {
            const comm_entry *e = &steps[s].comms[c];
            if (strstr(levels, e->type) == NULL && strlen(levels) + strlen(e->type) + 2 < sizeof levels)
                snprintf(levels + strlen(levels), sizeof levels - strlen(levels), "%s%s",
                         levels[0] ? "+" : "", e->type);
            if (e->size < min) min = e->size;
            if (e->size > max) max = e->size;
        }
        for (int r = 0; r < steps[s].nroots; r++) {
            if (steps[s].roots[r][0] < rmin) rmin = steps[s].roots[r][0];
            if (steps[s].roots[r][0] > rmax) rmax = steps[s].roots[r][0];
        }
        snprintf(sizes, sizeof sizes, min == max ? "%d" : "%d-%d", min, max);
        if (steps[s].nroots == 0) snprintf(roots, sizeof roots, "0");
        else snprintf(roots, sizeof roots, rmin == rmax ? "%d (%d)" : "%d (%d-%d)",
                      steps[s].nroots, rmin, rmax);
        printf("%-5d %-24s %-8d %-16s %s\n", s + 1, levels, steps[s].ncomms, sizes, roots);
    }
    printf("\nMPI_COMM_WORLD, %d process%s\n", nprocs, nprocs == 1 ? "" : "es");
    char prefix[1024] = "";
    print_subtree(steps, nsteps, 0, NULL, prefix);
}

static void free_steps(step_entry *steps, int nsteps)
{
    for (int s = 0; s < nsteps; s++) {
        for (int c = 0; c < steps[s].ncomms; c++) free(steps[s].comms[c].ranks);
        for (int r = 0; r < steps[s].nroots; r++) free(steps[s].roots[r]);
        free(steps[s].comms);
        free(steps[s].roots);
    }
    free(steps);
}

static int report_error(int rc, int world_rank)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    if (world_rank == 0)
        fprintf(stderr, "hsplit-info: %s\n", text);
    return 1;
}

static int show_hierarchy(const options *opt, int world_rank, int world_size)
{
    step_entry *steps = NULL;
    int nsteps = 0, status = 0;
    MPI_Comm parent = MPI_COMM_WORLD;
    for (;;) {
        MPI_Comm level = MPI_COMM_NULL, roots = MPI_COMM_NULL;
        int rc = MPI_SUCCESS;
        if (parent != MPI_COMM_NULL)
            rc = HSPLIT_Comm_hsplit_with_roots(parent, MPI_INFO_NULL, &level, &roots);
        int failed = rc != MPI_SUCCESS, any_failed, mine = level != MPI_COMM_NULL, any;
        MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any_failed) {
            status = failed ? report_error(rc, world_rank) : 1;
            break;
        }
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            if (world_rank == 0) steps = realloc(steps, sizeof *steps * (size_t)(nsteps + 1));
            gather_step(level, roots, world_rank, world_size, world_rank == 0 ? &steps[nsteps] : NULL);
            nsteps++;
        }
        if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
        if (parent != MPI_COMM_WORLD && parent != MPI_COMM_NULL) MPI_Comm_free(&parent);
        parent = level;
        if (!any) break;
    }
    if (parent != MPI_COMM_WORLD && parent != MPI_COMM_NULL) MPI_Comm_free(&parent);
    if (world_rank == 0 && status == 0) {
        if (opt->json) print_json(steps, nsteps, world_size);
        else print_tree(steps, nsteps, world_size);
    }
    if (world_rank == 0) free_steps(steps, nsteps);
    return status;
}

static int show_min_hlevel(const char *list, int world_rank)
{
    int n = 1;
    for (const char *p = list; *p; p++) n += *p == ',';
    int *ranks = malloc(sizeof(int) * (size_t)n);
    char *copy = strdup(list), *save = NULL;
    int count = 0, bad = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long v = strtol(tok, &end, 10);
        bad |= *end != '\0' || end == tok;
        ranks[count++] = (int)v;
    }
    free(copy);
    if (bad || count == 0) {
        if (world_rank == 0) fprintf(stderr, "hsplit-info: --min-hlevel wants r1,r2,...\n");
        free(ranks);
        return 2;
    }
    char type[HSPLIT_MAX_HLEVEL_NAME] = "";
    int len, rc = HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, count, ranks, type, &len);
    int status = rc != MPI_SUCCESS ? report_error(rc, world_rank) : 0;
    /* The first listed rank's answer, printed by rank 0. */
    if (status == 0 && ranks[0] != 0) {
        if (world_rank == ranks[0]) MPI_Send(type, HSPLIT_MAX_HLEVEL_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        if (world_rank == 0) MPI_Recv(type, HSPLIT_MAX_HLEVEL_NAME, MPI_CHAR, ranks[0], 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (status == 0 && world_rank == 0) printf("%s\n", type);
    free(ranks);
    return status;
}

/* ---- --settings ---- */

static const char *source_name(int source)
{
    switch (source) {
    case HSPLIT_SOURCE_ENVIRONMENT: return "environment";
    case HSPLIT_SOURCE_COMM_INFO: return "comm_info";
    case HSPLIT_SOURCE_SET_COLL_INFO: return "set_coll_info";
    default: return "default";
    }
}

/* One string of the library into a new buffer: asked for its size first. */
typedef int (*string_getter)(int index, char *buffer, int *len);

static char *fetch(int index, string_getter get)
{
    int len = 0;
    if (get(index, NULL, &len) != MPI_SUCCESS || len < 1) return NULL;
    char *text = malloc((size_t)len);
    if (text != NULL && get(index, text, &len) != MPI_SUCCESS) {
        free(text);
        text = NULL;
    }
    return text;
}

static int get_name(int i, char *b, int *n)
{ return HSPLIT_Coll_setting_describe(i, b, n, NULL, NULL, NULL, NULL, NULL, NULL); }
static int get_default(int i, char *b, int *n)
{ return HSPLIT_Coll_setting_describe(i, NULL, NULL, b, n, NULL, NULL, NULL, NULL); }
static int get_allowed(int i, char *b, int *n)
{ return HSPLIT_Coll_setting_describe(i, NULL, NULL, NULL, NULL, b, n, NULL, NULL); }
static int get_description(int i, char *b, int *n)
{ return HSPLIT_Coll_setting_describe(i, NULL, NULL, NULL, NULL, NULL, NULL, b, n); }
/* the value MPI_COMM_WORLD's collectives would take (hsplit-info makes no
   hints): its info keys, the environment, or the default */
static int get_value(int i, char *b, int *n)
{ return HSPLIT_Coll_setting_get(MPI_COMM_WORLD, i, b, n, NULL, NULL); }

/* A CSV field (RFC 4180): quoted, inner quotes doubled. */
static void print_csv_field(const char *text, const char *after)
{
    putchar('"');
    for (const char *p = text; *p; p++) {
        if (*p == '"') putchar('"');
        putchar(*p);
    }
    printf("\"%s", after);
}

/* text, cut into lines of at most width characters at spaces, each indented. */
static void print_wrapped(const char *text, int indent, int width)
{
    const char *p = text;
    while (*p != '\0') {
        size_t n = strlen(p);
        if (n > (size_t)width) {
            n = (size_t)width;
            while (n > 0 && p[n] != ' ') n--;
            if (n == 0) n = strcspn(p, " "); /* one word longer than a line */
        }
        printf("%*s%.*s\n", indent, "", (int)n, p);
        p += n;
        while (*p == ' ') p++;
    }
}

typedef struct {
    char *name, *value, *fallback, *allowed, *description;
    int source, valid;
} setting_row;

/* Rank 0 prints every setting; exit status 1 when a value is malformed
   (the collectives would return MPI_ERR_ARG), 1 when the library fails. */
static int show_settings(int csv, int world_rank)
{
    if (world_rank != 0) return 0;
    int count = 0, malformed = 0, failed = 0;
    int rc = HSPLIT_Coll_setting_count(&count);
    if (rc != MPI_SUCCESS) return report_error(rc, world_rank);
    setting_row *rows = calloc((size_t)(count > 0 ? count : 1), sizeof *rows);
    if (rows == NULL) return report_error(MPI_ERR_NO_MEM, world_rank);
    for (int i = 0; i < count; i++) {
        setting_row *r = &rows[i];
        r->name = fetch(i, get_name);
        r->value = fetch(i, get_value);
        r->fallback = fetch(i, get_default);
        r->allowed = fetch(i, get_allowed);
        r->description = fetch(i, get_description);
        rc = HSPLIT_Coll_setting_get(MPI_COMM_WORLD, i, NULL, NULL, &r->source, &r->valid);
        failed |= rc != MPI_SUCCESS || !r->name || !r->value || !r->fallback || !r->allowed ||
                  !r->description;
        malformed |= rc == MPI_SUCCESS && !r->valid;
    }
    if (failed) {
        report_error(rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM, world_rank);
    } else if (csv) {
        printf("name,value,source,valid,default,allowed,description\n");
        for (int i = 0; i < count; i++) {
            const setting_row *r = &rows[i];
            print_csv_field(r->name, ",");
            print_csv_field(r->value, ",");
            printf("%s,%d,", source_name(r->source), r->valid);
            print_csv_field(r->fallback, ",");
            print_csv_field(r->allowed, ",");
            print_csv_field(r->description, "\n");
        }
    } else {
        printf("hsplit collective settings (%d), as MPI_COMM_WORLD's collectives take them\n\n",
               count);
        printf("%-26s %-14s %-13s %s\n", "setting", "value", "from", "default");
        for (int i = 0; i < count; i++) {
            const setting_row *r = &rows[i];
            /* an empty value, given, means the default: show that it is there */
            const char *shown = r->value[0] != '\0' ? r->value : "\"\"";
            printf("%-26s %-14s %-13s %s%s\n", r->name, shown, source_name(r->source),
                   r->fallback, r->valid ? "" : "   MALFORMED");
        }
        printf("\n");
        for (int i = 0; i < count; i++) {
            const setting_row *r = &rows[i];
            printf("%s\n", r->name);
            if (!r->valid)
                printf("    MALFORMED: \"%s\" is not %s: the collectives return "
                       "MPI_ERR_ARG\n", r->value, r->allowed);
            printf("    values: %s\n", r->allowed);
            print_wrapped(r->description, 4, 74);
        }
    }
    for (int i = 0; i < count; i++) {
        free(rows[i].name); free(rows[i].value); free(rows[i].fallback);
        free(rows[i].allowed); free(rows[i].description);
    }
    free(rows);
    return failed || malformed ? 1 : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world_rank, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    options opt;
    int parsed = parse_options(argc, argv, &opt), status;
    if (parsed == 2) {
        if (world_rank == 0) print_version();
        MPI_Finalize();
        return 0;
    }
    if (parsed != 0) {
        if (world_rank == 0) usage(parsed > 0 ? stdout : stderr);
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }
    if (opt.topology) setenv("HSPLIT_TOPOLOGY", opt.topology, 1);
    if (opt.nodes) setenv("HSPLIT_NODES", opt.nodes, 1);
    if (opt.bind) setenv("HSPLIT_BIND", opt.bind, 1);
    if (opt.network) setenv("HSPLIT_NETWORK", opt.network, 1);
    if (opt.settings)
        status = show_settings(opt.csv, world_rank);
    else if (opt.min_hlevel)
        status = show_min_hlevel(opt.min_hlevel, world_rank);
    else
        status = show_hierarchy(&opt, world_rank, world_size);
    MPI_Finalize();
    return status;
}
