/*
 * `node ace agents:run` as a real process on the test database, against
 * the scripted `shipper` agent (tests/fixtures/terminal_agents.ts):
 *  - with piped stdin nobody can answer: the model is never offered the
 *    ask tool, the intake proceeds on its defaults, the approval is denied
 *    with a message, and the process ends on its own;
 *  - with --owner the run is that person's: it waits in their inbox, and
 *    the command ends;
 *  - in a pseudo-terminal a person keeps the intake's default with Enter
 *    (the model reads it as their answer, as from the page), the
 *    question set by number, by several numbers, in their own words and
 *    after a refused answer, approves the action with y, and the rows
 *    record it all as settled via the terminal.
 */

import { mkdir, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { createTestApp } from '../helpers/database.ts'
import { ptyAce, runAce } from '../helpers/ace.ts'
import { rowsOf } from '../helpers/runtime.ts'
import { AgentRun } from '../../src/persistence/models/agent_run.ts'
import { NO_TERMINAL_REASON } from '../../src/channels/terminal_answers.ts'
import { terminalUser } from '../../src/channels/terminal.ts'
import type { DecisionOutcome, QuestionOutcome } from '../../src/questions/types.ts'

const FILES = new URL(`../../tmp/commands-${process.pid}/`, import.meta.url)

function logsFor(name: string) {
  return {
    MODEL_LOG: fileURLToPath(new URL(`${name}-model.log`, FILES)),
    ACTION_LOG: fileURLToPath(new URL(`${name}-action.log`, FILES)),
  }
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean)
  } catch {
    return []
  }
}

/** The tools offered in each model call of the run started with `input` */
function offered(modelLog: string, input: string): string[][] {
  return lines(modelLog)
    .map((line) => JSON.parse(line) as { input: string; tools: string[] })
    .filter((entry) => entry.input === input)
    .map((entry) => entry.tools)
}

function runIdIn(output: string): string {
  const id = /Run ([0-9a-f-]{36}) of "shipper" started/.exec(output)?.[1]
  if (!id) throw new Error(`No run id in the output:\n${output}`)
  return id
}

