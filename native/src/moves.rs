//! Whether a hand holds a play that beats the table (`pipeline.big2.moves.can_beat`), by the
//! same structural generation: same sizes first, then bombs of another size.

// rank-indexed loops read as the Python generator they mirror
#![allow(clippy::needless_range_loop)]
use crate::combos::{classify, highest_single, single_key, strength, ComboRules, Play};
use crate::rules::FourOfAKind;

fn by_rank(hand: u64) -> [Vec<u32>; 13] {
    let mut groups: [Vec<u32>; 13] = Default::default();
    let mut m = hand;
    while m != 0 {
        let c = m.trailing_zeros();
        groups[(c >> 2) as usize].push(c);
        m &= m - 1;
    }
    groups
}

fn pairs(group: &[u32]) -> Vec<u64> {
    let mut out = Vec::new();
    for i in 0..group.len() {
        for j in i + 1..group.len() {
            out.push(1 << group[i] | 1 << group[j]);
        }
    }
    out
}

fn bits(mut m: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let low = m & m.wrapping_neg();
        m ^= low;
        Some(low)
    })
}

/// Calls `found` on every candidate of one size until it answers true (`_candidate_masks`).
fn any_candidate(
    hand: u64,
    cr: &ComboRules,
    size: u32,
    found: &mut dyn FnMut(u64) -> bool,
) -> bool {
    let rs = &cr.rs;
    let groups = by_rank(hand);
    match size {
        1 => bits(hand).any(found),
        2 => groups.iter().any(|g| pairs(g).into_iter().any(&mut *found)),
        3 => {
            rs.allow_triples
                && groups.iter().any(|g| {
                    let n = g.len();
                    let all: u64 = g.iter().map(|&c| 1u64 << c).sum();
                    (n == 3 && found(all)) || (n == 4 && bits(all).any(|one| found(all & !one)))
                })
        }
        4 => {
            if (rs.allow_four_card_quads || rs.four_of_a_kind == FourOfAKind::Alone)
                && groups
                    .iter()
                    .any(|g| g.len() == 4 && found(g.iter().map(|&c| 1u64 << c).sum()))
            {
                return true;
            }
            if rs.allow_two_pairs {
                let lists: Vec<Vec<u64>> = groups.iter().map(|g| pairs(g)).collect();
                for r1 in 0..13 {
                    for r2 in r1 + 1..13 {
                        for &p1 in &lists[r1] {
                            for &p2 in &lists[r2] {
                                if found(p1 | p2) {
                                    return true;
                                }
                            }
                        }
                    }
                }
            }
            false
        }
        5 => any_five(hand, &groups, cr, found),
        _ => false,
    }
}

