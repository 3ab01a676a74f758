"""workflow_plan: the most agents a Workflow script can start, read from its text — an upper
bound, or None with the reason when the count depends on what happens at run time."""

from __future__ import annotations

import pytest

from deliberation.core.workflow_plan import CLIENT_CAP, plan, tokenize

META = "export const meta = {name: 'w', description: 'a workflow', phases: [{title: 'Research'}]}\n"


def bound(body: str, args=None):
    return plan(META + body, args).bound


# --------------------------------------------------------------------------- bounded shapes


@pytest.mark.parametrize(
    "body,expected",
    [
        # the measured case: one call fanned out over a literal list of 15
        (
            "const P = ['a','b','c','d','e','f','g','h','i','j','k','l','m','n','o']\n"
            "return await parallel(P.map(p => () => agent(`research as ${p}`)))",
            15,
        ),
        ("return await parallel([1, 2, 3].map(i => () => agent(`r${i}`, {label: `r${i}`})))", 3),
        ("const A = await agent('a')\nconst B = await agent('b')\nreturn [A, B]", 2),
        # both branches of a conditional count
        ("const r = await agent('one')\nreturn r.ok ? await agent('two') : await agent('three')", 3),
        ("const r = await agent('one')\nif (r) { await agent('two') } else { await agent('three') }", 3),
        # pipeline: every stage once per item
        (
            "const D = [{k: 'bugs'}, {k: 'perf'}, {k: 'sec'}]\n"
            "return await pipeline(D, d => agent(`review ${d.k}`), r => agent(`verify ${r}`))",
            6,
        ),
        (
            "const FILES = ['a.py', 'b.py']\nconst out = []\nfor (const f of FILES) {\n"
            "  out.push(await agent(`review ${f}`))\n  out.push(await agent(`test ${f}`))\n}\nreturn out",
            4,
        ),
        ("for (let i = 0; i < 4; i++) await agent(`try ${i}`)", 4),
        ("for (let i = 1; i <= 4; i++) { await agent(`try ${i}`) }", 4),
        ("const N = 5\nfor (let i = 0; i < N; i++) await agent(`try ${i}`)", 5),
        ("for await (const f of ['x', 'y']) await agent(f)", 2),
        ("return await parallel(Array.from({length: 3}, () => () => agent('Try to refute')))", 3),
        ("const VOTES = 4\nreturn await parallel(Array.from({length: VOTES}).map(() => () => agent('v')))", 4),
        # a named function counts once per use
        (
            "async function review(file) { return agent(`review ${file}`) }\nconst verify = (x) => agent(`verify ${x}`)\n"
            "const FILES = ['a', 'b', 'c']\nconst r = await parallel(FILES.map(f => () => review(f)))\n"
            "return [r, await verify(r)]",
            4,
        ),
        ("const judge = async function (x) { return agent(x) }\nawait judge(1)\nawait judge(2)", 2),
        ("const lanes = {fast: x => agent(x), slow: x => agent(x)}\nawait lanes.fast(1)\nawait lanes.fast(2)", 2),
        ("const stage = d => agent(`review ${d}`)\nreturn await pipeline(['a', 'b'], stage, stage)", 4),
        ("const unused = x => agent(x)\nreturn 1", 0),
        ("return await parallel(['p', 'q'].map(agent))", 2),
        # known sizes through spreads, filters, slices, Object.keys
        (
            "const A = ['x', 'y']\nconst B = [...A, 'z']\nconst picks = B.filter(b => b !== 'y').slice(0, 2)\n"
            "return await parallel(picks.map(p => () => agent(p)))",
            2,
        ),
        (
            "const L = {correctness: 'a', security: 'b', repro: 'c'}\n"
            "return await parallel(Object.entries(L).map(([k, v]) => () => agent(`${k}: ${v}`)))",
            3,
        ),
        ("const L = ['a', 'b', 'c', 'd']\nreturn await parallel(L.slice(1).map(x => () => agent(x)))", 3),
        # comments, strings and regular expressions are not calls
        (
            "// agent('in a comment')\n/* agent('block') */\nconst s = \"agent('not a call')\"\n"
            "const re = /agent\\(/g\nreturn await agent(`only ${'one'}`)",
            1,
        ),
        # a line break ends a statement: the arrow above does not swallow the call below
        ("const f = x => x\nawait agent('y')", 1),
        ("return 42", 0),
    ],
)
def test_bounded_scripts(body, expected):
    p = plan(META + body)
    assert p.bound == expected, p.describe()
    assert p.unbounded == "" and p.error == ""


def test_the_tools_args_give_the_size_of_a_fan_out_over_them():
    body = "return await parallel(args.map(q => () => agent(q)))"
    assert bound(body, ["q1", "q2", "q3"]) == 3
    assert bound(body) is None


def test_describe_names_each_call_site_and_its_factors():
    p = plan(META + "const P = ['a', 'b']\nreturn await parallel(P.map(p => () => agent(p)))")
    assert p.describe() == "at most 2 agent(s): line 3: × 2 (.map() × 2 (line 3))"


