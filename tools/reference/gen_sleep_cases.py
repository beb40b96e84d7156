#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for sleeping trees (the `sleep` enable flag) and explicit pairs.

Writes tests/reference/sleep_cases.json:
- `rollouts`: models stepped with `mj_step` from `mj_resetData`, with the kicks listed (a
  step index, a field, a slice and the values written before that step) and the controls of
  every step; after every third step and every step that changes `tree_asleep` (`step`: its
  index) `tree_asleep`, `ncon`, `nefc`, `qpos`, `qvel`, `qacc`,
  `qacc_smooth`, `cvel`, `cacc`, `cfrc_ext`, `cfrc_int`, `subtree_linvel`, `subtree_angmom` and
  `sensordata`. They cover what a sleeping tree keeps: the fields of the step it fell asleep in
  (computed at its zero velocity, with its contacts), its sensors' values, and `cacc`,
  `cfrc_*`, `subtree_*` of every body while no awake sensor asks for them.
- `pairs`: a model with explicit `<pair>`s in an unsorted document order: MuJoCo's
  `pair_geom1`, `pair_geom2`, `pair_signature`, `pair_margin` (which tells the pairs apart)
  and, after one `mj_forward`, each contact's geoms in order.

Rerun:  python3 tools/reference/gen_sleep_cases.py
"""
import json
import os

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "reference", "sleep_cases.json")

# two stacked boxes and a sphere, with sensors on the boxes
STACK = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/>
<body name="b0" pos="0 0 .12"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="s0" size=".15"/></body>
<body name="b1" pos="0.02 0 .33"><freejoint/><geom type="box" size=".1 .1 .1"/><site name="s1"/></body>
<body name="ball" pos="1 0 .3"><freejoint/><geom type="sphere" size=".1"/></body>
</worldbody>
<sensor><accelerometer site="s0"/><velocimeter site="s0"/><gyro site="s0"/><force site="s0"/>
<torque site="s0"/><touch site="s0"/><framelinacc objtype="site" objname="s1"/>
<frameangacc objtype="site" objname="s1"/><framelinvel objtype="site" objname="s1"/>
<subtreelinvel body="b1"/><subtreeangmom body="b1"/><framepos objtype="site" objname="s0"
reftype="site" refname="s1"/><clock/></sensor></mujoco>"""

# a damped pendulum that falls asleep with its accelerometer and joint sensors
PENDULUM = """<mujoco><option><flag sleep="enable"/></option><worldbody>
<body name="p" pos="0 0 1"><joint name="h" type="hinge" axis="0 1 0" damping="3"/>
  <geom type="capsule" fromto="0 0 0 0 0 -.3" size=".03"/><site name="sp" pos="0 0 -.3"/></body>
</worldbody><sensor><accelerometer site="sp"/><jointpos joint="h"/><jointvel joint="h"/>
<framelinacc objtype="site" objname="sp"/><subtreelinvel body="p"/></sensor></mujoco>"""

# a box asleep on the floor beside a pendulum its motor keeps awake: the awake accelerometer
# makes MuJoCo compute cacc for every body, the box's sensors keep their values
AWAKE = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom type="plane" size="5 5 .1"/><site name="w" pos="2 0 0" size=".5"/>
<body name="a" pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .1"/>
  <site name="sa" size=".2"/></body>
<body name="b" pos="2 0 .3"><joint name="hb" type="hinge" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/><site name="sb" pos=".3 0 0"/></body>
<body name="c" pos="2 .2 .3"><freejoint/><geom size=".05"/></body>
</worldbody>
<actuator><motor joint="hb" gear="1"/></actuator>
<sensor><accelerometer site="sa"/><force site="sa"/><torque site="sa"/>
<framelinacc objtype="site" objname="sa"/><frameangacc objtype="site" objname="sa"/>
<touch site="sa"/><contact body1="a" data="found force"/><touch site="w"/>
<accelerometer site="sb"/><framepos objtype="site" objname="sa" reftype="site" refname="sb"/>
</sensor></mujoco>"""

# two boxes that touch the floor and each other only through explicit pairs (their geoms
# collide with nothing else), and a sphere dropped on them later through a pair
PAIRS = """<mujoco><option><flag sleep="enable"/></option>
<worldbody><geom name="floor" type="plane" size="5 5 .1" contype="0" conaffinity="0"/>
<body name="a" pos="0 0 .12"><freejoint/>
  <geom name="ga" type="box" size=".1 .1 .1" contype="0" conaffinity="0"/><site name="sa"/></body>
