#!/usr/bin/env python3
"""Generate tests/reference/assembly_cases.json: MuJoCo 4.0.0 constraint-assembly oracle cases.

Each case is one mj_forward (islands disabled, dense Jacobian) of a small MJCF scene at a
perturbed state. Recorded: the XML (the Rust test compiles it with moreau's loader), the state
(qpos, qvel, qacc_warmstart, eq_active), the contact list, every efc array assembly produces
(type, id, J, pos, margin, frictionloss, diagA, KBIP, R, D, vel, aref, b) and the solver results
(qacc, efc_force, niter) for Newton, CG and PGS from the same state, and PGS run to
convergence (20000 sweeps, tolerance 1e-15).

Scenes: every equality type (connect / weld by body and by site, weld torquescale and relpose,
joint and tendon polycoef couplings, single-object variants), friction loss on hinge / ball /
free dofs and tendons, hinge / slide / ball / tendon limits violated and within margin, sphere
and box contacts with a plane and each other at condim 1/3/4/6 in both cones, margin/gap, and
the disable flags (constraint, equality, frictionloss, limit, contact).

Rerun:  pip install mujoco==4.0.0 numpy ; python3 tools/reference/gen_assembly_cases.py
"""
import json
import os

import numpy as np
import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "reference", "assembly_cases.json")

OPT = '<option {attrs}><flag island="disable" {flags}/></option>'

EQUALITY = '''<mujoco>
  {opt}
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="ba" type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h1" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <site name="sb" pos="0.3 0 0" euler="10 20 30"/>
      </body>
    </body>
    <body name="c" pos="0.6 0.05 1" euler="5 0 10">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <site name="sc" pos="0.02 0 0.01" euler="0 0 15"/>
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
    <body name="g" pos="1 0 1">
      <joint name="s1" type="slide" axis="1 0 0"/>
      <joint name="s2" type="slide" axis="0 1 0"/>
      <joint name="h4" axis="0 0 1"/>
      <geom type="box" size="0.05 0.1 0.02"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t1"><joint joint="s1" coef="1"/><joint joint="h2" coef="0.3"/></fixed>
    <fixed name="t2"><joint joint="s2" coef="-1"/><joint joint="h4" coef="0.2"/></fixed>
  </tendon>
  <equality>
    <connect body1="b" body2="c" anchor="0.3 0 0" solref="0.015 1.2"/>
    <weld body1="e" body2="f" solimp="0.95 0.99 0.01 0.5 2" solref="-5000 -60" torquescale="0.5"/>
    <joint joint1="h2" joint2="h3" polycoef="0.1 0.5 0.2 -0.3 0.4"/>
    <weld body1="a" body2="g" anchor="0.05 0.01 0" relpose="0.1 0.2 0.3 0.9 0.1 0.2 0.3" torquescale="2"/>
    <joint joint1="h1" polycoef="0.2 0 0 0 0" solref="0.03 0.9"/>
    <tendon tendon1="t1" tendon2="t2" polycoef="0.05 0.7 0.3 0.1 -0.2"/>
    <tendon tendon1="t2" polycoef="0.1 0 0 0 0"/>
    <connect body1="f" anchor="0 0 0.1"/>
    <weld body1="c" solimp="0.8 0.9 0.02 0.3 3"/>
    {sites}
  </equality>
</mujoco>'''

SITES = '''<connect site1="sb" site2="sc"/>
    <weld site1="sb" site2="sc" torquescale="0.7"/>'''

