"""Sleeping trees (the `sleep` enable flag) against MuJoCo 4.0.0: the two engines step the
same model side by side, each on its own trajectory, and after every step `qpos` and `qvel`
agree within 1e-10 (absolute), `tree_asleep`, `ncon`, `nefc`, the awake counts and the awake
lists (`body_awake_ind`, `parent_awake_ind`, `dof_awake_ind` up to their counts) are equal, and
so are, within 1e-8 relative to max(1, the field's largest magnitude), the derived fields a sleeping tree keeps from the
step it fell asleep in (`qacc`, `qacc_smooth`, `actuator_force`, `cacc`, `cfrc_ext`,
`cfrc_int`, the subtree velocities and `sensordata`)."""

import numpy as np
import pytest

import mujoco
import moreau

TOL = 1e-10
# the derived fields: converged contact solutions
TOL_DERIVED = 1e-8
# qacc: in the joint-equality case moreau's Newton takes 0 iterations on some steps where
# MuJoCo's takes 1 (the steps before the sleep), which leaves 1.02e-8 there
TOL_QACC = 2e-8
DERIVED = ("qacc", "qacc_smooth", "actuator_force", "cacc", "cfrc_ext", "cfrc_int",
           "subtree_linvel", "subtree_angmom", "sensordata")

BOXES = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .5"><freejoint/><geom type="box" size=".1 .2 .3"/></body>
<body pos="1 0 .3" euler="20 30 0"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody></mujoco>"""

STACK = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body pos="0.02 0 .33"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body pos="1 0 .3"><freejoint/><geom type="sphere" size=".1"/></body>
</worldbody></mujoco>"""

HINGES = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .5"><joint name="a" type="hinge" axis="0 1 0" damping="2"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".05"/></body>
<body pos="1 0 .5"><joint name="b" type="hinge" axis="0 1 0" damping="2"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".05"/></body>
<body pos="2 0 .5" sleep="allowed"><joint name="c" type="hinge" axis="0 1 0" damping="2"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".05"/></body>
<body pos="3 0 .5" sleep="never"><joint type="slide" axis="0 0 1" damping="50"/>
  <geom type="sphere" size=".1"/></body>
<body pos="4 0 .5"><joint type="ball" damping="1"/><geom type="sphere" size=".1" pos=".3 0 0"/>
</body>
</worldbody><actuator><motor joint="b"/><motor joint="c"/></actuator></mujoco>"""


ARM = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .15"><joint name="s" type="hinge" axis="0 0 1" damping=".1"/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
  <body pos=".4 0 0"><joint name="e" type="hinge" axis="0 0 1" range="-1 1" damping=".5"/>
    <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/></body></body>
<body pos=".5 .4 .2" euler="20 30 0"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody><actuator><motor joint="s"/><motor joint="e"/></actuator></mujoco>"""


# a tree of five bodies (a free box, a body without geoms, hinges with limits, dof friction and
# a ball joint) beside a sphere
RAGDOLL = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .4" euler="10 5 0"><freejoint/><geom type="box" size=".15 .08 .05"/>
  <body pos=".15 0 0"><joint type="hinge" axis="0 1 0" range="-40 40" damping=".05"/>
    <inertial pos=".05 0 0" mass=".2" diaginertia=".001 .001 .001"/>
    <body pos=".1 0 0"><joint type="hinge" axis="0 0 1" range="-20 20" frictionloss=".002"/>
      <geom type="capsule" fromto="0 0 0 .15 0 0" size=".03"/></body></body>
  <body pos="-.15 0 0"><joint type="ball" damping=".02"/>
    <geom type="capsule" fromto="0 0 0 -.15 0 -.05" size=".03"/></body>
</body>
<body pos="1 0 .3"><freejoint/><geom type="sphere" size=".1"/></body>
</worldbody></mujoco>"""

# a hanging two-link arm that comes to rest on its joint limit, with dof friction on its
# elbow, beside a box
LIMITED = """<mujoco><option><flag sleep="enable"/></option><worldbody>
<geom type="plane" size="5 5 .1"/>
<body pos="0 0 1"><joint type="hinge" axis="0 1 0" range="-30 30" damping="2"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
  <body pos=".3 0 0"><joint type="hinge" axis="0 1 0" frictionloss=".05" damping="1"/>
    <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/></body></body>
