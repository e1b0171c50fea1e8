/*
 * How an app finds the commands: `configure` registers
 * `adonis-agent-inbox/commands` in adonisrc.ts (asserted in
 * tests/configure), and that module (from the
 * sources, commands/main.ts; once built, the index `adonis-kit index`
 * generates) lists every command file with its metadata and loads each on
 * demand.
 */

import { readdir } from 'node:fs/promises'
import { test } from '@japa/runner'
import { getCommand, getMetaData } from '../../commands/main.ts'
import AgentsRun from '../../commands/agents_run.ts'

const COMMANDS_DIR = new URL('../../commands/', import.meta.url)

test.group('Commands index', () => {
  test('lists every command file, with its metadata', async ({ assert }) => {
    const entries = await readdir(COMMANDS_DIR)
    const files = entries.filter((file) => file.endsWith('.ts') && file !== 'main.ts')
    const commands = await getMetaData()
    assert.sameMembers(
      commands.map((command) => command.filePath),
      files
    )
    const byName = Object.fromEntries(commands.map((command) => [command.commandName, command]))
    assert.sameMembers(Object.keys(byName), [
      'agents:run',
      'agents:inbox',
      'agents:sweep',
      'agents:prune',
      'agents:audit',
      'agents:stats',
      'agents:policy',
      'agents:mcp-token',
      'agents:migrations',
      'make:agent',
      'make:tool',
    ])
    // The agents:* commands need the started app (database, config), but the migrations' publisher
    assert.isTrue(byName['agents:run'].options.startApp)
    assert.isTrue(byName['agents:inbox'].options.startApp)
    assert.isTrue(byName['agents:sweep'].options.startApp)
    assert.isTrue(byName['agents:prune'].options.startApp)
    assert.isTrue(byName['agents:audit'].options.startApp)
    assert.isTrue(byName['agents:stats'].options.startApp)
    assert.isTrue(byName['agents:policy'].options.startApp)
    assert.isTrue(byName['agents:mcp-token'].options.startApp)
    // Only writes files, as configure does
    assert.notOk(byName['agents:migrations'].options.startApp)
    assert.deepEqual(
      byName['agents:run'].args.map((arg) => [arg.name, arg.required]),
      [
        ['agent', true],
        ['input', false],
      ]
    )
    assert.sameMembers(
      byName['agents:run'].flags.map((flag) => flag.name),
      ['owner']
    )
    assert.sameMembers(
      byName['agents:inbox'].flags.map((flag) => flag.name),
      ['owner', 'agent', 'tool', 'changed', 'row', 'limit']
    )
    assert.sameMembers(
      byName['agents:stats'].flags.map((flag) => flag.name),
      ['days', 'json']
    )
    assert.deepEqual(
      byName['agents:mcp-token'].args.map((arg) => [arg.name, arg.required]),
      [['user', true]]
    )
    assert.sameMembers(
      byName['agents:mcp-token'].flags.map((flag) => flag.name),
      ['name', 'expiresIn', 'list', 'revoke']
    )
  })

  test('loads a command by its metadata', async ({ assert }) => {
    assert.strictEqual(await getCommand({ commandName: 'agents:run' }), AgentsRun)
    assert.isNull(await getCommand({ commandName: 'agents:nothing' }))
  })
})
