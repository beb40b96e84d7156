"""Every call that computes releases the GIL: Python threads run while moreau steps."""

import threading

import numpy as np
import pytest

import moreau
from conftest import model_path


def test_step_releases_the_gil():
    """While one thread is inside mj_step, another runs Python code: it sees the data
    borrowed by the step (reading it raises). With the GIL held for the whole call, it could
    only run before or after the step."""
    m = moreau.MjModel.from_xml_path(model_path("humanoids"))
    d = moreau.MjData(m)
    worker = threading.Thread(target=moreau.mj_step, args=(m, d, 3000))
    seen_inside = False
    worker.start()
    while worker.is_alive() and not seen_inside:
        try:
            d.time
        except RuntimeError:  # "Already mutably borrowed": the step holds the data
            seen_inside = True
    worker.join()
    assert seen_inside, "no Python code ran while mj_step was running"
    assert d.time == pytest.approx(3000 * m.opt.timestep)


def test_threads_step_separate_data_in_parallel():
    m = moreau.MjModel.from_xml_path(model_path("humanoid"))
    datas = [moreau.MjData(m) for _ in range(4)]
    for i, d in enumerate(datas):
        d.qvel[0] = 0.1 * i
    threads = [threading.Thread(target=moreau.mj_step, args=(m, d, 200)) for d in datas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ref = moreau.MjData(m)
    ref.qvel[0] = 0.1 * 3
    moreau.mj_step(m, ref, 200)
    np.testing.assert_array_equal(datas[3].qpos, ref.qpos)


def test_same_data_from_two_threads_is_refused_not_corrupted():
    m = moreau.MjModel.from_xml_path(model_path("humanoid"))
    d = moreau.MjData(m)
    errors = []

    def run():
        try:
            moreau.mj_step(m, d, 300)
        except RuntimeError as e:  # "Already borrowed"
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert np.isfinite(d.qpos).all()
    # each step adds the timestep to `time` (MuJoCo's `mj_step`), so the expected clocks are
    # those sums, not 300·h and 600·h (600 additions of 0.005 give 2.9999999999999583)
    t300 = 0.0
    for _ in range(300):
        t300 += m.opt.timestep
    t600 = t300
    for _ in range(300):
        t600 += m.opt.timestep
    if errors:
        # one call was refused before it stepped; the other ran its 300 steps
        assert len(errors) == 1 and d.time == t300, (errors, d.time)
    else:
        # the two calls ran one after the other
        assert d.time == t600, d.time


def test_optimizers_on_threads_are_bit_identical():
    """moreau.set_threads / threads=: MPC's knot Jacobians (FD and analytic), iLQR and
    predictive sampling's candidates on 1, 2 and 3 threads give the same controls bit for bit;
    the default is every CPU."""
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    xref = np.zeros(4)
    w = dict(Q=[1, 1, 0.1, 0.1], R=[0.01], Qf=[100, 100, 10, 10])

    def mpc_controls(**kw):
        mpc = moreau.optim.Mpc(m, xref, horizon=40, **w, **kw)
        d = moreau.MjData(m)
        d.qpos[:] = [0.0, np.pi - 0.3]
        out = []
        for _ in range(4):
            u = mpc.step(np.r_[d.qpos, d.qvel])
            out.append(u.copy())
            d.ctrl[:] = u
            moreau.mj_step(m, d)
        return np.concatenate(out).view(np.uint64)

    def sampled(**kw):
        ps = moreau.optim.PredictiveSampling(m, xref, q=[1, 1, .1, .1], r=[.01], rollouts=12,
                                             steps=30, **kw)
        d = moreau.MjData(m)
        d.qpos[1] = 0.3
        return np.concatenate([ps.control(d)[0] for _ in range(3)]).view(np.uint64)

    def planned(**kw):
        x0 = np.array([0.0, np.pi - 0.3, 0.0, 0.0])
        r = moreau.optim.ilqr(m, x0, np.zeros((60, 1)), xref, max_iter=5, **w, **kw)
        return r.us.view(np.uint64)

    for lin in ("fd", "analytic"):
        one = mpc_controls(linearization=lin, threads=1)
        for n in (2, 3):
            assert np.array_equal(mpc_controls(linearization=lin, threads=n), one), (lin, n)
    assert np.array_equal(sampled(threads=2), sampled(threads=1))
    # collocation's knot Jacobians (analytic and finite differences)
    for jac in ("analytic", "fd"):
        plans = [moreau.optim.contact_trajopt("ball", horizon=20, max_iters=2, jacobians=jac,
                                              threads=n) for n in (1, 2, 3)]
        for p in plans[1:]:
            assert np.array_equal(p.qpos.view(np.uint64), plans[0].qpos.view(np.uint64)), jac
            assert np.array_equal(p.ctrl.view(np.uint64), plans[0].ctrl.view(np.uint64)), jac
    assert np.array_equal(planned(threads=3), planned(threads=1))
    every = moreau.get_threads()  # the default: every CPU the process may use
    assert every >= 1
    try:
        moreau.set_threads(2)
        assert moreau.get_threads() == 2
        assert np.array_equal(mpc_controls(), mpc_controls(threads=1))
    finally:
        moreau.set_threads(0)
    assert moreau.get_threads() == every
