"""Cases for the differentiable-step tests (test_jax.py, test_torch.py): rollout losses through
contact and their central finite differences computed with moreau's plain (non-differentiable)
batched step, independently of the JAX and PyTorch wrappers.

Tolerance: the wrapper's gradient against central differences at the best of the steps 1e-4 …
1e-7, relative to the largest gradient entry: 1e-6 (measured: 4e-10 for the ball push, 1.6e-9
for the sliding cube)."""

import numpy as np

import moreau
from conftest import model_path

TOL_GRAD = 1e-6
EPS = (1e-4, 1e-5, 1e-6, 1e-7)


def ball_push():
    """The finger touching the ball on the floor (ball_push.xml after settling): 40 steps of a
    constant push; loss: the ball's distance from x = 0.3 plus its x velocity."""
    m = moreau.MjModel.from_xml_path(model_path("ball_push"))
    d = moreau.MjData(m)
    d.qpos[3] = -1.0
    moreau.mj_step(m, d, 100)
    d.qpos[3] = 0.0
    d.qvel[:] = 0.0
    moreau.mj_forward(m, d)
    assert d.ncon == 2  # finger-ball and ball-floor
    x0 = np.concatenate([d.qpos, d.qvel, d.act])
    us = np.full((40, m.nu), 2.0)
    return m, x0, us


def ball_loss(x):
    return (x[..., 0] - 0.3) ** 2 + 0.1 * x[..., 4] ** 2


def sliding_cube():
    """A cube sliding and spinning on the floor (four contacts, free joint with a rotated
    quaternion); loss: a fixed random weighting of the state after 30 steps."""
    m = moreau.MjModel.from_xml_path(model_path("cube_slide"))
    d = moreau.MjData(m)
    d.qvel[:] = [0.5, 0.2, 0.0, 0.0, 0.0, 1.0]
    d.qpos[3:7] = [np.cos(0.1), 0.0, 0.0, np.sin(0.1)]
    moreau.mj_step(m, d, 5)
    assert d.ncon == 4
    x0 = np.concatenate([d.qpos, d.qvel, d.act])
    w = np.random.default_rng(0).standard_normal(x0.size)
    return m, x0, w, 30


def rollout_np(m, x0, us):
    x = np.asarray(x0, dtype=float)[None].copy()
    for u in us:
        x = moreau._moreau._step(m, x, np.asarray(u, dtype=float).reshape(1, m.nu))
    return x[0]


def fd_grad(f, z, eps):
    g = np.zeros_like(z)
    for i in np.ndindex(z.shape):
        zp, zm = z.copy(), z.copy()
        zp[i] += eps
        zm[i] -= eps
        g[i] = (f(zp) - f(zm)) / (2 * eps)
    return g


def check_gradient(g, f, z):
    """`g` against central differences of `f` at `z` (best step)."""
    g = np.asarray(g, dtype=float)
    errs = []
    for eps in EPS:
        fd = fd_grad(f, z, eps)
        errs.append(np.abs(g - fd).max() / np.abs(fd).max())
    assert min(errs) <= TOL_GRAD, f"gradient vs central differences: {['%.1e' % e for e in errs]}"
