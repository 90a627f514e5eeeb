/* SPDX-License-Identifier: BSD-3-Clause */
/* Hostile inputs of HSPLIT_NETWORK, SLURM_TOPOLOGY_ADDR(_PATTERN) and
   HSPLIT_TOPOLOGY: every process gets the expected error class from every
   entry point, through the error handler, quickly (a hang or a crash fails),
   with an error string holding each fragment given. The inputs that cannot
   be files of the source tree are made here, after MPI_Init, by rank 0 (all
   processes run on one machine), and removed at the end:

     --guard VAR=VALUE      VAR set with its value ending on the last byte of
                            a page followed by an inaccessible one: reading
                            past the value's end crashes
     --fifo VAR             VAR names a FIFO (opening it to read would block)
     --sparse VAR BYTES     VAR names a file of BYTES zero bytes (sparse)
     --conf-line VAR BYTES  VAR names a valid topology.conf for one node whose
                            second line, a comment, has BYTES bytes with its
                            end of line
     --pad-xml VAR SRC BYTES  VAR names a copy of the XML file SRC followed by
                            comments and spaces up to BYTES bytes (still a
                            valid XML file)

   Usage: test_input_limits [OPTION...] NETWORK|TOPOLOGY FRAGMENT...
          test_input_limits [OPTION...] OK   (inputs at the limits: accepted) */
#define _XOPEN_SOURCE 700 /* putenv */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS (glibc) */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test_util.h"

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

enum { MAX_MADE = 8 };

typedef struct {
    char dir[64];           /* rank 0's private directory, or ""  */
    char *made[MAX_MADE];   /* files made in dir (rank 0)         */
    int nmade;
    void *guard;            /* the two pages of --guard, or NULL  */
    size_t guard_len;
    char guard_var[128];
} inputs;

