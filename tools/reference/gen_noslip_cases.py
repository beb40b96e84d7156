#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the noslip post-pass (noslip_iterations > 0).

Writes tests/reference/noslip_cases.json from models/noslip.xml (noslip_iterations 10,
noslip_tolerance 1e-8) and models/islands.xml (noslip_iterations set to 10 here):
- `cases`: one mj_forward per (model, state, cone, solver, islands on/off): inputs, qacc,
  efc_force, nisland, solver_niter per island (main solver + noslip sweeps) and the
  per-iteration improvement of every island (the noslip sweeps follow the main solver's);
- `rollouts`: 200-step Euler rollouts of models/noslip.xml per cone (Newton, islands on), every
  step, with the perturbation gain (1e-9 on qvel).

Rerun:  python3 tools/reference/gen_noslip_cases.py
"""
import json
import os
import sys

import numpy as np
import mujoco

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as G  # noqa: E402
import generate_contact as GC  # noqa: E402

ROOT = G.ROOT
ISLAND_BIT = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
CONES = {"pyramidal": mujoco.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mujoco.mjtCone.mjCONE_ELLIPTIC}
SOLVERS = {"Newton": mujoco.mjtSolver.mjSOL_NEWTON, "CG": mujoco.mjtSolver.mjSOL_CG,
           "PGS": mujoco.mjtSolver.mjSOL_PGS}
NSTEP = 200


def load(name):
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, "models", name + ".xml"))
    if m.opt.noslip_iterations == 0:
        m.opt.noslip_iterations = 10
    return m


def record(m, d_in, cone, solver, islands):
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, d_in)
    saved = (m.opt.cone, m.opt.solver, m.opt.disableflags)
    m.opt.cone, m.opt.solver = cone, solver
    if not islands:
        m.opt.disableflags |= ISLAND_BIT
    try:
        mujoco.mj_forward(m, d)
    finally:
        m.opt.cone, m.opt.solver, m.opt.disableflags = saved
    n, ni = d.nefc, d.nisland
    stats = []
    for k in range(max(ni, 1)):
        it = int(d.solver_niter[k])
        base = k * mujoco.mjNSOLVER
        stats.append([float(d.solver[base + i].improvement) for i in range(it)])
    return {
        "contacts": [[int(c.geom1), int(c.geom2)] + G.tolist(c.pos) for c in d.contact[:d.ncon]] if d.ncon else [],
        "nefc": int(n), "efc_type": [int(x) for x in d.efc_type[:n]],
        "efc_id": [int(x) for x in d.efc_id[:n]], "nisland": int(ni),
        "qacc": G.tolist(d.qacc), "efc_force": G.tolist(np.asarray(d.efc_force)[:n]),
        "qfrc_constraint": G.tolist(d.qfrc_constraint),
        "solver_niter": [int(x) for x in d.solver_niter[:max(ni, 1)]],
        "improvement": stats,
    }


def inputs(d, label):
    return {"label": label, "qpos": G.tolist(d.qpos), "qvel": G.tolist(d.qvel),
            "act": G.tolist(d.act), "ctrl": G.tolist(d.ctrl),
            "qfrc_applied": G.tolist(d.qfrc_applied),
            "qacc_warmstart": G.tolist(d.qacc_warmstart)}


def states(m, at):
    d = mujoco.MjData(m)
    G.reset_initial(m, d)
    out = [inputs(d, "initial")]
    for k in range(max(at) + 1):
        if k in at:
            out.append(inputs(d, "Euler step %d" % k))
        mujoco.mj_step(m, d)
    return out


def rollout(m, perturb=0.0):
    d = mujoco.MjData(m)
    G.reset_initial(m, d)
    d.qvel[:] += perturb
    Q, V = [d.qpos.copy()], [d.qvel.copy()]
    for _ in range(NSTEP):
        mujoco.mj_step(m, d)
        Q.append(d.qpos.copy())
        V.append(d.qvel.copy())
    return np.array(Q), np.array(V)


def main():
    cases = []
    for name, at in (("noslip", (20, 150)), ("islands", (25, 150))):
        m = load(name)
        for st in states(m, at):
            d = mujoco.MjData(m)
            G.reset_initial(m, d)
            for k in ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "qacc_warmstart"):
                getattr(d, k)[:] = st[k]
            for cname, cone in CONES.items():
                for sname, solver in SOLVERS.items():
                    for islands in (True, False):
                        c = {"model": name, "cone": cname, "solver": sname,
                             "islands": islands, "noslip_iterations": int(m.opt.noslip_iterations),
                             "noslip_tolerance": float(m.opt.noslip_tolerance), **st}
                        c.update(record(m, d, cone, solver, islands))
                        cases.append(c)
    rollouts = []
    for cname, cone in CONES.items():
        m = load("noslip")
        m.opt.cone = cone
        Q, V = rollout(m)
        Q2, V2 = rollout(m, 1e-9)
        gain = float(max(np.abs(Q2 - Q).max(), np.abs(V2 - V).max()) / 1e-9)
        rollouts.append({"model": "noslip", "cone": cname, "nstep": NSTEP,
                         "qpos": G.tolist(Q), "qvel": G.tolist(V),
                         "perturbation_gain": gain, "chaotic": gain > GC.CHAOS_GAIN})
        print("noslip %s rollout gain %.3g" % (cname, gain))
    doc = {"generator": "tools/reference/gen_noslip_cases.py",
           "mujoco_version": mujoco.__version__, "cases": cases, "rollouts": rollouts}
    path = os.path.join(ROOT, "tests", "reference", "noslip_cases.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
    print("wrote", path, len(cases), "cases", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
