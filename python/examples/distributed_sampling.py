"""Predictive sampling with its candidates rolled out on a Ray cluster (moreau.distributed).

The cart-pole starts with its pole 0.4 rad from upright. At every control step the planner
perturbs its nominal plan (40 steps of controls) with Gaussian noise into 32 candidates
(the nominal is candidate 0), rolls them all out from the current state on the cluster's
workers in chunks, keeps the cheapest as the new nominal and applies its first control.
The candidates' rollouts are bit-identical to `moreau.rollout.rollout` on one machine.

    python3 python/examples/distributed_sampling.py [--address ray://... | auto]

Without --address a local cluster (a head and two worker nodes) is started and stopped.
"""

import argparse
import pathlib

import numpy as np

import moreau
from moreau import distributed

MODEL = pathlib.Path(__file__).resolve().parents[2] / "models" / "cartpole_swingup.xml"
SPEC = int(moreau.mjtState.mjSTATE_FULLPHYSICS)


def costs(state, ctrl):
    """Per candidate: Σ over the horizon of angle², 0.1 x², 0.01 (velocities²) and 1e-3 u²
    (state rows are mjSTATE_FULLPHYSICS: time, qpos, qvel, ...)."""
    x, th = state[:, :, 1], state[:, :, 2]
    v = state[:, :, 3:5]
    return (th**2 + 0.1 * x**2 + 0.01 * (v**2).sum(-1)).sum(1) + 1e-3 * (ctrl**2).sum((1, 2))


def plan(model, x0, nominal, rng, ncand, sigma, chunk):
    """One planning iteration from state x0: the candidates, their costs, the best index."""
    cand = nominal[None] + sigma * rng.standard_normal((ncand,) + nominal.shape)
    cand[0] = nominal
    state, _ = distributed.rollout(model, x0, cand, chunk=chunk)
    c = costs(state, cand)
    return cand, c, int(np.argmin(c))


def run(nsteps=50, horizon=40, ncand=32, sigma=2.0, chunk=8, seed=0):
    model = distributed.Model.from_xml_path(str(MODEL))
    m = model.compile()
    d = moreau.MjData(m)
    d.qpos[1] = 0.4
    rng = np.random.default_rng(seed)
    nominal = np.zeros((horizon, m.nu))
    x0 = np.zeros(moreau.mj_stateSize(m, SPEC))
    angles, first = [float(d.qpos[1])], None
    for k in range(nsteps):
        moreau.mj_getState(m, d, x0, SPEC)
        cand, c, best = plan(model, x0, nominal, rng, ncand, sigma, chunk)
        if first is None:
            first = (x0.copy(), cand, c)
        d.ctrl[:] = cand[best, 0]
        moreau.mj_step(m, d)
        nominal = np.concatenate([cand[best, 1:], cand[best, -1:]])
        angles.append(float(d.qpos[1]))
    return m, angles, first


def main(address=None, **kw):
    with distributed.cluster(address, workers=2):
        m, angles, first = run(**kw)
    print(f"pole angle {angles[0]:.3f} -> {angles[-1]:.4f} rad after {len(angles) - 1} steps")
    return m, angles, first


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", default=None)
    main(ap.parse_args().address)
