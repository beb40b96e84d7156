#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference values for tests/engine/zoo_regressions.rs: small MJCF models, one per loader
or engine gap the public model zoo turned up (tools/zoo/models.txt), so each stays fixed without
the zoo cache. Writes tests/reference/zoo_regressions.json.

    python3 tools/zoo/gen_regressions.py
"""
import json
import os
import sys

import numpy as np
import mujoco

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# dm_control's cartpole, quadruped and swimmer: a capsule whose default class gives `fromto`
FROMTO_DEFAULT = """<mujoco>
  <default>
    <default class="pole">
      <geom type="capsule" fromto="0 0 0 0 0 1" size="0.045" mass=".1"/>
      <site type="capsule" fromto="0 0 0 1 0 0" size="0.05"/>
    </default>
    <default class="slab"><geom type="box" fromto="0 0 0 .3 .4 0" size=".1 .2 .3"/></default>
  </default>
  <worldbody>
    <body name="a" pos="0 0 1" childclass="pole">
      <joint type="hinge" axis="0 1 0"/>
      <geom name="plain"/>
      <geom name="own" fromto="0 0 0 2 0 0"/>
      <geom name="turned" quat="0 1 0 0"/>
      <geom name="zero_pos" pos="0 0 0" size=".1 .3"/>
      <geom name="slab" class="slab"/>
      <site name="s"/>
    </body>
  </worldbody>
</mujoco>"""

# ... and what MuJoCo refuses
FROMTO_ERRORS = {
    "pos_and_fromto": ("""<mujoco><default><default class="c"><geom type="capsule"
      fromto="0 0 0 0 0 1" size=".05"/></default></default><worldbody><body childclass="c">
      <geom pos="1 2 3"/></body></worldbody></mujoco>""", "both pos and fromto defined in geom"),
    "fromto_sphere": ("""<mujoco><default><default class="c"><geom fromto="0 0 0 0 0 1"
      size=".05"/></default></default><worldbody><body childclass="c"><geom type="sphere"/>
      </body></worldbody></mujoco>""", "fromto requires capsule, cylinder, box or ellipsoid in geom"),
}

# dm_control's dog and Gymnasium's humanoids: <size nkey> allocates keyframes at the initial state
SIZE_NKEY = """<mujoco>
  <size nkey="3"/>
  <worldbody>
    <body pos="0 0 1"><joint name="j" type="hinge" ref="10"/><geom size=".1"/></body>
    <body name="m" mocap="true" pos="1 2 3" quat="0 1 0 0"/>
  </worldbody>
  <actuator><motor joint="j" ctrlrange="1 2"/></actuator>
  <keyframe><key name="a" qpos="0.5" ctrl="1.5"/></keyframe>
</mujoco>"""

# Gymnasium's pusher and dm_control's ball_in_cup: bodies on slide joints alone ("sliders");
# near_origin's inertial frame is within 1e-6 of its body frame (MuJoCo's body_sameframe 1: a
# slider), off_origin's is not
SLIDERS = """<mujoco>
  <default><joint armature="0.04" damping="1" limited="true" range="-1 1"/></default>
  <worldbody>
    <body name="slider" pos="0 0 1">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 -1 0"/>
      <geom type="cylinder" size=".05 .05" density="0.00001"/>
    </body>
    <body name="offset" pos="1 0 1">
      <joint type="slide" axis="1 0 0"/>
      <geom type="sphere" size=".05" pos=".1 0 0" mass="1"/>
    </body>
    <body name="tilted" pos="2 0 1">
      <joint type="slide" axis="1 1 0"/>
      <geom type="sphere" size=".05" mass="1"/>
    </body>
    <body name="parent" pos="3 0 1">
      <joint type="slide" axis="0 0 1"/>
      <geom type="sphere" size=".05" mass="1"/>
      <body name="child" pos="0 0 .2">
        <joint type="slide" axis="0 0 1"/>
        <geom type="sphere" size=".05" mass="2"/>
      </body>
    </body>
    <body name="near_origin" pos="5 0 1">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 0 1"/>
      <inertial pos="1e-8 0 -5e-7" quat="1 1e-8 0 0" mass="2" diaginertia=".1 .2 .3"/>
    </body>
    <body name="off_origin" pos="6 0 1">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 0 1"/>
      <inertial pos="1e-5 0 0" mass="2" diaginertia=".1 .2 .3"/>
    </body>
    <body name="static" pos="4 0 1">
      <geom type="box" size=".1 .1 .1"/>
      <body name="on_static">
        <joint type="slide" axis="0 0 1"/>
        <geom type="box" size=".1 .2 .3" mass="3"/>
      </body>
    </body>
  </worldbody>
</mujoco>"""

# dm_control's dog: the default ("legacy") mass properties of a non-convex mesh
# an L-shaped prism
_L = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 3), (0, 3)]
_V = [(x, y, z) for z in (0, 1) for (x, y) in _L]
_F = []
for i in range(1, 5):  # bottom (fan from vertex 0, facing -z) and top (+z)
    _F.append((0, i + 1, i))
    _F.append((6, 6 + i, 6 + i + 1))
for i in range(6):  # sides
    j = (i + 1) % 6
    _F.append((i, j, 6 + j))
    _F.append((i, 6 + j, 6 + i))
LEGACY_MESH = """<mujoco>
  <asset>
    <mesh name="L" vertex="%s" face="%s"/>
    <mesh name="L_exact" inertia="exact" vertex="%s" face="%s"/>
  </asset>
  <worldbody>
    <body name="legacy" pos="0 0 1"><freejoint/><geom type="mesh" mesh="L" density="1100"/></body>
    <body name="exact" pos="5 0 1"><freejoint/><geom type="mesh" mesh="L_exact" density="1100"/></body>
  </worldbody>
</mujoco>""" % ((" ".join("%g %g %g" % v for v in _V), " ".join("%d %d %d" % f for f in _F)) * 2)

# dm_control's humanoid_CMU: the contact order (body pairs sorted by body id, geoms by id)
CONTACT_ORDER = """<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="b1" pos="0 0 .09"><freejoint/>
      <geom name="b1a" type="sphere" size=".1" pos=".3 0 0"/>
      <geom name="b1b" type="sphere" size=".1" pos="-.3 0 0"/>
    </body>
    <body name="b2" pos=".3 0 .27"><freejoint/><geom name="b2" type="box" size=".1 .1 .1"/></body>
    <body name="b3" pos="-.3 0 .28"><freejoint/><geom name="b3" type="capsule" size=".1 .2" euler="0 90 0"/></body>
    <body name="b4" pos="-.9 0 .09"><freejoint/><geom name="b4" type="sphere" size=".1"/></body>
  </worldbody>
</mujoco>"""

# MuJoCo's test model (mujoco/testdata/model.xml): a spatial tendon wrapping a welded free body;
# cfrc_ext (and the force/torque sensors) include every spatial tendon's force along its path
TENDON_EXT = """<mujoco>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="a" pos="0 0 1"><freejoint/><geom size=".05"/><site name="sa" pos=".05 0 0"/></body>
    <body name="b" pos="1 0 1"><freejoint/><geom size=".05"/><site name="sb" pos="-.05 0 0"/></body>
    <body name="c" pos=".5 0 1.02"><freejoint/>
      <geom name="cyl" type="cylinder" size=".05 .2" euler="90 0 0"/><site name="sc"/>
    </body>
    <body name="p" pos=".5 .5 1.5"><freejoint/><geom size=".05"/><site name="sp"/></body>
    <body name="q" pos="1 .5 1.2"><joint type="hinge" axis="0 1 0"/><geom size=".05"/><site name="sq" pos=".1 0 0"/></body>
  </worldbody>
  <equality><weld body1="c"/></equality>
  <tendon>
    <spatial name="wrap" stiffness="3" springlength=".5" damping=".5" limited="true" range="0 .8"
             frictionloss=".1"><site site="sa"/><geom geom="cyl"/><site site="sb"/></spatial>
    <spatial name="pulley" stiffness="2" springlength=".3"><site site="sp"/><site site="sa"/>
      <pulley divisor="2"/><site site="sp"/><site site="sq"/></spatial>
  </tendon>
  <actuator><motor tendon="wrap" gear="2"/><motor tendon="pulley" gear="1.5"/></actuator>
  <sensor>
    <force site="sc"/><torque site="sc"/><force site="sp"/><torque site="sa"/><force site="sq"/>
  </sensor>
</mujoco>"""

# Barkour vb's scene_hfield_mjx: a height field read from a PNG file (an RGB image). Small images
# of every PNG color type, made here; MuJoCo's grey level is the red channel, 16-bit samples
# keep their high byte, and the elevations are normalized to [0, 1] with the image's top row at
# the far (+y) edge.
PNG_HFIELD = """<mujoco>
  <asset>%s</asset>
  <worldbody>%s</worldbody>