<body pos="2 0 .3" euler="20 30 0"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody></mujoco>"""

# a free box with a hinged sphere on top: a tree of two bodies
TWO_BODIES = """<mujoco><option><flag sleep="enable"/></option><worldbody>
<geom type="plane" size="1 1 .1"/><body pos="0 0 .2"><freejoint/><geom type="box" size=".1 .1 .1"/>
<body pos="0 0 .3"><joint/><geom size=".1"/></body></body></worldbody></mujoco>"""


# three damped pendulums; COUPLING couples the first two
PENDULUMS = """<mujoco><option><flag sleep="enable"/></option><worldbody>
<body pos="0 0 1"><joint name="a" type="hinge" axis="0 1 0" damping="1"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
<body pos="1 0 1"><joint name="b" type="hinge" axis="0 1 0" damping="1"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
<body pos="2 0 1"><joint name="c" type="hinge" axis="0 1 0" damping="1"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
</worldbody>{coupling}</mujoco>"""
COUPLINGS = {
    "tendon friction": """<tendon><fixed frictionloss=".01"><joint joint="a" coef="1"/>
        <joint joint="b" coef="-1"/></fixed></tendon>""",
    "joint equality": """<equality><joint joint1="a" joint2="b"/></equality>""",
    "tendon without rows": """<tendon><fixed><joint joint="a" coef="1"/>
        <joint joint="b" coef="-1"/></fixed></tendon>""",
    "tendon spring": """<tendon><fixed stiffness="1"><joint joint="a" coef="1"/>
        <joint joint="b" coef="-1"/></fixed></tendon>""",
    "tendon limit": """<tendon><fixed range="-.5 .5" limited="true"><joint joint="a" coef="1"/>
        <joint joint="b" coef="-1"/></fixed></tendon>""",
}

# two free boxes welded together
WELDED = """<mujoco><option><flag sleep="enable"/></option><worldbody>
<geom type="plane" size="1 1 .1"/><body name="a" pos="0 0 .2"><freejoint/>
<geom type="box" size=".1 .1 .1"/></body><body name="b" pos=".5 0 .2"><freejoint/>
<geom type="box" size=".1 .1 .1"/></body></worldbody>
<equality><weld body1="a" body2="b"/></equality></mujoco>"""


def pair(xml):
    mj = mujoco.MjModel.from_xml_string(xml)
    mo = moreau.MjModel.from_xml_string(xml)
    return mj, mo, mujoco.MjData(mj), moreau.MjData(mo)


def compare(dj, do, where):
    assert np.array_equal(np.asarray(do.tree_asleep), dj.tree_asleep), (
        where, do.tree_asleep, dj.tree_asleep)
    assert do.ncon == dj.ncon, (where, do.ncon, dj.ncon)
    assert do.nefc == dj.nefc, (where, do.nefc, dj.nefc)
    assert do.ntree_awake == dj.ntree_awake and do.nv_awake == dj.nv_awake, where
    assert np.array_equal(np.asarray(do.body_awake), dj.body_awake), where
    # the awake lists up to their counts (past them MuJoCo keeps older entries)
    assert do.nbody_awake == dj.nbody_awake and do.nparent_awake == dj.nparent_awake, where
    for f, n in (("body_awake_ind", dj.nbody_awake), ("parent_awake_ind", dj.nparent_awake),
                 ("dof_awake_ind", dj.nv_awake)):
        assert np.array_equal(np.asarray(getattr(do, f))[:n], getattr(dj, f)[:n]), (where, f)
    err = max(np.abs(np.asarray(do.qpos) - dj.qpos).max(),
              np.abs(np.asarray(do.qvel) - dj.qvel).max())
    assert err < TOL, (where, err)
    for f in DERIVED:
        x, y = np.asarray(getattr(dj, f)), np.asarray(getattr(do, f))
        e = np.abs(x - y).max(initial=0) / max(1, np.abs(x).max(initial=0))
        assert e < (TOL_QACC if f == "qacc" else TOL_DERIVED), (where, f, e)


def run(mj, mo, dj, do, nstep, label):
    asleep = 0
    for i in range(nstep):
        mujoco.mj_step(mj, dj)
        moreau.mj_step(mo, do)
        compare(dj, do, (label, i))
        asleep += int((dj.tree_asleep >= 0).any())
    return asleep


def test_dof_length_and_option_match_mujoco():
    for xml in (BOXES, STACK, HINGES, ARM, RAGDOLL, LIMITED, TWO_BODIES):
        mj, mo, _, _ = pair(xml)
        assert np.allclose(mo.dof_length, mj.dof_length, rtol=0, atol=1e-12)
        assert mo.opt.sleep_tolerance == mj.opt.sleep_tolerance == 1e-3


def test_dof_length_and_policy_follow_mj_setConst_as_in_mujoco():
    """`dof_length` and `tree_sleep_policy` are model fields that `mj_setConst` recomputes, as
    MuJoCo 4.0.0's: after a changed `geom_size` (a primitive's radius follows its size),
    `body_ipos`, `geom_pos`, `jnt_pos` and a motor moved to another joint (the policies of the
    two trees swap), both engines give the same values; a changed `geom_rbound` of a primitive
    does not count. The fields are writeable arrays under MuJoCo's names and types."""
    edits = {
        "geom_size": lambda m: m.geom_size.__imul__(1.5),
        "geom_rbound": lambda m: m.geom_rbound.__imul__(4.0),
        "body_ipos": lambda m: m.body_ipos[-1].__iadd__(0.02),
        "geom_pos": lambda m: m.geom_pos.__isub__(0.03),
        "jnt_pos": lambda m: m.jnt_pos.__iadd__(0.05),
    }
    moved = set()
    for xml in (HINGES, ARM, RAGDOLL, LIMITED):
        for name, edit in edits.items():
            mj, mo, dj, do = pair(xml)
            assert mo.dof_length.dtype == np.float64 and mo.tree_sleep_policy.dtype == np.int32
            before = mj.dof_length.copy()
            edit(mj)
            edit(mo)
            try:
                mujoco.mj_setConst(mj, dj)
            except mujoco.FatalError:  # MuJoCo refuses a body_ipos off a "simple" body's frame
                continue
            moreau.mj_setConst(mo, do)
            if not np.array_equal(mj.dof_length, before):
                moved.add(name)
            assert np.allclose(mo.dof_length, mj.dof_length, rtol=0, atol=1e-12), (name, xml)
            assert np.array_equal(np.asarray(mo.tree_sleep_policy), mj.tree_sleep_policy)
    assert moved == {"geom_size", "body_ipos", "geom_pos", "jnt_pos"}, moved
    mj, mo, dj, do = pair(HINGES)
    before = mj.tree_sleep_policy.copy()
    for m, d in ((mj, dj), (mo, do)):
        m.actuator_trnid[0, 0] = 0  # the motor of joint b now drives joint a
        mujoco.mj_setConst(m, d) if m is mj else moreau.mj_setConst(m, d)
    assert not np.array_equal(mj.tree_sleep_policy, before)
    assert np.array_equal(np.asarray(mo.tree_sleep_policy), mj.tree_sleep_policy)


