import type { ReactNode } from 'react';
import { Dialog, Popover } from 'react-aria-components';
import type { TriggerRef } from './LazyPopover.js';

/** React Aria's Popover and Dialog, opened under a trigger: loaded lazily by LazyPopover's users. */
export default function PopoverDialog({
  triggerRef,
  label,
  className,
  onClose,
  children,
}: {
  triggerRef: TriggerRef;
  label: string;
  className: string;
  onClose(): void;
  children: ReactNode;
}) {
  return (
    <Popover
      triggerRef={triggerRef}
      isOpen
      onOpenChange={(open) => !open && onClose()}
      placement="bottom end"
      className="popover"
    >
      <Dialog className={className} aria-label={label}>
        {children}
      </Dialog>
    </Popover>
  );
}
