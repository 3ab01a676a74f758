"""The mid-task net: which tool calls are risky (core/tool_net.py), and what is said (text/net.py)."""

from __future__ import annotations

import pytest

from deliberation.core import tool_net as tn
from deliberation.text import net


def bash(command: str):
    return tn.check("Bash", {"command": command})


@pytest.mark.parametrize(
    "command, kind",
    [
        ("git push --force origin main", "force-push"),
        ("git push -f origin master", "force-push"),
        ("git push origin +release/2.4", "force-push"),
        ("git push --force-with-lease origin develop", "force-push"),
        ("git push origin --delete release/2.3", "force-push"),
        ("git push origin :main", "force-push"),
        ("git push --mirror backup", "force-push"),
        ("git fetch && git reset --hard origin/main~3 && git push -f origin main", "force-push"),
        ("git filter-repo --path secrets.env --invert-paths", "history-rewrite"),
        ("git filter-branch --index-filter 'git rm --cached x' -- --all", "history-rewrite"),
        ("bfg --delete-files id_rsa", "history-rewrite"),
        ("psql \"$PROD_DATABASE_URL\" -c 'DROP TABLE events'", "destroys-data"),
        ("mysql -h prod-db -e 'TRUNCATE sessions'", "destroys-data"),
        ("psql $DATABASE_URL_PRODUCTION -c 'DELETE FROM payments WHERE id < 10'", "destroys-data"),
        ("redis-cli -h cache.prod.internal FLUSHALL", "destroys-data"),
        ("dropdb -h prd-db shop", "destroys-data"),
        ("rm -rf /", "destroys-data"),
        ("sudo rm -rf /srv/app/uploads", "destroys-data"),
        ("rm -rf ~/", "destroys-data"),
        ("aws s3 rm s3://bucket --recursive", "destroys-data"),
        ("terraform destroy", "destroys-infrastructure"),
        ("kubectl delete namespace production", "destroys-infrastructure"),
        ("helm uninstall shop -n prod", "destroys-infrastructure"),
        ("aws rds delete-db-instance --db-instance-identifier x --skip-final-snapshot", "destroys-infrastructure"),
        ("RAILS_ENV=production bin/rails db:migrate", "production-migration"),
        ("DATABASE_URL=$PROD_URL alembic upgrade head", "production-migration"),
        ("python scripts/dedupe.py --env production --apply", "production-migration"),
    ],
)
def test_risky_commands(command, kind):
    call = bash(command)
    assert call is not None and call.kind == kind, command


@pytest.mark.parametrize(
    "command",
    [
        "git push",
        "git push -f origin feature/export",
        "git push --force-with-lease",
        "git push -f",
        "git push origin v2.4.1",
        "git rebase -i HEAD~3",
        "git reset --hard HEAD",
        "git commit -m 'drop the old flag'",
        "psql -d app_test -c 'TRUNCATE orders CASCADE'",
        "psql -d app_dev -c 'DELETE FROM jobs'",
        "redis-cli FLUSHALL",
        "dropdb app_test",
        "rm -rf node_modules",
        "rm -rf build dist",
        "rm -rf ~/.cache/pip",
        "rm src/legacy.py",
        "kubectl delete pod api-1 -n staging",
        "kubectl logs deploy/api -n production",
        "terraform plan",
        "alembic upgrade head",
        "python manage.py migrate",
        "npx prisma migrate dev",
        "grep -rn 'DROP TABLE' migrations/",
        "python scripts/cleanup.py --env staging --apply",
        "pytest tests/test_prod_config.py",
        "echo live",
        "npm run build",
        "curl -X DELETE http://localhost:8000/items/1",
        "cat products.csv | wc -l",
    ],
)
def test_routine_commands(command):
    assert bash(command) is None, command


def test_prod_is_a_word_not_a_prefix():
    assert bash("psql -d products -c 'TRUNCATE x'") is None
    assert bash("psql -d shop-prod -c 'TRUNCATE x'").kind == "destroys-data"


