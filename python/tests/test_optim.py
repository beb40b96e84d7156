"""`moreau.optim`: the optimizers run from Python, their results checked independently (the
engine re-simulating the plans, known parameters recovered from exact data)."""

import numpy as np
import pytest

import moreau
from conftest import model_path


def test_contact_trajopt_hopper():
    seen = []
    # from iLQR's solution (from its own guess the hopper stalls, not converged)
    r = moreau.optim.contact_trajopt("hopper", callback=seen.append, warm_ilqr=300)
    assert r.converged, r.termination
    assert r.qpos.shape == (61, 5) and r.ctrl.shape == (60, 2)
    assert r.max_defect <= 1e-3  # the problem's defect tolerance (N)
    assert abs(r.qpos[-1, 0] - r.qpos[0, 0] - 0.15) < 1e-2  # hopped 0.15 m forward
    assert len(seen) == r.iterations and seen[-1]["iteration"] == r.iterations - 1
    # the engine's open-loop replay of the planned controls is returned and measured
    assert r.replay_qpos.shape == r.qpos.shape
    assert r.replay_error == pytest.approx(np.abs(r.replay_qpos - r.qpos).max())


def test_callback_stops_the_solve():
    def stop(info):
        if info["iteration"] >= 2:
            raise KeyboardInterrupt("enough")

    with pytest.raises(KeyboardInterrupt, match="enough"):
        moreau.optim.contact_trajopt("ball", callback=stop)
    with pytest.raises(ValueError, match="unknown problem"):
        moreau.optim.contact_trajopt("kite")


def swingup():
    m = moreau.MjModel.from_xml_path(model_path("cartpole_swingup"))
    x0 = np.array([0.0, np.pi, 0.0, 0.0])
    xref = np.zeros(4)
    return m, x0, xref


def test_ilqr_swingup_plan_replays_on_the_engine():
    m, x0, xref = swingup()
    T = 200
    r = moreau.optim.ilqr(m, x0, np.zeros((T, m.nu)), xref, Q=[1, 1, 0.1, 0.1], R=[0.01],
                          Qf=[1000, 1000, 100, 100], max_iter=100)
    assert r.xs.shape == (T + 1, 4) and r.us.shape == (T, 1) and r.gains.shape == (T, 1, 4)
    assert r.cost_history[-1] < 0.01 * r.cost_history[0]
    assert abs(np.cos(r.xs[-1, 1]) - 1.0) < 1e-2  # the pole is up
    d = moreau.MjData(m)
    d.qpos[:] = x0[:2]
    for t in range(T):
        d.ctrl[:] = r.us[t]
        moreau.mj_step(m, d)
        np.testing.assert_allclose(np.r_[d.qpos, d.qvel], r.xs[t + 1], rtol=0, atol=1e-12)


def test_mpc_and_sampling_respect_ctrlrange():
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))  # ctrlrange -1 1
    xref = np.zeros(4)
    lo, hi = m.actuator_ctrlrange[0]
    assert m.actuator_ctrllimited[0] and (lo, hi) == (-1, 1)
    mpc = moreau.optim.Mpc(m, xref, Q=[1, 1, 0.1, 0.1], R=[0.01], Qf=[100, 100, 10, 10], horizon=50)
    ps = moreau.optim.PredictiveSampling(m, xref, q=[1, 1, 0.1, 0.1], r=[0.01], rollouts=16, steps=50)
    d = moreau.MjData(m)
    d.qpos[:] = [0.0, np.pi - 0.3]
    for _ in range(5):
        x = np.r_[d.qpos, d.qvel]
        u = mpc.step(x)
        assert lo - 1e-12 <= u[0] <= hi + 1e-12
        u2, c = ps.control(d)
        assert lo <= u2[0] <= hi and np.isfinite(c)
        d.ctrl[:] = u
        moreau.mj_step(m, d)
    xs, us = mpc.plan
    assert xs.shape == (51, 4) and us.shape == (50, 1) and mpc.fallbacks == 0


def test_sysid_recovers_masses_and_damping():
    path = model_path("cartpole_swingup")
    truth = moreau.MjModel.from_xml_path(path)
    nominal = moreau.MjModel.from_xml_path(path)
    truth.body("cart").mass = 1.3
    truth.dof_damping[:] = [0.4, 0.02]
    moreau.mj_setConst(truth, moreau.MjData(truth))
    u = moreau.optim.excitation(truth.nu, 400, sigma=2.0, hold=10, seed=3)
    rec = moreau.optim.record(truth, u)
    assert len(rec) == 400 and rec.qacc.shape == (400, 2)
    params = [("inertial", "cart", 0), ("damping", 0), ("damping", 1)]
    est = moreau.optim.identify(nominal, rec, params)
    assert est.rank == 3
    np.testing.assert_allclose(est.estimate, [1.3, 0.4, 0.02], rtol=1e-6)
    fitted = est.apply(nominal)
    assert fitted.dof_damping[0] == pytest.approx(0.4, rel=1e-6)
    # one parameter vector from several logs (other starts and controls), on 1, 2, 3 threads
    logs = [moreau.optim.record(truth, moreau.optim.excitation(truth.nu, 80, 2.0, 10, seed=s),
                                q_offset=[0.1 * s, 0.2 * s]) for s in (4, 5, 6)]
    fits = [moreau.optim.identify(nominal, logs, params, threads=n) for n in (1, 2, 3)]
    assert fits[0].rank == 3
    np.testing.assert_allclose(fits[0].estimate, [1.3, 0.4, 0.02], rtol=1e-6)
    for f in fits[1:]:
        assert np.array_equal(np.asarray(f.estimate), np.asarray(fits[0].estimate))
    with pytest.raises(ValueError, match="no recording"):
        moreau.optim.identify(nominal, [], params)
