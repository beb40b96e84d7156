#!/usr/bin/env python3
"""Generate the MuJoCo 4.0.0 oracle data that moreau's Rust tests compare against.

For every model in models/ (see MODELS) this writes tests/reference/<model>.json with
  - sizes, options and every compile-derived mjModel array ("compiled"),
  - several states (keyframes + seeded random states) with the mj_forward outputs,
  - 1000-step rollouts under Euler / implicitfast / implicit / RK4 (+ Euler without
    eulerdamp when the model has dof damping).
The format is described in tools/reference/README.md.

Rerun (from anywhere):  pip install mujoco==4.0.0 numpy ; python3 tools/reference/generate.py
Optional arguments: model names to regenerate only those (e.g. `generate.py arm7 zoo`).
"""
import json
import os
import sys
import zlib

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = [
    "pendulum",
    "double_pendulum",
    "cartpole",
    "ball_pendulum",
    "free_body",
    "arm7",
    "tendon_springs",
    "zoo",
    "zoo2",
]
NSTEP = 1000
NRANDOM = 4
EXPECTED_VERSION = "4.0.0"

SIZES = ["nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "neq", "nkey",
         "nsensor", "nmocap", "nsensordata", "nmesh", "nmeshvert", "nmeshface", "nhfield",
         "nhfielddata", "nwrap", "ntree"]

OPT_FIELDS = ["timestep", "gravity", "wind", "magnetic", "density", "viscosity", "impratio",
              "tolerance", "ls_tolerance", "iterations", "ls_iterations", "noslip_iterations",
              "noslip_tolerance", "ccd_iterations", "ccd_tolerance", "sleep_tolerance",
              "o_margin", "o_solref", "o_solimp", "o_friction", "integrator", "cone", "jacobian",
              "solver", "disableflags", "enableflags"]

# Compile-derived mjModel arrays (MuJoCo field names), dumped as nested lists by element.
COMPILED = [
    # joints / dofs / bodies
    "qpos0", "qpos_spring",
    "body_parentid", "body_rootid", "body_weldid", "body_mocapid", "body_jntnum", "body_jntadr",
    "body_dofnum", "body_dofadr", "body_treeid", "body_geomnum", "body_geomadr", "body_simple",
    "body_sameframe", "body_pos", "body_quat", "body_ipos", "body_iquat", "body_mass",
    "body_subtreemass", "body_inertia", "body_invweight0", "body_gravcomp",
    "jnt_type", "jnt_qposadr", "jnt_dofadr", "jnt_bodyid", "jnt_group", "jnt_limited",
    "jnt_actfrclimited", "jnt_actgravcomp", "jnt_solref", "jnt_solimp", "jnt_pos", "jnt_axis",
    "jnt_stiffness", "jnt_stiffnesspoly", "jnt_range", "jnt_actfrcrange", "jnt_margin",
    "dof_bodyid", "dof_jntid", "dof_parentid", "dof_treeid", "dof_Madr", "dof_simplenum",
    "dof_solref", "dof_solimp", "dof_frictionloss", "dof_armature", "dof_damping",
    "dof_dampingpoly", "dof_invweight0", "dof_M0",
    "tree_bodyadr", "tree_bodynum", "tree_dofadr", "tree_dofnum",
    # geoms / sites
    "geom_type", "geom_contype", "geom_conaffinity", "geom_condim", "geom_bodyid",
    "geom_dataid", "geom_group", "geom_priority", "geom_sameframe", "geom_solmix",
    "geom_solref", "geom_solimp", "geom_size", "geom_aabb", "geom_rbound", "geom_pos",
    "geom_quat", "geom_friction", "geom_margin", "geom_gap",
    "site_type", "site_bodyid", "site_sameframe", "site_size", "site_pos", "site_quat",
    # meshes / height fields
    "mesh_vertadr", "mesh_vertnum", "mesh_faceadr", "mesh_facenum", "mesh_scale", "mesh_pos",
    "mesh_quat", "mesh_vert", "mesh_face",
    "hfield_size", "hfield_nrow", "hfield_ncol", "hfield_adr", "hfield_data",
    # tendons
    "tendon_adr", "tendon_num", "tendon_limited", "tendon_actfrclimited", "tendon_range",
    "tendon_actfrcrange", "tendon_stiffness", "tendon_stiffnesspoly", "tendon_damping",
    "tendon_dampingpoly", "tendon_frictionloss", "tendon_armature", "tendon_lengthspring",
    "tendon_length0", "tendon_invweight0", "tendon_treenum",
    "wrap_type", "wrap_objid", "wrap_prm",
    # actuators
    "actuator_trntype", "actuator_dyntype", "actuator_gaintype", "actuator_biastype",
    "actuator_trnid", "actuator_actadr", "actuator_actnum", "actuator_group",
    "actuator_ctrllimited", "actuator_forcelimited", "actuator_actlimited", "actuator_actearly",
    "actuator_dynprm", "actuator_gainprm", "actuator_biasprm", "actuator_ctrlrange",
    "actuator_forcerange", "actuator_actrange", "actuator_gear", "actuator_cranklength",
    "actuator_acc0", "actuator_length0", "actuator_lengthrange", "actuator_armature",
    "actuator_damping", "actuator_dampingpoly",
    # sensors
    "sensor_type", "sensor_datatype", "sensor_needstage", "sensor_objtype", "sensor_objid",
    "sensor_reftype", "sensor_refid", "sensor_dim", "sensor_adr", "sensor_cutoff",
    "sensor_noise",
    # keyframes
    "key_time", "key_qpos", "key_qvel", "key_act", "key_mpos", "key_mquat", "key_ctrl",
]

