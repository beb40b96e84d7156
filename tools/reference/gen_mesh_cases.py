#!/usr/bin/env python3
"""Mesh compilation cases: MuJoCo 4.0.0's processed meshes, hulls and polygons.

Run: python3 tools/reference/gen_mesh_cases.py   (needs mujoco==4.0.0 and numpy)
Writes tests/reference/mesh_cases.json, read by tests/engine/mesh_compile.rs. Each case is an MJCF
string plus the mesh files it reads (STL/OBJ bytes, base64), and either MuJoCo's error or, per
mesh: the processed float32 vertices and faces, `mesh_pos`, `mesh_quat`, the convex-hull graph
(`mesh_graph`, Qhull's vertex and facet order), the polygons (`mesh_polyvert` in MuJoCo's
order and starting corners) and `mesh_polynormal`; per body and geom the mass properties and
sizes that the meshes decide.

The cases cover: hulls of random point clouds (no faces given), boxes and prisms (coplanar
triangles merged into polygons), a box with interior points, the `legacy` / `exact` /
`convex` / `shell` inertias of a non-convex and of an open mesh (an open mesh with an explicit
`<inertial>` is accepted, as MuJoCo does), `refpos` / `refquat` / `scale` (negative scale
included), binary STL with welded corners, OBJ with quads and a second object (only the first
object's faces are used), meshes without collision (no hull) and meshes named in a `<pair>`
(hull), and degenerate point sets that MuJoCo refuses.
"""
import base64
import io
import json
import os
import struct

import mujoco
import numpy as np

RNG = np.random.default_rng(11)
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "mesh_cases.json")


def fmt(a):
    return " ".join(repr(float(x)) for x in np.asarray(a, float).ravel())


def stl_bytes(tris):
    """Binary STL of triangles (n, 3, 3)."""
    buf = io.BytesIO()
    buf.write(b"\0" * 80)
    buf.write(struct.pack("<I", len(tris)))
    for t in tris:
        buf.write(struct.pack("<3f", 0, 0, 0))
        for v in t:
            buf.write(struct.pack("<3f", *v))
        buf.write(b"\0\0")
    return buf.getvalue()


def body(geom, extra=""):
    return f"<body><freejoint/>{extra}{geom}</body>"


def model(assets, bodies, contact=""):
    return (f"<mujoco><asset>{assets}</asset><worldbody>"
            f"<geom name=\"floor\" type=\"plane\" size=\"5 5 .1\"/>{bodies}</worldbody>"
            f"{contact}</mujoco>")


cases = []


def add(name, xml, files=None):
    cases.append({"name": name, "xml": xml, "files": files or {}})


# hulls of random point clouds: Qhull's vertex and facet order, polygons of single triangles
for seed, n in [(0, 8), (1, 8), (2, 12), (3, 20), (4, 50), (5, 200)]:
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(n, 3)) * [0.1, 0.07, 0.05]
    add(f"cloud-{seed}-{n}",
        model(f'<mesh name="m" vertex="{fmt(pts)}"/>', body('<geom type="mesh" mesh="m"/>')))

# boxes and prisms: coplanar hull triangles merge into polygons
box = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * [.1, .2, .3]
inner = RNG.uniform(-0.05, 0.05, (3, 3))
add("box-interior", model(f'<mesh name="m" vertex="{fmt(np.vstack([box, inner]))}"/>',
                          body('<geom type="mesh" mesh="m"/>')))
for n in (5, 6, 8, 16):
    t = 2 * np.pi * np.arange(n) / n + 0.1
    ring = np.stack([0.1 * np.cos(t), 0.08 * np.sin(t)], 1)
    pts = np.vstack([np.c_[ring, -0.05 * np.ones(n)], np.c_[ring, 0.05 * np.ones(n)]])
    add(f"prism-{n}", model(f'<mesh name="m" vertex="{fmt(pts)}"/>',
                            body('<geom type="mesh" mesh="m"/>')))
