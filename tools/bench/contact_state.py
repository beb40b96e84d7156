"""Writes the contact state `moreau bench` and bench_mujoco.py use (keyframe 0 with zero controls,
or the reset state; step with MuJoCo 4.0.0 until constraint rows appear) as a `moreau` state
file with its warm start (qpos, qvel, act, ctrl, qacc_warmstart), e.g. for callgrind runs of

    moreau derivatives MODEL --state STATE.json --kind transition --method fd

    python3 tools/bench/contact_state.py models/humanoid.xml /tmp/humanoid_c.json [NSTEPS]

With NSTEPS, step exactly that many times instead.
"""
import json
import sys

import mujoco


def main():
    path, out = sys.argv[1], sys.argv[2]
    nsteps = int(sys.argv[3]) if len(sys.argv) > 3 else None
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
        d.ctrl[:] = 0
    for _ in range(3000 if nsteps is None else nsteps):
        mujoco.mj_step(m, d)
        if nsteps is None and d.nefc > 0:
            break
    keys = ["qpos", "qvel", "act", "ctrl", "qacc_warmstart"]
    with open(out, "w") as f:
        json.dump({k: getattr(d, k).tolist() for k in keys}, f)
    print(f"{out}: time {d.time:g}, nefc {d.nefc}")


if __name__ == "__main__":
    main()
