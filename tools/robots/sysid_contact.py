#!/usr/bin/env python3
"""Contact parameters (friction, solref) from drop-and-slide logs, by moreau and by
`mujoco.sysid`, on the same data and the same parameterization, in one run.

The body is the foot of MuJoCo Menagerie's Unitree Go1 (`unitree_go1/go1.xml`, default class
"foot": a sphere of radius 0.023 m, priority 1, solimp 0.015 1 0.023, condim 6, friction 0.8
0.02 0.01) on a free joint over a floor, with a mass of 0.25 kg, in a scene written here
(`FOOT`): its priority gives every contact the foot's own friction and solref (Modeling
"Contact"). Two motors on the free joint push it: `push` along x, `press` along a line tilted
53 degrees down from x (gear 0.6 0 -0.8), which loads the contact while it pushes. Sensors read
the state exactly: `framepos`, `framequat`, `framelinvel` of the body and a `gyro` at a site on
the body frame are `qpos` and `qvel` of the free joint.

Why a foot and not the whole robot, nor Menagerie's cube: a parameter shared by the Go1's four
feet is not one geom's (moreau's `Param` names one geom), and Menagerie's cube
(`franka_emika_panda/mjx_single_cube.xml`, 4 x 4 x 6 cm) rests on four corner contacts that
rock and tip while it slides (standing, tipping starts at friction 0.02/0.03 = 0.67): its
rollout cost jumps by the noise level between friction 0.60 and 0.61, and `mujoco.sysid` stops
at friction 0.71, solref 0.0099 0.41 (cost 252 against 60 at the truth). The sphere's single
contact gives a smooth cost.

The experiment (`TRAJECTORIES`) separates the parameters: drops from three heights (the
impact's depth and rebound: solref's time constant and damping ratio), slides at three initial
speeds (sliding until friction makes it roll: friction), a drop while moving, and a tilted
push whose force ramps up.

1. Logs the "true" foot (friction 0.5, solref 0.03 0.6) with MuJoCo 4.0.0, Gaussian noise on
   the sensors (1e-4 on positions and quaternion components, 1e-3 on velocities).
2. Runs `mujoco.sysid` from Menagerie's values (rollout residual of the sensors normalized per
   signal and trajectory, `mujoco.minimize.least_squares` with finite-difference Jacobians,
   `calculate_intervals`), timed (wall and CPU of the process), its rollouts counted.
3. Runs moreau's `fit_rollout_logs_with` on the same logs, parameters and start
   (`optim/examples/sysid_panda.rs`, which reads any model and these parameter kinds).
4. Prints both estimates with their 95% intervals against the truth, wall and CPU time,
   rollouts; writes `target/sysid_contact/report.json`, PNG plots and `report.html`.

Run from the repository root with a Python that has `mujoco[sysid]==4.0.0`:
`python3 tools/robots/sysid_contact.py [--moreau-bin target/release/examples/sysid_panda]`.
`--write-reference` also stores the log (with `--quick` the test's short one: a drop, a slide
and the tilted push), with `mujoco.sysid`'s estimate and intervals on it, as `tests/reference/sysid_contact_log.json` with the scene as
`models/sysid_contact_foot.xml` (the input of `cargo test -p moreau-optim --test optim
sysid_contact::`).
"""

import argparse
import base64
import io
import json
import pathlib
import sys
import time

import mujoco
import mujoco.rollout as rollout
import numpy as np
from mujoco import sysid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from sysid_panda import intervals, optimize_timed, rollout_cost, run_moreau  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The foot of Menagerie's Unitree Go1 (unitree_go1/go1.xml, default class "foot": a sphere of
# radius 0.023 m, priority 1, solimp 0.015 1 0.023, condim 6, friction 0.8 0.02 0.01) on a free
# joint over a floor. Its priority puts its own friction and solref on every contact (Modeling
# "Contact": the geom with the higher priority decides); the floor's friction is lower anyway.
FOOT = """<mujoco model="Go1 foot, drop and slide">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 0.05" friction="0.1 0.005 0.0001"/>
    <body name="foot" pos="0 0 0.023">
      <freejoint name="foot"/>
      <geom type="sphere" name="foot" size="0.023" mass="0.25" priority="1"
        solimp="0.015 1 0.023" condim="6" friction="0.8 0.02 0.01"/>
      <site name="imu"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="push" joint="foot" gear="1 0 0 0 0 0"/>
    <motor name="press" joint="foot" gear="0.6 0 -0.8 0 0 0"/>
  </actuator>
  <sensor>
    <framepos name="pos" objtype="body" objname="foot"/>
    <framequat name="quat" objtype="body" objname="foot"/>
    <framelinvel name="linvel" objtype="body" objname="foot"/>
    <gyro name="angvel" site="imu"/>
  </sensor>
</mujoco>
"""

