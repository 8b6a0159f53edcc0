import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, data, problemText } from '../api/client.js';
import { Field } from '../ui/Field.js';
import { AuthFrame } from './AuthFrame.js';
import { returnTarget, signedIn } from './signed-in.js';

/** An invitation link's tenant and token, carried in the fragment (see admin/RegistrationSection.tsx). */
function invitation(): { tenant_id: string; invite_token: string } | undefined {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const tenant = fragment.get('tenant');
  const invite = fragment.get('invite');
  return tenant && invite ? { tenant_id: tenant, invite_token: invite } : undefined;
}

/** Registration: the new account starts in the browser's timezone (changeable in Settings). */
export function RegisterPage() {
  const [search] = useSearchParams();
  const [invite] = useState(invitation);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const answer = data(
        await api.POST('/api/v1/auth/register', {
          body: {
            email,
            password,
            ...(name ? { name } : {}),
            ...(timezone ? { timezone } : {}),
            ...(invite ?? {}),
          },
        }),
      );
      signedIn(queryClient, answer);
      void navigate(returnTarget(search), { replace: true });
    } catch (failure) {
      setError(problemText(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Create your account">
      {invite && (
        <p className="notice" role="status">
          You were invited: your account joins the team that invited you.
        </p>
      )}
      <Form className="stack" onSubmit={submit}>
        <Field label="Name" name="name" autoComplete="name" value={name} onChange={setName} />
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          isRequired
          value={email}
          onChange={setEmail}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          isRequired
          minLength={8}
          value={password}
          onChange={setPassword}
        />
        {error && (
          <p className="notice notice-error" role="alert">
            {error}
          </p>
        )}
        <Button type="submit" className="btn btn-primary" isDisabled={busy}>
          Create account
        </Button>
      </Form>
      <p className="muted center">
        Have an account? <Link to={`/sign-in${window.location.search}`}>Sign in</Link>
      </p>
    </AuthFrame>
  );
}
