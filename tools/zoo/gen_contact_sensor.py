#!/usr/bin/env python3
"""Reference data of the contact sensor (MuJoCo's XML reference, `sensor/contact`) for
tests/engine/contact_sensor.rs, from MuJoCo 4.0.0: tests/reference/contact_sensor_cases.json.

Each scene carries contact sensors covering every matching object (geom1/geom2, body1/body2,
subtree1/subtree2, site), every `reduce` and every `data` field (the velocity fields `linvel` and
`angvel` too, whose sensors are velocity-stage when they read no force), and a contact apart
within its margin. The states are taken along a rollout
from a randomized start (so contacts appear, vanish and tie), and again each with random
velocities; at each, the state and MuJoCo's
`sensordata` after mj_forward are stored, with the sensors' compiled fields.

    python3 tools/zoo/gen_contact_sensor.py
"""
import json
import os

import mujoco
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "reference", "contact_sensor_cases.json")

ALL = "found force torque dist pos normal tangent"
SENSORS = f"""
<sensor>
  <contact name="geoms_flip" geom1="box" geom2="floor" num="4" data="{ALL}"/>
  <contact name="geoms" geom1="floor" geom2="box" num="3" reduce="mindist" data="{ALL}"/>
  <contact name="geom2_only" geom2="ball" num="2" data="found force normal tangent"/>
  <contact name="body1" body1="arm" num="3" reduce="maxforce" data="found force torque dist"/>
  <contact name="body_pair" body1="arm" body2="world" num="2" data="found normal"/>
  <contact name="subtree" subtree1="base" num="6" reduce="mindist" data="found dist pos normal"/>
  <contact name="subtree_self" subtree1="base" subtree2="base" num="3" data="found force normal"/>
  <contact name="subtree_world" subtree1="world" num="8" data="found dist"/>
  <contact name="site" site="pad" num="4" data="found force pos"/>
  <contact name="site_geom2" site="pad" geom2="capsule" num="2" data="found normal tangent"/>
  <contact name="net_all" reduce="netforce" data="{ALL}"/>
  <contact name="net_subtree" subtree1="base" reduce="netforce" num="2" data="found force torque pos"/>
  <contact name="net_flip" geom1="capsule" reduce="netforce" data="force torque pos"/>
  <contact name="maxforce_all" num="10" reduce="maxforce" data="found force dist pos"/>
  <contact name="none_all" num="10" data="found dist pos"/>
  <contact name="default"/>
  <contact name="margin_geom" geom1="hover" num="2" data="found dist"/>
  <contact name="cutoff_ignored" num="2" cutoff="0.001" data="force dist"/>
  <contact name="vel_flip" geom1="box" geom2="floor" num="4" data="found dist linvel angvel"/>
  <contact name="vel_geoms" geom1="floor" geom2="box" num="3" reduce="mindist" data="tangent linvel angvel"/>
  <contact name="vel_maxforce" subtree1="base" num="6" reduce="maxforce" data="force linvel"/>
  <contact name="vel_site" site="pad" num="2" data="angvel"/>
  <contact name="vel_body" body1="arm" num="3" data="normal linvel"/>
  <contact name="vel_all" num="10" data="found pos linvel angvel"/>
</sensor>"""

SCENES = {
    "pyramidal": """<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1"/>
    <site name="pad" type="box" pos="0 0 0" size=".25 .25 .05"/>
    <body name="base" pos="0 0 .12">
      <freejoint/>
      <geom name="box" type="box" size=".1 .08 .06" condim="6"/>
      <body name="arm" pos=".18 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" range="-90 90"/>
        <geom name="ball" type="sphere" size=".06" condim="4"/>
        <geom name="stick" type="capsule" fromto="0 0 0 .15 0 .05" size=".03"/>
      </body>
    </body>
    <body name="cap" pos=".05 .3 .1">
      <freejoint/>
      <geom name="capsule" type="capsule" size=".05 .12" euler="0 90 0" condim="1"/>
    </body>
    <body name="hov" pos="-.5 0 .055" gravcomp="1">
      <joint name="hover_z" type="slide" axis="0 0 1"/>
      <geom name="hover" type="sphere" size=".05" margin=".01" gap=".008"/>
    </body>
  </worldbody>
  %s
</mujoco>""",
}
SCENES["elliptic"] = SCENES["pyramidal"].replace(
    '<option timestep="0.005"/>', '<option timestep="0.005" cone="elliptic" impratio="3"/>')


def states(m, seed):
    """qpos, qvel pairs along a rollout from a randomized start."""
    rng = np.random.default_rng(seed)
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    d.qpos[:3] += rng.uniform(-0.02, 0.02, 3)
    d.qvel[:] = rng.uniform(-0.5, 0.5, m.nv)
    d.qvel[m.jnt_dofadr[m.joint("hover_z").id]] = 0  # starts within its margin
    out = []
    for step in range(200):
        if step % 25 == 0:
            out.append((d.qpos.copy(), d.qvel.copy()))
        mujoco.mj_step(m, d)
    return out


def main():
    cases = []
    for name, xml in SCENES.items():
        xml = xml % SENSORS
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        rollout = states(m, 7)
        # the same configurations with random velocities: the contacts are the rollout's, their
        # velocities (linvel, angvel) of order one rather than those of a scene settling
        rng = np.random.default_rng(11)
        kicked = [(q, rng.uniform(-1, 1, m.nv)) for q, _ in rollout]
        named = [("%s_%d" % (name, k), s) for k, s in enumerate(rollout)]
        named += [("%s_kick_%d" % (name, k), s) for k, s in enumerate(kicked)]
        for case_name, (qpos, qvel) in named:
            d.qpos[:] = qpos
            d.qvel[:] = qvel
            mujoco.mj_forward(m, d)
            cases.append({
                "name": case_name,
                "xml": xml,
                "qpos": qpos.tolist(),
                "qvel": qvel.tolist(),
                "ncon": int(d.ncon),
                "nefc": int(d.nefc),
                "sensor_dim": m.sensor_dim.tolist(),
                "sensor_adr": m.sensor_adr.tolist(),
                "sensor_objtype": m.sensor_objtype.tolist(),
                "sensor_objid": m.sensor_objid.tolist(),
                "sensor_reftype": m.sensor_reftype.tolist(),
                "sensor_refid": m.sensor_refid.tolist(),
                "sensor_intprm": m.sensor_intprm.tolist(),
                "sensor_needstage": m.sensor_needstage.tolist(),
                "sensordata": d.sensordata.tolist(),
            })
    with open(OUT, "w") as f:
        json.dump({"generator": "tools/zoo/gen_contact_sensor.py", "mujoco": mujoco.__version__,
                   "cases": cases}, f, indent=0)
    print("wrote %s: %d cases" % (OUT, len(cases)))


if __name__ == "__main__":
    main()
