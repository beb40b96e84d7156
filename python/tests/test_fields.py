"""Fields of MuJoCo 4.0.0's `MjModel` and `MjData` that moreau computes or that are constants
for the models it simulates, each against MuJoCo: simple bodies and the sparse layout of `M`,
the constraint islands, the sleep fields of a model that never sleeps, the energy flags."""

import pickle

import numpy as np
import pytest
from conftest import TOL_CONTACT, TOL_SMOOTH, load_pair, lockstep, model_path, models_both_load, rel_err

import mujoco
import moreau


def test_simple_bodies_and_m_layout_match_mujoco():
    """`body_simple`, `dof_simplenum` and MuJoCo's sparse layout of M (`nC`, `M_rownnz`,
    `M_rowadr`, `M_colind`: a simple body's dofs hold only their diagonal) equal MuJoCo's on
    every model of models/, and several models have simple bodies (free, ball, slide + hinge,
    slider)."""
    nsimple = 0
    checked = 0
    for name, mj, mo in models_both_load():
        checked += 1
        for f in ("body_simple", "dof_simplenum", "M_rownnz", "M_rowadr", "M_colind"):
            got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, f, got, want)
        assert mo.nC == mj.nC, name
        nsimple += int((mj.body_simple[1:] > 0).any())
    assert checked >= 30 and nsimple >= 10, (checked, nsimple)


@pytest.mark.parametrize("name", ["box_stack", "noslip", "ball_push", "humanoid"])
def test_m_and_factor_in_mujocos_layout(name, rng):
    """`M` and `qLD` in MuJoCo's sparse layout equal MuJoCo's at random states, on models with
    simple bodies (their rows reduced to the diagonal) and without."""
    mj, mo = load_pair(model_path(name))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for _ in range(3):
        dj.qvel[:] = rng.standard_normal(mj.nv)
        mujoco.mj_step(mj, dj, 10)
        spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        state = np.empty(mujoco.mj_stateSize(mj, spec))
        mujoco.mj_getState(mj, dj, state, spec)
        moreau.mj_setState(mo, do, state, spec)
        mujoco.mj_forward(mj, dj)
        moreau.mj_forward(mo, do)
        for f in ("M", "qLD"):
            got, want = np.asarray(getattr(do, f)), getattr(dj, f)
            assert got.shape == want.shape == (mj.nC,), f
            assert rel_err(got, want) < TOL_SMOOTH, f


ISLAND_FIELDS = ("dof_island", "efc_island", "tree_island", "island_nv", "island_idofadr",
                 "island_dofadr", "island_ntree", "island_itreeadr", "island_nefc",
                 "island_iefcadr", "island_ne", "island_nf", "map_dof2idof", "map_idof2dof",
                 "map_efc2iefc", "map_iefc2efc", "map_itree2tree")


@pytest.mark.parametrize("name", ["islands", "humanoids", "constraints", "box_stack"])
def test_islands_match_mujoco(name, rng):
    """The island fields equal MuJoCo's (int32, same shapes) after every step of a run with
    random controls, both engines stepping from MuJoCo's state."""
    mj, mo = load_pair(model_path(name))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    nislands = set()
    for step in lockstep(mj, mo, dj, do, 100, rng):
        assert do.nisland == dj.nisland and do.nefc == dj.nefc, step
        for f in ISLAND_FIELDS:
            got, want = np.asarray(getattr(do, f)), getattr(dj, f)
            assert got.dtype == np.int32, f
            assert np.array_equal(got, want), (step, f, got, want)
        nislands.add(dj.nisland)
    assert max(nislands) >= 1


SLEEP_FIELDS = ("nbody_awake", "ntree_awake", "nv_awake", "nparent_awake", "body_awake",
                "body_awake_ind", "parent_awake_ind", "dof_awake_ind", "tree_awake",
                "tree_asleep")


