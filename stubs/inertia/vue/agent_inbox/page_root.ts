/*
 * The root of every Vue inbox page: the .agent-inbox element its styles
 * are scoped under is the page's main landmark unless the app's layout
 * already wraps it in one (./landmark.ts). A composable, not a wrapper
 * component: what the page renders stays in its own render, which its
 * state updates. The app receives this file in inertia/agent_inbox/.
 *
 * @example
 * const pageRole = usePageRoot()
 * // <div ref="pageRoot" class="agent-inbox" :role="pageRole">…</div>
 */

import { onMounted, ref, useTemplateRef } from 'vue'
import { pageLandmark } from './landmark'

/** The root's role, read off the element whose template ref is `pageRoot` once mounted */
export function usePageRoot() {
  const pageRoot = useTemplateRef<HTMLElement>('pageRoot')
  const pageRole = ref<'main' | undefined>('main')
  onMounted(() => {
    pageRole.value = pageLandmark(pageRoot.value)
  })
  return pageRole
}
