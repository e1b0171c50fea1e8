/*
 * A question card (ask, intake): every question of the set on its
 * defaults, hotkeys that pick options, Confirm (what is shown) and Skip
 * (every default). The app receives this file in inertia/agent_inbox/.
 */

import { type KeyboardEvent, useId, useState } from 'react'
import { type CardProps, ActionRow, CardButton, CardFrame, ErrorList } from './card_parts'
import { isTyping, questionOf, stopEnter } from './keyboard'
import { cardTitle, t } from './words'
import { questionErrors } from './feedback'
import {
  type AnswerState,
  type FormState,
  answersReply,
  findHotkey,
  initialForm,
  pickOption,
  skipReply,
} from './form_state'
import { QuestionField } from './question_field'

/**
 * A question set's card. It starts on the defaults that hold (`initialForm`),
 * so Confirm untouched sends what Skip would settle.
 */
export function QuestionCard({
  card,
  errors,
  busy,
  locked,
  selected,
  onSelect,
  onReply,
}: CardProps) {
  const set = card.questionSet!
  const titleId = useId()
  const [form, setForm] = useState<FormState>(() => initialForm(set))
  const split = questionErrors(set, errors)
  const restId = `${titleId}-errors`

  const update = (id: string, change: (state: AnswerState) => AnswerState) =>
    setForm((current) => ({ ...current, [id]: change(current[id]) }))

  /* A hotkey picks its option while the focus is in the card but not in a text field */
  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    stopEnter(event)
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return
    if (isTyping(event.target) || busy) return
    const hit = findHotkey(set.questions, event.key, questionOf(event.target))
    if (!hit) return
    event.preventDefault()
    const question = set.questions.find((item) => item.id === hit.questionId)!
    update(question.id, (state) => pickOption(question, state, hit.value))
  }

  return (
    <CardFrame
      card={card}
      titleId={titleId}
      title={cardTitle(card)}
      busy={busy}
      selected={selected}
      onSelect={onSelect}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      {set.preamble && <p className="ai-preamble">{set.preamble}</p>}
      <form noValidate onSubmit={(event) => event.preventDefault()}>
        {set.questions.map((question) => (
          <QuestionField
            key={question.id}
            rowId={card.id}
            question={question}
            state={form[question.id]}
            errors={split.byQuestion[question.id] ?? []}
            disabled={busy}
            onChange={(change) => update(question.id, change)}
          />
        ))}
        <ErrorList id={restId} messages={split.rest} />
        <ActionRow busy={busy} hint={t('page.card.question_hint')}>
          <CardButton
            tone="primary"
            disabled={busy || locked}
            aria-describedby={split.rest.length > 0 ? restId : undefined}
            onClick={() => onReply(answersReply(set, form))}
          >
            {t('page.card.confirm')}
          </CardButton>
          <CardButton disabled={busy || locked} onClick={() => onReply(skipReply())}>
            {t('page.card.skip')}
          </CardButton>
        </ActionRow>
      </form>
    </CardFrame>
  )
}