def test_boxes_settle_and_sleep_as_in_mujoco():
    """Two boxes fall on a plane, settle and fall asleep (qvel exactly 0, no contacts)."""
    mj, mo, dj, do = pair(BOXES)
    assert run(mj, mo, dj, do, 600, "boxes") > 0
    assert dj.ntree_awake == 0 and do.ncon == 0 and not np.asarray(do.qvel).any()


def test_stack_sleeps_as_one_island_as_in_mujoco():
    """Two stacked boxes wait for each other and fall asleep as one cycle ([1, 0]); the sphere
    apart sleeps alone; then a ball dropped on the stack wakes it through the contact."""
    mj, mo, dj, do = pair(STACK)
    run(mj, mo, dj, do, 300, "stack")
    assert list(dj.tree_asleep) == [1, 0, 2]
    for d in (dj, do):
        d.qpos[14:17] = [0.02, 0, 0.55]
        d.qvel[12:15] = [0, 0, -1]
    run(mj, mo, dj, do, 400, "ball")


@pytest.mark.parametrize("push", ["xfrc_applied", "qfrc_applied", "qvel", "qpos"])
def test_a_push_wakes_the_sleeping_cycle_as_in_mujoco(push):
    mj, mo, dj, do = pair(STACK)
    run(mj, mo, dj, do, 300, "settle")
    assert dj.ntree_awake == 0
    for d in (dj, do):
        if push == "xfrc_applied":
            d.xfrc_applied[2, 0] = 5.0
        elif push == "qfrc_applied":
            d.qfrc_applied[6] = 5.0
        elif push == "qvel":
            d.qvel[6] = 0.3
        else:
            d.qpos[7] += 0.001
    run(mj, mo, dj, do, 20, push)
    for d in (dj, do):
        d.xfrc_applied[:] = 0
        d.qfrc_applied[:] = 0
    run(mj, mo, dj, do, 300, push + " released")


