#!/usr/bin/env python3
"""Collision oracle: small scenes posed randomly, contacts from MuJoCo 4.0.0.

Writes tests/reference/collision_cases.json, read by tests/engine/collision_oracle.rs. Each scene stores
the model fields collision needs; each pose stores geom/body poses and the resulting contacts.
Run: python3 tools/reference/gen_collision_cases.py
"""
import json
import os
import mujoco
import numpy as np

RNG = np.random.default_rng(20261121)

GEOMS = {
    "sphere": 'type="sphere" size="0.1"',
    "capsule": 'type="capsule" size="0.07 0.15"',
    "box": 'type="box" size="0.12 0.08 0.05"',
    "cylinder": 'type="cylinder" size="0.09 0.11"',
    "ellipsoid": 'type="ellipsoid" size="0.12 0.07 0.09"',
    "mesh": 'type="mesh" mesh="poly"',
    "cube": 'type="mesh" mesh="cube"',
    "hexprism": 'type="mesh" mesh="hexprism"',
    "octprism": 'type="mesh" mesh="octprism"',
}
# an irregular convex polytope and a cube mesh
POLY = np.array([[0.1, 0, 0], [-0.07, 0.08, 0.01], [-0.06, -0.09, 0.02], [0.01, 0.0, 0.12],
                 [0.0, 0.01, -0.1], [0.05, 0.06, 0.05], [-0.03, -0.02, -0.08]])
CUBE = np.array([[x, y, z] for x in (-0.08, 0.08) for y in (-0.08, 0.08) for z in (-0.08, 0.08)])


def prism(n, r, h, phase):
    """Right prism over a regular n-gon (hull polygons with more than 4 corners)."""
    a = np.radians(phase) + 2 * np.pi * np.arange(n) / n
    return np.array([[r * np.cos(t), r * np.sin(t), z] for z in (-h, h) for t in a])


HEXPRISM = prism(6, 0.08, 0.05, 10)
OCTPRISM = prism(8, 0.09, 0.04, 3)
ASSETS = ('<asset><mesh name="poly" vertex="%s"/><mesh name="cube" vertex="%s"/>'
          '<mesh name="hexprism" vertex="%s"/><mesh name="octprism" vertex="%s"/>'
          '<hfield name="hf" nrow="5" ncol="6" size="0.6 0.5 0.15 0.05" elevation="%s"/>'
          '<hfield name="flat" nrow="4" ncol="4" size="0.3 0.3 0.1 0.05" elevation="%s"/>'
          '<hfield name="cell" nrow="2" ncol="2" size="0.25 0.2 0.1 0.05" elevation="0.2 0.9 0.5 0"/>'
          '<hfield name="hills" nrow="7" ncol="7" size="0.4 0.4 0.08 0.04" elevation="%s"/></asset>') % (
    " ".join("%g" % v for v in POLY.ravel()), " ".join("%g" % v for v in CUBE.ravel()),
    " ".join("%.6f" % v for v in HEXPRISM.ravel()), " ".join("%.6f" % v for v in OCTPRISM.ravel()),
    " ".join("%.3f" % v for v in np.random.default_rng(7).uniform(0, 1, 30)),
    " ".join(["0.5"] * 16),
    " ".join("%.4f" % (0.5 + 0.25 * np.sin(2.1 * i) * np.cos(1.3 * j)) for i in range(7) for j in range(7)))


def rand_quat():
    q = RNG.normal(size=4)
    return q / np.linalg.norm(q)


def flat_quat():
    """Rotation about z only (resting poses: parallel faces, multi-contact)."""
    a = RNG.uniform(-np.pi, np.pi)
    return np.array([np.cos(a / 2), 0, 0, np.sin(a / 2)])


def model_fields(m):
    f = {}
    for k in ["ngeom", "nbody", "npair", "nexclude", "nmesh", "nhfield"]:
        f[k] = int(getattr(m, k))
    for k in ["geom_type", "geom_contype", "geom_conaffinity", "geom_condim", "geom_bodyid",
              "geom_dataid", "geom_priority", "geom_solmix", "geom_solref", "geom_solimp",
              "geom_size", "geom_rbound", "geom_aabb", "geom_friction", "geom_margin", "geom_gap",
              "body_parentid", "body_rootid", "body_weldid", "pair_dim", "pair_geom1", "pair_geom2",
              "pair_signature", "pair_solref", "pair_solreffriction", "pair_solimp", "pair_margin",
              "pair_gap", "pair_friction", "exclude_signature", "mesh_vertadr", "mesh_vertnum",
              "mesh_faceadr", "mesh_facenum", "mesh_vert", "mesh_face", "hfield_size",
              "hfield_nrow", "hfield_ncol", "hfield_adr", "hfield_data"]:
        f[k] = np.asarray(getattr(m, k)).tolist()
    o = m.opt
    f["opt"] = {"disableflags": int(o.disableflags), "enableflags": int(o.enableflags),
                "o_margin": o.o_margin, "o_solref": o.o_solref.tolist(),
                "o_solimp": o.o_solimp.tolist(), "o_friction": o.o_friction.tolist(),
                "ccd_tolerance": o.ccd_tolerance, "ccd_iterations": int(o.ccd_iterations),
                "impratio": o.impratio, "cone": int(o.cone)}
    return f


