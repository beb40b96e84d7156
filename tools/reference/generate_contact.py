#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the contact / constraint models (the constraints issue).

For every model in MODELS this writes tests/reference/<model>.json with the same top-level
layout as generate.py (model, mujoco_version, sizes, opt, compiled, states, rollouts) plus
`generator` (what the generator changed) and, per state, the constraint pipeline after
mj_forward: contacts, every efc_* array (efc_J dense), the Newton solver's per-iteration
statistics, and the same forward solve under CG and PGS. Islands are DISABLED
(opt.disableflags |= mjDSBL_ISLAND, for states and rollouts) so that efc_state is the final
state and the solver runs one solve over all dofs; each state also carries the islands-on
result (`islands_on`) to document the difference.
It also writes tests/reference/contact_index.json (models, what they exercise, chaos).

Rerun:  python3 tools/reference/generate_contact.py [model ...]
The format is described in tools/reference/README.md.
"""
import json
import os
import sys
import zlib

import numpy as np
import mujoco

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as G  # noqa: E402  (helpers and the common format)

ROOT = G.ROOT
NSTEP = 500
MAX_BYTES = 3_000_000
ISLAND_BIT = int(mujoco.mjtDisableBit.mjDSBL_ISLAND)
CHAOS_GAIN = 1e3   # perturbation gain above which a rollout is called chaotic

# model -> what it exercises (also written to contact_index.json)
MODELS = {
    "sphere_drop": "4 free spheres on a plane, condim 1/3/4/6 side by side, pyramidal; slide + "
                   "spin + roll so tangential, torsional and rolling friction act; solref/solimp "
                   "mixing by solmix (s3), margin (s6); floor condim 1 (mixing takes the max)",
    "sphere_drop_elliptic": "sphere_drop with cone=elliptic (elliptic rows, cone states)",
    "box_drop": "4 free boxes (condim 1/3/4/6) tilted 8 deg, landing on an edge then flat "
                "(box-plane, up to 4 contacts each), sliding + spinning; solmix mixing (b3), "
                "geom priority (b4), margin (b6); pyramidal",
    "box_drop_elliptic": "box_drop with cone=elliptic",
    "capsule_chain": "free capsule + 4 hinges (alternating axes, damping) lying on a plane: "
                     "capsule-plane (2 contacts per link), parent-child filtering",
    "hopper_leg": "planar hopper: slide x, slide z, hinge root + thigh/leg/foot hinges with "
                  "ranges (limits become active as it crumples), 3 motors, capsule-plane and "
                  "capsule-capsule (torso-foot) contacts; timestep 0.004",
    "quadruped": "free torso + 12 limited hinges, 12 position actuators holding a stance, "
                 "4 sphere feet on the floor (contype/conaffinity filtering)",
    "box_stack": "4 stacked free boxes settling: box-plane and box-box contacts (many "
                 "redundant contacts per interface); top box slides, second spins",
    "constraints": "every equality (connect four-bar, weld with default relpose/torquescale/"
                   "anchor, weld to world with relpose/anchor/torquescale 3, joint quartic "
                   "polycoef, single-joint, tendon polycoef), dof frictionloss (hinge, slide, "
                   "ball), tendon frictionloss, joint limits (hinge with margin + solreflimit/"
                   "solimplimit, slide, ball cone), tendon limit; keyframe 0 violates all; "
                   "no contacts (contype 0)",
    "mesh_drop": "convex meshes (tetrahedron, hexagonal prism x2) on a plane: mesh-plane "
                 "contacts (3 / 4 / 2-4), off-centre mesh re-centring, condim 3 and 4",
    "mesh_stack": "boxes and cube meshes stacked on a fixed box: box-mesh and mesh-mesh "
                  "multi-contact patches (MuJoCo 4.0.0 multiccd, 4 contacts per pair), "
                  "sliding and spinning on the patches; condim 3 and 4",
    "cyl_stack": "a box and a cube mesh on the caps of two fixed cylinders: cylinder-box and "
                 "cylinder-mesh multi-contact patches (MuJoCo 4.0.0 multiccd, 4 contacts per "
                 "pair), sliding and spinning on the caps; condim 3 and 4",
    "humanoid": "dm_control-style humanoid (nv 27, 21 motors, limits, joint stiffness, "
                "self-collision + floor, an explicit exclude, condim 1 body / 3 feet, "
                "timestep 0.005): a benchmark scene; falls over (chaotic)",
    "cheetah": "dm_control-style planar cheetah: slide x/z + hinge y root, 6 "
               "limited hinges with stiffness/damping/armature from classes, 6 motors, "
               "settotalmass, capsule-plane and limb-limb contacts (condim 3, friction .4), "
               "timestep 0.01, starts at qpos0 and drops onto its feet",
    "walker": "dm_control-style planar walker: slide z/x + hinge y root, two legs "
              "of 3 limited hinges (joint pos offsets, soft limits), 6 motors, capsule feet "
              "via zaxis, limbs collide with the floor only (conaffinity 0), subtreelinvel "
              "sensor, timestep 0.0025; starts at qpos0 and falls",
    "hopper": "dm_control-style planar hopper: slide x/z + hinge y root, waist/"
              "hip/knee/ankle limited hinges, 4 motors, touch sensors on toe/heel sites, "
              "default friction/solref, timestep 0.005; starts at qpos0 and falls",
}

# models that also get an Euler rollout under full-range sinusoidal controls ("Euler_fullrange":
# the motors at up to their ctrlrange, as a dm_control agent drives them)
FULL_RANGE = {"cheetah", "walker", "hopper"}

# extra compile-time arrays that matter for constraints
COMPILED_EXTRA = [
    "eq_type", "eq_obj1id", "eq_obj2id", "eq_objtype", "eq_active0", "eq_solref",
    "eq_solimp", "eq_data",
    "pair_dim", "pair_geom1", "pair_geom2", "pair_signature", "pair_solref",
    "pair_solreffriction", "pair_solimp", "pair_margin", "pair_gap", "pair_friction",
    "exclude_signature",
    "tendon_margin", "tendon_solref_lim", "tendon_solimp_lim", "tendon_solref_fri",
    "tendon_solimp_fri", "tendon_treeid",
    "geom_solmix",
]

SOLVER_STATS = ["improvement", "gradient", "lineslope", "nactive", "nchange", "neval",
                "nupdate"]

# mjData outputs kept per state (kinematics for the collision tests + dynamics)
DATA_OUT = [
    "qfrc_bias", "qfrc_passive", "qfrc_actuator", "actuator_force", "qacc", "qacc_smooth",
    "qfrc_smooth", "qfrc_constraint", "xpos", "xquat", "xmat", "xipos", "geom_xpos",
    "geom_xmat", "subtree_com", "cdof", "cvel", "ten_length", "ten_velocity", "sensordata",
]

EFC_FLAT = ["efc_type", "efc_id", "efc_pos", "efc_margin", "efc_frictionloss", "efc_D",
            "efc_R", "efc_vel", "efc_aref", "efc_b", "efc_force", "efc_state"]


# ---------------------------------------------------------------------------------------------
def dense_efcJ(m, d):
    nefc = d.nefc
    if nefc == 0:
        return np.zeros((0, m.nv)), False
    if mujoco.mj_isSparse(m):
        J = G.dense_csr(d.efc_J, d.efc_J_rownnz, d.efc_J_rowadr, d.efc_J_colind, nefc, m.nv)
        return J, True
    return np.asarray(d.efc_J[:nefc * m.nv]).reshape(nefc, m.nv), False


def contact_list(d):
    out = []
    for i in range(d.ncon):
        c = d.contact[i]
        out.append({
            "geom1": int(c.geom1), "geom2": int(c.geom2), "dist": float(c.dist),
            "pos": G.tolist(c.pos), "frame": G.tolist(np.asarray(c.frame).reshape(3, 3)),
            "includemargin": float(c.includemargin), "friction": G.tolist(c.friction),
            "solref": G.tolist(c.solref), "solreffriction": G.tolist(c.solreffriction),
            "solimp": G.tolist(c.solimp), "mu": float(c.mu), "dim": int(c.dim),
            "exclude": int(c.exclude), "efc_address": int(c.efc_address),
        })
    return out


def solver_stats(d, island=0):
    n = int(d.solver_niter[island])
    base = island * mujoco.mjNSOLVER
    out = {k: [] for k in SOLVER_STATS}
    for i in range(n):
        s = d.solver[base + i]
        for k in SOLVER_STATS:
            v = getattr(s, k)
            out[k].append(int(v) if k.startswith("n") else float(v))
    return out


def forward_with(m, d_src, solver=None, islands=False):
    """mj_forward on a copy of d_src with another solver / islands on; restores m.opt."""
    d2 = mujoco.MjData(m)
    mujoco.mj_copyData(d2, m, d_src)
    saved_solver, saved_dis = m.opt.solver, m.opt.disableflags
    try:
        if solver is not None:
            m.opt.solver = solver
        if islands:
            m.opt.disableflags &= ~ISLAND_BIT
        mujoco.mj_forward(m, d2)
    finally:
        m.opt.solver, m.opt.disableflags = saved_solver, saved_dis
    return d2


def record_state(m, d, label):
    """d holds the inputs (incl. qacc_warmstart); islands must already be disabled in m."""
    assert m.opt.disableflags & ISLAND_BIT
    s = {
        "label": label, "time": float(d.time),
        "qpos": G.tolist(d.qpos), "qvel": G.tolist(d.qvel), "act": G.tolist(d.act),
        "ctrl": G.tolist(d.ctrl), "qfrc_applied": G.tolist(d.qfrc_applied),
        "mocap_pos": G.tolist(d.mocap_pos), "mocap_quat": G.tolist(d.mocap_quat),
        "qacc_warmstart": G.tolist(d.qacc_warmstart),
    }
    mujoco.mj_forward(m, d)
    s["qM"] = G.tolist(G.dense_M(m, d))
    for f in DATA_OUT:
        s[f] = G.tolist(getattr(d, f))
    s["ncon"] = int(d.ncon)
    s["contact"] = contact_list(d)
    s["nefc"] = int(d.nefc)
    for f in ("ne", "nf", "nl"):
        if hasattr(d, f):
            s[f] = int(getattr(d, f))
    n = d.nefc
    J, sparse = dense_efcJ(m, d)
    s["efc_J"] = G.tolist(J)
    s["efc_J_was_sparse"] = sparse
    for f in EFC_FLAT:
        s[f] = G.tolist(np.asarray(getattr(d, f))[:n])
    s["efc_diagApprox"] = G.tolist(np.asarray(d.efc_diagA)[:n])     # 4.0.0 name: efc_diagA
    s["efc_KBIP"] = G.tolist(np.asarray(d.efc_KBIP)[:n].reshape(n, 4))
    s["solver_niter"] = int(d.solver_niter[0])
    s["solver"] = solver_stats(d)
    # certificate: the forward solution satisfies M qacc = qfrc_smooth + J^T f
    M = G.dense_M(m, d)
    res = M @ d.qacc - d.qfrc_smooth - J.T @ d.efc_force[:n]
    s["residual_Mqacc"] = float(np.abs(res).max()) if m.nv else 0.0
    # same inputs, other solvers
    for name, solver in (("cg", mujoco.mjtSolver.mjSOL_CG), ("pgs", mujoco.mjtSolver.mjSOL_PGS)):
        d2 = forward_with(m, d, solver=solver)
        assert d2.nefc == n
        s["qacc_" + name] = G.tolist(d2.qacc)
        s["efc_force_" + name] = G.tolist(np.asarray(d2.efc_force)[:n])
        s["solver_niter_" + name] = int(d2.solver_niter[0])
    # same inputs, islands on (MuJoCo's default)
    d3 = forward_with(m, d, islands=True)
    ni = int(d3.nisland)
    s["islands_on"] = {
        "nisland": ni,
        "solver_niter": G.tolist(d3.solver_niter[:max(ni, 1)]),
        "qacc": G.tolist(d3.qacc),
        "efc_force": G.tolist(np.asarray(d3.efc_force)[:d3.nefc]),
        "efc_state": G.tolist(np.asarray(d3.efc_state)[:d3.nefc]),
        "efc_island": G.tolist(np.asarray(d3.efc_island)[:d3.nefc]),
        "max_abs_dqacc": float(np.abs(d3.qacc - d.qacc).max()) if m.nv else 0.0,
        "max_abs_dforce": float(np.abs(d3.efc_force[:n] - d.efc_force[:n]).max()) if n else 0.0,
        "efc_state_differs": bool(np.any(np.asarray(d3.efc_state)[:n]
                                          != np.asarray(d.efc_state)[:n])),
    }
    return s


# ---------------------------------------------------------------------------------------------
def control_sequence(m, nstep=NSTEP, amp=0.2):
    """keyframe-0 ctrl (or the range centre / 0) plus small sinusoids (`amp` = 20% of the
    half-range, 0.2 for unlimited controls), nstep x nu."""
    h = m.opt.timestep
    t = np.arange(nstep) * h
    ctrl = np.zeros((nstep, m.nu))
    for i in range(m.nu):
        if m.actuator_ctrllimited[i]:
            lo, hi = m.actuator_ctrlrange[i]
            c, a = 0.5 * (lo + hi), amp * 0.5 * (hi - lo)
        else:
            c, a = 0.0, amp
        if m.nkey:
            c = m.key_ctrl[0][i]
        ctrl[:, i] = c + a * np.sin(2 * np.pi * (0.5 + 0.37 * i) * t + 0.9 * i)
    return ctrl


def run(m, integrator, ctrl, perturb=0.0, keep_data_at=()):
    saved = m.opt.integrator
    m.opt.integrator = integrator
    snaps = {}
    try:
        d = mujoco.MjData(m)
        G.reset_initial(m, d)
        if perturb:
            d.qvel[:] += perturb
        T, Q, V, A, NC, NE = [d.time], [d.qpos.copy()], [d.qvel.copy()], [d.act.copy()], [], []
        mujoco.mj_forward(m, d)
        NC.append(int(d.ncon))
        NE.append(int(d.nefc))
        for k in range(len(ctrl)):
            if k in keep_data_at:
                dk = mujoco.MjData(m)
                mujoco.mj_copyData(dk, m, d)
                dk.ctrl[:] = ctrl[k]
                snaps[k] = dk
            d.ctrl[:] = ctrl[k]
            mujoco.mj_step(m, d)
            T.append(d.time)
            Q.append(d.qpos.copy())
            V.append(d.qvel.copy())
            A.append(d.act.copy())
            NC.append(int(d.ncon))    # contacts found in this step's forward pass
            NE.append(int(d.nefc))
    finally:
        m.opt.integrator = saved
    n = len(ctrl)
    return (np.array(T), np.array(Q), np.array(V), np.array(A).reshape(n + 1, m.na),
            np.array(NC), np.array(NE), snaps)


def rollouts_for(m, ctrl, extra=()):
    """Euler and implicitfast rollouts under `ctrl`, plus `extra` (name, integrator, ctrl)."""
    out, gains, ncons = {}, {}, {}
    runs = [("Euler", m.opt.integrator, ctrl),
            ("implicitfast", mujoco.mjtIntegrator.mjINT_IMPLICITFAST, ctrl)] + list(extra)
    for name, integ, ctrl in runs:
        T, Q, V, A, NC, NE, _ = run(m, integ, ctrl)
        eps = 1e-9
        _, Q2, V2, _, _, _, _ = run(m, integ, ctrl, perturb=eps)
        g = max(np.abs(Q2 - Q).max(), np.abs(V2 - V).max()) / eps
        gfin = max(np.abs(Q2[-1] - Q[-1]).max(), np.abs(V2[-1] - V[-1]).max()) / eps
        # per-step gain (3 significant digits): where round-off starts to be amplified
        steps_gain = [float("%.3g" % (max(np.abs(Q2[k] - Q[k]).max(), np.abs(V2[k] - V[k]).max())
                                     / eps)) for k in range(len(Q))]
        gains[name] = float(g)
        gains[name + "_final"] = float(gfin)
        ncons[name] = NC
        label = mujoco.mjtIntegrator(int(integ)).name[6:] if name.startswith("Euler") else name
        out[name] = {
            "integrator": label, "integrator_enum": int(integ), "eulerdamp": True,
            "timestep": float(m.opt.timestep), "nstep": len(ctrl),
            "initial": "keyframe 0" if m.nkey else "qpos0",
            "qpos0": G.tolist(Q[0]), "qvel0": G.tolist(V[0]), "act0": G.tolist(A[0]),
            "ctrl": G.tolist(ctrl),
            "steps": list(range(len(ctrl) + 1)),
            "time": G.tolist(T), "qpos": G.tolist(Q), "qvel": G.tolist(V), "act": G.tolist(A),
            "ncon": G.tolist(NC), "nefc": G.tolist(NE),
            "perturbation_gain": float(g),
            "perturbation_gain_final": float(gfin),
            "perturbation_gain_steps": steps_gain,
            "chaotic": bool(g > CHAOS_GAIN),
        }
    return out, gains, ncons


def subsample(roll, stride):
    """keep every stride-th step (and the last) of the per-step arrays."""
    n = roll["nstep"]
    keep = list(range(0, n + 1, stride))
    if keep[-1] != n:
        keep.append(n)
    for k in ("time", "qpos", "qvel", "act", "ncon", "nefc", "perturbation_gain_steps"):
        roll[k] = [roll[k][i] for i in keep]
    roll["steps"] = keep


# ---------------------------------------------------------------------------------------------
def perturb_state(m, d, rng, deeper=0.003):
    """random perturbation of a rollout state: joints jiggled, free bodies pushed `deeper`
    down (more penetration) and slightly rotated, velocities kicked, random qfrc_applied."""
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            d.qpos[a:a + 2] += rng.normal(0, 0.002, 2)
            d.qpos[a + 2] -= deeper
            dq = np.zeros(4)
            mujoco.mju_axisAngle2Quat(dq, rng.normal(size=3) / 1.0, 0.03)
            q = d.qpos[a + 3:a + 7].copy()
            mujoco.mju_mulQuat(q, q, dq)
            mujoco.mju_normalize4(q)
            d.qpos[a + 3:a + 7] = q
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            dq = np.zeros(4)
            mujoco.mju_axisAngle2Quat(dq, rng.normal(size=3), 0.1)
            q = d.qpos[a:a + 4].copy()
            mujoco.mju_mulQuat(q, q, dq)
            mujoco.mju_normalize4(q)
            d.qpos[a:a + 4] = q
        elif t == mujoco.mjtJoint.mjJNT_SLIDE:
            d.qpos[a] += rng.normal(0, 0.01)
        else:
            d.qpos[a] += rng.normal(0, 0.1)
    d.qvel[:] += rng.normal(0, 0.3, m.nv)
    d.qfrc_applied[:] = rng.normal(0, 0.5, m.nv)


def states_for(m, name, ctrl, ncon_euler):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out = []
    d = mujoco.MjData(m)
    if m.nkey == 0:
        mujoco.mj_resetData(m, d)
        out.append(record_state(m, d, "qpos0"))
    for k in range(m.nkey):
        mujoco.mj_resetDataKeyframe(m, d, k)
        out.append(record_state(m, d, "keyframe %d" % k))
    # rollout states (Euler): shortly after the first contact, mid-way, late
    nz = np.nonzero(ncon_euler[1:] > 0)[0]
    first = int(nz[0]) + 1 if len(nz) else 5
    steps = sorted(set([min(first + 2, NSTEP - 1), min(first + 40, NSTEP - 1), NSTEP // 2,
                        NSTEP - 1]))
    _, _, _, _, _, _, snaps = run(m, m.opt.integrator, ctrl, keep_data_at=set(steps))
    for k in steps:
        out.append(record_state(m, snaps[k], "rollout Euler step %d" % k))
    # perturbed rollout states
    base = snaps[NSTEP // 2]
    for i in range(2):
        d2 = mujoco.MjData(m)
        mujoco.mj_copyData(d2, m, base)
        perturb_state(m, d2, rng)
        if i == 1:
            d2.qacc_warmstart[:] = 0.0
        out.append(record_state(m, d2, "perturbed %d of step %d%s"
                                % (i, NSTEP // 2, " (qacc_warmstart = 0)" if i else "")))
    return out


def generate(name):
    path = os.path.join(ROOT, "models", name + ".xml")
    m = mujoco.MjModel.from_xml_path(path)
    xml_disable = int(m.opt.disableflags)
    m.opt.disableflags |= ISLAND_BIT
    compiled = G.compiled_dict(m)
    for f in COMPILED_EXTRA:
        if hasattr(m, f):
            compiled[f] = G.tolist(getattr(m, f))
    compiled["names"]["equality"] = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_EQUALITY, i)
                                     for i in range(m.neq)]
    ctrl = control_sequence(m)
    extra = []
    if name in FULL_RANGE:
        extra.append(("Euler_fullrange", m.opt.integrator, control_sequence(m, amp=1.0)))
    rollouts, gains, ncons = rollouts_for(m, ctrl, extra)
    doc = {
        "model": "models/%s.xml" % name,
        "mujoco_version": mujoco.__version__,
        "generator": {
            "script": "tools/reference/generate_contact.py",
            "islands": "disabled: opt.disableflags |= mjDSBL_ISLAND (%d) for every state and "
                       "rollout; each state's islands_on holds the default (islands on) solve"
                       % ISLAND_BIT,
            "xml_disableflags": xml_disable,
            "disableflags_added": ISLAND_BIT,
            "jacobian_sparse": bool(mujoco.mj_isSparse(m)),
            "chaos_threshold": CHAOS_GAIN,
        },
        "sizes": {s: int(getattr(m, s)) for s in G.SIZES + ["npair", "nexclude"]},
        "opt": G.opt_dict(m),
        "compiled": compiled,
        "states": states_for(m, name, ctrl, ncons["Euler"]),
        "rollouts": rollouts,
    }
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    stride = 1
    full = json.dumps(doc["rollouts"])
    while len(text) > MAX_BYTES and stride < 20:
        stride += 1
        doc["rollouts"] = json.loads(full)
        for r in doc["rollouts"].values():
            subsample(r, stride)
        text = json.dumps(doc, separators=(",", ":"), allow_nan=False)
    outpath = os.path.join(ROOT, "tests", "reference", name + ".json")
    with open(outpath, "w") as f:
        f.write(text)
        f.write("\n")
    back = json.loads(text)
    assert back["rollouts"]["Euler"]["qpos"][-1] == doc["rollouts"]["Euler"]["qpos"][-1]
    st = doc["states"]
    info = {
        "model": "models/%s.xml" % name,
        "exercises": MODELS[name],
        "nq": m.nq, "nv": m.nv, "nu": m.nu, "ngeom": m.ngeom, "neq": m.neq,
        "timestep": float(m.opt.timestep),
        "cone": ["pyramidal", "elliptic"][int(m.opt.cone)],
        "ncon_states": [s["ncon"] for s in st],
        "nefc_states": [s["nefc"] for s in st],
        "ncon_rollout_max": int(max(ncons["Euler"])),
        "perturbation_gain": gains,
        "chaotic": {k: bool(v > CHAOS_GAIN) for k, v in gains.items()
                    if not k.endswith("_final")},
        "rollout_stride": stride,
        "max_islands_dqacc": max(s["islands_on"]["max_abs_dqacc"] for s in st),
        "bytes": len(text),
    }
    return info


def main(argv):
    if mujoco.__version__ != G.EXPECTED_VERSION:
        print("WARNING: mujoco %s, the reference data is meant for %s"
              % (mujoco.__version__, G.EXPECTED_VERSION), file=sys.stderr)
    names = argv[1:] or list(MODELS)
    idx_path = os.path.join(ROOT, "tests", "reference", "contact_index.json")
    index = {}
    if os.path.exists(idx_path):
        with open(idx_path) as f:
            index = json.load(f).get("models", {})
    print("%-22s %3s %3s %5s %5s %9s  %s" % ("model", "nv", "nu", "ncon", "nefc", "bytes",
                                             "perturbation gain"))
    for name in names:
        info = generate(name)
        index[name] = info
        print("%-22s %3d %3d %5d %5d %9d  %s" % (
            name, info["nv"], info["nu"], info["ncon_rollout_max"], max(info["nefc_states"]),
            info["bytes"], " ".join("%s=%.3g" % kv for kv in info["perturbation_gain"].items())))
    with open(idx_path, "w") as f:
        json.dump({"mujoco_version": mujoco.__version__,
                   "generator": "tools/reference/generate_contact.py",
                   "chaos": "perturbation_gain = max over the rollout of |dqpos|,|dqvel| / 1e-9 "
                            "for a 1e-9 change of every initial qvel (<name>_final: final state only); "
                            "chaotic if > %g" % CHAOS_GAIN,
                   "models": {k: index[k] for k in MODELS if k in index}}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
