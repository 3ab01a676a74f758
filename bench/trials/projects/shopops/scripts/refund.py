"""Refund each order in a CSV through the payment provider (live keys from PAYMENTS_KEY)."""

import csv
import os
import sys

import payments  # the provider's SDK


def main(path):
    client = payments.Client(os.environ["PAYMENTS_KEY"])
    with open(path) as f:
        for row in csv.DictReader(f):
            client.refunds.create(charge=row["charge_id"], amount=int(row["amount_cents"]))
            print("refunded", row["order_id"])


if __name__ == "__main__":
    main(sys.argv[1])
