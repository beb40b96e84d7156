//! The pipeline's work spaces that [`Data`](super::Data) owns, so that stepping allocates nothing
//! after the first call at a given problem size: the constraint solver's ([`SolverScratch`],
//! with the gathered [`Problem`]), the island search's ([`IslandScratch`]) and the sparse
//! constraint assembly's ([`SparseScratch`]). Their algorithms live with the stages that use
//! them (`solver`, `solver::island`, `constraint::sparse`); here are only their layouts and
//! sizes.

use super::efc::{ConstraintState, ConstraintType, EfcCone, CONE_H};
use crate::math::Scalar;
use crate::model::{JointType, Model, TrnType, WrapType};

/// The rows of B (`pgs::build_b`) eliminated side by side, at most.
pub const B_CHUNK: usize = 8;

/// Where a row of B (`SolverScratch::B`) is: its entry at column position t is
/// `B[val + t·m]`, on column `B_colind[col + t]`, t < `ncol`; its group's rows are
/// `group..group + m` (`m` also the stride of its entries).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BRow {
    pub val: usize,
    pub col: usize,
    pub ncol: usize,
    pub m: usize,
    pub group: usize,
}

/// One solve's problem: the dofs and rows of an island (or of the whole system with islands
/// disabled), gathered in island order (`map_idof2dof`, `map_iefc2efc`), with its block of M.
#[derive(Debug)]
pub struct Problem<T> {
    pub nv: usize,
    pub nefc: usize,
    /// The problem's block of M in the tree-sparse `qM` layout over its own dofs (row `a` at
    /// `Madr[a]`, ancestors along `parentid`, `-1` at a root) and its LᵀDL factor, gathered
    /// from `qM`, `qLD`, `qLDiagInv`.
    pub qM: Vec<T>,
    pub qLD: Vec<T>,
    pub qLDiagInv: Vec<T>,
    pub Madr: Vec<usize>,
    pub parentid: Vec<i32>,
    /// The dof (column) of every entry of that layout: row `a` lists `a` and its ancestors.
    pub Mcol: Vec<usize>,
    /// `Madr`, `parentid`, `Mcol` are the model's global layout (the last gather had every dof).
    pub(crate) whole: bool,
    /// The global layout set aside by an island's gather after a global one (`alt_whole`), so
    /// that the next global gather (the warm start of the next step) swaps it back instead of
    /// copying it again; otherwise spare storage for the island's layout.
    pub(crate) alt_Madr: Vec<usize>,
    pub(crate) alt_parentid: Vec<i32>,
    pub(crate) alt_Mcol: Vec<usize>,
    pub(crate) alt_whole: bool,
    /// Global dof → problem dof (scratch of `Problem::gather`).
    pub(crate) g2l: Vec<usize>,
    /// nefc × nv, row-major; sparse: the values of the compressed rows.
    pub J: Vec<T>,
    /// J is in compressed rows (`J_rownnz`, `J_rowadr`, `J_colind`, problem columns).
    pub J_sparse: bool,
    /// MuJoCo's `mj_isSparse` for the model (`Data::efc_J_sparse`, from `opt.jacobian`): the
    /// Newton Hessian takes the general sparse factor (`crate::solver::hsparse`) only then, and
    /// the dense one otherwise, as MuJoCo factors it (`J_sparse` alone can also mean that a
    /// dense `efc_J` was compressed for speed).
    pub sparse_model: bool,
    pub J_rownnz: Vec<usize>,
    pub J_rowadr: Vec<usize>,
    pub J_colind: Vec<usize>,
    /// Per row (`f64` only): the deepest dof of the root path that holds all of the row's
    /// nonzeros (dofs are numbered parents first, so it is the largest nonzero column), `-1` for
    /// a zero row, `-2` when the nonzeros are not on one root path (or the scalar is not `f64`).
    /// Rows on one path keep the Newton Hessian in M's tree-sparse layout (`crate::solver::newton`).
    pub row_leaf: Vec<i32>,
    /// `row_leaf` was filled by the last gather (compressed rows, nv ≤ 64).
    pub(crate) leaves_done: bool,
    /// Per dof (nv ≤ 64): the bit mask of the dof and its ancestors.
    pub(crate) anc: Vec<u64>,
    /// The sparse Newton Hessian's structure for the current rows (`crate::solver::hsparse`).
    pub hpat: HessianPattern,
    pub ty: Vec<ConstraintType>,
    pub D: Vec<T>,
    pub R: Vec<T>,
    pub frictionloss: Vec<T>,
    pub aref: Vec<T>,
    pub b: Vec<T>,
    /// Contacts with rows in the problem, `adr` relative to the problem's rows.
    pub cone: Vec<EfcCone<T>>,
    pub qfrc_smooth: Vec<T>,
    pub qacc_smooth: Vec<T>,
    /// Start point on entry, solution on exit (primal solvers; PGS writes it).
    pub qacc: Vec<T>,
    /// Start forces on entry (PGS), solution on exit.
    pub force: Vec<T>,
    pub state: Vec<ConstraintState>,
    /// Newton's factored Hessians of this problem's position part by the rows' states
    /// (`crate::solver::newton::hessian`), kept while solves reuse the position part
    /// ([`SolverScratch::hcache_on`]): the first `hcache_n` entries are current (reset by every
    /// gather of the position part), `hcache_next` is the one to replace next.
    pub(crate) hcache: Vec<HessianEntry<T>>,
    pub(crate) hcache_n: usize,
    pub(crate) hcache_next: usize,
    /// The sizes its arrays were last reserved for ([`SolverScratch::reserve_entries`]).
    pub(crate) reserved: Reserved,
    /// The global problem works on `Data`'s arrays in place (`Problem::lend`): M, its factor,
    /// the rows' constants, `qfrc_smooth`, `qacc_smooth` and the solution arrays are `Data`'s
    /// own, swapped in for the solve and back after it (`Problem::give_back`), so that outside
    /// a solve they are empty here and a solve that keeps the position part lends them again.
    pub(crate) lent: bool,
}

/// The sizes `(nv, nm, nefc, ncone, jn)` that [`SolverScratch::reserve_entries`] last reserved
/// a problem's or the work space's arrays for: a request no larger in any of them finds every
/// capacity in place and returns at once (capacities only grow; a `clone_from`, which may
/// leave smaller ones, resets it, and so does [`Default`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reserved(Option<[usize; 5]>);

impl Reserved {
    /// Whether the arrays were reserved for `key` or for sizes at least as large in each.
    #[inline]
    fn covers(self, key: [usize; 5]) -> bool {
        self.0
            .is_some_and(|w| w.iter().zip(&key).all(|(have, want)| have >= want))
    }
}