# (name, kind, geom, start, truth, lo, hi): the start is Menagerie's value (solref: MuJoCo's
# default 0.02 1, which the foot inherits)
PARAMS = [
    ("foot_friction", "friction", "foot", 0.8, 0.5, 0.05, 2.0),
    ("foot_solref_timeconst", "solref_timeconst", "foot", 0.02, 0.03, 0.004, 0.1),
    ("foot_solref_dampratio", "solref_dampratio", "foot", 1.0, 0.6, 0.1, 3.0),
]
RADIUS = 0.023  # the foot's center height touching the floor
# (name, duration s, drop height m, initial x velocity m/s, control)
TRAJECTORIES = [
    ("drop 3 cm", 0.3, 0.03, 0.0, "none"),
    ("drop 8 cm", 0.3, 0.08, 0.0, "none"),
    ("drop 15 cm", 0.35, 0.15, 0.0, "none"),
    ("slide 0.5 m/s", 0.25, 0.0, 0.5, "none"),
    ("slide 1 m/s", 0.3, 0.0, 1.0, "none"),
    ("slide 1.5 m/s", 0.4, 0.0, 1.5, "none"),
    ("drop 5 cm at 1 m/s", 0.35, 0.05, 1.0, "none"),
    ("tilted push", 0.6, 0.0, 0.0, "ramp"),
]
QUICK = [  # the test's log: short, one of each kind
    ("drop 8 cm", 0.2, 0.08, 0.0, "none"),
    ("slide 1 m/s", 0.25, 0.0, 1.0, "none"),
    ("tilted push", 0.5, 0.0, 0.0, "ramp"),
]
SIGMA_Q = 1e-4
SIGMA_V = 1e-3


def modifier(kind, geom):
    def mod(spec, p):
        g = spec.geom(geom)
        if kind == "friction":
            g.friction[0] = p.value[0]
        elif kind == "solref_timeconst":
            g.solref[0] = p.value[0]
        else:
            g.solref[1] = p.value[0]

    return mod


def spec_with(values=None):
    spec = mujoco.MjSpec.from_string(FOOT)
    if values is not None:
        tmp = sysid.ParameterDict()
        for (name, kind, geom, _s, _t, lo, hi), v in zip(PARAMS, values):
            tmp.add(sysid.Parameter(name, nominal=v, min_value=lo, max_value=hi,
                                    modifier=modifier(kind, geom)))
            modifier(kind, geom)(spec, tmp[name])
    return spec


def controls(model, steps, kind):
    t = np.arange(steps) * model.opt.timestep
    u = np.zeros((steps, model.nu))
    if kind == "ramp":
        # the press motor ramps 0 → 12 N over the log after 0.05 s at rest
        u[:, 1] = np.clip((t - 0.05) / 0.55, 0.0, 1.0) * 12.0
    return t, u


def make_logs(trajs, seed):
    truth = [p[4] for p in PARAMS]
    model = spec_with(truth).compile()
    rng = np.random.default_rng(seed)
    nq = model.nq
    logs = []
    for name, duration, h, vx, ckind in trajs:
        data = mujoco.MjData(model)
        qpos0 = model.qpos0.copy()
        qpos0[2] = RADIUS + h
        qvel0 = np.zeros(model.nv)
        qvel0[0] = vx
        steps = int(round(duration / model.opt.timestep))
        t, ctrl = controls(model, steps, ckind)
        init = sysid.create_initial_state(model, qpos0, qvel0, data.act)
        state, sensor = rollout.rollout(model, data, init, ctrl[:-1])
        state, sensor = np.squeeze(state, 0), np.squeeze(sensor, 0)
        # the sensors are the state, qpos (7) and qvel (6): row k before step k
        x = np.vstack([init[1:1 + nq + model.nv], state[:-1, 1:1 + nq + model.nv]])
        err = np.abs(sensor - x).max()
        assert err < 1e-12, f"sensors are not the state: {err}"
        noisy = sensor.copy()
        noisy[:, :nq] += SIGMA_Q * rng.standard_normal(noisy[:, :nq].shape)
        noisy[:, nq:] += SIGMA_V * rng.standard_normal(noisy[:, nq:].shape)
        logs.append(dict(name=name, qpos0=qpos0, qvel0=qvel0, init=init, t=t, ctrl=ctrl,
                         state=state, sensor=sensor, noisy=noisy))
    return model, logs, truth


