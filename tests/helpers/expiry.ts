/*
 * Many runs waiting on rows past their expiry, written with multi-row
 * inserts, for the expiry sweep's suites (tests/persistence/expiry_sweep.spec.ts)
 * and its bench figure (bench/expiry_sweep.ts). Row i has the policy
 * `policies[i % policies.length]` and one of `variants` question sets (so a
 * batch holds several distinct outcomes), on a run of its own. And sweeper
 * processes (tests/fixtures/sweep_worker.ts) started together, to race.
 */

import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { DateTime } from 'luxon'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { preparedColumns } from '../../src/persistence/prepared_columns.ts'
import type { ExpiryRule } from '../../src/questions/settle.ts'
import type { QuestionSet } from '../../src/questions/types.ts'
import { aceEnv } from './ace.ts'
import { TS_HOOKS } from '../../fixtures/app/bin/launch.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export type SeedOptions = {
  /** When the rows expire; an hour ago by default */
  expiresAt?: DateTime
  policies?: ExpiryRule[]
  /** Distinct question sets among the rows */
  variants?: number
  /** The agent the runs name; `deployer` by default */
  agent?: string
}

/**
 * A question set of its own words for variant `index`.
 */
export function variantSet(index: number): QuestionSet {
  return {
    questions: [
      {
        id: 'region',
        prompt: `Which region for service ${index}?`,
        options: [
          { value: 'eu', label: 'Europe' },
          { value: 'us', label: 'United States' },
        ],
        defaults: ['eu'],
      },
    ],
  }
}

const CHUNK = 500

/**
 * Inserts `count` waiting runs, each with one pending `ask` row, and returns
 * the rows' ids in order with their run ids.
 */
export async function seedExpiring(count: number, options: SeedOptions = {}) {
  const expiresAt = options.expiresAt ?? DateTime.now().minus({ hours: 1 })
  const policies = options.policies ?? ['defaults']
  const variants = Math.max(1, options.variants ?? 1)
  const now = DateTime.now()
  const seeded: { id: string; runId: string; policy: ExpiryRule }[] = []
  for (let start = 0; start < count; start += CHUNK) {
    const runs: Record<string, unknown>[] = []
    const rows: Record<string, unknown>[] = []
    for (let index = start; index < Math.min(count, start + CHUNK); index++) {
      const runId = randomUUID()
      const id = randomUUID()
      const policy = policies[index % policies.length]
      runs.push(
        preparedColumns(new AgentRun(), {
          id: runId,
          agent: options.agent ?? 'deployer',
          status: 'waiting',
          ownerId: 'user:1',
          input: 'seeded',
          askCount: 1,
          journalLength: 0,
          attempt: 1,
          createdAt: now,
          updatedAt: now,
        })
      )
      rows.push(
        preparedColumns(new ToolCall(), {
          id,
          runId,
          sequence: 1,
          attempt: 1,
          toolCallId: `call_${index}`,
          toolName: 'ask',
          kind: 'ask',
          status: 'pending',
          ownerId: 'user:1',
          request: variantSet(index % variants),
          expiresAt,
          onExpiry: policy,
          createdAt: now,
          updatedAt: now,
        })
      )
      seeded.push({ id, runId, policy })
    }
    const client = AgentRun.$adapter.modelConstructorClient(AgentRun)
    await client.insertQuery().table(AgentRun.table).multiInsert(runs)
    await client.insertQuery().table(ToolCall.table).multiInsert(rows)
  }
  return seeded
}

export type SweeperExit = {
  code: number | null
  signal: NodeJS.Signals | null
  /** The worker's JSON line, when it lived to print it */
  result: { pid: number; swept: number; ms: number } | null
  output: string
}

/**
 * Starts `count` sweeper processes (tests/fixtures/sweep_worker.ts) on this
 * process's database and waits until each has booted; `go()` then lets
 * them all sweep at once and resolves with each exit and the wall time
 * from "go" to the last exit, in ms. A child is killed after `timeout` ms.
 */
export async function startSweepers(
  count: number,
  env: Record<string, string> = {},
  timeout = 60_000
) {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, [TS_HOOKS, 'tests/fixtures/sweep_worker.ts'], {
      cwd: ROOT,
      env: aceEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
  )
  const exits = children.map((child) => {
    let output = ''
    child.stdout.on('data', (chunk) => (output += String(chunk)))
    child.stderr.on('data', (chunk) => (output += String(chunk)))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout)
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => output.includes('ready\n') && resolve())
      child.on('close', () => reject(new Error(`A sweeper ended before it was ready:\n${output}`)))
    })
    const exited = new Promise<SweeperExit>((resolve) => {
      child.on('close', (code, signal) => {
        clearTimeout(timer)
        const line = output.split('\n').find((text) => text.startsWith('{'))
        resolve({ code, signal, result: line ? JSON.parse(line) : null, output })
      })
    })
    return { ready, exited }
  })
  await Promise.all(exits.map((exit) => exit.ready))
  return {
    async go() {
      const started = performance.now()
      for (const child of children) child.stdin.end('go\n')
      const results = await Promise.all(exits.map((exit) => exit.exited))
      return { exits: results, ms: performance.now() - started }
    },
  }
}