/// A factored Newton Hessian ([`Problem::hcache`]) and the row states it was built for: the
/// factor as `crate::solver::newton::hessian` leaves it (`SolverScratch::Ht` and `Hdinv` when
/// `tree`, else `Hs` when `sparse`, else `H`).
#[derive(Clone, Debug)]
pub struct HessianEntry<T> {
    pub(crate) state: Vec<ConstraintState>,
    pub(crate) tree: bool,
    pub(crate) sparse: bool,
    pub(crate) h: Vec<T>,
    pub(crate) dinv: Vec<T>,
    /// Counts the writes of this entry (a later entry names the one it was updated from by
    /// its place and this count).
    pub(crate) gen: u64,
    /// Built (`None`), or updated by `crate::solver::newton::update_hessian` from the factor of
    /// entry `.0` at generation `.1`.
    pub(crate) parent: Option<(usize, u64)>,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[T: Clone] Problem<T> {
        nv: copy,
        nefc: copy,
        qM: vec,
        qLD: vec,
        qLDiagInv: vec,
        Madr: vec,
        parentid: vec,
        Mcol: vec,
        whole: copy,
        alt_Madr: vec,
        alt_parentid: vec,
        alt_Mcol: vec,
        alt_whole: copy,
        g2l: vec,
        J: vec,
        J_sparse: copy,
        sparse_model: copy,
        J_rownnz: vec,
        J_rowadr: vec,
        J_colind: vec,
        row_leaf: vec,
        leaves_done: copy,
        anc: vec,
        hpat: clone,
        ty: vec,
        D: vec,
        R: vec,
        frictionloss: vec,
        aref: vec,
        b: vec,
        cone: vec,
        qfrc_smooth: vec,
        qacc_smooth: vec,
        qacc: vec,
        force: vec,
        state: vec,
        hcache: vec,
        hcache_n: copy,
        hcache_next: copy,
        reserved: mark,
        lent: copy,
    }
}

impl<T> Default for Problem<T> {
    fn default() -> Self {
        Problem {
            nv: 0,
            nefc: 0,
            qM: Vec::new(),
            qLD: Vec::new(),
            qLDiagInv: Vec::new(),
            Madr: Vec::new(),
            parentid: Vec::new(),
            Mcol: Vec::new(),
            whole: false,
            alt_Madr: Vec::new(),
            alt_parentid: Vec::new(),
            alt_Mcol: Vec::new(),
            alt_whole: false,
            g2l: Vec::new(),
            J: Vec::new(),
            J_sparse: false,
            sparse_model: false,
            J_rownnz: Vec::new(),
            J_rowadr: Vec::new(),
            J_colind: Vec::new(),
            row_leaf: Vec::new(),
            leaves_done: false,
            anc: Vec::new(),
            hpat: Default::default(),
            ty: Vec::new(),
            D: Vec::new(),
            R: Vec::new(),
            frictionloss: Vec::new(),
            aref: Vec::new(),
            b: Vec::new(),
            cone: Vec::new(),
            qfrc_smooth: Vec::new(),
            qacc_smooth: Vec::new(),
            qacc: Vec::new(),
            force: Vec::new(),
            state: Vec::new(),
            hcache: Vec::new(),
            hcache_n: 0,
            hcache_next: 0,
            reserved: Reserved::default(),
            lent: false,
        }
    }
}

/// Problems of at least this many dofs get no dense Newton Hessian reserved (MuJoCo's
/// `mj_isSparse` threshold); theirs is sparse unless the rows are dense (dual numbers).
pub const DENSE_H_MAX: usize = 60;

/// The most entries of the sparse Newton Hessian's pattern reserved up front (see
/// `SolverScratch::reserve`).
pub const HPAT_RESERVE_MAX: usize = 1 << 20;

/// Work space of the solver's nonzero counts (`solver_nnz`, [`crate::ar_nnz`]), reused from
/// step to step.
#[derive(Debug, Default)]
pub struct NnzScratch {
    /// Per dof: its local index in the counted dofs, or its tree.
    pub index: Vec<usize>,
    /// The counted dofs, ascending.
    pub dofs: Vec<usize>,
    /// Bit rows: M's pattern, JᵀJ's, the factor's, one row, the trees of each row.
    pub mbits: Vec<u64>,
    pub jbits: Vec<u64>,
    pub hbits: Vec<u64>,
    pub below: Vec<u64>,
    pub cols: Vec<usize>,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[] NnzScratch {
        index: vec,
        dofs: vec,
        mbits: vec,
        jbits: vec,
        hbits: vec,
        below: vec,
        cols: vec,
    }
}

