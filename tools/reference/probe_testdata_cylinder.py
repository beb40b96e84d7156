#!/usr/bin/env python3
"""MuJoCo's test model's height-field cylinder at its FD nudges, budget by budget.

MuJoCo's test model (`mujoco/testdata/model.xml` of the zoo, tools/zoo/fetch.py) has its FD
Jacobians at rollout step 0 (the state tools/zoo/generate.py differentiates) made of contact
switches of the wheel cylinder on the height field. This writes a collision_oracle scene file
(the format of tools/reference/gen_collision_cases.py) with one scene per `ccd_iterations`
budget: the height field and the cylinder alone, posed with MuJoCo's own `geom_xpos`/`geom_xmat`
of the cylinder at keyframe 0 and rollout step 0, each dof nudged by ±1e-6 as
mjd_transitionFD does (38 distinct poses), and MuJoCo's contacts there. moreau's search on the
same poses, budget by budget:

    python3 tools/reference/probe_testdata_cylinder.py /tmp/td.json 1 2 ... 35
    COLL_JSON=/tmp/td.json cargo test -p moreau --test engine collision_oracle -- --nocapture

(rows `td-<budget>`; measured: to rounding, ≤ 7e-15, at budgets 1 to 7; from 8 on 11 to 49 of
114 contacts off by up to 1e-1; 21 at every budget from 15 to 35; the `param` column reads 1:
mj_collision alone leaves `mu` unset.)
"""
import json
import os
import sys

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "zoo"))
import gen_collision_cases as C  # noqa: E402
import generate as G  # noqa: E402

NAME = "mujoco/testdata/model"
# the test model's height field and wheel_1's cylinder (size .1, fromto over .03)
XML = """<mujoco><option ccd_iterations="%d"/><asset><hfield name="hfield" nrow="3" ncol="3"
size=".2 .2 .03 .03" elevation="1 0 1 0 1 0 1 0 1"/></asset><worldbody>
<geom type="hfield" hfield="hfield" pos="-.4 .6 .05"/>
<body><freejoint/><geom size=".1 .015" type="cylinder"/></body></worldbody></mujoco>"""
CYLINDER = 8  # wheel_1's geom in the test model


def nudged_poses(t):
    """The cylinder's pose at keyframe 0 and rollout step 0, each dof nudged by ±1e-6."""
    rng = np.random.default_rng([G.SEED, int(G.fnv1a64(NAME.encode()), 16) % (1 << 32)])
    u = G.controls(t, rng)
    _, snaps = G.rollout(t, u, rng)
    seen, out = set(), []
    for snap in (G.reset_state(t), snaps[0]):
        for i in range(t.nv):
            for s in (0.0, 1e-6, -1e-6):
                e = np.zeros(t.nv)
                e[i] = s
                d = mujoco.MjData(t)
                d.qpos[:] = snap.qpos
                mujoco.mj_integratePos(t, d.qpos, e, 1.0)
                mujoco.mj_kinematics(t, d)
                xp, xm = d.geom_xpos[CYLINDER].copy(), d.geom_xmat[CYLINDER].copy()
                key = xp.tobytes() + xm.tobytes()
                if key not in seen:
                    seen.add(key)
                    out.append((xp, xm))
    return out


def main():
    dest, budgets = sys.argv[1], [int(a) for a in sys.argv[2:]] or [35]
    t = mujoco.MjModel.from_xml_path(os.path.join(G.cache_dir(), NAME.split("/", 1)[0],
                                                  "testdata", "model.xml"))
    poses = nudged_poses(t)
    scenes = []
    for it in budgets:
        m = mujoco.MjModel.from_xml_string(XML % it)
        d = mujoco.MjData(m)
        out = []
        for xp, xm in poses:
            mujoco.mj_kinematics(m, d)
            d.geom_xpos[1], d.geom_xmat[1] = xp, xm
            mujoco.mj_collision(m, d)
            out.append(C.snapshot(m, d))
        scenes.append({"name": "td-%d" % it, "xml": XML % it, "model": C.model_fields(m),
                       "poses": out})
    with open(dest, "w") as f:
        json.dump({"mujoco": mujoco.__version__, "scenes": scenes}, f)
    print("wrote %s: %d poses x %d budgets" % (dest, len(poses), len(budgets)))


if __name__ == "__main__":
    main()
