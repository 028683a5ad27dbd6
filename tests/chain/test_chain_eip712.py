"""EIP-712 submissions and attestations: round trips, tampering, domains and an independent hash."""

from __future__ import annotations

import json
from dataclasses import fields, replace

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from signing.canonical import canonical_digest, canonical_keccak
from signing.eip712 import (
    Domain,
    InvalidSignature,
    ProviderSummary,
    SubmissionRejected,
    TrustScoreAttestation,
    check_provider_summary,
    parse_typed_data,
    recover_signer,
    score_to_units,
    sign,
    typed_data,
    verify,
)
from signing.keys import ServiceKey

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
UINT256 = st.integers(min_value=0, max_value=2**256 - 1)
TEXT = st.text(min_size=1, max_size=40)
DIGEST = st.binary(min_size=32, max_size=32)
KEYS = st.integers(min_value=1, max_value=SECP256K1_N - 1).map(lambda n: n.to_bytes(32, "big"))
ADDRESSES = st.binary(min_size=20, max_size=20).map(lambda raw: "0x" + raw.hex())
DOMAINS = st.builds(Domain, chain_id=st.integers(1, 2**64), verifying_contract=st.none() | ADDRESSES)
SUMMARIES = st.builds(
    ProviderSummary, provider=TEXT, agent_id=TEXT, body_digest=DIGEST, nonce=UINT256, deadline=UINT256
)


@st.composite
def attestations(draw: st.DrawFn) -> TrustScoreAttestation:
    issued = draw(st.integers(0, 2**64))
    return TrustScoreAttestation(
        agent_id=draw(TEXT),
        score=draw(st.integers(0, 10_000)),
        trust_scores_digest=draw(DIGEST),
        config_version=draw(UINT256),
        inputs_digest=draw(DIGEST),
        issued_at=issued,
        expires_at=issued + draw(st.integers(1, 2**32)),
    )


MESSAGES = SUMMARIES | attestations()
FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(message=MESSAGES, domain=DOMAINS, key=KEYS)
def test_it_recovers_the_signer_of_any_message(message, domain, key) -> None:
    signer = Account.from_key(key)
    signature = sign(message, domain, signer)
    assert recover_signer(message, domain, signature) == signer.address
    assert verify(message, domain, "0x" + signature.hex(), signer.address.lower())
    assert sign(message, domain, ServiceKey(key)) == signature


def _tampered(value: object) -> object:
    if isinstance(value, bytes):
        return bytes([value[0] ^ 1]) + value[1:]
    if isinstance(value, str):
        return value + "x"
    assert isinstance(value, int)
    return value + 1 if value < 10_000 else value - 1


@FAST
@given(message=MESSAGES, domain=DOMAINS, key=KEYS, data=st.data())
def test_it_fails_verification_when_any_field_is_tampered(message, domain, key, data) -> None:
    signer = Account.from_key(key)
    signature = sign(message, domain, signer)
    name = data.draw(st.sampled_from([field.name for field in fields(message)]))
    if name == "expires_at" or (name == "issued_at" and isinstance(message, TrustScoreAttestation)):
        # Keep the attestation valid: move the whole window instead of breaking its order.
        tampered = replace(message, issued_at=message.issued_at + 1, expires_at=message.expires_at + 1)
    else:
        tampered = replace(message, **{name: _tampered(getattr(message, name))})
    assert tampered != message
    assert not verify(tampered, domain, signature, signer.address)


@FAST
@given(message=MESSAGES, domain=DOMAINS, key=KEYS, other_chain=st.integers(1, 2**64))
def test_it_binds_the_signature_to_its_domain(message, domain, key, other_chain) -> None:
    signer = Account.from_key(key)
    signature = sign(message, domain, signer)
    if other_chain != domain.chain_id:
        assert not verify(message, replace(domain, chain_id=other_chain), signature, signer.address)
    assert not verify(message, replace(domain, name="SomethingElse"), signature, signer.address)
    assert not verify(message, replace(domain, version="2"), signature, signer.address)


@FAST
@given(message=MESSAGES, domain=DOMAINS, key=KEYS)
def test_it_refuses_the_malleable_twin_of_a_signature(message, domain, key) -> None:
    signature = sign(message, domain, key)
    r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64]
    twin = r + (SECP256K1_N - s).to_bytes(32, "big") + bytes([55 - v])
    with pytest.raises(InvalidSignature, match="malleable"):
        recover_signer(message, domain, twin)


def _encode_type(name: str, members: list[dict[str, str]]) -> bytes:
    return f"{name}({','.join(m['type'] + ' ' + m['name'] for m in members)})".encode()


def _encode_value(kind: str, value: object) -> bytes:
    if kind == "string":
        assert isinstance(value, str)
        return keccak(value.encode())
    if kind == "bytes32":
        assert isinstance(value, str)
        return bytes.fromhex(value[2:])
    if kind == "address":
        assert isinstance(value, str)
        return bytes(12) + bytes.fromhex(value[2:])
    assert isinstance(value, int)
    return value.to_bytes(32, "big")


def _struct_hash(name: str, members: list[dict[str, str]], values: dict[str, object]) -> bytes:
    encoded = b"".join(_encode_value(m["type"], values[m["name"]]) for m in members)
    return keccak(keccak(_encode_type(name, members)) + encoded)


@FAST
@given(message=MESSAGES, domain=DOMAINS)
def test_it_hashes_as_the_eip712_text_prescribes(message, domain) -> None:
    """An independent hashStruct/encodeData from the EIP-712 text must give eth-account's digest."""
    document = typed_data(message, domain)
    domain_hash = _struct_hash("EIP712Domain", document["types"]["EIP712Domain"], document["domain"])
    primary = document["primaryType"]
    message_hash = _struct_hash(primary, document["types"][primary], document["message"])
    expected = keccak(b"\x19\x01" + domain_hash + message_hash)
    signable = encode_typed_data(full_message=document)
    assert keccak(b"\x19" + signable.version + signable.header + signable.body) == expected


