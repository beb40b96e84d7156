"""The API surface against MuJoCo 4.0.0's bindings: enums, function signatures, model fields."""

import inspect
import re

import numpy as np
import pytest

import moreau
from conftest import MODELS, load_pair, mujoco, rel_err

ENUMS = [n for n in dir(moreau) if n.startswith("mjt")]


def test_enums_match_mujoco():
    assert len(ENUMS) >= 20
    for name in ENUMS:
        ours = getattr(moreau, name)
        theirs = getattr(mujoco, name)
        ours_members = {k: int(v) for k, v in ours.__members__.items()}
        theirs_members = {k: int(getattr(theirs, k)) for k in dir(theirs) if k.startswith("mj")}
        assert ours_members == theirs_members, name


FUNCTIONS = sorted(n for n in dir(moreau) if re.match(r"mjd?_", n))


def mujoco_params(f):
    """Parameter names from the signature line of a pybind11 docstring."""
    line = f.__doc__.split("\n")[0]
    inner = line[line.index("(") + 1 : line.rindex(")")]
    depth, cur, parts = 0, "", []
    for ch in inner:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.split(":")[0].strip() for p in parts]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signature_matches_mujoco(name):
    assert hasattr(mujoco, name), f"{name} is not a MuJoCo function"
    ours = list(inspect.signature(getattr(moreau, name)).parameters)
    assert ours == mujoco_params(getattr(mujoco, name)), name


def test_every_public_name_is_documented():
    for name in dir(moreau):
        if name.startswith("_"):
            continue
        obj = getattr(moreau, name)
        if inspect.ismodule(obj) or isinstance(obj, int):
            continue
        assert obj.__doc__, f"moreau.{name} has no docstring"
    for cls in (moreau.MjModel, moreau.MjData):
        for attr in cls._arrays:
            assert getattr(cls, attr).__doc__, f"{cls.__name__}.{attr} has no docstring"


# Model arrays compared at float32 precision below: MuJoCo's geom_rgba and mat_rgba are float32
# (moreau's mat_rgba is float64).
FLOAT32 = {"geom_rgba", "mat_rgba"}
# The compiler's round-off (principal axes by an eigen-decomposition, fluid quadrature).
TOL_COMPILE = 1e-9


def inertia_tensors(quat, diag):
    """R diag(I) R' per body: the principal axes of a body with two equal moments are not
    unique (any rotation about the third axis), the tensor is."""
    out = []
    for q, i in zip(quat, diag):
        r = np.zeros(9)
        mujoco.mju_quat2Mat(r, q)
        r = r.reshape(3, 3)
        out.append(r @ np.diag(i) @ r.T)
    return np.array(out)


@pytest.mark.parametrize("name", ["humanoid", "cartpole", "arm7", "tendon_springs", "zoo", "zoo2",
                                  "box_stack", "fluid_swimmer", "smooth_contact"])
def test_model_fields_match_mujoco(name):
    mj, mo = load_pair(MODELS / f"{name}.xml")
    for size in ["nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "neq",
                 "nkey", "nsensor", "nsensordata", "nmocap", "nM", "nJten", "nJmom"]:
        assert getattr(mo, size) == getattr(mj, size), size
    checked = 0
    assert rel_err(inertia_tensors(mo.body_iquat, mo.body_inertia),
                   inertia_tensors(mj.body_iquat, mj.body_inertia)) <= TOL_COMPILE
    for attr in moreau.MjModel._arrays + ("body_jntadr", "body_dofadr", "body_geomadr",
                                          "key_qpos", "key_qvel", "key_ctrl", "sensor_type"):
        if not hasattr(mj, attr) or attr == "body_iquat":
            continue
        a, b = np.asarray(getattr(mo, attr)), np.asarray(getattr(mj, attr))
        if b.dtype == np.float32 and attr in FLOAT32:
            a = a.astype(np.float32)
        b = b.reshape(a.shape) if b.size == a.size else b
        assert a.shape == b.shape, f"{attr}: {a.shape} vs {b.shape}"
        assert rel_err(a, b) <= TOL_COMPILE, f"{attr}: {rel_err(a, b):.2e}"
        checked += 1
    assert checked > 100
    assert mo.opt.timestep == mj.opt.timestep
    assert mo.opt.integrator == mj.opt.integrator
    np.testing.assert_array_equal(mo.opt.gravity, mj.opt.gravity)


def test_body_invweight0_of_slider_bodies():
    """A body with only slide joints (its rotational inverse weight has no joint to act on)."""
    mj, mo = load_pair(MODELS / "ball_push.xml")
    assert rel_err(mo.body_invweight0, mj.body_invweight0) <= TOL_COMPILE


def test_help_works():
    text = []
    import pydoc

    for obj in (moreau, moreau.MjModel, moreau.MjData, moreau.mj_step, moreau.derivatives):
        text.append(pydoc.render_doc(obj, renderer=pydoc.plaintext))
    assert "mj_step" in text[0] and "qpos" in text[2]


def test_stubs_cover_the_extension():
    """python/moreau/_moreau.pyi (python/tools/gen_stubs.py) names every public name."""
    import pathlib

    stub = (pathlib.Path(moreau.__file__).parent / "_moreau.pyi").read_text()
    for name in dir(moreau._moreau):
        if name.startswith("__"):
            continue
        assert f"def {name}(" in stub or f"class {name}" in stub or f"{name}:" in stub, name
    for cls in (moreau.MjModel, moreau.MjData):
        for attr in cls._arrays:
            assert f"def {attr}(self)" in stub, f"{cls.__name__}.{attr}"
    for name in moreau.optim.__all__:
        assert f"def {name}(" in stub or f"class {name}" in stub, f"optim.{name}"
