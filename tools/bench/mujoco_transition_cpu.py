#!/usr/bin/env python3
"""Thread-CPU time of MuJoCo's mjd_transitionFD (forward differences, eps 1e-6, no sensor
Jacobians) on models/humanoid.xml at the reset state and at the first settled state with
contact rows (stepping from keyframe 0 until nefc > 0), the same two states as `moreau bench`'s
"transition_analytic_cpu_us" / "transition_analytic_contact_cpu_us". CPU time rather than
wall-clock time because the shared 2-core machine is heavily loaded.

Usage: python3 tools/bench/mujoco_transition_cpu.py   (from the repository root)
"""
import time, statistics, mujoco, numpy as np, sys
m = mujoco.MjModel.from_xml_path("models/humanoid.xml"); d = mujoco.MjData(m)
def state(contact):
    mujoco.mj_resetDataKeyframe(m, d, 0) if m.nkey else mujoco.mj_resetData(m, d)
    d.ctrl[:] = 0
    if contact:
        for _ in range(3000):
            mujoco.mj_step(m, d)
            if d.nefc > 0: break
    mujoco.mj_forward(m, d)
nx = 2*m.nv + m.na
A = np.zeros((nx, nx)); B = np.zeros((nx, m.nu))
for contact in (False, True):
    cpu = []
    for _ in range(9):
        state(contact)
        c0 = time.thread_time()
        for _ in range(20):
            mujoco.mjd_transitionFD(m, d, 1e-6, 0, A, B, None, None)
        cpu.append((time.thread_time() - c0) * 1e6 / 20)
    print({"contact": contact, "nefc": int(d.nefc), "mjd_transitionFD_cpu_us": statistics.median(cpu)})
