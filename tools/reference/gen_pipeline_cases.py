#!/usr/bin/env python3
"""Reference cases for the smooth pipeline (kinematics .. qacc_smooth, setconst) from MuJoCo 4.0.0.

Writes tests/reference/pipeline_cases.json: for each small inline model the compiled Model fields the
Rust tests need (so they can build `Model` without the MJCF loader) and, for a few random states, the
outputs of mj_forward. Run from the repository root: python3 tools/reference/gen_pipeline_cases.py
"""
import json
import os

import mujoco
import numpy as np

MODELS = {
    "hinge_chain": """
<mujoco><option gravity="0.3 -0.2 -9.81"/><worldbody>
 <body pos="0.1 0 1" euler="10 20 30"><joint name="j0" axis="0 1 0" ref="15"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 -0.1" size="0.05"/>
  <body pos="0.3 0 -0.1" quat="0.9 0.1 0.2 0.3"><joint name="j1" axis="1 1 0" pos="0 0 0.05"/>
   <geom type="box" size="0.1 0.05 0.02" pos="0.1 0.02 0"/>
   <body pos="0.2 0 0"><joint name="j2" axis="0 0 1"/>
    <geom type="ellipsoid" size="0.05 0.07 0.09" pos="0.05 0 0.01" euler="5 10 15"/></body>
  </body>
 </body></worldbody></mujoco>""",
    "cartpole": """
<mujoco><worldbody>
 <body name="cart" pos="0 0 0.5"><joint name="slider" type="slide" axis="1 0 0"/>
  <geom type="box" size="0.2 0.1 0.05" mass="1"/>
  <body name="pole" pos="0 0 0"><joint name="hinge" axis="0 1 0" damping="0.1"/>
   <geom type="capsule" fromto="0 0 0 0 0 0.6" size="0.03" mass="0.2"/></body>
 </body></worldbody>
 <actuator><motor joint="slider" gear="10" ctrlrange="-1 1"/></actuator></mujoco>""",
    "ball": """
<mujoco><worldbody>
 <body pos="0 0 1"><joint name="ball" type="ball" pos="0 0 0.1" stiffness="2" damping="0.3" armature="0.05"/>
  <geom type="capsule" fromto="0 0 0 0.1 0.05 -0.4" size="0.04"/>
  <body pos="0.1 0.05 -0.4"><joint type="hinge" axis="0 1 0" stiffness="1" springref="20"/>
   <geom type="box" size="0.05 0.1 0.15" pos="0 0 -0.1"/></body>
 </body></worldbody>
 <actuator><motor joint="ball" gear="1 2 3 0 0 0"/></actuator></mujoco>""",
    "free_body": """
<mujoco><worldbody>
 <body pos="0.1 0.2 1" quat="0.8 0.1 -0.3 0.2"><freejoint/>
  <geom type="box" size="0.2 0.1 0.05" pos="0.1 0.05 0" euler="10 0 30"/>
  <geom type="sphere" size="0.07" pos="-0.2 0.1 0.1"/>
  <body pos="0.3 0 0"><geom type="capsule" size="0.02 0.1" pos="0.05 0 0"/></body>
 </body>
 <body pos="1 0 1"><freejoint/><inertial pos="0.1 -0.05 0.02" quat="0.9 0.2 0.1 0.3" mass="1.5" diaginertia="0.03 0.02 0.01"/>
  <body pos="0 0 -0.2"><joint type="hinge" axis="1 0 0" damping="0.05"/><geom type="sphere" size="0.05" pos="0 0.05 -0.1"/></body>
 </body>
 <body mocap="true" pos="0 0 2"><geom type="sphere" size="0.05" contype="0" conaffinity="0"/></body>
 </worldbody></mujoco>""",
    "arm3": """
<mujoco><worldbody>
 <body pos="0 0 0.5"><joint name="s" axis="0 0 1" armature="0.1" damping="0.5 0.2 0.1" stiffness="3 0.5 0.2" springref="10"/>
  <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.04"/>
  <body pos="0 0 0.3"><joint name="e" axis="0 1 0" armature="0.05" damping="0.3" stiffness="2" ref="5" springref="-20"/>
   <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
   <body pos="0.3 0 0"><joint name="w" type="slide" axis="1 0 0" armature="0.02" damping="1" stiffness="5 1 0.5" springref="0.05"/>
    <geom type="box" size="0.04 0.03 0.02"/>
   </body>
  </body>
 </body></worldbody></mujoco>""",
    "tendon": """
<mujoco><worldbody>
 <body pos="0 0 1"><joint name="a" axis="0 1 0" range="-60 60"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
  <body pos="0.3 0 0"><joint name="b" axis="0 1 0" range="-60 60"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
   <body pos="0.3 0 0"><joint name="c" type="slide" axis="1 0 0" range="-0.1 0.1"/><geom type="sphere" size="0.04"/></body>
  </body>
 </body></worldbody>
 <tendon>
  <fixed name="t0" stiffness="4" damping="0.7" springlength="-0.1 0.2" armature="0.2"><joint joint="a" coef="1"/><joint joint="b" coef="-0.5"/></fixed>
  <fixed name="t1" stiffness="2" damping="0.2" armature="0.3"><joint joint="b" coef="0.3"/><joint joint="c" coef="2"/></fixed>
 </tendon>
 <actuator><motor tendon="t0" gear="2"/><position tendon="t1" kp="5"/></actuator></mujoco>""",
    "tendon_crosstree": """
<mujoco><worldbody>
 <body><joint name="a" axis="0 1 0"/><geom size=".1" pos=".1 0 0"/>
  <body pos=".2 0 0"><joint name="b" axis="0 1 0"/><geom size=".1" pos=".1 0 0"/></body></body>
 <body pos="0 1 0"><joint name="c" axis="0 1 0"/><geom size=".1" pos=".1 0 0"/></body></worldbody>
 <tendon><fixed armature="2" damping="0.3"><joint joint="a" coef="1"/><joint joint="c" coef="-0.5"/></fixed>
  <fixed armature="0.7"><joint joint="a" coef="0.4"/><joint joint="b" coef="1.5"/></fixed></tendon></mujoco>""",
    "actuators": """
<mujoco><worldbody>
 <body pos="0 0 1"><joint name="a" axis="0 1 0" range="-60 60"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
  <body pos="0.3 0 0"><joint name="b" axis="1 0 0" range="-60 60" actuatorfrcrange="-0.5 0.4" actuatorfrclimited="true"/>
   <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
   <body pos="0.3 0 0"><joint name="c" type="slide" axis="1 0 0" range="-0.1 0.1"/><geom type="sphere" size="0.04"/></body>
  </body>
 </body></worldbody>
 <tendon><fixed name="t" limited="true" range="-1 1"><joint joint="a" coef="1"/><joint joint="c" coef="-2"/></fixed></tendon>
 <actuator>
  <motor joint="a" gear="2" ctrlrange="-1 1"/>
  <position joint="b" kp="10" kv="0.5" ctrlrange="-0.5 0.5" forcerange="-3 3"/>
  <position joint="a" kp="5" dampratio="0.8" timeconst="0.05"/>
  <velocity joint="c" kv="3"/>
  <intvelocity joint="b" kp="4" actrange="-0.3 0.3"/>
  <general joint="c" dyntype="filter" dynprm="0.1" gaintype="affine" gainprm="1 0.5 -0.2" biastype="affine" biasprm="0.1 -0.3 0.2"/>
  <general joint="a" dyntype="integrator" gainprm="2" actearly="true" actlimited="true" actrange="-0.2 0.5"/>
  <general joint="b" dyntype="filterexact" dynprm="0.2" gainprm="1.5" actearly="true"/>
  <general tendon="t" gainprm="0.7" biastype="affine" biasprm="0 -1 -0.1" forcelimited="true" forcerange="-0.2 0.3"/>
  <muscle tendon="t" force="20"/>
  <muscle joint="b" lengthrange="-1 1" timeconst="0.02 0.05"/>
 </actuator></mujoco>""",
    "gravcomp": """
<mujoco><option gravity="0.5 0 -9.81"/><worldbody>
 <body pos="0 0 1" gravcomp="1"><joint type="ball"/><geom type="box" size="0.1 0.05 0.05" pos="0.1 0 0"/>
  <body pos="0.2 0 0" gravcomp="0.5"><joint axis="0 1 0"/><geom type="sphere" size="0.05" pos="0.1 0 0"/>
   <body pos="0.2 0 0" gravcomp="0.3"><geom type="sphere" size="0.03"/></body></body>
 </body></worldbody></mujoco>""",
}

