import { useEffect, useState } from 'react';
import { ToggleButton } from 'react-aria-components';
import { applyTheme, effectiveTheme, storedTheme, type Theme } from '../theme.js';
import { MoonIcon, SunIcon } from '../ui/icons.js';

/** Dark mode: follows the system until pressed, then keeps the user's choice. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const [systemDark, setSystemDark] = useState(() => effectiveTheme('system') === 'dark');
  useEffect(() => {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    const onChange = () => setSystemDark(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  const dark = theme === 'system' ? systemDark : theme === 'dark';
  return (
    <ToggleButton
      className="btn btn-icon"
      aria-label="Dark mode"
      isSelected={dark}
      onChange={(selected) => {
        const next: Theme = selected === systemDark ? 'system' : selected ? 'dark' : 'light';
        applyTheme(next);
        setTheme(next);
      }}
    >
      {dark ? <MoonIcon /> : <SunIcon />}
    </ToggleButton>
  );
}
