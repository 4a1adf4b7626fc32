//! The warehouse rows of replayed Dou Dizhu games, built as Arrow column buffers (issue 15).
//!
//! As `crate::rows` does for Big Two: [`DdzChunkRows::add`] appends a game's games, seats,
//! actions and tricks rows as `pipeline.warehouse.rows_doudizhu.DdzRows` fills them (the
//! shared envelope of `GameRows.add`, then `DdzRows.fill`; every column but `batch_id`, the
//! Big Two-only columns left out, which Python makes NULL; the `*_text` columns are
//! `super::texts`'), and [`DdzChunkRows::take`] hands each column over as the buffers of an
//! Arrow array. [`buildable`] says when the core builds a game's rows: where the Python
//! builder would refuse the game (a trick that does not open with a play, a value its column
//! cannot hold) the rows are Python's; so are they for a line the tree scanner does not read
//! (`super::py`: an escape, a number of more than 15 digits, which serde may read a unit off).
//!
//! The column builders are the same shapes as `crate::rows`' (kept apart so that each game's
//! rows can change on their own).

use super::parse::DdzLine;
use super::state::{ActionRecord, ActionType, GameResult, Phase};
use super::texts::Text;
use crate::rows::{Column, LineInfo};

#[derive(Default)]
struct Valid {
    bytes: Vec<u8>,
    len: usize,
    nulls: usize,
}

impl Valid {
    fn push(&mut self, on: bool) {
        push_bit(&mut self.bytes, self.len, on);
        self.len += 1;
        self.nulls += usize::from(!on);
    }

    fn finish(self) -> (usize, usize, Option<Vec<u8>>) {
        (self.len, self.nulls, (self.nulls > 0).then_some(self.bytes))
    }
}

fn push_bit(bytes: &mut Vec<u8>, at: usize, on: bool) {
    if at.is_multiple_of(8) {
        bytes.push(0);
    }
    if on {
        *bytes.last_mut().expect("a byte") |= 1 << (at % 8);
    }
}

/// An integer (or float) column of `W` bytes per value.
#[derive(Default)]
struct Fixed<const W: usize> {
    data: Vec<u8>,
    valid: Valid,
}

impl<const W: usize> Fixed<W> {
    /// A value (`buildable` checked that it fits `W` bytes), or NULL.
    fn push<T: TryInto<i64>>(&mut self, v: Option<T>) {
        let v = v.and_then(|v| v.try_into().ok());
        self.data
            .extend_from_slice(&v.unwrap_or(0).to_le_bytes()[..W]);
        self.valid.push(v.is_some());
    }

    fn push_f64(&mut self, v: Option<f64>) {
        self.data
            .extend_from_slice(&v.unwrap_or(0.0).to_le_bytes()[..W]);
        self.valid.push(v.is_some());
    }

    fn finish(self) -> Column {
        let (len, nulls, validity) = self.valid.finish();
        Column {
            len,
            nulls,
            validity,
            buffers: vec![self.data],
            children: vec![],
        }
    }
}

type I8 = Fixed<1>;
type I16 = Fixed<2>;
type I32 = Fixed<4>;
type I64 = Fixed<8>;
type F64 = Fixed<8>;

#[derive(Default)]
struct Bool {
    data: Vec<u8>,
    valid: Valid,
}

impl Bool {
    fn push(&mut self, v: Option<bool>) {
        push_bit(&mut self.data, self.valid.len, v.unwrap_or(false));
        self.valid.push(v.is_some());
    }

    fn finish(self) -> Column {
        let (len, nulls, validity) = self.valid.finish();
        Column {
            len,
            nulls,
            validity,
            buffers: vec![self.data],
            children: vec![],
        }
    }
}

struct Str {
    offsets: Vec<u8>,
    data: Vec<u8>,
    valid: Valid,
}

impl Default for Str {
    fn default() -> Str {
        Str {
            offsets: 0i32.to_le_bytes().to_vec(),
            data: Vec::new(),
            valid: Valid::default(),
        }
    }
}

