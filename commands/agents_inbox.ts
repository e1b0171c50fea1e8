/*
 * `node ace agents:inbox`: lists the rows waiting for a person, and with
 * `--row <id>` settles one from the terminal with the same prompts as
 * `agents:run` (numbered options, own words, y/n). Answers are read line by
 * line from stdin, so a pipe can settle a row too; input that ends before
 * the answer is complete settles nothing.
 */

import { BaseCommand, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import type { Agents } from '../src/runtime/agents.ts'
import '../src/types/extended.ts'

export default class AgentsInbox extends BaseCommand {
  static commandName = 'agents:inbox'
  static description = 'List the rows waiting for a person, or settle one from the terminal'
  static help = [
    'Lists pending questions, intake forms and approvals, oldest first.',
    'With --row, asks that row in the terminal and settles it.',
    '',
    '{{ binaryName }} agents:inbox --owner user:1',
    '{{ binaryName }} agents:inbox --tool deploy   # before removing a tool: what still waits on it',
    '{{ binaryName }} agents:inbox --changed       # after a deploy: rows asked under another definition',
    '{{ binaryName }} agents:inbox --row <row id>',
  ]
  static options: CommandOptions = { startApp: true }

  @flags.string({ description: 'Only the rows of runs owned by this id' })
  declare owner?: string

  @flags.string({ description: 'Only the rows of runs of this agent' })
  declare agent?: string

  @flags.string({ description: 'Only the calls of this tool (ask, intake, or an app tool)' })
  declare tool?: string

  @flags.boolean({
    description: 'Only the rows asked under another definition of their agent (after a deploy)',
  })
  declare changed?: boolean

  @flags.string({ description: 'Settle this row from the terminal' })
  declare row?: string

  @flags.number({ description: 'How many rows to list at most', default: 50 })
  declare limit: number

  async run() {
    const agents = await this.app.container.make('agents.runtime')
    if (this.row) return this.#settle(agents, this.row)
    return this.#list(agents)
  }

  async #list(agents: Agents) {
    const { describeWaiting } = await import('../src/channels/terminal_answers.ts')
    const { AgentRun } = await import('../src/persistence/models/agent_run.ts')
    const { askedUnderAnother, sinceAsked } = await import('../src/runtime/definitions.ts')
    const runsOf = (names: string[], except?: boolean) =>
      AgentRun.query().select('id')[except ? 'whereNotIn' : 'whereIn']('agent', names)

    const { rows } = await agents.inbox.list({
      status: 'pending',
      ownerId: this.owner,
      agent: this.agent,
      tool: this.tool,
      limit: this.limit,
      narrow: this.changed
        ? (query) => void askedUnderAnother(query, agents.definitions, runsOf)
        : undefined,
    })
    if (rows.length === 0) {
      const filters = [
        this.owner && `for ${this.owner}`,
        this.agent && `of agent ${this.agent}`,
        this.tool && `on tool ${this.tool}`,
        this.changed && 'asked under another definition of its agent',
      ].filter(Boolean)
      this.logger.info(['Nothing is waiting', ...filters].join(' '))
      return
    }

    const runs = await AgentRun.query().whereIn(
      'id',
      rows.flatMap((row) => (row.runId ? [row.runId] : []))
    )
    const agentOf = new Map(runs.map((run) => [run.id, run.agent]))
    for (const row of rows) {
      this.logger.log(`${this.colors.cyan(row.id)}  ${describeWaiting(row)}`)
      const details = [
        row.runId ? `agent ${agentOf.get(row.runId) ?? '?'}` : 'no agent run',
        ...(row.runId ? [`run ${row.runId}`] : []),
        `owner ${row.ownerId ?? 'nobody'}`,
        `since ${row.createdAt.toISO()}`,
      ]
      if (row.expiresAt) details.push(`expires ${row.expiresAt.toISO()}`)
      this.logger.log(this.colors.dim(`  ${details.join(' · ')}`))
      const agent = row.runId ? agentOf.get(row.runId) : null
      const since = sinceAsked(row.definitionDigest, agent, agents.definitions)
      if (since === 'changed') {
        this.logger.log(this.colors.yellow(`  asked under another definition of agent ${agent}`))
      } else if (since === 'agent-removed') {
        this.logger.log(this.colors.yellow(`  agent ${agent} is not defined in this version`))
      }
    }
    this.logger.log('')
    this.logger.log(`Settle one with: node ace agents:inbox --row <id>`)
  }

  async #settle(agents: Agents, rowId: string) {
    const { TerminalReader, settleFromTerminal, terminalUser } =
      await import('../src/channels/terminal.ts')

    const row = await agents.inbox.find(rowId)
    if (!row) {
      this.logger.error(`No row ${rowId}`)
      this.exitCode = 1
      return
    }
    if (row.status !== 'pending') {
      const who = row.answeredBy ? ` by ${row.answeredBy}` : ''
      const via = row.answeredVia ? ` via ${row.answeredVia}` : ''
      this.logger.error(`Row ${row.id} is already ${row.status}${who}${via}`)
      this.exitCode = 1
      return
    }

    const run = row.runId ? await agents.run(row.runId) : null
    this.logger.info(
      run ? `Row ${row.id} of run ${run.id} (agent "${run.agent}")` : `Row ${row.id} (no agent run)`
    )
    const reader = new TerminalReader()
    try {
      const write = (line: string) => this.logger.log(line)
      const by = `terminal:${terminalUser()}`
      const settlement = await settleFromTerminal(agents.inbox, row, reader, write, by)
      if (settlement.result === 'aborted') {
        this.logger.error('Input ended before the answer was complete; nothing was settled')
        this.exitCode = 1
        return
      }
      if (settlement.result === 'lost') {
        this.logger.error(settlement.message)
        this.exitCode = 1
        return
      }
      this.logger.success(`Row ${row.id} ${settlement.status}`)
    } finally {
      reader.close()
    }

    // The settle resumed the run (in this process with the inline executor)
    await agents.idle()
    const after = row.runId ? await agents.run(row.runId) : null
    if (after) this.logger.info(`Run ${after.id} is ${after.status}`)
    if (after?.lastError) {
      this.logger.warning(
        `Driving run ${after.id} failed: ${after.lastError}; the web server's recovery resumes it`
      )
    }
  }
}
