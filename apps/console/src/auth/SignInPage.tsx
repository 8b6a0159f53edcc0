import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, data, problemText } from '../api/client.js';
import { Field } from '../ui/Field.js';
import { AuthFrame } from './AuthFrame.js';
import { returnTarget, signedIn, ssoErrorText } from './signed-in.js';

/** Password sign-in, then the TOTP step when the account has one; SSO when the server has it configured. */
export function SignInPage() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // The MFA challenge (not a session): it lives for the two answers of this sign-in and is dropped after.
  const [challenge, setChallenge] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const health = useQuery({
    queryKey: ['auth-health'],
    queryFn: async () => data(await api.GET('/api/v1/auth/health')),
    staleTime: 60_000,
  });
  const ssoError = search.get('error');
  // The code box takes the focus when the step appears (the button that was pressed is gone by then).
  useEffect(() => {
    if (challenge) document.querySelector<HTMLInputElement>('input[name="code"]')?.focus();
  }, [challenge]);
  const expired = search.get('expired') === '1';

  const finish = (answer: { expires_in: number }) => {
    setChallenge(undefined);
    signedIn(queryClient, answer);
    void navigate(returnTarget(search), { replace: true });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (challenge) {
        const answer = data(await api.POST('/api/v1/auth/mfa/verify', { body: { code, mfa_token: challenge } }));
        if ('expires_in' in answer) finish(answer);
      } else {
        const answer = data(await api.POST('/api/v1/auth/login', { body: { email, password } }));
        if ('mfa_required' in answer) setChallenge(answer.mfa_token);
        else finish(answer);
      }
    } catch (failure) {
      setError(problemText(failure));
    } finally {
      setBusy(false);
    }
  };

  const sso = () => {
    const next = returnTarget(search);
    const back = `/home?next=${encodeURIComponent(next)}`;
    window.location.assign(`/api/v1/auth/sso/login?return_url=${encodeURIComponent(back)}`);
  };

  return (
    <AuthFrame title={challenge ? 'Two-step verification' : 'Sign in to Routinely'}>
      {ssoError && (
        <p className="notice notice-error" role="alert">
          {ssoErrorText(ssoError)}
        </p>
      )}
      {expired && !ssoError && (
        <p className="notice" role="status">
          Your session ended. Sign in again to continue where you were.
        </p>
      )}
      <Form className="stack" onSubmit={submit}>
        {challenge ? (
          <>
            <p className="muted">Enter the 6-digit code from your authenticator app, or one of your backup codes.</p>
            <Field
              label="Authentication code"
              name="code"
              autoComplete="one-time-code"
              isRequired
              value={code}
              onChange={setCode}
            />
          </>
        ) : (
          <>
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
              autoComplete="current-password"
              isRequired
              value={password}
              onChange={setPassword}
            />
          </>
        )}
        {error && (
          <p className="notice notice-error" role="alert">
            {error}
          </p>
        )}
        <Button type="submit" className="btn btn-primary" isDisabled={busy}>
          {challenge ? 'Verify' : 'Sign in'}
        </Button>
      </Form>
      {!challenge && health.data?.sso_configured && (
        <>
          <div className="divider">or</div>
          <Button className="btn" onPress={sso}>
            Continue with single sign-on
          </Button>
        </>
      )}
      {!challenge && (
        <p className="muted center">
          New here? <Link to={`/register${window.location.search}`}>Create an account</Link>
        </p>
      )}
    </AuthFrame>
  );
}