STAT_FIELDS = ["meaninertia", "meanmass", "meansize", "extent", "center"]

# mjData fields recorded after mj_forward (dense vectors / per-element rows as MuJoCo stores
# them, e.g. xmat is nbody x 9 row-major, cinert nbody x 10, cdof nv x 6).
DATA_OUT = [
    "qfrc_bias", "qfrc_passive", "qfrc_spring", "qfrc_damper", "qfrc_gravcomp",
    "qfrc_actuator", "actuator_force", "actuator_length", "actuator_velocity", "act_dot",
    "qacc", "qacc_smooth", "qfrc_smooth",
    "xpos", "xquat", "xmat", "xipos", "ximat", "xiquat", "xanchor", "xaxis",
    "geom_xpos", "geom_xmat", "geom_xquat", "site_xpos", "site_xmat", "site_xquat",
    "subtree_com", "cinert", "cdof", "cvel", "cdof_dot", "ten_length", "ten_velocity",
    "sensordata",
]

INTEGRATORS = [("Euler", mujoco.mjtIntegrator.mjINT_EULER),
               ("implicitfast", mujoco.mjtIntegrator.mjINT_IMPLICITFAST),
               ("implicit", mujoco.mjtIntegrator.mjINT_IMPLICIT),
               ("RK4", mujoco.mjtIntegrator.mjINT_RK4)]


# ---------------------------------------------------------------------------------------------
def tolist(x):
    """numpy -> nested python lists of float/int/bool; refuses non-finite floats."""
    a = np.asarray(x)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            raise ValueError("non-finite value in %r" % (a,))
        return a.astype(float).tolist()
    if a.dtype.kind == "b":
        return a.astype(bool).tolist()
    return a.astype(int).tolist()


def dense_csr(values, rownnz, rowadr, colind, nrow, ncol):
    out = np.zeros((nrow, ncol))
    for r in range(nrow):
        for k in range(rowadr[r], rowadr[r] + rownnz[r]):
            out[r, colind[k]] = values[k]
    return out


def dense_M(m, d):
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)  # 4.0.0 signature: (m, d, dst)
    return M