def residual_function(logs):
    spec = spec_with()
    model = spec.compile()
    ms = sysid.ModelSequences(
        "foot", spec, [lg["name"] for lg in logs], [lg["init"] for lg in logs],
        [sysid.TimeSeries(lg["t"], lg["ctrl"]) for lg in logs],
        [sysid.TimeSeries.from_names(lg["state"][:, 0], lg["noisy"], model) for lg in logs],
    )
    return sysid.build_residual_fn(models_sequences=[ms])


def start_params():
    params = sysid.ParameterDict()
    for name, kind, geom, start, _t, lo, hi in PARAMS:
        params.add(sysid.Parameter(name, nominal=start, min_value=lo, max_value=hi,
                                   modifier=modifier(kind, geom)))
    return params


def run_mujoco(logs, max_iters):
    inner = residual_function(logs)
    nlogs = len(logs)
    count = [0]
    history = []

    def residual_fn(x, p, **kw):
        # rollouts: one per log per parameter vector (a matrix x holds one vector per column)
        count[0] += nlogs * (1 if np.ndim(x) == 1 else np.shape(x)[1])
        out = inner(x, p, **kw)
        if np.ndim(x) == 1:
            history.append(0.5 * float(np.sum(np.concatenate(out[0]) ** 2)))
        return out

    params = start_params()
    opt, res, wall, cpu = optimize_timed(params, residual_fn, max_iters)
    x, half = intervals(inner, opt, res)
    return x, half, wall, cpu, count[0], history, inner, opt


def log_json(lg, nq):
    return {"name": lg["name"], "qpos0": lg["qpos0"].tolist(), "qvel0": lg["qvel0"].tolist(),
            "ctrl": lg["ctrl"].tolist(), "sensor_qpos": lg["noisy"][:, :nq].tolist(),
            "sensor_qvel": lg["noisy"][:, nq:].tolist()}


