"""The pieces of the project boundary, alone: which settings wait for approval (and that their
defaults are the config's), the seal, this user's folder and key, and which environment
variables the project's settings supplied."""

from __future__ import annotations

import json
import os
import stat

import pytest

from deliberation.state import consent, project_env, seal, user_data
from deliberation.state.config import Config
from deliberation.state.paths import Layout
from deliberation.text import consent as words


def _config_settings() -> "set[str]":
    """Every setting of `Config`, dotted: a section's fields, and the top-level ones."""
    c = Config()
    out = set()
    for name in Config.model_fields:
        sub = type(getattr(c, name))
        if hasattr(sub, "model_fields") and isinstance(getattr(c, name), type(c).__mro__[1]):
            out |= {f"{name}.{k}" for k in sub.model_fields}
        else:
            out.add(name)
    return out


def test_every_setting_of_the_config_is_classified():
    """A committed setting applies without consent only when a rule knows it tightens: a new
    setting of `Config` without a rule in state/consent.RULES fails here, and until it has one
    its committed values wait (consent.verdict)."""
    settings = _config_settings()
    missing = sorted(settings - set(consent.RULES))
    assert missing == [], f"classify these settings in state/consent.RULES (tightens / neutral / loosens): {missing}"
    assert sorted(set(consent.RULES) - settings) == []  # no rule for a setting that is gone
    assert set(consent.settings()) == settings  # the defaults' leaves are the config's settings
    assert consent.verdict("no.such.setting", 1) == consent.LOOSENS  # unclassified: waits
    c = Config().model_dump(mode="json")
    assert consent.requested(c) == []  # the defaults never wait
    for name in settings:  # the default of each is neutral
        assert consent.verdict(name, consent.get(c, name)) == consent.NEUTRAL, name


def test_docs_security_states_the_rule_of_every_setting():
    """docs/SECURITY.md, section 1, has one row per classified setting (what applies, what waits)."""
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "SECURITY.md").read_text(encoding="utf-8")
    missing = [n for n in consent.RULES if n != "schema_version" and f"| `{n}` |" not in text]
    assert missing == [], f"add a row to docs/SECURITY.md section 1 for: {missing}"


def test_the_person_is_told_why_each_loosening_setting_waits():
    """Every setting that can loosen has its reason in the person's words (text/consent.WHY)."""
    only_tighten_or_neutral = {
        "schema_version",
        "cost.prices",
        "deliberation.quiet_waiting",
        "deliberation.allow_read_only_agents",
        "conformity.blocking",
        "depth.max_lock",
        "retention.auto",
    }
    assert set(words.WHY) - {consent.ENV_OFF} == set(consent.RULES) - only_tighten_or_neutral


