"""The mid-task net: a tool call that acts on a risky decision with no deliberation on record
(docs/TRIGGER.md §4 lists the kinds and what the net cannot see).

`check` recognises from the call alone a force-push to a shared branch, a history rewrite, a
data-destroying or infrastructure-destroying command or a migration against a production target,
and — only when `risky_prompt` (the session's last prompt was rated a risky decision) — an edit of
auth, payment or migration code. A production target is the word prod, production, prd or live
standing alone or inside a name, never "product". text/net.py words what is said. Pure; stdlib
only (`re`, compiled only for a command that hints at risk): it runs on every Bash and edit call
of the fast path.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads the block below; nothing is imported when the module loads
if TYPE_CHECKING:
    import re

MODES = ("hold", "note", "ask", "off")
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
KINDS = (
    "force-push",
    "history-rewrite",
    "destroys-data",
    "destroys-infrastructure",
    "production-migration",
    "deletes-release",
    "sensitive-edit",
)
# the kinds whose step cannot be taken back: `hold` (the default) holds these before they run
IRREVERSIBLE = KINDS[:6]
# the client's CLAUDE_CODE_ENTRYPOINT in a run where nobody answers a permission prompt (`claude -p`
# sets sdk-cli; the SDKs and the GitHub action their own): the client refuses a held call there
HEADLESS_ENTRYPOINTS = ("sdk-cli", "sdk-ts", "sdk-py", "claude-code-github-action")


def holds(mode: str, kind: str) -> bool:
    """Whether `mode` holds a call of `kind` for the user's yes before it runs (PreToolUse ask):
    `hold` an irreversible step only (a sensitive edit gets the note after it), `ask` every kind."""
    return mode == "ask" or (mode == "hold" and kind in IRREVERSIBLE)


def headless(env: "dict[str, str]") -> bool:
    """A run where nobody can answer the client's prompt, by the entrypoint the client names in
    the hook's environment (interactive `claude` sets cli)."""
    return env.get("CLAUDE_CODE_ENTRYPOINT", "") in HEADLESS_ENTRYPOINTS


# a command that mentions none of these needs no closer look (the common case: tests, builds, git status)
_HINTS = (
    "push",
    "filter-",
    "bfg",
    "drop",
    "truncate",
    "delete",
    "update",
    "rm ",
    "rm\t",
    "flush",
    "destroy",
    "migrat",
    "db:",
    "rb ",
    "uninstall",
    "--apply",
    "--execute",
    "--commit",
    "pg:reset",
    "apply",
    "upgrade",
    "flyway",
    "liquibase",
    "goose",
    "dbmate",
    "terminate",
    "clean",
    "accept-data-loss",
    "ssh",
    "release",
    "unpublish",
    "remove(",
    "deletemany",
    "--eval",
    "redis-cli",
    "remove",
)
_SOURCES = {  # compiled on the first command that needs them (import time is latency)
    "segment": r"&&|\|\||[;|\n]",
    "prod": r"(?<![a-z0-9])(?:prod|production|prd|live|primary)(?![a-z])",
    "shared_branch": r"^(?:refs/heads/)?(?:main|master|develop|trunk|release\S*|prod\S*|production\S*)$",
    "sql_write": (
        r"\b(?:drop\s+(?:table|database|schema|index|view)|truncate\b|delete\s+from|"
        r"alter\s+table\s+\S+\s+drop|update\s+\S+\s+set)\b"
    ),
    "store_wipe": (
        r"\b(?:flushall|flushdb|dropdatabase|pg:reset)\b|\bdropdb\b|-x\s*delete\b|--request\s+delete\b|"
        r"\bflyway\b.*\bclean\b|--accept-data-loss\b|\bprisma\s+migrate\s+reset\b|"
        # a document store's shell told to drop or empty a collection (mongo/mongosh --eval)
        r"\.drop\(\s*\)|\.(?:deletemany|remove)\(\s*\{\s*\}\s*\)|\bdropindexes\b"
        r"|\bredis-cli\b.*\s(?:del|unlink)\s"
    ),
    "migrate": (
        r"\b(?:alembic\s+(?:upgrade|downgrade)|manage\.py\s+migrate|db:(?:migrate|rollback|schema:load|reset)|"
        r"prisma\s+migrate\s+deploy|flyway\b.*\bmigrate|knex\s+migrate|sequelize\s+db:migrate|"
        r"liquibase\b.*\bupdate|goose\b.*\bup\b|dbmate\s+up)"
    ),
    "data_script": r"--(?:apply|execute|commit|no-dry-run)\b",
    "infra": (
        r"\bterraform\s+destroy\b|\baws\s+rds\s+delete-|\baws\s+s3\s+rb\b|\bgcloud\s+sql\s+instances\s+delete\b|"
        r"\bdelete-secret\b.*--force-delete-without-recovery|\b(?:pulumi|cdk|sst|serverless|sls)\s+(?:\S+\s+)?destroy\b|"
        r"\b(?:serverless|sls)\s+remove\b|"
        r"\b(?:heroku\s+apps:destroy|flyctl\s+(?:apps\s+)?destroy|fly\s+apps\s+destroy)\b"
    ),
    "infra_prod": (
        r"\bkubectl\b.*\bdelete\b|\bhelm\s+(?:uninstall|delete)\b|\bterraform\s+apply\b.*-auto-approve|"
        r"\baws\s+ec2\s+terminate-instances\b|\bgcloud\s+compute\s+instances\s+delete\b|\bdelete-secret\b|"
        # a cloud CLI's delete verb, whatever the resource: aws <service> delete-…, gcloud/az/doctl … delete
        r"\baws\s+[a-z0-9-]+\s+(?:delete|terminate|deregister)-[a-z-]+|\b(?:gcloud|az|doctl|linode-cli|hcloud|ibmcloud)\b.*\s(?:delete|destroy|purge)\b|"
        r"\bpulumi\s+(?:stack\s+rm|up\b.*--yes)|\bvercel\s+(?:rm|remove)\b"
    ),
    # a published package or repository taken away from everyone who depends on it
    "unpublish": r"\bnpm\s+unpublish\b|\bgh\s+repo\s+delete\b|\bgh\s+api\b.*-x\s*delete\s+\S*repos/|\bdocker\s+(?:image\s+)?rm\b.*\b(?:hub|registry)|\bgem\s+yank\b",
    # a folder or profile that says the target is a throwaway: an unconditional `infra` match is left alone there
    "disposable": r"(?<![a-z0-9])(?:localstack|examples?|sandbox|dev|test|tests|staging|preview|ephemeral|scratch|tmp|kind|minikube)(?![a-z0-9])",
    "release_delete": r"\bgh\s+release\s+delete\b",
    "tag_ref": r"^(?:refs/tags/)?v?\d+(?:\.\d+)+\S*$|^refs/tags/",
    "bucket_wipe": (
        r"\baws\s+s3\s+rm\b.*--recursive|\bgsutil\s+(?:-m\s+)?rm\s+-r|\bgcloud\s+storage\s+rm\s+-r|"
        r"\baz\s+storage\s+blob\s+delete-batch\b"
    ),
    "rm_recursive": r"^(?:sudo\s+)?rm\s+(?:-\S*[rR]\S*|--recursive)\b",
    "words": r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+",
}
_COMPILED: dict = {}