def test_sleep_policies_of_hinges_as_in_mujoco():
    """Actuated trees never sleep unless `sleep="allowed"`, `sleep="never"` never sleeps; a
    ball joint and hinges with damping settle and sleep."""
    mj, mo, dj, do = pair(HINGES)
    for d in (dj, do):
        d.qvel[:] = [0.5, 0.5, 0.5, 0.2, 0.3, -0.2, 0.1]
    assert run(mj, mo, dj, do, 1500, "hinges") > 0
    assert dj.tree_asleep[1] == -11 and dj.tree_asleep[3] == -11


def test_an_actuated_arm_never_sleeps_and_wakes_a_box_as_in_mujoco():
    """An actuated arm of two bodies with a joint limit (a tree that never sleeps) beside a box:
    the box falls asleep, the arm swung by its motor hits it and wakes it."""
    mj, mo, dj, do = pair(ARM)
    run(mj, mo, dj, do, 300, "settle")
    assert list(dj.tree_asleep) == [-11, 1]
    rest = dj.qpos[2:5].copy()
    for d in (dj, do):
        d.ctrl[:] = [1.0, 0.0]
    run(mj, mo, dj, do, 600, "swing")
    assert dj.tree_asleep[1] < 0 and np.abs(dj.qpos[2:5] - rest).max() > 1e-5  # woken, pushed


def test_a_tree_of_several_bodies_sleeps_and_wakes_as_in_mujoco():
    """A tree of five bodies (one without geoms; hinge limits, dof friction, a ball joint)
    falls, settles and sleeps, its rows gone; a sphere dropped on it wakes it through the
    contact."""
    mj, mo, dj, do = pair(RAGDOLL)
    run(mj, mo, dj, do, 400, "settle")
    assert list(dj.tree_asleep) == [0, 1] and dj.nefc == 0
    for d in (dj, do):
        d.qpos[13:16] = [0.0, 0.0, 0.45]
        d.qvel[11:14] = [0, 0, -1]
    woke = False
    for k in range(60):
        run(mj, mo, dj, do, 10, ("drop", k))
        woke |= bool(dj.tree_asleep[0] < 0)
    assert woke  # by the sphere's contact


def test_limit_and_friction_rows_of_a_sleeping_tree_as_in_mujoco():
    """An arm of two bodies comes to rest on its joint limit with dof friction on its elbow:
    once asleep its limit and friction rows are gone (nefc 0); a push on its velocity wakes
    it and brings them back."""
    mj, mo, dj, do = pair(LIMITED)
    run(mj, mo, dj, do, 2500, "settle")
    assert list(dj.tree_asleep) == [0, 1] and dj.nefc == 0
    for d in (dj, do):
        d.qvel[1] = 0.5
    run(mj, mo, dj, do, 20, "push")
    assert dj.tree_asleep[0] < 0 and dj.nefc > 0
    run(mj, mo, dj, do, 280, "after the push")


def test_a_free_body_with_a_hinged_child_sleeps_as_in_mujoco():
    mj, mo, dj, do = pair(TWO_BODIES)
    run(mj, mo, dj, do, 500, "two bodies")
    assert dj.ntree_awake == 0 and not np.asarray(do.qvel).any()


@pytest.mark.parametrize("coupling", sorted(COUPLINGS))
def test_pendulums_coupled_by_a_tendon_or_an_equality_sleep_as_in_mujoco(coupling):
    """Rows that join two trees (tendon friction loss, a joint equality) make them one island
    that sleeps as one cycle, and the rows go with it; a tendon without rows leaves them
    apart; a tendon spring across them keeps both awake (policy 1); then a kick: a tendon
    limit that becomes active wakes the sleeping tree it joins."""
    xml = PENDULUMS.format(coupling=COUPLINGS[coupling])
    mj, mo, dj, do = pair(xml)
    assert np.array_equal(np.asarray(mo.tree_sleep_policy), mj.tree_sleep_policy)
    for d in (dj, do):
        d.qvel[:] = [0.5, 0.2, 0.1]
    run(mj, mo, dj, do, 800, coupling)
    for d in (dj, do):
        d.qvel[0] = 60.0
    run(mj, mo, dj, do, 300, coupling + " kicked")


