/*
 * An approval card: the tool and the args the run will use, and three
 * ways to answer: Approve, Reject (with an optional reason the agent
 * reads) and Edit (approve changed args, in a form generated from the
 * tool's input schema, or as JSON behind "Edit as JSON", in place of the
 * args shown). While a panel is open the page pauses its live updates. A
 * row the app changed since it was asked says what changed and offers
 * only what can still happen (./changes.ts): Reject, or for a changed
 * input schema the edit form, prefilled with what still fits. The app
 * receives this file in inertia/agent_inbox/.
 */

import { useEffect, useId, useMemo, useRef, useState } from 'react'
import { type CardProps, ActionRow, CardButton, CardFrame, ErrorList } from './card_parts'
import { decisionErrors } from './feedback'
import { ChangedNote } from './changed_note'
import { approveReply, argsText, rejectReply } from './form_state'
import { argsErrors, argsForm, editReply } from './schema_form'
import { SchemaInput } from './schema_input'
import { grantReply, quorumView } from './governance'
import { changeView, editStart } from './changes'
import { t } from './words'
import type { People } from 'adonis-agent-inbox/types'

type Panel = 'none' | 'reject' | 'edit'

/**
 * An approval's card. Focus follows its panels: into the field when one
 * opens, back to its button when it closes.
 */
