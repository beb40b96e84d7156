"""moreau.rollout and moreau.batch side by side with mujoco.rollout and mujoco.batch (4.0.0):
the same calls on the same inputs give the same shapes and numbers (to the rollout tolerance),
and moreau's results do not depend on the number of threads (bit for bit)."""

import numpy as np
import pytest
from conftest import TOL_SMOOTH, TOL_SOLVE, load_pair, lockstep, model_path, rel_err

import mujoco
import mujoco.batch
import mujoco.rollout
import moreau
from moreau import batch as mo_batch
from moreau import rollout as mo_rollout


def initial_states(mj, nbatch, rng):
    """FULLPHYSICS initial states: the reset state with perturbed velocities."""
    d = mujoco.MjData(mj)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    x = np.zeros((nbatch, mujoco.mj_stateSize(mj, spec)))
    for r in range(nbatch):
        d.qvel[:] = 0.2 * rng.standard_normal(mj.nv)
        mujoco.mj_getState(mj, d, x[r], spec)
    return x


@pytest.mark.parametrize("name,nstep,tol", [("cartpole", 60, 1e-10), ("humanoid", 30, TOL_SOLVE)])
def test_rollout_matches_mujoco(name, nstep, tol, rng):
    mj, mo = load_pair(model_path(name))
    nbatch = 5
    x0 = initial_states(mj, nbatch, rng)
    ctrl = 0.3 * rng.standard_normal((nbatch, nstep, mj.nu))
    # rollout 3 gets a NaN control: it stops after that step, in both
    ctrl[3, 7, 0] = np.nan
    s_mj, d_mj = mujoco.rollout.rollout(mj, mujoco.MjData(mj), x0, ctrl)
    s_mo, d_mo = mo_rollout.rollout(mo, moreau.MjData(mo), x0, ctrl)
    assert s_mo.shape == s_mj.shape and d_mo.shape == d_mj.shape
    assert rel_err(s_mo, s_mj) < tol
    assert rel_err(d_mo, d_mj) < tol
    assert (s_mo[3, 7:] == s_mo[3, 7]).all()
    # threads, chunks and a persistent pool change nothing
    for datas, chunk in (([moreau.MjData(mo) for _ in range(2)], None),
                         ([moreau.MjData(mo) for _ in range(3)], 1)):
        s2, d2 = mo_rollout.rollout(mo, datas, x0, ctrl, chunk_size=chunk, persistent_pool=True)
        assert np.array_equal(s2.view(np.uint64), s_mo.view(np.uint64))
        assert np.array_equal(d2.view(np.uint64), d_mo.view(np.uint64))
    mo_rollout.shutdown_persistent_pool()


def test_rollout_shapes_tiling_and_errors(rng):
    mj, mo = load_pair(model_path("cartpole"))
    x0 = initial_states(mj, 1, rng)[0]
    # one state, one control vector tiled over nstep, several models
    kw = dict(nstep=4)
    s_mj, d_mj = mujoco.rollout.rollout([mj] * 3, mujoco.MjData(mj), x0, np.ones(mj.nu), **kw)
    s_mo, d_mo = mo_rollout.rollout([mo] * 3, moreau.MjData(mo), x0, np.ones(mo.nu), **kw)
    assert s_mo.shape == s_mj.shape == (3, 4, x0.size)
    assert rel_err(s_mo, s_mj) < 1e-10
    # initial warm start and qfrc_applied as the control
    spec = mujoco.mjtState.mjSTATE_QFRC_APPLIED
    u = rng.standard_normal((2, 5, mj.nv))
    w = rng.standard_normal(mj.nv)
    a = mujoco.rollout.rollout(mj, mujoco.MjData(mj), x0, u, control_spec=spec, initial_warmstart=w)
    b = mo_rollout.rollout(mo, moreau.MjData(mo), x0, u, control_spec=spec, initial_warmstart=w)
    assert rel_err(b[0], a[0]) < 1e-10 and rel_err(b[1], a[1]) < 1e-10
    # into given outputs
    out = np.zeros((2, 5, x0.size))
    s, _ = mo_rollout.rollout(mo, moreau.MjData(mo), x0, u, control_spec=spec, state=out)
    assert s is out and rel_err(out, a[0]) < 1e-10
    with pytest.raises(ValueError, match="trailing dimension of initial_state"):
        mo_rollout.rollout(mo, moreau.MjData(mo), np.zeros(2), None, nstep=1)
    with pytest.raises(ValueError, match="mjSTATE_USER"):
        mo_rollout.rollout(mo, moreau.MjData(mo), x0, None, nstep=1, control_spec=1)
    with pytest.raises(ValueError, match="dimension 0 inferred as 2 but control has 3"):
        mo_rollout.rollout(mo, moreau.MjData(mo), np.stack([x0] * 2), np.zeros((3, 2, 1)))


def test_batch_matches_mujoco_batch(rng):
    mj, mo = load_pair(model_path("humanoid"))
    nsim = 4
    bj = mujoco.batch.Batch(mj, nsim, 2)
    bm = mo_batch.Batch(mo, nsim, 2)
    assert bm.state.shape == bj.state.shape and bm.nstate == bj.nstate
    assert bm.warning.shape == bj.warning.shape
    # MuJoCo's rows start at zero; give both the same reset state
    bj.reset()
    bm.reset()
    assert rel_err(bm.state, bj.state) == 0
    qvel = 0.3 * rng.standard_normal((nsim, mj.nv))
    ctrl = 0.2 * rng.standard_normal((nsim, mj.nu))
    for b in (bj, bm):
        b.bind("qvel")[:] = qvel
        b.ctrl = ctrl
        b.bind("qvel")[2, 0] = 1e200  # diverges: reset, counted
    xj, xm = bj.bind("xpos"), bm.bind("xpos")
    sj, sm = bj.bind("sensordata"), bm.bind("sensordata")
    for _ in range(3):
        bj.step(nstep=5)
        bm.step(nstep=5)
    assert rel_err(bm.state, bj.state) < TOL_SOLVE
    assert rel_err(xm, xj) < TOL_SOLVE
    assert rel_err(sm, sj) < TOL_SOLVE
    assert np.array_equal(bm.warning, bj.warning)
    assert bm.warning[2, int(mujoco.mjtWarning.mjWARN_BADQVEL), 1] == 1
    assert (bm.status == 0).all()
    # per-simulation parameters: body masses, then set_const, against MuJoCo's batch
    for b in (bj, bm):
        mass = b.expand("body_mass")
        mass[:, 1] *= np.array([1.0, 1.5, 2.0, 0.5])
        b.set_const()
        b.reset()
        b.step(nstep=10)
    assert rel_err(bm.expanded("body_subtreemass"), bj.expanded("body_subtreemass")) < 1e-12
    assert rel_err(bm.state, bj.state) < TOL_SOLVE


def test_batch_is_bit_identical_across_threads_and_to_a_serial_loop(rng):
    mo = moreau.MjModel.from_xml_path(model_path("humanoid"))
    nsim = 5
    qvel = 0.3 * rng.standard_normal((nsim, mo.nv))
    rows = []
    for nthread, persistent in ((1, False), (2, False), (3, True)):
        b = mo_batch.Batch(mo, nsim, nthread, persistent)
        b.qvel = qvel
        b.step(nstep=12)
        rows.append(b.state.copy())
    for r in rows[1:]:
        assert np.array_equal(r.view(np.uint64), rows[0].view(np.uint64))
    spec = int(moreau.mjtState.mjSTATE_INTEGRATION)
    for i in range(nsim):
        d = moreau.MjData(mo)
        d.qvel[:] = qvel[i]
        moreau.mj_step(mo, d, 12)
        x = np.zeros(moreau.mj_stateSize(mo, spec))
        moreau.mj_getState(mo, d, x, spec)
        assert np.array_equal(x.view(np.uint64), rows[0][i].view(np.uint64))
    with pytest.raises(ValueError, match="sorted"):
        b.step(ids=[2, 1])
    with pytest.raises(ValueError, match="use expand"):
        b.bind("body_mass")


