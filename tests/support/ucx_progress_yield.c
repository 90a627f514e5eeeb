// SPDX-License-Identifier: BSD-3-Clause
/*
 * Test-only preload for MPICH on UCX (Debian's ch4:ucx): it makes a waiting
 * process give up its core instead of spinning.
 *
 * MPICH polls for progress without ever yielding. With more processes than
 * cores, a process that waits spins out its whole time slice while the one it
 * waits for is not running, so an oversubscribed run slows with the square of
 * the processes per core (a 10-process collective test on 2 cores: 86 s).
 * Every pass of MPICH's progress loop calls ucp_worker_progress; this wrapper
 * calls UCX's own and, after a run of passes that found nothing, calls
 * sched_yield (the same test: 2.4 s). Messages and their order are untouched:
 * only when the waiting process runs changes.
 *
 * The suite preloads it into MPICH's test processes (tests/CMakeLists.txt).
 * A program that never calls ucp_worker_progress is not affected.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

// Idle passes before a yield: 16 to 64 were equally fast on the test above;
// 4096 took twice as long, 1 spent most of its time in the kernel.
enum { IDLE_PASSES_BEFORE_YIELD = 32 };

typedef unsigned (*progress_function)(void *worker);

// Per thread: MPICH may progress from several threads (MPI_THREAD_MULTIPLE).
static _Thread_local progress_function ucx_progress;
static _Thread_local unsigned idle_passes;

// UCX's signature: unsigned ucp_worker_progress(ucp_worker_h worker).
unsigned ucp_worker_progress(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    if (!ucx_progress) {
        ucx_progress = (progress_function)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!ucx_progress) {
            fprintf(stderr, "ucx_progress_yield: no ucp_worker_progress after this library\n");
            abort();
        }
    }
    unsigned events = ucx_progress(worker);
    if (events) {
        idle_passes = 0;
    } else if (++idle_passes >= IDLE_PASSES_BEFORE_YIELD) {
        idle_passes = 0;
        sched_yield();
    }
    return events;
}
