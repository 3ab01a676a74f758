"""What a request does: the named irreversible or high-stakes act a prompt asks for, read as a
verb and its object (docs/TRIGGER.md §1b).

A plain instruction whose object is live data, access control, money, a public interface or
retention is a decision with stakes even with no question mark. `find` reads the prompt through
the multilingual lexicon (core/lexicon.py) and returns the first act of PATTERNS whose concepts
are all present — unless the object is said to be disposable (a test, dead code, a debug print, a
feature branch, staging) and nothing live is named — and whether the prompt asks (a question, a
choice between ways) or instructs. core/trigger.py turns an instruction into a hold (state what is
lost, get the user's yes) and a question into a deliberation. Pure; stdlib only, nothing compiled
at import: it runs on every user prompt.
"""

from __future__ import annotations

from deliberation.core import lexicon

TYPE_CHECKING = False  # mypy reads the block below; the fast path does not load `typing`
if TYPE_CHECKING:
    from collections.abc import Iterator

# kind → alternatives, each the concepts (lexicon.LEXICON) that must all be present
PATTERNS: "dict[str, tuple[tuple[str, ...], ...]]" = {
    "force-push": (("force_push", "branch"), ("force_push", "live"), ("delete", "remote_ref")),
    "rewrite-history": (("history_tool",), ("rewrite", "history"), ("delete", "history"), ("squash", "branch")),
    "disable-auth": (
        ("disable", "auth"),
        ("delete", "auth"),
        ("weaken", "auth"),
        ("disable", "identity"),
        ("change", "auth", "everyone"),
        ("weaken", "secret"),
        ("change", "session_life"),
        ("extend", "session_life"),
        ("session_life", "duration"),
    ),
    "open-access": (
        ("public", "storage"),
        ("open", "access"),
        ("open", "data"),
        ("grant", "access", "live"),
        ("grant", "wide"),
        ("open", "wide"),
        ("wide", "access"),
        ("wide", "storage"),
        ("grant", "anonymous"),
        ("open", "anonymous"),
        ("change", "default_role"),
    ),
    "change-retention": (
        ("change", "retention"),
        ("delete", "retention"),
        ("keep", "duration", "records"),
        ("keep", "duration", "data"),
    ),
    "destroy-infra": (("destroy", "infra"), ("destroy", "live"), ("delete", "infra", "live"), ("delete", "scope")),
    "prod-migration": (("run", "migration", "live"), ("upgrade", "infra", "live"), ("upgrade", "data", "live")),
    "change-dns": (("repoint", "dns"), ("repoint", "hostname")),
    "rewrite-stored-data": (
        ("rewrite", "existing"),
        ("rewrite", "data", "live"),
        ("change", "schema", "live"),
        ("rewrite", "money", "everyone"),
        ("rewrite", "everyone"),
        ("mark_paid", "money"),
        ("mark_paid", "everyone"),
        ("mark_paid", "existing"),
    ),
    "remove-public-interface": (
        ("delete", "interface"),
        ("disable", "interface"),
        ("change", "interface", "existing"),
        ("change", "interface", "public"),
    ),
    "move-money": (("pay", "money"), ("change", "payout")),
    "change-price": (("change", "price", "existing"), ("change", "price", "everyone"), ("disable", "price")),
    "switch-for-everyone": (("enable", "flag", "everyone"),),
    "store-sensitive": (
        ("store", "sensitive"),
        ("message", "sensitive"),
        ("message", "contact", "third_party"),
        ("store", "contact", "third_party"),
        ("store", "plain", "secret"),
        ("hardcode", "secret"),
    ),
    "message-everyone": (("message", "everyone"),),
    "rotate-secret": (("rotate", "secret"), ("leaked", "secret")),
    "delete-data": (("delete", "data"),),
}
# combinations that are a decision only when asked about ("can I change the webhook payload or will
# that break integrators?"); as an instruction they are ordinary work
ASKED: "dict[str, tuple[tuple[str, ...], ...]]" = {
    "change-public-interface": (("change", "interface"),),
    "move-platform": (("migration", "infra"), ("replatform", "infra")),
    "change-identity": (("change", "identity"),),
    "rewrite-stored-data": (("change", "existing"),),
}
# what a question in another language than English is about when it is a decision with stakes (the
# English scorer, core/confidence.py, reads an English one)
STAKES = (
    "auth",
    "identity",
    "access",
    "retention",
    "interface",
    "money",
    "secret",
    "infra",
    "migration",
    "live",
    "history",
    "price",
    "sensitive",
)
KINDS = (*PATTERNS, *ASKED, "decision-question")
SCANNED = 2000  # characters of the prompt read: an act is named near the start of a request