impl NnzScratch {
    /// Reserves room for counts over up to `nv` dofs (bit rows of `nv` bits).
    pub fn reserve(&mut self, nv: usize) {
        fn grow<X>(v: &mut Vec<X>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        let words = nv.div_ceil(64).max(1);
        for v in [&mut self.index, &mut self.dofs, &mut self.cols] {
            grow(v, nv);
        }
        for v in [&mut self.mbits, &mut self.jbits, &mut self.hbits] {
            grow(v, nv * words);
        }
        grow(&mut self.below, words);
    }
}

/// Solver work space, kept in `Data` so that solving allocates nothing after the first call at a
/// given problem size.
#[derive(Debug)]
pub struct SolverScratch<T> {
    /// The Newton Hessian of the current problem (factored in place), dense nv × nv, or in M's
    /// tree-sparse layout in `Ht` (1/D in `Hdinv`) when `H_tree`, or in the general sparse
    /// rows of `Problem::hpat` in `Hs` when `H_sparse` (`crate::solver::newton`, `crate::solver::hsparse`).
    pub H: Vec<T>,
    pub Ht: Vec<T>,
    pub Hdinv: Vec<T>,
    pub Hs: Vec<T>,
    /// The sparse Hessian's rows as reduced by its factorization (`crate::solver::hsparse::factor`).
    pub Hred: Vec<T>,
    pub H_tree: bool,
    pub H_sparse: bool,
    /// `(k, here)`: the factor is `Problem::hcache[k]`'s, read there
    /// (`crate::solver::newton::hessian`); `H`, `Ht`, `Hdinv`, `Hs` hold it too only if `here`.
    pub(crate) H_kept: Option<(usize, bool)>,
    /// `Ma`, `jar` hold M a and J a - aref at the current problem's start point `a` (set by
    /// the warm start when it keeps `qacc_warmstart`, cleared by every gather).
    pub start_ws: bool,
    /// With `start_ws`, when `ftmp`, `stmp`, `cone_H` also hold the forces, states and cone
    /// Hessians at the start point: its constraint cost s (the global warm start, kept only
    /// for a problem solved as gathered).
    pub start_s: Option<T>,
    /// The values of up to six rows of J on a root path (6 nv), for the tree-sparse Hessian.
    pub rowbuf: Vec<T>,
    /// Problem-nv vectors.
    pub Ma: Vec<T>,
    pub grad: Vec<T>,
    pub Mgrad: Vec<T>,
    pub search: Vec<T>,
    pub Ms: Vec<T>,
    pub Mgrad_old: Vec<T>,
    pub grad_old: Vec<T>,
    pub tmp: Vec<T>,
    /// `Jᵀ f` at the primal solver's current forces (its gradient's constraint term); with
    /// `jtf_final`, at the forces the last solve returned (so `qfrc_constraint` of the global
    /// problem, `crate::solver::solve_skip`).
    pub jtf: Vec<T>,
    pub jtf_final: bool,
    /// Problem-nefc vectors.
    pub jar: Vec<T>,
    pub jv: Vec<T>,
    pub ftmp: Vec<T>,
    /// The rows' quadratic pieces along the line-search direction (3 nefc).
    pub quad: Vec<T>,
    pub state_old: Vec<ConstraintState>,
    pub stmp: Vec<ConstraintState>,
    /// Cone Hessians, `CONE_H` per cone of the problem.
    pub cone_H: Vec<T>,
    /// PGS: A + R (nefc × nefc) of the problem.
    pub AR: Vec<T>,
    /// PGS and noslip: the rows of B = J L⁻¹ D^(−1/2) (A = B Bᵀ, `pgs::build_b`), by groups
    /// of consecutive rows with the same columns of B (a contact's rows: the ancestor closure
    /// of their columns of J): a group's `m` rows on its `l` columns (ascending, listed once
    /// in `B_colind`) are stored with each column's entries of the group's rows side by side,
    /// entry (column position t, row r) at `val + t·m + r` (`B_row` gives each row's
    /// addresses).
    pub B: Vec<T>,
    pub B_colind: Vec<usize>,
    /// Per row of B (nefc): where its entries and its group's columns are (`BRow`).
    pub B_row: Vec<BRow>,
    /// `pgs::build_ar`: a dof's position in the columns of the current group of rows of B
    /// (nv; `usize::MAX`: not among them).
    pub bpos: Vec<usize>,
    pub bwork: Vec<T>,
    pub bmark: Vec<bool>,
    /// PGS and noslip: `sqrt(qLDiagInv)` per dof of the problem (`pgs::build_b`).
    pub bscale: Vec<T>,
    /// PGS and noslip, compressed-row J: what B's layout (`B_colind`, `B_row`, B's length) was
    /// formed from, J's row structure and the tree (`pgs::build_b`; empty when B came from
    /// dense rows).
    pub B_key: Vec<usize>,
    /// PGS and noslip, compressed-row J: a group's rows eliminated together, up to [`B_CHUNK`]
    /// at a time, entry (dof k, row r) of a chunk of `mc` rows at `k·mc + r` (`B_CHUNK × nv`
    /// entries, zero between chunks; `pgs::build_b`).
    pub bgrp: Vec<T>,
    pub bres: Vec<T>,
    /// Noslip: the entries of A of the sweep's blocks, in visiting order (`noslip::sweeps`).
    pub noslip_a: Vec<T>,
    /// PGS: the constraint blocks (first row, cone index or `usize::MAX`) in sweep order.
    pub pgs_block: Vec<(usize, usize)>,
    /// The current problem, boxed so that a solve takes it out by moving a pointer (always
    /// `Some` outside a solve).
    pub prob: Option<Box<Problem<T>>>,
    /// 0..nv and 0..nefc (the islands-disabled maps).
    pub ident_dof: Vec<usize>,
    pub ident_efc: Vec<usize>,
    /// Work space of the nonzero counts (`solver_nnz`, [`crate::solver::nnz`]).
    pub nnz: NnzScratch,
    /// `prob` holds the global problem of the last solve (no islands, or one island holding
    /// every dof and row in order), not an island's: its position part may be reused
    /// (`crate::solver::solve_skip`).
    pub prob_global: bool,
    /// The primal warm start's `M a` and `J a` (nefc) at `a = ws_qacc` for the kept global
    /// problem (`ws_valid`; cleared when the problem is gathered again).
    pub ws_valid: bool,
    /// PGS and noslip: `B` (`b_valid`) and `AR` with R (`ar_valid`) are those of the position
    /// part of `prob` as it is (cleared with `ws_valid` when the problem is gathered again), so
    /// a solve that reuses the global problem (`crate::solver::solve_skip`) reuses them.
    pub b_valid: bool,
    pub ar_valid: bool,
    /// Noslip: `noslip_a` holds the entries of A of the blocks of the current B (set by a
    /// noslip pass, cleared when `pgs::build_b` builds B again).
    pub noslip_a_valid: bool,
    /// `prob` holds the problem of the last solve's only island, which was not the global
    /// problem (other trees in no island), or of its island 0 when `iprob` holds the others':
    /// a solve that reuses the islands (`crate::solver::solve_skip`) reuses its position part,
    /// `B`, `AR` and `noslip_a`, and keeps the global problem of its warm start in `gprob` (`gprob_valid`: its position part
    /// is that of the current position stage).
    pub island_kept: bool,
    /// With more than one island under a primal solver without noslip, in a solve that may keep
    /// its problems (`skip_keep`): the problems of islands 1, 2, … of the last solve, each
    /// gathered into its own storage (island 0's in `prob`), kept and reused as `prob` is for
    /// a single island (`island_kept`).
    pub iprob: Vec<Problem<T>>,
    pub gprob: Option<Box<Problem<T>>>,
    pub gprob_valid: bool,
    /// The current solve reuses its problem's position part (a step that skipped the position
    /// stage): Newton keeps its factored Hessians by row states in [`Problem::hcache`] and
    /// reads them back.
    pub hcache_on: bool,
    /// Set by `crate::solver::keep_for_skips`: skip steps may keep the island problem and
    /// Newton's factors (`island_kept`, `hcache_on`).
    pub skip_keep: bool,
    pub ws_qacc: Vec<T>,
    pub ws_Ma: Vec<T>,
    pub ws_Ja: Vec<T>,
    /// The sizes its own arrays were last reserved for ([`Self::reserve_entries`]).
    pub(crate) reserved: Reserved,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[T: Clone] SolverScratch<T> {
        H: vec,
        Ht: vec,
        Hdinv: vec,
        Hs: vec,
        Hred: vec,
        H_tree: copy,
        H_sparse: copy,
        H_kept: copy,
        start_ws: copy,
        start_s: clone,
        rowbuf: vec,
        Ma: vec,
        grad: vec,
        Mgrad: vec,
        search: vec,
        Ms: vec,
        Mgrad_old: vec,
        grad_old: vec,
        tmp: vec,
        jtf: vec,
        jtf_final: copy,
        jar: vec,
        jv: vec,
        ftmp: vec,
        quad: vec,
        state_old: vec,
        stmp: vec,
        cone_H: vec,
        AR: vec,
        B: vec,
        B_colind: vec,
        B_row: vec,
        bpos: vec,
        bwork: vec,
        bmark: vec,
        bscale: vec,
        B_key: vec,
        bgrp: vec,
        bres: vec,
        noslip_a: vec,
        pgs_block: vec,
        prob: clone,
        ident_dof: vec,
        ident_efc: vec,
        nnz: clone,
        prob_global: copy,
        ws_valid: copy,
        b_valid: copy,
        ar_valid: copy,
        noslip_a_valid: copy,
        island_kept: copy,
        iprob: clone,
        gprob: clone,
        gprob_valid: copy,
        hcache_on: copy,
        skip_keep: copy,
        ws_qacc: vec,
        ws_Ma: vec,
        ws_Ja: vec,
        reserved: mark,
    }
}

impl<T> Default for SolverScratch<T> {
    fn default() -> Self {
        SolverScratch {
            H: Vec::new(),
            Ht: Vec::new(),
            Hdinv: Vec::new(),
            Hs: Vec::new(),
            Hred: Vec::new(),
            H_tree: false,
            H_sparse: false,
            H_kept: None,
            start_ws: false,
            start_s: None,
            rowbuf: Vec::new(),
            Ma: Vec::new(),
            grad: Vec::new(),
            Mgrad: Vec::new(),
            search: Vec::new(),
            Ms: Vec::new(),
            Mgrad_old: Vec::new(),
            grad_old: Vec::new(),
            tmp: Vec::new(),
            jtf: Vec::new(),
            jtf_final: false,
            jar: Vec::new(),
            jv: Vec::new(),
            ftmp: Vec::new(),
            quad: Vec::new(),
            state_old: Vec::new(),
            stmp: Vec::new(),
            cone_H: Vec::new(),
            AR: Vec::new(),
            B: Vec::new(),
            B_colind: Vec::new(),
            B_row: Vec::new(),
            bpos: Vec::new(),
            bwork: Vec::new(),
            bmark: Vec::new(),
            bscale: Vec::new(),
            B_key: Vec::new(),
            bgrp: Vec::new(),
            bres: Vec::new(),
            noslip_a: Vec::new(),
            pgs_block: Vec::new(),
            prob: None,
            ident_dof: Vec::new(),
            ident_efc: Vec::new(),
            nnz: NnzScratch::default(),
            prob_global: false,
            ws_valid: false,
            b_valid: false,
            ar_valid: false,
            noslip_a_valid: false,
            island_kept: false,
            iprob: Vec::new(),
            gprob: None,
            gprob_valid: false,
            hcache_on: false,
            skip_keep: false,
            ws_qacc: Vec::new(),
            ws_Ma: Vec::new(),
            ws_Ja: Vec::new(),
            reserved: Reserved::default(),
        }
    }
}

impl<T: Scalar> SolverScratch<T> {
    /// Work space for `nv` dofs and `nm` entries of the tree-sparse M (`m.nM`; nefc-sized
    /// parts start empty). The dense Newton Hessian (nv × nv) is reserved only below
    /// [`DENSE_H_MAX`] dofs: larger problems factor it sparse (`crate::solver::hsparse`).
    pub fn new(nv: usize, nm: usize) -> Self {
        let z = T::zero();
        let v = |n: usize| vec![z; n];
        SolverScratch {
            H: if nv < DENSE_H_MAX {
                v(nv * nv)
            } else {
                Vec::new()
            },
            Ht: v(nm),
            Hdinv: v(nv),
            rowbuf: v(6 * nv),
            Ma: v(nv),
            grad: v(nv),
            Mgrad: v(nv),
            search: v(nv),
            Ms: v(nv),
            Mgrad_old: v(nv),
            grad_old: v(nv),
            tmp: v(nv),
            jtf: v(nv),
            ws_qacc: v(nv),
            ws_Ma: v(nv),
            ident_dof: (0..nv).collect(),
            prob: Some(Box::new(Problem {
                qfrc_smooth: Vec::with_capacity(nv),
                qacc_smooth: Vec::with_capacity(nv),
                qacc: Vec::with_capacity(nv),
                qM: Vec::with_capacity(nm),
                qLD: Vec::with_capacity(nm),
                qLDiagInv: Vec::with_capacity(nv),
                Madr: Vec::with_capacity(nv),
                parentid: Vec::with_capacity(nv),
                Mcol: Vec::with_capacity(nm),
                g2l: Vec::with_capacity(nv),
                anc: Vec::with_capacity(nv),
                ..Default::default()
            })),
            ..Default::default()
        }
    }