LIMITS = '''<mujoco>
  {opt}
  <default><joint limited="true" range="-30 30" damping="0.1"/></default>
  <worldbody>
    <body>
      <joint name="j0" axis="0 1 0" solreflimit="0.03 0.7" solimplimit="0.85 0.99 0.01 0.3 4"
             frictionloss="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body pos="0.3 0 0">
        <joint name="j1" axis="0 1 0" range="-20 45" margin="0.3" solreffriction="-800 -30"
               frictionloss="0.2"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body pos="0.3 0 0">
          <joint name="j2" axis="0 0 1" range="-5 5" margin="0.2" frictionloss="1.5"
                 solimpfriction="0.7 0.9 0.001 0.5 2"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
          <body pos="0.3 0 0">
            <joint name="j3" type="slide" axis="1 0 0" range="-0.05 0.05" solreflimit="-2000 -40"
                   margin="0.02"/>
            <geom type="sphere" size="0.05"/>
          </body>
        </body>
      </body>
    </body>
    <body pos="0 1 1">
      <joint name="b0" type="ball" range="0 35" margin="0.1" frictionloss="0.4"
             solreflimit="0.05 1.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.05"/>
      <body pos="0 0 -0.4">
        <joint name="b1" type="ball" range="0 20" limited="true"/>
        <geom type="box" size="0.05 0.1 0.15" pos="0 0 -0.15"/>
      </body>
    </body>
    <body pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t0" limited="true" range="-0.2 0.2" frictionloss="0.2" margin="0.05"
           solreflimit="0.04 0.8" solimpfriction="0.8 0.9 0.001 0.5 2">
      <joint joint="j0" coef="1"/><joint joint="j2" coef="-0.5"/>
    </fixed>
    <fixed name="t1" limited="true" range="-0.01 0.3" margin="0.1" solimplimit="0.7 0.95 0.05 0.5 2">
      <joint joint="j1" coef="0.5"/><joint joint="j3" coef="2"/>
    </fixed>
  </tendon>
  <sensor>
    <jointlimitpos joint="j0"/><jointlimitvel joint="j1"/><jointlimitfrc joint="j2"/>
    <jointlimitfrc joint="j3"/><jointlimitpos joint="b0"/><jointlimitfrc joint="b1"/>
    <tendonlimitpos tendon="t0"/><tendonlimitvel tendon="t1"/><tendonlimitfrc tendon="t0"/>
    <tendonlimitfrc tendon="t1"/>
  </sensor>
</mujoco>'''

FRICTION = '''<mujoco>
  {opt}
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.1"/>
    </body>
    <body pos="1 0 1">
      <joint type="free" frictionloss="0.5"/>
      <geom type="box" size="0.1 0.2 0.1"/>
    </body>
    <body pos="0 1 1">
      <joint name="ba" type="ball" frictionloss="0.2" solreffriction="0.05 2"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body pos="0.3 0 0">
        <joint name="h" axis="0 1 0" frictionloss="0.1" solimpfriction="0.5 0.8 0.01 0.5 2"/>
        <joint name="s" type="slide" axis="1 0 0" frictionloss="3"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t0" frictionloss="0.3" solreffriction="-100 -10">
      <joint joint="h" coef="1"/><joint joint="s" coef="-2"/>
    </fixed>
    <fixed name="t1" frictionloss="0">
      <joint joint="h" coef="1"/>
    </fixed>
  </tendon>
</mujoco>'''

PLANE = '<geom name="floor" type="plane" size="5 5 0.1" {extra}/>'


def contacts_xml(cone, impratio, flags=""):
    bodies = []
    for i, condim in enumerate([1, 3, 4, 6]):
        bodies.append(f'''
    <body pos="{0.5 * i} 0 0.095">
      <freejoint/>
      <geom type="sphere" size="0.1" condim="{condim}" friction="0.8 0.02 0.001" mass="{1 + i}"/>
    </body>''')
        bodies.append(f'''
    <body pos="{0.5 * i} 1 0.097" euler="0 0 {15 * i}">
      <freejoint/>
      <geom type="box" size="0.1 0.15 0.1" condim="{condim}" friction="0.6 0.01 0.002"
            solref="0.01 0.8" solimp="0.8 0.97 0.002 0.4 3"/>
    </body>''')
    # sphere resting on a sphere (both movable), a gap-only contact, a margin contact,
    # a contact with a static (non-world) body, a hinged body touching the floor
    bodies.append('''
    <body pos="0 -1 0.1">
      <freejoint/>
      <geom type="sphere" size="0.1" condim="4"/>
    </body>
    <body pos="0.02 -1 0.298">
      <freejoint/>
      <geom type="sphere" size="0.1" condim="6" priority="1" friction="0.5 0.03 0.003"/>
    </body>
    <body pos="1 -1 0.12">
      <freejoint/>
      <geom type="sphere" size="0.1" margin="0.01" gap="0.02"/>
    </body>
    <body pos="1.5 -1 0.105">
      <freejoint/>
      <geom type="sphere" size="0.1" margin="0.02" solref="-3000 -50"/>
    </body>
    <body name="static" pos="2 -1 0.3">
      <geom type="box" size="0.2 0.2 0.05"/>
    </body>
    <body pos="2 -1 0.449">
      <freejoint/>
      <geom type="sphere" size="0.1" condim="3"/>
    </body>
    <body pos="2.5 0 0.3">
      <joint type="hinge" axis="0 1 0" pos="0 0 0.3"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.21" size="0.1" condim="3"/>
    </body>''')
    return f'''<mujoco>
  {OPT.format(attrs=f'cone="{cone}" impratio="{impratio}"', flags=flags)}
  <worldbody>{PLANE.format(extra="")}{"".join(bodies)}
  </worldbody>
</mujoco>'''