# a rotated prism: the normal buckets are taken in the file's frame
add("prism-refquat", model(
    f'<mesh name="m" vertex="{fmt(pts)}" refquat="0.9 0.2 -0.3 0.1" refpos="0.01 0.02 -0.03"/>',
    body('<geom type="mesh" mesh="m"/>')))

# non-convex closed mesh (an L-shaped block, as faces) under every inertia mode
L = np.array([[0, 0, 0], [2, 0, 0], [2, 1, 0], [1, 1, 0], [1, 3, 0], [0, 3, 0]], float) * 0.05
Lv = np.vstack([L, L + [0, 0, 0.04]])
# the L is counter-clockwise about +z: bottom cap reversed, top cap as is, sides outward
fan = [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]
Lf = ([[a, c, b] for a, b, c in fan] + [[a + 6, b + 6, c + 6] for a, b, c in fan]
      + [t for i in range(6) for t in ([i, (i + 1) % 6, (i + 1) % 6 + 6],
                                       [i, (i + 1) % 6 + 6, i + 6])])
for mode in ("legacy", "exact", "convex", "shell"):
    add(f"lshape-{mode}", model(
        f'<mesh name="m" vertex="{fmt(Lv)}" face="{" ".join(str(i) for f in Lf for i in f)}" '
        f'inertia="{mode}"/>', body('<geom type="mesh" mesh="m"/>')))
# an open box (no lid): exact volume is refused, legacy is accepted; with an explicit inertial
# and no collision the mesh is visual only
bv = box
bfaces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
          [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4]]  # the +x face is missing
add("openbox-legacy-visual", model(
    f'<mesh name="m" vertex="{fmt(bv)}" face="{" ".join(str(i) for f in bfaces for i in f)}"/>',
    body('<geom type="mesh" mesh="m" contype="0" conaffinity="0"/>',
         '<inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>')))
add("openbox-exact", model(
    f'<mesh name="m" vertex="{fmt(bv)}" face="{" ".join(str(i) for f in bfaces for i in f)}" '
    f'inertia="exact"/>', body('<geom type="mesh" mesh="m"/>')))

# refpos / refquat / scale, negative scale (faces flipped, polygons kept)
pts = RNG.normal(size=(30, 3)) * [0.1, 0.05, 0.08]
for k, (scale, refpos, refquat) in enumerate([
        ("2 1 0.5", "0.1 0 0", "1 0 0 0"),
        ("1 1 1", "0.02 -0.01 0.03", "0.7 0.1 0.6 -0.2"),
        ("1.5 -1 1", "0 0 0", "1 0 0 0"),
        ("-1 -1 -1", "0.01 0.02 0.03", "0.5 0.5 0.5 0.5")]):
    add(f"transform-{k}", model(
        f'<mesh name="m" vertex="{fmt(pts)}" scale="{scale}" refpos="{refpos}" '
        f'refquat="{refquat}"/>', body('<geom type="mesh" mesh="m"/>')))

# binary STL with shared corners (welded into vertices in order of first appearance)
ico_t = (1 + 5 ** 0.5) / 2
ico = np.array([[-1, ico_t, 0], [1, ico_t, 0], [-1, -ico_t, 0], [1, -ico_t, 0],
                [0, -1, ico_t], [0, 1, ico_t], [0, -1, -ico_t], [0, 1, -ico_t],
                [ico_t, 0, -1], [ico_t, 0, 1], [-ico_t, 0, -1], [-ico_t, 0, 1]]) * [0.05, 0.06, 0.07]
