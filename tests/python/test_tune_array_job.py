"""scripts/tune-array-job.sh, the Slurm array recipe of docs/cli.md, run as Slurm runs an array task (its
SLURM_ARRAY_* variables set, one process per task, here one after another): the merged shards equal the
unsharded sweep point for point, whatever index the array starts from; a shard missing from the merge, and the
script run outside an array, are refused with a message.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import pto_dask

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(REPO, "scripts", "tune-array-job.sh")
PTO = pto_dask.pto_executable()
SWEEP = ["--strategy", "random", "--seed", "11", "--budget", "30", "--no-cache"]


class ArrayJobTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="pto-array-")
        cls.project = os.path.join(cls.scratch, "softmax")
        shutil.copytree(os.path.join(REPO, "resources", "examples", "softmax"), cls.project,
                        ignore=shutil.ignore_patterns(".pto"))
        subprocess.run([PTO, "trust", cls.project], check=True, stdout=subprocess.DEVNULL)
        run = subprocess.run([PTO, "tune", cls.project, *SWEEP, "--quiet", "--json", "-"], check=True,
                             stdout=subprocess.PIPE, text=True)
        cls.unsharded = json.loads(run.stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def run_script(self, *arguments, env=None):
        return subprocess.run([SCRIPT, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PTO": PTO, **(env or {})}, timeout=300)

    def run_array(self, outdir, first, count):
        for task in range(first, first + count):
            run = self.run_script(self.project, outdir, *SWEEP,
                                  env={"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_COUNT": str(count),
                                       "SLURM_ARRAY_TASK_MIN": str(first)})
            self.assertEqual(run.returncode, 0, run.stderr)

    def test_the_merged_shards_equal_the_unsharded_sweep(self):
        for first in (1, 0):  # --array=1-3 and --array=0-2
            outdir = os.path.join(self.scratch, f"sweep-from-{first}")
            self.run_array(outdir, first, 3)
            self.assertEqual(sorted(os.listdir(outdir)), [f"shard-{k}-of-3.json" for k in (1, 2, 3)])
            merge = self.run_script("--merge", self.project, outdir)
            self.assertEqual(merge.returncode, 0, merge.stderr)
            with open(os.path.join(outdir, "sweep.json")) as merged_file:
                merged = json.load(merged_file)
            self.assertEqual(merged["evaluated"], 30)
            self.assertEqual([p["settings"] for p in merged["points"]],
                             [p["settings"] for p in self.unsharded["points"]])
            self.assertEqual([p.get("makespan_us") for p in merged["points"]],
                             [p.get("makespan_us") for p in self.unsharded["points"]])
            self.assertEqual(merged["best"], self.unsharded["best"])
            self.assertEqual(merged["pareto"], self.unsharded["pareto"])

    def test_a_missing_shard_is_refused_by_the_merge(self):
        outdir = os.path.join(self.scratch, "incomplete")
        self.run_array(outdir, 1, 3)
        os.remove(os.path.join(outdir, "shard-2-of-3.json"))
        merge = self.run_script("--merge", self.project, outdir)
        self.assertEqual(merge.returncode, 1)
        self.assertIn("shard", merge.stderr)

    def test_outside_an_array_the_script_says_how_to_submit_it(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        run = subprocess.run([SCRIPT, self.project, os.path.join(self.scratch, "x")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**env, "PTO": PTO})
        self.assertEqual(run.returncode, 1)
        self.assertIn("sbatch --array=1-N", run.stderr)


if __name__ == "__main__":
    unittest.main()
