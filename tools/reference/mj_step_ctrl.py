#!/usr/bin/env python3
"""mj_step N times from keyframe 0 (or qpos0) under the controls of a CSV file, for callgrind
runs whose rollout is the one `moreau simulate MODEL --steps N --ctrl CSV` computes.

    python3 tools/reference/mj_step_ctrl.py MODEL N --make-ctrl CSV   # write the controls:
        generate_contact.control_sequence (keyframe ctrl + sinusoids of 20% of the half range)
    valgrind --tool=callgrind --dump-instr=no --toggle-collect=mj_step \\
        python3 tools/reference/mj_step_ctrl.py MODEL N CSV          # step with them

Without a keyframe both start at qpos0; for a model with one, give `moreau simulate` `--keyframe 0`.
Prints the final time, nefc and the first three qpos (to check that both rollouts agree).
"""
import os
import sys

import numpy as np
import mujoco


def main(argv):
    if len(argv) != 4 and not (len(argv) == 5 and argv[3] == "--make-ctrl"):
        sys.exit(__doc__)
    m = mujoco.MjModel.from_xml_path(argv[1])
    n = int(argv[2])
    if argv[3] == "--make-ctrl":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import generate_contact as GC
        with open(argv[4], "w") as f:
            for row in GC.control_sequence(m, n):
                f.write(",".join(repr(float(x)) for x in row) + "\n")
        return
    ctrl = np.loadtxt(argv[3], delimiter=",", ndmin=2).reshape(-1, m.nu)
    if len(ctrl) < n:
        sys.exit("%s: %d control rows, %d steps asked" % (argv[3], len(ctrl), n))
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    for k in range(n):
        d.ctrl[:] = ctrl[k]
        mujoco.mj_step(m, d)
    print(d.time, d.nefc, d.qpos[:3].tolist())


if __name__ == "__main__":
    main(sys.argv)
