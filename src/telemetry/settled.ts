/*
 * What telemetry notes of rows moved out of `pending` once the write
 * committed: the metrics' counts and times to decision (./metrics.ts)
 * and, for rows no settle span saw (an expiry, a quorum's last vote),
 * each row's wait span (./trace_context.ts), under whatever span is
 * active: the sweep's, the vote's request.
 */

import type { ToolCall } from '../persistence/models/tool_call.ts'
import { recordSettled } from './metrics.ts'
import { recordWait } from './trace_context.ts'

/**
 * Notes `rows`, as read back after their settle. `waits: false` when a
 * settle span recorded their waits already.
 */
export async function noteSettled(rows: ToolCall[], options: { waits?: boolean } = {}) {
  if (options.waits !== false) {
    for (const row of rows) recordWait(row, row, (row.settledAt ?? row.updatedAt).toJSDate())
  }
  await recordSettled(rows)
}
