#!/usr/bin/env python3
"""Time Pinocchio's computeRNEADerivatives (∂τ/∂q, ∂τ/∂v, M) on an MJCF model, the peer of
`moreau bench`'s "rnea_derivatives_us" (docs/performance.md: analytic inverse-dynamics derivatives
≤ 1.5× Pinocchio 4.1).

Usage:  python3 tools/bench/pinocchio_rnea.py models/humanoid.xml [--batches 20] [--batch-size 2000]

Needs `pip install pin==4.1.0` (a separate venv is advisable: Crocoddyl 3.2.1 needs pin 4.0.0).
The model is built with pinocchio.buildModelFromMJCF; the script checks that its joint
structure matches MuJoCo's (nq, nv, and per-joint type and dof count, via the mujoco package)
and prints it. Prints JSON: median wall-clock and thread-CPU microseconds per call over batches.
The loop is in Python, so "call_overhead_us" (a trivial pinocchio call) is also given.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np
import pinocchio as pin


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--batches", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=2000)
    a = ap.parse_args()
    model = pin.buildModelFromMJCF(a.model)
    data = model.createData()
    joints = [model.joints[i].shortname() for i in range(1, model.njoints)]
    info = {"pinocchio_version": pin.__version__, "nq": model.nq, "nv": model.nv,
            "joints": joints}
    try:
        import mujoco
        m = mujoco.MjModel.from_xml_path(a.model)
        info["mujoco_nq_nv"] = [m.nq, m.nv]
        names = {0: "free", 1: "ball", 2: "slide", 3: "hinge"}
        info["mujoco_joints"] = [names[int(t)] for t in m.jnt_type]
        # Pinocchio merges the joints of one body into a JointModelComposite: compare the
        # per-body dof counts (tree order) instead of joint lists
        mj_body_dofs = [int(m.body_dofnum[b]) for b in range(1, m.nbody) if m.body_dofnum[b] > 0]
        pin_dofs = [model.joints[i].nv for i in range(1, model.njoints)]
        info["body_dofs"] = pin_dofs
        if (m.nq, m.nv) != (model.nq, model.nv) or sorted(mj_body_dofs) != sorted(pin_dofs):
            print(json.dumps({"error": "joint structure differs from MuJoCo's", **info}))
            sys.exit(1)
    except ImportError:
        pass
    rng = np.random.default_rng(0)
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    v = rng.standard_normal(model.nv)
    acc = rng.standard_normal(model.nv)
    f = pin.computeRNEADerivatives
    for _ in range(a.batch_size):
        f(model, data, q, v, acc)
    wall, cpu, ovh = [], [], []
    for _ in range(a.batches):
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(a.batch_size):
            f(model, data, q, v, acc)
        wall.append((time.perf_counter() - t0) * 1e6 / a.batch_size)
        cpu.append((time.thread_time() - c0) * 1e6 / a.batch_size)
        t0 = time.perf_counter()
        for _ in range(a.batch_size):
            pin.neutral(model)
        ovh.append((time.perf_counter() - t0) * 1e6 / a.batch_size)
    print(json.dumps({**info, "computeRNEADerivatives_us": statistics.median(wall),
                      "computeRNEADerivatives_cpu_us": statistics.median(cpu),
                      "call_overhead_us": statistics.median(ovh)}))


if __name__ == "__main__":
    main()
