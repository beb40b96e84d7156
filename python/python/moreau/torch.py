"""A differentiable moreau step for PyTorch (`pip install ./python[torch]`).

`step(m, x, u)` advances the state `x = (qpos, qvel, act)` (`nq + nv + na` numbers, MuJoCo's
`mjSTATE_PHYSICS` layout) by one `mj_step` under the controls `u` (`nu`), from a reset data
(zero applied forces and warm start), and returns the next state. It is a
`torch.autograd.Function`: its gradients are moreau's analytic transition Jacobians, exact
through soft contact, mapped from the joints' tangent space to the coordinates of `qpos`
(quaternions included). Leading dimensions are a batch (`x` of shape `(..., nx)`, `u` of shape
`(..., nu)`), which moreau steps on all cores. `rollout(m, x0, us)` loops `step` over a
control sequence.

The step runs on the CPU in float64; tensors on other devices or of other floating dtypes are
converted and the result is returned on the input's device and dtype.
"""

import numpy as np
import torch

from moreau import _moreau

__all__ = ["step", "rollout", "state_size"]


def state_size(m):
    """The size of the state `x = (qpos, qvel, act)`: `nq + nv + na`."""
    return m.nq + m.nv + m.na


def _unbroadcast(g, shape):
    extra = g.dim() - len(shape)
    if extra > 0:
        g = g.sum(dim=tuple(range(extra)))
    dims = tuple(i for i, (a, b) in enumerate(zip(g.shape, shape)) if b == 1 and a != 1)
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    return g


class Step(torch.autograd.Function):
    """`x' = step(m, x, u)` with the analytic transition Jacobians as its derivative."""

    @staticmethod
    def forward(ctx, m, x, u):
        nx, nu = state_size(m), m.nu
        batch = torch.broadcast_shapes(x.shape[:-1], u.shape[:-1])
        n = int(np.prod(tuple(batch), dtype=np.int64))
        xb = np.ascontiguousarray(
            x.detach().to("cpu", torch.float64).expand(batch + (nx,)).reshape(n, nx).numpy()
        )
        ub = np.ascontiguousarray(
            u.detach().to("cpu", torch.float64).expand(batch + (nu,)).reshape(n, nu).numpy()
        )
        need = ctx.needs_input_grad[1] or ctx.needs_input_grad[2]
        out = _moreau._step(m, xb, ub, "analytic" if need else None)
        if need:
            xn, jx, ju = out
            ctx.save_for_backward(
                torch.from_numpy(jx).reshape(batch + (nx, nx)).to(x.device, x.dtype),
                torch.from_numpy(ju).reshape(batch + (nx, nu)).to(x.device, x.dtype),
            )
        else:
            xn = out
        ctx.shapes = (x.shape, u.shape)
        return torch.from_numpy(xn).reshape(batch + (nx,)).to(x.device, x.dtype)

    @staticmethod
    def backward(ctx, g):
        jx, ju = ctx.saved_tensors
        xshape, ushape = ctx.shapes
        gx = gu = None
        if ctx.needs_input_grad[1]:
            gx = _unbroadcast(torch.einsum("...i,...ij->...j", g, jx), xshape)
        if ctx.needs_input_grad[2]:
            gu = _unbroadcast(torch.einsum("...i,...ij->...j", g, ju), ushape)
        return None, gx, gu


def step(m, x, u):
    """One `mj_step` from state `x = (qpos, qvel, act)` under controls `u`; differentiable.

    `x`: `(..., nq + nv + na)`; `u`: `(..., nu)`; leading dimensions broadcast and form a batch.
    Returns the next state with the batch shape. Gradients: the analytic transition Jacobians.
    """
    x = torch.as_tensor(x)
    if not torch.is_floating_point(x):
        x = x.to(torch.float64)
    u = torch.as_tensor(u).to(x.dtype)
    if x.shape[-1:] != (state_size(m),):
        raise TypeError(f"x must end in nq + nv + na = {state_size(m)} entries, got shape {tuple(x.shape)}")
    if u.shape[-1:] != (m.nu,):
        raise TypeError(f"u must end in nu = {m.nu} entries, got shape {tuple(u.shape)}")
    return Step.apply(m, x, u)


def rollout(m, x0, us):
    """States after each control of `us` (`(T, ..., nu)`) from `x0`: returns `(T, ..., nx)`."""
    xs = []
    x = torch.as_tensor(x0)
    for u in us:
        x = step(m, x, u)
        xs.append(x)
    return torch.stack(xs)
