import { useQueryClient } from '@tanstack/react-query';
import { lazy, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { api, problemText } from '../api/client.js';
import { useMe } from '../api/queries.js';
import { signedOut } from '../api/session.js';
import { UserIcon } from '../ui/icons.js';
import { LazyPopover } from '../ui/LazyPopover.js';
import { useToasts } from '../ui/toasts.js';

const PopoverDialog = lazy(() => import('../ui/PopoverDialog.js'));

/** Who is signed in, Sign out, and Sign out everywhere (every session of the account). */
export function AccountMenu() {
  const me = useMe();
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const [busy, setBusy] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const signOut = async (everywhere: boolean) => {
    setBusy(true);
    try {
      const result = await api.POST('/api/v1/auth/logout', { body: everywhere ? { logout_all: true } : {} });
      if (!result.response.ok && result.response.status !== 401) throw new Error(`status ${result.response.status}`);
      queryClient.clear();
      signedOut('signed-out', true);
    } catch (failure) {
      toasts.show({ text: `Signing out failed: ${problemText(failure)}`, tone: 'error' });
    } finally {
      setBusy(false);
    }
  };
  const who = me.data?.display_name ?? me.data?.name ?? me.data?.email ?? '';
  return (
    <>
      <Button
        ref={trigger}
        className="btn btn-icon"
        aria-label="Account"
        aria-haspopup="dialog"
        aria-expanded={open}
        onPress={() => setOpen(!open)}
      >
        <UserIcon />
      </Button>
      <LazyPopover open={open}>
        <PopoverDialog triggerRef={trigger} label="Account" className="account" onClose={() => setOpen(false)}>
          <h2 className="account-name">{who}</h2>
          {me.data?.email && who !== me.data.email && <p className="muted">{me.data.email}</p>}
          <Button className="btn" isDisabled={busy} onPress={() => void signOut(false)}>
            Sign out
          </Button>
          <Button className="btn btn-quiet" isDisabled={busy} onPress={() => void signOut(true)}>
            Sign out everywhere
          </Button>
        </PopoverDialog>
      </LazyPopover>
    </>
  );
}
