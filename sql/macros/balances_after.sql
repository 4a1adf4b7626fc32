-- balances_after(balances, paid) → every seat's balance after the payments paid
-- (as returned by capped_payments); index seat + 1.
create or replace macro balances_after(balances, paid) as list_transform(
    range(len(balances)),
    lambda s: balances[s + 1]
        - coalesce(list_sum(list_transform(paid, lambda p: case when p.payer_seat = s then p.paid else 0 end)), 0)
        + coalesce(list_sum(list_transform(paid, lambda p: case when p.receiver_seat = s then p.paid else 0 end)), 0)
)