def contacts(d):
    out = []
    for c in d.contact[: d.ncon]:
        out.append({"geom": [int(c.geom[0]), int(c.geom[1])], "dist": float(c.dist),
                    "pos": c.pos.tolist(), "frame": c.frame.tolist(),
                    "includemargin": float(c.includemargin), "friction": c.friction.tolist(),
                    "solref": c.solref.tolist(), "solreffriction": c.solreffriction.tolist(),
                    "solimp": c.solimp.tolist(), "dim": int(c.dim), "mu": float(c.mu),
                    "exclude": int(c.exclude)})
    return out


def snapshot(m, d):
    return {"geom_xpos": d.geom_xpos.tolist(), "geom_xmat": d.geom_xmat.tolist(),
            "xpos": d.xpos.tolist(), "xmat": d.xmat.tolist(), "contacts": contacts(d)}


def run(name, xml, poser, nposes, scenes):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    poses = []
    for _ in range(nposes):
        poser(m, d)
        mujoco.mj_forward(m, d)
        poses.append(snapshot(m, d))
    ncon = [len(p["contacts"]) for p in poses]
    print("%-24s ngeom %2d poses %3d contacts %4d (max %d)" % (name, m.ngeom, nposes, sum(ncon), max(ncon)))
    scenes.append({"name": name, "xml": xml, "model": model_fields(m), "poses": poses})


def pair_xml(g1, g2, extra1="", extra2="", opt=""):
    return """<mujoco>%s%s<worldbody>
<body name="a"><freejoint/><geom %s %s/></body>
<body name="b"><freejoint/><geom %s %s/></body>
</worldbody></mujoco>""" % (opt, ASSETS, GEOMS[g1], extra1, GEOMS[g2], extra2)


def plane_xml(g, extra="", opt=""):
    return """<mujoco>%s%s<worldbody><geom type="plane" size="2 2 0.1" euler="5 -8 20" pos="0.01 0.02 -0.03"/>
<body name="b"><freejoint/><geom %s %s/></body>
</worldbody></mujoco>""" % (opt, ASSETS, GEOMS[g], extra)


def hfield_xml(g, extra="", opt="", hf="hf", frame='pos="0.05 -0.02 0" euler="0 0 15"'):
    return """<mujoco>%s%s<worldbody><geom type="hfield" hfield="%s" %s/>
<body name="b"><freejoint/><geom %s %s/></body>
</worldbody></mujoco>""" % (opt, ASSETS, hf, frame, GEOMS[g], extra)


def pose_pair(scale, flat_frac=0.0):
    def poser(m, d):
        d.qpos[:] = 0
        d.qpos[0:3] = RNG.uniform(-0.05, 0.05, 3)
        u = RNG.normal(size=3)
        u /= np.linalg.norm(u)
        flat = RNG.uniform() < flat_frac
        if flat:
            u = np.array([0, 0, 1.0]) + 0.05 * RNG.normal(size=3)
        d.qpos[7:10] = d.qpos[0:3] + u * scale * RNG.uniform(0.4, 1.15)
        d.qpos[3:7] = flat_quat() if flat else rand_quat()
        d.qpos[10:14] = flat_quat() if flat else rand_quat()
    return poser


def pose_single(zrange, flat_frac=0.0, xy=0.05):
    def poser(m, d):
        d.qpos[0:2] = RNG.uniform(-xy, xy, 2)
        d.qpos[2] = RNG.uniform(*zrange)
        d.qpos[3:7] = flat_quat() if RNG.uniform() < flat_frac else rand_quat()
    return poser


