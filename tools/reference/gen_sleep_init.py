#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for trees that start asleep (`sleep="init"`) and for what a
reset computes with the `sleep` enable flag.

Writes tests/reference/sleep_init.json, a list of cases; each has the model (`xml`), the
keyframe it is reset to (`key`, -1: `mj_resetData`), and:
- `reset`: after `MjData(m)` (`mj_makeData`) followed by the reset: `tree_asleep`, `ncon`,
  `nefc`, `nisland`, the contacts' geoms, the warnings MuJoCo printed (`mju_warning`, caught
  with `set_mju_user_warning`) and the fields in RESET_FIELDS;
- `steps`: `mj_step` from there with the kicks listed (a step index, a field, a slice and the
  values written before that step); after every fifth step and every step that changes
  `tree_asleep` (`step`: its index) `tree_asleep`, `ncon`, `nefc` and the fields in FIELDS.

The cases: sleep="init" trees alone (two boxes and a pendulum, a sphere dropped on one box
later: it wakes when touched, then falls asleep again), welded sleep="init" trees that share an
island (one cycle; a push wakes both), sleep="init" trees whose island holds another tree (a
weld, a contact: they stay awake, with MuJoCo's warning), a keyframe reset that moves one
sleep="init" tree and not another (the moved one wakes at the next step), and a model with the
flag but no sleep="init" tree (the reset computes the kinematics only). Mocap bodies are placed
at the origin during the reset's forward pass and at their poses after it.

Rerun:  python3 tools/reference/gen_sleep_init.py
"""
import json
import os

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "reference", "sleep_init.json")

FLOOR = '<geom name="floor" type="plane" size="5 5 .1"/>'

# two sleep="init" boxes on the floor and a sleep="init" pendulum, a sphere and a pendulum
# that are not, an actuated arm (never sleeps), a mocap body, sensors on the init trees
ALONE = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="a" pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa" size=".15"/></body>
<body name="b" pos="1 0 .098" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="p" pos="2 0 1" sleep="init"><joint name="hp" type="hinge" axis="0 1 0" damping=".5"/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03"/><site name="sp" pos=".4 0 0"/></body>
<body name="ball" pos="3 0 .1"><freejoint/><geom type="sphere" size=".1"/></body>
<body name="q" pos="4 0 1"><joint type="hinge" axis="0 1 0" damping=".5"/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03"/></body>
<body name="arm" pos="5 0 1"><joint name="ha" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/></body>
<body name="drop" pos="0 2 .1"><freejoint/><geom type="sphere" size=".05"/></body>
<body name="mc" mocap="true" pos="6 1 1"><geom type="box" size=".1 .1 .1"/></body>
</worldbody>
<actuator><motor joint="ha"/></actuator>
<sensor><accelerometer site="sa"/><touch site="sa"/><framepos objtype="site" objname="sa"/>
<accelerometer site="sp"/><jointpos joint="hp"/><framepos objtype="body" objname="mc"/></sensor>
</mujoco>"""

# two sleep="init" boxes welded together share an island: they fall asleep as one cycle; a
# third box is free; a push on one welded box wakes both
WELDED = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="a" pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa"/></body>
<body name="c" pos="2 0 .099"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="b" pos=".3 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody>
<equality><weld body1="a" body2="b"/></equality>
<sensor><accelerometer site="sa"/><velocimeter site="sa"/></sensor>
</mujoco>"""

# a sleep="init" box welded to a box that is not: their island holds a tree that is not
# init, so the init box stays awake (MuJoCo's warning); a lone init box sleeps
MIXED_WELD = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="b" pos="1 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="c" pos="1.3 0 .099"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody>
<equality><weld body1="b" body2="c"/></equality>
</mujoco>"""

# a sleep="init" box leaning on a box that is not (a contact joins their islands), an
# unnamed sleep="init" box alone beside them
MIXED_CONTACT = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="c" pos="0 0 .099"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="a" pos=".199 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body pos="2 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
</worldbody>
</mujoco>"""

# a keyframe that lifts one sleep="init" box and leaves the other: the reset sleeps both at
# qpos0, the keyframe moves one, the next step wakes it
KEYFRAME = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="a" pos="0 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="b" pos="1 0 .099" sleep="init"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body name="m" mocap="true" pos="0 3 1"/>
</worldbody>
<keyframe><key name="lift" time=".5" qpos="0 0 .099 1 0 0 0 1 0 .4 1 0 0 0" mpos="0 4 1"/></keyframe>
</mujoco>"""

# the flag without sleep="init" trees: the reset computes the kinematics, the centre-of-mass
# quantities and the tendons at qpos0
NO_INIT = f"""<mujoco><option><flag sleep="enable"/></option>
<worldbody>{FLOOR}
<body name="a" pos="0 0 .3" euler="0 20 0"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa"/></body>
<body name="p" pos="1 0 1"><joint type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 .4 0 0" size=".03"/><site name="sp" pos=".4 0 0"/></body>
</worldbody>
<tendon><spatial name="t"><site site="sa"/><site site="sp"/></spatial></tendon>
</mujoco>"""

RESET_FIELDS = ["qpos", "qvel", "qacc", "qacc_smooth", "qfrc_smooth", "qfrc_constraint",
                "qfrc_bias", "xpos", "xquat", "subtree_com", "cacc", "cfrc_ext", "ten_length",
                "sensordata"]
FIELDS = ["qpos", "qvel", "qacc", "qacc_smooth", "sensordata"]


def case(name, xml, nstep, key=-1, kicks=()):
    m = mujoco.MjModel.from_xml_string(xml)
    caught = []
    previous = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(caught.append)
    try:
        d = mujoco.MjData(m)
        caught.clear()
        if key >= 0:
            mujoco.mj_resetDataKeyframe(m, d, key)
        else:
            mujoco.mj_resetData(m, d)
    finally:
        mujoco.set_mju_user_warning(previous)
    reset = {
        "tree_asleep": d.tree_asleep.tolist(), "ncon": int(d.ncon), "nefc": int(d.nefc),
        "nisland": int(d.nisland), "warnings": list(caught),
        "contact_geom": [[int(c.geom1), int(c.geom2)] for c in d.contact[:d.ncon]],
        **{f: np.asarray(getattr(d, f)).ravel().tolist() for f in RESET_FIELDS},
    }
    steps = []
    for i in range(nstep):
        for k in kicks:
            if k["step"] == i:
                getattr(d, k["field"])[k["start"]:k["start"] + len(k["values"])] = k["values"]
        before = d.tree_asleep.copy()
        mujoco.mj_step(m, d)
        if i % 5 and np.array_equal(before, d.tree_asleep):
            continue
        steps.append({
            "step": i, "tree_asleep": d.tree_asleep.tolist(), "ncon": int(d.ncon),
            "nefc": int(d.nefc),
            **{f: np.asarray(getattr(d, f)).ravel().tolist() for f in FIELDS},
        })
    print(f"{name}: reset tree_asleep {reset['tree_asleep']} ncon {reset['ncon']}, "
          f"{len(caught)} warning(s); {nstep} steps ({len(steps)} recorded), final tree_asleep "
          f"{d.tree_asleep.tolist()}")
    return {"name": name, "xml": xml, "key": key, "kicks": list(kicks), "nstep": nstep,
            "reset": reset, "steps": steps}


def main():
    out = {"mujoco": mujoco.__version__, "cases": [
        # the small sphere is lifted above box a and falls on it at step 20
        case("alone", ALONE, 400, kicks=[
            {"step": 20, "field": "qpos", "start": 24, "values": [0.0, 0.0, 0.5]}]),
        case("welded", WELDED, 120, kicks=[
            {"step": 30, "field": "qvel", "start": 12, "values": [0.0, 0.0, 0.5]}]),
        case("mixed_weld", MIXED_WELD, 40),
        case("mixed_contact", MIXED_CONTACT, 40),
        case("keyframe", KEYFRAME, 60, key=0),
        case("no_init", NO_INIT, 10),
    ]}
    with open(OUT, "w") as f:
        json.dump(out, f)
    print(f"wrote {OUT} ({os.path.getsize(OUT) / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
