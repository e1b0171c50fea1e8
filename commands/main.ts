/*
 * The commands of the package for an app's `commands` list in adonisrc.ts
 * (`() => import('adonis-agent-inbox/commands')`), seen from the sources.
 * The published package ships the generated equivalent instead:
 * `adonis-kit index build/commands` writes build/commands/commands.json and
 * a loader reading it, so listing commands imports none of them. The
 * build's declarations of that loader are this file's (the generated ones
 * import a `Command` type `@adonisjs/ace/types` does not export), so the
 * signatures below name only types of `@adonisjs/core`, which apps have.
 */

import type { BaseCommand } from '@adonisjs/core/ace'
import type { CommandMetaData } from '@adonisjs/core/types/ace'

/**
 * The command files, loaded on demand.
 */
const COMMANDS = {
  'agents_run.ts': () => import('./agents_run.ts'),
  'agents_inbox.ts': () => import('./agents_inbox.ts'),
  'agents_sweep.ts': () => import('./agents_sweep.ts'),
  'agents_prune.ts': () => import('./agents_prune.ts'),
  'agents_audit.ts': () => import('./agents_audit.ts'),
  'agents_stats.ts': () => import('./agents_stats.ts'),
  'agents_policy.ts': () => import('./agents_policy.ts'),
  'agents_mcp_token.ts': () => import('./agents_mcp_token.ts'),
  'agents_migrations.ts': () => import('./agents_migrations.ts'),
  'make_agent.ts': () => import('./make_agent.ts'),
  'make_tool.ts': () => import('./make_tool.ts'),
}

type CommandFile = keyof typeof COMMANDS

let metaData: Array<CommandMetaData & { filePath: CommandFile }> | undefined

/**
 * The metadata of every command, as the generated commands.json holds it.
 */
export async function getMetaData(): Promise<CommandMetaData[]> {
  return metaDataWithFiles()
}

/** The metadata with the file each command lives in, read once */
async function metaDataWithFiles() {
  if (!metaData) {
    metaData = await Promise.all(
      Object.entries(COMMANDS).map(async ([filePath, load]) => {
        const { default: command } = await load()
        return { ...command.serialize(), filePath: filePath as CommandFile }
      })
    )
  }
  return metaData
}

/**
 * The command class of a command, by its metadata.
 */
export async function getCommand(command: {
  commandName: string
}): Promise<typeof BaseCommand | null> {
  const commands = await metaDataWithFiles()
  const found = commands.find((meta) => meta.commandName === command.commandName)
  if (!found) return null
  const { default: commandClass } = await COMMANDS[found.filePath]()
  return commandClass
}
