"""The trigger's built-in vocabulary: which words raise which dimension, and by how much (data
only; confidence.py scores with it, terms.py matches it; docs/FORMULAS.md, "The trigger's
vocabulary", says how the weights are set).

Grouped by what a term says about the decision — AMBIGUITY (a choice is asked), COMPLEXITY (many
moving parts), STAKES (the cost of being wrong), CONTEXT_DEPENDENCE (facts the prompt does not
hold) — so a missing concept is added where its kind lives. The lists for the structural signals:
IRREVERSIBLE_ACTIONS × LIVE_TARGETS (raise context dependence), SETTLED (scale ambiguity down),
DISPOSABLE (scale stakes down when no live target is named).
"""

from __future__ import annotations

AMBIGUITY = {
    # asking whether / which
    "should we": 0.5, "should i": 0.45, "shall we": 0.5, "shall i": 0.45, "shuld": 0.45, "shoud": 0.45, "should the": 0.35,
    "should it": 0.35, "should our": 0.4, "should they": 0.35, "do we need": 0.45, "do we have to": 0.45,
    "do we really": 0.45, "do i need": 0.35, "do we want": 0.25, "is it ok": 0.45, "is it okay": 0.45,
    "ok to": 0.45, "okay to": 0.45, "fine to": 0.4, "alright to": 0.4, "allowed to": 0.35,
    "is it safe": 0.5, "safe to": 0.45, "safe way": 0.45, "safest": 0.45, "good idea": 0.5,
    "bad idea": 0.5, "a mistake": 0.45, "acceptable": 0.45, "any reason not": 0.5, "worth it": 0.4,
    "worth the": 0.4, "worth doing": 0.4, "overkill": 0.45, "or not": 0.35, "whether": 0.4,
    "can we": 0.35, "can i": 0.3, "could we": 0.35, "do we": 0.25, "is that": 0.2,
    "is this the right": 0.5, "right way": 0.35, "right call": 0.5, "the call": 0.25, "enough": 0.15,
    "which": 0.15, "versus": 0.35, "vs": 0.35, "instead of": 0.25, "or should": 0.4, "keep": 0.1,
    "or wait": 0.4, "or leave": 0.35, "hold off": 0.4, "go ahead with": 0.35, "go with": 0.3,
    "now or": 0.35, "or later": 0.3, "necessary": 0.25, "legally": 0.35, "is there a better": 0.45,
    "better way": 0.35, "better option": 0.4,
    # asking how / for a plan
    "how should": 0.5, "how do we": 0.4, "how would you": 0.4, "how would we": 0.4, "how can we": 0.35,
    "what should": 0.4, "what do we do": 0.5, "what do i do": 0.45, "what now": 0.5, "next steps": 0.45,
    "what do we tell": 0.45, "what do we keep": 0.45, "what would you": 0.4, "where should": 0.35,
    "when should": 0.35, "what exactly": 0.25, "what are the risks": 0.5, "risks of": 0.4,
    "what could go wrong": 0.5, "how risky": 0.5, "downside*": 0.4, "drawback*": 0.4, "concerns": 0.3,
    "best way": 0.45, "best approach": 0.45, "best option": 0.45, "best practice": 0.3,
    "right approach": 0.45, "approach": 0.25, "strategy": 0.45, "plan the": 0.45, "plan for": 0.4,
    "help me plan": 0.5, "help me decide": 0.5, "help me choose": 0.5, "help us think": 0.5,
    "plan": 0.15, "roll it out": 0.3, "in what order": 0.4, "design": 0.2, "decide": 0.45,
    "decision": 0.35, "choose": 0.35, "choosing": 0.35, "pick": 0.3, "options": 0.3,
    "alternatives": 0.3, "trade off*": 0.4, "tradeoff*": 0.4, "pros and cons": 0.45,
    "weigh": 0.35, "think through": 0.45, "make sense": 0.35, "recommend*": 0.35,
    "thoughts": 0.35, "opinion": 0.3, "sanity check": 0.4, "second opinion": 0.45, "torn between": 0.5,
    "leaning towards": 0.4, "on the fence": 0.45, "how bad": 0.45, "how urgent": 0.45,
    "how worried": 0.45, "anything i should": 0.45, "worry": 0.3, "worried": 0.3, "nervous": 0.3,
    "not sure": 0.4, "unsure": 0.4, "unclear": 0.4, "disagree": 0.4, "debate": 0.3,
    "no strong opinion": 0.4, "consider*": 0.25, "figure out how": 0.3, "figure out whether": 0.45,
    "rethink": 0.35, "build or buy": 0.45, "build our own": 0.35, "roll our own": 0.4,
    "or pay for": 0.4, "compare": 0.3, "which way": 0.45, "what s safe": 0.45, "s safe": 0.3,
    "evaluate": 0.25, "how to handle": 0.4, "how should we handle": 0.5, "treat it as": 0.35,
    "treat this as": 0.35, "what s the plan": 0.45, "the plan for": 0.35, "come up with": 0.3,
    "propose": 0.3, "how far": 0.25, "how much": 0.15, "any risk": 0.45, "risks": 0.3, "safe": 0.25,
    "worst that": 0.4, "worst case": 0.35, "apply to us": 0.4,
    "what would we": 0.35, "have to change": 0.3, "double check my plan": 0.45, "check my plan": 0.45,
}

