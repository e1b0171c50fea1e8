/*
 * The attribute names the metrics share: OpenTelemetry's semantic
 * conventions where one exists (the GenAI ones), `agent_inbox.*` otherwise.
 */

export const ATTR = {
  kind: 'agent_inbox.kind',
  agent: 'gen_ai.agent.name',
  tool: 'gen_ai.tool.name',
  outcome: 'agent_inbox.outcome',
  via: 'agent_inbox.via',
  status: 'agent_inbox.run.status',
  outbox: 'agent_inbox.outbox',
  model: 'gen_ai.request.model',
  provider: 'gen_ai.provider.name',
  operation: 'gen_ai.operation.name',
  tokenType: 'gen_ai.token.type',
} as const
