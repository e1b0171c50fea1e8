/*
 * The package's main entry, as the README shows it: the install hook, the
 * config helpers, the route registration and the errors. Runs and the inbox
 * are reached through `adonis-agent-inbox/services/main`, types through
 * `adonis-agent-inbox/types`, the pure question model through
 * `adonis-agent-inbox/questions`; the runtime's building blocks (driver,
 * settler, models) live in `adonis-agent-inbox/internals`.
 */

export { configure } from './configure.ts'
export { stubsRoot } from './stubs/main.ts'
export { defineConfig } from './src/define_config.ts'
export * as errors from './src/errors.ts'
export { defineAgent } from './src/runtime/define_agent.ts'
export { defineTool } from './src/runtime/define_tool.ts'
export { policy } from './src/governance/policy.ts'
export { viewDigest } from './src/governance/view.ts'
export {
  registerChatRoutes,
  registerConsoleRoutes,
  registerInboxRoutes,
} from './src/http/register_routes.ts'
export {
  defineNotifier,
  mailNotifier,
  webhookNotifier,
  verifyWebhook,
  SIGNATURE_HEADER,
} from './src/notify/main.ts'
export type { NotificationsConfig, Preferences } from './src/notify/main.ts'
export type { RunExecutor } from './src/runtime/executor.ts'