def dense_qLD(m, d):
    """qLD shares M's lower-triangular CSR layout (M_rowadr/M_rownnz/M_colind); the last
    element of each row is D_ii, the others are the strictly lower entries of unit L, with
    M = L^T D L. Returned dense: D on the diagonal, L below it, zeros above."""
    L = dense_csr(d.qLD, m.M_rownnz, m.M_rowadr, m.M_colind, m.nv, m.nv)
    # sanity check of the layout
    Lu = np.tril(L, -1) + np.eye(m.nv)
    Dm = np.diag(np.diag(L))
    M = dense_M(m, d)
    err = np.abs(Lu.T @ Dm @ Lu - M).max() if m.nv else 0.0
    assert err <= 1e-9 * max(1.0, np.abs(M).max()), ("qLD layout check failed", err)
    assert np.allclose(1.0 / np.diag(L), d.qLDiagInv, rtol=1e-12, atol=0)
    return L


def dense_moment(m, d):
    return dense_csr(d.actuator_moment, d.moment_rownnz, d.moment_rowadr, d.moment_colind,
                     m.nu, m.nv)


def dense_tenJ(m, d):
    return dense_csr(d.ten_J, m.ten_J_rownnz, m.ten_J_rowadr, m.ten_J_colind, m.ntendon, m.nv)


def dense_qDeriv(m, d_src, integrator):
    """d(qfrc_passive + qfrc_actuator [- qfrc_bias for implicit])/d qvel as MuJoCo stores it
    in d.qDeriv (CSR with D_rowadr/D_rownnz/D_colind) when stepping with `integrator`."""
    d2 = mujoco.MjData(m)
    mujoco.mj_copyData(d2, m, d_src)
    saved = m.opt.integrator
    m.opt.integrator = integrator
    try:
        mujoco.mj_step(m, d2)
    finally:
        m.opt.integrator = saved
    return dense_csr(d2.qDeriv, m.D_rownnz, m.D_rowadr, m.D_colind, m.nv, m.nv)


def opt_dict(m):
    out = {}
    for f in OPT_FIELDS:
        v = getattr(m.opt, f)
        if isinstance(v, np.ndarray):
            out[f] = tolist(v)
        elif isinstance(v, (int, np.integer)) or hasattr(v, "value"):
            out[f] = int(v)
        else:
            out[f] = float(v)
    return out


def compiled_dict(m):
    out = {}
    missing = []
    for f in COMPILED:
        if not hasattr(m, f):
            missing.append(f)
            continue
        out[f] = tolist(getattr(m, f))
    if missing:
        print("  (fields not in this MuJoCo: %s)" % ", ".join(missing))
    out["stat"] = {f: tolist(getattr(m.stat, f)) for f in STAT_FIELDS}
    out["names"] = {
        kind: [mujoco.mj_id2name(m, obj, i) for i in range(n)]
        for kind, obj, n in [
            ("body", mujoco.mjtObj.mjOBJ_BODY, m.nbody),
            ("joint", mujoco.mjtObj.mjOBJ_JOINT, m.njnt),
            ("geom", mujoco.mjtObj.mjOBJ_GEOM, m.ngeom),
            ("site", mujoco.mjtObj.mjOBJ_SITE, m.nsite),
            ("tendon", mujoco.mjtObj.mjOBJ_TENDON, m.ntendon),
            ("actuator", mujoco.mjtObj.mjOBJ_ACTUATOR, m.nu),
            ("sensor", mujoco.mjtObj.mjOBJ_SENSOR, m.nsensor),
            ("mesh", mujoco.mjtObj.mjOBJ_MESH, m.nmesh),
            ("hfield", mujoco.mjtObj.mjOBJ_HFIELD, m.nhfield),
            ("key", mujoco.mjtObj.mjOBJ_KEY, m.nkey),
        ]
    }
    return out


