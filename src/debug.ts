/*
 * Debug output of the package, switched on with NODE_DEBUG=adonis-agent-inbox.
 */

import { debuglog } from 'node:util'

export default debuglog('adonis-agent-inbox')
