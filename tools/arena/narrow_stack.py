#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for its fatal stack overflow in the broad phase's body-pair
output and the narrow phase (mj_broadphase line 1894, mj_narrowphase lines 2424 and 2455).

Writes tests/reference/arena_narrow_stack.json: models (stored whole, with `MEMORY` where
`<size memory>` goes) of spheres that touch, and for each the `<size memory>` values at which
each of the collision stage's stack requests starts to fit and one byte below (found by walking
up from the least memory the compiler takes, each overflow's shortfall at a time, until two
steps run), with the outcome of two mj_step calls: "ok", or the site, line, max, available and
requested bytes, narena, nefc and ncon of MuJoCo's "mj_stackAlloc: out of memory" (raised as
mujoco.FatalError) with its whole message, and the time after it.

The models:
- `concentric`: n hinge spheres around one point (every pair a candidate), n = 7, 12, 20, 30;
- `padded`: 40 concentric spheres beside 60 bodies without geoms, whose body-pair list leaves
  the arena room for fewer candidates than there are (MuJoCo then copies only those);
- `excluded`: 20 concentric spheres with 7 body pairs in `<exclude>` (the sweep keeps them,
  the narrow phase takes none of their geom pairs);
- `line`: spheres of random radius, joint (free, ball, hinge, none) and masks at random
  spacing on one line, some with a margin, some with a plane or a sphere on the world: which
  of their boxes meet does not depend on the sweep's frame;
- `pile`: random 3-D piles of spheres, where a body pair whose boxes meet within about 10^-3
  of the edge may be counted differently (see the test).

Rerun:  python3 tools/arena/narrow_stack.py
"""
import json
import os

import mujoco
import numpy as np
# the script's folder is on the path: its neighbour's oracle calls
from step_stack import compiles, outcome as step_outcome

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HINGE = '<joint axis="0 1 0"/>'
JOINTS = ["<freejoint/>", HINGE, "", '<joint type="ball"/>']


def concentric(n, pad=0, exclude=0):
    b = "".join(f'<body name="b{i}" pos="0 0 {0.001 * i:.3f}">{HINGE}<geom size=".1"/></body>'
                for i in range(n))
    b += "".join(f'<body pos="{i} 5 5"/>' for i in range(pad))
    # `exclude` body pairs (b0, b1), (b0, b2), ...: kept by the sweep, not candidates
    e = "".join(f'<exclude body1="b0" body2="b{i + 1}"/>' for i in range(exclude))
    e = f"<contact>{e}</contact>" if e else ""
    return f'<mujoco><size memory="MEMORY"/>{e}<worldbody>{b}</worldbody></mujoco>'


def random_model(rng, n, spread, line, world):
    parts = []
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    for _ in range(n):
        p = direction * rng.uniform(-spread, spread) if line else rng.uniform(-spread, spread, 3)
        r = rng.uniform(.02, .15)
        j = JOINTS[rng.integers(0, 4)]
        extra = ""
        if rng.random() < .1:
            extra = 'contype="2" conaffinity="2"'
        if rng.random() < .1:
            extra += f' margin="{rng.uniform(0, .05):.3f}"'
        parts.append(f'<body pos="{p[0]:.4f} {p[1]:.4f} {p[2]:.4f}">{j}'
                     f'<geom size="{r:.4f}" {extra}/></body>')
    w = {"plane": '<geom type="plane" size="5 5 .1"/>', "sphere": '<geom size=".2"/>',
         "": ""}[world]
    return (f'<mujoco><size memory="MEMORY"/><worldbody>{w}{"".join(parts)}</worldbody>'
            '</mujoco>')


def at(xml, mem):
    return xml.replace("MEMORY", str(mem))


def outcome(xml):
    return step_outcome(mujoco.MjModel.from_xml_string(xml))


def walk(xml):
    """Each overflow's `<size memory>` and the one below it, from the least the compiler
    takes until both steps run or the overflow is past the narrow phase."""
    lo, hi = 0, 1 << 26
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if compiles(at(xml, mid)) else (mid, hi)
    mem, out = hi, []
    for _ in range(200):
        r = outcome(at(xml, mem))
        if mem - 1 >= hi:
            out.append((mem - 1, outcome(at(xml, mem - 1))))
        out.append((mem, r))
        if r["ok"] or r["ncon"] > 0 or r["nefc"] > 0 or r["site"] not in (
                "", "mj_collision", "mj_broadphase", "mj_SAP", "mj_narrowphase"):
            break
        mem += max(r["requested"] - r["available"], 1)
    return out


def main():
    models = []
    for n in (7, 12, 20, 30):
        models.append(("concentric", concentric(n)))
    models.append(("padded", concentric(40, pad=60)))
    models.append(("excluded", concentric(20, exclude=7)))
    rng = np.random.default_rng(21)
    for k in range(8):
        world = ("plane", "sphere", "")[k % 3]
        models.append(("line", random_model(rng, int(rng.integers(30, 60)), .8, True, world)))
    for k in range(6):
        world = ("plane", "sphere", "")[k % 3]
        models.append(("pile", random_model(rng, int(rng.integers(40, 70)), .3, False, world)))
    out = {"mujoco": mujoco.__version__, "models": [], "cases": []}
    for i, (kind, xml) in enumerate(models):
        out["models"].append({"kind": kind, "xml": xml})
        seen = set()
        for mem, r in walk(xml):
            if mem not in seen:
                seen.add(mem)
                out["cases"].append({"model": i, "memory": mem, **r})
        print(kind, i, len(seen), flush=True)
    path = os.path.join(ROOT, "tests", "reference", "arena_narrow_stack.json")
    with open(path, "w") as fh:
        fh.write('{"mujoco": %s,\n"models": [\n' % json.dumps(out["mujoco"]))
        fh.write(",\n".join(json.dumps(m) for m in out["models"]))
        fh.write('],\n"cases": [\n')
        fh.write(",\n".join(json.dumps(c) for c in out["cases"]))
        fh.write("\n]}\n")
    print(path, len(out["cases"]), "cases,", sum(not c["ok"] for c in out["cases"]), "fatal")


if __name__ == "__main__":
    main()
