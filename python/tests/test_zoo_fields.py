"""`MjModel` and `MjData` fields of MuJoCo 4.0.0 bound from what moreau computes, against
MuJoCo on every model of models/ both packages load and on every model of the public zoo
(tools/zoo/models.txt, the cache of `tools/zoo/fetch.py`) moreau loads: shapes and dtypes
equal, integers exactly, model floats within 1e-12 relative (`rel_err`) except the mesh polygons'
unit normals (within 1e-8: moreau's Newell normals differ from MuJoCo's by up to 4.7e-9 on the
Menagerie's meshes), data fields within the tolerances of test_forward.py.

`tools/unbound_fields.py` counts the fields still unbound (docs/python.md, "Fields not bound").
"""

import functools

import numpy as np
import pytest
from conftest import TOL_CONTACT, TOL_SMOOTH, TOL_SOLVE, models_both_load, rel_err
from test_zoo import entries, set_options, zoo_file

import mujoco
import moreau

# model fields: arrays (shape, dtype and values) and sizes
MODEL_ARRAYS = ("B_rownnz", "B_rowadr", "B_colind", "mapM2D", "mapD2M", "mapM2M",
                "mesh_polynum", "mesh_polyadr", "mesh_polynormal", "mesh_polyvertnum",
                "mesh_polyvertadr", "mesh_polyvert", "mesh_polymapnum", "mesh_polymapadr",
                "mesh_polymap", "sensor_intprm", "sensor_datatype", "sensor_needstage",
                "tendon_type", "pair_signature", "geom_adhesion", "geom_surfacevel",
                "pair_adhesion", "tendon_actfrcrange")
# flags: bool arrays, as MuJoCo 4.0.0's
MODEL_FLAGS = ("tendon_actfrclimited",)
MODEL_SIZES = ("nB", "nmeshpoly", "nmeshpolyvert", "nmeshpolymap", "npolygonmax",
               "nmeshdegmax", "ngravcomp", "flg_gravcomp", "flg_adhesion", "flg_surfacevel")

# data fields in island order: (field, the field it reorders, tolerance; 0 exact)
ISLAND_DOFS = (("iacc_smooth", "qacc_smooth", TOL_SMOOTH),
               ("ifrc_smooth", "qfrc_smooth", TOL_SMOOTH), ("iacc", "qacc", TOL_SOLVE),
               ("ifrc_constraint", "qfrc_constraint", TOL_SOLVE))
ISLAND_ROWS = (("iefc_id", "efc_id", 0), ("iefc_type", "efc_type", 0),
               ("iefc_D", "efc_D", TOL_CONTACT), ("iefc_R", "efc_R", TOL_CONTACT),
               ("iefc_aref", "efc_aref", TOL_CONTACT),
               ("iefc_frictionloss", "efc_frictionloss", TOL_CONTACT),
               ("iefc_force", "efc_force", TOL_SOLVE), ("iefc_state", "efc_state", 0))

# what MuJoCo's noslip pass changes after the island solve wrote these
AFTER_SOLVE = ("iacc", "ifrc_constraint", "iefc_force")
# what only MuJoCo's island solve (CG, Newton) writes
ISLAND_SOLVE = ("iacc", "iacc_smooth", "ifrc_smooth", "ifrc_constraint", "iefc_aref",
                "iefc_force", "iefc_state")


@functools.lru_cache(maxsize=1)
def pairs():
    """(name, MuJoCo's MjModel, moreau's MjModel) for models/ and the zoo."""
    out = list(models_both_load())
    out.append(("sensors", mujoco.MjModel.from_xml_string(SENSORS_XML),
                moreau.MjModel.from_xml_string(SENSORS_XML)))
    for name, path, opts, status in entries():
        if status.startswith("refused"):
            continue
        f = zoo_file(path)
        mj = mujoco.MjModel.from_xml_path(f)
        try:
            mo = moreau.MjModel.from_xml_path(f)
        except ValueError:
            continue  # `pending` or `failing` models moreau refuses: test_zoo.py's business
        set_options(mj, opts)
        set_options(mo, opts)
        out.append((name, mj, mo))
    return out