@pytest.mark.parametrize("name", ["humanoid", "arm7", "cartpole", "zoo", "islands"])
def test_sleep_fields_of_a_model_that_never_sleeps(name):
    """Without the `sleep` flag MuJoCo keeps every tree awake: its sleep fields (bodies welded
    to the world static) and the energy flags equal moreau's after mj_forward and mj_step, with
    and without the energy flag."""
    mj, mo = load_pair(model_path(name))
    assert not mj.opt.enableflags & int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    for energy in (False, True):
        for m in (mj, mo):
            bit = int(mujoco.mjtEnableBit.mjENBL_ENERGY)
            m.opt.enableflags = (m.opt.enableflags | bit) if energy else (
                m.opt.enableflags & ~bit)
        dj, do = mujoco.MjData(mj), moreau.MjData(mo)
        for call in ("forward", "step"):
            getattr(mujoco, "mj_" + call)(mj, dj)
            getattr(moreau, "mj_" + call)(mo, do)
            for f in SLEEP_FIELDS + ("flg_energypos", "flg_energyvel"):
                got, want = getattr(do, f), getattr(dj, f)
                if isinstance(want, np.ndarray):
                    got = np.asarray(got)
                    assert got.dtype == np.int32, f
                    assert np.array_equal(got, want), (f, got, want)
                else:
                    assert got == want, (f, got, want)


MODEL_FIELDS = ("body_treeid", "dof_treeid", "tree_bodyadr", "tree_bodynum", "tree_dofadr",
                "tree_dofnum", "body_contype", "body_conaffinity", "body_margin",
                "body_sameframe", "geom_sameframe", "site_sameframe", "body_plugin",
                "geom_plugin", "actuator_plugin", "sensor_plugin")


def test_tree_frame_and_plugin_fields_match_mujoco():
    """The kinematic trees (`body_treeid`, `dof_treeid`, `tree_*`), the bodies' collision
    summary, the `*_sameframe` shortcuts and the plugin fields of a model without plugins
    equal MuJoCo's, dtype included, on every model of models/ both engines load; a model
    with a static body between the world and a tree (arm7) and models with several trees are
    among them."""
    checked = 0
    ntree = set()
    for name, mj, mo in models_both_load():
        checked += 1
        for f in MODEL_FIELDS:
            got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
            assert got.dtype == want.dtype, (name, f, got.dtype, want.dtype)
            assert np.array_equal(got, want), (name, f, got, want)
        for f in ("ntree", "nuserdata", "nplugin", "npluginattr", "npluginstate"):
            assert getattr(mo, f) == getattr(mj, f), (name, f)
        ntree.add(mj.ntree)
        if name == "arm7":
            assert mj.body_treeid[1] == -1 and mj.tree_bodyadr[0] == 2
    assert checked >= 30 and max(ntree) >= 8, (checked, ntree)


TENDON_TREES_XML = """<mujoco><worldbody><site name="a" pos="0 0 1"/><site name="b" pos="1 0 1"/>
<body pos=".5 0 1"><joint type="slide" axis="0 0 1"/><geom name="g" size=".1"/>
<site name="side" pos="0 0 .2"/></body>
<body pos="2 0 1"><joint/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".05"/>
<site name="cs" pos=".3 0 0"/></body>
<body pos="3 0 1"><joint/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".05"/>
<site name="ds" pos=".3 0 0"/></body></worldbody>
<tendon><spatial><site site="a"/><geom geom="g" sidesite="side"/><site site="b"/></spatial>
<spatial><site site="cs"/><site site="ds"/><pulley divisor="2"/><site site="a"/><site site="cs"/>
</spatial><spatial><site site="a"/><site site="cs"/><site site="ds"/><geom geom="g"/>
<site site="b"/></spatial></tendon></mujoco>"""


def test_tendon_trees_match_mujoco():
    """`tendon_treenum` and `tendon_treeid` (the kinematic trees a tendon's path touches: its
    joints', sites' and wrap geoms' bodies, each once, the first two in path order) equal
    MuJoCo's, dtype included, on every model of models/ both engines load with tendons and on
    a model whose tendons touch a tree only through a wrap geom, pass a pulley and touch three
    trees (MuJoCo: treenum [1, 2, 3], treeid [[0, -1], [1, 2], [1, 2]])."""
    pairs = [(n, mj, mo) for n, mj, mo in models_both_load() if mj.ntendon]
    pairs.append(("wraps", mujoco.MjModel.from_xml_string(TENDON_TREES_XML),
                  moreau.MjModel.from_xml_string(TENDON_TREES_XML)))
    two = 0
    for name, mj, mo in pairs:
        for f in ("tendon_treenum", "tendon_treeid"):
            got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, f, got.shape)
            assert np.array_equal(got, want), (name, f, got, want)
        two += int((mj.tendon_treenum >= 2).sum())
    assert len(pairs) >= 6 and two >= 5, (len(pairs), two)
    assert pairs[-1][1].tendon_treenum.tolist() == [1, 2, 3]


