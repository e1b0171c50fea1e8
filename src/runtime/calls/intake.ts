/*
 * The agent's intake form: a question set asked before the first model
 * call, answered like any question set. Its row is opened once per
 * attempt, and a retried run recalls the earlier answer instead of asking
 * again. It belongs to the start of a run, whatever a deploy changes later.
 */

import { RUN_FAILURES } from '../../errors.ts'
import type { QuestionOutcome, QuestionSet } from '../../questions/types.ts'
import { assertQuestionSet } from '../../questions/assert.ts'
import { CANCELLED, WAIT, type CallContext } from './context.ts'
import { expiry, openWait, recall } from './waits.ts'
import type { AgentDefinition } from '../define_agent.ts'
import type { RunMemory } from '../run_memory.ts'
import { linkWoken } from '../../telemetry/trace_context.ts'

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
    /*
     * The intake is the app's own code: its problems (an empty set, a bad
     * intent, a default not on offer) come as the coded errors app code
     * gets, and fail the run before any model call.
     */
    let checked: QuestionSet
    try {
      checked = await assertQuestionSet(set)
    } catch (error) {
      await context.state.fail(
        run,
        RUN_FAILURES.invalidIntake,
        `The intake of agent "${agent.name}" is invalid: ${(error as Error).message}`
      )
      return 'invalid' as const
    }
    // A retried run does not ask its intake again (docs/design.md §4.5)
    const recalled = await recall(run, 'intake', checked)
    row = await openWait(
      context,
      { kind: 'intake', set: checked },
      {
        ...expiry(agent),
        recalled: recalled ?? undefined,
      }
    )
  }
  if (row.status === 'pending') return WAIT
  if (row.status === 'cancelled') return CANCELLED
  linkWoken(row)
  const outcome = row.outcome as QuestionOutcome
  return `Intake form, answered before you started:\n${outcome.text}`
}

/**
 * Whether the run's intake is still to be asked or read: only before the
 * run's first model call, so a journal never gets a question between a
 * tool call and its result (an intake a later deploy added to the agent is
 * for new runs). An intake row the attempt already has is read even when
 * the agent no longer has an intake: its answers reach the model. A chat
 * asks it on its first turn only: the later turns are sent its answers.
 */
export function intakeDue(agent: AgentDefinition, memory: RunMemory): boolean {
  // The step count first: a run past its start pays nothing for this check, however long
  if (memory.conversation.steps > 0) return false
  if ((memory.run.conversationTurn ?? 1) > 1) return false
  if (memory.journal.some((entry) => entry.kind === 'intake')) return false
  return agent.intake !== undefined || memory.rows.some((row) => row.kind === 'intake')
}