COMPLEXITY = {
    "architecture": 0.35, "architectur*": 0.35, "distributed": 0.35, "microservice*": 0.4,
    "monolith*": 0.3, "services": 0.2, "service": 0.1, "multiple": 0.15, "concurren*": 0.35,
    "race condition*": 0.35, "atomic": 0.3, "consistency": 0.25, "replicat*": 0.3, "replica": 0.25,
    "shard*": 0.4, "partition*": 0.3, "scales": 0.3, "scale": 0.3, "scaling": 0.3, "scalab*": 0.3,
    "millions": 0.3, "million": 0.3, "rows": 0.15, "event sourcing": 0.4, "event driven": 0.35,
    "queue*": 0.2, "kafka": 0.3, "rabbitmq": 0.3, "real time": 0.25, "multi tenant*": 0.4,
    "per tenant": 0.3, "tenants": 0.3, "multi region": 0.4, "active active": 0.4, "migrat*": 0.3,
    "cutover": 0.35, "rewrite": 0.3, "redesign": 0.3, "infrastructure": 0.25, "orchestrat*": 0.25,
    "kubernetes": 0.25, "without downtime": 0.35, "zero downtime": 0.4, "w o downtime": 0.35,
    "without locking": 0.4, "lock the table": 0.35, "keeps running": 0.35, "backfill*": 0.3,
    "backward compat*": 0.3, "all consumers": 0.3, "plugin system": 0.3, "out of process": 0.3,
    "in process": 0.2, "across all": 0.25, "across": 0.15, "row level security": 0.3, "sso": 0.2,
    "saml": 0.2, "at the same time": 0.2, "split": 0.2, "merge the": 0.2, "jwt*": 0.15,
    "mobile app": 0.15, "depend on": 0.25, "integrations": 0.2, "public api": 0.3,
    "new service": 0.2, "versioning": 0.25, "version the": 0.3, "foreign key*": 0.3,
    "drifted": 0.3, "sync": 0.15, "offline": 0.2, "conflict*": 0.2, "idempoten*": 0.3,
    "multi currency": 0.3, "cross service": 0.3, "every service": 0.3, "each service": 0.3,
    "in place": 0.15, "blue green": 0.3, "logical replication": 0.35, "ledger": 0.2,
    "polyrepo*": 0.3, "monorepo": 0.25, "re encrypt": 0.3, "reindex": 0.2, "webhooks": 0.15,
    "cqrs": 0.4, "moving": 0.25, "move from": 0.3, "moving from": 0.3, "file storage": 0.25, "graphql": 0.25, "grpc": 0.25, "serverless": 0.25, "lambda": 0.15,
    "data model": 0.3, "schema design": 0.35, "domain model": 0.3, "coupling": 0.25,
    "caching strategy": 0.35, "cache invalidation": 0.35, "consistency model": 0.4,
    "eventual consistency": 0.4, "exactly once": 0.4, "at least once": 0.3, "ordering": 0.25,
    "retries": 0.15, "dual write*": 0.4, "two phase": 0.35, "distributed lock*": 0.4,
    "leader election": 0.4, "failover": 0.25, "replication lag": 0.35, "throughput": 0.2,
    "high availability": 0.35, "load balanc*": 0.2, "cdn": 0.15, "edge": 0.15,
    "several services": 0.3, "all services": 0.3, "14 services": 0.3, "downstream": 0.2,
    "backwards compat*": 0.3, "compatib*": 0.2, "old versions": 0.25, "dependencies": 0.1,
}