</mujoco>"""


# Body frames from quaternions: MuJoCo's `mju_quat2Mat` sums the diagonal as two differences of
# squares, `(w² − y²) + (x² − z²)` and the like; other orders are 1 ulp off on most rotations,
# which moved a near-tie EPA pose of the polytope patches. Free bodies at random orientations
# (some with a ball-jointed child: the product of two quaternions; a geom turned in its body),
# compared bit for bit.
QUAT_BODIES = """<mujoco><worldbody>%s</worldbody></mujoco>""" % "".join(
    '<body pos="%d 0 0"><freejoint/><geom size=".1"/>%s</body>' % (
        k, '<body pos=".1 .2 .3" quat=".9 .1 -.3 .2"><joint type="ball"/><geom size=".1"/>'
        '<geom size=".1" pos=".2 -.1 .3" quat=".3 .5 -.2 .7"/></body>'
        if k % 3 == 0 else "") for k in range(24))


# models/humanoid.xml's lower arms (a capsule and a sphere on one axis) and the like: inertias
# with two equal principal moments. MuJoCo keeps the pair in the order its Jacobi iteration left
# it unless the second moment is larger by more than 1e-12 of the matrix' largest entry, so the
# principal frame (`body_iquat`) is the iteration's, not a 90-degree turn of it. And dm_control's
# acrobot, fish and swimmer: a body with one geom of nonzero mass (beside massless ones) takes
# that geom's frame and moments unsorted.
def degenerate_inertia_xml():
    rng = np.random.default_rng(5)
    bodies = []
    for k in range(6):
        d = rng.uniform(1, 2, 3) * 10 ** rng.uniform(-4, 1)
        d[(k + 1) % 3] = d[k % 3]
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        r = np.zeros(9)
        mujoco.mju_quat2Mat(r, q)
        r = r.reshape(3, 3)
        a = r @ np.diag(d) @ r.T
        full = (a[0, 0], a[1, 1], a[2, 2], a[0, 1], a[0, 2], a[1, 2])
        bodies.append('<body name="full%d" pos="%d 0 1"><freejoint/><inertial pos="0 0 0" '
                      'mass="1" fullinertia="%s"/></body>' % (k, k, " ".join(repr(float(x)) for x in full)))
    # a square prism mesh, tilted: two equal moments of the mesh inertia
    v = np.array([(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-2, 2)], float) * 0.1
    r = np.zeros(9)
    mujoco.mju_quat2Mat(r, np.array([0.9, 0.3, -0.2, 0.25]) / np.linalg.norm([0.9, 0.3, -0.2, 0.25]))
    v = v @ r.reshape(3, 3).T
    return """<mujoco>
  <asset><mesh name="prism" vertex="%s"/></asset>
  <worldbody>
    <body name="right_lower_arm" pos="0.18 -0.18 -0.18">
      <joint axis="0 -1 1"/>
      <geom type="capsule" fromto="0.01 0.01 0.01 0.17 0.17 0.17" size="0.031"/>
      <geom type="sphere" pos="0.18 0.18 0.18" size="0.04"/>
    </body>
    <body name="left_lower_arm" pos="0.18 0.18 -0.18">
      <joint axis="0 -1 -1"/>
      <geom type="capsule" fromto="0.01 -0.01 0.01 0.17 -0.17 0.17" size="0.031"/>
      <geom type="sphere" pos="0.18 -0.18 0.18" size="0.04"/>
    </body>
    <body name="prism" pos="0 2 1"><freejoint/><geom type="mesh" mesh="prism"/></body>
    <body name="one_massive" pos="0 3 1"><freejoint/>
      <geom type="box" size=".1 .2 .3" euler="10 20 30" mass="0"/>
      <geom type="box" size=".3 .2 .1" euler="10 20 30" pos=".1 .2 .3"/>
      <geom type="capsule" fromto="0 0 0 0 .3 .1" size=".05" mass="0"/>
    </body>
    %s
  </worldbody>
</mujoco>""" % (" ".join(repr(float(x)) for x in v.ravel()), "\n    ".join(bodies))


def large_polygon_xml():
    """Menagerie's Robotiq 2F-85: hull polygons of more than 64 corners (the finger meshes' flat
    faces; ALOHA's and Spot's reach 102 and 110) take part in the multi-contact patch. An 80-gon
    prism cap with a shallow bevel ring (2.9 degrees, inside the face tolerance) and one rim
    corner raised by 1e-8 (the cap stays one polygon); a box edge across the rim."""
    n, r, h, bevel, drop = 80, 0.1, 0.05, 0.02, 0.001
    a = 2 * np.pi * np.arange(n) / n
    top = [[r * np.cos(t), r * np.sin(t), h] for t in a]
    top[0][2] += 1e-8
    ring = [[(r + bevel) * np.cos(t), (r + bevel) * np.sin(t), h - drop] for t in a]
    bot = [[(r + bevel) * np.cos(t), (r + bevel) * np.sin(t), -h] for t in a]
    v = np.array(top + ring + bot)
    return """<mujoco><asset><mesh name="cap" vertex="%s"/></asset>
  <worldbody><geom name="cap" type="mesh" mesh="cap"/>
    <body name="box"><freejoint/><geom name="box" type="box" size="0.03 0.02 0.01"/></body>
  </worldbody>
</mujoco>""" % " ".join("%.17g" % x for x in v.ravel())


def large_polygon_pose(m, d, x0, yaw, pen):
    """The box turned onto an edge, yawed by `yaw`, at x = x0, its lowest corner `pen` into the
    cap."""
    q = np.zeros(4)
    parts = [([0, 0, 1], yaw), ([1, 0, 0], 0.0), ([0, 1, 0], np.pi / 4)]
    mujoco.mju_axisAngle2Quat(q, *parts[0])
    for ax, ang in parts[1:]:
        qa, t = np.zeros(4), np.zeros(4)
        mujoco.mju_axisAngle2Quat(qa, ax, ang)
        mujoco.mju_mulQuat(t, q, qa)
        q = t
    d.qpos[:] = [x0, 0, 0.3, *q]
    mujoco.mj_forward(m, d)
    mat, s = d.geom_xmat[1].reshape(3, 3), m.geom_size[1]
    zmin = min((d.geom_xpos[1] + mat @ (np.array([a, b, c]) * s))[2]
               for a in (-1, 1) for b in (-1, 1) for c in (-1, 1))
    d.qpos[2] -= zmin - 0.05 + pen
    mujoco.mj_forward(m, d)


# Menagerie's Spot: a foot sphere on the edge of a leg mesh; MuJoCo's contact is the exact
# point-edge distance less the radius (normal along centre - closest edge point) at every
# ccd_tolerance
SPHERE_EDGE = """<mujoco>
  <asset><mesh name="cube" vertex="-.1 -.1 -.1 .1 -.1 -.1 -.1 .1 -.1 .1 .1 -.1 -.1 -.1 .1 .1 -.1 .1 -.1 .1 .1 .1 .1 .1"/></asset>
  <worldbody>
    <geom name="cube" type="mesh" mesh="cube" euler="10 20 30"/>
    <body name="ball" pos="0.123950 0.076654 0.099684"><freejoint/>
      <geom name="ball" type="sphere" size=".036"/></body>
  </worldbody>
</mujoco>"""


# MuJoCo's testdata model: a cylinder's side line across a box face, clipped by the face's side
# planes, gives each cut twice (once from each end of the line); the two cuts' copies merge
# when three or four points pass the margin test, and both stay (two identical contacts) when
# only one cut's two copies do. Poses: (shift of the box along the contact normal, shift along
# the cylinder axis), at MuJoCo's testdata step-150 state of the pair
CYL_BOX = """<mujoco><option><flag gravity="disable"/></option>
  <worldbody>
    <body name="cyl"><freejoint/><geom name="cyl" type="cylinder" size="0.04 0.31622776601683794"/></body>
    <body name="box"><freejoint/><geom name="box" type="box" size=".05 .05 .05"/></body>
  </worldbody>