def test_a_welded_pair_sleeps_as_one_cycle_as_in_mujoco():
    mj, mo, dj, do = pair(WELDED)
    run(mj, mo, dj, do, 500, "welded")
    assert list(dj.tree_asleep) == [1, 0] and dj.nefc == 0


def test_tree_asleep_is_in_no_state_signature_as_in_mujoco():
    """`tree_asleep` is not part of any `mjSTATE_*` signature (the sizes are MuJoCo's): a
    sleeping stack's state set into a fresh `MjData` starts its trees awake (-11) in both
    engines, and they count their steps at rest again alike."""
    mj, mo, dj, do = pair(STACK)
    run(mj, mo, dj, do, 300, "settle")
    assert list(dj.tree_asleep) == [1, 0, 2]
    for sig in (mujoco.mjtState.mjSTATE_PHYSICS, mujoco.mjtState.mjSTATE_FULLPHYSICS,
                mujoco.mjtState.mjSTATE_INTEGRATION):
        n = mujoco.mj_stateSize(mj, sig)
        assert moreau.mj_stateSize(mo, int(sig)) == n
        sj, so = np.zeros(n), np.zeros(n)
        mujoco.mj_getState(mj, dj, sj, sig)
        moreau.mj_getState(mo, do, so, int(sig))
        ej, eo = mujoco.MjData(mj), moreau.MjData(mo)
        mujoco.mj_setState(mj, ej, sj, sig)
        moreau.mj_setState(mo, eo, so, int(sig))
        assert list(ej.tree_asleep) == list(eo.tree_asleep) == [-11] * 3
        run(mj, mo, ej, eo, 15, ("after set_state", int(sig)))


@pytest.mark.parametrize("fd", ["mjd_transitionFD", "mjd_inverseFD"])
def test_fd_derivatives_refuse_sleep_as_in_mujoco(fd):
    """MuJoCo 4.0.0's finite-difference derivatives refuse a model with the sleep flag (a
    perturbation would wake a sleeping tree) with a fatal error; moreau's do too, with the
    same message."""
    mj, mo, dj, do = pair(BOXES)
    nv = mj.nv
    args = {"mjd_transitionFD": lambda: (np.zeros((2 * nv, 2 * nv)), None, None, None),
            "mjd_inverseFD": lambda: (np.zeros((nv, nv)),) + (None,) * 6}[fd]
    msgs = []
    for lib, m, d, err in ((mujoco, mj, dj, mujoco.FatalError), (moreau, mo, do, moreau.FatalError)):
        with pytest.raises(err) as e:
            getattr(lib, fd)(m, d, 1e-6, 1, *args())
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == f"{fd}: sleeping is not supported"


# STACK with sensors on its boxes
SENSORS = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body name="b0" pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="s0" size=".15"/></body>
<body name="b1" pos="0.02 0 .33"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="s1"/></body>
<body name="ball" pos="1 0 .3"><freejoint/><geom type="sphere" size=".1"/></body>
</worldbody>
<sensor><accelerometer site="s0"/><velocimeter site="s0"/><gyro site="s0"/><force site="s0"/>
<torque site="s0"/><touch site="s0"/><framelinacc objtype="site" objname="s1"/>
<frameangacc objtype="site" objname="s1"/><framelinvel objtype="site" objname="s1"/>
<subtreelinvel body="b1"/><subtreeangmom body="b1"/><framepos objtype="site" objname="s0"
reftype="site" refname="s1"/><clock/><contact body1="b0" data="found force"/></sensor></mujoco>"""

# a box asleep on the floor beside a pendulum its motor keeps awake, whose accelerometer makes
# both engines compute cacc for every body
AWAKE_SENSOR = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/><site name="w" pos="2 0 0" size=".5"/>
<body name="a" pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa" size=".2"/></body>
<body name="b" pos="2 0 .3"><joint name="hb" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/><site name="sb" pos=".3 0 0"/></body>
<body name="c" pos="2 .2 .3"><freejoint/><geom size=".05"/></body>
</worldbody>
<actuator><motor joint="hb" gear="1"/></actuator>
<sensor><accelerometer site="sa"/><force site="sa"/><touch site="sa"/>
<touch site="w"/><accelerometer site="sb"/>
<framepos objtype="site" objname="sa" reftype="site" refname="sb"/></sensor></mujoco>"""

