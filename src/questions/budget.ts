/*
 * The per-run question budget (docs/design.md §4.4): a run may call the ask tool
 * `limits.askBudget` times (3 by default). Past that, the call is refused
 * with a result telling the model to decide for itself and say so, so a
 * chatty model cannot turn a run into an interview.
 *
 * What counts is the caller's business, and it should count ask calls only:
 * intake forms never spend the budget. Calls refused as malformed did not
 * reach anybody, so the runtime is free not to count them either.
 */

import type { QuestionLimits } from './types.ts'
import { resolveLimits } from './values.ts'

/**
 * Whether one more ask call fits the run's budget. `askCallsSoFar` is the
 * number of ask calls the run already made, not counting this one;
 * `remaining` is how many more fit after this one.
 *
 * @example
 * checkAskBudget(0) // { allowed: true, remaining: 2 }
 * checkAskBudget(3) // { allowed: false, message: 'This run has used its question budget …' }
 */
export function checkAskBudget(
  askCallsSoFar: number,
  limits?: Partial<QuestionLimits>
): { allowed: true; remaining: number } | { allowed: false; message: string } {
  const budget = Math.max(0, Math.floor(resolveLimits(limits).askBudget))
  const used = Number.isNaN(askCallsSoFar) ? 0 : Math.max(0, Math.floor(askCallsSoFar))

  if (used < budget) return { allowed: true, remaining: budget - used - 1 }

  const spent =
    budget === 0
      ? 'This run may not ask questions.'
      : `This run has used its question budget (${budget} ask ${budget === 1 ? 'call' : 'calls'}); nothing was asked.`
  return {
    allowed: false,
    message: `${spent} Do not call ask again. For each open question, choose the most reasonable option yourself, carry on with the task, and state every assumption you made in your final answer.`,
  }
}
