/**
 * Light, dark, or the system's choice (the default). The choice is a preference, not a secret, so it is kept in
 * localStorage; the stylesheet follows `prefers-color-scheme` until the user picks one.
 */
export type Theme = 'system' | 'light' | 'dark';
const KEY = 'routinely.theme';

export function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
  try {
    if (theme === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  } catch {
    // the choice then lasts for this page only
  }
}

/** What is on screen now: the explicit choice, else the system's. */
export function effectiveTheme(theme: Theme): 'light' | 'dark' {
  if (theme !== 'system') return theme;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
