//! Fixed storage for a round's spots and hands: a boxed array of a power-of-two size,
//! indexed through a mask, so the hot path reads a slot without a bounds check (the
//! index is below the slots in use by construction; debug builds assert it).

use std::ops::{Index, IndexMut};

/// `N` slots (a power of two) of which the first `len` are the table's. Compared and
/// printed by the slots in use (the others are never written).
#[derive(Clone)]
pub(crate) struct Slots<T, const N: usize> {
    items: Box<[T; N]>,
    len: usize,
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for Slots<T, N> {
    fn eq(&self, o: &Self) -> bool {
        self.live() == o.live()
    }
}

impl<T: Copy + std::fmt::Debug, const N: usize> std::fmt::Debug for Slots<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.live()).finish()
    }
}

impl<T: Copy, const N: usize> Slots<T, N> {
    const MASK: usize = {
        assert!(N.is_power_of_two());
        N - 1
    };

    /// `len` slots in use (at most `N`), every slot holding `fill`.
    pub(crate) fn new(fill: T, len: usize) -> Self {
        assert!(len <= N, "{len} slots asked of {N}");
        Slots {
            items: Box::new([fill; N]),
            len,
        }
    }

    /// The slots in use.
    #[inline(always)]
    pub(crate) fn live(&self) -> &[T] {
        &self.items[..self.len]
    }

    /// The slots in use, to change.
    #[inline(always)]
    pub(crate) fn live_mut(&mut self) -> &mut [T] {
        &mut self.items[..self.len]
    }
}

impl<T: Copy, const N: usize> Index<usize> for Slots<T, N> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < self.len, "slot {i} of {}", self.len);
        &self.items[i & Self::MASK]
    }
}

impl<T: Copy, const N: usize> IndexMut<usize> for Slots<T, N> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len, "slot {i} of {}", self.len);
        &mut self.items[i & Self::MASK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_in_use_are_the_ones_asked_for() {
        let mut s: Slots<u8, 8> = Slots::new(0, 5);
        s[4] = 7;
        assert_eq!(s.live(), &[0, 0, 0, 0, 7]);
        s.live_mut()[0] = 1;
        assert_eq!(s[0], 1);
    }

    #[test]
    fn slots_compare_and_print_by_the_slots_in_use() {
        let a: Slots<u8, 8> = Slots::new(0, 2);
        let mut b: Slots<u8, 8> = Slots::new(0, 2);
        assert_eq!(a, b);
        b[1] = 3;
        assert_ne!(a, b);
        assert_eq!(format!("{b:?}"), "[0, 3]");
        let c: Slots<u8, 8> = Slots::new(0, 3);
        assert_ne!(a, c);
    }

    #[test]
    #[should_panic(expected = "slots asked of")]
    fn more_slots_than_the_storage_holds_are_refused() {
        let _: Slots<u8, 4> = Slots::new(0, 5);
    }
}
