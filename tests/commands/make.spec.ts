/*
 * `make:agent` and `make:tool` against a fake app tree: the files land in
 * app/agents and app/tools with snake_case names, and the generated code
 * runs: it is imported (with the package import pointed at the sources)
 * and yields a working agent or tool. The test make:agent writes passes
 * in the fixture app's test runner, next to the fixture's own agent tests
 * (written with the testing kit alone), on the suite's database.
 */

import { test } from '@japa/runner'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { IgnitorFactory } from '@adonisjs/core/factories'
import type { FileSystem } from '@japa/file-system'
import MakeAgent from '../../commands/make_agent.ts'
import MakeTool from '../../commands/make_tool.ts'
import { runNode } from '../helpers/ace.ts'
import { ensureFixtureBuilt, NODE_FLAGS } from '../../fixtures/app/bin/launch.ts'
import type { AgentDefinition } from '../../src/runtime/define_agent.ts'
import type { ToolDefinition } from '../../src/runtime/define_tool.ts'

const SOURCE_INDEX = new URL('../../index.ts', import.meta.url).href

/** tests/bootstrap.ts of the starter kits, before any plugin of ours */
const STARTER_BOOTSTRAP = `import { assert } from '@japa/assert'
import type { Config } from '@japa/runner/types'

export const plugins: Config['plugins'] = [assert()]
`

async function aceIn(fs: FileSystem) {
  await fs.createJson('tsconfig.json', {})
  await fs.create('adonisrc.ts', `export default defineConfig({})`)
  return aceAt(fs.baseUrl)
}

async function aceAt(appRoot: URL) {
  const ignitor = new IgnitorFactory()
    .withCoreProviders()
    .withCoreConfig()
    .create(appRoot, { importer: (filePath) => import(filePath) })
  const app = ignitor.createApp('console')
  await app.init()
  await app.boot()
  const ace = await app.container.make('ace')
  ace.ui.switchMode('raw')
  return ace
}

/**
 * Imports a generated file with `adonis-agent-inbox` pointed at the sources.
 */
async function importGenerated<T>(fs: FileSystem, path: string): Promise<T> {
  const generated = await fs.contents(path)
  const contents = generated.replace(`'adonis-agent-inbox'`, `'${SOURCE_INDEX}'`)
  const copy = path.replace(/\.ts$/, `.imported.ts`)
  await fs.create(copy, contents)
  const module = await import(pathToFileURL(`${fs.basePath}/${copy}`).href)
  return module.default
}