def batch_pair(name, nsim, rng, nthread=1):
    """mujoco.batch and moreau.batch of one model, the same perturbed velocities, 5 steps in."""
    mj, mo = load_pair(model_path(name))
    bj, bo = mujoco.batch.Batch(mj, nsim, nthread), mo_batch.Batch(mo, nsim, nthread)
    qvel = 0.2 * rng.standard_normal((nsim, mj.nv))
    for b in (bj, bo):
        b.qvel = qvel
        b.step(nstep=5)
    return mj, mo, bj, bo


def test_named_views_match_mujoco_batch(rng):
    mj, mo, bj, bo = batch_pair("humanoid", 4, rng)
    joint = mj.joint(3).name
    for view, attr in ((lambda b: b.joint(joint), "qpos"), (lambda b: b.joint(joint), "qvel"),
                       (lambda b: b.body("torso"), "xpos"), (lambda b: b.body("torso"), "mass"),
                       (lambda b: b.geom(2), "xpos"), (lambda b: b.actuator(0), "ctrl"),
                       (lambda b: b.joint(joint), "range")):
        got, want = getattr(view(bo), attr), getattr(view(bj), attr)
        assert got.shape == want.shape, attr
        assert rel_err(got, want) < TOL_SOLVE, attr
    assert (bo.joint(joint).id, bo.joint(joint).name) == (bj.joint(joint).id, joint)
    # a write to a state field is that simulation's state; a model field expands
    for b in (bj, bo):
        b.joint(joint).qvel = np.arange(4.0)[:, None]
        b.body("torso").mass = (8.0 + np.arange(4.0))[:, None]
        b.step(nstep=3)
    assert (bo.qvel[:, mo.joint(joint).dofadr[0]] != 0).all()
    assert rel_err(bo.expanded("body_mass"), bj.expanded("body_mass")) < 1e-12
    assert (bo.expanded("body_mass")[:, 1] == 8.0 + np.arange(4.0)).all()
    assert rel_err(bo.qpos, bj.qpos) < TOL_SOLVE
    with pytest.raises(ValueError, match="computed"):
        bo.body("torso").xpos = 0.0
    with pytest.raises(ValueError, match="structural"):
        bo.joint(joint).qposadr = 0


def test_batch_jac_and_ray_are_bit_identical_across_threads_and_to_a_serial_loop(rng):
    mo = moreau.MjModel.from_xml_path(model_path("humanoid"))
    nsim = 5
    qvel = 0.3 * rng.standard_normal((nsim, mo.nv))
    body = np.array([1, 3, 5, 7, 9])
    point = rng.standard_normal((nsim, 3))
    pnt = np.array([[0, 0, 3.0], [1, 0, 1.0], [0.1, -1, 1.2]])
    vec = np.array([[0, 0, -1.0], [-1, 0, 0], [0, 1, 0]])
    excl = np.array([-1, -1, 1])
    results = []
    for nthread, persistent in ((1, False), (2, False), (3, True)):
        b = mo_batch.Batch(mo, nsim, nthread, persistent)
        b.qvel = qvel
        b.step(nstep=5)
        state = b.state.copy()
        results.append((*b.jac(body, point), *b.ray(pnt, vec, bodyexclude=excl, normal=True)))
        assert np.array_equal(b.state, state)  # the rows are untouched
        # a subset of the simulations: their rows of the whole call
        sub = (*b.jac(body[[1, 3]], point[[1, 3]], ids=[1, 3]),
               *b.ray(pnt, vec, bodyexclude=excl, normal=True, ids=[1, 3]))
        for a, full in zip(sub, results[-1]):
            assert np.array_equal(a, full[[1, 3]])
    for r in results[1:]:
        for a, a1 in zip(r, results[0]):
            assert a.dtype == a1.dtype and np.array_equal(a.view(np.uint8), a1.view(np.uint8))
    jacp, jacr, dist, geomid, normals = results[0]
    assert (geomid >= 0).any() and (geomid == -1).any()  # hits and misses
    # the serial loop: mj_kinematics, mj_comPos, mj_jac, mj_ray on each simulation's MjData
    for i in range(nsim):
        d = b.get_data(i)
        moreau.mj_kinematics(mo, d)
        moreau.mj_comPos(mo, d)
        jp, jr = np.zeros((3, mo.nv)), np.zeros((3, mo.nv))
        moreau.mj_jac(mo, d, jp, jr, point[i], int(body[i]))
        assert np.array_equal(jp.view(np.uint64), jacp[i].view(np.uint64))
        assert np.array_equal(jr.view(np.uint64), jacr[i].view(np.uint64))
        gid, nrm = np.zeros(1, np.int32), np.zeros(3)
        for k in range(len(pnt)):
            x = moreau.mj_ray(mo, d, pnt[k], vec[k], None, 1, int(excl[k]), gid, nrm)
            assert x == dist[i, k] and gid[0] == geomid[i, k]
            assert np.array_equal(nrm if gid[0] >= 0 else np.zeros(3), normals[i, k])
    with pytest.raises(ValueError, match="body"):
        b.jac(mo.nbody, [0, 0, 0])
    with pytest.raises(ValueError, match="bodyexclude"):
        b.ray(pnt, vec, bodyexclude=-2)



def test_bound_fields_are_bit_identical_across_threads_and_to_a_serial_loop(rng):
    """Each simulation writes its bound fields (float and int32) into its rows itself; a call
    on a subset leaves the other rows as they were."""
    mo = moreau.MjModel.from_xml_path(model_path("humanoid"))
    nsim, ids = 5, [1, 2, 4]
    qvel = 0.3 * rng.standard_normal((nsim, mo.nv))
    names = ("xpos", "sensordata", "M", "xquat", "moment_rowadr", "qfrc_constraint")
    results = []
    for nthread, persistent in ((1, False), (2, False), (3, True)):
        b = mo_batch.Batch(mo, nsim, nthread, persistent)
        b.qvel = qvel
        bound = [b.bind(n) for n in names]
        b.step(nstep=2)
        b.step(ids=ids, nstep=3)
        results.append([a.copy() for a in bound])
    assert results[0][4].dtype == np.int32
    for r in results[1:]:
        for a, a1 in zip(r, results[0]):
            assert a.dtype == a1.dtype and np.array_equal(a.view(np.uint8), a1.view(np.uint8))
    # the serial loop: 2 steps of every simulation, 3 more of those in ids
    for i in range(nsim):
        d = moreau.MjData(mo)
        d.qvel[:] = qvel[i]
        moreau.mj_step(mo, d, 5 if i in ids else 2)
        for name, got in zip(names, results[0]):
            want = np.asarray(getattr(d, name)).reshape(got[i].shape).astype(got.dtype)
            assert np.array_equal(want.view(np.uint8), got[i].view(np.uint8)), (i, name)


NAMED_XML = """
<mujoco>
  <asset>
    <material name="red" rgba="1 0 0 1"/>
    <material name="blue" rgba="0 0 1 0.5"/>
  </asset>
  <custom>
    <numeric name="gains" data="1 2 3"/>
    <numeric name="pad" size="4" data="5"/>
  </custom>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1" material="red"/>
    <body name="ball" pos="0 0 .3">
      <freejoint/>
      <geom name="ball" size=".1" material="blue"/>
    </body>
    <body name="box" pos=".3 0 .3" euler="10 20 30">
      <freejoint/>
      <geom name="box" type="box" size=".1 .1 .1"/>
      <site name="s" pos=".1 0 0" euler="0 30 0"/>
      <camera name="c" pos="0 0 1" euler="0 20 0"/>
    </body>
  </worldbody>
  <contact>
    <pair name="bf" geom1="ball" geom2="floor" friction="0.5 0.5 0.005 0.0001 0.0001"/>
  </contact>
</mujoco>
"""


