#!/usr/bin/env python3
"""Measures on MuJoCo 4.0.0 the arena rules moreau reproduces (moreau::data::arena):

1. the bytes per contact: `d.parena / d.ncon` after mj_collision;
2. the default `narena` (whole MiB): thresholds where it steps up by one MiB as `nconmax`,
   `njmax`, nv (slide-joint bodies with one geom each), static geoms or bodies grow, and the
   range of each coefficient of `a njmax² + b njmax·nv + c nv² + d njmax + e nv + f` those
   thresholds allow (a linear programme);
3. the collision's stack beside the contacts: for sphere piles with F contacts, the least
   `<size memory>` that keeps K + 1 contacts, less 608 (K + 1): printed with `112 F + 24`.

Rerun:  python3 tools/arena/fit.py   (a few minutes)
"""
import os
import sys

import mujoco
import numpy as np
from scipy.optimize import linprog

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import pile  # noqa: E402

MIB = 1 << 20


def mib(xml):
    return mujoco.MjModel.from_xml_string(xml).narena // MIB


def slides(nv, c, j):
    b = "".join(f'<body pos="{i} 0 0.1"><joint type="slide"/><geom size="0.1"/></body>'
                for i in range(nv))
    return (f'<mujoco><size nconmax="{c}" njmax="{j}"/><worldbody>'
            f'<geom type="plane" size="10 10 .1"/>{b}</worldbody></mujoco>')


def steps(f, lo, hi, k):
    """The first k arguments x in [lo, hi] with f(x) > f(x - 1)."""
    out, x = [], lo
    for _ in range(k):
        base, a, b = f(x), x, hi
        if f(b) == base:
            break
        while b - a > 1:
            mid = (a + b) // 2
            a, b = (a, mid) if f(mid) > base else (mid, b)
        out.append(b)
        x = b
    return out


def main():
    m = mujoco.MjModel.from_xml_string(pile(10))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    mujoco.mj_collision(m, d)
    print("bytes per contact:", d.parena / d.ncon)

    t = steps(lambda c: mib(slides(0, c, 1)), 1, 100000, 4)
    print("nconmax thresholds:", t, "bytes per nconmax ~", MIB * 3 / (t[3] - t[0]))
    obs = []
    for nv in [0, 1, 7, 50, 200]:
        for x in steps(lambda j: mib(slides(nv, 1, j)), 1, 2500, 6):
            obs += [((nv, x - 1), mib(slides(nv, 1, x - 1))), ((nv, x), mib(slides(nv, 1, x)))]
    for j in [1, 100]:
        for x in steps(lambda v: mib(slides(v, 1, j)), 0, 1000, 5):
            obs += [((x - 1, j), mib(slides(x - 1, 1, j))), ((x, j), mib(slides(x, 1, j)))]
    a, b = [], []
    for (nv, j), k in obs:
        f = np.array([j * j, j * nv, nv * nv, j, nv, 1.0])
        a += [f, -f]
        b += [k * MIB, -(k - 1) * MIB - 1]
    names = ["njmax²", "njmax·nv", "nv²", "njmax", "nv (+ a body and a geom)", "constant"]
    for i, n in enumerate(names):
        lo = linprog(np.eye(6)[i], A_ub=a, b_ub=b, bounds=[(None, None)] * 6).fun
        hi = -linprog(-np.eye(6)[i], A_ub=a, b_ub=b, bounds=[(None, None)] * 6).fun
        print(f"  {n}: {lo:.1f} .. {hi:.1f}")
    for what, el in [("geoms", '<geom size="0.1" pos="{i} 0 0"/>'), ("bodies", '<body pos="{i} 0 0"/>')]:
        for j in [100, 120, 140]:
            f = lambda n, j=j, el=el: mib(  # noqa: E731
                f'<mujoco><size nconmax="1" njmax="{j}"/><worldbody>'
                + "".join(el.format(i=i) for i in range(n)) + "</worldbody></mujoco>")
            print(f"  {what} at njmax {j}: a MiB more from", steps(f, 0, 6000, 1))

    def kept(n, x):
        m = mujoco.MjModel.from_xml_string(pile(n, f'<size memory="{x}"/>'))
        d = mujoco.MjData(m)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_collision(m, d)
        return d.ncon

    for n in [5, 10, 20, 30, 45, 60, 90]:
        m = mujoco.MjModel.from_xml_string(pile(n))
        d = mujoco.MjData(m)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_collision(m, d)
        found = d.ncon
        k = found // 2
        lo, hi = 608 * k, 608 * k + 10**7
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if kept(n, mid) >= k + 1 else (mid, hi)
        print(f"pile {n}: F {found}, stack {hi - 608 * (k + 1)}, 112 F + 24 = {112 * found + 24}")


if __name__ == "__main__":
    main()
