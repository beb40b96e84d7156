#!/usr/bin/env python3
"""Multi-contact convex collision oracle (MuJoCo 4.0.0 `multiccd`, on by default).

Box and mesh pairs in controlled poses: resting face on face (yawed, offset to partial overlap,
separated within the margin), small tilts (below and above MuJoCo's ~5 degree face tolerance),
edges and vertices on faces, crossing and parallel edges, random poses, margin/gap, and the
flag disabled. Writes tests/reference/multiccd_cases.json (read by tests/multiccd_oracle.rs) in
the format of gen_collision_cases.py, plus MuJoCo's mesh hull polygons (mesh_polyvert, ...);
with --cylinder, the cylinder pairs to tests/reference/multiccd_cylinder_cases.json instead.
Run: python3 tools/reference/gen_multiccd_cases.py [--cylinder]
"""
import json
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from gen_collision_cases import model_fields, snapshot  # noqa: E402

RNG = np.random.default_rng(20261122)


def cube(h):
    return np.array([[x, y, z] for x in (-h, h) for y in (-h, h) for z in (-h, h)])


def prism(n, r, h, phase):
    a = np.radians(phase) + 2 * np.pi * np.arange(n) / n
    return np.array([[r * np.cos(t), r * np.sin(t), z] for z in (-h, h) for t in a])


MESHES = {
    "cube": cube(0.08),
    "slab": np.array([[x, y, z] for x in (-0.25, 0.25) for y in (-0.2, 0.2) for z in (-0.04, 0.04)]),
    "hexprism": prism(6, 0.08, 0.05, 10),
    "octprism": prism(8, 0.09, 0.04, 3),
    "poly": np.array([[0.1, 0, 0], [-0.07, 0.08, 0.01], [-0.06, -0.09, 0.02], [0.01, 0.0, 0.12],
                      [0.0, 0.01, -0.1], [0.05, 0.06, 0.05], [-0.03, -0.02, -0.08]]),
}
ASSETS = "<asset>%s</asset>" % "".join(
    '<mesh name="%s" vertex="%s"/>' % (k, " ".join("%.6f" % x for x in v.ravel())) for k, v in MESHES.items())
GEOMS = {
    "box": 'type="box" size="0.2 0.15 0.1"',
    "smallbox": 'type="box" size="0.07 0.05 0.06"',
    "cube": 'type="mesh" mesh="cube"',
    "slab": 'type="mesh" mesh="slab"',
    "hexprism": 'type="mesh" mesh="hexprism"',
    "octprism": 'type="mesh" mesh="octprism"',
    "poly": 'type="mesh" mesh="poly"',
    "capsule": 'type="capsule" size="0.03 0.07"',
    "cyl": 'type="cylinder" size="0.05 0.08"',
    "smallcyl": 'type="cylinder" size="0.04 0.03"',
}


def pair_xml(g1, g2, extra1="", extra2="", opt=""):
    return """<mujoco>%s%s<worldbody>
<body name="a"><freejoint/><geom %s %s/></body>
<body name="b"><freejoint/><geom %s %s/></body>
</worldbody></mujoco>""" % (opt, ASSETS, GEOMS[g1], extra1, GEOMS[g2], extra2)


def quat_axis(ax, ang):
    ax = np.asarray(ax, float)
    ax = ax / np.linalg.norm(ax)
    return np.concatenate([[np.cos(ang / 2)], np.sin(ang / 2) * ax])


def qmul(a, b):
    r = np.zeros(4)
    mujoco.mju_mulQuat(r, a, b)
    return r


def rand_quat():
    q = RNG.normal(size=4)
    return q / np.linalg.norm(q)


