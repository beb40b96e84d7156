#!/usr/bin/env python3
"""Reference cases for sensors, inverse dynamics and quaternion derivatives from MuJoCo 4.0.0.

Writes
  tests/reference/sensor_cases.json    sensor models (compiled fields + sensor fields) and, per random
                                       state, sensordata, cacc/cfrc_int/cfrc_ext, subtree_linvel/angmom
                                       after mj_forward, and after mj_inverse with a random qacc;
  tests/reference/inverse_cases.json   the pipeline models (gen_pipeline_cases.py) with constraints
                                       disabled: qfrc_inverse for random (state, qacc), plain and with
                                       invdiscrete under Euler / implicitfast / implicit (+ qDeriv);
  derivatives/tests/quat_cases.json    mjd_subQuat and mjd_quatIntegrate on random inputs.
Run from the repository root: python3 tools/reference/gen_sensor_cases.py
"""
import json
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import gen_pipeline_cases as pc  # noqa: E402

SENSOR_BASE = """
<mujoco><option gravity="0.3 -0.2 -9.81" magnetic="0.1 -0.4 0.3"/>
<worldbody>
 <site name="wsite" pos="0.2 -0.1 0.3" euler="10 -20 30"/>
 <body name="b1" pos="0.1 0 1" euler="10 20 30"><joint name="h0" axis="0 1 0" ref="15" damping="0.2"/>
  <geom name="g1" type="capsule" fromto="0 0 0 0.3 0 -0.1" size="0.05" contype="0" conaffinity="0"/>
  <site name="s1" pos="0.1 0.02 -0.03" euler="30 40 -10"/>
  <body name="b2" pos="0.3 0 -0.1" quat="0.9 0.1 0.2 0.3"><joint name="h1" axis="1 1 0" pos="0 0 0.05" range="-170 170"/>
   <geom name="g2" type="box" size="0.1 0.05 0.02" pos="0.1 0.02 0" euler="5 6 7" contype="0" conaffinity="0"/>
   <site name="s2" pos="0.2 -0.05 0.01" euler="-15 25 60"/>
   <body name="b3" pos="0.2 0 0"><joint name="sl" type="slide" axis="0.3 0 1"/>
    <geom name="g3" type="ellipsoid" size="0.05 0.07 0.09" pos="0.05 0 0.01" euler="5 10 15" contype="0" conaffinity="0"/>
    <body name="b4" pos="0.1 0.05 0"><joint name="ball" type="ball" pos="0 0 0.02" damping="0.1"/>
     <geom name="g4" type="box" size="0.03 0.04 0.08" pos="0.01 0 -0.05" euler="20 0 10" contype="0" conaffinity="0"/>
     <site name="s4" pos="0.02 0.01 -0.1" quat="0.7 0.1 -0.5 0.2"/>
    </body>
   </body>
  </body>
 </body>
 <body name="fb" pos="1 0 1" quat="0.8 0.1 -0.3 0.2"><freejoint name="free"/>
  <geom name="gf" type="box" size="0.2 0.1 0.05" pos="0.1 0.05 0" euler="10 0 30" contype="0" conaffinity="0"/>
  <geom type="sphere" size="0.07" pos="-0.2 0.1 0.1" contype="0" conaffinity="0"/>
  <site name="sf" pos="0.1 -0.1 0.05" euler="90 10 0"/>
  <body name="fc" pos="0.3 0 0"><joint name="fh" axis="0 0 1"/>
   <geom type="capsule" size="0.02 0.1" pos="0.05 0 0" contype="0" conaffinity="0"/>
   <site name="sfc" pos="0.1 0.02 0" euler="0 30 0"/>
  </body>
 </body>
</worldbody>
<tendon><fixed name="t0"><joint joint="h0" coef="1"/><joint joint="sl" coef="-0.5"/></fixed></tendon>
<actuator>
 <motor name="m0" joint="h0" gear="2"/>
 <position name="p1" joint="h1" kp="3" kv="0.2"/>
 <motor name="mt" tendon="t0" gear="1.5"/>
 <motor name="mb" joint="ball" gear="0.5 1 -1 0 0 0"/>
 <velocity name="vf" joint="fh" kv="0.7"/>
</actuator>
<sensor>
 SENSORS
</sensor></mujoco>"""

