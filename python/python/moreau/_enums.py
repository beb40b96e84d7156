"""MuJoCo 4.0.0's enums (`mujoco.mjtState`, `mujoco.mjtObj`, ...), with the same names and values.

Each is an `enum.IntEnum`: members are ints, so `mjtState.mjSTATE_QPOS | mjtState.mjSTATE_QVEL`
and `m.opt.integrator == mjtIntegrator.mjINT_RK4` work as with `mujoco`. Checked against the
installed `mujoco` package by `python/tests/test_api.py`.
"""

import enum

__all__ = [
    "mjtState",
    "mjtObj",
    "mjtJoint",
    "mjtGeom",
    "mjtIntegrator",
    "mjtCone",
    "mjtSolver",
    "mjtJacobian",
    "mjtDisableBit",
    "mjtEnableBit",
    "mjtWarning",
    "mjtTrn",
    "mjtDyn",
    "mjtGain",
    "mjtBias",
    "mjtEq",
    "mjtSensor",
    "mjtConstraint",
    "mjtConstraintState",
    "mjtWrap",
    "mjtCamLight",
    "mjtStage",
    "mjtDataType",
    "mjtLimited",
    "mjtOrientation",
]


class mjtState(enum.IntEnum):
    """MuJoCo's `mjtState`."""

    mjSTATE_TIME = 1
    mjSTATE_QPOS = 2
    mjSTATE_QVEL = 4
    mjSTATE_ACT = 8
    mjNSTATE = 15
    mjSTATE_HISTORY = 16
    mjSTATE_WARMSTART = 32
    mjSTATE_CTRL = 64
    mjSTATE_QFRC_APPLIED = 128
    mjSTATE_XFRC_APPLIED = 256
    mjSTATE_EQ_ACTIVE = 512
    mjSTATE_MOCAP_POS = 1024
    mjSTATE_MOCAP_QUAT = 2048
    mjSTATE_USERDATA = 4096
    mjSTATE_USER = 8128
    mjSTATE_PLUGIN = 8192
    mjSTATE_PLASTIC = 16384
    mjSTATE_PHYSICS = 16414
    mjSTATE_FULLPHYSICS = 24607
    mjSTATE_INTEGRATION = 32767


class mjtObj(enum.IntEnum):
    """MuJoCo's `mjtObj`."""

    mjOBJ_UNKNOWN = 0
    mjOBJ_BODY = 1
    mjOBJ_XBODY = 2
    mjOBJ_JOINT = 3
    mjOBJ_DOF = 4
    mjOBJ_GEOM = 5
    mjOBJ_SITE = 6
    mjOBJ_CAMERA = 7
    mjOBJ_LIGHT = 8
    mjOBJ_FLEX = 9
    mjOBJ_MESH = 10
    mjOBJ_SKIN = 11
    mjOBJ_HFIELD = 12
    mjOBJ_TEXTURE = 13
    mjOBJ_MATERIAL = 14
    mjOBJ_PAIR = 15
    mjOBJ_EXCLUDE = 16
    mjOBJ_EQUALITY = 17
    mjOBJ_TENDON = 18
    mjOBJ_ACTUATOR = 19
    mjOBJ_SENSOR = 20
    mjOBJ_NUMERIC = 21
    mjOBJ_TEXT = 22
    mjOBJ_TUPLE = 23
    mjOBJ_KEY = 24
    mjOBJ_PLUGIN = 25
    mjNOBJECT = 26
    mjOBJ_FRAME = 100
    mjOBJ_DEFAULT = 101
    mjOBJ_MODEL = 102


class mjtJoint(enum.IntEnum):
    """MuJoCo's `mjtJoint`."""

    mjJNT_FREE = 0
    mjJNT_BALL = 1
    mjJNT_SLIDE = 2
    mjJNT_HINGE = 3


class mjtGeom(enum.IntEnum):
    """MuJoCo's `mjtGeom`."""

    mjGEOM_PLANE = 0
    mjGEOM_HFIELD = 1
    mjGEOM_SPHERE = 2
    mjGEOM_CAPSULE = 3
    mjGEOM_ELLIPSOID = 4
    mjGEOM_CYLINDER = 5
    mjGEOM_BOX = 6
    mjGEOM_MESH = 7
    mjGEOM_SDF = 8
    mjNGEOMTYPES = 9
    mjGEOM_ARROW = 100
    mjGEOM_ARROW1 = 101
    mjGEOM_ARROW2 = 102
    mjGEOM_LINE = 103
    mjGEOM_LINEBOX = 104
    mjGEOM_FLEX = 105
    mjGEOM_SKIN = 106
    mjGEOM_LABEL = 107
    mjGEOM_TRIANGLE = 108
    mjGEOM_NONE = 1001


class mjtIntegrator(enum.IntEnum):
    """MuJoCo's `mjtIntegrator`."""

    mjINT_EULER = 0
    mjINT_RK4 = 1
    mjINT_IMPLICIT = 2
    mjINT_IMPLICITFAST = 3
    mjINT_DISCRETE = 4


