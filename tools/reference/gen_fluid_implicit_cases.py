#!/usr/bin/env python3
"""Reference rollouts of fluid models under the implicit integrators (fluid forces in qDeriv),
from MuJoCo 4.0.0.

Writes tests/reference/fluid_implicit_cases.json: per (fluid model of gen_phys8_cases.py,
integrator in implicit / implicitfast / Euler) the MJCF text, MuJoCo's compiled geom_fluid, the initial qvel and qpos / qvel after
100 steps (timestep 0.01, contacts disabled).
Run from the repository root: python3 tools/reference/gen_fluid_implicit_cases.py
"""
import json
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import gen_phys8_cases as p8  # noqa: E402


def fl(a):
    return [float(x) for x in np.asarray(a).ravel()]


def main():
    rng = np.random.default_rng(4)
    out = []
    for name, xml in p8.MODELS.items():
        if not name.startswith("fluid"):
            continue
        for integ in ["implicit", "implicitfast", "Euler"]:
            x = xml.replace("<option ", f'<option integrator="{integ}" timestep="0.01" ', 1)
            x = x.replace("<option ", '<option><flag contact="disable"/></option><option ', 1)
            m = mujoco.MjModel.from_xml_string(x)
            d = mujoco.MjData(m)
            d.qvel[:] = rng.uniform(-3, 3, m.nv)
            qvel0 = fl(d.qvel)
            for _ in range(100):
                mujoco.mj_step(m, d)
            out.append(dict(name=f"{name}/{integ}", xml=x, qvel0=qvel0, qpos=fl(d.qpos),
                            geom_fluid=[fl(g) for g in m.geom_fluid],
                            qvel=fl(d.qvel)))
    path = os.path.join("tests", "reference", "fluid_implicit_cases.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("wrote", path, len(out))


if __name__ == "__main__":
    main()
