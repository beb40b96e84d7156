"""Sleeping trees (the `sleep` enable flag) against MuJoCo 4.0.0: the two engines step the
same model side by side, each on its own trajectory, and after every step `qpos` and `qvel`
agree within 1e-10 (absolute) and `tree_asleep`, `ncon` and the awake counts are equal."""

import numpy as np
import pytest

import mujoco
import moreau

TOL = 1e-10

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


def pair(xml):
    mj = mujoco.MjModel.from_xml_string(xml)
    mo = moreau.MjModel.from_xml_string(xml)
    return mj, mo, mujoco.MjData(mj), moreau.MjData(mo)


def compare(dj, do, where):
    assert np.array_equal(np.asarray(do.tree_asleep), dj.tree_asleep), (
        where, do.tree_asleep, dj.tree_asleep)
    assert do.ncon == dj.ncon, (where, do.ncon, dj.ncon)
    assert do.ntree_awake == dj.ntree_awake and do.nv_awake == dj.nv_awake, where
    assert np.array_equal(np.asarray(do.body_awake), dj.body_awake), where
    err = max(np.abs(np.asarray(do.qpos) - dj.qpos).max(),
              np.abs(np.asarray(do.qvel) - dj.qvel).max())
    assert err < TOL, (where, err)


def run(mj, mo, dj, do, nstep, label):
    asleep = 0
    for i in range(nstep):
        mujoco.mj_step(mj, dj)
        moreau.mj_step(mo, do)
        compare(dj, do, (label, i))
        asleep += int((dj.tree_asleep >= 0).any())
    return asleep


def test_dof_length_and_option_match_mujoco():
    for xml in (BOXES, STACK, HINGES):
        mj, mo, _, _ = pair(xml)
        assert np.allclose(mo.dof_length, mj.dof_length, rtol=0, atol=1e-12)
        assert mo.opt.sleep_tolerance == mj.opt.sleep_tolerance == 1e-3


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


def test_unsupported_sleep_is_refused():
    """What is not simulated yet (here: a tendon with the sleep flag) is refused at load with
    the sleep flag named."""
    xml = """<mujoco><option><flag sleep="enable"/></option><worldbody>
    <body><joint name="a"/><geom size=".1"/><site name="s1"/></body>
    <body pos="1 0 0"><joint name="b"/><geom size=".1"/><site name="s2"/></body></worldbody>
    <tendon><fixed name="t"><joint joint="a" coef="1"/><joint joint="b" coef="1"/></fixed>
    </tendon></mujoco>"""
    mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(ValueError, match="sleep"):
        moreau.MjModel.from_xml_string(xml)
