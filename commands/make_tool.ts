/*
 * `node ace make:tool <name>`: writes app/tools/<name>.ts from the
 * package's stub: a read tool, or with `--action` a tool that waits for
 * approval.
 */

import { BaseCommand, args, flags } from '@adonisjs/core/ace'
import { makeFromStub, stubsRoot } from '../stubs/main.ts'

export default class MakeTool extends BaseCommand {
  static commandName = 'make:tool'
  static description = 'Make a new agent tool in app/tools'

  @args.string({ description: 'Name of the tool' })
  declare name: string

  @flags.boolean({ description: 'Make an action: each call waits for a person to approve it' })
  declare action: boolean

  @flags.boolean({ description: 'Overwrite the file when it exists', alias: 'f' })
  declare force: boolean

  async run() {
    const codemods = await this.createCodemods()
    codemods.overwriteExisting = this.force === true
    await makeFromStub(this, codemods, stubsRoot, 'make/tool.stub', {
      flags: this.parsed.flags,
      action: this.action === true,
      entity: this.app.generators.createEntity(this.name),
    })
  }
}
