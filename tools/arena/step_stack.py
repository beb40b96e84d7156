#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for its fatal stack overflow during a step.

Writes tests/reference/arena_step_stack.json: for constructed models (stored as the
arguments of `row` and `chain` below: rows of bodies with a
geom each, mocap bodies, a hinge chain, with the contact or constraint stage disabled) at
`<size memory>` values around the bytes `mj_collision`'s body-pair list needs, for a row of
3,000 bodies at the default arena, and for every model of `models/` MuJoCo loads at its default
arena: the outcome of two mj_step calls, either "ok" or the site, available and requested bytes,
narena, nefc and ncon of MuJoCo's "mj_stackAlloc: out of memory" (raised as mujoco.FatalError),
and the time after it.

Rerun:  python3 tools/arena/step_stack.py
"""
import glob
import json
import os
import re

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MSG = re.compile(r"stack overflow(?: at (\S+), line \d+)?\n\s+max = \d+, available = (\d+), "
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


def outcome(m):
    d = mujoco.MjData(m)
    try:
        for _ in range(2):
            mujoco.mj_step(m, d)
        return {"ok": True, "time": d.time}
    except mujoco.FatalError as e:
        g = MSG.search(str(e))
        return {"ok": False, "site": g.group(1) or "", "available": int(g.group(2)),
                "requested": int(g.group(3)), "narena": int(g.group(4)),
                "nefc": int(g.group(5)), "ncon": int(g.group(6)), "time": d.time,
                "message": str(e).split("\n")[0]}


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
        json.dump({"mujoco": mujoco.__version__, "cases": cases}, fh, indent=1)
        fh.write("\n")
    print(out, len(cases), "cases,", sum(not c["ok"] for c in cases), "fatal")


if __name__ == "__main__":
    main()
