#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the public model zoo (tests/engine/zoo.rs).

For every model of tools/zoo/models.txt (or the names given) this loads the MJCF from the zoo
cache (tools/zoo/fetch.py) with `mujoco.MjModel.from_xml_path` and writes
tests/reference/zoo/<name>.json:

- `sizes` (nq, nv, nu, ...), `keyframes` (key_time/qpos/qvel/act/ctrl/mpos/mquat) and the
  compiled `body_mass`, `body_subtreemass`, `body_ipos`, `body_iquat`, `body_inertia`;
- `rollout`: NSTEP steps of the model's own integrator from keyframe 0 (qpos0 without
  keyframes) plus a seeded position offset and velocity kick (keyframes often rest exactly on a
  contact or limit, where a 1e-16 change decides whether a constraint is active), under fixed piecewise-constant controls (`ctrl`:
  NSEG rows, row k applies to steps [k*NSTEP/NSEG, (k+1)*NSTEP/NSEG)); qpos/qvel/act every
  `stride` steps; `divergence` at those steps: how far a 1e-14 perturbation of the start (two
  seeded directions, relative to each field's scale) has grown, relative to each field's scale;
  `horizon` = the last step before it exceeds HORIZON_TOL (MuJoCo's own reproducible horizon;
  every step up to it is recorded when it is shorter than the stride);
- `states`: the initial state (keyframe 0, else qpos0; zero velocity), then the rollout's
  states at SAMPLE_STEPS (inputs incl. qacc_warmstart), each with (`label`), after
  mj_forward, qM (dense), qfrc_bias, qfrc_passive, qfrc_actuator, actuator_force, act_dot,
  qacc_smooth, the contacts (geom, dist, pos, frame, includemargin), efc_type/id/pos/margin/R/aref/force and
  efc_J (dense), qacc, qfrc_constraint, sensordata, the solver's iterations per island and
  `solver_err` (distance of qacc from a solve with tolerance 1e-15), then qfrc_inverse of
  mj_inverse at that qacc;
- `fd`: at the state with the most constraint rows, the transition Jacobians A, B (centred,
  eps FD_EPS) and the inverse Jacobians DfDq, DfDv, DfDa (forward differences, flg_actuation
  1), with `inverse_noise`: how far MuJoCo's own inverse Jacobians move when qacc moves by PERTURB
  of its scale (their round-off), and `state_noise`: per matrix, the flat (row-major) indices of
  the entries MuJoCo itself does not reproduce when the state moves by PERTURB of each field's
  scale in NREPRO seeded directions (moved by more than FD_TOL of the scale of the other
  entries: a contact switch under one of the ±eps nudges), and for those entries
  `state_values`: MuJoCo's own values of them at NVALUES such states (the test compares
  moreau's entry with the nearest of MuJoCo's values), and `branches`: for the columns of A of
  a qpos nudge holding such entries, the few values mj_step's result takes at the +eps and the
  -eps nudge under those changes (see position_branches; the test asserts moreau's column is
  one of the differences they give). mjd_transitionFD and mjd_inverseFD refuse RK4 models:
  there A, B are the same centred differences of mj_step computed here (`fd.method`), checked
  against mjd_transitionFD on every other model; mjd_inverseFD also refuses RK4 and the noslip
  post-pass, so the inverse Jacobians come from it with the integrator set to Euler and
  noslip_iterations 0 (inverse dynamics uses neither), at the qacc of mj_forward of that model:
  without noslip, not the state's recorded qacc, which the noslip pass moved.

Float arrays are little-endian float64 in base64: {"shape": [...], "f64": "..."}, or, when
mostly zero, {"shape": [...], "idx": <uint32 flat indices, base64>, "f64": <values>}.

    python3 tools/zoo/generate.py              # every model
    python3 tools/zoo/generate.py dm_control/dog gymnasium/ant
