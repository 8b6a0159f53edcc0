import { authenticator } from 'otplib';
import { expect, expectAccessible, fillSignIn, signIn, signOut, test } from './fixtures.js';

/** The app's code of the time step after the current one: the server takes ±1 step and refuses a spent step. */
const nextCode = (key: string) => authenticator.clone({ epoch: Date.now() + 30_000 }).generate(key);

test('security: two-step verification on (QR code and backup codes shown once), asked at sign-in, off; a new password', async ({
  page,
  person,
}) => {
  test.slow(); // three sign-ins and four axe checks: over a minute when the two workers share a busy machine
  await signIn(page, person, '/settings/security');
  const mfa = page.getByRole('form', { name: 'Two-step verification' });
  await page.getByRole('button', { name: 'Set up two-step verification' }).click();
  await expect(mfa.getByRole('img', { name: 'QR code for the authenticator app' })).toBeVisible();
  const key = (await mfa.getByText(/^Key:/).locator('code').textContent()) ?? '';
  const backupCodes = mfa.getByRole('list', { name: 'Backup codes' }).getByRole('listitem');
  await expect(backupCodes).not.toHaveCount(0);
  await expectAccessible(page, 'two-step verification being set up');
  await mfa.getByRole('textbox', { name: 'Code from the app' }).fill(authenticator.generate(key));
  await mfa.getByRole('button', { name: 'Turn on two-step verification' }).click();
  await expect(mfa.getByText('On: signing in asks for a code.')).toBeVisible();
  // Shown once: neither the key nor the backup codes are shown again, not even after a reload.
  await page.reload();
  await expect(mfa.getByRole('button', { name: 'Turn off two-step verification' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Backup codes' })).toHaveCount(0);
  await expect(page.getByText(key)).toHaveCount(0);
  await expectAccessible(page, 'two-step verification on');

  // Signing in now asks for the code; a code from the app (made here from the key the page showed) lets in.
  await signOut(page);
  await fillSignIn(page, person.email, person.password);
  const code = page.getByRole('textbox', { name: 'Authentication code' });
  await expect(code).toBeFocused();
  await code.fill(nextCode(key));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();

  // Off again with the password; the next sign-in asks for no code.
  await page.goto('/settings/security');
  await mfa.getByRole('textbox', { name: 'Current password' }).fill('not the password');
  await mfa.getByRole('button', { name: 'Turn off two-step verification' }).click();
  await expect(mfa.getByRole('alert')).toBeVisible();
  await expectAccessible(page, 'turning two-step verification off refused');
  await mfa.getByRole('textbox', { name: 'Current password' }).fill(person.password);
  await mfa.getByRole('button', { name: 'Turn off two-step verification' }).click();
  await expect(page.getByRole('button', { name: 'Set up two-step verification' })).toBeVisible();

  // A new local password: the old one stops working, the new one signs in.
  const password = page.getByRole('form', { name: 'Password' });
  const newPassword = 'a brand new long passphrase';
  await password.getByRole('textbox', { name: 'Current password' }).fill(person.password);
  await password.getByRole('textbox', { name: 'New password' }).fill(newPassword);
  await password.getByRole('button', { name: 'Change password' }).click();
  await expect(password.getByRole('status')).toHaveText('Password changed.');
  await expectAccessible(page, 'password changed');
  await signOut(page);
  await fillSignIn(page, person.email, person.password);
  await expect(page.getByRole('alert')).toBeVisible();
  await fillSignIn(page, person.email, newPassword);
  await expect(page.getByRole('textbox', { name: 'Authentication code' })).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
});
