"""Tuning sweeps on a Dask cluster, from Python.

    from distributed import Client
    import pto_dask
    client = Client("tcp://scheduler:8786")
    result = pto_dask.tune("my_kernel", client=client, strategy="random", budget=2000)
    print(result["best"])

runs `pto tune PROJECT --dask ADDRESS --json -` and returns its JSON: the
same sweep, result cache and result as from the command line. Every worker
needs `pto` and the project folder at the paths this machine uses (a shared
file system); see docs/cli.md, "Sweeps on a Dask cluster".
"""

import json
import os
import shutil
import subprocess

__all__ = ["tune", "pto_executable"]


def pto_executable():
    """The `pto` beside this package (a build tree's bin/, or an
    installation's /usr/bin), else PTO_CLI, else the one on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.environ.get("PTO_CLI", ""),
                      os.path.join(here, "..", "..", "bin", "pto"),
                      os.path.join(here, "..", "..", "..", "..", "bin", "pto")):
        if candidate and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    found = shutil.which("pto")
    if not found:
        raise FileNotFoundError("no pto executable found beside pto_dask, in PTO_CLI or on PATH")
    return found


def tune(project, client=None, scheduler=None, strategy="grid", budget=100, seed=1, batch=None,
         no_cache=False, apply=False, json_file=None, progress=True):
    """Sweeps `project`'s settings on the cluster `client` (a distributed.Client)
    or at `scheduler` ("tcp://HOST:PORT"); returns `pto tune --json`'s result
    as a dict. Raises RuntimeError with pto's message when the sweep fails."""
    if client is not None:
        scheduler = client.scheduler.address
    if not scheduler:
        raise ValueError("give client= (a distributed.Client) or scheduler='tcp://HOST:PORT'")
    command = [pto_executable(), "tune", os.path.abspath(project), "--dask", scheduler, "--strategy", strategy,
               "--budget", str(budget), "--seed", str(seed), "--json", json_file or "-"]
    if batch:
        command += ["--batch", str(batch)]
    if no_cache:
        command.append("--no-cache")
    if apply:
        command.append("--apply")
    # pto's progress lines go to stderr: shown here unless asked not to.
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"pto tune failed (exit code {run.returncode}): {(run.stderr or run.stdout).strip()}")
    if json_file:
        with open(json_file) as result:
            return json.load(result)
    return json.loads(run.stdout)
