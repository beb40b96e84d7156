#!/usr/bin/env python3
"""Amdahl's parallel fraction of the threaded work by instruction counts (callgrind), which the
machine's load does not move, next to the CPU-time figures of the threads example.

    cargo build --release -p moreau-optim --example threads
    python3 tools/bench/threads_amdahl.py [--model PATH] [--only TEXT ...]

Each row of `optim/examples/threads.rs` (or those whose name contains an --only text) runs
once at 1 thread and once at 2 under `valgrind --tool=callgrind --separate-threads=yes
--zero-before='*threads_measured*'`: the calling thread's count is the inclusive cost of the
measured call, the pool threads' their counts since it began (its work, then their idling). At 1 thread everything runs on the calling
thread: I1. At 2 threads the calling thread runs the serial part, Is, and the pool's threads
the parallel part. Then p = 1 - Is / I1, the predicted speed-up on n free cores is
1 / ((1 - p) + p / n) (Amdahl), and I2 / I1 is the instructions the pool adds (its scheduling
and, under callgrind's one-thread-at-a-time scheduling, its idle spinning).
MOREAU_THREADS names the binary (default $CARGO_TARGET_DIR/release/examples/threads).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_table as Z  # noqa: E402
ROWS = ["sampling", "FD transition columns", "32 FD", "32 analytic", "Batch::step"]


def totals(prefix):
    """Instructions per callgrind thread number since the measured call began: the calling
    thread's (1) is the inclusive cost of `threads_measured` (its arcs into it), the pool
    threads' their totals (the measured work, then idling until the process ends)."""
    out = {}
    for f in glob.glob(prefix + "-*"):
        tid = int(f.rsplit("-", 1)[1])
        if tid == 1:
            p = Z.Profile(f)
            out[tid] = sum(c for g in p.arcs for h, c in p.arcs[g].items()
                           if "threads_measured" in h and "threads_measured" not in g)
            continue
        for line in open(f, errors="replace"):
            if line.startswith("totals:"):
                out[tid] = int(line.split()[1])
                break
    return out


def run(exe, only, nthread, model, w):
    prefix = os.path.join(w, "cg.%d" % nthread)
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes", "--dump-instr=no",
           "--zero-before=*threads_measured*",
           "--callgrind-out-file=" + prefix, exe, "--only", only, "--nthread", str(nthread)]
    if model:
        cmd += ["--model", model]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        sys.exit("%s: %s" % (" ".join(cmd), r.stderr[-500:]))
    names = [re.sub(r"\s+\d+$", "", x.split(" threads:")[0].strip())
             for x in r.stdout.splitlines() if " threads:" in x]
    return totals(prefix), names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--only", action="append", default=None)
    opt = ap.parse_args()
    t = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.environ.get("MOREAU_THREADS", os.path.join(t, "release", "examples", "threads"))
    print("| work | I1 (1 thread) | Is (2 threads, calling thread) | I2 / I1 | p | predicted "
          "speed-up at 2 / 16 cores |")
    print("|---|---|---|---|---|---|")
    for only in opt.only or ROWS:
        if opt.model and ("ball push" in only or "cart-pole" in only):
            continue
        w = tempfile.mkdtemp(prefix="threads_amdahl_")
        try:
            one, names = run(exe, only, 1, opt.model, w)
            two, _ = run(exe, only, 2, opt.model, w)
            if len(names) != 1 or not one or not two:
                print("| %s | %d rows match, counts %s / %s | | | | |" % (only, len(names), one,
                                                                       two))
                continue
            i1 = sum(one.values())
            i_s, i2 = two[1], sum(two.values())   # 1: the calling thread
            p = 1 - i_s / i1
            amdahl = [1 / ((1 - p) + p / n) for n in (2, 16)]
            print("| %s | %s | %s | %.3f | %.4f | %.2f / %.1f |" % (
                names[0], f"{i1:,}", f"{i_s:,}", i2 / i1, p, amdahl[0], amdahl[1]), flush=True)
        finally:
            shutil.rmtree(w, ignore_errors=True)


if __name__ == "__main__":
    main()