STAKES = {
    # live systems and the people on them (production before purge: the order is the matched order)
    "production": 0.35, "prod": 0.3, "live": 0.25, "in prod": 0.35, "customers": 0.25,
    "customer": 0.2, "customer data": 0.45, "customers data": 0.45, "customer s data": 0.45, "user data": 0.4,
    "users data": 0.4, "user s data": 0.4, "user documents": 0.4, "user files": 0.4, "user uploads": 0.4,
    "customer csv": 0.4, "customer list": 0.4, "customer export": 0.4, "customer database*": 0.4, "customer records": 0.45, "all users": 0.35,
    "everyone": 0.25, "all customers": 0.4, "existing customers": 0.35, "users": 0.1,
    "millions of users": 0.35, "partners": 0.2, "investors": 0.3, "enterprise": 0.25,
    "sla": 0.3, "paying": 0.3,
    # destroying or rewriting what cannot come back
    "data loss": 0.5, "lose data": 0.5, "irreversib*": 0.5, "permanently": 0.45, "purge": 0.45,
    "wipe": 0.45, "flush": 0.35, "truncate": 0.4, "drop": 0.25, "drops": 0.25, "drop table": 0.35,
    "delete": 0.2, "deletes": 0.25, "deleted": 0.3, "deletion": 0.3, "hard delete": 0.45,
    "destroy*": 0.35, "overwrit*": 0.4, "force push*": 0.4, "rewrite the git history": 0.45,
    "history": 0.15, "filter repo": 0.4, "squash the whole history": 0.45, "rebase main": 0.35,
    "backup*": 0.35, "locked the db": 0.35, "deploy": 0.1, "restore": 0.3, "snapshot": 0.2, "dedupe": 0.25, "merges accounts": 0.4,
    "renumber": 0.35,
    # outages and incidents
    "downtime": 0.3, "outage": 0.45, "is down": 0.45, "incident": 0.4, "breach": 0.5,
    "500s": 0.3, "500 for": 0.3, "5xx": 0.3, "oom": 0.25, "fail over": 0.35, "failover": 0.35,
    "roll back": 0.3, "rollback": 0.3, "cpu 100": 0.35, "expires in": 0.3, "stale": 0.2,
    "falling behind": 0.25, "backed up": 0.2,
    # security controls, secrets and access
    "security": 0.35, "secure": 0.25, "vulnerab*": 0.35, "cve": 0.3, "pen test": 0.35,
    "exploit*": 0.4, "attack*": 0.35, "compromised": 0.5, "leaked": 0.45, "leak": 0.4,
    "exposed": 0.45, "exposure": 0.4, "abused": 0.4, "authenticat*": 0.35, "authoriz*": 0.35,
    "auth": 0.3, "oauth": 0.35, "sso": 0.3, "saml": 0.3, "login": 0.2, "sign in": 0.2,
    "locking users out": 0.4, "log everyone out": 0.35, "password*": 0.35, "password reset": 0.45, "reset link*": 0.4, "account recovery": 0.45, "secret*": 0.35,
    "credential*": 0.45, "creds": 0.45, "api key*": 0.3, "api token*": 0.35, "private key*": 0.5,
    "admin key": 0.45, "jwt*": 0.3, "session*": 0.2, "session cookie*": 0.3, "cookies": 0.15,
    "token*": 0.2, "encrypt*": 0.3, "encryption key*": 0.45, "signing key*": 0.45, "signup": 0.15, "sign up": 0.15, "plain text": 0.35, "plaintext": 0.35, "hash*": 0.15,
    "bcrypt": 0.25, "argon2*": 0.25, "tls": 0.3, "ssl": 0.3, "certificate*": 0.3, "cert": 0.25,
    "csrf": 0.45, "xss": 0.45, "cors": 0.3, "injection": 0.4, "svg": 0.15, "2fa": 0.4, "mfa": 0.4,
    "captcha": 0.3, "email verification": 0.35, "magic link": 0.3, "permission*": 0.35,
    "privilege*": 0.4, "impersonat*": 0.45, "permission check*": 0.5, "access check*": 0.5, "auth check*": 0.5, "admin": 0.25, "as root": 0.4, "root": 0.2,
    "rbac": 0.35, "roles": 0.2, "access": 0.2, "read access": 0.35, "access to": 0.25,
    "ssh key": 0.3, "access token": 0.35, "revoke": 0.3, "public": 0.25, "bucket": 0.25,
    "internet": 0.25, "vpn": 0.25, "firewall": 0.3, "rate limit*": 0.3, "fraud": 0.45,
    "scraped": 0.25, "supply chain": 0.4, "trust": 0.2,
    # personal data and compliance
    "pii": 0.45, "personal data": 0.45, "ssn": 0.5, "patient": 0.45, "phi": 0.45, "gdpr": 0.45,
    "ccpa": 0.45, "hipaa": 0.5, "soc 2": 0.35, "compliance": 0.35, "regulat*": 0.35,
    "audit*": 0.2, "audit trail": 0.35, "audit log*": 0.35, "legal*": 0.4, "lawyer*": 0.4, "consent": 0.35, "dpa": 0.35,
    "retention": 0.3, "licen*": 0.2, "gpl": 0.35, "residency": 0.35, "eu": 0.15,
    "addresses": 0.25, "phone numbers": 0.25, "emails": 0.15, "real customer*": 0.4,
    "another customer": 0.45, "unsubscribed": 0.35,
    # money
    "payment*": 0.4, "billing": 0.35, "billed": 0.35, "charge*": 0.3, "double charg*": 0.5,
    "overcharg*": 0.45, "refund*": 0.45, "payout*": 0.4, "transfers": 0.3, "invoice*": 0.25,
    "pricing": 0.35, "price*": 0.25, "revenue": 0.35, "money": 0.3, "fees": 0.25, "tax": 0.25,
    "currency": 0.2, "subscri*": 0.2, "discount*": 0.25, "coupon": 0.2, "balances": 0.35,
    "wallet": 0.3, "ledger": 0.3, "commission": 0.3, "credit card*": 0.5, "card number*": 0.5,
    "card up front": 0.35, "pci": 0.5, "financial": 0.3, "finance": 0.2, "oversold": 0.45,
    "oversell*": 0.45, "inventory": 0.25, "stripe": 0.35, "adyen": 0.35, "paypal": 0.35, "braintree": 0.35, "payment provider": 0.45, "credits": 0.2, "free trial": 0.25, "the cost": 0.2,
    # commitments that are expensive to reverse
    "lock in": 0.35, "breaking change*": 0.4, "breaking": 0.3, "public api": 0.35,
    "stuck supporting": 0.45, "for years": 0.35, "migrat*": 0.25, "schema": 0.15,
    "reliability": 0.25, "reliable": 0.2, "isolation": 0.25, "vendor": 0.2, "open sourcing": 0.3,
    "deprecat*": 0.25, "sunset": 0.25, "end of life": 0.25, "source of truth": 0.3,
    "self host*": 0.25, "replatform*": 0.35, "re architect*": 0.35, "rewrite": 0.25,
    # more of the same concepts, in other words
    "account takeover": 0.5, "takeover": 0.4, "hijack*": 0.45, "spoof*": 0.4, "forge*": 0.35,
    "forged": 0.4, "tamper*": 0.4, "brute force": 0.4, "credential stuffing": 0.45, "phishing": 0.4,
    "malware": 0.45, "ransomware": 0.5, "backdoor": 0.5, "exfiltrat*": 0.5, "zero day": 0.45,
    "ssrf": 0.45, "rce": 0.45, "remote code": 0.45, "sql injection": 0.5, "idor": 0.45,
    "sanitiz*": 0.3, "clickjacking": 0.4, "content security policy": 0.35, "csp": 0.3,
    "file upload*": 0.3, "uploads": 0.2, "vault": 0.3, "kms": 0.35, "key rotation": 0.4,
    "rotate": 0.3, "rotation": 0.25, "revoked": 0.3, "hmac": 0.35, "webhook secret": 0.45,
    "sudo": 0.3, "chmod 777": 0.45, "security group*": 0.35, "0 0 0 0": 0.4, "open port*": 0.35,
    "bastion": 0.3, "iam": 0.35, "least privilege": 0.35, "service account*": 0.35,
    "superuser": 0.4, "admin panel": 0.35, "admin rights": 0.45, "admin access": 0.45,
    "cross tenant": 0.5, "tenant isolation": 0.45, "another tenant": 0.5, "other tenants": 0.4,
    "debug mode": 0.35, "publicly": 0.35, "public url*": 0.35, "presigned": 0.3, "signed url*": 0.3,
    "anyone with the link": 0.45, "share link*": 0.3, "secrets manager": 0.3, "env vars": 0.1,
    "signing": 0.3, "signature": 0.3, "unauthenticated": 0.45, "anonymous": 0.25,
    "alter table": 0.35, "drop column": 0.4, "rename column": 0.3, "data migration": 0.4,
    "bulk update": 0.4, "mass update": 0.4, "update all": 0.35, "delete all": 0.45, "remove all": 0.35,
    "bulk delete": 0.45, "batch delete": 0.4, "cascade": 0.35, "soft delete*": 0.3, "orphan*": 0.2,
    "corrupt*": 0.45, "data integrity": 0.45, "inconsistent": 0.3, "reconcil*": 0.3,
    "point in time": 0.35, "disaster recovery": 0.4, "disk full": 0.4, "out of disk": 0.4,
    "archive": 0.15, "cold storage": 0.25, "retention job": 0.35, "cleanup job": 0.3,
    "checkout": 0.3, "orders": 0.15, "purchase*": 0.25, "transaction*": 0.2, "settlement*": 0.4,
    "chargeback*": 0.45, "dispute*": 0.3, "receipt*": 0.2, "vat": 0.3, "sales tax": 0.35,
    "rounding": 0.3, "float": 0.15, "cents": 0.2, "exchange rate*": 0.35, "payroll": 0.45,
    "salar*": 0.35, "bank": 0.3, "banking": 0.35, "iban": 0.4, "wire transfer*": 0.45,
    "merchant*": 0.3, "seller*": 0.2, "proration": 0.3, "prorat*": 0.3, "renewal*": 0.3,
    "dunning": 0.35, "gift card*": 0.35, "promo code*": 0.25, "voucher*": 0.25, "accounting": 0.35,
    "financial report*": 0.4, "books": 0.2, "reservation*": 0.2, "overbook*": 0.4, "paid": 0.2,
    "degraded": 0.35, "error rate": 0.35, "errors spiking": 0.4, "latency spike*": 0.35,
    "502": 0.3, "503": 0.3, "timeouts": 0.25, "paged": 0.35, "on call": 0.3, "sev1": 0.5,
    "sev 1": 0.5, "sev2": 0.4, "p1": 0.3, "hotfix": 0.3, "revert": 0.2, "single point of failure": 0.4,
    "overload*": 0.3, "dead letter": 0.3, "dns": 0.2, "region outage": 0.45,
    "iso 27001": 0.35, "sox": 0.4, "ferpa": 0.45, "coppa": 0.45, "kyc": 0.4, "aml": 0.35,
    "sanction*": 0.4, "export control*": 0.4, "data processing": 0.4, "subprocessor*": 0.35,
    "privacy": 0.35, "terms of service": 0.35, "opt in": 0.3, "opt out": 0.3, "opted out": 0.35,
    "unsubscrib*": 0.25, "right to be forgotten": 0.45, "erasure": 0.4, "legal hold": 0.45,
    "auditor*": 0.35, "regulator*": 0.45, "fine": 0.05, "fined": 0.45, "lawsuit": 0.5,
    "liabilit*": 0.4, "agpl": 0.4, "copyleft": 0.35, "trademark": 0.3, "copyright": 0.3,
    "minors": 0.4, "schools": 0.3, "kids": 0.35, "students": 0.3, "children s": 0.35, "age verification": 0.4, "medical": 0.4, "health data": 0.45,
    "biometric*": 0.45, "location data": 0.4, "date of birth": 0.35, "passport*": 0.4,
    "go live": 0.3, "launch": 0.2, "all tenants": 0.4, "every customer": 0.4, "every user": 0.35,
    "100 of users": 0.35, "maintenance window": 0.3, "friday": 0.15, "release": 0.15,
    "protected branch": 0.4, "delete the branch": 0.3, "reset main": 0.45, "rewrite history": 0.45,
    "rewriting history": 0.45, "history rewrite": 0.45,
    "untrusted": 0.45, "arbitrary code": 0.5, "their own code": 0.45, "user code": 0.35, "eval": 0.25,
    "public ip": 0.45, "publicly reachable": 0.45, "exposing": 0.35, "expose": 0.3, "same server": 0.25,
    "outdated": 0.25, "unpatched": 0.4, "end of support": 0.3, "md5": 0.4, "sha1": 0.35,
    "users table": 0.35, "user table": 0.35, "accounts table": 0.35, "auth database": 0.35,
    "account deletion": 0.45, "delete their account": 0.4, "data import": 0.3, "bad data": 0.35,
    "bad import": 0.35, "no backups": 0.5, "no backup": 0.5, "without backups": 0.5,
    "ip address*": 0.3, "anonymi*": 0.3, "pseudonymi*": 0.3, "transcripts": 0.3, "recordings": 0.3,
    "cookie*": 0.15, "tracking": 0.25, "fine tune": 0.2, "train on": 0.3, "training data": 0.3,
    "full copy": 0.35, "copy of the production": 0.45, "copy of prod": 0.45, "their own aws": 0.35,
    "another account": 0.3, "allowlist": 0.25, "security questions": 0.4, "run twice": 0.35,
    "twice": 0.2, "duplicate charge*": 0.5, "duplicates": 0.2, "renewal charges": 0.45,
    "stored procedure*": 0.2, "business rules": 0.25,
    # the same concepts in other word forms (prefixes) and neighbouring risks
    "secur*": 0.3, "credent*": 0.45, "permiss*": 0.3, "authent*": 0.35, "authori*": 0.35,
    "privac*": 0.35, "confidential*": 0.4, "sensitive": 0.35, "compliant": 0.35, "complian*": 0.35,
    "financ*": 0.25, "invoic*": 0.25, "revenu*": 0.35, "fraud*": 0.45, "breach*": 0.5,
    "leak*": 0.4, "expos*": 0.35, "malicious": 0.45, "delet*": 0.25, "destructive": 0.45,
    "permanent*": 0.4, "restor*": 0.3, "recover*": 0.3, "outag*": 0.45, "incident*": 0.4,
    "rollback*": 0.3, "rolled back": 0.3, "lost": 0.3, "missing data": 0.45, "data is gone": 0.5,
    "wiped": 0.45, "overwritten": 0.45, "corrupted": 0.45, "can t recover": 0.5, "unrecoverable": 0.5,
    "wrong amount*": 0.45, "overpaid": 0.4, "underpaid": 0.4, "owe": 0.35, "credit note*": 0.35,
    "compensat*": 0.35, "charged": 0.35, "billing error*": 0.45, "spend": 0.2, "aws bill": 0.35,
    "cost spike": 0.35, "mass email": 0.35, "email everyone": 0.4, "email all": 0.35,
    "bulk email": 0.3, "spam": 0.25, "sender reputation": 0.35, "app store": 0.25,
    "force update": 0.3, "old app versions": 0.35, "notify customers": 0.35, "tell customers": 0.35,
    "status page": 0.25, "sla credit*": 0.4, "third party script*": 0.35, "pixel*": 0.2,
    "prompt injection": 0.45, "customer data to": 0.4, "llm": 0.15, "pentest": 0.35,
    "bug bounty": 0.35, "disclosure": 0.35, "patch": 0.15, "log4j": 0.45, "secrets in": 0.4,
    "offboard*": 0.3, "access review": 0.3, "shipping": 0.15, "fulfil*": 0.2, "warehouse": 0.2,
    "stock level*": 0.3, "orders table": 0.35, "order data": 0.35, "everything": 0.15,
    "all data": 0.4, "all the data": 0.4, "whole database": 0.45, "entire database": 0.45,
    "whole table": 0.35, "entire table": 0.35, "all records": 0.4, "every record": 0.4,
    "all rows": 0.35, "mission critical": 0.45, "critical": 0.25, "dangerous": 0.4, "risky": 0.3,
    "risk": 0.2, "safety": 0.3, "liability": 0.4, "purchased list": 0.45, "bought list": 0.45,
    "contacts": 0.25, "start emailing": 0.3, "list price": 0.3, "resellers": 0.2, "marketplace": 0.2,
    # verbs in every form
    "truncat*": 0.4, "purging": 0.4, "purged": 0.4, "wiping": 0.45, "dropping": 0.3, "dropped": 0.3, "flushing": 0.35,
    "destroying": 0.4, "overwriting": 0.4, "rotating": 0.3, "revok*": 0.3, "disabling": 0.3,
    "leaking": 0.45, "charging": 0.3, "refunding": 0.4, "deleting": 0.3,
    # asking about the risk says there is one
    "any risk": 0.35, "the risk": 0.25, "worst that": 0.4, "worst case": 0.4, "what could go wrong": 0.4,
    "blast radius": 0.45, "is it safe": 0.3, "safe to": 0.25,
    # grants of access and who holds them
    "rights": 0.25, "push rights": 0.45, "write access": 0.45, "commit access": 0.45, "merge rights": 0.4,
    "admin role": 0.4, "owner role": 0.4, "intern": 0.25, "contractor": 0.3, "infra repo": 0.35,
    "infrastructure repo": 0.35, "terraform": 0.25, "anon key": 0.4, "service key": 0.4,
    "directly": 0.1,
    # people harmed when it goes wrong
    "hospital": 0.45, "clinic*": 0.4, "patients": 0.45, "health": 0.3, "emergency": 0.35,
    "double booking*": 0.45, "abuse*": 0.35, "existing users": 0.3, "all accounts": 0.4,
    # privacy in other words
    "device id*": 0.35, "ad network*": 0.4, "advertis*": 0.25, "disclos*": 0.35, "never told": 0.35,
    "without telling": 0.35, "without consent": 0.45, "mail server": 0.3,
    # trusting what a client sends, or reading untrusted input as code
    "trusts the": 0.35, "trusts": 0.3, "pickle*": 0.4, "verify false": 0.5,
    # behaviour traces that identify people
    "clickstream": 0.35, "ips": 0.3, "user ids": 0.3, "user id": 0.2,
    # what the public reaches: names, domains, certificates
    "domain": 0.25, "apex": 0.35, "mx record*": 0.4, "load balancer": 0.25,
    # money in other words: plans, captures, prizes, what we owe
    "capture*": 0.3, "free plan": 0.35, "free users": 0.3, "prize*": 0.35, "payout": 0.4,
    "in the contract": 0.4, "commit to": 0.3,
    # live data stores named as such
    "live db": 0.4,
}

