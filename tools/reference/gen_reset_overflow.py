#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for a stack overflow inside the forward pass a reset runs over
`sleep="init"` trees (docs/mujoco-behaviour.md "Reset").

The model: 150 free spheres in a row (radius 0.01, 0.3 apart, no gravity) and one free sphere
`b` with `sleep="init"`, with the `sleep` flag and `<size memory=N>`. MuJoCo's compiler runs that
pass: below the fewest bytes it compiles with (`min_memory`, found by bisection) compiling fails
with the pass's stack overflow (`compile`: each memory's error text, or null where it compiles).
At `min_memory` the model compiles; then the sphere `b` is enlarged on the compiled model
(`geom_size`, `geom_rbound` and `geom_aabb` of its geom set to `grow`), so that the broad phase
of the reset's pass finds more pairs than the arena's stack holds: `mj_resetData` and `MjData`
raise `mujoco.FatalError` (`reset_error`, `makedata_error`: their texts), and the reset leaves
`tree_asleep` as recorded (`tree_asleep_after`: every tree awake) and `time` 0.

Rerun:  python3 tools/reference/gen_reset_overflow.py
"""
import json
import pathlib

import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "reference" / "reset_overflow.json"
N = 150
GROW = 100.0


def xml(memory):
    bodies = "".join(
        f"<body pos='{i * 0.3:g} 0 0'><freejoint/><geom size='.01'/></body>" for i in range(N))
    init = "<body name='b' pos='0 0 1' sleep='init'><freejoint/><geom size='.1'/></body>"
    return (f"<mujoco><option gravity='0 0 0'><flag sleep='enable'/></option>"
            f"<size memory='{memory}'/><worldbody>{bodies}{init}</worldbody></mujoco>")


def compile_error(memory):
    try:
        mujoco.MjModel.from_xml_string(xml(memory))
        return None
    except ValueError as e:
        return str(e)


def main():
    lo, hi = 1000, 1 << 20
    assert compile_error(lo) is not None and compile_error(hi) is None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if compile_error(mid) is None:
            hi = mid
        else:
            lo = mid
    mem = hi
    compile = {str(k): compile_error(k) for k in (45320, 47000, 60000, mem - 1, mem)}
    m = mujoco.MjModel.from_xml_string(xml(mem))
    d = mujoco.MjData(m)
    asleep_before = d.tree_asleep.tolist()
    g = m.ngeom - 1
    m.geom_size[g, 0] = GROW
    m.geom_rbound[g] = GROW
    m.geom_aabb[g, 3:] = GROW
    try:
        mujoco.mj_resetData(m, d)
        reset_error = None
    except mujoco.FatalError as e:
        reset_error = str(e)
    after = d.tree_asleep.tolist()
    time = d.time
    try:
        mujoco.MjData(m)
        makedata_error = None
    except mujoco.FatalError as e:
        makedata_error = str(e)
    out = {
        "mujoco": mujoco.__version__,
        "n": N,
        "grow": GROW,
        "min_memory": mem,
        "xml_min_memory": xml(mem),
        "compile": compile,
        "tree_asleep_before": asleep_before,
        "reset_error": reset_error,
        "makedata_error": makedata_error,
        "tree_asleep_after": after,
        "time_after": time,
    }
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"min_memory {mem}; reset: {reset_error!r}")


if __name__ == "__main__":
    main()
