"""moreau.batch's model fields side by side with mujoco.batch (4.0.0): which fields expand,
their shapes, each simulation running on its own values (floats, ints, flags, MjOption
fields), set_const's derived constants, the structural fields moreau cannot change per
simulation, and the named views over them."""

import numpy as np
import pytest
from conftest import TOL_SOLVE, rel_err

import mujoco
import mujoco.batch
import moreau
from moreau import batch as mo_batch

NSIM = 4

XML = """
<mujoco>
  <option density="1.2"/>
  <size nuser_jnt="2"/>
  <asset><material name="red" rgba="1 0 0 1"/></asset>
  <custom><numeric name="gains" data="1 2 3"/></custom>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="cart" pos="0 0 .3">
      <joint name="slide" type="slide" axis="1 0 0" range="-1 1" user="1 2"/>
      <geom name="cart" type="box" size=".1 .1 .05" mass="1" material="red"/>
      <body name="pole" pos="0 0 .05">
        <joint name="hinge" axis="0 1 0" damping=".1"/>
        <geom name="pole" type="capsule" fromto="0 0 0 0 0 .5" size=".02" mass=".1"/>
      </body>
    </body>
    <body name="ball" pos=".5 0 .5">
      <freejoint name="free"/>
      <geom name="ball" size=".05" fluidshape="ellipsoid"/>
    </body>
  </worldbody>
  <contact><pair name="touch" geom1="floor" geom2="ball"/></contact>
  <equality><connect name="conn" body1="ball" anchor="0 0 0" active="false"/></equality>
  <actuator>
    <motor name="push" joint="slide" gear="5"/>
    <position name="servo" joint="hinge" kp="2"/>
  </actuator>
  <keyframe><key name="up" qpos="0.1 0.2"/></keyframe>
</mujoco>
"""


def pair():
    return mujoco.MjModel.from_xml_string(XML), moreau.MjModel.from_xml_string(XML)


def test_model_fields_are_mujocos_that_moreau_has():
    mo = moreau.MjModel.from_xml_string("<mujoco/>")
    held = {n for n in mujoco.batch.MODEL_FIELDS
            if n.startswith("opt.") and hasattr(mo.opt, n[4:])
            or isinstance(getattr(mo, n, None), np.ndarray)}
    assert set(mo_batch.MODEL_FIELDS) == held
    # MuJoCo's options and arrays moreau has no counterpart of: flexes, plugins, BVHs, ...
    assert len(mo_batch.MODEL_FIELDS) >= 320
    assert {"opt.iterations", "eq_type", "geom_contype", "jnt_qposadr", "body_user"} <= held


def test_every_field_expands_to_the_models_values_with_mujocos_shapes():
    mj, mo = pair()
    bj, bo = mujoco.batch.Batch(mj, NSIM, 1), mo_batch.Batch(mo, NSIM, 1)
    for name in sorted(mo_batch.MODEL_FIELDS):
        vo, vj = bo.expand(name), bj.expand(name)
        assert vo.shape == vj.shape, name
        template = np.asarray(getattr(mo.opt, name[4:]) if name.startswith("opt.")
                              else getattr(mo, name))
        assert np.array_equal(vo, np.broadcast_to(template, vo.shape)), name
        if name.startswith("opt."):
            assert vo.dtype == vj.dtype, name
        else:
            assert vo.dtype == template.dtype, name


def test_each_simulation_runs_on_its_values_as_in_mujoco_batch():
    mj, mo = pair()
    bj, bo = mujoco.batch.Batch(mj, NSIM, 2), mo_batch.Batch(mo, NSIM, 2)
    k = np.arange(NSIM)
    for b in (bj, bo):
        b.expand("dof_damping")[:, 1] = 0.1 + 0.2 * k
        b.expand("geom_friction")[:, 0, 0] = 0.5 + 0.25 * k
        b.expand("actuator_gainprm")[:, 0, 0] = 1 + k
        b.expand("geom_contype")[:, 0] = k % 2  # the floor collides in odd simulations
        b.expand("jnt_limited")[:, 0] = k < 2
        b.expand("opt.gravity")[:, 2] = -9.81 + k
        b.expand("opt.iterations")[:] = 5 + k
        b.expand("opt.integrator")[:] = k % 4  # Euler, RK4, implicit, implicitfast
        b.expand("opt.cone")[:] = k % 2
        b.expand("eq_active0")[:, 0] = k == 3
        b.reset()
        b.ctrl = [1.0, 0.5]
        b.step(nstep=50)
    assert (bo.status == 0).all()
    assert rel_err(bo.state, bj.state) < TOL_SOLVE
    assert np.array_equal(bo.expand("opt.iterations"), bj.expand("opt.iterations"))
    # what each simulation ran on, as mujoco's get_model
    for sim in range(NSIM):
        mo_s, mj_s = bo.get_model(sim), bj.get_model(sim)
        assert mo_s.opt.integrator == mj_s.opt.integrator == sim % 4
        assert mo_s.geom_contype[0] == mj_s.geom_contype[0] == sim % 2
        assert bool(mo_s.jnt_limited[0]) == bool(mj_s.jnt_limited[0]) == (sim < 2)


