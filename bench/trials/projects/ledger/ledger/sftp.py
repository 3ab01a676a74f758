"""Upload payment files to the bank's SFTP drop."""
import io
import logging
import os

import paramiko

log = logging.getLogger("ledger.sftp")

HOST = os.environ.get("BANK_SFTP_HOST", "sftp.nordbank.example")
PORT = 22
INBOX = "/inbound/payments"


def upload(name: str, data: bytes) -> None:
    key = paramiko.Ed25519Key.from_private_key_file(os.environ["BANK_SFTP_KEY"])
    transport = paramiko.Transport((HOST, PORT))
    try:
        transport.connect(username=os.environ["BANK_SFTP_USER"], pkey=key)
        sftp = paramiko.SFTPClient.from_transport(transport)
        tmp = f"{INBOX}/.{name}.part"
        sftp.putfo(io.BytesIO(data), tmp)
        # the bank picks up only complete files; rename is atomic on their side
        sftp.posix_rename(tmp, f"{INBOX}/{name}")
        log.info("uploaded %s (%d bytes)", name, len(data))
    finally:
        transport.close()


RETURNS = "/outbound/returns"


def list_returns(since_name: str = "") -> list[str]:
    """Names of return files in the bank's outbound folder, newer than since_name."""
    key = paramiko.Ed25519Key.from_private_key_file(os.environ["BANK_SFTP_KEY"])
    transport = paramiko.Transport((HOST, PORT))
    try:
        transport.connect(username=os.environ["BANK_SFTP_USER"], pkey=key)
        sftp = paramiko.SFTPClient.from_transport(transport)
        return sorted(n for n in sftp.listdir(RETURNS) if n > since_name)
    finally:
        transport.close()