USERDATA_XML = """<mujoco><size nuserdata="3"/><worldbody><body><joint/><geom size=".1"/>
</body></worldbody></mujoco>"""


def test_userdata_as_mujoco():
    """`<size nuserdata>` gives `MjData.userdata`: a writeable float64 view of that length,
    kept by steps, copied by `mj_copyData`, `copy.copy` and pickling, zeroed by
    `mj_resetData`; each against MuJoCo."""
    import copy
    import pickle

    out = {}
    for lib in (mujoco, moreau):
        m = lib.MjModel.from_xml_string(USERDATA_XML)
        d = lib.MjData(m)
        assert m.nuserdata == 3 and d.userdata.dtype == np.float64
        d.userdata[:] = [1.5, -2.0, 3.25]
        lib.mj_step(m, d)
        d2 = lib.MjData(m)
        lib.mj_copyData(d2, m, d)
        rows = [d.userdata.copy(), d2.userdata.copy(), copy.copy(d).userdata.copy(),
                pickle.loads(pickle.dumps(d)).userdata.copy()]
        lib.mj_resetData(m, d)
        rows.append(d.userdata.copy())
        out[lib.__name__] = np.array(rows)
    assert np.array_equal(out["moreau"], out["mujoco"]), out
    assert np.array_equal(out["mujoco"][0], [1.5, -2.0, 3.25])
    with pytest.raises(moreau.MjcfLoadError, match="nuserdata") as e:
        moreau.MjModel.from_xml_string(USERDATA_XML.replace('"3"', '"-1"'))
    assert e.value.attribute == "nuserdata"


SOLVER_CASES = [("islands", "newton"), ("islands", "cg"), ("islands", "pgs"),
                ("humanoid", "newton"), ("humanoids", "newton"), ("box_stack", "newton"),
                ("box_stack", "pgs")]


def assert_solver_stats_equal(so, sj, where):
    """Every entry of two `MjData.solver` lists: the counts (`nactive`, `nchange`, `neval`,
    `nupdate`) equal, the scaled measures (`improvement`, `gradient`, `lineslope`) to 1e-6
    relative, 1e-12 absolute below 1e-6 (near convergence they are differences and norms of
    nearly equal iterates, where the engines' last-bit differences show); returns the number
    of entries either engine has written (a nonzero count or measure)."""
    for f in ("nactive", "nchange", "neval", "nupdate"):
        assert np.array_equal(getattr(so, f), getattr(sj, f)), (where, f)
    for f in ("improvement", "gradient", "lineslope"):
        a, b = getattr(so, f), getattr(sj, f)
        err = np.abs(a - b) / np.maximum(np.abs(b), 1e-6)
        k = int(np.argmax(err))
        assert err[k] < 1e-6, (where, f, k, a[k], b[k])
    return int(np.count_nonzero((sj.improvement != 0) | (sj.nactive != 0)))


@pytest.mark.parametrize("name,solver", SOLVER_CASES)
def test_solver_statistics_match_mujoco(name, solver, rng):
    """`MjData.solver` (`mjNISLAND × mjNSOLVER` `mjSolverStat`s, island k's iteration j at
    k·mjNSOLVER + j) equals MuJoCo's in every entry after each of 60 steps from MuJoCo's
    state (`assert_solver_stats_equal`): the last step's iterations and, past an island's
    `solver_niter`, what earlier steps left there (a solve writes only its own iterations),
    and all zeros after `mj_resetData`."""
    mj, mo = load_pair(model_path(name))
    for m in (mj, mo):
        m.opt.solver = int(getattr(mujoco.mjtSolver, "mjSOL_" + solver.upper()))
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    nsolver = int(mujoco.mjNSOLVER) if hasattr(mujoco, "mjNSOLVER") else 200
    compared = older = 0
    for step in lockstep(mj, mo, dj, do, 60, rng):
        sj, so = dj.solver, do.solver
        assert len(so) == len(sj) == 20 * nsolver
        niter = np.asarray(dj.solver_niter)
        assert np.array_equal(np.asarray(do.solver_niter), niter), step
        written = assert_solver_stats_equal(so, sj, step)
        compared += written
        older += written - int(np.minimum(niter, nsolver).sum())
        s0 = so[0]
        assert isinstance(s0, moreau.MjSolverStat) and s0.nactive == int(so.nactive[0])
    assert compared >= 60, compared
    if name in ("islands", "box_stack"):
        assert older > 0  # entries kept from earlier steps were compared
    mujoco.mj_resetData(mj, dj)
    moreau.mj_resetData(mo, do)
    assert assert_solver_stats_equal(do.solver, dj.solver, "reset") == 0
    assert not np.any(do.solver_niter)