def write_log(path, model_path, model, logs, truth, source=None, mujoco_fit=None):
    log = {
        "model": model_path,
        "timestep": model.opt.timestep,
        "logs": [log_json(lg, model.nq) for lg in logs],
        "sigma_q": SIGMA_Q,
        "sigma_v": SIGMA_V,
        "params": [{"name": p[0], "kind": p[1], "object": p[2], "start": p[3], "lo": p[5],
                    "hi": p[6]} for p in PARAMS],
        "truth": truth,
    }
    if source:
        log["source"] = source
    if mujoco_fit:
        log["mujoco_sysid"] = mujoco_fit  # its estimate and 95% half-widths on this log
    path.write_text(json.dumps(log))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "target/sysid_contact"))
    ap.add_argument("--moreau-bin", default=None,
                    help="prebuilt sysid_panda example (default: cargo run --release)")
    ap.add_argument("--quick", action="store_true", help="the test's short log")
    ap.add_argument("--max-iters", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--write-reference", action="store_true")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "foot.xml").write_text(FOOT)

    trajs = QUICK if args.quick else TRAJECTORIES
    model, logs, truth = make_logs(trajs, args.seed)
    write_log(out / "log.json", str(out / "foot.xml"), model, logs, truth)
    steps = sum(len(lg["t"]) for lg in logs)
    print(f"mujoco.sysid: {len(PARAMS)} parameters, {len(logs)} logs, {steps} steps ...",
          flush=True)
    mj_x, mj_half, mj_wall, mj_cpu, mj_rollouts, mj_hist, residual_fn, mj_opt = run_mujoco(
        logs, args.max_iters)
    print(f"mujoco.sysid: {mj_wall:.2f} s, CPU {mj_cpu:.2f} s", flush=True)
    if args.write_reference:
        (ROOT / "models/sysid_contact_foot.xml").write_text(FOOT)
        write_log(ROOT / "tests/reference/sysid_contact_log.json",
                  "models/sysid_contact_foot.xml", model, logs, truth,
                  f"tools/robots/sysid_contact.py --write-reference"
                  f"{' --quick' if args.quick else ''} (MuJoCo 4.0.0, seed {args.seed})",
                  {"estimate": mj_x.tolist(), "half_width": mj_half.tolist(),
                   "truth_cost": rollout_cost(residual_fn, mj_opt)(truth)})

    mo, mo_x, mo_half = run_moreau(args.moreau_bin, out)
    mo_wall, mo_cpu = mo["wall_s"], mo.get("cpu_s")
    # the same residual (mujoco.sysid's) at the truth, the start and both estimates
    cost = rollout_cost(residual_fn, mj_opt)

    rows = []
    for k, p in enumerate(PARAMS):
        rows.append({
            "name": p[0], "truth": truth[k], "start": p[3],
            "mujoco": mj_x[k], "mujoco_half": mj_half[k],
            "moreau": mo_x[k], "moreau_half": mo_half[k],
            "mujoco_covers_truth": bool(abs(mj_x[k] - truth[k]) <= mj_half[k]),
            "moreau_covers_truth": bool(abs(mo_x[k] - truth[k]) <= mo_half[k]),
            "moreau_in_mujoco_interval": bool(abs(mo_x[k] - mj_x[k]) <= mj_half[k]),
        })
    report = {
        "logs": [lg["name"] for lg in logs], "steps": steps, "parameters": len(PARAMS),
        "mujoco": {"wall_s": mj_wall, "cpu_s": mj_cpu, "rollouts": mj_rollouts,
                   "rollout_cost": cost(mj_x)},
        "moreau": {"wall_s": mo_wall, "cpu_s": mo_cpu, "iterations": mo["iterations"],
                   "rollouts": mo["rollouts"], "rollout_cost": cost(mo_x),
                   "jacobian": mo.get("jacobian")},
        "truth_rollout_cost": cost(truth),
        "start_rollout_cost": cost([p[3] for p in PARAMS]),
        "cpu_ratio": mo_cpu / mj_cpu if mo_cpu is not None and mj_cpu > 0 else None,
        "rows": rows,
    }
    (out / "report.json").write_text(json.dumps(report, indent=1))
    print(f"\n{'parameter':<22}{'truth':>8}{'mujoco.sysid ± 95%':>26}{'moreau ± 95%':>26}")
    for r in rows:
        print(f"{r['name']:<22}{r['truth']:8.4f}{r['mujoco']:14.5f} ± {r['mujoco_half']:<9.5f}"
              f"{r['moreau']:14.5f} ± {r['moreau_half']:<9.5f}")
    print(f"truth inside the interval: mujoco.sysid "
          f"{sum(r['mujoco_covers_truth'] for r in rows)}/{len(rows)}, moreau "
          f"{sum(r['moreau_covers_truth'] for r in rows)}/{len(rows)}; moreau inside "
          f"mujoco.sysid's interval {sum(r['moreau_in_mujoco_interval'] for r in rows)}/"
          f"{len(rows)}")
    print(f"wall: mujoco.sysid {mj_wall:.3f} s, moreau {mo_wall:.3f} s; CPU: mujoco.sysid "
          f"{mj_cpu:.3f} s ({mj_rollouts} rollouts of one log), moreau {mo_cpu} s "
          f"({mo['iterations']} iterations, {mo['rollouts']} rollouts of one log)")
    print(f"rollout cost ½‖r‖² (MuJoCo's residual): truth {report['truth_rollout_cost']:.5g}, "
          f"start {report['start_rollout_cost']:.5g}, mujoco.sysid "
          f"{report['mujoco']['rollout_cost']:.5g}, moreau {report['moreau']['rollout_cost']:.5g}")
    plots(out, rows, logs, truth, mj_x, mo_x, mj_hist, mo.get("cost_history", []), report)
    print(f"report: {out / 'report.html'}")


def simulate(values, lg):
    m = spec_with(values).compile()
    _, sensor = rollout.rollout(m, mujoco.MjData(m), lg["init"], lg["ctrl"][:-1])
    return np.squeeze(sensor, 0)


def plots(out, rows, logs, truth, mj_x, mo_x, mj_hist, mo_hist, report):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    start = [p[3] for p in PARAMS]
    images = {}

    def save(fig, name):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=80)
        (out / f"{name}.png").write_bytes(buf.getvalue())
        images[name] = buf.getvalue()
        plt.close(fig)

    # per log: height (drops) or x velocity (slides, push), measured and simulated
    fig, axes = plt.subplots(len(logs), 1, figsize=(10, 2.2 * len(logs)))
    axes = np.atleast_1d(axes)
    for ax, lg in zip(axes, logs):
        k, lab = (2, "z (m)") if lg["qvel0"][0] == 0 and "push" not in lg["name"] else (7, "vx (m/s)")
        tt = lg["t"][: lg["noisy"].shape[0]]
        ax.plot(tt, lg["noisy"][:, k], ".", ms=2, color="0.6", label="measured")
        for name, vals, c, ls in (("start (Menagerie)", start, "tab:red", "-"),
                                  ("mujoco.sysid", mj_x, "tab:blue", "-"),
                                  ("moreau", mo_x, "tab:green", "--")):
            ax.plot(tt, simulate(vals, lg)[:, k], color=c, ls=ls, lw=1, label=name)
        ax.set_ylabel(lab)
        ax.set_title(lg["name"], fontsize=9)
    axes[0].legend(loc="upper right", ncol=4, fontsize=8)
    axes[-1].set_xlabel("t (s)")
    fig.tight_layout()
    save(fig, "signals")

    fig, axes = plt.subplots(1, len(rows), figsize=(10, 3))
    for ax, r in zip(axes, rows):
        ax.errorbar([0], [r["mujoco"]], yerr=[r["mujoco_half"]], fmt="o", label="mujoco.sysid")
        ax.errorbar([1], [r["moreau"]], yerr=[r["moreau_half"]], fmt="s", label="moreau")
        ax.axhline(r["truth"], color="k", lw=0.7, label="truth")
        ax.set_xticks([0, 1], ["mujoco.sysid", "moreau"], fontsize=8)
        ax.set_title(r["name"], fontsize=9)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    save(fig, "intervals")

    fig, ax = plt.subplots(figsize=(6, 3.5))
    if mj_hist:
        ax.semilogy(mj_hist, ".-", label="mujoco.sysid (every residual evaluation)")
    if mo_hist:
        ax.semilogy(mo_hist, "s-", label="moreau (after each iteration)")
    ax.axhline(report["truth_rollout_cost"], color="k", lw=0.7, label="at the truth")
    ax.set_xlabel("evaluation / iteration")
    ax.set_ylabel("½‖r‖²")
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, "convergence")

    fmt = lambda v, h: f"{v:.5f} ± {h:.5f}"
    body = "".join(
        f"<tr><td>{r['name']}</td><td>{r['truth']:.4f}</td><td>{r['start']:.4f}</td>"
        f"<td>{fmt(r['mujoco'], r['mujoco_half'])}</td><td>{fmt(r['moreau'], r['moreau_half'])}"
        f"</td></tr>" for r in rows)
    img = "".join(f"<h2>{k}</h2><img src='data:image/png;base64,"
                  f"{base64.b64encode(v).decode()}'/>" for k, v in images.items())
    mj, mo = report["mujoco"], report["moreau"]
    html = (f"<!doctype html><meta charset=utf-8><title>Contact identification</title>"
            f"<h1>Go1 foot, drop and slide: moreau vs mujoco.sysid</h1>"
            f"<p>{len(logs)} logs ({', '.join(report['logs'])}), {report['steps']} steps, "
            f"{report['parameters']} parameters. mujoco.sysid: {mj['wall_s']:.2f} s wall, "
            f"{mj['cpu_s']:.2f} s CPU, {mj['rollouts']} rollouts. moreau: {mo['wall_s']:.2f} s "
            f"wall, {mo['cpu_s']} s CPU, {mo['iterations']} iterations, {mo['rollouts']} "
            f"rollouts. Rollout cost ½‖r‖²: truth {report['truth_rollout_cost']:.4g}, start "
            f"{report['start_rollout_cost']:.4g}, mujoco.sysid {mj['rollout_cost']:.4g}, moreau "
            f"{mo['rollout_cost']:.4g}.</p>"
            f"<table border=1 cellpadding=3><tr><th>parameter</th><th>truth</th><th>start</th>"
            f"<th>mujoco.sysid ± 95%</th><th>moreau ± 95%</th></tr>{body}</table>{img}")
    (out / "report.html").write_text(html)


if __name__ == "__main__":
    sys.exit(main())
