# SPDX-License-Identifier: BSD-3-Clause
"""Independent reference results for the mini-app tests.

The apps draw their inputs from a counter-based hash of (seed, stream, i, j)
(apps/common/app_random.f90); this module implements the same function in
Python and computes from it, with plain algorithms that share no code with the
apps, the values the tests expect: the sum of all elements of C = A B for
hsplit-summa, and the all-pairs distances of hsplit-asp's random graphs.
"""
import math

MODULUS = 2**31 - 1


def _mix(x):
    y = x % MODULUS
    y = (y * 48271 + 12345) % MODULUS
    y ^= y >> 13
    y = (y * 69621 + 1) % MODULUS
    y ^= y >> 11
    return y


def hash_value(seed, stream, i, j):
    h = _mix(seed % MODULUS)
    h = _mix(h + stream)
    h = _mix(h + i)
    h = _mix(h + j)
    return h % MODULUS


def summa_checksum(n, seed):
    """Sum of all elements of A B, A(i,j) = hash(seed,1,i,j) mod 17 - 8, B with stream 2.

    sum_ij (AB)_ij = sum_k (column sum k of A) * (row sum k of B)."""
    total = 0
    for k in range(n):
        acol = sum(hash_value(seed, 1, i, k) % 17 - 8 for i in range(n))
        brow = sum(hash_value(seed, 2, k, j) % 17 - 8 for j in range(n))
        total += acol * brow
    return total


INF = None


def random_graph(n, density, wmin, wmax, seed):
    """Weight matrix of hsplit-asp's random graph: arc i->j (i != j) when
    hash(seed,1,i,j) < floor(density * MODULUS), weight wmin + hash(seed,2,i,j) mod (wmax-wmin+1)."""
    threshold = math.floor(density * float(MODULUS))
    d = [[INF] * n for _ in range(n)]
    for i in range(n):
        d[i][i] = 0
        for j in range(n):
            if i != j and hash_value(seed, 1, i, j) < threshold:
                d[i][j] = wmin + hash_value(seed, 2, i, j) % (wmax - wmin + 1)
    return d


def floyd_warshall(d, iterations=None):
    """Distances after the first `iterations` steps (all by default); d is copied."""
    n = len(d)
    d = [row[:] for row in d]
    for k in range(n if iterations is None else iterations):
        dk = d[k]
        for i in range(n):
            dik = d[i][k]
            if dik is INF:
                continue
            row = d[i]
            for j in range(n):
                if dk[j] is not INF and (row[j] is INF or dik + dk[j] < row[j]):
                    row[j] = dik + dk[j]
    return d


def distance_summary(d):
    """(sum of finite distances modulo 2^62, number of unreachable pairs)."""
    finite = [x for row in d for x in row if x is not INF]
    return sum(finite) % (1 << 62), sum(len(row) for row in d) - len(finite)