def extent(m, d, geom):
    """(lowest, highest) world z of a geom's corners at the current kinematics."""
    if m.geom_type[geom] == mujoco.mjtGeom.mjGEOM_CAPSULE:
        r, h = m.geom_size[geom][:2]
        z = d.geom_xpos[geom][2] + np.array([-1, 1]) * h * d.geom_xmat[geom][8]
        return np.min(z) - r, np.max(z) + r
    if m.geom_type[geom] == mujoco.mjtGeom.mjGEOM_CYLINDER:
        r, h = m.geom_size[geom][:2]
        R = d.geom_xmat[geom].reshape(3, 3)
        e = abs(R[2, 2]) * h + np.hypot(R[2, 0], R[2, 1]) * r
        return d.geom_xpos[geom][2] - e, d.geom_xpos[geom][2] + e
    if m.geom_type[geom] == mujoco.mjtGeom.mjGEOM_BOX:
        s = m.geom_size[geom]
        pts = np.array([[x, y, z] for x in (-s[0], s[0]) for y in (-s[1], s[1]) for z in (-s[2], s[2])])
    else:
        k = m.geom_dataid[geom]
        a, n = m.mesh_vertadr[k], m.mesh_vertnum[k]
        pts = np.asarray(m.mesh_vert[a:a + n], float)
    z = (d.geom_xmat[geom].reshape(3, 3) @ pts.T)[2] + d.geom_xpos[geom][2]
    return np.min(z), np.max(z)


def place(m, d, pen):
    """Moves body b vertically so that its lowest corner is `pen` below a's highest."""
    d.qpos[9] = 0
    mujoco.mj_kinematics(m, d)
    _, top_a = extent(m, d, 0)
    low_b, _ = extent(m, d, 1)
    d.qpos[9] = top_a - low_b - pen


def stacked(tilt, pen, offset=0.12, qa_fn=None, base_b=(1, 0, 0, 0)):
    """Geom b above geom a: a yawed (or qa_fn), b yawed and tilted by an angle in `tilt` about a
    random horizontal axis, b's lowest point `pen` below a's highest (negative: separated)."""
    def poser(m, d):
        d.qpos[:] = 0
        qa = qa_fn() if qa_fn else quat_axis([0, 0, 1], RNG.uniform(-np.pi, np.pi))
        d.qpos[3:7] = qa
        yaw = quat_axis([0, 0, 1], RNG.uniform(-np.pi, np.pi))
        t = RNG.uniform(*tilt)
        ax = RNG.normal(size=2)
        qb = qmul(quat_axis([ax[0], ax[1], 0], t), qmul(yaw, np.asarray(base_b, float)))
        d.qpos[10:14] = qb
        d.qpos[7:9] = RNG.uniform(-offset, offset, 2)
        place(m, d, RNG.uniform(*pen))
    return poser


def edges(skew, pen):
    """Two geoms with an edge up (a) and an edge down (b), crossing at an angle `skew`."""
    def poser(m, d):
        d.qpos[:] = 0
        qa = quat_axis([1, 0, 0], np.pi / 4)
        d.qpos[3:7] = qa
        qb = qmul(quat_axis([0, 0, 1], RNG.uniform(*skew)), quat_axis([1, 0, 0], np.pi / 4))
        d.qpos[10:14] = qb
        d.qpos[7:9] = RNG.uniform(-0.03, 0.03, 2)
        place(m, d, RNG.uniform(*pen))
    return poser


def random_pair(m, d):
    d.qpos[:] = 0
    d.qpos[3:7] = rand_quat()
    d.qpos[10:14] = rand_quat()
    u = RNG.normal(size=3)
    u /= np.linalg.norm(u)
    d.qpos[7:10] = u * RNG.uniform(0.1, 0.25)


def polys(m):
    f = {}
    for k in ["mesh_polynum", "mesh_polyadr", "mesh_polyvert", "mesh_polyvertadr", "mesh_polyvertnum",
              "mesh_polynormal", "mesh_polymap", "mesh_polymapadr", "mesh_polymapnum"]:
        f[k] = np.asarray(getattr(m, k)).tolist()
    return f


