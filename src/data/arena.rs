//! MuJoCo's arena (`mjModel.narena`, `<size memory>`): one block per `mjData` that holds the
//! contacts and constraint rows of a step beside the stack. moreau keeps its own arrays but
//! bounds the contacts and rows by the same bytes, so a step drops what MuJoCo 4.0.0 drops
//! (docs/mujoco-behaviour.md, "Contact capacity"). The sizes below were measured on MuJoCo
//! 4.0.0 (`tools/arena/fit.py`, `tools/arena/reference.py`); where its accounting is not
//! reproduced exactly the comment says so.

use crate::model::Model;

/// Arena bytes one contact takes (`sizeof(mjContact)` in MuJoCo 4.0.0: `d.parena / d.ncon`
/// after `mj_collision`).
pub const CONTACT_BYTES: usize = 608;

/// Arena bytes one constraint row takes beside its Jacobian (fitted on sparse pyramidal and
/// elliptic piles, ±5%; MuJoCo's exact per-row accounting is not reproduced).
pub const EFC_ROW_BYTES: usize = 205;

const MIB: usize = 1 << 20;

/// Most contacts a collision pass stores, whatever the arena: beyond it contacts are dropped
/// with `ContactFull` as if the arena were full. Only an arena above 1.4 GiB (`720 · 2²¹ + 24`
/// bytes) would hold more, so this bounds what a hostile `<size memory>` can make `Data::new`
/// reserve for contacts: 2²¹ × `size_of::<Contact<f64>>()` (about 0.6 GB of address space).
pub const MAX_CONTACTS: usize = 1 << 21;

/// `mjModel.narena` when `<size memory>` is not given: MuJoCo 4.0.0's default, rounded up to
/// whole MiB, as measured on the oracle by threshold search (`tools/arena/fit.py`,
/// `tools/arena/default_zoo.py`). The rows and contacts take 608 bytes per `nconmax` (default
/// 100) and `12 njmax² + 24 njmax·nv + 144 njmax + 12 nv` (`njmax` default 500); the stack
/// beside them is `8 nstack` bytes when `<size nstack>` is given, else
/// `40 (njmax + nv + neq)² + 468 nv + 160 (nbody + ngeom + 2 ntendon + neq)`. It gives
/// MuJoCo's value on all 91 models of `models/` and the public zoo that MuJoCo loads.
pub fn default_narena(m: &Model, nstack: Option<u64>) -> usize {
    let c = if m.nconmax < 0 {
        100
    } else {
        m.nconmax as u128
    };
    let j = if m.njmax < 0 { 500 } else { m.njmax as u128 };
    let (v, e) = (m.nv as u128, m.neq as u128);
    let rows = 608 * c + 12 * j * j + 24 * j * v + 144 * j + 12 * v;
    let stack = match nstack {
        Some(n) => 8 * n as u128,
        None => {
            40 * (j + v + e) * (j + v + e)
                + 468 * v
                + 160 * (m.nbody as u128 + m.ngeom as u128 + 2 * m.ntendon as u128 + e)
        }
    };
    let mib = (rows + stack).div_ceil(MIB as u128);
    usize::try_from(mib * MIB as u128).unwrap_or(usize::MAX)
}

/// The model's arena bytes: `m.narena`, or [`default_narena`] for a model built by hand.
pub fn narena(m: &Model) -> usize {
    if m.narena > 0 {
        m.narena
    } else {
        default_narena(m, None)
    }
}

/// Contacts a collision pass keeps of the `found` ones: those that fit in the arena beside the
/// 112 bytes per contact found plus 24 that MuJoCo 4.0.0's collision holds on the stack
/// (measured: exact to the byte on piles of spheres, one contact per geom pair, from 15 to
/// 4,030 contacts; where pairs give several contacts, as boxes on boxes, MuJoCo's stack holds
/// more and it keeps 3-9% fewer than this), in whole contacts, in the order found.
pub fn contacts_kept(m: &Model, found: usize) -> usize {
    let stack = 112 * found as u128 + 24;
    let free = (narena(m) as u128).saturating_sub(stack) / CONTACT_BYTES as u128;
    usize::try_from(free).map_or(found, |k| k.min(found))
}