# ---------------------------------------------------------------------------------------------
def random_unit_quat(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    if q[0] < 0:
        q = -q
    return q


def random_state(m, rng):
    qpos = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            qpos[a:a + 3] += rng.uniform(-0.5, 0.5, 3)
            qpos[a + 3:a + 7] = random_unit_quat(rng)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            qpos[a:a + 4] = random_unit_quat(rng)
        elif t == mujoco.mjtJoint.mjJNT_SLIDE:
            qpos[a] += rng.uniform(-0.2, 0.2)
        else:
            qpos[a] += rng.uniform(-1.2, 1.2)
    qvel = rng.normal(0.0, 1.0, m.nv)
    act = np.zeros(m.na)
    for i in range(m.nu):
        for k in range(m.actuator_actnum[i]):
            adr = m.actuator_actadr[i] + k
            if m.actuator_actlimited[i]:
                lo, hi = m.actuator_actrange[i]
                act[adr] = rng.uniform(lo, hi)
            else:
                act[adr] = rng.uniform(-1.0, 1.0)
    ctrl = np.zeros(m.nu)
    for i in range(m.nu):
        if m.actuator_ctrllimited[i]:
            lo, hi = m.actuator_ctrlrange[i]
            w = hi - lo
            ctrl[i] = rng.uniform(lo - 0.5 * w, hi + 0.5 * w)  # ~1/2 of draws outside range
        else:
            ctrl[i] = rng.normal(0.0, 1.0)
    qfrc_applied = rng.normal(0.0, 0.5, m.nv)
    return qpos, qvel, act, ctrl, qfrc_applied


def record_state(m, d, label):
    mujoco.mj_forward(m, d)
    s = {
        "label": label,
        "time": float(d.time),
        "qpos": tolist(d.qpos), "qvel": tolist(d.qvel), "act": tolist(d.act),
        "ctrl": tolist(d.ctrl), "qfrc_applied": tolist(d.qfrc_applied),
        "mocap_pos": tolist(d.mocap_pos), "mocap_quat": tolist(d.mocap_quat),
        "qM": tolist(dense_M(m, d)),
        "qLD": tolist(dense_qLD(m, d)),
        "qLDiagInv": tolist(d.qLDiagInv),
        "actuator_moment": tolist(dense_moment(m, d)),
        "ten_J": tolist(dense_tenJ(m, d)),
    }
    for f in DATA_OUT:
        s[f] = tolist(getattr(d, f))
    s["qDeriv"] = tolist(dense_qDeriv(m, d, mujoco.mjtIntegrator.mjINT_IMPLICIT))
    s["qDeriv_implicitfast"] = tolist(dense_qDeriv(m, d, mujoco.mjtIntegrator.mjINT_IMPLICITFAST))
    return s


def states_for(m, name):
    d = mujoco.MjData(m)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out = []
    # keyframes (or qpos0)
    if m.nkey == 0:
        mujoco.mj_resetData(m, d)
        out.append(record_state(m, d, "qpos0"))
    for k in range(m.nkey):
        mujoco.mj_resetDataKeyframe(m, d, k)
        out.append(record_state(m, d, "keyframe %d" % k))
    # qpos0 with nonzero ctrl (if the first keyframe is not qpos0)
    for i in range(NRANDOM):
        mujoco.mj_resetData(m, d)
        qpos, qvel, act, ctrl, qfrc = random_state(m, rng)
        d.qpos[:] = qpos
        d.qvel[:] = qvel
        d.act[:] = act
        d.ctrl[:] = ctrl
        d.qfrc_applied[:] = qfrc
        out.append(record_state(m, d, "random %d" % i))
    return out


# ---------------------------------------------------------------------------------------------
def control_sequence(m):
    """Deterministic smooth controls, NSTEP x nu: sinusoids that exceed ctrlrange."""
    h = m.opt.timestep
    t = np.arange(NSTEP) * h
    ctrl = np.zeros((NSTEP, m.nu))
    for i in range(m.nu):
        f = 0.5 + 0.37 * i        # Hz
        phi = 0.9 * i
        if m.actuator_ctrllimited[i]:
            lo, hi = m.actuator_ctrlrange[i]
            c, a = 0.5 * (lo + hi), 0.7 * (hi - lo)   # peaks 40% of the half-range outside
        else:
            c, a = 0.0, 1.0
        ctrl[:, i] = c + a * np.sin(2 * np.pi * f * t + phi)
    return ctrl


def reset_initial(m, d):
    if m.nkey > 0:
        mujoco.mj_resetDataKeyframe(m, d, 0)
    else:
        mujoco.mj_resetData(m, d)


def run(m, integrator, ctrl, disable_eulerdamp=False, perturb=0.0):
    saved_int, saved_dis = m.opt.integrator, m.opt.disableflags
    m.opt.integrator = integrator
    if disable_eulerdamp:
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_EULERDAMP)
    try:
        d = mujoco.MjData(m)
        reset_initial(m, d)
        if perturb:
            d.qvel[:] += perturb
        T, Q, V, A = [d.time], [d.qpos.copy()], [d.qvel.copy()], [d.act.copy()]
        for k in range(NSTEP):
            d.ctrl[:] = ctrl[k]
            mujoco.mj_step(m, d)
            T.append(d.time)
            Q.append(d.qpos.copy())
            V.append(d.qvel.copy())
            A.append(d.act.copy())
    finally:
        m.opt.integrator, m.opt.disableflags = saved_int, saved_dis
    return np.array(T), np.array(Q), np.array(V), np.array(A).reshape(NSTEP + 1, m.na)


