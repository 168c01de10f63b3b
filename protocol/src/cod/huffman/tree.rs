//! The stock adaptive Huffman tree (Sayood's algorithm as Quake III implements it): a node
//! arena, a rank list whose order defines the sibling property, and shared block leaders.
//!
//! The build script includes this file too, to derive the fixed body tree from the seed at
//! compile time with exactly the code the runtime uses; keep it to `core` and `alloc`.

use alloc::vec::Vec;

/// Symbol of the not-yet-transmitted leaf.
pub const NYT: u16 = 256;
/// Symbol marking an internal node.
pub const INTERNAL: u16 = 257;
/// "No node".
pub const NONE: u16 = u16::MAX;
/// Nodes a full tree needs: 257 leaves and 256 internal nodes.
const MAX_NODES: usize = 2 * 257;

#[derive(Clone, Copy, Debug)]
struct Node {
    left: u16,
    right: u16,
    parent: u16,
    /// Toward lower rank (the list runs from the NYT leaf upward in weight).
    next: u16,
    prev: u16,
    /// Slot in `leaders` naming the highest-ranked node of this node's weight block.
    head: u16,
    weight: u32,
    symbol: u16,
}

const EMPTY: Node = Node {
    left: NONE,
    right: NONE,
    parent: NONE,
    next: NONE,
    prev: NONE,
    head: NONE,
    weight: 0,
    symbol: NYT,
};

/// One adaptive tree; compressor and decompressor each keep their own and update them alike.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    /// Shared block-leader cells (`node_t **head` in stock); `NONE` when free.
    leaders: Vec<u16>,
    free_leaders: Vec<u16>,
    root: u16,
    /// The NYT leaf, which is also the head of the rank list.
    nyt: u16,
    /// Leaf of each byte symbol, once seen.
    loc: [u16; 256],
}

impl Default for Tree {
    fn default() -> Self {
        Self::new()
    }
}

impl Tree {
    /// A tree holding only the NYT leaf.
    pub fn new() -> Self {
        let mut nodes = Vec::with_capacity(MAX_NODES);
        nodes.push(EMPTY);
        Self {
            nodes,
            leaders: Vec::new(),
            free_leaders: Vec::new(),
            root: 0,
            nyt: 0,
            loc: [NONE; 256],
        }
    }

    pub fn root(&self) -> u16 {
        self.root
    }

    /// The children of `node` (left for bit 0, right for bit 1), or `None` for a leaf.
    pub fn children(&self, node: u16) -> Option<(u16, u16)> {
        let n = &self.nodes[usize::from(node)];
        (n.symbol == INTERNAL).then_some((n.left, n.right))
    }

    /// The symbol of a leaf (`NYT` for the not-yet-transmitted leaf).
    pub fn symbol(&self, node: u16) -> u16 {
        self.nodes[usize::from(node)].symbol
    }

    /// Whether `symbol` has a leaf yet.
    pub fn has(&self, symbol: u8) -> bool {
        self.loc[usize::from(symbol)] != NONE
    }

    /// The code of a symbol as the individual bits, root first (for codes of any length).
    pub fn code_bits(&self, symbol: u16) -> Vec<bool> {
        let leaf = if symbol == NYT {
            self.nyt
        } else {
            self.loc[usize::from(symbol & 0xff)]
        };
        let mut path = Vec::new();
        let mut node = leaf;
        while self.nodes[usize::from(node)].parent != NONE {
            let parent = self.nodes[usize::from(node)].parent;
            path.push(self.nodes[usize::from(parent)].right == node);
            node = parent;
        }
        path.reverse();
        path
    }

    fn node(&mut self, i: u16) -> &mut Node {
        &mut self.nodes[usize::from(i)]
    }

    fn alloc_leader(&mut self, value: u16) -> u16 {
        match self.free_leaders.pop() {
            Some(slot) => {
                self.leaders[usize::from(slot)] = value;
                slot
            }
            None => {
                self.leaders.push(value);
                (self.leaders.len() - 1) as u16
            }
        }
    }

    fn leader(&self, node: u16) -> u16 {
        self.leaders[usize::from(self.nodes[usize::from(node)].head)]
    }

    fn set_leader(&mut self, node: u16, value: u16) {
        let slot = self.nodes[usize::from(node)].head;
        self.leaders[usize::from(slot)] = value;
    }

    /// Exchanges the tree positions of two nodes.
    fn swap(&mut self, a: u16, b: u16) {
        let pa = self.nodes[usize::from(a)].parent;
        let pb = self.nodes[usize::from(b)].parent;
        if pa != NONE {
            if self.nodes[usize::from(pa)].left == a {
                self.node(pa).left = b;
            } else {
                self.node(pa).right = b;
            }
        } else {
            self.root = b;
        }
        if pb != NONE {
            if self.nodes[usize::from(pb)].left == b {
                self.node(pb).left = a;
            } else {
                self.node(pb).right = a;
            }
        } else {
            self.root = a;
        }
        self.node(a).parent = pb;
        self.node(b).parent = pa;
    }

