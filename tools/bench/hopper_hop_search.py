"""How the gains of the hop controller in `moreau_problems::hopper_hop` were found
(the controller whose engine rollout is the collocation's initial guess): a random search in
MuJoCo 4.0.0 (`pip install mujoco==4.0.0`) over crouch depth, push-off knee angle, torso lean,
pitch gains and phase times, scoring a 0.6 s rollout of `models/hopper_hop.xml` by how close it
ends to 0.15 m forward, upright and at rest, with at least 5 knots of flight.

    python3 tools/bench/hopper_hop_search.py            # search, print the 5 best
    python3 tools/bench/hopper_hop_search.py 0.185 0.676 -0.237 59 15.2 0.104 0.251 60
                                                        # one rollout, printed every 3 steps
"""
import os
import sys

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
m = mujoco.MjModel.from_xml_path(os.path.join(HERE, "..", "..", "models", "hopper_hop.xml"))
d = mujoco.MjData(m)
a = 0.5  # stance: hip a, knee -2a


def settle():
    """Standing start as in hopper_hop: foot on the floor, joints held by PD for 0.3 s."""
    mujoco.mj_resetData(m, d)
    d.qpos[:] = [0, 0, 0, a, -2 * a]
    mujoco.mj_kinematics(m, d)
    d.qpos[1] = -d.geom_xpos[m.geom("foot").id][2] + 0.04
    for _ in range(30):
        d.ctrl[:] = 100 * (np.array([a, -2 * a]) - d.qpos[3:5]) - 5 * d.qvel[3:5]
        mujoco.mj_step(m, d)
    d.qvel[:] = 0
    d.qpos[2] = 0
    d.qpos[0] = 0
    return d.qpos.copy()


q0 = settle()


def run(p, T=60, verbose=False):
    crouch, push, lean, kpp, kdp, t1, t2 = p
    d.qpos[:] = q0
    d.qvel[:] = 0
    d.time = 0
    kp, kd = 100, 5
    flight = 0
    for t in range(T):
        time = t * 0.01
        pitch, pr = d.qpos[2], d.qvel[2]
        if time < t1:
            knee = -2 * (a + crouch)
        elif time < t2:
            knee = -push
        else:
            knee = -2 * a
        uk = kp * (knee - d.qpos[4]) - kd * d.qvel[4]
        if time < t2:
            uh = kpp * (pitch - lean) + kdp * pr
        else:
            uh = kp * (a - d.qpos[3]) - kd * d.qvel[3]
        d.ctrl[:] = [uh, uk]
        mujoco.mj_step(m, d)
        if d.ncon == 0:
            flight += 1
        if verbose and t % 3 == 0:
            print(t, np.round(d.qpos, 3), d.ncon, np.round(d.ctrl, 1))
    return flight, d.qpos.copy(), d.qvel.copy()


if len(sys.argv) > 1:
    run([float(x) for x in sys.argv[1:8]], int(sys.argv[8]), True)
    sys.exit()
rng = np.random.default_rng(0)
best = []
for i in range(3000):
    p = [rng.uniform(0, 0.3), rng.uniform(0.2, 1.0), rng.uniform(-0.3, 0.3),
         rng.uniform(0, 100), rng.uniform(0, 20), rng.uniform(0.05, 0.15), rng.uniform(0.15, 0.3)]
    fl, q, v = run(p)
    if fl < 5:
        continue
    score = abs(q[2]) + abs(v[2]) * 0.2 + abs(q[0] - 0.15) * 3 + np.linalg.norm(v[:2]) * 0.2
    best.append((score, fl, p, np.round(q, 3), np.round(v, 2)))
best.sort(key=lambda x: x[0])
for b in best[:5]:
    print(b)