def combined(flags):
    """Equality + limits + friction + contact in one model, for the disable-flag cases."""
    return f'''<mujoco>
  {OPT.format(attrs="", flags=flags)}
  <worldbody>{PLANE.format(extra="")}
    <body name="a" pos="0 0 0.5">
      <joint name="h0" axis="0 1 0" limited="true" range="-10 10" frictionloss="0.2"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h1" axis="0 1 0" frictionloss="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      </body>
    </body>
    <body name="c" pos="0.6 0 0.099">
      <freejoint/>
      <geom type="sphere" size="0.1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t" limited="true" range="-0.1 0.1" frictionloss="0.1">
      <joint joint="h0" coef="1"/><joint joint="h1" coef="1"/>
    </fixed>
  </tendon>
  <equality>
    <connect body1="b" body2="c" anchor="0.3 0 0"/>
    <joint joint1="h1" polycoef="0 0 0 0 0"/>
  </equality>
</mujoco>'''


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


def contact_list(d):
    out = []
    for i in range(d.ncon):
        c = d.contact[i]
        out.append(dict(geom=[int(c.geom[0]), int(c.geom[1])], dist=float(c.dist),
                        pos=list(c.pos), frame=list(c.frame), includemargin=float(c.includemargin),
                        dim=int(c.dim), friction=list(c.friction), solref=list(c.solref),
                        solreffriction=list(c.solreffriction), solimp=list(c.solimp),
                        mu=float(c.mu), exclude=int(c.exclude), efc_address=int(c.efc_address)))
    return out


def perturb(m, rng, scale_q, scale_v):
    qpos = np.array(m.qpos0)
    mujoco.mj_integratePos(m, qpos, scale_q * rng.standard_normal(m.nv), 1.0)
    qvel = scale_v * rng.standard_normal(m.nv)
    return qpos, qvel