def test_edits_of_sensitive_code_only_after_a_risky_prompt():
    path = {"file_path": "/p/src/auth/login.py", "old_string": "a", "new_string": "b"}
    assert tn.check("Edit", path) is None
    call = tn.check("Edit", path, risky_prompt=True)
    assert call.kind == "sensitive-edit" and call.what == "/p/src/auth/login.py"
    assert (
        tn.check("NotebookEdit", {"notebook_path": "/p/billing/PaymentsModel.ipynb"}, risky_prompt=True).kind == "sensitive-edit"
    )


@pytest.mark.parametrize(
    "path, sensitive",
    [
        ("src/auth/login.py", True),
        ("src/payments/refunds.py", True),
        ("db/migrate/20240101_x.rb", True),
        ("migrations/versions/abc_drop.py", True),
        ("web/src/PaymentForm.tsx", True),
        ("config/security.py", True),
        ("tests/test_auth.py", False),
        ("src/auth/tests/test_login.py", False),
        ("docs/auth.md", False),
        ("README.md", False),
        ("src/components/InvoiceTable.tsx", False),
        ("src/authoring/editor.py", False),
    ],
)
def test_sensitive_code_by_its_words(path, sensitive):
    assert tn.is_sensitive_code(path) is sensitive


def test_other_tools_and_bad_inputs_are_never_risky():
    assert tn.check("Read", {"file_path": "/etc/passwd"}) is None
    assert tn.check("Bash", {"command": None}) is None
    assert tn.check("Bash", "rm -rf /") is None  # type: ignore[arg-type]  # a malformed payload, on purpose
    assert tn.check("Edit", {"file_path": 3}, risky_prompt=True) is None


def test_what_is_said_is_short_and_names_the_next_step():
    for kind in tn.KINDS:
        what = "x" * 160  # the longest part of a call the net quotes
        for text in (
            net.note_text(kind, what),
            net.note_text(kind, what, "deliberation:", confidence=0.42),
            net.note_text(kind, what, in_subagent=True),
            net.ask_text(kind, what, "deliberation:"),
        ):
            assert len(text.encode()) < 2048 and text.startswith("Deliberation plugin:")
        assert 'skill "deliberation:deliberate"' in net.note_text(kind, what, "deliberation:")
        assert 'skill "deliberation:deliberate"' in net.ask_text(kind, what, "deliberation:")
        assert "ask the user" in net.note_text(kind, what) and "ask the user" in net.ask_text(kind, what)
        assert "report" in net.note_text(kind, what, in_subagent=True)


def test_every_kind_has_its_words():
    assert set(net.WHAT) == set(tn.KINDS)


def test_a_long_command_is_cut_in_the_note():
    call = bash("git push --force origin main " + "x" * 500)
    assert len(call.what) <= 160


def test_the_command_is_not_read_closely_without_a_hint(monkeypatch):
    monkeypatch.setattr(tn, "_re", lambda name: (_ for _ in ()).throw(AssertionError(name)))
    assert bash("python -m pytest -q && npm run lint") is None


def test_the_default_holds_an_irreversible_step_and_notes_an_edit():
    assert tn.MODES[0] == "hold"
    from deliberation import defaults

    assert defaults.CONFIG["trigger"]["tool_net"] == "hold"
    for kind in tn.IRREVERSIBLE:
        assert tn.holds("hold", kind) and tn.holds("ask", kind) and not tn.holds("note", kind) and not tn.holds("off", kind)
    assert not tn.holds("hold", "sensitive-edit") and tn.holds("ask", "sensitive-edit")


@pytest.mark.parametrize(
    "entrypoint,headless",
    [("sdk-cli", True), ("sdk-ts", True), ("sdk-py", True), ("claude-code-github-action", True), ("cli", False), ("", False)],
)
def test_a_headless_run_is_known_by_the_clients_entrypoint(entrypoint, headless):
    env = {"CLAUDE_CODE_ENTRYPOINT": entrypoint} if entrypoint else {}
    assert tn.headless(env) is headless