</mujoco>"""
CYL_BOX_POSE = (
    [-0.4913592071609846, 0.3994314437109082, 0.6953274285086499],
    [0.8752216750941706, -0.28025708999059995, -0.3942625812264605, -0.3604279197159982,
     0.1657599193696308, -0.9179408280601578, 0.32261235893026263, 0.9455049511454559,
     0.044064194363191755],
    [-0.5833146840680167, 0.4536303754165161, 0.709644644121084],
    [0.6779452055649031, 0.732347047379948, 0.06370322162520581, -0.3457789967142881,
     0.3941618859479194, -0.8515123563972729, -0.6487119419918354, 0.5552514834377735,
     0.5204503880845226],
)
# (normal shift, axis shift, MuJoCo's contacts: 2 identical or 2 distinct)
CYL_BOX_SHIFTS = ((0.0, 0.0, "same"), (-2e-3, 0.0, "distinct"), (2e-5, 0.0, "same"),
                  (0.0, 0.33, "same"), (-2e-3, 0.33, "distinct"), (-2e-3, -0.3, "distinct"))

# The side line's placement: MuJoCo 4.0.0 draws it through the cylinder's support point of its
# EPA's final face's first vertex, not along the normal (up to 4e-3 apart in `pos`). The pair of
# CYL_BOX at its step-150 pose, the box moved along the normal and the cylinder along its axis,
# both turned a little (seeded), at three `ccd_tolerance`; poses where GJK stops within the
# tolerance before enclosing the origin (MuJoCo's EPA from a smaller simplex, not modelled) or
# without two contacts are left out.
CYL_BOX_AIM_TOLS = (1e-5, 1e-6, 1e-8)


def cylinder_box_aim_cases(cp, quat, bp, normal, axis):
    cases = []
    for tol in CYL_BOX_AIM_TOLS:
        xml = CYL_BOX.replace("<option>", '<option ccd_tolerance="%r">' % tol)
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        rng = np.random.default_rng(37)
        poses = []
        for _ in range(12):
            q0 = quat[0] + rng.normal(size=4) * 1e-3
            q1 = quat[1] + rng.normal(size=4) * 1e-3
            shift = bp + rng.uniform(-3e-3, 2e-5) * normal
            d.qpos[:] = [*(cp + rng.uniform(-0.3, 0.3) * axis), *q0, *shift, *q1]
            mujoco.mj_forward(m, d)
            # shallower: GJK may stop within the tolerance of the origin, and MuJoCo's EPA
            # start from its smaller simplex (not modelled); skipped
            if d.ncon == 2 and np.abs(d.contact.dist[:2]).min() > 10 * tol:
                poses.append(posed_record(d))
        cases.append({"what": "cylinder-box tol %g" % tol, "xml": xml, "poses": poses})
    return cases


# MuJoCo 4.0.0's native convex search (GJK, then EPA) on pairs with a smooth shape, at
# several iteration budgets and tolerances: its contact is the iterate where the budget or the
# tolerance stops it, not the converged one. Pairs: dm_control's dog (rollout step 300) torso
# ellipsoid on a paw box and under a capsule, as posed there, and under another capsule at step
# 499; an ellipsoid against an ellipsoid and a cylinder (synthetic). Poses: as given, and geom 1
# moved by `SHIFT` (against it for the pairs of `SHIFT_BACK`). `native_ccd_margin`: the same
# pairs as given with a margin of 0.05 on both geoms (MuJoCo grows both shapes by half of it).
NATIVE_BODY = '<body pos="%s" quat="%s"><freejoint/><geom type="%s" size="%s"/></body>'
NATIVE_PAIRS = {
    "dog_ellipsoid_box": (
        ("0.2838176494126438 -0.1863796902640049 0.20635530576468963",
         "0.7755550172944681 -0.47867708023422934 -0.40274331398695556 0.08473777815481276",
         "ellipsoid", "0.2 0.09 0.11"),
        ("0.38683451123396384 -0.056925760763132036 0.19839830919145604",
         "0.22836623710595758 -0.2071276434633548 0.950743614179184 -0.03214935708353729",
         "box", "0.03 0.028 0.008")),
    "dog_capsule_ellipsoid": (
        ("0.4310939367655471 -0.08511861660159482 0.2737352987048883",
         "-0.03585772694156265 0.10975344076010753 -0.5466163750536308 0.8293846780494135",
         "capsule", "0.008 0.01"),
        ("0.2838176494126438 -0.1863796902640049 0.20635530576468963",
         "0.7755550172944681 -0.47867708023422934 -0.40274331398695556 0.08473777815481276",
         "ellipsoid", "0.2 0.09 0.11")),
    # rollout step 499: the capsule's axis apart from the ellipsoid, GJK's simplex flat to
    # round-off from iteration 24 on (the subalgorithm decides the iterate)
    "dog_capsule_ellipsoid_499": (
        ("0.21712240761561027 -0.054017373772358546 0.1649154863687652",
         "0.5841242614099259 -0.7173143645192644 0.3111934317025812 0.21775582139589816",
         "capsule", "0.04 0.08"),
        ("0.4262310005920549 -0.06240132409370316 0.22953631377393102",
         "0.12891584767342243 0.9385734198768338 0.12425447430745457 0.2949940089797165",
         "ellipsoid", "0.2 0.09 0.11")),
    "ellipsoid_ellipsoid": (
        ("0 0 0", "0.9 0.2 -0.3 0.1", "ellipsoid", "0.1 0.06 0.04"),
        ("0.07 0.03 0.02", "0.7 -0.1 0.5 0.3", "ellipsoid", "0.05 0.08 0.03")),
    "cylinder_ellipsoid": (
        ("0 0 0", "0.8 0.3 0.2 -0.4", "cylinder", "0.05 0.1"),
        ("0.06 0.03 0.05", "0.6 0.1 -0.5 0.2", "ellipsoid", "0.06 0.04 0.05")),
}
# (ccd_iterations, ccd_tolerance)
NATIVE_OPTIONS = ((9, 1e-6), (12, 1e-6), (35, 1e-6), (35, 1e-4), (20, 1e-5))
SHIFT = (0.001, -0.0007, 0.0004)
# pairs that `SHIFT` would part: geom 1 moved the other way
SHIFT_BACK = {"dog_capsule_ellipsoid_499"}


def native_xml(pair, iters, tol, margin=0.0):
    body = NATIVE_BODY.replace('"/></body>', '" margin="%r"/></body>' % margin) if margin else NATIVE_BODY
    bodies = "".join(body % b for b in NATIVE_PAIRS[pair])
    return ('<mujoco><option gravity="0 0 0" ccd_iterations="%d" ccd_tolerance="%r"/>'
            "<worldbody>%s</worldbody></mujoco>" % (iters, tol, bodies))


def native_margin_cases():
    """The pairs of NATIVE_PAIRS with a margin of 0.05 on both geoms, as posed there."""
    cases = []
    for pair in NATIVE_PAIRS:
        for iters, tol in NATIVE_OPTIONS:
            xml = native_xml(pair, iters, tol, 0.05)
            m = mujoco.MjModel.from_xml_string(xml)
            d = mujoco.MjData(m)
            d.qpos[:] = m.qpos0
            mujoco.mj_forward(m, d)
            cases.append({"pair": pair, "xml": xml, "poses": [posed_record(d)]})
    return cases


# Box and mesh pairs with a contact margin: MuJoCo 4.0.0 grows both polytopes by half the margin
# and takes its contact from EPA on the grown shapes (stopped at ccd_tolerance, no repeated-vertex
# stop), the multi-contact patch from that face's vertex indices. An irregular 7-vertex hull, a
# cube mesh and a box, at random orientations, overlapping or apart within the margin, with
# margins 0.01 and 0.04, ccd_tolerance 1e-6 and 1e-10, the patches on and off.
MARGIN_POLY = ("0.1 0 0  -0.07 0.08 0.01  -0.06 -0.09 0.02  0.01 0 0.12  0 0.01 -0.1  "
               "0.05 0.06 0.05  -0.03 -0.02 -0.08")
MARGIN_CUBE = " ".join("%g %g %g" % (x, y, z) for x in (-.08, .08) for y in (-.08, .08)
                       for z in (-.08, .08))
MARGIN_GEOMS = {"box": 'type="box" size="0.09 0.07 0.05"', "poly": 'type="mesh" mesh="poly"',
                "cube": 'type="mesh" mesh="cube"'}
MARGIN_PAIRS = (("box", "poly"), ("poly", "cube"), ("cube", "cube"), ("box", "cube"))
MARGIN_XML = """<mujoco><option gravity="0 0 0" ccd_tolerance="%r">%s</option>
  <asset><mesh name="poly" vertex="%s"/><mesh name="cube" vertex="%s"/></asset>
  <worldbody><body><freejoint/><geom %s/></body>
    <body><freejoint/><geom %s margin="%r"/></body></worldbody>
</mujoco>"""


def polytope_margin_cases():
    rng = np.random.default_rng(31)
    cases = []
    for a, b in MARGIN_PAIRS:
        for margin in (0.01, 0.04):
            for tol in (1e-6, 1e-10):
                for flag in ("", '<flag multiccd="disable"/>'):
                    xml = MARGIN_XML % (tol, flag, MARGIN_POLY, MARGIN_CUBE, MARGIN_GEOMS[a],
                                        MARGIN_GEOMS[b], margin)
                    m = mujoco.MjModel.from_xml_string(xml)
                    d = mujoco.MjData(m)
                    poses = []
                    while len(poses) < 3:
                        q = rng.normal(size=(2, 4))
                        q /= np.linalg.norm(q, axis=1)[:, None]
                        u = rng.normal(size=3)
                        u /= np.linalg.norm(u)
                        # along u until the pair is apart, then back to a distance in the margin
                        want = rng.uniform(-0.02, margin)
                        lo, hi = 0.0, 0.5
                        for _ in range(60):
                            mid = 0.5 * (lo + hi)
                            d.qpos[:] = [0, 0, 0, *q[0], *(mid * u), *q[1]]
                            mujoco.mj_forward(m, d)
                            dist = d.contact.dist[0] if d.ncon else np.inf
                            lo, hi = (mid, hi) if dist < want else (lo, mid)
                        if d.ncon:
                            poses.append(posed_record(d))
                    cases.append({"pair": "%s-%s margin %g tol %g%s" % (
                        a, b, margin, tol, " nomulti" if flag else ""), "xml": xml, "poses": poses})
    return cases


# Barkour vb's height-field scene: its foot spheres on the height field's prisms go through
# MuJoCo 4.0.0's native search too, the sphere as its centre with the radius added while the
# centre is outside the prism (exact at every tolerance), the whole sphere's EPA (stopped at
# ccd_tolerance or ccd_iterations) when it is inside; capsules (their axis) and ellipsoids the
# same way. A 4x4 height field, each shape at four positions (the last one with the core inside
# a prism), at the (ccd_iterations, ccd_tolerance) of NATIVE_HFIELD_OPTIONS.
NATIVE_HFIELD = """<mujoco><option gravity="0 0 0" ccd_iterations="%d" ccd_tolerance="%r"/>
  <asset><hfield name="hf" nrow="4" ncol="4" size="0.15 0.15 0.04 0.05" elevation="%s"/></asset>
  <worldbody><geom type="hfield" hfield="hf"/>
    <body pos="%s"><freejoint/><geom type="%s" size="%s" euler="20 30 40"/></body>
  </worldbody>
</mujoco>"""
NATIVE_HFIELD_SHAPES = (("sphere", "0.0175"), ("capsule", "0.015 0.03"),
                        ("ellipsoid", "0.03 0.02 0.015"))
NATIVE_HFIELD_POS = ("0.02 0.03 0.03", "-0.04 0.01 0.02", "0.05 -0.06 0.025", "0.03 -0.02 0.0")
NATIVE_HFIELD_OPTIONS = ((35, 1e-6), (6, 1e-6), (12, 1e-6), (35, 1e-4))
# `native_hfield_margin`: the same shapes with a margin of 0.01 (MuJoCo grows the prism and the
# geom by half the margin). Not there: a box or a cylinder within the margin, whose distance
# MuJoCo does not take from the grown shapes' GJK (box: dist 1.43e-3 where it gives 7.0e-5;
# cylinder at ccd_tolerance 1e-4: 1.03e-4 against 4.7e-5, as EPA on the grown shapes would)
MARGIN_HFIELD_SHAPES = []


def native_hfield_cases(margin=0.0):
    elev = " ".join("%.3f" % x for x in np.random.default_rng(3).uniform(0, 1, 16))
    cases = []
    shapes = NATIVE_HFIELD_SHAPES
    if margin:
        shapes = [(t, '%s" margin="%r' % (z, margin)) for t, z in list(shapes) + MARGIN_HFIELD_SHAPES]
    for typ, size in shapes:
        for iters, tol in NATIVE_HFIELD_OPTIONS:
            for pos in NATIVE_HFIELD_POS:
                xml = NATIVE_HFIELD % (iters, tol, elev, pos, typ, size)
                m = mujoco.MjModel.from_xml_string(xml)
                d = mujoco.MjData(m)
                mujoco.mj_forward(m, d)
                assert d.ncon >= 1, (typ, pos, iters, tol)
                cases.append({"pair": "hfield-" + typ, "xml": xml, "poses": [posed_record(d)]})
    return cases



# Boxes, meshes and cylinders on a height field with a contact margin: each at the x, y of
# NATIVE_HFIELD_POS, lowered (bisection on z) until MuJoCo's deepest contact reaches a random
# distance between 0.012 deep and the margin, at margins 0.01 and 0.004 and ccd_tolerance 1e-6
# and 1e-10.
HFIELD_MARGIN = """<mujoco><option gravity="0 0 0" ccd_tolerance="%r"/>
  <asset><hfield name="hf" nrow="4" ncol="4" size="0.15 0.15 0.04 0.05" elevation="%s"/>
    <mesh name="poly" vertex="%s" scale="0.3 0.3 0.3"/></asset>
  <worldbody><geom type="hfield" hfield="hf"/>
    <body><freejoint/><geom %s euler="20 30 40" margin="%r"/></body>
  </worldbody>