test.group('agents:run', (group) => {
  let terminate: () => Promise<void>

  group.setup(async () => {
    await mkdir(FILES, { recursive: true })
    const testApp = await createTestApp()
    terminate = testApp.terminate
    return async () => {
      await terminate()
      await rm(FILES, { recursive: true, force: true })
    }
  })

  test('with piped stdin: no ask tool, the approval denied, and it ends', async ({ assert }) => {
    const logs = logsFor('piped')
    // stdin stays open and silent: a command waiting on it would be killed at the timeout
    const exit = await runAce(['agents:run', 'shipper', 'piped run'], { env: logs })

    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, 'No terminal on stdin')
    assert.include(exit.output, `deploy: ${NO_TERMINAL_REASON}`)

    const calls = offered(logs.MODEL_LOG, 'piped run')
    assert.deepEqual(calls, [['deploy'], ['deploy']])
    assert.deepEqual(lines(logs.ACTION_LOG), [])

    const run = await AgentRun.findOrFail(runIdIn(exit.output))
    assert.equal(run.status, 'completed')
    assert.isNull(run.ownerId)
    assert.include((run.result as { text: string }).text, NO_TERMINAL_REASON)

    const [intake, action] = await rowsOf(run.id)
    assert.equal(intake.kind, 'intake')
    assert.equal(intake.status, 'answered')
    assert.equal(intake.answeredVia, 'terminal')
    assert.isTrue((intake.outcome as QuestionOutcome).skipped)
    assert.deepEqual((intake.outcome as QuestionOutcome).answers, { environment: ['staging'] })

    assert.equal(action.toolName, 'deploy')
    assert.equal(action.status, 'rejected')
    assert.equal(action.answeredVia, 'terminal')
    assert.equal(action.answeredBy, `terminal:${terminalUser()}`)
    assert.equal((action.outcome as DecisionOutcome).reason, NO_TERMINAL_REASON)
    assert.isNull(action.execution)
  })

  test("--owner: the run waits in that person's inbox and the command ends", async ({ assert }) => {
    const exit = await runAce(['agents:run', 'shipper', 'for ada', '--owner=ada'], {
      env: logsFor('owner'),
    })
    assert.equal(exit.code, 0, exit.output)
    const run = await AgentRun.findOrFail(runIdIn(exit.output))
    assert.equal(run.ownerId, 'ada')
    assert.equal(run.status, 'waiting')
    assert.include(exit.output, `Run ${run.id} waits in the inbox of ada: open /inbox`)
    assert.include(exit.output, 'waiting: intake: Which environment should this go to?')
    assert.notInclude(exit.output, 'No terminal on stdin')
    const [intake] = await rowsOf(run.id)
    assert.equal(intake.status, 'pending')
  })

  test('an unknown agent is an error naming the agents', async ({ assert }) => {
    const exit = await runAce(['agents:run', 'nobody'])
    assert.equal(exit.code, 1, exit.output)
    assert.include(exit.output, 'No agent named "nobody". Agents: shipper, waiter')
  })

  test('in a terminal: questions answered by number and own words, the action approved', async ({
    assert,
  }) => {
    const logs = logsFor('pty')
    const terminal = ptyAce(['agents:run', 'shipper', 'pty run'], { env: logs })
    try {
      await terminal.expect('Which environment should this go to?')
      await terminal.expect('Enter keeps Staging')
      terminal.type('')

      await terminal.expect('Before I deploy:')
      await terminal.expect('Which region first?')
      await terminal.expect('  2) United States')
      terminal.type('2')

      await terminal.expect('Which checks should run before the deploy?')
      await terminal.expect('  2) Tests (pre-picked)')
      terminal.type('1,3')

      await terminal.expect('When should it go out?')
      await terminal.expect('or your own words')
      terminal.type('after the standup')

      await terminal.expect('How many replicas?')
      terminal.type('nine')
      await terminal.expect('Your answer must be a whole number. Try again.')
      terminal.type('3')

      await terminal.expect('Approve the call to "deploy"?')
      await terminal.expect('Deploy main to production')
      await terminal.expect('Approve? [y/n]')
      terminal.type('y')
      await terminal.expect('completed')
    } catch (error) {
      terminal.kill()
      throw error
    }
    const exit = await terminal.exited
    assert.equal(exit.code, 0, exit.output)

    const calls = offered(logs.MODEL_LOG, 'pty run')
    assert.deepEqual(calls, [
      ['deploy', 'ask'],
      ['deploy', 'ask'],
      ['deploy', 'ask'],
    ])
    assert.lengthOf(lines(logs.ACTION_LOG), 1)

    const run = await AgentRun.findOrFail(runIdIn(exit.output))
    const by = `terminal:${terminalUser()}`
    assert.equal(run.status, 'completed')
    assert.equal(run.ownerId, by)
    const result = (run.result as { text: string }).text
    assert.include(result, 'Answer: United States')
    assert.include(result, 'Answer: Lint, Smoke tests')
    assert.include(result, 'after the standup')
    assert.include(result, 'The person approved the call to "deploy"')
    assert.include(exit.output, result.split('\n')[0])

    const [intake, asked, action] = await rowsOf(run.id)
    for (const row of [intake, asked, action]) {
      assert.equal(row.answeredVia, 'terminal')
      assert.equal(row.answeredBy, by)
    }
    // Enter kept the default: the model reads it as the person's answer, as from the page
    const kept = intake.outcome as QuestionOutcome
    assert.deepEqual(kept.answers, { environment: ['staging'] })
    assert.deepEqual(kept.defaulted, [])
    assert.isFalse(kept.skipped)
    assert.include(kept.text, 'The person answered your questions.')
    assert.match(kept.text, /^ {3}Answer: Staging$/m)
    assert.notInclude(kept.text, 'your default')

    const answers = asked.outcome as QuestionOutcome
    assert.equal(asked.status, 'answered')
    assert.deepEqual(answers.answers, {
      region: ['us'],
      checks: ['lint', 'smoke'],
      window: ['after the standup'],
      replicas: ['3'],
    })
    assert.deepEqual(answers.defaulted, [])
    assert.equal(
      answers.questions.find((item) => item.id === 'window')?.freeText,
      'after the standup'
    )

    assert.equal(action.status, 'approved')
    assert.equal(action.execution, 'succeeded')
  })
})
