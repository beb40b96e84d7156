#!/usr/bin/env python3
"""Floating-point operations per step and per cycle, moreau against MuJoCo 4.0.0, on the zoo
table's work (tools/bench/zoo_table.py: the same state after --warm steps of MuJoCo, the same
controls, K steps).

    cargo build --release -p moreau-derivatives --example zoo_phases
    python3 tools/bench/flops.py [--warm W] [--steps K] [--repeat R] NAME_OR_PATH ...

The machine's performance counters are not readable here (a virtual machine: `perf stat -e
cycles` is "not supported"), so the flops are counted, not sampled:

- **flops**: callgrind counts how often every machine instruction of the step phase
  (`zoo_phase_step`) executes (`--dump-instr=yes`); `objdump -d` of every object it ran in
  (the driver, libmujoco, libm, ...) names each instruction; every floating-point arithmetic
  instruction counts its operations: add, sub, mul, div, sqrt 1 per lane (scalar `sd` 1,
  packed `pd` 2 / 4 / 8 for xmm / ymm / zmm), fused multiply-add 2 per lane, x87 arithmetic 1.
  Comparisons, min/max, sign masks (and/xor), conversions and moves are not flops. Single
  precision (`ss`/`ps`) is reported apart. libm's transcendental functions count the
  arithmetic they execute.
- **cycles**: the same K steps from the same state, run natively R times (env ZOO_PHASES_CPU;
  the fastest run on the thread's CPU clock) times the nominal clock of /proc/cpuinfo ("cpu
  MHz"; turbo and the other hyperthread's load are not seen, so on a loaded machine this is an
  upper bound of the cycles and the flops per cycle a lower bound).

Per model it prints flops per step of both engines, moreau's flops by pipeline stage (the zoo
table's stage split, MO_STAGES / MJ_STAGES, applied to each function's own flops), CPU µs per
step, and flops per cycle; --json FILE appends the figures as JSON lines.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_table as Z  # noqa: E402

SCALAR = re.compile(r"^v?(add|sub|mul|div|sqrt)s([sd])$")
PACKED = re.compile(r"^v?(add|sub|mul|div|sqrt|addsub|hadd|hsub)p([sd])$")
FMA = re.compile(r"^vf(n)?m(add|sub|addsub|subadd)(132|213|231)([sp])([sd])$")
X87 = re.compile(r"^f(add|sub|subr|mul|div|divr)(p|s|l)?$")


def lanes(prec, operands):
    """Lanes of a packed instruction by its widest register."""
    width = 512 if "%zmm" in operands else 256 if "%ymm" in operands else 128
    return width // (64 if prec == "d" else 32)


def classify(mnemonic, operands):
    """(double flops, single flops) of one instruction."""
    m = SCALAR.match(mnemonic)
    if m:
        return (1, 0) if m.group(2) == "d" else (0, 1)
    m = PACKED.match(mnemonic)
    if m:
        n = lanes(m.group(2), operands)
        return (n, 0) if m.group(2) == "d" else (0, n)
    m = FMA.match(mnemonic)
    if m:
        n = 2 * (1 if m.group(4) == "s" else lanes(m.group(5), operands))
        return (n, 0) if m.group(5) == "d" else (0, n)
    if X87.match(mnemonic):
        return (1, 0)
    return (0, 0)


def flop_map(obj, cache={}):
    """Address -> (double flops, single flops) of every flop instruction of one object, and
    the set of every instruction's address (to check that callgrind's addresses are the
    object's)."""
    if obj in cache:
        return cache[obj]
    out, starts = {}, set()
    if os.path.isfile(obj):
        txt = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                             capture_output=True, text=True).stdout
        for line in txt.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
            if not m:
                continue
            starts.add(int(m.group(1), 16))
            f = classify(m.group(2), m.group(3))
            if f != (0, 0):
                out[int(m.group(1), 16)] = f
    cache[obj] = (out, starts)
    return cache[obj]


class FlopProfile(Z.Profile):
    """A callgrind dump with --dump-instr=yes --dump-line=no --compress-pos=no
    --compress-strings=no: instructions as Z.Profile, plus each function's own flops."""

    def __init__(self, path):
        super().__init__(path)
        self.flops = collections.Counter()
        self.single = collections.Counter()
        self.seen = self.known = 0      # executed instructions, those objdump names
        ob = fn = None
        after_call = False
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("ob="):
                    ob = line[3:].strip()
                elif line.startswith("fn="):
                    fn = line[3:].strip()
                elif line.startswith("calls="):
                    after_call = True
                elif line[:2] == "0x":
                    if after_call:         # the call's inclusive cost: not this function's
                        after_call = False
                        continue
                    a, c = line.split()[:2]
                    flops, starts = flop_map(ob)
                    a, c = int(a, 16), int(c)
                    self.seen += c
                    self.known += c if a in starts else 0
                    d, s = flops.get(a, (0, 0))
                    if d or s:
                        self.flops[fn] += d * c
                        self.single[fn] += s * c

    def flop_stages(self, root, stage_of):
        """Own flops by stage under root, split as Z.Profile.stages splits instructions."""
        return self.stages(root, stage_of, own=self.flops, cut=1e-6)

    def total_flops(self, root):
        """Flops of everything the dump collected (the dump holds only the phase)."""
        return sum(self.flops.values()), sum(self.single.values())