# one sensor of every type moreau simulates
SENSORS_XML = """<mujoco><worldbody><geom name="floor" type="plane" size="5 5 .1"/>
<body name="b" pos="0 0 1"><freejoint name="free"/><geom name="g" size=".1"/><site name="s"/>
<body name="c" pos="0 0 .3"><joint name="h" range="-1 1" limited="true"/><joint name="bj" type="ball"/><geom name="g2" size=".1"/><site name="s2"/></body></body></worldbody>
<tendon><fixed name="t" limited="true" range="-1 1"><joint joint="h" coef="1"/></fixed></tendon>
<actuator><motor name="a" joint="h"/></actuator>
<sensor>
<touch site="s"/><accelerometer site="s"/><velocimeter site="s"/><gyro site="s"/><force site="s"/><torque site="s"/><magnetometer site="s"/><rangefinder site="s"/>
<jointpos joint="h"/><jointvel joint="h"/><tendonpos tendon="t"/><tendonvel tendon="t"/><actuatorpos actuator="a"/><actuatorvel actuator="a"/><actuatorfrc actuator="a"/><jointactuatorfrc joint="h"/>
<ballquat joint="bj"/><ballangvel joint="bj"/><jointlimitpos joint="h"/><jointlimitvel joint="h"/><jointlimitfrc joint="h"/><tendonlimitpos tendon="t"/><tendonlimitvel tendon="t"/><tendonlimitfrc tendon="t"/>
<framepos objtype="site" objname="s"/><framequat objtype="site" objname="s"/><framexaxis objtype="site" objname="s"/><frameyaxis objtype="site" objname="s"/><framezaxis objtype="site" objname="s"/><framelinvel objtype="site" objname="s"/><frameangvel objtype="site" objname="s"/><framelinacc objtype="site" objname="s"/><frameangacc objtype="site" objname="s"/>
<subtreecom body="b"/><subtreelinvel body="b"/><subtreeangmom body="b"/><contact geom1="g"/><e_potential/><e_kinetic/><clock/>
</sensor></mujoco>"""


def same(got, want, tol, what):
    got = np.asarray(got)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    if tol == 0:
        assert np.array_equal(got, want), (what, got, want)
    else:
        assert rel_err(got, want) <= tol, (what, rel_err(got, want))


def stepped_pair(mj, mo):
    """MuJoCo's data after 20 steps from the first keyframe (or the model's initial state),
    and moreau's data set to MuJoCo's integration state; both forwarded there."""
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    if mj.nkey:
        mujoco.mj_resetDataKeyframe(mj, dj, 0)
    mujoco.mj_step(mj, dj, 20)
    state = np.empty(mujoco.mj_stateSize(mj, spec))
    mujoco.mj_getState(mj, dj, state, spec)
    moreau.mj_setState(mo, do, state, spec)
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    return dj, do


def test_model_fields_match_mujoco_over_the_zoo():
    """The body–dof sparsity `B`, the maps between `M`, `D` and the legacy `qM` layout, the
    meshes' hull polygons, `sensor_intprm`, `sensor_datatype`, `sensor_needstage` (a model
    with one sensor of each of the 40 types moreau simulates among them), `tendon_type`,
    `ngravcomp`, `flg_gravcomp` and the adhesion and surface-velocity fields (zeros and false
    on every model moreau accepts: it refuses `adhesion` and `surfacevel`) equal MuJoCo's on
    every model,
    exactly (the polygon normals within 1e-8); models with simple bodies, meshes with polygons
    and contact sensors are among them."""
    npoly = nsimple = nzoo = ngravcomp = 0
    types = set()
    for name, mj, mo in pairs():
        for f in MODEL_ARRAYS:
            same(getattr(mo, f), getattr(mj, f), 1e-8 if f == "mesh_polynormal" else 0,
                 (name, f))
        for f in MODEL_FLAGS:
            same(getattr(mo, f), getattr(mj, f), 0, (name, f))
        for f in MODEL_SIZES:
            assert getattr(mo, f) == getattr(mj, f), (name, f, getattr(mo, f), getattr(mj, f))
        npoly += mj.nmeshpoly
        nsimple += int((mj.mapM2D < 0).any())
        nzoo += "/" in name
        types.update(mj.sensor_type.tolist())
        ngravcomp += mj.flg_gravcomp
    assert nzoo >= 40 and npoly > 10000 and nsimple >= 5, (nzoo, npoly, nsimple)
    assert len(types) == 40 and ngravcomp >= 1, (sorted(types), ngravcomp)


