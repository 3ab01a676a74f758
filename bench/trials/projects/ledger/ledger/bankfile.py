"""Payment file in the format agreed with Nordbank (see docs/bank-sftp.md)."""
import csv
import datetime as dt
import io

ORIGINATOR_ID = "ACME0042"
FILE_SEQUENCE = "001"


def file_name(value_date: dt.date) -> str:
    return f"{ORIGINATOR_ID}_PAY_{value_date:%Y%m%d}_{FILE_SEQUENCE}.csv"


def _clean(text: str, limit: int) -> str:
    allowed = "".join(c for c in text.upper() if c.isalnum() or c in " -./")
    return allowed[:limit]


def build(payouts: list[dict], value_date: dt.date) -> tuple[str, bytes]:
    """Return (file name, file bytes) for the given payouts."""
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=";", lineterminator="\r\n")
    total = sum(p["amount_cents"] for p in payouts)
    w.writerow(["H", ORIGINATOR_ID, f"{value_date:%Y%m%d}", FILE_SEQUENCE,
                len(payouts), total, "EUR"])
    for i, p in enumerate(payouts, start=1):
        w.writerow([
            "D",
            i,
            p["iban"].replace(" ", ""),
            p["bic"],
            _clean(p["legal_name"], 70),
            p["amount_cents"],
            f"PAYOUT {p['id']}",
        ])
    w.writerow(["T", len(payouts), total])
    return file_name(value_date), buf.getvalue().encode("latin-1", errors="replace")
