"""`moreau.jax.step`: values, batching, jit/vmap, and gradients through contact against central
differences of rollout losses (diffcases.py)."""

import numpy as np
import pytest

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # the extra is part of the test setup: missing is a failure
    raise ImportError("test_jax.py needs JAX: pip install ./python[jax]") from e

jax.config.update("jax_enable_x64", True)

import moreau  # noqa: E402
import moreau.jax as mjax  # noqa: E402
from diffcases import (ball_loss, ball_push, check_gradient, rollout_np,  # noqa: E402
                       sliding_cube)


def test_step_equals_mj_step():
    m, x0, us = ball_push()
    d = moreau.MjData(m)
    nq, nv = m.nq, m.nv
    d.qpos[:], d.qvel[:], d.ctrl[:] = x0[:nq], x0[nq:nq + nv], us[0]
    moreau.mj_step(m, d)
    x1 = np.asarray(mjax.step(m, jnp.asarray(x0), jnp.asarray(us[0])))
    np.testing.assert_array_equal(x1, np.concatenate([d.qpos, d.qvel, d.act]))


def test_gradient_wrt_controls_through_contact():
    m, x0, us = ball_push()

    def loss(u):
        return ball_loss(mjax.rollout(m, jnp.asarray(x0), u)[-1])

    g = jax.grad(loss)(jnp.asarray(us))
    assert np.abs(np.asarray(g)).max() > 0
    check_gradient(g, lambda u: ball_loss(rollout_np(m, x0, u)), us)


def test_gradient_wrt_free_body_state_through_contact():
    m, x0, w, steps = sliding_cube()
    zero = jnp.zeros((steps, 0))

    def loss(x):
        return jnp.asarray(w) @ mjax.rollout(m, x, zero)[-1]

    g = jax.grad(loss)(jnp.asarray(x0))
    check_gradient(g, lambda x: w @ rollout_np(m, x, np.zeros((steps, 0))), x0)


def test_batch_vmap_jit():
    m, x0, us = ball_push()
    xb = jnp.stack([jnp.asarray(x0), jnp.asarray(x0) + 1e-3])
    ub = jnp.asarray([[1.0], [2.0]])
    batched = mjax.step(m, xb, ub)
    for k in range(2):
        single = mjax.step(m, xb[k], ub[k])
        np.testing.assert_array_equal(batched[k], single)
    np.testing.assert_array_equal(jax.vmap(lambda x, u: mjax.step(m, x, u))(xb, ub), batched)
    np.testing.assert_array_equal(jax.jit(lambda x, u: mjax.step(m, x, u))(xb, ub), batched)
    # a shared control broadcasts over the batch, and its gradient sums over it
    gb = jax.grad(lambda u: mjax.step(m, xb, u)[:, 0].sum())(ub[0])
    g0 = jax.grad(lambda u: mjax.step(m, xb[0], u)[0])(ub[0])
    g1 = jax.grad(lambda u: mjax.step(m, xb[1], u)[0])(ub[0])
    np.testing.assert_allclose(gb, g0 + g1, rtol=1e-14)


def test_bad_input():
    m, x0, us = ball_push()
    with pytest.raises(TypeError, match="nq \\+ nv \\+ na"):
        mjax.step(m, jnp.zeros(3), jnp.zeros(1))
    with pytest.raises(Exception, match="NaN"):
        mjax.step(m, jnp.full(x0.shape, jnp.nan), jnp.zeros(1)).block_until_ready()