impl Str {
    fn push(&mut self, v: Option<&str>) {
        if let Some(text) = v {
            self.data.extend_from_slice(text.as_bytes());
        }
        let end = i32::try_from(self.data.len()).expect("a chunk's texts fit 2 GiB");
        self.offsets.extend_from_slice(&end.to_le_bytes());
        self.valid.push(v.is_some());
    }

    fn finish(self) -> Column {
        let (len, nulls, validity) = self.valid.finish();
        Column {
            len,
            nulls,
            validity,
            buffers: vec![self.offsets, self.data],
            children: vec![],
        }
    }
}

/// A list column (never null), its values a child column.
struct List<C> {
    offsets: Vec<u8>,
    n: i32,
    len: usize,
    values: C,
}

impl<C: Default> Default for List<C> {
    fn default() -> List<C> {
        List {
            offsets: 0i32.to_le_bytes().to_vec(),
            n: 0,
            len: 0,
            values: C::default(),
        }
    }
}

impl<C> List<C> {
    fn close(&mut self, items: usize) {
        self.n += i32::try_from(items).expect("a chunk's lists fit 2**31 items");
        self.offsets.extend_from_slice(&self.n.to_le_bytes());
        self.len += 1;
    }

    fn finish_with(self, values: impl FnOnce(C) -> Column) -> Column {
        Column {
            len: self.len,
            nulls: 0,
            validity: None,
            buffers: vec![self.offsets],
            children: vec![values(self.values)],
        }
    }
}

#[derive(Default)]
struct Games {
    game_id: Str,
    content_hash: Str,
    game_kind: Str,
    ruleset: Str,
    overrides: Str,
    match_id: Str,
    game_number: I32,
    table_id: Str,
    tournament_id: Str,
    started_at: Str,
    players: I8,
    outcome: Str,
    winner: I8,
    first_leader: I8,
    n_tricks: I16,
    n_actions: I32,
    full_info: Bool,
    source_file: Str,
    source_line: I64,
    tournament_kind: Str,
    tournament_round: I32,
    info_level: Str,
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
}

#[derive(Default)]
struct Seats {
    game_id: Str,
    seat: I8,
    player_id: Str,
    name: Str,
    balance: F64,
    deal_mask: I64,
    deal_text: Text,
    final_hand_mask: I64,
    final_hand_text: Text,
    cards_left: I8,
    is_winner: Bool,
    role: Str,
    max_bid: I8,
}

#[derive(Default)]
struct Actions {
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
}

#[derive(Default)]
struct Tricks {
    game_id: Str,
    trick: I16,
    leader: I8,
    winner: I8,
    n_actions: I16,
    n_plays: I16,
    lead_kind: Str,
    ends_game: Bool,
}

/// One round of play (a trick): its number, first move, last play, moves, plays, and
/// whether it ends the game.
pub struct Trick {
    trick: u32,
    first: usize,
    last_play: usize,
    moves: i64,
    plays: i64,
    ends_game: bool,
}

/// The tricks of a game as `tricks_table` finds them (the plays and passes, grouped by
/// round), or None when a trick does not open with a play (the Python builder refuses it).
fn tricks_of(actions: &[ActionRecord]) -> Option<Vec<Trick>> {
    let mut out: Vec<Trick> = Vec::new();
    for (i, a) in actions.iter().enumerate() {
        let is_play = a.kind == ActionType::Play;
        if !is_play && a.kind != ActionType::Pass {
            continue;
        }
        match out.last_mut() {
            Some(t) if t.trick == a.round => {
                t.moves += 1;
                if is_play {
                    t.plays += 1;
                    t.last_play = i;
                }
                t.ends_game |= a.wins_game;
            }
            _ => {
                if !is_play {
                    return None;
                }
                out.push(Trick {
                    trick: a.round,
                    first: i,
                    last_play: i,
                    moves: 1,
                    plays: 1,
                    ends_game: a.wins_game,
                });
            }
        }
    }
    Some(out)
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
                && a.cards_left.iter().all(|&c| fits_opt(Some(c), 8))
        });
    let masks_fit = [line.kitty, line.set_aside]
        .into_iter()
        .chain(line.hands.iter().flatten().map(|&h| Some(h)))
        .all(|m| fits_opt(m, 64));
    if !(seats_known && values_fit && masks_fit) {
        return None;
    }
    max_bids(actions, players)?;
    tricks_of(actions)
}