# how a request asks rather than instructs, besides a question mark
# how a question starts (at the start of a sentence or clause), and words that ask wherever they stand
_OPENERS = (
    " should ",
    " shall ",
    " can we ",
    " could we ",
    " can i ",
    " is it ok",
    " is it safe",
    " is it fine",
    " is it reasonable",
    " is it a good idea",
    " would it be ",
    " is there a way",
    " do you think",
    " any downside",
    " any concerns",
    " any risk",
    " thoughts",
    " worth it",
    " how do i ",
    " how would i ",
    " how should ",
    " how can we ",
    " what happens ",
    " what would ",
    " wollen wir ",
    " müssen wir ",
    " dürfen wir ",
    " on peut ",
    " peut-on ",
    " est-il ",
    " podemos ",
    " es buena idea",
    " dá pra ",
    " da pra ",
    " é seguro",
    " możemy ",
    " można ",
    " мы можем ",
    " может ",
    " có thể ",
    " có được ",
    " do we ",
    " what if ",
    " which ",
    " sollen ",
    " sollten ",
    " können wir ",
    " ist es ",
    " devrait",
    " devrions",
    " faut-il ",
    " est-ce ",
    " debemos ",
    " deberíamos ",
    " conviene ",
    " devemos ",
    " deveríamos ",
    " vale a pena ",
    " czy ",
    " стоит ли ",
    " нужно ли ",
    " можно ли ",
    " có nên ",
    " nên ",
)
_ASKING = (
    " whether ",
    " ob ",
    "是否",
    "要不要",
    "应该",
    "应不应该",
    "可以吗",
    "行不行",
    "怎么处理",
    "べき",
    "ですか",
    "ますか",
    "でしょうか",
    "いいよね",
    "大丈夫",
    " được không",
    " không ạ",
    " any concerns",
    " thoughts before",
)
# words of a prompt in another language than English that carry no accent
_FOREIGN = (
    " wir ",
    " die ",
    " der ",
    " und ",
    " nicht ",
    " ist ",
    " mit ",
    " für ",
    " nous ",
    " les ",
    " des ",
    " est ",
    " la ",
    " le ",
    " ce ",
    " il ",
    " de ",
    " el ",
    " los ",
    " las ",
    " que ",
    " para ",
    " com ",
    " não ",
    " em ",
    " nie ",
    " czy ",
    " się ",
    " jest ",
    " và ",
    " của ",
    " không ",
)
# how a request for an explanation, a look-up or a document starts
_LOOKUPS = tuple(
    f" {w} "
    for w in (
        "explain",
        "document",
        "describe",
        "show",
        "list",
        "summarize",
        "summarise",
        "tell",
        "what's",
        "how does",
        "how is",
        "how are",
        "how many",
        "how much",
        "where",
        "why",
        "read",
        "review",
        "erkläre",
        "explique",
        "explica",
        "wyjaśnij",
        "объясни",
        "giải",
    )
) + (" what does ", " what is ", " 解释", " 説明")
_ALTERNATIVES = (" or ", " oder ", " ou ", " lub ", " czy ", " или ", " hay ", " hoặc ", "还是", "或者", "それとも")