CONTEXT_DEPENDENCE = {
    "our": 0.2, "we have": 0.3, "we re": 0.2, "for us": 0.35, "in our case": 0.4, "our use case": 0.4,
    "our current": 0.35, "current traffic": 0.35, "our traffic": 0.35, "growing": 0.25,
    "traffic": 0.2, "teams": 0.3, "team": 0.2, "other teams": 0.35, "other services": 0.35,
    "consumers": 0.25, "still referenced": 0.35, "reference those": 0.3, "referenced by": 0.3,
    "existing": 0.1, "legacy": 0.3, "roadmap": 0.35, "expansion": 0.3, "business": 0.25,
    "requirements": 0.2, "constraints": 0.3, "stakeholder*": 0.35, "enterprise customers": 0.35,
    "operational": 0.25, "shared": 0.15, "given": 0.2, "effort": 0.2, "cost": 0.2,
    "we pay": 0.3, "saas": 0.25, "it depends": 0.4, "depends on": 0.3, "downstream": 0.3,
    "experience": 0.2, "growth": 0.25, "expected": 0.2, "partners": 0.25,
    "existing integrations": 0.35, "depend on": 0.25,
    # someone else's needs and facts the prompt only reports
    "legal says": 0.4, "legal hasn t": 0.4, "finance": 0.3, "marketing": 0.3, "sales": 0.25,
    "support says": 0.35, "support wants": 0.35, "product wants": 0.35, "product really wants": 0.35,
    "customer success": 0.3, "the cto": 0.35, "board": 0.25, "investors": 0.3, "contract": 0.3,
    "contractors": 0.25, "agencies": 0.3, "prospect": 0.3, "promised": 0.35, "sla": 0.3,
    "budget": 0.3, "as far as i know": 0.45, "nobody uses": 0.4, "nobody s queried": 0.4,
    "nobody queried": 0.4, "i think": 0.2, "i suspect": 0.2, "looks like": 0.2, "probably": 0.2,
    "should be about": 0.3, "open prs": 0.35, "four people": 0.3, "mobile clients": 0.3,
    "old clients": 0.3, "mobile app": 0.2, "mobile team": 0.3, "per customer": 0.25,
    "dau": 0.3, "rps": 0.3, "at peak": 0.25, "per month": 0.2, "month": 0.1, "tonight": 0.2,
    "this afternoon": 0.2, "by tomorrow": 0.3, "next quarter": 0.25, "right now": 0.25,
    "last night": 0.25, "since": 0.15, "in 6 hours": 0.3, "for a month": 0.3, "a year": 0.15,
    "our users": 0.3, "our customers": 0.35, "our clients": 0.35, "our setup": 0.35, "our stack": 0.3,
    "our scale": 0.35, "our data": 0.3, "our team": 0.3, "small team": 0.3, "person team": 0.3,
    "only one": 0.15, "nobody knows": 0.4, "no one knows": 0.4, "don t know": 0.3, "not documented": 0.3,
    "undocumented": 0.3, "as far as we know": 0.45, "i believe": 0.25, "supposedly": 0.35,
    "apparently": 0.3, "someone said": 0.35, "they say": 0.3, "they want": 0.25, "wants": 0.15,
    "asked us": 0.3, "asked me": 0.25, "complain*": 0.25, "the ceo": 0.35, "leadership": 0.3,
    "management": 0.25, "compliance team": 0.35, "security team": 0.3, "security review": 0.3,
    "ops team": 0.25, "on call": 0.2, "customers are": 0.3, "users are": 0.3, "users report": 0.35,
    "customer report*": 0.35, "this week": 0.15, "deadline": 0.3, "next week": 0.15, "before the": 0.15,
    "in production for": 0.35, "for a year": 0.3, "for months": 0.3, "for weeks": 0.3,
    "half our": 0.3, "some of": 0.15, "some customers": 0.35, "a few customers": 0.35,
    "third party": 0.3, "third parties": 0.3, "vendor": 0.2, "external": 0.2, "partner": 0.2,
    "nobody on the team": 0.4, "the team knows": 0.3, "this weekend": 0.2,
}

