#!/usr/bin/env python3
"""MuJoCo 4.0.0 sensor Jacobians C, D (with A, B) of mjd_transitionFD on models/tendon_velocity.xml.

Writes tests/reference/sensor_jac_cases.json, read by derivatives/tests/derivatives/qderiv_sensor.rs, which
compares moreau's analytic transition (transition.rs + sensor.rs + smooth_vel_pos.rs) against it.
The solver runs to tolerance 1e-12 (100 iterations) so the finite differences are not limited by
the solver's stopping point; mjd_transitionFD is centered with eps 1e-6. States:
- "contact": keyframe 0 (its controls), 300 steps: the arm's tip and the box rest on the floor;
- "free": the contact flag disabled, keyframe 0 with a random tangent position / velocity
  perturbation (joint-limit rows only).
Each case records the state, nefc, the contact count, sensordata after mj_forward (so the Rust
side checks it computes the same sensors) and A, B, C, D (rows are outputs).

Run from the repository root: python3 tools/reference/gen_sensor_jac_cases.py
"""
import json
import os

import mujoco
import numpy as np

EPS = 1e-6
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = "models/tendon_velocity.xml"


def rows(a):
    return [[float(x) for x in r] for r in np.asarray(a, dtype=float)]


def case(m, d, label):
    nx = 2 * m.nv + m.na
    st = {"qpos": d.qpos.tolist(), "qvel": d.qvel.tolist(), "act": d.act.tolist(),
          "ctrl": d.ctrl.tolist(), "qacc_warmstart": d.qacc_warmstart.tolist()}
    mujoco.mj_forward(m, d)
    out = {"label": label, "state": st, "nefc": int(d.nefc), "ncon": int(d.ncon),
           "sensordata": d.sensordata.tolist()}
    A, B = np.zeros((nx, nx)), np.zeros((nx, m.nu))
    C, D = np.zeros((m.nsensordata, nx)), np.zeros((m.nsensordata, m.nu))
    mujoco.mjd_transitionFD(m, d, EPS, 1, A, B, C, D)
    out.update({"A": rows(A), "B": rows(B), "C": rows(C), "D": rows(D)})
    return out


def main():
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, MODEL))
    m.opt.tolerance = 1e-12
    m.opt.iterations = 100
    m.opt.ls_iterations = 100
    d = mujoco.MjData(m)
    cases = []
    mujoco.mj_resetDataKeyframe(m, d, 0)
    for _ in range(300):
        mujoco.mj_step(m, d)
    cases.append(case(m, d, "contact"))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    rng = np.random.default_rng(20261121)
    mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_integratePos(m, d.qpos, rng.normal(0, 0.1, m.nv), 1.0)
    d.qvel[:] = rng.normal(0, 0.5, m.nv)
    c = case(m, d, "free")
    c["disable_contact"] = True
    cases.append(c)
    out = {"mujoco": mujoco.__version__, "model": MODEL, "eps": EPS, "tolerance": 1e-12,
           "iterations": 100, "cases": cases}
    path = os.path.join(ROOT, "tests/reference/sensor_jac_cases.json")
    with open(path, "w") as f:
        json.dump(out, f)
    for c in cases:
        print(f"{c['label']}: nefc {c['nefc']} ncon {c['ncon']} |C| {np.abs(c['C']).max():.3g} "
              f"|D| {np.abs(c['D']).max():.3g}")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
