"""The service key: its three sources, and that it never shows itself."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest
from eth_account import Account
from hypothesis import given, settings
from hypothesis import strategies as st

from signing.keys import KeyConfigurationError, ServiceKey, load_service_key

PREFIX = "TRUST_REGISTRY_SIGNING_KEY"


@pytest.fixture
def account():
    return Account.create()


def test_it_loads_the_key_from_the_variable(account) -> None:
    key = load_service_key({PREFIX: account.key.hex()})
    assert key is not None and key.address == account.address
    upper = load_service_key({PREFIX: "0x" + account.key.hex().upper()})
    assert upper is not None and upper.address == account.address


def test_it_loads_the_key_from_a_file(tmp_path: Path, account) -> None:
    path = tmp_path / "key"
    path.write_text("0x" + account.key.hex() + "\n")
    key = load_service_key({f"{PREFIX}_FILE": str(path)})
    assert key is not None and key.address == account.address


def test_it_loads_the_key_from_an_encrypted_keystore(tmp_path: Path, account) -> None:
    keystore = tmp_path / "keystore.json"
    keystore.write_text(json.dumps(Account.encrypt(account.key, " pass word ", kdf="pbkdf2", iterations=2)))
    password = tmp_path / "password"
    password.write_text(" pass word \n")
    key = load_service_key({f"{PREFIX}_KEYSTORE": str(keystore), f"{PREFIX}_PASSWORD_FILE": str(password)})
    assert key is not None and key.address == account.address


def test_it_refuses_a_wrong_keystore_password_without_echoing_it(tmp_path: Path, account) -> None:
    keystore = tmp_path / "keystore.json"
    keystore.write_text(json.dumps(Account.encrypt(account.key, "right", kdf="pbkdf2", iterations=2)))
    password = tmp_path / "password"
    password.write_text("wrong-password-value")
    with pytest.raises(KeyConfigurationError) as caught:
        load_service_key({f"{PREFIX}_KEYSTORE": str(keystore), f"{PREFIX}_PASSWORD_FILE": str(password)})
    assert "wrong-password-value" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_it_returns_none_or_fails_when_no_key_is_configured() -> None:
    assert load_service_key({}) is None
    with pytest.raises(KeyConfigurationError, match="no signing key"):
        load_service_key({}, required=True)


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({PREFIX: "0x" + "11" * 32, f"{PREFIX}_FILE": "/x"}, "only one of"),
        ({f"{PREFIX}_KEYSTORE": "/x"}, "PASSWORD_FILE is not"),
        ({f"{PREFIX}_PASSWORD_FILE": "/x"}, "KEYSTORE is not"),
        ({f"{PREFIX}_FILE": "/nonexistent/key"}, "cannot read /nonexistent/key"),
        ({PREFIX: "00" * 32}, "not a valid secp256k1 private key"),
    ],
)
def test_it_explains_bad_configurations(environ: dict[str, str], message: str) -> None:
    with pytest.raises(KeyConfigurationError, match=message):
        load_service_key(environ)


@settings(max_examples=30, deadline=None)
@given(secret=st.text(alphabet="0123456789abcdefxyz", min_size=8, max_size=80))
def test_it_never_echoes_a_malformed_key(secret: str) -> None:
    try:
        key = load_service_key({PREFIX: secret})
    except KeyConfigurationError as error:
        assert secret.strip() not in str(error)
        assert error.__cause__ is None
    else:
        assert key is not None and secret not in repr(key)


@settings(max_examples=15, deadline=None)
@given(raw=st.integers(min_value=2**200, max_value=2**255).map(lambda n: n.to_bytes(32, "big")))
def test_it_hides_the_key_from_repr_str_format_and_pickle(raw: bytes) -> None:
    key = ServiceKey(raw)
    shown = " ".join([repr(key), str(key), f"{key}", f"{key!r}", repr([key]), repr({"k": key})])
    for form in (raw.hex(), raw.hex().upper(), str(int.from_bytes(raw, "big"))):
        assert form not in shown
    assert key.address in repr(key)
    assert not hasattr(key, "__dict__")
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(key)
    with pytest.raises(TypeError):
        copy.deepcopy(key)


def test_it_signs_transactions_that_recover_to_its_address(account) -> None:
    key = ServiceKey(account.key)
    transaction = {
        "to": "0x" + "00" * 20,
        "value": 1,
        "gas": 21_000,
        "maxFeePerGas": 2,
        "maxPriorityFeePerGas": 1,
        "nonce": 3,
        "chainId": 8453,
        "type": 2,
    }
    signed = key.sign_transaction(transaction)
    assert Account.recover_transaction(signed.raw_transaction) == account.address