def test_island_order_fields_match_mujoco_over_the_zoo():
    """`iacc`, `iacc_smooth`, `ifrc_smooth`, `ifrc_constraint` (the dofs in island order,
    `nidof`) and `iefc_*` (the constraint rows in island order; `iefc_state` the final states,
    which MuJoCo's `efc_state` is not with islands on) equal MuJoCo's after 20 steps
    from the first keyframe and `mj_forward` on MuJoCo's state, on every model with
    constraint rows. With noslip iterations (dm_control/dog) MuJoCo's `iacc`,
    `ifrc_constraint` and `iefc_force` are the main solve's result before the noslip pass, and
    moreau's the final ones: not compared there; neither are the fields only MuJoCo's island
    solve writes, under PGS (MuJoCo leaves them unwritten). A field is compared where the field it reorders agrees within the
    tolerance (where the engines' solves part, it says nothing of the order), and rows where
    both engines order their contacts alike."""
    checked = compared = skipped = permuted = 0

    def reordered(f, base, tol):
        nonlocal compared, skipped
        if f in AFTER_SOLVE and mj.opt.noslip_iterations:
            return  # MuJoCo's are the main solve's, before the noslip pass (docs/python.md)
        if f in ISLAND_SOLVE and mj.opt.solver == int(mujoco.mjtSolver.mjSOL_PGS):
            return  # MuJoCo's PGS solves globally and leaves them unwritten
        if tol and rel_err(getattr(do, base), getattr(dj, base)) > tol:
            skipped += 1
            return
        same(getattr(do, f), getattr(dj, f), tol, (name, f))
        compared += 1

    for name, mj, mo in pairs():
        dj, do = stepped_pair(mj, mo)
        assert do.nidof == dj.nidof and do.nefc == dj.nefc, name
        for f, base, tol in ISLAND_DOFS:
            reordered(f, base, tol)
        if dj.nefc == 0 or not np.array_equal(do.efc_type, dj.efc_type) or not np.array_equal(
                do.efc_id, dj.efc_id):
            continue
        if dj.ncon and not all(tuple(a) == tuple(b) and np.allclose(p, q, atol=1e-6) for a, b, p, q
                               in zip(do.contact.geom, dj.contact.geom, do.contact.pos,
                                      dj.contact.pos)):
            continue
        for f, base, tol in ISLAND_ROWS:
            reordered(f, base, tol)
        checked += dj.nisland > 1
        permuted += not np.array_equal(dj.map_iefc2efc, np.arange(dj.nefc))
    # island order differs from row order on some models: a test that can fail
    assert checked >= 3 and permuted >= 2, (checked, permuted)
    assert compared > 20 * skipped, (compared, skipped)


PAIRS_XML = """<mujoco><worldbody><geom name="f" type="plane" size="1 1 1"/>
<body name="a"><freejoint/><geom name="ga" size=".1"/></body>
<body name="b" pos="1 0 0"><freejoint/><geom name="gb" size=".1"/>
<body name="c"><joint/><geom name="gc" size=".1"/></body></body></worldbody>
<contact><pair geom1="ga" geom2="f"/><pair geom1="gb" geom2="ga"/><pair geom1="gc" geom2="gb"/>
<pair geom1="f" geom2="gc"/></contact></mujoco>"""


