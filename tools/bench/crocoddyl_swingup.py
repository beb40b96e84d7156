"""Crocoddyl FDDP on the swing-up problems of docs/optimization.md, on moreau's models.

    pip install crocoddyl==3.2.1 pin==4.0.0 libpinocchio==4.0.0 mujoco==4.0.0
    python3 tools/bench/crocoddyl_swingup.py [cartpole|acrobot ...] [--repeat N]
        [--python-acrobot] [--out FILE]

The Pinocchio model is read from the same MJCF file as moreau's (models/cartpole_swingup.xml,
models/acrobot.xml); its forward dynamics is checked against MuJoCo 4.0.0 (mj_forward) at random
states before timing. Problem: dt 0.01, 200 knots, start hanging, symplectic Euler
(IntegratedActionModelEuler), running cost dt·[½ΔxᵀQΔx + ½R u²], terminal ½Δx_NᵀQfΔx_N,
Q = diag(1, 1, 0.1, 0.1), R = 0.01, Qf = diag(1000, 1000, 100, 100), zero-control initial
guess, no damping, no limits.

Actuation: acrobot by crocoddyl's C++ ActuationModelFloatingBase (the first joint, the
shoulder, is the unactuated root: τ = (0, u)); the cart-pole's actuated joint is the root
(slider), which no C++ actuation model of Crocoddyl expresses, so it uses a Python
ActuationModelAbstract (τ = (u, 0)). The Python callbacks cost time: `--python-acrobot` runs
the acrobot with the same Python actuation to measure that overhead.

Prints one JSON object per problem (time is the median wall time of `solve` over the repeats,
single thread; cpu_ms / cpu_ms_min the thread CPU time, `time.thread_time`, for loaded
machines): {problem, cost, iterations, ms, ms_min, cpu_ms, cpu_ms_min, dyn_err, xN}.
`--out FILE` also writes
them as a JSON array: tests/reference/crocoddyl_swingup.json (the optima that
optim/tests/optim/peer_optimum.rs checks moreau's solvers against) is
`python3 tools/bench/crocoddyl_swingup.py --repeat 1 --out tests/reference/crocoddyl_swingup.json`.
"""

import json
import os
import sys
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")

import crocoddyl  # noqa: E402
import mujoco  # noqa: E402
import pinocchio as pin  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
FILES = {"cartpole": "cartpole_swingup.xml", "acrobot": "acrobot.xml"}
X0 = {"cartpole": [0.0, np.pi, 0.0, 0.0], "acrobot": [np.pi, 0.0, 0.0, 0.0]}


class SelectActuation(crocoddyl.ActuationModelAbstract):
    """τ = S u with a constant selection matrix S (nv × nu)."""

    def __init__(self, state, s):
        crocoddyl.ActuationModelAbstract.__init__(self, state, s.shape[1])
        self.s = s

    def calc(self, data, x, u):
        data.tau[:] = self.s @ u

    def calcDiff(self, data, x, u):
        data.dtau_du[:] = self.s.reshape(data.dtau_du.shape)

    def commands(self, data, x, tau):
        data.u[:] = self.s.T @ tau

    def torqueTransform(self, data, x, u):
        data.Mtau[:] = self.s.T.reshape(data.Mtau.shape)


def dynamics_error(pm, path):
    """max |qacc_pinocchio − qacc_mujoco| at random states and controls."""
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    pd = pm.createData()
    rng = np.random.default_rng(1)
    err = 0.0
    for _ in range(20):
        q = rng.uniform(-3, 3, mm.nq)
        v = rng.uniform(-3, 3, mm.nv)
        u = rng.uniform(-3, 3, mm.nu)
        md.qpos[:], md.qvel[:], md.ctrl[:] = q, v, u
        mujoco.mj_forward(mm, md)
        tau = np.zeros(mm.nv)
        tau[mm.actuator_trnid[:, 0]] = u * mm.actuator_gear[:, 0]
        a = pin.aba(pm, pd, q, v, tau)
        err = max(err, float(np.max(np.abs(a - md.qacc))))
    return err


def problem(name, python_actuation=False):
    path = os.path.join(ROOT, FILES[name])
    pm = pin.buildModelFromMJCF(path)
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])
    state = crocoddyl.StateMultibody(pm)
    if name == "cartpole":
        actuation = SelectActuation(state, np.array([[1.0], [0.0]]))
    elif python_actuation:
        actuation = SelectActuation(state, np.array([[0.0], [1.0]]))
    else:
        actuation = crocoddyl.ActuationModelFloatingBase(state)
    nu = actuation.nu
    dt, horizon = 0.01, 200
    xref = np.zeros(4)

    def diff_model(terminal):
        costs = crocoddyl.CostModelSum(state, nu)
        w = [1000.0, 1000.0, 100.0, 100.0] if terminal else [1.0, 1.0, 0.1, 0.1]
        act = crocoddyl.ActivationModelWeightedQuad(np.array(w))
        costs.addCost("state", crocoddyl.CostModelResidual(
            state, act, crocoddyl.ResidualModelState(state, xref, nu)), 1.0)
        if not terminal:
            costs.addCost("control", crocoddyl.CostModelResidual(
                state, crocoddyl.ResidualModelControl(state, nu)), 0.01)
        return crocoddyl.DifferentialActionModelFreeFwdDynamics(state, actuation, costs)

    running = crocoddyl.IntegratedActionModelEuler(diff_model(False), dt)
    terminal = crocoddyl.IntegratedActionModelEuler(diff_model(True), 0.0)
    x0 = np.array(X0[name])
    return crocoddyl.ShootingProblem(x0, [running] * horizon, terminal), dynamics_error(pm, path)


def solve(name, repeat, python_actuation=False):
    times = []
    cpu = []
    for _ in range(repeat):
        prob, dyn_err = problem(name, python_actuation)
        solver = crocoddyl.SolverFDDP(prob)
        solver.th_stop = 1e-9
        xs = [prob.x0] * (prob.T + 1)
        us = [np.zeros(prob.runningModels[0].nu)] * prob.T
        t0, c0 = time.perf_counter(), time.thread_time()
        solver.solve(xs, us, 500, False)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return {
        "problem": name + (" (python actuation)" if python_actuation else ""),
        "cost": solver.cost,
        "iterations": solver.iter,
        "ms": 1e3 * float(np.median(times)),
        "ms_min": 1e3 * float(np.min(times)),
        "cpu_ms": 1e3 * float(np.median(cpu)),
        "cpu_ms_min": 1e3 * float(np.min(cpu)),
        "dyn_err": dyn_err,
        "xN": [float(v) for v in solver.xs[-1]],
    }


def main():
    args = sys.argv[1:]
    repeat = 10
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    out = None
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    py_acrobot = "--python-acrobot" in args
    names = [a for a in args if not a.startswith("--")] or ["cartpole", "acrobot"]
    results = []
    for n in names:
        if n not in FILES:
            sys.exit(f"unknown problem {n}")
        results.append(solve(n, repeat))
        print(json.dumps(results[-1]), flush=True)
    if py_acrobot:
        results.append(solve("acrobot", repeat, True))
        print(json.dumps(results[-1]), flush=True)
    if out:
        with open(out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
