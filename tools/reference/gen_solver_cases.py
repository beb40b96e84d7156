#!/usr/bin/env python3
"""Generate tests/reference/solver_cases.json: MuJoCo 4.0.0 constraint-solver oracle cases.

Each case is one mj_forward (islands disabled, dense Jacobian) of a scene with active constraints,
recorded with everything the soft-constraint core needs (M, qfrc_smooth, qacc_smooth,
qacc_warmstart, the efc arrays) plus the raw per-row inputs (solref, solimp, the invweight-based
diagonal approximation A_ii before MuJoCo overwrites efc_diagA, the per-contact cone table),
and the results of the Newton, CG and PGS solvers run from the same state.

Rerun:  pip install mujoco==4.0.0 numpy ; python3 tools/reference/gen_solver_cases.py
"""
import json
import os

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "reference", "solver_cases.json")

PLANE = '<geom name="floor" type="plane" size="5 5 0.1"/>'


def scene_spheres(cone, impratio):
    bodies = []
    for i, condim in enumerate([1, 3, 4, 6]):
        bodies.append(f'''
    <body pos="{0.5 * i} 0 0.095">
      <freejoint/>
      <geom type="sphere" size="0.1" condim="{condim}" friction="0.8 0.02 0.001" mass="{1 + i}"/>
    </body>''')
    return f'''<mujoco>
  <option cone="{cone}" impratio="{impratio}"><flag island="disable"/></option>
  <worldbody>{PLANE}{"".join(bodies)}
  </worldbody>
</mujoco>'''


def scene_box(cone, impratio, condim):
    return f'''<mujoco>
  <option cone="{cone}" impratio="{impratio}"><flag island="disable"/></option>
  <worldbody>{PLANE}
    <body pos="0 0 0.098" euler="0 0 20">
      <freejoint/>
      <geom type="box" size="0.1 0.15 0.1" condim="{condim}" friction="0.6 0.01 0.002"
            solref="0.01 0.8" solimp="0.8 0.97 0.002 0.4 3"/>
    </body>
  </worldbody>
</mujoco>'''


def scene_stack(cone):
    boxes = []
    for i in range(3):
        boxes.append(f'''
    <body pos="{0.01 * i} {-0.01 * i} {0.098 + 0.197 * i}">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" condim="{3 if i < 2 else 4}" priority="{i}"/>
    </body>''')
    return f'''<mujoco>
  <option cone="{cone}"><flag island="disable"/></option>
  <worldbody>{PLANE}{"".join(boxes)}
  </worldbody>
</mujoco>'''


CHAIN = '''<mujoco>
  <option><flag island="disable"/></option>
  <default><joint limited="true" range="-30 30" frictionloss="0.3" damping="0.1"/></default>
  <worldbody>
    <body>
      <joint name="j0" axis="0 1 0" solreflimit="0.03 0.7" solimplimit="0.85 0.99 0.01 0.3 4"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body pos="0.3 0 0">
        <joint name="j1" axis="0 1 0" range="-20 45" solreffriction="-800 -30" margin="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body pos="0.3 0 0">
          <joint name="j2" axis="0 0 1" frictionloss="1.5" solimpfriction="0.7 0.9 0.001 0.5 2"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
          <body pos="0.3 0 0">
            <joint name="j3" type="slide" axis="1 0 0" range="-0.05 0.05" solreflimit="-2000 -40"/>
            <geom type="sphere" size="0.05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t0" limited="true" range="-0.2 0.2" frictionloss="0.2" margin="0.01">
      <joint joint="j0" coef="1"/><joint joint="j2" coef="-0.5"/>
    </fixed>
  </tendon>
</mujoco>'''

EQUALITY = '''<mujoco>
  <option><flag island="disable"/></option>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h1" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      </body>
    </body>
    <body name="c" pos="0.6 0.05 1">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/>
    </body>
    <body name="e" pos="-0.4 0 1">
      <joint name="h2" axis="1 0 0"/>
      <joint name="h3" axis="0 1 0"/>
      <geom type="sphere" size="0.05" pos="0 0 -0.2"/>
    </body>
    <body name="f" pos="-0.4 0 0.7">
      <freejoint/>
      <geom type="sphere" size="0.04"/>
    </body>
  </worldbody>
  <equality>
    <connect body1="b" body2="c" anchor="0.3 0 0" solref="0.015 1.2"/>
    <weld body1="e" body2="f" solimp="0.95 0.99 0.01 0.5 2" solref="-5000 -60"/>
    <joint joint1="h2" joint2="h3" polycoef="0.1 0.5 0 0 0"/>
    <joint joint1="h1" polycoef="0.2 0 0 0 0"/>
  </equality>
</mujoco>'''


