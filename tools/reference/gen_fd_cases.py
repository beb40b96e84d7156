#!/usr/bin/env python3
"""Reference cases for the finite-difference Jacobians (mjd_transitionFD, mjd_inverseFD) from MuJoCo 4.0.0.

Writes tests/reference/fd_cases.json, read by derivatives/tests/derivatives/fd_oracle.rs. For each project model
(loaded from models/ by path, so the Rust side compiles the same MJCF) and integrator variant, at 2-3
states (keyframe 0 with random controls, a random state, controls at / beyond their ctrlrange limits):
- mjd_transitionFD with eps 1e-6, forward and centered: A, B, C, D (rows are outputs);
- mjd_inverseFD with eps 1e-6 and flg_actuation 0 and 1 (at qacc = the forward qacc plus a random
  offset), after mj_forward at the state (the inverse sensors read the actuator forces left in mjData):
  DfDq, DfDv, DfDa, DsDq, DsDv, DsDa, DmDq (MuJoCo's transposed layout; DmDq's columns follow 4.0.0's
  CSR mass matrix d.M, whose structure M_rownnz/M_rowadr/M_colind is recorded with each case).
mjd_transitionFD refuses RK4 in 4.0.0, so the "RK4" variants are differenced here in Python with the same
scheme (tangent perturbations, full restore incl. qacc_warmstart before every mj_step, one-sided control
differences at the ctrlrange limits), using mj_step without skipped stages ("method": "python_rk4").
Contact models are recorded too ("contact": true) with nefc at the state; the Rust test skips them while
moreau's forward produces no constraint rows.

Run from the repository root: python3 tools/reference/gen_fd_cases.py
"""
import json
import os

import mujoco
import numpy as np

EPS = 1e-6
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# model, integrator variants (None = the model's own), states
MODELS = [
    ("pendulum", [None, "implicit"]),
    ("double_pendulum", [None, "implicitfast"]),
    ("cartpole", [None, "RK4"]),
    ("ball_pendulum", [None, "implicit", "RK4"]),
    ("free_body", [None, "implicitfast"]),
    ("arm7", [None, "implicitfast"]),
    ("tendon_springs", [None]),
    ("zoo2", [None, "RK4"]),
    ("zoo", [None, "implicit"]),
]
# inline models (recorded with their XML): velocity-dependent actuator gains (qDeriv depends on
# ctrl and act), polynomial damping, acceleration and actuator sensors
INLINE = {"actuated_sensors": """
<mujoco><option timestep="0.005"/><worldbody>
 <body pos="0 0 1"><joint name="h" axis="0 1 0" damping="0.3 0.2 0.1" stiffness="1"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
  <body pos="0.3 0 0"><joint name="b" type="ball" damping="0.05"/>
   <geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0"/><site name="tip" pos="0.2 0 0"/></body>
 </body></worldbody>
 <actuator>
  <general name="g" joint="h" gaintype="affine" gainprm="1 0.2 3" biastype="affine" biasprm="0 0 -1"
           ctrlrange="-1 1"/>
  <general name="f" joint="h" dyntype="filter" dynprm="0.1" gaintype="affine" gainprm="1 0 2"/>
  <position name="p" joint="h" kp="5" kv="0.5" ctrlrange="-0.5 0.5"/>
 </actuator>
 <sensor><accelerometer site="tip"/><gyro site="tip"/><velocimeter site="tip"/>
  <actuatorfrc actuator="g"/><jointactuatorfrc joint="h"/><framelinacc objtype="site" objname="tip"/>
  <jointpos joint="h"/><ballquat joint="b"/></sensor>
 <keyframe><key qpos="0.3 0.9 0.1 0.3 0.3" qvel="1 -0.5 0.3 0.8" act="0.4" ctrl="0.2 0.3 0.1"/></keyframe>
</mujoco>"""}
MODELS += [("inline:actuated_sensors", [None, "implicit", "implicitfast", "RK4"])]

CONTACT_MODELS = [("sphere_drop", [None]), ("box_drop", [None])]

