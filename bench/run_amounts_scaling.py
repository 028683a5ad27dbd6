"""How ``verify_run`` grows with the number of amounts in one answer (issue 14, h24b).

    python bench/run_amounts_scaling.py                        # every shape, N = 500, 1000, 2000, 4000
    python bench/run_amounts_scaling.py --sizes 250,500 --shapes kinds,refunds
    python bench/run_amounts_scaling.py --profile kinds:2000   # the top functions of one case (cProfile)

Each shape is one long answer of N amounts against a fixed run (a few results of priced records), built
so that its amounts reach one of the arithmetic checks of ``grounding.ground_answer``:

- ``sentences``: "Item i costs $x in total." (the told totals, ``own_lists``);
- ``lines``: "- Item i: $x total";
- ``one``: every amount in one sentence;
- ``kinds``: "Order Wi contained 2 grills with a total price of $x." (``_kind_total``: a count, then a total);
- ``refunds``: "Your refund of $x is on its way." against results that record refunds (``_refunds_total``);
- ``named``: one line per amount, "Total refunds for order i: $x" (``_named_total``);
- ``records``: amounts the records support, each sentence also with an unsupported total (``_context_facts``
  of many amounts from few records);
- ``aggregate``: a request for a total and bare numbers (``_computed_total``);
- ``gaps``: one sentence of "$x, which is $y over your $0.25 budget" (``own_lists.told_gap``, h25h);
- ``one-kinds``: one sentence of "order Wi had 2 grills with a total price of $x" (``_kind_total``, h25h).

Prints CPU seconds (``time.process_time``) per shape and size, or with ``--work`` the findings the
arithmetic look-ups read (``ground_answer(..., work=)``, independent of the load), and the growth ratio of
each doubling (2.0 is linear, 4.0 quadratic). A case over ``--cap`` seconds ends that shape's sizes. Run
from the repository root with ``TRUST_REGISTRY_PURE_PYTHON=1`` for the interpreted figures.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verification.engine.runs.config import RunVerifierConfig
from verification.engine.runs.verify import verify_run

# Long answers: the answer's character cap lifted (the service's caps would refuse most of these).
CONFIG = RunVerifierConfig(max_answer_chars=10_000_000, max_total_chars=20_000_000)

SHAPES = (
    "sentences", "lines", "one", "kinds", "refunds", "named", "records", "aggregate", "gaps", "one-kinds",
)  # fmt: skip


def _price(i: int) -> str:
    return f"${(i * 37) % 4999 + 1.25:,.2f}"


def _run(question: str, results: list[dict[str, Any]], answer: str) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": question}]
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        for i in range(len(results))
    ]
    msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
    for i, r in enumerate(results):
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(r)})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def _orders() -> dict[str, Any]:
    return {"orders": [{"id": f"W{i:05d}", "price": 10.0 + i, "fee": 2.5 * i} for i in range(30)]}


def build(shape: str, n: int) -> list[dict[str, Any]]:
    """The run of ``shape`` with an answer of ``n`` amounts."""
    question = "What do I owe?"
    results = [_orders()]
    if shape == "sentences":
        answer = "".join(f"Item {i} costs {_price(i)} in total. " for i in range(n))
    elif shape == "lines":
        answer = "".join(f"- Item {i}: {_price(i)} total\n" for i in range(n))
    elif shape == "one":
        answer = "Prices: " + ", ".join(f"{_price(i)} total" for i in range(n)) + "."
    elif shape == "kinds":
        items = [{"name": "Grill" if k % 2 else "Kettle", "price": 40.0 + 7 * k} for k in range(8)]
        results.append({"order_id": "W00001", "items": items})
        answer = "".join(
            f"Order W{i:05d} contained 2 grills with a total price of {_price(i)}. " for i in range(n)
        )
    elif shape == "refunds":
        history = [
            {"transaction_type": "refund" if k % 3 else "payment", "amount": 100.0 + k} for k in range(12)
        ]
        results.append({"payment_history": history})
        answer = "".join(f"Your refund of {_price(i)} for order W{i:05d} is on its way. " for i in range(n))
    elif shape == "named":
        answer = "".join(
            f"- Refund of {_price(2 * i)}\n- Total refunds for order {i}: {_price(2 * i + 1)}\n"
            for i in range(n // 2)
        )
    elif shape == "records":
        answer = "".join(
            f"Order W{i % 12:05d} costs ${10.0 + i % 12:.2f} and a fee of ${2.5 * (i % 12):.2f}, "
            f"{_price(i)} in total. "
            for i in range(n // 3)
        )
    elif shape == "aggregate":
        question = "What is the total cost of all of it?"
        answer = "".join(
            f"Order W{i % 12:05d} costs ${10.0 + i % 12:.2f}, "
            f"so option {i} comes to {(i * 37) % 4999 + 1.5}. "
            for i in range(n // 2)
        )
    elif shape == "gaps":
        # 200 priced orders and a budget: each gap is the price before it less the budget, which a sentence
        # without words of arithmetic leaves to told_gap (a difference of values is no support there).
        results = [{"orders": [{"id": f"W{i:05d}", "price": 10.0 + i} for i in range(200)]}, {"budget": 0.25}]
        answer = "Prices: " + ", ".join(
            f"${10 + i % 200:.2f}, which is ${9.75 + i % 200:.2f} over your $0.25 budget"
            for i in range(n // 3)
        )
        answer += "."
    elif shape == "one-kinds":
        items = [{"name": "Grill" if k % 2 else "Kettle", "price": 40.0 + 7 * k} for k in range(8)]
        results.append({"order_id": "W00001", "items": items})
        answer = "In all, " + ", ".join(
            f"order W{i:05d} had 2 grills with a total price of {_price(i)}" for i in range(n // 2)
        )
        answer += "."
    else:
        raise SystemExit(f"unknown shape {shape!r}; one of {', '.join(SHAPES)}")
    return _run(question, results, answer)


def seconds(shape: str, n: int) -> float:
    run = build(shape, n)
    t0 = time.process_time()
    verify_run(run, config=CONFIG)
    return time.process_time() - t0


def work(shape: str, n: int) -> float:
    """The findings the arithmetic look-ups of ``ground_answer`` read (``work=``): work, not time."""
    from verification.engine.runs.evidence import build_evidence
    from verification.engine.runs.grounding import ground_answer
    from verification.engine.runs.messages import parse_run

    run = parse_run(build(shape, n), config=CONFIG)
    counted: list[int] = []
    ground_answer(run.answer, build_evidence(run), work=counted)
    return float(counted[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="500,1000,2000,4000")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--cap", type=float, default=60.0, help="stop a shape after a case over this many s")
    ap.add_argument("--profile", default="", help="SHAPE:N: print the top functions of that case")
    ap.add_argument("--work", action="store_true", help="count the findings read, not CPU seconds")
    args = ap.parse_args()
    if args.profile:
        shape, n = args.profile.split(":")
        run = build(shape, int(n))
        prof = cProfile.Profile()
        prof.runcall(verify_run, run, config=CONFIG)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| shape | " + " | ".join(f"N = {n:,}" for n in sizes) + " | growth per doubling |")
    print("|---|" + "---:|" * (len(sizes) + 1))
    for shape in args.shapes.split(","):
        times: list[float] = []
        for n in sizes:
            times.append(work(shape, n) if args.work else seconds(shape, n))
            if not args.work and times[-1] > args.cap:
                break
        ratios = [b / a for a, b in pairwise(times) if a > 0]
        cells = [f"{t:,.0f}" if args.work else f"{t:.2f}" for t in times] + ["-"] * (len(sizes) - len(times))
        growth = ", ".join(f"{r:.1f}" for r in ratios)
        print(f"| {shape} | " + " | ".join(cells) + f" | {growth} |", flush=True)


if __name__ == "__main__":
    main()
