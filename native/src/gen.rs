//! Legal move generation in the Python engine's order (`pipeline/big2/moves.py`:
//! `plays_from`, `bombs_from`, `beating_plays`) and the uniform random lead without listing
//! (`pipeline/big2/sampling.py`): the simulator's bots choose by position in these lists, so
//! the order is part of the contract.

use crate::combos::{classify, single_key, ComboRules, Kind, Play};
use crate::pyrand::PyRandom;
use crate::rules::{FourOfAKind, StraightOrder};

/// A hand's cards by rank, lowest first (no allocation: this runs for every decision).
struct Groups {
    cards: [[u32; 4]; 13],
    len: [usize; 13],
}

impl Groups {
    fn rank(&self, r: usize) -> &[u32] {
        &self.cards[r][..self.len[r]]
    }

    fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (0..13).map(|r| self.rank(r))
    }
}

fn by_rank(hand: u64) -> Groups {
    let mut g = Groups {
        cards: [[0; 4]; 13],
        len: [0; 13],
    };
    let mut m = hand;
    while m != 0 {
        let c = m.trailing_zeros();
        let r = (c >> 2) as usize;
        g.cards[r][g.len[r]] = c;
        g.len[r] += 1;
        m &= m - 1;
    }
    g
}

/// The pairs inside one rank, in `combinations` order.
fn pairs_in(g: &[u32]) -> ([u64; 6], usize) {
    let mut out = [0u64; 6];
    let mut n = 0;
    for i in 0..g.len() {
        for j in i + 1..g.len() {
            out[n] = 1 << g[i] | 1 << g[j];
            n += 1;
        }
    }
    (out, n)
}

fn masks(cs: &[u32]) -> u64 {
    cs.iter().fold(0, |m, &c| m | 1 << c)
}