OBJS = [("body", "b2"), ("xbody", "b2"), ("geom", "g4"), ("site", "s4"), ("body", "fb"), ("site", "sf")]
REFS = [("body", "b1"), ("xbody", "fc"), ("geom", "g2"), ("site", "s2"), ("site", "wsite")]


def sensor_list(cutoff=False):
    # the cutoff variant also sets noise: MuJoCo does not apply it, sensordata stays noiseless
    c = (lambda v: f' cutoff="{v}" noise="0.3"') if cutoff else (lambda v: "")
    s = []
    s += [f'<jointpos joint="h0"{c(0.3)}/>', '<jointpos joint="sl"/>', f'<jointvel joint="h1"{c(0.5)}/>',
          '<jointvel joint="fh"/>', '<tendonpos tendon="t0"/>', f'<tendonvel tendon="t0"{c(0.2)}/>',
          '<actuatorpos actuator="m0"/>', '<actuatorpos actuator="mt"/>', '<actuatorvel actuator="p1"/>',
          f'<actuatorfrc actuator="p1"{c(0.1)}/>', '<actuatorfrc actuator="vf"/>',
          '<jointactuatorfrc joint="h1"/>', '<jointactuatorfrc joint="sl"/>',
          '<ballquat joint="ball"/>', f'<ballangvel joint="ball"{c(0.4)}/>',
          '<jointlimitpos joint="h1"/>', '<jointlimitvel joint="h1"/>', '<jointlimitfrc joint="h1"/>',
          '<touch site="s2"/>', f'<touch site="s4"{c(1)}/>',
          f'<accelerometer site="s4"{c(2.5)}/>', '<accelerometer site="sf"/>', '<accelerometer site="wsite"/>',
          f'<velocimeter site="s2"{c(0.3)}/>', '<velocimeter site="sfc"/>',
          f'<gyro site="s4"{c(0.6)}/>', '<gyro site="sf"/>',
          f'<force site="s2"{c(1.0)}/>', '<force site="s4"/>', '<force site="sfc"/>', '<force site="sf"/>',
          f'<torque site="s2"{c(0.1)}/>', '<torque site="s4"/>', '<torque site="sfc"/>',
          f'<magnetometer site="s1"{c(0.2)}/>', '<magnetometer site="sf"/>',
          '<subtreecom body="b2"/>', '<subtreecom body="fb"/>', '<subtreecom body="world"/>',
          f'<subtreelinvel body="b2"{c(0.3)}/>', '<subtreelinvel body="fb"/>', '<subtreelinvel body="world"/>',
          '<subtreeangmom body="b1"/>', '<subtreeangmom body="b4"/>', '<subtreeangmom body="fb"/>',
          '<subtreeangmom body="world"/>', f'<clock{c(0.05)}/>']
    for k, (ot, on) in enumerate(OBJS):
        for typ in ["framepos", "framequat", "framexaxis", "frameyaxis", "framezaxis", "framelinvel",
                    "frameangvel", "framelinacc", "frameangacc"]:
            cc = c(0.4) if k == 0 and typ not in ("framequat", "framexaxis", "frameyaxis", "framezaxis") else ""
            s.append(f'<{typ} objtype="{ot}" objname="{on}"{cc}/>')
            if typ not in ("framelinacc", "frameangacc"):
                for rt, rn in REFS:
                    s.append(f'<{typ} objtype="{ot}" objname="{on}" reftype="{rt}" refname="{rn}"/>')
    return "\n ".join(s)