"""
import base64
import copy
import json
import os
import sys

import numpy as np
import mujoco

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fetch import cache_dir  # noqa: E402

NSTEP = 500            # rollout length
NSEG = 5               # control segments
NSTORE = 50            # rollout states stored (plus the start)
SAMPLE_STEPS = (0, 150, 300, 499)
KICK = 0.1             # std of the initial velocity kick
NUDGE = 1e-3           # std of the initial position offset (off exact contact/limit ties)
PERTURB = 1e-14        # start perturbation for the reproducibility horizon
HORIZON_TOL = 1e-10    # divergence that ends the horizon (100x below the test's 1e-8)
FD_EPS = 1e-6
FD_TOL = 1e-6          # the test's tolerance on FD Jacobians, relative to each matrix' scale
NREPRO = 4             # perturbed states at which MuJoCo's own FD Jacobians are recomputed
NVALUES = 16           # perturbed states whose values of the unreproduced entries are recorded
NBRANCH = 48           # perturbed states at which the nudged steps' values are collected
SEED = 19

SIZES = ["nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "nwrap", "neq",
         "nkey", "nsensor", "nsensordata", "nmocap", "nmesh", "nhfield", "npair", "nexclude",
         "nflex", "nplugin"]


# `mjOption` fields a models.txt line may set (`name path opt.FIELD=VALUE ... [status]`)
OPT_FIELDS = ("ccd_tolerance", "ccd_iterations")


def manifest():
    """(name, path, options, status) of every line of tools/zoo/models.txt."""
    out = []
    for line in open(os.path.join(ROOT, "tools", "zoo", "models.txt")):
        line = line.split("#", 1)[0].strip()
        if line:
            parts = line.split()
            opts = {}
            while len(parts) > 2 and parts[2].startswith("opt."):
                key, value = parts.pop(2)[4:].split("=", 1)
                if key not in OPT_FIELDS:
                    sys.exit("models.txt: %s: unknown option %s" % (parts[0], key))
                opts[key] = float(value)
            out.append((parts[0], parts[1], opts, " ".join(parts[2:])))
    return out


def set_options(m, opts):
    """The options a models.txt line sets, on a loaded model."""
    for key, value in opts.items():
        setattr(m.opt, key, type(getattr(m.opt, key))(value))


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def enc(a):
    a = np.asarray(a, dtype="<f8")
    flat = a.ravel()
    nz = np.flatnonzero(flat)
    if flat.size >= 16 and nz.size * 12 < flat.size * 8:
        return {"shape": list(a.shape), "idx": b64(nz.astype("<u4")), "f64": b64(flat[nz])}
    return {"shape": list(a.shape), "f64": b64(flat)}


def scale(*arrays):
    s = max((float(np.max(np.abs(a))) for a in arrays if np.size(a)), default=0.0)
    return s if s > 0 else 1.0


def dense_efc_J(m, d):
    if d.nefc == 0:
        return np.zeros((0, m.nv))
    if mujoco.mj_isSparse(m):
        J = np.zeros((d.nefc, m.nv))
        mujoco.mju_sparse2dense(J, d.efc_J, d.efc_J_rownnz, d.efc_J_rowadr, d.efc_J_colind)
        return J
    return d.efc_J[: d.nefc * m.nv].reshape(d.nefc, m.nv).copy()


def controls(m, rng):
    u = np.zeros((NSEG, m.nu))
    for i in range(m.nu):
        if m.actuator_ctrllimited[i]:
            lo, hi = m.actuator_ctrlrange[i]
            u[:, i] = rng.uniform(lo, hi, NSEG)
        else:
            u[:, i] = rng.uniform(-1.0, 1.0, NSEG)
    return u


def ctrl_at(u, k):
    return u[min(k * NSEG // NSTEP, NSEG - 1)]


def start(m, rng):
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    mujoco.mj_integratePos(m, d.qpos, rng.normal(0.0, NUDGE, m.nv), 1.0)
    d.qvel[:] += rng.normal(0.0, KICK, m.nv)
    return d


def run(m, d0, u, perturb=None):
    """States (qpos, qvel, act) after 0..NSTEP steps from d0, and the MjData at SAMPLE_STEPS."""
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, d0)
    if perturb is not None:
        dq, dv, da = perturb
        mujoco.mj_integratePos(m, d.qpos, dq, 1.0)
        d.qvel[:] += dv
        d.act[:] += da
    Q, V, A, snaps = [d.qpos.copy()], [d.qvel.copy()], [d.act.copy()], {}
    for k in range(NSTEP):
        d.ctrl[:] = ctrl_at(u, k)
        if perturb is None and k in SAMPLE_STEPS:
            s = mujoco.MjData(m)
            mujoco.mj_copyData(s, m, d)
            snaps[k] = s
        mujoco.mj_step(m, d)
        Q.append(d.qpos.copy())
        V.append(d.qvel.copy())
        A.append(d.act.copy())
    return np.array(Q), np.array(V), np.array(A).reshape(NSTEP + 1, m.na), snaps


def rollout(m, u, rng):
    d0 = start(m, rng)
    Q, V, A, snaps = run(m, d0, u)
    sq, sv, sa = scale(Q), scale(V), scale(A)
    div = np.zeros(NSTEP + 1)
    for _ in range(2):
        pert = (rng.standard_normal(m.nv) * PERTURB * sq, rng.standard_normal(m.nv) * PERTURB * sv,
                rng.standard_normal(m.na) * PERTURB * sa)
        Q2, V2, A2, _ = run(m, d0, u, pert)
        e = np.maximum(np.abs(Q2 - Q).max(axis=1, initial=0) / sq,
                       np.abs(V2 - V).max(axis=1, initial=0) / sv)
        e = np.maximum(e, np.abs(A2 - A).max(axis=1, initial=0) / sa)
        div = np.maximum(div, e)
    div = np.maximum.accumulate(div)
    horizon = int(np.sum(div <= HORIZON_TOL)) - 1
    stride = max(1, NSTEP // NSTORE)
    steps = set(range(0, NSTEP + 1, stride)) | {NSTEP, max(horizon, 0)}
    steps |= set(range(0, min(horizon, stride) + 1))
    steps = sorted(steps)
    out = {
        "nstep": NSTEP, "stride": stride, "steps": steps, "integrator": int(m.opt.integrator),
        "timestep": float(m.opt.timestep), "ctrl": enc(u),
        "qpos0": enc(d0.qpos), "qvel0": enc(d0.qvel), "act0": enc(d0.act),
        "mocap_pos": enc(d0.mocap_pos), "mocap_quat": enc(d0.mocap_quat),
        "qpos": enc(Q[steps]), "qvel": enc(V[steps]), "act": enc(A[steps]),
        "divergence": [float(div[k]) for k in steps],
        "horizon": int(horizon), "horizon_tol": HORIZON_TOL, "perturbation": PERTURB,
    }
    return out, snaps


def tight_qacc(m, d):
    """qacc of the same forward solve with tolerance 1e-15 (how far MuJoCo's solver stopped)."""
    m2 = copy.copy(m)
    m2.opt.tolerance = 1e-15
    m2.opt.iterations = 1000
    m2.opt.ls_iterations = 100
    d2 = mujoco.MjData(m2)
    mujoco.mj_copyData(d2, m2, d)
    mujoco.mj_forward(m2, d2)
    return d2.qacc.copy()


def state_record(m, snap):
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, snap)
    mujoco.mj_forward(m, d)
    nv, nc = m.nv, d.ncon
    qM = np.zeros((nv, nv))
    mujoco.mj_fullM(m, d, qM) if nv else None
    c = d.contact
    rec = {
        "time": float(d.time),
        "qpos": enc(d.qpos), "qvel": enc(d.qvel), "act": enc(d.act), "ctrl": enc(d.ctrl),
        "qacc_warmstart": enc(snap.qacc_warmstart),
        "qM": enc(qM), "qfrc_bias": enc(d.qfrc_bias), "qfrc_passive": enc(d.qfrc_passive),
        "qfrc_actuator": enc(d.qfrc_actuator), "actuator_force": enc(d.actuator_force),
        "act_dot": enc(d.act_dot), "qacc_smooth": enc(d.qacc_smooth),
        "ncon": int(nc),
        "contact_geom": [[int(g) for g in c.geom[i]] for i in range(nc)],
        "contact_dist": enc(c.dist[:nc]), "contact_pos": enc(c.pos[:nc]),
        "contact_includemargin": enc(c.includemargin[:nc]),
        "contact_frame": enc(c.frame[:nc]),
        "nefc": int(d.nefc),
        "efc_type": [int(t) for t in d.efc_type[: d.nefc]],
        "efc_id": [int(t) for t in d.efc_id[: d.nefc]],
        "efc_pos": enc(d.efc_pos[: d.nefc]), "efc_margin": enc(d.efc_margin[: d.nefc]),
        "efc_R": enc(d.efc_R[: d.nefc]), "efc_aref": enc(d.efc_aref[: d.nefc]),
        "efc_force": enc(d.efc_force[: d.nefc]), "efc_J": enc(dense_efc_J(m, d)),
        "qacc": enc(d.qacc), "qfrc_constraint": enc(d.qfrc_constraint),
        "sensordata": enc(d.sensordata),
        "nisland": int(d.nisland),
        "solver_niter": [int(x) for x in d.solver_niter[: max(1, d.nisland)]],
    }
    qt = tight_qacc(m, snap) if d.nefc else d.qacc
    rec["solver_err"] = float(np.max(np.abs(d.qacc - qt), initial=0) / scale(qt))
    rec["solver_stopped_early"] = bool(d.nefc and max(rec["solver_niter"]) >= m.opt.iterations)
    di = mujoco.MjData(m)
    mujoco.mj_copyData(di, m, d)
    mujoco.mj_inverse(m, di)
    rec["qfrc_inverse"] = enc(di.qfrc_inverse)
    return rec


