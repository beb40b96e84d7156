"""A MuJoCo tutorial-style script, run twice, text unchanged: once with `import mujoco` and once
with `import moreau as mujoco` (load, reset to a keyframe, set controls, step, read `qpos` and
named fields, `mjd_transitionFD`, a Jacobian, the state round trip). Its outputs must agree to the
Rust tests' tolerances: 1e-8 after steps through the constraint solver, 1e-6 of each matrix's
scale for the finite-difference Jacobians (same scheme and step as MuJoCo's)."""

import numpy as np

from conftest import MODELS, TOL_SOLVE, rel_err

SCRIPT = '''
import numpy as np
import {module} as mujoco

m = mujoco.MjModel.from_xml_path({path!r})
d = mujoco.MjData(m)
mujoco.mj_resetDataKeyframe(m, d, 0)
d.ctrl[:] = 0.1
mujoco.mj_step(m, d, 20)
for _ in range(5):
    d.ctrl[:] = -0.05
    mujoco.mj_step(m, d)
out["time"] = d.time
out["qpos"] = d.qpos.copy()
out["qvel"] = d.qvel.copy()
out["torso_xpos"] = d.body("torso").xpos.copy()
out["ncon"] = d.ncon

jacp = np.zeros((3, m.nv))
jacr = np.zeros((3, m.nv))
mujoco.mj_jacBody(m, d, jacp, jacr, mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "torso"))
out["jacp"], out["jacr"] = jacp, jacr

nx = 2 * m.nv + m.na
A, B = np.zeros((nx, nx)), np.zeros((nx, m.nu))
mujoco.mjd_transitionFD(m, d, 1e-6, True, A, B, None, None)
out["A"], out["B"] = A, B

spec = mujoco.mjtState.mjSTATE_INTEGRATION
state = np.zeros(mujoco.mj_stateSize(m, spec))
mujoco.mj_getState(m, d, state, spec)
mujoco.mj_step(m, d, 10)
mujoco.mj_setState(m, d, state, spec)
mujoco.mj_forward(m, d)
out["qpos_restored"] = d.qpos.copy()
out["qacc"] = d.qacc.copy()
'''


def run(module, path):
    out = {}
    exec(SCRIPT.format(module=module, path=path), {"out": out})
    return out


def test_tutorial_script_gives_mujocos_numbers():
    path = str(MODELS / "humanoid.xml")
    ref, got = run("mujoco", path), run("moreau", path)
    assert got["ncon"] == ref["ncon"] and ref["ncon"] > 0, (got["ncon"], ref["ncon"])
    assert got["time"] == ref["time"]
    for key in ["qpos", "qvel", "torso_xpos", "jacp", "jacr", "qpos_restored", "qacc"]:
        assert rel_err(got[key], ref[key]) <= TOL_SOLVE, f"{key}: {rel_err(got[key], ref[key]):.1e}"
    for key in ["A", "B"]:
        scale = max(1.0, float(np.abs(ref[key]).max()))
        e = float(np.abs(got[key] - ref[key]).max()) / scale
        assert e <= 1e-6, f"{key}: {e:.1e} of its scale"
