#!/usr/bin/env python3
"""Reference cases from MuJoCo 4.0.0: body (adhesion) transmission,
cameras (cam_xpos / cam_xmat for every mode, camera frame sensors), ray exclusion of invisible
geoms (rgba / material alpha, also for rangefinders), spatial-tendon side sites inside the
wrapping geom, and actuator length ranges computed by simulation (mj_setLengthRange).

Writes tests/reference/phys8c_cases.json; read by tests/engine/camera_rangefinder_oracle.rs, which compiles the same
XML with moreau's loader. Run from the repository root: python3 tools/reference/gen_phys8c_cases.py
"""
import json
import os

import mujoco
import numpy as np


def tolist(x):
    a = np.asarray(x)
    if a.dtype == np.uint8:
        a = a.astype(int)
    return a.tolist()


def dense_moment(m, d):
    mom = np.zeros((m.nu, m.nv))
    if m.nu:
        mujoco.mju_sparse2dense(mom, d.actuator_moment, d.moment_rownnz, d.moment_rowadr,
                                d.moment_colind)
    return mom


def random_qpos(m, rng, scale):
    q = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] += rng.normal(0, 0.1 * scale, 3)
            v = rng.normal(size=4)
            q[a + 3:a + 7] = v / np.linalg.norm(v)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            v = rng.normal(size=4)
            q[a:a + 4] = v / np.linalg.norm(v)
        else:
            q[a] += rng.uniform(-1, 1) * scale
    return q


DATA = "cam_xpos cam_xmat sensordata actuator_length actuator_velocity actuator_force qfrc_actuator".split()


def state_case(m, d):
    mujoco.mj_forward(m, d)
    c = {"qpos": tolist(d.qpos), "qvel": tolist(d.qvel), "ctrl": tolist(d.ctrl), "act": tolist(d.act),
         "ncon": int(d.ncon)}
    for f in DATA:
        c[f] = tolist(getattr(d, f))
    c["actuator_moment"] = tolist(dense_moment(m, d))
    return c


# ------------------------------------------------------------------ cameras
CAMERA = """
<mujoco>
  <default><default class="cam"><camera mode="trackcom" fovy="30"/></default></default>
  <worldbody>
    <camera name="c0" pos="1 2 3" xyaxes="1 0 0 0 0.6 0.8"/>
    <body name="a" pos="0 0 1">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <camera name="fixed" pos="0.1 0.2 0.3" euler="10 20 30"/>
      <camera name="track" mode="track" pos="0.1 -0.2 0.3" euler="30 -20 10" target="b"/>
      <camera name="trackcom" class="cam" pos="0.3 0.2 0.1" quat="1 2 3 4" target="b"/>
      <frame pos="0.1 0 0" euler="0 0 30">
        <camera name="inframe" pos="0.1 0 0" zaxis="0 1 1"/>
      </frame>
      <body name="b" pos="0.3 0 0">
        <joint type="hinge" axis="0 1 0"/>
        <geom type="sphere" size="0.1" pos="0.1 0 0"/>
        <site name="s" pos="0.1 0.1 0"/>
        <camera name="tb" mode="targetbody" target="a" pos="0.2 0.1 0.4"/>
        <camera name="tbc" mode="targetbodycom" target="a" pos="-0.2 0.1 0.4" euler="1 2 3"/>
      </body>
    </body>
    <body name="free" pos="1 0 0.5">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.05"/>
      <camera name="ftrack" mode="trackcom" pos="0 0.5 0.5" xyaxes="0 -1 0 0.6 0 0.8"/>
      <camera name="ftarget" mode="targetbodycom" target="a" pos="0 0 0.3"/>
    </body>
  </worldbody>
  <sensor>
    <framepos objtype="camera" objname="track"/>
    <framequat objtype="camera" objname="track"/>
    <framequat objtype="camera" objname="tb"/>
    <framexaxis objtype="camera" objname="tbc"/>
    <frameyaxis objtype="camera" objname="ftarget"/>
    <framezaxis objtype="camera" objname="trackcom"/>
    <framepos objtype="site" objname="s" reftype="camera" refname="tb"/>
    <framequat objtype="site" objname="s" reftype="camera" refname="ftrack"/>
    <framexaxis objtype="xbody" objname="b" reftype="camera" refname="inframe"/>
    <framelinvel objtype="camera" objname="track"/>
    <framelinvel objtype="camera" objname="ftarget" reftype="camera" refname="fixed"/>
    <frameangvel objtype="camera" objname="tb" reftype="camera" refname="trackcom"/>
    <framepos objtype="camera" objname="c0" reftype="camera" refname="ftrack"/>
  </sensor>
</mujoco>"""

