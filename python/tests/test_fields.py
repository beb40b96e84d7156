"""Fields of MuJoCo 4.0.0's `MjModel` and `MjData` that moreau computes or that are constants
for the models it simulates, each against MuJoCo: simple bodies and the sparse layout of `M`,
the constraint islands, the sleep fields of a model that never sleeps, the energy flags."""

import glob
import os

import numpy as np
import pytest
from conftest import TOL_SMOOTH, load_pair, lockstep, model_path, rel_err

import mujoco
import moreau

MODELS_DIR = os.path.dirname(model_path("humanoid"))
# every model of models/ that both engines load
ALL_MODELS = sorted(os.path.splitext(os.path.basename(p))[0]
                    for p in glob.glob(os.path.join(MODELS_DIR, "*.xml")))


def test_simple_bodies_and_m_layout_match_mujoco():
    """`body_simple`, `dof_simplenum` and MuJoCo's sparse layout of M (`nC`, `M_rownnz`,
    `M_rowadr`, `M_colind`: a simple body's dofs hold only their diagonal) equal MuJoCo's on
    every model of models/, and several models have simple bodies (free, ball, slide + hinge,
    slider)."""
    nsimple = 0
    checked = 0
    for name in ALL_MODELS:
        try:
            mj = mujoco.MjModel.from_xml_path(model_path(name))
        except ValueError:
            continue
        try:
            mo = moreau.MjModel.from_xml_path(model_path(name))
        except moreau.MjcfLoadError:  # include fragments MuJoCo reads as models
            continue
        checked += 1
        for f in ("body_simple", "dof_simplenum", "M_rownnz", "M_rowadr", "M_colind"):
            got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, f, got, want)
        assert mo.nC == mj.nC, name
        nsimple += int((mj.body_simple[1:] > 0).any())
    assert checked >= 30 and nsimple >= 10, (checked, nsimple)


@pytest.mark.parametrize("name", ["box_stack", "noslip", "ball_push", "humanoid"])
def test_m_and_factor_in_mujocos_layout(name, rng):
    """`M` and `qLD` in MuJoCo's sparse layout equal MuJoCo's at random states, on models with
    simple bodies (their rows reduced to the diagonal) and without."""
    mj, mo = load_pair(model_path(name))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for _ in range(3):
        dj.qvel[:] = rng.standard_normal(mj.nv)
        mujoco.mj_step(mj, dj, 10)
        spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        state = np.empty(mujoco.mj_stateSize(mj, spec))
        mujoco.mj_getState(mj, dj, state, spec)
        moreau.mj_setState(mo, do, state, spec)
        mujoco.mj_forward(mj, dj)
        moreau.mj_forward(mo, do)
        for f in ("M", "qLD"):
            got, want = np.asarray(getattr(do, f)), getattr(dj, f)
            assert got.shape == want.shape == (mj.nC,), f
            assert rel_err(got, want) < TOL_SMOOTH, f


ISLAND_FIELDS = ("dof_island", "efc_island", "tree_island", "island_nv", "island_idofadr",
                 "island_dofadr", "island_ntree", "island_itreeadr", "island_nefc",
                 "island_iefcadr", "island_ne", "island_nf", "map_dof2idof", "map_idof2dof",
                 "map_efc2iefc", "map_iefc2efc", "map_itree2tree")


@pytest.mark.parametrize("name", ["islands", "humanoids", "constraints", "box_stack"])
def test_islands_match_mujoco(name, rng):
    """The island fields equal MuJoCo's (int32, same shapes) after every step of a run with
    random controls, both engines stepping from MuJoCo's state."""
    mj, mo = load_pair(model_path(name))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    nislands = set()
    for step in lockstep(mj, mo, dj, do, 100, rng):
        assert do.nisland == dj.nisland and do.nefc == dj.nefc, step
        for f in ISLAND_FIELDS:
            got, want = np.asarray(getattr(do, f)), getattr(dj, f)
            assert got.dtype == np.int32, f
            assert np.array_equal(got, want), (step, f, got, want)
        nislands.add(dj.nisland)
    assert max(nislands) >= 1


SLEEP_FIELDS = ("nbody_awake", "ntree_awake", "nv_awake", "nparent_awake", "body_awake",
                "body_awake_ind", "parent_awake_ind", "dof_awake_ind", "tree_awake",
                "tree_asleep")


@pytest.mark.parametrize("name", ["humanoid", "arm7", "cartpole", "zoo", "islands"])
def test_sleep_fields_of_a_model_that_never_sleeps(name):
    """Without the `sleep` flag MuJoCo keeps every tree awake: its sleep fields (bodies welded
    to the world static) and the energy flags equal moreau's after mj_forward and mj_step, with
    and without the energy flag."""
    mj, mo = load_pair(model_path(name))
    assert not mj.opt.enableflags & int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    for energy in (False, True):
        for m in (mj, mo):
            bit = int(mujoco.mjtEnableBit.mjENBL_ENERGY)
            m.opt.enableflags = (m.opt.enableflags | bit) if energy else (
                m.opt.enableflags & ~bit)
        dj, do = mujoco.MjData(mj), moreau.MjData(mo)
        for call in ("forward", "step"):
            getattr(mujoco, "mj_" + call)(mj, dj)
            getattr(moreau, "mj_" + call)(mo, do)
            for f in SLEEP_FIELDS + ("flg_energypos", "flg_energyvel"):
                got, want = getattr(do, f), getattr(dj, f)
                if isinstance(want, np.ndarray):
                    got = np.asarray(got)
                    assert got.dtype == np.int32, f
                    assert np.array_equal(got, want), (f, got, want)
                else:
                    assert got == want, (f, got, want)
