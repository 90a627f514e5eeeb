# SPDX-License-Identifier: BSD-3-Clause
"""pmpi_mpi4py: an unmodified mpi4py program whose collectives reach
libhsplit_pmpi when it is preloaded. Every result is checked against a value
computed here from the inputs; rank 0 prints the results (the driver compares
that output with and without the preload). Exit status 1 on any mismatch.
Sums are of integers (or of integer-valued doubles below 2**53) so that they
are exact in any order of addition: the hierarchy adds in another order than
the MPI's own algorithm."""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []
results = []


def check(name, got, expected):
    """Record one result; a mismatch is a failure on this rank."""
    if isinstance(expected, np.ndarray):
        ok = got.dtype == expected.dtype and np.array_equal(got, expected)
        shown = f"{got.dtype}[{got.size}] sum={got.sum()} first={got.flat[0]} last={got.flat[-1]}"
    else:
        ok = got == expected
        shown = repr(got)
    if not ok:
        failures.append(f"rank {rank}: {name}: got {got!r}, expected {expected!r}")
    results.append(f"{name}: {shown}")


def contribution(r, n, dtype):
    """Rank r's array of n elements: distinct per rank and per element."""
    return (np.arange(n, dtype=np.int64) * (r + 3) + 1000 * r).astype(dtype)


# Python objects (pickled: mpi4py sends them with MPI_Bcast and friends)
obj = {"step": 42, "names": ["a", "b"], "x": 0.125} if rank == 0 else None
check("bcast(dict)", comm.bcast(obj, root=0), {"step": 42, "names": ["a", "b"], "x": 0.125})
check("allreduce(int, SUM)", comm.allreduce(rank + 1, op=MPI.SUM), size * (size + 1) // 2)
check("allreduce(int, MAX)", comm.allreduce(10 - rank, op=MPI.MAX), 10)

# numpy buffers: small (one message) and large (several of hsplit's segments)
for n in (7, 100_000):
    buf = contribution(1, n, np.float64) if rank == 1 else np.zeros(n, np.float64)
    comm.Bcast(buf, root=1)
    check(f"Bcast(float64[{n}], root=1)", buf, contribution(1, n, np.float64))

    mine = contribution(rank, n, np.float64)
    total = np.empty(n, np.float64)
    comm.Allreduce(mine, total, op=MPI.SUM)
    check(f"Allreduce(float64[{n}], SUM)", total,
          sum(contribution(r, n, np.float64) for r in range(size)))

    mine = contribution(rank, n, np.int64)
    largest = np.empty(n, np.int64)
    comm.Allreduce(mine, largest, op=MPI.MAX)
    check(f"Allreduce(int64[{n}], MAX)", largest,
          np.max([contribution(r, n, np.int64) for r in range(size)], axis=0))

    everyone = np.empty(size * n, np.int32)
    comm.Allgather(contribution(rank, n, np.int32), everyone)
    check(f"Allgather(int32[{n}])", everyone,
          np.concatenate([contribution(r, n, np.int32) for r in range(size)]))

    # a root other than 0: the hierarchy must bring the result to it
    root = size - 1
    reduced = np.full(n, -1, np.int64)
    comm.Reduce(contribution(rank, n, np.int64), reduced if rank == root else None,
                op=MPI.SUM, root=root)
    if rank == root:
        check(f"Reduce(int64[{n}], SUM, root={root})", reduced,
              sum(contribution(r, n, np.int64) for r in range(size)))

    root = 1 % size
    blocks = np.arange(size * n, dtype=np.float64) * 0.5 if rank == root else None
    part = np.empty(n, np.float64)
    comm.Scatter(blocks, part, root=root)
    check(f"Scatter(float64[{n}], root={root})", part,
          np.arange(rank * n, (rank + 1) * n, dtype=np.float64) * 0.5)

comm.Barrier()

# Every rank's verdict and results, printed by rank 0 in rank order (one
# stream: the launcher would interleave the ranks' own output).
failed = comm.allreduce(len(failures), op=MPI.SUM)
everything = comm.gather((failures, results), root=0)
if rank == 0:
    for r, (failed_here, results_here) in enumerate(everything):
        for line in failed_here:
            print(line, file=sys.stderr)
        for line in results_here:
            print(f"rank {r}: {line}")
    print(f"mpi4py: {sum(len(x[1]) for x in everything)} results checked, {failed} failures, "
          f"{size} processes", flush=True)
sys.exit(1 if failed else 0)
