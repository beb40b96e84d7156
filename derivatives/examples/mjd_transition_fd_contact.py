#!/usr/bin/env python3
"""MuJoCo 4.0.0's mjd_transitionFD (forward differences, eps 1e-6, A and B only) at the contact
state `transition_profile` and `moreau bench` use (keyframe 0 with zero controls, or the reset
state; stepped until constraint rows appear, as tools/bench/contact_state.py), N times, for
callgrind against `derivatives/examples/transition_profile MODEL N`:

    valgrind --tool=callgrind --dump-instr=no --toggle-collect=mjd_transitionFD \\
        $(python3 -c "import sys; print(sys.executable)") \\
        derivatives/examples/mjd_transition_fd_contact.py models/humanoid.xml 3

(instructions per call = collected / N; valgrind must run the interpreter itself, not a pyenv
shim). Prints nefc and ncon of the state. An optional third argument (euler, implicit,
implicitfast, rk4) switches the model's integrator before settling, as `transition_profile
--integrator` does.
"""
import sys

import mujoco
import numpy as np


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    m = mujoco.MjModel.from_xml_path(sys.argv[1])
    if len(sys.argv) == 4:
        names = {"euler": "mjINT_EULER", "implicit": "mjINT_IMPLICIT",
                 "implicitfast": "mjINT_IMPLICITFAST", "rk4": "mjINT_RK4"}
        m.opt.integrator = getattr(mujoco.mjtIntegrator, names[sys.argv[3]])
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    d.ctrl[:] = 0
    for _ in range(3000):
        mujoco.mj_step(m, d)
        if d.nefc > 0:
            break
    mujoco.mj_forward(m, d)
    nx = 2 * m.nv + m.na
    a, b = np.zeros((nx, nx)), np.zeros((nx, m.nu))
    for _ in range(int(sys.argv[2])):
        mujoco.mjd_transitionFD(m, d, 1e-6, 0, a, b, None, None)
    print("nefc", d.nefc, "ncon", d.ncon)


if __name__ == "__main__":
    main()