</mujoco>"""
HFIELD_MARGIN_GEOMS = {"box": 'type="box" size="0.03 0.02 0.015"',
                       "mesh": 'type="mesh" mesh="poly"',
                       "cylinder": 'type="cylinder" size="0.02 0.015"'}


def hfield_polytope_margin_cases():
    elev = " ".join("%.3f" % x for x in np.random.default_rng(3).uniform(0, 1, 16))
    rng = np.random.default_rng(37)
    cases = []
    for typ, geom in HFIELD_MARGIN_GEOMS.items():
        for margin in (0.01, 0.004):
            for tol in (1e-6, 1e-10):
                xml = HFIELD_MARGIN % (tol, elev, MARGIN_POLY, geom, margin)
                m = mujoco.MjModel.from_xml_string(xml)
                d = mujoco.MjData(m)
                poses = []
                for pos in NATIVE_HFIELD_POS:
                    x, y = (float(v) for v in pos.split()[:2])
                    want = rng.uniform(-0.012, margin)
                    lo, hi = -0.05, 0.2
                    for _ in range(60):
                        mid = 0.5 * (lo + hi)
                        d.qpos[:] = [x, y, mid, 1, 0, 0, 0]
                        mujoco.mj_forward(m, d)
                        dist = d.contact.dist[: d.ncon].min() if d.ncon else np.inf
                        lo, hi = (mid, hi) if dist < want else (lo, mid)
                    d.qpos[:] = [x, y, lo, 1, 0, 0, 0]
                    mujoco.mj_forward(m, d)
                    if d.ncon:
                        poses.append(posed_record(d))
                cases.append({"pair": "hfield-%s margin %g tol %g" % (typ, margin, tol),
                              "xml": xml, "poses": poses})
    return cases

# Menagerie's Robotiq 2F-85 (rollout step 150 of tests/reference/zoo): the object box's corner
# on the finger mesh's 76-corner flat hull polygon. MuJoCo 4.0.0's native search on two
# polytopes (no margin) runs GJK, then EPA to its repeated-vertex stop, and finds a mesh's
# support point by steepest ascent on the hull graph from the previous support vertex; on a
# polygon flat to float32 round-off that ascent stops at another vertex than a scan of all
# vertices (here 1.3e-10 deeper, the normal 2e-8 off). The finger's hull vertices inline (in
# the finger's frame, from the zoo cache), the box posed as at that state.
def zoo_model(name):
    """A zoo model from the cache with its models.txt `opt.*` settings, and its reference."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fetch import cache_dir
    for line in open(os.path.join(ROOT, "tools", "zoo", "models.txt")):
        parts = line.split("#", 1)[0].split()
        if parts and parts[0] == name:
            m = mujoco.MjModel.from_xml_path(os.path.join(cache_dir(), parts[1]))
            for opt in parts[2:]:
                if opt.startswith("opt."):
                    key, value = opt[4:].split("=")
                    setattr(m.opt, key, float(value))
    ref = json.load(open(os.path.join(ROOT, "tests", "reference", "zoo", name + ".json")))
    return m, ref


def dec(v):
    """An array of a zoo reference file (dense or sparse, see tools/zoo/generate.py)."""
    import base64
    vals = np.frombuffer(base64.b64decode(v["f64"]), "<f8")
    if "idx" in v:
        out = np.zeros(int(np.prod(v["shape"])))
        out[np.frombuffer(base64.b64decode(v["idx"]), "<u4")] = vals
        return out.reshape(v["shape"])
    return vals.reshape(v["shape"]) if "shape" in v else vals


def hull(m, g):
    """Geom g's mesh hull vertices (in the geom frame, MuJoCo's vertex order)."""
    mid = m.geom_dataid[g]
    vert = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
    graph = m.mesh_graph[m.mesh_graphadr[mid]:]
    return vert[np.sort(graph[2 + graph[0]:2 + 2 * graph[0]])]


def polytope_hull_xml():
    name = "menagerie/robotiq_2f85_v4/scene"
    m, ref = zoo_model(name)
    state = [st for st in ref["states"] if st["label"] == "rollout step 150"][0]
    d = mujoco.MjData(m)
    d.qpos[:] = dec(state["qpos"])
    mujoco.mj_forward(m, d)
    finger, box = 14, 29
    hull_vert = hull(m, finger)
    fm, fp = d.geom_xmat[finger].reshape(3, 3), d.geom_xpos[finger]
    bm, bp = d.geom_xmat[box].reshape(3, 3), d.geom_xpos[box]
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, (fm.T @ bm).ravel())
    return """<mujoco><option gravity="0 0 0"/>
  <asset><mesh name="finger" vertex="%s"/></asset>
  <worldbody><geom name="finger" type="mesh" mesh="finger"/>
    <body name="box" pos="%s" quat="%s"><freejoint/><geom name="box" type="box" size="%s"/></body>
  </worldbody>
</mujoco>""" % (" ".join("%.9g" % x for x in hull_vert.ravel()),
                " ".join(repr(float(x)) for x in fm.T @ (bp - fp)),
                " ".join(repr(float(x)) for x in quat),
                " ".join(repr(float(x)) for x in m.geom_size[box]))


# Menagerie's Spot-arm and ALOHA: the multi-contact patch of two hull meshes from the features
# of MuJoCo's last EPA face. Both hulls inline (geom 0 in the world, geom 1 on a free body posed
# as at a step of the model's reference rollout), and that pose turned and moved a little
# (perturbation k of a seeded sequence: 5e-4 per coordinate, a rotation vector of 0.02 per
# component); the poses kept are those where the rule this replaced differs from MuJoCo 4.0.0.
# (name, rollout step, geom 0, geom 1, seed, perturbations kept (0: the step's pose), what)
POLYTOPE_PATCHES = (
    # two edges: geom 1's edge clipped by a face of geom 0's edge that is 0.99593 along the
    # normal (the replaced rule took only faces within 0.996 of it)
    ("menagerie/boston_dynamics_spot/scene_arm", 104, 43, 59, 0, (10, 20), "edge on face"),
    # a face and a vertex: the vertex's face most anti-parallel to it, not the first one
    # within 0.996
    ("menagerie/boston_dynamics_spot/scene_arm", 108, 43, 50, 2, (0, 21), "vertex faces"),
    # two edges: each edge's first two faces, the most anti-parallel pair of them
    ("menagerie/boston_dynamics_spot/scene_arm", 109, 43, 50, 3, (1, 2), "edge faces"),
    # two edges: two faces of geom 0's edge anti-parallel to geom 1's triangle within 0.996,
    # the closer one clips
    ("menagerie/aloha/scene", 91, 31, 91, 4, (0, 1, 8), "anti-parallel faces"),
)
PATCH_SHIFT, PATCH_TURN = 5e-4, 0.02


def polytope_patch_case(name, step, g0, g1, seed=0, keep=(0,)):
    """The two hulls posed as at `step` of the model's reference rollout (under its controls)
    and perturbed (`POLYTOPE_PATCHES`): the XML and MuJoCo's record of each kept pose."""
    m, ref = zoo_model(name)
    d = mujoco.MjData(m)
    ro = ref["rollout"]
    d.qpos[:] = dec(ro["qpos0"])
    d.qvel[:] = dec(ro["qvel0"])
    ctrl = dec(ro["ctrl"]).reshape(-1, m.nu)
    for k in range(step):
        d.ctrl[:] = ctrl[k // 100]
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    r0, p0 = d.geom_xmat[g0].reshape(3, 3), d.geom_xpos[g0]
    r1, p1 = d.geom_xmat[g1].reshape(3, 3), d.geom_xpos[g1]
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, (r0.T @ r1).ravel())
    xml = """<mujoco><option ccd_tolerance="%r" ccd_iterations="%d"><flag gravity="disable"/></option>
  <asset><mesh name="a" vertex="%s"/><mesh name="b" vertex="%s"/></asset>
  <worldbody><geom name="a" type="mesh" mesh="a"/>
    <body name="b"><freejoint/><geom name="b" type="mesh" mesh="b"/></body>
  </worldbody>
</mujoco>""" % (m.opt.ccd_tolerance, m.opt.ccd_iterations,
                " ".join("%.9g" % x for x in hull(m, g0).ravel()),
                " ".join("%.9g" % x for x in hull(m, g1).ravel()))
    mp = mujoco.MjModel.from_xml_string(xml)
    dp = mujoco.MjData(mp)
    q0 = np.array([*(r0.T @ (p1 - p0)), *quat])
    rng = np.random.default_rng(seed)
    poses = []
    for k in range(max(keep) + 1):
        dp.qpos[:] = q0
        if k:
            dp.qpos[:3] += PATCH_SHIFT * rng.standard_normal(3)
            mujoco.mju_quatIntegrate(dp.qpos[3:7], PATCH_TURN * rng.standard_normal(3), 1.0)
        if k in keep:
            mujoco.mj_forward(mp, dp)
            assert dp.ncon > 1, (name, step, k, dp.ncon)
            poses.append(posed_record(dp))
    return xml, poses


