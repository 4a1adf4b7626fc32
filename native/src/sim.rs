//! Seeded Big Two games played by bots into log lines, as `pipeline/sim/play.py` and
//! `pipeline/sim/simulate.py` play and write them: the same draws from the same streams
//! (`pyrand`), the same legal moves in the same order (`gen`), the same bot decisions, and
//! the same JSON bytes (`pipeline.logs.writer.dumps`). Bots choose among the engine's legal
//! moves, and the chosen action is applied without a second check (`Game::commit`).

use std::collections::HashMap;
use std::fmt::Write;

use crate::cards::{format_cards, FULL_DECK, RANK_COMPACT, SUIT_LETTER};
use crate::combos::{classify, single_key, ComboRules, Kind, Play};
use crate::gen::{beating_plays, plays_from, plays_holding, random_lead};
use crate::moves::can_beat;
use crate::pyrand::PyRandom;
use crate::rules::{FirstPlay, FourOfAKind, Ruleset, SuitOrder, ThreePlayerMode};
use crate::state::{claim_holds, Action, ActionType, Block, Claim, Deal, Game};

/// 2026-01-01T00:00:00Z (`pipeline.sim.play.BASE_TIMESTAMP`).
pub const BASE_TIMESTAMP: f64 = 1_767_225_600.0;
pub const YEAR_SECONDS: f64 = 365.0 * 86_400.0;
const CALL_SECONDS: f64 = 0.5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    Compact,
    Pretty,
    List,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotKind {
    Random,
    Greedy,
    Heuristic,
}

impl BotKind {
    pub fn parse(name: &str) -> Option<BotKind> {
        Some(match name {
            "random" => BotKind::Random,
            "greedy" => BotKind::Greedy,
            "heuristic" => BotKind::Heuristic,
            _ => return None,
        })
    }

    fn think(self) -> f64 {
        match self {
            BotKind::Random => 1.0,
            BotKind::Greedy => 1.5,
            BotKind::Heuristic => 3.0,
        }
    }
}

/// One bot of a match (a heuristic remembers its plans across the match's games).
pub struct Bot {
    pub kind: BotKind,
    plans: HashMap<u64, Vec<Play>>,
}

