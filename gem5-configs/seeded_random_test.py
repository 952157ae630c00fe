# memconform: run a stock gem5 config script (by default the Ruby random
# tester, configs/example/ruby_random_test.py) with a chosen random seed.
#
#   build/<V>/gem5.opt -d OUT --debug-flags=RubyTest --debug-file=trace.txt \
#       gem5-configs/seeded_random_test.py --seed N [--gem5-root DIR] \
#       [--config configs/example/ruby_random_test.py] <the script's own args>
#
# gem5 seeds its random number generator (random_mt: the testers' choices,
# Ruby's randomized delays) with the constant 5489, so identical command
# lines repeat exactly. This wrapper
#
#   * takes --seed N (0 <= N < 2**32: gem5's Random::init takes a uint32_t)
#     out of the arguments and calls _m5.core.seedRandom(N) (and seeds
#     Python's `random`), before the script builds or instantiates anything;
#   * runs the script as if gem5 had been given it directly: sys.argv[0] and
#     __file__ are its path, sys.path[0] its directory, __name__ is
#     "__m5_main__";
#   * makes MOESI_AMD_Base usable: its create_system takes one argument fewer
#     than configs/ruby/Ruby.py passes (`cpus`), so, when that protocol is
#     built in and its create_system has no `cpus` parameter, the module is
#     imported first and its create_system wrapped to accept and drop `cpus`.
#     No gem5 file is copied or edited.
#   * with --no-flush, builds the RubyTester with check_flush=False, which
#     the stock script turns on for MOESI_hammer (whose flushes fail the
#     tester's own check in stock gem5 v24.0: a campaign needs a clean
#     baseline).
#
# The gem5 tree (whose configs/ holds the script) is --gem5-root DIR or the
# environment variable GEM5_ROOT; a relative --config is taken inside it.
# The wrapper's options may appear anywhere before a `--`; everything else
# goes to the script unchanged. What was done is written to
# OUT/memconform-run.json (seed, script, arguments, protocol, adaptations).
#
# See gem5-configs/README.md.

import inspect
import json
import os
import random
import sys

DEFAULT_CONFIG = os.path.join("configs", "example", "ruby_random_test.py")
SEED_LIMIT = 2**32


def fail(msg):
    sys.stderr.write(f"seeded_random_test.py: {msg}\n")
    sys.stderr.write(
        "usage: gem5.opt [gem5 options] seeded_random_test.py --seed N "
        "[--gem5-root DIR] [--config SCRIPT] [--variant NAME] [--no-flush] [script args]\n"
    )
    sys.exit(2)


def split_args(argv):
    """Takes the wrapper's options out of `argv`: returns (options, rest)."""
    ours = {"--seed": None, "--gem5-root": None, "--config": None, "--variant": None}
    flags = {"--no-flush": False}
    rest = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i + 1 :])
            break
        name, eq, value = arg.partition("=")
        if arg in flags:
            flags[arg] = True
        elif name in ours:
            if not eq:
                if i + 1 >= len(argv):
                    fail(f"{name} needs a value")
                i += 1
                value = argv[i]
            if ours[name] is not None:
                fail(f"{name} given twice")
            ours[name] = value
        else:
            rest.append(arg)
        i += 1
    ours.update(flags)
    return ours, rest


def parse_seed(text):
    if text is None:
        fail("--seed N is required (0 <= N < 2**32)")
    try:
        seed = int(text, 10)
    except ValueError:
        fail(f"--seed must be a decimal number, not {text!r}")
    if not 0 <= seed < SEED_LIMIT:
        fail(f"--seed must be in 0..{SEED_LIMIT - 1} (gem5 seeds with 32 bits)")
    return seed


def find_config(root_arg, config_arg):
    root = root_arg if root_arg is not None else os.environ.get("GEM5_ROOT")
    if not root:
        fail(
            "where is the gem5 tree? give --gem5-root DIR or set GEM5_ROOT "
            "(the directory holding configs/ and build/)"
        )
    root = os.path.abspath(root)
    config = config_arg if config_arg is not None else DEFAULT_CONFIG
    if not os.path.isabs(config):
        config = os.path.join(root, config)
    if not os.path.isfile(config):
        fail(f"no gem5 config script at {config} (gem5 tree: {root})")
    return root, config


def protocol():
    try:
        from m5.defines import buildEnv

        return buildEnv.get("PROTOCOL")
    except (ImportError, AttributeError):
        return None


def no_flush():
    """Makes every RubyTester built from here on have check_flush=False.

    The stock ruby_random_test.py turns flushes on for MOESI_hammer alone,
    and stock MOESI_hammer then fails the tester's own check (a lost store:
    docs/design/gem5.md §7), so a campaign's baseline is never clean. The
    name RubyTester in m5.objects is replaced, before the script's
    `from m5.objects import *`, by a function that overrides the keyword.
    """
    import m5.objects

    original = m5.objects.RubyTester

    def RubyTester(*args, **kwargs):
        kwargs["check_flush"] = False
        return original(*args, **kwargs)

    m5.objects.RubyTester = RubyTester
    return "RubyTester check_flush forced off (--no-flush)"