def test_material_pair_numeric_and_copied_fields_in_batch_views_match_mujoco_batch(rng):
    mj = mujoco.MjModel.from_xml_string(NAMED_XML)
    mo = moreau.MjModel.from_xml_string(NAMED_XML)
    # the custom numerics and the named model views, as MuJoCo compiles them
    assert (mo.nnumeric, mo.nnumericdata) == (mj.nnumeric, mj.nnumericdata) == (2, 7)
    for f in ("numeric_adr", "numeric_size", "numeric_data"):
        assert np.array_equal(getattr(mo, f), getattr(mj, f)), f
    assert np.array_equal(mo.numeric("pad").data, mj.numeric("pad").data)
    assert moreau.mj_name2id(mo, int(moreau.mjtObj.mjOBJ_NUMERIC), "pad") == 1
    assert np.array_equal(mo.pair("bf").friction, mj.pair("bf").friction)
    assert np.array_equal(mo.material("blue").rgba, mj.material("blue").rgba)
    for bad, message in (('size="1" data="1 2"', "too much data"),
                         ('size="0"', "size must be positive"), ('data="1"', "name")):
        name = "" if message == "name" else 'name="x" '
        xml = f"<mujoco><custom><numeric {name}{bad}/></custom><worldbody/></mujoco>"
        with pytest.raises(ValueError, match=message):
            mujoco.MjModel.from_xml_string(xml)
        with pytest.raises(moreau.MjcfLoadError, match=message):
            moreau.MjModel.from_xml_string(xml)
    nsim = 3
    bj, bo = mujoco.batch.Batch(mj, nsim, 2), mo_batch.Batch(mo, nsim, 2)
    qvel = 0.5 * rng.standard_normal((nsim, mj.nv))
    for b in (bj, bo):
        b.reset()
        b.qvel = qvel
        b.step(nstep=20)
    views = ((lambda b: b.numeric("gains"), "data"), (lambda b: b.pair("bf"), "friction"),
             (lambda b: b.pair(0), "margin"), (lambda b: b.material("blue"), "rgba"),
             (lambda b: b.body("box"), "xquat"), (lambda b: b.body("box"), "xmat"),
             (lambda b: b.body("box"), "ximat"), (lambda b: b.geom("box"), "xmat"),
             (lambda b: b.site("s"), "xmat"), (lambda b: b.camera("c"), "xmat"))
    for view, attr in views:
        got, want = getattr(view(bo), attr), getattr(view(bj), attr)
        assert got.shape == want.shape, attr
        assert rel_err(got, want) < TOL_SOLVE, attr
    for name in ("xquat", "xmat", "cinert"):
        assert bo.bind(name).shape == bj.bind(name).shape, name
        assert rel_err(bo.bind(name), bj.bind(name)) < TOL_SOLVE, name
    # per-simulation pair friction and numerics expand as in MuJoCo
    for b in (bj, bo):
        b.pair("bf").friction = np.array([[0.1], [0.5], [1.0]]) * np.ones(5)
        b.numeric("gains").data = np.arange(9.0).reshape(3, 3)
        b.step(nstep=20)
    assert rel_err(bo.expanded("pair_friction"), bj.expanded("pair_friction")) == 0
    assert rel_err(bo.expanded("numeric_data"), bj.expanded("numeric_data")) == 0
    assert rel_err(bo.state, bj.state) < TOL_SOLVE
    with pytest.raises(ValueError, match="computed"):
        bo.body("box").xquat = 0.0


# springs of every joint type (polynomial stiffness), a tendon spring with armature, gravity
# compensation, sites: every term of MuJoCo's energy and every frame quaternion
SPRING_XML = """
<mujoco>
  <option><flag energy="enable"/></option>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="f" type="free" stiffness="1 0.5 0.25"/>
      <geom type="box" size=".1 .2 .3" mass="2"/>
      <body name="b" pos="0.2 0 0" quat="0.9 0.1 0.2 0.3" gravcomp="0.4">
        <joint name="h" axis="0 1 0" stiffness="3 1.5 2" springref="0.2"/>
        <geom type="capsule" size=".05 .2" mass="1" pos="0.1 0.05 0" euler="10 20 30"/>
        <site name="s1" pos="0.1 0 0"/>
        <body name="c" pos="0.3 0 0">
          <joint name="bl" type="ball" stiffness="2 0.7 1.1"/>
          <geom type="ellipsoid" size=".1 .05 .07" mass="0.5" pos="0.05 0.02 0.01"/>
          <site name="s2" pos="0.1 0.1 0" quat="0.5 0.5 0.5 0.5"/>
          <body name="e" pos="0.2 0 0">
            <joint name="sl" type="slide" axis="1 0 0" stiffness="5 2 3" springref="-0.1"/>
            <geom type="sphere" size=".05" mass="0.3"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="t" stiffness="7 4 9" springlength="0.2 0.25" armature="0.3">
      <site site="s1"/><site site="s2"/>
    </spatial>
  </tendon>
</mujoco>
"""

# MjData fields moreau computes on demand in MuJoCo's layout, or in the energy stage, and two
# more the batch binds
LAYOUT_FIELDS = ("xiquat", "geom_xquat", "site_xquat", "M", "qLD", "energy", "qLDiagInv", "wrap_xpos")


