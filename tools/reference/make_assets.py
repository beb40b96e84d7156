#!/usr/bin/env python3
"""Write the small mesh assets used by models/zoo*.xml (deterministic, no dependencies).

models/assets/wedge.obj : a distorted, off-centre convex hexahedron (8 vertices, quads
                          split into triangles), vertices deliberately not centred on the
                          origin so that the compiler's mesh re-centring (mesh_pos /
                          mesh_quat) is exercised.
models/assets/prism.stl : a binary STL triangular prism (6 vertices, 8 triangles), also
                          off-centre and tilted.
models/assets/tetra.obj : an irregular tetrahedron (4 vertices, 4 faces), off-centre
                          (mesh_drop.xml).
models/assets/hexprism.obj : a hexagonal prism (12 vertices, 20 triangles; the hexagons are
                          fans) of radius 0.08 and height 0.1, centred (mesh_drop.xml).
Rerun: python3 tools/reference/make_assets.py   (from the repository root)
"""
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASSETS = os.path.join(ROOT, "models", "assets")


def write_obj(path):
    v = [
        (0.10, 0.00, 0.00), (0.32, 0.02, 0.01), (0.30, 0.15, 0.00), (0.08, 0.12, 0.02),
        (0.11, 0.01, 0.10), (0.28, 0.03, 0.14), (0.27, 0.14, 0.12), (0.09, 0.13, 0.09),
    ]
    # quads, outward-facing (counter-clockwise seen from outside)
    quads = [(1, 4, 3, 2), (5, 6, 7, 8), (1, 2, 6, 5), (2, 3, 7, 6), (3, 4, 8, 7), (4, 1, 5, 8)]
    with open(path, "w") as f:
        f.write("# moreau test mesh: distorted off-centre box\n")
        for p in v:
            f.write("v %.6f %.6f %.6f\n" % p)
        for a, b, c, d in quads:
            f.write("f %d %d %d\n" % (a, b, c))
            f.write("f %d %d %d\n" % (a, c, d))


def write_stl(path):
    import math
    # triangle cross-section in the xy plane, extruded along z, then shifted
    tri = [(0.0, 0.0), (0.2, 0.0), (0.05, 0.15)]
    z0, z1 = 0.0, 0.25
    off = (0.05, -0.02, 0.03)
    P = [(x + off[0], y + off[1], z0 + off[2]) for x, y in tri] + \
        [(x + off[0], y + off[1], z1 + off[2]) for x, y in tri]
    faces = [(0, 2, 1), (3, 4, 5),           # bottom, top
             (0, 1, 4), (0, 4, 3),           # sides
             (1, 2, 5), (1, 5, 4),
             (2, 0, 3), (2, 3, 5)]

    def normal(a, b, c):
        u = [b[i] - a[i] for i in range(3)]
        w = [c[i] - a[i] for i in range(3)]
        n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
        s = math.sqrt(sum(x * x for x in n))
        return tuple(x / s for x in n)

    with open(path, "wb") as f:
        f.write(b"moreau test mesh: triangular prism".ljust(80, b" "))
        f.write(struct.pack("<I", len(faces)))
        for a, b, c in faces:
            f.write(struct.pack("<3f", *normal(P[a], P[b], P[c])))
            for i in (a, b, c):
                f.write(struct.pack("<3f", *P[i]))
            f.write(struct.pack("<H", 0))


def write_tetra(path):
    v = [(0.02, 0.01, 0.0), (0.17, 0.03, 0.01), (0.07, 0.15, 0.0), (0.08, 0.06, 0.13)]
    faces = [(1, 3, 2), (1, 2, 4), (2, 3, 4), (3, 1, 4)]   # outward, 1-based
    with open(path, "w") as f:
        f.write("# moreau test mesh: irregular tetrahedron\n")
        for p in v:
            f.write("v %.6f %.6f %.6f\n" % p)
        for a, b, c in faces:
            f.write("f %d %d %d\n" % (a, b, c))


def write_hexprism(path):
    import math
    r, hz = 0.08, 0.05
    ring = [(r * math.cos(math.pi / 3 * k), r * math.sin(math.pi / 3 * k)) for k in range(6)]
    v = [(x, y, -hz) for x, y in ring] + [(x, y, hz) for x, y in ring]
    faces = []
    for k in range(1, 5):                      # bottom fan (normal -z) and top fan (+z)
        faces.append((1, k + 2, k + 1))
        faces.append((7, k + 7, k + 8))
    for k in range(6):                         # sides
        a, b = k + 1, (k + 1) % 6 + 1
        faces.append((a, b, b + 6))
        faces.append((a, b + 6, a + 6))
    with open(path, "w") as f:
        f.write("# moreau test mesh: hexagonal prism\n")
        for p in v:
            f.write("v %.6f %.6f %.6f\n" % p)
        for a, b, c in faces:
            f.write("f %d %d %d\n" % (a, b, c))


if __name__ == "__main__":
    os.makedirs(ASSETS, exist_ok=True)
    write_obj(os.path.join(ASSETS, "wedge.obj"))
    write_stl(os.path.join(ASSETS, "prism.stl"))
    write_tetra(os.path.join(ASSETS, "tetra.obj"))
    write_hexprism(os.path.join(ASSETS, "hexprism.obj"))
    print("wrote", ASSETS)