BUILTIN_VOCABULARIES = {
    "ambiguity": AMBIGUITY,
    "complexity": COMPLEXITY,
    "stakes": STAKES,
    "context_dependence": CONTEXT_DEPENDENCE,
}

# A step that destroys, rewrites or weakens something…
IRREVERSIBLE_ACTIONS = (
    "delet*", "drop", "drop the", "dropping", "truncat*", "purg*", "wipe*", "wiping", "flush*",
    "destroy*", "destroying", "erase*", "erasing", "overwrit*", "force push*", "rewrite the git history", "rewrite history", "squash the whole",
    "rebase main", "renumber", "dedupe", "merges accounts", "clean up the", "get rid of",
    "disable*", "turn off", "switch off", "remove the", "skip", "bypass", "make the s3 bucket public",
    "make it public", "public so", "give the", "read access", "admin creds", "roll the new",
    "roll out", "switch the", "migrate the", "update last", "recompute and overwrite", "hard delete",
    "auto refund", "apply arbitrary", "100 off", "merge*", "revert the", "rerun the", "re run the",
    "reset", "upgrade", "replay", "share", "send the", "grant*", "shrink*", "resiz*", "convert the",
    "rename the", "replace the", "reimport", "re import", "reindex", "rebuild", "full refresh",
    "mark all", "bulk", "stop the", "kill the", "restore", "rotate the", "apply the", "run the migration",
)
# …aimed at systems someone relies on now.
LIVE_TARGETS = (
    "production", "prod", "live", "in prod", "all existing customers", "all customers", "everyone",
    "all users", "existing customers", "real users", "real customer*", "main", "master",
    "release branch", "checkout", "public api", "customers", "payment*", "fraud checks", "is shared",
    "customer list", "customer data", "user data", "personal data", "customers data", "pii",
    "on prod", "in production", "live system", "prod warehouse", "prod db", "production db",
    "shared with",
)
IRREVERSIBLE_ON_LIVE = 0.6  # context dependence added when both lists match