# Menagerie's Spot (step 90): a mesh edge nearly parallel to the other mesh's face. MuJoCo 4.0.0
# clips the edge by the face when |edge . face normal| < 0.0888 (bisected: the sine of ~5.0946
# degrees, not sqrt(1 - 0.996^2) = 0.08935, the face-face cosine's complement); a mesh cube's
# lowest edge tilted by asin(s) over a mesh slab, fully inside it, and a lowest face tilted
# about the face-face threshold (cosine 0.996)
TILT_CUBE = " ".join("%g %g %g" % (x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1))
EDGE_TILT = """<mujoco><option><flag gravity="disable"/></option>
  <asset><mesh name="slab" vertex="%s" scale="1 1 .1"/><mesh name="cube" vertex="%s" scale=".1 .1 .1"/></asset>
  <worldbody><geom name="slab" type="mesh" mesh="slab" pos="0 0 -.1"/>
    <body><freejoint/><geom name="cube" type="mesh" mesh="cube"/></body>
  </worldbody>
</mujoco>""" % (TILT_CUBE, TILT_CUBE)
# (edge or face down, sine of the tilt, MuJoCo's contact count)
EDGE_TILT_POSES = (("edge", 0.0880, 2), ("edge", 0.0887, 2), ("edge", 0.0889, 1),
                   ("edge", 0.0893, 1), ("face", 0.0890, 4), ("face", 0.0897, 2))


def edge_tilt_pose(m, d, mode, s):
    """The cube's lowest edge (along x) or face turned by asin(s) about y, 2e-3 deeper than its
    highest lowest-feature corner."""
    phi = np.arcsin(s)
    q1, q2, q = np.zeros(4), np.zeros(4), np.zeros(4)
    mujoco.mju_axisAngle2Quat(q1, [1, 0, 0], np.pi / 4 if mode == "edge" else 0.0)
    mujoco.mju_axisAngle2Quat(q2, [0, 1, 0], phi)
    mujoco.mju_mulQuat(q, q2, q1)
    d.qpos[:] = [0.05, 0.03, 0.5, *q]
    mujoco.mj_forward(m, d)
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * 0.1
    zmin = (d.geom_xpos[1] + corners @ d.geom_xmat[1].reshape(3, 3).T)[:, 2].min()
    d.qpos[2] -= zmin + 0.2 * s * 1.42 + 2e-3
    mujoco.mj_forward(m, d)


# dm_control's dog: a geom, site or inertial frame within 1e-6 of its body's frame or of the
# body's inertial frame (every coordinate and quaternion component) takes that frame as it is
# (`*_sameframe`): the dog's capsule collision geoms sit up to 3e-7 off their bodies' inertial
# frames, which moved its capsule contacts by 1e-7. One element of each kind, near each bound.
SAMEFRAME = """<mujoco><worldbody>
  <body pos="0.3 0.1 0.2" euler="10 20 30"><freejoint/>
    <inertial pos="0.01 0.02 0.03" quat="0.9 0.1 0.2 0.3" mass="1" diaginertia="0.1 0.2 0.3"/>
    <geom name="body" type="box" size=".1 .2 .3" pos="5e-7 0 -9e-7" quat="1 5e-7 0 0"/>
    <geom name="inertia" type="box" size=".1 .2 .3" pos="0.0100009 0.02 0.03" quat="-0.9 -0.1 -0.2 -0.3000003"/>
    <geom name="bodyrot" type="box" size=".1 .2 .3" pos="1.1e-6 0.02 0.03"/>
    <geom name="inertiarot" type="box" size=".1 .2 .3" pos="0.5 0.02 0.03" quat="0.9 0.1 0.2 0.3000001"/>
    <geom name="none" type="box" size=".1 .2 .3" pos="0.5 0.02 0.03" quat="0.8 0.1 0.2 0.3"/>
    <geom name="flipped" type="box" size=".1 .2 .3" quat="-1 5e-7 0 0"/>
    <site name="body" pos="5e-7 0 0"/>
    <site name="inertia" pos="0.01 0.02 0.03" quat="0.9 0.1 0.2 0.3"/>
    <site name="inertiarot" pos="0.1 0.2 0.3" quat="0.9 0.1 0.2 0.3"/>
  </body>
  <body pos="1 0 0"><freejoint/><inertial pos="5e-7 0 0" mass="1" diaginertia="0.1 0.2 0.3"/></body>
  <body pos="2 0 0"><freejoint/><inertial pos="0.1 0 0" mass="1" diaginertia="0.1 0.2 0.3"/></body>
  <body pos="3 0 0"><freejoint/><inertial pos="0.1 0 0" quat="1 0 0 5e-7" mass="1" diaginertia="0.1 0.2 0.3"/></body>
  <body pos="4 0 0"><freejoint/><inertial pos="1e-6 0 0" quat="1 0 0 1e-5" mass="1" diaginertia="0.1 0.2 0.3"/></body>
</worldbody></mujoco>"""


# MuJoCo's test model at keyframe 0: a cylinder on a height-field prism whose EPA (35
# iterations) ends on another face when the cylinder's orientation moves by one ulp; moreau's
# `xmat` was the product of nalgebra's quaternion matrix, one ulp off MuJoCo's `mju_quat2Mat` on
# diagonals, and a geom's the product of two matrices, not the matrix of the composed quaternion.
# A chain of every joint kind with offset anchors, and geoms, sites, cameras and an inertial
# frame turned off their bodies: the kinematics must be MuJoCo's bit for bit.
KINEMATICS = """<mujoco><worldbody>
  <body pos="0.1 0.2 0.3" quat="0.9 0.1 -0.3 0.2">
    <joint type="hinge" axis="0.3 0.5 0.8" pos="0.05 -0.02 0.1"/>
    <joint type="slide" axis="0.2 -0.6 0.7" pos="0.01 0.02 0.03"/>
    <inertial pos="0.01 0.02 0.03" quat="0.8 0.2 0.3 0.1" mass="1" diaginertia="0.1 0.2 0.3"/>
    <geom type="box" size=".1 .2 .3" pos="0.2 0.1 -0.1" quat="0.7 0.1 0.6 0.2"/>
    <site pos="0.1 0.1 0.1" quat="0.3 0.9 0.1 0.2"/>
    <camera pos="0.1 0 0.2" quat="0.6 0.2 0.7 0.1"/>
    <body pos="0.3 -0.1 0.2" quat="0.5 0.5 0.1 0.7">
      <joint type="ball" pos="0.02 0.03 -0.04"/>
      <geom type="capsule" size="0.05 0.1" pos="0.1 0 0" quat="0.9 0 0.4 0.1"/>
      <body pos="0.1 0.2 0.3">
        <joint type="hinge" axis="1 0 0" pos="0.1 0 0"/>
        <joint type="hinge" axis="0 1 1" pos="0 0.1 0"/>
        <geom type="cylinder" size="0.05 0.1" euler="10 20 30"/>
        <site pos="0.01 0.02 0.03" euler="30 -20 10"/>
      </body>
    </body>
  </body>
  <body pos="1 0 0"><freejoint/>
    <geom type="box" size=".1 .1 .1" quat="0.7 0.7 0.1 0"/>
    <camera pos="0.1 0.2 0.3" euler="5 6 7"/>
  </body>
</worldbody></mujoco>"""
KINEMATICS_FIELDS = ("xpos", "xquat", "xmat", "xanchor", "xaxis", "xipos", "ximat", "geom_xpos",
                     "geom_xmat", "site_xpos", "site_xmat", "cam_xpos", "cam_xmat")


# `mj_integratePos` on ball and free joints (`mju_quatIntegrate`): the quaternion normalized,
# then turned by the axis `v/|v|` (reciprocal) through the angle `h|v|`; moreau's `exp(h v)` as a
# whole differed in the last bit on 22% of random inputs. Random unnormalized quaternions,
# velocities and steps (1e-6, as MuJoCo's FD perturbations, to 1): to the bit.
INTEGRATE = """<mujoco><worldbody>
  <body><joint type="ball"/><geom size=".1"/></body>
  <body pos="1 0 0"><freejoint/><geom size=".1"/></body>
  <body pos="2 0 0"><joint type="hinge"/><geom size=".1"/></body>
</worldbody></mujoco>"""


def integrate_cases():
    m = mujoco.MjModel.from_xml_string(INTEGRATE)
    rng = np.random.default_rng(41)
    cases = []
    for k in range(24):
        h = (1e-6, 1e-3, 0.01, 1.0)[k % 4]
        qpos = rng.normal(size=m.nq)
        qvel = rng.normal(size=m.nv)
        out = qpos.copy()
        mujoco.mj_integratePos(m, out, qvel, h)
        cases.append({"qpos": qpos.tolist(), "qvel": qvel.tolist(), "h": h, "out": out.tolist()})
    return {"xml": INTEGRATE, "cases": cases}


def kinematics_states():
    m = mujoco.MjModel.from_xml_string(KINEMATICS)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(31)
    states = []
    for _ in range(8):
        d.qpos[:] = rng.normal(size=m.nq)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_camlight(m, d)
        rec = {"qpos": d.qpos.tolist()}
        for f in KINEMATICS_FIELDS:
            rec[f] = getattr(d, f).tolist()
        states.append(rec)
    return {"xml": KINEMATICS, "states": states}


