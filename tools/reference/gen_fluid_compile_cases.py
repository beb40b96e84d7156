#!/usr/bin/env python3
"""Compiled geom_fluid (MJCF fluidshape / fluidcoef, incl. default classes) and fluid
qfrc_passive from MuJoCo 4.0.0.

Writes tests/reference/fluid_compile_cases.json: per option variant (density / viscosity /
wind) the MJCF text, MuJoCo's compiled geom_fluid, and for a few random states (qpos, qvel)
MuJoCo's qfrc_passive and qfrc_fluid after mj_forward. Also the compiled
actuator_lengthrange of a muscle model with <lengthrange uselimit="true">.
Run from the repository root: python3 tools/reference/gen_fluid_compile_cases.py
"""
import json
import os

import mujoco
import numpy as np

XML = """<mujoco>
<option OPTS/>
<default>
  <geom fluidshape="ellipsoid"/>
  <default class="coef">
    <geom fluidcoef="0.3 0.1 2.0 0.8 0.6"/>
  </default>
  <default class="plain">
    <geom fluidshape="none" fluidcoef="0.9"/>
  </default>
</default>
<worldbody>
  <body name="sph" pos="0 0 1">
    <freejoint/>
    <geom type="sphere" size="0.1"/>
  </body>
  <body name="box" pos="1 0 1">
    <freejoint/>
    <geom type="box" size="0.2 0.1 0.05" class="coef"/>
  </body>
  <body name="cap" pos="2 0 1">
    <freejoint/>
    <geom type="capsule" fromto="0 0 0 0.1 0.2 0.3" size="0.04" fluidcoef="1.1 0.2"/>
  </body>
  <body name="ell" pos="3 0 1">
    <freejoint/>
    <geom type="ellipsoid" size="0.3 0.1 0.2" class="coef" fluidcoef="0.7"/>
    <geom type="sphere" size="0.05" pos="0.3 0 0" class="plain"/>
  </body>
  <body name="cyl" pos="4 0 1">
    <joint type="hinge" axis="0 1 1"/>
    <joint type="slide" axis="1 0 0"/>
    <geom type="cylinder" size="0.08 0.25" euler="30 20 10"/>
    <body pos="0 0 -0.4">
      <joint type="ball"/>
      <geom type="box" size="0.1 0.1 0.1" fluidshape="ellipsoid" fluidcoef="0.5 0.25 1.5 1.0 1.0"/>
    </body>
  </body>
  <body name="ibox" pos="5 0 1">
    <freejoint/>
    <geom type="box" size="0.1 0.2 0.3" class="plain"/>
  </body>
</worldbody>
</mujoco>"""

OPTS = {
    "density": 'density="1.2"',
    "viscous": 'viscosity="0.02"',
    "wind": 'density="1000" viscosity="0.001" wind="0.3 -0.2 0.1"',
}

LENGTHRANGE_XML = """<mujoco><compiler><lengthrange uselimit="true"/></compiler><worldbody>
<body><joint name="j" axis="0 1 0" range="-40 70" limited="true"/>
<geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/></body></worldbody>
<actuator><muscle joint="j"/></actuator></mujoco>"""


def fl(a):
    return [float(x) for x in np.asarray(a).ravel()]


def main():
    rng = np.random.default_rng(11)
    out = {"cases": []}
    for name, opts in OPTS.items():
        xml = XML.replace("OPTS", opts)
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        states = []
        for _ in range(3):
            mujoco.mj_resetData(m, d)
            d.qpos[:] = m.qpos0 + rng.uniform(-0.5, 0.5, m.nq)
            mujoco.mj_normalizeQuat(m, d.qpos)
            d.qvel[:] = rng.uniform(-3, 3, m.nv)
            mujoco.mj_forward(m, d)
            states.append(dict(qpos=fl(d.qpos), qvel=fl(d.qvel),
                               qfrc_passive=fl(d.qfrc_passive), qfrc_fluid=fl(d.qfrc_fluid)))
        out["cases"].append(dict(name=name, xml=xml, geom_fluid=[fl(g) for g in m.geom_fluid],
                                 states=states))
    m = mujoco.MjModel.from_xml_string(LENGTHRANGE_XML)
    out["lengthrange"] = dict(xml=LENGTHRANGE_XML, actuator_lengthrange=fl(m.actuator_lengthrange))
    path = os.path.join("tests", "reference", "fluid_compile_cases.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("wrote", path, len(out["cases"]))


if __name__ == "__main__":
    main()
