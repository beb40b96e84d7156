#!/usr/bin/env python3
"""MuJoCo 4.0.0's mjd_transitionFD (forward differences, eps 1e-6, C and D too when the model has
sensors) at a `moreau` state file (tools/bench/contact_state.py), the counterpart of

    moreau derivatives MODEL --state STATE.json --kind transition --method fd

for callgrind (`--toggle-collect=mjd_transitionFD`; run the interpreter itself, not a pyenv shim):

    python3 tools/bench/mjd_fd_state.py MODEL STATE.json
"""
import json
import sys

import mujoco
import numpy as np


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    m = mujoco.MjModel.from_xml_path(sys.argv[1])
    d = mujoco.MjData(m)
    for k, v in json.load(open(sys.argv[2])).items():
        getattr(d, k)[:] = v
    mujoco.mj_forward(m, d)
    nx, ns = 2 * m.nv + m.na, m.nsensordata
    a, b = np.zeros((nx, nx)), np.zeros((nx, m.nu))
    c = np.zeros((ns, nx)) if ns else None
    dd = np.zeros((ns, m.nu)) if ns else None
    mujoco.mjd_transitionFD(m, d, 1e-6, 0, a, b, c, dd)
    print("nefc", d.nefc)


if __name__ == "__main__":
    main()
