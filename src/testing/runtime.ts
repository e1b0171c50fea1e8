/*
 * Running an app's agents in a test: a runtime of its own for a few agent
 * definitions (the app's database, the inline executor), a scripted model
 * swapped in for an agent's real one, and `drive`, which lets a run go as
 * far as it can and says where it stopped: finished, or waiting on rows,
 * those its driver holds open in memory (an MCP elicitation) included.
 */

import type { LanguageModel } from 'ai'
import { Agents, type AgentsOptions } from '../runtime/agents.ts'
import type { AgentDefinition } from '../runtime/define_agent.ts'
import { AgentRun } from '../persistence/models/agent_run.ts'
import { ToolCall } from '../persistence/models/tool_call.ts'
import { heldRows } from '../inbox/awaiting.ts'
import debug from '../debug.ts'

export type TestAgentsOptions = Omit<AgentsOptions, 'agents' | 'executor'> & {
  /** Models to play instead of the agents' own, by agent name */
  models?: Record<string, LanguageModel>
}

/**
 * A runtime for these agents on the app's default Lucid connection, driving
 * runs in this process. The tables must exist (the package's migration).
 *
 * @example
 * const agents = testAgents([invoiceBot], { models: { invoice_bot: scriptedModel([[say('Done')]]) } })
 * const run = await agents.start('invoice_bot', { input: 'Bill ACME', owner: 'user:1' })
 */
export function testAgents(definitions: AgentDefinition[], options: TestAgentsOptions = {}) {
  const { models = {}, ...rest } = options
  return new Agents({
    ...rest,
    agents: definitions.map((agent) =>
      models[agent.name] ? { ...agent, model: models[agent.name] } : agent
    ),
  })
}

/**
 * Plays `model` instead of an agent's own in a runtime (the app's, from
 * `adonis-agent-inbox/services/main`, or a test's). Returns the function
 * that puts the agent's model back.
 *
 * @example
 * const restore = fakeModel(agents, 'deployer', scriptedModel([[say('Nothing to deploy')]]))
 * cleanup(restore)
 */
export function fakeModel(agents: Agents, name: string, model: LanguageModel): () => void {
  const agent = agents.definitions.get(name)
  if (!agent) throw new Error(`No agent named "${name}" in this runtime`)
  const real = agent.model
  agent.model = model
  return () => {
    agent.model = real
  }
}

/**
 * Where a run stopped: the run as it is now, its pending rows in order
 * (none once it finished), and its final text once completed.
 */
export type DriveResult = { run: AgentRun; pending: ToolCall[]; text: string | null }

/**
 * Lets a run go as far as it can (every drive scheduled in this process
 * ends, auto-answers included) and reads where it stopped: finished, or
 * waiting on pending rows. A run whose tool waits on a row while it runs
 * (an MCP server's elicitation) stops there too: it stays `running`, its
 * driver holding the call open, with the row in `pending`. Settle one and
 * call it again for the next wait.
 *
 * @example
 * let { run, pending } = await drive(agents, started)
 * await agents.inbox.settle(pending[0].id, { answers: {} }, { by: 'user:1', via: 'test' })
 * ;({ run, pending } = await drive(agents, run))
 */
export async function drive(agents: Agents, run: AgentRun | string): Promise<DriveResult> {
  const id = typeof run === 'string' ? run : run.id
  await stopped(agents, id)
  const current = await AgentRun.findOrFail(id)
  const pending = await ToolCall.query()
    .where('run_id', id)
    .where('status', 'pending')
    .orderBy('sequence', 'asc')
  const result = current.result as { text?: unknown } | null
  return { run: current, pending, text: typeof result?.text === 'string' ? result.text : null }
}

/**
 * Until every drive of this process has ended, or this run's driver waits
 * in memory on a row of the run that is still pending, with no auto-answer
 * on its way: that drive ends only once the row is settled.
 */
async function stopped(agents: Agents, runId: string) {
  let unlisten = () => {}
  const waitsOnPerson = new Promise<void>((resolve) => {
    let checking = false
    const check = async () => {
      if (checking) return
      checking = true
      try {
        const held = heldRows.ofRun(runId)
        if (held.length === 0 || (await agents.inbox.settling())) return
        const open = await ToolCall.query().whereIn('id', held).where('status', 'pending').first()
        if (open) resolve()
      } catch (error) {
        // The next read of the row checks again; idle() still ends the drive
        debug('drive: checking held rows failed %O', error)
      } finally {
        checking = false
      }
    }
    unlisten = heldRows.listen(() => void check())
    void check()
  })
  try {
    await Promise.race([agents.idle(), waitsOnPerson])
  } finally {
    unlisten()
  }
}
