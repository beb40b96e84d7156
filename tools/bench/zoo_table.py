#!/usr/bin/env python3
"""The zoo table of docs/performance.md: instructions per call (callgrind) of moreau against
MuJoCo 4.0.0 on every model of tools/zoo/models.txt (refused lines skipped), both engines on the
same state and controls, and per row the pipeline stage with the largest excess.

    cargo build --release -p moreau-derivatives --example zoo_phases
    python3 tools/bench/zoo_table.py [--warm W] [--steps K] [--fd N] [--jobs J] [NAME ...]

Per model: MuJoCo steps W times (default 200) from keyframe 0 (or qpos0) under
tools/reference/mj_step_ctrl.py's controls (generate_contact.control_sequence) to the state of
the row (contacts active on the legged and manipulation models). From that state, both engines
under callgrind (`--dump-instr=no`), each call once outside the measurement first (warm-up):

    step      K steps (default 100) under the next controls: `mj_step` / `moreau::step`
    forward   K calls at the state: `mj_forward` / `moreau::forward`
    inverse   K calls at the forward solution's qacc: `mj_inverse` / `moreau::inverse`
    FD        N transition Jacobians (default 1): `mjd_transitionFD(m, d, 1e-6, 0, A, B, NULL,
              NULL)` / `Workspace::transition` with `TransitionOptions::fd(1e-6, false)`
              without sensors (the same forward differences)
    analytic  N analytic A, B (`TransitionOptions::analytic()`, no sensors) against MuJoCo's FD
              above: the ratio issue 22 asks to be <= 0.1 (<= 0.05 on humanoid-size models);
              where moreau refuses the model the cell names the `Support` reason

moreau's side is derivatives/examples/zoo_phases.rs, MuJoCo's tools/bench/zoo_phases_mujoco.c
(compiled here against the Python wheel's libmujoco and headers, so neither side starts an
interpreter under valgrind); on both each phase is one function `zoo_phase_*` and one callgrind
dump (`--collect-atstart=no --toggle-collect='*zoo_phase_*' --dump-after=...`). Ratios are
moreau / MuJoCo per call. "stage" is the pipeline stage of the step with the largest excess
instructions of moreau over MuJoCo (per step, with its ratio; passive forces, bias forces and
sensors count as one stage): every function's own instructions go to the stage of the
outermost stage function above it in the call graph (a function called from several places is
split in proportion to its callers' calls), MuJoCo's stage functions by name (`mj_fwdKinematics`,
`mj_crb`, `mj_collision`, `mj_fwdConstraint`, ...), moreau's by module (MO_STAGES below); what
is in no stage (the integrator, the checks) is "other". MuJoCo's mjd_transitionFD refuses RK4
(a fatal error): on RK4 models the FD cell is moreau's count alone and the analytic cell is
against moreau's FD. Both sides print the time and nefc after the steps; a row whose lines
differ says so (the two rollouts parted).

The forward, inverse and FD cells name their own stage of largest excess the same way (per
call; the inverse has one more stage, MuJoCo's mj_invConstraint against moreau's constraint
force of `inverse_skip`, and its M qacc counts with the bias forces as in MuJoCo's mj_rne).
The analytic cell, which has no MuJoCo stages to set against, names the stage with the largest
share of moreau's call: "d MODULE" for the derivative code by module of moreau-derivatives
(MO_DERIV_STAGE), the pipeline stages of the forward pass it starts from as above, "other"
for the entry points' own work and what they call outside both.

Prints one markdown row per model as it finishes (and the raw figures as JSON lines to
--json FILE). Needs valgrind and python3 with mujoco==4.0.0; MOREAU_PHASES names the binary
(default $CARGO_TARGET_DIR/release/examples/zoo_phases or target/...).
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import concurrent.futures as cf

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PHASES = ["step", "forward", "inverse", "fd", "analytic"]

# The stages: MuJoCo's by function name (mj_forwardSkip's calls, engine_forward.c; island
# discovery counts as the solver's on both sides), moreau's by a regex on "CALLER>CALLEE" (the
# module paths of src/forward.rs's calls; `solve_ld` only where forward calls it, as MuJoCo's
# mj_fwdAcceleration, not in the integrator)
MJ_STAGES = {
    "kinematics": ["mj_fwdKinematics", "mj_kinematics", "mj_kinematics1", "mj_kinematics2",
                   "mj_comPos", "mj_camlight", "mj_tendon", "mj_flex", "mj_transmission",
                   "mj_comVel"],
    "inertia": ["mj_makeM", "mj_crb", "mj_factorM"],
    "collision": ["mj_collision"],
    "constraint rows": ["mj_makeConstraint", "mj_projectConstraint", "mj_referenceConstraint"],
    "passive+bias": ["mj_passive", "mj_rne", "mj_tendonBias"],
    "actuation": ["mj_fwdActuation"],
    "acceleration": ["mj_fwdAcceleration"],
    "solver": ["mj_fwdConstraint", "mj_island"],
    "sensors": ["mj_sensorPos", "mj_sensorVel", "mj_sensorAcc", "mj_energyPos",
                "mj_energyVel"],
    # the inverse dynamics' own stage (mj_inverseSkip; its M qacc is mj_rne's, above)
    "inverse constraint": ["mj_invConstraint"],
}
MO_STAGES = [
    # (stage, patterns), the first match wins: first the inverse dynamics' constraint force
    # (`inv_constraint`, inlined into `inverse_skip`) and its M qacc, which MuJoCo computes in
    # mj_rne (passive+bias)
    ("inverse constraint", [r"inverse_skip[^>]*>moreau::constraint::(cost|sparse)::",
                            r">moreau::inverse::inv_constraint"]),
    ("passive+bias", [r"inverse_skip[^>]*>moreau::smooth::crb::mul_"]),
    ("kinematics", [r">moreau::smooth::kinematics::", r">moreau::smooth::com::com_(pos|vel)",
                    r">moreau::smooth::tendon::", r">moreau::actuation::transmission",
                    r">moreau::forward::(camlight|tendon|transmission)"]),
    ("inertia", [r">moreau::smooth::crb::(crb|factor_m)", r">moreau::forward::(crb|factor_m)"]),
    ("collision", [r">moreau::collision::"]),
    ("constraint rows", [r">moreau::constraint::", r">moreau::forward::make_constraint"]),
    ("passive+bias", [r">moreau::passive::", r">moreau::smooth::rne::(?!rne_post_constraint)"]),
    ("actuation", [r">moreau::actuation::"]),
    ("acceleration", [r"forward_skip>moreau::smooth::crb::solve_ld",
                      r">moreau::forward::fwd_acceleration"]),
    ("solver", [r">moreau::solver::", r">moreau::forward::fwd_constraint"]),
    ("sensors", [r">moreau::sensor::", r">moreau::energy::",
                 r">moreau::smooth::rne::rne_post_constraint"]),
]
# The analytic A, B have no MuJoCo counterpart stage by stage: their column names the stage with
# the largest share of moreau's call, the derivative stages by module of moreau-derivatives
# (the entry points `transition`, `transition_rk4`, `jacobians`, `work` are descended into) and
# the forward pass they start from by MO_STAGES
MO_DERIV_STAGE = re.compile(
    r">moreau_derivatives::(constraint|constraint_pos|forward|inverse|inverse_pos|rne|"
    r"smooth_vel_pos|step_matrix|integrate|fluid|quat|sensor|rows)::")


# --- callgrind output ----------------------------------------------------------------------

class Profile:
    """Own instructions per function and inclusive instructions per call arc of one dump."""

    def __init__(self, path):
        self.own = collections.Counter()
        self.arcs = collections.defaultdict(collections.Counter)
        names = {}

        def name(s):
            m = re.match(r"\((\d+)\)(?: (.*))?", s)
            if not m:
                return s
            if m.group(2) is not None:
                names[m.group(1)] = m.group(2)
            return names.get(m.group(1), s)

        fn = cfn = None
        pending_call = False
        with open(path, errors="replace") as f:
            for line in f:
                c = line[0] if line else ""
                if c.isdigit() or c in "+-*":
                    parts = line.split()
                    cost = int(parts[1]) if len(parts) > 1 else 0
                    if pending_call:
                        self.arcs[fn][cfn] += cost
                        pending_call = False
                    elif fn is not None:
                        self.own[fn] += cost
                elif line.startswith("fn="):
                    fn = name(line[3:].strip())
                elif line.startswith("cfn="):
                    cfn = name(line[4:].strip())
                elif line.startswith("calls="):
                    pending_call = True
        self._incl = {}

    def incl(self, f):
        if f not in self._incl:
            self._incl[f] = self.own[f] + sum(c for g, c in self.arcs[f].items() if g != f)
        return self._incl[f]

    def find(self, pattern):
        """Functions whose name matches the regex."""
        r = re.compile(pattern)
        return [f for f in set(self.own) | set(self.arcs) if r.search(f)]

    def stages(self, root, stage_of, own=None, cut=2e-4):
        """Instructions of root's call tree by stage (outermost stage function wins); with
        `own`, another per-function cost (flops) split the same way, by the instruction
        arcs, subtrees under `cut` of the total left out (their instructions stand in for
        them when `own` is None)."""
        out = collections.Counter()
        total = self.incl(root)
        if total <= 0:
            return out
        cut *= total
        cost = self.own if own is None else own

        def walk(f, w, stage, seen):
            out[stage or "other"] += cost[f] * w
            for g, c in self.arcs[f].items():
                if g in seen or c <= 0:
                    continue
                s = stage or stage_of(f, g)
                inc = self.incl(g)
                if w * c < cut or inc <= 0:
                    if own is None:
                        out[s or "other"] += w * c
                    continue
                walk(g, w * c / inc, s, seen | {g})

        walk(root, 1.0, None, frozenset([root]))
        return out


def mj_stage_of():
    m = {f: s for s, fs in MJ_STAGES.items() for f in fs}
    return lambda caller, f: m.get(f)


def mo_stage_of():
    pats = [(re.compile(p), s) for s, ps in MO_STAGES for p in ps]
    memo = {}

    def stage(caller, f):
        key = caller + ">" + f
        if key not in memo:
            memo[key] = next((s for r, s in pats if r.search(key)), None)
        return memo[key]
    return stage


def mo_analytic_stage_of():
    pipeline = mo_stage_of()

    def stage(caller, f):
        m = MO_DERIV_STAGE.search(caller + ">" + f)
        return "d " + m.group(1) if m else pipeline(caller, f)
    return stage


def dumps(prefix):
    """The numbered dumps of one callgrind run, in order."""
    fs = [f for f in glob.glob(prefix + ".*") if re.fullmatch(r".*\.\d+", f)]
    fs = sorted(fs, key=lambda f: int(f.rsplit(".", 1)[1]))
    return fs + [prefix] if os.path.exists(prefix) else fs


# --- MuJoCo's side -------------------------------------------------------------------------

def phases_binary():
    """moreau's side: $MOREAU_PHASES, else the release example of the cargo target dir."""
    t = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.abspath(os.environ.get(
        "MOREAU_PHASES", os.path.join(t, "release", "examples", "zoo_phases")))
    if not os.path.exists(exe):
        sys.exit("%s: not built (cargo build --release -p moreau-derivatives --example "
                 "zoo_phases)" % exe)
    return exe