# myosuite's myoarm_reach: `<general gainprm="0.75 1.05 337.3">` over a class giving all nine
# muscle parameters; MuJoCo overwrites the leading entries only (also gear, damping, dynprm,
# biasprm), the rest keep the class's values
ACTUATOR_PARTIAL = """<mujoco>
  <default>
    <default class="c">
      <general gear="1 2 3 4 5 6" damping="0.1 0.2 0.3" dynprm="0.3 0.4 0.5"
               gainprm="5 6 7 8 9" biasprm="1 2 3 4" gaintype="affine" biastype="affine"/>
    </default>
    <default class="muscle">
      <general dyntype="muscle" gaintype="muscle" biastype="muscle" dynprm="0.01 0.04"
               gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"
               biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/>
    </default>
  </default>
  <worldbody>
    <site name="s0"/>
    <body><joint name="j" axis="0 1 0"/><geom size=".1" pos=".2 0 0"/>
      <body pos="0 0 -.3"><joint name="k" type="slide" axis="0 0 1" damping="1"/>
        <geom size=".05"/><site name="s1"/></body></body>
  </worldbody>
  <tendon><spatial name="t"><site site="s0"/><site site="s1"/></spatial></tendon>
  <actuator>
    <general class="c" joint="j" gear="7" damping="0.9" gainprm="1 2" biasprm="7" dynprm="0.9"/>
    <general joint="j" gear="7 8" gainprm="3 4"/>
    <general class="c" joint="j"/>
    <general class="muscle" tendon="t" lengthrange="0.25 0.35" gainprm="0.75 1.05 30"
             biasprm="0.75 1.05 30"/>
  </actuator>
</mujoco>"""


def obj_prism(cap, h, noise, rng, off, upright):
    """An OBJ prism of the 2D polygon `cap` (counter-clockwise) of height h, its two caps single
    faces with corners jittered out of plane by up to `noise`, moved by `off`; extruded along z
    (upright) or along y."""
    n = len(cap)
    lines = []
    for z in (0.0, h):
        for (x, y) in cap:
            p = [x, y, z + rng.uniform(-noise, noise)]
            if not upright:
                p = [p[0], p[2], -p[1]]
            lines.append("v %.6f %.6f %.6f" % tuple(p[k] + off[k] for k in range(3)))
    lines.append("f " + " ".join(str(n - k) for k in range(n)))
    lines.append("f " + " ".join(str(n + 1 + k) for k in range(n)))
    for k in range(n):
        a, b = k + 1, (k + 1) % n + 1
        lines.append("f %d %d %d %d" % (a, b, b + n, a + n))
    return "\n".join(lines) + "\n"


def obj_polygons_case():
    """myosuite's table-tennis net: OBJ faces of five or more corners, not planar. MuJoCo's
    reader clips ears (not a fan from the first corner); three prisms with 7-, 6- and 5-gon caps
    (a concave star), off the origin, one lying on its side."""
    rng = np.random.default_rng(19)
    t7 = np.linspace(0, 2 * np.pi, 7, endpoint=False)
    star = [(np.cos(t) * r, np.sin(t) * r) for t, r in zip(t7, (1, .45, 1, .5, .9, .4, 1))]
    t6 = np.linspace(0, 2 * np.pi, 6, endpoint=False)
    hexa = [(np.cos(t) * .8, np.sin(t) * .6) for t in t6]
    pent = [(0, 0), (1, 0), (1.2, .7), (.5, 1.1), (-.2, .6)]
    files = {"star.obj": obj_prism(star, .3, 2e-3, rng, (2.5, -1.0, .4), True),
             "hexa.obj": obj_prism(hexa, .5, 1e-3, rng, (-.3, 1.7, .2), False),
             "pent.obj": obj_prism(pent, .2, 3e-3, rng, (-3.1, -2.2, -.7), True)}
    xml = "<mujoco><asset>%s</asset><worldbody>%s</worldbody></mujoco>" % (
        "".join('<mesh name="%s" file="%s"/>' % (f[:-4], f) for f in files),
        "".join('<body pos="%d 0 1"><freejoint/><geom type="mesh" mesh="%s"/></body>'
                % (3 * i, f[:-4]) for i, f in enumerate(files)))
    m = mujoco.MjModel.from_xml_string(xml, assets={k: v.encode() for k, v in files.items()})
    faces = [m.mesh_face[m.mesh_faceadr[i]:m.mesh_faceadr[i] + m.mesh_facenum[i]].tolist()
             for i in range(m.nmesh)]
    fans = 0
    for i, f in enumerate(files):
        polys = [[int(t) - 1 for t in line.split()[1:]] for line in files[f].splitlines()
                 if line.startswith("f ")]
        fan = [[p[0], p[j], p[j + 1]] for p in polys[:2] for j in range(1, len(p) - 1)]
        fans += fan != faces[i][:len(fan)]
    assert fans == 3, fans  # every mesh has a cap that is not a fan
    return {"xml": xml, "files": files, "mesh_face": faces,
            "body_mass": m.body_mass.tolist(), "body_inertia": m.body_inertia.tolist(),
            "body_ipos": m.body_ipos.tolist(), "geom_pos": m.geom_pos.tolist()}


def plane_mesh_hull_xml():
    """myosuite's object meshes (myohand_object_cubelarge, ...): a hull face flat on the plane
    with mesh vertices inside it. Four free box hulls, each with `n` extra vertices inside its
    bottom face listed before the corners: 9 vertices (MuJoCo scans every vertex, the first tied
    one is inside the face: one contact), 10, 24 and 208 (MuJoCo takes a hull vertex: the
    face's four corners)."""
    rng = np.random.default_rng(19)
    corners = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    assets, bodies = [], []
    for k, n in enumerate((1, 2, 16, 200)):
        extra = [(a, b, -1.0) for a, b in rng.uniform(-0.8, 0.8, (n, 2))]
        verts = " ".join("%.6g %.6g %.6g" % v for v in extra + corners)
        assets.append('<mesh name="m%d" vertex="%s" scale=".05 .05 .05"/>' % (k, verts))
        bodies.append('<body pos="%g 0 .04"><freejoint/><geom type="mesh" mesh="m%d"/></body>'
                      % (0.3 * k, k))
    return """<mujoco>
  <asset>%s</asset>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    %s
  </worldbody>
</mujoco>""" % ("\n    ".join(assets), "\n    ".join(bodies))


def plane_mesh_hull_cases():
    """The model above at qpos0 (flat, exact ties), yawed, and tilted by 1e-3 about x and y."""
    xml = plane_mesh_hull_xml()
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    assert list(m.mesh_vertnum) == [9, 10, 24, 208], m.mesh_vertnum
    poses = []
    for yaw, tilt in ((0, (0, 0)), (0.7, (0, 0)), (2.1, (0, 0)), (0.3, (1e-3, 0)),
                      (0.3, (0, -1e-3)), (1.2, (1e-3, 1e-3))):
        d.qpos[:] = m.qpos0
        q = np.zeros(4)
        mujoco.mju_euler2Quat(q, [tilt[0], tilt[1], yaw], "xyz")
        for b in range(m.nbody - 1):
            d.qpos[7 * b + 3:7 * b + 7] = q
        mujoco.mj_forward(m, d)
        poses.append(posed_record(d))
    counts = [p["ncon"] for p in poses]
    assert counts[0] == 13, counts  # 1 + 3 x 4
    return {"xml": xml, "poses": poses}