/// Most contacts a collision pass can keep: `K` with `608 K + 112 K + 24 ≤ narena` (the
/// stack beside the contacts is at least 112 bytes for each contact kept, see
/// [`contacts_kept`]), at most [`MAX_CONTACTS`]. `Data::new` reserves this many, so a step
/// never grows the list (MuJoCo allocates its arena once, in `mj_makeData`); the reserve is
/// address space only until contacts are written.
pub fn max_contacts(m: &Model) -> usize {
    (narena(m).saturating_sub(24) / (CONTACT_BYTES + 112)).min(MAX_CONTACTS)
}

/// Most constraint rows a step keeps, whatever the arena: beyond it the rows are dropped with
/// `CnstrFull` as if the arena were full. Only an arena above 205 MiB (`EFC_ROW_BYTES · 2²⁰`)
/// would hold more, so this bounds what a hostile `<size memory>` can make `Data::new` reserve
/// for rows.
pub const MAX_EFC_ROWS: usize = 1 << 20;

/// Most entries of the constraint Jacobian (sparse: its nonzeros; dense: `nefc·nv`) and of the
/// dual solvers' AR a step keeps, whatever the arena (an arena above 384 MiB, 12 bytes an
/// entry, would hold more); past it the rows are dropped as by [`MAX_EFC_ROWS`].
pub const MAX_EFC_NNZ: usize = 1 << 25;

/// What `Data::new` reserves for the arena's contents (MuJoCo allocates its arena once, in
/// `mj_makeData`, so that no step allocates): every contact and row the arena can hold. The
/// reserve is address space: pages are touched only when a step writes them. A clone of a
/// `Data` reserves the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reserve {
    /// Contacts: [`max_contacts`].
    pub contacts: usize,
    /// Broad-phase body pairs.
    pub pairs: usize,
    /// Constraint rows: those whose bytes fit in the arena with no contact, at the fewest
    /// Jacobian bytes a row can take (sparse: none; dense: `nv` entries), at most
    /// [`MAX_EFC_ROWS`] (dense: and `MAX_EFC_NNZ / nv`).
    pub rows: usize,
    /// Contacts with rows (friction cones): at most `contacts` and `rows`.
    pub cones: usize,
    /// Jacobian entries: sparse, the arena's bytes at 12 an entry (at most [`MAX_EFC_NNZ`]);
    /// dense, `rows · nv`.
    pub jnnz: usize,
    /// Entries of the dual solvers' AR ([`is_dual`], else 0): the arena's bytes at 8 (dense)
    /// or 12 (sparse) an entry, at most `rows²` and [`MAX_EFC_NNZ`].
    pub ar: usize,
    /// Whether `efc_J` is dense.
    pub dense: bool,
}

/// The [`Reserve`] of model `m`'s arena.
pub fn reserve(m: &Model) -> Reserve {
    let a = narena(m);
    let nv = m.nv;
    let dense = !super::efc::is_sparse(m);
    let contacts = max_contacts(m);
    let (rows, jnnz) = if dense {
        let rows = (a / (EFC_ROW_BYTES + 12 * nv))
            .min(MAX_EFC_ROWS)
            .min(MAX_EFC_NNZ / nv.max(1));
        (rows, rows * nv)
    } else {
        (
            (a / EFC_ROW_BYTES).min(MAX_EFC_ROWS),
            (a / 12).min(MAX_EFC_NNZ),
        )
    };
    let ar = if !is_dual(m) {
        0
    } else if dense {
        (a / 8).min(rows.saturating_mul(rows)).min(MAX_EFC_NNZ)
    } else {
        (a / 12).min(rows.saturating_mul(rows)).min(MAX_EFC_NNZ)
    };
    Reserve {
        contacts,
        pairs: max_body_pairs(m),
        rows,
        cones: contacts.min(rows),
        jnnz,
        ar,
        dense,
    }
}