INTEG = {"Euler": mujoco.mjtIntegrator.mjINT_EULER, "RK4": mujoco.mjtIntegrator.mjINT_RK4,
         "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
         "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}


def rows(a):
    a = np.asarray(a, dtype=float)
    return [[float(x) for x in r] for r in a]


def set_state(m, d, st):
    mujoco.mj_resetData(m, d)
    d.qpos[:] = st["qpos"]
    d.qvel[:] = st["qvel"]
    d.act[:] = st["act"]
    d.ctrl[:] = st["ctrl"]
    d.qacc_warmstart[:] = st["qacc_warmstart"]
    if m.nmocap:
        d.mocap_pos[:] = np.array(st["mocap_pos"]).reshape(-1, 3)
        d.mocap_quat[:] = np.array(st["mocap_quat"]).reshape(-1, 4)


def states(m, rng, contact):
    d = mujoco.MjData(m)
    out = []
    # 1: keyframe 0 (or qpos0), random controls inside the ranges
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    lo = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 1], 1.0)
    d.ctrl[:] = lo + (hi - lo) * rng.uniform(0.1, 0.9, m.nu)
    if contact:
        # let it fall into contact and settle a little, with a converged warm start
        for _ in range(400):
            mujoco.mj_step(m, d)
    out.append(snapshot(m, d))
    if contact:
        return out
    # 2: random tangent perturbation of the keyframe, random velocities and activations
    dq = rng.normal(0, 0.3, m.nv)
    mujoco.mj_integratePos(m, d.qpos, dq, 1.0)
    d.qvel[:] = rng.normal(0, 1.0, m.nv)
    if m.na:
        d.act[:] = rng.uniform(-0.5, 0.5, m.na)
        for u in range(m.nu):
            if m.actuator_actlimited[u] and m.actuator_actadr[u] >= 0:
                a = m.actuator_actadr[u]
                r = m.actuator_actrange[u]
                d.act[a:a + m.actuator_actnum[u]] = np.clip(d.act[a:a + m.actuator_actnum[u]], r[0], r[1])
    d.ctrl[:] = lo + (hi - lo) * rng.uniform(0.05, 0.95, m.nu)
    d.qacc_warmstart[:] = rng.normal(0, 0.1, m.nv)
    out.append(snapshot(m, d))
    # 3: controls at the upper limit, within eps/2 of the lower limit, and beyond the range
    if m.nu:
        c = d.ctrl.copy()
        for u in range(m.nu):
            if not m.actuator_ctrllimited[u]:
                continue
            k = u % 3
            r = m.actuator_ctrlrange[u]
            c[u] = [r[1], r[0] + 0.5 * EPS, r[1] + 0.3][k]
        d.ctrl[:] = c
        out.append(snapshot(m, d))
    return out


def snapshot(m, d):
    return {"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "act": d.act.tolist(),
            "ctrl": d.ctrl.tolist(), "qacc_warmstart": d.qacc_warmstart.tolist(),
            "mocap_pos": d.mocap_pos.ravel().tolist(), "mocap_quat": d.mocap_quat.ravel().tolist()}


# ---------------------------------------------------------------- Python FD for RK4 (not in 4.0.0)

def step_out(m, d, full, spec):
    mujoco.mj_step(m, d)
    y = np.concatenate([d.qpos, d.qvel, d.act])
    s = d.sensordata.copy()
    mujoco.mj_setState(m, d, full, spec)
    return y, s


def state_diff(m, y1, y2, h):
    nq, nv = m.nq, m.nv
    dq = np.zeros(nv)
    mujoco.mj_differentiatePos(m, dq, h, y1[:nq], y2[:nq])
    return np.concatenate([dq, (y2[nq:] - y1[nq:]) / h])


def python_transition_fd(m, d, eps, centered):
    nv, na, nu, ns = m.nv, m.na, m.nu, m.nsensordata
    nx = 2 * nv + na
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS | mujoco.mjtState.mjSTATE_CTRL | mujoco.mjtState.mjSTATE_WARMSTART
    full = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, full, spec)
    A, B, C, D = np.zeros((nx, nx)), np.zeros((nx, nu)), np.zeros((ns, nx)), np.zeros((ns, nu))
    y0, s0 = step_out(m, d, full, spec)

    def columns(yp, sp, ym, sm, h_fwd):
        if yp is not None and ym is not None:
            return state_diff(m, ym, yp, 2 * h_fwd), (sp - sm) / (2 * h_fwd)
        if yp is not None:
            return state_diff(m, y0, yp, h_fwd), (sp - s0) / h_fwd
        if ym is not None:
            return state_diff(m, ym, y0, h_fwd), (s0 - sm) / h_fwd
        return np.zeros(nx), np.zeros(ns)

    clamp = not (m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL)
    ctrl0 = d.ctrl.copy()
    for i in range(nu):
        lim = clamp and m.actuator_ctrllimited[i]
        r = m.actuator_ctrlrange[i]
        inside = lambda a, b: (not lim) or (r[0] <= a <= r[1] and r[0] <= b <= r[1])
        c = ctrl0[i]
        yp = sp = ym = sm = None
        plus = inside(c, c + eps)
        if plus:
            d.ctrl[i] = c + eps
            yp, sp = step_out(m, d, full, spec)
        if (centered or not plus) and inside(c - eps, c):
            d.ctrl[i] = c - eps
            ym, sm = step_out(m, d, full, spec)
        B[:, i], D[:, i] = columns(yp, sp, ym, sm, eps)
    act0 = d.act.copy()
    for i in range(na):
        d.act[i] = act0[i] + eps
        yp, sp = step_out(m, d, full, spec)
        ym = sm = None
        if centered:
            d.act[i] = act0[i] - eps
            ym, sm = step_out(m, d, full, spec)
        A[:, 2 * nv + i], C[:, 2 * nv + i] = columns(yp, sp, ym, sm, eps)
    qvel0 = d.qvel.copy()
    for i in range(nv):
        d.qvel[i] = qvel0[i] + eps
        yp, sp = step_out(m, d, full, spec)
        ym = sm = None
        if centered:
            d.qvel[i] = qvel0[i] - eps
            ym, sm = step_out(m, d, full, spec)
        A[:, nv + i], C[:, nv + i] = columns(yp, sp, ym, sm, eps)
    for i in range(nv):
        e = np.zeros(nv)
        e[i] = 1.0
        mujoco.mj_integratePos(m, d.qpos, e, eps)
        yp, sp = step_out(m, d, full, spec)
        ym = sm = None
        if centered:
            mujoco.mj_integratePos(m, d.qpos, e, -eps)
            ym, sm = step_out(m, d, full, spec)
        A[:, i], C[:, i] = columns(yp, sp, ym, sm, eps)
    return A, B, C, D


