"""MuJoCo 4.0.0's box stack beside a separate tree, the scenes of
tests/engine/island_independence.rs: prints, per separate tree, solver option and sleep flag,
whether the boxes' qpos and qvel are bit-identical to the stack alone over 300 steps (and the
first step where they are not), then the stack beside a sleeping damped pendulum against the
stack alone started from the same state. No data is written: the test asserts moreau's
bit-identity, and this script is the record that MuJoCo's boxes are bit-identical there.

    python3 tools/reference/island_independence.py
"""
import mujoco
import numpy as np

BOXES, NQ, NV, STEPS = 4, 28, 24, 300


def scene(tree, option, sleep):
    boxes = "".join(
        f'<body pos="{0.03 * k!r} {0.005 * k!r} {0.1 + 0.21 * k!r}" '
        f'euler="{3.0 * k!r} {2.0 * k!r} {5.0 * k!r}"><freejoint/>'
        '<geom type="box" size=".1 .1 .1"/></body>\n'
        for k in range(BOXES))
    flag = '<flag sleep="enable"/>' if sleep else ""
    return (f'<mujoco><option timestep="0.002" {option}>{flag}</option><worldbody>'
            f'<geom type="plane" size="5 5 .1"/>\n{boxes}{tree}</worldbody></mujoco>')


TREES = {
    "a swinging pendulum": '<body pos="2 0 1"><joint type="hinge" axis="0 1 0"/>'
    '<geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/></body>',
    "a pendulum with friction loss": '<body pos="2 0 1"><joint type="hinge" axis="0 1 0" '
    'frictionloss="0.01"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/></body>',
    "a pendulum on its limit": '<body pos="2 0 1"><joint type="hinge" axis="0 1 0" '
    'range="-10 60"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/></body>',
    "a pendulum touching the floor": '<body pos="2 0 .32"><joint type="hinge" axis="0 1 0"/>'
    '<geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>',
    "a free box": '<body pos="2 0 .3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>',
}
OPTIONS = ['', 'solver="CG"', 'cone="elliptic"', 'noslip_iterations="3"',
           'cone="elliptic" noslip_iterations="3"', 'jacobian="sparse"',
           'integrator="implicitfast"',
           'cone="elliptic" integrator="implicitfast" jacobian="sparse"', 'solver="PGS"']
DAMPED = ('<body pos="2 0 1"><joint type="hinge" axis="0 1 0" damping="3"/>'
          '<geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>')


def boxes(d):
    return np.r_[d.qpos[:NQ], d.qvel[:NV]].copy()


def run(xml, steps=STEPS):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    out = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        out.append(boxes(d))
    return np.array(out)


def first_difference(a, b):
    diff = np.abs(a - b).max(axis=1)
    return "bit-identical" if not diff.any() else \
        f"differ from step {np.argmax(diff > 0) + 1}, max {diff.max():.2e}"


for option in OPTIONS:
    for sleep in (False, True):
        alone = run(scene("", option, sleep))
        for name, tree in TREES.items():
            print(f"{option or 'default'}, sleep {sleep}, {name}: "
                  f"{first_difference(alone, run(scene(tree, option, sleep)))}")

for option in ("", 'cone="elliptic"'):
    m = mujoco.MjModel.from_xml_string(scene(DAMPED, option, True))
    ma = mujoco.MjModel.from_xml_string(scene("", option, True))
    d, da = mujoco.MjData(m), mujoco.MjData(ma)
    n = 0
    while d.tree_asleep[-1] < 0:
        mujoco.mj_step(m, d)
        n += 1
    da.qpos[:], da.qvel[:] = d.qpos[:NQ], d.qvel[:NV]
    da.qacc_warmstart[:], da.tree_asleep[:], da.time = d.qacc_warmstart[:NV], d.tree_asleep[:BOXES], d.time
    a, b = [], []
    for _ in range(STEPS):
        mujoco.mj_step(m, d)
        mujoco.mj_step(ma, da)
        a.append(boxes(d))
        b.append(boxes(da))
    print(f"{option or 'default'}: a damped pendulum asleep after {n} steps; the stack beside "
          f"it against the stack alone from the same state: "
          f"{first_difference(np.array(a), np.array(b))}")
    # with the damped pendulum awake (sleep off) the implicit solve moves the boxes
    print(f"{option or 'default'}, sleep off, a damped pendulum: "
          f"{first_difference(run(scene('', option, False)), run(scene(DAMPED, option, False)))}")
