#!/usr/bin/env python3
"""Dump every state machine's transition table, as gem5's own SLICC front end
sees it, to JSON: the oracle for memconform's SLICC reader (tests/slicc.rs).

Usage: slicc_transitions.py GEM5_ROOT PROTOCOL OUT.json [DIR ...]

Reads PROTOCOL.slicc from each DIR (default: GEM5_ROOT/src/mem/ruby/protocol;
shared includes such as RubySlicc_interfaces.slicc come from there) with the
`slicc` package of GEM5_ROOT/src/mem and PLY from GEM5_ROOT/ext, runs SLICC's
`process()` and, with --code, `writeCodeFiles()` into a temporary directory
(SLICC's own validity check). Writes {DIR: {"error": str|null, "machines":
{name: {file, states, events, actions, transitions}}}}.

Writes nothing into the gem5 tree: no bytecode, no PLY tables, generated code
only into a temporary directory that is removed.
"""

import json
import os
import sys

sys.dont_write_bytecode = True


def main():
    args = sys.argv[1:]
    code = "--code" in args
    args = [a for a in args if a != "--code"]
    gem5, protocol, out = args[0], args[1], args[2]
    dirs = args[3:]
    sys.path[0:0] = [
        os.path.join(gem5, "src", "mem"),
        os.path.join(gem5, "ext", "ply"),
        os.path.join(gem5, "build_tools"),
        os.path.join(gem5, "src", "python"),
    ]
    from slicc.parser import SLICC
    from slicc.symbols import StateMachine

    class ReadOnlySlicc(SLICC):
        """SLICC whose PLY parser neither writes tables nor a debug file."""

        def __init__(self, *args, **kwargs):
            self.yacc_kwargs = {"write_tables": False, "debug": False}
            self.lex_kwargs = {}
            super().__init__(*args, **kwargs)

    proto_dir = os.path.join(gem5, "src", "mem", "ruby", "protocol")
    result = {}
    for d in dirs or [proto_dir]:
        try:
            result[d] = {"error": None, "machines": dump(ReadOnlySlicc, StateMachine, d, proto_dir, protocol, code)}
        except BaseException as e:  # SLICC raises Exception or SystemExit
            result[d] = {"error": str(e), "machines": {}}
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)


def dump(slicc_class, state_machine, d, proto_dir, protocol, code):
    """One protocol's machines, after SLICC's own checks."""
    import shutil
    import tempfile

    slicc = slicc_class(
        os.path.join(d, protocol + ".slicc"), proto_dir, verbose=False,
        traceback=True,
    )
    slicc.process()
    if code:
        tmp = tempfile.mkdtemp(prefix="memconform-slicc-")
        try:
            slicc.writeCodeFiles(tmp, [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    machines = {}
    for m in slicc.symtab.getAllType(state_machine):
        machines[m.ident] = {
            "file": os.path.basename(m.location.filename),
            "states": list(m.states.keys()),
            "events": list(m.events.keys()),
            "actions": list(m.actions.keys()),
            "transitions": [
                [
                    t.state.ident,
                    t.event.ident,
                    t.nextState.ident,
                    [a.ident for a in t.actions],
                    [r.ident for r in t.request_types],
                ]
                for t in m.transitions
            ],
        }
    return machines


if __name__ == "__main__":
    main()