def scenes():
    out = []
    for cone in ["pyramidal", "elliptic"]:
        for imp in [1.0, 3.0]:
            out.append((f"spheres_{cone}_imp{imp:g}", scene_spheres(cone, imp)))
        out.append((f"box3_{cone}", scene_box(cone, 1.0, 3)))
        out.append((f"box6_{cone}_imp2", scene_box(cone, 2.0, 6)))
        out.append((f"stack_{cone}", scene_stack(cone)))
    out.append(("chain", CHAIN))
    out.append(("equality", EQUALITY))
    return out


def dense_J(m, d):
    nefc, nv = d.nefc, m.nv
    J = np.array(d.efc_J)
    if J.size == nefc * nv:
        return J.reshape(nefc, nv)
    D = np.zeros((nefc, nv))
    for i in range(nefc):
        adr, nnz = d.efc_J_rowadr[i], d.efc_J_rownnz[i]
        D[i, d.efc_J_colind[adr:adr + nnz]] = d.efc_J[adr:adr + nnz]
    return D


def eq_bodies(m, e):
    b = []
    for oid in (m.eq_obj1id[e], m.eq_obj2id[e]):
        if m.eq_objtype[e] == mujoco.mjtObj.mjOBJ_SITE:
            b.append(int(m.site_bodyid[oid]) if oid >= 0 else 0)
        else:
            b.append(int(oid) if oid >= 0 else 0)
    return b


def raw_rows(m, d):
    """Per-row solref, solimp and the raw diagonal approximation A_ii
    (docs/mujoco-behaviour.md#parameters)."""
    T = mujoco.mjtConstraint
    iw = m.body_invweight0
    solref, solimp, A = [], [], []
    i = 0
    cones = []
    while i < d.nefc:
        t, id_ = int(d.efc_type[i]), int(d.efc_id[i])
        if t == T.mjCNSTR_EQUALITY:
            et = m.eq_type[id_]
            if et == mujoco.mjtEq.mjEQ_CONNECT:
                b1, b2 = eq_bodies(m, id_)
                rows = [iw[b1][0] + iw[b2][0]] * 3
            elif et == mujoco.mjtEq.mjEQ_WELD:
                b1, b2 = eq_bodies(m, id_)
                rows = [iw[b1][0] + iw[b2][0]] * 3 + [iw[b1][1] + iw[b2][1]] * 3
            elif et == mujoco.mjtEq.mjEQ_JOINT:
                a = m.dof_invweight0[m.jnt_dofadr[m.eq_obj1id[id_]]]
                if m.eq_obj2id[id_] >= 0:
                    a += m.dof_invweight0[m.jnt_dofadr[m.eq_obj2id[id_]]]
                rows = [a]
            elif et == mujoco.mjtEq.mjEQ_TENDON:
                a = m.tendon_invweight0[m.eq_obj1id[id_]]
                if m.eq_obj2id[id_] >= 0:
                    a += m.tendon_invweight0[m.eq_obj2id[id_]]
                rows = [a]
            else:
                raise ValueError("equality type")
            for a in rows:
                solref.append(list(m.eq_solref[id_]))
                solimp.append(list(m.eq_solimp[id_]))
                A.append(float(a))
            i += len(rows)
            continue
        if t == T.mjCNSTR_FRICTION_DOF:
            solref.append(list(m.dof_solref[id_])); solimp.append(list(m.dof_solimp[id_]))
            A.append(float(m.dof_invweight0[id_]))
        elif t == T.mjCNSTR_FRICTION_TENDON:
            solref.append(list(m.tendon_solref_fri[id_])); solimp.append(list(m.tendon_solimp_fri[id_]))
            A.append(float(m.tendon_invweight0[id_]))
        elif t == T.mjCNSTR_LIMIT_JOINT:
            solref.append(list(m.jnt_solref[id_])); solimp.append(list(m.jnt_solimp[id_]))
            A.append(float(m.dof_invweight0[m.jnt_dofadr[id_]]))
        elif t == T.mjCNSTR_LIMIT_TENDON:
            solref.append(list(m.tendon_solref_lim[id_])); solimp.append(list(m.tendon_solimp_lim[id_]))
            A.append(float(m.tendon_invweight0[id_]))
        else:
            con = d.contact[id_]
            b1, b2 = int(m.geom_bodyid[con.geom1]), int(m.geom_bodyid[con.geom2])
            tran, rot = iw[b1][0] + iw[b2][0], iw[b1][1] + iw[b2][1]
            dim = int(con.dim)
            if t == T.mjCNSTR_CONTACT_FRICTIONLESS:
                rows = [tran]
            elif t == T.mjCNSTR_CONTACT_ELLIPTIC:
                rows = [tran if k < 3 else rot for k in range(dim)]
            else:
                rows = []
                for j in range(dim - 1):
                    a = tran + con.friction[j] ** 2 * (tran if j < 2 else rot)
                    rows += [a, a]
            assert con.efc_address == i
            cones.append(dict(adr=i, nrow=len(rows), dim=dim, friction=list(con.friction),
                              solreffriction=list(con.solreffriction), mu=float(con.mu)))
            for a in rows:
                solref.append(list(con.solref)); solimp.append(list(con.solimp))
                A.append(float(a))
            i += len(rows)
            continue
        i += 1
    return solref, solimp, A, cones