@pytest.mark.parametrize(
    "raw,names",
    [
        ({"trigger": {"force_markers": ["/deliberate", "DELIBERATE"]}}, []),
        ({"trigger": {"force_markers": ["/deliberate", "hi"]}}, ["trigger.force_markers"]),
        ({"trigger": {"force_markers": ["/deliberate"]}}, ["trigger.force_markers"]),  # DELIBERATE no longer forces
        ({"trigger": {"threshold": 0.7, "high_dimension": 0.6}}, []),
        ({"trigger": {"threshold": 0.5}}, ["trigger.threshold"]),  # fewer prompts deliberate
        ({"trigger": {"threshold": 0.9}}, ["trigger.threshold"]),  # more deliberations, billed to you
        ({"trigger": {"threshold": "high"}}, []),  # invalid: validation drops it, nothing waits
        ({"strict": False, "models": {"diverse": False}}, []),
        ({"escalation": {"probes": []}}, []),
        ({"spawn_budget": {"max_active_children": 13}}, ["spawn_budget.max_active_children"]),
        ({"spawn_budget": {"max_active_children": 4, "max_session_total": 20}}, []),  # fewer agents: tighter
        ({"trigger": {"extra_terms": {"stakes": {}}}}, []),
        ({"trigger": {"tool_net": "off"}}, ["trigger.tool_net"]),
        ({"trigger": {"tool_net": "ask"}}, []),
        ({"trigger": {"tool_net": "hold", "enabled": True, "self_rating": True}}, []),
        ({"trigger": {"tool_net": "note"}}, ["trigger.tool_net"]),  # the irreversible step would run unheld
        ({"trigger": {"enabled": False}}, ["trigger.enabled"]),
        ({"trigger": {"self_rating": False}}, ["trigger.self_rating"]),
        ({"trigger": {"enabled": 0, "self_rating": "no"}}, []),  # invalid: validation drops them
        ({"retention": {"max_age_days": 7}}, ["retention.max_age_days"]),
        ({"retention": {"max_total_mb": 10}}, ["retention.max_total_mb"]),
        ({"retention": {"auto": False, "max_age_days": 365, "max_total_mb": 100}}, []),
        # loosening settings the old list of gated keys did not name
        ({"isolation": {"enabled": False}}, ["isolation.enabled"]),
        ({"isolation": {"blind_ranking": False, "leak_threshold": 0.9}}, ["isolation.leak_threshold", "isolation.blind_ranking"]),
        ({"isolation": {"leak_threshold": 0.3}}, []),
        ({"escalation": {"risky_tools": "NOTHING"}}, ["escalation.risky_tools"]),
        ({"escalation": {"risky_tools": "Edit|Write"}}, ["escalation.risky_tools"]),
        ({"escalation": {"risky_tools": "Edit|Write|MultiEdit|Bash|NotebookEdit|mcp__db__.*"}}, []),
        ({"escalation": {"risky_tools": "(?:.*){500}Q"}}, []),  # not a tool-name pattern: validation refuses it
        ({"gates": {"require_improvement": False, "strong": 0.9}}, ["gates.require_improvement"]),
        ({"task_types": {"thresholds": {"security": 0.5}}}, ["task_types.thresholds"]),
        ({"task_types": {"thresholds": {"security": 0.95}}}, []),
        ({"depth": {"posture": "off"}}, ["depth.posture"]),
        ({"depth": {"per_task_type": {"documentation": "on"}}}, []),
        ({"depth": {"per_task_type": {"security": "off"}}}, ["depth.per_task_type"]),
        ({"conformity": {"conflicting_pairs": []}}, ["conformity.conflicting_pairs"]),
        ({"lock_timeout_s": 0.1}, ["lock_timeout_s"]),
        ({"cost": {"prices": {"as_of": "2026-01-01"}}}, []),
    ],
)
def test_what_waits(raw, names):
    assert [i.name for i in consent.requested(raw)] == names


def test_an_approval_is_per_project_and_per_value(tmp_path):
    a, b = Layout(str(tmp_path / "a")), Layout(str(tmp_path / "b"))
    for lay in (a, b):
        os.makedirs(lay.root)
        with open(lay.config, "w") as fh:
            json.dump({"strict": True, "trigger": {"force_markers": ["hi"]}}, fh)
    consent.approve(a)
    assert consent.pending(a) == [] and sorted(i.name for i in consent.pending(b)) == ["strict", "trigger.force_markers"]
    with open(a.config, "w") as fh:
        json.dump({"strict": True, "trigger": {"force_markers": ["hi", "fix"]}}, fh)
    assert [i.name for i in consent.pending(a)] == ["trigger.force_markers"]  # only the changed one asks again
    assert consent.revoke(a) and len(consent.pending(a)) == 2
    path = os.path.join(user_data.folder(os.environ), user_data.TRUSTED)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_effective_holds_back_only_what_waits():
    cfg = Config(strict=True).model_dump(mode="json")
    cfg["trigger"]["force_markers"] = ["hi"]
    items = consent.requested(cfg)
    out = consent.effective(cfg, Config().model_dump(mode="json"), [i for i in items if i.name == "strict"])
    assert out["strict"] is False and out["trigger"]["force_markers"] == ["hi"]
    assert "deliberation trust --project '/p q'" in words.awaiting([i.pair() for i in items], "/p q")