    /// [`Self::resize`] to no rows and no cones.
    pub fn clear_rows(&mut self) {
        self.jar.clear();
        self.jv.clear();
        self.ftmp.clear();
        self.quad.clear();
        self.state_old.clear();
        self.stmp.clear();
        self.cone_H.clear();
    }

    /// Sizes the per-row parts for `nefc` rows and `ncone` contacts.
    pub fn resize(&mut self, nefc: usize, ncone: usize) {
        let z = T::zero();
        self.jar.resize(nefc, z);
        self.jv.resize(nefc, z);
        self.ftmp.resize(nefc, z);
        self.quad.resize(3 * nefc, z);
        self.state_old.resize(nefc, ConstraintState::Satisfied);
        self.stmp.resize(nefc, ConstraintState::Satisfied);
        self.cone_H.resize(ncone * CONE_H, z);
    }

    /// Reserves the problem arrays for up to `nefc` rows and `ncone` contacts over `nv` dofs
    /// (`nm` entries of the tree-sparse M), so that gathering islands allocates nothing below
    /// that high-water mark. J's values are reserved for dense rows (`nefc × nv`, compressed
    /// by the gather) when `dense_j`, else for up to 64 nonzeros a row (longer rows grow).
    pub fn reserve(&mut self, nv: usize, nm: usize, nefc: usize, ncone: usize, dense_j: bool) {
        // compressed rows: as the Hessian pattern's transposed rows, up to 64 entries a row
        let jn = if dense_j {
            nefc * nv
        } else {
            nefc * nv.min(64)
        };
        self.reserve_entries(nv, nm, nefc, ncone, jn);
    }

