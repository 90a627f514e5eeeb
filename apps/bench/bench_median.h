/* SPDX-License-Identifier: BSD-3-Clause */
/* The benchmarks' order statistics: a comparison for qsort and the median of
   a sample (the mean of the two middle values when the sample is even). */
#ifndef HSPLIT_BENCH_MEDIAN_H
#define HSPLIT_BENCH_MEDIAN_H

#include <stdlib.h>

static inline int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n > 0 values (sorts them in place). */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
