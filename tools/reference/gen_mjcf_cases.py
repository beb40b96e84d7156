#!/usr/bin/env python3
"""Generates tests/reference/mjcf_cases.json: compiled MuJoCo 4.0.0 fields for MJCF snippets.

Run from the repository root:  python3 tools/reference/gen_mjcf_cases.py
The Rust test (src/mjcf/tests.rs) compiles the same snippets with moreau and compares.
Files of the virtual file system are stored as hex strings.
"""
import json, struct, sys
import numpy as np
import mujoco

assert mujoco.__version__ == "4.0.0", mujoco.__version__

FIELDS = """nq nv nu na nbody njnt ngeom nsite ntendon nwrap neq nkey nsensor nsensordata nmocap nM
qpos0 qpos_spring
body_parentid body_rootid body_weldid body_mocapid body_jntnum body_jntadr body_dofnum body_dofadr
body_geomnum body_geomadr body_pos body_quat body_mass body_subtreemass body_inertia body_ipos
body_iquat body_gravcomp
jnt_type jnt_qposadr jnt_dofadr jnt_bodyid jnt_group jnt_limited jnt_actfrclimited jnt_solref jnt_solimp
jnt_pos jnt_axis jnt_stiffness jnt_stiffnesspoly jnt_range jnt_actfrcrange jnt_margin
dof_bodyid dof_jntid dof_parentid dof_Madr dof_solref dof_solimp dof_frictionloss dof_armature
dof_damping dof_dampingpoly
geom_type geom_contype geom_conaffinity geom_condim geom_bodyid geom_dataid geom_group geom_priority
geom_solmix geom_solref geom_solimp geom_size geom_rbound geom_aabb geom_pos geom_quat geom_friction
geom_margin geom_gap
site_type site_bodyid site_size site_pos site_quat
mesh_pos mesh_quat mesh_vertnum
hfield_size hfield_nrow hfield_ncol hfield_data
tendon_adr tendon_num tendon_limited tendon_solref_lim tendon_solimp_lim tendon_solref_fri
tendon_solimp_fri tendon_range tendon_margin tendon_stiffness tendon_damping tendon_armature
tendon_frictionloss tendon_stiffnesspoly tendon_dampingpoly wrap_type wrap_objid wrap_prm
actuator_trntype actuator_dyntype actuator_gaintype actuator_biastype actuator_trnid actuator_actadr
actuator_actnum actuator_group actuator_ctrllimited actuator_forcelimited actuator_actlimited
actuator_actearly actuator_dynprm actuator_gainprm actuator_biasprm actuator_ctrlrange
actuator_forcerange actuator_actrange actuator_gear actuator_cranklength
eq_type eq_obj1id eq_obj2id eq_objtype eq_active0 eq_solref eq_solimp eq_data
pair_geom1 pair_geom2 pair_dim pair_solref pair_solreffriction pair_solimp pair_margin pair_gap
pair_friction exclude_signature
key_time key_qpos key_qvel key_act key_ctrl key_mpos key_mquat
sensor_type sensor_objtype sensor_objid sensor_reftype sensor_refid sensor_dim sensor_adr
sensor_cutoff sensor_noise""".split()

OPT = """timestep impratio tolerance ls_tolerance noslip_tolerance ccd_tolerance gravity wind magnetic
density viscosity o_margin o_solref o_solimp o_friction integrator cone jacobian solver iterations
ls_iterations noslip_iterations ccd_iterations disableflags enableflags""".split()


def stl_binary(tris):
    b = bytearray(80) + struct.pack("<I", len(tris))
    for t in tris:
        b += struct.pack("<3f", 0, 0, 0)
        for v in t:
            b += struct.pack("<3f", *v)
        b += b"\0\0"
    return bytes(b)


def stl_ascii(tris):
    s = "solid test\n"
    for t in tris:
        s += " facet normal 0 0 0\n  outer loop\n"
        for v in t:
            s += "   vertex %r %r %r\n" % tuple(float(x) for x in v)
        s += "  endloop\n endfacet\n"
    return (s + "endsolid test\n").encode()