    /// [`Self::reserve`] with room for `jn` entries of J (and of the Hessian pattern's
    /// transposed rows), and the per-row arrays [`Self::resize`] sizes.
    pub fn reserve_entries(&mut self, nv: usize, nm: usize, nefc: usize, ncone: usize, jn: usize) {
        // every forward with rows asks again: when neither the problem nor the work space has
        // grown past what they were reserved for, each array already has its room (about 60
        // capacity checks, most of the cost of a one-row model's assembly, skipped)
        let key = [nv, nm, nefc, ncone, jn];
        let p = self.prob.get_or_insert_with(Default::default);
        if !p.reserved.covers(key) {
            p.reserve_entries(key);
        }
        if self.reserved.covers(key) {
            return;
        }
        self.reserved = Reserved(Some(key));
        for v in [&mut self.jar, &mut self.ws_Ja, &mut self.jv, &mut self.ftmp] {
            grow(v, nefc);
        }
        grow(&mut self.quad, 3 * nefc);
        grow(&mut self.state_old, nefc);
        grow(&mut self.stmp, nefc);
        grow(&mut self.cone_H, ncone * CONE_H);
        grow(&mut self.ident_efc, nefc);
        grow(&mut self.pgs_block, nefc);
        if nefc == 0 {
            return;
        }
        let tri = hpat_reserve(nv);
        grow(&mut self.Hs, tri);
        grow(&mut self.Hred, tri);
        self.nnz.reserve(nv);
        grow(&mut self.B_row, nefc);
        grow(&mut self.bpos, nv);
        grow(&mut self.bwork, nv);
        grow(&mut self.bmark, nv);
        grow(&mut self.bscale, nv);
        grow(&mut self.B_key, 2 + nv + nefc + jn);
        grow(&mut self.bgrp, B_CHUNK * nv);
        grow(&mut self.bres, nv);
        grow(&mut self.noslip_a, 5 * nefc);
    }
}

/// Room for `n` entries in `v` (capacities only grow).
fn grow<X>(v: &mut Vec<X>, n: usize) {
    v.reserve(n.saturating_sub(v.len()));
}

/// The entries of the sparse Newton Hessian's pattern reserved for `nv` dofs: at most the lower
/// triangle, 52 bytes an entry (pattern, transposed pattern, runs, values, reduced values:
/// 0.19 MB at nv = 84, 3.7 MB at nv = 375), so that a sparse model's patterns, which change with its
/// contacts, stop allocating at the rows' high-water mark as the rest does. Capped at
/// `HPAT_RESERVE_MAX` entries (the whole triangle up to nv = 1447, 55 MB) so that the
/// reservation stays linear in the model's size past that: larger patterns grow with their
/// high-water mark.
fn hpat_reserve(nv: usize) -> usize {
    (nv * (nv + 1) / 2).min(HPAT_RESERVE_MAX)
}

impl<T> Problem<T> {
    /// The problem's part of [`SolverScratch::reserve_entries`] for `key = (nv, nm, nefc,
    /// ncone, jn)`; records `key` in `reserved`.
    fn reserve_entries(&mut self, key: [usize; 5]) {
        let [nv, nm, nefc, ncone, jn] = key;
        self.reserved = Reserved(Some(key));
        grow(&mut self.J, jn);
        grow(&mut self.J_colind, jn);
        grow(&mut self.J_rownnz, nefc);
        grow(&mut self.J_rowadr, nefc);
        grow(&mut self.row_leaf, nefc);
        grow(&mut self.qfrc_smooth, nv);
        grow(&mut self.qacc_smooth, nv);
        grow(&mut self.qacc, nv);
        grow(&mut self.qM, nm);
        grow(&mut self.qLD, nm);
        grow(&mut self.qLDiagInv, nv);
        grow(&mut self.Madr, nv);
        grow(&mut self.parentid, nv);
        grow(&mut self.Mcol, nm);
        grow(&mut self.alt_Madr, nv);
        grow(&mut self.alt_parentid, nv);
        grow(&mut self.alt_Mcol, nm);
        grow(&mut self.g2l, nv);
        grow(&mut self.anc, nv);
        for v in [
            &mut self.D,
            &mut self.R,
            &mut self.frictionloss,
            &mut self.aref,
            &mut self.b,
            &mut self.force,
        ] {
            grow(v, nefc);
        }
        grow(&mut self.ty, nefc);
        grow(&mut self.state, nefc);
        grow(&mut self.cone, ncone);
        if nefc > 0 {
            self.hpat.reserve(nv, nefc, hpat_reserve(nv), jn);
        }
    }
}

/// Symbolic structure of the sparse Hessian of a problem (position stage only), with its work
/// space; filled by `Problem::hsym` (`solver::hsparse`).
#[derive(Debug, Default)]
pub struct HessianPattern {
    /// Row k: the columns `col[adr[k]..adr[k] + len[k]]` (ascending, all below k), then the
    /// diagonal at `adr[k] + len[k]`.
    pub adr: Vec<usize>,
    pub len: Vec<usize>,
    pub col: Vec<usize>,
    /// The pattern belongs to the problem's current rows.
    pub(crate) done: bool,
    /// What the pattern was built from (`Problem::hsym`): the sizes, the cones' rows, the dofs'
    /// parents and J's row structure; a gather whose rows have the same structure (a step that
    /// keeps its contacts, a finite-difference step that perturbs a position) keeps the pattern.
    pub(crate) key: Vec<usize>,
    /// Per dof i: the rows k > i whose pattern holds i, descending (`up_adr`: nv + 1 entries),
    /// each `[k, pos, r, cut]`: i's position `pos` in row k, and the ranges of the factor's
    /// update of i by row k (`crate::solver::hsparse::factor`): row k's runs wholly before
    /// `pos` are its first `r` runs, and the first `cut` entries of its run `r` come before
    /// `pos` too.
    pub(crate) up_adr: Vec<usize>,
    pub(crate) up: Vec<[u32; 4]>,
    /// Per dof a: the problem's rows with a non-zero in column a, ascending, each with a's
    /// position in the row (`jt_adr`: nv + 1 entries), and each row's cone (`NIL`: none).
    pub(crate) jt_adr: Vec<usize>,
    pub(crate) jt: Vec<(usize, usize)>,
    pub(crate) row_cone: Vec<usize>,
    /// Row k's columns below the diagonal in runs of consecutive columns (`run_adr`: nv + 1
    /// entries): `run[run_adr[k]..run_adr[k + 1]]`, each `[x, c, n]`, the row's positions
    /// `x..x + n` holding the columns `c..c + n`. The kernels on the pattern (`solve`, `factor`,
    /// `rank1`) address a run as two slices, not entry by entry through `col`.
    pub(crate) run_adr: Vec<usize>,
    pub(crate) run: Vec<[u32; 3]>,
    /// Work space: rows (or contacts) by their largest column, elimination-tree children by
    /// parent (linked lists, `NIL` ends), the mark of the current row.
    pub(crate) head: Vec<usize>,
    pub(crate) next: Vec<usize>,
    pub(crate) group: Vec<(usize, usize)>,
    pub(crate) child_head: Vec<usize>,
    pub(crate) child_next: Vec<usize>,
    pub(crate) mark: Vec<usize>,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[] HessianPattern {
        adr: vec,
        len: vec,
        col: vec,
        done: copy,
        key: vec,
        up_adr: vec,
        up: vec,
        jt_adr: vec,
        jt: vec,
        row_cone: vec,
        run_adr: vec,
        run: vec,
        head: vec,
        next: vec,
        group: vec,
        child_head: vec,
        child_next: vec,
        mark: vec,
    }
}

impl HessianPattern {
    /// Reserves room for `nv` dofs, `nefc` rows, `nnz` pattern entries (diagonals included)
    /// and `jn` entries of the transposed rows.
    pub fn reserve(&mut self, nv: usize, nefc: usize, nnz: usize, jn: usize) {
        fn grow<X>(v: &mut Vec<X>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        for v in [
            &mut self.adr,
            &mut self.len,
            &mut self.head,
            &mut self.child_head,
            &mut self.child_next,
            &mut self.mark,
            &mut self.up_adr,
            &mut self.jt_adr,
            &mut self.run_adr,
        ] {
            grow(v, nv + 1);
        }
        grow(&mut self.next, nefc);
        grow(&mut self.group, nefc);
        grow(&mut self.row_cone, nefc);
        grow(&mut self.col, nnz);
        grow(&mut self.up, nnz);
        grow(&mut self.run, nnz);
        grow(&mut self.jt, jn);
        grow(&mut self.key, 4 + nv + 3 * nefc + jn);
    }
}

/// Tree structure of a model (MuJoCo's `ntree`, `dof_treeid`, `body_treeid`, `tree_dofadr`,
/// `tree_dofnum`) plus the union-find work space.
#[derive(Debug, Default)]
pub struct IslandScratch {
    pub ntree: usize,
    pub dof_treeid: Vec<usize>,
    /// -1 for bodies welded to the world.
    pub body_treeid: Vec<i32>,
    pub tree_dofadr: Vec<usize>,
    pub tree_dofnum: Vec<usize>,
    pub(crate) parent: Vec<usize>,
    pub(crate) has_edge: Vec<bool>,
    pub(crate) efc_tree: Vec<usize>,
    pub(crate) count: Vec<usize>,
    /// What the last complete [`island`] call depended on: per row its tree and kind
    /// ([`row_kind`]), then per tree its union-find root (`usize::MAX` without edges)
    pub(crate) key: Vec<(usize, u8)>,
    /// That call's `nisland` and `nidof`, while `key` is valid.
    pub(crate) done: Option<(usize, usize)>,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[] IslandScratch {
        ntree: copy,
        dof_treeid: vec,
        body_treeid: vec,
        tree_dofadr: vec,
        tree_dofnum: vec,
        parent: vec,
        has_edge: vec,
        efc_tree: vec,
        count: vec,
        key: vec,
        done: copy,
    }
}

impl IslandScratch {
    /// Trees of `m`: a dof without parent dof starts a new tree; a body takes the tree of its
    /// first dof, else its parent's (the world and bodies welded to it: -1).
    pub fn new(m: &Model) -> Self {
        let mut dof_treeid = vec![0; m.nv];
        let mut tree_dofadr = Vec::new();
        let mut tree_dofnum: Vec<usize> = Vec::new();
        for i in 0..m.nv {
            match usize::try_from(m.dof_parentid.get(i).copied().unwrap_or(-1)) {
                Ok(p) => dof_treeid[i] = dof_treeid[p],
                Err(_) => {
                    dof_treeid[i] = tree_dofadr.len();
                    tree_dofadr.push(i);
                    tree_dofnum.push(0);
                }
            }
            tree_dofnum[dof_treeid[i]] += 1;
        }
        // (tolerates hand-built models with missing body arrays: their bodies are static)
        let mut body_treeid = vec![-1i32; m.nbody];
        for b in 1..m.nbody {
            body_treeid[b] = if m.body_dofnum.get(b).is_some_and(|&n| n > 0) {
                m.body_dofadr
                    .get(b)
                    .and_then(|&a| dof_treeid.get(a))
                    .map_or(-1, |&t| t as i32)
            } else {
                m.body_parentid
                    .get(b)
                    .filter(|&&p| p < b)
                    .map_or(-1, |&p| body_treeid[p])
            };
        }
        let ntree = tree_dofadr.len();
        IslandScratch {
            ntree,
            dof_treeid,
            body_treeid,
            tree_dofadr,
            tree_dofnum,
            parent: vec![0; ntree],
            has_edge: vec![false; ntree],
            efc_tree: Vec::new(),
            count: vec![0; ntree + 1],
            key: Vec::new(),
            done: None,
        }
    }

