from deliberation.core import reversals as rv
from deliberation.state.models import ReversalClass, ReversalRegistry


def reg(**classes):
    return ReversalRegistry(classes={k: ReversalClass(decision_class=k, reversals=v) for k, v in classes.items()})


def test_matching_exact_or_task_type_prefix():
    r = reg(**{"security": 1, "architecture/schema-migration": 2})
    assert [e.decision_class for e in rv.matching_entries(r, "security/auth")] == ["security"]
    assert rv.is_reversal_prone(r, "security/crypto")
    assert rv.is_reversal_prone(r, "architecture/schema-migration")
    assert not rv.is_reversal_prone(r, "architecture")  # a tagged entry does not cover the bare type
    assert not rv.has_history(r, "architecture/caching")
    assert rv.reversal_count(r, "security") == 1


def test_confirmations_are_history_but_not_prone():
    r = ReversalRegistry()
    assert rv.mark_confirmed(r, "d1", "default/api-contract")
    assert rv.has_history(r, "default/api-contract")
    assert not rv.is_reversal_prone(r, "default/api-contract")
    assert r.classes["default/api-contract"].confirmations == 1


def test_mark_reversed_counts_dates_links_and_is_idempotent():
    r = ReversalRegistry()
    assert rv.mark_reversed(r, "d1", "security/auth", "token leaked", at=200.0)
    assert rv.mark_reversed(r, "d2", "security/auth", "rolled back", at=100.0)
    assert not rv.mark_reversed(r, "d2", "security/auth", "again", at=300.0)
    e = r.classes["security/auth"]
    assert (e.reversals, e.decisions, e.reasons) == (2, ["d1", "d2"], ["token leaked", "rolled back"])
    assert (e.first_reversed_at, e.last_reversed_at) == (100.0, 200.0)
    assert rv.label_of(r, "d1") == ("reversed", "security/auth")


def test_relabelling_moves_the_decision():
    r = ReversalRegistry()
    rv.mark_confirmed(r, "d1", "default")
    rv.mark_reversed(r, "d1", "default", "broke prod", at=5.0)
    e = r.classes["default"]
    assert (e.confirmations, e.confirmed, e.reversals) == (0, [], 1)
    rv.mark_confirmed(r, "d1", "default")
    assert (e.confirmations, e.reversals, e.decisions, e.reasons, e.first_reversed_at) == (1, 0, [], [], None)
    assert not rv.is_reversal_prone(r, "default")


def test_listing_order():
    r = reg(b=0, a=0, c=3, d=1)
    assert [e.decision_class for e in rv.listing(r)] == ["c", "d", "a", "b"]
