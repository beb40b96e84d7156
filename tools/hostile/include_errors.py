#!/usr/bin/env python3
"""MuJoCo 4.0.0's errors for hostile includes and files, the rows of the hostile-input table.

Writes tests/reference/include_errors.json: for each case (a main document, or none for a missing
`nope.xml`, and the files beside it, written to a temporary directory; `@dir` makes a directory)
MuJoCo's message when it loads the main file: the sentence (after "XML Error: ", "Error: " or
"ParseXML: ") and the line it names ("Element 'include', line N" or "line N"; 0 when it names
none); or, where MuJoCo loads it ("ok"), the model's nbody, ngeom and njnt. Besides includes and
files: a `<body>` under the root (allowed by MuJoCo's schema and ignored), schema errors, and
texture files whose extension MuJoCo does not read.

Rerun:  python3 tools/hostile/include_errors.py
"""
import json
import os
import re
import tempfile

import mujoco

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def chain(leaf):
    """26 files, each including the next twice; the last is `leaf`."""
    files = {}
    for i in range(26):
        body = f'<include file="inc{i + 1}.xml"/>' * 2 if i < 25 else leaf
        files[f"inc{i}.xml"] = f"<mujoco>{body}</mujoco>"
    return files


CASES = [
    ("empty include file", '<mujoco>\n<include file="e.xml"/>\n</mujoco>', {"e.xml": ""}),
    ("include root without children", '<mujoco>\n\n<include file="e.xml"/>\n</mujoco>',
     {"e.xml": "<mujoco></mujoco>"}),
    ("include of a self-closed root", '<mujoco>\n<include file="e.xml"/>\n</mujoco>',
     {"e.xml": "<mujoco/>"}),
    ("include root with a comment only", '<mujoco>\n<include file="e.xml"/>\n</mujoco>',
     {"e.xml": "<mujoco><!-- nothing --></mujoco>"}),
    ("include of /dev/zero", '<mujoco>\n<include file="/dev/zero"/>\n</mujoco>', {}),
    ("include of a directory", '<mujoco>\n<include file="adir"/>\n</mujoco>', {"adir": "@dir"}),
    ("include cycle", '<mujoco>\n<include file="a.xml"/>\n</mujoco>',
     {"a.xml": '<mujoco><include file="b.xml"/></mujoco>',
      "b.xml": '<mujoco><include file="a.xml"/></mujoco>'}),
    ("repeated include", '<mujoco>\n<include file="a.xml"/>\n<include file="a.xml"/>\n</mujoco>',
     {"a.xml": "<mujoco><worldbody/></mujoco>"}),
    ("26 files each including the next twice", '<mujoco>\n<include file="inc0.xml"/>\n</mujoco>',
     chain("<worldbody/>")),
    ("26 files each including the next twice, the last empty",
     '<mujoco>\n<include file="inc0.xml"/>\n</mujoco>', chain("")),
    ("missing include file", '<mujoco>\n<include file="nope.xml"/>\n</mujoco>', {}),
    ("7 slide joints in a body", "<mujoco><worldbody>\n<body>"
     + '<joint type="slide" axis="1 0 0"/>' * 7 + '<geom size=".1"/></body></worldbody></mujoco>',
     {}),
    ("empty main file", "", {}),
    ("missing main file", None, {}),
    # the schema: a `<body>` under the root is allowed (a fragment for an include) and ignored
    ("a body under the root", '<mujoco>\n<body><joint/><geom size=".1"/></body>\n<worldbody/>'
     '\n</mujoco>', {}),
    ("the included fragment as a main file", open(os.path.join(ROOT, "models", "zoo_part.xml"))
     .read(), {}),
    ("a body under the root with values MuJoCo does not read",
     '<mujoco><body pos="a b c"><joint type="bogus"/><inertial mass="-1" pos="0 0 0"/></body>'
     '</mujoco>', {}),
    ("an unknown attribute of a body under the root", '<mujoco>\n<body foo="1"/>\n</mujoco>', {}),
    ("an unknown element in a body under the root",
     '<mujoco>\n<body>\n<badchild/></body>\n</mujoco>', {}),
    ("an unknown element under the root", "<mujoco>\n\n<foo/>\n</mujoco>", {}),
    ("a geom under the root", '<mujoco>\n<geom size=".1"/>\n</mujoco>', {}),
    ("an unknown attribute of a worldbody geom",
     '<mujoco><worldbody>\n<geom size=".1" colour="red"/>\n</worldbody></mujoco>', {}),
    # a texture file's type is its extension: PNG (and KTX) only
    ("a texture file with an unknown extension",
     '<mujoco>\n<asset><texture name="t" type="2d" file="tex.xyz"/></asset>\n</mujoco>',
     {"tex.xyz": "not an image"}),
    ("a texture file without an extension",
     '<mujoco>\n<asset><texture name="t" type="2d" file="tex"/></asset>\n</mujoco>',
     {"tex": "not an image"}),
]

SENTENCE = re.compile(r"^(?:XML Error: |Error: |ParseXML: )?(.*)$", re.M)
LINE = re.compile(r"line (\d+)")


def main():
    out = []
    for name, main_xml, files in CASES:
        with tempfile.TemporaryDirectory() as d:
            for f, text in files.items():
                p = os.path.join(d, f)
                if text == "@dir":
                    os.mkdir(p)
                else:
                    with open(p, "w") as fh:
                        fh.write(text)
            path = os.path.join(d, "main.xml" if main_xml is not None else "nope.xml")
            if main_xml is not None:
                with open(path, "w") as fh:
                    fh.write(main_xml)
            try:
                m = mujoco.MjModel.from_xml_path(path)
                out.append({"name": name, "main": main_xml, "files": files, "ok": True,
                            "nbody": m.nbody, "ngeom": m.ngeom, "njnt": m.njnt})
                continue
            except ValueError as e:
                text = str(e).replace(d + "/", "")
        first = text.split("\n")[0]
        sentence = SENTENCE.match(first).group(1)
        line = LINE.search(text.split("\n", 1)[1] if "\n" in text else "")
        out.append({"name": name, "main": main_xml, "files": files, "ok": False, "message": text,
                    "sentence": sentence, "line": int(line.group(1)) if line else 0})
    path = os.path.join(ROOT, "tests", "reference", "include_errors.json")
    with open(path, "w") as fh:
        json.dump({"mujoco": mujoco.__version__, "cases": out}, fh, indent=1)
        fh.write("\n")
    print(path, len(out), "cases")


if __name__ == "__main__":
    main()