/// The rows of a chunk's Dou Dizhu games (the chunk's game ids are the Big Two core's).
#[derive(Default)]
pub struct DdzChunkRows {
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
        let gid = Some(line.game_id.as_str());
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

        let g = &mut self.games;
        g.game_id.push(gid);
        g.content_hash.push(Some(hash));
        g.game_kind.push(Some("doudizhu"));
        g.ruleset.push(Some(info.ruleset));
        g.overrides.push(Some(info.overrides));
        g.match_id.push(line.meta.match_id.as_deref());
        g.game_number.push(Some(line.game_number));
        g.table_id.push(line.meta.table_id.as_deref());
        g.tournament_id.push(line.meta.tournament_id.as_deref());
        g.started_at.push(line.meta.started_at.as_deref());
        g.players.push(Some(players));
        g.full_info.push(Some(full));
        g.source_file.push(Some(info.file));
        g.source_line.push(Some(info.line));
        g.tournament_kind.push(line.meta.tournament_kind.as_deref());
        g.tournament_round.push(line.meta.tournament_round);
        g.info_level
            .push(Some(if full { "full" } else { "partial" }));
        g.outcome.push(Some(res.outcome));
        g.winner.push(res.winner);
        g.first_leader.push(landlord);
        g.n_tricks.push(Some(n_rounds));
        g.n_actions.push(Some(n));
        g.landlord.push(landlord);
        g.bid.push(Some(res.base));
        g.bombs.push(Some(res.bombs));
        g.rockets.push(Some(res.rockets));
        g.spring.push(res.spring);
        g.landlord_won.push(res.landlord_won);
        g.first_bidder.push(actions.first().map(|a| a.seat));
        g.kitty_mask.push(line.kitty);
        g.kitty_text.push_mask(line.kitty);
        g.set_aside_mask.push(line.set_aside);
        g.set_aside_text.push_mask(line.set_aside);
        g.face_up_card.push(line.face_up_card);
        g.face_up_card_text.push_card(line.face_up_card);

        let left: &[u32] = actions.last().map_or(&[], |a| a.cards_left.as_slice());
        let s = &mut self.seats;
        for seat in 0..players {
            let meta = line.meta.seats.get(seat);
            s.game_id.push(gid);
            s.seat.push(Some(seat));
            s.player_id.push(meta.map(|m| m.player_id.as_str()));
            s.name.push(meta.and_then(|m| m.name.as_deref()));
            s.balance.push_f64(meta.and_then(|m| m.balance));
            let deal = line.hands.as_ref().and_then(|h| h.get(seat).copied());
            s.deal_mask.push(deal);
            s.deal_text.push_mask(deal);
            let final_hand = deal.and_then(|hand| {
                if Some(seat) != landlord {
                    Some(hand & !played[seat])
                } else {
                    line.kitty.map(|k| (hand | k) & !played[seat])
                }
            });
            s.final_hand_mask.push(final_hand);
            s.final_hand_text.push_mask(final_hand);
            s.cards_left.push(left.get(seat).copied());
            let won = res.landlord_won;
            s.is_winner
                .push(Some(won.is_some_and(|w| (Some(seat) == landlord) == w)));
            s.role
                .push(landlord.map(|l| if l == seat { "landlord" } else { "farmer" }));
            s.max_bid.push(max_bid[seat]);
        }

