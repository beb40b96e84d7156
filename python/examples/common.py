"""The task of the gradient-descent examples: models/ball_push.xml, a finger on a horizontal
slider pushing a ball that rolls on the floor. Starting at rest with the finger touching the
ball, find the 60 finger forces (0.6 s) that bring the ball to x = 0.4 m and stop it there;
every gradient flows through the finger-ball and ball-floor contacts."""

import pathlib

import numpy as np

import moreau

MODEL = pathlib.Path(__file__).resolve().parents[2] / "models" / "ball_push.xml"
HORIZON = 60
TARGET = 0.4


def setup():
    """The model and the start state x0 = (qpos, qvel, act): the ball settled on the floor
    with the finger away, then the finger brought back to touch it."""
    m = moreau.MjModel.from_xml_path(str(MODEL))
    d = moreau.MjData(m)
    d.qpos[3] = -1.0
    moreau.mj_step(m, d, 100)
    d.qpos[3] = 0.0
    d.qvel[:] = 0.0
    return m, np.concatenate([d.qpos, d.qvel, d.act])


def loss_terms(xs, us, np_like):
    """The final distance to the target, squared, plus a small control cost."""
    return 100.0 * (xs[-1][0] - TARGET) ** 2 + 1e-3 * np_like.sum(us**2) / HORIZON