def test_pair_signature_and_mesh_names_match_mujoco():
    """The explicit pairs, given in both geom orders and out of order, come sorted by
    `pair_signature` as in MuJoCo ([1, 3, 65538, 131075]; `pair_geom1`, `pair_geom2` and the
    signatures equal, with the pairs' names), and meshes and height fields are named as in
    MuJoCo (`mj_id2name`, `mj_name2id`, the `mesh` and `hfield` accessors) on every model with
    them."""
    xml = PAIRS_XML.replace('<pair geom1="ga" geom2="f"/>', "").replace(
        "</contact>", '<pair name="late" geom1="ga" geom2="f"/></contact>')
    for x in (PAIRS_XML, xml):
        mj, mo = mujoco.MjModel.from_xml_string(x), moreau.MjModel.from_xml_string(x)
        got = np.asarray(mo.pair_signature)
        assert got.dtype == mj.pair_signature.dtype
        assert got.tolist() == mj.pair_signature.tolist() == [1, 3, 65538, 131075]
        for f in ("pair_geom1", "pair_geom2"):
            assert np.asarray(getattr(mo, f)).tolist() == getattr(mj, f).tolist(), f
    assert moreau.mj_name2id(mo, int(mujoco.mjtObj.mjOBJ_PAIR), "late") == mujoco.mj_name2id(
        mj, mujoco.mjtObj.mjOBJ_PAIR, "late") == 0
    named = 0
    for name, mj, mo in pairs():
        for obj, n, acc, field in ((mujoco.mjtObj.mjOBJ_MESH, mj.nmesh, "mesh", "vertnum"),
                                   (mujoco.mjtObj.mjOBJ_HFIELD, mj.nhfield, "hfield", "nrow")):
            for i in range(n):
                s = mujoco.mj_id2name(mj, obj, i)
                assert moreau.mj_id2name(mo, int(obj), i) == s, (name, obj, i, s)
                if s:
                    assert moreau.mj_name2id(mo, int(obj), s) == i, (name, s)
                    got = getattr(getattr(mo, acc)(s), field)
                    assert np.array_equal(got, getattr(getattr(mj, acc)(s), field)), (name, s)
                    named += 1
    assert named > 300, named


def test_named_accessor_aliases():
    """`m.cam`, `m.eq`, `m.mat`, `m.tex` / `m.texture`, `d.cam` and `d.ten` are MuJoCo's
    accessors: the same rows as `camera`, `equality`, `material`, the `tex_*` arrays and
    `tendon`."""
    xml = """<mujoco><asset><texture name="t" type="2d" builtin="checker" width="8" height="8"/>
    <material name="m" texture="t" rgba=".1 .2 .3 1"/></asset><worldbody>
    <camera name="c" pos="0 0 1"/><site name="s0"/><body name="b" pos="0 0 1"><joint/>
    <geom size=".1" material="m"/><site name="s1" pos="0 .1 0"/></body></worldbody>
    <equality><connect name="e" body1="b" anchor="0 0 0"/></equality>
    <tendon><spatial name="ten"><site site="s0"/><site site="s1"/></spatial></tendon></mujoco>"""
    mj, mo = mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    mujoco.mj_forward(mj, dj)
    moreau.mj_forward(mo, do)
    for m, d in ((mj, dj), (mo, do)):
        assert np.array_equal(m.cam("c").pos, m.camera("c").pos)
        assert np.array_equal(m.eq("e").data, m.equality("e").data)
        assert np.array_equal(m.mat("m").rgba, m.material("m").rgba)
        assert m.tex("t").id == m.texture("t").id == 0
    for a, b in ((mo.tex("t").width, mj.tex("t").width), (mo.texture(0).height,
                 mj.texture(0).height), (do.cam("c").xpos, dj.cam("c").xpos),
                 (do.ten("ten").length, dj.ten("ten").length), (mo.eq(0).data, mj.eq(0).data),
                 (mo.mat(0).rgba, mj.mat(0).rgba)):
        # MuJoCo's mat_rgba is float32
        assert rel_err(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) <= 1e-7
    with pytest.raises(KeyError):
        mo.tex("missing")