# Variants: the same model with option flags (name, base, xml replacement of "<worldbody>").
VARIANTS = [
    ("arm3_nograv_nospring", "arm3", '<option><flag gravity="disable" spring="disable"/></option><worldbody>'),
    ("arm3_nodamper", "arm3", '<option><flag damper="disable"/></option><worldbody>'),
    ("actuators_noclamp", "actuators", '<option><flag clampctrl="disable"/></option><worldbody>'),
    ("actuators_noactuation", "actuators", '<option><flag actuation="disable"/></option><worldbody>'),
    ("gravcomp_nograv", "gravcomp", '<option gravity="0.5 0 -9.81"><flag gravity="disable"/></option><worldbody>'),
]

MODEL_FIELDS = """nq nv nu na nbody njnt ngeom nsite ntendon nwrap nM nmocap qpos0 qpos_spring
body_parentid body_rootid body_weldid body_mocapid body_jntnum body_jntadr body_dofnum body_dofadr
body_geomnum body_geomadr body_pos body_quat body_ipos body_iquat body_mass body_subtreemass body_inertia
body_invweight0 body_gravcomp
jnt_type jnt_qposadr jnt_dofadr jnt_bodyid jnt_limited jnt_actfrclimited jnt_pos jnt_axis jnt_stiffness
jnt_stiffnesspoly jnt_range jnt_actfrcrange
dof_bodyid dof_jntid dof_parentid dof_Madr dof_armature dof_damping dof_dampingpoly dof_invweight0 dof_M0
geom_bodyid geom_pos geom_quat site_bodyid site_pos site_quat
tendon_adr tendon_num tendon_stiffness tendon_damping tendon_lengthspring tendon_length0 tendon_invweight0
tendon_armature wrap_type wrap_objid wrap_prm
actuator_trntype actuator_dyntype actuator_gaintype actuator_biastype actuator_trnid actuator_actadr
actuator_actnum actuator_ctrllimited actuator_forcelimited actuator_actlimited actuator_actearly
actuator_dynprm actuator_gainprm actuator_biasprm actuator_ctrlrange actuator_forcerange actuator_actrange
actuator_gear actuator_cranklength actuator_acc0 actuator_length0 actuator_lengthrange""".split()