def prism(poly, h):
    """Closed prism over a simple CCW polygon (fan-triangulated caps need convexity per fan:
    poly is given so that a fan from vertex 0 is valid)."""
    n = len(poly)
    bot = [(x, y, 0.0) for x, y in poly]
    top = [(x, y, h) for x, y in poly]
    tris = []
    for k in range(1, n - 1):
        tris.append([bot[0], bot[k + 1], bot[k]])
        tris.append([top[0], top[k], top[k + 1]])
    for k in range(n):
        a, b = k, (k + 1) % n
        tris.append([bot[a], bot[b], top[b]])
        tris.append([bot[a], top[b], top[a]])
    return tris

L_POLY = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 2.5), (0, 2.5)]  # fan from (0,0) is valid

def obj_text(tris):
    verts, idx = [], []
    for t in tris:
        f = []
        for v in t:
            if v not in verts:
                verts.append(v)
            f.append(verts.index(v) + 1)
        idx.append(f)
    s = "# test\n" + "".join("v %r %r %r\n" % v for v in verts)
    s += "".join("f %d/1 %d %d\n" % tuple(f) for f in idx)
    return s.encode()


CASES = []
def case(name, xml, files=None, error=False):
    CASES.append(dict(name=name, xml=xml, files=files or {}, error=error))

case("primitives", """<mujoco><worldbody>
 <geom type="plane" size="3 3 0.1"/>
 <body name="s" pos="1 2 3"><joint/><geom type="sphere" size="0.1" pos="0.1 0 0" euler="10 20 30"/></body>
 <body name="c" euler="30 40 50"><joint type="slide" axis="1 1 0"/><geom type="capsule" size="0.05 0.2" density="500"/></body>
 <body name="y" axisangle="1 2 3 45"><joint/><geom type="cylinder" size="0.1 0.3" mass="2"/></body>
 <body name="b" xyaxes="0 1 0 -1 0.2 0.1"><joint/><geom type="box" size="0.1 0.2 0.3"/></body>
 <body name="e" zaxis="1 1 1"><joint/><geom type="ellipsoid" size="0.1 0.2 0.3" quat="1 2 3 4"/></body>
 <body name="ft"><joint/>
   <geom type="capsule" size="0.05" fromto="0 0 0 0.3 0.4 0.5"/>
   <geom type="cylinder" size="0.04" fromto="0.1 0 0 0.1 0 -0.5"/>
   <geom type="box" size="0.02" fromto="0 0 0 0 0 0.4"/>
   <geom type="ellipsoid" size="0.03" fromto="0 0 0 1 -1 0.2"/>
 </body>
 <body name="multi" pos="0 0 1"><joint type="ball"/>
   <geom type="box" size="0.1 0.2 0.3" pos="0.1 0.2 0.3" euler="10 0 5"/>
   <geom type="sphere" size="0.2" pos="-0.1 0 0" mass="3"/>
   <geom type="capsule" size="0.05 0.3" pos="0 0.3 0" quat="0.9 0.1 0.2 0.3"/>
 </body>
</worldbody></mujoco>""")

case("angles", """<mujoco><compiler angle="radian" eulerseq="ZYX"/><worldbody>
 <body euler="0.1 0.2 0.3"><joint range="-1 1" ref="0.3" springref="0.2"/><geom size="0.1"/>
  <body axisangle="0 0 1 0.7"><joint type="ball" range="0 1"/><geom size="0.1"/></body></body>
 <body euler="0.5 -0.2 1.3"><freejoint/><geom size="0.1" euler="0.3 0.2 0.1"/></body>
</worldbody></mujoco>""")

case("eulerseq", """<mujoco><compiler eulerseq="zxY"/><worldbody>
 <body euler="20 -30 50"><joint range="-30 60" ref="10"/><geom size="0.1"/></body>
 <body euler="120 10 -70" pos="1 1 1"><freejoint/><geom type="box" size="0.1 0.2 0.3"/></body>
</worldbody></mujoco>""")