def build_mujoco_side(w):
    """Compiles tools/bench/zoo_phases_mujoco.c against the Python wheel's libmujoco."""
    import mujoco
    pkg = os.path.dirname(mujoco.__file__)
    lib = glob.glob(os.path.join(pkg, "libmujoco.so*"))[0]
    exe = os.path.join(w, "zoo_phases_mujoco")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(ROOT, "tools", "bench",
                    "zoo_phases_mujoco.c"), "-I", os.path.join(pkg, "include"), lib,
                    "-Wl,-rpath," + os.path.dirname(lib)], check=True)
    return exe


# --- one row ---------------------------------------------------------------------------------

def valgrind(out, args, extra, cwd):
    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=no", "--callgrind-out-file=" + out]
    cmd += extra + args
    # in the row's directory: MuJoCo writes MUJOCO_LOG.TXT to the working directory
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return r


def errtext(stderr):
    """The program's own last lines of stderr (not valgrind's)."""
    lines = [x.strip() for x in stderr.splitlines() if x.strip() and not x.startswith("==")]
    return " ".join(lines[-2:])[-300:]


def read_phases(prefix, stage_of, opt, analytic_stage_of=None):
    """Instructions per call of each phase, and by stage per step and per FD call (the
    --json file's stages_* and fd_stages_*), and by stage per call of every phase (its
    phase_stages_*), from the dumps."""
    calls, stages, stages_fd, by_phase = {}, {}, {}, {}
    for f in dumps(prefix):
        p = Profile(f)
        for ph in PHASES:
            fs = [x for x in p.find(r"zoo_phase_%s$|zoo_phase_%s[<:]" % (ph, ph))
                  if p.incl(x) > 0]
            if not fs:
                continue
            n = opt.steps if ph in ("step", "forward", "inverse") else opt.fd
            if n == 0:
                continue                    # `--fd 0`: the FD and analytic phases are not run
            calls[ph] = sum(p.incl(x) for x in fs) / n
            st = collections.Counter()
            for x in fs:
                st.update(p.stages(x, analytic_stage_of if ph == "analytic" and
                                   analytic_stage_of else stage_of))
            st = {s: v / n for s, v in st.items()}
            by_phase[ph] = st
            if ph == "step":
                stages = st
            elif ph == "fd":
                stages_fd.update(st)
    return calls, stages, stages_fd, by_phase


