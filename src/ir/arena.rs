//! Arenas with typed handles, as naga keeps its IR: an [`Arena<T>`] owns its items, and a
//! [`Handle<T>`] names one of them. Only the arena makes handles (by [`Arena::append`]), so a
//! handle always points into an arena of its own type; handles of different types cannot be
//! mixed up, and none is a bare integer.

use std::fmt;
use std::marker::PhantomData;

use crate::diag::Span;

/// An item of an [`Arena<T>`]: its position, typed.
pub struct Handle<T> {
    index: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// The position in the arena (for printing and for side tables indexed alike).
    pub fn index(self) -> usize {
        self.index as usize
    }
}

// Written out: derives would ask `T` for the same traits, and a handle is plain data whatever
// it names.
impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.index)
    }
}

/// Items of one type, named by [`Handle`]s. Items are only appended, never removed, so a handle
/// stays valid for the arena's life.
#[derive(Clone, PartialEq)]
pub struct Arena<T> {
    items: Vec<T>,
    /// Where each item comes from in the source (naga's `span_info`), indexed alike.
    spans: Vec<Span>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            items: Vec::new(),
            spans: Vec::new(),
        }
    }
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Arena::default()
    }

    /// Adds `item`, which comes from `span` of the source; its handle.
    ///
    /// # Panics
    /// With more than `u32::MAX` items (a region's expressions are bounded by the front end's
    /// limits on the source far below that).
    pub fn append(&mut self, item: T, span: Span) -> Handle<T> {
        let index = u32::try_from(self.items.len()).expect("arena larger than u32::MAX items");
        self.items.push(item);
        self.spans.push(span);
        Handle {
            index,
            marker: PhantomData,
        }
    }

    /// Where the item `h` names comes from in the source.
    pub fn span(&self, h: Handle<T>) -> Span {
        self.spans[h.index()]
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Every item with its handle, in the order they were appended.
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.items.iter().enumerate().map(|(i, t)| {
            (
                Handle {
                    index: i as u32,
                    marker: PhantomData,
                },
                t,
            )
        })
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    fn index(&self, h: Handle<T>) -> &T {
        &self.items[h.index()]
    }
}

impl<T> std::ops::IndexMut<Handle<T>> for Arena<T> {
    fn index_mut(&mut self, h: Handle<T>) -> &mut T {
        &mut self.items[h.index()]
    }
}

impl<T: fmt::Debug> fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_name_what_was_appended() {
        let mut a = Arena::new();
        let x = a.append("x", Span::default());
        let y = a.append("y", Span::new(0, 3, 5));
        assert_ne!(x, y);
        assert_eq!((a[x], a[y]), ("x", "y"));
        assert_eq!(a.len(), 2);
        assert_eq!(a.span(y), Span::new(0, 3, 5));
        let all: Vec<_> = a.iter().map(|(h, s)| (h.index(), *s)).collect();
        assert_eq!(all, vec![(0, "x"), (1, "y")]);
        assert_eq!(format!("{:?}", y), "[1]");
    }
}
