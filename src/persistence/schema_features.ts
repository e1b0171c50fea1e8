/*
 * Columns a later migration of the package added, which the tables of an
 * app may not have yet: a process of a new version can start before its
 * deploy ran `node ace migration:run` (a rolling deploy), and it keeps
 * working on the tables as they are, without what the columns hold, rather
 * than failing every write (docs/guides/deploying_while_runs_wait.md).
 * Asked once per database connection, and cached once answered (a failed
 * read is not cached: it is asked again next time): a process that started
 * before the migration writes the new columns after its next start.
 */

import { AgentRun } from './models/agent_run.ts'
import debug from '../debug.ts'

/**
 * Whether `columns` all exist, asked once per database connection and
 * cached once answered; a failed read returns `assumed`, not cached (a
 * guess, not an answer: asked again on the next call, so a passing error
 * is not kept).
 */
function columnsCheck(what: string, columns: [table: string, column: string][], assumed: boolean) {
  const asked = new WeakMap<object, Promise<boolean>>()
  return (): Promise<boolean> => {
    const knex = AgentRun.$adapter.modelConstructorClient(AgentRun).getWriteClient()
    let known = asked.get(knex)
    if (!known) {
      known = Promise.all(columns.map(([table, column]) => knex.schema.hasColumn(table, column)))
        .then((found) => {
          const all = found.every(Boolean)
          if (!all) debug('no %s columns: the migrations are behind', what)
          return all
        })
        .catch((error) => {
          debug('reading %s columns failed; assumed %s %O', what, assumed, error)
          asked.delete(knex)
          return assumed
        })
      asked.set(knex, known)
    }
    return known
  }
}

/**
 * Whether `agent_runs` and `agent_tool_calls` have `definition_digest`
 * (the package's second migration). Assumed when the schema cannot be
 * read, and asked again on the next call.
 */
export const hasDefinitionDigests = columnsCheck(
  'definition_digest',
  [
    ['agent_runs', 'definition_digest'],
    ['agent_tool_calls', 'definition_digest'],
  ],
  true
)

/**
 * Whether `agent_tool_calls` has `opened_trace` and `settled_trace` (the
 * package's fourth migration). Asked only while tracing is on; assumed
 * absent when the schema cannot be read (a trace context is never worth a
 * failed write), and asked again on the next call.
 */
export const hasTraceContexts = columnsCheck(
  'trace context',
  [
    ['agent_tool_calls', 'opened_trace'],
    ['agent_tool_calls', 'settled_trace'],
  ],
  false
)

/**
 * Whether the tables hold conversations (the package's seventh migration):
 * a chat needs them, a run on its own does not. Assumed present when the
 * schema cannot be read (starting a turn then fails on its own), and asked
 * again on the next call.
 */
export const hasConversations = columnsCheck(
  'conversation',
  [
    ['agent_conversations', 'head_run_id'],
    ['agent_runs', 'conversation_id'],
  ],
  true
)

/**
 * Whether a Slack message records its language (the package's eighth
 * migration). Assumed absent when the schema cannot be read (a message
 * posted without it is updated in English), and asked again next time.
 */
export const hasSlackLocale = columnsCheck(
  'slack locale',
  [['agent_slack_messages', 'locale']],
  false
)
