/*
 * `node ace agents:run <agent> [input]`: starts a run and answers it in the
 * terminal (docs/design.md §7.5): its intake and its questions as numbered options,
 * its approvals as y/n, each settled through the inbox as
 * `terminal:<user>` via 'terminal'; then prints the run's result.
 *
 * With no TTY on stdin (piped, CI) nobody can answer, so the run is
 * started without an owner, which keeps the ask tool away from the model
 * (docs/design.md §4.1); approvals are denied with "denied: no terminal to approve
 * from" and an intake proceeds on its defaults. Nothing waits on a prompt
 * nobody sees.
 *
 * With `--owner <id>` the run is that person's (the id the inbox knows them
 * by, the user's id by default): nothing is asked here, the command ends
 * once the run waits or finishes, and what it waits on is in their web
 * inbox, where settling it resumes the run. The first step after
 * `configure`: a row in the signed-in user's own inbox.
 */

import { setTimeout as sleep } from 'node:timers/promises'
import { BaseCommand, args, flags } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'
import type { AgentRun } from '../src/persistence/models/agent_run.ts'
import type { ToolCall } from '../src/persistence/models/tool_call.ts'
import type { Agents } from '../src/runtime/agents.ts'
import { waitsForAnswers } from '../src/inbox/wait.ts'
import '../src/types/extended.ts'

/** How often a run driven elsewhere (a queue worker) is looked at again */
const POLL_INTERVAL = 250

export default class AgentsRun extends BaseCommand {
  static commandName = 'agents:run'
  static description = 'Run an agent and answer its questions and approvals in the terminal'
  static help = [
    'Questions show numbered options: type a number, several separated',
    'by commas, or your own words where allowed; Enter keeps the',
    'pre-picked defaults. Approvals take y or n, and a reason on n.',
    '',
    'Without a terminal (piped stdin, CI) the agent is not offered the',
    'ask tool, approvals are denied and an intake proceeds on its',
    'defaults, so the command never waits for input.',
    '',
    "With --owner, the run is that user's: what it asks waits in their",
    'web inbox (/inbox), and the command ends once the run waits.',
    '',
    '{{ binaryName }} agents:run operator \'{"service":"api"}\'',
    '{{ binaryName }} agents:run operator --owner=1',
  ]
  static options: CommandOptions = { startApp: true }

  @args.string({ description: 'Name of the agent, as defined in config/agents.ts' })
  declare agent: string

  @args.string({
    description: 'Input of the run: JSON when it starts with { or [, else the text',
    required: false,
  })
  declare input?: string

  @flags.string({
    description:
      'Start the run for this owner (a user id): it waits in their web inbox, nothing is asked here',
  })
  declare owner?: string