SENSOR_MODELS = {
    "sensors": SENSOR_BASE.replace("SENSORS", sensor_list()),
    "sensors_cutoff": SENSOR_BASE.replace("SENSORS", sensor_list(cutoff=True)),
    "sensors_nograv": SENSOR_BASE.replace("SENSORS", sensor_list()).replace(
        '<worldbody>', '<option><flag gravity="disable"/></option><worldbody>', 1),
    "sensors_disabled": SENSOR_BASE.replace("SENSORS", sensor_list()).replace(
        '<worldbody>', '<option><flag sensor="disable"/></option><worldbody>', 1),
    "sensors_gravcomp": SENSOR_BASE.replace("SENSORS", sensor_list()).replace(
        '<body name="b2"', '<body name="b2" gravcomp="0.6"', 1),
}

EXTRA_MODEL_FIELDS = """nsensor nsensordata ngeom nsite geom_bodyid geom_pos geom_quat site_bodyid site_pos
site_quat sensor_type sensor_datatype sensor_needstage sensor_objtype sensor_objid sensor_reftype
sensor_refid sensor_dim sensor_adr sensor_cutoff sensor_noise sensor_intprm""".split()

OUT_FIELDS = """sensordata cacc cfrc_int cfrc_ext subtree_linvel subtree_angmom qacc qfrc_inverse""".split()


def tolist(x):
    return pc.tolist(x)


def model_dict(m):
    out = pc.model_dict(m)
    for f in EXTRA_MODEL_FIELDS:
        out[f] = tolist(getattr(m, f))
    out["opt"]["magnetic"] = tolist(m.opt.magnetic)
    out["opt"]["integrator"] = int(m.opt.integrator)
    return out


def state_dict(m, d):
    return {
        "time": d.time, "qpos": tolist(d.qpos), "qvel": tolist(d.qvel), "act": tolist(d.act),
        "ctrl": tolist(d.ctrl), "qfrc_applied": tolist(d.qfrc_applied),
        "xfrc_applied": tolist(d.xfrc_applied), "mocap_pos": tolist(d.mocap_pos),
        "mocap_quat": tolist(d.mocap_quat),
    }


def outputs(d):
    return {f: tolist(getattr(d, f)) for f in OUT_FIELDS}


def sensor_cases(rng):
    models = []
    for name, xml in SENSOR_MODELS.items():
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        entry = {"name": name, "model": model_dict(m), "cases": []}
        for k in range(4):
            pc.random_state(m, d, rng)
            if k == 3:
                d.xfrc_applied[:] = 0.0  # force/torque sensors without external forces
            d.time = rng.uniform(0, 2)
            d.sensordata[:] = 0.0
            mujoco.mj_forward(m, d)
            assert d.nefc == 0 and d.ncon == 0
            c = state_dict(m, d)
            c["forward"] = outputs(d)
            d.qacc[:] = rng.normal(0, 2.0, m.nv)
            c["qacc_in"] = tolist(d.qacc)
            d.sensordata[:] = 0.0
            mujoco.mj_inverse(m, d)
            c["inverse"] = outputs(d)
            entry["cases"].append(c)
        models.append(entry)
    return models


def dense_qderiv(m, d):
    D = np.zeros((m.nv, m.nv))
    for i in range(m.nv):
        for k in range(m.D_rownnz[i]):
            adr = m.D_rowadr[i] + k
            D[i, m.D_colind[adr]] = d.qDeriv[adr]
    return D


INTEGRATORS = [("euler", mujoco.mjtIntegrator.mjINT_EULER), ("implicitfast", mujoco.mjtIntegrator.mjINT_IMPLICITFAST),
               ("implicit", mujoco.mjtIntegrator.mjINT_IMPLICIT)]


