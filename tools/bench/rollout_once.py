"""One rollout call of 8 rollouts x 40 steps (the inputs of tools/bench/rollout.py), by moreau
or MuJoCo, for callgrind: the rollout call's inclusive instruction count against the engine
step's (`mj_step` / `moreau::integrator::step`) is what the batching layer costs.

    valgrind --tool=callgrind --dump-instr=no --callgrind-out-file=cg.out \\
        python3 tools/bench/rollout_once.py moreau humanoid
    callgrind_annotate --inclusive=yes cg.out | grep -E 'pymethod_rollout|integrator::step|mj_step'
"""

import sys

import mujoco
import mujoco.rollout
import numpy as np

import moreau
import moreau.rollout
from rollout import MODELS, inputs

engine, name = sys.argv[1], sys.argv[2]
mj = mujoco.MjModel.from_xml_path(str(MODELS[name]))
x0, ctrl = inputs(mj, 8, 40, np.random.default_rng(0))
if engine == "moreau":
    mo = moreau.MjModel.from_xml_path(str(MODELS[name]))
    moreau.rollout.rollout(mo, moreau.MjData(mo), x0, ctrl)
else:
    mujoco.rollout.rollout(mj, mujoco.MjData(mj), x0, ctrl)