def _re(name: str) -> "re.Pattern[str]":
    pattern = _COMPILED.get(name)
    if pattern is None:
        import re

        pattern = _COMPILED[name] = re.compile(_SOURCES[name])
    return pattern


_RM_ROOTS = ("/", "/*", "~", "~/", "~/*", "$home", "${home}", "$home/", "..", "*", ".", "./")
_RM_SYSTEM = ("/var/", "/srv/", "/data", "/opt/", "/home/", "/etc/", "/usr/", "/mnt/", "/backup")
_RM_DATA_WORDS = ("uploads", "backup", "backups", "postgres", "postgresql", "mysql", "pgdata", ".git", "data")
_SENSITIVE_WORDS = frozenset(
    (
        "auth",
        "authn",
        "authz",
        "authentication",
        "authorization",
        "login",
        "logout",
        "session",
        "sessions",
        "password",
        "passwords",
        "permission",
        "permissions",
        "acl",
        "rbac",
        "oauth",
        "sso",
        "saml",
        "jwt",
        "token",
        "tokens",
        "crypto",
        "secret",
        "secrets",
        "security",
        "payment",
        "payments",
        "billing",
        "checkout",
        "refund",
        "refunds",
        "charge",
        "charges",
        "stripe",
        "ledger",
        "wallet",
        "payout",
        "payouts",
        "migration",
        "migrations",
        "migrate",
        "alembic",
    )
)
_NOT_CODE = ("test", "tests", "spec", "specs", "docs", "doc", "__tests__", "fixtures")


class RiskyCall:
    """What `check` found: its kind (one of KINDS) and the part of the call that showed it."""

    __slots__ = ("kind", "what")

    def __init__(self, kind: str, what: str) -> None:
        self.kind = kind
        self.what = what

    def __repr__(self) -> str:
        return f"RiskyCall({self.kind!r}, {self.what!r})"


def check(tool_name: str, tool_input: dict, risky_prompt: bool = False) -> "RiskyCall | None":
    """The risky call `tool_name` with `tool_input` makes, or None for a routine one."""
    if tool_name == "Bash":
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        return check_command(command) if isinstance(command, str) else None
    if tool_name in EDIT_TOOLS and risky_prompt and isinstance(tool_input, dict):
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        if isinstance(path, str) and is_sensitive_code(path):
            return RiskyCall("sensitive-edit", path)
    return None