def oblique_prism(seed, sx=None):
    """An oblique prism over a jittered ellipse of 8 to 19 corners (seeded), its top cap shifted
    by (sx, sy): MuJoCo turns it to its principal frame, so both caps are flat only to float32
    round-off there, in a direction that is no axis of that frame."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 20))
    a, b = rng.uniform(0.02, 0.06, 2)
    h = rng.uniform(0.01, 0.05)
    sx0, sy = rng.uniform(-0.06, 0.06, 2)
    ph = rng.uniform(0, 2 * np.pi)
    jit = rng.uniform(-0.1, 0.1, 2 * n)
    sx = sx0 if sx is None else sx
    v = []
    for s, z in enumerate((-h, h)):
        for k in range(n):
            t = ph + 2 * np.pi * k / n + jit[k + n * s]
            v.append((a * np.cos(t) + s * sx, b * np.sin(t) + s * sy, z))
    return " ".join("%.9g" % x for x in np.ravel(v)), h


def hull_graph(m, mid):
    """(vert_globalid, neighbour lists) of mesh mid's hull graph (MuJoCo's mesh_graph)."""
    g = m.mesh_graph[m.mesh_graphadr[mid]:]
    nv, nf = g[0], g[1]
    adr, gid, loc = g[2:2 + nv], g[2 + nv:2 + 2 * nv], g[2 + 2 * nv:2 + 3 * nv + 3 * nf]
    nb = []
    for i in range(nv):
        k, row = adr[i], []
        while loc[k] >= 0:
            row.append(int(loc[k]))
            k += 1
        nb.append(row)
    return gid, nb


def steepest_ascent(dots, gid, nb, i):
    """The hull vertex (mesh index) where steepest ascent on the graph from graph vertex i stops."""
    best = dots[gid[i]]
    while True:
        cur = i
        for j in nb[cur]:
            if dots[gid[j]] > best:
                best, i = dots[gid[j]], j
        if i == cur:
            return int(gid[i])


PLANE_MESH_START = [(3, -0.051875), (3, -0.05187)] + [(s, None) for s in range(100, 140)]


def plane_mesh_start_cases():
    """myosuite's object meshes resting on a hull face flat only to float32 round-off: MuJoCo's
    support vertex is where steepest ascent on the hull graph stops when it starts from
    mesh_extrema's vertex of the direction's components rounded to -1, 0, 1 at +-0.4. Oblique
    prisms resting on a cap, tilted by 1e-11 to 1e-9: the two of seed 3 have a component of the
    direction just below 0.4 (0.39990) and just above (0.40003); of the seeded others, those
    whose first contact is neither the first maximum over the hull vertices nor the end of the
    ascent from graph vertex 0. Checks that rule and mesh_extrema on every kept body."""
    kept, rng = [], np.random.default_rng(23)
    for seed, sx in PLANE_MESH_START:
        verts, h = oblique_prism(seed, sx)
        xml = ('<mujoco><asset><mesh name="m" vertex="%s"/></asset><worldbody><geom type="plane" '
               'size="1 1 .1"/><body pos="0 0 %r"><freejoint/><geom type="mesh" mesh="m"/>'
               '</body></worldbody></mujoco>' % (verts, h - 1e-3))
        m = mujoco.MjModel.from_xml_string(xml)
        d = mujoco.MjData(m)
        mujoco.mj_forward(m, d)
        vert = m.mesh_vert.astype(float)
        gid, nb = hull_graph(m, 0)
        ext = []
        for e in np.ndindex(3, 3, 3):
            w = (vert[gid].astype(np.float32) * (np.array(e, np.float32) - 1)).astype(np.float32)
            x = (w[:, 0] + w[:, 1]) + w[:, 2]
            ext.append(0 if e == (1, 1, 1) else int(np.argmax(x)))
        assert ext == m.mesh_extrema[0].tolist()
        c = d.contact[0]
        first = c.pos + 0.5 * c.dist * c.frame[:3]
        mat = d.geom_xmat[1].reshape(3, 3)
        k = int(np.argmin(np.abs(d.geom_xpos[1] + vert @ mat.T - first).max(1)))
        ln = -mat.T @ c.frame[:3]
        dots = vert @ ln
        def start(t):
            q = [2 if x > t else 0 if x < -t else 1 for x in ln]
            return steepest_ascent(dots, gid, nb, ext[9 * q[0] + 3 * q[1] + q[2]])
        assert start(0.4) == k
        if sx is not None:  # the other rounding of the component near 0.4 stops elsewhere
            assert min(abs(abs(ln) - 0.4)) < 1e-4 and start(0.395) != start(0.405), ln
        if sx is None and (k == int(gid[np.argmax(dots[gid])])
                           or k == steepest_ascent(dots, gid, nb, 0)):
            continue
        kept.append((verts, h))
    assert len(kept) >= 8, len(kept)
    assets = "".join('<mesh name="m%d" vertex="%s"/>' % (i, v) for i, (v, _) in enumerate(kept))
    bodies = "".join('<body pos="%r 0 %r"><freejoint/><geom type="mesh" mesh="m%d"/></body>'
                     % (0.3 * i, h - 1e-3, i) for i, (_, h) in enumerate(kept))
    xml = ('<mujoco><asset>%s</asset><worldbody><geom type="plane" size="20 1 .1"/>%s'
           '</worldbody></mujoco>' % (assets, bodies))
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    poses = []
    for pose in range(4):
        d.qpos[:] = m.qpos0
        for b in range(m.nbody - 1):
            if pose:
                tilt = rng.normal(size=3) * 10 ** rng.uniform(-11, -9)
                tilt[2] = 0
                mujoco.mju_axisAngle2Quat(d.qpos[7 * b + 3:7 * b + 7], tilt, np.linalg.norm(tilt))
        mujoco.mj_forward(m, d)
        poses.append(posed_record(d))
    return {"xml": xml, "poses": poses}
# dm_control's Kinova arm (third_party/kinova/jaco_arm.xml) at qpos0 with the native collider
# (its `nativeccd="disable"` cleared): the ring cylinders lie deep inside the link meshes. Each
# model holds one link mesh as MuJoCo compiled it (vertices and faces, in its own frame) and the
# rings that touch it, posed relative to it as in the arm, on free bodies that collide only with
# the mesh; `ccd_iterations` 5 (an EPA iterate 7 degrees off the mesh face the patch lies on), 9
# and 35. (mesh geom, rings)
KINOVA = "dm_control/third_party/kinova/jaco_arm.xml"
KINOVA_PAIRS = (("link_2", ("ring_4", "ring_5", "ring_6")), ("base", ("ring_4", "ring_5")),
                ("link_4", ("ring_1",)))
KINOVA_BUDGETS = (5, 9, 35)


def cylinder_mesh_cases():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fetch import cache_dir
    m = mujoco.MjModel.from_xml_path(os.path.join(cache_dir(), "survey", KINOVA))
    m.opt.disableflags = 0
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    gid = lambda name: mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, name)
    cases = []
    for mesh, rings in KINOVA_PAIRS:
        g = gid(mesh)
        mid = m.geom_dataid[g]
        vert = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
        face = m.mesh_face[m.mesh_faceadr[mid]:m.mesh_faceadr[mid] + m.mesh_facenum[mid]]
        rm, pm = d.geom_xmat[g].reshape(3, 3), d.geom_xpos[g]
        bodies = []
        for ring in rings:
            c = gid(ring)
            q = np.zeros(4)
            mujoco.mju_mat2Quat(q, (rm.T @ d.geom_xmat[c].reshape(3, 3)).ravel())
            bodies.append('<body pos="%s" quat="%s"><freejoint/><geom name="%s" type="cylinder" '
                          'size="%r %r" contype="1" conaffinity="0"/></body>' % (
                              " ".join(repr(float(x)) for x in rm.T @ (d.geom_xpos[c] - pm)),
                              " ".join(repr(float(x)) for x in q), ring,
                              float(m.geom_size[c][0]), float(m.geom_size[c][1])))
        for iters in KINOVA_BUDGETS:
            xml = """<mujoco><option ccd_iterations="%d"><flag gravity="disable"/></option>
  <asset><mesh name="m" vertex="%s" face="%s"/></asset>
  <worldbody><geom name="%s" type="mesh" mesh="m" contype="0" conaffinity="1"/>
    %s
  </worldbody>