impl Bot {
    pub fn new(kind: BotKind) -> Bot {
        Bot {
            kind,
            plans: HashMap::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    Pass,
    Play(Play),
}

/// What a bot sees (`pipeline.sim.bots.Turn`).
struct Turn<'t, 'g> {
    game: &'t Game<'g>,
    seat: usize,
    plays: &'t [Play],
    can_pass: bool,
    block: Option<bool>,
    partner: Option<usize>,
}

/// The first element with the least key (Python's `min`; Rust's `min_by_key` takes the last).
pub(crate) fn first_min<T: Copy, K: PartialOrd>(items: &[T], key: impl Fn(&T) -> K) -> T {
    let mut best = items[0];
    let mut best_key = key(&best);
    for it in &items[1..] {
        let k = key(it);
        if k < best_key {
            best = *it;
            best_key = k;
        }
    }
    best
}

/// The first element with the greatest key (Python's `max`).
fn first_max<T: Copy, K: PartialOrd>(items: &[T], key: impl Fn(&T) -> K) -> T {
    let mut best = items[0];
    let mut best_key = key(&best);
    for it in &items[1..] {
        let k = key(it);
        if k > best_key {
            best = *it;
            best_key = k;
        }
    }
    best
}

/// The single-card strength of the lowest card of a mask (`bots.low_key`).
fn low_key(mask: u64, so: SuitOrder) -> u64 {
    let rank = mask.trailing_zeros() >> 2;
    let suits = mask >> (rank * 4) & 15;
    (0..4)
        .filter(|s| suits >> s & 1 == 1)
        .map(|s| single_key(rank * 4 + s, so))
        .min()
        .unwrap_or(0)
}

fn random_choose(t: &Turn, rng: &mut PyRandom) -> Choice {
    let n = t.plays.len() + usize::from(t.can_pass);
    let i = rng.randbelow(n);
    if i == t.plays.len() {
        Choice::Pass
    } else {
        Choice::Play(t.plays[i])
    }
}

fn greedy_choose(t: &Turn) -> Choice {
    if (t.block == Some(false) && t.can_pass) || t.plays.is_empty() {
        return Choice::Pass;
    }
    if t.game.top.is_none() {
        let so = t.game.rs.suit_order;
        return Choice::Play(first_min(t.plays, |p| (low_key(p.mask, so), p.size)));
    }
    Choice::Play(first_min(t.plays, |p| (p.is_bomb, p.order)))
}

impl Bot {
    fn choose(&mut self, t: &Turn, rng: &mut PyRandom) -> Choice {
        match self.kind {
            BotKind::Random => random_choose(t, rng),
            BotKind::Greedy => greedy_choose(t),
            BotKind::Heuristic => heuristic_choose(&mut self.plans, t),
        }
    }

    fn quick(&mut self, game: &Game, rng: &mut PyRandom) -> Option<(Choice, usize)> {
        match self.kind {
            BotKind::Random => {
                let seat = game.turn?;
                let hands = game.hands.as_ref()?;
                if game.top.is_some() || game.plays_restricted() {
                    return None;
                }
                let (play, n) = random_lead(hands[seat], game.cr, rng);
                Some((Choice::Play(play), n))
            }
            BotKind::Greedy => None,
            BotKind::Heuristic => heuristic_quick(&mut self.plans, game),
        }
    }
}

// ----- the heuristic bot (bots.HeuristicBot) -----------------------------------------------

/// Every 2 (the highest rank).
const TWOS: u64 = 0xF << 48;

type Plans = HashMap<u64, Vec<Play>>;

fn rank_groups(mut hand: u64, quad_units: u32) -> u32 {
    let mut n = 0;
    while hand != 0 {
        let rank = hand.trailing_zeros() >> 2;
        let k = (hand >> (rank * 4) & 15).count_ones();
        n += if k == 4 { quad_units } else { 1 };
        hand &= !(0xFu64 << (rank * 4));
    }
    n
}

/// `bots.plan_hand`: five-card plays that save the most units, then rank groups.
fn plan_hand(hand: u64, cr: &ComboRules) -> Vec<Play> {
    let rs = &cr.rs;
    let quad_units = if rs.four_of_a_kind == FourOfAKind::Alone {
        1
    } else {
        2
    };
    let mut units = Vec::new();
    let mut rest = hand;
    while rest.count_ones() >= 5 {
        let base = rank_groups(rest, quad_units) as i64;
        let mut best: Option<Play> = None;
        let mut best_score = 0i64;
        for p in plays_from(rest, cr, Some(5)) {
            let mut gain = base - rank_groups(rest & !p.mask, quad_units) as i64 - 1;
            if p.mask & TWOS != 0 {
                gain -= 1;
            }
            if gain < 1 {
                continue;
            }
            let score = gain * 64 - ((63 - p.mask.leading_zeros()) >> 2) as i64;
            if best.is_none() || score > best_score {
                best = Some(p);
                best_score = score;
            }
        }
        let Some(b) = best else { break };
        units.push(b);
        rest &= !b.mask;
    }
    for rank in 0..13u32 {
        let group = rest >> (rank * 4) & 15;
        if group == 0 {
            continue;
        }
        let cards: Vec<u64> = (0..4)
            .filter(|s| group >> s & 1 == 1)
            .map(|s| 1u64 << (rank * 4 + s))
            .collect();
        let four = if cards.len() == 4 {
            classify(group << (rank * 4), cr).ok()
        } else {
            None
        };
        let masks: Vec<u64> = match four {
            Some(f) if f.kind == Kind::FourOfAKind => vec![f.mask],
            _ if cards.len() == 4 => vec![cards[0] | cards[1], cards[2] | cards[3]],
            _ if cards.len() == 3 && !rs.allow_triples => vec![cards[0] | cards[1], cards[2]],
            _ => vec![cards.iter().sum()],
        };
        units.extend(
            masks
                .iter()
                .map(|&m| classify(m, cr).expect("a rank group is a play")),
        );
    }
    units
}

fn plan(plans: &mut Plans, hand: u64, cr: &ComboRules) -> Vec<Play> {
    if let Some(got) = plans.get(&hand) {
        return got.clone();
    }
    if plans.len() > 4096 {
        plans.clear();
    }
    let got = plan_hand(hand, cr);
    plans.insert(hand, got.clone());
    got
}

/// Playing a whole unit of the plan leaves the rest of the plan for the rest of the hand.
fn remember(plans: &mut Plans, game: &Game, seat: usize, choice: Choice) {
    let Choice::Play(p) = choice else { return };
    let hand = game.hands.as_ref().expect("dealt")[seat];
    if let Some(units) = plans.get(&hand) {
        if units.iter().any(|u| u.mask == p.mask) {
            let rest: Vec<Play> = units.iter().copied().filter(|u| u.mask != p.mask).collect();
            plans.insert(hand & !p.mask, rest);
        }
    }
}

fn is_boss(game: &Game, hand: u64, play: &Play) -> bool {
    let out = FULL_DECK & !game.played & !hand;
    if play.size == 5 && out.count_ones() > 4 {
        return false;
    }
    !can_beat(out, play, game.cr)
}

fn lowest_other(game: &Game, seat: usize) -> u32 {
    (0..game.n)
        .filter(|&s| s != seat && game.counts[s] != 0)
        .map(|s| game.counts[s])
        .min()
        .unwrap_or(13)
}

fn heuristic_lead(plans: &mut Plans, t: &Turn) -> Choice {
    let game = t.game;
    let hand = game.hands.as_ref().expect("dealt")[t.seat];
    let so = game.rs.suit_order;
    let plays = t.plays;
    let singles: Vec<Play> = plays.iter().copied().filter(|p| p.size == 1).collect();
    if t.block == Some(false) || (t.partner.is_some() && !singles.is_empty()) {
        let pool = if singles.is_empty() {
            plays
        } else {
            &singles[..]
        };
        return Choice::Play(first_min(pool, |p| low_key(p.mask, so)));
    }
    let units: Vec<Play> = plan(plans, hand, game.cr)
        .into_iter()
        .filter(|u| plays.iter().any(|p| p.mask == u.mask))
        .collect();
    if t.block == Some(true) {
        let mut multi: Vec<Play> = units.iter().copied().filter(|u| u.size > 1).collect();
        if multi.is_empty() {
            multi = plays.iter().copied().filter(|p| p.size > 1).collect();
        }
        if !multi.is_empty() {
            return Choice::Play(first_min(&multi, |p| low_key(p.mask, so)));
        }
        return Choice::Play(first_max(plays, |p| p.order));
    }
    if units.is_empty() {
        return Choice::Play(first_min(plays, |p| (p.size, low_key(p.mask, so))));
    }
    let danger = lowest_other(game, t.seat) <= 1;
    let (bosses, weak): (Vec<Play>, Vec<Play>) = units.iter().partition(|u| is_boss(game, hand, u));
    if !bosses.is_empty() && weak.len() <= 1 {
        return Choice::Play(first_max(&bosses, |p| p.size));
    }
    let pool = if weak.is_empty() { &units } else { &weak };
    if danger {
        let multi: Vec<Play> = pool.iter().copied().filter(|u| u.size > 1).collect();
        if !multi.is_empty() {
            return Choice::Play(first_min(&multi, |p| low_key(p.mask, so)));
        }
        return Choice::Play(first_max(pool, |p| p.order));
    }
    let mut cheap: Vec<Play> = pool
        .iter()
        .copied()
        .filter(|u| u.mask & TWOS == 0)
        .collect();
    if cheap.is_empty() {
        cheap = pool.clone();
    }
    Choice::Play(first_min(&cheap, |p| {
        (low_key(p.mask, so), -(p.size as i64))
    }))
}

enum FollowWith {
    Unit(Play),
    Pass,
    Any,
}

fn follow_key(p: &Play) -> (bool, u64) {
    (p.is_bomb, p.order)
}

fn follow_units(game: &Game, seat: usize, units: &[Play], whole: &[Play]) -> FollowWith {
    let low = lowest_other(game, seat);
    let mine = game.counts[seat];
    let urgent = low <= 4 || (low <= 7 && mine >= 8);
    let cheap: Vec<Play> = whole
        .iter()
        .copied()
        .filter(|p| p.mask & TWOS == 0 && !p.is_bomb)
        .collect();
    if !cheap.is_empty() {
        return FollowWith::Unit(first_min(&cheap, follow_key));
    }
    if urgent || mine <= 4 {
        return if whole.is_empty() {
            FollowWith::Any
        } else {
            FollowWith::Unit(first_min(whole, follow_key))
        };
    }
    if !whole.is_empty() && units.len() <= 3 {
        return FollowWith::Unit(first_min(whole, follow_key));
    }
    FollowWith::Pass
}

fn heuristic_follow(plans: &mut Plans, t: &Turn) -> Choice {
    let game = t.game;
    let plays = t.plays;
    if t.block == Some(true) {
        let singles: Vec<Play> = plays.iter().copied().filter(|p| p.size == 1).collect();
        return Choice::Play(if singles.is_empty() {
            plays[0]
        } else {
            first_max(&singles, |p| p.order)
        });
    }
    if plays.is_empty() || (t.block == Some(false) && t.can_pass) {
        return Choice::Pass;
    }
    if t.partner.is_some() && game.top_seat == t.partner && t.can_pass {
        return Choice::Pass;
    }
    let units = plan(plans, game.hands.as_ref().expect("dealt")[t.seat], game.cr);
    let whole: Vec<Play> = plays
        .iter()
        .copied()
        .filter(|p| units.iter().any(|u| u.mask == p.mask))
        .collect();
    match follow_units(game, t.seat, &units, &whole) {
        FollowWith::Any => Choice::Play(first_min(plays, follow_key)),
        FollowWith::Unit(p) => Choice::Play(p),
        FollowWith::Pass if t.can_pass => Choice::Pass,
        FollowWith::Pass => Choice::Play(first_min(plays, follow_key)),
    }
}

fn heuristic_choose(plans: &mut Plans, t: &Turn) -> Choice {
    let choice = if t.game.top.is_none() {
        heuristic_lead(plans, t)
    } else {
        heuristic_follow(plans, t)
    };
    remember(plans, t.game, t.seat, choice);
    choice
}

fn heuristic_quick(plans: &mut Plans, game: &Game) -> Option<(Choice, usize)> {
    let seat = game.turn?;
    let hand = game.hands.as_ref()?[seat];
    if game.plays_restricted() {
        return None;
    }
    let units = plan(plans, hand, game.cr);
    if let Some(top) = &game.top {
        let whole: Vec<Play> = units.iter().copied().filter(|u| u.beats(top)).collect();
        let n = whole.len() + 1;
        return match follow_units(game, seat, &units, &whole) {
            FollowWith::Any => None,
            FollowWith::Unit(p) => {
                remember(plans, game, seat, Choice::Play(p));
                Some((Choice::Play(p), n))
            }
            FollowWith::Pass => Some((Choice::Pass, n)),
        };
    }
    let t = Turn {
        game,
        seat,
        plays: &units,
        can_pass: false,
        block: None,
        partner: None,
    };
    Some((heuristic_choose(plans, &t), units.len()))
}

fn think(bot: BotKind, options: usize, leading: bool, rng: &mut PyRandom) -> f64 {
    if options <= 1 {
        return 0.4 + rng.random() * 0.6;
    }
    let t = bot.think() * rng.lognormvariate(0.0, 0.45) * if leading { 1.3 } else { 1.0 };
    t + 0.12 * (options as f64).ln()
}

/// Python's `round(x, 1)` as a count of tenths: the double nearest that many tenths is
/// what Python gives, and its `repr` is `{tenths / 10}.{tenths % 10}`.
fn round_tenths(x: f64) -> i64 {
    if (1_048_576.0..281_474_976_710_656.0).contains(&x) {
        // x - floor(x) is exact, and so is its product by 10 (at most 33 + 4 bits), so the
        // tie test is exact: round half to even, as Python's correctly rounded round().
        let i = x.floor();
        let tenths = ((x - i) * 10.0).round_ties_even();
        return i as i64 * 10 + tenths as i64;
    }
    let text = format!("{x:.1}");
    let value: f64 = text.parse().expect("a formatted float");
    (value * 10.0).round() as i64
}

fn tenths_value(t: i64) -> f64 {
    t as f64 / 10.0
}

fn first_play_ok(mask: u64, lowest: u32, rule: FirstPlay) -> bool {
    match rule {
        FirstPlay::Contain => mask >> lowest & 1 == 1,
        FirstPlay::Single => mask == 1 << lowest,
        _ => true,
    }
}

fn meets_block(play: &Play, card: u32, leading: bool) -> bool {
    if leading {
        play.size > 1 || play.mask == 1 << card
    } else {
        play.mask == 1 << card || play.is_bomb
    }
}

/// The legal plays of the seat to act, in the engine's order, and whether it may pass.
fn legal_moves(game: &Game, seat: usize) -> (Vec<Play>, bool) {
    let hand = game.hands.as_ref().expect("a simulated deal")[seat];
    let first = game.top.is_none() && game.first_play_due();
    let mut plays = match &game.top {
        // the opening play must hold the lowest card: list only those (the same order)
        None if first && game.rs.first_play == FirstPlay::Contain => {
            plays_holding(hand, game.cr, None, 1 << game.lowest.unwrap_or(0))
        }
        None => plays_from(hand, game.cr, None),
        Some(top) => beating_plays(hand, top, game.cr),
    };
    if game.plays_restricted() {
        let low = if first { game.lowest.unwrap_or(0) } else { 0 };
        let rule = game.rs.first_play;
        let enforce = game.enforced && game.counts[game.next_seat(seat)] == 1;
        plays.retain(|p| {
            if first && !first_play_ok(p.mask, low, rule) {
                return false;
            }
            !(enforce && game.obligation(seat, Some(p)).1 == Some(Block::Violated))
        });
    }
    let can_pass = game.top.is_some()
        && !(game.enforced && game.obligation(seat, None).1 == Some(Block::Violated));
    (plays, can_pass)
}

fn action(seat: usize, kind: ActionType) -> Action {
    Action {
        seat: seat as u64,
        kind,
        cards: 0,
        claim: None,
        drawn: None,
    }
}

struct NonBlock {
    action_index: usize,
    seat: usize,
    next_seat: usize,
    colluder: bool,
}

/// A finished game and what its log needs besides the engine's history.
pub struct Played<'g> {
    pub game: Game<'g>,
    pub hands: Vec<u64>,
    pub stock: Vec<u32>,
    /// each action's `ts` in tenths of a second
    pub times: Vec<i64>,
    non_blocks: Vec<NonBlock>,
}

struct Table<'g> {
    game: Game<'g>,
    clock: f64,
    times: Vec<i64>,
    calls: bool,
}

