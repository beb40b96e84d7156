"""Open-loop control by gradient descent through contact with `moreau.torch` (common.py has the
task). Run: python python/examples/torch_push.py (needs `pip install ./python[torch]`)."""

import torch

import moreau.torch as mtorch
from common import HORIZON, TARGET, loss_terms, setup


def main(iterations=100, lr=0.2):
    m, x0 = setup()
    x0 = torch.from_numpy(x0)
    us = torch.full((HORIZON, m.nu), 1.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([us], lr=lr)
    for k in range(1, iterations + 1):
        opt.zero_grad()
        xs = mtorch.rollout(m, x0, us)
        f = loss_terms(xs, us, torch)
        f.backward()
        if k == 1 or k % 20 == 0:
            print(f"iteration {k:4d}  loss {f.item():.6f}  |grad| {us.grad.norm().item():.3e}")
        opt.step()
    with torch.no_grad():
        xs = mtorch.rollout(m, x0, us)
        final = loss_terms(xs, us, torch).item()
    print(f"ball x {xs[-1, 0].item():.5f} (target {TARGET})")
    return final, xs


if __name__ == "__main__":
    main()