def test_tendon_actfrcrange_matches_mujoco():
    """`tendon_actfrclimited` / `tendon_actfrcrange` and the clamp they drive (the model of
    tests/reference/tendon_actfrc_cases.json: three actuators on a fixed tendon, two on a
    spatial one): `actuator_force` and `qfrc_actuator` after `mj_forward` equal MuJoCo's
    within 1e-12 relative with the totals inside and beyond the ranges."""
    import json
    import pathlib
    ref = pathlib.Path(__file__).parents[2] / "tests" / "reference" / "tendon_actfrc_cases.json"
    xml = json.loads(ref.read_text())["xml"]
    mj, mo = mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml)
    same(mo.tendon_actfrclimited, mj.tendon_actfrclimited, 0, "tendon_actfrclimited")
    same(mo.tendon_actfrcrange, mj.tendon_actfrcrange, 0, "tendon_actfrcrange")
    nclamped = 0
    for k in range(8):
        dj, do = mujoco.MjData(mj), moreau.MjData(mo)
        for d in (dj, do):
            d.qpos[:] = np.linspace(-0.3, 0.4, mj.nq)
            d.qvel[:] = 0.1 * np.arange(mj.nv)
            d.ctrl[:] = np.sin(np.arange(mj.nu) + k) * 0.1 * 2 ** k
        mujoco.mj_forward(mj, dj)
        moreau.mj_forward(mo, do)
        for f in ("actuator_force", "qfrc_actuator"):
            assert rel_err(getattr(do, f), getattr(dj, f)) <= 1e-12, (k, f)
        f = dj.actuator_force
        nclamped += abs(f[0] + f[1] + f[2]) >= 0.5 - 1e-12
    assert 2 <= nclamped <= 6, nclamped


NAME_ADRS = ("name_bodyadr", "name_jntadr", "name_geomadr", "name_siteadr", "name_camadr",
             "name_lightadr", "name_flexadr", "name_meshadr", "name_skinadr", "name_hfieldadr",
             "name_texadr", "name_matadr", "name_pairadr", "name_excludeadr", "name_eqadr",
             "name_tendonadr", "name_actuatoradr", "name_sensoradr", "name_numericadr",
             "name_textadr", "name_tupleadr", "name_keyadr", "name_pluginadr")

# every named kind moreau keeps, unnamed elements among them, excludes given out of order
NAMES_XML = """<mujoco model="all names"><asset><texture name="t" builtin="checker" width="8"
height="8" rgb1="1 1 1" rgb2="0 0 0"/><material name="mat" texture="t"/><mesh name="me"
vertex="0 0 0 1 0 0 0 1 0 0 0 1"/><hfield name="hf" nrow="2" ncol="2" size="1 1 1 1"/>
<skin vertex="0 0 0 1 0 0 0 1 0" face="0 1 2"><bone body="b1" bindpos="0 0 0" bindquat="1 0 0 0"
vertid="0 1 2" vertweight="1 1 1"/></skin></asset>
<custom><numeric name="num" data="1"/><text name="tx" data="abc"/><tuple name="tu"><element objtype="body" objname="b1"/></tuple></custom>
<worldbody><light name="li"/><camera name="ca"/><body name="b1"><joint name="j1"/>
<geom name="g1" size="1"/><site name="s1"/></body><body name="b2"><joint/><geom name="g2" size="1"/>
</body><body name="b3"><joint/><geom size="1"/></body></worldbody>
<contact><pair name="p" geom1="g1" geom2="g2"/><exclude name="x23" body1="b3" body2="b2"/>
<exclude body1="b1" body2="b3"/><exclude name="x12" body1="b2" body2="b1"/></contact>
<equality><joint name="eq" joint1="j1"/></equality><tendon><fixed name="te"><joint joint="j1"
coef="1"/></fixed></tendon><actuator><motor name="ac" joint="j1"/></actuator><sensor>
<jointpos name="se" joint="j1"/></sensor><keyframe><key name="ke"/></keyframe></mujoco>"""


