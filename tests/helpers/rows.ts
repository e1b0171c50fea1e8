/*
 * Builders of runs and pending rows for the persistence suites.
 */

import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { hashArgs } from '../../src/inbox/args_hash.ts'
import { viewDigest } from '../../src/governance/view.ts'
import type { QuestionSet } from '../../src/questions/types.ts'
import vine from '@vinejs/vine'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { say, scriptedModel } from '../../src/testing/scripted_model.ts'

export const DEPLOY_QUESTIONS: QuestionSet = {
  preamble: 'Before I scaffold the service:',
  questions: [
    {
      id: 'db',
      prompt: 'Which database should it use?',
      options: [
        { value: 'pg', label: 'PostgreSQL' },
        { value: 'mysql', label: 'MySQL' },
        { value: 'sqlite', label: 'SQLite' },
      ],
      defaults: ['pg'],
    },
    {
      id: 'replicas',
      prompt: 'How many replicas?',
      input: { type: 'integer', min: 1, max: 9 },
      defaults: ['2'],
    },
  ],
}

/**
 * The agent the runs below belong to. A runtime that settles their rows
 * defines it, as an app defines the agents of its runs: a reply to a row
 * of a run whose agent the runtime does not define is refused, and the run
 * ended (src/runtime/unknown_agent.ts). Resumed, its runs end with "done".
 */
export function rowsAgent() {
  return defineAgent({
    name: 'deployer',
    model: scriptedModel(() => [say('done')]),
    instructions: 'Deploy.',
    // The tool of the action rows below: an approval of a tool the app does not define is refused
    tools: [
      defineTool({
        name: 'deploy',
        description: 'Deploy a branch',
        kind: 'action',
        input: vine.object({ branch: vine.string(), force: vine.boolean().optional() }),
        handle: () => 'deployed',
      }),
    ],
  })
}

export async function createRun(ownerId: string | null = 'user:1') {
  return AgentRun.create({ agent: 'deployer', ownerId, status: 'waiting', input: { task: 'ship' } })
}

let sequence = 0

export async function createAskRow(overrides: Partial<ToolCall> = {}) {
  const run = await createRun()
  return ToolCall.create({
    runId: run.id,
    sequence: ++sequence,
    toolName: 'ask',
    kind: 'ask',
    status: 'pending',
    ownerId: run.ownerId,
    request: DEPLOY_QUESTIONS,
    ...overrides,
  })
}

export async function createActionRow(overrides: Partial<ToolCall> = {}) {
  const run = await createRun()
  const args = { branch: 'main', force: false }
  return ToolCall.create({
    runId: run.id,
    sequence: ++sequence,
    toolCallId: 'call_1',
    toolName: 'deploy',
    kind: 'action',
    status: 'pending',
    ownerId: run.ownerId,
    request: { args, summary: 'Deploy main to production' },
    argsHash: hashArgs(args),
    ...overrides,
  })
}

/**
 * The digests of rows as a page shows them, by id: what a bulk decision
 * names (`digests`) to be made on what was shown.
 */
export function digestsOf(...rows: ToolCall[]): Record<string, string> {
  return Object.fromEntries(rows.map((row) => [row.id, viewDigest(row)]))
}
