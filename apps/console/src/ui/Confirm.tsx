import { type KeyboardEvent, type ReactNode, useLayoutEffect, useRef } from 'react';
import { Button } from 'react-aria-components';

/**
 * An inline confirmation (role alertdialog) of a destructive action: focus moves to its confirm button, Tab and
 * Shift+Tab stay on its two buttons, Escape is "Keep it", and closing returns focus to the button that asked
 * (when that is still on the page).
 */
export function Confirm({
  id,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  id: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const opener = document.activeElement;
    box.current?.querySelector<HTMLElement>('button')?.focus();
    return () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      // Only the confirmation closes, not a drawer it sits in.
      event.preventDefault();
      event.stopPropagation();
      onCancel();
      return;
    }
    if (event.key !== 'Tab') return;
    const buttons = [...(box.current?.querySelectorAll<HTMLElement>('button:not([disabled])') ?? [])];
    const edge = event.shiftKey ? buttons[0] : buttons.at(-1);
    if (document.activeElement === edge) {
      event.preventDefault();
      (event.shiftKey ? buttons.at(-1) : buttons[0])?.focus();
    }
  };
  return (
    <div className="confirm" role="alertdialog" aria-labelledby={id} ref={box} onKeyDown={onKeyDown}>
      <p id={id}>{children}</p>
      <div className="row">
        <Button className="btn btn-danger" onPress={onConfirm}>
          {confirmLabel}
        </Button>
        <Button className="btn" onPress={onCancel}>
          Keep it
        </Button>
      </div>
    </div>
  );
}