def callgrind(exe, args, w, tag):
    out = os.path.join(w, tag)
    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no",
           "--compress-pos=no", "--compress-strings=no", "--callgrind-out-file=" + out,
           "--collect-atstart=no", "--toggle-collect=*zoo_phase_step*", exe] + args
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=w)
    if r.returncode != 0:
        raise RuntimeError("%s: %s" % (tag, Z.errtext(r.stderr)))
    return FlopProfile(out)


def cpu_us(exe, args, w, repeat):
    env = dict(os.environ, ZOO_PHASES_CPU=str(repeat))
    r = subprocess.run([exe] + args, capture_output=True, text=True, cwd=w, env=env)
    m = re.search(r"step_cpu_us: ([0-9.eE+-]+)", r.stdout)
    return float(m.group(1)) if m else None


def mhz():
    for line in open("/proc/cpuinfo"):
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1])
    return None


def one(name, path, opt, mj_exe):
    import mujoco
    m = mujoco.MjModel.from_xml_path(path)
    w = tempfile.mkdtemp(prefix="flops_")
    try:
        nefc = Z.prepare(m, w, opt.warm, opt.steps)
        k = str(opt.steps)
        csv = os.path.join(w, "ctrl.csv")
        res = {"model": name, "nv": m.nv, "nefc": nefc, "steps": opt.steps}
        for tag, exe, st, stage_of in [
                ("moreau", opt.phases, "state.json", Z.mo_stage_of()),
                ("mujoco", mj_exe, "state.txt", Z.mj_stage_of())]:
            args = [path, os.path.join(w, st), csv, k, "0"]
            p = callgrind(exe, args, w, tag)
            roots = [f for f in p.find(r"zoo_phase_step") if p.incl(f) > 0]
            ir = sum(p.incl(f) for f in roots) / opt.steps
            dfl, sfl = p.total_flops(None)
            stages = collections.Counter()
            for r in roots:
                stages.update(p.flop_stages(r, stage_of))
            us = cpu_us(exe, args, w, opt.repeat)
            res[tag] = {"instructions": ir, "flops": dfl / opt.steps,
                        "matched": p.known / max(p.seen, 1),
                        "flops_single": sfl / opt.steps, "cpu_us": us,
                        "stages": {s: v / opt.steps for s, v in stages.items()}}
        return res
    finally:
        shutil.rmtree(w, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warm", type=int, default=200)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", default=None)
    ap.add_argument("names", nargs="+")
    opt = ap.parse_args()
    opt.phases = Z.phases_binary()
    bdir = tempfile.mkdtemp(prefix="flops_mj_")
    mj_exe = Z.build_mujoco_side(bdir)
    ghz = mhz() / 1e3
    print("clock %.3f GHz (nominal, /proc/cpuinfo)" % ghz)
    print("| model | nv | nefc | flops / step moreau (MuJoCo) | instructions / step moreau "
          "(MuJoCo) | flops per instruction | CPU µs / step moreau (MuJoCo) | flops / cycle "
          "moreau (MuJoCo) | moreau's flops by stage | executed instructions objdump names "
          "moreau (MuJoCo) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    js = open(opt.json, "a") if opt.json else None
    for name, path in Z.models(opt.names):
        r = one(name, path, opt, mj_exe)
        r["ghz"] = ghz
        a, b = r["moreau"], r["mujoco"]

        def fpc(x):
            return x["flops"] / (x["cpu_us"] * 1e3 * ghz) if x["cpu_us"] else float("nan")
        tot = sum(a["stages"].values()) or 1
        st = ", ".join("%s %.0f%%" % (s, 100 * v / tot) for s, v in
                       sorted(a["stages"].items(), key=lambda x: -x[1]) if v / tot >= 0.03)
        print("| %s | %d | %d | %s (%s) | %s (%s) | %.3f (%.3f) | %.2f (%.2f) | %.2f (%.2f) | "
              "%s | %.2f%% (%.2f%%) |" % (name, r["nv"], r["nefc"], Z.human(a["flops"]), Z.human(b["flops"]),
                        Z.human(a["instructions"]), Z.human(b["instructions"]),
                        a["flops"] / a["instructions"], b["flops"] / b["instructions"],
                        a["cpu_us"] or float("nan"), b["cpu_us"] or float("nan"), fpc(a),
                        fpc(b), st, 100 * a["matched"], 100 * b["matched"]), flush=True)
        if js:
            js.write(json.dumps(r) + "\n")
            js.flush()
    shutil.rmtree(bdir, ignore_errors=True)


if __name__ == "__main__":
    main()