@pytest.mark.parametrize("name", ["humanoid", "springs"])
def test_frame_quaternions_sparse_inertia_and_energy_match_mujoco(name, rng):
    if name == "springs":
        mj, mo = mujoco.MjModel.from_xml_string(SPRING_XML), moreau.MjModel.from_xml_string(SPRING_XML)
    else:
        mj, mo = load_pair(model_path(name))
        for m in (mj, mo):
            m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    # MuJoCo's sparsity of M
    assert mo.nC == mj.nC
    for f in ("M_rownnz", "M_rowadr", "M_colind"):
        assert np.array_equal(getattr(mo, f), getattr(mj, f)), f
    nsim = 3
    bj, bo = mujoco.batch.Batch(mj, nsim, 2), mo_batch.Batch(mo, nsim, 3)
    bj.qvel = 0.5 * rng.standard_normal((nsim, mj.nv))
    bj.step(nstep=10)
    # the same state in both (MuJoCo's steps), then mj_forward: the fields at 1e-12
    bo.state[...] = bj.state
    for b in (bj, bo):
        for f in LAYOUT_FIELDS:
            b.bind(f)
        b.forward()
    assert (bj.energy != 0).all()
    for f in LAYOUT_FIELDS:
        got, want = bo.bind(f), bj.bind(f)
        assert f in mo_batch.DATA_FIELDS and got.shape == want.shape, f
        assert rel_err(got, want) < 1e-12, f
        assert rel_err(bo.body(1).xiquat, bj.body(1).xiquat) < 1e-12
        assert rel_err(bo.geom(0).xquat, bj.geom(0).xquat) < 1e-12
    # MjData: the same fields, pickled with the data; energy after mj_inverse too
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    bj.get_data(1, dj)
    moreau.mj_setState(mo, do, bj.state[1], int(moreau.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    import pickle
    copy = pickle.loads(pickle.dumps(do))
    for f in LAYOUT_FIELDS:
        assert getattr(do, f).shape == getattr(dj, f).shape, f
        assert rel_err(getattr(do, f), getattr(dj, f)) < 1e-12, f
        assert np.array_equal(getattr(copy, f), getattr(do, f)), f
    for lib, m, d in ((mujoco, mj, dj), (moreau, mo, do)):
        d.energy[:] = 0
        lib.mj_inverse(m, d)
    assert rel_err(do.energy, dj.energy) < 1e-12
    # without the energy flag the energy is not computed
    for lib, m, d in ((mujoco, mj, dj), (moreau, mo, do)):
        m.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_ENERGY)
        lib.mj_resetData(m, d)
        lib.mj_forward(m, d)
        assert (d.energy == 0).all()


# the integrators' matrices: qDeriv and qLU in MuJoCo's D layout, qH in the layout of M
INTEGRATOR_FIELDS = ("qDeriv", "qLU", "qH", "qHDiagInv")


@pytest.mark.parametrize("name", ["humanoid", "tendon_velocity"])
@pytest.mark.parametrize("integrator", ["implicit", "implicitfast", "Euler"])
def test_integrator_matrices_match_mujoco(name, integrator, rng):
    """qDeriv, qLU (implicit), qH, qHDiagInv (implicitfast, Euler with damping) after mj_step
    from the same state, in MuJoCo's sparse layouts, on MjData and bound in a batch."""
    mj, mo = load_pair(model_path(name))
    for m in (mj, mo):
        m.opt.integrator = int(getattr(mujoco.mjtIntegrator, f"mjINT_{integrator.upper()}"))
    assert mo.nD == mj.nD
    for f in ("D_rownnz", "D_rowadr", "D_colind", "D_diag"):
        assert np.array_equal(getattr(mo, f), getattr(mj, f)), f
    nsim = 3
    bj = mujoco.batch.Batch(mj, nsim, 2)
    bj.qvel = 0.5 * rng.standard_normal((nsim, mj.nv))
    if mj.nu:
        bj.ctrl = rng.uniform(-1, 1, (nsim, mj.nu))
    bj.step(nstep=5)
    bo = mo_batch.Batch(mo, nsim, 3)
    bo.state[...] = bj.state
    for b in (bj, bo):
        for f in INTEGRATOR_FIELDS:
            b.bind(f)
        b.step(nstep=1)
    assert rel_err(bo.state, bj.state) < 1e-10
    # what each integrator computes (the others stay zero, as MuJoCo leaves them)
    computed = {"implicit": ("qDeriv", "qLU"), "implicitfast": ("qDeriv", "qH", "qHDiagInv"),
                "Euler": ("qH", "qHDiagInv")}[integrator]
    for f in INTEGRATOR_FIELDS:
        got, want = bo.bind(f), bj.bind(f)
        assert got.shape == want.shape, f
        assert (want != 0).any() == (f in computed), f
        assert rel_err(got, want) < 1e-12, (f, rel_err(got, want))
    # MjData: the same fields after one mj_step, kept through pickling
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    bj.get_data(1, dj)
    moreau.mj_setState(mo, do, bj.state[1], int(moreau.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_step(mj, dj)
    moreau.mj_step(mo, do)
    import pickle
    copy = pickle.loads(pickle.dumps(do))
    for f in INTEGRATOR_FIELDS:
        assert getattr(do, f).shape == getattr(dj, f).shape, f
        assert rel_err(getattr(do, f), getattr(dj, f)) < 1e-12, f
        assert np.array_equal(getattr(copy, f), getattr(do, f)), f


def test_tendon_paths_and_adhesion_match_mujoco(rng):
    """ten_wrapadr, ten_wrapnum, wrap_obj (int32, as MuJoCo binds them) and qfrc_adhesion on
    spatial tendons through sites and a wrapping cylinder, a fixed tendon and a moving arm."""
    mj, mo = load_pair(model_path("tendon_velocity"))
    nsim = 3
    bj = mujoco.batch.Batch(mj, nsim, 2)
    bj.qvel = 2.0 * rng.standard_normal((nsim, mj.nv))
    bj.step(nstep=20)
    bo = mo_batch.Batch(mo, nsim, 2)
    bo.state[...] = bj.state
    fields = ("ten_wrapadr", "ten_wrapnum", "wrap_obj", "qfrc_adhesion")
    for b in (bj, bo):
        for f in fields:
            b.bind(f)
        b.step(nstep=3)
    assert (bj.bind("wrap_obj") >= 0).any()  # a path over the cylinder
    for f in fields:
        got, want = bo.bind(f), bj.bind(f)
        assert got.dtype == want.dtype and got.shape == want.shape, f
        assert np.array_equal(got, want), f
    assert rel_err(bo.state, bj.state) < 1e-10
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    bj.get_data(2, dj)
    moreau.mj_setState(mo, do, bj.state[2], int(moreau.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    import pickle
    copy = pickle.loads(pickle.dumps(do))
    for f in fields:
        assert np.array_equal(getattr(do, f), getattr(dj, f)), f
        assert getattr(do, f).dtype == getattr(dj, f).dtype, f
        assert np.array_equal(getattr(copy, f), getattr(do, f)), f


def dense(vals, rownnz, rowadr, colind, nv):
    out = np.zeros((len(rownnz), nv))
    for r, (n, a) in enumerate(zip(rownnz, rowadr)):
        out[r, colind[a:a + n]] = vals[a:a + n]
    return out


@pytest.mark.parametrize("name", ["humanoid", "tendon_velocity"])
def test_sparse_tendon_and_actuator_jacobians_match_mujoco(name, rng):
    """ten_J and actuator_moment in MuJoCo's sparse rows (ten_J_* on the model, moment_* on
    the data), on MjData and bound in a batch: values to 1e-12 and the same patterns, except
    that MuJoCo narrows a site transmission's row to its nonzeros at the state while moreau
    keeps the sites' dof chains (zeros included), so there the dense rows are compared."""
    mj, mo = load_pair(model_path(name))
    assert mo.nJten == mj.nJten
    for f in ("ten_J_rownnz", "ten_J_rowadr", "ten_J_colind"):
        assert np.array_equal(getattr(mo, f), getattr(mj, f)), f
    nsim = 3
    bj = mujoco.batch.Batch(mj, nsim, 2)
    bj.qvel = 0.5 * rng.standard_normal((nsim, mj.nv))
    bj.step(nstep=10)
    bo = mo_batch.Batch(mo, nsim, 2)
    bo.state[...] = bj.state
    fields = ("ten_J", "actuator_moment", "moment_rownnz", "moment_rowadr", "moment_colind")
    for b in (bj, bo):
        for f in fields:
            b.bind(f)
        b.forward()
    site = mj.actuator_trntype == int(mujoco.mjtTrn.mjTRN_SITE)
    assert rel_err(bo.bind("ten_J"), bj.bind("ten_J")) < 1e-12
    for i in range(nsim):
        args = lambda b: [b.bind(f)[i] for f in fields[1:]] + [mj.nv]
        got, want = dense(*args(bo)), dense(*args(bj))
        assert rel_err(got, want) < 1e-12, i
        assert np.array_equal(bo.bind("moment_rownnz")[i][~site], bj.bind("moment_rownnz")[i][~site])
        if not site.any():  # the same patterns and values
            assert rel_err(bo.bind("actuator_moment")[i], bj.bind("actuator_moment")[i]) < 1e-12
            for f in fields[2:]:
                got, want = bo.bind(f)[i], bj.bind(f)[i]
                assert got.dtype == want.dtype and np.array_equal(got, want), f
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    bj.get_data(0, dj)
    moreau.mj_setState(mo, do, bj.state[0], int(moreau.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    assert rel_err(do.ten_J, dj.ten_J) < 1e-12
    got = dense(do.actuator_moment, do.moment_rownnz, do.moment_rowadr, do.moment_colind, mj.nv)
    want = dense(dj.actuator_moment, dj.moment_rownnz, dj.moment_rowadr, dj.moment_colind, mj.nv)
    assert rel_err(got, want) < 1e-12


ENERGY_XML = """
<mujoco>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h" type="hinge" axis="0 1 0" stiffness="3" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 -0.5" size="0.05"/>
      <body pos="0.3 0 -0.5">
        <joint name="s" type="slide" axis="1 0 0" stiffness="2" springref="0.1"/>
        <geom type="sphere" size=".1"/>
      </body>
    </body>
  </worldbody>
  <sensor>
    SENSORS
  </sensor>
</mujoco>
"""


@pytest.mark.parametrize("sensors", [
    "",
    '<e_potential name="ep"/>',
    '<e_kinetic name="ek" cutoff="2.5"/>',
    '<e_kinetic/><e_potential noise="1"/><jointpos joint="h"/>',
])
@pytest.mark.parametrize("flag", [False, True])
def test_energy_sensors_match_mujoco(sensors, flag):
    """e_potential and e_kinetic: MuJoCo's values, cutoff and stage, and its energy-flag
    semantics (a sensor computes its energy once per velocity stage; with the flag disabled
    and no potential sensor the position stage zeroes both energies)."""
    xml = ENERGY_XML.replace("SENSORS", sensors)
    mj, mo = mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml)
    assert mo.sensor_type.tolist() == mj.sensor_type.tolist()
    assert mo.nsensordata == mj.nsensordata
    for m in (mj, mo):
        if flag:
            m.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for lib, m, d in ((mujoco, mj, dj), (moreau, mo, do)):
        d.qpos[:] = [0.3, 0.2]
        d.qvel[:] = [2.0, 1.0]

    def same(what):
        assert rel_err(do.energy, dj.energy) < 1e-12, (what, do.energy, dj.energy)
        assert rel_err(do.sensordata, dj.sensordata) < 1e-12, (what, do.sensordata, dj.sensordata)

    # stale values in energy show what each call computes, zeroes or leaves
    calls = [
        ("forward", lambda lib, m, d: lib.mj_forward(m, d)),
        ("step", lambda lib, m, d: lib.mj_step(m, d)),
        ("sensorPos then forward",
         lambda lib, m, d: (lib.mj_sensorPos(m, d), lib.mj_forward(m, d))),
        ("energyVel then forward",
         lambda lib, m, d: (lib.mj_energyVel(m, d), lib.mj_forward(m, d))),
        ("fwdPosition, sensorPos",
         lambda lib, m, d: (lib.mj_fwdPosition(m, d), lib.mj_sensorPos(m, d))),
        ("fwdVelocity, sensorPos",
         lambda lib, m, d: (lib.mj_fwdVelocity(m, d), lib.mj_sensorPos(m, d))),
        ("inverse", lambda lib, m, d: lib.mj_inverse(m, d)),
        ("step1", lambda lib, m, d: lib.mj_step1(m, d)),
        ("step2", lambda lib, m, d: lib.mj_step2(m, d)),
    ]
    for what, call in calls:
        for lib, m, d in ((mujoco, mj, dj), (moreau, mo, do)):
            d.energy[:] = [7.0, 8.0]
            call(lib, m, d)
        same(what)
        if what == "forward" and "cutoff" in sensors:
            assert dj.sensordata[0] == 2.5  # the cutoff bites
    for _ in range(20):
        mujoco.mj_step(mj, dj)
        moreau.mj_step(mo, do)
        same("steps")


def test_batch_data_fields_are_mujocos_but_the_named_few():
    """Every field mujoco.batch binds, moreau binds, except what moreau's MjData does not
    show: flexes, sleeping, plugins, plasticity, history buffers and user data."""
    missing = {
        "flexedge_J", "flexedge_length", "flexedge_velocity", "flexelem_aabb", "flexvert_xpos",
        "flexvert_hessian", "flexedge_hessian", "flex_hessian_valid", "flexelem_krot",
        "flexvert_conage", "flexvert_lambda", "body_awake", "body_awake_ind", "dof_awake_ind",
        "parent_awake_ind", "tree_asleep", "tree_awake", "bvh_aabb_dyn", "bvh_active", "plugin",
        "plugin_data", "plugin_state", "plastic", "history", "userdata",
    }
    assert set(mujoco.batch.DATA_FIELDS) - set(mo_batch.DATA_FIELDS) == missing
    assert set(mo_batch.DATA_FIELDS) <= set(mujoco.batch.DATA_FIELDS)



COUNTS = ("ncon", "nefc", "ne", "nf", "nl", "nJ", "nA", "nisland", "nidof", "solver_niter",
          "solver_nnz")

# solver options: `nA` (nonzeros of efc_AR) is 0 unless PGS or the noslip pass forms AR
OPTIONS = {
    "default": {},
    "pgs": {"solver": 0},
    "pgs_sparse": {"solver": 0, "jacobian": 1},
    "noslip_sparse": {"noslip_iterations": 3, "jacobian": 1},
    "pgs_no_islands": {"solver": 0, "jacobian": 1, "disableflags": 1 << 18},
}


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", ["constraints", "islands", "humanoids", "sparse_patterns"])
def test_constraint_counts_match_mujoco_batch(name, options, rng):
    """The constraint problem's counts per simulation (int32, `solver_niter` and `solver_nnz`
    per island) equal MuJoCo's: contacts, equality, friction-loss and limit rows, dense and
    sparse `efc_J`, and `efc_AR` (`nA`: `nefc²` dense, the row pairs sharing a kinematic tree
    sparse)."""
    mj, mo = load_pair(model_path(name))
    for m in (mj, mo):
        for k, v in OPTIONS[options].items():
            setattr(m.opt, k, v)
    assert mj.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_ISLAND) == (
        OPTIONS[options].get("disableflags", 0))
    nsim = 3
    qvel = 0.2 * rng.standard_normal((nsim, mj.nv))
    bound = []
    for b in (mujoco.batch.Batch(mj, nsim, 1), mo_batch.Batch(mo, nsim, 2)):
        b.reset()
        b.qvel = qvel
        bound.append([b.bind(f) for f in COUNTS])
        b.step(nstep=5)
    for f, want, got in zip(COUNTS, *bound):
        assert got.dtype == np.int32 and got.shape == want.shape, f
        assert np.array_equal(got, want), (f, got, want)
    # the options took effect: AR formed (or not) in both engines, with rows to count
    nefc, n_a = bound[0][COUNTS.index("nefc")], bound[0][COUNTS.index("nA")]
    assert (nefc > 0).all()
    assert ((n_a > 0) == (options != "default")).all()
    # the MjData attributes are the batch's
    d = moreau.MjData(mo)
    d.qvel[:] = qvel[0]
    moreau.mj_step(mo, d, 5)
    for f, got in zip(COUNTS, bound[1]):
        assert np.array_equal(np.asarray(getattr(d, f)), got[0]), f


# solver options for `solver_nnz`: each solver on a dense and a sparse efc_J, with islands off
NNZ_OPTIONS = {
    "newton": {},
    "newton_dense": {"jacobian": 0},
    "newton_sparse": {"jacobian": 1},
    "newton_sparse_noslip": {"jacobian": 1, "noslip_iterations": 3},
    "newton_sparse_no_islands": {"jacobian": 1, "disableflags": 1 << 18},
    "cg": {"solver": 1},
    "cg_sparse": {"solver": 1, "jacobian": 1},
    "pgs": {"solver": 0},
    "pgs_sparse": {"solver": 0, "jacobian": 1},
}


@pytest.mark.parametrize("options", list(NNZ_OPTIONS))
@pytest.mark.parametrize("name", ["humanoids", "islands", "box_stack", "constraints", "noslip"])
def test_solver_nnz_matches_mujoco(name, options, rng):
    """`solver_nnz[mjNISLAND]` equals MuJoCo's after every step of a 150-step run with random
    controls, all 20 entries (entries of islands a step does not have keep their old values in
    both): PGS counts efc_AR, CG efc_J, Newton its dense Hessian or, sparse, MuJoCo's count of
    M (simple bodies' rows hold only their diagonal), the Hessian's factor and JᵀJ; a Newton
    solve that stops before its first iteration counts efc_J. Both engines step from MuJoCo's
    state (mjSTATE_INTEGRATION, with the warm start) so they stay on one trajectory."""
    mj, mo = load_pair(model_path(name))
    for m in (mj, mo):
        for k, v in NNZ_OPTIONS[options].items():
            setattr(m.opt, k, v)
    assert mujoco.mj_isSparse(mj) == (
        NNZ_OPTIONS[options].get("jacobian", 2) == 1 or (
            "jacobian" not in NNZ_OPTIONS[options] and mj.nv >= 60))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    seen = set()
    for step in lockstep(mj, mo, dj, do, 150, rng):
        assert do.nefc == dj.nefc and do.nisland == dj.nisland, step
        got, want = np.asarray(do.solver_nnz), dj.solver_nnz
        assert got.dtype == np.int32 and got.shape == want.shape == (20,)
        assert np.array_equal(got, want), (step, got, want)
        seen.update(int(x) for x in want if x)
    # there were counts to compare
    assert seen
    mujoco.mj_resetData(mj, dj)
    moreau.mj_resetData(mo, do)
    assert np.array_equal(do.solver_nnz, dj.solver_nnz) and not dj.solver_nnz.any()


@pytest.mark.parametrize("options", ["newton", "newton_sparse_no_islands", "pgs_sparse"])
def test_solver_nnz_is_the_last_solves(options, rng):
    """`solver_nnz` is the count of the last solve, not of the rows there now: moreau forms
    the sparse Newton counts when they are read, from the inputs the solve kept. After a run,
    a position stage at an earlier pose of the run (`mj_fwdPosition`: new efc_J and islands,
    no solve) leaves MuJoCo's counts as they were, and moreau's equal them. The pose is one
    where MuJoCo's own `mj_forward` counts otherwise, so a count of the current rows fails."""
    mj, mo = load_pair(model_path("humanoids"))
    for m in (mj, mo):
        for k, v in NNZ_OPTIONS[options].items():
            setattr(m.opt, k, v)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    poses = []
    for _ in lockstep(mj, mo, dj, do, 120, rng):
        poses.append((dj.qpos.copy(), dj.solver_nnz.copy()))
    last = dj.solver_nnz.copy()
    assert last.any() and np.array_equal(do.solver_nnz, last)
    qpos = next(q for q, nnz in poses if not np.array_equal(nnz, last))
    probe = mujoco.MjData(mj)
    probe.qpos[:] = qpos
    mujoco.mj_forward(mj, probe)
    assert not np.array_equal(probe.solver_nnz, last)
    for lib, m, d in ((mujoco, mj, dj), (moreau, mo, do)):
        d.qpos[:] = qpos
        lib.mj_fwdPosition(m, d)
    assert do.nefc == dj.nefc
    assert np.array_equal(dj.solver_nnz, last)
    assert np.array_equal(do.solver_nnz, last)


# MuJoCo keeps the lights' optical properties as float32
LIGHT_FLOAT32 = {"light_ambient", "light_attenuation", "light_bulbradius", "light_cutoff",
                 "light_diffuse", "light_exponent", "light_intensity", "light_range",
                 "light_softness", "light_specular"}


def test_lights_match_mujoco(rng):
    mj, mo = load_pair(model_path("lights"))
    assert mo.nlight == mj.nlight == 8
    fields = sorted(f for f in dir(mj) if f.startswith("light_"))
    for f in fields:
        got, want = np.asarray(getattr(mo, f)), np.asarray(getattr(mj, f))
        assert got.shape == want.shape, f
        if f in LIGHT_FLOAT32:
            assert np.array_equal(got.astype(np.float32), want), f
        else:
            assert rel_err(got, want) < 1e-12, f
    assert mo.light("l3").pos.tolist() == mj.light("l3").pos.tolist()
    assert moreau.mj_name2id(mo, int(moreau.mjtObj.mjOBJ_LIGHT), "l4") == 5
    # poses after mj_forward at moving states, every mode
    nsim = 3
    bj, bo = mujoco.batch.Batch(mj, nsim, 2), mo_batch.Batch(mo, nsim, 2)
    bj.qvel = 2.0 * rng.standard_normal((nsim, mj.nv))
    bj.step(nstep=20)
    bo.state[...] = bj.state
    for b in (bj, bo):
        b.bind("light_xpos")
        b.bind("light_xdir")
        b.forward()
    for f in ("light_xpos", "light_xdir"):
        assert bo.bind(f).shape == bj.bind(f).shape == (nsim, 8, 3), f
        assert rel_err(bo.bind(f), bj.bind(f)) < 1e-12, f
    for name in ("l2", "l6"):
        assert rel_err(bo.light(name).xdir, bj.light(name).xdir) < 1e-12
        assert rel_err(bo.light(name).pos, bj.light(name).pos) == 0
    # a light's position per simulation (an expanded model field)
    for b in (bj, bo):
        b.light("l5").pos = np.arange(9.0).reshape(3, 3)
        b.forward()
    assert rel_err(bo.expanded("light_pos"), bj.expanded("light_pos")) == 0
    assert rel_err(bo.bind("light_xpos"), bj.bind("light_xpos")) < 1e-12
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    bj.get_data(2, dj)
    moreau.mj_setState(mo, do, bj.state[2], int(moreau.mjtState.mjSTATE_INTEGRATION))
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    assert rel_err(do.light("l2").xpos, dj.light("l2").xpos) < 1e-12
    assert rel_err(do.light_xdir, dj.light_xdir) < 1e-12
    for bad, message in (('dir="0 0 0"', "zero direction"),
                         ('mode="targetbody" target="nope"', "unknown target body"),
                         ('color="1 1 1"', "color")):
        xml = f'<mujoco><worldbody><body name="b"><light {bad}/></body></worldbody></mujoco>'
        with pytest.raises(ValueError, match=message.split()[0]):
            mujoco.MjModel.from_xml_string(xml)
        with pytest.raises(moreau.MjcfLoadError, match=message):
            moreau.MjModel.from_xml_string(xml)


def test_batch_rollout_matches_mujoco_batch(rng):
    mj, mo, bj, bo = batch_pair("zoo", 3, rng)
    ctrl = 0.3 * rng.standard_normal((3, 25, mj.nu))
    ctrl[1, 9, 0] = np.nan  # simulation 1 stops there, in both
    full = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
    record = ("qpos", full, "sensordata", "xpos")
    rj = bj.rollout(25, ctrl, record=record)
    ro = bo.rollout(25, ctrl, record=record)
    for k in record:
        assert ro[k].shape == rj[k].shape and ro[k].dtype == rj[k].dtype, k
        ok = np.isfinite(rj[k])
        assert np.array_equal(ok, np.isfinite(ro[k])), k
        assert rel_err(ro[k][ok], rj[k][ok]) < TOL_SOLVE, k
    assert (ro["qpos"][1, 9:] == ro["qpos"][1, 9]).all() or np.isnan(ro["qpos"][1, 9:]).all()
    assert rel_err(bo.state[[0, 2]], bj.state[[0, 2]]) < TOL_SOLVE
    # out= buffers, a subset of simulations, and the result does not depend on threads
    _, mo2, _, b2 = batch_pair("zoo", 3, np.random.default_rng(5), nthread=2)
    _, mo3, _, b3 = batch_pair("zoo", 3, np.random.default_rng(5), nthread=1)
    buf = np.empty((2, 10, mo.nq))
    r2 = b2.rollout(10, ctrl[:2, :10], record=("qpos",), ids=[0, 2], out={"qpos": buf})
    r3 = b3.rollout(10, ctrl[:2, :10], record=("qpos",), ids=[0, 2])
    assert r2["qpos"] is buf
    assert np.array_equal(buf.view(np.uint64), r3["qpos"].view(np.uint64))
    with pytest.raises(ValueError, match="out"):
        b3.rollout(10, None, record=("qpos",), out={"qpos": np.empty((3, 10, 1))})


def test_batch_jac_and_ray_match_mujoco_batch(rng):
    mj, mo, bj, bo = batch_pair("humanoid", 4, rng)
    point = [0.1, 0.2, 1.0]
    jj, jo = bj.jac(3, point), bo.jac(np.array([3, 3, 3, 3]), point)
    for a, b in zip(jo, jj):
        assert a.shape == b.shape == (4, 3, mj.nv)
        assert rel_err(a, b) < TOL_SMOOTH
    state = bo.state.copy()
    pnt, vec = np.array([[0, 0, 3.0], [1, 0, 1.0]]), np.array([[0, 0, -1.0], [-1, 0, 0]])
    rj, ro = bj.ray(pnt, vec, normal=True, ids=[1, 3]), bo.ray(pnt, vec, normal=True, ids=[1, 3])
    assert [a.shape for a in ro] == [a.shape for a in rj] == [(2, 2), (2, 2), (2, 2, 3)]
    assert np.array_equal(ro[1], rj[1]) and (ro[1] >= 0).all()
    assert rel_err(ro[0], rj[0]) < TOL_SMOOTH and rel_err(ro[2], rj[2]) < 1e-8
    assert np.array_equal(bo.state, state)  # the batch is untouched


def test_solver_stop_flips_are_mujocos_own():
    """Why moreau's batch and MuJoCo's part by up to ~1e-10 in a velocity once contacts act
    (TOL_SOLVE in conftest.py): Newton's stop tests (docs/mujoco-behaviour.md#newton: 0
    iterations when the gradient and the decrement at the warm start are under `tolerance`,
    later `improvement` or `gradient` under it) are thresholds, and a state that differs in
    the 13th digit can fall on the other side of one. Then one engine takes one Newton
    iteration more than the other and the step's `qacc` differs by that iteration's correction
    of the converged solve. `models/box_push.xml` (a box sliding on the floor, elliptic cone,
    Euler at 10 ms) from the batch's velocities: measured, the first such step is the 204th,
    where the `qvel` of the two runs (until then within 1e-13) move 8.6e-11 apart; eight of
    the first 300 steps flip, and 8.6e-11 stays the largest difference.
    The test shows the flips are MuJoCo's own: from MuJoCo's state moreau takes MuJoCo's
    iteration count at every step with `qacc` within 1e-12; and at each step where the two
    free runs take different counts, MuJoCo started from moreau's state takes moreau's count
    and gives its `qacc`."""
    mj, mo = load_pair(model_path("box_push"))
    qvel = 0.2 * np.random.default_rng(12345).standard_normal((4, mj.nv))[1]
    dj, do, dx = mujoco.MjData(mj), moreau.MjData(mo), mujoco.MjData(mj)
    dj.qvel[:] = qvel
    do.qvel[:] = qvel
    flips, worst = 0, 0.0
    for _ in range(300):
        # moreau from MuJoCo's state, and MuJoCo from moreau's
        dy = moreau.MjData(mo)
        for a, b in ((dy, dj), (dx, do)):
            a.qpos[:], a.qvel[:], a.qacc_warmstart[:] = b.qpos, b.qvel, b.qacc_warmstart
            a.time = b.time
        moreau.mj_forward(mo, dy)
        mujoco.mj_forward(mj, dx)
        mujoco.mj_step(mj, dj)
        moreau.mj_step(mo, do)
        assert dy.solver_niter[0] == dj.solver_niter[0]
        assert rel_err(dy.qacc, dj.qacc) < 1e-12
        if do.solver_niter[0] != dj.solver_niter[0]:
            flips += 1
            assert dx.solver_niter[0] == do.solver_niter[0]
            assert rel_err(do.qacc, dx.qacc) < 1e-12
        worst = max(worst, rel_err(do.qvel, dj.qvel))
    assert flips > 0  # the case still shows what it explains
    assert worst < TOL_SOLVE


CART = """
<mujoco>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <body name="cart" pos="0 0 .1">
      <joint name="slide" type="slide" axis="1 0 0"/>
      <geom type="box" size=".1 .1 .05" mass="1"/>
      <body name="pole" pos="0 0 .05">
        <joint name="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 .5" size=".02" mass=".1"/>
      </body>
    </body>
    <body pos="1 0 .3">
      <freejoint/>
      <geom size=".1"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="slide"/>
    <motor joint="hinge"/>
  </actuator>
  <keyframe>
    <key qpos="0.3 0.5 1 0 .099 1 0 0 0"/>
  </keyframe>
</mujoco>
"""


def _raised(call):
    """`(exception class name, message)` of what `call()` raises, or None."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 (compared between the libraries)
        return type(e).__name__, str(e)
    return None


def test_batch_errors_are_mujocos_words():
    """The same wrong calls raise the same class with the same text in both batches: hints
    for model, option and arena fields and for misspellings, range and shape checks of the
    extension object, writes to outputs, caller-model refusals."""
    mj, mo = (lib.MjModel.from_xml_string(CART) for lib in (mujoco, moreau))
    n = 4
    cases = {
        "bind a model field": lambda b: b.bind("body_mass"),
        "bind an option field": lambda b: b.bind("timestep"),
        "bind an arena field": lambda b: b.bind("efc_force"),
        "bind a misspelling": lambda b: b.bind("qpso"),
        "bind a scalar": lambda b: b.bind("maxuse_con"),
        "expand a data field": lambda b: b.expand("xpos"),
        "expand an option field": lambda b: b.expand("timestep"),
        "expand asset data": lambda b: b.expand("mesh_vert"),
        "expanded of a data field": lambda b: b.expanded("qpos"),
        "record a misspelling": lambda b: b.rollout(1, record=("qpso",)),
        "ids out of range": lambda b: b.step([0, n]),
        "ids out of order": lambda b: b.step([2, 1]),
        "get_data of no simulation": lambda b: b.get_data(n),
        "get_model of no simulation": lambda b: b.get_model(n),
        "error of no simulation": lambda b: b.error(n),
        "write an output": lambda b: setattr(b, "xpos", 0),
        "write a named output": lambda b: setattr(b.body("pole"), "xpos", 0),
        "a model field as attribute": lambda b: b.body_mass,
        "an option field as attribute": lambda b: b.timestep,
        "a computed view": lambda b: b.actuator(1).moment,
        "keyframe wrapping to 0": lambda b: b.reset(keyframe=2**32),
        "keyframe out of range": lambda b: b.reset(keyframe=1),
        "body not an integer": lambda b: b.jac(0.9, np.zeros(3)),
        "bodyexclude out of range": lambda b: b.ray(np.zeros(3), [0, 0, 1], bodyexclude=-2),
        "caller models of another count": lambda b: b.set_models([b.model] * (n - 1)),
        "caller models of another layout": lambda b: b.set_models(
            [type(b.model).from_xml_string("<mujoco/>")] * n),
        "jac point shape": lambda b: b._b.jac(None, np.zeros(n, np.int32), np.zeros((n, 2)),
                                              None, None),
        "jac body shape": lambda b: b._b.jac(None, np.zeros(n - 1, np.int32), np.zeros((n, 3)),
                                             None, None),
        "jac output shape": lambda b: b._b.jac(None, np.zeros(n, np.int32), np.zeros((n, 3)),
                                               np.zeros((n, 3, 2)), None),
        "jac id": lambda b: b._b.jac(np.array([n], np.int32), np.zeros(1, np.int32),
                                     np.zeros((1, 3)), None, None),
        "jac body id": lambda b: b._b.jac(None, np.full(n, 99, np.int32), np.zeros((n, 3)),
                                          None, None),
    }
    bj, bo = mujoco.batch.Batch(mj, n), mo_batch.Batch(mo, n)
    for what, call in cases.items():
        expected = _raised(lambda: call(bj))
        assert expected is not None, what
        assert _raised(lambda: call(bo)) == expected, what
    # misspellings: the same hint, whose close matches come from each library's field tables
    for call, start in (
        (lambda b: b.expand("body_mas"), "body_mas is not an expandable MjModel field (did "
                                         "you mean 'body_mass'"),
        (lambda b: b.joint("hinge").qpso, "qpso is not a field of a joint (did you mean 'qpos'"),
    ):
        for b in (bj, bo):
            assert _raised(lambda: call(b))[1].startswith(start)
    # caller models: expand and set_const refuse, as set_models refuses expanded fields
    for b in (bj, bo):
        b.set_models(b.model)
    for what in ("expand", "set_const"):
        call = (lambda b: b.expand("body_mass")) if what == "expand" else (lambda b: b.set_const())
        expected = _raised(lambda: call(bj))
        assert expected[0] == "FatalError" and _raised(lambda: call(bo)) == expected, what
    for b in (bj, bo):
        b.set_models(None)
        b.expand("body_mass")
    expected = _raised(lambda: bj.set_models(mj))
    assert expected[0] == "FatalError" and _raised(lambda: bo.set_models(mo)) == expected


def test_rollout_record_buffers_are_checked_as_mujocos():
    """`_Batch.rollout` (the extension object's, which `Batch.rollout` calls) refuses what
    MuJoCo's refuses, with its words: a record of an unknown field or an invalid spec, a buffer
    of another shape, element type or byte order, one that is not an array, not writable or not
    C-contiguous, a malformed record, too short a control."""
    mj, mo = (lib.MjModel.from_xml_string(CART) for lib in (mujoco, moreau))
    n, ctrl = 3, int(mujoco.mjtState.mjSTATE_CTRL)
    swapped = np.dtype(np.float64).newbyteorder()
    readonly = np.empty((n, 3, mj.nq))
    readonly.flags.writeable = False
    bad = {
        "unknown field": ("nope", 0, np.empty((n, 3, 1))),
        "invalid spec": (None, -1, np.empty((n, 3, 0))),
        "too short": ("qpos", 0, np.empty((n, 1, mj.nq))),
        "float32": ("qpos", 0, np.empty((n, 3, mj.nq), np.float32)),
        "int64": ("qpos", 0, np.empty((n, 3, mj.nq), np.int64)),
        "byte order": ("qpos", 0, np.empty((n, 3, mj.nq), swapped)),
        "count as float": ("ncon", 0, np.empty((n, 3), np.float64)),
        "spec size": (None, int(mujoco.mjtState.mjSTATE_QVEL), np.empty((n, 3, mj.nv + 1))),
        "a list": ("qpos", 0, np.empty((n, 3, mj.nq)).tolist()),
        "read-only": ("qpos", 0, readonly),
        "strided": ("qpos", 0, np.empty((n, 3, 2 * mj.nq))[..., ::2]),
        "two items": ("qpos", 0),
    }
    bj, bo = mujoco.batch.Batch(mj, n), mo_batch.Batch(mo, n)
    for what, record in bad.items():
        expected = _raised(lambda: bj._b.rollout(None, 3, None, ctrl, [record]))
        assert expected is not None and expected[0] == "ValueError", what
        assert _raised(lambda: bo._b.rollout(None, 3, None, ctrl, [record])) == expected, what
    short = np.zeros((n, 2, mj.nu))
    expected = _raised(lambda: bj._b.rollout(None, 3, short, ctrl, []))
    assert _raised(lambda: bo._b.rollout(None, 3, short, ctrl, [])) == expected
    # nothing ran
    assert np.array_equal(bo.state, mo_batch.Batch(mo, n).state)


def test_batch_rollout_records_counts_and_control_specs_as_mujoco(rng):
    """Counts (`ncon`, `nefc`) and `solver_niter` record as int32, state fields and specs as
    float64, in both batches alike; a control spec of several components (ctrl and
    qfrc_applied) sets them before each substep, and one outside mjSTATE_USER is refused with
    controls (and ignored without, as MuJoCo's); the bound fields follow the rollout's last
    substep."""
    mj, mo = (lib.MjModel.from_xml_string(CART) for lib in (mujoco, moreau))
    n, nstep = 4, 6
    bj, bo = mujoco.batch.Batch(mj, n, 2), mo_batch.Batch(mo, n, 2)
    for b in (bj, bo):
        b.reset(keyframe=0)
        b.qpos[1::2, 4] += 0.5  # the ball of every other simulation starts in the air
    spec = int(mujoco.mjtState.mjSTATE_CTRL | mujoco.mjtState.mjSTATE_QFRC_APPLIED)
    control = 0.1 * rng.standard_normal((n, nstep, mj.nu + mj.nv))
    time = int(mujoco.mjtState.mjSTATE_TIME)
    record = ("ncon", "nefc", "solver_niter", time, "qpos", int(mujoco.mjtState.mjSTATE_ACT))
    ncon_o = bo.bind("ncon")
    rj = bj.rollout(nstep, control, control_spec=spec, record=record)
    ro = bo.rollout(nstep, control, control_spec=spec, record=record)
    for k in record:
        assert ro[k].shape == rj[k].shape and ro[k].dtype == rj[k].dtype, k
    assert np.array_equal(ro["ncon"], rj["ncon"]) and ro["ncon"].dtype == np.int32
    assert ro["ncon"][0, -1] > 0 and ro["ncon"][1, 0] == 0
    assert np.array_equal(ro["nefc"], rj["nefc"])
    assert np.array_equal(ro[time], rj[time])
    assert rel_err(ro["qpos"], rj["qpos"]) < TOL_SOLVE
    assert np.array_equal(ncon_o, ro["ncon"][:, -1])
    qvel = int(mujoco.mjtState.mjSTATE_QVEL)
    ctrl = np.zeros((n, 1, mj.nv))
    expected = _raised(lambda: bj._b.rollout(None, 1, ctrl, qvel, []))
    assert expected is not None and _raised(lambda: bo._b.rollout(None, 1, ctrl, qvel, [])) == expected
    assert bj._b.rollout(None, 1, None, qvel, []) == bo._b.rollout(None, 1, None, qvel, []) == 0
    expected = _raised(lambda: bj._b.rollout(None, 0, None, qvel, []))
    assert expected is not None and _raised(lambda: bo._b.rollout(None, 0, None, qvel, [])) == expected
    # the recorded states are a serial loop's, substep by substep
    d = moreau.MjData(mo)
    for i in range(n):
        moreau.mj_resetDataKeyframe(mo, d, 0)
        d.qpos[4] += 0.5 * (i % 2)
        for t in range(nstep):
            d.ctrl[:], d.qfrc_applied[:] = control[i, t, :mj.nu], control[i, t, mj.nu:]
            moreau.mj_step(mo, d)
            assert np.array_equal(ro["qpos"][i, t], d.qpos), (i, t)
            assert ro["ncon"][i, t] == d.ncon


def test_set_const_refusal_is_mujocos(rng):
    """`set_const` fails the simulations whose model `mj_setConst` refuses (a slider body of
    zero mass, MuJoCo 4.0.0's "setInertia0: moving body 1 has 0 mass"; a mass of 1e-20 or -1,
    or a zero-mass body that is not a slider, passes), with the same ids, status and text as
    MuJoCo's batch; the other simulations' constants are recomputed, and a simulation outside
    the call keeps its status."""
    slider = """
      <mujoco>
        <worldbody>
          <body>
            <joint type="slide"/>
            <geom size=".1" mass="1" contype="0" conaffinity="0"/>
          </body>
          <body pos="1 0 0">
            <freejoint/>
            <geom size=".1" mass="1" contype="0" conaffinity="0"/>
          </body>
        </worldbody>
      </mujoco>"""
    mj, mo = (lib.MjModel.from_xml_string(slider) for lib in (mujoco, moreau))
    masses = np.array([[0, 1], [2, 1], [-0.0, 1], [1e-20, 1], [-1, 1], [1, 0], [0, 1]])
    n = len(masses)
    bj, bo = mujoco.batch.Batch(mj, n), mo_batch.Batch(mo, n)
    for b in (bj, bo):
        b.expand("body_mass")[:, 1:] = masses
    ids = np.arange(n - 1)
    with pytest.raises(mujoco.batch.SimulationError) as ej:
        bj.set_const(ids)
    with pytest.raises(mo_batch.SimulationError) as eo:
        bo.set_const(ids)
    assert np.array_equal(eo.value.ids, ej.value.ids) and list(eo.value.ids) == [0, 2]
    assert np.array_equal(bo.status, bj.status) and bo.status[-1] == 0
    assert [bo.error(i) for i in range(n)] == [bj.error(i) for i in range(n)]
    assert bo.error(0) == "setInertia0: moving body 1 has 0 mass"
    assert str(eo.value).endswith("2 of 6 simulations (0, 2); simulation 0: " + bo.error(0))
    # the others' constants were recomputed, to MuJoCo's
    for i in (1, 3, 5):
        assert rel_err(bo.expanded("dof_invweight0")[i], bj.expanded("dof_invweight0")[i]) \
            < TOL_SMOOTH, i