CAM_MODEL = "cam_mode cam_bodyid cam_targetbodyid cam_pos cam_quat cam_pos0 cam_poscom0 cam_mat0".split()


def cameras(rng):
    m = mujoco.MjModel.from_xml_string(CAMERA)
    d = mujoco.MjData(m)
    out = {"xml": CAMERA, "model": {f: tolist(getattr(m, f)) for f in CAM_MODEL}, "cases": []}
    for k in range(5):
        mujoco.mj_resetData(m, d)
        if k:
            d.qpos[:] = random_qpos(m, rng, 1.0)
        d.qvel[:] = rng.normal(0, 1.0, m.nv)
        out["cases"].append(state_case(m, d))
    return out


# ------------------------------------------------------------------ ray exclusion
RAY = """
<mujoco>
  <asset>
    <material name="clear" rgba="1 0 0 0"/>
    <material name="solid" rgba="1 0 0 0.5"/>
    <material name="dflt" class="inv"/>
  </asset>
  <default>
    <default class="inv"><geom rgba="0 1 0 0"/><material rgba="0 0 1 0"/></default>
  </default>
  <worldbody>
    <body name="obj">
      <geom name="g0" group="0" type="sphere" size="0.1" pos="0 0 1" rgba="1 1 1 0"/>
      <geom name="g1" group="1" type="sphere" size="0.1" pos="0 0 2" material="clear"/>
      <geom name="g2" group="2" type="box" size="0.1 0.1 0.1" pos="0 0 3" material="solid" rgba="1 1 1 0"/>
      <geom name="g3" group="3" type="sphere" size="0.1" pos="0 0 4" material="clear" rgba="1 1 1 1"/>
      <geom name="g4" group="4" type="capsule" size="0.1 0.1" pos="0 0 5" class="inv"/>
      <geom name="g5" group="5" type="sphere" size="0.1" pos="0 0 6" material="dflt"/>
      <geom name="g6" group="5" type="ellipsoid" size="0.1 0.2 0.1" pos="0 0 7" rgba="1 1 1 0.01"/>
    </body>
    <body name="mover" pos="0 0 0.5">
      <joint type="slide" axis="1 0 0"/>
      <geom name="g7" type="sphere" size="0.05" rgba="0 0 0 0"/>
      <geom name="g8" type="sphere" size="0.05" pos="0 0 -1" material="solid"/>
    </body>
    <site name="s" pos="0 0 0"/>
    <site name="s2" pos="0 0 8" euler="180 0 0"/>
  </worldbody>
  <sensor><rangefinder site="s"/><rangefinder site="s2"/></sensor>
</mujoco>"""


def rays(rng):
    m = mujoco.MjModel.from_xml_string(RAY)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    out = {"xml": RAY, "model": {"geom_rgba": tolist(m.geom_rgba), "geom_matid": tolist(m.geom_matid),
                                 "mat_rgba": tolist(m.mat_rgba)},
           "sensordata": tolist(d.sensordata), "queries": []}
    gid = np.array([-1], dtype=np.int32)
    starts = [np.array([0.0, 0, 0]), np.array([0.0, 0, 8]), np.array([0.02, 0.03, -2])]
    for k in range(24):
        pnt = starts[k % 3] + rng.normal(0, 0.01, 3)
        vec = np.array([0.0, 0, 1.0 if k % 3 != 1 else -1.0]) + rng.normal(0, 0.01, 3)
        vec *= rng.uniform(0.5, 2)
        mask = None if k % 4 == 0 else rng.integers(0, 2, 6).astype(np.uint8)
        flg_static = int(k % 5 != 2)
        bodyexclude = [-1, 1, 2][k % 3] if k % 7 == 3 else -1
        x = mujoco.mj_ray(m, d, pnt, vec, mask, flg_static, bodyexclude, gid)
        out["queries"].append({"pnt": tolist(pnt), "vec": tolist(vec),
                               "geomgroup": None if mask is None else tolist(mask),
                               "flg_static": flg_static, "bodyexclude": bodyexclude,
                               "dist": float(x), "geomid": int(gid[0])})
    return out


