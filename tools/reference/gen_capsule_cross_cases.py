#!/usr/bin/env python3
"""Capsule pairs whose segments cross (closest points coincide): MuJoCo 4.0.0's contacts.

Run: python3 tools/reference/gen_capsule_cross_cases.py   (needs mujoco==4.0.0)
Writes tests/reference/capsule_cross_cases.json, read by tests/engine/capsule_cross.rs. Where the
segments cross, MuJoCo's normal is the normalized cross product of the two axes (geom1's × geom2's),
not the coincident-spheres default +x; in planar models crossing capsules are the generic case.
"""
import json
import os

import mujoco
import numpy as np

RNG = np.random.default_rng(7)


def unit(v):
    return v / np.linalg.norm(v)


def fmt(v):
    return " ".join(repr(float(x)) for x in v)


cases = []
# 3-D: random axes through a common point (each segment crosses it at a random parameter)
for k in range(24):
    p = RNG.uniform(-0.3, 0.3, 3)
    a1, a2 = unit(RNG.normal(size=3)), unit(RNG.normal(size=3))
    h1, h2 = RNG.uniform(0.2, 0.6, 2)
    t1, t2 = RNG.uniform(-0.9, 0.9, 2)
    r1, r2 = RNG.uniform(0.03, 0.15, 2)
    c1, c2 = p - a1 * t1 * h1, p - a2 * t2 * h2
    margin = 0.0 if k % 3 else 0.01
    xml = f"""<mujoco><worldbody>
<geom type="capsule" fromto="{fmt(c1 - a1 * h1)} {fmt(c1 + a1 * h1)}" size="{float(r1)!r}" margin="{margin}"/>
<body><freejoint/><geom type="capsule" fromto="{fmt(c2 - a2 * h2)} {fmt(c2 + a2 * h2)}" size="{float(r2)!r}"/></body>
</worldbody></mujoco>"""
    cases.append({"name": f"cross3d-{k}", "xml": xml, "qpos": None})
# planar: two capsules in the xz-plane on hinge (y) and slide joints, at poses where they cross
planar = """<mujoco><worldbody>
<body name="torso" pos="0 0 1"><joint name="rootx" type="slide" axis="1 0 0"/>
<joint name="rootz" type="slide" axis="0 0 1"/><joint name="rooty" type="hinge" axis="0 1 0"/>
<geom name="torso" type="capsule" fromto="0 0 -0.2 0 0 0.2" size="0.05"/>
<body name="leg" pos="0 0 -0.2"><joint name="hip" type="hinge" axis="0 1 0"/>
<geom name="leg" type="capsule" fromto="0 0 0 0 0 -0.4" size="0.04"/>
<body name="foot" pos="0 0 -0.4"><joint name="knee" type="hinge" axis="0 1 0" range="-170 170"/>
<geom name="foot" type="capsule" fromto="0 0 0 0.45 0 0" size="0.045"/></body></body></body>
</worldbody></mujoco>"""
# poses where the foot crosses the torso (found on a grid of hip and knee angles)
pm = mujoco.MjModel.from_xml_string(planar)
pd = mujoco.MjData(pm)
k = 0
for hip in np.linspace(-2.9, 2.9, 30):
    for knee in np.linspace(-2.9, 2.9, 30):
        pd.qpos[:] = [0.1 * k, 0.0, 0.05 * k, hip, knee]
        mujoco.mj_forward(pm, pd)
        if k < 8 and any(set(x.geom) == {0, 2} for x in pd.contact[:pd.ncon]):
            cases.append({"name": f"planar-{k}", "xml": planar, "qpos": pd.qpos.tolist()})
            k += 1

for c in cases:
    m = mujoco.MjModel.from_xml_string(c["xml"])
    d = mujoco.MjData(m)
    if c["qpos"] is not None:
        d.qpos[:] = c["qpos"]
    mujoco.mj_forward(m, d)
    c["qpos"] = d.qpos.tolist()
    c["contacts"] = [{"geom": [int(x.geom[0]), int(x.geom[1])], "dist": float(x.dist),
                      "pos": x.pos.tolist(), "frame": x.frame.tolist()}
                     for x in d.contact[:d.ncon]]
    c["ncon"] = int(d.ncon)

path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "capsule_cross_cases.json")
with open(path, "w") as f:
    json.dump({"mujoco": mujoco.__version__, "cases": cases}, f, separators=(",", ":"))
print("wrote", os.path.normpath(path), sum(len(c["contacts"]) for c in cases), "contacts")
