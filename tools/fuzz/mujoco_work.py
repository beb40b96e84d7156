#!/usr/bin/env python3
"""The fuzz harness's per-input work (fuzz/src/harness.rs `run`) done by MuJoCo 4.0.0, with the
process CPU time of each stage: load and compile, the steps, mj_forward, mj_inverse,
mjd_transitionFD and mjd_inverseFD (MuJoCo has no analytic transition Jacobians: that stage of
the harness has no counterpart here).

  python3 tools/fuzz/mujoco_work.py MODEL.xml [--all]

As in the harness: controls set to ((7 k + 3 i) mod 11) 0.2 - 1 before step k; five steps when
the model is small (nv <= 48, nbody, ngeom <= 128, nu, ntendon <= 32, neq <= 64), else one; the
forward, inverse and Jacobian stages only when small and nefc <= 256 after the steps (`--all`
runs them regardless); FD step 1e-6, forward differences (flg_centered 0).
"""
import argparse
import time

import mujoco
import numpy as np


def small(m):
    return (
        m.nv <= 48
        and m.nbody <= 128
        and m.ngeom <= 128
        and m.nu <= 32
        and m.ntendon <= 32
        and m.neq <= 64
    )


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("model")
    p.add_argument("--all", action="store_true")
    a = p.parse_args()
    cpu = time.process_time
    out = []

    t = cpu()
    m = mujoco.MjModel.from_xml_path(a.model)
    d = mujoco.MjData(m)
    out.append(("load", cpu() - t))

    steps = 5 if small(m) else 1
    t = cpu()
    for k in range(steps):
        d.ctrl[:] = [((k * 7 + i * 3) % 11) * 0.2 - 1.0 for i in range(m.nu)]
        mujoco.mj_step(m, d)
    out.append((f"step x{steps}", cpu() - t))

    if a.all or (small(m) and d.nefc <= 256):
        t = cpu()
        mujoco.mj_forward(m, d)
        out.append(("forward", cpu() - t))
        t = cpu()
        mujoco.mj_inverse(m, d)
        out.append(("inverse", cpu() - t))
        nx, nu = 2 * m.nv + m.na, m.nu
        A, B = np.zeros((nx, nx)), np.zeros((nx, nu))
        t = cpu()
        mujoco.mjd_transitionFD(m, d, 1e-6, 0, A, B, None, None)
        out.append(("transitionFD", cpu() - t))
        nv = m.nv
        DfDq, DfDv, DfDa = np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros((nv, nv))
        mujoco.mj_forward(m, d)
        t = cpu()
        mujoco.mjd_inverseFD(m, d, 1e-6, 0, DfDq, DfDv, DfDa, None, None, None, None)
        out.append(("inverseFD", cpu() - t))

    print(f"ngeom {m.ngeom} nv {m.nv} ncon {d.ncon} nefc {d.nefc}")
    for name, s in out:
        print(f"{name:14s} {s:9.4f} s")
    print(f"{'total':14s} {sum(s for _, s in out):9.4f} s")


if __name__ == "__main__":
    main()