/// Bytes of a [`Reserve`] of `Data<f64>` (address space until written): about 450 per row over
/// the row arrays and the solvers' copies, 40 per Jacobian entry (values and columns of
/// `efc_J`, of the solver's gathered copy and of the Hessian pattern's transposed rows; 56 with
/// the dual solvers' `B`) and 8 per entry of AR (the contacts are counted apart).
pub fn reserve_bytes(r: &Reserve) -> u128 {
    let per_entry = if r.ar > 0 { 56 } else { 40 };
    450 * r.rows as u128 + per_entry * r.jnnz as u128 + 8 * r.ar as u128
}

/// True if `nefc` rows with `nnz` Jacobian entries and `ar_nnz` entries of AR exceed the caps
/// that hold whatever the arena ([`MAX_EFC_ROWS`], [`MAX_EFC_NNZ`]; dense AR is `nefc²`).
pub fn rows_over_caps(nefc: usize, nnz: usize, ar_nnz: usize, dual: bool, dense: bool) -> bool {
    let ar = if dense && dual {
        nefc.saturating_mul(nefc)
    } else {
        ar_nnz
    };
    nefc > MAX_EFC_ROWS || nnz > MAX_EFC_NNZ || ar > MAX_EFC_NNZ
}

/// Most body pairs `BroadScratch::for_model` reserves, whatever the arena (128 MB of pair
/// keys): a model with more overlapping body pairs grows the list on the step that finds them.
pub const MAX_BODY_PAIRS_RESERVE: usize = 1 << 24;

/// Body pairs reserved up front: every pair of bodies, but no more pair keys (8 bytes each)
/// than the arena's bytes (MuJoCo holds its broad phase's pairs on the arena's stack, so a pass
/// with more does not run there), at most [`MAX_BODY_PAIRS_RESERVE`]. The reserve is address
/// space until pairs are written.
pub fn max_body_pairs(m: &Model) -> usize {
    let all = m.nbody.saturating_mul(m.nbody.saturating_sub(1)) / 2;
    all.min(narena(m) / 8).min(MAX_BODY_PAIRS_RESERVE)
}

/// Arena bytes of `nefc` rows with `nnz` Jacobian entries: 12 bytes per entry, of the
/// sparse pattern or, dense, of all `nefc·nv` (fitted on MuJoCo 4.0.0's piles both ways).
pub fn efc_bytes(nefc: usize, nv: usize, nnz: usize, sparse: bool) -> u128 {
    let entries = if sparse {
        nnz as u128
    } else {
        nefc as u128 * nv as u128
    };
    let j = 12 * entries;
    EFC_ROW_BYTES as u128 * nefc as u128 + j
}

/// True if MuJoCo 4.0.0 allocates the dual solvers' arrays (`mj_isDual`: the PGS solver, or any
/// solver with noslip iterations), measured on the oracle.
pub fn is_dual(m: &Model) -> bool {
    m.opt.solver == crate::model::SolverType::Pgs || m.opt.noslip_iterations > 0
}

/// Arena bytes of the dual solvers' arrays beside the rows (`efc_AR` and the rows of
/// `B = J M⁻¹ᐟ²` that PGS and noslip work on), for `nefc` rows with `jnnz` sparse Jacobian
/// entries and `ar_nnz` entries of AR ([`crate::ar_nnz`]). Dense: `8 nefc² + 8 nefc·nv`; sparse:
/// `16 nefc + 12 (ar_nnz + jnnz)`. Measured on MuJoCo 4.0.0 as the growth of `mjData.parena`
/// from Newton to PGS at the same state (`tools/arena/reference.py`): exact on piles of free
/// bodies and on 21 of the 24 models of `models/` with contacts, within 4 bytes (alignment) or
/// a few hundred bytes where a tree's rows reach past the pattern of `efc_J`.
pub fn dual_bytes(nefc: usize, nv: usize, jnnz: usize, ar_nnz: usize, sparse: bool) -> u128 {
    let nefc = nefc as u128;
    if sparse {
        16 * nefc + 12 * (ar_nnz as u128 + jnnz as u128)
    } else {
        8 * nefc * nefc + 8 * nefc * nv as u128
    }
}