# ------------------------------------------------------------------ adhesion / body transmission
ADHESION = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <geom name="wall" type="box" size="0.05 1 0.5" pos="-0.6 0 0.5"/>
    <body name="box" pos="0 0 0.06" euler="5 3 0">
      <freejoint/>
      <geom type="box" size="0.1 0.08 0.05" margin="0.02"/>
    </body>
    <body name="ball" pos="0.5 0 0.09">
      <joint type="slide" axis="0 0 1"/>
      <joint type="hinge" axis="0 1 0"/>
      <geom type="sphere" size="0.1" margin="0.05"/>
      <geom type="sphere" size="0.05" pos="0.1 0 0" margin="0.2"/>
    </body>
    <body name="arm" pos="-0.45 0 0.3">
      <joint type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.04"/>
    </body>
  </worldbody>
  <actuator>
    <adhesion name="a" body="box" ctrlrange="0 2" gain="3"/>
    <general name="g" body="ball" gainprm="5" ctrlrange="-1 1"/>
    <adhesion name="arm" body="arm" ctrlrange="0 1"/>
  </actuator>
</mujoco>"""

ACT_MODEL = """actuator_trntype actuator_trnid actuator_gainprm actuator_biasprm actuator_dynprm actuator_ctrlrange
actuator_ctrllimited actuator_gaintype actuator_biastype actuator_dyntype actuator_gear""".split()


def adhesion(rng):
    m = mujoco.MjModel.from_xml_string(ADHESION)
    d = mujoco.MjData(m)
    out = {"xml": ADHESION, "model": {f: tolist(getattr(m, f)) for f in ACT_MODEL}, "cases": []}
    for k in range(6):
        mujoco.mj_resetData(m, d)
        if k:
            d.qpos[:] = random_qpos(m, rng, 0.02)
            d.qvel[:] = rng.normal(0, 0.3, m.nv)
        d.ctrl[:] = rng.uniform(-0.5, 2.0, m.nu)
        out["cases"].append(state_case(m, d))
    # rollout: the adhesion pulls the bodies against the floor / wall
    mujoco.mj_resetData(m, d)
    d.ctrl[:] = [1.5, 0.8, 1.0]
    ro = {"ctrl": tolist(d.ctrl), "nstep": 200, "qpos": [], "qvel": []}
    for s in range(ro["nstep"]):
        mujoco.mj_step(m, d)
        if (s + 1) % 50 == 0:
            ro["qpos"].append(tolist(d.qpos))
            ro["qvel"].append(tolist(d.qvel))
    out["rollout"] = ro
    return out


# ------------------------------------------------------------------ inside wrap
INSIDE = """
<mujoco>
  <worldbody>
    <site name="w0" pos="-0.3 0 0.1"/>
    <site name="w2" pos="-0.3 0.45 0.1"/>
    <body name="b" pos="0 0 0">
      <joint name="j" type="hinge" axis="0 1 0"/>
      <geom name="sph" type="sphere" size="0.1"/>
      <geom name="cyl" type="cylinder" size="0.08 0.2" pos="0 0.5 0" euler="90 10 0"/>
      <geom name="cyl2" type="cylinder" size="0.08 0.2" pos="0 1 0" euler="90 0 0"/>
      <site name="in" pos="0.02 0 0.03"/>
      <site name="in2" pos="0.01 0.53 0.02"/>
      <site name="out2" pos="0.01 1.1 0.02"/>
      <body name="c" pos="0.3 0 0">
        <joint name="k" type="hinge" axis="0 1 0"/>
        <joint name="l" type="slide" axis="0 0 1"/>
        <geom type="sphere" size="0.02"/>
        <site name="e" pos="0.05 0 0.1"/><site name="e2" pos="0.05 0.55 0.1"/><site name="e3" pos="0.05 1.05 0.1"/>
      </body>
    </body>
    <site name="w3" pos="-0.3 0.95 0.1"/>
  </worldbody>
  <tendon>
    <spatial name="t0" stiffness="10" damping="0.2"><site site="w0"/><geom geom="sph" sidesite="in"/><site site="e"/></spatial>
    <spatial name="t1"><site site="w2"/><geom geom="cyl" sidesite="in2"/><site site="e2"/></spatial>
    <spatial name="t2"><site site="w3"/><geom geom="cyl2" sidesite="out2"/><site site="e3"/></spatial>
  </tendon>
  <actuator><motor tendon="t0" gear="2"/><motor tendon="t1"/></actuator>
