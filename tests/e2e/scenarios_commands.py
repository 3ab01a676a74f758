"""The slash command as users type it in each install form: `/deliberate Q` in the install
form, `/deliberation:deliberate Q` in the plugin form (`--plugin-dir`, a marketplace install).

`CommandAsked`: the main agent runs the research wave the protocol asks for (two personas, in
the foreground) and then answers with text, as often as a hold asks. `assert_command_forced`
checks what each form must show: the prompt hook forced a deliberation, the protocol's question
line and the deliberation's stored question are the user's words without the command, and the
command body the model read is the one of its form (its status command named as it exists
there, never install.sh in the plugin form).
"""

from __future__ import annotations

from fake_api import ApiRequest, ReplyLike
from harness import ClaudeRun, agent_type
from scenarios import PersonaPanel, report

QUESTION = "Should the billing service switch its request logging to structured JSON lines?"
RESEARCH = ("security-analyst", "performance-engineer")


def command_prompt(form: str) -> str:
    """What the user types: the command as the client names it in that form."""
    return ("/deliberate " if form == "install" else "/deliberation:deliberate ") + QUESTION


class CommandAsked(PersonaPanel):
    question = QUESTION
    final_text = "The research wave is in; the deliberation goes on."

    def __init__(self, mode: str) -> None:
        super().__init__(
            {slug: report(phase="research") for slug in RESEARCH},
            {slug: agent_type(slug, mode) for slug in RESEARCH},
            background=False,
        )

    def persona_prompt(self, slug: str) -> str:
        return f"PERSONA: {slug}\nPhase: research\nQuestion: {self.question}\nEnd with one fenced JSON report."

    def main_after_reports(self, req: ApiRequest) -> ReplyLike:
        return self.final_text


def assert_command_forced(run: ClaudeRun, mode: str) -> None:
    info = run.describe()
    prompts = [e for e in run.events() if e.get("event") == "UserPromptSubmit"]
    assert prompts, info
    context = (prompts[0].get("answer") or {}).get("context") or ""
    assert context.startswith("DELIBERATION PROTOCOL"), (prompts[0], info)
    assert f"\nQuestion: {QUESTION}\n" in context, context
    status = "/deliberation-status" if mode == "install" else "/deliberation:deliberation-status"
    assert f"{status} shows progress" in context, context
    (d,) = [d for d in run.deliberations() if d.get("session_id") == run.session_id]
    assert d["question"] == QUESTION and d["trigger_forced"] is True, (d["question"], d.get("trigger_forced"))
    first = run.main_requests[0]
    said = first.all_text
    if mode == "install":
        assert f"Deliberate on this decision before acting on it: {QUESTION}" in said, info
        assert f"{status} shows its progress" in said, said[-3000:]
    else:
        # the plugin ships a workflow of the command's name, and 2.1.328 expands
        # /deliberation:deliberate to that workflow's call, not to commands/deliberate.md
        assert f'Invoke: Workflow({{ name: "deliberation:deliberate", args: "{QUESTION}" }})' in said, info
    if mode == "install":
        assert "/deliberation:" not in said, said[-3000:]
    else:
        assert "install.sh" not in said, said[-3000:]