def prepare(m, w, warm, steps):
    """Writes the row's inputs to directory w: state.json (moreau's side), state.txt (MuJoCo's)
    after `warm` steps of MuJoCo from keyframe 0 (or qpos0), and ctrl.csv, the next steps + 1
    controls; returns nefc at the state."""
    import mujoco
    sys.path.insert(0, os.path.join(ROOT, "tools", "reference"))
    import generate_contact as GC
    ctrl = GC.control_sequence(m, warm + steps + 1)
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    for r in ctrl[:warm]:
        d.ctrl[:] = r
        mujoco.mj_step(m, d)
    keys = ["qpos", "qvel", "act", "ctrl", "qacc_warmstart"]
    st = {k: getattr(d, k).tolist() for k in keys}
    st["time"] = d.time
    json.dump(st, open(os.path.join(w, "state.json"), "w"))
    with open(os.path.join(w, "state.txt"), "w") as f:
        for k in keys:
            f.write(" ".join(repr(float(x)) for x in st[k]) + "\n")
        f.write(repr(float(d.time)) + "\n")
    with open(os.path.join(w, "ctrl.csv"), "w") as f:
        for r in ctrl[warm:]:
            f.write(",".join(repr(float(x)) for x in r) + "\n")
    return int(d.nefc)


def row(name, path, opt):
    import mujoco
    res = {"model": name}
    try:
        m = mujoco.MjModel.from_xml_path(path)
    except Exception as e:                  # noqa: BLE001 (reported in the row)
        res["error"] = "MuJoCo does not load it: %s" % str(e).splitlines()[0]
        return res
    res["nv"] = m.nv
    w = tempfile.mkdtemp(prefix="zoo_table_")
    try:
        res["nefc"] = prepare(m, w, opt.warm, opt.steps)
        csv = os.path.join(w, "ctrl.csv")
        k, nfd = str(opt.steps), str(opt.fd)
        toggles = ["--toggle-collect=*zoo_phase_*", "--collect-atstart=no"]
        toggles += ["--dump-after=*zoo_phase_" + ph for ph in PHASES]
        mj = valgrind(os.path.join(w, "mj"), [opt.mujoco_side, path,
                      os.path.join(w, "state.txt"), csv, k, nfd], toggles, w)
        res["mujoco_out"] = mj.stdout.strip()
        if mj.returncode != 0:
            res["error"] = "MuJoCo's side failed: " + errtext(mj.stderr)
        for line in mj.stdout.splitlines():
            if line.startswith("fd: not supported:"):
                res["fd_refused_mujoco"] = line.split(":", 2)[2].strip()
        (res["mujoco"], res["stages_mujoco"], res["fd_stages_mujoco"],
         res["phase_stages_mujoco"]) = read_phases(os.path.join(w, "mj"), mj_stage_of(), opt)
        mo = valgrind(os.path.join(w, "mo"), [opt.phases, path, os.path.join(w, "state.json"),
                      csv, k, nfd], toggles, w)
        res["moreau_out"] = mo.stdout.strip()
        if mo.returncode != 0:
            res["error"] = "moreau's side failed: " + errtext(mo.stderr)
        (res["moreau"], res["stages_moreau"], res["fd_stages_moreau"],
         res["phase_stages_moreau"]) = read_phases(os.path.join(w, "mo"), mo_stage_of(), opt,
                                                   mo_analytic_stage_of())
        for line in mo.stdout.splitlines():
            if line.startswith("analytic: refused:"):
                res["analytic_refused"] = line.split(":", 2)[2].strip()
            if line.startswith("inverse: not supported:"):
                res["inverse_refused"] = line.split(":", 2)[2].strip()
        return res
    finally:
        if opt.keep:
            res["dir"] = w
        else:
            shutil.rmtree(w, ignore_errors=True)


