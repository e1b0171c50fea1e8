/*
 * The testing kit's scripted model keeps a window of the calls it received,
 * not every prompt: a long-lived app driven by it (the demo, a soak) grew
 * its heap with each run before.
 */

import { test } from '@japa/runner'
import { generateText } from 'ai'
import { KEPT_CALLS, say, scriptedModel } from '../../src/testing/scripted_model.ts'

/** The user's text of each call the model kept, in order */
function keptPrompts(model: ReturnType<typeof scriptedModel>) {
  return model.doGenerateCalls.map((call) =>
    call.prompt
      .flatMap((message) =>
        message.role === 'user'
          ? message.content.map((part) => (part.type === 'text' ? part.text : ''))
          : []
      )
      .join('')
  )
}

test.group('Scripted model | the calls it keeps', () => {
  test('the latest keepCalls calls, in order', async ({ assert }) => {
    const model = scriptedModel(() => [say('ok')], { keepCalls: 3 })
    for (let call = 1; call <= 5; call++) await generateText({ model, prompt: `call ${call}` })
    assert.deepEqual(keptPrompts(model), ['call 3', 'call 4', 'call 5'])
  })

  test(`${KEPT_CALLS} by default, however many calls it served`, async ({ assert }) => {
    const model = scriptedModel(() => [say('ok')])
    const served = KEPT_CALLS + 50
    for (let call = 1; call <= served; call++) await generateText({ model, prompt: `call ${call}` })
    const kept = keptPrompts(model)
    assert.lengthOf(kept, KEPT_CALLS)
    assert.equal(kept.at(-1), `call ${served}`)
    assert.equal(kept[0], `call ${served - KEPT_CALLS + 1}`)
  })
})
