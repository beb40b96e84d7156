#!/usr/bin/env python3
"""Reference cases for post-constraint RNE (contact and connect/weld forces in cfrc_ext /
cfrc_int), touch / force / torque sensors and mj_contactForce, from MuJoCo 4.0.0.

Writes tests/reference/postcon_cases.json: per model the MJCF text and, per state (reached by
stepping with random controls), qpos, qvel, ctrl, qacc_warmstart and after mj_forward: nefc,
efc_type, efc_force, qacc, contact geoms / efc_address, mj_contactForce per contact, cacc,
cfrc_ext, cfrc_int, sensordata.
Run from the repository root: python3 tools/reference/gen_postcon_cases.py
"""
import json
import os

import mujoco
import numpy as np

SCENE = """
<mujoco><option cone="{cone}" timestep="0.005" gravity="0.2 -0.1 -9.81"/>
<worldbody>
 <geom name="floor" type="plane" size="0 0 1" euler="3 -2 0" condim="3"/>
 <body name="box" pos="0 0 0.12" euler="5 3 10"><freejoint/>
  <geom type="box" size="0.1 0.08 0.05" condim="{cd1}" friction="0.8 0.02 0.003"/>
  <site name="sbox" type="box" size="0.11 0.09 0.06" pos="0 0 0"/>
  <site name="sbot" type="box" size="0.12 0.1 0.02" pos="0 0 -0.05"/>
  <site name="fbox" pos="0.02 0.01 0.05"/>
 </body>
 <body name="ball" pos="0.4 0 0.1"><freejoint/>
  <geom type="sphere" size="0.08" condim="{cd2}" friction="0.6 0.01 0.002"/>
  <site name="sball" type="sphere" size="0.085"/>
  <site name="sball2" type="ellipsoid" size="0.05 0.06 0.09" pos="0 0 -0.04"/>
 </body>
 <body name="arm" pos="-0.4 0 0.28"><joint name="h" axis="0 1 0"/><joint name="h2" axis="1 0 0"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.25" size="0.04" condim="{cd3}"/>
  <site name="sarm" type="capsule" fromto="0 0 -0.1 0 0 -0.3" size="0.05"/>
  <site name="scyl" type="cylinder" size="0.06 0.05" pos="0 0 -0.27"/>
  <site name="farm" pos="0 0 -0.1" euler="10 20 30"/>
 </body>
 <body name="cyl" pos="0.0 0.4 0.1" euler="80 0 0"><freejoint/>
  <geom type="cylinder" size="0.06 0.05" condim="{cd1}"/>
  <site name="scy" type="cylinder" size="0.065 0.055"/>
 </body>
</worldbody>
<actuator><motor joint="h" gear="3"/><motor joint="h2" gear="2"/></actuator>
<sensor>
 <touch site="sbox"/><touch site="sbot"/><touch site="sball"/><touch site="sball2"/>
 <touch site="sarm"/><touch site="scyl"/><touch site="scy"/>
 <force site="fbox"/><torque site="fbox"/><force site="farm"/><torque site="farm"/>
 <force site="sball"/><torque site="sball"/>
</sensor>
</mujoco>
"""

EQ = """
<mujoco><option timestep="0.005" gravity="0.2 -0.1 -9.81"/>
<worldbody>
 <body name="a" pos="0 0 1"><joint name="a1" axis="0 1 0"/><joint name="a2" axis="1 0 0"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" contype="0" conaffinity="0"/>
  <site name="sa" pos="0.3 0 0" euler="10 20 30"/>
  <body name="b" pos="0.3 0 0"><joint name="b1" axis="0 0 1"/><joint name="b2" type="slide" axis="1 0 0"/>
   <geom type="box" size="0.1 0.03 0.02" pos="0.1 0 0" contype="0" conaffinity="0"/>
   <site name="sb" pos="0.2 0 0" euler="-20 10 5"/>
   <site name="fb" pos="0.05 0 0"/>
  </body>
 </body>
 <body name="c" pos="0.6 0.05 1.02" euler="5 10 15"><freejoint/>
  <geom type="box" size="0.05 0.04 0.03" contype="0" conaffinity="0"/>
  <site name="sc" pos="-0.05 0 0" euler="3 4 5"/>
  <site name="fc" pos="0.01 0.02 0"/>
 </body>
 <body name="e" pos="0.5 -0.3 0.8"><freejoint/>
  <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
  <site name="fe" pos="0.01 0 0.02"/>
 </body>
 <body name="f" pos="-0.3 0.2 0.8" euler="10 0 20"><freejoint/>
  <geom type="box" size="0.05 0.05 0.1" contype="0" conaffinity="0"/>
  <site name="ff" pos="0 0.01 0.02"/>
 </body>
</worldbody>
<equality>
 <connect body1="b" body2="c" anchor="0.25 0 0"/>
 <weld site1="sb" site2="sc" torquescale="0.7"/>
 <connect body1="e" body2="world" anchor="0.02 0.03 0.1"/>
 <weld body1="f" body2="a" relpose="-0.2 0.1 -0.2 1 0.1 0 0" torquescale="1.7" anchor="0.01 0.02 0.03"/>
 <connect site1="fe" site2="sa"/>
</equality>
<actuator><motor joint="a1" gear="3"/><motor joint="b2" gear="2"/></actuator>
<sensor><force site="fb"/><torque site="fb"/><force site="fc"/><torque site="fc"/>
 <force site="fe"/><torque site="fe"/><force site="ff"/><torque site="ff"/></sensor>
</mujoco>
"""

MODELS = {
    "contact_pyr": SCENE.format(cone="pyramidal", cd1=3, cd2=4, cd3=6),
    "contact_ell": SCENE.format(cone="elliptic", cd1=6, cd2=3, cd3=4),
    "contact_cd1": SCENE.format(cone="pyramidal", cd1=1, cd2=6, cd3=1),
    "equality": EQ,
}


def fl(a):
    return [float(x) for x in np.asarray(a).ravel()]


def main():
    rng = np.random.default_rng(8)
    out = []
    for name, xml in MODELS.items():
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        cases = []
        for k in range(60):
            d.ctrl[:] = rng.uniform(-1, 1, m.nu)
            mujoco.mj_step(m, d)
            if k % 12 != 11:
                continue
            st = dict(qpos=fl(d.qpos), qvel=fl(d.qvel), ctrl=fl(d.ctrl),
                      qacc_warmstart=fl(d.qacc_warmstart))
            mujoco.mj_forward(m, d)
            cf = []
            for i in range(d.ncon):
                f = np.zeros(6)
                mujoco.mj_contactForce(m, d, i, f)
                cf.append(fl(f))
            st.update(nefc=int(d.nefc), efc_type=[int(x) for x in d.efc_type],
                      efc_force=fl(d.efc_force), qacc=fl(d.qacc),
                      con_geom=[[int(c.geom1), int(c.geom2)] for c in d.contact],
                      con_efc=[int(c.efc_address) for c in d.contact],
                      contact_force=cf, cacc=fl(d.cacc), cfrc_ext=fl(d.cfrc_ext),
                      cfrc_int=fl(d.cfrc_int), sensordata=fl(d.sensordata))
            cases.append(st)
        out.append(dict(name=name, xml=xml, cases=cases))
    path = os.path.join("tests", "reference", "postcon_cases.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("wrote", path)


if __name__ == "__main__":
    main()
