export const meta = {
  name: 'deliberate',
  description: 'Deliberate on a decision with independent persona agents (research, deliberation, blind ranking, the decision document) under the deliberation plugin\'s rules; args: the question',
  phases: [{title: 'Research'}, {title: 'Deliberation'}, {title: 'Ranking'}, {title: 'Document'}],
}

// The deliberation plugin's workflow (docs/WORKFLOW.md). It holds no rule: the plugin's hooks fill
// `args` with the first wave and answer every checkpoint with the next one, computed from the
// reports they recorded. Without the hooks, `args` is the bare question and nothing runs.
const A = (args !== null && typeof args === 'object' && args.plugin === 'deliberation') ? args : null
if (A === null) {
  return {
    status: 'hooks_off',
    message: 'The deliberation plugin did not answer: its hooks are not running in this session, so no agent ' +
      'was started and nothing was checked or recorded. Tell the user that the deliberation plugin is not ' +
      'active here (install it, or run its install.sh for this project) before deliberating.',
  }
}

const waves = []
let step = A.first
for (let i = 0; i < 8 && step && step.next === 'run'; i++) {
  const wave = step.wave
  // an agent without its own prompt or schema takes the wave's (the same for every agent of it)
  const reports = await parallel(wave.agents.map(a => () => {
    const opts = {label: a.label, phase: wave.phase, agentType: a.agentType, schema: a.schema || wave.schema}
    if (a.model) opts.model = a.model
    return agent(a.prompt || wave.prompt, opts)
  }))
  waves.push({wave: wave.name, agents: wave.agents.length, reported: reports.filter(r => r !== null).length})
  if (wave.last) {
    return {status: 'ran', deliberation: A.deliberation, waves: waves}
  }
  const [verdict] = await parallel([() =>
    agent(wave.checkpoint, {label: 'checkpoint · after ' + wave.name, phase: wave.phase,
      agentType: A.checkpoint.agentType, schema: A.checkpoint.schema})])
  if (verdict === null) {
    return {status: 'checkpoint_failed', deliberation: A.deliberation, waves: waves,
      message: 'The checkpoint agent after the ' + wave.name + ' wave did not report (its agent type ' +
        A.checkpoint.agentType + ' may be missing), so the workflow stopped there.'}
  }
  if (verdict.plugin !== 'deliberation') {
    return {status: 'hooks_off', deliberation: A.deliberation, waves: waves,
      message: 'The deliberation plugin did not answer the checkpoint after the ' + wave.name + ' wave: its ' +
        'hooks stopped answering while the workflow ran. What ran is in the waves listed; tell the user.'}
  }
  step = verdict
}
return {status: step ? (step.status || 'stopped') : 'stopped', deliberation: A.deliberation, waves: waves,
  why: step ? (step.why || '') : ''}