/// The fewest arena bytes MuJoCo 4.0.0's compiler needs on its stack: `24 + max(104 nv, 96
/// nbody)` (`setInertia0` and `mj_rne` in `mj_setConst`). Measured on the oracle by threshold
/// search on `<size memory>`: exact on chains, free, ball and jointless bodies and on 36 of the
/// 45 models of `models/` MuJoCo loads; on the other nine (equality constraints, tendons,
/// contacts at the initial pose: the compiler also runs the solver) MuJoCo needs more, so
/// this is a lower bound. A smaller `<size memory>` fails in MuJoCo with "mj_stackAlloc: out of
/// memory", and the loader refuses it.
pub fn compile_stack_bytes(m: &Model) -> u128 {
    24 + (104 * m.nv as u128).max(96 * m.nbody as u128)
}

/// MuJoCo 4.0.0's fatal stack overflow while compiling model `m` (`mj_setConst` runs the model
/// on the arena's stack), if `m.narena` is too small. Measured on the oracle by walking
/// `<size memory>` up from 1 by each overflow's shortfall (`tools/arena/compile_stack.py`:
/// chains, free, ball and static bodies): four passes, each from an empty stack whose top is
/// the arena's end (not rounded: the first frame's padding counts in `requested`), each request
/// padded to its alignment:
///
/// | site | line | bytes | align |
/// |---|---|---|---|
/// | (frame) | | 24 | 8 |
/// | `setBound` | 313 | 48 | 8 |
/// | `setBound` | 314 | `4 (nbody − 1)` | 4 |
/// | (frame) | | 24 | 8 |
/// | `setDofLength` | 1291 | `8 nbody` | 8 |
/// | (frame), with `nv > 0` | | 24 | 8 |
/// | `setInertia0` | 1064, 1065 | `48 nv` each | 8 |
/// | `setInertia0` | 1066 | `8 nv` | 8 |
/// | (frame) | | 24 | 8 |
/// | `mj_rne` | 2161, 2162 | `48 nbody` each | 8 |
///
/// Their largest is [`compile_stack_bytes`]. Models whose compilation also runs the solver
/// (equality constraints, tendons, contacts at the initial pose) take more later, which is not
/// checked.
pub fn compile_overflow(m: &Model) -> Option<StackOverflow> {
    let narena = narena(m);
    let (nv, nbody) = (m.nv as i128, m.nbody as i128);
    let frame: (&'static str, u32, i128, i128) = ("", 0, 24, 8);
    let set_bound = [
        frame,
        ("setBound", 313, 48, 8),
        ("setBound", 314, 4 * (nbody - 1).max(0), 4),
    ];
    let set_dof_length = [frame, ("setDofLength", 1291, 8 * nbody, 8)];
    let set_inertia0 = [
        frame,
        ("setInertia0", 1064, 48 * nv, 8),
        ("setInertia0", 1065, 48 * nv, 8),
        ("setInertia0", 1066, 8 * nv, 8),
    ];
    let rne = [
        frame,
        ("mj_rne", 2161, 48 * nbody, 8),
        ("mj_rne", 2162, 48 * nbody, 8),
    ];
    let passes: [&[_]; 4] = [
        &set_bound,
        &set_dof_length,
        if nv > 0 { &set_inertia0 } else { &[] },
        &rne,
    ];
    passes.iter().find_map(|pass| {
        let mut top = i128::try_from(narena).unwrap_or(i128::MAX);
        pass.iter().find_map(|&(site, line, bytes, align)| {
            let start = (top - bytes).div_euclid(align) * align;
            if start >= 0 {
                top = start;
                return None;
            }
            let clamp = |x: i128| usize::try_from(x).unwrap_or(usize::MAX);
            Some(StackOverflow {
                site,
                line,
                max: narena,
                requested: clamp(top - start),
                available: clamp(top),
                narena,
                nefc: 0,
                ncon: 0,
            })
        })
    })
}

/// MuJoCo 4.0.0's fatal stack overflow during a step (`mju_error` from `mj_stackAlloc`; the
/// Python bindings raise it as `mujoco.FatalError`): the arena's free bytes, between its
/// contents and its stack, cannot hold what a stage asks for. The step stops where it happened:
/// the stages after it do not run and the state is not integrated. Its text is MuJoCo's
/// message, with the source line MuJoCo names and its `max` figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackOverflow {
    /// The stage that asked (MuJoCo's function name, as its message gives it), or "" for a
    /// request MuJoCo's message names no stage for (a stack frame's own bytes).
    pub site: &'static str,
    /// The line MuJoCo 4.0.0's message gives with the stage (0 when it gives none).
    pub line: u32,
    /// MuJoCo's `max` figure: the bytes the stack could reach, the whole arena while nothing
    /// is in it (as measured at every collision-stage overflow: `max = narena`).
    pub max: usize,
    /// Bytes the stage asked for, with the padding that aligns it.
    pub requested: usize,
    /// Bytes the stack had free.
    pub available: usize,
    /// The arena's bytes (`mjModel.narena`).
    pub narena: usize,
    /// Constraint rows at the time (`mjData.nefc`).
    pub nefc: usize,
    /// Contacts at the time (`mjData.ncon`).
    pub ncon: usize,
}

