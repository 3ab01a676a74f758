"""The compact multilingual lexicon (core/lexicon.py): how text is prepared and matched."""

from __future__ import annotations

from deliberation.core import lexicon


def test_prepared_text_is_lower_case_words_with_cjk_and_latin_runs_apart():
    assert lexicon.prepared("Mainブランチをforce pushして") == " main ブランチを force push して "
    assert lexicon.prepared("l'accès, (doesn't)") == " l accès doesn t "
    assert lexicon.prepared("give s3:* to 100% of users, $500") == " give s3:* to 100% of users $500 "


def test_a_latin_form_matches_at_the_start_of_a_word_only():
    assert "delete" in lexicon.gloss("löschen Sie das")  # "lösch" starts the word
    assert "delete" not in lexicon.gloss("ausgelöscht")  # inside a word: no
    assert "disposable" in lexicon.gloss("delete the unused import")
    assert "disposable" not in lexicon.gloss("todos os clientes")  # "todo" is a whole word only


def test_a_cjk_form_matches_anywhere():
    assert set(lexicon.gloss("删除生产数据库")) >= {"delete", "data", "live"}
    assert set(lexicon.gloss("本番のデータを削除")) >= {"delete", "data", "live"}


def test_has_returns_the_form_found():
    low = lexicon.prepared("Deaktiviere die Zwei-Faktor-Authentifizierung")
    assert lexicon.has("disable", low) == "deaktivier" and lexicon.has("money", low) is None


def test_every_form_is_prepared_text_and_lower_case():
    for concept, forms in lexicon.LEXICON.items():
        assert forms and len(set(forms)) == len(forms), concept
        for form in forms:
            assert form == form.lower() and form.strip(), (concept, form)


def test_a_tilde_form_matches_inside_a_german_compound():
    low = lexicon.prepared("Schalte die TLS-Zertifikatsprüfung ab")
    assert "auth" in lexicon.gloss("", low) and lexicon.has("auth", low)


def test_a_separable_verb_is_read_from_its_stem_and_particle():
    assert "disable" in lexicon.gloss("Schalt die Prüfung im Client aus")
    assert "delete" in lexicon.gloss("rip the old endpoint out")
    # the particle must follow within the gap: a far-away "out" is another clause
    far = "rip " + "x " * 40 + "out"
    assert "delete" not in lexicon.gloss(far)


def test_no_foreign_stem_starts_a_common_english_word():
    # a stem of another language that begins an English word matches the English one too
    for concept, text in (
        ("store", "the logged in users"),
        ("disposable", "dale permisos a todo el equipo"),
        ("message", "the exported users"),
        ("keep", "estimate conservatively"),
        ("money", "the credit card form"),
    ):
        assert concept not in lexicon.gloss(text), (concept, text)
