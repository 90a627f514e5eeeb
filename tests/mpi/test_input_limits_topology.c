/* SPDX-License-Identifier: BSD-3-Clause */
/* HSPLIT_TOPOLOGY's limits at their boundaries, through the library's loader
   itself (hsplit_topology_load_msg; no MPI call, linked with hsplit_static):
   every XML file of the test machines and every synthetic description within
   the limits loads with its exact PU count; past a limit, HSPLIT_ERR_TOPOLOGY
   with a message naming it, before hwloc builds anything. Also what is not a
   regular file (a FIFO blocked hwloc for ever) and XML files past the size or
   PU limit. Usage: test_input_limits_topology XML_DIR */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hsplit_internal.h"

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

static void check_loads(const char *spec, int pus)
{
    hwloc_topology_t topo;
    char msg[512] = "";
    int kind = hsplit_topology_load_msg(spec, &topo, msg, sizeof msg);
    CHECK(kind == HSPLIT_KIND_OK, "\"%s\": kind %d (%s)", spec, kind, msg);
    if (kind != HSPLIT_KIND_OK) return;
    int got = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    CHECK(got == pus, "\"%s\": %d PUs, expected %d", spec, got, pus);
    hwloc_topology_destroy(topo);
}

static void check_refused(const char *spec, const char *expected)
{
    hwloc_topology_t topo = (hwloc_topology_t)1;
    char msg[512] = "";
    int kind = hsplit_topology_load_msg(spec, &topo, msg, sizeof msg);
    CHECK(kind == HSPLIT_ERR_TOPOLOGY && topo == NULL, "\"%s\": kind %d, expected %d", spec,
          kind, HSPLIT_ERR_TOPOLOGY);
    CHECK(strstr(msg, expected) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", spec, msg,
          expected);
    if (kind == HSPLIT_KIND_OK) hwloc_topology_destroy(topo);
}

static void test_synthetic(void)
{
    /* within the limits: 8192 PUs, 1024 children, 8192 attached NUMA
       nodes, hwloc's grammar (root attributes, bare numbers, base 0) */
    check_loads("pack:8 core:32 pu:32", 8192);
    check_loads("core:1024 pu:1", 1024);
    check_loads("pack:2 [numa] l3:1 l2:2 core:2 pu:1", 8);
    check_loads("pack:4 [numa] core:2 [numa] pu:1024", 8192);
    check_loads("(memory=1GB) pack:2 core:2 pu:2", 8);
    check_loads("pack:2 numa:2(memory=2GB) pu:4", 16);
    check_loads("pack:2 [numa(memory=1GB)] core:2 pu:2", 8);
    check_loads("2 2 2", 8);
    check_loads("pack:0x2 core:010 pu:1", 16);
    check_loads("group:6 pack:2 [numa] l3:1 core:8 pu:2", 192);

    /* past a limit, refused before hwloc builds it (262,144 PUs took hwloc
       minutes and gigabytes, a flat level of 8192 minutes) */
    check_refused("pack:8 core:32 pu:33",
                  "hsplit: HSPLIT_TOPOLOGY \"pack:8 core:32 pu:33\" has more than the 8192 PUs "
                  "allowed (the limit HSPLIT_TOPOLOGY_MAX_PUS)");
    check_refused("pack:64 core:64 pu:64", "the limit HSPLIT_TOPOLOGY_MAX_PUS");
    check_refused("pack:1000 core:1000 pu:1000", "the limit HSPLIT_TOPOLOGY_MAX_PUS");
    check_refused("core:1025 pu:1",
                  "hsplit: HSPLIT_TOPOLOGY \"core:1025 pu:1\" gives an object 1025 children, "
                  "more than the 1024 allowed (the limit HSPLIT_TOPOLOGY_MAX_ARITY)");
    check_refused("pu:0x2001", "gives an object 8193 children");
    check_refused("(memory=1GB) pack:1 core:4096 pu:1", "4096 children");
    check_refused("pack:4 [numa] core:2 [numa] pu:1024 [numa]",
                  "attaches more than 8192 NUMA nodes (the limit HSPLIT_TOPOLOGY_MAX_PUS)");
    /* malformed: hwloc's verdict */
    check_refused("pack:two core:x", "hsplit: HSPLIT_TOPOLOGY \"pack:two core:x\" is neither "
                  "an existing file nor a valid hwloc synthetic description");
    check_refused("pack:0 pu:1", "is neither an existing file nor a valid hwloc synthetic");
    check_refused("/nonexistent/machine.xml", "is neither an existing file");
}