impl std::fmt::Display for StackOverflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "mj_stackAlloc: out of memory, stack overflow")?;
        if !self.site.is_empty() {
            write!(f, " at {}, line {}", self.site, self.line)?;
        }
        write!(
            f,
            "\n  max = {}, available = {}, requested = {}, narena = {} (increase <size \
             memory=\"...\"/>)\n  nefc = {}, ncon = {}",
            self.max, self.available, self.requested, self.narena, self.nefc, self.ncon
        )
    }
}

impl std::error::Error for StackOverflow {}

/// Bytes the stack has free in an empty arena once the collision stage's first frame is on it:
/// MuJoCo 4.0.0 uses the arena's bytes rounded down to a multiple of 8 and the frame takes 24
/// of them (measured: `available` in its message is `narena & !7 − 24` at `mj_collision`,
/// whatever `narena mod 8`).
pub fn stack_free(narena: usize) -> usize {
    (narena & !7).saturating_sub(24)
}

/// Bytes `mj_collision` takes on the stack before its broad phase: one `int` per pair of bodies,
/// `4 · nbody(nbody − 1)/2`, whether or not the bodies have geoms (measured on MuJoCo 4.0.0:
/// `requested` in its message is exactly this for rows of bodies, mocap bodies and chains from
/// 10 to 200 bodies). Not taken when the `contact` or `constraint` disable flag is set.
pub fn collision_pairs_bytes(nbody: usize) -> u128 {
    2 * nbody as u128 * nbody.saturating_sub(1) as u128
}

/// MuJoCo's arena stack as a step's stages take it: it grows down from the arena's end
/// (rounded down to a multiple of 8) towards its contents, which are empty at the collision
/// stage. Each request is padded to its alignment; one that does not fit is MuJoCo's fatal
/// error, with `requested` counting the padding and `available` the bytes left before it.
struct Stack {
    used: u128,
    limit: u128,
    narena: usize,
}

impl Stack {
    fn new(narena: usize) -> Self {
        Stack {
            used: 0,
            limit: (narena & !7) as u128,
            narena,
        }
    }

