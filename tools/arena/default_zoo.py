#!/usr/bin/env python3
"""MuJoCo 4.0.0's default arena (`mjModel.narena` without `<size memory>`) against the rule of
`moreau::data::arena::default_narena` on every model of models/ and of the public zoo
(tools/zoo/models.txt, cache of tools/zoo/fetch.py) that MuJoCo loads. Prints each model's sizes,
MuJoCo's narena and the rule's, then the models where they differ and the count.

    python3 tools/arena/default_zoo.py [--all]

The rule is restated here from MuJoCo's sizes alone (no moreau), so a miss is the rule's, not
a difference of sizes between the engines.
"""
import glob
import os
import subprocess
import sys

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIB = 1 << 20


def rule(m, nstack):
    """`default_narena`, restated (see src/data/arena.rs for the measured constants); `nstack`
    is `<size nstack>` (-1 when not given, as `MjSpec.nstack` reads it)."""
    c = 100 if m.nconmax < 0 else m.nconmax
    j = 500 if m.njmax < 0 else m.njmax
    v, e = m.nv, m.neq
    # the contacts and rows, then the stack beside them
    b = 608 * c + 12 * j * j + 24 * j * v + 144 * j + 12 * v
    if nstack >= 0:
        b += 8 * nstack
    else:
        b += 40 * (j + v + e) ** 2 + 468 * v + 160 * (m.nbody + m.ngeom + 2 * m.ntendon + e)
    return -(-b // MIB) * MIB


def models():
    for p in sorted(glob.glob(os.path.join(ROOT, "models", "*.xml"))):
        yield "models/" + os.path.basename(p), p
    zoo = subprocess.run([sys.executable, os.path.join(ROOT, "tools/zoo/fetch.py"), "--print"],
                         capture_output=True, text=True).stdout.strip()
    for line in open(os.path.join(ROOT, "tools/zoo/models.txt")):
        line = line.split("#")[0].split()
        if len(line) >= 2:
            yield line[0], os.path.join(zoo, line[1])


def main():
    show_all = "--all" in sys.argv
    n, miss = 0, []
    for name, path in models():
        try:
            spec = mujoco.MjSpec.from_file(path)
            if spec.memory != -1:  # the arena is given, not the default
                continue
            m = mujoco.MjModel.from_xml_path(path)
        except Exception:  # include fragments, models MuJoCo refuses
            continue
        n += 1
        r = rule(m, spec.nstack)
        if show_all or r != m.narena:
            print(f"{name:45s} nv {m.nv:4d} nbody {m.nbody:4d} ngeom {m.ngeom:4d} "
                  f"nconmax {m.nconmax:5d} njmax {m.njmax:5d} nmesh {m.nmesh:3d} "
                  f"ntendon {m.ntendon:3d} neq {m.neq:3d} narena {m.narena:10d} rule {r:10d} "
                  f"({(r - m.narena) / MIB:+.2f} MiB)")
        if r != m.narena:
            miss.append(name)
    print(f"{n - len(miss)} of {n} models exact; misses: {', '.join(miss) or 'none'}")


if __name__ == "__main__":
    main()
