/*
 * `node ace make:agent <name>`: writes app/agents/<name>.ts from the
 * package's stub, an agent ready to be listed in config/agents.ts.
 */

import { BaseCommand, args, flags } from '@adonisjs/core/ace'
import { stubsRoot } from '../stubs/main.ts'

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
    await codemods.makeUsingStub(stubsRoot, 'make/agent.stub', {
      flags: this.parsed.flags,
      entity: this.app.generators.createEntity(this.name),
    })
  }
}