</mujoco>""" % (iters, " ".join(repr(float(x)) for x in vert.ravel()),
                " ".join(str(int(x)) for x in face.ravel()), mesh, "\n    ".join(bodies))
            mk = mujoco.MjModel.from_xml_string(xml)
            dk = mujoco.MjData(mk)
            mujoco.mj_forward(mk, dk)
            assert dk.ncon >= len(rings), (mesh, iters, dk.ncon)
            cases.append({"pair": "%s with %s, ccd_iterations %d" % (mesh, ", ".join(rings), iters),
                          "xml": xml, "poses": [posed_record(dk)]})
    return cases


def posed_record(d):
    """A pose's qpos and MuJoCo's contacts there (count, dist, pos, frame)."""
    return {
        "qpos": d.qpos.tolist(), "ncon": int(d.ncon),
        "contact_dist": d.contact.dist[: d.ncon].tolist(),
        "contact_pos": d.contact.pos[: d.ncon].tolist(),
        "contact_frame": d.contact.frame[: d.ncon].tolist(),
    }


def png_images():
    import io
    from PIL import Image
    rng = np.random.default_rng(19)
    rgb = rng.integers(0, 256, (5, 7, 3)).astype(np.uint8)
    alpha = rng.integers(0, 256, (5, 7, 1)).astype(np.uint8)
    images = {
        "rgb": Image.fromarray(rgb, "RGB"),
        "rgba": Image.fromarray(np.concatenate([rgb, alpha], -1), "RGBA"),
        "grey8": Image.fromarray(rgb[..., 1], "L"),
        "grey16": Image.fromarray(rng.integers(0, 65536, (4, 6)).astype(np.uint16)),
        "palette": Image.fromarray(rgb, "RGB").convert("P"),
    }
    out = {}
    for name, im in images.items():
        buf = io.BytesIO()
        im.save(buf, format="PNG")
        out[name + ".png"] = buf.getvalue()
    return out


def main():
    out = {"mujoco_version": mujoco.__version__, "generator": "tools/zoo/gen_regressions.py"}

    m = mujoco.MjModel.from_xml_string(FROMTO_DEFAULT)
    out["fromto_default"] = {
        "xml": FROMTO_DEFAULT,
        "geom_pos": m.geom_pos.tolist(), "geom_quat": m.geom_quat.tolist(),
        "geom_size": m.geom_size.tolist(), "site_pos": m.site_pos.tolist(),
        "site_quat": m.site_quat.tolist(), "site_size": m.site_size.tolist(),
        "body_mass": m.body_mass.tolist(),
    }
    errors = {}
    for name, (xml, msg) in FROMTO_ERRORS.items():
        try:
            mujoco.MjModel.from_xml_string(xml)
            raise SystemExit("MuJoCo accepts %s" % name)
        except ValueError as e:
            assert msg in str(e), str(e)
        errors[name] = {"xml": xml, "message": msg}
    out["fromto_errors"] = errors

    m = mujoco.MjModel.from_xml_string(SIZE_NKEY)
    out["size_nkey"] = {
        "xml": SIZE_NKEY, "nkey": int(m.nkey), "key_time": m.key_time.tolist(),
        "key_qpos": m.key_qpos.tolist(), "key_qvel": m.key_qvel.tolist(),
        "key_ctrl": m.key_ctrl.tolist(), "key_mpos": m.key_mpos.tolist(),
        "key_mquat": m.key_mquat.tolist(),
        "key_name": [m.key(i).name for i in range(m.nkey)],
    }

    m = mujoco.MjModel.from_xml_string(SLIDERS)
    out["sliders"] = {
        "xml": SLIDERS, "body_simple": m.body_simple.tolist(),
        "body_invweight0": m.body_invweight0.tolist(),
        "dof_invweight0": m.dof_invweight0.tolist(),
    }

    m = mujoco.MjModel.from_xml_string(LEGACY_MESH)
    out["legacy_mesh"] = {
        "xml": LEGACY_MESH, "body_mass": m.body_mass.tolist(),
        "body_inertia": m.body_inertia.tolist(), "body_ipos": m.body_ipos.tolist(),
        "body_iquat": m.body_iquat.tolist(),
    }

    m = mujoco.MjModel.from_xml_string(CONTACT_ORDER)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    out["contact_order"] = {
        "xml": CONTACT_ORDER,
        "contact_geom": [[int(g) for g in d.contact.geom[i]] for i in range(d.ncon)],
        "contact_dist": d.contact.dist[: d.ncon].tolist(),
    }
    assert d.ncon >= 5, d.ncon

    m = mujoco.MjModel.from_xml_string(TENDON_EXT)
    d = mujoco.MjData(m)
    d.ctrl[:] = [0.7, -0.4]
    d.qvel[:] = np.random.default_rng(7).uniform(-0.5, 0.5, m.nv)
    mujoco.mj_forward(m, d)
    assert d.ten_wrapnum[0] == 4, "the tendon must wrap the cylinder"
    assert {2, 4} <= set(d.efc_type.tolist()), "tendon friction and limit rows"
    out["tendon_ext"] = {
        "xml": TENDON_EXT, "ctrl": d.ctrl.tolist(), "qvel": d.qvel.tolist(),
        "cfrc_ext": d.cfrc_ext.tolist(), "cfrc_int": d.cfrc_int.tolist(),
        "sensordata": d.sensordata.tolist(),
    }

    xml = degenerate_inertia_xml()
    m = mujoco.MjModel.from_xml_string(xml)
    out["degenerate_inertia"] = {
        "xml": xml, "body_inertia": m.body_inertia.tolist(), "body_iquat": m.body_iquat.tolist(),
        "body_ipos": m.body_ipos.tolist(), "geom_quat": m.geom_quat.tolist(),
        "geom_pos": m.geom_pos.tolist(),
    }

    xml = large_polygon_xml()
    m = mujoco.MjModel.from_xml_string(xml)
    assert m.mesh_polyvertnum.max() > 64, "the cap must be one polygon of more than 64 corners"
    d = mujoco.MjData(m)
    poses = []
    for x0, yaw in ((0.1, np.pi / 2 + 0.01), (0.09, np.pi / 2 + 0.01), (0.105, np.pi / 2 + 0.01)):
        large_polygon_pose(m, d, x0, yaw, 2e-4)
        assert d.ncon == 2, d.ncon
        poses.append(posed_record(d))
    out["large_polygon"] = {"xml": xml, "poses": poses}

    m = mujoco.MjModel.from_xml_string(EDGE_TILT)
    d = mujoco.MjData(m)
    poses = []
    for mode, sine, ncon in EDGE_TILT_POSES:
        edge_tilt_pose(m, d, mode, sine)
        assert d.ncon == ncon, (mode, sine, d.ncon)
        poses.append(posed_record(d))
    out["edge_tilt"] = {"xml": EDGE_TILT, "poses": poses}

    m = mujoco.MjModel.from_xml_string(SPHERE_EDGE)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert d.ncon == 1, d.ncon
    out["sphere_edge"] = {
        "xml": SPHERE_EDGE, "ncon": int(d.ncon),
        "contact_dist": d.contact.dist[: d.ncon].tolist(),
        "contact_pos": d.contact.pos[: d.ncon].tolist(),
        "contact_frame": d.contact.frame[: d.ncon].tolist(),
    }

    m = mujoco.MjModel.from_xml_string(CYL_BOX)
    d = mujoco.MjData(m)
    cp, cm, bp, bm = (np.array(x) for x in CYL_BOX_POSE)
    quat = np.zeros((2, 4))
    mujoco.mju_mat2Quat(quat[0], cm)
    mujoco.mju_mat2Quat(quat[1], bm)
    normal, axis = -bm.reshape(3, 3)[:, 0], cm.reshape(3, 3)[:, 2]
    poses = []
    for dn, da, kind in CYL_BOX_SHIFTS:
        d.qpos[:] = [*cp, *quat[0], *(bp + dn * normal + da * axis), *quat[1]]
        mujoco.mj_forward(m, d)
        assert d.ncon == 2, (dn, da, d.ncon)
        same = np.abs(d.contact.pos[0] - d.contact.pos[1]).max() < 1e-15
        assert same == (kind == "same"), (dn, da, d.contact.pos[:2])
        poses.append(posed_record(d))
    out["cylinder_box_side"] = {"xml": CYL_BOX, "poses": poses}
    out["cylinder_box_aim"] = cylinder_box_aim_cases(cp, quat, bp, normal, axis)
    out["cylinder_mesh_patch"] = cylinder_mesh_cases()

    m = mujoco.MjModel.from_xml_string(QUAT_BODIES)
    d = mujoco.MjData(m)
    d.qpos[:] = np.random.default_rng(29).normal(size=m.nq)
    mujoco.mj_forward(m, d)
    out["quat_bodies"] = {"xml": QUAT_BODIES, "qpos": d.qpos.tolist(), "xquat": d.xquat.tolist(),
                          "xmat": d.xmat.tolist(), "geom_xmat": d.geom_xmat.tolist(),
                          "xpos": d.xpos.tolist(), "geom_xpos": d.geom_xpos.tolist()}

    m = mujoco.MjModel.from_xml_string(SAMEFRAME)
    d = mujoco.MjData(m)
    d.qpos[:] = np.random.default_rng(23).normal(size=m.nq)
    mujoco.mj_forward(m, d)
    assert set(m.geom_sameframe.tolist()) == {0, 1, 2, 3, 4}, m.geom_sameframe
    out["sameframe"] = {
        "xml": SAMEFRAME, "qpos": d.qpos.tolist(),
        "body_sameframe": m.body_sameframe.tolist(), "geom_sameframe": m.geom_sameframe.tolist(),
        "site_sameframe": m.site_sameframe.tolist(),
        "xipos": d.xipos.tolist(), "ximat": d.ximat.tolist(), "geom_xpos": d.geom_xpos.tolist(),
        "geom_xmat": d.geom_xmat.tolist(), "site_xpos": d.site_xpos.tolist(),
        "site_xmat": d.site_xmat.tolist(),
    }

    cases = []
    for pair in NATIVE_PAIRS:
        for iters, tol in NATIVE_OPTIONS:
            xml = native_xml(pair, iters, tol)
            m = mujoco.MjModel.from_xml_string(xml)
            d = mujoco.MjData(m)
            poses = []
            shift1 = tuple(-x for x in SHIFT) if pair in SHIFT_BACK else SHIFT
            for shift in ((0, 0, 0), shift1):
                d.qpos[:] = m.qpos0
                d.qpos[7:10] += shift
                mujoco.mj_forward(m, d)
                # too small a budget may leave GJK short of the tetrahedron: no contact
                assert d.ncon == 1 or iters < 35, (pair, iters, tol, shift, d.ncon)
                poses.append(posed_record(d))
            cases.append({"pair": pair, "xml": xml, "poses": poses})
    out["native_ccd"] = cases
    out["kinematics"] = kinematics_states()
    out["integrate_pos"] = integrate_cases()
    out["native_ccd_margin"] = native_margin_cases()
    out["native_hfield"] = native_hfield_cases()
    out["native_hfield_margin"] = native_hfield_cases(0.01)
    out["polytope_margin"] = polytope_margin_cases()
    out["hfield_polytope_margin"] = hfield_polytope_margin_cases()

    xml = polytope_hull_xml()
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert d.ncon == 1, d.ncon
    out["polytope_hull"] = {"xml": xml, "poses": [posed_record(d)]}

    cases = []
    for name, step, g0, g1, seed, keep, what in POLYTOPE_PATCHES:
        xml, poses = polytope_patch_case(name, step, g0, g1, seed, keep)
        cases.append({"what": what, "xml": xml, "poses": poses})
    out["polytope_patch"] = cases
    out["plane_mesh_hull"] = plane_mesh_hull_cases()
    out["plane_mesh_start"] = plane_mesh_start_cases()
    out["obj_polygons"] = obj_polygons_case()

    ma = mujoco.MjModel.from_xml_string(ACTUATOR_PARTIAL)
    da = mujoco.MjData(ma)
    da.qpos[:] = [0.3, 0.07]
    da.qvel[:] = [0.5, -0.2]
    da.act[:] = [0.6]
    da.ctrl[:] = [0.2, 0.4, 0.6, 0.8]
    mujoco.mj_forward(ma, da)
    assert ma.actuator_gainprm[3, 3] == 200 and ma.actuator_gear[0, 1] == 2
    out["actuator_partial"] = {
        "xml": ACTUATOR_PARTIAL, "qpos": da.qpos.tolist(), "qvel": da.qvel.tolist(),
        "act": da.act.tolist(), "ctrl": da.ctrl.tolist(),
        "actuator_gear": ma.actuator_gear.tolist(), "actuator_gainprm": ma.actuator_gainprm.tolist(),
        "actuator_biasprm": ma.actuator_biasprm.tolist(),
        "actuator_dynprm": ma.actuator_dynprm.tolist(),
        "actuator_damping": ma.actuator_damping.tolist(),
        "actuator_dampingpoly": ma.actuator_dampingpoly.tolist(),
        "actuator_force": da.actuator_force.tolist(), "act_dot": da.act_dot.tolist(),
        "qfrc_actuator": da.qfrc_actuator.tolist(),
    }

    files = png_images()
    xml = PNG_HFIELD % (
        "".join('<hfield name="%s" file="%s" size="1 2 .3 .1"/>' % (f[:-4], f) for f in files),
        "".join('<geom type="hfield" hfield="%s"/>' % f[:-4] for f in files),
    )
    m = mujoco.MjModel.from_xml_string(xml, assets=files)
    out["png_hfield"] = {
        "xml": xml, "files": {f: b.hex() for f, b in files.items()},
        "hfield_nrow": m.hfield_nrow.tolist(), "hfield_ncol": m.hfield_ncol.tolist(),
        "hfield_data": m.hfield_data.astype(np.float64).tolist(),
    }

    path = os.path.join(ROOT, "tests", "reference", "zoo_regressions.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print("wrote", path, "ncon", d.ncon, "legacy mass", out["legacy_mesh"]["body_mass"])


if __name__ == "__main__":
    main()