SOLVER_KEEP_XML = """<mujoco><option noslip_iterations="{noslip}" solver="{solver}"/><worldbody>
<geom type="plane" size="5 5 .1"/>
<body pos="0 0 .09"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
<body pos="1 0 .09"><freejoint/><geom type="sphere" size=".1"/></body></worldbody></mujoco>"""


@pytest.mark.parametrize("noslip,solver", [(0, "Newton"), (3, "Newton"), (0, "CG"), (0, "PGS")])
def test_solver_statistics_kept_without_rows_as_mujoco(noslip, solver):
    """A box and a sphere resting on a plane (two islands, noslip sweeps appended after the
    solver's iterations), then lifted clear: the step without constraint rows sets
    `solver_niter` to 0 and leaves every `MjData.solver` entry as the last solve wrote it, in
    both engines; `mj_forward` too; `mj_resetData` zeroes them."""
    xml = SOLVER_KEEP_XML.format(noslip=noslip, solver=solver)
    mj, mo = mujoco.MjModel.from_xml_string(xml), moreau.MjModel.from_xml_string(xml)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for _ in lockstep(mj, mo, dj, do, 4, np.random.default_rng(0)):
        pass
    assert dj.nefc > 0 and dj.nisland == do.nisland == 2
    kept = {}
    for lib, m, d in ((mujoco, mj, dj), (moreau, mo, do)):
        before = d.solver.improvement.copy()
        d.qpos[2] = d.qpos[9] = 5.0
        d.qvel[:] = 0
        lib.mj_step(m, d)
        assert d.nefc == 0 and not np.any(d.solver_niter)
        lib.mj_forward(m, d)
        assert np.array_equal(d.solver.improvement, before)
        kept[lib.__name__] = np.count_nonzero(before)
    assert kept["mujoco"] >= 2
    assert assert_solver_stats_equal(do.solver, dj.solver, "lifted") >= 2


@pytest.mark.parametrize("name", ["islands", "noslip", "sphere_drop", "box_stack", "humanoids"])
def test_cg_iterations_match_mujoco(name, rng):
    """CG's `solver_niter` per island equals MuJoCo's after every one of 150 steps, both engines
    stepping from MuJoCo's state. CG stops before its first iteration when the decrement
    ½·g·M⁻¹g (scaled by 1/trace M) is below `tolerance`, whatever the gradient's norm: islands
    that start at their warm start took one iteration more than MuJoCo's on islands.xml (62 of
    150 steps), noslip.xml (19) and sphere_drop.xml (30) before."""
    mj, mo = load_pair(model_path(name))
    for m in (mj, mo):
        m.opt.solver = int(mujoco.mjtSolver.mjSOL_CG)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    zero = 0
    for step in lockstep(mj, mo, dj, do, 150, rng):
        want = np.asarray(dj.solver_niter)
        assert np.array_equal(np.asarray(do.solver_niter), want), (step, do.solver_niter, want)
        zero += int((want[:max(dj.nisland, 1)] == 0).any())
    if name in ("islands", "sphere_drop"):
        assert zero > 0  # the early stop happened


@pytest.mark.parametrize("name,jacobian", [("humanoid", 0), ("humanoid", 1), ("humanoids", 2),
                                           ("constraints", 1)])