# An order that opens with one of these verbs (or says it intends to act) changes something;
# aimed at a live target with enough at stake, it counts like the steps above. Verbs that only
# add, read or explain (add, create, write, show, check, explain) are not among them.
CHANGE_VERBS = (
    "apply", "run", "send", "share", "set", "reset", "update", "import", "export", "enable",
    "disable", "turn", "give", "grant", "change", "convert", "rename", "move", "mark", "start",
    "stop", "drop", "delete", "remove", "switch", "migrate", "deploy", "release", "roll", "push",
    "merge", "replace", "rewrite", "restore", "upgrade", "downgrade", "rotate", "revoke", "expose",
    "open", "publish", "purge", "wipe", "flush", "truncate", "kill", "shut", "clean", "cleanup",
    "overwrite", "reindex", "rebuild", "email", "charge", "refund", "pay", "transfer", "close",
)
# The live targets such an order must name (narrower than LIVE_TARGETS: "payments" or "customers"
# alone say what the code is about, not that a live system is being changed).
LIVE_SYSTEMS = (
    "production", "prod", "live", "in prod", "on prod", "in production", "live system", "prod db",
    "production db", "prod warehouse", "customer list", "customer data", "user data", "personal data",
    "customers data", "pii", "all users", "all customers", "everyone", "every user", "every customer",
    "all existing customers", "main", "master", "real users", "real customer*",
)
INTENT = ("i want to", "i d like to", "i m going to", "i will", "i ll", "let s", "we re going to",
          "we will", "going to", "about to", "planning to", "i plan to")