    /// Takes `bytes` aligned to `align`, or gives the overflow at `site`, `line`.
    fn take(
        &mut self,
        site: &'static str,
        line: u32,
        bytes: u128,
        align: u128,
    ) -> Result<(), StackOverflow> {
        if bytes == 0 {
            return Ok(());
        }
        // every alignment is a power of two (4 or 8): a mask, not a 128-bit division
        debug_assert!(align.is_power_of_two());
        let end = (self.used + bytes + (align - 1)) & !(align - 1);
        if end <= self.limit {
            self.used = end;
            return Ok(());
        }
        let clamp = |x: u128| usize::try_from(x).unwrap_or(usize::MAX);
        Err(StackOverflow {
            site,
            line,
            max: self.narena,
            requested: clamp(end - self.used),
            available: clamp(self.limit.saturating_sub(self.used)),
            narena: self.narena,
            nefc: 0,
            ncon: 0,
        })
    }
}

/// The bodies the broad phase sweeps and those it tests against the world's geoms: bodies
/// other than the world with a geom that has contype or conaffinity, and of those the ones
/// that can touch a world geom (a body with dofs whose geoms' contype and conaffinity, or'ed,
/// meet the world geoms' conaffinity and contype).
fn broad_bodies(m: &Model) -> (u128, u128) {
    let ngeom = m.ngeom.min(m.geom_bodyid.len());
    let masks = |g: usize| (m.geom_contype[g], m.geom_conaffinity[g]);
    let (mut wt, mut wa) = (0, 0);
    for g in 0..ngeom {
        if m.geom_bodyid[g] == 0 {
            let (t, a) = masks(g);
            wt |= t;
            wa |= a;
        }
    }
    let moving = |b: usize| {
        let w = m.body_weldid[b];
        w != 0 && m.body_dofnum.get(w).is_some_and(|&n| n > 0)
    };
    let (mut n, mut nw) = (0u128, 0u128);
    let mut count = |b: usize, t: u32, a: u32| {
        if b != 0 && (t != 0 || a != 0) {
            n += 1;
            if moving(b) && (t & wa != 0 || wt & a != 0) {
                nw += 1;
            }
        }
    };
    if m.geom_bodyid[..ngeom].windows(2).all(|w| w[0] <= w[1]) {
        // compiled models number geoms in body order: one pass over runs of a body's geoms
        let mut g = 0;
        while g < ngeom {
            let b = m.geom_bodyid[g];
            let (mut t, mut a) = (0, 0);
            while g < ngeom && m.geom_bodyid[g] == b {
                t |= m.geom_contype[g];
                a |= m.geom_conaffinity[g];
                g += 1;
            }
            count(b, t, a);
        }
    } else {
        for b in 1..m.nbody {
            let (mut t, mut a) = (0, 0);
            for g in (0..ngeom).filter(|&g| m.geom_bodyid[g] == b) {
                t |= m.geom_contype[g];
                a |= m.geom_conaffinity[g];
            }
            count(b, t, a);
        }
    }
    (n, nw)
}

/// What the collision stage's stack requests after the body-pair list depend on, counted at
/// the step's poses (`collision::stack::broad_counts`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BroadCounts {
    /// The body pairs MuJoCo's sweep keeps (not those with the world's geoms).
    pub sweep: u128,
    /// The geom pairs its narrow phase takes as candidates, where they are known.
    pub candidates: Option<u128>,
}