def test_sparse_jacobian_rows_match_mujoco(name, jacobian, rng):
    """`efc_J` (MuJoCo's `nJ` entries: the rows' nonzeros one after another when sparse, else
    dense `nefc × nv`) equals MuJoCo's to 1e-9 relative after every step, with its length
    `nJ`; `efc_J_rownnz`, `efc_J_rowadr`, `efc_J_rowsuper`, `efc_J_colind` (int32) equal
    MuJoCo's when `efc_J` is sparse; when dense, MuJoCo's shapes (its arrays then hold
    whatever the arena held: moreau's are zeros)."""
    mj, mo = load_pair(model_path(name))
    mj.opt.jacobian = mo.opt.jacobian = jacobian
    sparse = mujoco.mj_isSparse(mj)
    dj, do = mujoco.MjData(mj), moreau.MjData(mo)
    for step in lockstep(mj, mo, dj, do, 40, rng):
        assert do.nefc == dj.nefc, step
        got, want = np.asarray(do.efc_J), dj.efc_J
        assert got.shape == want.shape == (dj.nJ,) and do.nJ == dj.nJ, (step, got.shape)
        assert want.size == 0 or rel_err(got, want) <= TOL_CONTACT, (step, rel_err(got, want))
        if sparse and dj.nefc:
            assert dj.nJ < dj.nefc * mj.nv  # the sparse layout was compared
        for f in ("efc_J_rownnz", "efc_J_rowadr", "efc_J_rowsuper", "efc_J_colind"):
            got, want = np.asarray(getattr(do, f)), getattr(dj, f)
            assert got.dtype == want.dtype and got.shape == want.shape, (step, f)
            if sparse:
                assert np.array_equal(got, want), (step, f, got, want)


def test_actuator_maps_and_sleep_policy_match_mujoco():
    """`nactuator`, `nout`, `actuator_ctrladr`/`ctrlnum`/`outadr`/`outnum` and
    `tree_sleep_policy` equal MuJoCo's on every model of models/ both engines load, and on a
    model with `sleep` attributes and actuated trees; `dof_length` equals MuJoCo's (1e-12) on
    every dof."""
    extra = """<mujoco><worldbody>
    <body><joint name="a"/><geom size=".1"/></body>
    <body pos="1 0 0" sleep="allowed"><joint name="b"/><geom size=".1"/></body>
    <body pos="2 0 0" sleep="never"><freejoint/><geom type="box" size=".1 .2 .3"/></body>
    <body pos="3 0 0" sleep="init"><joint type="ball" pos="0 0 .2"/>
      <geom type="capsule" fromto="0 0 0 0 0 -.4" size=".05"/></body>
    <body pos="4 0 0"><joint type="slide"/><geom size=".1"/></body>
    </worldbody><actuator><motor joint="a"/><motor joint="b"/></actuator></mujoco>"""
    cases = list(models_both_load())
    cases.append(("extra", mujoco.MjModel.from_xml_string(extra),
                  moreau.MjModel.from_xml_string(extra)))
    checked = 0
    for name, mj, mo in cases:
        assert mo.nactuator == mj.nactuator and mo.nout == mj.nout, name
        for f in ("actuator_ctrladr", "actuator_ctrlnum", "actuator_outadr", "actuator_outnum",
                  "tree_sleep_policy"):
            got = np.asarray(getattr(mo, f))
            assert got.dtype == np.int32 and np.array_equal(got, getattr(mj, f)), (name, f)
        got = np.asarray(mo.dof_length)
        assert np.allclose(got, mj.dof_length, rtol=0, atol=1e-12), name
        checked += mj.nv
    assert checked > 500


ACTUATORS = """<mujoco><default><default class="p"><position kp="2"/></default>
<default class="c"><cylinder/></default></default>
<worldbody><body><joint name="a"/><joint name="b" type="slide"/><geom size=".1"/>
<body pos="0 0 1"><joint name="c"/><joint name="d"/><geom size=".1"/></body></body></worldbody>
<tendon><fixed name="t"><joint joint="a" coef="1"/></fixed>
<fixed name="u"><joint joint="b" coef="1"/></fixed></tendon>
<actuator><motor joint="a"/><position joint="b" kp="1" kv=".5"/><velocity joint="c" kv="1"/>
<intvelocity joint="c" kp="1" actrange="-1 1"/><cylinder joint="a"/><damper joint="b" kv="1" ctrlrange="0 1"/>
<general class="p" joint="c"/><general class="c" joint="c"/><motor class="p" joint="d"/>
<general joint="a" damping="1"/><general joint="b" armature=".5"/>
<general joint="c" damping="0 1"/><general joint="c" damping=".2"/>
<general tendon="t" damping="1"/><motor tendon="t"/><general tendon="u" armature="1"/>
<general tendon="u" damping="2"/><general joint="d" gear="0" damping="1"/></actuator></mujoco>"""


