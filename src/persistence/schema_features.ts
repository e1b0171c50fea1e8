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

const asked = new WeakMap<object, Promise<boolean>>()
const askedTraces = new WeakMap<object, Promise<boolean>>()

/**
 * Whether `agent_runs` and `agent_tool_calls` have `definition_digest`
 * (the package's second migration). Assumed when the schema cannot be
 * read, and asked again on the next call.
 */
export function hasDefinitionDigests(): Promise<boolean> {
  const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
  const knex = client.getWriteClient()
  let known = asked.get(knex)
  if (!known) {
    known = Promise.all([
      knex.schema.hasColumn('agent_runs', 'definition_digest'),
      knex.schema.hasColumn('agent_tool_calls', 'definition_digest'),
    ])
      .then(([runs, rows]) => {
        if (!runs || !rows) debug('no definition_digest columns: the migrations are behind')
        return runs && rows
      })
      .catch((error) => {
        // A guess, not an answer: asked again next time, so a passing error is not kept
        debug('reading definition_digest columns failed; assumed there %O', error)
        asked.delete(knex)
        return true
      })
    asked.set(knex, known)
  }
  return known
}

/**
 * Whether `agent_tool_calls` has `opened_trace` and `settled_trace` (the
 * package's fourth migration). Asked only while tracing is on; assumed
 * absent when the schema cannot be read: a trace context is never worth a
 * failed write.
 */
export function hasTraceContexts(): Promise<boolean> {
  const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
  const knex = client.getWriteClient()
  let known = askedTraces.get(knex)
  if (!known) {
    known = knex.schema
      .hasColumn('agent_tool_calls', 'settled_trace')
      .then((has) => {
        if (!has) debug('no trace context columns: the migrations are behind')
        return has
      })
      .catch(() => false)
    askedTraces.set(knex, known)
  }
  return known
}
