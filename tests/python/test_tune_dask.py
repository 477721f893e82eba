"""`pto tune --dask`: a sweep on a Dask cluster of two local worker processes (started here) gives the result
the same sweep gives on this machine, point for point; a worker killed in the middle of a sweep loses nothing;
the result cache in the project's ledger is shared between local and distributed sweeps; the steady-state
evolve strategy evaluates each point once, with the makespan a local sweep gives that point; a sweep stopped
half way leaves nothing queued on the cluster; progress reaches a terminal; and a scheduler that is not there
gets a message saying so. The kernel is the bundled Lightning
Indexer tuning story's L1-reuse step, the kernel people tune, over its declared 48-point space.
"""
import json
import os
import pty
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from distributed import Client, LocalCluster

import pto_dask

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STORY = os.path.join(REPO, "resources", "examples", "lightning_indexer_tuning")
PTO = pto_dask.pto_executable()


def settings_key(point):
    return json.dumps(point["settings"], sort_keys=True)


def serve_points_children(worker_pid):
    """The `pto tune --serve-points` processes a worker process started."""
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                arguments = cmdline.read().split(b"\0")
        except OSError:
            continue
        if parent == worker_pid and b"--serve-points" in arguments:
            children.append(int(entry))
    return children


class DaskSweepTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        cls.client = Client(cls.cluster)
        cls.scratch = tempfile.mkdtemp(prefix="pto-dask-")
        # The story's steps share its kernel one folder up.
        shutil.copytree(STORY, os.path.join(cls.scratch, "story"), ignore=shutil.ignore_patterns(".pto"))
        cls.project = os.path.join(cls.scratch, "story", "l1_reuse")
        subprocess.run([PTO, "trust", cls.project], check=True, stdout=subprocess.DEVNULL)
        # The reference: the whole space simulated on this machine, no cache.
        cls.local = cls.tune("--no-cache")

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.scratch, ignore_errors=True)

    @classmethod
    def tune(cls, *arguments):
        run = subprocess.run([PTO, "tune", cls.project, "--json", "-", "--quiet", *arguments],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
        if run.returncode != 0:
            raise AssertionError(f"pto tune {' '.join(arguments)} failed: {run.stderr}")
        return json.loads(run.stdout)

    def assertSameSweep(self, distributed, local):
        self.assertEqual([settings_key(p) for p in distributed["points"]], [settings_key(p) for p in local["points"]])
        for got, want in zip(distributed["points"], local["points"]):
            self.assertEqual(got["status"], want["status"], settings_key(got))
            # Bit for bit: the workers run the same engine on the same point.
            self.assertEqual(got.get("makespan_us"), want.get("makespan_us"), settings_key(got))
            self.assertEqual(got.get("busy_us"), want.get("busy_us"), settings_key(got))
        self.assertEqual(distributed["best"]["settings"], local["best"]["settings"])

    def test_a_random_sweep_on_the_cluster_equals_the_local_one(self):
        local = self.tune("--strategy", "random", "--seed", "5", "--budget", "12", "--no-cache")
        distributed = self.tune("--strategy", "random", "--seed", "5", "--budget", "12", "--no-cache",
                                "--dask", self.cluster.scheduler_address, "--batch", "3")
        self.assertEqual(distributed["evaluated"], 12)
        self.assertSameSweep(distributed, local)

    def test_a_worker_killed_mid_sweep_loses_nothing(self):
        worker_pids = self.client.run(os.getpid)
        # One point per task, so that the killed worker is holding a batch when it dies.
        sweep = subprocess.Popen([PTO, "tune", self.project, "--dask", self.cluster.scheduler_address, "--batch", "1",
                                  "--no-cache", "--json", "-", "--quiet"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        victim = None
        deadline = time.monotonic() + 60
        while victim is None and time.monotonic() < deadline and sweep.poll() is None:
            for address, pid in worker_pids.items():
                if serve_points_children(pid):
                    victim = pid
                    break
            time.sleep(0.05)
        self.assertIsNotNone(victim, "no worker started simulating points")
        time.sleep(0.3)  # in the middle of its points
        self.assertIsNone(sweep.poll(), "the sweep ended before a worker could be killed: make it longer")
        os.kill(victim, signal.SIGKILL)
        out, err = sweep.communicate(timeout=300)
        self.assertEqual(sweep.returncode, 0, err)
        self.assertSameSweep(json.loads(out), self.local)

    def test_a_sweep_stopped_half_way_leaves_nothing_on_the_cluster(self):
        worker_pids = self.client.run(os.getpid)
        sweep = subprocess.Popen([PTO, "tune", self.project, "--dask", self.cluster.scheduler_address, "--batch", "1",
                                  "--no-cache", "--quiet", "--json", os.path.join(self.scratch, "stopped.json")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not any(serve_points_children(pid) for pid in worker_pids.values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIsNone(sweep.poll(), "the sweep ended before it could be stopped")
        sweep.terminate()
        sweep.wait(timeout=30)

        def tasks_left():
            return self.client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))

        # The bridge sees pto go, cancels what is queued and closes its client,
        # well before the 40-odd points left (about 35 ms each) could have run.
        stopped = time.monotonic()
        while tasks_left() and time.monotonic() < stopped + 20:
            time.sleep(0.05)
        print(f"cluster empty {time.monotonic() - stopped:.2f} s after pto stopped")
        self.assertEqual(tasks_left(), 0)
        self.assertLess(time.monotonic() - stopped, 1.0)

    def test_a_grid_sweep_on_the_cluster_equals_the_local_one_and_shares_its_cache(self):
        # A distributed sweep fills an empty ledger; a local rerun then simulates nothing ...
        shutil.rmtree(os.path.join(self.project, ".pto"), ignore_errors=True)
        # (through the Python API, given the client).
        first = pto_dask.tune(self.project, client=self.client, progress=False)
        self.assertEqual(self.local["evaluated"], 48)
        self.assertEqual(first["cached"], 0)
        self.assertSameSweep(first, self.local)
        self.assertIn("Dask cluster at " + self.cluster.scheduler_address, first["where"])
        self.assertIn("2 workers", first["where"])
        local_rerun = self.tune()
        self.assertEqual(local_rerun["cached"], 48)
        self.assertSameSweep(local_rerun, self.local)
        # ... and a distributed rerun takes every point from it too.
        distributed_rerun = self.tune("--dask", self.cluster.scheduler_address)
        self.assertEqual(distributed_rerun["cached"], 48)
        self.assertSameSweep(distributed_rerun, self.local)

    def test_steady_state_evolve_evaluates_each_point_once_as_a_local_sweep_would(self):
        result = self.tune("--strategy", "evolve", "--budget", "20", "--no-cache", "--dask",
                           self.cluster.scheduler_address)
        self.assertEqual(result["evaluated"], 20)
        keys = [settings_key(p) for p in result["points"]]
        self.assertEqual(len(keys), len(set(keys)), "a point was evaluated twice")
        local = {settings_key(p): p for p in self.local["points"]}
        for point in result["points"]:
            self.assertEqual(point["makespan_us"], local[settings_key(point)]["makespan_us"], settings_key(point))
        # Bred from the best so far, it finds a point within 5 % of the space's best in 20 of 48.
        self.assertLessEqual(result["best"]["makespan_us"], 1.05 * self.local["best"]["makespan_us"])

    def test_progress_reaches_a_terminal(self):
        controller, terminal = pty.openpty()
        sweep = subprocess.Popen([PTO, "tune", self.project, "--dask", self.cluster.scheduler_address, "--budget", "8",
                                  "--no-cache", "--json", os.path.join(self.scratch, "progress.json")],
                                 stdout=subprocess.DEVNULL, stderr=terminal)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        sweep.wait(timeout=300)
        os.close(controller)
        self.assertEqual(sweep.returncode, 0, shown)
        text = shown.decode(errors="replace")
        self.assertIn("pto tune: 8/8 points", text)
        self.assertIn("simulated/s, best ", text)
        self.assertIn("on Dask cluster at " + self.cluster.scheduler_address, text)

    def test_a_scheduler_that_is_not_there_is_named_with_what_to_do(self):
        run = subprocess.run([PTO, "tune", self.project, "--dask", "tcp://127.0.0.1:9", "--dask-timeout", "1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(run.returncode, 1)
        self.assertIn("cannot reach the Dask scheduler at tcp://127.0.0.1:9", run.stderr)
        self.assertIn("is a scheduler running there", run.stderr)


if __name__ == "__main__":
    unittest.main()