def fmt_ratio(res, ph):
    mo, mj = res.get("moreau", {}), res.get("mujoco", {})
    if ph == "analytic":
        if "analytic_refused" in res:
            return "refused: " + res["analytic_refused"]
        if "fd_refused_mujoco" in res and "analytic" in mo and mo.get("fd"):
            return "MuJoCo's FD refuses RK4; %s = %.3f× moreau's FD" % (
                human(mo["analytic"]), mo["analytic"] / mo["fd"])
        if "analytic" in mo and mj.get("fd"):
            return "%.3f×" % (mo["analytic"] / mj["fd"])
        return "–"
    if ph == "fd" and "fd_refused_mujoco" in res and "fd" in mo:
        return "MuJoCo refuses RK4; moreau %s" % human(mo["fd"])
    if ph == "inverse" and "inverse_refused" in res:
        return "refused: " + res["inverse_refused"]
    if ph in mo and mj.get(ph):
        r = mo[ph] / mj[ph]
        return ("**%.3f×**" if r > 1 else "%.3f×") % r
    return "–"


def merged(st):
    """The stages as printed: passive forces, bias and sensors as one (moreau's forward calls
    the sensors' `rne_post_constraint` itself, MuJoCo's mj_sensorAcc does)."""
    out = collections.Counter()
    for s, v in st.items():
        out["passive, bias, sensors" if s in ("passive+bias", "sensors") else s] += v
    return out


