#!/usr/bin/env python3
"""The rollout cost of the Panda fit between moreau's and `mujoco.sysid`'s estimates.

Reads `report.json` and `moreau.json` written by `tools/robots/sysid_panda.py` (default
`target/sysid_panda/`), evaluates `mujoco.sysid`'s own residual (MuJoCo 4.0.0) at
`x(s) = moreau + s (mujoco − moreau)` on a grid of `s`, locates the largest jump of the cost
by bisection, and prints which friction-loss rows change their state between the two sides of
the jump (the first step where the rollouts differ).

Run: `python3 tools/robots/sysid_segment.py [--out target/sysid_panda]`.
"""

import argparse
import json
import pathlib
import sys

import mujoco
import numpy as np
from mujoco import sysid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import sysid_panda as S  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(S.ROOT / "target/sysid_panda"))
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    report = json.loads((out / "report.json").read_text())
    duration = report["steps"] * 0.002
    plist, _truth, model, _q0, init, t, ctrl, state, _sensor, noisy = S.make_log(duration, 7)
    if len(t) != report["steps"]:
        sys.exit("report.json was written for another log length")
    spec = S.load_spec()
    params = sysid.ParameterDict()
    for name, _k, _i, v0, _start, lo, hi, mod in plist:
        params.add(sysid.Parameter(name, nominal=v0, min_value=lo, max_value=hi, modifier=mod))
    ms = sysid.ModelSequences(
        "panda", spec, "excitation", init, sysid.TimeSeries(t, ctrl),
        sysid.TimeSeries.from_names(state[:, 0], noisy, spec.compile()))
    residual = sysid.build_residual_fn(models_sequences=[ms])

    def cost(x):
        r, _, _ = residual(np.asarray(x, float), params)
        return float(0.5 * np.sum(np.concatenate(r) ** 2))

    a = np.array([row["mujoco"] for row in report["rows"]])
    b = np.array(json.loads((out / "moreau.json").read_text())["estimate"])
    grid = np.linspace(0.0, 1.0, 21)
    costs = [cost(b + s * (a - b)) for s in grid]
    print("s      cost (mujoco.sysid's residual)")
    for s, c in zip(grid, costs):
        print(f"{s:.2f}   {c:.6e}")
    k = int(np.argmax(np.abs(np.diff(costs))))
    lo, hi, clo, chi = grid[k], grid[k + 1], costs[k], costs[k + 1]
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        cm = cost(b + mid * (a - b))
        if abs(cm - clo) < abs(cm - chi):
            lo, clo = mid, cm
        else:
            hi, chi = mid, cm
    print(f"largest change: {clo:.6e} to {chi:.6e} at s = {lo:.9f} (bracket {hi - lo:.1e})")

    def rollout(values):
        spec = S.load_spec()
        tmp = sysid.ParameterDict()
        for (name, _k, _i, _v0, _s, plo, phi, mod), v in zip(plist, values):
            tmp.add(sysid.Parameter(name, nominal=v, min_value=plo, max_value=phi,
                                    modifier=mod))
            mod(spec, tmp[name])
        m = spec.compile()
        d = mujoco.MjData(m)
        mujoco.mj_setState(m, d, init, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        qpos, rows = [], []
        for i in range(len(ctrl) - 1):
            d.ctrl[:] = ctrl[i]
            mujoco.mj_step(m, d)
            qpos.append(d.qpos.copy())
            rows.append([(int(d.efc_type[r]), int(d.efc_id[r]), int(d.efc_state[r]))
                         for r in range(d.nefc)])
        return np.array(qpos), rows

    q1, rows1 = rollout(b + lo * (a - b))
    q2, rows2 = rollout(b + hi * (a - b))
    first = next((i for i in range(len(rows1)) if rows1[i] != rows2[i]), None)
    if first is None:
        print("the two sides' rollouts have the same constraint states at every step")
        return
    friction = int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF)
    for (ty, i, s1), (_, _, s2) in zip(rows1[first], rows2[first]):
        if s1 != s2:
            kind = "friction loss" if ty == friction else f"type {ty}"
            st1, st2 = (mujoco.mjtConstraintState(x).name for x in (s1, s2))
            print(f"step {first}: {kind} row of dof {i}: {st1} on one side, {st2} on the other")
    dq = np.abs(q1 - q2).max(axis=1)
    print(f"qpos differs by {dq[first]:.2e} rad after that step, {dq.max():.2e} at most")


if __name__ == "__main__":
    main()