def rollouts_for(m):
    ctrl = control_sequence(m)
    todo = list(INTEGRATORS)
    has_damping = bool(np.any(m.dof_damping > 0) or np.any(m.dof_dampingpoly != 0))
    out = {}
    growth = {}
    runs = [(n, i, False) for n, i in todo]
    if has_damping:
        runs.append(("Euler_noeulerdamp", mujoco.mjtIntegrator.mjINT_EULER, True))
    for name, integ, noed in runs:
        T, Q, V, A = run(m, integ, ctrl, noed)
        # sensitivity: perturb qvel by 1e-9 and see how much the final state moves
        eps = 1e-9
        _, Q2, V2, _ = run(m, integ, ctrl, noed, perturb=eps)
        g = max(np.abs(Q2 - Q).max(), np.abs(V2 - V).max()) / eps
        growth[name] = g
        out[name] = {
            "integrator": name,
            "integrator_enum": int(integ),
            "eulerdamp": not noed,
            "timestep": float(m.opt.timestep),
            "nstep": NSTEP,
            "initial": "keyframe 0" if m.nkey else "qpos0",
            "qpos0": tolist(Q[0]), "qvel0": tolist(V[0]), "act0": tolist(A[0]),
            "ctrl": tolist(ctrl),
            "time": tolist(T), "qpos": tolist(Q), "qvel": tolist(V), "act": tolist(A),
            "perturbation_gain": float(g),
        }
    return out, growth


# ---------------------------------------------------------------------------------------------
def generate(name):
    path = os.path.join(ROOT, "models", name + ".xml")
    m = mujoco.MjModel.from_xml_path(path)
    doc = {
        "model": "models/%s.xml" % name,
        "mujoco_version": mujoco.__version__,
        "sizes": {s: int(getattr(m, s)) for s in SIZES},
        "opt": opt_dict(m),
        "compiled": compiled_dict(m),
        "states": states_for(m, name),
    }
    doc["rollouts"], growth = rollouts_for(m)
    outdir = os.path.join(ROOT, "tests", "reference")
    os.makedirs(outdir, exist_ok=True)
    outpath = os.path.join(outdir, name + ".json")
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    with open(outpath, "w") as f:
        f.write(text)
        f.write("\n")
    # round-trip check: full precision
    back = json.loads(text)
    assert back["rollouts"]["Euler"]["qpos"][-1] == doc["rollouts"]["Euler"]["qpos"][-1]
    return outpath, m, len(text), growth, len(doc["states"])


def main(argv):
    if mujoco.__version__ != EXPECTED_VERSION:
        print("WARNING: mujoco %s, the reference data is meant for %s"
              % (mujoco.__version__, EXPECTED_VERSION), file=sys.stderr)
    names = argv[1:] or MODELS
    print("%-16s %3s %3s %3s %3s %6s %9s  %s" % ("model", "nq", "nv", "nu", "na", "states",
                                                 "bytes", "perturbation gain (|dx_final|/1e-9)"))
    for name in names:
        outpath, m, size, growth, nstates = generate(name)
        g = " ".join("%s=%.3g" % (k, v) for k, v in growth.items())
        print("%-16s %3d %3d %3d %3d %6d %9d  %s" % (name, m.nq, m.nv, m.nu, m.na, nstates,
                                                   size, g))


if __name__ == "__main__":
    main(sys.argv)