case("joints_defaults", """<mujoco>
 <default>
  <joint damping="0.5" armature="0.1" stiffness="2 3 4"/>
  <geom friction="0.8 0.01 0.002" solref="0.01 0.5" rgba="1 0 0 1"/>
  <default class="a"><joint type="slide" damping="1 2" frictionloss="0.3" solreffriction="0.05 2"/>
   <geom type="box" size="0.1 0.1 0.1" condim="4" priority="2" solmix="3" margin="0.01" gap="0.02"/>
   <default class="b"><joint range="-1 2" solimplimit="0.8 0.9"/><geom solimp="0.7 0.8 0.01" contype="2" conaffinity="3" group="2"/></default>
  </default>
 </default>
 <worldbody>
  <body><joint name="j0" springref="10" ref="5" margin="0.1" group="3" actuatorfrcrange="-1 1"/><geom size="0.1"/>
   <body childclass="a"><joint name="j1"/><geom/>
    <body childclass="b"><joint name="j2" class="a" limited="false"/><joint name="j3"/><geom/><geom class="main" size="0.2"/>
     <body><joint name="j4" type="hinge" range="-90 45" limited="true" solreflimit="0.1 0.2" solimpfriction="0.5 0.6 0.1 0.4 3"/><geom/></body>
    </body>
   </body>
  </body>
 </worldbody></mujoco>""")

case("tree", """<mujoco><worldbody>
 <geom size="0.1"/>
 <body name="m" mocap="true" pos="1 2 3" quat="0 1 0 0"><geom size="0.1" contype="0" conaffinity="0"/></body>
 <body name="a"><freejoint/><geom size="0.1"/>
  <body name="w"><geom size="0.1"/>
   <body name="b"><joint/><joint type="slide"/><geom size="0.1"/>
    <body name="c"><joint type="ball"/><geom size="0.1"/></body>
    <body name="d"><joint/><geom size="0.1"/></body>
   </body>
  </body>
 </body>
 <body name="z" pos="0 0 2"><geom size="0.1"/><body><joint/><geom size="0.1"/></body></body>
 <body name="m2" mocap="true"><geom size="0.1"/></body>
</worldbody></mujoco>""")

case("frames", """<mujoco><worldbody>
 <frame pos="1 0 0" euler="0 0 90">
  <body name="a" pos="1 0 0"><joint axis="1 0 0" pos="0.1 0 0"/><geom size="0.1"/>
   <frame pos="0 0 1" quat="0 0 0 1"><geom type="box" size="0.1 0.2 0.3" pos="0.1 0 0"/><site name="s" pos="0 1 0"/>
    <body name="b"><joint type="slide" axis="0 1 0"/><geom size="0.1"/></body></frame>
  </body>
 </frame>
</worldbody></mujoco>""")

case("inertial", """<mujoco><worldbody>
 <body><joint/><inertial pos="0.1 0.2 0.3" mass="2" diaginertia="0.1 0.2 0.25" euler="10 20 30"/><geom size="0.1"/></body>
 <body><joint/><inertial pos="0 0 0" mass="3" fullinertia="0.3 0.4 0.5 0.01 0.02 0.03"/></body>
 <body><joint/><inertial pos="0 0 0" mass="3" fullinertia="0.3 0.4 0.5 0 0 0"/></body>
 <body><joint/><geom size="0.1" group="4"/><geom size="0.2" pos="1 0 0" group="5"/></body>
</worldbody></mujoco>""")

case("inertiafromgeom", """<mujoco><compiler inertiafromgeom="true" boundmass="0.5" boundinertia="0.01" inertiagrouprange="0 2"/><worldbody>
 <body><joint/><inertial pos="0.1 0.2 0.3" mass="2" diaginertia="0.1 0.2 0.25"/><geom size="0.1" density="10"/><geom size="0.1" group="3"/></body>
 <body><joint/><geom size="0.01"/></body>
</worldbody></mujoco>""")