    /// Exchanges the ranks of two nodes in the list.
    fn swap_list(&mut self, a: u16, b: u16) {
        let a_next = self.nodes[usize::from(a)].next;
        self.node(a).next = self.nodes[usize::from(b)].next;
        self.node(b).next = a_next;
        let a_prev = self.nodes[usize::from(a)].prev;
        self.node(a).prev = self.nodes[usize::from(b)].prev;
        self.node(b).prev = a_prev;
        if self.nodes[usize::from(a)].next == a {
            self.node(a).next = b;
        }
        if self.nodes[usize::from(b)].next == b {
            self.node(b).next = a;
        }
        for n in [a, b] {
            let next = self.nodes[usize::from(n)].next;
            if next != NONE {
                self.node(next).prev = n;
            }
        }
        for n in [a, b] {
            let prev = self.nodes[usize::from(n)].prev;
            if prev != NONE {
                self.node(prev).next = n;
            }
        }
    }

    fn increment(&mut self, node: u16) {
        if node == NONE {
            return;
        }
        let weight = self.nodes[usize::from(node)].weight;
        let next = self.nodes[usize::from(node)].next;
        if next != NONE && self.nodes[usize::from(next)].weight == weight {
            let leader = self.leader(node);
            if leader != self.nodes[usize::from(node)].parent {
                self.swap(leader, node);
            }
            self.swap_list(leader, node);
        }
        let prev = self.nodes[usize::from(node)].prev;
        if prev != NONE && self.nodes[usize::from(prev)].weight == weight {
            self.set_leader(node, prev);
        } else {
            self.set_leader(node, NONE);
            let slot = self.nodes[usize::from(node)].head;
            self.free_leaders.push(slot);
        }
        self.node(node).weight += 1;
        let weight = weight + 1;
        let next = self.nodes[usize::from(node)].next;
        if next != NONE && self.nodes[usize::from(next)].weight == weight {
            self.node(node).head = self.nodes[usize::from(next)].head;
        } else {
            let slot = self.alloc_leader(node);
            self.node(node).head = slot;
        }
        let parent = self.nodes[usize::from(node)].parent;
        if parent != NONE {
            self.increment(parent);
            if self.nodes[usize::from(node)].prev == parent {
                self.swap_list(node, parent);
                if self.leader(node) == node {
                    self.set_leader(node, parent);
                }
            }
        }
    }

    /// Counts one more occurrence of `symbol`, splitting the NYT leaf on its first.
    pub fn add_ref(&mut self, symbol: u8) {
        let existing = self.loc[usize::from(symbol)];
        if existing != NONE {
            self.increment(existing);
            return;
        }
        let leaf = self.nodes.len() as u16;
        let internal = leaf + 1;
        self.nodes.push(Node {
            symbol: u16::from(symbol),
            weight: 1,
            ..EMPTY
        });
        self.nodes.push(Node {
            symbol: INTERNAL,
            weight: 1,
            ..EMPTY
        });
        let nyt = self.nyt;
        // The new internal node takes rank just above NYT, then the leaf above NYT below it.
        for new in [internal, leaf] {
            let first = self.nodes[usize::from(nyt)].next;
            self.node(new).next = first;
            if first != NONE {
                self.node(first).prev = new;
                if self.nodes[usize::from(first)].weight == 1 {
                    self.node(new).head = self.nodes[usize::from(first)].head;
                } else {
                    let slot = self.alloc_leader(if new == leaf { internal } else { new });
                    self.node(new).head = slot;
                }
            } else {
                let slot = self.alloc_leader(new);
                self.node(new).head = slot;
            }
            self.node(nyt).next = new;
            self.node(new).prev = nyt;
        }
        let nyt_parent = self.nodes[usize::from(nyt)].parent;
        if nyt_parent != NONE {
            if self.nodes[usize::from(nyt_parent)].left == nyt {
                self.node(nyt_parent).left = internal;
            } else {
                self.node(nyt_parent).right = internal;
            }
        } else {
            self.root = internal;
        }
        self.node(internal).right = leaf;
        self.node(internal).left = nyt;
        self.node(internal).parent = nyt_parent;
        self.node(nyt).parent = internal;
        self.node(leaf).parent = internal;
        self.loc[usize::from(symbol)] = leaf;
        self.increment(nyt_parent);
    }

    /// Number of nodes (for sizing tables derived from the tree).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}
