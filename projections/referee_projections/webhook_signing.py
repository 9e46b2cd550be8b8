"""Standard Webhooks signatures (standardwebhooks.com, the symmetric scheme ``v1``).

A secret is ``whsec_`` followed by the base64 of 24 to 64 random bytes; the HMAC key is those
bytes. Each attempt is signed over ``{webhook-id}.{webhook-timestamp}.{body}`` with
HMAC-SHA256 and sent as ``webhook-signature: v1,<base64 of the digest>``; the id stays the same
on every attempt, the timestamp is the attempt's (docs/webhooks.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from referee.domain.errors import InvalidWebhookError

SECRET_PREFIX = "whsec_"
MIN_SECRET_BYTES = 24
MAX_SECRET_BYTES = 64
#: A secret's longest text: the prefix and the base64 of the longest key.
MAX_SECRET_TEXT = len(SECRET_PREFIX) + 4 * ((MAX_SECRET_BYTES + 2) // 3)


def secret_key(secret: str) -> bytes:
    """The HMAC key of a ``whsec_`` secret.

    :raises InvalidWebhookError: for any other text (the message never repeats it)."""
    if not secret.startswith(SECRET_PREFIX):
        raise InvalidWebhookError(
            f"the secret must start with {SECRET_PREFIX!r} (Standard Webhooks), followed by "
            "the base64 of 24 to 64 random bytes; or leave it empty for the referee to make "
            "one", field="secret")
    if len(secret) > MAX_SECRET_TEXT:
        raise InvalidWebhookError(f"the secret is longer than {MAX_SECRET_TEXT} characters",
                                  field="secret")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX):], validate=True)
    except (binascii.Error, ValueError):
        raise InvalidWebhookError("the secret after 'whsec_' is not valid base64",
                                  field="secret") from None
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise InvalidWebhookError(
            f"the secret's key has {len(key)} bytes; Standard Webhooks asks for "
            f"{MIN_SECRET_BYTES} to {MAX_SECRET_BYTES}", field="secret")
    return key


def new_secret() -> str:
    """A fresh secret: 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def fingerprint(secret: str) -> str:
    """What the referee shows of a secret after registration: enough to tell two apart."""
    return "sha256:" + hashlib.sha256(secret_key(secret)).hexdigest()[:16]


def signature(key: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of one attempt."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(secret: str, message_id: str, timestamp: int, body: bytes
                   ) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret_key(secret), message_id, timestamp, body),
    }
