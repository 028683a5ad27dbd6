"""Load the service's signing key without ever making it printable.

The key comes from exactly one of: ``<PREFIX>`` (the hex key itself), ``<PREFIX>_FILE`` (a file holding the
hex key, e.g. a Docker or Kubernetes secret) or ``<PREFIX>_KEYSTORE`` with ``<PREFIX>_PASSWORD_FILE`` (an
encrypted Ethereum keystore JSON and a file holding its password). Error messages name variables and paths,
never values.

>>> key = load_service_key({"TRUST_REGISTRY_SIGNING_KEY": "0x" + "11" * 32})
>>> key
ServiceKey(address=0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A)
>>> "1111" in repr(key) or "1111" in str(key)
False
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from eth_account import Account
from eth_account.datastructures import SignedTransaction
from eth_account.messages import encode_typed_data
from eth_typing import ChecksumAddress

__all__ = ["DEFAULT_KEY_PREFIX", "KeyConfigurationError", "ServiceKey", "load_service_key"]

DEFAULT_KEY_PREFIX = "TRUST_REGISTRY_SIGNING_KEY"


class KeyConfigurationError(ValueError):
    """The signing key is missing, ambiguous, unreadable or malformed (the message never holds the key)."""


class ServiceKey:
    """A secp256k1 key that signs but never shows itself in repr, str, pickles or error messages.

    >>> ServiceKey("0x" + "22" * 32).address
    '0x1563915e194D8CfBA1943570603F7606A3115508'
    """

    __slots__ = ("_account",)

    def __init__(self, private_key: str | bytes) -> None:
        try:
            account = Account.from_key(_key_bytes(private_key))
        except Exception:
            # `from None` drops the original exception, whose message or frame could echo the key.
            raise KeyConfigurationError("the service key is not a valid secp256k1 private key") from None
        self._account = account

    @property
    def address(self) -> ChecksumAddress:
        """The key's Ethereum address, safe to show anywhere.

        >>> ServiceKey(b"\\x01" * 32).address.startswith("0x")
        True
        """
        return self._account.address

    def sign_typed_data(self, full_message: Mapping[str, Any]) -> bytes:
        """A 65-byte EIP-712 signature over a full typed-data message (types, primaryType, domain, message).

        >>> len(ServiceKey(b"\\x01" * 32).sign_typed_data({"types": {"EIP712Domain": [
        ...     {"name": "name", "type": "string"}], "M": [{"name": "x", "type": "uint256"}]},
        ...     "primaryType": "M", "domain": {"name": "d"}, "message": {"x": 1}}))
        65
        """
        signable = encode_typed_data(full_message=dict(full_message))
        return bytes(self._account.sign_message(signable).signature)

    def sign_transaction(self, transaction_dict: Mapping[str, Any]) -> SignedTransaction:
        """Sign a transaction for ``eth_sendRawTransaction``.

        >>> tx = {"to": "0x" + "00" * 20, "value": 0, "gas": 21000, "maxFeePerGas": 2,
        ...       "maxPriorityFeePerGas": 1, "nonce": 0, "chainId": 8453, "type": 2}
        >>> len(ServiceKey(b"\\x01" * 32).sign_transaction(tx).raw_transaction) > 0
        True
        """
        return self._account.sign_transaction(dict(transaction_dict))

    def __repr__(self) -> str:
        return f"ServiceKey(address={self.address})"

    __str__ = __repr__

    def __reduce__(self) -> NoReturn:
        raise TypeError("a ServiceKey cannot be pickled or copied")


def load_service_key(
    environ: Mapping[str, str], *, prefix: str = DEFAULT_KEY_PREFIX, required: bool = False
) -> ServiceKey | None:
    """Load the key from ``<prefix>``, ``<prefix>_FILE`` or ``<prefix>_KEYSTORE`` + ``_PASSWORD_FILE``.

    Returns None when none is set and ``required`` is false (the service then signs nothing).

    >>> load_service_key({}) is None
    True
    >>> load_service_key({"TRUST_REGISTRY_SIGNING_KEY": "not-a-key"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    signing.keys.KeyConfigurationError: TRUST_REGISTRY_SIGNING_KEY: the service key is not a valid ...
    """
    names = {
        "value": prefix,
        "file": f"{prefix}_FILE",
        "keystore": f"{prefix}_KEYSTORE",
    }
    password_name = f"{prefix}_PASSWORD_FILE"
    chosen = [kind for kind, name in names.items() if environ.get(name, "").strip()]
    if len(chosen) > 1:
        raise KeyConfigurationError(f"set only one of {', '.join(names[kind] for kind in chosen)}")
    if not chosen:
        if environ.get(password_name, "").strip():
            raise KeyConfigurationError(f"{password_name} is set but {names['keystore']} is not")
        if required:
            raise KeyConfigurationError(f"no signing key: set {prefix}, {prefix}_FILE or {prefix}_KEYSTORE")
        return None
    kind = chosen[0]
    name = names[kind]
    if kind == "value":
        return _service_key(environ[name], name)
    if kind == "file":
        return _service_key(_read_secret(Path(environ[name].strip()), name), name)
    password_path = environ.get(password_name, "").strip()
    if not password_path:
        raise KeyConfigurationError(f"{name} is set but {password_name} is not")
    keystore_path = Path(environ[name].strip())
    keystore_text = _read_secret(keystore_path, name)
    password = _read_secret(Path(password_path), password_name)
    try:
        private_key = Account.decrypt(json.loads(keystore_text), password)
    except Exception:
        raise KeyConfigurationError(
            f"{name}: cannot decrypt keystore {keystore_path} (wrong password or not a keystore file)"
        ) from None
    return _service_key(bytes(private_key), name)


def _service_key(private_key: str | bytes, name: str) -> ServiceKey:
    try:
        return ServiceKey(private_key)
    except KeyConfigurationError as error:
        raise KeyConfigurationError(f"{name}: {error}") from None


def _read_secret(path: Path, name: str) -> str:
    try:
        # Only the trailing newline an editor or `echo` adds is dropped: passwords may hold other spaces.
        return path.read_text(encoding="utf-8").rstrip("\r\n")
    except OSError as error:
        raise KeyConfigurationError(f"{name}: cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise KeyConfigurationError(f"{name}: {path} is not UTF-8 text") from None


def _key_bytes(private_key: str | bytes) -> bytes:
    if isinstance(private_key, bytes):
        return private_key
    text = private_key.strip()
    text = text[2:] if text[:2].lower() == "0x" else text
    if len(text) != 64 or any(char not in string.hexdigits for char in text):
        raise ValueError("expected 32 bytes of hex")
    return bytes.fromhex(text)
