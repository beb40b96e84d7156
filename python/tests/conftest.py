"""Shared helpers of the side-by-side tests: moreau against `mujoco==4.0.0`.

Error measure (as the Rust oracle tests): `|a - b| / max(1, |b|)`, the largest over the
entries. Tolerances are the Rust tests': 1e-10 smooth dynamics, 1e-9 contacts and constraint
rows, 1e-8 converged constraint solves and rollouts.
"""

import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"

TOL_SMOOTH = 1e-10
TOL_CONTACT = 1e-9
# converged solves: Newton's stop tests are thresholds, and states 1e-13 apart can take one
# iteration more or less (MuJoCo against itself as well), which moves a velocity by ~1e-10
# (test_batch.py::test_solver_stop_flips_are_mujocos_own)
TOL_SOLVE = 1e-8

try:
    import mujoco  # noqa: F401
except ImportError as e:  # a missing oracle is a failure, not a skip
    raise ImportError(
        "the tests compare moreau with MuJoCo: pip install mujoco==4.0.0"
    ) from e

import moreau  # noqa: E402


def rel_err(a, b):
    """max |a - b| / max(1, |b|) over the entries (shapes must agree)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    assert a.shape == b.shape, f"shapes differ: {a.shape} vs {b.shape}"
    if a.size == 0:
        return 0.0
    e = np.abs(a - b) / np.maximum(1.0, np.abs(b))
    if np.isnan(e).any():
        return float("inf")
    return float(e.max())


def model_path(name):
    p = MODELS / f"{name}.xml"
    assert p.exists(), f"missing model {p}"
    return str(p)


def models_both_load():
    """(name, MuJoCo's MjModel, moreau's MjModel) for every model of models/ both engines load
    (MuJoCo refuses some; moreau refuses the include fragments MuJoCo reads as models)."""
    for path in sorted(MODELS.glob("*.xml")):
        try:
            mj = mujoco.MjModel.from_xml_path(str(path))
        except ValueError:
            continue
        try:
            mo = moreau.MjModel.from_xml_path(str(path))
        except moreau.MjcfLoadError:
            continue
        yield path.stem, mj, mo


def load_pair(path):
    """The same MJCF file loaded by MuJoCo and by moreau."""
    mj = mujoco.MjModel.from_xml_path(str(path))
    mo = moreau.MjModel.from_xml_path(str(path))
    return mj, mo


def lockstep(mj, mo, dj, do, nstep, rng):
    """Steps MuJoCo's `dj` and moreau's `do` `nstep` times with the same random controls,
    yielding the step index after each step; then moreau takes MuJoCo's state
    (mjSTATE_INTEGRATION, with the warm start), so both stay on one trajectory."""
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    state = np.empty(mujoco.mj_stateSize(mj, spec))
    for step in range(nstep):
        u = rng.uniform(-1.0, 1.0, mj.nu)
        dj.ctrl[:] = u
        do.ctrl[:] = u
        mujoco.mj_step(mj, dj)
        moreau.mj_step(mo, do)
        yield step
        mujoco.mj_getState(mj, dj, state, spec)
        moreau.mj_setState(mo, do, state, spec)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
