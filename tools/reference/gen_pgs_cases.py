#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the PGS solver iterate by iterate (and the noslip pass after it).

Writes tests/reference/pgs_cases.json. Per (model, state, cone, islands on/off, iterations k):
one mj_forward with solver PGS, `iterations` = k and `tolerance` -1 (so exactly k sweeps in
every island; k in 1, 2, 3, 5, 10, 30) plus one with tolerance 1e-8 and 100 iterations,
recording qacc, efc_force, efc_state, nisland, solver_niter per island and every island's statistics
(improvement, gradient, lineslope, nactive, nchange, neval, nupdate per iteration).

Models: constraints.xml (equality, dof/tendon friction loss, limits; keyframes 0 and 1),
box_stack.xml and islands.xml (pyramidal and elliptic contacts, several islands; states after
some Euler steps), noslip.xml (noslip_iterations 10 after PGS: its sweeps and statistics follow
PGS's in each island). Warm start on (qacc_warmstart from the step before the state).

Rerun:  python3 tools/reference/gen_pgs_cases.py
"""
import json
import os
import sys

import numpy as np
import mujoco

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as G  # noqa: E402

ROOT = G.ROOT
ISLAND_BIT = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
CONES = {"pyramidal": mujoco.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mujoco.mjtCone.mjCONE_ELLIPTIC}
ITERS = (1, 2, 3, 5, 10, 30)
# tolerance of the fixed-k runs: negative, so that no sweep stops the loop (exactly k sweeps;
# with any positive tolerance, rounding-noise improvements of converged islands decide the stop)
TOL_K = -1.0
# (model, keyframe or None, Euler steps from there before recording)
STATES = (("constraints", 0, 0), ("constraints", 1, 5), ("box_stack", None, 40),
          ("islands", None, 25), ("noslip", None, 20))


def load(name):
    return mujoco.MjModel.from_xml_path(os.path.join(ROOT, "models", name + ".xml"))


def record(m, d_in, cone, islands, iters, tol):
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, d_in)
    saved = (m.opt.cone, m.opt.solver, m.opt.disableflags, m.opt.iterations, m.opt.tolerance)
    m.opt.cone, m.opt.solver = cone, mujoco.mjtSolver.mjSOL_PGS
    m.opt.iterations, m.opt.tolerance = iters, tol
    if not islands:
        m.opt.disableflags |= ISLAND_BIT
    try:
        mujoco.mj_forward(m, d)
    finally:
        (m.opt.cone, m.opt.solver, m.opt.disableflags, m.opt.iterations,
         m.opt.tolerance) = saved
    n, ni = d.nefc, d.nisland
    stats = []
    for k in range(max(ni, 1)):
        it = min(int(d.solver_niter[k]), mujoco.mjNSOLVER)
        rows = []
        for i in range(it):
            s = d.solver[k * mujoco.mjNSOLVER + i]
            rows.append([float(s.improvement), float(s.gradient), float(s.lineslope),
                         int(s.nactive), int(s.nchange), int(s.neval), int(s.nupdate)])
        stats.append(rows)
    return {
        "contacts": [[int(c.geom1), int(c.geom2)] + G.tolist(c.pos) for c in d.contact[:d.ncon]],
        "nefc": int(n), "efc_type": [int(x) for x in d.efc_type[:n]], "nisland": int(ni),
        "qacc": G.tolist(d.qacc), "efc_force": G.tolist(np.asarray(d.efc_force)[:n]),
        # after PGS / noslip MuJoCo leaves the dual state of the final forces here (islands on
        # or off)
        "efc_state": [int(x) for x in d.efc_state[:n]],
        "solver_niter": [int(x) for x in d.solver_niter[:max(ni, 1)]],
        "stats": stats,
    }


def main():
    cases = []
    for name, key, nstep in STATES:
        m = load(name)
        d = mujoco.MjData(m)
        if key is None:
            G.reset_initial(m, d)
        else:
            mujoco.mj_resetDataKeyframe(m, d, key)
        for _ in range(nstep):
            mujoco.mj_step(m, d)
        label = ("key %d" % key if key is not None else "initial") + ", %d steps" % nstep
        inputs = {"label": label, "qpos": G.tolist(d.qpos), "qvel": G.tolist(d.qvel),
                  "act": G.tolist(d.act), "ctrl": G.tolist(d.ctrl),
                  "qfrc_applied": G.tolist(d.qfrc_applied),
                  "qacc_warmstart": G.tolist(d.qacc_warmstart)}
        for cname, cone in CONES.items():
            if name == "constraints" and cname == "elliptic":
                continue  # no contacts: the cone does not matter
            for islands in (True, False):
                runs = [(k, TOL_K) for k in ITERS] + [(100, 1e-8)]
                for iters, tol in runs:
                    c = {"model": name, "cone": cname, "solver": "PGS", "islands": islands,
                         "iterations": iters, "tolerance": tol,
                         "noslip_iterations": int(m.opt.noslip_iterations),
                         "noslip_tolerance": float(m.opt.noslip_tolerance), **inputs}
                    c.update(record(m, d, cone, islands, iters, tol))
                    cases.append(c)
        print(name, label, "nefc", cases[-1]["nefc"], "nisland", cases[-1]["nisland"],
              "niter (converged)", cases[-1]["solver_niter"])
    doc = {"generator": "tools/reference/gen_pgs_cases.py",
           "mujoco_version": mujoco.__version__, "cases": cases}
    path = os.path.join(ROOT, "tests", "reference", "pgs_cases.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
    print("wrote", path, len(cases), "cases", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