export function ApprovalCard({
  card,
  errors,
  busy,
  locked,
  selected,
  onSelect,
  onReply,
  onPanel,
  person,
  people,
}: CardProps & { onPanel: (open: boolean) => void; person: string; people?: People }) {
  const quorum = quorumView(card, person, people)
  const titleId = useId()
  const base = useId()
  const args = card.action?.args
  const change = changeView(card)
  const form = useMemo(() => argsForm(card.action?.schema), [card.action?.schema])
  const [panel, setPanel] = useState<Panel>('none')
  const [reason, setReason] = useState('')
  /* The form edits a value; "Edit as JSON" (and a tool with no form) edits text */
  const [asJson, setAsJson] = useState(form === null)
  const [value, setValue] = useState<unknown>(() => editStart(card) ?? {})
  const [edited, setEdited] = useState(() => argsText(editStart(card)))
  const [jsonError, setJsonError] = useState<string | null>(null)
  const split = decisionErrors(errors)
  const byField = argsErrors(asJson ? null : form, errors)
  const reasonRef = useRef<HTMLTextAreaElement>(null)
  const editRef = useRef<HTMLTextAreaElement>(null)
  const formRef = useRef<HTMLDivElement>(null)
  const returnFocus = useRef<Panel>('none')
  const rejectButton = useRef<HTMLButtonElement>(null)
  const editButton = useRef<HTMLButtonElement>(null)

  /* Server errors about the args open the editor again, so they show beside it */
  const serverEditErrors = split.editedInput.length
  useEffect(() => {
    if (serverEditErrors > 0) setPanel('edit')
  }, [serverEditErrors])

  /* The page pauses live updates while a panel is open */
  const panelChanged = useRef(onPanel)
  useEffect(() => {
    panelChanged.current = onPanel
  })
  useEffect(() => () => panelChanged.current(false), [])

  /* Focus follows the panel: into its field when it opens, back to its button when it closes */
  useEffect(() => {
    panelChanged.current(panel !== 'none')
    if (panel === 'reject') reasonRef.current?.focus()
    if (panel === 'edit') {
      const first = formRef.current?.querySelector<HTMLElement>('input, select, textarea')
      ;(asJson ? editRef.current : first)?.focus()
    }
    if (panel === 'none') {
      if (returnFocus.current === 'reject') rejectButton.current?.focus()
      if (returnFocus.current === 'edit') editButton.current?.focus()
      returnFocus.current = 'none'
    }
  }, [panel])

  const close = () => {
    returnFocus.current = panel
    setPanel('none')
  }
  const switchMode = () => {
    if (asJson) {
      const read = editReply(edited)
      if ('error' in read) return setJsonError(read.error)
      setValue(read.reply.editedInput)
    } else {
      setEdited(argsText(value))
    }
    setJsonError(null)
    setAsJson(!asJson)
  }
  const sendEdit = () => {
    if (!asJson) return onReply({ approved: true, editedInput: value })
    const result = editReply(edited)
    if ('error' in result) {
      setJsonError(result.error)
      editRef.current?.focus()
      return
    }
    setJsonError(null)
    onReply(result.reply)
  }

  const restId = `${base}-errors`
  const reasonErrorId = `${base}-reason-error`
  const editErrorId = `${base}-edit-error`
  const editMessages = [
    ...(jsonError ? [jsonError] : []),
    ...(asJson ? split.editedInput : byField.rest),
  ]
  const rest = [...split.rest, ...(panel === 'reject' ? [] : split.reason)]
  /* The tool's name sits in the title's words where the language puts it */
  const [beforeTool, afterTool] = t('page.title.approve', { tool: '\0' }).split('\0')

  return (
    <CardFrame
      card={card}
      titleId={titleId}
      title={
        <>
          {beforeTool}
          <code className="ai-tool">{card.toolName}</code>
          {afterTool}
        </>
      }
      busy={busy}
      selected={selected}
      onSelect={onSelect}
    >
      {card.action?.summary && card.action.summary !== card.toolName && (
        <p className="ai-summary">{card.action.summary}</p>
      )}
      {/* While Edit is open its form (or JSON) stands in for the args shown */}
      {panel !== 'edit' && (
        <div className="ai-args">
          <p className="ai-args-label ai-muted" id={`${base}-args`}>
            {t('page.card.arguments')}
          </p>
          <pre aria-labelledby={`${base}-args`}>{argsText(args)}</pre>
        </div>
      )}
      <ChangedNote card={card} />
      <ErrorList id={restId} messages={rest} />
      {quorum && (
        <div className="ai-quorum" data-quorum>
          <p>
            <strong>{quorum.count}</strong>
          </p>
          {quorum.votes.length > 0 && (
            <ul className="ai-muted">
              {quorum.votes.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          )}
          {quorum.note && <p className="ai-muted">{quorum.note}</p>}
        </div>
      )}

      {panel === 'none' && (!quorum || quorum.canVote) && (
        <ActionRow busy={busy}>
          {!change && (
            <CardButton
              tone="primary"
              disabled={busy || locked}
              onClick={() => onReply(approveReply())}
            >
              {t('page.card.approve')}
            </CardButton>
          )}
          {(change ? [] : (card.grants ?? [])).map((grant) => (
            <CardButton
              key={grant.scope}
              disabled={busy || locked}
              onClick={() => onReply(grantReply(grant.scope))}
            >
              {grant.label}
            </CardButton>
          ))}
          <CardButton
            tone="danger"
            ref={rejectButton}
            disabled={busy || locked}
            onClick={() => setPanel('reject')}
          >
            {t('page.card.reject')}
          </CardButton>
          {!quorum && (!change || change.edit) && (
            <CardButton
              ref={editButton}
              disabled={busy || locked}
              onClick={() => {
                setJsonError(null)
                setPanel('edit')
              }}
            >
              {t('page.card.edit')}
            </CardButton>
          )}
        </ActionRow>
      )}

      {panel === 'reject' && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          <label htmlFor={`${base}-reason`} className="ai-prompt">
            {t('page.card.why_not')} <span className="ai-muted">{t('page.card.agent_reads')}</span>
          </label>
          <textarea
            id={`${base}-reason`}
            ref={reasonRef}
            className="ai-input"
            rows={3}
            value={reason}
            disabled={busy}
            aria-invalid={split.reason.length > 0 || undefined}
            aria-describedby={split.reason.length > 0 ? reasonErrorId : undefined}
            onChange={(event) => setReason(event.target.value)}
          />
          <ErrorList id={reasonErrorId} messages={split.reason} />
          <PanelButtons
            send={t('page.card.send_rejection')}
            tone="danger"
            busy={busy}
            disabled={busy || locked}
            onSend={() => onReply(rejectReply(reason))}
            onCancel={close}
          />
        </form>
      )}

      {panel === 'edit' && (
        <form className="ai-panel" noValidate onSubmit={(event) => event.preventDefault()}>
          {asJson ? (
            <>
              <label htmlFor={`${base}-edit`} className="ai-prompt">
                {t('page.card.arguments_json')}
              </label>
              <textarea
                id={`${base}-edit`}
                ref={editRef}
                className="ai-input ai-mono"
                rows={Math.min(16, Math.max(4, edited.split('\n').length + 1))}
                spellCheck={false}
                value={edited}
                disabled={busy}
                aria-invalid={editMessages.length > 0 || undefined}
                aria-describedby={editMessages.length > 0 ? editErrorId : undefined}
                onChange={(event) => {
                  setEdited(event.target.value)
                  setJsonError(null)
                }}
              />
            </>
          ) : (
            <div ref={formRef}>
              <SchemaInput
                field={form!}
                path={[]}
                root={value}
                errors={byField.byPath}
                disabled={busy}
                onChange={setValue}
              />
            </div>
          )}
          <ErrorList id={editErrorId} messages={editMessages} />
          {form && (
            <button type="button" className="ai-link" disabled={busy} onClick={switchMode}>
              {t(asJson ? 'page.card.edit_in_form' : 'page.card.edit_as_json')}
            </button>
          )}
          <PanelButtons
            send={t('page.card.approve_with_changes')}
            tone="primary"
            busy={busy}
            disabled={busy || locked}
            onSend={sendEdit}
            onCancel={close}
          />
        </form>
      )}
    </CardFrame>
  )
}

/**
 * The buttons under an open panel: what it sends, then Cancel, which closes
 * it.
 */
function PanelButtons(props: {
  send: string
  tone: 'primary' | 'danger'
  busy: boolean
  disabled: boolean
  onSend: () => void
  onCancel: () => void
}) {
  return (
    <ActionRow busy={props.busy}>
      <CardButton tone={props.tone} disabled={props.disabled} onClick={props.onSend}>
        {props.send}
      </CardButton>
      <CardButton disabled={props.disabled} onClick={props.onCancel}>
        {t('page.card.cancel')}
      </CardButton>
    </ActionRow>
  )
}
