#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for its fatal stack overflow during a step.

Writes tests/reference/arena_step_stack.json: for constructed models (stored as the
arguments of `row` and `chain` below: rows of bodies with a
geom each, mocap bodies, a hinge chain, with the contact or constraint stage disabled) at
`<size memory>` values around the bytes `mj_collision`'s body-pair list needs, for chains and
rows of `mix` at every `<size memory>` where the next of the collision stage's stack requests
starts to fit and one byte below (found by walking up from each overflow by its shortfall), for
a row of 3,000 bodies at the default arena, and for every model of `models/` MuJoCo loads at its
default arena (`models/zoo_part.xml`, the fragment zoo.xml includes, loads as an empty model):
the outcome of two mj_step calls, either "ok" or the site, line, max, available
and requested bytes, narena, nefc and ncon of MuJoCo's "mj_stackAlloc: out of memory" (raised
as mujoco.FatalError) with its whole message, and the time after it.

Rerun:  python3 tools/arena/step_stack.py
"""
import glob
import json
import os
import re

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MSG = re.compile(r"stack overflow(?: at (\S+), line (\d+))?\n\s+max = (\d+), available = (\d+), "
                 r"requested = (\d+), narena = (\d+).*\n\s+nefc = (\d+), ncon = (\d+)", re.S)


def row(n, memory=None, body="", option=""):
    """`n` bodies one metre apart with a small sphere each (no contacts)."""
    size = f'<size memory="{memory}"/>' if memory is not None else ""
    b = "".join(f'<body pos="{i} 0 0" {body}><geom size=".01"/></body>' for i in range(n))
    return f"<mujoco>{size}<option>{option}</option><worldbody>{b}</worldbody></mujoco>"


def chain(n, memory):
    """A hinge chain of `n` capsules hanging from the world."""
    b = ('<body pos="0 0 -.1"><joint type="hinge" axis="0 1 0"/>'
         '<geom type="capsule" size=".02" fromto="0 0 0 0 0 -.1"/>') * n + "</body>" * n
    return f'<mujoco><size memory="{memory}"/><worldbody>{b}</worldbody></mujoco>'


def mix(memory, n, chain=True, world=0, static=0, mocap=0, alt=""):
    """`n` spheres in a hinge chain (or a row of static bodies), `alt` added to the geoms of
    the odd ones, `static` static and `mocap` mocap spheres, `world` spheres on the world."""
    if chain:
        b = "".join('<body pos="0 0 -.1"><joint axis="0 1 0"/>'
                    f'<geom size=".01" {alt if i % 2 else ""}/>' for i in range(n)) + "</body>" * n
    else:
        b = "".join(f'<body pos="{i} 0 0"><geom size=".01" {alt if i % 2 else ""}/></body>'
                    for i in range(n))
    b += "".join(f'<body pos="{i} 3 0"><geom size=".01"/></body>' for i in range(static))
    b += "".join(f'<body pos="{i} 4 0" mocap="true"><geom size=".01"/></body>'
                 for i in range(mocap))
    w = "".join(f'<geom size=".01" pos="{i} 9 0"/>' for i in range(world))
    return f'<mujoco><size memory="{memory}"/><worldbody>{w}{b}</worldbody></mujoco>'


def compiles(xml):
    try:
        mujoco.MjModel.from_xml_string(xml)
        return True
    except ValueError:
        return False


def walk(args):
    """The `<size memory>` values around each of the collision stage's stack requests of model
    `mix(memory, **args)`: from the least the compiler takes, each overflow's narena, the one
    before it, and, past the last request, the first narena at which both steps run."""
    lo, hi = 0, 1 << 26
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if compiles(mix(mid, **args)) else (mid, hi)
    mem, out = hi, set()
    for _ in range(64):
        r = outcome(mujoco.MjModel.from_xml_string(mix(mem, **args)))
        out |= {mem - 1, mem}
        if r["ok"]:
            out.add(mem + 1)
            break
        mem += max(r["requested"] - r["available"], 1)
    return sorted(m for m in out if compiles(mix(m, **args)))


def outcome(m):
    d = mujoco.MjData(m)
    try:
        for _ in range(2):
            mujoco.mj_step(m, d)
        return {"ok": True, "time": d.time}
    except mujoco.FatalError as e:
        g = MSG.search(str(e))
        return {"ok": False, "site": g.group(1) or "", "line": int(g.group(2) or 0),
                "max": int(g.group(3)), "available": int(g.group(4)),
                "requested": int(g.group(5)), "narena": int(g.group(6)),
                "nefc": int(g.group(7)), "ncon": int(g.group(8)), "time": d.time,
                "message": str(e)}


def pairs_bytes(nbody):
    return 2 * nbody * (nbody - 1)


def main():
    cases = []

    def add(kind, n, memory=None, body="", option=""):
        # the model is stored as the arguments of row() or chain(), which the test repeats
        xml = row(n, memory, body, option) if kind == "row" else chain(n, memory)
        cases.append({"kind": kind, "n": n, "memory": memory, "body": body, "option": option,
                      **outcome(mujoco.MjModel.from_xml_string(xml))})

    for n in (60, 77, 150, 200):
        need = 24 + pairs_bytes(n + 1)
        for mem in sorted({need - 9, need - 1, need, need + 3, need + 7, need + 8, need + 64}):
            add("row", n, mem)
        add("row", n, need - 1, body='mocap="true"')
        add("row", n, need - 1, option='<flag contact="disable"/>')
        add("row", n, need - 1, option='<flag constraint="disable"/>')
    for mem in (20223, 20224, 20231, 20232):
        add("chain", 100, mem)
    off = 'contype="0" conaffinity="0"'
    for args in ({"n": 100}, {"n": 100, "world": 1}, {"n": 100, "world": 1, "alt": 'contype="2" conaffinity="2"'},
                 {"n": 100, "alt": off}, {"n": 100, "static": 3, "mocap": 2, "world": 2},
                 {"n": 77, "chain": False}, {"n": 61, "chain": False, "world": 1, "alt": off},
                 {"n": 40, "world": 3, "alt": 'contype="4" conaffinity="0"'},
                 {"n": 3, "world": 1}, {"n": 2, "world": 1, "alt": off}):
        for mem in walk(args):
            cases.append({"kind": "mix", "args": args, "memory": mem,
                          **outcome(mujoco.MjModel.from_xml_string(mix(mem, **args)))})
    add("row", 3000)
    add("row", 1500)
    for f in sorted(glob.glob(os.path.join(ROOT, "models", "*.xml"))):
        try:
            m = mujoco.MjModel.from_xml_path(f)
        except Exception:  # noqa: BLE001 (models MuJoCo rejects are not compared)
            continue
        cases.append({"file": os.path.relpath(f, ROOT), **outcome(m)})
    out = os.path.join(ROOT, "tests", "reference", "arena_step_stack.json")
    with open(out, "w") as fh:
        # one case a line
        fh.write('{"mujoco": %s, "cases": [\n' % json.dumps(mujoco.__version__))
        fh.write(",\n".join(json.dumps(c) for c in cases))
        fh.write("\n]}\n")
    print(out, len(cases), "cases,", sum(not c["ok"] for c in cases), "fatal")


if __name__ == "__main__":
    main()