# --------------------------------------------------------------------------- no bound


@pytest.mark.parametrize(
    "body,why",
    [
        (
            "const bugs = []\nwhile (bugs.length < 10) {\n  const r = await agent('Find bugs')\n  bugs.push(...r.bugs)\n}",
            "line 3: an agent() call inside a while loop",
        ),
        (
            "let dry = 0\ndo { const r = await agent('find'); if (!r) dry++ } while (dry < 2)",
            "line 3: an agent() call inside a do loop",
        ),
        (
            "const found = await agent('find')\nreturn await parallel(found.items.map(f => () => agent(`verify ${f}`)))",
            "line 3: .map() over a list whose size is not known before the script runs",
        ),
        (
            "const P = ['a']\nP.push('b')\nreturn await parallel(P.map(p => () => agent(p)))",
            "line 4: .map() over a list whose size is not known before the script runs",
        ),
        (
            "async function dig(n) { const r = await agent('dig'); return dig(n + 1) }\nreturn dig(0)",
            "dig() calls itself (recursion)",
        ),
        ("return await workflow('other')", "line 2: a nested workflow() call (its agents share this run)"),
        ("const a = agent\nreturn await a('x')", "line 2: agent is given another name"),
        ("for (let i = 0; i < n; i++) await agent('x')", "line 2: a for loop whose iteration count is not known"),
        (
            "const retry = async (fn) => fn()\nreturn await retry(() => agent('x'))",
            "line 3: a function handed to retry(), which may call it more than once",
        ),
        (
            "return await pipeline(args.files, f => agent(f))",
            "line 2: pipeline() over items whose number is not known before the script runs",
        ),
    ],
)
def test_unbounded_scripts_say_why(body, why):
    p = plan(META + body)
    assert p.bound is None and p.unbounded == why, p.describe()
    assert p.describe() == f"no bound: {why}"


def test_the_issue_example_from_the_client_reference_has_no_bound():
    script = """export const meta = {
    name: 'review-changes',
    description: 'Review changed files across dimensions, verify each finding',
    phases: [{ title: 'Review' }, { title: 'Verify' }],
  }
  const DIMENSIONS = [{key: 'bugs', prompt: '...'}, {key: 'perf', prompt: '...'}]
  const results = await pipeline(
    DIMENSIONS,
    d => agent(d.prompt, {label: `review:${d.key}`, phase: 'Review', schema: FINDINGS_SCHEMA}),
    review => parallel(review.findings.map(f => () =>
      agent(`Adversarially verify: ${f.title}`, {label: `verify:${f.file}`, phase: 'Verify', schema: VERDICT_SCHEMA})
        .then(v => ({...f, verdict: v}))
    ))
  )
  return results.flat().filter(Boolean)
"""
    p = plan(script)
    assert p.bound is None and "review.findings" not in p.unbounded
    assert p.unbounded == "line 10: .map() over a list whose size is not known before the script runs"


def test_a_huge_literal_fan_out_is_capped_at_the_clients_own_limit():
    items = ", ".join(str(i) for i in range(1500))
    assert bound(f"return await parallel([{items}].map(i => () => agent(`x${{i}}`)))") == CLIENT_CAP


@pytest.mark.parametrize(
    "script,error",
    [
        ("", "no script text"),
        (META + "const s = 'unterminated\n", "line 2: unterminated string"),
        (META + "return agent(('x')", "line 2: unclosed '('"),
        (META + "const t = `abc ${1 + ", "unterminated template expression"),
    ],
)
def test_text_that_is_not_a_script_has_no_bound(script, error):
    p = plan(script)
    assert p.bound is None and p.error == error
    assert p.describe() == f"not analysable: {error}"


# --------------------------------------------------------------------------- options


def test_agent_types_and_models_are_collected():
    p = plan(
        META + "const A = await agent('a', {agentType: 'security-analyst'})\n"
        "const B = await agent('b', {agentType: 'deliberation:cost-analyst', model: 'sonnet'})\n"
        "const C = await agent('c', {model: 'haiku'})"
    )
    assert p.agent_types == ["security-analyst", "deliberation:cost-analyst"]
    assert p.models == ["sonnet", "haiku"] and not p.computed_agent_type


def test_a_computed_agent_type_keeps_the_scripts_string_literals_as_candidates():
    p = plan(
        META + "const P = ['security-analyst', 'cost-analyst']\n"
        "return await parallel(P.map(p => () => agent('research', {agentType: p})))"
    )
    assert p.computed_agent_type and p.bound == 2
    assert {"security-analyst", "cost-analyst"} <= set(p.agent_types)


def test_template_expressions_are_code_and_their_text_is_not():
    kinds = [(t.kind, t.text) for t in tokenize("`a ${agent('x')} b`")]
    assert kinds == [
        ("str", "a "),
        ("punc", "("),
        ("id", "agent"),
        ("punc", "("),
        ("str", "x"),
        ("punc", ")"),
        ("punc", ")"),
        ("str", " b"),
    ]
    assert bound("return `${await agent('x')} and ${await agent('y')}`") == 2
