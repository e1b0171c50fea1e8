/*
 * The ground truth of a run of the crash tests' scripted agents (the
 * painter, tests/fixtures/crash_agent.ts, and the surveyor,
 * survey_agent.ts) after faults: what the database holds of it and what
 * its action really did (the action log, across processes), as one plain
 * object to compare with what a run that never saw a fault leaves.
 */

import { readFileSync } from 'node:fs'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { JournalRow } from '../../src/persistence/models/journal_row.ts'
import { ToolCall } from '../../src/persistence/models/tool_call.ts'
import { AGENT_NAME } from '../fixtures/crash_agent.ts'

export type FaultFiles = { modelLog: string; actionLog: string; readLog: string }

export function logLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/**
 * What a run left: its status and final text, its journal's keys (and
 * whether its sequences run 1..n, as `journal_length` says), its rows, and
 * each execution of its action, by the value it ran with.
 */
export async function runFacts(runId: string, files: FaultFiles) {
  const run = await AgentRun.findOrFail(runId)
  const journal = await JournalRow.query().where('run_id', runId).orderBy('sequence', 'asc')
  const rows = await ToolCall.query().where('run_id', runId).orderBy('sequence', 'asc')
  return {
    status: run.status,
    text: (run.result as { text?: string } | null)?.text ?? run.error,
    journal: journal.map((entry) => entry.key),
    journalWhole:
      journal.every((entry, at) => entry.sequence === at + 1) &&
      run.journalLength === journal.length,
    rows: rows.map((row) => `${row.toolName} ${row.status} ${row.execution ?? '-'}`),
    actions: logLines(files.actionLog)
      .filter((line) => line.startsWith(`${runId} `))
      .map((line) => line.split(' ')[1]),
  }
}

const PAINTER = {
  status: 'completed',
  text: [
    'Answer read: The person answered your questions.',
    '',
    '1. Which colour should the shed be?',
    '   Answer: Blue',
    'Paint result (text): The person approved the call to "paint".',
    'painted blue',
  ].join('\n'),
  journal: [
    'input',
    'step:1:response',
    'step:1:tool:ask-color',
    'step:2:response',
    'step:2:tool:paint-shed',
    'step:3:response',
  ],
  journalWhole: true,
  rows: ['ask answered -', 'paint approved succeeded'],
  actions: ['blue'],
}

const SURVEYOR = {
  status: 'completed',
  text: 'Measured: 6 m2 north, 4 m2 south\nVarnish (text): varnished 10 m2',
  journal: [
    'input',
    'step:1:response',
    'step:1:tool:measure-north',
    'step:1:tool:measure-south',
    'step:2:response',
    'step:2:tool:varnish-shed',
    'step:3:response',
  ],
  journalWhole: true,
  rows: ['measure auto succeeded', 'measure auto succeeded', 'varnish auto succeeded'],
  actions: ['10'],
}

/**
 * The facts of a run of `agent` that no fault touched: completed, its
 * answer read, its action run exactly once.
 */
export function expectedRun(agent: string) {
  return agent === AGENT_NAME ? PAINTER : SURVEYOR
}
