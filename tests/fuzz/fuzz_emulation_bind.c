/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target of the HSPLIT_BIND parser (hsplit_emulated_binding,
   c/src/emulation.c) on two small synthetic machines. For any text and any
   local rank it must return OK or HSPLIT_ERR_BIND, never crash, leak or
   overrun, and give exactly the binding that a second, independent reading
   of the user guide's grammar gives:
     none | TYPE | ITEM;ITEM;...   (no spaces anywhere, no empty item)
     ITEM = TYPE:INDEX | 0xHHHHHHHH,0xHHHHHHHH,...  (1 to 8 hex digits a word)
   a TYPE of letters and digits that hsplit_parse_type knows and the machine
   has, an INDEX of digits below the number of such objects, a cpuset neither
   empty nor outside the machine; local rank i >= 0 takes object i mod n of a
   TYPE, the i-th ITEM of a list. A result is never an empty binding.
   Bytes: [local rank + 2 (bits 1-7, modulo 20), machine (bit 0)] then the
   text. Built with clang
   (tests/emulation_hostile.cmake). */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

static const char *const machines[2] = {
    "pack:2 [numa] l3:1 l2:2 core:2 pu:1",                           /* 8 PUs  */
    "pack:2 [numa] die:1 l3:1 group:2 l2:2 l1:1 core:1 pu:2",        /* 32 PUs */
};

static void fail(const char *what, const char *spec, int local)
{
    fprintf(stderr, "fuzz_emulation_bind: %s (HSPLIT_BIND=\"%s\", local rank %d)\n", what, spec,
            local);
    abort();
}

/* A TYPE: letters and digits, a type the machine has; its object count. */
static int ref_type(hwloc_topology_t topo, const char *s, size_t len, hwloc_obj_type_t *type)
{
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i])) return 0;
    char *name = malloc(len + 1);
    if (name == NULL) abort();
    memcpy(name, s, len);
    name[len] = '\0';
    int known = hsplit_parse_type(name, type) == 0;
    free(name);
    return known ? hsplit_count_objects(topo, *type) : 0;
}

/* A cpuset string, word by word (the first word is the most significant),
   into set. */
static int ref_cpuset(const char *s, size_t len, hwloc_bitmap_t set)
{
    hwloc_bitmap_zero(set);
    unsigned long words[4096];
    int nwords = 0;
    size_t i = 0;
    for (;;) {
        if (i + 2 > len || s[i] != '0' || s[i + 1] != 'x' || nwords == 4096) return 0;
        i += 2;
        unsigned long w = 0;
        int digits = 0;
        for (; i < len && isxdigit((unsigned char)s[i]); i++, digits++) {
            int c = tolower((unsigned char)s[i]);
            w = w * 16 + (unsigned long)(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        if (digits < 1 || digits > 8) return 0;
        words[nwords++] = w;
        if (i == len) break;
        if (s[i++] != ',') return 0;
    }
    for (int k = 0; k < nwords; k++)
        for (int b = 0; b < 32; b++)
            if (words[k] >> b & 1) hwloc_bitmap_set(set, (unsigned)(32 * (nwords - 1 - k) + b));
    return 1;
}

/* One list item into set; 0 when invalid. */
static int ref_item(hwloc_topology_t topo, const char *s, size_t len, hwloc_bitmap_t set)
{
    const char *colon = memchr(s, ':', len);
    if (colon == NULL)
        return ref_cpuset(s, len, set) && !hwloc_bitmap_iszero(set) &&
               hwloc_bitmap_isincluded(set, hwloc_topology_get_topology_cpuset(topo));
    hwloc_obj_type_t type;
    int n = ref_type(topo, s, (size_t)(colon - s), &type);
    const char *d = colon + 1, *end = s + len;
    if (n == 0 || d == end) return 0;
    long long index = 0;
    for (; d < end; d++) {
        if (*d < '0' || *d > '9') return 0;
        index = index * 10 + (*d - '0');
        if (index > INT_MAX) return 0;
    }
    if (index >= n) return 0;
    hwloc_bitmap_copy(set, hsplit_object(topo, type, (int)index)->cpuset);
    return 1;
}

/* The reference binding into want; 0 when the value must be refused. */
static int reference(hwloc_topology_t topo, const char *spec, int local, hwloc_bitmap_t want)
{
    if (local < 0) return 0;
    for (const char *p = spec; *p; p++)
        if (isspace((unsigned char)*p)) return 0;
    if (strcmp(spec, "none") == 0) {
        hwloc_bitmap_copy(want, hwloc_topology_get_topology_cpuset(topo));
        return 1;
    }
    size_t len = strlen(spec);
    if (strchr(spec, ';') == NULL && strchr(spec, ':') == NULL && strncmp(spec, "0x", 2) != 0) {
        hwloc_obj_type_t type;
        int n = ref_type(topo, spec, len, &type);
        if (n == 0) return 0;
        hwloc_bitmap_copy(want, hsplit_object(topo, type, local % n)->cpuset);
        return 1;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int ok = 1, nitems = 0;
    for (const char *item = spec;;) { /* every item, even those no process takes */
        const char *semi = strchr(item, ';');
        size_t item_len = semi != NULL ? (size_t)(semi - item) : strlen(item);
        if (item_len == 0 || !ref_item(topo, item, item_len, set)) ok = 0;
        else if (nitems == local) hwloc_bitmap_copy(want, set);
        nitems++;
        if (semi == NULL) break;
        item = semi + 1;
    }
    hwloc_bitmap_free(set);
    return ok && local < nitems;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hwloc_topology_t topos[2]; /* loaded once: hwloc takes milliseconds */
    if (size < 1) return 0;
    int m = data[0] & 1, local = (data[0] >> 1) % 20 - 2;
    if (topos[m] == NULL && hsplit_topology_load(machines[m], &topos[m]) != HSPLIT_KIND_OK) {
        fprintf(stderr, "fuzz_emulation_bind: cannot load \"%s\"\n", machines[m]);
        abort();
    }
    hwloc_topology_t topo = topos[m];
    char *spec = malloc(size);
    hwloc_bitmap_t got = hwloc_bitmap_alloc(), want = hwloc_bitmap_alloc();
    if (spec == NULL || got == NULL || want == NULL) abort();
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = '\0'; /* up to the first NUL: what getenv could give */

    int valid = reference(topo, spec, local, want);
    int kind = hsplit_emulated_binding(topo, spec, local, got);
    if (kind != HSPLIT_KIND_OK && kind != HSPLIT_ERR_BIND) fail("unexpected error kind", spec, local);
    if ((kind == HSPLIT_KIND_OK) != valid)
        fail(valid ? "valid value refused" : "invalid value accepted", spec, local);
    if (kind == HSPLIT_KIND_OK) {
        if (hwloc_bitmap_iszero(got)) fail("empty binding", spec, local);
        if (!hwloc_bitmap_isequal(got, want)) fail("wrong binding", spec, local);
    }
    hwloc_bitmap_free(got);
    hwloc_bitmap_free(want);
    free(spec);
    return 0;
}