def test_actuator_ctrlspec_and_inherited_damping_maps_match_mujoco():
    """`actuator_ctrlspec` (set by the shortcut element, defaults included), `jnt_actuatorid`
    and `tendon_actuatorid` (the one actuator with damping or armature on a joint or tendon,
    -2 for several) equal MuJoCo's exactly on a model with every case and on every model of
    models/."""
    cases = list(models_both_load())
    cases.append(("actuators", mujoco.MjModel.from_xml_string(ACTUATORS),
                  moreau.MjModel.from_xml_string(ACTUATORS)))
    seen = set()
    for name, mj, mo in cases:
        for f in ("actuator_ctrlspec", "jnt_actuatorid", "tendon_actuatorid"):
            got = np.asarray(getattr(mo, f))
            assert got.dtype == np.int32 and np.array_equal(got, getattr(mj, f)), (name, f, got)
            seen.update(np.asarray(getattr(mj, f)).tolist())
    assert {-2, -1, 0, 1, 2, 32} <= seen


def test_mesh_and_height_field_arrays_match_mujoco():
    """The mesh arrays (`nmeshvert`, `nmeshface`, `nmeshgraph`, `mesh_vertadr`/`vertnum`/
    `faceadr`/`facenum`/`graphadr`, `mesh_face`, `mesh_graph`, `mesh_extrema` exactly; `mesh_vert` float32 to
    1e-6, `mesh_pos`/`mesh_quat` to 1e-9) and the height-field arrays (`nhfielddata`,
    `hfield_nrow`/`ncol`/`adr` exactly, `hfield_size` and float32 `hfield_data` to 1e-6) equal
    MuJoCo's on every model of models/ that has meshes or height fields."""
    meshes = hfields = 0
    for name, mj, mo in models_both_load():
        for f in ("nmeshvert", "nmeshface", "nmeshgraph", "nhfielddata"):
            assert getattr(mo, f) == getattr(mj, f), (name, f)
        for f in ("mesh_vertadr", "mesh_vertnum", "mesh_faceadr", "mesh_facenum",
                  "mesh_graphadr", "mesh_face", "mesh_graph", "mesh_extrema", "hfield_nrow",
                  "hfield_ncol", "hfield_adr"):
            got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, f)
        for f, tol in (("mesh_vert", 1e-6), ("mesh_pos", 1e-9), ("mesh_quat", 1e-9),
                       ("hfield_size", 1e-12), ("hfield_data", 1e-6)):
            got, want = np.asarray(getattr(mo, f)), getattr(mj, f)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, f)
            assert np.allclose(got, want, rtol=0, atol=tol), (name, f)
        meshes += mj.nmesh
        hfields += mj.nhfield
    assert meshes >= 4 and hfields >= 2


DUAL = ("efc_AR", "efc_AR_rownnz", "efc_AR_rowadr", "efc_AR_colind", "efc_Y", "efc_Y_rownnz",
        "efc_Y_rowadr", "efc_Y_colind")


