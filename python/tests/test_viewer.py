"""moreau.viewer.html: the page of `moreau view` from Python.

The body poses a page embeds (float32) are checked against MuJoCo's forward kinematics of the
same qpos rows; the page is the same whether the trajectory comes as an array, a dict or a
file; bad trajectories raise ValueError. Opening pages in a browser is tested by
tools/viewer/check_pages.mjs.
"""

import base64
import html as htmllib
import json
import re

import mujoco
import numpy as np
import pytest

import moreau
from moreau import viewer

from conftest import MODELS


def page_data(page):
    """The JSON data block of a page."""
    m = re.search(r'<script type="application/json" id="moreau-data">(.*?)</script>', page, re.S)
    assert m, "no data block in the page"
    return json.loads(m.group(1))


def f32(b64):
    return np.frombuffer(base64.b64decode(b64), dtype="<f4").astype(np.float64)


def mujoco_rollout(path, steps):
    """qpos rows and times of a MuJoCo rollout from keyframe 0 (or qpos0)."""
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    qpos, time = [md.qpos.copy()], [md.time]
    for _ in range(steps):
        mujoco.mj_step(mm, md)
        qpos.append(md.qpos.copy())
        time.append(md.time)
    return mm, np.array(qpos), np.array(time)


def test_body_poses_are_mujocos_forward_kinematics():
    path = MODELS / "humanoid.xml"
    mm, qpos, time = mujoco_rollout(path, 200)
    m = moreau.MjModel.from_xml_path(str(path))
    # max_fps=0 keeps every row
    page = viewer.html(m, {"qpos": qpos, "time": time}, max_fps=0)
    t = page_data(page)["trajectories"]
    assert len(t) == 1
    assert np.array_equal(t[0]["time"], time)
    xpos = f32(t[0]["xpos"]).reshape(len(qpos), mm.nbody, 3)
    xquat = f32(t[0]["xquat"]).reshape(len(qpos), mm.nbody, 4)
    md = mujoco.MjData(mm)
    worst = 0.0
    for i, q in enumerate(qpos):
        md.qpos[:] = q
        mujoco.mj_kinematics(mm, md)
        # float32 in the page: relative rounding 6e-8 of each number
        worst = max(worst, np.max(np.abs(xpos[i] - md.xpos) / np.maximum(1.0, np.abs(md.xpos))))
        worst = max(worst, np.max(np.abs(xquat[i] - md.xquat)))
    assert worst < 2e-7, worst


def test_rows_are_thinned_to_max_fps():
    path = MODELS / "humanoid.xml"
    _, qpos, time = mujoco_rollout(path, 100)
    m = moreau.MjModel.from_xml_path(str(path))
    dt = m.opt.timestep
    t = page_data(viewer.html(m, qpos, max_fps=0.5 / dt))["trajectories"][0]
    # an array of rows: times are opt.timestep apart; every second row and the last are kept
    assert np.allclose(t["time"], np.arange(0, 101, 2) * dt, rtol=0, atol=1e-15)


def test_array_dict_and_file_give_the_same_page(tmp_path):
    path = MODELS / "cartpole.xml"
    _, qpos, _ = mujoco_rollout(path, 50)
    m = moreau.MjModel.from_xml_path(str(path))
    # rows of an array are opt.timestep apart
    time = np.arange(len(qpos)) * m.opt.timestep
    f = tmp_path / "run.json"
    f.write_text(json.dumps({"qpos": qpos.tolist(), "time": time.tolist()}))
    a = viewer.html(m, qpos, names=["run"])
    b = viewer.html(m, {"qpos": qpos, "time": time})
    c = viewer.html(m, f)
    assert isinstance(a, str) and isinstance(a, viewer.Page)
    # the file's trajectory is named after it; the dict's is "trajectory"
    assert a == c
    assert b == c.replace('"name":"run"', '"name":"trajectory"')
    assert page_data(c)["trajectories"][0]["name"] == "run"


