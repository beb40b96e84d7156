"""`mj_ray` and `mj_multiRay` side by side with MuJoCo 4.0.0 on `models/viewer_geoms.xml` (plane,
height field, sphere, capsule, ellipsoid, cylinder, box, two meshes) after `mj_forward`: rays
from random origins aimed at each geom's centre (so most hit), with and without the filters
(`geomgroup`, `flg_static`, `bodyexclude`). Distances and geom ids must agree (1e-10), and the
surface normal to 1e-8 on every hit whose origin is outside the geom, and from inside the
primitives (MuJoCo returns the outward normal in both cases)."""

import numpy as np

import moreau
from conftest import MODELS, TOL_SMOOTH, load_pair, mujoco

TOL_NORMAL = 1e-8


def setup():
    mj, mo = load_pair(MODELS / "viewer_geoms.xml")
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    rng = np.random.default_rng(3)
    for d, mod, m in ((dj, mujoco, mj), (do, moreau, mo)):
        mod.mj_forward(m, d)
    return mj, mo, dj, do, rng


def cast(mod, m, d, p, v, gg=None, flg_static=1, excl=-1):
    gid = np.zeros(1, np.int32)
    n = np.zeros(3)
    x = mod.mj_ray(m, d, p, v, gg, flg_static, excl, gid, n)
    return x, int(gid[0]), n


def test_ray_matches_mujoco():
    mj, mo, dj, do, rng = setup()
    hits = normals = 0
    for g in range(mj.ngeom):
        for k in range(40):
            target = dj.geom_xpos[g] + rng.normal(0, 0.03, 3)
            p = target + rng.normal(0, 1.0, 3)
            p[2] = abs(p[2]) + 0.2  # from above the floor
            v = (target - p) * rng.uniform(0.5, 2.0)
            gg = None if k % 4 else np.array([1, 1, 1, 0, 0, 0], np.uint8)
            excl = int(mj.geom_bodyid[g]) if k % 7 == 3 else -1
            flg = k % 5 != 2
            xj, gj, nj = cast(mujoco, mj, dj, p, v, gg, flg, excl)
            xo, go, no = cast(moreau, mo, do, p, v, gg, flg, excl)
            assert go == gj, f"geom {g}, ray {k}: moreau hits {go}, MuJoCo {gj}"
            assert abs(xo - xj) <= TOL_SMOOTH * max(1.0, abs(xj)), (g, k, xo, xj)
            if gj >= 0:
                hits += 1
                assert np.abs(no - nj).max() <= TOL_NORMAL, (g, k, mj.geom_type[gj], no, nj)
                normals += 1
    assert hits > 200, hits


def test_ray_from_inside_primitives():
    """Origins inside a sphere, capsule, ellipsoid, cylinder and box: the far side is hit and
    its outward normal returned."""
    mj, mo, dj, do, rng = setup()
    checked = 0
    for g in range(mj.ngeom):
        if mj.geom_type[g] not in (2, 3, 4, 5, 6):
            continue
        for _ in range(20):
            local = rng.uniform(-0.3, 0.3, 3) * mj.geom_size[g].min()
            p = dj.geom_xpos[g] + dj.geom_xmat[g].reshape(3, 3) @ local
            v = rng.normal(0, 1, 3)
            gg = np.zeros(6, np.uint8)
            gg[mj.geom_group[g]] = 1
            xj, gj, nj = cast(mujoco, mj, dj, p, v, None, 1, -1)
            xo, go, no = cast(moreau, mo, do, p, v, None, 1, -1)
            assert go == gj and abs(xo - xj) <= TOL_SMOOTH * max(1.0, abs(xj)), (g, xo, xj)
            if gj == g:
                assert np.abs(no - nj).max() <= TOL_NORMAL, (g, no, nj)
                checked += 1
    assert checked >= 50, checked


def test_multiray_matches_mujoco():
    mj, mo, dj, do, rng = setup()
    nray = 64
    p = np.array([0.2, -0.1, 1.5])
    vec = rng.normal(0, 1, (nray, 3))
    vec[:, 2] = -np.abs(vec[:, 2])
    # cutoff culls the geoms whose bounding sphere lies beyond it (not the hits)
    for cutoff in (0.9, 1.2, 2.0, 1e9):
        out = {}
        for name, mod, m, d in (("mj", mujoco, mj, dj), ("mo", moreau, mo, do)):
            gid = np.zeros(nray, np.int32)
            dist = np.zeros(nray)
            nrm = np.zeros(3 * nray)
            mod.mj_multiRay(m, d, p, vec.ravel(), None, 1, -1, gid, dist, nrm, nray, cutoff)
            out[name] = gid, dist, nrm.reshape(nray, 3)
        np.testing.assert_array_equal(out["mo"][0], out["mj"][0])
        assert np.abs(out["mo"][1] - out["mj"][1]).max() <= TOL_SMOOTH
        hit = out["mj"][0] >= 0
        assert hit.sum() > 10
        assert np.abs(out["mo"][2][hit] - out["mj"][2][hit]).max() <= TOL_NORMAL


def test_ray_bad_input():
    mj, mo, dj, do, rng = setup()
    gid = np.zeros(1, np.int32)
    for bad in (np.zeros(2), np.zeros(4)):
        try:
            moreau.mj_ray(mo, do, np.zeros(3), np.ones(3), None, 1, -1, gid, bad)
        except (TypeError, ValueError) as e:
            assert "normal" in str(e)
        else:
            raise AssertionError("a normal output of the wrong size was accepted")
