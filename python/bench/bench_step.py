#!/usr/bin/env python3
"""Speed of moreau's Python API against MuJoCo's, in one run (not a test: no assertions).

1. Per-call overhead of `mj_step` from Python: the time per call of `mj_step(m, d)` on a model
   whose step does almost nothing (an empty world: nq = nv = 0) and on the pendulum, for
   `moreau` and `mujoco` on the same MJCF file.
2. A 1000-step Python loop on the humanoid (`d.ctrl[:] = u; mj_step(m, d)` per step), and the
   same 1000 steps in one call (`mj_step(m, d, 1000)`); the difference per step is the Python
   overhead of the loop.

Each figure is the median of `--repeat` interleaved measurements; thread CPU time
(`time.thread_time`) is reported beside wall time, since it is the robust figure on a loaded
machine. Run from the repository root after `pip install ./python mujoco==4.0.0`:

    python python/bench/bench_step.py [--repeat 7]
"""

import argparse
import pathlib
import statistics
import time

import numpy as np

import moreau
import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
EMPTY = "<mujoco><worldbody/></mujoco>"


def timed(f, n):
    """(wall, thread CPU) seconds per call of f over n calls."""
    w0, c0 = time.perf_counter(), time.thread_time()
    for _ in range(n):
        f()
    return (time.perf_counter() - w0) / n, (time.thread_time() - c0) / n


def median_pair(samples):
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def compare(label, funcs, n, repeat, unit=1e9, unit_name="ns"):
    res = {k: [] for k in funcs}
    for _ in range(repeat):
        for k, f in funcs.items():
            f()  # warm
            res[k].append(timed(f, n))
    med = {k: median_pair(v) for k, v in res.items()}
    (a, b) = list(med)
    print(f"{label}")
    for k in med:
        w, c = med[k]
        print(f"  {k:8s} wall {w * unit:10.1f} {unit_name}   thread CPU {c * unit:10.1f} {unit_name}")
    print(f"  ratio {a}/{b}: wall {med[a][0] / med[b][0]:.3f}, thread CPU {med[a][1] / med[b][1]:.3f}")
    return med


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print(f"moreau {moreau.__version__}, mujoco {mujoco.__version__}")

    for name, xml in [("empty world", EMPTY), ("pendulum", (ROOT / "models/pendulum.xml").read_text())]:
        mo, mj = moreau.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
        do, dj = moreau.MjData(mo), mujoco.MjData(mj)
        compare(f"mj_step per call, {name}",
                {"moreau": lambda: moreau.mj_step(mo, do), "mujoco": lambda: mujoco.mj_step(mj, dj)},
                20000, args.repeat)

    path = str(ROOT / "models/humanoid.xml")
    mo, mj = moreau.MjModel.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    do, dj = moreau.MjData(mo), mujoco.MjData(mj)
    u = 0.1 * np.ones(mo.nu)

    def loop(lib, m, d):
        def run():
            lib.mj_resetDataKeyframe(m, d, 0)
            for _ in range(1000):
                d.ctrl[:] = u
                lib.mj_step(m, d)
        return run

    def one_call(lib, m, d):
        def run():
            lib.mj_resetDataKeyframe(m, d, 0)
            d.ctrl[:] = u
            lib.mj_step(m, d, 1000)
        return run

    la = compare("humanoid, 1000-step Python loop (ms per loop)",
                 {"moreau": loop(moreau, mo, do), "mujoco": loop(mujoco, mj, dj)}, 1, args.repeat,
                 unit=1e3, unit_name="ms")
    oc = compare("humanoid, mj_step(m, d, 1000) in one call (ms)",
                 {"moreau": one_call(moreau, mo, do), "mujoco": one_call(mujoco, mj, dj)}, 1,
                 args.repeat, unit=1e3, unit_name="ms")
    for k in ("moreau", "mujoco"):
        per = (la[k][1] - oc[k][1]) / 1000
        print(f"  Python overhead per loop step, {k}: {per * 1e9:.0f} ns (thread CPU)")


if __name__ == "__main__":
    main()