impl Table<'_> {
    fn act(&mut self, a: Action, play: Option<Play>, seconds: f64) {
        let seat = a.seat as usize;
        self.game.commit(&a, play).expect("a legal action");
        self.clock += seconds;
        self.times.push(round_tenths(self.clock));
        if self.calls && self.game.call_due.is_some() {
            self.game
                .commit(&action(seat, ActionType::Announce), None)
                .expect("a due call");
            self.clock += CALL_SECONDS;
            self.times.push(round_tenths(self.clock));
        }
    }

    fn act_choice(&mut self, seat: usize, choice: Choice, seconds: f64) {
        match choice {
            Choice::Pass => self.act(action(seat, ActionType::Pass), None, seconds),
            Choice::Play(p) => {
                let mut a = action(seat, ActionType::Play);
                a.cards = p.mask;
                self.act(a, Some(p), seconds);
            }
        }
    }
}

/// The claims a ruleset enables, in the order a bot weighs them (`play._enabled_claims`).
fn enabled_claims(rs: &Ruleset) -> Vec<Claim> {
    let mut out: Vec<Claim> = rs
        .redeal_if
        .iter()
        .filter_map(|r| Claim::parse(r))
        .collect();
    if rs.four_twos_instant_win {
        out.insert(0, Claim::FourTwos);
    }
    if rs.dragon_instant_win {
        out.insert(0, Claim::Dragon);
    }
    out
}

