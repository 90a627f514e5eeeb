#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The user guide shows docs/examples/hierarchy.f90 in full: check that the
code block that follows the marker line naming the file is that file, so the
guide's example is the one the tests compile and run.
Usage: check_doc_example.py GUIDE.md EXAMPLE_FILE MARKER"""
import sys

guide, example, marker = sys.argv[1:4]
text = open(guide, encoding="utf-8").read()
at = text.find(marker)
if at < 0:
    sys.exit(f"marker {marker!r} not found in {guide}")
start = text.index("```fortran\n", at) + len("```fortran\n")
end = text.index("```\n", start)
shown = text[start:end]
actual = open(example, encoding="utf-8").read()
if shown != actual:
    sys.exit(f"the code block after {marker!r} in {guide} differs from {example}")
print("1 passed, 0 failed")
