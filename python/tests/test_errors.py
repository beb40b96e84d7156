"""Bad input raises a clear Python exception and never crashes the interpreter."""

import numpy as np
import pytest

import moreau
from conftest import model_path, mujoco


def test_missing_file():
    with pytest.raises(moreau.MjcfLoadError, match="cannot open model file") as e:
        moreau.MjModel.from_xml_path("/no/such/model.xml")
    assert isinstance(e.value, ValueError)
    assert e.value.file == "/no/such/model.xml"


def test_mjcf_error_location():
    xml = "<mujoco>\n  <worldbody>\n    <body>\n      <geom type='sphere' size='x'/>\n    </body>\n  </worldbody>\n</mujoco>"
    with pytest.raises(moreau.MjcfLoadError) as e:
        moreau.MjModel.from_xml_string(xml)
    err = e.value
    assert (err.line, err.element, err.attribute) == (4, "geom", "size")
    assert err.column > 0 and err.kind == "BadNumber"
    assert "size" in str(err)


def test_assets_vfs():
    xml = '<mujoco><include file="part.xml"/></mujoco>'
    part = b'<mujoco><worldbody><body><freejoint/><geom size="0.1"/></body></worldbody></mujoco>'
    m = moreau.MjModel.from_xml_string(xml, assets={"part.xml": part})
    assert m.nq == 7
    with pytest.raises(moreau.MjcfLoadError):
        moreau.MjModel.from_xml_string(xml)


@pytest.mark.parametrize("names", [("a.obj", "A.obj"), ("A.obj", "a.obj"), ("a.obj", "dir/a.obj"),
                                   ("x/Ab.obj", "y/aB.obj"), ("a.obj", "./a.obj"),
                                   ("a\\b.obj", "b.obj"), ("ab", "AB")])
def test_assets_dict_refuses_names_equal_but_for_directory_or_case(names, tmp_path):
    """Two keys naming the same file once the directory is dropped and the case folded are
    refused as MuJoCo 4.0.0 refuses them, with its message (the folded name), for a string
    and for a path; distinct names load."""
    xml = "<mujoco><worldbody/></mujoco>"
    path = tmp_path / "m.xml"
    path.write_text(xml)
    assets = {n: b"v 0 0 0\n" for n in names}
    for load in (lambda lib: lib.MjModel.from_xml_string(xml, assets),
                 lambda lib: lib.MjModel.from_xml_path(str(path), assets)):
        with pytest.raises(ValueError) as want:
            load(mujoco)
        with pytest.raises(ValueError) as got:
            load(moreau)
        assert str(got.value) == str(want.value)
        assert str(want.value).startswith("Repeated file name in assets dict: ")
    moreau.MjModel.from_xml_string(xml, {"a.obj": b"", "b.obj": b""})


def test_nan_in_qpos_raises_and_resets_as_mujoco():
    m = moreau.MjModel.from_xml_path(model_path("cartpole"))
    mj = mujoco.MjModel.from_xml_path(model_path("cartpole"))
    d, dj = moreau.MjData(m), mujoco.MjData(mj)
    for x in (d, dj):
        x.qpos[1] = np.nan
        x.qvel[0] = 1.0
    with pytest.raises(moreau.UnstableSimulationError, match="Nan, Inf or huge value in QPOS at DOF 1") as e:
        moreau.mj_step(m, d)
    assert e.value.index == 1 and e.value.warning == int(moreau.mjtWarning.mjWARN_BADQPOS)
    mujoco.mj_step(mj, dj)
    np.testing.assert_array_equal(d.qpos, dj.qpos)
    np.testing.assert_array_equal(d.qvel, dj.qvel)
    assert d.warning[moreau.mjtWarning.mjWARN_BADQPOS].number == 1


BAD_CTRL_XML = """<mujoco><option><flag clampctrl="{clamp}"/></option><worldbody>
<body><joint name="a" type="hinge"/><geom size=".1" pos="0 0 .2"/></body>
<body><joint name="b" type="hinge"/><geom size=".1" pos="0 0 .2"/></body></worldbody>
<actuator><motor joint="a"/><motor joint="b" ctrlrange="-1 1" ctrllimited="{limited}"/>
</actuator></mujoco>"""


