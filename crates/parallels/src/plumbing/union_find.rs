//! Union–find over `0..n` whose roots are the smallest members.
//!
//! Both clustering stages (scan's passages, dedup's documents) number their
//! clusters from the roots, so the root must not depend on the order of
//! the unions: [`UnionFind::union`] always makes the smaller root the root
//! of the joined set, and by induction every root is the smallest member of
//! its set. Finding compresses paths by halving (each node visited points
//! to its grandparent), which keeps trees flat without recursion.
//! Memory: 4 bytes per element.

/// Disjoint sets over `0..n`; see the module docs.
#[derive(Clone, Debug)]
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` sets of one element each.
    pub fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n as u32).collect() }
    }

    /// The root of `x`'s set: its smallest member.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    /// Join the sets of `a` and `b`; false if they were one already.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[hi as usize] = lo;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_find_keeps_the_smallest_root() {
        let mut uf = UnionFind::new(5);
        assert!(uf.union(3, 4));
        assert!(uf.union(4, 1));
        assert!(!uf.union(1, 3));
        assert_eq!(uf.find(4), 1);
        assert_eq!(uf.find(0), 0);
    }

    #[test]
    fn roots_do_not_depend_on_the_order_of_unions() {
        let pairs = [(7u32, 2u32), (5, 9), (2, 5), (0, 3), (8, 6), (3, 8)];
        let roots = |order: &[(u32, u32)]| {
            let mut uf = UnionFind::new(10);
            for &(a, b) in order {
                uf.union(a, b);
            }
            (0..10).map(|x| uf.find(x)).collect::<Vec<_>>()
        };
        let forward = roots(&pairs);
        assert_eq!(forward, [0, 1, 2, 0, 4, 2, 0, 2, 0, 2]);
        let mut backward = pairs;
        backward.reverse();
        assert_eq!(roots(&backward), forward);
        let swapped: Vec<(u32, u32)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
        assert_eq!(roots(&swapped), forward);
    }
}
