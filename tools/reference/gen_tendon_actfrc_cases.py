#!/usr/bin/env python3
"""Reference cases for the tendon `actuatorfrcrange` clamp (MuJoCo 4.0.0 tendon attributes
actuatorfrclimited / actuatorfrcrange).

Writes tests/reference/tendon_actfrc_cases.json: per model the MJCF text, the compiled
tendon_actfrclimited and tendon_actfrcrange; per state (qpos, qvel, ctrl; the controls chosen
so that both tendons' totals fall below, inside and above their ranges) actuator_force,
qfrc_actuator, qacc after mj_forward, and qDeriv (MuJoCo's sparse layout) from one mj_step
under implicitfast; and the MJCF texts MuJoCo refuses.
Run from the repository root: python3 tools/reference/gen_tendon_actfrc_cases.py
"""
import json
import os

import mujoco
import numpy as np

XML = """
<mujoco><option integrator="implicitfast" timestep="0.01"/>
<worldbody>
 <site name="anchor" pos="0.2 0.1 0.4"/>
 <body><joint name="j" axis="0 1 0" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
  <body pos="0.3 0 0"><joint name="k" axis="1 0.2 0"/><geom type="box" size="0.1 0.02 0.03"/>
   <body pos="0.1 0 0"><joint name="s" type="slide" axis="0 0 1"/>
    <geom type="sphere" size="0.04"/><site name="tip" pos="0.02 0 0"/>
   </body>
  </body>
 </body>
</worldbody>
<tendon>
 <fixed name="t" actuatorfrcrange="-0.5 0.5"><joint joint="j" coef="1"/><joint joint="k" coef="2"/></fixed>
 <spatial name="sp" actuatorfrcrange="-1.1 0.8"><site site="anchor"/><site site="tip"/></spatial>
 <fixed name="u" actuatorfrcrange="-0.5 0.5" actuatorfrclimited="false"><joint joint="s" coef="1"/></fixed>
 <fixed name="w" actuatorfrclimited="true" actuatorfrcrange="-0.2 0.1"><joint joint="k" coef="1"/></fixed>
</tendon>
<actuator>
 <motor tendon="t" gear="2"/>
 <motor tendon="t"/>
 <velocity tendon="t" kv="3"/>
 <position tendon="sp" kp="2" kv="0.5"/>
 <general tendon="sp" dyntype="filter" dynprm="0.05" gainprm="1.5"/>
 <motor tendon="u"/>
 <velocity tendon="w" kv="0.7"/>
 <motor joint="j"/>
</actuator>
</mujoco>
"""

XML_AUTO = """
<mujoco><compiler autolimits="{al}"/><worldbody><body><joint name="a"/><geom size=".1"/>
</body></worldbody><tendon><fixed {attr}><joint joint="a" coef="1"/></fixed></tendon></mujoco>
"""

AUTO = [
    ("true", 'actuatorfrcrange="-1 1"'),
    ("true", 'actuatorfrcrange="1 -1"'),
    ("true", 'actuatorfrcrange="0 0"'),
    ("false", 'actuatorfrcrange="0 0"'),
    ("false", 'actuatorfrcrange="-1 2" actuatorfrclimited="true"'),
    ("true", 'actuatorfrcrange="-1 2" actuatorfrclimited="false"'),
]

REFUSED = [
    ("true", 'actuatorfrcrange="1 1" actuatorfrclimited="true"'),
    ("true", 'actuatorfrcrange="2 1" actuatorfrclimited="true"'),
    ("false", 'actuatorfrclimited="true"'),
]


def lst(a):
    return np.asarray(a, dtype=float).ravel().tolist()


def main():
    rng = np.random.default_rng(23)
    m = mujoco.MjModel.from_xml_string(XML)
    out = {
        "xml": XML,
        "tendon_actfrclimited": [bool(x) for x in m.tendon_actfrclimited],
        "tendon_actfrcrange": lst(m.tendon_actfrcrange),
        "cases": [],
        "auto": [],
        "refused": [],
    }
    for k in range(12):
        d = mujoco.MjData(m)
        d.qpos[:] = rng.uniform(-0.6, 0.6, m.nq)
        d.qvel[:] = rng.uniform(-1, 1, m.nv) * 0.01 * 1.6**k
        d.act[:] = rng.uniform(-0.5, 0.5, m.na)
        # small controls (inside) to large ones (clamped)
        d.ctrl[:] = rng.uniform(-1, 1, m.nu) * 0.05 * 1.5**k
        mujoco.mj_forward(m, d)
        c = {
            "qpos": lst(d.qpos),
            "qvel": lst(d.qvel),
            "act": lst(d.act),
            "ctrl": lst(d.ctrl),
            "actuator_force": lst(d.actuator_force),
            "qfrc_actuator": lst(d.qfrc_actuator),
            "qacc": lst(d.qacc),
        }
        mujoco.mj_step(m, d)
        c["qDeriv"] = lst(d.qDeriv)
        out["cases"].append(c)
    for al, attr in AUTO:
        mm = mujoco.MjModel.from_xml_string(XML_AUTO.format(al=al, attr=attr))
        out["auto"].append({
            "xml": XML_AUTO.format(al=al, attr=attr),
            "tendon_actfrclimited": bool(mm.tendon_actfrclimited[0]),
            "tendon_actfrcrange": lst(mm.tendon_actfrcrange[0]),
        })
    for al, attr in REFUSED:
        xml = XML_AUTO.format(al=al, attr=attr)
        try:
            mujoco.MjModel.from_xml_string(xml)
            raise SystemExit(f"MuJoCo accepts {attr}")
        except ValueError as e:
            out["refused"].append({"xml": xml, "error": str(e).splitlines()[0]})
    path = os.path.join("tests", "reference", "tendon_actfrc_cases.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    n = sum(1 for c in out["cases"])
    print(f"wrote {path}: {n} states")


if __name__ == "__main__":
    main()
