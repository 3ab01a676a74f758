"""The published JSON Schemas of every state file, the config, the agent report, the decision
document (PRD) and the decision record's JSON form.

The pydantic models are the source of truth; `state_schema/<name>.schema.json` is generated from
them, checked in, and a test fails when the two drift. This module also owns the map from a
file under `.claude/deliberation/` to the schema it must satisfy (`schema_for_path`), which
`deliberation doctor` uses.

    python -m deliberation.state.schemas            regenerate state_schema/
    python -m deliberation.state.schemas --check    exit 1 and name every file that drifted
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
from typing import Any

from deliberation import plugin_root

SCHEMA_DIR = os.path.join(plugin_root(), "state_schema")
DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://deliberation.invalid/state_schema/"  # a name, never fetched

# schema name → (module, model)
MODELS: "dict[str, tuple[str, str]]" = {
    "session": ("deliberation.state.models", "SessionState"),
    "lineage": ("deliberation.state.models", "Lineage"),
    "deliberation": ("deliberation.state.models", "Deliberation"),
    "escalations": ("deliberation.state.models", "EscalationIndex"),
    "reversals": ("deliberation.state.models", "ReversalRegistry"),
    "adjudication": ("deliberation.state.models", "Adjudication"),
    "event": ("deliberation.state.models", "EventRecord"),
    "journal": ("deliberation.state.models", "CommitJournal"),
    "pending_prompt": ("deliberation.state.models", "PendingPrompt"),
    "switch": ("deliberation.state.models", "SessionSwitch"),
    "agent_report": ("deliberation.state.agent_report", "AgentReport"),
    "prd": ("deliberation.state.decision_document", "DecisionDocument"),
    "decision_record": ("deliberation.state.record_model", "DecisionRecord"),
    "config": ("deliberation.state.config", "Config"),
}

# a file under the state dir (glob relative to it, '/' separated) → (schema name, one JSON value per line)
STATE_FILES: "tuple[tuple[str, str, bool], ...]" = (
    ("config.json", "config", False),
    ("reversals.json", "reversals", False),
    ("escalations.json", "escalations", False),
    ("adjudications.jsonl", "adjudication", True),
    ("sessions/*/session.json", "session", False),
    ("sessions/*/lineage.json", "lineage", False),
    ("sessions/*/events.jsonl", "event", True),
    ("sessions/*/commit.journal", "journal", False),
    ("sessions/*/prompt.json", "pending_prompt", False),
    ("sessions/*/switch.json", "switch", False),
    ("deliberations/*.json", "deliberation", False),
)

DESCRIPTIONS = {
    "session": "A session's state: .claude/deliberation/sessions/<session_id>/session.json",
    "lineage": "A session's spawn tree: .claude/deliberation/sessions/<session_id>/lineage.json",
    "deliberation": "One deliberation: .claude/deliberation/deliberations/<deliberation_id>.json",
    "escalations": "Open escalations awaiting a person: .claude/deliberation/escalations.json",
    "reversals": "Known-reversal registry (commit it): .claude/deliberation/reversals.json",
    "adjudication": "One line of .claude/deliberation/adjudications.jsonl",
    "event": "One line of .claude/deliberation/sessions/<session_id>/events.jsonl",
    "journal": "A session transaction's redo journal: .claude/deliberation/sessions/<session_id>/commit.journal",
    "switch": "A session's off switch: .claude/deliberation/sessions/<session_id>/switch.json",
    "pending_prompt": "The turn's prompt, kept until the turn ends or a deliberation opens: .claude/deliberation/sessions/<session_id>/prompt.json",
    "agent_report": "The fenced JSON report that ends every deliberation subagent's final message",
    "prd": "The decision document (PRD): the fenced JSON block that ends the main agent's concluding answer once the vote has passed",
    "decision_record": "The decision record as structured data: `deliberation report ID --format json`",
    "config": "User configuration: .claude/deliberation/config.json",
}


def model(name: str) -> Any:
    import importlib

    module, cls = MODELS[name]
    return getattr(importlib.import_module(module), cls)


def file_name(name: str) -> str:
    return f"{name}.schema.json"


def build_schema(name: str) -> dict:
    """The JSON Schema of one model, with dialect, id and a description of the file."""
    body = model(name).model_json_schema(mode="validation")
    head = {"$schema": DIALECT, "$id": ID_BASE + file_name(name), "title": body.pop("title", name)}
    if "description" not in body:
        head["description"] = DESCRIPTIONS[name]
    else:
        head["description"] = f"{DESCRIPTIONS[name]}. {body.pop('description')}"
    return {**head, **body}


def render(schema: dict) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def all_schemas() -> "dict[str, str]":
    """file name → rendered schema, for every model."""
    return {file_name(name): render(build_schema(name)) for name in MODELS}


def drift(directory: str = SCHEMA_DIR) -> "list[str]":
    """One line per schema file that is missing, stale or unknown in `directory`."""
    problems = []
    expected = all_schemas()
    for fname, text in expected.items():
        path = os.path.join(directory, fname)
        try:
            with open(path, encoding="utf-8") as fh:
                current = fh.read()
        except FileNotFoundError:
            problems.append(f"{fname}: missing")
            continue
        if current != text:
            problems.append(f"{fname}: differs from the models")
    if os.path.isdir(directory):
        for fname in sorted(os.listdir(directory)):
            if fname.endswith(".schema.json") and fname not in expected:
                problems.append(f"{fname}: no model generates it")
    return problems


def write_all(directory: str = SCHEMA_DIR) -> "list[str]":
    """(Re)write every schema file that changed; remove generated files no model backs."""
    os.makedirs(directory, exist_ok=True)
    changed = []
    expected = all_schemas()
    for fname, text in expected.items():
        path = os.path.join(directory, fname)
        try:
            with open(path, encoding="utf-8") as fh:
                if fh.read() == text:
                    continue
        except FileNotFoundError:
            pass
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        changed.append(fname)
    for fname in sorted(os.listdir(directory)):
        if fname.endswith(".schema.json") and fname not in expected:
            os.unlink(os.path.join(directory, fname))
            changed.append(fname)
    return changed


def load_schema(name: str, directory: str = SCHEMA_DIR) -> dict:
    """The checked-in schema, or the one generated from the model when the file is absent
    (an installed package without the plugin folder)."""
    try:
        with open(os.path.join(directory, file_name(name)), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return build_schema(name)


def validator(name: str, directory: str = SCHEMA_DIR) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name, directory))


def _leaf(err: Any) -> Any:
    """The sub-error that says what is wrong: `x | None` becomes anyOf, whose own message
    ("... is not valid under any of the given schemas") names nothing."""
    from jsonschema.exceptions import best_match

    while err.context:
        non_null = [e for e in err.context if e.validator != "type" or e.validator_value != "null"]
        err = best_match(non_null or err.context)
    return err


def explain(validator: Any, doc: object) -> "list[str]":
    """One line per violation, '/json/pointer: message', sorted by location."""
    lines = []
    for err in validator.iter_errors(doc):
        leaf = _leaf(err)
        where = "/" + "/".join(str(p) for p in leaf.absolute_path)
        lines.append(f"{where}: {leaf.message[:200]}")
    return sorted(lines)


def schema_for_path(rel: str) -> "tuple[str, bool] | None":
    """(schema name, jsonl?) for a path relative to the state dir, None for files without one."""
    rel = rel.replace(os.sep, "/")
    for pattern, name, jsonl in STATE_FILES:
        if fnmatch.fnmatchcase(rel, pattern) and rel.count("/") == pattern.count("/"):
            return name, jsonl
    return None


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deliberation.state.schemas", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report drift, write nothing")
    parser.add_argument("--dir", default=SCHEMA_DIR, help="schema directory (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.check:
        problems = drift(args.dir)
        for line in problems:
            print(f"schema drift: {line}")
        if problems:
            print("regenerate with: python -m deliberation.state.schemas", file=sys.stderr)
        return 1 if problems else 0
    changed = write_all(args.dir)
    print(f"{len(changed)} schema file(s) written in {args.dir}" + (": " + ", ".join(changed) if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