/// Game options of one run (`SimConfig`'s planted behaviour).
#[derive(Clone, Copy, Debug)]
pub struct Planted {
    pub discipline: f64,
    pub colluders: Option<(usize, usize)>,
}

/// Deal and play one game to its end (`play.play_game`).
#[allow(clippy::too_many_arguments)]
pub fn play_game<'g>(
    rs: &'g Ruleset,
    cr: &'g ComboRules,
    bots: &mut [Bot],
    rng: &mut PyRandom,
    game_number: u64,
    previous_winner: Option<usize>,
    planted: Planted,
    clock: f64,
) -> Played<'g> {
    let mut deck: Vec<u32> = (0..52).collect();
    rng.shuffle(&mut deck);
    let size = rs.hand_size();
    let hands: Vec<u64> = (0..rs.players)
        .map(|i| {
            deck[i * size..(i + 1) * size]
                .iter()
                .fold(0, |m, &c| m | 1 << c)
        })
        .collect();
    let stock: Vec<u32> = deck[size * rs.players..].to_vec();
    let game = Game::new(
        rs,
        cr,
        &Deal {
            hands: Some(&hands),
            stock: &stock,
            start_counts: None,
            game_number,
            previous_winner,
            first_leader: None,
        },
    )
    .expect("a simulated deal");
    let mut game = game;
    game.lean = true;
    let mut t = Table {
        game,
        clock,
        times: Vec::new(),
        calls: rs.last_card_required,
    };
    let mut non_blocks = Vec::new();
    let claims = enabled_claims(rs);
    if !claims.is_empty() {
        let mut claimant = t.game.turn.unwrap_or(0);
        for _ in 0..rs.players {
            let hand = t.game.hands.as_ref().expect("dealt")[claimant];
            let held: Vec<Claim> = claims
                .iter()
                .copied()
                .filter(|&c| claim_holds(c, hand))
                .collect();
            if !held.is_empty() {
                let choice = held
                    .iter()
                    .copied()
                    .find(|c| c.is_instant_win())
                    .unwrap_or(held[0]);
                let mut a = action(claimant, ActionType::Claim);
                a.claim = Some(choice);
                let seconds = 1.0 + rng.random() * 2.0;
                t.act(a, None, seconds);
                break;
            }
            claimant = t.game.next_seat(claimant);
        }
    }
    if !t.game.finished()
        && rs.players == 3
        && rs.three_player_mode == ThreePlayerMode::SwapLeftover
        && t.game.lowest.is_some()
    {
        let low = t.game.lowest.unwrap_or(0);
        let hs = t.game.hands.as_ref().expect("dealt");
        let holder = (0..rs.players)
            .find(|&s| hs[s] >> low & 1 == 1)
            .unwrap_or(0);
        let swap = match bots[holder].kind {
            BotKind::Random => rng.random() < 0.5,
            _ => true,
        };
        if swap {
            let seconds = 1.0 + rng.random() * 3.0;
            t.act(action(holder, ActionType::Swap), None, seconds);
        }
    }
    while !t.game.finished() {
        let seat = t.game.turn.expect("a seat to act");
        let leading = t.game.top.is_none();
        let best = t.game.block_card(seat);
        let partner = match planted.colluders {
            Some((a, b)) if a == seat => Some(b),
            _ => None,
        };
        if best.is_none() && partner.is_none() {
            if let Some((choice, n)) = bots[seat].quick(&t.game, rng) {
                let seconds = think(bots[seat].kind, n, leading, rng);
                t.act_choice(seat, choice, seconds);
                continue;
            }
        }
        let (mut plays, mut can_pass) = legal_moves(&t.game, seat);
        let n_options = plays.len() + usize::from(can_pass);
        let mut block = None;
        let mut colluder = false;
        if let Some(best) = best {
            let (meet, miss): (Vec<Play>, Vec<Play>) =
                plays.iter().partition(|p| meets_block(p, best, leading));
            let nxt = t.game.next_seat(seat);
            let honour = if planted.colluders == Some((seat, nxt)) {
                colluder = true;
                false
            } else {
                rng.random() < planted.discipline
            };
            if !honour && (!miss.is_empty() || can_pass) {
                plays = miss;
                block = Some(false);
            } else if !meet.is_empty() {
                plays = meet;
                can_pass = false;
                block = Some(true);
            }
        }
        let choice = bots[seat].choose(
            &Turn {
                game: &t.game,
                seat,
                plays: &plays,
                can_pass,
                block,
                partner,
            },
            rng,
        );
        let index = t.game.history.len();
        let seconds = think(bots[seat].kind, n_options, leading, rng);
        t.act_choice(seat, choice, seconds);
        if block == Some(false) {
            let record = &t.game.history[index];
            debug_assert_eq!(record.block, Some(Block::Violated));
            non_blocks.push(NonBlock {
                action_index: index,
                seat,
                next_seat: record.next_seat.into(),
                colluder,
            });
        }
    }
    Played {
        game: t.game,
        hands,
        stock,
        times: t.times,
        non_blocks,
    }
}

