//! Test support: kernels written with their arrays and scalars named by string, as the
//! hand-built kernels of the tests are. [`array`] hands out the handle of an array by name and
//! space from a table of the current thread (made on first use), [`take`] moves that table into
//! the kernel being built; [`v`], [`var`], [`decl`], [`param`] and [`take_vars`] do the same for
//! scalars (one variable per name: hand-built kernels do not shadow). Nothing outside tests
//! calls these: lowering makes its arrays and scalars in the kernel's own tables
//! ([`super::Kernel::arrays`], [`super::Kernel::vars`]).

use std::cell::RefCell;

use super::{
    Arena, ArrayKind, Handle, KArray, KExpr, KParam, KParamKind, KStmt, KVar, Kernel, LValue,
    Space, VarKind,
};
use crate::diag::Span;
use crate::vocab::Scalar;

thread_local! {
    static ARRAYS: RefCell<Arena<KArray>> = RefCell::new(Arena::new());
    static VARS: RefCell<Arena<KVar>> = RefCell::new(Arena::new());
}

fn find_or_add(arrays: &mut Arena<KArray>, name: &str, space: Space) -> Handle<KArray> {
    if let Some((h, _)) = arrays
        .iter()
        .find(|(_, a)| a.name == name && a.space() == space)
    {
        return h;
    }
    let kind = match space {
        Space::Global => ArrayKind::Buffer,
        Space::Local => ArrayKind::Local { len: 0 },
        Space::Private => ArrayKind::Private { len: 0 },
    };
    arrays.append(
        KArray {
            name: name.to_string(),
            elem: Scalar::Int,
            kind,
        },
        Span::default(),
    )
}

/// The array `name` in `space` of the thread's table (element type and length set by
/// [`buffer`], [`local_in`] or [`private`]).
pub fn array(name: &str, space: Space) -> Handle<KArray> {
    ARRAYS.with(|a| find_or_add(&mut a.borrow_mut(), name, space))
}

/// The thread's table of arrays, emptied: the arrays of the kernel written since the last call.
pub fn take() -> Arena<KArray> {
    ARRAYS.with(|a| std::mem::take(&mut *a.borrow_mut()))
}

/// A buffer parameter of `elem` (of `record`'s structs where it has one), its array in the
/// thread's table.
pub fn buffer(name: &str, elem: Scalar, read_only: bool, record: Option<super::Record>) -> KParam {
    let h = array(name, Space::Global);
    ARRAYS.with(|a| a.borrow_mut()[h].elem = elem);
    KParam {
        name: name.to_string(),
        kind: KParamKind::Buffer {
            array: h,
            elem,
            read_only,
            record,
        },
    }
}

/// A private array of `len` elements of `elem` in the thread's table.
pub fn private(name: &str, elem: Scalar, len: u32) -> Handle<KArray> {
    let h = array(name, Space::Private);
    ARRAYS.with(|a| {
        let mut a = a.borrow_mut();
        a[h].elem = elem;
        a[h].kind = ArrayKind::Private { len };
    });
    h
}

/// The local array `name` of `k` (the one its code names, else a new one), of `len` elements of
/// `elem`, added to its local arrays.
pub fn local_in(k: &mut Kernel, name: &str, elem: Scalar, len: u32) -> Handle<KArray> {
    let h = find_or_add(&mut k.arrays, name, Space::Local);
    k.arrays[h].elem = elem;
    k.arrays[h].kind = ArrayKind::Local { len };
    k.locals.push(h);
    h
}

/// A copy of the thread's table of arrays (left as it is).
pub fn snapshot() -> Arena<KArray> {
    ARRAYS.with(|a| a.borrow().clone())
}

/// An element of the array `name` in `space` of the thread's table.
pub fn elem(name: &str, space: Space, index: super::KExpr) -> super::ArrayRef {
    super::ArrayRef::elem(array(name, space), index)
}

/// A load of [`elem`].
pub fn load(name: &str, space: Space, index: super::KExpr) -> super::KExpr {
    super::KExpr::Load(elem(name, space, index))
}

/// The scalar `name` of the thread's table (an `int` private variable unless [`decl`] or
/// [`param`] said otherwise).
pub fn v(name: &str) -> Handle<KVar> {
    VARS.with(|t| {
        let mut t = t.borrow_mut();
        if let Some((h, _)) = t.iter().find(|(_, x)| x.name == name) {
            return h;
        }
        super::new_var(&mut t, name, Scalar::Int, VarKind::Private)
    })
}

/// A read of the scalar [`v`]`(name)`.
pub fn var(name: impl AsRef<str>) -> KExpr {
    KExpr::Var(v(name.as_ref()))
}

/// The scalar [`v`]`(name)` as an assignment's target.
pub fn lvar(name: &str) -> LValue {
    LValue::Var(v(name))
}

/// `ty name = init;`, the scalar [`v`]`(name)` of type `ty`.
pub fn decl(name: &str, ty: Scalar, init: Option<KExpr>) -> KStmt {
    let h = v(name);
    VARS.with(|t| t.borrow_mut()[h].ty = ty);
    KStmt::Decl { var: h, init }
}

/// A scalar parameter `name` of type `ty`, its variable in the thread's table.
pub fn param(name: &str, ty: Scalar) -> KParam {
    let h = v(name);
    VARS.with(|t| {
        let mut t = t.borrow_mut();
        t[h].ty = ty;
        t[h].kind = VarKind::Param;
    });
    KParam {
        name: name.to_string(),
        kind: KParamKind::Scalar { var: h, ty },
    }
}

/// The thread's table of scalars, emptied: the scalars of the kernel written since the last
/// call.
pub fn take_vars() -> Arena<KVar> {
    VARS.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// A copy of the thread's table of scalars (left as it is).
pub fn vars_snapshot() -> Arena<KVar> {
    VARS.with(|t| t.borrow().clone())
}

/// Replaces the thread's table of scalars by `vars` (a pass's table, whose scalars the test
/// then names).
pub fn set_vars(vars: Arena<KVar>) {
    VARS.with(|t| *t.borrow_mut() = vars);
}