def adapt_moesi_amd_base():
    """Lets MOESI_AMD_Base's create_system take Ruby.py's extra `cpus`.

    Ruby.py runs `from . import <protocol>` inside the `ruby` package of
    configs/, which finds the module already imported here, with the
    wrapped function. Returns a description of what was done, or None.
    """
    import importlib

    module = importlib.import_module("ruby.MOESI_AMD_Base")
    original = module.create_system
    params = inspect.signature(original).parameters.values()
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    takes_cpus = (
        any(p.kind == p.VAR_POSITIONAL for p in params) or len(positional) >= 7
    )

    def create_system(*args, **kwargs):
        if not takes_cpus:
            args = args[:6]
            kwargs.pop("cpus", None)
        result = original(*args, **kwargs)
        # v24.0's directory machine has a parameter `L2isWB` (no default)
        # that only the GPU_VIPER config sets: without it gem5 stops with
        # "system.dir_cntrl0.L2isWB without default or user set value".
        # GPU_VIPER's own default (--WB_L2 off) is used; it only matters
        # to GPU atomics.
        # Likewise its DMA message buffers (`requestFromDMA`,
        # `responseToDMA`), which GPU_VIPER's config connects as here.
        from m5.objects import MessageBuffer

        network = args[5].network if len(args) > 5 else kwargs["ruby_system"].network
        for d in result[1] if len(result) > 1 else []:
            if "L2isWB" in type(d)._params and "L2isWB" not in d._values:
                d.L2isWB = False
            if "requestFromDMA" in type(d)._params and "requestFromDMA" not in d._values:
                d.requestFromDMA = MessageBuffer(ordered=True)
                d.requestFromDMA.in_port = network.out_port
            if "responseToDMA" in type(d)._params and "responseToDMA" not in d._values:
                d.responseToDMA = MessageBuffer()
                d.responseToDMA.out_port = network.in_port
        return result

    create_system.__doc__ = original.__doc__
    module.create_system = create_system
    what = ["its directories get L2isWB=False and DMA buffers where unset"]
    if not takes_cpus:
        what.insert(0, "accepts and drops `cpus`")
    return "ruby.MOESI_AMD_Base.create_system " + " and ".join(what)


def record(outdir, info):
    if not outdir:
        return
    try:
        with open(os.path.join(outdir, "memconform-run.json"), "w") as f:
            json.dump(info, f, indent=2)
            f.write("\n")
    except OSError as e:
        sys.stderr.write(
            f"seeded_random_test.py: cannot write memconform-run.json: {e}\n"
        )


def main():
    wrapper = sys.argv[0]
    ours, rest = split_args(sys.argv[1:])
    seed = parse_seed(ours["--seed"])
    root, config = find_config(ours["--gem5-root"], ours["--config"])

    try:
        import _m5.core
    except ImportError:
        fail("run this script with gem5 (build/<V>/gem5.opt ... %s ...)" % wrapper)
    _m5.core.seedRandom(seed)
    random.seed(seed)

    # As if gem5 had been given the script: its directory first on the path.
    script_dir = os.path.dirname(config)
    wrapper_dir = os.path.dirname(wrapper)
    if sys.path and sys.path[0] == wrapper_dir:
        sys.path[0] = script_dir
    else:
        sys.path.insert(0, script_dir)
    sys.argv = [config] + rest

    adaptations = []
    proto = protocol()
    if proto == "MOESI_AMD_Base":
        # the stock scripts put configs/ on the path (addToPath("../"));
        # importing the protocol module needs it now
        configs_dir = os.path.join(root, "configs")
        if configs_dir not in sys.path:
            sys.path.insert(1, configs_dir)
        done = adapt_moesi_amd_base()
        if done:
            adaptations.append(done)

    if ours["--no-flush"]:
        adaptations.append(no_flush())

    outdir = None
    try:
        import m5

        outdir = getattr(getattr(m5, "options", None), "outdir", None)
    except ImportError:
        pass
    record(
        outdir,
        {
            "seed": seed,
            "config": config,
            "args": rest,
            "gem5_root": root,
            "protocol": proto,
            "adaptations": adaptations,
            **({"variant": ours["--variant"]} if ours["--variant"] else {}),
        },
    )
    sys.stderr.write(
        f"memconform: seed {seed}, running {config}"
        + "".join(f"; {a}" for a in adaptations)
        + "\n"
    )

    with open(config, "rb") as f:
        code = compile(f.read().decode("utf-8"), config, "exec")
    exec(code, {"__file__": config, "__name__": "__m5_main__"})


if __name__ in ("__m5_main__", "__main__"):
    main()