_NEGATIONS = (
    "n't ",
    "n t ",
    " not ",
    " without ",
    " never ",
    " no ",
    " nicht ",
    " kein",
    " pas ",
    " ne ",
    " sin ",
    " não ",
    " nie ",
    " не ",
    " không ",
    "不",
    "不要",
    "しない",
    "せず",
)


def _negated(low: str, form: str) -> bool:
    """Whether the verb form is said not to happen ("lists (doesn't delete) the objects")."""
    at = low.find(form)
    return at >= 0 and any(n in low[max(0, at - 14) : at + 1] for n in _NEGATIONS)


def _all_of_a_number(low: str) -> bool:
    """ "all 40k users", "all 1,900 customers": a count of everyone affected."""
    at = low.find(" all ")
    while at >= 0:
        if low[at + 5 : at + 6].isdigit():
            return True
        at = low.find(" all ", at + 1)
    return False


# a preposition that drops what follows it ("logins without the otp step", "ohne 2FA", "без пароля")
_WITHOUT = (
    " without ",
    " ohne ",
    " sans ",
    " sin ",
    " sem ",
    " bez ",
    " без ",
    " không cần ",
    "不用",
    "不需要",
    "なしで",
    "無しで",
)
# the last label of a host name a request points somewhere ("point api.acme.com at the new balancer")
_TLDS = frozenset(
    (
        "com",
        "net",
        "org",
        "io",
        "dev",
        "app",
        "co",
        "ai",
        "cloud",
        "de",
        "fr",
        "es",
        "pl",
        "ru",
        "vn",
        "cn",
        "jp",
        "uk",
        "eu",
        "us",
        "br",
        "pt",
    )
)


# a span of time: a number (or "a", "only") then a unit — "30 days", "a week", "только неделю", "7日", "3天"
_UNITS = (
    *(
        "day",
        "week",
        "month",
        "year",
        "tag",
        "woche",
        "monat",
        "jahr",
        "jour",
        "semaine",
        "mois",
        "an ",
        "ans ",
        "día",
        "dia",
        "semana",
    ),
    *(
        "mes",
        "año",
        "ano ",
        "anos",
        "dni ",
        "dzie",
        "tydz",
        "tygod",
        "miesi",
        "rok",
        "lat ",
        "дн",
        "ден",
        "недел",
        "месяц",
        "год",
    ),
    *("лет", "ngày", "tuần", "tháng", "năm"),
)
_COUNTS = frozenset(
    ("a", "an", "one", "only", "ein", "eine", "einen", "nur", "un", "une", "seulement", "uno", "una", "solo", "só", "um", "uma"),
) | frozenset(("jeden", "jedna", "tylko", "один", "одну", "только", "một", "chỉ"))
_CJK_UNITS = ("天", "日", "周", "週", "个月", "ヶ月", "か月", "カ月", "年")
_CJK_DIGITS = "0123456789一二三四五六七八九十百两"


def _a_duration(low: str) -> bool:
    """A span of time named in the request (how long something is kept)."""
    words = low.split()
    for before, word in zip(words, words[1:]):
        if (before.isdigit() or before in _COUNTS) and (word + " ").startswith(_UNITS):
            return True
    for unit in _CJK_UNITS:
        at = low.find(unit)
        while at > 0:
            if low[at - 1] in _CJK_DIGITS or (low[at - 1] == " " and low[at - 2 : at - 1].isdigit()):
                return True
            at = low.find(unit, at + 1)
    return False


def _without_a_control(low: str) -> bool:
    """An access control named right after "without" (a request to do the thing with the control dropped)."""
    for w in _WITHOUT:
        at = low.find(w)
        if at >= 0:
            near = " " + low[at + len(w) : at + len(w) + 28]
            if lexicon.has("auth", near) or lexicon.has("identity", near):
                return True
    return False


_TOWARDS = frozenset(("at", "to", "towards", "auf", "zu", "vers", "à", "a", "para", "na", "на", "về", "sang", "into"))