    /// The per-row tree buffer (for reserving capacity).
    pub fn efc_tree_mut(&mut self) -> &mut Vec<usize> {
        &mut self.efc_tree
    }

    /// Reserves the reuse key of [`island`] for `nefc` rows (with [`Self::efc_tree_mut`], by
    /// `Data::resize_efc`, so that `step` does not allocate below the high-water mark).
    pub fn reserve(&mut self, nefc: usize) {
        // (without rows `island` keeps no key)
        if nefc > 0 {
            let n = nefc + self.ntree;
            self.key.reserve(n.saturating_sub(self.key.len()));
        }
    }
}

/// Per-model sparsity tables and work space: the patterns of the tendons' Jacobian rows
/// (MuJoCo's `ten_J_rownnz`, `ten_J_rowadr`, `ten_J_colind`, which [`Model::fill_sparse`]
/// also stores on the model), the actuators' moment pattern ([`moment_pattern`]) and two
/// chain buffers. `ten_J` and `actuator_moment` hold only the values on these patterns. The
/// moment pattern is fixed for the model and every stage reads it here; `Data`'s public
/// `moment_rownnz`, `moment_rowadr` and `moment_colind` are MuJoCo's view of it: zero from a
/// reset (as `mj_resetData` leaves them) until the transmission stage copies it in.
#[derive(Debug, Default)]
pub struct SparseScratch {
    pub ten_J_rownnz: Vec<usize>,
    pub ten_J_rowadr: Vec<usize>,
    pub ten_J_colind: Vec<usize>,
    pub moment_rownnz: Vec<usize>,
    pub moment_rowadr: Vec<usize>,
    pub moment_colind: Vec<usize>,
    pub(crate) c1: Vec<usize>,
    pub(crate) c2: Vec<usize>,
}

// A clone keeps the capacity of every array (see `Data`'s `Clone`).
crate::data::reserved::clone_reserved! {
    impl[] SparseScratch {
        ten_J_rownnz: vec,
        ten_J_rowadr: vec,
        ten_J_colind: vec,
        moment_rownnz: vec,
        moment_rowadr: vec,
        moment_colind: vec,
        c1: vec,
        c2: vec,
    }
}

/// A compressed-row pattern: entries per row, first entry of each row, column of each entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    pub rownnz: Vec<usize>,
    pub rowadr: Vec<usize>,
    pub colind: Vec<usize>,
}

impl Pattern {
    /// Columns of row `i`.
    #[inline]
    pub fn cols(&self, i: usize) -> &[usize] {
        let a = self.rowadr[i];
        &self.colind[a..a + self.rownnz[i]]
    }

