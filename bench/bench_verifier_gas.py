"""Gas of the on-chain verifier of the registry's signed scores (issue 21 item 5).

    python bench/bench_verifier_gas.py

Starts its own anvil (node_modules/.bin/anvil, after `npm ci`), deploys TrustScoreVerifier and the example
TrustGatedEscrow from contracts/build/, signs TrustScoreAttestations with the service's own signing code
(signing.eip712 and ServiceKey, the path GET …/trust-score/attestation takes) and measures:

* `requireMinScore` called directly in a transaction (eth_estimateGas, 21,000 intrinsic gas included)
  for agent ids of three lengths (the id is hashed on chain, so its length costs calldata and hashing);
* the same call made by a contract: `TrustGatedEscrow.release` (gasUsed of the mined transaction, which
  includes the ether transfer and clearing the deposit) and `deposit`;
* a refused call (score below the minimum): what a failed check costs the caller;
* deployment of both contracts.

Gas is deterministic for a given compiler output and EVM version (cancun), so the machine's load does
not change these figures. Prints a markdown table; writes bench/results/verifier_gas.json.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from eth_account import Account  # noqa: E402
from eth_account.signers.local import LocalAccount  # noqa: E402
from web3 import Web3  # noqa: E402
from web3.exceptions import ContractCustomError  # noqa: E402

from signing.chain.anvil import start_anvil  # noqa: E402
from signing.chain.artifacts import load_artifact  # noqa: E402
from signing.chain.deploy import deploy_contract  # noqa: E402
from signing.chain.tx import next_nonce, send_transaction, suggest_fees, wait_for_receipt  # noqa: E402
from signing.chain.verifier import (  # noqa: E402
    TrustScoreVerifierClient,
    attestation_arguments,
    decode_custom_error,
    deploy_verifier,
)
from signing.eip712 import Domain, TrustScoreAttestation, typed_data  # noqa: E402
from signing.keys import ServiceKey  # noqa: E402

CHAIN_ID = 8453
AGENT_IDS = {
    "short (10 chars)": "demo:agent",
    "ERC-8004 CAIP-10 style (63 chars)": "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432:123456",
    "long (200 chars)": "a" * 200,
}


def _document(key: ServiceKey, agent_id: str, score: float, issued_at: int) -> dict[str, Any]:
    """The attestation document exactly as the service builds it (attestations/services/scores.py)."""
    message = TrustScoreAttestation.for_score(
        agent_id,
        score,
        {"total": score, "output-verification": score},
        config_version=1,
        inputs_digest=bytes(32),
        issued_at=issued_at,
        ttl_seconds=86_400,
    )
    document = typed_data(message, Domain(chain_id=CHAIN_ID))
    return {
        "typedData": document,
        "signature": "0x" + key.sign_typed_data(document).hex(),
        "signer": key.address,
    }


def _fund(w3: Web3, address: str) -> None:
    w3.provider.make_request("anvil_setBalance", [address, hex(Web3.to_wei(100, "ether"))])  # type: ignore[arg-type]


def _send(w3: Web3, account: LocalAccount, call: Any, value: int = 0) -> Any:
    params: dict[str, Any] = {
        "from": account.address,
        "nonce": next_nonce(w3, account.address),
        "chainId": w3.eth.chain_id,
        "type": 2,
        "value": value,
        **suggest_fees(w3).as_params(),
    }
    params["gas"] = call.estimate_gas(params) * 125 // 100
    return wait_for_receipt(w3, send_transaction(w3, account, call.build_transaction(params)))


def main() -> None:
    node = start_anvil(chain_id=CHAIN_ID)
    try:
        w3 = Web3(Web3.HTTPProvider(node.rpc_url, request_kwargs={"timeout": 30}))
        deployer: LocalAccount = Account.create()
        payer: LocalAccount = Account.create()
        payee: LocalAccount = Account.create()
        for account in (deployer, payer, payee):
            _fund(w3, account.address)
        key = ServiceKey("0x" + bytes(Account.create().key).hex())

        verifier_address = deploy_verifier(w3, deployer, signers=[key.address], chain_id=CHAIN_ID)
        verifier_deploy = _last_gas(w3)
        escrow_address = deploy_contract(w3, deployer, "TrustGatedEscrow", verifier_address, 7500, 3600)
        escrow_deploy = _last_gas(w3)
        verifier = TrustScoreVerifierClient(w3, verifier_address)
        escrow = w3.eth.contract(
            address=Web3.to_checksum_address(escrow_address), abi=load_artifact("TrustGatedEscrow").abi
        )

        w3.provider.make_request("evm_mine", [int(time.time())])  # type: ignore[arg-type]
        issued = int(w3.eth.get_block("latest")["timestamp"]) - 5
        rows: list[dict[str, Any]] = []
        for label, agent_id in AGENT_IDS.items():
            document = _document(key, agent_id, 87.25, issued)
            rows.append(
                {
                    "call": f"requireMinScore, agent id {label}",
                    "gas": verifier.estimate_gas(document, min_score=7500, max_age=3600),
                }
            )

        agent_id = AGENT_IDS["ERC-8004 CAIP-10 style (63 chars)"]
        deposit = _send(w3, payer, escrow.functions.deposit(agent_id, payee.address), value=10**18)
        rows.append({"call": "TrustGatedEscrow.deposit (63-char agent id)", "gas": int(deposit["gasUsed"])})
        good = _document(key, agent_id, 87.25, issued)
        released = _send(w3, payee, escrow.functions.release(0, *attestation_arguments(good)))
        rows.append(
            {
                "call": "TrustGatedEscrow.release: verify + pay (63-char agent id)",
                "gas": int(released["gasUsed"]),
            }
        )
        low = _document(key, agent_id, 60.0, issued)
        call = verifier.contract.functions.requireMinScore(*attestation_arguments(low), 7500, 3600)
        try:
            call.estimate_gas()
            raise SystemExit("a score below the minimum passed")
        except ContractCustomError as error:
            refused = decode_custom_error(str(error.data))
        # A reverted call's gas: what the node needs to reach the revert (eth_estimateGas refuses reverts,
        # so trace the call and read the gas it used).
        trace = w3.provider.make_request(
            "debug_traceCall",  # type: ignore[arg-type]
            [
                {"to": verifier_address, "data": call._encode_transaction_data()},
                "latest",
                {"disableStorage": True},
            ],
        )
        rows.append(
            {
                "call": f"requireMinScore refused ({refused.name}), gas up to the revert (traced)",
                "gas": int(trace["result"]["gas"]),
            }
        )
        rows.append({"call": "deploy TrustScoreVerifier (one signer)", "gas": verifier_deploy})
        rows.append({"call": "deploy TrustGatedEscrow", "gas": escrow_deploy})
    finally:
        node.stop()

    print("| call | gas |\n|---|---:|")
    for row in rows:
        print(f"| {row['call']} | {row['gas']:,} |")
    compiler = load_artifact("TrustScoreVerifier").compiler_version
    out = ROOT / "bench" / "results" / "verifier_gas.json"
    out.write_text(json.dumps({"compiler": compiler, "evmVersion": "cancun", "rows": rows}, indent=2) + "\n")


def _last_gas(w3: Web3) -> int:
    """gasUsed of the latest block's last transaction (anvil mines one block per transaction)."""
    (*_, last) = w3.eth.get_block("latest")["transactions"]
    assert isinstance(last, bytes)
    return int(w3.eth.get_transaction_receipt(last)["gasUsed"])


if __name__ == "__main__":
    main()
