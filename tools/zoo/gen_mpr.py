#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference contacts for the MPR collider that `<flag nativeccd="disable"/>`
selects (dm_control's kinova `jaco_arm.xml`, `duplo2x4.xml`): two free geoms of each type pair
that moreau routes to MPR (src/collision/mpr.rs; with a cylinder: the cylinder's radial normal
or none near a cap), mesh pairs also with margins, at seeded random overlapping
poses (poses where MuJoCo's own contacts move under a 1e-13 change of qpos are drawn again);
mesh pairs also with `multiccd` (its perturbed extra contacts), half of them nearly face
to face. Then poses with both centres in the plane x = 0 and both geoms turned about the x
axis only (SYMMETRIC), as dm_control's Kinova arm rests at its qpos0: a search direction there
lies exactly in that plane or along x, so a box's, capsule's or cylinder's direction component
is exactly zero (MuJoCo takes the middle: a face centre, mid-height) and mesh vertices tie
exactly (a mesh of 10 vertices or more takes the vertex where the ascent on its hull graph,
warm-started at the search's previous support vertex, stops); these are kept if MuJoCo's
contacts stay within 1e-10 under four 1e-13 moves that keep that symmetry. Writes
tests/reference/zoo_mpr.json, read by tests/engine/zoo_regressions.rs
`mpr_contacts_are_mujocos`.

    python3 tools/zoo/gen_mpr.py
"""
import json
import os

import numpy as np
import mujoco

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# an irregular 9-vertex hull and a cube
HULL = "-1 -.8 -.9  1.1 -1 -.7  -.9 1 -1  1 .9 -.8  -1 -1.1 1  .8 -1 1.1  -1.1 .9 .8  1 1 1  .2 .1 1.4"
CUBE = "-1 -1 -1 1 -1 -1 -1 1 -1 1 1 -1 -1 -1 1 1 -1 1 -1 1 1 1 1 1"
GEOMS = {
    "sphere": 'type="sphere" size=".07"',
    "capsule": 'type="capsule" size=".04 .08"',
    "cylinder": 'type="cylinder" size=".06 .07"',
    "box": 'type="box" size=".08 .06 .05"',
    "hull": 'type="mesh" mesh="hull"',
    "cube": 'type="mesh" mesh="cube"',
    "prism": 'type="mesh" mesh="prism"',
}
# regular prisms whose support is found on their hull graphs: a 12-gon (24 vertices), a 10-gon
# stretched across (20 vertices, exact ties between its vertices at most of these poses) and a
# 5-gon with the top turned by 0.3 rad (10 vertices, the fewest that take the graph)
PRISMS = {"prism": (12, 0.0, ".06 .06 .05"), "prism10": (10, 0.0, ".06 .05 .055"),
          "prism5": (5, 0.3, ".07 .07 .05")}
# (geom 0, geom 1, multiccd[, geom margins]): the pairs moreau routes to MPR (src/collision/mpr.rs `routed`)
PAIRS = [("hull", "hull", False), ("hull", "cube", False), ("cube", "cube", False),
         ("sphere", "hull", False), ("capsule", "hull", False), ("capsule", "cube", False),
         ("hull", "hull", True), ("hull", "cube", True), ("cube", "cube", True),
         ("sphere", "hull", True), ("capsule", "hull", True), ("capsule", "cube", True),
         ("hull", "cube", False, (0.01, 0.004)), ("hull", "hull", True, (0.01, 0.004)),
         ("cube", "cube", True, (0.006, 0.006)),
         ("cylinder", "hull", False), ("cylinder", "cube", False), ("cylinder", "box", False),
         ("capsule", "cylinder", False), ("cylinder", "cylinder", False),
         ("cylinder", "hull", True), ("cylinder", "box", True), ("capsule", "cylinder", True),
         ("cylinder", "cylinder", True),
         ("box", "hull", False), ("box", "cube", False), ("box", "hull", True)]


# (geom 0, geom 1, multiccd, prism): SYMMETRIC poses; "prism" stands for PRISMS[prism]
SYMMETRIC = [("cylinder", "cylinder", False, None), ("cylinder", "box", False, None),
             ("capsule", "cylinder", False, None), ("box", "cube", False, None),
             ("cylinder", "cylinder", True, None), ("prism", "prism", False, "prism"),
             ("prism", "prism", False, "prism5"),
             ("prism", "prism", False, "prism10"), ("capsule", "prism", False, "prism"),
             ("cylinder", "prism", False, "prism"), ("box", "prism", False, "prism"),
             ("prism", "prism", True, "prism")]


def prism(k, twist):
    """Vertices of a k-gon prism of unit radius and half-height, its top turned by twist."""
    v = []
    for z in (-1.0, 1.0):
        for i in range(k):
            a = 2 * np.pi * i / k + (twist if z > 0 else 0.0)
            v += [np.cos(a), np.sin(a), z]
    return " ".join("%.6g" % x for x in v)


def xml(g1, g2, multi, margins=(0.0, 0.0), which=None):
    extra = ""
    if which:
        k, twist, scale = PRISMS[which]
        extra = '\n    <mesh name="prism" vertex="%s" scale="%s"/>' % (prism(k, twist), scale)
    return """<mujoco>
  <option gravity="0 0 0"><flag nativeccd="disable" multiccd="%s"/></option>
  <asset>
    <mesh name="hull" vertex="%s" scale=".06 .05 .055"/>
    <mesh name="cube" vertex="%s" scale=".06 .06 .06"/>%s
  </asset>
  <worldbody>
    <body><freejoint/><geom %s margin="%g"/></body>
    <body pos=".2 0 0"><freejoint/><geom %s margin="%g"/></body>
  </worldbody>
</mujoco>""" % ("enable" if multi else "disable", HULL, CUBE, extra, GEOMS[g1], margins[0],
                 GEOMS[g2], margins[1])


def record(d):
    return {
        "qpos": d.qpos.tolist(), "ncon": int(d.ncon),
        "contact_dist": d.contact.dist[: d.ncon].tolist(),
        "contact_pos": d.contact.pos[: d.ncon].tolist(),
        "contact_frame": d.contact.frame[: d.ncon].tolist(),
    }


def symmetric_move(q, rng, scale):
    """q with each body's y, z and its angle about x moved by about scale (x stays 0)."""
    q = q.copy()
    for b in range(2):
        q[7 * b + 1: 7 * b + 3] += rng.normal(size=2) * scale
        a = 2 * np.arctan2(q[7 * b + 4], q[7 * b + 3]) + rng.normal() * scale
        q[7 * b + 3: 7 * b + 7] = [np.cos(a / 2), np.sin(a / 2), 0.0, 0.0]
    return q


def steady(m, d, q, rec, rng, move=None):
    """True if MuJoCo's contacts stay within 1e-10 under four 1e-13 moves of qpos (move(q, rng,
    scale); default: every entry): MPR's choices of portal can tie in round-off, and then
    MuJoCo's own contact jumps (a pose with such a tie is drawn again)."""
    ok = True
    for _ in range(4):
        if move:
            d.qpos[:] = move(q, rng, 1e-13)
        else:
            d.qpos[:] = q + rng.normal(size=m.nq) * 1e-13
        mujoco.mj_forward(m, d)
        other = record(d)
        if other["ncon"] != rec["ncon"]:
            ok = False
            break
        for key in ("contact_dist", "contact_pos", "contact_frame"):
            if np.max(np.abs(np.array(other[key]) - np.array(rec[key])), initial=0.0) > 1e-10:
                ok = False
    d.qpos[:] = q
    mujoco.mj_forward(m, d)
    return ok


def main():
    rng = np.random.default_rng(19)
    cases = []
    for g1, g2, multi, *margins in PAIRS:
        margins = margins[0] if margins else (0.0, 0.0)
        text = xml(g1, g2, multi, margins)
        m = mujoco.MjModel.from_xml_string(text)
        d = mujoco.MjData(m)
        poses = []
        while len(poses) < 12:
            q = np.zeros(m.nq)
            flat = multi and len(poses) % 2 == 0
            for b in range(2):
                q[7 * b: 7 * b + 3] = rng.uniform(-0.06, 0.06, 3)
                quat = rng.normal(size=4)
                if flat:
                    # nearly face to face (a capsule lying on its side), one above the other:
                    # several contacts
                    lying = b == 0 and g1 == "capsule"
                    base = np.array([1.0, 1.0, 0, 0]) / np.sqrt(2) if lying else np.array([1.0, 0, 0, 0])
                    noise = 0.02 if len(poses) % 4 else 0.002
                    quat = base + rng.normal(size=4) * noise
                    q[7 * b + 2] = (0.09 if g1 == "capsule" else 0.1) * b
                q[7 * b + 3: 7 * b + 7] = quat / np.linalg.norm(quat)
            d.qpos[:] = q
            mujoco.mj_forward(m, d)
            # mostly overlapping poses, a few apart
            if d.ncon == 0 and sum(p["ncon"] == 0 for p in poses) >= 2:
                continue
            rec = record(d)
            if not steady(m, d, q, rec, rng):
                continue
            poses.append(rec)
        name = "%s-%s%s%s" % (g1, g2, " multiccd" if multi else "",
                              " margins %g %g" % margins if margins[0] else "")
        cases.append({"pair": name, "xml": text,
                      "poses": poses})
    rng = np.random.default_rng(7)
    for g1, g2, multi, which in SYMMETRIC:
        text = xml(g1, g2, multi, which=which)
        m = mujoco.MjModel.from_xml_string(text)
        d = mujoco.MjData(m)
        poses = []
        while len(poses) < 8:
            q = np.zeros(m.nq)
            for b in range(2):
                q[7 * b + 1: 7 * b + 3] = rng.uniform(-0.06, 0.06, 2)
                a = rng.uniform(-np.pi, np.pi)
                q[7 * b + 3: 7 * b + 7] = [np.cos(a / 2), np.sin(a / 2), 0.0, 0.0]
            d.qpos[:] = q
            mujoco.mj_forward(m, d)
            if d.ncon == 0:
                continue
            rec = record(d)
            if not steady(m, d, q, rec, rng, symmetric_move):
                continue
            poses.append(rec)
        name = "%s-%s%s symmetric%s" % (g1, g2, " multiccd" if multi else "",
                                        " " + which if which else "")
        cases.append({"pair": name, "xml": text, "poses": poses})
    out = {"mujoco_version": mujoco.__version__, "generator": "tools/zoo/gen_mpr.py",
           "cases": cases}
    path = os.path.join(ROOT, "tests", "reference", "zoo_mpr.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(path, sum(len(c["poses"]) for c in cases), "poses")


if __name__ == "__main__":
    main()
