import { useState } from 'react';
import { Dialog, Heading, Input, ListBox, ListBoxItem, Modal, ModalOverlay, TextField } from 'react-aria-components';
import type { NavigateFunction } from 'react-router';
import QuickAddPreview from './QuickAddPreview.js';
import { useQuickAdd } from './use-quick-add.js';

interface Command {
  id: string;
  label: string;
  run(): void;
}

/**
 * Ctrl/Cmd+K: type to add a task (Enter parses, Enter again adds) or pick a command: the pages, the calendar
 * views. Arrow keys reach the commands from the box.
 */
export default function CommandPalette({ onClose, navigate }: { onClose(): void; navigate: NavigateFunction }) {
  const quick = useQuickAdd(onClose);
  const [filter, setFilter] = useState('');
  const go = (path: string) => () => {
    void navigate(path);
    onClose();
  };
  const commands: Command[] = [
    { id: 'calendar', label: 'Go to Calendar', run: go('/calendar') },
    { id: 'tasks', label: 'Go to Tasks', run: go('/tasks') },
    { id: 'routines', label: 'Go to Routines', run: go('/routines') },
    { id: 'settings', label: 'Go to Settings', run: go('/settings') },
  ];
  const shown = commands.filter((c) => c.label.toLowerCase().includes(filter.toLowerCase()));
  return (
    <ModalOverlay className="palette-overlay" isDismissable isOpen onOpenChange={(open) => !open && onClose()}>
      <Modal className="palette">
        <Dialog aria-label="Command palette">
          <Heading slot="title" className="sr-only">
            Command palette
          </Heading>
          <TextField
            aria-label="Quick add"
            autoFocus
            value={quick.text}
            onChange={(v) => {
              quick.setText(v);
              setFilter(v);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') quick.submit();
            }}
          >
            <Input className="palette-input" placeholder="Add a task, or type a command…" />
          </TextField>
          <QuickAddPreview quick={quick} />
          {shown.length > 0 && (
            <ListBox
              aria-label="Commands"
              className="listbox palette-list"
              items={shown}
              onAction={(key) => shown.find((c) => c.id === key)?.run()}
            >
              {(c) => (
                <ListBoxItem id={c.id} className="listbox-item">
                  {c.label}
                </ListBoxItem>
              )}
            </ListBox>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
