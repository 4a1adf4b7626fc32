//! The warehouse rows of replayed Dou Dizhu games, built as Arrow column buffers (issue 15).
//!
//! As `crate::rows` does for Big Two: [`DdzChunkRows::add`] appends a game's games, seats,
//! actions and tricks rows as `pipeline.warehouse.rows_doudizhu.DdzRows` fills them (the
//! shared envelope of `GameRows.add`, then `DdzRows.fill`; every column but `batch_id`, the
//! Big Two-only columns left out, which Python makes NULL; the `*_text` columns are
//! `super::texts`'), and its [`RowsBuffer::tables`] / [`RowsBuffer::hand_over`] hand each
//! column over as the buffers of an Arrow array, no copy. [`buildable`] says when the core
//! builds a game's rows: where the Python builder would refuse the game (a trick that does not
//! open with a play, a value its column cannot hold) the rows are Python's; so are they for a
//! line the tree scanner does not read (`super::py`: an escape, a number of more than 15
//! digits, which serde may read a unit off).
//!
//! The column builders, the tables' macro, the columns both games fill alike (`GameHead`,
//! `SeatHead`, `Tricks`, `push_times`), the tricks and the hand-over are `crate::rows`' (one
//! set for both games): the buffers keep their memory from chunk to chunk.

use super::parse::DdzLine;
use super::state::{ActionRecord, ActionType, GameResult, Phase};
use super::texts::Text;
use crate::rows::{
    int, opt, push_times, table, tricks_of, Bool, GameHead, Head, LineInfo, List, Move, RowsBuffer,
    SeatHead, Str, Tables, Trick, Tricks, F64, I16, I32, I64, I8,
};

table! {Games {
    landlord: I8,
    bid: I8,
    bombs: I8,
    rockets: I8,
    spring: Str,
    landlord_won: Bool,
    first_bidder: I8,
    kitty_mask: I64,
    kitty_text: Text,
    set_aside_mask: I64,
    set_aside_text: Text,
    face_up_card: I8,
    face_up_card_text: Text,
}}

table! {Seats {
    deal_mask: I64,
    deal_text: Text,
    final_hand_mask: I64,
    final_hand_text: Text,
    cards_left: I8,
    is_winner: Bool,
    role: Str,
    max_bid: I8,
}}

table! {Actions {
    game_id: Str,
    action_index: I16,
    seat: I8,
    action_type: Str,
    cards_mask: I64,
    cards_text: Text,
    kind: Str,
    rank_key: I64,
    trick: I16,
    is_lead: Bool,
    top_before_mask: I64,
    top_before_text: Text,
    cards_left: List<I8>,
    hand_before_mask: I64,
    hand_before_text: Text,
    beating_play_existed: Bool,
    next_seat: I8,
    ends_trick: Bool,
    wins_game: Bool,
    unchecked: List<Str>,
    ts: I64,
    think_seconds: F64,
    phase: Str,
    bid: I8,
    units: I8,
    top_kind: Str,
    top_seat: I8,
    landlord: I8,
    multiplier: I32,
    ends_auction: Bool,
}}

/// A Dou Dizhu action as a move of [`tricks_of`] (its round the trick).
fn ddz_move(a: &ActionRecord) -> Option<Move> {
    let play = a.kind == ActionType::Play;
    (play || a.kind == ActionType::Pass).then_some(Move {
        trick: a.round,
        play,
        wins_game: a.wins_game,
    })
}

/// Whether a value fits a signed integer of `bits` bits (8 to 64).
fn fits(v: i64, bits: u32) -> bool {
    let half = 1i128 << (bits - 1);
    (-half..half).contains(&i128::from(v))
}

fn fits_opt<T: TryInto<i64> + Copy>(v: Option<T>, bits: u32) -> bool {
    v.is_none_or(|v| v.try_into().ok().is_some_and(|v| fits(v, bits)))
}

/// Each seat's highest bid in the auction (`max_bid`), or None when the Python builder
/// would fail on it (a bid compared with no bid).
fn max_bids(actions: &[ActionRecord], seats: usize) -> Option<Vec<Option<i64>>> {
    let mut out = vec![None; seats];
    for a in actions.iter().filter(|a| a.phase == Phase::Auction) {
        let slot = out.get_mut(a.seat)?;
        *slot = match (*slot, a.bid) {
            (None, bid) => bid,
            (Some(was), Some(bid)) => Some(was.max(bid)),
            (Some(_), None) => return None,
        };
    }
    Some(out)
}