def step_from(m, base, dq=None, dv=None, da=None, du=None):
    """qpos and (qvel, act) after one mj_step from a copy of `base` nudged by dq (through
    mj_integratePos) and by dv, da, du (added to qvel, act, ctrl)."""
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, base)
    if dq is not None:
        mujoco.mj_integratePos(m, d.qpos, dq, 1.0)
    if dv is not None:
        d.qvel[:] += dv
    if da is not None:
        d.act[:] += da
    if du is not None:
        d.ctrl[:] += du
    mujoco.mj_step(m, d)
    return d.qpos.copy(), np.concatenate([d.qvel, d.act])


def step_diff(m, y0):
    """The difference of a step's result from the result y0, in tangent space (qpos through
    mj_differentiatePos), as mjd_transitionFD takes it."""
    def diff(y):
        dq = np.zeros(m.nv)
        mujoco.mj_differentiatePos(m, dq, 1.0, y0[0], y[0])
        return np.concatenate([dq, y[1] - y0[1]])
    return diff


def ctrl_sides(m, snap, i, eps):
    """Whether mjd_transitionFD nudges control i by +eps and by -eps: one-sided at a clamped
    range limit."""
    x = snap.ctrl[i]
    lo, hi = m.actuator_ctrlrange[i]
    lim = m.actuator_ctrllimited[i] and not (m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_CLAMPCTRL)
    return not lim or lo <= x + eps <= hi, not lim or lo <= x - eps <= hi