def inverse_cases(rng):
    models = []
    xmls = dict(pc.MODELS)
    xmls["sensors"] = SENSOR_MODELS["sensors"]
    for name, xml in xmls.items():
        m = mujoco.MjModel.from_xml_string(xml)
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
        d = mujoco.MjData(m)
        entry = {"name": name, "model": model_dict(m), "cases": []}
        for _ in range(3):
            pc.random_state(m, d, rng)
            c = state_dict(m, d)
            qacc = rng.normal(0, 2.0, m.nv)
            c["qacc_in"] = tolist(qacc)
            mujoco.mj_forward(m, d)
            c["qacc_forward"] = tolist(d.qacc)
            d.qacc[:] = qacc
            mujoco.mj_inverse(m, d)
            c["qfrc_inverse"] = tolist(d.qfrc_inverse)
            # invdiscrete under each integrator
            c["discrete"] = {}
            for iname, it in INTEGRATORS:
                m.opt.integrator = it
                m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_INVDISCRETE
                d.qacc[:] = qacc
                d.qDeriv[:] = 0.0
                mujoco.mj_inverse(m, d)
                out = {"qfrc_inverse": tolist(d.qfrc_inverse), "qacc_after": tolist(d.qacc),
                       "qDeriv": tolist(dense_qderiv(m, d))}
                # eulerdamp off
                m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_EULERDAMP
                d.qacc[:] = qacc
                mujoco.mj_inverse(m, d)
                out["qfrc_inverse_noeulerdamp"] = tolist(d.qfrc_inverse)
                m.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_EULERDAMP)
                c["discrete"][iname] = out
                m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
                m.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_INVDISCRETE)
            entry["cases"].append(c)
        models.append(entry)
    return models


def quat_cases(rng):
    out = {"subquat": [], "quatintegrate": []}
    for k in range(20):
        qa = rng.normal(size=4); qa /= np.linalg.norm(qa)
        if k < 3:  # near / at identity difference
            qb = qa.copy()
            if k > 0:
                qb = qb + rng.normal(size=4) * 10.0 ** (-3 * k); qb /= np.linalg.norm(qb)
        else:
            qb = rng.normal(size=4); qb /= np.linalg.norm(qb)
        Da = np.zeros((3, 3)); Db = np.zeros((3, 3))
        mujoco.mjd_subQuat(qa, qb, Da, Db)
        res = np.zeros(3)
        mujoco.mju_subQuat(res, qa, qb)
        out["subquat"].append({"qa": tolist(qa), "qb": tolist(qb), "res": tolist(res),
                               "Da": tolist(Da), "Db": tolist(Db)})
    for k in range(20):
        v = rng.normal(size=3) * (10.0 ** (-4 * k) if k < 3 else 1.0)
        if k == 0:
            v[:] = 0.0
        h = rng.uniform(0.001, 1.5)
        q = rng.normal(size=4); q /= np.linalg.norm(q)
        Dq = np.zeros(9); Dv = np.zeros(9); Dh = np.zeros(3)
        mujoco.mjd_quatIntegrate(v, h, Dq, Dv, Dh)
        qo = q.copy()
        mujoco.mju_quatIntegrate(qo, v, h)
        out["quatintegrate"].append({"q": tolist(q), "vel": tolist(v), "scale": h, "qout": tolist(qo),
                                     "Dquat": tolist(Dq.reshape(3, 3)), "Dvel": tolist(Dv.reshape(3, 3)),
                                     "Dscale": tolist(Dh)})
    return out


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")


def main():
    rng = np.random.default_rng(2024)
    ver = mujoco.__version__
    dump(os.path.join("tests", "reference", "sensor_cases.json"),
         {"mujoco_version": ver, "models": sensor_cases(rng)})
    dump(os.path.join("tests", "reference", "inverse_cases.json"),
         {"mujoco_version": ver, "models": inverse_cases(rng)})
    dump(os.path.join("derivatives", "tests", "quat_cases.json"), {"mujoco_version": ver, **quat_cases(rng)})


if __name__ == "__main__":
    main()
