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


def load_pair(path):
    """The same MJCF file loaded by MuJoCo and by moreau."""
    mj = mujoco.MjModel.from_xml_path(str(path))
    mo = moreau.MjModel.from_xml_path(str(path))
    return mj, mo


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