def is_sensitive_code(path: str) -> bool:
    """Auth, payment or migration code, by the words of its folders and file name (not tests or docs)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts or parts[-1].lower().endswith((".md", ".rst", ".txt")):
        return False
    words = []
    for part in parts:
        found = [w.lower() for w in _re("words").findall(part)]
        if any(w in _NOT_CODE for w in found) or part.lower().startswith("test_"):
            return False
        words.extend(found)
    return any(w in _SENSITIVE_WORDS for w in words)


def check_command(command: str) -> "RiskyCall | None":
    """A Bash command's risky step (see the module docstring), segment by segment."""
    low = command.lower()
    if not any(h in low for h in _HINTS):
        return None
    for segment in _re("segment").split(low):
        seg = _strip_env(segment.strip())
        if not seg:
            continue
        found = _segment_risk(seg, bool(_re("prod").search(low)), bool(_re("disposable").search(low)))
        if found:
            return RiskyCall(found, " ".join(segment.split())[:160])
    return None


def _strip_env(seg: str) -> str:
    """Without leading `VAR=value` assignments (the program is what follows); `env` and `time` too."""
    words = seg.split()
    while words and ("=" in words[0] and not words[0].startswith("-") or words[0] in ("env", "time", "nohup", "exec")):
        words.pop(0)
    return " ".join(words)


def _segment_risk(seg: str, prod: bool, throwaway: bool = False) -> "str | None":
    words = seg.split()
    if words[:1] == ["ssh"]:  # the command run on the remote host, quoted after it
        inner = _remote_command(seg)
        return _segment_risk(inner, prod, throwaway) if inner else None
    if words[:2] == ["git", "push"] or (words[:1] == ["git"] and "push" in words[:4]):
        if _deletes_remote_tag(words):
            return "deletes-release"
        return "force-push" if _force_push_to_shared(words) else None
    if _re("release_delete").search(seg):
        return "deletes-release"
    if (
        words[:2] in (["git", "filter-branch"], ["git", "filter-repo"])
        or words[:1] == ["bfg"]
        or (words[:2] == ["java", "-jar"] and "bfg" in seg)
    ):
        return "history-rewrite"
    if _re("rm_recursive").match(seg):
        return "destroys-data" if _rm_hits_data(words) else None
    if _re("infra").search(seg) and (prod or not throwaway):
        return "destroys-infrastructure"
    if prod and _re("infra_prod").search(seg):
        return "destroys-infrastructure"
    if _re("unpublish").search(seg):
        return "deletes-release"
    if _re("bucket_wipe").search(seg) and (prod or not throwaway):
        return "destroys-data"
    if prod and (_re("sql_write").search(seg) or _re("store_wipe").search(seg)):
        return "destroys-data"
    if prod and (_re("migrate").search(seg) or _re("data_script").search(seg)):
        return "production-migration"
    return None


def _remote_command(seg: str) -> str:
    """The command an `ssh host '…'` segment runs remotely (the quoted part), or ""."""
    for quote in ("'", '"'):
        start = seg.find(quote)
        end = seg.rfind(quote)
        if 0 <= start < end:
            return _strip_env(seg[start + 1 : end].strip())
    return ""


def _deletes_remote_tag(words: "list[str]") -> bool:
    """`git push --delete origin v2.0.0` or `git push origin :refs/tags/v2.0.0`: a published tag removed."""
    args = words[words.index("push") + 1 :]
    refs = [a for a in args if not a.startswith("-")][1:]
    deleting = "--delete" in args or "-d" in args
    return any(
        (deleting and _re("tag_ref").match(ref)) or (ref.startswith(":") and _re("tag_ref").match(ref[1:])) for ref in refs
    )


def _force_push_to_shared(words: "list[str]") -> bool:
    args = words[words.index("push") + 1 :]
    force = any(
        a in ("-f", "--force", "--force-with-lease", "--mirror")
        or a.startswith("--force-with-lease=")
        or (a.startswith("-") and not a.startswith("--") and "f" in a)
        for a in args
    )
    refs = [a for a in args if not a.startswith("-")][1:]  # after the remote
    if "--mirror" in args:
        return True
    deleting = "--delete" in args or "-d" in args
    for ref in refs:
        plus = ref.startswith("+")
        target = ref.lstrip("+:").split(":")[-1]
        if _re("shared_branch").match(target) and (force or plus or deleting or ref.startswith(":")):
            return True
    return False


def _rm_hits_data(words: "list[str]") -> bool:
    targets = [w.strip("'\"") for w in words[1:] if not w.startswith("-") and w != "rm"]
    for t in targets:
        if t in _RM_ROOTS or t.rstrip("/") in ("~", "$home", "${home}", ""):
            return True
        if t.startswith("/") and t.startswith(_RM_SYSTEM):
            return True
        parts = [p for p in t.replace("~", "").split("/") if p]
        if any(p in _RM_DATA_WORDS for p in parts):
            return True
    return False
