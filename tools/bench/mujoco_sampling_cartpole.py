"""MuJoCo 4.0.0 side of the predictive-sampling benchmark of docs/optimization.md: cart-pole
(models/cartpole.xml, dt 10 ms), 32 rollouts x 100 steps per control step, one thread.

Times one planning step's rollouts (the physics only, as `examples/mpc_cartpole.rs` spends
almost all of its planning time in the engine's step) two ways, median of REPEAT planning steps,
wall (time.perf_counter) and CPU (time.process_time) per control step:
- `mujoco.rollout.rollout` (C++ loop, one MjData: one thread);
- a Python loop of `mujoco.mj_step` (what a Python planner pays).

Usage: python3 tools/bench/mujoco_sampling_cartpole.py [REPEAT]   (pip install mujoco==4.0.0)
Prints one JSON object.
"""
import json
import os
import statistics
import sys
import time

import mujoco
import numpy as np
from mujoco import rollout

ROLLOUTS, STEPS = 32, 100


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    m = mujoco.MjModel.from_xml_path(os.path.join(root, "models", "cartpole.xml"))
    d = mujoco.MjData(m)
    rng = np.random.default_rng(1)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state0, spec)
    x0 = np.tile(state0, (ROLLOUTS, 1))
    out = {"mujoco_version": mujoco.__version__, "rollouts": ROLLOUTS, "steps": STEPS,
           "timestep": m.opt.timestep}

    def timed(fn):
        wall, cpu = [], []
        fn()  # warm-up
        for _ in range(repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
        return 1e3 * statistics.median(wall), 1e3 * statistics.median(cpu)

    ctrl = rng.uniform(-1, 1, size=(ROLLOUTS, STEPS, m.nu))
    st = np.zeros((ROLLOUTS, STEPS, x0.shape[1]))
    sd = np.zeros((ROLLOUTS, STEPS, m.nsensordata))

    def cpp():
        rollout.rollout(m, d, x0, ctrl, state=st, sensordata=sd)

    def python_loop():
        for r in range(ROLLOUTS):
            mujoco.mj_setState(m, d, state0, spec)
            for k in range(STEPS):
                d.ctrl[:] = ctrl[r, k]
                mujoco.mj_step(m, d)

    for name, fn in (("rollout_cpp", cpp), ("python_loop", python_loop)):
        w, c = timed(fn)
        out[name] = {"wall_ms_per_control_step": w, "cpu_ms_per_control_step": c,
                     "real_time_factor_cpu": 1e3 * m.opt.timestep / c if c > 0 else None}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
