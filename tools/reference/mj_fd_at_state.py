#!/usr/bin/env python3
"""mjd_transitionFD (forward differences, eps 1e-6; C and D too when the model has sensors, as
`moreau derivatives --kind transition --method fd` computes them) at a state recorded in a
reference file, for callgrind runs against moreau at the same state:

    python3 tools/reference/mj_fd_at_state.py tests/reference/cheetah.json "rollout Euler step 250" /tmp/s.json
    valgrind --tool=callgrind --dump-instr=no --toggle-collect='*FdWorkspace*transition*' \\
        target/release/moreau derivatives models/cheetah.xml --state /tmp/s.json --kind transition --method fd --out /tmp/fd.json
    valgrind --tool=callgrind --dump-instr=no --toggle-collect=mjd_transitionFD \\
        python3 tools/reference/mj_fd_at_state.py tests/reference/cheetah.json "rollout Euler step 250" /tmp/s.json

Writes the state (qpos, qvel, act, ctrl, qfrc_applied, qacc_warmstart) to the JSON path given,
then calls mjd_transitionFD once; prints nefc and a checksum of A (compare with moreau's A).
"""
import json
import os
import sys

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = ("qpos", "qvel", "act", "ctrl", "qfrc_applied", "qacc_warmstart")


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    ref = json.load(open(argv[1]))
    states = [s for s in ref["states"] if s["label"] == argv[2]]
    if not states:
        sys.exit("%s: no state labelled %r" % (argv[1], argv[2]))
    s = states[0]
    with open(argv[3], "w") as f:
        json.dump({k: s[k] for k in INPUTS}, f)
    m = mujoco.MjModel.from_xml_path(os.path.join(ROOT, ref["model"]))
    d = mujoco.MjData(m)
    for k in INPUTS:
        getattr(d, k)[:] = s[k]
    mujoco.mj_forward(m, d)
    nx = 2 * m.nv + m.na
    A, B = np.zeros((nx, nx)), np.zeros((nx, m.nu))
    C = np.zeros((m.nsensordata, nx)) if m.nsensordata else None
    D = np.zeros((m.nsensordata, m.nu)) if m.nsensordata else None
    mujoco.mjd_transitionFD(m, d, 1e-6, 0, A, B, C, D)
    print(json.dumps({"nefc": int(d.nefc), "sum_abs_A": float(np.abs(A).sum())}))


if __name__ == "__main__":
    main(sys.argv)