</mujoco>"""


def inside(rng):
    m = mujoco.MjModel.from_xml_string(INSIDE)
    d = mujoco.MjData(m)
    out = {"xml": INSIDE, "cases": []}
    nwrapped = [0, 0, 0]
    for k in range(12):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = rng.uniform(-1.2, 1.2, m.nv) * [1, 1, 0.05]
        d.qvel[:] = rng.normal(0, 1, m.nv)
        d.ctrl[:] = rng.normal(0, 1, m.nu)
        c = state_case(m, d)
        tj = np.zeros((m.ntendon, m.nv))
        mujoco.mju_sparse2dense(tj, d.ten_J, m.ten_J_rownnz, m.ten_J_rowadr, m.ten_J_colind)
        n = int(sum(d.ten_wrapnum))
        c.update({"ten_length": tolist(d.ten_length), "ten_J": tolist(tj),
                  "ten_velocity": tolist(d.ten_velocity), "qfrc_passive": tolist(d.qfrc_passive),
                  "ten_wrapadr": tolist(d.ten_wrapadr), "ten_wrapnum": tolist(d.ten_wrapnum),
                  "wrap_obj": tolist(d.wrap_obj.reshape(-1)[:n]), "wrap_xpos": tolist(d.wrap_xpos.reshape(-1)[:3 * n])})
        for t in range(3):
            nwrapped[t] += int(d.ten_wrapnum[t] > 2)
        out["cases"].append(c)
    print("inside wrap: cases with a wrap per tendon", nwrapped)
    return out


# ------------------------------------------------------------------ length range by simulation
LR = """
<mujoco>
  <compiler><lengthrange LRATTR/></compiler>
  <option timestep="0.005"/>
  <worldbody>
    <body name="u" pos="0 0 1">
      <joint name="sh" type="hinge" axis="0 1 0" damping="0.3" stiffness="2" limited="true" range="-60 60"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <site name="o1" pos="0.05 0 0.04"/>
      <body name="f" pos="0.3 0 0">
        <joint name="el" type="hinge" axis="0 1 0" range="-100 20" limited="true" frictionloss="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
        <site name="i1" pos="0.1 0 0.03"/>
        <body name="h" pos="0.25 0 0"><joint name="wr" type="slide" axis="1 0 0" range="-0.05 0.05"/>
          <geom type="sphere" size="0.03"/></body>
      </body>
    </body>
    <site name="base" pos="-0.1 0 1.05"/>
  </worldbody>
  <tendon>
    <spatial name="bi"><site site="base"/><site site="o1"/><site site="i1"/></spatial>
    <fixed name="fx"><joint joint="sh" coef="1"/><joint joint="el" coef="-0.5"/><joint joint="wr" coef="2"/></fixed>
  </tendon>
  <actuator>
    <muscle name="m0" tendon="bi"/>
    <muscle name="m1" joint="sh" gear="2"/>
    <muscle name="m2" tendon="fx" lengthrange="0.1 0.3"/>
    <general name="g" joint="el" lengthrange="0 0"/>
    <general name="dm" tendon="fx" dyntype="muscle" gainprm="1"/>
    <general name="gm" joint="wr" gaintype="muscle" gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/>
  </actuator>
</mujoco>"""

LR_VARIANTS = [
    "",
    'mode="all"',
    'mode="all" useexisting="false" accel="35" timeconst="0.5"',
    'mode="all" uselimit="true" maxforce="3" timestep="0.004" inttotal="6" interval="1.5"',
    'mode="muscleuser" useexisting="false" timestep="0" tolrange="0.2" timeconst="0.001"',
]


def lengthrange():
    out = {"xml": LR, "variants": []}
    for v in LR_VARIANTS:
        m = mujoco.MjModel.from_xml_string(LR.replace("LRATTR", v))
        out["variants"].append({"attrs": v, "actuator_lengthrange": tolist(m.actuator_lengthrange)})
    # an unlimited hinge driven by a muscle never settles: MuJoCo refuses the model
    bad = LR.replace('limited="true" range="-60 60"', "").replace("LRATTR", "")
    try:
        mujoco.MjModel.from_xml_string(bad)
        raise SystemExit("expected a lengthrange error")
    except ValueError as e:
        out["error_xml"] = bad
        out["error"] = str(e)
    return out


def main():
    rng = np.random.default_rng(88)
    result = {"mujoco_version": mujoco.__version__,
              "cameras": cameras(rng), "rays": rays(rng), "adhesion": adhesion(rng),
              "inside": inside(rng),
              "lengthrange": lengthrange()}
    path = os.path.join("tests", "reference", "phys8c_cases.json")
    with open(path, "w") as f:
        json.dump(result, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")
    for c in result["adhesion"]["cases"]:
        print("adhesion ncon", c["ncon"])
    for v in result["lengthrange"]["variants"]:
        print("lengthrange", v["attrs"], v["actuator_lengthrange"])
    print("lengthrange error:", result["lengthrange"]["error"])
    print("ray hits", [q["geomid"] for q in result["rays"]["queries"]], result["rays"]["sensordata"])


if __name__ == "__main__":
    main()