def test_overlays_and_names():
    path = MODELS / "cartpole.xml"
    _, qpos, time = mujoco_rollout(path, 30)
    m = moreau.MjModel.from_xml_path(str(path))
    data = page_data(viewer.html(m, [qpos, qpos[::-1]], title="two"))
    assert data["title"] == "two"
    assert [t["name"] for t in data["trajectories"]] == ["trajectory", "trajectory 2"]
    # an optimizer's file: qpos and plan_qpos overlaid
    data = page_data(viewer.html(m, {"qpos": qpos, "plan_qpos": qpos[::-1], "time": time}))
    assert [t["name"] for t in data["trajectories"]] == ["trajectory", "plan"]
    # no trajectory: the model at qpos0
    data = page_data(viewer.html(m))
    assert [t["name"] for t in data["trajectories"]] == ["qpos0"]
    # one qpos: drawn still
    data = page_data(viewer.html(m, qpos[3]))
    assert data["trajectories"][0]["time"] == [0.0]


def test_contacts_computed_from_the_state():
    path = MODELS / "box_drop.xml"
    mm = mujoco.MjModel.from_xml_path(str(path))
    md = mujoco.MjData(mm)
    rows = {"qpos": [], "qvel": [], "time": []}
    for _ in range(300):
        mujoco.mj_step(mm, md)
        rows["qpos"].append(md.qpos.copy())
        rows["qvel"].append(md.qvel.copy())
        rows["time"].append(md.time)
    mujoco.mj_forward(mm, md)
    m = moreau.MjModel.from_xml_path(str(path))
    t = page_data(viewer.html(m, rows, max_fps=0))["trajectories"][0]
    assert t["contact_source"] == "computed"
    off = np.frombuffer(base64.b64decode(t["contact_offset"]), dtype="<u4")
    cdat = f32(t["contact_data"]).reshape(-1, 6)
    last = cdat[off[-2]:off[-1]]
    # the last row's contacts: MuJoCo's points, and forces (world frame) summing to its
    # contact forces' sum
    assert len(last) == md.ncon
    want_f = np.zeros(3)
    for i in range(md.ncon):
        c6 = np.zeros(6)
        mujoco.mj_contactForce(mm, md, i, c6)
        want_f += md.contact[i].frame.reshape(3, 3).T @ c6[:3]
    assert np.max(np.abs(last[:, :3] - md.contact.pos)) < 1e-6
    scale = max(1.0, np.abs(want_f).max())
    assert np.max(np.abs(last[:, 3:].sum(axis=0) - want_f)) / scale < 1e-6


def test_jupyter_shows_it_in_a_frame(tmp_path):
    m = moreau.MjModel.from_xml_path(str(MODELS / "cartpole.xml"))
    page = viewer.html(m, height=420)
    shown = page._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and "height: 420px" in shown
    src = re.match(r'<iframe srcdoc="([^"]*)"', shown).group(1)
    assert htmllib.unescape(src) == page
    out = tmp_path / "p.html"
    assert page.save(out) == out
    assert out.read_text(encoding="utf-8") == page


def test_bad_trajectories_raise_value_error(tmp_path):
    m = moreau.MjModel.from_xml_path(str(MODELS / "cartpole.xml"))
    with pytest.raises(ValueError, match="nq = 2"):
        viewer.html(m, np.zeros((5, 3)))
    with pytest.raises(ValueError, match="finite"):
        viewer.html(m, np.full((5, 2), np.nan))
    with pytest.raises(ValueError, match="'time' has 2 rows"):
        viewer.html(m, {"qpos": np.zeros((3, 2)), "time": [0.0, 1.0]})
    with pytest.raises(ValueError, match="no 'qpos'"):
        viewer.html(m, {"time": [0.0]})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.*not JSON"):
        viewer.html(m, bad)
    with pytest.raises(ValueError, match="2 names for 1"):
        viewer.html(m, np.zeros((2, 2)), names=["a", "b"])
    with pytest.raises(ValueError, match="max_fps"):
        viewer.html(m, max_fps=-1)
    with pytest.raises(OSError):
        viewer.html(m, tmp_path / "missing.json")