def step_fd(m, snap, eps):
    """Centred differences of mj_step, as mjd_transitionFD (state in tangent space, warm start
    restored before every step, controls one-sided at a clamped range limit)."""
    nv, na, nu = m.nv, m.na, m.nu
    n = 2 * nv + na

    def step(dq=None, dv=None, da=None, du=None):
        return step_from(m, snap, dq, dv, da, du)

    diff = step_diff(m, step())
    A = np.zeros((n, n))
    B = np.zeros((n, nu))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps
        plus = step(e[:nv], e[nv:2 * nv], e[2 * nv:])
        minus = step(-e[:nv], -e[nv:2 * nv], -e[2 * nv:])
        A[:, i] = (diff(plus) - diff(minus)) / (2 * eps)
    for i in range(nu):
        e = np.zeros(nu)
        e[i] = eps
        fwd, back = ctrl_sides(m, snap, i, eps)
        if fwd and back:
            B[:, i] = (diff(step(du=e)) - diff(step(du=-e))) / (2 * eps)
        elif fwd:
            B[:, i] = diff(step(du=e)) / eps
        elif back:
            B[:, i] = -diff(step(du=-e)) / eps
    return A, B


def position_branches(m, snap, own, state_noise, rng):
    """Why MuJoCo's own A moves under PERTURB changes of the state (`state_noise`) in a column
    of qpos: the step's collision runs at the nudged qpos, and its result there takes one of a
    few values (MuJoCo's test model: the height-field prism-cylinder contact, whose EPA ends on
    one of three faces, so its frame jumps by 1e-3 under 1e-14 changes of qpos; ncon and nefc
    stay), independently at +eps and at -eps. (In a step of Euler or an implicit integrator, not
    RK4, a nudge of qvel, act or ctrl leaves the collision at the unnudged qpos: both sides
    share its value, so those entries take one of MuJoCo's values at the moved states,
    `state_values`.) Per such column: `rows`, the divisor `den` of
    the difference, and `plus`, `minus`: the distinct values (one row each) of those rows of the
    step's result (tangent space, from the unnudged step at `snap`) at the nudges +eps and -eps
    from `snap` and from NBRANCH states moved by PERTURB. Every value MuJoCo gives such an entry
    is (plus - minus) / den for one row of each; the test asserts moreau's column is."""
    nv, n = m.nv, 2 * m.nv + m.na
    bases = [snap] + [perturbed(m, snap, rng) for _ in range(NBRANCH)]
    diff = step_diff(m, step_from(m, snap))
    kept = own["A"].ravel().copy()
    kept[state_noise["A"]] = 0.0
    # values closer than this are one (the moves shift the step's result by 1e-14 of A's scale)
    same = 1e-2 * FD_TOL * scale(kept) * 2 * FD_EPS
    out = []
    for c in sorted({i % n for i in state_noise["A"] if i % n < nv}):
        rows = sorted(i // n for i in state_noise["A"] if i % n == c)
        values = {}
        for side in (1, -1):
            dq = np.zeros(nv)
            dq[c] = side * FD_EPS
            found = []
            for b in bases:
                y = diff(step_from(m, b, dq=dq))[rows]
                if not any(np.max(np.abs(y - f)) < same for f in found):
                    found.append(y)
            values[side] = np.array(found)
        out.append({"col": c, "rows": rows, "den": 2 * FD_EPS,
                    "plus": enc(values[1]), "minus": enc(values[-1])})
    return out


def perturbed(m, snap, rng):
    """A copy of the state `snap` moved by PERTURB of each field's scale in a seeded direction
    (qpos through mj_integratePos), as the rollout's reproducibility horizon moves its start."""
    d = mujoco.MjData(m)
    mujoco.mj_copyData(d, m, snap)
    mujoco.mj_integratePos(m, d.qpos, rng.standard_normal(m.nv) * PERTURB * scale(snap.qpos), 1.0)
    d.qvel[:] += rng.standard_normal(m.nv) * PERTURB * scale(snap.qvel)
    d.act[:] += rng.standard_normal(m.na) * PERTURB * scale(snap.act)
    return d


def unreproducible(ref, moved):
    """Flat indices of the entries of `ref` that MuJoCo's own differences at the perturbed states
    (`moved`) do not reproduce: moved by more than FD_TOL of the scale of the reproduced entries
    (that scale shrinks as entries are dropped: repeated until no entry is added)."""
    move = np.max([np.abs(x - ref) for x in moved], axis=0).ravel() if moved else np.zeros(ref.size)
    flat = np.abs(ref).ravel()
    drop = np.zeros(ref.size, bool)
    while True:
        keep = flat[~drop]
        s = float(keep.max()) if keep.size and keep.max() > 0 else 1.0
        new = move > FD_TOL * s
        if not np.any(new & ~drop):
            return [int(i) for i in np.flatnonzero(drop)]
        drop |= new


def fd_jacobians(m, mi, snap, rk4):
    """A, B (mjd_transitionFD, or centred differences of mj_step for RK4) and DfDq, DfDv, DfDa
    (mjd_inverseFD on `mi`, at the qacc of its mj_forward) at the state `snap`."""
    nv, na, nu = m.nv, m.na, m.nu
    n = 2 * nv + na
    if rk4:
        A, B = step_fd(m, snap, FD_EPS)
    else:
        A, B = np.zeros((n, n)), np.zeros((n, nu))
        d = mujoco.MjData(m)
        mujoco.mj_copyData(d, m, snap)
        mujoco.mjd_transitionFD(m, d, FD_EPS, 1, A, B, None, None)
    inv = [np.zeros((nv, nv)) for _ in range(3)]
    d = mujoco.MjData(mi)
    mujoco.mj_copyData(d, mi, snap)
    mujoco.mj_forward(mi, d)
    mujoco.mjd_inverseFD(mi, d, FD_EPS, 1, *inv, None, None, None, None)
    return {"A": A, "B": B, "DfDq": inv[0], "DfDv": inv[1], "DfDa": inv[2]}


def fd_record(m, snap):
    nv = m.nv
    rk4 = m.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
    # mjd_inverseFD refuses RK4 and noslip; inverse dynamics uses neither
    mi = copy.copy(m)
    mi.opt.noslip_iterations = 0
    if rk4:
        method = "centred differences of mj_step (tools/zoo/generate.py)"
        mi.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    else:
        method = "mjd_transitionFD"
    own = fd_jacobians(m, mi, snap, rk4)
    if not rk4:
        # the RK4 models' own differences, checked on the models MuJoCo differentiates
        A_py, B_py = step_fd(m, snap, FD_EPS)
        err = max(np.max(np.abs(A_py - own["A"]), initial=0) / scale(own["A"]),
                  np.max(np.abs(B_py - own["B"]), initial=0) / scale(own["B"]))
        assert err < 1e-6, "step_fd disagrees with mjd_transitionFD: %g" % err
    # MuJoCo's own round-off in these forward differences: the same Jacobians at qacc moved by
    # PERTURB of its scale (a fixed direction), relative to each matrix' scale; contact forces
    # of 1e2 make a 1e-14 difference in qfrc_inverse 1e-6 of a Jacobian of scale 0.1
    d = mujoco.MjData(mi)
    mujoco.mj_copyData(d, mi, snap)
    mujoco.mj_forward(mi, d)
    direction = np.cos(np.arange(nv) + 1.0)
    d.qacc[:] += PERTURB * scale(d.qacc) * direction
    noise = {key: np.zeros((nv, nv)) for key in ("DfDq", "DfDv", "DfDa")}
    mujoco.mjd_inverseFD(mi, d, FD_EPS, 1, noise["DfDq"], noise["DfDv"], noise["DfDa"],
                         None, None, None, None)
    inverse_noise = {key: float(np.max(np.abs(noise[key] - own[key]), initial=0) / scale(own[key]))
                     for key in ("DfDq", "DfDv", "DfDa")}
    # MuJoCo's own differences at the state moved by PERTURB (NREPRO seeded directions): where
    # one of them moves an entry beyond the tolerance (a contact that switches under one of the
    # ±eps nudges at one state and not at the other: MuJoCo's test model's height-field
    # cylinder, whose EPA ends on one of two faces within ccd_tolerance), no port can be
    # expected to reproduce that entry without MuJoCo's arithmetic to the bit
    rng = np.random.default_rng(SEED)
    moved = [fd_jacobians(m, mi, perturbed(m, snap, rng), rk4) for _ in range(NREPRO)]
    state_noise = {key: unreproducible(ref, [x[key] for x in moved]) for key, ref in own.items()}
    out = {"eps": FD_EPS, "centered": True, "method": method, "inverse_flg_actuation": True}
    out.update({key: enc(ref) for key, ref in own.items()})
    out.update({"inverse_noise": inverse_noise, "state_noise": state_noise})
    if any(state_noise.values()):
        # the values MuJoCo itself gives those entries at the moved states and at NVALUES -
        # NREPRO more (`state_values`, one row per state): the test compares moreau's entry with
        # the nearest of these and of the recorded one
        more = [fd_jacobians(m, mi, perturbed(m, snap, rng), rk4) for _ in range(NVALUES - NREPRO)]
        out["state_values"] = {
            key: enc(np.array([x[key].ravel()[idx] for x in moved + more]))
            for key, idx in state_noise.items() if idx}
        if not rk4:
            out["branches"] = {"A": position_branches(m, snap, own, state_noise,
                                                      np.random.default_rng([SEED, 1]))}
    return out


def reset_state(m):
    """The model's initial state: keyframe 0, else qpos0 (no kick, no controls)."""
    d = mujoco.MjData(m)
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    return d


def generate(name, path, opts):
    full = os.path.join(cache_dir(), path)
    xml = open(full, "rb").read()
    m = mujoco.MjModel.from_xml_path(full)
    set_options(m, opts)
    rng = np.random.default_rng([SEED, int(fnv1a64(name.encode()), 16) % (1 << 32)])
    u = controls(m, rng)
    ro, snaps = rollout(m, u, rng)
    snaps = [reset_state(m)] + [snaps[k] for k in SAMPLE_STEPS]
    labels = ["keyframe 0" if m.nkey else "qpos0"] + ["rollout step %d" % k for k in SAMPLE_STEPS]
    states = [state_record(m, s) for s in snaps]
    for label, s in zip(labels, states):
        s["label"] = label
    fd_state = max(range(len(states)), key=lambda i: (states[i]["nefc"], i))
    fd = fd_record(m, snaps[fd_state])
    fd["state"] = fd_state
    keys = {f: enc(getattr(m, f)) for f in
            ("key_time", "key_qpos", "key_qvel", "key_act", "key_ctrl", "key_mpos", "key_mquat")}
    out = {
        "name": name, "path": path, "xml_fnv1a64": fnv1a64(xml),
        "mujoco_version": mujoco.__version__, "generator": "tools/zoo/generate.py",
        "sizes": {k: int(getattr(m, k)) for k in SIZES},
        "opt": {"timestep": float(m.opt.timestep), "integrator": int(m.opt.integrator),
                "cone": int(m.opt.cone), "solver": int(m.opt.solver),
                "iterations": int(m.opt.iterations), "tolerance": float(m.opt.tolerance),
                "ccd_tolerance": float(m.opt.ccd_tolerance),
                "ccd_iterations": int(m.opt.ccd_iterations),
                "jacobian_sparse": bool(mujoco.mj_isSparse(m))},
        "keyframes": keys,
        "sensor_dim": [int(x) for x in m.sensor_dim],
        "body_mass": enc(m.body_mass), "body_subtreemass": enc(m.body_subtreemass),
        "body_ipos": enc(m.body_ipos), "body_iquat": enc(m.body_iquat),
        "body_inertia": enc(m.body_inertia),
        "rollout": ro, "states": states, "fd": fd,
    }
    dest = os.path.join(ROOT, "tests", "reference", "zoo", name + ".json")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    text = json.dumps(out, separators=(",", ":"))
    with open(dest, "w") as f:
        f.write(text + "\n")
    print("%-44s nq %3d nv %3d nu %3d ncon %s nefc %s horizon %3d/%d (%s) %s %5.0f kB" % (
        name, m.nq, m.nv, m.nu, [s["ncon"] for s in states], [s["nefc"] for s in states],
        ro["horizon"], NSTEP, "%.0e" % ro["divergence"][-1], fd["method"][:4], len(text) / 1e3))


def main():
    names = sys.argv[1:]
    models = manifest()
    known = {n for n, _, _, _ in models}
    for n in names:
        if n not in known:
            sys.exit("unknown model %s (see tools/zoo/models.txt)" % n)
    for name, path, opts, _ in models:
        if not names or name in names:
            generate(name, path, opts)


if __name__ == "__main__":
    main()