class mjtCone(enum.IntEnum):
    """MuJoCo's `mjtCone`."""

    mjCONE_PYRAMIDAL = 0
    mjCONE_ELLIPTIC = 1


class mjtSolver(enum.IntEnum):
    """MuJoCo's `mjtSolver`."""

    mjSOL_PGS = 0
    mjSOL_CG = 1
    mjSOL_NEWTON = 2


class mjtJacobian(enum.IntEnum):
    """MuJoCo's `mjtJacobian`."""

    mjJAC_DENSE = 0
    mjJAC_SPARSE = 1
    mjJAC_AUTO = 2


class mjtDisableBit(enum.IntEnum):
    """MuJoCo's `mjtDisableBit`."""

    mjDSBL_CONSTRAINT = 1
    mjDSBL_EQUALITY = 2
    mjDSBL_FRICTIONLOSS = 4
    mjDSBL_LIMIT = 8
    mjDSBL_CONTACT = 16
    mjNDISABLE = 20
    mjDSBL_SPRING = 32
    mjDSBL_DAMPER = 64
    mjDSBL_GRAVITY = 128
    mjDSBL_CLAMPCTRL = 256
    mjDSBL_WARMSTART = 512
    mjDSBL_FILTERPARENT = 1024
    mjDSBL_ACTUATION = 2048
    mjDSBL_REFSAFE = 4096
    mjDSBL_SENSOR = 8192
    mjDSBL_MIDPHASE = 16384
    mjDSBL_EULERDAMP = 32768
    mjDSBL_AUTORESET = 65536
    mjDSBL_NATIVECCD = 131072
    mjDSBL_ISLAND = 262144
    mjDSBL_MULTICCD = 524288


class mjtEnableBit(enum.IntEnum):
    """MuJoCo's `mjtEnableBit`."""

    mjENBL_OVERRIDE = 1
    mjENBL_ENERGY = 2
    mjENBL_FWDINV = 4
    mjENBL_INVDISCRETE = 8
    mjNENABLE = 8
    mjENBL_SLEEP = 16
    mjENBL_DIAGEXACT = 32
    mjENBL_IPC = 64
    mjENBL_SPECULATIVE = 128


class mjtWarning(enum.IntEnum):
    """MuJoCo's `mjtWarning`."""

    mjWARN_INERTIA = 0
    mjWARN_CONTACTFULL = 1
    mjWARN_CNSTRFULL = 2
    mjWARN_BADQPOS = 3
    mjWARN_BADQVEL = 4
    mjWARN_BADQACC = 5
    mjWARN_BADCTRL = 6
    mjNWARNING = 7


class mjtTrn(enum.IntEnum):
    """MuJoCo's `mjtTrn`."""

    mjTRN_JOINT = 0
    mjTRN_JOINTINPARENT = 1
    mjTRN_SLIDERCRANK = 2
    mjTRN_TENDON = 3
    mjTRN_SITE = 4
    mjTRN_BODY = 5
    mjTRN_SO3 = 6
    mjTRN_UNDEFINED = 1000


class mjtDyn(enum.IntEnum):
    """MuJoCo's `mjtDyn`."""

    mjDYN_NONE = 0
    mjDYN_INTEGRATOR = 1
    mjDYN_FILTER = 2
    mjDYN_FILTEREXACT = 3
    mjDYN_MUSCLE = 4
    mjDYN_DCMOTOR = 5
    mjDYN_PID = 6
    mjDYN_USER = 7


class mjtGain(enum.IntEnum):
    """MuJoCo's `mjtGain`."""

    mjGAIN_FIXED = 0
    mjGAIN_AFFINE = 1
    mjGAIN_MUSCLE = 2
    mjGAIN_DCMOTOR = 3
    mjGAIN_SO3 = 4
    mjGAIN_PID = 5
    mjGAIN_USER = 6


class mjtBias(enum.IntEnum):
    """MuJoCo's `mjtBias`."""

    mjBIAS_NONE = 0
    mjBIAS_AFFINE = 1
    mjBIAS_MUSCLE = 2
    mjBIAS_DCMOTOR = 3
    mjBIAS_SO3 = 4
    mjBIAS_USER = 5


class mjtEq(enum.IntEnum):
    """MuJoCo's `mjtEq`."""

    mjEQ_CONNECT = 0
    mjEQ_WELD = 1
    mjEQ_JOINT = 2
    mjEQ_TENDON = 3
    mjEQ_FLEX = 4
    mjEQ_FLEXVERT = 5
    mjEQ_FLEXSTRAIN = 6
    mjEQ_DISTANCE = 7