def run_case(name, xml, seed, scale_q, scale_v, eq_off=(), nstep=0):
    m = mujoco.MjModel.from_xml_string(xml)
    m.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    for _ in range(nstep):
        mujoco.mj_step(m, d)
    if scale_q > 0:
        d.qpos[:], v = perturb(m, rng, scale_q, scale_v)
    d.qvel[:] += scale_v * rng.standard_normal(m.nv)
    if nstep == 0:
        d.qacc_warmstart[:] = rng.standard_normal(m.nv)
    for e in eq_off:
        d.eq_active[e] = 0
    qpos, qvel, qws = d.qpos.copy(), d.qvel.copy(), d.qacc_warmstart.copy()
    results = {}
    for sname, sval in [("cg", mujoco.mjtSolver.mjSOL_CG), ("pgs", mujoco.mjtSolver.mjSOL_PGS),
                        ("newton", mujoco.mjtSolver.mjSOL_NEWTON)]:
        m.opt.solver = sval
        d.qpos[:], d.qvel[:], d.qacc_warmstart[:] = qpos, qvel, qws
        mujoco.mj_forward(m, d)
        results[sname] = dict(qacc=list(d.qacc), efc_force=list(d.efc_force),
                              niter=int(d.solver_niter[0]), qfrc_constraint=list(d.qfrc_constraint))
    # PGS run to convergence (elliptic PGS converges to a different point than Newton)
    m.opt.solver, m.opt.iterations, m.opt.tolerance = mujoco.mjtSolver.mjSOL_PGS, 20000, 1e-15
    d.qpos[:], d.qvel[:], d.qacc_warmstart[:] = qpos, qvel, qws
    mujoco.mj_forward(m, d)
    results["pgs_conv"] = dict(qacc=list(d.qacc), niter=int(d.solver_niter[0]))
    m.opt.solver, m.opt.iterations, m.opt.tolerance = mujoco.mjtSolver.mjSOL_NEWTON, 100, 1e-8
    d.qpos[:], d.qvel[:], d.qacc_warmstart[:] = qpos, qvel, qws
    mujoco.mj_forward(m, d)
    # d holds the Newton solve (solver attribute stays Newton, the default)
    assert m.opt.solver == mujoco.mjtSolver.mjSOL_NEWTON
    return dict(
        name=name, xml=xml, nv=m.nv, qpos=list(qpos), qvel=list(qvel), qacc_warmstart=list(qws),
        eq_active=[int(x) for x in d.eq_active],
        qacc_smooth=list(d.qacc_smooth),
        contact=contact_list(d), nefc=int(d.nefc),
        efc_type=[int(x) for x in d.efc_type], efc_id=[int(x) for x in d.efc_id],
        efc_J=dense_J(m, d).ravel().tolist(), efc_pos=list(d.efc_pos),
        efc_margin=list(d.efc_margin), efc_frictionloss=list(d.efc_frictionloss),
        efc_diagA=list(d.efc_diagA), efc_KBIP=np.array(d.efc_KBIP).ravel().tolist(),
        efc_R=list(d.efc_R), efc_D=list(d.efc_D), efc_vel=list(d.efc_vel),
        efc_aref=list(d.efc_aref), efc_b=list(d.efc_b), efc_state=[int(x) for x in d.efc_state],
        sensordata=list(d.sensordata),
        results=results)


def scenes():
    out = []
    opt = OPT.format(attrs="", flags="")
    eq = EQUALITY.format(opt=opt, sites="")
    eqs = EQUALITY.format(opt=opt, sites=SITES)
    for k in range(3):
        out.append((f"equality_{k}", eq, 0.15, 0.8, (), 0))
    out.append(("equality_sites", eqs, 0.15, 0.8, (), 0))
    out.append(("equality_inactive", eq, 0.15, 0.8, (1, 5), 0))
    out.append(("equality_step", eq, 0.0, 0.1, (), 30))
    lim = LIMITS.format(opt=opt)
    for k in range(4):
        out.append((f"limits_{k}", lim, 0.6, 1.0, (), 0))
    out.append(("limits_step", lim, 0.0, 0.2, (), 50))
    fr = FRICTION.format(opt=opt)
    for k in range(2):
        out.append((f"friction_{k}", fr, 0.3, 0.5, (), 0))
    for cone in ["pyramidal", "elliptic"]:
        for imp in [1.0, 2.5]:
            x = contacts_xml(cone, imp)
            out.append((f"contact_{cone}_imp{imp:g}", x, 0.0, 0.3, (), 0))
            out.append((f"contact_{cone}_imp{imp:g}_step", x, 0.0, 0.05, (), 20))
    for flags in ["", 'constraint="disable"', 'equality="disable"', 'frictionloss="disable"',
                  'limit="disable"', 'contact="disable"', 'refsafe="disable"']:
        tag = flags.split("=")[0] or "none"
        x = combined(flags)
        out.append((f"flags_{tag}", x, 0.3, 0.5, (), 0))
    return out


def main():
    cases = []
    for seed, (name, xml, sq, sv, eq_off, nstep) in enumerate(scenes()):
        c = run_case(name, xml, seed + 1, sq, sv, eq_off, nstep)
        cases.append(c)
        r = c["results"]
        types = sorted(set(c["efc_type"]))
        print(f"{name:32s} nv={c['nv']:2d} ncon={len(c['contact']):2d} nefc={c['nefc']:3d} "
              f"types={types} niter N/CG/PGS={r['newton']['niter']}/{r['cg']['niter']}/"
              f"{r['pgs']['niter']}")
    with open(OUT, "w") as f:
        json.dump(dict(mujoco_version=mujoco.__version__, cases=cases), f, separators=(",", ":"))
    print(OUT, os.path.getsize(OUT) // 1024, "KiB")


if __name__ == "__main__":
    main()
