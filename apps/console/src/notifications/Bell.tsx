import { useMutation, useQueryClient } from '@tanstack/react-query';
import { lazy, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import { keys, useNotifications } from '../api/queries.js';
import { BellIcon } from '../ui/icons.js';
import { LazyPopover } from '../ui/LazyPopover.js';
import { useToasts } from '../ui/toasts.js';
import { timeAgo } from './time-ago.js';

const PopoverDialog = lazy(() => import('../ui/PopoverDialog.js'));

/** The bell: its name carries the unread count; the list marks one read at a time. Polled (queries.ts). */
export function Bell() {
  const notifications = useNotifications();
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const markRead = useMutation({
    mutationFn: async (id: string) =>
      data(await api.PATCH('/api/v1/service/notifications/{notif_id}/read', { params: { path: { notif_id: id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.notifications }),
    onError: (error) => toasts.show({ text: problemText(error), tone: 'error' }),
  });
  const unread = notifications.data?.unread_count ?? 0;
  const items = notifications.data?.items ?? [];
  const trigger = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button
        ref={trigger}
        className="btn btn-icon bell"
        aria-label={unread ? `Notifications, ${unread} unread` : 'Notifications'}
        aria-haspopup="dialog"
        aria-expanded={open}
        onPress={() => setOpen(!open)}
      >
        <BellIcon />
        {unread > 0 && (
          <span className="badge" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </Button>
      <LazyPopover open={open}>
        <PopoverDialog triggerRef={trigger} label="Notifications" className="bell-list" onClose={() => setOpen(false)}>
          <h2 className="popover-title">Notifications</h2>
          {items.length === 0 ? (
            <p className="muted">Nothing new.</p>
          ) : (
            <ul>
              {items.map((n) => (
                <li key={n.id} className={n.read ? 'read' : 'unread'}>
                  <div>
                    <p className="notif-title">{n.title}</p>
                    {n.body && <p className="notif-body">{n.body}</p>}
                    <p className="notif-time">{timeAgo(n.created_at)}</p>
                  </div>
                  {!n.read && (
                    <Button className="btn btn-small" onPress={() => markRead.mutate(n.id)}>
                      Mark read<span className="sr-only">: {n.title}</span>
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </PopoverDialog>
      </LazyPopover>
    </>
  );
}