def test_names_match_mujoco():
    """`names` (the model's name, then every element's, zero-ended, as bytes), `nnames` and
    every `name_*adr` equal MuJoCo's, dtype included, on models/, the zoo (a skin in
    dm_control's dog, a text and a tuple in MuJoCo's test model) and a model with every kind
    moreau names, excludes given out of their sorted order; a model without `model=` is
    "MuJoCo Model" as in MuJoCo; `mj_id2name`, `mj_name2id` and the `exclude` accessor name
    excludes, skins, texts and tuples as MuJoCo does."""
    cases = list(pairs()) + [
        ("all names", mujoco.MjModel.from_xml_string(NAMES_XML),
         moreau.MjModel.from_xml_string(NAMES_XML)),
        ("no model name", mujoco.MjModel.from_xml_string("<mujoco/>"),
         moreau.MjModel.from_xml_string("<mujoco/>"))]
    kinds = set()
    for name, mj, mo in cases:
        assert isinstance(mo.names, bytes) and mo.names == mj.names, (name, mo.names, mj.names)
        assert mo.nnames == mj.nnames, name
        for f in NAME_ADRS:
            same(getattr(mo, f), getattr(mj, f), 0, (name, f))
            kinds.update([f] if len(getattr(mj, f)) else [])
    assert len(kinds) == len(NAME_ADRS) - 2, sorted(set(NAME_ADRS) - kinds)  # no flex, plugin
    mj, mo = cases[-2][1:]
    obj = mujoco.mjtObj
    for t in (obj.mjOBJ_EXCLUDE, obj.mjOBJ_SKIN, obj.mjOBJ_TEXT, obj.mjOBJ_TUPLE):
        n = {obj.mjOBJ_EXCLUDE: mj.nexclude, obj.mjOBJ_SKIN: mj.nskin, obj.mjOBJ_TEXT: mj.ntext,
             obj.mjOBJ_TUPLE: mj.ntuple}[t]
        for i in range(n):
            s = mujoco.mj_id2name(mj, t, i)
            assert moreau.mj_id2name(mo, int(t), i) == s, (t, i, s)
            if s:
                assert moreau.mj_name2id(mo, int(t), s) == i, (t, s)
    for key in ("x12", "x23", 1):
        a, b = mo.exclude(key), mj.exclude(key)
        assert (a.id, a.name) == (b.id, b.name), key
        same(a.signature, b.signature, 0, key)
    with pytest.raises(KeyError):
        mo.exclude("missing")


DUAL = ("efc_AR", "efc_AR_rownnz", "efc_AR_rowadr", "efc_AR_colind", "efc_Y", "efc_Y_rownnz",
        "efc_Y_rowadr", "efc_Y_colind")