def run(name, xml, poser, nposes, scenes):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    poses = []
    for _ in range(nposes):
        poser(m, d)
        mujoco.mj_forward(m, d)
        poses.append(snapshot(m, d))
    ncon = [len(p["contacts"]) for p in poses]
    hist = np.bincount(ncon, minlength=5)
    print("%-28s poses %3d contacts %4d  by count %s" % (name, nposes, sum(ncon), hist.tolist()))
    f = model_fields(m)
    f.update(polys(m))
    scenes.append({"name": name, "xml": xml, "model": f, "poses": poses})


FLAT = (0.0, 0.0)
SMALL = (0.002, 0.08)    # below the ~5 degree face tolerance
LARGE = (0.1, 0.7)       # edges and vertices
PEN = (-0.004, 0.02)


def cylinder_scenes():
    """Cylinder pairs (multiccd_cylinder_cases.json): caps resting on faces (yawed, offset over
    edges and corners, tilted below and above the ~5 degree face tolerance), cylinders lying on
    their side, faces, edges and capsules on caps, cap on cap, random poses, margin."""
    global RNG
    RNG = np.random.default_rng(20261123)
    scenes = []
    lying = quat_axis([1, 0, 0], np.pi / 2)
    for a, over in [("box", 0.22), ("cube", 0.1), ("hexprism", 0.1)]:
        # offsets that put caps over the face's edges and corners
        name = a + "-cyl"
        run(name + "-flat", pair_xml(a, "cyl"), stacked(FLAT, PEN, offset=over), 40, scenes)
        run(name + "-tilt", pair_xml(a, "cyl"), stacked(SMALL, PEN, offset=over), 40, scenes)
        run(name + "-edge", pair_xml(a, "cyl"), stacked(LARGE, PEN, offset=0.1), 30, scenes)
        run(name + "-side", pair_xml(a, "cyl"), stacked(FLAT, PEN, offset=0.1, base_b=lying), 30, scenes)
        run(name + "-sidetilt", pair_xml(a, "cyl"), stacked(SMALL, PEN, offset=0.1, base_b=lying), 30, scenes)
        run(name + "-random", pair_xml(a, "cyl"), random_pair, 30, scenes)
    # a box and a box edge on a cap (the cylinder is geom 0 below)
    edge_down = quat_axis([1, 0, 0], np.pi / 4)
    run("cyl-box-under", pair_xml("cyl", "box"), stacked(FLAT, PEN, offset=0.15), 30, scenes)
    run("cyl-smallbox-flat", pair_xml("cyl", "smallbox"), stacked(FLAT, PEN, offset=0.05), 30, scenes)
    run("cyl-smallbox-edge", pair_xml("cyl", "smallbox"),
        stacked(FLAT, PEN, offset=0.04, base_b=edge_down), 30, scenes)
    # cylinder on cylinder: cap on cap, side on cap, cap on side
    run("cyl-smallcyl-flat", pair_xml("cyl", "smallcyl"), stacked(FLAT, PEN, offset=0.06), 30, scenes)
    run("cyl-smallcyl-tilt", pair_xml("cyl", "smallcyl"), stacked(SMALL, PEN, offset=0.06), 30, scenes)
    run("cyl-smallcyl-side", pair_xml("cyl", "smallcyl"),
        stacked(FLAT, PEN, offset=0.04, base_b=lying), 30, scenes)
    run("smallcyl-cyl-side", pair_xml("smallcyl", "cyl"),
        stacked(FLAT, PEN, offset=0.02, qa_fn=lambda: qmul(quat_axis([0, 0, 1], RNG.uniform(-np.pi, np.pi)),
                                                        lying)), 30, scenes)
    # a capsule lying on a cap (the capsule is geom 0: lower type)
    run("cyl-capsule-flat", pair_xml("cyl", "capsule"), stacked(FLAT, PEN, offset=0.04, base_b=lying), 30, scenes)
    run("cyl-capsule-tilt", pair_xml("cyl", "capsule"), stacked(SMALL, PEN, offset=0.04, base_b=lying), 30, scenes)
    # margin and gap, and the flag off
    run("box-cyl-margin", pair_xml("box", "cyl", 'margin="0.01"', 'margin="0.005" gap="0.01"'),
        stacked(SMALL, (-0.03, 0.01), offset=0.22), 30, scenes)
    off = '<option><flag multiccd="disable"/></option>'
    run("box-cyl-nomulti", pair_xml("box", "cyl", opt=off), stacked(SMALL, PEN), 20, scenes)
    return scenes