    /// Appends `buf`'s dofs, sorted and without repetitions, as the next row (with `store`
    /// false, only the row's size is recorded: the columns are not kept).
    fn push_row(&mut self, buf: &mut Vec<usize>, store: bool) {
        buf.sort_unstable();
        buf.dedup();
        let adr = self
            .rowadr
            .last()
            .map_or(0, |a| a + self.rownnz[self.rownnz.len() - 1]);
        self.rowadr.push(adr);
        self.rownnz.push(buf.len());
        if store {
            self.colind.extend_from_slice(buf);
        }
    }

    /// Number of entries (`colind`'s length when the columns are stored).
    pub fn nnz(&self) -> usize {
        self.rowadr
            .last()
            .map_or(0, |a| a + self.rownnz[self.rownnz.len() - 1])
    }
}

/// The tendons' Jacobian pattern of `m` (MuJoCo's `ten_J_rownnz/rowadr/colind`): each row the
/// dofs that can move the tendon's path, ascending.
pub fn tendon_pattern(m: &Model) -> Pattern {
    let mut p = Pattern::default();
    let mut buf = Vec::new();
    for t in 0..m.ntendon {
        let (a, n) = (m.tendon_adr[t], m.tendon_num[t]);
        buf.clear();
        for w in a..a + n {
            let id = m.wrap_objid.get(w).copied().unwrap_or(-1);
            let Ok(id) = usize::try_from(id) else {
                continue;
            };
            match m.wrap_type[w] {
                WrapType::Joint => buf.extend(m.jnt_dofadr.get(id).copied()),
                WrapType::Site => crate::math::spatial::dof_chain(m, m.site_bodyid[id], &mut buf),
                WrapType::Sphere | WrapType::Cylinder => {
                    crate::math::spatial::dof_chain(m, m.geom_bodyid[id], &mut buf)
                }
                WrapType::None | WrapType::Pulley => {}
            }
        }
        p.push_row(&mut buf, true);
    }
    p
}

/// The actuators' moment pattern of `m` (MuJoCo's `moment_rownnz/rowadr/colind`; `ten` is
/// [`tendon_pattern`]): a joint's dofs, the tendon's pattern, the sites' dof chains, every dof
/// for a body transmission, each row ascending. With `store` false only the row sizes are
/// recorded (their sum is `nJmom`).
pub fn moment_pattern(m: &Model, ten: &Pattern, store: bool) -> Pattern {
    let mut p = Pattern::default();
    let mut buf = Vec::new();
    for i in 0..m.nu {
        buf.clear();
        // (a hand-built model may leave the actuator arrays empty: every dof then)
        let ids = m
            .actuator_trnid
            .get(i)
            .map_or([None; 2], |t| t.map(|x| usize::try_from(x).ok()));
        let chain = |b: Option<usize>, buf: &mut Vec<usize>| {
            if let Some(b) = b {
                crate::math::spatial::dof_chain(m, b, buf)
            }
        };
        match (
            m.actuator_trntype.get(i).copied().unwrap_or(TrnType::Body),
            ids[0],
        ) {
            (TrnType::Joint | TrnType::JointInParent, Some(j)) if j < m.njnt => {
                let a = m.jnt_dofadr[j];
                let n = match m.jnt_type[j] {
                    JointType::Free => 6,
                    JointType::Ball => 3,
                    JointType::Hinge | JointType::Slide => 1,
                };
                buf.extend(a..a + n);
            }
            (TrnType::Tendon, Some(t)) if t < m.ntendon => buf.extend_from_slice(ten.cols(t)),
            (TrnType::Site | TrnType::SliderCrank, Some(s0)) if s0 < m.nsite => {
                chain(Some(m.site_bodyid[s0]), &mut buf);
                chain(
                    ids[1].and_then(|s1| m.site_bodyid.get(s1).copied()),
                    &mut buf,
                );
            }
            // a body transmission's contacts can involve any dof
            _ => buf.extend(0..m.nv),
        }
        p.push_row(&mut buf, store);
    }
    p
}

impl SparseScratch {
    /// The tendon (`ten`) and actuator moment (`mom`) patterns of `m` and the chain buffers.
    pub fn new(m: &Model, ten: Pattern, mom: Pattern) -> Self {
        SparseScratch {
            ten_J_rownnz: ten.rownnz,
            ten_J_rowadr: ten.rowadr,
            ten_J_colind: ten.colind,
            moment_rownnz: mom.rownnz,
            moment_rowadr: mom.rowadr,
            moment_colind: mom.colind,
            c1: Vec::with_capacity(m.nv),
            c2: Vec::with_capacity(m.nv),
        }
    }
}

/// Copies the dense `row` onto the pattern `cols` (into `out`, of `cols`' length) and clears
/// `row` there (so that a dense scratch row that is zero outside the pattern is zero again).
#[inline]
pub(crate) fn gather_clear<T: Scalar>(row: &mut [T], cols: &[usize], out: &mut [T]) {
    for (o, &k) in out.iter_mut().zip(cols) {
        *o = row[k];
        row[k] = T::zero();
    }
}

/// Writes the sparse row (`cols`, `vals`) into the dense `row` (entries outside `cols` are left
/// as they are: zero for a cleared scratch row).
#[inline]
pub(crate) fn scatter<T: Scalar>(cols: &[usize], vals: &[T], row: &mut [T]) {
    for (&k, &v) in cols.iter().zip(vals) {
        row[k] = v;
    }
}

/// Sets `row` to zero on `cols`.
#[inline]
pub(crate) fn clear_on<T: Scalar>(cols: &[usize], row: &mut [T]) {
    for &k in cols {
        row[k] = T::zero();
    }
}

/// The model's sparsity patterns, derived here beside the functions that compute them, so that
/// `model.rs` imports no data module.
impl Model {
    /// Fills the tendon Jacobian's pattern (`nJten`, `ten_J_rownnz`, `ten_J_rowadr`,
    /// `ten_J_colind`) and the size of the actuator moments' pattern (`nJmom`) from the
    /// tendons' wraps, the actuators' transmissions and the kinematic tree. The MJCF compiler
    /// calls it; a model built or edited by hand calls it after changing those. `Data::new`
    /// derives the same patterns from the model itself.
    pub fn fill_sparse(&mut self) {
        let ten = tendon_pattern(self);
        self.nJmom = moment_pattern(self, &ten, false).nnz();
        self.nJten = ten.colind.len();
        self.ten_J_rownnz = ten.rownnz;
        self.ten_J_rowadr = ten.rowadr;
        self.ten_J_colind = ten.colind;
    }
}

#[cfg(test)]
mod tests {
    use super::{moment_pattern, tendon_pattern};