/// A game's tricks when the core builds its rows, else None (Python builds them; see the
/// module's doc). Only for a line the tree scanner read (`crate::parse::tree`): its numbers
/// have at most 15 digits, which serde read exactly (the times and balances as Python reads
/// them).
pub fn buildable(
    line: &DdzLine,
    actions: &[ActionRecord],
    res: &GameResult,
    players: usize,
) -> Option<Vec<Trick>> {
    let seats_known = actions.iter().all(|a| a.seat < players);
    let values_fit = fits(res.base, 8)
        && fits(res.bombs, 8)
        && fits(res.rockets, 8)
        && fits_opt(Some(players), 8)
        && fits_opt(Some(actions.len()), 16)
        && actions.iter().all(|a| {
            fits_opt(a.bid, 8)
                && fits_opt(a.units, 8)
                && fits(a.multiplier, 32)
                && fits_opt(Some(a.round), 16)
                && a.cards_left
                    .as_slice()
                    .iter()
                    .all(|&c| fits_opt(Some(c), 8))
        });
    let masks_fit = [line.kitty, line.set_aside]
        .into_iter()
        .chain(line.hands.iter().flatten().map(|&h| Some(h)))
        .all(|m| fits_opt(m, 64));
    if !(seats_known && values_fit && masks_fit) {
        return None;
    }
    max_bids(actions, players)?;
    tricks_of(actions, ddz_move)
}

/// The rows of a chunk's Dou Dizhu games (the chunk's game ids are the Big Two core's).
#[derive(Default)]
pub struct DdzChunkRows {
    head: GameHead,
    seat_head: SeatHead,
    games: Games,
    seats: Seats,
    actions: Actions,
    tricks: Tricks,
}

