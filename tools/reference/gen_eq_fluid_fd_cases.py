#!/usr/bin/env python3
"""MuJoCo 4.0.0 finite-difference Jacobians at one contact state of each model with connect/weld
equalities or fluid forces, for derivatives/tests/analytic_eq_fluid.rs (moreau's analytic A, B and
inverse Jacobians against them, to FD accuracy).

Writes tests/reference/eq_fluid_fd_cases.json. Per model and integrator (Euler, implicitfast): the
state after 300 Euler steps from qpos0 with constant controls, plus a velocity offset
0.2 sin(i + 1) on every dof; recorded qpos, qvel, ctrl, qacc_warmstart, then
mj_forward (qacc, nefc, ncon recorded) and
- mjd_transitionFD(eps 1e-6, centered): A, B (rows outputs);
- mjd_inverseFD(eps 1e-6, flg_actuation 0) at the forward qacc: DfDq, DfDv, DfDa (MuJoCo's
  transposed layout, D[i][j] = d qfrc_inverse_j / d in_i).

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


def main():
    cases = [case(n, i) for n in MODELS for i in INTEG]
    out = {"mujoco": mujoco.__version__, "eps": EPS, "cases": cases}
    p = os.path.join(ROOT, "tests/reference/eq_fluid_fd_cases.json")
    with open(p, "w") as f:
        json.dump(out, f)
    for c in cases:
        print(c["model"], c["integrator"], "nefc", c["nefc"], "ncon", c["ncon"])


if __name__ == "__main__":
    main()
