#!/usr/bin/env python3
"""MuJoCo 4.0.0's inverse dynamics (`mj_inverse`) with sleeping trees.

Writes tests/reference/inverse_sleep.json, a list of cases; each has the model (`xml`), the
number of `mj_step`s taken from `MjData(m)` (`steps`: 3, or until the first pendulum
sleeps), the `qacc` given to `mj_inverse`
(every dof, the sleeping ones too), and after `mj_inverse`: `tree_asleep`, `qfrc_inverse`,
`sensordata` and `qDeriv`.

The model (with the `sleep` flag): a damped pendulum that starts asleep (`sleep="init"`), a
damped pendulum that swings (awake), a box asleep on the floor (`sleep="init"`) and sensors on
all three. Cases: Euler, implicitfast and implicit, each with and without `invdiscrete`;
Euler with the awake pendulum undamped; implicitfast and implicit with a first pendulum that
is not `sleep="init"` and falls asleep by itself (hanging at rest); Euler with the sleeping
pendulum's `qpos`, `qvel` or `qfrc_applied` changed before `mj_inverse` (`kick`: field, index,
value added): `mj_inverse` wakes it, as `mj_forward` does.

What the records show (also printed):
- Euler with `invdiscrete`: the sleeping pendulum's damping counts, as every dof's: its
  `qfrc_inverse` is that of `a_c = a_d + M⁻¹ h·diag(damping) a_d` with every dof's damping,
  even with the awake pendulum undamped (case `euler undamped`).
- implicitfast/implicit with `invdiscrete`: `qDeriv` is recomputed for awake dofs only; a
  sleeping dof's entries keep their values (0 for a tree asleep since the reset: the sleeping
  pendulum's `qfrc_inverse` is then the continuous one; its damping, −3, for the pendulum that
  fell asleep: its `qfrc_inverse` then counts its damping), and the conversion uses them.
- the sensors of sleeping trees keep their values (not evaluated by `mj_inverse`).

Rerun:  python3 tools/reference/gen_inverse_sleep.py
"""
import json
import os

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "reference", "inverse_sleep.json")

XML = """<mujoco><option timestep="0.01" {opt}><flag sleep="enable" {flags}/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body name="p" pos="0 0 1" sleep="init"><joint name="hp" type="hinge" axis="0 1 0" damping="3"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".03"/><site name="sp" pos="0 0 -.4"/></body>
<body name="q" pos="1 0 1"><joint name="hq" type="hinge" axis="0 1 0" {qdamp}/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03"/><site name="sq" pos=".4 0 0"/></body>
<body name="b" pos="2 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sb"/></body>
</worldbody>
<sensor><accelerometer site="sp"/><accelerometer site="sq"/><jointpos joint="hp"/>
<touch site="sb"/><accelerometer site="sb"/></sensor>
</mujoco>"""

STEPS = 3


def case(name, opt, invdiscrete, qdamp='damping="2"', init=True, kick=None):
    flags = 'invdiscrete="enable"' if invdiscrete else ""
    xml = XML.format(opt=opt, flags=flags, qdamp=qdamp)
    if not init:
        xml = xml.replace('name="p" pos="0 0 1" sleep="init"', 'name="p" pos="0 0 1"')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    steps = 0
    while steps < STEPS or d.tree_asleep[0] < 0:
        mujoco.mj_step(m, d)
        steps += 1
    qacc = np.random.default_rng(1).normal(size=m.nv)
    d.qacc[:] = qacc
    if kick:
        getattr(d, kick[0])[kick[1]] += kick[2]
    mujoco.mj_inverse(m, d)
    assert (d.qacc == qacc).all()
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    h = m.opt.timestep
    awake = np.array([d.tree_asleep[m.dof_treeid[i]] < 0 for i in range(m.nv)])
    rest = d.qfrc_bias - d.qfrc_passive - d.qfrc_constraint
    for label, b in (("every dof's damping", m.dof_damping),
                     ("awake dofs' damping", m.dof_damping * awake),
                     ("continuous", 0 * m.dof_damping)):
        f = M @ (qacc + np.linalg.solve(M, h * b * qacc)) + rest
        print(f"{name}: |qfrc_inverse - ({label})| = {np.abs(f - d.qfrc_inverse).max():.1e}")
    return {
        "name": name, "xml": xml, "steps": steps, "kick": kick, "qacc": qacc.tolist(),
        "tree_asleep": d.tree_asleep.tolist(), "qfrc_inverse": d.qfrc_inverse.tolist(),
        "sensordata": d.sensordata.tolist(), "qDeriv": d.qDeriv.tolist(),
    }


def main():
    cases = []
    for integ in ("", "implicitfast", "implicit"):
        opt = f'integrator="{integ}"' if integ else ""
        for inv in (False, True):
            cases.append(case(f"{integ or 'euler'}{' invdiscrete' if inv else ''}", opt, inv))
    cases.append(case("euler undamped invdiscrete", "", True, qdamp=""))
    for integ in ("implicitfast", "implicit"):
        cases.append(case(f"{integ} invdiscrete, the pendulum fell asleep",
                          f'integrator="{integ}"', True, init=False))
    for field, value in (("qpos", 0.1), ("qvel", 0.5), ("qfrc_applied", 0.5)):
        cases.append(case(f"euler invdiscrete, {field} of the sleeping pendulum changed", "",
                          True, kick=[field, 0, value]))
    with open(OUT, "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
