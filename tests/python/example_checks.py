"""Loads a bundled example's check.py (resources/examples/<name>/check.py) as a module, under a name of its
own: every example has a check.py and a kernel.py, so they cannot be imported by plain name side by side."""
import importlib.util
import os

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "examples")


def example_dir(name):
    return os.path.join(EXAMPLES_DIR, name)


def load_check(name):
    spec = importlib.util.spec_from_file_location(f"{name}_check", os.path.join(example_dir(name), "check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
