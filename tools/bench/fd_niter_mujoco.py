"""Newton iterations of every perturbed step of mjd_transitionFD (forward differences, eps 1e-6)
at the contact state `moreau bench` and bench_mujoco.py use (keyframe 0 with zero controls, or
the reset state; step until constraint rows appear), replayed step by step with MuJoCo 4.0.0:
the nominal step, then controls, activations, velocities, positions, each from the restored
state *and warm start* (mjSTATE_INTEGRATION; mjd_transitionFD restores qacc_warmstart too).
Prints the same lines as `cargo run --release --example fd_niter -- MODEL`.

    python3 tools/bench/fd_niter_mujoco.py models/humanoid.xml [--zero-warmstart]
"""
import sys

import mujoco
import numpy as np


def main():
    path = sys.argv[1]
    zero_ws = "--zero-warmstart" in sys.argv
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
        d.ctrl[:] = 0
    for _ in range(3000):
        mujoco.mj_step(m, d)
        if d.nefc > 0:
            break
    print(f"time {d.time:g} nefc {d.nefc}")
    if zero_ws:
        d.qacc_warmstart[:] = 0
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    x0 = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, x0, spec)
    eps = 1e-6
    out = []

    def run(name, pert):
        mujoco.mj_setState(m, d, x0, spec)
        pert()
        mujoco.mj_step(m, d)
        out.append((name, int(sum(d.solver_niter[: max(1, d.nisland)]))))

    def add(arr, i):
        def f():
            arr[i] += eps
        return f

    def qpert(i):
        def f():
            dq = np.zeros(m.nv)
            dq[i] = eps
            mujoco.mj_integratePos(m, d.qpos, dq, 1.0)
        return f

    run("nominal", lambda: None)
    for i in range(m.nu):
        run(f"u{i}", add(d.ctrl, i))
    for i in range(m.na):
        run(f"a{i}", add(d.act, i))
    for i in range(m.nv):
        run(f"v{i}", add(d.qvel, i))
    for i in range(m.nv):
        run(f"q{i}", qpert(i))
    print(f"total niter {sum(n for _, n in out)} n {len(out)}")
    print(" ".join(f"{k}:{n}" for k, n in out))


if __name__ == "__main__":
    main()
