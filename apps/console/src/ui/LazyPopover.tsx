import { type ReactNode, type RefObject, Suspense } from 'react';

/**
 * A popover whose code loads when it first opens: the header's bell and account menus stay out of the first
 * screen's JavaScript. The trigger is a plain React Aria Button that says whether the dialog is open.
 */
export function LazyPopover({ open, children }: { open: boolean; children: ReactNode }) {
  return open ? <Suspense fallback={null}>{children}</Suspense> : null;
}

export type TriggerRef = RefObject<HTMLButtonElement | null>;
