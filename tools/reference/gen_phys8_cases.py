#!/usr/bin/env python3
"""Reference cases for spatial tendons, fluid forces, site / slider-crank
transmissions, muscles) from MuJoCo 4.0.0.

Writes tests/reference/phys8_cases.json in the format of gen_pipeline_cases.py (compiled model
fields + mj_forward outputs for random states) with the extra model/data fields these features use.
Run from the repository root: python3 tools/reference/gen_phys8_cases.py
"""
import json
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import gen_pipeline_cases as base  # noqa: E402

ARM = """
 <body name="b1" pos="0 0 1"><joint name="j1" type="ball" damping="0.1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
  <site name="s1" pos="0.1 0.03 0.02"/><site name="s1b" pos="0.25 -0.02 0.03"/>
  <body name="b2" pos="0.3 0 0"><joint name="j2" axis="0 1 0" damping="0.05"/>
   <geom name="knee" type="cylinder" size="0.05 0.05" euler="90 0 0"/>
   <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
   <site name="s2" pos="0.15 0.02 0.04"/><site name="side2" pos="0 0 0.2"/>
   <body name="b3" pos="0.3 0 0"><joint name="j3" type="slide" axis="1 0 0"/><joint name="j4" axis="0 0 1"/>
    <geom name="ball" type="sphere" size="0.06" pos="0.1 0 0"/>
    <geom type="box" size="0.05 0.02 0.02" pos="0.2 0 0"/>
    <site name="s3" pos="0.25 0.01 -0.03"/><site name="side3" pos="0.1 0 -0.2"/>
   </body>
  </body>
 </body>
 <site name="w0" pos="-0.1 0.05 1.1"/><site name="w1" pos="0.2 -0.1 1.3"/>
"""

MODELS = {
    "tendon_sites": f"""
<mujoco><worldbody>{ARM}</worldbody>
 <tendon>
  <spatial name="t0" stiffness="30" damping="0.5" springlength="0.3" armature="0.1"><site site="w0"/><site site="s1"/><site site="s2"/><site site="s3"/></spatial>
  <spatial name="t1" damping="0.3" armature="0.07"><site site="w1"/><site site="s1b"/><pulley divisor="2"/><site site="s1b"/><site site="s3"/>
    <pulley divisor="0.5"/><site site="w0"/><site site="s2"/></spatial>
 </tendon>
 <actuator><motor tendon="t0" gear="2"/><position tendon="t1" kp="3"/></actuator></mujoco>""",
    "tendon_wrap": f"""
<mujoco><worldbody>{ARM}</worldbody>
 <tendon>
  <spatial name="knee" stiffness="10" springlength="0.4" damping="0.2"><site site="s1"/><geom geom="knee"/><site site="s2"/></spatial>
  <spatial name="knee_side" damping="0.1"><site site="s1b"/><geom geom="knee" sidesite="side2"/><site site="s3"/></spatial>
  <spatial name="ball"><site site="s2"/><geom geom="ball"/><site site="s3"/></spatial>
  <spatial name="ball_side" stiffness="5"><site site="s2"/><geom geom="ball" sidesite="side3"/><site site="s3"/>
    <pulley divisor="3"/><site site="w1"/><geom geom="knee" sidesite="side2"/><site site="s3"/></spatial>
 </tendon>
 <actuator><motor tendon="knee" gear="-1.5"/><general tendon="ball_side" gainprm="2" biastype="affine" biasprm="0 -1 -0.2"/></actuator></mujoco>""",
    "transmissions": f"""
<mujoco><worldbody>{ARM}
 <body name="crank" pos="0 0.5 1"><joint name="cj" axis="0 0 1"/><geom type="capsule" fromto="0 0 0 0.1 0 0" size="0.02"/>
  <site name="cs" pos="0.1 0 0"/></body>
 <body name="slider" pos="0.3 0.5 1"><joint type="slide" axis="1 0 0"/><joint axis="0 0 1"/><geom type="box" size="0.03 0.02 0.02"/>
  <site name="ss" euler="0 -80 10"/></body>
 </worldbody>
 <tendon><spatial name="t0"><site site="w0"/><site site="s1"/><geom geom="knee"/><site site="s2"/><site site="s3"/></spatial></tendon>
 <actuator>
  <general site="s3" gear="1 2 -0.5 0.3 -0.2 0.1"/>
  <general site="s2" gear="0 0 0 0.5 1 -1"/>
  <general site="s3" refsite="s1" gear="1 -0.5 2 0 0 0"/>
  <general site="s3" refsite="w1" gear="0.5 0.2 -1 0.4 0.3 -0.6"/>
  <general site="s2" refsite="s1b" gear="0 0 0 1 0.5 -0.3" gaintype="affine" gainprm="1 0.5 0.2"/>
  <general cranksite="cs" slidersite="ss" cranklength="0.35" gear="2"/>
  <general cranksite="cs" slidersite="ss" cranklength="0.1" gear="-1"/>
  <general tendon="t0" gear="0.7" biastype="affine" biasprm="0 -1 -0.3"/>
  <muscle tendon="t0" force="30" lengthrange="0.3 1.2"/>
  <muscle joint="j2" lengthrange="-1.5 1.2" timeconst="0.02 0.05" tausmooth="0.3"/>
  <general site="s3" refsite="s1" gear="1 0 0 0 0 0" lengthrange="0.1 0.9" dyntype="muscle" dynprm="0.01 0.04 0"
    gaintype="muscle" gainprm="0.6 1.2 15 200 0.5 1.6 2 1.1 1.4" biastype="muscle" biasprm="0.6 1.2 15 200 0.5 1.6 2 1.1 1.4"/>
 </actuator></mujoco>""",
    "fluid_box": """
<mujoco><option density="1.3" viscosity="0.2" wind="0.5 -1 0.3"/><worldbody>
 <body pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3" pos=".05 0 0" euler="10 20 30"/>
  <geom type="capsule" size=".05 .2" pos="0 .1 0" euler="40 0 10"/>
  <body pos=".3 0 0"><joint axis="0 1 0"/><geom type="cylinder" size=".04 .15" euler="0 90 0"/>
   <body pos=".3 0 0"><joint axis="1 0 0"/><geom type="sphere" size=".07"/></body></body></body>
 <body pos="1 0 1"><joint type="ball"/><geom type="ellipsoid" size=".1 .05 .2" pos=".1 0 0"/></body>
</worldbody></mujoco>""",
    "fluid_ellipsoid": """
<mujoco><option density="1.3" viscosity="0.2" wind="0.5 -1 0.3"/><worldbody>
 <body pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3" pos=".05 0 0" euler="10 20 30" fluidshape="ellipsoid" fluidcoef="0.4 0.3 1.2 0.9 0.8"/>
  <geom type="capsule" size=".05 .2" pos="0 .1 0" euler="40 0 10" fluidshape="ellipsoid"/>
  <body pos=".3 0 0"><joint axis="0 1 0"/><geom type="cylinder" size=".04 .15" euler="0 90 0"/>
   <body pos=".3 0 0"><joint axis="1 0 0"/><geom type="sphere" size=".07" fluidshape="ellipsoid" fluidcoef="0.5 0.25 1.5 1 1"/></body></body></body>
 <body pos="1 0 1"><joint type="ball"/><geom type="ellipsoid" size=".1 .05 .2" pos=".1 0 0" fluidshape="ellipsoid" fluidcoef="0.2 0.1 2 0.5 1.5"/>
  <geom type="cylinder" size=".02 .1" pos="0 0 -.1" fluidshape="ellipsoid"/></body>
</worldbody></mujoco>""",
    "fluid_viscous_only": """
<mujoco><option viscosity="0.5"/><worldbody>
 <body pos="0 0 1"><freejoint/><geom type="box" size=".1 .2 .3"/>
  <body pos=".3 0 0"><joint axis="0 1 0"/><geom type="capsule" size=".04 .15" fluidshape="ellipsoid"/></body></body>
</worldbody></mujoco>""",
}

