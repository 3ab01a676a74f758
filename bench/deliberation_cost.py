"""What a deliberation costs, on both paths, through the real Claude Code client:
`python bench/deliberation_cost.py` (bench/README.md and docs/PERFORMANCE.md give the figures).

The same scripted 9-agent deliberation runs against the Messages-API stand-in
(tests/e2e/fake_api.py) in a project wired by install.sh, as the plugin's workflow (one Workflow
call) and through the per-turn protocol, and the same model answers alone in a project without
the plugin; every scripted agent answers at once, so the figures are the orchestration's cost.
Printed per path: the main agent's requests and request bytes, all agents' request bytes, the
main agent's share, the multiple of the single answer, and the record's cost line. Targets:
main agent ≤ 4 requests and ≤ 25 % of the bytes (workflow), ≤ 5× a single answer. Without the
client (`$CLAUDE_BIN` or scripts/install_claude_client.sh) this part is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import benchkit
from benchkit import Target, table

REPO = Path(__file__).resolve().parent.parent
MAIN_REQUESTS_TARGET = 4
MAIN_SHARE_TARGET = 0.25
MULTIPLE_TARGET = 5.0
DRAFTING = "Phase: decision document of deliberation "  # the drafter's material (core/drafting.py)
OUTCOME_END = "The deliberation closes when you stop."  # the last line of the main agent's short outcome


def figures(run) -> dict:
    """Requests and request bytes of one run, the main agent's and everyone's."""
    agents = [r for r in run.log.requests if not r.is_side_request]
    size = {id(r): len(json.dumps(r.body)) for r in agents}
    mains = [r for r in agents if r.is_main_agent]
    main_bytes = sum(size[id(r)] for r in mains)
    total = sum(size.values())
    drafter = [r for r in agents if DRAFTING in r.agent_prompt]
    told = [r.new_text for r in mains if OUTCOME_END in r.new_text and " decided. " in r.new_text]
    outcome = ""
    if told:
        text = told[-1]
        start = text.rfind("Deliberation ", 0, text.index(" decided. "))
        outcome = text[start : text.index(OUTCOME_END, start) + len(OUTCOME_END)]
    return {
        "drafter_material": len(drafter[-1].agent_prompt.encode()) if drafter else 0,
        "outcome": len(outcome.encode()),
        "main_requests": len(mains),
        "main_bytes": main_bytes,
        "requests": len(agents),
        "bytes": total,
        "subagent_requests": len(agents) - len(mains),
        "share": main_bytes / total if total else 0.0,
    }


ALONE = (
    "Decision: A (per-node price cache with a 30 s TTL and invalidation events). It removes the pricing "
    "database from the checkout hot path; the stale window is bounded by the TTL and the invalidation events; "
    "the replicas it saves pay for the cache."
)


def single_agent(req):
    """The same model answering the question alone, at once (as every scripted agent answers)."""
    return "Scripted" if req.is_side_request else ALONE


def protocol_scenario(scenarios_gates, scenarios_workflow, drafter: bool = False):
    sg = scenarios_gates
    waves = (
        sg.Wave("research", sg.PANEL),
        sg.Wave("deliberation", ("synthesis-lead", "debate-moderator")),
        sg.Wave("deliberation", ("red-team",)),
        sg.Wave("ranking", sg.PANEL),
    )
    reports = sg.standard_reports()
    reports[("debate-moderator", "deliberation")] = scenarios_workflow.DEBATE
    return (sg.DrafterDeliberation if drafter else sg.StagedDeliberation)(reports, waves)


def run(out=sys.stdout) -> "list[Target]":
    if (claude := benchkit.client_or_skip("Cost of a deliberation through the real client", out)) is None:
        return []
    fake_api, harness, sg, sw = benchkit.e2e_modules("fake_api", "harness", "scenarios_gates", "scenarios_workflow")
    api = fake_api.FakeApi().start()
    results: dict = {}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-cost-") as tmp:
            base = Path(tmp)
            venv = harness.hook_python_prefix(base / "hooks-venv")
            for name in ("workflow", "protocol", "protocol+drafter", "alone"):
                for sub in ("project", "home", "tmp"):
                    (base / name / sub).mkdir(parents=True)
            for name in ("workflow", "protocol", "protocol+drafter"):
                harness.install_into_project(base / name / "project", venv)
                sg.write_config(base / name / "project", {})
            agents = base / "alone" / "project" / ".claude" / "agents"
            shutil.copytree(REPO / "agents", agents)
            scenarios = {
                "workflow": sw.WorkflowDeliberation(sg.QUESTION, "install"),
                "protocol": protocol_scenario(sg, sw),
                "protocol+drafter": protocol_scenario(sg, sw, drafter=True),
                "alone": single_agent,
            }
            tools = {
                "workflow": "Agent Read Workflow",
                "protocol": "Agent Read",
                "protocol+drafter": "Agent Read",
                "alone": "Agent Read",
            }
            for name, scenario in scenarios.items():
                r = harness.run_claude_once(
                    claude,
                    api,
                    base / name / "project",
                    base / name / "home",
                    base / name / "tmp",
                    sg.PROMPT,
                    scenario,
                    allowed_tools=tools[name],
                    timeout=240,
                )
                if r.returncode != 0:
                    raise RuntimeError(f"the {name} run failed:\n{r.describe()}")
                results[name] = {**figures(r), "record": _record(r) if name != "alone" else None}
    finally:
        api.stop()
    alone = results["alone"]["bytes"]
    rows = []
    for name in ("workflow", "protocol", "protocol+drafter"):
        f = results[name]
        f["multiple"] = f["bytes"] / alone
        rows.append(
            [
                f"{name}",
                str(f["main_requests"]),
                f"{f['main_bytes'] / 1000:.0f} KB",
                f"{f['subagent_requests']}",
                f"{f['bytes'] / 1000:.0f} KB",
                f"{f['share']:.0%}",
                f"{f['multiple']:.1f}×",
            ]
        )
    a = results["alone"]
    rows.append(
        [
            "one agent answering alone (no plugin)",
            str(a["main_requests"]),
            f"{a['main_bytes'] / 1000:.0f} KB",
            "0",
            f"{a['bytes'] / 1000:.0f} KB",
            "100%",
            "1.0×",
        ]
    )
    version = subprocess.run([str(claude), "--version"], capture_output=True, text=True).stdout.split()[:1]
    print(
        f"\nCost of one deliberation (Claude Code {' '.join(version)}), the same scripted 9-agent deliberation "
        "on both paths; request bytes = the JSON bodies the stand-in received",
        file=out,
    )
    print(
        table(
            ["path", "main requests", "main bytes", "subagent requests", "all request bytes", "main share", "× one agent"], rows
        ),
        file=out,
    )
    for name in ("workflow", "protocol", "protocol+drafter"):
        f = results[name]
        if f["drafter_material"]:
            print(
                f"{name} — the drafter's material: {f['drafter_material']:,} bytes; the main agent's outcome: {f['outcome']:,} bytes",
                file=out,
            )
    for name in ("workflow", "protocol", "protocol+drafter"):
        rec = results[name]["record"]
        if rec:
            print(f"{name} — the decision record's cost line: {rec}", file=out)
    w = results["workflow"]
    return [
        Target(
            "deliberation as a workflow: main-agent requests",
            str(w["main_requests"]),
            f"≤ {MAIN_REQUESTS_TARGET}",
            w["main_requests"] <= MAIN_REQUESTS_TARGET,
        ),
        Target(
            "deliberation as a workflow: main agent's share of request bytes",
            f"{w['share']:.0%}",
            f"≤ {MAIN_SHARE_TARGET:.0%}",
            w["share"] <= MAIN_SHARE_TARGET,
        ),
        Target(
            "deliberation as a workflow: × one agent's answer (request bytes)",
            f"{w['multiple']:.1f}×",
            f"≤ {MULTIPLE_TARGET:.0f}×",
            w["multiple"] <= MULTIPLE_TARGET,
        ),
    ]


def _record(run) -> str:
    done = [d for d in run.deliberations() if d.get("record")]
    if not done:
        return "(no record: the deliberation did not complete)"
    return done[-1]["record"]["usage"]["summary"]


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.parse_args(argv)
    benchkit.setup_paths()
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