case("settotalmass", """<mujoco><compiler settotalmass="10"/><worldbody>
 <body><joint/><geom size="0.1"/><body><joint/><geom type="box" size="0.1 0.2 0.3"/></body></body>
</worldbody></mujoco>""")

case("shell", """<mujoco><worldbody>
 <body><joint/><geom size="0.1" shellinertia="true"/></body>
 <body><joint/><geom type="box" size="0.1 0.2 0.3" shellinertia="true"/></body>
 <body><joint/><geom type="cylinder" size="0.1 0.3" shellinertia="true"/></body>
 <body><joint/><geom type="capsule" size="0.1 0.3" shellinertia="true"/></body>
</worldbody></mujoco>""")

wedge = prism([(0, 0), (2, 0), (0.3, 1.2)], 3.0)
lshape = prism(L_POLY, 0.7)
case("mesh_files", """<mujoco><compiler meshdir="assets"/>
 <asset>
  <mesh name="wb" file="wedge.stl" scale="1 2 0.5"/>
  <mesh file="wedge_ascii.stl"/>
  <mesh name="lex" file="l.obj" inertia="exact"/>
  <mesh name="lcv" file="l.obj" inertia="convex"/>
  <mesh name="lsh" file="l.obj" inertia="shell"/>
 </asset>
 <worldbody>
  <body pos="0 0 1"><joint/><geom type="mesh" mesh="wb" pos="0.1 0.2 0.3" euler="10 20 30"/></body>
  <body><joint/><geom type="mesh" mesh="wedge_ascii"/><geom type="mesh" mesh="lex" pos="1 0 0" density="300"/></body>
  <body><joint/><geom type="mesh" mesh="lex"/></body>
  <body><joint/><geom type="mesh" mesh="lcv"/></body>
  <body><joint/><geom type="mesh" mesh="lsh" mass="2"/></body>
 </worldbody></mujoco>""", files={"assets/wedge.stl": stl_binary(wedge), "wedge_ascii.stl": stl_binary(wedge),
                                  "assets/l.obj": obj_text(lshape)})

case("mesh_inline", """<mujoco><asset>
  <mesh name="box" vertex="0 0 0  2 0 0  0 1 0  0 0 3  2 1 0 2 0 3 0 1 3 2 1 3"/>
  <mesh name="tet" vertex="0 0 0  1 0 0  0 2 0  0 0 3" face="0 2 1  0 1 3  0 3 2  1 2 3" refpos="0.1 0 0"/>
 </asset><worldbody>
  <body pos="1 2 3"><joint/><geom type="mesh" mesh="box" pos=".1 .2 .3"/></body>
  <body><freejoint/><geom type="mesh" mesh="tet"/><geom type="sphere" size=".1" pos="1 0 0"/></body>
 </worldbody></mujoco>""")

case("hfield", """<mujoco><asset><hfield name="h" nrow="3" ncol="4" size="1 2 3 0.5" elevation="1 2 3 4 5 9 1 1 2 2 0 3"/></asset>
 <worldbody><geom type="hfield" hfield="h" pos="1 2 3"/><body><joint/><geom size="0.1"/></body></worldbody></mujoco>""")

