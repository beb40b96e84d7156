"""MjData's arrays: views that share memory with the engine, copies that refuse writes, and
the state functions, against MuJoCo."""

import copy
import gc

import numpy as np
import pytest

import moreau
from conftest import TOL_SMOOTH, TOL_SOLVE, load_pair, model_path, mujoco, rel_err

MOCAP_XML = """
<mujoco>
  <worldbody>
    <body name="target" mocap="true" pos="0 0 1"><geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body>
    <body name="ball" pos="0 0 0.5">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.05"/>
    </body>
  </worldbody>
  <equality><weld body1="target" body2="ball"/></equality>
</mujoco>
"""


def test_views_share_memory():
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    d = moreau.MjData(m)
    q = d.qpos
    assert q.base is not None and q.flags.writeable
    q[1] = 0.3
    assert d.qpos[1] == 0.3
    moreau.mj_step(m, d)
    assert q[1] == d.qpos[1] and d.time == m.opt.timestep
    # the view keeps the data alive
    del d
    gc.collect()
    assert np.isfinite(q).all()


def test_writes_change_the_state_as_in_mujoco():
    mj, mo = load_pair(model_path("humanoid"))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for d in (dj, do):
        d.qpos[2] += 0.1
        d.qvel[:] = 0.01 * np.arange(mj.nv)
        d.ctrl = 0.1 * np.ones(mj.nu)
        d.qfrc_applied[3] = 1.0
        d.xfrc_applied[2, 2] = 5.0
        d.time = 0.25
    mujoco.mj_step(mj, dj, 10)
    moreau.mj_step(mo, do, 10)
    assert do.time == pytest.approx(dj.time, abs=1e-15)
    for f in ["qpos", "qvel", "qacc"]:
        assert rel_err(getattr(do, f), getattr(dj, f)) <= TOL_SOLVE, f


def test_mocap_writes():
    mj = mujoco.MjModel.from_xml_string(MOCAP_XML)
    mo = moreau.MjModel.from_xml_string(MOCAP_XML)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    np.testing.assert_array_equal(do.mocap_quat, dj.mocap_quat)
    np.testing.assert_array_equal(do.mocap_pos, dj.mocap_pos)
    q = np.array([np.cos(0.3), 0.0, np.sin(0.3), 0.0])
    for d in (dj, do):
        d.mocap_pos[0] = [0.1, -0.2, 0.9]
        d.mocap_quat[0] = q
    mujoco.mj_step(mj, dj, 50)
    moreau.mj_step(mo, do, 50)
    assert rel_err(do.qpos, dj.qpos) <= TOL_SOLVE
    assert rel_err(do.xquat, dj.xquat) <= TOL_SOLVE
    mujoco.mj_resetData(mj, dj)
    moreau.mj_resetData(mo, do)
    np.testing.assert_array_equal(do.mocap_quat, dj.mocap_quat)


def test_copies_are_read_only():
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    d = moreau.MjData(m)
    moreau.mj_forward(m, d)
    for f in ["xquat", "xmat", "geom_xmat", "efc_force"]:
        a = getattr(d, f)
        assert not a.flags.writeable, f
        with pytest.raises(ValueError):
            a[...] = 0.0
    with pytest.raises(ValueError):
        d.xquat = np.zeros_like(d.xquat)


def test_assignment_shape_errors():
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    d = moreau.MjData(m)
    with pytest.raises(ValueError, match="broadcast"):
        d.qpos = np.zeros(5)
    with pytest.raises(AttributeError):
        d.ncon = 3


def test_state_functions_match_mujoco(rng):
    mj, mo = load_pair(model_path("humanoid"))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for d in (dj, do):
        d.qpos[:] = mj.qpos0 + 0.05 * np.sin(np.arange(mj.nq))
        d.qvel[:] = 0.1 * np.cos(np.arange(mj.nv))
        d.ctrl[:] = 0.2
    mujoco.mj_step(mj, dj, 5)
    moreau.mj_step(mo, do, 5)
    for sig in [moreau.mjtState.mjSTATE_PHYSICS, moreau.mjtState.mjSTATE_FULLPHYSICS,
                moreau.mjtState.mjSTATE_INTEGRATION, moreau.mjtState.mjSTATE_CTRL]:
        n = mujoco.mj_stateSize(mj, sig)
        assert moreau.mj_stateSize(mo, sig) == n
        sj, so = np.zeros(n), np.zeros(n)
        mujoco.mj_getState(mj, dj, sj, sig)
        moreau.mj_getState(mo, do, so, sig)
        assert rel_err(so, sj) <= TOL_SOLVE, int(sig)
    # restoring the full integration state reproduces the next step exactly
    sig = moreau.mjtState.mjSTATE_INTEGRATION
    s = np.zeros(moreau.mj_stateSize(mo, sig))
    moreau.mj_getState(mo, do, s, sig)
    d2 = moreau.MjData(mo)
    moreau.mj_setState(mo, d2, s, sig)
    moreau.mj_step(mo, do)
    moreau.mj_step(mo, d2)
    np.testing.assert_array_equal(d2.qpos, do.qpos)
    np.testing.assert_array_equal(d2.qvel, do.qvel)


def test_copy_data_keeps_views():
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    a, b = moreau.MjData(m), moreau.MjData(m)
    view = b.qpos
    a.qpos[:] = [0.1, 0.2]
    moreau.mj_step(m, a, 3)
    moreau.mj_copyData(b, m, a)
    np.testing.assert_array_equal(view, a.qpos)
    c = copy.copy(a)
    moreau.mj_step(m, c)
    assert c.time != a.time and a.qpos[0] == view[0]


def test_reset_keyframe_matches_mujoco():
    mj, mo = load_pair(model_path("humanoid"))
    assert mj.nkey > 0
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    mujoco.mj_resetDataKeyframe(mj, dj, 0)
    moreau.mj_resetDataKeyframe(mo, do, 0)
    np.testing.assert_array_equal(do.qpos, dj.qpos)
    np.testing.assert_array_equal(do.qvel, dj.qvel)
    with pytest.raises(IndexError):
        moreau.mj_resetDataKeyframe(mo, do, mj.nkey)


def test_named_access():
    mj, mo = load_pair(model_path("humanoid"))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    body = mj.body(3).name
    assert mo.body(body).id == 3
    assert rel_err(mo.body(body).mass, mj.body(body).mass) <= TOL_SMOOTH
    assert rel_err(do.body(body).xpos, dj.body(body).xpos) <= TOL_SMOOTH
    joint = mj.joint(1).name
    assert rel_err(do.joint(joint).qpos, dj.joint(joint).qpos) == 0.0
    np.testing.assert_array_equal(do.joint(0).qpos, dj.joint(0).qpos)
    act = mj.actuator(0).name
    do.actuator(act).ctrl = 0.5
    assert do.ctrl[0] == 0.5
    mo.body(body).mass = 3.0
    assert mo.body_mass[3] == 3.0
    with pytest.raises(KeyError):
        mo.body("no such body")


def test_set_const_after_writing_masses():
    mj, mo = load_pair(model_path("humanoid"))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    view = mo.body_subtreemass
    for m in (mj, mo):
        m.body_mass[2] *= 1.5
    mujoco.mj_setConst(mj, dj)
    moreau.mj_setConst(mo, do)
    assert rel_err(view, mj.body_subtreemass) <= TOL_SMOOTH
    assert rel_err(mo.dof_invweight0, mj.dof_invweight0) <= 1e-8
    mujoco.mj_step(mj, dj, 20)
    moreau.mj_step(mo, do, 20)
    assert rel_err(do.qpos, dj.qpos) <= TOL_SOLVE