test.group('make:agent and make:tool', (group) => {
  group.each.timeout(30_000)

  test('make:agent writes app/agents/<snake>.ts with a runnable agent', async ({ assert, fs }) => {
    const ace = await aceIn(fs)
    const command = await ace.create(MakeAgent, ['InvoiceBot'])
    await command.exec()
    assert.equal(command.exitCode, 0)

    await assert.fileExists('app/agents/invoice_bot.ts')
    await assert.fileContains('app/agents/invoice_bot.ts', [
      `import { defineAgent } from 'adonis-agent-inbox'`,
      `const invoiceBot = defineAgent({`,
      `  name: 'invoice_bot',`,
      `import invoiceBot from '../app/agents/invoice_bot.js'`,
      `node ace agents:run invoice_bot`,
      `export default invoiceBot`,
    ])
    const agent = await importGenerated<AgentDefinition>(fs, 'app/agents/invoice_bot.ts')
    assert.equal(agent.name, 'invoice_bot')
    assert.equal(agent.tools.size, 0)
    assert.deepEqual(agent.expiry, { ttl: 86_400_000, onExpiry: 'defaults' })
  })

  test('make:tool writes a read tool; --action one that waits for approval', async ({
    assert,
    fs,
  }) => {
    const ace = await aceIn(fs)
    const read = await ace.create(MakeTool, ['lookupOrder'])
    await read.exec()
    assert.equal(read.exitCode, 0)
    const action = await ace.create(MakeTool, ['billing/RefundOrder', '--action'])
    await action.exec()
    assert.equal(action.exitCode, 0)

    await assert.fileContains('app/tools/lookup_order.ts', [
      `const lookupOrder = defineTool({`,
      `  name: 'lookup_order',`,
      `  kind: 'read',`,
      'A read tool: it runs at once',
    ])
    await assert.fileNotContains('app/tools/lookup_order.ts', 'summary:')
    await assert.fileContains('app/tools/billing/refund_order.ts', [
      `  name: 'refund_order',`,
      `  kind: 'action',`,
      "summary: ({ id }) => 'Refund order ' + id,",
    ])

    const lookup = await importGenerated<ToolDefinition>(fs, 'app/tools/lookup_order.ts')
    assert.equal(lookup.kind, 'read')
    assert.isFalse(await lookup.needsApproval({ id: '1' }))
    assert.deepEqual(await lookup.handle({ id: '1' }, { runId: 'r1' } as any), {
      id: '1',
      runId: 'r1',
    })

    const refund = await importGenerated<ToolDefinition>(fs, 'app/tools/billing/refund_order.ts')
    assert.equal(refund.name, 'refund_order')
    assert.isTrue(await refund.needsApproval({ id: '42' }))
    assert.equal(refund.summarize({ id: '42' }), 'Refund order 42')
    assert.deepEqual(await refund.validate({}), {
      ok: false,
      issues: [{ path: 'id', message: 'The id field must be defined', rule: 'required' }],
    })
  })

  test('an existing file is kept unless --force', async ({ assert, fs }) => {
    const ace = await aceIn(fs)
    await fs.create('app/tools/lookup_order.ts', '// mine')
    const kept = await ace.create(MakeTool, ['lookup_order'])
    await kept.exec()
    assert.equal(await fs.contents('app/tools/lookup_order.ts'), '// mine')

    const forced = await ace.create(MakeTool, ['lookup_order', '--force'])
    await forced.exec()
    await assert.fileContains('app/tools/lookup_order.ts', `name: 'lookup_order'`)
  })

  test('make:agent in an app without Japa writes the agent, no test, and says how to add Japa', async ({
    assert,
    cleanup,
  }) => {
    // Outside the repository, whose node_modules has Japa: nothing resolves it from here
    const root = await mkdtemp(join(tmpdir(), 'agent-inbox-no-japa-'))
    cleanup(() => rm(root, { recursive: true, force: true }))
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'slim', type: 'module' }))
    await writeFile(join(root, 'tsconfig.json'), '{}')
    await writeFile(join(root, 'adonisrc.ts'), 'export default defineConfig({})')
    const ace = await aceAt(pathToFileURL(`${root}/`))
    const command = await ace.create(MakeAgent, ['InvoiceBot'])
    await command.exec()
    assert.equal(command.exitCode, 0)

    assert.isTrue(existsSync(join(root, 'app/agents/invoice_bot.ts')))
    // A spec importing @japa/runner would fail the app's tsc (TS2307)
    assert.isFalse(existsSync(join(root, 'tests/unit/agents/invoice_bot.spec.ts')))
    const logs = ace.ui.logger.getLogs().map((log) => log.message)
    const hint = logs.find((line) => line.includes('@japa/runner'))
    assert.exists(hint, logs.join('\n'))
    assert.include(hint!, 'npm i -D @japa/runner @japa/assert')
    assert.include(hint!, 'node ace make:agent InvoiceBot')

    // Japa named in package.json (not installed yet): the test is written
    await writeFile(
      join(root, 'package.json'),
      JSON.stringify({ name: 'slim', type: 'module', devDependencies: { '@japa/runner': '^5' } })
    )
    const again = await ace.create(MakeAgent, ['InvoiceBot'])
    await again.exec()
    assert.equal(again.exitCode, 0)
    assert.isTrue(existsSync(join(root, 'tests/unit/agents/invoice_bot.spec.ts')))
  })

  test("make:agent writes a test of the agent that passes, with the fixture's agent tests", async ({
    assert,
    fs,
  }) => {
    await ensureFixtureBuilt()
    await fs.create('tests/bootstrap.ts', STARTER_BOOTSTRAP)
    const ace = await aceIn(fs)
    const command = await ace.create(MakeAgent, ['billing/InvoiceBot'])
    await command.exec()
    assert.equal(command.exitCode, 0)

    await assert.fileContains('tests/unit/agents/billing/invoice_bot.spec.ts', [
      `import invoiceBot from '../../../../app/agents/billing/invoice_bot.js'`,
      `from 'adonis-agent-inbox/testing'`,
      `await assert.runCompleted(run)`,
    ])
    await assert.fileContains('tests/bootstrap.ts', [
      `import { agentAssertions } from 'adonis-agent-inbox/testing'`,
      `[assert(), agentAssertions()]`,
    ])
    // A second agent leaves the plugin registered once
    const second = await ace.create(MakeAgent, ['Reporter'])
    await second.exec()
    const bootstrap = await fs.contents('tests/bootstrap.ts')
    assert.equal(bootstrap.split('agentAssertions()').length, 2)

    const exit = await runNode([...NODE_FLAGS, 'fixtures/app/bin/test.ts'], {
      env: {
        DB_CONNECTION: process.env.DB ?? 'sqlite',
        DB_FILE: `${fs.basePath}/fixture.sqlite`,
        EXTRA_TEST_FILES: `${fs.basePath}/tests/unit/**/*.spec.ts`,
      },
      // Bounds against a wedge: 13-26 s on a loaded machine, over 30 s once
      timeout: 90_000,
    })
    assert.equal(exit.code, 0, exit.output)
    assert.include(exit.output, '✔ completes a run on a scripted model')
    assert.match(exit.output, /Tests\s+5 passed \(5\)/)
  }).timeout(120_000)
})