case("actuators", """<mujoco>
 <default>
  <default class="p"><position kp="5" kv="3"/></default>
  <default class="pt"><position kp="5" timeconst="0.1"/></default>
  <default class="m"><motor ctrlrange="-2 2"/></default>
  <default class="g"><general gainprm="7" biasprm="0 -3 -2" biastype="affine"/></default>
  <default class="mu"><muscle force="10" range="0.6 1.1"/></default>
  <default class="pg"><position kp="5"/><general gainprm="7"/></default>
 </default>
 <worldbody>
  <site name="ref"/>
  <body><joint name="j" range="-30 60"/><geom size="0.1"/><site name="s" pos="0 0.1 0"/><site name="s2" pos="0 0 1"/>
   <body name="b"><joint name="k" type="slide"/><geom size="0.1"/></body></body>
 </worldbody>
 <tendon><fixed name="t" range="-1 1"><joint joint="j" coef="2"/><joint joint="k" coef="-1"/></fixed></tendon>
 <actuator>
  <motor joint="j" gear="2" ctrlrange="-1 1" forcerange="-3 3"/>
  <motor joint="j" class="p"/><position joint="j" class="p"/><position joint="j" class="p" kv="2"/>
  <position joint="j" class="pt" kp="3"/><general joint="j" class="pt"/><velocity joint="j" class="pt"/>
  <intvelocity joint="j" class="pt" actrange="-1 1"/><cylinder joint="j" class="pt"/>
  <position joint="j" class="m"/><velocity joint="j" class="g"/><position joint="j" class="g"/>
  <intvelocity joint="j" class="g"/><cylinder joint="j" class="g"/><damper joint="j" class="g" ctrlrange="0 1"/>
  <position joint="j" inheritrange="1"/><position joint="j" inheritrange="0.5" timeconst="0.2"/>
  <velocity joint="j" kv="3"/><damper joint="k" kv="2" ctrlrange="0 1"/>
  <intvelocity joint="j" kp="2" inheritrange="0.8"/>
  <cylinder joint="j" area="2" diameter="3" bias="1 2 3" timeconst="0.5"/>
  <muscle tendon="t" class="mu"/><muscle tendon="t" class="mu" scale="3"/>
  <muscle tendon="t" range="0.5 1.2" force="10" scale="100" lmin="0.2" lmax="1.7" vmax="2" fpmax="1.1" fvmax="1.3" timeconst="0.02 0.05" tausmooth="0.1"/>
  <general joint="j" dyntype="filter" dynprm="0.3" gaintype="affine" gainprm="1 2 3" biastype="affine" biasprm="4 5 6" actearly="true"/>
  <general joint="j" dyntype="integrator" actlimited="false" actrange="-1 1" ctrllimited="true" ctrlrange="-5 5" group="2"/>
  <position class="pg" joint="j"/><velocity class="pg" joint="j"/><cylinder class="pg" joint="j"/>
  <general tendon="t" gear="3"/><general jointinparent="k"/>
  <general site="s" refsite="ref" gear="1 2 3 4 5 6"/><general body="b"/>
  <general cranksite="s" slidersite="s2" cranklength="0.5"/>
  <adhesion body="b" gain="3" ctrlrange="0 1"/>
 </actuator></mujoco>""")

case("tendons", """<mujoco><worldbody>
 <body><joint name="a"/><geom name="g0" size="0.1"/><site name="s0"/>
  <body pos="0 0 1"><joint name="b" type="slide"/><geom name="cyl" type="cylinder" size="0.1 0.2"/><site name="s1"/><site name="side" pos="0.2 0 0"/>
   <body pos="0 0 1"><site name="s2"/><geom size="0.1"/><joint/></body></body></body>
 </worldbody>
 <default><tendon stiffness="2 0.5 0.25" damping="0.1 0.2 0.3"/></default>
 <tendon>
  <fixed name="f" range="-1 2" damping="0.1" frictionloss="0.2" armature="0.3" margin="0.01" springlength="0.5" solreflimit="0.1 2" solimpfriction="0.8 0.9"><joint joint="a" coef="1"/><joint joint="b" coef="0.5"/></fixed>
  <spatial name="sp" limited="false" springlength="0.1 0.3"><site site="s0"/><geom geom="g0"/><site site="s1"/><pulley divisor="2"/><site site="s1"/><geom geom="cyl" sidesite="side"/><site site="s2"/></spatial>
 </tendon></mujoco>""")

