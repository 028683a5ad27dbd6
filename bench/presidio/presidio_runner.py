"""Microsoft Presidio on a JSONL file of texts, for bench/bench_presidio.py.

Runs in Presidio's own virtual environment (it needs spaCy and an English model, which the project does
not depend on), so it imports nothing of ours. Reads rows {"id", "text"}; writes one JSON document with
each row's detections [entity_type, start, end], its anonymised text (every detection replaced by
<ENTITY_TYPE>, as Presidio's anonymiser does by default) and the best CPU and wall time of one pass.

    presidio-venv/bin/python bench/presidio/presidio_runner.py rows.jsonl REPEATS LOOPS [SPACY_MODEL]

SPACY_MODEL is the installed spaCy package to load (default en_core_web_sm).
"""

from __future__ import annotations

import json
import sys
import time

from presidio_analyzer import AnalyzerEngine
from presidio_analyzer.nlp_engine import NlpEngineProvider
from presidio_anonymizer import AnonymizerEngine


def main() -> int:
    path, repeats, loops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    model = sys.argv[4] if len(sys.argv) > 4 else "en_core_web_sm"
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "en", "model_name": model}],
        }
    )
    analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
    anonymizer = AnonymizerEngine()

    def one_pass() -> list:
        return [analyzer.analyze(text=row["text"], language="en") for row in rows]

    found = one_pass()  # warm-up: lazy loading
    cpu, wall = [], []
    for _ in range(repeats):
        start_cpu, start = time.process_time(), time.perf_counter()
        for _ in range(loops):
            found = one_pass()
        cpu.append((time.process_time() - start_cpu) * 1000 / loops)
        wall.append((time.perf_counter() - start) * 1000 / loops)
    results = []
    for row, detections in zip(rows, found, strict=True):
        anonymised = anonymizer.anonymize(text=row["text"], analyzer_results=detections).text
        results.append(
            {
                "id": row["id"],
                "detections": [[d.entity_type, d.start, d.end] for d in detections],
                "redacted": anonymised,
            }
        )
    json.dump({"results": results, "cpu_ms": cpu, "elapsed_ms": wall}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
