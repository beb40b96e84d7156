#!/usr/bin/env python3
"""MuJoCo 4.0.0 finite-difference Jacobians at one contact state of each model with connect/weld
equalities or fluid forces, for derivatives/tests/derivatives/analytic_eq_fluid.rs (moreau's analytic A, B and
inverse Jacobians against them, to FD accuracy).

Writes tests/reference/eq_fluid_fd_cases.json. Per model and integrator (Euler, implicitfast): the
state after 300 Euler steps from qpos0 with constant controls, plus a velocity offset
0.2 sin(i + 1) on every dof; recorded qpos, qvel, ctrl, qacc_warmstart, then
mj_forward (qacc, nefc, ncon recorded) and
- mjd_transitionFD(eps 1e-6, centered): A, B (rows outputs);
- mjd_inverseFD(eps 1e-6, flg_actuation 0) at the forward qacc: DfDq, DfDv, DfDa (MuJoCo's
  transposed layout, D[i][j] = d qfrc_inverse_j / d in_i).
`invdiscrete` cases (derivatives/tests/derivatives/inverse_discrete.rs): the same states of eq_contact, fluid_swimmer
and hopper_leg (controls 0.3 (-1)^u, 300 Euler steps, velocity offset) under implicitfast and
implicit with the invdiscrete enable flag: mj_forward, then at the forward qacc (read as the
discrete acceleration) mj_inverse's qfrc_inverse (and without the flag, qfrc_inverse_continuous) (MuJoCo recomputes qDeriv in mj_discreteAcc) and
mjd_inverseFD(eps 1e-6, flg_actuation 0): DfDq, DfDv, DfDa. RK4 with invdiscrete: mj_inverse
raises (recorded as the error text).

Run from the repository root: python3 tools/reference/gen_eq_fluid_fd_cases.py
"""
import json
import math
import os

import mujoco
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EPS = 1e-6
MODELS = ["eq_contact", "fluid_swimmer"]
INTEG = {"Euler": mujoco.mjtIntegrator.mjINT_EULER,
         "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}


def rows(a):
    return [[float(x) for x in r] for r in np.asarray(a, dtype=float)]


def case(name, integ):
    path = f"models/{name}.xml"
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, path))
    d = mujoco.MjData(m)
    d.ctrl[:] = [0.3 * (-1) ** u for u in range(m.nu)]
    for _ in range(300):
        mujoco.mj_step(m, d)
    d.qvel[:] += [0.2 * math.sin(i + 1) for i in range(m.nv)]
    m.opt.integrator = INTEG[integ]
    st = {k: [float(x) for x in getattr(d, k)] for k in ("qpos", "qvel", "ctrl", "qacc_warmstart")}
    mujoco.mj_forward(m, d)
    nv, nu = m.nv, m.nu
    A, B = np.zeros((2 * nv, 2 * nv)), np.zeros((2 * nv, nu))
    mujoco.mjd_transitionFD(m, d, EPS, 1, A, B, None, None)
    # fresh forward (mjd_transitionFD restores the state; forward again for the inverse)
    for k, v in st.items():
        getattr(d, k)[:] = v
    mujoco.mj_forward(m, d)
    qacc = [float(x) for x in d.qacc]
    dq, dv, da = np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros((nv, nv))
    mujoco.mjd_inverseFD(m, d, EPS, 0, dq, dv, da, None, None, None, None)
    return {"model": path, "integrator": integ, "state": st, "qacc": qacc, "nefc": int(d.nefc),
            "ncon": int(d.ncon), "A": rows(A), "B": rows(B), "DfDq": rows(dq), "DfDv": rows(dv),
            "DfDa": rows(da)}


DISC_MODELS = ["eq_contact", "fluid_swimmer", "hopper_leg"]
DISC_INTEG = {"implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
              "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT}


def settled(name):
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, f"models/{name}.xml"))
    d = mujoco.MjData(m)
    d.ctrl[:] = [0.3 * (-1) ** u for u in range(m.nu)]
    for _ in range(300):
        mujoco.mj_step(m, d)
    d.qvel[:] += [0.2 * math.sin(i + 1) for i in range(m.nv)]
    return m, d


def disc_case(name, integ):
    m, d = settled(name)
    m.opt.integrator = DISC_INTEG[integ]
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_INVDISCRETE
    st = {k: [float(x) for x in getattr(d, k)] for k in ("qpos", "qvel", "ctrl", "qacc_warmstart")}
    mujoco.mj_forward(m, d)
    qacc = [float(x) for x in d.qacc]
    m.opt.enableflags &= ~int(mujoco.mjtEnableBit.mjENBL_INVDISCRETE)
    mujoco.mj_inverse(m, d)
    qfrc_cont = [float(x) for x in d.qfrc_inverse]
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_INVDISCRETE
    mujoco.mj_inverse(m, d)
    qfrc = [float(x) for x in d.qfrc_inverse]
    nv = m.nv
    dq, dv, da = np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros((nv, nv))
    mujoco.mjd_inverseFD(m, d, EPS, 0, dq, dv, da, None, None, None, None)
    return {"model": f"models/{name}.xml", "integrator": integ, "state": st, "qacc": qacc,
            "nefc": int(d.nefc), "qfrc_inverse": qfrc, "qfrc_inverse_continuous": qfrc_cont, "DfDq": rows(dq), "DfDv": rows(dv),
            "DfDa": rows(da)}


def rk4_error():
    m, d = settled("hopper_leg")
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_INVDISCRETE
    mujoco.mj_forward(m, d)
    try:
        mujoco.mj_inverse(m, d)
    except Exception as e:  # MuJoCo's mjERROR surfaces as a Python exception
        return str(e)
    return None


def main():
    cases = [case(n, i) for n in MODELS for i in INTEG]
    disc = [disc_case(n, i) for n in DISC_MODELS for i in DISC_INTEG]
    out = {"mujoco": mujoco.__version__, "eps": EPS, "cases": cases, "invdiscrete_cases": disc,
           "invdiscrete_rk4_error": rk4_error()}
    p = os.path.join(ROOT, "tests/reference/eq_fluid_fd_cases.json")
    with open(p, "w") as f:
        json.dump(out, f)
    for c in cases:
        print(c["model"], c["integrator"], "nefc", c["nefc"], "ncon", c["ncon"])
    for c in disc:
        print("invdiscrete", c["model"], c["integrator"], "nefc", c["nefc"])
    print("RK4:", out["invdiscrete_rk4_error"])


if __name__ == "__main__":
    main()