# Switching off or loosening…
WEAKENING = (
    "disable*", "turn off", "switch off", "skip*", "bypass*", "remove the", "allow*", "relax*", "reset",
    "loosen*", "stop checking", "ignore the", "no longer", "without",
)
# …a protection: stakes rise whatever the words around them.
PROTECTIONS = (
    "csrf", "xss", "verification", "verify*", "2fa", "mfa", "captcha", "auth", "authenticat*",
    "authoriz*", "ssl", "tls", "certificate*", "cert", "fraud check*", "rate limit*", "cors",
    "validation", "signature*", "encryption", "firewall", "sandbox", "permission check*",
    "access control", "password*", "login", "security", "audit log*", "backups", "2 factor", "sso",
    "saml", "encryption at rest", "isolation", "consent", "review",
)
WEAKENS_PROTECTION = 0.45  # stakes added when both lists match

# A question that opens with one of these verbs proposes a step: "Disable SSO for now?"
PROPOSING_VERBS = (
    "disable", "enable", "delete", "drop", "remove", "purge", "wipe", "truncate", "switch", "move",
    "migrate", "give", "grant", "make", "turn", "allow", "block", "upgrade", "downgrade", "roll",
    "rollback", "revert", "restore", "keep", "use", "go", "merge", "skip", "ship", "deploy",
    "release", "expose", "open", "let", "store", "send", "import", "start", "export", "publish", "charge", "refund", "pay", "force",
    "rewrite", "replace", "change", "stop", "pause", "kill", "fail", "failover", "rotate", "revoke",
)