case("equality", """<mujoco><worldbody>
 <body name="a" pos="0 0 1" euler="10 20 30"><joint name="h" axis="1 0 0" range="-30 30" ref="10"/><geom size=".1"/><site name="s1" pos="0 1 0"/>
  <body name="b" pos="0 0.5 1" quat="1 0.2 0.3 0.1"><joint type="ball" name="bj"/><geom name="g" type="capsule" size=".1 .2"/><site name="s2"/>
   <body name="c"><joint name="h2"/><geom size=".1"/></body></body></body>
 </worldbody>
 <tendon><fixed name="t"><joint joint="h" coef="2"/></fixed><fixed name="t2"><joint joint="h2" coef="1"/></fixed></tendon>
 <default><equality solref="0.05 1"/></default>
 <equality><connect body1="a" body2="b" anchor="0.1 0.2 0.3"/><weld body1="a" body2="b" anchor="0.1 0.2 0.3" torquescale="2" active="false"/>
  <weld body1="b" relpose="1 2 3 1 0 0 0"/><connect body1="c" anchor="1 0 0" solimp="0.5 0.6"/><connect site1="s1" site2="s2"/><weld site1="s1" site2="s2"/>
  <joint joint1="h"/><joint joint1="h" joint2="h2" polycoef="1 2 3 4 5"/><tendon tendon1="t"/><tendon tendon1="t" tendon2="t2" polycoef="0.5"/></equality>
</mujoco>""")

case("contact", """<mujoco><default><pair condim="4"/></default><worldbody>
 <geom name="a" size=".1"/><body name="b1"><freejoint/><geom name="b" size=".1"/></body><body name="b2"><freejoint/><geom name="c" size=".1"/></body>
 </worldbody><contact><pair geom1="a" geom2="b"/><pair geom1="b" geom2="c" friction="1 2" solreffriction="0.1 0.2" margin="0.1" gap="0.2" solimp="0.8" condim="6"/>
 <exclude body1="b2" body2="b1"/><exclude body1="world" body2="b2"/></contact></mujoco>""")

case("keyframes", """<mujoco><worldbody>
 <body name="m" mocap="true" pos="1 2 3"><geom size=".1"/></body>
 <body pos="0 1 0"><freejoint/><geom size=".1"/><body><joint name="j"/><geom size=".1"/></body></body></worldbody>
 <actuator><motor joint="j"/><position joint="j" timeconst="0.1"/></actuator>
 <keyframe><key name="k0"/><key time="1.5" qpos="1 2 3 1 0 0 0 0.5" qvel="1 2 3 4 5 6 7" act="0.3" ctrl="1 2" mpos="4 5 6" mquat="0 1 0 0"/>
 <key qvel="0 0 0 0 0 0 1"/></keyframe></mujoco>""")

# shorter vectors fill the leading entries (mpos, mquat: whole 3- and 4-vectors); a joint's
# zero quaternion becomes the identity, a mocap body's stays zero
PARTIAL = """<mujoco><worldbody><body><freejoint/><geom size=".1"/></body>
 <body pos="1 0 0"><joint name="h"/><geom size=".1"/></body>
 <body mocap="true" pos="0 0 2" quat="0 1 0 0"><geom size=".1" contype="0" conaffinity="0"/></body>
 <body mocap="true" pos="0 0 3"><geom size=".1" contype="0" conaffinity="0"/></body></worldbody>
 <actuator><motor joint="h"/><general joint="h" dyntype="integrator"/><general joint="h" dyntype="filter"/></actuator>
 <keyframe>%s</keyframe></mujoco>"""
case("keyframes_partial", PARTIAL % """<key name="a" qpos="0.1 0.2"/><key qpos="1 2 3 4 5"/><key qpos="1 2 3 0 0 0 0"/>
 <key qvel="1 2" ctrl="1" act="1"/><key mpos="1 2 3 4"/><key mpos="1"/><key mquat="2 0 0 0 3"/>
 <key mquat="0 0 0 0 1 1 1 1"/><key qpos=""/>""")