def main():
    scenes = []
    # --- plane vs everything (plane is tilted and offset)
    for g in ["sphere", "capsule", "box", "cylinder", "ellipsoid", "mesh", "cube"]:
        run("plane-" + g, plane_xml(g), pose_single((-0.2, 0.15), 0.3), 40, scenes)
    run("plane-sphere-margin", plane_xml("sphere", 'margin="0.03" gap="0.02"'), pose_single((0.0, 0.18)), 30, scenes)
    run("plane-box-margin", plane_xml("box", 'margin="0.02" gap="0.01"'), pose_single((-0.1, 0.18), 0.3), 30, scenes)
    # --- primitive and convex pairs
    kinds = ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "cube"]
    for i, g1 in enumerate(kinds):
        for g2 in kinds[i:]:
            run(g1 + "-" + g2, pair_xml(g1, g2), pose_pair(0.25, 0.2), 40, scenes)
    run("sphere-sphere-margin", pair_xml("sphere", "sphere", 'margin="0.02"', 'margin="0.01" gap="0.03"'),
        pose_pair(0.25), 30, scenes)
    run("capsule-box-margin", pair_xml("capsule", "box", 'margin="0.02"', 'gap="0.01"'), pose_pair(0.25), 30, scenes)
    run("box-box-margin", pair_xml("box", "box", 'margin="0.01"', 'margin="0.01" gap="0.01"'), pose_pair(0.25, 0.3), 30, scenes)
    # --- mixing: priority, solmix, friction, condim, solref formats
    run("mix-same-priority", pair_xml("sphere", "sphere",
        'condim="4" friction="0.7 0.02 0.001" solmix="2" solref="0.03 0.8" solimp="0.8 0.9 0.002 0.4 3"',
        'condim="6" friction="0.5 0.03 0.0005" solmix="0.5" solref="0.01 1.2" solimp="0.95 0.99 0.01 0.6 2"'),
        pose_pair(0.18), 6, scenes)
    run("mix-priority", pair_xml("sphere", "box",
        'priority="1" condim="1" friction="0.7 0.02 0.001" solref="0.03 0.8"',
        'condim="6" friction="0.5 0.03 0.0005" solref="0.01 1.2"'), pose_pair(0.2), 6, scenes)
    run("mix-direct-solref", pair_xml("sphere", "sphere", 'solref="-1000 -20" solmix="0"',
        'solref="0.01 1.2" solmix="0"'), pose_pair(0.18), 6, scenes)
    run("mix-solmix-one-zero", pair_xml("sphere", "sphere", 'solref="0.05 2" solmix="0"',
        'solref="0.01 1.2" solmix="3" solimp="0.5 0.6 0.1 0.5 2"'), pose_pair(0.18), 6, scenes)
    run("override", pair_xml("sphere", "box", 'margin="0.05"', 'condim="4"',
        opt='<option o_margin="0.01" o_solref="0.05 0.7" o_solimp="0.8 0.85 0.01 0.3 3" o_friction="0.3 0.4 0.01 0.002 0.003"><flag override="enable"/></option>'),
        pose_pair(0.2), 10, scenes)
    # --- filters and explicit pairs
    filt = """<mujoco>%s<worldbody>
<geom name="floor" type="plane" size="3 3 0.1"/>
<body name="b1" pos="0 0 0.1"><freejoint/><geom name="g1" type="sphere" size="0.1"/>
  <body name="b2" pos="0.15 0 0"><joint type="hinge" axis="0 1 0"/><geom name="g2" type="sphere" size="0.1"/>
    <body name="b3" pos="0.15 0 0"><geom name="g3" type="box" size="0.1 0.1 0.1"/></body>
    <body name="b4" pos="0 0.15 0"><joint type="hinge"/><geom name="g4" type="capsule" size="0.05 0.1"/></body>
  </body>
</body>
<body name="c1" pos="0.1 0.1 0.1"><freejoint/><geom name="h1" type="sphere" size="0.1" contype="2" conaffinity="2"/>
  <geom name="h2" type="box" size="0.05 0.05 0.05" pos="0.1 0 0" contype="1" conaffinity="0"/></body>
<body name="c2" pos="0.1 -0.1 0.1"><freejoint/><geom name="k1" type="sphere" size="0.1" contype="0" conaffinity="2"/>
  <geom name="k2" type="capsule" size="0.05 0.1" pos="0 0.1 0" condim="1"/></body>
<body name="c3" pos="-0.1 0.1 0.1"><freejoint/><geom name="m1" type="sphere" size="0.08" contype="0" conaffinity="0"/></body>
</worldbody>
<contact><exclude body1="c2" body2="b1"/>
<pair geom1="m1" geom2="g2" condim="4" friction="0.2 0.3 0.01 0.002 0.003" solref="0.04 0.9" solreffriction="0.05 1.1" solimp="0.8 0.9 0.01 0.4 3" margin="0.02" gap="0.01"/>
<pair geom1="g3" geom2="floor"/>
<pair geom1="g4" geom2="g1" condim="1"/>
</contact></mujoco>"""

    def pose_cluster(m, d):
        mujoco.mj_resetData(m, d)
        d.qpos[:] += RNG.normal(scale=0.06, size=m.nq)
        for j in range(m.njnt):
            if m.jnt_type[j] == 0:
                a = m.jnt_qposadr[j]
                d.qpos[a + 3:a + 7] = rand_quat()
    run("filters", filt % "", pose_cluster, 30, scenes)
    run("filters-noparent", filt % '<option><flag filterparent="disable"/></option>', pose_cluster, 20, scenes)
    run("filters-contact-off", filt % '<option><flag contact="disable"/></option>', pose_cluster, 3, scenes)
    run("filters-constraint-off", filt % '<option><flag constraint="disable"/></option>', pose_cluster, 3, scenes)
    # --- many bodies (broad phase)
    many = ['<mujoco>%s<worldbody><geom type="plane" size="3 3 0.1"/>' % ASSETS]
    kinds_many = ["sphere", "capsule", "box", "sphere", "capsule", "box", "sphere", "ellipsoid", "cylinder"]
    for i in range(40):
        many.append('<body pos="%g %g %g"><freejoint/><geom %s/></body>' % (
            (i % 7) * 0.2 - 0.6, (i // 7) * 0.2 - 0.6, 0.3, GEOMS[kinds_many[i % len(kinds_many)]]))
    many.append("</worldbody></mujoco>")

    def pose_many(m, d):
        mujoco.mj_resetData(m, d)
        for b in range(40):
            a = 7 * b
            d.qpos[a:a + 2] += RNG.normal(scale=0.03, size=2)
            d.qpos[a + 2] = RNG.uniform(-0.02, 0.5)
            d.qpos[a + 3:a + 7] = rand_quat()
    run("many", "".join(many), pose_many, 6, scenes)
    # --- height field vs primitives and convex
    for g in ["sphere", "capsule", "box", "cylinder", "ellipsoid", "mesh"]:
        run("hfield-" + g, hfield_xml(g), pose_single((0.0, 0.25), 0.3, xy=0.4), 30, scenes)
    # --- plane vs meshes with hull polygons of 6 and 8 corners (MuJoCo 4.0.0 reduces the
    # polygon at the support vertex to its largest-area quadrilateral), and with margins
    for g in ["hexprism", "octprism"]:
        run("plane-" + g, plane_xml(g), pose_single((-0.12, 0.12), 0.5), 40, scenes)
        run("plane-" + g + "-flat", plane_xml(g), pose_single((0.0, 0.1), 1.0), 30, scenes)
    run("plane-cube-margin", plane_xml("cube", 'margin="0.03" gap="0.01"'), pose_single((-0.1, 0.2), 0.3), 30, scenes)
    run("plane-hexprism-margin", plane_xml("hexprism", 'margin="0.04"'), pose_single((-0.05, 0.15), 0.5), 30, scenes)
    # --- height field vs box and mesh with the native CCD disabled (libccd MPR): MuJoCo's
    # native EPA on height-field prisms does not return the minimal penetration (see
    # src/collision/hfield.rs), MPR does on these poses
    for g in ["box", "mesh"]:
        run("hfield-" + g + "-mpr", hfield_xml(g, opt='<option><flag nativeccd="disable"/></option>'),
            pose_single((0.0, 0.25), 0.3, xy=0.4), 30, scenes)

    # --- height fields against boxes and meshes (MuJoCo's native CCD, see
    # src/collision/hfield.rs): a flat field (faces parallel to the cell's triangles, poses over
    # cell edges and diagonals), a single cell of two prisms, a tilted smooth terrain, resting
    # feet (rotations about z only)
    for g in ["box", "mesh", "cube", "cylinder"]:
        run("hfield-flat-" + g, hfield_xml(g, hf="flat", frame='pos="0 0 -0.05"'),
            pose_single((-0.05, 0.12), 0.5, xy=0.3), 30, scenes)
    for g in ["box", "mesh"]:
        run("hfield-cell-" + g, hfield_xml(g, hf="cell", frame='pos="0.02 0.01 -0.03" euler="0 0 -20"'),
            pose_single((-0.02, 0.15), 0.3, xy=0.2), 30, scenes)
        run("hfield-hills-" + g, hfield_xml(g, hf="hills", frame='pos="0 0.03 -0.06" euler="12 -8 30"'),
            pose_single((-0.04, 0.12), 0.3, xy=0.35), 30, scenes)
        run("hfield-rest-" + g, hfield_xml(g, hf="hills", frame='pos="0 0 -0.07"'),
            pose_single((0.0, 0.1), 1.0, xy=0.35), 30, scenes)

    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "reference", "collision_cases.json")
    with open(path, "w") as f:
        json.dump({"mujoco": mujoco.__version__, "scenes": scenes}, f, separators=(",", ":"))
    print("wrote", os.path.normpath(path), os.path.getsize(path) // 1024, "KiB")


if __name__ == "__main__":
    main()