def phase_stages(res, side, ph):
    """The stages of one phase per call (older --json files: the step's and the FD's only)."""
    st = res.get("phase_stages_" + side, {}).get(ph)
    if st is None:
        st = res.get({"step": "stages_", "fd": "fd_stages_"}.get(ph, "none_") + side, {})
    return st


def fmt_stage(res, ph="step"):
    """The stage of the phase with the largest excess of moreau over MuJoCo, per call."""
    a = merged(phase_stages(res, "moreau", ph))
    b = merged(phase_stages(res, "mujoco", ph))
    if not a or not b:
        return "–"
    ex = {s: a.get(s, 0) - b.get(s, 0) for s in set(a) | set(b)}
    s = max(ex, key=ex.get)
    r = a.get(s, 0) / b[s] if b.get(s) else float("inf")
    return "%s +%s (%.2f×)" % (s, human(ex[s]), r) if ex[s] > 0 else "none above"


def fmt_largest(res, ph="analytic"):
    """The stage with the largest share of moreau's call (the analytic A, B: no MuJoCo stages
    to set them against)."""
    a = phase_stages(res, "moreau", ph)
    tot = sum(a.values())
    if not a or tot <= 0:
        return "–"
    s = max(a, key=a.get)
    return "%s %.0f%%" % (s, 100 * a[s] / tot)


def with_stage(cell, stage):
    return cell if stage == "–" or cell == "–" else "%s; %s" % (cell, stage)


