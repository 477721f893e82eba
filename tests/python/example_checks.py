"""Loads a bundled example's check.py (resources/examples/<name>/check.py) as a module, under a name of its
own: every example has a check.py and a kernel.py, so they cannot be imported by plain name side by side."""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES_DIR = os.path.join(ROOT, "resources", "examples")
# The checks import pto_examples, which is installed beside pypto; here it comes from the source tree, as the
# checks themselves do (appended, so a pypto on PYTHONPATH, the build's, still comes first).
sys.path.append(os.path.join(ROOT, "compiler", "frontend", "python"))

import pto_examples  # noqa: E402 - needs the path above


def example_dir(name):
    return os.path.join(EXAMPLES_DIR, name)


def load_check(name):
    return load_example_file(name, "check.py")


def load_example_file(name, file_name):
    """resources/examples/<name>/<file_name> as the module <name>_<file_name without .py>."""
    return pto_examples.load_module(os.path.join(example_dir(name), file_name),
                                    f"{name}_{os.path.splitext(file_name)[0]}")
