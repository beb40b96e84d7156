"""Why the contact-collocation example pushes a rolling ball, not a sliding box (see
`moreau_problems::ball_push`): in MuJoCo 4.0.0 a box pushed across the floor with the
default soft contacts (solref 0.02 1, default solimp) leaves and re-touches the floor at almost
every step while it slides — the active pyramid edge's reference acceleration contains
b·μ·v_t, which lifts the box. Prints the range of the box height while a PD-driven finger
pushes it 0.2 m in 0.6 s, for dt 0.01/0.005/0.002 and both cones.

Run: python3 tools/bench/box_slide_chatter.py  (needs mujoco==4.0.0)
"""
import mujoco

XML = """
<mujoco model="box_push">
  <option timestep="{dt}" integrator="Euler" cone="{cone}"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 1 0.1" friction="0.5 0.005 0.0001"
          contype="1" conaffinity="1"/>
    <body name="box" pos="0 0 0.1">
      <joint name="box_x" type="slide" axis="1 0 0"/>
      <joint name="box_z" type="slide" axis="0 0 1"/>
      <geom name="box" type="box" size="0.1 0.1 0.1" mass="1" friction="0.5 0.005 0.0001"
            contype="1" conaffinity="3"/>
    </body>
    <body name="finger" pos="-0.1495 0 0.1">
      <joint name="finger_x" type="slide" axis="1 0 0"/>
      <geom name="finger" type="sphere" size="0.05" mass="0.5" condim="1" priority="1"
            contype="2" conaffinity="2"/>
    </body>
  </worldbody>
  <actuator><motor joint="finger_x"/></actuator>
</mujoco>
"""


def smoothstep(x, a, b):
    s = min(max((x - a) / (b - a), 0.0), 1.0)
    return s * s * (3 - 2 * s)


for dt in (0.01, 0.005, 0.002):
    for cone in ("pyramidal", "elliptic"):
        m = mujoco.MjModel.from_xml_string(XML.format(dt=dt, cone=cone))
        d = mujoco.MjData(m)
        for _ in range(int(round(1 / dt))):
            d.ctrl[0] = 1.0
            mujoco.mj_step(m, d)
        d.qvel[:] = 0
        z0, x0 = d.qpos[1], d.qpos[2]
        steps = int(round(0.6 / dt))
        zs, lost = [], 0
        for t in range(steps):
            xref = x0 + 0.2 * smoothstep(t + 1, 0, 0.7 * steps)
            d.ctrl[0] = 1.0 + 400 * (xref - d.qpos[2]) - 40 * d.qvel[2]
            mujoco.mj_step(m, d)
            zs.append(d.qpos[1])
            lost += sum(1 for c in d.contact[: d.ncon] if c.geom1 == 0) == 0
        print(f"dt {dt:<6} {cone:<9} box z at rest {z0 * 1e3:+.4f} mm, while pushed "
              f"{min(zs) * 1e3:+.3f} … {max(zs) * 1e3:+.3f} mm, steps without floor contact "
              f"{lost}/{steps}")