SAFE_INTEGERS = st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1)


@settings(max_examples=60, deadline=None)
@given(
    body=st.dictionaries(st.text(max_size=8), SAFE_INTEGERS | st.text(max_size=8) | st.booleans(), max_size=6)
)
def test_it_digests_bodies_independently_of_key_order(body) -> None:
    reordered = dict(reversed(list(body.items())))
    for digest in (canonical_digest, canonical_keccak):
        assert digest(reordered) == digest(body)
        assert digest({**body, "extra-key-not-in-body": 1}) != digest(body)


@pytest.mark.parametrize("digest", [canonical_digest, canonical_keccak])
@pytest.mark.parametrize("value", [2**53, float("nan"), float("inf")])
def test_it_refuses_bodies_without_a_canonical_form(digest, value: object) -> None:
    with pytest.raises(ValueError, match="RFC 8785"):
        digest({"totalChecks": value})


def test_it_binds_the_canonical_body_to_the_submission() -> None:
    key = Account.create()
    domain = Domain(chain_id=8453)
    summary = ProviderSummary.for_body(
        "tp", "agent-1", {"allowRate": 0.9, "totalChecks": 10}, nonce=7, deadline=200
    )
    signature = sign(summary, domain, key)
    same_body = ProviderSummary.for_body(
        "tp", "agent-1", {"totalChecks": 10, "allowRate": 0.90}, nonce=7, deadline=200
    )
    other_body = ProviderSummary.for_body(
        "tp", "agent-1", {"totalChecks": 11, "allowRate": 0.9}, nonce=7, deadline=200
    )
    assert verify(same_body, domain, signature, key.address)
    assert not verify(other_body, domain, signature, key.address)


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("unsigned", "unsigned"),
        ("garbage", "bad-signature"),
        ("stranger", "wrong-signer"),
        ("late", "expired"),
        ("far", "deadline-too-far"),
    ],
)
def test_it_rejects_bad_submissions_with_a_reason(case: str, reason: str) -> None:
    provider, stranger = Account.create(), Account.create()
    domain = Domain(chain_id=8453)
    now = 1_000
    deadline = {"late": now - 1, "far": now + 7200}.get(case, now + 60)
    summary = ProviderSummary.for_body("tp", "agent-1", {"totalChecks": 1}, nonce=1, deadline=deadline)
    signature: bytes | None = sign(summary, domain, stranger if case == "stranger" else provider)
    if case == "unsigned":
        signature = None
    elif case == "garbage":
        signature = b"\x01" * 65
    with pytest.raises(SubmissionRejected) as caught:
        check_provider_summary(summary, domain, signature, allowed_signers=[provider.address], now=now)
    assert caught.value.reason == reason


def test_it_accepts_a_good_submission_and_returns_the_signer() -> None:
    provider = Account.create()
    domain = Domain(chain_id=84532, verifying_contract="0x" + "12" * 20)
    summary = ProviderSummary.for_body("tp", "agent-1", {"totalChecks": 1}, nonce=1, deadline=1_060)
    signature = sign(summary, domain, provider.key)
    signer = check_provider_summary(
        summary, domain, signature, allowed_signers=[provider.address.lower()], now=1_000
    )
    assert signer == provider.address


def test_it_scales_scores_to_hundredths_half_up() -> None:
    assert [score_to_units(value) for value in (0, "87.125", 87.124, 99.995, 100)] == [
        0,
        8713,
        8712,
        10000,
        10000,
    ]
    for bad in (-0.01, 100.01, "nan", "abc"):
        with pytest.raises(ValueError):
            score_to_units(bad)


def test_it_builds_attestations_from_scores() -> None:
    attestation = TrustScoreAttestation.for_score(
        "agent-1",
        72.345,
        {"total": 72.35, "output-verification.quality": 80.0},
        config_version=4,
        inputs_digest=keccak(b"inputs"),
        issued_at=1_000,
        ttl_seconds=3_600,
    )
    assert (attestation.score, attestation.config_version, attestation.expires_at) == (7235, 4, 4_600)
    assert attestation.trust_scores_digest == keccak(b'{"output-verification.quality":80,"total":72.35}')
    assert (
        attestation.is_current(1_000) and attestation.is_current(4_599) and not attestation.is_current(4_600)
    )
    with pytest.raises(ValueError, match="expires_at"):
        replace(attestation, expires_at=1_000)
    with pytest.raises(ValueError, match="at most 10000"):
        replace(attestation, score=10_001)


@settings(max_examples=50, deadline=None)
@given(message=MESSAGES, domain=DOMAINS)
def test_it_parses_published_typed_data_back(message, domain) -> None:
    document = json.loads(json.dumps(typed_data(message, domain)))
    assert parse_typed_data(document) == (message, domain)


@pytest.mark.parametrize("change", ["primary", "reordered", "retyped", "missing"])
def test_it_refuses_typed_data_that_is_not_ours(change: str) -> None:
    message = TrustScoreAttestation("a", 1, b"\x01" * 32, 1, b"\x02" * 32, 10, 20)
    document = typed_data(message, Domain(8453))
    members = document["types"]["TrustScoreAttestation"]
    if change == "primary":
        document["primaryType"] = "Other"
    elif change == "reordered":
        members[0], members[1] = members[1], members[0]
    elif change == "retyped":
        members[1] = {"name": "score", "type": "int256"}
    else:
        del document["message"]["inputsDigest"]
    with pytest.raises(ValueError):
        parse_typed_data(document)
