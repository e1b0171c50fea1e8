/*
 * Helpers of the runtime tests. The scripted model and what it was told
 * come from the testing kit (src/testing/scripted_model.ts), which apps use
 * too; here are the tools, agents and rows the scenarios share.
 */

import vine from '@vinejs/vine'
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { toolResults } from '../../src/testing/scripted_model.ts'
import { Agents, type AgentsOptions } from '../../src/runtime/agents.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import type { QuestionSet } from '../../src/questions/types.ts'

// The scripted model and its readers, as the testing kit exports them
export * from '../../src/testing/scripted_model.ts'

/**
 * A deploy action that records each execution, and a read tool.
 */
export function deployTools() {
  const executions: Array<{ branch: string; force: boolean }> = []
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a branch to production',
    kind: 'action',
    input: vine.object({ branch: vine.string().minLength(1), force: vine.boolean().optional() }),
    summary: ({ branch }) => `Deploy ${branch} to production`,
    handle: async ({ branch, force }) => {
      executions.push({ branch, force: force ?? false })
      return { deployed: branch }
    },
  })
  const readLogs = defineTool({
    name: 'read_logs',
    description: 'Read the last log lines of a service',
    kind: 'read',
    input: vine.object({ service: vine.string() }),
    handle: async ({ service }) => `${service}: all quiet`,
  })
  return { deploy, readLogs, executions }
}

/**
 * An action that needs no approval, writing its text down in `notes`, and
 * a read tool, `look`, whose keys go to `reads`.
 */
export function noteTools(notes: string[], reads: string[] = []) {
  const note = defineTool({
    name: 'note',
    description: 'Write a note down',
    kind: 'action',
    needsApproval: false,
    input: vine.object({ text: vine.string() }),
    handle: async ({ text }) => {
      notes.push(text)
      return 'noted'
    },
  })
  const look = defineTool({
    name: 'look',
    description: 'Look something up',
    kind: 'read',
    input: vine.object({ key: vine.string() }),
    handle: async ({ key }) => {
      reads.push(key)
      return `value of ${key}`
    },
  })
  return { note, look }
}

/**
 * A runtime on the test app's database.
 */
export function createAgents(options: AgentsOptions) {
  return new Agents(options)
}

export const DB_QUESTION: QuestionSet = {
  questions: [
    {
      id: 'db',
      prompt: 'Which database?',
      options: [
        { value: 'pg', label: 'PostgreSQL' },
        { value: 'mysql', label: 'MySQL' },
      ],
      defaults: ['pg'],
    },
  ],
}

/*
 * Helpers of the runtime scenario suites (tests/runtime/*.spec.ts).
 */

/**
 * The result one tool call got, as the model read it in this call.
 */
export function toolResultOf(options: LanguageModelV4CallOptions, toolCallId: string) {
  const found = toolResults(options).find((result) => result.toolCallId === toolCallId)
  if (!found) throw new Error(`The model was sent no result for tool call "${toolCallId}"`)
  return found
}

/**
 * An events sink recording the names it was sent, in order.
 */
export function eventRecorder() {
  const names: string[] = []
  return {
    names,
    emit(name: string) {
      names.push(name)
    },
  }
}

/**
 * The rows of a run, in order.
 */
export function rowsOf(runId: string) {
  return ToolCall.query().where('run_id', runId).orderBy('sequence', 'asc')
}

/**
 * A one-question set with two options, the first pre-picked.
 */
export function choice(id: string, prompt: string, labels: [string, string]): QuestionSet {
  return {
    questions: [
      {
        id,
        prompt,
        options: [
          { value: `${id}-a`, label: labels[0] },
          { value: `${id}-b`, label: labels[1] },
        ],
        defaults: [`${id}-a`],
      },
    ],
  }
}