/// The stack overflow of the collision stage in model `m`'s arena, if its requests do not fit.
/// Measured on MuJoCo 4.0.0 by walking `<size memory>` up from each overflow to the next
/// (`tools/arena/step_stack.py`, `tools/arena/narrow_stack.py`), for `nbody` bodies of which `n`
/// have collidable geoms and `nw` can touch the world's geoms (`broad_bodies`), `s` body pairs
/// kept by the sweep and `c` candidates ([`BroadCounts`], from `counts`, called only when the
/// arena is small enough for them to matter), in order, each padded to its alignment:
///
/// | site | line | bytes | align |
/// |---|---|---|---|
/// | (frame) | | 24 | 8 |
/// | `mj_collision` | 758 | `2 nbody(nbody − 1)` ([`collision_pairs_bytes`]) | 4 |
/// | (frame) | | 24 | 8 |
/// | `mj_broadphase` | 1825 | `4 nbody` | 4 |
/// | `mj_broadphase` | 1835 | `48 n` | 8 |
/// | `mj_broadphase` | 1848 | `2 n(n − 1)` | 4 |
/// | `mj_SAP` | 1608, 1609, 1624 | `16 n` each | 4 |
/// | `mj_broadphase` | 1894 | `4 (s + nw)` | 4 |
/// | (frame) | | 24 | 8 |
/// | `mj_narrowphase` | 2424 | `28 k` | 4 |
/// | `mj_narrowphase` | 2455 | `80 k` | 8 |
/// | (frame) | | 24 | 8 |
///
/// The rows from line 1835 to 1894 are taken only with `n ≥ 2`; the broad phase's arrays are
/// then released, all but the body-pair list. The narrow phase's rows are taken when the
/// candidates are known and `c > 0`: MuJoCo first stores the candidates in the arena, 28 bytes
/// each, as many as fit beside the body-pair list, `k = min(c, ⌊(narena − 24 − 2 nbody(nbody −
/// 1)) / 28⌋)` (`narena` rounded down to 8), then releases the stack and copies them onto it
/// at line 2424 while the arena still holds them: there `max` is `narena − 28 k`. With the
/// arena's copy released, line 2455 takes 80 bytes per candidate (after 4 more per candidate
/// that always fit). What the contacts, their rows and the solver take later in a step, and
/// the narrow phase of the next `k` candidates when `k < c`, is not checked: a model can still
/// overflow in MuJoCo above this bound.
pub fn collision_overflow(
    m: &Model,
    candidates_known: impl FnOnce() -> bool,
    counts: impl FnOnce() -> BroadCounts,
) -> Option<StackOverflow> {
    let mut s = Stack::new(narena(m));
    let nbody = m.nbody as u128;
    let ncol = m.ngeom_collidable.min(m.ngeom) as u128;
    let pairs_bound = |k: u128| k * k.saturating_sub(1) / 2;
    // Fast exit: with n, nw, s + nw and c at their bounds (nbody, nbody², every pair of
    // collidable geoms), every request at its largest and 7 bytes of padding each, the
    // requests still fit, so none of the exact ones can overflow.
    let most = 4 * (24 + 7)
        + 2 * collision_pairs_bytes(m.nbody)
        + (4 + 48 + 3 * 16) * nbody
        + 4 * nbody * nbody
        + 112 * pairs_bound(ncol)
        + 8 * 7;
    if most <= s.limit {
        return None;
    }
    let candidates_known = candidates_known();
    // the most candidates there can be (none counted where they are not known)
    let c_most = if candidates_known {
        pairs_bound(ncol)
    } else {
        0
    };
    let (n, nw) = broad_bodies(m);
    let pairs = collision_pairs_bytes(m.nbody);
    let steps = [
        ("", 0, 24, 8),
        ("mj_collision", 758, pairs, 4),
        ("", 0, 24, 8),
        ("mj_broadphase", 1825, 4 * nbody, 4),
        ("mj_broadphase", 1835, 48 * n, 8),
        ("mj_broadphase", 1848, 2 * n * n.saturating_sub(1), 4),
        ("mj_SAP", 1608, 16 * n, 4),
        ("mj_SAP", 1609, 16 * n, 4),
        ("mj_SAP", 1624, 16 * n, 4),
    ];
    let taken = if n >= 2 { steps.len() } else { 4 };
    let broad = steps[..taken]
        .iter()
        .try_for_each(|&(site, line, bytes, align)| s.take(site, line, bytes, align));
    if let Err(e) = broad {
        return Some(e);
    }
    // the counts are taken only where their bounds do not fit (`counts` walks the geoms)
    let held = 24 + pairs;
    let narrow_fits = |c: u128| {
        let k = c.min(s.limit.saturating_sub(held) / 28);
        c == 0 || 24 + 56 * k <= s.limit && 24 + 112 * k + 24 <= s.limit
    };
    let sweep_fits = s.used + 4 * (pairs_bound(n) + nw) + 3 <= s.limit;
    if (n < 2 || sweep_fits) && narrow_fits(c_most) {
        return None;
    }
    let c = counts();
    if n >= 2 {
        if let Err(e) = s.take("mj_broadphase", 1894, 4 * (c.sweep + nw), 4) {
            return Some(e);
        }
    }
    let c = c.candidates.filter(|&c| c > 0 && candidates_known)?;
    // the broad phase's arrays are released; the candidates go to the arena beside the list
    let k = c.min(s.limit.saturating_sub(held) / 28);
    let arena = 28 * k;
    let mut s = Stack {
        used: 0,
        limit: s.limit.saturating_sub(arena),
        narena: s.narena,
    };
    let max = s
        .narena
        .saturating_sub(usize::try_from(arena).unwrap_or(usize::MAX));
    let copy = s
        .take("", 0, 24, 8)
        .and_then(|()| s.take("mj_narrowphase", 2424, arena, 4));
    if let Err(e) = copy {
        return Some(StackOverflow { max, ..e });
    }
    // the arena's copy is released
    s.limit += arena;
    [
        ("", 0, 4 * k, 4),
        ("mj_narrowphase", 2455, 80 * k, 8),
        ("", 0, 24, 8),
    ]
    .iter()
    .try_for_each(|&(site, line, bytes, align)| s.take(site, line, bytes, align))
    .err()
}