@pytest.mark.parametrize("value", [1e300, 1e11, -np.inf, np.nan])
@pytest.mark.parametrize("limited", ["true", "false"])
@pytest.mark.parametrize("clamp", ["enable", "disable"])
def test_bad_ctrl_warns_as_mujoco(clamp, limited, value):
    """A bad control (NaN, inf, |u| > 1e10) warns mjWARN_BADCTRL and zeroes every actuator's
    input; a control that is clamped to its ctrlrange is bad only when NaN (MuJoCo 4.0.0)."""
    xml = BAD_CTRL_XML.format(clamp=clamp, limited=limited)
    m, mj = moreau.MjModel.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    d, dj = moreau.MjData(m), mujoco.MjData(mj)
    for x in (d, dj):
        x.ctrl[:] = [0.5, value]
    moreau.mj_step(m, d)
    mujoco.mj_step(mj, dj)
    w = int(mujoco.mjtWarning.mjWARN_BADCTRL)
    got = (d.warning[w].number, d.warning[w].lastinfo)
    assert got == (dj.warning[w].number, dj.warning[w].lastinfo)
    clamped = clamp == "enable" and limited == "true"
    assert got == ((0, 0) if clamped and not np.isnan(value) else (1, 1))
    np.testing.assert_allclose(d.qvel, dj.qvel, rtol=0, atol=1e-15)


def test_wrong_shapes():
    m = moreau.MjModel.from_xml_path(model_path("humanoid"))
    d = moreau.MjData(m)
    moreau.mj_forward(m, d)
    with pytest.raises(TypeError, match=r"jacp should be of shape \(3, 27\)"):
        moreau.mj_jacBody(m, d, np.zeros((3, 2)), None, 1)
    with pytest.raises(TypeError):
        moreau.mj_jacBody(m, d, np.zeros((3, 27), dtype=np.float32), None, 1)
    with pytest.raises(IndexError):
        moreau.mj_jacBody(m, d, np.zeros((3, 27)), None, 99)
    with pytest.raises(TypeError, match="mj_stateSize"):
        moreau.mj_getState(m, d, np.zeros(3), moreau.mjtState.mjSTATE_PHYSICS)
    with pytest.raises(TypeError, match="invalid state signature"):
        moreau.mj_stateSize(m, 1 << 20)
    with pytest.raises(TypeError, match="A should be of shape"):
        moreau.mjd_transitionFD(m, d, 1e-6, False, np.zeros((3, 3)), None, None, None)
    with pytest.raises(ValueError, match="eps"):
        moreau.mjd_transitionFD(m, d, -1.0, False, None, None, None, None)
    with pytest.raises(ValueError, match="nstep"):
        moreau.mj_step(m, d, -1)
    with pytest.raises(TypeError):
        moreau.mj_differentiatePos(m, np.zeros(27), 0.1, np.zeros(3), np.zeros(28))
    with pytest.raises(ValueError, match="method"):
        moreau.derivatives.transition(m, d, method="magic")


def test_data_of_another_model():
    m1 = moreau.MjModel.from_xml_path(model_path("cartpole"))
    m2 = moreau.MjModel.from_xml_path(model_path("humanoid"))
    with pytest.raises(ValueError, match="different sizes"):
        moreau.mj_step(m1, moreau.MjData(m2))


def test_unsupported_analytic_model():
    """The noslip post-pass is differentiated analytically except under RK4 (its stages' noslip
    passes are not): that model is refused with the reason (integrator 1 is mjINT_RK4)."""
    xml = open(model_path("noslip")).read().replace("<option", '<option integrator="RK4"', 1)
    m = moreau.MjModel.from_xml_string(xml)
    assert m.opt.integrator == 1 and m.opt.noslip_iterations > 0
    d = moreau.MjData(m)
    with pytest.raises(ValueError, match="noslip post-pass with RK4"):
        moreau.derivatives.transition(m, d)


SLEEP_XML = """<mujoco><option><flag sleep="{sleep}"/></option><worldbody>
<geom type="plane" size="1 1 .1"/><body pos="0 0 .1" sleep="init"><freejoint/>
<geom name="a" type="box" size=".1 .1 .1"/></body><body pos=".5 0 .2"><freejoint/>
<geom name="b" type="box" size=".1 .1 .1"/></body></worldbody></mujoco>"""


