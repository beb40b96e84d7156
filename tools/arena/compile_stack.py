#!/usr/bin/env python3
"""MuJoCo 4.0.0's fatal stack overflow while compiling a model whose `<size memory>` is too
small (mj_setConst's `setBound`, `setInertia0` and `mj_rne` on the arena's stack).

Writes tests/reference/arena_compile_stack.json: for chains of hinges, free, ball and static
bodies (3, 10 and 40 of them; stored whole, with `MEMORY` where `<size memory>` goes) every
`<size memory>` from 1 up at which the next of the compiler's stack requests starts to fit and
one byte below (found by walking up by each overflow's shortfall until the model loads), with
MuJoCo's message (after "Error: engine error: ") or "ok".

Rerun:  python3 tools/arena/compile_stack.py
"""
import json
import os
import re

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NUMBERS = re.compile(r"available = (\d+), requested = (\d+)")


def models(n):
    chain = ('<body><joint axis="0 1 0"/><geom size=".1" pos="0 0 -.1"/>' * n
             + "</body>" * n)
    free = "".join(f'<body pos="{i} 0 0"><freejoint/><geom size=".1"/></body>' for i in range(n))
    ball = "".join(f'<body pos="{i} 0 0"><joint type="ball"/><geom size=".1"/></body>'
                   for i in range(n))
    static = "".join(f'<body pos="{i} 0 0"><geom size=".1"/></body>' for i in range(n))
    for name, b in (("chain", chain), ("free", free), ("ball", ball), ("static", static)):
        yield name, f'<mujoco><size memory="MEMORY"/><worldbody>{b}</worldbody></mujoco>'


def load(xml, mem):
    try:
        mujoco.MjModel.from_xml_string(xml.replace("MEMORY", str(mem)))
        return None
    except ValueError as e:
        return str(e).removeprefix("Error: engine error: ")


def main():
    out = {"mujoco": mujoco.__version__, "models": [], "cases": []}
    for n in (3, 10, 40):
        for name, xml in models(n):
            i = len(out["models"])
            out["models"].append({"name": f"{name} {n}", "xml": xml})
            mem = 1
            for _ in range(100):
                msg = load(xml, mem)
                if mem > 1:
                    out["cases"].append({"model": i, "memory": mem - 1,
                                         "message": load(xml, mem - 1)})
                out["cases"].append({"model": i, "memory": mem, "message": msg})
                if msg is None:
                    break
                available, requested = map(int, NUMBERS.search(msg).groups())
                mem += max(requested - available, 1)
    path = os.path.join(ROOT, "tests", "reference", "arena_compile_stack.json")
    with open(path, "w") as fh:
        json.dump(out, fh, indent=0)
        fh.write("\n")
    print(path, len(out["cases"]), "cases")


if __name__ == "__main__":
    main()
