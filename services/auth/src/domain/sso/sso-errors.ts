import { AppError } from '@routinely/platform';

/** A provider's token that cannot be trusted, or that lacks what signing in needs. */
export const invalidSsoToken = (detail = 'The single sign-on token is invalid') =>
  new AppError('invalid_sso_token', detail);
