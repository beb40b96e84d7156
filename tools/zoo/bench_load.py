#!/usr/bin/env python3
"""Load time and peak memory of every zoo model: moreau's loader against MuJoCo 4.0.0's, side by
side in the same run (not a test: wall time depends on the machine's load).

Each load runs in a fresh process, moreau's and MuJoCo's interleaved, `--rounds` times per
model; the time is the CPU time of the load (all of MuJoCo's threads, by getrusage; moreau's
loader is single-threaded), the minimum over the rounds, which a shared machine disturbs less
than wall time (`--wall` compares wall times instead); the memory is the
growth of the process's peak resident set caused by the load (`VmHWM` after minus `VmRSS`
before, /proc/self/status), its minimum over the rounds. moreau loads with
`examples/load_model.rs` (release build), MuJoCo with `mujoco.MjModel.from_xml_path` after
`import mujoco`. The bounds of the conformance set: time ≤ 1.5× and memory ≤ 2× MuJoCo's; a
model over either bound is marked `!` and makes the exit status 1.

    cargo build --release --example load_model
    python3 tools/zoo/bench_load.py [--rounds 5] [NAME-SUBSTRING ...]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "zoo"))
import fetch  # noqa: E402  (the cache folder, as the Rust test finds it)

MUJOCO = r"""
import json, resource, sys, time
import mujoco
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def kb(key):
    for l in open('/proc/self/status'):
        if l.startswith(key):
            return int(l.split()[1]) * 1024
rss0 = kb('VmRSS:')
c = cpu()
t = time.perf_counter()
m = mujoco.MjModel.from_xml_path(sys.argv[1])
secs = time.perf_counter() - t
print(json.dumps({'seconds': secs, 'cpu_seconds': cpu() - c, 'peak_bytes': kb('VmHWM:') - rss0, 'nq': m.nq, 'nv': m.nv,
                  'nmesh': m.nmesh}))
"""


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def models():
    out = []
    with open(os.path.join(ROOT, "tools", "zoo", "models.txt")) as f:
        for line in f:
            line = line.split("#")[0].split()
            if len(line) >= 2:
                out.append((line[0], line[1]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--moreau", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
        "release", "examples", "load_model"))
    ap.add_argument("--wall", action="store_true", help="compare wall times, not CPU times")
    ap.add_argument("filter", nargs="*")
    args = ap.parse_args()
    if not os.path.exists(args.moreau):
        sys.exit(f"{args.moreau} missing: cargo build --release --example load_model")
    cache = fetch.cache_dir()
    bad = 0
    print(f"{'model':<46} {'nq':>4} {'nv':>4} {'moreau s':>9} {'mujoco s':>9} {'ratio':>6}"
          f" {'moreau MB':>9} {'mujoco MB':>9} {'ratio':>6}")
    for name, rel in models():
        if args.filter and not any(s in name for s in args.filter):
            continue
        path = os.path.join(cache, rel)
        mo, mj = [], []
        for _ in range(args.rounds):
            mo.append(run([args.moreau, path]))
            mj.append(run([sys.executable, "-c", MUJOCO, path]))
        err = next((r["error"] for r in mo + mj if "error" in r), None)
        if err:
            print(f"{name:<46} error: {err}")
            bad += 1
            continue
        key = "seconds" if args.wall else "cpu_seconds"
        ts = min(r[key] for r in mo), min(r[key] for r in mj)
        ms = min(r["peak_bytes"] for r in mo), min(r["peak_bytes"] for r in mj)
        rt, rm = ts[0] / ts[1], ms[0] / max(ms[1], 1)
        over = rt > 1.5 or rm > 2.0
        bad += over
        print(f"{name:<46} {mo[0]['nq']:>4} {mo[0]['nv']:>4} {ts[0]:>9.4f} {ts[1]:>9.4f}"
              f" {rt:>6.2f} {ms[0] / 2**20:>9.1f} {ms[1] / 2**20:>9.1f} {rm:>6.2f}"
              f"{' !' if over else ''}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
