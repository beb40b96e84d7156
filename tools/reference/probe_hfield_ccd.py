#!/usr/bin/env python3
"""What MuJoCo 4.0.0 returns for a height field against a box (fact-finding; mujoco==4.0.0).

Run: python3 tools/reference/probe_hfield_ccd.py [nposes]

A 2x2 flat height field (one cell = two prisms, top at z = 0, bottom at -size[3]) and a box at
random poses. For every MuJoCo contact the script prints MuJoCo's depth, the prism's minimal
penetration depth (separating axes over face normals and edge-edge cross products), and whether
MuJoCo's (dist, normal) is exactly a face of the Minkowski difference prism - box (a triangle of
vertex differences a_i - b_j whose plane is at distance -dist along the normal).

Findings (measured with this script and tests/engine/collision_oracle.rs):
- MuJoCo's depth is often well below the minimal depth (e.g. 0.0044 against 0.058 for a tilted
  box deep in a flat cell), and is unchanged by ccd_iterations 35 -> 1000 and ccd_tolerance
  1e-6 -> 1e-10.
- MuJoCo's (dist, normal) is always a face of the Minkowski difference at a distance below the
  minimal depth: an intermediate face of an expanding polytope (EPA) that stopped early, not a
  different prism or a different depth definition (ruled out: depth along the field's +z, along
  the centre-to-centre direction, a prism with another bottom, the normal forced to the
  triangle's normal, the minimal depth with another triangulation).
- The stop is structural: for box/mesh geoms without margin MuJoCo's EPA ends as soon as a new
  support point carries the same pair of vertex indices as an earlier polytope vertex; the
  prism's support never records an index (it stays -1), so the EPA ends once a box corner / mesh
  vertex repeats, typically after 0-2 expansions. With this rule, a GJK run as a distance query
  (simplex grown until it encloses the origin, started from the prism's vertex mean and the
  geom's centre; a GJK that switches to a separate intersection test gives other tetrahedra and
  matched only 21 of 40 poses) and a tolerance of 1e-15 otherwise, src/collision/hfield.rs
  (`native`) reproduces MuJoCo to rounding on 97% of the oracle's box/mesh contacts (counts on
  all poses), cylinders (EPA to ccd_tolerance, no repeat test) on 83%. The remaining contacts
  (MuJoCo's EPA continues past a repeated index, or stops earlier) are not explained; the
  libmujoco.so in the pip wheel was not disassembled.
"""
import itertools
import sys

import mujoco
import numpy as np

XML = """<mujoco><asset><hfield name="hf" nrow="2" ncol="2" size="0.5 0.5 0.2 0.1"
elevation="0 0 0 0"/></asset><worldbody><geom type="hfield" hfield="hf"/>
<body><freejoint/><geom type="box" size="0.12 0.08 0.05"/></body></worldbody></mujoco>"""
HALF = np.array([0.12, 0.08, 0.05])
# MuJoCo's two prisms of the cell: (r+1,c),(r,c),(r+1,c+1) and (r,c),(r+1,c+1),(r,c+1)
TRIS = [[(-.5, .5), (-.5, -.5), (.5, .5)], [(-.5, -.5), (.5, .5), (.5, -.5)]]


def prism(tri):
    return np.array([[x, y, -0.1] for x, y in tri] + [[x, y, 0.0] for x, y in tri])


def min_depth(a, b):
    """Minimal penetration depth of convex polytopes a, b (vertex arrays) by separating axes."""
    axes = []
    for p in (a, b):
        for i, j, k in itertools.combinations(range(len(p)), 3):
            n = np.cross(p[j] - p[i], p[k] - p[i])
            if np.linalg.norm(n) > 1e-12:
                axes.append(n / np.linalg.norm(n))
    for ea in itertools.combinations(a, 2):
        for eb in itertools.combinations(b, 2):
            n = np.cross(ea[1] - ea[0], eb[1] - eb[0])
            if np.linalg.norm(n) > 1e-12:
                axes.append(n / np.linalg.norm(n))
    ax = np.array(axes)
    ax = np.vstack([ax, -ax])
    return ((a @ ax.T).max(0) - (b @ ax.T).min(0)).min()


def is_face(a, b, depth, normal):
    """True if a triangle of vertex differences a_i - b_j lies in the plane n.x = depth."""
    pts = np.array([p - q for p in a for q in b])
    on = np.abs(pts @ normal - depth) < 1e-9
    return on.sum() >= 3


def main():
    nposes = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    m = mujoco.MjModel.from_xml_string(XML)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(1)
    below = faces = total = 0
    for t in range(nposes):
        q = rng.normal(size=4)
        d.qpos[:3] = [rng.uniform(-.2, .2), rng.uniform(-.2, .2), 0.05]
        d.qpos[3:] = q / np.linalg.norm(q)
        mujoco.mj_forward(m, d)
        rot, pos = d.geom_xmat[1].reshape(3, 3), d.geom_xpos[1]
        box = np.array([pos + rot @ (np.array([sx, sy, sz]) * HALF)
                        for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        for c in d.contact[:d.ncon]:
            depth, n = -c.dist, c.frame[:3].copy()
            best = [min_depth(prism(tr), box) for tr in TRIS]
            face = [is_face(prism(tr), box, depth, n) for tr in TRIS]
            # the prism whose Minkowski difference has MuJoCo's contact as a face
            k = face.index(True) if any(face) else None
            total += 1
            faces += k is not None
            below += k is not None and depth < best[k] - 1e-9
            print("pose %2d  mujoco depth %.6f  minimal depths %.6f %.6f  EPA face of prism %s" % (
                t, depth, best[0], best[1], k))
        # the same pose with other ccd settings
        for it, tol in [(1000, 1e-6), (35, 1e-10)]:
            m.opt.ccd_iterations, m.opt.ccd_tolerance = it, tol
            mujoco.mj_forward(m, d)
            other = sorted(round(-c.dist, 12) for c in d.contact[:d.ncon])
            m.opt.ccd_iterations, m.opt.ccd_tolerance = 35, 1e-6
            mujoco.mj_forward(m, d)
            if other != sorted(round(-c.dist, 12) for c in d.contact[:d.ncon]):
                print("   ccd_iterations %d, ccd_tolerance %g change the depths" % (it, tol))
    print("%d contacts: %d on a face of a prism's Minkowski difference, %d of them below that "
          "prism's minimal depth" % (total, faces, below))


if __name__ == "__main__":
    main()
