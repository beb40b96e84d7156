"""MuJoCo 4.0.0's own tests of `mujoco.rollout` and `mujoco.batch`, run against moreau.

The `mujoco==4.0.0` wheel ships `rollout_test.py` and `batch_test.py` next to its modules. This
file finds them in the installed package (a missing file is a failure, not a skip), writes copies
into a temporary directory with only their import lines rewritten (`import mujoco` becomes
`import moreau as mujoco`, `from mujoco import rollout` becomes `from moreau import rollout`, and
so on), runs each copy in a pytest subprocess and reads its junit XML report. MuJoCo's test
sources are not kept in this repository.

Every test must pass, except those in `EXCLUDED` below, each with its reason. An excluded test
that now passes also fails this check, so that the list can only shrink. Tests that MuJoCo's own
file skips (`SKIPPED_BY_MUJOCO`) must be reported skipped with MuJoCo's reason.
"""

import importlib.util
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

# The import lines of MuJoCo's test files and what they become (the only lines changed).
IMPORTS = {
    "import mujoco": "import moreau as mujoco",
    "from mujoco import rollout": "from moreau import rollout",
    "from mujoco import batch": "from moreau import batch",
}

# Tests moreau does not pass, by file, as `Class::test`: a reason each. Only shrinks.
EXCLUDED = {
    "rollout_test.py": {
        "MuJoCoRolloutTest::test_intercept_mj_errors": (
            "moreau's MjOption refuses an unknown solver type when it is set (ValueError: invalid "
            "solver value), so no step meets MuJoCo's mj_fwdConstraint error; a rollout's fatal "
            "error (stack overflow) is raised as FatalError (test_rollout_checks.py)"
        ),
        "MuJoCoRolloutTest::test_threadpool_rejected": (
            "moreau has no mju_threadpool: its step has no per-Data thread pool (MuJoCo's runs "
            "collision and island solves on one), so rejecting a Data that carries one cannot "
            "be tested"
        ),
    },
    "batch_test.py": {
        "BatchTest::test_callbacks_checked_on_construction": (
            "moreau has no global mjcb_* callbacks (get_mjcb_control, set_mjcb_*)"
        ),
        "BatchTest::test_count_outputs": (
            "its last check binds 'pstack' for MuJoCo's list of scalars; moreau's MjData has no "
            "arena stack (the counts themselves bind and record as MuJoCo's)"
        ),
        "BatchTest::test_expand_bvh_without_body_hierarchies": (
            "MjModel has no BVH fields (nbvhstatic, bvh_aabb)"
        ),
        "BatchTest::test_named_mimo_actuators": (
            "moreau has no <orientation> actuator (MuJoCo 4.0.0's multi-input, multi-output "
            "SO(3) servo: actuator_ctrlnum/outnum/ctrladr/outadr, more controls than actuators)"
        ),
        "BatchTest::test_python_callbacks_rejected": (
            "moreau has no global mjcb_* callbacks (get_mjcb_control, set_mjcb_*)"
        ),
        "BatchTest::test_set_const_refits_body_hierarchies": (
            "MjModel has no BVH fields (nbvhstatic, bvh_aabb)"
        ),
    },
}

# Tests MuJoCo's own files skip (absltest.skip), with the reason they give.
SKIPPED_BY_MUJOCO = {
    "rollout_test.py": {"MuJoCoRolloutTest::test_large_state": "Takes a long time to run"},
    "batch_test.py": {},
}

# At least this many tests in each file (4.0.0's counts: test methods, a parameterized one once
# per case, subtests inside their test), so a run that collected nothing or a truncated file
# cannot pass.
MIN_TESTS = {"rollout_test.py": 70, "batch_test.py": 54}


def mujoco_test_file(name):
    """The path of `name` in the installed `mujoco` package."""
    spec = importlib.util.find_spec("mujoco")
    assert spec is not None and spec.origin, "the mujoco package (4.0.0) is not installed"
    path = pathlib.Path(spec.origin).parent / name
    assert path.is_file(), f"{path}: MuJoCo's test file is missing from the installed wheel"
    return path


def ported(source):
    """`source` with its import lines of `mujoco` rewritten to moreau; the rest unchanged."""
    out, seen = [], set()
    for line in source.splitlines(keepends=True):
        key = line.rstrip("\r\n")
        if key in IMPORTS:
            seen.add(key)
            line = IMPORTS[key] + line[len(key):]
        elif re.match(r"\s*(import|from)\s+mujoco\b", line):
            raise AssertionError(f"an import of mujoco this harness does not port: {key!r}")
        out.append(line)
    assert "import mujoco" in seen, "no `import mujoco` line found"
    return "".join(out)


def run_suite(name, tmp_path):
    """Runs the ported copy of MuJoCo's `name`; returns {`Class::test`: (outcome, message)}."""
    path = tmp_path / name
    path.write_text(ported(mujoco_test_file(name).read_text()))
    report = tmp_path / (name + ".xml")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         f"--junitxml={report}", "-o", "junit_family=xunit1", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=3600,
    )
    assert proc.returncode in (0, 1) and report.is_file(), (
        f"pytest on the ported {name} did not run its tests (exit {proc.returncode}):\n"
        f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    )
    results = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        test = case.get("classname").rsplit(".", 1)[-1] + "::" + case.get("name")
        outcome, message = "passed", ""
        for kind in ("failure", "error", "skipped"):
            child = case.find(kind)
            if child is not None:
                outcome = "skipped" if kind == "skipped" else "failed"
                message = (child.get("message") or child.text or "").strip()
                break
        # a teardown error is a second entry of the same test: the failure wins
        if test not in results or outcome != "passed":
            results[test] = (outcome, message)
    return results


@pytest.mark.parametrize("name", ["rollout_test.py", "batch_test.py"])
def test_mujocos_own_tests_pass_on_moreau(name, tmp_path):
    results = run_suite(name, tmp_path)
    assert len(results) >= MIN_TESTS[name], f"{name}: only {len(results)} tests ran"
    excluded, skipped = EXCLUDED[name], SKIPPED_BY_MUJOCO[name]
    unknown = (set(excluded) | set(skipped)) - set(results)
    assert not unknown, f"{name}: listed tests that do not exist: {sorted(unknown)}"
    problems = []
    for test, (outcome, message) in sorted(results.items()):
        first = message.splitlines()[0][:300] if message else ""
        if test in skipped:
            if outcome != "skipped" or skipped[test] not in message:
                problems.append(f"{test}: MuJoCo's file skips it ({skipped[test]}), got "
                                f"{outcome} {first}")
        elif outcome == "skipped":
            problems.append(f"{test}: skipped ({first})")
        elif test in excluded and outcome == "passed":
            problems.append(f"{test}: passes now; remove it from EXCLUDED")
        elif test not in excluded and outcome != "passed":
            problems.append(f"{test}: {outcome}: {first}")
    counts = {k: sum(1 for o, _ in results.values() if o == k)
              for k in ("passed", "failed", "skipped")}
    print(f"{name}: {counts}")
    assert not problems, f"{name} on moreau ({counts}):\n" + "\n".join(problems)