def stats(d, n):
    return [dict(improvement=s.improvement, gradient=s.gradient, lineslope=s.lineslope,
                 nactive=int(s.nactive), nchange=int(s.nchange), neval=int(s.neval),
                 nupdate=int(s.nupdate)) for s in list(d.solver)[:n]]


def run_case(name, xml, seed, nstep, opts):
    m = mujoco.MjModel.from_xml_string(xml)
    for k, v in opts.items():
        setattr(m.opt, k, v)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    # a short rollout gives a realistic warmstart, then perturb the velocity
    for _ in range(nstep):
        mujoco.mj_step(m, d)
    if name.startswith("chain"):
        # violate the limits: hinge angles up to ~45 degrees, slide beyond its range
        d.qpos[:] = rng.uniform(-0.8, 0.8, m.nq) * np.array([1, 1, 1, 0.1])
    d.qvel[:] += 0.3 * rng.standard_normal(m.nv)
    spec = mujoco.mjtState.mjSTATE_INTEGRATION
    state = np.zeros(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, state, spec)

    results = {}
    for sname, sval in [("newton", mujoco.mjtSolver.mjSOL_NEWTON), ("cg", mujoco.mjtSolver.mjSOL_CG),
                        ("pgs", mujoco.mjtSolver.mjSOL_PGS)]:
        m.opt.solver = sval
        mujoco.mj_setState(m, d, state, spec)
        mujoco.mj_forward(m, d)
        niter = int(d.solver_niter[0])
        results[sname] = dict(qacc=list(d.qacc), efc_force=list(d.efc_force),
                              efc_state=[int(x) for x in d.efc_state], niter=niter,
                              stats=stats(d, min(niter, 200)))
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    mujoco.mj_setState(m, d, state, spec)
    mujoco.mj_forward(m, d)
    assert d.nefc > 0, name
    nv = m.nv
    M = np.zeros((nv, nv))
    mujoco.mj_fullM(m, d, M)
    solref, solimp, A, cones = raw_rows(m, d)
    # consistency: efc_diagA equals the raw approximation on rows that are not overwritten
    fr = set()
    for c in cones:
        if c["nrow"] > 1:
            fr.update(range(c["adr"] + (0 if c["dim"] > 1 and d.efc_type[c["adr"]] == 6 else 1),
                            c["adr"] + c["nrow"]))
    for i in range(d.nefc):
        if i not in fr and d.efc_R[i] > 1e-14:
            assert abs(d.efc_diagA[i] - A[i]) <= 1e-9 * max(1, abs(A[i])), (name, i, d.efc_diagA[i], A[i])
    J = dense_J(m, d)
    o = m.opt
    return dict(
        name=name, nv=nv, nefc=int(d.nefc),
        opt=dict(timestep=o.timestep, impratio=o.impratio, cone=int(o.cone), iterations=int(o.iterations),
                 tolerance=o.tolerance, ls_iterations=int(o.ls_iterations), ls_tolerance=o.ls_tolerance,
                 disableflags=int(o.disableflags), enableflags=int(o.enableflags)),
        M=M.ravel().tolist(), qfrc_smooth=list(d.qfrc_smooth), qacc_smooth=list(d.qacc_smooth),
        qacc_warmstart=list(d.qacc_warmstart),
        efc_type=[int(x) for x in d.efc_type], efc_id=[int(x) for x in d.efc_id],
        efc_J=J.ravel().tolist(), efc_pos=list(d.efc_pos), efc_margin=list(d.efc_margin),
        efc_frictionloss=list(d.efc_frictionloss), efc_diagA=list(d.efc_diagA),
        efc_KBIP=np.array(d.efc_KBIP).ravel().tolist(), efc_D=list(d.efc_D), efc_R=list(d.efc_R),
        efc_vel=list(d.efc_vel), efc_aref=list(d.efc_aref), efc_b=list(d.efc_b),
        solref=solref, solimp=solimp, A_raw=A, cones=cones, results=results)


def main():
    cases = []
    seed = 0
    for name, xml in scenes():
        for variant, nstep, opts in [("a", 0, {}), ("b", 40, {}), ("c", 15, {"tolerance": 1e-12}),
                                     ("d", 25, {"ls_iterations": 4, "iterations": 6})]:
            seed += 1
            c = run_case(f"{name}_{variant}", xml, seed, nstep, opts)
            cases.append(c)
            r = c["results"]
            print(f"{c['name']:32s} nv={c['nv']:2d} nefc={c['nefc']:3d} niter N/CG/PGS="
                  f"{r['newton']['niter']}/{r['cg']['niter']}/{r['pgs']['niter']}")
    with open(OUT, "w") as f:
        json.dump(dict(mujoco_version=mujoco.__version__, cases=cases), f, separators=(",", ":"))
    print(OUT, os.path.getsize(OUT) // 1024, "KiB")


if __name__ == "__main__":
    main()