<body name="b" pos="0.02 0 .33"><freejoint/>
  <geom name="gb" type="box" size=".1 .1 .1" contype="0" conaffinity="0"/></body>
<body name="c" pos="1 0 .12"><freejoint/>
  <geom name="gc" type="sphere" size=".1" contype="0" conaffinity="0"/></body>
</worldbody><contact><pair geom1="gc" geom2="gb" margin=".01"/><pair geom1="gb" geom2="ga"/>
<pair geom1="floor" geom2="gc"/><pair geom1="ga" geom2="floor"/></contact>
<sensor><accelerometer site="sa"/></sensor></mujoco>"""


def rollout(name, xml, nstep, kicks=(), ctrl=None):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    steps, ctrls = [], []
    for i in range(nstep):
        for k in kicks:
            if k["step"] == i:
                getattr(d, k["field"])[k["start"]:k["start"] + len(k["values"])] = k["values"]
        u = [float(x) for x in ctrl(i)] if ctrl else []
        d.ctrl[:] = u
        ctrls.append(u)
        before = d.tree_asleep.copy()
        mujoco.mj_step(m, d)
        # every third step, and every step in which a tree falls asleep or wakes
        if i % 3 and np.array_equal(before, d.tree_asleep):
            continue
        steps.append({
            "step": i, "tree_asleep": d.tree_asleep.tolist(), "ncon": int(d.ncon),
            "nefc": int(d.nefc),
            **{f: np.asarray(getattr(d, f)).ravel().tolist() for f in FIELDS},
        })
    asleep = [s["step"] for s in steps if max(s["tree_asleep"]) >= 0]
    print(f"{name}: {nstep} steps ({len(steps)} recorded), some tree asleep in {len(asleep)} "
          f"recorded, final tree_asleep {d.tree_asleep.tolist()}")
    return {"name": name, "xml": xml, "kicks": list(kicks), "ctrl": ctrls, "steps": steps}


FIELDS = ["qpos", "qvel", "qacc", "qacc_smooth", "cvel", "cacc", "cfrc_ext", "cfrc_int",
          "subtree_linvel", "subtree_angmom", "sensordata"]


def pairs():
    xml = """<mujoco><worldbody><geom name="floor" type="plane" size="5 5 .1"/>
<body name="a" pos="0 0 .09"><freejoint/><geom name="ga" size=".1"/><geom name="ga2" size=".1" pos=".05 0 0"/></body>
<body name="b" pos=".1 0 .25"><freejoint/><geom name="gb" size=".1"/></body>
<body name="c" pos=".2 0 .09"><freejoint/><geom name="gc" size=".1"/></body>
</worldbody><contact>
<pair geom1="gc" geom2="gb" margin=".001"/><pair geom1="ga2" geom2="floor" margin=".002"/>
<pair geom1="gb" geom2="ga" margin=".003"/><pair geom1="floor" geom2="gc" margin=".004"/>
<pair geom1="ga" geom2="floor" margin=".005"/><pair geom1="gb" geom2="gc" margin=".006"/>
<pair geom1="ga2" geom2="gc" margin=".007"/>
</contact></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    return {"xml": xml, "pair_geom1": m.pair_geom1.tolist(), "pair_geom2": m.pair_geom2.tolist(),
            "pair_signature": m.pair_signature.tolist(), "pair_margin": m.pair_margin.tolist(),
            "contact_geom": [[int(c.geom1), int(c.geom2)] for c in d.contact[:d.ncon]],
            "contact_dist": [float(c.dist) for c in d.contact[:d.ncon]]}


def main():
    out = {"mujoco": mujoco.__version__, "rollouts": [
        rollout("stack", STACK, 600, kicks=[
            {"step": 300, "field": "qpos", "start": 14, "values": [0.02, 0.0, 0.55]},
            {"step": 300, "field": "qvel", "start": 12, "values": [0.0, 0.0, -1.0]}]),
        rollout("pendulum", PENDULUM, 150,
                kicks=[{"step": 0, "field": "qvel", "start": 0, "values": [0.3]}]),
        rollout("awake_sensor", AWAKE, 300,
                kicks=[{"step": 0, "field": "qvel", "start": 7, "values": [1.0]}],
                ctrl=lambda i: [np.sin(i * 0.05)]),
        rollout("pairs", PAIRS, 450, kicks=[
            {"step": 250, "field": "qpos", "start": 14, "values": [0.02, 0.0, 0.6]}]),
    ], "pairs": pairs()}
    with open(OUT, "w") as f:
        json.dump(out, f)
    print(f"wrote {OUT} ({os.path.getsize(OUT) / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