/// `itertools.combinations(items, k)`, each as a card mask, in its order.
fn combos(items: &[u32], k: usize, out: &mut Vec<u64>) {
    let n = items.len();
    if k > n {
        return;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        out.push(idx.iter().fold(0, |m, &i| m | 1 << items[i]));
        let mut i = k;
        loop {
            if i == 0 {
                return;
            }
            i -= 1;
            if idx[i] != i + n - k {
                break;
            }
            if i == 0 {
                return;
            }
        }
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

fn comb_list(items: &[u32], k: usize) -> Vec<u64> {
    let mut out = Vec::new();
    combos(items, k, &mut out);
    out
}

fn low_bits(mut m: u64, mut f: impl FnMut(u64)) {
    while m != 0 {
        let low = m & m.wrapping_neg();
        f(low);
        m ^= low;
    }
}

/// `floor`: the level of a non-bomb five-card top to beat (0 for none): a block of
/// candidates whose kind sits below it (full houses 3, straights 1, two pairs + one 0; never
/// bombs) cannot beat it and is not generated (the order of the rest is unchanged).
/// `top`: that top itself, when it is a full house or a straight: the full houses of a lower
/// triple and the straights of a lower sequence cannot beat it either.
fn five_card_masks(
    hand: u64,
    groups: &Groups,
    cr: &ComboRules,
    (floor, top): (u64, Option<&Play>),
    out: &mut Vec<u64>,
) {
    let rs = &cr.rs;
    let pairs: [([u64; 6], usize); 13] = std::array::from_fn(|r| pairs_in(groups.rank(r)));
    let pairs_by_rank = |r: usize| &pairs[r].0[..pairs[r].1];
    if rs.four_of_a_kind == FourOfAKind::WithKicker {
        for g in groups.iter().filter(|g| g.len() == 4) {
            let quad = masks(g);
            low_bits(hand & !quad, |low| out.push(quad | low));
        }
    }
    for (tr, g) in groups.iter().enumerate() {
        if g.len() < 3 || floor > 3 {
            continue;
        }
        if top.is_some_and(|t| t.kind == Kind::FullHouse && tr as u64 <= t.key) {
            continue;
        }
        for t in comb_list(g, 3) {
            for r in 0..13 {
                if r != tr {
                    out.extend(pairs_by_rank(r).iter().map(|p| t | p));
                }
            }
        }
    }
    if rs.allow_two_pairs_plus_one && floor == 0 {
        for r1 in 0..13 {
            for r2 in r1 + 1..13 {
                for p1 in pairs_by_rank(r1) {
                    for p2 in pairs_by_rank(r2) {
                        let rest = hand & !masks(groups.rank(r1)) & !masks(groups.rank(r2));
                        low_bits(rest, |low| out.push(p1 | p2 | low));
                    }
                }
            }
        }
    }
    for s in 0..4u32 {
        let mut suited = [0u32; 13];
        let mut n = 0;
        for r in 0..13 {
            let c = r * 4 + s;
            if hand >> c & 1 == 1 {
                suited[n] = c;
                n += 1;
            }
        }
        if n >= 5 {
            combos(&suited[..n], 5, out);
        }
    }
    let lowest_sequence = match top {
        Some(t)
            if t.kind == Kind::Straight && cr.rs.straight_order != StraightOrder::HighestCard =>
        {
            (t.key / 4) as usize
        }
        _ => 0,
    };
    for &seq in cr
        .straights
        .iter()
        .skip(lowest_sequence)
        .filter(|_| floor <= 1)
    {
        let mut ranks = [0usize; 5];
        let mut k = 0;
        for r in 0..13 {
            if seq >> r & 1 == 1 {
                ranks[k] = r;
                k += 1;
            }
        }
        if ranks.iter().any(|&r| groups.len[r] == 0) {
            continue;
        }
        let gs: [&[u32]; 5] = std::array::from_fn(|i| groups.rank(ranks[i]));
        // itertools.product: the last rank varies fastest
        let mut idx = [0usize; 5];
        'product: loop {
            let cs: [u32; 5] = std::array::from_fn(|i| gs[i][idx[i]]);
            if cs.iter().any(|c| c & 3 != cs[0] & 3) {
                out.push(masks(&cs));
            }
            let mut i = 5;
            loop {
                if i == 0 {
                    break 'product;
                }
                i -= 1;
                idx[i] += 1;
                if idx[i] < gs[i].len() {
                    break;
                }
                idx[i] = 0;
            }
        }
    }
}

fn candidate_masks(
    hand: u64,
    cr: &ComboRules,
    size: Option<u32>,
    floor: (u64, Option<&Play>),
    out: &mut Vec<u64>,
) {
    let rs = &cr.rs;
    let groups = by_rank(hand);
    let want = |s: u32| size.is_none() || size == Some(s);
    if want(1) {
        low_bits(hand, |low| out.push(low));
    }
    if want(2) {
        for g in groups.iter() {
            let (ps, n) = pairs_in(g);
            out.extend_from_slice(&ps[..n]);
        }
    }
    if want(3) && rs.allow_triples {
        for g in groups.iter().filter(|g| g.len() >= 3) {
            combos(g, 3, out);
        }
    }
    if want(4) {
        if rs.allow_four_card_quads || rs.four_of_a_kind == FourOfAKind::Alone {
            out.extend(groups.iter().filter(|g| g.len() == 4).map(masks));
        }
        if rs.allow_two_pairs {
            let pair_lists: [([u64; 6], usize); 13] =
                std::array::from_fn(|r| pairs_in(groups.rank(r)));
            for r1 in 0..13 {
                for r2 in r1 + 1..13 {
                    for p1 in &pair_lists[r1].0[..pair_lists[r1].1] {
                        out.extend(
                            pair_lists[r2].0[..pair_lists[r2].1]
                                .iter()
                                .map(|p2| p1 | p2),
                        );
                    }
                }
            }
        }
    }
    if want(5) {
        five_card_masks(hand, &groups, cr, floor, out);
    }
}

/// Every combination the hand holds (of one size, or all), in `plays_from`'s order.
pub fn plays_from(hand: u64, cr: &ComboRules, size: Option<u32>) -> Vec<Play> {
    plays_holding(hand, cr, size, 0)
}

/// `plays_holding` without `must`, and five-card candidates below `floor` left out.
fn plays_above(
    hand: u64,
    cr: &ComboRules,
    size: Option<u32>,
    must: u64,
    floor: (u64, Option<&Play>),
    keep: &dyn Fn(u64) -> bool,
) -> Vec<Play> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with(|scratch| {
        let mut masks = scratch.borrow_mut();
        masks.clear();
        candidate_masks(hand, cr, size, floor, &mut masks);
        let mut out = Vec::with_capacity(masks.len());
        out.extend(
            masks
                .iter()
                .filter(|&&m| m & must == must && keep(m))
                .filter_map(|&m| classify(m, cr).ok()),
        );
        out
    })
}

