/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target of the HSPLIT_NODES parser (c/src/emulation.c): any text
   for a world of 1 to 256 ranks. hsplit_parse_nodes must return OK or
   HSPLIT_ERR_NODES, never crash, leak or overrun, and accept exactly what a
   second, independent reading of the user guide's grammar accepts:
     K | cyclic:N | n0,n1,...   (one node index per rank)
   where K, N >= 1 and n_i >= 0 are decimal ints (at most INT_MAX) with
   optional spaces around them. Accepted values must give the guide's node
   and local rank of every rank. Bytes: [world size - 1] then the text.
   Built with clang (tests/emulation_hostile.cmake). */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hsplit_internal.h"

enum { MAX_WORLD = 256 };

static void fail(const char *what, const char *spec, int world)
{
    fprintf(stderr, "fuzz_emulation_nodes: %s (HSPLIT_NODES=\"%s\", %d ranks)\n", what, spec,
            world);
    abort();
}

/* [s, e) as a number in [0, INT_MAX] with spaces around: long long
   arithmetic that stops as soon as the value is too large. */
static int number(const char *s, const char *e, long long *v)
{
    while (s < e && isspace((unsigned char)*s)) s++;
    while (e > s && isspace((unsigned char)e[-1])) e--;
    if (s == e) return 0;
    *v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9') return 0;
        *v = *v * 10 + (*s - '0');
        if (*v > INT_MAX) return 0;
    }
    return 1;
}

/* The reference: mode 1 (K), 2 (cyclic) or 3 (list) with param or items;
   0 when invalid. */
static int reference(const char *spec, int world, long long *param, long long *items)
{
    const char *end = spec + strlen(spec);
    if (strncmp(spec, "cyclic:", 7) == 0)
        return number(spec + 7, end, param) && *param > 0 ? 2 : 0;
    if (memchr(spec, ',', (size_t)(end - spec)) == NULL)
        return number(spec, end, param) && *param > 0 ? 1 : 0;
    int n = 0;
    const char *item = spec;
    for (;;) {
        const char *comma = memchr(item, ',', (size_t)(end - item));
        const char *item_end = comma != NULL ? comma : end;
        if (n == world || !number(item, item_end, &items[n])) return 0;
        n++;
        if (comma == NULL) break;
        item = comma + 1;
    }
    return n == world ? 3 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int world = 1 + data[0] % MAX_WORLD;
    char *spec = malloc(size);
    if (spec == NULL) return 0;
    memcpy(spec, data + 1, size - 1);
    spec[size - 1] = '\0'; /* up to the first NUL: what getenv could give */

    long long param = 0, items[MAX_WORLD];
    int mode = reference(spec, world, &param, items);
    hsplit_node_map map;
    int kind = hsplit_parse_nodes(spec, world, &map);
    if (kind != HSPLIT_KIND_OK && kind != HSPLIT_ERR_NODES) fail("unexpected error kind", spec, world);
    if ((kind == HSPLIT_KIND_OK) != (mode != 0))
        fail(mode != 0 ? "valid value refused" : "invalid value accepted", spec, world);
    if (kind == HSPLIT_KIND_OK) {
        for (int r = 0; r < world; r++) {
            long long node, local;
            if (mode == 1) {
                node = r / param;
                local = r % param;
            } else if (mode == 2) {
                node = r % param;
                local = r / param;
            } else {
                node = items[r];
                local = 0;
                for (int q = 0; q < r; q++) local += items[q] == node;
            }
            int got_node, got_local;
            hsplit_node_of(&map, r, &got_node, &got_local);
            if (got_node != node || got_local != local) fail("wrong node or local rank", spec, world);
            if (hsplit_node_index_of(&map, r) != node) fail("wrong node index", spec, world);
        }
        hsplit_node_map_free(&map);
    }
    free(spec);
    return 0;
}
