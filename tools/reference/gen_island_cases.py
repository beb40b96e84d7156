#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for constraint islands (island discovery on, the default).

Writes tests/reference/island_cases.json:
- `cases`: one mj_forward per (model, state, cone, solver) with islands ON: the inputs
  (qpos, qvel, act, ctrl, qfrc_applied, qacc_warmstart), the island structure (nisland,
  dof_island, island_dofadr, island_nv, island_idofadr, map_idof2dof, efc_island, island_nefc,
  island_iefcadr, island_ne, island_nf, map_iefc2efc), qacc, efc_force, the final row states
  (`efc_state_final` = iefc_state scattered through map_iefc2efc; MuJoCo's efc_state is the
  warm-start evaluation with islands on), solver_niter and the per-iteration improvement /
  gradient of every island.
- `rollouts`: 500-step Euler rollouts with islands on of the contact models (every 10th step),
  with the perturbation gain (1e-9 on qvel) that marks a rollout chaotic.

Rerun:  python3 tools/reference/gen_island_cases.py
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
STATE_MODELS = ["islands", "box_stack", "quadruped", "sphere_drop", "box_drop", "constraints"]
ROLLOUT_MODELS = ["islands", "sphere_drop", "sphere_drop_elliptic", "box_drop",
                  "box_drop_elliptic", "box_stack", "quadruped", "capsule_chain", "hopper_leg"]
NSTEP = 500
STRIDE = 10
CONES = {"pyramidal": mujoco.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mujoco.mjtCone.mjCONE_ELLIPTIC}
SOLVERS = {"Newton": mujoco.mjtSolver.mjSOL_NEWTON, "CG": mujoco.mjtSolver.mjSOL_CG,
           "PGS": mujoco.mjtSolver.mjSOL_PGS}


def load(name):
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, "models", name + ".xml"))
    assert not m.opt.disableflags & ISLAND_BIT
    return m


def ilist(x):
    return [int(v) for v in np.asarray(x).ravel()]


def record(m, d_in, cone, solver):
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, d_in)
    saved = (m.opt.cone, m.opt.solver)
    m.opt.cone, m.opt.solver = cone, solver
    try:
        mujoco.mj_forward(m, d)
    finally:
        m.opt.cone, m.opt.solver = saved
    n, ni = d.nefc, d.nisland
    state = np.zeros(n, dtype=int)
    state[np.asarray(d.map_iefc2efc)[:n]] = np.asarray(d.iefc_state)[:n]
    stats = []
    for k in range(ni):
        it = int(d.solver_niter[k]) if k < mujoco.mjNISLAND else 0
        base = k * mujoco.mjNSOLVER
        stats.append({
            "improvement": [float(d.solver[base + i].improvement) for i in range(it)],
            "gradient": [float(d.solver[base + i].gradient) for i in range(it)],
        })
    return {
        "contacts": [[int(c.geom1), int(c.geom2)] + G.tolist(c.pos) for c in d.contact[:d.ncon]] if d.ncon else [],
        "nefc": int(n), "ncon": int(d.ncon),
        "efc_type": ilist(d.efc_type[:n]), "efc_id": ilist(d.efc_id[:n]),
        "nisland": int(ni), "nidof": int(d.nidof),
        "dof_island": ilist(d.dof_island), "island_dofadr": ilist(d.island_dofadr[:ni]),
        "island_nv": ilist(d.island_nv[:ni]), "island_idofadr": ilist(d.island_idofadr[:ni]),
        "map_idof2dof": ilist(d.map_idof2dof[:m.nv] if ni else []),
        "efc_island": ilist(d.efc_island[:n] if ni else []),
        "island_nefc": ilist(d.island_nefc[:ni]), "island_iefcadr": ilist(d.island_iefcadr[:ni]),
        "island_ne": ilist(d.island_ne[:ni]), "island_nf": ilist(d.island_nf[:ni]),
        "map_iefc2efc": ilist(d.map_iefc2efc[:n] if ni else []),
        "qacc": G.tolist(d.qacc), "qacc_smooth": G.tolist(d.qacc_smooth),
        "efc_force": G.tolist(np.asarray(d.efc_force)[:n]),
        "efc_state_final": ilist(state),
        "solver_niter": ilist(d.solver_niter[:min(max(ni, 1), mujoco.mjNISLAND)]),
        "solver_stats": stats,
    }


def inputs(d, label):
    return {"label": label, "qpos": G.tolist(d.qpos), "qvel": G.tolist(d.qvel),
            "act": G.tolist(d.act), "ctrl": G.tolist(d.ctrl),
            "qfrc_applied": G.tolist(d.qfrc_applied),
            "qacc_warmstart": G.tolist(d.qacc_warmstart)}


def states(m):
    """the initial state (keyframe 0 or qpos0) and steps 25 and 150 of the islands-on rollout."""
    ctrl = GC.control_sequence(m, 151)
    d = mujoco.MjData(m)
    G.reset_initial(m, d)
    out = [inputs(d, "initial")]
    for k in range(151):
        if k in (25, 150):
            d.ctrl[:] = ctrl[k]
            out.append(inputs(d, "Euler step %d" % k))
        d.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, d)
    return out


def rollout(m, ctrl, perturb=0.0):
    d = mujoco.MjData(m)
    G.reset_initial(m, d)
    d.qvel[:] += perturb
    Q, V, NI = [d.qpos.copy()], [d.qvel.copy()], []
    for k in range(len(ctrl)):
        d.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, d)
        Q.append(d.qpos.copy())
        V.append(d.qvel.copy())
        NI.append(int(d.nisland))
    return np.array(Q), np.array(V), NI


def main():
    cases = []
    for name in STATE_MODELS:
        m = load(name)
        for st in states(m):
            d = mujoco.MjData(m)
            G.reset_initial(m, d)
            d.qpos[:] = st["qpos"]
            d.qvel[:] = st["qvel"]
            d.act[:] = st["act"]
            d.ctrl[:] = st["ctrl"]
            d.qfrc_applied[:] = st["qfrc_applied"]
            d.qacc_warmstart[:] = st["qacc_warmstart"]
            for cname, cone in CONES.items():
                for sname, solver in SOLVERS.items():
                    c = {"model": name, "cone": cname, "solver": sname, **st}
                    c.update(record(m, d, cone, solver))
                    cases.append(c)
    rollouts = []
    for name in ROLLOUT_MODELS:
        m = load(name)
        ctrl = GC.control_sequence(m, NSTEP)
        Q, V, NI = rollout(m, ctrl)
        eps = 1e-9
        Q2, V2, _ = rollout(m, ctrl, eps)
        gain = float(max(np.abs(Q2 - Q).max(), np.abs(V2 - V).max()) / eps)
        keep = list(range(0, NSTEP + 1, STRIDE))
        rollouts.append({
            "model": name, "nstep": NSTEP, "steps": keep, "ctrl": G.tolist(ctrl),
            "qpos": G.tolist(Q[keep]), "qvel": G.tolist(V[keep]),
            "nisland": NI, "perturbation_gain": gain, "chaotic": gain > GC.CHAOS_GAIN,
        })
        print("%-22s gain %.3g  nisland max %d" % (name, gain, max(NI)))
    doc = {"generator": "tools/reference/gen_island_cases.py",
           "mujoco_version": mujoco.__version__, "cases": cases, "rollouts": rollouts}
    path = os.path.join(ROOT, "tests", "reference", "island_cases.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
    print("wrote", path, len(cases), "cases", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
