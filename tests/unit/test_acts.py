"""What a request does (core/acts.py): the named act a plain instruction or a question asks for,
in the words people use and in nine languages besides English; the hard negatives stay quiet."""

from __future__ import annotations

import pytest

from deliberation.core import acts, trigger

DECIDED = [  # a plain instruction naming an irreversible act: the user decided it
    ("turn off MFA for the admin accounts so the contractors can log in", "disable-auth"),
    ("open up the assets bucket to public read", "open-access"),
    ("change the retention of audit_logs from 7 years to 7 days", "change-retention"),
    ("convert all existing rows to UTC in place", "rewrite-stored-data"),
    ("remove the v1 endpoints entirely", "remove-public-interface"),
    ("force-push main to drop the commits holding the .env", "force-push"),
    ("delete the remote release branch and its tags", "force-push"),
    ("refund 1,900 customers from the CSV", "move-money"),
    ("rotate the leaked Stripe key", "rotate-secret"),
    ("tear down the old production cluster", "destroy-infra"),
    ("run the migrations against production now", "prod-migration"),
    ("remove the leaked password from git history with filter-repo", "rewrite-history"),
    ("email all 40k users about the breach tonight", "message-everyone"),
    ("give the reporting service s3:* on all buckets", "open-access"),
    ("lower the bcrypt cost to 4, logins are too slow", "disable-auth"),
    ("kill the v2 webhooks, everyone should be on v3 by now", "remove-public-interface"),
    ("set the S3 lifecycle to delete objects after 1 day", "change-retention"),
    ("nuke the old S3 bucket with the 2019 exports, nobody uses it", "destroy-infra"),
    ("Сделай бакет с картинками публичным", "open-access"),
    ("把 v1 接口全部下线", "remove-public-interface"),
]
HARD_NEGATIVES = [
    "delete the unused import",
    "remove dead code in utils.py",
    "drop the debug print",
    "remove the console.log calls",
    "drop the test database and recreate it locally",
    "Write a script that lists (doesn't delete) S3 objects older than a year in the uploads bucket",
    "update all the dependencies in package.json",
    "destroy the local kind cluster and recreate it with the new config",
    "remove the expired feature flag checks for dark_mode from the code, it's been 100% for a year",
    "Add a `reason` text field to the refund form in the admin, optional.",
    "what does the InvoiceStatus enum mean by 'voided' vs 'cancelled'?",
    "make the helper function public",
    "run the migration locally",
    "add a delete account button to the settings page",
    "implement the endpoint that removes a user from a team",
    "delete the cached data on logout",
    "change the retention chart color to blue",
    "document how we rotate keys",
    "explain what terraform destroy does",
    "Füge einen Button zum Löschen des Kontos hinzu",
    "Entferne den ungenutzten Import",
    "Supprime l'import inutilisé",
    "Elimina el import sin usar",
    "Usuń nieużywany import",
    "Удали неиспользуемый импорт",
    "删除未使用的导入",
    "未使用のインポートを削除して",
]
# per language: two instructions and a question (a question deliberates)
LANGUAGES = {
    "de": [
        "Lösche alle alten Kundendaten aus der Produktionsdatenbank",
        "Schalte die Zwei-Faktor-Authentifizierung für Admins ab",
        "Sollen wir die Aufbewahrungsfrist der Logs auf 30 Tage kürzen?",
    ],
    "fr": [
        "Supprime toutes les données des utilisateurs inactifs",
        "Rends le bucket des factures public",
        "Faut-il migrer la base de production vers Postgres 16 ce week-end ?",
    ],
    "es": [
        "Elimina todos los registros de clientes de la base de producción",
        "Desactiva la verificación de correo para los nuevos usuarios",
        "¿Deberíamos borrar los datos de usuarios antiguos?",
    ],
    "pt": [
        "Apague todos os dados de clientes antigos do banco de produção",
        "Reembolse todos os clientes afetados pelo bug",
        "Devemos mudar a retenção dos logs para 7 dias?",
    ],
    "pl": [
        "Usuń wszystkie dane klientów z bazy produkcyjnej",
        "Wyłącz uwierzytelnianie dwuskładnikowe dla adminów",
        "Czy powinniśmy zmienić dostawcę płatności?",
    ],
    "ru": [
        "Удали все старые данные клиентов из продакшен базы",
        "Отключи двухфакторную аутентификацию для админов",
        "Стоит ли переносить базу на другой кластер в пятницу?",
    ],
    "vi": [
        "Xóa toàn bộ dữ liệu khách hàng cũ trong cơ sở dữ liệu production",
        "Tắt xác thực hai lớp cho tài khoản admin",
        "Có nên đổi nhà cung cấp thanh toán không?",
    ],
    "zh": ["删除生产环境里所有旧客户数据", "把管理员的双因素认证关掉", "我们应该把日志保留期改成7天吗？"],
    "ja": ["本番DBの古い顧客データを全部削除して", "管理者の二要素認証を無効にして", "決済プロバイダーを変更すべきですか？"],
}


@pytest.mark.parametrize("prompt,kind", DECIDED)
def test_a_plain_instruction_names_its_act_and_gets_a_hold(prompt, kind):
    act = acts.find(prompt)
    assert act is not None and act.kind == kind and not act.asks, act
    assert trigger.outcome(prompt) in ("hold", "deliberate")  # an obvious word may already deliberate