def test_set_const_derives_what_mujocos_does_from_sizes_and_masses():
    mj, mo = pair()
    bj, bo = mujoco.batch.Batch(mj, NSIM, 2), mo_batch.Batch(mo, NSIM, 2)
    k = np.arange(NSIM)
    ball, pole = mj.geom("ball").id, mj.geom("pole").id
    for b in (bj, bo):
        b.expand("geom_size")[:, ball, 0] = 0.05 * (1 + k)
        b.expand("geom_size")[:, pole, 1] = 0.25 * (1 + k)
        b.expand("body_mass")[:, 2] = 0.1 * (1 + k)
        b.set_const()
    for name in ("geom_rbound", "geom_aabb", "geom_fluid", "body_subtreemass",
                 "body_invweight0", "dof_invweight0", "actuator_acc0"):
        assert rel_err(bo.expanded(name), bj.expanded(name)) < 1e-10, name
    for b in (bj, bo):
        b.reset()
        b.step(nstep=100)
    assert rel_err(bo.state, bj.state) < TOL_SOLVE


def test_set_const_recomputes_the_geoms_bounding_volumes_as_mujoco():
    mj, mo = pair()
    for m in (mj, mo):
        m.geom_size[m.geom("ball").id] = [0.3, 0, 0]
        m.geom_size[m.geom("pole").id] = [0.1, 0.5, 0]
        m.geom_size[m.geom("cart").id] = [0.3, 0.1, 0.2]
        m.geom_margin[m.geom("cart").id] = 0.05
    mujoco.mj_setConst(mj, mujoco.MjData(mj))
    moreau.mj_setConst(mo, moreau.MjData(mo))
    for name in ("geom_rbound", "geom_aabb", "geom_fluid"):
        assert rel_err(getattr(mo, name), getattr(mj, name)) < 1e-12, name


def test_a_structural_field_that_differs_fails_only_its_simulation():
    _, mo = pair()
    b = mo_batch.Batch(mo, NSIM, 2)
    time = b.bind("time")
    eq_type = b.expand("eq_type")
    assert eq_type.dtype == np.int32 and eq_type.shape == (NSIM, 1)
    eq_type[[1, 3]] = 99
    with pytest.raises(mo_batch.SimulationError) as e:
        b.step()
    assert list(e.value.ids) == [1, 3]
    assert "eq_type" in b.error(1) and b.error(0) == ""
    assert time[1] == time[3] == 0 and (time[[0, 2]] > 0).all()
    with pytest.raises(ValueError, match="simulation 1: eq_type"):
        b.get_model(1)
    eq_type[:] = mo.eq_type
    b.step()
    assert (b.status == 0).all() and (time > 0).all()


def test_an_option_value_the_engine_refuses_fails_its_simulation():
    _, mo = pair()
    b = mo_batch.Batch(mo, NSIM, 2)
    b.expand("opt.integrator")[2] = 9
    b.expand("opt.iterations")[0] = -1
    b.expand("opt.enableflags")[3] = int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    with pytest.raises(mo_batch.SimulationError) as e:
        b.step()
    assert list(e.value.ids) == [0, 2, 3]
    assert "iterations" in b.error(0) and "integrator" in b.error(2)
    assert "persistent" in b.error(3)
    assert b.error(1) == ""


def test_named_views_over_model_fields_match_mujoco_batch():
    mj, mo = pair()
    bj, bo = mujoco.batch.Batch(mj, NSIM, 2), mo_batch.Batch(mo, NSIM, 2)
    k = np.arange(NSIM)
    for b in (bj, bo):
        b.joint("hinge").damping = (0.1 * (1 + k)).reshape(NSIM, 1)
        b.geom("floor").contype = (k % 2).astype(np.int32).reshape(NSIM, 1)
        b.equality("conn").solref = np.stack([0.01 * (1 + k), np.ones(NSIM)], axis=1)
        b.pair("touch").margin = 0.01 * k.reshape(NSIM, 1)
        b.material("red").rgba = np.tile(np.float32([0, 1, 0, 1]), (NSIM, 1))
        b.numeric("gains").data = np.tile([4.0, 5, 6], (NSIM, 1))
        b.joint("slide").user = np.tile([3.0, 4], (NSIM, 1))
    for name in ("dof_damping", "geom_contype", "eq_solref", "pair_margin", "mat_rgba",
                 "numeric_data", "jnt_user"):
        assert np.array_equal(bo.expand(name), bj.expand(name)), name
    for kind, key, attr in (("joint", "hinge", "qposadr"), ("keyframe", "up", "qpos"),
                            ("equality", "conn", "type"), ("body", "pole", "user"),
                            ("joint", "slide", "user"), ("geom", "ball", "size"),
                            ("actuator", "servo", "gear"), ("body", "pole", "mass")):
        vo = getattr(getattr(bo, kind)(key), attr)
        vj = getattr(getattr(bj, kind)(key), attr)
        assert vo.shape == vj.shape and np.array_equal(vo, vj), (kind, attr)
        assert vo.flags.writeable == vj.flags.writeable, (kind, attr)
    with pytest.raises(ValueError, match="structural"):
        bo.joint("hinge").qposadr = 0
    assert "jnt_qposadr" not in bo._expanded
    bo.expand("eq_type")  # an expanded structural field is writeable through its view
    assert bo.equality("conn").type.flags.writeable