# A choice about the code's own layout, names or tooling: cheap to change whatever the situation
# (no "decision in a described situation" signal).
CODE_LOCAL = (
    "helper*", "function", "variable", "module", "file name", "folder", "name it", "naming",
    "call it", "rename", "tabs", "spaces", "indent*", "lint*", "formatter", "style", "test data",
    "fixtures", "mock", "component", "css", "icon*", "button", "toast", "dataclass", "namedtuple",
    "enum*", "constants py", "utils py", "import*", "type hint*", "docstring*", "comment*",
    "cli", "for internal use", "small project", "side project", "prototype", "toy", "theme",
)

# The decision is already made: ambiguity × (1 − factor), the strongest match only.
SETTLED = {
    "as agreed": 0.7, "we agreed": 0.7, "agreed in": 0.7, "following the adr": 0.7, "per the adr": 0.7,
    "following the runbook": 0.7, "as the security advisory says": 0.6, "same as the other": 0.6,
    "like the existing": 0.6, "like we do for": 0.6, "using the existing": 0.5,
    "no behaviour change*": 0.6, "no behavior change*": 0.6, "behaviour identical": 0.6,
    "behavior identical": 0.6, "no logic changes": 0.6, "just a move": 0.6, "just describe": 0.7,
    "just explain": 0.7, "no changes just explain": 0.7, "just trying to understand": 0.7, "just reading": 0.7, "just curious": 0.6,
    "explain the": 0.4, "walk me through": 0.5, "just want to understand": 0.7, "want to understand": 0.6,
    "trying to understand": 0.6,
}
# The target is cheap to lose: stakes × (1 − factor) when no live target is named.
DISPOSABLE = {
    "locally": 0.5, "my local": 0.6, "local dev": 0.6, "local environment": 0.6, "local database": 0.6,
    "local db": 0.6, "local copy": 0.6, "local postgres": 0.6, "dev": 0.4, "for local dev": 0.6, "staging": 0.4,
    "test": 0.3, "tests": 0.3, "fixture*": 0.4, "memory leak*": 0.6, "leak in memory": 0.6, "sandbox": 0.4, "sqlite": 0.4, "tmp": 0.4,
    "feature branch": 0.5, "my branch": 0.5, "mock": 0.4, "fake": 0.4,
}

# Platforms a system is built on: a choice among them ("ECS, EKS or EC2?", "Postgres or
# DynamoDB?", "Elixir for the new service?") is a commitment that lasts years and is costly to
# reverse — stakes rise when one is named in a decision question (confidence.platform_choice).
PLATFORMS = (
    "aws", "heroku", "ecs", "eks", "ec2", "kubernetes", "on prem*", "region", "second region",
    "postgres*", "mysql", "mongo*", "dynamodb", "cassandra", "redis", "elasticsearch", "opensearch",
    "typesense", "bigquery", "kafka", "rabbitmq", "sqs", "kinesis", "rails", "django",
    "react native", "swift", "kotlin", "elixir", "node", "graphql", "rest", "monolith*", "auth0",
    "keycloak", "firebase", "stripe connect", "paddle", "s3", "terraform", "database", "queue",
)
PLATFORM_CHOICE = 0.45  # stakes added by a platform named in a decision question

# Who or what a large count is of: "60k free accounts", "400k users", "2M jobs a day" — a
# change that reaches that many raises the stakes (confidence.many_affected).
AFFECTED = (
    "users", "accounts", "customers", "subscriptions", "sellers", "orders", "payments", "invoices",
    "records", "rows", "jobs", "emails", "devices", "people", "installs",
)
MANY_AFFECTED = 0.35
