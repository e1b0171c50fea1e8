/*
 * The terminal channel's prompt loops (src/channels/terminal.ts) with
 * scripted lines: answers asked in turn and asked again after a bad one,
 * y/n with a reason, input that ends early, replies the inbox refuses or
 * lost to another channel; and the line reader over a real stream.
 */

import { PassThrough } from 'node:stream'
import { test } from '@japa/runner'
import {
  TerminalReader,
  askReply,
  hasTerminal,
  settleFromTerminal,
  type LineReader,
  type TerminalRow,
} from '../../src/channels/terminal.ts'
import { AlreadySettledException, E_STALE_VIEW, InvalidReplyException } from '../../src/errors.ts'
import { viewDigest } from '../../src/governance/view.ts'
import { NO_TERMINAL_REASON } from '../../src/channels/terminal_answers.ts'
import { RELEASE_QUESTIONS } from '../fixtures/terminal_agents.ts'

/**
 * A reader playing typed lines, then end of input; it records the prompts.
 */
function scripted(lines: string[]) {
  const prompts: string[] = []
  const reader: LineReader = {
    async ask(prompt) {
      prompts.push(prompt)
      return lines.length > 0 ? lines.shift()! : null
    },
    close() {},
  }
  return { reader, prompts }
}

function recorder() {
  const lines: string[] = []
  return { lines, write: (line: string) => lines.push(line) }
}

const askRow: TerminalRow = {
  id: 'row-1',
  kind: 'ask',
  toolName: 'ask',
  request: RELEASE_QUESTIONS,
}
const actionRow: TerminalRow = {
  id: 'row-2',
  kind: 'action',
  toolName: 'deploy',
  request: { args: { branch: 'main' }, summary: 'Deploy main to production' },
}

test.group('Terminal channel | asking', () => {
  test('asks each question in turn, again after a bad answer', async ({ assert }) => {
    const { reader, prompts } = scripted(['5', '2', '', 'after the standup', 'nine', '3'])
    const output = recorder()
    const reply = await askReply(askRow, reader, output.write)

    // Enter on the checks keeps their default, sent as the answer (as a card confirmed untouched)
    assert.deepEqual(reply, {
      answers: {
        region: ['us'],
        checks: ['tests'],
        window: ['after the standup'],
        replicas: ['3'],
      },
    })
    assert.lengthOf(prompts, 6)
    assert.equal(output.lines[0], 'Before I deploy:')
    assert.include(output.lines, '  There is no option 5: type a number from 1 to 3. Try again.')
    assert.include(output.lines, '  Your answer must be a whole number. Try again.')
    assert.include(output.lines, 'Question 4 of 4')
  })

  test('input that ends before the last answer gives no reply', async ({ assert }) => {
    const { reader } = scripted(['1', '2'])
    assert.isNull(await askReply(askRow, reader, recorder().write))
  })

  test('y approves, n rejects with an optional reason', async ({ assert }) => {
    const output = recorder()
    assert.deepEqual(await askReply(actionRow, scripted(['y']).reader, output.write), {
      approved: true,
    })
    assert.include(output.lines, 'Approve the call to "deploy"?')
    assert.include(output.lines, '  Deploy main to production')

    assert.deepEqual(
      await askReply(actionRow, scripted(['n', ' not on Friday ']).reader, output.write),
      {
        approved: false,
        reason: 'not on Friday',
      }
    )
    assert.deepEqual(await askReply(actionRow, scripted(['no', '']).reader, output.write), {
      approved: false,
    })
  })

  test('anything but y/n is asked again; end of input gives no decision', async ({ assert }) => {
    const output = recorder()
    const { reader, prompts } = scripted(['sure', 'y'])
    assert.deepEqual(await askReply(actionRow, reader, output.write), { approved: true })
    assert.deepEqual(prompts, ['Approve? [y/n] ', 'Approve? [y/n] '])
    assert.include(output.lines, '  Type y to approve or n to reject.')

    assert.isNull(await askReply(actionRow, scripted(['n']).reader, output.write))
    assert.isNull(await askReply(actionRow, scripted([]).reader, output.write))
  })
})