case("sensors", """<mujoco><worldbody>
<body name="a" pos="0 0 1"><joint name="h" range="-30 30"/><geom size=".1"/><site name="s1" pos="0 1 0"/>
 <body name="b" pos="0 0.5 1"><joint type="ball" name="bj"/><geom name="g" type="capsule" size=".1 .2"/><site name="s2"/></body></body>
</worldbody>
<tendon><fixed name="t" range="-1 1"><joint joint="h" coef="2"/></fixed></tendon>
<actuator><motor name="m" joint="h"/></actuator>
<sensor>
<touch site="s1"/><accelerometer site="s1"/><velocimeter site="s1" noise="0.1" cutoff="3"/><gyro site="s1"/><force site="s1"/><torque site="s1"/><magnetometer site="s1"/><rangefinder site="s1"/>
<jointpos joint="h"/><jointvel joint="h"/><tendonpos tendon="t"/><tendonvel tendon="t"/><actuatorpos actuator="m"/><actuatorvel actuator="m"/><actuatorfrc actuator="m"/><jointactuatorfrc joint="h"/>
<ballquat joint="bj"/><ballangvel joint="bj"/><jointlimitpos joint="h"/><jointlimitvel joint="h"/><jointlimitfrc joint="h"/>
<tendonlimitpos tendon="t"/><tendonlimitvel tendon="t"/><tendonlimitfrc tendon="t"/>
<framepos objtype="body" objname="b"/><framequat objtype="xbody" objname="b" reftype="site" refname="s1"/><framexaxis objtype="geom" objname="g"/><frameyaxis objtype="site" objname="s1"/><framezaxis objtype="body" objname="a" reftype="geom" refname="g"/>
<framelinvel objtype="body" objname="a"/><frameangvel objtype="body" objname="a"/><framelinacc objtype="body" objname="a"/><frameangacc objtype="body" objname="a"/>
<subtreecom body="a"/><subtreelinvel body="a"/><subtreeangmom body="a"/><clock/>
</sensor></mujoco>""")

case("options", """<mujoco><option timestep="0.005" gravity="0 0 -1" wind="1 2 3" magnetic="0 1 0" density="1.2" viscosity="0.1"
 integrator="implicitfast" solver="CG" cone="elliptic" jacobian="sparse" impratio="10" iterations="20" tolerance="1e-10"
 ls_iterations="7" ls_tolerance="0.1" noslip_iterations="3" noslip_tolerance="1e-5" o_margin="0.1" o_solref="0.1 2"
 o_solimp="0.8 0.9 0.01 0.4 3" o_friction="2 2 0.1 0.2 0.3" ccd_iterations="5" ccd_tolerance="1e-3">
 <flag gravity="disable" contact="disable" energy="enable" island="disable" warmstart="enable" override="enable" multiccd="disable"/></option>
 <size memory="1M"/><visual><global offwidth="100"/></visual><statistic meansize="1"/>
 <worldbody><light pos="0 0 1"/><camera name="c" pos="1 1 1"/><body><joint/><geom size="0.1" material="mat" rgba="1 0 0 1"/></body></worldbody>
 <asset><texture name="t" type="2d" builtin="checker" width="10" height="10"/><material name="mat" texture="t"/></asset>
</mujoco>""")

case("include", """<mujoco><include file="inc/part.xml"/><worldbody><body><joint/><include file="geom.xml"/></body></worldbody></mujoco>""",
     files={"inc/part.xml": b"<mujoco><option timestep='0.01'/><default><geom size='0.3'/></default></mujoco>",
            "geom.xml": b"<mujoco><geom type='sphere'/></mujoco>"})

case("inverted_ranges", """<mujoco><worldbody><body><joint name="j" range="1 -1"/><geom size="1"/></body></worldbody>
 <tendon><fixed range="1 -1"><joint joint="j" coef="1"/></fixed></tendon><actuator><motor joint="j" ctrlrange="1 -1"/></actuator></mujoco>""")

case("autolimits_off", """<mujoco><compiler autolimits="false"/><worldbody>
 <body><joint range="-1 1" limited="true"/><joint type="slide" range="0 1" limited="false"/><geom size="0.1"/></body></worldbody>
 <actuator><motor joint="j" ctrlrange="-1 1" ctrllimited="true"/></actuator></mujoco>""".replace('<joint range="-1 1"', '<joint name="j" range="-1 1"'))