icof = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
        [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
        [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
add("stl-icosahedron", model('<mesh name="m" file="ico.stl"/>',
                             body('<geom type="mesh" mesh="m"/>')),
    {"ico.stl": stl_bytes(ico[np.array(icof)])})

# OBJ: quads split on the shorter diagonal, a pentagon as a fan, a second object ignored
obj = """# test
o first
v 0 0 0
v 0.1 0 0
v 0.12 0.1 0
v 0 0.1 0
v 0.05 0.05 0.1
f 1 2 3 4
f 1 2 5
f 2 3 5
f 3 4 5
f 4 1 5
o second
v 0.5 0.5 0.5
f 1 2 6
"""
add("obj-quads-objects", model('<mesh name="m" file="q.obj"/>',
                               body('<geom type="mesh" mesh="m"/>')),
    {"q.obj": obj.encode()})

# hull only when a collision needs it: no collision, collision, explicit pair
cloud = RNG.normal(size=(40, 3)) * 0.05
assets = f'<mesh name="a" vertex="{fmt(cloud)}"/><mesh name="b" vertex="{fmt(cloud * 1.3)}"/>'
add("needhull", model(assets,
                      body('<geom name="ga" type="mesh" mesh="a" contype="0" conaffinity="0"/>') +
                      body('<geom name="gb" type="mesh" mesh="b" contype="0" conaffinity="0"/>'),
                      '<contact><pair geom1="floor" geom2="gb"/></contact>'))

# degenerate point sets MuJoCo refuses
flat = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0.5, 0.2, 0]]) * 0.1
add("flat", model(f'<mesh name="m" vertex="{fmt(flat)}"/>', body('<geom type="mesh" mesh="m"/>')))
line = np.array([[i, 0, 0] for i in range(5)], float) * 0.1
add("line", model(f'<mesh name="m" vertex="{fmt(line)}"/>', body('<geom type="mesh" mesh="m"/>')))


def run(case):
    assets = {k: v for k, v in case["files"].items()}
    try:
        m = mujoco.MjModel.from_xml_string(case["xml"], assets)
    except Exception as e:  # MuJoCo's refusal is the expected outcome
        return {"error": str(e).splitlines()[0]}
    meshes = []
    for i in range(m.nmesh):
        va, vn = m.mesh_vertadr[i], m.mesh_vertnum[i]
        fa, fn = m.mesh_faceadr[i], m.mesh_facenum[i]
        ga = m.mesh_graphadr[i]
        graph = []
        if ga >= 0:
            nv, nf = m.mesh_graph[ga], m.mesh_graph[ga + 1]
            graph = m.mesh_graph[ga:ga + 2 + 3 * nv + 6 * nf].tolist()
        pa, pn = m.mesh_polyadr[i], m.mesh_polynum[i]
        polys = [m.mesh_polyvert[m.mesh_polyvertadr[pa + k]:
                                 m.mesh_polyvertadr[pa + k] + m.mesh_polyvertnum[pa + k]].tolist()
                 for k in range(pn)]
        meshes.append({
            "vert": m.mesh_vert[va:va + vn].astype(float).tolist(),
            "face": m.mesh_face[fa:fa + fn].tolist(),
            "pos": m.mesh_pos[i].tolist(), "quat": m.mesh_quat[i].tolist(),
            "graph": graph, "polyvert": polys,
            "polynormal": m.mesh_polynormal[pa:pa + pn].tolist(),
        })
    return {
        "mesh": meshes,
        "body_mass": m.body_mass.tolist(), "body_inertia": m.body_inertia.tolist(),
        "body_ipos": m.body_ipos.tolist(), "body_iquat": m.body_iquat.tolist(),
        "geom_size": m.geom_size.tolist(), "geom_rbound": m.geom_rbound.tolist(),
        "geom_pos": m.geom_pos.tolist(), "geom_quat": m.geom_quat.tolist(),
    }


out = []
for c in cases:
    r = run(c)
    out.append({"name": c["name"], "xml": c["xml"],
                "files": {k: base64.b64encode(v).decode() for k, v in c["files"].items()},
                **r})
    what = r.get("error") or f"{len(r['mesh'])} mesh, {sum(len(x['polyvert']) for x in r['mesh'])} polygons"
    print(f"{c['name']:26s} {what}")
with open(OUT, "w") as f:
    json.dump({"mujoco": mujoco.__version__, "cases": out}, f)
print("wrote", os.path.normpath(OUT), os.path.getsize(OUT), "bytes")