def test_a_seal_is_bound_to_its_key_its_place_and_every_byte():
    key, other = b"k" * 32, b"j" * 32
    body = b'{\n  "schema_version": 1,\n  "open": []\n}\n'
    sealed = seal.seal(key, "escalations.json", body)
    assert json.loads(sealed)["open"] == [] and len(json.loads(sealed)["mac"]) == seal.HEX
    assert seal.unseal(key, "escalations.json", sealed) == body
    assert seal.unseal(other, "escalations.json", sealed) is None
    assert seal.unseal(key, "sessions/s/session.json", sealed) is None  # not a stand-in for another file
    assert seal.unseal(key, "escalations.json", sealed.replace(b"[]", b"[1]")) is None
    assert seal.unseal(key, "escalations.json", body) is None  # unsealed
    line = b'{"a":1}'
    assert seal.unseal(key, "x.jsonl", seal.seal(key, "x.jsonl", line)) == line
    with pytest.raises(ValueError):
        seal.seal(key, "x", b"[1, 2]")


def test_the_user_folder_and_its_key(tmp_path, monkeypatch):
    home = tmp_path / "ud"
    env = {user_data.ENV: str(home)}
    k1 = user_data.key(env)
    assert len(k1) == user_data.KEY_BYTES and user_data.key(env) == k1
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(home / user_data.KEY).st_mode) == 0o600
    link = tmp_path / "link"
    link.symlink_to(home)
    with pytest.raises(user_data.Unavailable, match="symlink"):
        user_data.folder({user_data.ENV: str(link)})


def test_a_user_folder_the_project_chose_is_not_used(tmp_path):
    project = tmp_path / "cloned"
    (project / ".claude").mkdir(parents=True)
    planted = str(project / "keys")
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": {user_data.ENV: planted}}))
    where, note = user_data.location({user_data.ENV: planted}, str(project))
    assert where != planted and where.startswith(user_data.home()) and user_data.ENV in note


def test_which_variables_the_project_supplied(tmp_path):
    project = tmp_path / "p"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": {"PIP_INDEX_URL": "http://x", "A": "1"}}))
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"env": {"PATH": "./t"}}))
    env = {"PIP_INDEX_URL": "http://x", "A": "2", "PATH": "./t", "PIP_FIND_LINKS": "/w"}
    by = project_env.supplied(str(project), env)
    assert by.names == {"PIP_INDEX_URL", "PATH"}  # A differs: something above the project set it
    assert by.own(env, "PIP_FIND_LINKS") == "/w" and by.own(env, "PATH") is None
    (project / ".claude" / "settings.json").unlink()
    os.mkfifo(project / ".claude" / "settings.json")
    assert project_env.supplied(str(project), env).chose("ANYTHING")  # unreadable: assume the worst


def test_the_config_cache_keeps_what_waits_as_data_and_the_text_layer_words_it(tmp_path):
    """The cache the fast path reads holds the waiting settings as [name, value] pairs (no
    sentence): the session start words them (text/consent.py); a cache entry that is not such a
    list is not believed (unknown: the slow path asks config.json)."""
    from deliberation.state import plain_reads
    from deliberation.state.config import project_config_and_waiting

    lay = Layout(str(tmp_path))
    os.makedirs(lay.root)
    with open(lay.config, "w") as fh:
        json.dump({"trigger": {"tool_net": "off"}, "retention": {"max_total_mb": 5}}, fh)
    _cfg, problems, waiting = project_config_and_waiting(lay)
    assert problems == [] and [i.pair() for i in waiting] == [("trigger.tool_net", "off"), ("retention.max_total_mb", 5)]
    cached = plain_reads.awaiting_approval(lay)
    assert cached is not None and [i.pair() for i in cached] == [i.pair() for i in waiting]
    assert project_config_and_waiting(lay)[2] == []  # from the cache: said when it was written
    said = words.awaiting([i.pair() for i in cached], lay.project)
    assert "trigger.tool_net" in said and "retention.max_total_mb" in said and words.command(lay.project) in said
    assert consent.items_of("a sentence") is None and consent.items_of([["not.a.setting", 1]]) is None
    assert consent.items_of([]) == []
