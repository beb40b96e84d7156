#!/usr/bin/env python3
"""Reference cases for actuator damping / dampingpoly / armature (MuJoCo 4.0.0 actuator
attributes, folded onto the driven hinge / slide joint or tendon with gear² etc.).

Writes tests/reference/actdamp_cases.json: per model (one per integrator) the MJCF text, the
compiled dof_M0, dof_invweight0, tendon_invweight0, actuator_acc0; per random state qM (dense),
qfrc_damper, qfrc_passive, qacc after mj_forward; and a 50-step rollout with random controls
(qpos, qvel at the end).
Run from the repository root: python3 tools/reference/gen_actdamp_cases.py
"""
import json
import os

import mujoco
import numpy as np

XML = """
<mujoco><option integrator="{integ}" timestep="0.01" gravity="0.1 0 -9.81"/>
<worldbody>
 <site name="anchor" pos="0.2 0.1 0.4"/>
 <body><joint name="j" axis="0 1 0" damping="0.1" armature="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
  <body pos="0.3 0 0"><joint name="k" axis="1 0.2 0"/><geom type="box" size="0.1 0.02 0.03"/>
   <body pos="0.1 0 0"><joint name="s" type="slide" axis="0 0 1" damping="0.2"/>
    <geom type="sphere" size="0.04"/><site name="tip" pos="0.02 0 0"/>
   </body>
  </body>
 </body>
</worldbody>
<tendon>
 <fixed name="t"><joint joint="j" coef="1"/><joint joint="k" coef="-0.5"/></fixed>
 <spatial name="sp" damping="0.05"><site site="anchor"/><site site="tip"/></spatial>
</tendon>
<actuator>
 <general joint="j" gear="2" damping="0.3 0.2 0.05" armature="0.7"/>
 <position joint="s" kp="5" gear="-1.5" damping="0.25" armature="0.1"/>
 <general tendon="t" gear="1.5" damping="0.4 0.1 0.3" armature="0.2"/>
 <motor tendon="sp" gear="0.8" damping="0.6" armature="0.3"/>
</actuator>
</mujoco>
"""


def fl(a):
    return [float(x) for x in np.asarray(a).ravel()]


def main():
    rng = np.random.default_rng(2)
    out = []
    for integ in ["Euler", "implicitfast", "implicit", "RK4"]:
        xml = XML.format(integ=integ)
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        cases = []
        for _ in range(4):
            d.qpos[:] = rng.uniform(-1, 1, m.nq) * 0.5
            d.qvel[:] = rng.uniform(-2, 2, m.nv)
            d.ctrl[:] = rng.uniform(-1, 1, m.nu)
            mujoco.mj_forward(m, d)
            M = np.zeros((m.nv, m.nv))
            mujoco.mj_fullM(m, d, M)
            cases.append(dict(qpos=fl(d.qpos), qvel=fl(d.qvel), ctrl=fl(d.ctrl), qM=fl(M),
                              qfrc_damper=fl(d.qfrc_damper), qfrc_passive=fl(d.qfrc_passive),
                              qacc=fl(d.qacc)))
        mujoco.mj_resetData(m, d)
        d.qpos[:] = [0.3, -0.2, 0.1]
        ctrls = []
        for _ in range(50):
            d.ctrl[:] = rng.uniform(-1, 1, m.nu)
            ctrls.append(fl(d.ctrl))
            mujoco.mj_step(m, d)
        out.append(dict(name=integ, xml=xml, dof_M0=fl(m.dof_M0),
                        dof_invweight0=fl(m.dof_invweight0),
                        tendon_invweight0=fl(m.tendon_invweight0),
                        actuator_acc0=fl(m.actuator_acc0), cases=cases,
                        rollout=dict(qpos0=[0.3, -0.2, 0.1], ctrl=ctrls, qpos=fl(d.qpos),
                                     qvel=fl(d.qvel))))
    path = os.path.join("tests", "reference", "actdamp_cases.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("wrote", path)


if __name__ == "__main__":
    main()
