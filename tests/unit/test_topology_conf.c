/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests without MPI: Slurm topology.conf parsing (c/src/topology_conf.c).
   Usage: test_topology_conf NTW24E5_CONF (the file tests/network/ntw24e5.conf)
          test_topology_conf --switches N (a generated file of N switches: the
          parse must be linear; its test has a short timeout)
   Expectations are written by hand from the files' text. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hostlist.h"
#include "topology_conf.h"
#include "unit_check.h"

/* The switch names from the top down to the switch holding node, joined with
   '.', or "-" if the node is not in the file. */
static void node_path(const hsplit_topology_conf *conf, const char *node, char *out, size_t n)
{
    int i = hsplit_topology_conf_find_node(conf, node), path[HSPLIT_MAX_SWITCH_LEVELS];
    if (i < 0) {
        snprintf(out, n, "-");
        return;
    }
    int len = hsplit_topology_conf_path(conf, conf->nodes[i].leaf, path);
    out[0] = '\0';
    for (int k = 0; k < len; k++)
        snprintf(out + strlen(out), n - strlen(out), "%s%s", k ? "." : "",
                 conf->switches[path[k]].name);
}

static void check_path(const hsplit_topology_conf *conf, const char *node, const char *expected)
{
    char got[256];
    node_path(conf, node, got, sizeof got);
    CHECK(strcmp(got, expected) == 0, "path of %s: \"%s\", expected \"%s\"", node, got, expected);
}

static void check_switch(const hsplit_topology_conf *conf, int i, const char *name, int line,
                         int parent, int depth)
{
    if (i >= conf->nswitches) {
        CHECK(0, "no switch %d", i);
        return;
    }
    const hsplit_conf_switch *s = &conf->switches[i];
    CHECK(strcmp(s->name, name) == 0 && s->line == line && s->parent == parent &&
          s->depth == depth, "switch %d: %s line %d parent %d depth %d, expected %s %d %d %d", i,
          s->name, s->line, s->parent, s->depth, name, line, parent, depth);
}

/* A text that must be refused with status, and a message holding each of
   the fragments (NULL-terminated). */