static void fail_setup(const char *what)
{
    fprintf(stderr, "test_input_limits: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* A new path in rank 0's directory (made on first use). */
static char *new_path(inputs *in, const char *name)
{
    if (in->dir[0] == '\0') {
        snprintf(in->dir, sizeof in->dir, "/tmp/hsplit_limits_XXXXXX");
        if (mkdtemp(in->dir) == NULL) fail_setup("mkdtemp failed");
    }
    if (in->nmade == MAX_MADE) fail_setup("too many inputs");
    char *path = malloc(strlen(in->dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", in->dir, name);
    in->made[in->nmade++] = path;
    return path;
}

/* Writes n copies of byte c to f. */
static void write_bytes(FILE *f, int c, long n)
{
    char chunk[4096];
    memset(chunk, c, sizeof chunk);
    for (; n > 0; n -= (long)sizeof chunk)
        if (fwrite(chunk, 1, n < (long)sizeof chunk ? (size_t)n : sizeof chunk, f) == 0)
            fail_setup("write failed");
}

/* Rank 0 makes the input of option opt (args: its arguments); every rank
   sets var to the path. */
static void make_file(inputs *in, int rank, const char *opt, char **args, const char *var)
{
    char path[256] = "";
    if (rank == 0) {
        char *p = new_path(in, var);
        FILE *f = NULL;
        if (strcmp(opt, "--fifo") == 0) {
            if (mkfifo(p, 0600) != 0) fail_setup("mkfifo failed");
        } else if (strcmp(opt, "--sparse") == 0) {
            f = fopen(p, "wb");
            if (f == NULL || ftruncate(fileno(f), (off_t)atol(args[1])) != 0)
                fail_setup("cannot make the sparse file");
        } else if (strcmp(opt, "--conf-line") == 0) {
            const char *first = "SwitchName=s0 Nodes=node[0-3]\n";
            long bytes = atol(args[1]);
            f = fopen(p, "wb");
            if (f == NULL || bytes < 3) fail_setup("cannot make the topology.conf");
            fputs(first, f);
            fputc('#', f);
            write_bytes(f, 'x', bytes - 2);
            fputc('\n', f);
        } else { /* --pad-xml: comments (libxml2 refuses a text node of
                     10 MB), then spaces */
            FILE *src = fopen(args[1], "rb");
            f = fopen(p, "wb");
            if (src == NULL || f == NULL) fail_setup("cannot copy the XML file");
            long len = 0, bytes = atol(args[2]);
            int c;
            while ((c = fgetc(src)) != EOF) {
                fputc(c, f);
                len++;
            }
            fclose(src);
            for (; bytes - len > 4096 + 8; len += 4096) {
                fputs("<!--", f);
                write_bytes(f, 'x', 4096 - 8);
                fputs("-->\n", f);
            }
            write_bytes(f, ' ', bytes - len);
        }
        if (f != NULL && fclose(f) != 0) fail_setup("cannot write an input");
        snprintf(path, sizeof path, "%s", p);
    }
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    setenv(var, path, 1);
}

/* --guard VAR=VALUE: the environment holds this very string (putenv), its
   final NUL the last byte before an inaccessible page. */
static void guard_env(inputs *in, const char *assignment)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = strlen(assignment) + 1;
    if (len > page) fail_setup("--guard value too long");
    in->guard_len = 2 * page;
    in->guard = mmap(NULL, in->guard_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    if (in->guard == MAP_FAILED || mprotect((char *)in->guard + page, page, PROT_NONE) != 0)
        fail_setup("cannot map the guard page");
    char *at = (char *)in->guard + page - len;
    memcpy(at, assignment, len);
    snprintf(in->guard_var, sizeof in->guard_var, "%.*s",
             (int)strcspn(assignment, "="), assignment);
    if (putenv(at) != 0) fail_setup("putenv failed");
}

static void remove_inputs(inputs *in)
{
    if (in->guard != NULL) {
        unsetenv(in->guard_var); /* before its memory goes */
        munmap(in->guard, in->guard_len);
    }
    for (int i = 0; i < in->nmade; i++) {
        unlink(in->made[i]);
        free(in->made[i]);
    }
    if (in->dir[0] != '\0') rmdir(in->dir);
}

/* The inputs are within the limits: every entry point works. */
static void accepted(int rank)
{
    MPI_Comm out = MPI_COMM_NULL, roots = MPI_COMM_NULL;
    int len, size, value = rank == 0 ? 7 : 0;
    char type[HSPLIT_MAX_HLEVEL_NAME];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(HSPLIT_Comm_split_type(MPI_COMM_WORLD, HSPLIT_COMM_TYPE_PHYSICAL_TOPOLOGY, 0,
                                     MPI_INFO_NULL, &out), MPI_SUCCESS);
    if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
    CHECK_INT(HSPLIT_Comm_hsplit_with_roots(MPI_COMM_WORLD, MPI_INFO_NULL, &out, &roots),
              MPI_SUCCESS);
    if (out != MPI_COMM_NULL) MPI_Comm_free(&out);
    if (roots != MPI_COMM_NULL) MPI_Comm_free(&roots);
    int other = size - 1 - rank;
    CHECK_INT(HSPLIT_Comm_get_min_hlevel(MPI_COMM_WORLD, 1, &other, type, &len), MPI_SUCCESS);
    CHECK_INT(HSPLIT_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_INT(value, 7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    inputs in = {0};
    int a = 1;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
        const char *opt = argv[a];
        int nargs = strcmp(opt, "--guard") == 0 || strcmp(opt, "--fifo") == 0 ? 1
                    : strcmp(opt, "--pad-xml") == 0 ? 3 : 2;
        if (strcmp(opt, "--guard") != 0 && strcmp(opt, "--fifo") != 0 &&
            strcmp(opt, "--sparse") != 0 && strcmp(opt, "--conf-line") != 0 &&
            strcmp(opt, "--pad-xml") != 0)
            fail_setup("unknown option");
        if (a + nargs >= argc) fail_setup("missing option argument");
        if (strcmp(opt, "--guard") == 0) guard_env(&in, argv[a + 1]);
        else make_file(&in, rank, opt, &argv[a + 1], argv[a + 1]);
        a += nargs;
    }
    int expected = -1;
    if (a < argc && strcmp(argv[a], "NETWORK") == 0) expected = HSPLIT_ERR_NETWORK;
    if (a < argc && strcmp(argv[a], "TOPOLOGY") == 0) expected = HSPLIT_ERR_TOPOLOGY;
    if (a < argc && strcmp(argv[a], "OK") == 0) expected = 0;
    if (expected < 0) fail_setup("expected NETWORK, TOPOLOGY or OK");
    int first_fragment = a + 1;
    /* the collective builds its hierarchy (and meets the error) even on
       fewer than HSPLIT_COLL_MIN_PROCS processes */
    setenv("HSPLIT_COLL", "on", 1);
    if (expected == 0) {
        accepted(rank);
        MPI_Barrier(MPI_COMM_WORLD);
        remove_inputs(&in);
        return test_finish();
    }

    int expected_class;
    HSPLIT_Error_class(expected, &expected_class);
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
        for (int f = first_fragment; f < argc; f++)
            CHECK(strstr(text, argv[f]) != NULL, "call %d: string \"%s\" lacks \"%s\"", i, text,
                  argv[f]);
    }
    CHECK(out == MPI_COMM_WORLD && roots == MPI_COMM_WORLD, "outputs written on error");
    CHECK(first_fragment < argc, "no fragment to look for");
    MPI_Barrier(MPI_COMM_WORLD); /* every process is done with the inputs */
    remove_inputs(&in);
    return test_finish();
}
