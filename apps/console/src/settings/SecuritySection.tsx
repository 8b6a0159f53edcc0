import type { Schemas } from '@routinely/api-client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api, data, problemText } from '../api/client.js';
import { keys, useMe } from '../api/queries.js';
import { signedOut } from '../api/session.js';
import { CopyButton } from '../ui/CopyButton.js';
import { Field } from '../ui/Field.js';
import { Outcome, Section } from './Section.js';

/** Two-step verification (on with a QR code and backup codes shown once, off), password, sign out everywhere. */
export function SecuritySection() {
  const me = useMe();
  return (
    <Section id="security" title="Security">
      <h3 id="security-mfa">Two-step verification</h3>
      {me.data?.mfa_enabled ? <MfaOff hasPassword={me.data.has_local_password} /> : <MfaOn />}
      <PasswordForm hasPassword={me.data?.has_local_password ?? true} />
      <SignOutEverywhere />
    </Section>
  );
}

function MfaOn() {
  const queryClient = useQueryClient();
  const [setup, setSetup] = useState<Schemas['MfaSetup'] | undefined>();
  const [code, setCode] = useState('');
  const start = useMutation({
    mutationFn: async () => data(await api.POST('/api/v1/auth/mfa/setup')),
    onSuccess: setSetup,
  });
  const confirm = useMutation({
    mutationFn: async () => data(await api.POST('/api/v1/auth/mfa/verify', { body: { code } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.me }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate();
  };
  if (!setup) {
    return (
      <div className="stack">
        <p className="muted">Off. With it on, signing in asks for a code from an authenticator app.</p>
        <Outcome error={start.isError ? problemText(start.error) : undefined} />
        <Button className="btn" onPress={() => start.mutate()} isDisabled={start.isPending}>
          Set up two-step verification
        </Button>
      </div>
    );
  }
  return (
    <Form className="stack" onSubmit={submit} aria-labelledby="security-mfa">
      <p>Scan the code with an authenticator app, or enter the key by hand, then type the code it shows.</p>
      <img src={setup.qr_code_url} alt="QR code for the authenticator app" width={180} height={180} />
      <p>
        Key: <code>{setup.secret}</code>
      </p>
      <div className="secret">
        <p>Backup codes, shown only now (each works once when the phone is not at hand):</p>
        <ul className="backup-codes" aria-label="Backup codes">
          {setup.backup_codes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ul>
        <CopyButton text={setup.backup_codes.join('\n')} label="Copy backup codes" />
      </div>
      <Field
        label="Code from the app"
        name="code"
        isRequired
        value={code}
        onChange={setCode}
        autoComplete="one-time-code"
      />
      <Outcome error={confirm.isError ? problemText(confirm.error) : undefined} />
      <Button type="submit" className="btn btn-primary" isDisabled={confirm.isPending}>
        Turn on two-step verification
      </Button>
    </Form>
  );
}

function MfaOff({ hasPassword }: { hasPassword: boolean }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState('');
  const off = useMutation({
    mutationFn: async () =>
      data(await api.DELETE('/api/v1/auth/mfa', { body: hasPassword ? { password: secret } : { code: secret } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.me }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    off.mutate();
  };
  return (
    <Form className="stack" onSubmit={submit} aria-labelledby="security-mfa">
      <p>On: signing in asks for a code.</p>
      <Field
        label={hasPassword ? 'Current password' : 'Code from the app'}
        type={hasPassword ? 'password' : 'text'}
        isRequired
        value={secret}
        onChange={setSecret}
      />
      <Outcome error={off.isError ? problemText(off.error) : undefined} />
      <Button type="submit" className="btn btn-danger" isDisabled={off.isPending}>
        Turn off two-step verification
      </Button>
    </Form>
  );
}

function PasswordForm({ hasPassword }: { hasPassword: boolean }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const change = useMutation({
    mutationFn: async () =>
      data(
        await api.POST('/api/v1/auth/set-local-password', {
          body: { new_password: next, ...(hasPassword ? { current_password: current } : {}) },
        }),
      ),
    onSuccess: () => {
      setCurrent('');
      setNext('');
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate();
  };
  return (
    <Form className="stack" onSubmit={submit} aria-labelledby="security-password">
      <h3 id="security-password">Password</h3>
      <div className="grid-2">
        {hasPassword && (
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            isRequired
            value={current}
            onChange={setCurrent}
          />
        )}
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          isRequired
          minLength={8}
          value={next}
          onChange={setNext}
        />
      </div>
      <Outcome
        error={change.isError ? problemText(change.error) : undefined}
        saved={change.isSuccess ? 'Password changed.' : undefined}
      />
      <Button type="submit" className="btn" isDisabled={change.isPending}>
        {hasPassword ? 'Change password' : 'Set a password'}
      </Button>
    </Form>
  );
}

function SignOutEverywhere() {
  const out = useMutation({
    mutationFn: async () => data(await api.POST('/api/v1/auth/logout', { body: { logout_all: true } })),
    onSuccess: () => signedOut('signed-out', true),
  });
  return (
    <div className="stack">
      <h3>Sessions</h3>
      <p className="muted">Ends every session of this account, on every device, this one included.</p>
      <Outcome error={out.isError ? problemText(out.error) : undefined} />
      <Button className="btn btn-danger" onPress={() => out.mutate()} isDisabled={out.isPending}>
        Sign out everywhere
      </Button>
    </div>
  );
}