    /// The tendon and actuator patterns equal MuJoCo 4.0.0's `ten_J_rownnz` / `ten_J_colind`
    /// and `moment_rownnz` / `moment_colind` (after `mj_forward` at `qpos0`) on every model of
    /// `models/` with tendons or actuators (tests/reference/sparse_patterns.json, written by
    /// tools/reference/gen_sparse_patterns.py); `nJten` and `nJmom` are the patterns' sizes.
    /// A site transmission's row is a superset of MuJoCo's, which keeps only the nonzeros at
    /// the state (e.g. 2 of the 7 chain dofs at `qpos0` in tendon_velocity.xml, 6 elsewhere).
    #[test]
    fn patterns_are_mujocos() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let p = root.join("tests/reference/sparse_patterns.json");
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (tools/reference/gen_sparse_patterns.py)",
                p.display()
            )
        });
        let j: serde_json::Value = serde_json::from_str(&text).unwrap();
        let models = j["models"].as_object().unwrap();
        assert!(models.len() >= 20, "{} models", models.len());
        let ints = |v: &serde_json::Value| -> Vec<usize> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as usize)
                .collect()
        };
        let mut bad = Vec::new();
        for (name, r) in models {
            let m = crate::mjcf::load(root.join("models").join(name)).unwrap();
            let ten = tendon_pattern(&m);
            let mom = moment_pattern(&m, &ten, true);
            // the model's copy (filled by the compiler) and the data's pattern are these; the
            // data's public moment rows are zero until the transmission stage copies them in
            let mut d = crate::Data::<f64>::new(&m);
            let s = &d.sparse_scratch;
            assert_eq!(
                (&s.moment_rownnz, &s.moment_rowadr, &s.moment_colind),
                (&mom.rownnz, &mom.rowadr, &mom.colind),
                "{name}"
            );
            assert!(
                !d.moment_rows_set()
                    && [&d.moment_rownnz, &d.moment_rowadr, &d.moment_colind]
                        .iter()
                        .all(|v| v.iter().all(|&x| x == 0)),
                "{name}"
            );
            crate::forward(&m, &mut d);
            assert_eq!(
                (&m.ten_J_rownnz, &m.ten_J_rowadr, &m.ten_J_colind, m.nJten),
                (&ten.rownnz, &ten.rowadr, &ten.colind, ten.colind.len()),
                "{name}"
            );
            assert_eq!(
                (
                    &d.moment_rownnz,
                    &d.moment_rowadr,
                    &d.moment_colind,
                    m.nJmom
                ),
                (&mom.rownnz, &mom.rowadr, &mom.colind, mom.colind.len()),
                "{name}"
            );
            assert_eq!((d.ten_J.len(), d.actuator_moment.len()), (m.nJten, m.nJmom));
            let rows = |nnz: &[usize], colind: &[usize]| {
                let mut out = Vec::new();
                let mut a = 0;
                for &n in nnz {
                    out.push(colind[a..a + n].to_vec());
                    a += n;
                }
                out
            };
            let want_ten = rows(&ints(&r["ten_J_rownnz"]), &ints(&r["ten_J_colind"]));
            let got_ten = rows(&ten.rownnz, &ten.colind);
            if want_ten != got_ten || ten.colind.len() != r["nJten"].as_u64().unwrap() as usize {
                bad.push(format!("{name}: ten_J {got_ten:?}, MuJoCo {want_ten:?}"));
            }
            // MuJoCo keeps a site transmission's row to its nonzeros at the current state
            // (mjTRN_SITE = 4, mjTRN_SLIDERCRANK = 2: a subset of the chains' dofs); every
            // other row is the static pattern; `nJmom`, the rows' capacity, is the static size
            let want_mom = rows(&ints(&r["moment_rownnz"]), &ints(&r["moment_colind"]));
            let got_mom = rows(&mom.rownnz, &mom.colind);
            let trn = ints(&r["actuator_trntype"]);
            for (i, (g, w)) in got_mom.iter().zip(&want_mom).enumerate() {
                let ok = if trn[i] == 2 || trn[i] == 4 {
                    w.iter().all(|c| g.contains(c))
                } else {
                    g == w
                };
                if !ok {
                    bad.push(format!("{name}: moment row {i} {g:?}, MuJoCo {w:?}"));
                }
            }
            if got_mom.len() != want_mom.len()
                || mom.colind.len() != r["nJmom"].as_u64().unwrap() as usize
            {
                bad.push(format!(
                    "{name}: {} moment rows, {} entries; MuJoCo {}, nJmom {}",
                    got_mom.len(),
                    mom.colind.len(),
                    want_mom.len(),
                    r["nJmom"]
                ));
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}
