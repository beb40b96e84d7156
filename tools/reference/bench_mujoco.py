#!/usr/bin/env python3
"""Time MuJoCo's mj_step / mj_forward / mj_inverse / mjd_transitionFD / mjd_inverseFD on the given models.

Usage:  python3 tools/reference/bench_mujoco.py MODEL.xml [MODEL.xml ...]
            [--batches 30] [--batch-size 1000] [--warmup 2000] [--fd-batch-size 20]
            [--disable-islands]

Prints one JSON object {"mujoco_version", "machine", "models": {path: {...}}} on stdout, times
in microseconds per call, the median over batches (and min / max), single thread, after a
warm-up. Each batch starts from keyframe 0 (or qpos0) with zero controls (reset not timed).

Per-call numbers come from a Python loop around the binding, so they include the binding's
call overhead; "call_overhead_us" is the time of a trivial binding call (mju_sign), to be
subtracted when comparing against a native Rust loop. "step_rollout_us" times mj_step inside
MuJoCo's own C rollout loop (mujoco.rollout, one thread; it also copies the state out each
step), i.e. without per-step Python overhead.
"transitionFD_contact_us" times mjd_transitionFD at the state with contacts reached by stepping
from the reset state until constraint rows appear ("contact_state_nefc" rows), as `moreau bench`;
"transitionFD_contact_cpu_us" is the same in thread CPU time.
"per_batch_from_reset" gives the mean/max ncon, mean nefc and mean solver iterations over one
batch of steps from the reset state, i.e. how much contact work the step timings include
(batches restart from the keyframe, so a falling model is timed mostly before it lands).
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
import mujoco

try:
    from mujoco import rollout as mj_rollout
except Exception:  # pragma: no cover
    mj_rollout = None


def reset(m, d):
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    else:
        mujoco.mj_resetData(m, d)
    d.ctrl[:] = 0.0


def summarize(samples):
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples)}


def time_batches(m, d, fn, batches, batch_size, reset_each_batch=True, clock=time.perf_counter_ns):
    out = []
    for _ in range(batches):
        if reset_each_batch:
            reset(m, d)
        t0 = clock()
        for _ in range(batch_size):
            fn(m, d)
        t1 = clock()
        out.append((t1 - t0) / 1e3 / batch_size)
    return out


def call_overhead(batches, batch_size):
    f = mujoco.mju_sign
    out = []
    for _ in range(batches):
        t0 = time.perf_counter_ns()
        for _ in range(batch_size):
            f(1.0)
        t1 = time.perf_counter_ns()
        out.append((t1 - t0) / 1e3 / batch_size)
    return statistics.median(out)


def bench_model(path, args):
    m = mujoco.MjModel.from_xml_path(path)
    if args.disable_islands:
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
    if args.jacobian:
        m.opt.jacobian = {"dense": mujoco.mjtJacobian.mjJAC_DENSE,
                          "sparse": mujoco.mjtJacobian.mjJAC_SPARSE,
                          "auto": mujoco.mjtJacobian.mjJAC_AUTO}[args.jacobian]
    d = mujoco.MjData(m)
    res = {"nq": m.nq, "nv": m.nv, "nu": m.nu, "na": m.na,
           "integrator": int(m.opt.integrator), "timestep": m.opt.timestep,
           "islands": not (m.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_ISLAND)),
           "sparse": bool(mujoco.mj_isSparse(m))}

    # contact statistics over one batch from the reset state (what the step timings see)
    reset(m, d)
    ncon, nefc, niter = [], [], []
    for _ in range(args.batch_size):
        mujoco.mj_step(m, d)
        ncon.append(d.ncon)
        nefc.append(d.nefc)
        niter.append(int(d.solver_niter.max()))
    res["per_batch_from_reset"] = {"ncon_mean": float(np.mean(ncon)), "ncon_max": int(max(ncon)),
                                   "nefc_mean": float(np.mean(nefc)),
                                   "solver_niter_mean": float(np.mean(niter))}

    # warm-up
    reset(m, d)
    for _ in range(args.warmup):
        mujoco.mj_step(m, d)

    res["step_us"] = summarize(time_batches(m, d, mujoco.mj_step, args.batches, args.batch_size))
    # the same on the thread's CPU clock (robust to a loaded machine)
    res["step_cpu_us"] = summarize(time_batches(m, d, mujoco.mj_step, args.batches,
                                                args.batch_size, clock=time.thread_time_ns))

    def fwd(m, d):
        mujoco.mj_forward(m, d)
    reset(m, d)
    mujoco.mj_forward(m, d)
    res["forward_us"] = summarize(time_batches(m, d, fwd, args.batches, args.batch_size))

    # inverse at the forward solution of the reset state
    reset(m, d)
    mujoco.mj_forward(m, d)
    qacc = d.qacc.copy()

    def inv(m, d):
        mujoco.mj_inverse(m, d)
    samples = []
    for _ in range(args.batches):
        reset(m, d)
        mujoco.mj_forward(m, d)
        d.qacc[:] = qacc
        t0 = time.perf_counter_ns()
        for _ in range(args.batch_size):
            mujoco.mj_inverse(m, d)
        samples.append((time.perf_counter_ns() - t0) / 1e3 / args.batch_size)
    res["inverse_us"] = summarize(samples)

    # transition Jacobians by forward differences (MuJoCo's mjd_transitionFD)
    nA = 2 * m.nv + m.na
    A = np.zeros((nA, nA))
    B = np.zeros((nA, m.nu))
    samples = []
    for _ in range(max(3, args.batches // 3)):
        reset(m, d)
        mujoco.mj_forward(m, d)
        t0 = time.perf_counter_ns()
        for _ in range(args.fd_batch_size):
            mujoco.mjd_transitionFD(m, d, 1e-6, False, A, B, None, None)
        samples.append((time.perf_counter_ns() - t0) / 1e3 / args.fd_batch_size)
    res["transitionFD_us"] = summarize(samples)

    # the same at a state with contacts: from the reset state, step until constraint rows
    # appear (at most 3000 steps; as moreau bench's contact state)
    reset(m, d)
    for _ in range(3000):
        mujoco.mj_step(m, d)
        if d.nefc > 0:
            break
    dc = mujoco.MjData(m)
    # mjSTATE_INTEGRATION, not FULLPHYSICS: the latter leaves out qacc_warmstart, so the fresh
    # dc started every solve from zero (a cheaper start here: 1 Newton iteration per perturbed
    # step on the humanoid instead of 2) while moreau bench keeps the settled warm start
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    nstate = mujoco.mj_stateSize(m, spec)
    xc = np.zeros(nstate)
    mujoco.mj_getState(m, d, xc, spec)
    samples, cpu = [], []
    for _ in range(max(3, args.batches // 3)):
        mujoco.mj_setState(m, dc, xc, spec)
        mujoco.mj_forward(m, dc)
        c0 = time.thread_time_ns()
        t0 = time.perf_counter_ns()
        for _ in range(args.fd_batch_size):
            mujoco.mjd_transitionFD(m, dc, 1e-6, False, A, B, None, None)
        samples.append((time.perf_counter_ns() - t0) / 1e3 / args.fd_batch_size)
        cpu.append((time.thread_time_ns() - c0) / 1e3 / args.fd_batch_size)
    res["transitionFD_contact_us"] = summarize(samples)
    # thread CPU time: comparable with moreau bench's *_cpu_us on a loaded machine
    res["transitionFD_contact_cpu_us"] = summarize(cpu)
    res["contact_state_nefc"] = int(dc.nefc)

    # inverse-dynamics Jacobians by forward differences (mjd_inverseFD: DfDq, DfDv, DfDa and
    # DmDq, no sensor Jacobians, flg_actuation 0), at the forward solution of the reset state
    nv = m.nv
    DfDq, DfDv, DfDa = np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros((nv, nv))
    DmDq = np.zeros((nv, m.nC))
    samples = []
    for _ in range(max(3, args.batches // 3)):
        reset(m, d)
        mujoco.mj_forward(m, d)
        t0 = time.perf_counter_ns()
        for _ in range(args.fd_batch_size):
            mujoco.mjd_inverseFD(m, d, 1e-6, 0, DfDq, DfDv, DfDa, None, None, None, DmDq)
        samples.append((time.perf_counter_ns() - t0) / 1e3 / args.fd_batch_size)
    res["inverseFD_us"] = summarize(samples)

    if mj_rollout is not None:
        reset(m, d)
        nstate = mujoco.mj_stateSize(m, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        x0 = np.zeros((1, nstate))
        mujoco.mj_getState(m, d, x0[0], mujoco.mjtState.mjSTATE_FULLPHYSICS)
        ctrl = np.zeros((1, args.batch_size, m.nu))
        state = np.zeros((1, args.batch_size, nstate))
        sens = np.zeros((1, args.batch_size, m.nsensordata))
        samples = []
        with mj_rollout.Rollout(nthread=0) as r:
            r.rollout(m, d, x0, ctrl, state=state, sensordata=sens)  # warm-up
            for _ in range(args.batches):
                t0 = time.perf_counter_ns()
                r.rollout(m, d, x0, ctrl, state=state, sensordata=sens)
                samples.append((time.perf_counter_ns() - t0) / 1e3 / args.batch_size)
        res["step_rollout_us"] = summarize(samples)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="+")
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=2000)
    ap.add_argument("--fd-batch-size", type=int, default=20)
    ap.add_argument("--disable-islands", action="store_true",
                    help="set mjDSBL_ISLAND (as generate_contact.py does)")
    ap.add_argument("--jacobian", choices=["dense", "sparse", "auto"],
                    help="override <option jacobian>")
    args = ap.parse_args()
    out = {
        "mujoco_version": mujoco.__version__,
        "machine": {"platform": platform.platform(), "processor": platform.processor(),
                    "python": platform.python_version(), "cpu_count": os.cpu_count()},
        "settings": vars(args) | {"threads": 1},
        "call_overhead_us": call_overhead(args.batches, args.batch_size),
        "models": {},
    }
    for p in args.models:
        out["models"][p] = bench_model(p, args)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