def write(scenes, file):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", file)
    with open(path, "w") as f:
        json.dump({"mujoco": mujoco.__version__, "scenes": scenes}, f, separators=(",", ":"))
    print("wrote", os.path.normpath(path), os.path.getsize(path) // 1024, "KiB")


def main():
    if "--cylinder" in sys.argv:
        write(cylinder_scenes(), "multiccd_cylinder_cases.json")
        return
    scenes = []
    pairs = [("box", "cube"), ("cube", "cube"), ("smallbox", "slab"), ("box", "hexprism"),
             ("octprism", "cube"), ("hexprism", "octprism"), ("box", "poly"), ("poly", "cube")]
    for a, b in pairs:
        name = a + "-" + b
        run(name + "-flat", pair_xml(a, b), stacked(FLAT, PEN), 40, scenes)
        run(name + "-tilt", pair_xml(a, b), stacked(SMALL, PEN), 40, scenes)
        run(name + "-edge", pair_xml(a, b), stacked(LARGE, PEN), 40, scenes)
        run(name + "-random", pair_xml(a, b), random_pair, 30, scenes)
    # capsules lying on mesh faces (the capsule is geom 0: lower type)
    lying = quat_axis([1, 0, 0], np.pi / 2)
    for a in ["cube", "hexprism", "poly"]:
        name = a + "-capsule"
        run(name + "-flat", pair_xml(a, "capsule"), stacked(FLAT, PEN, base_b=lying), 30, scenes)
        run(name + "-tilt", pair_xml(a, "capsule"), stacked(SMALL, PEN, base_b=lying), 30, scenes)
        run(name + "-edge", pair_xml(a, "capsule"), stacked(LARGE, PEN, base_b=lying), 30, scenes)
        run(name + "-random", pair_xml(a, "capsule"), random_pair, 30, scenes)
    # b below a (geom order by type: the box is geom 0 above the mesh)
    run("cube-box-under", pair_xml("cube", "box"), stacked(SMALL, PEN), 30, scenes)
    # edges: crossing (one contact) and near-parallel (edge on edge, a patch)
    for a, b in [("cube", "cube"), ("smallbox", "cube")]:
        run(a + "-" + b + "-cross", pair_xml(a, b), edges((0.2, 1.4), (0.001, 0.02)), 30, scenes)
        run(a + "-" + b + "-parallel", pair_xml(a, b), edges((-0.05, 0.05), (0.001, 0.02)), 30, scenes)
    # margin and gap: separated patches are listed up to margin + gap
    run("box-cube-margin", pair_xml("box", "cube", 'margin="0.01"', 'margin="0.005" gap="0.01"'),
        stacked(SMALL, (-0.03, 0.01)), 40, scenes)
    run("cube-cube-margin", pair_xml("cube", "cube", 'margin="0.02"'), stacked(FLAT, (-0.03, 0.01)), 30, scenes)
    # the flag off: one contact per pair
    off = '<option><flag multiccd="disable"/></option>'
    run("box-cube-nomulti", pair_xml("box", "cube", opt=off), stacked(SMALL, PEN), 30, scenes)
    run("cube-cube-nomulti", pair_xml("cube", "cube", opt=off), stacked(FLAT, PEN), 30, scenes)

    write(scenes, "multiccd_cases.json")


if __name__ == "__main__":
    main()