        let x = &mut self.actions;
        let no_times = line.ts.len() != n;
        let mut previous: Option<Option<i64>> = None;
        for (i, a) in actions.iter().enumerate() {
            let ts = if no_times { None } else { line.ts[i] };
            x.game_id.push(gid);
            x.action_index.push(Some(a.action_index));
            x.seat.push(Some(a.seat));
            x.action_type.push(Some(a.kind.as_str()));
            x.cards_mask.push(Some(a.cards));
            x.cards_text.push_mask(Some(a.cards));
            x.kind.push(a.play_kind.map(|k| k.as_str()));
            x.rank_key.push(a.key);
            x.trick.push(Some(a.round));
            x.is_lead.push(Some(a.is_lead));
            x.top_before_mask.push(Some(a.top_before));
            x.top_before_text.push_mask(Some(a.top_before));
            for &c in &a.cards_left {
                x.cards_left.values.push(Some(c));
            }
            x.cards_left.close(a.cards_left.len());
            x.hand_before_mask.push(a.hand_before);
            x.hand_before_text.push_mask(a.hand_before);
            x.beating_play_existed.push(a.beating_play_existed);
            x.next_seat.push(Some((a.seat + 1) % players));
            x.ends_trick.push(Some(a.ends_round));
            x.wins_game.push(Some(a.wins_game));
            if a.unchecked_hand {
                x.unchecked.values.push(Some("hand"));
            }
            x.unchecked.close(usize::from(a.unchecked_hand));
            // ts_ms: round(ts * 1000) half to even, as pyarrow's round
            let ms = ts.map(|t| (t * 1000.0).round_ties_even() as i64);
            x.ts.push(ms);
            let think = match (previous, ms) {
                (Some(Some(before)), Some(now)) => {
                    Some(now as f64 / 1000.0 - before as f64 / 1000.0)
                }
                _ => None,
            };
            x.think_seconds.push_f64(think);
            previous = Some(ms);
            x.phase.push(Some(a.phase.as_str()));
            x.bid.push(a.bid);
            x.units.push(a.units);
            x.top_kind.push(a.top_kind.map(|k| k.as_str()));
            x.top_seat.push(a.top_seat);
            x.landlord.push(a.landlord);
            x.multiplier.push(Some(a.multiplier));
            x.ends_auction.push(Some(a.ends_auction));
        }

