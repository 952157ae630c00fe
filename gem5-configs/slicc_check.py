#!/usr/bin/env python3
"""Runs the SLICC front end of a gem5 tree on one protocol: parse, type
check and generate its C++ into a temporary directory, nothing written into
the tree but PLY's parser tables, which it caches in src/mem/slicc as
gem5's own build does (campaigns run it in their private copies).
memconform's campaign pre-check (`mutate init --precheck`): a
mutant that SLICC rejects is unviable before any C++ build (1-3 s instead
of a build).

Usage: slicc_check.py --gem5-root DIR --protocol NAME
Exit status: 0 SLICC accepts the protocol, 1 it rejects it (its message on
stderr), 2 the tree or protocol was not found.

This file calls gem5's own SLICC (src/mem/slicc, ext/ply of the given
tree) the way gem5's build does; it carries no gem5 code.
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gem5-root", required=True, help="the gem5 tree")
    p.add_argument("--protocol", required=True, help="e.g. MI_example")
    a = p.parse_args()
    root = os.path.abspath(a.gem5_root)
    base = os.path.join(root, "src", "mem", "ruby", "protocol")
    # NAME.slicc in the protocols' directory, or in a directory of its own
    # there (CHI's is chi/CHI.slicc); includes resolve against `base` as in
    # gem5's build
    slicc_file = os.path.join(base, a.protocol + ".slicc")
    if not os.path.isfile(slicc_file):
        inside = sorted(
            os.path.join(base, d, a.protocol + ".slicc")
            for d in (os.listdir(base) if os.path.isdir(base) else [])
            if os.path.isfile(os.path.join(base, d, a.protocol + ".slicc"))
        )
        if not inside:
            print(f"slicc_check: no {slicc_file} (nor in a directory of it)", file=sys.stderr)
            return 2
        slicc_file = inside[0]
    # nothing written into the tree: no bytecode caches, PLY's tables (if
    # it writes any) in the temporary directory
    sys.dont_write_bytecode = True
    sys.path[0:0] = [
        os.path.join(root, "src", "mem"),
        os.path.join(root, "ext", "ply"),
        os.path.join(root, "build_tools"),
    ]
    try:
        from slicc.parser import SLICC
    except ImportError as e:
        print(f"slicc_check: cannot import gem5's SLICC from {root}: {e}", file=sys.stderr)
        return 2
    includes = ["mem/ruby/slicc_interface/RubySlicc_includes.hh"]
    with tempfile.TemporaryDirectory() as out:
        os.chdir(out)
        chatter = io.StringIO()
        try:
            # SLICC prints its progress; only its verdict matters here
            with contextlib.redirect_stdout(chatter):
                slicc = SLICC(slicc_file, base, verbose=False)
                slicc.process()
                slicc.writeCodeFiles(out, includes)
        except BaseException as e:  # SLICC reports errors by exceptions and sys.exit
            msg = str(e) or type(e).__name__
            print(f"slicc_check: {a.protocol}: SLICC rejects it: {msg}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