// ----- the log line (pipeline.logs.writer.game_log + dumps) -------------------------------

fn compact_card(out: &mut String, c: u32) {
    out.push_str(RANK_COMPACT[(c >> 2) as usize]);
    out.push_str(SUIT_LETTER[(c & 3) as usize]);
}

fn cards_json(out: &mut String, mask: u64, notation: Notation) {
    match notation {
        Notation::Pretty => {
            out.push('"');
            out.push_str(&format_cards(mask));
            out.push('"');
        }
        Notation::Compact => {
            out.push('"');
            let mut m = mask;
            let mut first = true;
            while m != 0 {
                if !first {
                    out.push(' ');
                }
                first = false;
                compact_card(out, m.trailing_zeros());
                m &= m - 1;
            }
            out.push('"');
        }
        Notation::List => {
            out.push('[');
            let mut m = mask;
            let mut first = true;
            while m != 0 {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                out.push('"');
                compact_card(out, m.trailing_zeros());
                out.push('"');
                m &= m - 1;
            }
            out.push(']');
        }
    }
}

pub(crate) fn opt(out: &mut String, v: Option<usize>) {
    match v {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push_str("null"),
    }
}

fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `datetime.fromtimestamp(t, tz=UTC).isoformat()` (microseconds rounded half to even).
pub fn iso_utc(t: f64) -> String {
    let mut whole = t.trunc();
    let mut us = ((t - whole) * 1e6).round_ties_even();
    if us >= 1e6 {
        us -= 1e6;
        whole += 1.0;
    } else if us < 0.0 {
        us += 1e6;
        whole -= 1.0;
    }
    let secs = whole as i64;
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    let mut out = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    if us != 0.0 {
        let _ = write!(out, ".{:06}", us as u32);
    }
    out.push_str("+00:00");
    out
}