DATA_FIELDS = """xpos xquat xmat xipos ximat xanchor xaxis geom_xpos geom_xmat subtree_com cinert cdof cvel
cdof_dot qfrc_bias qfrc_spring qfrc_damper qfrc_gravcomp qfrc_passive ten_length ten_J ten_velocity
actuator_length actuator_moment actuator_velocity actuator_force qfrc_actuator act_dot qfrc_smooth
qacc_smooth""".split()


def tolist(x):
    a = np.asarray(x)
    if a.dtype == np.uint8:
        a = a.astype(int)
    return a.tolist()


def model_dict(m):
    out = {}
    for f in MODEL_FIELDS:
        out[f] = tolist(getattr(m, f))
    o = m.opt
    out["opt"] = {
        "timestep": o.timestep,
        "gravity": tolist(o.gravity),
        "disableflags": int(o.disableflags),
        "enableflags": int(o.enableflags),
        "density": o.density,
        "viscosity": o.viscosity,
    }
    return out


def random_state(m, d, rng):
    for j in range(m.njnt):
        adr = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            d.qpos[adr:adr + 3] = m.qpos0[adr:adr + 3] + rng.normal(0, 0.3, 3)
            q = rng.normal(size=4)
            # not normalized on purpose (kinematics must normalize)
            d.qpos[adr + 3:adr + 7] = q / np.linalg.norm(q) * rng.uniform(0.9, 1.1)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q = rng.normal(size=4)
            d.qpos[adr:adr + 4] = q / np.linalg.norm(q)
        else:
            d.qpos[adr] = rng.uniform(-1.2, 1.2) * (0.1 if t == mujoco.mjtJoint.mjJNT_SLIDE else 1)
    d.qvel[:] = rng.normal(0, 1.0, m.nv)
    d.act[:] = rng.uniform(-0.5, 1.0, m.na)
    d.ctrl[:] = rng.uniform(-1.5, 1.5, m.nu)
    d.qfrc_applied[:] = rng.normal(0, 0.5, m.nv)
    d.xfrc_applied[1:, :] = rng.normal(0, 0.5, (m.nbody - 1, 6))
    if m.nmocap:
        d.mocap_pos[:] = rng.normal(size=(m.nmocap, 3))
        q = rng.normal(size=(m.nmocap, 4))
        d.mocap_quat[:] = q / np.linalg.norm(q, axis=1, keepdims=True)


