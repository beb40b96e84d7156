"""`moreau.torch.step`: values, batching, and gradients through contact against central
differences of rollout losses (diffcases.py)."""

import numpy as np
import pytest

try:
    import torch
except ImportError as e:  # the extra is part of the test setup: missing is a failure
    raise ImportError("test_torch.py needs PyTorch: pip install ./python[torch]") from e

import moreau  # noqa: E402
import moreau.torch as mtorch  # noqa: E402
from diffcases import (ball_loss, ball_push, check_gradient, rollout_np,  # noqa: E402
                       sliding_cube)


def test_step_equals_mj_step():
    m, x0, us = ball_push()
    d = moreau.MjData(m)
    nq, nv = m.nq, m.nv
    d.qpos[:], d.qvel[:], d.ctrl[:] = x0[:nq], x0[nq:nq + nv], us[0]
    moreau.mj_step(m, d)
    x1 = mtorch.step(m, torch.from_numpy(x0), torch.from_numpy(us[0])).numpy()
    np.testing.assert_array_equal(x1, np.concatenate([d.qpos, d.qvel, d.act]))


def test_gradient_wrt_controls_through_contact():
    m, x0, us = ball_push()
    u = torch.tensor(us, requires_grad=True)
    ball_loss(mtorch.rollout(m, torch.from_numpy(x0), u)[-1]).backward()
    assert u.grad.abs().max() > 0
    check_gradient(u.grad.numpy(), lambda v: ball_loss(rollout_np(m, x0, v)), us)


def test_gradient_wrt_free_body_state_through_contact():
    m, x0, w, steps = sliding_cube()
    x = torch.tensor(x0, requires_grad=True)
    (torch.from_numpy(w) @ mtorch.rollout(m, x, torch.zeros(steps, 0, dtype=torch.float64))[-1]).backward()
    check_gradient(x.grad.numpy(), lambda z: w @ rollout_np(m, z, np.zeros((steps, 0))), x0)


def test_batch_and_gradcheck():
    m, x0, us = ball_push()
    xb = torch.stack([torch.from_numpy(x0), torch.from_numpy(x0) + 1e-3])
    ub = torch.tensor([[1.0], [2.0]], dtype=torch.float64)
    batched = mtorch.step(m, xb, ub)
    for k in range(2):
        assert torch.equal(batched[k], mtorch.step(m, xb[k], ub[k]))
    # a shared control broadcasts over the batch, and its gradient sums over it
    u = ub[0].clone().requires_grad_(True)
    (gb,) = torch.autograd.grad(mtorch.step(m, xb, u)[:, 0].sum(), u)
    gs = [torch.autograd.grad(mtorch.step(m, xb[k], u)[0], u)[0] for k in range(2)]
    torch.testing.assert_close(gb, gs[0] + gs[1], rtol=1e-14, atol=0)
    x = torch.from_numpy(x0).clone().requires_grad_(True)
    v = ub[1].clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a, b: mtorch.step(m, a, b), (x, v), eps=1e-6, atol=1e-6)


def test_no_gradient_path_and_float32():
    m, x0, us = ball_push()
    x32 = torch.from_numpy(x0).float()
    out = mtorch.step(m, x32, torch.from_numpy(us[0]).float())
    assert out.dtype == torch.float32
    with pytest.raises(TypeError, match="nu"):
        mtorch.step(m, torch.from_numpy(x0), torch.zeros(3))
    with pytest.raises(RuntimeError, match="NaN"):
        mtorch.step(m, torch.full((x0.size,), float("nan"), dtype=torch.float64), torch.zeros(1, dtype=torch.float64))
