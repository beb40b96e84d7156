#!/usr/bin/env python3
"""MuJoCo 4.0.0 reference data for the MJCF `user` attributes: `nuser_X` and `X_user` of
bodies, joints, geoms, sites, cameras, tendons, actuators and sensors.

Writes tests/reference/user_fields.json: `cases`, each a model (inline `xml`, or `zoo`: a path
under the zoo cache of tools/zoo/fetch.py) with `nuser` (kind -> nuser_X) and `user` (kind ->
X_user, row-major lists); and `errors`, each an inline document MuJoCo refuses with its error
text. The inline models cover defaults (global and class, childclass), `<size nuser_X>` larger
than the values given, -1 (the longest given), several `<size>` elements, actuator shortcuts
with a default class, free joints, and elements without `user`.

Rerun:  python3 tools/reference/gen_user_fields.py
"""
import json
import os
import pathlib

import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "reference" / "user_fields.json"
ZOO = pathlib.Path(
    os.environ.get("MOREAU_ZOO")
    or pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    / "moreau" / "zoo"
)
KINDS = ["body", "jnt", "geom", "site", "cam", "tendon", "actuator", "sensor"]

INLINE = {
    "defaults_and_sizes": """<mujoco><size nuser_geom='4'/>
<default><geom user='9'/><default class='c'><joint user='7 8'/><motor user='1 1'/></default></default>
<worldbody><body name='a' user='1 2 3'><joint name='j0' class='c'/><geom size='.1' user='5'/><site user='1'/>
<body name='a2' childclass='c' pos='0 0 -.3'><joint name='j1'/><geom size='.1'/></body></body>
<body name='b' pos='1 0 0'><freejoint/><geom size='.1'/><camera user='2 2'/></body></worldbody>
<tendon><fixed user='3'><joint joint='j0' coef='1'/></fixed><fixed><joint joint='j1' coef='1'/></fixed></tendon>
<actuator><motor joint='j0' user='4 4 4'/><motor class='c' joint='j1'/><general joint='j1'/></actuator>
<sensor><jointpos joint='j0' user='6'/><jointvel joint='j1'/></sensor></mujoco>""",
    "minus_one_and_two_sizes": """<mujoco><size nuser_body='-1' nuser_jnt='3'/><size nuser_site='2'/>
<worldbody><body user='1.5'><joint user='1'/><geom size='.1'/><site/></body>
<body pos='1 0 0' user='2 3 4 5'><joint/><geom size='.1'/><site user='7'/></body></worldbody></mujoco>""",
    "none": """<mujoco><worldbody><body><freejoint/><geom size='.1'/></body></worldbody></mujoco>""",
    "only_sizes": """<mujoco><size nuser_body='2' nuser_geom='1' nuser_cam='3' nuser_sensor='2' nuser_tendon='1' nuser_actuator='2'/>
<worldbody><body><joint name='j'/><geom size='.1'/><camera/></body></worldbody>
<actuator><position joint='j'/></actuator><sensor><jointpos joint='j'/></sensor></mujoco>""",
}
ERRORS = [
    "<mujoco><size nuser_body='1'/><worldbody><body user='1 2'/></worldbody></mujoco>",
    "<mujoco><size nuser_geom='-2'/></mujoco>",
]
ZOO_MODELS = ["gymnasium/envs/mujoco/assets/humanoid.xml",
              "gymnasium/envs/mujoco/assets/half_cheetah.xml"]


def record(m):
    return {
        "nuser": {k: int(getattr(m, f"nuser_{k}")) for k in KINDS},
        "user": {k: getattr(m, f"{k}_user").tolist() for k in KINDS},
    }


def main():
    cases = []
    for name, xml in INLINE.items():
        cases.append({"name": name, "xml": xml, **record(mujoco.MjModel.from_xml_string(xml))})
    for p in ZOO_MODELS:
        cases.append({"name": p, "zoo": p, **record(mujoco.MjModel.from_xml_path(str(ZOO / p)))})
    errors = []
    for xml in ERRORS:
        try:
            mujoco.MjModel.from_xml_string(xml)
            raise SystemExit(f"MuJoCo compiled {xml}")
        except ValueError as e:
            errors.append({"xml": xml, "error": str(e)})
    OUT.write_text(json.dumps({"mujoco": mujoco.__version__, "cases": cases,
                               "errors": errors}, indent=1) + "\n")
    print(f"{len(cases)} cases, {len(errors)} errors -> {OUT}")


if __name__ == "__main__":
    main()