def _names_a_host(text: str) -> bool:
    """A host name among the words (api.acme.com, https://shop.example.de/x), not a file name (config.py)."""
    before = ""
    for word in text.lower().split():
        if "." not in word:
            before = word
            continue
        word = word.strip("`'\"()<>[],;:!?")
        if "://" in word:
            word = word.split("://", 1)[1].split("/", 1)[0]
        labels = word.split(".")
        if len(labels) >= 2 and labels[-1] in _TLDS and all(lab and lab.replace("-", "").isalnum() for lab in labels):
            return before not in _TOWARDS  # the host pointed, not where something points ("at docs.example.com")
        before = word
    return False


class Act:
    """What `find` read: the act's kind, the words that showed it, and whether the prompt asks."""

    __slots__ = ("kind", "asks", "words")

    def __init__(self, kind: str, asks: bool, words: "tuple[str, ...]") -> None:
        self.kind = kind
        self.asks = asks
        self.words = words

    def __repr__(self) -> str:
        return f"Act({self.kind!r}, asks={self.asks}, words={self.words!r})"


def asks(text: str, low: str) -> bool:
    """Whether the prompt asks rather than instructs: a question mark, a question's opener at the
    start of a sentence or clause, a word that asks, or a choice between ways. `low` is
    lexicon.prepared(text) (which drops the punctuation the clauses are split on)."""
    if "?" in text or "？" in text or any(a in low for a in _ASKING) or any(a in low for a in _ALTERNATIVES):
        return True
    clauses = text.lower().replace("!", ".").replace(";", ".").replace(",", ".").replace("\n", ".").split(".")
    return any(lexicon.prepared(c).startswith(_OPENERS) for c in clauses)


def find(prompt: str) -> "Act | None":
    """The act the prompt asks for (see the module docstring), or None."""
    text = prompt[:SCANNED]
    low = lexicon.prepared(text)
    present = set(lexicon.gloss(text, low))
    if _all_of_a_number(low):
        present.add("everyone")
    if _without_a_control(low):
        present.add("disable")
    if "repoint" in present and _names_a_host(text):
        present.add("hostname")
    if ("keep" in present or "session_life" in present) and _a_duration(low):
        present.add("duration")
    shared = "live" in present or ("force_push" in present and "branch" in present)  # a force-push to main is never local
    if not shared and ("disposable" in present or ("builds" in present and "code_thing" in present)):
        return None  # a throwaway object, or code to write that does the act later ("add a delete account button")
    if low.startswith(_LOOKUPS):
        return None  # a question of fact or a request to explain: nothing is done
    for kind, concepts in _matches(PATTERNS, present, low):
        return Act(kind, asks(text, low), concepts)
    if not asks(text, low):
        return None
    for kind, concepts in _matches(ASKED, present, low):
        return Act(kind, True, concepts)
    if foreign(text, low):
        about = [c for c in STAKES if c in present]
        if about:
            return Act("decision-question", True, tuple(w.strip() for w in (lexicon.has(c, low) for c in about[:2]) if w))
    return None


def _matches(
    table: "dict[str, tuple[tuple[str, ...], ...]]", present: "set[str]", low: str
) -> "Iterator[tuple[str, tuple[str, ...]]]":
    """The kinds of `table` whose concepts are all present, each with the words that showed it."""
    for kind, alternatives in table.items():
        for concepts in alternatives:
            if all(c in present for c in concepts):
                found = [lexicon.has(c, low) for c in concepts]
                words = tuple(w.strip() for w in found if w)
                # the verb said not to happen; a verb read from the sentence's shape ("without the otp") has no form
                if not (found[0] and _negated(low, found[0])):
                    yield kind, words


def foreign(text: str, low: str) -> bool:
    """Whether the prompt is written in another language than English: letters beyond ASCII (two or
    more), or a common word of a language written without them."""
    return sum(1 for c in text if ord(c) > 127 and c.isalpha()) >= 2 or any(w in low for w in _FOREIGN)
