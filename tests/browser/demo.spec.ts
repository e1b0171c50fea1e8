/*
 * The README's main command, as a newcomer runs it: `npm run demo` serves
 * the inbox on SQLite and starts a run; a person answers its intake form,
 * changes one pre-picked default of its question, approves its action in
 * the browser, and the demo prints the completed run's record with
 * those answers; the chat link it prints opens a chat whose agent answers. The demo always runs on SQLite, whatever DB the suite uses.
 */

import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { test } from '@japa/runner'
import { freePort } from '../../fixtures/app/bin/launch.ts'
import { dbName } from '../helpers/database.ts'
import { eventually, newSession } from '../helpers/browser.ts'
import { sharedBrowser } from '../helpers/inbox_browser.ts'

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

test.group(`Demo | ${dbName()}`, (group) => {
  group.each.timeout(120_000)

  test('npm run demo: a run asks, is answered in the browser, and finishes; its chat link answers', async ({
    assert,
    cleanup,
  }) => {
    const port = await freePort()
    const demo = spawn('npm', ['run', 'demo'], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DEMO_DB_FILE: fileURLToPath(
          new URL(`../../tmp/demo-${process.pid}.sqlite`, import.meta.url)
        ),
        OPENAI_API_KEY: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let output = ''
    demo.stdout.on('data', (chunk) => (output += chunk))
    demo.stderr.on('data', (chunk) => (output += chunk))
    const exited = once(demo, 'exit')
    cleanup(async () => {
      if (demo.exitCode === null) {
        process.kill(-demo.pid!, 'SIGTERM')
        await exited
      }
    })

    const signIn = await eventually(
      'the demo to print its sign-in link',
      async () => /Sign in as Ada and open it: (\S+)/.exec(output)?.[1],
      { timeout: 90_000, interval: 200 }
    ).catch((error) => {
      throw new Error(`${error.message}\n${output}`)
    })
    assert.equal(signIn, `http://127.0.0.1:${port}/login/1`)

    const session = await newSession(await sharedBrowser(), `http://127.0.0.1:${port}`)
    cleanup(() => session.close())
    const page = await session.newPage()
    await page.goto(signIn)
    await page.waitForURL('**/inbox')

    // 1. The intake form: keep its default
    const intake = page.locator('[data-kind="intake"][data-status="pending"]')
    await intake.getByText('Which service are we releasing?').waitFor()
    await intake.getByRole('button', { name: 'Confirm' }).click()

    // 2. The model's question: change the pre-picked rollout, keep the date
    const question = page.locator('[data-kind="ask"][data-status="pending"]')
    await question.getByText('How should the release roll out?').waitFor({ timeout: 20_000 })
    await question.getByLabel('Everyone at once').check()
    await question.getByRole('button', { name: 'Confirm' }).click()

    // 3. The approval of the deploy action
    const approval = page.locator('[data-kind="action"][data-status="pending"]')
    await approval.getByText('Deploy release to production').waitFor({ timeout: 20_000 })
    await approval.getByRole('button', { name: 'Approve', exact: true }).click()

    await eventually('the demo to report the run completed', async () =>
      output.includes('DEMO COMPLETED')
    ).catch((error) => {
      throw new Error(`${error.message}\n${output}`)
    })
    // The run record the demo printed shows what each reply sent the run
    assert.include(output, 'Public API')
    assert.include(output, 'Everyone at once')
    assert.include(output, '2030-01-15')
    assert.match(output, /settled: action "deploy" → approved by 1 via web/)
    assert.include(output, '"deployed":"release"')

    // 4. The chat link it printed: a message there streams the chatter's reply
    const chat = /A chat with a streaming agent, beside the inbox:\s+(\S+)/.exec(output)?.[1]
    assert.match(
      chat ?? '',
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/chat/[0-9a-f-]{36}\\?agent=chatter$`)
    )
    await page.goto(chat!)
    await page.getByLabel('Message').fill('Hello from the demo')
    await page.getByRole('button', { name: 'Send' }).click()
    await page
      .locator('[data-role="assistant"] .ai-chat-text')
      .getByText('You said: Hello from the demo. Messages so far: 1.')
      .waitFor()
  })
})
