/*
 * `node ace make:agent <name>`: writes app/agents/<name>.ts from the
 * package's stub, an agent ready to be listed in config/agents.ts, and
 * tests/unit/agents/<name>.spec.ts, a Japa test of it on the testing kit's
 * scripted model that passes as generated. The kit's assertions are
 * registered in tests/bootstrap.ts when the app has one. An app without
 * Japa gets no test (it would import `@japa/runner` and fail the app's
 * tsc), and a line saying how to add Japa and get the test.
 */

import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { BaseCommand, args, flags } from '@adonisjs/core/ace'
import string from '@adonisjs/core/helpers/string'
import { formatAppFiles, makeFromStub, stubsRoot } from '../stubs/main.ts'

export default class MakeAgent extends BaseCommand {
  static commandName = 'make:agent'
  static description = 'Make a new agent in app/agents'

  @args.string({ description: 'Name of the agent' })
  declare name: string

  @flags.boolean({ description: 'Overwrite the file when it exists', alias: 'f' })
  declare force: boolean

  async run() {
    const codemods = await this.createCodemods()
    codemods.overwriteExisting = this.force === true
    const entity = this.app.generators.createEntity(this.name)
    await makeFromStub(this, codemods, stubsRoot, 'make/agent.stub', {
      flags: this.parsed.flags,
      entity,
    })
    if (!this.#hasJapa()) {
      this.logger.info(
        `No test written: this app has no @japa/runner. To test agents, npm i -D @japa/runner @japa/assert ` +
          `with a bin/test.ts as the AdonisJS starter kits have (https://docs.adonisjs.com/guides/testing/introduction), ` +
          `then run node ace make:agent ${this.name} again: it keeps the agent and writes its test`
      )
      return
    }
    // From tests/unit/agents/<path>/ up to the app's root, then down to the agent
    const folder = entity.path && entity.path !== './' ? `${entity.path}/` : ''
    const depth = 3 + folder.split('/').length - 1
    await makeFromStub(this, codemods, stubsRoot, 'make/agent_test.stub', {
      flags: this.parsed.flags,
      entity,
      agentImport: `${'../'.repeat(depth)}app/agents/${folder}${string.snakeCase(entity.name)}.js`,
    })
    await this.#registerAssertions(codemods)
  }

  /**
   * Whether the app has Japa: named in its package.json (installed or about
   * to be), or resolvable from its root as tsc would find it (a workspace).
   */
  #hasJapa(): boolean {
    const manifest = this.app.makePath('package.json')
    try {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'))
      if (pkg.dependencies?.['@japa/runner'] || pkg.devDependencies?.['@japa/runner']) return true
    } catch {
      // No package.json, or not JSON: resolution alone decides
    }
    try {
      createRequire(manifest).resolve('@japa/runner')
      return true
    } catch {
      return false
    }
  }

  /**
   * Adds `agentAssertions()` to the plugins of tests/bootstrap.ts, once.
   */
  async #registerAssertions(codemods: Awaited<ReturnType<BaseCommand['createCodemods']>>) {
    const bootstrap = this.app.makePath('tests/bootstrap.ts')
    if (!existsSync(bootstrap)) {
      this.logger.info(
        'No tests/bootstrap.ts: add agentAssertions() from adonis-agent-inbox/testing to your Japa plugins'
      )
      return
    }
    if (readFileSync(bootstrap, 'utf8').includes('agentAssertions')) return
    await codemods.registerJapaPlugin('agentAssertions()', [
      { isNamed: true, module: 'adonis-agent-inbox/testing', identifier: 'agentAssertions' },
    ])
    await formatAppFiles(this.app.makePath(), [bootstrap])
  }
}
