"""Helpers the Python kernel tests share: where a marker comment sits (for checking that an error names the
kernel line) and whether the last run's outputs came from the functional simulator."""
import pypto


def line_of(path, marker):
    """The line of `path` that holds `marker` (in a comment), for location checks; lines that call line_of
    themselves are skipped, so the marker can be named in the test too."""
    with open(path) as handle:
        for number, text in enumerate(handle, 1):
            if marker in text and "line_of(" not in text:
                return number
    raise AssertionError(f"{marker} not found in {path}")


def assert_functional(test):
    """The last kernel call was compiled and simulated, and its outputs are the functional simulator's (not the
    reference interpreter's fallback). Returns the run's report."""
    report = pypto.last_run()
    test.assertTrue(report["simulated"], report.get("simulation_error"))
    test.assertEqual(report["outputs_from"], "functional")
    return report
