#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs a command that must end the MPI job through MPI_ERRORS_ARE_FATAL: the
# test passes when the command exits with a non-zero status and never prints
# "returned after the error". (Open MPI does not always forward the error
# message of an aborting process, so the message itself is not required.)
# Usage: expect_abort.sh COMMAND ARGS...
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -eq 0 ]; then
    echo "expect_abort: the job exited with status 0" >&2
    exit 1
fi
if printf '%s\n' "$out" | grep -q "returned after the error"; then
    echo "expect_abort: the call returned after the error" >&2
    exit 1
fi
echo "expect_abort: aborted with status $status, as expected"
