#!/usr/bin/env python3
"""MuJoCo 4.0.0's own spread at a survey state (docs/zoo.md, "Beyond the conformance set"): how far
MuJoCo's qacc moves when qpos moves by 1e-15, against moreau's distance from MuJoCo there.

Each file is loaded with MuJoCo and, when the moreau module imports, with moreau; both run
mj_forward at keyframe 0 (qpos0 without keyframes), as tools/zoo/survey.py does. Then MuJoCo runs
mj_forward again at `--n` seeded states moved by `--eps` (times max(1, max|qpos|)) along a random
tangent direction (mj_integratePos). Dofs of hinge and slide joints that sit on a limit to 1e-12
are not moved (myosuite's hands rest on many: moving them switches MuJoCo's limit rows, which
both engines place alike at the exact state, and would hide everything else); `--all` moves them
too. Printed per file: moreau's relative qacc error (max
difference over max|MuJoCo's qacc|, the survey's measure), MuJoCo's largest relative qacc move
under the perturbations, how many of them change MuJoCo's contact count or its active constraint
set (efc_state), and the verdict "spread" when MuJoCo's own move is at least moreau's error.

    PYTHONPATH=<dir holding moreau/> python tools/zoo/spread.py FILE.xml ...
    python tools/zoo/spread.py --n 16 FILE.xml         # MuJoCo only without the moreau module
"""
import argparse
import json

import numpy as np
import mujoco


def relerr(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-9)) if b.size else 0.0


def forward(lib, m, d):
    if m.nkey:
        lib.mj_resetDataKeyframe(m, d, 0)
    lib.mj_forward(m, d)


def on_limit(m, q):
    """Dof mask: hinge and slide dofs whose joint sits on a limit to 1e-12."""
    mask = np.zeros(m.nv, bool)
    for j in range(m.njnt):
        if m.jnt_limited[j] and int(m.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE),
                                                       int(mujoco.mjtJoint.mjJNT_SLIDE)):
            x = q[m.jnt_qposadr[j]]
            mask[m.jnt_dofadr[j]] = min(abs(x - m.jnt_range[j, 0]), abs(x - m.jnt_range[j, 1])) < 1e-12
    return mask


def spread(path, n, eps, seed, move_all=False):
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    forward(mujoco, m, d)
    q0, qacc0 = d.qpos.copy(), d.qacc.copy()
    keep = np.zeros(m.nv, bool) if move_all else on_limit(m, q0)
    ncon0, state0 = int(d.ncon), d.efc_state[: d.nefc].copy()
    row = {"file": path, "ncon": ncon0}
    try:
        import moreau
        mm = moreau.MjModel.from_xml_path(path)
        dd = moreau.MjData(mm)
        forward(moreau, mm, dd)
        row["moreau_qacc"] = relerr(dd.qacc, qacc0)
        row["moreau_ncon"] = int(dd.ncon)
    except ImportError:
        pass
    rng = np.random.default_rng(seed)
    moves, ncon_changed, set_changed = [], 0, 0
    for _ in range(n):
        d.qpos[:] = q0
        dq = rng.normal(size=m.nv) * eps * max(1.0, float(np.abs(q0).max()))
        dq[keep] = 0
        mujoco.mj_integratePos(m, d.qpos, dq, 1.0)
        mujoco.mj_forward(m, d)
        moves.append(relerr(d.qacc, qacc0))
        ncon_changed += int(d.ncon) != ncon0
        set_changed += int(d.ncon) != ncon0 or not np.array_equal(d.efc_state[: d.nefc], state0)
    row["mujoco_move"] = max(moves)
    row["mujoco_move_median"] = float(np.median(moves))
    row["perturbations"] = n
    row["dofs_on_limits_kept"] = int(keep.sum())
    row["ncon_changed"] = ncon_changed
    row["active_set_changed"] = set_changed
    if "moreau_qacc" in row:
        row["verdict"] = "spread" if row["mujoco_move"] >= row["moreau_qacc"] else "moreau"
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--n", type=int, default=8, help="perturbed states (8)")
    ap.add_argument("--eps", type=float, default=1e-15, help="size of the qpos move (1e-15)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--all", action="store_true", help="move the dofs on limits too")
    a = ap.parse_args()
    for f in a.files:
        print(json.dumps(spread(f, a.n, a.eps, a.seed, a.all)))


if __name__ == "__main__":
    main()
