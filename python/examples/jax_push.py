"""Open-loop control by gradient descent through contact with `moreau.jax` (common.py has the
task). Run: python python/examples/jax_push.py (needs `pip install ./python[jax]`)."""

import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

import moreau.jax as mjax  # noqa: E402
from common import HORIZON, TARGET, loss_terms, setup  # noqa: E402


def main(iterations=100, lr=0.2):
    m, x0 = setup()
    x0 = jnp.asarray(x0)

    def loss(us):
        xs = mjax.rollout(m, x0, us)
        return loss_terms(xs, us, jnp)

    value_and_grad = jax.jit(jax.value_and_grad(loss))
    us = jnp.full((HORIZON, m.nu), 1.0)
    # Adam
    mom, vel = jnp.zeros_like(us), jnp.zeros_like(us)
    for k in range(1, iterations + 1):
        f, g = value_and_grad(us)
        mom = 0.9 * mom + 0.1 * g
        vel = 0.999 * vel + 0.001 * g**2
        us = us - lr * (mom / (1 - 0.9**k)) / (jnp.sqrt(vel / (1 - 0.999**k)) + 1e-8)
        if k == 1 or k % 20 == 0:
            print(f"iteration {k:4d}  loss {float(f):.6f}  |grad| {float(jnp.linalg.norm(g)):.3e}")
    xs = mjax.rollout(m, x0, us)
    print(f"ball x {float(xs[-1, 0]):.5f} (target {TARGET})")
    return float(loss(us)), xs


if __name__ == "__main__":
    main()