/// The plays of `plays_from` that hold every card of `must`, in its order (the opening play
/// under `contain`: only those are legal, and the others need not be classified).
pub fn plays_holding(hand: u64, cr: &ComboRules, size: Option<u32>, must: u64) -> Vec<Play> {
    plays_above(hand, cr, size, must, (0, None), &|_| true)
}

/// The hand's bombs (`bombs_from`), in its order.
pub fn bombs_from(hand: u64, cr: &ComboRules) -> Vec<Play> {
    let rs = &cr.rs;
    let mut out = Vec::new();
    if !rs.bombs || hand.count_ones() < 4 {
        return out;
    }
    for rank in 0..13 {
        let quad = 15u64 << (rank * 4);
        if hand & quad == quad {
            match rs.four_of_a_kind {
                FourOfAKind::Alone => out.extend(classify(quad, cr).ok()),
                FourOfAKind::WithKicker => low_bits(hand & !quad, |low| {
                    out.extend(classify(quad | low, cr).ok())
                }),
                FourOfAKind::Off => {}
            }
        }
    }
    for &seq in &cr.straights {
        for suit in 0..4u32 {
            let m: u64 = (0..13)
                .filter(|r| seq >> r & 1 == 1)
                .map(|r| 1u64 << (r * 4 + suit))
                .sum();
            if hand & m == m {
                out.extend(classify(m, cr).ok());
            }
        }
    }
    out
}