def case(m, d):
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    out = {
        "qpos": tolist(d.qpos), "qvel": tolist(d.qvel), "act": tolist(d.act), "ctrl": tolist(d.ctrl),
        "qfrc_applied": tolist(d.qfrc_applied), "xfrc_applied": tolist(d.xfrc_applied),
        "mocap_pos": tolist(d.mocap_pos), "mocap_quat": tolist(d.mocap_quat), "qM": tolist(M),
    }
    for f in DATA_FIELDS:
        out[f] = tolist(getattr(d, f))
    # actuator_moment in 4.0.0 is sparse: expand to dense nu x nv.
    mom = np.zeros((m.nu, m.nv))
    mujoco.mju_sparse2dense(mom, d.actuator_moment, d.moment_rownnz, d.moment_rowadr, d.moment_colind) \
        if m.nu else None
    out["actuator_moment"] = tolist(mom)
    # ten_J is sparse in 4.0.0 with the pattern in the model: expand to dense ntendon x nv.
    tj = np.zeros((m.ntendon, m.nv))
    if m.ntendon:
        mujoco.mju_sparse2dense(tj, d.ten_J, m.ten_J_rownnz, m.ten_J_rowadr, m.ten_J_colind)
    out["ten_J"] = tolist(tj)
    # Jacobians for mj_jac tests: point on the last body, body COM.
    b = m.nbody - 1
    jp = np.zeros((3, m.nv)); jr = np.zeros((3, m.nv))
    pt = d.xpos[b] + np.array([0.1, -0.2, 0.3])
    mujoco.mj_jac(m, d, jp, jr, pt, b)
    out["jac_body"] = b
    out["jac_point"] = tolist(pt)
    out["jacp"] = tolist(jp)
    out["jacr"] = tolist(jr)
    # M^-1 x for the factor/solve test
    x = np.arange(1, m.nv + 1, dtype=float)
    y = np.zeros((1, m.nv))
    mujoco.mj_solveM(m, d, y, x.reshape(1, m.nv))
    out["solve_x"] = tolist(x)
    out["solve_Minv_x"] = tolist(y.reshape(-1))
    return out


def main():
    rng = np.random.default_rng(12345)
    xmls = dict(MODELS)
    for name, base, rep in VARIANTS:
        xml = MODELS[base]
        if "<option" in xml:
            xml = xml.replace(xml[xml.index("<option"):xml.index("<worldbody>") + len("<worldbody>")], rep)
        else:
            xml = xml.replace("<worldbody>", rep, 1)
        xmls[name] = xml
    result = {"mujoco_version": mujoco.__version__, "models": []}
    for name, xml in xmls.items():
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        entry = {"name": name, "xml": xml, "model": model_dict(m), "cases": []}
        for _ in range(4):
            random_state(m, d, rng)
            entry["cases"].append(case(m, d))
        result["models"].append(entry)
    path = os.path.join("tests", "reference", "pipeline_cases.json")
    with open(path, "w") as f:
        json.dump(result, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
