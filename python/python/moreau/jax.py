"""A differentiable moreau step for JAX (`pip install ./python[jax]`).

`step(m, x, u)` advances the state `x = (qpos, qvel, act)` (`nq + nv + na` numbers, MuJoCo's
`mjSTATE_PHYSICS` layout) by one `mj_step` under the controls `u` (`nu`), from a reset data
(zero applied forces and warm start), and returns the next state. It is a `jax.custom_vjp`:
its gradients are moreau's analytic transition Jacobians, exact through soft contact, mapped
from the joints' tangent space to the coordinates of `qpos` (quaternions included). Leading
dimensions are a batch (`x` of shape `(..., nx)`, `u` of shape `(..., nu)`), which moreau
steps on all cores. `rollout(m, x0, us)` scans `step` over a control sequence.

Enable 64-bit floats for results that match MuJoCo (`jax.config.update("jax_enable_x64",
True)`); with 32-bit inputs the step still runs in float64 and casts its results.

The step runs on the host through `jax.pure_callback`: it works under `jit`, `grad` and `vmap`
(on CPU); it is not traced into XLA.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

from moreau import _moreau

__all__ = ["step", "rollout", "state_size"]


def state_size(m):
    """The size of the state `x = (qpos, qvel, act)`: `nq + nv + na`."""
    return m.nq + m.nv + m.na


def _host_step(m, jacobian, x, u):
    x = np.asarray(x)
    u = np.asarray(u)
    nx, nu = state_size(m), m.nu
    batch = np.broadcast_shapes(x.shape[:-1], u.shape[:-1])
    n = int(np.prod(batch, dtype=np.int64))
    xb = np.ascontiguousarray(np.broadcast_to(x, batch + (nx,)).reshape(n, nx), np.float64)
    ub = np.ascontiguousarray(np.broadcast_to(u, batch + (nu,)).reshape(n, nu), np.float64)
    out = _moreau._step(m, xb, ub, jacobian)
    if jacobian is None:
        return out.reshape(batch + (nx,)).astype(x.dtype)
    xn, jx, ju = out
    return (
        xn.reshape(batch + (nx,)).astype(x.dtype),
        jx.reshape(batch + (nx, nx)).astype(x.dtype),
        ju.reshape(batch + (nx, nu)).astype(x.dtype),
    )


def _shapes(m, x, u, with_jac):
    nx, nu = state_size(m), m.nu
    batch = jnp.broadcast_shapes(x.shape[:-1], u.shape[:-1])
    xs = jax.ShapeDtypeStruct(batch + (nx,), x.dtype)
    if not with_jac:
        return xs
    return (
        xs,
        jax.ShapeDtypeStruct(batch + (nx, nx), x.dtype),
        jax.ShapeDtypeStruct(batch + (nx, nu), x.dtype),
    )


def _check(m, x, u):
    if x.shape[-1:] != (state_size(m),):
        raise TypeError(f"x must end in nq + nv + na = {state_size(m)} entries, got shape {x.shape}")
    if u.shape[-1:] != (m.nu,):
        raise TypeError(f"u must end in nu = {m.nu} entries, got shape {u.shape}")


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _step(m, x, u):
    return jax.pure_callback(
        functools.partial(_host_step, m, None),
        _shapes(m, x, u, False),
        x,
        u,
        vmap_method="broadcast_all",
    )


def _step_fwd(m, x, u):
    xn, jx, ju = jax.pure_callback(
        functools.partial(_host_step, m, "analytic"),
        _shapes(m, x, u, True),
        x,
        u,
        vmap_method="broadcast_all",
    )
    return xn, (jx, ju, x.shape, u.shape)


def _unbroadcast(g, shape):
    """Sums `g` over the batch dimensions that broadcasting added to an input of `shape`."""
    extra = g.ndim - len(shape)
    if extra > 0:
        g = g.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, (a, b) in enumerate(zip(g.shape, shape)) if b == 1 and a != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g


def _step_bwd(m, res, g):
    jx, ju, xshape, ushape = res
    gx = jnp.einsum("...i,...ij->...j", g, jx)
    gu = jnp.einsum("...i,...ij->...j", g, ju)
    return _unbroadcast(gx, xshape), _unbroadcast(gu, ushape)


_step.defvjp(_step_fwd, _step_bwd)


def step(m, x, u):
    """One `mj_step` from state `x = (qpos, qvel, act)` under controls `u`; differentiable.

    `x`: `(..., nq + nv + na)`; `u`: `(..., nu)`; leading dimensions broadcast and form a batch.
    Returns the next state with the batch shape. Gradients: the analytic transition Jacobians.
    """
    x = jnp.asarray(x)
    u = jnp.asarray(u, dtype=x.dtype)
    _check(m, x, u)
    return _step(m, x, u)


def rollout(m, x0, us):
    """States after each control of `us` (`(T, ..., nu)`) from `x0`, by `jax.lax.scan` over
    `step`: returns `(T, ..., nx)`."""

    def body(x, u):
        xn = step(m, x, u)
        return xn, xn

    _, xs = jax.lax.scan(body, jnp.asarray(x0), jnp.asarray(us))
    return xs