# ---------------------------------------------------------------- cases

def transition(m, d, st, centered, python):
    set_state(m, d, st)
    nx = 2 * m.nv + m.na
    if python:
        A, B, C, D = python_transition_fd(m, d, EPS, centered)
    else:
        A, B = np.zeros((nx, nx)), np.zeros((nx, m.nu))
        C, D = np.zeros((m.nsensordata, nx)), np.zeros((m.nsensordata, m.nu))
        mujoco.mjd_transitionFD(m, d, EPS, centered, A, B, C, D)
    return {"A": rows(A), "B": rows(B), "C": rows(C), "D": rows(D)}


def inverse(m, d, st, qacc, flg):
    set_state(m, d, st)
    mujoco.mj_forward(m, d)
    d.qacc[:] = qacc
    nv, ns = m.nv, m.nsensordata
    out = {k: np.zeros((nv, nv)) for k in ("DfDq", "DfDv", "DfDa")}
    out.update({k: np.zeros((nv, ns)) for k in ("DsDq", "DsDv", "DsDa")})
    out["DmDq"] = np.zeros((nv, m.nC))  # 4.0.0: d.M's CSR layout (M_rownnz/M_rowadr/M_colind)
    mujoco.mjd_inverseFD(m, d, EPS, flg, out["DfDq"], out["DfDv"], out["DfDa"],
                         out["DsDq"], out["DsDv"], out["DsDa"], out["DmDq"])
    return {k: rows(v) for k, v in out.items()}


def main():
    rng = np.random.default_rng(20261121)
    cases = []
    for contact, group in ((False, MODELS), (True, CONTACT_MODELS)):
        for name, variants in group:
            inline = name.startswith("inline:")
            path = name if inline else f"models/{name}.xml"
            for var in variants:
                if inline:
                    m = mujoco.MjModel.from_xml_string(INLINE[name[7:]])
                else:
                    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, path))
                if var is not None:
                    m.opt.integrator = INTEG[var]
                d = mujoco.MjData(m)
                python = m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
                for k, st in enumerate(states(m, rng, contact)):
                    set_state(m, d, st)
                    mujoco.mj_forward(m, d)
                    nefc = int(d.nefc)
                    qacc = d.qacc + rng.normal(0, 0.5, m.nv)
                    case = {"model": path, "xml": INLINE[name[7:]] if inline else None,
                            "integrator": var, "state_index": k, "state": st,
                            "eps": EPS, "contact": contact, "nefc": nefc,
                            "M_rownnz": m.M_rownnz.tolist(), "M_rowadr": m.M_rowadr.tolist(),
                            "M_colind": m.M_colind.tolist(),
                            "method": "python_rk4" if python else "mjd_transitionFD",
                            "transition": {"forward": transition(m, d, st, False, python),
                                           "centered": transition(m, d, st, True, python)}}
                    if not python:
                        case["inverse"] = {"qacc": qacc.tolist(),
                                           "flg0": inverse(m, d, st, qacc, 0),
                                           "flg1": inverse(m, d, st, qacc, 1)}
                    cases.append(case)
                    print(f"{name:16s} {str(var):12s} state {k}: nv {m.nv} na {m.na} nu {m.nu} "
                          f"ns {m.nsensordata} nefc {nefc}")
    out = os.path.join(ROOT, "tests/reference/fd_cases.json")
    with open(out, "w") as f:
        json.dump({"mujoco_version": mujoco.__version__, "eps": EPS, "cases": cases}, f)
    print(f"wrote {out} ({os.path.getsize(out) / 1e6:.2f} MB, {len(cases)} cases)")


if __name__ == "__main__":
    main()
