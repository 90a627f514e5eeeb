/* SPDX-License-Identifier: BSD-3-Clause */
/* Fortran buffers described by C descriptors (ISO_Fortran_binding.h) turned
   into the addresses the C collectives take. A TYPE(*), DIMENSION(..) dummy
   receives scalars and arrays of any rank, contiguous or not: the C library
   needs contiguous memory, so a non-contiguous array (a section with a
   stride, a slice of a higher-rank array) is copied in and out of a
   contiguous block, exactly as the compiler would for an assumed-size
   argument. */
#include <stdlib.h>
#include <string.h>
#include "hsplit_f08_glue.h"

/* Contiguous in array element order. Arrays of rank 0 (scalars), empty
   arrays and assumed-size arrays (last extent -1, contiguous by the rules
   of the language) always are; a dimension of extent 1 has any stride. */
static int is_contiguous(const CFI_cdesc_t *desc)
{
    if (desc->rank == 0 || desc->dim[desc->rank - 1].extent == -1)
        return 1;
    size_t expected = desc->elem_len;
    for (int i = 0; i < desc->rank; i++) {
        CFI_index_t extent = desc->dim[i].extent;
        if (extent == 0)
            return 1;
        if (extent > 1 && desc->dim[i].sm != (CFI_index_t)expected)
            return 0;
        expected *= (size_t)extent;
    }
    return 1;
}

static size_t element_count(const CFI_cdesc_t *desc)
{
    size_t n = 1;
    for (int i = 0; i < desc->rank; i++)
        n *= (size_t)desc->dim[i].extent;
    return n;
}

/* Copies between the array and the contiguous block, element by element in
   array element order (the first subscript varies fastest). */
static void copy_elements(const CFI_cdesc_t *desc, char *block, int to_block)
{
    CFI_index_t subscript[CFI_MAX_RANK] = {0};
    size_t n = element_count(desc), len = desc->elem_len;
    char *base = desc->base_addr;
    for (size_t k = 0; k < n; k++) {
        CFI_index_t offset = 0;
        for (int i = 0; i < desc->rank; i++)
            offset += subscript[i] * desc->dim[i].sm;
        if (to_block)
            memcpy(block + k * len, base + offset, len);
        else
            memcpy(base + offset, block + k * len, len);
        for (int i = 0; i < desc->rank && ++subscript[i] == desc->dim[i].extent; i++)
            subscript[i] = 0;
    }
}

int hsplit_f08_buffer_open(hsplit_f08_buffer *buf, const CFI_cdesc_t *desc,
                           const void *in_place, const void *bottom)
{
    buf->desc = desc;
    buf->copy = NULL;
    buf->addr = desc->base_addr;
    if (desc->base_addr == in_place) {
        buf->addr = MPI_IN_PLACE;
    } else if (desc->base_addr == bottom) {
        buf->addr = MPI_BOTTOM;
    } else if (!is_contiguous(desc)) {
        buf->copy = malloc(element_count(desc) * desc->elem_len);
        if (buf->copy == NULL)
            return MPI_ERR_NO_MEM;
        copy_elements(desc, buf->copy, 1);
        buf->addr = buf->copy;
    }
    return MPI_SUCCESS;
}

void hsplit_f08_buffer_close(hsplit_f08_buffer *buf, int copy_out)
{
    if (buf->copy == NULL)
        return;
    if (copy_out)
        copy_elements(buf->desc, buf->copy, 0);
    free(buf->copy);
    buf->copy = NULL;
}