/// Whether the hand holds a play of `top`'s size that beats it (`can_beat` for four- and
/// five-card tops, bombs of another size aside): the candidates `beating_plays` classifies
/// (the same kinds left out below a five-card top), up to the first that beats; no
/// allocation once the thread's scratch list has grown. (`moves::best_order` answers this
/// now; this is its test's reference.)
#[cfg(test)]
pub(crate) fn any_beating_same_size(hand: u64, top: &Play, cr: &ComboRules) -> bool {
    thread_local! {
        static CANDIDATES: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let floor = if top.size == 5 && !top.is_bomb {
        (top.order >> 40, Some(top))
    } else {
        (0, None)
    };
    CANDIDATES.with(|scratch| {
        let mut masks = scratch.borrow_mut();
        masks.clear();
        candidate_masks(hand, cr, Some(top.size), floor, &mut masks);
        masks
            .iter()
            .any(|&m| classify(m, cr).is_ok_and(|p| p.beats(top)))
    })
}

/// Whether the hand holds a bomb for which `found` holds (`bombs_from`, without the list).
pub(crate) fn any_bomb(hand: u64, cr: &ComboRules, mut found: impl FnMut(&Play) -> bool) -> bool {
    let rs = &cr.rs;
    if !rs.bombs || hand.count_ones() < 4 {
        return false;
    }
    let mut check = |m: u64| classify(m, cr).is_ok_and(|p| found(&p));
    for rank in 0..13 {
        let quad = 15u64 << (rank * 4);
        if hand & quad == quad {
            match rs.four_of_a_kind {
                FourOfAKind::Alone => {
                    if check(quad) {
                        return true;
                    }
                }
                FourOfAKind::WithKicker => {
                    let mut rest = hand & !quad;
                    while rest != 0 {
                        let low = rest & rest.wrapping_neg();
                        if check(quad | low) {
                            return true;
                        }
                        rest ^= low;
                    }
                }
                FourOfAKind::Off => {}
            }
        }
    }
    for &seq in &cr.straights {
        let mut ranks = 0u64;
        for r in 0..13 {
            if seq >> r & 1 == 1 {
                ranks |= 1 << (r * 4);
            }
        }
        for suit in 0..4u32 {
            let m = ranks << suit;
            if hand & m == m && check(m) {
                return true;
            }
        }
    }
    false
}

/// The hand's plays that beat `top` (`beating_plays`), in its order.
pub fn beating_plays(hand: u64, top: &Play, cr: &ComboRules) -> Vec<Play> {
    let floor = if top.size == 5 && !top.is_bomb {
        (top.order >> 40, Some(top))
    } else {
        (0, None)
    };
    // a single or a pair beats a single or a pair by its strongest card, a triple by its
    // rank: the candidates that cannot are not classified (bombs come below)
    let so = cr.rs.suit_order;
    let key = top.key;
    let keep: &dyn Fn(u64) -> bool = match (top.size, top.is_bomb) {
        // (a candidate single or pair: its lowest and highest card are its one or two cards)
        (1 | 2, false) => &move |m: u64| {
            let (lo, hi) = (m.trailing_zeros(), 63 - m.leading_zeros());
            single_key(lo, so).max(single_key(hi, so)) > key
        },
        (3, false) => &move |m: u64| (m.trailing_zeros() >> 2) as u64 > key,
        _ => &|_| true,
    };
    let mut out = plays_above(hand, cr, Some(top.size), 0, floor, keep);
    out.retain(|p| p.beats(top));
    if top.size == 5 && cr.rs.four_of_a_kind != FourOfAKind::Alone {
        return out;
    }
    out.extend(
        bombs_from(hand, cr)
            .into_iter()
            .filter(|b| b.size != top.size && b.beats(top)),
    );
    out
}

fn comb(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

fn nth_card(mut mask: u64, n: usize) -> u32 {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

/// The `k`-card sub-patterns of a rank's 4-bit suit pattern, in `combinations` order.
fn subsets(nib: u64, k: usize) -> Vec<u64> {
    let suits: Vec<u32> = (0..4).filter(|s| nib >> s & 1 == 1).collect();
    comb_list(&suits, k)
}

fn cards_of(mask: u64) -> Vec<u32> {
    let mut out = Vec::new();
    low_bits(mask, |low| out.push(low.trailing_zeros()));
    out
}

const SUIT_MASKS: [u64; 4] = [
    0x0001_1111_1111_1111,
    0x0002_2222_2222_2222,
    0x0004_4444_4444_4444,
    0x0008_8888_8888_8888,
];

/// `random_lead`: a uniformly random play of the hand and the number of plays, drawing from
/// the stream exactly as `pipeline.big2.sampling._Counts` does.
pub fn random_lead(hand: u64, cr: &ComboRules, rng: &mut PyRandom) -> (Play, usize) {
    let rs = &cr.rs;
    let n = hand.count_ones() as u64;
    let nibs: [u64; 13] = std::array::from_fn(|r| hand >> (r * 4) & 15);
    let k: [u64; 13] = std::array::from_fn(|r| nibs[r].count_ones() as u64);
    let pairs: [u64; 13] = std::array::from_fn(|r| comb(k[r], 2));
    let all_pairs: u64 = pairs.iter().sum();
    let n_triples: u64 = if rs.allow_triples {
        k.iter().map(|&x| comb(x, 3)).sum()
    } else {
        0
    };
    let alone = rs.four_of_a_kind == FourOfAKind::Alone;
    let small4 = if rs.allow_four_card_quads || rs.allow_two_pairs || alone {
        plays_from(hand, cr, Some(4))
    } else {
        Vec::new()
    };
    let with_kicker = rs.four_of_a_kind == FourOfAKind::WithKicker;
    let mut quads = [0usize; 13];
    let mut n_quad_ranks = 0;
    let mut full = [(0usize, 0u64); 13];
    let mut n_full = 0;
    for r in 0..13 {
        if with_kicker && k[r] == 4 {
            quads[n_quad_ranks] = r;
            n_quad_ranks += 1;
        }
        if k[r] >= 3 {
            full[n_full] = (r, comb(k[r], 3) * (all_pairs - pairs[r]));
            n_full += 1;
        }
    }
    let quads = &quads[..n_quad_ranks];
    let full = &full[..n_full];
    let n_quads = quads.len() as u64 * n.saturating_sub(4);
    let flush: [(usize, u64); 4] =
        std::array::from_fn(|s| (s, comb((hand & SUIT_MASKS[s]).count_ones() as u64, 5)));
    let mut straights = [([0usize; 5], 0u64); 16];
    let mut n_straights = 0;
    for &seq in &cr.straights {
        let mut ranks = [0usize; 5];
        let mut j = 0;
        for r in 0..13 {
            if seq >> r & 1 == 1 {
                ranks[j] = r;
                j += 1;
            }
        }
        let n_all: u64 = ranks.iter().map(|&r| k[r]).product();
        if n_all != 0 {
            let sf = (0..4u32)
                .filter(|&s| {
                    let m: u64 = ranks.iter().map(|&r| 1u64 << (r as u32 * 4 + s)).sum();
                    hand & m == m
                })
                .count() as u64;
            straights[n_straights] = (ranks, n_all - sf);
            n_straights += 1;
        }
    }
    let straights = &straights[..n_straights];
    let mut two_pairs_one: Vec<(usize, usize, u64)> = Vec::new();
    if rs.allow_two_pairs_plus_one {
        for r1 in 0..13 {
            for r2 in r1 + 1..13 {
                let w = pairs[r1] * pairs[r2] * (n - k[r1] - k[r2]);
                if w != 0 {
                    two_pairs_one.push((r1, r2, w));
                }
            }
        }
    }
    let n_five = n_quads
        + full.iter().map(|x| x.1).sum::<u64>()
        + flush.iter().map(|x| x.1).sum::<u64>()
        + straights.iter().map(|x| x.1).sum::<u64>()
        + two_pairs_one.iter().map(|x| x.2).sum::<u64>();
    let total = n + all_pairs + n_triples + small4.len() as u64 + n_five;
    let mut u = rng.randbelow(total as usize) as u64;
    let mask = 'draw: {
        if u < n {
            break 'draw 1u64 << nth_card(hand, u as usize);
        }
        u -= n;
        if u < all_pairs {
            for (r, &nib) in nibs.iter().enumerate() {
                let subs = subsets(nib, 2);
                if u < subs.len() as u64 {
                    break 'draw subs[u as usize] << (r * 4);
                }
                u -= subs.len() as u64;
            }
        }
        u -= all_pairs;
        if u < n_triples {
            for (r, &nib) in nibs.iter().enumerate() {
                let subs = subsets(nib, 3);
                if u < subs.len() as u64 {
                    break 'draw subs[u as usize] << (r * 4);
                }
                u -= subs.len() as u64;
            }
        }
        u -= n_triples;
        if u < small4.len() as u64 {
            break 'draw small4[u as usize].mask;
        }
        u -= small4.len() as u64;
        if u < n_quads {
            let quad = 15u64 << (quads[(u / (n - 4)) as usize] * 4);
            let kick = rng.randbelow((n - 4) as usize);
            break 'draw quad | 1 << nth_card(hand & !quad, kick);
        }
        u -= n_quads;
        for &(r, w) in full {
            if u < w {
                let weights: Vec<u64> =
                    (0..13).map(|q| if q == r { 0 } else { pairs[q] }).collect();
                let pr = rng.choice_weighted(&weights);
                let t = rng.choice(&subsets(nibs[r], 3)) << (r * 4);
                let p = rng.choice(&subsets(nibs[pr], 2)) << (pr * 4);
                break 'draw t | p;
            }
            u -= w;
        }
        for &(s, w) in &flush {
            if u < w {
                let cs = rng.sample(&cards_of(hand & SUIT_MASKS[s]), 5);
                break 'draw masks(&cs);
            }
            u -= w;
        }
        for (ranks, w) in straights {
            if u < *w {
                loop {
                    let cs: Vec<u32> = ranks
                        .iter()
                        .map(|&r| rng.choice(&cards_of(15u64 << (r * 4) & hand)))
                        .collect();
                    if cs.iter().any(|c| c & 3 != cs[0] & 3) {
                        break 'draw masks(&cs);
                    }
                }
            }
            u -= w;
        }
        for &(r1, r2, w) in &two_pairs_one {
            if u < w {
                let rest = hand & !(15u64 << (r1 * 4)) & !(15u64 << (r2 * 4));
                let kicker = nth_card(rest, rng.randbelow(rest.count_ones() as usize));
                let p = rng.choice(&subsets(nibs[r1], 2)) << (r1 * 4)
                    | rng.choice(&subsets(nibs[r2], 2)) << (r2 * 4);
                break 'draw p | 1 << kicker;
            }
            u -= w;
        }
        unreachable!("u out of range")
    };
    let play = classify(mask, cr).expect("a drawn lead is a play");
    (play, total as usize)
}
