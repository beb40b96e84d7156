#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the sparse constraint Jacobian (`jacobian="sparse"`).

Writes tests/reference/sparse_cases.json:
- `is_sparse`: mj_isSparse of a chain of nv = 59, 60, 61 slide joints under jacobian="auto".
- `cases`: one mj_forward per (model, state, cone, solver) in sparse mode: the inputs (qpos, qvel,
  act, ctrl, qfrc_applied, qacc_warmstart), the contacts (geoms and point, for MuJoCo's order),
  efc_type, efc_id, efc_J_rownnz / rowadr / rowsuper / colind, the compressed efc_J values,
  efc_pos, qacc, efc_force, qfrc_constraint, nisland, solver_niter.
  Models: models/humanoid.xml with jacobian forced to "sparse" (nv 27), models/humanoids.xml
  (nv 84, "auto" = sparse), models/sparse_patterns.xml (every row kind, forced sparse).
  States: the keyframe and steps 40, 80, 120, 160 of the Euler rollout below.
- `rollouts`: 200-step Euler rollouts (sparse mode, islands on) of the humanoid models with
  generate_contact.control_sequence (every 10th step), with the perturbation gain (1e-9 on
  qvel) that marks a rollout chaotic.

Rerun:  pip install mujoco==4.0.0 numpy ; python3 tools/reference/gen_sparse_cases.py
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
SPARSE = mujoco.mjtJacobian.mjJAC_SPARSE
NSTEP = 200
STRIDE = 10
STATE_STEPS = (40, 80, 120, 160)
CONES = {"pyramidal": mujoco.mjtCone.mjCONE_PYRAMIDAL, "elliptic": mujoco.mjtCone.mjCONE_ELLIPTIC}
SOLVERS = {"Newton": mujoco.mjtSolver.mjSOL_NEWTON, "CG": mujoco.mjtSolver.mjSOL_CG,
           "PGS": mujoco.mjtSolver.mjSOL_PGS}
# model -> (force sparse, variants (cone, solver) recorded at every state)
MODELS = {
    "humanoid": (True, [("pyramidal", "Newton"), ("elliptic", "Newton"), ("pyramidal", "CG"),
                        ("pyramidal", "PGS")]),
    "humanoids": (False, [("pyramidal", "Newton"), ("elliptic", "Newton"), ("pyramidal", "CG"),
                          ("pyramidal", "PGS")]),
    "sparse_patterns": (True, [("pyramidal", "Newton")]),
}
ROLLOUT_MODELS = ["humanoid", "humanoids"]


def load(name):
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, "models", name + ".xml"))
    if MODELS[name][0]:
        m.opt.jacobian = SPARSE
    assert mujoco.mj_isSparse(m)
    return m


def ilist(x):
    return [int(v) for v in np.asarray(x).ravel()]


def inputs(d, label):
    return {"label": label, "qpos": G.tolist(d.qpos), "qvel": G.tolist(d.qvel),
            "act": G.tolist(d.act), "ctrl": G.tolist(d.ctrl),
            "qfrc_applied": G.tolist(d.qfrc_applied),
            "qacc_warmstart": G.tolist(d.qacc_warmstart)}


def states(m):
    ctrl = GC.control_sequence(m, NSTEP)
    d = mujoco.MjData(m)
    G.reset_initial(m, d)
    out = [inputs(d, "initial")]
    for k in range(max(STATE_STEPS) + 1):
        d.ctrl[:] = ctrl[k]
        if k in STATE_STEPS:
            out.append(inputs(d, "Euler step %d" % k))
        mujoco.mj_step(m, d)
    return out


def record(m, d_in, cone, solver):
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, d_in)
    saved = (m.opt.cone, m.opt.solver)
    m.opt.cone, m.opt.solver = CONES[cone], SOLVERS[solver]
    try:
        mujoco.mj_forward(m, d)
    finally:
        m.opt.cone, m.opt.solver = saved
    n = d.nefc
    nnz = int(d.efc_J_rowadr[n - 1] + d.efc_J_rownnz[n - 1]) if n else 0
    return {
        "contacts": [[int(c.geom1), int(c.geom2)] + G.tolist(c.pos) for c in d.contact[:d.ncon]],
        "nefc": int(n), "ncon": int(d.ncon),
        "efc_type": ilist(d.efc_type[:n]), "efc_id": ilist(d.efc_id[:n]),
        "efc_J_rownnz": ilist(d.efc_J_rownnz[:n]), "efc_J_rowadr": ilist(d.efc_J_rowadr[:n]),
        "efc_J_rowsuper": ilist(d.efc_J_rowsuper[:n]), "efc_J_colind": ilist(d.efc_J_colind[:nnz]),
        "efc_J": G.tolist(d.efc_J[:nnz]), "efc_pos": G.tolist(d.efc_pos[:n]),
        "qacc": G.tolist(d.qacc), "efc_force": G.tolist(d.efc_force[:n]),
        "qfrc_constraint": G.tolist(d.qfrc_constraint),
        "nisland": int(d.nisland),
        "solver_niter": ilist(d.solver_niter[:min(max(int(d.nisland), 1), mujoco.mjNISLAND)]),
    }


def rollout(m, ctrl, perturb=0.0):
    d = mujoco.MjData(m)
    G.reset_initial(m, d)
    d.qvel[:] += perturb
    Q, V = [d.qpos.copy()], [d.qvel.copy()]
    for k in range(len(ctrl)):
        d.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, d)
        Q.append(d.qpos.copy())
        V.append(d.qvel.copy())
    return np.array(Q), np.array(V)


def is_sparse_at(nv):
    bodies = "".join('<body pos="%d 0 1"><joint type="slide"/><geom size=".1"/></body>' % i
                     for i in range(nv))
    m = mujoco.MjModel.from_xml_string("<mujoco><worldbody>%s</worldbody></mujoco>" % bodies)
    return bool(mujoco.mj_isSparse(m))


def main():
    cases = []
    for name, (_, variants) in MODELS.items():
        m = load(name)
        for st in states(m):
            d = mujoco.MjData(m)
            G.reset_initial(m, d)
            for key in ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "qacc_warmstart"):
                getattr(d, key)[:] = st[key]
            for cone, solver in variants:
                c = {"model": name, "cone": cone, "solver": solver, **st}
                c.update(record(m, d, cone, solver))
                cases.append(c)
    rollouts = []
    for name in ROLLOUT_MODELS:
        m = load(name)
        ctrl = GC.control_sequence(m, NSTEP)
        Q, V = rollout(m, ctrl)
        eps = 1e-9
        Q2, V2 = rollout(m, ctrl, eps)
        gain = float(max(np.abs(Q2 - Q).max(), np.abs(V2 - V).max()) / eps)
        keep = list(range(0, NSTEP + 1, STRIDE))
        rollouts.append({
            "model": name, "nstep": NSTEP, "steps": keep, "ctrl": G.tolist(ctrl),
            "qpos": G.tolist(Q[keep]), "qvel": G.tolist(V[keep]),
            "perturbation_gain": gain, "chaotic": gain > GC.CHAOS_GAIN,
        })
        print("%-12s gain %.3g" % (name, gain))
    doc = {"generator": "tools/reference/gen_sparse_cases.py",
           "mujoco_version": mujoco.__version__,
           "is_sparse": {str(nv): is_sparse_at(nv) for nv in (59, 60, 61)},
           "cases": cases, "rollouts": rollouts}
    path = os.path.join(ROOT, "tests", "reference", "sparse_cases.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
    print("wrote", path, len(cases), "cases", os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
