"""Loads a bundled example's check.py (resources/examples/<name>/check.py) as a module, under a name of its
own: every example has a check.py and a kernel.py, so they cannot be imported by plain name side by side. Also
what several example tests do with a loaded check: run its main on given results, make sparse attention's
inputs at the tests' shape."""
import contextlib
import io
import os
from unittest import mock

import pto_examples  # what the checks share; beside pypto in the build's python folder and when installed

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES_DIR = os.path.join(ROOT, "resources", "examples")


def example_dir(name):
    return os.path.join(EXAMPLES_DIR, name)


def load_check(name):
    return load_example_file(name, "check.py")


def load_example_file(name, file_name):
    """resources/examples/<name>/<file_name> as the module <name>_<file_name without .py>."""
    return pto_examples.load_module(os.path.join(example_dir(name), file_name),
                                    f"{name}_{os.path.splitext(file_name)[0]}")


def main_output(check, inputs, run_result):
    """(exit status, printed text) of check.main([]) with make_inputs returning inputs and run_kernel returning
    run_result."""
    printed = io.StringIO()
    with mock.patch.object(check, "make_inputs", return_value=inputs), \
            mock.patch.object(check, "run_kernel", return_value=run_result), contextlib.redirect_stdout(printed):
        status = check.main([])
    return status, printed.getvalue()


def sparse_attention_inputs(check, lengths, topk):
    """sparse_flash_attention's check.make_inputs for two tokens per request, with slots that must be masked:
    besides the -1 after a short request's keys, token 0 gets a -1 mid-step and two indices at or past its L
    (lengths[0] = 3000)."""
    inputs = check.make_inputs(lengths, tokens_per_request=2, topk=topk, seed=5)
    indices = inputs["topk_indices"]
    indices[0, 10] = -1
    indices[0, 70] = 3000
    indices[0, 150] = 1 << 30
    return inputs
