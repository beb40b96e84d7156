"""Type stubs of `moreau._moreau` (written by python/tools/gen_stubs.py)."""

import os
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

class MjcfLoadError(ValueError):
    """
    An MJCF file that does not load: attributes `file`, `line`, `column` (1-based, 0 when unknown), `element`, `attribute` (or None) and `kind` (the error class, e.g. 'BadNumber'). A ValueError, as MuJoCo raises for XML errors.
    """
    file: str
    line: int
    column: int
    element: str | None
    attribute: str | None
    kind: str

class FatalError(Exception):
    """
    MuJoCo's fatal error during a step (`mujoco.FatalError`): the arena's stack overflowed ("mj_stackAlloc: out of memory", with where and how many bytes, in MuJoCo's words). The step stopped there and the state was not integrated; a larger <size memory> avoids it.
    """

class UnstableSimulationError(RuntimeError):
    """
    The simulation diverged: a NaN, infinite or huge (> 1e10) value in qpos, qvel or qacc. MuJoCo prints its warning and resets the data (unless autoreset is disabled); moreau does the same to the data and then raises this exception with MuJoCo's warning text. Attributes: `warning` (the mjtWarning value) and `index` (the offending entry).
    """
    warning: int
    index: int

class MjModel:
    """
    A compiled MuJoCo model (`mujoco.MjModel`), loaded from MJCF by `MjModel.from_xml_path` or
    `MjModel.from_xml_string`.
    """
    @property
    def B_colind(self) -> NDArray[Any]:
        """
        The dofs of each body's row of `B`, ascending (int32, `nB`).
        """
        ...
    @property
    def B_rowadr(self) -> NDArray[Any]:
        """
        Per body: its first entry in `B_colind` (int32).
        """
        ...
    @property
    def B_rownnz(self) -> NDArray[Any]:
        """
        Per body: the number of dofs in its row of `B` (its own, its ancestors' and its
        descendants' dofs; the world's row holds every dof) (int32).
        """
        ...
    @property
    def D_colind(self) -> NDArray[Any]:
        """
        `D_colind` (read-only int32 copy).
        """
        ...
    @property
    def D_diag(self) -> NDArray[Any]:
        """
        `D_diag` (read-only int32 copy).
        """
        ...
    @property
    def D_rowadr(self) -> NDArray[Any]:
        """
        `D_rowadr` (read-only int32 copy).
        """
        ...
    @property
    def D_rownnz(self) -> NDArray[Any]:
        """
        `D_rownnz` (read-only int32 copy).
        """
        ...
    @property
    def M_colind(self) -> NDArray[Any]:
        """
        Column of each entry of `M` (`nC`): per row the dof's ancestors from the root, then the
        dof (read-only int32 copy).
        """
        ...
    @property
    def M_rowadr(self) -> NDArray[Any]:
        """
        Address of each row of `M` in `M_colind` (read-only int32 copy).
        """
        ...
    @property
    def M_rownnz(self) -> NDArray[Any]:
        """
        Number of nonzeros in each row of `M`'s lower triangle (read-only int32 copy).
        """
        ...
    def __copy__(self) -> MjModel: ...
    def __deepcopy__(self, memo: Any) -> MjModel: ...
    def __setattr__(self, attr: str, value: Any) -> None: ...
    _arrays: tuple[str, ...]
    def actuator(self, key: int | str) -> _NamedAccess:
        """
        Actuator accessor (`actuator_*` arrays), see `body`.
        """
        ...
    @property
    def actuator_acc0(self) -> NDArray[Any]:
        """
        `actuator_acc0` (writeable view).
        """
        ...
    @property
    def actuator_actadr(self) -> NDArray[Any]:
        """
        `actuator_actadr` (writeable int32 view).
        """
        ...
    @property
    def actuator_actearly(self) -> NDArray[Any]:
        """
        `actuator_actearly` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def actuator_actlimited(self) -> NDArray[Any]:
        """
        `actuator_actlimited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def actuator_actnum(self) -> NDArray[Any]:
        """
        `actuator_actnum` (read-only int32 copy).
        """
        ...
    @property
    def actuator_actrange(self) -> NDArray[Any]:
        """
        `actuator_actrange` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_armature(self) -> NDArray[Any]:
        """
        `actuator_armature` (writeable view).
        """
        ...
    @property
    def actuator_biasprm(self) -> NDArray[Any]:
        """
        `actuator_biasprm` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_biastype(self) -> NDArray[Any]:
        """
        `actuator_biastype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def actuator_cranklength(self) -> NDArray[Any]:
        """
        `actuator_cranklength` (writeable view).
        """
        ...
    @property
    def actuator_ctrladr(self) -> NDArray[Any]:
        """
        Per actuator: its first control in `ctrl` (int32); each actuator reads one control, its
        own (measured on MuJoCo 4.0.0 over the zoo).
        """
        ...
    @property
    def actuator_ctrllimited(self) -> NDArray[Any]:
        """
        `actuator_ctrllimited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def actuator_ctrlnum(self) -> NDArray[Any]:
        """
        Per actuator: its number of controls, 1 (int32).
        """
        ...
    @property
    def actuator_ctrlrange(self) -> NDArray[Any]:
        """
        `actuator_ctrlrange` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_ctrlspec(self) -> NDArray[Any]:
        """
        Per actuator: what its control means (MuJoCo's `actuator_ctrlspec`, bits of
        `mjtCtrlInput`): 1 a position target (`position`), 2 a velocity target (`velocity`,
        `intvelocity`), 32 a pressure (`cylinder`), 0 otherwise; `general` keeps its default
        class's value; 0 where the gain is not fixed (int32).
        """
        ...
    @property
    def actuator_damping(self) -> NDArray[Any]:
        """
        `actuator_damping` (writeable view).
        """
        ...
    @property
    def actuator_dampingpoly(self) -> NDArray[Any]:
        """
        `actuator_dampingpoly` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_dynprm(self) -> NDArray[Any]:
        """
        `actuator_dynprm` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_dyntype(self) -> NDArray[Any]:
        """
        `actuator_dyntype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def actuator_forcelimited(self) -> NDArray[Any]:
        """
        `actuator_forcelimited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def actuator_forcerange(self) -> NDArray[Any]:
        """
        `actuator_forcerange` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_gainprm(self) -> NDArray[Any]:
        """
        `actuator_gainprm` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_gaintype(self) -> NDArray[Any]:
        """
        `actuator_gaintype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def actuator_gear(self) -> NDArray[Any]:
        """
        `actuator_gear` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_group(self) -> NDArray[Any]:
        """
        `actuator_group` (writeable int32 view).
        """
        ...
    @property
    def actuator_length0(self) -> NDArray[Any]:
        """
        `actuator_length0` (writeable view).
        """
        ...
    @property
    def actuator_lengthrange(self) -> NDArray[Any]:
        """
        `actuator_lengthrange` (writeable view, one row per element).
        """
        ...
    @property
    def actuator_outadr(self) -> NDArray[Any]:
        """
        Per actuator: its first output (int32), its own index.
        """
        ...
    @property
    def actuator_outnum(self) -> NDArray[Any]:
        """
        Per actuator: its number of outputs, 1 (int32).
        """
        ...
    @property
    def actuator_plugin(self) -> NDArray[Any]:
        """
        Per actuator: its plugin instance, -1 (none).
        """
        ...
    @property
    def actuator_trnid(self) -> NDArray[Any]:
        """
        `actuator_trnid` (writeable int32 view).
        """
        ...
    @property
    def actuator_trntype(self) -> NDArray[Any]:
        """
        `actuator_trntype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def actuator_user(self) -> NDArray[Any]:
        """
        `actuator_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    def body(self, key: int | str) -> _NamedAccess:
        """
        Attribute-style access by name or id, as MuJoCo's `m.body('torso').mass`,
        `m.joint(0).range`, `m.geom('floor').friction`, `m.actuator('a').gear`: an object whose
        attributes are the rows of the `body_*` arrays (views where the arrays are views).
        """
        ...
    @property
    def body_conaffinity(self) -> NDArray[Any]:
        """
        Per body: the bitwise OR of its geoms' `conaffinity` (int32).
        """
        ...
    @property
    def body_contype(self) -> NDArray[Any]:
        """
        Per body: the bitwise OR of its geoms' `contype` (int32).
        """
        ...
    @property
    def body_dofadr(self) -> NDArray[Any]:
        """
        First dof of each body, -1 for bodies without dofs (read-only copy).
        """
        ...
    @property
    def body_dofnum(self) -> NDArray[Any]:
        """
        `body_dofnum` (read-only int32 copy).
        """
        ...
    @property
    def body_geomadr(self) -> NDArray[Any]:
        """
        First geom of each body, -1 for bodies without geoms (read-only copy).
        """
        ...
    @property
    def body_geomnum(self) -> NDArray[Any]:
        """
        `body_geomnum` (read-only int32 copy).
        """
        ...
    @property
    def body_gravcomp(self) -> NDArray[Any]:
        """
        `body_gravcomp` (writeable view).
        """
        ...
    @property
    def body_inertia(self) -> NDArray[Any]:
        """
        `body_inertia` (writeable view, one row per element).
        """
        ...
    @property
    def body_invweight0(self) -> NDArray[Any]:
        """
        `body_invweight0` (writeable view, one row per element).
        """
        ...
    @property
    def body_ipos(self) -> NDArray[Any]:
        """
        `body_ipos` (writeable view, one row per element).
        """
        ...
    @property
    def body_iquat(self) -> NDArray[Any]:
        """
        `body_iquat` (writeable view, one row per element).
        """
        ...
    @property
    def body_jntadr(self) -> NDArray[Any]:
        """
        First joint of each body, -1 for bodies without joints (read-only copy).
        """
        ...
    @property
    def body_jntnum(self) -> NDArray[Any]:
        """
        `body_jntnum` (read-only int32 copy).
        """
        ...
    @property
    def body_margin(self) -> NDArray[Any]:
        """
        Per body: the largest `margin` of its geoms, 0 without geoms.
        """
        ...
    @property
    def body_mass(self) -> NDArray[Any]:
        """
        `body_mass` (writeable view).
        """
        ...
    @property
    def body_mocapid(self) -> NDArray[Any]:
        """
        `body_mocapid` (writeable int32 view).
        """
        ...
    @property
    def body_parentid(self) -> NDArray[Any]:
        """
        `body_parentid` (read-only int32 copy).
        """
        ...
    @property
    def body_plugin(self) -> NDArray[Any]:
        """
        Per body: its plugin instance, -1 (none).
        """
        ...
    @property
    def body_pos(self) -> NDArray[Any]:
        """
        `body_pos` (writeable view, one row per element).
        """
        ...
    @property
    def body_quat(self) -> NDArray[Any]:
        """
        `body_quat` (writeable view, one row per element).
        """
        ...
    @property
    def body_rootid(self) -> NDArray[Any]:
        """
        `body_rootid` (read-only int32 copy).
        """
        ...
    @property
    def body_sameframe(self) -> NDArray[Any]:
        """
        Per body: `mjtSameFrame`, how its frame relates to its inertial frame (uint8).
        """
        ...
    @property
    def body_simple(self) -> NDArray[Any]:
        """
        Per body: 2 for a slider body (slide joints only, mass · I), 1 for the world and another
        simple body (diagonal block of M, [`moreau::simple_body`]), else 0 (read-only uint8
        copy, as MuJoCo's).
        """
        ...
    @property
    def body_subtreemass(self) -> NDArray[Any]:
        """
        `body_subtreemass` (writeable view).
        """
        ...
    @property
    def body_treeid(self) -> NDArray[Any]:
        """
        Per body: its kinematic tree, -1 for the world and bodies welded to it (int32).
        """
        ...
    @property
    def body_user(self) -> NDArray[Any]:
        """
        `body_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    @property
    def body_weldid(self) -> NDArray[Any]:
        """
        `body_weldid` (read-only int32 copy).
        """
        ...
    @property
    def cam_bodyid(self) -> NDArray[Any]:
        """
        `cam_bodyid` (read-only int32 copy).
        """
        ...
    @property
    def cam_fovy(self) -> NDArray[Any]:
        """
        `cam_fovy` (writeable view).
        """
        ...
    @property
    def cam_ipd(self) -> NDArray[Any]:
        """
        `cam_ipd` (writeable view).
        """
        ...
    @property
    def cam_mat0(self) -> NDArray[Any]:
        """
        `cam_mat0` (writeable view, one row per element).
        """
        ...
    @property
    def cam_mode(self) -> NDArray[Any]:
        """
        `cam_mode` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def cam_pos(self) -> NDArray[Any]:
        """
        `cam_pos` (writeable view, one row per element).
        """
        ...
    @property
    def cam_pos0(self) -> NDArray[Any]:
        """
        `cam_pos0` (writeable view, one row per element).
        """
        ...
    @property
    def cam_poscom0(self) -> NDArray[Any]:
        """
        `cam_poscom0` (writeable view, one row per element).
        """
        ...
    @property
    def cam_quat(self) -> NDArray[Any]:
        """
        `cam_quat` (writeable view, one row per element).
        """
        ...
    @property
    def cam_targetbodyid(self) -> NDArray[Any]:
        """
        `cam_targetbodyid` (writeable int32 view).
        """
        ...
    @property
    def cam_user(self) -> NDArray[Any]:
        """
        `cam_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    def camera(self, key: int | str) -> _NamedAccess:
        """
        Camera accessor (`cam_*` arrays), see `body`.
        """
        ...
    @property
    def dof_M0(self) -> NDArray[Any]:
        """
        `dof_M0` (writeable view).
        """
        ...
    @property
    def dof_Madr(self) -> NDArray[Any]:
        """
        `dof_Madr` (read-only int32 copy).
        """
        ...
    @property
    def dof_armature(self) -> NDArray[Any]:
        """
        `dof_armature` (writeable view).
        """
        ...
    @property
    def dof_bodyid(self) -> NDArray[Any]:
        """
        `dof_bodyid` (read-only int32 copy).
        """
        ...
    @property
    def dof_damping(self) -> NDArray[Any]:
        """
        `dof_damping` (writeable view).
        """
        ...
    @property
    def dof_dampingpoly(self) -> NDArray[Any]:
        """
        `dof_dampingpoly` (writeable view, one row per element).
        """
        ...
    @property
    def dof_frictionloss(self) -> NDArray[Any]:
        """
        `dof_frictionloss` (writeable view).
        """
        ...
    @property
    def dof_invweight0(self) -> NDArray[Any]:
        """
        `dof_invweight0` (writeable view).
        """
        ...
    @property
    def dof_jntid(self) -> NDArray[Any]:
        """
        `dof_jntid` (read-only int32 copy).
        """
        ...
    @property
    def dof_length(self) -> NDArray[Any]:
        """
        `dof_length` (writeable view).
        """
        ...
    @property
    def dof_parentid(self) -> NDArray[Any]:
        """
        `dof_parentid` (writeable int32 view).
        """
        ...
    @property
    def dof_simplenum(self) -> NDArray[Any]:
        """
        Per dof: the number of consecutive dofs from it on that belong to simple bodies
        (`body_simple > 0`), 0 for a dof of another body (read-only int32 copy).
        """
        ...
    @property
    def dof_solimp(self) -> NDArray[Any]:
        """
        `dof_solimp` (writeable view, one row per element).
        """
        ...
    @property
    def dof_solref(self) -> NDArray[Any]:
        """
        `dof_solref` (writeable view, one row per element).
        """
        ...
    @property
    def dof_treeid(self) -> NDArray[Any]:
        """
        Per dof: its kinematic tree (int32).
        """
        ...
    @property
    def eq_active0(self) -> NDArray[Any]:
        """
        `eq_active0` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def eq_data(self) -> NDArray[Any]:
        """
        `eq_data` (writeable view, one row per element).
        """
        ...
    @property
    def eq_obj1id(self) -> NDArray[Any]:
        """
        `eq_obj1id` (writeable int32 view).
        """
        ...
    @property
    def eq_obj2id(self) -> NDArray[Any]:
        """
        `eq_obj2id` (writeable int32 view).
        """
        ...
    @property
    def eq_objtype(self) -> NDArray[Any]:
        """
        `eq_objtype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def eq_solimp(self) -> NDArray[Any]:
        """
        `eq_solimp` (writeable view, one row per element).
        """
        ...
    @property
    def eq_solref(self) -> NDArray[Any]:
        """
        `eq_solref` (writeable view, one row per element).
        """
        ...
    @property
    def eq_type(self) -> NDArray[Any]:
        """
        `eq_type` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    def equality(self, key: int | str) -> _NamedAccess:
        """
        Equality accessor (`eq_*` arrays), see `body`.
        """
        ...
    @property
    def exclude_signature(self) -> NDArray[Any]:
        """
        `exclude_signature` (writeable int32 view, MuJoCo's dtype, of the engine's uint32 bits).
        """
        ...
    @property
    def flg_adhesion(self) -> NDArray[Any]:
        """
        Whether a geom has `adhesion`: false (moreau's compiler refuses the attribute).
        """
        ...
    @property
    def flg_gravcomp(self) -> NDArray[Any]:
        """
        Whether a body has gravity compensation (`ngravcomp > 0`).
        """
        ...
    @property
    def flg_surfacevel(self) -> NDArray[Any]:
        """
        Whether a geom has `surfacevel`: false (moreau's compiler refuses the attribute).
        """
        ...
    @staticmethod
    def from_xml_path(filename: str | os.PathLike[str], assets: dict[str, bytes] | None = None) -> MjModel:
        """
        Loads and compiles the MJCF file at `filename` (includes, meshes and height fields
        relative to its directory). `assets` maps file names to bytes that are looked up before
        the disk (MuJoCo's VFS). Raises `MjcfLoadError` (a ValueError) naming the file, line,
        column and attribute.
        """
        ...
    @staticmethod
    def from_xml_string(xml: str, assets: dict[str, bytes] | None = None) -> MjModel:
        """
        Compiles an MJCF document given as a string; `assets` maps file names (includes,
        meshes, height fields) to their bytes (MuJoCo's VFS).
        """
        ...
    def geom(self, key: int | str) -> _NamedAccess:
        """
        Geom accessor (`geom_*` arrays), see `body`.
        """
        ...
    @property
    def geom_aabb(self) -> NDArray[Any]:
        """
        `geom_aabb` (writeable view, one row per element).
        """
        ...
    @property
    def geom_adhesion(self) -> NDArray[Any]:
        """
        Per geom: its `adhesion`, 0 (refused by moreau's compiler) (float64).
        """
        ...
    @property
    def geom_bodyid(self) -> NDArray[Any]:
        """
        `geom_bodyid` (read-only int32 copy).
        """
        ...
    @property
    def geom_conaffinity(self) -> NDArray[Any]:
        """
        `geom_conaffinity` (writeable int32 view, MuJoCo's dtype, of the engine's uint32 bits).
        """
        ...
    @property
    def geom_condim(self) -> NDArray[Any]:
        """
        `geom_condim` (read-only int32 copy).
        """
        ...
    @property
    def geom_contype(self) -> NDArray[Any]:
        """
        `geom_contype` (writeable int32 view, MuJoCo's dtype, of the engine's uint32 bits).
        """
        ...
    @property
    def geom_dataid(self) -> NDArray[Any]:
        """
        `geom_dataid` (writeable int32 view).
        """
        ...
    @property
    def geom_fluid(self) -> NDArray[Any]:
        """
        `geom_fluid` (writeable view, one row per element).
        """
        ...
    @property
    def geom_friction(self) -> NDArray[Any]:
        """
        `geom_friction` (writeable view, one row per element).
        """
        ...
    @property
    def geom_gap(self) -> NDArray[Any]:
        """
        `geom_gap` (writeable view).
        """
        ...
    @property
    def geom_group(self) -> NDArray[Any]:
        """
        `geom_group` (writeable int32 view).
        """
        ...
    @property
    def geom_margin(self) -> NDArray[Any]:
        """
        `geom_margin` (writeable view).
        """
        ...
    @property
    def geom_matid(self) -> NDArray[Any]:
        """
        `geom_matid` (writeable int32 view).
        """
        ...
    @property
    def geom_plugin(self) -> NDArray[Any]:
        """
        Per geom: its plugin instance, -1 (none).
        """
        ...
    @property
    def geom_pos(self) -> NDArray[Any]:
        """
        `geom_pos` (writeable view, one row per element).
        """
        ...
    @property
    def geom_priority(self) -> NDArray[Any]:
        """
        `geom_priority` (writeable int32 view).
        """
        ...
    @property
    def geom_quat(self) -> NDArray[Any]:
        """
        `geom_quat` (writeable view, one row per element).
        """
        ...
    @property
    def geom_rbound(self) -> NDArray[Any]:
        """
        `geom_rbound` (writeable view).
        """
        ...
    @property
    def geom_rgba(self) -> NDArray[Any]:
        """
        `geom_rgba` (writeable view, one row per element).
        """
        ...
    @property
    def geom_sameframe(self) -> NDArray[Any]:
        """
        Per geom: `mjtSameFrame`, how its frame relates to its body's (uint8).
        """
        ...
    @property
    def geom_size(self) -> NDArray[Any]:
        """
        `geom_size` (writeable view, one row per element).
        """
        ...
    @property
    def geom_solimp(self) -> NDArray[Any]:
        """
        `geom_solimp` (writeable view, one row per element).
        """
        ...
    @property
    def geom_solmix(self) -> NDArray[Any]:
        """
        `geom_solmix` (writeable view).
        """
        ...
    @property
    def geom_solref(self) -> NDArray[Any]:
        """
        `geom_solref` (writeable view, one row per element).
        """
        ...
    @property
    def geom_surfacevel(self) -> NDArray[Any]:
        """
        Per geom: its `surfacevel`, zeros (refused by moreau's compiler) (float64, `ngeom × 6`).
        """
        ...
    @property
    def geom_type(self) -> NDArray[Any]:
        """
        `geom_type` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def geom_user(self) -> NDArray[Any]:
        """
        `geom_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    @property
    def hfield_adr(self) -> NDArray[Any]:
        """
        Per height field: its first entry in `hfield_data` (int32).
        """
        ...
    @property
    def hfield_data(self) -> NDArray[Any]:
        """
        The height fields' elevations in [0, 1], row-major, one after another (float32, as
        MuJoCo stores them).
        """
        ...
    @property
    def hfield_ncol(self) -> NDArray[Any]:
        """
        Per height field: its number of columns (int32).
        """
        ...
    @property
    def hfield_nrow(self) -> NDArray[Any]:
        """
        Per height field: its number of rows (int32).
        """
        ...
    @property
    def hfield_size(self) -> NDArray[Any]:
        """
        Per height field: `(x, y, zmax, zbase)` (float64, `nhfield × 4`).
        """
        ...
    def jnt(self, key: int | str) -> _NamedAccess:
        """
        Alias of `joint`.
        """
        ...
    @property
    def jnt_actfrclimited(self) -> NDArray[Any]:
        """
        `jnt_actfrclimited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def jnt_actfrcrange(self) -> NDArray[Any]:
        """
        `jnt_actfrcrange` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_actgravcomp(self) -> NDArray[Any]:
        """
        `jnt_actgravcomp` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def jnt_actuatorid(self) -> NDArray[Any]:
        """
        Per joint: the actuator whose `damping` or `armature` the joint inherits (a joint or
        jointinparent transmission with a nonzero `damping`, `dampingpoly` or `armature`), -1
        without one, -2 with several (MuJoCo's `jnt_actuatorid`, measured on MuJoCo 4.0.0)
        (int32).
        """
        ...
    @property
    def jnt_axis(self) -> NDArray[Any]:
        """
        `jnt_axis` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_bodyid(self) -> NDArray[Any]:
        """
        `jnt_bodyid` (read-only int32 copy).
        """
        ...
    @property
    def jnt_dofadr(self) -> NDArray[Any]:
        """
        `jnt_dofadr` (read-only int32 copy).
        """
        ...
    @property
    def jnt_group(self) -> NDArray[Any]:
        """
        `jnt_group` (writeable int32 view).
        """
        ...
    @property
    def jnt_limited(self) -> NDArray[Any]:
        """
        `jnt_limited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def jnt_margin(self) -> NDArray[Any]:
        """
        `jnt_margin` (writeable view).
        """
        ...
    @property
    def jnt_pos(self) -> NDArray[Any]:
        """
        `jnt_pos` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_qposadr(self) -> NDArray[Any]:
        """
        `jnt_qposadr` (read-only int32 copy).
        """
        ...
    @property
    def jnt_range(self) -> NDArray[Any]:
        """
        `jnt_range` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_solimp(self) -> NDArray[Any]:
        """
        `jnt_solimp` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_solref(self) -> NDArray[Any]:
        """
        `jnt_solref` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_stiffness(self) -> NDArray[Any]:
        """
        `jnt_stiffness` (writeable view).
        """
        ...
    @property
    def jnt_stiffnesspoly(self) -> NDArray[Any]:
        """
        `jnt_stiffnesspoly` (writeable view, one row per element).
        """
        ...
    @property
    def jnt_type(self) -> NDArray[Any]:
        """
        `jnt_type` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def jnt_user(self) -> NDArray[Any]:
        """
        `jnt_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    def joint(self, key: int | str) -> _NamedAccess:
        """
        Joint accessor (`jnt_*` arrays), see `body`.
        """
        ...
    def key(self, key: int | str) -> _NamedAccess:
        """
        Keyframe accessor (`key_*` arrays), see `body`.
        """
        ...
    @property
    def key_act(self) -> NDArray[Any]:
        """
        Keyframe activations `(nkey, na)` (read-only copy).
        """
        ...
    @property
    def key_ctrl(self) -> NDArray[Any]:
        """
        Keyframe controls `(nkey, nu)` (read-only copy).
        """
        ...
    @property
    def key_mpos(self) -> NDArray[Any]:
        """
        Keyframe mocap positions `(nkey, 3 nmocap)` (read-only copy).
        """
        ...
    @property
    def key_mquat(self) -> NDArray[Any]:
        """
        Keyframe mocap orientations `(nkey, 4 nmocap)` (read-only copy).
        """
        ...
    @property
    def key_qpos(self) -> NDArray[Any]:
        """
        Keyframe positions `(nkey, nq)`, `qpos0` where a keyframe has none (read-only copy).
        """
        ...
    @property
    def key_qvel(self) -> NDArray[Any]:
        """
        Keyframe velocities `(nkey, nv)` (read-only copy).
        """
        ...
    @property
    def key_time(self) -> NDArray[Any]:
        """
        `key_time` (writeable view).
        """
        ...
    def keyframe(self, key: int | str) -> _NamedAccess:
        """
        Alias of `key`.
        """
        ...
    @property
    def light_active(self) -> NDArray[Any]:
        """
        `light_active` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def light_ambient(self) -> NDArray[Any]:
        """
        `light_ambient` (writeable view, one row per element).
        """
        ...
    @property
    def light_attenuation(self) -> NDArray[Any]:
        """
        `light_attenuation` (writeable view, one row per element).
        """
        ...
    @property
    def light_bodyid(self) -> NDArray[Any]:
        """
        `light_bodyid` (read-only int32 copy).
        """
        ...
    @property
    def light_bulbradius(self) -> NDArray[Any]:
        """
        `light_bulbradius` (writeable view).
        """
        ...
    @property
    def light_castshadow(self) -> NDArray[Any]:
        """
        `light_castshadow` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def light_cutoff(self) -> NDArray[Any]:
        """
        `light_cutoff` (writeable view).
        """
        ...
    @property
    def light_diffuse(self) -> NDArray[Any]:
        """
        `light_diffuse` (writeable view, one row per element).
        """
        ...
    @property
    def light_dir(self) -> NDArray[Any]:
        """
        `light_dir` (writeable view, one row per element).
        """
        ...
    @property
    def light_dir0(self) -> NDArray[Any]:
        """
        `light_dir0` (writeable view, one row per element).
        """
        ...
    @property
    def light_exponent(self) -> NDArray[Any]:
        """
        `light_exponent` (writeable view).
        """
        ...
    @property
    def light_intensity(self) -> NDArray[Any]:
        """
        `light_intensity` (writeable view).
        """
        ...
    @property
    def light_mode(self) -> NDArray[Any]:
        """
        `light_mode` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def light_pos(self) -> NDArray[Any]:
        """
        `light_pos` (writeable view, one row per element).
        """
        ...
    @property
    def light_pos0(self) -> NDArray[Any]:
        """
        `light_pos0` (writeable view, one row per element).
        """
        ...
    @property
    def light_poscom0(self) -> NDArray[Any]:
        """
        `light_poscom0` (writeable view, one row per element).
        """
        ...
    @property
    def light_range(self) -> NDArray[Any]:
        """
        `light_range` (writeable view).
        """
        ...
    @property
    def light_softness(self) -> NDArray[Any]:
        """
        `light_softness` (writeable view).
        """
        ...
    @property
    def light_specular(self) -> NDArray[Any]:
        """
        `light_specular` (writeable view, one row per element).
        """
        ...
    @property
    def light_targetbodyid(self) -> NDArray[Any]:
        """
        `light_targetbodyid` (writeable int32 view).
        """
        ...
    @property
    def light_texid(self) -> NDArray[Any]:
        """
        `light_texid` (writeable int32 view).
        """
        ...
    @property
    def light_type(self) -> NDArray[Any]:
        """
        `light_type` (writeable int32 view).
        """
        ...
    @property
    def mapD2M(self) -> NDArray[Any]:
        """
        Per entry of `M` (`nC`): its index in `D` (int32).
        """
        ...
    @property
    def mapM2D(self) -> NDArray[Any]:
        """
        Per entry of `D` (`nD`): its index in `M` (the lower-triangle entry of the same pair of
        dofs), -1 where `M` leaves it out (a simple body's structural zeros) (int32).
        """
        ...
    @property
    def mapM2M(self) -> NDArray[Any]:
        """
        Per entry of `M` (`nC`): its index in the legacy `qM` layout (`dof_Madr`: each row the
        diagonal, then the ancestors upwards) (int32).
        """
        ...
    @property
    def mat_emission(self) -> NDArray[Any]:
        """
        `mat_emission` (writeable view).
        """
        ...
    @property
    def mat_metallic(self) -> NDArray[Any]:
        """
        `mat_metallic` (writeable view).
        """
        ...
    @property
    def mat_reflectance(self) -> NDArray[Any]:
        """
        `mat_reflectance` (writeable view).
        """
        ...
    @property
    def mat_rgba(self) -> NDArray[Any]:
        """
        `mat_rgba` (writeable view, one row per element).
        """
        ...
    @property
    def mat_roughness(self) -> NDArray[Any]:
        """
        `mat_roughness` (writeable view).
        """
        ...
    @property
    def mat_shininess(self) -> NDArray[Any]:
        """
        `mat_shininess` (writeable view).
        """
        ...
    @property
    def mat_specular(self) -> NDArray[Any]:
        """
        `mat_specular` (writeable view).
        """
        ...
    @property
    def mat_texid(self) -> NDArray[Any]:
        """
        Per material and `mjtTextureRole`, the texture id or -1 (int32, `nmat × 10`).
        """
        ...
    @property
    def mesh_extrema(self) -> NDArray[Any]:
        """
        Per mesh: the hull vertex farthest along each of the 27 directions (i, j, k) in
        {-1, 0, 1}³, at 9 (i + 1) + 3 (j + 1) + (k + 1); 0 without a hull (int32, `nmesh × 27`,
        MuJoCo's `mesh_extrema`).
        """
        ...
    @property
    def mesh_face(self) -> NDArray[Any]:
        """
        The meshes' faces, vertex indices within their mesh (int32, `nmeshface × 3`).
        """
        ...
    @property
    def mesh_faceadr(self) -> NDArray[Any]:
        """
        Per mesh: its first face in `mesh_face` (int32).
        """
        ...
    @property
    def mesh_facenum(self) -> NDArray[Any]:
        """
        Per mesh: its number of faces (int32).
        """
        ...
    @property
    def mesh_graph(self) -> NDArray[Any]:
        """
        The meshes' convex-hull graphs one after another (int32).
        """
        ...
    @property
    def mesh_graphadr(self) -> NDArray[Any]:
        """
        Per mesh: its first entry in `mesh_graph`, -1 without a convex hull (int32).
        """
        ...
    @property
    def mesh_polyadr(self) -> NDArray[Any]:
        """
        Per mesh: its first polygon (int32).
        """
        ...
    @property
    def mesh_polymap(self) -> NDArray[Any]:
        """
        Per mesh vertex: the polygons containing it, ascending, indices within their mesh
        (int32, `nmeshpolymap`).
        """
        ...
    @property
    def mesh_polymapadr(self) -> NDArray[Any]:
        """
        Per mesh vertex: its first entry in `mesh_polymap` (int32, `nmeshvert`).
        """
        ...
    @property
    def mesh_polymapnum(self) -> NDArray[Any]:
        """
        Per mesh vertex: the number of polygons containing it (int32, `nmeshvert`).
        """
        ...
    @property
    def mesh_polynormal(self) -> NDArray[Any]:
        """
        Per polygon: its unit outward normal (float64, `nmeshpoly × 3`).
        """
        ...
    @property
    def mesh_polynum(self) -> NDArray[Any]:
        """
        Per mesh: its number of hull polygons (int32).
        """
        ...
    @property
    def mesh_polyvert(self) -> NDArray[Any]:
        """
        The polygons' corners, vertex indices within their mesh, counter-clockwise about the
        outward normal (int32, `nmeshpolyvert`).
        """
        ...
    @property
    def mesh_polyvertadr(self) -> NDArray[Any]:
        """
        Per polygon: its first corner in `mesh_polyvert` (int32).
        """
        ...
    @property
    def mesh_polyvertnum(self) -> NDArray[Any]:
        """
        Per polygon: its number of corners (int32).
        """
        ...
    @property
    def mesh_pos(self) -> NDArray[Any]:
        """
        Per mesh: the offset removed from its authored vertices (float64, `nmesh × 3`).
        """
        ...
    @property
    def mesh_quat(self) -> NDArray[Any]:
        """
        Per mesh: the rotation removed from its authored vertices (float64, `nmesh × 4`).
        """
        ...
    @property
    def mesh_vert(self) -> NDArray[Any]:
        """
        The meshes' vertices in their mesh frames (float32, `nmeshvert × 3`, as MuJoCo stores
        them).
        """
        ...
    @property
    def mesh_vertadr(self) -> NDArray[Any]:
        """
        Per mesh: its first vertex in `mesh_vert` (int32).
        """
        ...
    @property
    def mesh_vertnum(self) -> NDArray[Any]:
        """
        Per mesh: its number of vertices (int32).
        """
        ...
    @property
    def nB(self) -> int:
        """
        Number of nonzeros of the body–dof sparsity `B`.
        """
        ...
    @property
    def nC(self) -> int:
        """
        Number of nonzeros of the inertia's lower triangle in MuJoCo's sparse layout (`M`).
        """
        ...
    @property
    def nD(self) -> int:
        """
        Size `nD`.
        """
        ...
    @property
    def nJmom(self) -> int:
        """
        Size `nJmom`.
        """
        ...
    @property
    def nJten(self) -> int:
        """
        Size `nJten`.
        """
        ...
    @property
    def nM(self) -> int:
        """
        Size `nM`.
        """
        ...
    @property
    def na(self) -> int:
        """
        Size `na`.
        """
        ...
    @property
    def nactuator(self) -> int:
        """
        Number of actuators (MuJoCo's `nactuator`, equal to `nu`).
        """
        ...
    def name(self, objtype: int, id: int) -> str | None:
        """
        Name of element `id` of object type `objtype` (an `mjtObj` value), or None.
        """
        ...
    @property
    def name_actuatoradr(self) -> NDArray[Any]:
        """
        `name_actuatoradr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_bodyadr(self) -> NDArray[Any]:
        """
        `name_bodyadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_camadr(self) -> NDArray[Any]:
        """
        `name_camadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_eqadr(self) -> NDArray[Any]:
        """
        `name_eqadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_excludeadr(self) -> NDArray[Any]:
        """
        `name_excludeadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_flexadr(self) -> NDArray[Any]:
        """
        `name_flexadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_geomadr(self) -> NDArray[Any]:
        """
        `name_geomadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_hfieldadr(self) -> NDArray[Any]:
        """
        `name_hfieldadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_jntadr(self) -> NDArray[Any]:
        """
        `name_jntadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_keyadr(self) -> NDArray[Any]:
        """
        `name_keyadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_lightadr(self) -> NDArray[Any]:
        """
        `name_lightadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_matadr(self) -> NDArray[Any]:
        """
        `name_matadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_meshadr(self) -> NDArray[Any]:
        """
        `name_meshadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_numericadr(self) -> NDArray[Any]:
        """
        `name_numericadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_pairadr(self) -> NDArray[Any]:
        """
        `name_pairadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_pluginadr(self) -> NDArray[Any]:
        """
        `name_pluginadr`: empty (moreau refuses plugins).
        """
        ...
    @property
    def name_sensoradr(self) -> NDArray[Any]:
        """
        `name_sensoradr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_siteadr(self) -> NDArray[Any]:
        """
        `name_siteadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_skinadr(self) -> NDArray[Any]:
        """
        `name_skinadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_tendonadr(self) -> NDArray[Any]:
        """
        `name_tendonadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_texadr(self) -> NDArray[Any]:
        """
        `name_texadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_textadr(self) -> NDArray[Any]:
        """
        `name_textadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def name_tupleadr(self) -> NDArray[Any]:
        """
        `name_tupleadr`: the addresses of the names in `names` (read-only int32 copy).
        """
        ...
    @property
    def names(self) -> int:
        """
        `names`: the model's name and every element's name, each ended by a zero byte (bytes,
        as MuJoCo's).
        """
        ...
    @property
    def names_map(self) -> NDArray[Any]:
        """
        `names_map`: MuJoCo's hash tables of the names (read-only int32 copy), one per object
        type of `names` in its order, each of twice the type's element count: a named element's
        id sits at its name's hash modulo the table's size, or at the next free entry after it
        (wrapping), in id order; free entries are -1. The hash is djb2 with xor over the name's
        bytes as C's signed `char` (measured on MuJoCo 4.0.0: every model of models/ and
        non-ASCII names, `test_spec.py`).
        """
        ...
    @property
    def narena(self) -> int:
        """
        Bytes of the arena of each `MjData` (`<size memory>`, else MuJoCo's default for the
        model's sizes).
        """
        ...
    @property
    def nbody(self) -> int:
        """
        Size `nbody`.
        """
        ...
    @property
    def ncam(self) -> int:
        """
        Size `ncam`.
        """
        ...
    @property
    def nconmax(self) -> int:
        """
        `<size nconmax>`, -1 when not set.
        """
        ...
    @property
    def neq(self) -> int:
        """
        Size `neq`.
        """
        ...
    @property
    def nexclude(self) -> int:
        """
        Size `nexclude`.
        """
        ...
    @property
    def ngeom(self) -> int:
        """
        Size `ngeom`.
        """
        ...
    @property
    def ngravcomp(self) -> int:
        """
        Number of bodies with gravity compensation (`body_gravcomp` nonzero).
        """
        ...
    @property
    def nhfield(self) -> int:
        """
        Size `nhfield`.
        """
        ...
    @property
    def nhfielddata(self) -> int:
        """
        Number of height-field elevations (`nhfielddata`).
        """
        ...
    @property
    def njmax(self) -> int:
        """
        `<size njmax>`, -1 when not set.
        """
        ...
    @property
    def njnt(self) -> int:
        """
        Size `njnt`.
        """
        ...
    @property
    def nkey(self) -> int:
        """
        Size `nkey`.
        """
        ...
    @property
    def nlight(self) -> int:
        """
        Size `nlight`.
        """
        ...
    @property
    def nmat(self) -> int:
        """
        Size `nmat`.
        """
        ...
    @property
    def nmesh(self) -> int:
        """
        Size `nmesh`.
        """
        ...
    @property
    def nmeshdegmax(self) -> int:
        """
        The most polygons at one vertex (`nmeshdegmax`).
        """
        ...
    @property
    def nmeshface(self) -> int:
        """
        Number of mesh faces (`nmeshface`).
        """
        ...
    @property
    def nmeshgraph(self) -> int:
        """
        Number of `mesh_graph` entries (`nmeshgraph`).
        """
        ...
    @property
    def nmeshpoly(self) -> int:
        """
        Number of hull polygons of all meshes (`nmeshpoly`).
        """
        ...
    @property
    def nmeshpolymap(self) -> int:
        """
        Number of vertex-to-polygon entries of all meshes (`nmeshpolymap`).
        """
        ...
    @property
    def nmeshpolyvert(self) -> NDArray[Any]:
        """
        Number of polygon corners of all meshes (`nmeshpolyvert`).
        """
        ...
    @property
    def nmeshvert(self) -> int:
        """
        Number of mesh vertices (`nmeshvert`).
        """
        ...
    @property
    def nmocap(self) -> int:
        """
        Size `nmocap`.
        """
        ...
    @property
    def nnames(self) -> int:
        """
        `nnames`: the length of `names` in bytes.
        """
        ...
    @property
    def nnames_map(self) -> NDArray[Any]:
        """
        `nnames_map`: the length of `names_map` (twice the number of elements).
        """
        ...
    @property
    def nnumeric(self) -> int:
        """
        Size `nnumeric`.
        """
        ...
    @property
    def nnumericdata(self) -> int:
        """
        Number of custom numeric values (the length of `numeric_data`).
        """
        ...
    @property
    def nout(self) -> int:
        """
        Number of actuator outputs (MuJoCo's `nout`): one per actuator.
        """
        ...
    @property
    def npair(self) -> int:
        """
        Size `npair`.
        """
        ...
    @property
    def nplugin(self) -> int:
        """
        Number of plugin instances: 0 (moreau refuses `<extension>`).
        """
        ...
    @property
    def npluginattr(self) -> int:
        """
        Number of plugin configuration characters: 0.
        """
        ...
    @property
    def npluginstate(self) -> int:
        """
        Number of plugin state numbers: 0.
        """
        ...
    @property
    def npolygonmax(self) -> int:
        """
        The most corners of one polygon (`npolygonmax`).
        """
        ...
    @property
    def nq(self) -> int:
        """
        Size `nq`.
        """
        ...
    @property
    def nsensor(self) -> int:
        """
        Size `nsensor`.
        """
        ...
    @property
    def nsensordata(self) -> int:
        """
        Size `nsensordata`.
        """
        ...
    @property
    def nsite(self) -> int:
        """
        Size `nsite`.
        """
        ...
    @property
    def ntendon(self) -> int:
        """
        Size `ntendon`.
        """
        ...
    @property
    def ntex(self) -> int:
        """
        Number of textures (`ntex`).
        """
        ...
    @property
    def ntexdata(self) -> int:
        """
        Number of texture samples (`ntexdata`).
        """
        ...
    @property
    def ntree(self) -> int:
        """
        Number of kinematic trees.
        """
        ...
    @property
    def nu(self) -> int:
        """
        Size `nu`.
        """
        ...
    @property
    def numeric_adr(self) -> NDArray[Any]:
        """
        `numeric_adr` (read-only int32 copy).
        """
        ...
    @property
    def numeric_data(self) -> NDArray[Any]:
        """
        `numeric_data` (writeable view).
        """
        ...
    @property
    def numeric_size(self) -> NDArray[Any]:
        """
        `numeric_size` (read-only int32 copy).
        """
        ...
    @property
    def nuser_actuator(self) -> NDArray[Any]:
        """
        `nuser_actuator`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_body(self) -> NDArray[Any]:
        """
        `nuser_body`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_cam(self) -> NDArray[Any]:
        """
        `nuser_cam`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_geom(self) -> NDArray[Any]:
        """
        `nuser_geom`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_jnt(self) -> NDArray[Any]:
        """
        `nuser_jnt`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_sensor(self) -> NDArray[Any]:
        """
        `nuser_sensor`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_site(self) -> NDArray[Any]:
        """
        `nuser_site`: numbers of `user` data per element.
        """
        ...
    @property
    def nuser_tendon(self) -> NDArray[Any]:
        """
        `nuser_tendon`: numbers of `user` data per element.
        """
        ...
    @property
    def nuserdata(self) -> int:
        """
        `<size nuserdata>`: the length of `MjData.userdata`.
        """
        ...
    @property
    def nv(self) -> int:
        """
        Size `nv`.
        """
        ...
    @property
    def nwrap(self) -> int:
        """
        Size `nwrap`.
        """
        ...
    @property
    def opt(self) -> MjOption:
        """
        The physics options (`mjOption`): a view, `m.opt.timestep = 0.001` changes the model.
        """
        ...
    @property
    def pair_adhesion(self) -> NDArray[Any]:
        """
        Per contact pair: its `adhesion`, 0 (refused by moreau's compiler) (float64).
        """
        ...
    @property
    def pair_dim(self) -> NDArray[Any]:
        """
        `pair_dim` (read-only int32 copy).
        """
        ...
    @property
    def pair_friction(self) -> NDArray[Any]:
        """
        `pair_friction` (writeable view, one row per element).
        """
        ...
    @property
    def pair_gap(self) -> NDArray[Any]:
        """
        `pair_gap` (writeable view).
        """
        ...
    @property
    def pair_geom1(self) -> NDArray[Any]:
        """
        `pair_geom1` (read-only int32 copy).
        """
        ...
    @property
    def pair_geom2(self) -> NDArray[Any]:
        """
        `pair_geom2` (read-only int32 copy).
        """
        ...
    @property
    def pair_margin(self) -> NDArray[Any]:
        """
        `pair_margin` (writeable view).
        """
        ...
    @property
    def pair_signature(self) -> NDArray[Any]:
        """
        Per contact pair: `(body1 << 16) + body2`, the bodies of `pair_geom1` and `pair_geom2`
        (int32).
        """
        ...
    @property
    def pair_solimp(self) -> NDArray[Any]:
        """
        `pair_solimp` (writeable view, one row per element).
        """
        ...
    @property
    def pair_solref(self) -> NDArray[Any]:
        """
        `pair_solref` (writeable view, one row per element).
        """
        ...
    @property
    def pair_solreffriction(self) -> NDArray[Any]:
        """
        `pair_solreffriction` (writeable view, one row per element).
        """
        ...
    @property
    def qpos0(self) -> NDArray[Any]:
        """
        `qpos0` (writeable view).
        """
        ...
    @property
    def qpos_spring(self) -> NDArray[Any]:
        """
        `qpos_spring` (writeable view).
        """
        ...
    def sensor(self, key: int | str) -> _NamedAccess:
        """
        Sensor accessor (`sensor_*` arrays), see `body`.
        """
        ...
    @property
    def sensor_adr(self) -> NDArray[Any]:
        """
        `sensor_adr` (read-only int32 copy).
        """
        ...
    @property
    def sensor_cutoff(self) -> NDArray[Any]:
        """
        `sensor_cutoff` (writeable view).
        """
        ...
    @property
    def sensor_datatype(self) -> NDArray[Any]:
        """
        Per sensor: `mjtDataType` of its values (0 real, 1 positive, 2 axis, 3 quaternion)
        (int32).
        """
        ...
    @property
    def sensor_dim(self) -> NDArray[Any]:
        """
        `sensor_dim` (read-only int32 copy).
        """
        ...
    @property
    def sensor_intprm(self) -> NDArray[Any]:
        """
        Per sensor: its integer parameters (int32, `nsensor × 3`): a contact sensor's `data`
        bits, `reduce` and `num`; a rangefinder's `data` bits, 1 (`dist`, the one output
        moreau's compiler accepts; MuJoCo 4.0.0 sets the bit of each output).
        """
        ...
    @property
    def sensor_needstage(self) -> NDArray[Any]:
        """
        Per sensor: the `mjtStage` its value needs (1 positions, 2 velocities, 3 accelerations)
        (int32).
        """
        ...
    @property
    def sensor_noise(self) -> NDArray[Any]:
        """
        `sensor_noise` (writeable view).
        """
        ...
    @property
    def sensor_objid(self) -> NDArray[Any]:
        """
        `sensor_objid` (writeable int32 view).
        """
        ...
    @property
    def sensor_objtype(self) -> NDArray[Any]:
        """
        `sensor_objtype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def sensor_plugin(self) -> NDArray[Any]:
        """
        Per sensor: its plugin instance, -1 (none).
        """
        ...
    @property
    def sensor_refid(self) -> NDArray[Any]:
        """
        `sensor_refid` (writeable int32 view).
        """
        ...
    @property
    def sensor_reftype(self) -> NDArray[Any]:
        """
        `sensor_reftype` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def sensor_type(self) -> NDArray[Any]:
        """
        Sensor types as MuJoCo's `mjtSensor` values (read-only int32 copy).
        """
        ...
    @property
    def sensor_user(self) -> NDArray[Any]:
        """
        `sensor_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    def site(self, key: int | str) -> _NamedAccess:
        """
        Site accessor (`site_*` arrays), see `body`.
        """
        ...
    @property
    def site_bodyid(self) -> NDArray[Any]:
        """
        `site_bodyid` (read-only int32 copy).
        """
        ...
    @property
    def site_group(self) -> NDArray[Any]:
        """
        `site_group` (writeable int32 view).
        """
        ...
    @property
    def site_matid(self) -> NDArray[Any]:
        """
        `site_matid` (writeable int32 view).
        """
        ...
    @property
    def site_pos(self) -> NDArray[Any]:
        """
        `site_pos` (writeable view, one row per element).
        """
        ...
    @property
    def site_quat(self) -> NDArray[Any]:
        """
        `site_quat` (writeable view, one row per element).
        """
        ...
    @property
    def site_rgba(self) -> NDArray[Any]:
        """
        `site_rgba` (writeable view, one row per element).
        """
        ...
    @property
    def site_sameframe(self) -> NDArray[Any]:
        """
        Per site: `mjtSameFrame`, how its frame relates to its body's (uint8).
        """
        ...
    @property
    def site_size(self) -> NDArray[Any]:
        """
        `site_size` (writeable view, one row per element).
        """
        ...
    @property
    def site_type(self) -> NDArray[Any]:
        """
        `site_type` (read-only int32 copy of the MuJoCo enum values).
        """
        ...
    @property
    def site_user(self) -> NDArray[Any]:
        """
        `site_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    @property
    def ten_J_colind(self) -> NDArray[Any]:
        """
        `ten_J_colind` (read-only int32 copy).
        """
        ...
    @property
    def ten_J_rowadr(self) -> NDArray[Any]:
        """
        `ten_J_rowadr` (read-only int32 copy).
        """
        ...
    @property
    def ten_J_rownnz(self) -> NDArray[Any]:
        """
        `ten_J_rownnz` (read-only int32 copy).
        """
        ...
    def tendon(self, key: int | str) -> _NamedAccess:
        """
        Tendon accessor (`tendon_*` arrays), see `body`.
        """
        ...
    @property
    def tendon_actfrclimited(self) -> NDArray[Any]:
        """
        `tendon_actfrclimited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def tendon_actfrcrange(self) -> NDArray[Any]:
        """
        `tendon_actfrcrange` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_actuatorid(self) -> NDArray[Any]:
        """
        Per tendon: the actuator whose `damping` or `armature` the tendon inherits, -1 without
        one, -2 with several (MuJoCo's `tendon_actuatorid`, as `jnt_actuatorid`) (int32).
        """
        ...
    @property
    def tendon_adr(self) -> NDArray[Any]:
        """
        `tendon_adr` (read-only int32 copy).
        """
        ...
    @property
    def tendon_armature(self) -> NDArray[Any]:
        """
        `tendon_armature` (writeable view).
        """
        ...
    @property
    def tendon_damping(self) -> NDArray[Any]:
        """
        `tendon_damping` (writeable view).
        """
        ...
    @property
    def tendon_dampingpoly(self) -> NDArray[Any]:
        """
        `tendon_dampingpoly` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_frictionloss(self) -> NDArray[Any]:
        """
        `tendon_frictionloss` (writeable view).
        """
        ...
    @property
    def tendon_group(self) -> NDArray[Any]:
        """
        `tendon_group` (writeable int32 view).
        """
        ...
    @property
    def tendon_invweight0(self) -> NDArray[Any]:
        """
        `tendon_invweight0` (writeable view).
        """
        ...
    @property
    def tendon_length0(self) -> NDArray[Any]:
        """
        `tendon_length0` (writeable view).
        """
        ...
    @property
    def tendon_lengthspring(self) -> NDArray[Any]:
        """
        `tendon_lengthspring` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_limited(self) -> NDArray[Any]:
        """
        `tendon_limited` (read-only bool copy, MuJoCo's dtype).
        """
        ...
    @property
    def tendon_margin(self) -> NDArray[Any]:
        """
        `tendon_margin` (writeable view).
        """
        ...
    @property
    def tendon_matid(self) -> NDArray[Any]:
        """
        `tendon_matid` (writeable int32 view).
        """
        ...
    @property
    def tendon_num(self) -> NDArray[Any]:
        """
        `tendon_num` (read-only int32 copy).
        """
        ...
    @property
    def tendon_range(self) -> NDArray[Any]:
        """
        `tendon_range` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_rgba(self) -> NDArray[Any]:
        """
        `tendon_rgba` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_solimp_fri(self) -> NDArray[Any]:
        """
        `tendon_solimp_fri` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_solimp_lim(self) -> NDArray[Any]:
        """
        `tendon_solimp_lim` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_solref_fri(self) -> NDArray[Any]:
        """
        `tendon_solref_fri` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_solref_lim(self) -> NDArray[Any]:
        """
        `tendon_solref_lim` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_stiffness(self) -> NDArray[Any]:
        """
        `tendon_stiffness` (writeable view).
        """
        ...
    @property
    def tendon_stiffnesspoly(self) -> NDArray[Any]:
        """
        `tendon_stiffnesspoly` (writeable view, one row per element).
        """
        ...
    @property
    def tendon_treeid(self) -> NDArray[Any]:
        """
        Per tendon: the first two kinematic trees its path touches, in path order, -1 where it
        touches fewer (int32, ntendon × 2).
        """
        ...
    @property
    def tendon_treenum(self) -> NDArray[Any]:
        """
        Per tendon: the number of kinematic trees its path touches (int32).
        """
        ...
    @property
    def tendon_type(self) -> NDArray[Any]:
        """
        Per tendon: 0 fixed (a path of joints), 1 spatial (int32).
        """
        ...
    @property
    def tendon_user(self) -> NDArray[Any]:
        """
        `tendon_user`: the elements' `user` data (writeable view, one row per element).
        """
        ...
    @property
    def tendon_width(self) -> NDArray[Any]:
        """
        `tendon_width` (writeable view).
        """
        ...
    @property
    def tex_adr(self) -> NDArray[Any]:
        """
        Per texture: its first sample in `tex_data` (int64, as MuJoCo's).
        """
        ...
    @property
    def tex_colorspace(self) -> NDArray[Any]:
        """
        Per texture: `mjtColorSpace` (0 auto, 1 linear, 2 sRGB) (int32).
        """
        ...
    @property
    def tex_data(self) -> NDArray[Any]:
        """
        Every texture's 8-bit samples, rows from the top (uint8, `ntexdata`).
        """
        ...
    @property
    def tex_height(self) -> NDArray[Any]:
        """
        Per texture: rows (a cube's six faces one under the other) (int32).
        """
        ...
    @property
    def tex_nchannel(self) -> NDArray[Any]:
        """
        Per texture: samples per pixel, 1, 3 or 4 (int32).
        """
        ...
    @property
    def tex_type(self) -> NDArray[Any]:
        """
        Per texture: `mjtTexture` (0 2d, 1 cube, 2 skybox) (int32).
        """
        ...
    @property
    def tex_width(self) -> NDArray[Any]:
        """
        Per texture: columns (int32).
        """
        ...
    @property
    def tree_bodyadr(self) -> NDArray[Any]:
        """
        Per tree: its first (topmost) body (int32).
        """
        ...
    @property
    def tree_bodynum(self) -> NDArray[Any]:
        """
        Per tree: its number of bodies (int32).
        """
        ...
    @property
    def tree_dofadr(self) -> NDArray[Any]:
        """
        Per tree: its first dof (int32).
        """
        ...
    @property
    def tree_dofnum(self) -> NDArray[Any]:
        """
        Per tree: its number of dofs (int32).
        """
        ...
    @property
    def tree_sleep_policy(self) -> NDArray[Any]:
        """
        `tree_sleep_policy` (writeable int32 view).
        """
        ...
    @property
    def wrap_objid(self) -> NDArray[Any]:
        """
        `wrap_objid` (writeable int32 view).
        """
        ...
    @property
    def wrap_prm(self) -> NDArray[Any]:
        """
        `wrap_prm` (writeable view).
        """
        ...
    @property
    def wrap_type(self) -> NDArray[Any]:
        """
        `wrap_type` (read-only int32 copy of the MuJoCo enum values).
        """
        ...

class MjOption:
    """
    The physics options of a model (`mjOption`), read and written in place.
    """
    def __setattr__(self, attr: str, value: Any) -> None: ...
    @property
    def ccd_iterations(self) -> int:
        """
        `opt.ccd_iterations`.
        """
        ...
    @property
    def ccd_tolerance(self) -> float:
        """
        `opt.ccd_tolerance`.
        """
        ...
    @property
    def cone(self) -> int:
        """
        `opt.cone` (`mjtCone`).
        """
        ...
    @property
    def density(self) -> float:
        """
        `opt.density`.
        """
        ...
    @property
    def disableflags(self) -> int:
        """
        `opt.disableflags`.
        """
        ...
    @property
    def enableflags(self) -> int:
        """
        `opt.enableflags`.
        """
        ...
    @property
    def gravity(self) -> NDArray[np.float64]:
        """
        `opt.gravity` (writeable view).
        """
        ...
    @property
    def impratio(self) -> float:
        """
        `opt.impratio`.
        """
        ...
    @property
    def integrator(self) -> int:
        """
        `opt.integrator` (`mjtIntegrator`).
        """
        ...
    @property
    def iterations(self) -> int:
        """
        `opt.iterations`.
        """
        ...
    @property
    def jacobian(self) -> int:
        """
        `opt.jacobian` (`mjtJacobian`).
        """
        ...
    @property
    def ls_iterations(self) -> int:
        """
        `opt.ls_iterations`.
        """
        ...
    @property
    def ls_tolerance(self) -> float:
        """
        `opt.ls_tolerance`.
        """
        ...
    @property
    def magnetic(self) -> NDArray[np.float64]:
        """
        `opt.magnetic` (writeable view).
        """
        ...
    @property
    def noslip_iterations(self) -> int:
        """
        `opt.noslip_iterations`.
        """
        ...
    @property
    def noslip_tolerance(self) -> float:
        """
        `opt.noslip_tolerance`.
        """
        ...
    @property
    def o_friction(self) -> NDArray[np.float64]:
        """
        `opt.o_friction` (writeable view).
        """
        ...
    @property
    def o_margin(self) -> float:
        """
        `opt.o_margin`.
        """
        ...
    @property
    def o_solimp(self) -> NDArray[np.float64]:
        """
        `opt.o_solimp` (writeable view).
        """
        ...
    @property
    def o_solref(self) -> NDArray[np.float64]:
        """
        `opt.o_solref` (writeable view).
        """
        ...
    @property
    def sleep_tolerance(self) -> float:
        """
        `opt.sleep_tolerance`.
        """
        ...
    @property
    def solver(self) -> int:
        """
        `opt.solver` (`mjtSolver`).
        """
        ...
    @property
    def timestep(self) -> float:
        """
        `opt.timestep`.
        """
        ...
    @property
    def tolerance(self) -> float:
        """
        `opt.tolerance`.
        """
        ...
    @property
    def viscosity(self) -> float:
        """
        `opt.viscosity`.
        """
        ...
    @property
    def wind(self) -> NDArray[np.float64]:
        """
        `opt.wind` (writeable view).
        """
        ...

class MjData:
    """
    The simulation state and all intermediate results for one model (`mujoco.MjData`).
    """
    def __init__(self, model: MjModel) -> None: ...
    @property
    def M(self) -> NDArray[Any]:
        """
        The inertia in MuJoCo's sparse layout (`nC`, columns `M_colind`; read-only copy).
        """
        ...
    def __copy__(self) -> MjData: ...
    def __deepcopy__(self, memo: Any) -> MjData: ...
    def __setattr__(self, attr: str, value: Any) -> None: ...
    _arrays: tuple[str, ...]
    @property
    def act(self) -> NDArray[Any]:
        """
        `act` (writeable view).
        """
        ...
    @property
    def act_dot(self) -> NDArray[Any]:
        """
        `act_dot` (writeable view).
        """
        ...
    def actuator(self, key: int | str) -> _NamedAccess:
        """
        Actuator accessor (`ctrl`, `actuator_force`, `actuator_length`, …).
        """
        ...
    @property
    def actuator_force(self) -> NDArray[Any]:
        """
        `actuator_force` (writeable view).
        """
        ...
    @property
    def actuator_length(self) -> NDArray[Any]:
        """
        `actuator_length` (writeable view).
        """
        ...
    @property
    def actuator_moment(self) -> NDArray[Any]:
        """
        `actuator_moment` (writeable view).
        """
        ...
    @property
    def actuator_velocity(self) -> NDArray[Any]:
        """
        `actuator_velocity` (writeable view).
        """
        ...
    def body(self, key: int | str) -> _NamedAccess:
        """
        Body accessor: `d.body('torso').xpos` is row `id` of `d.xpos` (a view), as MuJoCo's.
        """
        ...
    @property
    def body_awake(self) -> NDArray[Any]:
        """
        Per body: -1 static (welded to the world), 1 awake, 0 asleep (`mjtSleepState`).
        """
        ...
    @property
    def body_awake_ind(self) -> NDArray[Any]:
        """
        The awake (or static) bodies in order, then the identity (`nbody`).
        """
        ...
    @property
    def cacc(self) -> NDArray[Any]:
        """
        `cacc` (writeable view, (n, 6)).
        """
        ...
    @property
    def cam_xmat(self) -> NDArray[Any]:
        """
        `cam_xmat`, (n, 9) row-major (read-only copy).
        """
        ...
    @property
    def cam_xpos(self) -> NDArray[Any]:
        """
        `cam_xpos` (writeable view, (n, 3)).
        """
        ...
    def camera(self, key: int | str) -> _NamedAccess:
        """
        Camera accessor (`cam_xpos`, `cam_xmat`).
        """
        ...
    @property
    def cdof(self) -> NDArray[Any]:
        """
        `cdof` (writeable view, (n, 6)).
        """
        ...
    @property
    def cdof_dot(self) -> NDArray[Any]:
        """
        `cdof_dot` (writeable view, (n, 6)).
        """
        ...
    @property
    def cfrc_ext(self) -> NDArray[Any]:
        """
        `cfrc_ext` (writeable view, (n, 6)).
        """
        ...
    @property
    def cfrc_int(self) -> NDArray[Any]:
        """
        `cfrc_int` (writeable view, (n, 6)).
        """
        ...
    @property
    def cinert(self) -> NDArray[Any]:
        """
        `cinert` (writeable view, one row per element).
        """
        ...
    @property
    def contact(self) -> MjContactList:
        """
        The contacts of the last collision pass (`mujoco`'s `_MjContactList`: array attributes
        `geom1`, `geom2`, `geom`, `dist`, `pos`, `frame`, `friction`, `solref`, `solimp`, …;
        `d.contact[i]` is one contact). A copy.
        """
        ...
    @property
    def crb(self) -> NDArray[Any]:
        """
        `crb` (writeable view, one row per element).
        """
        ...
    @property
    def ctrl(self) -> NDArray[Any]:
        """
        `ctrl` (writeable view).
        """
        ...
    @property
    def cvel(self) -> NDArray[Any]:
        """
        `cvel` (writeable view, (n, 6)).
        """
        ...
    @property
    def dof_awake_ind(self) -> NDArray[Any]:
        """
        The dofs of awake trees in order, then the identity (`nv`).
        """
        ...
    @property
    def dof_island(self) -> NDArray[Any]:
        """
        Island of each dof, -1 outside every island (`nv`).
        """
        ...
    @property
    def efc_AR(self) -> NDArray[Any]:
        """
        `efc_AR = J M⁻¹ Jᵀ + R`, MuJoCo's layout (PGS or noslip only; read-only copy).
        """
        ...
    @property
    def efc_AR_colind(self) -> NDArray[Any]:
        """
        Column of each entry of a sparse `efc_AR` (read-only int32 copy).
        """
        ...
    @property
    def efc_AR_rowadr(self) -> NDArray[Any]:
        """
        Address of each row of a sparse `efc_AR` (read-only int32 copy).
        """
        ...
    @property
    def efc_AR_rownnz(self) -> NDArray[Any]:
        """
        Entries of each row of a sparse `efc_AR` (read-only int32 copy).
        """
        ...
    @property
    def efc_D(self) -> NDArray[Any]:
        """
        `efc_D` (nefc, read-only copy).
        """
        ...
    @property
    def efc_J(self) -> NDArray[Any]:
        """
        Constraint Jacobian (read-only copy, `nJ` entries), in MuJoCo's layout: when it is
        sparse (`mj_isSparse`) the rows' nonzeros one row after another (columns in
        `efc_J_colind`, rows at `efc_J_rowadr`), else dense `nefc × nv` flattened row-major.
        """
        ...
    @property
    def efc_J_colind(self) -> NDArray[Any]:
        """
        Sparse `efc_J` only: the column of each entry (int32, the entries of the rows); `nefc ×
        nv` zeros when dense, as MuJoCo.
        """
        ...
    @property
    def efc_J_rowadr(self) -> NDArray[Any]:
        """
        Sparse `efc_J` only: the first entry of each row (int32, nefc) in the rows packed one
        after another; zeros when dense.
        """
        ...
    @property
    def efc_J_rownnz(self) -> NDArray[Any]:
        """
        Sparse `efc_J` only (MuJoCo's `mj_isSparse`): entries per row (int32, nefc); zeros when
        the Jacobian is dense.
        """
        ...
    @property
    def efc_J_rowsuper(self) -> NDArray[Any]:
        """
        Sparse `efc_J` only: how many rows after each share its pattern (int32, nefc); zeros
        when dense.
        """
        ...
    @property
    def efc_KBIP(self) -> NDArray[Any]:
        """
        `(K, B, imp, imp')` per row (nefc, 4) (read-only copy).
        """
        ...
    @property
    def efc_R(self) -> NDArray[Any]:
        """
        `efc_R` (nefc, read-only copy).
        """
        ...
    @property
    def efc_Y(self) -> NDArray[Any]:
        """
        `efc_Y = J L⁻¹ D^(−1/2)`, MuJoCo's layout (PGS or noslip only; read-only copy).
        """
        ...
    @property
    def efc_Y_colind(self) -> NDArray[Any]:
        """
        Column of each entry of a sparse `efc_Y` (read-only int32 copy).
        """
        ...
    @property
    def efc_Y_rowadr(self) -> NDArray[Any]:
        """
        Address of each row of a sparse `efc_Y` (read-only int32 copy).
        """
        ...
    @property
    def efc_Y_rownnz(self) -> NDArray[Any]:
        """
        Entries of each row of a sparse `efc_Y` (read-only int32 copy).
        """
        ...
    @property
    def efc_aref(self) -> NDArray[Any]:
        """
        `efc_aref` (nefc, read-only copy).
        """
        ...
    @property
    def efc_b(self) -> NDArray[Any]:
        """
        `efc_b` (nefc, read-only copy).
        """
        ...
    @property
    def efc_diagA(self) -> NDArray[Any]:
        """
        `efc_diagA` (nefc, read-only copy).
        """
        ...
    @property
    def efc_force(self) -> NDArray[Any]:
        """
        `efc_force` (nefc, read-only copy).
        """
        ...
    @property
    def efc_frictionloss(self) -> NDArray[Any]:
        """
        `efc_frictionloss` (nefc, read-only copy).
        """
        ...
    @property
    def efc_id(self) -> NDArray[Any]:
        """
        Element id of each constraint row (read-only int32 copy).
        """
        ...
    @property
    def efc_island(self) -> NDArray[Any]:
        """
        Island of each constraint row (`nefc`).
        """
        ...
    @property
    def efc_margin(self) -> NDArray[Any]:
        """
        `efc_margin` (nefc, read-only copy).
        """
        ...
    @property
    def efc_pos(self) -> NDArray[Any]:
        """
        `efc_pos` (nefc, read-only copy).
        """
        ...
    @property
    def efc_state(self) -> NDArray[Any]:
        """
        Constraint states (`mjtConstraintState`, read-only int32 copy).
        """
        ...
    @property
    def efc_type(self) -> NDArray[Any]:
        """
        Constraint types (`mjtConstraint`, read-only int32 copy).
        """
        ...
    @property
    def efc_vel(self) -> NDArray[Any]:
        """
        `efc_vel` (nefc, read-only copy).
        """
        ...
    @property
    def energy(self) -> NDArray[Any]:
        """
        Potential and kinetic energy (writeable view, 2), computed when the `energy` flag is
        enabled.
        """
        ...
    @property
    def eq_active(self) -> NDArray[Any]:
        """
        Whether each equality constraint is active (writeable bool view).
        """
        ...
    @property
    def flg_energypos(self) -> bool:
        """
        Whether the energy's potential part is up to date (`flg_energypos`).
        """
        ...
    @property
    def flg_energyvel(self) -> bool:
        """
        Whether the energy's kinetic part is up to date (`flg_energyvel`).
        """
        ...
    def geom(self, key: int | str) -> _NamedAccess:
        """
        Geom accessor (`geom_xpos`, `geom_xmat`).
        """
        ...
    @property
    def geom_xmat(self) -> NDArray[Any]:
        """
        `geom_xmat`, (n, 9) row-major (read-only copy).
        """
        ...
    @property
    def geom_xpos(self) -> NDArray[Any]:
        """
        `geom_xpos` (writeable view, (n, 3)).
        """
        ...
    @property
    def geom_xquat(self) -> NDArray[Any]:
        """
        Orientation of each geom, `(ngeom, 4)` (w, x, y, z) (read-only copy).
        """
        ...
    @property
    def iacc(self) -> NDArray[Any]:
        """
        `qacc` in island order (`nidof`).
        """
        ...
    @property
    def iacc_smooth(self) -> NDArray[Any]:
        """
        `qacc_smooth` in island order (`nidof`).
        """
        ...
    @property
    def iefc_D(self) -> NDArray[Any]:
        """
        `efc_D` in island order (`nefc`).
        """
        ...
    @property
    def iefc_R(self) -> NDArray[Any]:
        """
        `efc_R` in island order (`nefc`).
        """
        ...
    @property
    def iefc_aref(self) -> NDArray[Any]:
        """
        `efc_aref` in island order (`nefc`).
        """
        ...
    @property
    def iefc_force(self) -> NDArray[Any]:
        """
        `efc_force` in island order (`nefc`).
        """
        ...
    @property
    def iefc_frictionloss(self) -> NDArray[Any]:
        """
        `efc_frictionloss` in island order (`nefc`).
        """
        ...
    @property
    def iefc_id(self) -> NDArray[Any]:
        """
        `efc_id` in island order (`nefc`).
        """
        ...
    @property
    def iefc_state(self) -> NDArray[Any]:
        """
        `efc_state` in island order (`nefc`): the rows' final states, as MuJoCo's island solve
        writes them (measured on MuJoCo 4.0.0 over the zoo: equal under CG and Newton; MuJoCo's
        own `efc_state` keeps the state at `qacc_smooth` with islands on, moreau's is final).
        """
        ...
    @property
    def iefc_type(self) -> NDArray[Any]:
        """
        `efc_type` in island order (`nefc`).
        """
        ...
    @property
    def ifrc_constraint(self) -> NDArray[Any]:
        """
        `qfrc_constraint` in island order (`nidof`).
        """
        ...
    @property
    def ifrc_smooth(self) -> NDArray[Any]:
        """
        `qfrc_smooth` in island order (`nidof`).
        """
        ...
    @property
    def island_dofadr(self) -> NDArray[Any]:
        """
        First dof of each island (`nisland`).
        """
        ...
    @property
    def island_idofadr(self) -> NDArray[Any]:
        """
        Start of each island in the island dof order (`nisland`).
        """
        ...
    @property
    def island_iefcadr(self) -> NDArray[Any]:
        """
        Start of each island in the island row order (`nisland`).
        """
        ...
    @property
    def island_itreeadr(self) -> NDArray[Any]:
        """
        Start of each island in the island tree order (`nisland`).
        """
        ...
    @property
    def island_ne(self) -> NDArray[Any]:
        """
        Number of equality rows of each island (`nisland`).
        """
        ...
    @property
    def island_nefc(self) -> NDArray[Any]:
        """
        Number of constraint rows of each island (`nisland`).
        """
        ...
    @property
    def island_nf(self) -> NDArray[Any]:
        """
        Number of friction-loss rows of each island (`nisland`).
        """
        ...
    @property
    def island_ntree(self) -> NDArray[Any]:
        """
        Number of trees of each island (`nisland`).
        """
        ...
    @property
    def island_nv(self) -> NDArray[Any]:
        """
        Number of dofs of each island (`nisland`).
        """
        ...
    def jnt(self, key: int | str) -> _NamedAccess:
        """
        Alias of `joint`.
        """
        ...
    def joint(self, key: int | str) -> _NamedAccess:
        """
        Joint accessor: `d.joint('hinge').qpos` is the joint's slice of `d.qpos`.
        """
        ...
    @property
    def light_xdir(self) -> NDArray[Any]:
        """
        `light_xdir` (writeable view, (n, 3)).
        """
        ...
    @property
    def light_xpos(self) -> NDArray[Any]:
        """
        `light_xpos` (writeable view, (n, 3)).
        """
        ...
    @property
    def map_dof2idof(self) -> NDArray[Any]:
        """
        Island order of each dof (`nv`).
        """
        ...
    @property
    def map_efc2iefc(self) -> NDArray[Any]:
        """
        Island order of each constraint row (`nefc`).
        """
        ...
    @property
    def map_idof2dof(self) -> NDArray[Any]:
        """
        Dof of each island-order dof (`nv`).
        """
        ...
    @property
    def map_iefc2efc(self) -> NDArray[Any]:
        """
        Row of each island-order row (`nefc`).
        """
        ...
    @property
    def map_itree2tree(self) -> NDArray[Any]:
        """
        Tree of each island-order tree (`ntree`).
        """
        ...
    @property
    def maxuse_con(self) -> int:
        """
        Most contacts of a collision pass since the last reset.
        """
        ...
    @property
    def maxuse_efc(self) -> int:
        """
        Most constraint rows of a step since the last reset.
        """
        ...
    @property
    def mocap_pos(self) -> NDArray[Any]:
        """
        `mocap_pos` (writeable view, (n, 3)).
        """
        ...
    @property
    def mocap_quat(self) -> NDArray[Any]:
        """
        `mocap_quat` (nmocap, 4), (w, x, y, z): writeable; the engine reads it at every call.
        """
        ...
    @property
    def model(self) -> MjModel:
        """
        The model this data was made for.
        """
        ...
    @property
    def moment_colind(self) -> NDArray[Any]:
        """
        The dof of each entry of `actuator_moment` (`nJmom`; read-only int32 copy).
        """
        ...
    @property
    def moment_rowadr(self) -> NDArray[Any]:
        """
        Address of each actuator's row in `actuator_moment` (read-only int32 copy).
        """
        ...
    @property
    def moment_rownnz(self) -> NDArray[Any]:
        """
        Number of entries of each actuator's row of `actuator_moment` (read-only int32 copy;
        zeros from a reset to the next transmission stage, as MuJoCo's).
        """
        ...
    @property
    def nA(self) -> int:
        """
        Number of nonzeros of `efc_AR` (`nA`): 0 unless PGS or the noslip pass formed it,
        `nefc²` when `efc_J` is dense.
        """
        ...
    @property
    def nJ(self) -> int:
        """
        Number of nonzeros of `efc_J` (`nJ`: `nefc × nv` when it is dense).
        """
        ...
    @property
    def nY(self) -> NDArray[Any]:
        """
        Number of entries of `efc_Y` (`nY`: `nefc × nv` when dense; 0 unless PGS or the noslip
        pass formed it).
        """
        ...
    @property
    def narena(self) -> int:
        """
        Bytes of this data's arena (the model's `narena`).
        """
        ...
    @property
    def nbody_awake(self) -> int:
        """
        Number of awake bodies, the static ones included (none of a sleeping tree).
        """
        ...
    @property
    def ncon(self) -> int:
        """
        Number of contacts (`ncon`).
        """
        ...
    @property
    def ne(self) -> int:
        """
        Number of equality constraint rows (`ne`).
        """
        ...
    @property
    def nefc(self) -> int:
        """
        Number of constraint rows (`nefc`).
        """
        ...
    @property
    def nf(self) -> int:
        """
        Number of friction-loss rows (`nf`).
        """
        ...
    @property
    def nidof(self) -> int:
        """
        Number of dofs in constraint islands (`nidof`).
        """
        ...
    @property
    def nisland(self) -> int:
        """
        Number of constraint islands.
        """
        ...
    @property
    def nl(self) -> int:
        """
        Number of limit rows (`nl`).
        """
        ...
    @property
    def nparent_awake(self) -> int:
        """
        Number of bodies but the world whose parent is awake (or static).
        """
        ...
    @property
    def ntree_awake(self) -> int:
        """
        Number of awake trees.
        """
        ...
    @property
    def nv_awake(self) -> int:
        """
        Number of awake dofs.
        """
        ...
    @property
    def parent_awake_ind(self) -> NDArray[Any]:
        """
        The bodies but the world whose parent is awake (or static) in order, then the rest of
        `1, …, nbody − 1, 0` (`nbody`).
        """
        ...
    @property
    def qDeriv(self) -> NDArray[Any]:
        """
        `qDeriv` (writeable view).
        """
        ...
    @property
    def qH(self) -> NDArray[Any]:
        """
        The L'DL factor of the integrator's modified inertia (`M + h·diag(damping)` under
        Euler, `M − h·sym(qDeriv)` under implicitfast) in the layout of `M`, D on the diagonal
        (`nC`; read-only copy); left as it was by the other integrators.
        """
        ...
    @property
    def qHDiagInv(self) -> NDArray[Any]:
        """
        `qHDiagInv` (writeable view).
        """
        ...
    @property
    def qLD(self) -> NDArray[Any]:
        """
        Its L'DL factor in the same layout, D on the diagonal (`nC`; read-only copy).
        """
        ...
    @property
    def qLDiagInv(self) -> NDArray[Any]:
        """
        `qLDiagInv` (writeable view).
        """
        ...
    @property
    def qLU(self) -> NDArray[Any]:
        """
        `qLU` (writeable view).
        """
        ...
    @property
    def qM(self) -> NDArray[Any]:
        """
        `qM` (writeable view).
        """
        ...
    @property
    def qacc(self) -> NDArray[Any]:
        """
        `qacc` (writeable view).
        """
        ...
    @property
    def qacc_smooth(self) -> NDArray[Any]:
        """
        `qacc_smooth` (writeable view).
        """
        ...
    @property
    def qacc_warmstart(self) -> NDArray[Any]:
        """
        `qacc_warmstart` (writeable view).
        """
        ...
    @property
    def qfrc_actuator(self) -> NDArray[Any]:
        """
        `qfrc_actuator` (writeable view).
        """
        ...
    @property
    def qfrc_adhesion(self) -> NDArray[Any]:
        """
        `qfrc_adhesion` (writeable view).
        """
        ...
    @property
    def qfrc_applied(self) -> NDArray[Any]:
        """
        `qfrc_applied` (writeable view).
        """
        ...
    @property
    def qfrc_bias(self) -> NDArray[Any]:
        """
        `qfrc_bias` (writeable view).
        """
        ...
    @property
    def qfrc_constraint(self) -> NDArray[Any]:
        """
        `qfrc_constraint` (writeable view).
        """
        ...
    @property
    def qfrc_damper(self) -> NDArray[Any]:
        """
        `qfrc_damper` (writeable view).
        """
        ...
    @property
    def qfrc_fluid(self) -> NDArray[Any]:
        """
        `qfrc_fluid` (writeable view).
        """
        ...
    @property
    def qfrc_gravcomp(self) -> NDArray[Any]:
        """
        `qfrc_gravcomp` (writeable view).
        """
        ...
    @property
    def qfrc_inverse(self) -> NDArray[Any]:
        """
        `qfrc_inverse` (writeable view).
        """
        ...
    @property
    def qfrc_passive(self) -> NDArray[Any]:
        """
        `qfrc_passive` (writeable view).
        """
        ...
    @property
    def qfrc_smooth(self) -> NDArray[Any]:
        """
        `qfrc_smooth` (writeable view).
        """
        ...
    @property
    def qfrc_spring(self) -> NDArray[Any]:
        """
        `qfrc_spring` (writeable view).
        """
        ...
    @property
    def qpos(self) -> NDArray[Any]:
        """
        `qpos` (writeable view).
        """
        ...
    @property
    def qvel(self) -> NDArray[Any]:
        """
        `qvel` (writeable view).
        """
        ...
    def sensor(self, key: int | str) -> _NamedAccess:
        """
        Sensor accessor: `d.sensor('s').data` is the sensor's slice of `sensordata`.
        """
        ...
    @property
    def sensordata(self) -> NDArray[Any]:
        """
        `sensordata` (writeable view).
        """
        ...
    def site(self, key: int | str) -> _NamedAccess:
        """
        Site accessor (`site_xpos`, `site_xmat`).
        """
        ...
    @property
    def site_xmat(self) -> NDArray[Any]:
        """
        `site_xmat`, (n, 9) row-major (read-only copy).
        """
        ...
    @property
    def site_xpos(self) -> NDArray[Any]:
        """
        `site_xpos` (writeable view, (n, 3)).
        """
        ...
    @property
    def site_xquat(self) -> NDArray[Any]:
        """
        Orientation of each site, `(nsite, 4)` (w, x, y, z) (read-only copy).
        """
        ...
    @property
    def solver(self) -> _MjSolverStatList:
        """
        Per-iteration solver statistics (`mjSolverStat`, see [`MjSolverStatList`]): island `k`'s
        first `solver_niter[k]` entries are the last solve's; the others keep older solves'
        values until `mj_resetData`, as in MuJoCo.
        """
        ...
    @property
    def solver_fwdinv(self) -> NDArray[Any]:
        """
        Forward/inverse comparison norms (writeable view, 2).
        """
        ...
    @property
    def solver_niter(self) -> NDArray[Any]:
        """
        Solver iterations per island (read-only int32 copy of `solver_niter[mjNISLAND]`).
        """
        ...
    @property
    def solver_nnz(self) -> NDArray[Any]:
        """
        Nonzeros of each island's solver matrix (read-only int32 copy of
        `solver_nnz[mjNISLAND]`): PGS its `efc_AR`, CG its `efc_J`, Newton its Hessian (dense
        `nv²`; sparse, MuJoCo's count of M, the Hessian's factor and JᵀJ). Entries of islands
        a later step did not have keep their values, as in MuJoCo.
        """
        ...
    @property
    def subtree_angmom(self) -> NDArray[Any]:
        """
        `subtree_angmom` (writeable view, (n, 3)).
        """
        ...
    @property
    def subtree_com(self) -> NDArray[Any]:
        """
        `subtree_com` (writeable view, (n, 3)).
        """
        ...
    @property
    def subtree_linvel(self) -> NDArray[Any]:
        """
        `subtree_linvel` (writeable view, (n, 3)).
        """
        ...
    @property
    def ten_J(self) -> NDArray[Any]:
        """
        `ten_J` (writeable view).
        """
        ...
    @property
    def ten_length(self) -> NDArray[Any]:
        """
        `ten_length` (writeable view).
        """
        ...
    @property
    def ten_velocity(self) -> NDArray[Any]:
        """
        `ten_velocity` (writeable view).
        """
        ...
    @property
    def ten_wrapadr(self) -> NDArray[Any]:
        """
        First entry of each tendon's path in `wrap_obj` and `wrap_xpos` (read-only int32 copy).
        """
        ...
    @property
    def ten_wrapnum(self) -> NDArray[Any]:
        """
        Number of entries of each tendon's path (read-only int32 copy).
        """
        ...
    def tendon(self, key: int | str) -> _NamedAccess:
        """
        Tendon accessor (`ten_length`, `ten_velocity`).
        """
        ...
    @property
    def tendon_efcadr(self) -> NDArray[Any]:
        """
        `tendon_efcadr`: per tendon, the first constraint row involving it (-1: none; read-only
        int32 copy).
        """
        ...
    @property
    def time(self) -> float:
        """
        Simulation time.
        """
        ...
    @property
    def tree_asleep(self) -> NDArray[Any]:
        """
        Per tree: negative while awake (MuJoCo's countdown: −11 after a reset, +1 per step at
        rest), else asleep and the next tree of its sleeping cycle (`moreau::sleep`).
        """
        ...
    @property
    def tree_awake(self) -> NDArray[Any]:
        """
        Per tree: 1 awake, 0 asleep.
        """
        ...
    @property
    def tree_island(self) -> NDArray[Any]:
        """
        Island of each kinematic tree, -1 outside every island (`ntree`).
        """
        ...
    @property
    def userdata(self) -> NDArray[Any]:
        """
        `userdata` (writeable view).
        """
        ...
    @property
    def warning(self) -> list[MjWarningStat]:
        """
        Warning statistics per `mjtWarning` (a list of `MjWarningStat` copies).
        """
        ...
    @property
    def wrap_obj(self) -> NDArray[Any]:
        """
        The object of each path point, `(nwrap, 2)`: -2 a pulley, -1 a site, else the geom a
        wrap point lies on (read-only int32 copy).
        """
        ...
    @property
    def wrap_xpos(self) -> NDArray[Any]:
        """
        `wrap_xpos` (writeable view, (n, 6): two points a row).
        """
        ...
    @property
    def xanchor(self) -> NDArray[Any]:
        """
        `xanchor` (writeable view, (n, 3)).
        """
        ...
    @property
    def xaxis(self) -> NDArray[Any]:
        """
        `xaxis` (writeable view, (n, 3)).
        """
        ...
    @property
    def xfrc_applied(self) -> NDArray[Any]:
        """
        `xfrc_applied` (writeable view, (n, 6)).
        """
        ...
    @property
    def ximat(self) -> NDArray[Any]:
        """
        `ximat`, (n, 9) row-major (read-only copy).
        """
        ...
    @property
    def xipos(self) -> NDArray[Any]:
        """
        `xipos` (writeable view, (n, 3)).
        """
        ...
    @property
    def xiquat(self) -> NDArray[Any]:
        """
        Orientation of each body's inertial frame, `(nbody, 4)` (w, x, y, z) (read-only copy).
        """
        ...
    @property
    def xmat(self) -> NDArray[Any]:
        """
        `xmat`, (n, 9) row-major (read-only copy).
        """
        ...
    @property
    def xpos(self) -> NDArray[Any]:
        """
        `xpos` (writeable view, (n, 3)).
        """
        ...
    @property
    def xquat(self) -> NDArray[Any]:
        """
        `xquat`, (n, 4) as (w, x, y, z) (read-only copy).
        """
        ...

class MjContactList:
    """
    The contacts of a collision pass as arrays (a copy), like MuJoCo's `d.contact`.
    """
    def __getitem__(self, i: int) -> MjContact: ...
    def __len__(self) -> int: ...
    @property
    def dim(self) -> Any:
        """
        Contact dimensionality, (ncon,) int32.
        """
        ...
    @property
    def dist(self) -> Any:
        """
        Signed distance (negative: penetration), (ncon,).
        """
        ...
    @property
    def efc_address(self) -> Any:
        """
        First constraint row, or -1, (ncon,) int32.
        """
        ...
    @property
    def elem(self) -> Any:
        """
        Flex elements (always -1), (ncon, 2) int32.
        """
        ...
    @property
    def exclude(self) -> Any:
        """
        0: include, 1: in gap, (ncon,) int32.
        """
        ...
    @property
    def flex(self) -> Any:
        """
        Flexes (always -1 in moreau), (ncon, 2) int32.
        """
        ...
    @property
    def frame(self) -> Any:
        """
        Contact frame, rows normal, tangent 1, tangent 2, (ncon, 9).
        """
        ...
    @property
    def friction(self) -> Any:
        """
        Friction (tangent, tangent, torsion, roll, roll), (ncon, 5).
        """
        ...
    @property
    def geom(self) -> Any:
        """
        The two geoms, (ncon, 2) int32.
        """
        ...
    @property
    def geom1(self) -> Any:
        """
        First geom, (ncon,) int32.
        """
        ...
    @property
    def geom2(self) -> Any:
        """
        Second geom, (ncon,) int32.
        """
        ...
    @property
    def includemargin(self) -> Any:
        """
        Include if dist < includemargin, (ncon,).
        """
        ...
    @property
    def mu(self) -> Any:
        """
        Friction of the regularized cone, (ncon,).
        """
        ...
    @property
    def n(self) -> Any:
        ...
    @property
    def pos(self) -> Any:
        """
        Contact point, world frame, (ncon, 3).
        """
        ...
    @property
    def solimp(self) -> Any:
        """
        (ncon, 5).
        """
        ...
    @property
    def solref(self) -> Any:
        """
        (ncon, 2).
        """
        ...
    @property
    def solreffriction(self) -> Any:
        """
        (ncon, 2).
        """
        ...
    @property
    def vert(self) -> Any:
        """
        Flex vertices (always -1), (ncon, 2) int32.
        """
        ...

class MjContact:
    """
    One contact (`mjContact`), a copy.
    """
    @property
    def dim(self) -> Any:
        ...
    @property
    def dist(self) -> Any:
        ...
    @property
    def efc_address(self) -> Any:
        ...
    @property
    def exclude(self) -> Any:
        ...
    @property
    def frame(self) -> Any:
        ...
    @property
    def friction(self) -> Any:
        ...
    @property
    def geom(self) -> Any:
        ...
    @property
    def geom1(self) -> Any:
        ...
    @property
    def geom2(self) -> Any:
        ...
    @property
    def includemargin(self) -> Any:
        ...
    @property
    def mu(self) -> Any:
        ...
    @property
    def pos(self) -> Any:
        ...
    @property
    def solimp(self) -> Any:
        ...
    @property
    def solref(self) -> Any:
        ...
    @property
    def solreffriction(self) -> Any:
        ...

class MjWarningStat:
    """
    Warning statistics of one kind (`mjWarningStat`).
    """
    @property
    def lastinfo(self) -> int:
        """
        The info of the last warning (e.g. the offending index).
        """
        ...
    @property
    def number(self) -> int:
        """
        How many times it happened.
        """
        ...

class MjSolverStat:
    """
    `mjSolverStat`: one solver iteration's statistics (`MjData.solver[i]`).
    """
    @property
    def gradient(self) -> float:
        """
        Gradient norm, scaled.
        """
        ...
    @property
    def improvement(self) -> float:
        """
        Cost reduction, scaled by 1/trace(M).
        """
        ...
    @property
    def lineslope(self) -> float:
        """
        Slope at the line search's result, scaled.
        """
        ...
    @property
    def nactive(self) -> int:
        """
        Constraint rows not satisfied.
        """
        ...
    @property
    def nchange(self) -> int:
        """
        Rows whose state changed.
        """
        ...
    @property
    def neval(self) -> int:
        """
        Line-search cost evaluations.
        """
        ...
    @property
    def nupdate(self) -> int:
        """
        Cholesky updates.
        """
        ...

class _MjSolverStatList:
    """
    `MjData.solver`: `mjNISLAND × mjNSOLVER` statistics, island `k`'s iteration `j` at
    `k * mjNSOLVER + j` (a copy). Entries past an island's `solver_niter` keep earlier solves'
    values, as in MuJoCo.
    """
    def __getitem__(self, i: int) -> MjContact: ...
    def __len__(self) -> int: ...
    @property
    def gradient(self) -> NDArray[Any]:
        """
        `gradient` of every entry (float64).
        """
        ...
    @property
    def improvement(self) -> NDArray[Any]:
        """
        `improvement` of every entry (float64).
        """
        ...
    @property
    def lineslope(self) -> NDArray[Any]:
        """
        `lineslope` of every entry (float64).
        """
        ...
    @property
    def nactive(self) -> NDArray[Any]:
        """
        `nactive` of every entry (int32).
        """
        ...
    @property
    def nchange(self) -> NDArray[Any]:
        """
        `nchange` of every entry (int32).
        """
        ...
    @property
    def neval(self) -> NDArray[Any]:
        """
        `neval` of every entry (int32).
        """
        ...
    @property
    def nupdate(self) -> NDArray[Any]:
        """
        `nupdate` of every entry (int32).
        """
        ...

class _NamedAccess:
    """
    One element of a model or data seen through its arrays: `m.body('torso').mass` is
    `m.body_mass[id:id+1]` and `d.joint('hinge').qpos` the joint's slice of `d.qpos` (views
    where the arrays are views), as MuJoCo's named accessors.
    """
    def __setattr__(self, attr: str, value: Any) -> None: ...
    @property
    def id(self) -> int:
        """
        Element id.
        """
        ...
    @property
    def name(self) -> str:
        """
        Element name ("" if unnamed).
        """
        ...

class _Rollout:
    """
    A thread pool for rollouts (`mujoco.rollout.Rollout`'s extension object).
    """
    @property
    def nthread(self) -> NDArray[Any]:
        ...

class _Batch:
    """
    nsim simulations of a model on a thread pool (`mujoco.batch.Batch`'s extension object).

    Buffers behind the arrays it returns (rows, warnings, status, outputs, expanded fields) are
    allocated once and never reallocated, so the arrays are views with this object as base.
    """
    @property
    def nsim(self) -> NDArray[Any]:
        ...
    @property
    def nstate(self) -> NDArray[Any]:
        ...
    @property
    def nthread(self) -> NDArray[Any]:
        ...
    @property
    def persistent(self) -> NDArray[Any]:
        ...

def _model_from_pickle(xml: str, files: object, arrays: object, options: object) -> None:
    """
    Rebuilds a pickled `MjModel` (`MjModel.__reduce__`): compiles the MJCF document from its
    captured files alone, then writes back the model's values at pickling time (every
    writeable array, the options and the actuator caches `mj_setConst` refreshes).
    """
    ...

def _spec_compile(xml: str, modelfiledir: str | None = None, assets: dict[str, bytes] | None = None) -> tuple[MjModel, list[str]]:
    """
    Compiles the MJCF document `xml` with its mesh, height-field and texture files relative to
    `modelfiledir` (from `assets` first): the model and the compiler's warnings (MuJoCo's texts,
    which `MjSpec.compile` raises as `UserWarning`s). Errors as `MjModel.from_xml_string`'s.
    """
    ...

def _spec_parse(xml: str | None = None, path: str | os.PathLike[str] | None = None, assets: dict[str, bytes] | None = None) -> list[tuple[int | None, str, list[tuple[str, str]], str, int]]:
    """
    Reads the MJCF document `xml` (or, without it, the file `path`), its `<include>`s expanded
    (relative to the file's directory, from `assets` first), as MuJoCo's XML reader does:
    malformed XML, schema violations, numbers that do not read, unknown keywords or default
    classes, repeated names, several orientations and missing include files raise
    `MjcfLoadError` here, as `mujoco.MjSpec.from_string` raises them; errors MuJoCo raises when
    compiling are left to `_spec_compile`. Returns the elements in document order, each as
    `(parent index or None, tag, [(attribute, value), ...], text, line)`.
    """
    ...

def _step(m: MjModel, x: NDArray[np.float64], u: NDArray[np.float64], jacobian: str | None = None, eps: float = 1e-06, centered: bool = False) -> NDArray[np.float64] | tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """
    `_step(m, x, u, jacobian=None, eps=1e-6, centered=False)`: the batched functional step.
    `x` is `(B, nq+nv+na)`, `u` `(B, nu)`, both float64 C-contiguous. Returns `x'` `(B, nx)`,
    and with `jacobian="analytic"` or `"fd"` also `(x', Jx (B, nx, nx), Ju (B, nx, nu))`. The
    batch runs on all cores without the GIL.
    """
    ...

def get_threads() -> None:
    """
    The number of threads moreau's optimizers use when not given `threads=` (`set_threads`;
    every CPU resolved to its count).
    """
    ...

def mj_comPos(m: MjModel, d: MjData) -> None:
    """
    Centers of mass, `cinert` and `cdof` (`mj_comPos`).
    """
    ...

def mj_copyData(dest: MjData, m: MjModel, src: MjData) -> None:
    """
    Copies `src` into `dest` (`mj_copyData(dest, m, src)`).
    """
    ...

def mj_differentiatePos(m: MjModel, qvel: NDArray[np.float64], dt: float, qpos1: ArrayLike, qpos2: ArrayLike) -> None:
    """
    `qvel = (qpos2 ⊖ qpos1) / dt` (`mj_differentiatePos(m, qvel, dt, qpos1, qpos2)`).
    """
    ...

def mj_energyPos(m: MjModel, d: MjData) -> None:
    """
    Potential energy into `energy[0]` (`mj_energyPos`); needs the position stage.
    """
    ...

def mj_energyVel(m: MjModel, d: MjData) -> None:
    """
    Kinetic energy into `energy[1]` (`mj_energyVel`); needs the inertia (position stage).
    """
    ...

def mj_extractState(m: MjModel, src: MjData, srcsig: int, dst: NDArray[np.float64], dstsig: int) -> None:
    """
    Copies the components `dstsig` of a state of signature `srcsig` (`mj_extractState`).
    """
    ...

def mj_forward(m: MjModel, d: MjData) -> None:
    """
    Forward dynamics without integration (`mj_forward`).
    """
    ...

def mj_fullM(m: MjModel, d: MjData, dst: NDArray[np.float64]) -> None:
    """
    The dense joint-space inertia matrix into `dst` (nv × nv) (`mj_fullM`; needs `qM` from
    `mj_forward` or `mj_step`).
    """
    ...

def mj_fwdPosition(m: MjModel, d: MjData) -> None:
    """
    Position-dependent stages (`mj_fwdPosition`).
    """
    ...

def mj_fwdVelocity(m: MjModel, d: MjData) -> None:
    """
    Velocity-dependent stages (`mj_fwdVelocity`).
    """
    ...

def mj_getState(m: MjModel, d: MjData, state: NDArray[np.float64], sig: int) -> None:
    """
    Writes the state components selected by `sig` into `state` (`mj_getState`).
    """
    ...

def mj_id2name(m: MjModel, type: int, id: int) -> str | None:
    """
    Name of element `id` of type `type` (`mjtObj`), or None (`mj_id2name`).
    """
    ...

def mj_integratePos(m: MjModel, qpos: NDArray[np.float64], qvel: NDArray[np.float64], dt: float) -> None:
    """
    `qpos ← qpos ⊕ dt·qvel` in place (`mj_integratePos(m, qpos, qvel, dt)`).
    """
    ...

def mj_inverse(m: MjModel, d: MjData) -> None:
    """
    Inverse dynamics (`mj_inverse`): `qfrc_inverse` from `qpos`, `qvel` and `qacc`.
    """
    ...

def mj_jac(m: MjModel, d: MjData, jacp: NDArray[np.float64] | None, jacr: NDArray[np.float64] | None, point: ArrayLike, body: int) -> None:
    """
    Jacobians of the world point `point` attached to `body` (`mj_jac`): `jacp`, `jacr` are
    3 × nv outputs (or None).
    """
    ...

def mj_jacBody(m: MjModel, d: MjData, jacp: NDArray[np.float64] | None, jacr: NDArray[np.float64] | None, body: int) -> None:
    """
    Jacobians of a body frame's origin (`mj_jacBody`).
    """
    ...

def mj_jacBodyCom(m: MjModel, d: MjData, jacp: NDArray[np.float64] | None, jacr: NDArray[np.float64] | None, body: int) -> None:
    """
    Jacobians of a body's center of mass (`mj_jacBodyCom`).
    """
    ...

def mj_jacGeom(m: MjModel, d: MjData, jacp: NDArray[np.float64] | None, jacr: NDArray[np.float64] | None, geom: int) -> None:
    """
    Jacobians of a geom's center (`mj_jacGeom`).
    """
    ...

def mj_jacSite(m: MjModel, d: MjData, jacp: NDArray[np.float64] | None, jacr: NDArray[np.float64] | None, site: int) -> None:
    """
    Jacobians of a site (`mj_jacSite`).
    """
    ...

def mj_kinematics(m: MjModel, d: MjData) -> None:
    """
    Forward kinematics (`mj_kinematics`): body, geom, site poses.
    """
    ...

def mj_mulM(m: MjModel, d: MjData, res: NDArray[np.float64], vec: ArrayLike) -> None:
    """
    `res = M vec` (`mj_mulM`).
    """
    ...

def mj_multiRay(m: MjModel, d: MjData, pnt: ArrayLike, vec: ArrayLike, geomgroup: ArrayLike | None, flg_static: bool, bodyexclude: int, geomid: NDArray[np.int32] | None, dist: NDArray[np.float64], normal: NDArray[np.float64] | None, nray: int, cutoff: float) -> None:
    """
    Casts `nray` rays from one point (`mj_multiRay`): `vec` holds 3·nray directions; distances
    (or -1) go to `dist`, geom ids (or -1) to `geomid`; geoms whose bounding sphere lies beyond
    `cutoff` from `pnt` are ignored.
    `normal` (3·nray floats or None) receives the unit surface normals, as in `mj_ray`.
    """
    ...

def mj_name2id(m: MjModel, type: int, name: str) -> int:
    """
    Id of the element of type `type` (`mjtObj`) named `name`, or -1 (`mj_name2id`).
    """
    ...

def mj_normalizeQuat(m: MjModel, qpos: NDArray[np.float64]) -> None:
    """
    Normalizes the quaternions of a qpos-type vector in place (`mj_normalizeQuat`).
    """
    ...

def mj_ray(m: MjModel, d: MjData, pnt: ArrayLike, vec: ArrayLike, geomgroup: ArrayLike | None, flg_static: bool, bodyexclude: int, geomid: NDArray[np.int32] | None, normal: NDArray[np.float64] | None = None) -> float:
    """
    Intersects the ray `pnt + x·vec` (x ≥ 0) with the visible geoms (`mj_ray`): returns the
    distance `x` to the nearest surface or -1, and writes the geom id (or -1) into `geomid`
    (an int32 array of one element, or None). `geomgroup` (6 flags or None) and `flg_static` as
    in `mjvOption`; geoms of body `bodyexclude` are skipped (-1: none). `normal` (3 floats or
    None) receives the unit surface normal at the hit, pointing out of the geom (zeros for no
    hit).
    """
    ...

def mj_resetData(m: MjModel, d: MjData) -> None:
    """
    Resets the data to the model's defaults (`mj_resetData`).
    """
    ...

def mj_resetDataKeyframe(m: MjModel, d: MjData, key: int) -> None:
    """
    Resets the data and loads keyframe `key` (`mj_resetDataKeyframe`).
    """
    ...

def mj_sensorAcc(m: MjModel, d: MjData) -> None:
    """
    Acceleration-stage sensors (`mj_sensorAcc`); needs `qacc` and the forces.
    """
    ...

def mj_sensorPos(m: MjModel, d: MjData) -> None:
    """
    Position-stage sensors (`mj_sensorPos`); needs the position stage.
    """
    ...

def mj_sensorVel(m: MjModel, d: MjData) -> None:
    """
    Velocity-stage sensors (`mj_sensorVel`); needs the velocity stage.
    """
    ...

def mj_setConst(m: MjModel, d: MjData) -> None:
    """
    Recomputes the model's derived constants at `qpos0` (`mj_setConst`): subtree masses,
    inverse weights, `dof_M0`, `actuator_acc0`, tendon lengths, … after parameters were
    written. Array views of the model stay valid.
    """
    ...

def mj_setState(m: MjModel, d: MjData, state: NDArray[np.float64], sig: int) -> None:
    """
    Sets the state components selected by `sig` from `state` (`mj_setState`).
    """
    ...

def mj_stateSize(m: MjModel, sig: int) -> int:
    """
    Size of the state vector of signature `sig` (`mj_stateSize`; `mjtState` bits).
    """
    ...

def mj_step(m: MjModel, d: MjData, nstep: int = 1) -> None:
    """
    Advances the simulation by `nstep` steps (`mj_step`).
    """
    ...

def mj_step1(m: MjModel, d: MjData) -> None:
    """
    The part of `mj_step` before controls and applied forces are read (`mj_step1`).
    """
    ...

def mj_step2(m: MjModel, d: MjData) -> None:
    """
    The rest of `mj_step` (`mj_step2`; RK4 falls back to Euler, as in MuJoCo).
    """
    ...

def mj_version() -> int:
    """
    The MuJoCo version whose numbers moreau reproduces, encoded as MuJoCo does (4.0.0 → 4000).
    """
    ...

def mj_versionString() -> str:
    """
    The MuJoCo version whose numbers moreau reproduces.
    """
    ...

def mjd_inverseFD(m: MjModel, d: MjData, eps: float, flg_actuation: bool, DfDq: NDArray[np.float64] | None = None, DfDv: NDArray[np.float64] | None = None, DfDa: NDArray[np.float64] | None = None, DsDq: NDArray[np.float64] | None = None, DsDv: NDArray[np.float64] | None = None, DsDa: NDArray[np.float64] | None = None, DmDq: NDArray[np.float64] | None = None) -> None:
    """
    Finite-difference Jacobians of inverse dynamics (`mjd_inverseFD`), MuJoCo's transposed
    layout (`D[i, j] = ∂out_j/∂in_i`): `DfDq`, `DfDv`, `DfDa` (nv × nv) of `qfrc_inverse`
    (minus `qfrc_actuator` with `flg_actuation`), `DsDq`, `DsDv`, `DsDa` (nv × nsensordata),
    `DmDq` (nv × nM): row `i` is `∂qM/∂q_i` in moreau's `qM` layout (`dof_Madr`; MuJoCo 4.0.0
    uses its CSR `M` layout, nv × nC). Any output may be None. Forward differences, as MuJoCo.
    """
    ...

def mjd_transitionFD(m: MjModel, d: MjData, eps: float, flg_centered: bool, A: NDArray[np.float64] | None = None, B: NDArray[np.float64] | None = None, C: NDArray[np.float64] | None = None, D: NDArray[np.float64] | None = None) -> None:
    """
    Finite-difference transition matrices of one `mj_step` (`mjd_transitionFD`): with
    `x = (qpos tangent, qvel, act)` and `u = ctrl`, `A = ∂x'/∂x` ((2nv+na) × (2nv+na)),
    `B = ∂x'/∂u` ((2nv+na) × nu), `C = ∂sensordata/∂x` (nsensordata × (2nv+na)),
    `D = ∂sensordata/∂u` (nsensordata × nu). Outputs are float64 arrays or None (skipped; with
    C and D None the sensors are not evaluated). `flg_centered`: central differences. The state
    of `d` is restored afterwards. Unlike MuJoCo 4.0.0, RK4 models are accepted.
    """
    ...

def set_threads(nthread: object) -> None:
    """
    Sets the number of threads moreau's optimizers use when not given `threads=`: iLQR's and
    MPC's per-knot transition Jacobians, predictive sampling's candidate rollouts (0, the
    default: every CPU; 1: the calling thread). Results do not depend on it, bit for bit.
    `rollout` and `Batch` take MuJoCo's `nthread` instead.
    """
    ...

def viewer_page(m: MjModel, trajectories: list[tuple[str, str]], title: str | None = None, max_fps: float = 120.0) -> str:
    """
    The self-contained HTML page (three.js, the model and the trajectories inside; no network
    needed) drawing `m` and playing `trajectories` overlaid: a list of `(name, json)` with
    `json` a trajectory object as `moreau simulate` writes it (`qpos` rows, optionally `time`,
    `qvel`, `act`, `ctrl`, `contact` and overlays `*_qpos`). An empty list draws the model at
    `qpos0`. Raises `ValueError` for a trajectory that does not fit the model.
    """
    ...

mjNISLAND: int

class CollocationResult:
    """
    The result of [`contact_trajopt`].
    """
    @property
    def converged(self) -> Any:
        ...
    @property
    def cost(self) -> Any:
        """
        Task + control cost at the solution.
        """
        ...
    @property
    def cost_history(self) -> Any:
        ...
    @property
    def ctrl(self) -> Any:
        """
        Controls `(T, nu)`.
        """
        ...
    @property
    def defect_history(self) -> Any:
        ...
    @property
    def iterations(self) -> Any:
        ...
    @property
    def jacobians(self) -> Any:
        """
        Name of the inverse-dynamics Jacobian provider.
        """
        ...
    @property
    def max_defect(self) -> Any:
        """
        Largest unactuated force residual (N) at the solution.
        """
        ...
    @property
    def problem(self) -> Any:
        """
        The problem's name.
        """
        ...
    @property
    def qacc(self) -> Any:
        """
        Accelerations `(T, nv)`.
        """
        ...
    @property
    def qfrc(self) -> Any:
        """
        Generalized forces from inverse dynamics `(T, nv)`.
        """
        ...
    @property
    def qpos(self) -> Any:
        """
        The planned configurations `q_0 … q_T`, `(T+1, nq)`.
        """
        ...
    @property
    def qvel(self) -> Any:
        """
        Velocities `(T+1, nv)`.
        """
        ...
    @property
    def replay_error(self) -> Any:
        """
        Largest difference between the open-loop replay and the plan.
        """
        ...
    @property
    def replay_qpos(self) -> Any:
        """
        The engine re-simulating the plan open loop under `ctrl`: configurations `(T+1, nq)`.
        """
        ...
    @property
    def termination(self) -> Any:
        """
        argmin's termination status.
        """
        ...
    @property
    def timestep(self) -> Any:
        """
        Knot time step.
        """
        ...

class Identified:
    """
    The result of [`identify`].
    """
    def apply(self, m: MjModel) -> Any:
        """
        A copy of the model `m` with the estimate written in (then call `mj_setConst` for the
        constants that depend on it).
        """
        ...
    @property
    def estimate(self) -> Any:
        """
        The least-squares estimate (unidentifiable combinations keep their nominal values).
        """
        ...
    @property
    def nominal(self) -> Any:
        """
        Their values in the nominal model.
        """
        ...
    @property
    def params(self) -> Any:
        """
        The parameters, as `(kind, index, k)`.
        """
        ...
    @property
    def rank(self) -> Any:
        """
        Numerical rank of the regressor.
        """
        ...
    @property
    def residual_rms(self) -> Any:
        """
        RMS of the force residual at the estimate.
        """
        ...

class IlqrResult:
    """
    The result of [`ilqr`].
    """
    @property
    def converged(self) -> Any:
        ...
    @property
    def cost(self) -> Any:
        """
        The final cost.
        """
        ...
    @property
    def cost_history(self) -> Any:
        """
        Cost after each iteration (the first entry: the initial guess).
        """
        ...
    @property
    def gains(self) -> Any:
        """
        Feedback gains `(T, nu, 2nv+na)`: `u = u_t + K_t (x ⊖ x_t)`.
        """
        ...
    @property
    def iterations(self) -> Any:
        ...
    @property
    def jacobian_fallbacks(self) -> Any:
        """
        Linearizations redone by central differences because they were not finite.
        """
        ...
    @property
    def us(self) -> Any:
        """
        Controls `(T, nu)`.
        """
        ...
    @property
    def xs(self) -> Any:
        """
        States `(T+1, nq+nv+na)`.
        """
        ...

class Mpc:
    """
    Receding-horizon iLQR (`moreau-optim`'s `IlqrMpc`): `step(x)` re-plans from the state
    `x = (qpos, qvel, act)` over `horizon` steps (warm start: the previous plan shifted) and
    returns the control to apply. A failed solve falls back to the previous plan (counted in
    `fallbacks`); `max_consecutive_failures` failures in a row raise.
    """
    def __init__(self, m, xref, Q, R, Qf=None, horizon=50, iter=2, first_iter=20, bounds=..., linearization="fd", tol=0.0, threads=None) -> None: ...
    @property
    def fallbacks(self) -> Any:
        """
        Control steps whose solve failed and that applied the previous plan instead.
        """
        ...
    @property
    def last_failure(self) -> Any:
        """
        The error of the last failed solve, if any.
        """
        ...
    @property
    def last_history(self) -> Any:
        """
        Cost history of the last solve.
        """
        ...
    @property
    def max_consecutive_failures(self) -> Any:
        """
        Failed solves in a row that raise (default 10).
        """
        ...
    @property
    def plan(self) -> Any:
        """
        The current plan's states `(horizon+1, nx)` and controls `(horizon, nu)`, or None.
        """
        ...
    def step(self, x: NDArray[np.float64], shift: object = 1) -> Any:
        """
        Re-plans from `x` (`shift`: control steps since the last call) and returns the control.
        """
        ...

class PredictiveSampling:
    """
    Predictive sampling (`moreau-optim`'s `PredictiveSampling`) on the diagonal tangent-space
    cost `½ Σ q_i e_i² + ½ Σ r_k u_k²` around `xref` (`e = x ⊖ xref`): `control(d)` plans from
    the state of `d` (`rollouts` candidates of `steps` physics steps in parallel, `knots`
    control knots, Gaussian noise `sigma`, `interp` `"linear"` or `"zoh"`, on `threads` threads,
    None: `set_threads`'s choice) and returns `(ctrl, cost)`.
    """
    def __init__(self, m, xref, q, r, rollouts=32, steps=100, knots=10, sigma=0.5, interp="linear", seed=1, threads=None) -> None: ...
    def control(self, d: MjData) -> Any:
        """
        Plans from the state of `d` and returns `(ctrl, cost of the new nominal plan)`.
        """
        ...
    @property
    def nominal(self) -> Any:
        """
        The nominal plan's knots `(knots, nu)`.
        """
        ...

class Recording:
    """
    A recorded trajectory for system identification: per step `t`, `qpos`, `qvel`, the
    discrete acceleration `qacc = (v_{t+1} − v_t)/h` and the known generalized force `force`
    (`qfrc_actuator + qfrc_applied`). Build it from measurements, `Recording(qpos, qvel, qacc,
    force)` (arrays `(T, nq)`, `(T, nv)`, `(T, nv)`, `(T, nv)`), or by simulation with `record`.
    """
    def __init__(self, qpos, qvel, qacc, force) -> None: ...
    def __len__(self) -> Any:
        """
        Return len(self).
        """
        ...
    @property
    def force(self) -> Any:
        ...
    @property
    def qacc(self) -> Any:
        ...
    @property
    def qpos(self) -> Any:
        ...
    @property
    def qvel(self) -> Any:
        ...

class _Optim(ModuleType):
    CollocationResult: type[CollocationResult]
    Identified: type[Identified]
    IlqrResult: type[IlqrResult]
    Mpc: type[Mpc]
    PredictiveSampling: type[PredictiveSampling]
    Recording: type[Recording]
    @staticmethod
    def contact_trajopt(problem: object = 'hopper', horizon: object = 60, distance: object = None, max_iters: object = 300, jacobians: object = 'analytic', defect_tol: object = None, progress: object = False, callback: object = None, threads: object = None, warm_ilqr: object = 0) -> CollocationResult:
        """
        Direct collocation through contact on one of the project's problems (the `moreau-problems`
        crate, as `cargo run -p moreau-optim --example contact_trajopt`): `"hopper"` (a planar
        hopper hopping `distance` = 0.15 m forward, models/hopper_hop.xml), `"ball"` (a finger
        pushing a ball 0.2 m, models/ball_push.xml) or `"box"` (a finger pushing a box 0.2 m,
        models/box_push.xml), over `horizon` knots, solved by Gauss–Newton/Levenberg–Marquardt.
        `jacobians`: `"analytic"` (inverse-dynamics Jacobians through the soft contact forces),
        `"fd"` or `"jumpsafe"` (finite differences). `progress=True` shows a progress bar on stderr;
        `callback(info)` gets `{"iteration", "cost", "defect"}` after each iteration. The knots'
        Jacobians run on `threads` threads (None: `set_threads`'s choice) where the provider
        computes them per thread; the result does not depend on it. `warm_ilqr` > 0 starts the
        collocation from iLQR's solution through the engine's step (at most that many iterations)
        instead of the problem's guess (the hopper converges from it, it stalls from its guess).
        Returns a `CollocationResult` (plan, controls, the engine's open-loop replay, histories).
        """
        ...
    @staticmethod
    def excitation(nu: object, steps: object, sigma: object = 1.0, hold: object = 10, seed: object = 0) -> NDArray[np.float64]:
        """
        Random excitation controls `(steps, nu)`: Gaussian with `sigma`, held for `hold` steps.
        """
        ...
    @staticmethod
    def identify(m: MjModel, recording: object, params: object, rcond: object = 1e-09, threads: object = None) -> Identified:
        """
        Least-squares identification of `params` (see `param` specs: `("mass", body)`,
        `("inertial", body, k)`, `("damping", dof)`) from `recording` (one `Recording`, or a
        sequence of them: one parameter vector for several logs) on inverse dynamics, linearized
        (exactly) at the nominal model `m`; singular values below `rcond · σ_max` count as zero.
        The regressor's columns run on `threads` threads (None: `set_threads`'s choice; the result
        does not depend on it).
        """
        ...
    @staticmethod
    def ilqr(m: MjModel, x0: object, us: object, xref: object, Q: NDArray[np.float64] | None, R: NDArray[np.float64] | None, Qf: NDArray[np.float64] | None = None, max_iter: object = 200, tol: object = 1e-09, bounds: object = None, linearization: object = 'fd', callback: object = None, threads: object = None) -> IlqrResult:
        """
        Iterative LQR on the engine's step from the state `x0 = (qpos, qvel, act)` with the
        initial controls `us` `(T, nu)`, minimizing `Σ_t dt·[½ e_tᵀ Q e_t + ½ u_tᵀ R u_t] +
        ½ e_Tᵀ Qf e_T`, `e = x ⊖ xref` in the tangent space (`2nv + na`; weights as vectors for
        diagonals or matrices). `bounds`: None, `"ctrlrange"` or `(lo, hi)` (control-limited iLQR);
        `linearization`: `"fd"` (`mjd_transitionFD`) or `"analytic"`, on `threads` threads
        (None: `set_threads`'s choice; the result does not depend on it). `callback(info)` gets
        `{"iteration", "cost"}`.
        """
        ...
    @staticmethod
    def record(m: MjModel, controls: object, noise: object = 0.0, seed: object = 0, q_offset: object = None) -> Recording:
        """
        Simulates `m` from `qpos0` (+ `q_offset`) under `controls` `(T, nu)` and records it;
        `noise`: standard deviation of Gaussian noise on the measured velocities (`seed`).
        """
        ...

optim: _Optim

class _Derivatives(ModuleType):
    @staticmethod
    def transition(m: MjModel, d: MjData, method: str = 'analytic', eps: float = 1e-06, centered: bool = False, sensors: bool = True) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """
        `moreau.derivatives.transition`: `(A, B, C, D)` as new arrays (layout of
        `mjd_transitionFD`). `method="analytic"`: exact Jacobians at the constraint solution
        (implicit function theorem through soft contact); `"fd"`: finite differences with `eps` and
        `centered`. `sensors=False` skips `C`, `D` (returned as arrays with no rows).
        The state of `d` is not advanced; its intermediate results are those of `mj_forward` at the
        state (analytic) or of the last perturbed step (fd).
        """
        ...
    @staticmethod
    def inverse(m: MjModel, d: MjData, method: str = 'analytic', eps: float = 1e-06, centered: bool = False, flg_actuation: bool = False) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """
        `moreau.derivatives.inverse`: `(DfDq, DfDv, DfDa)` of `qfrc_inverse` at the state and
        `qacc` of `d`, MuJoCo's transposed layout (`D[i, j] = ∂f_j/∂in_i`). `method="analytic"`
        (exact) or `"fd"` (forward differences with `eps`, or central with `centered`;
        `flg_actuation` subtracts `qfrc_actuator` as in `mjd_inverseFD`, fd only).
        """
        ...

derivatives: _Derivatives
