import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'react-aria-components';

/** A short message at the bottom of the screen; an error stays until dismissed, the rest go by themselves. */
export interface Toast {
  id: number;
  text: string;
  tone: 'info' | 'error';
  action?: { label: string; run: () => void };
  /** How long it stays, in ms (errors: until dismissed). */
  timeoutMs?: number;
}

interface Toasts {
  show(toast: Omit<Toast, 'id'>): number;
  dismiss(id: number): void;
}

const ToastContext = createContext<Toasts | undefined>(undefined);

export function useToasts(): Toasts {
  const toasts = useContext(ToastContext);
  if (!toasts) throw new Error('useToasts outside ToastProvider');
  return toasts;
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Toast[]>([]);
  const next = useRef(1);
  const dismiss = useCallback((id: number) => setItems((list) => list.filter((t) => t.id !== id)), []);
  const show = useCallback((toast: Omit<Toast, 'id'>) => {
    const id = next.current++;
    // One message at a time per kind keeps the corner calm: a new one replaces an older one of its tone.
    setItems((list) => [...list.filter((t) => t.tone !== toast.tone), { ...toast, id }]);
    return id;
  }, []);
  const value = useMemo(() => ({ show, dismiss }), [show, dismiss]);
  // Ctrl/Cmd+Z runs the Undo on screen (outside text fields, where it undoes typing).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== 'z' || event.shiftKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA'].includes(target.tagName))) return;
      const undo = items.findLast((t) => t.action?.label === 'Undo');
      if (!undo?.action) return;
      event.preventDefault();
      dismiss(undo.id);
      undo.action.run();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [items, dismiss]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <section className="toasts" aria-label="Messages">
        {items.map((toast) => (
          <ToastView key={toast.id} toast={toast} dismiss={dismiss} />
        ))}
      </section>
    </ToastContext.Provider>
  );
}

function ToastView({ toast, dismiss }: { toast: Toast; dismiss: (id: number) => void }) {
  useEffect(() => {
    const ms = toast.timeoutMs ?? (toast.tone === 'error' ? 0 : 5000);
    if (!ms) return;
    const timer = setTimeout(() => dismiss(toast.id), ms);
    return () => clearTimeout(timer);
  }, [toast, dismiss]);
  return (
    <div className={`toast toast-${toast.tone}`} role={toast.tone === 'error' ? 'alert' : 'status'}>
      <span>{toast.text}</span>
      {toast.action && (
        <button
          type="button"
          className="btn btn-quiet"
          aria-keyshortcuts={toast.action.label === 'Undo' ? 'Control+Z' : undefined}
          onClick={() => {
            dismiss(toast.id);
            toast.action?.run();
          }}
        >
          {toast.action.label}
        </button>
      )}
      <Button className="btn btn-icon" aria-label="Dismiss" onPress={() => dismiss(toast.id)}>
        ×
      </Button>
    </div>
  );
}