/* Every XML file of the test machines still loads. */
static void test_xml_dir(const char *dir)
{
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (d == NULL) return;
    int files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".xml") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        hwloc_topology_t topo;
        char msg[512] = "";
        int kind = hsplit_topology_load_msg(path, &topo, msg, sizeof msg);
        CHECK(kind == HSPLIT_KIND_OK, "%s: kind %d (%s)", path, kind, msg);
        if (kind == HSPLIT_KIND_OK) hwloc_topology_destroy(topo);
        files++;
    }
    closedir(d);
    CHECK(files >= 16, "%d XML files in %s", files, dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/16em64t-4s2c2t.xml", dir);
    check_loads(path, 16);
}

static void test_files(void)
{
    char tmp[] = "/tmp/hsplit_topo_XXXXXX", path[256], expected[512];
    CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
    /* not regular files: never opened (hwloc blocked on a FIFO) */
    snprintf(path, sizeof path, "%s/fifo", tmp);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    snprintf(expected, sizeof expected, "hsplit: HSPLIT_TOPOLOGY %s: cannot read the file (a "
             "FIFO: only a regular file is read)", path);
    check_refused(path, expected);
    unlink(path);
    check_refused("/dev/null", "/dev/null: cannot read the file (a character device");
    check_refused("/", "hsplit: HSPLIT_TOPOLOGY /: cannot read the file (a directory");

    /* one byte past HSPLIT_TOPOLOGY_MAX_XML_BYTES: refused unread */
    snprintf(path, sizeof path, "%s/big.xml", tmp);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && ftruncate(fileno(f), HSPLIT_TOPOLOGY_MAX_XML_BYTES + 1) == 0, "sparse");
    if (f != NULL) fclose(f);
    check_refused(path, "big.xml: the file has 8388609 bytes, more than the 8388608 allowed "
                        "(the limit HSPLIT_TOPOLOGY_MAX_XML_BYTES)");
    /* read, and not XML */
    f = fopen(path, "wb");
    if (f != NULL) {
        fputs("not XML\n", f);
        fclose(f);
    }
    snprintf(expected, sizeof expected, "hsplit: HSPLIT_TOPOLOGY %s:", path);
    check_refused(path, expected);
    check_refused(path, "hwloc cannot");

    /* an XML file within the size limit but past HSPLIT_TOPOLOGY_MAX_PUS
       (made by hwloc itself: 8199 PUs, 3.4 MB) */
    hwloc_topology_t topo;
    int ok = hwloc_topology_init(&topo) == 0 &&
             hwloc_topology_set_synthetic(topo, "pack:9 pu:911") == 0 &&
             hwloc_topology_load(topo) == 0 && hwloc_topology_export_xml(topo, path, 0) == 0;
    CHECK(ok, "cannot make the XML file of 8199 PUs");
    hwloc_topology_destroy(topo);
    snprintf(expected, sizeof expected, "hsplit: HSPLIT_TOPOLOGY %s has 8199 PUs, more than "
             "the 8192 allowed (the limit HSPLIT_TOPOLOGY_MAX_PUS)", path);
    check_refused(path, expected);
    unlink(path);
    rmdir(tmp);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_input_limits_topology XML_DIR\n");
        return 2;
    }
    test_synthetic();
    test_xml_dir(argv[1]);
    test_files();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
