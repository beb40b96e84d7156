"""System identification over many logged trajectories on a Ray cluster (moreau.distributed).

The cart-pole's cart and pole masses are fitted to logs of 16 trajectories (random initial
states and controls, 150 steps each) simulated with the true masses (1.3 kg, 0.137 kg): the
simulation error of every trajectory is one rollout, the rollouts of one parameter value are
spread over the cluster's workers in chunks, and Gauss-Newton with forward-difference columns
(one distributed evaluation per parameter) fits the masses. Each model travels as MJCF text.

    python3 python/examples/distributed_sysid.py [--address ray://... | auto]

Without --address a local cluster (a head and two worker nodes) is started and stopped.
"""

import argparse
import pathlib
import re

import numpy as np

import moreau
from moreau import distributed
from moreau import rollout as mo_rollout

MODEL = pathlib.Path(__file__).resolve().parents[2] / "models" / "cartpole_swingup.xml"
TRUTH = np.array([1.3, 0.137])  # cart mass, pole mass
START = np.array([1.0, 0.1])  # the file's masses
SPEC = int(moreau.mjtState.mjSTATE_FULLPHYSICS)


def xml_with(masses):
    """The model's MJCF with the cart's and the pole's geom masses set."""
    xml = MODEL.read_text()
    for name, value in zip(("cart", "pole"), masses):
        xml, n = re.subn(
            rf'(<geom name="{name}"[^>]*mass=")[^"]*(")', rf"\g<1>{float(value)!r}\g<2>", xml
        )
        assert n == 1, f"no geom {name} with a mass in {MODEL}"
    return xml


def logs(ntraj=16, nstep=150, seed=0):
    """Initial states, controls and the logged (qpos, qvel) of the true model."""
    rng = np.random.default_rng(seed)
    m = moreau.MjModel.from_xml_string(xml_with(TRUTH))
    d = moreau.MjData(m)
    x0 = np.zeros((ntraj, moreau.mj_stateSize(m, SPEC)))
    for r in range(ntraj):
        d.qpos[:] = [0.2 * rng.standard_normal(), np.pi + 0.5 * rng.standard_normal()]
        d.qvel[:] = 0.3 * rng.standard_normal(m.nv)
        moreau.mj_getState(m, d, x0[r], SPEC)
    ctrl = 2.0 * rng.standard_normal((ntraj, nstep, m.nu))
    state, _ = mo_rollout.rollout(m, moreau.MjData(m), x0, ctrl)
    return x0, ctrl, state[:, :, 1 : 1 + m.nq + m.nv]


def residual(masses, x0, ctrl, measured, chunk):
    """The simulation error of every trajectory under `masses`, rolled out on the cluster."""
    state, _ = distributed.rollout(distributed.Model(xml_with(masses)), x0, ctrl, chunk=chunk)
    return (state[:, :, 1 : 1 + measured.shape[2]] - measured).ravel()


def fit(x0, ctrl, measured, iterations=8, chunk=4):
    """Gauss-Newton from the file's masses; each residual is one distributed evaluation."""
    theta = START.copy()
    r = residual(theta, x0, ctrl, measured, chunk)
    history = [0.5 * r @ r]
    for _ in range(iterations):
        cols = []
        for j in range(theta.size):
            h = 1e-6 * max(abs(theta[j]), 0.1)
            tp = theta.copy()
            tp[j] += h
            cols.append((residual(tp, x0, ctrl, measured, chunk) - r) / h)
        jac = np.stack(cols, axis=1)
        step = np.linalg.lstsq(jac, -r, rcond=None)[0]
        theta = theta + step
        r = residual(theta, x0, ctrl, measured, chunk)
        history.append(0.5 * r @ r)
        if history[-1] <= 1e-24 * max(history[0], 1.0) or np.abs(step).max() < 1e-12:
            break
    return theta, history


def main(address=None):
    with distributed.cluster(address, workers=2):
        x0, ctrl, measured = logs()
        theta, history = fit(x0, ctrl, measured)
    print(f"masses {theta} (true {TRUTH}); cost {history[0]:.3e} -> {history[-1]:.3e}")
    return theta, history


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", default=None)
    main(ap.parse_args().address)