def human(x):
    return "%.1fk" % (x / 1e3) if abs(x) < 1e6 else "%.2fM" % (x / 1e6)


HEADER = ("| model | nv | nefc | step | forward; largest excess | inverse; largest excess | "
          "FD transition; largest excess | analytic A, B / MuJoCo's FD; largest stage | step, "
          "moreau / MuJoCo per call | largest excess in the step |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def fmt_row(res):
    if not res.get("moreau") or not res.get("mujoco"):
        return "| %s | %s | | %s | | | | | | |" % (res["model"], res.get("nv", ""),
                                               res.get("error", "no figures"))
    mo, mj = res["moreau"], res["mujoco"]
    per = "%s / %s" % (human(mo["step"]), human(mj["step"])) if "step" in mo and \
        "step" in mj else "–"
    # both print the time and nefc after the step phase: a different line is a different rollout
    a, b = res.get("moreau_out", "").splitlines(), res.get("mujoco_out", "").splitlines()
    if a[:1] != b[:1]:
        per += " (after the steps moreau: %s, MuJoCo: %s)" % (a[:1], b[:1])
    return "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
        res["model"], res["nv"], res["nefc"], fmt_ratio(res, "step"),
        with_stage(fmt_ratio(res, "forward"), fmt_stage(res, "forward")),
        with_stage(fmt_ratio(res, "inverse"), fmt_stage(res, "inverse")),
        with_stage(fmt_ratio(res, "fd"), fmt_stage(res, "fd")),
        with_stage(fmt_ratio(res, "analytic"), fmt_largest(res, "analytic")), per,
        fmt_stage(res))


def models(names):
    zoo = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "zoo", "fetch.py"),
                          "--print"], capture_output=True, text=True).stdout.strip()
    zoo = os.environ.get("MOREAU_ZOO", zoo)
    out = [(os.path.relpath(n, ROOT) if os.path.isabs(n) else n, os.path.abspath(n))
           for n in names if os.path.isfile(n)]
    names = [n for n in names if not os.path.isfile(n)]
    if out and not names:
        return out
    for line in open(os.path.join(ROOT, "tools", "zoo", "models.txt")):
        line = line.strip()
        if not line or line.startswith("#") or " refused " in line:
            continue
        name, path = line.split()[:2]
        if names and not any(s in name for s in names):
            continue
        out.append((name, os.path.join(zoo, path)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warm", type=int, default=200)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--fd", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", default=None)
    ap.add_argument("--keep", action="store_true", help="keep the callgrind dumps (printed)")
    ap.add_argument("--from-json", default=None,
                    help="only print the table of a --json file (the last row of each model)")
    ap.add_argument("names", nargs="*")
    opt = ap.parse_args()
    if opt.from_json:
        rows = {}
        for line in open(opt.from_json):
            r = json.loads(line)
            # a later row of the model replaces an earlier one unless it has fewer figures
            old = rows.get(r["model"], {})
            if len(r.get("moreau", {})) + len(r.get("mujoco", {})) >= \
                    len(old.get("moreau", {})) + len(old.get("mujoco", {})):
                rows[r["model"]] = r
        print(HEADER)
        order = [n for n, _ in models([])]
        for n in order + [n for n in rows if n not in order]:
            if n in rows:
                print(fmt_row(rows[n]))
        return
    opt.phases = phases_binary()
    bdir = tempfile.mkdtemp(prefix="zoo_table_mj_")
    opt.mujoco_side = build_mujoco_side(bdir)
    print(HEADER, flush=True)
    js = open(opt.json, "a") if opt.json else None
    with cf.ProcessPoolExecutor(max_workers=opt.jobs) as ex:
        for res in ex.map(row_safe, [(n, p, opt) for n, p in models(opt.names)]):
            print(fmt_row(res), flush=True)
            if js:
                js.write(json.dumps(res) + "\n")
                js.flush()
    shutil.rmtree(bdir, ignore_errors=True)


def row_safe(a):
    try:
        return row(*a)
    except Exception as e:                  # noqa: BLE001 (reported in the row)
        return {"model": a[0], "error": "script error: %r" % e}


if __name__ == "__main__":
    main()