static void check_error(const char *text, int status, const char *const *fragments)
{
    hsplit_topology_conf conf;
    char msg[512];
    int rc = hsplit_topology_conf_parse(text, "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == status, "status %d, expected %d, for:\n%s", rc, status, text);
    CHECK(conf.nswitches == 0 && conf.nnodes == 0 && conf.switches == NULL,
          "conf not left empty on error");
    for (const char *const *f = fragments; *f != NULL; f++)
        CHECK(strstr(msg, *f) != NULL, "message \"%s\" lacks \"%s\"", msg, *f);
}

#define FRAGMENTS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_ntw24e5(const char *path)
{
    hsplit_topology_conf conf;
    char msg[512];
    int rc = hsplit_topology_conf_load(path, &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK, "%s: status %d: %s", path, rc, msg);
    if (rc != HSPLIT_CONF_OK) return;
    CHECK(conf.nswitches == 5 && conf.nnodes == 24, "%d switches, %d nodes", conf.nswitches,
          conf.nnodes);
    /* the definitions are on lines 3 to 7, after two comment lines */
    check_switch(&conf, 0, "top", 3, -1, 0);
    check_switch(&conf, 1, "leaf0", 4, 0, 1);
    check_switch(&conf, 2, "leaf1", 5, 0, 1);
    check_switch(&conf, 3, "leaf2", 6, 0, 1);
    check_switch(&conf, 4, "leaf3", 7, 0, 1);
    const char *expected_leaf[24];
    for (int n = 0; n < 24; n++)
        expected_leaf[n] = n < 12 ? "top.leaf0" : n < 18 ? "top.leaf1" : n < 22 ? "top.leaf2"
                                                                          : "top.leaf3";
    for (int n = 0; n < 24; n++) {
        char name[16];
        snprintf(name, sizeof name, "node%d", n);
        check_path(&conf, name, expected_leaf[n]);
    }
    check_path(&conf, "node24", "-");
    check_path(&conf, "node01", "-"); /* no padding in node[0-11] */
    hsplit_topology_conf_free(&conf);
}

static void test_formats(void)
{
    /* comments, blank lines, case-insensitive keys, other keys, tabs, CRLF,
       a switch defined after the one that lists it, padded hostlists */
    const char *text =
        "# three levels\n"
        "\n"
        "switchname=core\tSWITCHES=agg[0-1]   LinkSpeed=900 # trailing comment\r\n"
        "   SwitchName=agg0 Switches=edge[00-01]\n"
        "SwitchName=agg1 switches=edge02,edge03\n"
        "#SwitchName=ignored Nodes=x\n"
        "SwitchName=edge00 Nodes=cn[001-002]\n"
        "SwitchName=edge01 nodes=cn[003-004],gpu1\n"
        "SwitchName=edge02 Nodes=cn[005-007] LinkSpeed=100\n"
        "SwitchName=edge03 Nodes=cn008";
    hsplit_topology_conf conf;
    char msg[512];
    int rc = hsplit_topology_conf_parse(text, "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK, "status %d: %s", rc, msg);
    if (rc != HSPLIT_CONF_OK) return;
    CHECK(conf.nswitches == 7 && conf.nnodes == 9, "%d switches, %d nodes", conf.nswitches,
          conf.nnodes);
    check_switch(&conf, 0, "core", 3, -1, 0);
    check_switch(&conf, 1, "agg0", 4, 0, 1);
    check_switch(&conf, 2, "agg1", 5, 0, 1);
    check_switch(&conf, 3, "edge00", 7, 1, 2);
    check_switch(&conf, 6, "edge03", 10, 2, 2);
    check_path(&conf, "cn001", "core.agg0.edge00");
    check_path(&conf, "cn004", "core.agg0.edge01");
    check_path(&conf, "gpu1", "core.agg0.edge01");
    check_path(&conf, "cn006", "core.agg1.edge02");
    check_path(&conf, "cn008", "core.agg1.edge03");
    check_path(&conf, "cn009", "-");
    check_path(&conf, "x", "-");
    /* nodes are kept sorted by name, each with the line of its switch */
    int sorted = 1;
    for (int i = 1; i < conf.nnodes; i++) sorted &= strcmp(conf.nodes[i - 1].name, conf.nodes[i].name) < 0;
    CHECK(sorted, "nodes not sorted");
    int g = hsplit_topology_conf_find_node(&conf, "gpu1");
    CHECK(g >= 0 && conf.nodes[g].line == 8 && conf.nodes[g].leaf == 4, "gpu1: line %d leaf %d",
          g >= 0 ? conf.nodes[g].line : -1, g >= 0 ? conf.nodes[g].leaf : -1);
    hsplit_topology_conf_free(&conf);

    /* a switch with nodes and child switches; a forest of two trees */
    rc = hsplit_topology_conf_parse("SwitchName=top Switches=a Nodes=n0\nSwitchName=a Nodes=n1\n"
                                    "SwitchName=t2 Nodes=n2\n", "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK, "status %d: %s", rc, msg);
    check_path(&conf, "n0", "top");
    check_path(&conf, "n1", "top.a");
    check_path(&conf, "n2", "t2");
    hsplit_topology_conf_free(&conf);

    /* an empty file and a file of comments: no switches, no nodes */
    rc = hsplit_topology_conf_parse("", "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK && conf.nswitches == 0 && conf.nnodes == 0, "empty text");
    hsplit_topology_conf_free(&conf);
    rc = hsplit_topology_conf_parse("# nothing\n\n   \n", "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK && conf.nswitches == 0, "comments only");
    hsplit_topology_conf_free(&conf);

    /* the deepest tree allowed: HSPLIT_MAX_SWITCH_LEVELS switches on the path */
    char deep[2048] = "";
    for (int i = 0; i < HSPLIT_MAX_SWITCH_LEVELS - 1; i++)
        snprintf(deep + strlen(deep), sizeof deep - strlen(deep), "SwitchName=s%d Switches=s%d\n",
                 i, i + 1);
    snprintf(deep + strlen(deep), sizeof deep - strlen(deep), "SwitchName=s%d Nodes=n\n",
             HSPLIT_MAX_SWITCH_LEVELS - 1);
    rc = hsplit_topology_conf_parse(deep, "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK, "%d levels: status %d: %s", HSPLIT_MAX_SWITCH_LEVELS, rc, msg);
    int path[HSPLIT_MAX_SWITCH_LEVELS];
    int n = hsplit_topology_conf_find_node(&conf, "n");
    CHECK(n >= 0 && hsplit_topology_conf_path(&conf, conf.nodes[n].leaf, path) ==
          HSPLIT_MAX_SWITCH_LEVELS && path[0] == 0, "deep path");
    hsplit_topology_conf_free(&conf);
}

static void test_errors(void)
{
    check_error("SwitchName=s0 Nodes=n0\n\nSwitchName=s1 Nodes\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("t.conf line 3:", "expected KEY=VALUE, found 'Nodes'"));
    check_error("SwitchName=s0 =n0\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "found '=n0'"));
    check_error("SwitchName=s0 Nodes=\n", HSPLIT_CONF_SYNTAX, FRAGMENTS("line 1:", "'Nodes='"));
    check_error("# c\nNodes=n[0-3] SwitchName=s0\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 2:", "expected SwitchName=NAME first"));
    check_error("BlockName=b1 Nodes=n[0-3]\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "topology/tree"));
    check_error("SwitchName=s0 LinkSpeed=10\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "switch 's0' has neither Nodes= nor Switches="));
    check_error("SwitchName=s0 Nodes=n[0-3\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "Nodes=n[0-3 is not a hostlist expression"));
    check_error("SwitchName=top Switches=s[1-0]\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "Switches=s[1-0] is not a hostlist"));
    check_error("SwitchName=s[0-1] Nodes=n0\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "SwitchName must be one name"));
    check_error("SwitchName=s0 Nodes=n0 nodes=n1\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 1:", "nodes is given twice"));
    /* a syntax error is found even after a duplicate: lines first */
    check_error("SwitchName=s0 Nodes=n0\nSwitchName=s0 Nodes=n1\nbad\n", HSPLIT_CONF_SYNTAX,
                FRAGMENTS("line 3:"));

    check_error("SwitchName=top Switches=s0\nSwitchName=s0 Nodes=n0\nSwitchName=s1 Nodes=n1\n"
                "SwitchName=s0 Nodes=n2\nSwitchName=s1 Nodes=n3\n", HSPLIT_CONF_DUPLICATE,
                FRAGMENTS("t.conf line 4:", "switch 's0' is defined twice (first at line 2)"));
    check_error("SwitchName=top Switches=leaf[0-2]\nSwitchName=leaf0 Nodes=n0\n"
                "SwitchName=leaf1 Nodes=n1\n", HSPLIT_CONF_UNKNOWN_SWITCH,
                FRAGMENTS("line 1:", "switch 'top' lists switch 'leaf2', which is not defined"));
    check_error("SwitchName=a Switches=c\nSwitchName=b Switches=c\nSwitchName=c Nodes=n0\n",
                HSPLIT_CONF_TWO_PARENTS,
                FRAGMENTS("line 2:", "switch 'c' is listed under two switches: 'a' (line 1) and 'b'"));
    check_error("SwitchName=a Switches=b,b\nSwitchName=b Nodes=n0\n", HSPLIT_CONF_TWO_PARENTS,
                FRAGMENTS("line 1:", "'b' is listed under two switches"));

    /* cycles: reported at the line of the cycle's first switch in the file */
    check_error("SwitchName=top Nodes=n[0-1]\nSwitchName=a Switches=b Nodes=n2\n"
                "SwitchName=b Switches=a Nodes=n3\n", HSPLIT_CONF_CYCLE,
                FRAGMENTS("t.conf line 2:", "switch 'a' is its own ancestor", "(a -> b -> a)"));
    check_error("SwitchName=x Switches=x\n", HSPLIT_CONF_CYCLE,
                FRAGMENTS("line 1:", "'x' is its own ancestor", "(x -> x)"));
    check_error("SwitchName=top Switches=p\nSwitchName=r Switches=p Nodes=n1\n"
                "SwitchName=q Switches=r\nSwitchName=p Switches=q\n", HSPLIT_CONF_TWO_PARENTS,
                FRAGMENTS("line 2:", "'p' is listed under two switches"));
    check_error("SwitchName=p Switches=q\nSwitchName=r Switches=p Nodes=n1\n"
                "SwitchName=q Switches=r\n", HSPLIT_CONF_CYCLE,
                FRAGMENTS("line 1:", "(p -> r -> q -> p)"));

    char deep[2048] = "";
    for (int i = 0; i < HSPLIT_MAX_SWITCH_LEVELS; i++)
        snprintf(deep + strlen(deep), sizeof deep - strlen(deep), "SwitchName=s%d Switches=s%d\n",
                 i, i + 1);
    snprintf(deep + strlen(deep), sizeof deep - strlen(deep), "SwitchName=s%d Nodes=n\n",
             HSPLIT_MAX_SWITCH_LEVELS);
    check_error(deep, HSPLIT_CONF_TOO_DEEP, FRAGMENTS("line 17:", "at most 16 switch levels"));

    check_error("SwitchName=top Switches=a,b\nSwitchName=a Nodes=n[1-3]\n"
                "SwitchName=b Nodes=n[3-4]\n", HSPLIT_CONF_NODE_TWICE,
                FRAGMENTS("line 3:", "node 'n3' is listed twice (also at line 2)"));
    check_error("SwitchName=a Nodes=n1,m,n1\n", HSPLIT_CONF_NODE_TWICE,
                FRAGMENTS("line 1:", "node 'n1' is listed twice"));
}

static void test_load_errors(void)
{
    hsplit_topology_conf conf;
    char msg[512];
    int rc = hsplit_topology_conf_load("/nonexistent/topology.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_UNREADABLE, "missing file: status %d", rc);
    CHECK(strstr(msg, "/nonexistent/topology.conf: cannot read the file (no such file)") != NULL,
          "message \"%s\"", msg);
    rc = hsplit_topology_conf_load("/", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_UNREADABLE && strstr(msg, "/: cannot read the file") != NULL,
          "directory: status %d, \"%s\"", rc, msg);
    /* a message buffer too small is cut, never overrun */
    char tiny[12];
    memset(tiny, 'x', sizeof tiny);
    rc = hsplit_topology_conf_parse("junk\n", "a-long-file-name.conf", &conf, tiny, 8);
    CHECK(rc == HSPLIT_CONF_SYNTAX && strlen(tiny) == 7 && tiny[8] == 'x', "tiny buffer");
}

/* A text that must be refused with status by hsplit_topology_conf_load (the
   file at path), with a message holding each of the fragments. */
static void check_load_error(const char *path, int status, const char *const *fragments)
{
    hsplit_topology_conf conf;
    char msg[512] = "";
    int rc = hsplit_topology_conf_load(path, &conf, msg, sizeof msg);
    CHECK(rc == status, "%s: status %d, expected %d (%s)", path, rc, status, msg);
    CHECK(conf.nswitches == 0 && conf.nnodes == 0 && conf.switches == NULL,
          "conf not left empty on error");
    for (const char *const *f = fragments; *f != NULL; f++)
        CHECK(strstr(msg, *f) != NULL, "message \"%s\" lacks \"%s\"", msg, *f);
}

/* n copies of c, NUL-terminated; to free. */
static char *repeat_char(int c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* The limits of topology_conf.h, each at its boundary: what is exactly at
   the limit is accepted, one more is refused with a message naming it. */
static void test_limits(void)
{
    hsplit_topology_conf conf;
    char msg[512], *text, *pad;
    int rc;
    /* HSPLIT_CONF_MAX_LINE: a comment line of exactly that many bytes with
       its '\n'; one more byte is refused at its line */
    pad = repeat_char('x', HSPLIT_CONF_MAX_LINE - 2);
    text = malloc(HSPLIT_CONF_MAX_LINE + 64);
    sprintf(text, "SwitchName=s0 Nodes=n0\n#%s\nSwitchName=s1 Nodes=n1\n", pad);
    rc = hsplit_topology_conf_parse(text, "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK && conf.nswitches == 2, "line of %d bytes: status %d: %s",
          HSPLIT_CONF_MAX_LINE, rc, msg);
    hsplit_topology_conf_free(&conf);
    sprintf(text, "SwitchName=s0 Nodes=n0\n#%sx\nSwitchName=s1 Nodes=n1\n", pad);
    check_error(text, HSPLIT_CONF_TOO_LARGE,
                FRAGMENTS("t.conf line 2:", "the line has 65537 bytes, more than the 65536 "
                          "allowed (the limit HSPLIT_CONF_MAX_LINE)"));
    /* the last line, without '\n': one byte more allowed */
    sprintf(text, "SwitchName=s0 Nodes=n0\n#%sx", pad);
    rc = hsplit_topology_conf_parse(text, "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK, "last line of %d bytes: status %d", HSPLIT_CONF_MAX_LINE, rc);
    hsplit_topology_conf_free(&conf);
    free(pad);
    free(text);

    /* HSPLIT_CONF_MAX_NAMES over all the lists: counted as the lines are
       read, before anything is expanded. Exactly 1,000,000: the limit holds,
       and the syntax error of line 3 is what is reported (no expansion) */
    check_error("SwitchName=a Nodes=a[1-999999]\nSwitchName=b Nodes=b1\nbad\n",
                HSPLIT_CONF_SYNTAX, FRAGMENTS("t.conf line 3:"));
    check_error("SwitchName=a Nodes=a[1-999999]\nSwitchName=b Nodes=b[1-2]\nbad\n",
                HSPLIT_CONF_TOO_LARGE,
                FRAGMENTS("t.conf line 2:", "the lists name more than 1000000 nodes and "
                          "switches (the limit HSPLIT_CONF_MAX_NAMES)"));
    /* child switches count as well */
    check_error("SwitchName=a Nodes=a[1-600000]\nSwitchName=top Switches=s[1-400001]\n",
                HSPLIT_CONF_TOO_LARGE, FRAGMENTS("t.conf line 2:", "HSPLIT_CONF_MAX_NAMES"));
    /* one expression past HSPLIT_HOSTLIST_MAX, one name past
       HSPLIT_HOSTLIST_MAX_NAME, in a list or as a SwitchName */
    check_error("SwitchName=s0 Nodes=n[0-999999999]\n", HSPLIT_CONF_TOO_LARGE,
                FRAGMENTS("t.conf line 1:", "Nodes=n[0-999999999] expands to more than 1000000 "
                          "names (the limit HSPLIT_HOSTLIST_MAX)"));
    check_error("SwitchName=s0 Switches=a[0-999]b[0-999]c[0-9]\n", HSPLIT_CONF_TOO_LARGE,
                FRAGMENTS("line 1:", "(the limit HSPLIT_HOSTLIST_MAX)"));
    char *name = repeat_char('n', HSPLIT_HOSTLIST_MAX_NAME);
    text = malloc(3 * HSPLIT_HOSTLIST_MAX_NAME + 128);
    sprintf(text, "SwitchName=%s Nodes=%s\n", name, name);
    rc = hsplit_topology_conf_parse(text, "t.conf", &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK && conf.nnodes == 1, "names of %d characters: status %d: %s",
          HSPLIT_HOSTLIST_MAX_NAME, rc, msg);
    hsplit_topology_conf_free(&conf);
    sprintf(text, "SwitchName=s0 Nodes=n1,%sx\n", name);
    check_error(text, HSPLIT_CONF_TOO_LARGE,
                FRAGMENTS("t.conf line 1:", "has a name of more than 255 characters (the "
                          "limit HSPLIT_HOSTLIST_MAX_NAME)"));
    sprintf(text, "# c\nSwitchName=%sx Nodes=n0\n", name);
    check_error(text, HSPLIT_CONF_TOO_LARGE,
                FRAGMENTS("t.conf line 2:", "has 256 characters, more than the 255 of a name "
                          "(the limit HSPLIT_HOSTLIST_MAX_NAME)"));
    free(name);
    free(text);
}

/* A private directory for files made by the tests (FIFOs, sparse files). */
static char *temp_dir(void)
{
    static const char pattern[] = "/tmp/hsplit_conf_XXXXXX";
    char *dir = malloc(sizeof pattern);
    memcpy(dir, pattern, sizeof pattern);
    if (mkdtemp(dir) == NULL) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* Only regular files are read, and only up to HSPLIT_CONF_MAX_BYTES: a FIFO
   blocked in open, /dev/zero grew without end, a sparse file was read whole
   before "not a text file". */
static void test_file_limits(void)
{
    char *dir = temp_dir(), path[256];
    CHECK(dir != NULL, "mkdtemp failed");
    if (dir == NULL) return;
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo failed");
    check_load_error(path, HSPLIT_CONF_UNREADABLE,
                     FRAGMENTS("fifo: cannot read the file (a FIFO: only a regular file is read)"));
    unlink(path);
    check_load_error("/dev/zero", HSPLIT_CONF_UNREADABLE,
                     FRAGMENTS("/dev/zero: cannot read the file (a character device: only a "
                               "regular file is read)"));
    check_load_error("/", HSPLIT_CONF_UNREADABLE,
                     FRAGMENTS("/: cannot read the file (a directory: only a regular file is read)"));
    /* sparse files: one byte past the limit is refused unread; exactly at
       the limit, read (16 MiB of zero bytes) and refused as no text */
    snprintf(path, sizeof path, "%s/sparse.conf", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && ftruncate(fileno(f), HSPLIT_CONF_MAX_BYTES + 1) == 0, "sparse file");
    if (f != NULL) fclose(f);
    check_load_error(path, HSPLIT_CONF_TOO_LARGE,
                     FRAGMENTS("sparse.conf: the file has 16777217 bytes, more than the 16777216 "
                               "allowed (the limit HSPLIT_CONF_MAX_BYTES)"));
    CHECK(truncate(path, 1L << 30) == 0, "truncate");
    check_load_error(path, HSPLIT_CONF_TOO_LARGE,
                     FRAGMENTS("the file has 1073741824 bytes", "HSPLIT_CONF_MAX_BYTES"));
    CHECK(truncate(path, HSPLIT_CONF_MAX_BYTES) == 0, "truncate");
    check_load_error(path, HSPLIT_CONF_UNREADABLE,
                     FRAGMENTS("sparse.conf: cannot read the file (not a text file)"));
    /* a valid file of exactly HSPLIT_CONF_MAX_BYTES: a switch, then comment
       lines padding it */
    f = fopen(path, "wb");
    CHECK(f != NULL, "fopen");
    if (f != NULL) {
        long left = HSPLIT_CONF_MAX_BYTES - fprintf(f, "SwitchName=s0 Nodes=n[0-1]\n");
        char *line = repeat_char('x', 4095);
        for (; left > 4096; left -= 4096) fprintf(f, "#%.4094s\n", line);
        fprintf(f, "#%.*s\n", (int)left - 2, line);
        free(line);
        fclose(f);
    }
    hsplit_topology_conf conf;
    char msg[512] = "";
    int rc = hsplit_topology_conf_load(path, &conf, msg, sizeof msg);
    CHECK(rc == HSPLIT_CONF_OK && conf.nswitches == 1 && conf.nnodes == 2,
          "file of exactly %ld bytes: status %d: %s", (long)HSPLIT_CONF_MAX_BYTES, rc, msg);
    hsplit_topology_conf_free(&conf);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* A file of n switches, one top and n - 1 leaves of one node each, parsed
   and checked (the parse was quadratic: 100,000 switches took a minute). */
static void test_many_switches(int n)
{
    if (n < 2) {
        CHECK(0, "--switches %d: at least 2", n);
        return;
    }
    size_t cap = 64 + (size_t)n * 48, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "SwitchName=top Switches=s[0-%d]\n", n - 2);
    for (int i = 0; i < n - 1; i++)
        len += (size_t)snprintf(text + len, cap - len, "SwitchName=s%d Nodes=n%d\n", i, i);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hsplit_topology_conf conf;
    char msg[512] = "";
    int rc = hsplit_topology_conf_parse(text, "big.conf", &conf, msg, sizeof msg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%d switches (%zu bytes) parsed in %.3f s\n", n, len,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    CHECK(rc == HSPLIT_CONF_OK, "status %d: %s", rc, msg);
    if (rc == HSPLIT_CONF_OK) {
        CHECK(conf.nswitches == n && conf.nnodes == n - 1, "%d switches, %d nodes",
              conf.nswitches, conf.nnodes);
        char node[32], path[64];
        check_switch(&conf, 0, "top", 1, -1, 0);
        snprintf(path, sizeof path, "s%d", n - 2);
        check_switch(&conf, n - 1, path, n, 0, 1);
        for (int i = 0; i < n - 1; i += 1 + (n - 2) / 7) {
            snprintf(node, sizeof node, "n%d", i);
            snprintf(path, sizeof path, "top.s%d", i);
            check_path(&conf, node, path);
        }
        snprintf(node, sizeof node, "n%d", n - 2);
        snprintf(path, sizeof path, "top.s%d", n - 2);
        check_path(&conf, node, path);
        snprintf(node, sizeof node, "n%d", n - 1);
        check_path(&conf, node, "-");
    }
    hsplit_topology_conf_free(&conf);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--switches") == 0) {
        test_many_switches(atoi(argv[2]));
        printf("%d passed, %d failed\n", passed, failed);
        return failed == 0 && passed > 0 ? 0 : 1;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_topology_conf NTW24E5_CONF | --switches N\n");
        return 2;
    }
    test_ntw24e5(argv[1]);
    test_formats();
    test_errors();
    test_load_errors();
    test_limits();
    test_file_limits();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