/// A byte count as MuJoCo writes it in its warnings: with the largest of the suffixes K, M, G,
/// T, P, E (powers of 1024) that divides it, else the plain number ("1M", "600K", "1000000").
pub fn format_bytes(n: usize) -> String {
    let mut n = n as u128;
    let mut unit = "";
    for u in ["K", "M", "G", "T", "P", "E"] {
        if n == 0 || n % 1024 != 0 {
            break;
        }
        n /= 1024;
        unit = u;
    }
    format!("{n}{unit}")
}

/// Parses `<size memory>`: an unsigned integer with an optional suffix K, M, G, T, P or E
/// (powers of 1024), or -1 for the default. `None` if malformed or too big.
pub fn parse_memory(s: &str) -> Option<Option<usize>> {
    let s = s.trim();
    if s == "-1" {
        return Some(None);
    }
    let (digits, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let k = "KMGTPE".find(c)?;
            (&s[..i], 1u128 << (10 * (k + 1)))
        }
        _ => (s, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u128 = digits.parse().ok()?;
    let bytes = n.checked_mul(mult)?;
    usize::try_from(bytes)
        .ok()
        .filter(|&b| b < 1 << 62)
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_suffixes_and_formatting() {
        assert_eq!(parse_memory("1M"), Some(Some(1 << 20)));
        assert_eq!(parse_memory("600K"), Some(Some(614_400)));
        assert_eq!(parse_memory("1000000"), Some(Some(1_000_000)));
        assert_eq!(parse_memory("-1"), Some(None));
        assert_eq!(parse_memory("1.5M"), None);
        assert_eq!(parse_memory("M"), None);
        assert_eq!(parse_memory("99999999E"), None);
        assert_eq!(format_bytes(1 << 20), "1M");
        assert_eq!(format_bytes(614_400), "600K");
        assert_eq!(format_bytes(23 << 20), "23M");
        assert_eq!(format_bytes(1_000_000), "1000000");
    }
}