# two boxes on the floor and a sphere that touch through explicit pairs only
PAIRS = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom name="floor" type="plane" size="5 5 .1" contype="0" conaffinity="0"/>
<body name="a" pos="0 0 .12"><freejoint/>
  <geom name="ga" type="box" size=".1 .1 .1" contype="0" conaffinity="0"/><site name="sa"/></body>
<body name="b" pos="0.02 0 .33"><freejoint/>
  <geom name="gb" type="box" size=".1 .1 .1" contype="0" conaffinity="0"/></body>
<body name="c" pos="1 0 .12"><freejoint/>
  <geom name="gc" type="sphere" size=".1" contype="0" conaffinity="0"/></body>
</worldbody><contact><pair geom1="gc" geom2="gb" margin=".01"/><pair geom1="gb" geom2="ga"/>
<pair geom1="floor" geom2="gc"/><pair geom1="ga" geom2="floor"/></contact>
<sensor><accelerometer site="sa"/></sensor></mujoco>"""


def test_a_sleeping_trees_sensors_keep_their_values_as_in_mujoco():
    """The accelerometer, force, torque, touch and contact sensors of a box asleep on the floor
    keep the values of the step it fell asleep in (computed at its zero velocity, with its
    contacts), as does every body's `cacc`, `cfrc_*` and subtree velocity while no awake sensor
    asks for them; a sphere dropped on the stack wakes it and they move again."""
    mj, mo, dj, do = pair(SENSORS)
    run(mj, mo, dj, do, 300, "settle")
    assert dj.ntree_awake == 0 and abs(dj.sensordata[2] - 9.81) < 0.1  # the kept accelerometer
    for d in (dj, do):
        d.qpos[14:17] = [0.02, 0, 0.55]
        d.qvel[12:15] = [0, 0, -1]
    run(mj, mo, dj, do, 400, "drop")


def test_an_awake_sensor_recomputes_cacc_but_not_a_sleeping_ones_as_in_mujoco():
    """A box asleep beside a pendulum driven by its motor: the pendulum's accelerometer makes
    both engines compute `cacc` and `cfrc_*` of every body, the box's sensors keep theirs, a
    frame position relative to the moving site follows it and a touch sensor on a world site
    goes on."""
    mj, mo, dj, do = pair(AWAKE_SENSOR)
    for d in (dj, do):
        d.qvel[7] = 1.0
    for k in range(30):
        for d in (dj, do):
            d.ctrl[0] = np.sin(k)
        run(mj, mo, dj, do, 10, ("drive", k))
    assert dj.tree_asleep[0] >= 0 and dj.tree_asleep[1] < 0


def test_a_control_on_a_sleeping_motor_as_in_mujoco():
    """A control given to the motor of a sleeping tree that may sleep (`sleep="allowed"`)
    neither wakes it nor changes its `actuator_force`, in both engines."""
    mj, mo, dj, do = pair(HINGES)
    for d in (dj, do):
        d.qvel[:] = [0.5, 0.5, 0.5, 0.2, 0.3, -0.2, 0.1]
    run(mj, mo, dj, do, 1500, "hinges")
    assert dj.tree_asleep[2] >= 0
    for d in (dj, do):
        d.ctrl[:] = [0.5, 0.7]
    run(mj, mo, dj, do, 50, "ctrl")
    assert dj.tree_asleep[2] >= 0 and dj.actuator_force[1] == 0


def test_explicit_pairs_sleep_and_wake_as_in_mujoco():
    """Boxes and a sphere that touch the floor and each other only through explicit pairs
    settle and sleep (their pairs then give no contacts), and the sphere moved above the stack
    wakes it through its pair."""
    mj, mo, dj, do = pair(PAIRS)
    assert np.array_equal(np.asarray(mo.pair_geom1), mj.pair_geom1)
    assert np.array_equal(np.asarray(mo.pair_geom2), mj.pair_geom2)
    run(mj, mo, dj, do, 250, "settle")
    assert dj.ntree_awake == 0 and dj.ncon == 0
    for d in (dj, do):
        d.qpos[14:17] = [0.02, 0, 0.6]
    run(mj, mo, dj, do, 200, "drop")


# sleep="init" trees: two boxes alone, a welded pair (one island), a box welded to one that
# is not sleep="init" (stays awake, with MuJoCo's warning), a sphere that is not, and a
# keyframe that lifts the first box
INIT = """<mujoco><option><flag sleep="enable"/></option><worldbody>
<geom type="plane" size="5 5 .1"/>
<body name="a" pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa"/></body>
<body name="b" pos="1 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="c" pos="1.3 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="d" pos="2 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="e" pos="2.3 0 .099"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="f" pos="3 0 .1"><freejoint/><geom size=".1"/></body>
<body name="drop" pos="0 2 .05"><freejoint/><geom size=".05"/></body>
</worldbody>
<equality><weld body1="b" body2="c"/><weld body1="d" body2="e"/></equality>
<keyframe><key qpos="0 0 .4 1 0 0 0  1 0 .099 1 0 0 0  1.3 0 .099 1 0 0 0  2 0 .099 1 0 0 0
  2.3 0 .099 1 0 0 0  3 0 .1 1 0 0 0  0 2 .05 1 0 0 0"/></keyframe>