@pytest.mark.parametrize("name", ["box_stack", "islands"])
def test_dual_matrices_kept_between_reads_follow_every_forward(name):
    """`efc_AR` and `efc_Y` are formed when first read and kept while the rows and `qLD` they
    come from are unchanged: read twice they are the same to the bit; after each step, after
    a new state and `mj_forward`, and after the solver option changes they are formed again
    and equal MuJoCo's for that state (PGS and Newton with noslip, dense and sparse `efc_J`;
    1e-9 relative, integers exactly), and empty under plain Newton, as MuJoCo's."""
    mj, mo = load_pair(model_path(name))
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    state = np.empty(mujoco.mj_stateSize(mj, spec))
    formed = 0
    for solver, noslip, jac in ((0, 0, 0), (0, 0, 1), (2, 3, 1), (2, 0, 0)):
        for m in (mj, mo):
            m.opt.solver, m.opt.noslip_iterations, m.opt.jacobian = solver, noslip, jac
        dj, do = mujoco.MjData(mj), moreau.MjData(mo)
        for step in range(12):
            mujoco.mj_step(mj, dj)
            mujoco.mj_getState(mj, dj, state, spec)
            moreau.mj_setState(mo, do, state, spec)
            mujoco.mj_forward(mj, dj)
            moreau.mj_forward(mo, do)
            if do.nefc != dj.nefc or not np.array_equal(do.efc_type, dj.efc_type):
                continue
            first = {f: np.asarray(getattr(do, f)).copy() for f in DUAL}
            for f in DUAL:
                want, got = getattr(dj, f), first[f]
                assert got.shape == want.shape and got.dtype == want.dtype, (step, f)
                if want.dtype == np.float64:
                    assert rel_err(got, want) < TOL_CONTACT, (solver, noslip, jac, step, f)
                else:
                    assert np.array_equal(got, want), (solver, noslip, jac, step, f)
                again = np.asarray(getattr(do, f))
                assert np.array_equal(again.view(np.uint8), got.view(np.uint8)), (step, f)
            assert (do.nA, do.nY) == (dj.nA, dj.nY)
            formed += dj.nA > 0
        # plain Newton from here: the next forward forms neither matrix
        for m in (mj, mo):
            m.opt.solver, m.opt.noslip_iterations = 2, 0
        mujoco.mj_forward(mj, dj)
        moreau.mj_forward(mo, do)
        assert do.nA == dj.nA == 0 and do.efc_AR.size == dj.efc_AR.size == 0
    assert formed >= 15, formed  # measured: box_stack 18 of its 36 reads


VISUAL_XML = """<mujoco><default><site rgba='0 1 0 1' group='3'/>
<default class='v'><camera fovy='30'/><tendon rgba='1 1 0 1' width='.01'/>
<material specular='.1'/></default></default>
<asset><material name='plain'/><material name='shiny' rgba='.1 .2 .3 .4' emission='.3'
 specular='.2' shininess='.7' reflectance='.1' metallic='.4' roughness='.6'/>
<material name='cls' class='v'/></asset>
<worldbody><site name='s0' pos='0 0 1'/><camera name='c0'/>
<camera name='c1' class='v' ipd='.05'/><camera name='c2' fovy='70.5'/>
<body name='b'><joint name='j'/><geom size='.1' rgba='.15 .25 .35 .45' material='shiny'/>
<site name='s1' rgba='1 0 0 1' group='2' material='plain'/><site name='s2' class='v'/></body>
</worldbody>
<tendon><fixed name='t0'><joint joint='j' coef='1'/></fixed>
<spatial name='t1' class='v' group='4' material='shiny'><site site='s0'/><site site='s1'/></spatial>
<spatial name='t2' rgba='.9 .8 .7 .6' width='.02'><site site='s0'/><site site='s2'/></spatial></tendon>
</mujoco>"""

VISUAL = ["geom_rgba", "mat_rgba", "site_rgba", "site_group", "site_matid", "cam_fovy",
          "cam_ipd", "tendon_rgba", "tendon_width", "tendon_group", "tendon_matid",
          "mat_emission", "mat_specular", "mat_shininess", "mat_reflectance", "mat_metallic",
          "mat_roughness"]


def test_visual_properties_match_mujoco():
    """The rendering properties `VISUAL` (materials, site, tendon and camera properties, with
    defaults and classes) equal MuJoCo 4.0.0's, dtype included (float32 where MuJoCo keeps
    float; `mat_rgba` is float64, equal once rounded to float32), on a model that sets each of
    them and on every model of models/; they are writeable views and a pickle carries what was
    written."""
    cases = [("visual", mujoco.MjModel.from_xml_string(VISUAL_XML),
              moreau.MjModel.from_xml_string(VISUAL_XML))] + list(models_both_load())
    for name, mj, mo in cases:
        for f in VISUAL:
            got, want = getattr(mo, f), getattr(mj, f)
            if f == "mat_rgba":  # float64 in moreau (a per-simulation parameter of batches)
                got = got.astype(np.float32)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, f, got.dtype)
            assert np.array_equal(got, want), (name, f, got, want)
    mo = cases[0][2]
    assert mo.site_rgba.dtype == np.float32 and mo.cam_fovy.tolist() == [45.0, 30.0, 70.5]
    mo.site_rgba[0, 1] = 0.25
    mo.mat_emission[0] = 0.5
    copy = pickle.loads(pickle.dumps(mo))
    assert copy.site_rgba[0, 1] == np.float32(0.25) and copy.mat_emission[0] == 0.5
