"""What the bundled examples' check.py files share: loading an example's kernel.py under a name of its own,
the two kinds of command line (prologs writing a paged cache, kernels reading one per request), the prologs'
common inputs, and turning a run into verdict lines and an exit status.

Installed beside `pypto` (not in it: pypto is PyPTO's API), so an example folder copied alone by
`pto new --from EXAMPLE` still finds it.
"""
import argparse
import importlib.util

import numpy as np


def load_module(path, name):
    """The Python file at path, loaded as the module `name`. Every example has a kernel.py and a check.py, so
    they cannot be imported by plain name side by side."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prolog_main(doc, argv, make_inputs, check):
    """The main of a check whose kernel writes decode tokens' rows into a paged cache (the prologs): reads
    --tokens, --cache-blocks and --seed, then run_check with make_inputs(tokens, cache_blocks, seed). doc is the
    check's docstring, whose first line describes it."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=2, help="decode tokens T = B * S1 (default 2)")
    parser.add_argument("--cache-blocks", type=int, default=4, help="blocks of 128 slots in the cache")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    return run_check(parser, lambda: make_inputs(args.tokens, args.cache_blocks, args.seed), check)


def request_parser(description, kv, tokens=2, tokens_help="query tokens per request (1 + MTP drafts)",
                   kv_help="KV lengths, comma-separated; one value is used for every request",
                   max_blocks_help="block-table width (default: enough for the longest request)"):
    """The argument parser of a check whose requests read a paged KV cache: --batch and --kv (request_lengths
    reads them, kv is --kv's default), --tokens, --max-blocks and --seed. The check adds its own arguments."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--batch", type=int, default=None, help="requests (default: as many as --kv lists)")
    parser.add_argument("--tokens", type=int, default=tokens, help=tokens_help)
    parser.add_argument("--kv", default=kv, help=kv_help)
    parser.add_argument("--max-blocks", type=int, default=None, help=max_blocks_help)
    parser.add_argument("--seed", type=int, default=0)
    return parser


def request_lengths(parser, args):
    """The KV length of each request, from --kv (one value is used for every request) and --batch."""
    try:
        lengths = [int(v) for v in args.kv.split(",")]
    except ValueError:
        parser.error(f"--kv takes comma-separated whole numbers (4096,3000), got {args.kv!r}")
    if min(lengths) < 1:
        parser.error(f"--kv lengths must be at least 1, got {args.kv!r}")
    batch = args.batch if args.batch is not None else len(lengths)
    if len(lengths) == 1:
        lengths *= batch
    if len(lengths) != batch:
        parser.error(f"--kv lists {len(lengths)} lengths, --batch asks for {batch}")
    return lengths


def prolog_inputs(tokens, cache_slots, rope, seed):
    """What both prolog checks' seeded inputs start with: (rng, weight, cos, sin). rng is the generator the rest
    is drawn from; weight(shape, fan_in) draws fp16 weights uniform with the variance 1 / fan_in (so activations
    stay of order one); cos and sin are the RoPE table of `rope` dims for random positions of the tokens.
    Raises ValueError when the tokens do not fit the cache's slots."""
    if not 1 <= tokens <= cache_slots:
        raise ValueError(f"{tokens} tokens need between 1 and {cache_slots} cache slots")
    rng = np.random.default_rng(seed)

    def weight(shape, fan_in):
        bound = np.sqrt(3.0 / fan_in)
        return rng.uniform(-bound, bound, shape).astype(np.float16)

    return (rng, weight) + rope_table(rng.integers(0, 65536, tokens), rope)


def rope_table(positions, dims, base=10000.0):
    """cos and sin [T, dims] in fp16 of the rotate-half RoPE: angle position * base^(-2i/dims), i < dims / 2, in
    both halves."""
    inv_freq = base ** (-np.arange(0, dims, 2) / dims)
    angles = np.outer(positions, inv_freq)
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles).astype(np.float16), np.sin(angles).astype(np.float16)


def check_result(report, results, show_outputs_from=False):
    """What a check.py's check returns, (ok, verdict lines, report), for a run's report and its comparisons'
    results, each (ok, verdict). The lines: first the run's (where it was simulated and its makespan, or why it
    was not; with show_outputs_from, also which model gave the outputs), then every line of each (ok, verdict)
    in results. ok when the kernel was simulated and every result passed."""
    simulated = bool(report and report.get("simulated"))
    if simulated:
        mode = report["mode"] + (f", outputs from {report.get('outputs_from')}" if show_outputs_from else "")
        run = (f"run: simulated on {report['machine']} ({mode}), {report['tasks']} tasks "
               f"{report['tasks_by_core_type']}, makespan {report['makespan_us']:.1f} us")
    else:
        run = f"run: FAIL: not simulated: {report.get('simulation_error') if report else 'no report'}"
    lines = [run] + [line for _, verdict in results for line in verdict.split("\n")]
    return simulated and all(ok for ok, _ in results), lines, report


def run_check(parser, make_inputs, check):
    """The end of a check.py's main, once its arguments are read: make_inputs() (a ValueError there is a usage
    error), then check(inputs), printing its verdict lines. Returns the exit status: 0 when all passed, else 1."""
    try:
        inputs = make_inputs()
    except ValueError as error:
        parser.error(str(error))
    ok, lines, _ = check(inputs)
    for line in lines:
        print(line)
    return 0 if ok else 1