impl DdzChunkRows {
    /// Append a replayed game's rows; `tricks` from [`buildable`].
    pub fn add(
        &mut self,
        line: &DdzLine,
        actions: &[ActionRecord],
        res: &GameResult,
        tricks: &[Trick],
        hash: &str,
        info: &LineInfo<'_>,
    ) {
        let players = info.players;
        let n = actions.len();
        let landlord = res.landlord;
        let max_bid = max_bids(actions, players).unwrap_or_else(|| vec![None; players]);
        let mut played = vec![0u64; players];
        let mut n_rounds = 0;
        for a in actions {
            if a.phase != Phase::Auction && a.kind == ActionType::Play {
                played[a.seat] |= a.cards;
                n_rounds = a.round;
            }
        }
        let full = line.hands.is_some();

        let head = Head {
            game_id: &line.game_id,
            hash,
            game_kind: "doudizhu",
            game_number: line.game_number,
            meta: &line.meta,
            full_info: full,
            outcome: res.outcome,
            winner: res.winner,
            first_leader: landlord,
            n_tricks: n_rounds,
            n_actions: n,
        };
        self.head.push(&head, info, &mut self.seat_head);
        let g = &mut self.games;
        g.landlord.push_int(opt(landlord));
        g.bid.push_int(int(res.base));
        g.bombs.push_int(int(res.bombs));
        g.rockets.push_int(int(res.rockets));
        g.spring.push(res.spring);
        g.landlord_won.push(res.landlord_won);
        g.first_bidder
            .push_int(opt(actions.first().map(|a| a.seat)));
        g.kitty_mask.push_int(opt(line.kitty));
        g.kitty_text.push_mask(line.kitty);
        g.set_aside_mask.push_int(opt(line.set_aside));
        g.set_aside_text.push_mask(line.set_aside);
        g.face_up_card.push_int(opt(line.face_up_card));
        g.face_up_card_text.push_card(line.face_up_card);

        let left: &[u8] = actions.last().map_or(&[], |a| a.cards_left.as_slice());
        let s = &mut self.seats;
        for seat in 0..players {
            let deal = line.hands.as_ref().and_then(|h| h.get(seat).copied());
            s.deal_mask.push_int(opt(deal));
            s.deal_text.push_mask(deal);
            let final_hand = deal.and_then(|hand| {
                if Some(seat) != landlord {
                    Some(hand & !played[seat])
                } else {
                    line.kitty.map(|k| (hand | k) & !played[seat])
                }
            });
            s.final_hand_mask.push_int(opt(final_hand));
            s.final_hand_text.push_mask(final_hand);
            s.cards_left.push_int(opt(left.get(seat).copied()));
            let won = res.landlord_won;
            s.is_winner
                .push(Some(won.is_some_and(|w| (Some(seat) == landlord) == w)));
            s.role
                .push(landlord.map(|l| if l == seat { "landlord" } else { "farmer" }));
            s.max_bid.push_int(opt(max_bid[seat]));
        }

        // the actions rows a column at a time (as Big Two's `crate::rows::ChunkRows::add`)
        let x = &mut self.actions;
        x.game_id.repeat(&line.game_id, n);
        x.action_index.extend_opt(actions, |a| int(a.action_index));
        x.seat.extend_opt(actions, |a| int(a.seat));
        x.action_type.extend(actions, |a| Some(a.kind.as_str()));
        x.cards_mask.extend_opt(actions, |a| int(a.cards));
        x.kind.extend(actions, |a| a.play_kind.map(|k| k.as_str()));
        x.rank_key.extend_opt(actions, |a| opt(a.key));
        x.trick.extend_opt(actions, |a| int(a.round));
        x.is_lead.extend(actions, |a| a.is_lead);
        x.top_before_mask.extend_opt(actions, |a| int(a.top_before));
        x.cards_left.extend_counts(actions, |a| &a.cards_left);
        x.hand_before_mask
            .extend_opt(actions, |a| opt(a.hand_before));
        x.beating_play_existed
            .extend_opt(actions, |a| a.beating_play_existed);
        x.next_seat
            .extend_opt(actions, |a| int((a.seat + 1) % players));
        x.ends_trick.extend(actions, |a| a.ends_round);
        x.wins_game.extend(actions, |a| a.wins_game);
        x.unchecked
            .extend_texts(actions, |a| if a.unchecked_hand { &["hand"] } else { &[] });
        x.phase.extend(actions, |a| Some(a.phase.as_str()));
        x.bid.extend_opt(actions, |a| opt(a.bid));
        x.units.extend_opt(actions, |a| opt(a.units));
        x.top_kind
            .extend(actions, |a| a.top_kind.map(|k| k.as_str()));
        x.top_seat.extend_opt(actions, |a| opt(a.top_seat));
        x.landlord.extend_opt(actions, |a| opt(a.landlord));
        x.multiplier.extend_opt(actions, |a| int(a.multiplier));
        x.ends_auction.extend(actions, |a| a.ends_auction);
        x.cards_text.extend_masks(actions, |a| Some(a.cards));
        x.top_before_text
            .extend_masks(actions, |a| Some(a.top_before));
        x.hand_before_text.extend_masks(actions, |a| a.hand_before);
        // a line whose times are not one a move: no times (as the Python builder)
        let no_times;
        let ts = if line.ts.len() == n {
            &line.ts[..]
        } else {
            no_times = vec![None; n];
            &no_times[..]
        };
        push_times(&mut x.ts, &mut x.think_seconds, ts);

        self.tricks.push(&line.game_id, tricks, |i| {
            let a = &actions[i];
            (a.seat, a.play_kind.map(|p| p.as_str()))
        });
    }
}

impl RowsBuffer for DdzChunkRows {
    fn tables(&self) -> Tables<'_> {
        let mut games = self.head.columns();
        games.extend(self.games.columns());
        let mut seats = self.seat_head.columns();
        seats.extend(self.seats.columns());
        vec![
            ("games", games),
            ("seats", seats),
            ("actions", self.actions.columns()),
            ("tricks", self.tricks.columns()),
        ]
    }

    fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    fn clear(&mut self) {
        self.head.clear();
        self.seat_head.clear();
        self.games.clear();
        self.seats.clear();
        self.actions.clear();
        self.tricks.clear();
    }

    fn each_vec(&mut self, f: &mut dyn FnMut(&mut Vec<u8>)) {
        self.head.each_vec(f);
        self.seat_head.each_vec(f);
        self.games.each_vec(f);
        self.seats.each_vec(f);
        self.actions.each_vec(f);
        self.tricks.each_vec(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_ranges() {
        assert!(fits(127, 8) && !fits(128, 8) && fits(-128, 8) && !fits(-129, 8));
        assert!(fits_opt::<u32>(None, 8) && !fits_opt(Some(u64::MAX), 64));
        assert!(fits_opt(Some(i64::MAX as u64), 64));
    }
}
