/*
 * The agent's intake form: a question set asked before the first model
 * call, answered like any question set. Its row is opened once per
 * attempt, and a retried run recalls the earlier answer instead of asking
 * again.
 */

import type { QuestionOutcome } from '../../questions/types.ts'
import { formatIssuesForModel } from '../../questions/ask_tool.ts'
import { validateQuestionSet } from '../../questions/validate.ts'
import { FAILURE_CODES } from '../run_state.ts'
import { CANCELLED, WAIT, type CallContext } from './context.ts'
import { expiry, openWait, recall } from './waits.ts'

/**
 * The intake row: created before the first model call, answered like
 * any question set. Returns the text for the model, or a wait. An invalid
 * intake fails the run and returns `'invalid'`; an agent whose intake
 * gives no set returns null.
 */
export async function handleIntake(context: CallContext) {
  const { run, agent } = context
  let row = context.rows.find((candidate) => candidate.kind === 'intake')
  if (!row) {
    const intake = agent.intake!
    const set = typeof intake === 'function' ? await intake(run.input) : intake
    if (!set) return null
    const checked = await validateQuestionSet(set)
    if (!checked.ok) {
      await context.state.fail(
        run,
        FAILURE_CODES.invalidIntake,
        `The intake of agent "${agent.name}" is invalid: ${formatIssuesForModel(checked.issues)}`
      )
      return 'invalid' as const
    }
    // A retried run does not ask its intake again (SPEC §2.9)
    const recalled = await recall(run, 'intake', checked.value)
    row = await openWait(
      context,
      { kind: 'intake', set: checked.value },
      {
        ...expiry(agent),
        recalled: recalled ?? undefined,
      }
    )
  }
  if (row.status === 'pending') return WAIT
  if (row.status === 'cancelled') return CANCELLED
  const outcome = row.outcome as QuestionOutcome
  return `Intake form, answered before you started:\n${outcome.text}`
}