  async run() {
    const { NO_TERMINAL_REASON, describeWaiting, parseRunInput } =
      await import('../src/channels/terminal_answers.ts')
    const { TerminalReader, hasTerminal, settleFromTerminal, terminalUser } =
      await import('../src/channels/terminal.ts')
    const { isFinished } = await import('../src/persistence/models/agent_run.ts')

    const agents = await this.app.container.make('agents.runtime')
    if (!agents.definitions.has(this.agent)) {
      const known = [...agents.definitions.keys()].join(', ') || 'none'
      this.logger.error(`No agent named "${this.agent}". Agents: ${known}`)
      this.exitCode = 1
      return
    }

    if (this.owner !== undefined) return this.#startFor(agents, this.owner)

    const interactive = hasTerminal(process.stdin)
    const by = `terminal:${terminalUser()}`
    const run = await agents.start(this.agent, {
      input: parseRunInput(this.input),
      // No owner, no ask tool: with no terminal nobody could answer
      owner: interactive ? by : null,
    })
    this.logger.info(`Run ${run.id} of "${this.agent}" started`)
    if (!interactive) {
      this.logger.info('No terminal on stdin: the agent cannot ask, and approvals are denied')
    }

    const write = (line: string) => this.logger.log(line)
    const reader = interactive ? new TerminalReader() : null
    /** The drive error last told, so each is told (and resumed after) once */
    let toldError: string | null = null
    try {
      for (;;) {
        await agents.idle()
        await run.refresh()
        if (isFinished(run.status)) return this.#report(run)

        const { rows: pending } = await agents.inbox.list({ status: 'pending', runId: run.id })
        if (pending.length === 0) {
          const noted = run.lastErrorAt?.toISO() ?? null
          if (run.lastError && noted !== toldError) {
            // A drive failed past its retries: say why, and try once more (the lease decides)
            toldError = noted
            this.logger.warning(`Driving run ${run.id} failed: ${run.lastError}; trying again`)
            await agents.executor.resume(run.id)
          }
          // Driven elsewhere (a queue worker, another process's lease)
          await sleep(POLL_INTERVAL)
          continue
        }
        for (const row of pending) {
          if (!reader) {
            await this.#settleWithoutTerminal(agents, row, by, NO_TERMINAL_REASON)
            continue
          }
          const settlement = await settleFromTerminal(agents.inbox, row, reader, write, by)
          if (settlement.result === 'lost') this.logger.warning(settlement.message)
          if (settlement.result === 'aborted') {
            this.logger.warning(
              `Stopped. Run ${run.id} waits for ${describeWaiting(row)}; answer it with ` +
                `"node ace agents:inbox --row ${row.id}" or in the inbox`
            )
            this.exitCode = 1
            return
          }
        }
      }
    } finally {
      reader?.close()
    }
  }

  /**
   * Starts the run for `owner` and lets it go as far as it can here: it
   * ends, or waits on rows in the owner's inbox (settled there, it resumes
   * in the process that settled it or on a worker).
   */
  async #startFor(agents: Agents, owner: string) {
    const { parseRunInput, describeWaiting } = await import('../src/channels/terminal_answers.ts')
    const { isFinished } = await import('../src/persistence/models/agent_run.ts')
    const run = await agents.start(this.agent, { input: parseRunInput(this.input), owner })
    this.logger.info(`Run ${run.id} of "${this.agent}" started for ${owner}`)
    for (;;) {
      await agents.idle()
      await run.refresh()
      if (isFinished(run.status)) return this.#report(run)
      const { rows } = await agents.inbox.list({ status: 'pending', runId: run.id })
      if (rows.length > 0) {
        for (const row of rows) this.logger.log(`  waiting: ${describeWaiting(row)}`)
        this.logger.success(`Run ${run.id} waits in the inbox of ${owner}: open /inbox`)
        return
      }
      // Driven elsewhere (a queue worker)
      await sleep(POLL_INTERVAL)
    }
  }

  /**
   * Nobody can answer: approvals are denied with the reason, question sets
   * (an intake) proceed on their defaults, marked skipped.
   */
  async #settleWithoutTerminal(agents: Agents, row: ToolCall, by: string, reason: string) {
    const asks = waitsForAnswers(row)
    const reply = asks ? { answers: {}, skip: true } : { approved: false, reason }
    try {
      await agents.inbox.settle(row.id, reply, { by, via: 'terminal' })
      if (asks) {
        this.logger.warning(`${row.kind}: no terminal to answer from, proceeding on its defaults`)
      } else {
        this.logger.warning(`${row.toolName}: ${reason}`)
      }
    } catch (error) {
      // Settled elsewhere meanwhile: the loop reads the run again
      this.logger.warning((error as Error).message)
    }
  }

  #report(run: AgentRun) {
    if (run.status === 'completed') {
      this.logger.success(`Run ${run.id} completed`)
      const result = run.result as { text?: string } | null
      this.logger.log(result?.text ?? JSON.stringify(run.result))
      return
    }
    this.exitCode = 1
    if (run.status === 'failed') {
      this.logger.error(`Run ${run.id} failed: ${run.errorCode}: ${run.error}`)
    } else {
      this.logger.warning(`Run ${run.id} was cancelled`)
    }
  }
}
