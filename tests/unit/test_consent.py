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


def test_the_defaults_consent_compares_with_are_the_config_s():
    c = Config()
    assert tuple(c.trigger.force_markers) == consent.DEFAULT_FORCE_MARKERS
    assert (c.trigger.threshold, c.trigger.high_dimension) == (consent.DEFAULT_THRESHOLD, consent.DEFAULT_HIGH_DIMENSION)
    for name, value in {**consent.DEFAULT_LIMITS, **consent.DEFAULT_RETENTION}.items():
        section, key = name.split(".")
        assert getattr(getattr(c, section), key) == value, name
    assert consent.requested(c.model_dump(mode="json")) == []  # the defaults never wait
    sections = {s: type(getattr(c, s)) for s in Config.model_fields if hasattr(type(getattr(c, s)), "model_fields")}
    fields = {f"{s}.{k}" for s, cls in sections.items() for k in cls.model_fields} | set(Config.model_fields)
    assert set(consent.GATED_NAMES) <= fields  # every gated name is a real setting
    assert set(consent.GATED_NAMES) == set(words.WHY)  # and the person is told why it waits


@pytest.mark.parametrize(
    "raw,names",
    [
        ({"trigger": {"force_markers": ["/deliberate"]}}, []),
        ({"trigger": {"force_markers": ["/deliberate", "hi"]}}, ["trigger.force_markers"]),
        ({"trigger": {"threshold": 0.7, "high_dimension": 0.6}}, []),
        ({"trigger": {"threshold": "high"}}, []),  # invalid: validation drops it, nothing widens
        ({"strict": False, "models": {"diverse": False}}, []),
        ({"escalation": {"probes": []}}, []),
        ({"spawn_budget": {"max_active_children": 13}}, ["spawn_budget.max_active_children"]),
        ({"trigger": {"extra_terms": {"stakes": {}}}}, []),
        # a catch switched off waits; one made stricter, or left on, applies
        ({"trigger": {"tool_net": "off"}}, ["trigger.tool_net"]),
        ({"trigger": {"tool_net": "ask"}}, []),
        ({"trigger": {"tool_net": "note", "enabled": True, "self_rating": True}}, []),
        ({"trigger": {"enabled": False}}, ["trigger.enabled"]),
        ({"trigger": {"self_rating": False}}, ["trigger.self_rating"]),
        ({"trigger": {"enabled": 0, "self_rating": "no"}}, []),  # invalid: validation drops them
        # the prune deleting sooner waits; keeping more, or not pruning, applies
        ({"retention": {"max_age_days": 7}}, ["retention.max_age_days"]),
        ({"retention": {"max_total_mb": 10}}, ["retention.max_total_mb"]),
        ({"retention": {"auto": False, "max_age_days": 365, "max_total_mb": 100}}, []),
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
