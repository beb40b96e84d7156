#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the arena's contact and constraint capacity.

Writes tests/reference/arena_cases.json: for piles of free spheres (radius 0.1, centres within
0.08 of each other, so every pair touches, over a plane) with `<size memory>` set or the default
arena, per mj_step: ncon, nefc, and the count and last info of mjWARN_CONTACTFULL and
mjWARN_CNSTRFULL, plus the model's narena and its default narena for other models of
`models/` and for constructed models that exercise the default rule's sizes (`nstack`,
tendons, equalities, `nconmax`, `njmax`). tools/arena/default_zoo.py checks the rule on the
public zoo as well. `stack`: the fewest `<size memory>` bytes with which MuJoCo compiles each
model of `models/` and constructed chains (its compiler's stack; below, "mj_stackAlloc: out of
memory").

Rerun:  python3 tools/arena/reference.py
"""
import glob
import json
import os
import sys

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pile(n, size="", option=""):
    bodies = "".join(
        f'<body pos="{0.01 * (i % 5)} {0.01 * ((i // 5) % 5)} {0.1 + 0.01 * (i // 25)}">'
        f'<freejoint/><geom size="0.1"/></body>'
        for i in range(n)
    )
    return (
        f"<mujoco>{size}<option {option}/><worldbody>"
        f'<geom type="plane" size="10 10 .1"/>{bodies}</worldbody></mujoco>'
    )


CASES = [
    ("pile60_memory1M", pile(60, '<size memory="1M"/>'), 3),
    ("pile60_memory600K", pile(60, '<size memory="600K"/>'), 3),
    ("pile60_memory1000000", pile(60, '<size memory="1000000"/>'), 2),
    ("pile20_memory100K", pile(20, '<size memory="100K"/>'), 2),
    ("pile20_default", pile(20), 2),
    ("pile80_dense_default", pile(80, option='jacobian="dense"'), 2),
    # the dual solvers' arrays (PGS, or noslip iterations: mj_isDual) are allocated with the
    # rows: dense, AR's nefc² entries overflow the default arena where Newton's rows fit
    ("pile30_pgs_dense_default", pile(30, option='solver="PGS" jacobian="dense"'), 2),
    ("pile30_noslip_dense_default", pile(30, option='jacobian="dense" noslip_iterations="2"'), 2),
    ("pile30_newton_dense_default", pile(30, option='jacobian="dense"'), 2),
    ("pile30_pgs_sparse_default", pile(30, option='solver="PGS" jacobian="sparse"'), 2),
    # sparse: 16 bytes a row and 12 per entry of AR and of J
    ("pile15_pgs_sparse_memory750K",
     pile(15, '<size memory="750K"/>', 'solver="PGS" jacobian="sparse"'), 2),
    ("pile15_newton_sparse_memory750K",
     pile(15, '<size memory="750K"/>', 'jacobian="sparse"'), 2),
]
# the fuzzer's concentric convex pile (tools/fuzz/pile.py 125 --concentric): its contacts fit
# the default arena, its rows do not
_pile = os.path.join(ROOT, "tools", "fuzz")
sys.path.insert(0, _pile)
import pile as fuzz_pile  # noqa: E402

with open(os.path.join(ROOT, "models", "convex_pairs.xml")) as _f:
    CASES.append(("convex_pile125_concentric", fuzz_pile.pile(_f.read(), 125, True), 2))


def run(xml, steps):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    out = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        w = [d.warning[int(k)] for k in (mujoco.mjtWarning.mjWARN_CONTACTFULL,
                                          mujoco.mjtWarning.mjWARN_CNSTRFULL)]
        out.append({
            "ncon": int(d.ncon),
            "nefc": int(d.nefc),
            "contactfull": [int(w[0].number), int(w[0].lastinfo)],
            "cnstrfull": [int(w[1].number), int(w[1].lastinfo)],
        })
    return int(m.narena), out


def sized(size, nslide, ntendon, neq):
    """A model for the default arena's rule: `nslide` slide-joint bodies with a sphere each,
    `ntendon` fixed tendons and `neq` joint equalities over them, `<size size>`."""
    bodies = "".join(f"<body pos='{i} 0 .1'><joint name='j{i}' type='slide'/><geom size='.1'/>"
                     "</body>" for i in range(nslide))
    ten = "".join(f"<fixed><joint joint='j{i % nslide}' coef='1'/></fixed>"
                  for i in range(ntendon))
    eq = "".join(f"<joint joint1='j{i % nslide}'/>" for i in range(neq))
    return (f"<mujoco><size {size}/><worldbody><geom type='plane' size='5 5 .1'/>{bodies}"
            f"</worldbody><tendon>{ten}</tendon><equality>{eq}</equality></mujoco>")


# (size attributes, slide bodies, tendons, equalities): nstack (the stack's bytes), the
# equalities and tendons of the default stack, nconmax and njmax
SIZED = [("", 6, 0, 0), ("", 6, 0, 4), ("", 6, 16, 0), ("", 20, 3, 6), ("nstack='-1'", 6, 0, 0),
         ("nstack='0'", 6, 0, 0), ("nstack='3000'", 2, 0, 0), ("nstack='300000'", 9, 0, 0),
         ("nstack='1000000' njmax='10' nconmax='5'", 40, 2, 2), ("njmax='50'", 40, 4, 3),
         ("nconmax='3000' njmax='900'", 12, 1, 1)]


def stack_bodies(kind, n):
    """Constructed models for the compiler's stack: a hinge chain, free bodies, a ball chain,
    bodies without joints."""
    if kind == "chain":
        b = "".join("<body pos='0 0 .1'><joint type='hinge' axis='0 1 0'/><geom size='.05'/>"
                    for _ in range(n)) + "</body>" * n
    elif kind == "ball":
        b = "".join("<body pos='0 0 .1'><joint type='ball'/><geom size='.05'/>"
                    for _ in range(n)) + "</body>" * n
    elif kind == "free":
        b = "".join(f"<body pos='{i} 0 1'><freejoint/><geom size='.1'/></body>" for i in range(n))
    else:
        b = "".join(f"<body pos='{i} 0 1'><geom size='.1'/></body>" for i in range(n))
    return f"<mujoco><worldbody>{b}</worldbody></mujoco>"


def min_memory(spec_of):
    """The fewest `<size memory>` bytes with which MuJoCo compiles the model (its compiler runs
    the model on the arena's stack, mj_setConst; below, "mj_stackAlloc: out of memory"), and
    the error one byte below."""
    def loads(mem):
        s = spec_of()
        s.memory = mem
        try:
            s.compile()
            return True, ""
        except ValueError as e:
            return False, str(e)
    lo, hi = 1, 1 << 24
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if loads(mid)[0]:
            hi = mid
        else:
            lo = mid
    return hi, loads(lo)[1].split("\n")[0]


def main():
    cases = []
    for name, xml, steps in CASES:
        narena, per_step = run(xml, steps)
        # the concentric convex pairs' contact count is the narrow phase's (moreau finds fewer
        # on these degenerate pairs); the test compares the rest
        exact = not name.startswith("convex")
        cases.append({"name": name, "xml": xml, "narena": narena, "ncon_exact": exact,
                      "steps": per_step})
    models = []
    for f in sorted(glob.glob(os.path.join(ROOT, "models", "*.xml"))):
        try:
            m = mujoco.MjModel.from_xml_path(f)
        except Exception:  # noqa: BLE001 (models MuJoCo rejects are not compared)
            continue
        models.append({"file": os.path.relpath(f, ROOT), "narena": int(m.narena)})
    for size, nslide, ntendon, neq in SIZED:
        xml = sized(size, nslide, ntendon, neq)
        models.append({"xml": xml, "narena": int(mujoco.MjModel.from_xml_string(xml).narena)})
    stack = []
    for kind in ("chain", "ball", "free", "nojoint"):
        for n in (1, 3, 10, 50):
            xml = stack_bodies(kind, n)
            mem, err = min_memory(lambda: mujoco.MjSpec.from_string(xml))
            stack.append({"xml": xml, "min_memory": mem, "error": err})
    for f in sorted(glob.glob(os.path.join(ROOT, "models", "*.xml"))):
        try:
            mujoco.MjModel.from_xml_path(f)
        except Exception:  # noqa: BLE001
            continue
        mem, err = min_memory(lambda: mujoco.MjSpec.from_file(f))
        stack.append({"file": os.path.relpath(f, ROOT), "min_memory": mem, "error": err})
    out = os.path.join(ROOT, "tests", "reference", "arena_cases.json")
    with open(out, "w") as fh:
        json.dump({"mujoco": mujoco.__version__, "cases": cases, "models": models,
                   "stack": stack}, fh, indent=1)
        fh.write("\n")
    print(out, len(cases), "cases", len(models), "models")


if __name__ == "__main__":
    main()