<sensor><accelerometer site="sa"/><framepos objtype="site" objname="sa"/></sensor>
</mujoco>"""

INIT_WARNING = ("4 trees were marked as sleep='init' but only 3 could be slept. Body 'd' (id=4) "
                "is the root of the first tree that could not be slept.")


def init_reset_fields(dj, do, where):
    """What the reset computes besides `compare`'s fields: the contacts (without rows), the
    constraint forces and the kinematics of the reset's forward pass."""
    assert [tuple(c.geom) for c in dj.contact] == [tuple(c.geom) for c in do.contact], where
    assert do.nisland == dj.nisland == 0, where
    for f in ("qfrc_constraint", "qfrc_smooth", "qfrc_bias", "xpos", "xquat"):
        x, y = np.asarray(getattr(dj, f)), np.asarray(getattr(do, f))
        assert np.abs(x - y).max() / max(1, np.abs(x).max()) < TOL_DERIVED, (where, f)


def test_init_trees_sleep_from_the_reset_as_in_mujoco(capfd, monkeypatch, tmp_path):
    """`MjData` and `mj_resetData` put the `sleep="init"` trees to sleep as MuJoCo 4.0.0 does:
    a lone box and a welded pair (one cycle) asleep, the other trees one step at rest (-10), a
    box welded to a tree that is not `sleep="init"` awake (-11) with MuJoCo's warning on stderr;
    then the sphere dropped on the first box wakes it, in both engines."""
    monkeypatch.chdir(tmp_path)  # both warning handlers append to MUJOCO_LOG.TXT
    mj, mo, dj, do = pair(INIT)
    compare(dj, do, "MjData")
    init_reset_fields(dj, do, "MjData")
    assert dj.tree_asleep.tolist() == [0, 2, 1, -11, -10, -10, -10]
    for d, lib, m in ((dj, mujoco, mj), (do, moreau, mo)):
        d.qpos[2] = 0.3
        lib.mj_step(m, d)
        lib.mj_resetData(m, d)
    compare(dj, do, "mj_resetData")
    init_reset_fields(dj, do, "mj_resetData")
    err = capfd.readouterr().err
    # the compiler (which makes a data), MjData and mj_resetData, in each engine
    assert err.count("WARNING: " + INIT_WARNING) == 6, err
    run(mj, mo, dj, do, 10, "rest")
    assert dj.tree_asleep[0] == 0
    for d in (dj, do):
        d.qpos[42:45] = [0, 0, 0.4]
    run(mj, mo, dj, do, 200, "drop")
    assert dj.tree_asleep[0] != 0 or dj.qpos[2] != 0.099  # the box woke