/// What stays the same over a run: the JSON fragments Python renders once (ids, the
/// ruleset object, the planted values), and the options.
pub struct RunSpec {
    pub seed: String,
    pub games: u64,
    pub match_games: u64,
    pub planted: Planted,
    pub notation: Notation,
    /// `{id_prefix}-{seed}`, JSON-escaped
    pub prefix: String,
    /// `{"preset": ..., "overrides": {...}}`
    pub ruleset_json: String,
    pub seed_json: String,
    pub discipline_json: String,
    pub colluders_json: String,
}

/// One whole match as JSON lines (`simulate.match_lines`); `seats_json` and `bots_json`:
/// the match's `seats` list and `truth.bots`, rendered by Python.
pub fn match_lines(
    rs: &Ruleset,
    cr: &ComboRules,
    spec: &RunSpec,
    m: u64,
    kinds: &[BotKind],
    seats_json: &str,
    bots_json: &str,
) -> Vec<String> {
    let mut bots: Vec<Bot> = kinds.iter().map(|&k| Bot::new(k)).collect();
    let mut mrng = PyRandom::from_text(&format!("{}:match:{m}", spec.seed));
    let mut clock = BASE_TIMESTAMP + (mrng.random() * YEAR_SECONDS).round_ties_even();
    let first = m * spec.match_games;
    let last = (first + spec.match_games).min(spec.games);
    let mut previous: Option<usize> = None;
    let mut out = Vec::with_capacity((last.saturating_sub(first)) as usize);
    for (number, index) in (first..last).enumerate() {
        let number = number as u64 + 1;
        let mut rng = PyRandom::from_text(&format!("{}:{index}", spec.seed));
        let played = play_game(
            rs,
            cr,
            &mut bots,
            &mut rng,
            number,
            previous,
            spec.planted,
            clock,
        );
        out.push(game_line(
            spec, m, index, number, previous, clock, &played, seats_json, bots_json,
        ));
        let winner = played.game.result.as_ref().and_then(|r| r.winner);
        if winner.is_some() {
            previous = winner;
        }
        let end = played.times.last().map_or(clock, |&t| tenths_value(t));
        clock = end + 20.0 + (rng.random() * 40.0).round_ties_even();
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn game_line(
    spec: &RunSpec,
    m: u64,
    index: u64,
    number: u64,
    previous: Option<usize>,
    clock: f64,
    played: &Played,
    seats_json: &str,
    bots_json: &str,
) -> String {
    let p = &spec.prefix;
    let mut o = String::with_capacity(8192);
    let _ = write!(
        o,
        "{{\"format_version\": 1, \"game_kind\": \"big2\", \"game_id\": \"{p}-{index:08}\", \
         \"ruleset\": {}, \"match_id\": \"{p}-m{m:06}\", \"game_number\": {number}, \
         \"table_id\": \"{p}-t{:03}\", \"started_at\": \"{}\", \"seats\": {seats_json}, \
         \"deal\": {{\"hands\": [",
        spec.ruleset_json,
        m % 1000,
        iso_utc(clock)
    );
    for (i, &h) in played.hands.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        cards_json(&mut o, h, spec.notation);
    }
    o.push_str("], \"stock\": [");
    for (i, &c) in played.stock.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        o.push('"');
        compact_card(&mut o, c);
        o.push('"');
    }
    let mut num = itoa::Buffer::new();
    o.push_str("]}, \"previous_winner\": ");
    opt(&mut o, previous);
    o.push_str(", \"actions\": [");
    for (i, r) in played.game.history.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        o.push_str("{\"seat\": ");
        o.push_str(num.format(r.seat));
        o.push_str(", \"action\": \"");
        o.push_str(r.kind.as_str());
        o.push('"');
        match r.kind {
            ActionType::Play => {
                o.push_str(", \"cards\": ");
                cards_json(&mut o, r.cards, spec.notation);
            }
            ActionType::Claim => {
                if let Some(c) = r.claim {
                    let _ = write!(o, ", \"claim\": \"{}\"", c.as_str());
                }
            }
            ActionType::Pass => {
                if let Some(d) = r.drawn {
                    o.push_str(", \"drawn\": \"");
                    compact_card(&mut o, d.into());
                    o.push('"');
                }
            }
            _ => {}
        }
        o.push_str(", \"ts\": ");
        let t = played.times[i];
        o.push_str(num.format(t.div_euclid(10)));
        o.push('.');
        o.push(char::from(b'0' + t.rem_euclid(10) as u8));
        o.push('}');
    }
    let result = played.game.result.as_ref().expect("a finished game");
    o.push_str("], \"result\": {\"winner\": ");
    opt(&mut o, result.winner);
    o.push_str(", \"cards_left\": [");
    for (i, c) in result.cards_left.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        let _ = write!(o, "{c}");
    }
    let _ = write!(
        o,
        "]}}, \"truth\": {{\"generator\": \"pipeline.sim\", \"seed\": {}, \"game_index\": {index}, \
         \"bots\": {bots_json}, \"must_block_discipline\": {}, \"colluders\": {}, \
         \"deliberate_non_blocks\": [",
        spec.seed_json, spec.discipline_json, spec.colluders_json
    );
    for (i, nb) in played.non_blocks.iter().enumerate() {
        if i > 0 {
            o.push_str(", ");
        }
        let _ = write!(
            o,
            "{{\"action_index\": {}, \"seat\": {}, \"next_seat\": {}, \"reason\": \"{}\"}}",
            nb.action_index,
            nb.seat,
            nb.next_seat,
            if nb.colluder {
                "colluder"
            } else {
                "discipline"
            }
        );
    }
    o.push_str("]}}");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times() {
        assert_eq!(iso_utc(0.0), "1970-01-01T00:00:00+00:00");
        assert_eq!(iso_utc(1_772_451_204.0), "2026-03-02T11:33:24+00:00");
        assert_eq!(iso_utc(1_772_451_204.3), "2026-03-02T11:33:24.300000+00:00");
    }

    #[test]
    fn rounding_as_python() {
        // round(1772451204.66, 1), round(1772451204.25, 1), round(1772451204.75, 1), round(2.25, 1)
        assert_eq!(round_tenths(1_772_451_204.66), 17_724_512_047);
        assert_eq!(round_tenths(1_772_451_204.25), 17_724_512_042);
        assert_eq!(round_tenths(1_772_451_204.75), 17_724_512_048);
        assert_eq!(round_tenths(2.25), 22);
        assert_eq!(tenths_value(17_724_512_047), 1_772_451_204.7);
    }
}
