#!/usr/bin/env python3
"""The sparsity patterns of the tendon Jacobian and the actuator moments in MuJoCo 4.0.0.

Writes tests/reference/sparse_patterns.json: for every model of models/ with tendons or
actuators, MuJoCo's `nJten`, `ten_J_rownnz`, `ten_J_colind` (on the model) and `nJmom`,
`moment_rownnz`, `moment_colind` (on the data, after `mj_forward` at `qpos0`).
Run from the repository root: python3 tools/reference/gen_sparse_patterns.py
"""
import glob
import json
import os

import mujoco

out = {}
for path in sorted(glob.glob("models/*.xml")):
    m = mujoco.MjModel.from_xml_path(path)
    if m.ntendon == 0 and m.nu == 0:
        continue
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    out[os.path.basename(path)] = {
        "nv": int(m.nv),
        "nJten": int(m.nJten),
        "ten_J_rownnz": m.ten_J_rownnz.tolist(),
        "ten_J_rowadr": m.ten_J_rowadr.tolist(),
        "ten_J_colind": m.ten_J_colind.tolist(),
        "nJmom": int(m.nJmom),
        "moment_rownnz": d.moment_rownnz.tolist(),
        "moment_rowadr": d.moment_rowadr.tolist(),
        "moment_colind": d.moment_colind.tolist(),
        "actuator_trntype": m.actuator_trntype.tolist(),
    }
with open("tests/reference/sparse_patterns.json", "w") as f:
    json.dump({"mujoco": mujoco.__version__, "models": out}, f, indent=1)
print(len(out), "models")