class mjtSensor(enum.IntEnum):
    """MuJoCo's `mjtSensor`."""

    mjSENS_TOUCH = 0
    mjSENS_ACCELEROMETER = 1
    mjSENS_VELOCIMETER = 2
    mjSENS_GYRO = 3
    mjSENS_FORCE = 4
    mjSENS_TORQUE = 5
    mjSENS_MAGNETOMETER = 6
    mjSENS_RANGEFINDER = 7
    mjSENS_CAMPROJECTION = 8
    mjSENS_JOINTPOS = 9
    mjSENS_JOINTVEL = 10
    mjSENS_TENDONPOS = 11
    mjSENS_TENDONVEL = 12
    mjSENS_ACTUATORPOS = 13
    mjSENS_ACTUATORVEL = 14
    mjSENS_ACTUATORFRC = 15
    mjSENS_JOINTACTFRC = 16
    mjSENS_TENDONACTFRC = 17
    mjSENS_BALLQUAT = 18
    mjSENS_BALLANGVEL = 19
    mjSENS_JOINTLIMITPOS = 20
    mjSENS_JOINTLIMITVEL = 21
    mjSENS_JOINTLIMITFRC = 22
    mjSENS_TENDONLIMITPOS = 23
    mjSENS_TENDONLIMITVEL = 24
    mjSENS_TENDONLIMITFRC = 25
    mjSENS_FRAMEPOS = 26
    mjSENS_FRAMEQUAT = 27
    mjSENS_FRAMEXAXIS = 28
    mjSENS_FRAMEYAXIS = 29
    mjSENS_FRAMEZAXIS = 30
    mjSENS_FRAMELINVEL = 31
    mjSENS_FRAMEANGVEL = 32
    mjSENS_FRAMELINACC = 33
    mjSENS_FRAMEANGACC = 34
    mjSENS_SUBTREECOM = 35
    mjSENS_SUBTREELINVEL = 36
    mjSENS_SUBTREEANGMOM = 37
    mjSENS_INSIDESITE = 38
    mjSENS_GEOMDIST = 39
    mjSENS_GEOMNORMAL = 40
    mjSENS_GEOMFROMTO = 41
    mjSENS_CONTACT = 42
    mjSENS_E_POTENTIAL = 43
    mjSENS_E_KINETIC = 44
    mjSENS_CLOCK = 45
    mjSENS_TACTILE = 46
    mjSENS_PLUGIN = 47
    mjSENS_USER = 48


class mjtConstraint(enum.IntEnum):
    """MuJoCo's `mjtConstraint`."""

    mjCNSTR_EQUALITY = 0
    mjCNSTR_FRICTION_DOF = 1
    mjCNSTR_FRICTION_TENDON = 2
    mjCNSTR_LIMIT_JOINT = 3
    mjCNSTR_LIMIT_TENDON = 4
    mjCNSTR_CONTACT_FRICTIONLESS = 5
    mjCNSTR_CONTACT_PYRAMIDAL = 6
    mjCNSTR_CONTACT_ELLIPTIC = 7


class mjtConstraintState(enum.IntEnum):
    """MuJoCo's `mjtConstraintState`."""

    mjCNSTRSTATE_SATISFIED = 0
    mjCNSTRSTATE_QUADRATIC = 1
    mjCNSTRSTATE_LINEARNEG = 2
    mjCNSTRSTATE_LINEARPOS = 3
    mjCNSTRSTATE_CONE = 4


class mjtWrap(enum.IntEnum):
    """MuJoCo's `mjtWrap`."""

    mjWRAP_NONE = 0
    mjWRAP_JOINT = 1
    mjWRAP_PULLEY = 2
    mjWRAP_SITE = 3
    mjWRAP_SPHERE = 4
    mjWRAP_CYLINDER = 5


class mjtCamLight(enum.IntEnum):
    """MuJoCo's `mjtCamLight`."""

    mjCAMLIGHT_FIXED = 0
    mjCAMLIGHT_TRACK = 1
    mjCAMLIGHT_TRACKCOM = 2
    mjCAMLIGHT_TARGETBODY = 3
    mjCAMLIGHT_TARGETBODYCOM = 4


class mjtStage(enum.IntEnum):
    """MuJoCo's `mjtStage`."""

    mjSTAGE_NONE = 0
    mjSTAGE_POS = 1
    mjSTAGE_VEL = 2
    mjSTAGE_ACC = 3


class mjtDataType(enum.IntEnum):
    """MuJoCo's `mjtDataType`."""

    mjDATATYPE_REAL = 0
    mjDATATYPE_POSITIVE = 1
    mjDATATYPE_AXIS = 2
    mjDATATYPE_QUATERNION = 3


class mjtLimited(enum.IntEnum):
    """MuJoCo's `mjtLimited` (a specification's `limited`, `ctrllimited`, ...)."""

    mjLIMITED_FALSE = 0
    mjLIMITED_TRUE = 1
    mjLIMITED_AUTO = 2


class mjtOrientation(enum.IntEnum):
    """MuJoCo's `mjtOrientation` (a specification element's `alt.type`)."""

    mjORIENTATION_QUAT = 0
    mjORIENTATION_AXISANGLE = 1
    mjORIENTATION_XYAXES = 2
    mjORIENTATION_ZAXIS = 3
    mjORIENTATION_EULER = 4
