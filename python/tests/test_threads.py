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
    assert d.time in (300 * m.opt.timestep, 600 * m.opt.timestep) or len(errors) == 1
