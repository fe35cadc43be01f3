"""The seeded bad-input fuzzer (``bad_inputs.py``): thousands of bad calls, torch vs strided.

The calls run in a child process, one line of protocol per call, so that a call that crashes
the interpreter (torch aborts on some bad inputs) shows up as a failure naming that call
instead of taking pytest down. A crashing call is then excluded by a rule in
``bad_inputs._torch_crashes``.

Every call must agree with torch (exception class and message, or result dtype, shape and
values, and no strided tensor reaching outside its storage), except the differences listed
in ``OPEN``: known, not yet fixed, each with its reason. An entry of ``OPEN`` that no longer
matches anything fails the test too, so that the list only shrinks.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from bad_inputs import MISSING

HERE = Path(__file__).parent
SCRIPT = HERE / "bad_inputs.py"
SHOW = 40          # mismatches listed in the assertion message

# seed -> number of calls; the three seeds are different draws of the same generator
RUNS = {0: 1400, 1: 1400, 2: 1400}

# (regex on the call, regex on the difference, why it is still open)
OPEN = [
    (r"fn:meshgrid", r"meshgrid: Expected 0D or 1D tensor",
     "torch's message prints the tensor with C++'s operator<< (values, then "
     "'[ CPULongType{2,3} ]'); strided prints only the type line"),
    (r"split\(", r"split_with_sizes\(\)",
     "torch's Tensor.split is Python that calls split_with_sizes for a non-int split_size, "
     "so its TypeErrors name split_with_sizes"),
    (r"index_(fill|copy)", r"setStorage",
     "torch fails on an empty self inside its own restride (setStorage) before checking the "
     "index"),
    (r"scatter_reduce", r"Expected index .* to be no larger than self",
     "scatter_reduce_ checks the index shape before the reduce name"),
    (r"linalg:solve\(", r"lu_cpu", "linalg.solve of float16: torch's LU kernel name"),
    (r"fn:randint\(", r"failed to unpack", "randint overloads with several bad arguments"),
    (r"logical_not_\(T\[[^]]*\]:\w+/g", r"leaf Variable",
     "torch lets a non-differentiable in-place op modify a leaf that requires grad"),
]


def _run_child(seed: int, n: int):
    """-> (list of (case, mismatch), list of crashed cases); restarts after a crash."""
    results, crashed = [], []
    start = 0
    while start < n:
        proc = subprocess.run([sys.executable, str(SCRIPT), "--seed", str(seed), "--n", str(n),
                               "--start", str(start)], capture_output=True, text=True,
                              timeout=600)
        started, done = None, False
        for line in proc.stdout.splitlines():
            if line.startswith("S "):
                started = int(line[2:])
            elif line.startswith("R "):
                rec = json.loads(line[2:])
                results.append((rec["case"], rec["mismatch"]))
                started = None
            elif line == "DONE":
                done = True
        if done:
            break
        if started is None or 0 < proc.returncode < 128:
            # a Python exception outside the calls (or nothing to attribute): the harness's
            raise AssertionError(f"fuzz child failed (rc {proc.returncode}) after case "
                                 f"#{started}:\n{proc.stderr[-3000:]}")
        # killed by a signal (segfault, abort): the call that was running crashed
        crashed.append(f"case #{started} (rc {proc.returncode})")
        start = started + 1
    return results, crashed


def _open_entry(case: str, mismatch: str):
    for i, (call, diff, _) in enumerate(OPEN):
        if re.search(call, case) and re.search(diff, mismatch):
            return i
    return None


@pytest.fixture(scope="module")
def runs():
    """seed -> (results, crashed), every seed run once for the module's tests."""
    return {seed: _run_child(seed, n) for seed, n in RUNS.items()}


@pytest.mark.parametrize("seed", sorted(RUNS))
def test_bad_inputs_agree_with_torch(runs, seed):
    results, crashed = runs[seed]
    assert not crashed, ("these generated calls crashed the interpreter; exclude them by a "
                         f"rule in bad_inputs._torch_crashes: {crashed}")
    assert len(results) == RUNS[seed]
    bad = [(c, m) for c, m in results
           if m and not m.startswith(MISSING) and _open_entry(c, m) is None]
    listing = "\n".join(f"{c}\n    {m}" for c, m in bad[:SHOW])
    assert not bad, f"{len(bad)} of {len(results)} calls differ from torch:\n{listing}"


def test_open_differences_still_occur(runs):
    """An OPEN entry that matches none of the generated calls was fixed: remove it."""
    used = {_open_entry(c, m) for results, _ in runs.values() for c, m in results
            if m and not m.startswith(MISSING)}
    stale = [reason for i, (_, _, reason) in enumerate(OPEN) if i not in used]
    assert not stale, f"fixed, remove from OPEN: {stale}"