def test_sleep_with_trees_asleep_from_the_start_loads_as_in_mujoco():
    """A model with `sleep="init"` trees loads (tests/test_sleep.py compares what they do with
    MuJoCo); setting the `sleep` flag on a loaded model is accepted, and the next
    `mj_resetData` puts the `sleep="init"` box to sleep, as in MuJoCo."""
    for lib in (mujoco, moreau):
        d = lib.MjData(lib.MjModel.from_xml_string(SLEEP_XML.format(sleep="enable")))
        assert d.tree_asleep[0] == 0 and d.tree_asleep[1] < 0
        m = lib.MjModel.from_xml_string(SLEEP_XML.format(sleep="disable"))
        d = lib.MjData(m)
        assert (np.asarray(d.tree_asleep) < 0).all()
        m.opt.enableflags |= int(lib.mjtEnableBit.mjENBL_SLEEP)
        lib.mj_resetData(m, d)
        assert d.tree_asleep[0] == 0 and d.tree_asleep[1] < 0


AUTOLIMITS = '<mujoco><compiler autolimits="false"/>{defaults}<worldbody><body><joint name="j" {joint}/>' \
    '<geom size="1"/></body></worldbody>{rest}</mujoco>'
TENDON = '<tendon><fixed {}><joint joint="j" coef="1"/></fixed></tendon>'


@pytest.mark.parametrize("joint, rest, defaults", [
    ('range="-1 1"', "", ""),
    ('range="0 1" limited="auto"', "", ""),
    ('range="1 -1"', "", ""),
    ('type="slide" range="-1 1" actuatorfrcrange="-1 1"', "", ""),
    ('actuatorfrcrange="-1 1"', "", ""),
    ("", "", '<default><joint range="-1 1"/></default>'),
    ("", '<actuator><motor joint="j" ctrlrange="-1 1"/></actuator>', ""),
    ("", '<actuator><motor joint="j" ctrlrange="1 1" ctrllimited="auto"/></actuator>', ""),
    ("", '<actuator><general joint="j" dyntype="integrator" ctrlrange="-1 1" forcerange="-1 1" '
     'actrange="-1 1"/></actuator>', ""),
    ("", '<actuator><general joint="j" dyntype="integrator" ctrlrange="-1 1" actrange="-1 1"/>'
     '</actuator>', ""),
    ("", '<actuator><intvelocity joint="j" actrange="-1 1"/></actuator>', ""),
    ('range="-1 1" limited="true"', '<actuator><position joint="j" inheritrange="1"/></actuator>',
     ""),
    ("", '<actuator><motor joint="j"/></actuator>', '<default><motor forcerange="-1 1"/></default>'),
    ("", TENDON.format('range="-1 1" actuatorfrcrange="-1 1"'), ""),
    ("", TENDON.format('actuatorfrcrange="-1 1"'), ""),
    # accepted: the flag given, or a zero range
    ('range="-1 1" limited="false" actuatorfrcrange="-1 1" actuatorfrclimited="true"', "", ""),
    ('range="0 0"', '<actuator><motor joint="j" ctrlrange="0 0"/></actuator>', ""),
    ("", '<actuator><motor joint="j" ctrlrange="-1 1" ctrllimited="true" forcerange="0 0"/>'
     '</actuator>', ""),
    ("", '<actuator><damper joint="j" ctrlrange="0 1"/></actuator>', ""),
    ("", TENDON.format('range="-1 1" limited="true" actuatorfrcrange="0 0"'), ""),
])
def test_autolimits_false_refuses_a_range_without_its_flag_as_mujoco(joint, rest, defaults):
    """Under `autolimits="false"` a joint, tendon or actuator with a nonzero `range`,
    `actuatorfrcrange`, `ctrlrange`, `forcerange` or `actrange` (its own or its class's) and
    no `limited`, `actuatorfrclimited`, `ctrllimited`, `forcelimited` or `actlimited` (or
    "auto") is refused with MuJoCo 4.0.0's text, the first such range in MuJoCo's order
    (joint: range, then actuatorfrcrange; actuator: force, control, activation); with the flag
    given or a zero range both load."""
    xml = AUTOLIMITS.format(joint=joint, rest=rest, defaults=defaults)
    try:
        mujoco.MjModel.from_xml_string(xml)
        want = None
    except ValueError as e:
        want = str(e).split("\n")[0].removeprefix("Error: ")
    if want is None:
        moreau.MjModel.from_xml_string(xml)
        return
    assert "but not" in want, want
    with pytest.raises(moreau.MjcfLoadError) as e:
        moreau.MjModel.from_xml_string(xml)
    assert want in str(e.value), (str(e.value), want)
    assert e.value.line == 1 and e.value.kind == "InvalidValue"