def test_dual_matrices_and_tendon_efcadr_match_mujoco_over_the_zoo():
    """`efc_AR` (J M⁻¹ Jᵀ + R), `efc_Y` (J L⁻¹ D^(−1/2)), their row arrays, `nA`, `nY` and
    `tendon_efcadr` equal MuJoCo's after 20 steps from the first keyframe and `mj_forward` on
    MuJoCo's state, on every model with constraint rows, under PGS (both matrices formed),
    Newton with noslip (formed) and Newton (not formed: empty), with `efc_J` dense and sparse:
    integers exactly, values within 1e-9 relative (`TOL_CONTACT`), where both engines have
    the same rows (types, ids and contacts in the same order)."""
    formed = empty = sparse = dense = tendons = 0
    for name, mj0, mo0 in pairs():
        for solver, noslip, jac in ((0, 0, 0), (0, 0, 1), (2, 3, 0), (2, 3, 1), (2, 0, 1)):
            mj, mo = mj0, mo0
            saved = (mj.opt.solver, mj.opt.noslip_iterations, mj.opt.jacobian)
            for m in (mj, mo):
                m.opt.solver, m.opt.noslip_iterations, m.opt.jacobian = solver, noslip, jac
            try:
                dj, do = stepped_pair(mj, mo)
                same(do.tendon_efcadr, dj.tendon_efcadr, 0, (name, "tendon_efcadr"))
                tendons += int((dj.tendon_efcadr >= 0).any())
                if dj.nefc == 0 or not np.array_equal(do.efc_type, dj.efc_type) or \
                        not np.array_equal(do.efc_id, dj.efc_id):
                    continue
                if dj.ncon and not all(tuple(a) == tuple(b) for a, b in zip(do.contact.geom,
                                                                               dj.contact.geom)):
                    continue
                assert (do.nA, do.nY) == (dj.nA, dj.nY), (name, solver, noslip, jac)
                for f in DUAL:
                    got, want = getattr(do, f), getattr(dj, f)
                    same(got, want, TOL_CONTACT if want.dtype == np.float64 else 0,
                         (name, solver, noslip, jac, f))
                formed += dj.nA > 0
                empty += dj.nA == 0
                sparse += dj.nA > 0 and jac == 1
                dense += dj.nA > 0 and jac == 0
            finally:
                for m in (mj, mo):
                    m.opt.solver, m.opt.noslip_iterations, m.opt.jacobian = saved
    assert formed >= 100 and empty >= 20 and sparse >= 50 and dense >= 50, (formed, empty,
                                                                             sparse, dense)
    assert tendons >= 3, tendons


# MuJoCo's float32 fields (rendering properties) that moreau keeps as writeable float64 views
# (the per-simulation parameters of `moreau.batch` take them as float64)
FLOAT32 = {"mat_rgba", "light_ambient", "light_attenuation", "light_bulbradius",
           "light_cutoff", "light_diffuse", "light_exponent", "light_intensity", "light_range",
           "light_softness", "light_specular", "skin_rgba"}


def test_array_dtypes_match_mujoco():
    """Every array attribute of `MjModel` and `MjData` (after 5 steps) that both packages have
    has MuJoCo 4.0.0's dtype, on models/, the zoo and the model with every named kind: flags
    are bool (`jnt_limited`, `actuator_ctrllimited`, `eq_active0`, …), `geom_contype`,
    `geom_conaffinity` and `exclude_signature` int32; only the float32 rendering properties of
    FLOAT32 are float64 in moreau."""
    checked = set()
    cases = list(pairs()) + [("all names", mujoco.MjModel.from_xml_string(NAMES_XML),
                              moreau.MjModel.from_xml_string(NAMES_XML))]
    for name, mj, mo in cases:
        dj, do = mujoco.MjData(mj), moreau.MjData(mo)
        mujoco.mj_step(mj, dj, 5)
        moreau.mj_step(mo, do, 5)
        for a, b in ((mj, mo), (dj, do)):
            for f in dir(a):
                if f.startswith("_") or f in FLOAT32:
                    continue
                want = getattr(a, f, None)
                if not isinstance(want, np.ndarray) or not hasattr(b, f):
                    continue
                got = getattr(b, f)
                assert isinstance(got, np.ndarray), (name, f, type(got))
                assert got.dtype == want.dtype, (name, f, got.dtype, want.dtype)
                checked.add(f)
    assert {"jnt_limited", "tendon_limited", "actuator_ctrllimited", "eq_active0",
            "jnt_actgravcomp", "eq_active", "geom_contype", "exclude_signature"} <= checked
    assert len(checked) > 400, len(checked)