test.group('Terminal channel | settling', () => {
  test('settles through the inbox as the terminal user via terminal', async ({ assert }) => {
    const calls: unknown[] = []
    const inbox = {
      async settle(rowId: string, reply: unknown, options: unknown) {
        calls.push({ rowId, reply, options })
        return { status: 'approved' } as any
      },
    }
    const settlement = await settleFromTerminal(
      inbox,
      actionRow,
      scripted(['y']).reader,
      recorder().write,
      'terminal:ada'
    )
    assert.deepEqual(settlement, { result: 'settled', status: 'approved' })
    assert.deepEqual(calls, [
      {
        rowId: 'row-2',
        reply: { approved: true },
        // Bound to the row as it was printed
        options: { by: 'terminal:ada', via: 'terminal', view: viewDigest(actionRow) },
      },
    ])
  })

  test('a reply the inbox refuses is asked again with the reasons', async ({ assert }) => {
    let attempts = 0
    const inbox = {
      async settle() {
        if (++attempts === 1) {
          throw new InvalidReplyException([{ path: 'reason', message: 'must be shorter' }])
        }
        return { status: 'rejected' } as any
      },
    }
    const output = recorder()
    const settlement = await settleFromTerminal(
      inbox,
      actionRow,
      scripted(['n', 'too long', 'n', 'short']).reader,
      output.write,
      'terminal:ada'
    )
    assert.deepEqual(settlement, { result: 'settled', status: 'rejected' })
    assert.equal(attempts, 2)
    assert.include(output.lines, '  reason: must be shorter')
  })

  test('a row settled elsewhere meanwhile is reported, other errors thrown', async ({ assert }) => {
    const lost = {
      async settle(): Promise<any> {
        throw new AlreadySettledException('row-2', 'user:1', 'web', null)
      },
    }
    const settlement = await settleFromTerminal(
      lost,
      actionRow,
      scripted(['y']).reader,
      recorder().write,
      'terminal:ada'
    )
    assert.equal(settlement.result, 'lost')
    assert.match((settlement as { message: string }).message, /already settled by user:1 via web/)

    // Changed since it was printed: nothing applied, reported like a row lost
    const changed = {
      async settle(): Promise<any> {
        throw new E_STALE_VIEW(['row-2'])
      },
    }
    const stale = await settleFromTerminal(
      changed,
      actionRow,
      scripted(['y']).reader,
      recorder().write,
      'terminal:ada'
    )
    assert.equal(stale.result, 'lost')
    assert.match((stale as { message: string }).message, /another version of row row-2/)

    const broken = {
      async settle(): Promise<any> {
        throw new Error('connection reset')
      },
    }
    await assert.rejects(
      () => settleFromTerminal(broken, actionRow, scripted(['y']).reader, recorder().write, 'x'),
      'connection reset'
    )
  })

  test('input that ends first settles nothing', async ({ assert }) => {
    const inbox = {
      async settle(): Promise<any> {
        throw new Error('must not be called')
      },
    }
    const settlement = await settleFromTerminal(
      inbox,
      actionRow,
      scripted([]).reader,
      recorder().write,
      'x'
    )
    assert.deepEqual(settlement, { result: 'aborted' })
  })
})

test.group('Terminal channel | line reader', () => {
  test('keeps lines typed ahead of a prompt, then ends with null', async ({ assert }) => {
    const input = new PassThrough()
    const reader = new TerminalReader(input, new PassThrough())

    input.write('first\nsecond\n')
    input.end()
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(await reader.ask('> '), 'first')
    assert.equal(await reader.ask('> '), 'second')
    assert.isNull(await reader.ask('> '))
    reader.close()
  })

  test('prompts, then resolves with the line typed after it', async ({ assert }) => {
    const input = new PassThrough()
    const output = new PassThrough()
    let written = ''
    output.on('data', (chunk) => (written += String(chunk)))
    const reader = new TerminalReader(input, output)

    const answer = reader.ask('Approve? [y/n] ')
    input.write('y\n')
    assert.equal(await answer, 'y')
    assert.include(written, 'Approve? [y/n] ')
    reader.close()
    assert.isNull(await reader.ask('> '))
  })

  test('a TTY is a terminal; a pipe is not', ({ assert }) => {
    assert.isTrue(hasTerminal({ isTTY: true }))
    assert.isFalse(hasTerminal({}))
    assert.isFalse(hasTerminal(new PassThrough() as { isTTY?: boolean }))
    assert.equal(NO_TERMINAL_REASON, 'denied: no terminal to approve from')
  })
})
