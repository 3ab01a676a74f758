"""Daily payout job: pending payouts -> bank file -> SFTP -> mark sent."""
import datetime as dt
import logging
import time

from ledger import bankfile, db, sftp

log = logging.getLogger("ledger.jobs.payouts")


def next_business_day(d: dt.date) -> dt.date:
    d += dt.timedelta(days=1)
    while d.weekday() >= 5:
        d += dt.timedelta(days=1)
    return d


def run(today: dt.date) -> None:
    t0 = time.monotonic()
    with db.connect() as conn:
        cur = db.dict_cursor(conn)
        candidates = db.pending_payouts(cur)
        payable = []
        for p in candidates:
            # balance check per merchant; slow on busy days (see docs/runbook.md)
            if db.available_balance(cur, p["merchant_id"]) < p["amount_cents"]:
                db.mark_held(cur, p["id"], "insufficient_balance")
                continue
            payable.append(p)

        if not payable:
            conn.commit()
            log.info("job=payouts status=ok sent=0 held=%d", len(candidates))
            return

        value_date = today if today.weekday() < 5 else next_business_day(today)
        name, data = bankfile.build(payable, value_date)
        sftp.upload(name, data)

        for p in payable:
            db.mark_sent(cur, p["id"], name)
        conn.commit()

    log.info("job=payouts status=ok file=%s sent=%d held=%d secs=%.0f",
             name, len(payable), len(candidates) - len(payable), time.monotonic() - t0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    run(dt.date.today())