EXTRA_MODEL = """geom_type geom_size geom_fluid tendon_limited tendon_range jnt_limited jnt_range
site_size""".split()
EXTRA_DATA = "qfrc_fluid ten_wrapadr ten_wrapnum wrap_obj wrap_xpos".split()

# lengthrange from limits: compiled with <lengthrange uselimit="true"> (and mode="all").
LENGTHRANGE_XML = """
<mujoco><compiler><lengthrange mode="all" uselimit="true"/></compiler><worldbody>
 <body><joint name="j" axis="0 1 0" range="-60 60"/><geom size=".05" fromto="0 0 0 .3 0 0" type="capsule"/>
  <body pos=".3 0 0"><joint name="k" type="slide" axis="1 0 0" range="-0.1 0.2"/><geom size=".05"/></body></body></worldbody>
 <tendon><fixed name="t" limited="true" range="-0.3 0.4"><joint joint="j" coef="1"/><joint joint="k" coef="-0.5"/></fixed></tendon>
 <actuator><muscle joint="j" gear="-2"/><muscle tendon="t"/><motor joint="k" gear="3"/>
  <muscle joint="j" lengthrange="0.1 0.2"/></actuator></mujoco>"""


def main():
    rng = np.random.default_rng(8)
    result = {"mujoco_version": mujoco.__version__, "models": []}
    for name, xml in MODELS.items():
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        md = base.model_dict(m)
        for f in EXTRA_MODEL:
            md[f] = base.tolist(getattr(m, f))
        md["opt"]["wind"] = base.tolist(m.opt.wind)
        entry = {"name": name, "xml": xml, "model": md, "cases": []}
        for k in range(6):
            if k == 0:
                mujoco.mj_resetData(m, d)
                d.qvel[:] = rng.normal(0, 1.0, m.nv)
            else:
                base.random_state(m, d, rng)
                d.qpos[:] = m.qpos0 + 0.6 * (d.qpos - m.qpos0)
                for j in range(m.njnt):
                    if m.jnt_type[j] in (0, 1):  # free/ball quats: keep random unit
                        a = m.jnt_qposadr[j] + (3 if m.jnt_type[j] == 0 else 0)
                        q = rng.normal(size=4)
                        d.qpos[a:a + 4] = q / np.linalg.norm(q)
                d.qvel[:] = rng.normal(0, 2.0, m.nv)
            c = base.case(m, d)
            for f in EXTRA_DATA:
                c[f] = base.tolist(getattr(d, f))
            entry["cases"].append(c)
        result["models"].append(entry)
    m = mujoco.MjModel.from_xml_string(LENGTHRANGE_XML)
    md = base.model_dict(m)
    for f in EXTRA_MODEL:
        md[f] = base.tolist(getattr(m, f))
    md["opt"]["wind"] = base.tolist(m.opt.wind)
    result["lengthrange"] = {"xml": LENGTHRANGE_XML, "model": md}
    path = os.path.join("tests", "reference", "phys8_cases.json")
    with open(path, "w") as f:
        json.dump(result, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")
    # how many wrap (geom tangent) entries were exercised
    for e in result["models"]:
        nw = [sum(1 for x in np.ravel(c["wrap_obj"])[:sum(c["ten_wrapnum"])] if x >= 0)
              for c in e["cases"]]
        print(e["name"], "geom wrap points per case:", nw)


if __name__ == "__main__":
    main()