def test_init_trees_and_a_keyframe_reset_as_in_mujoco():
    """`mj_resetDataKeyframe` sleeps the `sleep="init"` trees at `qpos0`, then loads the
    keyframe: the lifted box wakes at the next step and falls, the others sleep on."""
    mj, mo, dj, do = pair(INIT)
    mujoco.mj_resetDataKeyframe(mj, dj, 0)
    moreau.mj_resetDataKeyframe(mo, do, 0)
    compare(dj, do, "keyframe")
    run(mj, mo, dj, do, 60, "keyframe")
    assert dj.tree_asleep[0] < 0 and dj.tree_asleep[1] >= 0 and dj.qpos[2] < 0.4


def test_init_trees_in_a_persistent_batch_as_in_mujoco():
    """A batch of a model with the `sleep` flag must be persistent (both engines refuse the
    other, in MuJoCo's words); a persistent batch's simulations start, and restart after
    `reset`, with the `sleep="init"` trees asleep."""
    import mujoco.batch
    import moreau.batch
    mj, mo, _, _ = pair(INIT)
    for lib, m in ((mujoco, mj), (moreau, mo)):
        with pytest.raises(ValueError, match="persistent"):
            lib.batch.Batch(m, 2, 1)
    bj = mujoco.batch.Batch(mj, 2, 1, persistent=True)
    bo = moreau.batch.Batch(mo, 2, 1, persistent=True)
    for step in (False, True):
        if step:
            bj.step(nstep=5)
            bo.step(nstep=5)
            bj.reset()
            bo.reset()
        for sim in range(2):
            dj, do = bj.get_data(sim), bo.get_data(sim)
            assert np.array_equal(np.asarray(do.tree_asleep), dj.tree_asleep), (step, sim)
            assert np.abs(np.asarray(do.qpos) - dj.qpos).max() < TOL, (step, sim)


# a box asleep in the air from the reset (sleep="init"), a box on the floor with an
# accelerometer, a box dropped beside it
ROLL = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 .15"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="sa"/></body>
<body pos="2 0 1" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="si"/></body>
<body pos="1 0 .4"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody>
<sensor><accelerometer site="sa"/><framepos objtype="site" objname="si"/></sensor>
</mujoco>"""


def test_rollout_carries_sleep_as_mujoco():
    """`tree_asleep` is not part of the state, so MuJoCo 4.0.0's rollout starts each rollout
    from the sleep state the one before left in its `MjData`: a rollout that lifts the box
    asleep in the air wakes it, and the next rollouts, which start it where it slept, see it
    fall (measured; on one thread, and across calls on the same `MjData`). With threads
    MuJoCo's rows depend on which `MjData` a rollout lands on; moreau runs a sleep model's
    rollouts in order on the first `MjData`, so it gives MuJoCo's one-thread numbers at every
    thread count, bit-identical among them."""
    import mujoco.rollout
    import moreau.rollout
    mj, mo, dj, _ = pair(ROLL)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    x0 = np.zeros(mujoco.mj_stateSize(mj, spec))
    mujoco.mj_getState(mj, dj, x0, spec)
    zi = 1 + 7 + 2  # the sleeping box's height in the state
    x = np.repeat(x0[None], 24, 0)
    x[1::5, zi] += 0.05  # these rollouts lift it: it wakes
    x[::2, 3] += 0.02  # the box on the floor lifted in even rollouts
    nstep = 60
    want = [mujoco.rollout.rollout(mj, [dj], x, nstep=nstep) for _ in range(2)]
    # the first rollout starts with the box asleep (from MjData): it stays; after the first
    # lifting rollout every rollout starts with it awake and it falls, also in the next call
    assert want[0][0][0, -1, zi] == 1.0
    assert want[0][0][2, -1, zi] < 0.96 and want[1][0][0, -1, zi] < 0.96
    got = {}
    for nthread in (1, 2, 4):
        datas = [moreau.MjData(mo) for _ in range(nthread)]
        got[nthread] = [moreau.rollout.rollout(mo, datas, x, nstep=nstep, chunk_size=1)
                        for _ in range(2)]
    for nthread, calls in got.items():
        for call, ((s, sd), (sj, sdj)) in enumerate(zip(calls, want)):
            assert np.abs(s - sj).max() < TOL, (nthread, call)
            assert np.abs(sd - sdj).max() / max(1, np.abs(sdj).max()) < TOL_DERIVED, (nthread, call)
            assert np.array_equal(s, got[1][call][0]), (nthread, call)
            assert np.array_equal(sd, got[1][call][1]), (nthread, call)