# inputs MuJoCo rejects
for i, bad in enumerate([
    '<mujoco><worldbody><body><joint type="spiral"/><geom size="1"/></body></worldbody></mujoco>',
    '<mujoco><worldbody><geom size="abc"/></worldbody></mujoco>',
    '<mujoco><worldbody><geom size="1" pos="1 2"/></worldbody></mujoco>',
    '<mujoco><worldbody><geom size="1" bogus="1"/></worldbody></mujoco>',
    '<mujoco><worldbody><bogus/></worldbody></mujoco>',
    '<mujoco><worldbody><body name="a"/><body name="a"/></worldbody></mujoco>',
    '<mujoco><worldbody><body><joint name="j"/><geom size="1"/></body></worldbody><actuator><motor joint="q"/></actuator></mujoco>',
    '<mujoco><worldbody><body><inertial pos="0 0 0" mass="-1" diaginertia="1 1 1"/><joint/></body></worldbody></mujoco>',
    '<mujoco><worldbody><body><joint/></body></worldbody></mujoco>',
    '<mujoco><worldbody><body><inertial pos="0 0 0" mass="1" fullinertia="1 1 1 0 0 0" euler="1 2 3"/><joint/></body></worldbody></mujoco>',
    '<mujoco><include file="missing.xml"/></mujoco>',
    '<mujoco><worldbody><body><geom size="1"/></body></worldbody><keyframe><key qpos="1"/></keyframe></mujoco>',
    '<mujoco><worldbody><body><geom size="1"/>',
    '<mujoco><worldbody><geom type="mesh" mesh="nomesh"/></worldbody></mujoco>',
    '<mujoco><worldbody><body><joint/><geom class="nope" size="1"/></body></worldbody></mujoco>',
    '<mujoco><worldbody><body><joint/><geom size="1"/></body></worldbody><actuator><motor joint="x" ctrlrange="1 -1"/></actuator></mujoco>',
    PARTIAL % '<key name="a"/><key name="b" qpos="1 2 3 4 5 6 7 8 9"/>',
    PARTIAL % '<key name="k" act="1 2 3"/>',
    PARTIAL % '<key qvel="1 2 3 4 5 6 7 8"/>',
    PARTIAL % '<key ctrl="1 2 3 4"/>',
    PARTIAL % '<key name="a"/><key mpos="1 2 3 4 5 6 7"/>',
    PARTIAL % '<key mquat="1 0 0 0 1 0 0 0 1"/>',
]):
    case("error_%d" % i, bad, error=True)


def tolist(x):
    a = np.asarray(x)
    if a.dtype == object:
        return None
    return [float(v) for v in a.reshape(-1)]


out = []
for c in CASES:
    assets = {k: v for k, v in c["files"].items()}
    entry = dict(name=c["name"], xml=c["xml"], files={k: v.hex() for k, v in c["files"].items()})
    try:
        m = mujoco.MjModel.from_xml_string(c["xml"], assets)
    except Exception as e:
        if not c["error"]:
            print("unexpected error in", c["name"], e, file=sys.stderr)
            sys.exit(1)
        entry["error"] = str(e)
        out.append(entry)
        continue
    if c["error"]:
        print("expected error did not happen:", c["name"], file=sys.stderr)
        sys.exit(1)
    f = {}
    for k in FIELDS:
        v = getattr(m, k)
        if k == "eq_data":
            v = np.asarray(v)[:, :11]
        f[k] = tolist(v)
    for k in OPT:
        f["opt." + k] = tolist(getattr(m.opt, k))
    f["key_qpos"] = tolist(m.key_qpos)
    out.append(dict(entry, fields=f))

json.dump(dict(mujoco=mujoco.__version__, cases=out), open("tests/reference/mjcf_cases.json", "w"), indent=None)
print("wrote", len(out), "cases")