        let t = &mut self.tricks;
        for k in tricks {
            let first = &actions[k.first];
            t.game_id.push(gid);
            t.trick.push(Some(k.trick));
            t.leader.push(Some(first.seat));
            t.winner.push(Some(actions[k.last_play].seat));
            t.n_actions.push(Some(k.moves));
            t.n_plays.push(Some(k.plays));
            t.lead_kind.push(first.play_kind.map(|p| p.as_str()));
            t.ends_game.push(Some(k.ends_game));
        }
    }

    /// The buffered rows, table by table (`games`, `seats`, `actions`, `tricks`), each
    /// column by its name; the buffer empties.
    pub fn take(&mut self) -> Vec<(&'static str, Vec<(&'static str, Column)>)> {
        let DdzChunkRows {
            games: g,
            seats: s,
            actions: x,
            tricks: t,
        } = std::mem::take(self);
        let games = vec![
            ("game_id", g.game_id.finish()),
            ("content_hash", g.content_hash.finish()),
            ("game_kind", g.game_kind.finish()),
            ("ruleset", g.ruleset.finish()),
            ("overrides", g.overrides.finish()),
            ("match_id", g.match_id.finish()),
            ("game_number", g.game_number.finish()),
            ("table_id", g.table_id.finish()),
            ("tournament_id", g.tournament_id.finish()),
            ("started_at", g.started_at.finish()),
            ("players", g.players.finish()),
            ("outcome", g.outcome.finish()),
            ("winner", g.winner.finish()),
            ("first_leader", g.first_leader.finish()),
            ("n_tricks", g.n_tricks.finish()),
            ("n_actions", g.n_actions.finish()),
            ("full_info", g.full_info.finish()),
            ("source_file", g.source_file.finish()),
            ("source_line", g.source_line.finish()),
            ("tournament_kind", g.tournament_kind.finish()),
            ("tournament_round", g.tournament_round.finish()),
            ("info_level", g.info_level.finish()),
            ("landlord", g.landlord.finish()),
            ("bid", g.bid.finish()),
            ("bombs", g.bombs.finish()),
            ("rockets", g.rockets.finish()),
            ("spring", g.spring.finish()),
            ("landlord_won", g.landlord_won.finish()),
            ("first_bidder", g.first_bidder.finish()),
            ("kitty_mask", g.kitty_mask.finish()),
            ("kitty_text", g.kitty_text.finish()),
            ("set_aside_mask", g.set_aside_mask.finish()),
            ("set_aside_text", g.set_aside_text.finish()),
            ("face_up_card", g.face_up_card.finish()),
            ("face_up_card_text", g.face_up_card_text.finish()),
        ];
        let seats = vec![
            ("game_id", s.game_id.finish()),
            ("seat", s.seat.finish()),
            ("player_id", s.player_id.finish()),
            ("name", s.name.finish()),
            ("balance", s.balance.finish()),
            ("deal_mask", s.deal_mask.finish()),
            ("deal_text", s.deal_text.finish()),
            ("final_hand_mask", s.final_hand_mask.finish()),
            ("final_hand_text", s.final_hand_text.finish()),
            ("cards_left", s.cards_left.finish()),
            ("is_winner", s.is_winner.finish()),
            ("role", s.role.finish()),
            ("max_bid", s.max_bid.finish()),
        ];
        let actions = vec![
            ("game_id", x.game_id.finish()),
            ("action_index", x.action_index.finish()),
            ("seat", x.seat.finish()),
            ("action_type", x.action_type.finish()),
            ("cards_mask", x.cards_mask.finish()),
            ("cards_text", x.cards_text.finish()),
            ("kind", x.kind.finish()),
            ("rank_key", x.rank_key.finish()),
            ("trick", x.trick.finish()),
            ("is_lead", x.is_lead.finish()),
            ("top_before_mask", x.top_before_mask.finish()),
            ("top_before_text", x.top_before_text.finish()),
            ("cards_left", x.cards_left.finish_with(I8::finish)),
            ("hand_before_mask", x.hand_before_mask.finish()),
            ("hand_before_text", x.hand_before_text.finish()),
            ("beating_play_existed", x.beating_play_existed.finish()),
            ("next_seat", x.next_seat.finish()),
            ("ends_trick", x.ends_trick.finish()),
            ("wins_game", x.wins_game.finish()),
            ("unchecked", x.unchecked.finish_with(Str::finish)),
            ("ts", x.ts.finish()),
            ("think_seconds", x.think_seconds.finish()),
            ("phase", x.phase.finish()),
            ("bid", x.bid.finish()),
            ("units", x.units.finish()),
            ("top_kind", x.top_kind.finish()),
            ("top_seat", x.top_seat.finish()),
            ("landlord", x.landlord.finish()),
            ("multiplier", x.multiplier.finish()),
            ("ends_auction", x.ends_auction.finish()),
        ];
        let tricks = vec![
            ("game_id", t.game_id.finish()),
            ("trick", t.trick.finish()),
            ("leader", t.leader.finish()),
            ("winner", t.winner.finish()),
            ("n_actions", t.n_actions.finish()),
            ("n_plays", t.n_plays.finish()),
            ("lead_kind", t.lead_kind.finish()),
            ("ends_game", t.ends_game.finish()),
        ];
        vec![
            ("games", games),
            ("seats", seats),
            ("actions", actions),
            ("tricks", tricks),
        ]
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

    #[test]
    fn bits_and_nulls() {
        let mut b = Bool::default();
        for v in [Some(true), None, Some(false), Some(true)] {
            b.push(v);
        }
        let col = b.finish();
        assert_eq!((col.len, col.nulls), (4, 1));
        assert_eq!(col.validity, Some(vec![0b1101]));
        assert_eq!(col.buffers[0], vec![0b1001]);
        let mut i = I16::default();
        i.push(Some(-2i64));
        i.push::<i64>(None);
        let col = i.finish();
        assert_eq!(col.buffers[0], vec![0xfe, 0xff, 0, 0]);
    }
}