fn any_five(
    hand: u64,
    groups: &[Vec<u32>; 13],
    cr: &ComboRules,
    found: &mut dyn FnMut(u64) -> bool,
) -> bool {
    let rs = &cr.rs;
    let group_mask = |r: usize| -> u64 { groups[r].iter().map(|&c| 1u64 << c).sum() };
    if rs.four_of_a_kind == FourOfAKind::WithKicker {
        for r in 0..13 {
            if groups[r].len() == 4 {
                let quad = group_mask(r);
                if bits(hand & !quad).any(|low| found(quad | low)) {
                    return true;
                }
            }
        }
    }
    let pair_lists: Vec<Vec<u64>> = groups.iter().map(|g| pairs(g)).collect();
    for tr in 0..13 {
        let g = &groups[tr];
        if g.len() < 3 {
            continue;
        }
        let all = group_mask(tr);
        let triples: Vec<u64> = if g.len() == 3 {
            vec![all]
        } else {
            bits(all).map(|one| all & !one).collect()
        };
        for t in triples {
            for (r, list) in pair_lists.iter().enumerate() {
                if r != tr && list.iter().any(|&p| found(t | p)) {
                    return true;
                }
            }
        }
    }
    if rs.allow_two_pairs_plus_one {
        for r1 in 0..13 {
            for r2 in r1 + 1..13 {
                let rest = hand & !group_mask(r1) & !group_mask(r2);
                for &p1 in &pair_lists[r1] {
                    for &p2 in &pair_lists[r2] {
                        if bits(rest).any(|low| found(p1 | p2 | low)) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    for s in 0..4u32 {
        let suited: Vec<u32> = (0..13)
            .map(|r| r * 4 + s)
            .filter(|&c| hand >> c & 1 == 1)
            .collect();
        let k = suited.len();
        if k >= 5 {
            // every 5-subset of the suited cards
            let mut idx = [0usize, 1, 2, 3, 4];
            loop {
                let m: u64 = idx.iter().map(|&i| 1u64 << suited[i]).sum();
                if found(m) {
                    return true;
                }
                let mut i = 5;
                while i > 0 && idx[i - 1] == k - 5 + i - 1 {
                    i -= 1;
                }
                if i == 0 {
                    break;
                }
                idx[i - 1] += 1;
                for j in i..5 {
                    idx[j] = idx[j - 1] + 1;
                }
            }
        }
    }
    for &seq in &cr.straights {
        let ranks: Vec<usize> = (0..13).filter(|&r| seq >> r & 1 == 1).collect();
        if ranks.iter().any(|&r| groups[r].is_empty()) {
            continue;
        }
        // every choice of one card per rank, not all of one suit (those came above)
        let mut pick = [0usize; 5];
        loop {
            let cs: Vec<u32> = (0..5).map(|i| groups[ranks[i]][pick[i]]).collect();
            if cs.iter().any(|&c| c & 3 != cs[0] & 3) && found(cs.iter().map(|&c| 1u64 << c).sum())
            {
                return true;
            }
            let mut i = 5;
            loop {
                if i == 0 {
                    break;
                }
                i -= 1;
                pick[i] += 1;
                if pick[i] < groups[ranks[i]].len() {
                    break;
                }
                pick[i] = 0;
                if i == 0 {
                    i = usize::MAX;
                    break;
                }
            }
            if i == usize::MAX {
                break;
            }
        }
    }
    false
}

/// The hand's bombs (`bombs_from`), each passed to `found` until it answers true.
fn any_bomb(hand: u64, cr: &ComboRules, found: &mut dyn FnMut(&Play) -> bool) -> bool {
    let rs = &cr.rs;
    if !rs.bombs || hand.count_ones() < 4 {
        return false;
    }
    let mut check = |m: u64| classify(m, cr).map(|p| found(&p)).unwrap_or(false);
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
                    if bits(hand & !quad).any(|low| check(quad | low)) {
                        return true;
                    }
                }
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
            if hand & m == m && check(m) {
                return true;
            }
        }
    }
    false
}

/// Whether the hand holds any play that beats `top` (`can_beat`).
pub fn can_beat(hand: u64, top: &Play, cr: &ComboRules) -> bool {
    if hand == 0 {
        return false;
    }
    let rs = &cr.rs;
    let so = rs.suit_order;
    if rs.bombs
        && (top.size != 5 || rs.four_of_a_kind == FourOfAKind::Alone)
        && any_bomb(hand, cr, &mut |b| b.size != top.size && b.beats(top))
    {
        return true;
    }
    match top.size {
        1 => single_key(highest_single(hand, so), so) > top.key,
        2 => {
            let st = strength(so);
            for rank in (top.key >> 2)..13 {
                let suits = hand >> (rank * 4) & 15;
                if suits.count_ones() >= 2 {
                    let best = rank * 4
                        + (0..4)
                            .filter(|s| suits >> s & 1 == 1)
                            .map(|s| st[s])
                            .max()
                            .unwrap_or(0);
                    if best > top.key {
                        return true;
                    }
                }
            }
            false
        }
        3 => ((top.key + 1)..13).any(|rank| (hand >> (rank * 4) & 15).count_ones() >= 3),
        size => {
            if any_candidate(hand, cr, size, &mut |m| {
                classify(m, cr).map(|p| p.beats(top)).unwrap_or(false)
            }) {
                return true;
            }
            if size == 5 && rs.four_of_a_kind != FourOfAKind::Alone {
                return false;
            }
            any_bomb(hand, cr, &mut |b| b.size != top.size && b.beats(top))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::{fast_ids, mask_of};
    use crate::rules::hk;

    fn m(text: &str) -> u64 {
        mask_of(&fast_ids(text).unwrap())
    }

    #[test]
    fn beat_or_not() {
        let cr = ComboRules::new(&hk());
        let top = classify(m("9h 9s"), &cr).unwrap();
        assert!(!can_beat(m("9d 9c Ts"), &top, &cr));
        assert!(can_beat(m("Td Tc"), &top, &cr));
        let five = classify(m("3d 4c 5h 6s 7d"), &cr).unwrap();
        assert!(can_beat(m("4d 5c 6h 7s 8d Kd"), &five, &cr));
        assert!(can_beat(m("3c 4d 5d 6h 7c"), &five, &cr));
        assert!(!can_beat(m("3c 4d 5d 6h 9c Ks"), &five, &cr));
        assert!(can_beat(m("3c 3d 3h 9s 9d"), &five, &cr));
    }
}
