-- capped_payments(balances, payments) → the payments actually made under the bankroll cap
-- (spec 1.8): balances is every seat's balance before the game (index seat + 1); payments a
-- list of struct(payer_seat, receiver_seat, amount, cum_before) in the payer's priority order.
-- A payer pays each receiver in turn until its balance is used up (Decision, docs/scoring.md).
create or replace macro capped_payments(balances, payments) as list_transform(
    payments,
    lambda p: struct_pack(
        payer_seat := p.payer_seat,
        receiver_seat := p.receiver_seat,
        paid := greatest(
            0::double,
            least(p.amount, greatest(balances[p.payer_seat + 1], 0) - p.cum_before)
        )
    )
)
