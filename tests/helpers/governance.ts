/*
 * The governed agents of the governance suites (docs/design.md §11): a
 * `refund` action decided by a policy (under $50 allowed, over $1,000
 * denied, else 3 of the finance role, never the requester), `read_logs`
 * that needs an approval and can be remembered for a run or for the
 * approver, and an irreversible `wipe`. The model calls, in order, the
 * tools its input lists (`{"calls":[["refund",{"amount":20}], …]}`), one a
 * turn, then says it is done.
 */

import vine from '@vinejs/vine'
import { defineAgent } from '../../src/runtime/define_agent.ts'
import { defineTool } from '../../src/runtime/define_tool.ts'
import { policy } from '../../src/governance/policy.ts'
import { call, say, scriptedModel } from './runtime.ts'

/** The finance role: the requester `ada` is in it, and excluded from voting */
export const FINANCE = ['ada', 'f1', 'f2', 'f3', 'f4', 'f5']

/**
 * The tools, and what each ran (as effects on the outside world).
 */
export function governedTools() {
  const refunds: number[] = []
  const reads: string[] = []
  const wipes: string[] = []
  const refund = defineTool({
    name: 'refund',
    description: 'Refund a customer',
    kind: 'action',
    input: vine.object({ amount: vine.number(), customer: vine.string().optional() }),
    summary: ({ amount }) => `Refund $${amount}`,
    policy: ({ input }) => {
      if (input.amount < 50) return policy.allow('refunds under $50')
      if (input.amount > 1000) return policy.deny('Refunds over $1000 go through the bank')
      return policy.ask(
        { approvers: { role: 'finance' }, quorum: 3, excludeRequester: true },
        'refunds from $50 need 3 of finance'
      )
    },
    handle: async ({ amount }) => {
      refunds.push(amount)
      return `refunded ${amount}`
    },
  })
  const readLogs = defineTool({
    name: 'read_logs',
    description: 'Read the logs of a service',
    kind: 'read',
    needsApproval: true,
    grants: [
      { scope: 'run' },
      { scope: 'person', ttl: '24h' },
      { scope: 'args', keys: ['service'] },
    ],
    input: vine.object({ service: vine.string() }),
    handle: async ({ service }) => {
      reads.push(service)
      return `${service}: all quiet`
    },
  })
  const wipe = defineTool({
    name: 'wipe',
    description: 'Wipe a database',
    kind: 'action',
    irreversible: true,
    input: vine.object({ db: vine.string() }),
    handle: async ({ db }) => {
      wipes.push(db)
      return `wiped ${db}`
    },
  })
  return { refund, readLogs, wipe, refunds, reads, wipes }
}

/**
 * A model that calls what its input lists, one call a turn.
 */
export function listedCallsModel() {
  return scriptedModel(
    Array.from({ length: 400 }, () => (options: { prompt: any[] }) => {
      const user = options.prompt.find((message) => message.role === 'user')
      const text = user.content.map((part: any) => (part.type === 'text' ? part.text : '')).join('')
      const calls = (JSON.parse(text) as { calls: [string, unknown][] }).calls
      const done = options.prompt.filter((message) => message.role === 'tool').length
      if (done >= calls.length) return [say('done')]
      const [tool, args] = calls[done]
      return [call(`c${done}`, tool, args)]
    })
  )
}

/**
 * The governed agent.
 */
export function governedAgent(tools: ReturnType<typeof governedTools>) {
  return defineAgent({
    name: 'governed',
    instructions: 'Do what is asked.',
    tools: [tools.refund, tools.readLogs, tools.wipe],
    model: listedCallsModel(),
  })
}

/** A run's input listing its calls */
export function callsInput(...calls: [string, unknown][]) {
  return { calls }
}