@pytest.mark.parametrize("prompt", HARD_NEGATIVES)
def test_hard_negatives_stay_quiet(prompt):
    assert acts.find(prompt) is None
    assert trigger.outcome(prompt) == ""


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_each_language_scores_on_meaning(lang):
    first, second, question = LANGUAGES[lang]
    for prompt in (first, second):
        act = acts.find(prompt)
        assert act is not None and not act.asks, (prompt, act)
    asked = acts.find(question)
    assert asked is not None and asked.asks, (question, asked)
    assert trigger.outcome(question) == "deliberate"


def test_a_question_about_an_act_deliberates_and_an_instruction_holds():
    assert trigger.outcome("should we remove the v1 endpoints entirely?") == "deliberate"
    assert trigger.outcome("can I change the webhook payload format or will that break integrators") == "deliberate"
    # asked only: as an instruction it is ordinary work
    assert acts.find("change the webhook payload format to include the id") is None


def test_the_hold_says_what_is_lost_and_asks_for_the_users_yes():
    result, context = trigger.score_prompt("open up the assets bucket to public read", None, "deliberation:")
    assert result["held"] and result["act"] == "open-access" and not result["triggered"]
    assert "what it will lose" in context and "explicit yes" in context and 'skill "deliberation:deliberate"' in context
    assert len(context.encode()) < 1024


def test_the_trigger_switched_off_or_an_agents_turn_reads_no_act():
    cfg = {"trigger": {"enabled": False}}
    assert trigger.score_prompt("open up the assets bucket to public read", cfg)[1] is None
    note = "<task-notification><result>open up the assets bucket to public read</result></task-notification>"
    assert trigger.read_act(note, None) is None


def test_only_the_start_of_a_long_prompt_is_read():
    assert acts.find("x " * acts.SCANNED + "turn off MFA for the admin accounts") is None


def test_every_kind_is_worded():
    from deliberation.text import trigger as said

    assert set(acts.KINDS) == set(said.ACT_WHAT)
    for kind in acts.KINDS:
        assert said.act_hold(kind).startswith("Deliberation plugin:") and kind in said.act_asked(kind)


# ---- reading by meaning rather than by a tuning set's words (the second round, docs/TRIGGER.md §1b)

BY_STRUCTURE = [
    # a span of time kept: a keep-verb, a number (or "only", "a") and a unit, and something kept
    ("we only need 14 days of the audit logs, keep just that", "change-retention"),
    ("Храни логи доступа только неделю", "change-retention"),
    ("监控日志只保留3天", "change-retention"),
    # a control named right after "without"
    ("let the contractors log in without the otp step", "disable-auth"),
    ("Erlaube den Login ohne 2FA für das Support-Team", "disable-auth"),
    # the host that is pointed, not where something points
    ("point shop.example.com at the new load balancer", "change-dns"),
    # a German separable verb and an English phrasal one, the object between
    ("Schalt die Zertifikatsprüfung im Client aus", "disable-auth"),
    ("rip the old /v2/search endpoint out", "remove-public-interface"),
    # a German compound whose head is the object
    ("Deaktiviere die TLS-Zertifikatsprüfung im Zahlungsclient", "disable-auth"),
    # a leaked secret, a hard-coded one
    ("the signing key leaked in a screenshot, swap it", "rotate-secret"),
    ("hard-code the live api secret in settings.py", "store-sensitive"),
    # a whole scope deleted, contact data sent out
    ("delete the analytics namespace, we'll redeploy later", "destroy-infra"),
    ("ship all customer emails and phone numbers to the marketing agency", "store-sensitive"),
    # a force-push of a shared branch is never local
    ("在 main 分支上 git push --force，我本地的才是对的", "force-push"),
    # a money record marked as settled, anonymous access, a session's lifetime with a span of time
    ("mark every unpaid invoice from 2022 as paid", "rewrite-stored-data"),
    ("let anonymous users download the monthly reports", "open-access"),
    ("管理画面のセッション有効期限を1年にして", "disable-auth"),
]
QUIET_LOOK_ALIKES = [
    "keep an eye on the memory usage of the worker",
    "keep 7 days of build artifacts in the CI cache",
    "point the docs link at docs.example.com",
    "squash my last 3 commits",
    "drop the striped rows styling from the table component",
    "disable the submit button while the login request is in flight",
    "would it be fine to rename the utils module?",
    "Borra la rama local feature/login",
    "Dale un nombre más claro a todo el módulo",
    "the user logged in twice, add a test",
    "remove the deprecated flag from the test config",
    "把本地的测试数据库清空",
    "let anyone resize the panel",
    "extend the existing endpoint to accept a date filter",
    "mark the flaky payment test as skipped",
]


@pytest.mark.parametrize(("prompt", "kind"), BY_STRUCTURE)
def test_an_act_is_read_from_the_shape_of_the_request(prompt, kind):
    act = acts.find(prompt)
    assert act is not None and act.kind == kind, (prompt, act)


@pytest.mark.parametrize("prompt", QUIET_LOOK_ALIKES)
def test_look_alikes_of_the_new_shapes_stay_quiet(prompt):
    assert trigger.outcome(prompt) == "", prompt


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I give the ci service account owner on the gcp project?",
        "would it be fine to disable the WAF rules while we debug the 403s?",
        "any concerns with sending full request bodies including phone numbers to sentry?",
        "Wollen wir auf DynamoDB umsteigen?",
    ],
)
def test_a_question_without_should_still_asks(prompt):
    act = acts.find(prompt)
    assert act is not None and act.asks, (prompt, act)
