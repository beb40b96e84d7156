#!/usr/bin/env python3
"""Reference cases for ray casting (mj_ray, API Reference "Ray collisions") and the rangefinder
sensor, from MuJoCo 4.0.0.

Writes tests/reference/ray_cases.json: the MJCF text of a scene with every geom type (plane,
sphere, capsule, ellipsoid, cylinder, box, mesh, height field) and rangefinder sites, a state
(qpos), sensordata after mj_forward, and random rays (point, direction, geomgroup or null,
flg_static, bodyexclude) with MuJoCo's distance and geom id; the compiled mesh data (mesh geom
pos / quat, mesh_vert) so the ray math can be checked apart from the mesh compiler.
Run from the repository root: python3 tools/reference/gen_ray_cases.py
"""
import json
import os

import mujoco
import numpy as np

XML = """
<mujoco>
<asset>
 <mesh name="tet" vertex="0 0 0  0.3 0 0  0 0.25 0  0.05 0.05 0.35  0.2 0.2 0.2"/>
 <hfield name="hf" nrow="4" ncol="5" size="0.5 0.4 0.3 0.1"
   elevation="0 0.2 0.4 0.1 0  0.3 0.5 0.9 0.6 0.2  0.1 0.4 1 0.7 0.3  0 0.1 0.2 0.3 0.1"/>
</asset>
<worldbody>
 <geom name="floor" type="plane" size="3 3 0.1" pos="0 0 -0.5" euler="4 -3 0" group="0"/>
 <geom name="hfield" type="hfield" hfield="hf" pos="1.5 1.5 0" euler="0 0 20" group="7"/>
 <body name="b1" pos="0 0 0.5" euler="10 20 30"><freejoint/>
  <geom name="sph" type="sphere" size="0.2" group="0"/>
  <geom name="cap" type="capsule" size="0.1 0.25" pos="0.5 0 0" euler="0 40 10" group="1"/>
  <site name="r1" pos="0 0 0.25" euler="180 0 0"/>
 </body>
 <body name="b2" pos="-0.8 0.3 0.2" euler="-20 5 60"><freejoint/>
  <geom name="ell" type="ellipsoid" size="0.3 0.15 0.2" group="2"/>
  <geom name="cyl" type="cylinder" size="0.15 0.3" pos="0 0.6 0" euler="30 0 0" group="3"/>
  <site name="r2" pos="0.1 0 0" euler="0 90 0"/>
 </body>
 <body name="b3" pos="0.3 -0.9 0.1" euler="15 -25 5"><freejoint/>
  <geom name="box" type="box" size="0.2 0.1 0.3" group="4"/>
  <geom name="mesh" type="mesh" mesh="tet" pos="0.5 0.1 0" euler="10 10 10" group="5"/>
  <site name="r3" pos="0 0 0" euler="0 -90 0"/>
  <site name="r4" pos="0.2 0 0" euler="0 0 0"/>
 </body>
</worldbody>
<sensor><rangefinder site="r1"/><rangefinder site="r2"/><rangefinder site="r3"/><rangefinder site="r4"/></sensor>
</mujoco>
"""


def fl(a):
    return [float(x) for x in np.asarray(a).ravel()]


def main():
    rng = np.random.default_rng(3)
    m = mujoco.MjModel.from_xml_string(XML)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    centers = [d.geom_xpos[g].copy() for g in range(m.ngeom)]
    rays = []
    gid = np.zeros(1, np.int32)
    for k in range(3000):
        # aim at a random geom center (plus noise) from a random point
        c = centers[rng.integers(m.ngeom)] + rng.normal(0, 0.2, 3)
        if k % 3 == 0:
            # start inside / near the geoms too
            p = c + rng.normal(0, 0.1, 3)
        else:
            p = rng.uniform(-2.5, 2.5, 3)
        v = (c - p) * rng.uniform(0.3, 3.0)
        if k % 7 == 0:
            v = rng.normal(0, 1, 3)
        group = None
        if k % 5 == 1:
            group = [bool(x) for x in rng.integers(0, 2, 6)]
        flg_static = int(k % 4 != 2)
        bodyexclude = int(rng.integers(-1, m.nbody)) if k % 6 == 3 else -1
        x = mujoco.mj_ray(m, d, p, v, None if group is None else np.array(group, np.uint8),
                          flg_static, bodyexclude, gid)
        rays.append(dict(pnt=fl(p), vec=fl(v), group=group, flg_static=flg_static,
                         bodyexclude=bodyexclude, dist=float(x), geomid=int(gid[0])))
    mg = [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH]
    out = dict(xml=XML, qpos=fl(d.qpos), sensordata=fl(d.sensordata), rays=rays,
               mesh_geom=mg, mesh_geom_pos=[fl(m.geom_pos[g]) for g in mg],
               mesh_geom_quat=[fl(m.geom_quat[g]) for g in mg],
               mesh_vert=[fl(m.mesh_vert[m.mesh_vertadr[i]:m.mesh_vertadr[i] + m.mesh_vertnum[i]])
                          for i in range(m.nmesh)])
    hits = sum(r["geomid"] >= 0 for r in rays)
    per = np.bincount([r["geomid"] for r in rays if r["geomid"] >= 0], minlength=m.ngeom)
    print("hits", hits, "of", len(rays), "per geom", per, "sensordata", d.sensordata)
    path = os.path.join("tests", "reference", "ray_cases.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("wrote", path)


if __name__ == "__main__":
    main()