@pytest.mark.parametrize(
    "command,kind",
    [
        ("gh release delete v3.2.0 --yes --cleanup-tag", "deletes-release"),
        ("git push --delete origin v2.0.0", "deletes-release"),
        ("git push origin :refs/tags/v1.4", "deletes-release"),
        ("ssh root@db1.prod.internal 'rm -rf /backups/*'", "destroys-data"),
        ("aws ec2 terminate-instances --instance-ids i-0a1b --profile prod", "destroys-infrastructure"),
        ("aws secretsmanager delete-secret --secret-id x --force-delete-without-recovery", "destroys-infrastructure"),
        ("flyway -url=jdbc:postgresql://prod-db:5432/app clean", "destroys-data"),
        ("npx prisma db push --accept-data-loss  # DATABASE_URL=postgres://app@db.prod.acme.io/app", "destroys-data"),
    ],
)
def test_more_irreversible_steps_are_recognised(command, kind):
    call = tn.check("Bash", {"command": command})
    assert call is not None and call.kind == kind, (command, call)


@pytest.mark.parametrize(
    "command",
    [
        "cd examples/localstack && terraform destroy -auto-approve",
        "git push --delete origin feature/old-spike",
        "git tag -d v2.0.0",
        "ssh dev-box 'ls -la /srv'",
        "aws ec2 terminate-instances --instance-ids i-0a1b --profile staging",
    ],
)
def test_throwaway_targets_and_feature_refs_are_left_alone(command):
    assert tn.check("Bash", {"command": command}) is None


def test_the_held_reason_says_what_is_lost_interactive_and_headless():
    for kind in tn.IRREVERSIBLE:
        said = net.ask_text(kind, "x")
        assert "It would lose" in said and "Say yes only if you decided" in said
        quiet = net.ask_text(kind, "x", headless=True)
        assert "nobody can confirm it in this run" in quiet and "stop and ask the user" in quiet and "Do not retry" in quiet


# ---- a wider grammar of destructive CLIs, judged by their target (the second round, docs/TRIGGER.md §4)


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("pulumi destroy --stack acme/production --yes", "destroys-infrastructure"),
        ("cdk destroy ApiStack-prod --force", "destroys-infrastructure"),
        ("serverless remove --stage production", "destroys-infrastructure"),
        ("heroku apps:destroy --app shop-production --confirm shop-production", "destroys-infrastructure"),
        ("az group delete --name rg-prod-westeurope --yes --no-wait", "destroys-infrastructure"),
        ("aws dynamodb delete-table --table-name orders-prod", "destroys-infrastructure"),
        ("gcloud container clusters delete prod-eu --quiet", "destroys-infrastructure"),
        ("doctl databases delete prod-pg --force", "destroys-infrastructure"),
        ("mongo \"mongodb+srv://cluster0.prod.mongodb.net/app\" --eval 'db.events.drop()'", "destroys-data"),
        ("mongosh mongodb://db.prod.internal/shop --eval 'db.orders.deleteMany({})'", "destroys-data"),
        ("redis-cli -h cache-prod.internal DEL session:index", "destroys-data"),
        ("mysql -h db-primary.internal -e 'DROP DATABASE shop'", "destroys-data"),
        ("npm unpublish acme-cli --force", "deletes-release"),
        ("gh repo delete acme/payments-sdk --yes", "deletes-release"),
    ],
)
def test_destructive_cli_verbs_against_a_live_target(command, kind):
    call = tn.check("Bash", {"command": command})
    assert call is not None and call.kind == kind, (command, call)
    assert tn.holds("hold", call.kind)


@pytest.mark.parametrize(
    "command",
    [
        "aws s3 rm s3://acme-ci-artifacts/tmp/build-8812/ --recursive",
        "cdk destroy ApiStack-dev --force",
        "mongosh mongodb://localhost/test --eval 'db.orders.deleteMany({})'",
        "redis-cli -h localhost DEL foo",
        "az group list --output table",
        "gh repo view acme/payments-sdk",
        "npm publish --dry-run",
        "helm uninstall payments -n pr-311-preview",
    ],
)
def test_the_same_clis_on_a_throwaway_target_or_reading_are_left_alone(command):
    assert tn.check("Bash", {"command": command}) is None, command
