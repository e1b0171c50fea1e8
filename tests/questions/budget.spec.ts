import { test } from '@japa/runner'
import { checkAskBudget } from '../../src/questions/budget.ts'

test.group('Budget | ask calls per run', () => {
  test('three ask calls fit the default budget', ({ assert }) => {
    assert.deepEqual(checkAskBudget(0), { allowed: true, remaining: 2 })
    assert.deepEqual(checkAskBudget(1), { allowed: true, remaining: 1 })
    assert.deepEqual(checkAskBudget(2), { allowed: true, remaining: 0 })
  })

  test('the fourth call is refused, telling the model to assume and say so', ({ assert }) => {
    const result = checkAskBudget(3)
    assert.isFalse(result.allowed)
    if (result.allowed) return
    assert.include(result.message, '3 ask calls')
    assert.include(result.message, 'Do not call ask again')
    assert.include(result.message, 'choose the most reasonable option')
    assert.include(result.message, 'state every assumption you made in your final answer')
    assert.isFalse(checkAskBudget(10).allowed)
  })

  test('the budget comes from the limits', ({ assert }) => {
    assert.deepEqual(checkAskBudget(0, { askBudget: 1 }), { allowed: true, remaining: 0 })
    const refused = checkAskBudget(1, { askBudget: 1 })
    assert.isFalse(refused.allowed)
    assert.include(refused.allowed ? '' : refused.message, '(1 ask call)')
    assert.deepEqual(checkAskBudget(4, { askBudget: 6 }), { allowed: true, remaining: 1 })
  })

  test('a budget of zero refuses every call', ({ assert }) => {
    const result = checkAskBudget(0, { askBudget: 0 })
    assert.isFalse(result.allowed)
    assert.include(result.allowed ? '' : result.message, 'This run may not ask questions.')
    assert.include(result.allowed ? '' : result.message, 'most reasonable option')
  })

  test('odd counts are read safely', ({ assert }) => {
    assert.deepEqual(checkAskBudget(-2), { allowed: true, remaining: 2 })
    assert.deepEqual(checkAskBudget(Number.NaN), { allowed: true, remaining: 2 })
    assert.deepEqual(checkAskBudget(1.7), { allowed: true, remaining: 1 })
    assert.isFalse(checkAskBudget(Number.POSITIVE_INFINITY).allowed)
  })
})
